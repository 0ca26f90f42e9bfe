//! What every format's view gives [`Model`](crate::Model): the traits a format folder
//! implements, and the format-neutral types they speak in.
//!
//! [`Model`](crate::Model) holds one view of any format in its `View` enum and dispatches every
//! format-neutral method to these traits through one macro (`model/any.rs`). A format folder
//! implements, in its `view.rs`:
//!
//! - [`Skeleton`] (bones; none for vertex-animated formats);
//! - [`ModelView`]: frames and clips, sampling, meshes, materials and skins, and what deforming
//!   needs (pre-weighted records, a bind-pose mesh, or the tween of packed frames). Every method
//!   but a few has a default that says "this format has none", so a format implements what it
//!   has;
//! - [`MeshView`] for its mesh type: counts, triangles, texture coordinates, submeshes and bone
//!   influences.
//!
//! A one-mesh vertex-animated format implements [`VertexAnimated`] instead of the first two:
//! its frames, mesh, skins and tween, and the shared body in `animated.rs` gives the rest. A
//! pre-weighted bone-vertex format (DPM, SKM, MD5's decoded block) implements
//! [`BoneVertexModel`] and has
//! `bone_vertex_view!` (`weighted.rs`) write its [`ModelView`].
//!
//! The types here ([`Pose`], [`Material`], [`Submesh`], …) are re-exported by
//! [`model`](crate::model), where users meet them.

mod animated;
mod mesh;
pub(crate) mod open;
mod pose;
pub mod skin_file;
mod weighted;

use glam::{Affine3A, Quat};

pub use animated::{FrameList, FrameNames, VertexAnimated};
pub(crate) use mesh::Selected;
pub use mesh::{Material, Submesh, TerrainGrid, TexcoordLayout, TriangleIndices};
pub(crate) use mesh::{
    followed_skin, skeletal_influences, skeletal_mesh_view, skeletal_texcoord, skeletal_triangle,
};
pub(crate) use pose::Sampled;
pub use pose::{DeformError, FrameVertices, Pose};
pub use skin_file::SkinFile;
pub use weighted::BoneVertexModel;
pub(crate) use weighted::bone_vertex_view;

use crate::alias::Skin;
use crate::alias::skin::grey_palette;
use crate::format::Format;
use crate::pose::bounds::Aabb;
use crate::pose::framegroups::FrameGroup;
use crate::pose::{
    BakeError, BakedFrames, BindPoseMesh, BindVertex, Bone, Interpolation, KeptFrames, LocalPose,
    PoseFrames, Skeleton, sample,
};
use crate::skin::morph::{Keyframe, NormalTable};
use crate::skin::{Records, SimdLevel, SkinError};

/// The up axis of a format's coordinates (and of an [`Asset`](crate::asset::Asset)'s).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UpAxis {
    /// Every format but MilkShape (the Quake lineage): `+Z` up, `+X` forward.
    Z,
    /// MilkShape (and glTF): `+Y` up.
    Y,
}

impl UpAxis {
    /// The rotation that brings these axes to glTF's `+Y` up: −90° about `X` for `+Z` up
    /// (`(x, y, z) → (x, z, −y)`), none for `+Y` up.
    #[must_use]
    pub fn to_y_up(self) -> Quat {
        match self {
            UpAxis::Z => Quat::from_rotation_x(-core::f32::consts::FRAC_PI_2),
            UpAxis::Y => Quat::IDENTITY,
        }
    }
}

/// Frames per second of clips made from frame names (DarkPlaces' default).
pub const NAMED_CLIP_FPS: f32 = 10.0;

