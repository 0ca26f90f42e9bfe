//! `skin`: every skinning kernel in vertices/s, next to a memory-read roofline measured in the
//! same run.
//!
//! Groups (each comparison in one group, so the figures share the machine's state):
//! - `skin-<input>`: `scalar`, `stream/<level>`, `prepared/<level>` (calling thread),
//!   `prepared-2t/<best>` (two rayon threads), `prepared-order/<best>` (output in prepared
//!   order), `compact/<level>`, `compact-2t/<best>` (the folded layout), `dqs` (scalar),
//!   `compact-dqs/<level>` (dual quaternions over the folded layout), and `read-1t`/`read-2t`: a byte-sum of a buffer the size of
//!   the prepared blocks, with the same vertex count as throughput so its vertices/s is the
//!   rate at which a kernel that only read its input would run. Inputs: `synthetic_100k`
//!   (a 32-bone tube, ~2.5 influences per vertex, L3-resident), `synthetic_4m` (the same
//!   shape at 4M vertices, from DRAM) and the corpus DPMs, each at a mid-animation frame.
//!   The kernels write into position and normal slices that start on 64-byte boundaries, as
//!   a GPU staging buffer's do (so the 4M outputs are streamed: `skin::STREAM_MIN_BYTES`).
//! - `bind-iqm`: the bind-pose blend (`skin::bind_lbs`) of each corpus IQM and of
//!   `synth::iqm_character`, in vertices/s: the mesh read one `BindVertex` at a time, and its
//!   arrays at `portable` and `avx512`.
//! - `handover`: an empty fork-join on two threads, from outside the pool: the fixed cost a
//!   `-2t` row pays on top of its halves.
//! - `endian-<model>`: the stream and prepared kernels on a corpus DPM (big-endian) and on
//!   its SKM conversion (little-endian).
//! - `skin-iqm-vs-dpm`: the compact kernel (`Model::compact`, `Compact::matrices`,
//!   `Compact::skin`) at each level on one tube written as an IQM and as a DPM, every vertex
//!   with the same four influences (`common::four_influence_tube`), in vertices/s.
//! - `pose`: `sample` + `Palette::build` per model, throughput in bones: from the DPM, from
//!   its SKP conversion, and from `BakedFrames`; per corpus IQM, from the file's quantised
//!   channels (`Iqm` view, with scale) and from `Model::bake`.
//! - `playback`: `Model::sample` + `Model::palette` per bone while playing forward one frame
//!   per call, halfway between frames, for every corpus DPM and MS3D: the keyed MS3D format
//!   beside the framed DPM through the same format-neutral calls.
//! - `frame-golem`: one game frame of the corpus golem (63 bones): two clips sampled as
//!   `SoaPose` layers, blended with a bone mask, one two-bone IK, posed and skinned by the compact kernel (`whole`),
//!   and each of those steps alone (`sample-2`, `blend-masked`, `ik`, `pose-matrices`,
//!   `skin-compact`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use skelmap::Parse;
use std::hint::black_box;
use std::time::Duration;

use criterion::measurement::WallTime;
use criterion::{
    BenchmarkGroup, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main,
};
use rayon::prelude::*;
use skelmap::dpm::{Dpm, Mesh};
use skelmap::iqm::Iqm;
use skelmap::model::Pose;
use skelmap::ms3d::Ms3d;
use skelmap::pose::{self, BindPoseMesh, BindVertex, Interpolation, LocalPose, Palette, SoaPose};
use skelmap::skin::dqs::{DualQuatPalette, deltas, skin_dqs};
use skelmap::skin::{self, CompactMesh, PreparedMesh, SimdLevel, SkinMatrices, VertexOrder};
use skelmap::skm;
use skelmap::skm::{Skm, Skp, convert};
use skelmap::{Diagnostics, Model, SkeletalMesh};

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
}

/// A group's sampling: fewer, longer samples for a `big` input.
fn config(group: &mut BenchmarkGroup<'_, WallTime>, big: bool) {
    group
        .sample_size(if big { 10 } else { 20 })
        .measurement_time(Duration::from_secs(if big { 4 } else { 2 }))
        .warm_up_time(Duration::from_millis(500));
}

/// One model's meshes in each layout the kernels read, and the palettes they skin with.
struct Inputs<'m> {
    posed: common::Posed,
    meshes: Vec<Mesh<'m>>,
    prepared: Vec<PreparedMesh>,
    compact: Vec<CompactMesh>,
    /// The compact kernels' matrices, from the first mesh: every mesh of a model has the
    /// same reference pose, so one mesh's matrices serve all.
    compact_matrices: SkinMatrices,
}

