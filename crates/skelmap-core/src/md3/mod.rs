//! Quake III models (`IDP3`, version 15): surfaces of vertex frames and tags
//! (`docs/formats/md3.md`, ioquake3's `qfiles.h`).
//!
//! - [`raw`]: the on-disk records, with ioquake3's names;
//! - [`Md3`]: the validated view: frames, tags per frame ([`Tag`]; between frames,
//!   orthonormalised, [`Md3::tag_at`]), and a [`Surface`] per
//!   mesh, each with its shaders, triangles, texture coordinates and a copy of its vertices
//!   per frame (`i16` at 1/64 unit, normals as latitude and longitude bytes), tweened by the
//!   morph kernel's [`PackedFrame::LatLong`](crate::skin::morph::PackedFrame::LatLong);
//! - [`write`](mod@write): [`Builder`], for fixtures and seeds, and from an asset
//!   ([`Builder::from_asset`]) for conversions.
//!
//! Content decides, not the name: an MD3 named `.mdl` (as games ship) opens as an MD3.
//!
//! ## Validation rules
//!
//! Each rule has a test in `tests/integration/md3/` asserting its error and offset.
//!
//! 1. The magic is `IDP3` and the version 15.
//! 2. Counts and offsets are not negative; `num_frames` is at least 1; frames, tags (as
//!    bones), surfaces (as meshes), and each surface's vertices, triangles and frames are
//!    within [`Limits`](crate::Limits). Past ioquake3's own limits (1024 frames, 16 tags, 32
//!    surfaces, 4096 vertices, 8192 triangles and 256 shaders a surface) is a warning.
//! 3. The frames and tags lie inside the file, after the header.
//! 4. Tag names end with a NUL inside their field; tag origins and axes are finite.
//! 5. The surfaces are a chain from `ofs_surfaces`, each next one `ofs_end` after the one
//!    before, every surface header inside the file. A surface with no vertices and no
//!    triangles is skipped with a warning; with `ofs_end` 0 as well (an all-zero header), it
//!    and every surface the header counts after it are that empty surface, as the engines
//!    read them: the chain stops there.
//! 6. A surface with triangles has vertices; its `num_frames` is the model's.
//! 7. A surface's arrays (shaders, triangles, texture coordinates, vertices) start after its
//!    header, do not overlap, end by its `ofs_end`, and lie inside the file.
//! 8. Surface and shader names end with a NUL inside their field (frame and model names,
//!    which no engine looks up, are a warning).
//! 9. Triangle indices lie in `0..num_verts`.
//! 10. `ofs_end` of the header is not past the file; short of it, a warning. Texture
//!     coordinates that are not finite are a warning.
//! 11. Frame bounds, radii and origins are checked against the vertices, and tag axes for
//!     orthonormality, when the diagnostics are asked for ([`Md3::check_frames`]): a warning
//!     where they disagree.
//!
//! ## Winding and animation
//!
//! Triangles are stored clockwise seen from the front; [`Model`](crate::Model)'s meshes give
//! them counter-clockwise. Every surface stores every frame; frames tween through the morph
//! kernel, which decodes the `i16` positions and the latitude/longitude normals in the same
//! pass as the blend.

pub mod companion;
pub mod raw;
mod validate;
mod view;
pub mod write;

pub use view::{Md3, Pair, Surface, Tag, TagPose, UNPACK};
pub use write::Builder;
