//! The compact kernel (`CompactMesh`, `Model::compact`): within 10⁻⁴ of the model's size of
//! the exact kernels on every corpus DPM, its SKM conversion and every corpus MS3D at frames
//! 0, 1, middle and last; every level alike; the exact path for vertices that do not fold;
//! stored weight sums kept; its errors.

use proptest::prelude::*;
use skelmap::Parse;
use skelmap::dpm::{self, BoneDef, Dpm, FrameDef, Influence, MeshDef};
use skelmap::glam::{Affine3A, Quat};
use skelmap::model::Pose;
use skelmap::model::Records;
use skelmap::pose::{self, Interpolation, LocalPose, Palette};
use skelmap::skin::dqs::{DualQuat, DualQuatPalette, deltas};
use skelmap::skin::{
    CompactMesh, PARALLEL_MIN_VERTICES, PreparedMesh, SimdLevel, SkinError, SkinMatrices,
    SkinnedVertex, skin_scalar,
};
use skelmap::skm::convert;
use skelmap::synth::{TubeParams, tube};
use skelmap::{Diagnostics, Limits, Model, SkeletalMesh, Source};

use crate::support::{Streams, corpus_files, levels, zeros};

/// The diagonal of `points`' bounds.
fn size(points: &[[f32; 3]]) -> f32 {
    let mut lo = [f32::INFINITY; 3];
    let mut hi = [f32::NEG_INFINITY; 3];
    for p in points {
        for a in 0..3 {
            lo[a] = lo[a].min(p[a]);
            hi[a] = hi[a].max(p[a]);
        }
    }
    (0..3).map(|a| (hi[a] - lo[a]).powi(2)).sum::<f32>().sqrt()
}

fn distance(a: [f32; 3], b: [f32; 3]) -> f32 {
    (0..3).map(|i| (a[i] - b[i]).powi(2)).sum::<f32>().sqrt()
}

fn unit(n: [f32; 3]) -> [f32; 3] {
    let l = distance(n, [0.0; 3]);
    n.map(|v| v / l)
}

/// Worst position difference as a fraction of the exact mesh's size (at least 1: the random
/// models' meshes may be a single point), and worst difference of the unit normals (where the
/// exact normal is not degenerate; both zero where it is zero).
fn compare(exact: &Streams, got: &Streams) -> (f32, f32) {
    let size = size(&exact.0).max(1.0);
    let position = exact
        .0
        .iter()
        .zip(&got.0)
        .map(|(&a, &b)| distance(a, b) / size)
        .fold(0.0, f32::max);
    let normal = exact
        .1
        .iter()
        .zip(&got.1)
        .map(|(&a, &b)| {
            if a == [0.0; 3] {
                distance(b, [0.0; 3])
            } else if distance(a, [0.0; 3]) > 0.25 {
                distance(unit(a), unit(b))
            } else {
                0.0
            }
        })
        .fold(0.0, f32::max);
    (position, normal)
}

/// Every mesh of `model` at frames 0, 1, middle and last, exact (`Model::deform`) against
/// compact at every level, sequential and split; returns the worst position and normal
/// differences, and the vertices on the exact path.
fn check_model(model: &Model<'_>, name: &str) -> (f32, f32, usize) {
    let compact = model.compact().unwrap();
    let frames = model.num_frames();
    let (mut pose, mut matrices) = (Pose::default(), SkinMatrices::default());
    let (mut worst_p, mut worst_n) = (0.0f32, 0.0f32);
    for frame in [0, 1.min(frames - 1), frames / 2, frames - 1] {
        model
            .pose(frame, frame, 0.0, Interpolation::Nlerp, &mut pose)
            .unwrap();
        compact.matrices(&pose, &mut matrices).unwrap();
        for mesh in 0..model.num_meshes() {
            let n = compact.mesh(mesh).unwrap().num_vertices();
            let mut exact = zeros(n);
            model
                .deform(mesh, &pose, &mut exact.0, &mut exact.1)
                .unwrap();
            for level in levels() {
                let mut got = zeros(n);
                compact
                    .skin(mesh, &matrices, level, &mut got.0, &mut got.1)
                    .unwrap();
                let (p, q) = compare(&exact, &got);
                assert!(
                    p <= 1e-4 && q <= 2e-3,
                    "{name} mesh {mesh} frame {frame} {level}: position {p:e} of the size, \
                     normal {q:e}"
                );
                (worst_p, worst_n) = (worst_p.max(p), worst_n.max(q));
                let mut split = zeros(n);
                compact
                    .mesh(mesh)
                    .unwrap()
                    .skin_par(&matrices, level, &mut split.0, &mut split.1)
                    .unwrap();
                assert_eq!(split, got, "{name} mesh {mesh} frame {frame} {level} split");
            }
        }
    }
    (worst_p, worst_n, compact.exact_vertices())
}

