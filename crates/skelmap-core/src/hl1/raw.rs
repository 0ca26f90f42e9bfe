//! Half-Life 1 MDL on-disk structures, little-endian, as in Valve's `engine/studio.h`.
//!
//! Structs and constants only, field names the C names (`type` is `type_`, a Rust keyword).
//! Every struct has alignment 1 and a size assertion pinning it to `docs/formats/hl1.md`
//! § Layout.

use zerocopy::byteorder::{F32, I16, I32, LittleEndian, U16};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

pub use crate::format::HL1_MAGIC;

/// The magic of a sequence-group file (`studioseqhdr_t`), `<stem>01.mdl` and on.
pub const HL1_SEQ_MAGIC: &[u8; 4] = b"IDSQ";

/// The one version Half-Life's studio models have.
pub const STUDIO_VERSION: i32 = 10;

/// `mstudiotexture_t::flags`: flat shading.
pub const STUDIO_NF_FLATSHADE: u32 = 0x0001;
/// `mstudiotexture_t::flags`: chrome (texture coordinates computed from the view each frame).
pub const STUDIO_NF_CHROME: u32 = 0x0002;
/// `mstudiotexture_t::flags`: drawn without lighting.
pub const STUDIO_NF_FULLBRIGHT: u32 = 0x0004;
/// `mstudiotexture_t::flags`: additive blending.
pub const STUDIO_NF_ADDITIVE: u32 = 0x0020;
/// `mstudiotexture_t::flags`: palette index 255 is transparent.
pub const STUDIO_NF_MASKED: u32 = 0x0040;

/// `mstudioseqdesc_t::flags`: the sequence loops.
pub const STUDIO_LOOPING: u32 = 0x0001;

/// `motiontype` bit: the motion bone's X position is zeroed when drawn. As a bone
/// controller's type: it moves its bone along X.
pub const STUDIO_X: u32 = 0x0001;
/// `motiontype` bit: the motion bone's Y position is zeroed when drawn. As a bone
/// controller's type: it moves its bone along Y.
pub const STUDIO_Y: u32 = 0x0002;
/// `motiontype` bit: the motion bone's Z position is zeroed when drawn. As a bone
/// controller's type: it moves its bone along Z.
pub const STUDIO_Z: u32 = 0x0004;
/// A bone controller's type: it turns its bone about X (roll).
pub const STUDIO_XR: u32 = 0x0008;
/// A bone controller's type: it turns its bone about Y (pitch).
pub const STUDIO_YR: u32 = 0x0010;
/// A bone controller's type: it turns its bone about Z (yaw).
pub const STUDIO_ZR: u32 = 0x0020;
/// The bits of a bone controller's type that say what it moves.
pub const STUDIO_TYPES: u32 = 0x7FFF;
/// A bone controller's type bit: its turn wraps around (360° over its range of bytes).
pub const STUDIO_RLOOP: u32 = 0x8000;

/// Bytes of a texture's palette, after its pixels: 256 RGB entries.
pub const PALETTE_BYTES: u64 = 768;

type I32L = I32<LittleEndian>;
type F32L = F32<LittleEndian>;

/// `studiohdr_t`, 244 bytes at offset 0 (`IDST`).
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct StudioHdr {
    /// [`HL1_MAGIC`].
    pub id: [u8; 4],
    /// [`STUDIO_VERSION`].
    pub version: I32L,
    /// The model's name, NUL-padded.
    pub name: [u8; 64],
    /// Size of the file.
    pub length: I32L,
    /// Ideal eye position.
    pub eyeposition: [F32L; 3],
    /// Movement hull minimum.
    pub min: [F32L; 3],
    /// Movement hull maximum.
    pub max: [F32L; 3],
    /// Clipping box minimum.
    pub bbmin: [F32L; 3],
    /// Clipping box maximum.
    pub bbmax: [F32L; 3],
    /// Model flags.
    pub flags: I32L,
    /// Number of [`Bone`]s.
    pub numbones: I32L,
    /// Offset of the bones.
    pub boneindex: I32L,
    /// Number of [`BoneController`]s.
    pub numbonecontrollers: I32L,
    /// Offset of the bone controllers.
    pub bonecontrollerindex: I32L,
    /// Number of [`BBox`] hit boxes.
    pub numhitboxes: I32L,
    /// Offset of the hit boxes.
    pub hitboxindex: I32L,
    /// Number of [`SeqDesc`] sequences.
    pub numseq: I32L,
    /// Offset of the sequences.
    pub seqindex: I32L,
    /// Number of [`SeqGroup`]s (group 0 is this file).
    pub numseqgroups: I32L,
    /// Offset of the sequence groups.
    pub seqgroupindex: I32L,
    /// Number of [`Texture`]s (0: they are in `<stem>T.mdl`).
    pub numtextures: I32L,
    /// Offset of the textures.
    pub textureindex: I32L,
    /// Offset of the first texture's pixels.
    pub texturedataindex: I32L,
    /// Skin references per family.
    pub numskinref: I32L,
    /// Skin families.
    pub numskinfamilies: I32L,
    /// Offset of the `short[numskinfamilies][numskinref]` table.
    pub skinindex: I32L,
    /// Number of [`BodyPart`]s.
    pub numbodyparts: I32L,
    /// Offset of the body parts.
    pub bodypartindex: I32L,
    /// Number of [`Attachment`]s.
    pub numattachments: I32L,
    /// Offset of the attachments.
    pub attachmentindex: I32L,
    /// Unused.
    pub soundtable: I32L,
    /// Unused.
    pub soundindex: I32L,
    /// Unused.
    pub soundgroups: I32L,
    /// Unused.
    pub soundgroupindex: I32L,
    /// Transition graph nodes.
    pub numtransitions: I32L,
    /// Offset of the `byte[numtransitions][numtransitions]` graph.
    pub transitionindex: I32L,
}

