//! Qfusion/Warsow SKM + SKP: skeletal meshes and their separate skeleton/animation file.
//!
//! - [`raw`]: the on-disk structs, as in Qfusion's `qfiles.h`;
//! - [`Skm`]: a validated mesh file (meshes of pre-weighted vertices, like DPM's);
//! - [`Skp`]: a validated skeleton file (bones, frames of quaternion + origin poses);
//! - [`resolve`]: finding an SKM's skeleton (`.cfg` `import`, else `<base>.skp`) and LOD
//!   files through a [`Resolver`](crate::resolver::Resolver), and pairing them into an [`SkmModel`];
//! - [`write`](mod@write): [`SkmBuilder`] and [`SkpBuilder`]; [`convert`]: DPM → SKM + SKP.
//!
//! ## Telling SKM from SKP
//!
//! Both start with `SKM1`. An SKP's 28-byte header holds two table offsets (bones at 20,
//! frames at 24), each at least 28 and each table in bounds; an SKM's 24-byte header has its
//! mesh table at offset 20, normally 24, right after the header. [`looks_like_skp`] applies
//! that test, [`Format::sniff`](crate::Format::sniff) uses it, and opening one as the other
//! gives [`Error::WrongFormat`](crate::Error::WrongFormat).
//!
//! ## What validation guarantees (`FORMATS.md` §3.5)
//!
//! SKM: magic, type 2, `filesize ≤ len`, counts within [`Limits`](crate::Limits) (at least
//! one bone, mesh, vertex, triangle and reference), the mesh table and every per-mesh array
//! in bounds, the vertex walk as for DPM (`1 ≤ numweights ≤ limit`, `bonenum < num_bones`,
//! finite values), indices `< num_verts`, references `< num_bones`.
//! SKP: magic, type 2, `filesize ≤ len`, counts within limits, bone and frame tables and
//! every pose block in bounds, `-1 ≤ parent < index`, finite pose values. Quaternions far
//! from unit length are warnings. Pairing ([`SkmModel::pair`]) checks the SKM's bone count
//! against the SKP's, and each LOD's against its base.

pub mod convert;
mod mesh;
pub mod raw;
pub mod resolve;
mod skp;
pub mod write;

pub use mesh::{Mesh, Skm};
pub use resolve::{SkmFiles, SkmModel};
pub use skp::{Frame, Skp};
pub use write::{FrameDef, MeshDef, SkmBuilder, SkpBuilder};

/// The header words an SKM and an SKP share, at the same offsets in both.
pub(crate) struct SharedHeader {
    /// `type_` (offset 4).
    type_: u32,
    /// `filesize` (offset 8).
    filesize: u32,
    /// `num_bones` (offset 12).
    num_bones: u32,
}

const _: () = {
    use core::mem::offset_of;
    use raw::{SkmHeader, SkpHeader};
    assert!(offset_of!(SkmHeader, type_) == offset_of!(SkpHeader, type_));
    assert!(offset_of!(SkmHeader, filesize) == offset_of!(SkpHeader, filesize));
    assert!(offset_of!(SkmHeader, num_bones) == offset_of!(SkpHeader, num_bones));
};

/// Checks what an SKM and an SKP header share: type 2, the declared file size (returning
/// `data` cut to it) and `1 ≤ num_bones ≤ limits.max_bones` (`no_bones` is the message when
/// it is 0).
pub(crate) fn check_shared_header<'data>(
    format: crate::format::Format,
    data: &'data [u8],
    words: SharedHeader,
    header_size: usize,
    limits: &crate::limits::Limits,
    diag: &mut crate::diag::Diagnostics,
    no_bones: &str,
) -> crate::error::Result<&'data [u8]> {
    use core::mem::offset_of;
    use raw::SkmHeader;
    let at = |f: usize| f as u64;
    crate::rules::check_type(
        format,
        at(offset_of!(SkmHeader, type_)),
        words.type_,
        raw::SKM_TYPE,
    )?;
    let data = crate::rules::declared_size(
        format,
        data,
        words.filesize,
        at(offset_of!(SkmHeader, filesize)),
        header_size as u64,
        diag,
    )?;
    crate::rules::check_count(
        format,
        "header.num_bones",
        at(offset_of!(SkmHeader, num_bones)),
        words.num_bones,
        limits.max_bones,
        no_bones,
    )?;
    Ok(data)
}

pub use crate::format::{looks_like_skm, looks_like_skp};
