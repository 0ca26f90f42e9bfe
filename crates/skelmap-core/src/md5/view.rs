//! The decoded MD5 files and the model made of them: [`MeshFile`] (an `.md5mesh`), [`Anim`]
//! (an `.md5anim`), and [`Pair`], a mesh file with the animations played on it (or an
//! animation alone), which is what [`Model`](crate::Model) holds.
//!
//! A mesh's arrays lie in the mesh file's one decoded block in the layout the record kernels
//! read (an SKM's little-endian records), so a [`Mesh`] is a [`SkeletalMesh`] and skins,
//! prepares and compacts as DPM and SKM do.

use std::borrow::Cow;

use glam::{Quat, Vec3, Vec3A};
use zerocopy::byteorder::LittleEndian;
use zerocopy::{FromBytes, Immutable, KnownLayout};

use super::lex::Span;
use super::raw::{
    Joint, JointAnimInfo, MeshLayout, TexCoord, Triangle, Vector, Weight, WeightRange,
};
use crate::format::Format;
use crate::name;
use crate::pose::{Bone, LocalPose, MeshGeometry, PoseFrames, SkeletalMesh, Skeleton};
use crate::view::{BoneVertexModel, ClipOrigin, bone_vertex_view, skeletal_mesh_view};

/// `n` records of type `T` at `offset` of `block` (empty where they do not fit, which
/// decoding rules out).
pub(super) fn records<T: FromBytes + Immutable + KnownLayout>(
    block: &[u8],
    offset: usize,
    n: usize,
) -> &[T] {
    block
        .get(offset..)
        .and_then(|rest| <[T]>::ref_from_prefix_with_elems(rest, n).ok())
        .map_or(&[], |(records, _)| records)
}

/// A decoded `.md5mesh`: joints in their bind pose, and meshes whose arrays lie in one block.
///
/// ```
/// use skelmap_core::{Parse, md5::MeshFile};
/// let text = br#"MD5Version 10
/// commandline ""
/// numJoints 1
/// numMeshes 1
/// joints {
///     "root" -1 ( 0 0 0 ) ( 0 0 0 )
/// }
/// mesh {
///     shader "skin"
///     numverts 3
///     vert 0 ( 0 0 ) 0 1
///     vert 1 ( 1 0 ) 1 1
///     vert 2 ( 0 1 ) 2 1
///     numtris 1
///     tri 0 0 2 1
///     numweights 3
///     weight 0 0 1 ( 0 0 0 )
///     weight 1 0 1 ( 1 0 0 )
///     weight 2 0 1 ( 0 1 0 )
/// }
/// "#;
/// let file = MeshFile::parse(text)?;
/// let mesh = file.mesh(0).unwrap();
/// assert_eq!((file.num_joints(), mesh.num_verts(), mesh.shader_name()), (1, 3, &b"skin"[..]));
/// assert_eq!(mesh.position(1), Some([1.0, 0.0, 0.0]));
/// # Ok::<(), skelmap_core::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct MeshFile<'data> {
    pub(crate) text: &'data [u8],
    pub(crate) commandline: Span,
    pub(crate) joints: Vec<Joint>,
    pub(crate) meshes: Vec<MeshLayout>,
    pub(crate) block: Vec<u8>,
}

