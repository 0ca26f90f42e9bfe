//! Quantised channels of sixteen bones decoded from two frames and blended (nlerp), one
//! AVX-512F and AVX-512BW step, or two AVX2 steps (see `pose/channels.rs`).
//!
//! Each channel some lane of the block reads is one masked gather of sixteen 32-bit words
//! per frame (the value in the low or high half, as the layout says), converted to float,
//! scaled and offset by separate multiplies and adds (the scalar decode's roundings, no fused
//! multiply-add); a channel no lane reads is its offsets. A block whose values span at most
//! [`PERMUTED_VALUES`] of the frame (sixteen bones of up to eight channels each, or a whole
//! frame of a dozen bones) instead loads that window into four registers, and each
//! channel's sixteen values are picked out of them by word permutes (AVX-512BW): gathers cost
//! more than the rest of the step. The stored
//! rotations are then normalised lane-wise as `unit_rotation` does, and both frames blended
//! by `nlerp_lanes`, `pose::sample`'s nlerp in its order: the scalar results, bit for bit.
//!
//! Without AVX-512, AVX2 runs the block as two halves of 8 lanes, every read channel's values
//! gathered (no word permutes), with the same arithmetic: the same results.

use core::arch::x86_64::{
    __m128, __m256, __m512, __mmask16, _CMP_GT_OQ, _CMP_LT_OQ, _mm_storeu_ps, _mm256_add_ps,
    _mm256_and_ps, _mm256_and_si256, _mm256_blendv_ps, _mm256_castsi256_ps, _mm256_cmp_ps,
    _mm256_cmpeq_epi32, _mm256_cvtepi32_ps, _mm256_div_ps, _mm256_loadu_ps, _mm256_loadu_si256,
    _mm256_mask_i32gather_epi32, _mm256_movemask_ps, _mm256_mul_ps, _mm256_set1_epi32,
    _mm256_set1_ps, _mm256_setr_epi32, _mm256_setzero_ps, _mm256_setzero_si256, _mm256_sqrt_ps,
    _mm256_srlv_epi32, _mm256_storeu_ps, _mm512_add_ps, _mm512_and_si512, _mm512_castps512_ps128,
    _mm512_castsi512_si256, _mm512_cmp_ps_mask, _mm512_cvtepi32_epi16, _mm512_cvtepi32_ps,
    _mm512_cvtepu16_epi32, _mm512_div_ps, _mm512_extractf32x4_ps, _mm512_load_ps,
    _mm512_load_si512, _mm512_mask_blend_epi16, _mm512_mask_blend_ps, _mm512_mask_i32gather_epi32,
    _mm512_mask_storeu_ps, _mm512_maskz_loadu_epi16, _mm512_mul_ps, _mm512_permutex2var_epi16,
    _mm512_set1_epi16, _mm512_set1_epi32, _mm512_set1_ps, _mm512_setzero_si512, _mm512_sqrt_ps,
    _mm512_srlv_epi32, _mm512_sub_epi32, _mm512_test_epi16_mask, _mm512_zextsi256_si512,
};

use glam::{Quat, Vec3A};

use super::blend::{transpose_quarters, transpose4};
use super::matrices::{avx2, nlerp_lanes, push_poses, scatter_poses};
use crate::pose::block::{Block, LANES, NUM_CHANNELS, Placed};

/// See `pose::lanes::channels_nlerp`.
pub(crate) fn try_channels_nlerp(
    block: &Block,
    a: &[u8],
    b: &[u8],
    t: f32,
    lanes: usize,
    out: Placed<'_, (Quat, Vec3A)>,
    scales: Option<Placed<'_, Vec3A>>,
) -> bool {
    if !reads_within(block, a) || !reads_within(block, b) {
        return false;
    }
    if is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512bw") {
        // SAFETY: the CPU was just found to support AVX-512F and AVX-512BW, and every word the
        // block gathers lies within `a` and within `b`.
        unsafe { channels_nlerp_avx512(block, [a, b], t, lanes, out, scales) }
    } else if is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU was just found to support AVX2, and every word the block gathers
        // lies within `a` and within `b`.
        unsafe { channels_nlerp_avx2(block, [a, b], t, lanes, out, scales) }
    } else {
        false
    }
}

