//! The validated GameStudio model view, [`Mdl`] (skins, skin vertices, triangles, packed
//! frames), and what it gives [`Model`](crate::Model).

use std::borrow::Cow;

use zerocopy::byteorder::{I32, LittleEndian};
use zerocopy::{FromBytes, IntoBytes};

use super::frames::{Cursor, FrameKind, MdlFrames, MdlKind, frame_parts, frame_size};
use super::raw::{MdlHeader, SkinVertex, Triangle, TrivertxByte, TrivertxWord};
use crate::alias::anorms::NORMAL_TABLE;
use crate::alias::skin::Skin;
use crate::alias::tween::{PackedModel, tween_with_level};
use crate::error::{Error, Result};
use crate::format::Format;
use crate::name;
use crate::skin::SimdLevel;
use crate::skin::morph::{Keyframe, MorphError, NormalTable, PackedFrame, Unpack};
use crate::view::{DeformError, MeshView, TexcoordLayout, VertexAnimated};

/// The MDL version (from the magic).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum MdlVersion {
    /// `MDL3` (A4): byte-packed frames, skins sized by the header.
    Mdl3,
    /// `MDL4` (A5): word-packed frames allowed, skins sized by the header.
    Mdl4,
    /// `MDL5` (A5+): skins carry their size, mips and more pixel formats.
    Mdl5,
}

/// One frame's packed vertices.
#[derive(Debug, Clone, Copy)]
pub enum PackedVertices<'data> {
    /// Type 0: `u8` coordinates.
    Byte(&'data [TrivertxByte]),
    /// Type 2: `u16` coordinates.
    Word(&'data [TrivertxWord]),
}

impl PackedVertices<'_> {
    /// Number of vertices.
    #[must_use]
    pub fn len(&self) -> usize {
        match self {
            PackedVertices::Byte(v) => v.len(),
            PackedVertices::Word(v) => v.len(),
        }
    }

    /// `true` if there are none.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Vertex `i`: packed coordinates and normal index.
    #[must_use]
    pub fn get(&self, i: usize) -> Option<([u16; 3], u8)> {
        match self {
            PackedVertices::Byte(v) => v.get(i).map(|t| (t.v.map(u16::from), t.normal)),
            PackedVertices::Word(v) => v.get(i).map(|t| (t.v.map(|c| c.get()), t.normal)),
        }
    }
}

/// One animation frame.
#[derive(Debug, Clone, Copy)]
pub struct MdlFrame<'data> {
    pub(super) frame_type: i32,
    pub(super) bbox: [([u16; 3], u8); 2],
    pub(super) name: &'data [u8],
    pub(super) vertices: PackedVertices<'data>,
}

impl<'data> MdlFrame<'data> {
    /// The frame type: 0 byte-packed, 2 word-packed.
    #[must_use]
    pub fn frame_type(&self) -> i32 {
        self.frame_type
    }

    /// The packed bounding box `(min, max)` (same packing as the vertices).
    #[must_use]
    pub fn bbox(&self) -> [([u16; 3], u8); 2] {
        self.bbox
    }

    /// The name bytes, up to the first NUL (16-byte field; real files hold garbage here).
    #[must_use]
    pub fn name(&self) -> &'data [u8] {
        name::trim_nul(self.name)
    }

    /// The name as text (invalid UTF-8 replaced).
    #[must_use]
    pub fn name_lossy(&self) -> Cow<'data, str> {
        name::lossy(self.name())
    }

    /// The packed vertices (each normal index < 162).
    #[must_use]
    pub fn vertices(&self) -> PackedVertices<'data> {
        self.vertices
    }
}

impl FrameKind for MdlKind {
    type Frame<'data> = MdlFrame<'data>;
    type Params = u32;

    fn name<'data>(frame: &Self::Frame<'data>) -> &'data [u8] {
        frame.name()
    }

    /// From the frame's type: its head (type, two bounding-box records, name) and vertices.
    #[inline]
    fn size(bytes: &[u8], numverts: u32) -> Option<usize> {
        let (frame_type, _) = I32::<LittleEndian>::read_from_prefix(bytes).ok()?;
        let record = match frame_type.get() {
            0 => size_of::<TrivertxByte>(),
            2 => size_of::<TrivertxWord>(),
            _ => return None,
        };
        frame_size(record, record, numverts)
    }

    /// Reads the frame of `numverts` vertices at `walk` (validation's read, and the
    /// accessors' over validated bytes): its type, two bounding-box records, its name and
    /// its vertices, packed as its type says. Normal indices are left to validation.
    /// Always inlined: validation calls it once per frame, and out of line it cost the
    /// `open_validate` rows of GameStudio MDLs 10-25 %.
    #[inline(always)]
    fn read<'data>(Cursor(walk): Cursor<'_, 'data>, numverts: u32) -> Result<MdlFrame<'data>> {
        let at = walk.offset();
        let frame_type = walk.read::<I32<LittleEndian>>("frame.type")?.get();
        Ok(match frame_type {
            0 => {
                let (bbox, name, v) = frame_parts::<TrivertxByte>(walk, numverts)?;
                let b = |t: &TrivertxByte| (t.v.map(u16::from), t.normal);
                MdlFrame {
                    frame_type,
                    bbox: bbox.each_ref().map(b),
                    name,
                    vertices: PackedVertices::Byte(v),
                }
            }
            2 => {
                let (bbox, name, v) = frame_parts::<TrivertxWord>(walk, numverts)?;
                let b = |t: &TrivertxWord| (t.v.map(|c| c.get()), t.normal);
                MdlFrame {
                    frame_type,
                    bbox: bbox.each_ref().map(b),
                    name,
                    vertices: PackedVertices::Word(v),
                }
            }
            t => {
                return Err(Error::Unsupported {
                    format: Format::Mdl,
                    what: "frame.type",
                    offset: at,
                    value: t.into(),
                    supported: "frames are type 0 (byte) or 2 (word)",
                });
            }
        })
    }
}

