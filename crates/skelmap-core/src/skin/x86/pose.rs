//! DPM bone poses (3×4 big-endian row-major matrices) to rotation quaternions and
//! translations, 16 bones at a time with AVX-512F.
//!
//! Each step loads 16 poses (768 bytes) as twelve vectors, byte-swaps them and transposes them
//! in registers into twelve rows of 16 native floats (one row per matrix entry), then runs the scalar conversion's arithmetic lane-wise: the four textbook
//! formulas, the one with the largest divisor chosen by mask, then normalised. A last step of
//! at least [`MIN_LANES`] poses runs with its unused lanes zero and discarded; fewer are left
//! to the caller, for whom one scalar conversion each is cheaper than a step.

use core::arch::x86_64::{
    __m512, __mmask16, _CMP_GE_OQ, _mm512_add_ps, _mm512_and_si512, _mm512_andnot_si512,
    _mm512_castsi512_ps, _mm512_cmp_ps_mask, _mm512_div_ps, _mm512_loadu_si512,
    _mm512_mask_blend_ps, _mm512_mask_permutexvar_ps, _mm512_maskz_loadu_epi32, _mm512_mul_ps,
    _mm512_or_si512, _mm512_permutex2var_ps, _mm512_rol_epi32, _mm512_set1_epi32, _mm512_set1_ps,
    _mm512_setzero_ps, _mm512_shuffle_f32x4, _mm512_slli_epi32, _mm512_sqrt_ps, _mm512_srli_epi32,
    _mm512_storeu_ps, _mm512_sub_ps,
};

use glam::{Quat, Vec3A};

/// Bytes of one pose.
const POSE: usize = 48;

/// The fewest poses a step converts: below it, a step costs more than scalar conversions.
const MIN_LANES: usize = 4;

/// Appends the poses of `bytes` (big-endian 3×4 matrices) to `out` as unit quaternions and
/// translations, but for a last few (fewer than [`MIN_LANES`] past the last full step);
/// returns how many it converted (0 when the CPU lacks AVX-512F).
pub(crate) fn try_be_poses(bytes: &[u8], out: &mut Vec<(Quat, Vec3A)>) -> usize {
    if is_x86_feature_detected!("avx512f") {
        // SAFETY: the CPU was just found to support AVX-512F.
        unsafe { be_poses_avx512(bytes, out) }
    } else {
        0
    }
}

/// Where lane `j` of a group's three entry vectors takes its float from among the group's 48
/// (4 poses of 12 entries): vector `r`, lane `j` holds entry `4r + j / 4` of pose `j % 4`,
/// from the first two loaded vectors (`lo`) or, where `mask` says, from the third (`hi`).
const fn group_index(r: usize) -> ([i32; 16], [i32; 16], u16) {
    let (mut lo, mut hi, mut mask) = ([0i32; 16], [0i32; 16], 0u16);
    let mut j = 0;
    while j < 16 {
        let from = 12 * (j % 4) + 4 * r + j / 4;
        if from < 32 {
            lo[j] = from as i32;
        } else {
            hi[j] = (from - 32) as i32;
            mask |= 1 << j;
        }
        j += 1;
    }
    (lo, hi, mask)
}

const GROUP_INDEX: [([i32; 16], [i32; 16], u16); 3] =
    [group_index(0), group_index(1), group_index(2)];

