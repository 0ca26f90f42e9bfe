//! Inverse kinematics on model-space transforms, as ozz-animation 0.16 defines its
//! `IKTwoBoneJob` and `IKAimJob`: each solver reads the world transforms of the joints it
//! moves (a [`Palette`](super::Palette)'s entries) and returns local rotations to apply after
//! each joint's own ([`LocalPose::bones`]: `q ← q · correction`), after which the palette is
//! rebuilt from the first joint moved ([`Palette::build_from`](super::Palette::build_from)).
//!
//! Where ozz would divide by zero (a zero-length bone, a joint matrix that does not invert,
//! a pole vector along the target), the solvers give identity corrections (or skip the
//! step that would divide) instead of NaN; every input is accepted and every output is
//! finite.

use glam::{Affine3A, Quat, Vec3A};

use super::local::LocalPose;

/// A two-bone chain (start, middle and end joints, which need not be direct parent and
/// child) turned so that the end joint reaches `target` (ozz's `IKTwoBoneJob`).
///
/// The middle joint bends about `mid_axis` (in its own space; a positive turn opens the
/// angle between the two bones); the start joint turns the chain onto the target and then
/// about the start-to-target line so that the chain's plane contains `pole_vector`, then by
/// `twist_angle` more. `soften` is the fraction of the chain's length from which the end
/// joint starts to fall behind a receding target, so that the chain straightens smoothly
/// (1: never); `weight` blends from no correction (0) to the full one (1).
///
/// ```
/// use glam::{Affine3A, Quat, Vec3, Vec3A};
/// use skelmap_core::pose::TwoBoneIk;
/// // A straight arm along x: shoulder at 0, elbow at 1, hand at 2.
/// let start = Affine3A::IDENTITY;
/// let mid = Affine3A::from_translation(Vec3::X);
/// let end = Affine3A::from_translation(Vec3::X * 2.0);
/// let ik = TwoBoneIk { target: Vec3A::new(1.0, 1.0, 0.0), ..TwoBoneIk::default() };
/// let c = ik.solve(&start, &mid, &end);
/// assert!(c.reached);
/// // Apply the corrections and find the hand again.
/// let start2 = start * Affine3A::from_quat(c.start);
/// let mid2 = start2 * (start.inverse() * mid) * Affine3A::from_quat(c.mid);
/// let end2 = mid2 * (mid.inverse() * end);
/// assert!(Vec3A::from(end2.translation).abs_diff_eq(ik.target, 1e-5));
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TwoBoneIk {
    /// Where the end joint should be, in model space.
    pub target: Vec3A,
    /// The middle joint's bending axis, in its own space (normalised here if it is not).
    pub mid_axis: Vec3A,
    /// The direction the middle joint should point to, in model space.
    pub pole_vector: Vec3A,
    /// A further turn of the chain about the start-to-target line, in radians.
    pub twist_angle: f32,
    /// The fraction of the chain's length from which the end joint lags the target,
    /// clamped to `0..=1`.
    pub soften: f32,
    /// How much of the correction is applied, clamped to `0..=1`.
    pub weight: f32,
}

impl Default for TwoBoneIk {
    /// ozz's defaults: target at the origin, bending about z, pole along y, no twist, no
    /// softening, full weight.
    fn default() -> Self {
        TwoBoneIk {
            target: Vec3A::ZERO,
            mid_axis: Vec3A::Z,
            pole_vector: Vec3A::Y,
            twist_angle: 0.0,
            soften: 1.0,
            weight: 1.0,
        }
    }
}

/// What [`TwoBoneIk::solve`] found.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TwoBoneIkCorrection {
    /// The rotation to apply after the start joint's local rotation.
    pub start: Quat,
    /// The rotation to apply after the middle joint's local rotation.
    pub mid: Quat,
    /// Whether the end joint reaches the target: it lies within the (softened) chain's reach
    /// and the weight is 1.
    pub reached: bool,
}

impl TwoBoneIkCorrection {
    const NONE: TwoBoneIkCorrection = TwoBoneIkCorrection {
        start: Quat::IDENTITY,
        mid: Quat::IDENTITY,
        reached: false,
    };

    /// Applies the corrections to bones `start` and `mid` of `pose` (bones it lacks are
    /// skipped). Rebuild the palette from `start` afterwards.
    pub fn apply(&self, pose: &mut LocalPose, start: usize, mid: usize) {
        apply(pose, start, self.start);
        apply(pose, mid, self.mid);
    }
}

