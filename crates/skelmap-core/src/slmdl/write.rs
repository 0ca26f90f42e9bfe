//! Writing SL `mdl` and `.anim` files (fixtures and fuzz seeds). Writes exactly what it is
//! given; the parsers judge.

use zerocopy::IntoBytes;
use zerocopy::byteorder::{F32, LittleEndian, U32};

use super::raw::{AnimHeader, BoneKey, Header, KeyframeHead, MAX_ATTRIBUTES, SLMDL_MAGIC};
use super::view::{AttributeKind, Easing};

type Le = LittleEndian;

/// One vertex of the D3D9-style layout [`MeshBuilder::skinned`] writes.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct VertexDef {
    /// Position.
    pub position: [f32; 3],
    /// Normal.
    pub normal: [f32; 3],
    /// The first three blend weights (the fourth is `1 − Σ`).
    pub weights: [f32; 3],
    /// Four bone indices.
    pub indices: [u8; 4],
    /// Texture coordinate.
    pub texcoord: [f32; 2],
}

/// Builds an SL `mdl`: a declaration and the interleaved vertex bytes.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MeshBuilder {
    /// Bounding-sphere radius.
    pub radius: f32,
    /// Attribute `(type code, size)` pairs, at most 16 are written.
    pub attributes: Vec<(u8, u8)>,
    /// Number of vertices (the header's count).
    pub vertex_count: u32,
    /// The interleaved vertex bytes, written as given.
    pub vertices: Vec<u8>,
}

impl MeshBuilder {
    /// The D3D9-style layout: position, normal, three blend weights, four blend indices and a
    /// texcoord (48 bytes per vertex), from per-vertex values.
    #[must_use]
    pub fn skinned(vertices: &[VertexDef]) -> Self {
        let mut bytes = Vec::with_capacity(vertices.len() * 48);
        let mut radius = 0.0f32;
        for v in vertices {
            let (p, n, w, i, uv) = (&v.position, &v.normal, &v.weights, &v.indices, &v.texcoord);
            radius = radius.max((p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt());
            for f in p.iter().chain(n).chain(w) {
                bytes.extend_from_slice(F32::<Le>::new(*f).as_bytes());
            }
            bytes.extend_from_slice(i);
            for f in uv {
                bytes.extend_from_slice(F32::<Le>::new(*f).as_bytes());
            }
        }
        MeshBuilder {
            radius,
            attributes: [
                (AttributeKind::Position, 12),
                (AttributeKind::Normal, 12),
                (AttributeKind::BlendWeights, 12),
                (AttributeKind::BlendIndices, 4),
                (AttributeKind::Texcoord, 8),
            ]
            .map(|(k, s)| (k.code(), s))
            .to_vec(),
            vertex_count: vertices.len() as u32,
            vertices: bytes,
        }
    }

    /// Writes the file; the vertex size written is the sum of the attribute sizes.
    #[must_use]
    pub fn write(&self) -> Vec<u8> {
        let n = self.attributes.len().min(MAX_ATTRIBUTES);
        let mut types = [0u8; MAX_ATTRIBUTES];
        let mut sizes = [0u8; MAX_ATTRIBUTES];
        for (k, &(t, s)) in self.attributes.iter().take(n).enumerate() {
            types[k] = t;
            sizes[k] = s;
        }
        let header = Header {
            magic: *SLMDL_MAGIC,
            vertex_count: U32::new(self.vertex_count),
            vertex_size: U32::new(sizes.iter().map(|&s| u32::from(s)).sum()),
            radius: F32::new(self.radius),
            attribute_count: U32::new(n as u32),
            attribute_types: types,
            attribute_sizes: sizes,
        };
        let mut out = header.as_bytes().to_vec();
        out.extend_from_slice(&self.vertices);
        out
    }
}

/// One keyframe to write.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyframeDef {
    /// Start time in seconds.
    pub time: f32,
    /// Easing towards the next keyframe.
    pub easing: Easing,
    /// Per bone `(rotation (x, y, z, w), translation)`; missing bones are the identity.
    pub bones: Vec<([f32; 4], [f32; 3])>,
}

/// Builds an SL `.anim`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AnimationBuilder {
    /// Bones per keyframe.
    pub bones: u32,
    /// Keyframes, in time order.
    pub keyframes: Vec<KeyframeDef>,
}

impl AnimationBuilder {
    /// Writes the file.
    #[must_use]
    pub fn write(&self) -> Vec<u8> {
        let header = AnimHeader {
            bone_count: U32::new(self.bones),
            keyframe_count: U32::new(self.keyframes.len() as u32),
        };
        let mut out = header.as_bytes().to_vec();
        for k in &self.keyframes {
            let poses = &k.bones;
            let head = KeyframeHead {
                time: F32::new(k.time),
                easing: U32::new(k.easing.id()),
            };
            out.extend_from_slice(head.as_bytes());
            for b in 0..self.bones as usize {
                let (r, t) = poses
                    .get(b)
                    .copied()
                    .unwrap_or(([0.0, 0.0, 0.0, 1.0], [0.0; 3]));
                let key = BoneKey {
                    rotation: r.map(F32::new),
                    translation: t.map(F32::new),
                };
                out.extend_from_slice(key.as_bytes());
            }
        }
        out
    }
}
