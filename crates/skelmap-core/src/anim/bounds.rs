//! Per-frame bounds: stored in DPM frames; computed from skinned vertices for formats that
//! store none (SKM) or when the stored ones are not trusted.

use super::matrices::SkinMatrices;
use super::skin::SkinError;
use super::{Interpolation, LocalPose, Palette, PoseFrames, SimdLevel, sample, skin_stream};
use crate::geometry::SkeletalMesh;

/// An axis-aligned box.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Aabb {
    /// Smallest coordinates.
    pub mins: [f32; 3],
    /// Largest coordinates.
    pub maxs: [f32; 3],
}

impl Aabb {
    /// The box around `points`, or `None` when there are none.
    ///
    /// ```
    /// use skelmap_core::anim::bounds::Aabb;
    /// let b = Aabb::from_points(&[[1.0, -2.0, 0.0], [-1.0, 3.0, 0.5]]).unwrap();
    /// assert_eq!((b.mins, b.maxs), ([-1.0, -2.0, 0.0], [1.0, 3.0, 0.5]));
    /// ```
    #[must_use]
    pub fn from_points(points: &[[f32; 3]]) -> Option<Aabb> {
        let first = *points.first()?;
        Some(points.iter().fold(
            Aabb {
                mins: first,
                maxs: first,
            },
            |b, p| b.union(&Aabb { mins: *p, maxs: *p }),
        ))
    }

    /// The box around both.
    #[must_use]
    pub fn union(&self, other: &Aabb) -> Aabb {
        Aabb {
            mins: core::array::from_fn(|k| self.mins[k].min(other.mins[k])),
            maxs: core::array::from_fn(|k| self.maxs[k].max(other.maxs[k])),
        }
    }

    /// The largest distance from the origin to a corner (DPM's `allradius` is the largest
    /// distance to a vertex, which this bounds from above).
    #[must_use]
    pub fn corner_radius(&self) -> f32 {
        let c: [f32; 3] = core::array::from_fn(|k| self.mins[k].abs().max(self.maxs[k].abs()));
        (c[0] * c[0] + c[1] * c[1] + c[2] * c[2]).sqrt()
    }
}

/// The bounds of every vertex of `meshes` skinned at `frame` of `source` (the stream kernel
/// at the detected level); `None` for meshes without vertices.
///
/// ```
/// use skelmap_core::anim::bounds::skinned_frame_bounds;
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
        let n = mesh.num_verts() as usize;
        positions.resize(n, [0.0; 3]);
        normals.resize(n, [0.0; 3]);
        skin_stream(
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
