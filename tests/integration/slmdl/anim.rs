//! The SL `.anim`: easing and sampling, one test per validation rule.

use skelmap::Parse;
use skelmap::slmdl::{self, Easing};
use skelmap::{Error, Format};

use crate::support::slmdl::walk;

fn anim_err(bytes: &[u8]) -> Error {
    let e = slmdl::Animation::parse(bytes)
        .map(|_| ())
        .expect_err("broken anim accepted");
    assert_eq!(e.format(), Some(Format::SlAnim), "{e}");
    e
}

#[test]
fn anim_sampling_with_easing() {
    let bytes = walk().write();
    assert_eq!(bytes.len(), 8 + 3 * (8 + 2 * 28));
    assert_eq!(Format::sniff(&bytes), None, ".anim has no magic");
    let a = slmdl::Animation::parse(&bytes).unwrap();
    assert_eq!((a.num_bones(), a.num_keyframes()), (2, 3));
    assert_eq!(a.times().collect::<Vec<_>>(), [0.0, 1.0, 2.0]);
    let mut pose = skelmap::pose::LocalPose::default();
    let angle = |q: skelmap::glam::Quat| q.to_axis_angle().1.to_degrees();
    a.sample(0.5, &mut pose); // linear: half way
    let b = &pose.bones;
    assert!((angle(b[0].0) - 45.0).abs() < 1e-3 && (b[0].1.x - 1.0).abs() < 1e-6);
    a.sample(1.5, &mut pose); // ease-in from keyframe 1: f = 0.25
    let b = &pose.bones;
    assert!(
        (angle(b[0].0) - 112.5).abs() < 1e-3 && (b[0].1.x - 2.5).abs() < 1e-5,
        "{pose:?}"
    );
    a.sample(2.5, &mut pose); // past the end: clamped to the last keyframe
    assert!((angle(pose.bones[0].0) - 180.0).abs() < 1e-3);
    a.sample(-3.0, &mut pose); // before the start: the first keyframe
    assert!(angle(pose.bones[0].0).abs() < 1e-3);
    assert_eq!(
        pose.bones[1].1,
        skelmap::glam::Vec3A::ONE,
        "bones are independent"
    );
    assert!((Easing::EaseInOut.apply(0.5) - 0.5).abs() < 1e-6 && Easing::Step.apply(0.9) == 0.0);
}

#[test]
fn anim_step_holds_until_the_next_keyframe() {
    let mut b = walk();
    b.keyframes[0].easing = Easing::Step;
    let bytes = b.write();
    let a = slmdl::Animation::parse(&bytes).unwrap();
    let mut pose = skelmap::pose::LocalPose::default();
    a.sample(0.99, &mut pose);
    assert!(pose.bones[0].0.to_axis_angle().1.abs() < 1e-6);
    assert_eq!(
        a.key(2).map(|(t, e, keys)| (t, e, keys.len())),
        Some((2.0, Easing::Step, 2))
    );
}

#[test]
fn anim_rule_counts_and_exact_size() {
    let bytes = walk().write();
    let mut b = bytes.clone();
    b[0..4].copy_from_slice(&0u32.to_le_bytes());
    assert!(matches!(
        anim_err(&b),
        Error::Invalid {
            what: "header.bone_count",
            offset: 0,
            ..
        }
    ));
    let mut b = bytes.clone();
    b[4..8].copy_from_slice(&0u32.to_le_bytes());
    assert!(matches!(
        anim_err(&b),
        Error::Invalid {
            what: "header.keyframe_count",
            offset: 4,
            ..
        }
    ));
    let mut b = bytes.clone();
    b[4..8].copy_from_slice(&70_000u32.to_le_bytes());
    assert!(matches!(
        anim_err(&b),
        Error::Limit {
            what: "header.keyframe_count",
            ..
        }
    ));
    assert!(matches!(
        anim_err(&bytes[..bytes.len() - 4]),
        Error::Truncated {
            what: "keyframes",
            ..
        }
    ));
    let mut longer = bytes.clone();
    longer.extend_from_slice(&[0; 4]);
    assert!(matches!(
        anim_err(&longer),
        Error::Invalid {
            what: "keyframes",
            offset: 200,
            ..
        }
    ));
}

#[test]
fn anim_rule_times_easing_and_values() {
    let second = 8 + 64; // keyframe 1 starts here
    let mut b = walk().write();
    b[second..second + 4].copy_from_slice(&(-1.0f32).to_le_bytes());
    assert!(matches!(
        anim_err(&b),
        Error::Invalid {
            what: "keyframe.time",
            offset: 72,
            ..
        }
    ));
    let mut b = walk().write();
    b[second + 4..second + 8].copy_from_slice(&5u32.to_le_bytes());
    assert!(matches!(
        anim_err(&b),
        Error::Invalid {
            what: "keyframe.easing",
            offset: 76,
            ..
        }
    ));
    let mut b = walk().write();
    let bone1 = second + 8 + 28 + 16; // keyframe 1, bone 1, translation.x
    b[bone1..bone1 + 4].copy_from_slice(&f32::NAN.to_le_bytes());
    assert!(matches!(
        anim_err(&b),
        Error::Invalid {
            what: "keyframe.bones",
            offset: 108,
            ..
        }
    ));
}
