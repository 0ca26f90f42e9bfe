//! The validated view: [`Md2`], its skin names, texture coordinates, triangles, [`Frames`]
//! and [`GlCommands`].

use core::fmt;
use core::iter::FusedIterator;
use std::borrow::Cow;

use zerocopy::byteorder::{I32, LittleEndian};
use zerocopy::{FromBytes, IntoBytes};

use super::raw::{DaliasFrame, Dmdl, Dstvert, Dtriangle, Dtrivertx, GlVertex, SkinName};
use crate::alias::Skin;
use crate::alias::anorms::{NORMALS, NUM_NORMALS};
use crate::format::Format;
use crate::name;
use crate::skin::SimdLevel;
use crate::skin::morph::{self, Keyframe, MorphError, NormalTable, PackedFrame};
use crate::view::{DeformError, FrameList, Material, MeshView, TexcoordLayout, VertexAnimated};

type Le = LittleEndian;

/// The 162 normals as an MD2's frames read them: an index past the table reads the first
/// entry, as DarkPlaces reads it (`Mod_ConvertAliasVerts`).
pub static NORMAL_TABLE: NormalTable = NormalTable::new(&normals_or_first());

/// [`NORMALS`] padded to 256 rows with its first.
const fn normals_or_first() -> [[f32; 3]; 256] {
    let mut rows = [NORMALS[0]; 256];
    let mut i = 0;
    while i < NUM_NORMALS {
        rows[i] = NORMALS[i];
        i += 1;
    }
    rows
}

/// One frame: its scale, translate and name, and its packed vertices.
#[derive(Debug, Clone, Copy)]
pub struct Frame<'data> {
    header: &'data DaliasFrame,
    vertices: &'data [Dtrivertx],
}

impl<'data> Frame<'data> {
    /// The raw frame header (scale, translate, name).
    #[must_use]
    pub fn header(&self) -> &'data DaliasFrame {
        self.header
    }

    /// The name bytes, up to the first NUL.
    #[must_use]
    pub fn name(&self) -> &'data [u8] {
        name::trim_nul(&self.header.name)
    }

    /// The name as text.
    #[must_use]
    pub fn name_lossy(&self) -> Cow<'data, str> {
        name::lossy(self.name())
    }

    /// The scale of the packed coordinates.
    #[must_use]
    pub fn scale(&self) -> [f32; 3] {
        self.header.scale.map(|v| v.get())
    }

    /// What is added after scaling.
    #[must_use]
    pub fn translate(&self) -> [f32; 3] {
        self.header.translate.map(|v| v.get())
    }

    /// The packed vertices (`num_xyz` of them).
    #[must_use]
    pub fn vertices(&self) -> &'data [Dtrivertx] {
        self.vertices
    }

    /// The position of vertex `v`: `scale · packed + translate`.
    #[must_use]
    pub fn position(&self, v: usize) -> Option<[f32; 3]> {
        let p = self.vertices.get(v)?;
        let (scale, translate) = (self.scale(), self.translate());
        Some(core::array::from_fn(|k| {
            scale[k] * f32::from(p.v[k]) + translate[k]
        }))
    }

    /// The normal of vertex `v` ([`NORMAL_TABLE`]: an index past the 162 reads the first).
    #[must_use]
    pub fn normal(&self, v: usize) -> Option<[f32; 3]> {
        Some(NORMAL_TABLE.get(self.vertices.get(v)?.lightnormalindex))
    }

    /// The frame as the morph kernels read it: its vertices (a zero-copy view of the same
    /// bytes) with its own scale and translate.
    #[must_use]
    pub fn keyframe(&self) -> Keyframe<'data> {
        Keyframe {
            frame: PackedFrame::Bytes(
                <[[u8; 4]]>::ref_from_bytes(self.vertices.as_bytes()).unwrap_or_default(),
            ),
            scale: self.scale(),
            offset: self.translate(),
        }
    }
}

