//! Local poses stored as structure of arrays: what the blend reads fastest.

use glam::{Quat, Vec3A};

use super::PoseFrames;
use super::local::{Interpolation, LocalPose, sample};

/// Bones a block.
pub(crate) const BLOCK_BONES: usize = 16;

/// Sixteen bones' poses as seven rows of 16 floats: rotation `x`, `y`, `z`, `w`, then
/// translation `x`, `y`, `z`.
///
/// Lane `4l + j` of every row holds bone `4j + l` of the block (the order in which a 4×4
/// transpose of each 128-bit quarter turns four rows into the records of four consecutive
/// bones). Lanes past the pose's last bone hold the identity.
#[derive(Debug, Clone, Copy, PartialEq)]
#[repr(C, align(64))]
pub(crate) struct SoaBlock {
    pub(crate) rows: [[f32; BLOCK_BONES]; 7],
}

impl SoaBlock {
    /// Sixteen identities.
    const IDENTITY: SoaBlock = {
        let mut rows = [[0.0; BLOCK_BONES]; 7];
        let mut lane = 0;
        while lane < BLOCK_BONES {
            rows[3][lane] = 1.0;
            lane += 1;
        }
        SoaBlock { rows }
    };
}

/// The lane of a block that holds bone `bone` (see [`SoaBlock`]).
#[inline]
pub(crate) const fn lane_of(bone: usize) -> usize {
    let b = bone % BLOCK_BONES;
    4 * (b % 4) + b / 4
}

/// A [`LocalPose`] stored as structure of arrays, 16 bones a block, each block aligned to a
/// cache line: the layout ozz-animation's `SoaTransform` has, and the one
/// [`Blender::blend_soa`](super::blend::Blender::blend_soa) reads without regrouping.
///
/// Sample it with [`sample_soa`] (or [`Model::sample_soa`](crate::Model::sample_soa)), which
/// writes DPM's rotations and translations in this layout as its sampler computes them;
/// other formats are sampled as a [`LocalPose`] and copied in. Scales, where a format has
/// them, are kept per bone as in [`LocalPose::scales`].
///
/// ```
/// use skelmap_core::glam::{Quat, Vec3A};
/// use skelmap_core::pose::{LocalPose, SoaPose};
/// let mut local = LocalPose::default();
/// local.bones = (0..20).map(|b| (Quat::from_rotation_y(0.1 * b as f32), Vec3A::splat(b as f32))).collect();
/// let soa = SoaPose::from_local(&local);
/// assert_eq!(soa.len(), 20);
/// assert_eq!(soa.bone(17), Some(local.bones[17]));
/// let mut back = LocalPose::default();
/// soa.to_local(&mut back);
/// assert_eq!(back, local);
/// ```
#[derive(Debug, Clone, Default)]
pub struct SoaPose {
    pub(crate) blocks: Vec<SoaBlock>,
    bones: usize,
    /// Per bone, the scale applied before the rotation; empty when no bone scales, as in
    /// [`LocalPose::scales`].
    pub scales: Vec<Vec3A>,
    /// Per bone, the scale of its own vertices, as in [`LocalPose::skin_scales`].
    pub skin_scales: Vec<f32>,
    /// Scratch: the pose of formats sampled as a [`LocalPose`] first.
    scratch: LocalPose,
}

impl PartialEq for SoaPose {
    fn eq(&self, other: &Self) -> bool {
        self.bones == other.bones
            && self.blocks == other.blocks
            && self.scales == other.scales
            && self.skin_scales == other.skin_scales
    }
}

impl SoaPose {
    /// `local` in this layout.
    #[must_use]
    pub fn from_local(local: &LocalPose) -> SoaPose {
        let mut soa = SoaPose::default();
        soa.copy_from_local(local);
        soa
    }

    /// Number of bones.
    #[must_use]
    pub fn len(&self) -> usize {
        self.bones
    }