impl<'m> Inputs<'m> {
    /// The layouts of `m`'s meshes, at the pose [`common::posed`] picks.
    fn new(m: &Dpm<'m>) -> Inputs<'m> {
        let posed = common::posed(m);
        let meshes: Vec<_> = m.meshes().collect();
        let prepared: Vec<PreparedMesh> = meshes.iter().map(PreparedMesh::new).collect();
        let compact: Vec<CompactMesh> = meshes
            .iter()
            .map(|x| CompactMesh::new(x, &posed.bind.world).unwrap())
            .collect();
        let mut compact_matrices = SkinMatrices::default();
        compact[0].matrices(&posed.palette, &mut compact_matrices);
        Inputs {
            posed,
            meshes,
            prepared,
            compact,
            compact_matrices,
        }
    }
}

/// The group `skin-<name>` of the model `m` (see the module docs); `big` leaves out the
/// scalar references and takes fewer, longer samples.
fn kernels(c: &mut Criterion, name: &str, m: &Dpm<'_>, big: bool) {
    let inputs = Inputs::new(m);
    let n = m.meshes().map(|x| x.num_vertices()).max().unwrap_or(0);
    let ((mut p, at_p), (mut q, at_q)) = (common::aligned_output(n), common::aligned_output(n));
    let (p, q) = (&mut p[at_p..at_p + n], &mut q[at_q..at_q + n]);
    let read: Vec<u8> = vec![1; inputs.prepared.iter().map(PreparedMesh::bytes).sum()];
    let read_compact: Vec<u8> = vec![1; inputs.compact.iter().map(CompactMesh::bytes).sum()];
    describe(name, m, &inputs, read.len(), read_compact.len());
    let mut group = c.benchmark_group(format!("skin-{name}"));
    config(&mut group, big);
    group.throughput(Throughput::Elements(m.num_vertices() as u64));
    let two = pool(2);
    read_rows(&mut group, &two, &read, &read_compact);
    if !big {
        reference_rows(&mut group, &inputs, p, q);
    }
    level_rows(&mut group, &inputs, p, q);
    best_level_rows(&mut group, &two, &inputs, p, q);
    group.finish();
}

/// Prints the group's input: vertices, influences, bones, the prepared and compact bytes
/// (`read` and `read_compact`), how the compact layout folded and the best level.
fn describe(name: &str, m: &Dpm<'_>, inputs: &Inputs<'_>, read: usize, read_compact: usize) {
    let total = m.num_vertices() as u64;
    let influences: usize = inputs
        .meshes
        .iter()
        .map(|x| x.vertices().map(<[_]>::len).sum::<usize>())
        .sum();
    let compact = &inputs.compact;
    println!(
        "skin-{name}: {total} vertices, {:.2} influences per vertex, {} bones, {} prepared bytes, {} compact bytes ({} vertices exact, {} of {} rows of few bones), best level {}",
        influences as f64 / total as f64,
        m.num_bones(),
        read,
        read_compact,
        compact
            .iter()
            .map(CompactMesh::exact_vertices)
            .sum::<usize>(),
        compact.iter().map(|c| c.rows().1).sum::<usize>(),
        compact.iter().map(|c| c.rows().0).sum::<usize>(),
        SimdLevel::detect()
    );
}

/// The read rows: a byte-sum of `read` (the prepared blocks' size) and of `read_compact` on
/// one thread and in halves on `two`.
fn read_rows(
    group: &mut BenchmarkGroup<'_, WallTime>,
    two: &rayon::ThreadPool,
    read: &[u8],
    read_compact: &[u8],
) {
    group.bench_function("read-1t", |b| b.iter(|| common::byte_sum(black_box(read))));
    group.bench_function("read-2t", |b| {
        b.iter(|| {
            two.install(|| {
                read.par_chunks(read.len().div_ceil(2).max(1))
                    .map(common::byte_sum)
                    .sum::<u64>()
            })
        })
    });
    group.bench_function("read-compact-1t", |b| {
        b.iter(|| common::byte_sum(black_box(read_compact)))
    });
    group.bench_function("read-compact-2t", |b| {
        b.iter(|| {
            two.install(|| {
                read_compact
                    .par_chunks(read_compact.len().div_ceil(2).max(1))
                    .map(common::byte_sum)
                    .sum::<u64>()
            })
        })
    });
}

/// The scalar references over the mapped records: `scalar` and `dqs`.
fn reference_rows(
    group: &mut BenchmarkGroup<'_, WallTime>,
    inputs: &Inputs<'_>,
    p: &mut [[f32; 3]],
    q: &mut [[f32; 3]],
) {
    let (meshes, posed) = (&inputs.meshes, &inputs.posed);
    group.bench_function("scalar", |b| {
        b.iter(|| {
            for mesh in meshes {
                skin::scalar(mesh, &posed.palette, p, q).unwrap();
            }
        })
    });
    let d = deltas(&posed.palette, &posed.bind);
    group.bench_function("dqs", |b| {
        b.iter(|| {
            for mesh in meshes {
                skin_dqs(mesh, &posed.bind, &d, p, q).unwrap();
            }
        })
    });
}

/// The rows per SIMD level on the calling thread: `compact-dqs` (portable and best), then
/// for each supported level `stream` (below AVX-512), `compact` and `prepared`.
fn level_rows(
    group: &mut BenchmarkGroup<'_, WallTime>,
    inputs: &Inputs<'_>,
    p: &mut [[f32; 3]],
    q: &mut [[f32; 3]],
) {
    let Inputs {
        posed,
        meshes,
        prepared,
        compact,
        compact_matrices,
    } = inputs;
    let mut dual_quats = DualQuatPalette::default();
    compact[0].dual_quats(&posed.palette, &mut dual_quats);
    for level in [SimdLevel::Portable, SimdLevel::detect()] {
        group.bench_function(BenchmarkId::new("compact-dqs", level), |b| {
            b.iter(|| {
                for x in compact {
                    x.skin_dqs(&dual_quats, level, VertexOrder::Original, p, q)
                        .unwrap();
                }
            })
        });
    }
    for level in SimdLevel::ALL.into_iter().filter(|l| l.is_supported()) {
        group.bench_function(BenchmarkId::new("stream", level), |b| {
            b.iter(|| {
                for mesh in meshes {
                    skin::stream(mesh, &posed.matrices, level, p, q).unwrap();
                }
            })
        });
        group.bench_function(BenchmarkId::new("compact", level), |b| {
            b.iter(|| {
                for x in compact {
                    x.skin(compact_matrices, level, VertexOrder::Original, p, q)
                        .unwrap();
                }
            })
        });
        group.bench_function(BenchmarkId::new("prepared", level), |b| {
            b.iter(|| {
                for x in prepared {
                    x.skin(&posed.matrices, level, VertexOrder::Original, p, q)
                        .unwrap();
                }
            })
        });
    }
}

/// The rows at the best level that differ in threads or output order: `prepared-2t` and
/// `compact-2t` on `two`, and `prepared-order`.
fn best_level_rows(
    group: &mut BenchmarkGroup<'_, WallTime>,
    two: &rayon::ThreadPool,
    inputs: &Inputs<'_>,
    p: &mut [[f32; 3]],
    q: &mut [[f32; 3]],
) {
    let (posed, prepared, compact) = (&inputs.posed, &inputs.prepared, &inputs.compact);
    let best = SimdLevel::detect();
    // Two threads: a mesh large enough is split in two halves over two threads; a smaller one
    // runs on the calling thread (see `common::on_two_threads`).
    group.bench_function(BenchmarkId::new("prepared-2t", best), |b| {
        b.iter(|| {
            common::on_two_threads(two, || {
                for x in prepared {
                    x.skin_par(&posed.matrices, best, VertexOrder::Original, p, q)
                        .unwrap();
                }
            })
        })
    });
    group.bench_function(BenchmarkId::new("compact-2t", best), |b| {
        b.iter(|| {
            common::on_two_threads(two, || {
                for x in compact {
                    x.skin_par(&inputs.compact_matrices, best, VertexOrder::Original, p, q)
                        .unwrap();
                }
            })
        })
    });
    group.bench_function(BenchmarkId::new("prepared-order", best), |b| {
        b.iter(|| {
            for x in prepared {
                x.skin(&posed.matrices, best, VertexOrder::Prepared, p, q)
                    .unwrap();
            }
        })
    });
}

fn skin(c: &mut Criterion) {
    let small = common::synthetic(32, 98);
    kernels(c, "synthetic_100k", &Dpm::parse(&small).unwrap(), false);
    for (name, bytes) in common::corpus("dpm") {
        kernels(c, &name, &Dpm::parse(&bytes).unwrap(), false);
    }
    let big = common::synthetic(32, 3906);
    let m = Dpm::parse_with(&big, &common::big_limits(), &mut Diagnostics::new()).unwrap();
    kernels(c, "synthetic_4m", &m, true);
}

/// The stream and prepared kernels on a DPM and on its SKM conversion.
fn endian(c: &mut Criterion) {
    let mut inputs = vec![("synthetic_100k".to_string(), common::synthetic(32, 98))];
    inputs.extend(common::corpus("dpm"));
    for (name, bytes) in inputs {
        let dpm = Dpm::parse(&bytes).unwrap();
        let conv = convert::from_dpm(&dpm, &mut Diagnostics::new());
        let (skm_bytes, skp_bytes) = (conv.skm.write().unwrap(), conv.skp.write().unwrap());
        let skm = skm::Pair::new(
            Skm::parse(&skm_bytes).unwrap(),
            Skp::parse(&skp_bytes).unwrap(),
            &[],
        )
        .unwrap();
        let (pd, ps) = (common::posed(&dpm), common::posed(&skm));
        let n = dpm.meshes().map(|x| x.num_vertices()).max().unwrap_or(0);
        let (mut p, mut q) = (vec![[0.0f32; 3]; n], vec![[0.0f32; 3]; n]);
        let mut group = c.benchmark_group(format!("endian-{name}"));
        config(&mut group, false);
        group.throughput(Throughput::Elements(dpm.num_vertices() as u64));
        let level = SimdLevel::detect();
        group.bench_function(BenchmarkId::new("stream-dpm", level), |b| {
            b.iter(|| {
                for mesh in dpm.meshes() {
                    skin::stream(&mesh, &pd.matrices, level, &mut p, &mut q).unwrap();
                }
            })
        });
        group.bench_function(BenchmarkId::new("stream-skm", level), |b| {
            b.iter(|| {
                for mesh in skm.skm().meshes() {
                    skin::stream(&mesh, &ps.matrices, level, &mut p, &mut q).unwrap();
                }
            })
        });
        group.finish();
    }
}

/// One pose row: sample frames `f` and `f + 1` of `source` at 0.3 (frames stepping by 7, so
/// no frame is reused from the previous iteration), concatenate into a palette over
/// `skeleton`, and with `matrices` also lay the palette out for the kernels.
fn pose_row<'d, S: pose::PoseFrames<'d>>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    id: BenchmarkId,
    source: &S,
    matrices: bool,
) {
    let frames = source.num_frames();
    let (mut pose, mut palette) = (LocalPose::default(), Palette::default());
    let mut skin = SkinMatrices::default();
    let mut frame = 0;
    group.bench_function(id, |b| {
        b.iter(|| {
            frame = (frame + 7) % frames;
            pose::sample(
                source,
                frame,
                (frame + 1) % frames,
                0.3,
                Interpolation::Nlerp,
                &mut pose,
            );
            palette.build(source, &pose);
            if matrices {
                skin.update(&palette);
            }
            black_box(&palette);
        })
    });
}

