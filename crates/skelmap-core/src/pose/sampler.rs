//! Sampling one source again and again, as a game plays a clip: the frames decoded are
//! kept, up to a budget, so that a clip played forward decodes each frame once, and played
//! again (a loop) none. A frame is decoded with the frames after it that its source decodes
//! together for little more ([`PoseFrames::frame_run_poses_into`]): a Half-Life skeleton of a
//! few bones fills the sixteen lanes its angles are converted in with the next frames, which
//! the next samples then find kept. ozz-animation's `SamplingJob::Context` plays the same
//! part beside an animation whose keys are decoded once, offline.

use glam::{Quat, Vec3A};

use super::PoseFrames;
use super::local::{Interpolation, LocalPose, blend_in_place, nlerp_frames, sample_fused};

/// A sampling context for one source: [`sample`](super::sample)'s results, bit for bit, with
/// the frames it decoded kept for the next calls.
///
/// It pays where frames are decoded from the file on every sample and the format has no
/// pass of its own that blends while it decodes: Half-Life's run-length channels (and a
/// Half-Life model with its bone controllers set), MS3D's keys. Formats with such a pass
/// (DPM, IQM, MD5, MDX and MDM, [`BakedFrames`](super::BakedFrames)) sample through it, as `sample`
/// does, and keep nothing. The context borrows its source, so what it keeps cannot go
/// stale; a model with other controller settings is another source, with a context of its
/// own. It keeps every frame it decodes until its budget
/// ([`DEFAULT_BUDGET`] bytes of poses unless [`set_budget`](Sampler::set_budget) says
/// otherwise; never less than two runs of frames) would be passed, then forgets them all but
/// the one frame the sample still needs, and goes on from there. It allocates only while what it keeps grows, and a table of eight bytes a
/// frame of the source on its first sample.
///
/// ```
/// use skelmap_core::Model;
/// use skelmap_core::hl1::Builder;
/// use skelmap_core::pose::{self, Interpolation, LocalPose, Sampler};
/// let bytes = Builder::example().write()?;
/// let model = Model::from_bytes(&bytes)?;
/// let pair = model.as_hl1().unwrap();
/// let mut sampler = Sampler::new(pair);
/// let (mut kept, mut fresh) = (LocalPose::default(), LocalPose::default());
/// for frame in 0..3 {
///     // Frame `frame` was decoded by the previous call: only `frame + 1` is new.
///     sampler.sample(frame, frame + 1, 0.25, Interpolation::Nlerp, &mut kept);
///     pose::sample(pair, frame, frame + 1, 0.25, Interpolation::Nlerp, &mut fresh);
///     assert_eq!(kept, fresh);
/// }
/// # Ok::<(), skelmap_core::Error>(())
/// ```
#[derive(Debug)]
pub struct Sampler<'s, S> {
    source: &'s S,
    kept: KeptFrames,
}

/// How many bytes of decoded poses a sampling context keeps unless told otherwise: 64 KiB,
/// 2 048 poses of 32 bytes (a Half-Life character of 50 bones playing a clip of 40 frames
/// keeps all of it).
pub const DEFAULT_BUDGET: usize = 64 * 1024;

/// The bytes of one kept pose.
const POSE_BYTES: usize = size_of::<(Quat, Vec3A)>();

/// The frames a sampling context keeps between samples and their poses. Opaque; a
/// [`Sampler`] holds one for its source, and [`model::Sampler`](crate::model::Sampler) one
/// for its model, through [`ModelView::sample_kept`](crate::view::ModelView::sample_kept).
///
/// ```
/// use skelmap_core::Model;
/// use skelmap_core::hl1::Builder;
/// use skelmap_core::pose::{Interpolation, KeptFrames, LocalPose};
/// use skelmap_core::view::ModelView;
/// let bytes = Builder::example().write()?;
/// let model = Model::from_bytes(&bytes)?;
/// let pair = model.as_hl1().ok_or("not Half-Life")?;
/// let (mut kept, mut out, mut fresh) = (KeptFrames::default(), LocalPose::default(), LocalPose::default());
/// // Frames 0 and 1 decoded and kept; the same pair again decodes nothing.
/// pair.sample_kept(&mut kept, (0, 1, 0.5), Interpolation::Nlerp, &mut out);
/// pair.sample_kept(&mut kept, (0, 1, 0.25), Interpolation::Nlerp, &mut out);
/// model.sample(0, 1, 0.25, Interpolation::Nlerp, &mut fresh);
/// assert_eq!(out, fresh);
/// kept.clear(); // before keeping frames of another view
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct KeptFrames {
    /// Per frame of the source, where its poses lie in `poses`: start and length, the start
    /// [`NOT_KEPT`] for a frame it does not keep.
    at: Vec<(u32, u32)>,
    /// The kept frames' poses, run after run.
    poses: Vec<(Quat, Vec3A)>,
    /// Frame `b`'s poses while a pair of frames far apart is decoded, before they join
    /// `poses`.
    scratch: Vec<(Quat, Vec3A)>,
    /// The most poses it keeps before it starts over (two runs of frames where that is more).
    budget: usize,
}

