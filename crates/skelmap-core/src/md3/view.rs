//! The validated view: [`Md3`], its frames, tags and [`Surface`]s.

use std::borrow::Cow;

use glam::Affine3A;

use zerocopy::{FromBytes, IntoBytes};

use super::raw::{
    MD3_XYZ_SCALE, Md3Frame, Md3Header, Md3Shader, Md3St, Md3Surface, Md3Tag, Md3Triangle,
    Md3XyzNormal,
};
pub use crate::alias::idp3::TagPose;
use crate::diag::{Diagnostics, WarningKind};
use crate::format::Format;
use crate::name;
use crate::pose::animation_cfg::{AnimationCfg, Body};
use crate::pose::bounds::Aabb;
use crate::pose::framegroups::FrameGroup;
use crate::pose::{Bone, Skeleton};
use crate::skin::SimdLevel;
use crate::skin::morph::{
    self, Keyframe, LAT_LONG, LatLongVertex, MorphError, NormalTable, PackedFrame, Unpack,
};
use crate::view::{
    ClipOrigin, Conventions, DeformError, IndexedNames, Material, MeshView, ModelView, NoMesh,
    SkinFile, TexcoordLayout, TextureNames,
};

/// One surface of an [`Md3`]: a mesh with its own shaders, triangles, texture coordinates and
/// a copy of its vertices for every frame.
#[derive(Debug, Clone, Copy)]
pub struct Surface<'data> {
    pub(super) header: &'data Md3Surface,
    /// Where the surface header starts in the file.
    pub(super) offset: u64,
    pub(super) shaders: &'data [Md3Shader],
    pub(super) triangles: &'data [Md3Triangle],
    pub(super) st: &'data [Md3St],
    /// `num_verts · num_frames`, frame-major.
    pub(super) xyz: &'data [Md3XyzNormal],
    pub(super) num_verts: u32,
}

impl<'data> Surface<'data> {
    /// The raw surface header.
    #[must_use]
    pub fn header(&self) -> &'data Md3Surface {
        self.header
    }

    /// Where the surface header starts in the file.
    #[must_use]
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// The name bytes, up to the NUL (what a `.skin` file names).
    #[must_use]
    pub fn name(&self) -> &'data [u8] {
        name::trim_nul(&self.header.name)
    }

    /// The name as text.
    #[must_use]
    pub fn name_lossy(&self) -> Cow<'data, str> {
        name::lossy(self.name())
    }

    /// The shader names, each up to its NUL.
    pub fn shaders(&self) -> impl ExactSizeIterator<Item = &'data [u8]> + Clone + 'data {
        self.shaders.iter().map(|s| name::trim_nul(&s.name))
    }

    /// The name that stands for the surface's material: its first shader, or its own name
    /// when it names none (player models leave their shaders empty for `.skin` files to
    /// name, by surface).
    #[must_use]
    pub fn shader_name(&self) -> &'data [u8] {
        match self.shaders.first().map(|s| name::trim_nul(&s.name)) {
            Some(shader) if !shader.is_empty() => shader,
            _ => self.name(),
        }
    }

    /// Vertices per frame.
    #[must_use]
    pub fn num_vertices(&self) -> usize {
        self.num_verts as usize
    }

    /// Triangles.
    #[must_use]
    pub fn num_triangles(&self) -> usize {
        self.triangles.len()
    }

    /// Triangle `i` as stored (clockwise seen from the front, Quake's winding), or `None` out
    /// of range.
    #[must_use]
    pub fn triangle(&self, i: usize) -> Option<[u32; 3]> {
        // Validation proved every index in `0..num_verts`.
        Some(self.triangles.get(i)?.indexes.map(|v| v.get() as u32))
    }

    /// The texture coordinate of vertex `v` (`v` down the image).
    #[must_use]
    pub fn texcoord(&self, v: usize) -> Option<[f32; 2]> {
        Some(self.st.get(v)?.st.map(|c| c.get()))
    }

    /// Frame `frame`'s vertices as stored, or `None` out of range.
    #[must_use]
    pub fn frame_vertices(&self, frame: usize) -> Option<&'data [Md3XyzNormal]> {
        let n = self.num_vertices();
        self.xyz
            .get(frame.checked_mul(n)?..frame.checked_add(1)?.checked_mul(n)?)
    }

    /// Frame `frame`'s positions (`xyz / 64`); empty out of range.
    pub fn frame_positions(
        &self,
        frame: usize,
    ) -> impl ExactSizeIterator<Item = [f32; 3]> + Clone + 'data {
        self.frame_vertices(frame)
            .unwrap_or_default()
            .iter()
            .map(|v| v.xyz.map(|c| f32::from(c.get()) * MD3_XYZ_SCALE))
    }

    /// The position of vertex `v` in frame `frame`.
    #[must_use]
    pub fn position(&self, frame: usize, v: usize) -> Option<[f32; 3]> {
        let p = self.frame_vertices(frame)?.get(v)?;
        Some(p.xyz.map(|c| f32::from(c.get()) * MD3_XYZ_SCALE))
    }

    /// The normal of vertex `v` in frame `frame`, decoded from its latitude and longitude.
    #[must_use]
    pub fn normal(&self, frame: usize, v: usize) -> Option<[f32; 3]> {
        let n = self.frame_vertices(frame)?.get(v)?.normal.get();
        Some(morph::lat_long_normal(n))
    }

    /// Frame `frame` as the morph kernels read it (a zero-copy view of the same bytes).
    #[must_use]
    pub fn packed(&self, frame: usize) -> Option<PackedFrame<'data>> {
        let bytes = self.frame_vertices(frame)?.as_bytes();
        Some(PackedFrame::LatLong(
            <[LatLongVertex]>::ref_from_bytes(bytes).ok()?,
        ))
    }
}

