//! The validated view: [`Mdc`], its frames, tags and [`Surface`]s.

use std::borrow::Cow;

use glam::Affine3A;
use zerocopy::byteorder::{I16, LittleEndian};
use zerocopy::{FromBytes, IntoBytes};

use super::raw::{
    MD3_XYZ_SCALE, MDC_DIST_SCALE, MDC_MAX_OFS, MDC_NORMALS, MDC_TAG_ANGLE_SCALE, Md3Frame,
    Md3Shader, Md3St, Md3Triangle, Md3XyzNormal, MdcHeader, MdcSurface, MdcTag, MdcTagName,
    MdcXyzCompressed,
};
pub use crate::alias::idp3::TagPose;
use crate::diag::Diagnostics;
use crate::format::Format;
use crate::name;
use crate::pose::bounds::Aabb;
use crate::pose::{Bone, Skeleton};
use crate::skin::SimdLevel;
use crate::skin::morph::{
    self, LAT_LONG, LatLongVertex, MorphError, NormalTable, PackedFrame, Unpack,
};
use crate::view::{
    Conventions, DeformError, IndexedNames, Material, MeshView, ModelView, NoMesh, TexcoordLayout,
    TextureNames,
};

type Le = LittleEndian;

/// The compressed vertices' normals ([`MDC_NORMALS`]) as the morph kernels' table.
pub static NORMALS: NormalTable = NormalTable::new(&MDC_NORMALS);

/// What unpacks a base frame: positions at 1/64 unit, normals from latitude and longitude
/// (MD3's packing).
pub const UNPACK: Unpack<'static> = Unpack {
    scale: [MD3_XYZ_SCALE; 3],
    offset: [0.0; 3],
    normals: &LAT_LONG,
};

/// The offset a compressed vertex adds to its base vertex: each of the low three bytes of
/// `ofs_vec` less 127, times 0.05 units.
///
/// ```
/// use skelmap_core::mdc::compressed_offset;
/// assert_eq!(compressed_offset(0x00_7f_7f_7f), [0.0, 0.0, 0.0]);
/// let d = compressed_offset(0x00_7f_7f_80);
/// assert!((d[0] - 0.05).abs() < 1e-7 && d[1] == 0.0);
/// ```
#[must_use]
#[inline(always)]
pub fn compressed_offset(ofs_vec: u32) -> [f32; 3] {
    let [x, y, z, _] = ofs_vec.to_le_bytes();
    [x, y, z].map(|b| (f32::from(b) - MDC_MAX_OFS) * MDC_DIST_SCALE)
}

/// One surface of an [`Mdc`]: a mesh with its own shaders, triangles, texture coordinates,
/// base frames (MD3's records) and compressed frames (byte offsets from a base frame), and
/// which of each every frame of the model uses.
#[derive(Debug, Clone, Copy)]
pub struct Surface<'data> {
    pub(super) header: &'data MdcSurface,
    /// Where the surface header starts in the file.
    pub(super) offset: u64,
    pub(super) shaders: &'data [Md3Shader],
    pub(super) triangles: &'data [Md3Triangle],
    pub(super) st: &'data [Md3St],
    /// `num_verts · num_base_frames`, frame-major.
    pub(super) xyz: &'data [Md3XyzNormal],
    /// `num_verts · num_comp_frames`, frame-major.
    pub(super) comp: &'data [MdcXyzCompressed],
    /// Per model frame, its base frame (each below `num_base_frames`).
    pub(super) base_frames: &'data [I16<Le>],
    /// Per model frame, its compressed frame (below `num_comp_frames`), or negative for none.
    pub(super) comp_frames: &'data [I16<Le>],
    pub(super) num_verts: u32,
    /// `num_comp_frames > 0`: without compressed frames the engines ignore the table.
    pub(super) has_comp: bool,
}

impl<'data> Surface<'data> {
    /// The raw surface header.
    #[must_use]
    pub fn header(&self) -> &'data MdcSurface {
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
    /// when it names none.
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

