//! Quantised pose channels, their layout resolved once: sampling two frames is then a decode
//! and a blend, sixteen bones a step.
//!
//! A format that stores each frame as 16-bit values (IQM) gives every bone ten channels
//! (translation `x y z`, rotation `x y z w` as stored, scale `x y z`); a channel either reads
//! one value of the frame, `offset + value · scale`, or is the constant `offset`. Where a
//! channel's value sits in a frame depends on the masks of every bone before it: finding it on
//! each sample is per-bone work that the layout does once. [`ChannelLayout`] holds, per
//! bone and channel, the value's index in a frame, its offset and its scale, laid out sixteen
//! bones to a block, lane by lane, as the AVX-512 step reads them.
//!
//! [`ChannelLayout::nlerp`] decodes both frames and blends them as
//! [`sample`](super::sample)'s nlerp blends the decoded poses: each stored rotation normalised
//! ([`unit_rotation`]), `b` turned towards `a`, both blended and normalised again,
//! translations and scales blended linearly, bit for bit the scalar arithmetic. With AVX-512F
//! and AVX-512BW a step gathers each read channel's 16 values at once (picks them by permutes
//! where the block's values span at most 128; a channel no bone of the block reads costs
//! nothing), converts and scales them, and runs the blend lane-wise; elsewhere the same
//! layout is decoded bone by bone.

use glam::{Quat, Vec3A, Vec4};

pub use super::block::NUM_CHANNELS;
use super::block::{Block, LANES, Placed};
use super::local::nlerp_pose;

/// One bone's channels as a file stores them: which channels read a value of the frame (bit
/// `c` of `mask` for channel `c`), where its first value sits in a frame (the others follow
/// in channel order), and each channel's offset and scale.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BoneChannels {
    /// Bit `c` set: channel `c` reads a value (only bits 0 to 9 count).
    pub mask: u16,
    /// Index in a frame of the bone's first value.
    pub first: u32,
    /// Per channel, the value at 0 (the whole value of a channel that reads none).
    pub offset: [f32; NUM_CHANNELS],
    /// Per channel, the value of one step of the stored `u16`.
    pub scale: [f32; NUM_CHANNELS],
}

impl BoneChannels {
    /// A bone that reads nothing: the constant transform `(translation, rotation as stored,
    /// scale)`, as a joint no animation drives keeps its bind pose.
    #[must_use]
    pub fn constant(translate: [f32; 3], rotate: [f32; 4], scale: [f32; 3]) -> Self {
        let mut offset = [0.0; NUM_CHANNELS];
        offset[..3].copy_from_slice(&translate);
        offset[3..7].copy_from_slice(&rotate);
        offset[7..].copy_from_slice(&scale);
        BoneChannels {
            mask: 0,
            first: 0,
            offset,
            scale: [0.0; NUM_CHANNELS],
        }
    }
}

/// Every bone's channels, resolved once: per bone and channel the index of its value in a
/// frame, its offset and its scale, 16 bones to a block, so that sampling
/// ([`ChannelLayout::nlerp`]) decodes and blends without looking at the masks again.
///
/// ```
/// use skelmap_core::pose::{BoneChannels, ChannelLayout};
/// // One bone whose rotation's `z` and `w` read the frame's two values.
/// let bone = BoneChannels {
///     mask: 0b110_0000,
///     first: 0,
///     offset: [0.0, 0.0, 0.0, 0.0, 0.0, -1.0, 0.0, 1.0, 1.0, 1.0],
///     scale: [0.0, 0.0, 0.0, 0.0, 0.0, 2.0 / 65535.0, 1.0 / 65535.0, 0.0, 0.0, 0.0],
/// };
/// let layout = ChannelLayout::new([bone], 2);
/// let frames: Vec<u16> = vec![32768, 0, 65535, 65535]; // two frames of two values
/// let (mut poses, mut scales) = (Vec::new(), Vec::new());
/// assert!(layout.nlerp(&frames, 0, 1, 0.5, &mut poses, Some(&mut scales)));
/// assert_eq!((poses.len(), scales.len()), (1, 1));
/// assert!((poses[0].0.length() - 1.0).abs() < 1e-6);
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ChannelLayout {
    blocks: Vec<Block>,
    bones: usize,
    /// Values per frame.
    per_frame: usize,
    /// Where each bone of the blocks (taken in the order of their values in a frame) is
    /// written: bone `k` of the blocks is the `order[k]`-th bone given; empty where that is
    /// the order given.
    order: Vec<u32>,
}

