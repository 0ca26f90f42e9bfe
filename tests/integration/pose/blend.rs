//! `pose::blend`: layers blended with weights, masks and the rest-pose threshold, additive
//! layers added and taken away, each against a pose computed in the test by hand or by an
//! independent formula (slerp for two rotations about one axis).

use skelmap::Model;
use skelmap::glam::{Quat, Vec3, Vec3A};
use skelmap::pose::Interpolation;
use skelmap::pose::LocalPose;
use skelmap::pose::Palette;
use skelmap::pose::SoaPose;
use skelmap::pose::blend::{Blender, Layer, Mask, additive_difference, crossfade};
use skelmap::skin::SimdLevel;

/// A pose of `n` bones, each turned `angle` about `axis` and moved `x` along X.
fn pose(n: usize, axis: Vec3, angle: f32, x: f32) -> LocalPose {
    let mut pose = LocalPose::default();
    pose.bones = vec![(Quat::from_axis_angle(axis, angle), Vec3A::new(x, 0.0, 0.0)); n];
    pose
}

fn close(a: Quat, b: Quat) -> bool {
    // q and −q are one rotation.
    a.abs_diff_eq(b, 1e-6) || a.abs_diff_eq(-b, 1e-6)
}

/// Two rotations about one axis, blended with weights `a` and `b`: the normalised weighted
/// sum of their quaternions turns by `2·atan2(a·sin(α/2) + b·sin(β/2), a·cos(α/2) + b·cos(β/2))`.
#[test]
fn weighted_layers_give_the_normalised_sum() {
    let rest = pose(4, Vec3::Z, 0.0, 0.0);
    let (walk, run) = (pose(4, Vec3::Z, 0.3, 2.0), pose(4, Vec3::Z, 1.1, 6.0));
    let (mut blender, mut out) = (Blender::default(), LocalPose::default());
    let (a, b) = (0.75, 0.25);
    blender.blend(
        &rest,
        &[Layer::new(&walk, a), Layer::new(&run, b)],
        0.1,
        &mut out,
    );
    let half = |angle: f32| (angle / 2.0).sin_cos();
    let ((s1, c1), (s2, c2)) = (half(0.3), half(1.1));
    let angle = 2.0 * (a * s1 + b * s2).atan2(a * c1 + b * c2);
    for (q, t) in &out.bones {
        assert!(close(*q, Quat::from_rotation_z(angle)), "{q}");
        assert!(t.abs_diff_eq(Vec3A::new(a * 2.0 + b * 6.0, 0.0, 0.0), 1e-6));
    }
    assert!(out.scales.is_empty());
    // Weights are normalised: twice both weights is the same blend.
    let mut doubled = LocalPose::default();
    blender.blend(
        &rest,
        &[Layer::new(&walk, 2.0 * a), Layer::new(&run, 2.0 * b)],
        0.1,
        &mut doubled,
    );
    for (x, y) in out.bones.iter().zip(&doubled.bones) {
        assert!(close(x.0, y.0) && x.1.abs_diff_eq(y.1, 1e-6));
    }
}

/// `q` and `−q` are one rotation: a layer stored in the other hemisphere blends the short way.
#[test]
fn opposite_hemispheres_blend_the_short_way() {
    let rest = pose(1, Vec3::Z, 0.0, 0.0);
    let a = pose(1, Vec3::Z, 0.4, 0.0);
    let mut b = pose(1, Vec3::Z, 0.8, 0.0);
    b.bones[0].0 = -b.bones[0].0;
    let (mut blender, mut out) = (Blender::default(), LocalPose::default());
    blender.blend(
        &rest,
        &[Layer::new(&a, 1.0), Layer::new(&b, 1.0)],
        0.0,
        &mut out,
    );
    assert!(close(out.bones[0].0, Quat::from_rotation_z(0.6)));
}

