//! PSK and PSA on-disk structures, little-endian, as ActorX's `Vertebrate.h` declares them
//! (with UE Viewer's `Psk.h` for the PSKX records).
//!
//! Structs and constants only, field names the C names. Every struct has alignment 1 and a
//! size assertion pinning it to `docs/formats/psk.md` § Layout: the sizes are those the files
//! store in each chunk's `DataSize` (the C structs' sizes with MSVC's padding written out,
//! except `VTriangle32`, which exporters write packed in 18 bytes).

use zerocopy::byteorder::{F32, I32, LittleEndian, U16, U32};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

pub use crate::format::{PSA_MAGIC, PSK_MAGIC};

type F = F32<LittleEndian>;
type Int = I32<LittleEndian>;
type Dword = U32<LittleEndian>;

/// `VChunkHeader`, 32 bytes: every chunk starts with one, its records follow.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct VChunkHeader {
    /// The chunk's name, NUL-padded (`"PNTS0000"`).
    pub chunk_id: [u8; 20],
    /// A version or flags; exporters write a date (`20100422`), readers ignore it.
    pub type_flag: Dword,
    /// Bytes per record.
    pub data_size: Int,
    /// Number of records.
    pub data_count: Int,
}

/// `VPoint`, 12 bytes: a position in model space (Unreal's left-handed axes).
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct VPoint {
    /// `X`, `Y`, `Z`.
    pub point: [F; 3],
}

/// `VVertex` as exported (ActorX's `VVertexExport`, UE Viewer's `VVertex`), 16 bytes: a
/// wedge, a point with its texture coordinate and material.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct VVertex {
    /// The point; a `WORD` and two padding bytes in `VTXW0000` (only the low 16 bits count),
    /// all 32 bits in `VTXW3200`.
    pub point_index: Dword,
    /// Texture coordinate `U`.
    pub u: F,
    /// Texture coordinate `V` (downwards: `0` is the image's top row).
    pub v: F,
    /// The wedge's material (the face's decides).
    pub mat_index: u8,
    /// Reserved.
    pub reserved: u8,
    /// Padding.
    pub pad: U16<LittleEndian>,
}

/// `VTriangle` (`FACE0000`), 12 bytes.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct VTriangle16 {
    /// Three wedges.
    pub wedge_index: [U16<LittleEndian>; 3],
    /// Material.
    pub mat_index: u8,
    /// A second material (unused by engines).
    pub aux_mat_index: u8,
    /// Smoothing-group bits.
    pub smoothing_groups: Dword,
}

/// `VTriangle32` (`FACE3200`, PSKX), 18 bytes, packed.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct VTriangle32 {
    /// Three wedges.
    pub wedge_index: [Dword; 3],
    /// Material.
    pub mat_index: u8,
    /// A second material (unused by engines).
    pub aux_mat_index: u8,
    /// Smoothing-group bits.
    pub smoothing_groups: Dword,
}

/// `VMaterial`, 88 bytes.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct VMaterial {
    /// Name, NUL-padded.
    pub material_name: [u8; 64],
    /// Multi/sub texture index.
    pub texture_index: Int,
    /// Polygon flags.
    pub poly_flags: Dword,
    /// Another material (detail, alpha).
    pub aux_material: Int,
    /// Reserved.
    pub aux_flags: Dword,
    /// Level-of-detail bias.
    pub lod_bias: Int,
    /// Level-of-detail style.
    pub lod_style: Int,
}

/// `VJointPos`, 44 bytes: a bone's rest transform relative to its parent.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct VJointPos {
    /// `X, Y, Z, W`; the root's as stored, every other bone's conjugated
    /// (`docs/formats/psk.md` § Rotations).
    pub orientation: [F; 4],
    /// Translation from the parent.
    pub position: [F; 3],
    /// Unused (collision, debug drawing).
    pub length: F,
    /// Unused.
    pub x_size: F,
    /// Unused.
    pub y_size: F,
    /// Unused.
    pub z_size: F,
}

