//! The explicit copies a runtime makes once to skin every frame faster: [`Prepared`] (records
//! regrouped into structure-of-arrays blocks) and [`Compact`] (each vertex's influences folded
//! into one bind-space vertex), for every skeletal format. Of a model of one frame, each also
//! keeps what its kernel gives for that frame, and skinning by it is a copy (`still.rs`).

use glam::Affine3A;

use super::Model;
use super::any::with_view;
use super::replace::Replacer;
use super::still::{StaticMesh, Still, same_matrices};
use crate::skin::dqs::{DualQuat, DualQuatPalette};
use crate::skin::{CompactMesh, PreparedMesh, Records, SimdLevel, SkinMatrices, VertexOrder};
use crate::view::{DeformError, ModelView, Pose, Sampled};

/// Every mesh of a skeletal model regrouped for the prepared kernel ([`Model::prepare`]).
#[derive(Debug, Clone)]
pub struct Prepared {
    meshes: Vec<PreparedMesh>,
    /// A model of one frame: every mesh skinned by it, in file order.
    still: Option<Still<SkinMatrices>>,
    /// For a model whose frames replace vertices (MDL7), the stored mesh to skin them from.
    replacer: Option<Replacer>,
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

    /// Skins mesh `mesh` with `pose` into `positions` and `normals`, in `order`, with the
    /// prepared kernel at `level` (see [`PreparedMesh::skin`]; a level the CPU lacks falls back
    /// to the best it has), on the calling thread.
    ///
    /// Of a model of one frame, the mesh that frame gives is skinned once, by [`Model::prepare`]
    /// (at [`SimdLevel::detect`], in file order, with the pose `Model::pose(0, 0, 0.0,
    /// Interpolation::Nlerp)` samples); a call with that pose's matrices, bit for bit, at that
    /// level and in [`VertexOrder::Original`], copies it.
    ///
    /// # Errors
    ///
    /// [`DeformError::NoMesh`], [`DeformError::NotSampled`], and the kernel's
    /// [`SkinError`](crate::skin::SkinError)s (a pose with too few bones, short outputs).
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
        let same = (pose.matrices.bones(), |m: &SkinMatrices| {
            same_matrices(&pose.matrices, m)
        });
        if order == VertexOrder::Original
            && (self.still.as_ref())
                .is_some_and(|s| s.copied(level, same, mesh, positions, normals))
        {
            return Ok(());
        }
        prepared.skin(&pose.matrices, level, order, positions, normals)?;
        if let Some(replacer) = &self.replacer
            && !pose.frame_vertices.is_empty()
        {
            // The kernel skinned the stored mesh: the replaced vertices again, from their
            // replacements, where this order puts them.
            let slots = match order {
                VertexOrder::Original => Vec::new(),
                VertexOrder::Prepared => slots(&prepared.prepared_order()),
            };
            let slot = |i: usize| slots.get(i).copied().unwrap_or(i);
            replacer.skin(pose, slot, positions, normals)?;
        }
        Ok(())
    }
}

/// How far from 1 a bone's axis may be scaled (rounding, not scale) and dual quaternions still
/// skin it.
const SCALE_TOLERANCE: f32 = 1e-3;

