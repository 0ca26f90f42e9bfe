//! The local-pose object: a skeleton's parent-relative bone transforms, sampled from clips,
//! blended (`blend`), changed bone by bone and by inverse kinematics, then turned into a
//! `SkelmapPose` (`skelmap_pose_from_local`) to skin and to place attachments.

use skelmap_core::Model;
use skelmap_core::glam::{Affine3A, Mat3, Vec3A};
use skelmap_core::model::View;
use skelmap_core::pose::{AimIk, ControlError, Interpolation, LocalPose, Palette, TwoBoneIk};

use crate::boundary::{Fail, SkelmapStatus, status, value};
use crate::model::SkelmapModel;
use crate::pose::{self, SkelmapPose, write_rows};

/// A local pose: per bone a rotation, a translation and (IQM) a scale, relative to the
/// bone's parent. Opaque to C; created by `skelmap_local_pose_new`, filled by
/// `skelmap_local_pose_sample_clip`, `_sample`, `_bind`, `_copy` or `skelmap_blend`,
/// destroyed by `skelmap_local_pose_free`. Like a `SkelmapPose` it belongs to no model;
/// the calls that need the skeleton (model-space changes, IK, `skelmap_pose_from_local`)
/// take the model and refuse a pose of another number of bones.
#[derive(Debug, Default)]
pub struct SkelmapLocalPose {
    pub(crate) local: LocalPose,
    /// Scratch: the model-space transforms the model-space changes and the IK read.
    palette: Palette,
}

impl SkelmapLocalPose {
    /// The bones sampled so far.
    pub(crate) fn bones(&self) -> usize {
        self.local.bones.len()
    }

    /// Refuses a pose that is not one of `model`'s skeleton.
    fn check_skeleton(&self, model: &SkelmapModel) -> Result<(), Fail> {
        let bones = model.model.num_bones();
        if self.bones() != bones {
            return Err(Fail::wrong_kind(format!(
                "a local pose of {} bones is not one of this {:?} model's {bones}",
                self.bones(),
                model.format()
            )));
        }
        Ok(())
    }

    /// The model-space transforms of the pose on `model`'s skeleton, into the scratch
    /// palette.
    fn model_space(&mut self, model: &SkelmapModel) -> Result<(), Fail> {
        self.check_skeleton(model)?;
        model.model.palette(&self.local, &mut self.palette);
        Ok(())
    }

    /// The model-space transform of `bone` after [`SkelmapLocalPose::model_space`].
    fn world(&self, bone: u32, what: &str) -> Result<Affine3A, Fail> {
        self.palette
            .world
            .get(bone as usize)
            .copied()
            .ok_or_else(|| Fail::out_of_range(what, bone, self.palette.world.len() as u64))
    }
}

/// Refuses a model without bones, whose frames a local pose cannot hold.
pub(crate) fn skeletal(model: &SkelmapModel) -> Result<(), Fail> {
    if model.model.num_bones() == 0 {
        return Err(Fail::wrong_kind(format!(
            "{:?} models have no bones: they have no local pose",
            model.format()
        )));
    }
    Ok(())
}

/// Reads a row-major 3×4 matrix (`m[4·r + c]`, the translation in column 3).
///
/// # Safety
///
/// `m` is NULL (refused) or valid for reading 12 floats.
pub(crate) unsafe fn read_rows(m: *const f32, parameter: &'static str) -> Result<Affine3A, Fail> {
    if m.is_null() {
        return Err(Fail::null(parameter));
    }
    // SAFETY: non-NULL and readable for 12 floats by the caller's contract.
    let m = unsafe { std::slice::from_raw_parts(m, 12) };
    let column = |c: usize| Vec3A::new(m[c], m[4 + c], m[8 + c]);
    Ok(Affine3A::from_cols(
        column(0),
        column(1),
        column(2),
        column(3),
    ))
}

/// A C vector as a Rust one, refusing NaN and infinities.
fn vector(v: [f32; 3], field: &str) -> Result<Vec3A, Fail> {
    let v = Vec3A::from_array(v);
    if !v.is_finite() {
        return Err(Fail::invalid(format!("{field} is not finite")));
    }
    Ok(v)
}

/// A C scalar, refusing NaN and infinities.
fn finite(x: f32, field: &str) -> Result<f32, Fail> {
    if !x.is_finite() {
        return Err(Fail::invalid(format!("{field} is not finite")));
    }
    Ok(x)
}

/// The body of the parent-space changes: `local` and the matrix `m` checked, then `apply`.
///
/// # Safety
///
/// `m` is NULL (refused) or valid for reading 12 floats.
unsafe fn change<E>(
    local: Option<&mut SkelmapLocalPose>,
    m: *const f32,
    apply: impl FnOnce(&mut LocalPose, Affine3A) -> Result<(), E>,
) -> SkelmapStatus
where
    Fail: From<E>,
{
    status(|| {
        let local = local.ok_or(Fail::null("local"))?;
        // SAFETY: forwarded from this function's contract.
        let m = unsafe { read_rows(m, "m") }?;
        Ok(apply(&mut local.local, m)?)
    })
}

