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
use skelmap_core::skin::{SimdLevel, SkinMatrices};

use crate::boundary::{Fail, SkelmapStatus, status};
use crate::mesh::{deform_outputs, write_deformed};
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

/// Folds every mesh of a skeletal model (DPM, SKM, MS3D, SL) into `*out` (NULL on failure):
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
    status(|| {
        let compact = &compact.ok_or(Fail::null("compact"))?.compact;
        let pose = &pose.ok_or(Fail::null("pose"))?.pose;
        let folded = compact
            .mesh(mesh as usize)
            .ok_or_else(|| Fail::out_of_range("mesh", mesh, compact.num_meshes() as u64))?;
        if pose.frames().is_some() {
            return Err(Fail::wrong_kind(
                "the pose holds a frame pair of a vertex-animated model, not bones",
            ));
        }
        // SAFETY: forwarded from this function's contract.
        let outputs = unsafe {
            deform_outputs(
                [(positions, position_stride), (normals, normal_stride)],
                capacity,
                folded.num_vertices(),
            )
        }?;
        MATRICES.with(|matrices| {
            let matrices = &mut *matrices.borrow_mut();
            compact.matrices(pose, matrices)?;
            write_deformed(outputs, folded.num_vertices(), |positions, normals| {
                let level = SimdLevel::detect();
                Ok(compact.skin_pose(mesh as usize, pose, matrices, level, positions, normals)?)
            })
        })
    })
}