impl ChannelLayout {
    /// The layout of `bones` over frames of `per_frame` values. A channel whose value would
    /// lie past the frame's end reads none (its offset stands), which a validated file never
    /// asks for.
    ///
    /// Bones given in another order than their values in a frame (an animation played on a
    /// model whose joints it names in another order) are laid out in the frame's order, each
    /// bone that reads nothing beside the bone given before it, so that sixteen neighbouring
    /// bones read one short window of the frame; decoding writes each pose where its bone
    /// was given.
    #[must_use]
    pub fn new(bones: impl IntoIterator<Item = BoneChannels>, per_frame: usize) -> Self {
        let mut bones: Vec<BoneChannels> = bones.into_iter().collect();
        // Each bone's place in the frame: its first value, or for a bone that reads nothing
        // that of the last bone before it that reads.
        let place = bones.iter().scan(0, |last, bone| {
            if bone.mask & 0x3ff != 0 {
                *last = bone.first;
            }
            Some(*last)
        });
        let mut layout = ChannelLayout {
            per_frame,
            blocks: Vec::with_capacity(bones.len().div_ceil(LANES)),
            ..ChannelLayout::default()
        };
        // Bones given in frame order (an IQM's own frames) are laid out as given.
        if !place.clone().is_sorted() {
            let place: Vec<u32> = place.collect();
            let mut order: Vec<u32> = (0..bones.len() as u32).collect();
            order.sort_by_key(|&i| place[i as usize]);
            bones = order.iter().map(|&i| bones[i as usize]).collect();
            layout.order = order;
        }
        for bone in bones {
            let lane = layout.bones % LANES;
            if lane == 0 {
                layout.blocks.push(Block::default());
            }
            let Some(block) = layout.blocks.last_mut() else {
                break;
            };
            let mut at = u64::from(bone.first);
            for c in 0..NUM_CHANNELS {
                block.offset[c][lane] = bone.offset[c];
                if bone.mask >> c & 1 == 0 {
                    continue;
                }
                if at < per_frame as u64 {
                    block.index[c][lane] = at as u32;
                    let last = at + 1 == per_frame as u64 && at > 0;
                    block.byte[c][lane] = (2 * at - if last { 2 } else { 0 }) as u32;
                    block.shift[c][lane] = if last { 16 } else { 0 };
                    block.scale[c][lane] = bone.scale[c];
                    block.reads[c] |= 1 << lane;
                    block.reads_end = (block.reads_end).max(block.byte[c][lane].saturating_add(4));
                    let at = at as u32;
                    let (first, last) = match block.span {
                        0 => (at, at),
                        span => (block.window.min(at), (block.window + span - 1).max(at)),
                    };
                    (block.window, block.span) = (first, last - first + 1);
                }
                at += 1;
            }
            layout.bones += 1;
        }
        layout
    }

    /// Number of bones.
    #[must_use]
    pub fn num_bones(&self) -> usize {
        self.bones
    }

    /// Values per frame.
    #[must_use]
    pub fn values_per_frame(&self) -> usize {
        self.per_frame
    }

