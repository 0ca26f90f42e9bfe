//! The body the pre-weighted bone-vertex views share (DPM, SKM with its SKP, MD5): meshes of
//! [`BoneVert`](crate::bonevert::BoneVert) records posed by frames of bone poses. A format
//! implements [`BoneVertexModel`] with its own decoding (bones and frames, meshes and their
//! shaders) and [`bone_vertex_view!`](crate::view::bone_vertex_view) writes its
//! [`ModelView`](super::ModelView).
//!
//! A macro, not a blanket implementation: [`VertexAnimated`](super::VertexAnimated) has the one
//! blanket implementation of [`ModelView`](super::ModelView) coherence allows.

use core::fmt::Debug;

use super::MeshView;
use crate::format::Format;
use crate::pose::{PoseFrames, SkeletalMesh, Skeleton};

/// What a pre-weighted bone-vertex format decodes itself: bones and frames ([`Skeleton`],
/// [`PoseFrames`]), its meshes and the shader each is drawn with.
pub trait BoneVertexModel<'data>: Skeleton<'data> + PoseFrames<'data> + Debug {
    /// One mesh.
    type Mesh<'a>: SkeletalMesh<'a> + MeshView<'a> + Copy + Debug
    where
        Self: 'a;

    /// The format.
    const FORMAT: Format;

    /// The name of frame `index`, or `None` out of range.
    fn frame_name(&self, index: usize) -> Option<&[u8]>;

    /// Number of meshes.
    fn num_meshes(&self) -> usize;

    /// Mesh `index`, or `None` out of range.
    fn mesh(&self, index: usize) -> Option<Self::Mesh<'_>>;

    /// The shader mesh `mesh` is drawn with (its material's name).
    fn shader_name<'a>(mesh: &Self::Mesh<'a>) -> &'a [u8]
    where
        Self: 'a;
}

/// Implements [`ModelView`](crate::view::ModelView) for `$model`, a [`BoneVertexModel`]: its
/// frames posed by name, a material per mesh named by its shader (DarkPlaces' and Qfusion's
/// conventions: shader names, `+Z` up, facing `+X`), the records of each mesh for the record
/// kernels. Items after the name go into the implementation as they are (a format's own
/// `check_animation` or `stored_bounds`).
macro_rules! bone_vertex_view {
    ($model:ident $(, $item:item)* $(,)?) => {
        impl<'data> $crate::view::ModelView<'data> for $model<'data> {
            type Mesh<'a>
                = <Self as $crate::view::BoneVertexModel<'data>>::Mesh<'a>
            where
                Self: 'a;
            type FrameNames<'a>
                = $crate::view::IndexedNames<'a, 'data, Self>
            where
                Self: 'a;
            type BindMesh<'a>
                = $crate::view::NoMesh
            where
                Self: 'a;

            fn pose_frames(&self) -> Option<&impl $crate::pose::PoseFrames<'data>> {
                Some(self)
            }

            fn format(&self) -> $crate::format::Format {
                <Self as $crate::view::BoneVertexModel<'data>>::FORMAT
            }

            fn conventions(&self) -> $crate::view::Conventions {
                $crate::view::Conventions {
                    textures: $crate::view::TextureNames::Shaders,
                    ..$crate::view::Conventions::QUAKE
                }
            }

            fn frame_name(&self, index: usize) -> Option<&[u8]> {
                $crate::view::BoneVertexModel::frame_name(self, index)
            }

            fn frame_names(&self) -> Self::FrameNames<'_> {
                $crate::view::IndexedNames::new(self)
            }

            fn num_meshes(&self) -> usize {
                $crate::view::BoneVertexModel::num_meshes(self)
            }

            fn mesh(&self, index: usize) -> Option<Self::Mesh<'_>> {
                $crate::view::BoneVertexModel::mesh(self, index)
            }

            fn num_materials(&self) -> usize {
                $crate::view::BoneVertexModel::num_meshes(self)
            }

            fn material(&self, index: usize) -> Option<$crate::view::Material<'_>> {
                let mesh = $crate::view::BoneVertexModel::mesh(self, index)?;
                let shader = <Self as $crate::view::BoneVertexModel<'data>>::shader_name(&mesh);
                Some($crate::view::Material::plain(shader))
            }

            fn records(&self, mesh: usize) -> Option<$crate::skin::Records<'_>> {
                let mesh = $crate::view::BoneVertexModel::mesh(self, mesh)?;
                Some($crate::skin::RecordsMesh::of(&mesh).into())
            }

            $($item)*
        }
    };
}

pub(crate) use bone_vertex_view;