/// Where [`Model::clips`](crate::Model::clips) come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClipOrigin {
    /// Consecutive frames whose names share a stem (`walk_1`, `walk_2` …), at
    /// [`NAMED_CLIP_FPS`].
    FrameNames,
    /// A `.framegroups` sidecar.
    FrameGroupsFile,
    /// The whole timeline of an MS3D (`total_frames`), at its keyframer's rate.
    Timeline,
    /// The clips the file defines: a Quake model's (or MDL2's) frame groups, timed by their
    /// intervals, with its single frames grouped by name at [`NAMED_CLIP_FPS`]; an IQM's
    /// animations, MD5 animations, Half-Life sequences, PSA sequences, ZYM scenes and MDX
    /// clips, each at its own rate.
    FrameGroups,
    /// Quake III's `animation.cfg` beside a player's legs or torso
    /// ([`pose::animation_cfg`](crate::pose::animation_cfg)).
    AnimationConfig,
    /// The animation group an Enemy Territory character file names for an MDM (`.anim`, and
    /// the `.aninc` files it includes), or the `.aninc` file beside an MDX.
    AnimationGroup,
    /// The model has no frames to group.
    None,
}

/// How a format's files are meant to be read: which way is up and front in their coordinates,
/// and what their materials name. [`ModelView::conventions`] answers it for each format, so
/// that building an [`Asset`](crate::asset::Asset), rendering and exporting name no format.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Conventions {
    /// The axis that points up in the file's coordinates.
    pub up: UpAxis,
    /// The direction the model faces (its front), a unit axis in the file's coordinates.
    pub front: [f32; 3],
    /// What a material's [`texture`](Material::texture) names.
    pub textures: TextureNames,
    /// Whether the file's materials are its own list, each with its colour, referenced by
    /// index and naming the groups that draw with them (MilkShape), rather than names that
    /// meshes share (several meshes naming one shader are one material).
    pub own_materials: bool,
}

/// What a material's texture string names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextureNames {
    /// A file, relative to the model (or a skin in it).
    Files,
    /// A shader, which an engine maps to textures by its own rules (`models/player/body`):
    /// not a file to point an image at.
    Shaders,
}

impl Conventions {
    /// The Quake lineage's conventions, the default: `+Z` up, facing `+X`, texture names are
    /// files, materials shared by name.
    pub const QUAKE: Conventions = Conventions {
        up: UpAxis::Z,
        front: [1.0, 0.0, 0.0],
        textures: TextureNames::Files,
        own_materials: false,
    };
}

impl Default for Conventions {
    fn default() -> Self {
        Conventions::QUAKE
    }
}

/// A validated view of one format, as [`Model`](crate::Model) needs it (see the
/// [module docs](self)). Defaults answer "none": no frames, meshes, materials or skins, nothing
/// to deform.
pub trait ModelView<'data>: Skeleton<'data> + core::fmt::Debug {
    /// One mesh of the view (a [`NoMesh`] where it has none).
    type Mesh<'a>: MeshView<'a> + Copy + core::fmt::Debug
    where
        Self: 'a;

    /// The walk over the frames' names (an [`IndexedNames`] where finding a frame by index is
    /// O(1)).
    type FrameNames<'a>: ExactSizeIterator<Item = &'a [u8]> + Clone + core::fmt::Debug
    where
        Self: 'a;

    /// The mesh a bind-posed format stores (a [`NoMesh`] for the others).
    type BindMesh<'a>: BindPoseMesh
    where
        Self: 'a;

    /// The format.
    fn format(&self) -> Format;

    /// How the format's files are meant to be read (up, front, what materials name); the
    /// Quake lineage's by default.
    fn conventions(&self) -> Conventions {
        Conventions::QUAKE
    }

    /// Adds to `diag` the findings of the checks that judge the animation rather than prove
    /// the file safe to read, and that cost a pass over every frame (a DPM's rotations,
    /// [`Dpm::check_rotations`](crate::dpm::Dpm::check_rotations)): [`Model`](crate::Model)
    /// runs them when its diagnostics are first asked for, not at open. None by default.
    fn check_animation(&self, diag: &mut crate::diag::Diagnostics) {
        let _ = diag;
    }

    // ---- frames and clips ----

