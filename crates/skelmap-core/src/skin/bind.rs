//! Skinning meshes stored in their bind pose: MS3D and SL mdl.
//!
//! DPM and SKM store each vertex as pre-weighted offsets in its bones' spaces; MS3D and SL mdl
//! store one model-space position (and normal) as the mesh looks in its bind pose, with up to
//! four `(bone, weight)` influences. Such a vertex moves by its bones' `world(t) · world(bind)⁻¹`
//! ([`Palette::relative_to`](crate::pose::Palette::relative_to)), blended linearly
//! ([`skin_bind_lbs`]) or as dual quaternions ([`skin_bind_dqs`]). The bind pose is the MS3D
//! rest pose, and the SL animation's first keyframe (frame 0).

use glam::{Affine3A, Vec3, Vec3A};

use super::SkinError;
use super::dqs::{Blend, DualQuat};
use crate::pose::{BindPoseMesh, BindVertex};

/// Checks the outputs against the mesh's vertex count.
fn outputs(
    mesh: &impl BindPoseMesh,
    positions: &[[f32; 3]],
    normals: &[[f32; 3]],
) -> Result<usize, SkinError> {
    let need = mesh.bind_vertex_count();
    let have = positions.len().min(normals.len());
    if have < need {
        return Err(SkinError::Output { need, have });
    }
    Ok(need)
}

/// The influences of `v` that carry weight, each with its entry of `table` (or the error
/// naming the first bone `table` lacks).
fn weighted<'t, T>(
    v: &BindVertex,
    table: &'t [T],
) -> impl Iterator<Item = Result<(&'t T, f32), SkinError>> {
    v.influences
        .into_iter()
        .flatten()
        .filter(|&(_, weight)| weight > 0.0)
        .map(move |(bone, weight)| {
            table
                .get(usize::from(bone))
                .map(|entry| (entry, weight))
                .ok_or(SkinError::Palette {
                    bone: u32::from(bone),
                    have: table.len(),
                })
        })
}

/// Linear blend skinning of a bind-pose mesh: `pos = Σ wᵢ Dᵢ · p / Σ wᵢ` and
/// `nrm = Σ wᵢ Rᵢ · n / Σ wᵢ` (not renormalised) with `deltas` from
/// [`Palette::relative_to`](crate::pose::Palette::relative_to). A vertex with no positive weight
/// keeps its bind position and normal.
///
/// ```
/// use skelmap_core::pose::{BindPoseMesh, LocalPose, Palette};
/// use skelmap_core::skin::skin_bind_lbs;
/// use skelmap_core::slmdl::{SlAnim, SlMdl};
///
/// let (mdl, anim) = skelmap_core::synth::sl_twist(4, 8, 90.0);
/// let (mdl, anim) = (mdl.write(), anim.write());
/// let (mesh, anim) = (SlMdl::parse(&mdl)?, SlAnim::parse(&anim)?);
/// let (mut pose, mut bind, mut now) = (LocalPose::default(), Palette::default(), Palette::default());
/// anim.sample(0.0, &mut pose); // frame 0: the bind pose
/// bind.build(&anim, &pose);
/// anim.sample(1.0, &mut pose);
/// now.build(&anim, &pose);
/// let mut deltas = Vec::new();
/// now.relative_to(&bind, &mut deltas);
/// let n = mesh.bind_vertex_count();
/// let (mut positions, mut normals) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
/// skin_bind_lbs(&mesh, &deltas, &mut positions, &mut normals)?;
/// // Vertex 0 sits at x = −1, bound to the still bone 0 only.
/// assert_eq!(positions[0], [-1.0, 1.0, 0.0]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
///
/// [`SkinError`] when a vertex names a bone `deltas` lacks or an output is short.
pub fn skin_bind_lbs(
    mesh: &impl BindPoseMesh,
    deltas: &[Affine3A],
    positions: &mut [[f32; 3]],
    normals: &mut [[f32; 3]],
) -> Result<(), SkinError> {
    outputs(mesh, positions, normals)?;
    lbs(mesh, deltas, positions, Some(normals))
}

/// [`skin_bind_lbs`] without normals: writes the first `mesh.bind_vertex_count()` entries of
/// `positions`.
///
/// # Errors
///
/// [`SkinError`] when a vertex names a bone `deltas` lacks or `positions` is short.
pub fn skin_bind_positions(
    mesh: &impl BindPoseMesh,
    deltas: &[Affine3A],
    positions: &mut [[f32; 3]],
) -> Result<(), SkinError> {
    outputs(mesh, positions, positions)?;
    lbs(mesh, deltas, positions, None)
}

/// Linear blend of the first `min(positions.len(), vertices)` vertices (and their normals,
/// when asked for).
pub(crate) fn lbs(
    mesh: &impl BindPoseMesh,
    deltas: &[Affine3A],
    positions: &mut [[f32; 3]],
    mut normals: Option<&mut [[f32; 3]]>,
) -> Result<(), SkinError> {
    for (i, pos) in positions
        .iter_mut()
        .enumerate()
        .take(mesh.bind_vertex_count())
    {
        let Some(v) = mesh.bind_vertex(i) else { break };
        let (mut p, mut n, mut total) = (Vec3A::ZERO, Vec3A::ZERO, 0.0);
        for entry in weighted(&v, deltas) {
            let (m, weight) = entry?;
            p += weight * m.transform_point3a(v.position);
            n += weight * m.transform_vector3a(v.normal);
            total += weight;
        }
        let (p, n) = if total > 0.0 {
            (p / total, n / total)
        } else {
            (v.position, v.normal)
        };
        *pos = p.to_array();
        if let Some(slot) = normals.as_deref_mut().and_then(|out| out.get_mut(i)) {
            *slot = n.to_array();
        }
    }
    Ok(())
}

/// Dual-quaternion skinning of a bind-pose mesh: the vertex's weighted `deltas` (from
/// [`dqs::deltas`](super::dqs::deltas) of the current and bind palettes) are summed in the
/// hemisphere of the first, normalised, and applied to the bind position; the normal is
/// rotated by the blend. A vertex with no positive weight keeps its bind position and normal;
/// one with a single influence moves exactly as [`skin_bind_lbs`] moves it.
///
/// # Errors
///
/// [`SkinError`] when a vertex names a bone `deltas` lacks or an output is short.
pub fn skin_bind_dqs(
    mesh: &impl BindPoseMesh,
    deltas: &[DualQuat],
    positions: &mut [[f32; 3]],
    normals: &mut [[f32; 3]],
) -> Result<(), SkinError> {
    let need = outputs(mesh, positions, normals)?;
    for (i, (pos, nrm)) in positions.iter_mut().zip(normals).enumerate().take(need) {
        let Some(v) = mesh.bind_vertex(i) else { break };
        let mut blend = Blend::default();
        for entry in weighted(&v, deltas) {
            let (d, weight) = entry?;
            blend.add(d, weight);
        }
        let blended = blend.finish();
        *pos = blended.transform_point(v.position).to_array();
        *nrm = Vec3A::from(blended.real * Vec3::from(v.normal)).to_array();
    }
    Ok(())
}
