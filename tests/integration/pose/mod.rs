//! Animation (`skelmap::pose`): sampling, palettes, baked frames and frame groups on the
//! pre-weighted formats (DPM and SKM), and the bind-pose formats (MS3D, SL) through the same
//! types and the bind-pose kernels.

mod anim;
mod bindpose;
mod blend;
mod control;
mod framegroups;
mod ik;
mod local;
mod sampler;
mod soa;
