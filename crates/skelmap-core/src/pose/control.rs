//! Procedural control of a [`LocalPose`]: a bone's transform set or multiplied, relative
//! to its parent or in model space, as DarkPlaces' CSQC skeleton calls do it
//! (`skel_set_bone`, `skel_mul_bone`, `skel_mul_bones`), before
//! [`Palette::build_from`](super::Palette::build_from) rebuilds that bone's sub-tree.
//!
//! - [`LocalPose::set_bone`] replaces a bone's parent-relative transform;
//! - [`LocalPose::mul_bone`] and [`LocalPose::mul_bones`] apply a transform on top of it,
//!   in the parent's space: `local ← m · local` (DarkPlaces' order; a rotation about the
//!   bone's own origin is `m` with the translation `t − R·t`);
//! - [`LocalPose::set_bone_model`] and [`LocalPose::mul_bone_model`] do the same with model-space
//!   transforms, through the parent's world transform in a [`Palette`].
//!
//! A transform is an [`Affine3A`] as DarkPlaces takes a matrix; it is stored back as the
//! pose's rotation, translation and scale. A scale other than 1 gives the pose
//! [`scales`](LocalPose::scales) (the one allocation these calls can make); a matrix with
//! shear has no such decomposition and keeps only its nearest rotation and scale.

use glam::{Affine3A, Quat, Vec3A};

use super::local::{LocalPose, Palette};
use super::skeleton::Skeleton;

/// Why a procedural change was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ControlError {
    /// The bone is not in the pose (or not in the palette, for model-space changes).
    #[error("bone {bone} is out of range: the pose has {bones} bones")]
    NoBone {
        /// The bone asked for.
        bone: usize,
        /// How many bones the pose (or palette) holds.
        bones: usize,
    },
    /// The transform has a component that is not finite.
    #[error("the transform for bone {bone} is not finite")]
    NotFinite {
        /// The bone asked for.
        bone: usize,
    },
}

impl LocalPose {
    /// Bone `bone`'s parent-relative transform: scale, then rotation, then translation (the
    /// identity past the end of [`bones`](LocalPose::bones)).
    #[must_use]
    pub fn bone_matrix(&self, bone: usize) -> Affine3A {
        let (q, t) = self
            .bones
            .get(bone)
            .copied()
            .unwrap_or((Quat::IDENTITY, Vec3A::ZERO));
        match self.scales.get(bone) {
            Some(s) => Affine3A::from_scale_rotation_translation((*s).into(), q, t.into()),
            None => Affine3A::from_rotation_translation(q, t.into()),
        }
    }

    /// Sets `bone`'s transform relative to its parent (`skel_set_bone`).
    ///
    /// # Errors
    /// [`ControlError::NoBone`] past the pose's bones, [`ControlError::NotFinite`] for a
    /// transform with a NaN or infinite component; the pose is unchanged then.
    ///
    /// ```
    /// use glam::{Affine3A, Quat, Vec3, Vec3A};
    /// use skelmap_core::pose::LocalPose;
    /// let mut pose = LocalPose::default();
    /// pose.bones = vec![(Quat::IDENTITY, Vec3A::ZERO); 2];
    /// pose.set_bone(1, Affine3A::from_translation(Vec3::new(0.0, 2.0, 0.0)))?;
    /// assert_eq!(pose.bones[1], (Quat::IDENTITY, Vec3A::new(0.0, 2.0, 0.0)));
    /// assert!(pose.scales.is_empty());
    /// # Ok::<(), skelmap_core::pose::ControlError>(())
    /// ```
    pub fn set_bone(&mut self, bone: usize, local: Affine3A) -> Result<(), ControlError> {
        self.check(bone, &local)?;
        self.store(bone, local);
        Ok(())
    }

    /// Applies `m` to `bone`'s parent-relative transform: `local ← m · local`
    /// (`skel_mul_bone`).
    ///
    /// # Errors
    /// As [`set_bone`](LocalPose::set_bone).
    ///
    /// ```
    /// use glam::{Affine3A, Quat, Vec3A};
    /// use skelmap_core::pose::LocalPose;
    /// let mut pose = LocalPose::default();
    /// pose.bones = vec![(Quat::IDENTITY, Vec3A::new(1.0, 0.0, 0.0))];
    /// let quarter = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
    /// pose.mul_bone(0, Affine3A::from_quat(quarter))?;
    /// // The turn is about the parent's origin: the bone's offset turns with it.
    /// assert!(pose.bones[0].1.abs_diff_eq(Vec3A::new(0.0, 1.0, 0.0), 1e-6));
    /// assert!(pose.bones[0].0.abs_diff_eq(quarter, 1e-6));
    /// # Ok::<(), skelmap_core::pose::ControlError>(())
    /// ```
    pub fn mul_bone(&mut self, bone: usize, m: Affine3A) -> Result<(), ControlError> {
        self.check(bone, &m)?;
        let local = m * self.bone_matrix(bone);
        self.store(bone, local);
        Ok(())
    }

