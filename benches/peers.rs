//! `peers`: skelmap next to another library on exactly the same input, in the same run.
//!
//! - `ms3d/<model>`: every corpus MS3D opened and validated by skelmap (`Ms3d::parse`, the
//!   zero-copy view, every group, material, joint and key checked) beside the `ms3d` crate
//!   (0.1, a parse-and-copy reader: `Model::from_reader`) and beside a plain read of the same
//!   bytes (`bytesum`, the roofline). The crate refuses some real files; those rows are left
//!   out and the bench says which.
//! - `ozz-skin-<input>` (feature `ozz`): ozz-animation 0.16's `SkinningJob` beside skelmap's
//!   `PreparedMesh` on the same mesh and matrices, in vertices/s, on one thread and (synthetic
//!   inputs) two; `ozz-blend-<n>`: ozz's `BlendingJob` beside skelmap's `pose::blend::Blender`,
//!   `n` sampled layers of every corpus DPM; `ozz-ik-two-bone`: ozz's `IKTwoBoneJob` beside
//!   `pose::TwoBoneIk` on five chains; `ozz-ik-aim`: ozz's `IKAimJob` beside `pose::AimIk`
//!   on three joints; `ozz-pose`: ozz's `SamplingJob` + `LocalToModelJob` beside skelmap's
//!   `pose::sample` + `Palette::build` on every corpus DPM's and IQM's animation (an IQM as
//!   `iqm::Pair`, through its channel layout), in bones/s.
//!   See the `ozz` module below.
//! - `assimp` (feature `assimp`): the system assimp library importing every corpus MDL, HMP,
//!   MS3D, animated IQM, boneless MDL7 and shared MD2 and reading its positions, beside skelmap opening the
//!   same file and computing its frame-0 positions. See the `assimp` module below.
//!
//! The C++ peers run as child processes of this bench (`common/peer.rs`): no FFI, so no
//! `unsafe`. `build.rs` compiles them when the features are on. Set up and run:
//!
//! ```text
//! apt-get install libassimp-dev                  # for `assimp`
//! # for `ozz`: the ozz-animation 0.16 release sources, unpacked anywhere
//! OZZ_DIR=/path/to/ozz-animation-0.16.0 cargo bench --bench peers --features ozz,assimp
//! ```
//!
//! Without the features: `cargo bench --bench peers` (the `ms3d` group only);
//! benches/README.md holds the figures as skelmap ÷ peer.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
#[cfg(any(feature = "ozz", feature = "assimp"))]
#[path = "common/peer.rs"]
mod peer;

use std::hint::black_box;
use std::io::Cursor;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use skelmap::Parse;
use skelmap::ms3d::Ms3d;

fn ms3d_crate(c: &mut Criterion) {
    let mut group = c.benchmark_group("ms3d");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(2))
        .warm_up_time(Duration::from_millis(500));
    for (name, bytes) in common::corpus("ms3d") {
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        // Both must read the file; skelmap's view is checked to be the same model.
        let ours = Ms3d::parse(&bytes).expect("skelmap reads every corpus MS3D");
        group.bench_with_input(BenchmarkId::new("skelmap", &name), &bytes, |b, bytes| {
            b.iter(|| {
                Ms3d::parse(black_box(bytes))
                    .expect("valid")
                    .vertices()
                    .len()
            })
        });
        match ms3d::Model::from_reader(Cursor::new(&bytes)) {
            Ok(theirs) => {
                assert_eq!(theirs.vertices.len(), ours.vertices().len(), "{name}");
                group.bench_with_input(
                    BenchmarkId::new("ms3d_crate", &name),
                    &bytes,
                    |b, bytes| {
                        b.iter(|| {
                            ms3d::Model::from_reader(Cursor::new(black_box(bytes)))
                                .expect("read once before")
                                .vertices
                                .len()
                        })
                    },
                );
            }
            Err(e) => eprintln!("ms3d crate refuses {name}: {e:?}"),
        }
        group.bench_with_input(BenchmarkId::new("bytesum", &name), &bytes, |b, bytes| {
            b.iter(|| common::byte_sum(black_box(bytes)))
        });
    }
    group.finish();
}

/// ozz-animation 0.16 beside skelmap: `SkinningJob` against `PreparedMesh`
/// (`ozz-skin-<input>`, vertices/s) and `SamplingJob` + `LocalToModelJob` against
/// `pose::sample` + `Palette::build` (`ozz-pose`, bones/s).
///
/// `ozz-skin-<input>` inputs: `synthetic_100k` and `synthetic_4m` (the 32-bone tubes of `benches/skin.rs`, same
/// parameters, so the same meshes) and the corpus DPM `xon_monsters_golem`, each at a
/// mid-animation frame (frames `n/2` and `n/2 + 1` blended at 0.5). Rows, per thread count
/// (`1t`; `2t` for the synthetic inputs): `ozz` and every skelmap row of `SKELMAP_ROWS`.
///
/// How the DPM becomes ozz's input (done once, untimed, written to `target/peer-data` for
/// the harness): a DPM stores each vertex as `k` pre-weighted records (bone `b`,
/// `origin = w·B_b⁻¹·P`, influence `w`, normal likewise), skinned as
/// `Σ M_b · (origin, w)`. ozz wants a bind-space position and normal per vertex, `k` joint
/// indices, `k − 1` weights and one matrix per joint. Taking the frame-0 palette as the bind
/// pose `B`:
///
/// - bind position and normal = the records skinned by the frame-0 palette
///   (`skin::scalar`), i.e. `Σ w·P`;
/// - joint indices = `bonenum` (u16), weights = the influences, in record order;
/// - joint matrices = palette(mid frame) × B⁻¹ (`Palette::relative_to`), as column-major
///   `Float4x4`.
///
/// ozz derives each vertex's last weight as `1 − Σ(others)` (and a one-influence vertex's
/// as 1), where the DPM skins with the stored influences. When a vertex's stored influences
/// do not sum to exactly 1 (rounding in real exporters), the two differ by about
/// `|Σw − 1| · |P|`; the bench prints how far the sums stray and checks the outputs against
/// a tolerance that covers it (the synthetic tubes' sums are exact to float rounding).
///
/// ozz runs one job per influence count: the vertices are partitioned by it (as ozz's own
/// runtime meshes are split into parts), once, untimed; ozz's outputs are therefore in part
/// order, and the check reorders them. Outputs are separate float3 arrays of positions and
/// normals (no tangents, no inverse-transpose matrices: the rotations are rigid). ozz is
/// compiled with `-O3 -march=native` (its SSE/AVX2 + FMA code path). ozz on two threads:
/// each part split in halves, the calling thread running the first halves and one persistent
/// worker thread the second (see `benches/peers/ozz_harness.cc`); skelmap on two threads:
/// `skin_par` inside a two-thread rayon pool.
///
/// The two read different inputs for the same output: ozz a bind-pose position and normal
/// per vertex plus its indices and weights, skelmap's prepared blocks the DPM's pre-weighted
/// records (origin, weight, normal and bone per influence): the bench prints both sizes per
/// vertex. Both write 24 bytes per vertex.
///
/// `ozz-pose`: each corpus DPM and IQM (`../shared/corpus-next/iqm`) with more than one frame,
/// each shared MD5 mesh with its animations, and each shared Half-Life model with more than
/// one frame (its sequences one after another),
/// becomes an ozz skeleton and animation through ozz's offline `SkpBuilder` and
/// `AnimationBuilder` (once, untimed): the file's parents, frame 0 as the rest pose, and every
/// frame's parent-relative rotation and translation as skelmap samples them (an IQM's decoded
/// from its 16-bit channels), plus its scale when the IQM scales a joint, as one key per
/// track at time `f`. The rows play forward one frame per call, halfway between frames,
/// wrapping before the last frame: `ozz` runs `SamplingJob` (at ratio
/// `(f + 0.5) / (frames − 1)`, with a reused context) and `LocalToModelJob`; `skelmap-dpm`,
/// `skelmap-iqm`, `skelmap-md5` and `skelmap-hl1` run `pose::sample` (frames `f`, `f + 1` at 0.5, nlerp) straight from the
/// file and `Palette::build`; `skelmap-baked` the same from `BakedFrames` (the file's poses
/// converted once); `skelmap-hl1-sampler` the Half-Life rows through a `pose::Sampler`, which
/// keeps the frames it decoded (each frame decoded once, as ozz's context keeps its keys).
/// Throughput in bones. ozz's builder stores rotations as 16-bit fixed
/// point and translations as half floats, so its model-space matrices differ from skelmap's
/// at that precision (the bench prints the largest differences and checks them against a
/// tolerance of 1e-2: rotations absolute, translations relative to the skeleton's extent).
/// Each file row and `skelmap-hl1-sampler` is also measured against ozz in paired rounds
/// (`Peer::paired`, printed as `paired <row>/<input>`), the ratio to quote on a shared host.
/// Every shared Half-Life model (../shared/corpus-engines/hl1), canonical: the companions
/// (texture and sequence-group files) left out.
#[cfg(any(feature = "ozz", feature = "assimp"))]
fn hl1_models() -> Vec<std::path::PathBuf> {
    let Some(dir) = skelmap_testkit::corpus_engines_path("hl1") else {
        return Vec::new();
    };
    [
        "assimp_man.mdl",
        "assimp_chrome_sphere.mdl",
        "assimp_multiple_roots.mdl",
    ]
    .into_iter()
    .map(|name| std::fs::canonicalize(dir.join(name)).unwrap())
    .collect()
}

#[cfg(feature = "ozz")]
mod ozz {
    use std::collections::BTreeMap;
    use std::io::{BufWriter, Write};
    use std::path::Path;
    use std::time::Duration;

    use criterion::{BenchmarkId, Criterion, Throughput};
    use skelmap::dpm::{self, Dpm};
    use skelmap::glam::{self, Affine3A, Quat, Vec3, Vec3A, Vec4};
    use skelmap::iqm::Iqm;
    use skelmap::pose::{self, AimIk, Interpolation, LocalPose, Palette, TwoBoneIk};
    use skelmap::skin::{self, CompactMesh, PreparedMesh, SimdLevel, SkinMatrices, VertexOrder};
    use skelmap::{Diagnostics, Parse, SkeletalMesh};

