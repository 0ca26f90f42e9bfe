//! The validated views: [`Mdm`] (its [`Surface`]s and [`Tag`]s), [`Mdx`] (its [`Frame`]s
//! and bones) and the [`Pair`] a model holds; and ET's bone placement
//! ([`Mdx::bone_transform`]).
//!
//! Every offset, count and index was proven by `validate.rs`; the accessors here reach the
//! bytes through checked reads and fall back to empty results rather than panic, which only a
//! wrong proof could make them do.

use std::sync::Arc;

use glam::{Affine3A, Mat3, Mat3A, Quat, Vec3, Vec3A};
use zerocopy::FromBytes;
use zerocopy::byteorder::{I32, LittleEndian};

use super::raw::{
    MdmHeader, MdmSurface, MdmTag, MdxBoneFrameCompressed, MdxBoneInfo, MdxFrame, MdxHeader,
    SHORT_TO_DEGREES,
};
pub use crate::alias::idp3::TagPose;
use crate::format::Format;
use crate::md4;
pub use crate::md4::{Vertex, Vertices};
use crate::name;
use crate::pose::bounds::Aabb;
use crate::pose::framegroups::FrameGroup;
use crate::pose::{Bone, PoseFrames, Skeleton};
use crate::skin::Records;
use crate::view::{
    ClipOrigin, Conventions, IndexedNames, Material, ModelView, NoMesh, SkinFile, TextureNames,
};

type Le = LittleEndian;

/// The rate of the one clip an MDX's frames make: ET gives each animation its rate in the
/// character's `.anim` script, and 20 is the commonest there (ET:Legacy's
/// `etmain/animations/human_base.anim`).
pub const CLIP_FPS: f32 = 20.0;

/// The largest bone index an MDM names and the first place it names it (the pair's check).
#[derive(Debug, Clone, Copy)]
pub(super) struct BoneUse {
    pub(super) bone: u32,
    pub(super) what: &'static str,
    pub(super) offset: u64,
}

/// Bytes an MDX frame takes: its summary and a compressed bone per bone.
pub(super) fn frame_stride(num_bones: usize) -> usize {
    size_of::<MdxFrame>() + num_bones * size_of::<MdxBoneFrameCompressed>()
}

// ---- MDM ----

/// A validated Enemy Territory MDM over borrowed bytes: surfaces and tags, its bones those of
/// an MDX ([`Pair`]). `Send` and `Sync`.
///
/// ```
/// use skelmap_core::Parse;
/// use skelmap_core::mdm::{Builder, Mdm};
/// let (mdm, _mdx) = Builder::triangle().write();
/// let mdm = Mdm::parse(&mdm)?;
/// assert_eq!((mdm.surfaces().len(), mdm.num_tags()), (1, 1));
/// assert_eq!(mdm.surfaces()[0].num_vertices(), 3);
/// # Ok::<(), skelmap_core::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Mdm<'data> {
    pub(super) header: &'data MdmHeader,
    pub(super) surfaces: Vec<Surface<'data>>,
    pub(super) tags: Vec<Tag<'data>>,
    pub(super) max_bone: Option<BoneUse>,
}

impl<'data> Mdm<'data> {
    /// The raw header.
    #[must_use]
    pub fn header(&self) -> &'data MdmHeader {
        self.header
    }

    /// The model's name, up to its NUL.
    #[must_use]
    pub fn name(&self) -> &'data [u8] {
        name::trim_nul(&self.header.name)
    }

    /// The factor on the projected radius when ET picks a level of detail (`lodScale`).
    #[must_use]
    pub fn lod_scale(&self) -> f32 {
        self.header.lod_scale.get()
    }

    /// What ET subtracts from that level (`lodBias`).
    #[must_use]
    pub fn lod_bias(&self) -> f32 {
        self.header.lod_bias.get()
    }

    /// The surfaces, in chain order: the model's meshes.
    #[must_use]
    pub fn surfaces(&self) -> &[Surface<'data>] {
        &self.surfaces
    }

    /// Tags.
    #[must_use]
    pub fn num_tags(&self) -> usize {
        self.tags.len()
    }

    /// Tag `index` in chain order, or `None` out of range.
    #[must_use]
    pub fn tag(&self, index: usize) -> Option<&Tag<'data>> {
        self.tags.get(index)
    }

    /// The largest bone index a weight, a bone reference or a tag names (`None` for a
    /// model that names none): the MDX it is paired with has more bones.
    #[must_use]
    pub fn max_bone(&self) -> Option<usize> {
        self.max_bone.map(|b| b.bone as usize)
    }

    /// Vertices over every surface.
    #[must_use]
    pub fn num_vertices(&self) -> usize {
        self.surfaces.iter().map(Surface::num_vertices).sum()
    }

    /// Triangles over every surface.
    #[must_use]
    pub fn num_triangles(&self) -> usize {
        self.surfaces.iter().map(Surface::num_triangles).sum()
    }
}

/// One surface: a mesh of MD4's weighted vertices, with its shader (the surface
/// [`md4`](crate::md4) reads for MDR and MDM, over an `mdmSurface_t`), its collapse map and
/// bone references ([`SurfaceArrays`]): its records turn each normal by the first weight's
/// bone, as ET does.
pub type Surface<'data> = md4::Surface<'data, MdmSurface, SurfaceArrays<'data>>;

/// What an MDM surface adds to MD4's: the arrays ET's levels of detail and bone building
/// read, each validated.
#[derive(Debug, Clone, Copy)]
pub struct SurfaceArrays<'data> {
    pub(super) collapse_map: &'data [I32<Le>],
    pub(super) bone_references: &'data [I32<Le>],
}

impl<'data> Surface<'data> {
    /// The fewest vertices ET draws of the surface (`minLod`, clamped to `0..=num_vertices`).
    #[must_use]
    pub fn min_lod(&self) -> usize {
        usize::try_from(self.header().min_lod.get()).map_or(0, |m| m.min(self.num_vertices()))
    }

