//! The compact kernel: each vertex's influences folded once into one bind-space vertex, as GPU
//! skinning and ozz-animation store it, then skinned every frame from about a quarter of the
//! bytes the exact prepared layout reads.
//!
//! Pre-weighted formats (DPM, SKM) store a vertex as one offset per influence, each in its own
//! bone's space. Under a reference pose `B` (the bind pose: frame 0 of a DPM or SKM, the rest
//! pose of an MS3D) each record `(bone b, origin o, weight w)` names the point `B_b · o / w`.
//! Where every influence of a vertex names the same point `P`, the vertex skins as
//! `Σ w · (M_b · B_b⁻¹) · P`, exactly what the records give: one position, one normal and the
//! `(bone, weight)` pairs replace the records. [`CompactMesh::new`] measures how far each
//! vertex's influences disagree and keeps the ones beyond [`FOLD_TOLERANCE`] on the exact
//! per-influence path ([`CompactMesh::exact_vertices`] counts them).

use glam::{Affine3A, Vec3A};

use super::SimdLevel;
use super::SkinError;
use super::blocks::{BlockOut, LANES};
use super::dqs::{Blend, DualQuat, DualQuatPalette, dqs_vertex};
use super::fork::{for_each_piece, piece_units, split};
use super::matrices::{PAIRED, SkinMatrices};
use super::output::{Chunked, Pieces, Sink, SkinnedVertex, Split, streams};
use super::prepared::{CHUNK_VERTICES, PreparedMesh, VertexOrder, remap_through};
use super::records::RecordsMesh;
use super::scalar::check;
use crate::pose::{Palette, SkeletalMesh};

mod fold;
#[cfg(target_arch = "x86_64")]
mod x86;

/// How far (relative to the mesh's size, the diagonal of its reference-pose bounds) the
/// influences of a vertex may disagree, weighted, and the vertex still fold: the weighted sum
/// over its influences of `|B_b · o / w − P|`. Together with the quantisation below, a folded
/// vertex lands within 5·10⁻⁵ of the model's size of where its records put it.
pub const FOLD_TOLERANCE: f32 = 2e-5;

/// How far the influences' normals may disagree (weighted sum of the distances between the
/// unit directions) and the vertex still fold.
pub const NORMAL_TOLERANCE: f32 = 1e-3;

/// Weights are stored as `u16` multiples of `1 / WEIGHT_ONE` (so up to just over 2: the
/// weights of some real files sum to slightly more than 1). 32 640 is 128 · 255, so the 8-bit
/// weights of IQM and GPU vertex formats (multiples of 1/255) are stored exactly.
pub(crate) const WEIGHT_ONE: f32 = 32640.0;

/// A normal component of 1, stored as an `i16`.
pub(crate) const NORMAL_ONE: f32 = 32767.0;

