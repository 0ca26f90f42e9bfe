//! Blending local poses: weighted layers with bone masks (`skelmap_blend`), additive layers
//! (`skelmap_additive_difference`, `skelmap_blender_add`) and crossfade weights
//! (`skelmap_crossfade`), with ozz-animation's `BlendingJob` rule.

use std::mem::ManuallyDrop;

use skelmap_core::pose::LocalPose;
use skelmap_core::pose::blend::{self, Blender, Layer, Mask};

use crate::boundary::{Fail, SkelmapStatus, status};
use crate::local::SkelmapLocalPose;

/// `SkelmapLayer.mask`: the layer plays every bone.
pub const SKELMAP_MASK_ALL: u32 = 0;
/// `SkelmapLayer.mask`: the layer plays bones `first` to `last` inclusive (DarkPlaces'
/// `skel_build` range; `last` past the pose's end means "to the last bone") and no other.
pub const SKELMAP_MASK_RANGE: u32 = 1;
/// `SkelmapLayer.mask`: the layer plays bone `i` by `weights[i]` (ozz's joint weights,
/// clamped to 0..1, NaN as 0); bones from `weight_count` on are not played.
pub const SKELMAP_MASK_WEIGHTS: u32 = 2;

/// One pose in a blend, with its weight and the bones it plays.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct SkelmapLayer {
    /// The local pose played, of as many bones as the blend's rest pose.
    pub pose: *const SkelmapLocalPose,
    /// Its weight: finite; a weight of 0 or less contributes nothing to a blend, and a
    /// negative one takes an additive layer away (`skelmap_blender_add`).
    pub weight: f32,
    /// `SKELMAP_MASK_ALL`, `SKELMAP_MASK_RANGE` or `SKELMAP_MASK_WEIGHTS`.
    pub mask: u32,
    /// `SKELMAP_MASK_RANGE`: the first bone played.
    pub first: u32,
    /// `SKELMAP_MASK_RANGE`: the last bone played (inclusive).
    pub last: u32,
    /// `SKELMAP_MASK_WEIGHTS`: `weight_count` per-bone factors (NULL when `weight_count` is
    /// 0).
    pub weights: *const f32,
    /// `SKELMAP_MASK_WEIGHTS`: how many floats `weights` holds.
    pub weight_count: u32,
}

/// Blends local poses into one, reusing its memory from one frame to the next. Opaque to
/// C; created by `skelmap_blender_new`, destroyed by `skelmap_blender_free`. One blender
/// serves any number of blends in turn, of any skeleton, on one thread at a time.
#[derive(Debug, Default)]
pub struct SkelmapBlender {
    blender: Blender,
    /// The layers of the latest blend's call, kept empty between calls for their capacity.
    layers: Vec<Layer<'static>>,
}

