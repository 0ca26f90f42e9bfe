//! The morph kernel: unpack MDL frames and tween two of them.
//!
//! `position = scale · (a + t · (b − a)) + offset` per coordinate, with `a`, `b` the packed
//! coordinates of the two frames (bytes or words); normals are the two table entries blended
//! by `t` and renormalised.
//!
//! [`tween_scalar`] is the reference, one vertex at a time. [`tween_simd`] runs the
//! `std::arch` SSE2 kernel on x86-64 (one vertex per 128-bit register; see `skin::x86`) and
//! the scalar one elsewhere. The two agree within 1e-6 (tested on every corpus frame), and
//! `cargo bench --bench morph` compares them.

use super::anorms::NORMALS;
use super::mdl::{Mdl, PackedVertices};
use super::raw::{TrivertxByte, TrivertxWord};

/// Why a tween could not run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum MorphError {
    /// A frame index past the model's frames.
    #[error("frame {0} does not exist")]
    NoFrame(usize),
    /// An output slice shorter than the model's vertex count.
    #[error("output holds {have} vertices; the model has {need}")]
    Output {
        /// Vertices the model has.
        need: usize,
        /// Vertices the output holds.
        have: usize,
    },
}

/// The normal table padded to 256 entries, so that a `u8` index needs no bounds check
/// (validation proved every index < 162; the padding is never read for a valid model).
const NORMALS_256: [[f32; 3]; 256] = {
    let mut table = [[0.0f32; 3]; 256];
    let mut i = 0;
    while i < NORMALS.len() {
        table[i] = NORMALS[i];
        i += 1;
    }
    table
};

/// A packed vertex record (byte or word).
trait Packed: Copy {
    fn coords(&self) -> [f32; 3];
    fn normal(&self) -> u8;
}

impl Packed for TrivertxByte {
    #[inline(always)]
    fn coords(&self) -> [f32; 3] {
        self.v.map(f32::from)
    }
    #[inline(always)]
    fn normal(&self) -> u8 {
        self.normal
    }
}

impl Packed for TrivertxWord {
    #[inline(always)]
    fn coords(&self) -> [f32; 3] {
        self.v.map(|c| f32::from(c.get()))
    }
    #[inline(always)]
    fn normal(&self) -> u8 {
        self.normal
    }
}

/// The two frames' records, checked against the output length, dispatched once on their
/// packing to a kernel generic over the record types.
macro_rules! dispatch {
    ($mdl:expr, $a:expr, $b:expr, $positions:expr, $normals:expr, $kernel:ident, $t:expr) => {{
        let fa = $mdl
            .frames()
            .get($a)
            .ok_or(MorphError::NoFrame($a))?
            .vertices();
        let fb = $mdl
            .frames()
            .get($b)
            .ok_or(MorphError::NoFrame($b))?
            .vertices();
        let need = fa.len();
        let have = $positions.len().min($normals.len());
        if have < need {
            return Err(MorphError::Output { need, have });
        }
        let (s, o) = ($mdl.scale(), $mdl.offset());
        match (fa, fb) {
            (PackedVertices::Byte(x), PackedVertices::Byte(y)) => {
                $kernel(x, y, s, o, $t, $positions, $normals)
            }
            (PackedVertices::Byte(x), PackedVertices::Word(y)) => {
                $kernel(x, y, s, o, $t, $positions, $normals)
            }
            (PackedVertices::Word(x), PackedVertices::Byte(y)) => {
                $kernel(x, y, s, o, $t, $positions, $normals)
            }
            (PackedVertices::Word(x), PackedVertices::Word(y)) => {
                $kernel(x, y, s, o, $t, $positions, $normals)
            }
        }
        Ok(())
    }};
}

/// `n` scaled to unit length; `+Z` for a zero vector.
#[inline(always)]
pub(crate) fn normalise(n: [f32; 3]) -> [f32; 3] {
    let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
    if len > 0.0 {
        let inv = 1.0 / len;
        n.map(|c| c * inv)
    } else {
        [0.0, 0.0, 1.0]
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
    dispatch!(mdl, a, b, positions, normals, scalar_kernel, t)
}

fn scalar_kernel<A: Packed, B: Packed>(
    fa: &[A],
    fb: &[B],
    scale: [f32; 3],
    offset: [f32; 3],
    t: f32,
    positions: &mut [[f32; 3]],
    normals: &mut [[f32; 3]],
) {
    for (((va, vb), p), n) in fa
        .iter()
        .zip(fb)
        .zip(positions.iter_mut())
        .zip(normals.iter_mut())
    {
        let (x, y) = (va.coords(), vb.coords());
        for k in 0..3 {
            p[k] = scale[k] * (x[k] + t * (y[k] - x[k])) + offset[k];
        }
        let (ta, tb) = (
            NORMALS_256[usize::from(va.normal())],
            NORMALS_256[usize::from(vb.normal())],
        );
        *n = normalise(core::array::from_fn(|k| ta[k] + t * (tb[k] - ta[k])));
    }
}

/// As [`tween_scalar`], with the `std::arch` SSE2 kernel on x86-64 (one vertex per 128-bit
/// register) and the scalar kernel elsewhere.
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
    #[cfg(target_arch = "x86_64")]
    {
        dispatch!(mdl, a, b, positions, normals, simd_kernel, t)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        dispatch!(mdl, a, b, positions, normals, scalar_kernel, t)
    }
}

#[cfg(target_arch = "x86_64")]
fn simd_kernel<A: Packed + crate::skin::x86::Widen, B: Packed + crate::skin::x86::Widen>(
    fa: &[A],
    fb: &[B],
    scale: [f32; 3],
    offset: [f32; 3],
    t: f32,
    positions: &mut [[f32; 3]],
    normals: &mut [[f32; 3]],
) {
    crate::skin::x86::morph_sse2(fa, fb, scale, offset, t, positions, normals);
}

/// The name of the kernel [`tween_simd`] runs on this target.
#[must_use]
pub fn simd_kernel_name() -> &'static str {
    if cfg!(target_arch = "x86_64") {
        "sse2"
    } else {
        "scalar (no SIMD kernel for this target)"
    }
}
