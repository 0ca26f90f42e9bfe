//! `TwoBoneIk` and `AimIk`: corrections applied to hand-built chains, the resulting joint
//! positions checked against geometry computed in the test (bone lengths kept, the end on the
//! target or on the line to it, the softened distance from ozz's published curve
//! `soft · 3⁴ / (α + 3)⁴`, the weight as an nlerp from the identity).

use skelmap::glam::{Affine3A, Quat, Vec3, Vec3A};
use skelmap::pose::{AimIk, Interpolation, LocalPose, Palette, Root, TwoBoneIk, sample};

/// A straight chain along x in model space: start at 0, middle at 1, end at 2 (each joint's
/// frame is the identity rotation).
fn arm() -> [Affine3A; 3] {
    [
        Affine3A::IDENTITY,
        Affine3A::from_translation(Vec3::X),
        Affine3A::from_translation(Vec3::X * 2.0),
    ]
}

/// An arm already bent 90° at the elbow, towards +y (so that it bends about +z).
fn bent_arm() -> [Affine3A; 3] {
    let elbow = Affine3A::from_rotation_translation(
        Quat::from_rotation_z(std::f32::consts::FRAC_PI_2),
        Vec3::X,
    );
    [
        Affine3A::IDENTITY,
        elbow,
        elbow * Affine3A::from_translation(Vec3::X),
    ]
}

/// The chain's model-space positions after the corrections: each joint's local transform
/// turned after its own rotation, then concatenated again.
fn corrected(chain: &[Affine3A; 3], start: Quat, mid: Quat) -> [Vec3A; 3] {
    let [s, m, e] = *chain;
    let s2 = s * Affine3A::from_quat(start);
    let m2 = s2 * (s.inverse() * m) * Affine3A::from_quat(mid);
    let e2 = m2 * (m.inverse() * e);
    [s2.translation, m2.translation, e2.translation]
}

fn lengths_kept(p: &[Vec3A; 3]) {
    assert!((p[0].distance(p[1]) - 1.0).abs() < 1e-5, "{p:?}");
    assert!((p[1].distance(p[2]) - 1.0).abs() < 1e-5, "{p:?}");
}

#[test]
fn a_reachable_target_is_reached_with_the_bones_kept() {
    for chain in [arm(), bent_arm()] {
        for target in [
            Vec3A::new(1.0, 1.0, 0.0),
            Vec3A::new(0.5, 0.3, -1.2),
            Vec3A::new(-1.0, 0.2, 0.5),
        ] {
            let ik = TwoBoneIk {
                target,
                ..TwoBoneIk::default()
            };
            let c = ik.solve(&chain[0], &chain[1], &chain[2]);
            assert!(c.reached, "{target}");
            let p = corrected(&chain, c.start, c.mid);
            lengths_kept(&p);
            assert!(p[2].abs_diff_eq(target, 1e-5), "{target}: {p:?}");
        }
    }
}

#[test]
fn an_unreachable_target_straightens_the_chain_towards_it() {
    let chain = bent_arm();
    for target in [
        Vec3A::new(5.0, 0.0, 0.0),
        Vec3A::new(0.0, 3.0, 0.0),
        Vec3A::new(-2.0, -2.0, 1.0),
    ] {
        let ik = TwoBoneIk {
            target,
            ..TwoBoneIk::default()
        };
        let c = ik.solve(&chain[0], &chain[1], &chain[2]);
        assert!(!c.reached);
        let p = corrected(&chain, c.start, c.mid);
        lengths_kept(&p);
        // Fully stretched (length 2) along the line to the target.
        assert!(
            p[2].abs_diff_eq(target.normalize() * 2.0, 1e-5),
            "{target}: {p:?}"
        );
    }
}

