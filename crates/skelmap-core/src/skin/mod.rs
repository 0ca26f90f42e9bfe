//! SIMD kernels. [`x86`] holds the `std::arch` intrinsics (SSE2 morphing; AVX2 and AVX-512
//! skinning); with `source.rs` it is one of the two modules of this crate allowed to opt out
//! of the compiler's memory-safety checks, each such block justified by a `// SAFETY:`
//! comment. The safe APIs and their run-time dispatch live in [`crate::anim`] and
//! [`crate::gamestudio::morph`].

#[cfg(target_arch = "x86_64")]
pub(crate) mod x86;
