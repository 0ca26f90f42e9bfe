//! The validated MS3D view and its zero-copy accessors.
//!
//! Validation lives in `validate.rs`; by the time an [`Ms3d`] exists every count, offset and
//! index in it has been proven in range, so the accessors here do not fail.

use std::borrow::Cow;

use zerocopy::LittleEndian;
use zerocopy::byteorder::{I32, U16};

use super::raw::{
    GroupHead, Header, JointEx, JointHead, Keyframe, Keyframer, Material, ModelEx, Triangle,
    Vertex, VertexEx1, VertexEx2, VertexEx3,
};
use glam::{Affine3A, Vec3A};

use crate::format::Format;
use crate::name;
use crate::pose::framegroups::FrameGroup;
use crate::pose::{Bone, Interpolation, KeptFrames, LocalPose, PoseFrames, Skeleton};
use crate::read::Reader;
use crate::skin::SkinError;
use crate::view::{self, ClipOrigin, IndexedNames, MeshView, ModelView, Submesh, TexcoordLayout};

const FORMAT: Format = Format::Ms3d;
type Le = LittleEndian;

/// MilkShape's own limit on joints (`MAX_JOINTS`); more is accepted with a warning.
pub const SPEC_MAX_JOINTS: usize = 128;

/// MilkShape's limit on vertices and triangles (`MAX_VERTICES`, `MAX_TRIANGLES`).
pub const SPEC_MAX_VERTICES: u16 = 65_534;

/// A validated MS3D model over borrowed bytes. `Send` and `Sync`; `Clone` (it owns a small
/// index of its groups and joints, O(groups + joints), built once at open).
#[derive(Debug, Clone)]
pub struct Ms3d<'data> {
    pub(super) data: &'data [u8],
    pub(super) header: &'data Header,
    pub(super) vertices: &'data [Vertex],
    pub(super) triangles: &'data [Triangle],
    pub(super) groups: Vec<Group<'data>>,
    pub(super) materials: &'data [Material],
    pub(super) keyframer: &'data Keyframer,
    pub(super) joints: Vec<Joint<'data>>,
    /// Joint indices with every parent before its children.
    pub(super) order: Vec<u16>,
    pub(super) comments: Option<(u64, [u32; 3], bool)>,
    pub(super) vertex_extra: Option<VertexExtra<'data>>,
    pub(super) joint_extra: Option<&'data [JointEx]>,
    pub(super) model_extra: Option<&'data ModelEx>,
}

/// One group (mesh): a name, its triangles and its material.
#[derive(Debug, Clone, Copy)]
pub struct Group<'data> {
    pub(super) head: &'data GroupHead,
    pub(super) triangle_indices: &'data [U16<Le>],
    pub(super) material: i8,
    pub(super) material_at: u64,
}

impl<'data> Group<'data> {
    /// The name bytes, up to the first NUL (not necessarily UTF-8: real files use GBK).
    #[must_use]
    pub fn name(&self) -> &'data [u8] {
        name::trim_nul(&self.head.name)
    }

    /// The name as text (invalid UTF-8 replaced).
    #[must_use]
    pub fn name_lossy(&self) -> Cow<'data, str> {
        name::lossy(self.name())
    }

    /// The triangles of the group, each `<` the model's triangle count.
    pub fn triangle_indices(&self) -> impl ExactSizeIterator<Item = u16> + Clone + 'data {
        self.triangle_indices.iter().map(|t| t.get())
    }

    /// The triangle indices as stored.
    #[must_use]
    pub fn triangle_index_slice(&self) -> &'data [U16<Le>] {
        self.triangle_indices
    }

    /// The material index, `None` for no material (validated `<` the material count).
    #[must_use]
    pub fn material(&self) -> Option<usize> {
        usize::try_from(self.material).ok()
    }

    /// The raw head record.
    #[must_use]
    pub fn raw(&self) -> &'data GroupHead {
        self.head
    }
}

/// One joint: rest rotation and position relative to its parent, and its animation keys.
#[derive(Debug, Clone, Copy)]
pub struct Joint<'data> {
    pub(super) head: &'data JointHead,
    pub(super) rotation_keys: &'data [Keyframe],
    pub(super) position_keys: &'data [Keyframe],
    pub(super) parent: Option<u16>,
    /// Both key tracks in time order (sampling may then resume where it stood).
    pub(super) keys_in_order: bool,
}