/// A tag in one frame: a named point with its axes, what a weapon or a head is attached to.
#[derive(Debug, Clone, Copy)]
pub struct Tag<'data> {
    raw: &'data Md3Tag,
}

impl<'data> Tag<'data> {
    /// The raw record.
    #[must_use]
    pub fn raw(&self) -> &'data Md3Tag {
        self.raw
    }

    /// The name bytes, up to the NUL.
    #[must_use]
    pub fn name(&self) -> &'data [u8] {
        name::trim_nul(&self.raw.name)
    }

    /// The position.
    #[must_use]
    pub fn origin(&self) -> [f32; 3] {
        self.raw.origin.map(|v| v.get())
    }

    /// The axes as stored: forward, left, up (rows of the rotation).
    #[must_use]
    pub fn axis(&self) -> [[f32; 3]; 3] {
        self.raw.axis.map(|r| r.map(|v| v.get()))
    }

    /// The tag in its frame as a [`TagPose`]: its name, origin and axes as stored.
    #[must_use]
    pub fn pose(&self) -> TagPose<'data> {
        TagPose {
            name: self.name(),
            origin: self.origin(),
            axis: self.axis(),
        }
    }
}

/// A validated Quake III model (`IDP3`, version 15). `Send`, `Sync`, `Clone`; opening keeps a
/// list of its surfaces (O(surfaces)), nothing per vertex or frame.
///
/// ```
/// use skelmap_core::Parse;
/// use skelmap_core::md3::{Builder, Md3};
/// let bytes = Builder::triangle().write();
/// let md3 = Md3::parse(&bytes)?;
/// assert_eq!((md3.num_frames(), md3.surfaces().len(), md3.num_tags()), (1, 1, 1));
/// assert_eq!(md3.surfaces()[0].position(0, 1), Some([1.0, 0.0, 0.0]));
/// # Ok::<(), skelmap_core::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Md3<'data> {
    pub(super) header: &'data Md3Header,
    pub(super) frames: &'data [Md3Frame],
    /// `num_frames · num_tags`, frame-major.
    pub(super) tags: &'data [Md3Tag],
    pub(super) num_tags: u32,
    /// The surfaces with vertices, in chain order.
    pub(super) surfaces: Vec<Surface<'data>>,
}