    /// The view's frames of bone poses, for formats that store them; the defaults of
    /// [`num_frames`](ModelView::num_frames), [`sample`](ModelView::sample) and
    /// [`bake`](ModelView::bake) read them.
    fn pose_frames(&self) -> Option<&impl PoseFrames<'data>> {
        None::<&NoMesh>
    }

    /// Number of frames [`Model::pose`](crate::Model::pose) addresses: by default those of
    /// [`pose_frames`](ModelView::pose_frames).
    fn num_frames(&self) -> usize {
        self.pose_frames().map_or(0, |p| p.num_frames())
    }

    /// The name of frame `index`: empty for formats whose frames have none; `None` out of
    /// range.
    fn frame_name(&self, index: usize) -> Option<&[u8]> {
        (index < self.num_frames()).then_some(&[])
    }

    /// Every frame's name in order, in one walk.
    fn frame_names(&self) -> Self::FrameNames<'_>;

    /// Where the model's clips come from, when no `.framegroups` sidecar gives them: by default
    /// the frames' names (a model whose frames have none then has no clips).
    fn clip_origin(&self) -> ClipOrigin {
        ClipOrigin::FrameNames
    }

    /// The clips the format defines itself, for [`ClipOrigin::Timeline`],
    /// [`ClipOrigin::FrameGroups`], [`ClipOrigin::AnimationConfig`] and
    /// [`ClipOrigin::AnimationGroup`] (clips from frame names
    /// are built by the model).
    fn built_in_clips(&self) -> Vec<FrameGroup> {
        Vec::new()
    }

    /// `true` for formats whose frames store the mesh's positions, which
    /// [`tween`](ModelView::tween) blends.
    fn is_vertex_animated(&self) -> bool {
        false
    }

    // ---- poses ----

    /// Frames `a` and `b` (both in range) blended at `t` into `out`: one parent-relative pose
    /// per bone, by default [`pose::sample`](crate::pose::sample) of
    /// [`pose_frames`](ModelView::pose_frames) (emptied for formats without them).
    fn sample(
        &self,
        a: usize,
        b: usize,
        t: f32,
        interpolation: Interpolation,
        out: &mut LocalPose,
    ) {
        match self.pose_frames() {
            Some(frames) => sample(frames, a, b, t, interpolation, out),
            None => {
                out.bones.clear();
                out.scales.clear();
                out.skin_scales.clear();
            }
        }
    }

    /// [`sample`](ModelView::sample) through a sampling context's `kept` frames, which it
    /// keeps for the next call: the same poses, bit for bit, decoding only the frames `kept`
    /// does not hold. `kept` must hold frames of this view only
    /// ([`model::Sampler`](crate::model::Sampler) ties one to its model). By default
    /// through [`pose_frames`](ModelView::pose_frames); a format that overrides `sample`
    /// overrides this too (MS3D: its timeline, nothing kept).
    fn sample_kept(
        &self,
        kept: &mut KeptFrames,
        (a, b, t): (usize, usize, f32),
        interpolation: Interpolation,
        out: &mut LocalPose,
    ) {
        match self.pose_frames() {
            Some(frames) => kept.sample(frames, (a, b, t), interpolation, out),
            None => self.sample(a, b, t, interpolation, out),
        }
    }

    /// For formats keyed in seconds: the pose `seconds` into the timeline into `out`, and
    /// `true`; `false`, with `out` untouched, for formats keyed by frames.
    fn sample_seconds(
        &self,
        seconds: f32,
        interpolation: Interpolation,
        out: &mut LocalPose,
    ) -> bool {
        let _ = (seconds, interpolation, out);
        false
    }

    /// The pose the meshes are stored against into `out`: frame 0 by default.
    fn bind_pose(&self, out: &mut LocalPose) {
        self.sample(0, 0, 0.0, Interpolation::Nlerp, out);
    }

    /// Every frame of [`pose_frames`](ModelView::pose_frames) converted once (empty for
    /// formats without them).
    ///
    /// # Errors
    ///
    /// [`BakeError::TooLarge`] past [`MAX_BAKED_POSES`](crate::pose::MAX_BAKED_POSES).
    fn bake(&self) -> Result<BakedFrames<'data>, BakeError> {
        match self.pose_frames() {
            Some(frames) => BakedFrames::new(frames),
            None => Ok(BakedFrames::default()),
        }
    }

    /// The bounds the file stores, if any.
    fn stored_bounds(&self) -> Option<Aabb> {
        None
    }

    // ---- meshes ----

    /// Number of meshes.
    fn num_meshes(&self) -> usize {
        0
    }

    /// Mesh `index`, or `None` out of range.
    fn mesh(&self, index: usize) -> Option<Self::Mesh<'_>> {
        let _ = index;
        None
    }

    // ---- attachments ----

    /// `true` for formats whose every joint is a point other models attach to, having no
    /// flag to mark some (IQM, MS3D, MD5, PSK, PSA, ZYM); `false` (the default) where only
    /// the bones flagged [`Bone::is_attachment`] are (DPM, SKM, SKP, MDX) or there are no
    /// bones.
    fn every_bone_attaches(&self) -> bool {
        false
    }

    /// Number of tags: attachment points a format stores apart from its bones, moving with
    /// its frames (MD3, MDC) or placed by a bone (MDR, MDM, Half-Life); 0 by default.
    fn num_tags(&self) -> usize {
        0
    }

    /// The name of tag `index` (as the first frame stores it), or `None` out of range.
    fn tag_name(&self, index: usize) -> Option<&[u8]> {
        let _ = index;
        None
    }

    /// The bone tag `index` follows, for a format whose tags name bones (MDR, MDM,
    /// Half-Life): a pose of bones then places the tag by that bone's world transform.
    /// `None` (the default) for tags stored with the frames (MD3, MDC) and out of range.
    fn tag_bone(&self, index: usize) -> Option<usize> {
        let _ = index;
        None
    }

    /// For a tag that names a bone ([`tag_bone`](ModelView::tag_bone)): where it sits in that
    /// bone's space, so that the tag is placed by the bone's world transform times this (a
    /// Half-Life attachment's `org`; an MDM tag's offset and axes on its bone); the identity by
    /// default (an MDR's tag is its bone).
    fn tag_offset(&self, index: usize) -> Affine3A {
        let _ = index;
        Affine3A::IDENTITY
    }

    /// Tag `index` between frames `a` and `b` at `t`, in model space: the columns of its
    /// linear part are the tag's forward, left and up axes (orthonormal), its translation the
    /// tag's origin, so that a model attached to the tag is placed by this transform. `None`
    /// for a tag or frame out of range.
    fn tag_at(&self, a: usize, b: usize, t: f32, index: usize) -> Option<Affine3A> {
        let _ = (a, b, t, index);
        None
    }

    /// Tag `index` as frame `frame` stores it, in the layout of [`tag_at`](ModelView::tag_at)
    /// but with the axes as stored, bit for bit (not made orthonormal): what a writer copies.
    /// By default the tag at that frame alone.
    fn tag(&self, frame: usize, index: usize) -> Option<Affine3A> {
        self.tag_at(frame, frame, 0.0, index)
    }

    // ---- materials and skins ----

    /// Number of materials a submesh may name: by default one per embedded skin.
    fn num_materials(&self) -> usize {
        self.skins().len()
    }

    /// Material `index`, or `None` out of range: by default that of embedded skin `index`.
    fn material(&self, index: usize) -> Option<Material<'_>> {
        Material::of_skin(self.skins(), index)
    }

    /// The skins (textures) the file embeds.
    fn skins(&self) -> &[Skin<'_>] {
        &[]
    }

    /// The palette 8-bit skins index: a grey ramp unless the format has its own.
    fn skin_palette(&self) -> [[u8; 3]; 256] {
        grey_palette()
    }

    /// A terrain's grid.
    fn terrain(&self) -> Option<TerrainGrid> {
        None
    }

    // ---- deforming ----

    /// Mesh `mesh`'s pre-weighted records as the file stores them, for the record kernels.
    fn records(&self, mesh: usize) -> Option<Records<'_>> {
        let _ = mesh;
        None
    }

    /// The mesh a bind-posed format stores, which `world(t) · world(bind)⁻¹` moves.
    fn bind_pose_mesh(&self) -> Option<Self::BindMesh<'_>> {
        None
    }

    /// `true` for formats whose meshes are stored in their bind pose, which move by
    /// `world(t) · world(bind)⁻¹`; by default whether there is a
    /// [`bind_pose_mesh`](ModelView::bind_pose_mesh) (MDL7 answers without gathering one).
    fn is_bind_posed(&self) -> bool {
        self.bind_pose_mesh().is_some()
    }

    /// Whether a skeleton moves the [`bind_pose_mesh`](ModelView::bind_pose_mesh) (an SL
    /// mesh opened without its animation has none, and deforms to the mesh as stored).
    fn has_skeleton(&self) -> bool {
        true
    }

    /// `true` for a skeletal format whose frames also replace vertices in bind space (MDL7):
    /// a frame's vertices replace the stored ones, then the bones pose them.
    fn frames_replace_vertices(&self) -> bool {
        false
    }

    /// For [`frames_replace_vertices`](ModelView::frames_replace_vertices): the bind-space
    /// vertices of frames `a` and `b` tweened at `t` (every vertex of the one bind-pose mesh)
    /// into `vertices`, and the vertices either frame replaces, ascending, into `replaced`.
    /// Both are left empty by default.
    fn frame_bind_vertices(&self, a: usize, b: usize, t: f32, vertices: &mut FrameVertices) {
        let _ = (a, b, t);
        vertices.clear();
    }

    /// For vertex-animated formats: mesh `mesh`'s frame `frame` as the file packs it, with
    /// the grid that unpacks it and the table its normal bytes index (what
    /// [`Model::gpu_morph`](crate::Model::gpu_morph) hands a shader); `None` for other
    /// formats and for a mesh or frame out of range.
    fn keyframe(&self, mesh: usize, frame: usize) -> Option<(Keyframe<'_>, &'static NormalTable)> {
        let _ = (mesh, frame);
        None
    }

    /// For vertex-animated formats: mesh `mesh`'s frames `a` and `b` tweened at `t` into
    /// `positions` and `normals`, at `level` (formats of one mesh ignore `mesh`, which the
    /// model has checked).
    ///
    /// # Errors
    ///
    /// The morph's errors (a missing frame, short outputs); [`DeformError::WrongPose`] for a
    /// format that is not vertex-animated.
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
        let _ = (mesh, a, b, t, level, positions, normals);
        Err(DeformError::WrongPose {
            found: "frames",
            format: self.format(),
        })
    }

    /// For formats that store normals per triangle corner: mesh `mesh`'s stored corner
    /// normals moved by `relative` (per bone `world(t) · world(bind)⁻¹`) into `out`, three per
    /// triangle; `None` for the others, whose corner normals are their vertex normals.
    fn deform_corner_normals(
        &self,
        mesh: usize,
        relative: &[Affine3A],
        out: &mut [[f32; 3]],
    ) -> Option<Result<(), SkinError>> {
        let _ = (mesh, relative, out);
        None
    }
}

