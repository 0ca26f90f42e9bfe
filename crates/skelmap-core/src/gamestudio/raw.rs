//! 3D GameStudio MDL and HMP on-disk structures, little-endian (`docs/formats/{mdl,hmp}.md` § Layout).
//!
//! The 84-byte [`MdlHeader`] is Quake's, kept by MDL2 to MDL5, and declared with the skin
//! records in [`alias::raw`](crate::alias::raw); HMP4/5/7 give the same size other meanings
//! ([`HmpHeader`]).

use zerocopy::byteorder::{F32, I16, I32, LittleEndian, U16};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

type Le = LittleEndian;

pub use crate::alias::raw::{
    MAX_EXTERNAL_NAME, Mdl7Material, MdlHeader, SKINTYPE_ASCII_DEFINITION, SKINTYPE_FLAGS,
    SKINTYPE_MATERIAL, SKINTYPE_MIPS,
};

/// The HMP header, 84 bytes.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct HmpHeader {
    /// `HMP5` or `HMP7` (`HMP4` is recognised and refused).
    pub ident: [u8; 4],
    /// "Always 2" per the wiki; 0 in the HMP7 samples.
    pub nu1: I32<Le>,
    /// Scale; only `scale[2]` (height) is used.
    pub scale: [F32<Le>; 3],
    /// Offset; only `offset[2]` (height) is used.
    pub offset: [F32<Le>; 3],
    /// Unused.
    pub unused1: F32<Le>,
    /// Grid spacing along X.
    pub ftrisize_x: F32<Le>,
    /// Grid spacing along Y.
    pub ftrisize_y: F32<Le>,
    /// Vertices per row, stored as a float (must be integral).
    pub fnumverts_x: F32<Le>,
    /// Number of skins (textures).
    pub numskins: I32<Le>,
    /// Unused (skin width/height slots).
    pub unused2: [I32<Le>; 2],
    /// Vertices in total (`numverts_x · numverts_y`).
    pub numverts: I32<Le>,
    /// Unused.
    pub unused3: I32<Le>,
    /// Frames (normally only the first is used).
    pub numframes: I32<Le>,
    /// Unused.
    pub unused4: I32<Le>,
    /// Always 0.
    pub flags: I32<Le>,
    /// Unused.
    pub unused5: I32<Le>,
}

/// A skin (UV) vertex, in texel units (may lie outside the skin).
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct SkinVertex {
    /// Horizontal texel.
    pub u: I16<Le>,
    /// Vertical texel.
    pub v: I16<Le>,
}

/// A triangle: three 3D vertex indices and three skin-vertex indices (12 bytes).
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct Triangle {
    /// Indices into a frame's vertices.
    pub index_xyz: [U16<Le>; 3],
    /// Indices into the skin vertices.
    pub index_uv: [U16<Le>; 3],
}

/// A byte-packed vertex (frame type 0), 4 bytes.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct TrivertxByte {
    /// Packed position.
    pub v: [u8; 3],
    /// Index into the 162-entry normal table.
    pub normal: u8,
}

/// A word-packed vertex (frame type 2), 8 bytes.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct TrivertxWord {
    /// Packed position.
    pub v: [U16<Le>; 3],
    /// Index into the 162-entry normal table.
    pub normal: u8,
    /// Padding.
    pub unused: u8,
}

/// An HMP5 vertex: packed height and a normal index, 4 bytes.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct Hmp5Vertex {
    /// Packed height: `scale_z · z + offset_z`.
    pub z: U16<Le>,
    /// Index into the 162-entry normal table.
    pub normal: u8,
    /// Padding.
    pub unused: u8,
}

/// An HMP7 vertex: packed height and the X and Y of its normal, 4 bytes.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct Hmp7Vertex {
    /// Packed height: `scale_z · z + offset_z`.
    pub z: U16<Le>,
    /// Normal X, −127..=127.
    pub normal_x: i8,
    /// Normal Y, −127..=127.
    pub normal_y: i8,
}

const _: () = assert!(size_of::<HmpHeader>() == 84);
const _: () = assert!(size_of::<SkinVertex>() == 4);
const _: () = assert!(size_of::<Triangle>() == 12);
const _: () = assert!(size_of::<TrivertxByte>() == 4);
const _: () = assert!(size_of::<TrivertxWord>() == 8);
const _: () = assert!(size_of::<Hmp5Vertex>() == 4);
const _: () = assert!(size_of::<Hmp7Vertex>() == 4);
