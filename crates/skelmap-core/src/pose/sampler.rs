//! Sampling one source again and again, as a game plays a clip: the frames decoded last are
//! kept, so that playing forward decodes at most one new frame a sample rather than two, and
//! a clip of two frames none at all. A frame is decoded with the frames after it that its
//! source decodes together for little more ([`PoseFrames::frame_run_poses_into`]): a
//! Half-Life skeleton of a few bones fills the sixteen lanes its angles are converted in with
//! the next frames, which the next samples then find kept. ozz-animation's
//! `SamplingJob::Context` plays the same part.

use glam::{Quat, Vec3A};

use super::PoseFrames;
use super::local::{Interpolation, LocalPose, blend_in_place, nlerp_frames, sample_fused};

/// A sampling context for one source: [`sample`](super::sample)'s results, bit for bit, with
/// the last two frames it decoded kept for the next call.
///
/// It pays where frames are decoded from the file on every sample and the format has no
/// pass of its own that blends while it decodes: Half-Life's run-length channels (and a
/// Half-Life model with its bone controllers set), MS3D's keys. Formats with such a pass
/// (DPM, IQM, MD5, [`BakedFrames`](super::BakedFrames)) sample through it, as `sample`
/// does, and keep nothing. The context borrows its source, so what it keeps cannot go
/// stale; a model with other controller settings is another source, with a context of its
/// own. It keeps two runs of frames (on Half-Life two frames, or for a skeleton of at most
/// eight bones as many as fit in sixteen lanes) and allocates only while they grow.
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

/// The frames a sampling context keeps between samples: two runs of consecutive frames and
/// their poses. Opaque; a [`Sampler`] holds one for its source, and
/// [`model::Sampler`](crate::model::Sampler) one for its model, through
/// [`ModelView::sample_kept`](crate::view::ModelView::sample_kept).
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
#[derive(Debug, Default)]
pub struct KeptFrames {
    kept: [Kept; 2],
}

/// The most frames a sampling context asks its source for at once.
const RUN: usize = 16;

/// A run of consecutive frames a sampling context keeps: which, and their poses, frame
/// after frame.
#[derive(Debug, Default)]
struct Kept {
    first: usize,
    count: usize,
    /// Poses a frame (every frame of a run has as many).
    stride: usize,
    poses: Vec<(Quat, Vec3A)>,
}

impl Kept {
    #[inline]
    fn holds(&self, frame: usize) -> bool {
        frame
            .checked_sub(self.first)
            .is_some_and(|k| k < self.count)
    }

    /// The poses of `frame`, which it holds.
    #[inline]
    fn poses(&self, frame: usize) -> &[(Quat, Vec3A)] {
        let start = frame.saturating_sub(self.first).saturating_mul(self.stride);
        self.poses
            .get(start..)
            .map_or(&[], |p| p.get(..self.stride).unwrap_or(p))
    }

    /// Records that it holds `count` frames from `first`, its poses already written.
    fn set(&mut self, first: usize, count: usize) {
        (self.first, self.count) = (first, count);
        self.stride = self.poses.len() / count.max(1);
    }
}

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
    /// Forgets every frame it keeps (their memory stays for the next).
    pub fn clear(&mut self) {
        for kept in &mut self.kept {
            kept.count = 0;
        }
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
        let (slot_a, slot_b) = self.keep(source, a, b);
        let (from, to) = (self.kept[slot_a].poses(a), self.kept[slot_b].poses(b));
        if interpolation == Interpolation::Nlerp && from.len() == bones {
            // Straight from the kept frames into `out`, without copying frame `a` first.
            nlerp_frames(from, to, t, &mut out.bones);
            return;
        }
        out.bones.clear();
        out.bones.extend_from_slice(self.kept[slot_a].poses(a));
        out.bones.resize(bones, (Quat::IDENTITY, Vec3A::ZERO));
        // A bone missing from frame `b` keeps its pose from `a`, as `sample` leaves it.
        let to = self.kept[slot_b].poses(b);
        blend_in_place(&mut out.bones, to, t, interpolation);
    }

    /// Makes sure frames `a` and `b` of `source` are kept, decoding what is not; returns their
    /// slots. A missing frame is decoded with the frames after it that its source decodes
    /// together ([`PoseFrames::frame_run_poses_into`]): playing forward, the next samples find
    /// them kept. Two frames further apart than a run, both missing, are decoded in one pass
    /// ([`PoseFrames::frame_pair_poses_into`]).
    fn keep<'data, S: PoseFrames<'data>>(
        &mut self,
        source: &S,
        a: usize,
        b: usize,
    ) -> (usize, usize) {
        let slot = |kept: &[Kept; 2], frame| kept.iter().position(|k| k.holds(frame));
        match (slot(&self.kept, a), slot(&self.kept, b)) {
            (Some(i), Some(j)) => (i, j),
            (Some(i), None) => {
                self.decode(source, 1 - i, b);
                (i, 1 - i)
            }
            (None, Some(j)) => {
                self.decode(source, 1 - j, a);
                (1 - j, j)
            }
            (None, None) if b.checked_sub(a).is_some_and(|d| d < RUN) => {
                self.decode(source, 0, a);
                if self.kept[0].holds(b) {
                    (0, 0)
                } else {
                    self.decode(source, 1, b);
                    (0, 1)
                }
            }
            (None, None) => {
                let [ka, kb] = &mut self.kept;
                ka.poses.clear();
                kb.poses.clear();
                source.frame_pair_poses_into(a, b, &mut ka.poses, &mut kb.poses);
                ka.set(a, 1);
                kb.set(b, 1);
                (0, 1)
            }
        }
    }

    /// Frame `frame` of `source`, and the frames it decodes with it, into slot `slot`.
    fn decode<'data, S: PoseFrames<'data>>(&mut self, source: &S, slot: usize, frame: usize) {
        let kept = &mut self.kept[slot];
        kept.poses.clear();
        let count = source.frame_run_poses_into(frame, RUN, &mut kept.poses);
        kept.set(frame, count);
    }
}
