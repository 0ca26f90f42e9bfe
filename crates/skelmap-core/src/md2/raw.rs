//! Quake II MD2 (`IDP2`, version 8) on-disk structures, little-endian, with the field names of
//! id's Quake II `qcommon/qfiles.h`; each struct says which C struct it is.
//!
//! A file is a [`Dmdl`] header, then (where its offsets say, each from the start of the file)
//! `num_skins` 64-byte skin names ([`SkinName`]), `num_st` [`Dstvert`]s, `num_tris`
//! [`Dtriangle`]s, `num_frames` frames of `framesize` bytes each (a [`DaliasFrame`] and
//! `num_xyz` [`Dtrivertx`]s) and `num_glcmds` 32-bit words of GL commands: repeatedly a count
//! (positive: a triangle strip of that many vertices; negative: a fan; 0: the end), then per
//! vertex a [`GlVertex`].

use zerocopy::byteorder::{F32, I16, I32, LittleEndian, U16};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

type Le = LittleEndian;

/// The magic of an MD2 file (`IDALIASHEADER`).
pub const IDP2_MAGIC: &[u8; 4] = crate::format::MD2_MAGIC;
/// The one version skelmap (and every engine) reads (`ALIAS_VERSION`).
pub const ALIAS_VERSION: i32 = 8;
/// The triangles Quake II accepts (`MAX_TRIANGLES`).
pub const MAX_TRIANGLES: u32 = 4096;
/// The vertices a frame may have in Quake II (`MAX_VERTS`).
pub const MAX_VERTS: u32 = 2048;
/// The frames Quake II accepts (`MAX_FRAMES`).
pub const MAX_FRAMES: u32 = 512;
/// The skins Quake II accepts (`MAX_MD2SKINS`).
pub const MAX_MD2SKINS: u32 = 32;
/// The length of a skin name field (`MAX_SKINNAME`).
pub const MAX_SKINNAME: usize = 64;

/// The file header (`dmdl_t`), 68 bytes.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct Dmdl {
    /// `IDP2`.
    pub ident: [u8; 4],
    /// 8.
    pub version: I32<Le>,
    /// Skin width in texels: texture coordinates are `s / skinwidth`.
    pub skinwidth: I32<Le>,
    /// Skin height in texels.
    pub skinheight: I32<Le>,
    /// Bytes per frame: its header and `num_xyz` vertices (at least).
    pub framesize: I32<Le>,
    /// Skin names.
    pub num_skins: I32<Le>,
    /// Vertices per frame.
    pub num_xyz: I32<Le>,
    /// Texture coordinates (more than `num_xyz` where seams split vertices).
    pub num_st: I32<Le>,
    /// Triangles.
    pub num_tris: I32<Le>,
    /// 32-bit words of the GL command list, its terminating 0 included.
    pub num_glcmds: I32<Le>,
    /// Frames.
    pub num_frames: I32<Le>,
    /// Offset of the skin names.
    pub ofs_skins: I32<Le>,
    /// Offset of the texture coordinates.
    pub ofs_st: I32<Le>,
    /// Offset of the triangles.
    pub ofs_tris: I32<Le>,
    /// Offset of the first frame.
    pub ofs_frames: I32<Le>,
    /// Offset of the GL command list.
    pub ofs_glcmds: I32<Le>,
    /// The end of the file (its length).
    pub ofs_end: I32<Le>,
}

/// A skin name (`char[MAX_SKINNAME]`): a path, NUL-terminated inside the field.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct SkinName {
    /// The path bytes, NUL-padded.
    pub name: [u8; MAX_SKINNAME],
}

/// A texture coordinate in texels (`dstvert_t`), 4 bytes.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct Dstvert {
    /// Horizontal texel.
    pub s: I16<Le>,
    /// Vertical texel (down the image).
    pub t: I16<Le>,
}

/// A triangle (`dtriangle_t`), 12 bytes: each corner's vertex and texture coordinate. The
/// C header declares the indices `short`; the engines read them unsigned (DarkPlaces), so
/// skelmap does.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct Dtriangle {
    /// Vertex indices, clockwise seen from the front (Quake's winding).
    pub index_xyz: [U16<Le>; 3],
    /// Texture coordinate indices, corner by corner.
    pub index_st: [U16<Le>; 3],
}

/// A packed vertex (`dtrivertx_t`), 4 bytes.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct Dtrivertx {
    /// Packed position: `scale · v + translate` of its frame.
    pub v: [u8; 3],
    /// Index into the 162-entry normal table.
    pub lightnormalindex: u8,
}

/// A frame's header (`daliasframe_t` without its vertices), 40 bytes; `num_xyz`
/// [`Dtrivertx`]s follow.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct DaliasFrame {
    /// Multiplies the packed coordinates.
    pub scale: [F32<Le>; 3],
    /// Then added.
    pub translate: [F32<Le>; 3],
    /// Name, NUL-padded (`stand01`).
    pub name: [u8; 16],
}

/// A vertex of a GL command, 12 bytes: a texture coordinate of its own and a vertex index.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct GlVertex {
    /// Horizontal texture coordinate, 0 to 1.
    pub s: F32<Le>,
    /// Vertical texture coordinate, 0 to 1 down the image.
    pub t: F32<Le>,
    /// Vertex index, below `num_xyz`.
    pub index: I32<Le>,
}

const _: () = assert!(size_of::<Dmdl>() == 68);
const _: () = assert!(size_of::<SkinName>() == 64);
const _: () = assert!(size_of::<Dstvert>() == 4);
const _: () = assert!(size_of::<Dtriangle>() == 12);
const _: () = assert!(size_of::<Dtrivertx>() == 4);
const _: () = assert!(size_of::<DaliasFrame>() == 40);
const _: () = assert!(size_of::<GlVertex>() == 12);
