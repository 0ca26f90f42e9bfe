//! Validation's scans of pose tables with AVX-512F: any float table (DPM's big-endian 3×4
//! matrices, SKP's poses, texture coordinates) for non-finite values, 256 bytes a step (and
//! on AVX2, 128), and
//! little-endian quaternion poses (SKP's) for lengths off unit, sixteen poses at a time.

use core::arch::x86_64::{
    __mmask16, _CMP_GT_OQ, _mm256_andnot_si256, _mm256_cmpeq_epi32, _mm256_min_epu32,
    _mm256_set1_epi32, _mm256_setzero_si256, _mm256_testz_si256, _mm512_add_ps, _mm512_and_si512,
    _mm512_andnot_si512, _mm512_castps_si512, _mm512_castsi512_ps, _mm512_cmp_ps_mask,
    _mm512_loadu_ps, _mm512_loadu_si512, _mm512_mask_blend_ps, _mm512_maskz_loadu_epi32,
    _mm512_min_epu32, _mm512_mul_ps, _mm512_permutex2var_ps, _mm512_reduce_min_epu32,
    _mm512_set1_epi32, _mm512_set1_ps, _mm512_setzero_ps, _mm512_sub_ps,
};

/// Whether any whole word of `bytes`, read in the file's byte order, is a NaN or an infinity
/// (every exponent bit set); `None` when the CPU lacks AVX-512F and AVX2. Pose tables are
/// most of a skeletal file's bytes, so this is validation's widest scan.
pub(crate) fn try_any_non_finite(bytes: &[u8], big_endian: bool) -> Option<bool> {
    if is_x86_feature_detected!("avx512f") {
        // SAFETY: the CPU was just found to support AVX-512F.
        Some(unsafe { any_non_finite(bytes, exponent(big_endian)) })
    } else {
        try_any_non_finite_avx2(bytes, big_endian)
    }
}

/// [`try_any_non_finite`] on AVX2, whatever else the CPU has; `None` without it.
pub(crate) fn try_any_non_finite_avx2(bytes: &[u8], big_endian: bool) -> Option<bool> {
    // SAFETY: the CPU was just found to support AVX2.
    super::avx2().then(|| unsafe { any_non_finite_avx2(bytes, exponent(big_endian)) })
}

/// A float's exponent bits in the file's byte order, as a native load sees them.
fn exponent(big_endian: bool) -> u32 {
    let exponent = 0x7F80_0000u32;
    if big_endian {
        u32::from_ne_bytes(exponent.to_be_bytes())
    } else {
        u32::from_ne_bytes(exponent.to_le_bytes())
    }
}

/// [`any_non_finite`] in 32-byte registers, 128 bytes a step, the last partial step from a
/// zero-padded copy (a zero word's exponent bits are all clear: it passes).
///
/// # Safety
///
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
unsafe fn any_non_finite_avx2(bytes: &[u8], exponent: u32) -> bool {
    let exponent = _mm256_set1_epi32(exponent as i32);
    let mut clear = [_mm256_set1_epi32(-1); 4];
    let words = &bytes[..bytes.len() / 4 * 4];
    let mut steps = words.chunks_exact(128);
    for step in &mut steps {
        for (clear, half) in clear.chunks_exact_mut(2).zip(step.chunks_exact(64)) {
            let Some(block) = half.first_chunk::<64>() else {
                continue;
            };
            for (clear, v) in clear.iter_mut().zip(super::halves(block)) {
                *clear = _mm256_min_epu32(*clear, _mm256_andnot_si256(v, exponent));
            }
        }
    }
    for rest in steps.remainder().chunks(64) {
        for (clear, v) in clear.iter_mut().zip(super::halves(&super::padded(rest))) {
            *clear = _mm256_min_epu32(*clear, _mm256_andnot_si256(v, exponent));
        }
    }
    let [a, b, c, d] = clear;
    let least = _mm256_min_epu32(_mm256_min_epu32(a, b), _mm256_min_epu32(c, d));
    // Some lane's least is zero where comparing with zero sets it.
    let zero = _mm256_cmpeq_epi32(least, _mm256_setzero_si256());
    _mm256_testz_si256(zero, zero) == 0
}