    use crate::common;
    use crate::peer::{self, Peer};

    const HARNESS: &str = env!("SKELMAP_OZZ_HARNESS");

    /// Largest difference allowed between ozz's and skelmap's positions, as a fraction of the
    /// model's extent (largest absolute coordinate), and between their normals (absolute).
    const POSITION_TOLERANCE: f32 = 1e-5;
    const NORMAL_TOLERANCE: f32 = 1e-3;

    type Vec3s = [[f32; 3]];

    /// A skelmap kernel ready to time: skins every mesh into the outputs (see [`Skinned`]).
    type Kernel<'x> = Box<dyn FnMut(&mut Vec3s, &mut Vec3s) + 'x>;

    /// One skelmap row: its name, the threads it runs on, how to build its kernel from the
    /// input (whatever it prepares there is untimed), and how far its positions may lie from
    /// ozz's, as a fraction of the model's extent.
    struct Row {
        name: &'static str,
        threads: usize,
        build: for<'x> fn(&'x Skinned<'x>) -> Kernel<'x>,
        tolerance: f32,
    }

    /// skelmap's rows, each timed beside the ozz row of its thread count and checked against
    /// ozz's output first. A new kernel is one more line here.
    const SKELMAP_ROWS: &[Row] = &[
        row("skelmap-prepared", 1, prepared_1t, POSITION_TOLERANCE),
        row("skelmap-prepared", 2, prepared_2t, POSITION_TOLERANCE),
        // Quantised positions and weights: within 1e-4 of the model's size, as tested.
        row("skelmap-compact", 1, compact_1t, COMPACT_TOLERANCE),
        row("skelmap-compact", 2, compact_2t, COMPACT_TOLERANCE),
    ];

    /// The compact layout's accuracy bound (tests/integration/skin/compact.rs).
    const COMPACT_TOLERANCE: f32 = 1e-4;

    const fn row(
        name: &'static str,
        threads: usize,
        build: for<'x> fn(&'x Skinned<'x>) -> Kernel<'x>,
        tolerance: f32,
    ) -> Row {
        Row {
            name,
            threads,
            build,
            tolerance,
        }
    }