/// Sampling two frames and concatenating the hierarchy, per bone: straight from the DPM's
/// matrices (`dpm`), from its SKM conversion's quaternions (`skp`), and from frames baked
/// once (`baked`); `+matrices` adds `SkinMatrices::update`.
fn pose(c: &mut Criterion) {
    let mut group = c.benchmark_group("pose");
    config(&mut group, false);
    for (name, bytes) in common::corpus("dpm") {
        let m = Dpm::parse(&bytes).unwrap();
        let skp_bytes = convert::from_dpm(&m, &mut Diagnostics::new())
            .skp
            .write()
            .unwrap();
        let skp = Skp::parse(&skp_bytes).unwrap();
        let baked = pose::BakedFrames::new(&m).unwrap();
        group.throughput(Throughput::Elements(m.num_bones() as u64));
        pose_row(&mut group, BenchmarkId::new("dpm", &name), &m, false);
        pose_row(&mut group, BenchmarkId::new("skp", &name), &skp, false);
        pose_row(&mut group, BenchmarkId::new("baked", &name), &baked, false);
        pose_row(
            &mut group,
            BenchmarkId::new("dpm+matrices", &name),
            &m,
            true,
        );
        pose_row(
            &mut group,
            BenchmarkId::new("baked+matrices", &name),
            &baked,
            true,
        );
        // Sampling alone, into each layout: what a blend layer costs before blending.
        let frames = m.num_frames();
        let (mut local, mut soa, mut frame) = (LocalPose::default(), SoaPose::default(), 0);
        group.bench_function(BenchmarkId::new("dpm-sample", &name), |b| {
            b.iter(|| {
                frame = (frame + 7) % frames;
                let next = (frame + 1) % frames;
                pose::sample(&m, frame, next, 0.3, Interpolation::Nlerp, &mut local);
                black_box(&local);
            })
        });
        group.bench_function(BenchmarkId::new("dpm-sample-soa", &name), |b| {
            b.iter(|| {
                frame = (frame + 7) % frames;
                let next = (frame + 1) % frames;
                pose::sample_soa(&m, frame, next, 0.3, Interpolation::Nlerp, &mut soa);
                black_box(&soa);
            })
        });
    }
    // MS3D: keyed joints sampled as a game plays them (one frame forward per call, so the key
    // cursors find each key pair next to the last) beside the same timeline baked into frames.
    for (name, bytes) in common::corpus("ms3d") {
        let ms3d = Ms3d::parse(&bytes).unwrap();
        let model = Model::from_bytes(&bytes).unwrap();
        let baked = pose::BakedFrames::new(&ms3d).unwrap();
        let frames = model.num_frames().max(1);
        group.throughput(Throughput::Elements(model.num_bones().max(1) as u64));
        let (mut local, mut palette) = (LocalPose::default(), Palette::default());
        let mut frame = 0;
        group.bench_function(BenchmarkId::new("ms3d", &name), |b| {
            b.iter(|| {
                frame = (frame + 1) % frames;
                let next = (frame + 1) % frames;
                model.sample(frame, next, 0.5, Interpolation::Nlerp, &mut local);
                model.palette(&local, &mut palette);
                black_box(&palette);
            })
        });
        group.bench_function(BenchmarkId::new("ms3d-baked", &name), |b| {
            b.iter(|| {
                frame = (frame + 1) % frames;
                let next = (frame + 1) % frames;
                pose::sample(&baked, frame, next, 0.5, Interpolation::Nlerp, &mut local);
                palette.build(&baked, &local);
                black_box(&palette);
            })
        });
    }
    // IQM: every frame's channels decoded from `u16`s (and scale applied where a joint
    // scales) beside the same frames baked once.
    for (name, bytes) in common::corpus_next("iqm") {
        let iqm = Iqm::parse(&bytes).unwrap();
        if iqm.num_frames() < 2 {
            continue;
        }
        let model = Model::from_bytes(&bytes).unwrap();
        let baked = model.bake().unwrap();
        group.throughput(Throughput::Elements(model.num_bones() as u64));
        pose_row(&mut group, BenchmarkId::new("iqm", &name), &iqm, false);
        pose_row(
            &mut group,
            BenchmarkId::new("iqm-baked", &name),
            &baked,
            false,
        );
    }
    group.finish();
}

