//! Inter-Quake Model (IQM) version 2: skeletal meshes in their bind pose, joints with
//! translation, rotation and scale, animations quantised to 16-bit channels, little-endian.
//!
//! - [`raw`]: the on-disk structs, as in the IQM SDK's `iqm.h`;
//! - [`Iqm`]: the validated zero-copy view ([`Parse`](crate::Parse)) and its accessors;
//! - [`write`](mod@write): [`Builder`], which writes files in the SDK's order;
//! - [`Pair`]: an IQM playing its own frames or those of an animation-only IQM, matched by
//!   joint name or by index (`animate.rs`).
//!
//! ## Semantics worth knowing
//!
//! - Vertices are stored in the bind pose the joints describe. A joint's local transform is
//!   `translate · rotate · scale` (scale first), relative to its parent; a vertex moves by
//!   `Σ w · world(t) · world(bind)⁻¹` over its four blend indexes, weights in 255ths.
//! - Vertex arrays are global: a mesh is a range of triangles, and its triangles may index any
//!   vertex. [`Model`](crate::Model) sees one mesh with one submesh per IQM mesh.
//! - A frame stores, per pose, only the channels its mask selects; each value is
//!   `channeloffset + u16 · channelscale`. Where a pose's values sit in a frame depends on
//!   the masks before it: [`Pair::layout`] resolves that once per model (the binding of an
//!   animation-only IQM to the model's joints included), on the first sample (the second of
//!   a model playing its own frames: the first walks the poses), and sampling through it
//!   decodes and blends 16 joints a step
//!   ([`ChannelLayout`](crate::pose::ChannelLayout)). The [`Iqm`] view sampled on its own
//!   decodes pose by pose, to the same bits.
//! - A file may hold only animation (poses and anims, no joints or meshes), to be applied to
//!   a model with the same skeleton.
//!
//! ## What validation guarantees
//!
//! Every rule of `docs/formats/iqm.md` § Validation: the magic and version 2; `filesize` ≤ the
//! data (a smaller one honoured with a warning); the [`Limits`]; every section at or after the
//! header and in bounds (checked `u64` arithmetic; unaligned ones warned and read unaligned);
//! vertex arrays of known types and formats with sizes their types allow, inside the file,
//! their floats finite and blend indexes below the joint (or pose) count; triangle indices
//! below `num_vertexes` and adjacency below `num_triangles` or none; mesh ranges inside the
//! totals; every string offset naming a string terminated inside the text; joint and pose
//! parents earlier or negative, and equal to each other; `num_poses` equal to `num_joints`,
//! 0, or anything without joints; the frame channels the masks count; anim ranges inside the
//! frames; finite transforms, channels, rates and bounds; an extension chain of exactly
//! `num_extensions` links.
//!
//! [`Limits`]: crate::Limits

mod animate;
pub mod raw;
mod validate;
mod view;
pub mod write;

pub use animate::Pair;
pub use validate::MAX_CUSTOM_SIZE;
pub use view::{Anim, Extension, FrameBounds, Iqm};
pub use write::{AnimDef, ArrayDef, BoundsDef, Builder, JointDef, MeshDef, Transform};