    /// Base frames stored.
    #[must_use]
    pub fn num_base_frames(&self) -> usize {
        self.xyz.len().checked_div(self.num_vertices()).unwrap_or(0)
    }

    /// Compressed frames stored.
    #[must_use]
    pub fn num_comp_frames(&self) -> usize {
        self.comp
            .len()
            .checked_div(self.num_vertices())
            .unwrap_or(0)
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

    /// The base frame model frame `frame` starts from, or `None` out of range.
    #[must_use]
    pub fn base_frame(&self, frame: usize) -> Option<usize> {
        // Validation proved every entry in `0..num_base_frames`.
        Some(self.base_frames.get(frame)?.get() as usize)
    }

    /// The compressed frame model frame `frame` adds to its base frame, or `None` where it
    /// adds none (or is out of range).
    #[must_use]
    pub fn comp_frame(&self, frame: usize) -> Option<usize> {
        if !self.has_comp {
            return None;
        }
        usize::try_from(self.comp_frames.get(frame)?.get()).ok()
    }

    /// Base frame `base`'s vertices as stored (MD3's records), or `None` out of range.
    #[must_use]
    pub fn base_vertices(&self, base: usize) -> Option<&'data [Md3XyzNormal]> {
        let n = self.num_vertices();
        self.xyz
            .get(base.checked_mul(n)?..base.checked_add(1)?.checked_mul(n)?)
    }

    /// Compressed frame `comp`'s vertices as stored, or `None` out of range.
    #[must_use]
    pub fn comp_vertices(&self, comp: usize) -> Option<&'data [MdcXyzCompressed]> {
        let n = self.num_vertices();
        self.comp
            .get(comp.checked_mul(n)?..comp.checked_add(1)?.checked_mul(n)?)
    }

    /// The position of vertex `v` in model frame `frame`, decoded as the engines decode it:
    /// the base frame's `xyz / 64`, plus the compressed frame's offset where there is one.
    #[must_use]
    pub fn position(&self, frame: usize, v: usize) -> Option<[f32; 3]> {
        let base = self.base_vertices(self.base_frame(frame)?)?.get(v)?;
        let p = base.xyz.map(|c| f32::from(c.get()) * MD3_XYZ_SCALE);
        match self.comp_frame(frame) {
            Some(c) => {
                let d = compressed_offset(self.comp_vertices(c)?.get(v)?.ofs_vec.get());
                Some([p[0] + d[0], p[1] + d[1], p[2] + d[2]])
            }
            None => Some(p),
        }
    }

    /// The normal of vertex `v` in model frame `frame`: the compressed vertex's
    /// ([`MDC_NORMALS`]) where the frame has one, else the base vertex's latitude and
    /// longitude.
    #[must_use]
    pub fn normal(&self, frame: usize, v: usize) -> Option<[f32; 3]> {
        let base = self.base_vertices(self.base_frame(frame)?)?.get(v)?;
        match self.comp_frame(frame) {
            Some(c) => {
                let index = self.comp_vertices(c)?.get(v)?.ofs_vec.get() >> 24;
                Some(NORMALS.get(index as u8))
            }
            None => Some(morph::lat_long_normal(base.normal.get())),
        }
    }

    /// Model frame `frame` as the morph kernels read it, zero-copy, where it is a base frame
    /// alone; `None` where it adds a compressed frame (or is out of range).
    #[must_use]
    pub fn packed(&self, frame: usize) -> Option<PackedFrame<'data>> {
        if self.comp_frame(frame).is_some() {
            return None;
        }
        let bytes = self.base_vertices(self.base_frame(frame)?)?.as_bytes();
        Some(PackedFrame::LatLong(
            <[LatLongVertex]>::ref_from_bytes(bytes).ok()?,
        ))
    }

    /// Frames `a` and `b` tweened at `t` into `positions` and `normals`: by the morph kernel
    /// at `level` where both are base frames alone, else decoded and blended vertex by vertex
    /// (`(1 − t)·a + t·b`, the normals blended and renormalised), reading the file's records
    /// directly (nothing is copied).
    ///
    /// # Errors
    ///
    /// [`MorphError::NoFrame`] for a frame out of range, [`MorphError::Output`] for outputs
    /// shorter than the surface's vertices.
    pub fn tween_with_level(
        &self,
        level: SimdLevel,
        [a, b]: [usize; 2],
        t: f32,
        positions: &mut [[f32; 3]],
        normals: &mut [[f32; 3]],
    ) -> Result<(), MorphError> {
        if let (Some(fa), Some(fb)) = (self.packed(a), self.packed(b)) {
            return morph::tween_with_level(level, &UNPACK, fa, fb, t, positions, normals);
        }
        let frame = |f: usize| -> Result<Decoder<'data>, MorphError> {
            let base = self
                .base_frame(f)
                .and_then(|b| self.base_vertices(b))
                .ok_or(MorphError::NoFrame(f))?;
            let comp = match self.comp_frame(f) {
                Some(c) => Some(self.comp_vertices(c).ok_or(MorphError::NoFrame(f))?),
                None => None,
            };
            Ok(Decoder { base, comp })
        };
        let (da, db) = (frame(a)?, frame(b)?);
        let need = self.num_vertices();
        let have = positions.len().min(normals.len());
        if have < need {
            return Err(MorphError::Output { need, have });
        }
        for (v, (p, n)) in positions.iter_mut().zip(normals.iter_mut()).enumerate() {
            let (Some((pa, na)), Some((pb, nb))) = (da.vertex(v), db.vertex(v)) else {
                break;
            };
            *p = core::array::from_fn(|k| pa[k] + t * (pb[k] - pa[k]));
            *n = morph::normalise(core::array::from_fn(|k| na[k] + t * (nb[k] - na[k])));
        }
        Ok(())
    }
}