    /// Decodes frames `a` and `b` of `values` (frame `f` is
    /// `values[f · per_frame .. (f + 1) · per_frame]`, values as stored) and blends them at
    /// `t` into `poses` (and `scales`, when given), each left with one entry per bone, in
    /// the order the bones were given: rotations by nlerp
    /// and translations and scales linearly, as [`sample`](super::sample) blends decoded
    /// poses, bit for bit. Returns `false`, with both untouched, when either frame lies past
    /// the end of `values`.
    pub fn nlerp(
        &self,
        values: &[u16],
        a: usize,
        b: usize,
        t: f32,
        poses: &mut Vec<(Quat, Vec3A)>,
        scales: Option<&mut Vec<Vec3A>>,
    ) -> bool {
        let frame = |f: usize| {
            let start = f.checked_mul(self.per_frame)?;
            values.get(start..start.checked_add(self.per_frame)?)
        };
        let (Some(fa), Some(fb)) = (frame(a), frame(b)) else {
            return false;
        };
        self.nlerp_frames(fa, fb, t, poses, scales);
        true
    }

    /// [`ChannelLayout::nlerp`] of two frames given as their values (each `per_frame` long,
    /// little-endian `u16` pairs as a file stores them).
    pub(crate) fn nlerp_frames<V: Value>(
        &self,
        a: &[V],
        b: &[V],
        t: f32,
        poses: &mut Vec<(Quat, Vec3A)>,
        mut scales: Option<&mut Vec<Vec3A>>,
    ) {
        // Bones laid out in another order than given are written where they were given, each
        // slot once: outputs of the right length (a pose sampled before) are only overwritten.
        if self.order.is_empty() {
            poses.clear();
            poses.reserve(self.bones);
            if let Some(s) = scales.as_deref_mut() {
                s.clear();
                s.reserve(self.bones);
            }
        } else {
            poses.resize(self.bones, (Quat::IDENTITY, Vec3A::ZERO));
            if let Some(s) = scales.as_deref_mut() {
                s.resize(self.bones, Vec3A::ONE);
            }
        }
        for (k, block) in self.blocks.iter().enumerate() {
            let lanes = (self.bones - k * LANES).min(LANES);
            let to = (self.order.get(k * LANES..k * LANES + lanes)).unwrap_or_default();
            let stepped = self.per_frame >= 2
                && super::lanes::channels_nlerp(
                    block,
                    V::bytes(a),
                    V::bytes(b),
                    t,
                    lanes,
                    Placed { out: poses, to },
                    scales.as_deref_mut().map(|out| Placed { out, to }),
                );
            if !stepped {
                let scales = scales.as_deref_mut().map(|out| Placed { out, to });
                scalar_block(block, a, b, t, lanes, Placed { out: poses, to }, scales);
            }
        }
    }
}

/// A stored 16-bit value: a native `u16` or the little-endian one a file maps.
pub(crate) trait Value: Copy {
    /// The value.
    fn get(self) -> u16;
    /// The values' bytes where they are little-endian (always for a file's, on
    /// little-endian targets for native ones), for the AVX-512 step's gathers.
    fn bytes(values: &[Self]) -> Option<&[u8]>;
}

impl Value for u16 {
    #[inline]
    fn get(self) -> u16 {
        self
    }

    fn bytes(values: &[Self]) -> Option<&[u8]> {
        cfg!(target_endian = "little").then(|| bytemuck::cast_slice(values))
    }
}

impl Value for zerocopy::byteorder::U16<zerocopy::LittleEndian> {
    #[inline]
    fn get(self) -> u16 {
        zerocopy::byteorder::U16::get(self)
    }

    fn bytes(values: &[Self]) -> Option<&[u8]> {
        Some(zerocopy::IntoBytes::as_bytes(values))
    }
}