    /// What a skelmap row skins: every mesh of the model, each into its own range of the
    /// outputs (vertices in file order, meshes one after another).
    struct Skinned<'x> {
        meshes: Vec<dpm::Mesh<'x>>,
        /// The meshes prepared once, shared by the `skelmap-prepared` rows.
        prepared: Vec<PreparedMesh>,
        matrices: &'x SkinMatrices,
        /// The meshes folded once under the bind pose, and their matrices (`world · bind⁻¹`),
        /// for the `skelmap-compact` rows.
        compact: Vec<CompactMesh>,
        compact_matrices: SkinMatrices,
        level: SimdLevel,
        two: &'x rayon::ThreadPool,
    }

    impl Skinned<'_> {
        /// Calls `f` on each of `items` (one per mesh) with that mesh's part of the outputs.
        fn each<T>(
            &self,
            items: &[T],
            p: &mut Vec3s,
            n: &mut Vec3s,
            f: impl Fn(&T, &mut Vec3s, &mut Vec3s),
        ) {
            let (mut p, mut n) = (p, n);
            for (item, mesh) in items.iter().zip(&self.meshes) {
                let k = mesh.num_vertices();
                let (mp, rest_p) = std::mem::take(&mut p).split_at_mut(k);
                let (mn, rest_n) = std::mem::take(&mut n).split_at_mut(k);
                f(item, mp, mn);
                (p, n) = (rest_p, rest_n);
            }
        }
    }

    fn prepared_1t<'x>(s: &'x Skinned<'x>) -> Kernel<'x> {
        Box::new(move |p, n| {
            s.each(&s.prepared, p, n, |m, p, n| {
                m.skin(s.matrices, s.level, VertexOrder::Original, p, n)
                    .unwrap();
            });
        })
    }

    fn prepared_2t<'x>(s: &'x Skinned<'x>) -> Kernel<'x> {
        Box::new(move |p, n| {
            common::on_two_threads(s.two, || {
                s.each(&s.prepared, p, n, |m, p, n| {
                    m.skin_par(s.matrices, s.level, VertexOrder::Original, p, n)
                        .unwrap();
                });
            });
        })
    }

    fn compact_1t<'x>(s: &'x Skinned<'x>) -> Kernel<'x> {
        Box::new(move |p, n| {
            s.each(&s.compact, p, n, |m, p, n| {
                m.skin(&s.compact_matrices, s.level, VertexOrder::Original, p, n)
                    .unwrap();
            });
        })
    }

    fn compact_2t<'x>(s: &'x Skinned<'x>) -> Kernel<'x> {
        Box::new(move |p, n| {
            common::on_two_threads(s.two, || {
                s.each(&s.compact, p, n, |m, p, n| {
                    m.skin_par(&s.compact_matrices, s.level, VertexOrder::Original, p, n)
                        .unwrap();
                });
            });
        })
    }

    /// The vertices of one influence count, as ozz takes them.
    #[derive(Default)]
    struct Part {
        /// The vertex (index over all meshes, in file order) at each place of the part.
        order: Vec<u32>,
        indices: Vec<u16>,
        weights: Vec<f32>,
    }

    /// Writes the harness's input (layout in `benches/peers/ozz_harness.cc`) to `path` and
    /// returns, for each place of ozz's output, the vertex it holds.
    fn write_input(path: &Path, meshes: &[dpm::Mesh<'_>], posed: &common::Posed) -> Vec<u32> {
        let total: usize = meshes.iter().map(|m| m.num_vertices()).sum();
        let (mut bind_p, mut bind_n) = (vec![[0.0f32; 3]; total], vec![[0.0f32; 3]; total]);
        let mut parts: BTreeMap<usize, Part> = BTreeMap::new();
        let (mut at, mut off_sum, mut off_count, mut singles) = (0usize, 0.0f32, 0usize, 0usize);
        for mesh in meshes {
            let k = mesh.num_vertices();
            skin::scalar(
                mesh,
                &posed.bind,
                &mut bind_p[at..at + k],
                &mut bind_n[at..at + k],
            )
            .unwrap();
            for (v, records) in mesh.vertices().enumerate() {
                let part = parts.entry(records.len()).or_default();
                part.order.push(u32::try_from(at + v).unwrap());
                let sum: f32 = records.iter().map(|r| r.influence()).sum();
                if (sum - 1.0).abs() > 1e-6 {
                    off_count += 1;
                    singles += usize::from(records.len() == 1);
                }
                off_sum = off_sum.max((sum - 1.0).abs());
                for r in records {
                    part.indices.push(u16::try_from(r.bonenum()).unwrap());
                }
                let last = records.len() - 1;
                part.weights
                    .extend(records[..last].iter().map(|r| r.influence()));
            }
            at += k;
        }
        println!(
            "  {total} vertices in {} parts (influences: {}); influence sums off 1 by more \
             than 1e-6 on {off_count} vertices ({singles} of one influence), at most {off_sum:.2e}",
            parts.len(),
            parts
                .iter()
                .map(|(k, p)| format!("{k}: {}", p.order.len()))
                .collect::<Vec<_>>()
                .join(", ")
        );
        let mut relative = Vec::new();
        posed.palette.relative_to(&posed.bind, &mut relative);
        let mut w = BufWriter::new(std::fs::File::create(path).unwrap());
        let put = |w: &mut BufWriter<std::fs::File>, bytes: &[u8]| w.write_all(bytes).unwrap();
        let u32s = |v: &[usize]| -> Vec<u8> {
            v.iter()
                .flat_map(|&x| u32::try_from(x).unwrap().to_le_bytes())
                .collect()
        };
        put(&mut w, b"SKOZZ01\0");
        put(&mut w, &u32s(&[relative.len(), parts.len(), total, 0]));
        for m in &relative {
            let c = m.to_cols_array();
            let cols = [c[0], c[1], c[2], 0.0, c[3], c[4], c[5], 0.0];
            let cols2 = [c[6], c[7], c[8], 0.0, c[9], c[10], c[11], 1.0];
            for x in cols.iter().chain(&cols2) {
                put(&mut w, &x.to_le_bytes());
            }
        }
        let mut order = Vec::with_capacity(total);
        for (&k, part) in &parts {
            put(&mut w, &u32s(&[k, part.order.len()]));
            for source in [&bind_p, &bind_n] {
                for &v in &part.order {
                    for x in source[v as usize] {
                        put(&mut w, &x.to_le_bytes());
                    }
                }
            }
            for &j in &part.indices {
                put(&mut w, &j.to_le_bytes());
            }
            if part.indices.len() % 2 == 1 {
                put(&mut w, &[0, 0]);
            }
            for &x in &part.weights {
                put(&mut w, &x.to_le_bytes());
            }
            order.extend_from_slice(&part.order);
        }
        w.flush().unwrap();
        order
    }

    /// Skins `m` with ozz and with every skelmap row, checks that they agree, then times them
    /// in one group, on each of `threads`.
    fn compare(
        c: &mut Criterion,
        ozz: &mut Peer,
        two: &rayon::ThreadPool,
        name: &str,
        m: &Dpm<'_>,
        threads: &[usize],
        big: bool,
    ) {
        println!("ozz-skin-{name}: {} bones", m.num_bones());
        let posed = common::posed(m);
        let meshes: Vec<dpm::Mesh<'_>> = m.meshes().collect();
        let total: usize = meshes.iter().map(|x| x.num_vertices()).sum();
        let dir = peer::data_dir();
        let input = dir.join(format!("ozz-{name}.bin"));
        let order = write_input(&input, &meshes, &posed);
        ozz.load(name, &input)
            .unwrap_or_else(|e| panic!("ozz harness cannot load {name}: {e}"));
        let ozz_bytes = std::fs::metadata(&input).map_or(0, |m| m.len()) as usize;
        // The harness holds its own copy now; the file is only the hand-over.
        let _ = std::fs::remove_file(&input);
        let compact: Vec<CompactMesh> = meshes
            .iter()
            .map(|x| CompactMesh::new(x, &posed.bind.world).unwrap())
            .collect();
        let mut compact_matrices = SkinMatrices::default();
        compact[0].matrices(&posed.palette, &mut compact_matrices);
        let skinned = Skinned {
            prepared: meshes.iter().map(PreparedMesh::new).collect(),
            meshes,
            matrices: &posed.matrices,
            compact,
            compact_matrices,
            level: SimdLevel::detect(),
            two,
        };
        let prepared_bytes: usize = skinned.prepared.iter().map(PreparedMesh::bytes).sum();
        let compact_bytes: usize = skinned.compact.iter().map(CompactMesh::bytes).sum();
        println!(
            "  input bytes per vertex: ozz {:.1} (its input file), skelmap prepared {:.1}, \
             compact {:.1} ({} vertices exact)",
            ozz_bytes as f64 / total as f64,
            prepared_bytes as f64 / total as f64,
            compact_bytes as f64 / total as f64,
            skinned
                .compact
                .iter()
                .map(CompactMesh::exact_vertices)
                .sum::<usize>()
        );
        let mut kernels: Vec<(&Row, Kernel<'_>)> = SKELMAP_ROWS
            .iter()
            .filter(|row| threads.contains(&row.threads))
            .map(|row| (row, (row.build)(&skinned)))
            .collect();
        // Outputs on 64-byte boundaries, as in `benches/skin.rs` (large ones are streamed).
        let ((mut p, at_p), (mut n, at_n)) =
            (common::aligned_output(total), common::aligned_output(total));
        let (p, n) = (&mut p[at_p..at_p + total], &mut n[at_n..at_n + total]);
        for &t in threads {
            let theirs = ozz.dump(name, t, &dir.join(format!("ozz-{name}.out")));
            assert_eq!(theirs.len(), total * 6, "ozz's dump of {name}");
            let (their_p, their_n) = theirs.split_at(total * 3);
            for (row, kernel) in kernels.iter_mut().filter(|(row, _)| row.threads == t) {
                kernel(p, n);
                let in_order =
                    |x: &Vec3s| -> Vec<f32> { order.iter().flat_map(|&v| x[v as usize]).collect() };
                let (ours_p, ours_n) = (in_order(p), in_order(n));
                let extent = ours_p.iter().fold(0.0f32, |a, x| a.max(x.abs()));
                let dp = peer::max_abs_diff(&ours_p, their_p);
                let dn = peer::max_abs_diff(&ours_n, their_n);
                println!(
                    "  {}/{t}t against ozz/{t}t: max |Δposition| {dp:.3e} (extent {extent:.3e}, \
                     {:.2e} of it), max |Δnormal| {dn:.3e}",
                    row.name,
                    dp / extent
                );
                assert!(
                    dp <= row.tolerance * extent && dn <= NORMAL_TOLERANCE,
                    "{name}: {} and ozz disagree beyond the tolerance",
                    row.name
                );
            }
        }
        let mut group = c.benchmark_group(format!("ozz-skin-{name}"));
        group
            .sample_size(if big { 10 } else { 20 })
            .measurement_time(Duration::from_secs(if big { 4 } else { 2 }))
            .warm_up_time(Duration::from_millis(500))
            .throughput(Throughput::Elements(total as u64));
        for &t in threads {
            let id = format!("{t}t");
            group.bench_function(BenchmarkId::new("ozz", &id), |b| {
                b.iter_custom(|iters| ozz.run(name, t, iters))
            });
            for (row, kernel) in kernels.iter_mut().filter(|(row, _)| row.threads == t) {
                group.bench_function(BenchmarkId::new(row.name, &id), |b| b.iter(|| kernel(p, n)));
            }
        }
        group.finish();
    }

    pub fn skinning(c: &mut Criterion) {
        let mut ozz = Peer::spawn("ozz", HARNESS);
        let two = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let small = common::synthetic(32, 98);
        let m = Dpm::parse(&small).unwrap();
        compare(c, &mut ozz, &two, "synthetic_100k", &m, &[1, 2], false);
        for (name, bytes) in common::corpus("dpm") {
            if name.starts_with("xon_monsters_golem") {
                let m = Dpm::parse(&bytes).unwrap();
                compare(c, &mut ozz, &two, &name, &m, &[1], false);
            }
        }
        let big = common::synthetic(32, 3906);
        let m = Dpm::parse_with(&big, &common::big_limits(), &mut Diagnostics::new()).unwrap();
        compare(c, &mut ozz, &two, "synthetic_4m", &m, &[1, 2], true);
    }

    /// Largest difference allowed between ozz's and skelmap's model-space matrices: the
    /// rotation parts (absolute), and the translations as a fraction of the skeleton's extent
    /// (largest absolute translation). ozz's builder stores rotations as 16-bit fixed point and
    /// translations as half floats, so the two differ at that precision.
    const MATRIX_ROTATION_TOLERANCE: f32 = 1e-2;
    const MATRIX_TRANSLATION_TOLERANCE: f32 = 1e-2;

    /// Writes the clip input of the harness (layout in `benches/peers/ozz_harness.cc`): the
    /// skeleton's parents and every frame's parent-relative poses as skelmap samples them,
    /// with each bone's scale when the source scales (an IQM's).
    fn write_clip<'d, S: pose::PoseFrames<'d>>(path: &Path, m: &S) {
        let mut w = BufWriter::new(std::fs::File::create(path).unwrap());
        let mut bytes: Vec<u8> = b"SKOZA01\0".to_vec();
        let scaled = m.has_scale();
        let bones = m.skeleton_bones().len();
        for x in [bones, m.num_frames(), usize::from(scaled), 0] {
            bytes.extend(u32::try_from(x).unwrap().to_le_bytes());
        }
        for bone in m.skeleton_bones() {
            let parent = bone.parent().map_or(-1, |p| i32::try_from(p).unwrap());
            bytes.extend(parent.to_le_bytes());
        }
        w.write_all(&bytes).unwrap();
        let mut pose = LocalPose::default();
        for frame in 0..m.num_frames() {
            pose::sample(m, frame, frame, 0.0, Interpolation::Nlerp, &mut pose);
            assert_eq!(pose.bones.len(), bones, "a pose per bone");
            for (i, (q, t)) in pose.bones.iter().enumerate() {
                let scale = pose.scales.get(i).map_or([1.0; 3], |s| s.to_array());
                let key = q.to_array().into_iter().chain(t.to_array());
                for x in key.chain(scale.into_iter().filter(|_| scaled)) {
                    w.write_all(&x.to_le_bytes()).unwrap();
                }
            }
        }
        w.flush().unwrap();
    }

    /// One skelmap pose row: `source`'s frames `f` and `f + 1` blended at 0.5 and
    /// concatenated into a palette over the DPM's skeleton, playing forward one frame per
    /// call (as the ozz row does).
    fn pose_row<'d, S: pose::PoseFrames<'d>>(
        group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
        id: BenchmarkId,
        source: &S,
    ) {
        let mut step = pose_step(source);
        group.bench_function(id, |b| b.iter(&mut step));
    }

    /// A call of [`pose_row`]'s: the next frame sampled from `source` and its palette built.
    fn pose_step<'s, 'd, S: pose::PoseFrames<'d>>(source: &'s S) -> impl FnMut() + 's {
        let frames = source.num_frames();
        let (mut local, mut palette) = (LocalPose::default(), Palette::default());
        let mut frame = 0;
        move || {
            pose::sample(
                source,
                frame,
                frame + 1,
                0.5,
                Interpolation::Nlerp,
                &mut local,
            );
            palette.build(source, &local);
            frame = if frame + 2 < frames { frame + 1 } else { 0 };
            std::hint::black_box(&palette);
        }
    }

    /// [`pose_row`] through a `pose::Sampler`, which keeps the frames it decoded: playing
    /// forward as `pose_row` does, each frame is decoded once (a clip of two frames never
    /// again), as ozz's `SamplingJob::Context` keeps its keys between samples.
    fn sampler_row<'d, S: pose::PoseFrames<'d>>(
        group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
        id: BenchmarkId,
        source: &S,
    ) {
        let mut step = sampler_step(source);
        group.bench_function(id, |b| b.iter(&mut step));
    }

    /// A call of [`sampler_row`]'s.
    fn sampler_step<'s, 'd, S: pose::PoseFrames<'d>>(source: &'s S) -> impl FnMut() + 's {
        let frames = source.num_frames();
        let (mut local, mut palette) = (LocalPose::default(), Palette::default());
        let mut sampler = pose::Sampler::new(source);
        let mut frame = 0;
        move || {
            sampler.sample(frame, frame + 1, 0.5, Interpolation::Nlerp, &mut local);
            palette.build(source, &local);
            frame = if frame + 2 < frames { frame + 1 } else { 0 };
            std::hint::black_box(&palette);
        }
    }

    /// ozz's `SamplingJob` + `LocalToModelJob` beside skelmap's `pose::sample` +
    /// `Palette::build`, per bone, for every corpus DPM and IQM (see the module docs).
    pub fn playback(c: &mut Criterion) {
        let mut ozz = Peer::spawn("ozz", HARNESS);
        let mut group = c.benchmark_group("ozz-pose");
        group
            .sample_size(20)
            .measurement_time(Duration::from_secs(2))
            .warm_up_time(Duration::from_millis(500));
        for (name, bytes) in common::corpus("dpm") {
            let m = Dpm::parse(&bytes).unwrap();
            if m.num_frames() < 2 {
                eprintln!("ozz-pose: {name} has one frame; left out");
                continue;
            }
            clip_rows(&mut group, &mut ozz, &name, "skelmap-dpm", &m);
        }
        for (name, bytes) in common::corpus_next("iqm") {
            let m = Iqm::parse(&bytes).unwrap();
            if m.num_frames() < 2 {
                eprintln!("ozz-pose: {name} has {} frames; left out", m.num_frames());
                continue;
            }
            // As `Model` samples it: through the channel layout, made before timing.
            let m = skelmap::iqm::Pair::single(m);
            assert!(m.layout().is_some(), "{name}");
            clip_rows(&mut group, &mut ozz, &name, "skelmap-iqm", &m);
        }
        // Every shared MD5 mesh with the animations beside it, as `Model` opens it: frames
        // decoded at open, one after another.
        for path in md5_meshes() {
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            let model = skelmap::Model::open(&path).unwrap();
            let m = model.as_md5().unwrap();
            clip_rows(&mut group, &mut ozz, &name, "skelmap-md5", m);
        }
        // Every shared Half-Life model with more than one frame, as `Model` opens it (with its
        // companions): each channel's run-length runs walked per sample.
        for path in super::hl1_models() {
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            let model = skelmap::Model::open(&path).unwrap();
            if model.num_frames() < 2 {
                eprintln!(
                    "ozz-pose: {name} has {} frames; left out",
                    model.num_frames()
                );
                continue;
            }
            let pair = model.as_hl1().unwrap();
            clip_rows(&mut group, &mut ozz, &name, "skelmap-hl1", pair);
            sampler_row(
                &mut group,
                BenchmarkId::new("skelmap-hl1-sampler", &name),
                pair,
            );
            ozz.paired("skelmap-hl1-sampler", &name, "run", sampler_step(pair));
        }
        group.finish();
    }

    /// Every `.md5mesh` in ../shared/corpus-engines/md5, sorted.
    fn md5_meshes() -> Vec<std::path::PathBuf> {
        let mut files: Vec<_> = skelmap_testkit::corpus_engines_path("md5")
            .and_then(|dir| std::fs::read_dir(dir).ok())
            .into_iter()
            .flatten()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "md5mesh"))
            .collect();
        files.sort();
        files
    }

    /// The rows of one clip: `m` handed to ozz (untimed) and checked against skelmap at frame
    /// n/2 + 0.5, then `ozz/<name>`, `<file_row>/<name>` (sampled from `m`) and
    /// `skelmap-baked/<name>` (from `BakedFrames` of `m`).
    fn clip_rows<'d, S: pose::PoseFrames<'d>>(
        group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
        ozz: &mut Peer,
        name: &str,
        file_row: &str,
        m: &S,
    ) {
        let dir = peer::data_dir();
        let input = dir.join(format!("ozz-clip-{name}.bin"));
        write_clip(&input, m);
        let words = ozz
            .request(&format!("clip {name} {}", input.to_str().unwrap()))
            .unwrap_or_else(|e| panic!("ozz harness cannot build a clip of {name}: {e}"));
        let _ = std::fs::remove_file(&input);
        let theirs = ozz.dump(name, 1, &dir.join(format!("ozz-clip-{name}.out")));
        let ours = common::posed(m).palette;
        assert_eq!(theirs.len(), ours.world.len() * 16, "ozz's dump of {name}");
        let (mut rotation, mut translation, mut extent) = (0.0f32, 0.0f32, 0.0f32);
        for (world, m) in ours.world.iter().zip(theirs.chunks_exact(16)) {
            let c = world.to_cols_array();
            for col in 0..4 {
                for row in 0..3 {
                    let d = (c[col * 3 + row] - m[col * 4 + row]).abs();
                    if col < 3 {
                        rotation = rotation.max(d);
                    } else {
                        translation = translation.max(d);
                        extent = extent.max(c[col * 3 + row].abs());
                    }
                }
            }
        }
        println!(
            "ozz-pose {name}: {} joints, {} frames{}; model-space matrices at frame {} + 0.5: \
             max |Δrotation| {rotation:.3e}, max |Δtranslation| {translation:.3e} (extent \
             {extent:.3e})",
            words.first().map_or("?", String::as_str),
            m.num_frames(),
            if m.has_scale() { ", scaled" } else { "" },
            m.num_frames() / 2,
        );
        assert!(
            rotation <= MATRIX_ROTATION_TOLERANCE
                && translation <= MATRIX_TRANSLATION_TOLERANCE * extent.max(1.0),
            "{name}: ozz's and skelmap's poses disagree beyond the tolerance"
        );
        group.throughput(Throughput::Elements(m.skeleton_bones().len() as u64));
        group.bench_function(BenchmarkId::new("ozz", name), |b| {
            b.iter_custom(|iters| ozz.run(name, 1, iters))
        });
        pose_row(group, BenchmarkId::new(file_row, name), m);
        ozz.paired(file_row, name, "run", pose_step(m));
        let baked = pose::BakedFrames::new(m).unwrap();
        pose_row(group, BenchmarkId::new("skelmap-baked", name), &baked);
    }

    /// ozz's `BlendingJob` beside `pose::blend::Blender` on every corpus DPM of at least two
    /// frames, for 2 and 4 layers: layer `k` is the clip halfway between frames `k` and
    /// `k + 1`, at weight `1 / (k + 1)`, over the rest pose (frame 0) with threshold 0.1.
    /// Both sides sample their layers before timing; the rows time the blend alone. Before
    /// timing, the blended model-space matrices are compared, as `ozz-pose` compares them.
    pub fn blending(c: &mut Criterion) {
        use skelmap::pose::SoaPose;
        use skelmap::pose::blend::{Blender, Layer};
        let mut ozz = Peer::spawn("ozz", HARNESS);
        let dir = peer::data_dir();
        for layers in [2usize, 4] {
            let mut group = c.benchmark_group(format!("ozz-blend-{layers}"));
            group
                .sample_size(20)
                .measurement_time(Duration::from_secs(2))
                .warm_up_time(Duration::from_millis(500));
            for (name, bytes) in common::corpus("dpm") {
                let m = Dpm::parse(&bytes).unwrap();
                let frames = m.num_frames();
                if frames < 2 {
                    continue;
                }
                let input = dir.join(format!("ozz-blend-{name}.bin"));
                write_clip(&input, &m);
                ozz.request(&format!("clip {name} {}", input.to_str().unwrap()))
                    .unwrap_or_else(|e| panic!("ozz harness cannot build a clip of {name}: {e}"));
                let _ = std::fs::remove_file(&input);
                let mut rest = LocalPose::default();
                pose::sample(&m, 0, 0, 0.0, Interpolation::Nlerp, &mut rest);
                let poses: Vec<LocalPose> = (0..layers)
                    .map(|k| {
                        let f = k % (frames - 1);
                        let mut p = LocalPose::default();
                        pose::sample(&m, f, f + 1, 0.5, Interpolation::Nlerp, &mut p);
                        p
                    })
                    .collect();
                let stack: Vec<Layer<'_>> = poses
                    .iter()
                    .enumerate()
                    .map(|(k, p)| Layer::new(p, 1.0 / (k + 1) as f32))
                    .collect();
                // The same layers as DPM's sampler writes them in the SoA layout.
                let mut rest_soa = SoaPose::default();
                pose::sample_soa(&m, 0, 0, 0.0, Interpolation::Nlerp, &mut rest_soa);
                let soa: Vec<SoaPose> = (0..layers)
                    .map(|k| {
                        let f = k % (frames - 1);
                        let mut p = SoaPose::default();
                        pose::sample_soa(&m, f, f + 1, 0.5, Interpolation::Nlerp, &mut p);
                        p
                    })
                    .collect();
                let stack_soa: Vec<Layer<'_, SoaPose>> = soa
                    .iter()
                    .enumerate()
                    .map(|(k, p)| Layer::new(p, 1.0 / (k + 1) as f32))
                    .collect();
                let (mut blender, mut out, mut palette) =
                    (Blender::default(), LocalPose::default(), Palette::default());
                blender.blend(&rest, &stack, 0.1, &mut out);
                let mut from_soa = LocalPose::default();
                blender.blend_soa(&rest_soa, &stack_soa, 0.1, &mut from_soa);
                for (x, y) in out.bones.iter().zip(&from_soa.bones) {
                    assert!(
                        x.0.abs_diff_eq(y.0, 1e-6) && x.1.abs_diff_eq(y.1, 1e-5),
                        "{name}: the blends of both layouts differ"
                    );
                }
                palette.build(&m, &from_soa);
                let dump = dir.join(format!("ozz-blend-{name}.out"));
                let shown = dump.to_str().unwrap();
                ozz.request(&format!("blenddump {name} 1 {layers} {shown}"))
                    .unwrap_or_else(|e| panic!("ozz blenddump {name}: {e}"));
                let theirs: Vec<f32> = std::fs::read(&dump)
                    .unwrap()
                    .chunks_exact(4)
                    .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                    .collect();
                let _ = std::fs::remove_file(&dump);
                assert_eq!(theirs.len(), palette.world.len() * 16, "{name}");
                let (mut rotation, mut translation, mut extent) = (0.0f32, 0.0f32, 0.0f32);
                for (world, t) in palette.world.iter().zip(theirs.chunks_exact(16)) {
                    let c = world.to_cols_array();
                    for col in 0..4 {
                        for row in 0..3 {
                            let d = (c[col * 3 + row] - t[col * 4 + row]).abs();
                            if col < 3 {
                                rotation = rotation.max(d);
                            } else {
                                translation = translation.max(d);
                                extent = extent.max(c[col * 3 + row].abs());
                            }
                        }
                    }
                }
                println!(
                    "ozz-blend-{layers} {name}: {} joints; blended model-space matrices: max \
                     |Δrotation| {rotation:.3e}, max |Δtranslation| {translation:.3e} (extent \
                     {extent:.3e})",
                    palette.world.len()
                );
                assert!(
                    rotation <= MATRIX_ROTATION_TOLERANCE
                        && translation <= MATRIX_TRANSLATION_TOLERANCE * extent.max(1.0),
                    "{name}: ozz's and skelmap's blends disagree beyond the tolerance"
                );
                group.throughput(Throughput::Elements(palette.world.len() as u64));
                group.bench_function(BenchmarkId::new("ozz", &name), |b| {
                    b.iter_custom(|iters| {
                        let words = ozz
                            .request(&format!("blend {name} 1 {layers} {iters}"))
                            .unwrap_or_else(|e| panic!("ozz blend {name}: {e}"));
                        Duration::from_nanos(words[0].parse().unwrap())
                    })
                });
                group.bench_function(BenchmarkId::new("skelmap", &name), |b| {
                    b.iter(|| {
                        blender.blend_soa(&rest_soa, &stack_soa, 0.1, &mut out);
                        std::hint::black_box(&out);
                    })
                });
                group.bench_function(BenchmarkId::new("skelmap-local", &name), |b| {
                    b.iter(|| {
                        blender.blend(&rest, &stack, 0.1, &mut out);
                        std::hint::black_box(&out);
                    })
                });
            }
            group.finish();
        }
    }

    /// The two-bone IK cases compared with ozz: `(name, start, middle, end, ik)`.
    fn ik_cases() -> Vec<(&'static str, [Affine3A; 3], TwoBoneIk)> {
        let elbow = Affine3A::from_rotation_translation(
            Quat::from_rotation_z(std::f32::consts::FRAC_PI_2),
            Vec3::X,
        );
        let bent = [
            Affine3A::IDENTITY,
            elbow,
            elbow * Affine3A::from_translation(Vec3::X),
        ];
        // A chain turned and moved off the axes, bones 1.3 and 0.8 long.
        let turn = Affine3A::from_rotation_translation(
            Quat::from_euler(glam::EulerRot::XYZ, 0.3, -0.7, 1.1),
            Vec3::new(0.5, -2.0, 1.0),
        );
        let knee = Affine3A::from_rotation_translation(Quat::from_rotation_z(0.6), Vec3::X * 1.3);
        let leg = [
            turn,
            turn * knee,
            turn * knee * Affine3A::from_translation(Vec3::X * 0.8),
        ];
        let ik = |target: Vec3A| TwoBoneIk {
            target,
            ..TwoBoneIk::default()
        };
        vec![
            ("reachable", bent, ik(Vec3A::new(1.0, 1.0, 0.0))),
            ("unreachable", bent, ik(Vec3A::new(-2.0, -2.0, 1.0))),
            (
                "pole-twist-weight",
                bent,
                TwoBoneIk {
                    pole_vector: Vec3A::new(0.0, 0.3, 1.0),
                    twist_angle: 0.4,
                    weight: 0.7,
                    ..ik(Vec3A::new(0.4, 1.2, -0.6))
                },
            ),
            (
                "turned-leg",
                leg,
                TwoBoneIk {
                    pole_vector: Vec3A::new(1.0, 1.0, 0.0),
                    ..ik(Vec3A::new(1.2, -1.5, 0.4))
                },
            ),
            // The target 1.59 from the shoulder, past the softened reach (60 % of 2).
            (
                "softened",
                bent,
                TwoBoneIk {
                    soften: 0.6,
                    ..ik(Vec3A::new(1.2, 1.0, 0.3))
                },
            ),
        ]
    }

    /// The `ik` request for `case`: its matrices, target, pole, axis, twist, soften, weight.
    fn ik_request(name: &str, iters: u64, chain: &[Affine3A; 3], ik: &TwoBoneIk) -> String {
        let mut words = vec![format!("ik {name} {iters}")];
        for m in chain {
            words.extend(m.to_cols_array().iter().map(|x| format!("{x:e}")));
        }
        for v in [ik.target, ik.pole_vector, ik.mid_axis] {
            words.extend(v.to_array().iter().map(|x| format!("{x:e}")));
        }
        words.extend([ik.twist_angle, ik.soften, ik.weight].map(|x| format!("{x:e}")));
        words.join(" ")
    }

    /// Largest difference allowed between ozz's and skelmap's IK corrections (quaternion
    /// components, `q` and `−q` being one rotation).
    const IK_TOLERANCE: f32 = 1e-5;

    /// The same where ozz computes with SSE's 12-bit estimates (relative error up to 3.7e-4)
    /// and skelmap exactly: a two-bone chain's softened target (`SoftenTarget` divides by
    /// `RcpEstX`, no Newton step), which moves the middle joint's correction by about 1e-4;
    /// tests/integration/pose/ik.rs checks skelmap's against the formulas.
    const ESTIMATE_TOLERANCE: f32 = 2e-4;

    /// The same for a correction that turns a chain's plane onto its pole (a two-bone
    /// chain's first joint, an aim's joint): ozz takes the cosine between the planes' normals
    /// through `RSqrtEstNR`, the CPU's 12-bit `rsqrtps` refined by one Newton step (a
    /// relative error of about 2e-7, whose value differs between CPUs as the estimate does).
    /// Where the planes already agree, a cosine off by `δ` from 1 becomes a half-angle sine
    /// of `√(δ / 2)`: two such factors give `δ` up to about 5e-7, so up to 5e-4 per
    /// component. The aim's estimated normalisation at a weight below 1 (`NormalizeEst4`, no
    /// Newton step, about 1e-4) is within it too.
    const PLANE_TOLERANCE: f32 = 5e-4;

    /// The largest difference between `ours` and `theirs` (x, y, z, w) per component, `q`
    /// and `−q` being one rotation.
    fn quat_diff(ours: Quat, theirs: &[f32]) -> f32 {
        let (q, t) = (Vec4::from(ours), Vec4::from_slice(theirs));
        (q - t).abs().max_element().min((q + t).abs().max_element())
    }

    /// One IK case of a group, after its comparison `(name, whether every correction is
    /// within its tolerance, whether the reached flags agree)` is checked: the `ozz/<name>`
    /// row (the harness timing `request(iters)`) and the `skelmap/<name>` row (`solve`, once
    /// an iteration).
    fn ik_rows<T>(
        group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
        ozz: &mut Peer,
        (name, within, same_reach): (&str, bool, bool),
        request: impl Fn(u64) -> String,
        solve: impl Fn() -> T,
    ) {
        assert!(within && same_reach, "{name}: ozz and skelmap disagree");
        group.throughput(Throughput::Elements(1));
        group.bench_function(BenchmarkId::new("ozz", name), |b| {
            b.iter_custom(|iters| {
                let words = ozz
                    .request(&request(iters.max(1)))
                    .unwrap_or_else(|e| panic!("ozz {name}: {e}"));
                Duration::from_nanos(words[0].parse().unwrap())
            })
        });
        group.bench_function(BenchmarkId::new("skelmap", name), |b| {
            b.iter(|| std::hint::black_box(solve()))
        });
    }

    /// ozz's `IKTwoBoneJob` beside `pose::TwoBoneIk::solve` on the same chains and
    /// parameters ([`ik_cases`]: reachable, unreachable, with pole, twist and weight, a
    /// chain turned off the axes, and a softened reach), one solve per iteration. Before
    /// timing, both corrections and the reached flag are compared: the first joint's within
    /// [`PLANE_TOLERANCE`], the middle joint's within [`IK_TOLERANCE`] (or
    /// [`ESTIMATE_TOLERANCE`] where the target is softened).
    pub fn two_bone_ik(c: &mut Criterion) {
        let mut ozz = Peer::spawn("ozz", HARNESS);
        let mut group = c.benchmark_group("ozz-ik-two-bone");
        group
            .sample_size(20)
            .measurement_time(Duration::from_secs(2))
            .warm_up_time(Duration::from_millis(500));
        for (name, chain, ik) in ik_cases() {
            let words = ozz
                .request(&ik_request(name, 1, &chain, &ik))
                .unwrap_or_else(|e| panic!("ozz ik {name}: {e}"));
            let theirs: Vec<f32> = words[1..9].iter().map(|w| w.parse().unwrap()).collect();
            let reached = words[9] == "1";
            let ours = ik.solve(&chain[0], &chain[1], &chain[2]);
            let (start, mid) = (
                quat_diff(ours.start, &theirs[..4]),
                quat_diff(ours.mid, &theirs[4..]),
            );
            println!(
                "ozz-ik-two-bone {name}: max |Δcorrection| start {start:.3e}, mid {mid:.3e}, \
                 reached {} (ozz {reached})",
                ours.reached
            );
            let softened = ik.soften < 1.0 && !ours.reached;
            let mid_tolerance = if softened {
                ESTIMATE_TOLERANCE
            } else {
                IK_TOLERANCE
            };
            let within = start <= PLANE_TOLERANCE && mid <= mid_tolerance;
            ik_rows(
                &mut group,
                &mut ozz,
                (name, within, ours.reached == reached),
                |iters| ik_request(name, iters, &chain, &ik),
                || {
                    std::hint::black_box(&ik).solve(
                        std::hint::black_box(&chain[0]),
                        &chain[1],
                        &chain[2],
                    )
                },
            );
        }
        group.finish();
    }

    /// The aim IK cases compared with ozz: `(name, joint, ik)`.
    fn aim_cases() -> Vec<(&'static str, Affine3A, AimIk)> {
        let head = Affine3A::from_rotation_translation(
            Quat::from_euler(glam::EulerRot::XYZ, 0.2, 0.5, -0.3),
            Vec3::new(0.1, 1.6, 0.2),
        );
        vec![
            (
                "forward",
                Affine3A::IDENTITY,
                AimIk {
                    target: Vec3A::new(1.0, 0.5, 2.0),
                    ..AimIk::default()
                },
            ),
            (
                "offset-twist-weight",
                head,
                AimIk {
                    target: Vec3A::new(-1.5, 2.0, 3.0),
                    forward: Vec3A::new(0.0, 0.6, 0.8),
                    offset: Vec3A::new(0.05, 0.2, 0.1),
                    up: Vec3A::X,
                    pole_vector: Vec3A::new(0.3, 1.0, 0.0),
                    twist_angle: 0.3,
                    weight: 0.6,
                },
            ),
            (
                "turned-joint",
                head,
                AimIk {
                    target: Vec3A::new(2.0, -1.0, 0.5),
                    pole_vector: Vec3A::Z,
                    ..AimIk::default()
                },
            ),
        ]
    }

    /// The `aim` request for a case: its matrix, target, forward, offset, up, pole, twist,
    /// weight.
    fn aim_request(name: &str, iters: u64, joint: &Affine3A, ik: &AimIk) -> String {
        let mut words = vec![format!("aim {name} {iters}")];
        words.extend(joint.to_cols_array().iter().map(|x| format!("{x:e}")));
        for v in [ik.target, ik.forward, ik.offset, ik.up, ik.pole_vector] {
            words.extend(v.to_array().iter().map(|x| format!("{x:e}")));
        }
        words.extend([ik.twist_angle, ik.weight].map(|x| format!("{x:e}")));
        words.join(" ")
    }

    /// ozz's `IKAimJob` beside `pose::AimIk::solve` on the same joints and parameters
    /// ([`aim_cases`]: plain, with offset, twist and weight, and a joint turned off the
    /// axes), one solve per iteration. Before timing, the corrections (within
    /// [`PLANE_TOLERANCE`] per component, `q` and `−q` alike, which also covers ozz's
    /// estimated normalisation at a weight below 1) and the reached flag are compared.
    pub fn aim_ik(c: &mut Criterion) {
        let mut ozz = Peer::spawn("ozz", HARNESS);
        let mut group = c.benchmark_group("ozz-ik-aim");
        group
            .sample_size(20)
            .measurement_time(Duration::from_secs(2))
            .warm_up_time(Duration::from_millis(500));
        for (name, joint, ik) in aim_cases() {
            let words = ozz
                .request(&aim_request(name, 1, &joint, &ik))
                .unwrap_or_else(|e| panic!("ozz aim {name}: {e}"));
            let t: Vec<f32> = words[1..5].iter().map(|w| w.parse().unwrap()).collect();
            let reached = words[5] == "1";
            let ours = ik.solve(&joint);
            let diff = quat_diff(ours.joint, &t);
            println!(
                "ozz-ik-aim {name}: max |Δcorrection| {diff:.3e}, reached {} (ozz {reached})",
                ours.reached
            );
            ik_rows(
                &mut group,
                &mut ozz,
                (name, diff <= PLANE_TOLERANCE, ours.reached == reached),
                |iters| aim_request(name, iters, &joint, &ik),
                || std::hint::black_box(&ik).solve(std::hint::black_box(&joint)),
            );
        }
        group.finish();
    }
}