impl<'data> MeshFile<'data> {
    /// The `commandline` the exporter wrote.
    #[must_use]
    pub fn commandline(&self) -> &'data [u8] {
        self.commandline.of(self.text)
    }

    /// Number of joints.
    #[must_use]
    pub fn num_joints(&self) -> usize {
        self.joints.len()
    }

    /// The joints, decoded.
    #[must_use]
    pub fn joints(&self) -> &[Joint] {
        &self.joints
    }

    /// The name of joint `index`.
    #[must_use]
    pub fn joint_name(&self, index: usize) -> Option<&'data [u8]> {
        self.joints.get(index).map(|j| j.name.of(self.text))
    }

    /// Number of meshes.
    #[must_use]
    pub fn num_meshes(&self) -> usize {
        self.meshes.len()
    }

    /// Mesh `index`.
    #[must_use]
    pub fn mesh(&self, index: usize) -> Option<Mesh<'_>> {
        Some(Mesh {
            text: self.text,
            block: &self.block,
            layout: self.meshes.get(index)?,
        })
    }

    /// The bytes the decoded block holds (every mesh's arrays).
    #[must_use]
    pub fn decoded_bytes(&self) -> usize {
        self.block.len()
    }

    pub(crate) fn weights(&self, layout: &MeshLayout) -> &[Weight] {
        records(&self.block, layout.ofs_weights, layout.num_weights as usize)
    }

    pub(crate) fn triangles(&self, layout: &MeshLayout) -> &[Triangle] {
        records(&self.block, layout.ofs_tris, layout.num_tris as usize)
    }
}

/// One mesh of a [`MeshFile`]: its shader, vertices (texture coordinate and weights),
/// triangles and weights as the text gives them, and what decoding made of them: bind-pose
/// positions, normals, and pre-weighted records.
#[derive(Debug, Clone, Copy)]
pub struct Mesh<'a> {
    text: &'a [u8],
    block: &'a [u8],
    layout: &'a MeshLayout,
}

impl<'a> Mesh<'a> {
    /// The shader, as the text names it.
    #[must_use]
    pub fn shader_name(&self) -> &'a [u8] {
        self.layout.shader.of(self.text)
    }

    /// The shader as text (invalid UTF-8 replaced).
    #[must_use]
    pub fn shader_name_lossy(&self) -> Cow<'a, str> {
        name::lossy(self.shader_name())
    }

    /// The mesh's `name`, empty when the text gives none.
    #[must_use]
    pub fn mesh_name(&self) -> &'a [u8] {
        self.layout.name.of(self.text)
    }

    /// Number of vertices.
    #[must_use]
    pub fn num_verts(&self) -> usize {
        self.layout.num_verts as usize
    }

    /// Number of weights.
    #[must_use]
    pub fn num_weights(&self) -> usize {
        self.layout.num_weights as usize
    }

    /// Each vertex's weights (`startWeight`, `countWeight`), in range.
    #[must_use]
    pub fn weight_ranges(&self) -> &'a [WeightRange] {
        records(self.block, self.layout.ofs_ranges, self.num_verts())
    }

    /// The weights as the text gives them.
    #[must_use]
    pub fn weights(&self) -> &'a [Weight] {
        records(self.block, self.layout.ofs_weights, self.num_weights())
    }

    /// The bind-pose positions the weights place the vertices at.
    #[must_use]
    pub fn positions(&self) -> &'a [Vector] {
        records(self.block, self.layout.ofs_positions, self.num_verts())
    }

    /// The bind-pose position of vertex `v`.
    #[must_use]
    pub fn position(&self, v: usize) -> Option<[f32; 3]> {
        self.positions().get(v).map(|p| p.map(|x| x.get()))
    }

    /// The bind-pose normals decoding derived (MD5 stores none), unit length.
    #[must_use]
    pub fn normals(&self) -> &'a [Vector] {
        records(self.block, self.layout.ofs_normals, self.num_verts())
    }

    /// The raw layout of the mesh in the block.
    #[must_use]
    pub fn layout(&self) -> &'a MeshLayout {
        self.layout
    }
}

impl<'a> SkeletalMesh<'a> for Mesh<'a> {
    type Order = LittleEndian;

    fn geometry(&self) -> MeshGeometry<'a> {
        let l = self.layout;
        MeshGeometry::new(
            self.block,
            [l.ofs_records, l.ofs_texcoords, l.ofs_tris].map(|o| o as u64),
            l.num_verts,
            l.num_tris,
        )
    }

    fn texcoords_raw(&self) -> &'a [TexCoord] {
        records(self.block, self.layout.ofs_texcoords, self.num_verts())
    }
}

skeletal_mesh_view!(Mesh, shader_name);