    /// The collapse map: for each vertex, the vertex it merges into when a level of detail
    /// leaves it out (each in range in a validated file).
    #[must_use]
    pub fn collapse_map(&self) -> impl ExactSizeIterator<Item = usize> + '_ {
        self.extra.collapse_map.iter().map(|v| v.get() as usize)
    }

    /// The bones ET builds before drawing the surface.
    #[must_use]
    pub fn bone_references(&self) -> impl ExactSizeIterator<Item = usize> + '_ {
        self.extra.bone_references.iter().map(|v| v.get() as usize)
    }

    /// The vertices ET draws at a level of detail: `fraction` (ET's computed `lodScale`,
    /// 1 = every vertex) of the vertex count, rounded, no fewer than
    /// [`min_lod`](Surface::min_lod), as ET's `RB_MDM_SurfaceAnim` counts them.
    #[must_use]
    pub fn lod_vertices(&self, fraction: f32) -> usize {
        let fraction = if fraction.is_nan() {
            1.0
        } else {
            fraction.clamp(0.0, 1.0)
        };
        let count = (self.num_vertices() as f32 * fraction).round() as usize;
        count.max(self.min_lod()).min(self.num_vertices())
    }

    /// The triangles of the level that keeps the first `keep` vertices, as ET builds them:
    /// each vertex from `keep` on replaced by what its collapse-map entry became, and
    /// triangles whose corners merge left out. An entry pointing at itself or past its own
    /// vertex (which ET would read before writing) keeps the vertex out, and its triangles
    /// with it. `out` is cleared first; the triangles are as stored (clockwise).
    pub fn lod_triangles(&self, keep: usize, out: &mut Vec<[u32; 3]>) {
        out.clear();
        let n = self.num_vertices();
        let keep = keep.min(n);
        let mut collapse: Vec<u32> = (0..n as u32).collect();
        for j in keep..n {
            let target = self
                .extra
                .collapse_map
                .get(j)
                .map_or(j, |v| v.get() as usize);
            collapse[j] = if target < j {
                collapse[target]
            } else {
                u32::MAX
            };
        }
        for t in self.raw_triangles() {
            let corner = |k: usize| {
                collapse
                    .get(t.indexes[k].get() as usize)
                    .copied()
                    .unwrap_or(u32::MAX)
            };
            let [a, b, c] = [corner(0), corner(1), corner(2)];
            if a == u32::MAX || b == u32::MAX || c == u32::MAX || a == b || b == c || a == c {
                continue;
            }
            out.push([a, b, c]);
        }
    }
}

/// A tag: a point and axes on one bone (`mdmTag_t`).
#[derive(Debug, Clone, Copy)]
pub struct Tag<'data> {
    pub(super) raw: &'data MdmTag,
    pub(super) offset: u64,
    pub(super) bone_references: &'data [I32<Le>],
}

impl<'data> Tag<'data> {
    /// The raw record.
    #[must_use]
    pub fn raw(&self) -> &'data MdmTag {
        self.raw
    }

    /// Where the tag starts in the file.
    #[must_use]
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// The name, up to its NUL.
    #[must_use]
    pub fn name(&self) -> &'data [u8] {
        name::trim_nul(&self.raw.name)
    }

    /// The bone it follows.
    #[must_use]
    pub fn bone(&self) -> usize {
        self.raw.bone_index.get() as usize
    }

    /// Its origin in the bone's space.
    #[must_use]
    pub fn offset_in_bone(&self) -> [f32; 3] {
        self.raw.offset.map(|v| v.get())
    }

    /// Its axes in the bone's space.
    #[must_use]
    pub fn axis(&self) -> [[f32; 3]; 3] {
        self.raw.axis.map(|a| a.map(|v| v.get()))
    }

    /// The bones ET builds before placing it.
    #[must_use]
    pub fn bone_references(&self) -> impl ExactSizeIterator<Item = usize> + 'data {
        self.bone_references.iter().map(|v| v.get() as usize)
    }
}

// ---- MDX ----

/// A validated Enemy Territory MDX over borrowed bytes: bones and frames of compressed
/// angles. `Send` and `Sync`.
///
/// The MDX of an MDM opened through an animation group whose other animation files are read
/// too ([`Pair::animation_files`]) reaches the frames of all of them, one file's after
/// another in the group's order: its [`num_frames`](Mdx::num_frames) and
/// [`frame`](Mdx::frame) count them all, and [`own_frames`](Mdx::own_frames) says which are
/// its own. Its bones place any frame asked of it; ET places each with its own file's
/// ([`Pair::animation_file`]).
///
/// ```
/// use skelmap_core::Parse;
/// use skelmap_core::mdm::{Builder, Mdx};
/// let (_mdm, mdx) = Builder::triangle().write();
/// let mdx = Mdx::parse(&mdx)?;
/// assert_eq!((mdx.num_frames(), mdx.num_bones()), (3, 2));
/// let root = mdx.bone_transform(0, 0, 0).unwrap();
/// assert_eq!(root.translation, mdx.frame(0).unwrap().parent_offset().into());
/// # Ok::<(), skelmap_core::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Mdx<'data> {
    pub(super) header: &'data MdxHeader,
    /// The file's own frames, back to back.
    pub(super) frames: &'data [u8],
    /// The frames it reaches: its own, or with others joined, all of theirs.
    pub(super) num_frames: usize,
    pub(super) bones: &'data [MdxBoneInfo],
    /// With the frames of a group's other files joined, where they are.
    pub(super) joined: Option<Joined<'data>>,
}

/// The frames of an animation group's files on one timeline, as each of its [`Mdx`]s reaches
/// them.
#[derive(Debug, Clone)]
pub(super) struct Joined<'data> {
    /// Every file's frames in the group's order: its bytes and how many frames they hold,
    /// each on as many bones as every other file's.
    files: Arc<[(&'data [u8], usize)]>,
    /// This file's frames on the timeline.
    own: core::ops::Range<usize>,
}

/// One frame of an [`Mdx`]: its summary and a compressed bone per bone.
#[derive(Debug, Clone, Copy)]
pub struct Frame<'data> {
    /// The summary.
    pub raw: &'data MdxFrame,
    /// The bones.
    pub bones: &'data [MdxBoneFrameCompressed],
}

