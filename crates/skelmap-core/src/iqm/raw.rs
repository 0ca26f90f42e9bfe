//! IQM on-disk structures, little-endian, with the field names of the IQM SDK's `iqm.h`.
//!
//! Structs and constants only. Every struct has alignment 1 (the views read sections at any
//! offset, since real files do not always align them) and a compile-time size assertion
//! pinning it to the size in `docs/formats/iqm.md` § Layout.

use zerocopy::byteorder::{F32, I32, LittleEndian, U16, U32};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

pub use crate::format::IQM_MAGIC;

type Le = LittleEndian;

/// The only version read: 2 (version 1 stored no quaternion `w`).
pub const IQM_VERSION: u32 = 2;

/// Vertex array type: position, `float × 3`.
pub const IQM_POSITION: u32 = 0;
/// Vertex array type: texture coordinate, `float × 2`.
pub const IQM_TEXCOORD: u32 = 1;
/// Vertex array type: normal, `float × 3`.
pub const IQM_NORMAL: u32 = 2;
/// Vertex array type: tangent with the bitangent's sign in `w`, `float × 4`.
pub const IQM_TANGENT: u32 = 3;
/// Vertex array type: four joint indices, `ubyte × 4`.
pub const IQM_BLENDINDEXES: u32 = 4;
/// Vertex array type: four weights, `ubyte × 4` summing to 255.
pub const IQM_BLENDWEIGHTS: u32 = 5;
/// Vertex array type: colour, `ubyte × 4` RGBA.
pub const IQM_COLOR: u32 = 6;
/// Types from here up are custom: `type − IQM_CUSTOM` is the offset of their name in the text.
pub const IQM_CUSTOM: u32 = 0x10;

/// Component format: `i8`.
pub const IQM_BYTE: u32 = 0;
/// Component format: `u8`.
pub const IQM_UBYTE: u32 = 1;
/// Component format: `i16`.
pub const IQM_SHORT: u32 = 2;
/// Component format: `u16`.
pub const IQM_USHORT: u32 = 3;
/// Component format: `i32`.
pub const IQM_INT: u32 = 4;
/// Component format: `u32`.
pub const IQM_UINT: u32 = 5;
/// Component format: IEEE half.
pub const IQM_HALF: u32 = 6;
/// Component format: `f32`.
pub const IQM_FLOAT: u32 = 7;
/// Component format: `f64`.
pub const IQM_DOUBLE: u32 = 8;

/// `iqmanim::flags` bit: the animation loops.
pub const IQM_LOOP: u32 = 1;

/// Channels of a pose: translation x, y, z; rotation x, y, z, w; scale x, y, z.
pub const NUM_CHANNELS: usize = 10;

/// The channel-mask bits the format defines.
pub const CHANNEL_MASK: u32 = (1 << NUM_CHANNELS) - 1;

/// Bytes of one component of `format`, or `None` for an unknown format.
#[must_use]
pub fn component_size(format: u32) -> Option<u64> {
    match format {
        IQM_BYTE | IQM_UBYTE => Some(1),
        IQM_SHORT | IQM_USHORT | IQM_HALF => Some(2),
        IQM_INT | IQM_UINT | IQM_FLOAT => Some(4),
        IQM_DOUBLE => Some(8),
        _ => None,
    }
}

/// `iqmheader`, 124 bytes at offset 0.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct Header {
    /// [`IQM_MAGIC`].
    pub magic: [u8; 16],
    /// [`IQM_VERSION`].
    pub version: U32<Le>,
    /// Bytes of the whole file, this header included.
    pub filesize: U32<Le>,
    /// Unused (0).
    pub flags: U32<Le>,
    /// Bytes of the string table.
    pub num_text: U32<Le>,
    /// Offset of the string table.
    pub ofs_text: U32<Le>,
    /// Number of [`Mesh`] records.
    pub num_meshes: U32<Le>,
    /// Offset of the meshes.
    pub ofs_meshes: U32<Le>,
    /// Number of [`VertexArray`] records.
    pub num_vertexarrays: U32<Le>,
    /// Vertices every array holds.
    pub num_vertexes: U32<Le>,
    /// Offset of the vertex arrays.
    pub ofs_vertexarrays: U32<Le>,
    /// Number of [`Triangle`] records.
    pub num_triangles: U32<Le>,
    /// Offset of the triangles.
    pub ofs_triangles: U32<Le>,
    /// Offset of one [`Triangle`]-sized adjacency record per triangle, 0 for none.
    pub ofs_adjacency: U32<Le>,
    /// Number of [`Joint`] records.
    pub num_joints: U32<Le>,
    /// Offset of the joints.
    pub ofs_joints: U32<Le>,
    /// Number of [`Pose`] records (per frame, one per animated joint).
    pub num_poses: U32<Le>,
    /// Offset of the poses.
    pub ofs_poses: U32<Le>,
    /// Number of [`Anim`] records.
    pub num_anims: U32<Le>,
    /// Offset of the anims.
    pub ofs_anims: U32<Le>,
    /// Number of frames.
    pub num_frames: U32<Le>,
    /// `u16` channel values per frame.
    pub num_framechannels: U32<Le>,
    /// Offset of `num_frames × num_framechannels` `u16`s.
    pub ofs_frames: U32<Le>,
    /// Offset of one [`Bounds`] per frame, 0 for none.
    pub ofs_bounds: U32<Le>,
    /// Bytes of the comment.
    pub num_comment: U32<Le>,
    /// Offset of the comment.
    pub ofs_comment: U32<Le>,
    /// Number of [`Extension`] records in the chain.
    pub num_extensions: U32<Le>,
    /// Offset of the first extension.
    pub ofs_extensions: U32<Le>,
}

