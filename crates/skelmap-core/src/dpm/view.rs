//! The validated DPM view and its zero-copy accessors.
//!
//! Validation lives in `validate.rs`; by the time a [`Dpm`] exists every offset, count and
//! index in it has been proven in range, so the accessors here do not fail. They still reach
//! the bytes through the checked reader and fall back to empty results rather than panic,
//! which can only happen if that proof were wrong.

use std::borrow::Cow;

use glam::{Quat, Vec3A};
use zerocopy::IntoBytes;
use zerocopy::byteorder::{BigEndian, F32, U32};

use super::raw;
use crate::format::Format;
use crate::name;
use crate::pose::bounds::Aabb;
use crate::pose::local::nlerp_pose;
use crate::pose::rotation::pose_of_matrix;
use crate::pose::{Bone, PoseFrames, Skeleton, SoaPose};
use crate::pose::{MeshGeometry, SkeletalMesh};
use crate::read::Reader;
use crate::view::{BoneVertexModel, bone_vertex_view, skeletal_mesh_view};

/// A validated DarkPlaces model over borrowed bytes. `Copy`, `Send` and `Sync`.
///
/// Built by [`Parse::parse`](crate::Parse::parse) or [`Parse::parse_with`](crate::Parse::parse_with).
///
/// ```
/// use skelmap_core::Parse;
/// use skelmap_core::{SkeletalMesh, dpm::Dpm, synth};
/// let bytes = synth::tube(&synth::TubeParams::default()).write()?;
/// let model = Dpm::parse(&bytes)?;
/// assert_eq!(model.bone(0).map(|b| b.name()), Some(&b"root"[..]));
/// let mesh = model.mesh(0).expect("one mesh");
/// let influences: usize = mesh.vertices().map(|v| v.len()).sum();
/// assert!(influences >= mesh.num_vertices() as usize);
/// # Ok::<(), skelmap_core::Error>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Dpm<'data> {
    /// The file's bytes, cut to the declared `filesize` when that is smaller.
    pub(super) data: &'data [u8],
    pub(super) header: &'data raw::Header,
    pub(super) bones: &'data [raw::Bone],
    pub(super) meshes: &'data [raw::Mesh],
    pub(super) frames: &'data [raw::Frame],
}

impl<'data> Dpm<'data> {
    /// The bytes the view covers (the whole file, or its declared size if smaller).
    #[must_use]
    pub fn data(&self) -> &'data [u8] {
        self.data
    }

    /// The raw header.
    #[must_use]
    pub fn header(&self) -> &'data raw::Header {
        self.header
    }

    /// Bounding box minimum over all frames, as stored.
    #[must_use]
    pub fn mins(&self) -> [f32; 3] {
        get3(&self.header.mins)
    }

    /// Bounding box maximum over all frames, as stored.
    #[must_use]
    pub fn maxs(&self) -> [f32; 3] {
        get3(&self.header.maxs)
    }

    /// Bounding cylinder radius (XY plane), as stored.
    #[must_use]
    pub fn yaw_radius(&self) -> f32 {
        self.header.yawradius.get()
    }

    /// Bounding sphere radius, as stored.
    #[must_use]
    pub fn all_radius(&self) -> f32 {
        self.header.allradius.get()
    }

    /// Number of bones (at least 1).
    #[must_use]
    pub fn num_bones(&self) -> usize {
        self.bones.len()
    }

    /// Number of meshes (at least 1).
    #[must_use]
    pub fn num_meshes(&self) -> usize {
        self.meshes.len()
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
        let (data, num_bones) = (self.data, self.num_bones());
        self.frames.get(index).map(|raw| Frame {
            data,
            raw,
            num_bones,
        })
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

impl<'data> Skeleton<'data> for Dpm<'data> {
    fn skeleton_bones(&self) -> impl ExactSizeIterator<Item = Bone<'data>> + Clone {
        self.bones()
    }

    fn bone(&self, index: usize) -> Option<Bone<'data>> {
        Dpm::bone(self, index)
    }
}

