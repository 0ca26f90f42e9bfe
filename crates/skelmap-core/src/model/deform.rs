//! Posing and deforming: [`Model::pose`] samples two frames into a [`Pose`] (bone transforms
//! for skeletal formats, the frame pair for vertex-animated ones), and [`Model::deform`]
//! writes a mesh's positions and normals into caller buffers with the kernel the format
//! needs:
//!
//! - pre-weighted records (DPM, SKM straight from the file, zero-copy; MD5's decoded at open;
//!   MDR's and MDM's laid out on first use): the stream kernel at the best instruction set
//!   the CPU has;
//! - bind-pose meshes (IQM, PSK, ZYM, Half-Life, MDL7, MS3D, SL): the bind-pose linear blend
//!   by `world(t) · world(bind)⁻¹`;
//! - vertex-animated formats (Quake MDL, GameStudio MDL, MD2, MD3, MDC): the morph kernel
//!   tweening two frames; HMP terrains: their own tween.
//!
//! [`Model::prepare`] and [`Model::compact`] (in `prepared.rs`) are the explicit copies after
//! which one SIMD kernel skins every skeletal format.

use glam::Affine3A;

use super::Model;
use super::any::with_view;
use crate::pose::framegroups::FrameGroup;
use crate::pose::{BakeError, BakedFrames, Interpolation, LocalPose, Root, SoaPose};
use crate::skin::{self, Records, SimdLevel, SkinError, WeightedRecords};
use crate::view::{DeformError, ModelView, Pose, Sampled};

