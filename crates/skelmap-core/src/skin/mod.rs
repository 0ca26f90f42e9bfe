//! SIMD kernels. [`x86`] is the only module besides the memory map that contains `unsafe`
//! code: `std::arch` intrinsics, each block justified by a `// SAFETY:` comment.

#[cfg(target_arch = "x86_64")]
pub(crate) mod x86;
