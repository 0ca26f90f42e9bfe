//! Skeletal animation: local poses sampled from a file's frames, palettes of world
//! transforms, and the scalar reference skinning kernel.
//!
//! - [`LocalPose`] holds one parent-relative rotation + translation per bone; [`sample`] blends
//!   two frames of any [`PoseFrames`] source (DPM 3×4 matrices decomposed into rotation and
//!   translation, SKP quaternions) with shortest-arc nlerp or slerp, never lerping raw
//!   matrices.
//! - [`Palette`] holds each bone's world transform, built in one forward pass (validation
//!   proved every parent precedes its children).
//! - [`skin::skin_scalar`] computes `pos = Σ M_b · (origin, influence)` and
//!   `nrm = Σ R_b · normal` per vertex over the pre-weighted records of any
//!   [`SkeletalMesh`](crate::SkeletalMesh): the obviously correct reference the faster
//!   kernels are measured against; [`dqs::skin_dqs`] blends dual quaternions instead,
//!   relative to the frame-0 bind pose.
//! - [`framegroups`]: named animations from frame names or a `.framegroups` sidecar.

pub mod dqs;
pub mod framegroups;
mod pose;
pub mod skin;

pub use pose::{Interpolation, LocalPose, Palette, PoseFrames, sample};
