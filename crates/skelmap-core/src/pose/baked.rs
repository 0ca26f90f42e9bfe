//! Frames converted once to rotations and translations: the explicit copy that makes
//! sampling a load and a blend.
//!
//! Sampling straight from a file converts every bone of both frames on every call (a DPM 3×4
//! matrix to a quaternion, byte-swapped from big-endian; an SKP quaternion normalised). A
//! runtime that samples the same model many times per second bakes it once: [`BakedFrames`]
//! holds every frame's `(rotation, translation)` per bone (32 bytes each, less than a DPM
//! pose's 48 on disk) and is itself a [`PoseFrames`] and a [`Skeleton`] (it copies the
//! source's bones and hierarchy order), so [`sample`](super::sample) and
//! [`Palette::build`](super::Palette::build) take it in place of the file.

use glam::{Quat, Vec3A};

use super::PoseFrames;
use super::local::nlerp_frames;
use crate::pose::{Bone, Skeleton};

/// The most poses (frames × bones) [`BakedFrames::new`] converts by default: 4 Mi, 128 MiB.
/// A DPM or SKP is bounded by its file size long before; an MS3D's frame count is a header
/// field that no data backs.
pub const MAX_BAKED_POSES: usize = 1 << 22;

/// Why frames were not baked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum BakeError {
    /// The source has more poses than the limit allows.
    #[error("baking {poses} poses (frames × bones) exceeds the limit of {max}")]
    TooLarge {
        /// Frames × bones of the source.
        poses: u64,
        /// The limit.
        max: u64,
    },
}

/// Every frame of a [`PoseFrames`] source as parent-relative `(rotation, translation)` per
/// bone, rotations unit length, with a copy of the source's bones (and its scales and skin
/// scales). Sampling gives what sampling the source gives, bit for bit, except between the
/// frames of a format whose engine blends frames by a rule of its own (ET's MDX): baked
/// frames blend their poses.
///
/// ```
/// use skelmap_core::Parse;
/// use skelmap_core::pose::{self, BakedFrames, Interpolation, LocalPose, Palette};
/// use skelmap_core::skin;
/// use skelmap_core::{dpm::Dpm, synth};
///
/// let bytes = synth::tube(&synth::TubeParams::default()).write()?;
/// let model = Dpm::parse(&bytes)?;
/// let baked = BakedFrames::new(&model)?;
/// let (mut direct, mut fast) = (LocalPose::default(), LocalPose::default());
/// pose::sample(&model, 1, 2, 0.25, Interpolation::Nlerp, &mut direct);
/// pose::sample(&baked, 1, 2, 0.25, Interpolation::Nlerp, &mut fast);
/// assert_eq!(direct, fast);
/// let mut palette = Palette::default();
/// palette.build(&baked, &fast);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct BakedFrames<'data> {
    bones: Vec<Bone<'data>>,
    order: Option<Vec<u16>>,
    frames: usize,
    poses: Vec<(Quat, Vec3A)>,
    /// Per frame and bone, the scale; empty for a source without scale.
    scales: Vec<Vec3A>,
    /// Per frame and bone, the skin scale; empty for a source without them.
    skin_scales: Vec<f32>,
}

