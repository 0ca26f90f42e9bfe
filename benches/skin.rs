//! `skin`: the scalar reference kernel (`anim::skin::skin_scalar`) in vertices/s, on a
//! 100k-vertex synthetic tube (L3-resident) and the corpus DPMs (each at a mid-animation
//! frame). The stream, prepared and SIMD kernels join this group as they land.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use skelmap::SkeletalMesh;
use skelmap::anim::skin::skin_scalar;
use skelmap::anim::{self, Interpolation, LocalPose, Palette};
use skelmap::dpm::Dpm;
use skelmap::synth::{TubeParams, tube};

fn inputs() -> Vec<(String, Vec<u8>)> {
    let params = TubeParams {
        bones: 32,
        rings_per_bone: 98,
        sides: 32,
        frames: 4,
        ..TubeParams::default()
    };
    let mut out = vec![("synthetic_100k".to_string(), tube(&params).write().unwrap())];
    out.extend(common::corpus("dpm"));
    out
}

fn skin(c: &mut Criterion) {
    let mut group = c.benchmark_group("skin");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(2))
        .warm_up_time(Duration::from_millis(500));
    for (name, bytes) in inputs() {
        let m = Dpm::parse(&bytes).unwrap();
        let (mut pose, mut palette) = (LocalPose::default(), Palette::default());
        let mid = m.num_frames() as usize / 2;
        anim::sample(
            &m,
            mid,
            (mid + 1).min(m.num_frames() as usize - 1),
            0.5,
            Interpolation::Nlerp,
            &mut pose,
        );
        palette.build(&m, &pose);
        let n: usize = m
            .meshes()
            .map(|x| x.num_verts() as usize)
            .max()
            .unwrap_or(0);
        let (mut p, mut q) = (vec![[0.0f32; 3]; n], vec![[0.0f32; 3]; n]);
        group.throughput(Throughput::Elements(m.total_vertices()));
        group.bench_function(BenchmarkId::new("scalar", &name), |b| {
            b.iter(|| {
                for mesh in m.meshes() {
                    skin_scalar(&mesh, &palette, &mut p, &mut q).unwrap();
                }
            })
        });
    }
    group.finish();
}

criterion_group!(benches, skin);
criterion_main!(benches);