/// A mesh folded into one bind-space vertex per vertex, in blocks of 16 vertices: 16
/// consecutive ones (file order, so outputs are written contiguously), or, for a mesh whose
/// neighbouring vertices bind different bones (a character in an exporter's vertex-cache
/// order), vertices grouped by the bones they bind within runs of [`CHUNK_VERTICES`], each
/// run skinned into a scratch and copied out in file order (or left in the blocks' order,
/// [`VertexOrder::Prepared`]); the layout chosen is the one with fewer bone look-ups,
/// counting what the copy costs ([`CompactMesh::rows`] tells how it went):
///
/// - the position as three `u16` steps of the mesh's bounds (at most 1/131 070 of the bounds'
///   extent off per axis);
/// - the unit normal as three `i16` fractions of 32 767 (each within 1.6·10⁻⁵; three
///   components decode in three instructions, where two octahedral ones cost about thirty);
/// - per influence, the bone as a `u8` (palettes of up to 256 bones) or `u16`, and the weight
///   as a `u16` of 1/32 640 (= 1/(128 · 255): 8-bit weights exactly); each vertex's quantised
///   weights keep the sum of its stored ones
///   (real files' sums range from 0.998 to 1.002, and renormalising them would move vertices
///   by up to 8·10⁻⁴ of the model's size).
///
/// About 21 bytes per vertex at three influences, against 82 for [`PreparedMesh`]; vertices
/// whose influences do not fold are kept as records in a small [`PreparedMesh`] of their own
/// and skinned exactly after the blocks.
///
/// **Which to choose.** [`PreparedMesh`] reproduces the file's records to the last bit of
/// float arithmetic and needs no reference pose; choose it for tools, exporters and
/// comparisons. `CompactMesh` reads about a quarter of the bytes, so it runs up to several times
/// faster once meshes leave the cache and it shares the memory bus with other threads (the
/// `compact` and `prepared` rows of `benches/skin.rs`, `skin-synthetic_4m` most of all);
/// choose it for a game runtime. Its matrices are `world · reference⁻¹`
/// ([`CompactMesh::matrices`]), its positions are within 5·10⁻⁵ of the model's size of the
/// exact ones, and its normals are the blended unit normal.
///
/// ```
/// use skelmap_core::Parse;
/// use skelmap_core::pose::{self, Interpolation, LocalPose, Palette};
/// use skelmap_core::skin::{CompactMesh, SimdLevel, SkinMatrices, VertexOrder};
/// use skelmap_core::{SkeletalMesh, dpm::Dpm, synth};
///
/// let bytes = synth::tube(&synth::TubeParams::default()).write()?;
/// let model = Dpm::parse(&bytes)?;
/// let mesh = model.mesh(0).expect("one mesh");
/// let (mut pose, mut reference, mut palette) =
///     (LocalPose::default(), Palette::default(), Palette::default());
/// pose::sample(&model, 0, 0, 0.0, Interpolation::Nlerp, &mut pose);
/// reference.build(&model, &pose); // DPM meshes are stored relative to frame 0
/// let compact = CompactMesh::new(&mesh, &reference.world)?; // once
/// assert_eq!(compact.exact_vertices(), 0); // every vertex of the tube folds
///
/// pose::sample(&model, 3, 4, 0.5, Interpolation::Nlerp, &mut pose); // every frame
/// palette.build(&model, &pose);
/// let mut matrices = SkinMatrices::default();
/// compact.matrices(&palette, &mut matrices);
/// let n = compact.num_vertices();
/// let (mut p, mut q) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
/// compact.skin(&matrices, SimdLevel::detect(), VertexOrder::Original, &mut p, &mut q)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct CompactMesh {
    num_vertices: usize,
    /// One past the largest bone index used.
    bone_limit: u32,
    /// Per bone of the reference pose, the inverse of its reference transform.
    inverse_reference: Vec<Affine3A>,
    /// Position of step 0, and the size of one step, per axis.
    origin: [f32; 3],
    step: [f32; 3],
    /// Whether the mesh has normals (a mesh whose every normal is zero, like MS3D's records,
    /// skips them and writes zeros).
    normals: bool,
    /// Whether bones are stored as `u16` (else `u8`).
    wide: bool,
    blocks: Vec<Block>,
    /// Per block, 48 position steps: rows `x`, `y`, `z` of 16 lanes.
    position: Vec<u16>,
    /// Per block, 48 normal fractions: rows `x`, `y`, `z` of 16 lanes.
    normal: Vec<i16>,
    /// Per slot (influence `j` of a block), 16 bone indices, one or two bytes each.
    bones: Vec<u8>,
    /// Per slot, 16 weights in units of 1 / [`WEIGHT_ONE`].
    weights: Vec<u16>,
    /// Vertices that do not fold, as records in reference space.
    exact: PreparedMesh,
    /// Original index of each vertex of `exact`.
    exact_index: Vec<u32>,
    /// Where each vertex of `exact` is in the blocks' order, when that is not file order
    /// (else empty: `exact_index` says it).
    exact_lane: Vec<u32>,
    /// `exact`'s records (little-endian, in reference space), for the dual-quaternion blend.
    exact_records: Vec<u8>,
    /// Per lane of the blocks, the vertex it is (empty: lane `i` is vertex `i`). Vertices
    /// move only within runs of [`CHUNK_VERTICES`], so a piece of whole runs writes only
    /// its own part of the output.
    order: Vec<u32>,
    /// Per vertex, its lane within its run of [`CHUNK_VERTICES`] lanes (the inverse of
    /// `order`, empty with it): file order is written by reading the run's results through
    /// it.
    place: Vec<u16>,
}

/// Where a block's influence rows start, how many it has, and which of its first 32 rows are
/// stored as a few bones with lane masks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Block {
    pub slot: u32,
    pub k: u32,
    /// Bit `j`: row `j` names at most [`FEW`] distinct bones, and its bone bytes hold them as
    /// a [`FewBones`] record instead of one bone per lane, so a kernel broadcasts each bone's
    /// matrix to the lanes of its mask instead of looking bones up lane by lane.
    pub few: u32,
}

/// Most distinct bones of a row stored as a [`FewBones`] record.
pub(crate) const FEW: usize = 4;

/// A row's distinct bones and, per bone, the lanes that name it (16 bytes: `FEW` little-endian
/// `u16` bones, then their `u16` lane masks; unused entries have an empty mask and come last).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct FewBones {
    pub bones: [u16; FEW],
    pub masks: [u16; FEW],
}

impl FewBones {
    /// Bytes of the record.
    pub const SIZE: usize = 4 * FEW;

    /// Reads the record from the start of `row` (at least [`Self::SIZE`] bytes).
    #[inline]
    pub(crate) fn read(row: &[u8]) -> Option<FewBones> {
        let bytes: &[u8; Self::SIZE] = row.get(..Self::SIZE)?.try_into().ok()?;
        let word = |i: usize| u16::from_le_bytes([bytes[2 * i], bytes[2 * i + 1]]);
        Some(FewBones {
            bones: core::array::from_fn(word),
            masks: core::array::from_fn(|i| word(FEW + i)),
        })
    }

    /// The bone lane `lane` names (0 if none).
    #[inline]
    pub(crate) fn bone(&self, lane: usize) -> u16 {
        self.masks
            .iter()
            .position(|m| m >> lane & 1 == 1)
            .map_or(0, |i| self.bones[i])
    }
}

impl CompactMesh {
    /// Number of vertices.
    #[must_use]
    pub fn num_vertices(&self) -> usize {
        self.num_vertices
    }

    /// How many vertices did not fold and are skinned exactly from their records.
    #[must_use]
    pub fn exact_vertices(&self) -> usize {
        self.exact_index.len()
    }