/// Every mesh of a skeletal model folded for the compact kernel ([`Model::compact`]).
#[derive(Debug, Clone)]
pub struct Compact {
    meshes: Vec<CompactMesh>,
    /// A model of one frame: every mesh skinned by it.
    still: Option<Still<SkinMatrices>>,
    /// Per bone, the inverse of its reference (bind) transform; bind-pose formats end with the
    /// unbound vertices' identity.
    inverse_reference: Vec<Affine3A>,
    /// For a model whose frames replace vertices (MDL7), the stored mesh to skin them from.
    replacer: Option<Replacer>,
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
    /// [`DeformError::NotSampled`] for a pose without bones; [`DeformError::Scale`] for a pose
    /// in which a bone scales (an IQM's or MDR's), which dual quaternions cannot express.
    pub fn dual_quats(&self, pose: &Pose, out: &mut DualQuatPalette) -> Result<(), DeformError> {
        for (bone, m) in self.relative(pose)?.enumerate() {
            let lengths = [m.x_axis.length(), m.y_axis.length(), m.z_axis.length()];
            if let Some(&scale) = lengths.iter().find(|l| (**l - 1.0).abs() > SCALE_TOLERANCE) {
                return Err(DeformError::Scale { bone, scale });
            }
        }
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
    /// the calling thread. The stored mesh: frames that replace vertices
    /// ([`Model::frames_replace_vertices`]) are skinned linearly, by [`Compact::skin_pose`].
    ///
    /// # Errors
    ///
    /// [`DeformError::NoMesh`] and the kernel's [`SkinError`](crate::skin::SkinError)s.
    pub fn skin_dqs(
        &self,
        mesh: usize,
        dual_quats: &DualQuatPalette,
        level: SimdLevel,
        positions: &mut [[f32; 3]],
        normals: &mut [[f32; 3]],
    ) -> Result<(), DeformError> {
        Ok(self.checked(mesh)?.skin_dqs(
            dual_quats,
            level,
            VertexOrder::Original,
            positions,
            normals,
        )?)
    }

    /// Skins mesh `mesh` with `matrices` (from [`Compact::matrices`]) into `positions` and
    /// `normals`, in file order, with the compact kernel at `level` (see [`CompactMesh::skin`]),
    /// on the calling thread. A runtime that draws through its own index buffer can skin
    /// [`Compact::mesh`] in [`VertexOrder::Prepared`] instead, with
    /// [`CompactMesh::remap_triangles`]' indices, and skip the scattered write per vertex that
    /// file order costs where the layout grouped vertices by their bones.
    ///
    /// Of a model of one frame, the mesh that frame gives is skinned once, by
    /// [`Model::compact`] (at [`SimdLevel::detect`], with the matrices of the pose
    /// `Model::pose(0, 0, 0.0, Interpolation::Nlerp)` samples); a call with those matrices, bit
    /// for bit, at that level, copies it.
    ///
    /// Matrices alone do not say which frames a pose shows: for a model whose frames also
    /// replace vertices ([`Model::frames_replace_vertices`]), this skins the stored mesh, and
    /// [`Compact::skin_pose`] skins the pose's frames.
    ///
    /// # Errors
    ///
    /// [`DeformError::NoMesh`] and the kernel's [`SkinError`](crate::skin::SkinError)s (matrices with too few bones,
    /// short outputs).
    pub fn skin(
        &self,
        mesh: usize,
        matrices: &SkinMatrices,
        level: SimdLevel,
        positions: &mut [[f32; 3]],
        normals: &mut [[f32; 3]],
    ) -> Result<(), DeformError> {
        let compact = self.checked(mesh)?;
        let same = (matrices.bones(), |m: &SkinMatrices| {
            same_matrices(matrices, m)
        });
        if (self.still.as_ref()).is_some_and(|s| s.copied(level, same, mesh, positions, normals)) {
            return Ok(());
        }
        Ok(compact.skin(matrices, level, VertexOrder::Original, positions, normals)?)
    }

    /// [`Compact::skin`] by `matrices` (made from `pose` by [`Compact::matrices`]), and then,
    /// for a model whose frames also replace vertices ([`Model::frames_replace_vertices`]),
    /// the vertices `pose`'s frames replace, skinned from their bind-space replacements: the
    /// mesh [`Model::deform`] gives for `pose`. For every other model, exactly
    /// [`Compact::skin`].
    ///
    /// ```
    /// use skelmap_core::Model;
    /// use skelmap_core::model::Pose;
    /// use skelmap_core::pose::Interpolation;
    /// use skelmap_core::skin::{SimdLevel, SkinMatrices};
    ///
    /// let bytes = skelmap_core::mdl7::Builder::demo().write();
    /// let model = Model::from_bytes(&bytes)?;
    /// let compact = model.compact()?;
    /// let (mut pose, mut matrices) = (Pose::default(), SkinMatrices::default());
    /// model.pose(1, 2, 0.5, Interpolation::Nlerp, &mut pose)?;
    /// compact.matrices(&pose, &mut matrices)?;
    /// let n = model.mesh(0).ok_or("no mesh")?.num_vertices();
    /// let (mut p, mut q) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
    /// compact.skin_pose(0, &pose, &matrices, SimdLevel::detect(), &mut p, &mut q)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`Compact::skin`].
    pub fn skin_pose(
        &self,
        mesh: usize,
        pose: &Pose,
        matrices: &SkinMatrices,
        level: SimdLevel,
        positions: &mut [[f32; 3]],
        normals: &mut [[f32; 3]],
    ) -> Result<(), DeformError> {
        self.skin(mesh, matrices, level, positions, normals)?;
        if let Some(replacer) = &self.replacer {
            replacer.skin(pose, |i| i, positions, normals)?;
        }
        Ok(())
    }

    /// [`Compact::skin_pose`] in [`VertexOrder::Prepared`]: position `i` of `positions` and
    /// `normals` gets vertex [`CompactMesh::prepared_order`]`()[i]` of the file, the same bits
    /// as `skin_pose` gives it (a vertex a frame replaces too). A runtime that draws through
    /// [`CompactMesh::remap_triangles`]' indices skips the scattered write per vertex that file
    /// order costs where the layout grouped vertices by their bones.
    ///
    /// ```
    /// use skelmap_core::Model;
    /// use skelmap_core::model::Pose;
    /// use skelmap_core::pose::Interpolation;
    /// use skelmap_core::skin::{SimdLevel, SkinMatrices};
    ///
    /// let bytes = skelmap_core::synth::tube(&Default::default()).write()?;
    /// let model = Model::from_bytes(&bytes)?;
    /// let compact = model.compact()?;
    /// let (mut pose, mut matrices) = (Pose::default(), SkinMatrices::default());
    /// model.pose(1, 2, 0.5, Interpolation::Nlerp, &mut pose)?;
    /// compact.matrices(&pose, &mut matrices)?;
    /// let mesh = compact.mesh(0).ok_or("no mesh")?;
    /// let n = mesh.num_vertices();
    /// let (mut p, mut q) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
    /// compact.skin_pose_prepared(0, &pose, &matrices, SimdLevel::detect(), &mut p, &mut q)?;
    /// // The index buffer to draw them with.
    /// let triangles = mesh.remap_triangles(model.mesh(0).ok_or("no mesh")?.triangles());
    /// assert_eq!(triangles.len(), model.mesh(0).ok_or("no mesh")?.num_triangles());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`Compact::skin`].
    pub fn skin_pose_prepared(
        &self,
        mesh: usize,
        pose: &Pose,
        matrices: &SkinMatrices,
        level: SimdLevel,
        positions: &mut [[f32; 3]],
        normals: &mut [[f32; 3]],
    ) -> Result<(), DeformError> {
        let compact = self.checked(mesh)?;
        compact.skin(matrices, level, VertexOrder::Prepared, positions, normals)?;
        if let Some(replacer) = &self.replacer
            && !pose.frame_vertices.is_empty()
        {
            let slots = slots(&compact.prepared_order());
            let slot = |i: usize| slots.get(i).copied().unwrap_or(i);
            replacer.skin(pose, slot, positions, normals)?;
        }
        Ok(())
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
    /// Regroups every mesh for the prepared kernel (the explicit, allocating copy a runtime
    /// makes once): pre-weighted records as [`Model::records`] gives them (DPM, SKM, MD5,
    /// MDR, MDM), the bind-pose vertices of IQM, PSK, ZYM, Half-Life, MDL7, MS3D and SL as
    /// [`Model::weighted_records`]. Skin with [`Prepared::skin`] and a [`Pose`] from
    /// [`Model::pose`].
    ///
    /// # Errors
    ///
    /// [`DeformError::NotSkeletal`] for the vertex-animated formats, an SL mesh without its
    /// animation, and a skeleton on its own.
    pub fn prepare(&self) -> Result<Prepared, DeformError> {
        let meshes = if let Some(records) = self.weighted_records()? {
            vec![PreparedMesh::new(&records.mesh())]
        } else {
            let meshes = self.records_of_every_mesh()?;
            meshes.iter().map(Records::prepare).collect()
        };
        let mut prepared = Prepared {
            meshes,
            still: None,
            replacer: self.replacer(),
        };
        if let Some(pose) = self.one_frame_pose() {
            let (level, order) = (SimdLevel::detect(), VertexOrder::Original);
            let still = StaticMesh::bake(
                prepared.num_meshes(),
                |m| prepared.meshes.get(m).map_or(0, PreparedMesh::num_vertices),
                |m, p, n| prepared.skin(m, &pose, level, order, p, n),
            );
            prepared.still = still.ok().map(|s| Still::new(pose.matrices, level, s));
        }
        Ok(prepared)
    }

    /// The pose of a model of one frame that its bakes skin with (`still.rs`).
    fn one_frame_pose(&self) -> Option<Pose> {
        // Frames that replace vertices are skinned after the kernel: no copy of one frame.
        (self.num_frames() == 1 && !self.frames_replace_vertices())
            .then(|| self.still_pose(0).ok())
            .flatten()
            .filter(|pose| pose.sampled == Sampled::Bones)
    }

    /// Folds every mesh for the compact kernel (the explicit, allocating copy a game runtime
    /// makes once; see [`CompactMesh`] for how it differs from [`Model::prepare`]):
    /// pre-weighted records (DPM, SKM, MD5, MDR, MDM) folded under the model's bind pose
    /// ([`Model::bind_pose`]: frame 0 for DPM and SKM); the bind-pose vertices of IQM, PSK,
    /// ZYM, Half-Life, MDL7, MS3D and SL laid out as they are stored, one point and up to
    /// [`MAX_BIND_INFLUENCES`](crate::pose::MAX_BIND_INFLUENCES) weights each
    /// ([`CompactMesh::from_bind_pose`]: nothing to fold, every vertex in the blocks). Build
    /// the matrices of each frame with [`Compact::matrices`], then skin with [`Compact::skin`].
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
        let bind = with_view!(self.view(), v => match ModelView::bind_pose_mesh(v) {
            Some(mesh) if v.has_skeleton() => {
                Some(CompactMesh::from_bind_pose(&mesh, &reference))
            }
            _ => None,
        });
        let meshes = match bind {
            // A bind-posed file with no mesh to show (an MDL7 without groups) folds to none,
            // so that the compact model's meshes stay the model's.
            Some(_) if self.num_meshes() == 0 => Vec::new(),
            Some(mesh) => {
                // The unbound vertices' identity bone of `from_bind_pose`.
                reference.push(Affine3A::IDENTITY);
                vec![mesh?]
            }
            None => self
                .records_of_every_mesh()?
                .iter()
                .map(|r| r.compact(&reference))
                .collect::<Result<_, _>>()?,
        };
        let mut compact = Compact {
            meshes,
            still: None,
            inverse_reference: reference.iter().map(Affine3A::inverse).collect(),
            replacer: self.replacer(),
        };
        if let Some(pose) = self.one_frame_pose() {
            let (level, mut matrices) = (SimdLevel::detect(), SkinMatrices::default());
            compact.matrices(&pose, &mut matrices)?;
            let still = StaticMesh::bake(
                compact.num_meshes(),
                |m| compact.meshes.get(m).map_or(0, CompactMesh::num_vertices),
                |m, p, n| compact.skin(m, &matrices, level, p, n),
            );
            compact.still = still.ok().map(|s| Still::new(matrices, level, s));
        }
        Ok(compact)
    }

    /// Every mesh's stored records, or [`DeformError::NotSkeletal`] for a format that stores
    /// none (a vertex-animated model, a skeleton or an animation on its own).
    fn records_of_every_mesh(&self) -> Result<Vec<Records<'_>>, DeformError> {
        let records: Vec<_> = (0..self.num_meshes())
            .filter_map(|m| self.records(m))
            .collect();
        if records.is_empty() {
            return Err(DeformError::NotSkeletal(self.format()));
        }
        Ok(records)
    }
}

/// Per vertex of the file, where a prepared `order` (which vertex is at each position) puts it.
fn slots(order: &[u32]) -> Vec<usize> {
    let mut slots = vec![0usize; order.len()];
    for (at, &v) in order.iter().enumerate() {
        if let Some(slot) = slots.get_mut(v as usize) {
            *slot = at;
        }
    }
    slots
}
