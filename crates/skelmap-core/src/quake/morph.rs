//! Tweening Quake and MDL2 frames: the model's packed poses handed to the format-blind morph
//! kernels of [`skin::morph`](crate::skin::morph), with the 162-entry normal table Quake and
//! GameStudio share ([`alias::anorms::NORMAL_TABLE`](crate::alias::anorms::NORMAL_TABLE)).

use super::view::Mdl;
use crate::skin::morph::{self, MorphError};

/// Tweens poses `a` and `b` (indices into [`Mdl::frames`]) at `t` (0 = `a`, 1 = `b`) into
/// `positions` and `normals`, one vertex at a time (the reference).
///
/// ```
/// use skelmap_core::Parse;
/// use skelmap_core::quake::{Mdl, morph, write::Builder};
/// let bytes = Builder::triangle().write();
/// let mdl = Mdl::parse(&bytes)?;
/// let (mut p, mut n) = (vec![[0.0; 3]; 3], vec![[0.0; 3]; 3]);
/// morph::tween_scalar(&mdl, 0, 0, 0.0, &mut p, &mut n)?;
/// assert_eq!(p, [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
///
/// [`MorphError`] for a missing frame or an output shorter than the vertices.
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
/// [`MorphError`] for a missing frame or an output shorter than the vertices.
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
/// [`MorphError`] for a missing frame or an output shorter than the vertices.
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