/// The compact kernel on one mesh in two formats: an IQM (bind-pose vertices, 8-bit weights)
/// and a DPM (pre-weighted records), built from the same tube, so both fold to the same
/// vertices and influences; skinned at frames n/2 and n/2 + 1 blended at 0.5, after checking
/// that the two outputs agree.
fn iqm_vs_dpm(c: &mut Criterion) {
    let (iqm, dpm) = common::four_influence_tube(32, 98, 32, 4);
    let (iqm, dpm) = (iqm.write().unwrap(), dpm.write().unwrap());
    let models = [
        ("iqm", Model::from_bytes(&iqm).unwrap()),
        ("dpm", Model::from_bytes(&dpm).unwrap()),
    ];
    let frames = models[0].1.num_frames();
    let mid = frames / 2;
    let next = (mid + 1).min(frames - 1);
    let n = models[0].1.mesh(0).unwrap().num_vertices();
    let ((mut p, at_p), (mut q, at_q)) = (common::aligned_output(n), common::aligned_output(n));
    let (p, q) = (&mut p[at_p..at_p + n], &mut q[at_q..at_q + n]);
    let prepared: Vec<_> = models
        .iter()
        .map(|(format, model)| {
            let compact = model.compact().unwrap();
            let mut pose = Pose::default();
            model
                .pose(mid, next, 0.5, Interpolation::Nlerp, &mut pose)
                .unwrap();
            let mut matrices = SkinMatrices::default();
            compact.matrices(&pose, &mut matrices).unwrap();
            compact
                .skin(0, &matrices, SimdLevel::detect(), p, q)
                .unwrap();
            println!(
                "skin-iqm-vs-dpm {format}: {} bytes, {n} vertices, 4 influences each, {} bones, \
                 {} compact bytes ({} vertices exact)",
                if *format == "iqm" {
                    iqm.len()
                } else {
                    dpm.len()
                },
                model.num_bones(),
                compact.mesh(0).map_or(0, CompactMesh::bytes),
                compact.exact_vertices(),
            );
            (*format, compact, matrices, p.to_vec())
        })
        .collect();
    // The IQM's frames are 16-bit channels, the DPM's floats: the outputs agree to the
    // channels' precision, not to the bit.
    let (a, b) = (&prepared[0].3, &prepared[1].3);
    let extent = a.iter().flatten().fold(0.0f32, |m, x| m.max(x.abs()));
    let d = a
        .iter()
        .flatten()
        .zip(b.iter().flatten())
        .map(|(x, y)| (x - y).abs())
        .fold(0.0f32, f32::max);
    println!("  max |Δposition| iqm against dpm {d:.3e} (extent {extent:.3e})");
    assert!(d <= 1e-4 * extent, "the IQM and DPM tubes skin apart: {d}");
    let mut group = c.benchmark_group("skin-iqm-vs-dpm");
    config(&mut group, false);
    group.throughput(Throughput::Elements(n as u64));
    for level in SimdLevel::ALL.into_iter().filter(|l| l.is_supported()) {
        for (format, compact, matrices, _) in &prepared {
            group.bench_function(BenchmarkId::new(format!("compact-{format}"), level), |b| {
                b.iter(|| compact.skin(0, matrices, level, p, q).unwrap())
            });
        }
    }
    group.finish();
}

