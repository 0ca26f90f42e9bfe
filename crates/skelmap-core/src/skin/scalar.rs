//! The scalar reference skinning kernel.

use glam::{Affine3A, Vec3A};

use crate::pose::Palette;
use crate::pose::SkeletalMesh;

/// Why a mesh could not be skinned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum SkinError {
    /// The palette has fewer bones than the mesh references.
    #[error("palette has {have} bones; the mesh references bone {bone}")]
    Palette {
        /// A bone index the mesh uses.
        bone: u32,
        /// Bones in the palette.
        have: usize,
    },
    /// An output slice shorter than the mesh's vertex count.
    #[error("output holds {have} vertices; the mesh has {need}")]
    Output {
        /// Vertices in the mesh.
        need: usize,
        /// Vertices the outputs hold.
        have: usize,
    },
}

/// Skins `mesh` with `palette` into `positions` and `normals` (one entry per vertex, in file
/// order): `pos = Σ M_b · (origin, influence)`, `nrm = Σ R_b · normal` over the vertex's
/// pre-weighted records. Normals are returned as summed (unit length for weights summing to
/// 1 and unit stored normals), not renormalised.
///
/// ```
/// use skelmap_core::Parse;
/// use skelmap_core::pose::{self, Interpolation, LocalPose, Palette};
/// use skelmap_core::skin;
/// use skelmap_core::{SkeletalMesh, dpm::Dpm, synth};
///
/// let bytes = synth::tube(&synth::TubeParams::default()).write()?;
/// let model = Dpm::parse(&bytes)?;
/// let (mut pose, mut palette) = (LocalPose::default(), Palette::default());
/// pose::sample(&model, 2, 3, 0.5, Interpolation::Nlerp, &mut pose);
/// palette.build(&model, &pose);
/// let mesh = model.mesh(0).expect("one mesh");
/// let n = mesh.num_vertices() as usize;
/// let (mut positions, mut normals) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
/// skin::scalar(&mesh, &palette, &mut positions, &mut normals)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
///
/// [`SkinError`] when the palette is too small for the mesh or an output too short.
pub fn scalar<'data>(
    mesh: &impl SkeletalMesh<'data>,
    palette: &Palette,
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
        let mut p = Vec3A::ZERO;
        let mut n = Vec3A::ZERO;
        for r in records {
            let bone = r.bonenum();
            let m: &Affine3A = palette.world.get(bone as usize).ok_or(SkinError::Palette {
                bone,
                have: palette.world.len(),
            })?;
            p += m.matrix3 * Vec3A::from(r.origin()) + m.translation * r.influence();
            n += m.matrix3 * Vec3A::from(r.normal());
        }
        *pos = p.to_array();
        *nrm = n.to_array();
    }
    Ok(())
}

/// [`SkinError::Output`] when `have` output vertices are fewer than `need`, else
/// [`SkinError::Palette`] when a mesh using bones below `bone_limit` meets a palette of
/// `bones`.
pub(crate) fn check(
    need: usize,
    have: usize,
    bone_limit: u32,
    bones: usize,
) -> Result<(), SkinError> {
    if have < need {
        return Err(SkinError::Output { need, have });
    }
    if bone_limit as usize > bones {
        return Err(SkinError::Palette {
            bone: bone_limit - 1,
            have: bones,
        });
    }
    Ok(())
}
