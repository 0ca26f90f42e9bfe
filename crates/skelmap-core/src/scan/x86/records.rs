//! The MS3D validation's record scans (AVX-512F, BW and VBMI): vertices, triangles, vertex
//! extras and animation keys checked a register at a time, several records a step where they fit, with no
//! branch per record. Each scan answers one question, whether every record passes the checks
//! the scalar validation makes; the caller walks the records one by one, to find the first
//! failure and build its error or warning, only when the answer is no.
//!
//! A step loads whole records with a byte-masked load (never a byte past the last record),
//! moves the fields it tests into fixed lanes with one byte permute where they do not sit in
//! them already, and folds them into running minima or maxima; the lanes are compared with
//! the limits once, after the last step, so no step waits on the one before.

use core::arch::x86_64::{
    __m512i, _CMP_LT_OQ, _mm512_alignr_epi32, _mm512_andnot_si512, _mm512_castps_si512,
    _mm512_castsi512_ps, _mm512_cmpeq_epi32_mask, _mm512_cmpgt_epi32_mask, _mm512_cmpgt_epu8_mask,
    _mm512_loadu_si512, _mm512_madd_epi16, _mm512_maddubs_epi16, _mm512_mask_cmp_ps_mask,
    _mm512_mask_cmpeq_epi32_mask, _mm512_mask_cmpge_epu16_mask, _mm512_mask_cmpgt_epu8_mask,
    _mm512_mask_mov_epi32, _mm512_maskz_add_epi8, _mm512_maskz_loadu_epi8,
    _mm512_maskz_loadu_epi16, _mm512_maskz_permutexvar_epi8, _mm512_max_epi32, _mm512_max_epu8,
    _mm512_max_epu16, _mm512_min_epu32, _mm512_permutexvar_epi8, _mm512_set1_epi8,
    _mm512_set1_epi16, _mm512_set1_epi32, _mm512_set1_ps, _mm512_setzero_si512,
    _mm512_test_epi32_mask,
};

/// A vertex record: flags, three floats, the joint index, a reference count.
const VERTEX: usize = 15;
/// A triangle record: flags, three vertex indices, nine normal floats, three `s`, three `t`,
/// the smoothing group and the group index.
const TRIANGLE: usize = 70;
/// A key record: its time, then three values.
const KEY: usize = 16;
/// The float exponent mask, as a native load of little-endian bytes sees it.
const EXPONENT: i32 = i32::from_ne_bytes(0x7F80_0000u32.to_le_bytes());

fn supported() -> bool {
    is_x86_feature_detected!("avx512f")
        && is_x86_feature_detected!("avx512bw")
        && is_x86_feature_detected!("avx512vbmi")
}

/// The low `n` bits set (`n ≤ 64`).
const fn low_bits(n: usize) -> u64 {
    if n >= 64 { u64::MAX } else { (1 << n) - 1 }
}

/// The largest valid `joint index + 1`, as an unsigned byte: an `i8` joint index is valid
/// when it is −1 or below `joints`, that is when the byte `index + 1` (wrapping) is at most
/// `joints`; the indices −128..=−2 wrap to 129..=255, which must fail even past 128 joints.
fn joint_limit(joints: usize) -> i8 {
    joints.min(128) as u8 as i8
}

/// Whether every MS3D vertex record in `bytes` (whole records only) has finite coordinates
/// and a joint index of −1 or below `joints`; `None` when the CPU lacks the features.
pub(crate) fn try_vertices_pass(bytes: &[u8], joints: usize) -> Option<bool> {
    // SAFETY: the CPU was just found to support AVX-512F, BW and VBMI.
    supported().then(|| unsafe { vertices_pass(bytes, joints) })
}

/// Whether every MS3D triangle record in `bytes` (whole records only) has vertex indices
/// below `vertices`, finite normals and texture coordinates, a group index below `groups` and
/// a smoothing group of at most 32; `None` when the CPU lacks the features.
pub(crate) fn try_triangles_pass(bytes: &[u8], vertices: usize, groups: usize) -> Option<bool> {
    // SAFETY: the CPU was just found to support AVX-512F, BW and VBMI.
    supported().then(|| unsafe { triangles_pass(bytes, vertices, groups) })
}