/// `q ← q · correction` for `bone`, if the pose has it.
fn apply(pose: &mut LocalPose, bone: usize, correction: Quat) {
    if let Some((q, _)) = pose.bones.get_mut(bone) {
        *q = (*q * correction).normalize();
    }
}

impl TwoBoneIk {
    /// The corrections that bring the end joint of the chain whose model-space transforms
    /// are `start`, `mid` and `end` to the target.
    #[must_use]
    pub fn solve(&self, start: &Affine3A, mid: &Affine3A, end: &Affine3A) -> TwoBoneIkCorrection {
        let weight = clamp01(self.weight);
        let mid_axis = unit(self.mid_axis);
        if weight <= 0.0 || mid_axis == Vec3A::ZERO {
            return TwoBoneIkCorrection::NONE;
        }
        let (Some(inv_start), Some(inv_mid)) = (invert(start), invert(mid)) else {
            return TwoBoneIkCorrection::NONE;
        };
        let (start_at, mid_at, end_at) = (start.translation, mid.translation, end.translation);
        // The bones in the middle joint's space (_ms) and the start joint's (_ss).
        let start_mid_ms = -inv_mid.transform_point3a(start_at);
        let mid_end_ms = inv_mid.transform_point3a(end_at);
        let start_mid_ss = inv_start.transform_point3a(mid_at);
        let end_ss = inv_start.transform_point3a(end_at);
        let start_mid_len2 = start_mid_ss.length_squared();
        let mid_end_len2 = (end_ss - start_mid_ss).length_squared();
        let start_end_len2 = end_ss.length_squared();
        if !(start_mid_len2 > 0.0 && mid_end_len2 > 0.0) {
            return TwoBoneIkCorrection::NONE;
        }

        // The target, softened.
        let target_ss = inv_start.transform_point3a(self.target);
        let (start_mid_len, mid_end_len) = (start_mid_len2.sqrt(), mid_end_len2.sqrt());
        let target_len = target_ss.length();
        let chain = start_mid_len + mid_end_len;
        let hard = chain * clamp01(self.soften);
        let soft = chain - hard;
        let (target_ss, target_len2) = if target_len > hard && target_len > 0.0 && soft > 0.0 {
            // The end lags by soft · 3⁴ / (α + 3)⁴ where α is how far past `hard` the target
            // is, in units of `soft`: slope 1 at α = 0, never past the chain's length.
            let alpha = (target_len - hard) / soft;
            let ratio = 81.0 / (alpha + 3.0).powi(4);
            let len = hard + soft - soft * ratio;
            (target_ss * (len / target_len), len * len)
        } else {
            (target_ss, target_len * target_len)
        };
        let reached =
            target_len <= hard && target_len > (start_mid_len - mid_end_len).abs() && weight >= 1.0;

        // The middle joint: the angle between the bones by the law of cosines, now and for the
        // target, the present one negative when the chain bends against `mid_axis`; the turn
        // from one to the other about `mid_axis`, from the half angles' sines and cosines
        // (each angle lies in 0..=π, so theirs are the non-negative square roots).
        let half_rlen = 0.5 / (start_mid_len * mid_end_len);
        let sum2 = start_mid_len2 + mid_end_len2;
        let corrected = ((sum2 - target_len2) * half_rlen).clamp(-1.0, 1.0);
        let initial = ((sum2 - start_end_len2) * half_rlen).clamp(-1.0, 1.0);
        let half = |cos: f32| ((0.5 * (1.0 - cos)).sqrt(), (0.5 * (1.0 + cos)).sqrt());
        let ((sin_c, cos_c), (mut sin_i, cos_i)) = (half(corrected), half(initial));
        if start_mid_ms.cross(mid_axis).dot(mid_end_ms) < 0.0 {
            sin_i = -sin_i;
        }
        let turn = mid_axis * (sin_c * cos_i - cos_c * sin_i);
        let mid_rot = Quat::from_xyzw(turn.x, turn.y, turn.z, cos_c * cos_i + sin_c * sin_i);

        // The start joint: the bent chain's end onto the target, then its plane onto the
        // pole's.
        let pole_ss = inv_start.transform_vector3a(self.pole_vector);
        let mid_end_final =
            inv_start.transform_vector3a(mid.transform_vector3a(mid_rot * mid_end_ms));
        let end_to_target = rotation_between(start_mid_ss + mid_end_final, target_ss);
        let mut start_rot = end_to_target;
        if target_len2 > 0.0 {
            let ref_normal = target_ss.cross(pole_ss);
            let mid_axis_ss = inv_start.transform_vector3a(mid.transform_vector3a(mid_axis));
            let joint_normal = end_to_target * mid_axis_ss;
            let axis = target_ss / target_len2.sqrt();
            let flip = joint_normal.dot(pole_ss) < 0.0;
            let plane = plane_rotation(axis, ref_normal, joint_normal, flip);
            start_rot = if self.twist_angle != 0.0 && self.twist_angle.is_finite() {
                Quat::from_axis_angle(axis.into(), self.twist_angle) * plane * end_to_target
            } else {
                plane * end_to_target
            };
        }
        let (start, mid) = (weighted(start_rot, weight), weighted(mid_rot, weight));
        if !(start.is_finite() && mid.is_finite()) {
            return TwoBoneIkCorrection::NONE;
        }
        TwoBoneIkCorrection {
            start,
            mid,
            reached,
        }
    }
}