impl Frame<'_> {
    /// Minimum and maximum corner, as stored.
    #[must_use]
    pub fn bounds(&self) -> [[f32; 3]; 2] {
        self.raw.bounds.map(|c| c.map(|v| v.get()))
    }

    /// The culling sphere's centre, as stored.
    #[must_use]
    pub fn local_origin(&self) -> [f32; 3] {
        self.raw.local_origin.map(|v| v.get())
    }

    /// The culling sphere's radius, as stored.
    #[must_use]
    pub fn radius(&self) -> f32 {
        self.raw.radius.get()
    }

    /// Where every root bone sits in this frame.
    #[must_use]
    pub fn parent_offset(&self) -> [f32; 3] {
        self.raw.parent_offset.map(|v| v.get())
    }
}

/// ET's rotation for pitch, yaw, roll in degrees, as its bones apply it: `AnglesToAxis`
/// gives three axis vectors, and `RB_MDM_SurfaceAnim` multiplies a bone-space point by the
/// matrix whose *rows* they are.
#[must_use]
pub fn angles_rotation([pitch, yaw, roll]: [f32; 3]) -> Mat3 {
    let (sp, cp) = pitch.to_radians().sin_cos();
    let (sy, cy) = yaw.to_radians().sin_cos();
    let (sr, cr) = roll.to_radians().sin_cos();
    let forward = Vec3::new(cp * cy, cp * sy, -sp);
    let left = Vec3::new(sr * sp * cy - cr * sy, sr * sp * sy + cr * cy, sr * cp);
    let up = Vec3::new(cr * sp * cy + sr * sy, cr * sp * sy - sr * cy, cr * cp);
    Mat3::from_cols(forward, left, up).transpose()
}

/// The unit direction of pitch and yaw in degrees (`LocalIngleVector`, with exact sines
/// where ET looks them up in a 4096-entry table).
#[must_use]
pub fn offset_direction([pitch, yaw]: [f32; 2]) -> Vec3 {
    let (sp, cp) = pitch.to_radians().sin_cos();
    let (sy, cy) = yaw.to_radians().sin_cos();
    Vec3::new(cp * cy, cp * sy, -sp)
}