/// One frame of a surface for the vertex-by-vertex tween: its base vertices and, where it has
/// one, its compressed vertices.
struct Decoder<'data> {
    base: &'data [Md3XyzNormal],
    comp: Option<&'data [MdcXyzCompressed]>,
}

impl Decoder<'_> {
    /// Vertex `v`'s position and normal, as [`Surface::position`] and [`Surface::normal`].
    #[inline(always)]
    fn vertex(&self, v: usize) -> Option<([f32; 3], [f32; 3])> {
        let base = self.base.get(v)?;
        let p = base.xyz.map(|c| f32::from(c.get()) * MD3_XYZ_SCALE);
        match self.comp {
            Some(comp) => {
                let ofs = comp.get(v)?.ofs_vec.get();
                let d = compressed_offset(ofs);
                let n = NORMALS.get((ofs >> 24) as u8);
                Some(([p[0] + d[0], p[1] + d[1], p[2] + d[2]], n))
            }
            None => Some((p, morph::lat_long_normal(base.normal.get()))),
        }
    }
}

/// A tag in one frame: a named point with its axes, what a weapon or a head is attached to.
#[derive(Debug, Clone, Copy)]
pub struct Tag<'data> {
    name: &'data MdcTagName,
    raw: &'data MdcTag,
}

