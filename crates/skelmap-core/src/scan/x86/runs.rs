//! Chains of run-length records (Half-Life's animation values), walked many at once.
//!
//! A chain is a walk: each run's header says where the next run starts, so one chain is a
//! sequence of dependent loads. The chains of a sequence are independent of one another, and
//! the scans walk them side by side (AVX-512: sixteen a register, AVX2: eight), a gather a
//! register and several registers a round, so that their loads overlap instead of waiting
//! on each other.

use core::arch::x86_64::{
    _mm256_add_epi32, _mm256_and_si256, _mm256_blendv_epi8, _mm256_cmpeq_epi32, _mm256_cmpgt_epi32,
    _mm256_loadu_si256, _mm256_mask_i32gather_epi32, _mm256_or_si256, _mm256_set1_epi32,
    _mm256_setzero_si256, _mm256_slli_epi32, _mm256_srli_epi32, _mm256_testz_si256,
    _mm512_add_epi32, _mm512_and_si512, _mm512_mask_add_epi32, _mm512_mask_cmple_epu32_mask,
    _mm512_mask_cmplt_epu32_mask, _mm512_mask_i32gather_epi32, _mm512_maskz_loadu_epi32,
    _mm512_set1_epi32, _mm512_setzero_si512, _mm512_slli_epi32, _mm512_srli_epi32,
    _mm512_sub_epi32,
};

/// Whether every chain of Half-Life animation-value runs that starts at one of `starts` (byte
/// offsets into `bytes`) passes until its runs cover `frames`: each run a whole two-byte
/// header `valid, total` with `1 ≤ valid ≤ total`, followed by its `valid` 16-bit values, all
/// within `bytes`. `None` where the CPU lacks AVX-512F and AVX2, or where `bytes` is too
/// long for the gathers' signed 32-bit offsets (and the sums past them).
pub(crate) fn try_anim_runs(bytes: &[u8], starts: &[u32], frames: u32) -> Option<bool> {
    if bytes.len() > MAX_LEN || frames > MAX_LEN as u32 {
        return None;
    }
    if is_x86_feature_detected!("avx512f") {
        // SAFETY: the CPU was just found to support AVX-512F; `bytes` is short enough.
        Some(unsafe { anim_runs(bytes, starts, frames) })
    } else if super::avx2() {
        // SAFETY: the CPU was just found to support AVX2; `bytes` is short enough.
        Some(unsafe { anim_runs_avx2(bytes, starts, frames) })
    } else {
        None
    }
}

/// The longest table, and the most frames, the scans take: an offset, a run's end (at most
/// 512 bytes past it) and a count of frames (at most 255 past `frames`) stay below 2³¹, so
/// signed and unsigned comparisons agree.
const MAX_LEN: usize = 1 << 30;

/// Sixteen chains a register and four registers side by side, each lane stepping one run a
/// round until its runs cover `frames`: a round's four gathers are independent, so their
/// loads overlap. A lane reads four bytes at its run (the header and the first value, which
/// a valid run has) and only where those lie within `bytes`; any lane that fails ends the
/// scan.
///
/// # Safety
///
/// The CPU must support AVX-512F, and `bytes.len()` must be at most [`MAX_LEN`].
#[target_feature(enable = "avx512f")]
unsafe fn anim_runs(bytes: &[u8], starts: &[u32], frames: u32) -> bool {
    const REGISTERS: usize = 8;
    if frames == 0 {
        return true;
    }
    let Some(last) = bytes.len().checked_sub(4) else {
        // Not even one run fits.
        return starts.is_empty();
    };
    // Both fit: `bytes.len()` and `frames` are at most `MAX_LEN`.
    let last = _mm512_set1_epi32(last as i32);
    let len = _mm512_set1_epi32(bytes.len() as i32);
    let frames = _mm512_set1_epi32(frames as i32);
    let (one, byte) = (_mm512_set1_epi32(1), _mm512_set1_epi32(0xFF));
    for group in starts.chunks(16 * REGISTERS) {
        let mut at = [_mm512_setzero_si512(); REGISTERS];
        let mut covered = [_mm512_setzero_si512(); REGISTERS];
        let mut active = [0u16; REGISTERS];
        for (r, chunk) in group.chunks(16).enumerate() {
            active[r] = ((1u32 << chunk.len()) - 1) as u16;
            // SAFETY: the enabled lanes are `chunk`'s words, within it.
            at[r] = unsafe { _mm512_maskz_loadu_epi32(active[r], chunk.as_ptr().cast()) };
        }
        // Each round takes every active lane's `at` four bytes further and its `covered` at
        // least one frame on, so a lane is active for at most `frames` rounds.
        while active != [0; REGISTERS] {
            for r in 0..REGISTERS {
                if active[r] == 0 {
                    continue;
                }
                if _mm512_mask_cmple_epu32_mask(active[r], at[r], last) != active[r] {
                    return false;
                }
                // SAFETY: every gathered lane reads `at..at + 4`, and `at ≤ bytes.len() − 4`
                // was just checked for each; `at` is below 2³¹, a nonnegative offset.
                let run = unsafe {
                    _mm512_mask_i32gather_epi32::<1>(
                        _mm512_setzero_si512(),
                        active[r],
                        at[r],
                        bytes.as_ptr().cast(),
                    )
                };
                let valid = _mm512_and_si512(run, byte);
                let total = _mm512_and_si512(_mm512_srli_epi32::<8>(run), byte);
                // `valid − 1` below `total`, unsigned: 0 wraps to the largest word.
                let counted =
                    _mm512_mask_cmplt_epu32_mask(active[r], _mm512_sub_epi32(valid, one), total);
                // Past the header and the values: `at + 2 · (valid + 1)`, below 2³¹ + 2¹⁰.
                let end =
                    _mm512_add_epi32(at[r], _mm512_slli_epi32::<1>(_mm512_add_epi32(valid, one)));
                if _mm512_mask_cmple_epu32_mask(counted, end, len) != active[r] {
                    return false;
                }
                at[r] = end;
                covered[r] = _mm512_mask_add_epi32(covered[r], active[r], covered[r], total);
                active[r] = _mm512_mask_cmplt_epu32_mask(active[r], covered[r], frames);
            }
        }
    }
    true
}

