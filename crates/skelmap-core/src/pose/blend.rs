//! Blending local poses: any number of sampled poses, each with a weight and optionally a
//! bone mask, into one ([`Blender::blend`]), and additive layers on top
//! ([`Blender::add`]). The rule is ozz-animation's `BlendingJob`'s:
//!
//! - per bone, every normal layer contributes `weight × mask` of its translation, scale and
//!   rotation; rotations are summed after turning each to the same hemisphere as the running
//!   sum (`q` and `−q` are one rotation), and the sums are divided by the bone's total weight
//!   (the rotation normalised: a normalised linear blend);
//! - where a bone's total weight is below `threshold`, the rest pose makes up the difference
//!   (`threshold − total`), so a bone no layer plays holds its rest pose and a fading layer
//!   fades into it;
//! - an additive layer holds the difference of a clip from a reference pose
//!   ([`additive_difference`]: `Δq = q_ref⁻¹ · q`); added with weight `w > 0`, it turns a
//!   bone by `nlerp(identity, Δq, w)` after its own rotation (`q · nlerp(…)`), moves it by
//!   `w·Δt` and scales it by `lerp(1, Δs, w)`; a negative weight takes the same amounts away.
//!
//! Poses scale only where their [`LocalPose::scales`] are not empty (IQM); the blend has
//! scales where any layer or the rest pose has them. [Skin scales](LocalPose::skin_scales)
//! (which no bone passes on) are not blended: the result takes the rest pose's, and additive
//! layers leave them. Every buffer belongs to the caller or
//! to the [`Blender`], so a blend allocates nothing once its buffers have grown to the
//! skeleton.
//!
//! Where the CPU has AVX-512F and no pose scales, [`Blender::blend`] runs 16 bones a step
//! (`pose/x86/blend.rs`): each layer's bones transposed in registers, the rule above
//! lane-wise, one weight per layer hoisted out of the loop where the layer plays every bone.
//! It differs from the scalar blend ([`Blender::blend_with_level`] at
//! [`SimdLevel::Portable`]) only by rounding: fused multiply-adds, and a reciprocal square
//! root refined by one Newton step (`tests/integration/pose/blend.rs` holds the two within
//! 1e-6).
//!
//! [`Blender::blend_soa`] blends layers held as [`SoaPose`]s, the same rule on the same
//! kernel, minus the regrouping: each block's rows are loaded as they are stored (aligned
//! to a cache line), so only the result is regrouped into records. It is the faster of the
//! two wherever layers are sampled for blending (`benches/peers.rs`, `ozz-blend-<n>`:
//! `skelmap` beside `skelmap-local`).

use glam::{Quat, Vec3A, Vec4};

use super::SoaPose;
use super::local::LocalPose;
use crate::simd::SimdLevel;

/// Which bones a layer plays, and how much of each.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Mask<'a> {
    /// Every bone, fully.
    All,
    /// The bones `first..=last` (as DarkPlaces' `skel_build` takes a range), fully; the
    /// others not at all.
    Range {
        /// The first bone played.
        first: usize,
        /// The last bone played.
        last: usize,
    },
    /// Per bone, a factor in `0..=1` (ozz's joint weights); bones past the slice's end are
    /// not played.
    Weights(&'a [f32]),
}

impl Mask<'_> {
    /// The factor of `bone`: 0 outside the mask, its weight clamped to `0..=1` inside.
    #[must_use]
    pub fn factor(&self, bone: usize) -> f32 {
        match *self {
            Mask::All => 1.0,
            Mask::Range { first, last } => f32::from(u8::from((first..=last).contains(&bone))),
            Mask::Weights(w) => w.get(bone).map_or(0.0, |w| {
                if w.is_finite() {
                    w.clamp(0.0, 1.0)
                } else {
                    0.0
                }
            }),
        }
    }
}

/// One pose in a blend: what it contributes, and where. The pose is a [`LocalPose`] for
/// [`Blender::blend`], a [`SoaPose`] for [`Blender::blend_soa`].
#[derive(Debug)]
pub struct Layer<'a, P = LocalPose> {
    /// A sampled pose of the skeleton (bones past its end do not contribute).
    pub pose: &'a P,
    /// Its weight; a weight that is not positive and finite contributes nothing.
    pub weight: f32,
    /// The bones it plays.
    pub mask: Mask<'a>,
}

