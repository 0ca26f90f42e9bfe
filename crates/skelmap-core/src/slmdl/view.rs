//! The validated SL views: the `mdl` mesh (header, attribute declaration, strided attribute
//! views, influences), the `.anim` keyframes and their sampling, and the pair of both.

use glam::{Quat, Vec3A};
use zerocopy::FromBytes;
use zerocopy::byteorder::{F32, LittleEndian};

use super::raw::{BoneKey, Header, KeyframeHead, MAX_ATTRIBUTES, keyframe_size};
use crate::format::Format;
use crate::pose::{BindPoseMesh, BindVertex, Bone, LocalPose, PoseFrames, Skeleton};
use crate::read::Reader;
use crate::view::{IndexedNames, MeshView, ModelView, NoMesh, TexcoordLayout, unnamed_bones};

type Le = LittleEndian;

/// How far stored blend weights may sum above 1 (rounding in exporters).
pub const WEIGHT_TOLERANCE: f32 = 1e-3;

/// What a vertex attribute holds (see the module docs for codes and sizes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AttributeKind {
    /// `f32 × 3`.
    Position,
    /// `f32 × 3`.
    Normal,
    /// `f32 × 1..=4`.
    Texcoord,
    /// `f32 × 1..=3`: the stored weights (the last of four is implied).
    BlendWeights,
    /// `u8 × 4`: bone indices.
    BlendIndices,
    /// `u8 × 4` RGBA.
    Color,
}

impl AttributeKind {
    /// The kind of a type code.
    #[must_use]
    pub fn from_code(code: u8) -> Option<Self> {
        Some(match code {
            1 => AttributeKind::Position,
            2 => AttributeKind::Normal,
            3 => AttributeKind::Texcoord,
            4 => AttributeKind::BlendWeights,
            5 => AttributeKind::BlendIndices,
            6 => AttributeKind::Color,
            _ => return None,
        })
    }

    /// The type code.
    #[must_use]
    pub fn code(self) -> u8 {
        match self {
            AttributeKind::Position => 1,
            AttributeKind::Normal => 2,
            AttributeKind::Texcoord => 3,
            AttributeKind::BlendWeights => 4,
            AttributeKind::BlendIndices => 5,
            AttributeKind::Color => 6,
        }
    }

    /// `true` if `size` bytes is an allowed size for this kind.
    #[must_use]
    pub fn allows_size(self, size: u8) -> bool {
        match self {
            AttributeKind::Position | AttributeKind::Normal => size == 12,
            AttributeKind::Texcoord => matches!(size, 4 | 8 | 12 | 16),
            AttributeKind::BlendWeights => matches!(size, 4 | 8 | 12),
            AttributeKind::BlendIndices | AttributeKind::Color => size == 4,
        }
    }

    /// `true` for kinds made of `f32`s.
    #[must_use]
    pub fn is_float(self) -> bool {
        !matches!(self, AttributeKind::BlendIndices | AttributeKind::Color)
    }
}

/// A zero-copy strided view of one attribute across all vertices.
#[derive(Debug, Clone, Copy)]
pub struct Strided<'data> {
    vertices: &'data [u8],
    offset: usize,
    size: usize,
    stride: usize,
}

impl<'data> Strided<'data> {
    /// Number of elements (vertices).
    #[must_use]
    pub fn len(&self) -> usize {
        self.vertices.len().checked_div(self.stride).unwrap_or(0)
    }

    /// `true` if there are no vertices.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes of the attribute per vertex.
    #[must_use]
    pub fn size(&self) -> usize {
        self.size
    }

    /// The raw bytes of element `i`.
    #[must_use]
    pub fn bytes(&self, i: usize) -> Option<&'data [u8]> {
        let start = i.checked_mul(self.stride)?.checked_add(self.offset)?;
        self.vertices.get(start..start.checked_add(self.size)?)
    }

    /// Float `k` of element `i` (`None` past the attribute's size).
    #[must_use]
    pub fn float(&self, i: usize, k: usize) -> Option<f32> {
        let bytes = self.bytes(i)?.get(4 * k..4 * k + 4)?;
        F32::<Le>::read_from_bytes(bytes).ok().map(|v| v.get())
    }

    /// The first `N` floats of element `i` (`None` if the attribute holds fewer).
    #[must_use]
    pub fn floats<const N: usize>(&self, i: usize) -> Option<[f32; N]> {
        let mut out = [0.0; N];
        for (k, o) in out.iter_mut().enumerate() {
            *o = self.float(i, k)?;
        }
        Some(out)
    }

    /// Where element `i` starts, in bytes from the first vertex.
    #[must_use]
    pub fn byte_offset(&self, i: usize) -> usize {
        i.saturating_mul(self.stride).saturating_add(self.offset)
    }

    /// The 4 bytes of element `i` (blend indices, colour).
    #[must_use]
    pub fn bytes4(&self, i: usize) -> Option<[u8; 4]> {
        self.bytes(i)?.get(..4)?.try_into().ok()
    }
}