/// A decoded `.md5anim`: its hierarchy, a box per frame, the base frame, and every frame's
/// pose per joint (the base frame with the frame's components put in, rotations recovered).
#[derive(Debug, Clone)]
pub struct Anim<'data> {
    pub(crate) text: &'data [u8],
    pub(crate) commandline: Span,
    pub(crate) frame_rate: f32,
    pub(crate) num_animated_components: u32,
    pub(crate) hierarchy: Vec<JointAnimInfo>,
    pub(crate) bounds: Vec<[Vec3; 2]>,
    pub(crate) base_frame: Vec<(Vec3A, [f32; 3])>,
    pub(crate) poses: Vec<(Quat, Vec3A)>,
    /// Per frame and joint, the scale of the joint's own vertices from the animation's
    /// `.md5scale`; empty without one.
    pub(crate) skin_scales: Vec<f32>,
}

impl<'data> Anim<'data> {
    /// The `commandline` the exporter wrote.
    #[must_use]
    pub fn commandline(&self) -> &'data [u8] {
        self.commandline.of(self.text)
    }

    /// Frames a second (`frameRate`; 24 where the text says 0).
    #[must_use]
    pub fn frame_rate(&self) -> f32 {
        self.frame_rate
    }

    /// Number of frames.
    #[must_use]
    pub fn num_frames(&self) -> usize {
        self.bounds.len()
    }

    /// Number of joints.
    #[must_use]
    pub fn num_joints(&self) -> usize {
        self.hierarchy.len()
    }

    /// Components each frame stores (`numAnimatedComponents`).
    #[must_use]
    pub fn num_animated_components(&self) -> usize {
        self.num_animated_components as usize
    }

    /// The hierarchy, as the text gives it.
    #[must_use]
    pub fn hierarchy(&self) -> &[JointAnimInfo] {
        &self.hierarchy
    }

    /// The name of joint `index`.
    #[must_use]
    pub fn joint_name(&self, index: usize) -> Option<&'data [u8]> {
        self.hierarchy.get(index).map(|j| j.name.of(self.text))
    }

    /// The box of frame `frame` (`[min, max]`).
    #[must_use]
    pub fn bounds(&self, frame: usize) -> Option<[Vec3; 2]> {
        self.bounds.get(frame).copied()
    }

    /// The base frame's pose of joint `joint`: translation and the stored `x, y, z` of its
    /// rotation.
    #[must_use]
    pub fn base_frame(&self, joint: usize) -> Option<(Vec3A, [f32; 3])> {
        self.base_frame.get(joint).copied()
    }

    /// Every joint's pose in `frame`, parent-relative.
    #[must_use]
    pub fn frame(&self, frame: usize) -> Option<&[(Quat, Vec3A)]> {
        let n = self.num_joints();
        let start = frame.checked_mul(n)?;
        self.poses.get(start..start.checked_add(n)?)
    }

    /// Every joint's skin scale in `frame` (the scale of the vertices it moves, which its
    /// children do not inherit), from the Quake II remaster's `.md5scale` beside the
    /// animation; `None` without one, or out of range.
    ///
    /// ```
    /// use std::collections::HashMap;
    /// use skelmap_core::glam::{Quat, Vec3};
    /// use skelmap_core::md5::write::{AnimDef, Builder};
    /// use skelmap_core::{Limits, Model};
    /// let mut b = Builder::triangle();
    /// b.anims.push(AnimDef {
    ///     name: "walk".into(),
    ///     frame_rate: 24.0,
    ///     frames: vec![vec![(Quat::IDENTITY, Vec3::ZERO)]; 2],
    ///     bounds: vec![[Vec3::ZERO, Vec3::ONE]; 2],
    ///     skin_scales: Vec::new(),
    /// });
    /// let mut files = HashMap::new();
    /// files.insert("m.md5mesh".to_string(), b.mesh_text().into_bytes());
    /// let anim = b.anim_text(0).ok_or("no animation")?;
    /// files.insert("m-walk.md5anim".to_string(), anim.into_bytes());
    /// files.insert("m-walk.md5scale".to_string(), br#"{ "root": { "1": 0.5 } }"#.to_vec());
    /// let model = Model::resolve(&&files, "m.md5mesh", &Limits::DEFAULT)?;
    /// let anim = &model.as_md5().ok_or("not an MD5")?.animations()[0].anim;
    /// assert_eq!(anim.skin_scales(1), Some(&[0.5][..]));
    /// assert_eq!(anim.skin_scales(0), Some(&[1.0][..]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn skin_scales(&self, frame: usize) -> Option<&[f32]> {
        let n = self.num_joints();
        let start = frame.checked_mul(n)?;
        self.skin_scales.get(start..start.checked_add(n)?)
    }

    /// Takes `scales` (per frame and joint, as many as the frames' poses) as the skin scales,
    /// and scales the animated position of each joint `positions` marks by its scale in each
    /// frame (`scale_positions`: the joint's children follow).
    pub(crate) fn set_skin_scales(&mut self, scales: Vec<f32>, positions: &[bool]) {
        let n = self.num_joints();
        if n > 0 && scales.len() == self.poses.len() {
            for (frame, frame_scales) in self.poses.chunks_mut(n).zip(scales.chunks(n)) {
                for ((pose, &s), _) in (frame.iter_mut().zip(frame_scales))
                    .zip(positions)
                    .filter(|(_, on)| **on)
                {
                    pose.1 *= s;
                }
            }
            self.skin_scales = scales;
        }
    }

    /// The base frame as poses (what an animation opened alone is bound to).
    fn base_pose(&self, out: &mut Vec<(Quat, Vec3A)>) {
        out.extend(
            self.base_frame
                .iter()
                .map(|&(t, q)| (super::validate::rotation(q).0, t)),
        );
    }
}