impl<'data> Mdx<'data> {
    /// The raw header.
    #[must_use]
    pub fn header(&self) -> &'data MdxHeader {
        self.header
    }

    /// The skeleton's name, up to its NUL.
    #[must_use]
    pub fn name(&self) -> &'data [u8] {
        name::trim_nul(&self.header.name)
    }

    /// Frames (at least 1): the file's own, or with a group's other files joined, every
    /// file's.
    #[must_use]
    pub fn num_frames(&self) -> usize {
        self.num_frames
    }

    /// Which of [`num_frames`](Mdx::num_frames) are the file's own: all of them, unless a
    /// group's other files are joined.
    ///
    /// ```
    /// use skelmap_core::Parse;
    /// use skelmap_core::mdm::{Builder, Mdx};
    /// let (_, bytes) = Builder::triangle().write();
    /// assert_eq!(Mdx::parse(&bytes)?.own_frames(), 0..3);
    /// # Ok::<(), skelmap_core::Error>(())
    /// ```
    #[must_use]
    pub fn own_frames(&self) -> core::ops::Range<usize> {
        match &self.joined {
            None => 0..self.num_frames,
            Some(joined) => joined.own.clone(),
        }
    }

    /// `first` and `more` (each not joined before) reaching one another's frames, `first`'s
    /// then each of `more`'s in order: every one must have `first`'s bone count (the caller
    /// checks the skeletons).
    pub(super) fn join(first: &mut Mdx<'data>, more: &mut [Mdx<'data>]) {
        if more.is_empty() {
            return;
        }
        let files: Arc<[(&'data [u8], usize)]> = core::iter::once(&*first)
            .chain(more.iter())
            .map(|mdx| (mdx.frames, mdx.num_frames))
            .collect();
        let total = files.iter().map(|&(_, n)| n).sum();
        let mut start = 0;
        for mdx in core::iter::once(first).chain(more.iter_mut()) {
            let own = start..start + mdx.num_frames;
            start = own.end;
            mdx.num_frames = total;
            mdx.joined = Some(Joined {
                files: Arc::clone(&files),
                own,
            });
        }
    }

    /// Bones (at least 1).
    #[must_use]
    pub fn num_bones(&self) -> usize {
        self.bones.len()
    }

    /// The raw bone records.
    #[must_use]
    pub fn bones(&self) -> &'data [MdxBoneInfo] {
        self.bones
    }

    /// The bone the torso turns about, `None` for -1.
    #[must_use]
    pub fn torso_parent(&self) -> Option<usize> {
        usize::try_from(self.header.torso_parent.get()).ok()
    }

    /// Frame `index`, or `None` out of range.
    #[must_use]
    pub fn frame(&self, index: usize) -> Option<Frame<'data>> {
        if index >= self.num_frames {
            return None;
        }
        let (frames, index) = match &self.joined {
            None => (self.frames, index),
            Some(joined) => {
                let (mut index, mut files) = (index, joined.files.iter());
                let frames = loop {
                    let &(frames, n) = files.next()?;
                    if index < n {
                        break frames;
                    }
                    index -= n;
                };
                (frames, index)
            }
        };
        let stride = frame_stride(self.bones.len());
        let bytes = frames.get(index.checked_mul(stride)?..)?;
        let (raw, rest) = MdxFrame::ref_from_prefix(bytes).ok()?;
        let (bones, _) =
            <[MdxBoneFrameCompressed]>::ref_from_prefix_with_elems(rest, self.bones.len()).ok()?;
        Some(Frame { raw, bones })
    }

    /// Bone `bone`'s rotation and offset direction with the legs at `frame` and the torso
    /// at `torso`, as ET's `R_CalcBone` blends them: a bone of torso weight 1 takes the
    /// torso's angles and direction; a bone of weight `w` between takes the legs' angles
    /// plus `w` times the shorter way to the torso's, and the legs' direction blended
    /// linearly to the torso's by `w` and normalised; a bone of weight 0 the legs'.
    fn bone_local(&self, frame: usize, torso: usize, bone: usize) -> Option<(Mat3, Vec3)> {
        let info = self.bones.get(bone)?;
        let legs = *self.frame(frame)?.bones.get(bone)?;
        let weight = info.torso_weight.get();
        if weight == 0.0 {
            return Some((
                angles_rotation(legs.angles_degrees()),
                offset_direction(legs.ofs_angles_degrees()),
            ));
        }
        let upper = *self.frame(torso)?.bones.get(bone)?;
        if weight == 1.0 {
            return Some((
                angles_rotation(upper.angles_degrees()),
                offset_direction(upper.ofs_angles_degrees()),
            ));
        }
        let angles: [f32; 3] = core::array::from_fn(|k| {
            let (a, t) = (
                i32::from(legs.angles[k].get()),
                i32::from(upper.angles[k].get()),
            );
            let mut diff = t - a;
            if diff.abs() > 32768 {
                diff &= 65535;
                if diff > 32768 {
                    diff -= 65536;
                }
            }
            a as f32 * SHORT_TO_DEGREES + weight * (diff as f32 * SHORT_TO_DEGREES)
        });
        let from = offset_direction(legs.ofs_angles_degrees());
        let to = offset_direction(upper.ofs_angles_degrees());
        let direction = (from * (1.0 - weight) + to * weight).normalize_or_zero();
        Some((angles_rotation(angles), direction))
    }

    /// Bone `bone`'s parent-relative pose with the legs at `frame` and the torso at `torso`,
    /// placed as `R_CalcBone` places it ([`bone_local`](Mdx::bone_local)): a root its
    /// rotation at the legs frame's `parent_offset`, a child [`child_pose`] of its parent's
    /// rotation. `None` out of range.
    fn placed_pose(&self, frame: usize, torso: usize, bone: usize) -> Option<(Quat, Vec3A)> {
        let info = self.bones.get(bone)?;
        let (rotation, direction) = self.bone_local(frame, torso, bone)?;
        match usize::try_from(info.parent.get()) {
            Err(_) => Some((
                rotation_quat(rotation),
                Vec3A::from(self.frame(frame)?.parent_offset()),
            )),
            Ok(parent) => {
                let (parent_rotation, _) = self.bone_local(frame, torso, parent)?;
                Some(child_pose(parent_rotation, rotation, direction, info))
            }
        }
    }

    /// Bone `bone` in model space with the legs at `frame` and the torso at `torso` (the
    /// same frame for a plain pose), as ET's `R_CalcBone` places it: the rotation from its
    /// compressed angles, the position its parent's plus `parent_dist` along its offset
    /// direction, a root at the legs frame's `parent_offset`. ET then turns torso bones by
    /// the entity's torso axis, identity unless a game sets one, which
    /// [`turn_torso`](Mdx::turn_torso) applies to the placed bones. `None` out of range.
    #[must_use]
    pub fn bone_transform(&self, frame: usize, torso: usize, bone: usize) -> Option<Affine3A> {
        let (rotation, _) = self.bone_local(frame, torso, bone)?;
        let mut translation = Vec3::ZERO;
        let mut current = bone;
        // Parents precede their children (validated), so the walk ends within `bone` steps.
        for _ in 0..=bone {
            let info = self.bones.get(current)?;
            let Ok(parent) = usize::try_from(info.parent.get()) else {
                translation += Vec3::from(self.frame(frame)?.parent_offset());
                return Some(Affine3A::from_mat3_translation(rotation, translation));
            };
            let (_, direction) = self.bone_local(frame, torso, current)?;
            translation += direction * info.parent_dist.get();
            current = parent;
        }
        None
    }

    /// Turns the torso as ET's `R_CalcBones` does once every bone is placed, in `world`: the
    /// model-space transforms of this skeleton's bones in bone order (a
    /// [`Palette`](crate::pose::Palette) built from a pose of it, or each bone's
    /// [`bone_transform`](Mdx::bone_transform)). Each bone of positive `torso_weight` `w` is
    /// turned about `p`, the position of [`torso_parent`](Mdx::torso_parent) before any turn
    /// (the origin for a skeleton that names none), by `M = w · axis + (1 − w) · I`
    /// (`Matrix4FromScaledAxisPlusTranslation`): its rotation `R` becomes `M · R`, its
    /// position `t` becomes `M · (t − p) + p`. Between weights 0 and 1 `M` is a blend of
    /// matrices rather than a rotation, as in ET. Bones of weight 0, and entries past the
    /// skeleton's bones, are left as they are.
    ///
    /// `axis` is the entity's torso rotation: its columns are ET's `refEntity_t.torsoAxis`
    /// vectors (forward, left, up), which the game sets each frame (cgame's `torsoAxis`).
    ///
    /// ```
    /// use skelmap_core::Parse;
    /// use skelmap_core::glam::{Affine3A, Mat3, Vec3, Vec3A};
    /// use skelmap_core::mdm::{Mdx, write::Builder};
    /// let (_, bytes) = Builder::triangle().write(); // bone 1 is half torso, on bone 0
    /// let mdx = Mdx::parse(&bytes)?;
    /// let mut world: Vec<Affine3A> = (0..2).filter_map(|b| mdx.bone_transform(0, 0, b)).collect();
    /// assert_eq!(world.len(), 2);
    /// let placed = world.clone();
    /// // A quarter turn about up: the half-torso bone turns by the blend of it and identity.
    /// let axis = Mat3::from_rotation_z(std::f32::consts::FRAC_PI_2);
    /// mdx.turn_torso(&mut world, axis);
    /// assert_eq!(world[0], placed[0]);
    /// let m = axis * 0.5 + Mat3::IDENTITY * 0.5;
    /// let pivot = placed[0].translation;
    /// let moved = Vec3A::from(m * Vec3::from(placed[1].translation - pivot)) + pivot;
    /// assert!(world[1].translation.abs_diff_eq(moved, 1e-6));
    /// # Ok::<(), skelmap_core::Error>(())
    /// ```
    pub fn turn_torso(&self, world: &mut [Affine3A], axis: Mat3) {
        let pivot = self
            .torso_parent()
            .and_then(|p| world.get(p))
            .map_or(Vec3A::ZERO, |t| t.translation);
        for (bone, info) in world.iter_mut().zip(self.bones) {
            let weight = info.torso_weight.get();
            // Validation keeps weights finite; a NaN would turn nothing.
            if weight <= 0.0 || weight.is_nan() {
                continue;
            }
            let m = Mat3A::from(axis * weight + Mat3::IDENTITY * (1.0 - weight));
            bone.matrix3 = m * bone.matrix3;
            bone.translation = m * (bone.translation - pivot) + pivot;
        }
    }
}