impl Default for KeptFrames {
    fn default() -> Self {
        KeptFrames::with_budget(DEFAULT_BUDGET)
    }
}

/// The start of a frame [`KeptFrames`] does not keep.
const NOT_KEPT: u32 = u32::MAX;

/// The most frames a sampling context asks its source for at once.
const RUN: usize = 16;

impl<'s, 'data, S: PoseFrames<'data>> Sampler<'s, S> {
    /// A context for `source`, keeping nothing yet.
    #[must_use]
    pub fn new(source: &'s S) -> Self {
        Sampler {
            source,
            kept: KeptFrames::default(),
        }
    }

    /// The source it samples.
    #[must_use]
    pub fn source(&self) -> &'s S {
        self.source
    }

    /// Keeps at most `bytes` of decoded poses ([`KeptFrames::set_budget`]).
    pub fn set_budget(&mut self, bytes: usize) {
        self.kept.set_budget(bytes);
    }

    /// [`sample`](super::sample)`(source, a, b, t, interpolation, out)`, the same poses bit for
    /// bit, decoding only the frames it does not keep.
    pub fn sample(
        &mut self,
        a: usize,
        b: usize,
        t: f32,
        interpolation: Interpolation,
        out: &mut LocalPose,
    ) {
        self.kept.sample(self.source, (a, b, t), interpolation, out);
    }
}

impl KeptFrames {
    /// Keeping nothing yet, and at most `bytes` of decoded poses (see [`set_budget`]).
    ///
    /// [`set_budget`]: KeptFrames::set_budget
    #[must_use]
    pub fn with_budget(bytes: usize) -> Self {
        let mut kept = KeptFrames {
            at: Vec::new(),
            poses: Vec::new(),
            scratch: Vec::new(),
            budget: 0,
        };
        kept.set_budget(bytes);
        kept
    }

    /// Keeps at most `bytes` of decoded poses from the next frame it decodes on: when the runs
    /// a sample may decode would pass them, every kept frame but the one the sample still
    /// needs is forgotten first.
    /// However small, it keeps the two runs of frames one sample needs (on a skeleton of `n`
    /// bones, up to 32 × `n` poses of 32 bytes).
    pub fn set_budget(&mut self, bytes: usize) {
        // Starts stay below `NOT_KEPT` whatever the budget.
        self.budget = (bytes / POSE_BYTES).min(u32::MAX as usize / 4);
    }

    /// The most bytes of decoded poses it keeps (what [`set_budget`](KeptFrames::set_budget)
    /// was given, rounded down to whole poses).
    #[must_use]
    pub fn budget(&self) -> usize {
        self.budget * POSE_BYTES
    }

    /// Forgets every frame it keeps (their memory stays for the next).
    pub fn clear(&mut self) {
        self.at.clear();
        self.poses.clear();
    }

    /// [`sample`](super::sample)`(source, a, b, t, interpolation, out)` through the frames it
    /// keeps. Crate-only: every call must give the source it kept frames of (or follow a
    /// [`clear`](KeptFrames::clear)), which [`Sampler`] and `model::Sampler` make sure of.
    pub(crate) fn sample<'data, S: PoseFrames<'data>>(
        &mut self,
        source: &S,
        (a, b, t): (usize, usize, f32),
        interpolation: Interpolation,
        out: &mut LocalPose,
    ) {
        let last = source.num_frames().saturating_sub(1);
        let (a, b) = (a.min(last), b.min(last));
        let bones = source.skeleton_bones().len();
        if sample_fused(source, (a, b, t), interpolation, bones, out) {
            return;
        }
        self.keep(source, a, b, bones);
        let (from, to) = (self.poses_of(a), self.poses_of(b));
        if interpolation == Interpolation::Nlerp && from.len() == bones {
            // Straight from the kept frames into `out`, without copying frame `a` first.
            nlerp_frames(from, to, t, &mut out.bones);
            return;
        }
        out.bones.clear();
        out.bones.extend_from_slice(from);
        out.bones.resize(bones, (Quat::IDENTITY, Vec3A::ZERO));
        // A bone missing from frame `b` keeps its pose from `a`, as `sample` leaves it.
        blend_in_place(&mut out.bones, to, t, interpolation);
    }

