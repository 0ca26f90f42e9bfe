//! Return to Castle Wolfenstein models (`IDPC`, version 2): Quake III's MD3 with its frames
//! compressed and its tags stored as angles (`docs/formats/mdc.md`, ET:Legacy's `qfiles.h`).
//!
//! - [`raw`]: the on-disk records, with ET:Legacy's names (the frame, shader, triangle,
//!   texture-coordinate and base-vertex records are MD3's, from [`alias`](crate::alias));
//! - [`Mdc`]: the validated view: frames, tag names and tags per frame ([`Tag`]: an origin in
//!   1/64 units and three angles, made into axes as the engines do; between frames,
//!   orthonormalised, [`Mdc::tag_at`]), and a [`Surface`] per mesh with its shaders,
//!   triangles, texture coordinates, base frames (MD3's `i16` positions and lat/long normals),
//!   compressed frames (a byte offset per axis from a base frame and an index into
//!   [`raw::MDC_NORMALS`]) and the tables saying which base and compressed frame each model
//!   frame uses;
//! - [`write`](mod@write): [`Builder`], for fixtures, seeds and benches, and
//!   [`SurfaceDef::compress`](write::SurfaceDef::compress).
//!
//! ## Validation rules
//!
//! Each rule has a test in `tests/integration/mdc/` asserting its error and offset.
//!
//! 1. The magic is `IDPC` and the version 2.
//! 2. Counts and offsets are not negative; `num_frames` is at least 1; frames, tags (as
//!    bones), surfaces (as meshes), and each surface's vertices, triangles, base and
//!    compressed frames are within [`Limits`](crate::Limits). Past ET:Legacy's own limits
//!    (10 000 vertices and 20 000 triangles a surface) is a warning.
//! 3. The frames, tag names and tags lie inside the file, after the header.
//! 4. Tag names end with a NUL inside their field.
//! 5. The surfaces are a chain from `ofs_surfaces`, each next one `ofs_end` after the one
//!    before, every surface header inside the file. A surface with no vertices and no
//!    triangles is skipped with a warning; with `ofs_end` 0 as well (an all-zero header), it
//!    and every surface the header counts after it are that empty surface, as the engines
//!    read them: the chain stops there.
//! 6. A surface with triangles has vertices, and a surface with vertices at least one base
//!    frame.
//! 7. A surface's seven arrays (shaders, triangles, texture coordinates, base vertices,
//!    compressed vertices, the two frame tables of `num_frames` `i16`s) start after its
//!    header, do not overlap, end by its `ofs_end`, and lie inside the file.
//! 8. Surface and shader names end with a NUL inside their field (frame and model names,
//!    which no engine looks up, are a warning).
//! 9. Triangle indices lie in `0..num_verts`.
//! 10. Every `frameBaseFrames` entry lies in `0..num_base_frames`; where the surface has
//!     compressed frames, every `frameCompFrames` entry is negative (none) or lies in
//!     `0..num_comp_frames` (without compressed frames the engines ignore the table).
//! 11. `ofs_end` of the header is not past the file; short of it, a warning. Texture
//!     coordinates that are not finite are a warning.
//! 12. Frame bounds, radii and origins are checked against the decoded vertices when the
//!     diagnostics are asked for ([`Mdc::check_frames`]): a warning where they disagree.
//!
//! ## Frames and animation
//!
//! Model frame `f` of a surface is base frame `frameBaseFrames[f]` (`xyz / 64`, the normal
//! from latitude and longitude) plus, where `frameCompFrames[f]` is not negative, that
//! compressed frame's offsets (`(byte − 127) · 0.05` units an axis) with its normal taken from
//! the compressed vertex instead. Frames tween through the morph kernel where both are base
//! frames alone, zero-copy; otherwise each vertex is decoded from the file and blended in
//! one scalar pass (nothing is copied). Triangles are stored clockwise seen from the front;
//! [`Model`](crate::Model)'s meshes give them counter-clockwise.

pub mod raw;
mod validate;
mod view;
pub mod write;

pub use view::{Mdc, NORMALS, Surface, Tag, TagPose, UNPACK, compressed_offset};
pub use write::Builder;
