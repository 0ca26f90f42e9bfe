//! Return to Castle Wolfenstein MDC (`IDPC`, version 2) on-disk structures, little-endian,
//! with the field names of ET:Legacy's `src/qcommon/qfiles.h` in snake case (`numCompFrames`
//! is `num_comp_frames`); each struct says which C struct it is.
//!
//! A file is an [`MdcHeader`], then (where its offsets say, each from the start of the file)
//! `numFrames` [`Md3Frame`]s, `numTags` [`MdcTagName`]s, `numFrames · numTags` [`MdcTag`]s
//! (frame-major) and `numSurfaces` surfaces, the first at `ofsSurfaces` and each next one
//! `ofsEnd` bytes after the one before. A surface is an [`MdcSurface`] header and, at offsets
//! from the start of that header, `numShaders` [`Md3Shader`]s, `numTriangles`
//! [`Md3Triangle`]s, `numVerts` [`Md3St`]s, `numVerts · numBaseFrames` [`Md3XyzNormal`]s (the
//! base frames, as MD3 stores its frames), `numVerts · numCompFrames` [`MdcXyzCompressed`]s
//! (the compressed frames: an offset from a base frame) and two tables of `numFrames` `i16`s:
//! `frameBaseFrames` (each frame's base frame) and `frameCompFrames` (each frame's compressed
//! frame, or a negative number for none).

pub use crate::alias::idp3::{
    MAX_QPATH, MD3_XYZ_SCALE, Md3Frame, Md3Shader, Md3St, Md3Triangle, Md3XyzNormal,
};
use zerocopy::byteorder::{I16, I32, LittleEndian, U32};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

type Le = LittleEndian;

/// The magic of an MDC file (`MDC_IDENT`).
pub const MDC_MAGIC: &[u8; 4] = crate::format::MDC_MAGIC;
/// The one version the engines read (`MDC_VERSION`; version 1 listed tag names per frame).
pub const MDC_VERSION: i32 = 2;
/// A compressed axis step, in units (`MDC_DIST_SCALE`).
pub const MDC_DIST_SCALE: f32 = 0.05;
/// The compressed byte that means no offset (`MDC_MAX_OFS`): an axis is
/// `(byte − 127) · MDC_DIST_SCALE`.
pub const MDC_MAX_OFS: f32 = 127.0;
/// The largest distance, in units, a compressed vertex may decode from the vertex it stands
/// for before a writer makes the frame a base frame instead (`MDC_MAX_ERROR`).
pub const MDC_MAX_ERROR: f32 = 0.1;
/// Degrees per unit of a tag angle (`MDC_TAG_ANGLE_SCALE`).
pub const MDC_TAG_ANGLE_SCALE: f64 = 360.0 / 32700.0;
/// The vertices a surface may have before ET:Legacy refuses it (`SHADER_MAX_VERTEXES`).
pub const MDC_MAX_VERTS: u32 = 10_000;
/// The triangles a surface may have before ET:Legacy refuses it (`SHADER_MAX_INDEXES / 3`).
pub const MDC_MAX_TRIANGLES: u32 = 20_000;

/// The file header (`mdcHeader_t`), 112 bytes.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct MdcHeader {
    /// `IDPC`.
    pub ident: [u8; 4],
    /// 2.
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
    /// Offset of the first frame summary (bounds, origin, radius, name), from the start.
    pub ofs_frames: I32<Le>,
    /// Offset of the tag names (`numTags` of them), from the start.
    pub ofs_tag_names: I32<Le>,
    /// Offset of the first tag (`numFrames · numTags` of them), from the start.
    pub ofs_tags: I32<Le>,
    /// Offset of the first surface, from the start.
    pub ofs_surfaces: I32<Le>,
    /// The end of the file (its length).
    pub ofs_end: I32<Le>,
}

/// A tag's name (`mdcTagName_t`), 64 bytes: stored once for every frame.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct MdcTagName {
    /// Name, NUL-padded (`tag_weapon`).
    pub name: [u8; MAX_QPATH],
}