/// The MDX's bones: names, parents, and `BONEFLAG_TAG` (bit 0) as the attachment flag.
impl<'data> Skeleton<'data> for Mdx<'data> {
    fn skeleton_bones(&self) -> impl ExactSizeIterator<Item = Bone<'data>> + Clone {
        self.bones
            .iter()
            .map(|b| Bone::new(&b.name[..], b.parent.get(), b.flags.get() as u32))
    }

    fn bone(&self, index: usize) -> Option<Bone<'data>> {
        let b = self.bones.get(index)?;
        Some(Bone::new(&b.name[..], b.parent.get(), b.flags.get() as u32))
    }
}

/// Parent-relative poses from ET's model-space placement: a root's is its model-space
/// rotation at `parent_offset`; a child's rotation is its parent's inverse times its own,
/// its translation `parent_dist` along its offset direction turned into the parent's space.
impl<'data> PoseFrames<'data> for Mdx<'data> {
    fn num_frames(&self) -> usize {
        self.num_frames
    }

    fn bone_pose(&self, frame: usize, bone: usize) -> Option<(Quat, Vec3A)> {
        self.placed_pose(frame, frame, bone)
    }

    /// Between two frames, ET's `R_CalcBoneLerp` (rather than a blend of the frames' poses),
    /// given as the parent-relative poses [`bone_pose`](PoseFrames::bone_pose) makes of a
    /// frame. Frames `a` and `b` at `t` (ET's `frontlerp`, `backlerp = 1 − t`), per bone:
    ///
    /// - each rotation angle, in 16-bit units, goes from `b`'s back by `backlerp` times the
    ///   shorter way from `a`'s (the difference wrapped to `−32768..=32767`), truncated to
    ///   an integer as ET stores it; the angles give the model-space rotation as a frame's
    ///   do;
    /// - the offset directions of `a` and `b` are blended linearly by `t` and normalised
    ///   (`SLerp_Normal`), and the bone sits `parent_dist` along it from its parent; a bone
    ///   of partial torso weight (neither 0 nor 1) has its direction pulled towards `b`'s
    ///   by its weight, as ET does (see `docs/formats/mdm.md`);
    /// - a root sits at the two frames' `parent_offset`s blended linearly.
    ///
    /// This is [`Mdx::legs_torso_poses_into`] with the legs and the torso at the same
    /// frames, so torso weights change no rotation. At `t = 1` and for `a = b` the frame's
    /// own poses, bit for bit; at `t = 0` frame `a`'s, but for the pull of partial torso
    /// bones (ET lerps unless `backlerp` is 0). The rotation angles' lerp takes the shorter
    /// way per angle, not per rotation: for large turns between frames it leaves the arc a
    /// quaternion blend would take, as ET does.
    fn nlerp_frames_into(&self, a: usize, b: usize, t: f32, out: &mut Vec<(Quat, Vec3A)>) -> bool {
        self.legs_torso_poses_into((a, b, t), (a, b, t), out)
    }
}

