//! The prepared kernel: vertices regrouped once into SIMD-friendly blocks, then skinned every
//! frame at full vector width.

use rayon::prelude::*;

use super::SimdLevel;
use super::SkinError;
use super::blocks::{BlockDest, BlockOut, LANES, Run, SLOT};
use super::fork::{for_each_piece, piece_units, split};
use super::matrices::SkinMatrices;
use super::output::{BlockMut, Chunked, Offset, Remap, Sink, SkinnedVertex, Split, streams};
use super::scalar::check;
use crate::pose::SkeletalMesh;

#[cfg(target_arch = "x86_64")]
mod x86;

/// Vertices per chunk: chunks are prepared and skinned independently, and are the unit of
/// parallel work (of the compact kernel's too).
pub const CHUNK_VERTICES: usize = 4_096;

/// Where the prepared kernel writes each vertex.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum VertexOrder {
    /// Vertex `i` of the file lands at index `i` (a scattered write per vertex).
    #[default]
    Original,
    /// Vertices land in the order the mesh was laid out in when it was prepared or compacted
    /// (contiguous writes); draw them with the index buffer from
    /// [`PreparedMesh::remap_triangles`] or
    /// [`CompactMesh::remap_triangles`](crate::skin::CompactMesh::remap_triangles).
    Prepared,
}

/// A mesh regrouped for the prepared kernel: per chunk of [`CHUNK_VERTICES`] vertices, one
/// bucket per influence count, holding blocks of 16 vertices as structure-of-arrays rows
/// (`ox oy oz w nx ny nz` and the bone index of influence `j`, for each `j`).
///
/// Bucketing by count means every lane of a block does the same work, with no branch on a
/// vertex's influence count. Building it is the explicit, allocating copy (about 30 bytes per
/// influence); skinning from it allocates nothing.
///
/// ```
/// use skelmap_core::Parse;
/// use skelmap_core::pose::{self, Interpolation, LocalPose, Palette};
/// use skelmap_core::skin::{self, PreparedMesh, SimdLevel, SkinMatrices, VertexOrder};
/// use skelmap_core::{SkeletalMesh, dpm::Dpm, synth};
///
/// let bytes = synth::tube(&synth::TubeParams::default()).write()?;
/// let model = Dpm::parse(&bytes)?;
/// let mesh = model.mesh(0).expect("one mesh");
/// let prepared = PreparedMesh::new(&mesh); // once
/// let (mut pose, mut palette) = (LocalPose::default(), Palette::default());
/// pose::sample(&model, 3, 4, 0.5, Interpolation::Nlerp, &mut pose); // every frame
/// palette.build(&model, &pose);
/// let matrices = SkinMatrices::from_palette(&palette);
/// let n = prepared.num_vertices();
/// let (mut p, mut q) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
/// prepared.skin(&matrices, SimdLevel::detect(), VertexOrder::Original, &mut p, &mut q)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct PreparedMesh {
    num_vertices: usize,
    /// One past the largest bone index used.
    bone_limit: u32,
    chunks: Vec<Chunk>,
}

#[derive(Debug, Clone)]
struct Chunk {
    /// Index of the chunk's first vertex (in both orders).
    first: usize,
    buckets: Vec<Bucket>,
}

#[derive(Debug, Clone)]
struct Bucket {
    /// Influences per vertex.
    k: usize,
    /// Vertices in the bucket (the last block may be partly padding).
    count: usize,
    /// Prepared position, within the chunk, of the bucket's first vertex.
    base: usize,
    /// `blocks · k` slots of [`SLOT`] floats.
    data: Vec<f32>,
    /// `blocks · k` rows of [`LANES`] bone indices (padding lanes use bone 0 with zero weight).
    bones: Vec<u32>,
    /// Per lane, the vertex's index within the chunk.
    index: Vec<u32>,
}

impl Bucket {
    fn blocks(&self) -> usize {
        self.count.div_ceil(LANES)
    }
}

