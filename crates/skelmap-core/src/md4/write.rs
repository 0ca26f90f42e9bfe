//! Writing MD4 vertices (the builders of MDR and MDM): the definition of a vertex and its
//! weights ([`VertexDef`], [`WeightDef`]; `mdr::write` names them so, `mdm::write` `Vertex`
//! and `Weight`), and laying one out as the records of `md4/raw.rs`. A builder writes what it
//! is given (any weight count, none included); the parser judges.

use zerocopy::IntoBytes;
use zerocopy::byteorder::{F32, I32};

use super::raw::{Md4Vertex, Md4Weight};
use crate::alias::idp3_write::{floats, le_i32};

/// One weight of a vertex.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WeightDef {
    /// The bone (an MDR frame's, an MDX's).
    pub bone: i32,
    /// The weight.
    pub weight: f32,
    /// The vertex's position in the bone's space.
    pub offset: [f32; 3],
}

/// One vertex: its normal and texture coordinate, then its weights.
#[derive(Debug, Clone, PartialEq)]
pub struct VertexDef {
    /// The normal (an MDR turns it by every weight's bone, an MDM by the first weight's).
    pub normal: [f32; 3],
    /// The texture coordinate.
    pub tex_coords: [f32; 2],
    /// The weights (written as many as given, none included).
    pub weights: Vec<WeightDef>,
}

impl VertexDef {
    /// Bytes the vertex takes in the file: its fixed part and its weights.
    pub(crate) fn stored_len(&self) -> usize {
        size_of::<Md4Vertex>() + self.weights.len() * size_of::<Md4Weight>()
    }

    /// Appends the vertex to `out`: its fixed part, then its weights.
    pub(crate) fn put(&self, out: &mut Vec<u8>) {
        let raw = Md4Vertex {
            normal: floats(self.normal),
            tex_coords: floats(self.tex_coords),
            num_weights: le_i32(self.weights.len()),
        };
        out.extend_from_slice(raw.as_bytes());
        for w in &self.weights {
            let raw = Md4Weight {
                bone_index: I32::new(w.bone),
                bone_weight: F32::new(w.weight),
                offset: floats(w.offset),
            };
            out.extend_from_slice(raw.as_bytes());
        }
    }
}