impl<'data> Md3<'data> {
    /// The raw header.
    #[must_use]
    pub fn header(&self) -> &'data Md3Header {
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
        self.frames.len()
    }

    /// Frame `i`'s stored summary (bounds, origin, radius, name).
    #[must_use]
    pub fn frame(&self, i: usize) -> Option<&'data Md3Frame> {
        self.frames.get(i)
    }

    /// Tags per frame.
    #[must_use]
    pub fn num_tags(&self) -> usize {
        self.num_tags as usize
    }

    /// Frame `frame`'s tags.
    pub fn tags(&self, frame: usize) -> impl ExactSizeIterator<Item = Tag<'data>> + Clone + 'data {
        let n = self.num_tags();
        let range = frame.saturating_mul(n)..frame.saturating_add(1).saturating_mul(n);
        self.tags
            .get(range)
            .unwrap_or_default()
            .iter()
            .map(|raw| Tag { raw })
    }

    /// Tag `index` of frame `frame`.
    #[must_use]
    pub fn tag(&self, frame: usize, index: usize) -> Option<Tag<'data>> {
        if index >= self.num_tags() {
            return None;
        }
        let raw = self
            .tags
            .get(frame.checked_mul(self.num_tags())?.checked_add(index)?)?;
        Some(Tag { raw })
    }

    /// Tag `index` between frames `a` and `b` at `t` (0 = `a`, 1 = `b`): the origins blended
    /// linearly, the axes blended and made orthonormal again (forward normalised, left made
    /// perpendicular to it, up their cross product on the side the blended up points, so a
    /// mirrored tag stays mirrored), as an engine places an attached model between frames. `None` for a tag or
    /// frame out of range.
    ///
    /// ```
    /// use skelmap_core::Parse;
    /// use skelmap_core::md3::{Builder, Md3, write::TagDef};
    /// let mut b = Builder::triangle();
    /// b.frames.push(b.frames[0].clone());
    /// let still = b.surfaces[0].frames[0].clone();
    /// b.surfaces[0].frames.push(still);
    /// let mut turned = TagDef::at("tag_weapon", [2.0, 0.0, 1.0]);
    /// turned.axis = [[0.0, 1.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 0.0, 1.0]];
    /// b.tags.push(vec![turned]);
    /// let bytes = b.write();
    /// let md3 = Md3::parse(&bytes)?;
    /// let half = md3.tag_at(0, 1, 0.5, 0).ok_or("frames 0 and 1 have tag 0")?;
    /// assert_eq!(half.name, b"tag_weapon");
    /// assert_eq!(half.origin, [1.0, 0.0, 1.0]);
    /// let s = 0.5f32.sqrt(); // half way from +X to +Y
    /// assert!((half.axis[0][0] - s).abs() < 1e-6 && (half.axis[0][1] - s).abs() < 1e-6);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn tag_at(&self, a: usize, b: usize, t: f32, index: usize) -> Option<TagPose<'data>> {
        let (ta, tb) = (self.tag(a, index)?, self.tag(b, index)?);
        Some(ta.pose().blend(&tb.pose(), t))
    }

    /// The surfaces that have vertices, in the file's order (empty surfaces are skipped at
    /// open, with a warning).
    #[must_use]
    pub fn surfaces(&self) -> &[Surface<'data>] {
        &self.surfaces
    }

    /// Surface `mesh`'s frames `a` and `b` tweened at `t` by the morph kernel at `level`.
    ///
    /// # Errors
    ///
    /// [`MorphError::NoMesh`], [`MorphError::NoFrame`] for a surface or frame out of range,
    /// [`MorphError::Output`] for
    /// outputs shorter than the surface's vertices.
    #[allow(clippy::too_many_arguments)]
    pub fn tween_with_level(
        &self,
        level: SimdLevel,
        mesh: usize,
        a: usize,
        b: usize,
        t: f32,
        positions: &mut [[f32; 3]],
        normals: &mut [[f32; 3]],
    ) -> Result<(), MorphError> {
        let surface = self.surfaces.get(mesh).ok_or(MorphError::NoMesh(mesh))?;
        let fa = surface.packed(a).ok_or(MorphError::NoFrame(a))?;
        let fb = surface.packed(b).ok_or(MorphError::NoFrame(b))?;
        morph::tween_with_level(level, &UNPACK, fa, fb, t, positions, normals)
    }
}

