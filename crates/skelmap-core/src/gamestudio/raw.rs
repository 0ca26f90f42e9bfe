//! 3D GameStudio MDL and HMP on-disk structures, little-endian (`FORMATS.md` §4–5).
//!
//! The 84-byte header is shared by MDL2..MDL5 and, with other meanings, by HMP4/5/7. Field
//! names follow the GameStudio meanings (the Quake names of unused slots in the docs).

use zerocopy::byteorder::{F32, I16, I32, LittleEndian, U16};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

type Le = LittleEndian;

/// The MDL header, 84 bytes (0x54).
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct MdlHeader {
    /// `MDL3`, `MDL4` or `MDL5` (`MDL2`, read by [`quake`](crate::quake), and `MDL7` are refused).
    pub ident: [u8; 4],
    /// Quake's version slot; 0 in every sample.
    pub version: I32<Le>,
    /// Vertex scale: position = scale · packed + offset.
    pub scale: [F32<Le>; 3],
    /// Vertex offset (Quake's `translate`).
    pub offset: [F32<Le>; 3],
    /// Quake's bounding radius (some writers fill it).
    pub radius: F32<Le>,
    /// Quake's eye position (unused).
    pub eye_position: [F32<Le>; 3],
    /// Number of skins.
    pub numskins: I32<Le>,
    /// Skin width for MDL3/4 (0 in MDL5, whose skins carry their own size).
    pub skinwidth: I32<Le>,
    /// Skin height for MDL3/4.
    pub skinheight: I32<Le>,
    /// Vertices per frame.
    pub numverts: I32<Le>,
    /// Triangles.
    pub numtris: I32<Le>,
    /// Frames.
    pub numframes: I32<Le>,
    /// Skin (UV) vertices (Quake's `synctype` slot).
    pub numskinverts: I32<Le>,
    /// Always 0.
    pub flags: I32<Le>,
    /// Quake's `size` (unused).
    pub unused: F32<Le>,
}

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

/// HMP7 (MDL7-style) skin type flag: three mip levels follow the texels.
pub const SKINTYPE_MIPS: i32 = 0x08;
/// HMP7 skin type flag: a [`Mdl7Material`] follows the texels and mips.
pub const SKINTYPE_MATERIAL: i32 = 0x10;
/// HMP7 skin type flag: a text material definition (`i32 length` and the bytes) follows.
pub const SKINTYPE_ASCII_DEFINITION: i32 = 0x20;
/// Every bit an HMP7 skin type may set: the kind (bits 0..=2) and the three flags.
pub const SKINTYPE_FLAGS: i32 =
    0x07 | SKINTYPE_MIPS | SKINTYPE_MATERIAL | SKINTYPE_ASCII_DEFINITION;
/// Longest external texture name, NUL included (the name readers store at most 1023 bytes).
pub const MAX_EXTERNAL_NAME: u32 = 1024;

/// The material an HMP7 (MDL7-style) skin may carry: 17 floats (68 bytes).
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct Mdl7Material {
    /// Diffuse RGBA.
    pub diffuse: [F32<Le>; 4],
    /// Ambient RGBA.
    pub ambient: [F32<Le>; 4],
    /// Specular RGBA.
    pub specular: [F32<Le>; 4],
    /// Emissive RGBA.
    pub emissive: [F32<Le>; 4],
    /// Specular power.
    pub power: F32<Le>,
}

const _: () = assert!(size_of::<MdlHeader>() == 84);
const _: () = assert!(size_of::<HmpHeader>() == 84);
const _: () = assert!(size_of::<SkinVertex>() == 4);
const _: () = assert!(size_of::<Triangle>() == 12);
const _: () = assert!(size_of::<TrivertxByte>() == 4);
const _: () = assert!(size_of::<TrivertxWord>() == 8);
const _: () = assert!(size_of::<Hmp5Vertex>() == 4);
const _: () = assert!(size_of::<Hmp7Vertex>() == 4);
const _: () = assert!(size_of::<Mdl7Material>() == 68);
