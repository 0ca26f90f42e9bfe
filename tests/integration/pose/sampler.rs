//! `pose::Sampler` against `pose::sample`, bit for bit, over sequences of calls that play
//! forward, backward, repeat a pair, jump and wrap: on Half-Life models (whose frames it
//! keeps, decoded in runs), some with their bone controllers set, and formats with a pass of
//! their own (a DPM, baked frames), which it samples through; and which frames it decodes.

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
/// interpolations, keeping what fits the default budget and what fits none (so that it starts
/// over on every frame it lacks).
fn agrees<'d, S: PoseFrames<'d>>(name: &str, source: &S) {
    let frames = source.num_frames();
    assert!(frames >= 2, "{name}");
    let budgets = [skelmap::pose::DEFAULT_BUDGET, 0];
    for (interpolation, budget) in [Interpolation::Nlerp, Interpolation::Slerp]
        .into_iter()
        .flat_map(|i| budgets.map(|b| (i, b)))
    {
        let mut sampler = Sampler::new(source);
        sampler.set_budget(budget);
        let (mut kept, mut fresh) = (LocalPose::default(), LocalPose::default());
        for (a, b, t) in calls(frames) {
            sampler.sample(a, b, t, interpolation, &mut kept);
            pose::sample(source, a, b, t, interpolation, &mut fresh);
            assert_eq!(
                bits(&kept),
                bits(&fresh),
                "{name} {interpolation:?} budget {budget}: {a} {b} {t}"
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
    // Runs of eight, four and two frames, and more than sixteen bones; sequences of 21, 3
    // and 1 frames.
    for bones in [2, 3, 8, 9, 17] {
        let bytes = crate::hl1::chain(bones).write().unwrap();
        let model = Model::from_bytes(&bytes).unwrap();
        let pair = model.as_hl1().unwrap();
        agrees(&format!("{bones} bones"), pair);
        agrees(
            &format!("{bones} bones controlled"),
            &pair.controlled(controls),
        );
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

/// [`Counting`], passing runs of frames on to its source (counted by the frames decoded) and
/// recording each run's first frame and length.
struct CountingRuns<'a, S> {
    counting: Counting<'a, S>,
    runs: std::cell::RefCell<Vec<(usize, usize)>>,
}

impl<'d, S: PoseFrames<'d>> skelmap::Skeleton<'d> for CountingRuns<'_, S> {
    fn skeleton_bones(&self) -> impl ExactSizeIterator<Item = skelmap::Bone<'d>> + Clone {
        self.counting.skeleton_bones()
    }
}

impl<'d, S: PoseFrames<'d>> PoseFrames<'d> for CountingRuns<'_, S> {
    fn num_frames(&self) -> usize {
        self.counting.num_frames()
    }

    fn bone_pose(&self, frame: usize, bone: usize) -> Option<(Quat, Vec3A)> {
        self.counting.bone_pose(frame, bone)
    }

    fn frame_poses_into(&self, frame: usize, out: &mut Vec<(Quat, Vec3A)>) {
        self.counting.frame_poses_into(frame, out);
    }

    fn frame_run_poses_into(
        &self,
        first: usize,
        max: usize,
        out: &mut Vec<(Quat, Vec3A)>,
    ) -> usize {
        let n = self.counting.inner.frame_run_poses_into(first, max, out);
        let decoded = &self.counting.decoded;
        decoded.set(decoded.get() + n);
        self.runs.borrow_mut().push((first, n));
        n
    }
}

impl<'a, S> CountingRuns<'a, S> {
    /// Counting the frames and runs decoded from `inner`, none yet.
    fn new(inner: &'a S) -> Self {
        CountingRuns {
            counting: Counting {
                inner,
                decoded: std::cell::Cell::new(0),
            },
            runs: Default::default(),
        }
    }
}

/// Frames 0 to 24 of `pair` played forward, one pair at 0.5 a sample, through `sampler`:
/// each sample `pose::sample`'s, bit for bit.
fn play_forward<'d, S: PoseFrames<'d>>(
    sampler: &mut Sampler<'_, S>,
    pair: &skelmap::hl1::Pair<'_>,
    label: &str,
) {
    let (mut kept, mut fresh) = (LocalPose::default(), LocalPose::default());
    for f in 0..24 {
        sampler.sample(f, f + 1, 0.5, Interpolation::Nlerp, &mut kept);
        pose::sample(pair, f, f + 1, 0.5, Interpolation::Nlerp, &mut fresh);
        assert_eq!(bits(&kept), bits(&fresh), "{label} {f}");
    }
}

/// Playing a Half-Life model of two bones forward, the sampler decodes each frame once, in
/// runs of eight (sixteen poses, what one conversion of the angles takes), shorter at the end
/// of a sequence, never across one; the poses are `pose::sample`'s.
#[test]
fn playing_forward_decodes_each_frame_once_in_runs() {
    let bytes = crate::hl1::chain(2).write().unwrap();
    let model = Model::from_bytes(&bytes).unwrap();
    let pair = model.as_hl1().unwrap();
    // Sequences of 21, 3 and 1 frames.
    assert_eq!(pair.num_frames(), 25);
    let source = CountingRuns::new(pair);
    let mut sampler = Sampler::new(&source);
    play_forward(&mut sampler, pair, "first pass");
    assert_eq!(source.counting.decoded.get(), 25);
    assert_eq!(
        *source.runs.borrow(),
        [(0, 8), (8, 8), (16, 4), (20, 1), (21, 2), (23, 1), (24, 1)]
    );
    // Played again, as a loop: every frame is kept, nothing is decoded.
    play_forward(&mut sampler, pair, "again");
    assert_eq!(source.counting.decoded.get(), 25);
}

/// A sampler whose budget is smaller than the clip starts over when the next run would pass
/// it, keeping the frame the sample still needs: the poses stay `pose::sample`'s, each frame
/// is decoded once a pass, and a second pass decodes again. However small the budget, it
/// keeps the two runs a sample needs.
#[test]
fn a_sampler_past_its_budget_starts_over() {
    let bytes = crate::hl1::chain(2).write().unwrap();
    let model = Model::from_bytes(&bytes).unwrap();
    let pair = model.as_hl1().unwrap();
    let source = CountingRuns::new(pair);
    let mut sampler = Sampler::new(&source);
    sampler.set_budget(0);
    let mut passes = Vec::new();
    for pass in ["first pass", "second pass"] {
        let before = source.counting.decoded.get();
        play_forward(&mut sampler, pair, pass);
        passes.push(source.counting.decoded.get() - before);
    }
    // Each pass decodes every frame once, in the runs of the first pass above.
    assert_eq!(passes, [25, 25]);
    let runs = source.runs.borrow();
    assert_eq!(
        runs[..7],
        [(0, 8), (8, 8), (16, 4), (20, 1), (21, 2), (23, 1), (24, 1)]
    );
    assert_eq!(runs[..7], runs[7..]);
    // The budget counts whole poses of 32 bytes.
    let mut kept = skelmap::pose::KeptFrames::with_budget(100);
    assert_eq!(kept.budget(), 96);
    kept.set_budget(skelmap::pose::DEFAULT_BUDGET);
    assert_eq!(kept.budget(), 64 * 1024);
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
    step(0, 1, 2); // both (this source decodes one frame at a time)
    step(0, 1, 0); // the same pair
    step(1, 2, 1); // forward: frame 1 kept
    step(2, 3, 1);
    step(3, 2, 0); // backward over the same two
    step(1, 1, 0); // kept since the first call
    step(0, 3, 0); // any two kept frames
    // A jump on a fresh sampler: neither kept, both in one pass.
    let mut fresh = Sampler::new(&source);
    let before = source.decoded.get();
    fresh.sample(frames - 1, 0, 0.5, Interpolation::Nlerp, &mut out);
    assert_eq!(source.decoded.get() - before, 2);
    // Without a sampler, every sample decodes both frames.
    let before = source.decoded.get();
    pose::sample(&source, 1, 2, 0.5, Interpolation::Nlerp, &mut out);
    assert_eq!(source.decoded.get() - before, 2);
}
