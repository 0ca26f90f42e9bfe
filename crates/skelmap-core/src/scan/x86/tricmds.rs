//! Half-Life's triangle commands: a chain of commands, each a signed 16-bit count (a strip
//! when positive, a fan when negative, 0 ending the chain) and that many 8-byte triverts
//! (`vertindex`, `normindex`, `s`, `t`, 16 bits each). A mesh's chain is one walk of
//! dependent reads, and its commands are short (a strip of a dozen vertices is a long one):
//! the walk takes one command a step and tests its triverts' indices a register (eight
//! triverts) at a time, the last partial register by a masked load.

use core::arch::x86_64::{
    _mm512_cmpgt_epu16_mask, _mm512_loadu_si512, _mm512_maskz_loadu_epi8, _mm512_set1_epi64,
};

use crate::scan::Tricmds;

/// Bytes of a trivert.
const TRIVERT: usize = 8;

/// [`crate::scan::hl1_tricmds`] where the CPU has AVX-512 (F and BW), else `None`.
pub(crate) fn try_tricmds(bytes: &[u8], at: usize, max: [u16; 2], most: u64) -> Option<Tricmds> {
    if is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512bw") {
        // SAFETY: the CPU was just found to support AVX-512F and BW.
        unsafe { tricmds(bytes, at, max, most) }
    } else {
        None
    }
}

/// The walk of [`try_tricmds`].
///
/// # Safety
///
/// The CPU must support AVX-512F and BW.
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn tricmds(
    bytes: &[u8],
    mut at: usize,
    [vertex, normal]: [u16; 2],
    most: u64,
) -> Option<Tricmds> {
    // Per trivert: its vertex and normal indices at most their maxima, `s` and `t` anything.
    let max = u64::from(vertex) | u64::from(normal) << 16 | 0xffff_ffff << 32;
    let max = _mm512_set1_epi64(max as i64);
    let (mut above, mut walked) = (0u32, Tricmds::default());
    loop {
        let count = bytes.get(at..at.checked_add(2)?)?;
        let n = usize::from(i16::from_le_bytes([count[0], count[1]]).unsigned_abs());
        if n == 0 {
            break;
        }
        if n < 3 {
            return None;
        }
        let triverts = bytes.get(at + 2..at + 2 + TRIVERT * n)?;
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
        walked.vertices += n as u64;
        walked.commands += 1;
        if walked.vertices > most {
            return None;
        }
        at += 2 + TRIVERT * n;
    }
    (above == 0).then_some(walked)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`try_tricmds`] one trivert at a time, in plain Rust.
    fn reference(bytes: &[u8], mut at: usize, max: [u16; 2], most: u64) -> Option<Tricmds> {
        let mut walked = Tricmds::default();
        loop {
            let count = bytes.get(at..at + 2)?;
            let n = usize::from(i16::from_le_bytes([count[0], count[1]]).unsigned_abs());
            if n == 0 {
                return Some(walked);
            }
            if n < 3 {
                return None;
            }
            let triverts = bytes.get(at + 2..at + 2 + TRIVERT * n)?;
            for tv in triverts.chunks_exact(TRIVERT) {
                let index = |k: usize| u16::from_le_bytes([tv[2 * k], tv[2 * k + 1]]);
                if index(0) > max[0] || index(1) > max[1] {
                    return None;
                }
            }
            walked.vertices += n as u64;
            walked.commands += 1;
            if walked.vertices > most {
                return None;
            }
            at += 2 + TRIVERT * n;
        }
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
        let total: u64 = counts.iter().map(|c| u64::from(c.unsigned_abs())).sum();
        let max = [6, 4];
        let scan = |bytes: &[u8], most: u64| try_tricmds(bytes, 5, max, most);
        if !(is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512bw")) {
            assert_eq!(scan(&clean, u64::MAX), None);
            return;
        }
        let walked = Tricmds {
            commands: counts.len() as u64,
            vertices: total,
        };
        assert_eq!(reference(&clean, 5, max, u64::MAX), Some(walked));
        assert_eq!(scan(&clean, u64::MAX), Some(walked));
        // Up to the limit, not past it.
        assert_eq!(scan(&clean, total), Some(walked));
        assert_eq!(scan(&clean, total - 1), None);
        // An index above its maximum, or negative, anywhere.
        for k in 0..total as usize {
            let at = trivert_at(&counts, k);
            for (field, value) in [(0, 7u16), (0, 0x8000), (2, 5), (2, 0xffff)] {
                let mut b = clean.clone();
                b[at + field..at + field + 2].copy_from_slice(&value.to_le_bytes());
                assert_eq!(reference(&b, 5, max, u64::MAX), None);
                assert_eq!(scan(&b, u64::MAX), None, "trivert {k}, field {field}");
            }
        }
        // A count of 1 or 2 either way in the place of any command's.
        let mut at = 5;
        for &count in &counts {
            for short in [1i16, 2, -1, -2] {
                let mut b = clean.clone();
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
        assert_eq!(try_tricmds(&[0, 0], 0, max, 0), Some(Tricmds::default()));
        assert_eq!(try_tricmds(&clean, usize::MAX, max, u64::MAX), None);
    }
}
