//! Deforming meshes into caller buffers: one [`Pose`] type and one call for every format.
//!
//! [`Model::pose`] samples two frames into a [`Pose`]: bone transforms for skeletal formats, the
//! frame pair for vertex-animated ones. [`Model::deform`] then writes a mesh's positions and
//! normals with the kernel the format needs: the stream kernel over DPM and SKM records, the
//! bind-pose linear blend for MS3D and SL, the morph for MDL and HMP. [`Model::prepare`] is
//! the explicit copy after which one prepared SIMD kernel skins every skeletal format.

use glam::Affine3A;

use super::{Model, View};
use crate::format::Format;
use crate::pose::framegroups::FrameGroup;
use crate::pose::{Interpolation, LocalPose, Palette};
use crate::skin::dqs::{DualQuat, DualQuatPalette};
use crate::skin::morph::{MorphError, tween_with_level};
use crate::skin::{
    CompactMesh, PreparedMesh, SimdLevel, SkinError, SkinMatrices, VertexOrder, WeightedRecords,
    skin_bind_lbs, skin_stream,
};

/// Why a pose, a deformation or a preparation could not be made.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum DeformError {
    /// A mesh index past the model's meshes.
    #[error("mesh {mesh} does not exist: the model has {meshes}")]
    NoMesh {
        /// The mesh asked for.
        mesh: usize,
        /// Meshes the model has.
        meshes: usize,
    },
    /// A frame index past the model's frames.
    #[error("frame {frame} does not exist: the model has {frames}")]
    NoFrame {
        /// The frame asked for.
        frame: usize,
        /// Frames the model has.
        frames: usize,
    },
    /// A blend factor that is NaN or infinite.
    #[error("blend factor {0} is not finite")]
    Blend(f32),
    /// A time that is NaN or infinite.
    #[error("time {0} s is not finite")]
    Time(f32),
    /// A clip whose frames lie past the model's, or whose rate is not positive.
    #[error("clip frames {first}..{end} at {fps} fps do not fit the model's {frames} frames")]
    Clip {
        /// The clip's first frame.
        first: u32,
        /// One past its last frame.
        end: u64,
        /// Its rate.
        fps: f32,
        /// Frames the model has.
        frames: usize,
    },
    /// A pose that was never sampled.
    #[error("the pose has not been sampled")]
    NotSampled,
    /// A pose of bones for a vertex-animated model, or of frames for a skeletal one.
    #[error("a pose of {found} cannot deform a {format} model")]
    WrongPose {
        /// What the pose holds (`bones` or `frames`).
        found: &'static str,
        /// The model's format.
        format: Format,
    },
    /// [`Model::prepare`] on a model without a skeleton.
    #[error("{0} models are not skinned: they have no skeleton to prepare")]
    NotSkeletal(Format),
    /// A skinning kernel refused (a pose with fewer bones than the mesh uses, a short
    /// output).
    #[error(transparent)]
    Skin(#[from] SkinError),
    /// The morph refused (a short output).
    #[error(transparent)]
    Morph(#[from] MorphError),
}

#[derive(Debug, Clone, Copy, Default, PartialEq)]
enum Sampled {
    #[default]
    Nothing,
    Bones,
    Frames {
        a: usize,
        b: usize,
        t: f32,
    },
}

/// A sampled pose, ready to deform meshes: bone transforms (local, world and in the kernels'
/// layouts) for skeletal formats, a frame pair for vertex-animated ones. Reused from call to
/// call, it allocates only when a model has more bones than it held before.
#[derive(Debug, Clone, Default)]
pub struct Pose {
    sampled: Sampled,
    local: LocalPose,
    palette: Palette,
    /// The palette in kernel layouts; for bind-pose formats with an identity appended for
    /// unbound vertices ([`WeightedRecords::unbound_bone`]).
    matrices: SkinMatrices,
    /// Bind-pose formats: per bone `world(t) · world(bind)⁻¹`.
    relative: Vec<Affine3A>,
    /// Scratch: the palette with the unbound bone's identity appended.
    extended: Palette,
}

impl Pose {
    /// The parent-relative poses (empty for vertex-animated models).
    #[must_use]
    pub fn local(&self) -> &LocalPose {
        &self.local
    }

    /// The world transforms, one per bone (empty for vertex-animated models).
    #[must_use]
    pub fn palette(&self) -> &Palette {
        &self.palette
    }

    /// The world transforms in the kernels' layouts (for bind-pose formats with one identity
    /// more, for unbound vertices).
    #[must_use]
    pub fn matrices(&self) -> &SkinMatrices {
        &self.matrices
    }

    /// The palette the record kernels use with this pose ([`Model::records`],
    /// [`Model::weighted_records`]): [`Pose::palette`], and for bind-pose formats one identity
    /// more, for unbound vertices ([`WeightedRecords::unbound_bone`]).
    #[must_use]
    pub fn record_palette(&self) -> &Palette {
        if self.extended.world.is_empty() {
            &self.palette
        } else {
            &self.extended
        }
    }

    /// The frame pair and blend factor of a vertex-animated model's pose.
    #[must_use]
    pub fn frames(&self) -> Option<(usize, usize, f32)> {
        match self.sampled {
            Sampled::Frames { a, b, t } => Some((a, b, t)),
            _ => None,
        }
    }

    /// `true` once sampled.
    #[must_use]
    pub fn is_sampled(&self) -> bool {
        self.sampled != Sampled::Nothing
    }
}

/// The formats whose meshes are stored in their bind pose.
fn bind_posed(view: &View<'_>) -> bool {
    matches!(view, View::Ms3d(_) | View::SlMdl(_))
}

/// Every mesh of a skeletal model regrouped for the prepared kernel ([`Model::prepare`]).
#[derive(Debug, Clone)]
pub struct Prepared {
    meshes: Vec<PreparedMesh>,
}

impl Prepared {
    /// Number of meshes (as [`Model::num_meshes`]).
    #[must_use]
    pub fn num_meshes(&self) -> usize {
        self.meshes.len()
    }

    /// Mesh `index`'s prepared blocks.
    #[must_use]
    pub fn mesh(&self, index: usize) -> Option<&PreparedMesh> {
        self.meshes.get(index)
    }

    /// Skins mesh `mesh` with `pose` into `positions` and `normals`, in `order`, at `level`
    /// (a level the CPU lacks falls back to the best it has), on the calling thread.
    ///
    /// # Errors
    ///
    /// [`DeformError::NoMesh`], [`DeformError::NotSampled`], and the kernel's
    /// [`SkinError`]s (a pose with too few bones, short outputs).
    pub fn skin(
        &self,
        mesh: usize,
        pose: &Pose,
        level: SimdLevel,
        order: VertexOrder,
        positions: &mut [[f32; 3]],
        normals: &mut [[f32; 3]],
    ) -> Result<(), DeformError> {
        let prepared = self.meshes.get(mesh).ok_or(DeformError::NoMesh {
            mesh,
            meshes: self.meshes.len(),
        })?;
        if pose.sampled != Sampled::Bones {
            return Err(DeformError::NotSampled);
        }
        Ok(prepared.skin(&pose.matrices, level, order, positions, normals)?)
    }
}

/// Every mesh of a skeletal model folded for the compact kernel ([`Model::compact`]).
#[derive(Debug, Clone)]
pub struct Compact {
    meshes: Vec<CompactMesh>,
    /// Per bone, the inverse of its reference (bind) transform; bind-pose formats end with the
    /// unbound vertices' identity.
    inverse_reference: Vec<Affine3A>,
}

impl Compact {
    /// Number of meshes (as [`Model::num_meshes`]).
    #[must_use]
    pub fn num_meshes(&self) -> usize {
        self.meshes.len()
    }

    /// Mesh `index`'s folded blocks.
    #[must_use]
    pub fn mesh(&self, index: usize) -> Option<&CompactMesh> {
        self.meshes.get(index)
    }

    /// Vertices, over every mesh, that did not fold and are skinned exactly.
    #[must_use]
    pub fn exact_vertices(&self) -> usize {
        self.meshes.iter().map(CompactMesh::exact_vertices).sum()
    }

    /// The skinning matrices of `pose` (`world · bind⁻¹` per bone) into `out`, reusing its
    /// allocation: once per frame, for every mesh.
    ///
    /// # Errors
    ///
    /// [`DeformError::NotSampled`] for a pose without bones.
    pub fn matrices(&self, pose: &Pose, out: &mut SkinMatrices) -> Result<(), DeformError> {
        out.update_with(self.relative(pose)?);
        Ok(())
    }

    /// The dual quaternions of `pose` (`world · bind⁻¹` per bone) into `out`, reusing its
    /// allocation, for [`Compact::skin_dqs`].
    ///
    /// # Errors
    ///
    /// [`DeformError::NotSampled`] for a pose without bones.
    pub fn dual_quats(&self, pose: &Pose, out: &mut DualQuatPalette) -> Result<(), DeformError> {
        out.update(self.relative(pose)?.map(|m| DualQuat::from_affine(&m)));
        Ok(())
    }

    /// Per bone of `pose`'s record palette, `world · bind⁻¹`.
    fn relative<'p>(
        &'p self,
        pose: &'p Pose,
    ) -> Result<impl ExactSizeIterator<Item = Affine3A> + 'p, DeformError> {
        if pose.sampled != Sampled::Bones {
            return Err(DeformError::NotSampled);
        }
        Ok(pose
            .record_palette()
            .world
            .iter()
            .zip(&self.inverse_reference)
            .map(|(world, inverse)| *world * *inverse))
    }

    /// Skins mesh `mesh` by dual quaternions (from [`Compact::dual_quats`]; see
    /// [`CompactMesh::skin_dqs`]) into `positions` and `normals`, in file order, at `level`, on
    /// the calling thread.
    ///
    /// # Errors
    ///
    /// [`DeformError::NoMesh`] and the kernel's [`SkinError`]s.
    pub fn skin_dqs(
        &self,
        mesh: usize,
        dual_quats: &DualQuatPalette,
        level: SimdLevel,
        positions: &mut [[f32; 3]],
        normals: &mut [[f32; 3]],
    ) -> Result<(), DeformError> {
        Ok(self
            .checked(mesh)?
            .skin_dqs(dual_quats, level, positions, normals)?)
    }

    /// Skins mesh `mesh` with `matrices` (from [`Compact::matrices`]) into `positions` and
    /// `normals`, in file order, at `level`, on the calling thread.
    ///
    /// # Errors
    ///
    /// [`DeformError::NoMesh`] and the kernel's [`SkinError`]s (matrices with too few bones,
    /// short outputs).
    pub fn skin(
        &self,
        mesh: usize,
        matrices: &SkinMatrices,
        level: SimdLevel,
        positions: &mut [[f32; 3]],
        normals: &mut [[f32; 3]],
    ) -> Result<(), DeformError> {
        Ok(self
            .checked(mesh)?
            .skin(matrices, level, positions, normals)?)
    }

    /// Mesh `mesh`, or [`DeformError::NoMesh`].
    fn checked(&self, mesh: usize) -> Result<&CompactMesh, DeformError> {
        self.meshes.get(mesh).ok_or(DeformError::NoMesh {
            mesh,
            meshes: self.meshes.len(),
        })
    }
}

