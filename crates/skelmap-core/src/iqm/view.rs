//! The validated IQM view and its accessors; its `Skeleton`, `PoseFrames`, `ModelView`,
//! `MeshView` and `BindPoseMesh` impls.

use glam::{Quat, Vec3A};
use zerocopy::LittleEndian;
use zerocopy::byteorder::{F32, U32};

use super::raw::{self, Channel, Header, IQM_LOOP, NUM_CHANNELS};
use crate::format::Format;
use crate::pose::bounds::Aabb;
use crate::pose::framegroups::FrameGroup;
use crate::pose::{
    BindPoseMesh, BindVertex, Bone, BoneChannels, FourInfluences, LocalPose, PoseFrames, Skeleton,
    unit_rotation,
};
use crate::view::{
    ClipOrigin, IndexedNames, Material, MeshView, ModelView, NAMED_CLIP_FPS, Submesh,
    TexcoordLayout,
};

type Le = LittleEndian;

const FORMAT: Format = Format::Iqm;

/// A validated IQM file: references into its bytes, nothing copied.
///
/// Every vertex array is global: an IQM mesh is a range of the triangles (whose indices may
/// reach any vertex) drawn with one material. [`Model`](crate::Model) therefore sees one mesh
/// holding every vertex and triangle, with one submesh per IQM mesh.
///
/// ```
/// use skelmap_core::{iqm, Parse};
/// let bytes = iqm::Builder::demo().write()?;
/// let model = iqm::Iqm::parse(&bytes)?;
/// assert_eq!((model.num_joints(), model.num_meshes(), model.num_anims()), (3, 2, 2));
/// assert_eq!(model.joint_name(1), Some(&b"spine"[..]));
/// # Ok::<(), skelmap_core::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Iqm<'data> {
    pub(super) data: &'data [u8],
    pub(super) header: &'data Header,
    /// The string table; every offset validation accepted is terminated inside it.
    pub(super) text: &'data [u8],
    pub(super) meshes: &'data [raw::Mesh],
    pub(super) vertex_arrays: &'data [raw::VertexArray],
    pub(super) arrays: Arrays<'data>,
    pub(super) triangles: &'data [raw::Triangle],
    pub(super) adjacency: &'data [raw::Triangle],
    pub(super) joints: &'data [raw::Joint],
    pub(super) poses: &'data [raw::Pose],
    pub(super) anims: &'data [raw::Anim],
    pub(super) frames: &'data [Channel],
    pub(super) bounds: &'data [raw::Bounds],
    pub(super) comment: &'data [u8],
    /// Whether any joint or pose scales (a scale other than 1, or an animated scale channel).
    pub(super) has_scale: bool,
}

/// The vertex arrays of the standard types the view reads, each `num_vertexes` long.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Arrays<'data> {
    pub(super) position: Option<&'data [[F32<Le>; 3]]>,
    pub(super) texcoord: Option<&'data [[F32<Le>; 2]]>,
    pub(super) normal: Option<&'data [[F32<Le>; 3]]>,
    pub(super) tangent: Option<&'data [[F32<Le>; 4]]>,
    pub(super) blend_indexes: Option<Quad<'data>>,
    pub(super) blend_weights: Option<Quad<'data>>,
    pub(super) color: Option<Quad<'data>>,
}

/// Four components per vertex in one of the formats the four-wide types allow.
#[derive(Debug, Clone, Copy)]
pub(super) enum Quad<'data> {
    /// `ubyte × 4`.
    U8(&'data [[u8; 4]]),
    /// `int × 4` or `uint × 4` (indexes only; validated non-negative).
    U32(&'data [[U32<Le>; 4]]),
    /// `float × 4` (weights and colours).
    F32(&'data [[F32<Le>; 4]]),
}

impl Quad<'_> {
    /// Vertex `i`'s four components as integers (indexes).
    fn index(&self, i: usize) -> Option<[u32; 4]> {
        match self {
            Quad::U8(a) => a.get(i).map(|v| v.map(u32::from)),
            Quad::U32(a) => a.get(i).map(|v| v.map(|c| c.get())),
            Quad::F32(_) => None,
        }
    }

    /// Vertex `i`'s four components as fractions of one (weights, colours): a byte over 255.
    fn unit(&self, i: usize) -> Option<[f32; 4]> {
        match self {
            Quad::U8(a) => a.get(i).map(|v| v.map(|c| f32::from(c) / 255.0)),
            Quad::F32(a) => a.get(i).map(|v| v.map(|c| c.get())),
            Quad::U32(_) => None,
        }
    }

    /// Vertex `i`'s four components as bytes (weights, colours): floats scaled by 255 and
    /// rounded.
    fn bytes(&self, i: usize) -> Option<[u8; 4]> {
        match self {
            Quad::U8(a) => a.get(i).copied(),
            Quad::F32(a) => a
                .get(i)
                .map(|v| v.map(|c| (c.get().clamp(0.0, 1.0) * 255.0).round() as u8)),
            Quad::U32(_) => None,
        }
    }
}

/// One IQM anim: a named run of frames.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Anim<'data> {
    /// The name (empty where the file gives none).
    pub name: &'data [u8],
    /// First frame.
    pub first_frame: u32,
    /// Frames in the run.
    pub num_frames: u32,
    /// The stored frame rate, which may be 0 (see [`Anim::fps`]).
    pub framerate: f32,
    /// Whether the anim loops ([`IQM_LOOP`]).
    pub looped: bool,
}

