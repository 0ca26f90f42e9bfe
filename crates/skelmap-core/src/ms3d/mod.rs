//! MilkShape 3D MS3D: packed, strictly sequential, little-endian models with joints animated
//! by Euler-angle and position keys.
//!
//! - [`raw`]: the on-disk records of the 1.7.3 specification and the 1.8 tail;
//! - [`Ms3d`]: the validated view ([`Parse`](crate::Parse)) and its accessors;
//! - [`anim`]: rest and animated joint matrices, and vertices skinned with them;
//! - [`write`](mod@write): [`Builder`], which writes conversions (`Builder::from_asset`),
//!   fixtures and fuzz seeds.
//!
//! ## Layout and the optional tail
//!
//! Header, vertices, triangles, groups, materials, keyframer, joints: each section a `u16`
//! count and its records, read in one walk. MilkShape 1.8 may append a tail, read here as
//! "present if bytes remain": comments (sub-version 1), extra vertex weights (sub-version 1, 2
//! or 3: 6, 10 or 14-byte records), joint colours and model settings (sub-version 1 each).
//! A tail section with an unknown sub-version ends the tail with a warning; a known one that
//! is truncated or inconsistent is an error.
//!
//! ## Where the references disagree (`docs/formats/ms3d.md` § Quirks and decisions), the bytes of real files decide
//!
//! - Comment counts are `i32` (assimp reads `u16` and loses its place in the tail).
//! - Sub-version 3 vertex extras are 14 bytes (Irrlicht and Blender use 10).
//! - Sub-version 1 weights are scaled 0..=255, sub-versions 2 and 3 0..=100.
//! - The model comment is `{i32 length; text}` without an index (the majority reading; no
//!   sample carries one).
//! - A sub-version `i32` precedes the vertex extras (the 1.7.3 text omits it).
//!
//! ## What validation guarantees (`docs/formats/ms3d.md` § Validation)
//!
//! Magic and version 3 or 4; every record in bounds; counts within [`Limits`](crate::Limits);
//! triangle corners `< vertices`; group triangle indices `< triangles`; group materials −1 or
//! `< materials`; vertex joints (own and extra) −1 or `< joints`; joint names unique; parents
//! empty or an existing other joint, without cycles; every float finite; comment lengths in
//! bounds; extra-weight sums within the sub-version's scale. Warnings: no groups, triangle
//! group index out of range, smoothing group above 32, key times not increasing, more joints
//! than MilkShape's 128, 65 535 vertices or triangles, unknown tail sub-versions, trailing bytes.

pub mod anim;
pub mod raw;
mod validate;
mod view;
pub mod write;

pub use view::{Comment, CommentKind, Group, Joint, Ms3d, VertexExtra, VertexWeights};
pub use write::{Builder, GroupDef, JointDef, Tail};
