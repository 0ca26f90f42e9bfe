//! The trait a format implements to be sampled: frames of parent-relative bone poses.

use glam::{Quat, Vec3A};

use super::{Skeleton, SoaPose};

/// A file whose frames give one parent-relative pose per bone.
pub trait PoseFrames<'data>: Skeleton<'data> {
    /// Number of frames.
    fn num_frames(&self) -> usize;

    /// The pose of `bone` in `frame`: rotation and translation relative to the parent, or
    /// `None` out of range.
    fn bone_pose(&self, frame: usize, bone: usize) -> Option<(Quat, Vec3A)>;

    /// Every bone's pose in `frame`, in bone order; empty when `frame` is out of range. The
    /// default asks [`bone_pose`](PoseFrames::bone_pose) bone by bone; DPM and SKP walk the
    /// frame's records once.
    fn frame_poses(&self, frame: usize) -> impl Iterator<Item = (Quat, Vec3A)> + '_ {
        let bones = if frame < self.num_frames() {
            self.skeleton_bones().len()
        } else {
            0
        };
        (0..bones).map(move |bone| {
            self.bone_pose(frame, bone)
                .unwrap_or((Quat::IDENTITY, Vec3A::ZERO))
        })
    }

    /// Appends [`frame_poses`](PoseFrames::frame_poses)`(frame)` to `out`. The default extends
    /// from the iterator; DPM converts 16 matrices at a time with AVX-512 where it can.
    fn frame_poses_into(&self, frame: usize, out: &mut Vec<(Quat, Vec3A)>) {
        out.extend(self.frame_poses(frame));
    }

    /// Appends frame `a`'s poses to `out_a` and frame `b`'s to `out_b`, exactly as two calls
    /// of [`frame_poses_into`](PoseFrames::frame_poses_into) would (what
    /// [`sample`](crate::pose::sample) blends when the format has no
    /// [`nlerp_frames_into`](PoseFrames::nlerp_frames_into)). The default makes those two
    /// calls; Half-Life walks each channel's run-length runs once for both frames.
    fn frame_pair_poses_into(
        &self,
        a: usize,
        b: usize,
        out_a: &mut Vec<(Quat, Vec3A)>,
        out_b: &mut Vec<(Quat, Vec3A)>,
    ) {
        self.frame_poses_into(a, out_a);
        self.frame_poses_into(b, out_b);
    }

    /// Appends the poses of frames `first`, `first + 1`, … to `out`, one frame after another
    /// and each as [`frame_poses_into`](PoseFrames::frame_poses_into) gives it, bit for bit:
    /// at most `max`, none past the last frame, as many as the format decodes together for
    /// little more than one. Returns how many (0 when `first` is out of range or `max` is
    /// 0). The default decodes one; Half-Life decodes at least two and as many as fill the
    /// sixteen lanes its angles are converted in, within one sequence: what a
    /// [`Sampler`](crate::pose::Sampler) playing forward asks for next.
    fn frame_run_poses_into(
        &self,
        first: usize,
        max: usize,
        out: &mut Vec<(Quat, Vec3A)>,
    ) -> usize {
        if max == 0 || first >= self.num_frames() {
            return 0;
        }
        self.frame_poses_into(first, out);
        1
    }

    /// `true` when some frame scales a bone (IQM, MDR): [`sample`](crate::pose::sample) then fills
    /// [`LocalPose::scales`](crate::pose::LocalPose::scales) from
    /// [`frame_scales_into`](PoseFrames::frame_scales_into). `false` (the default) for formats
    /// without scale, whose poses keep `scales` empty and cost nothing for it.
    fn has_scale(&self) -> bool {
        false
    }

    /// Appends every bone's scale in `frame` to `out`, in bone order (nothing by default).
    fn frame_scales_into(&self, frame: usize, out: &mut Vec<Vec3A>) {
        let _ = (frame, out);
    }

    /// `true` when some frame scales a bone's own vertices without passing the scale to its
    /// children (MD5 with the Quake II remaster's `.md5scale`): [`sample`](crate::pose::sample)
    /// then fills [`LocalPose::skin_scales`](crate::pose::LocalPose::skin_scales) from
    /// [`frame_skin_scales_into`](PoseFrames::frame_skin_scales_into). `false` by default.
    fn has_skin_scale(&self) -> bool {
        false
    }

    /// Appends every bone's skin scale in `frame` to `out`, in bone order (nothing by
    /// default).
    fn frame_skin_scales_into(&self, frame: usize, out: &mut Vec<f32>) {
        let _ = (frame, out);
    }

    /// For formats with scale: [`nlerp_frames_into`](PoseFrames::nlerp_frames_into), and the
    /// scales of both frames blended linearly into `scales` (cleared first) in the same pass,
    /// exactly as [`sample`](crate::pose::sample) blends those of
    /// [`frame_scales_into`](PoseFrames::frame_scales_into). Returns `false`, with both
    /// untouched, when the format has no such pass (the default); IQM decodes each pose's
    /// channels once for all three.
    fn nlerp_frames_scaled_into(
        &self,
        a: usize,
        b: usize,
        t: f32,
        out: &mut Vec<(Quat, Vec3A)>,
        scales: &mut Vec<Vec3A>,
    ) -> bool {
        let _ = (a, b, t, out, scales);
        false
    }

    /// Blends frames `a` and `b` (both in range) at `t` into `out`, cleared first, exactly as
    /// [`sample`](crate::pose::sample) blends the poses of
    /// [`frame_poses_into`](PoseFrames::frame_poses_into) with
    /// [`Nlerp`](crate::pose::Interpolation::Nlerp), bit for bit, but without an intermediate
    /// frame. Returns `false`, with `out` untouched, when the format has no faster way (the
    /// default). DPM converts and blends both frames in one pass, 16 bones at a time with
    /// AVX-512 where the CPU has it (8 with AVX2). A format whose engine blends frames by a rule of its own
    /// gives that rule here instead (ET's MDX: angles and offset directions lerped, not
    /// poses), which every sampler then follows; [`BakedFrames`](crate::pose::BakedFrames)
    /// of it hold the frames as poses and blend those.
    fn nlerp_frames_into(&self, a: usize, b: usize, t: f32, out: &mut Vec<(Quat, Vec3A)>) -> bool {
        let _ = (a, b, t, out);
        false
    }

    /// [`nlerp_frames_into`](PoseFrames::nlerp_frames_into) into a [`SoaPose`], resized to
    /// the frames' poses: the same poses, bit for bit, written in its layout as they are
    /// computed. Returns `false`, with `out` untouched, when the format has no such pass (the
    /// default; [`sample_soa`](crate::pose::sample_soa) then copies a [`LocalPose`] in).
    ///
    /// [`LocalPose`]: crate::pose::LocalPose
    fn nlerp_frames_soa_into(&self, a: usize, b: usize, t: f32, out: &mut SoaPose) -> bool {
        let _ = (a, b, t, out);
        false
    }
}