/// One mesh of a view, as [`Model::mesh`](crate::Model::mesh) gives it. Defaults answer "none":
/// no name, texture coordinates, material, groups or influences.
pub trait MeshView<'a> {
    /// The name (empty where the format has none).
    fn name(&self) -> &'a [u8] {
        &[]
    }

    /// Number of vertices: the elements a skinning or morph call writes.
    fn num_vertices(&self) -> usize;

    /// Number of triangles.
    fn num_triangles(&self) -> usize;

    /// Triangle `i` as three vertex indices, counter-clockwise seen from the front, or `None`
    /// out of range.
    fn triangle(&self, i: usize) -> Option<[u32; 3]>;

    /// Where the mesh keeps its texture coordinates.
    fn texcoord_layout(&self) -> TexcoordLayout {
        TexcoordLayout::None
    }

    /// The texture coordinate of vertex `v`, for [`TexcoordLayout::PerVertex`] meshes.
    fn vertex_texcoord(&self, v: usize) -> Option<[f32; 2]> {
        let _ = v;
        None
    }

    /// The colour of vertex `v` as RGBA bytes, for meshes that store one (IQM).
    fn vertex_color(&self, v: usize) -> Option<[u8; 4]> {
        let _ = v;
        None
    }

    /// The tangent of vertex `v`, `w` the bitangent's sign, for meshes that store one (IQM).
    fn vertex_tangent(&self, v: usize) -> Option<[f32; 4]> {
        let _ = v;
        None
    }

    /// The texture coordinates of triangle `t`'s corners; the default reads its vertices'.
    fn corner_texcoords(&self, t: usize) -> Option<[[f32; 2]; 3]> {
        let tri = self.triangle(t)?;
        let uv = |k: usize| self.vertex_texcoord(tri[k] as usize);
        Some([uv(0)?, uv(1)?, uv(2)?])
    }

    /// The material of the submesh covering the whole mesh, which is mesh `index` of its
    /// model.
    fn material(&self, index: usize) -> Option<usize> {
        let _ = index;
        None
    }

    /// The number of groups, for formats whose meshes are drawn in groups of their own (each
    /// a submesh); `None` where one submesh covers the whole mesh.
    fn num_groups(&self) -> Option<usize> {
        None
    }

    /// Group `i` as a submesh.
    fn group(&self, i: usize) -> Option<Submesh<'a>> {
        let _ = i;
        None
    }

    /// Calls `f(vertex, bone, weight)` for every bone influence of every vertex, in vertex
    /// order.
    fn for_each_influence(&self, f: impl FnMut(usize, u32, f32)) {
        let _ = f;
    }

    /// `true` when the mesh stores its normals per triangle corner.
    fn has_corner_normals(&self) -> bool {
        false
    }

    /// The normals of triangle `t`'s corners as stored, for meshes that store them so.
    fn stored_corner_normals(&self, t: usize) -> Option<[[f32; 3]; 3]> {
        let _ = t;
        None
    }
}

