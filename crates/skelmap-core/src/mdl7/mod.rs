//! 3D GameStudio MDL7 models, the A6/A7 format (`docs/formats/mdl7.md`).
//!
//! - [`raw`]: the on-disk records, with the MDL7 SDK's field names;
//! - [`Mdl7`]: the validated view: bones, groups (skins, texture coordinates, triangles,
//!   vertices, frames) and the deformers' bone weights, borrowed from the file;
//! - [`write`](mod@write): [`Builder`], for conversions (`Builder::from_asset`), fixtures and
//!   fuzz seeds.
//!
//! Validation proves every record size one that real files use, every count within the bytes
//! left before it is used, every index (parent, vertex, texture coordinate, bone, group) in
//! range and every float that is read finite. Skins are the MDL7-style records HMP7 shares
//! ([`alias::skin`](crate::alias::skin)), with a 16-byte name.
//!
//! A model with bones is skeletal: group 0's frames store each bone's motion about its bind
//! position, and the vertices are stored in the bind pose ([`Mdl7::bind_mesh`] gathers the
//! deformers' weights per vertex). A model without bones is animated by its frames, each
//! replacing some of the stored vertices ([`Mdl7`]'s tween). A skeletal model's frames may
//! replace vertices too: in bind space, before the bones pose them
//! ([`Model::frames_replace_vertices`](crate::Model::frames_replace_vertices)).
//!
//! What real files hold that the SDK does not allow is read and warned about, not refused:
//! normal indices past the 162-entry table (a zero normal), a bone named in a file without
//! bones (ignored), frame vertices out of order or listed twice (the last listing wins).

pub mod raw;
pub(crate) mod validate;
mod view;
pub mod write;

pub use view::{BindMesh, Element, Frame, Frames, Group, Mdl7, Table, Weights};
pub use write::{
    BoneDef, Builder, ElementDef, FrameDef, GroupDef, Sizes, SkinDef, TriangleDef, VertexDef,
};
