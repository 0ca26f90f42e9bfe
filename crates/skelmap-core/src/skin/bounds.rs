//! Bounds computed from skinned vertices, for formats that store none (SKM) or when the
//! stored ones are not trusted.

use super::{SimdLevel, SkinError, SkinMatrices};
use crate::pose::bounds::Aabb;
use crate::pose::{Interpolation, LocalPose, Palette, PoseFrames, SkeletalMesh, sample};

/// The bounds of every vertex of `meshes` skinned at `frame` of `source` (the stream kernel
/// at the detected level); `None` for meshes without vertices.
///
/// ```
/// use skelmap_core::Parse;
/// use skelmap_core::skin::skinned_frame_bounds;
/// use skelmap_core::{dpm::Dpm, synth};
/// let bytes = synth::tube(&synth::TubeParams::default()).write()?;
/// let model = Dpm::parse(&bytes)?;
/// let computed = skinned_frame_bounds(&model, model.meshes(), 3)?.expect("vertices");
/// let stored = model.frame(3).expect("frame 3");
/// assert!((computed.maxs[2] - stored.maxs()[2]).abs() < 1e-4);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
///
/// [`SkinError::Palette`] when a mesh uses a bone the skeleton lacks (impossible for meshes
/// of the same validated model).
pub fn skinned_frame_bounds<'data, S, M>(
    source: &S,
    meshes: impl Iterator<Item = M>,
    frame: usize,
) -> Result<Option<Aabb>, SkinError>
where
    S: PoseFrames<'data>,
    M: SkeletalMesh<'data>,
{
    let (mut pose, mut palette) = (LocalPose::default(), Palette::default());
    sample(source, frame, frame, 0.0, Interpolation::Nlerp, &mut pose);
    palette.build(source, &pose);
    let matrices = SkinMatrices::from_palette(&palette);
    let mut bounds: Option<Aabb> = None;
    let (mut positions, mut normals) = (Vec::new(), Vec::new());
    for mesh in meshes {
        let n = mesh.num_vertices();
        positions.resize(n, [0.0; 3]);
        normals.resize(n, [0.0; 3]);
        super::stream(
            &mesh,
            &matrices,
            SimdLevel::detect(),
            &mut positions,
            &mut normals,
        )?;
        if let Some(b) = Aabb::from_points(&positions[..n]) {
            bounds = Some(bounds.map_or(b, |a| a.union(&b)));
        }
    }
    Ok(bounds)
}