/// A bone range (DarkPlaces' `skel_build`) and per-bone weights (ozz's joint weights): bones
/// outside a mask keep what the other layers give, bones no layer plays hold the rest pose,
/// and below the threshold the rest pose fills in.
#[test]
fn masks_and_the_threshold() {
    let rest = pose(5, Vec3::X, 0.5, -1.0);
    let (legs, torso) = (pose(5, Vec3::Z, 0.2, 1.0), pose(5, Vec3::Y, 0.9, 3.0));
    let (mut blender, mut out) = (Blender::default(), LocalPose::default());
    let layers = [
        Layer::new(&legs, 1.0).masked(Mask::Range { first: 0, last: 1 }),
        Layer::new(&torso, 1.0).masked(Mask::Range { first: 2, last: 3 }),
    ];
    blender.blend(&rest, &layers, 0.1, &mut out);
    assert_eq!(out.bones[0], legs.bones[0]);
    assert_eq!(out.bones[1], legs.bones[1]);
    assert!(close(out.bones[2].0, torso.bones[2].0));
    assert_eq!(out.bones[3].1, torso.bones[3].1);
    // Bone 4: no layer; the rest pose.
    assert!(close(out.bones[4].0, rest.bones[4].0) && out.bones[4].1 == rest.bones[4].1);

    // Per-bone weights: bone 0 at 0.02, under the threshold 0.1: the rest pose (at x = -1)
    // fills in 0.08, and the sum is divided by 0.1.
    let weights = [0.02, 1.0, 0.5, 0.0, 7.0];
    let layers = [Layer::new(&legs, 1.0).masked(Mask::Weights(&weights))];
    blender.blend(&rest, &layers, 0.1, &mut out);
    let (legs_x, rest_x) = (legs.bones[0].1.x, rest.bones[0].1.x);
    let want = (0.02 * legs_x + 0.08 * rest_x) / 0.1;
    assert!((out.bones[0].1.x - want).abs() < 1e-6, "{}", out.bones[0].1);
    assert_eq!(out.bones[1], legs.bones[1]);
    assert_eq!(out.bones[2], legs.bones[2]);
    assert_eq!(out.bones[3].1, rest.bones[3].1);
    // A factor past 1 counts as 1.
    assert_eq!(out.bones[4], legs.bones[4]);
}

/// An additive layer made from a clip and its reference gives the clip back at weight 1,
/// half of it (for one axis: half the angle) at weight 0.5, and a negative weight takes it
/// away again; scales multiply.
#[test]
fn additive_layers_add_and_subtract() {
    let mut reference = pose(3, Vec3::Y, 0.4, 1.0);
    reference.scales = vec![Vec3A::splat(2.0); 3];
    let mut recoil = pose(3, Vec3::Y, 1.0, 1.5);
    recoil.scales = vec![Vec3A::new(2.0, 3.0, 2.0); 3];
    let mut delta = LocalPose::default();
    additive_difference(&recoil, &reference, &mut delta);
    assert!(close(delta.bones[0].0, Quat::from_rotation_y(0.6)));
    assert_eq!(delta.bones[0].1, Vec3A::new(0.5, 0.0, 0.0));
    assert_eq!(delta.scales[0], Vec3A::new(1.0, 1.5, 1.0));

    let blender = Blender::default();
    let mut posed = reference.clone();
    blender.add(&Layer::new(&delta, 1.0), &mut posed);
    for bone in 0..3 {
        assert!(close(posed.bones[bone].0, recoil.bones[bone].0));
        assert!(posed.bones[bone].1.abs_diff_eq(recoil.bones[bone].1, 1e-6));
        assert!(posed.scales[bone].abs_diff_eq(recoil.scales[bone], 1e-6));
    }
    let mut half = reference.clone();
    blender.add(&Layer::new(&delta, 0.5), &mut half);
    assert!(close(half.bones[0].0, Quat::from_rotation_y(0.7)));
    assert!(
        half.bones[0]
            .1
            .abs_diff_eq(Vec3A::new(1.25, 0.0, 0.0), 1e-6)
    );
    assert!(half.scales[0].abs_diff_eq(Vec3A::new(2.0, 2.5, 2.0), 1e-6));
    // Taken away again: the reference.
    blender.add(&Layer::new(&delta, -0.5), &mut half);
    for bone in 0..3 {
        assert!(close(half.bones[bone].0, reference.bones[bone].0));
        assert!(
            half.bones[bone]
                .1
                .abs_diff_eq(reference.bones[bone].1, 1e-6)
        );
        assert!(half.scales[bone].abs_diff_eq(reference.scales[bone], 1e-6));
    }
    // A mask limits it: bone 2 only.
    let mut masked = reference.clone();
    let only = Layer::new(&delta, 1.0).masked(Mask::Range { first: 2, last: 2 });
    blender.add(&only, &mut masked);
    assert_eq!(masked.bones[0], reference.bones[0]);
    assert!(close(masked.bones[2].0, recoil.bones[2].0));
}