/// The most values a block's window may span for its values to be picked by permutes: four
/// registers of 32.
pub(crate) const PERMUTED_VALUES: u32 = 128;

/// `true` when every word `block` gathers (four bytes from each reading lane's `byte`) lies
/// within `frame`: one comparison with the end the layout found once.
#[inline]
fn reads_within(block: &Block, frame: &[u8]) -> bool {
    block.reads_end as usize <= frame.len()
}

/// The ten channel rows of each of `frames` for `block`'s lanes (lanes past the block's bones
/// hold their zero offsets). Each read channel's sixteen values are gathered from the frame,
/// or, where the block's window spans at most [`PERMUTED_VALUES`], picked out of the window
/// loaded into four registers of 32 values (values past the frame's end read as zeros, never
/// loaded) by two word permutes and a blend on the index's bit 6, the index counted from the
/// window: the same values either way, so the same rows, bit for bit. Both frames in one
/// call, so that it is inlined into its one caller.
///
/// # Safety
///
/// The CPU must support AVX-512F and AVX-512BW, and every word the block gathers must lie
/// within each frame.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn decode(block: &Block, frames: [&[u8]; 2]) -> [[__m512; NUM_CHANNELS]; 2] {
    let low = _mm512_set1_epi32(0xFFFF);
    let permuted = block.span <= PERMUTED_VALUES;
    let window = block.window as usize;
    let mut registers = [[_mm512_setzero_si512(); 4]; 2];
    if permuted {
        // Registers past the span hold nothing read.
        let used = (block.span as usize).div_ceil(32);
        for (registers, frame) in registers.iter_mut().zip(frames) {
            let words = (frame.len() / 2).saturating_sub(window);
            for (k, register) in registers.iter_mut().enumerate().take(used) {
                let valid = words.saturating_sub(32 * k).min(32);
                if valid > 0 {
                    let mask = u32::MAX >> (32 - valid);
                    let at = frame.as_ptr().wrapping_add(2 * window + 64 * k).cast();
                    // SAFETY: the load reads the `valid` values from value `window + 32k` on,
                    // all within the frame; the masked-off lanes are not read.
                    *register = unsafe { _mm512_maskz_loadu_epi16(mask, at) };
                }
            }
        }
    }
    let from = _mm512_set1_epi32(window as i32);
    // Channel `c`'s rows in both frames.
    let channel = |c: usize| -> [__m512; 2] {
        // SAFETY: `Block` is 64-byte aligned and each row is 64 bytes at a multiple of 64.
        let offset = unsafe { _mm512_load_ps(block.offset[c].as_ptr()) };
        let reads = block.reads[c];
        if reads == 0 {
            return [offset; 2];
        }
        // SAFETY: as above, for the scale and integer rows.
        let (scale, index, at, shift) = unsafe {
            (
                _mm512_load_ps(block.scale[c].as_ptr()),
                _mm512_load_si512(block.index[c].as_ptr().cast()),
                _mm512_load_si512(block.byte[c].as_ptr().cast()),
                _mm512_load_si512(block.shift[c].as_ptr().cast()),
            )
        };
        // The sixteen indices counted from the window (each reading lane's below 128; the
        // others' values are not kept) as the first sixteen words of a permute's index
        // register.
        let index = _mm512_sub_epi32(index, from);
        let index = _mm512_zextsi256_si512(_mm512_cvtepi32_epi16(index));
        let upper = _mm512_test_epi16_mask(index, _mm512_set1_epi16(64));
        let row = |f: usize| {
            let value = if permuted {
                let r = &registers[f];
                let first = _mm512_permutex2var_epi16(r[0], index, r[1]);
                let picked = if block.span <= 64 {
                    first
                } else {
                    let second = _mm512_permutex2var_epi16(r[2], index, r[3]);
                    _mm512_mask_blend_epi16(upper, first, second)
                };
                _mm512_cvtepu16_epi32(_mm512_castsi512_si256(picked))
            } else {
                // SAFETY: only the lanes of `reads` are gathered, each four bytes from its
                // `byte`, within the frame (the caller's precondition).
                let words = unsafe {
                    _mm512_mask_i32gather_epi32::<1>(
                        _mm512_setzero_si512(),
                        reads,
                        at,
                        frames[f].as_ptr().cast(),
                    )
                };
                _mm512_and_si512(_mm512_srlv_epi32(words, shift), low)
            };
            let decoded = _mm512_add_ps(offset, _mm512_mul_ps(_mm512_cvtepi32_ps(value), scale));
            _mm512_mask_blend_ps(reads, offset, decoded)
        };
        [row(0), row(1)]
    };
    // Written out rather than filled in a loop over a zeroed array, which the compiler
    // cleared with a call to `memset` on every block.
    let [c0, c1, c2, c3, c4, c5, c6, c7, c8, c9] = [
        channel(0),
        channel(1),
        channel(2),
        channel(3),
        channel(4),
        channel(5),
        channel(6),
        channel(7),
        channel(8),
        channel(9),
    ];
    let frame = |f: usize| {
        [
            c0[f], c1[f], c2[f], c3[f], c4[f], c5[f], c6[f], c7[f], c8[f], c9[f],
        ]
    };
    [frame(0), frame(1)]
}

