//! The pose object: frames sampled into bone transforms (or a frame pair to tween).

use skelmap_core::glam::Affine3A;
use skelmap_core::model::Pose;
use skelmap_core::pose::Interpolation;
use skelmap_core::pose::framegroups::FrameGroup;

use crate::boundary::{Fail, SkelmapStatus, status, value};
use crate::model::SkelmapModel;

/// `interpolation` for `skelmap_pose_sample`: normalised linear blend of rotations along
/// the shorter arc (what engines use per frame).
pub const SKELMAP_INTERPOLATION_NLERP: u32 = 0;
/// `interpolation` for `skelmap_pose_sample`: spherical linear blend (constant angular
/// speed).
pub const SKELMAP_INTERPOLATION_SLERP: u32 = 1;

/// A sampled pose. Opaque to C; created by
/// `skelmap_pose_new`, filled by `skelmap_pose_sample`, destroyed by
/// `skelmap_pose_free`. A pose is not tied to one model: it can be sampled from any model
/// and used to skin any model whose meshes reference no more bones than it holds.
#[derive(Debug, Default)]
pub struct SkelmapPose {
    pub(crate) pose: Pose,
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
        has_frames(model)?;
        model
            .model
            .pose(a as usize, b as usize, t, interpolation, &mut self.pose)?;
        Ok(())
    }
}

/// That `model` has frames to sample.
fn has_frames(model: &SkelmapModel) -> Result<(), Fail> {
    if model.frame_count() == 0 {
        return Err(Fail::wrong_kind(format!(
            "{:?} models without frames have nothing to sample",
            model.format()
        )));
    }
    Ok(())
}

/// Creates an empty pose in `*out` (NULL on failure).
///
/// Returns `SKELMAP_STATUS_OK`, or `SKELMAP_STATUS_NULL_PARAMETER` (`out`).
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

/// Frees a pose. NULL is allowed and does nothing. Returns nothing; it cannot fail.
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
/// - Skeletal formats (DPM, SKM, SKP, IQM, MD5, Half-Life, ZYM, MDR, MDM/MDX, PSK/PSA,
///   MDL7, SL): each bone's rotation and translation (and scale, where the format scales)
///   are blended (rotations along the shorter arc, by `interpolation`:
///   `SKELMAP_INTERPOLATION_NLERP` or `_SLERP`) and concatenated down the hierarchy into
///   world transforms.
/// - MS3D: the joints' keys are evaluated at frame `a + t·(b − a)`, frame index `f` being
///   `(f + 1) / fps` seconds into the animation (rotation keys always slerp).
/// - Vertex-animated formats (Quake MDL, GameStudio MDL and HMP, MD2, MD3, MDC): the pose
///   records the frame pair, which `skelmap_model_skin` tweens.
///
/// Both frames must be below `SkelmapCounts.frames` and `t` finite; `t` outside 0..1
/// extrapolates. For animation by time use `skelmap_pose_sample_clip`; for the rest pose
/// `skelmap_pose_bind`.
///
/// Returns `SKELMAP_STATUS_OK`, or `SKELMAP_STATUS_NULL_PARAMETER` (`pose` or `model`),
/// `SKELMAP_STATUS_OUT_OF_RANGE` (a frame), `SKELMAP_STATUS_INVALID_ARGUMENT` (an unknown
/// `interpolation`, a `t` that is not finite), or `SKELMAP_STATUS_WRONG_KIND` (a model
/// without frames). On failure the pose is left unsampled.
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
        pose.sample(model, a, b, t, self::interpolation(interpolation)?)
    })
}

/// Samples an Enemy Territory character (MDM/MDX) into `pose` with its legs between frames
/// `legs_a` and `legs_b` at `legs_t` and its torso between `torso_a` and `torso_b` at
/// `torso_t`, as ET draws a player whose upper body plays its own animation (`refEntity_t`'s
/// `oldframe`, `frame`, `1 − backlerp` and `oldTorsoFrame`, `torsoFrame`, `1 − torsoBacklerp`):
/// bones of torso weight 0 follow the legs, of weight 1 the torso, others the legs pulled
/// towards the torso by their weight. With the same pair twice it is `skelmap_pose_sample`
/// with `SKELMAP_INTERPOLATION_NLERP`; a model without torso weights (every other format)
/// follows its legs. Turn the torso afterwards with `skelmap_pose_turn_torso`.
///
/// Returns `SKELMAP_STATUS_OK`, or `SKELMAP_STATUS_NULL_PARAMETER` (`pose` or `model`),
/// `SKELMAP_STATUS_OUT_OF_RANGE` (a frame at or past `SkelmapCounts.frames`),
/// `SKELMAP_STATUS_INVALID_ARGUMENT` (a `t` that is not finite), or
/// `SKELMAP_STATUS_WRONG_KIND` (a model without frames). On failure the pose is left
/// unsampled.
///
/// # Safety
///
/// `pose` is NULL or a live pose no other thread uses during the call; `model` is NULL or a
/// live model.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)] // Two frame pairs, flat for C.
pub unsafe extern "C" fn skelmap_pose_sample_legs_torso(
    pose: Option<&mut SkelmapPose>,
    model: Option<&SkelmapModel>,
    legs_a: u32,
    legs_b: u32,
    legs_t: f32,
    torso_a: u32,
    torso_b: u32,
    torso_t: f32,
) -> SkelmapStatus {
    status(|| {
        let pose = pose.ok_or(Fail::null("pose"))?;
        let model = model.ok_or(Fail::null("model"))?;
        has_frames(model)?;
        let legs = (legs_a as usize, legs_b as usize, legs_t);
        let torso = (torso_a as usize, torso_b as usize, torso_t);
        model.model.pose_legs_torso(legs, torso, &mut pose.pose)?;
        Ok(())
    })
}

