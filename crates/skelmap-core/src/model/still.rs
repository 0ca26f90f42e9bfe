//! The one-frame path. A model with a single frame (a prop, a vehicle part, a skeleton posed
//! once) shows the same mesh at every time, and so does a clip of one frame: its deformed
//! vertices are baked once into a [`StaticMesh`] ([`Model::static_mesh`],
//! [`Model::static_clip`]), and deforming it again is a copy of them.
//!
//! [`Model::deform`], [`Prepared::skin`](super::Prepared::skin) and
//! [`Compact::skin`](super::Compact::skin) take that path by themselves on a model of one
//! frame: each keeps the mesh its own kernel gave for the pose [`Model::pose`] samples there
//! (`pose(0, 0, 0.0, Interpolation::Nlerp)`), beside what that result depends on (the skinning
//! matrices or the frame pair, bit for bit, and the instruction-set level), and copies it when
//! a call asks for exactly that. Any other pose (one sampled from another model, a blend that
//! rounds differently, another level) is skinned as before, so the copy is always the result
//! skinning would give.

use glam::Affine3A;

use super::Model;
use super::any::with_view;
use crate::pose::framegroups::FrameGroup;
use crate::pose::{BindPoseMesh, Interpolation};
use crate::skin::{SimdLevel, SkinError, SkinMatrices};
use crate::view::{DeformError, ModelView, Pose, Sampled};

/// Every mesh of a model deformed by one pose, owned: what a model or a clip of one frame
/// shows at every time ([`Model::static_mesh`], [`Model::static_clip`]). Copying a mesh out
/// ([`StaticMesh::copy`]) gives what [`Model::deform`] gives for that pose.
///
/// ```
/// use skelmap_core::Model;
/// use skelmap_core::model::Pose;
/// use skelmap_core::pose::Interpolation;
/// use skelmap_core::synth::{TubeParams, tube};
///
/// let bytes = tube(&TubeParams { frames: 1, ..TubeParams::default() }).write()?;
/// let model = Model::from_bytes(&bytes)?;
/// let baked = model.static_mesh()?; // once, at load
/// let n = baked.positions(0).map_or(0, <[_]>::len);
/// let (mut p, mut q) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
/// baked.copy(0, &mut p, &mut q)?; // every frame: a copy
///
/// let (mut pose, mut skinned) = (Pose::default(), vec![[0.0; 3]; n]);
/// model.pose(0, 0, 0.0, Interpolation::Nlerp, &mut pose)?;
/// model.deform(0, &pose, &mut skinned, &mut q)?;
/// assert_eq!(p, skinned);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StaticMesh {
    meshes: Vec<BakedMesh>,
}

/// One mesh's deformed vertices.
#[derive(Debug, Clone, Default, PartialEq)]
struct BakedMesh {
    positions: Vec<[f32; 3]>,
    normals: Vec<[f32; 3]>,
}

impl StaticMesh {
    /// Number of meshes (as [`Model::num_meshes`]).
    #[must_use]
    pub fn num_meshes(&self) -> usize {
        self.meshes.len()
    }

    /// Mesh `mesh`'s positions, one per vertex in file order.
    #[must_use]
    pub fn positions(&self, mesh: usize) -> Option<&[[f32; 3]]> {
        self.meshes.get(mesh).map(|m| &m.positions[..])
    }

    /// Mesh `mesh`'s normals, one per vertex in file order.
    #[must_use]
    pub fn normals(&self, mesh: usize) -> Option<&[[f32; 3]]> {
        self.meshes.get(mesh).map(|m| &m.normals[..])
    }

    /// Mesh `mesh`'s normals, to rewrite (a caller that derives its own, such as vertex
    /// normals smoothed from an MS3D's corner normals).
    #[must_use]
    pub fn normals_mut(&mut self, mesh: usize) -> Option<&mut [[f32; 3]]> {
        self.meshes.get_mut(mesh).map(|m| &mut m.normals[..])
    }

    /// Copies mesh `mesh`'s positions and normals into the start of `positions` and `normals`
    /// (at least the mesh's vertex count each; the rest is left as it is), as deforming would
    /// write them.
    ///
    /// # Errors
    ///
    /// [`DeformError::NoMesh`]; [`SkinError::Output`] for an output shorter than the mesh.
    pub fn copy(
        &self,
        mesh: usize,
        positions: &mut [[f32; 3]],
        normals: &mut [[f32; 3]],
    ) -> Result<(), DeformError> {
        let baked = self.meshes.get(mesh).ok_or(DeformError::NoMesh {
            mesh,
            meshes: self.meshes.len(),
        })?;
        let (p, n) = outputs(baked.positions.len(), positions, normals)?;
        p.copy_from_slice(&baked.positions);
        n.copy_from_slice(&baked.normals);
        Ok(())
    }

