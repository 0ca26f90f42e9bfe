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