/// The body of the model-space changes: the arguments checked, the pose's model-space
/// transforms computed on `model`'s skeleton, then `apply` with them.
///
/// # Safety
///
/// `m` is NULL (refused) or valid for reading 12 floats.
unsafe fn change_model(
    local: Option<&mut SkelmapLocalPose>,
    model: Option<&SkelmapModel>,
    m: *const f32,
    parameter: &'static str,
    apply: impl FnOnce(&mut LocalPose, &View<'_>, &Palette, Affine3A) -> Result<(), ControlError>,
) -> SkelmapStatus {
    status(|| {
        let local = local.ok_or(Fail::null("local"))?;
        let model = model.ok_or(Fail::null("model"))?;
        // SAFETY: forwarded from this function's contract.
        let m = unsafe { read_rows(m, parameter) }?;
        local.model_space(model)?;
        let SkelmapLocalPose { local, palette } = local;
        Ok(apply(local, model.model.view(), palette, m)?)
    })
}

/// Creates an empty local pose (no bones) in `*out` (NULL on failure).
///
/// Returns `SKELMAP_STATUS_OK`, or `SKELMAP_STATUS_NULL_PARAMETER` (`out`).
///
/// # Safety
///
/// `out` is NULL or valid for writing one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_local_pose_new(
    out: Option<&mut *mut SkelmapLocalPose>,
) -> SkelmapStatus {
    status(|| {
        let out = out.ok_or(Fail::null("out"))?;
        *out = Box::into_raw(Box::<SkelmapLocalPose>::default());
        Ok(())
    })
}

/// Frees a local pose. NULL is allowed and does nothing. Returns nothing; it cannot fail.
///
/// # Safety
///
/// `local` is NULL or a pointer from `skelmap_local_pose_new` not freed before.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_local_pose_free(local: *mut SkelmapLocalPose) {
    if !local.is_null() {
        let _ = status(|| {
            // SAFETY: the pointer came from Box::into_raw in skelmap_local_pose_new, freed
            // once.
            drop(unsafe { Box::from_raw(local) });
            Ok(())
        });
    }
}

/// Samples frame group `clip` of `model` `seconds` after the clip's start into `local`,
/// timed as `skelmap_pose_sample_clip` times it (wrapping when `loop` is true, holding the
/// ends otherwise), without building world transforms: a layer for `skelmap_blend`. After
/// the first call on a model's skeleton it allocates nothing.
///
/// Returns `SKELMAP_STATUS_OK`, or `SKELMAP_STATUS_NULL_PARAMETER` (`local` or `model`),
/// `SKELMAP_STATUS_OUT_OF_RANGE` (`clip` ≥ `SkelmapCounts.frame_groups`),
/// `SKELMAP_STATUS_INVALID_ARGUMENT` (`seconds` is NaN or infinite) or
/// `SKELMAP_STATUS_WRONG_KIND` (a model without bones: MDL, HMP, Quake, MD3…). On failure
/// `local` is unchanged.
///
/// # Safety
///
/// `local` is NULL or a live local pose no other thread uses during the call; `model` is
/// NULL or a live model.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_local_pose_sample_clip(
    local: Option<&mut SkelmapLocalPose>,
    model: Option<&SkelmapModel>,
    clip: u32,
    seconds: f32,
    r#loop: bool,
) -> SkelmapStatus {
    status(|| {
        let local = local.ok_or(Fail::null("local"))?;
        let model = model.ok_or(Fail::null("model"))?;
        let group = pose::clip(model, clip)?;
        skeletal(model)?;
        model.model.sample_clip(
            group,
            seconds,
            r#loop,
            skelmap_core::pose::Interpolation::Nlerp,
            &mut local.local,
        )?;
        Ok(())
    })
}

/// Samples `model` between frames `a` and `b` at `t` (0 = `a`, 1 = `b`) into `local`, as
/// `skelmap_pose_sample` samples them (`interpolation`: `SKELMAP_INTERPOLATION_NLERP` or
/// `_SLERP`), without building world transforms.
///
/// Returns `SKELMAP_STATUS_OK`, or `SKELMAP_STATUS_NULL_PARAMETER` (`local` or `model`),
/// `SKELMAP_STATUS_OUT_OF_RANGE` (a frame ≥ `SkelmapCounts.frames`),
/// `SKELMAP_STATUS_INVALID_ARGUMENT` (an unknown `interpolation`, a `t` that is not finite)
/// or `SKELMAP_STATUS_WRONG_KIND` (a model without bones). On failure `local` is unchanged.
///
/// # Safety
///
/// `local` is NULL or a live local pose no other thread uses during the call; `model` is
/// NULL or a live model.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_local_pose_sample(
    local: Option<&mut SkelmapLocalPose>,
    model: Option<&SkelmapModel>,
    a: u32,
    b: u32,
    t: f32,
    interpolation: u32,
) -> SkelmapStatus {
    status(|| sample_frames(local, model, (a, b, t, interpolation), None))
}