    /// Whether the pose has no bones.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.bones == 0
    }

    /// Bone `bone`'s rotation and translation, `None` past the last bone.
    #[must_use]
    pub fn bone(&self, bone: usize) -> Option<(Quat, Vec3A)> {
        if bone >= self.bones {
            return None;
        }
        let r = &self.blocks[bone / BLOCK_BONES].rows;
        let l = lane_of(bone);
        Some((
            Quat::from_xyzw(r[0][l], r[1][l], r[2][l], r[3][l]),
            Vec3A::new(r[4][l], r[5][l], r[6][l]),
        ))
    }

    /// Sets bone `bone`'s rotation and translation; nothing past the last bone.
    pub fn set_bone(&mut self, bone: usize, (q, t): (Quat, Vec3A)) {
        if bone >= self.bones {
            return;
        }
        let r = &mut self.blocks[bone / BLOCK_BONES].rows;
        let l = lane_of(bone);
        for (row, v) in r.iter_mut().zip([q.x, q.y, q.z, q.w, t.x, t.y, t.z]) {
            row[l] = v;
        }
    }

    /// `bones` bones (the new ones the identity), reusing the allocation.
    ///
    /// Every lane past the last bone holds the identity, always: a pose that shrinks resets
    /// the lanes it drops, so one that grows again finds them so.
    pub fn resize(&mut self, bones: usize) {
        let blocks = bones.div_ceil(BLOCK_BONES);
        for bone in bones..self.bones.min(blocks * BLOCK_BONES) {
            self.set_identity_lane(bone);
        }
        self.blocks.resize(blocks, SoaBlock::IDENTITY);
        self.bones = bones;
    }

    fn set_identity_lane(&mut self, bone: usize) {
        let r = &mut self.blocks[bone / BLOCK_BONES].rows;
        let l = lane_of(bone);
        for (k, row) in r.iter_mut().enumerate() {
            row[l] = if k == 3 { 1.0 } else { 0.0 };
        }
    }

    /// Replaces this pose by `local` (bones, scales and skin scales), reusing the allocation.
    pub fn copy_from_local(&mut self, local: &LocalPose) {
        self.resize(local.bones.len());
        for (bone, &pose) in local.bones.iter().enumerate() {
            self.set_bone(bone, pose);
        }
        self.scales.clone_from(&local.scales);
        self.skin_scales.clone_from(&local.skin_scales);
    }

    /// This pose as a [`LocalPose`] into `out` (bones, scales and skin scales replaced, its
    /// sampling scratch kept).
    pub fn to_local(&self, out: &mut LocalPose) {
        out.bones.clear();
        out.bones
            .extend((0..self.bones).filter_map(|bone| self.bone(bone)));
        out.scales.clone_from(&self.scales);
        out.skin_scales.clone_from(&self.skin_scales);
    }

    /// The pose `fill` samples as a [`LocalPose`] (into this pose's scratch, reusing its
    /// allocations) copied in, where `fill` returns `true`; untouched where it returns
    /// `false`. Returns what `fill` returned.
    pub(crate) fn fill_from(&mut self, fill: impl FnOnce(&mut LocalPose) -> bool) -> bool {
        let mut scratch = core::mem::take(&mut self.scratch);
        let filled = fill(&mut scratch);
        if filled {
            self.copy_from_local(&scratch);
        }
        self.scratch = scratch;
        filled
    }
}

/// [`sample`] into a [`SoaPose`]: the same poses, bit for bit. DPM computes them in this
/// layout ([`Interpolation::Nlerp`], 16 bones a step with AVX-512); other sources are
/// sampled as a [`LocalPose`] and copied in.
///
/// ```
/// use skelmap_core::Parse;
/// use skelmap_core::dpm::Dpm;
/// use skelmap_core::pose::{Interpolation, LocalPose, SoaPose, sample, sample_soa};
/// let bytes = skelmap_core::synth::tube(&Default::default()).write()?;
/// let dpm = Dpm::parse(&bytes)?;
/// let (mut local, mut soa, mut back) = (LocalPose::default(), SoaPose::default(), LocalPose::default());
/// sample(&dpm, 2, 3, 0.25, Interpolation::Nlerp, &mut local);
/// sample_soa(&dpm, 2, 3, 0.25, Interpolation::Nlerp, &mut soa);
/// soa.to_local(&mut back);
/// assert_eq!(back, local);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn sample_soa<'data, S: PoseFrames<'data>>(
    source: &S,
    a: usize,
    b: usize,
    t: f32,
    interpolation: Interpolation,
    out: &mut SoaPose,
) {
    let last = source.num_frames().saturating_sub(1);
    let (a, b) = (a.min(last), b.min(last));
    if interpolation == Interpolation::Nlerp && !source.has_scale() && !source.has_skin_scale() {
        let bones = source.skeleton_bones().len();
        if source.nlerp_frames_soa_into(a, b, t, out) {
            out.resize(bones);
            out.scales.clear();
            out.skin_scales.clear();
            return;
        }
    }
    out.fill_from(|scratch| {
        sample(source, a, b, t, interpolation, scratch);
        true
    });
}