/// One animation a [`Pair`] plays: its name (the file's stem) and frames.
#[derive(Debug, Clone)]
pub struct Animation<'data> {
    /// The name clips and frames take (the file's name without `.md5anim`).
    pub name: String,
    /// The decoded file.
    pub anim: Anim<'data>,
    /// Its first frame among the model's frames.
    pub first_frame: usize,
}

/// A model: a mesh file with the animations played on it, or an animation on its own (its
/// base frame as the bind pose, no meshes). Frames are every animation's, one after another,
/// a clip each at its frame rate.
#[derive(Debug, Clone)]
pub struct Pair<'data> {
    pub(crate) mesh: Option<MeshFile<'data>>,
    pub(crate) animations: Vec<Animation<'data>>,
    /// Every joint's parent ([`Skeleton::parent_table`]), made by the first palette built:
    /// a bone of the text costs a look-up of its name and its file on every build.
    parents: std::sync::OnceLock<Vec<u16>>,
}

impl<'data> Pair<'data> {
    /// A mesh file and the animations played on it (each checked to fit:
    /// [`fits`](Pair::fits)).
    pub(crate) fn new(mesh: Option<MeshFile<'data>>, anims: Vec<(String, Anim<'data>)>) -> Self {
        let mut first_frame = 0;
        let animations = anims
            .into_iter()
            .map(|(name, anim)| {
                let a = Animation {
                    name,
                    first_frame,
                    anim,
                };
                first_frame += a.anim.num_frames();
                a
            })
            .collect();
        Pair {
            mesh,
            animations,
            parents: std::sync::OnceLock::new(),
        }
    }

    /// The mesh file, unless an animation was opened alone.
    #[must_use]
    pub fn mesh_file(&self) -> Option<&MeshFile<'data>> {
        self.mesh.as_ref()
    }

    /// The animations played, in frame order.
    #[must_use]
    pub fn animations(&self) -> &[Animation<'data>] {
        &self.animations
    }

    /// Where `anim` stops fitting the mesh file: where their joint counts differ, the first
    /// joint past the shorter list (the count is compared first, as Doom 3 compares it);
    /// otherwise the first joint whose name or parent differs; `None` when the animation
    /// fits. Doom 3 plays an animation only on a mesh of the same joints, in the same order,
    /// with the same parents.
    #[must_use]
    pub fn fits(mesh: &MeshFile<'_>, anim: &Anim<'_>) -> Option<usize> {
        Pair::hierarchy_fits(mesh, &anim.hierarchy, anim.text)
    }

    /// [`fits`](Pair::fits) of an animation's `hierarchy`, read from `text`: what an
    /// animation's parse can ask before it reads the frames.
    pub(crate) fn hierarchy_fits(
        mesh: &MeshFile<'_>,
        hierarchy: &[JointAnimInfo],
        text: &[u8],
    ) -> Option<usize> {
        if mesh.joints.len() != hierarchy.len() {
            return Some(mesh.joints.len().min(hierarchy.len()));
        }
        let mut joints = mesh.joints.iter().zip(hierarchy).enumerate();
        joints
            .find(|(_, (j, h))| j.parent != h.parent_num || j.name.of(mesh.text) != h.name.of(text))
            .map(|(i, _)| i)
    }

    /// `true` for a mesh without animations, whose one frame is its bind pose.
    fn bind_only(&self) -> bool {
        self.animations.is_empty() && self.mesh.is_some()
    }

    /// The animation holding model frame `frame`, and the frame within it.
    fn locate(&self, frame: usize) -> Option<(&Anim<'data>, usize)> {
        self.animation_at(frame).map(|(a, local)| (&a.anim, local))
    }

    /// The animation holding model frame `frame`, and the frame within it.
    fn animation_at(&self, frame: usize) -> Option<(&Animation<'data>, usize)> {
        let a = self
            .animations
            .iter()
            .rev()
            .find(|a| a.first_frame <= frame)?;
        let local = frame - a.first_frame;
        (local < a.anim.num_frames()).then_some((a, local))
    }

    fn bone_of(&self, index: usize) -> Option<Bone<'data>> {
        match (&self.mesh, self.animations.first()) {
            (Some(m), _) => m
                .joints
                .get(index)
                .map(|j| Bone::new(j.name.of(m.text), j.parent, 0)),
            (None, Some(a)) => a
                .anim
                .hierarchy
                .get(index)
                .map(|j| Bone::new(j.name.of(a.anim.text), j.parent_num, 0)),
            (None, None) => None,
        }
    }

    fn num_bones(&self) -> usize {
        match (&self.mesh, self.animations.first()) {
            (Some(m), _) => m.joints.len(),
            (None, Some(a)) => a.anim.num_joints(),
            (None, None) => 0,
        }
    }

    /// The bind pose: the mesh file's joints made parent-relative, or an animation's base
    /// frame.
    fn bind_poses(&self, out: &mut Vec<(Quat, Vec3A)>) {
        out.clear();
        self.extend_bind_poses(out);
    }

    /// Appends [`bind_poses`](Pair::bind_poses)'s poses to `out`.
    fn extend_bind_poses(&self, out: &mut Vec<(Quat, Vec3A)>) {
        match (&self.mesh, self.animations.first()) {
            (Some(m), _) => out.extend(
                m.joints
                    .iter()
                    .map(|j| (j.local_rotation, j.local_translation)),
            ),
            (None, Some(a)) => a.anim.base_pose(out),
            (None, None) => {}
        }
    }
}

