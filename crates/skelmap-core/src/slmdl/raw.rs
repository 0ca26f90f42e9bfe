//! The on-disk structs of the SL `mdl` and `.anim` files (module docs of [`slmdl`](super) give
//! the layout). The names follow the format's document.

use zerocopy::byteorder::{F32, LittleEndian, U32};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

pub use crate::format::SLMDL_MAGIC;

type Le = LittleEndian;

/// Most attributes a vertex can declare.
pub const MAX_ATTRIBUTES: usize = 16;

/// The 0x34-byte header.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct Header {
    /// [`SLMDL_MAGIC`].
    pub magic: [u8; 4],
    /// Number of vertices.
    pub vertex_count: U32<Le>,
    /// Bytes per vertex.
    pub vertex_size: U32<Le>,
    /// Bounding-sphere radius.
    pub radius: F32<Le>,
    /// Number of declared attributes (≤ 16).
    pub attribute_count: U32<Le>,
    /// Attribute type codes ([`AttributeKind`](super::AttributeKind)).
    pub attribute_types: [u8; MAX_ATTRIBUTES],
    /// Attribute sizes in bytes.
    pub attribute_sizes: [u8; MAX_ATTRIBUTES],
}

const _: () = assert!(size_of::<Header>() == 0x34);

/// The 8-byte file header.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct AnimHeader {
    /// Bones per keyframe.
    pub bone_count: U32<Le>,
    /// Keyframes.
    pub keyframe_count: U32<Le>,
}

/// The 8-byte head of each keyframe; `bone_count` × [`BoneKey`] follow.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct KeyframeHead {
    /// Start time in seconds.
    pub time: F32<Le>,
    /// Easing id ([`Easing`](super::Easing)) of the blend towards the next keyframe.
    pub easing: U32<Le>,
}

/// One bone's key, 28 bytes: rotation `(x, y, z, w)` and translation.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct BoneKey {
    /// Rotation quaternion `(x, y, z, w)`.
    pub rotation: [F32<Le>; 4],
    /// Translation.
    pub translation: [F32<Le>; 3],
}

impl BoneKey {
    /// The rotation `(x, y, z, w)` as stored (normalised when sampled).
    #[must_use]
    pub fn rotation(&self) -> [f32; 4] {
        self.rotation.map(|v| v.get())
    }

    /// The translation.
    #[must_use]
    pub fn translation(&self) -> [f32; 3] {
        self.translation.map(|v| v.get())
    }
}

const _: () = assert!(size_of::<AnimHeader>() == 8);
const _: () = assert!(size_of::<KeyframeHead>() == 8);
const _: () = assert!(size_of::<BoneKey>() == 28);

/// Bytes of one `.anim` keyframe with `bones` bones: its head and one key per bone.
pub(crate) fn keyframe_size(bones: u32) -> u64 {
    size_of::<KeyframeHead>() as u64 + size_of::<BoneKey>() as u64 * u64::from(bones)
}