    /// Influence rows (16 lanes each) in all, and how many of them name only a few bones
    /// (the kernel broadcasts those bones' matrices to their lanes instead of looking bones up
    /// lane by lane; meshes whose neighbouring vertices share bones have many).
    #[must_use]
    pub fn rows(&self) -> (usize, usize) {
        let all = self.blocks.iter().map(|b| b.k as usize).sum();
        let few = self
            .blocks
            .iter()
            .map(|b| b.few.count_ones() as usize)
            .sum();
        (all, few)
    }

    /// Whether the mesh has normals (a mesh whose every normal is zero writes zero normals and
    /// skips their arithmetic).
    #[must_use]
    pub fn has_normals(&self) -> bool {
        self.normals
    }

    /// Bytes the kernel reads per skinning: the blocks (padding included) and the exact path's
    /// records.
    #[must_use]
    pub fn bytes(&self) -> usize {
        2 * (self.position.len() + self.normal.len() + self.weights.len())
            + self.bones.len()
            + size_of::<Block>() * self.blocks.len()
            + self.exact.bytes()
            + 4 * (self.exact_index.len() + self.exact_lane.len() + self.order.len())
            + 2 * self.place.len()
    }

    /// This frame's skinning matrices, `world · reference⁻¹` per bone, into `out` (reusing its
    /// allocation). A palette shorter than the bones the mesh uses yields fewer matrices, which
    /// [`skin`](Self::skin) then refuses.
    pub fn matrices(&self, palette: &Palette, out: &mut SkinMatrices) {
        out.update_with(
            palette
                .world
                .iter()
                .zip(&self.inverse_reference)
                .map(|(world, inverse)| *world * *inverse),
        );
    }

    /// For each position [`VertexOrder::Prepared`] writes, the original index of the vertex
    /// written there: file order, or, where the layout grouped vertices by the bones they
    /// bind (see [`CompactMesh`]), that order, vertices moved only within runs of
    /// [`CHUNK_VERTICES`].
    #[must_use]
    pub fn prepared_order(&self) -> Vec<u32> {
        if self.order.is_empty() {
            (0..self.num_vertices as u32).collect()
        } else {
            self.order.clone()
        }
    }

