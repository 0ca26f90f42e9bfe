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

/// From how many bytes of output (24 a vertex: a position and a normal) the AVX-512 compact
/// and prepared kernels write with non-temporal stores, which send whole cache lines to
/// memory without reading them first and without filling the caches. An output this large
/// does not stay in the cache anyway, and without them every line written is read from memory
/// first. Only separate position and normal slices that start on 64-byte boundaries are
/// streamed (a block's 16 positions are then three whole lines), and of the prepared kernel's
/// blocks only those whose 16 vertices are consecutive in the output; other outputs are
/// written as below the threshold.
pub const STREAM_MIN_BYTES: usize = 16 << 20;

/// Bytes the kernels write per vertex: a position and a normal.
const OUTPUT_BYTES: usize = 24;

/// Whether the output of a mesh of `vertices` is streamed (see [`STREAM_MIN_BYTES`]).
pub(crate) fn streams(vertices: usize) -> bool {
    vertices.saturating_mul(OUTPUT_BYTES) >= STREAM_MIN_BYTES
}

/// 16 consecutive positions and normals of a destination, lent to a kernel.
pub(crate) type BlockMut<'a> = (&'a mut [[f32; 3]; 16], &'a mut [[f32; 3]; 16]);

/// A destination indexed by vertex. `put` ignores an index past the end (callers check the
/// length first, so that never happens; the check keeps the kernels total).
pub(crate) trait Sink {
    /// Vertices the destination holds.
    fn len(&self) -> usize;
    /// Writes vertex `i`.
    fn put(&mut self, i: usize, position: [f32; 3], normal: [f32; 3]);
    /// Writes vertices `at .. at + positions.len()` (ignored if that runs past the end).
    fn put_run(&mut self, at: usize, positions: &[[f32; 3]], normals: &[[f32; 3]]);
    /// The 16 positions and normals from `at` on, for a kernel to store its results in place
    /// (`None` where the destination cannot lend them: interleaved, remapped, or short).
    #[inline]
    fn block_mut(&mut self, at: usize) -> Option<BlockMut<'_>> {
        let _ = at;
        None
    }
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

    #[inline]
    fn block_mut(&mut self, at: usize) -> Option<BlockMut<'_>> {
        let p = self.positions.get_mut(at..at.checked_add(16)?)?;
        let n = self.normals.get_mut(at..at + 16)?;
        Some((p.try_into().ok()?, n.try_into().ok()?))
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

    /// The first `n` vertices as one piece (what [`pieces`](Chunked::pieces) gives for
    /// `size ≥ n`, without the vector).
    fn first(self, n: usize) -> Self;
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

    fn first(self, n: usize) -> Self {
        let n = n.min(self.positions.len()).min(self.normals.len());
        Split {
            positions: &mut self.positions[..n],
            normals: &mut self.normals[..n],
        }
    }
}

impl Chunked for &mut [SkinnedVertex] {
    fn pieces(self, n: usize, size: usize) -> Vec<Self> {
        let n = n.min(self.len());
        self[..n].chunks_mut(size).collect()
    }

    fn first(self, n: usize) -> Self {
        let n = n.min(self.len());
        &mut self[..n]
    }
}

/// A destination seen through an index map: vertex `i` goes to `map[i]` of `sink` (for a
/// subset of a mesh skinned on its own).
pub(crate) struct Remap<'s, S> {
    pub sink: &'s mut S,
    pub map: &'s [u32],
}

impl<S: Sink> Sink for Remap<'_, S> {
    fn len(&self) -> usize {
        self.map.len()
    }

    #[inline]
    fn put(&mut self, i: usize, position: [f32; 3], normal: [f32; 3]) {
        if let Some(&to) = self.map.get(i) {
            self.sink.put(to as usize, position, normal);
        }
    }

    fn put_run(&mut self, at: usize, positions: &[[f32; 3]], normals: &[[f32; 3]]) {
        for (i, (&p, &n)) in positions.iter().zip(normals).enumerate() {
            self.put(at + i, p, n);
        }
    }
}

/// The `len` vertices of `sink` from `base` on, indexed from 0: one chunk's share of a whole
/// destination, without splitting it into a vector of pieces (the single-thread path, which
/// allocates nothing).
pub(crate) struct Offset<'s, S> {
    pub sink: &'s mut S,
    pub base: usize,
    pub len: usize,
}

impl<S: Sink> Sink for Offset<'_, S> {
    #[inline]
    fn len(&self) -> usize {
        self.len
    }

    #[inline(always)]
    fn put(&mut self, i: usize, position: [f32; 3], normal: [f32; 3]) {
        if i < self.len {
            self.sink.put(self.base + i, position, normal);
        }
    }

    #[inline]
    fn put_run(&mut self, at: usize, positions: &[[f32; 3]], normals: &[[f32; 3]]) {
        if at + positions.len().min(normals.len()) <= self.len {
            self.sink.put_run(self.base + at, positions, normals);
        }
    }

    #[inline]
    fn block_mut(&mut self, at: usize) -> Option<BlockMut<'_>> {
        if at.checked_add(16)? <= self.len {
            self.sink.block_mut(self.base + at)
        } else {
            None
        }
    }
}

/// Consecutive pieces of `size` vertices (from [`Chunked::pieces`]) seen as one destination
/// again.
pub(crate) struct Pieces<'p, S> {
    pub pieces: &'p mut [S],
    pub size: usize,
}

impl<S: Sink> Sink for Pieces<'_, S> {
    fn len(&self) -> usize {
        self.pieces.iter().map(Sink::len).sum()
    }

    #[inline]
    fn put(&mut self, i: usize, position: [f32; 3], normal: [f32; 3]) {
        if let Some(piece) = self.pieces.get_mut(i / self.size.max(1)) {
            piece.put(i % self.size.max(1), position, normal);
        }
    }

    fn put_run(&mut self, at: usize, positions: &[[f32; 3]], normals: &[[f32; 3]]) {
        for (i, (&p, &n)) in positions.iter().zip(normals).enumerate() {
            self.put(at + i, p, n);
        }
    }
}
