//! Procedural control (`LocalPose::set_bone`, `mul_bone`, `mul_bones` and their model-space
//! forms) and the ranged palette rebuild (`Palette::build_from`), each checked against a
//! full `Palette::build` of the changed pose or against transforms composed by hand.

use skelmap::Parse;
use skelmap::dpm::Dpm;
use skelmap::glam::{Affine3A, Quat, Vec3, Vec3A};
use skelmap::ms3d::{self, Ms3d};
use skelmap::pose::{ControlError, Interpolation, LocalPose, Palette, Root, Skeleton, sample};
use skelmap::synth::{TubeParams, tube};
use skelmap::write::BoneDef;

/// A six-bone DPM with two branches: 0 → 1 → 2 → 5 and 0 → 3 → 4.
fn branching() -> Vec<u8> {
    let mut builder = tube(&TubeParams {
        bones: 6,
        frames: 2,
        ..TubeParams::default()
    });
    for (bone, parent) in [(1, 0), (2, 1), (3, 0), (4, 3), (5, 2)] {
        builder.bones[bone] = BoneDef::new(format!("b{bone}"), parent);
    }
    builder.write().unwrap()
}

/// A pose of the model's frame 1 and its full palette.
fn posed(model: &Dpm<'_>) -> (LocalPose, Palette) {
    let mut pose = LocalPose::default();
    sample(model, 1, 1, 0.0, Interpolation::Nlerp, &mut pose);
    let mut palette = Palette::default();
    palette.build(model, &pose);
    (pose, palette)
}

fn full<'data>(skeleton: &impl Skeleton<'data>, pose: &LocalPose) -> Palette {
    let mut palette = Palette::default();
    palette.build(skeleton, pose);
    palette
}

#[test]
fn build_from_rebuilds_the_subtree_and_nothing_else() {
    let bytes = branching();
    let model = Dpm::parse(&bytes).unwrap();
    let (mut pose, mut palette) = posed(&model);
    pose.bones[1].0 = Quat::from_rotation_x(0.7) * pose.bones[1].0;
    // A marker in every bone outside 1's sub-tree shows it was not written.
    let marker = Affine3A::from_translation(Vec3::splat(99.0));
    for bone in [0, 3, 4] {
        palette.world[bone] = marker;
    }
    palette.build_from(&model, &pose, 1, Root::Rebuilt);
    let expected = {
        // The sub-tree rebuilt on the marker standing for bone 0.
        let mut p = full(&model, &pose);
        let w1 = marker * pose.bone_matrix(1);
        let w2 = w1 * pose.bone_matrix(2);
        p.world[1] = w1;
        p.world[2] = w2;
        p.world[5] = w2 * pose.bone_matrix(5);
        for bone in [0, 3, 4] {
            p.world[bone] = marker;
        }
        p
    };
    for (bone, (got, want)) in palette.world.iter().zip(&expected.world).enumerate() {
        assert!(
            got.abs_diff_eq(*want, 1e-5),
            "bone {bone}: {got:?} vs {want:?}"
        );
    }
}

/// ozz's `to` bound: bone 1's sub-tree rebuilt up to bone 2 only; bone 5, in the sub-tree
/// but past `to`, keeps its marker, as the bones outside do; `to` below `from` changes
/// nothing.
#[test]
fn build_between_stops_after_to() {
    let bytes = branching();
    let model = Dpm::parse(&bytes).unwrap();
    let (mut pose, mut palette) = posed(&model);
    pose.bones[1].0 = Quat::from_rotation_x(0.7) * pose.bones[1].0;
    let marker = Affine3A::from_translation(Vec3::splat(99.0));
    for bone in [0, 3, 4, 5] {
        palette.world[bone] = marker;
    }
    let untouched = palette.clone();
    palette.build_between(&model, &pose, 2, 1, Root::Rebuilt);
    assert_eq!(palette, untouched);
    palette.build_between(&model, &pose, 1, 2, Root::Rebuilt);
    let w1 = marker * pose.bone_matrix(1);
    let w2 = w1 * pose.bone_matrix(2);
    for (bone, want) in [
        (0, marker),
        (1, w1),
        (2, w2),
        (3, marker),
        (4, marker),
        (5, marker),
    ] {
        assert!(
            palette.world[bone].abs_diff_eq(want, 1e-5),
            "bone {bone}: {:?} vs {want:?}",
            palette.world[bone]
        );
    }
}

