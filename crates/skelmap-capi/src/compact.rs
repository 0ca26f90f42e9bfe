//! The compact layout: a skeletal model's meshes folded once into one quantised bind-space
//! vertex each, then skinned by skelmap's fastest kernel.
//!
//! `skelmap_model_skin` reads the file's own records every call (DPM and SKM store one
//! pre-weighted position per influence), which costs nothing up front. A runtime that skins
//! the same model every frame makes a `SkelmapCompact` once instead: about a quarter of the
//! bytes per vertex, and in skelmap's Rust benchmarks 1.2–3.1× the vertices per second of the
//! prepared kernel on the corpus models (`benches/README.md`). Vertices whose influences
//! disagree about where they sit at rest are kept exact, so the result matches
//! `skelmap_model_skin` within 10⁻⁴ of the model's size. Both calls end with the same copy
//! into the caller's strided buffers.

use std::cell::RefCell;

use skelmap_core::model::Compact;
use skelmap_core::skin::{CompactMesh, SimdLevel, SkinMatrices, VertexOrder};

use crate::boundary::{Fail, SkelmapStatus, status};
use crate::mesh::{Strided, deform_outputs, write_deformed};
use crate::model::SkelmapModel;
use crate::pose::SkelmapPose;

/// A skeletal model's meshes folded for the compact kernel. Opaque to C; created by
/// `skelmap_compact_new`, destroyed by `skelmap_compact_free`. It owns its data: it does not
/// borrow the model, which may be freed first. It is read-only once made, so several threads
/// may skin with one at once.
#[derive(Debug)]
pub struct SkelmapCompact {
    compact: Compact,
}

/// What `skelmap_compact_info` reports.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SkelmapCompactInfo {
    /// Meshes, as `SkelmapCounts.meshes` of the model it was made from.
    pub meshes: u32,
    /// Vertices, over every mesh, that did not fold (their influences disagree about where
    /// the vertex sits at rest) and are skinned exactly from their records.
    pub exact_vertices: u32,
    /// Bytes the kernel reads to skin every mesh once.
    pub bytes: u64,
}

thread_local! {
    /// The skinning matrices of the pose being skinned: per thread, so that a compact model
    /// and a pose stay read-only.
    static MATRICES: RefCell<SkinMatrices> = RefCell::new(SkinMatrices::default());
}

/// Folds every mesh of a skeletal model (any format with bones and a mesh) into `*out` (NULL
/// on failure):
/// the explicit, allocating copy a runtime makes once per model.
///
/// Returns `SKELMAP_STATUS_OK`, or `SKELMAP_STATUS_NULL_PARAMETER` (`model` or `out`) or
/// `SKELMAP_STATUS_WRONG_KIND` (a model without skinned meshes: MDL, HMP, Quake, a lone SKP or
/// SL animation).
///
/// # Safety
///
/// `model` is NULL or a live model; `out` is NULL or valid for writing one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_compact_new(
    model: Option<&SkelmapModel>,
    out: Option<&mut *mut SkelmapCompact>,
) -> SkelmapStatus {
    status(|| {
        let out = out.ok_or(Fail::null("out"))?;
        *out = std::ptr::null_mut();
        let model = model.ok_or(Fail::null("model"))?;
        let compact = model.model.compact()?;
        *out = Box::into_raw(Box::new(SkelmapCompact { compact }));
        Ok(())
    })
}

/// Frees a compact model. NULL is allowed and does nothing. Returns nothing; it cannot fail.
///
/// # Safety
///
/// `compact` is NULL or a pointer from `skelmap_compact_new` not freed before.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_compact_free(compact: *mut SkelmapCompact) {
    if !compact.is_null() {
        let _ = status(|| {
            // SAFETY: the pointer came from Box::into_raw in skelmap_compact_new, freed once.
            drop(unsafe { Box::from_raw(compact) });
            Ok(())
        });
    }
}

/// Fills `*out` with the compact model's counts.
///
/// Returns `SKELMAP_STATUS_OK`, or `SKELMAP_STATUS_NULL_PARAMETER` (`compact` or `out`).
///
/// # Safety
///
/// `compact` is NULL or a live compact model; `out` is NULL or valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_compact_info(
    compact: Option<&SkelmapCompact>,
    out: Option<&mut SkelmapCompactInfo>,
) -> SkelmapStatus {
    status(|| {
        let compact = &compact.ok_or(Fail::null("compact"))?.compact;
        let out = out.ok_or(Fail::null("out"))?;
        let meshes = (0..compact.num_meshes()).filter_map(|i| compact.mesh(i));
        *out = SkelmapCompactInfo {
            meshes: compact.num_meshes() as u32,
            exact_vertices: compact.exact_vertices() as u32,
            bytes: meshes.map(|m| m.bytes() as u64).sum(),
        };
        Ok(())
    })
}