impl Anim<'_> {
    /// The rate the anim plays at: its stored rate when positive, else [`NAMED_CLIP_FPS`]
    /// (10, the rate FTE gives such anims; `docs/formats/iqm.md` § Quirks and decisions).
    #[must_use]
    pub fn fps(&self) -> f32 {
        if self.framerate > 0.0 {
            self.framerate
        } else {
            NAMED_CLIP_FPS
        }
    }
}

/// One frame's stored bounds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FrameBounds {
    /// The box.
    pub aabb: Aabb,
    /// Radius in the X-Y plane.
    pub xy_radius: f32,
    /// Spherical radius.
    pub radius: f32,
}

/// One link of the extension chain: its name and data bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Extension<'data> {
    /// The name (`FTE_MESH`, …).
    pub name: &'data [u8],
    /// The data, as stored.
    pub data: &'data [u8],
}

impl<'data> Iqm<'data> {
    /// The bytes the view reads (the file, cut at `filesize`).
    #[must_use]
    pub fn data(&self) -> &'data [u8] {
        self.data
    }

    /// The header.
    #[must_use]
    pub fn header(&self) -> &'data Header {
        self.header
    }

    /// The string at text offset `offset` (without its NUL); empty for offset 0 of a file
    /// without text, `None` for an offset validation did not see.
    #[must_use]
    pub fn text(&self, offset: u32) -> Option<&'data [u8]> {
        if self.text.is_empty() && offset == 0 {
            return Some(&[]);
        }
        let rest = self.text.get(offset as usize..)?;
        let end = rest.iter().position(|&b| b == 0)?;
        rest.get(..end)
    }

    /// The string a validated field names (empty where it could not be found, which validation
    /// rules out).
    fn string(&self, offset: U32<Le>) -> &'data [u8] {
        self.text(offset.get()).unwrap_or_default()
    }

    /// Number of vertices every vertex array holds.
    #[must_use]
    pub fn num_vertices(&self) -> usize {
        self.header.num_vertexes.get() as usize
    }

    /// Number of triangles, over every mesh.
    #[must_use]
    pub fn num_triangles(&self) -> usize {
        self.triangles.len()
    }

    /// Number of IQM meshes.
    #[must_use]
    pub fn num_meshes(&self) -> usize {
        self.meshes.len()
    }

    /// The IQM mesh records.
    #[must_use]
    pub fn meshes(&self) -> &'data [raw::Mesh] {
        self.meshes
    }

    /// Mesh `i`'s name.
    #[must_use]
    pub fn mesh_name(&self, i: usize) -> Option<&'data [u8]> {
        self.meshes.get(i).map(|m| self.string(m.name))
    }

    /// Mesh `i`'s material (a texture or shader name).
    #[must_use]
    pub fn mesh_material(&self, i: usize) -> Option<&'data [u8]> {
        self.meshes.get(i).map(|m| self.string(m.material))
    }

    /// Every vertex array record, custom ones included.
    #[must_use]
    pub fn vertex_arrays(&self) -> &'data [raw::VertexArray] {
        self.vertex_arrays
    }

    /// The name of a custom vertex array's type (`None` for a standard type).
    #[must_use]
    pub fn custom_name(&self, array: &raw::VertexArray) -> Option<&'data [u8]> {
        let t = array.type_.get();
        (t >= raw::IQM_CUSTOM).then(|| self.text(t - raw::IQM_CUSTOM).unwrap_or_default())
    }

    /// Triangle `i`'s vertex indices (each `< num_vertices`).
    #[must_use]
    pub fn triangle(&self, i: usize) -> Option<[u32; 3]> {
        self.triangles.get(i).map(|t| t.vertex.map(|v| v.get()))
    }

    /// Triangle `i`'s neighbours across its three edges (`u32::MAX` for none), when the file
    /// stores adjacency.
    #[must_use]
    pub fn adjacency(&self, i: usize) -> Option<[u32; 3]> {
        self.adjacency.get(i).map(|t| t.vertex.map(|v| v.get()))
    }

    /// Vertex `i`'s position.
    #[must_use]
    pub fn position(&self, i: usize) -> Option<[f32; 3]> {
        self.arrays.position?.get(i).map(|p| p.map(|c| c.get()))
    }

    /// Vertex `i`'s normal, where the file stores normals.
    #[must_use]
    pub fn normal(&self, i: usize) -> Option<[f32; 3]> {
        self.arrays.normal?.get(i).map(|p| p.map(|c| c.get()))
    }

    /// Vertex `i`'s texture coordinate, where the file stores them.
    #[must_use]
    pub fn texcoord(&self, i: usize) -> Option<[f32; 2]> {
        self.arrays.texcoord?.get(i).map(|p| p.map(|c| c.get()))
    }

    /// Vertex `i`'s tangent, `w` the bitangent's sign, where the file stores tangents.
    #[must_use]
    pub fn tangent(&self, i: usize) -> Option<[f32; 4]> {
        self.arrays.tangent?.get(i).map(|p| p.map(|c| c.get()))
    }

    /// Vertex `i`'s colour as RGBA bytes (a float colour scaled by 255), where the file
    /// stores colours.
    #[must_use]
    pub fn color(&self, i: usize) -> Option<[u8; 4]> {
        self.arrays.color?.bytes(i)
    }

    /// Vertex `i`'s four blend indexes and weights (bytes of 255; float weights scaled), where
    /// the file stores both and has bones for them to name: every index is below the number
    /// of joints, or of poses in a file without joints. A file with neither skins nothing,
    /// and its indexes, which validation does not read, are not offered.
    #[must_use]
    pub fn blend(&self, i: usize) -> Option<([u32; 4], [u8; 4])> {
        if !self.has_blend() {
            return None;
        }
        let indexes = self.arrays.blend_indexes?.index(i)?;
        let weights = self.arrays.blend_weights?.bytes(i)?;
        Some((indexes, weights))
    }

    /// `true` when the file stores blend indexes and weights and has joints or poses for
    /// them to name (see [`blend`](Self::blend)).
    #[must_use]
    pub fn has_blend(&self) -> bool {
        self.arrays.blend_indexes.is_some()
            && self.arrays.blend_weights.is_some()
            && !(self.joints.is_empty() && self.poses.is_empty())
    }

    /// Number of joints (bind-pose bones).
    #[must_use]
    pub fn num_joints(&self) -> usize {
        self.joints.len()
    }

    /// The joint records.
    #[must_use]
    pub fn joints(&self) -> &'data [raw::Joint] {
        self.joints
    }

    /// Joint `i`'s name.
    #[must_use]
    pub fn joint_name(&self, i: usize) -> Option<&'data [u8]> {
        self.joints.get(i).map(|j| self.string(j.name))
    }

    /// Joint `i`'s bind transform relative to its parent: rotation (normalised), translation
    /// and scale.
    #[must_use]
    pub fn joint_transform(&self, i: usize) -> Option<(Quat, Vec3A, Vec3A)> {
        let j = self.joints.get(i)?;
        let [x, y, z, w] = j.rotate.map(|c| c.get());
        Some((
            unit_rotation(x, y, z, w),
            Vec3A::from_array(j.translate.map(|c| c.get())),
            Vec3A::from_array(j.scale.map(|c| c.get())),
        ))
    }

    /// Number of poses (animated joints per frame).
    #[must_use]
    pub fn num_poses(&self) -> usize {
        self.poses.len()
    }

    /// The pose records.
    #[must_use]
    pub fn poses(&self) -> &'data [raw::Pose] {
        self.poses
    }

    /// Number of frames.
    #[must_use]
    pub fn num_frames(&self) -> usize {
        self.header.num_frames.get() as usize
    }

    /// Channel values per frame.
    #[must_use]
    pub fn num_framechannels(&self) -> usize {
        self.header.num_framechannels.get() as usize
    }

    /// Number of anims.
    #[must_use]
    pub fn num_anims(&self) -> usize {
        self.anims.len()
    }

    /// Anim `i`.
    #[must_use]
    pub fn anim(&self, i: usize) -> Option<Anim<'data>> {
        let a = self.anims.get(i)?;
        Some(Anim {
            name: self.string(a.name),
            first_frame: a.first_frame.get(),
            num_frames: a.num_frames.get(),
            framerate: a.framerate.get(),
            looped: a.flags.get() & IQM_LOOP != 0,
        })
    }

    /// Every anim, in file order.
    pub fn anims(&self) -> impl ExactSizeIterator<Item = Anim<'data>> + '_ {
        (0..self.anims.len()).map(|i| {
            self.anim(i).unwrap_or(Anim {
                name: &[],
                first_frame: 0,
                num_frames: 0,
                framerate: 0.0,
                looped: false,
            })
        })
    }

    /// Frame `frame`'s stored bounds, when the file stores them.
    #[must_use]
    pub fn frame_bounds(&self, frame: usize) -> Option<FrameBounds> {
        let b = self.bounds.get(frame)?;
        Some(FrameBounds {
            aabb: Aabb {
                mins: b.bbmins.map(|c| c.get()),
                maxs: b.bbmaxs.map(|c| c.get()),
            },
            xy_radius: b.xyradius.get(),
            radius: b.radius.get(),
        })
    }

    /// `true` when the file stores bounds per frame.
    #[must_use]
    pub fn has_frame_bounds(&self) -> bool {
        !self.bounds.is_empty()
    }

    /// The comment bytes (empty for none).
    #[must_use]
    pub fn comment(&self) -> &'data [u8] {
        self.comment
    }

    /// The extension chain, in chain order.
    pub fn extensions(&self) -> impl Iterator<Item = Extension<'data>> + 'data {
        let (data, text) = (self.data, self.text);
        let mut at = self.header.ofs_extensions.get();
        let mut left = self.header.num_extensions.get();
        core::iter::from_fn(move || {
            if left == 0 {
                return None;
            }
            left -= 1;
            let e: &raw::Extension = crate::read::slice_in(data, at.into(), 1)?.first()?;
            at = e.ofs_extensions.get();
            let name = text
                .get(e.name.get() as usize..)
                .and_then(|rest| rest.get(..rest.iter().position(|&b| b == 0)?))
                .unwrap_or_default();
            let bytes = data
                .get(e.ofs_data.get() as usize..)
                .and_then(|rest| rest.get(..e.num_data.get() as usize))
                .unwrap_or_default();
            Some(Extension { name, data: bytes })
        })
    }

    /// `true` when a joint or pose scales (a stored scale other than 1, or an animated scale
    /// channel).
    #[must_use]
    pub fn has_scale(&self) -> bool {
        self.has_scale
    }

    /// The ten channels of pose `pose`, given the index of its first value in the frame data:
    /// translation, rotation (as stored), scale. A channel in the mask adds its stored value
    /// (the one after as many values as the mask has bits below it) times its scale to its
    /// offset. Each channel is computed on its own, in registers: filling an array by a
    /// running index made every later read wait for the stores. Always inlined, as
    /// [`both_frames`](Iqm::both_frames) is, for the same reason: a call returns the ten
    /// values through memory, and the caller, which reads them as vectors, waits for its
    /// loads to find the callee's scalar stores (the first pose of a model from memory in the
    /// `peers` bench's `assimp` group).
    #[inline(always)]
    fn channels(&self, pose: &raw::Pose, next: usize) -> [f32; NUM_CHANNELS] {
        let mask = pose.channelmask.get() & raw::CHANNEL_MASK;
        let values = self.frames.get(next..).unwrap_or_default();
        let channel = |c: usize| {
            let offset = pose.channeloffset.get(c).map_or(0.0, |v| v.get());
            if mask >> c & 1 == 0 {
                return offset;
            }
            let k = (mask & ((1 << c) - 1)).count_ones() as usize;
            let value = values.get(k).map_or(0, |v| v.get());
            offset + f32::from(value) * pose.channelscale.get(c).map_or(0.0, |v| v.get())
        };
        [
            channel(0),
            channel(1),
            channel(2),
            channel(3),
            channel(4),
            channel(5),
            channel(6),
            channel(7),
            channel(8),
            channel(9),
        ]
    }

    /// [`Iqm::channels`] of pose `pose` in two frames (their values from `next[0]` and
    /// `next[1]`) and the poses they hold, decoded once where both are the same frame (a
    /// model posed at a frame).
    #[inline(always)]
    fn both_frames(
        &self,
        pose: &raw::Pose,
        next: [usize; 2],
    ) -> ([[f32; NUM_CHANNELS]; 2], [(Quat, Vec3A); 2]) {
        let a = self.channels(pose, next[0]);
        if next[0] == next[1] {
            ([a; 2], [pose_of(a); 2])
        } else {
            let b = self.channels(pose, next[1]);
            ([a, b], [pose_of(a), pose_of(b)])
        }
    }

    /// The scale channels (7 to 9) of pose `pose` alone, decoded as [`Iqm::channels`] decodes
    /// them.
    fn scale_channels(&self, pose: &raw::Pose, next: usize) -> Vec3A {
        let mask = pose.channelmask.get() & raw::CHANNEL_MASK;
        let mut at = next + (mask & 0x7f).count_ones() as usize;
        let mut out = [0.0f32; 3];
        for (k, o) in out.iter_mut().enumerate() {
            let c = 7 + k;
            *o = pose.channeloffset.get(c).map_or(1.0, |v| v.get());
            if mask >> c & 1 == 1 {
                let value = self.frames.get(at).map_or(0, |v| v.get());
                *o += f32::from(value) * pose.channelscale.get(c).map_or(0.0, |v| v.get());
                at += 1;
            }
        }
        Vec3A::from_array(out)
    }

    /// Calls `f(bone, channels)` for every pose of `frame`, in bone order, walking the frame's
    /// values once (nothing for a frame out of range or a file without poses).
    pub(super) fn for_each_pose(
        &self,
        frame: usize,
        mut f: impl FnMut(usize, [f32; NUM_CHANNELS]),
    ) {
        if frame >= self.num_frames() {
            return;
        }
        let mut next = frame * self.num_framechannels();
        for (i, pose) in self.poses.iter().enumerate() {
            f(i, self.channels(pose, next));
            next += (pose.channelmask.get() & raw::CHANNEL_MASK).count_ones() as usize;
        }
    }

    /// Every pose's channels as [`ChannelLayout`](crate::pose::ChannelLayout) takes them, in
    /// pose order: mask, the index of its first value in a frame, offsets and scales.
    pub fn pose_channels(&self) -> impl ExactSizeIterator<Item = BoneChannels> + '_ {
        let mut first = 0u32;
        self.poses.iter().map(move |pose| {
            let mask = (pose.channelmask.get() & raw::CHANNEL_MASK) as u16;
            let channels = BoneChannels {
                mask,
                first,
                offset: pose.channeloffset.map(|v| v.get()),
                scale: pose.channelscale.map(|v| v.get()),
            };
            first = first.saturating_add(mask.count_ones());
            channels
        })
    }

    /// Joint `i`'s bind transform as constant channels (translation, rotation as stored,
    /// scale): what a joint no pose drives keeps.
    pub(super) fn joint_channels(&self, i: usize) -> Option<BoneChannels> {
        let j = self.joints.get(i)?;
        Some(BoneChannels::constant(
            j.translate.map(|c| c.get()),
            j.rotate.map(|c| c.get()),
            j.scale.map(|c| c.get()),
        ))
    }

    /// Frame `frame`'s stored values, `num_framechannels` of them, or `None` out of range.
    #[must_use]
    pub fn frame_values(&self, frame: usize) -> Option<&'data [Channel]> {
        let n = self.num_framechannels();
        let start = frame.checked_mul(n)?;
        self.frames.get(start..start.checked_add(n)?)
    }
}

