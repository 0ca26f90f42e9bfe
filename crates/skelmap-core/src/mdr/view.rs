//! The validated view: [`Mdr`], its [`Frame`]s, levels of detail ([`Lod`]), [`Surface`]s and
//! [`Tag`]s.
//!
//! Every offset, count and index was proven by `validate.rs`; the accessors here reach the
//! bytes through checked reads and fall back to empty results rather than panic, which only a
//! wrong proof could make them do.

use glam::{Affine3A, Mat3, Quat, Vec3, Vec3A};
use zerocopy::FromBytes;
use zerocopy::byteorder::LittleEndian;

use super::raw::{MdrBone, MdrCompBone, MdrCompFrame, MdrFrame, MdrHeader, MdrSurface, MdrTag};
pub use crate::alias::idp3::TagPose;
use crate::format::Format;
use crate::md4;
pub use crate::md4::{Vertex, Vertices};
use crate::name;
use crate::pose::bounds::Aabb;
use crate::pose::{Bone, PoseFrames, Skeleton};
use crate::skin::Records;
use crate::view::{Conventions, IndexedNames, Material, ModelView, NoMesh, TextureNames};

/// A validated ioquake3 MDR over borrowed bytes. `Send` and `Sync`.
///
/// Built by [`Parse::parse`](crate::Parse::parse) or
/// [`Parse::parse_with`](crate::Parse::parse_with).
///
/// ```
/// use skelmap_core::Parse;
/// use skelmap_core::mdr::{Builder, Mdr};
/// let bytes = Builder::triangle().write();
/// let mdr = Mdr::parse(&bytes)?;
/// assert_eq!((mdr.num_frames(), mdr.num_bones(), mdr.num_tags()), (2, 2, 1));
/// let surface = &mdr.lods()[0].surfaces()[0];
/// assert_eq!((surface.num_vertices(), surface.num_triangles()), (3, 1));
/// # Ok::<(), skelmap_core::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Mdr<'data> {
    pub(super) header: &'data MdrHeader,
    pub(super) frames: FrameTable<'data>,
    pub(super) tags: &'data [MdrTag],
    /// Per bone, the first tag on it ([`NO_TAG`]: none), found at open: names bones in O(1).
    pub(super) bone_tags: Vec<u32>,
    pub(super) lods: Vec<Lod<'data>>,
}

/// A bone no tag names, in `Mdr::bone_tags`.
pub(super) const NO_TAG: u32 = u32::MAX;

/// The frames as stored: plain or compressed, `num_bones` bones each.
#[derive(Debug, Clone, Copy)]
pub(super) struct FrameTable<'data> {
    /// `num_frames` frames, back to back.
    pub(super) bytes: &'data [u8],
    pub(super) compressed: bool,
    pub(super) num_frames: usize,
    pub(super) num_bones: usize,
    /// Whether some bone of some frame scales ([`scales`]), found at open.
    pub(super) has_scale: bool,
}

impl<'data> FrameTable<'data> {
    /// Bytes a frame takes.
    pub(super) fn stride(compressed: bool, num_bones: usize) -> usize {
        if compressed {
            size_of::<MdrCompFrame>() + num_bones * size_of::<MdrCompBone>()
        } else {
            size_of::<MdrFrame>() + num_bones * size_of::<MdrBone>()
        }
    }

    fn frame(&self, index: usize) -> Option<Frame<'data>> {
        if index >= self.num_frames {
            return None;
        }
        let stride = Self::stride(self.compressed, self.num_bones);
        let bytes = self.bytes.get(index.checked_mul(stride)?..)?;
        if self.compressed {
            let (summary, rest) = MdrCompFrame::ref_from_prefix(bytes).ok()?;
            let (bones, _) =
                <[MdrCompBone]>::ref_from_prefix_with_elems(rest, self.num_bones).ok()?;
            Some(Frame {
                bounds: summary.bounds,
                local_origin: summary.local_origin,
                radius: summary.radius.get(),
                name: &[],
                bones: Bones::Compressed(bones),
            })
        } else {
            let (summary, rest) = MdrFrame::ref_from_prefix(bytes).ok()?;
            let (bones, _) = <[MdrBone]>::ref_from_prefix_with_elems(rest, self.num_bones).ok()?;
            Some(Frame {
                bounds: summary.bounds,
                local_origin: summary.local_origin,
                radius: summary.radius.get(),
                name: name::trim_nul(&summary.name),
                bones: Bones::Plain(bones),
            })
        }
    }
}