#[test]
fn a_target_closer_than_the_bones_difference_is_not_reached() {
    // Bones of length 1 and 0.5: nothing nearer than 0.5 to the start can be reached.
    let chain = [
        Affine3A::IDENTITY,
        Affine3A::from_translation(Vec3::X),
        Affine3A::from_translation(Vec3::X * 1.5),
    ];
    let ik = TwoBoneIk {
        target: Vec3A::new(0.25, 0.0, 0.0),
        ..TwoBoneIk::default()
    };
    let c = ik.solve(&chain[0], &chain[1], &chain[2]);
    assert!(!c.reached);
    assert!(c.start.is_finite() && c.mid.is_finite());
}

/// With `soften = 0.5` the chain of length 2 lags a target beyond 1: at distance `d` the end
/// stands at `1 + 1 − 3⁴ / (d − 1 + 3)⁴` from the start, on the line to the target.
#[test]
fn soften_makes_the_end_lag_a_receding_target() {
    let chain = bent_arm();
    for d in [1.2_f32, 1.5, 1.9, 2.5, 4.0] {
        let direction = Vec3A::new(0.6, 0.8, 0.0);
        let ik = TwoBoneIk {
            target: direction * d,
            soften: 0.5,
            ..TwoBoneIk::default()
        };
        let c = ik.solve(&chain[0], &chain[1], &chain[2]);
        assert!(!c.reached, "{d}");
        let p = corrected(&chain, c.start, c.mid);
        lengths_kept(&p);
        let expected = 2.0 - 81.0 / (d - 1.0 + 3.0).powi(4);
        assert!(
            p[2].abs_diff_eq(direction * expected, 1e-5),
            "{d}: {p:?} vs {expected}"
        );
    }
    // Below the softening distance the target is reached.
    let ik = TwoBoneIk {
        target: Vec3A::new(0.9, 0.0, 0.0),
        soften: 0.5,
        ..TwoBoneIk::default()
    };
    let c = ik.solve(&chain[0], &chain[1], &chain[2]);
    assert!(c.reached);
    assert!(corrected(&chain, c.start, c.mid)[2].abs_diff_eq(ik.target, 1e-5));
}

#[test]
fn weight_blends_from_no_correction_to_the_full_one() {
    let chain = bent_arm();
    let full = TwoBoneIk {
        target: Vec3A::new(0.2, 1.1, 0.7),
        ..TwoBoneIk::default()
    };
    let c1 = full.solve(&chain[0], &chain[1], &chain[2]);
    let c0 = TwoBoneIk {
        weight: 0.0,
        ..full
    }
    .solve(&chain[0], &chain[1], &chain[2]);
    assert_eq!(
        (c0.start, c0.mid, c0.reached),
        (Quat::IDENTITY, Quat::IDENTITY, false)
    );
    let c_nan = TwoBoneIk {
        weight: f32::NAN,
        ..full
    }
    .solve(&chain[0], &chain[1], &chain[2]);
    assert_eq!((c_nan.start, c_nan.mid), (Quat::IDENTITY, Quat::IDENTITY));
    let half = TwoBoneIk {
        weight: 0.5,
        ..full
    }
    .solve(&chain[0], &chain[1], &chain[2]);
    assert!(!half.reached);
    // nlerp(identity, q, ½) = normalise(identity + q), q on the w ≥ 0 side.
    let expected = |q: Quat| {
        let q = if q.w < 0.0 { -q } else { q };
        Quat::from_xyzw(q.x * 0.5, q.y * 0.5, q.z * 0.5, 0.5 + q.w * 0.5).normalize()
    };
    assert!(half.start.abs_diff_eq(expected(c1.start), 1e-6));
    assert!(half.mid.abs_diff_eq(expected(c1.mid), 1e-6));
}