/// Four registers a step, two operations a register and no byte swap: a word's exponent bits
/// that are clear (`exponent & !word`) are zero only for a NaN or an infinity, and the
/// unsigned minimum over the buffer is zero only if some word's are. The read pass does one
/// operation a register; the `open_validate` bench's `dpm/` and `bytesum/` rows set the
/// two side by side.
///
/// # Safety
///
/// The CPU must support AVX-512F.
#[target_feature(enable = "avx512f")]
unsafe fn any_non_finite(bytes: &[u8], exponent: u32) -> bool {
    let exponent = _mm512_set1_epi32(exponent as i32);
    let mut clear = [_mm512_set1_epi32(-1); 4];
    let words = &bytes[..bytes.len() / 4 * 4];
    let mut steps = words.chunks_exact(256);
    for step in &mut steps {
        for (clear, register) in clear.iter_mut().zip(step.chunks_exact(64)) {
            // SAFETY: the chunk is 64 bytes, and an unaligned load reads exactly those.
            let v = unsafe { _mm512_loadu_si512(register.as_ptr().cast()) };
            *clear = _mm512_min_epu32(*clear, _mm512_andnot_si512(v, exponent));
        }
    }
    for rest in steps.remainder().chunks(64) {
        let lanes: __mmask16 = u16::MAX >> (16 - rest.len() / 4);
        // SAFETY: the lanes `lanes` sets are the chunk's words (it is a whole number of them,
        // 4 to 64 bytes), and a masked load reads no other memory. A disabled lane loads 0,
        // whose exponent bits are all clear: it passes.
        let v = unsafe { _mm512_maskz_loadu_epi32(lanes, rest.as_ptr().cast()) };
        clear[0] = _mm512_min_epu32(clear[0], _mm512_andnot_si512(v, exponent));
    }
    let [a, b, c, d] = clear;
    let least = _mm512_min_epu32(_mm512_min_epu32(a, b), _mm512_min_epu32(c, d));
    _mm512_reduce_min_epu32(least) == 0
}

/// Bytes of an SKP pose: a little-endian quaternion `(x, y, z, w)`, then an origin.
const SKP_POSE: usize = 28;

/// Of the SKP poses at the start of `bytes`, in whole steps of sixteen, how many have a
/// quaternion whose squared length, added in `x, y, z, w` order as the scalar check adds it,
/// is more than `tolerance` from 1 (the poses are known finite), and the index of the first;
/// `None` without AVX-512F. The poses after the last whole step are the caller's.
pub(crate) fn try_quats_off_unit(bytes: &[u8], tolerance: f32) -> Option<(u64, usize)> {
    // SAFETY: the CPU was just found to support AVX-512F.
    is_x86_feature_detected!("avx512f").then(|| unsafe { quats_off_unit(bytes, tolerance) })
}