/// Whether every MS3D vertex extra record of `stride` bytes in `bytes` (whole records only;
/// three `i8` joint indices, then three `u8` weights, at the start of each record) has joint
/// indices of −1 or below `joints` and weights summing to at most `scale`; `None` when the CPU
/// lacks the features or the stride is not one of the sub-versions' (6, 10, 14).
pub(crate) fn try_vertex_extras_pass(
    bytes: &[u8],
    stride: usize,
    joints: usize,
    scale: u32,
) -> Option<bool> {
    let known = matches!(stride, 6 | 10 | 14);
    // SAFETY: the CPU was just found to support AVX-512F, BW and VBMI; `stride` is one the
    // scan handles.
    (known && supported()).then(|| unsafe { vertex_extras_pass(bytes, stride, joints, scale) })
}

/// Whether every MS3D key record in `bytes` (whole records only) has finite values and a
/// time no earlier than the key before it; `None` when the CPU lacks the features.
pub(crate) fn try_keys_pass(bytes: &[u8]) -> Option<bool> {
    // SAFETY: the CPU was just found to support AVX-512F, BW and VBMI.
    supported().then(|| unsafe { keys_pass(bytes) })
}

/// Four keys (64 bytes) a step, their times in words 0, 4, 8 and 12. Shifting the step's
/// words up by four, with the previous step's last time shifted in, puts each key's
/// predecessor's time beside its own; before the first key stands −∞, which no time is
/// earlier than.
///
/// # Safety
///
/// The CPU must support AVX-512F, BW and VBMI.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
unsafe fn keys_pass(bytes: &[u8]) -> bool {
    const STEP: usize = 4;
    const TIMES: u16 = 0x1111;
    let exponent = _mm512_set1_epi32(EXPONENT);
    let mut before = _mm512_castps_si512(_mm512_set1_ps(f32::NEG_INFINITY));
    // Zero in a word once a value had every exponent bit set; all ones in a word once a time
    // was earlier than the one before it.
    let (mut finite, mut earlier) = (_mm512_set1_epi32(-1), _mm512_setzero_si512());
    let mut test = |v: __m512i, keys: usize| {
        finite = _mm512_min_epu32(finite, _mm512_andnot_si512(v, exponent));
        let previous = _mm512_alignr_epi32::<12>(v, before);
        let times = TIMES & low_bits(4 * keys) as u16;
        let k = _mm512_mask_cmp_ps_mask::<_CMP_LT_OQ>(
            times,
            _mm512_castsi512_ps(v),
            _mm512_castsi512_ps(previous),
        );
        earlier = _mm512_mask_mov_epi32(earlier, k, _mm512_set1_epi32(-1));
        before = v;
    };
    let steps = bytes.chunks_exact(STEP * KEY);
    let rest = steps.remainder();
    for step in steps {
        // SAFETY: `step` is 64 bytes, and an unaligned load reads exactly those.
        test(unsafe { _mm512_loadu_si512(step.as_ptr().cast()) }, STEP);
    }
    let keys = rest.len() / KEY;
    if keys > 0 {
        // SAFETY: the enabled lanes are the remaining whole records' bytes; the others load
        // zero, a finite value.
        let v = unsafe { _mm512_maskz_loadu_epi8(low_bits(keys * KEY), rest.as_ptr().cast()) };
        test(v, keys);
    }
    _mm512_cmpeq_epi32_mask(finite, _mm512_setzero_si512()) == 0
        && _mm512_test_epi32_mask(earlier, earlier) == 0
}

