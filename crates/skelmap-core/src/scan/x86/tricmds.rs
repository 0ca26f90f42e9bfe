//! Half-Life's triangle commands: a chain of commands, each a signed 16-bit count (a strip
//! when positive, a fan when negative, 0 ending the chain) and that many 8-byte triverts
//! (`vertindex`, `normindex`, `s`, `t`, 16 bits each). A mesh's chain is one walk of
//! dependent reads, and its commands are short (a strip of a dozen vertices is a long one):
//! the walk takes one command a step and tests its triverts' indices a register at a time
//! (AVX-512: eight triverts, AVX2: four), the last partial register by a masked load.

use core::arch::x86_64::{
    __m256i, _mm256_cmpgt_epi32, _mm256_loadu_si256, _mm256_maskload_epi32, _mm256_max_epu16,
    _mm256_or_si256, _mm256_set1_epi32, _mm256_set1_epi64x, _mm256_setr_epi32,
    _mm256_setzero_si256, _mm256_testz_si256, _mm256_xor_si256, _mm512_cmpgt_epu16_mask,
    _mm512_loadu_si512, _mm512_maskz_loadu_epi8, _mm512_set1_epi64,
};

use crate::scan::Tricmds;

/// Bytes of a trivert.
const TRIVERT: usize = 8;

/// [`crate::scan::hl1_tricmds`] where the CPU has AVX-512 (F and BW) or AVX2, else `None`.
pub(crate) fn try_tricmds(bytes: &[u8], at: usize, max: [u16; 2], most: u64) -> Option<Tricmds> {
    if is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512bw") {
        // SAFETY: the CPU was just found to support AVX-512F and BW.
        unsafe { tricmds(bytes, at, max, most) }
    } else if super::avx2() {
        // SAFETY: the CPU was just found to support AVX2.
        unsafe { tricmds_avx2(bytes, at, max, most) }
    } else {
        None
    }
}

/// A trivert's maxima as one 64-bit lane: its vertex and normal indices at most `vertex` and
/// `normal`, `s` and `t` anything.
fn trivert_max([vertex, normal]: [u16; 2]) -> i64 {
    (u64::from(vertex) | u64::from(normal) << 16 | 0xffff_ffff << 32) as i64
}

/// The walk of commands from `at` that both widths share: `triverts(bytes)` says whether
/// any index of a command's triverts is above its maximum. `None` as soon as a command
/// fails.
#[inline(always)]
fn walk(
    bytes: &[u8],
    mut at: usize,
    most: u64,
    mut triverts: impl FnMut(&[u8]) -> bool,
) -> Option<Tricmds> {
    let mut walked = Tricmds::default();
    loop {
        let count = bytes.get(at..at.checked_add(2)?)?;
        let n = usize::from(i16::from_le_bytes([count[0], count[1]]).unsigned_abs());
        if n == 0 {
            return Some(walked);
        }
        if n < 3 || triverts(bytes.get(at + 2..at + 2 + TRIVERT * n)?) {
            return None;
        }
        walked.vertices += n as u64;
        walked.commands += 1;
        if walked.vertices > most {
            return None;
        }
        at += 2 + TRIVERT * n;
    }
}

/// The walk of [`try_tricmds`] with AVX-512: eight triverts a register. The faults of a
/// command are folded into one mask that stops the walk at once; a command's few registers
/// are tested without a branch each.
///
/// # Safety
///
/// The CPU must support AVX-512F and BW.
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn tricmds(bytes: &[u8], at: usize, max: [u16; 2], most: u64) -> Option<Tricmds> {
    let max = _mm512_set1_epi64(trivert_max(max));
    walk(bytes, at, most, |triverts| {
        let mut above = 0u32;
        let mut registers = triverts.chunks_exact(64);
        for register in registers.by_ref() {
            // SAFETY: `register` is 64 bytes, and an unaligned load reads exactly those.
            let v = unsafe { _mm512_loadu_si512(register.as_ptr().cast()) };
            above |= _mm512_cmpgt_epu16_mask(v, max);
        }
        let rest = registers.remainder();
        if !rest.is_empty() {
            // SAFETY: the enabled bytes are `rest`'s (fewer than 64), and a masked load reads
            // no other memory; the others load as zero, which passes any maximum.
            let v =
                unsafe { _mm512_maskz_loadu_epi8((1u64 << rest.len()) - 1, rest.as_ptr().cast()) };
            above |= _mm512_cmpgt_epu16_mask(v, max);
        }
        above != 0
    })
}

