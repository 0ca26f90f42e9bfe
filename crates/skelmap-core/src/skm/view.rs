//! The validated SKM and SKP views and their zero-copy accessors, and the pair of them.
//!
//! Validation lives in `validate.rs`; by the time a view exists every offset, count and index
//! in it has been proven in range, so the accessors here do not fail.

use std::borrow::Cow;

use glam::{Quat, Vec3A};
use zerocopy::LittleEndian;
use zerocopy::byteorder::U32;

use super::raw::{SKM_MAX_LODS, SkmHeader, SkmMesh, SkpBone, SkpBonePose, SkpFrame, SkpHeader};
use crate::format::Format;
use crate::name;
use crate::pose::{Bone, MeshGeometry, PoseFrames, SkeletalMesh, Skeleton};
use crate::read::Reader;
use crate::view::{
    BoneVertexModel, IndexedNames, ModelView, NoMesh, bone_vertex_view, skeletal_mesh_view,
};

const SKM: Format = Format::Skm;
const SKP: Format = Format::Skp;

/// A validated SKM mesh file over borrowed bytes. `Copy`, `Send` and `Sync`.
///
/// On its own it proves every `bonenum < num_bones` of its own header; pairing with the
/// skeleton ([`Pair::new`](super::Pair::new)) proves that count matches the SKP.
#[derive(Debug, Clone, Copy)]
pub struct Skm<'data> {
    pub(super) data: &'data [u8],
    pub(super) header: &'data SkmHeader,
    pub(super) meshes: &'data [SkmMesh],
}

impl<'data> Skm<'data> {
    /// The bytes the view covers (the whole file, or its declared size if smaller).
    #[must_use]
    pub fn data(&self) -> &'data [u8] {
        self.data
    }

    /// The raw header.
    #[must_use]
    pub fn header(&self) -> &'data SkmHeader {
        self.header
    }

    /// Bones the meshes are weighted to (the skeleton must have exactly as many).
    #[must_use]
    pub fn num_bones(&self) -> usize {
        self.header.num_bones.get() as usize
    }

    /// Number of meshes (at least 1).
    #[must_use]
    pub fn num_meshes(&self) -> usize {
        self.meshes.len()
    }

    /// The meshes, in file order.
    pub fn meshes(
        &self,
    ) -> impl ExactSizeIterator<Item = Mesh<'data>> + DoubleEndedIterator + Clone {
        let data = self.data;
        self.meshes.iter().map(move |raw| Mesh { data, raw })
    }

    /// Mesh `index`, or `None` if out of range.
    #[must_use]
    pub fn mesh(&self, index: usize) -> Option<Mesh<'data>> {
        let data = self.data;
        self.meshes.get(index).map(|raw| Mesh { data, raw })
    }

    /// Vertices summed over all meshes.
    #[must_use]
    pub fn num_vertices(&self) -> usize {
        self.meshes().map(|m| m.num_vertices()).sum()
    }

    /// Triangles summed over all meshes.
    #[must_use]
    pub fn num_triangles(&self) -> usize {
        self.meshes().map(|m| m.num_triangles()).sum()
    }
}

/// One mesh of an [`Skm`]: names, vertices, texture coordinates, triangles, bone references.
#[derive(Debug, Clone, Copy)]
pub struct Mesh<'data> {
    data: &'data [u8],
    raw: &'data SkmMesh,
}

impl<'data> Mesh<'data> {
    fn reader(&self) -> Reader<'data> {
        Reader::new(self.data, SKM)
    }

    /// The shader (texture) name bytes, up to the first NUL.
    #[must_use]
    pub fn shader_name(&self) -> &'data [u8] {
        name::trim_nul(&self.raw.shadername)
    }

    /// The mesh name bytes, up to the first NUL (LOD files carry an `_N` suffix).
    #[must_use]
    pub fn mesh_name(&self) -> &'data [u8] {
        name::trim_nul(&self.raw.meshname)
    }

    /// The mesh name with a level-of-detail suffix `_1` … `_4` removed, as the engines do.
    #[must_use]
    pub fn base_name(&self) -> &'data [u8] {
        strip_lod_suffix(self.mesh_name())
    }

    /// The mesh name as text (invalid UTF-8 replaced).
    #[must_use]
    pub fn mesh_name_lossy(&self) -> Cow<'data, str> {
        name::lossy(self.mesh_name())
    }

    /// The shader name as text (invalid UTF-8 replaced).
    #[must_use]
    pub fn shader_name_lossy(&self) -> Cow<'data, str> {
        name::lossy(self.shader_name())
    }

    /// The bone indices the mesh uses, as stored (each `< num_bones`).
    #[must_use]
    pub fn references_raw(&self) -> &'data [U32<LittleEndian>] {
        let (ofs, n) = (self.raw.ofs_references.get(), self.raw.num_references.get());
        self.reader()
            .get_slice(ofs.into(), n.into())
            .unwrap_or_default()
    }

    /// The bone indices the mesh uses.
    pub fn references(&self) -> impl ExactSizeIterator<Item = u32> + Clone + 'data {
        self.references_raw().iter().map(|r| r.get())
    }

    /// The raw record.
    #[must_use]
    pub fn raw(&self) -> &'data SkmMesh {
        self.raw
    }
}

