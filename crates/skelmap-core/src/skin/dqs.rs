//! Dual-quaternion skinning, relative to the frame-0 bind pose.
//!
//! Linear blend skinning averages matrices and collapses joints twisted far apart (the
//! "candy wrapper"); dual quaternions blend rigid transforms instead. For DPM/SKM records the
//! vertex's rest position is its frame-0 skinned position `p₀`; each bone contributes
//! `D_b = world_b(t) · world_b(0)⁻¹` as a unit dual quaternion, the weighted sum (signs
//! aligned to the first) is normalised and applied to `p₀`. A vertex with one influence is
//! moved exactly as linear blend skinning moves it.
//!
//! [`skin_dqs`] is the scalar reference over the records;
//! [`CompactMesh::skin_dqs`](super::CompactMesh::skin_dqs) runs the same blend 16 vertices at a
//! time over the folded layout, from a [`DualQuatPalette`].

use glam::{Affine3A, Quat, Vec3, Vec3A};

use zerocopy::byteorder::ByteOrder;

use super::SkinError;
use crate::bonevert::BoneVert;
use crate::pose::Palette;
use crate::pose::SkeletalMesh;

/// A rigid transform as a unit dual quaternion `real + ε·dual`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DualQuat {
    /// The rotation.
    pub real: Quat,
    /// Half the translation times the rotation (`½ t · real`).
    pub dual: Quat,
}

impl DualQuat {
    /// The dual quaternion of a rigid transform (any scale in `m` is dropped).
    #[must_use]
    pub fn from_affine(m: &Affine3A) -> Self {
        let (_, rotation, translation) = m.to_scale_rotation_translation();
        let t = Quat::from_xyzw(translation.x, translation.y, translation.z, 0.0);
        DualQuat {
            real: rotation,
            dual: (t * rotation) * 0.5,
        }
    }

    /// Both parts divided by the real part's length; the identity where that length is zero
    /// or not a number.
    #[must_use]
    pub fn normalised(self) -> Self {
        let len = self.real.length();
        if len > 0.0 {
            DualQuat {
                real: self.real * (1.0 / len),
                dual: self.dual * (1.0 / len),
            }
        } else {
            DualQuat {
                real: Quat::IDENTITY,
                dual: Quat::from_xyzw(0.0, 0.0, 0.0, 0.0),
            }
        }
    }

    /// Applies the (normalised) transform to a point.
    #[must_use]
    pub fn transform_point(&self, p: Vec3A) -> Vec3A {
        let t = (self.dual * 2.0) * self.real.conjugate();
        Vec3A::from(self.real * Vec3::from(p)) + Vec3A::new(t.x, t.y, t.z)
    }
}

/// A weighted sum of dual quaternions, each taken in the hemisphere of the first (`q` and
/// `−q` are one rotation), normalised by [`Blend::finish`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct Blend {
    real: Quat,
    dual: Quat,
    pivot: Option<Quat>,
}

impl Default for Blend {
    /// The empty sum.
    fn default() -> Self {
        let zero = Quat::from_xyzw(0.0, 0.0, 0.0, 0.0);
        Blend {
            real: zero,
            dual: zero,
            pivot: None,
        }
    }
}

impl Blend {
    pub(crate) fn add(&mut self, d: &DualQuat, weight: f32) {
        let sign = if self.pivot.get_or_insert(d.real).dot(d.real) < 0.0 {
            -1.0
        } else {
            1.0
        };
        self.real += d.real * (sign * weight);
        self.dual += d.dual * (sign * weight);
    }

    /// The normalised blend; the identity when nothing (or only zero weight) was added.
    pub(crate) fn finish(self) -> DualQuat {
        DualQuat {
            real: self.real,
            dual: self.dual,
        }
        .normalised()
    }
}

/// Dual quaternions, one per bone, in the layout the compact kernel's dual-quaternion blend
/// reads ([`CompactMesh::skin_dqs`](super::CompactMesh::skin_dqs)): rows `real.x y z w` and
/// `dual.x y z w` of one float per bone, padded as [`SkinMatrices`](super::SkinMatrices) pads
/// its rows. Rebuilt once per frame, reusing its allocations.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DualQuatPalette {
    deltas: Vec<DualQuat>,
    /// Twelve rows of `padded` floats (the last four zero), the shape the look-ups expect.
    soa: Vec<f32>,
    padded: usize,
}