/// Skins mesh `mesh` of `compact` by `pose` and writes each vertex's position and normal into
/// the caller's buffers, as `skelmap_model_skin` does (same strides, capacity and NULL rules,
/// same vertex order), with the compact kernel.
///
/// `pose` must be sampled from the model `compact` was made from, or from one with the same
/// skeleton (the matrices pair the pose's bones with the bind pose folded in). The pose and
/// the compact model are only read: both may be used on several threads at once.
///
/// Returns `SKELMAP_STATUS_OK`, or:
/// - `SKELMAP_STATUS_NULL_PARAMETER`: `compact` or `pose` is NULL, or both buffers are;
/// - `SKELMAP_STATUS_OUT_OF_RANGE`: `mesh` ≥ `SkelmapCompactInfo.meshes`;
/// - `SKELMAP_STATUS_INVALID_ARGUMENT`: a stride below 12 bytes or a span that overflows, or
///   an unsampled pose;
/// - `SKELMAP_STATUS_BUFFER_TOO_SMALL`: `capacity` below the mesh's vertices;
/// - `SKELMAP_STATUS_WRONG_KIND`: a pose of frames (sampled from a vertex-animated model) or
///   one with fewer bones than the mesh uses.
///
/// On failure the buffers may be partly written.
///
/// # Safety
///
/// `compact` is NULL or a live compact model; `pose` is NULL or a live pose no other thread
/// modifies during the call; each buffer is NULL or valid for writes of
/// `(capacity − 1) · stride + 12` bytes (no alignment required). The two buffers may
/// interleave but must not overlap element for element.
#[allow(clippy::too_many_arguments)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_compact_skin(
    compact: Option<&SkelmapCompact>,
    pose: Option<&SkelmapPose>,
    mesh: u32,
    positions: *mut f32,
    position_stride: usize,
    normals: *mut f32,
    normal_stride: usize,
    capacity: usize,
) -> SkelmapStatus {
    // SAFETY: forwarded from this function's contract.
    unsafe {
        skin(
            (compact, pose, mesh),
            [(positions, position_stride), (normals, normal_stride)],
            capacity,
            VertexOrder::Original,
        )
    }
}

/// `skelmap_compact_skin` in the compact layout's own vertex order: position `i` of the
/// buffers gets the vertex `skelmap_compact_prepared_order` names at `i`, with the values
/// `skelmap_compact_skin` gives it, bit for bit. Where the layout grouped vertices by the
/// bones they use (a mesh in an exporter's vertex-cache order), file order costs a scattered
/// write per vertex, about as much as the blend; a runtime that draws through
/// `skelmap_compact_remap_triangles`' indices skips it.
///
/// Returns what `skelmap_compact_skin` returns, for the same reasons.
///
/// # Safety
///
/// As `skelmap_compact_skin`.
#[allow(clippy::too_many_arguments)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_compact_skin_prepared(
    compact: Option<&SkelmapCompact>,
    pose: Option<&SkelmapPose>,
    mesh: u32,
    positions: *mut f32,
    position_stride: usize,
    normals: *mut f32,
    normal_stride: usize,
    capacity: usize,
) -> SkelmapStatus {
    // SAFETY: forwarded from this function's contract.
    unsafe {
        skin(
            (compact, pose, mesh),
            [(positions, position_stride), (normals, normal_stride)],
            capacity,
            VertexOrder::Prepared,
        )
    }
}

/// Writes, for each position `i` of `skelmap_compact_skin_prepared`'s output for mesh `mesh`,
/// the vertex of the file written there (`out[i]`, a permutation of `0 ..` the mesh's vertex
/// count), for `capacity` elements.
///
/// Returns `SKELMAP_STATUS_OK`, `SKELMAP_STATUS_NULL_PARAMETER` (`compact` or `out`),
/// `SKELMAP_STATUS_OUT_OF_RANGE` (mesh) or `SKELMAP_STATUS_BUFFER_TOO_SMALL` (`capacity`
/// below the mesh's vertices).
///
/// # Safety
///
/// `compact` is NULL or a live compact model; `out` is NULL or valid for writes of `capacity`
/// `uint32_t`s.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_compact_prepared_order(
    compact: Option<&SkelmapCompact>,
    mesh: u32,
    out: *mut u32,
    capacity: usize,
) -> SkelmapStatus {
    status(|| {
        let folded = folded(compact, mesh)?;
        // SAFETY: forwarded from this function's contract (tightly packed).
        let out = unsafe { Strided::<u32, 1>::new(out, 0, capacity, "out") }?;
        let order: Vec<[u32; 1]> = folded.prepared_order().into_iter().map(|v| [v]).collect();
        out.ok_or(Fail::null("out"))?.write(&order, "out")
    })
}