/// What unpacks an MD3 frame: positions at 1/64 unit, normals from latitude and longitude.
pub const UNPACK: Unpack<'static> = Unpack {
    scale: [MD3_XYZ_SCALE; 3],
    offset: [0.0; 3],
    normals: &LAT_LONG,
};

/// An MD3 opened with its companions (`md3/companion.rs`): its levels of detail, the `.skin`
/// that names its surfaces' shaders, and, for a player's legs or torso (or a non-segmented
/// player's `nonseg.md3`), the player's `animation.cfg`. What [`Model`](crate::Model) holds for an MD3.
///
/// ```
/// use skelmap_core::Model;
/// let bytes = skelmap_core::md3::Builder::triangle().write();
/// let model = Model::from_bytes(&bytes)?;
/// let pair = model.as_md3().ok_or("an MD3")?;
/// assert_eq!((pair.md3().num_tags(), pair.lods().len()), (1, 0));
/// assert!(pair.skin().is_none() && pair.animation_cfg().is_none());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Pair<'data> {
    pub(super) md3: Md3<'data>,
    pub(super) lods: Vec<Md3<'data>>,
    pub(super) skin: Option<SkinFile<'data>>,
    pub(super) animation: Option<(AnimationCfg, Body)>,
}

impl<'data> Pair<'data> {
    /// The model itself.
    #[must_use]
    pub fn md3(&self) -> &Md3<'data> {
        &self.md3
    }

    /// Its levels of detail (`name_1.md3`, `name_2.md3`), coarser each, in order.
    #[must_use]
    pub fn lods(&self) -> &[Md3<'data>] {
        &self.lods
    }

    /// The `.skin` file opened with it, if any.
    #[must_use]
    pub fn skin(&self) -> Option<&SkinFile<'data>> {
        self.skin.as_ref()
    }

    /// The player's `animation.cfg`, and which part this model is, for a player's legs or
    /// torso, or a non-segmented player's one model ([`Body::Both`]), opened beside one.
    #[must_use]
    pub fn animation_cfg(&self) -> Option<(&AnimationCfg, Body)> {
        self.animation.as_ref().map(|(cfg, part)| (cfg, *part))
    }

    /// The shader surface `index` draws with: the skin's, where the skin names the surface,
    /// else the surface's own ([`Surface::shader_name`]).
    #[must_use]
    pub fn shader_name(&self, index: usize) -> Option<&'data [u8]> {
        let surface = self.md3.surfaces.get(index)?;
        let skinned = self.skin.as_ref().and_then(|s| s.shader(surface.name()));
        Some(skinned.unwrap_or_else(|| surface.shader_name()))
    }
}

/// No bones: an MD3 is animated by its frames (its tags are attachments, not bones).
impl<'data> Skeleton<'data> for Pair<'data> {
    fn skeleton_bones(&self) -> impl ExactSizeIterator<Item = Bone<'data>> + Clone {
        core::iter::empty()
    }
}

