//! The pose object: frames sampled into bone transforms (or a frame pair to tween), plus the
//! scratch buffers the kernels write before the strided copy to the caller.

use skelmap_core::glam::Affine3A;
use skelmap_core::model::Pose;
use skelmap_core::pose::Interpolation;

use crate::boundary::{Fail, SkelmapStatus, status, value};
use crate::model::SkelmapModel;

/// `interpolation` for `skelmap_pose_sample`: normalised linear blend of rotations along
/// the shorter arc (what engines use per frame).
pub const SKELMAP_INTERPOLATION_NLERP: u32 = 0;
/// `interpolation` for `skelmap_pose_sample`: spherical linear blend (constant angular
/// speed).
pub const SKELMAP_INTERPOLATION_SLERP: u32 = 1;

/// A sampled pose and the scratch space skinning uses. Opaque to C; created by
/// `skelmap_pose_new`, filled by `skelmap_pose_sample`, destroyed by
/// `skelmap_pose_free`. A pose is not tied to one model: it can be sampled from any model
/// and used to skin any model whose meshes reference no more bones than it holds.
#[derive(Debug, Default)]
pub struct SkelmapPose {
    pub(crate) pose: Pose,
    pub(crate) positions: Vec<[f32; 3]>,
    pub(crate) normals: Vec<[f32; 3]>,
}

impl SkelmapPose {
    fn sample(
        &mut self,
        model: &SkelmapModel,
        a: u32,
        b: u32,
        t: f32,
        interpolation: Interpolation,
    ) -> Result<(), Fail> {
        if model.frame_count() == 0 {
            return Err(Fail::wrong_kind(format!(
                "{:?} models without frames have nothing to sample",
                model.format()
            )));
        }
        model
            .model
            .pose(a as usize, b as usize, t, interpolation, &mut self.pose)?;
        Ok(())
    }
}

/// Creates an empty pose in `*out` (NULL on failure).
///
/// # Safety
///
/// `out` is NULL or valid for writing one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_pose_new(out: Option<&mut *mut SkelmapPose>) -> SkelmapStatus {
    status(|| {
        let out = out.ok_or(Fail::null("out"))?;
        *out = Box::into_raw(Box::<SkelmapPose>::default());
        Ok(())
    })
}

/// Frees a pose. NULL is allowed and does nothing.
///
/// # Safety
///
/// `pose` is NULL or a pointer from `skelmap_pose_new` not freed before.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_pose_free(pose: *mut SkelmapPose) {
    if !pose.is_null() {
        let _ = status(|| {
            // SAFETY: the pointer came from Box::into_raw in skelmap_pose_new, freed once.
            drop(unsafe { Box::from_raw(pose) });
            Ok(())
        });
    }
}

/// Samples `model` between frames `a` and `b` at `t` (0 = `a`, 1 = `b`) into `pose`.
///
/// - DPM, SKM, SKP: each bone's rotation and translation are blended (rotations along the
///   shorter arc, by `interpolation`: `SKELMAP_INTERPOLATION_NLERP` or `_SLERP`) and
///   concatenated down the hierarchy into world transforms.
/// - MS3D: the joints' keys are evaluated at frame `a + t·(b − a)`, frame index `f` being
///   `(f + 1) / fps` seconds into the animation (rotation keys always slerp).
/// - MDL, HMP: the pose records the frame pair, which `skelmap_model_skin` tweens.
///
/// Both frames must be below `SkelmapCounts.frames` (`SKELMAP_STATUS_OUT_OF_RANGE`
/// otherwise) and `t` finite; `t` outside 0..1 extrapolates.
///
/// # Safety
///
/// `pose` is NULL or a live pose no other thread uses during the call; `model` is NULL or a
/// live model.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_pose_sample(
    pose: Option<&mut SkelmapPose>,
    model: Option<&SkelmapModel>,
    a: u32,
    b: u32,
    t: f32,
    interpolation: u32,
) -> SkelmapStatus {
    status(|| {
        let pose = pose.ok_or(Fail::null("pose"))?;
        let model = model.ok_or(Fail::null("model"))?;
        let interpolation = match interpolation {
            SKELMAP_INTERPOLATION_NLERP => Interpolation::Nlerp,
            SKELMAP_INTERPOLATION_SLERP => Interpolation::Slerp,
            other => return Err(Fail::invalid(format!("unknown interpolation {other}"))),
        };
        pose.sample(model, a, b, t, interpolation)
    })
}

/// The number of bone transforms the pose holds (0 before sampling, and for a pose sampled
/// from an MDL or HMP); 0 when `pose` is NULL.
///
/// # Safety
///
/// `pose` is NULL or a live pose.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_pose_bone_count(pose: Option<&SkelmapPose>) -> u32 {
    value(0, || {
        Ok(pose.ok_or(Fail::null("pose"))?.pose.palette().world.len() as u32)
    })
}

/// Writes bone `bone`'s transform to model space into `out` as a row-major 3×4 matrix
/// (`out[4·r + c]`, the translation in column 3), for attaching objects to a bone.
///
/// # Safety
///
/// `pose` is NULL or a live pose; `out` is NULL or valid for writing 12 floats.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_pose_bone_world(
    pose: Option<&SkelmapPose>,
    bone: u32,
    out: *mut f32,
) -> SkelmapStatus {
    status(|| {
        let palette = pose.ok_or(Fail::null("pose"))?.pose.palette();
        let m: Affine3A = palette
            .bone_world(bone as usize)
            .ok_or_else(|| Fail::out_of_range("bone", bone, palette.world.len() as u64))?;
        if out.is_null() {
            return Err(Fail::null("out"));
        }
        // SAFETY: non-NULL and writable for 12 floats by this function's contract.
        let out = unsafe { std::slice::from_raw_parts_mut(out, 12) };
        let cols = [
            m.matrix3.x_axis,
            m.matrix3.y_axis,
            m.matrix3.z_axis,
            m.translation,
        ];
        for r in 0..3 {
            for (c, col) in cols.iter().enumerate() {
                out[4 * r + c] = col[r];
            }
        }
        Ok(())
    })
}
