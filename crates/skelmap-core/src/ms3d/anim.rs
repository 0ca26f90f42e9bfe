//! MS3D animation: joints' local poses at rest and at a time, the timeline as
//! [`PoseFrames`], and the stored vertices as a [`BindPoseMesh`].
//!
//! A joint's local rest transform is its position and its Euler rotation, applied as
//! `R = Rz(z) · Ry(y) · Rx(x)` (MilkShape's `AngleMatrix`). Keys are relative to the rest pose:
//! the local transform at time `t` is `rest · [R(key rotation) | key position]`, rotation keys
//! interpolated as quaternions (shortest arc), position keys linearly, times before the first
//! or after the last key clamped to it. Absolute transforms follow the parent chain (in the
//! order [`Ms3d::evaluation_order`] gives, since files do not order parents first): the local
//! poses are [`LocalPose`]s ([`Ms3d::local_rest_pose`], [`Ms3d::local_pose_at`], or frames of
//! the timeline through [`PoseFrames`]) and the absolute ones a
//! [`Palette`](crate::pose::Palette). Vertices are
//! stored in model space, so skinning applies `absolute(t) · absolute(rest)⁻¹` per joint and
//! blends up to four joints by [`Ms3d::vertex_weights`].

use glam::{Quat, Vec3A, Vec4};

use super::Ms3d;
use super::raw::Keyframe;
use crate::limits::Limits;
use crate::pose::local::{KeyCursor, Keyed};
use crate::pose::{BindPoseMesh, BindVertex, Interpolation, LocalPose, PoseFrames};

/// MilkShape's default frame rate, used when a file's keyframer states no usable one.
pub const DEFAULT_FPS: f32 = 24.0;

/// The rotation of MilkShape Euler angles `[x, y, z]` (radians): `Rz · Ry · Rx`.
#[must_use]
#[inline]
pub fn euler_to_quat(angles: [f32; 3]) -> Quat {
    crate::pose::euler::quat_from_zyx(angles)
}

impl Ms3d<'_> {
    /// The keyframer's rate in frames per second, or [`DEFAULT_FPS`] when it is not a positive
    /// finite number.
    #[must_use]
    pub fn fps(&self) -> f32 {
        let fps = self.animation_fps();
        if fps.is_finite() && fps > 0.0 {
            fps
        } else {
            DEFAULT_FPS
        }
    }

    /// Frames on the timeline: `total_frames`, at least 1 and at most the default
    /// [`Limits::max_frames`] (the field is not bounded by the file's size).
    #[must_use]
    pub fn num_frames(&self) -> usize {
        let limit = Limits::DEFAULT.max_frames as usize;
        usize::try_from(self.total_frames())
            .unwrap_or(0)
            .clamp(1, limit)
    }

    /// Frames up to the last key of any joint (later frames repeat it): at least 1, at most
    /// [`Ms3d::num_frames`]. The length of the timeline worth playing.
    #[must_use]
    pub fn keyed_frames(&self) -> usize {
        let last = self
            .joints()
            .iter()
            .flat_map(|j| j.rotation_keys().chain(j.position_keys()))
            .map(|(t, _)| t)
            .filter(|t| t.is_finite())
            .fold(0.0f32, f32::max);
        let frames = (last * self.fps()).ceil();
        let frames = if frames.is_finite() && frames > 0.0 {
            frames.min(self.num_frames() as f32) as usize
        } else {
            1
        };
        frames.clamp(1, self.num_frames())
    }

    /// The time in seconds of (fractional) frame index `frame`: `(frame + 1) / fps`, MilkShape
    /// numbering frames from 1 (the convention Irrlicht and assimp follow).
    #[must_use]
    pub fn frame_seconds(&self, frame: f32) -> f32 {
        (frame + 1.0) / self.fps()
    }

    /// Every joint's parent-relative rest transform into `out` (cleared first).
    pub fn local_rest_pose(&self, out: &mut LocalPose) {
        out.bones.clear();
        out.bones.extend(self.joints().iter().map(|joint| {
            (
                euler_to_quat(joint.rotation()),
                Vec3A::from(joint.position()),
            )
        }));
    }

    /// Every joint's parent-relative transform at `seconds` into `out` (cleared first): the
    /// rest transform times the keyed rotation (the two Euler keys around `seconds` blended
    /// along the shorter arc by `interpolation`; MilkShape slerps) and translation (lerp).
    ///
    /// `out` remembers where each joint's keys stood (see [`LocalPose`]): sampling forward in
    /// time resumes from there, and each key's Euler angles become a quaternion once for all
    /// the samples between it and the next key.
    pub fn local_pose_at(&self, seconds: f32, interpolation: Interpolation, out: &mut LocalPose) {
        let joints = self.joints();
        out.bones.clear();
        out.cursors.resize(joints.len(), KeyCursor::default());
        for (joint, cursor) in joints.iter().zip(&mut out.cursors) {
            out.bones
                .push(local_at(joint, seconds, interpolation, cursor));
        }
    }
}

