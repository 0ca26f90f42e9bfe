//! Validation's scans on x86-64 (AVX-512F, with BW and VBMI where a scan says so), and the
//! read pass of the roofline (AVX-512F, AVX2). The flat scans (`fields`, `words`' tables and
//! bone vertices, `poses`' finiteness) also run on AVX2 where AVX-512 is missing (most
//! desktop CPUs): the same steps in two 32-byte registers, an unsigned comparison made of an
//! unsigned maximum (a lane above its bound changes it), and the last partial step from a
//! zero-padded copy in place of a masked load.
//!
//! - [`words`]: 32-bit words against a test per lane: runs of one-influence bone vertices,
//!   sixteen a step; the walk of vertices of any influence count; flat tables (triangle
//!   corners, bone references, texture coordinates).
//! - [`fields`]: unsigned fields of fixed-stride records against a maximum per field (normal
//!   indices, triangle corners, texture coordinates).
//! - [`packed`]: unsigned fields at any byte offset of fixed-stride records, gathered into
//!   lanes by one byte permutation (PSK's packed faces).
//! - [`records`]: MS3D's vertex, triangle, vertex extra and key records.
//! - [`runs`]: Half-Life's chains of animation-value runs, many walked at once by gathers
//!   (AVX-512F, or AVX2).
//! - [`tricmds`]: Half-Life's chains of triangle commands, a command a step, its triverts'
//!   indices eight a register (AVX-512F and BW; AVX2: four).
//! - [`poses`]: float tables of either byte order (pose matrices, texture coordinates) for
//!   non-finite values, and quaternion poses (lengths off unit).
//! - [`read`]: the read pass, the widest loads the CPU has.
//!
//! These are `unsafe fn`s with `#[target_feature]`, whose one precondition is that the CPU has
//! the features; the safe `try_*` functions beside them check with `is_x86_feature_detected!`
//! before calling. Like every `x86` module, this one may opt out of the compiler's
//! memory-safety checks, each block justified by a `// SAFETY:` comment.
#![allow(unsafe_code)]

pub(crate) mod fields;
pub(crate) mod packed;
pub(crate) mod poses;
pub(crate) mod read;
pub(crate) mod records;
pub(crate) mod runs;
pub(crate) mod tricmds;
pub(crate) mod words;

use core::arch::x86_64::{
    __m256i, __m512i, _mm256_loadu_si256, _mm256_or_si256, _mm256_setzero_si256, _mm512_loadu_si512,
};

/// Whether the CPU has AVX2: the flat scans' path where AVX-512 is missing.
fn avx2() -> bool {
    is_x86_feature_detected!("avx2")
}

/// The first 64 bytes of `rest` (a scan's last partial step), zero after its end.
fn padded(rest: &[u8]) -> [u8; 64] {
    let mut block = [0; 64];
    let n = rest.len().min(64);
    block[..n].copy_from_slice(&rest[..n]);
    block
}

/// The two 32-byte registers of a 64-byte block.
#[inline]
#[target_feature(enable = "avx2")]
fn halves(block: &[u8; 64]) -> [__m256i; 2] {
    // SAFETY: the block is 64 bytes; the unaligned loads read its two halves.
    unsafe {
        [
            _mm256_loadu_si256(block.as_ptr().cast()),
            _mm256_loadu_si256(block.as_ptr().add(32).cast()),
        ]
    }
}

/// The 64-byte registers of `bytes` at offsets `0, step, 2 · step, …` that lie wholly within
/// it, four loads a round, each given to `test`; returns its answers ORed and the offset of
/// the first step not taken (fewer than 64 bytes are left from there). The field scans' main
/// loop: a step is the whole records one register holds.
#[inline]
#[target_feature(enable = "avx512f")]
fn strided_registers(
    bytes: &[u8],
    step: usize,
    mut test: impl FnMut(__m512i) -> u64,
) -> (u64, usize) {
    // A step of 0 would never end; the scans' steps are whole records, at least a byte.
    let step = step.max(1);
    let len = bytes.len();
    let at = |offset: usize| bytes.as_ptr().wrapping_add(offset).cast::<__m512i>();
    let (mut any, mut offset) = (0u64, 0usize);
    // Four steps a round, while the fourth step's register ends within `bytes`.
    while offset + 3 * step + 64 <= len {
        // SAFETY: the four 64-byte loads start `step` bytes apart from `offset`, and the last
        // ends at `offset + 3 · step + 64 ≤ len`, within `bytes`.
        let v = unsafe {
            [
                _mm512_loadu_si512(at(offset)),
                _mm512_loadu_si512(at(offset + step)),
                _mm512_loadu_si512(at(offset + 2 * step)),
                _mm512_loadu_si512(at(offset + 3 * step)),
            ]
        };
        any |= v.into_iter().fold(0, |a, v| a | test(v));
        offset += 4 * step;
    }
    while offset + 64 <= len {
        // SAFETY: the load reads `offset..offset + 64`, within `bytes`.
        any |= test(unsafe { _mm512_loadu_si512(at(offset)) });
        offset += step;
    }
    (any, offset)
}

/// [`strided_registers`] on AVX2: each step's 64 bytes as two 32-byte registers, given to
/// `test`, whose answers (nonzero lanes fail) are ORed.
#[inline]
#[target_feature(enable = "avx2")]
fn strided_halves(
    bytes: &[u8],
    step: usize,
    mut test: impl FnMut([__m256i; 2]) -> __m256i,
) -> (__m256i, usize) {
    let step = step.max(1);
    let (mut any, mut offset) = (_mm256_setzero_si256(), 0usize);
    while let Some(block) = bytes.get(offset..).and_then(<[u8]>::first_chunk::<64>) {
        any = _mm256_or_si256(any, test(halves(block)));
        offset += step;
    }
    (any, offset)
}