impl<'data> Joint<'data> {
    /// The name bytes, up to the first NUL.
    #[must_use]
    pub fn name(&self) -> &'data [u8] {
        name::trim_nul(&self.head.name)
    }

    /// The name as text (invalid UTF-8 replaced).
    #[must_use]
    pub fn name_lossy(&self) -> Cow<'data, str> {
        name::lossy(self.name())
    }

    /// The parent joint's index, resolved from its name at open; `None` for a root.
    #[must_use]
    pub fn parent(&self) -> Option<usize> {
        self.parent.map(usize::from)
    }

    /// Rest rotation: Euler angles about X, Y, Z in radians.
    #[must_use]
    pub fn rotation(&self) -> [f32; 3] {
        self.head.rotation.map(|v| v.get())
    }

    /// Rest position relative to the parent.
    #[must_use]
    pub fn position(&self) -> [f32; 3] {
        self.head.position.map(|v| v.get())
    }

    /// Rotation keys: `(time in seconds, Euler angles)`, relative to the rest pose.
    pub fn rotation_keys(&self) -> impl ExactSizeIterator<Item = (f32, [f32; 3])> + Clone + 'data {
        self.rotation_keys.iter().map(key)
    }

    /// Position keys: `(time in seconds, offset)`, relative to the rest pose.
    pub fn position_keys(&self) -> impl ExactSizeIterator<Item = (f32, [f32; 3])> + Clone + 'data {
        self.position_keys.iter().map(key)
    }

    /// The raw head record.
    #[must_use]
    pub fn raw(&self) -> &'data JointHead {
        self.head
    }

    pub(crate) fn key_slices(&self) -> (&'data [Keyframe], &'data [Keyframe]) {
        (self.rotation_keys, self.position_keys)
    }
}

fn key(k: &Keyframe) -> (f32, [f32; 3]) {
    (k.time.get(), k.value.map(|v| v.get()))
}

/// The optional per-vertex extra weights, by sub-version.
#[derive(Debug, Clone, Copy)]
pub enum VertexExtra<'data> {
    /// 6-byte records, weights 0..=255.
    V1(&'data [VertexEx1]),
    /// 10-byte records, weights 0..=100.
    V2(&'data [VertexEx2]),
    /// 14-byte records, weights 0..=100.
    V3(&'data [VertexEx3]),
}

impl VertexExtra<'_> {
    /// The sub-version (1, 2 or 3).
    #[must_use]
    pub fn sub_version(&self) -> i32 {
        match self {
            VertexExtra::V1(_) => 1,
            VertexExtra::V2(_) => 2,
            VertexExtra::V3(_) => 3,
        }
    }

    pub(super) fn get(&self, i: usize) -> Option<(VertexEx1, f32)> {
        match self {
            VertexExtra::V1(v) => v.get(i).map(|e| (*e, 255.0)),
            VertexExtra::V2(v) => v.get(i).map(|e| (e.base, 100.0)),
            VertexExtra::V3(v) => v.get(i).map(|e| (e.base, 100.0)),
        }
    }
}

/// Up to four `(joint, weight)` pairs of a vertex, weights normalised to sum to 1.
pub type VertexWeights = [Option<(u16, f32)>; 4];

/// What a comment is attached to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommentKind {
    /// A group (by index).
    Group,
    /// A material (by index).
    Material,
    /// A joint (by index).
    Joint,
    /// The whole model.
    Model,
}

/// One comment of the optional tail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Comment<'data> {
    /// What it is attached to.
    pub kind: CommentKind,
    /// The index of the group, material or joint (0 for the model).
    pub index: i32,
    /// The text bytes (encoding unspecified).
    pub text: &'data [u8],
}