/// Normalises the stored rotations of `rows` (channels 3 to 6) as `unit_rotation` does;
/// `None` when a lane's squared length is zero or not finite (the scalar fallback's case).
#[inline]
#[target_feature(enable = "avx512f")]
fn unit_rotations(rows: &[__m512; NUM_CHANNELS], lanes: u16) -> Option<[__m512; 4]> {
    let (add, mul) = (_mm512_add_ps, _mm512_mul_ps);
    let [x, y, z, w] = [rows[3], rows[4], rows[5], rows[6]];
    // `(x² + z²) + (y² + w²)`: glam's `Vec4::length_squared` order.
    let squared = add(add(mul(x, x), mul(z, z)), add(mul(y, y), mul(w, w)));
    // Above zero and below infinity (a NaN is neither).
    let positive = _mm512_cmp_ps_mask::<_CMP_GT_OQ>(squared, _mm512_set1_ps(0.0));
    let finite = _mm512_cmp_ps_mask::<_CMP_LT_OQ>(squared, _mm512_set1_ps(f32::INFINITY));
    let bad = !(positive & finite) & lanes;
    if bad != 0 {
        return None;
    }
    let inverse = _mm512_div_ps(_mm512_set1_ps(1.0), _mm512_sqrt_ps(squared));
    Some([
        mul(x, inverse),
        mul(y, inverse),
        mul(z, inverse),
        mul(w, inverse),
    ])
}

/// # Safety
///
/// The CPU must support AVX-512F and AVX-512BW, and every word `block` gathers must lie
/// within both frames.
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn channels_nlerp_avx512(
    block: &Block,
    [a, b]: [&[u8]; 2],
    t: f32,
    lanes: usize,
    out: Placed<'_, (Quat, Vec3A)>,
    scales: Option<Placed<'_, Vec3A>>,
) -> bool {
    let lanes = lanes.min(LANES);
    let active = if lanes == LANES {
        u16::MAX
    } else {
        (1u16 << lanes) - 1
    };
    // SAFETY: the caller's precondition.
    let [ra, rb] = unsafe { decode(block, [a, b]) };
    let (Some(qa), Some(qb)) = (unit_rotations(&ra, active), unit_rotations(&rb, active)) else {
        return false;
    };
    let ta = [ra[0], ra[1], ra[2]];
    let tb = [rb[0], rb[1], rb[2]];
    let rows = nlerp_lanes((qa, ta), (qb, tb), t);
    if out.to.is_empty() {
        push_poses(rows, lanes, out.out);
    } else {
        scatter_poses(rows, lanes, out.to, out.out);
    }
    if let Some(scales) = scales {
        let (s, u) = (_mm512_set1_ps(t), _mm512_set1_ps(1.0 - t));
        let lerp = |p: __m512, q: __m512| _mm512_add_ps(_mm512_mul_ps(p, u), _mm512_mul_ps(q, s));
        let [x, y, z] = [7, 8, 9].map(|k| lerp(ra[k], rb[k]));
        if scales.to.is_empty() {
            push_vectors([x, y, z], lanes, scales.out);
        } else {
            scatter_vectors([x, y, z], lanes, scales.to, scales.out);
        }
    }
    true
}