impl Mdx<'_> {
    /// The parent-relative poses of every bone with the legs between one pair of frames and
    /// the torso between another, as ET's `R_CalcBones` places a player whose upper body
    /// plays its own animation: `legs` and `torso` are each `(a, b, t)`, frames `a` (ET's
    /// `oldframe`, `oldTorsoFrame`) and `b` (`frame`, `torsoFrame`) at `t` (`1 − backlerp`,
    /// `1 − torsoBacklerp`). A bone of torso weight 0 follows the legs, one of weight 1 the
    /// torso, and one of any other weight `w` the legs pulled towards the torso by `w`:
    ///
    /// - a pair with `a = b`, or `t = 1`, is frame `b` (ET's backlerp 0); when both pairs
    ///   are, each bone is placed as [`bone_transform`](Mdx::bone_transform) places it with
    ///   the legs at `legs.b` and the torso at `torso.b` (`R_CalcBone`);
    /// - otherwise (`R_CalcBoneLerp`) each rotation angle, in 16-bit units, goes from `b`'s
    ///   back by `1 − t` times the shorter way from `a`'s, truncated to an integer; a partial
    ///   bone adds `w` times the shorter way from the legs' angle to the torso's, truncated
    ///   again. The offset direction is the pair's two directions blended linearly by `t`
    ///   and normalised (the torso's pair for a bone of weight 1); a partial bone's is then
    ///   blended by `w` towards the torso's new frame's direction (ET:Legacy reads both ends
    ///   of that blend from the new frame; see `docs/formats/mdm.md`). A root sits at the
    ///   legs frames' `parent_offset`s blended linearly.
    ///
    /// With the same pair for both, this is [`PoseFrames::nlerp_frames_into`]. `out` is
    /// cleared and filled with one pose per bone; `false` (and `out` left unspecified) for a
    /// frame out of range. ET then turns torso bones by the entity's torso axis:
    /// [`turn_torso`](Mdx::turn_torso) on the placed bones.
    ///
    /// ```
    /// use skelmap_core::Parse;
    /// use skelmap_core::mdm::{Mdx, write::Builder};
    /// use skelmap_core::pose::PoseFrames;
    /// let (_, bytes) = Builder::triangle().write(); // bone 0 legs, bone 1 half torso
    /// let mdx = Mdx::parse(&bytes)?;
    /// let (mut split, mut legs, mut torso) = (Vec::new(), Vec::new(), Vec::new());
    /// assert!(mdx.legs_torso_poses_into((0, 1, 0.5), (2, 2, 0.0), &mut split));
    /// assert!(mdx.nlerp_frames_into(0, 1, 0.5, &mut legs));
    /// assert!(mdx.nlerp_frames_into(2, 2, 0.0, &mut torso));
    /// // The root follows the legs; the half-torso bone is neither the legs' nor the torso's.
    /// assert_eq!(split[0], legs[0]);
    /// assert!(split[1] != legs[1] && split[1] != torso[1]);
    /// assert!(!mdx.legs_torso_poses_into((0, 1, 0.5), (0, 3, 0.5), &mut split));
    /// # Ok::<(), skelmap_core::Error>(())
    /// ```
    pub fn legs_torso_poses_into(
        &self,
        legs: (usize, usize, f32),
        torso: (usize, usize, f32),
        out: &mut Vec<(Quat, Vec3A)>,
    ) -> bool {
        let (Some(legs_old), Some(legs_new), Some(torso_old), Some(torso_new)) = (
            self.frame(legs.0),
            self.frame(legs.1),
            self.frame(torso.0),
            self.frame(torso.1),
        ) else {
            return false;
        };
        out.clear();
        let (backlerp, torso_backlerp) = (backlerp(legs), backlerp(torso));
        if backlerp == 0.0 && torso_backlerp == 0.0 {
            // `R_CalcBone`: the legs at `legs.1`, the torso at `torso.1`.
            for bone in 0..self.bones.len() {
                let Some(pose) = self.placed_pose(legs.1, torso.1, bone) else {
                    return false;
                };
                out.push(pose);
            }
            return true;
        }
        let (frontlerp, torso_frontlerp) = (1.0 - backlerp, 1.0 - torso_backlerp);
        let rotation = |bone: usize| -> Option<Mat3> {
            let weight = self.bones.get(bone)?.torso_weight.get();
            let torso_ingles = || {
                let (o, n) = (torso_old.bones.get(bone)?, torso_new.bones.get(bone)?);
                Some(lerp_ingles(o, n, torso_backlerp))
            };
            let ingles = if weight == 1.0 {
                torso_ingles()?
            } else {
                let (o, n) = (legs_old.bones.get(bone)?, legs_new.bones.get(bone)?);
                let legs = lerp_ingles(o, n, backlerp);
                if weight == 0.0 {
                    legs
                } else {
                    let upper = torso_ingles()?;
                    core::array::from_fn(|k| {
                        let diff = wrap_short(upper[k] - legs[k]);
                        // C's `int += float`: the sum in floats, truncated.
                        (legs[k] as f32 + weight * diff as f32) as i32
                    })
                }
            };
            Some(angles_rotation(ingles.map(|i| i as f32 * SHORT_TO_DEGREES)))
        };
        let direction = |bone: usize, weight: f32| -> Option<Vec3> {
            let of = |f: &Frame<'_>| {
                let b = f.bones.get(bone)?;
                Some(offset_direction(b.ofs_angles_degrees()))
            };
            if weight == 1.0 {
                return Some(slerp_normal(
                    of(&torso_old)?,
                    of(&torso_new)?,
                    torso_frontlerp,
                ));
            }
            let legs = slerp_normal(of(&legs_old)?, of(&legs_new)?, frontlerp);
            if weight == 0.0 {
                return Some(legs);
            }
            let to = of(&torso_new)?;
            Some(slerp_normal(
                legs,
                slerp_normal(to, to, torso_frontlerp),
                weight,
            ))
        };
        for (bone, info) in self.bones.iter().enumerate() {
            let Some(own) = rotation(bone) else {
                return false;
            };
            let pose = match usize::try_from(info.parent.get()) {
                Err(_) => {
                    let (o, n) = (legs_old.parent_offset(), legs_new.parent_offset());
                    let at = core::array::from_fn(|k| frontlerp * n[k] + backlerp * o[k]);
                    (rotation_quat(own), Vec3A::from_array(at))
                }
                Ok(parent) => {
                    let (Some(parent_rotation), Some(direction)) =
                        (rotation(parent), direction(bone, info.torso_weight.get()))
                    else {
                        return false;
                    };
                    child_pose(parent_rotation, own, direction, info)
                }
            };
            out.push(pose);
        }
        true
    }
}

/// ET's `backlerp` of a pair of frames `(a, b, t)`: 0 for one frame twice, else `1 − t`.
fn backlerp((a, b, t): (usize, usize, f32)) -> f32 {
    if a == b { 0.0 } else { 1.0 - t }
}

/// A 16-bit angle difference made the shorter way round: `−32768..=32767`.
fn wrap_short(diff: i32) -> i32 {
    let diff = diff & 65535;
    if diff > 32767 { diff - 65536 } else { diff }
}

/// A bone's three rotation angles between frames as ET's integer path lerps them (16-bit
/// units): `b`'s back by `backlerp` times the shorter way from `a`'s, truncated towards zero
/// as C's float-to-int conversion does.
fn lerp_ingles(a: &MdxBoneFrameCompressed, b: &MdxBoneFrameCompressed, backlerp: f32) -> [i32; 3] {
    core::array::from_fn(|k| {
        let (from, to) = (a.angles[k].get(), b.angles[k].get());
        let diff = wrap_short(i32::from(to) - i32::from(from));
        (f32::from(to) - backlerp * diff as f32) as i32
    })
}

/// ET's `SLerp_Normal`: `from` weighed by `1 − t` plus `to` by `t`, normalised.
fn slerp_normal(from: Vec3, to: Vec3, t: f32) -> Vec3 {
    (from * (1.0 - t) + to * t).normalize_or_zero()
}

