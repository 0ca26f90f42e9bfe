//! MDL7 on-disk structures, little-endian, with the field names of GameStudio's MDL7 SDK
//! (as assimp's `MDLFileData.h` repeats them).
//!
//! The header gives the size of each record kind, and real files use more than one size for
//! triangles, vertices and bones. Each struct here is the longest record, or the prefix every
//! size shares ([`TrianglePrefix`], [`VertexPrefix`], [`BonePrefix`]); the accepted sizes are
//! the `*_SIZES` constants, and `docs/formats/mdl7.md` § Layout lists what each size adds.
//! Every struct has alignment 1 and a compile-time size assertion.

use zerocopy::byteorder::{F32, LittleEndian, U16, U32};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

pub use crate::alias::raw::Mdl7Material;
pub use crate::format::MDL7_MAGIC;

type Le = LittleEndian;

/// The MDL7 header, 48 bytes: counts, the size of the main data, and the size of each record
/// kind.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct Header {
    /// `MDL7`.
    pub ident: [u8; 4],
    /// 0 in every public file.
    pub version: U32<Le>,
    /// Bones of the skeleton (0 for a model animated by its vertices).
    pub bones_num: U32<Le>,
    /// Groups (meshes).
    pub groups_num: U32<Le>,
    /// Bytes of the main data, header included: where entity and editor lumps begin.
    pub data_size: U32<Le>,
    /// Bytes of the entity lump after the main data.
    pub entlump_size: U32<Le>,
    /// Bytes of the editor (MED) lump after the entity lump.
    pub medlump_size: U32<Le>,
    /// Bytes of a bone record: 16, 36 or 48 ([`BONE_SIZES`]).
    pub bone_stc_size: U16<Le>,
    /// Bytes of a skin record's head: 28 ([`SKIN_SIZE`]).
    pub skin_stc_size: U16<Le>,
    /// Bytes of a colour value: 16.
    pub colorvalue_stc_size: U16<Le>,
    /// Bytes of a material: 68 ([`Mdl7Material`]).
    pub material_stc_size: U16<Le>,
    /// Bytes of a texture coordinate: 8 ([`TexCoord`]).
    pub skinpoint_stc_size: U16<Le>,
    /// Bytes of a triangle: 12, 16 or 26 ([`TRIANGLE_SIZES`]).
    pub triangle_stc_size: U16<Le>,
    /// Bytes of a main (stored) vertex: 16 or 26 ([`VERTEX_SIZES`]).
    pub mainvertex_stc_size: U16<Le>,
    /// Bytes of a frame vertex: 16 or 26 ([`VERTEX_SIZES`]).
    pub framevertex_stc_size: U16<Le>,
    /// Bytes of a bone transformation: 68 ([`BoneTransform`]).
    pub bonetrans_stc_size: U16<Le>,
    /// Bytes of a frame head: 24 ([`Frame`]).
    pub frame_stc_size: U16<Le>,
}

/// Bone record sizes: no name, a 20-byte name, a 32-byte name.
pub const BONE_SIZES: [u16; 3] = [16, 36, 48];
/// The skin record head's size (`typ, width, height, texture_name[16]`).
pub const SKIN_SIZE: u16 = 28;
/// A colour value's size (four floats).
pub const COLORVALUE_SIZE: u16 = 16;
/// A material's size.
pub const MATERIAL_SIZE: u16 = 68;
/// A texture coordinate's size.
pub const SKINPOINT_SIZE: u16 = 8;
/// Triangle sizes: one UV set; one UV set and a material; two UV sets with their materials.
pub const TRIANGLE_SIZES: [u16; 3] = [12, 16, 26];
/// Vertex sizes: a normal-table index; a float normal.
pub const VERTEX_SIZES: [u16; 2] = [16, 26];
/// A bone transformation's size.
pub const BONETRANS_SIZE: u16 = 68;
/// A frame head's size.
pub const FRAME_SIZE: u16 = 24;

/// `parent_index` of a bone without a parent, `vertindex` of a vertex bound to no bone, and
/// `st_index` of a triangle corner without a texture coordinate.
pub const NONE16: u16 = 0xFFFF;

/// The part of a bone record every size shares; a name of 20 or 32 bytes may follow.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct BonePrefix {
    /// The parent bone, [`NONE16`] for a root.
    pub parent_index: U16<Le>,
    /// Unused.
    pub _unused_: [u8; 2],
    /// Position relative to the parent's (the model origin for a root).
    pub x: F32<Le>,
    /// See [`x`](Self::x).
    pub y: F32<Le>,
    /// See [`x`](Self::x).
    pub z: F32<Le>,
}

/// A group (mesh) head, 44 bytes; its skins, texture coordinates, triangles, vertices and
/// frames follow it.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct Group {
    /// 1 for a triangle mesh, the only type in public files.
    pub typ: u8,
    /// Deformer blocks of this group, stored after the last group.
    pub deformers: u8,
    /// The most weights a vertex of the group has.
    pub max_weights: u8,
    /// Unused.
    pub _unused_: u8,
    /// Bytes of the group, head included, but without embedded skin texels in some files: not
    /// a reliable skip.
    pub groupdata_size: U32<Le>,
    /// Name, NUL-padded (empty in public files).
    pub name: [u8; 16],
    /// Skins.
    pub numskins: U32<Le>,
    /// Texture coordinates.
    pub num_stpts: U32<Le>,
    /// Triangles.
    pub numtris: U32<Le>,
    /// Main (stored) vertices.
    pub numverts: U32<Le>,
    /// Frames.
    pub numframes: U32<Le>,
}