impl<'data> Ms3d<'data> {
    /// The bytes the view covers.
    #[must_use]
    pub fn data(&self) -> &'data [u8] {
        self.data
    }

    /// The file version (3 or 4).
    #[must_use]
    pub fn version(&self) -> i32 {
        self.header.version.get()
    }

    /// The vertices as stored (model-space positions, one joint each).
    #[must_use]
    pub fn vertices(&self) -> &'data [Vertex] {
        self.vertices
    }

    /// Position of vertex `i`.
    #[must_use]
    pub fn position(&self, i: usize) -> Option<[f32; 3]> {
        self.vertices.get(i).map(|v| v.vertex.map(|c| c.get()))
    }

    /// The joints influencing vertex `i` with their weights, normalised to sum to 1.
    ///
    /// Without the 1.8 extras, the vertex's own joint with weight 1. With them (scaled 0..=255
    /// for sub-version 1, 0..=100 for 2 and 3): `weights[0]` for the own joint, `weights[1]`
    /// and `weights[2]` for `boneIds[0]` and `boneIds[1]`, and the remainder `1 − Σ` for
    /// `boneIds[2]`; joints of −1 are dropped and the rest renormalised. Extra joints whose
    /// weights are all zero leave the own joint with weight 1. `None` entries are unused;
    /// `None` for an out-of-range `i`.
    #[must_use]
    pub fn vertex_weights(&self, i: usize) -> Option<VertexWeights> {
        let v = self.vertices.get(i)?;
        let own = u16::try_from(v.bone_id).ok();
        let mut out: VertexWeights = [None; 4];
        match self.vertex_extra.and_then(|x| x.get(i)) {
            Some((e, scale)) if e.bone_ids.iter().any(|&b| b >= 0) => {
                let w = e.weights.map(|w| f32::from(w) / scale);
                let rest = (1.0 - w.iter().sum::<f32>()).max(0.0);
                let joints = [
                    own,
                    u16::try_from(e.bone_ids[0]).ok(),
                    u16::try_from(e.bone_ids[1]).ok(),
                    u16::try_from(e.bone_ids[2]).ok(),
                ];
                let weights = [w[0], w[1], w[2], rest];
                let total: f32 = joints
                    .iter()
                    .zip(&weights)
                    .filter(|(j, _)| j.is_some())
                    .map(|(_, w)| w)
                    .sum();
                if total > 0.0 {
                    for (slot, (joint, weight)) in
                        out.iter_mut().zip(joints.into_iter().zip(weights))
                    {
                        if let Some(j) = joint.filter(|_| weight > 0.0) {
                            *slot = Some((j, weight / total));
                        }
                    }
                } else {
                    // Extra joints with no weight at all: the vertex's own joint takes it all.
                    out[0] = own.map(|j| (j, 1.0));
                }
            }
            _ => out[0] = own.map(|j| (j, 1.0)),
        }
        Some(out)
    }

    /// The triangles as stored.
    #[must_use]
    pub fn triangles(&self) -> &'data [Triangle] {
        self.triangles
    }

    /// The groups (meshes).
    #[must_use]
    pub fn groups(&self) -> &[Group<'data>] {
        &self.groups
    }

    /// The materials as stored.
    #[must_use]
    pub fn materials(&self) -> &'data [Material] {
        self.materials
    }

    /// Animation frames per second.
    #[must_use]
    pub fn animation_fps(&self) -> f32 {
        self.keyframer.animation_fps.get()
    }

    /// The editor's current time, seconds.
    #[must_use]
    pub fn current_time(&self) -> f32 {
        self.keyframer.current_time.get()
    }

    /// Frames in the animation.
    #[must_use]
    pub fn total_frames(&self) -> i32 {
        self.keyframer.total_frames.get()
    }

    /// The joints, in file order.
    #[must_use]
    pub fn joints(&self) -> &[Joint<'data>] {
        &self.joints
    }

    /// Joint indices ordered so that every parent comes before its children: the file order
    /// where the file already names every parent before its children, else the joints
    /// sorted by depth (roots first), in file order within a depth.
    #[must_use]
    pub fn evaluation_order(&self) -> &[u16] {
        &self.order
    }

    /// The 1.8 extra vertex weights, if present.
    #[must_use]
    pub fn vertex_extra(&self) -> Option<VertexExtra<'data>> {
        self.vertex_extra
    }

    /// The 1.8 joint colours, if present.
    #[must_use]
    pub fn joint_extra(&self) -> Option<&'data [JointEx]> {
        self.joint_extra
    }

    /// The 1.8 model settings, if present.
    #[must_use]
    pub fn model_extra(&self) -> Option<&'data ModelEx> {
        self.model_extra
    }

    /// `true` if the comment section of the 1.8 tail is present.
    #[must_use]
    pub fn has_comments(&self) -> bool {
        self.comments.is_some()
    }

    /// The comments of the 1.8 tail (none when it is absent).
    pub fn comments(&self) -> impl Iterator<Item = Comment<'data>> + 'data {
        let reader = Reader::new(self.data, FORMAT);
        let (start, counts, model) = self.comments.unwrap_or((u64::MAX, [0; 3], false));
        let mut walk = reader.walk(start);
        let kinds = [
            CommentKind::Group,
            CommentKind::Material,
            CommentKind::Joint,
        ];
        let mut section = 0usize;
        let mut left = 0u32;
        let mut model_left = model;
        let mut started = false;
        core::iter::from_fn(move || {
            loop {
                if !started || left == 0 {
                    if started {
                        section += 1;
                    }
                    if section < 3 {
                        walk.next::<I32<Le>>()?;
                        left = counts.get(section).copied().unwrap_or(0);
                        started = true;
                        if left == 0 {
                            continue;
                        }
                    } else {
                        if !model_left {
                            return None;
                        }
                        model_left = false;
                        walk.next::<I32<Le>>()?;
                        let len = walk.next::<I32<Le>>()?.get();
                        let text = walk.next_slice::<u8>(u64::try_from(len).ok()?)?;
                        return Some(Comment {
                            kind: CommentKind::Model,
                            index: 0,
                            text,
                        });
                    }
                }
                left -= 1;
                let index = walk.next::<I32<Le>>()?.get();
                let len = walk.next::<I32<Le>>()?.get();
                let text = walk.next_slice::<u8>(u64::try_from(len).ok()?)?;
                return Some(Comment {
                    kind: *kinds.get(section)?,
                    index,
                    text,
                });
            }
        })
    }
}