impl<'data> Skeleton<'data> for Pair<'data> {
    fn skeleton_bones(&self) -> impl ExactSizeIterator<Item = Bone<'data>> + Clone {
        (0..self.num_bones()).map(|i| self.bone_of(i).unwrap_or_else(|| Bone::new(&[], -1, 0)))
    }

    fn bone(&self, index: usize) -> Option<Bone<'data>> {
        self.bone_of(index)
    }

    fn parent_table(&self) -> Option<&[u16]> {
        let table = (self.parents).get_or_init(|| crate::pose::parent_table(self.skeleton_bones()));
        Some(table)
    }
}

impl<'data> PoseFrames<'data> for Pair<'data> {
    /// The animations' frames one after another; a mesh without animations has one, its
    /// bind pose.
    fn num_frames(&self) -> usize {
        match self.animations.last() {
            Some(a) => a.first_frame + a.anim.num_frames(),
            None => usize::from(self.bind_only()),
        }
    }

    fn bone_pose(&self, frame: usize, bone: usize) -> Option<(Quat, Vec3A)> {
        if self.bind_only() {
            let joint = self
                .mesh
                .as_ref()?
                .joints
                .get(bone)
                .filter(|_| frame == 0)?;
            return Some((joint.local_rotation, joint.local_translation));
        }
        let (anim, local) = self.locate(frame)?;
        anim.frame(local)?.get(bone).copied()
    }

    fn frame_poses_into(&self, frame: usize, out: &mut Vec<(Quat, Vec3A)>) {
        if self.bind_only() {
            if frame == 0 {
                self.extend_bind_poses(out);
            }
        } else if let Some(poses) = self.locate(frame).and_then(|(a, f)| a.frame(f)) {
            out.extend_from_slice(poses);
        }
    }

    /// `true` when an animation has an `.md5scale`.
    fn has_skin_scale(&self) -> bool {
        self.animations
            .iter()
            .any(|a| !a.anim.skin_scales.is_empty())
    }

    /// The frame's skin scales from its animation's `.md5scale`, 1 for each joint of an
    /// animation without one.
    fn frame_skin_scales_into(&self, frame: usize, out: &mut Vec<f32>) {
        if let Some((anim, local)) = self.locate(frame) {
            match anim.skin_scales(local) {
                Some(scales) => out.extend_from_slice(scales),
                None => out.resize(out.len() + anim.num_joints(), 1.0),
            }
        }
    }

    /// The decoded frames blended as baked frames are: frame `a` copied, then blended towards
    /// frame `b` in place (no copy of `b`). Not for the bind pose alone, which has one frame.
    fn nlerp_frames_into(&self, a: usize, b: usize, t: f32, out: &mut Vec<(Quat, Vec3A)>) -> bool {
        let frame = |frame| self.locate(frame).and_then(|(anim, f)| anim.frame(f));
        match (self.bind_only(), frame(a), frame(b)) {
            (false, Some(a), Some(b)) => {
                crate::pose::nlerp_frames(a, b, t, out);
                true
            }
            _ => false,
        }
    }
}

