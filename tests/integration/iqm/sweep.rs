//! Truncated and mutated IQM files never panic; what validates walks every accessor.

use skelmap::Model;
use skelmap::Parse;
use skelmap::iqm::{self, Iqm};

use crate::support::corpus_next_files;
use crate::support::iqm::demo;

fn walk(bytes: &[u8]) {
    if Iqm::parse(bytes).is_ok() {
        let model = Model::from_bytes(bytes).expect("a valid IQM opens as a model");
        crate::exercise::model(&model);
    }
}

#[test]
fn truncation_never_panics_and_every_cut_fails() {
    let full = iqm::Builder {
        extensions: vec![(b"FTE_MESH".to_vec(), vec![0; 56])],
        comment: b"made by skelmap".to_vec(),
        ..demo()
    }
    .write()
    .unwrap();
    for cut in 0..full.len() {
        assert!(Iqm::parse(&full[..cut]).is_err(), "cut at {cut} accepted");
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 1024, ..Default::default() })]

    #[test]
    fn mutated_iqm_never_panics(edits in proptest::collection::vec((0usize..4096, proptest::prelude::any::<u8>()), 1..8)) {
        let mut bytes = demo().write().unwrap();
        let len = bytes.len();
        for (at, v) in edits {
            bytes[at % len] = v;
        }
        walk(&bytes);
    }
}

#[test]
fn truncated_and_flipped_corpus_iqm_never_panics() {
    for path in corpus_next_files("iqm") {
        let bytes = std::fs::read(&path).unwrap();
        for cut in (0..bytes.len()).step_by((bytes.len() / 256).max(1)) {
            walk(&bytes[..cut]);
        }
        for at in (0..bytes.len()).step_by((bytes.len() / 512).max(1)) {
            let mut flipped = bytes.clone();
            flipped[at] ^= 0xff;
            walk(&flipped);
        }
    }
}

/// A value a field might hold to break a reader: the edges of counts and offsets.
fn edge(len: u32) -> impl proptest::strategy::Strategy<Value = u32> {
    proptest::prop_oneof![
        proptest::prelude::Just(0u32),
        proptest::prelude::Just(1),
        proptest::prelude::Just(124),
        proptest::prelude::Just(len),
        proptest::prelude::Just(len.wrapping_sub(1)),
        proptest::prelude::Just(u32::MAX),
        proptest::prelude::Just(u32::MAX / 12),
        proptest::prelude::Just(0x7fc0_0000), // a NaN as a float
        proptest::prelude::any::<u32>(),
    ]
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 1024, ..Default::default() })]

    /// Whole 32-bit fields (the header's counts and offsets, records' indices, floats) set to
    /// edge values, several at once.
    #[test]
    fn iqm_fields_at_their_edges_never_panic(
        edits in proptest::collection::vec((0usize..1024, edge(2048)), 1..6)
    ) {
        let mut bytes = iqm::Builder {
            extensions: vec![(b"FTE_MESH".to_vec(), vec![0; 56])],
            adjacency: vec![[u32::MAX; 3]; 4],
            ..demo()
        }
        .write()
        .unwrap();
        let words = bytes.len() / 4;
        for (at, v) in edits {
            let at = 4 * (at % words);
            bytes[at..at + 4].copy_from_slice(&v.to_le_bytes());
        }
        walk(&bytes);
    }
}

/// Regression (found by the `iqm` fuzz target): a joint whose bind scale is 5.8e-39 on one
/// axis while its frames scale by 1 used to fail the fuzz harness's check that the prepared
/// kernel agrees with `deform` (5.9e20 against 5.6e-8). Neither path was wrong: the bone's
/// `world · bind⁻¹` magnifies by about 1.7e38, and the prepared path (the inverse bind applied
/// to the vertex first) and `deform` (the product of matrices first) round differently at
/// that magnitude. The check's tolerance now scales with that magnification; the model still
/// opens, poses and deforms without a panic.
#[test]
fn a_joint_scaled_to_nothing_used_to_fail_the_prepared_against_deform_check() {
    let mut b = demo();
    b.joints[0].transform.scale[1] = 5.785_636e-39;
    let bytes = b.write().unwrap();
    let model = Model::from_bytes(&bytes).unwrap();
    crate::exercise::model(&model);
    let seed = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/seeds/iqm/regress-joint-scale-denormal.iqm");
    let seed = std::fs::read(seed).unwrap();
    walk(&seed);
}