/// The body of `skelmap_local_pose_sample` and `_sample_controlled`: every argument checked,
/// then `model` sampled into `local`, with its controllers set where `controls` is given.
fn sample_frames(
    local: Option<&mut SkelmapLocalPose>,
    model: Option<&SkelmapModel>,
    frames: (u32, u32, f32, u32),
    controls: Option<&skelmap_core::hl1::Controls>,
) -> Result<(), Fail> {
    sample_checked(
        local,
        model,
        frames,
        |model, (a, b, t), interpolation, out| match controls {
            Some(controls) => model.sample_controlled(a, b, t, interpolation, controls, out),
            None => model.sample(a, b, t, interpolation, out),
        },
    )
}

/// Every argument of a sample of frames `a` and `b` at `t` checked (`local` and `model` not
/// NULL, the interpolation known, `t` finite, both frames in range, the model skeletal),
/// then `sample` run with them into `local`'s pose.
pub(crate) fn sample_checked(
    local: Option<&mut SkelmapLocalPose>,
    model: Option<&SkelmapModel>,
    (a, b, t, interpolation): (u32, u32, f32, u32),
    sample: impl FnOnce(&Model<'static>, (usize, usize, f32), Interpolation, &mut LocalPose),
) -> Result<(), Fail> {
    let local = local.ok_or(Fail::null("local"))?;
    let model = model.ok_or(Fail::null("model"))?;
    let interpolation = pose::interpolation(interpolation)?;
    let t = finite(t, "t")?;
    let frames = model.frame_count();
    if let Some(&frame) = [a, b].iter().find(|&&f| f >= frames) {
        return Err(Fail::out_of_range("frame", frame, u64::from(frames)));
    }
    skeletal(model)?;
    let frames = (a as usize, b as usize, t);
    sample(&model.model, frames, interpolation, &mut local.local);
    Ok(())
}

/// `controls` as the core takes them: NULL and values that are not finite refused.
pub(crate) fn controls(
    controls: Option<&SkelmapControls>,
) -> Result<skelmap_core::hl1::Controls, Fail> {
    let controls = controls.ok_or(Fail::null("controls"))?;
    for &v in &controls.values {
        finite(v, "a control value")?;
    }
    Ok(skelmap_core::hl1::Controls {
        values: controls.values,
    })
}

/// How a model's bone controllers are set, for `skelmap_local_pose_sample_controlled`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SkelmapControls {
    /// Per controller slot (`SkelmapController.index`): 0–3 the entity's four controllers, 4
    /// the mouth; each in its controller's units (degrees for a turn, units for a move),
    /// clamped to its range, or wrapped into it for a turn that wraps. All zeros is what
    /// games set at spawn.
    pub values: [f32; 5],
}

/// `skelmap_local_pose_sample` with `model`'s bone controllers set as `controls` says: a
/// Half-Life model's channels adjusted as the game's renderer adjusts them. For a model
/// without controllers (`SkelmapCounts.controllers` 0) the same as `skelmap_local_pose_sample`.
///
/// Returns as `skelmap_local_pose_sample` does, and `SKELMAP_STATUS_NULL_PARAMETER` for a
/// NULL `controls`, `SKELMAP_STATUS_INVALID_ARGUMENT` for a value that is not finite. On
/// failure `local` is unchanged.
///
/// # Safety
///
/// `local` is NULL or a live local pose no other thread uses during the call; `model` is
/// NULL or a live model; `controls` is NULL or valid for reading a `SkelmapControls`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_local_pose_sample_controlled(
    local: Option<&mut SkelmapLocalPose>,
    model: Option<&SkelmapModel>,
    a: u32,
    b: u32,
    t: f32,
    interpolation: u32,
    controls: Option<&SkelmapControls>,
) -> SkelmapStatus {
    status(|| {
        let controls = self::controls(controls)?;
        sample_frames(local, model, (a, b, t, interpolation), Some(&controls))
    })
}

/// Sets `local` to `model`'s rest (bind) pose, as `skelmap_pose_bind` poses it: the pose a
/// blend falls back on where its layers' weights fall short (`skelmap_blend`'s `rest`).
///
/// Returns `SKELMAP_STATUS_OK`, or `SKELMAP_STATUS_NULL_PARAMETER` (`local` or `model`) or
/// `SKELMAP_STATUS_WRONG_KIND` (a model without bones).
///
/// # Safety
///
/// `local` is NULL or a live local pose no other thread uses during the call; `model` is
/// NULL or a live model.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_local_pose_bind(
    local: Option<&mut SkelmapLocalPose>,
    model: Option<&SkelmapModel>,
) -> SkelmapStatus {
    status(|| {
        let local = local.ok_or(Fail::null("local"))?;
        let model = model.ok_or(Fail::null("model"))?;
        skeletal(model)?;
        model.model.bind_pose(&mut local.local);
        Ok(())
    })
}