impl<'data> BoneVertexModel<'data> for Pair<'data> {
    type Mesh<'a>
        = Mesh<'a>
    where
        Self: 'a;

    const FORMAT: Format = Format::Md5;

    fn frame_name(&self, index: usize) -> Option<&[u8]> {
        if self.bind_only() {
            return (index == 0).then_some(&b"bind"[..]);
        }
        self.animation_at(index).map(|(a, _)| a.name.as_bytes())
    }

    fn num_meshes(&self) -> usize {
        self.mesh.as_ref().map_or(0, MeshFile::num_meshes)
    }

    fn mesh(&self, index: usize) -> Option<Mesh<'_>> {
        self.mesh.as_ref()?.mesh(index)
    }

    fn shader_name<'a>(mesh: &Mesh<'a>) -> &'a [u8]
    where
        Self: 'a,
    {
        mesh.shader_name()
    }
}

bone_vertex_view!(
    Pair,
    fn every_bone_attaches(&self) -> bool {
        true
    },
    fn clip_origin(&self) -> ClipOrigin {
        ClipOrigin::FrameGroups
    },
    fn built_in_clips(&self) -> Vec<crate::pose::framegroups::FrameGroup> {
        self.animations
            .iter()
            .map(|a| crate::pose::framegroups::FrameGroup {
                name: a.name.clone(),
                first: a.first_frame as u32,
                count: a.anim.num_frames() as u32,
                fps: a.anim.frame_rate(),
                looped: true,
            })
            .collect()
    },
    fn bind_pose(&self, out: &mut LocalPose) {
        self.bind_poses(&mut out.bones);
        out.scales.clear();
    },
);
