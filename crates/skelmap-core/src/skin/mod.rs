//! SIMD kernels. [`x86`] holds the `std::arch` intrinsics (SSE2, baseline on x86-64); with
//! `source.rs` it is one of the two modules of this crate allowed to opt out of the
//! compiler's memory-safety checks, each such block justified by a `// SAFETY:` comment.

#[cfg(target_arch = "x86_64")]
pub(crate) mod x86;