/// Appends the first `lanes` of three rows (`x y z`) to `out` as vectors, four a store (each
/// padded with its z, as `Vec3A::new` pads it): whole stores, from which the palette's
/// vector loads of the scales are forwarded.
#[inline]
#[target_feature(enable = "avx512f")]
fn push_vectors([x, y, z]: [__m512; 3], lanes: usize, out: &mut Vec<Vec3A>) {
    let lanes = lanes.min(LANES);
    out.reserve(lanes);
    let len = out.len();
    // Vector `k` of the transpose holds bones `k`, `4 + k`, `8 + k`, `12 + k` in its quarters;
    // transposing the quarters gathers bones `4j .. 4j + 4` into vector `j`.
    let quads = transpose_quarters(transpose4([x, y, z, z]));
    let at = out.as_mut_ptr().wrapping_add(len).cast::<f32>();
    for (j, quad) in quads.into_iter().enumerate().take(lanes.div_ceil(4)) {
        let have = (lanes - 4 * j).min(4);
        let mask: __mmask16 = if have == 4 {
            u16::MAX
        } else {
            (1 << (4 * have)) - 1
        };
        // SAFETY: the mask enables vectors `len + 4j ..` below `len + lanes`, within the
        // capacity reserved above, each four floats.
        unsafe { _mm512_mask_storeu_ps(at.wrapping_add(16 * j), mask, quad) };
    }
    // SAFETY: the `lanes` vectors from `len` on were written above, four plain floats each.
    unsafe { out.set_len(len + lanes) };
}

/// The first `lanes` of three rows (`x y z`) as [`push_vectors`] makes them, lane `l`'s
/// vector written at `out[to[l]]` (dropped where that is past `out`'s end): each one 128-bit
/// store of its quarter.
#[inline]
#[target_feature(enable = "avx512f")]
fn scatter_vectors([x, y, z]: [__m512; 3], lanes: usize, to: &[u32], out: &mut [Vec3A]) {
    let to = to.get(..lanes.min(LANES)).unwrap_or(to);
    let mut put = |lane: usize, v: __m128| {
        if let Some(slot) = to.get(lane).and_then(|&at| out.get_mut(at as usize)) {
            // SAFETY: `slot` is one `Vec3A`, four writable floats.
            unsafe { _mm_storeu_ps(core::ptr::from_mut(slot).cast(), v) };
        }
    };
    // As in `push_vectors`: vector `j` holds bones `4j .. 4j + 4`, a quarter each.
    let quads = transpose_quarters(transpose4([x, y, z, z]));
    for (j, quad) in quads.into_iter().enumerate() {
        if 4 * j >= to.len() {
            break;
        }
        put(4 * j, _mm512_castps512_ps128(quad));
        put(4 * j + 1, _mm512_extractf32x4_ps::<1>(quad));
        put(4 * j + 2, _mm512_extractf32x4_ps::<2>(quad));
        put(4 * j + 3, _mm512_extractf32x4_ps::<3>(quad));
    }
}

/// [`channels_nlerp_avx2`] where the CPU has AVX2 and the frames hold every word the block
/// reads (`false` otherwise): for tests on CPUs whose dispatch takes AVX-512 instead.
#[cfg(test)]
pub(crate) fn try_channels_nlerp_avx2(
    block: &Block,
    a: &[u8],
    b: &[u8],
    t: f32,
    lanes: usize,
    out: Placed<'_, (Quat, Vec3A)>,
    scales: Option<Placed<'_, Vec3A>>,
) -> bool {
    if !is_x86_feature_detected!("avx2") || !reads_within(block, a) || !reads_within(block, b) {
        return false;
    }
    // SAFETY: the CPU was just found to support AVX2, and every word the block gathers lies
    // within `a` and within `b`.
    unsafe { channels_nlerp_avx2(block, [a, b], t, lanes, out, scales) }
}

/// Lanes a half block: an AVX2 register.
const HALF: usize = LANES / 2;