#[test]
fn build_from_equals_a_full_build_of_the_changed_pose() {
    let bytes = branching();
    let model = Dpm::parse(&bytes).unwrap();
    for from in 0..6 {
        let (mut pose, mut palette) = posed(&model);
        pose.bones[from].0 = Quat::from_rotation_y(0.4) * pose.bones[from].0;
        pose.bones[from].1 += Vec3A::new(0.5, -0.25, 1.0);
        palette.build_from(&model, &pose, from, Root::Rebuilt);
        assert_eq!(palette, full(&model, &pose), "from bone {from}");
    }
}

#[test]
fn root_kept_keeps_the_world_transform_set_and_rebuilds_below_it() {
    let bytes = branching();
    let model = Dpm::parse(&bytes).unwrap();
    let (pose, mut palette) = posed(&model);
    let before = palette.clone();
    let set =
        Affine3A::from_rotation_translation(Quat::from_rotation_z(1.0), Vec3::new(1.0, 2.0, 3.0));
    palette.world[2] = set;
    palette.build_from(&model, &pose, 2, Root::Kept);
    assert_eq!(palette.world[2], set);
    assert!(palette.world[5].abs_diff_eq(set * pose.bone_matrix(5), 1e-6));
    for bone in [0, 1, 3, 4] {
        assert_eq!(palette.world[bone], before.world[bone], "bone {bone}");
    }
}

#[test]
fn build_from_out_of_range_or_on_a_short_palette_changes_nothing() {
    let bytes = branching();
    let model = Dpm::parse(&bytes).unwrap();
    let (pose, mut palette) = posed(&model);
    let before = palette.clone();
    palette.build_from(&model, &pose, 6, Root::Rebuilt);
    assert_eq!(palette, before);
    let mut short = Palette {
        world: before.world[..3].to_vec(),
    };
    short.build_from(&model, &pose, 0, Root::Rebuilt);
    assert_eq!(short.world, before.world[..3]);
}

/// MS3D lists joints in any order: here the child `b` (index 0) precedes its parent `a`
/// (index 1), and `c` (index 2) hangs from `b`.
#[test]
fn build_from_follows_the_hierarchy_order_of_ms3d() {
    let joint = |name: &str, parent: &str, x: f32| ms3d::JointDef {
        name: name.into(),
        parent: parent.into(),
        position: [x, 0.0, 0.0],
        ..ms3d::JointDef::default()
    };
    let bytes = ms3d::Builder {
        joints: vec![
            joint("b", "a", 1.0),
            joint("a", "", 2.0),
            joint("c", "b", 3.0),
        ],
        ..ms3d::Builder::default()
    }
    .write()
    .unwrap();
    let model = Ms3d::parse(&bytes).unwrap();
    let mut pose = LocalPose::default();
    sample(&model, 0, 0, 0.0, Interpolation::Nlerp, &mut pose);
    let mut palette = full(&model, &pose);
    assert!(
        palette.world[2]
            .translation
            .abs_diff_eq(Vec3A::new(6.0, 0.0, 0.0), 1e-6)
    );
    pose.set_bone(1, Affine3A::from_translation(Vec3::new(0.0, 10.0, 0.0)))
        .unwrap();
    // Bone 1 (`a`) is the root; its descendants have indices 0 and 2.
    palette.build_from(&model, &pose, 1, Root::Rebuilt);
    assert_eq!(palette, full(&model, &pose));
    assert!(
        palette.world[2]
            .translation
            .abs_diff_eq(Vec3A::new(4.0, 10.0, 0.0), 1e-6)
    );
}

