//! The stream and prepared kernels, at every SIMD level this CPU has, against the scalar
//! reference: on every frame of every corpus DPM and of its SKM conversion, on random valid
//! models (proptest), across chunk boundaries, in both output orders, and on their errors.

use proptest::prelude::*;
use skelmap::Parse;
use skelmap::dpm::{self, BoneDef, Dpm, FrameDef, Influence, MeshDef};
use skelmap::pose::{self, Interpolation, LocalPose, Palette};
use skelmap::skin::SkinError;
use skelmap::skin::{self, PreparedMesh, SimdLevel, SkinMatrices, SkinnedVertex, VertexOrder};
use skelmap::skm;
use skelmap::skm::{Skm, Skp, convert};
use skelmap::synth::{TubeParams, tube};
use skelmap::{Diagnostics, SkeletalMesh};

use crate::support::{corpus_files, levels, zeros};

/// Worst difference of `got` from `want`, as a multiple of the allowed tolerance
/// `max(1e-5 · |want|, 1e-4)` (≤ 1 passes).
fn excess(want: &[[f32; 3]], got: &[[f32; 3]]) -> f32 {
    want.iter()
        .flatten()
        .zip(got.iter().flatten())
        .map(|(w, g)| (w - g).abs() / (1e-5 * w.abs()).max(1e-4))
        .fold(0.0, f32::max)
}

/// Skins every mesh of `model` at one palette with every kernel and level and checks each
/// against the scalar reference; returns the worst excess seen.
fn check_all_kernels<'d, M: SkeletalMesh<'d>>(
    meshes: &[(M, PreparedMesh)],
    palette: &Palette,
    what: &dyn Fn() -> String,
) -> f32 {
    let matrices = SkinMatrices::from_palette(palette);
    let mut worst = 0.0f32;
    for (mesh, prepared) in meshes {
        let n = mesh.num_vertices();
        let (mut p, mut q) = zeros(n);
        skin::scalar(mesh, palette, &mut p, &mut q).unwrap();
        for level in levels() {
            let (mut a, mut b) = zeros(n);
            skin::stream(mesh, &matrices, level, &mut a, &mut b).unwrap();
            let e = excess(&p, &a).max(excess(&q, &b));
            assert!(e <= 1.0, "{}: stream at {level} off by {e}×", what());
            worst = worst.max(e);
            prepared
                .skin(&matrices, level, VertexOrder::Original, &mut a, &mut b)
                .unwrap();
            let e = excess(&p, &a).max(excess(&q, &b));
            assert!(e <= 1.0, "{}: prepared at {level} off by {e}×", what());
            worst = worst.max(e);
        }
    }
    worst
}

#[test]
fn every_kernel_agrees_with_scalar_on_every_frame_of_every_corpus_dpm_and_skm() {
    for path in corpus_files("dpm") {
        let bytes = std::fs::read(&path).unwrap();
        let dpm = Dpm::parse(&bytes).unwrap();
        let c = convert::from_dpm(&dpm, &mut Diagnostics::new());
        let (skm_bytes, skp_bytes) = (c.skm.write().unwrap(), c.skp.write().unwrap());
        let skm = skm::Pair::new(
            Skm::parse(&skm_bytes).unwrap(),
            Skp::parse(&skp_bytes).unwrap(),
            &[],
        )
        .unwrap();
        let dpm_meshes: Vec<_> = dpm.meshes().map(|m| (m, PreparedMesh::new(&m))).collect();
        let skm_meshes: Vec<_> = skm
            .skm()
            .meshes()
            .map(|m| (m, PreparedMesh::new(&m)))
            .collect();
        let (mut pose, mut palette) = (LocalPose::default(), Palette::default());
        let mut worst = 0.0f32;
        for frame in 0..dpm.num_frames() {
            let name = || format!("{} frame {frame}", path.display());
            pose::sample(&dpm, frame, frame, 0.0, Interpolation::Nlerp, &mut pose);
            palette.build(&dpm, &pose);
            worst = worst.max(check_all_kernels(&dpm_meshes, &palette, &name));
            pose::sample(&skm, frame, frame, 0.0, Interpolation::Nlerp, &mut pose);
            palette.build(&skm, &pose);
            worst = worst.max(check_all_kernels(&skm_meshes, &palette, &name));
        }
        eprintln!(
            "{}: {} frames, worst kernel difference {worst:.3} of the tolerance",
            path.display(),
            dpm.num_frames()
        );
    }
}

