//! Local poses, their sampling from file frames, and world-space palettes.

use glam::{Affine3A, Mat3, Quat, Vec3, Vec3A};

use crate::dpm::Dpm;
use crate::skeleton::Skeleton;
use crate::skm::{SkmModel, Skp};

/// How two rotations are blended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Interpolation {
    /// Normalised linear blend along the shorter arc (fast; what engines use per frame).
    #[default]
    Nlerp,
    /// Spherical linear blend along the shorter arc (constant angular speed).
    Slerp,
}

/// A file whose frames give one parent-relative pose per bone.
pub trait PoseFrames<'data>: Skeleton<'data> {
    /// Number of frames.
    fn frame_count(&self) -> usize;

    /// The pose of `bone` in `frame`: rotation and translation relative to the parent, or
    /// `None` out of range.
    fn bone_pose(&self, frame: usize, bone: usize) -> Option<(Quat, Vec3A)>;
}

impl<'data> PoseFrames<'data> for Dpm<'data> {
    fn frame_count(&self) -> usize {
        self.num_frames() as usize
    }

    /// The 3×4 matrix's rotation as a unit quaternion (a non-orthonormal rotation, such as old
    /// dpmodel's baked scale, loses its scale here) and its translation.
    fn bone_pose(&self, frame: usize, bone: usize) -> Option<(Quat, Vec3A)> {
        let m = self.frame(frame)?.pose(bone)?;
        let column = |c: usize| Vec3::new(m[0][c], m[1][c], m[2][c]);
        let rotation =
            Quat::from_mat3(&Mat3::from_cols(column(0), column(1), column(2))).normalize();
        Some((rotation, Vec3A::new(m[0][3], m[1][3], m[2][3])))
    }
}

impl<'data> PoseFrames<'data> for Skp<'data> {
    fn frame_count(&self) -> usize {
        self.num_frames() as usize
    }

    fn bone_pose(&self, frame: usize, bone: usize) -> Option<(Quat, Vec3A)> {
        let (q, o) = self.frame(frame)?.pose(bone)?;
        Some((Quat::from_array(q).normalize(), Vec3A::from(o)))
    }
}

impl<'data> PoseFrames<'data> for SkmModel<'data> {
    fn frame_count(&self) -> usize {
        self.skp().frame_count()
    }

    fn bone_pose(&self, frame: usize, bone: usize) -> Option<(Quat, Vec3A)> {
        self.skp().bone_pose(frame, bone)
    }
}

/// One parent-relative rotation and translation per bone.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LocalPose {
    /// Per bone `(rotation, translation)`.
    pub bones: Vec<(Quat, Vec3A)>,
}

/// Blends frames `a` and `b` of `source` at `t` (0 = `a`, 1 = `b`) into `out`, reusing its
/// allocation: rotations along the shorter arc by `interpolation`, translations linearly.
/// Frames out of range are clamped to the last frame.
pub fn sample<'data, S: PoseFrames<'data>>(
    source: &S,
    a: usize,
    b: usize,
    t: f32,
    interpolation: Interpolation,
    out: &mut LocalPose,
) {
    let last = source.frame_count().saturating_sub(1);
    let (a, b) = (a.min(last), b.min(last));
    out.bones.clear();
    for bone in 0..source.skeleton_bones().len() {
        let (qa, ta) = source
            .bone_pose(a, bone)
            .unwrap_or((Quat::IDENTITY, Vec3A::ZERO));
        let (qb, tb) = source.bone_pose(b, bone).unwrap_or((qa, ta));
        // q and −q are the same rotation: blend towards the nearer one.
        let qb = if qa.dot(qb) < 0.0 { -qb } else { qb };
        let rotation = match interpolation {
            Interpolation::Nlerp => qa.lerp(qb, t).normalize(),
            Interpolation::Slerp => qa.slerp(qb, t),
        };
        out.bones.push((rotation, ta.lerp(tb, t)));
    }
}

/// World transforms of every bone, built from a local pose in one forward pass.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Palette {
    /// Per bone, its transform to model space.
    pub world: Vec<Affine3A>,
}

impl Palette {
    /// Concatenates `pose` down the hierarchy of `skeleton`, reusing the palette's
    /// allocation: one forward pass in file order when parents precede children (DPM, SKP,
    /// SL), otherwise in the skeleton's [`hierarchy_order`](Skeleton::hierarchy_order)
    /// (MS3D, which also builds a parent table of one entry per bone).
    pub fn build<'data>(&mut self, skeleton: &impl Skeleton<'data>, pose: &LocalPose) {
        self.world.clear();
        let local = |i: usize| {
            let (q, t) = pose
                .bones
                .get(i)
                .copied()
                .unwrap_or((Quat::IDENTITY, Vec3A::ZERO));
            Affine3A::from_rotation_translation(q, t.into())
        };
        let Some(order) = skeleton.hierarchy_order() else {
            for (i, bone) in skeleton.skeleton_bones().enumerate() {
                let world = match bone.parent().and_then(|p| self.world.get(p)) {
                    Some(parent) => *parent * local(i),
                    None => local(i),
                };
                self.world.push(world);
            }
            return;
        };
        let parents: Vec<Option<usize>> = skeleton.skeleton_bones().map(|b| b.parent()).collect();
        self.world.extend((0..parents.len()).map(local));
        for &j in order {
            let j = usize::from(j);
            let parent = parents.get(j).copied().flatten();
            if let Some(parent) = parent.and_then(|p| self.world.get(p)).copied()
                && let Some(slot) = self.world.get_mut(j)
            {
                *slot = parent * *slot;
            }
        }
    }

    /// Per bone `self · bind⁻¹`: the transform that moves a vertex stored in the pose of
    /// `bind` (an MS3D rest pose, an SL first keyframe) to this pose, written into `out`
    /// (cleared first). Bones missing from either palette are left out.
    pub fn relative_to(&self, bind: &Palette, out: &mut Vec<Affine3A>) {
        out.clear();
        out.extend(
            self.world
                .iter()
                .zip(&bind.world)
                .map(|(now, rest)| *now * rest.inverse()),
        );
    }

    /// The world transform of `bone` (for attachments), or `None` out of range.
    #[must_use]
    pub fn bone_world(&self, bone: usize) -> Option<Affine3A> {
        self.world.get(bone).copied()
    }
}
