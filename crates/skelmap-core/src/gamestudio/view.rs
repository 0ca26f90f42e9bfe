//! The validated GameStudio views and their accessors: [`Mdl`] (skins, skin vertices,
//! triangles, packed frames) and [`Hmp`] (skins, height frames, the grid mesh).

use core::fmt;
use core::iter::FusedIterator;
use std::borrow::Cow;

use zerocopy::FromBytes;
use zerocopy::byteorder::{I32, LittleEndian};

use super::raw::{
    Hmp5Vertex, Hmp7Vertex, HmpHeader, MdlHeader, SkinVertex, Triangle, TrivertxByte, TrivertxWord,
};
use crate::alias::anorms::NORMALS;
use crate::alias::skin::Skin;
use crate::error::{Error, Result};
use crate::format::Format;
use crate::name;
use crate::read::{Raw, Walk};
use crate::skin::morph::{MorphError, normalise};

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
    #[inline]
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

/// The bytes of a frame's name.
const FRAME_NAME: usize = 16;

/// Where a frame's vertices start: after its type, two bounding-box records of `bbox` bytes
/// and its name.
pub(super) const fn head_size(bbox: usize) -> usize {
    size_of::<I32<LittleEndian>>() + 2 * bbox + FRAME_NAME
}

/// A frame's size: its head ([`head_size`]) and `numverts` vertices of `vertex` bytes.
fn frame_size(bbox: usize, vertex: usize, numverts: u32) -> Option<usize> {
    (numverts as usize)
        .checked_mul(vertex)?
        .checked_add(head_size(bbox))
}

/// A frame after its type: two bounding-box records, the name, `numverts` vertices.
fn frame_parts<'data, T: Raw>(
    walk: &mut Walk<'data>,
    numverts: u32,
) -> Result<(&'data [T; 2], &'data [u8], &'data [T])> {
    let (bbox, name) = frame_head::<T>(walk)?;
    let vertices = walk.read_slice::<T>("frame.vertices", numverts.into())?;
    Ok((bbox, name, vertices))
}

/// A frame's two bounding-box records of type `T`, then its name.
fn frame_head<'data, T: Raw>(walk: &mut Walk<'data>) -> Result<(&'data [T; 2], &'data [u8])> {
    let bbox = walk.read::<[T; 2]>("frame.bbox")?;
    let name = walk.read_slice::<u8>("frame.name", FRAME_NAME as u64)?;
    Ok((bbox, name))
}

/// The frames of an [`Mdl`] ([`MdlFrames`]) or an [`Hmp`] ([`HmpFrames`]), read from the
/// file on each access: opening keeps no table of them, so it allocates nothing per frame.
///
/// [`Frames::get`] finds a frame in O(1) when every frame has one size (every HMP, and every
/// MDL whose frames share a type, as every known file does); an MDL that mixes byte and word
/// frames is walked from its first frame. Iterating is O(1) a frame either way.
///
/// ```
/// use skelmap_core::Parse;
/// use skelmap_core::gamestudio::Mdl;
/// use skelmap_core::gamestudio::write::{ModelBuilder, MdlFrameDef};
/// let frame = |frame_type, name: &str| MdlFrameDef {
///     frame_type, // 0: byte-packed, 2: word-packed
///     name: name.into(),
///     vertices: vec![([0, 0, 0], 0), ([4, 0, 0], 0), ([0, 4, 0], 0)],
/// };
/// let bytes = ModelBuilder {
///     version: 5,
///     triangles: vec![([0, 1, 2], [0, 0, 0])],
///     skin_vertices: vec![[0, 0]],
///     frames: vec![frame(2, "stand"), frame(0, "walk1"), frame(2, "walk2")],
///     ..ModelBuilder::default()
/// }
/// .write();
/// let mdl = Mdl::parse(&bytes)?;
/// let frames = mdl.frames(); // found in the file, nothing copied
/// assert_eq!(frames.len(), 3);
/// assert_eq!(frames.get(1).map(|f| f.name()), Some(&b"walk1"[..]));
/// let names: Vec<_> = frames.iter().map(|f| f.name_lossy()).collect();
/// assert_eq!(names, ["stand", "walk1", "walk2"]);
/// # Ok::<(), skelmap_core::Error>(())
/// ```
pub struct Frames<'data, K: FrameKind> {
    /// At the first frame.
    walk: Walk<'data>,
    len: u32,
    params: K::Params,
    /// The size of every frame, when all have one.
    stride: Option<usize>,
}