/// Translation, rotation and scale of decoded channels.
fn pose_of(c: [f32; NUM_CHANNELS]) -> (Quat, Vec3A) {
    (
        unit_rotation(c[3], c[4], c[5], c[6]),
        Vec3A::new(c[0], c[1], c[2]),
    )
}

/// Joints when the file has them, else its poses (an animation-only file), unnamed.
impl<'data> Skeleton<'data> for Iqm<'data> {
    fn skeleton_bones(&self) -> impl ExactSizeIterator<Item = Bone<'data>> + Clone {
        let (text, joints, poses) = (self.text, self.joints, self.poses);
        let count = if joints.is_empty() {
            poses.len()
        } else {
            joints.len()
        };
        (0..count).map(move |i| bone(text, joints, poses, i))
    }

    fn bone(&self, index: usize) -> Option<Bone<'data>> {
        let count = if self.joints.is_empty() {
            self.poses.len()
        } else {
            self.joints.len()
        };
        (index < count).then(|| bone(self.text, self.joints, self.poses, index))
    }
}

/// Bone `i`: joint `i` with its name, or pose `i` unnamed.
fn bone<'data>(
    text: &'data [u8],
    joints: &'data [raw::Joint],
    poses: &'data [raw::Pose],
    i: usize,
) -> Bone<'data> {
    if let Some(j) = joints.get(i) {
        let name = text.get(j.name.get() as usize..).unwrap_or_default();
        return Bone::new(name, j.parent.get().max(-1), 0);
    }
    let parent = poses.get(i).map_or(-1, |p| p.parent.get().max(-1));
    Bone::new(&[], parent, 0)
}