/// [`anim_runs`] on AVX2: eight chains a register, eight registers side by side, the lanes'
/// states kept as all-ones or zero words in place of mask registers.
///
/// # Safety
///
/// The CPU must support AVX2, and `bytes.len()` must be at most [`MAX_LEN`].
#[target_feature(enable = "avx2")]
unsafe fn anim_runs_avx2(bytes: &[u8], starts: &[u32], frames: u32) -> bool {
    const REGISTERS: usize = 8;
    if frames == 0 {
        return true;
    }
    let Some(last) = bytes.len().checked_sub(4) else {
        return starts.is_empty();
    };
    // Both fit, and every sum below stays under 2³¹: see `MAX_LEN`.
    let last = _mm256_set1_epi32(last as i32);
    let len = _mm256_set1_epi32(bytes.len() as i32);
    let frames = _mm256_set1_epi32(frames as i32);
    let (zero, one, byte) = (
        _mm256_setzero_si256(),
        _mm256_set1_epi32(1),
        _mm256_set1_epi32(0xFF),
    );
    for group in starts.chunks(8 * REGISTERS) {
        let mut at = [zero; REGISTERS];
        let mut covered = [zero; REGISTERS];
        let mut active = [zero; REGISTERS];
        for (r, chunk) in group.chunks(8).enumerate() {
            let mut lanes = [0u32; 8];
            lanes[..chunk.len()].copy_from_slice(chunk);
            let mut on = [0i32; 8];
            on[..chunk.len()].fill(-1);
            // SAFETY: both arrays are eight words, what the unaligned loads read.
            unsafe {
                at[r] = _mm256_loadu_si256(lanes.as_ptr().cast());
                active[r] = _mm256_loadu_si256(on.as_ptr().cast());
            }
        }
        // As in `anim_runs`: a lane is active for at most `frames` rounds.
        while active.iter().any(|&a| _mm256_testz_si256(a, a) == 0) {
            for r in 0..REGISTERS {
                if _mm256_testz_si256(active[r], active[r]) != 0 {
                    continue;
                }
                if _mm256_testz_si256(_mm256_cmpgt_epi32(at[r], last), active[r]) == 0 {
                    return false;
                }
                // SAFETY: every gathered lane (the active ones) reads `at..at + 4`, and
                // `at ≤ bytes.len() − 4` was just checked for each; `at` is nonnegative.
                let run = unsafe {
                    _mm256_mask_i32gather_epi32::<1>(zero, bytes.as_ptr().cast(), at[r], active[r])
                };
                let valid = _mm256_and_si256(run, byte);
                let total = _mm256_and_si256(_mm256_srli_epi32::<8>(run), byte);
                let end =
                    _mm256_add_epi32(at[r], _mm256_slli_epi32::<1>(_mm256_add_epi32(valid, one)));
                let bad = _mm256_or_si256(
                    _mm256_or_si256(
                        _mm256_cmpeq_epi32(valid, zero),
                        _mm256_cmpgt_epi32(valid, total),
                    ),
                    _mm256_cmpgt_epi32(end, len),
                );
                if _mm256_testz_si256(bad, active[r]) == 0 {
                    return false;
                }
                at[r] = _mm256_blendv_epi8(at[r], end, active[r]);
                covered[r] = _mm256_add_epi32(covered[r], _mm256_and_si256(total, active[r]));
                active[r] = _mm256_and_si256(active[r], _mm256_cmpgt_epi32(frames, covered[r]));
            }
        }
    }
    true
}