pub(super) use sealed::{Cursor, FrameKind, HmpKind, MdlKind};

mod sealed {
    use super::{Result, Walk};

    /// Where a frame is read from: the walk over the file, at the frame.
    #[derive(Debug)]
    pub struct Cursor<'a, 'data>(pub(in crate::gamestudio) &'a mut Walk<'data>);

    /// The frames a [`Frames`](super::Frames) holds: how one is read. (Sealed: only the
    /// GameStudio frames implement it.)
    pub trait FrameKind {
        /// The frame.
        type Frame<'data>;
        /// What reading a frame needs besides its bytes.
        type Params: Copy;

        /// Reads the frame at `walk` and moves past it.
        fn read<'data>(at: Cursor<'_, 'data>, params: Self::Params) -> Result<Self::Frame<'data>>;

        /// The size of the frame that starts `bytes`, read from as little of it as tells.
        fn size(bytes: &[u8], params: Self::Params) -> Option<usize>;
    }

    /// MDL frames ([`MdlFrame`](super::MdlFrame)).
    #[derive(Debug, Clone, Copy)]
    pub struct MdlKind;

    /// HMP frames ([`HmpFrame`](super::HmpFrame)).
    #[derive(Debug, Clone, Copy)]
    pub struct HmpKind;
}

impl<'data, K: FrameKind> Clone for Frames<'data, K> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<'data, K: FrameKind> Copy for Frames<'data, K> {}

/// The frames of an [`Mdl`].
pub type MdlFrames<'data> = Frames<'data, MdlKind>;

/// The frames of an [`Hmp`].
pub type HmpFrames<'data> = Frames<'data, HmpKind>;

/// The iterator of [`MdlFrames::iter`].
pub type MdlFrameIter<'data> = FrameIter<'data, MdlKind>;

/// The iterator of [`HmpFrames::iter`].
pub type HmpFrameIter<'data> = FrameIter<'data, HmpKind>;

impl<'data, K: FrameKind> Frames<'data, K> {
    /// `len` validated frames from `walk` on, each read with `params`, all `stride` bytes
    /// long if they have one size.
    pub(super) fn new(
        walk: Walk<'data>,
        len: u32,
        params: K::Params,
        stride: Option<usize>,
    ) -> Self {
        Frames {
            walk,
            len,
            params,
            stride,
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

    /// Frame `i`, or `None` out of range.
    #[must_use]
    pub fn get(&self, i: usize) -> Option<K::Frame<'data>> {
        if i >= self.len() {
            return None;
        }
        match self.stride {
            Some(stride) => {
                let mut walk = self.walk;
                walk.skip(i.checked_mul(stride)?);
                K::read(Cursor(&mut walk), self.params).ok()
            }
            None => self.iter().nth(i),
        }
    }

    /// When every frame has one size: the `len` bytes `head` bytes into each frame, in file
    /// order (a frame's vertices, for validation to scan without reading each frame again).
    pub(super) fn uniform_parts(
        &self,
        head: usize,
        len: usize,
    ) -> Option<impl Iterator<Item = &'data [u8]> + use<'data, K>> {
        let (stride, bytes) = (self.stride?, self.walk.rest());
        let part = move |k: usize| bytes.get(k * stride + head..)?.get(..len);
        Some((0..self.len()).map_while(part))
    }

    /// The frames in file order.
    #[must_use]
    pub fn iter(&self) -> FrameIter<'data, K> {
        FrameIter {
            frames: *self,
            left: self.len,
        }
    }
}

impl<'data, K: FrameKind> fmt::Debug for Frames<'data, K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Frames")
            .field("len", &self.len)
            .field("offset", &self.walk.offset())
            .field("stride", &self.stride)
            .finish()
    }
}

impl<'data, K: FrameKind> IntoIterator for Frames<'data, K> {
    type Item = K::Frame<'data>;
    type IntoIter = FrameIter<'data, K>;

    fn into_iter(self) -> FrameIter<'data, K> {
        self.iter()
    }
}

/// The iterator of [`Frames::iter`].
#[derive(Debug, Clone)]
pub struct FrameIter<'data, K: FrameKind> {
    /// The frames not yet read: `walk` at the next.
    frames: Frames<'data, K>,
    left: u32,
}

impl<'data, K: FrameKind> Iterator for FrameIter<'data, K> {
    type Item = K::Frame<'data>;

