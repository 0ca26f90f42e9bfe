//! Validation's scans on x86-64 (AVX-512F, with BW and VBMI where a scan says so), and the
//! read pass of the roofline (AVX-512F, AVX2).
//!
//! - [`words`]: 32-bit words against a test per lane: runs of one-influence bone vertices,
//!   sixteen a step; the walk of vertices of any influence count; flat tables (triangle
//!   corners, bone references, texture coordinates).
//! - [`fields`]: unsigned fields of fixed-stride records against a maximum per field (normal
//!   indices, triangle corners, texture coordinates).
//! - [`packed`]: unsigned fields at any byte offset of fixed-stride records, gathered into
//!   lanes by one byte permutation (PSK's packed faces).
//! - [`records`]: MS3D's vertex, triangle, vertex extra and key records.
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
pub(crate) mod words;

use core::arch::x86_64::{__m512i, _mm512_loadu_si512};

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