/// `studioseqhdr_t`, 76 bytes: the header of a sequence-group file (`IDSQ`).
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct StudioSeqHdr {
    /// [`HL1_SEQ_MAGIC`].
    pub id: [u8; 4],
    /// [`STUDIO_VERSION`].
    pub version: I32L,
    /// Name, NUL-padded.
    pub name: [u8; 64],
    /// Size of the file.
    pub length: I32L,
}

/// `mstudiobone_t`, 112 bytes.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct Bone {
    /// Name, NUL-padded.
    pub name: [u8; 32],
    /// Parent bone, −1 for a root.
    pub parent: I32L,
    /// Unused flags.
    pub flags: I32L,
    /// Per channel (X, Y, Z, XR, YR, ZR) the controller that adds to it, −1 for none.
    pub bonecontroller: [I32L; 6],
    /// Default channel values: position, then Euler angles in radians.
    pub value: [F32L; 6],
    /// Per channel, the scale of the animation values.
    pub scale: [F32L; 6],
}

/// `mstudiobonecontroller_t`, 24 bytes.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct BoneController {
    /// The bone (−1 reads as 0).
    pub bone: I32L,
    /// Motion type bits (`STUDIO_X` …, `STUDIO_RLOOP`).
    pub type_: I32L,
    /// Value at controller byte 0.
    pub start: F32L,
    /// Value at controller byte 255.
    pub end: F32L,
    /// Byte value at rest.
    pub rest: I32L,
    /// 0–3 a user controller, 4 the mouth.
    pub index: I32L,
}

/// `mstudiobbox_t`, 32 bytes: a hit box.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct BBox {
    /// The bone.
    pub bone: I32L,
    /// Hit group.
    pub group: I32L,
    /// Box minimum, bone space.
    pub bbmin: [F32L; 3],
    /// Box maximum, bone space.
    pub bbmax: [F32L; 3],
}

/// `mstudioseqgroup_t`, 104 bytes.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct SeqGroup {
    /// Label, NUL-padded.
    pub label: [u8; 32],
    /// The file the compiler wrote the group to, NUL-padded.
    pub name: [u8; 64],
    /// Was a cache pointer.
    pub unused1: I32L,
    /// Was the group's data pointer.
    pub unused2: I32L,
}

/// `mstudioseqdesc_t`, 176 bytes: a sequence.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct SeqDesc {
    /// Label, NUL-padded.
    pub label: [u8; 32],
    /// Frames per second.
    pub fps: F32L,
    /// [`STUDIO_LOOPING`] or 0.
    pub flags: I32L,
    /// Game activity.
    pub activity: I32L,
    /// Activity weight.
    pub actweight: I32L,
    /// Number of [`Event`]s.
    pub numevents: I32L,
    /// Offset of the events.
    pub eventindex: I32L,
    /// Frames.
    pub numframes: I32L,
    /// Foot pivots.
    pub numpivots: I32L,
    /// Offset of the pivots.
    pub pivotindex: I32L,
    /// Motion type bits.
    pub motiontype: I32L,
    /// The bone the motion is extracted from.
    pub motionbone: I32L,
    /// Movement over the sequence.
    pub linearmovement: [F32L; 3],
    /// Unused.
    pub automoveposindex: I32L,
    /// Unused.
    pub automoveangleindex: I32L,
    /// Box minimum over the sequence.
    pub bbmin: [F32L; 3],
    /// Box maximum.
    pub bbmax: [F32L; 3],
    /// Blends (animations of the sequence).
    pub numblends: I32L,
    /// Offset of `[blend][bone]` [`Anim`]s, from the start of the group's file.
    pub animindex: I32L,
    /// Blend channel types.
    pub blendtype: [I32L; 2],
    /// Blend start values.
    pub blendstart: [F32L; 2],
    /// Blend end values.
    pub blendend: [F32L; 2],
    /// Unused.
    pub blendparent: I32L,
    /// The sequence group holding the animation.
    pub seqgroup: I32L,
    /// Transition node at entry.
    pub entrynode: I32L,
    /// Transition node at exit.
    pub exitnode: I32L,
    /// Transition rules.
    pub nodeflags: I32L,
    /// The sequence played next.
    pub nextseq: I32L,
}