/// A frame's bones as stored.
#[derive(Debug, Clone, Copy)]
pub enum Bones<'data> {
    /// Floats (`mdrBone_t`).
    Plain(&'data [MdrBone]),
    /// Twelve `u16` a bone (`mdrCompBone_t`), decoded on each read.
    Compressed(&'data [MdrCompBone]),
}

impl Bones<'_> {
    /// Bones in the frame.
    #[must_use]
    pub fn len(&self) -> usize {
        match self {
            Bones::Plain(b) => b.len(),
            Bones::Compressed(b) => b.len(),
        }
    }

    /// `true` for a frame of no bones (never, in a validated file).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bone `bone`'s model-space matrix, row-major 3×4 (decoded as ioquake3's `MC_UnCompress`
    /// decodes it for a compressed frame).
    #[must_use]
    pub fn matrix(&self, bone: usize) -> Option<[[f32; 4]; 3]> {
        match self {
            Bones::Plain(b) => b.get(bone).map(MdrBone::matrix),
            Bones::Compressed(b) => b.get(bone).map(MdrCompBone::matrix),
        }
    }
}

/// One frame of an [`Mdr`]: its summary and a model-space matrix per bone.
#[derive(Debug, Clone, Copy)]
pub struct Frame<'data> {
    bounds: [[zerocopy::byteorder::F32<LittleEndian>; 3]; 2],
    local_origin: [zerocopy::byteorder::F32<LittleEndian>; 3],
    radius: f32,
    name: &'data [u8],
    /// The bones, as stored.
    pub bones: Bones<'data>,
}

impl<'data> Frame<'data> {
    /// Minimum and maximum corner, as stored.
    #[must_use]
    pub fn bounds(&self) -> [[f32; 3]; 2] {
        self.bounds.map(|c| c.map(|v| v.get()))
    }

    /// The culling sphere's centre, as stored.
    #[must_use]
    pub fn local_origin(&self) -> [f32; 3] {
        self.local_origin.map(|v| v.get())
    }

    /// The culling sphere's radius, as stored.
    #[must_use]
    pub fn radius(&self) -> f32 {
        self.radius
    }

    /// The name up to its NUL (empty for a compressed frame, which has none).
    #[must_use]
    pub fn name(&self) -> &'data [u8] {
        self.name
    }

    /// Bone `bone`'s model-space matrix, row-major 3×4.
    #[must_use]
    pub fn matrix(&self, bone: usize) -> Option<[[f32; 4]; 3]> {
        self.bones.matrix(bone)
    }
}

/// One level of detail: its surfaces, in chain order.
#[derive(Debug, Clone)]
pub struct Lod<'data> {
    pub(super) surfaces: Vec<Surface<'data>>,
}

impl<'data> Lod<'data> {
    /// The surfaces, in chain order.
    #[must_use]
    pub fn surfaces(&self) -> &[Surface<'data>] {
        &self.surfaces
    }
}

/// One surface: a mesh of MD4's weighted vertices, with its shader (the surface
/// [`md4`](crate::md4) reads for MDR and MDM, over an `mdrSurface_t`): its records turn each
/// normal by every weight's bone, as ioquake3 does.
pub type Surface<'data> = md4::Surface<'data, MdrSurface>;

/// A tag: a named bone (`mdrTag_t`).
#[derive(Debug, Clone, Copy)]
pub struct Tag<'data> {
    raw: &'data MdrTag,
}