impl<P> Clone for Layer<'_, P> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<P> Copy for Layer<'_, P> {}

impl<'a, P> Layer<'a, P> {
    /// `pose` on every bone with `weight`.
    #[must_use]
    pub fn new(pose: &'a P, weight: f32) -> Layer<'a, P> {
        Layer {
            pose,
            weight,
            mask: Mask::All,
        }
    }

    /// This layer restricted to `mask`.
    #[must_use]
    pub fn masked(self, mask: Mask<'a>) -> Layer<'a, P> {
        Layer { mask, ..self }
    }

    /// Each bone's [`Layer::weight_of`] into `row` (0 from bone `played` on, which the pose
    /// lacks); whether any is positive. A range or the whole skeleton is a fill, not a call
    /// a bone.
    fn fill_weights(&self, played: usize, row: &mut [f32]) -> bool {
        let w = self.weight;
        let played = played.min(row.len());
        if !(w.is_finite() && w > 0.0) || played == 0 {
            row.fill(0.0);
            return false;
        }
        let (kept, rest) = row.split_at_mut(played);
        rest.fill(0.0);
        match self.mask {
            Mask::All => {
                kept.fill(w);
                true
            }
            Mask::Range { first, last } => {
                kept.fill(0.0);
                let last = last.min(played - 1);
                if first > last {
                    return false;
                }
                kept[first..=last].fill(w);
                true
            }
            Mask::Weights(_) => {
                let mut any = false;
                for (bone, out) in kept.iter_mut().enumerate() {
                    *out = self.weight_of(bone);
                    any |= *out > 0.0;
                }
                any
            }
        }
    }

    /// The weight this layer gives `bone`: its weight times its mask's factor, or 0.
    fn weight_of(&self, bone: usize) -> f32 {
        let w = self.weight * self.mask.factor(bone);
        if w.is_finite() && w > 0.0 { w } else { 0.0 }
    }
}

/// The running sums of one bone.
#[derive(Debug, Clone, Copy, Default)]
struct Sum {
    rotation: Vec4,
    translation: Vec3A,
    scale: Vec3A,
    weight: f32,
}

impl Sum {
    /// Adds `w` of a bone's rotation and translation.
    #[inline]
    fn add(&mut self, (q, t): (Quat, Vec3A), w: f32) {
        let q = Vec4::from(q);
        // The same rotation in the hemisphere of what is summed so far.
        let q = if self.rotation.dot(q) < 0.0 { -q } else { q };
        self.rotation += q * w;
        self.translation += t * w;
        self.weight += w;
    }
}

/// A threshold as the blend uses it: one that is not positive and finite counts as 0.
fn usable(threshold: f32) -> f32 {
    if threshold.is_finite() && threshold > 0.0 {
        threshold
    } else {
        0.0
    }
}

/// The scale of `bone` in `pose`: 1 where the pose does not scale.
fn scale_of<P: Poses>(pose: &P, bone: usize) -> Vec3A {
    pose.scale_slice().get(bone).copied().unwrap_or(Vec3A::ONE)
}

/// What the scalar blend reads of a pose, in either layout.
trait Poses {
    /// Number of bones.
    fn bone_count(&self) -> usize;
    /// Bone `bone`'s rotation and translation (`bone` below [`Poses::bone_count`]).
    fn pose_at(&self, bone: usize) -> (Quat, Vec3A);
    /// Per bone scales; empty where no bone scales.
    fn scale_slice(&self) -> &[Vec3A];
}

impl Poses for LocalPose {
    fn bone_count(&self) -> usize {
        self.bones.len()
    }

    fn pose_at(&self, bone: usize) -> (Quat, Vec3A) {
        self.bones[bone]
    }

    fn scale_slice(&self) -> &[Vec3A] {
        &self.scales
    }
}

impl Poses for SoaPose {
    fn bone_count(&self) -> usize {
        self.len()
    }

    fn pose_at(&self, bone: usize) -> (Quat, Vec3A) {
        self.bone(bone).unwrap_or((Quat::IDENTITY, Vec3A::ZERO))
    }

    fn scale_slice(&self) -> &[Vec3A] {
        &self.scales
    }
}

/// Blends poses into one, reusing its buffers from one frame to the next.
///
/// ```
/// use skelmap_core::glam::{Quat, Vec3A};
/// use skelmap_core::pose::LocalPose;
/// use skelmap_core::pose::blend::{Blender, Layer, Mask};
/// let pose = |angle: f32, x: f32| {
///     let mut pose = LocalPose::default();
///     pose.bones = vec![(Quat::from_rotation_z(angle), Vec3A::new(x, 0.0, 0.0)); 3];
///     pose
/// };
/// let (rest, walk, run) = (pose(0.0, 0.0), pose(0.2, 1.0), pose(0.6, 3.0));
/// let (mut blender, mut out) = (Blender::default(), LocalPose::default());
/// // Walk everywhere, run on bones 1 and 2 as well: those get half of each.
/// let layers = [Layer::new(&walk, 1.0), Layer::new(&run, 1.0).masked(Mask::Range { first: 1, last: 2 })];
/// blender.blend(&rest, &layers, 0.1, &mut out);
/// assert_eq!(out.bones[0].1, Vec3A::new(1.0, 0.0, 0.0));
/// assert!(out.bones[2].1.abs_diff_eq(Vec3A::new(2.0, 0.0, 0.0), 1e-6));
/// assert!(out.bones[2].0.abs_diff_eq(Quat::from_rotation_z(0.4), 1e-6));
/// ```
#[derive(Debug, Clone, Default)]
pub struct Blender {
    sums: Vec<Sum>,
    /// Per layer, how the 16-bone kernel weighs it.
    plan: Vec<Plan>,
    /// Per layer, `bones` weights (grown to and filled for [`Plan::PerBone`] layers only).
    weights: Vec<f32>,
}

/// How the 16-bone kernel weighs one layer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Plan {
    /// The layer contributes nothing.
    Skip,
    /// Every bone at this weight (the layer plays every bone fully and has them all).
    Uniform(f32),
    /// Each bone at its own weight, the layer's row of `Blender::weights` (0 for the bones
    /// its mask leaves out or its pose lacks).
    PerBone,
}

impl Blender {
    /// `layers` blended over the `rest` pose into `out` (its bones and scales replaced; its
    /// sampling scratch kept), for as many bones as `rest` has. A bone whose total weight is
    /// below `threshold` takes `threshold − total` of its rest pose as well (a threshold
    /// that is not positive and finite counts as 0; with no weight at all a bone holds its
    /// rest pose).
    ///
    /// 16 bones a step where the CPU has AVX-512F and no pose scales; see the module docs.
    pub fn blend(
        &mut self,
        rest: &LocalPose,
        layers: &[Layer<'_>],
        threshold: f32,
        out: &mut LocalPose,
    ) {
        self.blend_with_level(SimdLevel::Avx512, rest, layers, threshold, out);
    }

    /// [`Blender::blend`] at an instruction-set level: [`SimdLevel::Avx512`] runs 16 bones a
    /// step where the CPU has AVX-512F and no pose scales, every other level (or a CPU
    /// without it) the scalar blend, the reference.
    ///
    /// ```
    /// use skelmap_core::glam::{Quat, Vec3A};
    /// use skelmap_core::pose::LocalPose;
    /// use skelmap_core::pose::blend::{Blender, Layer};
    /// use skelmap_core::skin::SimdLevel;
    /// let pose = |angle: f32| {
    ///     let mut pose = LocalPose::default();
    ///     pose.bones = (0..40).map(|b| (Quat::from_rotation_x(angle * b as f32), Vec3A::X)).collect();
    ///     pose
    /// };
    /// let (rest, a, b) = (pose(0.0), pose(0.01), pose(0.03));
    /// let layers = [Layer::new(&a, 1.0), Layer::new(&b, 0.5)];
    /// let (mut blender, mut fast, mut scalar) = (Blender::default(), LocalPose::default(), LocalPose::default());
    /// blender.blend_with_level(SimdLevel::Avx512, &rest, &layers, 0.1, &mut fast);
    /// blender.blend_with_level(SimdLevel::Portable, &rest, &layers, 0.1, &mut scalar);
    /// for (f, s) in fast.bones.iter().zip(&scalar.bones) {
    ///     assert!(f.0.abs_diff_eq(s.0, 1e-6) && f.1.abs_diff_eq(s.1, 1e-6));
    /// }
    /// ```
    pub fn blend_with_level(
        &mut self,
        level: SimdLevel,
        rest: &LocalPose,
        layers: &[Layer<'_>],
        threshold: f32,
        out: &mut LocalPose,
    ) {
        let threshold = usable(threshold);
        out.skin_scales.clone_from(&rest.skin_scales);
        // Scales are summed only where some pose has them (IQM).
        let scales = !rest.scales.is_empty() || layers.iter().any(|l| !l.pose.scales.is_empty());
        if level == SimdLevel::Avx512 && !scales && self.blend_lanes(rest, layers, threshold, out) {
            return;
        }
        self.blend_scalar(rest, layers, threshold, scales, out);
    }

    /// [`Blender::blend`] of poses in the [`SoaPose`] layout, which the 16-bone kernel reads
    /// as they are stored (no regrouping, whole cache lines): the same rule, the result as a
    /// [`LocalPose`] for what follows (control, IK, palettes). Poses that scale, or a CPU
    /// without AVX-512F, take the scalar blend. Layers sampled with
    /// [`sample_soa`](super::sample_soa) (or [`Model::sample_soa`](crate::Model::sample_soa))
    /// come out of DPM's sampler in this layout directly.
    ///
    /// ```
    /// use skelmap_core::glam::{Quat, Vec3A};
    /// use skelmap_core::pose::{LocalPose, SoaPose};
    /// use skelmap_core::pose::blend::{Blender, Layer, Mask};
    /// let pose = |angle: f32| {
    ///     let mut pose = LocalPose::default();
    ///     pose.bones = (0..40).map(|b| (Quat::from_rotation_x(angle * b as f32), Vec3A::X)).collect();
    ///     pose
    /// };
    /// let (rest, a, b) = (pose(0.0), pose(0.01), pose(0.03));
    /// let torso = Mask::Range { first: 10, last: 30 };
    /// let (mut blender, mut from_soa, mut from_local) = (Blender::default(), LocalPose::default(), LocalPose::default());
    /// let (rest_soa, a_soa, b_soa) = (SoaPose::from_local(&rest), SoaPose::from_local(&a), SoaPose::from_local(&b));
    /// blender.blend_soa(&rest_soa, &[Layer::new(&a_soa, 1.0), Layer::new(&b_soa, 1.0).masked(torso)], 0.1, &mut from_soa);
    /// blender.blend(&rest, &[Layer::new(&a, 1.0), Layer::new(&b, 1.0).masked(torso)], 0.1, &mut from_local);
    /// for (s, l) in from_soa.bones.iter().zip(&from_local.bones) {
    ///     assert!(s.0.abs_diff_eq(l.0, 1e-6) && s.1.abs_diff_eq(l.1, 1e-6));
    /// }
    /// ```
    pub fn blend_soa(
        &mut self,
        rest: &SoaPose,
        layers: &[Layer<'_, SoaPose>],
        threshold: f32,
        out: &mut LocalPose,
    ) {
        self.blend_soa_with_level(SimdLevel::Avx512, rest, layers, threshold, out);
    }

    /// [`Blender::blend_soa`] at an instruction-set level, as [`Blender::blend_with_level`].
    pub fn blend_soa_with_level(
        &mut self,
        level: SimdLevel,
        rest: &SoaPose,
        layers: &[Layer<'_, SoaPose>],
        threshold: f32,
        out: &mut LocalPose,
    ) {
        let threshold = usable(threshold);
        out.skin_scales.clone_from(&rest.skin_scales);
        let scales = !rest.scales.is_empty() || layers.iter().any(|l| !l.pose.scales.is_empty());
        if level == SimdLevel::Avx512 && !scales && super::lanes::blend_supported() {
            let bones = rest.len();
            self.plan(bones, layers);
            out.bones.resize(bones, (Quat::IDENTITY, Vec3A::ZERO));
            out.scales.clear();
            if super::lanes::blend_soa(
                rest,
                layers,
                &self.plan,
                &self.weights,
                threshold,
                &mut out.bones,
            ) {
                return;
            }
        }
        self.blend_scalar(rest, layers, threshold, scales, out);
    }

    /// Each layer's [`Plan`] into `self.plan`, and the weights of its `PerBone` layers into
    /// `self.weights` (layer `k`'s at `k · bones`).
    fn plan<P: Poses>(&mut self, bones: usize, layers: &[Layer<'_, P>]) {
        self.plan.clear();
        for (k, layer) in layers.iter().enumerate() {
            let played = layer.pose.bone_count().min(bones);
            let plan = if layer.mask == Mask::All && played == bones {
                let w = layer.weight_of(0);
                if w > 0.0 {
                    Plan::Uniform(w)
                } else {
                    Plan::Skip
                }
            } else {
                let end = (k + 1) * bones;
                if self.weights.len() < end {
                    self.weights.resize(end, 0.0);
                }
                if layer.fill_weights(played, &mut self.weights[k * bones..end]) {
                    Plan::PerBone
                } else {
                    Plan::Skip
                }
            };
            self.plan.push(plan);
        }
    }

    /// The 16-bone kernel's blend, if the CPU runs it: each layer's [`Plan`] and weights,
    /// then the kernel. `false`, with `out` untouched, where it does not.
    fn blend_lanes(
        &mut self,
        rest: &LocalPose,
        layers: &[Layer<'_>],
        threshold: f32,
        out: &mut LocalPose,
    ) -> bool {
        if !super::lanes::blend_supported() {
            return false;
        }
        let bones = rest.bones.len();
        self.plan(bones, layers);
        out.bones.resize(bones, (Quat::IDENTITY, Vec3A::ZERO));
        out.scales.clear();
        super::lanes::blend(
            &rest.bones,
            layers,
            &self.plan,
            &self.weights,
            threshold,
            &mut out.bones,
        )
    }

    /// The scalar blend, one bone of one layer at a time: the reference.
    fn blend_scalar<P: Poses>(
        &mut self,
        rest: &P,
        layers: &[Layer<'_, P>],
        threshold: f32,
        scales: bool,
        out: &mut LocalPose,
    ) {
        let bones = rest.bone_count();
        self.sums.clear();
        self.sums.resize(bones, Sum::default());
        for layer in layers {
            let played = layer.pose.bone_count().min(bones);
            let sums = &mut self.sums[..played];
            if layer.mask == Mask::All {
                // One weight for every bone: no mask to look up.
                let w = layer.weight_of(0);
                if w > 0.0 {
                    for (bone, sum) in sums.iter_mut().enumerate() {
                        sum.add(layer.pose.pose_at(bone), w);
                    }
                    if scales {
                        for (bone, sum) in sums.iter_mut().enumerate() {
                            sum.scale += scale_of(layer.pose, bone) * w;
                        }
                    }
                }
                continue;
            }
            for (bone, sum) in sums.iter_mut().enumerate() {
                let w = layer.weight_of(bone);
                if w > 0.0 {
                    sum.add(layer.pose.pose_at(bone), w);
                    if scales {
                        sum.scale += scale_of(layer.pose, bone) * w;
                    }
                }
            }
        }
        out.bones.resize(bones, (Quat::IDENTITY, Vec3A::ZERO));
        out.scales.clear();
        if scales {
            out.scales.resize(bones, Vec3A::ONE);
        }
        for (bone, (sum, out_bone)) in self.sums.iter_mut().zip(&mut out.bones).enumerate() {
            // No weight at all: the rest pose alone, whatever the threshold.
            let fill = if sum.weight > 0.0 {
                threshold - sum.weight
            } else {
                1.0
            };
            if fill > 0.0 {
                sum.add(rest.pose_at(bone), fill);
                if scales {
                    sum.scale += scale_of(rest, bone) * fill;
                }
            }
            let inverse = 1.0 / sum.weight;
            let rotation = sum.rotation.normalize_or(Vec4::W);
            *out_bone = (Quat::from_vec4(rotation), sum.translation * inverse);
        }
        if scales {
            for (scale, sum) in out.scales.iter_mut().zip(&self.sums) {
                *scale = sum.scale / sum.weight;
            }
        }
    }

    /// `layer`, an additive pose ([`additive_difference`]), added onto `pose` with the
    /// layer's weight `w` (times its mask): each bone turned by `nlerp(identity, Δq, |w|)`
    /// after its own rotation, moved by `w·Δt` and scaled by `lerp(1, Δs, |w|)`; a negative
    /// weight applies the inverse turn and divides by the scale instead (ozz's subtractive
    /// layers).
    pub fn add(&self, layer: &Layer<'_>, pose: &mut LocalPose) {
        let bones = pose.bones.len().min(layer.pose.bones.len());
        let scales = !layer.pose.scales.is_empty();
        if scales && pose.scales.len() < pose.bones.len() {
            pose.scales.resize(pose.bones.len(), Vec3A::ONE);
        }
        for bone in 0..bones {
            let w = layer.weight * layer.mask.factor(bone);
            if !w.is_finite() || w == 0.0 {
                continue;
            }
            let (dq, dt) = layer.pose.bones[bone];
            let amount = w.abs();
            let turn = Quat::IDENTITY.lerp(hemisphere(dq), amount).normalize();
            let ds = Vec3A::ONE + (scale_of(layer.pose, bone) - Vec3A::ONE) * amount;
            let (q, t) = &mut pose.bones[bone];
            if w > 0.0 {
                *q = (*q * turn).normalize();
                *t += dt * amount;
                if scales {
                    pose.scales[bone] *= ds;
                }
            } else {
                *q = (*q * turn.conjugate()).normalize();
                *t -= dt * amount;
                if scales {
                    pose.scales[bone] /= ds;
                }
            }
        }
    }
}

/// `q` or `−q`, whichever has `w ≥ 0`: the shorter way from the identity.
fn hemisphere(q: Quat) -> Quat {
    if q.w < 0.0 { -q } else { q }
}

/// The additive difference of `pose` from `reference` into `out`, for the bones both have:
/// per bone `Δq = q_ref⁻¹ · q`, `Δt = t − t_ref` and `Δs = s / s_ref` (ozz's additive
/// animation), what [`Blender::add`] adds back (at weight 1 onto `reference`, `pose` again).
pub fn additive_difference(pose: &LocalPose, reference: &LocalPose, out: &mut LocalPose) {
    let bones = pose.bones.len().min(reference.bones.len());
    out.bones.clear();
    out.scales.clear();
    out.skin_scales.clear();
    for bone in 0..bones {
        let ((q, t), (qr, tr)) = (pose.bones[bone], reference.bones[bone]);
        out.bones.push(((qr.inverse() * q).normalize(), t - tr));
    }
    if !pose.scales.is_empty() || !reference.scales.is_empty() {
        out.scales.extend((0..bones).map(|bone| {
            let (s, r) = (scale_of(pose, bone), scale_of(reference, bone));
            let safe = |c: f32| if c == 0.0 { 1.0 } else { c };
            Vec3A::new(s.x / safe(r.x), s.y / safe(r.y), s.z / safe(r.z))
        }));
    }
}

/// The two weights of a crossfade from one clip to another over `duration` seconds, `time`
/// seconds after it began: `(1 − u, u)` with `u = time / duration` clamped to `0..=1` (a
/// duration that is not positive gives `(0, 1)`: the second clip at once).
#[must_use]
pub fn crossfade(time: f32, duration: f32) -> (f32, f32) {
    let u = if duration > 0.0 && duration.is_finite() {
        (time / duration).clamp(0.0, 1.0)
    } else {
        1.0
    };
    let u = if u.is_nan() { 0.0 } else { u };
    (1.0 - u, u)
}
