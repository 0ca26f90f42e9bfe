//! DPM on-disk structures, big-endian, exactly as in DarkPlaces' `model_dpmodel.h`.
//!
//! This module is the equivalent of that header: structs and constants only. Field names are
//! the C names (`num_meshs`, `ofs_bonepositions`, ...) so they can be checked line by line;
//! the only rename is `type` → `type_`, a Rust keyword. Every struct has alignment 1 and a
//! compile-time size assertion pinning it to the size in `docs/formats/dpm.md` § Layout.

use zerocopy::byteorder::{BigEndian, F32, I32, U32};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

pub use crate::format::DPM_MAGIC;

/// The only defined `type`: hierarchical skeletal pose.
pub const DPM_TYPE_SKELETAL: u32 = 2;

/// `dpmbone_t::flags` bit: the bone is an attachment point (tag); protect it from removal.
pub const DPMBONEFLAG_ATTACHMENT: u32 = 1;

/// `dpmheader_t`, 80 bytes at offset 0.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct Header {
    /// [`DPM_MAGIC`].
    pub id: [u8; 16],
    /// Model type; must be [`DPM_TYPE_SKELETAL`].
    pub type_: U32<BigEndian>,
    /// Total file size as written by dpmodel (engines ignore it).
    pub filesize: U32<BigEndian>,
    /// Bounding box minimum over all frames.
    pub mins: [F32<BigEndian>; 3],
    /// Bounding box maximum over all frames.
    pub maxs: [F32<BigEndian>; 3],
    /// Radius of the bounding cylinder (distance in the XY plane).
    pub yawradius: F32<BigEndian>,
    /// Radius of the bounding sphere.
    pub allradius: F32<BigEndian>,
    /// Number of bones.
    pub num_bones: U32<BigEndian>,
    /// Number of meshes.
    pub num_meshs: U32<BigEndian>,
    /// Number of frames.
    pub num_frames: U32<BigEndian>,
    /// Offset of `num_bones` × [`Bone`].
    pub ofs_bones: U32<BigEndian>,
    /// Offset of `num_meshs` × [`Mesh`].
    pub ofs_meshs: U32<BigEndian>,
    /// Offset of `num_frames` × [`Frame`].
    pub ofs_frames: U32<BigEndian>,
}

/// `dpmbone_t`, 40 bytes.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct Bone {
    /// Bone name, NUL-padded (not necessarily NUL-terminated).
    pub name: [u8; 32],
    /// Parent bone index, −1 for a root; a valid file has `parent < ` this bone's index.
    pub parent: I32<BigEndian>,
    /// [`DPMBONEFLAG_ATTACHMENT`] or 0.
    pub flags: U32<BigEndian>,
}

/// `dpmmesh_t`, 56 bytes.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct Mesh {
    /// Shader (texture) name, NUL-padded.
    pub shadername: [u8; 32],
    /// Number of vertices.
    pub num_verts: U32<BigEndian>,
    /// Number of triangles.
    pub num_tris: U32<BigEndian>,
    /// Offset of the variable-length vertex records.
    pub ofs_verts: U32<BigEndian>,
    /// Offset of `num_vertices` × `f32[2]` texture coordinates (t already flipped).
    pub ofs_texcoords: U32<BigEndian>,
    /// Offset of `num_triangles` × `u32[3]` vertex indices (counter-clockwise).
    pub ofs_indices: U32<BigEndian>,
    /// Offset of `num_triangles` × `u32` group ids (meaning left to game code).
    pub ofs_groupids: U32<BigEndian>,
}

/// `dpmframe_t`, 68 bytes.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct Frame {
    /// Frame name, NUL-padded.
    pub name: [u8; 32],
    /// Bounding box minimum of this frame.
    pub mins: [F32<BigEndian>; 3],
    /// Bounding box maximum of this frame.
    pub maxs: [F32<BigEndian>; 3],
    /// Bounding cylinder radius of this frame.
    pub yawradius: F32<BigEndian>,
    /// Bounding sphere radius of this frame.
    pub allradius: F32<BigEndian>,
    /// Offset of `num_bones` × [`BonePose`] (signed in the C header).
    pub ofs_bonepositions: I32<BigEndian>,
}

/// `dpmbonepose_t`, 48 bytes: a row-major 3×4 matrix relative to the parent bone.
///
/// Rows are `(r00 r01 r02 tx)`, `(r10 r11 r12 ty)`, `(r20 r21 r22 tz)`.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct BonePose {
    /// The matrix rows.
    pub matrix: [[F32<BigEndian>; 4]; 3],
}

impl BonePose {
    /// The matrix in native floats, row-major.
    #[inline]
    #[must_use]
    pub fn matrix(&self) -> [[f32; 4]; 3] {
        // Entry by entry: nested `map`s stayed out-of-line calls in the scalar sampler's loop
        // (the `ozz-pose/skelmap-dpm` rows of `benches/peers.rs` without AVX-512).
        let row = |r: &[F32<BigEndian>; 4]| [r[0].get(), r[1].get(), r[2].get(), r[3].get()];
        let [a, b, c] = &self.matrix;
        [row(a), row(b), row(c)]
    }

    /// A pose from native floats (for writers).
    #[must_use]
    pub fn new(matrix: [[f32; 4]; 3]) -> Self {
        BonePose {
            matrix: matrix.map(|row| row.map(F32::new)),
        }
    }
}

/// `dpmbonevert_t`, 32 bytes: one influence of a vertex (shared with SKM, byte order aside).
pub type BoneVert = crate::bonevert::BoneVert<BigEndian>;

/// `dpmvertex_t`: the influence count that precedes a vertex's [`BoneVert`]s.
pub type VertexCount = crate::bonevert::VertexCount<BigEndian>;

const _: () = assert!(size_of::<Header>() == 80);
const _: () = assert!(size_of::<Bone>() == 40);
const _: () = assert!(size_of::<Mesh>() == 56);
const _: () = assert!(size_of::<Frame>() == 68);
const _: () = assert!(size_of::<BonePose>() == 48);
const _: () = assert!(size_of::<BoneVert>() == 32);
const _: () = assert!(size_of::<VertexCount>() == 4);
