//! The morph kernel: unpack MDL frames and tween two of them.
//!
//! `position = scale · (a + t · (b − a)) + offset` per coordinate, with `a`, `b` the packed
//! coordinates of the two frames (bytes or words); normals are the two table entries blended
//! by `t` and renormalised.
//!
//! [`tween_scalar`] is the reference, one vertex at a time. [`tween_lanes`] processes eight
//! vertices per step in structure-of-arrays lanes (`[f32; 8]` per coordinate) so that the
//! compiler turns the arithmetic into SIMD instructions on any target, in safe code; the
//! packed records are gathered into the lanes first. The two agree within 1e-6 (tested), and
//! `cargo bench --bench morph` compares them.

use super::anorms::NORMALS;
use super::mdl::{Mdl, PackedVertices};

/// Lanes per step of [`tween_lanes`].
pub const LANES: usize = 8;

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

fn frames<'a>(
    mdl: &'a Mdl<'_>,
    a: usize,
    b: usize,
    out: usize,
) -> Result<(PackedVertices<'a>, PackedVertices<'a>), MorphError> {
    let fa = mdl
        .frames()
        .get(a)
        .ok_or(MorphError::NoFrame(a))?
        .vertices();
    let fb = mdl
        .frames()
        .get(b)
        .ok_or(MorphError::NoFrame(b))?
        .vertices();
    let need = fa.len();
    if out < need {
        return Err(MorphError::Output { need, have: out });
    }
    Ok((fa, fb))
}

fn normalise(n: [f32; 3]) -> [f32; 3] {
    let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
    if len > 0.0 {
        n.map(|c| c / len)
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
    let (fa, fb) = frames(mdl, a, b, positions.len().min(normals.len()))?;
    let (scale, offset) = (mdl.scale(), mdl.offset());
    for (i, (p, n)) in positions
        .iter_mut()
        .zip(normals.iter_mut())
        .enumerate()
        .take(fa.len())
    {
        let (Some((va, na)), Some((vb, nb))) = (fa.get(i), fb.get(i)) else {
            break;
        };
        for k in 0..3 {
            let (x, y) = (f32::from(va[k]), f32::from(vb[k]));
            p[k] = scale[k] * (x + t * (y - x)) + offset[k];
        }
        let (ta, tb) = (NORMALS[usize::from(na)], NORMALS[usize::from(nb)]);
        *n = normalise(core::array::from_fn(|k| ta[k] + t * (tb[k] - ta[k])));
    }
    Ok(())
}

/// As [`tween_scalar`], eight vertices per step in structure-of-arrays lanes.
///
/// # Errors
///
/// [`MorphError`] for a missing frame or short output.
pub fn tween_lanes(
    mdl: &Mdl<'_>,
    a: usize,
    b: usize,
    t: f32,
    positions: &mut [[f32; 3]],
    normals: &mut [[f32; 3]],
) -> Result<(), MorphError> {
    let (fa, fb) = frames(mdl, a, b, positions.len().min(normals.len()))?;
    let (scale, offset) = (mdl.scale(), mdl.offset());
    let n = fa.len();
    let mut start = 0;
    while start < n {
        let count = LANES.min(n - start);
        // Gather: packed coordinates and table normals of both frames, per lane.
        let mut pa = [[0.0f32; LANES]; 3];
        let mut pb = [[0.0f32; LANES]; 3];
        let mut na = [[0.0f32; LANES]; 3];
        let mut nb = [[0.0f32; LANES]; 3];
        for l in 0..count {
            let (Some((va, ia)), Some((vb, ib))) = (fa.get(start + l), fb.get(start + l)) else {
                break;
            };
            let (ta, tb) = (NORMALS[usize::from(ia)], NORMALS[usize::from(ib)]);
            for k in 0..3 {
                pa[k][l] = f32::from(va[k]);
                pb[k][l] = f32::from(vb[k]);
                na[k][l] = ta[k];
                nb[k][l] = tb[k];
            }
        }
        // The arithmetic, lane-parallel.
        let mut p = [[0.0f32; LANES]; 3];
        let mut q = [[0.0f32; LANES]; 3];
        for k in 0..3 {
            for l in 0..LANES {
                p[k][l] = scale[k] * (pa[k][l] + t * (pb[k][l] - pa[k][l])) + offset[k];
                q[k][l] = na[k][l] + t * (nb[k][l] - na[k][l]);
            }
        }
        let mut inv = [0.0f32; LANES];
        for l in 0..LANES {
            let len = (q[0][l] * q[0][l] + q[1][l] * q[1][l] + q[2][l] * q[2][l]).sqrt();
            inv[l] = if len > 0.0 { 1.0 / len } else { 0.0 };
        }
        // Scatter back to interleaved output.
        for l in 0..count {
            if let (Some(pos), Some(nrm)) =
                (positions.get_mut(start + l), normals.get_mut(start + l))
            {
                *pos = [p[0][l], p[1][l], p[2][l]];
                *nrm = if inv[l] > 0.0 {
                    [q[0][l] * inv[l], q[1][l] * inv[l], q[2][l] * inv[l]]
                } else {
                    [0.0, 0.0, 1.0]
                };
            }
        }
        start += count;
    }
    Ok(())
}