/// The system assimp library (`apt-get install libassimp-dev`; Debian 12 ships 5.2.5) beside
/// skelmap, opening every corpus MDL, HMP and MS3D file, every IQM of
/// `../shared/corpus-next/iqm` with a mesh and frames and every MDL7 of
/// `../shared/corpus-next/mdl7` without bones and every MD2 and MD3 of
/// `../shared/corpus-engines` (also from memory), and producing its frame-0 vertex positions,
/// per file (throughput in file bytes). The IQM and MDL7 rows are described at `iqm_rows`
/// and `mdl7_rows` below: they also time both libraries from the file's bytes in memory.
///
/// - `assimp/<file>`: one `Assimp::Importer`, reused, `ReadFile(path, 0)` (no
///   post-processing steps), every mesh's `mVertices` summed, `FreeScene()`; see
///   `benches/peers/assimp_harness.cc`. assimp's loaders read the first frame of an MDL or
///   HMP and the stored rest pose of an MS3D.
/// - `skelmap/<file>`: `Model::open(path)` (reads the file into memory, validates it, looks
///   for a `.framegroups` sidecar), `Model::pose_bind` (frame 0; the MS3D rest pose) and
///   `Model::deform` of every mesh into buffers allocated in the loop, positions summed.
///
/// Both start from the path, so both pay for reading the file (from the page cache: the
/// files are small and read every iteration). Neither is the same work to the vertex:
/// skelmap validates every record and also produces normals (MDL, HMP: from the normal
/// table; MS3D: zero, as MS3D stores corner normals), while assimp builds its asset graph,
/// materials and, for MS3D, bones, and unshares vertices per triangle corner.
///
/// Before timing, the bench checks that both computed the same model. assimp gives every
/// triangle corner its own vertex, in triangle order, so for MDL and MS3D skelmap's positions
/// are taken at its triangles' corners, per submesh (an MS3D's groups: assimp makes a mesh
/// of each, in an order of its own), and each is compared with the assimp mesh of its size
/// that fits best, triangle by triangle (each pair in the corner order that fits best:
/// assimp reverses the winding of a Quake-layout MDL), within 1e-5 of the model's extent. For HMP only the x/y grid is compared: assimp 5.2.5 leaves out the height scale
/// and offset (the shared corpus's MANIFEST notes it), so its heights are wrong, and it lays
/// the grid's triangles out differently. Files assimp refuses are left out, with a message.
///
/// The rows the open issues set a ratio for (every IQM and MD5 mesh, from the path and from
/// memory, and every Half-Life model from the path) are also measured in paired rounds
/// (`Peer::paired`, printed as `paired <row>/<file>`): a batch of skelmap's calls, then as many of
/// assimp's, back to back, fifteen times, and the median of the rounds' ratios. On a shared
/// host whose speed drifts between criterion's rows, this is the ratio to quote. Each
/// from-the-path pair is followed by its bound (`Peer::read_bound`): assimp's time over the
/// time it takes only to read the files skelmap reads, which no reader from the path can beat;
/// each MD5 pair from memory by assimp's time over `fast_float2`'s on the file's numbers with
/// a fraction (read to `f64` and rounded to `f32`, as skelmap reads them), which skelmap must
/// parse with that crate to open it.
#[cfg(feature = "assimp")]
mod assimp {
    use std::path::Path;
    use std::time::Duration;