/// Frame poses decoded from the quantised channels; a file without poses poses every frame
/// as its joints.
impl<'data> PoseFrames<'data> for Iqm<'data> {
    fn num_frames(&self) -> usize {
        Iqm::num_frames(self)
    }

    fn bone_pose(&self, frame: usize, bone: usize) -> Option<(Quat, Vec3A)> {
        if frame >= Iqm::num_frames(self) {
            return None;
        }
        if self.poses.is_empty() {
            return self.joint_transform(bone).map(|(q, t, _)| (q, t));
        }
        let pose = self.poses.get(bone)?;
        let before: usize = self
            .poses
            .get(..bone)?
            .iter()
            .map(|p| (p.channelmask.get() & raw::CHANNEL_MASK).count_ones() as usize)
            .sum();
        let next = frame * self.num_framechannels() + before;
        Some(pose_of(self.channels(pose, next)))
    }

    fn frame_poses_into(&self, frame: usize, out: &mut Vec<(Quat, Vec3A)>) {
        if self.poses.is_empty() {
            if frame < Iqm::num_frames(self) {
                out.extend((0..self.joints.len()).filter_map(|i| {
                    let (q, t, _) = self.joint_transform(i)?;
                    Some((q, t))
                }));
            }
            return;
        }
        self.for_each_pose(frame, |_, c| out.push(pose_of(c)));
    }

    fn has_scale(&self) -> bool {
        self.has_scale
    }

    fn frame_scales_into(&self, frame: usize, out: &mut Vec<Vec3A>) {
        if self.poses.is_empty() {
            if frame < Iqm::num_frames(self) {
                out.extend(
                    self.joints
                        .iter()
                        .map(|j| Vec3A::from_array(j.scale.map(|c| c.get()))),
                );
            }
            return;
        }
        if frame >= Iqm::num_frames(self) {
            return;
        }
        let mut next = frame * self.num_framechannels();
        for pose in self.poses {
            out.push(self.scale_channels(pose, next));
            next += (pose.channelmask.get() & raw::CHANNEL_MASK).count_ones() as usize;
        }
    }

    /// Both frames decoded once in one walk of the poses: rotations and translations blended
    /// as [`nlerp_frames_into`](PoseFrames::nlerp_frames_into) blends them, scales linearly.
    fn nlerp_frames_scaled_into(
        &self,
        a: usize,
        b: usize,
        t: f32,
        out: &mut Vec<(Quat, Vec3A)>,
        scales: &mut Vec<Vec3A>,
    ) -> bool {
        let frames = Iqm::num_frames(self);
        if self.poses.is_empty() || a >= frames || b >= frames {
            return false;
        }
        out.clear();
        scales.clear();
        out.reserve(self.poses.len());
        scales.reserve(self.poses.len());
        let channels = self.num_framechannels();
        let (mut next_a, mut next_b) = (a * channels, b * channels);
        for pose in self.poses {
            let ([ca, cb], [pa, pb]) = self.both_frames(pose, [next_a, next_b]);
            out.push(crate::pose::nlerp_pose(pa, pb, t));
            let (sa, sb) = (
                Vec3A::new(ca[7], ca[8], ca[9]),
                Vec3A::new(cb[7], cb[8], cb[9]),
            );
            scales.push(sa.lerp(sb, t));
            let step = (pose.channelmask.get() & raw::CHANNEL_MASK).count_ones() as usize;
            next_a += step;
            next_b += step;
        }
        true
    }

    /// Both frames decoded in one walk of the poses and blended bone by bone, as
    /// [`sample`](crate::pose::sample) blends them.
    fn nlerp_frames_into(&self, a: usize, b: usize, t: f32, out: &mut Vec<(Quat, Vec3A)>) -> bool {
        let frames = Iqm::num_frames(self);
        if self.poses.is_empty() || a >= frames || b >= frames {
            return false;
        }
        out.clear();
        out.reserve(self.poses.len());
        let channels = self.num_framechannels();
        let (mut next_a, mut next_b) = (a * channels, b * channels);
        for pose in self.poses {
            let (_, [pa, pb]) = self.both_frames(pose, [next_a, next_b]);
            out.push(crate::pose::nlerp_pose(pa, pb, t));
            let step = (pose.channelmask.get() & raw::CHANNEL_MASK).count_ones() as usize;
            next_a += step;
            next_b += step;
        }
        true
    }
}