const _: () = assert!(size_of::<Header>() == 124);

/// `iqmmesh`, 24 bytes: a range of the vertices and of the triangles, drawn with a material.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct Mesh {
    /// Text offset of the mesh's name.
    pub name: U32<Le>,
    /// Text offset of the material (a texture or shader name).
    pub material: U32<Le>,
    /// First vertex of the mesh's range.
    pub first_vertex: U32<Le>,
    /// Vertices in the range.
    pub num_vertexes: U32<Le>,
    /// First triangle of the mesh.
    pub first_triangle: U32<Le>,
    /// Triangles of the mesh.
    pub num_triangles: U32<Le>,
}

const _: () = assert!(size_of::<Mesh>() == 24);

/// `iqmvertexarray`, 20 bytes: one attribute of every vertex.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct VertexArray {
    /// [`IQM_POSITION`] … [`IQM_COLOR`], or `IQM_CUSTOM` + the text offset of a name.
    pub type_: U32<Le>,
    /// Unused (0).
    pub flags: U32<Le>,
    /// Component format ([`IQM_BYTE`] … [`IQM_DOUBLE`]).
    pub format: U32<Le>,
    /// Components per vertex.
    pub size: U32<Le>,
    /// Offset of `num_vertexes × size` tightly packed components.
    pub offset: U32<Le>,
}

const _: () = assert!(size_of::<VertexArray>() == 20);

/// `iqmtriangle` (and `iqmadjacency`, which has its layout), 12 bytes.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct Triangle {
    /// Three vertex indices (adjacency: three triangle indices, `u32::MAX` for none).
    pub vertex: [U32<Le>; 3],
}

const _: () = assert!(size_of::<Triangle>() == 12);

/// `iqmjoint`, 48 bytes: a joint of the bind pose, relative to its parent.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct Joint {
    /// Text offset of the name.
    pub name: U32<Le>,
    /// Parent joint, negative for a root.
    pub parent: I32<Le>,
    /// Translation.
    pub translate: [F32<Le>; 3],
    /// Rotation quaternion `x, y, z, w` (normalised when read).
    pub rotate: [F32<Le>; 4],
    /// Scale, applied first.
    pub scale: [F32<Le>; 3],
}

const _: () = assert!(size_of::<Joint>() == 48);

/// `iqmpose`, 88 bytes: how one joint's ten channels are decoded from the frames.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct Pose {
    /// Parent, negative for a root.
    pub parent: I32<Le>,
    /// Bit `c` set: channel `c` reads the next `u16` of the frame.
    pub channelmask: U32<Le>,
    /// Per channel, the value at 0 (and the whole value of a channel not in the mask).
    pub channeloffset: [F32<Le>; NUM_CHANNELS],
    /// Per channel, the value of one step of the stored `u16`.
    pub channelscale: [F32<Le>; NUM_CHANNELS],
}

const _: () = assert!(size_of::<Pose>() == 88);

/// `iqmanim`, 20 bytes: a named run of frames.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct Anim {
    /// Text offset of the name.
    pub name: U32<Le>,
    /// First frame.
    pub first_frame: U32<Le>,
    /// Frames in the run.
    pub num_frames: U32<Le>,
    /// Frames per second.
    pub framerate: F32<Le>,
    /// [`IQM_LOOP`] or 0.
    pub flags: U32<Le>,
}

const _: () = assert!(size_of::<Anim>() == 20);

/// `iqmbounds`, 32 bytes: one frame's bounding box and radii.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct Bounds {
    /// Box minimum.
    pub bbmins: [F32<Le>; 3],
    /// Box maximum.
    pub bbmaxs: [F32<Le>; 3],
    /// Radius in the X-Y plane.
    pub xyradius: F32<Le>,
    /// Spherical radius.
    pub radius: F32<Le>,
}

const _: () = assert!(size_of::<Bounds>() == 32);

/// `iqmextension`, 16 bytes: one link of the extension chain.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct Extension {
    /// Text offset of the name.
    pub name: U32<Le>,
    /// Bytes of data.
    pub num_data: U32<Le>,
    /// Offset of the data.
    pub ofs_data: U32<Le>,
    /// Offset of the next extension, 0 after the last.
    pub ofs_extensions: U32<Le>,
}

const _: () = assert!(size_of::<Extension>() == 16);

/// One frame channel value.
pub type Channel = U16<Le>;