/// [`channels_nlerp_avx512`] on AVX2: the block as two halves of 8 lanes, each read channel's
/// values gathered (AVX2 has no word permute across registers), decoded, normalised and
/// blended with the same arithmetic in the same order. Both halves are decoded and checked
/// before anything is put, so that a refusal leaves the outputs as they were. Each half is
/// its own registers, named (not an array of halves indexed in a loop, which the compiler
/// kept in memory and copied).
///
/// # Safety
///
/// The CPU must support AVX2, and every word `block` gathers must lie within both frames.
#[target_feature(enable = "avx2")]
unsafe fn channels_nlerp_avx2(
    block: &Block,
    frames: [&[u8]; 2],
    t: f32,
    lanes: usize,
    out: Placed<'_, (Quat, Vec3A)>,
    scales: Option<Placed<'_, Vec3A>>,
) -> bool {
    let lanes = lanes.min(LANES);
    // SAFETY: the caller's precondition.
    let Some(low) = (unsafe { blend_half(block, frames, t, 0, lanes.min(HALF)) }) else {
        return false;
    };
    let high = if lanes > HALF {
        // SAFETY: the caller's precondition.
        match unsafe { blend_half(block, frames, t, 1, lanes - HALF) } {
            Some(high) => Some(high),
            None => return false,
        }
    } else {
        None
    };
    let Placed { out, to } = out;
    let mut scales = scales;
    put_half(low, 0, lanes.min(HALF), (&mut *out, to), scales.as_mut());
    if let Some(high) = high {
        put_half(high, 1, lanes - HALF, (out, to), scales.as_mut());
    }
    true
}

/// Half `h` of the block decoded from both frames, its first `active` rotations checked,
/// and blended at `t`: the pose rows (quaternion `x y z w`, translation `x y z`) and the
/// scale rows; `None` where a checked rotation is zero or not finite.
///
/// # Safety
///
/// As [`channels_nlerp_avx2`].
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn blend_half(
    block: &Block,
    frames: [&[u8]; 2],
    t: f32,
    h: usize,
    active: usize,
) -> Option<([__m256; 7], [__m256; 3])> {
    // SAFETY: the caller's precondition.
    let [ra, rb] = unsafe { decode_half(block, frames, h) };
    let qa = unit_rotations_half(&ra, active)?;
    let qb = unit_rotations_half(&rb, active)?;
    let (q, p) = avx2::nlerp_rows((qa, [ra[0], ra[1], ra[2]]), (qb, [rb[0], rb[1], rb[2]]), t);
    let (s, u) = (_mm256_set1_ps(t), _mm256_set1_ps(1.0 - t));
    let lerp = |p: __m256, q: __m256| _mm256_add_ps(_mm256_mul_ps(p, u), _mm256_mul_ps(q, s));
    Some((
        [q[0], q[1], q[2], q[3], p[0], p[1], p[2]],
        [lerp(ra[7], rb[7]), lerp(ra[8], rb[8]), lerp(ra[9], rb[9])],
    ))
}

/// Puts the first `active` lanes of half `h`'s rows ([`blend_half`]): the poses into `out`
/// (appended where `to` is empty, else lane `l` at `out[to[8h + l]]`), the scales likewise.
#[inline]
#[target_feature(enable = "avx2")]
fn put_half(
    (poses, scaled): ([__m256; 7], [__m256; 3]),
    h: usize,
    active: usize,
    (out, to): (&mut Vec<(Quat, Vec3A)>, &[u32]),
    scales: Option<&mut Placed<'_, Vec3A>>,
) {
    if to.is_empty() {
        avx2::push_poses(poses, active, out);
    } else {
        let to = to.get(HALF * h..).unwrap_or_default();
        for (record, &to) in avx2::records(poses).into_iter().zip(to).take(active) {
            if let Some(slot) = out.get_mut(to as usize) {
                // SAFETY: `slot` is one pose, 8 writable floats (asserted in `blend`).
                unsafe { _mm256_storeu_ps(core::ptr::from_mut(slot).cast(), record) };
            }
        }
    }
    if let Some(scales) = scales {
        let mut rows = [[0.0f32; HALF]; 3];
        for (row, v) in rows.iter_mut().zip(scaled) {
            // SAFETY: `row` is 8 writable floats.
            unsafe { _mm256_storeu_ps(row.as_mut_ptr(), v) };
        }
        let items = (0..active).map(|l| Vec3A::new(rows[0][l], rows[1][l], rows[2][l]));
        if scales.to.is_empty() {
            scales.out.extend(items);
        } else {
            let to = scales.to.get(HALF * h..).unwrap_or_default();
            for (item, &to) in items.zip(to) {
                if let Some(slot) = scales.out.get_mut(to as usize) {
                    *slot = item;
                }
            }
        }
    }
}

