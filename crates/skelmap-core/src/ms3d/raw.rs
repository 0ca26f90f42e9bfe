//! MS3D on-disk structures, little-endian and packed, as in the MilkShape 3D 1.7.3 file format
//! specification (`ms3d_*_t`) and its 1.8 additions.
//!
//! Field names follow the C structs (`boneId`, `numKeyFramesRot` → `bone_id`,
//! `num_key_frames_rot`). The variable-length records (groups, joints, comments) are split
//! into their fixed head and the counted arrays that follow it. Every struct has alignment 1
//! and a compile-time size assertion.

use zerocopy::byteorder::{F32, I32, LittleEndian, U16, U32};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

type Le = LittleEndian;

pub use crate::format::MS3D_MAGIC;

/// `ms3d_header_t`, 14 bytes.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct Header {
    /// [`MS3D_MAGIC`].
    pub id: [u8; 10],
    /// File version: 3 or 4.
    pub version: I32<Le>,
}

/// `ms3d_vertex_t`, 15 bytes.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct Vertex {
    /// Editor flags (selected, hidden).
    pub flags: u8,
    /// Position in model space.
    pub vertex: [F32<Le>; 3],
    /// Joint the vertex is bound to, −1 for none.
    pub bone_id: i8,
    /// Editor reference count.
    pub reference_count: u8,
}

/// `ms3d_triangle_t`, 70 bytes.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct Triangle {
    /// Editor flags.
    pub flags: U16<Le>,
    /// The three vertex indices.
    pub vertex_indices: [U16<Le>; 3],
    /// A normal per corner.
    pub vertex_normals: [[F32<Le>; 3]; 3],
    /// Texture `s` per corner.
    pub s: [F32<Le>; 3],
    /// Texture `t` per corner (most loaders use `1 − t`).
    pub t: [F32<Le>; 3],
    /// Smoothing group, 1..=32.
    pub smoothing_group: u8,
    /// Group (mesh) the triangle belongs to.
    pub group_index: u8,
}

/// The fixed head of `ms3d_group_t` (35 bytes); `num_triangles` × `u16` triangle indices and
/// an `i8 materialIndex` follow.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct GroupHead {
    /// Editor flags.
    pub flags: u8,
    /// Group name, NUL-padded.
    pub name: [u8; 32],
    /// Number of triangle indices that follow.
    pub num_triangles: U16<Le>,
}

/// `ms3d_material_t`, 361 bytes.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct Material {
    /// Material name, NUL-padded.
    pub name: [u8; 32],
    /// Ambient colour RGBA.
    pub ambient: [F32<Le>; 4],
    /// Diffuse colour RGBA.
    pub diffuse: [F32<Le>; 4],
    /// Specular colour RGBA.
    pub specular: [F32<Le>; 4],
    /// Emissive colour RGBA.
    pub emissive: [F32<Le>; 4],
    /// Specular exponent, 0..=128.
    pub shininess: F32<Le>,
    /// Opacity, 0..=1.
    pub transparency: F32<Le>,
    /// Editor mode.
    pub mode: i8,
    /// Texture file name, NUL-padded.
    pub texture: [u8; 128],
    /// Alpha map file name, NUL-padded.
    pub alphamap: [u8; 128],
}

/// The keyframer block, 12 bytes.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct Keyframer {
    /// Frames per second.
    pub animation_fps: F32<Le>,
    /// Current time in the editor, seconds.
    pub current_time: F32<Le>,
    /// Number of frames in the animation.
    pub total_frames: I32<Le>,
}

/// The fixed head of `ms3d_joint_t` (93 bytes); `num_key_frames_rot` rotation keys then
/// `num_key_frames_trans` position keys follow.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct JointHead {
    /// Editor flags.
    pub flags: u8,
    /// Joint name, NUL-padded.
    pub name: [u8; 32],
    /// Parent joint name, NUL-padded; empty for a root.
    pub parent_name: [u8; 32],
    /// Rest rotation, Euler angles X, Y, Z in radians.
    pub rotation: [F32<Le>; 3],
    /// Rest position relative to the parent.
    pub position: [F32<Le>; 3],
    /// Number of rotation keys.
    pub num_key_frames_rot: U16<Le>,
    /// Number of position keys.
    pub num_key_frames_trans: U16<Le>,
}

/// `ms3d_keyframe_rot_t` / `ms3d_keyframe_pos_t`, 16 bytes: a time in seconds and a vector
/// (Euler angles in radians, or a position), both relative to the joint's rest pose.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct Keyframe {
    /// Time in seconds.
    pub time: F32<Le>,
    /// Rotation (radians) or position.
    pub value: [F32<Le>; 3],
}

/// `ms3d_vertex_ex_t`, sub-version 1, 6 bytes: three more joints and weights (0..=255).
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct VertexEx1 {
    /// Extra joints, −1 for none.
    pub bone_ids: [i8; 3],
    /// Weights of the vertex's own joint and of `bone_ids[0]`, `bone_ids[1]`.
    pub weights: [u8; 3],
}

/// `ms3d_vertex_ex_t`, sub-version 2, 10 bytes: as sub-version 1 (weights 0..=100) plus `extra`.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct VertexEx2 {
    /// Extra joints and weights.
    pub base: VertexEx1,
    /// User data.
    pub extra: U32<Le>,
}

/// `ms3d_vertex_ex_t`, sub-version 3, 14 bytes: as sub-version 2 with two `extra` words.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct VertexEx3 {
    /// Extra joints and weights.
    pub base: VertexEx1,
    /// User data.
    pub extra: [U32<Le>; 2],
}

/// `ms3d_joint_ex_t`, sub-version 1, 12 bytes.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct JointEx {
    /// Editor colour RGB.
    pub color: [F32<Le>; 3],
}

/// `ms3d_model_ex_t`, sub-version 1, 12 bytes.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct ModelEx {
    /// Joint display size.
    pub joint_size: F32<Le>,
    /// 0 simple, 1 depth buffered with alpha ref, 2 depth sorted.
    pub transparency_mode: I32<Le>,
    /// Alpha reference value.
    pub alpha_ref: F32<Le>,
}

const _: () = assert!(size_of::<Header>() == 14);
const _: () = assert!(size_of::<Vertex>() == 15);
const _: () = assert!(size_of::<Triangle>() == 70);
const _: () = assert!(size_of::<GroupHead>() == 35);
const _: () = assert!(size_of::<Material>() == 361);
const _: () = assert!(size_of::<Keyframer>() == 12);
const _: () = assert!(size_of::<JointHead>() == 93);
const _: () = assert!(size_of::<Keyframe>() == 16);
const _: () = assert!(size_of::<VertexEx1>() == 6);
const _: () = assert!(size_of::<VertexEx2>() == 10);
const _: () = assert!(size_of::<VertexEx3>() == 14);
const _: () = assert!(size_of::<JointEx>() == 12);
const _: () = assert!(size_of::<ModelEx>() == 12);
