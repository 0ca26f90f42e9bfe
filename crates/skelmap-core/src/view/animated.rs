//! The body every one-mesh vertex-animated view shares (Quake MDL, GameStudio MDL3–5, HMP
//! terrains, Quake II MD2): a format folder implements [`VertexAnimated`] with its own decoding (its frames,
//! its mesh, its skins and its tween) and gets [`ModelView`] and a boneless [`Skeleton`] from
//! here.

use core::fmt::Debug;

use super::{ClipOrigin, DeformError, Material, MeshView, ModelView, NoMesh, TerrainGrid};
use crate::alias::Skin;
use crate::alias::skin::grey_palette;
use crate::format::Format;
use crate::pose::framegroups::FrameGroup;
use crate::pose::{Bone, Skeleton};
use crate::skin::SimdLevel;
use crate::skin::morph::{Keyframe, NormalTable};

/// A vertex-animated model's frames as the shared body reads them: how many, one by index,
/// all in one walk, and a frame's name.
pub trait FrameList<'a>: Copy {
    /// One frame.
    type Frame;
    /// The walk over every frame in order.
    type Iter: ExactSizeIterator<Item = Self::Frame> + Clone + Debug;

    /// Number of frames.
    fn count(&self) -> usize;

    /// Frame `i`, or `None` out of range.
    fn frame(&self, i: usize) -> Option<Self::Frame>;

    /// Every frame in order.
    fn walk(&self) -> Self::Iter;

    /// A frame's name bytes, up to the first NUL.
    fn name(frame: &Self::Frame) -> &'a [u8];
}

/// What a one-mesh vertex-animated format decodes itself; [`ModelView`] and [`Skeleton`] come
/// from the shared body for every type that implements it.
///
/// The optional methods default as [`ModelView`]'s do.
pub trait VertexAnimated<'data>: Debug {
    /// The one mesh.
    type Mesh<'a>: MeshView<'a> + Copy + Debug
    where
        Self: 'a;
    /// The frames.
    type Frames<'a>: FrameList<'a>
    where
        Self: 'a;

    /// The format.
    fn format(&self) -> Format;

    /// The one mesh.
    fn the_mesh(&self) -> Self::Mesh<'_>;

    /// The frames.
    fn frame_list(&self) -> Self::Frames<'_>;

    /// The skins (textures) the file embeds.
    fn skins(&self) -> &[Skin<'_>];

    /// Frames `a` and `b` tweened at `t` into `positions` and `normals`, at `level`: see
    /// [`ModelView::tween`].
    ///
    /// # Errors
    ///
    /// As [`ModelView::tween`].
    fn tween(
        &self,
        a: usize,
        b: usize,
        t: f32,
        level: SimdLevel,
        positions: &mut [[f32; 3]],
        normals: &mut [[f32; 3]],
    ) -> Result<(), DeformError>;

    /// Frame `frame` as the file packs it: see [`ModelView::keyframe`].
    fn keyframe(&self, frame: usize) -> Option<(Keyframe<'_>, &'static NormalTable)>;

    /// See [`ModelView::clip_origin`].
    fn clip_origin(&self) -> ClipOrigin {
        ClipOrigin::FrameNames
    }

    /// See [`ModelView::built_in_clips`].
    fn built_in_clips(&self) -> Vec<FrameGroup> {
        Vec::new()
    }

    /// See [`ModelView::skin_palette`].
    fn skin_palette(&self) -> [[u8; 3]; 256] {
        grey_palette()
    }

    /// See [`ModelView::num_materials`]: one per embedded skin by default.
    fn num_materials(&self) -> usize {
        VertexAnimated::skins(self).len()
    }

    /// See [`ModelView::material`]: embedded skin `index`'s by default (an MD2 names its
    /// skins instead).
    fn material(&self, index: usize) -> Option<Material<'_>> {
        Material::of_skin(VertexAnimated::skins(self), index)
    }

    /// See [`ModelView::terrain`].
    fn terrain(&self) -> Option<TerrainGrid> {
        None
    }
}

/// The names of a [`FrameList`]'s frames, in one walk.
pub type FrameNames<'a, L> =
    core::iter::Map<<L as FrameList<'a>>::Iter, fn(<L as FrameList<'a>>::Frame) -> &'a [u8]>;

/// No bones: the model is animated by its frames.
impl<'data, T: VertexAnimated<'data>> Skeleton<'data> for T {
    fn skeleton_bones(&self) -> impl ExactSizeIterator<Item = Bone<'data>> + Clone {
        core::iter::empty()
    }
}

/// One mesh, tweened between frames; a material per skin.
impl<'data, T: VertexAnimated<'data>> ModelView<'data> for T {
    type Mesh<'a>
        = T::Mesh<'a>
    where
        Self: 'a;
    type FrameNames<'a>
        = FrameNames<'a, T::Frames<'a>>
    where
        Self: 'a;
    type BindMesh<'a>
        = NoMesh
    where
        Self: 'a;

    fn format(&self) -> Format {
        VertexAnimated::format(self)
    }

    fn num_frames(&self) -> usize {
        self.frame_list().count()
    }

    fn frame_name(&self, index: usize) -> Option<&[u8]> {
        let frame = self.frame_list().frame(index)?;
        Some(T::Frames::name(&frame))
    }

    fn frame_names(&self) -> Self::FrameNames<'_> {
        let name: fn(_) -> _ = |f| T::Frames::name(&f);
        self.frame_list().walk().map(name)
    }

    fn clip_origin(&self) -> ClipOrigin {
        VertexAnimated::clip_origin(self)
    }

    fn built_in_clips(&self) -> Vec<FrameGroup> {
        VertexAnimated::built_in_clips(self)
    }

    fn is_vertex_animated(&self) -> bool {
        true
    }

    fn num_meshes(&self) -> usize {
        1
    }

    fn mesh(&self, index: usize) -> Option<Self::Mesh<'_>> {
        (index == 0).then(|| self.the_mesh())
    }

    fn skins(&self) -> &[Skin<'_>] {
        VertexAnimated::skins(self)
    }

    fn skin_palette(&self) -> [[u8; 3]; 256] {
        VertexAnimated::skin_palette(self)
    }

    fn num_materials(&self) -> usize {
        VertexAnimated::num_materials(self)
    }

    fn material(&self, index: usize) -> Option<Material<'_>> {
        VertexAnimated::material(self, index)
    }

    fn terrain(&self) -> Option<TerrainGrid> {
        VertexAnimated::terrain(self)
    }

    /// The one mesh (`mesh` is 0: the model has checked it).
    #[allow(clippy::too_many_arguments)]
    fn tween(
        &self,
        mesh: usize,
        a: usize,
        b: usize,
        t: f32,
        level: SimdLevel,
        positions: &mut [[f32; 3]],
        normals: &mut [[f32; 3]],
    ) -> Result<(), DeformError> {
        let _ = mesh;
        VertexAnimated::tween(self, a, b, t, level, positions, normals)
    }

    fn keyframe(&self, mesh: usize, frame: usize) -> Option<(Keyframe<'_>, &'static NormalTable)> {
        (mesh == 0).then(|| VertexAnimated::keyframe(self, frame))?
    }
}