/// Four vertices (60 bytes) a step. The permute puts vertex `r`'s twelve float bytes in
/// lanes `12r..12r + 12` (words `3r..3r + 3`) and its joint index in lane `48 + r`.
///
/// # Safety
///
/// The CPU must support AVX-512F, BW and VBMI.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
unsafe fn vertices_pass(bytes: &[u8], joints: usize) -> bool {
    const STEP: usize = 4;
    const GATHER: [u8; 64] = {
        let mut t = [0u8; 64];
        let mut r = 0;
        while r < STEP {
            let mut b = 0;
            while b < 12 {
                t[12 * r + b] = (VERTEX * r + 1 + b) as u8;
                b += 1;
            }
            t[48 + r] = (VERTEX * r + 13) as u8;
            r += 1;
        }
        t
    };
    const FLOATS: u16 = 0x0FFF;
    const INDICES: u64 = 0xF << 48;
    // SAFETY: `GATHER` is 64 bytes, and an unaligned load reads exactly those.
    let gather = unsafe { _mm512_loadu_si512(GATHER.as_ptr().cast()) };
    let exponent = _mm512_set1_epi32(EXPONENT);
    let one = _mm512_set1_epi8(1);
    // The running minimum of the floats' unset exponent bits (zero once one had them all set)
    // and maximum of `joint index + 1`.
    let (mut finite, mut joint) = (_mm512_set1_epi32(-1), _mm512_setzero_si512());
    let mut test = |v: __m512i, records: usize| {
        let p = _mm512_permutexvar_epi8(gather, v);
        finite = _mm512_min_epu32(finite, _mm512_andnot_si512(p, exponent));
        let indices = INDICES & (low_bits(records) << 48);
        joint = _mm512_max_epu8(joint, _mm512_maskz_add_epi8(indices, p, one));
    };
    let steps = bytes.chunks_exact(STEP * VERTEX);
    let rest = steps.remainder();
    for step in steps {
        // SAFETY: the enabled lanes are the step's 60 bytes.
        test(
            unsafe { _mm512_maskz_loadu_epi8(low_bits(STEP * VERTEX), step.as_ptr().cast()) },
            STEP,
        );
    }
    let records = rest.len() / VERTEX;
    if records > 0 {
        // SAFETY: the enabled lanes are the remaining whole records' bytes; the others load
        // zero, a finite value.
        let v =
            unsafe { _mm512_maskz_loadu_epi8(low_bits(records * VERTEX), rest.as_ptr().cast()) };
        test(v, records);
    }
    let limit = _mm512_set1_epi8(joint_limit(joints));
    _mm512_mask_cmpeq_epi32_mask(FLOATS, finite, _mm512_setzero_si512()) == 0
        && _mm512_cmpgt_epu8_mask(joint, limit) == 0
}

/// One triangle a step, in two masked loads: its three vertex indices (bytes 2..8) as words,
/// and bytes 8..70, where words 0..15 are the fifteen floats and bytes 60 and 61 the smoothing
/// group and the group index.
///
/// # Safety
///
/// The CPU must support AVX-512F, BW and VBMI.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
unsafe fn triangles_pass(bytes: &[u8], vertices: usize, groups: usize) -> bool {
    let Some(group_max) = groups.checked_sub(1) else {
        // Every triangle names a group the model lacks.
        return bytes.len() < TRIANGLE;
    };
    let exponent = _mm512_set1_epi32(EXPONENT);
    // The running minimum of the floats' unset exponent bits (zero once one had them all set),
    // maximum of the bytes (the smoothing group and group index among them) and maximum of
    // the index words.
    let mut finite = _mm512_set1_epi32(-1);
    let (mut fields, mut index) = (_mm512_setzero_si512(), _mm512_setzero_si512());
    for t in bytes.chunks_exact(TRIANGLE) {
        let t = t.as_ptr();
        // SAFETY: the enabled lanes are bytes 2..8 and 8..70 of the 70-byte record `t`.
        let (indices, rest) = unsafe {
            (
                _mm512_maskz_loadu_epi16(0b111, t.wrapping_add(2).cast()),
                _mm512_maskz_loadu_epi8(low_bits(62), t.wrapping_add(8).cast()),
            )
        };
        finite = _mm512_min_epu32(finite, _mm512_andnot_si512(rest, exponent));
        fields = _mm512_max_epu8(fields, rest);
        index = _mm512_max_epu16(index, indices);
    }
    // Byte 60 (smoothing group) fails above 32, byte 61 (group index) above `groups − 1`.
    let mut limits = [u8::MAX; 64];
    limits[60] = 32;
    limits[61] = group_max.min(255) as u8;
    // SAFETY: `limits` is 64 bytes, and an unaligned load reads exactly those.
    let limits = unsafe { _mm512_loadu_si512(limits.as_ptr().cast()) };
    // Any `u16` index is below a vertex count past `u16::MAX`.
    let outside = u16::try_from(vertices).is_ok_and(|n| {
        _mm512_mask_cmpge_epu16_mask(0b111, index, _mm512_set1_epi16(n as i16)) != 0
    });
    _mm512_mask_cmpeq_epi32_mask(0x7FFF, finite, _mm512_setzero_si512()) == 0
        && _mm512_mask_cmpgt_epu8_mask(0b11 << 60, fields, limits) == 0
        && !outside
}