/// A validated SL `mdl` over borrowed bytes. `Copy`, `Send` and `Sync`.
#[derive(Debug, Clone, Copy)]
pub struct Mesh<'data> {
    pub(super) header: &'data Header,
    pub(super) vertices: &'data [u8],
}

impl<'data> Mesh<'data> {
    /// The raw header.
    #[must_use]
    pub fn header(&self) -> &'data Header {
        self.header
    }

    /// Number of vertices.
    #[must_use]
    pub fn num_vertices(&self) -> usize {
        self.header.vertex_count.get() as usize
    }

    /// Bytes per vertex.
    #[must_use]
    pub fn vertex_size(&self) -> u32 {
        self.header.vertex_size.get()
    }

    /// Bounding-sphere radius.
    #[must_use]
    pub fn radius(&self) -> f32 {
        self.header.radius.get()
    }

    /// The interleaved vertex bytes.
    #[must_use]
    pub fn vertex_bytes(&self) -> &'data [u8] {
        self.vertices
    }

    /// Every declared attribute: its index, kind and strided view.
    pub fn attributes(&self) -> impl Iterator<Item = (usize, AttributeKind, Strided<'data>)> + '_ {
        let n = (self.header.attribute_count.get() as usize).min(MAX_ATTRIBUTES);
        let stride = self.vertex_size() as usize;
        let mut offset = 0usize;
        (0..n).filter_map(move |k| {
            let size = usize::from(*self.header.attribute_sizes.get(k)?);
            let kind = AttributeKind::from_code(*self.header.attribute_types.get(k)?)?;
            let view = Strided {
                vertices: self.vertices,
                offset,
                size,
                stride,
            };
            offset += size;
            Some((k, kind, view))
        })
    }

    /// The first attribute of `kind`, if declared.
    #[must_use]
    pub fn attribute(&self, kind: AttributeKind) -> Option<Strided<'data>> {
        self.attributes()
            .find(|(_, k, _)| *k == kind)
            .map(|(_, _, v)| v)
    }

    /// The four `(bone index, weight)` influences of vertex `i`: indices from the blend
    /// indices, weights from the blend weights with the last one `1 − Σ` the stored ones.
    /// Without blend weights the first index takes weight 1.
    #[must_use]
    pub fn influences(&self, i: usize) -> Option<[(u8, f32); 4]> {
        let indices = self.attribute(AttributeKind::BlendIndices)?.bytes4(i)?;
        let mut weights = [0.0f32; 4];
        match self.attribute(AttributeKind::BlendWeights) {
            Some(view) => {
                let stored = (view.size() / 4).min(3);
                for (k, slot) in weights.iter_mut().enumerate().take(stored) {
                    *slot = view.float(i, k)?;
                }
                weights[stored] = 1.0 - weights.iter().take(stored).sum::<f32>();
            }
            None => weights[0] = 1.0,
        }
        Some(core::array::from_fn(|k| (indices[k], weights[k])))
    }
}

impl BindPoseMesh for Mesh<'_> {
    fn num_vertices(&self) -> usize {
        self.num_vertices()
    }

    /// The position and normal attributes (zero when a layout lacks one) and
    /// [`Mesh::influences`]; a layout without blend indices binds every vertex to bone 0.
    fn bind_vertex(&self, i: usize) -> Option<BindVertex> {
        if i >= self.num_vertices() {
            return None;
        }
        let float3 = |kind| {
            self.attribute(kind)
                .and_then(|view| view.floats::<3>(i))
                .map_or(Vec3A::ZERO, Vec3A::from)
        };
        let influences = self
            .influences(i)
            .map_or([Some((0, 1.0)), None, None, None], |four| {
                four.map(|(bone, weight)| Some((u16::from(bone), weight)))
            });
        Some(BindVertex::with_four(
            float3(AttributeKind::Position),
            float3(AttributeKind::Normal),
            influences,
        ))
    }
}

/// An SL mesh with the animation whose bones its blend indices name, when there is one (the
/// `.anim` beside it): the pairing proves every weighted blend index names a bone of the
/// animation. `Copy`, `Send` and `Sync`.
#[derive(Debug, Clone, Copy)]
pub struct Pair<'data> {
    pub(super) mdl: Mesh<'data>,
    pub(super) anim: Option<Animation<'data>>,
}

impl<'data> Pair<'data> {
    /// The mesh.
    #[must_use]
    pub fn mdl(&self) -> Mesh<'data> {
        self.mdl
    }

    /// The animation, when the mesh has one.
    #[must_use]
    pub fn anim(&self) -> Option<Animation<'data>> {
        self.anim
    }
}