impl PreparedMesh {
    /// Regroups `mesh` (one pass over its records; allocates about the size of the records).
    #[must_use]
    pub fn new<'data, M: SkeletalMesh<'data>>(mesh: &M) -> PreparedMesh {
        let n = mesh.num_vertices();
        let mut vertices = mesh.vertices();
        let mut chunks = Vec::with_capacity(n.div_ceil(CHUNK_VERTICES));
        let mut records = Vec::with_capacity(n.min(CHUNK_VERTICES));
        let mut bone_limit = 0u32;
        let mut first = 0;
        loop {
            records.clear();
            records.extend(vertices.by_ref().take(CHUNK_VERTICES));
            if records.is_empty() {
                break;
            }
            let max_k = records.iter().map(|r| r.len()).max().unwrap_or(0);
            let mut per_k = vec![0usize; max_k + 1];
            for r in &records {
                per_k[r.len()] += 1;
            }
            let mut buckets = Vec::new();
            let mut base = 0;
            for (k, &count) in per_k.iter().enumerate().skip(1) {
                if count == 0 {
                    continue;
                }
                let blocks = count.div_ceil(LANES);
                let mut bucket = Bucket {
                    k,
                    count,
                    base,
                    data: vec![0.0; blocks * k * SLOT],
                    bones: vec![0; blocks * k * LANES],
                    index: vec![u32::MAX; blocks * LANES],
                };
                let members = records.iter().enumerate().filter(|(_, r)| r.len() == k);
                for (pos, (i, influences)) in members.enumerate() {
                    let (b, lane) = (pos / LANES, pos % LANES);
                    bucket.index[b * LANES + lane] = i as u32;
                    for (j, r) in influences.iter().enumerate() {
                        let slot = b * k + j;
                        let [ox, oy, oz] = r.origin();
                        let [nx, ny, nz] = r.normal();
                        let values = [ox, oy, oz, r.influence(), nx, ny, nz];
                        for (row, v) in values.into_iter().enumerate() {
                            bucket.data[slot * SLOT + row * LANES + lane] = v;
                        }
                        bucket.bones[slot * LANES + lane] = r.bonenum();
                        bone_limit = bone_limit.max(r.bonenum().saturating_add(1));
                    }
                }
                base += count;
                buckets.push(bucket);
            }
            chunks.push(Chunk { first, buckets });
            first += records.len();
        }
        PreparedMesh {
            num_vertices: first,
            bone_limit,
            chunks,
        }
    }

    /// Number of vertices.
    #[must_use]
    pub fn num_vertices(&self) -> usize {
        self.num_vertices
    }

    /// Bytes the kernel reads per skinning (the blocks, padding included).
    #[must_use]
    pub fn bytes(&self) -> usize {
        self.buckets()
            .map(|b| 4 * (b.data.len() + b.bones.len() + b.index.len()))
            .sum()
    }

    fn buckets(&self) -> impl Iterator<Item = &Bucket> {
        self.chunks.iter().flat_map(|c| c.buckets.iter())
    }

    /// For each prepared position, the original index of the vertex written there with
    /// [`VertexOrder::Prepared`].
    #[must_use]
    pub fn prepared_order(&self) -> Vec<u32> {
        let mut order = vec![0u32; self.num_vertices];
        for chunk in &self.chunks {
            for bucket in &chunk.buckets {
                for (pos, &i) in bucket.index.iter().take(bucket.count).enumerate() {
                    if let Some(slot) = order.get_mut(chunk.first + bucket.base + pos) {
                        *slot = chunk.first as u32 + i;
                    }
                }
            }
        }
        order
    }

    /// `triangles` (original vertex indices) rewritten to index vertices skinned in
    /// [`VertexOrder::Prepared`]. An index out of range is kept as it is.
    #[must_use]
    pub fn remap_triangles(&self, triangles: impl Iterator<Item = [u32; 3]>) -> Vec<[u32; 3]> {
        remap_through(&self.prepared_order(), triangles)
    }