impl<'data> SkeletalMesh<'data> for Mesh<'data> {
    type Order = LittleEndian;

    fn geometry(&self) -> MeshGeometry<'data> {
        let r = self.raw;
        MeshGeometry::new(
            self.reader().bytes(),
            [r.ofs_verts, r.ofs_texcoords, r.ofs_indices].map(|o| o.get().into()),
            r.num_verts.get(),
            r.num_tris.get(),
        )
    }
}

/// `name` without a trailing `_1` … `_4` (the level-of-detail suffix).
#[must_use]
pub(crate) fn strip_lod_suffix(name: &[u8]) -> &[u8] {
    match name {
        [head @ .., b'_', n] if (b'1'..=b'4').contains(n) => head,
        _ => name,
    }
}

/// A validated SKP skeleton over borrowed bytes: bones and frames of parent-relative
/// quaternion + origin poses. `Copy`, `Send` and `Sync`.
#[derive(Debug, Clone, Copy)]
pub struct Skp<'data> {
    pub(super) data: &'data [u8],
    pub(super) header: &'data SkpHeader,
    pub(super) bones: &'data [SkpBone],
    pub(super) frames: &'data [SkpFrame],
}

impl<'data> Skp<'data> {
    /// The bytes the view covers.
    #[must_use]
    pub fn data(&self) -> &'data [u8] {
        self.data
    }

    /// The raw header.
    #[must_use]
    pub fn header(&self) -> &'data SkpHeader {
        self.header
    }

    /// Number of bones (at least 1).
    #[must_use]
    pub fn num_bones(&self) -> usize {
        self.bones.len()
    }

    /// Number of frames (at least 1; frame 0 is the bind pose).
    #[must_use]
    pub fn num_frames(&self) -> usize {
        self.frames.len()
    }

    /// The bones, in file order (parents before children).
    pub fn bones(
        &self,
    ) -> impl ExactSizeIterator<Item = Bone<'data>> + DoubleEndedIterator + Clone {
        self.bones.iter().map(bone)
    }

    /// Bone `index`, or `None` if out of range.
    #[must_use]
    pub fn bone(&self, index: usize) -> Option<Bone<'data>> {
        self.bones.get(index).map(bone)
    }

    /// The frames, in file order.
    pub fn frames(
        &self,
    ) -> impl ExactSizeIterator<Item = Frame<'data>> + DoubleEndedIterator + Clone {
        let (data, num_bones) = (self.data, self.num_bones());
        self.frames.iter().map(move |raw| Frame {
            data,
            raw,
            num_bones,
        })
    }

    /// Frame `index`, or `None` if out of range.
    #[must_use]
    pub fn frame(&self, index: usize) -> Option<Frame<'data>> {
        self.frames().nth(index)
    }

    /// Index of the first frame named exactly `name`.
    #[must_use]
    pub fn frame_index(&self, name: &[u8]) -> Option<usize> {
        name::position(self.frames().map(|f| f.name()), name, false)
    }

    /// Index of the first frame whose name equals `name` ignoring ASCII case.
    #[must_use]
    pub fn frame_index_ignore_ascii_case(&self, name: &[u8]) -> Option<usize> {
        name::position(self.frames().map(|f| f.name()), name, true)
    }
}

impl<'data> Skeleton<'data> for Skp<'data> {
    fn skeleton_bones(&self) -> impl ExactSizeIterator<Item = Bone<'data>> + Clone {
        self.bones()
    }

    fn bone(&self, index: usize) -> Option<Bone<'data>> {
        Skp::bone(self, index)
    }
}

impl<'data> PoseFrames<'data> for Skp<'data> {
    fn num_frames(&self) -> usize {
        self.num_frames()
    }

    fn bone_pose(&self, frame: usize, bone: usize) -> Option<(Quat, Vec3A)> {
        let (q, o) = self.frame(frame)?.pose(bone)?;
        Some(skp_pose(q, o))
    }

    fn frame_poses(&self, frame: usize) -> impl Iterator<Item = (Quat, Vec3A)> + '_ {
        let poses = self.frame(frame).map(|f| f.poses()).unwrap_or_default();
        poses.iter().map(|p| skp_pose(p.quat(), p.origin()))
    }
}

/// A skeleton on its own: bones and frames, no meshes.
impl<'data> ModelView<'data> for Skp<'data> {
    type Mesh<'a>
        = NoMesh
    where
        Self: 'a;
    type FrameNames<'a>
        = IndexedNames<'a, 'data, Self>
    where
        Self: 'a;
    type BindMesh<'a>
        = NoMesh
    where
        Self: 'a;

    fn pose_frames(&self) -> Option<&impl PoseFrames<'data>> {
        Some(self)
    }

    fn format(&self) -> Format {
        SKP
    }

    fn frame_name(&self, index: usize) -> Option<&[u8]> {
        Some(self.frame(index)?.name())
    }

    fn frame_names(&self) -> Self::FrameNames<'_> {
        IndexedNames::new(self)
    }
}