/// How a keyframe blends into the next one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Easing {
    /// `f`.
    Linear,
    /// `f²`.
    EaseIn,
    /// `1 − (1 − f)²`.
    EaseOut,
    /// `3f² − 2f³`.
    EaseInOut,
    /// Hold the keyframe until the next one starts.
    Step,
}

impl Easing {
    /// The easing of an id (0..=4).
    #[must_use]
    pub fn from_id(id: u32) -> Option<Easing> {
        Some(match id {
            0 => Easing::Linear,
            1 => Easing::EaseIn,
            2 => Easing::EaseOut,
            3 => Easing::EaseInOut,
            4 => Easing::Step,
            _ => return None,
        })
    }

    /// The id written to files.
    #[must_use]
    pub fn id(self) -> u32 {
        match self {
            Easing::Linear => 0,
            Easing::EaseIn => 1,
            Easing::EaseOut => 2,
            Easing::EaseInOut => 3,
            Easing::Step => 4,
        }
    }

    /// The eased blend fraction for a linear fraction `f` in `0..=1`.
    #[must_use]
    pub fn apply(self, f: f32) -> f32 {
        let f = f.clamp(0.0, 1.0);
        match self {
            Easing::Linear => f,
            Easing::EaseIn => f * f,
            Easing::EaseOut => 1.0 - (1.0 - f) * (1.0 - f),
            Easing::EaseInOut => f * f * (3.0 - 2.0 * f),
            Easing::Step => 0.0,
        }
    }
}

/// A validated SL `.anim` over borrowed bytes. `Copy`, `Send` and `Sync`.
#[derive(Debug, Clone, Copy)]
pub struct Animation<'data> {
    pub(super) data: &'data [u8],
    pub(super) bones: u32,
    pub(super) keyframes: u32,
}

impl<'data> Animation<'data> {
    /// Bones per keyframe (independent: no hierarchy).
    #[must_use]
    pub fn num_bones(&self) -> usize {
        self.bones as usize
    }

    /// Keyframes (at least 1).
    #[must_use]
    pub fn num_keyframes(&self) -> usize {
        self.keyframes as usize
    }

    fn keyframe(&self, k: u32) -> Option<(&'data KeyframeHead, &'data [BoneKey])> {
        let at = keyframe_size(self.bones) * u64::from(k);
        let mut walk = Reader::new(self.data, Format::SlAnim).walk(at);
        Some((walk.next()?, walk.next_slice(self.bones.into())?))
    }

    /// Keyframe `k`: start time, easing, and one key per bone (zero-copy).
    #[must_use]
    pub fn key(&self, k: usize) -> Option<(f32, Easing, &'data [BoneKey])> {
        let (head, keys) = self.keyframe(u32::try_from(k).ok()?)?;
        Some((head.time.get(), Easing::from_id(head.easing.get())?, keys))
    }

    /// Start times of every keyframe (non-decreasing).
    pub fn times(&self) -> impl ExactSizeIterator<Item = f32> + '_ {
        (0..self.keyframes).map(|k| self.keyframe(k).map_or(0.0, |(h, _)| h.time.get()))
    }

    /// The pose of every bone at `seconds` into `out` (cleared first, allocation reused): the
    /// keyframes around `seconds` blended by the earlier one's easing, rotations by
    /// shortest-arc slerp of the normalised quaternions, translations linearly; clamped before
    /// the first and after the last keyframe. Bones are independent, so
    /// [`Palette::build`](crate::pose::Palette::build) gives them back unchanged as world
    /// transforms; keyframe 0 is the bind pose.
    pub fn sample(&self, seconds: f32, out: &mut LocalPose) {
        out.bones.clear();
        out.scales.clear();
        // The first keyframe starting after `seconds` (times are validated non-decreasing).
        let (mut lo, mut hi) = (0u32, self.keyframes);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.time(mid) > seconds {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        let after = lo;
        let (a, b, f) = match after.checked_sub(1) {
            None => (0, 0, 0.0),
            Some(a) if a + 1 >= self.keyframes => (a, a, 0.0),
            Some(a) => {
                let (ta, tb) = (self.time(a), self.time(a + 1));
                let easing = self
                    .keyframe(a)
                    .and_then(|(h, _)| Easing::from_id(h.easing.get()))
                    .unwrap_or(Easing::Linear);
                let span = tb - ta;
                let f = if span > 0.0 {
                    (seconds - ta) / span
                } else {
                    0.0
                };
                (a, a + 1, easing.apply(f))
            }
        };
        let (Some((_, ka)), Some((_, kb))) = (self.keyframe(a), self.keyframe(b)) else {
            return;
        };
        for (x, y) in ka.iter().zip(kb) {
            let qa = Quat::from_array(x.rotation()).normalize();
            let qb = Quat::from_array(y.rotation()).normalize();
            // q and −q are the same rotation: blend along the shorter arc.
            let qb = if qa.dot(qb) < 0.0 { -qb } else { qb };
            let (ta, tb) = (Vec3A::from(x.translation()), Vec3A::from(y.translation()));
            out.bones.push((qa.slerp(qb, f), ta.lerp(tb, f)));
        }
    }

    fn time(&self, k: u32) -> f32 {
        self.keyframe(k).map_or(0.0, |(h, _)| h.time.get())
    }
}