/// The ten channel rows of half `h` (lanes `8h .. 8h + 8`) of `block` in each of `frames`, as
/// [`decode`] gives them for those lanes: each read channel's values gathered, shifted,
/// masked, converted and scaled; a lane that reads none its offset.
///
/// # Safety
///
/// The CPU must support AVX2, and every word the block gathers must lie within each frame.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn decode_half(block: &Block, frames: [&[u8]; 2], h: usize) -> [[__m256; NUM_CHANNELS]; 2] {
    let first = HALF * (h & 1);
    let low = _mm256_set1_epi32(0xFFFF);
    let bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    let mut rows = [[_mm256_setzero_ps(); NUM_CHANNELS]; 2];
    let [rows_a, rows_b] = &mut rows;
    for (c, (row_a, row_b)) in rows_a.iter_mut().zip(rows_b.iter_mut()).enumerate() {
        // SAFETY: each row holds 16 values; lanes `first .. first + 8` lie within it.
        let offset = unsafe { _mm256_loadu_ps(block.offset[c].as_ptr().wrapping_add(first)) };
        let reads = i32::from((block.reads[c] >> first) as u8);
        if reads == 0 {
            (*row_a, *row_b) = (offset, offset);
            continue;
        }
        // SAFETY: as above, for the scale and integer rows.
        let (scale, at, shift) = unsafe {
            (
                _mm256_loadu_ps(block.scale[c].as_ptr().wrapping_add(first)),
                _mm256_loadu_si256(block.byte[c].as_ptr().wrapping_add(first).cast()),
                _mm256_loadu_si256(block.shift[c].as_ptr().wrapping_add(first).cast()),
            )
        };
        let mask = _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32(reads), bit), bit);
        let row = |frame: &[u8]| {
            // SAFETY: only the lanes of `reads` are gathered, each four bytes from its `byte`,
            // within the frame (the caller's precondition).
            let words = unsafe {
                _mm256_mask_i32gather_epi32::<1>(
                    _mm256_setzero_si256(),
                    frame.as_ptr().cast(),
                    at,
                    mask,
                )
            };
            let value = _mm256_and_si256(_mm256_srlv_epi32(words, shift), low);
            let decoded = _mm256_add_ps(offset, _mm256_mul_ps(_mm256_cvtepi32_ps(value), scale));
            _mm256_blendv_ps(offset, decoded, _mm256_castsi256_ps(mask))
        };
        (*row_a, *row_b) = (row(frames[0]), row(frames[1]));
    }
    rows
}

/// [`unit_rotations`] of half a block's rows, its first `active` lanes checked.
#[inline]
#[target_feature(enable = "avx2")]
fn unit_rotations_half(rows: &[__m256; NUM_CHANNELS], active: usize) -> Option<[__m256; 4]> {
    let (add, mul) = (_mm256_add_ps, _mm256_mul_ps);
    let [x, y, z, w] = [rows[3], rows[4], rows[5], rows[6]];
    let squared = add(add(mul(x, x), mul(z, z)), add(mul(y, y), mul(w, w)));
    let positive = _mm256_cmp_ps::<_CMP_GT_OQ>(squared, _mm256_setzero_ps());
    let finite = _mm256_cmp_ps::<_CMP_LT_OQ>(squared, _mm256_set1_ps(f32::INFINITY));
    let good = _mm256_movemask_ps(_mm256_and_ps(positive, finite)) as u32;
    let wanted = (1u32 << active.min(HALF)) - 1;
    if good & wanted != wanted {
        return None;
    }
    let inverse = _mm256_div_ps(_mm256_set1_ps(1.0), _mm256_sqrt_ps(squared));
    Some([
        mul(x, inverse),
        mul(y, inverse),
        mul(z, inverse),
        mul(w, inverse),
    ])
}
