//! Local poses, their sampling from file frames, and world-space palettes.

use glam::{Affine3A, BVec4A, Quat, Vec3A, Vec4};

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

    /// Every bone's pose in `frame`, in bone order; empty when `frame` is out of range. The
    /// default asks [`bone_pose`](PoseFrames::bone_pose) bone by bone; DPM and SKP walk the
    /// frame's records once.
    fn frame_poses(&self, frame: usize) -> impl Iterator<Item = (Quat, Vec3A)> + '_ {
        let bones = if frame < self.frame_count() {
            self.skeleton_bones().len()
        } else {
            0
        };
        (0..bones).map(move |bone| {
            self.bone_pose(frame, bone)
                .unwrap_or((Quat::IDENTITY, Vec3A::ZERO))
        })
    }
}

/// The rotation (as a quaternion times a positive factor, normalised by the caller; a
/// non-orthonormal rotation, such as old dpmodel's baked scale, loses its scale there) and
/// translation of a DPM 3×4 row-major pose.
///
/// Of the four textbook formulas (one per quaternion component it divides by), the one whose
/// divisor `tᵢ` is largest is selected without branching: the `tᵢ` sum to 4, so the chosen one
/// is at least 1 and the result is accurate for every rotation. Each formula's vector is the
/// quaternion times `2√tᵢ`, so normalising it finishes the conversion: no square root or
/// division here, and no branch to mispredict.
#[inline]
fn dpm_pose(m: [[f32; 4]; 3]) -> (Vec4, Vec3A) {
    let [
        [r00, r01, r02, tx],
        [r10, r11, r12, ty],
        [r20, r21, r22, tz],
    ] = m;
    let t = Vec4::new(
        1.0 + r00 - r11 - r22,
        1.0 - r00 + r11 - r22,
        1.0 - r00 - r11 + r22,
        1.0 + r00 + r11 + r22,
    );
    let (xy, yz, zx) = (r10 + r01, r21 + r12, r02 + r20);
    let (sx, sy, sz) = (r21 - r12, r02 - r20, r10 - r01);
    let by_x = Vec4::new(t.x, xy, zx, sx);
    let by_y = Vec4::new(xy, t.y, yz, sy);
    let by_z = Vec4::new(zx, yz, t.z, sz);
    let by_w = Vec4::new(sx, sy, sz, t.w);
    let pick = |a: (Vec4, f32), b: (Vec4, f32)| {
        let first = a.1 >= b.1;
        (
            Vec4::select(BVec4A::splat(first), a.0, b.0),
            if first { a.1 } else { b.1 },
        )
    };
    let (v, _) = pick(
        pick((by_x, t.x), (by_y, t.y)),
        pick((by_z, t.z), (by_w, t.w)),
    );
    (v, Vec3A::new(tx, ty, tz))
}

impl<'data> PoseFrames<'data> for Dpm<'data> {
    fn frame_count(&self) -> usize {
        self.num_frames() as usize
    }

    /// The 3×4 matrix's rotation as a unit quaternion (a non-orthonormal rotation, such as old
    /// dpmodel's baked scale, loses its scale here) and its translation.
    fn bone_pose(&self, frame: usize, bone: usize) -> Option<(Quat, Vec3A)> {
        let (v, translation) = dpm_pose(self.frame(frame)?.pose(bone)?);
        Some((Quat::from_vec4(v.normalize()), translation))
    }

    fn frame_poses(&self, frame: usize) -> impl Iterator<Item = (Quat, Vec3A)> + '_ {
        let poses = self.frame(frame).map(|f| f.poses()).unwrap_or_default();
        poses.iter().map(|pose| {
            let (v, translation) = dpm_pose(pose.matrix());
            (Quat::from_vec4(v.normalize()), translation)
        })
    }
}

impl<'data> PoseFrames<'data> for Skp<'data> {
    fn frame_count(&self) -> usize {
        self.num_frames() as usize
    }

    fn bone_pose(&self, frame: usize, bone: usize) -> Option<(Quat, Vec3A)> {
        let (q, o) = self.frame(frame)?.pose(bone)?;
        Some(skp_pose(q, o))
    }

    fn frame_poses(&self, frame: usize) -> impl Iterator<Item = (Quat, Vec3A)> + '_ {
        let poses = self.frame(frame).map(|f| f.poses()).unwrap_or_default();
        poses.iter().map(|p| skp_pose(p.quat(), p.origin()))
    }
}

fn skp_pose(q: [f32; 4], o: [f32; 3]) -> (Quat, Vec3A) {
    (Quat::from_array(q).normalize(), Vec3A::from(o))
}

impl<'data> PoseFrames<'data> for SkmModel<'data> {
    fn frame_count(&self) -> usize {
        self.skp().frame_count()
    }

    fn bone_pose(&self, frame: usize, bone: usize) -> Option<(Quat, Vec3A)> {
        self.skp().bone_pose(frame, bone)
    }

    fn frame_poses(&self, frame: usize) -> impl Iterator<Item = (Quat, Vec3A)> + '_ {
        let poses = self
            .skp()
            .frame(frame)
            .map(|f| f.poses())
            .unwrap_or_default();
        poses.iter().map(|p| skp_pose(p.quat(), p.origin()))
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
    out.bones.extend(source.frame_poses(a));
    out.bones
        .resize(source.skeleton_bones().len(), (Quat::IDENTITY, Vec3A::ZERO));
    // A bone missing from frame `b` keeps its pose from `a`.
    let mut poses_b = source.frame_poses(b);
    for chunk in out.bones.chunks_mut(LANES) {
        let mut blended = [Vec4::W; LANES];
        let mut filled = 0;
        for (k, slot) in chunk.iter_mut().enumerate() {
            let Some((qb, tb)) = poses_b.next() else {
                break;
            };
            let (qa, ta) = *slot;
            // q and −q are the same rotation: blend towards the nearer one.
            let qb = if qa.dot(qb) < 0.0 { -qb } else { qb };
            match interpolation {
                Interpolation::Nlerp => blended[k] = Vec4::from(qa).lerp(Vec4::from(qb), t),
                Interpolation::Slerp => slot.0 = qa.slerp(qb, t),
            }
            slot.1 = ta.lerp(tb, t);
            filled = k + 1;
        }
        if interpolation == Interpolation::Nlerp {
            for (slot, q) in chunk.iter_mut().zip(normalize_lanes(blended)).take(filled) {
                slot.0 = Quat::from_vec4(q);
            }
        }
    }
}

/// Quaternions normalised together: four lengths, one vector square root and one vector
/// division, rather than one of each per quaternion.
const LANES: usize = 4;

/// Normalises `LANES` non-zero vectors at once (see [`LANES`]).
#[inline]
fn normalize_lanes(v: [Vec4; LANES]) -> [Vec4; LANES] {
    let lengths = Vec4::new(
        v[0].length_squared(),
        v[1].length_squared(),
        v[2].length_squared(),
        v[3].length_squared(),
    )
    .sqrt();
    let inverse = Vec4::ONE / lengths;
    [
        v[0] * inverse.x,
        v[1] * inverse.y,
        v[2] * inverse.z,
        v[3] * inverse.w,
    ]
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