    /// `triangles` (original vertex indices) rewritten to index vertices skinned in
    /// [`VertexOrder::Prepared`]. An index out of range is kept as it is.
    ///
    /// ```
    /// use skelmap_core::model::{Model, Pose};
    /// use skelmap_core::pose::Interpolation;
    /// use skelmap_core::skin::{SimdLevel, SkinMatrices, VertexOrder};
    /// use skelmap_core::synth;
    ///
    /// let bytes = synth::iqm_character(&synth::CharacterParams::default()).model.write()?;
    /// let model = Model::from_bytes(&bytes)?;
    /// let compact = model.compact()?;
    /// let mesh = compact.mesh(0).ok_or("no mesh")?;
    /// // Once, at load: the index buffer for vertices in the mesh's own order.
    /// let triangles = mesh.remap_triangles(model.mesh(0).ok_or("no mesh")?.triangles());
    ///
    /// let (mut pose, mut matrices) = (Pose::default(), SkinMatrices::default());
    /// model.pose(1, 2, 0.5, Interpolation::Nlerp, &mut pose)?; // every frame
    /// compact.matrices(&pose, &mut matrices)?;
    /// let n = mesh.num_vertices();
    /// let (mut p, mut q) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
    /// mesh.skin(&matrices, SimdLevel::detect(), VertexOrder::Prepared, &mut p, &mut q)?;
    /// # let (mut p0, mut q0) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
    /// # mesh.skin(&matrices, SimdLevel::detect(), VertexOrder::Original, &mut p0, &mut q0)?;
    /// # let original = model.mesh(0).ok_or("no mesh")?.triangles().collect::<Vec<_>>();
    /// # for (t, o) in triangles.iter().zip(&original) {
    /// #     assert_eq!(t.map(|i| p[i as usize]), o.map(|i| p0[i as usize]));
    /// # }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn remap_triangles(&self, triangles: impl Iterator<Item = [u32; 3]>) -> Vec<[u32; 3]> {
        remap_through(&self.prepared_order(), triangles)
    }

    /// Skins every vertex with `matrices` (from [`matrices`](Self::matrices)) into `positions`
    /// and `normals` in `order`, at `level` (a level the CPU lacks falls back to the best it
    /// has: the compact kernel on AVX-512F with 16 folded vertices a block, on AVX2 + FMA in two
    /// halves of 8, or in plain Rust; the vertices that did not fold through the prepared
    /// kernel at the same level), on the calling thread.
    ///
    /// [`VertexOrder::Original`] writes vertex `i` of the file at index `i`: where the layout
    /// grouped vertices by their bones, each run of [`CHUNK_VERTICES`] is skinned into a
    /// scratch of this thread's (96 KiB, allocated by the thread's first such call) and copied
    /// out front to back, which on a mesh in an exporter's vertex-cache order costs a fifth
    /// to a third of the blend (the `compact avx512` and `compact avx512 prepared order` lines
    /// of `skelmap bench`). [`VertexOrder::Prepared`] writes the blocks as they are, drawn
    /// with [`remap_triangles`](Self::remap_triangles)' indices: the same values, vertex for
    /// vertex.
    ///
    /// # Errors
    ///
    /// [`SkinError`] when `matrices` lacks a bone the mesh uses or an output is short.
    pub fn skin(
        &self,
        matrices: &SkinMatrices,
        level: SimdLevel,
        order: VertexOrder,
        positions: &mut [[f32; 3]],
        normals: &mut [[f32; 3]],
    ) -> Result<(), SkinError> {
        self.skin_into(
            Palettes::Linear(matrices),
            level,
            order,
            Split { positions, normals },
            false,
        )
    }

    /// [`skin`](Self::skin) split over the current rayon pool when the mesh is large enough
    /// to gain from it (a thread per [`PARALLEL_MIN_VERTICES`](super::PARALLEL_MIN_VERTICES)
    /// at most; below [`STREAM_MIN_BYTES`](super::STREAM_MIN_BYTES) of output the calling
    /// thread takes part, the threads claiming [`CHUNK_VERTICES`](super::CHUNK_VERTICES)
    /// vertices at a time, and then waits for the others spinning briefly rather than
    /// blocking; above it, one contiguous range of blocks per pool thread); a smaller mesh
    /// runs on the calling thread alone.
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
        self.skin_into(
            Palettes::Linear(matrices),
            level,
            order,
            Split { positions, normals },
            true,
        )
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
        self.skin_into(Palettes::Linear(matrices), level, order, out, false)
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
        self.skin_into(Palettes::Linear(matrices), level, order, out, true)
    }

    /// This frame's dual quaternions, `world · reference⁻¹` per bone as in
    /// [`dqs::deltas`](super::dqs::deltas), into `out` for [`skin_dqs`](Self::skin_dqs).
    pub fn dual_quats(&self, palette: &Palette, out: &mut DualQuatPalette) {
        out.update(
            palette
                .world
                .iter()
                .zip(&self.inverse_reference)
                .map(|(world, inverse)| DualQuat::from_affine(&(*world * *inverse))),
        );
    }

    /// Skins every vertex by dual quaternions (see [`dqs`](super::dqs)): each vertex's bones'
    /// `dual_quats` weighted, taken in the hemisphere of its first, normalised and applied to
    /// its reference-pose position and normal; in `order` (as [`skin`](Self::skin)), at
    /// `level` (AVX-512, or the portable kernel below it), on the calling thread
    /// ([`skin_dqs_par`](Self::skin_dqs_par) splits a large mesh over the rayon pool).
    ///
    /// ```
    /// use skelmap_core::Parse;
    /// use skelmap_core::pose::{self, Interpolation, LocalPose, Palette};
    /// use skelmap_core::skin::dqs::DualQuatPalette;
    /// use skelmap_core::skin::{CompactMesh, SimdLevel, VertexOrder};
    /// use skelmap_core::{dpm::Dpm, synth};
    ///
    /// let bytes = synth::tube(&synth::TubeParams::default()).write()?;
    /// let model = Dpm::parse(&bytes)?;
    /// let (mut pose, mut reference, mut palette) =
    ///     (LocalPose::default(), Palette::default(), Palette::default());
    /// pose::sample(&model, 0, 0, 0.0, Interpolation::Nlerp, &mut pose);
    /// reference.build(&model, &pose);
    /// let compact = CompactMesh::new(&model.mesh(0).expect("one mesh"), &reference.world)?;
    /// pose::sample(&model, 2, 3, 0.5, Interpolation::Nlerp, &mut pose);
    /// palette.build(&model, &pose);
    /// let mut dual_quats = DualQuatPalette::default();
    /// compact.dual_quats(&palette, &mut dual_quats);
    /// let n = compact.num_vertices();
    /// let (mut p, mut q) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
    /// compact.skin_dqs(&dual_quats, SimdLevel::detect(), VertexOrder::Original, &mut p, &mut q)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`SkinError`] when `dual_quats` lacks a bone the mesh uses or an output is short.
    pub fn skin_dqs(
        &self,
        dual_quats: &DualQuatPalette,
        level: SimdLevel,
        order: VertexOrder,
        positions: &mut [[f32; 3]],
        normals: &mut [[f32; 3]],
    ) -> Result<(), SkinError> {
        let sink = Split { positions, normals };
        self.skin_into(Palettes::Dual(dual_quats), level, order, sink, false)
    }

    /// [`skin_dqs`](Self::skin_dqs) split over the current rayon pool as
    /// [`skin_par`](Self::skin_par) splits.
    ///
    /// # Errors
    ///
    /// As [`skin_dqs`](Self::skin_dqs).
    pub fn skin_dqs_par(
        &self,
        dual_quats: &DualQuatPalette,
        level: SimdLevel,
        order: VertexOrder,
        positions: &mut [[f32; 3]],
        normals: &mut [[f32; 3]],
    ) -> Result<(), SkinError> {
        let sink = Split { positions, normals };
        self.skin_into(Palettes::Dual(dual_quats), level, order, sink, true)
    }

    fn skin_into<S: Chunked>(
        &self,
        palette: Palettes<'_>,
        level: SimdLevel,
        order: VertexOrder,
        sink: S,
        parallel: bool,
    ) -> Result<(), SkinError> {
        check(
            self.num_vertices,
            sink.len(),
            self.bone_limit,
            palette.bones(),
        )?;
        let level = level.or_supported();
        let tasks = if parallel {
            split(self.num_vertices)
        } else {
            1
        };
        let streamed = streams(self.num_vertices);
        let per = piece_units(self.blocks.len(), CHUNK_VERTICES / LANES, tasks, streamed);
        // Vertices taken out of file order move within their run of `CHUNK_VERTICES` only:
        // pieces of whole runs each write their own part of the output.
        let per = if self.order.is_empty() {
            per
        } else {
            per.next_multiple_of(CHUNK_VERTICES / LANES)
        };
        // On one thread the whole output is one piece, kept out of a vector: a frame skinned
        // on the calling thread allocates nothing (but for the thread's scratch, made by its
        // first call that writes a grouped layout in file order).
        let (mut many, mut one);
        let pieces: &mut [S] = if tasks > 1 {
            many = sink.pieces(self.num_vertices, per * LANES);
            for_each_piece(&mut many, tasks, streamed, |t, piece| {
                self.skin_blocks(t * per, palette, level, order, piece);
            });
            &mut many
        } else {
            one = [sink.first(self.num_vertices)];
            for (t, piece) in one.iter_mut().enumerate() {
                self.skin_blocks(t * per, palette, level, order, piece);
            }
            &mut one
        };
        if self.exact_index.is_empty() {
            return Ok(());
        }
        let mut whole = Pieces {
            pieces,
            size: per * LANES,
        };
        // Where each vertex of the exact path goes.
        let at = match order {
            VertexOrder::Prepared if !self.exact_lane.is_empty() => &self.exact_lane,
            _ => &self.exact_index,
        };
        match palette {
            Palettes::Linear(matrices) => {
                self.exact.skin_remapped(matrices, level, at, &mut whole)?;
            }
            Palettes::Dual(dual_quats) => {
                let records = RecordsMesh::<zerocopy::LittleEndian>::written(
                    &self.exact_records,
                    self.exact_index.len() as u32,
                );
                for (records, &at) in records.vertices().zip(at) {
                    let (p, n) = dqs_vertex(records, None, dual_quats.deltas())?;
                    whole.put(at as usize, p.to_array(), n.to_array());
                }
            }
        }
        Ok(())
    }

    /// Skins the blocks from `first` on that `sink` holds (indexed from block `first`'s first
    /// vertex), in `order`.
    fn skin_blocks(
        &self,
        first: usize,
        palette: Palettes<'_>,
        level: SimdLevel,
        order: VertexOrder,
        sink: &mut impl Sink,
    ) {
        let count = sink.len().div_ceil(LANES);
        let Some(blocks) = self.blocks.get(first..first + count) else {
            return;
        };
        let ((soa, padded), paired) = match palette {
            Palettes::Linear(matrices) => (matrices.soa(), matrices.paired()),
            Palettes::Dual(dual_quats) => (dual_quats.soa(), &[][..]),
        };
        let run = CompactRun {
            blocks,
            first,
            position: &self.position,
            normal: &self.normal,
            bones: &self.bones,
            weights: &self.weights,
            wide: self.wide,
            normals: self.normals,
            origin: self.origin,
            step: self.step,
            soa,
            padded,
            paired,
            stream: streams(self.num_vertices),
        };
        if !self.order.is_empty() && order == VertexOrder::Original {
            return self.skin_placed(run, palette, level, sink);
        }
        self.skin_run(run, palette, level, sink);
    }

    /// Skins `run` (whole runs of [`CHUNK_VERTICES`] lanes, from block `run.first`) into
    /// `sink` in file order: a run at a time into this thread's scratch in the blocks' order,
    /// then copied out vertex after vertex through `place`. Writing the lanes where they
    /// belong straight from the kernel would scatter stores over the run's output, each a
    /// cache miss when the output is not in the caches; this writes it front to back. The
    /// scratch (a run's positions and normals, 96 KiB) is allocated once per thread;
    /// where it is already borrowed, the lanes are scattered instead.
    fn skin_placed(
        &self,
        run: CompactRun<'_>,
        palette: Palettes<'_>,
        level: SimdLevel,
        sink: &mut impl Sink,
    ) {
        const RUN_BLOCKS: usize = CHUNK_VERTICES / LANES;
        let base = run.first * LANES;
        let placed = SCRATCH.with(|scratch| {
            let Ok(mut scratch) = scratch.try_borrow_mut() else {
                return false;
            };
            if scratch.is_empty() {
                scratch.resize(2, [[0.0; 3]; CHUNK_VERTICES + 1]);
            }
            let [positions, normals] = &mut scratch[..] else {
                return false;
            };
            for (r, blocks) in run.blocks.chunks(RUN_BLOCKS).enumerate() {
                let at = r * CHUNK_VERTICES;
                let lanes = blocks.len() * LANES;
                let mut ahead = Ahead {
                    scratch: Split {
                        positions: &mut positions[..lanes],
                        normals: &mut normals[..lanes],
                    },
                    sink: &mut *sink,
                    at,
                };
                let part = run.part(blocks, run.first + r * RUN_BLOCKS);
                self.skin_run(part, palette, level, &mut ahead);
                let n = sink.len().saturating_sub(at).min(lanes);
                let place = self.place.get(base + at..base + at + n).unwrap_or_default();
                copy_placed(positions, normals, place, at, level, sink);
            }
            true
        });
        if !placed {
            // Lane `i` of the blocks is vertex `order[i]`: written one vertex at a time.
            let mut moved = Moved {
                sink,
                order: self.order.get(base..).unwrap_or_default(),
                base,
            };
            self.skin_run(run, palette, level, &mut moved);
        }
    }

    /// Skins `run` into `sink` (indexed from the run's first lane) at `level`.
    fn skin_run(
        &self,
        run: CompactRun<'_>,
        palette: Palettes<'_>,
        level: SimdLevel,
        sink: &mut impl Sink,
    ) {
        let n = sink.len();
        match palette {
            Palettes::Linear(_) => {
                #[cfg(target_arch = "x86_64")]
                if level >= SimdLevel::Avx2
                    && x86::try_compact(level == SimdLevel::Avx512, run, sink)
                {
                    return;
                }
                compact_portable(run, &mut |b: usize, out: &BlockOut| {
                    let lanes = n.saturating_sub(b * LANES).min(LANES);
                    sink.put_run(b * LANES, &out.positions[..lanes], &out.normals[..lanes]);
                });
            }
            Palettes::Dual(dual_quats) => {
                #[cfg(target_arch = "x86_64")]
                if level == SimdLevel::Avx512 && x86::try_compact_dqs(run, sink) {
                    return;
                }
                dqs_portable(run, dual_quats.deltas(), &mut |b: usize, out: &BlockOut| {
                    let lanes = n.saturating_sub(b * LANES).min(LANES);
                    sink.put_run(b * LANES, &out.positions[..lanes], &out.normals[..lanes]);
                });
            }
        }
        let _ = level;
    }
}

