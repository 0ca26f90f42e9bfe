//! Pre-weighted bone-space records, whichever format they come from: what the record kernels
//! (scalar, stream, prepared, dual-quaternion) read.

use glam::{Quat, Vec3A};

use super::{Model, View};
use crate::pose::{BakeError, BakedFrames, PoseFrames};
use crate::skin::{Records, RecordsMesh};

impl<'data> Model<'data> {
    /// Mesh `mesh`'s records as the file stores them (DPM, SKM); `None` for other formats
    /// (see [`Model::weighted_records`](super::Model::weighted_records)) or out of range.
    #[must_use]
    pub fn records(&self, mesh: usize) -> Option<Records<'_>> {
        match self.view() {
            View::Dpm(m) => m.mesh(mesh).map(|x| RecordsMesh::of(&x).into()),
            View::Skm(m) => m.skm().mesh(mesh).map(|x| RecordsMesh::of(&x).into()),
            _ => None,
        }
    }

    /// Every frame converted once ([`BakedFrames`]), after which sampling is a load and a
    /// blend; frames as [`Model::sample`] addresses them.
    ///
    /// # Errors
    ///
    /// [`BakeError::TooLarge`] past [`MAX_BAKED_POSES`](crate::pose::MAX_BAKED_POSES).
    pub fn bake(&self) -> Result<BakedFrames<'_>, BakeError> {
        BakedFrames::new(self.view())
    }
}

/// Every format's frames, one bone at a time (for baking: [`Model::sample`] is the fast path).
impl<'data> PoseFrames<'data> for View<'data> {
    fn num_frames(&self) -> usize {
        match self {
            View::Dpm(m) => m.num_frames(),
            View::Skm(m) => m.num_frames(),
            View::Skp(p) => p.num_frames(),
            View::Ms3d(m) => PoseFrames::num_frames(m),
            View::SlMdl(m) => m.anim().map_or(0, |a| a.num_frames()),
            View::SlAnim(a) => a.num_frames(),
            View::Mdl(_) | View::Hmp(_) | View::Quake(_) => 0,
        }
    }

    fn bone_pose(&self, frame: usize, bone: usize) -> Option<(Quat, Vec3A)> {
        match self {
            View::Dpm(m) => m.bone_pose(frame, bone),
            View::Skm(m) => m.bone_pose(frame, bone),
            View::Skp(p) => p.bone_pose(frame, bone),
            View::Ms3d(m) => m.bone_pose(frame, bone),
            View::SlMdl(m) => m.anim()?.bone_pose(frame, bone),
            View::SlAnim(a) => a.bone_pose(frame, bone),
            View::Mdl(_) | View::Hmp(_) | View::Quake(_) => None,
        }
    }
}