impl<'data> PoseFrames<'data> for Dpm<'data> {
    fn num_frames(&self) -> usize {
        self.num_frames()
    }

    /// The 3×4 matrix's rotation as a unit quaternion (a non-orthonormal rotation, such as old
    /// dpmodel's baked scale, loses its scale here) and its translation.
    fn bone_pose(&self, frame: usize, bone: usize) -> Option<(Quat, Vec3A)> {
        Some(pose_of_matrix(self.frame(frame)?.pose(bone)?))
    }

    fn frame_poses(&self, frame: usize) -> impl Iterator<Item = (Quat, Vec3A)> + '_ {
        let poses = self.frame(frame).map(|f| f.poses()).unwrap_or_default();
        poses.iter().map(|pose| pose_of_matrix(pose.matrix()))
    }

    /// 16 poses at a time with AVX-512 where the CPU has it, 8 with AVX2 where it has only
    /// that, a last partial step of a few or more included (the same arithmetic lane-wise, so the poses of
    /// [`frame_poses`](PoseFrames::frame_poses) bit for bit), the rest one at a time.
    fn frame_poses_into(&self, frame: usize, out: &mut Vec<(Quat, Vec3A)>) {
        let poses = self.frame(frame).map(|f| f.poses()).unwrap_or_default();
        let done = crate::pose::lanes::be_poses(poses.as_bytes(), out);
        let rest = poses.get(done..).unwrap_or_default();
        out.extend(rest.iter().map(|pose| pose_of_matrix(pose.matrix())));
    }

    fn nlerp_frames_into(&self, a: usize, b: usize, t: f32, out: &mut Vec<(Quat, Vec3A)>) -> bool {
        let (Some(a), Some(b)) = (self.frame(a), self.frame(b)) else {
            return false;
        };
        let (a, b) = (a.poses(), b.poses());
        out.clear();
        let done = crate::pose::lanes::be_poses_nlerp(a.as_bytes(), b.as_bytes(), t, out);
        let rest = a.iter().zip(b).skip(done);
        out.extend(
            rest.map(|(a, b)| {
                nlerp_pose(pose_of_matrix(a.matrix()), pose_of_matrix(b.matrix()), t)
            }),
        );
        true
    }

    fn nlerp_frames_soa_into(&self, a: usize, b: usize, t: f32, out: &mut SoaPose) -> bool {
        let (Some(a), Some(b)) = (self.frame(a), self.frame(b)) else {
            return false;
        };
        let (a, b) = (a.poses(), b.poses());
        let poses = a.len().min(b.len());
        out.resize(poses);
        let done =
            crate::pose::lanes::be_poses_nlerp_soa(a.as_bytes(), b.as_bytes(), t, &mut out.blocks);
        for (bone, (a, b)) in a.iter().zip(b).enumerate().skip(done) {
            out.set_bone(
                bone,
                nlerp_pose(pose_of_matrix(a.matrix()), pose_of_matrix(b.matrix()), t),
            );
        }
        // The lanes a last partial step left past the poses.
        out.resize(poses);
        true
    }
}

/// One mesh of a [`Dpm`]: its vertices, texture coordinates and triangles.
#[derive(Debug, Clone, Copy)]
pub struct Mesh<'data> {
    data: &'data [u8],
    raw: &'data raw::Mesh,
}