/// Joint `joint`'s local transform at `seconds`, resuming from and updating `cursor`:
/// `rest · [key rotation | key position]`, each key composed with the rest transform once
/// and remembered in `cursor` (see [`KeyCursor`]).
fn local_at(
    joint: &super::Joint<'_>,
    seconds: f32,
    interpolation: Interpolation,
    cursor: &mut KeyCursor,
) -> (Quat, Vec3A) {
    let (rotation_keys, position_keys) = joint.key_slices();
    // Out-of-order keys are searched afresh every time, so that the result does not depend
    // on the samples before.
    if !joint.keys_in_order {
        (cursor.rotation_key, cursor.position_key) = (u32::MAX, u32::MAX);
    }
    // Compared value by value from the file: gathered into an array first, the bits went
    // through the stack and their reload stalled on store forwarding.
    let rest_values = || joint.head.rotation.iter().chain(&joint.head.position);
    let same_rest = rest_values()
        .zip(&cursor.rest_bits)
        .all(|(v, &bits)| v.get().to_bits() == bits);
    if !same_rest {
        // Another joint's cursor (a pose reused across models): forget its keys.
        for (bits, v) in cursor.rest_bits.iter_mut().zip(rest_values()) {
            *bits = v.get().to_bits();
        }
        cursor.rest = euler_to_quat(joint.rotation());
        cursor.rotations = [Keyed::forgotten(Quat::IDENTITY); 2];
        cursor.positions = [Keyed::forgotten(Vec3A::ZERO); 2];
    }
    let rest = cursor.rest;
    let origin = Vec3A::from(joint.position());
    let (qa, qb, f) = match segment(rotation_keys, seconds, &mut cursor.rotation_key) {
        Some((a, b, f)) => {
            let (qa, qb) = pair(&mut cursor.rotations, a, b, |k| {
                rest * euler_to_quat(value(k))
            });
            (qa, qb, f)
        }
        None => (rest, rest, 0.0),
    };
    let translation = match segment(position_keys, seconds, &mut cursor.position_key) {
        Some((a, b, f)) => {
            let (pa, pb) = pair(&mut cursor.positions, a, b, |k| {
                origin + rest * Vec3A::from(value(k))
            });
            pa.lerp(pb, f)
        }
        None => origin,
    };
    let rotation = match interpolation {
        Interpolation::Slerp => qa.slerp(qb, f),
        // Along the shorter arc, then normalised.
        Interpolation::Nlerp => {
            let (a, b) = (Vec4::from(qa), Vec4::from(qb));
            let b = if a.dot(b) < 0.0 { -b } else { b };
            Quat::from_vec4(a.lerp(b, f))
        }
    };
    (rotation.normalize(), translation)
}

