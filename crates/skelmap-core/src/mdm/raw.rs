//! Enemy Territory MDM (`MDMW`, version 3) and MDX (`MDXW`, version 2) on-disk structures,
//! little-endian, with the field names of ET:Legacy's `src/qcommon/qfiles.h` in snake case
//! (`numVerts` is `num_verts`, `ofsCollapseMap` `ofs_collapse_map`); each struct says which C
//! struct it is (`docs/formats/mdm.md` § Layout).
//!
//! An MDM is an [`MdmHeader`], a chain of `numSurfaces` [`MdmSurface`]s from `ofsSurfaces`
//! (each next one `ofsEnd` after the one before; each with its vertices, triangles, collapse
//! map and bone references at offsets from its own start), and a chain of `numTags`
//! [`MdmTag`]s from `ofsTags`, chained the same way. An MDX is an [`MdxHeader`], `numFrames`
//! frames at `ofsFrames` (each an [`MdxFrame`] and `numBones` [`MdxBoneFrameCompressed`]s),
//! and `numBones` [`MdxBoneInfo`]s at `ofsBones`.

use zerocopy::byteorder::{F32, I16, I32, LittleEndian};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

use crate::md4::{Normals, SurfaceHeader};

type Le = LittleEndian;

/// The magic of an MDM file (`MDM_IDENT`).
pub const MDM_MAGIC: &[u8; 4] = crate::format::MDM_MAGIC;
/// The magic of an MDX file (`MDX_IDENT`).
pub const MDX_MAGIC: &[u8; 4] = crate::format::MDX_MAGIC;
/// The one MDM version ET reads (`MDM_VERSION`).
pub const MDM_VERSION: i32 = 3;
/// The one MDX version ET reads (`MDX_VERSION`).
pub const MDX_VERSION: i32 = 2;
/// The bones ET's renderer has room for (`MDX_MAX_BONES`).
pub const MDX_MAX_BONES: u32 = 128;
/// The vertices a surface's collapse table has room for in ET's renderer (`MDM_MAX_VERTS`).
pub const MDM_MAX_VERTS: u32 = 6000;
/// The surfaces ET's tools write at most (`MDM_MAX_SURFACES`).
pub const MDM_MAX_SURFACES: u32 = 32;
/// The tags ET's tools write at most (`MDM_MAX_TAGS`).
pub const MDM_MAX_TAGS: u32 = 128;
/// ET:Legacy drops a surface of more vertices (`SHADER_MAX_VERTEXES`).
pub const SHADER_MAX_VERTEXES: u32 = 10000;
/// ET:Legacy drops a surface whose `3 · numTriangles` is past this (`SHADER_MAX_INDEXES`).
pub const SHADER_MAX_INDEXES: u32 = 6 * SHADER_MAX_VERTEXES;
/// Length of a path field (`MAX_QPATH`).
pub const MAX_QPATH: usize = 64;
/// Degrees a unit of a compressed angle is (`SHORT2ANGLE`: 360 / 65536).
pub const SHORT_TO_DEGREES: f32 = 360.0 / 65536.0;

/// The MDM header (`mdmHeader_t`), 100 bytes.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct MdmHeader {
    /// `MDMW`.
    pub ident: [u8; 4],
    /// 3.
    pub version: I32<Le>,
    /// The model's name, NUL-padded.
    pub name: [u8; MAX_QPATH],
    /// The model's factor on the projected radius when ET picks a level of detail.
    pub lod_scale: F32<Le>,
    /// Subtracted from that level (after the scale).
    pub lod_bias: F32<Le>,
    /// Surfaces.
    pub num_surfaces: I32<Le>,
    /// The first surface.
    pub ofs_surfaces: I32<Le>,
    /// Tags.
    pub num_tags: I32<Le>,
    /// The first tag.
    pub ofs_tags: I32<Le>,
    /// The file's length.
    pub ofs_end: I32<Le>,
}

/// A surface header (`mdmSurface_t`), 176 bytes.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct MdmSurface {
    /// Ignored (ET writes its own).
    pub ident: I32<Le>,
    /// The surface's name, NUL-padded (what a `.skin` names).
    pub name: [u8; MAX_QPATH],
    /// The shader it is drawn with, NUL-padded.
    pub shader: [u8; MAX_QPATH],
    /// Ignored (filled at load).
    pub shader_index: I32<Le>,
    /// The fewest vertices ET draws of this surface at any level of detail.
    pub min_lod: I32<Le>,
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
    /// `numVerts` vertex indices, from the start of this header.
    pub ofs_collapse_map: I32<Le>,
    /// Bones ET builds before drawing this surface.
    pub num_bone_references: I32<Le>,
    /// Those bones, from the start of this header.
    pub ofs_bone_references: I32<Le>,
    /// The next surface, from the start of this header.
    pub ofs_end: I32<Le>,
}

/// A vertex's fixed part (`mdmVertex_t` without its weights), 24 bytes: MD4's
/// (`md4Vertex_t`), which it is (RtCW's `mdsVertex_t` adds two fields; ET's drops them
/// again); `numWeights` [`MdmWeight`]s follow it. Its normal is turned by the first weight's
/// bone.
pub use crate::md4::raw::Md4Vertex as MdmVertex;

