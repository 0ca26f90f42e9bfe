//! 3D GameStudio MDL3/MDL4/MDL5 models and HMP5/HMP7 terrains (`FORMATS.md` §4–5).
//!
//! - [`raw`]: the on-disk records;
//! - [`Mdl`]: validated models (skins, skin vertices, triangles, packed frames);
//! - [`Hmp`]: validated terrains and their grid mesh;
//! - [`skin`]: skin records and RGBA8 decoding; [`anorms`]: the 162-entry normal table;
//! - [`morph`]: frame unpacking and tweening; [`write`](mod@write): builders for fixtures.
//!
//! MDL2 and MDL7 (and HMP4) are recognised by their magic and refused as unsupported, naming
//! the version.

pub mod anorms;
mod hmp;
mod mdl;
pub mod morph;
pub mod raw;
pub mod skin;
pub mod write;

pub use hmp::{Hmp, HmpVersion, TerrainMesh};
pub use mdl::{Mdl, MdlFrame, MdlVersion, PackedVertices};
pub use skin::{PixelFormat, Skin};
