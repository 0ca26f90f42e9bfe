//! Quake 1 models (`IDPO`) and GameStudio MDL2, which shares their layout (`docs/formats/quake.md`,
//! Quake's `modelgen.h`).
//!
//! - [`raw`]: the on-disk records, with Quake's field names;
//! - [`Mdl`]: the validated view (skins and skin groups, texture vertices, triangles,
//!   frames and frame groups); [`PALETTE`] decodes its 8-bit skins;
//! - [`morph`]: frames through the morph kernel; [`write`](mod@write): builders for both.
//!
//! The two differ in their ident (`IDPO`, `MDL2`), Quake's version (6; MDL2 writes 0) and
//! their skins: a Quake skin is 8-bit palette indices, single or a group with intervals; an
//! MDL2 skin is a GameStudio type code (0 8-bit, 2 RGB565, 3 ARGB4444) and texels of the
//! header's size. Everything after the skins is Quake's.
//!
//! ## Validation rules
//!
//! Each rule has a test in `tests/integration/quake/` asserting its error and offset.
//!
//! 1. The magic is `IDPO` or `MDL2`; a Quake MDL's version is 6.
//! 2. `scale` and `scale_origin` are finite.
//! 3. Counts are not negative; `numverts`, `numtris` and `numframes` are at least 1 and
//!    within [`Limits`](crate::Limits); `numskins` within `max_skins`.
//! 4. With skins, `skinwidth` and `skinheight` are positive and within
//!    `max_skin_dimension` (a width not a multiple of 4, which software Quake requires, is a
//!    warning).
//! 5. A Quake skin is type 0 (single) or 1 (group); an MDL2 skin is type 0, 2 or 3.
//! 6. A group (of skins or frames) has at least one member, the members of all groups stay
//!    within the limits, and its intervals are finite, positive and never decrease.
//! 7. Triangle vertex indices lie in `0..numverts`.
//! 8. A frame is type 0 (single) or 1 (group).
//! 9. Every vertex's normal index is below 162.
//! 10. Every record lies within the file. Texture vertices outside the skin and bytes after
//!     the last frame (editors append their own data) are warnings.
//!
//! ## Texture coordinates, winding and animation
//!
//! A texture vertex is per vertex, but a vertex on the seam (`onseam ≠ 0`) of a triangle
//! facing back (`facesfront = 0`) reads half the skin further right, so the coordinates are
//! per triangle corner ([`Mdl::corner_texcoords`], GLQuake's rule with its half-texel
//! offset). Triangles are stored clockwise seen from the front; [`Model`](crate::Model)'s
//! meshes give them counter-clockwise, as for every other format. Frame groups become
//! clips, timed by their intervals.

pub mod morph;
mod palette;
pub mod raw;
mod validate;
mod view;
pub mod write;

pub use palette::PALETTE;
pub use view::{Frame, FrameGroups, FrameIter, Frames, Group, Mdl};
pub use write::Builder;
