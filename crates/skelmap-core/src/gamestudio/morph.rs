//! Tweening MDL frames: the model's packed frames handed to the format-blind morph kernels of
//! [`skin::morph`](crate::skin::morph).
//!
//! `position = scale · (a + t · (b − a)) + offset` per coordinate, with `a`, `b` the packed
//! coordinates of the two frames (bytes or words); normals are the two entries of the
//! [`NORMALS`](crate::alias::anorms::NORMALS) table
//! blended by `t` and renormalised.

use zerocopy::{FromBytes, IntoBytes};

use super::view::{Mdl, PackedVertices};
use crate::alias::anorms::NORMAL_TABLE;
use crate::skin::morph::{self, MorphError, PackedFrame, Unpack};

pub use crate::skin::morph::simd_kernel_name;

impl<'data> PackedVertices<'data> {
    /// The records as the morph kernels read them (a zero-copy view of the same bytes).
    #[must_use]
    pub fn packed(&self) -> PackedFrame<'data> {
        match *self {
            PackedVertices::Byte(v) => {
                PackedFrame::Bytes(<[[u8; 4]]>::ref_from_bytes(v.as_bytes()).unwrap_or_default())
            }
            PackedVertices::Word(v) => {
                PackedFrame::Words(<[[u8; 8]]>::ref_from_bytes(v.as_bytes()).unwrap_or_default())
            }
        }
    }
}

impl Mdl<'_> {
    /// The scale, offset and normal table that unpack this model's frames.
    #[must_use]
    pub fn unpack(&self) -> Unpack<'static> {
        Unpack {
            scale: self.scale(),
            offset: self.offset(),
            normals: &NORMAL_TABLE,
        }
    }

    /// Frame `i`'s packed vertices, or [`MorphError::NoFrame`].
    pub(crate) fn packed_frame(&self, i: usize) -> Result<PackedFrame<'_>, MorphError> {
        let frame = self.frames().get(i).ok_or(MorphError::NoFrame(i))?;
        Ok(frame.vertices().packed())
    }
}

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