/// A tag in one frame (`mdcTag_t`), 12 bytes: position in 1/64 units and three Euler angles
/// in units of [`MDC_TAG_ANGLE_SCALE`] degrees.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct MdcTag {
    /// Position, 1/64 unit ([`MD3_XYZ_SCALE`]).
    pub xyz: [I16<Le>; 3],
    /// Pitch, yaw and roll, in units of [`MDC_TAG_ANGLE_SCALE`] degrees.
    pub angles: [I16<Le>; 3],
}

/// A surface's header (`mdcSurface_t`), 124 bytes. Its offsets count from the start of this
/// header.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct MdcSurface {
    /// Any value (the engines overwrite it; real files store 7).
    pub ident: I32<Le>,
    /// Name, NUL-padded: what a `.skin` file names.
    pub name: [u8; MAX_QPATH],
    /// Unused by the engines.
    pub flags: I32<Le>,
    /// Compressed frames.
    pub num_comp_frames: I32<Le>,
    /// Base frames.
    pub num_base_frames: I32<Le>,
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
    /// Offset of the base frames' vertices, `numVerts · numBaseFrames` of them.
    pub ofs_xyz_normals: I32<Le>,
    /// Offset of the compressed frames' vertices, `numVerts · numCompFrames` of them.
    pub ofs_xyz_compressed: I32<Le>,
    /// Offset of the `numFrames` `i16` base frame indices.
    pub ofs_frame_base_frames: I32<Le>,
    /// Offset of the `numFrames` `i16` compressed frame indices (negative: none).
    pub ofs_frame_comp_frames: I32<Le>,
    /// Offset of the next surface (this surface's length).
    pub ofs_end: I32<Le>,
}

/// A vertex of a compressed frame (`mdcXyzCompressed_t`), 4 bytes: `ofsVec`, whose low three
/// bytes are the x, y and z offsets from the base frame (`(byte − 127) · 0.05` units) and whose
/// high byte indexes [`MDC_NORMALS`].
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct MdcXyzCompressed {
    /// The packed offsets and normal index.
    pub ofs_vec: U32<Le>,
}

const _: () = assert!(size_of::<MdcHeader>() == 112);
const _: () = assert!(size_of::<MdcTagName>() == 64);
const _: () = assert!(size_of::<MdcTag>() == 12);
const _: () = assert!(size_of::<MdcSurface>() == 124);
const _: () = assert!(size_of::<MdcXyzCompressed>() == 4);