/// Sets `pose` to `model`'s rest (bind) pose: the pose its meshes are stored in (the rest
/// transforms of IQM, MD5, PSK, Half-Life, MDL7 and MS3D, an SL animation's keyframe 0) or
/// frame 0 (DPM, SKM, SKP, ZYM, MDR, MDM, and the vertex-animated models). Skinning with it
/// gives the mesh as stored.
///
/// Returns `SKELMAP_STATUS_OK`, or `SKELMAP_STATUS_NULL_PARAMETER` (`pose` or `model` is
/// NULL), or `SKELMAP_STATUS_WRONG_KIND` for a model without frames (an SL mesh without its
/// animation).
///
/// # Safety
///
/// `pose` is NULL or a live pose no other thread uses during the call; `model` is NULL or a
/// live model.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_pose_bind(
    pose: Option<&mut SkelmapPose>,
    model: Option<&SkelmapModel>,
) -> SkelmapStatus {
    status(|| {
        let pose = pose.ok_or(Fail::null("pose"))?;
        let model = model.ok_or(Fail::null("model"))?;
        if model.frame_count() == 0 && model.model.num_bones() == 0 {
            return Err(Fail::wrong_kind(format!(
                "{:?} models without frames have no pose",
                model.format()
            )));
        }
        model.model.pose_bind(&mut pose.pose);
        Ok(())
    })
}

/// Samples frame group `clip` of `model` `seconds` after the clip's start into `pose`, as a
/// game plays it: frame `seconds · fps` of the clip blended with the next (rotations by
/// normalised linear blend), wrapping from the clip's last frame to its first when `loop` is
/// true and holding its ends otherwise. An MS3D, keyed in seconds, is evaluated at exactly
/// that time, so `seconds = 0` reaches its keys at 0.
///
/// Returns `SKELMAP_STATUS_OK`, or `SKELMAP_STATUS_NULL_PARAMETER` (`pose` or `model` is
/// NULL), `SKELMAP_STATUS_OUT_OF_RANGE` (`clip` ≥ `SkelmapCounts.frame_groups`), or
/// `SKELMAP_STATUS_INVALID_ARGUMENT` (`seconds` is NaN or infinite). On failure the pose is
/// left unsampled.
///
/// # Safety
///
/// `pose` is NULL or a live pose no other thread uses during the call; `model` is NULL or a
/// live model.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_pose_sample_clip(
    pose: Option<&mut SkelmapPose>,
    model: Option<&SkelmapModel>,
    clip: u32,
    seconds: f32,
    r#loop: bool,
) -> SkelmapStatus {
    status(|| {
        let pose = pose.ok_or(Fail::null("pose"))?;
        let model = model.ok_or(Fail::null("model"))?;
        let group = self::clip(model, clip)?;
        model
            .model
            .pose_clip(group, seconds, r#loop, Interpolation::Nlerp, &mut pose.pose)?;
        Ok(())
    })
}

/// The number of bone transforms the pose holds (0 before sampling, and for a pose sampled
/// from a vertex-animated MDL, HMP or Quake model).
///
/// Returns 0 when `pose` is NULL (`SKELMAP_STATUS_NULL_PARAMETER`).
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
/// Returns `SKELMAP_STATUS_OK`, or `SKELMAP_STATUS_NULL_PARAMETER` (`pose` or `out`), or
/// `SKELMAP_STATUS_OUT_OF_RANGE` (`bone` ≥ `skelmap_pose_bone_count`).
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
        // SAFETY: forwarded from this function's contract.
        unsafe { write_rows(&m, out) }
    })
}

/// The interpolation a C caller names (`SKELMAP_INTERPOLATION_*`).
pub(crate) fn interpolation(kind: u32) -> Result<Interpolation, Fail> {
    match kind {
        SKELMAP_INTERPOLATION_NLERP => Ok(Interpolation::Nlerp),
        SKELMAP_INTERPOLATION_SLERP => Ok(Interpolation::Slerp),
        other => Err(Fail::invalid(format!("unknown interpolation {other}"))),
    }
}

/// Frame group `clip` of `model`.
pub(crate) fn clip(model: &SkelmapModel, clip: u32) -> Result<&FrameGroup, Fail> {
    model
        .groups
        .get(clip as usize)
        .ok_or_else(|| Fail::out_of_range("frame group", clip, model.groups.len() as u64))
}

/// Writes `m` into `out` as a row-major 3×4 matrix (`out[4·r + c]`, the translation in
/// column 3).
///
/// # Safety
///
/// `out` is NULL (refused) or valid for writing 12 floats.
pub(crate) unsafe fn write_rows(m: &Affine3A, out: *mut f32) -> Result<(), Fail> {
    if out.is_null() {
        return Err(Fail::null("out"));
    }
    // SAFETY: non-NULL and writable for 12 floats by the caller's contract.
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
}
