//! `morph`: frame tweening in vertices/s, the scalar reference next to the SIMD kernels
//! (`avx2`: 8 vertices a step, `avx512`: 16). `morph/`: GameStudio, on the corpus MDLs (when
//! present) and a synthetic 65 536-vertex word-packed model. `morph-md3/`: Quake III MD3
//! (`i16` positions, lat/long normals decoded in the blend's pass), every surface of the shared
//! MD3s of more than one frame and a synthetic surface of 65 536 vertices. `morph-md2/`: Quake
//! II MD2 (bytes on each frame's own grid, the unpacked positions blended), every shared MD2
//! of more than one frame and a synthetic model of 65 536 vertices. `morph-mdc/`: Return to
//! Castle Wolfenstein MDC, two base frames tweened by the kernels (`base-*` rows) next to a base
//! frame and a compressed one decoded vertex by vertex (`compressed`), on the shared MDC (whose
//! only base frame is tweened with itself) and a synthetic surface of 65 536 vertices.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use skelmap::Parse;
use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use skelmap::gamestudio;
use skelmap::gamestudio::Mdl;
use skelmap::gamestudio::morph::{tween_scalar, tween_with_level};
use skelmap::gamestudio::write::MdlFrameDef;
use skelmap::skin::SimdLevel;

fn synthetic() -> Vec<u8> {
    let n = 65_536u32;
    let frame = |shift: u16| MdlFrameDef {
        frame_type: 2,
        name: b"f".to_vec(),
        vertices: (0..n)
            .map(|i| {
                (
                    [
                        (i % 256) as u16 * 64,
                        (i / 256) as u16 * 64,
                        shift.wrapping_mul(i as u16),
                    ],
                    (i % 162) as u8,
                )
            })
            .collect(),
    };
    gamestudio::MdlBuilder {
        version: 4,
        scale: [0.01; 3],
        triangles: vec![([0, 1, 2], [0, 0, 0])],
        frames: vec![frame(3), frame(7)],
        ..gamestudio::MdlBuilder::default()
    }
    .write()
}

fn inputs() -> Vec<(String, Vec<u8>)> {
    // The MDL2 sample is refused by the parser and left out.
    let mut out: Vec<_> = common::corpus("mdl")
        .into_iter()
        .filter(|(_, b)| Mdl::parse(b).is_ok())
        .collect();
    out.push(("synthetic_65536".to_string(), synthetic()));
    out
}

fn morph(c: &mut Criterion) {
    let mut group = c.benchmark_group("morph");
    group
        .sample_size(30)
        .measurement_time(Duration::from_secs(2))
        .warm_up_time(Duration::from_millis(500));
    for (name, bytes) in inputs() {
        let m = Mdl::parse(&bytes).unwrap();
        let n = m.num_vertices();
        let last = m.frames().len() - 1;
        let (mut p, mut nrm) = (vec![[0.0f32; 3]; n], vec![[0.0f32; 3]; n]);
        group.throughput(Throughput::Elements(n as u64));
        group.bench_function(BenchmarkId::new("scalar", &name), |b| {
            b.iter(|| tween_scalar(&m, 0, last, black_box(0.3), &mut p, &mut nrm).unwrap())
        });
        for level in SimdLevel::ALL
            .into_iter()
            .skip(1)
            .filter(|l| l.is_supported())
        {
            group.bench_function(BenchmarkId::new(level.name(), &name), |b| {
                b.iter(|| {
                    tween_with_level(&m, level, 0, last, black_box(0.3), &mut p, &mut nrm).unwrap()
                })
            });
        }
    }
    group.finish();
}

/// One MD3 surface of 65 536 vertices in two frames, every normal word used.
fn synthetic_md3() -> Vec<u8> {
    use skelmap::md3::write::{Builder, FrameDef, SurfaceDef};
    let n = 65_536usize;
    let frame = |shift: i16| {
        (0..n)
            .map(|i| {
                let xyz = [
                    (i % 256) as i16 * 64 - 8192,
                    (i / 256) as i16 * 64 - 8192,
                    shift.wrapping_mul(i as i16),
                ];
                (xyz, (i as u16).wrapping_mul(shift as u16))
            })
            .collect()
    };
    Builder {
        frames: vec![FrameDef::default(); 2],
        surfaces: vec![SurfaceDef {
            name: b"s".to_vec(),
            triangles: vec![[0, 1, 2]],
            st: vec![[0.0; 2]; n],
            frames: vec![frame(3), frame(7)],
            ..SurfaceDef::default()
        }],
        ..Builder::default()
    }
    .write()
}