/// Unnamed bones without parents, one per key of a keyframe.
impl<'data> Skeleton<'data> for Animation<'data> {
    fn skeleton_bones(&self) -> impl ExactSizeIterator<Item = Bone<'data>> + Clone {
        (0..self.bones).map(|_| Bone::new(&[], -1, 0))
    }
}

/// Keyframes as frames (their times and easings ignored); [`Animation::sample`] samples by time.
impl<'data> PoseFrames<'data> for Animation<'data> {
    fn num_frames(&self) -> usize {
        self.keyframes as usize
    }

    fn bone_pose(&self, frame: usize, bone: usize) -> Option<(Quat, Vec3A)> {
        let (_, keys) = self.keyframe(u32::try_from(frame).ok()?)?;
        let key = keys.get(bone)?;
        Some((
            Quat::from_array(key.rotation()).normalize(),
            Vec3A::from(key.translation()),
        ))
    }
}

/// The animation's bones (unnamed, unparented), none without one.
impl<'data> Skeleton<'data> for Pair<'data> {
    fn skeleton_bones(&self) -> impl ExactSizeIterator<Item = Bone<'data>> + Clone {
        unnamed_bones(self.anim.map_or(0, |a| a.num_bones()))
    }
}

/// One mesh stored in its bind pose, posed by the animation's keyframes (a static mesh
/// without one).
impl<'data> ModelView<'data> for Pair<'data> {
    type Mesh<'a>
        = Mesh<'a>
    where
        Self: 'a;
    type FrameNames<'a>
        = IndexedNames<'a, 'data, Self>
    where
        Self: 'a;
    type BindMesh<'a>
        = Mesh<'a>
    where
        Self: 'a;

    fn pose_frames(&self) -> Option<&impl PoseFrames<'data>> {
        self.anim.as_ref()
    }

    fn format(&self) -> Format {
        Format::SlMdl
    }

    fn frame_names(&self) -> Self::FrameNames<'_> {
        IndexedNames::new(self)
    }

    fn num_meshes(&self) -> usize {
        1
    }

    fn mesh(&self, index: usize) -> Option<Mesh<'_>> {
        (index == 0).then_some(self.mdl)
    }

    fn bind_pose_mesh(&self) -> Option<Mesh<'_>> {
        Some(self.mdl)
    }

    fn has_skeleton(&self) -> bool {
        self.anim.is_some()
    }
}

/// Bones and keyframes on their own: no meshes.
impl<'data> ModelView<'data> for Animation<'data> {
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
        Format::SlAnim
    }

    fn frame_names(&self) -> Self::FrameNames<'_> {
        IndexedNames::new(self)
    }
}

/// A triangle list (vertices `3i`, `3i + 1`, `3i + 2`), with per-vertex texture coordinates
/// when the layout declares them.
impl<'a> MeshView<'a> for Mesh<'a> {
    fn num_vertices(&self) -> usize {
        Mesh::num_vertices(self)
    }

    fn num_triangles(&self) -> usize {
        Mesh::num_vertices(self) / 3
    }

    fn triangle(&self, i: usize) -> Option<[u32; 3]> {
        let first = u32::try_from(i).ok()?.checked_mul(3)?;
        (i < MeshView::num_triangles(self)).then_some([first, first + 1, first + 2])
    }

    fn texcoord_layout(&self) -> TexcoordLayout {
        match self.texcoords() {
            Some(_) => TexcoordLayout::PerVertex,
            None => TexcoordLayout::None,
        }
    }

    fn vertex_texcoord(&self, v: usize) -> Option<[f32; 2]> {
        self.texcoords()?.floats::<2>(v)
    }

    /// Weights normalised, zero ones left out.
    fn for_each_influence(&self, mut f: impl FnMut(usize, u32, f32)) {
        for v in 0..Mesh::num_vertices(self) {
            let Some(influences) = self.influences(v) else {
                break;
            };
            for (bone, weight) in influences.into_iter().filter(|(_, w)| *w > 0.0) {
                f(v, u32::from(bone), weight);
            }
        }
    }
}

impl<'a> Mesh<'a> {
    /// The texture coordinates, when the layout declares at least two floats of them.
    fn texcoords(&self) -> Option<Strided<'a>> {
        self.attribute(AttributeKind::Texcoord)
            .filter(|v| v.size() >= 8)
    }
}