impl Model<'_> {
    /// Samples frames `a` and `b` blended at `t` into `pose` (see [`Model::sample`]) and
    /// builds what deforming needs: world transforms and their kernel layouts for skeletal
    /// formats, the frame pair for vertex-animated ones.
    ///
    /// # Errors
    ///
    /// [`DeformError::NoFrame`] for a frame at or past [`Model::num_frames`],
    /// [`DeformError::Blend`] for a `t` that is not finite. On failure `pose` is left
    /// unsampled.
    pub fn pose(
        &self,
        a: usize,
        b: usize,
        t: f32,
        interpolation: Interpolation,
        pose: &mut Pose,
    ) -> Result<(), DeformError> {
        pose.restamp();
        pose.sampled = Sampled::Nothing;
        self.check_frames((a, b, t))?;
        if self.is_vertex_animated() {
            pose.local.bones.clear();
            pose.local.scales.clear();
            pose.local.skin_scales.clear();
            pose.palette.world.clear();
            pose.sampled = Sampled::Frames { a, b, t };
            return Ok(());
        }
        self.sample(a, b, t, interpolation, &mut pose.local);
        self.finish_pose(pose);
        self.sample_frame_vertices(a, b, t, pose);
        Ok(())
    }

    /// Samples clip `clip` `seconds` after its start into `pose`, as a game plays it: frame
    /// `seconds · fps` of the clip blended with the next, wrapping from the clip's last frame
    /// to its first when `looped`, held at its ends otherwise. An MS3D, keyed in seconds, is
    /// evaluated at exactly `clip.first / fps + seconds` (wrapped over the clip's `count / fps`
    /// seconds, or clamped to them), so `seconds = 0` reaches its keys at time 0. That puts
    /// frame `f` of its timeline at `f / fps`, one frame earlier than [`Model::pose`]'s
    /// `(f + 1) / fps` (MilkShape's numbering from 1), and a looped MS3D clip jumps from its
    /// end to its start rather than blending the two.
    ///
    /// ```
    /// use skelmap_core::Model;
    /// use skelmap_core::model::Pose;
    /// use skelmap_core::pose::Interpolation;
    ///
    /// use skelmap_core::pose::framegroups::FrameGroup;
    ///
    /// let bytes = skelmap_core::synth::tube(&Default::default()).write()?; // 9 frames
    /// let model = Model::from_bytes(&bytes)?;
    /// let clip = FrameGroup { name: "all".into(), first: 0, count: 9, fps: 10.0, looped: true };
    /// let (mut by_time, mut by_frames) = (Pose::default(), Pose::default());
    /// // 0.25 s is frame 2.5; 0.875 s is frame 8.75, from the last frame back to the first.
    /// for (seconds, a, b, t) in [(0.25, 2, 3, 0.5), (0.875, 8, 0, 0.75)] {
    ///     model.pose_clip(&clip, seconds, true, Interpolation::Nlerp, &mut by_time)?;
    ///     model.pose(a, b, t, Interpolation::Nlerp, &mut by_frames)?;
    ///     assert_eq!(by_time.palette().world, by_frames.palette().world);
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`DeformError::Time`] for a time that is not finite, [`DeformError::Clip`] for a clip
    /// outside the model's frames or with a rate that is not positive. On failure `pose` is
    /// left unsampled.
    pub fn pose_clip(
        &self,
        clip: &FrameGroup,
        seconds: f32,
        looped: bool,
        interpolation: Interpolation,
        pose: &mut Pose,
    ) -> Result<(), DeformError> {
        pose.restamp();
        pose.sampled = Sampled::Nothing;
        let at = self.clip_at(clip, seconds, looped)?;
        if with_view!(self.view(), v => v.sample_seconds(at.seconds, interpolation, &mut pose.local))
        {
            self.finish_pose(pose);
            return Ok(());
        }
        self.pose(at.a, at.b, at.t, interpolation, pose)
    }

    /// Samples clip `clip` `seconds` after its start into `out`, as [`Model::pose_clip`]
    /// times it, without building world transforms: the parent-relative pose a blend
    /// ([`pose::blend`](crate::pose::blend)) takes as a layer. Empty for models without
    /// bones.
    ///
    /// ```
    /// use skelmap_core::Model;
    /// use skelmap_core::model::Pose;
    /// use skelmap_core::pose::{Interpolation, LocalPose};
    /// use skelmap_core::pose::framegroups::FrameGroup;
    ///
    /// let bytes = skelmap_core::synth::tube(&Default::default()).write()?; // 9 frames
    /// let model = Model::from_bytes(&bytes)?;
    /// let clip = FrameGroup { name: "all".into(), first: 0, count: 9, fps: 10.0, looped: true };
    /// let (mut local, mut pose) = (LocalPose::default(), Pose::default());
    /// model.sample_clip(&clip, 0.25, true, Interpolation::Nlerp, &mut local)?;
    /// model.pose_clip(&clip, 0.25, true, Interpolation::Nlerp, &mut pose)?;
    /// assert_eq!(&local, pose.local());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`Model::pose_clip`]; on failure `out` is left as it was.
    pub fn sample_clip(
        &self,
        clip: &FrameGroup,
        seconds: f32,
        looped: bool,
        interpolation: Interpolation,
        out: &mut LocalPose,
    ) -> Result<(), DeformError> {
        let at = self.clip_at(clip, seconds, looped)?;
        out.skin_scales.clear();
        if !with_view!(self.view(), v => v.sample_seconds(at.seconds, interpolation, out)) {
            self.sample(at.a, at.b, at.t, interpolation, out);
        }
        Ok(())
    }

    /// [`Model::sample_clip`] into a [`SoaPose`] (see [`Model::sample_soa`]): a blend layer
    /// for [`Blender::blend_soa`](crate::pose::blend::Blender::blend_soa), the same poses bit
    /// for bit.
    ///
    /// # Errors
    ///
    /// As [`Model::pose_clip`]; on failure `out` is left as it was.
    pub fn sample_clip_soa(
        &self,
        clip: &FrameGroup,
        seconds: f32,
        looped: bool,
        interpolation: Interpolation,
        out: &mut SoaPose,
    ) -> Result<(), DeformError> {
        let at = self.clip_at(clip, seconds, looped)?;
        let keyed = out.fill_from(|local| {
            with_view!(self.view(), v => v.sample_seconds(at.seconds, interpolation, local))
        });
        if !keyed {
            self.sample_soa(at.a, at.b, at.t, interpolation, out);
        }
        Ok(())
    }

    /// Poses the model by `local`, a parent-relative pose of its bones built by the caller
    /// (a blend, layers, procedural bones, IK), into `pose`, as [`Model::pose`] does from
    /// frames: world transforms and the kernels' layouts, reusing `pose`'s allocations. A
    /// model whose frames replace vertices (MDL7) keeps its stored vertices in such a pose.
    ///
    /// ```
    /// use skelmap_core::Model;
    /// use skelmap_core::model::Pose;
    /// use skelmap_core::pose::{Interpolation, LocalPose};
    ///
    /// let bytes = skelmap_core::synth::tube(&Default::default()).write()?;
    /// let model = Model::from_bytes(&bytes)?;
    /// let (mut local, mut by_local, mut by_frames) = (LocalPose::default(), Pose::default(), Pose::default());
    /// model.sample(3, 4, 0.5, Interpolation::Nlerp, &mut local);
    /// model.pose_local(&local, &mut by_local)?;
    /// model.pose(3, 4, 0.5, Interpolation::Nlerp, &mut by_frames)?;
    /// assert_eq!(by_local.palette().world, by_frames.palette().world);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`DeformError::WrongPose`] for a vertex-animated model, [`DeformError::PoseBones`] when
    /// `local` holds another number of bones than the model.
    /// On failure `pose` is left unsampled.
    pub fn pose_local(&self, local: &LocalPose, pose: &mut Pose) -> Result<(), DeformError> {
        pose.restamp();
        pose.sampled = Sampled::Nothing;
        self.check_local(local)?;
        pose.local.bones.clone_from(&local.bones);
        pose.local.scales.clone_from(&local.scales);
        pose.local.skin_scales.clone_from(&local.skin_scales);
        self.finish_pose(pose);
        Ok(())
    }

    /// [`Model::pose_local`] for a `local` that differs from the pose `pose` holds only in
    /// bone `from` and the bones below it (a bone set or turned by hand, an IK correction):
    /// world transforms are rebuilt for `from` and its descendants only, the others kept
    /// (ozz-animation's `LocalToModelJob` from a joint); then the kernels' layouts are
    /// refreshed. The result equals `pose_local(local)`'s when that holds. It allocates
    /// nothing.
    ///
    /// ```
    /// use skelmap_core::Model;
    /// use skelmap_core::glam::Quat;
    /// use skelmap_core::model::Pose;
    /// use skelmap_core::pose::{Interpolation, LocalPose};
    ///
    /// let bytes = skelmap_core::synth::tube(&Default::default()).write()?;
    /// let model = Model::from_bytes(&bytes)?;
    /// let (mut local, mut pose, mut full) = (LocalPose::default(), Pose::default(), Pose::default());
    /// model.sample(3, 4, 0.5, Interpolation::Nlerp, &mut local);
    /// model.pose_local(&local, &mut pose)?;
    /// // Bend bone 2, then rebuild it and what hangs from it.
    /// local.bones[2].0 = Quat::from_rotation_x(0.4) * local.bones[2].0;
    /// model.pose_local_from(&local, 2, &mut pose)?;
    /// model.pose_local(&local, &mut full)?;
    /// assert_eq!(pose.palette().world, full.palette().world);
    /// assert_eq!(pose.matrices(), full.matrices());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`Model::pose_local`], [`DeformError::NoBone`] for `from` past the bones, and
    /// [`DeformError::NotSampled`] when `pose` holds no bone pose of this model to keep (pose
    /// it whole first). On failure `pose` is left as it was.
    pub fn pose_local_from(
        &self,
        local: &LocalPose,
        from: usize,
        pose: &mut Pose,
    ) -> Result<(), DeformError> {
        self.check_local(local)?;
        let bones = self.num_bones();
        if from >= bones {
            return Err(DeformError::NoBone { bone: from, bones });
        }
        if pose.sampled != Sampled::Bones || pose.palette.world.len() != bones {
            return Err(DeformError::NotSampled);
        }
        pose.restamp();
        pose.local.bones.clone_from(&local.bones);
        pose.local.scales.clone_from(&local.scales);
        pose.local.skin_scales.clone_from(&local.skin_scales);
        with_view!(self.view(), v => pose.palette.build_from(v, &pose.local, from, Root::Rebuilt));
        self.finish_layouts(pose);
        Ok(())
    }

    /// Turns the torso of a sampled `pose` by the entity's torso rotation `axis`, as Enemy
    /// Territory does for an MDM/MDX character whose upper body aims apart from its legs
    /// ([`Mdx::turn_torso`](crate::mdm::Mdx::turn_torso): each bone of positive torso weight
    /// `w` turned about the torso parent by `w · axis + (1 − w) · I`), then refreshes the
    /// kernels' layouts, so that deforming, the GPU palette and attachments all follow. A
    /// model without torso weights (every other format) is left as it is. Posing again starts
    /// from the pose's parent-relative poses, without the turn: turn after each pose. The
    /// weights are the skeleton's (an animation group's first file's; its other files may
    /// differ only in their bones' distances, which placing the frames used).
    ///
    /// ```
    /// use skelmap_core::Model;
    /// use skelmap_core::glam::Mat3;
    /// use skelmap_core::mdm::write::Builder;
    /// use skelmap_core::model::Pose;
    /// use skelmap_core::pose::Interpolation;
    /// let dir = std::env::temp_dir().join("skelmap-turn-torso-doctest");
    /// std::fs::create_dir_all(&dir)?;
    /// let (mdm, mdx) = Builder::triangle().write(); // bone 1 is half torso
    /// std::fs::write(dir.join("triangle.mdm"), &mdm)?;
    /// std::fs::write(dir.join("triangle.mdx"), &mdx)?;
    /// let model = Model::open(dir.join("triangle.mdm"))?;
    /// let (mut pose, mut turned) = (Pose::default(), Pose::default());
    /// model.pose(1, 1, 0.0, Interpolation::Nlerp, &mut pose)?;
    /// model.pose(1, 1, 0.0, Interpolation::Nlerp, &mut turned)?;
    /// model.turn_torso(Mat3::from_rotation_z(0.5), &mut turned)?;
    /// assert_eq!(turned.palette().world[0], pose.palette().world[0]);
    /// assert_ne!(turned.palette().world[1], pose.palette().world[1]);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`DeformError::NotSampled`] when `pose` holds no bone pose of this model (pose it
    /// first); `pose` is then left as it was.
    pub fn turn_torso(&self, axis: glam::Mat3, pose: &mut Pose) -> Result<(), DeformError> {
        pose.restamp();
        let Some(mdx) = self.torso_skeleton(0) else {
            return Ok(());
        };
        if pose.sampled != Sampled::Bones || pose.palette.world.len() != self.num_bones() {
            return Err(DeformError::NotSampled);
        }
        mdx.turn_torso(&mut pose.palette.world, axis);
        self.finish_layouts(pose);
        Ok(())
    }

    /// Poses an Enemy Territory character with its legs between one pair of frames and its
    /// torso between another, as ET draws a player whose upper body plays its own animation
    /// ([`Mdx::legs_torso_poses_into`](crate::mdm::Mdx::legs_torso_poses_into)): `legs` and
    /// `torso` are each `(a, b, t)` as [`Model::pose`] takes them (ET's `oldframe`, `frame`,
    /// `1 − backlerp` and `oldTorsoFrame`, `torsoFrame`, `1 − torsoBacklerp`). Bones of torso
    /// weight 0 follow the legs, of weight 1 the torso, others the legs pulled towards the
    /// torso by their weight. With the same pair twice it is `pose` with
    /// [`Interpolation::Nlerp`]. A model without torso weights (every other format) follows
    /// its legs: `pose` of the legs' pair, the torso's checked and unused. Turn the torso by
    /// the entity's torso axis afterwards with [`Model::turn_torso`].
    ///
    /// ```
    /// use skelmap_core::Model;
    /// use skelmap_core::mdm::write::Builder;
    /// use skelmap_core::model::Pose;
    /// use skelmap_core::pose::Interpolation;
    /// let dir = std::env::temp_dir().join("skelmap-legs-torso-doctest");
    /// std::fs::create_dir_all(&dir)?;
    /// let (mdm, mdx) = Builder::triangle().write(); // bone 0 legs, bone 1 half torso
    /// std::fs::write(dir.join("triangle.mdm"), &mdm)?;
    /// std::fs::write(dir.join("triangle.mdx"), &mdx)?;
    /// let model = Model::open(dir.join("triangle.mdm"))?;
    /// let (mut split, mut legs) = (Pose::default(), Pose::default());
    /// model.pose_legs_torso((0, 1, 0.5), (2, 2, 0.0), &mut split)?;
    /// model.pose(0, 1, 0.5, Interpolation::Nlerp, &mut legs)?;
    /// assert_eq!(split.palette().world[0], legs.palette().world[0]);
    /// assert_ne!(split.palette().world[1], legs.palette().world[1]);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`Model::pose`], for either pair. On failure `pose` is left unsampled.
    pub fn pose_legs_torso(
        &self,
        legs: (usize, usize, f32),
        torso: (usize, usize, f32),
        pose: &mut Pose,
    ) -> Result<(), DeformError> {
        pose.restamp();
        pose.sampled = Sampled::Nothing;
        self.check_frames(legs)?;
        self.check_frames(torso)?;
        let Some(mdx) = self.torso_skeleton(legs.1) else {
            return self.pose(legs.0, legs.1, legs.2, Interpolation::Nlerp, pose);
        };
        let frames = self.num_frames();
        let local = &mut pose.local;
        local.scales.clear();
        local.skin_scales.clear();
        if !mdx.legs_torso_poses_into(legs, torso, &mut local.bones) {
            // Both pairs are within the frames the MDX holds.
            return Err(DeformError::NoFrame {
                frame: frames,
                frames,
            });
        }
        self.finish_pose(pose);
        Ok(())
    }

    /// That a pair of frames `(a, b, t)` can be sampled: `t` finite, both frames in range.
    fn check_frames(&self, (a, b, t): (usize, usize, f32)) -> Result<(), DeformError> {
        if !t.is_finite() {
            return Err(DeformError::Blend(t));
        }
        let frames = self.num_frames();
        if let Some(&frame) = [a, b].iter().find(|&&f| f >= frames) {
            return Err(DeformError::NoFrame { frame, frames });
        }
        Ok(())
    }

    /// The skeleton whose bones carry torso weights, placing frame `frame`: an MDM pair's
    /// animation file of that frame (ET takes the bone records of the legs' new frame's
    /// model), or an MDX alone.
    fn torso_skeleton(&self, frame: usize) -> Option<&crate::mdm::Mdx<'_>> {
        match (self.as_mdm(), self.as_mdx()) {
            (Some(pair), _) => Some(pair.animation_file(frame)),
            (None, mdx) => mdx.map(crate::mdm::MdxFile::mdx),
        }
    }

    /// That `local` can pose this model: the model has bones, and `local` as many.
    fn check_local(&self, local: &LocalPose) -> Result<(), DeformError> {
        if self.is_vertex_animated() {
            return Err(DeformError::WrongPose {
                found: "bones",
                format: self.format(),
            });
        }
        let bones = self.num_bones();
        if local.bones.len() != bones {
            return Err(DeformError::PoseBones {
                found: local.bones.len(),
                bones,
            });
        }
        Ok(())
    }

    /// Where clip `clip` is `seconds` after its start: the timeline's seconds, and the frame
    /// pair with its blend factor.
    pub(super) fn clip_at(
        &self,
        clip: &FrameGroup,
        seconds: f32,
        looped: bool,
    ) -> Result<ClipAt, DeformError> {
        if !seconds.is_finite() {
            return Err(DeformError::Time(seconds));
        }
        let frames = self.num_frames();
        let end = u64::from(clip.first) + u64::from(clip.count);
        if clip.count == 0 || end > frames as u64 || !(clip.fps.is_finite() && clip.fps > 0.0) {
            return Err(DeformError::Clip {
                first: clip.first,
                end,
                fps: clip.fps,
                frames,
            });
        }
        let count = clip.count as f32;
        let length = count / clip.fps;
        let local = if looped {
            seconds.rem_euclid(length)
        } else {
            seconds.clamp(0.0, length)
        };
        // In f64: a large time at a high rate stays finite.
        let at = f64::from(seconds) * f64::from(clip.fps);
        let at = if looped {
            at.rem_euclid(f64::from(count))
        } else {
            at.clamp(0.0, f64::from(count) - 1.0)
        };
        // `at` lies in 0..count, so the index fits the clip (`min` guards rounding at the top).
        let i = (at.floor() as u32).min(clip.count - 1);
        let t = (at - f64::from(i)) as f32;
        let next = match i + 1 {
            n if n < clip.count => n,
            _ if looped => 0,
            _ => i,
        };
        Ok(ClipAt {
            seconds: clip.first as f32 / clip.fps + local,
            a: (clip.first + i) as usize,
            b: (clip.first + next) as usize,
            t: t.clamp(0.0, 1.0),
        })
    }

    /// The bind pose into `pose` ([`Model::bind_pose`]): the stored rest pose of IQM, MD5,
    /// PSK, Half-Life, MDL7 and MS3D; frame 0 for the other skeletal formats and for
    /// vertex-animated models; SL keyframe 0. Deforming with it gives the mesh as stored
    /// (bind-pose formats) or as frame 0 poses it.
    ///
    /// On a bind-posed model the pose's palette is [`Model::bind_palette`], bit for bit, and
    /// each bone's transform relative to the bind pose is the identity, exactly.
    pub fn pose_bind(&self, pose: &mut Pose) {
        pose.restamp();
        if self.is_vertex_animated() {
            pose.local.bones.clear();
            pose.local.scales.clear();
            pose.local.skin_scales.clear();
            pose.palette.world.clear();
            pose.sampled = Sampled::Frames { a: 0, b: 0, t: 0.0 };
            return;
        }
        self.bind_pose(&mut pose.local);
        if !self.is_bind_posed() {
            self.finish_pose(pose);
            return;
        }
        // The bind palette is kept (made from the local pose just read when it is not yet).
        // With skin scales, the layouts are made as for any pose; without, the palette's
        // transforms relative to themselves are exactly the identity: neither is computed
        // again, nor are the inverses (a model opened to be drawn once in its bind pose never
        // needs them).
        pose.frame_vertices.clear();
        let bind = self.bind_palette_of(&pose.local);
        pose.palette.world.clone_from(&bind.world);
        if pose.local.skin_scales.iter().any(|&s| s != 1.0) {
            self.finish_layouts(pose);
            return;
        }
        copy_with_room(&pose.palette.world, &mut pose.extended.world);
        pose.relative.clear();
        pose.relative
            .resize(pose.palette.world.len(), Affine3A::IDENTITY);
        pose.extended.world.push(Affine3A::IDENTITY);
        pose.matrices.update(&pose.extended);
        pose.sampled = Sampled::Bones;
    }

    /// World transforms, kernel layouts and (bind-pose formats) relative transforms of
    /// `pose.local`.
    fn finish_pose(&self, pose: &mut Pose) {
        pose.frame_vertices.clear();
        self.palette(&pose.local, &mut pose.palette);
        self.finish_layouts(pose);
    }

    /// The kernels' layouts of a pose whose palette is built.
    fn finish_layouts(&self, pose: &mut Pose) {
        // Skin scales move vertices, not bones: a scaled copy of the palette skins.
        let scaled = pose.local.skin_scales.iter().any(|&s| s != 1.0);
        if scaled || self.is_bind_posed() {
            copy_with_room(&pose.palette.world, &mut pose.extended.world);
            pose.extended.apply_skin_scales(&pose.local.skin_scales);
        }
        if self.is_bind_posed() {
            let inverse = self.bind_inverse().iter().copied();
            pose.extended.relative_by(inverse, &mut pose.relative);
            pose.extended.world.push(Affine3A::IDENTITY);
            pose.matrices.update(&pose.extended);
        } else if scaled {
            pose.relative.clear();
            pose.matrices.update(&pose.extended);
        } else {
            pose.relative.clear();
            pose.extended.world.clear();
            pose.matrices.update(&pose.palette);
        }
        pose.sampled = Sampled::Bones;
    }

    /// Deforms mesh `mesh` by `pose` into `positions` and `normals` (at least
    /// [`Mesh::num_vertices`](super::Mesh::num_vertices) each; the rest is left as it is):
    ///
    /// - DPM, SKM (and MD5, MDR and MDM through their decoded records): linear blend
    ///   skinning of the pre-weighted records by the stream kernel
    ///   ([`skin::stream`](fn@crate::skin::stream)), zero-copy for DPM and SKM, at the best
    ///   level this CPU has: AVX-512 (F, BW) for one-influence vertices and AVX2 + FMA for the
    ///   others, else AVX2 + FMA, else plain Rust;
    /// - IQM, MS3D, SL and the other bind-pose formats (PSK, ZYM, Half-Life, MDL7): linear
    ///   blend of the bind-pose vertices
    ///   by `world(t) · world(bind)⁻¹` ([`skin::bind_lbs`]: an IQM of byte weights sixteen
    ///   vertices a step at AVX-512, the rest plain Rust; MS3D stores normals per triangle
    ///   corner: its vertex normals come out zero). [`Model::prepare`] and
    ///   [`Model::compact`] give these formats the AVX-512 kernels;
    /// - the vertex-animated formats (Quake MDL, GameStudio MDL, MD2, MD3, MDC): the pose's
    ///   two frames tweened by the morph kernel
    ///   ([`tween_with_level`](crate::skin::morph::tween_with_level): AVX-512 on 16 vertices a
    ///   step, AVX2 on 8, plain Rust for the rest; positions blended, normals blended and
    ///   renormalised); HMP: the terrain's tween ([`Hmp::tween`](crate::gamestudio::Hmp::tween),
    ///   plain Rust).
    ///
    /// A pose sampled from another model works when it has every bone the mesh uses.
    ///
    /// A model of one frame is deformed once, by the pose `Model::pose(0, 0, 0.0,
    /// Interpolation::Nlerp)` samples, on the first call (which keeps every mesh's vertices:
    /// [`Model::static_mesh`]); a later call with that pose, bit for bit, at this level, copies
    /// them. Any other pose is deformed as above.
    ///
    /// # Errors
    ///
    /// [`DeformError::NoMesh`], [`DeformError::NotSampled`], [`DeformError::WrongPose`], and
    /// the kernels' errors (a pose with too few bones, short outputs).
    pub fn deform(
        &self,
        mesh: usize,
        pose: &Pose,
        positions: &mut [[f32; 3]],
        normals: &mut [[f32; 3]],
    ) -> Result<(), DeformError> {
        self.deform_with_level(mesh, pose, SimdLevel::detect(), positions, normals)
    }

    /// [`Model::deform`] at an explicit instruction-set level (a level the CPU lacks falls
    /// back to the best it has below it): the stream kernel, the morph and the bind-pose blend
    /// ([`skin::bind_lbs_with_level`]) run that level's code ([`SimdLevel::Portable`]: plain
    /// Rust); the terrain tween has one version. The bind-pose blend gives the same bits at
    /// every level.
    ///
    /// # Errors
    ///
    /// As [`Model::deform`].
    pub fn deform_with_level(
        &self,
        mesh: usize,
        pose: &Pose,
        level: SimdLevel,
        positions: &mut [[f32; 3]],
        normals: &mut [[f32; 3]],
    ) -> Result<(), DeformError> {
        let same = (super::still::compared(pose), |baked: &Pose| {
            super::still::same_pose(pose, baked)
        });
        if (self.still()).is_some_and(|s| s.copied(level, same, mesh, positions, normals)) {
            return Ok(());
        }
        self.deform_skinned(mesh, pose, level, positions, normals)
    }

    /// [`Model::deform_with_level`] by the kernels, never from the one-frame bake.
    pub(crate) fn deform_skinned(
        &self,
        mesh: usize,
        pose: &Pose,
        level: SimdLevel,
        positions: &mut [[f32; 3]],
        normals: &mut [[f32; 3]],
    ) -> Result<(), DeformError> {
        let meshes = self.num_meshes();
        if mesh >= meshes {
            return Err(DeformError::NoMesh { mesh, meshes });
        }
        let wrong = |found| DeformError::WrongPose {
            found,
            format: self.format(),
        };
        let animated = self.is_vertex_animated();
        // The bind pose of a mesh stored in it: the stored vertices, copied.
        if !animated
            && self.is_stored_pose(pose)
            && let Some(copied) = self.copy_stored(mesh, positions, normals)
        {
            return copied;
        }
        match pose.sampled {
            Sampled::Nothing => Err(DeformError::NotSampled),
            Sampled::Frames { a, b, t } if animated => with_view!(self.view(), v => {
                ModelView::tween(v, mesh, a, b, t, level, positions, normals)
            }),
            Sampled::Frames { .. } => Err(wrong("frames")),
            Sampled::Bones if animated => Err(wrong("bones")),
            Sampled::Bones => with_view!(self.view(), v => {
                if let Some(records) = ModelView::records(v, mesh) {
                    Ok(records.skin_stream(&pose.matrices, level, positions, normals)?)
                } else if let Some(bind) = ModelView::bind_pose_mesh(v) {
                    // Without a skeleton, the mesh as stored (any bone an identity).
                    let relative: &[Affine3A] = if v.has_skeleton() {
                        &pose.relative
                    } else {
                        &[Affine3A::IDENTITY; 256]
                    };
                    if pose.frame_vertices.is_empty() {
                        let (p, n) = (positions, normals);
                        Ok(skin::bind_lbs_with_level(&bind, relative, level, p, n)?)
                    } else {
                        // Frames that replace vertices: replaced first, then skinned.
                        let framed = super::replace::Framed { mesh: &bind, pose };
                        Ok(skin::bind_lbs(&framed, relative, positions, normals)?)
                    }
                } else {
                    Err(DeformError::NoMesh { mesh, meshes })
                }
            }),
        }
    }

    /// Deforms mesh `mesh`'s normals per triangle corner into `out` (three per triangle, at
    /// least `3 · num_triangles`): for a mesh that stores them per corner (MS3D), each stored
    /// corner normal moved by its vertex's weighted `world(t) · world(bind)⁻¹` rotations (hard
    /// edges kept); for the others, the deformed vertex normals of each corner.
    ///
    /// # Errors
    ///
    /// As [`Model::deform`]; [`SkinError::Output`] for a short `out`.
    pub fn deform_corner_normals(
        &self,
        mesh: usize,
        pose: &Pose,
        out: &mut [[f32; 3]],
    ) -> Result<(), DeformError> {
        let meshes = self.num_meshes();
        let m = self
            .mesh(mesh)
            .ok_or(DeformError::NoMesh { mesh, meshes })?;
        let need = 3 * m.num_triangles();
        if out.len() < need {
            return Err(SkinError::Output {
                need,
                have: out.len(),
            }
            .into());
        }
        if m.has_corner_normals() {
            if pose.sampled != Sampled::Bones {
                return Err(DeformError::NotSampled);
            }
            let stored = with_view!(self.view(), v => {
                ModelView::deform_corner_normals(v, mesh, &pose.relative, out)
            });
            if let Some(result) = stored {
                return Ok(result?);
            }
        }
        let n = m.num_vertices();
        let (mut positions, mut normals) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
        self.deform(mesh, pose, &mut positions, &mut normals)?;
        for (corners, tri) in out.chunks_exact_mut(3).zip(m.triangles()) {
            for (slot, v) in corners.iter_mut().zip(tri) {
                *slot = normals.get(v as usize).copied().unwrap_or_default();
            }
        }
        Ok(())
    }

    /// A skeletal bind-pose mesh (IQM, PSK, ZYM, Half-Life, MDL7, MS3D, SL) as pre-weighted
    /// records ([`WeightedRecords`]), so that every record kernel (scalar, stream, prepared,
    /// dual-quaternion) skins it; `None` for other formats. The records use one bone more than
    /// the skeleton has, for unbound vertices, which [`Pose::matrices`] provides as an
    /// identity.
    ///
    /// # Errors
    ///
    /// [`SkinError::Palette`] when a vertex is weighted to a bone the skeleton lacks
    /// (impossible for a validated model).
    pub fn weighted_records(&self) -> Result<Option<WeightedRecords>, SkinError> {
        let bind = &self.bind_palette().world;
        with_view!(self.view(), v => match ModelView::bind_pose_mesh(v) {
            Some(mesh) if v.has_skeleton() => Some(WeightedRecords::new(&mesh, bind)).transpose(),
            _ => Ok(None),
        })
    }

    /// `true` for formats whose meshes are stored in their bind pose (IQM, PSK, ZYM,
    /// Half-Life, MDL7, MS3D, SL), which move by `world(t) · world(bind)⁻¹`.
    pub(crate) fn is_bind_posed(&self) -> bool {
        with_view!(self.view(), v => ModelView::is_bind_posed(v))
    }

    /// Mesh `mesh`'s pre-weighted records: as the file stores them (DPM, SKM), as MD5's open
    /// decoded them, as MDR's and MDM's surfaces are laid out on first use; `None` for other
    /// formats (see [`Model::weighted_records`]) or out of range.
    #[must_use]
    pub fn records(&self, mesh: usize) -> Option<Records<'_>> {
        with_view!(self.view(), v => ModelView::records(v, mesh))
    }

    /// Every frame converted once ([`BakedFrames`]), after which sampling is a load and a
    /// blend; frames as [`Model::sample`] addresses them (none for vertex-animated formats).
    ///
    /// # Errors
    ///
    /// [`BakeError::TooLarge`] past [`MAX_BAKED_POSES`](crate::pose::MAX_BAKED_POSES).
    pub fn bake(&self) -> Result<BakedFrames<'_>, BakeError> {
        with_view!(self.view(), v => ModelView::bake(v))
    }
}

/// A time in a clip: seconds into the timeline (formats keyed in seconds), and the frames it
/// falls between with its blend factor (formats keyed by frames).
pub(super) struct ClipAt {
    pub(super) seconds: f32,
    pub(super) a: usize,
    pub(super) b: usize,
    pub(super) t: f32,
}

/// `from` copied into `to`, with room for one transform more (the identity a bind-pose
/// format's extended palette ends with), so that pushing it never reallocates.
fn copy_with_room(from: &[Affine3A], to: &mut Vec<Affine3A>) {
    to.clear();
    to.reserve(from.len() + 1);
    to.extend_from_slice(from);
}
