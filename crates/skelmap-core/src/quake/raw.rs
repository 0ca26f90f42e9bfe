//! Quake 1 MDL (`IDPO`) and GameStudio MDL2 on-disk structures, little-endian, with the field
//! names of Quake's `modelgen.h`.
//!
//! File order: [`MdlHeader`], `numskins` skins, `numverts` [`Stvert`]s, `numtris`
//! [`Dtriangle`]s, `numframes` frames. A Quake skin is `i32 type` ([`ALIAS_SKIN_SINGLE`]:
//! `skinwidth · skinheight` palette indices; [`ALIAS_SKIN_GROUP`]: `i32 numskins`, that many
//! `f32` intervals, then that many images). An MDL2 skin is `i32 type` (a GameStudio code: 0
//! 8-bit, 2 RGB565, 3 ARGB4444) and its texels. A frame is `i32 type` ([`ALIAS_SINGLE`]: a
//! [`DaliasFrame`] and `numverts` [`Trivertx`]; [`ALIAS_GROUP`]: a [`DaliasGroup`], its
//! `numframes` `f32` intervals, then that many [`DaliasFrame`]s each with its vertices).

use zerocopy::byteorder::{I32, LittleEndian};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

type Le = LittleEndian;

/// The magic of a Quake MDL (`IDPO`).
pub const IDPO_MAGIC: &[u8; 4] = crate::format::IDPO_MAGIC;
/// The magic of a GameStudio MDL2.
pub const MDL2_MAGIC: &[u8; 4] = b"MDL2";
/// The version every Quake MDL has (`ALIAS_VERSION`).
pub const ALIAS_VERSION: i32 = 6;
/// Skin type: one image.
pub const ALIAS_SKIN_SINGLE: i32 = 0;
/// Skin type: a group of images shown in turn.
pub const ALIAS_SKIN_GROUP: i32 = 1;
/// Frame type: one pose.
pub const ALIAS_SINGLE: i32 = 0;
/// Frame type: a group of poses played in turn.
pub const ALIAS_GROUP: i32 = 1;
/// The `onseam` bit software Quake tests (GLQuake and later engines take any non-zero value).
pub const ALIAS_ONSEAM: i32 = 0x20;

/// The header (`mdl_t`), declared once for Quake and GameStudio.
pub use crate::alias::raw::MdlHeader;

/// A texture vertex (`stvert_t`), 12 bytes: one per vertex, in texels.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct Stvert {
    /// Non-zero: the vertex lies on the seam between the skin's front and back halves, and a
    /// back-facing triangle reads it half a skin to the right.
    pub onseam: I32<Le>,
    /// Horizontal texel.
    pub s: I32<Le>,
    /// Vertical texel (down the image).
    pub t: I32<Le>,
}

/// A triangle (`dtriangle_t`), 16 bytes.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct Dtriangle {
    /// 0: the triangle lies on the skin's back half (seam vertices shift, see [`Stvert`]).
    pub facesfront: I32<Le>,
    /// Vertex indices, clockwise seen from the front (Quake's winding).
    pub vertindex: [I32<Le>; 3],
}

/// A packed vertex (`trivertx_t`), 4 bytes.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct Trivertx {
    /// Packed position.
    pub v: [u8; 3],
    /// Index into the 162-entry normal table.
    pub lightnormalindex: u8,
}

/// A frame's header (`daliasframe_t`), 24 bytes; its vertices follow.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct DaliasFrame {
    /// Packed bounding box minimum.
    pub bboxmin: Trivertx,
    /// Packed bounding box maximum.
    pub bboxmax: Trivertx,
    /// Name, NUL-padded.
    pub name: [u8; 16],
}

/// A frame group's header (`daliasgroup_t`), 12 bytes; its intervals and frames follow.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct DaliasGroup {
    /// Frames in the group.
    pub numframes: I32<Le>,
    /// Packed bounding box minimum over the group.
    pub bboxmin: Trivertx,
    /// Packed bounding box maximum over the group.
    pub bboxmax: Trivertx,
}

const _: () = assert!(size_of::<Stvert>() == 12);
const _: () = assert!(size_of::<Dtriangle>() == 16);
const _: () = assert!(size_of::<Trivertx>() == 4);
const _: () = assert!(size_of::<DaliasFrame>() == 24);
const _: () = assert!(size_of::<DaliasGroup>() == 12);