/// What a view has none of (a mesh, a bind-pose mesh, frames of bone poses): no value of it
/// exists.
#[derive(Debug, Clone, Copy)]
pub enum NoMesh {}

impl MeshView<'_> for NoMesh {
    fn num_vertices(&self) -> usize {
        match *self {}
    }

    fn num_triangles(&self) -> usize {
        match *self {}
    }

    fn triangle(&self, _: usize) -> Option<[u32; 3]> {
        match *self {}
    }
}

impl<'data> Skeleton<'data> for NoMesh {
    fn skeleton_bones(&self) -> impl ExactSizeIterator<Item = Bone<'data>> + Clone {
        core::iter::empty()
    }
}

impl<'data> PoseFrames<'data> for NoMesh {
    fn num_frames(&self) -> usize {
        match *self {}
    }

    fn bone_pose(&self, _: usize, _: usize) -> Option<(glam::Quat, glam::Vec3A)> {
        match *self {}
    }
}

impl BindPoseMesh for NoMesh {
    fn num_vertices(&self) -> usize {
        match *self {}
    }

    fn bind_vertex(&self, _: usize) -> Option<BindVertex> {
        match *self {}
    }
}

/// The frame names of a view found one index at a time, for views where that is O(1).
#[derive(Debug, Clone)]
pub struct IndexedNames<'a, 'data, V: ?Sized> {
    view: &'a V,
    frames: core::ops::Range<usize>,
    data: core::marker::PhantomData<&'data ()>,
}

impl<'a, 'data, V: ModelView<'data> + ?Sized> IndexedNames<'a, 'data, V> {
    /// The names of `view`'s frames.
    pub fn new(view: &'a V) -> Self {
        IndexedNames {
            view,
            frames: 0..view.num_frames(),
            data: core::marker::PhantomData,
        }
    }
}

impl<'a, 'data, V: ModelView<'data> + ?Sized> Iterator for IndexedNames<'a, 'data, V> {
    type Item = &'a [u8];

    fn next(&mut self) -> Option<&'a [u8]> {
        let f = self.frames.next()?;
        Some(self.view.frame_name(f).unwrap_or_default())
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.frames.size_hint()
    }
}

impl<'a, 'data, V: ModelView<'data> + ?Sized> ExactSizeIterator for IndexedNames<'a, 'data, V> {}

/// The unnamed, unparented bones of a skeleton that names none (`count` of them).
pub(crate) fn unnamed_bones<'data>(
    count: usize,
) -> impl ExactSizeIterator<Item = Bone<'data>> + Clone {
    (0..count).map(|_| Bone::new(&[], -1, 0))
}
