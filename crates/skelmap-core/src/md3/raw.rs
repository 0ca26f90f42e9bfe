//! Quake III MD3 (`IDP3`, version 15) on-disk structures, little-endian, with the field names
//! of ioquake3's `code/qcommon/qfiles.h` in snake case (`numFrames` is `num_frames`); each
//! struct says which C struct it is.
//!
//! A file is an [`Md3Header`], then (where its offsets say, each from the start of the file)
//! `numFrames` [`Md3Frame`]s, `numFrames · numTags` [`Md3Tag`]s (frame-major: every tag of
//! frame 0, then of frame 1, …) and `numSurfaces` surfaces, the first at `ofsSurfaces` and
//! each next one `ofsEnd` bytes after the one before. A surface is an [`Md3Surface`] header
//! and, at offsets from the start of that header, `numShaders` [`Md3Shader`]s,
//! `numTriangles` [`Md3Triangle`]s, `numVerts` [`Md3St`]s and `numVerts · numFrames`
//! [`Md3XyzNormal`]s (frame-major).

pub use crate::alias::idp3::{
    MAX_QPATH, MD3_XYZ_SCALE, Md3Frame, Md3Shader, Md3St, Md3Triangle, Md3XyzNormal,
};
use zerocopy::byteorder::{F32, I32, LittleEndian};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

type Le = LittleEndian;

/// The magic of an MD3 file, and of each of its surfaces (`MD3_IDENT`).
pub const MD3_MAGIC: &[u8; 4] = crate::format::MD3_MAGIC;
/// The one version skelmap (and every engine) reads (`MD3_VERSION`).
pub const MD3_VERSION: i32 = 15;
/// The levels of detail ioquake3 loads (`MD3_MAX_LODS`).
pub const MD3_MAX_LODS: u32 = 3;
/// The triangles a surface may have in ioquake3 (`MD3_MAX_TRIANGLES`).
pub const MD3_MAX_TRIANGLES: u32 = 8192;
/// The vertices a surface may have in ioquake3 (`MD3_MAX_VERTS`).
pub const MD3_MAX_VERTS: u32 = 4096;
/// The shaders a surface may have in ioquake3 (`MD3_MAX_SHADERS`).
pub const MD3_MAX_SHADERS: u32 = 256;
/// The frames a model may have in ioquake3 (`MD3_MAX_FRAMES`).
pub const MD3_MAX_FRAMES: u32 = 1024;
/// The surfaces a model may have in ioquake3 (`MD3_MAX_SURFACES`).
pub const MD3_MAX_SURFACES: u32 = 32;
/// The tags a frame may have in ioquake3 (`MD3_MAX_TAGS`).
pub const MD3_MAX_TAGS: u32 = 16;

/// The file header (`md3Header_t`), 108 bytes.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct Md3Header {
    /// `IDP3`.
    pub ident: [u8; 4],
    /// 15.
    pub version: I32<Le>,
    /// The model's name, NUL-padded.
    pub name: [u8; MAX_QPATH],
    /// Unused by the engines.
    pub flags: I32<Le>,
    /// Frames (at least 1).
    pub num_frames: I32<Le>,
    /// Tags per frame.
    pub num_tags: I32<Le>,
    /// Surfaces.
    pub num_surfaces: I32<Le>,
    /// Unused by the engines.
    pub num_skins: I32<Le>,
    /// Offset of the first frame, from the start of the file.
    pub ofs_frames: I32<Le>,
    /// Offset of the first tag (`numFrames · numTags` of them), from the start of the file.
    pub ofs_tags: I32<Le>,
    /// Offset of the first surface, from the start of the file.
    pub ofs_surfaces: I32<Le>,
    /// The end of the file (its length).
    pub ofs_end: I32<Le>,
}

/// An attachment point in one frame (`md3Tag_t`), 112 bytes.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct Md3Tag {
    /// Name, NUL-padded (`tag_weapon`).
    pub name: [u8; MAX_QPATH],
    /// Position.
    pub origin: [F32<Le>; 3],
    /// The tag's axes: forward, left, up (rows of its rotation).
    pub axis: [[F32<Le>; 3]; 3],
}

/// A surface's header (`md3Surface_t`), 108 bytes. Its offsets count from the start of this
/// header.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct Md3Surface {
    /// `IDP3` (not checked by the engines).
    pub ident: [u8; 4],
    /// Name, NUL-padded: what a `.skin` file names.
    pub name: [u8; MAX_QPATH],
    /// Unused by the engines.
    pub flags: I32<Le>,
    /// Frames: the model's.
    pub num_frames: I32<Le>,
    /// Shaders.
    pub num_shaders: I32<Le>,
    /// Vertices per frame (and texture coordinates).
    pub num_verts: I32<Le>,
    /// Triangles.
    pub num_triangles: I32<Le>,
    /// Offset of the triangles.
    pub ofs_triangles: I32<Le>,
    /// Offset of the shaders.
    pub ofs_shaders: I32<Le>,
    /// Offset of the texture coordinates (one per vertex, for every frame).
    pub ofs_st: I32<Le>,
    /// Offset of the vertices, `numVerts · numFrames` of them.
    pub ofs_xyz_normals: I32<Le>,
    /// Offset of the next surface (this surface's length).
    pub ofs_end: I32<Le>,
}

const _: () = assert!(size_of::<Md3Header>() == 108);
const _: () = assert!(size_of::<Md3Tag>() == 112);
const _: () = assert!(size_of::<Md3Surface>() == 108);
