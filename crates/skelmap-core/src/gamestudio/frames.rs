//! The frames of GameStudio models and terrains, found in the file on each access: the walk
//! both share ([`Frames`], [`FrameIter`]) and the frame record's common parts.

use core::fmt;
use core::iter::FusedIterator;
use std::sync::OnceLock;

use zerocopy::byteorder::{I32, LittleEndian};

use crate::error::Result;
use crate::read::{Raw, Walk};
use crate::view::FrameList;

/// The bytes of a frame's name.
const FRAME_NAME: usize = 16;

/// Where a frame's vertices start: after its type, two bounding-box records of `bbox` bytes
/// and its name.
pub(super) const fn head_size(bbox: usize) -> usize {
    size_of::<I32<LittleEndian>>() + 2 * bbox + FRAME_NAME
}

/// A frame's size: its head ([`head_size`]) and `numverts` vertices of `vertex` bytes.
pub(super) fn frame_size(bbox: usize, vertex: usize, numverts: u32) -> Option<usize> {
    (numverts as usize)
        .checked_mul(vertex)?
        .checked_add(head_size(bbox))
}

/// A frame after its type: two bounding-box records, the name, `numverts` vertices.
pub(super) fn frame_parts<'data, T: Raw>(
    walk: &mut Walk<'data>,
    numverts: u32,
) -> Result<(&'data [T; 2], &'data [u8], &'data [T])> {
    let (bbox, name) = frame_head::<T>(walk)?;
    let vertices = walk.read_slice::<T>("frame.vertices", numverts.into())?;
    Ok((bbox, name, vertices))
}

/// A frame's two bounding-box records of type `T`, then its name.
pub(super) fn frame_head<'data, T: Raw>(
    walk: &mut Walk<'data>,
) -> Result<(&'data [T; 2], &'data [u8])> {
    let bbox = walk.read::<[T; 2]>("frame.bbox")?;
    let name = walk.read_slice::<u8>("frame.name", FRAME_NAME as u64)?;
    Ok((bbox, name))
}

/// The frames of an [`Mdl`](super::Mdl) ([`MdlFrames`]) or an [`Hmp`](super::Hmp) ([`HmpFrames`]), read from the
/// file on each access: opening keeps no table of them, so it allocates nothing per frame.
///
/// [`Frames::get`] finds a frame in O(1) when every frame has one size (every HMP, and every
/// MDL whose frames share a type, as every known file does); an MDL that mixes byte and word
/// frames is walked from its first frame, but through [`Mdl::indexed_frames`](super::Mdl::indexed_frames)
/// (which [`Model`](crate::Model) reads), which keeps a table of where each starts.
/// Iterating is O(1) a frame either way.
///
/// ```
/// use skelmap_core::Parse;
/// use skelmap_core::gamestudio::Mdl;
/// use skelmap_core::gamestudio::write::{MdlBuilder, MdlFrameDef};
/// let frame = |frame_type, name: &str| MdlFrameDef {
///     frame_type, // 0: byte-packed, 2: word-packed
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
    /// Where each frame starts, in bytes after the first, when a table of them is kept
    /// ([`Mdl`](super::Mdl) keeps one for frames of mixed sizes, made on the first
    /// [`Frames::get`]): a frame is then looked up.
    starts: Option<&'data OnceLock<Vec<u32>>>,
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

        /// The frame's name bytes, up to the first NUL.
        fn name<'data>(frame: &Self::Frame<'data>) -> &'data [u8];
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

/// The frames of an [`Mdl`](super::Mdl).
pub type MdlFrames<'data> = Frames<'data, MdlKind>;

/// The frames of an [`Hmp`](super::Hmp).
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
            starts: None,
        }
    }

    /// Where each frame starts, in bytes after the first: one walk reading what gives each
    /// frame's size (empty where an offset would not fit 32 bits).
    pub(super) fn frame_starts(&self) -> Vec<u32> {
        let mut starts = Vec::with_capacity(self.len());
        let mut at = 0usize;
        let bytes = self.walk.rest();
        for _ in 0..self.len {
            let (Ok(start), Some(size)) = (
                u32::try_from(at),
                bytes.get(at..).and_then(|rest| K::size(rest, self.params)),
            ) else {
                return Vec::new();
            };
            starts.push(start);
            at += size;
        }
        starts
    }

    /// `true` when every frame has one size, so that finding one needs no table.
    pub(super) fn is_uniform(&self) -> bool {
        self.stride.is_some()
    }

    /// These frames with `starts` as their table, made by [`Frames::frame_starts`] on the
    /// first look-up.
    pub(super) fn with_starts<'a>(self, starts: &'a OnceLock<Vec<u32>>) -> Frames<'a, K>
    where
        'data: 'a,
    {
        Frames {
            starts: Some(starts),
            ..self
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
        let mut walk = self.walk;
        if let Some(stride) = self.stride {
            walk.skip(i.checked_mul(stride)?);
            K::read(Cursor(&mut walk), self.params).ok()
        } else {
            let starts = self.starts.map(|s| s.get_or_init(|| self.frame_starts()));
            match starts.and_then(|s| s.get(i)) {
                Some(&at) => {
                    walk.skip(at as usize);
                    K::read(Cursor(&mut walk), self.params).ok()
                }
                None => self.iter().nth(i),
            }
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
            .field("starts", &self.starts.and_then(OnceLock::get).map(Vec::len))
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

impl<'data, K: FrameKind + fmt::Debug + Clone> FrameList<'data> for Frames<'data, K> {
    type Frame = K::Frame<'data>;
    type Iter = FrameIter<'data, K>;

    fn count(&self) -> usize {
        self.len()
    }

    fn frame(&self, i: usize) -> Option<K::Frame<'data>> {
        self.get(i)
    }

    fn walk(&self) -> FrameIter<'data, K> {
        self.iter()
    }

    fn name(frame: &K::Frame<'data>) -> &'data [u8] {
        K::name(frame)
    }
}

impl<'data, K: FrameKind> FusedIterator for FrameIter<'data, K> {}