    fn next(&mut self) -> Option<K::Frame<'data>> {
        self.left = self.left.checked_sub(1)?;
        let frames = &mut self.frames;
        let frame = K::read(Cursor(&mut frames.walk), frames.params).ok();
        if frame.is_none() {
            // Validated frames always read; stop rather than loop on bytes that do not.
            self.left = 0;
        }
        frame
    }

    /// Steps over `n` frames reading only what gives each one's size.
    fn nth(&mut self, n: usize) -> Option<K::Frame<'data>> {
        let frames = &mut self.frames;
        for _ in 0..n {
            self.left = self.left.checked_sub(1)?;
            match K::size(frames.walk.rest(), frames.params) {
                Some(size) => frames.walk.skip(size),
                None => self.left = 0,
            }
        }
        self.next()
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left as usize, Some(self.left as usize))
    }
}

impl<'data, K: FrameKind> ExactSizeIterator for FrameIter<'data, K> {}

impl<'data, K: FrameKind> FusedIterator for FrameIter<'data, K> {}

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

    /// Vertex scale: position = scale · packed + offset.
    #[must_use]
    pub fn scale(&self) -> [f32; 3] {
        self.header.scale.map(|v| v.get())
    }

    /// Vertex offset.
    #[must_use]
    pub fn offset(&self) -> [f32; 3] {
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

    /// The frames (see [`Frames`] for the cost of finding one).
    #[must_use]
    pub fn frames(&self) -> MdlFrames<'data> {
        self.frames
    }
}

/// The HMP version (from the magic).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HmpVersion {
    /// `HMP5`: normal indices into the 162-entry table.
    Hmp5,
    /// `HMP7`: normals as two `i8` components.
    Hmp7,
}

#[derive(Debug, Clone, Copy)]
pub(super) enum Heights<'data> {
    V5(&'data [Hmp5Vertex]),
    V7(&'data [Hmp7Vertex]),
}

/// One terrain frame.
#[derive(Debug, Clone, Copy)]
pub struct HmpFrame<'data> {
    pub(super) frame_type: i32,
    pub(super) name: &'data [u8],
    pub(super) heights: Heights<'data>,
}

impl<'data> HmpFrame<'data> {
    /// The frame type (2 in every known file).
    #[must_use]
    pub fn frame_type(&self) -> i32 {
        self.frame_type
    }

    /// The name bytes, up to the first NUL.
    #[must_use]
    pub fn name(&self) -> &'data [u8] {
        name::trim_nul(self.name)
    }

    /// The name as text (invalid UTF-8 replaced).
    #[must_use]
    pub fn name_lossy(&self) -> Cow<'data, str> {
        name::lossy(self.name())
    }

    /// The packed height of vertex `i`.
    #[must_use]
    pub fn raw_height(&self, i: usize) -> Option<u16> {
        match self.heights {
            Heights::V5(v) => v.get(i).map(|v| v.z.get()),
            Heights::V7(v) => v.get(i).map(|v| v.z.get()),
        }
    }

    /// The unit normal of vertex `i` (see the module docs for HMP7).
    #[must_use]
    pub fn normal(&self, i: usize) -> Option<[f32; 3]> {
        match self.heights {
            Heights::V5(v) => v
                .get(i)
                .and_then(|v| NORMALS.get(usize::from(v.normal)))
                .copied(),
            Heights::V7(v) => v.get(i).map(|v| {
                // The stored X points against +X of the grid as laid out here (see the module
                // docs), so it is negated.
                let (x, y) = (
                    -f32::from(v.normal_x) / 127.0,
                    f32::from(v.normal_y) / 127.0,
                );
                let z = (1.0 - x * x - y * y).max(0.0).sqrt();
                let len = (x * x + y * y + z * z).sqrt().max(f32::MIN_POSITIVE);
                [x / len, y / len, z / len]
            }),
        }
    }
}

impl FrameKind for HmpKind {
    type Frame<'data> = HmpFrame<'data>;
    type Params = (HmpVersion, u32);

    /// Every HMP frame's: its type, two word-packed bounding-box records, its name and its
    /// vertices.
    fn size(_: &[u8], (version, numverts): Self::Params) -> Option<usize> {
        let vertex = match version {
            HmpVersion::Hmp5 => size_of::<Hmp5Vertex>(),
            HmpVersion::Hmp7 => size_of::<Hmp7Vertex>(),
        };
        frame_size(size_of::<TrivertxWord>(), vertex, numverts)
    }

