//! MS3D animation: the rest pose skins to the stored positions, keys bend the joints, and a
//! reused pose resumes sampling to the same poses as a fresh one.

use skelmap::Parse;
use skelmap::ms3d::Ms3d;
use skelmap::pose::{Interpolation, LocalPose};

use crate::support::corpus_dir;
use crate::support::ms3d::{arm, skinned};

#[test]
fn rest_pose_skins_to_the_stored_positions_and_keys_bend_the_tip() {
    let bytes = arm().write().unwrap();
    let m = Ms3d::parse(&bytes).unwrap();
    let rest = skinned(&m, None);
    assert_eq!(rest[2], [0.0, 20.0, 0.0]);
    // At 1 s the tip joint (at y = 10) has turned 90° about Z: (0, 20) → (−10, 10).
    let bent = skinned(&m, Some(1.0));
    assert!(
        (bent[2][0] + 10.0).abs() < 1e-5 && (bent[2][1] - 10.0).abs() < 1e-5,
        "{:?}",
        bent[2]
    );
    assert_eq!(bent[0], [1.0, 0.0, 0.0], "root vertices stay");
    // Halfway: 45°, and past the last key the pose is clamped.
    let half = skinned(&m, Some(0.5));
    let s = core::f32::consts::FRAC_1_SQRT_2 * 10.0;
    assert!(
        (half[2][0] + s).abs() < 1e-4 && (half[2][1] - 10.0 - s).abs() < 1e-4,
        "{:?}",
        half[2]
    );
    assert_eq!(skinned(&m, Some(5.0)), bent);
}

#[test]
fn corpus_rest_pose_reproduces_stored_positions() {
    let Some(dir) = corpus_dir("ms3d") else {
        return;
    };
    for name in [
        "ms3drender_NeHe_Model.ms3d",
        "milkshape3dengine_dwarf1.ms3d",
        "ms3drender_tortoise.ms3d",
    ] {
        let bytes = std::fs::read(dir.join(name)).unwrap();
        let m = Ms3d::parse(&bytes).unwrap();
        let at_rest = skinned(&m, None);
        for (i, p) in at_rest.iter().enumerate() {
            let want = m.position(i).unwrap();
            let err = (0..3).map(|k| (p[k] - want[k]).abs()).fold(0.0, f32::max);
            assert!(
                err < 1e-3 * want.iter().map(|v| v.abs()).fold(1.0, f32::max),
                "{name} vertex {i}: {p:?} vs {want:?}"
            );
        }
        let moved = skinned(&m, Some(0.5));
        assert!(moved.iter().all(|p| p.iter().all(|v| v.is_finite())));
    }
}

/// Poses sampled at `times` with one reused `LocalPose` (which resumes where the previous
/// sample stood) equal those sampled with a fresh one each time (which searches from scratch).
fn resumed_equals_fresh(m: &Ms3d<'_>, times: &[f32], interpolation: Interpolation) {
    let mut reused = LocalPose::default();
    for &t in times {
        m.local_pose_at(t, interpolation, &mut reused);
        let mut fresh = LocalPose::default();
        m.local_pose_at(t, interpolation, &mut fresh);
        assert_eq!(reused.bones, fresh.bones, "t = {t}");
    }
}

#[test]
fn sampling_resumes_forward_backward_and_across_models() {
    // Several keys per track, sampled forward, backward, jumping and outside the keys.
    let mut b = arm();
    let quarter = core::f32::consts::FRAC_PI_2;
    b.joints[1].rotation_keys = (0..8)
        .map(|k| {
            (
                k as f32 * 0.25,
                [0.1 * k as f32, 0.0, quarter * (k % 3) as f32],
            )
        })
        .collect();
    b.joints[1].position_keys = (0..5)
        .map(|k| (k as f32 * 0.4, [k as f32, 0.0, 0.0]))
        .collect();
    let bytes = b.write().unwrap();
    let m = Ms3d::parse(&bytes).unwrap();
    let forward: Vec<f32> = (-4..80).map(|i| i as f32 * 0.03).collect();
    let backward: Vec<f32> = forward.iter().rev().copied().collect();
    let jumps = [1.7, 0.1, 0.1, 1.2, -1.0, 9.0, 0.26, 0.25, 0.24, 1.75];
    for interpolation in [Interpolation::Slerp, Interpolation::Nlerp] {
        resumed_equals_fresh(&m, &forward, interpolation);
        resumed_equals_fresh(&m, &backward, interpolation);
        resumed_equals_fresh(&m, &jumps, interpolation);
    }

    // One pose reused across two models with the same key times and other values: the
    // remembered rotations belong to the first model and must not leak into the second.
    let mut other = b.clone();
    for (_, angles) in &mut other.joints[1].rotation_keys {
        angles[1] = 0.5;
    }
    other.joints[1].rotation = [0.0, 0.3, 0.0];
    let other_bytes = other.write().unwrap();
    let n = Ms3d::parse(&other_bytes).unwrap();
    // And a third with the first's keys and rest rotation but another rest position: keys are
    // remembered composed with the rest transform, so they must be forgotten here too.
    let mut moved = b.clone();
    moved.joints[1].position[2] += 0.25;
    let moved_bytes = moved.write().unwrap();
    let o = Ms3d::parse(&moved_bytes).unwrap();
    let mut shared = LocalPose::default();
    for &t in &forward {
        for (before, after) in [(&m, &n), (&m, &o)] {
            before.local_pose_at(t, Interpolation::Slerp, &mut shared);
            after.local_pose_at(t, Interpolation::Slerp, &mut shared);
            let mut fresh = LocalPose::default();
            after.local_pose_at(t, Interpolation::Slerp, &mut fresh);
            assert_eq!(shared.bones, fresh.bones, "t = {t}");
        }
    }
}

#[test]
fn out_of_order_keys_sample_the_same_whatever_came_before() {
    // Keys out of time order (a warning, not an error): a sample must not depend on the
    // samples before it.
    let mut b = arm();
    b.joints[1].rotation_keys = vec![
        (0.0, [0.0; 3]),
        (1.0, [0.0, 0.0, 1.0]),
        (0.5, [0.0, 1.0, 0.0]),
        (2.0, [1.0, 0.0, 0.0]),
    ];
    let bytes = b.write().unwrap();
    let m = Ms3d::parse(&bytes).unwrap();
    let times: Vec<f32> = (0..50).map(|i| i as f32 * 0.05).collect();
    let shuffled: Vec<f32> = (0..50).map(|i| ((i * 17) % 50) as f32 * 0.05).collect();
    resumed_equals_fresh(&m, &times, Interpolation::Slerp);
    resumed_equals_fresh(&m, &shuffled, Interpolation::Slerp);
}

#[test]
fn corpus_sampling_resumes_to_the_same_poses() {
    for path in crate::support::corpus_files("ms3d") {
        let bytes = std::fs::read(&path).unwrap();
        let m = Ms3d::parse(&bytes).unwrap();
        let fps = m.fps();
        let forward: Vec<f32> = (0..m.num_frames() * 2)
            .map(|f| (f as f32 * 0.5 + 1.0) / fps)
            .collect();
        let shuffled: Vec<f32> = (0..forward.len())
            .map(|i| forward[(i * 7919) % forward.len()])
            .collect();
        for interpolation in [Interpolation::Slerp, Interpolation::Nlerp] {
            resumed_equals_fresh(&m, &forward, interpolation);
            resumed_equals_fresh(&m, &shuffled, interpolation);
        }
        eprintln!("{}: {} samples", path.display(), 4 * forward.len());
    }
}
