//! Dual-quaternion skinning, relative to the frame-0 bind pose.
//!
//! Linear blend skinning averages matrices and collapses joints twisted far apart (the
//! "candy wrapper"); dual quaternions blend rigid transforms instead. For DPM/SKM records the
//! vertex's rest position is its frame-0 skinned position `p₀`; each bone contributes
//! `D_b = world_b(t) · world_b(0)⁻¹` as a unit dual quaternion, the weighted sum (signs
//! aligned to the first) is normalised and applied to `p₀`. A vertex with one influence is
//! moved exactly as linear blend skinning moves it.

use glam::{Affine3A, Quat, Vec3, Vec3A};

use super::SkinError;
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
        let len = self.real.length();
        if len > 0.0 {
            DualQuat {
                real: self.real * (1.0 / len),
                dual: self.dual * (1.0 / len),
            }
        } else {
            DualQuat {
                real: Quat::IDENTITY,
                dual: Blend::default().dual,
            }
        }
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
    let need = mesh.num_verts();
    let have = positions.len().min(normals.len());
    if have < need {
        return Err(SkinError::Output { need, have });
    }
    for ((records, pos), nrm) in mesh
        .vertices()
        .zip(positions.iter_mut())
        .zip(normals.iter_mut())
    {
        let (mut p0, mut n0) = (Vec3A::ZERO, Vec3A::ZERO);
        let mut blend = Blend::default();
        for r in records {
            let bone = r.bonenum();
            let missing = SkinError::Palette {
                bone,
                have: bind.world.len().min(deltas.len()),
            };
            let m = bind.world.get(bone as usize).ok_or(missing)?;
            let d = deltas.get(bone as usize).ok_or(missing)?;
            p0 += m.matrix3 * Vec3A::from(r.origin()) + m.translation * r.influence();
            n0 += m.matrix3 * Vec3A::from(r.normal());
            blend.add(d, r.influence());
        }
        let blended = blend.finish();
        *pos = blended.transform_point(p0).to_array();
        *nrm = Vec3A::from(blended.real * Vec3::from(n0)).to_array();
    }
    Ok(())
}