    /// Skins every vertex with `matrices` into `positions` and `normals` in `order`, at
    /// `level` (a level the CPU lacks falls back to the best it has: the prepared kernel on
    /// AVX-512F with 16 lanes a block, on AVX2 + FMA in two halves of 8, or in plain Rust), on
    /// the calling thread.
    ///
    /// # Errors
    ///
    /// [`SkinError`] when the palette lacks a bone the mesh uses or an output is short.
    pub fn skin(
        &self,
        matrices: &SkinMatrices,
        level: SimdLevel,
        order: VertexOrder,
        positions: &mut [[f32; 3]],
        normals: &mut [[f32; 3]],
    ) -> Result<(), SkinError> {
        let sink = Split { positions, normals };
        self.skin_into(matrices, level, order, sink, false)
    }

    /// [`skin`](Self::skin) split over the current rayon thread pool when the mesh is large
    /// enough to gain from it: a thread per
    /// [`PARALLEL_MIN_VERTICES`](super::PARALLEL_MIN_VERTICES) at most (below
    /// [`STREAM_MIN_BYTES`](super::STREAM_MIN_BYTES) of output the calling thread takes
    /// part, the threads claiming one chunk at a time, and then waits for the others
    /// spinning briefly rather than blocking; above it, one contiguous run of chunks per
    /// pool thread); a smaller mesh runs on the calling thread alone, so a second thread
    /// never makes it slower.
    ///
    /// # Errors
    ///
    /// As [`skin`](Self::skin).
    pub fn skin_par(
        &self,
        matrices: &SkinMatrices,
        level: SimdLevel,
        order: VertexOrder,
        positions: &mut [[f32; 3]],
        normals: &mut [[f32; 3]],
    ) -> Result<(), SkinError> {
        let sink = Split { positions, normals };
        self.skin_into(matrices, level, order, sink, true)
    }

    /// [`skin`](Self::skin) into interleaved [`SkinnedVertex`]es.
    ///
    /// # Errors
    ///
    /// As [`skin`](Self::skin).
    pub fn skin_vertices(
        &self,
        matrices: &SkinMatrices,
        level: SimdLevel,
        order: VertexOrder,
        out: &mut [SkinnedVertex],
    ) -> Result<(), SkinError> {
        self.skin_into(matrices, level, order, out, false)
    }

    /// [`skin_vertices`](Self::skin_vertices) split over the current rayon pool as
    /// [`skin_par`](Self::skin_par) splits.
    ///
    /// # Errors
    ///
    /// As [`skin`](Self::skin).
    pub fn skin_vertices_par(
        &self,
        matrices: &SkinMatrices,
        level: SimdLevel,
        order: VertexOrder,
        out: &mut [SkinnedVertex],
    ) -> Result<(), SkinError> {
        self.skin_into(matrices, level, order, out, true)
    }

    fn skin_into<S: Chunked>(
        &self,
        matrices: &SkinMatrices,
        level: SimdLevel,
        order: VertexOrder,
        sink: S,
        parallel: bool,
    ) -> Result<(), SkinError> {
        check(
            self.num_vertices,
            sink.len(),
            self.bone_limit,
            matrices.bones(),
        )?;
        let level = level.or_supported();
        let stream = streams(self.num_vertices);
        let tasks = if parallel {
            split(self.num_vertices)
        } else {
            1
        };
        if tasks > 1 {
            let mut pieces = sink.pieces(self.num_vertices, CHUNK_VERTICES);
            let per = piece_units(self.chunks.len(), 1, tasks, stream);
            let mut runs: Vec<_> = pieces
                .chunks_mut(per)
                .zip(self.chunks.chunks(per))
                .collect();
            for_each_piece(&mut runs, tasks, stream, |_, (pieces, chunks)| {
                for (piece, chunk) in pieces.iter_mut().zip(*chunks) {
                    skin_chunk(chunk, matrices, level, order, stream, piece);
                }
            });
        } else {
            // One thread: each chunk writes its share of the whole destination, with no
            // vector of pieces (so a frame allocates nothing).
            let mut whole = sink.first(self.num_vertices);
            for chunk in &self.chunks {
                let len = self
                    .num_vertices
                    .saturating_sub(chunk.first)
                    .min(CHUNK_VERTICES);
                let mut piece = Offset {
                    sink: &mut whole,
                    base: chunk.first,
                    len,
                };
                skin_chunk(chunk, matrices, level, order, stream, &mut piece);
            }
        }
        Ok(())
    }
}

