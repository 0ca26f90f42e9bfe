//! Tweening an alias-family model's frames: its packed frames and their unpacking
//! ([`PackedModel`]) handed to the format-blind morph kernels of
//! [`skin::morph`](crate::skin::morph).
//!
//! `position = scale · (a + t · (b − a)) + offset` per coordinate, with `a`, `b` the packed
//! coordinates of the two frames (bytes or words); normals are the two frames' entries of the
//! [`NORMALS`](super::anorms::NORMALS) table blended by `t` and renormalised.

use crate::skin::SimdLevel;
use crate::skin::morph::{self, Keyframe, MorphError, NormalTable, PackedFrame, Unpack};

/// A model whose frames store every vertex packed (a GameStudio MDL, a Quake model).
pub trait PackedModel {
    /// Frame `i`'s packed vertices, or [`MorphError::NoFrame`].
    ///
    /// # Errors
    ///
    /// [`MorphError::NoFrame`] past the last frame.
    fn packed_frame(&self, i: usize) -> Result<PackedFrame<'_>, MorphError>;

    /// The scale, offset and normal table that unpack the frames.
    fn unpack(&self) -> Unpack<'static>;

    /// Frame `i` with the grid that unpacks it and its normal table (see
    /// [`ModelView::keyframe`](crate::view::ModelView::keyframe)); `None` past the last
    /// frame.
    fn keyframe(&self, i: usize) -> Option<(Keyframe<'_>, &'static NormalTable)> {
        let unpack = self.unpack();
        let keyframe = Keyframe {
            frame: self.packed_frame(i).ok()?,
            scale: unpack.scale,
            offset: unpack.offset,
        };
        Some((keyframe, unpack.normals))
    }
}

/// Tweens frames `a` and `b` of `model` at `t` (0 = `a`, 1 = `b`) into `positions` and
/// `normals`, one vertex at a time (the reference).
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
    model: &impl PackedModel,
    a: usize,
    b: usize,
    t: f32,
    positions: &mut [[f32; 3]],
    normals: &mut [[f32; 3]],
) -> Result<(), MorphError> {
    let (fa, fb) = (model.packed_frame(a)?, model.packed_frame(b)?);
    morph::tween_scalar(&model.unpack(), fa, fb, t, positions, normals)
}

/// As [`tween_scalar`], with the widest `std::arch` kernel the CPU has (AVX-512 or AVX2; see
/// [`morph::tween_simd`]) and the scalar kernel elsewhere.
///
/// # Errors
///
/// As [`tween_scalar`].
pub fn tween_simd(
    model: &impl PackedModel,
    a: usize,
    b: usize,
    t: f32,
    positions: &mut [[f32; 3]],
    normals: &mut [[f32; 3]],
) -> Result<(), MorphError> {
    let (fa, fb) = (model.packed_frame(a)?, model.packed_frame(b)?);
    morph::tween_simd(&model.unpack(), fa, fb, t, positions, normals)
}

/// As [`tween_scalar`], at an explicit instruction-set level (see
/// [`morph::tween_with_level`]).
///
/// # Errors
///
/// As [`tween_scalar`].
pub fn tween_with_level(
    model: &impl PackedModel,
    level: SimdLevel,
    a: usize,
    b: usize,
    t: f32,
    positions: &mut [[f32; 3]],
    normals: &mut [[f32; 3]],
) -> Result<(), MorphError> {
    let (fa, fb) = (model.packed_frame(a)?, model.packed_frame(b)?);
    morph::tween_with_level(level, &model.unpack(), fa, fb, t, positions, normals)
}