/// One joint turned so that its `forward` axis, shifted by `offset`, points at `target`, and
/// its `up` axis lies in the plane of the aim and `pole_vector` (ozz's `IKAimJob`): a head
/// looking at something, a gun aimed along an offset barrel.
///
/// `forward`, `offset` and `up` are in the joint's space, `target` and `pole_vector` in
/// model space. With an offset, the target is reached only when it lies outside the sphere
/// the offset sweeps.
///
/// ```
/// use glam::{Affine3A, Quat, Vec3A};
/// use skelmap_core::pose::AimIk;
/// let head = Affine3A::IDENTITY;
/// let ik = AimIk { target: Vec3A::new(0.0, 0.0, 5.0), pole_vector: Vec3A::Y, ..AimIk::default() };
/// let c = ik.solve(&head);
/// assert!(c.reached);
/// // Forward (x) now points at the target (+z).
/// assert!((c.joint * Vec3A::X).abs_diff_eq(Vec3A::Z, 1e-6));
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AimIk {
    /// What to aim at, in model space.
    pub target: Vec3A,
    /// The joint's aiming axis, in its space (normalised here if it is not).
    pub forward: Vec3A,
    /// Where the aim starts from, relative to the joint, in its space.
    pub offset: Vec3A,
    /// The joint's up axis, in its space.
    pub up: Vec3A,
    /// The direction the up axis should lean to, in model space.
    pub pole_vector: Vec3A,
    /// A further turn about the joint-to-target line, in radians.
    pub twist_angle: f32,
    /// How much of the correction is applied, clamped to `0..=1`.
    pub weight: f32,
}

impl Default for AimIk {
    /// ozz's defaults: forward along x, up and pole along y, no offset, no twist, full weight.
    fn default() -> Self {
        AimIk {
            target: Vec3A::ZERO,
            forward: Vec3A::X,
            offset: Vec3A::ZERO,
            up: Vec3A::Y,
            pole_vector: Vec3A::Y,
            twist_angle: 0.0,
            weight: 1.0,
        }
    }
}

/// What [`AimIk::solve`] found.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AimIkCorrection {
    /// The rotation to apply after the joint's local rotation.
    pub joint: Quat,
    /// Whether the aim can reach the target (always, without an offset, unless the target
    /// is at the joint).
    pub reached: bool,
}

impl AimIkCorrection {
    /// Applies the correction to bone `joint` of `pose` (skipped if it lacks it). Rebuild the
    /// palette from `joint` afterwards.
    pub fn apply(&self, pose: &mut LocalPose, joint: usize) {
        apply(pose, joint, self.joint);
    }
}

impl AimIk {
    /// The correction that aims the joint whose model-space transform is `joint`.
    #[must_use]
    pub fn solve(&self, joint: &Affine3A) -> AimIkCorrection {
        let none = |reached| AimIkCorrection {
            joint: Quat::IDENTITY,
            reached,
        };
        let Some(inverse) = invert(joint) else {
            return none(false);
        };
        let forward = unit(self.forward);
        let to_target = inverse.transform_point3a(self.target);
        let len2 = to_target.length_squared();
        // The forward line through `offset` meets the sphere through the target about the
        // joint where `offset + forward · s` has length |to_target|.
        let along = forward.dot(self.offset);
        let across2 = self.offset.length_squared() - along * along;
        if across2 > len2 || !len2.is_finite() {
            return none(false);
        }
        if len2 == 0.0 || forward == Vec3A::ZERO {
            return none(true);
        }
        let aimed = self.offset + forward * ((len2 - across2).sqrt() - along);
        let aim = rotation_between(aimed, to_target);
        let up = aim * self.up;
        let pole = inverse.transform_vector3a(self.pole_vector);
        let ref_normal = pole.cross(to_target);
        let joint_normal = up.cross(to_target);
        let axis = to_target / len2.sqrt();
        let flip = ref_normal.dot(up) < 0.0;
        let plane = plane_rotation(axis, ref_normal, joint_normal, flip);
        let twisted = if self.twist_angle != 0.0 && self.twist_angle.is_finite() {
            Quat::from_axis_angle(axis.into(), self.twist_angle) * plane * aim
        } else {
            plane * aim
        };
        let correction = weighted(twisted, clamp01(self.weight));
        if !correction.is_finite() {
            return none(false);
        }
        AimIkCorrection {
            joint: correction,
            reached: true,
        }
    }
}