impl PreparedMesh {
    /// Skins vertex `i` into vertex `map[i]` of `sink` (for a subset of a mesh kept on this
    /// exact path), on the calling thread.
    pub(crate) fn skin_remapped(
        &self,
        matrices: &SkinMatrices,
        level: SimdLevel,
        map: &[u32],
        sink: &mut impl Sink,
    ) -> Result<(), SkinError> {
        check(0, 0, self.bone_limit, matrices.bones())?;
        let level = level.or_supported();
        for chunk in &self.chunks {
            let map = map.get(chunk.first..).unwrap_or_default();
            let mut remap = Remap { sink, map };
            skin_chunk(
                chunk,
                matrices,
                level,
                VertexOrder::Original,
                false,
                &mut remap,
            );
        }
        Ok(())
    }
}

/// `triangles` (original vertex indices) rewritten to index vertices laid out in `order` (for
/// each position, the original index of the vertex there). An index out of range is kept as
/// it is.
pub(crate) fn remap_through(
    order: &[u32],
    triangles: impl Iterator<Item = [u32; 3]>,
) -> Vec<[u32; 3]> {
    let mut to_position = vec![0u32; order.len()];
    for (position, &original) in order.iter().enumerate() {
        if let Some(slot) = to_position.get_mut(original as usize) {
            *slot = position as u32;
        }
    }
    triangles
        .map(|t| t.map(|i| to_position.get(i as usize).copied().unwrap_or(i)))
        .collect()
}

/// Skins one chunk into `sink`, indexed from the chunk's first vertex.
fn skin_chunk(
    chunk: &Chunk,
    matrices: &SkinMatrices,
    level: SimdLevel,
    order: VertexOrder,
    stream: bool,
    sink: &mut impl Sink,
) {
    let (soa, padded) = matrices.soa();
    for bucket in &chunk.buckets {
        let run = Run {
            k: bucket.k,
            blocks: bucket.blocks(),
            data: &bucket.data,
            bones: &bucket.bones,
            soa,
            padded,
            stream,
        };
        let mut dest = ChunkDest {
            bucket,
            order,
            sink: &mut *sink,
        };
        #[cfg(target_arch = "x86_64")]
        if level >= SimdLevel::Avx2 && x86::try_prepared(level == SimdLevel::Avx512, run, &mut dest)
        {
            continue;
        }
        let _ = level;
        blocks_portable(run, &mut dest);
    }
}

/// One bucket's destination in a sink, in `order`.
struct ChunkDest<'a, S> {
    bucket: &'a Bucket,
    order: VertexOrder,
    sink: &'a mut S,
}

impl<'a, S: Sink> ChunkDest<'a, S> {
    /// Where the lanes of block `b` that are vertices go: the first's index, if they are
    /// consecutive there, and their indices; and how many there are.
    #[inline]
    fn place(&self, b: usize) -> (Option<usize>, &'a [u32], usize) {
        let bucket: &'a Bucket = self.bucket;
        let lanes = bucket.count.saturating_sub(b * LANES).min(LANES);
        match self.order {
            VertexOrder::Prepared => (Some(bucket.base + b * LANES), &[], lanes),
            VertexOrder::Original => {
                let index = bucket
                    .index
                    .get(b * LANES..b * LANES + lanes)
                    .unwrap_or_default();
                // Indices ascend within a bucket: a block of consecutive vertices (common:
                // neighbours tend to share an influence count) is one contiguous run.
                let first = match (index.first(), index.last()) {
                    (Some(&first), Some(&last))
                        if last.wrapping_sub(first) as usize + 1 == lanes =>
                    {
                        Some(first as usize)
                    }
                    _ => None,
                };
                (first, index, lanes)
            }
        }
    }
}

