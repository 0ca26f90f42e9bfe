//! Skeletal animation: local poses sampled from a file's frames, palettes of world
//! transforms, and the skinning kernels.
//!
//! - [`LocalPose`] holds one parent-relative rotation + translation per bone; [`sample`] blends
//!   two frames of any [`PoseFrames`] source (DPM 3×4 matrices decomposed into rotation and
//!   translation, SKP quaternions, MS3D keys on its frame timeline, SL keyframes) with
//!   shortest-arc nlerp or slerp, never lerping raw matrices. MS3D and SL also sample at a time
//!   in seconds with their own key interpolation (`ms3d::anim::local_pose_at`,
//!   `SlAnim::sample`).
//! - [`BakedFrames`] converts every frame once (the explicit copy a runtime sampling the same
//!   model every frame makes), after which sampling is a load and a blend.
//! - [`Palette`] holds each bone's world transform, built in one forward pass (validation
//!   proved every parent precedes its children; MS3D, whose files do not order joints, is
//!   built in its computed hierarchy order).
//! - The kernels compute `pos = Σ M_b · (origin, influence)` and `nrm = Σ R_b · normal` per
//!   vertex over the pre-weighted records of any [`SkeletalMesh`](crate::SkeletalMesh) (DPM
//!   or SKM):
//!   - [`skin::skin_scalar`]: the obviously correct reference the others are tested against;
//!   - [`skin_stream`]: straight over the mapped records in file order, no preparation (one
//!     32-byte record per AVX2 register, a big-endian file byte-swapped with one shuffle);
//!   - [`PreparedMesh`]: records regrouped once into 16-lane structure-of-arrays blocks
//!     bucketed by influence count, then skinned with AVX-512 or AVX2 (bones looked up with
//!     in-register permutes up to 64 / 16 bones, gathers above), in original or prepared
//!     vertex order, split over rayon threads by chunks of [`CHUNK_VERTICES`];
//!     [`skin_batch`] skins many instances across threads;
//!   - [`dqs::skin_dqs`]: dual-quaternion blending relative to the frame-0 bind pose.
//!
//!   Meshes stored in their bind pose with up to four weighted bones per vertex
//!   ([`BindPoseMesh`]: MS3D, SL mdl) are skinned by [`skin_bind_lbs`] or [`skin_bind_dqs`]
//!   with the per-bone `world(t) · world(bind)⁻¹` of [`Palette::relative_to`].
//!
//!   [`SimdLevel::detect`] picks the instruction set at run time; every kernel also takes an
//!   explicit lower level. [`SkinMatrices`] is the palette in the layouts the kernels read.
//! - [`framegroups`]: named animations from frame names or a `.framegroups` sidecar;
//!   [`bounds`]: per-frame bounds computed from skinned vertices.

mod baked;
pub(crate) mod bindpose;
pub(crate) mod blocks;
pub mod bounds;
pub mod dqs;
pub mod framegroups;
mod level;
mod matrices;
pub(crate) mod output;
mod pose;
mod prepared;
pub mod skin;
mod stream;

pub use baked::{BakeError, BakedFrames, MAX_BAKED_POSES};
pub use bindpose::{BindPoseMesh, BindVertex, skin_bind_dqs, skin_bind_lbs, skin_bind_positions};
pub use level::SimdLevel;
pub use matrices::SkinMatrices;
pub use output::SkinnedVertex;
pub use pose::{Interpolation, LocalPose, Palette, PoseFrames, sample};
pub use prepared::{CHUNK_VERTICES, PreparedMesh, SkinJob, VertexOrder, skin_batch};
pub use stream::{skin_stream, skin_stream_vertices};