impl<'data> BakedFrames<'data> {
    /// Converts every frame of `source` (frames × bones poses, at most [`MAX_BAKED_POSES`]).
    ///
    /// # Errors
    ///
    /// [`BakeError::TooLarge`] above the limit.
    pub fn new<S: PoseFrames<'data>>(source: &S) -> Result<Self, BakeError> {
        Self::with_limit(source, MAX_BAKED_POSES)
    }

    /// [`BakedFrames::new`] with a limit of `max_poses`.
    ///
    /// # Errors
    ///
    /// [`BakeError::TooLarge`] above `max_poses`.
    pub fn with_limit<S: PoseFrames<'data>>(
        source: &S,
        max_poses: usize,
    ) -> Result<Self, BakeError> {
        let (bones, frames) = (source.skeleton_bones().len(), source.num_frames());
        let poses = bones.checked_mul(frames).filter(|&n| n <= max_poses);
        let Some(count) = poses else {
            return Err(BakeError::TooLarge {
                poses: (bones as u64).saturating_mul(frames as u64),
                max: max_poses as u64,
            });
        };
        let shape = (frames, bones, count);
        // The conversion sampling uses, so baked frames sample exactly like the file.
        let poses = per_bone(shape, (Quat::IDENTITY, Vec3A::ZERO), |frame, out| {
            source.frame_poses_into(frame, out);
        });
        let scales = if source.has_scale() {
            per_bone(shape, Vec3A::ONE, |f, out| source.frame_scales_into(f, out))
        } else {
            Vec::new()
        };
        let skin_scales = if source.has_skin_scale() {
            per_bone(shape, 1.0, |f, out| source.frame_skin_scales_into(f, out))
        } else {
            Vec::new()
        };
        Ok(BakedFrames {
            bones: source.skeleton_bones().collect(),
            order: source.hierarchy_order().map(<[u16]>::to_vec),
            frames,
            poses,
            scales,
            skin_scales,
        })
    }

    /// The poses of `frame`, one per bone, or `None` out of range.
    #[must_use]
    pub fn frame(&self, frame: usize) -> Option<&[(Quat, Vec3A)]> {
        self.poses.get(self.frame_range(frame)?)
    }

    /// Where `frame`'s entries lie in the per-frame-and-bone arrays.
    fn frame_range(&self, frame: usize) -> Option<std::ops::Range<usize>> {
        let bones = self.bones.len();
        let start = frame.checked_mul(bones)?;
        Some(start..start.checked_add(bones)?)
    }
}

/// Per frame, what `fill` appends for it, cut or padded with `default` to `bones` entries:
/// `count` (frames × bones, which the caller has checked) in all.
fn per_bone<T: Copy>(
    (frames, bones, count): (usize, usize, usize),
    default: T,
    mut fill: impl FnMut(usize, &mut Vec<T>),
) -> Vec<T> {
    let mut out = Vec::with_capacity(count);
    for frame in 0..frames {
        let start = out.len();
        fill(frame, &mut out);
        out.truncate(start + bones);
        out.resize(start + bones, default);
    }
    out
}

/// The source's bones and hierarchy.
impl<'data> Skeleton<'data> for BakedFrames<'data> {
    fn skeleton_bones(&self) -> impl ExactSizeIterator<Item = Bone<'data>> + Clone {
        self.bones.iter().copied()
    }

    fn hierarchy_order(&self) -> Option<&[u16]> {
        self.order.as_deref()
    }

    fn bone(&self, index: usize) -> Option<Bone<'data>> {
        self.bones.get(index).copied()
    }
}

impl<'data> PoseFrames<'data> for BakedFrames<'data> {
    fn num_frames(&self) -> usize {
        self.frames
    }

    fn bone_pose(&self, frame: usize, bone: usize) -> Option<(Quat, Vec3A)> {
        self.frame(frame)?.get(bone).copied()
    }

    fn frame_poses(&self, frame: usize) -> impl Iterator<Item = (Quat, Vec3A)> + '_ {
        self.frame(frame).unwrap_or_default().iter().copied()
    }

    fn frame_poses_into(&self, frame: usize, out: &mut Vec<(Quat, Vec3A)>) {
        out.extend_from_slice(self.frame(frame).unwrap_or_default());
    }

    /// Frame `a` copied into `out`, then blended towards frame `b` in place by `sample`'s own
    /// blend: no copy of `b`.
    fn nlerp_frames_into(&self, a: usize, b: usize, t: f32, out: &mut Vec<(Quat, Vec3A)>) -> bool {
        let (Some(a), Some(b)) = (self.frame(a), self.frame(b)) else {
            return false;
        };
        nlerp_frames(a, b, t, out);
        true
    }

    fn has_scale(&self) -> bool {
        !self.scales.is_empty()
    }

    fn frame_scales_into(&self, frame: usize, out: &mut Vec<Vec3A>) {
        if let Some(scales) = self.frame_range(frame).and_then(|r| self.scales.get(r)) {
            out.extend_from_slice(scales);
        }
    }

    fn has_skin_scale(&self) -> bool {
        !self.skin_scales.is_empty()
    }

    fn frame_skin_scales_into(&self, frame: usize, out: &mut Vec<f32>) {
        if let Some(scales) = self
            .frame_range(frame)
            .and_then(|r| self.skin_scales.get(r))
        {
            out.extend_from_slice(scales);
        }
    }
}
