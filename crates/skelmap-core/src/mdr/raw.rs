//! ioquake3 MDR (`RDM5`, version 2) on-disk structures, little-endian, with the field names
//! of ioquake3's `code/qcommon/qfiles.h` in snake case (`numFrames` is `num_frames`, `numLODs`
//! `num_lods`); each struct says which C struct it is (`docs/formats/mdr.md` § Layout).
//!
//! A file is an [`MdrHeader`], then `numFrames` frames at `ofsFrames` ([`MdrFrame`] and its
//! [`MdrBone`]s, or, for a negative `ofsFrames`, [`MdrCompFrame`] and its [`MdrCompBone`]s at
//! `-ofsFrames`), `numLODs` [`MdrLod`]s from `ofsLODs` (each next one `ofsEnd` after the one
//! before), each with its chain of [`MdrSurface`]s, and `numTags` [`MdrTag`]s at `ofsTags`.

use zerocopy::byteorder::{F32, I32, LittleEndian, U16};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

use crate::md4::{Normals, SurfaceHeader};

type Le = LittleEndian;

/// The magic of an MDR file (`MDR_IDENT`).
pub const MDR_MAGIC: &[u8; 4] = crate::format::MDR_MAGIC;
/// The one version ioquake3 reads (`MDR_VERSION`).
pub const MDR_VERSION: i32 = 2;
/// The bones ioquake3's blend has room for (`MDR_MAX_BONES`).
pub const MDR_MAX_BONES: u32 = 128;
/// ioquake3 refuses a surface of this many vertices or more (`SHADER_MAX_VERTEXES`).
pub const SHADER_MAX_VERTEXES: u32 = 1000;
/// ioquake3 refuses a surface whose `3 · numTriangles` reaches this (`SHADER_MAX_INDEXES`).
pub const SHADER_MAX_INDEXES: u32 = 6 * SHADER_MAX_VERTEXES;
/// Length of a path field (`MAX_QPATH`).
pub const MAX_QPATH: usize = 64;
/// A compressed translation's step (`MC_SCALE_X`, `_Y`, `_Z`: 1/64 unit).
pub const MC_SCALE_XYZ: f32 = 1.0 / 64.0;
/// A compressed rotation entry's step (`MC_SCALE_VECT`: `1 / (2¹⁵ − 2)`).
pub const MC_SCALE_VECT: f32 = 1.0 / 32766.0;
/// The bias of every compressed word (`1 << (MC_BITS − 1)`, 16 bits a value).
pub const MC_BIAS: i32 = 1 << 15;

/// The file header (`mdrHeader_t`), 104 bytes.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct MdrHeader {
    /// `RDM5`.
    pub ident: [u8; 4],
    /// 2.
    pub version: I32<Le>,
    /// The model's name, NUL-padded.
    pub name: [u8; MAX_QPATH],
    /// Frames (at least 1).
    pub num_frames: I32<Le>,
    /// Bones in each frame.
    pub num_bones: I32<Le>,
    /// Offset of the first frame; negative: compressed frames at `-ofsFrames`.
    pub ofs_frames: I32<Le>,
    /// Levels of detail.
    pub num_lods: I32<Le>,
    /// Offset of the first level of detail.
    pub ofs_lods: I32<Le>,
    /// Tags.
    pub num_tags: I32<Le>,
    /// Offset of the tags.
    pub ofs_tags: I32<Le>,
    /// The file's length.
    pub ofs_end: I32<Le>,
}

/// A bone's model-space matrix in one frame (`mdrBone_t`), 48 bytes: three rows of the
/// rotation's row and the translation's component.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct MdrBone {
    /// Row-major 3×4: `matrix[r] = [R[r][0], R[r][1], R[r][2], T[r]]`.
    pub matrix: [[F32<Le>; 4]; 3],
}

/// An uncompressed frame's summary (`mdrFrame_t` without its bones), 56 bytes: `bounds`,
/// `local_origin`, `radius` and `name[16]`, the layout of MD3's frame, which it is;
/// `numBones` [`MdrBone`]s follow it.
pub use crate::alias::idp3::Md3Frame as MdrFrame;

/// A compressed bone (`mdrCompBone_t`), 24 bytes: twelve `u16` (`MC_UnCompress`).
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct MdrCompBone {
    /// Translation `x, y, z`, then the rotation row by row, each biased by 2¹⁵.
    pub comp: [U16<Le>; 12],
}

/// A compressed frame's summary (`mdrCompFrame_t` without its bones), 40 bytes;
/// `numBones` [`MdrCompBone`]s follow it.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct MdrCompFrame {
    /// Minimum and maximum corner over every level of detail's surfaces.
    pub bounds: [[F32<Le>; 3]; 2],
    /// The middle of the bounds.
    pub local_origin: [F32<Le>; 3],
    /// Radius of the sphere around `localOrigin`.
    pub radius: F32<Le>,
}

