//! SKM and SKP on-disk structures, little-endian, as in Qfusion's `qfiles.h`.
//!
//! Structs and constants only; names follow the C structs (`dskmheader_t` → [`SkmHeader`],
//! field `num_meshes`, ...). Each struct has alignment 1 and a compile-time size assertion
//! pinning it to `docs/formats/skm.md` § Layout. The vertex record is the one DPM uses, little-endian.

use zerocopy::byteorder::{F32, I32, LittleEndian, U32};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

pub use crate::format::SKM_MAGIC;

/// The only defined `type`.
pub const SKM_TYPE: u32 = 2;

/// `dskpbone_t::flags` bit: the bone is an attachment point (tag).
pub const SKM_BONEFLAG_ATTACH: u32 = 1;

/// Length of every name field (`SKM_MAX_NAME`).
pub const SKM_MAX_NAME: usize = 64;

/// How many LOD files (`name_1` … `name_4`) a model may have (`SKM_MAX_LODS`).
pub const SKM_MAX_LODS: usize = 4;

type Le = LittleEndian;

/// `dskmheader_t`, 24 bytes: the mesh file.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct SkmHeader {
    /// [`SKM_MAGIC`].
    pub id: [u8; 4],
    /// Must be [`SKM_TYPE`].
    pub type_: U32<Le>,
    /// Total file size as written.
    pub filesize: U32<Le>,
    /// Bones of the skeleton the meshes are weighted to (must equal the SKP's).
    pub num_bones: U32<Le>,
    /// Number of meshes.
    pub num_meshes: U32<Le>,
    /// Offset of `num_meshes` × [`SkmMesh`].
    pub ofs_meshes: U32<Le>,
}

/// `dskmmesh_t`, 156 bytes.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct SkmMesh {
    /// Shader (texture) name, NUL-padded.
    pub shadername: [u8; SKM_MAX_NAME],
    /// Mesh name, NUL-padded; LOD files append `_N`.
    pub meshname: [u8; SKM_MAX_NAME],
    /// Number of vertices.
    pub num_verts: U32<Le>,
    /// Number of triangles.
    pub num_tris: U32<Le>,
    /// Number of bone references.
    pub num_references: U32<Le>,
    /// Offset of the variable-length vertex records.
    pub ofs_verts: U32<Le>,
    /// Offset of `num_vertices` × `f32[2]` texture coordinates.
    pub ofs_texcoords: U32<Le>,
    /// Offset of `num_triangles` × `u32[3]` vertex indices.
    pub ofs_indices: U32<Le>,
    /// Offset of `num_references` × `u32` bone indices the mesh uses.
    pub ofs_references: U32<Le>,
}

/// `dskpheader_t`, 28 bytes: the skeleton (pose) file.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct SkpHeader {
    /// [`SKM_MAGIC`] (the same as an SKM's).
    pub id: [u8; 4],
    /// Must be [`SKM_TYPE`].
    pub type_: U32<Le>,
    /// Total file size as written.
    pub filesize: U32<Le>,
    /// Number of bones.
    pub num_bones: U32<Le>,
    /// Number of frames.
    pub num_frames: U32<Le>,
    /// Offset of `num_bones` × [`SkpBone`].
    pub ofs_bones: U32<Le>,
    /// Offset of `num_frames` × [`SkpFrame`].
    pub ofs_frames: U32<Le>,
}

/// `dskpbone_t`, 72 bytes.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct SkpBone {
    /// Bone name, NUL-padded.
    pub name: [u8; SKM_MAX_NAME],
    /// Parent bone index, −1 for a root; a valid file has `parent <` this bone's index.
    pub parent: I32<Le>,
    /// [`SKM_BONEFLAG_ATTACH`] or 0.
    pub flags: U32<Le>,
}

/// `dskpframe_t`, 68 bytes (no bounds, unlike DPM).
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct SkpFrame {
    /// Frame name, NUL-padded.
    pub name: [u8; SKM_MAX_NAME],
    /// Offset of `num_bones` × [`SkpBonePose`].
    pub ofs_bonepositions: U32<Le>,
}

/// `dskpbonepose_t`, 28 bytes: rotation and translation relative to the parent bone.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct SkpBonePose {
    /// Rotation quaternion in the order **(x, y, z, w)**.
    pub quat: [F32<Le>; 4],
    /// Translation.
    pub origin: [F32<Le>; 3],
}

impl SkpBonePose {
    /// The quaternion `(x, y, z, w)` in native floats.
    #[inline]
    #[must_use]
    pub fn quat(&self) -> [f32; 4] {
        self.quat.map(|v| v.get())
    }

    /// The translation in native floats.
    #[inline]
    #[must_use]
    pub fn origin(&self) -> [f32; 3] {
        self.origin.map(|v| v.get())
    }

    /// A pose from native floats (for writers).
    #[must_use]
    pub fn new(quat: [f32; 4], origin: [f32; 3]) -> Self {
        SkpBonePose {
            quat: quat.map(F32::new),
            origin: origin.map(F32::new),
        }
    }
}

/// `dskmbonevert_t`, 32 bytes: one influence of a vertex (the DPM record, little-endian).
pub type BoneVert = crate::bonevert::BoneVert<Le>;

/// `dskmvertex_t`: the influence count that precedes a vertex's [`BoneVert`]s.
pub type VertexCount = crate::bonevert::VertexCount<Le>;

const _: () = assert!(size_of::<SkmHeader>() as u64 == crate::format::SKM_HEADER_SIZE);
const _: () = assert!(size_of::<SkmMesh>() == 156);
const _: () = assert!(size_of::<SkpHeader>() as u64 == crate::format::SKP_HEADER_SIZE);
const _: () = assert!(size_of::<SkpBone>() as u64 == crate::format::SKP_BONE_SIZE);
const _: () = assert!(size_of::<SkpFrame>() as u64 == crate::format::SKP_FRAME_SIZE);
const _: () = assert!(size_of::<SkpBonePose>() == 28);
const _: () = assert!(size_of::<BoneVert>() == 32);