/// `x` clamped to `0..=1`, NaN as 0.
fn clamp01(x: f32) -> f32 {
    if x.is_nan() { 0.0 } else { x.clamp(0.0, 1.0) }
}

/// `v` normalised (zero where it has no direction), without a square root where it is
/// already of unit length to within rounding (the usual axis).
fn unit(v: Vec3A) -> Vec3A {
    if (v.length_squared() - 1.0).abs() <= 2.0 * f32::EPSILON {
        v
    } else {
        v.normalize_or_zero()
    }
}

/// The inverse of `m`, or `None` when it has none: the cofactors and determinant computed
/// once (as `Affine3A::inverse` does, without its second determinant).
fn invert(m: &Affine3A) -> Option<Affine3A> {
    let (x, y, z) = (m.matrix3.x_axis, m.matrix3.y_axis, m.matrix3.z_axis);
    let (yz, zx, xy) = (y.cross(z), z.cross(x), x.cross(y));
    let det = z.dot(xy);
    if !(det != 0.0 && det.is_finite() && m.translation.is_finite()) {
        return None;
    }
    let inverse = glam::Mat3A::from_cols(yz, zx, xy).transpose() * det.recip();
    Some(Affine3A {
        matrix3: inverse,
        translation: -(inverse * m.translation),
    })
}

/// The shortest rotation taking the direction of `from` to that of `to` (the identity when
/// either is zero; a half turn about some perpendicular axis when they are opposite):
/// `(from × to, |from|·|to| + from · to)` normalised, one square root for both lengths.
fn rotation_between(from: Vec3A, to: Vec3A) -> Quat {
    let lengths = (from.length_squared() * to.length_squared()).sqrt();
    if !(lengths > 0.0 && lengths.is_finite()) {
        return Quat::IDENTITY;
    }
    let real = lengths + from.dot(to);
    if real <= 1e-6 * lengths {
        // Opposite: a half turn about an axis perpendicular to `from`.
        let axis = if from.x.abs() > from.z.abs() {
            Vec3A::new(-from.y, from.x, 0.0)
        } else {
            Vec3A::new(0.0, -from.z, from.y)
        };
        return Quat::from_xyzw(axis.x, axis.y, axis.z, 0.0).normalize();
    }
    let v = from.cross(to);
    Quat::from_xyzw(v.x, v.y, v.z, real).normalize()
}

/// The turn about the unit `axis` (or `−axis` when `flip`) by the angle between the plane
/// normals `reference` and `normal`; the identity when either is zero (a pole along the
/// target: no plane to align with).
///
/// Each normal is normalised on its own: the cosine of nearly aligned planes must round to
/// 1, as `sqrt(1 − cos)` magnifies its last bit.
fn plane_rotation(axis: Vec3A, reference: Vec3A, normal: Vec3A, flip: bool) -> Quat {
    match (reference.try_normalize(), normal.try_normalize()) {
        (Some(r), Some(n)) => rotation_about_cos(if flip { -axis } else { axis }, r.dot(n)),
        _ => Quat::IDENTITY,
    }
}

/// The rotation about the unit `axis` by the angle whose cosine is `cos` (clamped).
fn rotation_about_cos(axis: Vec3A, cos: f32) -> Quat {
    let cos = cos.clamp(-1.0, 1.0);
    let half_sin = (0.5 * (1.0 - cos)).sqrt();
    let half_cos = (0.5 * (1.0 + cos)).sqrt();
    let v = axis * half_sin;
    Quat::from_xyzw(v.x, v.y, v.z, half_cos)
}

/// `q` turned to `w ≥ 0`, then `nlerp(identity, q, weight)` when `weight < 1`.
fn weighted(q: Quat, weight: f32) -> Quat {
    let q = if q.w < 0.0 { -q } else { q };
    if weight < 1.0 {
        Quat::IDENTITY.lerp(q, weight).normalize()
    } else {
        q
    }
}
