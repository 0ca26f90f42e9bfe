//! `pose::Sampler` against `pose::sample`, bit for bit, over sequences of calls that play
//! forward, backward, repeat a pair, jump and wrap: on Half-Life models (whose frames it
//! keeps), one with its bone controllers set, and formats with a pass of their own (a DPM,
//! baked frames), which it samples through.

use skelmap::Model;
use skelmap::Parse;
use skelmap::dpm::Dpm;
use skelmap::glam::{Quat, Vec3A};
use skelmap::hl1::{Builder, ControllerDef, Controls, raw::STUDIO_ZR};
use skelmap::pose::{self, BakedFrames, Interpolation, LocalPose, PoseFrames, Sampler};

/// Frame pairs and fractions a player asks for: forward one frame at a time, the same pair
/// again, backward, a jump, a pair out of range (clamped), and a frame with itself.
fn calls(frames: usize) -> Vec<(usize, usize, f32)> {
    let mut calls: Vec<(usize, usize, f32)> =
        (0..frames).map(|f| (f, (f + 1) % frames, 0.25)).collect();
    calls.extend([(1, 2, 0.5), (1, 2, 0.75), (2, 1, 0.5), (1, 0, 0.1)]);
    calls.extend([
        (frames / 2, 0, 0.6),
        (frames + 5, 0, 0.5),
        (3, 3, 0.0),
        (0, frames - 1, 1.0),
    ]);
    calls
}

fn bits(pose: &LocalPose) -> Vec<([u32; 4], [u32; 3])> {
    pose.bones
        .iter()
        .map(|(q, t): &(Quat, Vec3A)| {
            (
                q.to_array().map(f32::to_bits),
                t.to_array().map(f32::to_bits),
            )
        })
        .collect()
}

/// Every call of [`calls`] through one sampler against `pose::sample`, with both
/// interpolations.
fn agrees<'d, S: PoseFrames<'d>>(name: &str, source: &S) {
    let frames = source.num_frames();
    assert!(frames >= 2, "{name}");
    for interpolation in [Interpolation::Nlerp, Interpolation::Slerp] {
        let mut sampler = Sampler::new(source);
        let (mut kept, mut fresh) = (LocalPose::default(), LocalPose::default());
        for (a, b, t) in calls(frames) {
            sampler.sample(a, b, t, interpolation, &mut kept);
            pose::sample(source, a, b, t, interpolation, &mut fresh);
            assert_eq!(
                bits(&kept),
                bits(&fresh),
                "{name} {interpolation:?} {a} {b} {t}"
            );
            assert_eq!(kept.scales, fresh.scales, "{name}");
        }
    }
}

#[test]
fn a_sampler_gives_what_sampling_gives_on_every_call() {
    let example = Builder::example().write().unwrap();
    let model = Model::from_bytes(&example).unwrap();
    agrees("example", model.as_hl1().unwrap());
    let mut b = Builder::example();
    b.controllers.push(ControllerDef {
        bone: 1,
        type_: STUDIO_ZR,
        start: -90.0,
        end: 90.0,
        index: 0,
    });
    let controlled = b.write().unwrap();
    let model = Model::from_bytes(&controlled).unwrap();
    let controls = Controls {
        values: [40.0, 0.0, 0.0, 0.0, 0.0],
    };
    agrees("controlled", &model.as_hl1().unwrap().controlled(controls));
    if let Some(dir) = skelmap_testkit::corpus_engines_path("hl1") {
        for name in [
            "assimp_man.mdl",
            "assimp_chrome_sphere.mdl",
            "assimp_multiple_roots.mdl",
        ] {
            let model = Model::open(dir.join(name)).unwrap();
            agrees(name, model.as_hl1().unwrap());
        }
    }
    let tube = skelmap::synth::tube(&Default::default()).write().unwrap();
    let dpm = Dpm::parse(&tube).unwrap();
    agrees("tube", &dpm);
    agrees("tube baked", &BakedFrames::new(&dpm).unwrap());
}

/// A source that counts the frames decoded from it.
struct Counting<'a, S> {
    inner: &'a S,
    decoded: std::cell::Cell<usize>,
}

impl<'d, S: PoseFrames<'d>> skelmap::Skeleton<'d> for Counting<'_, S> {
    fn skeleton_bones(&self) -> impl ExactSizeIterator<Item = skelmap::Bone<'d>> + Clone {
        self.inner.skeleton_bones()
    }
}

impl<'d, S: PoseFrames<'d>> PoseFrames<'d> for Counting<'_, S> {
    fn num_frames(&self) -> usize {
        self.inner.num_frames()
    }

    fn bone_pose(&self, frame: usize, bone: usize) -> Option<(Quat, Vec3A)> {
        self.inner.bone_pose(frame, bone)
    }

    fn frame_poses_into(&self, frame: usize, out: &mut Vec<(Quat, Vec3A)>) {
        self.decoded.set(self.decoded.get() + 1);
        self.inner.frame_poses_into(frame, out);
    }

    fn frame_pair_poses_into(
        &self,
        a: usize,
        b: usize,
        out_a: &mut Vec<(Quat, Vec3A)>,
        out_b: &mut Vec<(Quat, Vec3A)>,
    ) {
        self.decoded.set(self.decoded.get() + 2);
        self.inner.frame_pair_poses_into(a, b, out_a, out_b);
    }
}

#[test]
fn a_sampler_decodes_only_the_frames_it_does_not_keep() {
    let example = Builder::example().write().unwrap();
    let model = Model::from_bytes(&example).unwrap();
    let source = Counting {
        inner: model.as_hl1().unwrap(),
        decoded: std::cell::Cell::new(0),
    };
    let frames = source.num_frames();
    assert!(frames >= 4);
    let mut sampler = Sampler::new(&source);
    let mut out = LocalPose::default();
    let mut step = |a: usize, b: usize, decoded: usize| {
        let before = source.decoded.get();
        sampler.sample(a, b, 0.5, Interpolation::Nlerp, &mut out);
        assert_eq!(source.decoded.get() - before, decoded, "{a} {b}");
    };
    step(0, 1, 2); // both, in one pass
    step(0, 1, 0); // the same pair
    step(1, 2, 1); // forward: frame 1 kept
    step(2, 3, 1);
    step(3, 2, 0); // backward over the same two
    step(1, 1, 1); // a frame with itself, not kept
    step(1, 1, 0);
    step(frames - 1, 0, 2); // a jump: neither kept
    // Without a sampler, every sample decodes both frames.
    let before = source.decoded.get();
    pose::sample(&source, 1, 2, 0.5, Interpolation::Nlerp, &mut out);
    assert_eq!(source.decoded.get() - before, 2);
}