/// Copies `from`'s bones into `to` (DarkPlaces' `skel_copybones` of every bone), reusing
/// `to`'s memory.
///
/// Returns `SKELMAP_STATUS_OK`, or `SKELMAP_STATUS_NULL_PARAMETER` (`to` or `from`), or
/// `SKELMAP_STATUS_INVALID_ARGUMENT` (`to` and `from` are the same pose).
///
/// # Safety
///
/// `to` is NULL or a live local pose and `from` NULL or a live local pose, neither used by
/// another thread during the call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_local_pose_copy(
    to: *mut SkelmapLocalPose,
    from: *const SkelmapLocalPose,
) -> SkelmapStatus {
    status(|| {
        if to.is_null() {
            return Err(Fail::null("to"));
        }
        if from.is_null() {
            return Err(Fail::null("from"));
        }
        if std::ptr::eq(to, from) {
            return Err(Fail::invalid("to and from are the same local pose"));
        }
        // SAFETY: both live by the caller's contract and distinct (checked above), so the
        // exclusive and the shared reference do not alias.
        let (to, from) = unsafe { (&mut *to, &*from) };
        to.local.bones.clone_from(&from.local.bones);
        to.local.scales.clone_from(&from.local.scales);
        to.local.skin_scales.clone_from(&from.local.skin_scales);
        Ok(())
    })
}

/// The number of bones `local` holds (0 before it is sampled).
///
/// Returns 0 when `local` is NULL (`SKELMAP_STATUS_NULL_PARAMETER`).
///
/// # Safety
///
/// `local` is NULL or a live local pose.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_local_pose_bone_count(local: Option<&SkelmapLocalPose>) -> u32 {
    value(0, || Ok(local.ok_or(Fail::null("local"))?.bones() as u32))
}

/// Writes bone `bone`'s transform relative to its parent (scale, then rotation, then
/// translation) into `out` as a row-major 3×4 matrix (`out[4·r + c]`, the translation in
/// column 3), as DarkPlaces' `skel_get_bonerel` reads it.
///
/// Returns `SKELMAP_STATUS_OK`, or `SKELMAP_STATUS_NULL_PARAMETER` (`local` or `out`), or
/// `SKELMAP_STATUS_OUT_OF_RANGE` (`bone` ≥ `skelmap_local_pose_bone_count`).
///
/// # Safety
///
/// `local` is NULL or a live local pose; `out` is NULL or valid for writing 12 floats.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_local_pose_bone(
    local: Option<&SkelmapLocalPose>,
    bone: u32,
    out: *mut f32,
) -> SkelmapStatus {
    status(|| {
        let local = local.ok_or(Fail::null("local"))?;
        if bone as usize >= local.bones() {
            return Err(Fail::out_of_range("bone", bone, local.bones() as u64));
        }
        // SAFETY: forwarded from this function's contract.
        unsafe { write_rows(&local.local.bone_matrix(bone as usize), out) }
    })
}

/// Sets bone `bone`'s transform relative to its parent to the row-major 3×4 matrix `m`
/// (DarkPlaces' `skel_set_bone`). It is stored as a rotation, a translation and, when it
/// scales, a scale (the pose then keeps a scale per bone: the one allocation this can make);
/// a matrix with shear keeps its nearest rotation and scale.
///
/// Returns `SKELMAP_STATUS_OK`, or `SKELMAP_STATUS_NULL_PARAMETER` (`local` or `m`),
/// `SKELMAP_STATUS_OUT_OF_RANGE` (`bone` ≥ `skelmap_local_pose_bone_count`) or
/// `SKELMAP_STATUS_INVALID_ARGUMENT` (`m` has a NaN or infinite element). On failure the
/// pose is unchanged.
///
/// # Safety
///
/// `local` is NULL or a live local pose no other thread uses during the call; `m` is NULL
/// or valid for reading 12 floats.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_local_pose_set_bone(
    local: Option<&mut SkelmapLocalPose>,
    bone: u32,
    m: *const f32,
) -> SkelmapStatus {
    // SAFETY: forwarded from this function's contract.
    unsafe { change(local, m, |local, m| local.set_bone(bone as usize, m)) }
}

/// Applies the row-major 3×4 matrix `m` to bone `bone`'s transform, in its parent's space:
/// `local ← m · local` (DarkPlaces' `skel_mul_bone`; a turn about the bone's own origin is
/// a rotation `R` with the translation `t − R·t`, `t` the bone's translation).
///
/// Returns as `skelmap_local_pose_set_bone`.
///
/// # Safety
///
/// As `skelmap_local_pose_set_bone`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_local_pose_mul_bone(
    local: Option<&mut SkelmapLocalPose>,
    bone: u32,
    m: *const f32,
) -> SkelmapStatus {
    // SAFETY: forwarded from this function's contract.
    unsafe { change(local, m, |local, m| local.mul_bone(bone as usize, m)) }
}

