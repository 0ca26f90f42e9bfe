//! Tweening MDL frames: the model's packed frames handed to the format-blind morph kernels of
//! [`skin::morph`](crate::skin::morph).
//!
//! `position = scale · (a + t · (b − a)) + offset` per coordinate, with `a`, `b` the packed
//! coordinates of the two frames (bytes or words); normals are the two entries of the
//! [`NORMALS`](crate::alias::anorms::NORMALS) table
//! blended by `t` and renormalised.

use super::view::Mdl;
use crate::skin::morph::{self, MorphError};

pub use crate::skin::morph::simd_kernel_name;

/// Tweens frames `a` and `b` at `t` (0 = `a`, 1 = `b`) into `positions` and `normals`,
/// one vertex at a time (the reference).
///
/// # Errors
///
/// [`MorphError`] for a missing frame or short output.
pub fn tween_scalar(
    mdl: &Mdl<'_>,
    a: usize,
    b: usize,
    t: f32,
    positions: &mut [[f32; 3]],
    normals: &mut [[f32; 3]],
) -> Result<(), MorphError> {
    let (fa, fb) = (mdl.packed_frame(a)?, mdl.packed_frame(b)?);
    morph::tween_scalar(&mdl.unpack(), fa, fb, t, positions, normals)
}

/// As [`tween_scalar`], with the widest `std::arch` kernel the CPU has (AVX-512 or AVX2; see
/// [`crate::skin::morph::tween_simd`]) and the scalar kernel elsewhere.
///
/// # Errors
///
/// [`MorphError`] for a missing frame or short output.
pub fn tween_simd(
    mdl: &Mdl<'_>,
    a: usize,
    b: usize,
    t: f32,
    positions: &mut [[f32; 3]],
    normals: &mut [[f32; 3]],
) -> Result<(), MorphError> {
    let (fa, fb) = (mdl.packed_frame(a)?, mdl.packed_frame(b)?);
    morph::tween_simd(&mdl.unpack(), fa, fb, t, positions, normals)
}

/// As [`tween_scalar`], at an explicit instruction-set level (see
/// [`crate::skin::morph::tween_with_level`]).
///
/// # Errors
///
/// [`MorphError`] for a missing frame or short output.
pub fn tween_with_level(
    mdl: &Mdl<'_>,
    level: crate::skin::SimdLevel,
    a: usize,
    b: usize,
    t: f32,
    positions: &mut [[f32; 3]],
    normals: &mut [[f32; 3]],
) -> Result<(), MorphError> {
    let (fa, fb) = (mdl.packed_frame(a)?, mdl.packed_frame(b)?);
    morph::tween_with_level(level, &mdl.unpack(), fa, fb, t, positions, normals)
}
