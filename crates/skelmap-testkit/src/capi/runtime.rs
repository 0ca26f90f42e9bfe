//! The animation runtime of the C ABI (local poses, blends, additive layers, procedural
//! bones, IK, posing from a local pose) behind safe handles, so that skelmap-capi's tests
//! compare it with the Rust API in safe code; and [`exercise`], the careless caller's pass
//! over it that the `capi` fuzz target runs.
//!
//! Every handle owns its C object and frees it on drop; every method passes the object's
//! pointer as C would and returns the call's status. A layer ([`CLayer`]) borrows the local
//! pose and the per-bone weights it names, so no call can read freed memory.

use std::marker::PhantomData;

use skelmap_capi::SkelmapStatus;
use skelmap_capi::attach::skelmap_attachment_world;
use skelmap_capi::blend::{
    SKELMAP_MASK_ALL, SKELMAP_MASK_RANGE, SKELMAP_MASK_WEIGHTS, SkelmapBlender, SkelmapLayer,
    skelmap_additive_difference, skelmap_blend, skelmap_blender_add, skelmap_blender_free,
    skelmap_blender_new, skelmap_crossfade,
};
use skelmap_capi::local::{
    SkelmapAimIk, SkelmapControls, SkelmapLocalPose, SkelmapTwoBoneIk, skelmap_aim_ik_default,
    skelmap_local_pose_aim_ik, skelmap_local_pose_bind, skelmap_local_pose_bone,
    skelmap_local_pose_bone_count, skelmap_local_pose_copy, skelmap_local_pose_free,
    skelmap_local_pose_mul_bone, skelmap_local_pose_mul_bone_model, skelmap_local_pose_mul_bones,
    skelmap_local_pose_new, skelmap_local_pose_sample, skelmap_local_pose_sample_clip,
    skelmap_local_pose_sample_controlled, skelmap_local_pose_set_bone,
    skelmap_local_pose_set_bone_model, skelmap_local_pose_two_bone_ik, skelmap_pose_from_local,
    skelmap_pose_from_local_subtree, skelmap_pose_turn_torso, skelmap_two_bone_ik_default,
};
use skelmap_capi::mesh::skelmap_model_skin;
use skelmap_capi::model::{
    SkelmapCounts, SkelmapModel, skelmap_model_counts, skelmap_model_free,
    skelmap_model_open_memory,
};
use skelmap_capi::pose::{
    SkelmapPose, skelmap_pose_bone_world, skelmap_pose_free, skelmap_pose_new,
    skelmap_pose_sample_legs_torso,
};
use skelmap_capi::sampler::{
    SkelmapSampler, skelmap_sampler_free, skelmap_sampler_new, skelmap_sampler_sample,
    skelmap_sampler_sample_clip, skelmap_sampler_set_budget, skelmap_sampler_set_controls,
};
use skelmap_capi::skeleton::{
    SkelmapController, skelmap_controller, skelmap_model_set_framegroups,
};