std::thread_local! {
    /// Each thread's scratch for [`CompactMesh::skin_placed`]: a run's positions, then its
    /// normals.
    static SCRATCH: core::cell::RefCell<Vec<RunScratch>> =
        const { core::cell::RefCell::new(Vec::new()) };
}

/// A run's results in the blocks' order, and one vertex of padding, which a 16-byte read of
/// the last lane reaches into.
pub(crate) type RunScratch = [[f32; 3]; CHUNK_VERTICES + 1];

/// Writes vertices `at .. at + place.len()` of `sink` (vertex `at + i` from lane `place[i]`
/// of `positions` and `normals`), front to back, a block at a time: straight into the
/// blocks the sink lends, the positions of every block first and then the normals, else
/// (a block the sink does not lend, the last partial one) both through [`Sink::put_run`].
///
/// A pass reads one of the scratch's arrays at random, so half as many lines are in use as
/// in one pass over both (a run of 3 040 vertices: 36 KB rather than 73 KB), and more of
/// them stay in the first-level cache (`skelmap bench` on the character, compact in file
/// order: benches/README.md). At [`SimdLevel::Avx512`] a block is copied with AVX-512F,
/// else with SSE.
fn copy_placed(
    positions: &RunScratch,
    normals: &RunScratch,
    place: &[u16],
    at: usize,
    level: SimdLevel,
    sink: &mut impl Sink,
) {
    #[cfg(target_arch = "x86_64")]
    if level == SimdLevel::Avx512 && x86::copy_placed_avx512(positions, normals, place, at, sink) {
        return;
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = level;
    copy_placed_with(positions, normals, place, at, sink, copy_block);
}

/// [`copy_placed`], each whole block lent by `sink` copied by `copy` (`out[i] =
/// from[lanes[i]]`), inlined into each of its callers so that a caller compiled for wider
/// vectors inlines a `copy` compiled for them.
#[inline(always)]
pub(crate) fn copy_placed_with(
    positions: &RunScratch,
    normals: &RunScratch,
    place: &[u16],
    at: usize,
    sink: &mut impl Sink,
    copy: impl Fn(&RunScratch, &[u16; LANES], &mut [[f32; 3]; LANES]),
) {
    for (b, lanes) in place.chunks_exact(LANES).enumerate() {
        if let (Some((p, _)), Ok(lanes)) = (
            sink.block_mut(at + b * LANES),
            <&[u16; LANES]>::try_from(lanes),
        ) {
            copy(positions, lanes, p);
        }
    }
    for (b, lanes) in place.chunks(LANES).enumerate() {
        let at = at + b * LANES;
        if let (Some((_, q)), Ok(lanes)) = (sink.block_mut(at), <&[u16; LANES]>::try_from(lanes)) {
            copy(normals, lanes, q);
            continue;
        }
        let mut out = BlockOut::ZERO;
        for ((p, q), &lane) in out.positions.iter_mut().zip(&mut out.normals).zip(lanes) {
            (*p, *q) = (positions[lane_of(lane)], normals[lane_of(lane)]);
        }
        sink.put_run(
            at,
            &out.positions[..lanes.len()],
            &out.normals[..lanes.len()],
        );
    }
}

/// A lane of a run, taken modulo [`CHUNK_VERTICES`] (a power of two): a read of a
/// [`RunScratch`] through it needs no bounds check.
#[inline(always)]
fn lane_of(lane: u16) -> usize {
    const _: () = assert!(CHUNK_VERTICES.is_power_of_two());
    usize::from(lane) & (CHUNK_VERTICES - 1)
}

/// `out[i] = from[lanes[i]]`, lanes taken by [`lane_of`].
#[inline]
fn copy_block(from: &RunScratch, lanes: &[u16; LANES], out: &mut [[f32; 3]; LANES]) {
    #[cfg(target_arch = "x86_64")]
    x86::copy_block(from, lanes, out);
    #[cfg(not(target_arch = "x86_64"))]
    for (to, &lane) in out.iter_mut().zip(lanes) {
        *to = from[lane_of(lane)];
    }
}

/// The scratch [`CompactMesh::skin_placed`] skins a run into, lending its blocks to the
/// kernel; as the kernel takes block `i`, the lines of the destination's block `i` (from
/// vertex `at` of `sink`) are fetched for writing, so the copy that follows writes lines
/// already in the caches, fetched while the kernel computed.
struct Ahead<'s, S> {
    scratch: Split<'s>,
    sink: &'s mut S,
    at: usize,
}