#[test]
fn crossfade_weights() {
    assert_eq!(crossfade(0.0, 0.5), (1.0, 0.0));
    assert_eq!(crossfade(0.25, 0.5), (0.5, 0.5));
    assert_eq!(crossfade(2.0, 0.5), (0.0, 1.0));
    assert_eq!(crossfade(-1.0, 0.5), (1.0, 0.0));
    assert_eq!(crossfade(0.1, 0.0), (0.0, 1.0));
    assert_eq!(crossfade(f32::NAN, 0.5), (1.0, 0.0));
}

/// On a real skeleton (the synthetic tube DPM): two frames blended 50/50 with nlerp are what
/// `Model::sample` gives halfway between them with nlerp, bone for bone.
#[test]
fn a_half_blend_of_two_frames_is_the_sampled_tween() {
    let bytes = skelmap::synth::tube(&Default::default()).write().unwrap();
    let model = Model::from_bytes(&bytes).unwrap();
    let (mut a, mut b, mut tween, mut rest) = (
        LocalPose::default(),
        LocalPose::default(),
        LocalPose::default(),
        LocalPose::default(),
    );
    model.sample(1, 1, 0.0, Interpolation::Nlerp, &mut a);
    model.sample(4, 4, 0.0, Interpolation::Nlerp, &mut b);
    model.sample(1, 4, 0.5, Interpolation::Nlerp, &mut tween);
    model.bind_pose(&mut rest);
    let (mut blender, mut out) = (Blender::default(), LocalPose::default());
    blender.blend(
        &rest,
        &[Layer::new(&a, 1.0), Layer::new(&b, 1.0)],
        0.1,
        &mut out,
    );
    assert_eq!(out.bones.len(), model.num_bones());
    for (x, y) in out.bones.iter().zip(&tween.bones) {
        assert!(close(x.0, y.0), "{} {}", x.0, y.0);
        assert!(x.1.abs_diff_eq(y.1, 1e-5));
    }
}

/// A pseudo-random pose of `n` bones (a fixed linear congruential sequence from `seed`): unit
/// rotations in both hemispheres, translations within ±10.
fn scrambled(n: usize, seed: u32) -> LocalPose {
    let mut state = seed.wrapping_mul(2_654_435_761).wrapping_add(1);
    let mut next = move || {
        state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        (state >> 8) as f32 / (1u32 << 24) as f32 * 2.0 - 1.0
    };
    let mut pose = LocalPose::default();
    pose.bones = (0..n)
        .map(|_| {
            let q = Quat::from_xyzw(next(), next(), next(), next()).normalize();
            (q, Vec3A::new(next(), next(), next()) * 10.0)
        })
        .collect();
    pose
}