/// An owning handle `$name` of the C object `$object`, made by `$new` and freed by `$free`.
macro_rules! handle {
    ($(#[$doc:meta])* $name:ident, $object:ty, $new:ident, $free:ident) => {
        $(#[$doc])*
        #[derive(Debug)]
        pub struct $name(*mut $object);

        impl Default for $name {
            fn default() -> Self {
                $name::new()
            }
        }

        impl $name {
            /// A new object.
            ///
            /// # Panics
            /// If the C call that makes it fails.
            #[must_use]
            pub fn new() -> $name {
                let mut p = std::ptr::null_mut();
                // SAFETY: a valid out pointer.
                let s = unsafe { $new(Some(&mut p)) };
                assert_eq!(s, SkelmapStatus::Ok);
                $name(p)
            }
        }

        impl Drop for $name {
            fn drop(&mut self) {
                // SAFETY: made in `new`, freed once.
                unsafe { $free(self.0) };
            }
        }
    };
}

/// A row-major 3×4 matrix, as the C ABI passes transforms.
pub type Rows = [f32; 12];

/// A model opened through C from caller memory, which it borrows.
#[derive(Debug)]
pub struct CModel<'a> {
    ptr: *mut SkelmapModel,
    bytes: PhantomData<&'a [u8]>,
}

impl<'a> CModel<'a> {
    /// Opens `bytes` (`skelmap_model_open_memory`), or gives the status that refused them.
    ///
    /// # Errors
    /// The status of the failed open.
    pub fn open(bytes: &'a [u8]) -> Result<CModel<'a>, SkelmapStatus> {
        let mut ptr = std::ptr::null_mut();
        // SAFETY: `bytes` outlives the model (`'a`), which `drop` frees; `ptr` is a valid out
        // pointer.
        let s = unsafe { skelmap_model_open_memory(bytes.as_ptr(), bytes.len(), 0, &mut ptr) };
        if s != SkelmapStatus::Ok {
            return Err(s);
        }
        Ok(CModel {
            ptr,
            bytes: PhantomData,
        })
    }

    /// Replaces the frame groups by a `.framegroups` text (`skelmap_model_set_framegroups`).
    pub fn set_framegroups(&mut self, text: &str) -> SkelmapStatus {
        // SAFETY: a live model, borrowed exclusively through `self`; `text` is readable for
        // its length.
        unsafe { skelmap_model_set_framegroups(self.ptr.as_mut(), text.as_ptr(), text.len()) }
    }

    /// The model's counts (`skelmap_model_counts`).
    pub fn counts(&self) -> (SkelmapStatus, SkelmapCounts) {
        let mut counts = SkelmapCounts::default();
        // SAFETY: a live model; `counts` is a writable `SkelmapCounts`.
        let s = unsafe { skelmap_model_counts(self.get(), Some(&mut counts)) };
        (s, counts)
    }

    /// Bone controller `index` (`skelmap_controller`), into a `SkelmapController` or, without
    /// `out`, NULL.
    pub fn controller(&self, index: u32, out: bool) -> (SkelmapStatus, SkelmapController) {
        let mut c = SkelmapController::default();
        // SAFETY: a live model; the out pointer is NULL or a writable `SkelmapController`.
        let s = unsafe { skelmap_controller(self.get(), index, out.then_some(&mut c)) };
        (s, c)
    }

    fn get(&self) -> Option<&SkelmapModel> {
        // SAFETY: live until `drop`.
        unsafe { self.ptr.as_ref() }
    }
}

impl Drop for CModel<'_> {
    fn drop(&mut self) {
        // SAFETY: opened in `open`, freed once.
        unsafe { skelmap_model_free(self.ptr) };
    }
}

/// `Some(model)`'s pointer, or NULL for `None` (to test the NULL checks).
fn model_ptr<'m>(model: Option<&'m CModel<'_>>) -> Option<&'m SkelmapModel> {
    model.and_then(CModel::get)
}

/// A sampler made through C (`skelmap_sampler_new`) for a model it borrows (so the model
/// outlives it and keeps its frame groups), freed on drop.
#[derive(Debug)]
pub struct CSampler<'m> {
    ptr: *mut SkelmapSampler,
    model: PhantomData<&'m SkelmapModel>,
}

impl<'m> CSampler<'m> {
    /// `skelmap_sampler_new` for `model` (NULL for `None`), or the status that refused it.
    ///
    /// # Errors
    /// The status of the failed call.
    pub fn new(model: Option<&'m CModel<'_>>) -> Result<CSampler<'m>, SkelmapStatus> {
        let mut ptr = std::ptr::null_mut();
        // SAFETY: a live model or NULL, borrowed for `'m`, which the sampler cannot outlive;
        // a valid out pointer.
        let s = unsafe { skelmap_sampler_new(model_ptr(model), Some(&mut ptr)) };
        if s != SkelmapStatus::Ok {
            return Err(s);
        }
        Ok(CSampler {
            ptr,
            model: PhantomData,
        })
    }

    /// `skelmap_sampler_sample` into `local` (NULL for `None`).
    pub fn sample(
        &mut self,
        local: Option<&CLocal>,
        (a, b, t, interpolation): (u32, u32, f32, u32),
    ) -> SkelmapStatus {
        let local = local.map_or(std::ptr::null_mut(), CLocal::raw);
        // SAFETY: a live sampler, borrowed exclusively through `self`; a live local pose or
        // NULL, no other reference to it during the call.
        unsafe { skelmap_sampler_sample(self.ptr.as_mut(), local.as_mut(), a, b, t, interpolation) }
    }

    /// `skelmap_sampler_sample_clip` into `local` (NULL for `None`).
    pub fn sample_clip(
        &mut self,
        local: Option<&CLocal>,
        (clip, seconds, looped): (u32, f32, bool),
    ) -> SkelmapStatus {
        let local = local.map_or(std::ptr::null_mut(), CLocal::raw);
        // SAFETY: as `sample`.
        unsafe {
            skelmap_sampler_sample_clip(self.ptr.as_mut(), local.as_mut(), clip, seconds, looped)
        }
    }

    /// `skelmap_sampler_set_controls` (NULL for `None`).
    pub fn set_controls(&mut self, controls: Option<&SkelmapControls>) -> SkelmapStatus {
        // SAFETY: a live sampler, borrowed exclusively through `self`; `controls` is NULL or
        // a readable `SkelmapControls`.
        unsafe { skelmap_sampler_set_controls(self.ptr.as_mut(), controls) }
    }

    /// `skelmap_sampler_set_budget`.
    pub fn set_budget(&mut self, bytes: usize) -> SkelmapStatus {
        // SAFETY: a live sampler, borrowed exclusively through `self`.
        unsafe { skelmap_sampler_set_budget(self.ptr.as_mut(), bytes) }
    }
}