/// Empties `layers` and keeps its capacity for layers of any lifetime.
fn recycle(layers: Vec<Layer<'_>>) -> Vec<Layer<'static>> {
    let mut layers = ManuallyDrop::new(layers);
    layers.clear();
    let (ptr, capacity) = (layers.as_mut_ptr(), layers.capacity());
    // SAFETY: the allocation came from a `Vec` of the same type up to lifetimes (one layout),
    // with this capacity; its length is 0, so no `Layer` with the shorter lifetime remains;
    // `ManuallyDrop` keeps the old `Vec` from freeing it.
    unsafe { Vec::from_raw_parts(ptr.cast::<Layer<'static>>(), 0, capacity) }
}

/// The Rust layer for C layer `layer`, after its pose was checked live and not `out`.
///
/// # Safety
///
/// `layer.pose` is a live local pose that no one changes while the result lives;
/// `layer.weights` is NULL or valid for reading `weight_count` floats for as long.
unsafe fn layer<'a>(
    layer: &SkelmapLayer,
    name: impl Fn() -> String,
    bones: usize,
) -> Result<Layer<'a>, Fail> {
    if layer.pose.is_null() {
        return Err(Fail::null(format!("{}.pose", name())));
    }
    if !layer.weight.is_finite() {
        return Err(Fail::invalid(format!(
            "{}.weight {} is not finite",
            name(),
            layer.weight
        )));
    }
    // SAFETY: non-NULL, live and unchanged while the result lives by the caller's contract.
    let pose: &'a SkelmapLocalPose = unsafe { &*layer.pose };
    if pose.bones() != bones {
        return Err(Fail::wrong_kind(format!(
            "{} has {} bones, the blend {bones}",
            name(),
            pose.bones()
        )));
    }
    let mask = match layer.mask {
        SKELMAP_MASK_ALL => Mask::All,
        SKELMAP_MASK_RANGE => {
            if layer.first > layer.last {
                return Err(Fail::invalid(format!(
                    "{} bone range {}..={} is reversed",
                    name(),
                    layer.first,
                    layer.last
                )));
            }
            Mask::Range {
                first: layer.first as usize,
                last: layer.last as usize,
            }
        }
        SKELMAP_MASK_WEIGHTS if layer.weight_count == 0 => Mask::Weights(&[]),
        SKELMAP_MASK_WEIGHTS if layer.weights.is_null() => {
            return Err(Fail::null(format!("{}.weights", name())));
        }
        SKELMAP_MASK_WEIGHTS => {
            // SAFETY: non-NULL and readable for `weight_count` floats, unchanged while the
            // result lives, by the caller's contract.
            let weights: &'a [f32] =
                unsafe { std::slice::from_raw_parts(layer.weights, layer.weight_count as usize) };
            Mask::Weights(weights)
        }
        other => {
            return Err(Fail::invalid(format!(
                "{}.mask {other} is not a SKELMAP_MASK_* value",
                name()
            )));
        }
    };
    Ok(Layer::new(&pose.local, layer.weight).masked(mask))
}

/// Refuses a NULL pointer, and a pose that the output pose also names (`name` is called
/// only to word the failure, so that a call that succeeds formats nothing).
fn distinct<T, S: std::fmt::Display>(
    p: *const T,
    out: *const SkelmapLocalPose,
    name: impl Fn() -> S,
) -> Result<(), Fail> {
    if p.is_null() {
        return Err(Fail::null(name().to_string()));
    }
    if std::ptr::eq(p.cast::<SkelmapLocalPose>(), out) {
        return Err(Fail::invalid(format!("{} is also the output pose", name())));
    }
    Ok(())
}

/// Creates a blender in `*out` (NULL on failure).
///
/// Returns `SKELMAP_STATUS_OK`, or `SKELMAP_STATUS_NULL_PARAMETER` (`out`).
///
/// # Safety
///
/// `out` is NULL or valid for writing one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_blender_new(
    out: Option<&mut *mut SkelmapBlender>,
) -> SkelmapStatus {
    status(|| {
        let out = out.ok_or(Fail::null("out"))?;
        *out = Box::into_raw(Box::<SkelmapBlender>::default());
        Ok(())
    })
}

/// Frees a blender. NULL is allowed and does nothing. Returns nothing; it cannot fail.
///
/// # Safety
///
/// `blender` is NULL or a pointer from `skelmap_blender_new` not freed before.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_blender_free(blender: *mut SkelmapBlender) {
    if !blender.is_null() {
        let _ = status(|| {
            // SAFETY: the pointer came from Box::into_raw in skelmap_blender_new, freed once.
            drop(unsafe { Box::from_raw(blender) });
            Ok(())
        });
    }
}