impl<'data> Skeleton<'data> for Ms3d<'data> {
    fn skeleton_bones(&self) -> impl ExactSizeIterator<Item = Bone<'data>> + Clone {
        self.joints.iter().map(joint_bone)
    }

    fn hierarchy_order(&self) -> Option<&[u16]> {
        Some(&self.order)
    }

    fn bone(&self, index: usize) -> Option<Bone<'data>> {
        self.joints.get(index).map(joint_bone)
    }
}

/// One mesh (every group shares the model's vertices), stored in its bind pose; its clip is
/// the whole timeline.
impl<'data> ModelView<'data> for Ms3d<'data> {
    type Mesh<'a>
        = &'a Ms3d<'data>
    where
        Self: 'a;
    type FrameNames<'a>
        = IndexedNames<'a, 'data, Self>
    where
        Self: 'a;
    type BindMesh<'a>
        = &'a Ms3d<'data>
    where
        Self: 'a;

    fn pose_frames(&self) -> Option<&impl PoseFrames<'data>> {
        Some(self)
    }

    fn format(&self) -> Format {
        FORMAT
    }

    /// MS3D has no attachment flag: every joint is a point a model may be attached to.
    fn every_bone_attaches(&self) -> bool {
        true
    }

    /// MilkShape is `+Y` up with its front view looking at the model's `−Z` side; its
    /// materials are the file's own list, each with its colour, and its groups are named.
    fn conventions(&self) -> view::Conventions {
        view::Conventions {
            up: crate::asset::UpAxis::Y,
            front: [0.0, 0.0, -1.0],
            textures: view::TextureNames::Files,
            own_materials: true,
        }
    }

    fn frame_names(&self) -> Self::FrameNames<'_> {
        IndexedNames::new(self)
    }

    fn clip_origin(&self) -> ClipOrigin {
        if self.joints.is_empty() {
            ClipOrigin::None
        } else {
            ClipOrigin::Timeline
        }
    }

    fn built_in_clips(&self) -> Vec<FrameGroup> {
        vec![FrameGroup {
            name: "animation".into(),
            first: 0,
            // The whole timeline, as MilkShape plays it (the last key holds).
            count: Ms3d::num_frames(self) as u32,
            fps: self.fps(),
            looped: true,
        }]
    }

    /// The joints' keys evaluated at frame `a + t·(b − a)` of the timeline, frame `f` being
    /// `(f + 1) / fps` seconds in.
    fn sample(
        &self,
        a: usize,
        b: usize,
        t: f32,
        interpolation: Interpolation,
        out: &mut LocalPose,
    ) {
        let frame = a as f32 + t * (b as f32 - a as f32);
        self.local_pose_at(self.frame_seconds(frame), interpolation, out);
    }

    /// Its timeline, as `sample` evaluates it: nothing to keep.
    fn sample_kept(
        &self,
        _: &mut KeptFrames,
        (a, b, t): (usize, usize, f32),
        interpolation: Interpolation,
        out: &mut LocalPose,
    ) {
        ModelView::sample(self, a, b, t, interpolation, out);
    }

    fn sample_seconds(
        &self,
        seconds: f32,
        interpolation: Interpolation,
        out: &mut LocalPose,
    ) -> bool {
        self.local_pose_at(seconds, interpolation, out);
        true
    }

    /// The joints' rest pose.
    fn bind_pose(&self, out: &mut LocalPose) {
        self.local_rest_pose(out);
    }

    /// One mesh of every vertex, or none where the model has no vertex (a file of joints or
    /// materials alone): a mesh of nothing is not reported.
    fn num_meshes(&self) -> usize {
        usize::from(!self.vertices().is_empty())
    }

    fn mesh(&self, index: usize) -> Option<&Ms3d<'data>> {
        (index < self.num_meshes()).then_some(self)
    }

    fn num_materials(&self) -> usize {
        self.materials().len()
    }

    fn material(&self, index: usize) -> Option<view::Material<'_>> {
        self.materials().get(index).map(|x| view::Material {
            name: name::trim_nul(&x.name),
            texture: name::trim_nul(&x.texture),
            diffuse: x.diffuse.map(|c| c.get()),
            skin: None,
        })
    }

    fn bind_pose_mesh(&self) -> Option<&Ms3d<'data>> {
        Some(self)
    }

    /// Each stored corner normal moved by its vertex's weighted rotations (hard edges kept).
    fn deform_corner_normals(
        &self,
        mesh: usize,
        relative: &[Affine3A],
        out: &mut [[f32; 3]],
    ) -> Option<Result<(), SkinError>> {
        (mesh == 0).then(|| self.corner_normals(relative, out))
    }
}