impl<S: Sink> Sink for Ahead<'_, S> {
    fn len(&self) -> usize {
        self.scratch.len()
    }

    #[inline]
    fn put(&mut self, i: usize, position: [f32; 3], normal: [f32; 3]) {
        self.scratch.put(i, position, normal);
    }

    #[inline]
    fn put_run(&mut self, at: usize, positions: &[[f32; 3]], normals: &[[f32; 3]]) {
        self.scratch.put_run(at, positions, normals);
    }

    #[inline]
    fn block_mut(&mut self, at: usize) -> Option<super::output::BlockMut<'_>> {
        #[cfg(target_arch = "x86_64")]
        if let Some((p, q)) = self.sink.block_mut(self.at + at) {
            super::x86::prefetch_for_write(p);
            super::x86::prefetch_for_write(q);
        }
        self.scratch.block_mut(at)
    }
}

/// A destination seen through [`CompactMesh`]'s lane order: lane `i` (from the piece's
/// first lane, `base`) is vertex `order[i]`, written to `sink` (which starts at vertex
/// `base`); a lane past the mesh's vertices is dropped. It lends no blocks, so the kernels
/// hand it whole blocks through [`Sink::put_run`].
struct Moved<'s, S> {
    sink: &'s mut S,
    order: &'s [u32],
    base: usize,
}