/// A mesh read one `BindVertex` at a time: `skin::bind_lbs`'s path for a mesh that gives no
/// arrays, and IQM's before it gave them.
struct OneAtATime<M>(M);

impl<M: BindPoseMesh> BindPoseMesh for OneAtATime<M> {
    fn num_vertices(&self) -> usize {
        self.0.num_vertices()
    }

    fn bind_vertex(&self, i: usize) -> Option<BindVertex> {
        self.0.bind_vertex(i)
    }
}

/// `model`'s bones at frame n/2 and n/2 + 1 blended at 0.5, relative to its bind pose: the
/// deltas a bind-pose blend reads.
fn mid_deltas(model: &Model<'_>) -> Vec<skelmap::glam::Affine3A> {
    let (mut local, mut now, mut bind) =
        (LocalPose::default(), Palette::default(), Palette::default());
    model.bind_pose(&mut local);
    model.palette(&local, &mut bind);
    let f = model.num_frames() / 2;
    model.sample(f, f + 1, 0.5, Interpolation::Nlerp, &mut local);
    model.palette(&local, &mut now);
    let mut deltas = Vec::new();
    now.relative_to(&bind, &mut deltas);
    deltas
}

/// The bind-pose blend (`skin::bind_lbs`) of every corpus IQM with a mesh and frames and of
/// `synth::iqm_character` (80 joints: the AVX-512 step's widest look-up, 128 bones), at frame
/// n/2 and n/2 + 1 blended at 0.5: `one-at-a-time` (the mesh read one `BindVertex` at a time),
/// `portable` and `avx512` (its arrays, `bind_lbs_with_level`), in vertices/s, after checking
/// that the three agree bit for bit.
fn bind_iqm(c: &mut Criterion) {
    let character = skelmap::synth::iqm_character(&Default::default())
        .model
        .write()
        .unwrap();
    let mut inputs = common::corpus_next("iqm");
    inputs.push(("synthetic_character".into(), character));
    let mut group = c.benchmark_group("bind-iqm");
    config(&mut group, false);
    for (name, bytes) in &inputs {
        let model = Model::from_bytes(bytes).unwrap();
        let iqm = Iqm::parse(bytes).unwrap();
        if model.num_frames() < 2 || iqm.num_vertices() == 0 || model.num_bones() == 0 {
            continue;
        }
        let deltas = mid_deltas(&model);
        let n = iqm.num_vertices();
        let view = &iqm;
        let (mut p, mut q) = (vec![[0.0f32; 3]; n], vec![[0.0f32; 3]; n]);
        skin::bind_lbs(&OneAtATime(view), &deltas, &mut p, &mut q).unwrap();
        let levels = [SimdLevel::Portable, SimdLevel::Avx512];
        for level in levels.into_iter().filter(|l| l.is_supported()) {
            let (mut r, mut s) = (vec![[0.0f32; 3]; n], vec![[0.0f32; 3]; n]);
            skin::bind_lbs_with_level(&view, &deltas, level, &mut r, &mut s).unwrap();
            assert!(
                r == p && s == q,
                "{name}: {level:?} differs from one at a time"
            );
        }
        println!("  bind-iqm {name}: {n} vertices, {} joints", deltas.len());
        group.throughput(Throughput::Elements(n as u64));
        group.bench_function(BenchmarkId::new("one-at-a-time", name), |b| {
            b.iter(|| skin::bind_lbs(&OneAtATime(view), &deltas, &mut p, &mut q).unwrap())
        });
        for level in levels.into_iter().filter(|l| l.is_supported()) {
            group.bench_function(BenchmarkId::new(level.name(), name), |b| {
                b.iter(|| skin::bind_lbs_with_level(&view, &deltas, level, &mut p, &mut q).unwrap())
            });
        }
    }
    group.finish();
}