/// Rewrites `count` triangles of mesh `mesh` (three vertex indices each, as
/// `skelmap_mesh_triangles` writes them), in place, to index the vertices
/// `skelmap_compact_skin_prepared` writes. An index past the mesh's vertices is kept as it is.
///
/// Returns `SKELMAP_STATUS_OK`, `SKELMAP_STATUS_NULL_PARAMETER` (`compact`, or `triangles`
/// with `count` above zero), `SKELMAP_STATUS_OUT_OF_RANGE` (mesh) or
/// `SKELMAP_STATUS_INVALID_ARGUMENT` (`3 · count` indices overflow the address space).
///
/// # Safety
///
/// `compact` is NULL or a live compact model; `triangles` is NULL or valid for reads and
/// writes of `3 · count` `uint32_t`s.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_compact_remap_triangles(
    compact: Option<&SkelmapCompact>,
    mesh: u32,
    triangles: *mut u32,
    count: usize,
) -> SkelmapStatus {
    status(|| {
        let folded = folded(compact, mesh)?;
        if count == 0 {
            return Ok(());
        }
        if triangles.is_null() {
            return Err(Fail::null("triangles"));
        }
        let len = count
            .checked_mul(3)
            .filter(|&len| len <= isize::MAX as usize / size_of::<u32>())
            .ok_or_else(|| Fail::invalid("count: 3 · count indices overflow the address space"))?;
        // SAFETY: `triangles` is not NULL and, by this function's contract, valid for reads and
        // writes of `3 · count` `uint32_t`s, which nothing else accesses during the call.
        let indices = unsafe { std::slice::from_raw_parts_mut(triangles, len) };
        let (chunks, _) = indices.as_chunks_mut::<3>();
        let remapped = folded.remap_triangles(chunks.iter().copied());
        for (to, from) in chunks.iter_mut().zip(remapped) {
            *to = from;
        }
        Ok(())
    })
}

/// Mesh `mesh` of `compact`, or the status naming what is wrong.
fn folded(compact: Option<&SkelmapCompact>, mesh: u32) -> Result<&CompactMesh, Fail> {
    let compact = &compact.ok_or(Fail::null("compact"))?.compact;
    compact
        .mesh(mesh as usize)
        .ok_or_else(|| Fail::out_of_range("mesh", mesh, compact.num_meshes() as u64))
}

/// `skelmap_compact_skin` and `skelmap_compact_skin_prepared`: the mesh skinned in `order`.
///
/// # Safety
///
/// As `skelmap_compact_skin`, for the buffers `outputs` (pointer and stride each).
unsafe fn skin(
    (compact, pose, mesh): (Option<&SkelmapCompact>, Option<&SkelmapPose>, u32),
    outputs: [(*mut f32, usize); 2],
    capacity: usize,
    order: VertexOrder,
) -> SkelmapStatus {
    status(|| {
        let whole = &compact.ok_or(Fail::null("compact"))?.compact;
        let pose = &pose.ok_or(Fail::null("pose"))?.pose;
        let folded = folded(compact, mesh)?;
        if pose.frames().is_some() {
            return Err(Fail::wrong_kind(
                "the pose holds a frame pair of a vertex-animated model, not bones",
            ));
        }
        // SAFETY: forwarded from this function's contract.
        let outputs = unsafe { deform_outputs(outputs, capacity, folded.num_vertices()) }?;
        MATRICES.with(|matrices| {
            let matrices = &mut *matrices.borrow_mut();
            whole.matrices(pose, matrices)?;
            write_deformed(outputs, folded.num_vertices(), |positions, normals| {
                let (level, mesh) = (SimdLevel::detect(), mesh as usize);
                let (p, n) = (positions, normals);
                match order {
                    VertexOrder::Original => whole.skin_pose(mesh, pose, matrices, level, p, n),
                    VertexOrder::Prepared => {
                        whole.skin_pose_prepared(mesh, pose, matrices, level, p, n)
                    }
                }
                .map_err(Fail::from)
            })
        })
    })
}
