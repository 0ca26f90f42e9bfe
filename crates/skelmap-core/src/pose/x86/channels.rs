//! Quantised channels of sixteen bones decoded from two frames and blended (nlerp), one
//! AVX-512F step (see `pose/channels.rs`).
//!
//! Each channel some lane of the block reads is one masked gather of sixteen 32-bit words
//! per frame (the value in the low or high half, as the layout says), converted to float,
//! scaled and offset by separate multiplies and adds (the scalar decode's roundings, no fused
//! multiply-add); a channel no lane reads is its offsets. The stored rotations are then
//! normalised lane-wise as `unit_rotation` does, and both frames blended by `nlerp_lanes`,
//! `pose::sample`'s nlerp in its order: the scalar results, bit for bit.

use core::arch::x86_64::{
    __m512, _CMP_GT_OQ, _CMP_LT_OQ, _mm512_add_ps, _mm512_and_si512, _mm512_cmp_ps_mask,
    _mm512_cvtepi32_ps, _mm512_div_ps, _mm512_load_ps, _mm512_load_si512, _mm512_mask_blend_ps,
    _mm512_mask_i32gather_epi32, _mm512_mul_ps, _mm512_set1_epi32, _mm512_set1_ps,
    _mm512_setzero_si512, _mm512_sqrt_ps, _mm512_srlv_epi32, _mm512_storeu_ps,
};

use glam::{Quat, Vec3A};

use super::matrices::{nlerp_lanes, push_poses};
use crate::pose::block::{Block, LANES, NUM_CHANNELS};

/// See `pose::lanes::channels_nlerp`.
pub(crate) fn try_channels_nlerp(
    block: &Block,
    a: &[u8],
    b: &[u8],
    t: f32,
    lanes: usize,
    out: &mut Vec<(Quat, Vec3A)>,
    scales: Option<&mut Vec<Vec3A>>,
) -> bool {
    if !is_x86_feature_detected!("avx512f") || !reads_within(block, a) || !reads_within(block, b) {
        return false;
    }
    // SAFETY: the CPU was just found to support AVX-512F, and every word the block gathers
    // lies within `a` and within `b`.
    unsafe { channels_nlerp_avx512(block, a, b, t, lanes, out, scales) }
}

/// `true` when every word `block` gathers (four bytes from each reading lane's `byte`) lies
/// within `frame`: one comparison with the end the layout found once.
#[inline]
fn reads_within(block: &Block, frame: &[u8]) -> bool {
    block.reads_end as usize <= frame.len()
}

/// The ten channel rows of `frame` for `block`'s lanes (lanes past the block's bones hold
/// their zero offsets).
///
/// # Safety
///
/// The CPU must support AVX-512F, and every word the block gathers must lie within `frame`.
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn decode(block: &Block, frame: &[u8]) -> [__m512; NUM_CHANNELS] {
    let low = _mm512_set1_epi32(0xFFFF);
    let mut rows = [_mm512_set1_ps(0.0); NUM_CHANNELS];
    for (c, row) in rows.iter_mut().enumerate() {
        // SAFETY: `Block` is 64-byte aligned and each row is 64 bytes at a multiple of 64.
        let offset = unsafe { _mm512_load_ps(block.offset[c].as_ptr()) };
        let reads = block.reads[c];
        if reads == 0 {
            *row = offset;
            continue;
        }
        // SAFETY: as above, for the integer rows.
        let (at, shift, scale) = unsafe {
            (
                _mm512_load_si512(block.byte[c].as_ptr().cast()),
                _mm512_load_si512(block.shift[c].as_ptr().cast()),
                _mm512_load_ps(block.scale[c].as_ptr()),
            )
        };
        // SAFETY: only the lanes of `reads` are gathered, each four bytes from its `byte`,
        // within `frame` (the caller's precondition).
        let words = unsafe {
            _mm512_mask_i32gather_epi32::<1>(
                _mm512_setzero_si512(),
                reads,
                at,
                frame.as_ptr().cast(),
            )
        };
        let value = _mm512_cvtepi32_ps(_mm512_and_si512(_mm512_srlv_epi32(words, shift), low));
        let decoded = _mm512_add_ps(offset, _mm512_mul_ps(value, scale));
        *row = _mm512_mask_blend_ps(reads, offset, decoded);
    }
    rows
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
/// The CPU must support AVX-512F, and every word `block` gathers must lie within `a` and `b`.
#[target_feature(enable = "avx512f")]
unsafe fn channels_nlerp_avx512(
    block: &Block,
    a: &[u8],
    b: &[u8],
    t: f32,
    lanes: usize,
    out: &mut Vec<(Quat, Vec3A)>,
    scales: Option<&mut Vec<Vec3A>>,
) -> bool {
    let lanes = lanes.min(LANES);
    let active = if lanes == LANES {
        u16::MAX
    } else {
        (1u16 << lanes) - 1
    };
    // SAFETY: the caller's precondition.
    let (ra, rb) = unsafe { (decode(block, a), decode(block, b)) };
    let (Some(qa), Some(qb)) = (unit_rotations(&ra, active), unit_rotations(&rb, active)) else {
        return false;
    };
    let ta = [ra[0], ra[1], ra[2]];
    let tb = [rb[0], rb[1], rb[2]];
    push_poses(nlerp_lanes((qa, ta), (qb, tb), t), lanes, out);
    if let Some(scales) = scales {
        let (s, u) = (_mm512_set1_ps(t), _mm512_set1_ps(1.0 - t));
        let lerp = |p: __m512, q: __m512| _mm512_add_ps(_mm512_mul_ps(p, u), _mm512_mul_ps(q, s));
        let mut rows = [[0.0f32; LANES]; 3];
        for (k, row) in rows.iter_mut().enumerate() {
            // SAFETY: `row` is 16 writable floats.
            unsafe { _mm512_storeu_ps(row.as_mut_ptr(), lerp(ra[7 + k], rb[7 + k])) };
        }
        scales.extend((0..lanes).map(|l| Vec3A::new(rows[0][l], rows[1][l], rows[2][l])));
    }
    true
}