    /// Reads the frame of `numverts` vertices at `walk`: its type, two bounding-box records,
    /// its name and its heights. Normal indices are left to validation.
    #[inline]
    fn read<'data>(
        Cursor(walk): Cursor<'_, 'data>,
        (version, numverts): Self::Params,
    ) -> Result<HmpFrame<'data>> {
        let frame_type = walk.read::<I32<LittleEndian>>("frame.type")?.get();
        // The bounding box is word-packed, as an MDL's type 2 frame.
        let (_, name) = frame_head::<TrivertxWord>(walk)?;
        let heights = match version {
            HmpVersion::Hmp5 => Heights::V5(walk.read_slice("frame.vertices", numverts.into())?),
            HmpVersion::Hmp7 => Heights::V7(walk.read_slice("frame.vertices", numverts.into())?),
        };
        Ok(HmpFrame {
            frame_type,
            name,
            heights,
        })
    }
}

/// A terrain grid as a mesh (an explicit copy): positions, normals, UVs over `0..=1` and two
/// counter-clockwise triangles per cell.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TerrainMesh {
    /// Vertices per row and rows.
    pub grid: [u32; 2],
    /// Positions, row-major.
    pub positions: Vec<[f32; 3]>,
    /// Unit normals.
    pub normals: Vec<[f32; 3]>,
    /// `(ix / (nx − 1), iy / (ny − 1))`.
    pub uvs: Vec<[f32; 2]>,
    /// Triangles.
    pub triangles: Vec<[u32; 3]>,
}

/// A validated HMP5/HMP7 terrain. `Send`, `Sync`, `Clone` (a small index of skins; frames are
/// found in the file on each access).
#[derive(Debug, Clone)]
pub struct Hmp<'data> {
    pub(super) version: HmpVersion,
    pub(super) header: &'data HmpHeader,
    pub(super) grid: [u32; 2],
    pub(super) skins: Vec<Skin<'data>>,
    pub(super) frames: HmpFrames<'data>,
}

impl<'data> Hmp<'data> {
    /// The version.
    #[must_use]
    pub fn version(&self) -> HmpVersion {
        self.version
    }