    use criterion::{BenchmarkId, Criterion, Throughput};
    use skelmap::Model;
    use skelmap::model::Pose;
    use skelmap::pose::Interpolation;

    use crate::peer::{self, Peer};

    const HARNESS: &str = env!("SKELMAP_ASSIMP_HARNESS");

    /// Largest difference allowed between the two libraries' positions, as a fraction of the
    /// model's extent (largest absolute coordinate).
    const POSITION_TOLERANCE: f32 = 1e-5;

    /// The same for MD5, whose text rounds rotations to six decimals: where `x² + y² + z²`
    /// passes 1 by a rounding, Doom 3 (and skelmap) take `w = √|1 − …|`, assimp 0, which turns
    /// a joint by up to about 1e-3 radians (2.8e-4 of the flamer's extent).
    const MD5_POSITION_TOLERANCE: f32 = 1e-3;

    /// skelmap's side of a row: open `path`, pose it at frame 0 (the bind pose), deform every
    /// mesh; returns the sum of the positions, and with `keep` also appends there, per
    /// submesh, the position of every triangle corner.
    fn skelmap_frame0(path: &Path, keep: Option<&mut Vec<Vec<f32>>>) -> f64 {
        frame0_positions(&Model::open(path).unwrap(), keep)
    }

    /// The files `Model::open(path)` reads: the model's own and its companions, as paths
    /// (for [`Peer::read_bound`]).
    fn files_read(path: &Path) -> Vec<std::path::PathBuf> {
        let model = Model::open(path).unwrap();
        let base = model.base().expect("a model opened from a path has a base");
        model.files().map(|(_, file, _)| base.join(file)).collect()
    }