/// The bind-pose blend (`skin::bind_lbs`, what `Model::deform` runs for a Half-Life model
/// posed by anything but its bind pose) of every shared Half-Life model of two or more
/// frames (opened with its companions) and of `common::hl1_grid` (2,000 vertices in strips,
/// 32 bones), at frame n/2 and n/2 + 1 blended at 0.5: `one-at-a-time` (the mesh read one
/// `bind_vertex` at a time, as every bind-pose mesh without arrays was) and `walk` (its
/// `for_each_rigid_vertex`: each studio model moved into the bind pose once, then its
/// triangle commands read in order), in vertices/s, after checking that the two agree bit
/// for bit.
fn bind_hl1(c: &mut Criterion) {
    let mut models: Vec<(String, Model<'static>)> = Vec::new();
    if let Some(dir) = skelmap_testkit::corpus_engines_path("hl1") {
        let mut paths: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .collect();
        paths.sort();
        for path in paths {
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            // Each model file (texture and sequence-group files are its companions).
            if let Ok(model) = Model::open(&path)
                && model.as_hl1().is_some()
            {
                models.push((name, model));
            }
        }
    }
    let grid: &'static [u8] = Box::leak(common::hl1_grid(1).into_boxed_slice());
    models.push(("synthetic_grid".into(), Model::from_bytes(grid).unwrap()));
    let mut group = c.benchmark_group("bind-hl1");
    config(&mut group, false);
    for (name, model) in &models {
        let Some(pair) = model.as_hl1() else { continue };
        let n = BindPoseMesh::num_vertices(&pair);
        if model.num_frames() < 2 || n == 0 {
            continue;
        }
        let deltas = mid_deltas(model);
        let (mut p, mut q) = (vec![[0.0f32; 3]; n], vec![[0.0f32; 3]; n]);
        skin::bind_lbs(&OneAtATime(pair), &deltas, &mut p, &mut q).unwrap();
        let (mut r, mut s) = (vec![[0.0f32; 3]; n], vec![[0.0f32; 3]; n]);
        skin::bind_lbs(&pair, &deltas, &mut r, &mut s).unwrap();
        assert!(
            r == p && s == q,
            "{name}: the walk differs from one at a time"
        );
        println!("  bind-hl1 {name}: {n} vertices, {} bones", deltas.len());
        group.throughput(Throughput::Elements(n as u64));
        group.bench_function(BenchmarkId::new("one-at-a-time", name), |b| {
            b.iter(|| skin::bind_lbs(&OneAtATime(pair), &deltas, &mut p, &mut q).unwrap())
        });
        group.bench_function(BenchmarkId::new("walk", name), |b| {
            b.iter(|| skin::bind_lbs(&pair, &deltas, &mut r, &mut s).unwrap())
        });
    }
    group.finish();
}

/// What handing work to a second thread costs, with no work: an empty `rayon::join` from a
/// thread outside a two-thread pool (as `on_two_threads` calls the kernels), and an empty
/// spawn waited for in `rayon::in_place_scope` (the pattern `CompactMesh::skin_par` builds on).
fn handover(c: &mut Criterion) {
    let mut group = c.benchmark_group("handover");
    config(&mut group, false);
    let two = pool(2);
    group.bench_function("join-2t", |b| {
        b.iter(|| {
            common::on_two_threads(&two, || {
                rayon::join(|| black_box(1), || black_box(2));
            })
        })
    });
    group.bench_function("in-place-spawn-2t", |b| {
        b.iter(|| {
            common::on_two_threads(&two, || {
                rayon::in_place_scope(|scope| {
                    scope.spawn(|_| {
                        black_box(1);
                    })
                })
            })
        })
    });
    group.finish();
}

/// `Model::sample` + `Model::palette` while playing forward (see the module docs).
fn playback(c: &mut Criterion) {
    let mut group = c.benchmark_group("playback");
    config(&mut group, false);
    for (format, dir) in [("dpm", "dpm"), ("ms3d", "ms3d")] {
        for (name, bytes) in common::corpus(dir) {
            let model = Model::from_bytes(&bytes).unwrap();
            let frames = model.num_frames().max(1);
            group.throughput(Throughput::Elements(model.num_bones().max(1) as u64));
            let (mut pose, mut palette) = (LocalPose::default(), Palette::default());
            let mut frame = 0;
            group.bench_function(BenchmarkId::new(format, &name), |b| {
                b.iter(|| {
                    frame = (frame + 1) % frames;
                    let next = (frame + 1) % frames;
                    model.sample(frame, next, 0.5, Interpolation::Nlerp, &mut pose);
                    model.palette(&pose, &mut palette);
                    black_box(&palette);
                })
            });
        }
    }
    // `Model::pose`, all a deform needs, every corpus model of two or more frames: as above
    // plus the skinning layouts (and, for a format stored in its bind pose, each bone's move
    // from it).
    let inputs = [
        ("dpm-pose", common::corpus("dpm")),
        ("ms3d-pose", common::corpus("ms3d")),
        ("iqm-pose", common::corpus_next("iqm")),
        ("hl1-pose", common::corpus_engines("hl1")),
    ];
    for (row, files) in inputs {
        for (name, bytes) in files {
            // A Half-Life texture or sequence-group file is not a model on its own.
            let Ok(model) = Model::from_bytes(&bytes) else {
                continue;
            };
            let frames = model.num_frames();
            if frames < 2 || model.num_bones() == 0 {
                continue;
            }
            group.throughput(Throughput::Elements(model.num_bones() as u64));
            let mut pose = Pose::default();
            let mut frame = 0;
            group.bench_function(BenchmarkId::new(row, &name), |b| {
                b.iter(|| {
                    frame = (frame + 1) % frames;
                    let next = (frame + 1) % frames;
                    model
                        .pose(frame, next, 0.5, Interpolation::Nlerp, &mut pose)
                        .unwrap();
                    black_box(&pose);
                })
            });
        }
    }
    group.finish();
}

/// The buffers one character's frame reuses (a game keeps them from frame to frame).
#[derive(Default)]
struct Frame {
    walk: SoaPose,
    run: SoaPose,
    blended: LocalPose,
    blender: pose::blend::Blender,
    palette: Palette,
    pose: Pose,
    matrices: SkinMatrices,
    positions: Vec<[f32; 3]>,
    normals: Vec<[f32; 3]>,
}

/// What a frame of golem plays: two clips, the second masked to the bones from the IK
/// chain's start joint on, and a two-bone IK on that chain (the deepest three bones).
struct Scene<'m> {
    model: &'m Model<'m>,
    compact: skelmap::model::Compact,
    rest: SoaPose,
    clips: [skelmap::pose::framegroups::FrameGroup; 2],
    chain: [usize; 3],
}

