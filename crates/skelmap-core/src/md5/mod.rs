//! Doom 3 models (`MD5Version 10` text): a skeletal mesh (`.md5mesh`) and the animations
//! played on it (`.md5anim`); `docs/formats/md5.md` gives the grammar and the sources.
//!
//! MD5 is text, so no view can lie on its bytes: opening reads the text once, tokenising,
//! checking and decoding together ([`validate`](mod@validate)), into
//!
//! - a [`MeshFile`]: joints (bind pose in model space as stored, and parent-relative) and
//!   meshes whose arrays (texture coordinates, weight ranges, triangles, weights, and what
//!   decoding derives: bind-pose positions, normals, and pre-weighted records in an SKM's
//!   layout) lie in one block, with room for the text's size and grown past it by each
//!   checked count;
//! - an [`Anim`]: the hierarchy, a box per frame, the base frame and every frame's pose per
//!   joint, and the per-joint scales of the Quake II remaster's `.md5scale` beside it
//!   ([`Anim::skin_scales`]; a JSON sidecar, read with `serde_json`, whose oddities are
//!   warnings, as q2pro skips them);
//! - a [`Pair`]: the mesh file with the animations that fit it ([`companion`](mod@companion)),
//!   which [`Model`](crate::Model) holds; its frames are the animations' one after another,
//!   a clip each. After open, sampling is a load and a blend of decoded poses, and the meshes
//!   skin through the record kernels as DPM and SKM do.
//!
//! Names, shaders and command lines stay in the text ([`Span`]s); nothing is parsed twice.
//! Triangles are held counter-clockwise seen from the front, the reverse of the file's
//! clockwise order (Doom 3's). [`write`](mod@write)'s [`Builder`] writes both kinds of file
//! from any asset.
//!
//! ## Validation rules
//!
//! Each rule has a test in `tests/integration/md5/rules.rs` asserting its error, line and
//! column. Every error from the text is an [`Error::Text`](crate::Error::Text) naming the
//! section and field (`mesh.numverts`), the line and column, and the byte offset, except
//! limits ([`Error::Limit`](crate::Error::Limit), at the count's offset) and the version
//! ([`Error::Unsupported`](crate::Error::Unsupported)).
//!
//! 1. The text starts (after a byte-order mark, white space and comments) with
//!    `MD5Version 10` and a `commandline`, or with one of the two (the `commandline` alone
//!    read as version 10, as Tesseract writes it; the version alone with an empty command
//!    line, as Red Eclipse reads it; each with a warning); then `numJoints` (a mesh) or
//!    `numFrames` (an animation), or `numbones`: a mesh in Doom 3's pre-release layout
//!    (`MD5Version 6`, bones with a named parent and a bind matrix, vectors without
//!    brackets), read with a warning; or `numchannels`: an animation in that layout (a curve
//!    of keys per joint and attribute, [`channels`](mod@channels)), read with a warning and
//!    checked as such (each channel's fields in order, an attribute of the six, `keys` equal
//!    to its `range`, no `strings`, one channel per joint and attribute, all six per joint;
//!    on a mesh, the mesh's joints by name).
//! 2. Every token is what the grammar needs there: keywords (ASCII case ignored), brackets,
//!    quoted strings closed on their line, integers in range and floats finite. `/* */`
//!    comments are closed.
//! 3. Counts are not negative; `numJoints` and `numFrames` are at least 1; every count is
//!    within [`Limits`](crate::Limits) and within what the rest of the text can hold (every
//!    entry takes a few bytes), before anything is reserved for it.
//! 4. Each section lists exactly the entries its count declares
//!    ([`Problem::FewerThanDeclared`](crate::Problem::FewerThanDeclared),
//!    [`Problem::MoreThanDeclared`](crate::Problem::MoreThanDeclared)), and each entry's own
//!    index (`vert 3`, `tri 3`, `weight 3`, `frame 3`) is its place; an animation's frames
//!    at least as many as declared (rule 8 for more). As the Cube 2 engines read them, with a
//!    warning: bounds past the declared frames are checked and left out, and a mesh text
//!    that ends before its declared meshes is read with those it holds.
//! 5. A joint's parent is -1 or an earlier joint (not itself, not a later one).
//! 6. Triangle corners name vertices of their mesh; a weight names a joint; a vertex has at
//!    least one weight and at most `Limits::max_influences_per_vertex`, all inside the
//!    mesh's weights; the weights of all meshes stay within
//!    `Limits::max_total_influences`.
//! 7. An animation's flags use only the six component bits, and each animated joint's
//!    components lie inside `numAnimatedComponents` (at most 6 a joint); its frame rate is
//!    not negative (0 is read as 24, with a warning); its frames × joints stay within
//!    [`MAX_BAKED_POSES`](crate::pose::MAX_BAKED_POSES).
//! 8. What follows the declared meshes or frames (an extra `mesh` or `frame` block, an
//!    editor's leftovers) is not read, as Doom 3 does not read it, with a
//!    [`WarningKind::TrailingBytes`](crate::WarningKind::TrailingBytes) at its first byte.
//! 9. An animation plays on a mesh only with the same joints, in order, with the same
//!    parents; one found beside the mesh that does not fit (or does not validate) is left
//!    out with [`WarningKind::CompanionIgnored`](crate::WarningKind::CompanionIgnored), one
//!    given that does not fit is an error. An `.md5scale` that does not read, and each of
//!    its entries that names no joint or frame of its animation or holds no finite number,
//!    is left out with the same warning.
//!
//! Warnings: weights of a vertex that do not sum to 1 within 0.01
//! ([`WarningKind::InfluenceSum`](crate::WarningKind::InfluenceSum)); a rotation whose
//! `x² + y² + z²` passes 1 ([`WarningKind::QuatNotUnit`](crate::WarningKind::QuatNotUnit),
//! normalised).

pub mod channels;
pub mod companion;
pub mod lex;
pub mod raw;
mod scale;
pub mod validate;
pub mod view;
pub mod write;

pub use lex::Span;
pub use view::{Anim, Animation, Mesh, MeshFile, Pair};
pub use write::Builder;