/// The twelve entry rows of the step's `lanes` poses (`step` holds them; lanes past them are
/// zero): sixteen floats loaded at a time, byte-swapped, regrouped by entry four poses at a
/// time, then the four groups' 128-bit quarters transposed.
#[inline]
#[target_feature(enable = "avx512f")]
fn rows_of(step: &[u8], lanes: usize) -> [__m512; 12] {
    let low_bytes = _mm512_set1_epi32(0x00FF_00FF);
    let floats = (12 * lanes).min(step.len() / 4);
    let vectors: [__m512; 12] = core::array::from_fn(|v| {
        let have = floats.saturating_sub(16 * v).min(16);
        let mask: __mmask16 = if have == 16 {
            u16::MAX
        } else {
            (1 << have) - 1
        };
        // SAFETY: the mask enables floats `16v .. 16v + have`, which lie within the first
        // `floats` ≤ `step.len() / 4` floats of `step`; disabled lanes are not read.
        let word = unsafe {
            _mm512_maskz_loadu_epi32(mask, step.as_ptr().cast::<i32>().wrapping_add(16 * v))
        };
        // Byte swap: the 16-bit halves, then the bytes within each half.
        let halves = _mm512_rol_epi32::<16>(word);
        _mm512_castsi512_ps(_mm512_or_si512(
            _mm512_and_si512(_mm512_srli_epi32::<8>(halves), low_bytes),
            _mm512_andnot_si512(low_bytes, _mm512_slli_epi32::<8>(halves)),
        ))
    });
    // Per group of 4 poses (vectors 3g .. 3g + 2), three vectors of entries `4r .. 4r + 3`,
    // one 128-bit quarter per entry.
    let grouped: [[__m512; 3]; 4] = core::array::from_fn(|g| {
        core::array::from_fn(|r| {
            let (lo, hi, mask) = &GROUP_INDEX[r];
            // SAFETY: `lo` and `hi` are 16 `i32`s each, the loads' size.
            let (lo, hi) = unsafe {
                (
                    _mm512_loadu_si512(lo.as_ptr().cast()),
                    _mm512_loadu_si512(hi.as_ptr().cast()),
                )
            };
            let pair = _mm512_permutex2var_ps(vectors[3 * g], lo, vectors[3 * g + 1]);
            _mm512_mask_permutexvar_ps(pair, *mask, hi, vectors[3 * g + 2])
        })
    });
    let mut rows = [_mm512_setzero_ps(); 12];
    for r in 0..3 {
        let q = |g: usize| grouped[g][r];
        let t0 = _mm512_shuffle_f32x4::<0x44>(q(0), q(1));
        let t1 = _mm512_shuffle_f32x4::<0xEE>(q(0), q(1));
        let t2 = _mm512_shuffle_f32x4::<0x44>(q(2), q(3));
        let t3 = _mm512_shuffle_f32x4::<0xEE>(q(2), q(3));
        rows[4 * r] = _mm512_shuffle_f32x4::<0x88>(t0, t2);
        rows[4 * r + 1] = _mm512_shuffle_f32x4::<0xDD>(t0, t2);
        rows[4 * r + 2] = _mm512_shuffle_f32x4::<0x88>(t1, t3);
        rows[4 * r + 3] = _mm512_shuffle_f32x4::<0xDD>(t1, t3);
    }
    rows
}

/// # Safety
///
/// The CPU must support AVX-512F.
#[target_feature(enable = "avx512f")]
unsafe fn be_poses_avx512(bytes: &[u8], out: &mut Vec<(Quat, Vec3A)>) -> usize {
    let poses = bytes.len() / POSE;
    let poses = if poses % 16 < MIN_LANES {
        poses - poses % 16
    } else {
        poses
    };
    out.reserve(poses);
    let one = _mm512_set1_ps(1.0);
    let mut rows = [[0.0f32; 16]; 7];
    for step in bytes
        .get(..poses * POSE)
        .unwrap_or_default()
        .chunks(16 * POSE)
    {
        let lanes = step.len() / POSE;
        let m = rows_of(step, lanes);
        let [r00, r01, r02, tx, r10, r11, r12, ty, r20, r21, r22, tz] = m;
        let (add, sub) = (_mm512_add_ps, _mm512_sub_ps);
        let t = [
            sub(sub(add(one, r00), r11), r22),
            sub(add(sub(one, r00), r11), r22),
            add(sub(sub(one, r00), r11), r22),
            add(add(add(one, r00), r11), r22),
        ];
        let (xy, yz, zx) = (add(r10, r01), add(r21, r12), add(r02, r20));
        let (sx, sy, sz) = (sub(r21, r12), sub(r02, r20), sub(r10, r01));
        let by = [
            [t[0], xy, zx, sx],
            [xy, t[1], yz, sy],
            [zx, yz, t[2], sz],
            [sx, sy, sz, t[3]],
        ];
        // The formula with the largest divisor, as the scalar `pick` chooses it (ties to the
        // first).
        let pick = |a: ([__m512; 4], __m512), b: ([__m512; 4], __m512)| {
            let first = _mm512_cmp_ps_mask::<_CMP_GE_OQ>(a.1, b.1);
            (
                core::array::from_fn(|c| _mm512_mask_blend_ps(first, b.0[c], a.0[c])),
                _mm512_mask_blend_ps(first, b.1, a.1),
            )
        };
        let (v, _) = pick(
            pick((by[0], t[0]), (by[1], t[1])),
            pick((by[2], t[2]), (by[3], t[3])),
        );
        let [x, y, z, w] = v;
        let dot = add(
            add(_mm512_mul_ps(x, x), _mm512_mul_ps(y, y)),
            add(_mm512_mul_ps(z, z), _mm512_mul_ps(w, w)),
        );
        let inverse = _mm512_div_ps(one, _mm512_sqrt_ps(dot));
        let values = [
            _mm512_mul_ps(x, inverse),
            _mm512_mul_ps(y, inverse),
            _mm512_mul_ps(z, inverse),
            _mm512_mul_ps(w, inverse),
            tx,
            ty,
            tz,
        ];
        for (row, v) in rows.iter_mut().zip(values) {
            // SAFETY: `row` is 16 writable floats, the store's size.
            unsafe { _mm512_storeu_ps(row.as_mut_ptr(), v) };
        }
        out.extend((0..lanes).map(|l| {
            (
                Quat::from_xyzw(rows[0][l], rows[1][l], rows[2][l], rows[3][l]),
                Vec3A::new(rows[4][l], rows[5][l], rows[6][l]),
            )
        }));
    }
    poses
}