/// The frames of an [`Md2`], found in the file by index (O(1), `framesize` apart): opening
/// keeps no table of them.
#[derive(Clone, Copy)]
pub struct Frames<'data> {
    /// Every frame's bytes.
    bytes: &'data [u8],
    /// Bytes from one frame to the next.
    stride: u32,
    len: u32,
    num_xyz: u32,
}

impl<'data> Frames<'data> {
    /// `len` validated frames of `num_xyz` vertices, `stride` bytes apart in `bytes`.
    pub(super) fn new(bytes: &'data [u8], stride: u32, len: u32, num_xyz: u32) -> Self {
        Frames {
            bytes,
            stride,
            len,
            num_xyz,
        }
    }

    /// Number of frames.
    #[must_use]
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// `true` if there are none.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes from one frame to the next (the header's `framesize`).
    #[must_use]
    pub fn stride(&self) -> u32 {
        self.stride
    }

    /// Frame `i`, or `None` out of range.
    #[must_use]
    pub fn get(&self, i: usize) -> Option<Frame<'data>> {
        if i >= self.len() {
            return None;
        }
        let bytes = self.bytes.get(i.checked_mul(self.stride as usize)?..)?;
        let (header, rest) = DaliasFrame::ref_from_prefix(bytes).ok()?;
        let (vertices, _) =
            <[Dtrivertx]>::ref_from_prefix_with_elems(rest, self.num_xyz as usize).ok()?;
        Some(Frame { header, vertices })
    }

    /// The frames in order.
    #[must_use]
    pub fn iter(&self) -> FrameIter<'data> {
        FrameIter {
            frames: *self,
            next: 0..self.len,
        }
    }
}

impl fmt::Debug for Frames<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Frames")
            .field("len", &self.len)
            .field("stride", &self.stride)
            .field("num_xyz", &self.num_xyz)
            .finish()
    }
}

/// The iterator of [`Frames::iter`].
#[derive(Debug, Clone)]
pub struct FrameIter<'data> {
    frames: Frames<'data>,
    next: core::ops::Range<u32>,
}

impl<'data> Iterator for FrameIter<'data> {
    type Item = Frame<'data>;

    fn next(&mut self) -> Option<Frame<'data>> {
        let i = self.next.next()?;
        self.frames.get(i as usize)
    }

    fn nth(&mut self, n: usize) -> Option<Frame<'data>> {
        let i = self.next.nth(n)?;
        self.frames.get(i as usize)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.next.size_hint()
    }
}

impl ExactSizeIterator for FrameIter<'_> {}

impl FusedIterator for FrameIter<'_> {}

impl<'a> FrameList<'a> for Frames<'a> {
    type Frame = Frame<'a>;
    type Iter = FrameIter<'a>;

    fn count(&self) -> usize {
        self.len()
    }

    fn frame(&self, i: usize) -> Option<Frame<'a>> {
        self.get(i)
    }

    fn walk(&self) -> FrameIter<'a> {
        self.iter()
    }

    fn name(frame: &Frame<'a>) -> &'a [u8] {
        frame.name()
    }
}

/// One GL command: a triangle strip or fan over vertices that carry their own texture
/// coordinates.
#[derive(Debug, Clone, Copy)]
pub struct GlCommand<'data> {
    /// `true` for a fan, `false` for a strip.
    pub fan: bool,
    /// The vertices: `s`, `t` (0 to 1, down the image) and a vertex index below `num_xyz`.
    pub vertices: &'data [GlVertex],
}

/// The GL command list of an [`Md2`] (validated: every command inside the list, every vertex
/// index in range), one command at a time up to its terminating 0.
#[derive(Debug, Clone)]
pub struct GlCommands<'data> {
    words: &'data [I32<Le>],
}

impl<'data> Iterator for GlCommands<'data> {
    type Item = GlCommand<'data>;

    fn next(&mut self) -> Option<GlCommand<'data>> {
        let (count, rest) = self.words.split_first()?;
        let count = count.get();
        let n = count.unsigned_abs() as usize;
        let need = n.checked_mul(size_of::<GlVertex>() / size_of::<I32<Le>>())?;
        let (Some(vertices), Some(rest)) = (rest.get(..need), rest.get(need..)) else {
            self.words = &[];
            return None;
        };
        if count == 0 {
            self.words = &[];
            return None;
        }
        self.words = rest;
        let vertices = <[GlVertex]>::ref_from_bytes(vertices.as_bytes()).unwrap_or_default();
        Some(GlCommand {
            fan: count < 0,
            vertices,
        })
    }
}