/// One mesh holding every vertex and triangle (IQM meshes are its submeshes), stored in the
/// joints' bind pose; the anims are its clips.
impl<'data> ModelView<'data> for Iqm<'data> {
    type Mesh<'a>
        = &'a Iqm<'data>
    where
        Self: 'a;
    type FrameNames<'a>
        = IndexedNames<'a, 'data, Self>
    where
        Self: 'a;
    type BindMesh<'a>
        = &'a Iqm<'data>
    where
        Self: 'a;

    fn format(&self) -> Format {
        FORMAT
    }

    /// IQMs come from Blender's exporter: `+Z` up, facing Blender's front (`−Y`); materials
    /// name shaders, as in the engines that load them.
    fn conventions(&self) -> crate::view::Conventions {
        crate::view::Conventions {
            up: crate::asset::UpAxis::Z,
            front: [0.0, -1.0, 0.0],
            textures: crate::view::TextureNames::Shaders,
            own_materials: false,
        }
    }

    fn pose_frames(&self) -> Option<&impl PoseFrames<'data>> {
        Some(self)
    }

    fn frame_names(&self) -> Self::FrameNames<'_> {
        IndexedNames::new(self)
    }

    fn clip_origin(&self) -> ClipOrigin {
        if self.anims.is_empty() {
            ClipOrigin::None
        } else {
            ClipOrigin::FrameGroups
        }
    }

    fn built_in_clips(&self) -> Vec<FrameGroup> {
        // An anim of no frames is no clip (it stays in `Iqm::anims`).
        self.anims()
            .filter(|a| a.num_frames > 0)
            .map(|a| FrameGroup {
                name: crate::name::lossy(a.name).into_owned(),
                first: a.first_frame,
                count: a.num_frames,
                fps: a.fps(),
                looped: a.looped,
            })
            .collect()
    }

    /// The joints' bind pose (frame 0 for an animation-only file).
    fn bind_pose(&self, out: &mut LocalPose) {
        if self.joints.is_empty() {
            crate::pose::sample(self, 0, 0, 0.0, crate::pose::Interpolation::Nlerp, out);
            return;
        }
        out.bones.clear();
        out.scales.clear();
        out.bones.reserve(self.joints.len());
        if self.has_scale {
            out.scales.reserve(self.joints.len());
        }
        for i in 0..self.joints.len() {
            if let Some((q, t, s)) = self.joint_transform(i) {
                out.bones.push((q, t));
                if self.has_scale {
                    out.scales.push(s);
                }
            }
        }
    }

    /// The union of every frame's stored box.
    fn stored_bounds(&self) -> Option<Aabb> {
        (0..self.bounds.len())
            .filter_map(|f| self.frame_bounds(f))
            .map(|b| b.aabb)
            .reduce(|a, b| a.union(&b))
    }

    fn num_meshes(&self) -> usize {
        usize::from(self.arrays.position.is_some() && Iqm::num_vertices(self) > 0)
    }

    fn mesh(&self, index: usize) -> Option<&Iqm<'data>> {
        (index < ModelView::num_meshes(self)).then_some(self)
    }

    /// One material per IQM mesh: its material name, which engines look up as a texture.
    fn num_materials(&self) -> usize {
        self.meshes.len()
    }

    fn material(&self, index: usize) -> Option<Material<'_>> {
        self.mesh_material(index).map(Material::plain)
    }

    fn bind_pose_mesh(&self) -> Option<&Iqm<'data>> {
        (ModelView::num_meshes(self) > 0).then_some(self)
    }

    fn has_skeleton(&self) -> bool {
        !self.joints.is_empty() && self.has_blend()
    }
}