    /// [`skelmap_frame0`] after opening: `model` posed at frame 0 and deformed.
    fn frame0_positions(model: &Model<'_>, keep: Option<&mut Vec<Vec<f32>>>) -> f64 {
        let mut pose = Pose::default();
        model.pose_bind(&mut pose);
        let mut sum = 0.0f64;
        let mut kept = keep;
        for mesh in 0..model.num_meshes() {
            let n = model.mesh(mesh).map_or(0, |m| m.num_vertices());
            let (mut p, mut q) = (vec![[0.0f32; 3]; n], vec![[0.0f32; 3]; n]);
            model.deform(mesh, &pose, &mut p, &mut q).unwrap();
            sum += p
                .iter()
                .map(|v| f64::from(v[0]) + f64::from(v[1]) + f64::from(v[2]))
                .sum::<f64>();
            // Kept per triangle corner and submesh (an MS3D's groups), as assimp gives them.
            if let (Some(out), Some(m)) = (kept.as_deref_mut(), model.mesh(mesh)) {
                out.extend(m.submeshes().map(|sub| {
                    let triangles = sub.triangle_indices().map(|t| m.triangle(t).unwrap());
                    triangles
                        .flatten()
                        .flat_map(|i| p[i as usize])
                        .collect::<Vec<f32>>()
                }));
            }
        }
        sum
    }

    /// The bounding box of packed xyz positions: (min, max).
    fn bounds(xyz: &[f32]) -> ([f32; 3], [f32; 3]) {
        let mut lo = [f32::INFINITY; 3];
        let mut hi = [f32::NEG_INFINITY; 3];
        for v in xyz.chunks_exact(3) {
            for i in 0..3 {
                lo[i] = lo[i].min(v[i]);
                hi[i] = hi[i].max(v[i]);
            }
        }
        (lo, hi)
    }

    /// The largest difference between two meshes given as packed triangle corners, in the
    /// same triangle order: each pair of triangles compared in the order of its corners that
    /// fits best, so that another winding (assimp reverses a Quake-layout MDL's) or first
    /// corner compares equal.
    /// The largest distance from a point of either list to the nearest of the other.
    fn points_diff(ours: &[f32], theirs: &[f32]) -> f32 {
        let one_way = |a: &[f32], b: &[f32]| {
            a.chunks_exact(3)
                .map(|p| {
                    b.chunks_exact(3)
                        .map(|q| peer::max_abs_diff(p, q))
                        .fold(f32::INFINITY, f32::min)
                })
                .fold(0.0, f32::max)
        };
        one_way(ours, theirs).max(one_way(theirs, ours))
    }

    fn triangles_diff(ours: &[f32], theirs: &[f32]) -> f32 {
        const ORDERS: [[usize; 3]; 6] = [
            [0, 1, 2],
            [1, 2, 0],
            [2, 0, 1],
            [0, 2, 1],
            [2, 1, 0],
            [1, 0, 2],
        ];
        assert_eq!(ours.len(), theirs.len());
        ours.chunks_exact(9)
            .zip(theirs.chunks_exact(9))
            .map(|(a, b)| {
                ORDERS
                    .iter()
                    .map(|order| {
                        let b: Vec<f32> = order
                            .iter()
                            .flat_map(|&k| &b[k * 3..k * 3 + 3])
                            .copied()
                            .collect();
                        peer::max_abs_diff(a, &b)
                    })
                    .fold(f32::INFINITY, f32::min)
            })
            .fold(0.0, f32::max)
    }

