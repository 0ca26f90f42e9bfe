//! Skeletal frames that also replace vertices (MDL7): the rule every path keeps. A frame's
//! vertices replace the stored ones in bind space (tweened between the pose's two frames),
//! then the bones pose them; a vertex no bone moves takes the replaced position as it is.
//!
//! [`Model::pose`] writes the pose's bind-space vertices into [`Pose::frame_vertices`];
//! [`Model::deform`] skins them through [`Framed`]; [`Prepared`](super::Prepared) and
//! [`Compact`](super::Compact), whose kernels hold the stored mesh, skin it and then skin the
//! replaced vertices again from their replacements ([`Replacer`]).

use glam::Vec3A;

use super::Model;
use super::any::with_view;
use crate::pose::{BindPoseMesh, BindVertex};
use crate::skin;
use crate::view::{DeformError, ModelView, Pose};

/// A bind-pose mesh whose positions and normals are a pose's frame vertices.
pub(crate) struct Framed<'a, M> {
    pub(crate) mesh: M,
    pub(crate) pose: &'a Pose,
}

impl<M: BindPoseMesh> BindPoseMesh for Framed<'_, M> {
    fn num_vertices(&self) -> usize {
        self.mesh.num_vertices()
    }

    fn bind_vertex(&self, i: usize) -> Option<BindVertex> {
        let mut v = self.mesh.bind_vertex(i)?;
        let frame = &self.pose.frame_vertices;
        if let (Some(p), Some(n)) = (frame.positions.get(i), frame.normals.get(i)) {
            v.position = Vec3A::from(*p);
            v.normal = Vec3A::from(*n);
        }
        Some(v)
    }
}

/// The vertices `indices` names of a mesh, in that order.
struct Picked<'a, M> {
    mesh: M,
    indices: &'a [u32],
}

impl<M: BindPoseMesh> BindPoseMesh for Picked<'_, M> {
    fn num_vertices(&self) -> usize {
        self.indices.len()
    }

    fn bind_vertex(&self, k: usize) -> Option<BindVertex> {
        self.mesh.bind_vertex(*self.indices.get(k)? as usize)
    }
}

/// The stored bind-pose mesh of a model whose frames replace vertices, kept by
/// [`Prepared`](super::Prepared) and [`Compact`](super::Compact) (whose kernels hold the
/// stored vertices) to skin each pose's replaced vertices again: an explicit copy, made only
/// for such models.
#[derive(Debug, Clone, Default)]
pub(crate) struct Replacer {
    vertices: Vec<BindVertex>,
}

impl BindPoseMesh for Replacer {
    fn num_vertices(&self) -> usize {
        self.vertices.len()
    }

    fn bind_vertex(&self, i: usize) -> Option<BindVertex> {
        self.vertices.get(i).copied()
    }
}

impl Replacer {
    /// Skins the vertices `pose`'s frames replace, from their bind-space replacements, by the
    /// bind-pose linear blend ([`skin::bind_lbs`], as [`Model::deform`] does), writing vertex
    /// `i` at `slot(i)` of `positions` and `normals`.
    pub(crate) fn skin(
        &self,
        pose: &Pose,
        slot: impl Fn(usize) -> usize,
        positions: &mut [[f32; 3]],
        normals: &mut [[f32; 3]],
    ) -> Result<(), DeformError> {
        let replaced = &pose.frame_vertices.replaced;
        if replaced.is_empty() {
            return Ok(());
        }
        let framed = Framed { mesh: self, pose };
        let picked = Picked {
            mesh: &framed,
            indices: replaced,
        };
        let k = replaced.len();
        let (mut p, mut n) = (vec![[0.0; 3]; k], vec![[0.0; 3]; k]);
        skin::bind_lbs(&picked, &pose.relative, &mut p, &mut n)?;
        for ((&i, p), n) in replaced.iter().zip(p).zip(n) {
            let at = slot(i as usize);
            if let (Some(sp), Some(sn)) = (positions.get_mut(at), normals.get_mut(at)) {
                *sp = p;
                *sn = n;
            }
        }
        Ok(())
    }
}

impl Model<'_> {
    /// `true` for a skeletal model whose frames also replace vertices (MDL7 files whose frames
    /// carry vertices beside their bone matrices): each frame's vertices replace the stored
    /// ones in bind space, then the bones pose them. [`Model::deform`], [`Model::prepare`],
    /// [`Model::compact`] (through [`Compact::skin_pose`](super::Compact::skin_pose)) and
    /// [`Model::to_asset`] keep this; [`Model::gpu_mesh`] refuses such a model.
    #[must_use]
    pub fn frames_replace_vertices(&self) -> bool {
        with_view!(self.view(), v => ModelView::frames_replace_vertices(v))
    }

    /// The pose's bind-space vertices of frames `a` and `b` at `t` (nothing unless the
    /// model's frames replace vertices).
    pub(crate) fn sample_frame_vertices(&self, a: usize, b: usize, t: f32, pose: &mut Pose) {
        with_view!(self.view(), v => {
            ModelView::frame_bind_vertices(v, a, b, t, &mut pose.frame_vertices);
        });
    }

    /// The copy [`Replacer`] holds, for a model whose frames replace vertices.
    pub(crate) fn replacer(&self) -> Option<Replacer> {
        if !self.frames_replace_vertices() {
            return None;
        }
        with_view!(self.view(), v => ModelView::bind_pose_mesh(v).map(|mesh| Replacer {
            vertices: (0..mesh.num_vertices()).filter_map(|i| mesh.bind_vertex(i)).collect(),
        }))
    }
}