/// A model-space rotation as a unit quaternion; one an overflowing torso weight made not
/// finite is the identity.
fn rotation_quat(m: Mat3) -> Quat {
    let q = Quat::from_mat3(&m);
    if q.is_finite() && q.length_squared() > 0.0 {
        q.normalize()
    } else {
        Quat::IDENTITY
    }
}

/// A child's parent-relative pose from its parent's model-space rotation, its own, and its
/// offset direction (in model space): `parent⁻¹ · rotation`, and `parent_dist` along the
/// direction turned into the parent's space.
fn child_pose(parent: Mat3, rotation: Mat3, direction: Vec3, info: &MdxBoneInfo) -> (Quat, Vec3A) {
    let inverse = parent.transpose();
    let offset = inverse * (direction * info.parent_dist.get());
    (rotation_quat(inverse * rotation), offset.into())
}

/// One clip of every frame at [`CLIP_FPS`], looping.
fn one_clip(num_frames: usize) -> Vec<FrameGroup> {
    vec![FrameGroup {
        name: "all".into(),
        first: 0,
        count: num_frames as u32,
        fps: CLIP_FPS,
        looped: true,
    }]
}

/// The bounds frame 0 stores, when they are a box.
fn frame_bounds(mdx: &Mdx<'_>) -> Option<Aabb> {
    let [min, max] = mdx.frame(0)?.bounds();
    (0..3).all(|k| min[k] <= max[k]).then_some(Aabb {
        mins: min,
        maxs: max,
    })
}

/// An MDX opened alone: a skeleton and its frames, no meshes, with the clips of the `.aninc`
/// file of its stem beside it when there is one (ET's animation groups include such a file
/// for each MDX: `animations/human/base/body.aninc` for `body.mdx`).
#[derive(Debug, Clone)]
pub struct MdxFile<'data> {
    pub(super) mdx: Mdx<'data>,
    pub(super) clips: Option<Vec<FrameGroup>>,
}

impl<'data> MdxFile<'data> {
    /// The skeleton and animation.
    #[must_use]
    pub fn mdx(&self) -> &Mdx<'data> {
        &self.mdx
    }
}

impl<'data> Skeleton<'data> for MdxFile<'data> {
    fn skeleton_bones(&self) -> impl ExactSizeIterator<Item = Bone<'data>> + Clone {
        self.mdx.skeleton_bones()
    }

    fn bone(&self, index: usize) -> Option<Bone<'data>> {
        self.mdx.bone(index)
    }
}

/// Its frames are the MDX's; its clips the `.aninc`'s, else one of every frame.
impl<'data> ModelView<'data> for MdxFile<'data> {
    type Mesh<'a>
        = NoMesh
    where
        Self: 'a;
    type FrameNames<'a>
        = IndexedNames<'a, 'data, MdxFile<'data>>
    where
        Self: 'a;
    type BindMesh<'a>
        = NoMesh
    where
        Self: 'a;

    fn format(&self) -> Format {
        Format::Mdx
    }

    fn pose_frames(&self) -> Option<&impl PoseFrames<'data>> {
        Some(&self.mdx)
    }

    fn frame_names(&self) -> Self::FrameNames<'_> {
        IndexedNames::new(self)
    }

    fn clip_origin(&self) -> ClipOrigin {
        match self.clips {
            Some(_) => ClipOrigin::AnimationGroup,
            None => ClipOrigin::FrameGroups,
        }
    }

    fn built_in_clips(&self) -> Vec<FrameGroup> {
        self.clips
            .clone()
            .unwrap_or_else(|| one_clip(self.mdx.num_frames))
    }

    fn stored_bounds(&self) -> Option<Aabb> {
        frame_bounds(&self.mdx)
    }
}

// ---- the pair ----

/// An MDM with the MDX that plays it: the mesh's surfaces and tags on the skeleton's bones
/// and frames. Made by [`Pair::new`] (every bone the mesh names checked against the
/// skeleton) or by opening an `.mdm` ([`Model::open`](crate::Model::open) finds the `.mdx`
/// of its stem beside it, or takes the one `OpenOptions::skeleton` gives).
///
/// ```
/// use skelmap_core::Parse;
/// use skelmap_core::mdm::{Builder, Mdm, Mdx, Pair};
/// let (mdm, mdx) = Builder::triangle().write();
/// let pair = Pair::new(Mdm::parse(&mdm)?, Mdx::parse(&mdx)?)?;
/// assert_eq!(pair.mdx().num_bones(), 2);
/// let tag = pair.tag_pose(0, 0).unwrap();
/// assert_eq!(tag.name, b"tag_head");
/// # Ok::<(), skelmap_core::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Pair<'data> {
    pub(super) mdm: Mdm<'data>,
    pub(super) mdx: Mdx<'data>,
    /// The animation group's other animation files whose frames follow the skeleton's.
    pub(super) more: Vec<Mdx<'data>>,
    /// The clips of the animation group the MDX was found through, if it was.
    pub(super) clips: Option<Vec<FrameGroup>>,
    /// The `.skin` file opened with it, naming its surfaces' shaders.
    pub(super) skin: Option<SkinFile<'data>>,
}

