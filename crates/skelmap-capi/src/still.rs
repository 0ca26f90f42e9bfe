//! The one-frame path: a model of a single frame (a prop, a vehicle part) shows the same mesh
//! at every time. `skelmap_static_mesh_new` deforms it once, by that frame, into a
//! `SkelmapStaticMesh`; each frame after is `skelmap_static_mesh_copy`, a copy into the
//! caller's strided buffers of what `skelmap_model_skin` would write for that frame's pose
//! (`skelmap_pose_sample` of frames 0 and 0 at 0).

use skelmap_core::model::{Pose, StaticMesh};
use skelmap_core::pose::Interpolation;

use crate::boundary::{Fail, SkelmapStatus, status};
use crate::mesh::{deform_outputs, smooth_corner_normals, write_deformed};
use crate::model::SkelmapModel;

/// Every mesh of a model of one frame, deformed by that frame. Opaque to C; created by
/// `skelmap_static_mesh_new`, destroyed by `skelmap_static_mesh_free`. It owns its data: it
/// does not borrow the model, which may be freed first. It is read-only once made, so several
/// threads may copy from one at once.
#[derive(Debug)]
pub struct SkelmapStaticMesh {
    baked: StaticMesh,
}

/// Deforms every mesh of a model of one frame by that frame into `*out` (NULL on failure):
/// the explicit, allocating copy a runtime makes once per model.
///
/// Returns `SKELMAP_STATUS_OK`, or `SKELMAP_STATUS_NULL_PARAMETER` (`model` or `out`) or
/// `SKELMAP_STATUS_WRONG_KIND` (a model with no frame or more than one:
/// `SkelmapCounts.frames` is not 1).
///
/// # Safety
///
/// `model` is NULL or a live model; `out` is NULL or valid for writing one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_static_mesh_new(
    model: Option<&SkelmapModel>,
    out: Option<&mut *mut SkelmapStaticMesh>,
) -> SkelmapStatus {
    status(|| {
        let out = out.ok_or(Fail::null("out"))?;
        *out = std::ptr::null_mut();
        let model = model.ok_or(Fail::null("model"))?;
        let mut baked = model.model.static_mesh()?;
        // Normals as `skelmap_model_skin` writes them: a mesh that stores them per corner
        // (MS3D) gets them smoothed per vertex.
        let mut pose = Pose::default();
        model
            .model
            .pose(0, 0, 0.0, Interpolation::Nlerp, &mut pose)?;
        for mesh in 0..baked.num_meshes() {
            if let Some(normals) = baked.normals_mut(mesh) {
                smooth_corner_normals(model, mesh as u32, &pose, normals)?;
            }
        }
        *out = Box::into_raw(Box::new(SkelmapStaticMesh { baked }));
        Ok(())
    })
}

/// Frees a static mesh. NULL is allowed and does nothing. Returns nothing; it cannot fail.
///
/// # Safety
///
/// `baked` is NULL or a pointer from `skelmap_static_mesh_new` not freed before.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_static_mesh_free(baked: *mut SkelmapStaticMesh) {
    if !baked.is_null() {
        let _ = status(|| {
            // SAFETY: the pointer came from Box::into_raw in skelmap_static_mesh_new, freed
            // once.
            drop(unsafe { Box::from_raw(baked) });
            Ok(())
        });
    }
}

/// Copies mesh `mesh`'s positions and normals into the caller's buffers, as
/// `skelmap_model_skin` writes them (same strides, capacity and NULL rules, same vertex
/// order).
///
/// Returns `SKELMAP_STATUS_OK`, or:
/// - `SKELMAP_STATUS_NULL_PARAMETER`: `baked` is NULL, or both buffers are;
/// - `SKELMAP_STATUS_OUT_OF_RANGE`: `mesh` ≥ the model's `SkelmapCounts.meshes`;
/// - `SKELMAP_STATUS_INVALID_ARGUMENT`: a stride below 12 bytes or a span that overflows;
/// - `SKELMAP_STATUS_BUFFER_TOO_SMALL`: `capacity` below the mesh's vertices.
///
/// On failure the buffers may be partly written.
///
/// # Safety
///
/// `baked` is NULL or a live static mesh; each buffer is NULL or valid for writes of
/// `(capacity − 1) · stride + 12` bytes (no alignment required). The two buffers may
/// interleave but must not overlap element for element.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_static_mesh_copy(
    baked: Option<&SkelmapStaticMesh>,
    mesh: u32,
    positions: *mut f32,
    position_stride: usize,
    normals: *mut f32,
    normal_stride: usize,
    capacity: usize,
) -> SkelmapStatus {
    status(|| {
        let baked = &baked.ok_or(Fail::null("baked"))?.baked;
        let meshes = baked.num_meshes() as u64;
        let n = baked
            .positions(mesh as usize)
            .ok_or_else(|| Fail::out_of_range("mesh", mesh, meshes))?
            .len();
        // SAFETY: forwarded from this function's contract.
        let outputs = unsafe {
            deform_outputs(
                [(positions, position_stride), (normals, normal_stride)],
                capacity,
                n,
            )
        }?;
        write_deformed(outputs, n, |positions, normals| {
            Ok(baked.copy(mesh as usize, positions, normals)?)
        })
    })
}