/// A level of detail (`mdrLOD_t`), 12 bytes.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct MdrLod {
    /// Surfaces.
    pub num_surfaces: I32<Le>,
    /// The first surface, from the start of this record.
    pub ofs_surfaces: I32<Le>,
    /// The next level of detail, from the start of this record.
    pub ofs_end: I32<Le>,
}

/// A surface header (`mdrSurface_t`), 168 bytes.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct MdrSurface {
    /// Ignored (ioquake3 writes its own).
    pub ident: I32<Le>,
    /// The surface's name, NUL-padded (what a `.skin` names).
    pub name: [u8; MAX_QPATH],
    /// The shader it is drawn with, NUL-padded.
    pub shader: [u8; MAX_QPATH],
    /// Ignored (filled at load).
    pub shader_index: I32<Le>,
    /// Ignored (back to the header).
    pub ofs_header: I32<Le>,
    /// Vertices.
    pub num_verts: I32<Le>,
    /// The first vertex, from the start of this header.
    pub ofs_verts: I32<Le>,
    /// Triangles.
    pub num_triangles: I32<Le>,
    /// The triangles, from the start of this header.
    pub ofs_triangles: I32<Le>,
    /// Ignored (ioquake3's renderer never reads them).
    pub num_bone_references: I32<Le>,
    /// Ignored.
    pub ofs_bone_references: I32<Le>,
    /// The next surface, from the start of this header.
    pub ofs_end: I32<Le>,
}

/// A vertex's fixed part (`mdrVertex_t` without its weights), 24 bytes: MD4's
/// (`md4Vertex_t`), which it is; `numWeights` [`MdrWeight`]s follow it. Its normal is turned
/// by every weight's bone, each its weight's share.
pub use crate::md4::raw::Md4Vertex as MdrVertex;

/// One weight of a vertex (`mdrWeight_t`), 20 bytes: MD4's (`md4Weight_t`), which it is; its
/// bone the frame's bone index, as ioquake3's renderer reads it.
pub use crate::md4::raw::Md4Weight as MdrWeight;

/// A triangle (`mdrTriangle_t`), 12 bytes: `indexes`, clockwise seen from the front; the
/// layout of MD3's triangle, which it is.
pub use crate::alias::idp3::Md3Triangle as MdrTriangle;

/// A tag (`mdrTag_t`), 36 bytes: a named bone.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct MdrTag {
    /// The bone the tag follows.
    pub bone_index: I32<Le>,
    /// The tag's name, NUL-terminated.
    pub name: [u8; 32],
}

const _: () = assert!(size_of::<MdrHeader>() == 104);
const _: () = assert!(size_of::<MdrBone>() == 48);
const _: () = assert!(size_of::<MdrFrame>() == 56);
const _: () = assert!(size_of::<MdrCompBone>() == 24);
const _: () = assert!(size_of::<MdrCompFrame>() == 40);
const _: () = assert!(size_of::<MdrLod>() == 12);
const _: () = assert!(size_of::<MdrSurface>() == 168);
const _: () = assert!(size_of::<MdrVertex>() == 24);
const _: () = assert!(size_of::<MdrWeight>() == 20);
const _: () = assert!(size_of::<MdrTriangle>() == 12);
const _: () = assert!(size_of::<MdrTag>() == 36);

/// ioquake3 turns a vertex's normal by every weight's bone (`RB_MDRSurfaceAnim`).
impl SurfaceHeader for MdrSurface {
    const NORMALS: Normals = Normals::Weighted;

    fn name_field(&self) -> &[u8] {
        &self.name
    }

    fn shader_field(&self) -> &[u8] {
        &self.shader
    }
}

impl MdrBone {
    /// The matrix as native floats, row-major.
    #[must_use]
    pub fn matrix(&self) -> [[f32; 4]; 3] {
        self.matrix.map(|row| row.map(|v| v.get()))
    }
}

impl MdrCompBone {
    /// The matrix as ioquake3's `MC_UnCompress` decodes it: words 0–2 the translation at
    /// [`MC_SCALE_XYZ`], words 3–11 the rotation row by row at [`MC_SCALE_VECT`], each less
    /// [`MC_BIAS`].
    #[must_use]
    pub fn matrix(&self) -> [[f32; 4]; 3] {
        let word = |i: usize| (i32::from(self.comp[i].get()) - MC_BIAS) as f32;
        core::array::from_fn(|r| {
            [
                word(3 + 3 * r) * MC_SCALE_VECT,
                word(4 + 3 * r) * MC_SCALE_VECT,
                word(5 + 3 * r) * MC_SCALE_VECT,
                word(r) * MC_SCALE_XYZ,
            ]
        })
    }
}
