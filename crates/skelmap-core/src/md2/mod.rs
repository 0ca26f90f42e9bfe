//! Quake II models (`IDP2`, version 8) (`docs/formats/md2.md`, id's Quake II
//! `qcommon/qfiles.h`).
//!
//! - [`raw`]: the on-disk records, with Quake II's names;
//! - [`Md2`]: the validated view: skin names, texture coordinates, triangles (each corner
//!   with its own texture coordinate), [`Frames`] of byte vertices each with its own scale
//!   and translate, and the [`GlCommands`] Quake II draws from; tweened by the morph kernel's
//!   [`Keyframe`](crate::skin::morph::Keyframe)s;
//! - [`write`](mod@write): [`Builder`], for fixtures, seeds and conversions.
//!
//! ## Validation rules
//!
//! Each rule has a test in `tests/integration/md2/` asserting its error and offset.
//!
//! 1. The magic is `IDP2` and the version 8.
//! 2. Counts, sizes and offsets are not negative; `num_xyz`, `num_tris` and `num_frames` are
//!    at least 1 and within [`Limits`](crate::Limits), `num_st` and `num_skins` within theirs.
//!    Past Quake II's own limits (2048 vertices, 4096 triangles, 512 frames, 32 skins) is a
//!    warning.
//! 3. `framesize` holds a frame's header and its `num_xyz` vertices (more is a warning: the
//!    frames are that far apart).
//! 4. The five arrays (skins, texture coordinates, triangles, frames, GL commands) each start
//!    after the header and after the one before them: none overlaps another; each lies inside
//!    the file. `ofs_end` is not past the file; short of the arrays or of the file, a
//!    warning.
//! 5. Skin names end with a NUL inside their 64 bytes (frame names, which no engine opens,
//!    are a warning).
//! 6. Triangle vertex indices lie in `0..num_xyz`, texture coordinate indices in
//!    `0..num_st` (both read unsigned, as DarkPlaces reads them).
//! 7. Every frame's scale and translate are finite, and so is the furthest position they
//!    unpack to (`scale · 255 + translate`).
//! 8. The GL command list walks from its first word to a count of 0 inside the list, every
//!    strip or fan inside it and every vertex index in `0..num_xyz`. An empty list, words
//!    after the 0 and texture coordinates that are not finite are warnings.
//! 9. Warnings, not errors: a skin side that is not positive (the mesh then has no texture
//!    coordinates), texture coordinates outside the skin, a normal index past the 162 (read
//!    as the table's first, as DarkPlaces' `Mod_ConvertAliasVerts` reads it).
//!
//! ## Texture coordinates, winding and animation
//!
//! Each triangle corner names its own texture coordinate, so they are per corner
//! (`s / skinwidth`, `t / skinheight`, as DarkPlaces and assimp compute them); the mesh's
//! vertices are the frames' `num_xyz`. Triangles are stored clockwise seen from the front;
//! [`Model`](crate::Model)'s meshes give them counter-clockwise. Every frame has its own
//! scale and translate: a tween unpacks both frames and blends the positions,
//! `(1 − t) · pa + t · pb`, the same bits at every SIMD level. Clips come from frame names
//! (`stand01`, `stand02` … make `stand`).

pub mod raw;
mod validate;
mod view;
pub mod write;

pub use view::{Frame, FrameIter, Frames, GlCommand, GlCommands, Md2, NORMAL_TABLE};
pub use write::Builder;