/// A mesh per surface, tweened between frames; a material per surface, named by the skin or
/// else by its first shader; clips from the player's `animation.cfg`.
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
        Format::Md3
    }

    fn conventions(&self) -> Conventions {
        Conventions {
            textures: TextureNames::Shaders,
            ..Conventions::QUAKE
        }
    }

    fn check_animation(&self, diag: &mut Diagnostics) {
        self.md3.check_frames(diag);
        let frames = self.md3.num_frames();
        for a in self
            .animation
            .iter()
            .flat_map(|(cfg, part)| cfg.outside(*part, frames))
        {
            diag.warn(
                Format::Md3,
                WarningKind::ClipOutsideFrames,
                "animation.cfg",
                0,
                || {
                    format!(
                        "line {}: {} plays frames {}..{} of a model of {frames} frames; left \
                         out",
                        a.line,
                        a.name,
                        a.first,
                        u64::from(a.first) + u64::from(a.count)
                    )
                },
            );
        }
    }

    fn num_frames(&self) -> usize {
        self.md3.frames.len()
    }

    fn frame_name(&self, index: usize) -> Option<&[u8]> {
        Some(name::trim_nul(&self.md3.frames.get(index)?.name))
    }

    fn frame_names(&self) -> Self::FrameNames<'_> {
        IndexedNames::new(self)
    }

    fn is_vertex_animated(&self) -> bool {
        true
    }

    fn clip_origin(&self) -> ClipOrigin {
        match self.animation {
            Some(_) => ClipOrigin::AnimationConfig,
            None => ClipOrigin::FrameNames,
        }
    }

    fn built_in_clips(&self) -> Vec<FrameGroup> {
        self.animation
            .as_ref()
            .map(|(cfg, part)| cfg.clips(*part, self.md3.num_frames()))
            .unwrap_or_default()
    }

    fn num_tags(&self) -> usize {
        self.md3.num_tags()
    }

    fn tag_name(&self, index: usize) -> Option<&[u8]> {
        Some(self.md3.tag(0, index)?.name())
    }

    fn tag_at(&self, a: usize, b: usize, t: f32, index: usize) -> Option<Affine3A> {
        Some(self.md3.tag_at(a, b, t, index)?.transform())
    }

    fn tag(&self, frame: usize, index: usize) -> Option<Affine3A> {
        Some(self.md3.tag(frame, index)?.pose().transform())
    }

    fn stored_bounds(&self) -> Option<Aabb> {
        let [min, max] = self.md3.frames.first()?.bounds.map(|b| b.map(|v| v.get()));
        let finite = min.iter().chain(&max).all(|v| v.is_finite());
        (finite && (0..3).all(|k| min[k] <= max[k])).then_some(Aabb {
            mins: min,
            maxs: max,
        })
    }

    fn num_meshes(&self) -> usize {
        self.md3.surfaces.len()
    }

    fn mesh(&self, index: usize) -> Option<&Surface<'data>> {
        self.md3.surfaces.get(index)
    }

    fn num_materials(&self) -> usize {
        self.md3.surfaces.len()
    }

    fn material(&self, index: usize) -> Option<Material<'_>> {
        Some(Material::plain(self.shader_name(index)?))
    }

    fn keyframe(&self, mesh: usize, frame: usize) -> Option<(Keyframe<'_>, &'static NormalTable)> {
        let surface = self.md3().surfaces().get(mesh)?;
        let keyframe = Keyframe {
            frame: surface.packed(frame)?,
            scale: UNPACK.scale,
            offset: UNPACK.offset,
        };
        Some((keyframe, UNPACK.normals))
    }

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
        Ok(self
            .md3
            .tween_with_level(level, mesh, a, b, t, positions, normals)?)
    }
}

/// Triangles reversed to counter-clockwise (MD3 stores them clockwise); a texture coordinate
/// per vertex; the surface's material is its own index.
impl<'a, 'data: 'a> MeshView<'a> for &'a Surface<'data> {
    fn name(&self) -> &'a [u8] {
        Surface::name(self)
    }

    fn num_vertices(&self) -> usize {
        Surface::num_vertices(self)
    }

    fn num_triangles(&self) -> usize {
        Surface::num_triangles(self)
    }

    fn triangle(&self, i: usize) -> Option<[u32; 3]> {
        Surface::triangle(self, i).map(|[a, b, c]| [c, b, a])
    }

    fn texcoord_layout(&self) -> TexcoordLayout {
        TexcoordLayout::PerVertex
    }

    fn vertex_texcoord(&self, v: usize) -> Option<[f32; 2]> {
        self.texcoord(v)
    }

    fn material(&self, index: usize) -> Option<usize> {
        Some(index)
    }
}