/// The walk of [`try_tricmds`] with AVX2: four triverts a register, a lane above its maximum
/// where the unsigned maximum of the two is not the maximum itself.
///
/// # Safety
///
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
unsafe fn tricmds_avx2(bytes: &[u8], at: usize, max: [u16; 2], most: u64) -> Option<Tricmds> {
    let max = _mm256_set1_epi64x(trivert_max(max));
    let above = |v: __m256i| _mm256_xor_si256(_mm256_max_epu16(v, max), max);
    let lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    walk(bytes, at, most, |triverts| {
        let mut any = _mm256_setzero_si256();
        let mut registers = triverts.chunks_exact(32);
        for register in registers.by_ref() {
            // SAFETY: `register` is 32 bytes, and an unaligned load reads exactly those.
            let v = unsafe { _mm256_loadu_si256(register.as_ptr().cast()) };
            any = _mm256_or_si256(any, above(v));
        }
        let rest = registers.remainder();
        if !rest.is_empty() {
            // Whole triverts, so whole 32-bit words: the first `rest.len() / 4` lanes.
            let words = _mm256_set1_epi32((rest.len() / 4) as i32);
            let mask = _mm256_cmpgt_epi32(words, lanes);
            // SAFETY: the enabled words are `rest`'s (fewer than eight whole words), and a
            // masked load reads no other memory; the others load as zero, which passes any
            // maximum.
            let v = unsafe { _mm256_maskload_epi32(rest.as_ptr().cast(), mask) };
            any = _mm256_or_si256(any, above(v));
        }
        _mm256_testz_si256(any, any) == 0
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What [`try_tricmds`] answers, from its contract: the chain cut into commands up to
    /// the terminating 0 (`None` where it runs past the end), then every count and index
    /// checked, and the vertices counted.
    fn reference(bytes: &[u8], mut at: usize, max: [u16; 2], most: u64) -> Option<Tricmds> {
        let mut commands: Vec<&[u8]> = Vec::new();
        while let n @ (i16::MIN..=-1 | 1..) =
            i16::from_le_bytes(bytes.get(at..at + 2)?.try_into().ok()?)
        {
            let n = usize::from(n.unsigned_abs());
            commands.push(bytes.get(at + 2..at + 2 + TRIVERT * n)?);
            at += 2 + TRIVERT * n;
        }
        let index = |tv: &[u8], k: usize| u16::from_le_bytes([tv[2 * k], tv[2 * k + 1]]);
        let sound = commands.iter().all(|triverts| {
            triverts.len() >= 3 * TRIVERT
                && triverts
                    .chunks_exact(TRIVERT)
                    .all(|tv| index(tv, 0) <= max[0] && index(tv, 1) <= max[1])
        });
        let vertices = commands.iter().map(|t| (t.len() / TRIVERT) as u64).sum();
        (sound && vertices <= most).then_some(Tricmds {
            commands: commands.len() as u64,
            vertices,
        })
    }

    /// Five bytes of something else, then commands of `counts` (negative: a fan) and the
    /// terminating 0: trivert `k` names vertex `k % 7` and normal `k % 5`, at the largest
    /// texture coordinates.
    fn commands(counts: &[i16]) -> Vec<u8> {
        let mut bytes = vec![0xee; 5];
        let mut k = 0u16;
        for &count in counts {
            bytes.extend(count.to_le_bytes());
            for _ in 0..count.unsigned_abs() {
                for field in [k % 7, k % 5, u16::MAX, u16::MAX] {
                    bytes.extend(field.to_le_bytes());
                }
                k += 1;
            }
        }
        bytes.extend([0, 0]);
        bytes
    }

    /// Where trivert `k` of the commands of `counts` starts.
    fn trivert_at(counts: &[i16], k: usize) -> usize {
        let (mut at, mut left) = (5, k);
        for &count in counts {
            let n = usize::from(count.unsigned_abs());
            if left < n {
                return at + 2 + TRIVERT * left;
            }
            left -= n;
            at += 2 + TRIVERT * n;
        }
        unreachable!("trivert {k} is past the commands")
    }

    #[test]
    fn the_walk_passes_what_a_walk_of_every_trivert_passes() {
        let counts = [3, -3, 8, -9, 16, 17, -40, 3, 100, 4];
        let clean = commands(&counts);
        let max = [6, 4];
        let mut widths: Vec<Walk> = Vec::new();
        if is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512bw") {
            // SAFETY: the CPU was just found to support AVX-512F and BW.
            widths.push(|b, at, max, most| unsafe { tricmds(b, at, max, most) });
        }
        if super::super::avx2() {
            // SAFETY: the CPU was just found to support AVX2.
            widths.push(|b, at, max, most| unsafe { tricmds_avx2(b, at, max, most) });
        }
        if widths.is_empty() {
            assert_eq!(try_tricmds(&clean, 5, max, u64::MAX), None);
        }
        for width in widths {
            check(width, &counts, &clean, max);
        }
    }

    type Walk = fn(&[u8], usize, [u16; 2], u64) -> Option<Tricmds>;

    /// `walk` against [`reference`] on the commands of `counts` (`clean`) and its faults.
    fn check(walk: Walk, counts: &[i16], clean: &[u8], max: [u16; 2]) {
        let scan = |bytes: &[u8], most: u64| walk(bytes, 5, max, most);
        let total: u64 = counts.iter().map(|c| u64::from(c.unsigned_abs())).sum();
        let walked = Tricmds {
            commands: counts.len() as u64,
            vertices: total,
        };
        assert_eq!(reference(clean, 5, max, u64::MAX), Some(walked));
        assert_eq!(scan(clean, u64::MAX), Some(walked));
        // Up to the limit, not past it.
        assert_eq!(scan(clean, total), Some(walked));
        assert_eq!(scan(clean, total - 1), None);
        // An index above its maximum, or negative, anywhere.
        for k in 0..total as usize {
            let at = trivert_at(counts, k);
            for (field, value) in [(0, 7u16), (0, 0x8000), (2, 5), (2, 0xffff)] {
                let mut b = clean.to_vec();
                b[at + field..at + field + 2].copy_from_slice(&value.to_le_bytes());
                assert_eq!(reference(&b, 5, max, u64::MAX), None);
                assert_eq!(scan(&b, u64::MAX), None, "trivert {k}, field {field}");
            }
        }
        // A count of 1 or 2 either way in the place of any command's.
        let mut at = 5;
        for &count in counts {
            for short in [1i16, 2, -1, -2] {
                let mut b = clean.to_vec();
                b[at..at + 2].copy_from_slice(&short.to_le_bytes());
                assert_eq!(scan(&b, u64::MAX), None, "command at {at}");
            }
            at += 2 + TRIVERT * usize::from(count.unsigned_abs());
        }
        // Cut anywhere before the terminating 0 ends.
        for len in 0..clean.len() {
            assert_eq!(reference(&clean[..len], 5, max, u64::MAX), None);
            assert_eq!(scan(&clean[..len], u64::MAX), None, "{len} bytes");
        }
        // No command at all, and a start past the end.
        assert_eq!(walk(&[0, 0], 0, max, 0), Some(Tricmds::default()));
        assert_eq!(walk(clean, usize::MAX, max, u64::MAX), None);
    }
}
