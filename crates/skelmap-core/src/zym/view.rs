//! The validated ZYM view and its accessors, and what `Model` reads through it: one mesh
//! stored bone-relative and presented in its pose-0 bind pose (a submesh per shader), poses as
//! frames, scenes as clips.

use glam::{Affine3A, Mat3A, Quat, Vec3A};
use zerocopy::BigEndian;
use zerocopy::byteorder::{F32, I32};

use super::raw::{self, Header};
use crate::format::Format;
use crate::name;
use crate::pose::bounds::Aabb;
use crate::pose::framegroups::FrameGroup;
use crate::pose::{BindPoseMesh, BindVertex, Bone, PoseFrames, Skeleton};
use crate::view::{
    ClipOrigin, Conventions, IndexedNames, Material, MeshView, ModelView, Submesh, TexcoordLayout,
    TextureNames,
};

/// A validated ZYM file (type 1): every accessor is infallible on it.
#[derive(Debug, Clone)]
pub struct Zym<'data> {
    pub(super) data: &'data [u8],
    pub(super) header: &'data Header,
    pub(super) scenes: &'data [raw::Scene],
    /// `num_poses` × `num_bones` matrices.
    pub(super) poses: &'data [raw::Pose],
    pub(super) bones: &'data [raw::Bone],
    /// One record per vertex (every bone count is 1).
    pub(super) vertices: &'data [raw::Vertex],
    pub(super) texcoords: &'data [[F32<BigEndian>; 2]],
    /// The whole render list: per shader a count, then its triangles.
    pub(super) render: &'data [I32<BigEndian>],
    pub(super) shaders: &'data [[u8; 32]],
    pub(super) trizone: &'data [u8],
    /// Each shader's run of triangles (found by the validation walk).
    pub(super) runs: Vec<Run>,
    pub(super) num_poses: usize,
    /// The length of the root's first rotation row at pose 0, by which DarkPlaces scales
    /// child bones' translations.
    pub(super) model_scale: f32,
}

/// One shader's run of the render list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Run {
    /// The mesh triangle the run starts at.
    pub first_triangle: u32,
    /// Triangles in the run.
    pub num_triangles: u32,
}

/// One scene: a clip of consecutive poses.
#[derive(Debug, Clone, Copy)]
pub struct Scene<'data> {
    raw: &'data raw::Scene,
}

impl<'data> Scene<'data> {
    /// The record as stored.
    #[must_use]
    pub fn raw(&self) -> &'data raw::Scene {
        self.raw
    }

    /// The name, up to its first NUL.
    #[must_use]
    pub fn name(&self) -> &'data [u8] {
        name::trim_nul(&self.raw.name)
    }

    /// The first pose (validated `< num_poses`).
    #[must_use]
    pub fn start(&self) -> u32 {
        self.raw.start.get() as u32
    }

    /// Poses in the scene (`start + length ≤ num_poses`).
    #[must_use]
    pub fn length(&self) -> u32 {
        self.raw.length.get() as u32
    }

    /// Poses per second (finite, not negative).
    #[must_use]
    pub fn framerate(&self) -> f32 {
        self.raw.framerate.get()
    }

    /// Whether the scene loops (no [`raw::ZYMSCENEFLAG_NOLOOP`]).
    #[must_use]
    pub fn looped(&self) -> bool {
        self.raw.flags.get() as u32 & raw::ZYMSCENEFLAG_NOLOOP == 0
    }
}

