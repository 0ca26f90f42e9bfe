//! 3D GameStudio MDL3/MDL4/MDL5 models and HMP5/HMP7 terrains (`docs/formats/{mdl,hmp}.md`).
//!
//! - [`raw`]: the on-disk records;
//! - [`Mdl`]: validated models (skins, skin vertices, triangles, packed frames);
//! - [`Hmp`]: validated terrains and their grid mesh;
//! - [`skin`]: skin records and RGBA8 decoding; [`anorms`]: the 162-entry normal table
//!   (both shared with Quake models, in [`alias`](crate::alias), and re-exported here);
//! - [`morph`]: frame unpacking and tweening; [`write`](mod@write): builders for conversions
//!   and fixtures.
//!
//! MDL2 has Quake's layout and is read by [`quake`](crate::quake) ([`Model`](crate::Model)
//! opens it); [`Mdl`] refuses it, pointing there. MDL7 is read by [`mdl7`](crate::mdl7)
//! ([`Mdl`] refuses it, pointing there); HMP4 is recognised by its magic and refused as
//! unsupported, naming the version.
//!
//! ## HMP7, derived from the bytes of the public files
//!
//! HMP7 shares the 84-byte header. Its skins are MDL7-style records (see [`skin`]). Each
//! frame is `i32 type` (2), a word-packed bounding box (2 × 8 bytes), a 16-byte name, then per vertex `u16 z, i8 normal_x, i8 normal_y` (4 bytes).
//! With these, both public HMP7 files are read from the first to the last byte: 84 + 36 +
//! 1089 · 4 = 4476 bytes for `terrain.hmp` (no skin), and for the other one a single
//! 512×512 `0x1C` skin of 12 + 786 432 + 258 048 (three mips) + 68 (material) bytes in
//! between. HMP7 stores only a normal's X and Y, as `i8`; skelmap reads the normal as
//! `(−x, y) / 127` with `z = √(1 − x² − y²)`. No document states this. It was measured on
//! `gex4_terrain.hmp` against the normals of its own height field (central differences) on
//! the grid as laid out below:
//! - read as `(−x, y)`: mean cosine 0.9995 over the 961 interior vertices, minimum 0.971;
//! - read as `(x, y)`: mean cosine 0.684, minimum −0.57.
//!
//! So either the stored X has the opposite sign convention, or GameStudio mirrors the grid in
//! X. Negating X keeps the documented layout and its triangle winding.
//!
//! ## The grid
//!
//! `numverts_x = fnumverts_x` (which must be integral), `numverts_y = numverts / numverts_x`;
//! vertex `iy · numverts_x + ix` lies at `x = ix · ftrisize_x`, `y = iy · ftrisize_y`,
//! `z = scale_z · h + offset_z`. The origin is vertex 0 (GameStudio does not document one).

mod frames;
pub mod morph;
pub mod raw;
mod terrain;
pub(crate) mod validate;
mod view;
pub mod write;

pub use crate::alias::{PixelFormat, Skin, anorms, skin};
pub use frames::{FrameIter, Frames, HmpFrameIter, HmpFrames, MdlFrameIter, MdlFrames};
pub use terrain::{Hmp, HmpFrame, HmpVersion, TerrainMesh};
pub use view::{Mdl, MdlFrame, MdlVersion, PackedVertices};
pub use write::{HmpBuilder, MdlBuilder};