/// Regression (found by the `iqm` fuzz target in CI): a stored vertex 3.3e21 units out, bound
/// to bones whose only frame flattens it (the root scaled by 0 on one axis) and whose bind
/// rotations are not exact, came out at -5.1e-19 from `deform` and 10.29 from the prepared
/// kernel. Neither path was wrong: one multiplies the matrices first, the other the inverse
/// bind by the vertex first, and both round at the vertex's magnitude (3.3e21 · 2⁻²⁴ is about
/// 2e14). The harness's tolerance now counts the vertices the paths start from, not only the
/// ones they give; the model still opens, poses and deforms without a panic.
#[test]
fn a_far_vertex_flattened_by_a_zero_scale_used_to_fail_the_prepared_against_deform_check() {
    let mut b = demo();
    b.frames.truncate(1);
    for anim in &mut b.anims {
        (anim.first_frame, anim.num_frames) = (0, 1);
    }
    b.joints[2].transform.translate = [0.0, 5.92, 0.0];
    b.joints[2].transform.rotate = [-1.0, -7.607_528_5e-10, 3.207_496_2e38, 1e26];
    b.frames[0][2] = b.joints[2].transform;
    b.frames[0][0].rotate = [-6.77, 1e10, 1.0, 8.414_737_6e-22];
    b.frames[0][0].scale = [1.0, 0.0, 1.810_810_8];
    b.positions[4] = [1e-27, -3.321_976_4e21, 2.08];
    let bytes = b.write().unwrap();
    let model = Model::from_bytes(&bytes).unwrap();
    // The flattened vertex: small from one path, at rounding of 3.3e21 from the other.
    let mut pose = skelmap::model::Pose::default();
    model
        .pose(0, 0, 0.0, skelmap::pose::Interpolation::Nlerp, &mut pose)
        .unwrap();
    let (mut p, mut n) = (vec![[0.0f32; 3]; 8], vec![[0.0f32; 3]; 8]);
    model.deform(0, &pose, &mut p, &mut n).unwrap();
    assert!(p[4].iter().all(|v| v.abs() < 1e3), "{:?}", p[4]);
    let prepared = model.prepare().unwrap();
    let (mut q, mut m) = (vec![[0.0f32; 3]; 8], vec![[0.0f32; 3]; 8]);
    let (level, order) = (
        skelmap::skin::SimdLevel::detect(),
        skelmap::skin::VertexOrder::Original,
    );
    prepared
        .skin(0, &pose, level, order, &mut q, &mut m)
        .unwrap();
    let rounding = 3.4e21 * f32::EPSILON * 4.0;
    for (a, b) in p[4].iter().zip(&q[4]) {
        assert!((a - b).abs() <= rounding, "{:?} against {:?}", p[4], q[4]);
    }
    crate::exercise::model(&model);
}

/// Regression (found by the `iqm` fuzz target): a vertex whose float blend weights were both
/// subnormal (8.8e-44, on joint 0) was skinned by `deform` through joint 0 and left at its
/// bind position by the prepared kernel. A subnormal weight now counts as zero, as it does
/// as a byte: the vertex is bound wholly to its first blend index, on every path.
#[test]
fn subnormal_blend_weights_count_as_zero_on_every_path() {
    use skelmap::pose::BindPoseMesh;
    let seed = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/seeds/iqm/regress-subnormal-weights.iqm");
    let seed = std::fs::read(seed).unwrap();
    let iqm = skelmap::iqm::Iqm::parse(&seed).unwrap();
    let v1 = (&iqm).bind_vertex(1).unwrap();
    let mut bound = v1.influences.iter().flatten();
    assert_eq!(bound.next(), Some(&(0, 1.0)));
    assert_eq!(bound.next(), None);
    walk(&seed);
}

/// Regression (found by the `iqm` fuzz target): a file with blend arrays but neither joints
/// nor poses, whose indexes (1 and 2) name nothing. Validation leaves such indexes unread, as
/// nothing skins, but `Iqm::blend` offered them, past the bones the harness holds every index
/// to. They are no longer offered; with poses and no joints they are, checked against the
/// poses.
#[test]
fn blend_indexes_that_name_no_bone_are_not_offered() {
    let unbound = iqm::Builder {
        joints: Vec::new(),
        frames: Vec::new(),
        pose_parents: Vec::new(),
        anims: Vec::new(),
        bounds: Vec::new(),
        ..demo()
    };
    let vertices = unbound.positions.len();
    let mut b = unbound.clone();
    b.blend_indexes = vec![[1, 2, 0, 0]; vertices];
    let bytes = b.write().unwrap();
    let model = Iqm::parse(&bytes).unwrap();
    assert_eq!((model.num_joints(), model.num_poses()), (0, 0));
    assert!(!model.has_blend());
    assert!((0..vertices).all(|v| model.blend(v).is_none()));
    walk(&bytes);

    // Poses without joints: the indexes name poses, and are checked and offered.
    let posed = iqm::Builder {
        frames: demo().frames,
        pose_parents: vec![-1, 0, 1],
        ..b
    };
    let bytes = posed.write().unwrap();
    let model = Iqm::parse(&bytes).unwrap();
    assert_eq!((model.num_joints(), model.num_poses()), (0, 3));
    assert!(model.has_blend());
    assert_eq!(model.blend(0).map(|(i, _)| i), Some([1, 2, 0, 0]));
    walk(&bytes);
    let past = iqm::Builder {
        blend_indexes: vec![[3, 0, 0, 0]; vertices],
        ..posed
    };
    let err = Iqm::parse(&past.write().unwrap()).unwrap_err();
    assert!(err.to_string().contains("vertex.blendindexes"), "{err}");

    let seed = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/seeds/iqm/regress-blend-without-bones.iqm");
    let seed = std::fs::read(seed).unwrap();
    let model = Iqm::parse(&seed).unwrap();
    assert_eq!((model.num_joints(), model.num_poses()), (0, 0));
    assert!((0..model.num_vertices()).all(|v| model.blend(v).is_none()));
    walk(&seed);
}