/// Sixteen poses (seven registers) a step. Component `k` of pose `i` is word `7 i + k`: four
/// two-register permutes with the index `(7 i + k) mod 32` fetch it from each pair of
/// registers, and three blends keep, lane by lane, the pair that holds it. The squares are
/// added lane-wise in the scalar check's order, so every lane's sum is the scalar sum bit for
/// bit. The first index is `usize::MAX` when the count is 0.
///
/// # Safety
///
/// The CPU must support AVX-512F.
#[target_feature(enable = "avx512f")]
unsafe fn quats_off_unit(bytes: &[u8], tolerance: f32) -> (u64, usize) {
    const WORD: [[u32; 16]; 4] = {
        let mut t = [[0; 16]; 4];
        let (mut k, mut i) = (0, 0);
        while k < 4 {
            while i < 16 {
                t[k][i] = ((7 * i + k) % 32) as u32;
                i += 1;
            }
            (k, i) = (k + 1, 0);
        }
        t
    };
    /// Lanes whose component `k` lies in register pair `p` (registers `2p` and `2p + 1`).
    const PAIR: [[u16; 4]; 4] = {
        let mut t = [[0; 4]; 4];
        let (mut k, mut i) = (0, 0);
        while k < 4 {
            while i < 16 {
                t[k][(7 * i + k) / 32] |= 1 << i;
                i += 1;
            }
            (k, i) = (k + 1, 0);
        }
        t
    };
    let (one, tolerance) = (_mm512_set1_ps(1.0), _mm512_set1_ps(tolerance));
    let magnitude = _mm512_set1_epi32(0x7FFF_FFFF);
    let (mut count, mut first) = (0, usize::MAX);
    for (s, step) in bytes.chunks_exact(16 * SKP_POSE).enumerate() {
        let mut r = [_mm512_setzero_ps(); 7];
        for (r, register) in r.iter_mut().zip(step.chunks_exact(64)) {
            // SAFETY: the chunk is 64 bytes, and an unaligned load reads exactly those.
            *r = unsafe { _mm512_loadu_ps(register.as_ptr().cast()) };
        }
        let square = |k: usize| {
            // SAFETY: the table is sixteen words (64 bytes), and an unaligned load reads
            // exactly those.
            let word = unsafe { _mm512_loadu_si512(WORD[k].as_ptr().cast()) };
            let [_, second, third, fourth] = PAIR[k];
            let v = _mm512_permutex2var_ps(r[0], word, r[1]);
            let v = _mm512_mask_blend_ps(second, v, _mm512_permutex2var_ps(r[2], word, r[3]));
            let v = _mm512_mask_blend_ps(third, v, _mm512_permutex2var_ps(r[4], word, r[5]));
            let v = _mm512_mask_blend_ps(fourth, v, _mm512_permutex2var_ps(r[6], word, r[6]));
            _mm512_mul_ps(v, v)
        };
        let len2 = _mm512_add_ps(_mm512_add_ps(square(0), square(1)), square(2));
        let len2 = _mm512_add_ps(len2, square(3));
        let distance = _mm512_castsi512_ps(_mm512_and_si512(
            _mm512_castps_si512(_mm512_sub_ps(len2, one)),
            magnitude,
        ));
        let off = _mm512_cmp_ps_mask::<_CMP_GT_OQ>(distance, tolerance);
        if off != 0 {
            first = first.min(16 * s + off.trailing_zeros() as usize);
            count += u64::from(off.count_ones());
        }
    }
    (count, first)
}

#[cfg(test)]
mod tests {
    use super::{SKP_POSE, try_any_non_finite, try_any_non_finite_avx2, try_quats_off_unit};

    fn bytes(values: &[f32], big_endian: bool) -> Vec<u8> {
        let word = |v: &f32| {
            if big_endian {
                v.to_be_bytes()
            } else {
                v.to_le_bytes()
            }
        };
        values.iter().flat_map(word).collect()
    }