fn morph_md3(c: &mut Criterion) {
    use skelmap::md3::Md3;
    let mut group = c.benchmark_group("morph-md3");
    group
        .sample_size(30)
        .measurement_time(Duration::from_secs(2))
        .warm_up_time(Duration::from_millis(500));
    let mut inputs: Vec<_> = common::corpus_engines("md3")
        .into_iter()
        .filter(|(_, b)| {
            Md3::parse(b).is_ok_and(|m| m.num_frames() > 1 && !m.surfaces().is_empty())
        })
        .collect();
    inputs.push(("synthetic_65536".to_string(), synthetic_md3()));
    for (name, bytes) in inputs {
        let m = Md3::parse(&bytes).unwrap();
        let n: usize = m.surfaces().iter().map(|s| s.num_vertices()).sum();
        let most = m.surfaces().iter().map(|s| s.num_vertices()).max().unwrap();
        let last = m.num_frames() - 1;
        let (mut p, mut nrm) = (vec![[0.0f32; 3]; most], vec![[0.0f32; 3]; most]);
        group.throughput(Throughput::Elements(n as u64));
        for level in SimdLevel::ALL.into_iter().filter(|l| l.is_supported()) {
            let row = if level == SimdLevel::Portable {
                "scalar"
            } else {
                level.name()
            };
            group.bench_function(BenchmarkId::new(row, &name), |b| {
                b.iter(|| {
                    for mesh in 0..m.surfaces().len() {
                        m.tween_with_level(level, mesh, 0, last, black_box(0.3), &mut p, &mut nrm)
                            .unwrap();
                    }
                })
            });
        }
    }
    group.finish();
}

/// An MD2 of 65 536 vertices in two frames on different grids, every normal index used.
fn synthetic_md2() -> Vec<u8> {
    use skelmap::md2::write::{Builder, FrameDef};
    let n = 65_536usize;
    let frame = |shift: u8, scale: f32| FrameDef {
        name: b"f".to_vec(),
        scale: [scale, 0.5, 0.25],
        translate: [-64.0, -32.0, shift as f32],
        vertices: (0..n)
            .map(|i| {
                let v = [
                    (i % 256) as u8,
                    (i / 256) as u8,
                    shift.wrapping_mul(i as u8),
                ];
                (v, (i % 162) as u8)
            })
            .collect(),
    };
    Builder {
        skin_size: [64, 64],
        st: vec![[0, 0]],
        triangles: vec![([0, 1, 2], [0, 0, 0])],
        frames: vec![frame(3, 0.5), frame(7, 0.75)],
        ..Builder::default()
    }
    .write()
}

fn morph_md2(c: &mut Criterion) {
    use skelmap::md2::Md2;
    let mut group = c.benchmark_group("morph-md2");
    group
        .sample_size(30)
        .measurement_time(Duration::from_secs(2))
        .warm_up_time(Duration::from_millis(500));
    let mut inputs: Vec<_> = common::corpus_engines("md2")
        .into_iter()
        .filter(|(_, b)| Md2::parse(b).is_ok_and(|m| m.frames().len() > 1))
        .collect();
    inputs.push(("synthetic_65536".to_string(), synthetic_md2()));
    for (name, bytes) in inputs {
        let m = Md2::parse(&bytes).unwrap();
        let n = m.num_vertices();
        let last = m.frames().len() - 1;
        let (mut p, mut nrm) = (vec![[0.0f32; 3]; n], vec![[0.0f32; 3]; n]);
        group.throughput(Throughput::Elements(n as u64));
        for level in SimdLevel::ALL.into_iter().filter(|l| l.is_supported()) {
            let row = if level == SimdLevel::Portable {
                "scalar"
            } else {
                level.name()
            };
            group.bench_function(BenchmarkId::new(row, &name), |b| {
                b.iter(|| {
                    m.tween_with_level(level, 0, last, black_box(0.3), &mut p, &mut nrm)
                        .unwrap();
                })
            });
        }
    }
    group.finish();
}