fn skp_pose(q: [f32; 4], o: [f32; 3]) -> (Quat, Vec3A) {
    (Quat::from_array(q).normalize(), Vec3A::from(o))
}

fn bone(raw: &SkpBone) -> Bone<'_> {
    Bone::new(&raw.name, raw.parent.get(), raw.flags.get())
}

/// One frame of an [`Skp`]: a name and one parent-relative pose per bone.
#[derive(Debug, Clone, Copy)]
pub struct Frame<'data> {
    data: &'data [u8],
    raw: &'data SkpFrame,
    num_bones: usize,
}

impl<'data> Frame<'data> {
    /// The name bytes, up to the first NUL.
    #[must_use]
    pub fn name(&self) -> &'data [u8] {
        name::trim_nul(&self.raw.name)
    }

    /// The name as text (invalid UTF-8 replaced).
    #[must_use]
    pub fn name_lossy(&self) -> Cow<'data, str> {
        name::lossy(self.name())
    }

    /// One pose per bone, each relative to its parent; every value finite.
    #[must_use]
    pub fn poses(&self) -> &'data [SkpBonePose] {
        Reader::new(self.data, SKP)
            .get_slice(
                self.raw.ofs_bonepositions.get().into(),
                self.num_bones as u64,
            )
            .unwrap_or_default()
    }

    /// The pose of `bone`: quaternion `(x, y, z, w)` and origin, relative to its parent.
    #[must_use]
    pub fn pose(&self, bone: usize) -> Option<([f32; 4], [f32; 3])> {
        self.poses().get(bone).map(|p| (p.quat(), p.origin()))
    }

    /// The raw record.
    #[must_use]
    pub fn raw(&self) -> &'data SkpFrame {
        self.raw
    }
}

/// A mesh file paired with its skeleton (and levels of detail): the bone counts are proven
/// equal, so every `bonenum` of every mesh indexes the skeleton. `Copy`, `Send` and `Sync`.
#[derive(Debug, Clone, Copy)]
pub struct Pair<'data> {
    pub(super) skm: Skm<'data>,
    pub(super) skp: Skp<'data>,
    pub(super) lods: [Option<Skm<'data>>; SKM_MAX_LODS],
}

impl<'data> Pair<'data> {
    /// The mesh file.
    #[must_use]
    pub fn skm(&self) -> Skm<'data> {
        self.skm
    }

    /// The skeleton file.
    #[must_use]
    pub fn skp(&self) -> Skp<'data> {
        self.skp
    }

    /// The levels of detail, finest first (`_1`, `_2`, …).
    pub fn lods(&self) -> impl Iterator<Item = Skm<'data>> + Clone + '_ {
        self.lods.iter().flatten().copied()
    }
}

impl<'data> Skeleton<'data> for Pair<'data> {
    fn skeleton_bones(&self) -> impl ExactSizeIterator<Item = Bone<'data>> + Clone {
        self.skp.bones()
    }

    fn bone(&self, index: usize) -> Option<Bone<'data>> {
        self.skp.bone(index)
    }
}

impl<'data> PoseFrames<'data> for Pair<'data> {
    fn num_frames(&self) -> usize {
        self.skp().num_frames()
    }

    fn bone_pose(&self, frame: usize, bone: usize) -> Option<(Quat, Vec3A)> {
        self.skp().bone_pose(frame, bone)
    }

    fn frame_poses(&self, frame: usize) -> impl Iterator<Item = (Quat, Vec3A)> + '_ {
        let poses = self
            .skp()
            .frame(frame)
            .map(|f| f.poses())
            .unwrap_or_default();
        poses.iter().map(|p| skp_pose(p.quat(), p.origin()))
    }
}

/// The mesh file's meshes, posed by the skeleton's frames.
impl<'data> BoneVertexModel<'data> for Pair<'data> {
    type Mesh<'a>
        = Mesh<'a>
    where
        Self: 'a;

    const FORMAT: Format = SKM;

    fn frame_name(&self, index: usize) -> Option<&[u8]> {
        Some(self.skp.frame(index)?.name())
    }

    fn num_meshes(&self) -> usize {
        self.skm.num_meshes()
    }

    fn mesh(&self, index: usize) -> Option<Mesh<'_>> {
        self.skm.mesh(index)
    }

    fn shader_name<'a>(mesh: &Mesh<'a>) -> &'a [u8]
    where
        Self: 'a,
    {
        mesh.shader_name()
    }
}

bone_vertex_view!(Pair);

skeletal_mesh_view!(Mesh, mesh_name);

#[cfg(test)]
mod tests {
    use super::strip_lod_suffix;

    #[test]
    fn lod_suffix_is_stripped_only_for_1_to_4() {
        assert_eq!(strip_lod_suffix(b"body_1"), b"body");
        assert_eq!(strip_lod_suffix(b"body_4"), b"body");
        assert_eq!(strip_lod_suffix(b"body_5"), b"body_5");
        assert_eq!(strip_lod_suffix(b"body_12"), b"body_12");
        assert_eq!(strip_lod_suffix(b"_1"), b"");
        assert_eq!(strip_lod_suffix(b"body"), b"body");
    }
}
