//! The SL `.anim` file: independent bone keys with per-keyframe easing (module docs of
//! [`slmdl`](super) give the layout).

use glam::{Quat, Vec3A};
use zerocopy::byteorder::{F32, LittleEndian, U32};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

use crate::diag::Diagnostics;
use crate::error::{Error, Result};
use crate::floatbits::{Masks, flat};
use crate::format::Format;
use crate::limits::Limits;
use crate::parse::Parse;
use crate::pose::{Bone, Skeleton};
use crate::pose::{LocalPose, PoseFrames};
use crate::read::Reader;
use crate::rules;

const FORMAT: Format = Format::SlAnim;
type Le = LittleEndian;

/// The 8-byte file header.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct AnimHeader {
    /// Bones per keyframe.
    pub bone_count: U32<Le>,
    /// Keyframes.
    pub keyframe_count: U32<Le>,
}

/// The 8-byte head of each keyframe; `bone_count` × [`BoneKey`] follow.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct KeyframeHead {
    /// Start time in seconds.
    pub time: F32<Le>,
    /// Easing id ([`Easing`]) of the blend towards the next keyframe.
    pub easing: U32<Le>,
}

/// One bone's key, 28 bytes: rotation `(x, y, z, w)` and translation.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct BoneKey {
    /// Rotation quaternion `(x, y, z, w)`.
    pub rotation: [F32<Le>; 4],
    /// Translation.
    pub translation: [F32<Le>; 3],
}

impl BoneKey {
    /// The rotation `(x, y, z, w)` as stored (normalised when sampled).
    #[must_use]
    pub fn rotation(&self) -> [f32; 4] {
        self.rotation.map(|v| v.get())
    }

    /// The translation.
    #[must_use]
    pub fn translation(&self) -> [f32; 3] {
        self.translation.map(|v| v.get())
    }
}

const _: () = assert!(size_of::<AnimHeader>() == 8);
const _: () = assert!(size_of::<KeyframeHead>() == 8);
const _: () = assert!(size_of::<BoneKey>() == 28);

/// How a keyframe blends into the next one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Easing {
    /// `f`.
    Linear,
    /// `f²`.
    EaseIn,
    /// `1 − (1 − f)²`.
    EaseOut,
    /// `3f² − 2f³`.
    EaseInOut,
    /// Hold the keyframe until the next one starts.
    Step,
}

impl Easing {
    /// The easing of an id (0..=4).
    #[must_use]
    pub fn from_id(id: u32) -> Option<Easing> {
        Some(match id {
            0 => Easing::Linear,
            1 => Easing::EaseIn,
            2 => Easing::EaseOut,
            3 => Easing::EaseInOut,
            4 => Easing::Step,
            _ => return None,
        })
    }

    /// The id written to files.
    #[must_use]
    pub fn id(self) -> u32 {
        match self {
            Easing::Linear => 0,
            Easing::EaseIn => 1,
            Easing::EaseOut => 2,
            Easing::EaseInOut => 3,
            Easing::Step => 4,
        }
    }

    /// The eased blend fraction for a linear fraction `f` in `0..=1`.
    #[must_use]
    pub fn apply(self, f: f32) -> f32 {
        let f = f.clamp(0.0, 1.0);
        match self {
            Easing::Linear => f,
            Easing::EaseIn => f * f,
            Easing::EaseOut => 1.0 - (1.0 - f) * (1.0 - f),
            Easing::EaseInOut => f * f * (3.0 - 2.0 * f),
            Easing::Step => 0.0,
        }
    }
}

/// A validated SL `.anim` over borrowed bytes. `Copy`, `Send` and `Sync`.
#[derive(Debug, Clone, Copy)]
pub struct SlAnim<'data> {
    data: &'data [u8],
    bones: u32,
    keyframes: u32,
}

/// Validates `data` under `limits` (bones ≤ `max_bones`, keyframes ≤ `max_frames`).
impl<'data> Parse<'data> for SlAnim<'data> {
    const FORMAT: Format = FORMAT;

    fn parse_with(
        data: &'data [u8],
        limits: &Limits,
        _diag: &mut Diagnostics,
    ) -> Result<SlAnim<'data>> {
        rules::begin(FORMAT, data, limits)?;
        let reader = Reader::new(data, FORMAT);
        let header: &AnimHeader = reader.ref_at("header", 0)?;
        let bones = header.bone_count.get();
        let keyframes = header.keyframe_count.get();
        rules::check_count(
            FORMAT,
            "header.bone_count",
            0,
            bones,
            limits.max_bones,
            "animation has no bones",
        )?;
        rules::check_count(
            FORMAT,
            "header.keyframe_count",
            4,
            keyframes,
            limits.max_frames,
            "animation has no keyframes",
        )?;
        let stride = 8 + 28 * u64::from(bones);
        let body = reader.bytes_after_header("keyframes", 8, stride * u64::from(keyframes))?;
        let invalid = |what, offset, detail: String| Error::Invalid {
            format: FORMAT,
            what,
            offset,
            detail,
        };
        let masks = Masks::of::<Le>();
        let mut previous = f32::NEG_INFINITY;
        let mut walk = Reader::new(body, FORMAT).walk(0);
        for k in 0..keyframes {
            let at = 8 + stride * u64::from(k);
            let head = walk.read::<KeyframeHead>("keyframe")?;
            let keys = walk.read_slice::<BoneKey>("keyframe.bones", bones.into())?;
            let time = head.time.get();
            if !time.is_finite() || time < previous {
                return Err(invalid(
                    "keyframe.time",
                    at,
                    format!("keyframe {k} starts at {time}, before {previous} or not finite"),
                ));
            }
            previous = time;
            let easing = head.easing.get();
            if Easing::from_id(easing).is_none() {
                return Err(invalid(
                    "keyframe.easing",
                    at + 4,
                    format!("keyframe {k}: unknown easing {easing}"),
                ));
            }
            if masks.any_non_finite(flat::<Le, _>(keys)) {
                let b = keys
                    .iter()
                    .position(|key| masks.any_non_finite(flat::<Le, _>(core::slice::from_ref(key))))
                    .unwrap_or(0);
                return Err(invalid(
                    "keyframe.bones",
                    at + 8 + 28 * b as u64,
                    format!("keyframe {k}, bone {b}: value is NaN or infinite"),
                ));
            }
        }
        Ok(SlAnim {
            data: body,
            bones,
            keyframes,
        })
    }
}