/// The 256 unit normals a compressed vertex's high byte indexes (the engines' `r_anormals`):
/// rings of latitude `k · π/16` for `k` = 0 (32 normals), −1 … −7, then +1 … +7 (`32 − 4|k|`
/// normals each, the first at longitude 0, evenly spaced), as 6-digit decimals.
#[rustfmt::skip]
#[allow(
    clippy::excessive_precision,
    clippy::unreadable_literal,
    clippy::approx_constant
)]
pub const MDC_NORMALS: [[f32; 3]; 256] = [
    [1.000000, 0.000000, 0.000000],
    [0.980785, 0.195090, 0.000000],
    [0.923880, 0.382683, 0.000000],
    [0.831470, 0.555570, 0.000000],
    [0.707107, 0.707107, 0.000000],
    [0.555570, 0.831470, 0.000000],
    [0.382683, 0.923880, 0.000000],
    [0.195090, 0.980785, 0.000000],
    [0.000000, 1.000000, 0.000000],
    [-0.195090, 0.980785, 0.000000],
    [-0.382683, 0.923880, 0.000000],
    [-0.555570, 0.831470, 0.000000],
    [-0.707107, 0.707107, 0.000000],
    [-0.831470, 0.555570, 0.000000],
    [-0.923880, 0.382683, 0.000000],
    [-0.980785, 0.195090, 0.000000],
    [-1.000000, 0.000000, 0.000000],
    [-0.980785, -0.195090, 0.000000],
    [-0.923880, -0.382683, 0.000000],
    [-0.831470, -0.555570, 0.000000],
    [-0.707107, -0.707107, 0.000000],
    [-0.555570, -0.831470, 0.000000],
    [-0.382683, -0.923880, 0.000000],
    [-0.195090, -0.980785, 0.000000],
    [0.000000, -1.000000, 0.000000],
    [0.195090, -0.980785, 0.000000],
    [0.382683, -0.923880, 0.000000],
    [0.555570, -0.831470, 0.000000],
    [0.707107, -0.707107, 0.000000],
    [0.831470, -0.555570, 0.000000],
    [0.923880, -0.382683, 0.000000],
    [0.980785, -0.195090, 0.000000],
    [0.980785, 0.000000, -0.195090],
    [0.956195, 0.218245, -0.195090],
    [0.883657, 0.425547, -0.195090],
    [0.766809, 0.611510, -0.195090],
    [0.611510, 0.766809, -0.195090],
    [0.425547, 0.883657, -0.195090],
    [0.218245, 0.956195, -0.195090],
    [0.000000, 0.980785, -0.195090],
    [-0.218245, 0.956195, -0.195090],
    [-0.425547, 0.883657, -0.195090],
    [-0.611510, 0.766809, -0.195090],
    [-0.766809, 0.611510, -0.195090],
    [-0.883657, 0.425547, -0.195090],
    [-0.956195, 0.218245, -0.195090],
    [-0.980785, 0.000000, -0.195090],
    [-0.956195, -0.218245, -0.195090],
    [-0.883657, -0.425547, -0.195090],
    [-0.766809, -0.611510, -0.195090],
    [-0.611510, -0.766809, -0.195090],
    [-0.425547, -0.883657, -0.195090],
    [-0.218245, -0.956195, -0.195090],
    [0.000000, -0.980785, -0.195090],
    [0.218245, -0.956195, -0.195090],
    [0.425547, -0.883657, -0.195090],
    [0.611510, -0.766809, -0.195090],
    [0.766809, -0.611510, -0.195090],
    [0.883657, -0.425547, -0.195090],
    [0.956195, -0.218245, -0.195090],
    [0.923880, 0.000000, -0.382683],
    [0.892399, 0.239118, -0.382683],
    [0.800103, 0.461940, -0.382683],
    [0.653281, 0.653281, -0.382683],
    [0.461940, 0.800103, -0.382683],
    [0.239118, 0.892399, -0.382683],
    [0.000000, 0.923880, -0.382683],
    [-0.239118, 0.892399, -0.382683],
    [-0.461940, 0.800103, -0.382683],
    [-0.653281, 0.653281, -0.382683],
    [-0.800103, 0.461940, -0.382683],
    [-0.892399, 0.239118, -0.382683],
    [-0.923880, 0.000000, -0.382683],
    [-0.892399, -0.239118, -0.382683],
    [-0.800103, -0.461940, -0.382683],
    [-0.653281, -0.653281, -0.382683],
    [-0.461940, -0.800103, -0.382683],
    [-0.239118, -0.892399, -0.382683],
    [0.000000, -0.923880, -0.382683],
    [0.239118, -0.892399, -0.382683],
    [0.461940, -0.800103, -0.382683],
    [0.653281, -0.653281, -0.382683],
    [0.800103, -0.461940, -0.382683],
    [0.892399, -0.239118, -0.382683],
    [0.831470, 0.000000, -0.555570],
    [0.790775, 0.256938, -0.555570],
    [0.672673, 0.488726, -0.555570],
    [0.488726, 0.672673, -0.555570],
    [0.256938, 0.790775, -0.555570],
    [0.000000, 0.831470, -0.555570],
    [-0.256938, 0.790775, -0.555570],
    [-0.488726, 0.672673, -0.555570],
    [-0.672673, 0.488726, -0.555570],
    [-0.790775, 0.256938, -0.555570],
    [-0.831470, 0.000000, -0.555570],
    [-0.790775, -0.256938, -0.555570],
    [-0.672673, -0.488726, -0.555570],
    [-0.488726, -0.672673, -0.555570],
    [-0.256938, -0.790775, -0.555570],
    [0.000000, -0.831470, -0.555570],
    [0.256938, -0.790775, -0.555570],
    [0.488726, -0.672673, -0.555570],
    [0.672673, -0.488726, -0.555570],
    [0.790775, -0.256938, -0.555570],
    [0.707107, 0.000000, -0.707107],
    [0.653281, 0.270598, -0.707107],
    [0.500000, 0.500000, -0.707107],
    [0.270598, 0.653281, -0.707107],
    [0.000000, 0.707107, -0.707107],
    [-0.270598, 0.653281, -0.707107],
    [-0.500000, 0.500000, -0.707107],
    [-0.653281, 0.270598, -0.707107],
    [-0.707107, 0.000000, -0.707107],
    [-0.653281, -0.270598, -0.707107],
    [-0.500000, -0.500000, -0.707107],
    [-0.270598, -0.653281, -0.707107],
    [0.000000, -0.707107, -0.707107],
    [0.270598, -0.653281, -0.707107],
    [0.500000, -0.500000, -0.707107],
    [0.653281, -0.270598, -0.707107],
    [0.555570, 0.000000, -0.831470],
    [0.481138, 0.277785, -0.831470],
    [0.277785, 0.481138, -0.831470],
    [0.000000, 0.555570, -0.831470],
    [-0.277785, 0.481138, -0.831470],
    [-0.481138, 0.277785, -0.831470],
    [-0.555570, 0.000000, -0.831470],
    [-0.481138, -0.277785, -0.831470],
    [-0.277785, -0.481138, -0.831470],
    [0.000000, -0.555570, -0.831470],
    [0.277785, -0.481138, -0.831470],
    [0.481138, -0.277785, -0.831470],
    [0.382683, 0.000000, -0.923880],
    [0.270598, 0.270598, -0.923880],
    [0.000000, 0.382683, -0.923880],
    [-0.270598, 0.270598, -0.923880],
    [-0.382683, 0.000000, -0.923880],
    [-0.270598, -0.270598, -0.923880],
    [0.000000, -0.382683, -0.923880],
    [0.270598, -0.270598, -0.923880],
    [0.195090, 0.000000, -0.980785],
    [0.000000, 0.195090, -0.980785],
    [-0.195090, 0.000000, -0.980785],
    [0.000000, -0.195090, -0.980785],
    [0.980785, 0.000000, 0.195090],
    [0.956195, 0.218245, 0.195090],
    [0.883657, 0.425547, 0.195090],
    [0.766809, 0.611510, 0.195090],
    [0.611510, 0.766809, 0.195090],
    [0.425547, 0.883657, 0.195090],
    [0.218245, 0.956195, 0.195090],
    [0.000000, 0.980785, 0.195090],
    [-0.218245, 0.956195, 0.195090],
    [-0.425547, 0.883657, 0.195090],
    [-0.611510, 0.766809, 0.195090],
    [-0.766809, 0.611510, 0.195090],
    [-0.883657, 0.425547, 0.195090],
    [-0.956195, 0.218245, 0.195090],
    [-0.980785, 0.000000, 0.195090],
    [-0.956195, -0.218245, 0.195090],
    [-0.883657, -0.425547, 0.195090],
    [-0.766809, -0.611510, 0.195090],
    [-0.611510, -0.766809, 0.195090],
    [-0.425547, -0.883657, 0.195090],
    [-0.218245, -0.956195, 0.195090],
    [0.000000, -0.980785, 0.195090],
    [0.218245, -0.956195, 0.195090],
    [0.425547, -0.883657, 0.195090],
    [0.611510, -0.766809, 0.195090],
    [0.766809, -0.611510, 0.195090],
    [0.883657, -0.425547, 0.195090],
    [0.956195, -0.218245, 0.195090],
    [0.923880, 0.000000, 0.382683],
    [0.892399, 0.239118, 0.382683],
    [0.800103, 0.461940, 0.382683],
    [0.653281, 0.653281, 0.382683],
    [0.461940, 0.800103, 0.382683],
    [0.239118, 0.892399, 0.382683],
    [0.000000, 0.923880, 0.382683],
    [-0.239118, 0.892399, 0.382683],
    [-0.461940, 0.800103, 0.382683],
    [-0.653281, 0.653281, 0.382683],
    [-0.800103, 0.461940, 0.382683],
    [-0.892399, 0.239118, 0.382683],
    [-0.923880, 0.000000, 0.382683],
    [-0.892399, -0.239118, 0.382683],
    [-0.800103, -0.461940, 0.382683],
    [-0.653281, -0.653281, 0.382683],
    [-0.461940, -0.800103, 0.382683],
    [-0.239118, -0.892399, 0.382683],
    [0.000000, -0.923880, 0.382683],
    [0.239118, -0.892399, 0.382683],
    [0.461940, -0.800103, 0.382683],
    [0.653281, -0.653281, 0.382683],
    [0.800103, -0.461940, 0.382683],
    [0.892399, -0.239118, 0.382683],
    [0.831470, 0.000000, 0.555570],
    [0.790775, 0.256938, 0.555570],
    [0.672673, 0.488726, 0.555570],
    [0.488726, 0.672673, 0.555570],
    [0.256938, 0.790775, 0.555570],
    [0.000000, 0.831470, 0.555570],
    [-0.256938, 0.790775, 0.555570],
    [-0.488726, 0.672673, 0.555570],
    [-0.672673, 0.488726, 0.555570],
    [-0.790775, 0.256938, 0.555570],
    [-0.831470, 0.000000, 0.555570],
    [-0.790775, -0.256938, 0.555570],
    [-0.672673, -0.488726, 0.555570],
    [-0.488726, -0.672673, 0.555570],
    [-0.256938, -0.790775, 0.555570],
    [0.000000, -0.831470, 0.555570],
    [0.256938, -0.790775, 0.555570],
    [0.488726, -0.672673, 0.555570],
    [0.672673, -0.488726, 0.555570],
    [0.790775, -0.256938, 0.555570],
    [0.707107, 0.000000, 0.707107],
    [0.653281, 0.270598, 0.707107],
    [0.500000, 0.500000, 0.707107],
    [0.270598, 0.653281, 0.707107],
    [0.000000, 0.707107, 0.707107],
    [-0.270598, 0.653281, 0.707107],
    [-0.500000, 0.500000, 0.707107],
    [-0.653281, 0.270598, 0.707107],
    [-0.707107, 0.000000, 0.707107],
    [-0.653281, -0.270598, 0.707107],
    [-0.500000, -0.500000, 0.707107],
    [-0.270598, -0.653281, 0.707107],
    [0.000000, -0.707107, 0.707107],
    [0.270598, -0.653281, 0.707107],
    [0.500000, -0.500000, 0.707107],
    [0.653281, -0.270598, 0.707107],
    [0.555570, 0.000000, 0.831470],
    [0.481138, 0.277785, 0.831470],
    [0.277785, 0.481138, 0.831470],
    [0.000000, 0.555570, 0.831470],
    [-0.277785, 0.481138, 0.831470],
    [-0.481138, 0.277785, 0.831470],
    [-0.555570, 0.000000, 0.831470],
    [-0.481138, -0.277785, 0.831470],
    [-0.277785, -0.481138, 0.831470],
    [0.000000, -0.555570, 0.831470],
    [0.277785, -0.481138, 0.831470],
    [0.481138, -0.277785, 0.831470],
    [0.382683, 0.000000, 0.923880],
    [0.270598, 0.270598, 0.923880],
    [0.000000, 0.382683, 0.923880],
    [-0.270598, 0.270598, 0.923880],
    [-0.382683, 0.000000, 0.923880],
    [-0.270598, -0.270598, 0.923880],
    [0.000000, -0.382683, 0.923880],
    [0.270598, -0.270598, 0.923880],
    [0.195090, 0.000000, 0.980785],
    [0.000000, 0.195090, 0.980785],
    [-0.195090, 0.000000, 0.980785],
    [0.000000, -0.195090, 0.980785],
];
