//! MS3D animation: joints' local poses at rest and at a time, the timeline as
//! [`PoseFrames`], and the stored vertices as a [`BindPoseMesh`].
//!
//! A joint's local rest transform is its position and its Euler rotation, applied as
//! `R = Rz(z) · Ry(y) · Rx(x)` (MilkShape's `AngleMatrix`). Keys are relative to the rest pose:
//! the local transform at time `t` is `rest · [R(key rotation) | key position]`, rotation keys
//! interpolated as quaternions (shortest arc), position keys linearly, times before the first
//! or after the last key clamped to it. Absolute transforms follow the parent chain (in the
//! order [`Ms3d::evaluation_order`] gives, since a file need not name parents first): the local
//! poses are [`LocalPose`]s ([`Ms3d::local_rest_pose`], [`Ms3d::local_pose_at`], or frames of
//! the timeline through [`PoseFrames`]) and the absolute ones a
//! [`Palette`](crate::pose::Palette). Vertices are
//! stored in model space, so skinning applies `absolute(t) · absolute(rest)⁻¹` per joint and
//! blends up to four joints by [`Ms3d::vertex_weights`].

use glam::{Quat, Vec3A, Vec4};

use super::Ms3d;
use super::raw::Keyframe;
use crate::limits::Limits;
use crate::pose::euler::KeyLanes;
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
        out.scales.clear();
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
    ///
    /// With [`Nlerp`](Interpolation::Nlerp), a model of at least 16 joints is sampled 16
    /// joints at a time where the CPU has AVX-512: the same arithmetic lane by lane, so the
    /// same poses bit for bit, with each key converted afresh rather than remembered. Smaller
    /// models keep the joint-at-a-time sampler, for which the remembered keys are cheaper.
    pub fn local_pose_at(&self, seconds: f32, interpolation: Interpolation, out: &mut LocalPose) {
        let joints = self.joints();
        out.bones.clear();
        out.scales.clear();
        out.cursors.resize(joints.len(), KeyCursor::default());
        let done = if interpolation == Interpolation::Nlerp && joints.len() >= 16 {
            nlerp_in_steps(joints, seconds, &mut out.cursors, &mut out.bones)
        } else {
            0
        };
        let cursors = out.cursors.get_mut(done..).unwrap_or_default();
        for (joint, cursor) in joints.get(done..).unwrap_or_default().iter().zip(cursors) {
            out.bones
                .push(local_at(joint, seconds, interpolation, cursor));
        }
    }
}