    /// Each of `meshes` meshes (`vertices(m)` vertices each) deformed by `deform`.
    pub(crate) fn bake(
        meshes: usize,
        vertices: impl Fn(usize) -> usize,
        mut deform: impl FnMut(usize, &mut [[f32; 3]], &mut [[f32; 3]]) -> Result<(), DeformError>,
    ) -> Result<StaticMesh, DeformError> {
        let meshes = (0..meshes)
            .map(|m| {
                let n = vertices(m);
                let mut baked = BakedMesh {
                    positions: vec![[0.0; 3]; n],
                    normals: vec![[0.0; 3]; n],
                };
                deform(m, &mut baked.positions, &mut baked.normals)?;
                Ok(baked)
            })
            .collect::<Result<_, DeformError>>()?;
        Ok(StaticMesh { meshes })
    }
}

/// Positions and normals to write.
type Outputs<'o> = (&'o mut [[f32; 3]], &'o mut [[f32; 3]]);

/// The first `need` entries of `positions` and `normals`, or the error a kernel gives for an
/// output shorter than its mesh.
fn outputs<'o>(
    need: usize,
    positions: &'o mut [[f32; 3]],
    normals: &'o mut [[f32; 3]],
) -> Result<Outputs<'o>, SkinError> {
    let have = positions.len().min(normals.len());
    match (positions.get_mut(..need), normals.get_mut(..need)) {
        (Some(p), Some(n)) => Ok((p, n)),
        _ => Err(SkinError::Output { need, have }),
    }
}

/// A mesh baked by one kernel, and what its result depended on: copied for a call that asks
/// for exactly that (see the [module docs](self)).
#[derive(Debug, Clone)]
pub(crate) struct Still<K> {
    /// The pose's matrices (`Prepared`, `Compact`) or the pose itself (`Model::deform`).
    key: K,
    /// The level the kernel ran at.
    level: SimdLevel,
    pub(crate) mesh: StaticMesh,
}

impl<K> Still<K> {
    pub(crate) fn new(key: K, level: SimdLevel, mesh: StaticMesh) -> Self {
        Still { key, level, mesh }
    }

    /// Copies mesh `mesh` of the bake into `positions` and `normals` when `level` runs the
    /// code it was baked at and `same(key)` holds; `false` when it does not, or the copy
    /// fails (no such mesh, a short output), which leaves the kernel to skin and to say why.
    ///
    /// `bones` is what `same` compares (the pose's bones and replaced vertices): where that
    /// is many times the mesh's vertices (a model of many small meshes and many bones), the
    /// comparison would cost more than skinning, made once a mesh, so the kernel skins
    /// instead, which gives the same result.
    pub(crate) fn copied(
        &self,
        level: SimdLevel,
        (bones, same): (usize, impl FnOnce(&K) -> bool),
        mesh: usize,
        positions: &mut [[f32; 3]],
        normals: &mut [[f32; 3]],
    ) -> bool {
        let vertices = self.mesh.positions(mesh).map_or(0, <[_]>::len);
        level.or_supported() == self.level
            && bones <= COMPARED_PER_VERTEX * vertices + COMPARED_ANYWAY
            && same(&self.key)
            && self.mesh.copy(mesh, positions, normals).is_ok()
    }
}

/// How many bones (and replaced vertices) a mesh's vertex pays the one-frame copy's check
/// for, past [`COMPARED_ANYWAY`].
const COMPARED_PER_VERTEX: usize = 4;

/// How many bones the one-frame copy's check compares for any mesh.
const COMPARED_ANYWAY: usize = 256;

/// What [`same_pose`] compares of `pose`: its bones and its replaced vertices.
pub(crate) fn compared(pose: &Pose) -> usize {
    pose.matrices.bones() + pose.frame_vertices.positions.len()
}

/// `true` when `a` and `b` hold the same matrices bit for bit: the same skinning result.
pub(crate) fn same_matrices(a: &SkinMatrices, b: &SkinMatrices) -> bool {
    a.same_bits(b)
}