impl<'data> Tag<'data> {
    /// The raw record.
    #[must_use]
    pub fn raw(&self) -> &'data MdrTag {
        self.raw
    }

    /// The name, up to its NUL.
    #[must_use]
    pub fn name(&self) -> &'data [u8] {
        name::trim_nul(&self.raw.name)
    }

    /// The bone it follows (in range in a validated file).
    #[must_use]
    pub fn bone(&self) -> usize {
        self.raw.bone_index.get() as usize
    }
}

impl<'data> Mdr<'data> {
    /// The raw header.
    #[must_use]
    pub fn header(&self) -> &'data MdrHeader {
        self.header
    }

    /// The model's name, up to its NUL.
    #[must_use]
    pub fn name(&self) -> &'data [u8] {
        name::trim_nul(&self.header.name)
    }

    /// Frames (at least 1).
    #[must_use]
    pub fn num_frames(&self) -> usize {
        self.frames.num_frames
    }

    /// Bones in every frame (at least 1).
    #[must_use]
    pub fn num_bones(&self) -> usize {
        self.frames.num_bones
    }

    /// `true` when a bone of some frame scales or mirrors: a column of its matrix off unit
    /// length by more than 1e-4. Sampling then gives each bone's scale with its pose.
    #[must_use]
    pub fn has_scale(&self) -> bool {
        self.frames.has_scale
    }

    /// `true` when the frames are stored compressed (a negative `ofs_frames`).
    #[must_use]
    pub fn is_compressed(&self) -> bool {
        self.frames.compressed
    }

    /// Frame `index`, or `None` out of range.
    #[must_use]
    pub fn frame(&self, index: usize) -> Option<Frame<'data>> {
        self.frames.frame(index)
    }

    /// The levels of detail, LOD 0 (the model) first.
    #[must_use]
    pub fn lods(&self) -> &[Lod<'data>] {
        &self.lods
    }

    /// LOD 0's surfaces: the model's meshes (none for a model of tags only).
    #[must_use]
    pub fn surfaces(&self) -> &[Surface<'data>] {
        self.lods.first().map_or(&[], |lod| lod.surfaces())
    }

    /// Tags.
    #[must_use]
    pub fn num_tags(&self) -> usize {
        self.tags.len()
    }

    /// Tag `index`, or `None` out of range.
    #[must_use]
    pub fn tag(&self, index: usize) -> Option<Tag<'data>> {
        self.tags.get(index).map(|raw| Tag { raw })
    }

    /// Tag `index` at frame `frame` as ioquake3's `R_GetAnimTag` gives it: the axes the
    /// columns of its bone's rotation, the origin its translation.
    #[must_use]
    pub fn tag_pose(&self, frame: usize, index: usize) -> Option<TagPose<'data>> {
        let tag = self.tag(index)?;
        let m = self.frame(frame)?.matrix(tag.bone())?;
        Some(TagPose {
            name: tag.name(),
            origin: [m[0][3], m[1][3], m[2][3]],
            axis: core::array::from_fn(|j| [m[0][j], m[1][j], m[2][j]]),
        })
    }

    /// Tag `index` between frames `a` and `b` at `t` (0 = `a`): the origins and axes blended
    /// linearly, as ioquake3's `R_LerpTag` does, and the axes made orthonormal as MD3's tags
    /// are ([`md3::Md3::tag_at`](crate::md3::Md3::tag_at)). `None` out of range.
    #[must_use]
    pub fn tag_at(&self, a: usize, b: usize, t: f32, index: usize) -> Option<TagPose<'data>> {
        Some(self.tag_pose(a, index)?.blend(&self.tag_pose(b, index)?, t))
    }

    /// Vertices over LOD 0's surfaces.
    #[must_use]
    pub fn num_vertices(&self) -> usize {
        self.surfaces().iter().map(Surface::num_vertices).sum()
    }

    /// Triangles over LOD 0's surfaces.
    #[must_use]
    pub fn num_triangles(&self) -> usize {
        self.surfaces().iter().map(Surface::num_triangles).sum()
    }
}