impl Drop for CSampler<'_> {
    fn drop(&mut self) {
        // SAFETY: made in `new`, freed once.
        unsafe { skelmap_sampler_free(self.ptr) };
    }
}

/// `skelmap_sampler_sample`, `skelmap_sampler_set_controls` and `skelmap_sampler_set_budget`
/// with a NULL sampler.
#[must_use]
pub fn null_sampler_statuses(local: &CLocal) -> [SkelmapStatus; 3] {
    // SAFETY: NULL sampler (refused before anything is read); a live local pose.
    let sample = unsafe { skelmap_sampler_sample(None, local.raw().as_mut(), 0, 0, 0.0, 0) };
    let controls = SkelmapControls::default();
    // SAFETY: NULL sampler, refused; `controls` is readable.
    let set = unsafe { skelmap_sampler_set_controls(None, Some(&controls)) };
    // SAFETY: NULL sampler, refused.
    let budget = unsafe { skelmap_sampler_set_budget(None, 0) };
    [sample, set, budget]
}

handle!(
    /// A local pose made through C (`skelmap_local_pose_new`), freed on drop.
    CLocal,
    SkelmapLocalPose,
    skelmap_local_pose_new,
    skelmap_local_pose_free
);

impl CLocal {
    /// The pose's pointer, for calls made with it as a raw argument.
    fn raw(&self) -> *mut SkelmapLocalPose {
        self.0
    }

    /// `skelmap_local_pose_bone_count`.
    #[must_use]
    pub fn bone_count(&self) -> u32 {
        // SAFETY: a live local pose, no other reference to it during the call.
        unsafe { skelmap_local_pose_bone_count(self.0.as_ref()) }
    }

    /// `skelmap_local_pose_bone` into a matrix, or with a NULL output when `out` is false.
    pub fn bone(&self, bone: u32, out: bool) -> (SkelmapStatus, Rows) {
        let mut m = [0.0f32; 12];
        let ptr = if out {
            m.as_mut_ptr()
        } else {
            std::ptr::null_mut()
        };
        // SAFETY: a live local pose; `ptr` is NULL or 12 writable floats.
        let s = unsafe { skelmap_local_pose_bone(self.0.as_ref(), bone, ptr) };
        (s, m)
    }

    /// Every bone's parent-relative matrix.
    ///
    /// # Panics
    /// If a bone below the count cannot be read.
    #[must_use]
    pub fn matrices(&self) -> Vec<Rows> {
        (0..self.bone_count())
            .map(|b| {
                let (s, m) = self.bone(b, true);
                assert_eq!(s, SkelmapStatus::Ok);
                m
            })
            .collect()
    }

    /// `skelmap_local_pose_sample_clip`.
    pub fn sample_clip(
        &self,
        model: Option<&CModel<'_>>,
        clip: u32,
        seconds: f32,
        looped: bool,
    ) -> SkelmapStatus {
        // SAFETY: a live local pose, no other reference to it during the call; a live model.
        unsafe {
            skelmap_local_pose_sample_clip(self.0.as_mut(), model_ptr(model), clip, seconds, looped)
        }
    }

    /// `skelmap_local_pose_sample`.
    pub fn sample(
        &self,
        model: Option<&CModel<'_>>,
        a: u32,
        b: u32,
        t: f32,
        interpolation: u32,
    ) -> SkelmapStatus {
        // SAFETY: as `sample_clip`.
        unsafe {
            skelmap_local_pose_sample(self.0.as_mut(), model_ptr(model), a, b, t, interpolation)
        }
    }

    /// `skelmap_local_pose_sample_controlled`.
    pub fn sample_controlled(
        &self,
        model: Option<&CModel<'_>>,
        (a, b, t, interpolation): (u32, u32, f32, u32),
        controls: Option<&SkelmapControls>,
    ) -> SkelmapStatus {
        // SAFETY: as `sample_clip`; `controls` is NULL or a readable `SkelmapControls`.
        unsafe {
            skelmap_local_pose_sample_controlled(
                self.0.as_mut(),
                model_ptr(model),
                a,
                b,
                t,
                interpolation,
                controls,
            )
        }
    }