    /// [`mul_bone`](LocalPose::mul_bone) for each bone of `first..=last` that the pose has
    /// (`skel_mul_bones`, which clamps its range the same way); an empty range changes
    /// nothing.
    ///
    /// # Errors
    /// [`ControlError::NotFinite`] for a transform that is not finite (naming `first`).
    pub fn mul_bones(
        &mut self,
        first: usize,
        last: usize,
        m: Affine3A,
    ) -> Result<(), ControlError> {
        if !m.is_finite() {
            return Err(ControlError::NotFinite { bone: first });
        }
        let end = last.min(self.bones.len().saturating_sub(1));
        for bone in first..=end {
            if bone < self.bones.len() {
                let local = m * self.bone_matrix(bone);
                self.store(bone, local);
            }
        }
        Ok(())
    }

    /// Sets `bone`'s model-space transform to `world`: its local transform becomes
    /// `parent_world⁻¹ · world`, the parent's world transform read from `palette` (which must
    /// be current for the parent). Rebuild the palette from `bone` afterwards
    /// ([`Palette::build_from`]).
    ///
    /// # Errors
    /// [`ControlError::NoBone`] past the pose's or the palette's bones (or for a parent past
    /// the palette), [`ControlError::NotFinite`] for a transform that is not finite.
    ///
    /// ```
    /// use glam::{Affine3A, Quat, Vec3, Vec3A};
    /// use skelmap_core::Parse;
    /// use skelmap_core::pose::{Interpolation, LocalPose, Palette, Root, sample};
    /// use skelmap_core::{dpm::Dpm, synth};
    /// let bytes = synth::tube(&synth::TubeParams::default()).write()?;
    /// let model = Dpm::parse(&bytes)?;
    /// let mut pose = LocalPose::default();
    /// sample(&model, 0, 0, 0.0, Interpolation::Nlerp, &mut pose);
    /// let mut palette = Palette::default();
    /// palette.build(&model, &pose);
    /// let world = Affine3A::from_translation(Vec3::new(5.0, 0.0, 0.0));
    /// pose.set_bone_model(&model, &palette, 2, world).unwrap();
    /// palette.build_from(&model, &pose, 2, Root::Rebuilt);
    /// assert!(palette.world[2].abs_diff_eq(world, 1e-5));
    /// # Ok::<(), skelmap_core::Error>(())
    /// ```
    pub fn set_bone_model<'data>(
        &mut self,
        skeleton: &impl Skeleton<'data>,
        palette: &Palette,
        bone: usize,
        world: Affine3A,
    ) -> Result<(), ControlError> {
        self.check(bone, &world)?;
        let parent = parent_world(skeleton, palette, bone)?;
        self.store(bone, parent.inverse() * world);
        Ok(())
    }

    /// Applies `m` to `bone`'s model-space transform: its world transform becomes
    /// `m · world` (for instance a turn of the head about the model's up axis), its local
    /// transform `parent_world⁻¹ · m · world`, both read from `palette`.
    ///
    /// # Errors
    /// As [`set_bone_model`](LocalPose::set_bone_model).
    pub fn mul_bone_model<'data>(
        &mut self,
        skeleton: &impl Skeleton<'data>,
        palette: &Palette,
        bone: usize,
        m: Affine3A,
    ) -> Result<(), ControlError> {
        self.check(bone, &m)?;
        let world = palette.world.get(bone).ok_or(ControlError::NoBone {
            bone,
            bones: palette.world.len(),
        })?;
        let parent = parent_world(skeleton, palette, bone)?;
        self.store(bone, parent.inverse() * m * *world);
        Ok(())
    }

    fn check(&self, bone: usize, m: &Affine3A) -> Result<(), ControlError> {
        if bone >= self.bones.len() {
            return Err(ControlError::NoBone {
                bone,
                bones: self.bones.len(),
            });
        }
        if !m.is_finite() {
            return Err(ControlError::NotFinite { bone });
        }
        Ok(())
    }

    /// Stores `local` as `bone`'s rotation, translation and (when it scales, or the pose
    /// already scales) scale.
    fn store(&mut self, bone: usize, local: Affine3A) {
        let (scale, rotation, translation) = local.to_scale_rotation_translation();
        let scale = Vec3A::from(scale);
        let rotation = rotation.normalize();
        if let Some(slot) = self.bones.get_mut(bone) {
            *slot = (rotation, translation.into());
        }
        let unit = scale.abs_diff_eq(Vec3A::ONE, 1e-6);
        if unit && self.scales.len() <= bone {
            return;
        }
        if self.scales.len() < self.bones.len() {
            self.scales.resize(self.bones.len(), Vec3A::ONE);
        }
        if let Some(slot) = self.scales.get_mut(bone) {
            *slot = if unit { Vec3A::ONE } else { scale };
        }
    }
}

/// The world transform of `bone`'s parent in `palette`, the identity for a root.
fn parent_world<'data>(
    skeleton: &impl Skeleton<'data>,
    palette: &Palette,
    bone: usize,
) -> Result<Affine3A, ControlError> {
    let bones = palette.world.len();
    if bone >= bones {
        return Err(ControlError::NoBone { bone, bones });
    }
    match skeleton.bone(bone).and_then(|b| b.parent()) {
        None => Ok(Affine3A::IDENTITY),
        Some(parent) => palette
            .world
            .get(parent)
            .copied()
            .ok_or(ControlError::NoBone {
                bone: parent,
                bones,
            }),
    }
}