    /// Asserts that skelmap's corner positions `ours` and assimp's positions `theirs` (per
    /// mesh) are the same model (see the module docs).
    fn check(name: &str, terrain: bool, ours: &[Vec<f32>], theirs: &[&[f32]]) {
        let meshes = theirs.len();
        let extent = ours.iter().flatten().fold(0.0f32, |a, x| a.max(x.abs()));
        let verts: usize = theirs.iter().map(|m| m.len() / 3).sum();
        let corners: usize = ours.iter().map(|m| m.len() / 3).sum();
        if terrain {
            let (ours, theirs) = (ours.concat(), theirs.concat());
            let (ours, theirs) = (ours.as_slice(), theirs.as_slice());
            // Only the grid: assimp 5.2.5 leaves out an HMP's height scale and offset.
            let ((lo, hi), (tlo, thi)) = (bounds(ours), bounds(theirs));
            let d = peer::max_abs_diff(
                &[lo[0], lo[1], hi[0], hi[1]],
                &[tlo[0], tlo[1], thi[0], thi[1]],
            );
            println!(
                "assimp {name}: {meshes} meshes, {verts} vertices (skelmap: {corners} triangle \
                 corners); x/y bounds differ by {d:.3e} (extent {extent:.3e}); heights: \
                 skelmap {}..{}, assimp {}..{} (assimp ignores the height scale and offset)",
                lo[2], hi[2], tlo[2], thi[2]
            );
            assert!(
                d <= POSITION_TOLERANCE * extent,
                "{name}: skelmap's grid {lo:?}..{hi:?}, assimp's {tlo:?}..{thi:?}"
            );
        } else {
            assert_eq!(
                verts, corners,
                "{name}: assimp's vertices, skelmap's triangle corners"
            );
            // Each of skelmap's submeshes against the assimp mesh of its size that fits best
            // (assimp makes one mesh per MS3D group, not always in the groups' order).
            let mut unused: Vec<&[f32]> = theirs.to_vec();
            let mut d = 0.0f32;
            for sub in ours.iter().filter(|sub| !sub.is_empty()) {
                // assimp's MD5 loader makes its vertices unique per corner but does not keep
                // them in face order: an MD5 mesh is compared as a set of points.
                let diff = |t: &[f32]| {
                    if name.ends_with(".md5mesh") {
                        points_diff(sub, t)
                    } else {
                        triangles_diff(sub, t)
                    }
                };
                let best = unused
                    .iter()
                    .enumerate()
                    .filter(|(_, t)| t.len() == sub.len())
                    .map(|(i, t)| (i, diff(t)))
                    .min_by(|a, b| a.1.total_cmp(&b.1));
                let Some((i, diff)) = best else {
                    panic!("{name}: assimp has no mesh of {} corners", sub.len() / 3);
                };
                unused.swap_remove(i);
                d = d.max(diff);
            }
            println!(
                "assimp {name}: {meshes} meshes, {verts} vertices (one per triangle corner); \
                 positions differ from skelmap's by at most {d:.3e} (extent {extent:.3e})"
            );
            let tolerance = if name.ends_with(".md5mesh") {
                MD5_POSITION_TOLERANCE
            } else {
                POSITION_TOLERANCE
            };
            assert!(
                d <= tolerance * extent,
                "{name}: skelmap's and assimp's frame-0 positions differ by {d}"
            );
        }
    }