/// How far a column's length may be from 1 before a bone counts as scaling: above the
/// 2.6e-5 the 16-bit steps of a compressed rotation can make it (`√3 · MC_SCALE_VECT / 2`),
/// so that compressed frames of pure turns do not pay for scales. A bone within it reads as
/// unscaled, off by at most this fraction of a weight's offset.
pub(super) const SCALE_TOLERANCE: f32 = 1e-4;

/// A row-major 3×4 matrix's columns.
fn columns(m: &[[f32; 4]; 3]) -> [Vec3; 4] {
    core::array::from_fn(|c| Vec3::new(m[0][c], m[1][c], m[2][c]))
}

/// A bone's scale: the lengths of its matrix's first three columns, the first negated when
/// the matrix mirrors (a negative determinant), so that the rotation left is proper.
fn scale_of(m: &[[f32; 4]; 3]) -> Vec3 {
    let [x, y, z, _] = columns(m);
    let scale = Vec3::new(x.length(), y.length(), z.length());
    if x.dot(y.cross(z)) < 0.0 {
        scale * Vec3::new(-1.0, 1.0, 1.0)
    } else {
        scale
    }
}

/// Whether bone matrix `m` scales: a column's length off 1 by more than
/// [`SCALE_TOLERANCE`], or a mirror.
pub(super) fn scales(m: &[[f32; 4]; 3]) -> bool {
    let scale = scale_of(m);
    (scale - Vec3::ONE).abs().max_element() > SCALE_TOLERANCE
}

/// Whether bone matrix `m` shears: two of its first three columns off square by more than
/// [`SCALE_TOLERANCE`] (as a cosine), which a turn and a scale along the turned axes cannot
/// make.
pub(super) fn shears(m: &[[f32; 4]; 3]) -> bool {
    let [x, y, z, _] = columns(m);
    [(x, y), (y, z), (z, x)]
        .iter()
        .any(|(a, b)| a.dot(*b).abs() > SCALE_TOLERANCE * a.length() * b.length())
}

/// The rotation and translation of a row-major 3×4 matrix, its scale ([`scale_of`]) divided
/// out of the columns first: the nearest unit quaternion to what is left (a shear is
/// dropped). A column of no length or of an infinite one has no direction: one such is made
/// square to the other two (a bone flattened along an axis keeps its turn); with two or
/// three, the matrix has no rotation and the identity stands in.
fn pose_of(m: [[f32; 4]; 3]) -> (Quat, Vec3A) {
    let [x, y, z, origin] = columns(&m);
    let scale = scale_of(&m);
    let unit = |c: Vec3, s: f32| (s != 0.0 && s.is_finite()).then(|| c / s);
    let rotation = match [unit(x, scale.x), unit(y, scale.y), unit(z, scale.z)] {
        [Some(x), Some(y), Some(z)] => Some(Mat3::from_cols(x, y, z)),
        [None, Some(y), Some(z)] => Some(Mat3::from_cols(y.cross(z), y, z)),
        [Some(x), None, Some(z)] => Some(Mat3::from_cols(x, z.cross(x), z)),
        [Some(x), Some(y), None] => Some(Mat3::from_cols(x, y, x.cross(y))),
        _ => None,
    };
    let q = rotation.map_or(Quat::IDENTITY, |r| Quat::from_mat3(&r));
    let q = if q.length_squared() > 0.0 && q.is_finite() {
        q.normalize()
    } else {
        Quat::IDENTITY
    };
    (q, origin.into())
}

