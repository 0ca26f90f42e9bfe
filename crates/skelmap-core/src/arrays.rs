//! The per-mesh arrays DPM and SKM share: variable-length vertices, texture coordinates and
//! triangle indices, generic over the byte order.

use zerocopy::byteorder::{ByteOrder, F32, U32};

use crate::bonevert::Vertices;
use crate::read::Reader;

/// Zero-copy access to one mesh's validated arrays.
#[derive(Debug, Clone, Copy)]
pub(crate) struct MeshArrays<'data> {
    pub reader: Reader<'data>,
    pub ofs_verts: u64,
    pub num_verts: u32,
    pub ofs_texcoords: u64,
    pub ofs_indices: u64,
    pub num_tris: u32,
}

impl<'data> MeshArrays<'data> {
    pub(crate) fn vertices<O: ByteOrder + 'data>(&self) -> Vertices<'data, O> {
        Vertices::new(self.reader, self.ofs_verts, self.num_verts)
    }

    pub(crate) fn texcoords_raw<O: ByteOrder>(&self) -> &'data [[F32<O>; 2]] {
        self.reader
            .get_slice(self.ofs_texcoords, self.num_verts.into())
            .unwrap_or_default()
    }

    pub(crate) fn indices_raw<O: ByteOrder>(&self) -> &'data [[U32<O>; 3]] {
        self.reader
            .get_slice(self.ofs_indices, self.num_tris.into())
            .unwrap_or_default()
    }
}

/// Texture coordinates as native floats.
pub(crate) fn decode_texcoords<O: ByteOrder>(
    raw: &[[F32<O>; 2]],
) -> impl ExactSizeIterator<Item = [f32; 2]> + Clone + '_ {
    raw.iter().map(|st| st.map(|v| v.get()))
}

/// Triangles as native indices.
pub(crate) fn decode_triangles<O: ByteOrder>(
    raw: &[[U32<O>; 3]],
) -> impl ExactSizeIterator<Item = [u32; 3]> + Clone + '_ {
    raw.iter().map(|t| t.map(|i| i.get()))
}