impl<'data> Mesh<'data> {
    fn reader(&self) -> Reader<'data> {
        Reader::new(self.data, Format::Dpm)
    }

    /// The shader (texture) name bytes, up to the first NUL.
    #[must_use]
    pub fn shader_name(&self) -> &'data [u8] {
        name::trim_nul(&self.raw.shadername)
    }

    /// The shader name as text (invalid UTF-8 replaced).
    #[must_use]
    pub fn shader_name_lossy(&self) -> Cow<'data, str> {
        name::lossy(self.shader_name())
    }

    /// The per-triangle group ids as stored.
    #[must_use]
    pub fn group_ids_raw(&self) -> &'data [U32<BigEndian>] {
        let (ofs, n) = (self.raw.ofs_groupids.get(), self.num_triangles());
        self.reader()
            .get_slice(ofs.into(), n as u64)
            .unwrap_or_default()
    }

    /// The per-triangle group ids as native integers.
    pub fn group_ids(&self) -> impl ExactSizeIterator<Item = u32> + Clone + 'data {
        self.group_ids_raw().iter().map(|g| g.get())
    }

    /// The raw record.
    #[must_use]
    pub fn raw(&self) -> &'data raw::Mesh {
        self.raw
    }
}

impl<'data> SkeletalMesh<'data> for Mesh<'data> {
    type Order = BigEndian;

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

impl<'data> BoneVertexModel<'data> for Dpm<'data> {
    type Mesh<'a>
        = Mesh<'a>
    where
        Self: 'a;

    const FORMAT: Format = Format::Dpm;

    fn frame_name(&self, index: usize) -> Option<&[u8]> {
        Some(self.frame(index)?.name())
    }

    fn num_meshes(&self) -> usize {
        Dpm::num_meshes(self)
    }

    fn mesh(&self, index: usize) -> Option<Mesh<'_>> {
        Dpm::mesh(self, index)
    }

    fn shader_name<'a>(mesh: &Mesh<'a>) -> &'a [u8]
    where
        Self: 'a,
    {
        mesh.shader_name()
    }
}

bone_vertex_view!(
    Dpm,
    fn check_animation(&self, diag: &mut crate::diag::Diagnostics) {
        self.check_rotations(diag);
    },
    fn stored_bounds(&self) -> Option<Aabb> {
        Some(Aabb {
            mins: self.mins(),
            maxs: self.maxs(),
        })
    },
);

skeletal_mesh_view!(Mesh, shader_name);

/// One animation frame of a [`Dpm`]: name, bounds and a pose per bone.
#[derive(Debug, Clone, Copy)]
pub struct Frame<'data> {
    data: &'data [u8],
    raw: &'data raw::Frame,
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

    /// Bounding box minimum, as stored.
    #[must_use]
    pub fn mins(&self) -> [f32; 3] {
        get3(&self.raw.mins)
    }

    /// Bounding box maximum, as stored.
    #[must_use]
    pub fn maxs(&self) -> [f32; 3] {
        get3(&self.raw.maxs)
    }

    /// Bounding cylinder radius, as stored.
    #[must_use]
    pub fn yaw_radius(&self) -> f32 {
        self.raw.yawradius.get()
    }

    /// Bounding sphere radius, as stored.
    #[must_use]
    pub fn all_radius(&self) -> f32 {
        self.raw.allradius.get()
    }

    /// One pose per bone, each relative to its parent; every value finite.
    #[must_use]
    pub fn poses(&self) -> &'data [raw::BonePose] {
        // Validated non-negative and in range.
        let ofs = u64::try_from(self.raw.ofs_bonepositions.get()).unwrap_or(u64::MAX);
        Reader::new(self.data, Format::Dpm)
            .get_slice(ofs, self.num_bones as u64)
            .unwrap_or_default()
    }

    /// The 3×4 row-major pose of `bone` relative to its parent.
    #[must_use]
    pub fn pose(&self, bone: usize) -> Option<[[f32; 4]; 3]> {
        self.poses().get(bone).map(raw::BonePose::matrix)
    }

    /// The raw record.
    #[must_use]
    pub fn raw(&self) -> &'data raw::Frame {
        self.raw
    }
}

fn bone(raw: &raw::Bone) -> Bone<'_> {
    Bone::new(&raw.name, raw.parent.get(), raw.flags.get())
}

fn get3(v: &[F32<BigEndian>; 3]) -> [f32; 3] {
    v.map(|x| x.get())
}