/// One block's first `lanes` bones decoded and blended one at a time: the reference
/// arithmetic the AVX-512 step follows lane-wise.
fn scalar_block<V: Value>(
    block: &Block,
    a: &[V],
    b: &[V],
    t: f32,
    lanes: usize,
    mut poses: Placed<'_, (Quat, Vec3A)>,
    mut scales: Option<Placed<'_, Vec3A>>,
) {
    for lane in 0..lanes.min(LANES) {
        let decode = |frame: &[V]| -> [f32; NUM_CHANNELS] {
            core::array::from_fn(|c| {
                let offset = block.offset[c][lane];
                if block.reads[c] >> lane & 1 == 0 {
                    return offset;
                }
                let value = frame
                    .get(block.index[c][lane] as usize)
                    .map_or(0, |v| v.get());
                offset + f32::from(value) * block.scale[c][lane]
            })
        };
        let (ca, cb) = (decode(a), decode(b));
        let pose = |c: [f32; NUM_CHANNELS]| {
            (
                unit_rotation(c[3], c[4], c[5], c[6]),
                Vec3A::new(c[0], c[1], c[2]),
            )
        };
        poses.set(lane, nlerp_pose(pose(ca), pose(cb), t));
        if let Some(s) = scales.as_mut() {
            let (sa, sb) = (
                Vec3A::new(ca[7], ca[8], ca[9]),
                Vec3A::new(cb[7], cb[8], cb[9]),
            );
            s.set(lane, sa.lerp(sb, t));
        }
    }
}