impl Ms3d<'_> {
    /// Every triangle's stored corner normals moved by `relative` into `out`, three per
    /// triangle.
    fn corner_normals(&self, relative: &[Affine3A], out: &mut [[f32; 3]]) -> Result<(), SkinError> {
        for (tri, corners) in self.triangles().iter().zip(out.chunks_exact_mut(3)) {
            let stored = tri.vertex_normals.map(|n| n.map(|c| c.get()));
            for ((slot, v), n) in corners.iter_mut().zip(tri.vertex_indices).zip(stored) {
                let n = Vec3A::from(n);
                let (mut sum, mut total) = (Vec3A::ZERO, 0.0);
                for (joint, weight) in self
                    .vertex_weights(usize::from(v.get()))
                    .unwrap_or_default()
                    .into_iter()
                    .flatten()
                {
                    let r = relative.get(usize::from(joint)).ok_or(SkinError::Palette {
                        bone: u32::from(joint),
                        have: relative.len(),
                    })?;
                    sum += weight * r.transform_vector3a(n);
                    total += weight;
                }
                *slot = if total > 0.0 { sum / total } else { n }.to_array();
            }
        }
        Ok(())
    }
}

/// Every group shares the model's vertices; texture coordinates and normals are stored per
/// triangle corner.
impl<'a, 'data: 'a> MeshView<'a> for &'a Ms3d<'data> {
    fn num_vertices(&self) -> usize {
        self.vertices().len()
    }

    fn num_triangles(&self) -> usize {
        self.triangles().len()
    }

    fn triangle(&self, i: usize) -> Option<[u32; 3]> {
        self.triangles()
            .get(i)
            .map(|t| t.vertex_indices.map(|v| u32::from(v.get())))
    }

    fn texcoord_layout(&self) -> TexcoordLayout {
        TexcoordLayout::PerCorner
    }

    fn corner_texcoords(&self, t: usize) -> Option<[[f32; 2]; 3]> {
        let tri = self.triangles().get(t)?;
        Some(core::array::from_fn(|k| [tri.s[k].get(), tri.t[k].get()]))
    }

    fn num_groups(&self) -> Option<usize> {
        Some(self.groups().len())
    }

    fn group(&self, i: usize) -> Option<Submesh<'a>> {
        let g = self.groups().get(i)?;
        Some(Submesh::listed(
            g.name(),
            g.material(),
            g.triangle_index_slice(),
        ))
    }

    /// Weights normalised, zero ones left out; a vertex bound to no joint has none.
    fn for_each_influence(&self, mut f: impl FnMut(usize, u32, f32)) {
        for v in 0..self.vertices().len() {
            for (joint, weight) in self
                .vertex_weights(v)
                .unwrap_or_default()
                .into_iter()
                .flatten()
            {
                f(v, u32::from(joint), weight);
            }
        }
    }

    fn has_corner_normals(&self) -> bool {
        true
    }

    fn stored_corner_normals(&self, t: usize) -> Option<[[f32; 3]; 3]> {
        self.triangles()
            .get(t)
            .map(|tri| tri.vertex_normals.map(|n| n.map(|c| c.get())))
    }
}

/// A joint as a [`Bone`]. MS3D joint flags are editor state (selected, dirty), not DPM/SKP bone
/// flags: MS3D has no attachment bones. The raw flags stay available through `Joint::raw`.
fn joint_bone<'data>(j: &Joint<'data>) -> Bone<'data> {
    Bone::new(&j.head.name, j.parent.map_or(-1, i32::from), 0)
}