/// `a` and `b` blended at every level the CPU has, against the scalar blend (the reference):
/// rotations (up to sign) and translations within `tolerance`.
///
/// The same poses as [`SoaPose`]s blended by `Blender::blend_soa`: at the portable level the
/// scalar blend's result bit for bit, at every other level within the same tolerance.
fn levels_agree(rest: &LocalPose, layers: &[Layer<'_>], threshold: f32, what: &str) {
    let (mut blender, mut reference) = (Blender::default(), LocalPose::default());
    blender.blend_with_level(SimdLevel::Portable, rest, layers, threshold, &mut reference);
    let rest_soa = SoaPose::from_local(rest);
    let poses_soa: Vec<SoaPose> = layers.iter().map(|l| SoaPose::from_local(l.pose)).collect();
    let layers_soa: Vec<Layer<'_, SoaPose>> = layers
        .iter()
        .zip(&poses_soa)
        .map(|(l, pose)| Layer {
            pose,
            weight: l.weight,
            mask: l.mask,
        })
        .collect();
    let mut out = LocalPose::default();
    blender.blend_soa_with_level(
        SimdLevel::Portable,
        &rest_soa,
        &layers_soa,
        threshold,
        &mut out,
    );
    assert_eq!(out, reference, "{what}: the portable blend of SoA poses");
    for level in SimdLevel::ALL {
        for soa in [false, true] {
            let mut out = LocalPose::default();
            if soa {
                blender.blend_soa_with_level(level, &rest_soa, &layers_soa, threshold, &mut out);
            } else {
                blender.blend_with_level(level, rest, layers, threshold, &mut out);
            }
            assert_eq!(
                out.bones.len(),
                reference.bones.len(),
                "{what} at {level}, SoA {soa}"
            );
            assert_eq!(out.scales, reference.scales, "{what} at {level}, SoA {soa}");
            for (bone, (x, y)) in out.bones.iter().zip(&reference.bones).enumerate() {
                assert!(
                    x.0.abs_diff_eq(y.0, 1e-6) && x.1.abs_diff_eq(y.1, 1e-5),
                    "{what} at {level}, SoA {soa}, bone {bone}: {x:?} vs {y:?}"
                );
            }
        }
    }
}

/// The 16-bone kernel against the scalar blend, on every case it handles differently: bone
/// counts around its step (1 to 40), uniform, ranged and per-bone-weighted layers, layers
/// shorter than the rest pose, empty, outside and short masks, weights of zero, below zero
/// and infinite, opposed hemispheres, a total
/// weight below the threshold (the rest pose filling in, everywhere or per bone), no layer
/// at all, and rotations of zero length (the identity) or not normalised.
#[test]
fn every_level_blends_as_the_scalar_blend() {
    for n in [1, 2, 3, 5, 15, 16, 17, 31, 33, 40] {
        let rest = scrambled(n, 1);
        let (a, b, c) = (scrambled(n, 2), scrambled(n, 3), scrambled(n / 2, 4));
        let mut flipped = a.clone();
        for (q, _) in &mut flipped.bones {
            *q = -*q;
        }
        let weights: Vec<f32> = (0..n).map(|b| (b % 5) as f32 / 4.0).collect();
        let cases: [(&str, Vec<Layer<'_>>, f32); 10] = [
            (
                "two uniform",
                vec![Layer::new(&a, 1.0), Layer::new(&b, 0.5)],
                0.1,
            ),
            (
                "four uniform",
                vec![
                    Layer::new(&a, 1.0),
                    Layer::new(&b, 0.5),
                    Layer::new(&flipped, 0.25),
                    Layer::new(&rest, 0.2),
                ],
                0.1,
            ),
            (
                "masked",
                vec![
                    Layer::new(&a, 0.7),
                    Layer::new(&b, 1.0).masked(Mask::Range {
                        first: 1,
                        last: n / 2,
                    }),
                    Layer::new(&flipped, 0.3).masked(Mask::Weights(&weights)),
                ],
                0.1,
            ),
            (
                "short layer",
                vec![Layer::new(&c, 1.0), Layer::new(&b, 0.05)],
                0.5,
            ),
            (
                "below the threshold",
                vec![Layer::new(&a, 0.02), Layer::new(&b, 0.03)],
                0.1,
            ),
            (
                "masked below the threshold",
                vec![Layer::new(&a, 0.2).masked(Mask::Weights(&weights))],
                0.3,
            ),
            (
                "no weight",
                vec![
                    Layer::new(&a, 0.0),
                    Layer::new(&b, -1.0),
                    Layer::new(&c, f32::NAN),
                ],
                0.1,
            ),
            ("no layer", vec![], 0.0),
            (
                "opposed",
                vec![Layer::new(&a, 1.0), Layer::new(&flipped, 1.0)],
                0.1,
            ),
            (
                "empty, outside and short masks",
                vec![
                    Layer::new(&a, 0.5),
                    Layer::new(&b, 1.0).masked(Mask::Range { first: 5, last: 2 }),
                    Layer::new(&b, 1.0).masked(Mask::Range {
                        first: n + 3,
                        last: n + 9,
                    }),
                    Layer::new(&c, 0.8).masked(Mask::Range {
                        first: n / 3,
                        last: usize::MAX,
                    }),
                    Layer::new(&flipped, f32::INFINITY),
                    Layer::new(&b, 0.6).masked(Mask::Weights(&weights[..n / 3])),
                ],
                0.1,
            ),
        ];
        for (what, layers, threshold) in &cases {
            levels_agree(&rest, layers, *threshold, &format!("{what}, {n} bones"));
        }
    }
    // Rotations of zero length blend to the identity; longer ones are normalised.
    let mut odd = scrambled(20, 5);
    for (bone, (q, _)) in odd.bones.iter_mut().enumerate() {
        *q = match bone % 3 {
            0 => Quat::from_xyzw(0.0, 0.0, 0.0, 0.0),
            1 => *q * 3.0,
            _ => Quat::from_xyzw(1e-30, 0.0, 0.0, 0.0),
        };
    }
    let rest = odd.clone();
    levels_agree(&rest, &[Layer::new(&odd, 1.0)], 0.1, "odd rotations");
    let (mut blender, mut out) = (Blender::default(), LocalPose::default());
    blender.blend(&rest, &[Layer::new(&odd, 1.0)], 0.1, &mut out);
    assert_eq!(out.bones[0].0, Quat::IDENTITY);
}

/// On golem (63 bones): 2 and 4 layers blended as the `ozz-blend` bench blends them, at
/// every level and from both layouts, give model-space matrices within 1e-5 of the model's size (its farthest
/// joint) of the scalar blend's.
#[test]
fn golem_blends_alike_at_every_level() {
    let Some(path) = skelmap_testkit::corpus_path("dpm/xon_monsters_golem.dpm") else {
        return;
    };
    let model = Model::open(path).unwrap();
    let mut rest = LocalPose::default();
    model.sample(0, 0, 0.0, Interpolation::Nlerp, &mut rest);
    let poses: Vec<LocalPose> = (0..4)
        .map(|k| {
            let mut p = LocalPose::default();
            model.sample(k, k + 1, 0.5, Interpolation::Nlerp, &mut p);
            p
        })
        .collect();
    for layers in [2, 4] {
        let stack: Vec<Layer<'_>> = (0..layers)
            .map(|k| Layer::new(&poses[k], 1.0 / (k + 1) as f32))
            .collect();
        let (mut blender, mut pose) = (Blender::default(), LocalPose::default());
        let (mut reference, mut palette) = (Palette::default(), Palette::default());
        blender.blend_with_level(SimdLevel::Portable, &rest, &stack, 0.1, &mut pose);
        model.palette(&pose, &mut reference);
        // The model's size: its farthest joint from the origin.
        let size = reference
            .world
            .iter()
            .fold(1.0f32, |m, w| m.max(w.translation.abs().max_element()));
        let rest_soa = SoaPose::from_local(&rest);
        let soa: Vec<SoaPose> = poses[..layers].iter().map(SoaPose::from_local).collect();
        let stack_soa: Vec<Layer<'_, SoaPose>> = stack
            .iter()
            .zip(&soa)
            .map(|(l, pose)| Layer::new(pose, l.weight))
            .collect();
        for level in SimdLevel::ALL {
            for from_soa in [false, true] {
                if from_soa {
                    blender.blend_soa_with_level(level, &rest_soa, &stack_soa, 0.1, &mut pose);
                } else {
                    blender.blend_with_level(level, &rest, &stack, 0.1, &mut pose);
                }
                model.palette(&pose, &mut palette);
                assert_eq!(palette.world.len(), model.num_bones());
                for (x, y) in palette.world.iter().zip(&reference.world) {
                    assert!(
                        x.abs_diff_eq(*y, 1e-5 * size),
                        "{layers} layers at {level}, SoA {from_soa}"
                    );
                }
            }
        }
    }
}