/// `mstudioevent_t`, 76 bytes.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct Event {
    /// Frame of the event.
    pub frame: I32L,
    /// Event number.
    pub event: I32L,
    /// Event type.
    pub type_: I32L,
    /// Options text, NUL-padded.
    pub options: [u8; 64],
}

/// `mstudioattachment_t`, 88 bytes.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct Attachment {
    /// Name, NUL-padded (studiomdl leaves it empty).
    pub name: [u8; 32],
    /// Type.
    pub type_: I32L,
    /// The bone.
    pub bone: I32L,
    /// The point, in the bone's space.
    pub org: [F32L; 3],
    /// Unused axes.
    pub vectors: [[F32L; 3]; 3],
}

/// `mstudioanim_t`, 12 bytes: per channel the offset of its run-length values from this
/// record, 0 for none.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct Anim {
    /// X, Y, Z, XR, YR, ZR.
    pub offset: [U16<LittleEndian>; 6],
}

/// `mstudioanimvalue_t`, 2 bytes: a run header (`valid`, `total` bytes) or a value (`short`).
pub type AnimValue = I16<LittleEndian>;

/// `mstudiobodyparts_t`, 76 bytes.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct BodyPart {
    /// Name, NUL-padded.
    pub name: [u8; 64],
    /// Models to choose from.
    pub nummodels: I32L,
    /// The body value's stride for this part.
    pub base: I32L,
    /// Offset of the [`Model`]s.
    pub modelindex: I32L,
}

/// `mstudiotexture_t`, 80 bytes.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct Texture {
    /// Name, NUL-padded.
    pub name: [u8; 64],
    /// `STUDIO_NF_*` bits.
    pub flags: I32L,
    /// Width in texels.
    pub width: I32L,
    /// Height in texels.
    pub height: I32L,
    /// Offset of the `width × height` palette indices, then the 768-byte palette.
    pub index: I32L,
}

/// `mstudiomodel_t`, 112 bytes.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct Model {
    /// Name, NUL-padded.
    pub name: [u8; 64],
    /// Unused.
    pub type_: I32L,
    /// Bounding radius.
    pub boundingradius: F32L,
    /// Number of [`Mesh`]es.
    pub nummesh: I32L,
    /// Offset of the meshes.
    pub meshindex: I32L,
    /// Vertices.
    pub numverts: I32L,
    /// Offset of one bone byte per vertex.
    pub vertinfoindex: I32L,
    /// Offset of the `vec3_t` vertices, each in its bone's space.
    pub vertindex: I32L,
    /// Normals.
    pub numnorms: I32L,
    /// Offset of one bone byte per normal.
    pub norminfoindex: I32L,
    /// Offset of the `vec3_t` normals, each in its bone's space.
    pub normindex: I32L,
    /// Unused.
    pub numgroups: I32L,
    /// Unused.
    pub groupindex: I32L,
}

/// `mstudiomesh_t`, 20 bytes.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct Mesh {
    /// Triangles, as studiomdl counted them.
    pub numtris: I32L,
    /// Offset of the triangle commands.
    pub triindex: I32L,
    /// The skin reference (column of the skin family table).
    pub skinref: I32L,
    /// Normals of the mesh.
    pub numnorms: I32L,
    /// Unused.
    pub normindex: I32L,
}

/// One vertex of a triangle command (`mstudiotrivert_t`, 8 bytes).
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct Trivert {
    /// Index into the model's vertices.
    pub vertindex: I16<LittleEndian>,
    /// Index into the model's normals.
    pub normindex: I16<LittleEndian>,
    /// Texel column.
    pub s: I16<LittleEndian>,
    /// Texel row.
    pub t: I16<LittleEndian>,
}

const _: () = assert!(size_of::<StudioHdr>() == 244);
const _: () = assert!(size_of::<StudioSeqHdr>() == 76);
const _: () = assert!(size_of::<Bone>() == 112);
const _: () = assert!(size_of::<BoneController>() == 24);
const _: () = assert!(size_of::<BBox>() == 32);
const _: () = assert!(size_of::<SeqGroup>() == 104);
const _: () = assert!(size_of::<SeqDesc>() == 176);
const _: () = assert!(size_of::<Event>() == 76);
const _: () = assert!(size_of::<Attachment>() == 88);
const _: () = assert!(size_of::<Anim>() == 12);
const _: () = assert!(size_of::<BodyPart>() == 76);
const _: () = assert!(size_of::<Texture>() == 80);
const _: () = assert!(size_of::<Model>() == 112);
const _: () = assert!(size_of::<Mesh>() == 20);
const _: () = assert!(size_of::<Trivert>() == 8);