/// `skelmap_local_pose_mul_bone` for every bone from `first` to `last` inclusive
/// (DarkPlaces' `skel_mul_bones`): bones past the pose's end are skipped, as DarkPlaces
/// clamps the range, so `last = UINT32_MAX` means "to the last bone".
///
/// Returns `SKELMAP_STATUS_OK`, or `SKELMAP_STATUS_NULL_PARAMETER` (`local` or `m`),
/// `SKELMAP_STATUS_OUT_OF_RANGE` (`first` ≥ `skelmap_local_pose_bone_count`) or
/// `SKELMAP_STATUS_INVALID_ARGUMENT` (`first > last`, or `m` has a NaN or infinite
/// element). On failure the pose is unchanged.
///
/// # Safety
///
/// As `skelmap_local_pose_set_bone`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_local_pose_mul_bones(
    local: Option<&mut SkelmapLocalPose>,
    first: u32,
    last: u32,
    m: *const f32,
) -> SkelmapStatus {
    let bones = |local: &mut LocalPose, m| {
        if first > last {
            return Err(Fail::invalid(format!(
                "bone range {first}..={last} is reversed"
            )));
        }
        if first as usize >= local.bones.len() {
            return Err(Fail::out_of_range("bone", first, local.bones.len() as u64));
        }
        Ok(local.mul_bones(first as usize, last as usize, m)?)
    };
    // SAFETY: forwarded from this function's contract.
    unsafe { change(local, m, bones) }
}

/// Sets bone `bone`'s model-space transform to the row-major 3×4 matrix `world`: its local
/// transform becomes `parent_world⁻¹ · world`, the parent's model-space transform computed
/// from `local` on `model`'s skeleton.
///
/// Returns `SKELMAP_STATUS_OK`, or `SKELMAP_STATUS_NULL_PARAMETER` (`local`, `model` or
/// `world`), `SKELMAP_STATUS_OUT_OF_RANGE` (`bone` ≥ `skelmap_local_pose_bone_count`),
/// `SKELMAP_STATUS_INVALID_ARGUMENT` (`world` has a NaN or infinite element) or
/// `SKELMAP_STATUS_WRONG_KIND` (`local` does not have `model`'s number of bones). On failure
/// the pose is unchanged.
///
/// # Safety
///
/// `local` is NULL or a live local pose no other thread uses during the call; `model` is
/// NULL or a live model; `world` is NULL or valid for reading 12 floats.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_local_pose_set_bone_model(
    local: Option<&mut SkelmapLocalPose>,
    model: Option<&SkelmapModel>,
    bone: u32,
    world: *const f32,
) -> SkelmapStatus {
    // SAFETY: forwarded from this function's contract.
    unsafe {
        change_model(
            local,
            model,
            world,
            "world",
            |local, skeleton, palette, m| local.set_bone_model(skeleton, palette, bone as usize, m),
        )
    }
}

/// Applies the row-major 3×4 matrix `m` to bone `bone`'s model-space transform: it becomes
/// `m · world` (a head turned about the model's up axis), its local transform
/// `parent_world⁻¹ · m · world`, both computed from `local` on `model`'s skeleton.
///
/// Returns as `skelmap_local_pose_set_bone_model` (`m` for `world`).
///
/// # Safety
///
/// As `skelmap_local_pose_set_bone_model`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_local_pose_mul_bone_model(
    local: Option<&mut SkelmapLocalPose>,
    model: Option<&SkelmapModel>,
    bone: u32,
    m: *const f32,
) -> SkelmapStatus {
    // SAFETY: forwarded from this function's contract.
    unsafe {
        change_model(local, model, m, "m", |local, skeleton, palette, m| {
            local.mul_bone_model(skeleton, palette, bone as usize, m)
        })
    }
}

/// A two-bone IK request, ozz-animation's `IKTwoBoneJob`: turn a chain (start, middle and
/// end joints) so that the end joint reaches `target`. Vectors are `{x, y, z}`; fill the
/// defaults with `skelmap_two_bone_ik_default`, then set `target` (and `mid_axis`, the
/// bending axis of the middle joint in its own space, for the skeleton at hand).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SkelmapTwoBoneIk {
    /// Where the end joint should be, in model space.
    pub target: [f32; 3],
    /// The middle joint's bending axis, in its own space (normalised; a zero axis makes no
    /// correction). A positive turn about it opens the angle between the two bones.
    pub mid_axis: [f32; 3],
    /// The direction the middle joint should point to, in model space.
    pub pole_vector: [f32; 3],
    /// A further turn of the chain about the start-to-target line, in radians.
    pub twist_angle: f32,
    /// The fraction of the chain's length from which the end joint lags a receding target
    /// so that the chain straightens smoothly, clamped to 0..1 (1: never).
    pub soften: f32,
    /// How much of the correction is applied, clamped to 0..1.
    pub weight: f32,
}