impl<'a, 'data: 'a> MeshView<'a> for &'a Iqm<'data> {
    fn num_vertices(&self) -> usize {
        Iqm::num_vertices(self)
    }

    fn num_triangles(&self) -> usize {
        self.triangles.len()
    }

    fn triangle(&self, i: usize) -> Option<[u32; 3]> {
        Iqm::triangle(self, i)
    }

    fn texcoord_layout(&self) -> TexcoordLayout {
        if self.arrays.texcoord.is_some() {
            TexcoordLayout::PerVertex
        } else {
            TexcoordLayout::None
        }
    }

    fn vertex_texcoord(&self, v: usize) -> Option<[f32; 2]> {
        self.texcoord(v)
    }

    fn vertex_color(&self, v: usize) -> Option<[u8; 4]> {
        self.color(v)
    }

    fn vertex_tangent(&self, v: usize) -> Option<[f32; 4]> {
        self.tangent(v)
    }

    fn num_groups(&self) -> Option<usize> {
        Some(self.meshes.len())
    }

    fn group(&self, i: usize) -> Option<Submesh<'a>> {
        let m = self.meshes.get(i)?;
        Some(Submesh::range(
            self.string(m.name),
            Some(i),
            m.first_triangle.get() as usize,
            m.num_triangles.get() as usize,
        ))
    }

    /// The stored weights over 255, zero ones left out; a vertex with no weight at all is
    /// bound to its first blend index (see [`BindPoseMesh`] below).
    fn for_each_influence(&self, mut f: impl FnMut(usize, u32, f32)) {
        if !self.has_skeleton() {
            return;
        }
        for v in 0..Iqm::num_vertices(self) {
            for (bone, weight) in influences(self, v).into_iter().flatten() {
                f(v, u32::from(bone), weight);
            }
        }
    }
}