/// A stored quaternion normalised; a zero one (which no unit rotation is) is the identity.
/// The squared length is `(x² + z²) + (y² + w²)`, in glam's order, and the quaternion is
/// multiplied by the reciprocal of its root.
#[must_use]
pub(crate) fn unit_rotation(x: f32, y: f32, z: f32, w: f32) -> Quat {
    let q = Vec4::new(x, y, z, w);
    // The test reads the squared length, so that the branch need not wait for the root.
    let squared = q.length_squared();
    if squared > 0.0 && squared.is_finite() {
        return Quat::from_vec4(q * (1.0 / squared.sqrt()));
    }
    // Components so small or so large that their squares leave f32: normalise in f64.
    let q = glam::DVec4::new(x.into(), y.into(), z.into(), w.into());
    let len = q.length();
    if len > 0.0 && len.is_finite() {
        Quat::from_vec4((q / len).as_vec4())
    } else {
        Quat::IDENTITY
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `out`, appended to.
    fn placed<T>(out: &mut Vec<T>) -> Placed<'_, T> {
        Placed { out, to: &[] }
    }

    /// A small deterministic generator (xorshift).
    struct Bits(u32);

    impl Bits {
        fn next(&mut self) -> u32 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 17;
            self.0 ^= self.0 << 5;
            self.0
        }

        fn float(&mut self, range: f32) -> f32 {
            (self.next() as f32 / u32::MAX as f32 - 0.5) * 2.0 * range
        }
    }

    /// `bones` bones with random masks (every shape: none, some, all ten channels) over two
    /// frames of random values, rotations that stay away from zero length.
    fn random(bones: usize, seed: u32) -> (ChannelLayout, Vec<u16>) {
        let mut bits = Bits(seed);
        let mut first = 0u32;
        let channels: Vec<BoneChannels> = (0..bones)
            .map(|i| {
                let mask = match i % 4 {
                    0 => 0,
                    1 => 0x3ff,
                    _ => (bits.next() & 0x3ff) as u16,
                };
                let offset = core::array::from_fn(|c| {
                    if (3..7).contains(&c) {
                        0.5 + bits.float(0.1)
                    } else {
                        bits.float(8.0)
                    }
                });
                let scale = core::array::from_fn(|_| bits.float(1.0) / 65535.0);
                let bone = BoneChannels {
                    mask,
                    first,
                    offset,
                    scale,
                };
                first += mask.count_ones();
                bone
            })
            .collect();
        let per_frame = first as usize;
        let values = (0..2 * per_frame).map(|_| bits.next() as u16).collect();
        (ChannelLayout::new(channels, per_frame), values)
    }

    #[test]
    fn the_step_decodes_and_blends_as_the_scalar_code_does_bit_for_bit() {
        for bones in [2, 5, 15, 16, 17, 33, 80] {
            let (layout, values) = random(bones, 0x9e37_79b9 ^ bones as u32);
            let n = layout.values_per_frame();
            let (a, b) = values.split_at(n);
            for t in [0.0, 0.3, 0.5, 1.0] {
                assert_decodes_as_scalar(&layout, &values, t, &format!("{bones} bones at {t}"));
                // The step ran where the CPU has it (the last value read from its high half).
                if std::arch::is_x86_feature_detected!("avx512f")
                    && std::arch::is_x86_feature_detected!("avx512bw")
                {
                    let mut stepped = Vec::new();
                    assert!(super::super::lanes::channels_nlerp(
                        &layout.blocks[0],
                        Value::bytes(a),
                        Value::bytes(b),
                        t,
                        bones.min(LANES),
                        placed(&mut stepped),
                        None,
                    ));
                }
            }
        }
    }

    /// `bones` bones whose ten channels all read the frame: frames of `10 · bones` values.
    fn every_channel(bones: usize) -> (ChannelLayout, Vec<u16>) {
        let mut bits = Bits(0x2545_f491 ^ bones as u32);
        let channels: Vec<_> = (0..bones)
            .map(|i| {
                let mut offset = [0.0; NUM_CHANNELS];
                offset[3..7].copy_from_slice(&[0.5, -0.5, 0.5, 0.5]);
                BoneChannels {
                    mask: 0x3ff,
                    first: 10 * i as u32,
                    offset,
                    scale: core::array::from_fn(|_| bits.float(1.0) / 65535.0),
                }
            })
            .collect();
        let values = (0..20 * bones).map(|_| bits.next() as u16).collect();
        (ChannelLayout::new(channels, 10 * bones), values)
    }

    /// `layout`'s decode of the first two frames of `values` at `t` is the scalar
    /// reference's, block by block, bit for bit (poses and scales).
    fn assert_decodes_as_scalar(layout: &ChannelLayout, values: &[u16], t: f32, what: &str) {
        let (a, b) = values.split_at(layout.values_per_frame());
        let (mut poses, mut scales) = (Vec::new(), Vec::new());
        layout.nlerp_frames(a, b, t, &mut poses, Some(&mut scales));
        let (mut want, mut want_scales) = (Vec::new(), Vec::new());
        for (k, block) in layout.blocks.iter().enumerate() {
            let lanes = (layout.bones - k * LANES).min(LANES);
            let (p, s) = (placed(&mut want), Some(placed(&mut want_scales)));
            scalar_block(block, a, b, t, lanes, p, s);
        }
        let bits = |p: &[(Quat, Vec3A)]| -> Vec<u32> {
            p.iter()
                .flat_map(|(q, v)| q.to_array().into_iter().chain(v.to_array()))
                .map(f32::to_bits)
                .collect()
        };
        assert_eq!(bits(&poses), bits(&want), "{what}");
        assert_eq!(scales, want_scales, "{what}");
    }

    /// The AVX2 step (which the dispatch takes only without AVX-512) decodes and blends each
    /// block as the scalar code does, bit for bit (poses and scales, appended or placed in
    /// another order), wherever the CPU has AVX2.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_avx2_step_decodes_and_blends_as_the_scalar_code_does_bit_for_bit() {
        if !std::arch::is_x86_feature_detected!("avx2") {
            return;
        }
        let bits = |p: &[(Quat, Vec3A)]| -> Vec<u32> {
            p.iter()
                .flat_map(|(q, v)| q.to_array().into_iter().chain(v.to_array()))
                .map(f32::to_bits)
                .collect()
        };
        for bones in [1, 2, 5, 8, 9, 13, 16, 17, 33, 80] {
            for (layout, values) in [
                random(bones, 0x51ed_270b ^ bones as u32),
                every_channel(bones),
            ] {
                let (a, b) = values.split_at(layout.values_per_frame());
                for t in [0.0, 0.3, 1.0] {
                    for (k, block) in layout.blocks.iter().enumerate() {
                        let lanes = (layout.bones - k * LANES).min(LANES);
                        let what = format!("{bones} bones, block {k}, t {t}");
                        let (mut got, mut got_scales) = (Vec::new(), Vec::new());
                        assert!(
                            crate::pose::x86::channels::try_channels_nlerp_avx2(
                                block,
                                Value::bytes(a).unwrap_or_default(),
                                Value::bytes(b).unwrap_or_default(),
                                t,
                                lanes,
                                placed(&mut got),
                                Some(placed(&mut got_scales)),
                            ),
                            "{what}"
                        );
                        let (mut want, mut want_scales) = (Vec::new(), Vec::new());
                        let (p, s) = (placed(&mut want), Some(placed(&mut want_scales)));
                        scalar_block(block, a, b, t, lanes, p, s);
                        assert_eq!(bits(&got), bits(&want), "{what}");
                        assert_eq!(got_scales, want_scales, "{what}");
                        // Placed in reverse order instead of appended.
                        let to: Vec<u32> = (0..lanes as u32).rev().collect();
                        let mut placed_out = vec![(Quat::IDENTITY, Vec3A::ZERO); lanes];
                        let mut placed_scales = vec![Vec3A::ONE; lanes];
                        assert!(crate::pose::x86::channels::try_channels_nlerp_avx2(
                            block,
                            Value::bytes(a).unwrap_or_default(),
                            Value::bytes(b).unwrap_or_default(),
                            t,
                            lanes,
                            Placed {
                                out: &mut placed_out,
                                to: &to
                            },
                            Some(Placed {
                                out: &mut placed_scales,
                                to: &to
                            }),
                        ));
                        placed_out.reverse();
                        placed_scales.reverse();
                        assert_eq!(bits(&placed_out), bits(&want), "{what}, placed");
                        assert_eq!(placed_scales, want_scales, "{what}, placed");
                    }
                }
            }
        }
    }

    /// A rotation of zero length in the second half of a block (bone 10 of 12, which reads
    /// no channel and has zero offsets) refuses the AVX2 step before either half is put:
    /// nothing appended, nothing placed.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_avx2_step_refuses_a_zero_rotation_in_its_second_half_untouched() {
        if !std::arch::is_x86_feature_detected!("avx2") {
            return;
        }
        let mut bits = Bits(0x3c6e_f372);
        let channels: Vec<_> = (0..12u32)
            .map(|i| {
                let mut offset = [0.0; NUM_CHANNELS];
                if i != 10 {
                    offset[3..7].copy_from_slice(&[0.5, -0.5, 0.5, 0.5]);
                }
                BoneChannels {
                    mask: if i == 10 { 0 } else { 0x3ff },
                    first: 10 * i.min(10),
                    offset,
                    scale: core::array::from_fn(|_| bits.float(1.0) / 65535.0),
                }
            })
            .collect();
        let layout = ChannelLayout::new(channels, 110);
        let values: Vec<u16> = (0..220).map(|_| bits.next() as u16).collect();
        let (a, b) = values.split_at(110);
        let (a, b) = (
            Value::bytes(a).unwrap_or_default(),
            Value::bytes(b).unwrap_or_default(),
        );
        let (mut poses, mut scales) = (Vec::new(), Vec::new());
        let step = crate::pose::x86::channels::try_channels_nlerp_avx2;
        let (p, s) = (placed(&mut poses), Some(placed(&mut scales)));
        assert!(!step(&layout.blocks[0], a, b, 0.5, 12, p, s));
        assert!(poses.is_empty() && scales.is_empty());
        let to: Vec<u32> = (0..12).collect();
        let mut poses = vec![(Quat::IDENTITY, Vec3A::splat(7.0)); 12];
        let mut scales = vec![Vec3A::splat(3.0); 12];
        let p = Placed {
            out: &mut poses,
            to: &to,
        };
        let s = Some(Placed {
            out: &mut scales,
            to: &to,
        });
        assert!(!step(&layout.blocks[0], a, b, 0.5, 12, p, s));
        assert!(
            poses
                .iter()
                .all(|&p| p == (Quat::IDENTITY, Vec3A::splat(7.0)))
        );
        assert!(scales.iter().all(|&s| s == Vec3A::splat(3.0)));
    }

    #[test]
    fn frames_of_up_to_128_values_are_permuted_as_the_scalar_code_decodes() {
        // 60 values: one register pair; 70 and 120: both pairs; 130: past the permutes.
        for bones in [1, 6, 7, 12, 13] {
            let (layout, values) = every_channel(bones);
            assert_decodes_as_scalar(&layout, &values, 0.3, &format!("{bones} bones"));
        }
    }

    /// `bones` bones of seven channels (translation and rotation) whose values start `lead`
    /// values into frames of `lead + 7 · bones + tail` values: the bones, the frame's length
    /// and two frames.
    fn seven_channel_bones(
        bones: usize,
        lead: usize,
        tail: usize,
    ) -> (Vec<BoneChannels>, usize, Vec<u16>) {
        let mut bits = Bits(0x6a09_e667 ^ bones as u32);
        let channels: Vec<_> = (0..bones)
            .map(|i| {
                let mut offset = [1.0; NUM_CHANNELS];
                offset[3..7].copy_from_slice(&[0.5, -0.5, 0.5, 0.5]);
                BoneChannels {
                    mask: 0x7f,
                    first: (lead + 7 * i) as u32,
                    offset,
                    scale: core::array::from_fn(|_| bits.float(1.0) / 65535.0),
                }
            })
            .collect();
        let per_frame = lead + 7 * bones + tail;
        let values = (0..2 * per_frame).map(|_| bits.next() as u16).collect();
        (channels, per_frame, values)
    }

    /// [`seven_channel_bones`] laid out.
    fn seven_channels(bones: usize, lead: usize, tail: usize) -> (ChannelLayout, Vec<u16>) {
        let (channels, per_frame, values) = seven_channel_bones(bones, lead, tail);
        (ChannelLayout::new(channels, per_frame), values)
    }

    #[test]
    fn blocks_spanning_up_to_128_values_of_longer_frames_are_permuted_as_the_scalar_code_decodes() {
        // Windows of 112 values at odd starts; the last block's ending at the frame's end
        // (`tail` 0) or before it; a block of 9 bones spanning 63 values (one register pair).
        for (bones, lead, tail) in [(40, 3, 0), (40, 1, 5), (25, 0, 0), (80, 7, 2)] {
            let (layout, values) = seven_channels(bones, lead, tail);
            assert!(layout.values_per_frame() > 128);
            let spans: Vec<u32> = layout.blocks.iter().map(|b| b.span).collect();
            let windows: Vec<u32> = layout.blocks.iter().map(|b| b.window).collect();
            for (k, (&span, &window)) in spans.iter().zip(&windows).enumerate() {
                let lanes = (bones - k * LANES).min(LANES);
                assert_eq!(span, 7 * lanes as u32, "{bones} bones, block {k}");
                assert_eq!(window as usize, lead + 7 * LANES * k);
            }
            let what = format!("{bones} bones from {lead}");
            assert_decodes_as_scalar(&layout, &values, 0.3, &what);
        }
    }

    /// Bones given in another order than their values in a frame (an animation whose joints
    /// a model names in another order), some reading nothing: laid out in the frame's order,
    /// so each block reads one short window, and each pose (and scale) written where its bone
    /// was given, bit for bit the pose of that bone decoded alone; into outputs of any length.
    #[test]
    fn bones_given_out_of_frame_order_are_decoded_in_it_and_written_where_given() {
        let (channels, per_frame, values) = seven_channel_bones(40, 3, 2);
        // Every seventh bone moved to the end, the rest reversed, and three bones that read
        // nothing among them.
        let mut given: Vec<BoneChannels> = channels.iter().rev().copied().collect();
        given.sort_by_key(|b| (b.first % 7 == 3) as u8);
        for at in [0, 11, 30] {
            given.insert(
                at,
                BoneChannels::constant([1.0, 2.0, 3.0], [0.0, 0.0, 0.0, 1.0], [1.0; 3]),
            );
        }
        let layout = ChannelLayout::new(given.iter().copied(), per_frame);
        assert_eq!(layout.order.len(), given.len());
        for block in &layout.blocks {
            assert!(block.span <= 7 * LANES as u32, "{}", block.span);
        }
        let (a, b) = values.split_at(per_frame);
        for stale in [0, 5, given.len(), 100] {
            let mut poses = vec![(Quat::IDENTITY, Vec3A::ZERO); stale];
            let mut scales = vec![Vec3A::ZERO; stale];
            layout.nlerp_frames(a, b, 0.3, &mut poses, Some(&mut scales));
            assert_eq!((poses.len(), scales.len()), (given.len(), given.len()));
            for (i, bone) in given.iter().enumerate() {
                let alone = ChannelLayout::new([*bone], per_frame);
                assert!(alone.order.is_empty());
                let (mut want, mut want_scales) = (Vec::new(), Vec::new());
                alone.nlerp_frames(a, b, 0.3, &mut want, Some(&mut want_scales));
                let bits = |(q, v): (Quat, Vec3A)| {
                    (
                        q.to_array().map(f32::to_bits),
                        v.to_array().map(f32::to_bits),
                    )
                };
                assert_eq!(bits(poses[i]), bits(want[0]), "bone {i}, from {stale}");
                assert_eq!(scales[i], want_scales[0], "bone {i}");
            }
        }
        // Bones given in the frame's order (those that read nothing beside the ones before
        // them) keep it.
        let mut in_order = channels.clone();
        in_order.insert(
            5,
            BoneChannels::constant([0.0; 3], [0.0, 0.0, 0.0, 1.0], [1.0; 3]),
        );
        assert!(ChannelLayout::new(in_order, per_frame).order.is_empty());
    }

    #[test]
    fn the_step_reads_only_frames_that_hold_every_gathered_word() {
        let (layout, values) = random(17, 0x51ed_270b);
        let n = layout.values_per_frame();
        let bytes: &[u8] = bytemuck::cast_slice(&values[..n]);
        for block in &layout.blocks {
            // The end found once is the furthest word a reading lane gathers.
            let furthest = (0..NUM_CHANNELS)
                .flat_map(|c| (0..LANES).map(move |l| (c, l)))
                .filter(|&(c, l)| block.reads[c] >> l & 1 == 1)
                .map(|(c, l)| block.byte[c][l] + 4)
                .max()
                .unwrap_or(0);
            assert_eq!(block.reads_end, furthest);
            assert!(furthest as usize <= bytes.len());
            if std::arch::is_x86_feature_detected!("avx512f")
                && std::arch::is_x86_feature_detected!("avx512bw")
                && furthest > 0
            {
                let short = &bytes[..furthest as usize - 1];
                let step = |frame| {
                    super::super::lanes::channels_nlerp(
                        block,
                        Some(frame),
                        Some(frame),
                        0.5,
                        1,
                        placed(&mut Vec::new()),
                        None,
                    )
                };
                assert!(!step(short), "a frame one byte short is refused");
                assert!(step(&bytes[..furthest as usize]));
            }
        }
    }

    #[test]
    fn a_channel_past_the_frame_reads_nothing() {
        let bone = BoneChannels {
            mask: 0b11,
            first: 1,
            offset: [1.0, 2.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0],
            scale: [1.0; NUM_CHANNELS],
        };
        let layout = ChannelLayout::new([bone], 2);
        let (mut poses, mut scales) = (Vec::new(), Vec::new());
        assert!(layout.nlerp(&[7, 9, 7, 9], 0, 1, 0.5, &mut poses, Some(&mut scales)));
        // Channel 0 reads value 1 (9); channel 1 would read value 2, past the frame: its offset.
        assert_eq!(poses[0].1, Vec3A::new(10.0, 2.0, 0.0));
        assert!(!layout.nlerp(&[7, 9, 7], 0, 1, 0.5, &mut poses, None));
    }
}
