//! What the descendants of id's MD4 share: the skeletal format Quake III declares and never
//! loads (`IDP4`, Quake III's `code/qcommon/qfiles.h`), whose vertex records Raven's MDR
//! (read by ioquake3) and, through RtCW's MDS, Enemy Territory's MDM keep byte for byte. Each
//! of the [`mdr`](crate::mdr) and [`mdm`](crate::mdm) folders reads them from here, and
//! neither reads the other's.
//!
//! - [`raw`]: the vertex and weight records (`md4Vertex_t`, `md4Weight_t`): a vertex's
//!   normal, texture coordinate and weight count, then its weights, each a bone, a weight and
//!   the vertex's position in that bone's space;
//! - [`Surface`]: a surface of those vertices over borrowed bytes, generic over the format's
//!   surface header ([`SurfaceHeader`]) and what the format adds to it: its name, shader,
//!   triangles, the walk of its vertices ([`Vertices`], [`Vertex`]), random access to them and
//!   the pre-weighted records the kernels skin it from, made on first use
//!   ([`Surface::records`]), with each format's rule for normals ([`Normals`]); and its
//!   `MeshView`;
//! - [`write`](mod@write): a vertex and its weights as builders define them, and laid out;
//! - validating the vertices (`validate::vertices`, crate-internal): every vertex and weight
//!   inside the file, counts within the limits, floats finite, each bone checked as the
//!   format checks it (MDR: in range; MDM: not negative, against the MDX when paired).
//!
//! The layouts around the vertices differ (an MDM surface adds a collapse map and a level of
//! detail, an MDR's levels of detail are chains of their own), so each folder keeps its own
//! headers and walks; `docs/formats/mdr.md` and `docs/formats/mdm.md` give the layouts and
//! rules.

pub mod raw;
pub(crate) mod validate;
mod view;
pub mod write;

pub use view::{Normals, Surface, SurfaceHeader, Vertex, Vertices};
