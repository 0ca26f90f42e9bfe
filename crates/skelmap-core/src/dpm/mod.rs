//! DarkPlaces DPM: skeletal models with hierarchical 3×4 bone poses, big-endian.
//!
//! - [`raw`]: the on-disk structs, as in `model_dpmodel.h`;
//! - [`Dpm`]: the validated zero-copy view ([`Parse`](crate::Parse)) and its accessors;
//! - [`write`](mod@write): [`Builder`], which writes files in dpmodel's order.
//!
//! ## Semantics worth knowing
//!
//! - Frame 0 is the bind pose; meshes store no rest positions. A vertex is rebuilt as the sum
//!   over its influences of `R_b · origin + influence · t_b` with bone `b`'s absolute frame-0
//!   transform; origins and normals are stored pre-multiplied by the influence.
//! - Poses are relative to the parent bone, and a parent always precedes its children.
//! - Texture coordinates are stored with `t` already flipped (`1 - t`).
//! - Triangles are counter-clockwise.
//!
//! ## What validation guarantees
//!
//! Every rule of `docs/formats/dpm.md` § Validation: the magic and type; `filesize ≤ len` (a smaller declared
//! size is honoured with a warning); at least one bone, mesh and frame and the [`Limits`]
//! on each; every table and per-mesh array in bounds (checked `u64` arithmetic); parents
//! `-1 ≤ parent < index`; pose blocks at non-negative offsets and in bounds; meshes with
//! at least one vertex and triangle; the variable-length vertex walk (`1 ≤ numbones ≤ limit`,
//! records in bounds, `bonenum < num_bones`, total influences bounded); triangle indices
//! `< num_verts`; finite pose and influence values. Oddities that engines tolerate are
//! [`Diagnostics`] warnings: influence sums, bounds, layout order, trailing bytes, unknown
//! bone flags, unterminated names, non-finite texture coordinates. Rotation rows of length
//! zero and rotations that are not rotations are judged apart, by [`Dpm::check_rotations`].
//!
//! [`Limits`]: crate::Limits
//! [`Diagnostics`]: crate::Diagnostics

pub mod raw;
mod validate;
mod view;
pub mod write;

pub use crate::pose::Bone;
pub use view::{Dpm, Frame, Mesh};
pub use write::{BoneDef, Bounds, Builder, FrameDef, Influence, Layout, MeshDef};