/// Blends `count` layers over the `rest` pose into `out`, with ozz-animation's
/// `BlendingJob` rule. Per bone, every layer contributes its weight times its mask's factor
/// of its rotation, translation and scale; rotations are summed in one hemisphere and
/// normalised (a normalised linear blend) and the sums divided by the bone's total weight,
/// so weights are relative: a walk layer at weight 1 on every bone beside a run layer at
/// weight 1 on bones 10 to 20 gives those bones half of each and every other bone the walk
/// alone. Where a bone's total weight is below
/// `threshold`, `rest` makes up the difference (a layer fading out fades into the rest
/// pose); a bone no layer plays holds its rest pose. `out` gets as many bones as `rest`.
/// After the first call with as many layers on a skeleton, it allocates nothing.
///
/// Returns `SKELMAP_STATUS_OK`, or `SKELMAP_STATUS_NULL_PARAMETER` (`blender`, `rest`,
/// `out`, `layers` with `count > 0`, a layer's `pose`, or its `weights` with
/// `weight_count > 0`), `SKELMAP_STATUS_INVALID_ARGUMENT` (`threshold` negative or not
/// finite, a `count` no array can hold, a layer's weight not finite, an unknown `mask`, a
/// range with `first > last`, `rest` never sampled, or `out` also `rest` or a layer's pose) or
/// `SKELMAP_STATUS_WRONG_KIND` (a layer of another number of bones than `rest`). On failure
/// `out` is unchanged.
///
/// # Safety
///
/// `blender` is NULL or a live blender; `rest` and every layer's `pose` are NULL or live
/// local poses, and `out` NULL or a live local pose; `layers` is NULL or valid for reading
/// `count` layers, each `weights` NULL or valid for reading `weight_count` floats. None of
/// them is used by another thread during the call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_blend(
    blender: Option<&mut SkelmapBlender>,
    rest: *const SkelmapLocalPose,
    layers: *const SkelmapLayer,
    count: usize,
    threshold: f32,
    out: *mut SkelmapLocalPose,
) -> SkelmapStatus {
    status(|| {
        let blender = blender.ok_or(Fail::null("blender"))?;
        if out.is_null() {
            return Err(Fail::null("out"));
        }
        distinct(rest, out, || "rest")?;
        if layers.is_null() && count > 0 {
            return Err(Fail::null("layers"));
        }
        if count > isize::MAX as usize / size_of::<SkelmapLayer>() {
            return Err(Fail::invalid(format!("{count} layers cannot be in memory")));
        }
        if !(threshold.is_finite() && threshold >= 0.0) {
            return Err(Fail::invalid(format!(
                "threshold {threshold} is not finite and non-negative"
            )));
        }
        let c_layers: &[SkelmapLayer] = if count == 0 {
            &[]
        } else {
            // SAFETY: non-NULL and readable for `count` layers by the caller's contract.
            unsafe { std::slice::from_raw_parts(layers, count) }
        };
        for (i, l) in c_layers.iter().enumerate() {
            distinct(l.pose, out, || format!("layers[{i}].pose"))?;
        }
        // SAFETY: live by the caller's contract and not `out` (checked above): the only
        // exclusive reference made here is to `out`.
        let rest: &SkelmapLocalPose = unsafe { &*rest };
        if rest.bones() == 0 {
            return Err(Fail::invalid("rest has no bones: it was never sampled"));
        }
        let mut rust_layers: Vec<Layer<'_>> = std::mem::take(&mut blender.layers);
        let made = c_layers.iter().enumerate().try_for_each(|(i, l)| {
            // SAFETY: each pose was checked non-NULL and not `out`; it and its weights are
            // live and unchanged during the call by the caller's contract, and the layers
            // are dropped (recycled empty) before it returns.
            rust_layers.push(unsafe { layer(l, || format!("layers[{i}]"), rest.bones()) }?);
            Ok(())
        });
        if made.is_ok() {
            // SAFETY: live by the caller's contract, and distinct from `rest` and every
            // layer's pose (checked above), so no shared reference aliases it.
            let out: &mut SkelmapLocalPose = unsafe { &mut *out };
            blender
                .blender
                .blend(&rest.local, &rust_layers, threshold, &mut out.local);
        }
        blender.layers = recycle(rust_layers);
        made
    })
}

/// Adds the additive layer `layer` (a pose made by `skelmap_additive_difference`) onto
/// `pose`, with the layer's weight `w` times its mask's factor: each bone turned by
/// `nlerp(identity, Δq, |w|)` after its own rotation, moved by `w·Δt` and scaled by
/// `lerp(1, Δs, |w|)`; a negative weight applies the inverse turn and divides by the scale
/// (ozz's subtractive layers). At weight 1 on the reference pose it gives the clip's pose.
///
/// Returns `SKELMAP_STATUS_OK`, or `SKELMAP_STATUS_NULL_PARAMETER` (`blender`, `layer`,
/// `pose`, the layer's `pose`, or its `weights` with `weight_count > 0`),
/// `SKELMAP_STATUS_INVALID_ARGUMENT` (the layer's weight not finite, an unknown mask, a
/// reversed range, or the layer's pose also `pose`) or `SKELMAP_STATUS_WRONG_KIND` (the
/// layer of another number of bones than `pose`). On failure `pose` is unchanged.
///
/// # Safety
///
/// `blender` is NULL or a live blender; `layer` is NULL or valid for reading a
/// `SkelmapLayer` whose `pose` is NULL or a live local pose and whose `weights` is NULL or
/// valid for reading `weight_count` floats; `pose` is NULL or a live local pose. None of
/// them is used by another thread during the call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_blender_add(
    blender: Option<&SkelmapBlender>,
    layer: Option<&SkelmapLayer>,
    pose: *mut SkelmapLocalPose,
) -> SkelmapStatus {
    status(|| {
        let blender = blender.ok_or(Fail::null("blender"))?;
        let c_layer = layer.ok_or(Fail::null("layer"))?;
        if pose.is_null() {
            return Err(Fail::null("pose"));
        }
        distinct(c_layer.pose, pose, || "layer.pose")?;
        // SAFETY: live by the caller's contract, and not the layer's pose (checked above).
        let pose: &mut SkelmapLocalPose = unsafe { &mut *pose };
        // SAFETY: the layer's pose is checked non-NULL and not `pose`; it and its weights
        // are live and unchanged during the call by the caller's contract.
        let layer = unsafe { self::layer(c_layer, || "layer".into(), pose.bones()) }?;
        blender.blender.add(&layer, &mut pose.local);
        Ok(())
    })
}