#[test]
fn prepared_order_with_remapped_triangles_draws_the_same_mesh() {
    let bytes = tube(&TubeParams {
        bones: 20,
        rings_per_bone: 60,
        sides: 32,
        frames: 3,
        ..TubeParams::default()
    })
    .write()
    .unwrap();
    let m = Dpm::parse(&bytes).unwrap();
    let mesh = m.mesh(0).unwrap();
    let n = mesh.num_vertices() as usize;
    assert!(
        n > 2 * skin::CHUNK_VERTICES,
        "{n} vertices span three chunks"
    );
    let prepared = PreparedMesh::new(&mesh);
    let (mut pose, mut palette) = (LocalPose::default(), Palette::default());
    pose::sample(&m, 1, 2, 0.3, Interpolation::Nlerp, &mut pose);
    palette.build(&m, &pose);
    let matrices = SkinMatrices::from_palette(&palette);
    let (mut p, mut q) = zeros(n);
    skin::scalar(&mesh, &palette, &mut p, &mut q).unwrap();
    let order = prepared.prepared_order();
    let mut sorted = order.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, (0..n as u32).collect::<Vec<_>>(), "a permutation");
    let tris = prepared.remap_triangles(mesh.triangles());
    for level in levels() {
        let (mut a, mut b) = zeros(n);
        prepared
            .skin(&matrices, level, VertexOrder::Prepared, &mut a, &mut b)
            .unwrap();
        for (pos, &original) in order.iter().enumerate() {
            let o = original as usize;
            assert!(
                excess(&p[o..=o], &a[pos..=pos]) <= 1.0,
                "{level} vertex {o}"
            );
        }
        for (t, r) in mesh.triangles().zip(&tris) {
            for k in 0..3 {
                let (want, got) = (p[t[k] as usize], a[r[k] as usize]);
                assert!(excess(&[want], &[got]) <= 1.0);
            }
        }
        // Parallel and interleaved outputs hold the same values.
        let (mut c, mut d) = zeros(n);
        prepared
            .skin_par(&matrices, level, VertexOrder::Original, &mut c, &mut d)
            .unwrap();
        assert!(
            excess(&p, &c) <= 1.0 && excess(&q, &d) <= 1.0,
            "{level} parallel"
        );
        let mut v = vec![SkinnedVertex::default(); n];
        prepared
            .skin_vertices_par(&matrices, level, VertexOrder::Original, &mut v)
            .unwrap();
        assert!(v.iter().zip(&c).all(|(v, c)| v.position == *c), "{level}");
        let mut s = vec![SkinnedVertex::default(); n];
        skin::stream_vertices(&mesh, &matrices, level, &mut s).unwrap();
        let sp: Vec<[f32; 3]> = s.iter().map(|v| v.position).collect();
        assert!(excess(&p, &sp) <= 1.0, "{level} interleaved stream");
    }
}

#[test]
fn kernels_report_short_outputs_and_small_palettes() {
    let bytes = crate::support::tube().0;
    let m = Dpm::parse(&bytes).unwrap();
    let mesh = m.mesh(0).unwrap();
    let prepared = PreparedMesh::new(&mesh);
    let three_bones = Palette {
        world: vec![Default::default(); 3],
    };
    let small = SkinMatrices::from_palette(&three_bones);
    for level in SimdLevel::ALL {
        let (mut p, mut q) = zeros(136);
        assert_eq!(
            skin::stream(&mesh, &small, level, &mut p, &mut q),
            Err(SkinError::Palette { bone: 3, have: 3 }),
            "{level}"
        );
        assert_eq!(
            prepared.skin(&small, level, VertexOrder::Original, &mut p, &mut q),
            Err(SkinError::Palette { bone: 3, have: 3 }),
            "{level}"
        );
        let (mut short, _) = zeros(135);
        assert_eq!(
            skin::stream(&mesh, &small, level, &mut short, &mut q),
            Err(SkinError::Output {
                need: 136,
                have: 135
            })
        );
        assert_eq!(
            prepared.skin_par(&small, level, VertexOrder::Prepared, &mut p, &mut short),
            Err(SkinError::Output {
                need: 136,
                have: 135
            })
        );
    }
}

#[test]
fn detected_level_is_supported_and_lower_levels_fall_back() {
    let best = SimdLevel::detect();
    assert!(best.is_supported());
    assert_eq!(SimdLevel::Portable.or_supported(), SimdLevel::Portable);
    assert_eq!(
        SimdLevel::Avx512.or_supported(),
        best.min(SimdLevel::Avx512)
    );
    assert_eq!(best.to_string(), best.name());
}

