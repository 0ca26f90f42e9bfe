//! Qfusion/Warsow SKM + SKP: skeletal meshes and their separate skeleton/animation file.
//!
//! - [`raw`]: the on-disk structs, as in Qfusion's `qfiles.h`;
//! - `validate.rs`: the SKM and SKP passes and the pairing ([`Pair::new`]);
//! - `view.rs`: [`Skm`] (a mesh file: meshes of pre-weighted vertices, like DPM's), [`Skp`]
//!   (a skeleton file: bones, frames of quaternion + origin poses) and [`Pair`] (the two together);
//! - [`write`](mod@write): [`SkmBuilder`] and [`SkpBuilder`]; [`convert`]: DPM → SKM + SKP;
//! - [`resolve`]: finding an SKM's skeleton (`.cfg` `import`, else `<base>.skp`) and LOD
//!   files through a [`Resolver`](crate::resolver::Resolver).
//!
//! ## Telling SKM from SKP
//!
//! Both start with `SKM1`. An SKP's 28-byte header holds two table offsets (bones at 20,
//! frames at 24), each at least 28 and each table in bounds; an SKM's 24-byte header has its
//! mesh table at offset 20, normally 24, right after the header. [`looks_like_skp`] applies
//! that test, [`Format::sniff`](crate::Format::sniff) uses it, and opening one as the other
//! gives [`Error::WrongFormat`](crate::Error::WrongFormat).
//!
//! ## What validation guarantees (`docs/formats/skm.md` § Validation)
//!
//! SKM: magic, type 2, `filesize ≤ len`, counts within [`Limits`](crate::Limits) (at least
//! one bone, mesh, vertex, triangle and reference), the mesh table and every per-mesh array
//! in bounds, the vertex walk as for DPM (`1 ≤ numweights ≤ limit`, `bonenum < num_bones`,
//! finite values), indices `< num_verts`, references `< num_bones`.
//! SKP: magic, type 2, `filesize ≤ len`, counts within limits, bone and frame tables and
//! every pose block in bounds, `-1 ≤ parent < index`, finite pose values. Quaternions far
//! from unit length are warnings. Pairing ([`Pair::new`]) checks the SKM's bone count
//! against the SKP's, and each LOD's against its base.

pub mod convert;
pub mod raw;
pub mod resolve;
mod validate;
mod view;
pub mod write;

pub use resolve::Files;
pub use validate::QUAT_LENGTH_TOLERANCE;
pub use view::{Frame, Mesh, Pair, Skm, Skp};
pub use write::{FrameDef, MeshDef, SkmBuilder, SkpBuilder};

pub use crate::format::{looks_like_skm, looks_like_skp};
