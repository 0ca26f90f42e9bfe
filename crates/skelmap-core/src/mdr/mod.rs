//! ioquake3 skeletal models (`RDM5`, version 2; `docs/formats/mdr.md` for the layout, the
//! rules and the sources: ioquake3's `qfiles.h`, `tr_model.c`, `tr_animation.c`).
//!
//! - [`raw`]: the on-disk records, with ioquake3's names (the vertex and weight records are
//!   MD4's, which MDM keeps too: [`md4`](crate::md4) holds them, with the surface over them,
//!   its records and its validation walk);
//! - [`Mdr`]: the validated view: [`Frame`]s of model-space bone matrices, plain or
//!   compressed (decoded where read, as ioquake3's `MC_UnCompress` does), levels of detail
//!   ([`Lod`]) of [`Surface`]s of weighted vertices, and [`Tag`]s on bones (between frames,
//!   [`Mdr::tag_at`]);
//! - [`write`](mod@write): [`Builder`], for fixtures and seeds, both frame encodings.
//!
//! Every bone is a root whose local pose is its model-space matrix (MDR has no hierarchy);
//! frame 0 is the bind pose. LOD 0's surfaces are the model's meshes; each surface's weights
//! become pre-weighted records on its first skinning ([`Surface::records`]), so the record
//! kernels skin it exactly as ioquake3's `RB_MDRSurfaceAnim` sums it at a frame.
//!
//! ## Validation rules
//!
//! Each rule has a test in `tests/integration/mdr/rules.rs` asserting its error and offset.
//!
//! 1. The magic is `RDM5` and the version 2.
//! 2. `ofs_end` is not negative and not past the file (checked first, as ioquake3 does); short
//!    of the structures or the data, a warning.
//! 3. Counts are not negative; `num_frames` and `num_bones` are at least 1; frames, bones,
//!    tags (as bones), levels of detail and each one's surfaces (as meshes) within
//!    [`Limits`](crate::Limits). Past ioquake3's 128 bones, a warning.
//! 4. `ofs_frames` (its magnitude, for compressed frames) points past the header, and the
//!    frames lie inside the file.
//! 5. Every float of a frame (summary, and a plain frame's matrices) is finite.
//! 6. The tags lie past the header inside the file, names terminated, bones in range.
//! 7. The levels of detail are a chain from `ofs_lods`, past the header, each header inside
//!    the file, counts and offsets not negative, surfaces past the LOD header.
//! 8. Each LOD's surfaces are a chain, each header inside the file, `ofs_end` not negative,
//!    name and shader terminated.
//! 9. Vertex and triangle counts not negative and within the limits (past ioquake3's, a
//!    warning); their arrays start past the surface header.
//! 10. Every vertex and its weights lie inside the file, with 1 to
//!     `max_influences_per_vertex` weights, all surfaces' weights within
//!     `max_total_influences`.
//! 11. Every weight's bone is in range; normals, texture coordinates, weights and offsets
//!     are finite. Weights not summing to 1, a warning.
//! 12. The triangles lie inside the file, every index in `0..num_verts`.

pub mod raw;
mod validate;
mod view;
pub mod write;

pub use view::{Bones, Frame, Lod, Mdr, Surface, Tag, TagPose, Vertex, Vertices};
pub use write::Builder;