    /// `skelmap_local_pose_bind`.
    pub fn bind(&self, model: Option<&CModel<'_>>) -> SkelmapStatus {
        // SAFETY: as `sample_clip`.
        unsafe { skelmap_local_pose_bind(self.0.as_mut(), model_ptr(model)) }
    }

    /// `skelmap_local_pose_copy` from `from` (which may be this pose: refused), or from NULL.
    pub fn copy_from(&self, from: Option<&CLocal>) -> SkelmapStatus {
        let from = from.map_or(std::ptr::null(), |f| f.raw().cast_const());
        // SAFETY: live local poses or NULL; the function refuses the same pose twice before
        // making references.
        unsafe { skelmap_local_pose_copy(self.0, from) }
    }

    /// `skelmap_local_pose_set_bone` (`m` NULL for `None`).
    pub fn set_bone(&self, bone: u32, m: Option<&Rows>) -> SkelmapStatus {
        // SAFETY: a live local pose, no other reference to it during the call; `m` is NULL
        // or 12 readable floats.
        unsafe { skelmap_local_pose_set_bone(self.0.as_mut(), bone, rows_ptr(m)) }
    }

    /// `skelmap_local_pose_mul_bone`.
    pub fn mul_bone(&self, bone: u32, m: Option<&Rows>) -> SkelmapStatus {
        // SAFETY: as `set_bone`.
        unsafe { skelmap_local_pose_mul_bone(self.0.as_mut(), bone, rows_ptr(m)) }
    }

    /// `skelmap_local_pose_mul_bones`.
    pub fn mul_bones(&self, first: u32, last: u32, m: Option<&Rows>) -> SkelmapStatus {
        // SAFETY: as `set_bone`.
        unsafe { skelmap_local_pose_mul_bones(self.0.as_mut(), first, last, rows_ptr(m)) }
    }

    /// `skelmap_local_pose_set_bone_model`.
    pub fn set_bone_model(
        &self,
        model: Option<&CModel<'_>>,
        bone: u32,
        m: Option<&Rows>,
    ) -> SkelmapStatus {
        self.in_model_space(skelmap_local_pose_set_bone_model, model, bone, m)
    }

    /// `skelmap_local_pose_mul_bone_model`.
    pub fn mul_bone_model(
        &self,
        model: Option<&CModel<'_>>,
        bone: u32,
        m: Option<&Rows>,
    ) -> SkelmapStatus {
        self.in_model_space(skelmap_local_pose_mul_bone_model, model, bone, m)
    }

    /// One of the model-space changes, `call`.
    fn in_model_space(
        &self,
        call: ModelSpaceCall,
        model: Option<&CModel<'_>>,
        bone: u32,
        m: Option<&Rows>,
    ) -> SkelmapStatus {
        // SAFETY: a live local pose, no other reference to it during the call; a live model
        // or NULL; `m` NULL or 12 readable floats.
        unsafe { call(self.0.as_mut(), model_ptr(model), bone, rows_ptr(m)) }
    }

    /// `skelmap_local_pose_two_bone_ik`, and what it says of `reached` (false if untouched).
    pub fn two_bone_ik(
        &self,
        model: Option<&CModel<'_>>,
        ik: Option<&SkelmapTwoBoneIk>,
        [start, mid, end]: [u32; 3],
    ) -> (SkelmapStatus, bool) {
        let mut reached = false;
        // SAFETY: a live local pose, no other reference to it during the call; a live model
        // or NULL; `ik` NULL or a live request; `reached` writable.
        let s = unsafe {
            skelmap_local_pose_two_bone_ik(
                self.0.as_mut(),
                model_ptr(model),
                ik,
                start,
                mid,
                end,
                Some(&mut reached),
            )
        };
        (s, reached)
    }

    /// `skelmap_local_pose_aim_ik`, and what it says of `reached` (false if untouched).
    pub fn aim_ik(
        &self,
        model: Option<&CModel<'_>>,
        ik: Option<&SkelmapAimIk>,
        joint: u32,
    ) -> (SkelmapStatus, bool) {
        let mut reached = false;
        // SAFETY: as `two_bone_ik`.
        let s = unsafe {
            skelmap_local_pose_aim_ik(
                self.0.as_mut(),
                model_ptr(model),
                ik,
                joint,
                Some(&mut reached),
            )
        };
        (s, reached)
    }