/// A validated GameStudio MDL3/4/5 model. `Send`, `Sync`, `Clone` (it owns a small index of
/// its skins, built once at open; frames are found in the file on each access).
#[derive(Debug, Clone)]
pub struct Mdl<'data> {
    pub(super) version: MdlVersion,
    pub(super) header: &'data MdlHeader,
    pub(super) skins: Vec<Skin<'data>>,
    pub(super) skin_vertices: &'data [SkinVertex],
    pub(super) triangles: &'data [Triangle],
    pub(super) frames: MdlFrames<'data>,
    /// Where each frame starts, for frames of mixed sizes: made on the first look-up of a
    /// frame ([`Mdl::indexed_frames`]), so that finding every frame in turn is not a walk
    /// each.
    pub(super) frame_starts: std::sync::OnceLock<Vec<u32>>,
}

impl<'data> Mdl<'data> {
    /// The version.
    #[must_use]
    pub fn version(&self) -> MdlVersion {
        self.version
    }

    /// The raw header.
    #[must_use]
    pub fn header(&self) -> &'data MdlHeader {
        self.header
    }

    /// Vertex scale: position = scale · packed + origin.
    #[must_use]
    pub fn scale(&self) -> [f32; 3] {
        self.header.scale.map(|v| v.get())
    }

    /// Vertex origin (`scale_origin`).
    #[must_use]
    pub fn origin(&self) -> [f32; 3] {
        self.header.scale_origin.map(|v| v.get())
    }

    /// Vertices per frame.
    #[must_use]
    pub fn num_vertices(&self) -> usize {
        self.header.numverts.get() as usize
    }

    /// The skins.
    #[must_use]
    pub fn skins(&self) -> &[Skin<'data>] {
        &self.skins
    }

    /// The skin vertices, raw texel units `(u, v)` (may lie outside the skin).
    pub fn skin_vertices(&self) -> impl ExactSizeIterator<Item = [i16; 2]> + Clone + 'data {
        self.skin_vertices.iter().map(|s| [s.u.get(), s.v.get()])
    }

    /// Skin vertex `i` as a UV in `0..=1` over a `width × height` skin: `(u / width, v / height)`
    /// with `v` pointing down the image, as the texels are stored (no half-texel shift, no
    /// flip: the loaders disagree, so this helper does the plain division).
    #[must_use]
    pub fn normalised_uv(&self, i: usize, width: u32, height: u32) -> Option<[f32; 2]> {
        let s = self.skin_vertices.get(i)?;
        Some([
            f32::from(s.u.get()) / width.max(1) as f32,
            f32::from(s.v.get()) / height.max(1) as f32,
        ])
    }

    /// The triangles: `(3D vertex indices, skin vertex indices)`, as stored.
    pub fn triangles(&self) -> impl ExactSizeIterator<Item = ([u16; 3], [u16; 3])> + Clone + 'data {
        self.triangles
            .iter()
            .map(|t| (t.index_xyz.map(|v| v.get()), t.index_uv.map(|v| v.get())))
    }

    /// Triangle `i`: `(3D vertex indices, skin vertex indices)`, or `None` out of range.
    #[must_use]
    pub fn triangle(&self, i: usize) -> Option<([u16; 3], [u16; 3])> {
        self.triangles
            .get(i)
            .map(|t| (t.index_xyz.map(|v| v.get()), t.index_uv.map(|v| v.get())))
    }

    /// The texel size skin vertices are measured against: the first skin's, else the
    /// header's (`(1, 1)` when neither is positive).
    #[must_use]
    pub fn skin_size(&self) -> (u32, u32) {
        match self.skins.first() {
            Some(s) => (s.width(), s.height()),
            None => (
                u32::try_from(self.header.skinwidth.get()).unwrap_or(1),
                u32::try_from(self.header.skinheight.get()).unwrap_or(1),
            ),
        }
    }

    /// The frames (see [`Frames`](super::Frames) for the cost of finding one).
    #[must_use]
    pub fn frames(&self) -> MdlFrames<'data> {
        self.frames
    }

    /// [`Mdl::frames`] with, where byte and word frames mix, the table of where each starts,
    /// made on the first [`Frames::get`](super::Frames::get), which is then a look-up.
    ///
    /// ```
    /// use skelmap_core::Parse;
    /// use skelmap_core::gamestudio::Mdl;
    /// use skelmap_core::gamestudio::write::{MdlBuilder, MdlFrameDef};
    /// let frame = |frame_type, name: &str| MdlFrameDef {
    ///     frame_type,
    ///     name: name.into(),
    ///     vertices: vec![([0, 0, 0], 0), ([4, 0, 0], 0), ([0, 4, 0], 0)],
    /// };
    /// let bytes = MdlBuilder {
    ///     version: 5,
    ///     triangles: vec![([0, 1, 2], [0, 0, 0])],
    ///     skin_vertices: vec![[0, 0]],
    ///     frames: vec![frame(2, "stand"), frame(0, "walk1"), frame(2, "walk2")],
    ///     ..MdlBuilder::default()
    /// }
    /// .write();
    /// let mdl = Mdl::parse(&bytes)?;
    /// assert_eq!(mdl.indexed_frames().get(2).map(|f| f.name()), Some(&b"walk2"[..]));
    /// # Ok::<(), skelmap_core::Error>(())
    /// ```
    #[must_use]
    pub fn indexed_frames(&self) -> MdlFrames<'_> {
        if self.frames.is_uniform() {
            return self.frames;
        }
        self.frames.with_starts(&self.frame_starts)
    }
}