impl<'data> Zym<'data> {
    /// The bytes the view reads (the declared `filesize` of them).
    #[must_use]
    pub fn data(&self) -> &'data [u8] {
        self.data
    }

    /// The header as stored.
    #[must_use]
    pub fn header(&self) -> &'data Header {
        self.header
    }

    /// Number of bones.
    #[must_use]
    pub fn num_bones(&self) -> usize {
        self.bones.len()
    }

    /// The bones as stored.
    #[must_use]
    pub fn bones(&self) -> &'data [raw::Bone] {
        self.bones
    }

    /// Number of vertices.
    #[must_use]
    pub fn num_vertices(&self) -> usize {
        self.vertices.len()
    }

    /// Number of triangles.
    #[must_use]
    pub fn num_triangles(&self) -> usize {
        self.trizone.len()
    }

    /// Number of poses (frames).
    #[must_use]
    pub fn num_poses(&self) -> usize {
        self.num_poses
    }

    /// Number of shaders (submeshes).
    #[must_use]
    pub fn num_shaders(&self) -> usize {
        self.shaders.len()
    }

    /// Shader `i`'s name, up to its first NUL.
    #[must_use]
    pub fn shader_name(&self, i: usize) -> Option<&'data [u8]> {
        self.shaders.get(i).map(|s| name::trim_nul(s))
    }

    /// Each shader's run of triangles, in shader order.
    #[must_use]
    pub fn runs(&self) -> &[Run] {
        &self.runs
    }

    /// The scenes in file order.
    pub fn scenes(&self) -> impl ExactSizeIterator<Item = Scene<'data>> + Clone + 'data {
        self.scenes.iter().map(|raw| Scene { raw })
    }

    /// Scene `i`.
    #[must_use]
    pub fn scene(&self, i: usize) -> Option<Scene<'data>> {
        self.scenes.get(i).map(|raw| Scene { raw })
    }

    /// Vertex `i`'s bone and its origin in that bone's pose-0 space.
    #[must_use]
    pub fn vertex(&self, i: usize) -> Option<(u32, [f32; 3])> {
        let v = self.vertices.get(i)?;
        Some((v.bonenum.get() as u32, v.origin.map(|c| c.get())))
    }

    /// Vertex `i`'s texture coordinate with `t` flipped (`1 − t`), as DarkPlaces draws it.
    #[must_use]
    pub fn texcoord(&self, i: usize) -> Option<[f32; 2]> {
        let [s, t] = self.texcoords.get(i)?.map(|c| c.get());
        Some([s, 1.0 - t])
    }

    /// Triangle `i`, counter-clockwise seen from the front (the stored order reversed, as
    /// DarkPlaces reverses it).
    #[must_use]
    pub fn triangle(&self, i: usize) -> Option<[u32; 3]> {
        let [a, b, c] = self.stored_triangle(i)?;
        Some([c, b, a])
    }

    /// Triangle `i` as the render list stores it (clockwise).
    #[must_use]
    pub fn stored_triangle(&self, i: usize) -> Option<[u32; 3]> {
        let index = u32::try_from(i).ok()?;
        let run = self
            .runs
            .partition_point(|r| r.first_triangle + r.num_triangles <= index);
        self.runs.get(run)?;
        // Before triangle i: the counts of runs 0..=run and 3 indices per earlier triangle.
        let at = run + 1 + 3 * i;
        let t = self.render.get(at..at + 3)?;
        Some([t[0].get() as u32, t[1].get() as u32, t[2].get() as u32])
    }

    /// The triangle zone bytes (no engine reads them).
    #[must_use]
    pub fn trizone(&self) -> &'data [u8] {
        self.trizone
    }

    /// Bone `bone`'s matrix at pose `pose` as stored, row-major 3×4 relative to its parent.
    #[must_use]
    pub fn pose(&self, pose: usize, bone: usize) -> Option<[[f32; 4]; 3]> {
        if bone >= self.bones.len() {
            return None;
        }
        let p = self.poses.get(pose.checked_mul(self.bones.len())? + bone)?;
        Some(p.matrix.map(|row| row.map(|v| v.get())))
    }

    /// The length of the root's first rotation row at pose 0: DarkPlaces multiplies every
    /// child bone's translation by it when it animates (`docs/formats/zym.md` § Quirks).
    #[must_use]
    pub fn model_scale(&self) -> f32 {
        self.model_scale
    }

    /// Bone `bone`'s pose-0 matrix concatenated with its parents', as stored (what DarkPlaces
    /// builds the base mesh with).
    #[must_use]
    pub fn bind_world(&self, bone: usize) -> Option<Affine3A> {
        let mut world = affine(self.pose(0, bone)?);
        let mut parent = self.bones.get(bone)?.parent.get();
        // Parents precede children (validated), so this walk ends within `bone` steps.
        while let Ok(p) = usize::try_from(parent) {
            world = affine(self.pose(0, p)?) * world;
            parent = self.bones.get(p)?.parent.get();
        }
        Some(world)
    }
}

/// A row-major 3×4 matrix as an affine transform.
fn affine(m: [[f32; 4]; 3]) -> Affine3A {
    let col = |j: usize| Vec3A::new(m[0][j], m[1][j], m[2][j]);
    Affine3A {
        matrix3: Mat3A::from_cols(col(0), col(1), col(2)),
        translation: col(3),
    }
}

/// DarkPlaces' pose: the rotation of the normalised rows and, for a child bone, the
/// translation times the model scale. Where the rows make no rotation (a zero row), the
/// rotation is the identity; where the scale would overflow a translation, it is not applied.
fn sampled_pose(m: [[f32; 4]; 3], child: bool, scale: f32) -> (Quat, Vec3A) {
    let row = |r: [f32; 4]| Vec3A::new(r[0], r[1], r[2]).normalize_or_zero();
    let rows = Mat3A::from_cols(row(m[0]), row(m[1]), row(m[2])).transpose();
    let rotation = Quat::from_mat3a(&rows).normalize();
    let rotation = if rotation.is_finite() {
        rotation
    } else {
        Quat::IDENTITY
    };
    let t = Vec3A::new(m[0][3], m[1][3], m[2][3]);
    let scaled = t * scale;
    (
        rotation,
        if child && scaled.is_finite() {
            scaled
        } else {
            t
        },
    )
}

impl<'data> Skeleton<'data> for Zym<'data> {
    fn skeleton_bones(&self) -> impl ExactSizeIterator<Item = Bone<'data>> + Clone {
        self.bones
            .iter()
            .map(|b| Bone::new(&b.name, b.parent.get(), 0))
    }

    fn bone(&self, index: usize) -> Option<Bone<'data>> {
        let b = self.bones.get(index)?;
        Some(Bone::new(&b.name, b.parent.get(), 0))
    }
}

