//! The read roofline: how fast this machine reads a buffer, to put a kernel's input rate
//! against. A kernel cannot read its input faster than a pass that does nothing but read it,
//! so the pass must use the widest loads the CPU has, or the fractions flatter the kernel.

use crate::simd::SimdLevel;

/// The wrapping sum of `bytes` as little-endian `u64` words (a tail shorter than a word
/// added byte by byte), read with the loads of `level` (a level the CPU lacks falls back to
/// the best it has). Every level gives the same sum: it is the read pass of `skelmap bench`
/// and the benches, and the sum keeps the compiler from skipping a load.
///
/// ```
/// use skelmap_core::scan::read_pass;
/// use skelmap_core::skin::SimdLevel;
/// let bytes: Vec<u8> = (0..1000u32).map(|i| i as u8).collect();
/// let sums: Vec<u64> = SimdLevel::ALL.iter().map(|&l| read_pass(&bytes, l)).collect();
/// assert!(sums.windows(2).all(|w| w[0] == w[1]));
/// ```
#[must_use]
pub fn read_pass(bytes: &[u8], level: SimdLevel) -> u64 {
    let level = if level.is_supported() {
        level
    } else {
        SimdLevel::detect()
    };
    #[cfg(target_arch = "x86_64")]
    {
        super::x86::read::sum(bytes, level)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = level;
        sum_portable(bytes)
    }
}

/// [`read_pass`] in plain Rust: 8 bytes at a time.
pub(crate) fn sum_portable(bytes: &[u8]) -> u64 {
    let words = bytes.chunks_exact(8);
    let tail = words.remainder();
    let sum = words.fold(0u64, |s, w| {
        s.wrapping_add(u64::from_le_bytes(w.try_into().unwrap_or_default()))
    });
    tail.iter().fold(sum, |s, b| s.wrapping_add(u64::from(*b)))
}

#[cfg(test)]
mod tests {
    use super::{SimdLevel, read_pass, sum_portable};

    #[test]
    fn every_level_reads_every_byte_to_the_same_sum() {
        let bytes: Vec<u8> = (0..1200u32).map(|i| (i * 7 + 3) as u8).collect();
        for len in (0..600).chain([1023, 1024, 1025, 1200]) {
            let slice = &bytes[..len];
            let want = sum_portable(slice);
            for level in SimdLevel::ALL {
                assert_eq!(read_pass(slice, level), want, "{len} bytes at {level}");
            }
        }
        // Every byte counts: changing the last one changes the sum.
        let mut changed = bytes.clone();
        changed[1199] ^= 1;
        assert_ne!(
            read_pass(&changed, SimdLevel::detect()),
            read_pass(&bytes, SimdLevel::detect())
        );
    }
}