    pub fn import(c: &mut Criterion) {
        let mut assimp = Peer::spawn("assimp", HARNESS);
        let dump = peer::data_dir().join("assimp.out");
        let mut group = c.benchmark_group("assimp");
        group
            .sample_size(20)
            .measurement_time(Duration::from_secs(2))
            .warm_up_time(Duration::from_millis(500));
        for dir in ["mdl", "hmp", "ms3d"] {
            for path in skelmap_testkit::corpus_files(dir) {
                frame0_rows(&mut group, &mut assimp, &path, &dump, dir == "hmp");
            }
        }
        for path in skelmap_testkit::corpus_next_files("iqm") {
            iqm_rows(&mut group, &mut assimp, &path, &dump);
        }
        for path in skelmap_testkit::corpus_next_files("mdl7") {
            mdl7_rows(&mut group, &mut assimp, &path, &dump);
        }
        // Every shared MD2, MD3, MDC and MD5 mesh (../shared/corpus-engines/md2, md3, mdc,
        // md5): an MD5 mesh opened with the animations beside it, as a game opens it (assimp
        // finds none: it reads only `<stem>.md5anim`), and both posed in the bind pose.
        for sub in ["md2", "md3", "mdc", "md5"] {
            let files = skelmap_testkit::corpus_engines_path(sub)
                .and_then(|dir| std::fs::read_dir(dir).ok())
                .into_iter()
                .flatten()
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_none_or(|e| e != "md5anim"))
                // assimp's MD5 loader refuses a path with `..` in it ("MD5Version tag has not
                // been found"): the corpus path made canonical.
                .map(|p| std::fs::canonicalize(&p).unwrap_or(p));
            let mut files: Vec<_> = files.collect();
            files.sort();
            // From the path and, without the file system, from memory.
            for path in files {
                if frame0_rows(&mut group, &mut assimp, &path, &dump, false) {
                    memory_rows(&mut group, &mut assimp, &path);
                }
            }
        }
        // Every shared Half-Life model, with the texture and sequence-group files beside it
        // that both find.
        for path in super::hl1_models() {
            hl1_rows(&mut group, &mut assimp, &path, &dump);
        }
        // An MD5 mesh with one animation, the only one beside it and named like it, so both
        // read it: the pistol with its reload.
        if let Some(dir) = skelmap_testkit::corpus_engines_path("md5") {
            let pair = peer::data_dir().join("md5-pair");
            std::fs::create_dir_all(&pair).unwrap();
            let stem = "reweap_pistol_with_reload";
            for (from, to) in [
                ("reweap_pistol.md5mesh", "md5mesh"),
                ("reweap_pistol-reload.md5anim", "md5anim"),
            ] {
                std::fs::copy(dir.join(from), pair.join(format!("{stem}.{to}"))).unwrap();
            }
            let path = std::fs::canonicalize(pair.join(format!("{stem}.md5mesh"))).unwrap();
            frame0_rows(&mut group, &mut assimp, &path, &dump, false);
        }
        group.finish();
    }

    /// The rows of a corpus MDL, HMP (`terrain`) or MS3D file, or of a boneless MDL7:
    /// `skelmap/<file>` and, where assimp reads the file and its frame-0 positions are checked
    /// to be skelmap's, `assimp/<file>`; returns whether the latter was added.
    fn frame0_rows(
        group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
        assimp: &mut Peer,
        path: &Path,
        dump: &Path,
        terrain: bool,
    ) -> bool {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let size = std::fs::metadata(path).unwrap().len();
        let mut ours = Vec::new();
        skelmap_frame0(path, Some(&mut ours));
        let assimp_row = match assimp.load(&name, path) {
            Ok(words) => {
                // "MESHES VERTICES" and each mesh's vertex count.
                let counts: Vec<usize> = words.iter().map(|w| w.parse().unwrap()).collect();
                let theirs = assimp.dump(&name, 1, dump);
                assert_eq!(Some(&(theirs.len() / 3)), counts.get(1), "{name}'s dump");
                let mut rest = theirs.as_slice();
                let meshes: Vec<&[f32]> = counts[2..]
                    .iter()
                    .map(|&n| {
                        let (mesh, tail) = rest.split_at(n * 3);
                        rest = tail;
                        mesh
                    })
                    .collect();
                check(&name, terrain, &ours, &meshes);
                true
            }
            Err(e) => {
                eprintln!("assimp refuses {name}: {e}");
                false
            }
        };
        group.throughput(Throughput::Bytes(size));
        group.bench_function(BenchmarkId::new("skelmap", &name), |b| {
            b.iter(|| skelmap_frame0(path, None))
        });
        if assimp_row {
            group.bench_function(BenchmarkId::new("assimp", &name), |b| {
                b.iter_custom(|iters| assimp.run(&name, 1, iters))
            });
            if name.ends_with(".md5mesh") {
                assimp.paired("assimp", &name, "run", || {
                    std::hint::black_box(skelmap_frame0(path, None));
                });
                assimp.read_bound("assimp", &name, "run", &files_read(path));
            }
        }
        assimp_row
    }

    /// The rows of a corpus MDL7 (`../shared/corpus-next/mdl7`). A file with bones is left out,
    /// with a message, before assimp sees it: assimp 5.2.5 overflows a heap buffer on any MDL7
    /// with bones (its issue #5059; on `libgs_mdl7-player.mdl` the harness dies of a
    /// segmentation fault, which would end the bench). A boneless file gets the rows of an MDL
    /// ([`frame0_rows`]: frame 0, each triangle corner checked against assimp's) and, as an IQM
    /// does, `skelmap-memory/<file>` and `assimp-memory/<file>` from the file's bytes
    /// (`Model::from_bytes`, `ReadFileFromMemory`).
    fn mdl7_rows(
        group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
        assimp: &mut Peer,
        path: &Path,
        dump: &Path,
    ) {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let bones = Model::open(path).unwrap().num_bones();
        if bones > 0 {
            eprintln!(
                "assimp: {name} has {bones} bones; left out (assimp 5.2.5 crashes on an MDL7 \
                 with bones, its issue #5059)"
            );
            return;
        }
        if frame0_rows(group, assimp, path, dump, false) {
            memory_rows(group, assimp, path);
        }
    }

    /// `skelmap-memory/<file>` and `assimp-memory/<file>`: a frame-0 row's work from the
    /// file's bytes in memory (`Model::from_bytes`, `ReadFileFromMemory`), without the file
    /// system, for a file whose frame 0 [`frame0_rows`] has checked.
    fn memory_rows(
        group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
        assimp: &mut Peer,
        path: &Path,
    ) {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = std::fs::read(path).unwrap();
        group.bench_function(BenchmarkId::new("skelmap-memory", &name), |b| {
            b.iter(|| {
                let model = Model::from_bytes(std::hint::black_box(&bytes)).unwrap();
                frame0_positions(&model, None)
            })
        });
        group.bench_function(BenchmarkId::new("assimp-memory", &name), |b| {
            b.iter_custom(|iters| assimp.run_as("run-memory", &name, 1, iters))
        });
        if name.ends_with(".md5mesh") {
            assimp.paired("assimp-memory", &name, "run-memory", || {
                let model = Model::from_bytes(std::hint::black_box(&bytes)).unwrap();
                std::hint::black_box(frame0_positions(&model, None));
            });
            let floats = fractions(&bytes);
            let what = format!(
                "fast_float2 on its {} numbers with a fraction",
                floats.len()
            );
            // As skelmap's lexer reads them, through `f64`'s exact fast path, without the
            // check it makes for the rare `f64` halfway between two `f32`s.
            assimp.bound("assimp-memory", &name, "run-memory", &what, || {
                for span in &floats {
                    let number = bytes.get(span.clone()).unwrap_or_default();
                    let value = fast_float2::parse_partial::<f64, _>(number).ok();
                    std::hint::black_box(value.map(|(v, len)| (v as f32, len)));
                }
            });
        }
    }

    /// The spans of `text`'s tokens that hold a decimal point or an exponent, outside
    /// quoted strings and `//` comments: numbers skelmap must parse as floats (with
    /// `fast_float2`) to open an MD5 file, which no faster reader of ours can skip (it parses
    /// some others too: a bias written `1`).
    fn fractions(text: &[u8]) -> Vec<std::ops::Range<usize>> {
        let ends = |b: &u8| *b <= b' ' || b"(){}\"".contains(b);
        let mut spans = Vec::new();
        let mut at = 0;
        while at < text.len() {
            let skip_to = |from: usize, byte: u8| {
                let rest = &text[from..];
                from + rest
                    .iter()
                    .position(|&b| b == byte)
                    .map_or(rest.len(), |i| i + 1)
            };
            if text[at] == b'"' {
                at = skip_to(at + 1, b'"');
                continue;
            }
            if text[at..].starts_with(b"//") {
                at = skip_to(at, b'\n');
                continue;
            }
            let len = text[at..].iter().position(ends).unwrap_or(text.len() - at);
            let token = &text[at..at + len];
            let numeric = token
                .first()
                .is_some_and(|b| b.is_ascii_digit() || b"-+.".contains(b));
            if numeric && token.iter().any(|b| b"eE.".contains(b)) {
                spans.push(at..at + len);
            }
            at += len.max(1);
        }
        spans
    }

    /// skelmap's side of an IQM row after opening: pose `model` at frame 0 (with `bind`, in
    /// its joints' bind pose instead), deform its mesh into buffers allocated here; returns the
    /// sum of the positions, and with `keep` also appends the positions there.
    fn iqm_positions(model: &Model<'_>, bind: bool, keep: Option<&mut Vec<f32>>) -> f64 {
        let mut pose = Pose::default();
        if bind {
            model.pose_bind(&mut pose);
        } else {
            model
                .pose(0, 0, 0.0, Interpolation::Nlerp, &mut pose)
                .unwrap();
        }
        let mut sum = 0.0f64;
        let mut kept = keep;
        for mesh in 0..model.num_meshes() {
            let n = model.mesh(mesh).map_or(0, |m| m.num_vertices());
            let (mut p, mut q) = (vec![[0.0f32; 3]; n], vec![[0.0f32; 3]; n]);
            model.deform(mesh, &pose, &mut p, &mut q).unwrap();
            sum += p
                .iter()
                .map(|v| f64::from(v[0]) + f64::from(v[1]) + f64::from(v[2]))
                .sum::<f64>();
            if let Some(out) = kept.as_deref_mut() {
                out.extend(p.iter().flatten());
            }
        }
        sum
    }

    /// The rows of a shared Half-Life model: `skelmap/<file>` (open with companions, pose the
    /// bind pose, deform) and `assimp/<file>` (import, frame-0 positions). Checked first:
    /// every bind-pose vertex of skelmap's (a vertex per triangle-command vertex of each body
    /// part's first model) is one of assimp's (which welds them and shows every model), within
    /// the tolerance of the model's extent.
    fn hl1_rows(
        group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
        assimp: &mut Peer,
        path: &Path,
        dump: &Path,
    ) {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let mut ours = Vec::new();
        skelmap_frame0(path, Some(&mut ours));
        let words = match assimp.load(&name, path) {
            Ok(words) => words,
            Err(e) => {
                eprintln!("assimp refuses {name}: {e}");
                return;
            }
        };
        let theirs = assimp.dump(&name, 1, dump);
        let ours: Vec<f32> = ours.concat();
        let extent = ours.iter().fold(0.0f32, |a, x| a.max(x.abs()));
        let d = ours
            .chunks_exact(3)
            .map(|p| {
                theirs
                    .chunks_exact(3)
                    .map(|q| peer::max_abs_diff(p, q))
                    .fold(f32::INFINITY, f32::min)
            })
            .fold(0.0, f32::max);
        println!(
            "assimp {name}: {} meshes, {} vertices; each of skelmap's {} triangle corners is \
             within {d:.3e} of one of them (extent {extent:.3e})",
            words.first().map_or("?", String::as_str),
            theirs.len() / 3,
            ours.len() / 3,
        );
        assert!(
            d <= POSITION_TOLERANCE * extent,
            "{name}: skelmap's and assimp's bind-pose positions differ by {d}"
        );
        let size = std::fs::metadata(path).unwrap().len();
        group.throughput(Throughput::Bytes(size));
        group.bench_function(BenchmarkId::new("skelmap", &name), |b| {
            b.iter(|| skelmap_frame0(path, None))
        });
        group.bench_function(BenchmarkId::new("assimp", &name), |b| {
            b.iter_custom(|iters| assimp.run(&name, 1, iters))
        });
        assimp.paired("assimp", &name, "run", || {
            std::hint::black_box(skelmap_frame0(path, None));
        });
        assimp.read_bound("assimp", &name, "run", &files_read(path));
    }

    /// The rows of a corpus IQM with a mesh and frames (others are left out, with a message):
    /// `skelmap/<file>` opens it from its path (`Model::open`) and deforms it at frame 0,
    /// `assimp/<file>` imports it from its path (`ReadFile`); `skelmap-memory/<file>` and
    /// `assimp-memory/<file>` do the same from the file's bytes in memory
    /// (`Model::from_bytes`, `ReadFileFromMemory`), without the file system. assimp 5.2.5's
    /// IQM loader gives the stored (bind-pose) vertices, one per IQM vertex in file order, a
    /// mesh per IQM mesh over consecutive ranges; before timing, skelmap's mesh deformed by its
    /// bind pose is checked against them, vertex by vertex.
    fn iqm_rows(
        group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
        assimp: &mut Peer,
        path: &Path,
        dump: &Path,
    ) {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let model = Model::open(path).unwrap();
        if model.num_frames() == 0 || model.num_meshes() == 0 {
            eprintln!(
                "assimp: {name} has {} frames and {} meshes; left out",
                model.num_frames(),
                model.num_meshes()
            );
            return;
        }
        let mut ours = Vec::new();
        iqm_positions(&model, true, Some(&mut ours));
        let words = match assimp.load(&name, path) {
            Ok(words) => words,
            Err(e) => {
                eprintln!("assimp refuses {name}: {e}");
                return;
            }
        };
        let theirs = assimp.dump(&name, 1, dump);
        assert_eq!(
            theirs.len(),
            ours.len(),
            "{name}: assimp's vertices ({words:?}), skelmap's"
        );
        let extent = ours.iter().fold(0.0f32, |a, x| a.max(x.abs()));
        let d = peer::max_abs_diff(&ours, &theirs);
        println!(
            "assimp {name}: {} meshes, {} vertices; bind-pose positions differ from skelmap's \
             by at most {d:.3e} (extent {extent:.3e})",
            words.first().map_or("?", String::as_str),
            ours.len() / 3,
        );
        assert!(
            d <= POSITION_TOLERANCE * extent,
            "{name}: skelmap's and assimp's bind-pose positions differ by {d}"
        );
        let bytes = std::fs::read(path).unwrap();
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        group.bench_function(BenchmarkId::new("skelmap", &name), |b| {
            b.iter(|| iqm_positions(&Model::open(path).unwrap(), false, None))
        });
        group.bench_function(BenchmarkId::new("assimp", &name), |b| {
            b.iter_custom(|iters| assimp.run(&name, 1, iters))
        });
        group.bench_function(BenchmarkId::new("skelmap-memory", &name), |b| {
            b.iter(|| {
                let model = Model::from_bytes(std::hint::black_box(&bytes)).unwrap();
                iqm_positions(&model, false, None)
            })
        });
        group.bench_function(BenchmarkId::new("assimp-memory", &name), |b| {
            b.iter_custom(|iters| assimp.run_as("run-memory", &name, 1, iters))
        });
        assimp.paired("assimp", &name, "run", || {
            std::hint::black_box(iqm_positions(&Model::open(path).unwrap(), false, None));
        });
        assimp.read_bound("assimp", &name, "run", &files_read(path));
        assimp.paired("assimp-memory", &name, "run-memory", || {
            let model = Model::from_bytes(std::hint::black_box(&bytes)).unwrap();
            std::hint::black_box(iqm_positions(&model, false, None));
        });
    }
}

/// Every group; the peers behind features are left out when their feature is off.
fn all(c: &mut Criterion) {
    ms3d_crate(c);
    #[cfg(feature = "ozz")]
    ozz::skinning(c);
    #[cfg(feature = "ozz")]
    ozz::playback(c);
    #[cfg(feature = "ozz")]
    ozz::blending(c);
    #[cfg(feature = "ozz")]
    ozz::two_bone_ik(c);
    #[cfg(feature = "ozz")]
    ozz::aim_ik(c);
    #[cfg(feature = "assimp")]
    assimp::import(c);
}

criterion_group!(peers, all);
criterion_main!(peers);