/// `FNamedBoneBinary` (`VBone`), 120 bytes: a bone of `REFSKELT` or `BONENAMES`.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct FNamedBoneBinary {
    /// Name, NUL-padded.
    pub name: [u8; 64],
    /// Reserved.
    pub flags: Dword,
    /// Number of children (not trusted).
    pub num_children: Int,
    /// Parent bone; the root (bone 0) stores 0 (or −1).
    pub parent_index: Int,
    /// Rest transform.
    pub bone_pos: VJointPos,
}

/// `VRawBoneInfluence`, 12 bytes.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct VRawBoneInfluence {
    /// Weight.
    pub weight: F,
    /// The point.
    pub point_index: Int,
    /// The bone.
    pub bone_index: Int,
}

/// `VMeshUV` (`EXTRAUVS0` …), 8 bytes: one more texture coordinate per wedge.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct VMeshUV {
    /// `U`.
    pub u: F,
    /// `V`.
    pub v: F,
}

/// `VColor` (`VERTEXCOLOR`), 4 bytes, per wedge, in Unreal's `FColor` byte order.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct VColor {
    /// Blue.
    pub b: u8,
    /// Green.
    pub g: u8,
    /// Red.
    pub r: u8,
    /// Alpha.
    pub a: u8,
}

/// One normal of `VTXNORMS`, 12 bytes, per point.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct VNormal {
    /// `X`, `Y`, `Z`.
    pub normal: [F; 3],
}

/// `AnimInfoBinary`, 168 bytes: one sequence of a PSA.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct AnimInfoBinary {
    /// Name, NUL-padded.
    pub name: [u8; 64],
    /// Group, NUL-padded.
    pub group: [u8; 64],
    /// Bones per frame; must be the file's bone count.
    pub total_bones: Int,
    /// 1 when scale keys follow (ActorX's `ScaleInclude`, once `RootInclude`).
    pub root_include: Int,
    /// Reserved.
    pub key_compression_style: Int,
    /// Reserved (exporters write frames × bones).
    pub key_quotum: Int,
    /// Reserved.
    pub key_reduction: F,
    /// Length in frames (exporters write the frame count).
    pub track_time: F,
    /// Frames per second.
    pub anim_rate: F,
    /// Reserved.
    pub start_bone: Int,
    /// The sequence's first frame among the file's keys.
    pub first_raw_frame: Int,
    /// Number of frames.
    pub num_raw_frames: Int,
}

/// `VQuatAnimKey`, 32 bytes: one bone at one frame.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct VQuatAnimKey {
    /// Translation from the parent.
    pub position: [F; 3],
    /// `X, Y, Z, W`, with the convention of [`VJointPos::orientation`].
    pub orientation: [F; 4],
    /// Time to the next key (readers ignore it).
    pub time: F,
}

/// `VScaleAnimKey` (`SCALEKEYS`), 16 bytes.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct VScaleAnimKey {
    /// Scale.
    pub scale_vector: [F; 3],
    /// Ignored.
    pub time: F,
}

const _: () = assert!(size_of::<VChunkHeader>() == 32);
const _: () = assert!(size_of::<VPoint>() == 12);
const _: () = assert!(size_of::<VVertex>() == 16);
const _: () = assert!(size_of::<VTriangle16>() == 12);
const _: () = assert!(size_of::<VTriangle32>() == 18);
const _: () = assert!(size_of::<VMaterial>() == 88);
const _: () = assert!(size_of::<VJointPos>() == 44);
const _: () = assert!(size_of::<FNamedBoneBinary>() == 120);
const _: () = assert!(size_of::<VRawBoneInfluence>() == 12);
const _: () = assert!(size_of::<VMeshUV>() == 8);
const _: () = assert!(size_of::<VColor>() == 4);
const _: () = assert!(size_of::<VNormal>() == 12);
const _: () = assert!(size_of::<AnimInfoBinary>() == 168);
const _: () = assert!(size_of::<VQuatAnimKey>() == 32);
const _: () = assert!(size_of::<VScaleAnimKey>() == 16);