impl<'data> PoseFrames<'data> for Zym<'data> {
    fn num_frames(&self) -> usize {
        self.num_poses
    }

    fn bone_pose(&self, frame: usize, bone: usize) -> Option<(Quat, Vec3A)> {
        let child = self.bones.get(bone)?.parent.get() >= 0;
        Some(sampled_pose(
            self.pose(frame, bone)?,
            child,
            self.model_scale,
        ))
    }
}

/// One mesh of every vertex (a submesh per shader), stored bone-relative and presented in
/// the pose-0 bind pose; poses are the frames, scenes the clips.
impl<'data> ModelView<'data> for Zym<'data> {
    type Mesh<'a>
        = &'a Zym<'data>
    where
        Self: 'a;
    type FrameNames<'a>
        = IndexedNames<'a, 'data, Self>
    where
        Self: 'a;
    type BindMesh<'a>
        = &'a Zym<'data>
    where
        Self: 'a;

    fn format(&self) -> Format {
        Format::Zym
    }

    fn conventions(&self) -> Conventions {
        Conventions {
            textures: TextureNames::Shaders,
            ..Conventions::QUAKE
        }
    }

    fn pose_frames(&self) -> Option<&impl PoseFrames<'data>> {
        Some(self)
    }

    fn frame_names(&self) -> Self::FrameNames<'_> {
        IndexedNames::new(self)
    }

    fn clip_origin(&self) -> ClipOrigin {
        ClipOrigin::FrameGroups
    }

    /// The scenes of at least one pose, in file order.
    fn built_in_clips(&self) -> Vec<FrameGroup> {
        self.scenes()
            .filter(|s| s.length() > 0)
            .map(|s| FrameGroup {
                name: name::lossy(s.name()).into_owned(),
                first: s.start(),
                count: s.length(),
                fps: s.framerate(),
                looped: s.looped(),
            })
            .collect()
    }

    fn stored_bounds(&self) -> Option<Aabb> {
        Some(Aabb {
            mins: self.header.mins.map(|v| v.get()),
            maxs: self.header.maxs.map(|v| v.get()),
        })
    }

    fn num_meshes(&self) -> usize {
        1
    }

    fn mesh(&self, index: usize) -> Option<&Zym<'data>> {
        (index == 0).then_some(self)
    }

    /// Every bone is an attachment point: DarkPlaces finds tags by bone name, and the one
    /// bone flag (`ZYMBONEFLAG_SHARED`) means nothing else.
    fn every_bone_attaches(&self) -> bool {
        true
    }

    fn num_materials(&self) -> usize {
        self.shaders.len()
    }

    fn material(&self, index: usize) -> Option<Material<'_>> {
        self.shader_name(index).map(Material::plain)
    }

    fn bind_pose_mesh(&self) -> Option<&Zym<'data>> {
        Some(self)
    }
}

impl<'a, 'data: 'a> MeshView<'a> for &'a Zym<'data> {
    fn num_vertices(&self) -> usize {
        Zym::num_vertices(self)
    }

    fn num_triangles(&self) -> usize {
        Zym::num_triangles(self)
    }

    fn triangle(&self, i: usize) -> Option<[u32; 3]> {
        Zym::triangle(self, i)
    }

    fn texcoord_layout(&self) -> TexcoordLayout {
        TexcoordLayout::PerVertex
    }

    fn vertex_texcoord(&self, v: usize) -> Option<[f32; 2]> {
        self.texcoord(v)
    }

    fn num_groups(&self) -> Option<usize> {
        Some(self.runs.len())
    }

    fn group(&self, i: usize) -> Option<Submesh<'a>> {
        let run = self.runs.get(i)?;
        Some(Submesh::range(
            self.shader_name(i)?,
            Some(i),
            run.first_triangle as usize,
            run.num_triangles as usize,
        ))
    }

    fn for_each_influence(&self, mut f: impl FnMut(usize, u32, f32)) {
        for (v, vertex) in self.vertices.iter().enumerate() {
            f(v, vertex.bonenum.get() as u32, 1.0);
        }
    }
}

/// The base mesh DarkPlaces builds: each vertex moved by its bone's pose-0 world matrix as
/// stored, bound wholly to that bone. No normals are stored.
impl BindPoseMesh for &Zym<'_> {
    fn num_vertices(&self) -> usize {
        Zym::num_vertices(self)
    }

    fn bind_vertex(&self, i: usize) -> Option<BindVertex> {
        let (bone, origin) = self.vertex(i)?;
        let world = self.bind_world(bone as usize)?;
        let position = world.transform_point3a(Vec3A::from_array(origin));
        Some(BindVertex::with_four(
            position,
            Vec3A::ZERO,
            [Some((bone as u16, 1.0)), None, None, None],
        ))
    }
}
