//! Pre-weighted bone-space records, whichever format they come from: what the record kernels
//! (scalar, stream, prepared, dual-quaternion) read.

use glam::{Quat, Vec3A};

use super::{Model, View};
use crate::dpm;
use crate::pose::{BakeError, BakedFrames, Palette, PoseFrames, SkeletalMesh};
use crate::skin::dqs::{DualQuat, skin_dqs};
use crate::skin::{
    PreparedMesh, RecordsMesh, SimdLevel, SkinError, SkinMatrices, skin_scalar, skin_stream,
};
use crate::skm;

/// One mesh's pre-weighted records: a DPM's (big-endian) or an SKM's (little-endian) as the
/// file stores them, or a bind-pose mesh converted by
/// [`Model::weighted_records`](super::Model::weighted_records). Each method runs the record
/// kernel of that name on whichever it is.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub enum Records<'a> {
    /// A DPM mesh's records.
    Dpm(dpm::Mesh<'a>),
    /// An SKM mesh's records.
    Skm(skm::Mesh<'a>),
    /// Converted bind-pose records.
    Weighted(RecordsMesh<'a>),
}

/// Calls `$body` with `$m` bound to the concrete mesh.
macro_rules! each {
    ($records:expr, $m:ident => $body:expr) => {
        match $records {
            Records::Dpm($m) => $body,
            Records::Skm($m) => $body,
            Records::Weighted($m) => $body,
        }
    };
}

impl Records<'_> {
    /// Number of vertices.
    #[must_use]
    pub fn num_vertices(&self) -> usize {
        each!(self, m => m.num_vertices())
    }

    /// Number of influence records.
    #[must_use]
    pub fn num_records(&self) -> usize {
        each!(self, m => m.vertices().map(<[_]>::len).sum())
    }

    /// [`skin_scalar`]: the reference kernel.
    ///
    /// # Errors
    ///
    /// As [`skin_scalar`].
    pub fn skin_scalar(
        &self,
        palette: &Palette,
        positions: &mut [[f32; 3]],
        normals: &mut [[f32; 3]],
    ) -> Result<(), SkinError> {
        each!(self, m => skin_scalar(m, palette, positions, normals))
    }

    /// [`skin_stream`]: straight over the records, no preparation.
    ///
    /// # Errors
    ///
    /// As [`skin_stream`].
    pub fn skin_stream(
        &self,
        matrices: &SkinMatrices,
        level: SimdLevel,
        positions: &mut [[f32; 3]],
        normals: &mut [[f32; 3]],
    ) -> Result<(), SkinError> {
        each!(self, m => skin_stream(m, matrices, level, positions, normals))
    }

    /// [`skin_dqs`]: dual quaternions relative to `bind`.
    ///
    /// # Errors
    ///
    /// As [`skin_dqs`].
    pub fn skin_dqs(
        &self,
        bind: &Palette,
        deltas: &[DualQuat],
        positions: &mut [[f32; 3]],
        normals: &mut [[f32; 3]],
    ) -> Result<(), SkinError> {
        each!(self, m => skin_dqs(m, bind, deltas, positions, normals))
    }

    /// [`PreparedMesh::new`]: the records regrouped for the prepared kernel.
    #[must_use]
    pub fn prepare(&self) -> PreparedMesh {
        each!(self, m => PreparedMesh::new(m))
    }
}

impl<'a> From<RecordsMesh<'a>> for Records<'a> {
    fn from(mesh: RecordsMesh<'a>) -> Self {
        Records::Weighted(mesh)
    }
}

impl<'data> Model<'data> {
    /// Mesh `mesh`'s records as the file stores them (DPM, SKM); `None` for other formats
    /// (see [`Model::weighted_records`](super::Model::weighted_records)) or out of range.
    #[must_use]
    pub fn records(&self, mesh: usize) -> Option<Records<'_>> {
        match self.view() {
            View::Dpm(m) => m.mesh(mesh).map(Records::Dpm),
            View::Skm(m) => m.skm().mesh(mesh).map(Records::Skm),
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
