//! x86-64 SIMD kernels: with `source.rs`, the only code of skelmap-core allowed to opt out of
//! the compiler's memory-safety checks, each block justified by a `// SAFETY:` comment.
//!
//! - [`stream`]: the stream skinning kernel (AVX2 + FMA) over the mapped 32-byte records.
//! - [`prepared`]: the prepared skinning kernel over SoA blocks (AVX-512F, AVX2 + FMA), and
//!   the in-register palette look-up it shares with [`compact`].
//! - [`compact`]: the compact skinning kernel over folded vertices (AVX-512F).
//! - [`euler`]: keyed joints (MS3D's Euler keys) composed with their rest transforms and
//!   blended, 16 joints at a time (AVX-512F), for pose sampling.
//! - [`morph`]: the morph kernel (AVX-512F: 16 vertices a step; AVX2 + FMA: 8).
//! - [`pose`]: DPM bone matrices to quaternions, 16 at a time (AVX-512F), for pose sampling;
//!   the DPM validation's scan of the same matrices for non-finite values and zero rows; and
//!   the SKP validation's quaternion length check.
//! - [`words`]: validation's scans of 32-bit words against a test per lane (AVX-512F and
//!   BW): runs of one-influence DPM and SKM bone vertices, sixteen a step, and flat tables
//!   (triangle corners, bone references, texture coordinates).
//! - [`fields`]: validation's scan of unsigned fields in fixed-stride records against a
//!   maximum per field (AVX-512F and BW): GameStudio and Quake normal indices, triangle
//!   corners and texture coordinates.
//! - [`read`]: the read pass of the roofline (AVX-512F, AVX2), the widest loads the CPU has.
//! - [`records`]: the MS3D validation's scans of its vertex, triangle and vertex extra records
//!   (AVX-512F, BW and VBMI).
//!
//! The AVX kernels are `unsafe fn`s with `#[target_feature]`: their one precondition is that
//! the CPU has the features, which the safe dispatchers in `skin` check with
//! `is_x86_feature_detected!` before calling.
#![allow(unsafe_code)]

// Defined before the modules, which use it.
/// Runs `$kernel::<MODE, STREAM>($run, $sink)` with the look-up mode that suits the run's
/// padded palette and its streaming choice, then, after non-temporal stores, the store fence
/// that orders them before any store that follows (so that a thread that sees the call
/// finish sees its results).
macro_rules! by_palette_and_stream {
    ($kernel:ident, $run:expr, $sink:expr) => {{
        let (run, sink) = ($run, $sink);
        let stream = run.stream;
        match (run.padded, stream) {
            (16, false) => $kernel::<0, false>(run, sink),
            (32, false) => $kernel::<1, false>(run, sink),
            (64, false) => $kernel::<2, false>(run, sink),
            (_, false) => $kernel::<3, false>(run, sink),
            (16, true) => $kernel::<0, true>(run, sink),
            (32, true) => $kernel::<1, true>(run, sink),
            (64, true) => $kernel::<2, true>(run, sink),
            (_, true) => $kernel::<3, true>(run, sink),
        }
        if stream {
            core::arch::x86_64::_mm_sfence();
        }
    }};
}

pub(crate) mod compact;
pub(crate) mod euler;
pub(crate) mod fields;
pub(crate) mod morph;
pub(crate) mod pose;
pub(crate) mod prepared;
pub(crate) mod read;
pub(crate) mod records;
pub(crate) mod stream;
pub(crate) mod words;