impl<'data> PackedVertices<'data> {
    /// The records as the morph kernels read them (a zero-copy view of the same bytes).
    #[must_use]
    pub fn packed(&self) -> PackedFrame<'data> {
        match *self {
            PackedVertices::Byte(v) => {
                PackedFrame::Bytes(<[[u8; 4]]>::ref_from_bytes(v.as_bytes()).unwrap_or_default())
            }
            PackedVertices::Word(v) => {
                PackedFrame::Words(<[[u8; 8]]>::ref_from_bytes(v.as_bytes()).unwrap_or_default())
            }
        }
    }
}

impl PackedModel for Mdl<'_> {
    /// The scale, origin and normal table that unpack this model's frames.
    fn unpack(&self) -> Unpack<'static> {
        Unpack {
            scale: self.scale(),
            offset: self.origin(),
            normals: &NORMAL_TABLE,
        }
    }

    /// Frame `i`'s packed vertices, or [`MorphError::NoFrame`].
    fn packed_frame(&self, i: usize) -> Result<PackedFrame<'_>, MorphError> {
        let frame = self.indexed_frames().get(i).ok_or(MorphError::NoFrame(i))?;
        Ok(frame.vertices().packed())
    }
}

/// One mesh, tweened between frames; a material per skin.
impl<'data> VertexAnimated<'data> for Mdl<'data> {
    type Mesh<'a>
        = &'a Mdl<'data>
    where
        Self: 'a;
    type Frames<'a>
        = MdlFrames<'a>
    where
        Self: 'a;

    fn format(&self) -> Format {
        Format::Mdl
    }

    fn the_mesh(&self) -> &Mdl<'data> {
        self
    }

    fn frame_list(&self) -> MdlFrames<'_> {
        self.indexed_frames()
    }

    fn skins(&self) -> &[Skin<'_>] {
        &self.skins
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
        Ok(tween_with_level(self, level, a, b, t, positions, normals)?)
    }

    fn keyframe(&self, frame: usize) -> Option<(Keyframe<'_>, &'static NormalTable)> {
        PackedModel::keyframe(self, frame)
    }
}

/// Texture coordinates per triangle corner: skin vertices over the skin's size.
impl<'a, 'data: 'a> MeshView<'a> for &'a Mdl<'data> {
    fn num_vertices(&self) -> usize {
        Mdl::num_vertices(self)
    }

    fn num_triangles(&self) -> usize {
        self.triangles.len()
    }

    fn triangle(&self, i: usize) -> Option<[u32; 3]> {
        Mdl::triangle(self, i).map(|(xyz, _)| xyz.map(u32::from))
    }

    fn texcoord_layout(&self) -> TexcoordLayout {
        // Without skin vertices an MDL's UV indices mean nothing (validation ignores them).
        if self.skin_vertices.is_empty() {
            TexcoordLayout::None
        } else {
            TexcoordLayout::PerCorner
        }
    }

    fn corner_texcoords(&self, t: usize) -> Option<[[f32; 2]; 3]> {
        let (_, st) = Mdl::triangle(self, t)?;
        let (width, height) = self.skin_size();
        let uv = |k: usize| self.normalised_uv(usize::from(st[k]), width, height);
        Some([uv(0)?, uv(1)?, uv(2)?])
    }

    fn material(&self, _: usize) -> Option<usize> {
        (!self.skins.is_empty()).then_some(0)
    }
}