impl<'data> Tag<'data> {
    /// The raw record.
    #[must_use]
    pub fn raw(&self) -> &'data MdcTag {
        self.raw
    }

    /// The name bytes, up to the NUL.
    #[must_use]
    pub fn name(&self) -> &'data [u8] {
        name::trim_nul(&self.name.name)
    }

    /// The position: `xyz / 64`.
    #[must_use]
    pub fn origin(&self) -> [f32; 3] {
        self.raw.xyz.map(|c| f32::from(c.get()) * MD3_XYZ_SCALE)
    }

    /// Pitch, yaw and roll in degrees (`angles · 360 / 32700`).
    #[must_use]
    pub fn angles(&self) -> [f32; 3] {
        self.raw
            .angles
            .map(|a| (f64::from(a.get()) * MDC_TAG_ANGLE_SCALE) as f32)
    }

    /// The axes as the engines build them from the angles (rows: forward, left, up), Quake's
    /// convention: yaw turns about +Z, pitch about the turned +Y (positive pitch looks down),
    /// roll about forward; `left` is the negated "right" vector.
    #[must_use]
    pub fn axis(&self) -> [[f32; 3]; 3] {
        angles_to_axis(self.angles())
    }

    /// The tag in its frame as a [`TagPose`]: its name, origin and the axes of its angles.
    #[must_use]
    pub fn pose(&self) -> TagPose<'data> {
        TagPose {
            name: self.name(),
            origin: self.origin(),
            axis: self.axis(),
        }
    }
}

/// Quake's angles (pitch, yaw, roll, in degrees) as axes: forward, left, up.
fn angles_to_axis([pitch, yaw, roll]: [f32; 3]) -> [[f32; 3]; 3] {
    let sin_cos = |deg: f32| {
        let r = f64::from(deg).to_radians();
        (r.sin() as f32, r.cos() as f32)
    };
    let ((sp, cp), (sy, cy), (sr, cr)) = (sin_cos(pitch), sin_cos(yaw), sin_cos(roll));
    let forward = [cp * cy, cp * sy, -sp];
    let left = [sr * sp * cy - cr * sy, sr * sp * sy + cr * cy, sr * cp];
    let up = [cr * sp * cy + sr * sy, cr * sp * sy - sr * cy, cr * cp];
    [forward, left, up]
}

/// A validated Return to Castle Wolfenstein model (`IDPC`, version 2). `Send`, `Sync`,
/// `Clone`; opening keeps a list of its surfaces (O(surfaces)), nothing per vertex or frame.
///
/// ```
/// use skelmap_core::Parse;
/// use skelmap_core::mdc::{Builder, Mdc};
/// let bytes = Builder::triangle().write();
/// let mdc = Mdc::parse(&bytes)?;
/// assert_eq!((mdc.num_frames(), mdc.surfaces().len(), mdc.num_tags()), (2, 1, 1));
/// assert_eq!(mdc.surfaces()[0].position(0, 1), Some([1.0, 0.0, 0.0]));
/// // Frame 1 adds a compressed offset of (+0.05, 0, 0) to every vertex of base frame 0.
/// let p = mdc.surfaces()[0].position(1, 1).ok_or("vertex 1")?;
/// assert!((p[0] - 1.05).abs() < 1e-6);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Mdc<'data> {
    pub(super) header: &'data MdcHeader,
    pub(super) frames: &'data [Md3Frame],
    pub(super) tag_names: &'data [MdcTagName],
    /// `num_frames · num_tags`, frame-major.
    pub(super) tags: &'data [MdcTag],
    /// The surfaces with vertices, in chain order.
    pub(super) surfaces: Vec<Surface<'data>>,
}

