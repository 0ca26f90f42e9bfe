//! The compact kernel (`CompactMesh`, `Model::compact`): within 10⁻⁴ of the model's size of
//! the exact kernels on every corpus DPM, its SKM conversion and every corpus MS3D at frames
//! 0, 1, middle and last; every level alike; the exact path for vertices that do not fold;
//! stored weight sums kept; its errors.

use proptest::prelude::*;
use skelmap::Parse;
use skelmap::dpm::Dpm;
use skelmap::model::Pose;
use skelmap::pose::{self, Interpolation, LocalPose, Palette};
use skelmap::skin::dqs::DualQuatPalette;
use skelmap::skin::{
    CHUNK_VERTICES, CompactMesh, PreparedMesh, SimdLevel, SkinError, SkinMatrices, SkinnedVertex,
    VertexOrder,
};
use skelmap::skm::convert;
use skelmap::synth::TubeParams;
use skelmap::{Diagnostics, Limits, Model, SkeletalMesh, Source};

use crate::support::{Streams, corpus_files, levels, zeros};

use super::{
    compare, distance, many_bone_model, many_bone_records, skin_both, tube_case, tube_dpm,
    two_bone_model,
};

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
                    .skin_par(
                        &matrices,
                        level,
                        VertexOrder::Original,
                        &mut split.0,
                        &mut split.1,
                    )
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
            .skin(
                &matrices,
                level,
                VertexOrder::Original,
                &mut got.0,
                &mut got.1,
            )
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
            .skin_vertices(&matrices, level, VertexOrder::Original, &mut interleaved)
            .unwrap();
        assert!(
            interleaved
                .iter()
                .zip(got.0.iter().zip(&got.1))
                .all(|(v, (&p, &q))| v.position == p && v.normal == q)
        );
    }
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
            compact.skin(&small, level, VertexOrder::Original, &mut p, &mut q),
            Err(SkinError::Palette { bone: 3, have: 3 })
        );
        let (mut short, _) = zeros(n - 1);
        assert_eq!(
            compact.skin_par(&matrices, level, VertexOrder::Original, &mut short, &mut q),
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

#[test]
fn every_palette_size_and_bone_width_skins_alike() {
    // 12 bones: one-register look-ups (AVX2: two permutes); 20: two-register ones (AVX2:
    // gathers); 40: two two-register ones; 70: gathers; 300: bones stored as u16. The first
    // block's rows name many bones, the others' rows few (so few that grouping the vertices
    // by bones would not pay, and the file order stays).
    for bones in [12u32, 20, 40, 70, 300] {
        let vertices: Vec<_> = (0..200u32)
            .map(|i| {
                let set = if i < 16 { i } else { i / 16 * 16 };
                let influences = (0..1 + i % 5)
                    .map(|j| ((set * 7 + j * 13) % bones, 0.2 + (j as f32) * 0.1))
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

/// A character whose vertices a vertex-cache order interleaved (no 16 neighbours share
/// their bones: every row of the file order looks bones up lane by lane) is laid out grouped
/// by bones, every row then naming a few, and skins as the exact kernels do at every level,
/// sequential and split (at 67 200 vertices: 17 runs of `CHUNK_VERTICES` over two threads).
/// Golem, whose file order leaves 33 of 1 428 rows to look up, keeps its file order.
#[test]
fn a_character_in_vertex_cache_order_is_grouped_by_bones_and_skins_exactly() {
    for (sides, rows) in [(19, 760), (420, 16_800)] {
        let character = skelmap::synth::iqm_character(&skelmap::synth::CharacterParams {
            sides,
            ..Default::default()
        });
        let bytes = character.model.write().unwrap();
        let model = Model::from_bytes(&bytes).unwrap();
        let compact = model.compact().unwrap();
        assert_eq!(
            compact.mesh(0).unwrap().rows(),
            (rows, rows),
            "{sides} sides"
        );
        let (p, q, exact) = check_model(&model, &format!("character of {sides} sides"));
        eprintln!("character of {sides} sides: position {p:.2e} of the size, normal {q:.2e}");
        assert_eq!(exact, 0);
    }
    if let Some(path) = corpus_files("dpm")
        .into_iter()
        .find(|p| p.ends_with("xon_monsters_golem.dpm"))
    {
        let bytes = std::fs::read(path).unwrap();
        let model = Model::from_bytes(&bytes).unwrap();
        let compact = model.compact().unwrap();
        assert_eq!(compact.mesh(0).unwrap().rows(), (1428, 1395));
    }
}

/// A DPM of 80 bones whose 600 vertices each bind one of 20 limbs' four bones, the limbs
/// shuffled through the file (so the layout groups vertices by bones), every 37th vertex's
/// influences naming points half a unit apart (so it stays on the exact path).
fn shuffled_limbs(n: u32) -> Vec<u8> {
    let vertices: Vec<Vec<(u32, f32, [f32; 3])>> = (0..n)
        .map(|v| {
            let limb = v.wrapping_mul(2_654_435_761) >> 7 & 0xFFFF;
            let limb = limb % 20;
            let at = [(v % 7) as f32, (v % 11) as f32 * 0.3, (v % 5) as f32];
            let apart = if v % 37 == 0 { 0.5 } else { 0.0 };
            [0.4, 0.3, 0.2, 0.1]
                .into_iter()
                .enumerate()
                .map(|(j, w)| {
                    let at = [at[0] + apart * j as f32, at[1], at[2]];
                    (4 * limb + j as u32, w, at)
                })
                .collect()
        })
        .collect();
    many_bone_records(80, &vertices)
}

/// Asserts that `prepared` holds at position `i` what `original` holds at `order[i]`, bit
/// for bit.
fn assert_moved(order: &[u32], original: &Streams, prepared: &Streams, what: &str) {
    let bits = |v: [f32; 3]| v.map(f32::to_bits);
    for (at, &vertex) in order.iter().enumerate() {
        let v = vertex as usize;
        assert_eq!(bits(prepared.0[at]), bits(original.0[v]), "{what}: {at}");
        assert_eq!(bits(prepared.1[at]), bits(original.1[v]), "{what}: {at}");
    }
}

/// `VertexOrder::Prepared` writes each vertex where `prepared_order` puts it, with the values
/// `VertexOrder::Original` writes for it, bit for bit, through every entry point at every
/// level, and `remap_triangles` indexes them so: on a character grouped by bones, on DPMs
/// grouped by bones with vertices on the exact path (the larger over three runs of
/// `CHUNK_VERTICES`, its last block short, and skinning as the exact kernels do), and on the
/// tube, which keeps file order (then both orders are one).
#[test]
fn prepared_order_writes_each_vertex_where_prepared_order_says() {
    let character = skelmap::synth::iqm_character(&Default::default())
        .model
        .write()
        .unwrap();
    let limbs = shuffled_limbs(600);
    let runs = shuffled_limbs(2 * CHUNK_VERTICES as u32 + 809);
    let tube = tube_dpm(&TubeParams::default());
    for (name, bytes, grouped, exact) in [
        ("character", &character[..], true, 0),
        ("shuffled limbs", &limbs[..], true, 17),
        ("shuffled limbs over three runs", &runs[..], true, 244),
        ("tube", &tube[..], false, 0),
    ] {
        let model = Model::from_bytes(bytes).unwrap();
        let compact = model.compact().unwrap();
        let mesh = compact.mesh(0).unwrap();
        let n = mesh.num_vertices();
        let order = mesh.prepared_order();
        assert_eq!(mesh.exact_vertices(), exact, "{name}");
        // A permutation, each vertex moved within its run of `CHUNK_VERTICES`.
        let mut seen = vec![false; n];
        for (at, &v) in order.iter().enumerate() {
            assert!(
                !std::mem::replace(&mut seen[v as usize], true),
                "{name}: {v}"
            );
            assert_eq!(at / CHUNK_VERTICES, v as usize / CHUNK_VERTICES);
        }
        let moved = order.iter().enumerate().any(|(at, &v)| at != v as usize);
        assert_eq!(moved, grouped, "{name}");
        if name.ends_with("runs") {
            let (p, q, on_exact_path) = check_model(&model, name);
            assert_eq!(on_exact_path, exact, "{name}: {p:e} {q:e}");
        }
        let (mut pose, mut matrices) = (Pose::default(), SkinMatrices::default());
        model
            .pose(1, 1, 0.0, Interpolation::Nlerp, &mut pose)
            .unwrap();
        compact.matrices(&pose, &mut matrices).unwrap();
        // The character's keys scale: no dual quaternions for it.
        let mut dual_quats = DualQuatPalette::default();
        let dual = compact.dual_quats(&pose, &mut dual_quats).is_ok();
        assert_eq!(dual, name != "character");
        let triangles: Vec<[u32; 3]> = model.mesh(0).unwrap().triangles().collect();
        let remapped = mesh.remap_triangles(triangles.iter().copied());
        for level in levels() {
            let what = |call: &str| format!("{name} {level} {call}");
            let both = |f: &dyn Fn(VertexOrder, &mut Streams)| {
                let (mut original, mut prepared) = (zeros(n), zeros(n));
                f(VertexOrder::Original, &mut original);
                f(VertexOrder::Prepared, &mut prepared);
                (original, prepared)
            };
            let (original, prepared) = both(&|o, out| {
                mesh.skin(&matrices, level, o, &mut out.0, &mut out.1)
                    .unwrap()
            });
            assert_moved(&order, &original, &prepared, &what("skin"));
            for (t, r) in triangles.iter().zip(&remapped) {
                let corners = |s: &Streams, t: &[u32; 3]| t.map(|i| s.0[i as usize]);
                assert_eq!(corners(&prepared, r), corners(&original, t), "{name} {t:?}");
            }
            let (original, prepared) = both(&|o, out| {
                let (p, q) = (&mut out.0, &mut out.1);
                mesh.skin_par(&matrices, level, o, p, q).unwrap();
            });
            assert_moved(&order, &original, &prepared, &what("skin_par"));
            for parallel in [false, true] {
                let (original, prepared) = both(&|o, out| {
                    let mut v = vec![SkinnedVertex::default(); n];
                    if parallel {
                        mesh.skin_vertices_par(&matrices, level, o, &mut v).unwrap();
                    } else {
                        mesh.skin_vertices(&matrices, level, o, &mut v).unwrap();
                    }
                    *out = (
                        v.iter().map(|v| v.position).collect(),
                        v.iter().map(|v| v.normal).collect(),
                    );
                });
                let call = format!("skin_vertices, parallel {parallel}");
                assert_moved(&order, &original, &prepared, &what(&call));
            }
            if dual {
                let (original, prepared) = both(&|o, out| {
                    let (p, q) = (&mut out.0, &mut out.1);
                    mesh.skin_dqs(&dual_quats, level, o, p, q).unwrap();
                });
                assert_moved(&order, &original, &prepared, &what("skin_dqs"));
                let (original, prepared) = both(&|o, out| {
                    let (p, q) = (&mut out.0, &mut out.1);
                    mesh.skin_dqs_par(&dual_quats, level, o, p, q).unwrap();
                });
                assert_moved(&order, &original, &prepared, &what("skin_dqs_par"));
            }
        }
    }
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
            c.skin(
                &matrices,
                SimdLevel::detect(),
                VertexOrder::Original,
                &mut out.0,
                &mut out.1,
            )
            .unwrap();
            c.skin_dqs(
                &dual_quats,
                SimdLevel::detect(),
                VertexOrder::Original,
                &mut out.0,
                &mut out.1,
            )
            .unwrap();
        }
        checked += usize::from(compact.len() > 1);
    }
    if !corpus_files("dpm").is_empty() {
        assert!(checked > 0, "no corpus DPM with more than one mesh");
    }
}