impl<S: Sink> Sink for Moved<'_, S> {
    fn len(&self) -> usize {
        self.sink.len()
    }

    #[inline]
    fn put(&mut self, i: usize, position: [f32; 3], normal: [f32; 3]) {
        if let Some(&to) = self.order.get(i) {
            // Below `base` only for a lane of another piece, which the sink then ignores.
            let to = (to as usize).wrapping_sub(self.base);
            self.sink.put(to, position, normal);
        }
    }

    #[inline]
    fn put_run(&mut self, at: usize, positions: &[[f32; 3]], normals: &[[f32; 3]]) {
        for (i, (&p, &n)) in positions.iter().zip(normals).enumerate() {
            self.put(at + i, p, n);
        }
    }
}

/// The palette a skinning reads: matrices for the linear blend, dual quaternions for theirs.
#[derive(Clone, Copy)]
enum Palettes<'p> {
    Linear(&'p SkinMatrices),
    Dual(&'p DualQuatPalette),
}

impl Palettes<'_> {
    fn bones(&self) -> usize {
        match self {
            Palettes::Linear(m) => m.bones(),
            Palettes::Dual(d) => d.bones(),
        }
    }
}

/// The blocks of a [`CompactMesh`] a kernel skins, and the palette.
#[derive(Clone, Copy)]
pub(crate) struct CompactRun<'a> {
    /// The blocks to skin (`blocks[i]` is block `first + i` of the mesh).
    pub blocks: &'a [Block],
    pub first: usize,
    pub position: &'a [u16],
    pub normal: &'a [i16],
    pub bones: &'a [u8],
    pub weights: &'a [u16],
    pub wide: bool,
    pub normals: bool,
    pub origin: [f32; 3],
    pub step: [f32; 3],
    /// Twelve palette rows of `padded` floats.
    pub soa: &'a [f32],
    pub padded: usize,
    /// The linear palette's matrices bone by bone (see
    /// [`SkinMatrices`](super::SkinMatrices)), where a row of a few bones reads each bone's
    /// entries at fixed offsets from one address; empty for dual quaternions.
    pub paired: &'a [[f32; PAIRED]],
    /// Whether to write the results with non-temporal stores (see
    /// [`STREAM_MIN_BYTES`](super::STREAM_MIN_BYTES)).
    pub stream: bool,
}

impl<'a> CompactRun<'a> {
    /// The same palette and arrays over `blocks`, block `first` on, stored without
    /// non-temporal stores (into a scratch that is read again at once).
    fn part(&self, blocks: &'a [Block], first: usize) -> CompactRun<'a> {
        CompactRun {
            blocks,
            first,
            stream: false,
            ..*self
        }
    }
}

/// One block's arrays (see [`CompactMesh`]).
pub(crate) struct BlockData<'a> {
    /// Rows `x`, `y`, `z` of 16 position steps.
    pub position: &'a [u16],
    /// Rows `x`, `y`, `z` of 16 normal fractions (of 32 767).
    pub normal: &'a [i16],
    /// `k` rows of 16 bones, one or two bytes each.
    pub bones: &'a [u8],
    /// `k` rows of 16 weights.
    pub weights: &'a [u16],
    /// Influences per lane (padding has weight 0).
    pub k: usize,
    /// Rows stored as a [`FewBones`] record (see [`Block::few`]).
    pub few: u32,
}

