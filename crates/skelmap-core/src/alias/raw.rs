//! The on-disk structures the alias-model family shares, little-endian: the 84-byte MDL
//! header of Quake and GameStudio MDL2 to MDL5, and the skin record flags and material of
//! GameStudio's MDL7-style skins (HMP7's and MDL7's).

use zerocopy::byteorder::{F32, I32, LittleEndian};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

type Le = LittleEndian;

/// The MDL header (Quake's `mdl_t`), 84 bytes (0x54): the one declaration of the layout that
/// Quake MDL (`IDPO`) and GameStudio MDL2 to MDL5 share, read by [`gamestudio`](crate::gamestudio)
/// and [`quake`](crate::quake). Field names are those of Quake's `modelgen.h`; where GameStudio
/// gives a slot another meaning, its doc says so.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct MdlHeader {
    /// `IDPO`, or `MDL2` to `MDL5` (`MDL7` is refused).
    pub ident: [u8; 4],
    /// 6 for Quake; 0 in every GameStudio sample.
    pub version: I32<Le>,
    /// Vertex scale: position = `scale · packed + scale_origin`.
    pub scale: [F32<Le>; 3],
    /// Vertex origin (GameStudio's `offset`).
    pub scale_origin: [F32<Le>; 3],
    /// Bounding radius (unused by GameStudio; some of its writers fill it).
    pub boundingradius: F32<Le>,
    /// Eye position, for view models (unused by GameStudio).
    pub eyeposition: [F32<Le>; 3],
    /// Number of skins (a Quake skin group counts once).
    pub numskins: I32<Le>,
    /// Skin width in texels: every skin's in Quake, MDL2, MDL3 and MDL4; 0 in MDL5, whose skins
    /// carry their own size.
    pub skinwidth: I32<Le>,
    /// Skin height in texels, as `skinwidth`.
    pub skinheight: I32<Le>,
    /// Vertices per frame (in Quake and MDL2 also the texture vertices).
    pub numverts: I32<Le>,
    /// Triangles.
    pub numtris: I32<Le>,
    /// Frames (a Quake frame group counts once).
    pub numframes: I32<Le>,
    /// Quake: 0 animates in sync, 1 starts at a random time. GameStudio MDL3 to MDL5: the
    /// number of skin (texture) vertices, `numskinverts`.
    pub synctype: I32<Le>,
    /// Quake's engine flags (trails, rotation: `EF_ROCKET` = 1 … `EF_ROTATE` = 8 …); 0 in
    /// GameStudio files.
    pub flags: I32<Le>,
    /// Average triangle size, for software Quake's level of detail (unused by GameStudio).
    pub size: F32<Le>,
}

/// HMP7 (MDL7-style) skin type flag: three mip levels follow the texels.
pub const SKINTYPE_MIPS: i32 = 0x08;
/// HMP7 skin type flag: a [`Mdl7Material`] follows the texels and mips.
pub const SKINTYPE_MATERIAL: i32 = 0x10;
/// HMP7 skin type flag: a text material definition (`i32 length` and the bytes) follows.
pub const SKINTYPE_ASCII_DEFINITION: i32 = 0x20;
/// Every bit an HMP7 skin type may set: the kind (bits 0..=2) and the three flags.
pub const SKINTYPE_FLAGS: i32 =
    0x07 | SKINTYPE_MIPS | SKINTYPE_MATERIAL | SKINTYPE_ASCII_DEFINITION;
/// Longest external texture name, NUL included (the name readers store at most 1023 bytes).
pub const MAX_EXTERNAL_NAME: u32 = 1024;

/// The material an HMP7 (MDL7-style) skin may carry: 17 floats (68 bytes).
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct Mdl7Material {
    /// Diffuse RGBA.
    pub diffuse: [F32<Le>; 4],
    /// Ambient RGBA.
    pub ambient: [F32<Le>; 4],
    /// Specular RGBA.
    pub specular: [F32<Le>; 4],
    /// Emissive RGBA.
    pub emissive: [F32<Le>; 4],
    /// Specular power.
    pub power: F32<Le>,
}

const _: () = assert!(size_of::<MdlHeader>() == 84);
const _: () = assert!(size_of::<Mdl7Material>() == 68);
