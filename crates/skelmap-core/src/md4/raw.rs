//! The vertex records of id's MD4 (`md4Vertex_t`, `md4Weight_t` in Quake III's
//! `code/qcommon/qfiles.h`), little-endian, with their field names in snake case
//! (`texCoords` is `tex_coords`, `numWeights` `num_weights`). ioquake3's MDR keeps them as
//! `mdrVertex_t` and `mdrWeight_t`, ET's MDM as `mdmVertex_t` and `mdmWeight_t`; each folder's
//! `raw.rs` re-exports them under those names.

use zerocopy::byteorder::{F32, I32, LittleEndian};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

type Le = LittleEndian;

/// A vertex's fixed part (`md4Vertex_t` without its weights), 24 bytes; `numWeights`
/// [`Md4Weight`]s follow it.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct Md4Vertex {
    /// The normal, turned by the weights' bones (MDR) or the first weight's bone (MDM).
    pub normal: [F32<Le>; 3],
    /// Texture coordinate.
    pub tex_coords: [F32<Le>; 2],
    /// Weights that follow (at least 1 in a validated file).
    pub num_weights: I32<Le>,
}

/// One weight of a vertex (`md4Weight_t`), 20 bytes.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct Md4Weight {
    /// The bone. The headers call it an index into the surface's bone references; the
    /// renderers of MDR and MDM read it as the bone's own index (an MDR frame's, an MDX's).
    pub bone_index: I32<Le>,
    /// The weight.
    pub bone_weight: F32<Le>,
    /// The vertex's position in the bone's space.
    pub offset: [F32<Le>; 3],
}

const _: () = assert!(size_of::<Md4Vertex>() == 24);
const _: () = assert!(size_of::<Md4Weight>() == 20);