    #[test]
    fn the_finite_scan_finds_every_nan_and_infinity_at_every_position_and_length() {
        // The widest scan this CPU has, then AVX2's; each where the CPU has it.
        type Scan = fn(&[u8], bool) -> Option<bool>;
        let scans: [Scan; 2] = [try_any_non_finite, try_any_non_finite_avx2];
        for (scan, big_endian) in scans.into_iter().flat_map(|s| [(s, false), (s, true)]) {
            if scan(&[], big_endian).is_none() {
                continue;
            }
            // Every length up to five steps and a bit (the partial tail included), and
            // values whose bits come close to an exponent of all ones without reaching it.
            for len in 0..330 {
                let plain: Vec<f32> = (0..len)
                    .map(|i| match i % 5 {
                        0 => f32::MAX,
                        1 => -f32::MAX,
                        2 => -0.0,
                        3 => f32::from_bits(0x007F_FFFF),
                        _ => i as f32,
                    })
                    .collect();
                let mut clean = bytes(&plain, big_endian);
                assert_eq!(scan(&clean, big_endian), Some(false));
                // A trailing partial word is not looked at.
                clean.extend_from_slice(&[0xFF; 3]);
                assert_eq!(scan(&clean, big_endian), Some(false));
                let positions = (0..len).filter(|at| len < 40 || at % 17 == 0 || at + 1 == len);
                for at in positions {
                    for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, -f32::NAN] {
                        let mut values = plain.clone();
                        values[at] = bad;
                        assert_eq!(
                            scan(&bytes(&values, big_endian), big_endian),
                            Some(true),
                            "{big_endian}: {len} words, {bad} at {at}"
                        );
                    }
                }
            }
        }
    }

    /// SKP poses with the given quaternions and finite origins.
    fn skp_poses(quats: &[[f32; 4]]) -> Vec<u8> {
        let mut bytes = Vec::new();
        for (i, q) in quats.iter().enumerate() {
            for v in q.iter().chain(&[i as f32, -2.5, 1e30]) {
                bytes.extend(v.to_le_bytes());
            }
        }
        bytes
    }

    /// Over the whole steps of sixteen.
    fn off_unit_reference(quats: &[[f32; 4]], tolerance: f32) -> (u64, usize) {
        let quats = &quats[..quats.len() / 16 * 16];
        let off = |q: &[f32; 4]| {
            let len2: f32 = q.iter().map(|v| v * v).sum();
            (len2 - 1.0).abs() > tolerance
        };
        let count = quats.iter().filter(|q| off(q)).count() as u64;
        (count, quats.iter().position(off).unwrap_or(usize::MAX))
    }

    #[test]
    fn the_quaternion_scan_agrees_with_the_scalar_check_at_every_pose_and_edge() {
        if !is_x86_feature_detected!("avx512f") {
            return;
        }
        let unit = [0.5f32, -0.5, 0.5, 0.5];
        // Squared lengths on both sides of 1 ± 0.01, by an ulp or two, and values whose
        // squares round differently in another order of addition.
        let edge = |len2: f32| [len2.sqrt(), 0.0, 0.0, 0.0];
        let odd = [
            edge(1.01),
            edge(f32::from_bits(1.01f32.to_bits() + 1)),
            edge(f32::from_bits(1.01f32.to_bits() + 2)),
            edge(0.99),
            edge(f32::from_bits(0.99f32.to_bits() - 1)),
            edge(f32::from_bits(0.99f32.to_bits() - 2)),
            [1.0049, 1e-4, 3e-4, -7e-4],
            [0.7072, 0.7069, 0.0703, 0.0],
            [0.0, 0.0, 0.0, 0.0],
            [1e20, 0.0, 0.0, 1.0],
            [-0.0, -1.0, -0.0, -0.0],
            [0.0, 0.0, 0.0, 1.5],
        ];
        for count in 0..=50 {
            let clean = vec![unit; count];
            assert_eq!(
                try_quats_off_unit(&skp_poses(&clean), 0.01),
                Some((0, usize::MAX))
            );
            let mut partial = skp_poses(&clean);
            partial.extend_from_slice(&[0xFF; SKP_POSE - 1]);
            assert_eq!(try_quats_off_unit(&partial, 0.01), Some((0, usize::MAX)));
            for at in 0..count {
                for q in odd {
                    // The pose itself, and one more two poses on (counted, not first).
                    let mut quats = clean.clone();
                    quats[at] = q;
                    if at + 2 < count {
                        quats[at + 2] = edge(1.5);
                    }
                    for tolerance in [0.01, 0.0, 1.0] {
                        assert_eq!(
                            try_quats_off_unit(&skp_poses(&quats), tolerance),
                            Some(off_unit_reference(&quats, tolerance)),
                            "{count} poses, {q:?} at {at}, tolerance {tolerance}"
                        );
                    }
                }
            }
        }
    }
}