/// The pole decides which side the middle joint swings to: with the target straight ahead
/// along x, the elbow ends on the pole's side of the x axis.
#[test]
fn the_pole_vector_picks_the_elbow_side() {
    let chain = bent_arm();
    for pole in [Vec3A::Y, -Vec3A::Y, Vec3A::Z, -Vec3A::Z] {
        let ik = TwoBoneIk {
            target: Vec3A::new(1.5, 0.0, 0.0),
            pole_vector: pole,
            ..TwoBoneIk::default()
        };
        let c = ik.solve(&chain[0], &chain[1], &chain[2]);
        assert!(c.reached);
        let p = corrected(&chain, c.start, c.mid);
        lengths_kept(&p);
        assert!(p[2].abs_diff_eq(ik.target, 1e-5));
        // The elbow stands at x = 0.75, sqrt(1 − 0.75²) away from the axis, towards the pole.
        let off = (1.0_f32 - 0.75 * 0.75).sqrt();
        let expected = Vec3A::new(0.75, 0.0, 0.0) + pole * off;
        assert!(p[1].abs_diff_eq(expected, 1e-5), "pole {pole}: {p:?}");
    }
}

/// A twist turns the elbow about the start-to-target line by the angle given.
#[test]
fn twist_turns_the_chain_about_the_target_line() {
    let chain = bent_arm();
    let ik = TwoBoneIk {
        target: Vec3A::new(1.5, 0.0, 0.0),
        twist_angle: std::f32::consts::FRAC_PI_2,
        ..TwoBoneIk::default()
    };
    let c = ik.solve(&chain[0], &chain[1], &chain[2]);
    let p = corrected(&chain, c.start, c.mid);
    let off = (1.0_f32 - 0.75 * 0.75).sqrt();
    // The pole (+y) turned a quarter about +x is +z.
    assert!(p[1].abs_diff_eq(Vec3A::new(0.75, 0.0, off), 1e-5), "{p:?}");
    assert!(p[2].abs_diff_eq(ik.target, 1e-5));
}

#[test]
fn degenerate_chains_give_identity_corrections() {
    let [s, m, _] = arm();
    let nan = Affine3A::from_translation(Vec3::splat(f32::NAN));
    let flat = Affine3A::from_scale(Vec3::new(1.0, 0.0, 1.0));
    let ik = TwoBoneIk {
        target: Vec3A::new(1.0, 1.0, 0.0),
        ..TwoBoneIk::default()
    };
    for (a, b, c) in [(s, s, s), (s, m, m), (flat, m, m), (nan, m, s), (s, m, nan)] {
        let out = ik.solve(&a, &b, &c);
        assert!(out.start.is_finite() && out.mid.is_finite(), "{out:?}");
    }
    let zero_axis = TwoBoneIk {
        mid_axis: Vec3A::ZERO,
        ..ik
    };
    let out = zero_axis.solve(&s, &m, &arm()[2]);
    assert_eq!(
        (out.start, out.mid, out.reached),
        (Quat::IDENTITY, Quat::IDENTITY, false)
    );
}

#[test]
fn aim_points_forward_at_the_target_with_up_towards_the_pole() {
    let joint =
        Affine3A::from_rotation_translation(Quat::from_rotation_y(0.4), Vec3::new(1.0, 2.0, 3.0));
    // The last target lies straight behind the joint: forward turns half a turn.
    let behind = joint.translation - joint.matrix3.x_axis * 5.0;
    for target in [
        Vec3A::new(5.0, 2.0, 3.0),
        Vec3A::new(1.0, 2.0, -4.0),
        Vec3A::new(0.0, 0.0, 0.0),
        behind,
    ] {
        let ik = AimIk {
            target,
            ..AimIk::default()
        };
        let c = ik.solve(&joint);
        assert!(c.reached);
        let aimed = joint * Affine3A::from_quat(c.joint);
        let forward = aimed.transform_vector3a(Vec3A::X);
        let to_target = (target - joint.translation).normalize();
        assert!(forward.abs_diff_eq(to_target, 1e-5), "{target}: {forward}");
        // Up lies in the plane of the aim and the pole, on the pole's side.
        let up = aimed.transform_vector3a(Vec3A::Y);
        assert!(up.dot(to_target.cross(Vec3A::Y)).abs() < 1e-5);
        assert!(up.dot(Vec3A::Y) > 0.0);
    }
}

