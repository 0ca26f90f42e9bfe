//! Pose conversion on x86-64 with AVX-512F, 16 bones a step: big-endian 3×4 matrices to
//! quaternions and translations, alone or two frames blended ([`matrices`], 8 bones a step
//! with AVX2 on CPUs without AVX-512), keyed
//! joints' Euler angles composed with their rest transforms and blended ([`euler`]), and
//! weighted layers of local poses blended over a rest pose ([`blend`]), and a palette's local
//! matrices and their concatenation ([`palette`]: the local matrices 8 bones a step with AVX2
//! on CPUs without AVX-512, the concatenation with AVX). [`ymm`] holds the shuffles the AVX2
//! passes share.
//!
//! These are `unsafe fn`s with `#[target_feature]`, whose one precondition is that the CPU has
//! the features; the safe `try_*` functions beside them check with `is_x86_feature_detected!`
//! before calling. Like every `x86` module, this one may opt out of the compiler's
//! memory-safety checks, each block justified by a `// SAFETY:` comment.
#![allow(unsafe_code)]

pub(crate) mod blend;
pub(crate) mod channels;
pub(crate) mod euler;
pub(crate) mod matrices;
pub(crate) mod palette;
mod ymm;