/// `true` when deforming by `x` and by `y` gives the same result bit for bit: the same frame
/// pair and blend, or the same matrices and bind-relative transforms.
pub(crate) fn same_pose(x: &Pose, y: &Pose) -> bool {
    fn bits(m: &[Affine3A]) -> impl Iterator<Item = u32> + '_ {
        m.iter().flat_map(Affine3A::to_cols_array).map(f32::to_bits)
    }
    match (x.sampled, y.sampled) {
        (Sampled::Frames { a, b, t }, Sampled::Frames { a: c, b: d, t: u }) => {
            (a, b, t.to_bits()) == (c, d, u.to_bits())
        }
        (Sampled::Bones, Sampled::Bones) => {
            fn vertices(p: &Pose) -> impl Iterator<Item = u32> + '_ {
                let f = &p.frame_vertices;
                let floats = f.positions.iter().chain(&f.normals).flatten();
                (f.replaced.iter().copied()).chain(floats.map(|v| v.to_bits()))
            }
            x.matrices.same_bits(&y.matrices)
                && bits(&x.relative).eq(bits(&y.relative))
                && vertices(x).eq(vertices(y))
        }
        _ => false,
    }
}

impl Model<'_> {
    /// `true` when `pose` is this model's bind pose and its meshes are stored in it (MS3D,
    /// SL, IQM, MDL7): the same world transforms as [`Model::bind_palette`], bit for bit (a
    /// model without a skeleton: any bone pose), and no frame replaced vertices (an MDL7
    /// frame may move vertices while its bones stay bound). Deforming by it gives the mesh
    /// as stored. What it finds for a pose is kept by the pose's stamp, so that a pose
    /// deforming every mesh is compared once.
    pub(crate) fn is_stored_pose(&self, pose: &Pose) -> bool {
        // Bit for bit, padding lanes aside: each matrix's differing bits folded together,
        // which compiles to vector operations (a flat iterator of floats, or an array
        // comparison through `memcmp`, cost more than the rest of the check).
        fn same_bits(a: &[Affine3A], b: &[Affine3A]) -> bool {
            let differ = |(a, b): (&Affine3A, &Affine3A)| {
                let (a, b) = (a.to_cols_array(), b.to_cols_array());
                a.iter()
                    .zip(&b)
                    .fold(0, |d, (a, b)| d | (a.to_bits() ^ b.to_bits()))
            };
            a.len() == b.len() && a.iter().zip(b).all(|m| differ(m) == 0)
        }
        use core::sync::atomic::Ordering::Relaxed;
        let known = self.stored_pose.load(Relaxed);
        if pose.stamp != 0 && known >> 1 == pose.stamp {
            return known & 1 == 1;
        }
        let stored = pose.sampled == Sampled::Bones
            && pose.frame_vertices.is_empty()
            && pose.local.skin_scales.iter().all(|&s| s == 1.0)
            && self.is_bind_posed()
            && (!with_view!(self.view(), v => v.has_skeleton())
                || same_bits(&pose.palette.world, &self.bind_palette().world));
        if pose.stamp != 0 {
            self.stored_pose
                .store(pose.stamp << 1 | u64::from(stored), Relaxed);
        }
        stored
    }

    /// Mesh `mesh` of a bind-posed model as stored, copied into `positions` and `normals`:
    /// what deforming by [`Model::is_stored_pose`]'s pose gives, without the blend's
    /// rounding. `None` for a model whose meshes are not stored in a bind pose.
    pub(crate) fn copy_stored(
        &self,
        mesh: usize,
        positions: &mut [[f32; 3]],
        normals: &mut [[f32; 3]],
    ) -> Option<Result<(), DeformError>> {
        with_view!(self.view(), v => {
            let bind = ModelView::bind_pose_mesh(v)?;
            if ModelView::records(v, mesh).is_some() {
                return None;
            }
            Some(outputs(bind.num_vertices(), positions, normals)
                .map(|(p, n)| bind.copy_bind_pose(p, n))
                .map_err(DeformError::from))
        })
    }

    /// The pose the one-frame path bakes at: frame `frame` on its own, as [`Model::pose`]
    /// samples it with `t = 0`.
    pub(crate) fn still_pose(&self, frame: usize) -> Result<Pose, DeformError> {
        let mut pose = Pose::default();
        self.pose(frame, frame, 0.0, Interpolation::Nlerp, &mut pose)?;
        Ok(pose)
    }

    /// Every mesh of a model of one frame, deformed once by that frame: an explicit, owned
    /// copy, after which each frame is [`StaticMesh::copy`] (see [`StaticMesh`] for an
    /// example). The same vertices as [`Model::deform`] with the pose `Model::pose(0, 0, 0.0,
    /// Interpolation::Nlerp)` samples; made on the first call (or the first such
    /// [`Model::deform`]) and kept, each call returning a copy.
    ///
    /// # Errors
    ///
    /// [`DeformError::NotStatic`] for a model with no frame or more than one; the errors of
    /// [`Model::deform`].
    pub fn static_mesh(&self) -> Result<StaticMesh, DeformError> {
        let frames = self.num_frames();
        if frames != 1 {
            return Err(DeformError::NotStatic { frames });
        }
        match self.still() {
            Some(still) => Ok(still.mesh.clone()),
            // Baking failed: deform once more for its error.
            None => self.bake_frame(0).map(|(_, mesh)| mesh),
        }
    }

    /// Every mesh deformed by the one frame of `clip` (a clip of one frame: a held pose),
    /// as [`Model::static_mesh`] does for a model of one frame.
    ///
    /// ```
    /// use skelmap_core::Model;
    /// use skelmap_core::pose::framegroups::FrameGroup;
    ///
    /// let bytes = skelmap_core::synth::tube(&Default::default()).write()?; // 9 frames
    /// let model = Model::from_bytes(&bytes)?;
    /// let held = FrameGroup { name: "held".into(), first: 4, count: 1, fps: 10.0, looped: false };
    /// let baked = model.static_clip(&held)?;
    /// assert_eq!(baked.num_meshes(), model.num_meshes());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`DeformError::NotStatic`] for a clip of more than one frame (or none);
    /// [`DeformError::Clip`] for one outside the model's frames; the errors of
    /// [`Model::deform`].
    pub fn static_clip(&self, clip: &FrameGroup) -> Result<StaticMesh, DeformError> {
        if clip.count != 1 {
            return Err(DeformError::NotStatic {
                frames: clip.count as usize,
            });
        }
        let frames = self.num_frames();
        if clip.first as usize >= frames {
            return Err(DeformError::Clip {
                first: clip.first,
                end: u64::from(clip.first) + 1,
                fps: clip.fps,
                frames,
            });
        }
        self.bake_frame(clip.first as usize).map(|(_, mesh)| mesh)
    }

    /// Every mesh deformed by frame `frame` on its own, by the skinning path, and the pose.
    fn bake_frame(&self, frame: usize) -> Result<(Pose, StaticMesh), DeformError> {
        let pose = self.still_pose(frame)?;
        let vertices = |m| self.mesh(m).map_or(0, |m| m.num_vertices());
        let level = SimdLevel::detect();
        let mesh = StaticMesh::bake(self.num_meshes(), vertices, |m, p, n| {
            self.deform_skinned(m, &pose, level, p, n)
        })?;
        Ok((pose, mesh))
    }

    /// The baked mesh of a model of one frame, made on first use; `None` for other models
    /// and where baking failed.
    pub(crate) fn still(&self) -> Option<&Still<Pose>> {
        if self.num_frames() != 1 {
            return None;
        }
        self.still
            .get_or_init(|| {
                let (pose, mesh) = self.bake_frame(0).ok()?;
                Some(Box::new(Still::new(pose, SimdLevel::detect(), mesh)))
            })
            .as_deref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A bake of one mesh of `vertices` vertices.
    fn still(vertices: usize) -> Still<()> {
        let mesh = BakedMesh {
            positions: vec![[1.0, 2.0, 3.0]; vertices],
            normals: vec![[0.0, 0.0, 1.0]; vertices],
        };
        let level = SimdLevel::detect().or_supported();
        Still::new((), level, StaticMesh { meshes: vec![mesh] })
    }

    #[test]
    fn a_pose_of_many_more_bones_than_the_mesh_has_vertices_is_skinned_not_compared() {
        let bake = still(10);
        let level = SimdLevel::detect();
        let (mut p, mut n) = (vec![[0.0; 3]; 10], vec![[0.0; 3]; 10]);
        // Within 4 bones a vertex and 256 more: compared, and copied.
        let mut compared = false;
        let same = (4 * 10 + 256, |_: &()| {
            compared = true;
            true
        });
        assert!(bake.copied(level, same, 0, &mut p, &mut n));
        assert!(compared);
        assert_eq!(p, [[1.0, 2.0, 3.0]; 10]);
        // One bone more: left to the kernel, without comparing.
        let mut compared = false;
        let same = (4 * 10 + 257, |_: &()| {
            compared = true;
            true
        });
        assert!(!bake.copied(level, same, 0, &mut p, &mut n));
        assert!(!compared);
    }
}
