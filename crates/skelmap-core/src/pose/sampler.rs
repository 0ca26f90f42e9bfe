//! Sampling one source again and again, as a game plays a clip: the frames decoded last are
//! kept, so that playing forward decodes one new frame a sample rather than two, and a clip
//! of two frames none at all. ozz-animation's `SamplingJob::Context` plays the same part.

use glam::{Quat, Vec3A};

use super::PoseFrames;
use super::local::{Interpolation, LocalPose, blend_in_place, sample_fused};

/// A sampling context for one source: [`sample`](super::sample)'s results, bit for bit, with
/// the last two frames it decoded kept for the next call.
///
/// It pays where frames are decoded from the file on every sample and the format has no
/// pass of its own that blends while it decodes: Half-Life's run-length channels (and a
/// Half-Life model with its bone controllers set), MS3D's keys. Formats with such a pass
/// (DPM, IQM, MD5, [`BakedFrames`](super::BakedFrames)) sample through it, as `sample`
/// does, and keep nothing. The context borrows its source, so what it keeps cannot go
/// stale; a model with other controller settings is another source, with a context of its
/// own. It allocates on its first samples only (two frames of poses).
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
    /// The frames decoded last.
    kept: [Kept; 2],
}

/// A frame a [`Sampler`] keeps: which, and its poses.
#[derive(Debug, Default)]
struct Kept {
    frame: Option<usize>,
    poses: Vec<(Quat, Vec3A)>,
}

impl<'s, 'data, S: PoseFrames<'data>> Sampler<'s, S> {
    /// A context for `source`, keeping nothing yet.
    #[must_use]
    pub fn new(source: &'s S) -> Self {
        Sampler {
            source,
            kept: [Kept::default(), Kept::default()],
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
        let source = self.source;
        let last = source.num_frames().saturating_sub(1);
        let (a, b) = (a.min(last), b.min(last));
        let bones = source.skeleton_bones().len();
        if sample_fused(source, (a, b, t), interpolation, bones, out) {
            return;
        }
        let (slot_a, slot_b) = self.keep(a, b);
        out.bones.clear();
        out.bones.extend_from_slice(&self.kept[slot_a].poses);
        out.bones.resize(bones, (Quat::IDENTITY, Vec3A::ZERO));
        // A bone missing from frame `b` keeps its pose from `a`, as `sample` leaves it.
        blend_in_place(&mut out.bones, &self.kept[slot_b].poses, t, interpolation);
    }

    /// Makes sure frames `a` and `b` are kept, decoding what is not (both in one pass when
    /// neither is); returns their slots.
    fn keep(&mut self, a: usize, b: usize) -> (usize, usize) {
        let slot = |kept: &[Kept; 2], frame| kept.iter().position(|k| k.frame == Some(frame));
        let source = self.source;
        match (slot(&self.kept, a), slot(&self.kept, b)) {
            (Some(i), Some(j)) => (i, j),
            (Some(i), None) => {
                let j = 1 - i;
                self.decode(j, b);
                (i, j)
            }
            (None, Some(j)) => {
                let i = 1 - j;
                self.decode(i, a);
                (i, j)
            }
            (None, None) if a == b => {
                self.decode(1, a);
                (1, 1)
            }
            (None, None) => {
                let [ka, kb] = &mut self.kept;
                ka.poses.clear();
                kb.poses.clear();
                source.frame_pair_poses_into(a, b, &mut ka.poses, &mut kb.poses);
                (ka.frame, kb.frame) = (Some(a), Some(b));
                (0, 1)
            }
        }
    }

    /// Frame `frame` decoded into slot `slot`.
    fn decode(&mut self, slot: usize, frame: usize) {
        let kept = &mut self.kept[slot];
        kept.poses.clear();
        self.source.frame_poses_into(frame, &mut kept.poses);
        kept.frame = Some(frame);
    }
}
