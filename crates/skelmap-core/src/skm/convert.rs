//! DPM → SKM + SKP conversion.
//!
//! The two formats weight vertices identically (the same pre-weighted 32-byte records, one
//! big-endian, one little-endian); they differ in where poses live. DPM stores a 3×4 matrix per
//! bone and frame inside the model, SKM a quaternion + origin per bone and frame in the
//! separate SKP. Conversion copies meshes and bones unchanged, names each SKM mesh after its
//! DPM shader, lists the bones each mesh uses as its references, drops the DPM group ids
//! (SKM has none), and turns every matrix into a unit quaternion and an origin.
//!
//! A rotation that is not orthonormal (old dpmodel output baked the model scale into the root
//! bone) has no exact quaternion: it is converted as is (the quaternion normalised) and
//! reported as a [`WarningKind::NonOrthonormal`] diagnostic, never silently corrected.

use glam::{Mat3, Quat, Vec3};

use super::write::{FrameDef, MeshDef, SkmBuilder, SkpBuilder};
use crate::diag::{Diagnostics, WarningKind};
use crate::dpm::Dpm;
use crate::dpm::write::Matrix3x4;
use crate::format::Format;
use crate::pose::{SkeletalMesh, is_rotation};
use crate::write::{BoneDef, Influence};

/// An SKM and its SKP, ready to write.
#[derive(Debug, Clone, PartialEq)]
pub struct Converted {
    /// The mesh file.
    pub skm: SkmBuilder,
    /// The skeleton file.
    pub skp: SkpBuilder,
}

/// Converts a validated DPM; non-orthonormal rotations are reported in `diag`.
///
/// ```
/// use skelmap_core::Parse;
/// use skelmap_core::{Diagnostics, dpm::Dpm, skm::{Skm, Skp, Pair, convert}, synth};
/// let dpm_bytes = synth::tube(&synth::TubeParams::default()).write()?;
/// let dpm = Dpm::parse(&dpm_bytes)?;
/// let converted = convert::from_dpm(&dpm, &mut Diagnostics::new());
/// let (skm_bytes, skp_bytes) = (converted.skm.write()?, converted.skp.write()?);
/// let model = Pair::new(Skm::parse(&skm_bytes)?, Skp::parse(&skp_bytes)?, &[])?;
/// assert_eq!(model.skp().num_frames(), dpm.num_frames());
/// # Ok::<(), skelmap_core::Error>(())
/// ```
#[must_use]
pub fn from_dpm(dpm: &Dpm<'_>, diag: &mut Diagnostics) -> Converted {
    let bones = dpm
        .bones()
        .map(|b| BoneDef {
            name: b.name().to_vec(),
            parent: b.parent().map_or(-1, |p| p as i32),
            flags: b.flags(),
        })
        .collect();
    let frames = dpm
        .frames()
        .map(|frame| {
            let base = u64::try_from(frame.raw().ofs_bonepositions.get()).unwrap_or(0);
            let poses = frame
                .poses()
                .iter()
                .enumerate()
                .map(|(b, pose)| {
                    let (quat, origin, orthonormal) = matrix_to_pose(&pose.matrix());
                    if !orthonormal {
                        diag.warn(
                            Format::Dpm,
                            WarningKind::NonOrthonormal,
                            "bonepose.matrix",
                            base + 48 * b as u64,
                            || {
                                format!(
                                    "bone {b} of frame {:?}: rotation is not orthonormal",
                                    frame.name_lossy()
                                )
                            },
                        );
                    }
                    (quat, origin)
                })
                .collect();
            FrameDef {
                name: frame.name().to_vec(),
                poses,
            }
        })
        .collect();
    let meshes = dpm
        .meshes()
        .map(|mesh| {
            let vertices: Vec<Vec<Influence>> = mesh
                .vertices()
                .map(|records| {
                    records
                        .iter()
                        .map(|r| Influence {
                            bone: r.bonenum(),
                            weight: r.influence(),
                            origin: r.origin(),
                            normal: r.normal(),
                        })
                        .collect()
                })
                .collect();
            let mut references: Vec<u32> = vertices.iter().flatten().map(|i| i.bone).collect();
            references.sort_unstable();
            references.dedup();
            MeshDef {
                shader: mesh.shader_name().to_vec(),
                name: mesh.shader_name().to_vec(),
                vertices,
                texcoords: mesh.texcoords().collect(),
                triangles: mesh.triangles().collect(),
                references,
            }
        })
        .collect();
    Converted {
        skm: SkmBuilder {
            num_bones: dpm.num_bones() as u32,
            meshes,
        },
        skp: SkpBuilder { bones, frames },
    }
}

/// A row-major 3×4 pose as a unit quaternion `(x, y, z, w)`, an origin, and whether the
/// rotation part was a rotation ([`is_rotation`]).
#[must_use]
pub fn matrix_to_pose(m: &Matrix3x4) -> ([f32; 4], [f32; 3], bool) {
    let column = |c: usize| Vec3::new(m[0][c], m[1][c], m[2][c]);
    let rotation = Mat3::from_cols(column(0), column(1), column(2));
    let quat = Quat::from_mat3(&rotation).normalize();
    (quat.to_array(), [m[0][3], m[1][3], m[2][3]], is_rotation(m))
}

/// A quaternion `(x, y, z, w)` (normalised first) and origin as a row-major 3×4 matrix.
#[must_use]
pub fn pose_to_matrix(quat: [f32; 4], origin: [f32; 3]) -> Matrix3x4 {
    let r = Mat3::from_quat(Quat::from_array(quat).normalize());
    core::array::from_fn(|row| [r.col(0)[row], r.col(1)[row], r.col(2)[row], origin[row]])
}