/// The values `convert` derives from keys `a` and `b`, taken from `memo` where it holds them,
/// and left in it. `convert` reads the key itself: values passed in would go through memory.
#[inline]
fn pair<T: Copy>(
    memo: &mut [Keyed<T>; 2],
    a: &Keyframe,
    b: &Keyframe,
    convert: impl Fn(&Keyframe) -> T,
) -> (T, T) {
    let (bits_a, bits_b) = (bits(a), bits(b));
    let va = Keyed::remembered(memo, bits_a).unwrap_or_else(|| convert(a));
    let vb = match Keyed::remembered(memo, bits_b) {
        Some(v) => v,
        None if bits_b == bits_a => va,
        None => convert(b),
    };
    *memo = [
        Keyed {
            bits: bits_a,
            value: va,
        },
        Keyed {
            bits: bits_b,
            value: vb,
        },
    ];
    (va, vb)
}

/// The timeline's frames as [`PoseFrames`]: frame `f` is the pose at
/// [`Ms3d::frame_seconds`]`(f)`. [`Ms3d::local_pose_at`] samples between keys at any time instead.
impl<'data> PoseFrames<'data> for Ms3d<'data> {
    fn num_frames(&self) -> usize {
        Ms3d::num_frames(self)
    }

    fn bone_pose(&self, frame: usize, bone: usize) -> Option<(Quat, Vec3A)> {
        if frame >= Ms3d::num_frames(self) {
            return None;
        }
        let joint = self.joints().get(bone)?;
        let seconds = self.frame_seconds(frame as f32);
        let slerp = Interpolation::Slerp;
        Some(local_at(joint, seconds, slerp, &mut KeyCursor::default()))
    }
}

/// The vertices as stored, at rest, weighted by [`Ms3d::vertex_weights`].
impl BindPoseMesh for Ms3d<'_> {
    fn num_verts(&self) -> usize {
        self.vertices().len()
    }

    /// Weights from [`Ms3d::vertex_weights`] (normalised, the 1.8 extras included).
    fn bind_vertex(&self, i: usize) -> Option<BindVertex> {
        Some(BindVertex {
            position: Vec3A::from(self.position(i)?),
            normal: Vec3A::ZERO,
            influences: self.vertex_weights(i)?,
        })
    }
}

fn value(k: &Keyframe) -> [f32; 3] {
    k.value.map(|v| v.get())
}

/// The raw bits of a key's stored values.
fn bits(k: &Keyframe) -> [u32; 3] {
    k.value.map(|v| v.get().to_bits())
}

/// The two keys around `t` and the fraction between them (clamped to the ends; `None` without
/// keys), starting the search at `*cursor` and leaving it at the first of the two.
///
/// The search looks at the cursor's key and the next one before it falls back to a binary
/// search, so sampling forward frame by frame costs two comparisons. A cursor past the keys
/// always searches. Keys out of time order (validation warns) give some key pair, never a
/// panic.
fn segment<'k>(
    keys: &'k [Keyframe],
    t: f32,
    cursor: &mut u32,
) -> Option<(&'k Keyframe, &'k Keyframe, f32)> {
    let time = |i: usize| keys.get(i).map(|k| k.time.get());
    // The number of keys at or before `t`, found near the cursor when it can be.
    let starts_at_or_before = |i: usize| time(i).is_some_and(|k| k <= t);
    let ends_after = |i: usize| time(i).is_none_or(|k| k > t);
    let at = usize::try_from(*cursor).unwrap_or(usize::MAX);
    let after = if starts_at_or_before(at) && ends_after(at.saturating_add(1)) {
        at + 1
    } else if starts_at_or_before(at.saturating_add(1)) && ends_after(at.saturating_add(2)) {
        at + 2
    } else {
        keys.partition_point(|k| k.time.get() <= t)
    };
    let first = keys.first()?;
    let (a, b) = match (
        after.checked_sub(1).and_then(|i| keys.get(i)),
        keys.get(after),
    ) {
        (Some(a), Some(b)) => (a, b),
        (Some(last), None) => (last, last),
        (None, _) => (first, first),
    };
    *cursor = after.saturating_sub(1) as u32;
    let span = b.time.get() - a.time.get();
    let f = if span > 0.0 {
        ((t - a.time.get()) / span).clamp(0.0, 1.0)
    } else {
        0.0
    };
    Some((a, b, f))
}