/// Vertex `v`'s influences: each non-zero weight over 255 with its joint; a vertex whose
/// weights are all zero is bound wholly to its first blend index, as FTE and DarkPlaces'
/// CPU skinning bind it (`docs/formats/iqm.md` § Quirks and decisions).
fn influences(iqm: &Iqm<'_>, v: usize) -> [Option<(u16, f32)>; 4] {
    let mut out = [None; 4];
    let Some(indexes) = iqm.arrays.blend_indexes.and_then(|a| a.index(v)) else {
        return out;
    };
    let Some(weights) = iqm.arrays.blend_weights.and_then(|a| a.unit(v)) else {
        return out;
    };
    // A subnormal float weight counts as zero: no skinning path can blend by it (the
    // kernels' sums and normalisations flush or lose it), and as a byte it is 0.
    let counts = |w: f32| w >= f32::MIN_POSITIVE;
    if !weights.iter().any(|&w| counts(w)) {
        out[0] = Some((indexes[0] as u16, 1.0));
        return out;
    }
    for ((slot, bone), weight) in out.iter_mut().zip(indexes).zip(weights) {
        if counts(weight) {
            *slot = Some((bone as u16, weight));
        }
    }
    out
}

/// The vertices in the joints' bind pose with their blend indexes and weights.
impl BindPoseMesh for &Iqm<'_> {
    fn num_vertices(&self) -> usize {
        Iqm::num_vertices(self)
    }

    fn bind_vertex(&self, i: usize) -> Option<BindVertex> {
        let position = Vec3A::from_array(self.position(i)?);
        let normal = self.normal(i).map_or(Vec3A::ZERO, Vec3A::from_array);
        let influences = if self.has_skeleton() {
            influences(self, i)
        } else {
            [None; 4]
        };
        Some(BindVertex::with_four(position, normal, influences))
    }

    /// The position and normal arrays copied as they are (normals zero where the file has
    /// none).
    fn copy_bind_pose(&self, positions: &mut [[f32; 3]], normals: &mut [[f32; 3]]) {
        fn copy(from: Option<&[[F32<Le>; 3]]>, to: &mut [[f32; 3]]) {
            let from = from.unwrap_or_default();
            let n = from.len().min(to.len());
            let (from, to) = (&from[..n], &mut to[..n]);
            if cfg!(target_endian = "little") {
                // The stored little-endian floats are native ones: one copy of the bytes.
                bytemuck::cast_slice_mut::<[f32; 3], u8>(to)
                    .copy_from_slice(zerocopy::IntoBytes::as_bytes(from));
            } else {
                for (t, f) in to.iter_mut().zip(from) {
                    *t = f.map(|c| c.get());
                }
            }
        }
        let vertices = Iqm::num_vertices(self);
        copy(self.arrays.position, positions);
        if self.arrays.normal.is_some() {
            copy(self.arrays.normal, normals);
        } else {
            let n = vertices.min(normals.len());
            normals[..n].fill([0.0; 3]);
        }
    }

    /// The arrays, where the model has joints and its blend indexes and weights are bytes (as
    /// most IQMs store them): each vertex reads from them as [`FourInfluences`] says.
    fn four_influences(&self) -> Option<FourInfluences<'_>> {
        let a = &self.arrays;
        let (Some(positions), Some(Quad::U8(indexes)), Some(Quad::U8(weights))) =
            (a.position, a.blend_indexes, a.blend_weights)
        else {
            return None;
        };
        let n = Iqm::num_vertices(self);
        let full = |len: usize| len == n;
        let same = full(positions.len()) && full(indexes.len()) && full(weights.len());
        (self.has_skeleton() && same && a.normal.is_none_or(|v| full(v.len()))).then_some(
            FourInfluences {
                positions,
                normals: a.normal,
                indexes,
                weights,
            },
        )
    }
}