impl Scene<'_> {
    /// Step 1: both clips sampled at `seconds`, in the layout the blend reads.
    fn sample(&self, seconds: f32, f: &mut Frame) {
        for (clip, out) in self.clips.iter().zip([&mut f.walk, &mut f.run]) {
            self.model
                .sample_clip_soa(clip, seconds, true, Interpolation::Nlerp, out)
                .unwrap();
        }
    }

    /// Step 2: the walk everywhere, the run at half weight from the chain's start joint on.
    fn blend(&self, f: &mut Frame) {
        use skelmap::pose::blend::{Layer, Mask};
        let mask = Mask::Range {
            first: self.chain[0],
            last: usize::MAX,
        };
        let layers = [
            Layer::new(&f.walk, 1.0),
            Layer::new(&f.run, 0.5).masked(mask),
        ];
        f.blender
            .blend_soa(&self.rest, &layers, 0.1, &mut f.blended);
    }

    /// Step 3: world transforms for the chain, the IK solved towards a point between its
    /// start and end, its corrections applied to the local pose.
    fn ik(&self, f: &mut Frame) {
        self.model.palette(&f.blended, &mut f.palette);
        let [s, m, e] = self.chain.map(|bone| f.palette.world[bone]);
        let ik = pose::TwoBoneIk {
            target: (s.translation + e.translation) * 0.5 + skelmap::glam::Vec3A::splat(0.01),
            mid_axis: skelmap::glam::Vec3A::X,
            ..pose::TwoBoneIk::default()
        };
        ik.solve(&s, &m, &e)
            .apply(&mut f.blended, self.chain[0], self.chain[1]);
    }

    /// Step 4: the model posed by the corrected local pose (world transforms, layouts) and
    /// the compact kernel's matrices.
    fn pose(&self, f: &mut Frame) {
        self.model.pose_local(&f.blended, &mut f.pose).unwrap();
        self.compact.matrices(&f.pose, &mut f.matrices).unwrap();
    }

    /// Step 5: every mesh skinned by the compact kernel, at the best level.
    fn skin(&self, f: &mut Frame) {
        let level = SimdLevel::detect();
        for mesh in 0..self.compact.num_meshes() {
            let n = self.compact.mesh(mesh).unwrap().num_vertices();
            f.positions.resize(n, [0.0; 3]);
            f.normals.resize(n, [0.0; 3]);
            self.compact
                .skin(mesh, &f.matrices, level, &mut f.positions, &mut f.normals)
                .unwrap();
        }
    }

    fn whole(&self, seconds: f32, f: &mut Frame) {
        self.sample(seconds, f);
        self.blend(f);
        self.ik(f);
        self.pose(f);
        self.skin(f);
    }
}