impl<'data> Pair<'data> {
    /// The mesh.
    #[must_use]
    pub fn mdm(&self) -> &Mdm<'data> {
        &self.mdm
    }

    /// The skeleton and animation: the MDX of the group's first animation file when the
    /// mesh was found through an animation group, reaching the frames of the others (each
    /// placed as ET places it by [`animation_file`](Pair::animation_file)).
    #[must_use]
    pub fn mdx(&self) -> &Mdx<'data> {
        &self.mdx
    }

    /// Every animation file whose frames the model plays, in timeline order: the skeleton
    /// ([`mdx`](Pair::mdx)), then the animation group's other files that fit it (an MDM found
    /// through an Enemy Territory character; `docs/formats/mdm.md`). Each reaches every
    /// file's frames and owns [`Mdx::own_frames`] of them.
    pub fn animation_files(&self) -> impl Iterator<Item = &Mdx<'data>> + Clone {
        core::iter::once(&self.mdx).chain(&self.more)
    }

    /// The animation file whose frames include `frame`, whose bones place it as ET places a
    /// frame with its own file's bone records; the skeleton past the frames.
    #[must_use]
    pub fn animation_file(&self, frame: usize) -> &Mdx<'data> {
        self.more
            .iter()
            .find(|mdx| mdx.own_frames().contains(&frame))
            .unwrap_or(&self.mdx)
    }

    /// The `.skin` file opened with it, if any.
    #[must_use]
    pub fn skin(&self) -> Option<&SkinFile<'data>> {
        self.skin.as_ref()
    }

    /// The shader surface `index` draws with: the skin's, where the skin names the surface,
    /// else the surface's own ([`Surface::shader_name`]); `None` past the surfaces.
    #[must_use]
    pub fn shader_name(&self, index: usize) -> Option<&'data [u8]> {
        let surface = self.mdm.surfaces.get(index)?;
        let skinned = self.skin.as_ref().and_then(|s| s.shader(surface.name()));
        Some(skinned.unwrap_or_else(|| surface.shader_name()))
    }

    /// Tag `index` at `frame` as ET's `R_MDM_GetBoneTag` places it: its bone's model-space
    /// rotation turns its offset and axes, the bone's position is added to the offset.
    #[must_use]
    pub fn tag_pose(&self, frame: usize, index: usize) -> Option<TagPose<'data>> {
        let tag = self.mdm.tag(index)?;
        let bone = self
            .animation_file(frame)
            .bone_transform(frame, frame, tag.bone())?;
        let origin = bone.transform_point3(Vec3::from(tag.offset_in_bone()));
        let axis = tag
            .axis()
            .map(|a| bone.transform_vector3(Vec3::from(a)).to_array());
        Some(TagPose {
            name: tag.name(),
            origin: origin.to_array(),
            axis,
        })
    }

    /// Tag `index` between frames `a` and `b` at `t` (0 = `a`): origins and axes blended
    /// linearly and the axes made orthonormal, as MD3's tags are.
    #[must_use]
    pub fn tag_at(&self, a: usize, b: usize, t: f32, index: usize) -> Option<TagPose<'data>> {
        Some(self.tag_pose(a, index)?.blend(&self.tag_pose(b, index)?, t))
    }
}

impl<'data> Skeleton<'data> for Pair<'data> {
    fn skeleton_bones(&self) -> impl ExactSizeIterator<Item = Bone<'data>> + Clone {
        self.mdx.skeleton_bones()
    }

    fn bone(&self, index: usize) -> Option<Bone<'data>> {
        self.mdx.bone(index)
    }
}

/// A frame is placed by its animation file's bones ([`Pair::animation_file`]); a lerp between
/// two by frame `b`'s file's, as ET's `R_CalcBones` takes the bone records of the new
/// frame's model.
impl<'data> PoseFrames<'data> for Pair<'data> {
    fn num_frames(&self) -> usize {
        self.mdx.num_frames
    }

    fn bone_pose(&self, frame: usize, bone: usize) -> Option<(Quat, Vec3A)> {
        self.animation_file(frame).bone_pose(frame, bone)
    }

    /// ET's lerp between frames, as [`Mdx`]'s.
    fn nlerp_frames_into(&self, a: usize, b: usize, t: f32, out: &mut Vec<(Quat, Vec3A)>) -> bool {
        self.animation_file(b).nlerp_frames_into(a, b, t, out)
    }
}

/// A mesh per surface, its records made on first use; a material per surface, named by its
/// shader; tags on their bones, each with its offset and axes in the bone's space
/// (`tag_offset`), as ET places them ([`Pair::tag_pose`]).
impl<'data> ModelView<'data> for Pair<'data> {
    type Mesh<'a>
        = &'a Surface<'data>
    where
        Self: 'a;
    type FrameNames<'a>
        = IndexedNames<'a, 'data, Pair<'data>>
    where
        Self: 'a;
    type BindMesh<'a>
        = NoMesh
    where
        Self: 'a;

    fn format(&self) -> Format {
        Format::Mdm
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
        match self.clips {
            Some(_) => ClipOrigin::AnimationGroup,
            None => ClipOrigin::FrameGroups,
        }
    }

    fn built_in_clips(&self) -> Vec<FrameGroup> {
        self.clips
            .clone()
            .unwrap_or_else(|| one_clip(self.mdx.num_frames))
    }

    fn stored_bounds(&self) -> Option<Aabb> {
        frame_bounds(&self.mdx)
    }

    fn num_tags(&self) -> usize {
        self.mdm.num_tags()
    }

    fn tag_name(&self, index: usize) -> Option<&[u8]> {
        Some(self.mdm.tag(index)?.name())
    }

    fn tag_bone(&self, index: usize) -> Option<usize> {
        Some(self.mdm.tag(index)?.bone())
    }

    fn tag_offset(&self, index: usize) -> Affine3A {
        self.mdm.tag(index).map_or(Affine3A::IDENTITY, |tag| {
            let [x, y, z] = tag.axis().map(Vec3A::from);
            Affine3A::from_cols(x, y, z, Vec3A::from(tag.offset_in_bone()))
        })
    }

    fn tag_at(&self, a: usize, b: usize, t: f32, index: usize) -> Option<Affine3A> {
        Some(Pair::tag_at(self, a, b, t, index)?.transform())
    }

    fn tag(&self, frame: usize, index: usize) -> Option<Affine3A> {
        Some(self.tag_pose(frame, index)?.transform())
    }

    fn num_meshes(&self) -> usize {
        self.mdm.surfaces.len()
    }

    fn mesh(&self, index: usize) -> Option<&Surface<'data>> {
        self.mdm.surfaces.get(index)
    }

    fn num_materials(&self) -> usize {
        self.mdm.surfaces.len()
    }

    fn material(&self, index: usize) -> Option<Material<'_>> {
        Some(Material::plain(self.shader_name(index)?))
    }

    fn records(&self, mesh: usize) -> Option<Records<'_>> {
        Some(self.mdm.surfaces.get(mesh)?.records().into())
    }
}