    /// A layer playing this pose with `weight` on every bone.
    #[must_use]
    pub fn layer(&self, weight: f32) -> CLayer<'_> {
        CLayer {
            raw: SkelmapLayer {
                pose: self.0,
                weight,
                mask: SKELMAP_MASK_ALL,
                first: 0,
                last: 0,
                weights: std::ptr::null(),
                weight_count: 0,
            },
            borrows: PhantomData,
        }
    }
}

/// The signature `skelmap_local_pose_set_bone_model` and `_mul_bone_model` share.
type ModelSpaceCall = unsafe extern "C" fn(
    Option<&mut SkelmapLocalPose>,
    Option<&SkelmapModel>,
    u32,
    *const f32,
) -> SkelmapStatus;

fn rows_ptr(m: Option<&Rows>) -> *const f32 {
    m.map_or(std::ptr::null(), |m| m.as_ptr())
}

/// A `SkelmapLayer` that borrows the pose and the weights it points to.
#[derive(Debug, Clone, Copy)]
pub struct CLayer<'a> {
    raw: SkelmapLayer,
    borrows: PhantomData<&'a [f32]>,
}

impl<'a> CLayer<'a> {
    /// A layer of no pose (NULL), to test the NULL check.
    #[must_use]
    pub fn null() -> CLayer<'static> {
        CLayer {
            raw: SkelmapLayer {
                pose: std::ptr::null(),
                weight: 1.0,
                mask: SKELMAP_MASK_ALL,
                first: 0,
                last: 0,
                weights: std::ptr::null(),
                weight_count: 0,
            },
            borrows: PhantomData,
        }
    }

    /// This layer on bones `first..=last` only.
    #[must_use]
    pub fn range(mut self, first: u32, last: u32) -> CLayer<'a> {
        self.raw.mask = SKELMAP_MASK_RANGE;
        (self.raw.first, self.raw.last) = (first, last);
        self
    }

    /// This layer by per-bone `weights`.
    #[must_use]
    pub fn weights<'b>(self, weights: &'b [f32]) -> CLayer<'b>
    where
        'a: 'b,
    {
        CLayer {
            raw: SkelmapLayer {
                mask: SKELMAP_MASK_WEIGHTS,
                weights: weights.as_ptr(),
                weight_count: u32::try_from(weights.len()).unwrap_or(u32::MAX),
                ..self.raw
            },
            borrows: PhantomData,
        }
    }

    /// This layer with per-bone weights at NULL and a count of `count` (refused when
    /// `count > 0`: nothing is read).
    #[must_use]
    pub fn null_weights(mut self, count: u32) -> CLayer<'a> {
        self.raw.mask = SKELMAP_MASK_WEIGHTS;
        self.raw.weights = std::ptr::null();
        self.raw.weight_count = count;
        self
    }

    /// This layer with the mask value `mask`, whatever it is (an unknown value reads
    /// nothing).
    #[must_use]
    pub fn mask(mut self, mask: u32) -> CLayer<'a> {
        if mask == SKELMAP_MASK_WEIGHTS {
            return self.null_weights(0);
        }
        self.raw.mask = mask;
        self
    }

    /// This layer with weight `weight`.
    #[must_use]
    pub fn weight(mut self, weight: f32) -> CLayer<'a> {
        self.raw.weight = weight;
        self
    }
}