/// With an offset, the line from the offset along forward passes through the target.
#[test]
fn aim_with_an_offset_puts_the_target_on_the_offset_line() {
    let joint = Affine3A::IDENTITY;
    let ik = AimIk {
        target: Vec3A::new(0.0, 3.0, 4.0),
        offset: Vec3A::new(0.0, 1.0, 0.0),
        ..AimIk::default()
    };
    let c = ik.solve(&joint);
    assert!(c.reached);
    let origin = c.joint * ik.offset;
    let forward = c.joint * Vec3A::X;
    let to_target = ik.target - origin;
    assert!(
        to_target.cross(forward).length() < 1e-5,
        "{origin} {forward}"
    );
    assert!(to_target.dot(forward) > 0.0);
    // A target inside the sphere the offset sweeps cannot be aimed at.
    let inside = AimIk {
        target: Vec3A::new(0.5, 0.0, 0.0),
        offset: Vec3A::new(0.0, 2.0, 0.0),
        ..AimIk::default()
    };
    let c = inside.solve(&joint);
    assert_eq!((c.joint, c.reached), (Quat::IDENTITY, false));
}

#[test]
fn aim_weight_and_twist() {
    let joint = Affine3A::IDENTITY;
    let ik = AimIk {
        target: Vec3A::new(0.0, 0.0, 5.0),
        ..AimIk::default()
    };
    let full = ik.solve(&joint).joint;
    assert_eq!(
        AimIk { weight: 0.0, ..ik }.solve(&joint).joint,
        Quat::IDENTITY
    );
    let half = AimIk { weight: 0.5, ..ik }.solve(&joint).joint;
    let (axis, angle) = half.to_axis_angle();
    let (full_axis, full_angle) = full.to_axis_angle();
    assert!(axis.abs_diff_eq(full_axis, 1e-5));
    // nlerp halfway from the identity halves the angle of a rotation this size exactly.
    assert!((angle - full_angle / 2.0).abs() < 1e-5);
    let twisted = AimIk {
        twist_angle: 0.5,
        ..ik
    }
    .solve(&joint)
    .joint;
    // Still aimed, then turned 0.5 about the aim: up moved by that angle.
    assert!((twisted * Vec3A::X).abs_diff_eq(Vec3A::Z, 1e-5));
    let (up, up_twisted) = (full * Vec3A::Y, twisted * Vec3A::Y);
    assert!((up.angle_between(up_twisted) - 0.5).abs() < 1e-5);
}

/// The whole loop on a model: solve on the palette, apply to the pose, rebuild from the
/// start joint, and the end joint stands on the target.
#[test]
fn two_bone_ik_on_a_model_pose_reaches_the_target() {
    use skelmap::Parse;
    use skelmap::dpm::Dpm;
    use skelmap::synth::{TubeParams, tube};
    let bytes = tube(&TubeParams {
        bones: 4,
        frames: 3,
        ..TubeParams::default()
    })
    .write()
    .unwrap();
    let model = Dpm::parse(&bytes).unwrap();
    let mut pose = LocalPose::default();
    sample(&model, 1, 1, 0.0, Interpolation::Nlerp, &mut pose);
    let mut palette = Palette::default();
    palette.build(&model, &pose);
    let (s, m, e) = (palette.world[1], palette.world[2], palette.world[3]);
    let reach = s.translation.distance(m.translation) + m.translation.distance(e.translation);
    // A point 80% of the way out, off the chain's line.
    let dir = (e.translation - s.translation).normalize();
    let side = dir.any_orthonormal_vector();
    let target = s.translation + (dir * 0.6 + side * 0.8).normalize() * (0.8 * reach);
    // The tube bends its bones about their x axes.
    let ik = TwoBoneIk {
        target,
        pole_vector: side,
        mid_axis: Vec3A::X,
        ..TwoBoneIk::default()
    };
    let c = ik.solve(&s, &m, &e);
    assert!(c.reached);
    c.apply(&mut pose, 1, 2);
    palette.build_from(&model, &pose, 1, Root::Rebuilt);
    assert!(
        palette.world[3]
            .translation
            .abs_diff_eq(target, 1e-4 * reach)
    );
}