/// An MDC surface of 65 536 vertices in three frames: a base frame, a compressed frame a
/// little off it, and a second base frame far away.
fn synthetic_mdc() -> Vec<u8> {
    use skelmap::mdc::write::{Builder, FrameDef, SurfaceDef};
    let n = 65_536usize;
    let frame = |f: usize| -> Vec<([f32; 3], [f32; 3])> {
        (0..n)
            .map(|i| {
                let lift = if f == 2 { 300.0 } else { 0.0 };
                let wiggle = f as f32 * 0.05 * (i % 7) as f32;
                let p = [
                    (i % 256) as f32 - 128.0,
                    (i / 256) as f32 - 128.0,
                    lift + wiggle,
                ];
                let a = i as f32 * 0.01;
                (p, [a.cos() * 0.6, a.sin() * 0.6, 0.8])
            })
            .collect()
    };
    let (mut surface, _) = SurfaceDef::compress(&[frame(0), frame(1), frame(2)], 0.1);
    assert_eq!(
        (surface.base_frames.len(), surface.comp_frames.len()),
        (2, 1)
    );
    surface.name = b"s".to_vec();
    surface.triangles = vec![[0, 1, 2]];
    surface.st = vec![[0.0; 2]; n];
    Builder {
        frames: vec![FrameDef::default(); 3],
        surfaces: vec![surface],
        ..Builder::default()
    }
    .write()
}

fn morph_mdc(c: &mut Criterion) {
    use skelmap::mdc::Mdc;
    let mut group = c.benchmark_group("morph-mdc");
    group
        .sample_size(30)
        .measurement_time(Duration::from_secs(2))
        .warm_up_time(Duration::from_millis(500));
    let mut inputs: Vec<_> = common::corpus_engines("mdc")
        .into_iter()
        .filter(|(_, b)| {
            Mdc::parse(b).is_ok_and(|m| m.num_frames() > 1 && !m.surfaces().is_empty())
        })
        .collect();
    inputs.push(("synthetic_65536".to_string(), synthetic_mdc()));
    for (name, bytes) in inputs {
        let m = Mdc::parse(&bytes).unwrap();
        let n: usize = m.surfaces().iter().map(|s| s.num_vertices()).sum();
        let most = m.surfaces().iter().map(|s| s.num_vertices()).max().unwrap();
        let (mut p, mut nrm) = (vec![[0.0f32; 3]; most], vec![[0.0f32; 3]; most]);
        let s = &m.surfaces()[0];
        // Two model frames that are base frames alone (the first and the last such), and one
        // that adds a compressed frame.
        let base: Vec<_> = (0..m.num_frames())
            .filter(|&f| s.comp_frame(f).is_none())
            .collect();
        let pair = (base[0], *base.last().unwrap());
        let compressed = (0..m.num_frames())
            .find(|&f| s.comp_frame(f).is_some())
            .unwrap();
        let mut tween = |level: SimdLevel, (a, b): (usize, usize)| {
            for mesh in 0..m.surfaces().len() {
                m.tween_with_level(level, mesh, a, b, black_box(0.3), &mut p, &mut nrm)
                    .unwrap();
            }
        };
        group.throughput(Throughput::Elements(n as u64));
        for level in SimdLevel::ALL.into_iter().filter(|l| l.is_supported()) {
            let row = if level == SimdLevel::Portable {
                "base-scalar".to_string()
            } else {
                format!("base-{}", level.name())
            };
            group.bench_function(BenchmarkId::new(row, &name), |b| {
                b.iter(|| tween(level, pair))
            });
        }
        group.bench_function(BenchmarkId::new("compressed", &name), |b| {
            b.iter(|| tween(SimdLevel::detect(), (pair.0, compressed)))
        });
    }
    group.finish();
}

criterion_group!(benches, morph, morph_md3, morph_md2, morph_mdc);
criterion_main!(benches);