impl FusedIterator for GlCommands<'_> {}

/// A validated Quake II model (`IDP2`, version 8). `Send`, `Sync`, `Clone`; opening allocates
/// nothing: skins, texture coordinates, triangles, frames and commands are all read in place.
///
/// ```
/// use skelmap_core::Parse;
/// use skelmap_core::md2::{Builder, Md2};
/// let bytes = Builder::triangle().write();
/// let md2 = Md2::parse(&bytes)?;
/// assert_eq!((md2.num_vertices(), md2.num_triangles(), md2.frames().len()), (3, 1, 1));
/// assert_eq!(md2.frames().get(0).and_then(|f| f.position(1)), Some([1.0, 0.0, 0.0]));
/// assert_eq!(md2.skin_names().next(), Some(&b"models/test/skin.pcx"[..]));
/// # Ok::<(), skelmap_core::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Md2<'data> {
    pub(super) header: &'data Dmdl,
    pub(super) skins: &'data [SkinName],
    pub(super) st: &'data [Dstvert],
    pub(super) triangles: &'data [Dtriangle],
    pub(super) frames: Frames<'data>,
    pub(super) glcmds: &'data [I32<Le>],
}

impl<'data> Md2<'data> {
    /// The raw header.
    #[must_use]
    pub fn header(&self) -> &'data Dmdl {
        self.header
    }

    /// The skin size texture coordinates divide by, `(skinwidth, skinheight)`; 0 for a side
    /// that is not positive.
    #[must_use]
    pub fn skin_size(&self) -> (u32, u32) {
        let size = |v: &I32<Le>| u32::try_from(v.get()).unwrap_or(0);
        (size(&self.header.skinwidth), size(&self.header.skinheight))
    }

    /// The skin names (paths such as `models/monsters/tank/skin.pcx`), each up to its NUL.
    pub fn skin_names(&self) -> impl ExactSizeIterator<Item = &'data [u8]> + Clone + 'data {
        self.skins.iter().map(|s| name::trim_nul(&s.name))
    }

    /// Vertices per frame.
    #[must_use]
    pub fn num_vertices(&self) -> usize {
        self.frames.num_xyz as usize
    }

    /// Triangles.
    #[must_use]
    pub fn num_triangles(&self) -> usize {
        self.triangles.len()
    }

    /// The texture coordinates in texels, `(s, t)`.
    pub fn st(&self) -> impl ExactSizeIterator<Item = (i16, i16)> + Clone + 'data {
        self.st.iter().map(|v| (v.s.get(), v.t.get()))
    }

    /// Triangle `i` as stored: its vertex indices (clockwise seen from the front, Quake's
    /// winding) and its corners' texture coordinate indices.
    #[must_use]
    pub fn triangle(&self, i: usize) -> Option<([u32; 3], [u32; 3])> {
        let t = self.triangles.get(i)?;
        Some((
            t.index_xyz.map(|v| u32::from(v.get())),
            t.index_st.map(|v| u32::from(v.get())),
        ))
    }

    /// The texture coordinates of triangle `i`'s corners (in stored order): `s / skinwidth`,
    /// `t / skinheight` (`v` down the image), as DarkPlaces and assimp compute them; `None`
    /// out of range or where the skin has no size.
    #[must_use]
    pub fn corner_texcoords(&self, i: usize) -> Option<[[f32; 2]; 3]> {
        let (_, st) = self.triangle(i)?;
        let (w, h) = self.skin_size();
        if w == 0 || h == 0 {
            return None;
        }
        let uv = |k: u32| {
            let v = self.st.get(k as usize)?;
            Some([
                f32::from(v.s.get()) / w as f32,
                f32::from(v.t.get()) / h as f32,
            ])
        };
        Some([uv(st[0])?, uv(st[1])?, uv(st[2])?])
    }

    /// The frames.
    #[must_use]
    pub fn frames(&self) -> Frames<'data> {
        self.frames
    }

    /// The GL command list, which Quake II draws the model from.
    #[must_use]
    pub fn gl_commands(&self) -> GlCommands<'data> {
        GlCommands { words: self.glcmds }
    }

    /// Frames `a` and `b` tweened at `t` (0 = `a`, 1 = `b`) by the morph kernel at `level`,
    /// each frame unpacked with its own scale and translate and the positions blended
    /// ([`morph::tween_keyframes_with_level`]: the same bits at every level).
    ///
    /// # Errors
    ///
    /// [`MorphError::NoFrame`] for a frame out of range, [`MorphError::Output`] for outputs
    /// shorter than the vertices.
    #[allow(clippy::too_many_arguments)]
    pub fn tween_with_level(
        &self,
        level: SimdLevel,
        a: usize,
        b: usize,
        t: f32,
        positions: &mut [[f32; 3]],
        normals: &mut [[f32; 3]],
    ) -> Result<(), MorphError> {
        let ka = self.frames.get(a).ok_or(MorphError::NoFrame(a))?.keyframe();
        let kb = self.frames.get(b).ok_or(MorphError::NoFrame(b))?.keyframe();
        morph::tween_keyframes_with_level(level, &NORMAL_TABLE, ka, kb, t, positions, normals)
    }
}