impl From<TwoBoneIk> for SkelmapTwoBoneIk {
    fn from(ik: TwoBoneIk) -> Self {
        SkelmapTwoBoneIk {
            target: ik.target.to_array(),
            mid_axis: ik.mid_axis.to_array(),
            pole_vector: ik.pole_vector.to_array(),
            twist_angle: ik.twist_angle,
            soften: ik.soften,
            weight: ik.weight,
        }
    }
}

impl SkelmapTwoBoneIk {
    /// The Rust request, refusing a field that is NaN or infinite.
    fn to_rust(self) -> Result<TwoBoneIk, Fail> {
        Ok(TwoBoneIk {
            target: vector(self.target, "ik.target")?,
            mid_axis: vector(self.mid_axis, "ik.mid_axis")?,
            pole_vector: vector(self.pole_vector, "ik.pole_vector")?,
            twist_angle: finite(self.twist_angle, "ik.twist_angle")?,
            soften: finite(self.soften, "ik.soften")?,
            weight: finite(self.weight, "ik.weight")?,
        })
    }
}

/// An aim IK request, ozz-animation's `IKAimJob`: turn one joint so that its `forward`
/// axis, shifted by `offset`, points at `target` and its `up` axis leans toward
/// `pole_vector` (a head looking at something, a gun aimed along an offset barrel). Fill the
/// defaults with `skelmap_aim_ik_default`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SkelmapAimIk {
    /// What to aim at, in model space.
    pub target: [f32; 3],
    /// The joint's aiming axis, in its own space (normalised).
    pub forward: [f32; 3],
    /// Where the aim starts from, relative to the joint, in its space.
    pub offset: [f32; 3],
    /// The joint's up axis, in its space.
    pub up: [f32; 3],
    /// The direction the up axis should lean to, in model space.
    pub pole_vector: [f32; 3],
    /// A further turn about the joint-to-target line, in radians.
    pub twist_angle: f32,
    /// How much of the correction is applied, clamped to 0..1.
    pub weight: f32,
}

impl From<AimIk> for SkelmapAimIk {
    fn from(ik: AimIk) -> Self {
        SkelmapAimIk {
            target: ik.target.to_array(),
            forward: ik.forward.to_array(),
            offset: ik.offset.to_array(),
            up: ik.up.to_array(),
            pole_vector: ik.pole_vector.to_array(),
            twist_angle: ik.twist_angle,
            weight: ik.weight,
        }
    }
}

impl SkelmapAimIk {
    /// The Rust request, refusing a field that is NaN or infinite.
    fn to_rust(self) -> Result<AimIk, Fail> {
        Ok(AimIk {
            target: vector(self.target, "ik.target")?,
            forward: vector(self.forward, "ik.forward")?,
            offset: vector(self.offset, "ik.offset")?,
            up: vector(self.up, "ik.up")?,
            pole_vector: vector(self.pole_vector, "ik.pole_vector")?,
            twist_angle: finite(self.twist_angle, "ik.twist_angle")?,
            weight: finite(self.weight, "ik.weight")?,
        })
    }
}

/// Fills `*out` with ozz's defaults for a two-bone IK: target at the origin, bending about
/// `{0, 0, 1}`, pole along `{0, 1, 0}`, no twist, no softening (1), full weight (1).
///
/// Returns `SKELMAP_STATUS_OK`, or `SKELMAP_STATUS_NULL_PARAMETER` (`out`).
///
/// # Safety
///
/// `out` is NULL or valid for writing a `SkelmapTwoBoneIk`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_two_bone_ik_default(
    out: Option<&mut SkelmapTwoBoneIk>,
) -> SkelmapStatus {
    status(|| {
        *out.ok_or(Fail::null("out"))? = TwoBoneIk::default().into();
        Ok(())
    })
}

/// Fills `*out` with ozz's defaults for an aim IK: target at the origin, forward along
/// `{1, 0, 0}`, up and pole along `{0, 1, 0}`, no offset, no twist, full weight (1).
///
/// Returns `SKELMAP_STATUS_OK`, or `SKELMAP_STATUS_NULL_PARAMETER` (`out`).
///
/// # Safety
///
/// `out` is NULL or valid for writing a `SkelmapAimIk`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_aim_ik_default(out: Option<&mut SkelmapAimIk>) -> SkelmapStatus {
    status(|| {
        *out.ok_or(Fail::null("out"))? = AimIk::default().into();
        Ok(())
    })
}

