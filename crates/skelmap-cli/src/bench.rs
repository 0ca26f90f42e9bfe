//! `skelmap bench FILE`: a quick measurement of one model on this machine.
//!
//! Lines: open + validate (bytes/s over the whole file), pose sampling (ns per bone), and
//! every kernel the format has on 1..N threads, in vertices/s. Kernels run over a batch of
//! instances of the model (about a million vertices in all, one instance per task) so every
//! thread count has work. Each kernel line also gives its input read rate as a fraction of
//! a **read roofline** measured in the same run: summing a buffer as large as the kernel's
//! per-instance input, once per instance, on the same number of threads (so both read the
//! same bytes from the same cache level). Every figure is the median of three timed slices.
//! Criterion benches (`cargo bench`) remain the reference; this is a quick look.

use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use rayon::prelude::*;
use skelmap_core::gamestudio::{PackedVertices, morph};
use skelmap_core::pose::{BakedFrames, Interpolation, LocalPose, Palette, PoseFrames, sample};
use skelmap_core::skin::dqs::{deltas, skin_dqs};
use skelmap_core::skin::skin_scalar;
use skelmap_core::skin::{
    PreparedMesh, SimdLevel, SkinMatrices, VertexOrder, skin_bind_dqs, skin_bind_lbs, skin_stream,
};
use skelmap_core::{Diagnostics, Limits, SkeletalMesh, open_any_with};
use skelmap_export::Model;

use crate::load;

/// Vertices a kernel batch aims for.
const BATCH_VERTICES: usize = 1 << 20;

/// One instance's output positions or normals.
type Points = Vec<[f32; 3]>;

/// What a per-mesh step receives: the mesh's index, the mesh, its positions and normals.
type MeshStep<'a, M> = dyn Fn(usize, &M, &mut [[f32; 3]], &mut [[f32; 3]]) + 'a;

/// One instance's kernel: fills positions and normals (sized for every mesh, back to back).
type Kernel<'k> = Box<dyn Fn(&mut [[f32; 3]], &mut [[f32; 3]]) + Sync + 'k>;

/// A kernel with its name and the bytes it reads per instance.
struct Line<'k> {
    name: String,
    input_bytes: usize,
    kernel: Kernel<'k>,
}

