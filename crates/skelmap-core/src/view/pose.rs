//! A sampled pose, ready to deform meshes, and why deforming can fail.

use glam::Affine3A;

use crate::format::Format;
use crate::pose::{LocalPose, Palette};
use crate::skin::morph::MorphError;
use crate::skin::{SkinError, SkinMatrices};

/// Why a pose, a deformation or a preparation could not be made.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum DeformError {
    /// A mesh index past the model's meshes.
    #[error("mesh {mesh} does not exist: the model has {meshes}")]
    NoMesh {
        /// The mesh asked for.
        mesh: usize,
        /// Meshes the model has.
        meshes: usize,
    },
    /// A frame index past the model's frames.
    #[error("frame {frame} does not exist: the model has {frames}")]
    NoFrame {
        /// The frame asked for.
        frame: usize,
        /// Frames the model has.
        frames: usize,
    },
    /// An attachment index past the model's attachments.
    #[error("attachment {attachment} does not exist: the model has {attachments}")]
    NoAttachment {
        /// The attachment asked for.
        attachment: usize,
        /// Attachments the model has.
        attachments: usize,
    },
    /// A bone index past the model's bones.
    #[error("bone {bone} does not exist: the model has {bones}")]
    NoBone {
        /// The bone asked for.
        bone: usize,
        /// Bones the model has.
        bones: usize,
    },
    /// A blend factor that is NaN or infinite.
    #[error("blend factor {0} is not finite")]
    Blend(f32),
    /// A time that is NaN or infinite.
    #[error("time {0} s is not finite")]
    Time(f32),
    /// A clip whose frames lie past the model's, or whose rate is not positive.
    #[error("clip frames {first}..{end} at {fps} fps do not fit the model's {frames} frames")]
    Clip {
        /// The clip's first frame.
        first: u32,
        /// One past its last frame.
        end: u64,
        /// Its rate.
        fps: f32,
        /// Frames the model has.
        frames: usize,
    },
    /// A pose that was never sampled.
    #[error("the pose has not been sampled")]
    NotSampled,
    /// A pose of bones for a vertex-animated model, or of frames for a skeletal one.
    #[error("a pose of {found} cannot deform a {format} model")]
    WrongPose {
        /// What the pose holds (`bones` or `frames`).
        found: &'static str,
        /// The model's format.
        format: Format,
    },
    /// [`Model::pose_local`](crate::Model::pose_local) given a pose of another number of
    /// bones than the model has.
    #[error("a pose of {found} bones cannot pose a model of {bones}")]
    PoseBones {
        /// Bones the pose holds.
        found: usize,
        /// Bones the model has.
        bones: usize,
    },
    /// [`Model::prepare`](crate::Model::prepare) on a model without a skeleton.
    #[error("{0} models are not skinned: they have no skeleton to prepare")]
    NotSkeletal(Format),
    /// Dual quaternions asked for a pose in which a bone scales (IQM, MDR), which they cannot
    /// express: skin that pose linearly ([`Compact::skin`](crate::model::Compact::skin)).
    #[error(
        "bone {bone} scales by {scale}: dual quaternions cannot express scale; skin this pose \
         linearly"
    )]
    Scale {
        /// The first bone that scales.
        bone: usize,
        /// Its largest scale factor.
        scale: f32,
    },
    /// [`Model::static_mesh`](crate::Model::static_mesh) on a model, or
    /// [`Model::static_clip`](crate::Model::static_clip) on a clip, of other than one frame.
    #[error("{frames} frames are not one: only a single frame is a static mesh")]
    NotStatic {
        /// Frames of the model or the clip.
        frames: usize,
    },
    /// A skinning kernel refused (a pose with fewer bones than the mesh uses, a short
    /// output).
    #[error(transparent)]
    Skin(#[from] SkinError),
    /// The morph refused (a short output).
    #[error(transparent)]
    Morph(#[from] MorphError),
}

#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) enum Sampled {
    #[default]
    Nothing,
    Bones,
    Frames {
        a: usize,
        b: usize,
        t: f32,
    },
}