impl<S: Sink> BlockDest for ChunkDest<'_, S> {
    #[inline]
    fn lend(&mut self, b: usize) -> Option<BlockMut<'_>> {
        match self.place(b) {
            (Some(first), _, LANES) => self.sink.block_mut(first),
            _ => None,
        }
    }

    #[inline]
    fn emit(&mut self, b: usize, out: &BlockOut) {
        let (first, index, lanes) = self.place(b);
        let (positions, normals) = (&out.positions[..lanes], &out.normals[..lanes]);
        match first {
            Some(first) => self.sink.put_run(first, positions, normals),
            None => {
                for ((&i, &p), &n) in index.iter().zip(positions).zip(normals) {
                    self.sink.put(i as usize, p, n);
                }
            }
        }
    }
}

/// The prepared kernel in plain Rust, lane by lane.
fn blocks_portable(run: Run<'_>, dest: &mut impl BlockDest) {
    let (soa, padded) = (run.soa, run.padded);
    let entry = |e: usize, bone: usize| soa.get(e * padded + bone).copied().unwrap_or(0.0);
    for b in 0..run.blocks {
        let mut rows = [[0.0f32; LANES]; 6];
        for slot in b * run.k..(b + 1) * run.k {
            let (Some(d), Some(bones)) = (
                run.data.get(slot * SLOT..(slot + 1) * SLOT),
                run.bones.get(slot * LANES..(slot + 1) * LANES),
            ) else {
                return;
            };
            for (lane, &bone) in bones.iter().enumerate() {
                let v = |row: usize| d[row * LANES + lane];
                let bone = bone as usize;
                for r in 0..3 {
                    let m = |c: usize| entry(r * 4 + c, bone);
                    rows[r][lane] += m(0) * v(0) + m(1) * v(1) + m(2) * v(2) + m(3) * v(3);
                    rows[3 + r][lane] += m(0) * v(4) + m(1) * v(5) + m(2) * v(6);
                }
            }
        }
        dest.emit(b, &BlockOut::from_rows(&rows));
    }
}

/// One instance (a character) of a [`batch`]: its mesh, this frame's matrices and its
/// outputs.
#[derive(Debug)]
pub struct SkinJob<'a> {
    /// The prepared mesh (instances may share one).
    pub mesh: &'a PreparedMesh,
    /// The instance's matrices for this frame.
    pub matrices: &'a SkinMatrices,
    /// Where its positions go.
    pub positions: &'a mut [[f32; 3]],
    /// Where its normals go.
    pub normals: &'a mut [[f32; 3]],
}

/// Skins many instances across the current rayon thread pool, one instance per task (each
/// instance's chunks run on its task's thread, so small meshes pay no per-mesh fork-join).
///
/// ```
/// use skelmap_core::Parse;
/// use skelmap_core::pose::{self, Palette};
/// use skelmap_core::skin::{self, PreparedMesh, SimdLevel, SkinJob, SkinMatrices, VertexOrder};
/// use skelmap_core::{dpm::Dpm, synth};
///
/// let bytes = synth::tube(&synth::TubeParams::default()).write()?;
/// let model = Dpm::parse(&bytes)?;
/// let prepared = PreparedMesh::new(&model.mesh(0).expect("one mesh"));
/// let matrices = SkinMatrices::from_palette(&Palette { world: vec![Default::default(); 4] });
/// let n = prepared.num_vertices();
/// let mut outputs = vec![(vec![[0.0; 3]; n], vec![[0.0; 3]; n]); 8]; // eight characters
/// let mut jobs: Vec<SkinJob> = outputs
///     .iter_mut()
///     .map(|(positions, normals)| SkinJob { mesh: &prepared, matrices: &matrices, positions, normals })
///     .collect();
/// skin::batch(&mut jobs, SimdLevel::detect(), VertexOrder::Original)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
///
/// The first [`SkinError`] of any instance (the other instances are still skinned).
pub fn batch(
    jobs: &mut [SkinJob<'_>],
    level: SimdLevel,
    order: VertexOrder,
) -> Result<(), SkinError> {
    jobs.par_iter_mut()
        .map(|job| {
            job.mesh
                .skin(job.matrices, level, order, job.positions, job.normals)
        })
        .collect::<Vec<_>>()
        .into_iter()
        .collect()
}
