//! Writer pieces shared by every format's builder: bone and influence definitions and the
//! conversions of counts, offsets and names into fixed-size fields.

use crate::error::{Error, Result};
use crate::format::Format;

/// A bone to write (DPM or SKP).
#[derive(Debug, Clone, PartialEq)]
pub struct BoneDef {
    /// Name (at most 32 bytes for DPM, 64 for SKP; exactly that many leaves it unterminated,
    /// which the formats allow).
    pub name: Vec<u8>,
    /// Parent index, −1 for a root.
    pub parent: i32,
    /// Flags ([`BONE_FLAG_ATTACHMENT`](crate::pose::BONE_FLAG_ATTACHMENT) or 0).
    pub flags: u32,
}

impl BoneDef {
    /// A bone with no flags.
    #[must_use]
    pub fn new(name: impl Into<Vec<u8>>, parent: i32) -> Self {
        BoneDef {
            name: name.into(),
            parent,
            flags: 0,
        }
    }
}

/// One bone influence on a vertex, stored pre-weighted as DPM and SKM require.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Influence {
    /// Bone index.
    pub bone: u32,
    /// Weight.
    pub weight: f32,
    /// Position in the bone's frame-0 space, already multiplied by `weight`.
    pub origin: [f32; 3],
    /// Normal in the bone's frame-0 space, already multiplied by `weight`.
    pub normal: [f32; 3],
}

impl Influence {
    /// An influence from an unweighted bone-space position and normal (multiplies them by `weight`).
    #[must_use]
    pub fn weighted(bone: u32, weight: f32, origin: [f32; 3], normal: [f32; 3]) -> Self {
        Influence {
            bone,
            weight,
            origin: origin.map(|v| v * weight),
            normal: normal.map(|v| v * weight),
        }
    }
}

/// `value` as a 32-bit field, or [`Error::Write`].
pub(crate) fn u32_field(format: Format, what: &'static str, value: u64) -> Result<u32> {
    u32::try_from(value).map_err(|_| Error::Write {
        format,
        what,
        value,
        max: u32::MAX.into(),
    })
}

/// `name` NUL-padded into an `N`-byte field, or [`Error::Write`] if it is longer.
pub(crate) fn name_field<const N: usize>(
    format: Format,
    what: &'static str,
    name: &[u8],
) -> Result<[u8; N]> {
    let mut field = [0u8; N];
    match field.get_mut(..name.len()) {
        Some(dst) => dst.copy_from_slice(name),
        None => {
            return Err(Error::Write {
                format,
                what,
                value: name.len() as u64,
                max: N as u64,
            });
        }
    }
    Ok(field)
}

/// Appends DPM/SKM vertex records: per vertex its influence count, then its records.
pub(crate) fn put_vertices<O: zerocopy::ByteOrder>(out: &mut Vec<u8>, vertices: &[Vec<Influence>]) {
    use zerocopy::IntoBytes;
    for vertex in vertices {
        out.extend_from_slice(zerocopy::byteorder::U32::<O>::new(vertex.len() as u32).as_bytes());
        for inf in vertex {
            let record =
                crate::bonevert::BoneVert::<O>::new(inf.origin, inf.weight, inf.normal, inf.bone);
            out.extend_from_slice(record.as_bytes());
        }
    }
}

/// Appends `count` texture coordinates (missing entries written as 0).
pub(crate) fn put_texcoords<O: zerocopy::ByteOrder>(
    out: &mut Vec<u8>,
    texcoords: &[[f32; 2]],
    count: usize,
) {
    use zerocopy::IntoBytes;
    for i in 0..count {
        let st = texcoords.get(i).copied().unwrap_or_default();
        out.extend_from_slice(st.map(zerocopy::byteorder::F32::<O>::new).as_bytes());
    }
}

/// Appends `u32` values (triangle corners, references, group ids).
pub(crate) fn put_u32s<O: zerocopy::ByteOrder>(
    out: &mut Vec<u8>,
    values: impl Iterator<Item = u32>,
) {
    use zerocopy::IntoBytes;
    for v in values {
        out.extend_from_slice(zerocopy::byteorder::U32::<O>::new(v).as_bytes());
    }
}

/// Bytes of `vertices` as [`put_vertices`] writes them.
pub(crate) fn vertices_size(vertices: &[Vec<Influence>]) -> u64 {
    vertices.iter().map(|v| 4 + 32 * v.len() as u64).sum()
}