impl DualQuatPalette {
    /// Rebuilds from one dual quaternion per bone, each [normalised](DualQuat::normalised)
    /// (so that a vertex of one influence takes its bone's as it is).
    pub fn update(&mut self, deltas: impl ExactSizeIterator<Item = DualQuat>) {
        let bones = deltas.len();
        let padded = super::matrices::padded(bones);
        self.padded = padded;
        self.deltas.clear();
        self.soa.clear();
        self.soa.resize(12 * padded, 0.0);
        for (b, d) in deltas.map(DualQuat::normalised).enumerate() {
            for (row, value) in d
                .real
                .to_array()
                .into_iter()
                .chain(d.dual.to_array())
                .enumerate()
            {
                self.soa[row * padded + b] = value;
            }
            self.deltas.push(d);
        }
    }

    /// Number of bones.
    #[must_use]
    pub fn bones(&self) -> usize {
        self.deltas.len()
    }

    /// The dual quaternions, one per bone.
    #[must_use]
    pub fn deltas(&self) -> &[DualQuat] {
        &self.deltas
    }

    /// The rows and their length.
    pub(crate) fn soa(&self) -> (&[f32], usize) {
        (&self.soa, self.padded)
    }
}

/// Per bone `world(t) · world(0)⁻¹` as dual quaternions, from the current and bind palettes.
#[must_use]
pub fn deltas(current: &Palette, bind: &Palette) -> Vec<DualQuat> {
    current
        .world
        .iter()
        .zip(&bind.world)
        .map(|(now, rest)| DualQuat::from_affine(&(*now * rest.inverse())))
        .collect()
}

/// Skins `mesh` by dual quaternions: rest positions from `bind` (linear blend at frame 0),
/// moved by the weighted, normalised blend of `deltas`; normals rotated by the blend.
///
/// # Errors
///
/// [`SkinError`] when a bone is missing from `bind` or `deltas`, or an output is short.
pub fn skin_dqs<'data>(
    mesh: &impl SkeletalMesh<'data>,
    bind: &Palette,
    deltas: &[DualQuat],
    positions: &mut [[f32; 3]],
    normals: &mut [[f32; 3]],
) -> Result<(), SkinError> {
    let need = mesh.num_vertices();
    let have = positions.len().min(normals.len());
    if have < need {
        return Err(SkinError::Output { need, have });
    }
    for ((records, pos), nrm) in mesh
        .vertices()
        .zip(positions.iter_mut())
        .zip(normals.iter_mut())
    {
        let (p, n) = dqs_vertex(records, Some(&bind.world), deltas)?;
        *pos = p.to_array();
        *nrm = n.to_array();
    }
    Ok(())
}

/// One vertex skinned by dual quaternions from its records: the rest position and normal are
/// the records' linear blend by `rest` (per bone; `None` for records already in rest space),
/// moved by the weighted, normalised blend of `deltas`.
pub(crate) fn dqs_vertex<O: ByteOrder>(
    records: &[BoneVert<O>],
    rest: Option<&[Affine3A]>,
    deltas: &[DualQuat],
) -> Result<(Vec3A, Vec3A), SkinError> {
    let (mut p0, mut n0) = (Vec3A::ZERO, Vec3A::ZERO);
    let mut blend = Blend::default();
    for r in records {
        let bone = r.bonenum();
        let have = rest.map_or(usize::MAX, <[_]>::len).min(deltas.len());
        let missing = SkinError::Palette { bone, have };
        let d = deltas.get(bone as usize).ok_or(missing)?;
        let (origin, normal) = (Vec3A::from(r.origin()), Vec3A::from(r.normal()));
        match rest {
            Some(rest) => {
                let m = rest.get(bone as usize).ok_or(missing)?;
                p0 += m.matrix3 * origin + m.translation * r.influence();
                n0 += m.matrix3 * normal;
            }
            None => {
                p0 += origin;
                n0 += normal;
            }
        }
        blend.add(d, r.influence());
    }
    let blended = blend.finish();
    Ok((
        blended.transform_point(p0),
        Vec3A::from(blended.real * Vec3::from(n0)),
    ))
}
