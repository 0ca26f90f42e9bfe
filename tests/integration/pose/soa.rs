//! `pose::SoaPose`: a local pose in blocks of 16 bones, held and given back bit for bit, and
//! sampled (DPM's sampler writing the layout itself, other formats copied in) to exactly the
//! poses `LocalPose` sampling gives.

use skelmap::Model;
use skelmap::glam::{Quat, Vec3A};
use skelmap::pose::framegroups::FrameGroup;
use skelmap::pose::{Interpolation, LocalPose, SoaPose};

/// A pose of `n` bones whose every float is distinct (bone `b`, component `c`: `b + c/8`).
fn numbered(n: usize) -> LocalPose {
    let mut pose = LocalPose::default();
    pose.bones = (0..n)
        .map(|b| {
            let f = |c: usize| b as f32 + c as f32 / 8.0;
            (
                Quat::from_xyzw(f(0), f(1), f(2), f(3)),
                Vec3A::new(f(4), f(5), f(6)),
            )
        })
        .collect();
    pose
}

#[test]
fn a_soa_pose_gives_back_the_local_pose() {
    for n in [0, 1, 4, 15, 16, 17, 33, 63, 64, 100] {
        let local = numbered(n);
        let soa = SoaPose::from_local(&local);
        assert_eq!(soa.len(), n);
        assert_eq!(soa.is_empty(), n == 0);
        for (bone, &pose) in local.bones.iter().enumerate() {
            assert_eq!(soa.bone(bone), Some(pose), "{n} bones, bone {bone}");
        }
        assert_eq!(soa.bone(n), None);
        let mut back = LocalPose::default();
        soa.to_local(&mut back);
        assert_eq!(back, local, "{n} bones");
    }
    // Shrinking gives the dropped bones back as the identity when the pose grows again.
    let mut soa = SoaPose::from_local(&numbered(20));
    soa.resize(5);
    assert_eq!(soa.len(), 5);
    soa.resize(20);
    assert_eq!(soa.bone(4), Some(numbered(5).bones[4]));
    for bone in 5..20 {
        assert_eq!(
            soa.bone(bone),
            Some((Quat::IDENTITY, Vec3A::ZERO)),
            "bone {bone}"
        );
    }
    // Setting a bone past the end does nothing; within, it replaces the bone alone.
    let pose = (Quat::from_rotation_x(0.5), Vec3A::new(1.0, 2.0, 3.0));
    soa.set_bone(20, pose);
    assert_eq!(soa.len(), 20);
    soa.set_bone(17, pose);
    assert_eq!(soa.bone(17), Some(pose));
    assert_eq!(soa.bone(16), Some((Quat::IDENTITY, Vec3A::ZERO)));
    // Scales are kept as they are.
    let mut scaled = numbered(3);
    scaled.scales = vec![Vec3A::splat(2.0); 3];
    let mut back = LocalPose::default();
    SoaPose::from_local(&scaled).to_local(&mut back);
    assert_eq!(back, scaled);
}

/// `Model::sample_soa` and `sample_clip_soa` against `sample` and `sample_clip`, bit for bit.
fn samples_alike(model: &Model, what: &str) {
    let frames = model.num_frames().max(1);
    let (mut local, mut soa, mut back) = (
        LocalPose::default(),
        SoaPose::default(),
        LocalPose::default(),
    );
    for (a, b, t) in [
        (0, 0, 0.0),
        (0, 1, 0.25),
        (frames - 1, 0, 0.5),
        (frames / 2, frames / 2 + 1, 0.9),
        (frames + 5, 2, 0.3),
    ] {
        for interpolation in [Interpolation::Nlerp, Interpolation::Slerp] {
            model.sample(a, b, t, interpolation, &mut local);
            model.sample_soa(a, b, t, interpolation, &mut soa);
            soa.to_local(&mut back);
            assert_eq!(
                back, local,
                "{what}: frames {a}, {b} at {t} by {interpolation:?}"
            );
            assert_eq!(soa.len(), model.num_bones(), "{what}");
        }
    }
    let clip = FrameGroup {
        name: "all".into(),
        first: 0,
        count: frames as u32,
        fps: 10.0,
        looped: true,
    };
    for seconds in [0.0, 0.13, 0.77, 12.5] {
        model
            .sample_clip(&clip, seconds, true, Interpolation::Nlerp, &mut local)
            .unwrap();
        model
            .sample_clip_soa(&clip, seconds, true, Interpolation::Nlerp, &mut soa)
            .unwrap();
        soa.to_local(&mut back);
        assert_eq!(back, local, "{what}: the clip at {seconds} s");
    }
}

/// DPM fixtures of every bone count the sampler treats differently (one bone: scalar; two
/// to eight: both frames in one step; a step and a few left over; partial last steps), the
/// tube, and the shared models of every format that has bones.
#[test]
fn soa_sampling_is_local_sampling() {
    for bones in [1, 2, 5, 8, 9, 16, 18, 21, 37, 63, 64] {
        let tube = skelmap::synth::TubeParams {
            bones,
            ..Default::default()
        };
        let bytes = skelmap::synth::tube(&tube).write().unwrap();
        let model = Model::from_bytes(&bytes).unwrap();
        assert_eq!(model.num_bones(), bones as usize);
        samples_alike(&model, &format!("tube of {bones} bones"));
    }
    let shared = ["dpm", "ms3d"]
        .into_iter()
        .flat_map(skelmap_testkit::corpus_files);
    for path in shared.chain(skelmap_testkit::corpus_next_files("iqm")) {
        let Ok(model) = Model::open(&path) else {
            continue;
        };
        if model.num_bones() > 0 {
            samples_alike(&model, &path.display().to_string());
        }
    }
}
