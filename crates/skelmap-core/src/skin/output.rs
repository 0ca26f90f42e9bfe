//! Where the kernels write: separate position and normal streams, or interleaved vertices.

use bytemuck::{Pod, Zeroable};

/// One skinned vertex, interleaved for a GPU vertex buffer (24 bytes, `Pod`: upload it with
/// `bytemuck::cast_slice`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Pod, Zeroable)]
#[repr(C)]
pub struct SkinnedVertex {
    /// Model-space position.
    pub position: [f32; 3],
    /// Model-space normal (the weighted sum; unit length for unit normals and weights summing
    /// to 1).
    pub normal: [f32; 3],
}

/// A destination indexed by vertex. `put` ignores an index past the end (callers check the
/// length first, so that never happens; the check keeps the kernels total).
pub(crate) trait Sink {
    /// Vertices the destination holds.
    fn len(&self) -> usize;
    /// Writes vertex `i`.
    fn put(&mut self, i: usize, position: [f32; 3], normal: [f32; 3]);
    /// Writes vertices `at .. at + positions.len()` (ignored if that runs past the end).
    fn put_run(&mut self, at: usize, positions: &[[f32; 3]], normals: &[[f32; 3]]);
}

/// Separate position and normal streams.
pub(crate) struct Split<'a> {
    pub positions: &'a mut [[f32; 3]],
    pub normals: &'a mut [[f32; 3]],
}

impl Sink for Split<'_> {
    #[inline]
    fn len(&self) -> usize {
        self.positions.len().min(self.normals.len())
    }

    #[inline(always)]
    fn put(&mut self, i: usize, position: [f32; 3], normal: [f32; 3]) {
        if let (Some(p), Some(n)) = (self.positions.get_mut(i), self.normals.get_mut(i)) {
            *p = position;
            *n = normal;
        }
    }

    #[inline]
    fn put_run(&mut self, at: usize, positions: &[[f32; 3]], normals: &[[f32; 3]]) {
        let end = at + positions.len().min(normals.len());
        if let (Some(p), Some(n)) = (
            self.positions.get_mut(at..end),
            self.normals.get_mut(at..end),
        ) {
            copy(p, positions);
            copy(n, normals);
        }
    }
}

impl Sink for &mut [SkinnedVertex] {
    #[inline]
    fn len(&self) -> usize {
        <[SkinnedVertex]>::len(self)
    }

    #[inline(always)]
    fn put(&mut self, i: usize, position: [f32; 3], normal: [f32; 3]) {
        if let Some(v) = self.get_mut(i) {
            *v = SkinnedVertex { position, normal };
        }
    }

    #[inline]
    fn put_run(&mut self, at: usize, positions: &[[f32; 3]], normals: &[[f32; 3]]) {
        let end = at + positions.len().min(normals.len());
        if let Some(run) = self.get_mut(at..end) {
            for ((v, &position), &normal) in run.iter_mut().zip(positions).zip(normals) {
                *v = SkinnedVertex { position, normal };
            }
        }
    }
}

/// Copies `src` into `dst` (equal lengths); a full 16-vertex block as a fixed-size array, so it
/// compiles to a few vector moves instead of a `memcpy` call.
#[inline(always)]
fn copy(dst: &mut [[f32; 3]], src: &[[f32; 3]]) {
    match (
        <&mut [[f32; 3]; 16]>::try_from(&mut *dst),
        <&[[f32; 3]; 16]>::try_from(src),
    ) {
        (Ok(d), Ok(s)) => *d = *s,
        _ => {
            for (d, s) in dst.iter_mut().zip(src) {
                *d = *s;
            }
        }
    }
}

/// A destination that splits into consecutive pieces of `size` vertices (for chunks skinned
/// in parallel).
pub(crate) trait Chunked: Sink + Send + Sized {
    /// The first `n` vertices in pieces of `size` (the last may be shorter).
    fn pieces(self, n: usize, size: usize) -> Vec<Self>;
}

impl Chunked for Split<'_> {
    fn pieces(self, n: usize, size: usize) -> Vec<Self> {
        let n = n.min(self.positions.len()).min(self.normals.len());
        self.positions[..n]
            .chunks_mut(size)
            .zip(self.normals[..n].chunks_mut(size))
            .map(|(positions, normals)| Split { positions, normals })
            .collect()
    }
}

impl Chunked for &mut [SkinnedVertex] {
    fn pieces(self, n: usize, size: usize) -> Vec<Self> {
        let n = n.min(self.len());
        self[..n].chunks_mut(size).collect()
    }
}
