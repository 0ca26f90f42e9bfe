//! The read pass of the roofline: every byte of a buffer loaded once with the widest vector
//! loads the CPU has, folded into a checksum so that no load can be skipped.

use crate::scan::sum_portable;
use crate::simd::SimdLevel;
use core::arch::x86_64::{
    __m256i, __m512i, _mm256_add_epi64, _mm256_loadu_si256, _mm256_setzero_si256,
    _mm256_storeu_si256, _mm512_add_epi64, _mm512_loadu_si512, _mm512_reduce_add_epi64,
    _mm512_setzero_si512,
};

/// The wrapping sum of `bytes` as little-endian `u64` words (a tail shorter than a word added
/// byte by byte), with 64-byte AVX-512 loads, four accumulators deep.
///
/// # Safety
///
/// The CPU has AVX-512F.
#[target_feature(enable = "avx512f")]
pub(crate) unsafe fn sum_avx512(bytes: &[u8]) -> u64 {
    let blocks = bytes.chunks_exact(256);
    let tail = blocks.remainder();
    let mut acc: [__m512i; 4] = [_mm512_setzero_si512(); 4];
    for block in blocks {
        for (k, a) in acc.iter_mut().enumerate() {
            // SAFETY: `block` holds 256 bytes, so bytes 64k..64k + 64 are in it; the load is
            // unaligned.
            let v = unsafe { _mm512_loadu_si512(block.as_ptr().add(64 * k).cast()) };
            *a = _mm512_add_epi64(*a, v);
        }
    }
    let total = acc.iter().fold(0u64, |s, &a| {
        s.wrapping_add(_mm512_reduce_add_epi64(a) as u64)
    });
    total.wrapping_add(sum_portable(tail))
}

/// As [`sum_avx512`] with 32-byte AVX2 loads.
///
/// # Safety
///
/// The CPU has AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn sum_avx2(bytes: &[u8]) -> u64 {
    let blocks = bytes.chunks_exact(128);
    let tail = blocks.remainder();
    let mut acc: [__m256i; 4] = [_mm256_setzero_si256(); 4];
    for block in blocks {
        for (k, a) in acc.iter_mut().enumerate() {
            // SAFETY: `block` holds 128 bytes, so bytes 32k..32k + 32 are in it; the load is
            // unaligned.
            let v = unsafe { _mm256_loadu_si256(block.as_ptr().add(32 * k).cast()) };
            *a = _mm256_add_epi64(*a, v);
        }
    }
    let mut total = 0u64;
    for a in acc {
        let mut lanes = [0u64; 4];
        // SAFETY: `lanes` is 32 writable bytes; the store is unaligned.
        unsafe { _mm256_storeu_si256(lanes.as_mut_ptr().cast(), a) };
        total = lanes.iter().fold(total, |s, &l| s.wrapping_add(l));
    }
    total.wrapping_add(sum_portable(tail))
}

/// The sum with the loads of `level`, when the CPU has them; in plain Rust otherwise.
pub(crate) fn sum(bytes: &[u8], level: SimdLevel) -> u64 {
    match level {
        SimdLevel::Avx512 if level.is_supported() => {
            // SAFETY: the CPU has AVX-512F, just checked.
            unsafe { sum_avx512(bytes) }
        }
        SimdLevel::Avx2 if level.is_supported() => {
            // SAFETY: the CPU has AVX2, just checked.
            unsafe { sum_avx2(bytes) }
        }
        _ => sum_portable(bytes),
    }
}
