//! Validation's scans of pose tables with AVX-512F: big-endian 3×4 matrices (DPM's) for
//! non-finite values and zero rotation rows, 64 bytes at a time, and little-endian
//! quaternion poses (SKP's) for lengths off unit, sixteen poses at a time.

use core::arch::x86_64::{
    __m512i, __mmask16, _CMP_GT_OQ, _mm512_add_ps, _mm512_and_si512, _mm512_andnot_si512,
    _mm512_castps_si512, _mm512_castsi512_ps, _mm512_cmp_ps_mask, _mm512_loadu_ps,
    _mm512_loadu_si512, _mm512_mask_blend_ps, _mm512_mask_loadu_epi32, _mm512_min_epu32,
    _mm512_mul_ps, _mm512_permutex2var_ps, _mm512_reduce_min_epu32, _mm512_set1_epi32,
    _mm512_set1_ps, _mm512_setr_epi32, _mm512_setzero_ps, _mm512_shuffle_epi32, _mm512_sub_ps,
    _mm512_ternarylogic_epi32,
};

/// Scans DPM poses (big-endian 3×4 matrices, 48 bytes each; a trailing partial row is ignored)
/// for validation: whether any value is NaN or infinite, and whether any rotation row is zero
/// (its first three values ±0); `None` when the CPU lacks AVX-512F.
pub(crate) fn try_scan_be_poses(bytes: &[u8]) -> Option<(bool, bool)> {
    if is_x86_feature_detected!("avx512f") {
        // SAFETY: the CPU was just found to support AVX-512F.
        Some(unsafe { scan_be_poses_avx512(bytes) })
    } else {
        None
    }
}

/// Four rows (64 bytes) a step, on the raw bits, with no scalar work in the loop: a value is
/// non-finite when none of its exponent bits is clear, a row zero when the OR of its first
/// three values' magnitude bits is zero; the two minima over the block say whether either
/// happened.
///
/// # Safety
///
/// The CPU must support AVX-512F.
#[target_feature(enable = "avx512f")]
unsafe fn scan_be_poses_avx512(bytes: &[u8]) -> (bool, bool) {
    // The masks in the file's (big-endian) byte order, as a native load sees them.
    let in_file_order = |v: u32| i32::from_ne_bytes(v.to_be_bytes());
    let exponent = _mm512_set1_epi32(in_file_order(0x7F80_0000));
    let magnitude = _mm512_set1_epi32(in_file_order(0x7FFF_FFFF));
    // All ones except in each row's first lane, where the row's OR lands.
    let not_first = _mm512_setr_epi32(0, -1, -1, -1, 0, -1, -1, -1, 0, -1, -1, -1, 0, -1, -1, -1);
    // What a disabled lane of the last, partial step loads: 1.0, finite and not zero.
    let one = _mm512_set1_epi32(in_file_order(1.0f32.to_bits()));
    let (mut finite, mut row) = (_mm512_set1_epi32(-1), _mm512_set1_epi32(-1));
    // Seven operations a register: two shuffles, two three-input logic operations, an
    // and-not and two minima.
    let mut scan = |v: __m512i| {
        // Zero where every exponent bit is set.
        finite = _mm512_min_epu32(finite, _mm512_andnot_si512(v, exponent));
        // In each row's first lane: the OR of the row's first three words (0xFE: a | b | c),
        // then its magnitude bits, all ones in the other lanes (0xEA: (a & b) | c).
        let or3 = _mm512_ternarylogic_epi32::<0xFE>(
            v,
            _mm512_shuffle_epi32::<0b00_00_00_01>(v),
            _mm512_shuffle_epi32::<0b00_00_00_10>(v),
        );
        let first = _mm512_ternarylogic_epi32::<0xEA>(or3, magnitude, not_first);
        row = _mm512_min_epu32(row, first);
    };
    // Whole rows of four words only.
    let words = bytes.len() / 16 * 4;
    let whole = words / 16 * 16;
    for first in (0..whole).step_by(16) {
        // SAFETY: words `first .. first + 16` lie within the first `whole` ≤ `bytes.len() / 4`
        // words of `bytes`.
        scan(unsafe {
            _mm512_loadu_si512(bytes.as_ptr().cast::<i32>().wrapping_add(first).cast())
        });
    }
    if words > whole {
        let mask: __mmask16 = (1 << (words - whole)) - 1;
        // SAFETY: the mask enables words `whole .. words`, within `bytes`; disabled lanes are
        // not read.
        scan(unsafe {
            _mm512_mask_loadu_epi32(one, mask, bytes.as_ptr().cast::<i32>().wrapping_add(whole))
        });
    }
    (
        _mm512_reduce_min_epu32(finite) == 0,
        _mm512_reduce_min_epu32(row) == 0,
    )
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
    use super::{SKP_POSE, try_quats_off_unit, try_scan_be_poses};

    /// What the scan must find, value by value.
    fn reference(values: &[f32]) -> (bool, bool) {
        let non_finite = values.iter().any(|v| !v.is_finite());
        let zero_row = values
            .chunks_exact(4)
            .any(|row| row[..3].iter().all(|v| *v == 0.0));
        (non_finite, zero_row)
    }

    fn bytes(values: &[f32]) -> Vec<u8> {
        values.iter().flat_map(|v| v.to_be_bytes()).collect()
    }

    #[test]
    fn the_scan_finds_every_non_finite_value_and_zero_row_the_reference_finds() {
        if !is_x86_feature_detected!("avx512f") {
            return;
        }
        for poses in 0..=11 {
            let plain: Vec<f32> = (0..12 * poses).map(|i| 1.0 + i as f32).collect();
            assert_eq!(try_scan_be_poses(&bytes(&plain)), Some((false, false)));
            for at in 0..plain.len() {
                for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
                    let mut values = plain.clone();
                    values[at] = bad;
                    assert_eq!(
                        try_scan_be_poses(&bytes(&values)),
                        Some(reference(&values)),
                        "{poses} poses, {bad} at {at}"
                    );
                }
            }
            for row in 0..3 * poses {
                for zero in [0.0f32, -0.0] {
                    let mut values = plain.clone();
                    values[4 * row..4 * row + 3].fill(zero);
                    assert_eq!(try_scan_be_poses(&bytes(&values)), Some((false, true)));
                    // Two zeros of three, or a zero translation, are not a zero row.
                    values[4 * row + 1] = 1.0;
                    values[4 * row + 3] = 0.0;
                    assert_eq!(try_scan_be_poses(&bytes(&values)), Some((false, false)));
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