/// A sampled pose, ready to deform meshes: bone transforms (local, world and in the kernels'
/// layouts) for skeletal formats, a frame pair for vertex-animated ones. Reused from call to
/// call, it allocates only when a model has more bones than it held before.
#[derive(Debug, Clone, Default)]
pub struct Pose {
    pub(crate) sampled: Sampled,
    pub(crate) local: LocalPose,
    pub(crate) palette: Palette,
    /// The palette in kernel layouts, with the skin scales; for bind-pose formats with an
    /// identity appended for unbound vertices ([`WeightedRecords::unbound_bone`](crate::skin::WeightedRecords::unbound_bone)).
    pub(crate) matrices: SkinMatrices,
    /// Bind-pose formats: per bone `world(t) · skin scale · world(bind)⁻¹`.
    pub(crate) relative: Vec<Affine3A>,
    /// The palette the kernels read, when it is not `palette` itself: with the skin scales
    /// applied, and for bind-pose formats the unbound bone's identity appended.
    pub(crate) extended: Palette,
    /// Skeletal formats whose frames also replace vertices (MDL7): the pose's bind-space
    /// vertices, which the bones then move.
    pub(crate) frame_vertices: FrameVertices,
    /// A number no other writing of a pose in the process has, given by every function that
    /// writes one ([`Pose::restamp`]); 0 for a pose never written. A check of a pose's
    /// matrices a model makes once a mesh (is it the stored pose?) is remembered by it.
    pub(crate) stamp: u64,
}

/// The bind-space mesh of a skeletal pose whose frames also replace vertices (an MDL7 whose
/// frames carry vertices beside their bone matrices): the frames' replacements applied to the
/// stored vertices and tweened, before the bones move them. Empty for every other pose.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FrameVertices {
    pub(crate) replaced: Vec<u32>,
    pub(crate) positions: Vec<[f32; 3]>,
    pub(crate) normals: Vec<[f32; 3]>,
}

impl FrameVertices {
    /// The vertices either of the pose's frames replaces, ascending and each once (every
    /// other vertex is as stored).
    #[must_use]
    pub fn replaced(&self) -> &[u32] {
        &self.replaced
    }

    /// Every vertex's bind-space position in this pose (empty when no frame replaces one).
    #[must_use]
    pub fn positions(&self) -> &[[f32; 3]] {
        &self.positions
    }

    /// Every vertex's bind-space normal in this pose (empty when no frame replaces one).
    #[must_use]
    pub fn normals(&self) -> &[[f32; 3]] {
        &self.normals
    }

    /// `true` when the pose replaces no vertex.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.replaced.is_empty()
    }

    /// Replaces nothing (keeping the allocations).
    pub(crate) fn clear(&mut self) {
        self.replaced.clear();
        self.positions.clear();
        self.normals.clear();
    }
}

impl Pose {
    /// Gives the pose a new [`stamp`](Pose::stamp): called by every function that writes
    /// one, before it writes, so that two poses of one stamp hold the same transforms.
    pub(crate) fn restamp(&mut self) {
        static NEXT: core::sync::atomic::AtomicU64 = core::sync::atomic::AtomicU64::new(1);
        self.stamp = NEXT.fetch_add(1, core::sync::atomic::Ordering::Relaxed);
    }

    /// The parent-relative poses (empty for vertex-animated models).
    #[must_use]
    pub fn local(&self) -> &LocalPose {
        &self.local
    }

    /// The world transforms, one per bone (empty for vertex-animated models).
    #[must_use]
    pub fn palette(&self) -> &Palette {
        &self.palette
    }

    /// The world transforms in the kernels' layouts, with the pose's skin scales (for
    /// bind-pose formats with one identity more, for unbound vertices).
    #[must_use]
    pub fn matrices(&self) -> &SkinMatrices {
        &self.matrices
    }

    /// The palette the record kernels use with this pose ([`Model::records`](crate::Model::records),
    /// [`Model::weighted_records`](crate::Model::weighted_records)): [`Pose::palette`] with the
    /// pose's [skin scales](LocalPose::skin_scales) applied
    /// ([`Palette::apply_skin_scales`]), and for bind-pose formats one identity more, for
    /// unbound vertices ([`WeightedRecords::unbound_bone`](crate::skin::WeightedRecords::unbound_bone)).
    #[must_use]
    pub fn record_palette(&self) -> &Palette {
        if self.extended.world.is_empty() {
            &self.palette
        } else {
            &self.extended
        }
    }

    /// The frame pair and blend factor of a vertex-animated model's pose.
    #[must_use]
    pub fn frames(&self) -> Option<(usize, usize, f32)> {
        match self.sampled {
            Sampled::Frames { a, b, t } => Some((a, b, t)),
            _ => None,
        }
    }

    /// The bind-space vertices this pose's frames replace, for a skeletal model whose frames
    /// also carry vertices (MDL7; see [`Model::frames_replace_vertices`](crate::Model::frames_replace_vertices)):
    /// deforming replaces them before skinning. Empty for every other pose.
    #[must_use]
    pub fn frame_vertices(&self) -> &FrameVertices {
        &self.frame_vertices
    }

    /// `true` once sampled.
    #[must_use]
    pub fn is_sampled(&self) -> bool {
        self.sampled != Sampled::Nothing
    }
}