/// The chains of `starts`, one at a time, as the scan must judge them.
#[cfg(test)]
fn anim_runs_scalar(bytes: &[u8], starts: &[u32], frames: u32) -> bool {
    starts.iter().all(|&start| {
        let (mut at, mut covered) = (start as usize, 0u32);
        while covered < frames {
            let Some(&[valid, total]) = bytes.get(at..at + 2) else {
                return false;
            };
            let end = at + 2 * (usize::from(valid) + 1);
            if valid == 0 || valid > total || end > bytes.len() {
                return false;
            }
            covered += u32::from(total);
            at = end;
        }
        true
    })
}

#[cfg(test)]
mod tests {
    use super::{anim_runs, anim_runs_avx2, anim_runs_scalar};

    /// Each path the CPU has, with the answer of the first.
    fn try_anim_runs(bytes: &[u8], starts: &[u32], frames: u32) -> Option<bool> {
        let answer = super::try_anim_runs(bytes, starts, frames);
        if is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU has AVX-512F, and the tests' tables are short.
            assert_eq!(answer, Some(unsafe { anim_runs(bytes, starts, frames) }));
        }
        if is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2, and the tests' tables are short.
            let avx2 = unsafe { anim_runs_avx2(bytes, starts, frames) };
            assert_eq!(answer, Some(avx2));
        }
        answer
    }

    /// A chain of runs of `(valid, total)`, each followed by its values.
    fn chain(runs: &[(u8, u8)]) -> Vec<u8> {
        runs.iter()
            .flat_map(|&(valid, total)| {
                [valid, total]
                    .into_iter()
                    .chain((0..2 * usize::from(valid)).map(|k| k as u8))
            })
            .collect()
    }

    #[test]
    fn the_scan_judges_every_chain_as_the_walk_does() {
        let Some(true) = try_anim_runs(&[0; 8], &[0; 0], 1) else {
            return; // Neither AVX-512F nor AVX2 here: nothing to compare.
        };
        // Chains of one run, of several, of a run that covers more than the frames, and
        // faults: valid 0, valid above total, values past the end, a header past the end.
        let good = [
            chain(&[(3, 3)]),
            chain(&[(1, 2), (4, 4), (2, 9)]),
            chain(&[(1, 200)]),
            chain(&[(5, 5), (1, 1), (1, 1), (1, 1), (1, 1), (1, 1)]),
        ];
        let bad = [
            chain(&[(0, 3)]),
            chain(&[(1, 2), (5, 4)]),
            chain(&[(2, 2), (1, 0)]),
        ];
        let mut bytes = Vec::new();
        let mut starts = Vec::new();
        let mut faults = Vec::new();
        for k in 0..40 {
            let (runs, fault) = if k % 13 == 7 {
                (&bad[k % bad.len()], true)
            } else {
                (&good[k % good.len()], false)
            };
            starts.push(bytes.len() as u32);
            faults.push(fault);
            bytes.extend_from_slice(runs);
        }
        // The last chain's values cut short, and a chain starting at the last byte.
        let cut = bytes.len() as u32;
        bytes.extend_from_slice(&chain(&[(4, 10)])[..7]);
        for frames in [0, 1, 3, 9, 10, 11, 30] {
            for window in [1, 5, 16, 17, 40] {
                for set in starts.chunks(window) {
                    let expected = anim_runs_scalar(&bytes, set, frames);
                    assert_eq!(try_anim_runs(&bytes, set, frames), Some(expected));
                }
            }
            for tail in [
                cut,
                bytes.len() as u32 - 1,
                bytes.len() as u32,
                u32::MAX / 2,
            ] {
                let set = [starts[0], tail];
                let expected = anim_runs_scalar(&bytes, &set, frames);
                assert_eq!(
                    try_anim_runs(&bytes, &set, frames),
                    Some(expected),
                    "{tail}"
                );
            }
        }
        // A chain that ends where the bytes do passes; one a byte shorter fails.
        let whole = chain(&[(1, 1), (3, 4)]);
        for frames in [1, 2, 5] {
            assert_eq!(try_anim_runs(&whole, &[0], frames), Some(true));
            let short = &whole[..whole.len() - 1];
            assert_eq!(try_anim_runs(short, &[0], frames), Some(frames == 1));
        }
        assert_eq!(try_anim_runs(&whole, &[0], 6), Some(false));
        // Both answers occur: some sets pass, the faulty chains fail.
        assert!(anim_runs_scalar(&bytes, &starts[..7], 9));
        assert!(faults[7] && !anim_runs_scalar(&bytes, &starts[7..8], 9));
    }
}
