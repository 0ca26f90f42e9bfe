//! `still`: the one-frame path (`Model::static_mesh`, and `deform`, `Prepared::skin` and
//! `Compact::skin` on a model of one frame), against a copy of the same output bytes.
//!
//! Per input, `still-<input>` (vertices/s): `memcpy` (`copy_from_slice` of a mesh's positions
//! and normals into the outputs: the target's roofline), `static` (`StaticMesh::copy`),
//! `deform` (`Model::deform` with frame 0's pose: the pose check, then the copy), `prepared`
//! and `compact` (`Prepared::skin`, `Compact::skin` the same way), and `compact-kernel` (the
//! compact kernel itself on that pose: what the copy saves). Target: every copy row at least
//! 0.8 × `memcpy`'s rate.
//!
//! Inputs: `synthetic_100k_1f` (the skinning benches' 32-bone tube, 100 384 vertices, with one
//! frame) and every corpus DPM of one frame, all meshes of a model per iteration.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use skelmap::Model;
use skelmap::model::Pose;
use skelmap::pose::Interpolation;
use skelmap::skin::{SimdLevel, SkinMatrices, VertexOrder};
use skelmap::synth::{TubeParams, tube};

fn inputs() -> Vec<(String, Vec<u8>)> {
    let synthetic = tube(&TubeParams {
        bones: 32,
        rings_per_bone: 98,
        sides: 32,
        frames: 1,
        reach: 1.25,
        ..TubeParams::default()
    })
    .write()
    .unwrap();
    let mut out = vec![("synthetic_100k_1f".to_string(), synthetic)];
    for (name, bytes) in common::corpus("dpm") {
        if Model::from_bytes(&bytes).unwrap().num_frames() == 1 {
            out.push((name, bytes));
        }
    }
    out
}

fn still(c: &mut Criterion) {
    let level = SimdLevel::detect();
    for (name, bytes) in inputs() {
        let model = Model::from_bytes(&bytes).unwrap();
        let meshes = model.num_meshes();
        let sizes: Vec<usize> = (0..meshes)
            .map(|m| model.mesh(m).unwrap().num_vertices())
            .collect();
        let vertices: usize = sizes.iter().sum();
        println!(
            "still-{name}: {meshes} meshes, {vertices} vertices, {} bones, SIMD level {}",
            model.num_bones(),
            level.name()
        );
        let mut pose = Pose::default();
        model
            .pose(0, 0, 0.0, Interpolation::Nlerp, &mut pose)
            .unwrap();
        let baked = model.static_mesh().unwrap();
        let prepared = model.prepare().unwrap();
        let compact = model.compact().unwrap();
        let mut matrices = SkinMatrices::default();
        compact.matrices(&pose, &mut matrices).unwrap();
        // Outputs start on 64-byte boundaries, as in the skinning benches.
        let mut buffers: Vec<_> = sizes
            .iter()
            .map(|&n| (common::aligned_output(n), common::aligned_output(n), n))
            .collect();
        let mut out: Vec<(&mut [_], &mut [_])> = buffers
            .iter_mut()
            .map(|((p, a), (q, b), n)| (&mut p[*a..*a + *n], &mut q[*b..*b + *n]))
            .collect();
        // The source of `memcpy`: the same bytes, in buffers of their own.
        let source: Vec<_> = (0..meshes)
            .map(|m| {
                (
                    baked.positions(m).unwrap().to_vec(),
                    baked.normals(m).unwrap().to_vec(),
                )
            })
            .collect();

        let mut group = c.benchmark_group(format!("still-{name}"));
        group
            .sample_size(30)
            .warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_secs(2))
            .throughput(Throughput::Elements(vertices as u64));
        group.bench_function(BenchmarkId::from_parameter("memcpy"), |b| {
            b.iter(|| {
                for ((p, n), (sp, sn)) in out.iter_mut().zip(&source) {
                    p.copy_from_slice(black_box(sp));
                    n.copy_from_slice(black_box(sn));
                }
            })
        });
        group.bench_function(BenchmarkId::from_parameter("static"), |b| {
            b.iter(|| {
                for (m, (p, n)) in out.iter_mut().enumerate() {
                    black_box(&baked).copy(m, p, n).unwrap();
                }
            })
        });
        group.bench_function(BenchmarkId::from_parameter("deform"), |b| {
            b.iter(|| {
                for (m, (p, n)) in out.iter_mut().enumerate() {
                    model.deform(m, black_box(&pose), p, n).unwrap();
                }
            })
        });
        group.bench_function(BenchmarkId::from_parameter("prepared"), |b| {
            b.iter(|| {
                for (m, (p, n)) in out.iter_mut().enumerate() {
                    let order = VertexOrder::Original;
                    prepared
                        .skin(m, black_box(&pose), level, order, p, n)
                        .unwrap();
                }
            })
        });
        group.bench_function(BenchmarkId::from_parameter("compact"), |b| {
            b.iter(|| {
                for (m, (p, n)) in out.iter_mut().enumerate() {
                    compact.skin(m, black_box(&matrices), level, p, n).unwrap();
                }
            })
        });
        group.bench_function(BenchmarkId::from_parameter("compact-kernel"), |b| {
            b.iter(|| {
                for (m, (p, n)) in out.iter_mut().enumerate() {
                    let mesh = compact.mesh(m).unwrap();
                    mesh.skin(black_box(&matrices), level, VertexOrder::Original, p, n)
                        .unwrap();
                }
            })
        });
        group.finish();
    }
}

criterion_group!(benches, still);
criterion_main!(benches);
