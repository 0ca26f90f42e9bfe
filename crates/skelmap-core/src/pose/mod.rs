//! Animation, blind to formats: local poses, their sampling, palettes of world transforms,
//! named clips, and the traits a format implements to be animated and skinned.
//!
//! - [`LocalPose`] holds one parent-relative rotation + translation per bone; [`sample`]
//!   blends two frames of any [`PoseFrames`] source with shortest-arc nlerp or slerp, never
//!   lerping raw matrices.
//! - [`SoaPose`] holds the same pose as structure of arrays, 16 bones a cache-aligned block
//!   (ozz-animation's `SoaTransform` layout): what [`blend::Blender::blend_soa`] reads
//!   without regrouping; [`sample_soa`] fills it (DPM's sampler writes it directly).
//! - [`ChannelLayout`] resolves once where each bone's quantised channels (IQM's) sit in a
//!   frame, after which sampling decodes and blends two frames 16 bones a step.
//! - [`BakedFrames`] converts every frame once (the explicit copy a runtime sampling the same
//!   model every frame makes), after which sampling is a load and a blend.
//! - [`Palette`] holds each bone's world transform, built in one forward pass when parents
//!   precede children, otherwise in the skeleton's [`Skeleton::hierarchy_order`].
//! - [`LocalPose::set_bone`], [`LocalPose::mul_bone`] and their model-space forms steer
//!   bones by hand (DarkPlaces' `skel_set_bone`/`skel_mul_bone`), and
//!   [`Palette::build_from`] rebuilds one bone's sub-tree only (ozz's `LocalToModelJob`
//!   range).
//! - [`TwoBoneIk`] and [`AimIk`] solve two-bone and aim inverse kinematics on model-space
//!   transforms, as ozz-animation's `IKTwoBoneJob` and `IKAimJob` define them, returning the
//!   local rotations to apply.
//! - [`blend`]: poses blended with weights and bone masks over a rest pose, and additive
//!   layers on top, as ozz-animation's `BlendingJob` blends them.
//! - [`framegroups`]: named animations from frame names or a `.framegroups` sidecar;
//!   [`bounds`]: axis-aligned boxes; [`is_rotation`]: whether a stored matrix is a rotation.
//!
//! The traits a format implements:
//!
//! | trait | what it gives | implemented by |
//! |---|---|---|
//! | [`Skeleton`] | bones: names, parents, flags, hierarchy order | every skeletal view: DPM, SKP and paired SKM, ZYM, IQM, MD5, Half-Life, MDR, MDX and paired MDM, PSA and paired PSK, MDL7, MS3D, SL `.anim`; [`BakedFrames`]; the vertex-animated views, with no bones |
//! | [`PoseFrames`] | frames of parent-relative poses | the same skeletal views (MS3D from its timeline, SL `.anim` from its keyframes); [`BakedFrames`] |
//! | [`SkeletalMesh`] | pre-weighted bone-space vertex records | DPM and SKM meshes, MD5 meshes (decoded at open), MDR and MDM surfaces (laid out on their first skinning) |
//! | [`BindPoseMesh`] | bind-pose vertices with up to [`MAX_BIND_INFLUENCES`] weights | IQM, PSK, ZYM, Half-Life, MDL7, MS3D, SL mdl |
//!
//! The kernels that consume them live in [`skin`](crate::skin). Nothing here names a format.

pub mod animation_cfg;
mod baked;
pub mod blend;
mod block;
pub mod bounds;
mod channels;
mod control;
pub(crate) mod euler;
pub mod framegroups;
mod frames;
mod ik;
pub(crate) mod lanes;
pub(crate) mod local;
mod mesh;
pub(crate) mod rotation;
mod sampler;
mod skeleton;
mod soa;
#[cfg(target_arch = "x86_64")]
mod x86;

pub use baked::{BakeError, BakedFrames, MAX_BAKED_POSES};
pub(crate) use channels::unit_rotation;
pub use channels::{BoneChannels, ChannelLayout, NUM_CHANNELS};
pub use control::ControlError;
pub use frames::PoseFrames;
pub use ik::{AimIk, AimIkCorrection, TwoBoneIk, TwoBoneIkCorrection};
pub use local::{Interpolation, LocalPose, Palette, Root, sample};
pub(crate) use local::{nlerp_frames, nlerp_pose};
pub use mesh::{
    BindPoseMesh, BindVertex, FourInfluences, MAX_BIND_INFLUENCES, MeshGeometry, SkeletalMesh,
};
pub use rotation::{ORTHONORMAL_TOLERANCE, is_rotation};
pub use sampler::{DEFAULT_BUDGET, KeptFrames, Sampler};
pub(crate) use skeleton::parent_table;
pub use skeleton::{BONE_FLAG_ATTACHMENT, Bone, NO_PARENT, Skeleton};
pub(crate) use soa::{BLOCK_BONES, SoaBlock};
pub use soa::{SoaPose, sample_soa};