pub fn run(path: &Path, seconds: f64, root: Option<&Path>) -> Result<ExitCode, String> {
    let seconds = if seconds.is_finite() {
        seconds.clamp(0.01, 60.0)
    } else {
        0.3
    };
    let source = load::read(path)?;
    let bytes = source.bytes();
    let threads = rayon::current_num_threads();
    let pools = (1..=threads)
        .map(|t| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(t)
                .build()
                .map(|p| (t, p))
                .map_err(|e| format!("cannot start {t} threads: {e}"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut diag = Diagnostics::new();
    load::with_model(path, root, &mut diag, |model, _, _| {
        say!(
            "skelmap bench {}: {}, {} bytes, SIMD {}, 1..{threads} threads, {seconds} s per line \
             (median of 3 slices)",
            path.display(),
            model.format(),
            bytes.len(),
            SimdLevel::detect()
        );
        let open = median_rate(seconds, || {
            let mut d = Diagnostics::new();
            std::hint::black_box(open_any_with(bytes, &Limits::default(), &mut d).is_ok());
        });
        // Per open, not per byte: validation reads headers, tables and indices, and some
        // formats' payloads (HMP heights, MDL texels) are never touched by it.
        say!("open + validate   {:>10.2} µs per open", 1e6 / open);
        let (vertices, lines) = kernels(model, seconds);
        if vertices == 0 || lines.is_empty() {
            say!("(no skinning or morph kernel for this format)");
            return Ok(());
        }
        let instances = (BATCH_VERTICES / vertices).clamp(1, 4096);
        say!(
            "kernels: {instances} instances × {vertices} vertices; roofline = read pass over the \
             kernel's input bytes in the same run"
        );
        say!(
            "{:<22} {:>7} {:>14} {:>10} {:>9}",
            "kernel",
            "threads",
            "M vertices/s",
            "input GB/s",
            "roofline"
        );
        let mut out: Vec<(Points, Points)> =
            vec![(vec![[0.0; 3]; vertices], vec![[0.0; 3]; vertices]); instances];
        for line in &lines {
            let roof = vec![1u8; line.input_bytes.max(1)];
            for (t, pool) in &pools {
                let roof_rate = median_rate(seconds, || {
                    pool.install(|| {
                        let sum = (0..instances)
                            .into_par_iter()
                            .map(|_| byte_sum(&roof))
                            .reduce(|| 0, u64::wrapping_add);
                        std::hint::black_box(sum);
                    });
                }) * (instances * roof.len()) as f64;
                let rate = median_rate(seconds, || {
                    pool.install(|| {
                        out.par_iter_mut().for_each(|(p, n)| (line.kernel)(p, n));
                    });
                });
                let vps = rate * (instances * vertices) as f64;
                let input = rate * (instances * line.input_bytes) as f64;
                say!(
                    "{:<22} {:>7} {:>14.1} {:>10.2} {:>8.0}%",
                    line.name,
                    t,
                    vps / 1e6,
                    input / 1e9,
                    100.0 * input / roof_rate.max(1.0)
                );
            }
        }
        Ok(())
    })?;
    Ok(ExitCode::SUCCESS)
}

/// Calls per second of `f`: the median of three slices of `seconds / 3` after one warm-up.
fn median_rate(seconds: f64, mut f: impl FnMut()) -> f64 {
    f();
    let mut rates = [0.0f64; 3];
    for rate in &mut rates {
        let start = Instant::now();
        let mut calls = 0u64;
        while start.elapsed().as_secs_f64() < seconds / 3.0 || calls == 0 {
            f();
            calls += 1;
        }
        *rate = calls as f64 / start.elapsed().as_secs_f64().max(1e-9);
    }
    rates.sort_by(f64::total_cmp);
    rates[1]
}

/// A wrapping sum of every byte, 8 at a time: the read pass.
fn byte_sum(bytes: &[u8]) -> u64 {
    let words = bytes.chunks_exact(8);
    let tail = words.remainder();
    let sum = words.fold(0u64, |s, w| {
        s.wrapping_add(u64::from_le_bytes(w.try_into().unwrap_or_default()))
    });
    tail.iter().fold(sum, |s, b| s.wrapping_add(u64::from(*b)))
}

/// Prints the sampling line and returns the vertices per instance and the kernels of `model`.
fn kernels<'k>(model: &'k Model<'k>, seconds: f64) -> (usize, Vec<Line<'k>>) {
    match model {
        Model::Dpm(m) => skeletal(m, m.meshes().collect(), seconds),
        Model::Skm(m) => skeletal(m, m.skm().meshes().collect(), seconds),
        Model::Skp(p) => {
            sampling(p, seconds);
            (0, Vec::new())
        }
        Model::Mdl(m) => {
            let n = m.num_verts() as usize;
            let frames = m.frames().len();
            let packed = match m.frames().first().map(|f| f.vertices()) {
                Some(PackedVertices::Word(_)) => 8,
                _ => 4,
            };
            let tween = |simd: bool| -> Kernel<'k> {
                Box::new(move |p, q| {
                    let b = 1.min(frames.saturating_sub(1));
                    let _ = if simd {
                        morph::tween_simd(m, 0, b, 0.5, p, q)
                    } else {
                        morph::tween_scalar(m, 0, b, 0.5, p, q)
                    };
                })
            };
            let input_bytes = 2 * n * packed;
            (
                n,
                vec![
                    Line {
                        name: "morph scalar".into(),
                        input_bytes,
                        kernel: tween(false),
                    },
                    Line {
                        name: format!("morph {}", morph::simd_kernel_name()),
                        input_bytes,
                        kernel: tween(true),
                    },
                ],
            )
        }
        Model::Hmp(h) => {
            let [nx, ny] = h.grid();
            let n = nx as usize * ny as usize;
            let frames = h.frames().len();
            (
                n,
                vec![Line {
                    name: "terrain tween".into(),
                    input_bytes: 2 * n * 4,
                    kernel: Box::new(move |p, q| {
                        let _ = h.tween(0, 1.min(frames.saturating_sub(1)), 0.5, p, q);
                    }),
                }],
            )
        }
        Model::Ms3d(m) if !m.joints().is_empty() => {
            sampling(m, seconds);
            // Rest and 1/24 s palettes, computed once: the lines time the kernels.
            let (mut local, mut rest, mut now) =
                (LocalPose::default(), Palette::default(), Palette::default());
            skelmap_core::ms3d::anim::local_rest_pose(m, &mut local);
            rest.build(m, &local);
            skelmap_core::ms3d::anim::local_pose_at(m, 1.0 / 24.0, &mut local);
            now.build(m, &local);
            let mut affine = Vec::new();
            now.relative_to(&rest, &mut affine);
            let dual = deltas(&now, &rest);
            let n = m.vertices().len();
            let input_bytes = size_of_val(m.vertices());
            (
                n,
                vec![
                    Line {
                        name: "ms3d linear blend".into(),
                        input_bytes,
                        kernel: Box::new(move |p, q| {
                            let _ = skin_bind_lbs(m, &affine, p, q);
                        }),
                    },
                    Line {
                        name: "ms3d dual quaternion".into(),
                        input_bytes,
                        kernel: Box::new(move |p, q| {
                            let _ = skin_bind_dqs(m, &dual, p, q);
                        }),
                    },
                ],
            )
        }
        _ => (0, Vec::new()),
    }
}

/// Prints how long sampling and concatenating one pose takes, per bone: straight from the
/// file, and from frames baked once (when the source is small enough to bake).
fn sampling<'d, S: PoseFrames<'d>>(source: &S, seconds: f64) {
    let bones = source.skeleton_bones().len().max(1);
    say!(
        "sample + palette  {:>10.1} ns per bone ({bones} bones, nlerp between frames)",
        sample_ns_per_bone(source, seconds)
    );
    if let Ok(baked) = BakedFrames::new(source) {
        say!(
            "  from baked frames {:>8.1} ns per bone",
            sample_ns_per_bone(&baked, seconds)
        );
    }
}

fn sample_ns_per_bone<'d, S: PoseFrames<'d>>(source: &S, seconds: f64) -> f64 {
    let bones = source.skeleton_bones().len().max(1);
    let frames = source.frame_count().max(1);
    let (mut pose, mut palette) = (LocalPose::default(), Palette::default());
    let mut frame = 0usize;
    let rate = median_rate(seconds, || {
        frame = (frame + 1) % frames;
        sample(
            source,
            frame,
            (frame + 1) % frames,
            0.5,
            Interpolation::Nlerp,
            &mut pose,
        );
        palette.build(source, &pose);
        std::hint::black_box(&palette);
    });
    1e9 / rate / bones as f64
}

/// DPM and SKM: scalar, stream and prepared at every supported SIMD level, and DQS.
fn skeletal<'k, S, M>(source: &'k S, meshes: Vec<M>, seconds: f64) -> (usize, Vec<Line<'k>>)
where
    S: PoseFrames<'k> + Sync,
    M: SkeletalMesh<'k> + Send + Sync + 'k,
{
    sampling(source, seconds);
    let frames = source.frame_count();
    let (mut pose, mut bind, mut now) =
        (LocalPose::default(), Palette::default(), Palette::default());
    sample(source, 0, 0, 0.0, Interpolation::Nlerp, &mut pose);
    bind.build(source, &pose);
    let b = frames / 2;
    sample(source, b, b, 0.0, Interpolation::Nlerp, &mut pose);
    now.build(source, &pose);
    let matrices = std::sync::Arc::new(SkinMatrices::from_palette(&now));
    let offsets: Vec<(usize, usize)> = meshes
        .iter()
        .scan(0usize, |at, m| {
            let n = m.num_verts() as usize;
            *at += n;
            Some((*at - n, n))
        })
        .collect();
    let vertices = offsets.last().map_or(0, |(a, n)| a + n);
    let records: usize = meshes
        .iter()
        .map(|m| m.vertices().map(<[_]>::len).sum::<usize>())
        .sum();
    let meshes = std::sync::Arc::new(meshes);
    let offsets = std::sync::Arc::new(offsets);
    // Calls `f(mesh, positions, normals)` for every mesh's slice of an instance's output.
    let per_mesh = {
        let (meshes, offsets) = (meshes.clone(), offsets.clone());
        move |p: &mut [[f32; 3]], q: &mut [[f32; 3]], f: &MeshStep<'_, M>| {
            for (i, (mesh, &(at, n))) in meshes.iter().zip(offsets.iter()).enumerate() {
                if let (Some(p), Some(q)) = (p.get_mut(at..at + n), q.get_mut(at..at + n)) {
                    f(i, mesh, p, q);
                }
            }
        }
    };
    let per_mesh = std::sync::Arc::new(per_mesh);
    let mut lines: Vec<Line<'k>> = Vec::new();
    {
        let (per_mesh, now) = (per_mesh.clone(), now.clone());
        lines.push(Line {
            name: "scalar".into(),
            input_bytes: records * 32,
            kernel: Box::new(move |p, q| {
                per_mesh(p, q, &|_, m, p, q| {
                    let _ = skin_scalar(m, &now, p, q);
                });
            }),
        });
    }
    let levels: Vec<SimdLevel> = SimdLevel::ALL
        .into_iter()
        .filter(|l| l.is_supported())
        .collect();
    for &level in &levels {
        let (per_mesh, matrices) = (per_mesh.clone(), matrices.clone());
        lines.push(Line {
            name: format!("stream {level}"),
            input_bytes: records * 32,
            kernel: Box::new(move |p, q| {
                per_mesh(p, q, &|_, m, p, q| {
                    let _ = skin_stream(m, &matrices, level, p, q);
                });
            }),
        });
    }
    let prepared: std::sync::Arc<Vec<PreparedMesh>> =
        std::sync::Arc::new(meshes.iter().map(PreparedMesh::new).collect());
    let prepared_bytes = prepared.iter().map(PreparedMesh::bytes).sum();
    for &level in &levels {
        let (per_mesh, matrices, prepared) = (per_mesh.clone(), matrices.clone(), prepared.clone());
        lines.push(Line {
            name: format!("prepared {level}"),
            input_bytes: prepared_bytes,
            kernel: Box::new(move |p, q| {
                per_mesh(p, q, &|i, _, p, q| {
                    if let Some(mesh) = prepared.get(i) {
                        let _ = mesh.skin(&matrices, level, VertexOrder::Original, p, q);
                    }
                });
            }),
        });
    }
    let dq = deltas(&now, &bind);
    lines.push(Line {
        name: "dqs".into(),
        input_bytes: records * 32,
        kernel: Box::new(move |p, q| {
            per_mesh(p, q, &|_, m, p, q| {
                let _ = skin_dqs(m, &bind, &dq, p, q);
            });
        }),
    });
    (vertices, lines)
}