/// Writes the additive difference of `pose` from `reference` into `out`: per bone
/// `Δq = q_ref⁻¹ · q`, `Δt = t − t_ref` and `Δs = s / s_ref` (ozz's additive animation), the
/// layer `skelmap_blender_add` adds. The reference is typically the clip's first frame.
///
/// Returns `SKELMAP_STATUS_OK`, or `SKELMAP_STATUS_NULL_PARAMETER` (`pose`, `reference` or
/// `out`), `SKELMAP_STATUS_INVALID_ARGUMENT` (`out` also `pose` or `reference`, or `pose`
/// never sampled) or `SKELMAP_STATUS_WRONG_KIND` (`pose` and `reference` of different
/// numbers of bones). On failure `out` is unchanged.
///
/// # Safety
///
/// `pose`, `reference` and `out` are NULL or live local poses no other thread uses during
/// the call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_additive_difference(
    pose: *const SkelmapLocalPose,
    reference: *const SkelmapLocalPose,
    out: *mut SkelmapLocalPose,
) -> SkelmapStatus {
    status(|| {
        if out.is_null() {
            return Err(Fail::null("out"));
        }
        distinct(pose, out, || "pose")?;
        distinct(reference, out, || "reference")?;
        // SAFETY: live by the caller's contract and not `out` (checked above).
        let (pose, reference): (&LocalPose, &LocalPose) =
            unsafe { (&(*pose).local, &(*reference).local) };
        if pose.bones.is_empty() {
            return Err(Fail::invalid("pose has no bones: it was never sampled"));
        }
        if pose.bones.len() != reference.bones.len() {
            return Err(Fail::wrong_kind(format!(
                "pose has {} bones, reference {}",
                pose.bones.len(),
                reference.bones.len()
            )));
        }
        // SAFETY: live by the caller's contract, distinct from `pose` and `reference`.
        let out: &mut SkelmapLocalPose = unsafe { &mut *out };
        blend::additive_difference(pose, reference, &mut out.local);
        Ok(())
    })
}

/// The two layer weights of a crossfade from one clip to another over `duration` seconds,
/// `time` seconds after it began: `*from = 1 − u` and `*to = u`, `u = time / duration`
/// clamped to 0..1 (a `duration` of 0 gives the second clip at once: 0 and 1).
///
/// Returns `SKELMAP_STATUS_OK`, or `SKELMAP_STATUS_NULL_PARAMETER` (`from` or `to`) or
/// `SKELMAP_STATUS_INVALID_ARGUMENT` (`time` not finite, `duration` negative or not
/// finite).
///
/// # Safety
///
/// `from` and `to` are NULL or valid for writing a float each.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_crossfade(
    time: f32,
    duration: f32,
    from: Option<&mut f32>,
    to: Option<&mut f32>,
) -> SkelmapStatus {
    status(|| {
        let from = from.ok_or(Fail::null("from"))?;
        let to = to.ok_or(Fail::null("to"))?;
        if !time.is_finite() {
            return Err(Fail::invalid(format!("time {time} is not finite")));
        }
        if !(duration.is_finite() && duration >= 0.0) {
            return Err(Fail::invalid(format!(
                "duration {duration} is not finite and non-negative"
            )));
        }
        (*from, *to) = blend::crossfade(time, duration);
        Ok(())
    })
}