/// The body of the IK calls: the arguments checked, the pose's model-space transforms
/// computed on `model`'s skeleton, then `apply` solves and applies `ik`, and what it says of
/// the target is stored in `reached` (if given).
fn solve<R: Copy>(
    local: Option<&mut SkelmapLocalPose>,
    model: Option<&SkelmapModel>,
    ik: Option<&R>,
    reached: Option<&mut bool>,
    apply: impl FnOnce(&mut SkelmapLocalPose, R) -> Result<bool, Fail>,
) -> SkelmapStatus {
    status(|| {
        let local = local.ok_or(Fail::null("local"))?;
        let model = model.ok_or(Fail::null("model"))?;
        let ik = *ik.ok_or(Fail::null("ik"))?;
        local.model_space(model)?;
        let hit = apply(local, ik)?;
        if let Some(reached) = reached {
            *reached = hit;
        }
        Ok(())
    })
}

/// Solves the two-bone IK `ik` for the chain of bones `start`, `mid` and `end` (which need
/// not be parent and child) of `local` on `model`'s skeleton, and applies it: the start and
/// middle joints' rotations are followed by the corrections. Where the problem has no
/// answer (a zero-length bone, a pole along the target) the correction is the identity.
/// `*reached` (when `reached` is not NULL) tells whether the end joint reaches the target:
/// within the softened chain's reach, at full weight.
///
/// Returns `SKELMAP_STATUS_OK`, or `SKELMAP_STATUS_NULL_PARAMETER` (`local`, `model` or
/// `ik`), `SKELMAP_STATUS_OUT_OF_RANGE` (a bone ≥ `skelmap_local_pose_bone_count`),
/// `SKELMAP_STATUS_INVALID_ARGUMENT` (a field of `ik` is NaN or infinite) or
/// `SKELMAP_STATUS_WRONG_KIND` (`local` does not have `model`'s number of bones). On failure
/// the pose and `*reached` are unchanged.
///
/// # Safety
///
/// `local` is NULL or a live local pose no other thread uses during the call; `model` is
/// NULL or a live model; `ik` is NULL or valid for reading a `SkelmapTwoBoneIk`; `reached`
/// is NULL or valid for writing a `bool`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_local_pose_two_bone_ik(
    local: Option<&mut SkelmapLocalPose>,
    model: Option<&SkelmapModel>,
    ik: Option<&SkelmapTwoBoneIk>,
    start: u32,
    mid: u32,
    end: u32,
    reached: Option<&mut bool>,
) -> SkelmapStatus {
    solve(local, model, ik, reached, |local, ik| {
        let ik = ik.to_rust()?;
        let chain = [
            local.world(start, "start bone")?,
            local.world(mid, "mid bone")?,
            local.world(end, "end bone")?,
        ];
        let correction = ik.solve(&chain[0], &chain[1], &chain[2]);
        correction.apply(&mut local.local, start as usize, mid as usize);
        Ok(correction.reached)
    })
}

/// Solves the aim IK `ik` for bone `joint` of `local` on `model`'s skeleton and applies it:
/// the joint's rotation is followed by the correction. `*reached` (when `reached` is not
/// NULL) tells whether the aim can reach the target (false when the target lies inside the
/// sphere the offset sweeps).
///
/// Returns `SKELMAP_STATUS_OK`, or `SKELMAP_STATUS_NULL_PARAMETER` (`local`, `model` or
/// `ik`), `SKELMAP_STATUS_OUT_OF_RANGE` (`joint` ≥ `skelmap_local_pose_bone_count`),
/// `SKELMAP_STATUS_INVALID_ARGUMENT` (a field of `ik` is NaN or infinite) or
/// `SKELMAP_STATUS_WRONG_KIND` (`local` does not have `model`'s number of bones). On failure
/// the pose and `*reached` are unchanged.
///
/// # Safety
///
/// `local` is NULL or a live local pose no other thread uses during the call; `model` is
/// NULL or a live model; `ik` is NULL or valid for reading a `SkelmapAimIk`; `reached` is
/// NULL or valid for writing a `bool`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_local_pose_aim_ik(
    local: Option<&mut SkelmapLocalPose>,
    model: Option<&SkelmapModel>,
    ik: Option<&SkelmapAimIk>,
    joint: u32,
    reached: Option<&mut bool>,
) -> SkelmapStatus {
    solve(local, model, ik, reached, |local, ik| {
        let correction = ik.to_rust()?.solve(&local.world(joint, "joint")?);
        correction.apply(&mut local.local, joint as usize);
        Ok(correction.reached)
    })
}

