//! MS3D animation: joint matrices at rest and at a time, and vertices skinned with them.
//!
//! A joint's local rest transform is its position and its Euler rotation, applied as
//! `R = Rz(z) · Ry(y) · Rx(x)` (MilkShape's `AngleMatrix`). Keys are relative to the rest pose:
//! the local transform at time `t` is `rest · [R(key rotation) | key position]`, rotation keys
//! interpolated as quaternions (shortest arc), position keys linearly, times before the first
//! or after the last key clamped to it. Absolute transforms follow the parent chain (in the
//! order [`Ms3d::evaluation_order`] gives, since files do not order parents first). Vertices are
//! stored in model space, so skinning applies `absolute(t) · absolute(rest)⁻¹` per joint and
//! blends up to four joints by [`Ms3d::vertex_weights`].

use glam::{Affine3A, EulerRot, Quat, Vec3};

use super::Ms3d;
use super::raw::Keyframe;

/// The rotation of MilkShape Euler angles `[x, y, z]` (radians): `Rz · Ry · Rx`.
#[must_use]
pub fn euler_to_quat(angles: [f32; 3]) -> Quat {
    Quat::from_euler(EulerRot::ZYX, angles[2], angles[1], angles[0])
}

/// Absolute joint transforms of the rest pose, one per joint (file order).
#[must_use]
pub fn rest_pose(model: &Ms3d<'_>) -> Vec<Affine3A> {
    absolute(model, |joint| {
        local_rest(joint.rotation(), joint.position())
    })
}

/// Absolute joint transforms at `seconds` into the animation, one per joint (file order).
#[must_use]
pub fn pose_at(model: &Ms3d<'_>, seconds: f32) -> Vec<Affine3A> {
    absolute(model, |joint| {
        let (rotation_keys, position_keys) = joint.key_slices();
        let rotation = sample(rotation_keys, seconds, |a, b, f| {
            euler_to_quat(a).slerp(euler_to_quat(b), f)
        })
        .unwrap_or(Quat::IDENTITY);
        let position = sample(position_keys, seconds, |a, b, f| {
            Vec3::from(a).lerp(Vec3::from(b), f)
        })
        .unwrap_or(Vec3::ZERO);
        local_rest(joint.rotation(), joint.position())
            * Affine3A::from_rotation_translation(rotation, position)
    })
}

/// Model-space vertex positions skinned with `pose` (from [`pose_at`] or [`rest_pose`]).
///
/// Vertices bound to no joint keep their stored position. With the rest pose every vertex
/// lands on its stored position.
#[must_use]
pub fn skin_positions(model: &Ms3d<'_>, pose: &[Affine3A]) -> Vec<[f32; 3]> {
    let mut out = vec![[0.0; 3]; model.vertices().len()];
    skin_positions_into(model, pose, &mut out);
    out
}

/// [`skin_positions`] into `out`, reusing the caller's storage: writes
/// `min(out.len(), vertices)` positions and returns how many it wrote.
pub fn skin_positions_into(model: &Ms3d<'_>, pose: &[Affine3A], out: &mut [[f32; 3]]) -> usize {
    let rest = rest_pose(model);
    let bind: Vec<Affine3A> = pose
        .iter()
        .zip(&rest)
        .map(|(now, rest)| *now * rest.inverse())
        .collect();
    let mut written = 0;
    for (i, slot) in out.iter_mut().enumerate().take(model.vertices().len()) {
        let stored = Vec3::from(model.position(i).unwrap_or_default());
        let weights = model.vertex_weights(i).unwrap_or_default();
        let mut sum = Vec3::ZERO;
        let mut total = 0.0;
        for (joint, weight) in weights.into_iter().flatten() {
            if let Some(m) = bind.get(usize::from(joint)) {
                sum += weight * m.transform_point3(stored);
                total += weight;
            }
        }
        *slot = if total > 0.0 {
            sum.to_array()
        } else {
            stored.to_array()
        };
        written += 1;
    }
    written
}

fn local_rest(rotation: [f32; 3], position: [f32; 3]) -> Affine3A {
    Affine3A::from_rotation_translation(euler_to_quat(rotation), Vec3::from(position))
}

/// Absolute transforms from local ones, parents first.
fn absolute(model: &Ms3d<'_>, local: impl Fn(&super::Joint<'_>) -> Affine3A) -> Vec<Affine3A> {
    let joints = model.joints();
    let mut out = vec![Affine3A::IDENTITY; joints.len()];
    for &j in model.evaluation_order() {
        let j = usize::from(j);
        let Some(joint) = joints.get(j) else { continue };
        let parent = joint.parent().and_then(|p| out.get(p)).copied();
        let m = local(joint);
        if let Some(slot) = out.get_mut(j) {
            *slot = parent.map_or(m, |p| p * m);
        }
    }
    out
}

/// The keyed value at `t`: clamped to the ends, `blend(a, b, fraction)` between two keys.
fn sample<T>(keys: &[Keyframe], t: f32, blend: impl Fn([f32; 3], [f32; 3], f32) -> T) -> Option<T> {
    let value = |k: &Keyframe| k.value.map(|v| v.get());
    let first = keys.first()?;
    let after = keys.partition_point(|k| k.time.get() <= t);
    let (a, b) = match (
        after.checked_sub(1).and_then(|i| keys.get(i)),
        keys.get(after),
    ) {
        (Some(a), Some(b)) => (a, b),
        (Some(last), None) => (last, last),
        (None, _) => (first, first),
    };
    let span = b.time.get() - a.time.get();
    let f = if span > 0.0 {
        ((t - a.time.get()) / span).clamp(0.0, 1.0)
    } else {
        0.0
    };
    Some(blend(value(a), value(b), f))
}
