//! The alias-model family: what Quake's MDL (`IDPO`) and its GameStudio descendants (MDL2 to
//! MDL5, HMP terrains, MDL7) share, so that each of their format folders reads it from here
//! and none reads another's.
//!
//! - [`raw`]: the 84-byte MDL header (Quake's `mdl_t`) and the MDL7-style skin flags and
//!   material record;
//! - [`anorms`]: the 162-entry table of unit normals the packed frames index;
//! - [`skin`]: the embedded skins (textures): their record layouts, validation and decoding
//!   to RGBA8;
//! - [`idp3`]: the records Quake III's MD3 and RtCW's MDC share, and blending a tag between
//!   frames; [`idp3_write`]: what writing them shares (the frame, tag and surface definitions,
//!   fitting an asset into them);
//! - [`tween`]: tweening a model's packed frames by index ([`tween::PackedModel`]).

pub mod anorms;
pub mod idp3;
pub mod idp3_write;
pub mod pack;
pub mod raw;
pub mod skin;
pub mod tween;

pub use skin::{PixelFormat, Skin};
