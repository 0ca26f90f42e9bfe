//! DarkPlaces ZYM (`ZYMOTICMODEL`, type 1): skeletal models of big-endian lumps, vertices
//! stored relative to one bone, scenes as clips.
//!
//! - [`raw`]: the on-disk structs, as in `model_zymotic.h`;
//! - [`Zym`]: the validated zero-copy view ([`Parse`](crate::Parse)) and its accessors;
//! - [`write`](mod@write): [`Builder`], which writes files in the header's lump order.
//!
//! ## Semantics worth knowing
//!
//! - Poses are row-major 3×4 matrices relative to the parent bone, 48 bytes each (the
//!   header's comment says 6 floats; DarkPlaces' loader, the truth, reads 12). Pose 0 is the
//!   bind pose.
//! - A vertex is one bone and a point in that bone's pose-0 space; its model-space position
//!   at pose `k` is that bone's world matrix at pose `k` times the point. The bind-pose mesh
//!   ([`BindPoseMesh`](crate::pose::BindPoseMesh)) is the one DarkPlaces builds at load; no
//!   normals are stored.
//! - Sampling follows DarkPlaces: rotation rows normalised, children's translations
//!   multiplied by the root's pose-0 scale ([`Zym::model_scale`]).
//! - Scenes are the clips; the render list draws a run of triangles per shader, stored
//!   clockwise (reported counter-clockwise); texture coordinates are reported with `t`
//!   flipped, as DarkPlaces draws them.
//!
//! ## What validation guarantees
//!
//! Every rule of `docs/formats/zym.md` § Validation: the magic and type 1 (types 0 and 2 are
//! [`Error::Unsupported`](crate::Error::Unsupported)); the declared size; every count at
//! least 1, not negative and within [`Limits`](crate::Limits); every lump in bounds and of
//! the exact length its counts need; at least one whole pose, every pose value finite;
//! parents `-1 ≤ parent < index`; scenes within the poses at a finite, non-negative rate;
//! one influence per vertex, each naming a bone, with a finite origin; the render list's runs
//! summing to `numtris` and ending at its end, every index a vertex. Oddities engines
//! tolerate are [`Diagnostics`](crate::Diagnostics) warnings.

pub mod raw;
mod validate;
mod view;
pub mod write;

pub use view::{Run, Scene, Zym};
pub use write::{BoneDef, Builder, SceneDef, ShaderDef, VertexDef};