#[test]
fn compact_matches_the_exact_kernels_on_every_corpus_dpm_skm_and_ms3d_within_1e_4_of_the_size() {
    for path in corpus_files("dpm") {
        let bytes = std::fs::read(&path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let model = Model::from_bytes(&bytes).unwrap();
        let (p, q, exact) = check_model(&model, &name);
        let total: usize = (0..model.num_meshes())
            .map(|m| model.mesh(m).unwrap().num_vertices())
            .sum();
        eprintln!(
            "{name}: {total} vertices, {exact} on the exact path; worst position {p:.2e} of the \
             size, normal {q:.2e}"
        );
        let dpm = Dpm::parse(&bytes).unwrap();
        let c = convert::from_dpm(&dpm, &mut Diagnostics::new());
        let (skm, skp) = (c.skm.write().unwrap(), c.skp.write().unwrap());
        let model = Model::from_skm(
            Source::from_bytes(&skm),
            Source::from_bytes(&skp),
            &Limits::DEFAULT,
        )
        .unwrap();
        let (p, q, skm_exact) = check_model(&model, &format!("{name} as SKM"));
        eprintln!("  as SKM: {skm_exact} exact; position {p:.2e}, normal {q:.2e}");
    }
    for path in corpus_files("ms3d") {
        let bytes = std::fs::read(&path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let model = Model::from_bytes(&bytes).unwrap();
        let (p, q, exact) = check_model(&model, &name);
        eprintln!("{name}: {exact} exact; worst position {p:.2e} of the size, normal {q:.2e}");
    }
}

fn tube_dpm(params: &TubeParams) -> Vec<u8> {
    tube(params).write().unwrap()
}

/// The tube's compact mesh with the matrices and the scalar reference of one mid-animation
/// pose.
fn tube_case(bytes: &[u8]) -> (CompactMesh, SkinMatrices, Streams) {
    let m = Dpm::parse(bytes).unwrap();
    let mesh = m.mesh(0).unwrap();
    let (mut pose, mut reference, mut palette) =
        (LocalPose::default(), Palette::default(), Palette::default());
    pose::sample(&m, 0, 0, 0.0, Interpolation::Nlerp, &mut pose);
    reference.build(&m, &pose);
    let compact = CompactMesh::new(&mesh, &reference.world).unwrap();
    pose::sample(&m, 1, 2, 0.3, Interpolation::Nlerp, &mut pose);
    palette.build(&m, &pose);
    let mut matrices = SkinMatrices::default();
    compact.matrices(&palette, &mut matrices);
    let mut exact = zeros(mesh.num_vertices());
    skin_scalar(&mesh, &palette, &mut exact.0, &mut exact.1).unwrap();
    (compact, matrices, exact)
}

#[test]
fn every_tube_vertex_folds_into_about_a_quarter_of_the_prepared_bytes_and_every_level_agrees() {
    let bytes = tube_dpm(&TubeParams::default());
    let (compact, matrices, exact) = tube_case(&bytes);
    assert_eq!(compact.exact_vertices(), 0);
    assert!(compact.has_normals());
    let m = Dpm::parse(&bytes).unwrap();
    let prepared = PreparedMesh::new(&m.mesh(0).unwrap());
    // 136 vertices in 9 blocks of 96 bytes of positions, 96 of normals and a 12-byte header,
    // and 21 influence rows of 48 bytes (16 of bones, 32 of weights).
    assert_eq!((compact.bytes(), prepared.bytes()), (2844, 10816));
    let n = compact.num_vertices();
    let mut first: Option<Streams> = None;
    for level in levels() {
        let mut got = zeros(n);
        compact
            .skin(&matrices, level, &mut got.0, &mut got.1)
            .unwrap();
        let (p, q) = compare(&exact, &got);
        assert!(p <= 5e-5 && q <= 2e-3, "{level}: {p:e} {q:e}");
        // The levels differ only in rounding (fused multiply-adds).
        if let Some(first) = &first {
            let (p, q) = compare(first, &got);
            assert!(
                p <= 1e-6 && q <= 1e-5,
                "{level} against portable: {p:e} {q:e}"
            );
        }
        first.get_or_insert(got.clone());
        let mut interleaved = vec![SkinnedVertex::default(); n];
        compact
            .skin_vertices(&matrices, level, &mut interleaved)
            .unwrap();
        assert!(
            interleaved
                .iter()
                .zip(got.0.iter().zip(&got.1))
                .all(|(v, (&p, &q))| v.position == p && v.normal == q)
        );
    }
}

/// A tube of 8 bones, 400 sides and `rings_per_bone` rings per bone (8 · 400 ·
/// `rings_per_bone` vertices), 3 frames: large enough to split over threads, or to stream.
fn wide_tube(rings_per_bone: u32) -> Vec<u8> {
    tube_dpm(&TubeParams {
        bones: 8,
        rings_per_bone,
        sides: 400,
        frames: 3,
        ..TubeParams::default()
    })
}

#[test]
fn a_mesh_large_enough_is_split_over_threads_into_the_same_bytes() {
    let bytes = wide_tube(40);
    let (compact, matrices, _) = tube_case(&bytes);
    let n = compact.num_vertices();
    assert!(n > 2 * PARALLEL_MIN_VERTICES, "{n} vertices");
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    for level in levels() {
        let (mut one, mut two) = (zeros(n), zeros(n));
        compact
            .skin(&matrices, level, &mut one.0, &mut one.1)
            .unwrap();
        pool.install(|| compact.skin_par(&matrices, level, &mut two.0, &mut two.1))
            .unwrap();
        assert_eq!(one, two, "{level}");
        // From outside any pool (the calling thread skins a piece, then waits spinning).
        let mut outside = zeros(n);
        compact
            .skin_par(&matrices, level, &mut outside.0, &mut outside.1)
            .unwrap();
        assert_eq!(one, outside, "{level}, from outside the pool");
    }
}

/// `n` zeroed positions or normals starting on a 64-byte boundary (`aligned`) or four bytes
/// past one (which no non-temporal store may write).
fn output(n: usize, aligned: bool) -> (Vec<[f32; 3]>, usize) {
    let buffer = vec![[0.0f32; 3]; n + 17];
    let at = (0..16)
        .find(|k| (buffer.as_ptr() as usize + 12 * k).is_multiple_of(64))
        .unwrap();
    // Twelve bytes on from a 64-byte boundary: still 4-byte aligned, never 64-byte aligned.
    (buffer, if aligned { at } else { at + 1 })
}

/// An output of at least `STREAM_MIN_BYTES` (here 16 MiB: 704 000 vertices) is written with
/// non-temporal stores where it starts on a 64-byte boundary, else with ordinary ones: the
/// same bytes either way, on one thread and on two.
#[test]
fn an_output_large_enough_is_streamed_into_the_same_bytes() {
    use skelmap::skin::STREAM_MIN_BYTES;
    let bytes = wide_tube(220);
    let (compact, matrices, _) = tube_case(&bytes);
    let n = compact.num_vertices();
    assert!(n * 24 >= STREAM_MIN_BYTES, "{n} vertices");
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let skinned = |aligned: bool, parallel: bool| {
        let ((mut p, at_p), (mut q, at_q)) = (output(n, aligned), output(n, aligned));
        let (p_out, q_out) = (&mut p[at_p..at_p + n], &mut q[at_q..at_q + n]);
        let level = SimdLevel::detect();
        if parallel {
            pool.install(|| compact.skin_par(&matrices, level, p_out, q_out))
        } else {
            compact.skin(&matrices, level, p_out, q_out)
        }
        .unwrap();
        (p[at_p..at_p + n].to_vec(), q[at_q..at_q + n].to_vec())
    };
    let plain = skinned(false, false);
    assert!(plain.0.iter().flatten().any(|v| *v != 0.0));
    assert_eq!(skinned(true, false), plain);
    assert_eq!(skinned(true, true), plain);
    assert_eq!(skinned(false, true), plain);
}

/// The prepared kernel streams a large output too (the blocks whose 16 vertices are
/// consecutive, where the output starts on a 64-byte boundary): the same bytes as ordinary
/// stores, in either vertex order, on one thread and on two.
#[test]
fn a_large_prepared_output_is_streamed_into_the_same_bytes() {
    use skelmap::skin::{STREAM_MIN_BYTES, VertexOrder};
    let bytes = wide_tube(220);
    let m = Dpm::parse(&bytes).unwrap();
    let mesh = m.mesh(0).unwrap();
    let prepared = PreparedMesh::new(&mesh);
    let n = prepared.num_vertices();
    assert!(n * 24 >= STREAM_MIN_BYTES, "{n} vertices");
    let (mut pose, mut palette) = (LocalPose::default(), Palette::default());
    pose::sample(&m, 1, 2, 0.3, Interpolation::Nlerp, &mut pose);
    palette.build(&m, &pose);
    let matrices = SkinMatrices::from_palette(&palette);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    for order in [VertexOrder::Original, VertexOrder::Prepared] {
        // Threads: 0 the calling one alone, 1 a two-thread pool from inside, 2 the global pool
        // from outside (the output is streamed, so the pool skins every piece).
        let skinned = |aligned: bool, threads: u8| {
            let ((mut p, at_p), (mut q, at_q)) = (output(n, aligned), output(n, aligned));
            let (p_out, q_out) = (&mut p[at_p..at_p + n], &mut q[at_q..at_q + n]);
            let level = SimdLevel::detect();
            match threads {
                0 => prepared.skin(&matrices, level, order, p_out, q_out),
                1 => pool.install(|| prepared.skin_par(&matrices, level, order, p_out, q_out)),
                _ => prepared.skin_par(&matrices, level, order, p_out, q_out),
            }
            .unwrap();
            (p[at_p..at_p + n].to_vec(), q[at_q..at_q + n].to_vec())
        };
        let plain = skinned(false, 0);
        assert!(plain.0.iter().flatten().any(|v| *v != 0.0));
        assert_eq!(skinned(true, 0), plain, "{order:?}");
        for threads in [1, 2] {
            assert_eq!(skinned(true, threads), plain, "{order:?}, {threads}");
            assert_eq!(skinned(false, threads), plain, "{order:?}, {threads}");
        }
    }
}

/// A DPM of two bones (the second turned by `angle` about z and moved in frame 0) and the
/// vertices given as `(bone, weight, origin in the bone's space)` influences.
fn two_bone_model(vertices: &[Vec<(u32, f32, [f32; 3])>]) -> Vec<u8> {
    let mut b = dpm::Builder::default();
    b.bones.push(BoneDef::new("root", -1));
    b.bones.push(BoneDef::new("arm", 0));
    let mut mesh = MeshDef::default();
    for v in vertices {
        mesh.vertices.push(
            v.iter()
                .map(|&(bone, w, at)| Influence::weighted(bone, w, at, [0.0, 0.0, 1.0]))
                .collect(),
        );
        mesh.texcoords.push([0.0, 0.0]);
    }
    mesh.triangles.push([0, 0, 0]);
    mesh.group_ids.push(0);
    b.meshes.push(mesh);
    let identity = [
        [1.0, 0.0, 0.0, 0.0],
        [0.0, 1.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0],
    ];
    let moved = [
        [1.0, 0.0, 0.0, 2.0],
        [0.0, 1.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0],
    ];
    let (s, c) = 0.7f32.sin_cos();
    let turned = [[c, -s, 0.0, 2.0], [s, c, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0]];
    b.frames.push(FrameDef::new("bind", vec![identity, moved]));
    b.frames.push(FrameDef::new("bent", vec![identity, turned]));
    b.write().unwrap()
}

fn skin_both(bytes: &[u8]) -> (CompactMesh, Streams, Vec<Streams>) {
    // Up to 300 bones (past the default limit of 256), for bones stored as `u16`.
    let limits = Limits {
        max_bones: 300,
        ..Limits::DEFAULT
    };
    let model = Model::from_source(Source::from_bytes(bytes), None, &limits).unwrap();
    let compact = model.compact().unwrap();
    let mut pose = Pose::default();
    model
        .pose(1, 1, 0.0, Interpolation::Nlerp, &mut pose)
        .unwrap();
    let n = model.mesh(0).unwrap().num_vertices();
    let mut exact = zeros(n);
    model.deform(0, &pose, &mut exact.0, &mut exact.1).unwrap();
    let mut matrices = SkinMatrices::default();
    compact.matrices(&pose, &mut matrices).unwrap();
    let got = levels()
        .into_iter()
        .map(|level| {
            let mut got = zeros(n);
            compact
                .skin(0, &matrices, level, &mut got.0, &mut got.1)
                .unwrap();
            got
        })
        .collect();
    (compact.mesh(0).unwrap().clone(), exact, got)
}

#[test]
fn a_vertex_whose_influences_disagree_stays_exact_and_is_counted() {
    // Vertex 0: both influences name the point (3, 1, 0) in frame 0 (bone 1 sits at x = 2).
    // Vertex 1: bone 0 says (3, 1, 0), bone 1 says (2.5, 1, 0): half a unit apart.
    // Vertex 2: a single influence.
    let bytes = two_bone_model(&[
        vec![(0, 0.25, [3.0, 1.0, 0.0]), (1, 0.75, [1.0, 1.0, 0.0])],
        vec![(0, 0.5, [3.0, 1.0, 0.0]), (1, 0.5, [0.5, 1.0, 0.0])],
        vec![(1, 1.0, [0.0, -1.0, 0.0])],
    ]);
    let (compact, exact, got) = skin_both(&bytes);
    assert_eq!(compact.exact_vertices(), 1);
    for got in got {
        // The exact vertex comes from its records: the same arithmetic as the reference, to
        // rounding.
        assert!(
            distance(exact.0[1], got.0[1]) < 1e-6,
            "{:?} {:?}",
            exact.0[1],
            got.0[1]
        );
        assert!(distance(exact.1[1], got.1[1]) < 1e-6);
        let (p, q) = compare(&exact, &got);
        assert!(p <= 5e-5 && q <= 2e-3, "{p:e} {q:e}");
    }
}

#[test]
fn weights_that_sum_past_one_keep_their_sum() {
    // 0.6 + 0.402 = 1.002, as some real DPMs store; renormalised, the vertex at (3, 1, 0)
    // would move by 0.002 · |p| ≈ 0.007, 7e-4 of this model's size.
    let bytes = two_bone_model(&[
        vec![(0, 0.6, [3.0, 1.0, 0.0]), (1, 0.402, [1.0, 1.0, 0.0])],
        vec![(1, 0.999, [0.0, -1.0, 0.0])],
        vec![(0, 1.0, [0.0, 0.0, 0.0])],
    ]);
    let (compact, exact, got) = skin_both(&bytes);
    assert_eq!(compact.exact_vertices(), 0);
    for got in got {
        for (e, g) in exact.0.iter().zip(&got.0) {
            assert!(distance(*e, *g) < 2e-4, "{e:?} {g:?}");
        }
    }
}

#[test]
fn compact_reports_short_outputs_small_palettes_and_missing_reference_bones() {
    let bytes = tube_dpm(&TubeParams::default());
    let m = Dpm::parse(&bytes).unwrap();
    let mesh = m.mesh(0).unwrap();
    let n = mesh.num_vertices();
    let reference = vec![Default::default(); 3];
    assert_eq!(
        CompactMesh::new(&mesh, &reference).unwrap_err(),
        SkinError::Palette { bone: 3, have: 3 }
    );
    let (compact, matrices, _) = tube_case(&bytes);
    let small = SkinMatrices::from_palette(&Palette { world: reference });
    for level in SimdLevel::ALL {
        let (mut p, mut q) = zeros(n);
        assert_eq!(
            compact.skin(&small, level, &mut p, &mut q),
            Err(SkinError::Palette { bone: 3, have: 3 })
        );
        let (mut short, _) = zeros(n - 1);
        assert_eq!(
            compact.skin_par(&matrices, level, &mut short, &mut q),
            Err(SkinError::Output {
                need: n,
                have: n - 1
            })
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]
    /// Random records, most of which do not fold (each influence names its own point): the
    /// exact path and the folded blocks together still give the reference.
    #[test]
    fn compact_agrees_with_scalar_on_random_models(
        vertices in prop::collection::vec(
            prop::collection::vec((0u32..2, 0.05f32..1.0, prop::array::uniform3(-5.0f32..5.0)), 1..=4),
            1..80,
        ),
        fold in prop::collection::vec(any::<bool>(), 80),
    ) {
        // Folding vertices: every influence names the vertex's first point.
        let vertices: Vec<Vec<_>> = vertices
            .into_iter()
            .zip(fold)
            .map(|(v, fold)| {
                let total: f32 = v.iter().map(|i| i.1).sum();
                let p = v[0].2;
                v.iter()
                    .map(|&(bone, w, at)| {
                        let at = if fold && bone == 1 { [p[0] - 2.0, p[1], p[2]] } else if fold { p } else { at };
                        (bone, w / total, at)
                    })
                    .collect()
            })
            .collect();
        let bytes = two_bone_model(&vertices);
        let (_, exact, got) = skin_both(&bytes);
        for got in got {
            let (p, q) = compare(&exact, &got);
            prop_assert!(p <= 1e-4 && q <= 2e-3, "{p:e} {q:e}");
        }
    }
}

/// A vertex: its `(bone, weight)` influences and its point.
type Folding = (Vec<(u32, f32)>, [f32; 3]);

/// A DPM of `bones` bones (each parented to the one before), frame 0 all identity (the
/// reference pose) and frame 1 each bone turned and moved; every influence of a vertex names
/// the vertex's point, so every vertex folds.
fn many_bone_model(bones: u32, vertices: &[Folding]) -> Vec<u8> {
    let mut b = dpm::Builder::default();
    for j in 0..bones {
        b.bones.push(BoneDef::new(format!("b{j}"), j as i32 - 1));
    }
    let mut mesh = MeshDef::default();
    for (influences, at) in vertices {
        let total: f32 = influences.iter().map(|i| i.1).sum();
        mesh.vertices.push(
            influences
                .iter()
                .map(|&(bone, w)| {
                    Influence::weighted(bone % bones, w / total, *at, [0.0, 0.6, 0.8])
                })
                .collect(),
        );
        mesh.texcoords.push([0.0, 0.0]);
    }
    mesh.triangles.push([0, 0, 0]);
    mesh.group_ids.push(0);
    b.meshes.push(mesh);
    let identity = [
        [1.0, 0.0, 0.0, 0.0],
        [0.0, 1.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0],
    ];
    b.frames
        .push(FrameDef::new("reference", vec![identity; bones as usize]));
    let turned = (0..bones)
        .map(|j| {
            let (s, c) = (0.05 * j as f32).sin_cos();
            [[c, -s, 0.0, 0.1], [s, c, 0.0, 0.0], [0.0, 0.0, 1.0, 0.02]]
        })
        .collect();
    b.frames.push(FrameDef::new("turned", turned));
    b.write().unwrap()
}

#[test]
fn every_palette_size_and_bone_width_skins_alike() {
    // 12 bones: one-register look-ups (AVX2: two permutes); 20: two-register ones (AVX2:
    // gathers); 40: two two-register ones; 70: gathers; 300: bones stored as u16. Each
    // block mixes rows of a few bones with rows of many.
    for bones in [12u32, 20, 40, 70, 300] {
        let vertices: Vec<_> = (0..200u32)
            .map(|i| {
                let influences = (0..1 + i % 5)
                    .map(|j| ((i * 7 + j * 13) % bones, 0.2 + (j as f32) * 0.1))
                    .collect();
                let at = [(i % 13) as f32 - 6.0, (i % 7) as f32, 0.5 * (i % 3) as f32];
                (influences, at)
            })
            .collect();
        let bytes = many_bone_model(bones, &vertices);
        let (compact, exact, got) = skin_both(&bytes);
        assert_eq!(compact.exact_vertices(), 0, "{bones} bones");
        let (all, few) = compact.rows();
        assert!(
            few > 0 && few < all,
            "{bones} bones: {few} of {all} rows of few bones"
        );
        for got in got {
            let (p, q) = compare(&exact, &got);
            assert!(p <= 5e-5 && q <= 2e-3, "{bones} bones: {p:e} {q:e}");
        }
    }
}

/// Every mesh of `model` by dual quaternions at frames 0, 1, middle and last: the scalar
/// reference over the records (`skin_dqs` relative to the bind pose) against the compact
/// blend at every level; returns the worst position and normal differences.
fn check_dqs(model: &Model<'_>, name: &str) -> (f32, f32) {
    let compact = model.compact().unwrap();
    let weighted = model.weighted_records().unwrap();
    let records: Vec<Records<'_>> = match &weighted {
        Some(w) => vec![Records::from(w.mesh())],
        None => (0..model.num_meshes())
            .map(|i| model.records(i).unwrap())
            .collect(),
    };
    let (mut bind, mut pose) = (Pose::default(), Pose::default());
    model.pose_bind(&mut bind);
    let mut dual_quats = DualQuatPalette::default();
    let frames = model.num_frames();
    let (mut worst_p, mut worst_n) = (0.0f32, 0.0f32);
    for frame in [0, 1.min(frames - 1), frames / 2, frames - 1] {
        model
            .pose(frame, frame, 0.0, Interpolation::Nlerp, &mut pose)
            .unwrap();
        let d = deltas(pose.record_palette(), bind.record_palette());
        compact.dual_quats(&pose, &mut dual_quats).unwrap();
        for (mesh, r) in records.iter().enumerate() {
            let n = compact.mesh(mesh).unwrap().num_vertices();
            let mut exact = zeros(n);
            r.skin_dqs(bind.record_palette(), &d, &mut exact.0, &mut exact.1)
                .unwrap();
            for level in levels() {
                let mut got = zeros(n);
                compact
                    .skin_dqs(mesh, &dual_quats, level, &mut got.0, &mut got.1)
                    .unwrap();
                let (p, q) = compare(&exact, &got);
                assert!(
                    p <= 1e-4 && q <= 2e-3,
                    "{name} mesh {mesh} frame {frame} {level}: position {p:e}, normal {q:e}"
                );
                (worst_p, worst_n) = (worst_p.max(p), worst_n.max(q));
            }
        }
    }
    (worst_p, worst_n)
}

#[test]
fn compact_dual_quaternions_match_the_scalar_blend_on_every_corpus_dpm_and_ms3d() {
    for path in corpus_files("dpm").into_iter().chain(corpus_files("ms3d")) {
        let bytes = std::fs::read(&path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let model = Model::from_bytes(&bytes).unwrap();
        let (p, q) = check_dqs(&model, &name);
        eprintln!("{name}: dual quaternions, worst position {p:.2e} of the size, normal {q:.2e}");
    }
    for bones in [12u32, 40, 70] {
        let vertices: Vec<_> = (0..100u32)
            .map(|i| {
                let influences = (0..1 + i % 4)
                    .map(|j| ((i * 7 + j * 13) % bones, 0.2 + (j as f32) * 0.1))
                    .collect();
                (influences, [(i % 13) as f32 - 6.0, (i % 7) as f32, 0.5])
            })
            .collect();
        let bytes = many_bone_model(bones, &vertices);
        check_dqs(
            &Model::from_bytes(&bytes).unwrap(),
            &format!("{bones} bones"),
        );
    }
}

/// A model of `bones` bones whose 100 vertices have one influence each.
fn one_influence_model(bones: u32) -> Vec<u8> {
    let vertices: Vec<_> = (0..100u32)
        .map(|i| {
            let at = [(i % 13) as f32 - 6.0, (i % 7) as f32, 0.5];
            (vec![((i * 7) % bones, 1.0)], at)
        })
        .collect();
    many_bone_model(bones, &vertices)
}

/// Blocks whose every vertex has one influence take the bone's dual quaternion as it is (the
/// palette holds it normalised), without the blend: the same positions as the scalar blend,
/// for palettes of every look-up width, the last block's padding lanes included.
#[test]
fn dual_quaternions_of_one_influence_a_vertex_match_the_scalar_blend() {
    for bones in [12u32, 40, 70] {
        let bytes = one_influence_model(bones);
        let model = Model::from_bytes(&bytes).unwrap();
        check_dqs(&model, &format!("{bones} bones, one influence a vertex"));
    }
}

/// The palette normalises what it is given: dual quaternions scaled by 3 skin as the unit
/// ones do at every level (one influence a vertex, where nothing else would normalise them),
/// and one of no length is the identity.
#[test]
fn a_dual_quaternion_palette_normalises_its_bones() {
    let bytes = one_influence_model(12);
    let model = Model::from_bytes(&bytes).unwrap();
    let compact = model.compact().unwrap();
    let mut pose = Pose::default();
    model
        .pose(1, 1, 0.0, Interpolation::Nlerp, &mut pose)
        .unwrap();
    let mut unit = DualQuatPalette::default();
    compact.dual_quats(&pose, &mut unit).unwrap();
    let scale = |d: &DualQuat, s: f32| DualQuat {
        real: d.real * s,
        dual: d.dual * s,
    };
    let mut scaled = DualQuatPalette::default();
    scaled.update(unit.deltas().iter().map(|d| scale(d, 3.0)));
    for (a, b) in unit.deltas().iter().zip(scaled.deltas()) {
        assert!(a.real.abs_diff_eq(b.real, 1e-6) && a.dual.abs_diff_eq(b.dual, 1e-6));
    }
    let n = compact.mesh(0).unwrap().num_vertices();
    for level in levels() {
        let (mut want, mut got) = (zeros(n), zeros(n));
        compact
            .skin_dqs(0, &unit, level, &mut want.0, &mut want.1)
            .unwrap();
        compact
            .skin_dqs(0, &scaled, level, &mut got.0, &mut got.1)
            .unwrap();
        let (p, q) = compare(&want, &got);
        assert!(
            p <= 1e-6 && q <= 1e-6,
            "{level}: position {p:e}, normal {q:e}"
        );
    }
    let zero = DualQuat {
        real: Quat::from_xyzw(0.0, 0.0, 0.0, 0.0),
        dual: Quat::from_xyzw(0.0, 0.0, 0.0, 0.0),
    };
    assert_eq!(
        zero.normalised(),
        DualQuat::from_affine(&Affine3A::IDENTITY)
    );
}

#[test]
fn dual_quaternions_keep_the_exact_path_exact() {
    let bytes = two_bone_model(&[
        vec![(0, 0.25, [3.0, 1.0, 0.0]), (1, 0.75, [1.0, 1.0, 0.0])],
        vec![(0, 0.5, [3.0, 1.0, 0.0]), (1, 0.5, [0.5, 1.0, 0.0])],
        vec![(1, 1.0, [0.0, -1.0, 0.0])],
    ]);
    let model = Model::from_bytes(&bytes).unwrap();
    assert_eq!(model.compact().unwrap().exact_vertices(), 1);
    check_dqs(&model, "two bones");
}

/// One mesh's matrices serve every mesh of the model: this used to fail with
/// `SkinError::Palette` when the first mesh named fewer bones than another (its matrices
/// stopped at its own highest bone), as on the corpus DPMs whose meshes bind different limbs.
#[test]
fn one_meshs_matrices_skin_every_mesh_of_the_model() {
    let mut checked = 0;
    for path in corpus_files("dpm") {
        let bytes = std::fs::read(&path).unwrap();
        let m = Dpm::parse(&bytes).unwrap();
        let (mut pose, mut reference, mut palette) =
            (LocalPose::default(), Palette::default(), Palette::default());
        pose::sample(&m, 0, 0, 0.0, Interpolation::Nlerp, &mut pose);
        reference.build(&m, &pose);
        pose::sample(
            &m,
            m.num_frames() / 2,
            m.num_frames() / 2,
            0.0,
            Interpolation::Nlerp,
            &mut pose,
        );
        palette.build(&m, &pose);
        let compact: Vec<CompactMesh> = m
            .meshes()
            .map(|x| CompactMesh::new(&x, &reference.world).unwrap())
            .collect();
        let (mut matrices, mut dual_quats) = (SkinMatrices::default(), DualQuatPalette::default());
        compact[0].matrices(&palette, &mut matrices);
        compact[0].dual_quats(&palette, &mut dual_quats);
        assert_eq!(matrices.bones(), m.num_bones());
        for c in &compact {
            let mut out = zeros(c.num_vertices());
            c.skin(&matrices, SimdLevel::detect(), &mut out.0, &mut out.1)
                .unwrap();
            c.skin_dqs(&dual_quats, SimdLevel::detect(), &mut out.0, &mut out.1)
                .unwrap();
        }
        checked += usize::from(compact.len() > 1);
    }
    if !corpus_files("dpm").is_empty() {
        assert!(checked > 0, "no corpus DPM with more than one mesh");
    }
}
