//! A model's sampling context: `skelmap_local_pose_sample` again and again, the frames decoded
//! kept for the next calls.

use skelmap_core::model::Sampler;
use skelmap_core::pose::Interpolation;

use crate::boundary::{Fail, SkelmapStatus, status};
use crate::local::{SkelmapControls, SkelmapLocalPose, controls, sample_checked, skeletal};
use crate::model::SkelmapModel;
use crate::pose;

/// A sampling context for one model, as a game keeps one per playing character. Opaque to C;
/// created by `skelmap_sampler_new` and destroyed by `skelmap_sampler_free`.
#[derive(Debug)]
pub struct SkelmapSampler {
    model: &'static SkelmapModel,
    sampler: Sampler<'static, 'static>,
}

/// Creates a sampling context for `model` in `*out` (NULL on failure):
/// `skelmap_sampler_sample` gives `skelmap_local_pose_sample`'s poses, bit for bit, and keeps
/// the frames it decoded for the next calls, up to 64 KiB of poses unless
/// `skelmap_sampler_set_budget` says otherwise. Playing forward, a Half-Life model then
/// decodes each frame once, and a clip played again within the budget none; other formats
/// sample as `skelmap_local_pose_sample` does.
///
/// Returns `SKELMAP_STATUS_OK`, or `SKELMAP_STATUS_NULL_PARAMETER` (`model` or `out`).
///
/// # Safety
///
/// `model` is NULL or a live model that stays alive, and is not given to
/// `skelmap_model_set_framegroups`, until the sampler is freed; `out` is NULL or valid for
/// writing one pointer. A sampler may be used by one thread at a time.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_sampler_new(
    model: Option<&SkelmapModel>,
    out: Option<&mut *mut SkelmapSampler>,
) -> SkelmapStatus {
    status(|| {
        let model = model.ok_or(Fail::null("model"))?;
        let out = out.ok_or(Fail::null("out"))?;
        // SAFETY: this function's contract keeps the model alive, at its address and
        // unchanged, until the sampler is freed; the sampler is the only holder of the
        // lengthened reference and is dropped by `skelmap_sampler_free`.
        let model: &'static SkelmapModel = unsafe { &*std::ptr::from_ref(model) };
        *out = Box::into_raw(Box::new(SkelmapSampler {
            model,
            sampler: model.model.sampler(),
        }));
        Ok(())
    })
}

/// Frees a sampler. NULL is allowed and does nothing. Returns nothing; it cannot fail.
///
/// # Safety
///
/// `sampler` is NULL or a pointer from `skelmap_sampler_new` not freed before.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_sampler_free(sampler: *mut SkelmapSampler) {
    if !sampler.is_null() {
        let _ = status(|| {
            // SAFETY: the pointer came from Box::into_raw in skelmap_sampler_new, freed once.
            drop(unsafe { Box::from_raw(sampler) });
            Ok(())
        });
    }
}

/// Samples the sampler's model between frames `a` and `b` at `t` into `local`, as
/// `skelmap_local_pose_sample` samples them, or, once `skelmap_sampler_set_controls` was
/// called, as `skelmap_local_pose_sample_controlled` does with those controls.
///
/// Returns as `skelmap_local_pose_sample` does (`SKELMAP_STATUS_NULL_PARAMETER` for a NULL
/// `sampler` or `local`). On failure `local` is unchanged.
///
/// # Safety
///
/// `sampler` is NULL or a live sampler, and `local` NULL or a live local pose, that no other
/// thread uses during the call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_sampler_sample(
    sampler: Option<&mut SkelmapSampler>,
    local: Option<&mut SkelmapLocalPose>,
    a: u32,
    b: u32,
    t: f32,
    interpolation: u32,
) -> SkelmapStatus {
    status(|| {
        let SkelmapSampler { model, sampler } = sampler.ok_or(Fail::null("sampler"))?;
        sample_checked(
            local,
            Some(model),
            (a, b, t, interpolation),
            |_, (a, b, t), i, out| {
                sampler.sample(a, b, t, i, out);
            },
        )
    })
}

/// Samples frame group `clip` of the sampler's model `seconds` after the clip's start into
/// `local`, as `skelmap_local_pose_sample_clip` does (with controls set, its frames as
/// `skelmap_local_pose_sample_controlled` samples them), keeping the frames it decoded: a
/// character playing a clip.
///
/// Returns as `skelmap_local_pose_sample_clip` does (`SKELMAP_STATUS_NULL_PARAMETER` for a
/// NULL `sampler` or `local`). On failure `local` is unchanged.
///
/// # Safety
///
/// `sampler` is NULL or a live sampler, and `local` NULL or a live local pose, that no other
/// thread uses during the call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_sampler_sample_clip(
    sampler: Option<&mut SkelmapSampler>,
    local: Option<&mut SkelmapLocalPose>,
    clip: u32,
    seconds: f32,
    r#loop: bool,
) -> SkelmapStatus {
    status(|| {
        let SkelmapSampler { model, sampler } = sampler.ok_or(Fail::null("sampler"))?;
        let local = local.ok_or(Fail::null("local"))?;
        let group = pose::clip(model, clip)?;
        skeletal(model)?;
        let out = &mut local.local;
        sampler.sample_clip(group, seconds, r#loop, Interpolation::Nlerp, out)?;
        Ok(())
    })
}

/// From the next sample on, samples with the model's bone controllers set as `controls` says
/// (as `skelmap_local_pose_sample_controlled` does); other settings than before forget the
/// frames kept.
///
/// Returns `SKELMAP_STATUS_OK`, or `SKELMAP_STATUS_NULL_PARAMETER` (`sampler` or `controls`)
/// or `SKELMAP_STATUS_INVALID_ARGUMENT` (a value that is not finite; the sampler unchanged).
///
/// # Safety
///
/// `sampler` is NULL or a live sampler no other thread uses during the call; `controls` is
/// NULL or valid for reading a `SkelmapControls`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_sampler_set_controls(
    sampler: Option<&mut SkelmapSampler>,
    controls: Option<&SkelmapControls>,
) -> SkelmapStatus {
    status(|| {
        let sampler = sampler.ok_or(Fail::null("sampler"))?;
        sampler.sampler.set_controls(self::controls(controls)?);
        Ok(())
    })
}

/// Keeps at most `bytes` of decoded poses from the next frame the sampler decodes on: when
/// the frames a sample may decode would pass them, the frames kept but the one the sample
/// still needs are forgotten first. However small, it keeps the two runs of frames one
/// sample needs. Many characters playing at once may want less than the default 64 KiB each.
///
/// Returns `SKELMAP_STATUS_OK`, or `SKELMAP_STATUS_NULL_PARAMETER` (`sampler`).
///
/// # Safety
///
/// `sampler` is NULL or a live sampler no other thread uses during the call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_sampler_set_budget(
    sampler: Option<&mut SkelmapSampler>,
    bytes: usize,
) -> SkelmapStatus {
    status(|| {
        let sampler = sampler.ok_or(Fail::null("sampler"))?;
        sampler.sampler.set_budget(bytes);
        Ok(())
    })
}