impl CompactRun<'_> {
    /// Block `i`'s arrays, or `None` if they are short (never, for a mesh built by `new`).
    #[inline]
    pub(crate) fn block(&self, i: usize) -> Option<BlockData<'_>> {
        let Block { slot, k, few } = *self.blocks.get(i)?;
        let (b, slot, k) = (self.first + i, slot as usize, k as usize);
        let width = if self.wide { 2 } else { 1 };
        Some(BlockData {
            position: self.position.get(b * 3 * LANES..(b + 1) * 3 * LANES)?,
            normal: self.normal.get(b * 3 * LANES..(b + 1) * 3 * LANES)?,
            bones: self
                .bones
                .get(slot * LANES * width..(slot + k) * LANES * width)?,
            weights: self.weights.get(slot * LANES..(slot + k) * LANES)?,
            k,
            few,
        })
    }
}

impl BlockData<'_> {
    /// Lane `lane`'s `(bone, weight)` influences (padding has weight 0).
    fn influences(&self, wide: bool, lane: usize) -> impl Iterator<Item = (usize, f32)> + '_ {
        let width = if wide { 2 } else { 1 };
        (0..self.k).map(move |j| {
            let row = self.bones.get(j * LANES * width..).unwrap_or_default();
            let byte = |i: usize| row.get(i).copied().unwrap_or(0);
            let bone = if j < 32 && self.few >> j & 1 == 1 {
                FewBones::read(row).map_or(0, |f| usize::from(f.bone(lane)))
            } else if wide {
                usize::from(u16::from_le_bytes([byte(2 * lane), byte(2 * lane + 1)]))
            } else {
                usize::from(byte(lane))
            };
            let w = self.weights.get(j * LANES + lane).copied().unwrap_or(0);
            (bone, f32::from(w) / WEIGHT_ONE)
        })
    }

    /// Lane `lane`'s unit normal.
    fn normal(&self, lane: usize) -> [f32; 3] {
        core::array::from_fn(|axis| {
            let q = self.normal.get(axis * LANES + lane).copied().unwrap_or(0);
            f32::from(q) / NORMAL_ONE
        })
    }
}

impl CompactRun<'_> {
    /// Lane `lane`'s bind-space position in `block`.
    fn point(&self, block: &BlockData<'_>, lane: usize) -> [f32; 3] {
        core::array::from_fn(|a| {
            let q = block.position.get(a * LANES + lane).copied().unwrap_or(0);
            self.origin[a] + f32::from(q) * self.step[a]
        })
    }
}

/// The compact kernel in plain Rust, lane by lane.
fn compact_portable(run: CompactRun<'_>, emit: &mut impl FnMut(usize, &BlockOut)) {
    let (soa, padded) = (run.soa, run.padded);
    let entry = |e: usize, bone: usize| soa.get(e * padded + bone).copied().unwrap_or(0.0);
    for i in 0..run.blocks.len() {
        let Some(data) = run.block(i) else {
            return;
        };
        let mut out = BlockOut::ZERO;
        for lane in 0..LANES {
            let mut m = [0.0f32; 12];
            for (bone, w) in data.influences(run.wide, lane) {
                for (e, value) in m.iter_mut().enumerate() {
                    *value += w * entry(e, bone);
                }
            }
            let p = run.point(&data, lane);
            out.positions[lane] = core::array::from_fn(|r| {
                m[r * 4] * p[0] + m[r * 4 + 1] * p[1] + m[r * 4 + 2] * p[2] + m[r * 4 + 3]
            });
            if run.normals {
                let n = data.normal(lane);
                out.normals[lane] = core::array::from_fn(|r| {
                    m[r * 4] * n[0] + m[r * 4 + 1] * n[1] + m[r * 4 + 2] * n[2]
                });
            }
        }
        emit(i, &out);
    }
}

/// The dual-quaternion blend of the compact kernel in plain Rust, lane by lane.
fn dqs_portable(run: CompactRun<'_>, deltas: &[DualQuat], emit: &mut impl FnMut(usize, &BlockOut)) {
    for i in 0..run.blocks.len() {
        let Some(data) = run.block(i) else {
            return;
        };
        let mut out = BlockOut::ZERO;
        for lane in 0..LANES {
            let mut blend = Blend::default();
            let mut total = 0.0;
            for (bone, w) in data.influences(run.wide, lane) {
                if let Some(d) = deltas.get(bone) {
                    blend.add(d, w);
                    total += w;
                }
            }
            let blended = blend.finish();
            let p = Vec3A::from(run.point(&data, lane)) * total;
            out.positions[lane] = blended.transform_point(p).to_array();
            if run.normals {
                let n = Vec3A::from(data.normal(lane)) * total;
                out.normals[lane] = (blended.real * glam::Vec3::from(n)).to_array();
            }
        }
        emit(i, &out);
    }
}
