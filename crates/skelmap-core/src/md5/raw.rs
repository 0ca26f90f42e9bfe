//! What an MD5 text decodes to: the records of the decoded block (little-endian, unaligned,
//! so the block is plain bytes and the record kernels read it as they read an SKM), the
//! decoded joints and hierarchy, and the grammar's constants. Field names follow Doom 3's
//! `Model_md5.cpp` and `Anim.h` (`vertexWeight_t`, `jointAnimInfo_t`).

use glam::{Quat, Vec3A};
use zerocopy::byteorder::{F32, LittleEndian, U32};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

use super::lex::Span;

pub use crate::format::MD5_MAGIC;

/// The version skelmap reads (`MD5Version 10`, Doom 3's `MD5_VERSION`).
pub const MD5_VERSION: i64 = 10;

/// The pre-release version (`MD5Version 6`), whose mesh layout (`numbones`, bones with a
/// bind matrix) and animation layout (`numchannels`, [`channels`](super::channels)) skelmap
/// also reads.
pub const MD5_VERSION_PRE_RELEASE: i64 = 6;

/// Hierarchy flag (`animBits`): the frame stores the translation's x.
pub const ANIM_TX: u32 = 1;
/// Hierarchy flag: the frame stores the translation's y.
pub const ANIM_TY: u32 = 2;
/// Hierarchy flag: the frame stores the translation's z.
pub const ANIM_TZ: u32 = 4;
/// Hierarchy flag: the frame stores the rotation's x.
pub const ANIM_QX: u32 = 8;
/// Hierarchy flag: the frame stores the rotation's y.
pub const ANIM_QY: u32 = 16;
/// Hierarchy flag: the frame stores the rotation's z.
pub const ANIM_QZ: u32 = 32;
/// Every hierarchy flag.
pub const ANIM_ALL: u32 = 63;

/// How far `x² + y² + z²` of a stored rotation may pass 1 before it is reported (the
/// rotation is then normalised).
pub const UNIT_TOLERANCE: f32 = 1e-3;

/// One weight of a mesh (`vertexWeight_t`): a joint, its share of the vertex, and the
/// vertex's position in the joint's bind space.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct Weight {
    /// The joint (validated below the mesh file's joint count).
    pub joint_index: U32<LittleEndian>,
    /// The share (`bias` in the text), finite.
    pub joint_weight: F32<LittleEndian>,
    /// The position in the joint's space (`offset`), finite.
    pub offset: [F32<LittleEndian>; 3],
}

const _: () = assert!(size_of::<Weight>() == 20);

/// The weights of one vertex: `num_weights` from `first_weight` (validated in range, at
/// least 1).
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct WeightRange {
    /// The first weight.
    pub first_weight: U32<LittleEndian>,
    /// How many.
    pub num_weights: U32<LittleEndian>,
}

const _: () = assert!(size_of::<WeightRange>() == 8);

/// A texture coordinate pair as the block stores it.
pub type TexCoord = [F32<LittleEndian>; 2];

/// A triangle's vertex indices as the block stores them.
pub type Triangle = [U32<LittleEndian>; 3];

/// A position or normal as the block stores it.
pub type Vector = [F32<LittleEndian>; 3];

/// A joint of an `.md5mesh`, decoded: its name, parent, bind pose in model space as stored
/// (the rotation's `w` recovered), and the same pose relative to its parent.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Joint {
    /// The name, inside the quotes.
    pub name: Span,
    /// The parent joint, an earlier one, or -1 for a root.
    pub parent: i32,
    /// The position in model space.
    pub position: Vec3A,
    /// The orientation in model space, unit length.
    pub orientation: Quat,
    /// The orientation relative to the parent.
    pub local_rotation: Quat,
    /// The position relative to the parent, in its space.
    pub local_translation: Vec3A,
}

/// A joint of an `.md5anim`'s hierarchy (`jointAnimInfo_t`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JointAnimInfo {
    /// The name, inside the quotes.
    pub name: Span,
    /// The parent joint, an earlier one, or -1 for a root.
    pub parent_num: i32,
    /// Which components each frame stores ([`ANIM_TX`] … [`ANIM_QZ`]).
    pub anim_bits: u32,
    /// Where the joint's first stored component is in a frame (`startIndex` in the text).
    pub first_component: u32,
}

/// Where one mesh's arrays lie in the decoded block, and its counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MeshLayout {
    /// The `shader` token (inside quotes when quoted).
    pub shader: Span,
    /// The optional `name` token, empty when absent.
    pub name: Span,
    /// Vertices.
    pub num_verts: u32,
    /// Triangles.
    pub num_tris: u32,
    /// Weights.
    pub num_weights: u32,
    /// Weight records summed over the vertices (the pre-weighted records).
    pub num_influences: u32,
    /// Offset of the texture coordinates (`num_verts` [`TexCoord`]s).
    pub ofs_texcoords: usize,
    /// Offset of the weight ranges (`num_verts` [`WeightRange`]s).
    pub ofs_ranges: usize,
    /// Offset of the triangles (`num_tris` [`Triangle`]s).
    pub ofs_tris: usize,
    /// Offset of the weights (`num_weights` [`Weight`]s).
    pub ofs_weights: usize,
    /// Offset of the bind-pose positions (`num_verts` [`Vector`]s).
    pub ofs_positions: usize,
    /// Offset of the bind-pose normals (`num_verts` [`Vector`]s).
    pub ofs_normals: usize,
    /// Offset of the pre-weighted records (SKM's layout: per vertex a count and its
    /// [`BoneVert`](crate::bonevert::BoneVert)s).
    pub ofs_records: usize,
    /// Offset just past the records.
    pub ofs_end: usize,
}