/// A random valid one-mesh DPM: `bones` bones (each parented to an earlier one), one vertex
/// per `vertices` entry with 1..=8 influences, and two random frames.
fn random_model(bones: u32, vertices: &[Vec<(u32, f32, [f32; 3])>], angles: &[f32]) -> Vec<u8> {
    let mut b = dpm::Builder::default();
    for j in 0..bones {
        // Parent: the bone half-way down the list, so trees are both deep and wide.
        b.bones
            .push(BoneDef::new(format!("b{j}"), j as i32 / 2 - 1));
    }
    let mut mesh = MeshDef::default();
    for v in vertices {
        let total: f32 = v.iter().map(|i| i.1).sum();
        let influences = v
            .iter()
            .map(|&(bone, w, at)| Influence::weighted(bone % bones, w / total, at, [0.0, 0.6, 0.8]))
            .collect();
        mesh.vertices.push(influences);
        mesh.texcoords.push([0.0, 0.0]);
    }
    mesh.triangles.push([0, 0, 0]);
    mesh.group_ids.push(0);
    b.meshes.push(mesh);
    for f in 0..2 {
        let poses = (0..bones as usize)
            .map(|j| {
                let a = angles[(j + f) % angles.len()];
                let (s, c) = a.sin_cos();
                [
                    [c, -s, 0.0, 1.0],
                    [s, c, 0.0, -2.0],
                    [0.0, 0.0, 1.0, 3.0 + a],
                ]
            })
            .collect();
        b.frames.push(FrameDef::new(format!("f{f}"), poses));
    }
    b.write().unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    #[test]
    // Up to 140 bones: every look-up width of the AVX-512 kernels (16, 32, 64, 128, gathered).
    fn kernels_agree_with_scalar_on_random_valid_models(
        bones in 1u32..140,
        vertices in prop::collection::vec(
            prop::collection::vec((0u32..140, 0.05f32..1.0, prop::array::uniform3(-50.0f32..50.0)), 1..=8),
            1..200,
        ),
        angles in prop::collection::vec(-3.2f32..3.2, 1..8),
        t in 0.0f32..1.0,
    ) {
        let bytes = random_model(bones, &vertices, &angles);
        let m = Dpm::parse(&bytes).unwrap();
        let mesh = m.mesh(0).unwrap();
        let (mut pose, mut palette) = (LocalPose::default(), Palette::default());
        pose::sample(&m, 0, 1, t, Interpolation::Nlerp, &mut pose);
        palette.build(&m, &pose);
        let meshes = [(mesh, PreparedMesh::new(&mesh))];
        check_all_kernels(&meshes, &palette, &|| format!("{bones} bones"));
    }
}

#[test]
fn skin_batch_skins_every_instance_like_one_at_a_time() {
    use skelmap::skin::{self, SkinJob};
    let bytes = crate::support::tube().0;
    let m = Dpm::parse(&bytes).unwrap();
    let mesh = m.mesh(0).unwrap();
    let prepared = PreparedMesh::new(&mesh);
    let n = prepared.num_vertices();
    let mut pose = LocalPose::default();
    // Five characters, each at its own frame.
    let matrices: Vec<SkinMatrices> = (0..5)
        .map(|frame| {
            let mut palette = Palette::default();
            pose::sample(&m, frame, frame + 1, 0.5, Interpolation::Nlerp, &mut pose);
            palette.build(&m, &pose);
            SkinMatrices::from_palette(&palette)
        })
        .collect();
    let mut outputs = vec![zeros(n); 5];
    let mut jobs: Vec<SkinJob<'_>> = outputs
        .iter_mut()
        .zip(&matrices)
        .map(|((positions, normals), matrices)| SkinJob {
            mesh: &prepared,
            matrices,
            positions,
            normals,
        })
        .collect();
    skin::batch(&mut jobs, SimdLevel::detect(), VertexOrder::Original).unwrap();
    for ((p, q), matrices) in outputs.iter().zip(&matrices) {
        let (mut a, mut b) = zeros(n);
        prepared
            .skin(
                matrices,
                SimdLevel::detect(),
                VertexOrder::Original,
                &mut a,
                &mut b,
            )
            .unwrap();
        assert_eq!((p, q), (&a, &b));
    }
    assert_ne!(
        outputs[0].0, outputs[3].0,
        "different frames, different vertices"
    );
}

#[test]
fn computed_frame_bounds_match_the_writers_and_agree_between_dpm_and_skm() {
    use skelmap::skin::skinned_frame_bounds;
    // The writer stores bounds computed from the skinned vertices of each frame.
    let bytes = crate::support::tube().0;
    let m = Dpm::parse(&bytes).unwrap();
    let (skm_bytes, skp_bytes) = {
        let c = convert::from_dpm(&m, &mut Diagnostics::new());
        (c.skm.write().unwrap(), c.skp.write().unwrap())
    };
    let skm = skm::Pair::new(
        Skm::parse(&skm_bytes).unwrap(),
        Skp::parse(&skp_bytes).unwrap(),
        &[],
    )
    .unwrap();
    for frame in 0..m.num_frames() {
        let stored = m.frame(frame).unwrap();
        let from_dpm = skinned_frame_bounds(&m, m.meshes(), frame)
            .unwrap()
            .unwrap();
        let from_skm = skinned_frame_bounds(&skm, skm.skm().meshes(), frame)
            .unwrap()
            .unwrap();
        for k in 0..3 {
            assert!(
                (from_dpm.mins[k] - stored.mins()[k]).abs() < 1e-4,
                "frame {frame}"
            );
            assert!(
                (from_dpm.maxs[k] - stored.maxs()[k]).abs() < 1e-4,
                "frame {frame}"
            );
            assert!((from_dpm.mins[k] - from_skm.mins[k]).abs() < 1e-4);
            assert!((from_dpm.maxs[k] - from_skm.maxs[k]).abs() < 1e-4);
        }
        assert!(from_dpm.corner_radius() >= stored.all_radius() - 1e-4);
    }
}