impl Model<'_> {
    /// Samples frames `a` and `b` blended at `t` into `pose` (see [`Model::sample`]) and
    /// builds what deforming needs: world transforms and their kernel layouts for skeletal
    /// formats, the frame pair for MDL and HMP.
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
        pose.sampled = Sampled::Nothing;
        if !t.is_finite() {
            return Err(DeformError::Blend(t));
        }
        let frames = self.num_frames();
        if let Some(&frame) = [a, b].iter().find(|&&f| f >= frames) {
            return Err(DeformError::NoFrame { frame, frames });
        }
        if self.is_vertex_animated() {
            pose.local.bones.clear();
            pose.palette.world.clear();
            pose.sampled = Sampled::Frames { a, b, t };
            return Ok(());
        }
        self.sample(a, b, t, interpolation, &mut pose.local);
        self.finish_pose(pose);
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
        pose.sampled = Sampled::Nothing;
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
        if let Some(ms3d) = self.as_ms3d() {
            let length = count / clip.fps;
            let local = if looped {
                seconds.rem_euclid(length)
            } else {
                seconds.clamp(0.0, length)
            };
            ms3d.local_pose_at(
                clip.first as f32 / clip.fps + local,
                interpolation,
                &mut pose.local,
            );
            self.finish_pose(pose);
            return Ok(());
        }
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
        let (a, b) = ((clip.first + i) as usize, (clip.first + next) as usize);
        self.pose(a, b, t.clamp(0.0, 1.0), interpolation, pose)
    }

    /// The bind pose into `pose` ([`Model::bind_pose`]): frame 0 for DPM, SKM and SKP and for
    /// vertex-animated models, the MS3D rest pose, SL keyframe 0. Deforming with it gives the
    /// mesh as stored (bind-pose formats) or as frame 0 poses it.
    pub fn pose_bind(&self, pose: &mut Pose) {
        if self.is_vertex_animated() {
            pose.local.bones.clear();
            pose.palette.world.clear();
            pose.sampled = Sampled::Frames { a: 0, b: 0, t: 0.0 };
            return;
        }
        self.bind_pose(&mut pose.local);
        self.finish_pose(pose);
    }

    /// World transforms, kernel layouts and (bind-pose formats) relative transforms of
    /// `pose.local`.
    fn finish_pose(&self, pose: &mut Pose) {
        self.palette(&pose.local, &mut pose.palette);
        if bind_posed(self.view()) {
            pose.palette
                .relative_to(self.bind_palette(), &mut pose.relative);
            pose.extended.world.clone_from(&pose.palette.world);
            pose.extended.world.push(Affine3A::IDENTITY);
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
    /// - DPM, SKM: linear blend skinning of the file's pre-weighted records by the stream
    ///   kernel, zero-copy, with the best instruction set this CPU has;
    /// - MS3D, SL: linear blend of the bind-pose vertices by `world(t) · world(bind)⁻¹`
    ///   (MS3D stores normals per triangle corner: its vertex normals come out zero);
    /// - MDL, HMP, Quake: the pose's two frames tweened (positions blended, normals blended and
    ///   renormalised).
    ///
    /// A pose sampled from another model works when it has every bone the mesh uses.
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
    /// back to the best it has): [`SimdLevel::Portable`] runs the DPM/SKM stream kernel and
    /// the MDL morph in plain Rust, any higher level their SIMD versions. The bind-pose blend
    /// and the terrain tween have one version.
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
        let meshes = self.num_meshes();
        if mesh >= meshes {
            return Err(DeformError::NoMesh { mesh, meshes });
        }
        let wrong = |found| DeformError::WrongPose {
            found,
            format: self.format(),
        };
        match (self.view(), pose.sampled) {
            (_, Sampled::Nothing) => return Err(DeformError::NotSampled),
            (View::Mdl(m), Sampled::Frames { a, b, t }) => {
                let (fa, fb) = (m.packed_frame(a)?, m.packed_frame(b)?);
                tween_with_level(level, &m.unpack(), fa, fb, t, positions, normals)?;
            }
            (View::Hmp(h), Sampled::Frames { a, b, t }) => h.tween(a, b, t, positions, normals)?,
            (View::Quake(q), Sampled::Frames { a, b, t }) => {
                let (fa, fb) = (q.packed_frame(a)?, q.packed_frame(b)?);
                tween_with_level(level, &q.unpack(), fa, fb, t, positions, normals)?;
            }
            (View::Mdl(_) | View::Hmp(_) | View::Quake(_), Sampled::Bones) => {
                return Err(wrong("bones"));
            }
            (_, Sampled::Frames { .. }) => return Err(wrong("frames")),
            (View::Dpm(m), Sampled::Bones) => {
                let x = m.mesh(mesh).ok_or(DeformError::NoMesh { mesh, meshes })?;
                skin_stream(&x, &pose.matrices, level, positions, normals)?;
            }
            (View::Skm(m), Sampled::Bones) => {
                let x = m
                    .skm()
                    .mesh(mesh)
                    .ok_or(DeformError::NoMesh { mesh, meshes })?;
                skin_stream(&x, &pose.matrices, level, positions, normals)?;
            }
            (View::Ms3d(m), Sampled::Bones) => {
                skin_bind_lbs(m, &pose.relative, positions, normals)?
            }
            (View::SlMdl(m), Sampled::Bones) => match m.anim() {
                Some(_) => skin_bind_lbs(&m.mdl(), &pose.relative, positions, normals)?,
                // No skeleton: the mesh as stored (any bone an identity).
                None => skin_bind_lbs(&m.mdl(), &[Affine3A::IDENTITY; 256], positions, normals)?,
            },
            (View::Skp(_) | View::SlAnim(_), Sampled::Bones) => {
                return Err(DeformError::NoMesh { mesh, meshes });
            }
        }
        Ok(())
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
        let Some(ms3d) = self.as_ms3d() else {
            let n = m.num_vertices();
            let (mut positions, mut normals) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
            self.deform(mesh, pose, &mut positions, &mut normals)?;
            for (corners, tri) in out.chunks_exact_mut(3).zip(m.triangles()) {
                for (slot, v) in corners.iter_mut().zip(tri) {
                    *slot = normals.get(v as usize).copied().unwrap_or_default();
                }
            }
            return Ok(());
        };
        if pose.sampled != Sampled::Bones {
            return Err(DeformError::NotSampled);
        }
        for (t, corners) in out.chunks_exact_mut(3).enumerate().take(m.num_triangles()) {
            let (Some(tri), Some(stored)) = (m.triangle(t), m.stored_corner_normals(t)) else {
                break;
            };
            for ((slot, v), n) in corners.iter_mut().zip(tri).zip(stored) {
                let n = glam::Vec3A::from(n);
                let (mut sum, mut total) = (glam::Vec3A::ZERO, 0.0);
                for (joint, weight) in ms3d
                    .vertex_weights(v as usize)
                    .unwrap_or_default()
                    .into_iter()
                    .flatten()
                {
                    let r = pose
                        .relative
                        .get(usize::from(joint))
                        .ok_or(SkinError::Palette {
                            bone: u32::from(joint),
                            have: pose.relative.len(),
                        })?;
                    sum += weight * r.transform_vector3a(n);
                    total += weight;
                }
                *slot = if total > 0.0 { sum / total } else { n }.to_array();
            }
        }
        Ok(())
    }

    /// The bind-pose meshes (MS3D, SL) as pre-weighted records ([`WeightedRecords`]), so
    /// that every record kernel (scalar, stream, prepared, dual-quaternion) skins them;
    /// `None` for other formats. The records use one bone more than the skeleton has, for
    /// unbound vertices, which [`Pose::matrices`] provides as an identity.
    ///
    /// # Errors
    ///
    /// [`SkinError::Palette`] when a vertex is weighted to a bone the skeleton lacks
    /// (impossible for a validated model).
    pub fn weighted_records(&self) -> Result<Option<WeightedRecords>, SkinError> {
        let bind = &self.bind_palette().world;
        Ok(match self.view() {
            View::Ms3d(m) => Some(WeightedRecords::new(m, bind)?),
            View::SlMdl(m) if m.anim().is_some() => Some(WeightedRecords::new(&m.mdl(), bind)?),
            _ => None,
        })
    }

    /// Regroups every mesh for the prepared kernel (the explicit, allocating copy a runtime
    /// makes once): DPM and SKM records as stored, MS3D and SL bind-pose vertices as
    /// [`Model::weighted_records`]. Skin with [`Prepared::skin`] and a [`Pose`] from
    /// [`Model::pose`].
    ///
    /// # Errors
    ///
    /// [`DeformError::NotSkeletal`] for MDL, HMP, an SL mesh without its animation, and a
    /// skeleton on its own.
    pub fn prepare(&self) -> Result<Prepared, DeformError> {
        let meshes = match self.view() {
            View::Dpm(m) => m.meshes().map(|x| PreparedMesh::new(&x)).collect(),
            View::Skm(m) => m.skm().meshes().map(|x| PreparedMesh::new(&x)).collect(),
            View::Ms3d(_) | View::SlMdl(_) => match self.weighted_records()? {
                Some(records) => vec![PreparedMesh::new(&records.mesh())],
                None => return Err(DeformError::NotSkeletal(self.format())),
            },
            View::Mdl(_) | View::Hmp(_) | View::Quake(_) | View::Skp(_) | View::SlAnim(_) => {
                return Err(DeformError::NotSkeletal(self.format()));
            }
        };
        Ok(Prepared { meshes })
    }

    /// Folds every mesh for the compact kernel (the explicit, allocating copy a game runtime
    /// makes once; see [`CompactMesh`] for how it differs from [`Model::prepare`]): DPM and
    /// SKM records under frame 0, the pose they are stored against; MS3D and SL bind-pose
    /// vertices under their bind pose. Build the matrices of each frame with
    /// [`Compact::matrices`], then skin with [`Compact::skin`].
    ///
    /// ```
    /// use skelmap_core::Model;
    /// use skelmap_core::model::Pose;
    /// use skelmap_core::pose::Interpolation;
    /// use skelmap_core::skin::{SimdLevel, SkinMatrices};
    ///
    /// let bytes = skelmap_core::synth::tube(&Default::default()).write()?;
    /// let model = Model::from_bytes(&bytes)?;
    /// let compact = model.compact()?; // once
    /// let (mut pose, mut matrices) = (Pose::default(), SkinMatrices::default());
    /// model.pose(1, 2, 0.5, Interpolation::Nlerp, &mut pose)?; // every frame
    /// compact.matrices(&pose, &mut matrices)?;
    /// let n = compact.mesh(0).map_or(0, |m| m.num_vertices());
    /// let (mut p, mut q) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
    /// compact.skin(0, &matrices, SimdLevel::detect(), &mut p, &mut q)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`DeformError::NotSkeletal`] as for [`Model::prepare`].
    pub fn compact(&self) -> Result<Compact, DeformError> {
        let mut reference = self.bind_palette().world.clone();
        if bind_posed(self.view()) {
            // The unbound vertices' bone of `weighted_records`.
            reference.push(Affine3A::IDENTITY);
        }
        let meshes = match self.view() {
            View::Dpm(m) => m
                .meshes()
                .map(|x| CompactMesh::new(&x, &reference))
                .collect::<Result<_, _>>()?,
            View::Skm(m) => m
                .skm()
                .meshes()
                .map(|x| CompactMesh::new(&x, &reference))
                .collect::<Result<_, _>>()?,
            View::Ms3d(_) | View::SlMdl(_) => match self.weighted_records()? {
                Some(records) => vec![CompactMesh::new(&records.mesh(), &reference)?],
                None => return Err(DeformError::NotSkeletal(self.format())),
            },
            View::Mdl(_) | View::Hmp(_) | View::Quake(_) | View::Skp(_) | View::SlAnim(_) => {
                return Err(DeformError::NotSkeletal(self.format()));
            }
        };
        Ok(Compact {
            meshes,
            inverse_reference: reference.iter().map(Affine3A::inverse).collect(),
        })
    }
}