/// The C layers of `layers`, in place: `CLayer` is a `SkelmapLayer` and a marker.
fn raw_layers<'l>(layers: &'l [CLayer<'_>]) -> impl Iterator<Item = &'l SkelmapLayer> {
    layers.iter().map(|l| &l.raw)
}

/// A blender made through C (`skelmap_blender_new`), with room for the layers of one call.
#[derive(Debug)]
pub struct CBlender {
    ptr: *mut SkelmapBlender,
    layers: Vec<SkelmapLayer>,
}

impl Default for CBlender {
    fn default() -> Self {
        CBlender::new()
    }
}

impl CBlender {
    /// A new blender.
    ///
    /// # Panics
    /// If `skelmap_blender_new` fails.
    #[must_use]
    pub fn new() -> CBlender {
        let mut ptr = std::ptr::null_mut();
        // SAFETY: a valid out pointer.
        let s = unsafe { skelmap_blender_new(Some(&mut ptr)) };
        assert_eq!(s, SkelmapStatus::Ok);
        CBlender {
            ptr,
            layers: Vec::new(),
        }
    }

    /// `skelmap_blend` of `layers` over `rest` into `out` (`layers` NULL when `None`, with
    /// a count of `null_count`; the blender NULL when `blender` is false).
    pub fn blend_with(
        &mut self,
        blender: bool,
        rest: &CLocal,
        layers: Option<&[CLayer<'_>]>,
        null_count: usize,
        threshold: f32,
        out: &CLocal,
    ) -> SkelmapStatus {
        self.layers.clear();
        let (ptr, count) = match layers {
            Some(layers) => {
                self.layers.extend(raw_layers(layers).copied());
                (self.layers.as_ptr(), self.layers.len())
            }
            None => (std::ptr::null(), null_count),
        };
        let blender = if blender {
            // SAFETY: a live blender, borrowed exclusively through `self`.
            unsafe { self.ptr.as_mut() }
        } else {
            None
        };
        // SAFETY: live blender and local poses (borrowed for the call); `ptr` is NULL or
        // `count` layers whose poses and weights the `CLayer`s borrow; the function refuses
        // `out` among its inputs before making references.
        unsafe { skelmap_blend(blender, rest.raw(), ptr, count, threshold, out.raw()) }
    }

    /// `skelmap_blend` of `layers` over `rest` into `out`.
    pub fn blend(
        &mut self,
        rest: &CLocal,
        layers: &[CLayer<'_>],
        threshold: f32,
        out: &CLocal,
    ) -> SkelmapStatus {
        self.blend_with(true, rest, Some(layers), 0, threshold, out)
    }

    /// `skelmap_blender_add` of `layer` (NULL for `None`) onto `pose`.
    pub fn add(&self, layer: Option<&CLayer<'_>>, pose: &CLocal) -> SkelmapStatus {
        // SAFETY: a live blender; `layer` NULL or borrowing its pose and weights; `pose` a
        // live local pose, refused if it is the layer's before references are made.
        unsafe { skelmap_blender_add(self.ptr.as_ref(), layer.map(|l| &l.raw), pose.raw()) }
    }
}

impl Drop for CBlender {
    fn drop(&mut self) {
        // SAFETY: created in `new`, freed once.
        unsafe { skelmap_blender_free(self.ptr) };
    }
}

/// `skelmap_additive_difference` of `pose` from `reference` into `out`.
pub fn additive_difference(pose: &CLocal, reference: &CLocal, out: &CLocal) -> SkelmapStatus {
    // SAFETY: live local poses; the function refuses `out` among its inputs before making
    // references.
    unsafe { skelmap_additive_difference(pose.raw(), reference.raw(), out.raw()) }
}

/// `skelmap_crossfade`: the status and the two weights (NaN where not written); `outputs`
/// false passes NULL for the first.
#[must_use]
pub fn crossfade(time: f32, duration: f32, outputs: bool) -> (SkelmapStatus, f32, f32) {
    let (mut from, mut to) = (f32::NAN, f32::NAN);
    let from_ref = if outputs { Some(&mut from) } else { None };
    // SAFETY: two writable floats or NULL.
    let s = unsafe { skelmap_crossfade(time, duration, from_ref, Some(&mut to)) };
    (s, from, to)
}

/// `skelmap_two_bone_ik_default` (into NULL when `out` is false).
#[must_use]
pub fn two_bone_ik_default(out: bool) -> (SkelmapStatus, SkelmapTwoBoneIk) {
    let mut ik = SkelmapTwoBoneIk::default();
    let target = if out { Some(&mut ik) } else { None };
    // SAFETY: a writable request or NULL.
    (unsafe { skelmap_two_bone_ik_default(target) }, ik)
}

/// `skelmap_aim_ik_default` (into NULL when `out` is false).
#[must_use]
pub fn aim_ik_default(out: bool) -> (SkelmapStatus, SkelmapAimIk) {
    let mut ik = SkelmapAimIk::default();
    let target = if out { Some(&mut ik) } else { None };
    // SAFETY: a writable request or NULL.
    (unsafe { skelmap_aim_ik_default(target) }, ik)
}

handle!(
    /// A pose made through C (`skelmap_pose_new`), freed on drop.
    CPose,
    SkelmapPose,
    skelmap_pose_new,
    skelmap_pose_free
);

impl CPose {
    /// The pose to hand to a call: the live pose, or NULL when `pose` is false.
    #[allow(clippy::mut_from_ref)] // The C object behind the handle, as the C calls take it.
    fn target(&self, pose: bool) -> Option<&mut SkelmapPose> {
        if !pose {
            return None;
        }
        // SAFETY: a live pose; a call gets it for its duration only, with no other reference.
        unsafe { self.0.as_mut() }
    }

    /// `skelmap_pose_from_local` (the pose NULL when `pose` is false).
    pub fn from_local(
        &self,
        pose: bool,
        model: Option<&CModel<'_>>,
        local: Option<&CLocal>,
    ) -> SkelmapStatus {
        let target = self.target(pose);
        // SAFETY: live model and local pose or NULL.
        unsafe {
            skelmap_pose_from_local(target, model_ptr(model), local.and_then(|l| l.0.as_ref()))
        }
    }

    /// `skelmap_pose_from_local_subtree` (the pose NULL when `pose` is false).
    pub fn from_local_subtree(
        &self,
        pose: bool,
        model: Option<&CModel<'_>>,
        local: Option<&CLocal>,
        bone: u32,
    ) -> SkelmapStatus {
        let target = self.target(pose);
        // SAFETY: live model and local pose or NULL.
        unsafe {
            skelmap_pose_from_local_subtree(
                target,
                model_ptr(model),
                local.and_then(|l| l.0.as_ref()),
                bone,
            )
        }
    }

    /// `skelmap_pose_sample_legs_torso` of the pairs `legs` and `torso`, each `(a, b, t)`
    /// (the pose NULL when `pose` is false).
    pub fn sample_legs_torso(
        &self,
        pose: bool,
        model: Option<&CModel<'_>>,
        (legs_a, legs_b, legs_t): (u32, u32, f32),
        (torso_a, torso_b, torso_t): (u32, u32, f32),
    ) -> SkelmapStatus {
        let target = self.target(pose);
        // SAFETY: a live model or NULL.
        unsafe {
            skelmap_pose_sample_legs_torso(
                target,
                model_ptr(model),
                legs_a,
                legs_b,
                legs_t,
                torso_a,
                torso_b,
                torso_t,
            )
        }
    }

    /// `skelmap_pose_turn_torso` (the pose NULL when `pose` is false, `axis` NULL when
    /// `None`).
    pub fn turn_torso(
        &self,
        pose: bool,
        model: Option<&CModel<'_>>,
        axis: Option<&[f32; 9]>,
    ) -> SkelmapStatus {
        let target = self.target(pose);
        let axis = axis.map_or(std::ptr::null(), |a| a.as_ptr());
        // SAFETY: a live model or NULL, and nine readable floats or NULL.
        unsafe { skelmap_pose_turn_torso(target, model_ptr(model), axis) }
    }

    /// `skelmap_pose_bone_world`.
    pub fn bone_world(&self, bone: u32) -> (SkelmapStatus, Rows) {
        let mut m = [0.0f32; 12];
        // SAFETY: a live pose and 12 writable floats.
        let s = unsafe { skelmap_pose_bone_world(self.0.as_ref(), bone, m.as_mut_ptr()) };
        (s, m)
    }

    /// `skelmap_attachment_world`.
    pub fn attachment_world(&self, model: &CModel<'_>, index: u32) -> (SkelmapStatus, Rows) {
        let mut m = [0.0f32; 12];
        // SAFETY: live model and pose and 12 writable floats.
        let s = unsafe {
            skelmap_attachment_world(model.get(), self.0.as_ref(), index, m.as_mut_ptr())
        };
        (s, m)
    }

    /// `skelmap_model_skin` of mesh `mesh` into `positions` and `normals` (packed).
    pub fn skin(
        &self,
        model: &CModel<'_>,
        mesh: u32,
        positions: &mut [[f32; 3]],
        normals: Option<&mut [[f32; 3]]>,
    ) -> SkelmapStatus {
        let capacity = normals
            .as_ref()
            .map_or(positions.len(), |n| n.len().min(positions.len()));
        let normals = normals.map_or(std::ptr::null_mut(), |n| n.as_mut_ptr().cast::<f32>());
        // SAFETY: live model and pose; both outputs (or NULL) hold `capacity` packed
        // vertices.
        unsafe {
            skelmap_model_skin(
                model.get(),
                self.0.as_ref(),
                mesh,
                positions.as_mut_ptr().cast(),
                0,
                normals,
                0,
                capacity,
            )
        }
    }
}

/// The runtime calls on `m` as a careless caller makes them: every clip's sample at a few
/// times, a blend of them with each mask over the bind pose, an additive layer, each
/// procedural change and both IKs at valid and invalid bones, and the result posed. Every
/// call must return a status; returns a checksum of the statuses and what was read.
#[must_use]
pub(crate) fn exercise(m: *mut SkelmapModel, counts: &SkelmapCounts) -> u64 {
    // Borrowed for the session: the caller keeps `m` live and frees it afterwards.
    let model = CModel {
        ptr: m,
        bytes: PhantomData,
    };
    // Not freed here: the caller frees it.
    let borrowed = std::mem::ManuallyDrop::new(model);
    let model = Some(&*borrowed);
    let (rest, a, b, out, delta) = (
        CLocal::new(),
        CLocal::new(),
        CLocal::new(),
        CLocal::new(),
        CLocal::new(),
    );
    let mut sum = rest.bind(model) as u64;
    let clips = counts.frame_groups.min(4);
    for (clip, seconds) in [(0, 0.0), (clips.saturating_sub(1), 0.7), (clips, 0.1)] {
        sum += a.sample_clip(model, clip, seconds, true) as u64;
        sum += b.sample_clip(model, clip / 2, -seconds, false) as u64;
    }
    sum += b.sample(model, 0, counts.frames.saturating_sub(1), 0.5, 1) as u64;
    // Every controller read, one past them refused; settings far past any range.
    for c in 0..=counts.controllers.min(8) {
        let (s, read) = borrowed.controller(c, true);
        sum += s as u64 + u64::from(read.start.to_bits());
    }
    let controls = SkelmapControls {
        values: [1e30, -1e30, 720.5, -361.0, 1e9],
    };
    let last = counts.frames.saturating_sub(1);
    sum += a.sample_controlled(model, (last, 0, 0.25, 0), Some(&controls)) as u64;
    // A sampler playing forward past the last frame, then on the least budget with those
    // settings, then with a value that is not finite (refused).
    if let Ok(mut sampler) = CSampler::new(model) {
        for f in 0..counts.frames.min(20) + 2 {
            sum += sampler.sample(Some(&b), (f, f + 1, 0.5, f % 3)) as u64;
        }
        for (clip, seconds) in [(0, 0.0), (clips.saturating_sub(1), 0.7), (clips, 0.1)] {
            sum += sampler.sample_clip(Some(&a), (clip, seconds, true)) as u64;
            sum += sampler.sample_clip(Some(&a), (clip, -seconds, false)) as u64;
        }
        // Keeping no more than a sample needs, so that it starts over.
        sum += sampler.set_budget(0) as u64;
        sum += sampler.set_controls(Some(&controls)) as u64;
        sum += sampler.sample(Some(&b), (last, 0, 0.25, 1)) as u64;
        sum += sampler.sample_clip(Some(&b), (0, f32::NAN, true)) as u64;
        let bad = SkelmapControls {
            values: [0.0, f32::NAN, 0.0, 0.0, 0.0],
        };
        sum += sampler.set_controls(Some(&bad)) as u64;
        sum += sampler.set_controls(None) as u64 + sampler.sample(None, (0, 0, 0.0, 0)) as u64;
    }
    let bones = counts.bones;
    let weights: Vec<f32> = (0..bones.min(64)).map(|i| (i % 3) as f32 * 0.5).collect();
    let mut blender = CBlender::new();
    let layers = [
        a.layer(0.5),
        b.layer(0.5).range(bones / 2, bones),
        b.layer(1.0).weights(&weights),
    ];
    sum += blender.blend(&rest, &layers, 0.1, &out) as u64;
    sum += additive_difference(&a, &rest, &delta) as u64;
    sum += blender.add(Some(&delta.layer(0.5).range(0, bones / 2)), &out) as u64;
    let turn: Rows = [0.0, -1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 2.0, 0.0, 0.0, 1.0, 3.0];
    for bone in [0, bones / 2, bones.saturating_sub(1), bones] {
        sum += out.set_bone(bone, Some(&turn)) as u64;
        sum += out.mul_bone(bone, Some(&turn)) as u64;
        sum += out.mul_bones(bone, bones, Some(&turn)) as u64;
        sum += out.set_bone_model(model, bone, Some(&turn)) as u64;
        sum += out.mul_bone_model(model, bone, Some(&turn)) as u64;
        let (s, mut ik) = two_bone_ik_default(true);
        ik.target = [1.0, 2.0, 3.0];
        let chain = [bone, bone.saturating_add(1), bone.saturating_add(2)];
        sum += s as u64 + out.two_bone_ik(model, Some(&ik), chain).0 as u64;
        let (s, mut aim) = aim_ik_default(true);
        aim.target = [-1.0, 0.0, 5.0];
        sum += s as u64 + out.aim_ik(model, Some(&aim), bone).0 as u64;
    }
    let pose = CPose::new();
    sum += pose.from_local_subtree(true, model, Some(&out), 0) as u64;
    sum += pose.from_local(true, model, Some(&out)) as u64;
    for bone in [0, bones / 2, bones] {
        sum += pose.from_local_subtree(true, model, Some(&out), bone) as u64;
    }
    for bone in [0, bones] {
        let (s, m) = pose.bone_world(bone);
        sum += s as u64 + u64::from(m[3].to_bits());
    }
    sum += pose.attachment_world(&borrowed, 0).0 as u64;
    sum
}