impl<'data> SlAnim<'data> {
    /// Bones per keyframe (independent: no hierarchy).
    #[must_use]
    pub fn num_bones(&self) -> usize {
        self.bones as usize
    }

    /// Keyframes (at least 1).
    #[must_use]
    pub fn num_keyframes(&self) -> usize {
        self.keyframes as usize
    }

    fn keyframe(&self, k: u32) -> Option<(&'data KeyframeHead, &'data [BoneKey])> {
        let stride = 8 + 28 * u64::from(self.bones);
        let mut walk = Reader::new(self.data, FORMAT).walk(stride * u64::from(k));
        Some((walk.next()?, walk.next_slice(self.bones.into())?))
    }

    /// Keyframe `k`: start time, easing, and one key per bone (zero-copy).
    #[must_use]
    pub fn key(&self, k: usize) -> Option<(f32, Easing, &'data [BoneKey])> {
        let (head, keys) = self.keyframe(u32::try_from(k).ok()?)?;
        Some((head.time.get(), Easing::from_id(head.easing.get())?, keys))
    }

    /// Start times of every keyframe (non-decreasing).
    pub fn times(&self) -> impl ExactSizeIterator<Item = f32> + '_ {
        (0..self.keyframes).map(|k| self.keyframe(k).map_or(0.0, |(h, _)| h.time.get()))
    }

    /// The pose of every bone at `seconds` into `out` (cleared first, allocation reused): the
    /// keyframes around `seconds` blended by the earlier one's easing, rotations by
    /// shortest-arc slerp of the normalised quaternions, translations linearly; clamped before
    /// the first and after the last keyframe. Bones are independent, so
    /// [`Palette::build`](crate::pose::Palette::build) gives them back unchanged as world
    /// transforms; keyframe 0 is the bind pose.
    pub fn sample(&self, seconds: f32, out: &mut LocalPose) {
        out.bones.clear();
        // The first keyframe starting after `seconds` (times are validated non-decreasing).
        let (mut lo, mut hi) = (0u32, self.keyframes);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.time(mid) > seconds {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        let after = lo;
        let (a, b, f) = match after.checked_sub(1) {
            None => (0, 0, 0.0),
            Some(a) if a + 1 >= self.keyframes => (a, a, 0.0),
            Some(a) => {
                let (ta, tb) = (self.time(a), self.time(a + 1));
                let easing = self
                    .keyframe(a)
                    .and_then(|(h, _)| Easing::from_id(h.easing.get()))
                    .unwrap_or(Easing::Linear);
                let span = tb - ta;
                let f = if span > 0.0 {
                    (seconds - ta) / span
                } else {
                    0.0
                };
                (a, a + 1, easing.apply(f))
            }
        };
        let (Some((_, ka)), Some((_, kb))) = (self.keyframe(a), self.keyframe(b)) else {
            return;
        };
        for (x, y) in ka.iter().zip(kb) {
            let qa = Quat::from_array(x.rotation()).normalize();
            let qb = Quat::from_array(y.rotation()).normalize();
            // q and −q are the same rotation: blend along the shorter arc.
            let qb = if qa.dot(qb) < 0.0 { -qb } else { qb };
            let (ta, tb) = (Vec3A::from(x.translation()), Vec3A::from(y.translation()));
            out.bones.push((qa.slerp(qb, f), ta.lerp(tb, f)));
        }
    }

    fn time(&self, k: u32) -> f32 {
        self.keyframe(k).map_or(0.0, |(h, _)| h.time.get())
    }
}

/// Unnamed bones without parents, one per key of a keyframe.
impl<'data> Skeleton<'data> for SlAnim<'data> {
    fn skeleton_bones(&self) -> impl ExactSizeIterator<Item = Bone<'data>> + Clone {
        (0..self.bones).map(|_| Bone::new(&[], -1, 0))
    }
}

/// Keyframes as frames (their times and easings ignored); [`SlAnim::sample`] samples by time.
impl<'data> PoseFrames<'data> for SlAnim<'data> {
    fn num_frames(&self) -> usize {
        self.keyframes as usize
    }

    fn bone_pose(&self, frame: usize, bone: usize) -> Option<(Quat, Vec3A)> {
        let (_, keys) = self.keyframe(u32::try_from(frame).ok()?)?;
        let key = keys.get(bone)?;
        Some((
            Quat::from_array(key.rotation()).normalize(),
            Vec3A::from(key.translation()),
        ))
    }
}