/// One weight of a vertex (`mdmWeight_t`), 20 bytes: MD4's (`md4Weight_t`), which it is; its
/// bone an index into the MDX's bones (the header comment says the surface's bone
/// references; ET's renderer reads it as the bone's own index).
pub use crate::md4::raw::Md4Weight as MdmWeight;

/// A triangle (`mdmTriangle_t`), 12 bytes: `indexes` into the surface's vertices, the layout
/// of MD3's triangle, which it is.
pub use crate::alias::idp3::Md3Triangle as MdmTriangle;

/// A tag (`mdmTag_t`), 128 bytes: a point and axes on one bone.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct MdmTag {
    /// The tag's name, NUL-terminated.
    pub name: [u8; MAX_QPATH],
    /// The tag's axes in the bone's space, each turned by the bone.
    pub axis: [[F32<Le>; 3]; 3],
    /// The bone the tag follows.
    pub bone_index: I32<Le>,
    /// The tag's origin in the bone's space.
    pub offset: [F32<Le>; 3],
    /// Bones ET builds before placing this tag.
    pub num_bone_references: I32<Le>,
    /// Those bones, from the start of this tag.
    pub ofs_bone_references: I32<Le>,
    /// The next tag, from the start of this tag.
    pub ofs_end: I32<Le>,
}

/// The MDX header (`mdxHeader_t`), 96 bytes.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct MdxHeader {
    /// `MDXW`.
    pub ident: [u8; 4],
    /// 2.
    pub version: I32<Le>,
    /// The skeleton's name, NUL-padded.
    pub name: [u8; MAX_QPATH],
    /// Frames (at least 1).
    pub num_frames: I32<Le>,
    /// Bones (at least 1).
    pub num_bones: I32<Le>,
    /// The first frame.
    pub ofs_frames: I32<Le>,
    /// The bone infos.
    pub ofs_bones: I32<Le>,
    /// The bone the torso turns about.
    pub torso_parent: I32<Le>,
    /// The file's length.
    pub ofs_end: I32<Le>,
}

/// A frame's summary (`mdxFrame_t`), 52 bytes; `numBones` [`MdxBoneFrameCompressed`]s
/// follow it.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct MdxFrame {
    /// Minimum and maximum corner of the frame.
    pub bounds: [[F32<Le>; 3]; 2],
    /// The middle of the bounds (ET's culling and LOD sphere).
    pub local_origin: [F32<Le>; 3],
    /// Radius of the sphere around `localOrigin`.
    pub radius: F32<Le>,
    /// Where every root bone sits in this frame.
    pub parent_offset: [F32<Le>; 3],
}

/// One bone in one frame (`mdxBoneFrameCompressed_t`), 12 bytes.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct MdxBoneFrameCompressed {
    /// Pitch, yaw, roll of the bone's model-space rotation, 65536 units a turn; the fourth
    /// is unused.
    pub angles: [I16<Le>; 4],
    /// Pitch and yaw of the direction from the parent's position to the bone's.
    pub ofs_angles: [I16<Le>; 2],
}

/// A bone (`mdxBoneInfo_t`), 80 bytes.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct MdxBoneInfo {
    /// The bone's name, NUL-terminated.
    pub name: [u8; MAX_QPATH],
    /// The parent bone, -1 for a root.
    pub parent: I32<Le>,
    /// How much of the torso's frame and turn the bone takes (0: a legs bone).
    pub torso_weight: F32<Le>,
    /// The distance from the parent's position to the bone's.
    pub parent_dist: F32<Le>,
    /// Flags (ET defines bit 0, `BONEFLAG_TAG`).
    pub flags: I32<Le>,
}

const _: () = assert!(size_of::<MdmHeader>() == 100);
const _: () = assert!(size_of::<MdmSurface>() == 176);
const _: () = assert!(size_of::<MdmVertex>() == 24);
const _: () = assert!(size_of::<MdmWeight>() == 20);
const _: () = assert!(size_of::<MdmTriangle>() == 12);
const _: () = assert!(size_of::<MdmTag>() == 128);
const _: () = assert!(size_of::<MdxHeader>() == 96);
const _: () = assert!(size_of::<MdxFrame>() == 52);
const _: () = assert!(size_of::<MdxBoneFrameCompressed>() == 12);
const _: () = assert!(size_of::<MdxBoneInfo>() == 80);

/// ET turns a vertex's normal by its first weight's bone alone (`RB_MDM_SurfaceAnim`).
impl SurfaceHeader for MdmSurface {
    const NORMALS: Normals = Normals::FirstWeight;

    fn name_field(&self) -> &[u8] {
        &self.name
    }

    fn shader_field(&self) -> &[u8] {
        &self.shader
    }
}

impl MdxBoneFrameCompressed {
    /// Pitch, yaw and roll in degrees (`SHORT2ANGLE`).
    #[must_use]
    pub fn angles_degrees(&self) -> [f32; 3] {
        core::array::from_fn(|k| f32::from(self.angles[k].get()) * SHORT_TO_DEGREES)
    }

    /// Pitch and yaw of the offset direction in degrees.
    #[must_use]
    pub fn ofs_angles_degrees(&self) -> [f32; 2] {
        core::array::from_fn(|k| f32::from(self.ofs_angles[k].get()) * SHORT_TO_DEGREES)
    }
}