#[test]
fn mul_bone_applies_the_transform_in_the_parent_space() {
    let mut pose = LocalPose::default();
    let (q, t) = (Quat::from_rotation_x(0.3), Vec3A::new(1.0, 2.0, 3.0));
    pose.bones = vec![(q, t); 3];
    let m =
        Affine3A::from_rotation_translation(Quat::from_rotation_z(0.5), Vec3::new(0.0, 0.0, 4.0));
    pose.mul_bone(1, m).unwrap();
    // By hand: m · (q, t) = (q_m·q, q_m·t + t_m).
    let qm = Quat::from_rotation_z(0.5);
    assert!(pose.bones[1].0.abs_diff_eq(qm * q, 1e-6));
    assert!(
        pose.bones[1]
            .1
            .abs_diff_eq(qm * t + Vec3A::new(0.0, 0.0, 4.0), 1e-5)
    );
    assert_eq!(pose.bones[0], (q, t));
    assert_eq!(pose.bones[2], (q, t));
    assert!(pose.scales.is_empty());
}

#[test]
fn mul_bones_clamps_its_range_to_the_pose() {
    let mut pose = LocalPose::default();
    pose.bones = vec![(Quat::IDENTITY, Vec3A::ZERO); 4];
    let m = Affine3A::from_translation(Vec3::X);
    pose.mul_bones(2, 10, m).unwrap();
    let xs: Vec<f32> = pose.bones.iter().map(|b| b.1.x).collect();
    assert_eq!(xs, [0.0, 0.0, 1.0, 1.0]);
    pose.mul_bones(3, 1, m).unwrap();
    assert_eq!(pose.bones[3].1.x, 1.0);
}

#[test]
fn a_scaling_transform_gives_the_pose_scales() {
    let mut pose = LocalPose::default();
    pose.bones = vec![(Quat::IDENTITY, Vec3A::ZERO); 3];
    pose.set_bone(1, Affine3A::from_scale(Vec3::new(2.0, 3.0, 4.0)))
        .unwrap();
    assert_eq!(pose.scales.len(), 3);
    assert!(pose.scales[1].abs_diff_eq(Vec3A::new(2.0, 3.0, 4.0), 1e-6));
    assert_eq!(pose.scales[0], Vec3A::ONE);
    assert!(
        pose.bone_matrix(1)
            .abs_diff_eq(Affine3A::from_scale(Vec3::new(2.0, 3.0, 4.0)), 1e-6)
    );
}

#[test]
fn model_space_set_and_mul_reach_the_world_transform_asked_for() {
    let bytes = branching();
    let model = Dpm::parse(&bytes).unwrap();
    let (mut pose, mut palette) = posed(&model);
    let world =
        Affine3A::from_rotation_translation(Quat::from_rotation_y(0.9), Vec3::new(3.0, -1.0, 2.0));
    pose.set_bone_model(&model, &palette, 4, world).unwrap();
    palette.build_from(&model, &pose, 4, Root::Rebuilt);
    assert!(palette.world[4].abs_diff_eq(world, 1e-5));

    let before = palette.world[2];
    let turn = Affine3A::from_quat(Quat::from_rotation_z(0.25));
    pose.mul_bone_model(&model, &palette, 2, turn).unwrap();
    palette.build_from(&model, &pose, 2, Root::Rebuilt);
    assert!(palette.world[2].abs_diff_eq(turn * before, 1e-5));
    assert_eq!(palette, full(&model, &pose));
}

#[test]
fn refused_changes_name_the_bone_and_leave_the_pose() {
    let mut pose = LocalPose::default();
    pose.bones = vec![(Quat::IDENTITY, Vec3A::ZERO); 2];
    let before = pose.clone();
    assert_eq!(
        pose.set_bone(2, Affine3A::IDENTITY),
        Err(ControlError::NoBone { bone: 2, bones: 2 })
    );
    assert_eq!(
        pose.mul_bone(1, Affine3A::from_translation(Vec3::new(f32::NAN, 0.0, 0.0))),
        Err(ControlError::NotFinite { bone: 1 })
    );
    assert_eq!(
        pose.mul_bones(0, 1, Affine3A::from_scale(Vec3::splat(f32::INFINITY))),
        Err(ControlError::NotFinite { bone: 0 })
    );
    assert_eq!(pose, before);
    let bytes = branching();
    let model = Dpm::parse(&bytes).unwrap();
    let palette = Palette::default();
    let mut pose6 = LocalPose::default();
    pose6.bones = vec![(Quat::IDENTITY, Vec3A::ZERO); 6];
    assert_eq!(
        pose6.set_bone_model(&model, &palette, 1, Affine3A::IDENTITY),
        Err(ControlError::NoBone { bone: 1, bones: 0 })
    );
}
