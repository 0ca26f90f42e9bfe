//! The compact kernel's dual-quaternion blend against the scalar one over the records: every
//! corpus DPM and MS3D, palettes of every look-up width, one influence a vertex, the exact path.

use skelmap::Model;
use skelmap::glam::{Affine3A, Quat};
use skelmap::model::Pose;
use skelmap::model::Records;
use skelmap::pose::Interpolation;
use skelmap::skin::dqs::{DualQuat, DualQuatPalette, deltas};

use crate::support::{corpus_files, levels, zeros};

use super::{compare, many_bone_model, two_bone_model};

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

/// The character laid out grouped by bones (see `compact.rs`), without scale keys, by dual
/// quaternions: each vertex written where it belongs.
#[test]
fn compact_dual_quaternions_match_the_scalar_blend_on_a_grouped_character() {
    let character = skelmap::synth::iqm_character(&skelmap::synth::CharacterParams {
        scaled_joints: 0,
        ..Default::default()
    });
    let bytes = character.model.write().unwrap();
    let (p, q) = check_dqs(&Model::from_bytes(&bytes).unwrap(), "character");
    eprintln!("character: dual quaternions, worst position {p:.2e} of the size, normal {q:.2e}");
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