/// Every bone a root, named after the first tag on it (unnamed otherwise).
impl<'data> Skeleton<'data> for Mdr<'data> {
    fn skeleton_bones(&self) -> impl ExactSizeIterator<Item = Bone<'data>> + Clone {
        let tags = self.tags;
        self.bone_tags.iter().map(move |&t| {
            let tag = tags.get(t as usize);
            Bone::new(tag.map_or(&[][..], |t| &t.name[..]), -1, 0)
        })
    }

    fn bone(&self, index: usize) -> Option<Bone<'data>> {
        let tag = self.tags.get(*self.bone_tags.get(index)? as usize);
        Some(Bone::new(tag.map_or(&[][..], |t| &t.name[..]), -1, 0))
    }
}

impl<'data> PoseFrames<'data> for Mdr<'data> {
    fn num_frames(&self) -> usize {
        self.frames.num_frames
    }

    /// The bone's model-space matrix as a rotation and a translation: every bone is a root.
    fn bone_pose(&self, frame: usize, bone: usize) -> Option<(Quat, Vec3A)> {
        Some(pose_of(self.frame(frame)?.matrix(bone)?))
    }

    /// `true` when a bone of some frame scales: a column of its matrix off unit length by
    /// more than 1e-4, or a mirror (found at open).
    fn has_scale(&self) -> bool {
        self.frames.has_scale
    }

    /// Each bone's column lengths, the first negated for a mirror: ioquake3 applies the
    /// whole matrix to a weight's offset, scale included.
    fn frame_scales_into(&self, frame: usize, out: &mut Vec<Vec3A>) {
        if let Some(f) = self.frame(frame) {
            out.extend(
                (0..f.bones.len()).filter_map(|b| Some(Vec3A::from(scale_of(&f.matrix(b)?)))),
            );
        }
    }
}

/// A mesh per LOD-0 surface, its records made on first use; a material per surface, named by
/// its shader; tags from the bones they name.
impl<'data> ModelView<'data> for Mdr<'data> {
    type Mesh<'a>
        = &'a Surface<'data>
    where
        Self: 'a;
    type FrameNames<'a>
        = IndexedNames<'a, 'data, Mdr<'data>>
    where
        Self: 'a;
    type BindMesh<'a>
        = NoMesh
    where
        Self: 'a;

    fn format(&self) -> Format {
        Format::Mdr
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

    fn frame_name(&self, index: usize) -> Option<&[u8]> {
        Some(self.frame(index)?.name())
    }

    fn frame_names(&self) -> Self::FrameNames<'_> {
        IndexedNames::new(self)
    }

    fn stored_bounds(&self) -> Option<Aabb> {
        let [min, max] = self.frame(0)?.bounds();
        let finite = min.iter().chain(&max).all(|v| v.is_finite());
        (finite && (0..3).all(|k| min[k] <= max[k])).then_some(Aabb {
            mins: min,
            maxs: max,
        })
    }

    fn num_tags(&self) -> usize {
        Mdr::num_tags(self)
    }

    fn tag_name(&self, index: usize) -> Option<&[u8]> {
        Some(Mdr::tag(self, index)?.name())
    }

    fn tag_bone(&self, index: usize) -> Option<usize> {
        Some(Mdr::tag(self, index)?.bone())
    }

    fn tag_at(&self, a: usize, b: usize, t: f32, index: usize) -> Option<Affine3A> {
        Some(Mdr::tag_at(self, a, b, t, index)?.transform())
    }

    fn tag(&self, frame: usize, index: usize) -> Option<Affine3A> {
        Some(self.tag_pose(frame, index)?.transform())
    }

    fn num_meshes(&self) -> usize {
        self.surfaces().len()
    }

    fn mesh(&self, index: usize) -> Option<&Surface<'data>> {
        self.surfaces().get(index)
    }

    fn num_materials(&self) -> usize {
        self.surfaces().len()
    }

    fn material(&self, index: usize) -> Option<Material<'_>> {
        Some(Material::plain(self.surfaces().get(index)?.shader_name()))
    }

    fn records(&self, mesh: usize) -> Option<Records<'_>> {
        Some(self.surfaces().get(mesh)?.records().into())
    }
}