/// Samples `joints` at `seconds` with nlerp, 16 a step, into `out`, for as long as the steps
/// can be taken (see `pose::lanes::keyed_nlerp`); returns how many joints it sampled. The cursors
/// move to the keys used, where the scalar sampler finds them again.
// Kept out of line: inlined, its 1.4 kB of lanes weighed on every call, even of models it
// leaves to the scalar sampler.
#[inline(never)]
fn nlerp_in_steps(
    joints: &[super::Joint<'_>],
    seconds: f32,
    cursors: &mut [KeyCursor],
    out: &mut Vec<(Quat, Vec3A)>,
) -> usize {
    let mut lanes = KeyLanes {
        seconds,
        ..KeyLanes::default()
    };
    let mut done = 0;
    for (step, cursors) in joints.chunks(16).zip(cursors.chunks_mut(16)) {
        for (lane, (joint, cursor)) in step.iter().zip(cursors).enumerate() {
            gather(joint, seconds, cursor, &mut lanes, lane);
        }
        if crate::pose::lanes::keyed_nlerp(&lanes, step.len(), out).is_none() {
            break;
        }
        done += step.len();
    }
    done
}

/// Puts what [`local_at`] reads for `joint` at `seconds` into lane `lane` of `lanes`: the rest
/// transform and the two keys of each track around `seconds` (found from `cursor`, which moves
/// to them), as records.
#[inline]
fn gather(
    joint: &super::Joint<'_>,
    seconds: f32,
    cursor: &mut KeyCursor,
    lanes: &mut KeyLanes,
    lane: usize,
) {
    let (rotation_keys, position_keys) = joint.key_slices();
    if !joint.keys_in_order {
        (cursor.rotation_key, cursor.position_key) = (u32::MAX, u32::MAX);
    }
    let slot = KeyLanes::slot(lane);
    let Some(rest) = lanes.rest.get_mut(slot) else {
        return;
    };
    *rest = remembered_rest(joint, cursor).to_array();
    let [x, y, z] = joint.position();
    if let Some(origin) = lanes.origin.get_mut(slot) {
        *origin = [x, y, z, 0.0];
    }
    let bit = 1u16 << lane;
    let tracks = [
        (rotation_keys, &mut cursor.rotation_key),
        (position_keys, &mut cursor.position_key),
    ];
    for ((keys, at), (pair, keyed)) in tracks
        .into_iter()
        .zip(lanes.keys.iter_mut().zip(&mut lanes.keyed))
    {
        let records = match keys_around(keys, seconds, at) {
            Some((a, b)) => {
                *keyed |= bit;
                [record(a), record(b)]
            }
            None => {
                *keyed &= !bit;
                [[0.0; 4]; 2]
            }
        };
        for (key, record) in pair.iter_mut().zip(records) {
            if let Some(to) = key.get_mut(slot) {
                *to = record;
            }
        }
    }
}

/// A key as stored: its time, then its three values.
#[inline]
fn record(k: &Keyframe) -> [f32; 4] {
    let [x, y, z] = value(k);
    [k.time.get(), x, y, z]
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
    let rest = remembered_rest(joint, cursor);
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

/// `joint`'s rest rotation as a quaternion, remembered in `cursor` with the raw bits of the
/// rest transform it came from. When they are another joint's (a pose reused across models),
/// the cursor's remembered keys are forgotten too.
#[inline]
fn remembered_rest(joint: &super::Joint<'_>, cursor: &mut KeyCursor) -> Quat {
    // Compared value by value from the file: gathered into an array first, the bits went
    // through the stack and their reload stalled on store forwarding.
    let rest_values = || joint.head.rotation.iter().chain(&joint.head.position);
    let same_rest = rest_values()
        .zip(&cursor.rest_bits)
        .all(|(v, &bits)| v.get().to_bits() == bits);
    if !same_rest {
        for (bits, v) in cursor.rest_bits.iter_mut().zip(rest_values()) {
            *bits = v.get().to_bits();
        }
        cursor.rest = euler_to_quat(joint.rotation());
        cursor.rotations = [Keyed::forgotten(Quat::IDENTITY); 2];
        cursor.positions = [Keyed::forgotten(Vec3A::ZERO); 2];
    }
    cursor.rest
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
    fn num_vertices(&self) -> usize {
        self.vertices().len()
    }

    /// Weights from [`Ms3d::vertex_weights`] (normalised, the 1.8 extras included).
    fn bind_vertex(&self, i: usize) -> Option<BindVertex> {
        Some(BindVertex::with_four(
            Vec3A::from(self.position(i)?),
            Vec3A::ZERO,
            self.vertex_weights(i)?,
        ))
    }
}

fn value(k: &Keyframe) -> [f32; 3] {
    k.value.map(|v| v.get())
}

/// The raw bits of a key's stored values.
fn bits(k: &Keyframe) -> [u32; 3] {
    k.value.map(|v| v.get().to_bits())
}

/// The two keys around `t` and the fraction between them (see [`keys_around`]).
fn segment<'k>(
    keys: &'k [Keyframe],
    t: f32,
    cursor: &mut u32,
) -> Option<(&'k Keyframe, &'k Keyframe, f32)> {
    let (a, b) = keys_around(keys, t, cursor)?;
    Some((a, b, fraction(a, b, t)))
}

/// How far `t` lies from key `a` to key `b`, clamped to `0 ..= 1`; 0 where `b` is not later.
/// (`pose::lanes::keyed_nlerp` computes it lane-wise in the same operations.)
#[inline]
fn fraction(a: &Keyframe, b: &Keyframe, t: f32) -> f32 {
    let span = b.time.get() - a.time.get();
    if span > 0.0 {
        ((t - a.time.get()) / span).clamp(0.0, 1.0)
    } else {
        0.0
    }
}

/// The two keys around `t` (clamped to the ends; `None` without keys), starting the search
/// at `*cursor` and leaving it at the first of the two.
///
/// The search looks at the cursor's key and the next one before it falls back to a binary
/// search, so sampling forward frame by frame costs two comparisons. A cursor past the keys
/// always searches. Keys out of time order (validation warns) give some key pair, never a
/// panic.
#[inline]
fn keys_around<'k>(
    keys: &'k [Keyframe],
    t: f32,
    cursor: &mut u32,
) -> Option<(&'k Keyframe, &'k Keyframe)> {
    // The number of keys at or before `t`, found near the cursor when it can be: where the
    // cursor's key is at or before `t` and the key two further on after it, that number is
    // one or two past the cursor, as the key between says (keys in time order; others reset
    // the cursor). Without a branch on which, since playing forward takes either in turn.
    let at_or_before = |i: usize| keys.get(i).is_some_and(|k| k.time.get() <= t);
    let at = usize::try_from(*cursor).unwrap_or(usize::MAX);
    let after = if at_or_before(at) && !at_or_before(at.saturating_add(2)) {
        at + 1 + usize::from(at_or_before(at + 1))
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
    Some((a, b))
}

#[cfg(test)]
mod tests {
    use super::{KeyCursor, Ms3d, local_at};
    use crate::Parse;
    use crate::ms3d::write::{Builder, JointDef};
    use crate::pose::{Interpolation, LocalPose};

    /// Samples `m` at `times` with one reused pose (16 joints a step where the CPU has
    /// AVX-512) and asserts each pose equals, bit for bit, the joint-at-a-time sampler with a
    /// fresh cursor.
    fn steps_equal_the_scalar_sampler(m: &Ms3d<'_>, times: impl Iterator<Item = f32>) {
        let mut pose = LocalPose::default();
        for t in times {
            m.local_pose_at(t, Interpolation::Nlerp, &mut pose);
            assert_eq!(pose.bones.len(), m.joints().len());
            for (j, (joint, got)) in m.joints().iter().zip(&pose.bones).enumerate() {
                let want = local_at(joint, t, Interpolation::Nlerp, &mut KeyCursor::default());
                let bits = |(q, p): (glam::Quat, glam::Vec3A)| {
                    (
                        q.to_array().map(f32::to_bits),
                        p.to_array().map(f32::to_bits),
                    )
                };
                assert_eq!(bits(*got), bits(want), "joint {j} at {t}");
            }
        }
    }

    /// 37 joints (two whole steps and 5 lanes): without rotation keys, without position keys,
    /// with one key, with keys out of time order, rest angles of −0 and keys whose rotations
    /// lie more than 90° apart; `huge` puts a key angle beyond the polynomial's range on joint
    /// 22 (its step, and those after it, are left to the scalar sampler).
    fn joints(huge: bool) -> Vec<u8> {
        let mut b = Builder::default();
        for k in 0..37u16 {
            let f = f32::from(k);
            let mut joint = JointDef {
                name: format!("j{k}").into_bytes(),
                parent: if k == 0 {
                    Vec::new()
                } else {
                    format!("j{}", k - 1).into_bytes()
                },
                rotation: [0.1 * f, -0.0, 0.3 - 0.05 * f],
                position: [f, -0.5 * f, 2.0],
                ..JointDef::default()
            };
            if k % 5 != 0 {
                let keys = if k % 5 == 1 { 1 } else { 6 };
                joint.rotation_keys = (0..keys)
                    .map(|i| {
                        let i = i as f32;
                        // Every other key turns by about 200°: the pairs lie on far arcs.
                        let turn = if i as u32 % 2 == 1 { 3.5 } else { 0.0 };
                        (0.25 * i, [0.2 * f - i + turn, 0.7 * i - 0.1 * f, -0.0])
                    })
                    .collect();
            }
            if k % 7 != 0 {
                let keys = if k % 7 == 1 { 1 } else { 4 };
                joint.position_keys = (0..keys)
                    .map(|i| (0.4 * i as f32, [i as f32, -f, 0.5 * f - i as f32]))
                    .collect();
            }
            if k == 9 {
                joint.rotation_keys.swap(1, 3);
            }
            if huge && k == 22 {
                joint.rotation_keys[2].1[1] = 20_000.0;
            }
            b.joints.push(joint);
        }
        b.keyframer = (24.0, 0.0, 40);
        b.write().unwrap_or_default()
    }

    fn times() -> impl Iterator<Item = f32> {
        // Before the first key, between keys forward and backward, on keys, after the last,
        // and times no clip has (infinities hold the end keys, a NaN the first key).
        (-3..=30).map(|i| 0.07 * i as f32).chain([
            1.0,
            0.25,
            0.5,
            0.3,
            2.5,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            -0.0,
        ])
    }

    #[test]
    fn nlerp_in_steps_is_the_scalar_sampler_bit_for_bit() {
        for huge in [false, true] {
            let bytes = joints(huge);
            let m = Ms3d::parse(&bytes);
            assert!(m.is_ok(), "{m:?}");
            let Ok(m) = m else { return };
            steps_equal_the_scalar_sampler(&m, times());
        }
    }

    #[test]
    fn nlerp_in_steps_is_the_scalar_sampler_bit_for_bit_on_the_corpus() {
        for path in skelmap_testkit::corpus_files("ms3d") {
            let bytes = std::fs::read(&path).unwrap_or_default();
            let m = Ms3d::parse(&bytes);
            assert!(m.is_ok(), "{}", path.display());
            let Ok(m) = m else { return };
            let frames = m.num_frames();
            let seconds = (0..=2 * frames).map(|h| m.frame_seconds(0.5 * h as f32 - 0.25));
            steps_equal_the_scalar_sampler(&m, seconds);
        }
    }
}