/// Three bones, each the parent of the next, ending at the deepest bone.
fn deepest_chain(model: &Model) -> [usize; 3] {
    let parent = |bone: usize| model.bone(bone).and_then(|b| b.parent());
    (0..model.num_bones())
        .rev()
        .find_map(|end| {
            let mid = parent(end)?;
            Some([parent(mid)?, mid, end])
        })
        .unwrap()
}

/// One game frame of golem (issue #57): two clips sampled (`Model::sample_clip_soa`),
/// blended with a bone mask (`Blender::blend_soa`), one two-bone IK (`Model::palette`,
/// `TwoBoneIk::solve`, `apply`), posed (`Model::pose_local`, `Compact::matrices`) and skinned
/// by the compact kernel (`Compact::skin`); `whole`, and each step alone on the buffers the
/// whole frame leaves.
fn frame(c: &mut Criterion) {
    let Some((_, bytes)) = common::corpus("dpm")
        .into_iter()
        .find(|(name, _)| name == "xon_monsters_golem")
    else {
        return;
    };
    let model = Model::from_bytes(&bytes).unwrap();
    let mut bind = LocalPose::default();
    model.bind_pose(&mut bind);
    let rest = SoaPose::from_local(&bind);
    // The two longest clips (golem's walk and run, say), in their order.
    let mut clips: Vec<_> = model.clips().to_vec();
    clips.sort_by_key(|c| std::cmp::Reverse(c.count));
    let scene = Scene {
        model: &model,
        compact: model.compact().unwrap(),
        rest,
        clips: [clips[0].clone(), clips[1 % clips.len()].clone()],
        chain: deepest_chain(&model),
    };
    let mut f = Frame::default();
    scene.whole(0.3, &mut f);
    let vertices: usize = f.positions.len();
    println!(
        "frame golem: {} bones, chain {:?}, clips {:?} and {:?}, {vertices} vertices in the last mesh",
        model.num_bones(),
        scene.chain,
        scene.clips[0].name,
        scene.clips[1].name
    );
    let mut group = c.benchmark_group("frame-golem");
    config(&mut group, false);
    let mut seconds = 0.0f32;
    let mut tick = move || {
        seconds = (seconds + 1.0 / 60.0) % 10.0;
        seconds
    };
    group.bench_function("whole", |b| b.iter(|| scene.whole(tick(), &mut f)));
    group.bench_function("sample-2", |b| b.iter(|| scene.sample(tick(), &mut f)));
    group.bench_function("blend-masked", |b| b.iter(|| scene.blend(&mut f)));
    // Each call turns the chain it read a little further towards the same target: the same
    // work as a frame's solve, from a pose already near it.
    group.bench_function("ik", |b| b.iter(|| scene.ik(&mut f)));
    group.bench_function("pose-matrices", |b| b.iter(|| scene.pose(&mut f)));
    group.bench_function("skin-compact", |b| b.iter(|| scene.skin(&mut f)));
    group.finish();
}

criterion_group!(
    benches, skin, iqm_vs_dpm, bind_iqm, bind_hl1, handover, endian, pose, playback, frame
);
criterion_main!(benches);