    /// Whether it keeps frame `frame`.
    #[inline]
    fn holds(&self, frame: usize) -> bool {
        self.at
            .get(frame)
            .is_some_and(|&(start, _)| start != NOT_KEPT)
    }

    /// The poses of frame `frame`: empty when it does not keep it.
    #[inline]
    fn poses_of(&self, frame: usize) -> &[(Quat, Vec3A)] {
        let Some(&(start, len)) = self.at.get(frame).filter(|&&(s, _)| s != NOT_KEPT) else {
            return &[];
        };
        let start = start as usize;
        self.poses
            .get(start..start.saturating_add(len as usize))
            .unwrap_or_default()
    }

    /// Makes sure frames `a` and `b` of `source` are kept, decoding what is not. A missing
    /// frame is decoded with the frames after it that its source decodes together
    /// ([`PoseFrames::frame_run_poses_into`]): playing forward, the next samples find them
    /// kept. Two frames further apart than a run, both missing, are decoded in one pass
    /// ([`PoseFrames::frame_pair_poses_into`]). Where two more runs of `bones` poses a frame
    /// would pass the budget, it starts over, keeping the one of the two it holds.
    fn keep<'data, S: PoseFrames<'data>>(&mut self, source: &S, a: usize, b: usize, bones: usize) {
        let frames = source.num_frames();
        if self.at.len() != frames {
            self.at.clear();
            self.at.resize(frames, (NOT_KEPT, 0));
            self.poses.clear();
        }
        let (has_a, has_b) = (self.holds(a), self.holds(b));
        if has_a && has_b {
            return;
        }
        let runs = 2 * RUN * bones.max(1);
        if self.poses.len().saturating_add(runs) > self.budget.max(runs) {
            self.start_over(if has_a { a } else { b });
        }
        match (has_a, has_b) {
            (true, _) => self.decode(source, b),
            (false, true) => self.decode(source, a),
            (false, false) if b.checked_sub(a).is_some_and(|d| d < RUN) => {
                self.decode(source, a);
                if !self.holds(b) {
                    self.decode(source, b);
                }
            }
            (false, false) => {
                let start = self.poses.len();
                self.scratch.clear();
                source.frame_pair_poses_into(a, b, &mut self.poses, &mut self.scratch);
                self.record(a, 1, start);
                let start = self.poses.len();
                self.poses.extend_from_slice(&self.scratch);
                self.record(b, 1, start);
            }
        }
    }

    /// Forgets every frame but `frame` (which it may not keep), whose poses move to the
    /// front: a sample that needs one new frame keeps the other.
    fn start_over(&mut self, frame: usize) {
        let kept = self.at.get(frame).copied().filter(|&(s, _)| s != NOT_KEPT);
        self.at.fill((NOT_KEPT, 0));
        let Some((start, len)) = kept else {
            self.poses.clear();
            return;
        };
        let (start, len) = (start as usize, len as usize);
        if let Some(end) = start
            .checked_add(len)
            .filter(|&end| end <= self.poses.len())
        {
            self.poses.copy_within(start..end, 0);
            self.poses.truncate(len);
            self.record(frame, 1, 0);
        } else {
            self.poses.clear();
        }
    }

    /// Frame `frame` of `source`, and the frames it decodes with it, kept.
    fn decode<'data, S: PoseFrames<'data>>(&mut self, source: &S, frame: usize) {
        let start = self.poses.len();
        let count = source.frame_run_poses_into(frame, RUN, &mut self.poses);
        self.record(frame, count, start);
    }

    /// Records that the poses from `start` to the end are those of `count` frames from
    /// `first`, as many to each.
    fn record(&mut self, first: usize, count: usize, start: usize) {
        let len = self.poses.len().saturating_sub(start) / count.max(1);
        let as_u32 = |n: usize| u32::try_from(n).unwrap_or(NOT_KEPT);
        for (k, slot) in self.at.iter_mut().skip(first).take(count).enumerate() {
            *slot = (as_u32(start + k * len), as_u32(len));
        }
    }
}