/// A skin record's head, 28 bytes; the payload its `typ` describes follows.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct SkinHeader {
    /// The kind (bits 0..=2) and flags (see [`alias::skin`](crate::alias::skin)).
    pub typ: U32<Le>,
    /// Width in texels, or a byte length, or a skin index (by kind).
    pub width: U32<Le>,
    /// Height in texels (1 for an external name).
    pub height: U32<Le>,
    /// The skin's name, NUL-padded.
    pub texture_name: [u8; 16],
}

/// A texture coordinate, as a fraction of the skin.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct TexCoord {
    /// Horizontal.
    pub u: F32<Le>,
    /// Vertical.
    pub v: F32<Le>,
}

/// One set of a triangle's texture coordinates and its material.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct SkinSet {
    /// Texture coordinate indices, [`NONE16`] for none.
    pub st_index: [U16<Le>; 3],
    /// The skin (material) of this set in the group.
    pub material: U32<Le>,
}

/// The 26-byte triangle: two skin sets.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct Triangle {
    /// Vertex indices into the group's main vertices.
    pub v_index: [U16<Le>; 3],
    /// The texture sets; the second for multi-texturing.
    pub skinsets: [SkinSet; 2],
}

/// The part of a triangle every size shares: vertex and texture coordinate indices.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct TrianglePrefix {
    /// Vertex indices into the group's main vertices.
    pub v_index: [U16<Le>; 3],
    /// Texture coordinate indices of the first set, [`NONE16`] for none.
    pub st_index: [U16<Le>; 3],
}

/// The part of a vertex every size shares; a 16-byte vertex then has `norm162index` and a
/// padding byte, a 26-byte one three floats of normal.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct VertexPrefix {
    /// Position.
    pub x: F32<Le>,
    /// See [`x`](Self::x).
    pub y: F32<Le>,
    /// See [`x`](Self::x).
    pub z: F32<Le>,
    /// A main vertex: the bone that moves it, [`NONE16`] for none. A frame vertex: the index
    /// of the main vertex it replaces.
    pub vertindex: U16<Le>,
}

/// A frame head, 24 bytes; `vertices_count` frame vertices and `transmatrix_count` bone
/// transformations follow.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct Frame {
    /// Name, NUL-padded.
    pub frame_name: [u8; 16],
    /// Vertices that replace main vertices in this frame.
    pub vertices_count: U32<Le>,
    /// Bone transformations (group 0 only).
    pub transmatrix_count: U32<Le>,
}

/// A bone's motion in a frame, 68 bytes: a row-vector 4×4 matrix (translation in `m[12..15]`)
/// about the bone's bind position.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct BoneTransform {
    /// The matrix, row by row.
    pub m: [F32<Le>; 16],
    /// The bone it moves.
    pub bone_index: U16<Le>,
    /// Unused.
    pub _unused_: [u8; 2],
}

/// A deformer block head, 16 bytes; `elements` elements follow.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct Deformer {
    /// 0 in public files.
    pub deformer_version: u8,
    /// 0: bone weights (the only type).
    pub deformer_typ: u8,
    /// Unused.
    pub _unused_: [u8; 2],
    /// The group whose vertices it weights.
    pub group_index: U32<Le>,
    /// Elements (one per bone).
    pub elements: U32<Le>,
    /// Bytes of the block, this head included.
    pub deformerdata_size: U32<Le>,
}

/// A deformer element head, 28 bytes: a bone and how many weights follow.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct DeformerElement {
    /// The bone.
    pub element_index: U32<Le>,
    /// The bone's name, NUL-padded.
    pub element_name: [u8; 20],
    /// Weights after this head.
    pub weights: U32<Le>,
}

/// One weight of a deformer element: a vertex of the group and how much the bone moves it.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct DeformerWeight {
    /// The vertex.
    pub index: U32<Le>,
    /// Its weight.
    pub weight: F32<Le>,
}

/// The deformer type of bone weights.
pub const DEFORMER_BONES: u8 = 0;

const _: () = assert!(size_of::<Header>() == 48);
const _: () = assert!(size_of::<BonePrefix>() == 16);
const _: () = assert!(size_of::<Group>() == 44);
const _: () = assert!(size_of::<SkinHeader>() == SKIN_SIZE as usize);
const _: () = assert!(size_of::<TexCoord>() == SKINPOINT_SIZE as usize);
const _: () = assert!(size_of::<Triangle>() == 26);
const _: () = assert!(size_of::<TrianglePrefix>() == 12);
const _: () = assert!(size_of::<VertexPrefix>() == 14);
const _: () = assert!(size_of::<Frame>() == FRAME_SIZE as usize);
const _: () = assert!(size_of::<BoneTransform>() == BONETRANS_SIZE as usize);
const _: () = assert!(size_of::<Mdl7Material>() == MATERIAL_SIZE as usize);
const _: () = assert!(size_of::<Deformer>() == 16);
const _: () = assert!(size_of::<DeformerElement>() == 28);
const _: () = assert!(size_of::<DeformerWeight>() == 8);