    /// The raw header.
    #[must_use]
    pub fn header(&self) -> &'data HmpHeader {
        self.header
    }

    /// Vertices per row and number of rows.
    #[must_use]
    pub fn grid(&self) -> [u32; 2] {
        self.grid
    }

    /// The skins (textures).
    #[must_use]
    pub fn skins(&self) -> &[Skin<'data>] {
        &self.skins
    }

    /// The frames (each found in O(1)).
    #[must_use]
    pub fn frames(&self) -> HmpFrames<'data> {
        self.frames
    }

    /// The height of packed value `h`: `scale_z · h + offset_z`.
    #[must_use]
    pub fn height(&self, h: u16) -> f32 {
        self.header.scale[2].get() * f32::from(h) + self.header.offset[2].get()
    }

    /// The spacing of grid vertices along X and Y (`ftrisize_x`, `ftrisize_y`).
    #[must_use]
    pub fn cell_size(&self) -> [f32; 2] {
        [self.header.ftrisize_x.get(), self.header.ftrisize_y.get()]
    }

    /// Tweens frames `a` and `b` at `t` (0 = `a`, 1 = `b`) into `positions` and `normals`, row
    /// major, reusing the caller's storage: the terrain's morph, as
    /// [`tween_scalar`](super::morph::tween_scalar) is an MDL's. Positions lie where
    /// [`Hmp::mesh`] puts them, heights blended linearly; normals are the two frames' normals
    /// blended and renormalised.
    ///
    /// ```
    /// use skelmap_core::Parse;
    /// use skelmap_core::gamestudio::{Hmp, write::TerrainBuilder};
    /// let bytes = TerrainBuilder {
    ///     row: 2.0,                                  // a 2 × 2 grid
    ///     frames: vec![vec![(10, [0, 0]); 4],        // every height 10...
    ///                  vec![(30, [0, 0]); 4]],       // ...then 30
    ///     ..TerrainBuilder::default()                    // HMP7, z = 1·h + 0, 1-unit cells
    /// }
    /// .write();
    /// let hmp = Hmp::parse(&bytes)?;
    /// let (mut p, mut n) = (vec![[0.0; 3]; 4], vec![[0.0; 3]; 4]);
    /// hmp.tween(0, 1, 0.25, &mut p, &mut n)?;
    /// assert_eq!(p, [[0.0, 0.0, 15.0], [1.0, 0.0, 15.0], [0.0, 1.0, 15.0], [1.0, 1.0, 15.0]]);
    /// assert_eq!(n[0], [0.0, 0.0, 1.0]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`MorphError`] for a missing frame or an output shorter than the grid.
    pub fn tween(
        &self,
        a: usize,
        b: usize,
        t: f32,
        positions: &mut [[f32; 3]],
        normals: &mut [[f32; 3]],
    ) -> Result<(), MorphError> {
        let fa = self.frames.get(a).ok_or(MorphError::NoFrame(a))?;
        let fb = self.frames.get(b).ok_or(MorphError::NoFrame(b))?;
        let [nx, ny] = self.grid;
        let need = (nx * ny) as usize;
        let have = positions.len().min(normals.len());
        if have < need {
            return Err(MorphError::Output { need, have });
        }
        let [dx, dy] = self.cell_size();
        for (i, (p, n)) in positions
            .iter_mut()
            .zip(normals.iter_mut())
            .take(need)
            .enumerate()
        {
            let (ix, iy) = (i as u32 % nx, i as u32 / nx);
            let (za, zb) = (
                self.height(fa.raw_height(i).unwrap_or(0)),
                self.height(fb.raw_height(i).unwrap_or(0)),
            );
            *p = [ix as f32 * dx, iy as f32 * dy, za + t * (zb - za)];
            let (na, nb) = (
                fa.normal(i).unwrap_or([0.0, 0.0, 1.0]),
                fb.normal(i).unwrap_or([0.0, 0.0, 1.0]),
            );
            *n = normalise(core::array::from_fn(|k| na[k] + t * (nb[k] - na[k])));
        }
        Ok(())
    }

    /// Vertices of the grid: columns × rows.
    #[must_use]
    pub fn num_vertices(&self) -> usize {
        let [nx, ny] = self.grid;
        nx as usize * ny as usize
    }

    /// Triangles of the grid: two per cell.
    #[must_use]
    pub fn num_triangles(&self) -> usize {
        let [nx, ny] = self.grid;
        2 * (nx as usize - 1) * (ny as usize - 1)
    }

    /// Triangle `i` of the grid: cell `i / 2` (row-major), counter-clockwise seen from
    /// above; `None` out of range.
    #[must_use]
    pub fn triangle(&self, i: usize) -> Option<[u32; 3]> {
        if i >= self.num_triangles() {
            return None;
        }
        let nx = self.grid[0];
        let cell = (i / 2) as u32;
        let (ix, iy) = (cell % (nx - 1), cell / (nx - 1));
        let at = |x: u32, y: u32| y * nx + x;
        let (a, b, c, d) = (
            at(ix, iy),
            at(ix + 1, iy),
            at(ix, iy + 1),
            at(ix + 1, iy + 1),
        );
        Some(if i.is_multiple_of(2) {
            [a, b, d]
        } else {
            [a, d, c]
        })
    }

    /// The texture coordinate of vertex `i`: `(column / (columns − 1), row / (rows − 1))`.
    #[must_use]
    pub fn texcoord(&self, i: usize) -> Option<[f32; 2]> {
        let [nx, ny] = self.grid;
        (i < self.num_vertices()).then(|| {
            let (ix, iy) = (i as u32 % nx, i as u32 / nx);
            [ix as f32 / (nx - 1) as f32, iy as f32 / (ny - 1) as f32]
        })
    }

    /// Frame `frame` as a mesh (see the module docs for the grid's placement). `None` for a
    /// frame that does not exist.
    #[must_use]
    pub fn mesh(&self, frame: usize) -> Option<TerrainMesh> {
        let f = self.frames.get(frame)?;
        let [nx, ny] = self.grid;
        let [dx, dy] = self.cell_size();
        let n = (nx * ny) as usize;
        let mut mesh = TerrainMesh {
            grid: self.grid,
            ..TerrainMesh::default()
        };
        mesh.positions.reserve(n);
        for i in 0..n {
            let (ix, iy) = (i as u32 % nx, i as u32 / nx);
            let z = self.height(f.raw_height(i)?);
            mesh.positions.push([ix as f32 * dx, iy as f32 * dy, z]);
            mesh.normals.push(f.normal(i)?);
            mesh.uvs.push(self.texcoord(i)?);
        }
        mesh.triangles = (0..self.num_triangles())
            .filter_map(|t| self.triangle(t))
            .collect();
        Some(mesh)
    }
}