/// One mesh, tweened between frames; clips from frame names; a material per skin name.
impl<'data> VertexAnimated<'data> for Md2<'data> {
    type Mesh<'a>
        = &'a Md2<'data>
    where
        Self: 'a;
    type Frames<'a>
        = Frames<'a>
    where
        Self: 'a;

    fn format(&self) -> Format {
        Format::Md2
    }

    fn the_mesh(&self) -> &Md2<'data> {
        self
    }

    fn frame_list(&self) -> Frames<'_> {
        self.frames
    }

    /// None: an MD2 names its skins ([`Md2::skin_names`]), it embeds none.
    fn skins(&self) -> &[Skin<'_>] {
        &[]
    }

    fn num_materials(&self) -> usize {
        self.skins.len()
    }

    fn material(&self, index: usize) -> Option<Material<'_>> {
        Some(Material::plain(name::trim_nul(
            &self.skins.get(index)?.name,
        )))
    }

    fn tween(
        &self,
        a: usize,
        b: usize,
        t: f32,
        level: SimdLevel,
        positions: &mut [[f32; 3]],
        normals: &mut [[f32; 3]],
    ) -> Result<(), DeformError> {
        Ok(self.tween_with_level(level, a, b, t, positions, normals)?)
    }

    fn keyframe(&self, frame: usize) -> Option<(Keyframe<'_>, &'static NormalTable)> {
        Some((self.frames().frame(frame)?.keyframe(), &NORMAL_TABLE))
    }
}

/// Triangles reversed to counter-clockwise (MD2 stores them clockwise); a texture coordinate
/// per corner (each corner names its own); drawn with the first skin.
impl<'a, 'data: 'a> MeshView<'a> for &'a Md2<'data> {
    fn num_vertices(&self) -> usize {
        Md2::num_vertices(self)
    }

    fn num_triangles(&self) -> usize {
        Md2::num_triangles(self)
    }

    fn triangle(&self, i: usize) -> Option<[u32; 3]> {
        Md2::triangle(self, i).map(|([a, b, c], _)| [c, b, a])
    }

    fn texcoord_layout(&self) -> TexcoordLayout {
        match self.skin_size() {
            (0, _) | (_, 0) => TexcoordLayout::None,
            _ => TexcoordLayout::PerCorner,
        }
    }

    fn corner_texcoords(&self, t: usize) -> Option<[[f32; 2]; 3]> {
        Md2::corner_texcoords(self, t).map(|[a, b, c]| [c, b, a])
    }

    fn material(&self, _: usize) -> Option<usize> {
        (!self.skins.is_empty()).then_some(0)
    }
}