/// Poses `pose` by `local` on `model`'s skeleton: world transforms and the skinning
/// kernels' layouts, as `skelmap_pose_sample` makes them from frames, so that
/// `skelmap_model_skin`, `skelmap_compact_skin`, `skelmap_pose_bone_world` and
/// `skelmap_attachment_world` work on the result. Reuses `pose`'s memory: after the first
/// call on a skeleton it allocates nothing.
///
/// Returns `SKELMAP_STATUS_OK`, or `SKELMAP_STATUS_NULL_PARAMETER` (`pose`, `model` or
/// `local`) or `SKELMAP_STATUS_WRONG_KIND` (a model without bones, or `local` not of
/// `model`'s number of bones). On failure the pose is left unsampled.
///
/// # Safety
///
/// `pose` is NULL or a live pose no other thread uses during the call; `model` is NULL or a
/// live model; `local` is NULL or a live local pose.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_pose_from_local(
    pose: Option<&mut SkelmapPose>,
    model: Option<&SkelmapModel>,
    local: Option<&SkelmapLocalPose>,
) -> SkelmapStatus {
    status(|| {
        let pose = pose.ok_or(Fail::null("pose"))?;
        let model = model.ok_or(Fail::null("model"))?;
        let local = local.ok_or(Fail::null("local"))?;
        skeletal(model)?;
        model.model.pose_local(&local.local, &mut pose.pose)?;
        Ok(())
    })
}

/// Turns the torso of `pose`, sampled on `model`, by the entity's torso rotation `axis`, as
/// Enemy Territory does for an MDM/MDX character whose upper body aims apart from its legs:
/// each bone of positive torso weight `w` turned about the torso parent by
/// `w · axis + (1 − w) · I`, then the skinning kernels' layouts refreshed, so that
/// `skelmap_model_skin`, `skelmap_pose_bone_world` and `skelmap_attachment_world` follow.
/// `axis` is nine floats laid out as ET's `vec3_t torsoAxis[3]`: the forward, left and up
/// vectors one after another (the rotation's columns). A model without torso weights (every
/// format but MDM and MDX) is left as it is. Sampling again starts without the turn.
///
/// Returns `SKELMAP_STATUS_OK`, or `SKELMAP_STATUS_NULL_PARAMETER` (`pose`, `model` or
/// `axis`) or `SKELMAP_STATUS_INVALID_ARGUMENT` (`axis` not finite, or `pose` holding no
/// bone pose of `model`: sample it first). On failure the pose is unchanged.
///
/// # Safety
///
/// `pose` is NULL or a live pose no other thread uses during the call; `model` is NULL or a
/// live model; `axis` is NULL or valid for reading 9 floats.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_pose_turn_torso(
    pose: Option<&mut SkelmapPose>,
    model: Option<&SkelmapModel>,
    axis: *const f32,
) -> SkelmapStatus {
    status(|| {
        let pose = pose.ok_or(Fail::null("pose"))?;
        let model = model.ok_or(Fail::null("model"))?;
        if axis.is_null() {
            return Err(Fail::null("axis"));
        }
        // SAFETY: non-NULL and readable for 9 floats by the caller's contract.
        let a = unsafe { std::slice::from_raw_parts(axis, 9) };
        let axis = Mat3::from_cols_slice(a);
        if !axis.is_finite() {
            return Err(Fail::invalid("axis is not finite"));
        }
        model.model.turn_torso(axis, &mut pose.pose)?;
        Ok(())
    })
}

/// `skelmap_pose_from_local` for a `local` that differs from the pose `pose` holds only in
/// bone `bone` and the bones below it (a bone set or turned by hand, an IK correction):
/// world transforms are rebuilt for `bone` and its descendants only, the others kept
/// (ozz-animation's `LocalToModelJob` from a joint), then the skinning kernels' layouts
/// refreshed. The result equals `skelmap_pose_from_local`'s when that holds. It allocates
/// nothing.
///
/// Returns `SKELMAP_STATUS_OK`, or `SKELMAP_STATUS_NULL_PARAMETER` (`pose`, `model` or
/// `local`), `SKELMAP_STATUS_WRONG_KIND` (a model without bones, or `local` not of
/// `model`'s number of bones), `SKELMAP_STATUS_OUT_OF_RANGE` (`bone` past the bones) or
/// `SKELMAP_STATUS_INVALID_ARGUMENT` (`pose` holds no bone pose of `model` to keep: pose it
/// whole with `skelmap_pose_from_local` first). On failure the pose is unchanged.
///
/// # Safety
///
/// `pose` is NULL or a live pose no other thread uses during the call; `model` is NULL or a
/// live model; `local` is NULL or a live local pose.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_pose_from_local_subtree(
    pose: Option<&mut SkelmapPose>,
    model: Option<&SkelmapModel>,
    local: Option<&SkelmapLocalPose>,
    bone: u32,
) -> SkelmapStatus {
    status(|| {
        let pose = pose.ok_or(Fail::null("pose"))?;
        let model = model.ok_or(Fail::null("model"))?;
        let local = local.ok_or(Fail::null("local"))?;
        skeletal(model)?;
        model
            .model
            .pose_local_from(&local.local, bone as usize, &mut pose.pose)?;
        Ok(())
    })
}