impl<'data> Mdc<'data> {
    /// The raw header.
    #[must_use]
    pub fn header(&self) -> &'data MdcHeader {
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
        self.tag_names.len()
    }

    /// Frame `frame`'s tags.
    pub fn tags(&self, frame: usize) -> impl ExactSizeIterator<Item = Tag<'data>> + Clone + 'data {
        let n = self.num_tags();
        let range = frame.saturating_mul(n)..frame.saturating_add(1).saturating_mul(n);
        self.tags
            .get(range)
            .unwrap_or_default()
            .iter()
            .zip(self.tag_names)
            .map(|(raw, name)| Tag { name, raw })
    }

    /// Tag `index` of frame `frame`.
    #[must_use]
    pub fn tag(&self, frame: usize, index: usize) -> Option<Tag<'data>> {
        let name = self.tag_names.get(index)?;
        let raw = self
            .tags
            .get(frame.checked_mul(self.num_tags())?.checked_add(index)?)?;
        Some(Tag { name, raw })
    }

    /// Tag `index` between frames `a` and `b` at `t` (0 = `a`, 1 = `b`): each frame's angles
    /// made into axes, the origins blended linearly, the axes blended and made orthonormal
    /// again (as [`md3::Md3::tag_at`](crate::md3::Md3::tag_at)). `None` for a tag or frame out
    /// of range.
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

    /// Surface `mesh`'s frames `a` and `b` tweened at `t` ([`Surface::tween_with_level`]).
    ///
    /// # Errors
    ///
    /// [`MorphError::NoMesh`], [`MorphError::NoFrame`] for a surface or frame out of range,
    /// [`MorphError::Output`] for outputs shorter than the surface's vertices.
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
        if a >= self.num_frames() {
            return Err(MorphError::NoFrame(a));
        }
        if b >= self.num_frames() {
            return Err(MorphError::NoFrame(b));
        }
        surface.tween_with_level(level, [a, b], t, positions, normals)
    }
}

/// No bones: an MDC is animated by its frames (its tags are attachments, not bones).
impl<'data> Skeleton<'data> for Mdc<'data> {
    fn skeleton_bones(&self) -> impl ExactSizeIterator<Item = Bone<'data>> + Clone {
        core::iter::empty()
    }
}

/// A mesh per surface, tweened between frames; a material per surface, named by its first
/// shader (or else its name); clips from frame names; tags as attachments.
impl<'data> ModelView<'data> for Mdc<'data> {
    type Mesh<'a>
        = &'a Surface<'data>
    where
        Self: 'a;
    type FrameNames<'a>
        = IndexedNames<'a, 'data, Mdc<'data>>
    where
        Self: 'a;
    type BindMesh<'a>
        = NoMesh
    where
        Self: 'a;

    fn format(&self) -> Format {
        Format::Mdc
    }

    fn conventions(&self) -> Conventions {
        Conventions {
            textures: TextureNames::Shaders,
            ..Conventions::QUAKE
        }
    }

    fn check_animation(&self, diag: &mut Diagnostics) {
        self.check_frames(diag);
    }

    fn num_frames(&self) -> usize {
        self.frames.len()
    }

    fn frame_name(&self, index: usize) -> Option<&[u8]> {
        Some(name::trim_nul(&self.frames.get(index)?.name))
    }

    fn frame_names(&self) -> Self::FrameNames<'_> {
        IndexedNames::new(self)
    }

    fn is_vertex_animated(&self) -> bool {
        true
    }

    fn num_tags(&self) -> usize {
        Mdc::num_tags(self)
    }

    fn tag_name(&self, index: usize) -> Option<&[u8]> {
        Some(name::trim_nul(&self.tag_names.get(index)?.name))
    }

    fn tag_at(&self, a: usize, b: usize, t: f32, index: usize) -> Option<Affine3A> {
        Some(Mdc::tag_at(self, a, b, t, index)?.transform())
    }

    fn stored_bounds(&self) -> Option<Aabb> {
        let [min, max] = self.frames.first()?.bounds.map(|b| b.map(|v| v.get()));
        let finite = min.iter().chain(&max).all(|v| v.is_finite());
        (finite && (0..3).all(|k| min[k] <= max[k])).then_some(Aabb {
            mins: min,
            maxs: max,
        })
    }

    fn num_meshes(&self) -> usize {
        self.surfaces.len()
    }

    fn mesh(&self, index: usize) -> Option<&Surface<'data>> {
        self.surfaces.get(index)
    }

    fn num_materials(&self) -> usize {
        self.surfaces.len()
    }

    fn material(&self, index: usize) -> Option<Material<'_>> {
        Some(Material::plain(self.surfaces.get(index)?.shader_name()))
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
        Ok(self.tween_with_level(level, mesh, a, b, t, positions, normals)?)
    }
}

/// Triangles reversed to counter-clockwise (MDC stores them clockwise); a texture coordinate
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