/// `64 / stride` records a step (10, 6 or 4). The joint indices are tested where they lie;
/// the permute puts record `r`'s three weights in bytes `4r..4r + 3` of a zeroed register,
/// where two multiply-adds by one sum them into word `r`.
///
/// # Safety
///
/// The CPU must support AVX-512F, BW and VBMI; `stride` is 6, 10 or 14.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
unsafe fn vertex_extras_pass(bytes: &[u8], stride: usize, joints: usize, scale: u32) -> bool {
    let per_step = 64 / stride;
    let (mut gather, mut weight_bytes, mut index_bytes) = ([0u8; 64], 0u64, 0u64);
    for r in 0..per_step {
        for k in 0..3 {
            gather[4 * r + k] = (stride * r + 3 + k) as u8;
            weight_bytes |= 1 << (4 * r + k);
            index_bytes |= 1 << (stride * r + k);
        }
    }
    // SAFETY: `gather` is 64 bytes, and an unaligned load reads exactly those.
    let gather = unsafe { _mm512_loadu_si512(gather.as_ptr().cast()) };
    let (one, ones) = (_mm512_set1_epi8(1), _mm512_set1_epi16(1));
    // The running maxima of `joint index + 1` and of the weight sums.
    let (mut joint, mut sum) = (_mm512_setzero_si512(), _mm512_setzero_si512());
    let mut test = |v: __m512i, records: usize| {
        let indices = index_bytes & low_bits(stride * records);
        joint = _mm512_max_epu8(joint, _mm512_maskz_add_epi8(indices, v, one));
        let w = _mm512_maskz_permutexvar_epi8(weight_bytes, gather, v);
        sum = _mm512_max_epi32(sum, _mm512_madd_epi16(_mm512_maddubs_epi16(w, one), ones));
    };
    let steps = bytes.chunks_exact(per_step * stride);
    let rest = steps.remainder();
    for step in steps {
        // SAFETY: the enabled lanes are the step's `per_step · stride` bytes.
        test(
            unsafe { _mm512_maskz_loadu_epi8(low_bits(step.len()), step.as_ptr().cast()) },
            per_step,
        );
    }
    let records = rest.len() / stride;
    if records > 0 {
        // SAFETY: the enabled lanes are the remaining whole records' bytes; the others load
        // zero, which sums to zero.
        let v =
            unsafe { _mm512_maskz_loadu_epi8(low_bits(records * stride), rest.as_ptr().cast()) };
        test(v, records);
    }
    let limit = _mm512_set1_epi8(joint_limit(joints));
    _mm512_cmpgt_epu8_mask(joint, limit) == 0
        && _mm512_cmpgt_epi32_mask(sum, _mm512_set1_epi32(scale as i32)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn joint_ok(id: i8, joints: usize) -> bool {
        id == -1 || (id >= 0 && (id as usize) < joints)
    }

    /// What each scan must answer, record by record in plain Rust.
    fn vertices_reference(bytes: &[u8], joints: usize) -> bool {
        bytes.chunks_exact(VERTEX).all(|v| {
            let finite = (0..3).all(|c| {
                let at = 1 + 4 * c;
                f32::from_le_bytes([v[at], v[at + 1], v[at + 2], v[at + 3]]).is_finite()
            });
            finite && joint_ok(v[13] as i8, joints)
        })
    }

    fn triangles_reference(bytes: &[u8], vertices: usize, groups: usize) -> bool {
        bytes.chunks_exact(TRIANGLE).all(|t| {
            let indices = (0..3)
                .all(|k| usize::from(u16::from_le_bytes([t[2 + 2 * k], t[3 + 2 * k]])) < vertices);
            let finite = (0..15).all(|c| {
                let at = 8 + 4 * c;
                f32::from_le_bytes([t[at], t[at + 1], t[at + 2], t[at + 3]]).is_finite()
            });
            indices && finite && t[68] <= 32 && usize::from(t[69]) < groups
        })
    }

    fn extras_reference(bytes: &[u8], stride: usize, joints: usize, scale: u32) -> bool {
        bytes.chunks_exact(stride).all(|e| {
            let sum: u32 = e[3..6].iter().map(|&w| u32::from(w)).sum();
            (0..3).all(|k| joint_ok(e[k] as i8, joints)) && sum <= scale
        })
    }

    /// Records of `stride` bytes, every field valid, the others filled with a pattern that
    /// includes non-finite float bytes (0xFF) where no float is tested.
    fn valid_records(count: usize, stride: usize, fill: impl Fn(usize, &mut [u8])) -> Vec<u8> {
        let mut bytes = vec![0xFFu8; count * stride];
        for (r, record) in bytes.chunks_exact_mut(stride).enumerate() {
            fill(r, record);
        }
        bytes
    }

    fn put_f32(record: &mut [u8], at: usize, v: f32) {
        record[at..at + 4].copy_from_slice(&v.to_le_bytes());
    }

    fn keys_reference(bytes: &[u8]) -> bool {
        let values: Vec<f32> = bytes[..bytes.len() / KEY * KEY]
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        let times: Vec<f32> = values.iter().step_by(4).copied().collect();
        values.iter().all(|v| v.is_finite()) && times.windows(2).all(|w| w[1] >= w[0])
    }

    #[test]
    fn the_key_scan_finds_every_non_finite_value_and_every_earlier_time() {
        if !supported() {
            return;
        }
        let fill = |r: usize, k: &mut [u8]| {
            put_f32(k, 0, r as f32 * 0.5 - 3.0);
            for c in 1..4 {
                put_f32(k, 4 * c, c as f32 - r as f32);
            }
        };
        for count in 0..=10 {
            let clean = valid_records(count, KEY, fill);
            assert_eq!(try_keys_pass(&clean), Some(true), "{count} keys");
            let mut partial = clean.clone();
            partial.extend_from_slice(&[0xFF; KEY - 1]);
            assert_eq!(try_keys_pass(&partial), Some(true));
            for r in 0..count {
                for c in 0..4 {
                    for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
                        let mut b = clean.clone();
                        put_f32(&mut b[r * KEY..], 4 * c, bad);
                        assert_eq!(try_keys_pass(&b), Some(false), "{count}: {r}.{c}");
                    }
                }
                // The same time as the key before passes; an earlier one fails, also when it
                // is the last key before a step boundary's successor.
                for time in [
                    -100.0,
                    r as f32 * 0.5 - 3.5,
                    r as f32 * 0.5 - 3.0,
                    r as f32 * 0.5 - 2.5,
                    100.0,
                ] {
                    let mut b = clean.clone();
                    put_f32(&mut b[r * KEY..], 0, time);
                    assert_eq!(
                        try_keys_pass(&b),
                        Some(keys_reference(&b)),
                        "{count}: {r} at {time}"
                    );
                }
            }
        }
    }

    #[test]
    fn the_joint_limit_agrees_with_the_rule_for_every_index() {
        for joints in [0, 1, 2, 5, 127, 128, 129, 255, 256, 1000] {
            let limit = joint_limit(joints) as u8;
            for id in i8::MIN..=i8::MAX {
                assert_eq!(
                    (id as u8).wrapping_add(1) <= limit,
                    joint_ok(id, joints),
                    "{id} of {joints}"
                );
            }
        }
    }

    #[test]
    fn the_vertex_scan_finds_every_failing_field_at_every_record() {
        if !supported() {
            return;
        }
        let fill = |r: usize, v: &mut [u8]| {
            for c in 0..3 {
                put_f32(v, 1 + 4 * c, r as f32 - 1.5 * c as f32);
            }
            v[13] = (r % 4) as u8;
        };
        for count in 0..=9 {
            let clean = valid_records(count, VERTEX, fill);
            assert_eq!(try_vertices_pass(&clean, 4), Some(true), "{count} vertices");
            // A trailing partial record is not looked at.
            let mut partial = clean.clone();
            partial.extend_from_slice(&[0xFF; VERTEX - 1]);
            assert_eq!(try_vertices_pass(&partial, 4), Some(true));
            for r in 0..count {
                for c in 0..3 {
                    for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
                        let mut b = clean.clone();
                        put_f32(&mut b[r * VERTEX..], 1 + 4 * c, bad);
                        assert_eq!(try_vertices_pass(&b, 4), Some(false), "{count}: {r}.{c}");
                    }
                }
                for id in [i8::MIN, -2, -1, 0, 3, 4, 5, 127] {
                    let mut b = clean.clone();
                    b[r * VERTEX + 13] = id as u8;
                    for joints in [0, 4, 128, 300] {
                        let want = vertices_reference(&b, joints);
                        assert_eq!(
                            try_vertices_pass(&b, joints),
                            Some(want),
                            "{count}: {r} id {id} of {joints}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn the_triangle_scan_finds_every_failing_field_at_every_record() {
        if !supported() {
            return;
        }
        let fill = |r: usize, t: &mut [u8]| {
            for k in 0..3 {
                t[2 + 2 * k..4 + 2 * k].copy_from_slice(&((r + k) as u16 % 10).to_le_bytes());
            }
            for c in 0..15 {
                put_f32(t, 8 + 4 * c, c as f32 * 0.25 - r as f32);
            }
            t[68] = 32;
            t[69] = (r % 3) as u8;
        };
        for count in 0..=3 {
            let clean = valid_records(count, TRIANGLE, fill);
            assert_eq!(
                try_triangles_pass(&clean, 10, 3),
                Some(true),
                "{count} triangles"
            );
            assert_eq!(try_triangles_pass(&clean, 70_000, 3), Some(true));
            assert_eq!(try_triangles_pass(&clean, 10, 0), Some(count == 0));
            let mut partial = clean.clone();
            partial.extend_from_slice(&[0xFF; TRIANGLE - 1]);
            assert_eq!(try_triangles_pass(&partial, 10, 3), Some(true));
            for r in 0..count {
                let at = r * TRIANGLE;
                for c in 0..15 {
                    for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
                        let mut b = clean.clone();
                        put_f32(&mut b[at..], 8 + 4 * c, bad);
                        assert_eq!(try_triangles_pass(&b, 10, 3), Some(false), "{r}.{c}");
                    }
                }
                for k in 0..3 {
                    for index in [9u16, 10, 11, u16::MAX] {
                        let mut b = clean.clone();
                        b[at + 2 + 2 * k..at + 4 + 2 * k].copy_from_slice(&index.to_le_bytes());
                        for vertices in [10, 65_535, 65_536] {
                            let want = triangles_reference(&b, vertices, 3);
                            assert_eq!(
                                try_triangles_pass(&b, vertices, 3),
                                Some(want),
                                "{r}: {index} of {vertices}"
                            );
                        }
                    }
                }
                for (field, values) in [(68, [32u8, 33, 255]), (69, [2, 3, 255])] {
                    for value in values {
                        let mut b = clean.clone();
                        b[at + field] = value;
                        for groups in [3, 255, 256, 300] {
                            let want = triangles_reference(&b, 10, groups);
                            assert_eq!(
                                try_triangles_pass(&b, 10, groups),
                                Some(want),
                                "{r}: byte {field} = {value} of {groups}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn the_vertex_extra_scan_finds_every_failing_field_at_every_record() {
        if !supported() {
            return;
        }
        for stride in [6, 10, 14] {
            let fill = |r: usize, e: &mut [u8]| {
                e[..3].copy_from_slice(&[(r % 5) as u8, 0xFF, 1]);
                e[3..6].copy_from_slice(&[33, 33, 34]);
            };
            for count in 0..=23 {
                let clean = valid_records(count, stride, fill);
                assert_eq!(
                    try_vertex_extras_pass(&clean, stride, 5, 100),
                    Some(true),
                    "{stride}: {count}"
                );
                let mut partial = clean.clone();
                partial.extend_from_slice(&vec![0xFF; stride - 1]);
                assert_eq!(try_vertex_extras_pass(&partial, stride, 5, 100), Some(true));
                for r in 0..count {
                    let at = r * stride;
                    for k in 0..3 {
                        for id in [i8::MIN, -2, -1, 4, 5, 127] {
                            let mut b = clean.clone();
                            b[at + k] = id as u8;
                            for joints in [5, 128, 200] {
                                let want = extras_reference(&b, stride, joints, 100);
                                assert_eq!(
                                    try_vertex_extras_pass(&b, stride, joints, 100),
                                    Some(want),
                                    "{stride}: {r}.{k} = {id} of {joints}"
                                );
                            }
                        }
                        for w in [0u8, 34, 35, 255] {
                            let mut b = clean.clone();
                            b[at + 3 + k] = w;
                            for scale in [100, 255] {
                                let want = extras_reference(&b, stride, 5, scale);
                                assert_eq!(
                                    try_vertex_extras_pass(&b, stride, 5, scale),
                                    Some(want),
                                    "{stride}: {r} weight {k} = {w} of {scale}"
                                );
                            }
                        }
                    }
                    // All three weights at 255: the largest sum, 765.
                    let mut b = clean.clone();
                    b[at + 3..at + 6].copy_from_slice(&[255; 3]);
                    assert_eq!(try_vertex_extras_pass(&b, stride, 5, 255), Some(false));
                }
            }
        }
        assert_eq!(try_vertex_extras_pass(&[0; 16], 8, 5, 100), None);
    }
}
