//! ZYM on-disk structures, big-endian, as in DarkPlaces' `model_zymotic.h`.
//!
//! Structs and constants only, field names the C names; `type` is `type_`, a Rust keyword.
//! Every struct has alignment 1 and a size assertion pinning it to `docs/formats/zym.md`
//! § Layout.

use zerocopy::byteorder::{BigEndian, F32, I32};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

pub use crate::format::ZYM_MAGIC;

/// The one `type` DarkPlaces loads: skeletal pose.
pub const ZYM_TYPE_SKELETAL_POSE: u32 = 1;

/// `zymbone_t::flags` bit: the bone is shared (no engine gives it a meaning).
pub const ZYMBONEFLAG_SHARED: u32 = 1;

/// `zymscene_t::flags` bit: the scene stays on its last pose instead of looping.
pub const ZYMSCENEFLAG_NOLOOP: u32 = 1;

/// `zymlump_t`: where a lump lies, from the start of the file.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct Lump {
    /// Offset of the lump.
    pub start: I32<BigEndian>,
    /// Length of the lump in bytes.
    pub length: I32<BigEndian>,
}

/// `zymtype1header_t`, 140 bytes at offset 0.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct Header {
    /// [`ZYM_MAGIC`], no terminator.
    pub id: [u8; 12],
    /// Model type; must be [`ZYM_TYPE_SKELETAL_POSE`].
    pub type_: I32<BigEndian>,
    /// Size of the whole file.
    pub filesize: I32<BigEndian>,
    /// Box minimum (culling).
    pub mins: [F32<BigEndian>; 3],
    /// Box maximum.
    pub maxs: [F32<BigEndian>; 3],
    /// Bounding sphere radius.
    pub radius: F32<BigEndian>,
    /// Number of vertices.
    pub numverts: I32<BigEndian>,
    /// Number of triangles.
    pub numtris: I32<BigEndian>,
    /// Number of shaders (and runs of the render list).
    pub numshaders: I32<BigEndian>,
    /// Number of bones.
    pub numbones: I32<BigEndian>,
    /// Number of scenes.
    pub numscenes: I32<BigEndian>,
    /// `numscenes` × [`Scene`].
    pub lump_scenes: Lump,
    /// Poses × `numbones` × [`Pose`].
    pub lump_poses: Lump,
    /// `numbones` × [`Bone`].
    pub lump_bones: Lump,
    /// `numverts` × `int`: influences per vertex.
    pub lump_vertbonecounts: Lump,
    /// One [`Vertex`] per influence.
    pub lump_verts: Lump,
    /// `numverts` × `float[2]`.
    pub lump_texcoords: Lump,
    /// Per shader: a triangle count, then that many `int[3]`.
    pub lump_render: Lump,
    /// `numshaders` × `char[32]`.
    pub lump_shaders: Lump,
    /// `numtris` bytes, unused by engines.
    pub lump_trizone: Lump,
}

/// `zymscene_t`, 76 bytes: a clip.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct Scene {
    /// Name, NUL-padded.
    pub name: [u8; 32],
    /// Box minimum over the scene.
    pub mins: [F32<BigEndian>; 3],
    /// Box maximum over the scene.
    pub maxs: [F32<BigEndian>; 3],
    /// Bounding sphere radius.
    pub radius: F32<BigEndian>,
    /// Poses per second.
    pub framerate: F32<BigEndian>,
    /// [`ZYMSCENEFLAG_NOLOOP`] or 0.
    pub flags: I32<BigEndian>,
    /// First pose.
    pub start: I32<BigEndian>,
    /// Number of poses.
    pub length: I32<BigEndian>,
}

/// `zymbone_t`, 40 bytes.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct Bone {
    /// Name, NUL-padded.
    pub name: [u8; 32],
    /// [`ZYMBONEFLAG_SHARED`] or 0.
    pub flags: I32<BigEndian>,
    /// Parent bone, −1 for a root; a valid file has `parent <` this bone's index.
    pub parent: I32<BigEndian>,
}

/// `zymvertex_t`, 16 bytes: one influence of a vertex.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct Vertex {
    /// The bone.
    pub bonenum: I32<BigEndian>,
    /// The position in the bone's pose-0 space.
    pub origin: [F32<BigEndian>; 3],
}

/// One bone of one pose, 48 bytes: a row-major 3×4 matrix relative to the parent bone (the
/// header's comment says 6 floats; DarkPlaces' loader reads 12).
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct Pose {
    /// Rows `(r00 r01 r02 tx)`, `(r10 r11 r12 ty)`, `(r20 r21 r22 tz)`.
    pub matrix: [[F32<BigEndian>; 4]; 3],
}

/// A triangle of the render list, three vertex indices, clockwise seen from the front.
pub type Triangle = [I32<BigEndian>; 3];

const _: () = assert!(size_of::<Lump>() == 8);
const _: () = assert!(size_of::<Header>() == 140);
const _: () = assert!(size_of::<Scene>() == 76);
const _: () = assert!(size_of::<Bone>() == 40);
const _: () = assert!(size_of::<Vertex>() == 16);
const _: () = assert!(size_of::<Pose>() == 48);
