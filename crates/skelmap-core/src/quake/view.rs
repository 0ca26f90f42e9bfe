//! The validated view: [`Mdl`], its skins and skin groups, texture vertices, triangles,
//! and frames flattened out of their groups.

use core::fmt;
use core::iter::FusedIterator;
use std::borrow::Cow;

use zerocopy::byteorder::{F32, I32, LittleEndian};
use zerocopy::{FromBytes, IntoBytes};

use super::raw::{ALIAS_SINGLE, DaliasFrame, DaliasGroup, Dtriangle, MdlHeader, Stvert, Trivertx};
use crate::alias::Skin;
use crate::alias::anorms::NORMAL_TABLE;
use crate::alias::tween::{PackedModel, tween_with_level};
use crate::error::Result;
use crate::format::Format;
use crate::name;
use crate::pose::framegroups::{FrameGroup, groups_from_names};
use crate::read::Walk;
use crate::skin::SimdLevel;
use crate::skin::morph::{Keyframe, MorphError, NormalTable, PackedFrame, Unpack};
use crate::view::{
    ClipOrigin, DeformError, FrameList, MeshView, NAMED_CLIP_FPS, TexcoordLayout, VertexAnimated,
};

/// A skin or frame entry of the file: a single one, or a group shown in turn.
///
/// The group's members are `first .. first + count` of [`Mdl::skins`] or
/// [`Mdl::frames`]; a single entry has `count` 1 and no intervals.
#[derive(Debug, Clone, Copy)]
pub struct Group<'data> {
    pub(super) first: u32,
    pub(super) count: u32,
    pub(super) intervals: &'data [F32<LittleEndian>],
}

impl<'data> Group<'data> {
    /// The first member.
    #[must_use]
    pub fn first(&self) -> usize {
        self.first as usize
    }

    /// Members (at least 1).
    #[must_use]
    pub fn count(&self) -> usize {
        self.count as usize
    }

    /// `true` for a group record (even one with a single member), `false` for a single.
    #[must_use]
    pub fn is_group(&self) -> bool {
        !self.intervals.is_empty()
    }

    /// The members' intervals: the time in seconds, from the group's start, at which each
    /// member ends (positive and finite; empty for a single).
    pub fn intervals(&self) -> impl ExactSizeIterator<Item = f32> + Clone + 'data {
        self.intervals.iter().map(|v| v.get())
    }

    /// The group's length in seconds: its last interval (0 for a single).
    #[must_use]
    pub fn duration(&self) -> f32 {
        self.intervals.last().map_or(0.0, |v| v.get())
    }
}

/// One pose of the model (a single frame, or a member of a frame group).
#[derive(Debug, Clone, Copy)]
pub struct Frame<'data> {
    pub(super) header: &'data DaliasFrame,
    pub(super) vertices: &'data [Trivertx],
}

impl<'data> Frame<'data> {
    /// The raw frame header (bounding box and name).
    #[must_use]
    pub fn header(&self) -> &'data DaliasFrame {
        self.header
    }

    /// The name bytes, up to the first NUL.
    #[must_use]
    pub fn name(&self) -> &'data [u8] {
        name::trim_nul(&self.header.name)
    }

    /// The name as text (invalid UTF-8 replaced).
    #[must_use]
    pub fn name_lossy(&self) -> Cow<'data, str> {
        name::lossy(self.name())
    }

    /// The packed vertices (each normal index < 162).
    #[must_use]
    pub fn vertices(&self) -> &'data [Trivertx] {
        self.vertices
    }

    /// Reads the pose of `numverts` vertices at `walk` (validation's read, and the
    /// accessors' over validated bytes): its header, then its vertices. Normal indices are
    /// left to validation.
    pub(super) fn read(walk: &mut Walk<'data>, numverts: u32) -> Result<Frame<'data>> {
        let header = walk.read::<DaliasFrame>("frame")?;
        let vertices = walk.read_slice::<Trivertx>("frame.vertices", numverts.into())?;
        Ok(Frame { header, vertices })
    }
}

/// The poses of a [`Mdl`], frame groups flattened in file order, read from the file on
/// each access: opening keeps no table of them, so it allocates nothing per frame.
///
/// [`Frames::get`] finds a pose in O(1) when the file has no frame group (as most do);
/// otherwise it walks the frame entries from the first. Iterating is O(1) a pose either way.
///
/// ```
/// use skelmap_core::Parse;
/// use skelmap_core::quake::Mdl;
/// use skelmap_core::quake::write::{FrameDef, FrameEntry, Builder};
/// let pose = |name: &str| FrameDef { name: name.into(), vertices: vec![([0; 3], 0); 3] };
/// let bytes = Builder {
///     frames: vec![
///         FrameEntry::Single(pose("stand")),
///         FrameEntry::Group { intervals: vec![0.1, 0.2], frames: vec![pose("fly1"), pose("fly2")] },
///     ],
///     ..Builder::triangle()
/// }
/// .write();
/// let mdl = Mdl::parse(&bytes)?;
/// let frames = mdl.frames(); // two entries, three poses
/// assert_eq!((frames.len(), frames.groups().len()), (3, 2));
/// assert_eq!(frames.get(2).map(|f| f.name()), Some(&b"fly2"[..]));
/// let groups: Vec<_> = frames.groups().map(|g| (g.first(), g.count())).collect();
/// assert_eq!(groups, [(0, 1), (1, 2)]);
/// # Ok::<(), skelmap_core::Error>(())
/// ```
#[derive(Clone, Copy)]
pub struct Frames<'data> {
    /// At the first frame entry.
    walk: Walk<'data>,
    /// Frame entries (the header's `numframes`).
    entries: u32,
    /// Poses.
    len: u32,
    numverts: u32,
    /// The size of every entry, when none is a group.
    stride: Option<usize>,
    /// Where each pose starts, in bytes after the first entry, when a table of them is kept
    /// ([`Mdl`] keeps one for frames with groups, made on the first [`Frames::get`]): a pose
    /// is then looked up.
    starts: Option<&'data std::sync::OnceLock<Vec<u32>>>,
}

impl<'data> Frames<'data> {
    /// `entries` validated frame entries holding `len` poses of `numverts` vertices, from
    /// `walk` on; `singles` when no entry is a group.
    pub(super) fn new(
        walk: Walk<'data>,
        entries: u32,
        len: u32,
        numverts: u32,
        singles: bool,
    ) -> Self {
        let pose = pose_size(numverts);
        Frames {
            walk,
            entries,
            len,
            numverts,
            stride: singles.then_some(size_of::<I32<LittleEndian>>() + pose),
            starts: None,
        }
    }

    /// Where each pose starts, in bytes after the first entry: one walk of the entries'
    /// headers (empty where an offset would not fit 32 bits).
    fn pose_starts(&self) -> Vec<u32> {
        let pose = pose_size(self.numverts);
        let base = self.walk.offset();
        let mut walk = self.walk;
        let mut starts = Vec::with_capacity(self.len());
        for _ in 0..self.entries {
            let Some((count, _)) = read_entry(&mut walk) else {
                break;
            };
            for _ in 0..count {
                let Ok(at) = u32::try_from(walk.offset() - base) else {
                    return Vec::new();
                };
                starts.push(at);
                walk.skip(pose);
            }
        }
        starts
    }

    /// Number of poses.
    #[must_use]
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// `true` if there are none.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Pose `i`, or `None` out of range. Found directly where no entry is a group, or
    /// where the frames came with a table of where each pose starts (the model's own, as
    /// [`Model`](crate::Model) reads them); else a walk over the entries before it.
    #[must_use]
    pub fn get(&self, i: usize) -> Option<Frame<'data>> {
        if i >= self.len() {
            return None;
        }
        let mut walk = self.walk;
        if let Some(stride) = self.stride {
            walk.skip(i.checked_mul(stride)?);
            walk.next::<I32<LittleEndian>>()?;
            Frame::read(&mut walk, self.numverts).ok()
        } else {
            let starts = self.starts.map(|s| s.get_or_init(|| self.pose_starts()));
            match starts.and_then(|s| s.get(i)) {
                Some(&at) => {
                    walk.skip(at as usize);
                    Frame::read(&mut walk, self.numverts).ok()
                }
                None => self.iter().nth(i),
            }
        }
    }

    /// The poses in file order.
    #[must_use]
    pub fn iter(&self) -> FrameIter<'data> {
        FrameIter {
            walk: self.walk,
            left: self.len,
            members: 0,
            numverts: self.numverts,
        }
    }

    /// The frame entries (`numframes` of the header), each a single pose or a group, with
    /// the poses each holds.
    #[must_use]
    pub fn groups(&self) -> FrameGroups<'data> {
        FrameGroups {
            walk: self.walk,
            left: self.entries,
            first: 0,
            numverts: self.numverts,
        }
    }
}

impl fmt::Debug for Frames<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Frames")
            .field("entries", &self.entries)
            .field("len", &self.len)
            .field("offset", &self.walk.offset())
            .field("stride", &self.stride)
            .field("starts", &self.starts.and_then(|s| s.get()).map(Vec::len))
            .finish()
    }
}

impl<'data> IntoIterator for Frames<'data> {
    type Item = Frame<'data>;
    type IntoIter = FrameIter<'data>;

    fn into_iter(self) -> FrameIter<'data> {
        self.iter()
    }
}

/// The size of a pose of `numverts` vertices: its header, then its vertices.
fn pose_size(numverts: u32) -> usize {
    size_of::<DaliasFrame>() + numverts as usize * size_of::<Trivertx>()
}

/// The header of the frame entry at `walk` (validated): its pose count and intervals (none
/// for a single pose). Leaves `walk` at the entry's first pose.
fn read_entry<'data>(walk: &mut Walk<'data>) -> Option<(u32, &'data [F32<LittleEndian>])> {
    if walk.next::<I32<LittleEndian>>()?.get() == ALIAS_SINGLE {
        return Some((1, &[]));
    }
    let n = u32::try_from(walk.next::<DaliasGroup>()?.numframes.get()).ok()?;
    Some((n, walk.next_slice(n.into())?))
}

/// The iterator of [`Frames::iter`].
#[derive(Debug, Clone)]
pub struct FrameIter<'data> {
    /// At the next pose, or at the next entry when `members` is 0.
    walk: Walk<'data>,
    /// Poses not yet read.
    left: u32,
    /// Poses of the current entry not yet read.
    members: u32,
    numverts: u32,
}

impl<'data> Iterator for FrameIter<'data> {
    type Item = Frame<'data>;

    fn next(&mut self) -> Option<Frame<'data>> {
        self.left = self.left.checked_sub(1)?;
        if self.members == 0 {
            self.members = read_entry(&mut self.walk).map_or(0, |(n, _)| n);
        }
        self.members = self.members.saturating_sub(1);
        let frame = Frame::read(&mut self.walk, self.numverts).ok();
        if frame.is_none() {
            // Validated poses always read; stop rather than loop on bytes that do not.
            self.left = 0;
        }
        frame
    }

    /// Steps over `n` poses a whole entry at a time where the entry lies within them,
    /// reading only entry headers.
    fn nth(&mut self, mut n: usize) -> Option<Frame<'data>> {
        let pose = pose_size(self.numverts);
        while n > 0 && self.left > 0 {
            if self.members == 0 {
                let mut entry = self.walk;
                let Some((count, _)) = read_entry(&mut entry) else {
                    self.left = 0;
                    return None;
                };
                if (count as usize) > n {
                    // The pose is in this entry: step into it.
                    self.walk = entry;
                    self.members = count;
                    continue;
                }
                self.walk = entry;
                self.walk.skip(pose.saturating_mul(count as usize));
                self.left = self.left.saturating_sub(count);
                n -= count as usize;
            } else {
                let step = self.members.min(u32::try_from(n).unwrap_or(u32::MAX));
                self.walk.skip(pose.saturating_mul(step as usize));
                self.members -= step;
                self.left = self.left.saturating_sub(step);
                n -= step as usize;
            }
        }
        if n > 0 {
            return None;
        }
        self.next()
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left as usize, Some(self.left as usize))
    }
}

impl ExactSizeIterator for FrameIter<'_> {}

impl FusedIterator for FrameIter<'_> {}

/// The iterator of [`Frames::groups`].
#[derive(Debug, Clone)]
pub struct FrameGroups<'data> {
    /// At the next entry.
    walk: Walk<'data>,
    /// Entries not yet read.
    left: u32,
    /// The next entry's first pose.
    first: u32,
    numverts: u32,
}

impl<'data> Iterator for FrameGroups<'data> {
    type Item = Group<'data>;

    fn next(&mut self) -> Option<Group<'data>> {
        self.left = self.left.checked_sub(1)?;
        let Some((count, intervals)) = read_entry(&mut self.walk) else {
            self.left = 0;
            return None;
        };
        self.walk
            .skip(pose_size(self.numverts).saturating_mul(count as usize));
        let group = Group {
            first: self.first,
            count,
            intervals,
        };
        self.first = self.first.saturating_add(count);
        Some(group)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left as usize, Some(self.left as usize))
    }
}

impl ExactSizeIterator for FrameGroups<'_> {}

impl FusedIterator for FrameGroups<'_> {}

/// A validated Quake MDL (`IDPO`) or GameStudio MDL2. `Send`, `Sync`, `Clone` (it owns a
/// small index of its skins, built once at open; frames are found in the file on each
/// access).
///
/// ```
/// use skelmap_core::Parse;
/// use skelmap_core::quake::{Mdl, write::Builder};
/// let bytes = Builder::triangle().write();
/// let mdl = Mdl::parse(&bytes)?;
/// assert_eq!((mdl.num_vertices(), mdl.num_triangles(), mdl.frames().len()), (3, 1, 1));
/// assert_eq!(mdl.position(0, 1), Some([1.0, 0.0, 0.0]));
/// # Ok::<(), skelmap_core::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Mdl<'data> {
    pub(super) format: Format,
    pub(super) header: &'data MdlHeader,
    pub(super) skins: Vec<Skin<'data>>,
    pub(super) skin_groups: Vec<Group<'data>>,
    pub(super) stverts: &'data [Stvert],
    pub(super) triangles: &'data [Dtriangle],
    pub(super) frames: Frames<'data>,
    /// Where each pose starts, for frames with groups: made on the first look-up of a pose
    /// through [`Mdl::indexed_frames`], so that finding every pose in turn is not a walk
    /// each.
    pub(super) pose_starts: std::sync::OnceLock<Vec<u32>>,
}

impl<'data> Mdl<'data> {
    /// [`Format::Quake`] for `IDPO`, [`Format::Mdl`] for a GameStudio MDL2.
    #[must_use]
    pub fn format(&self) -> Format {
        self.format
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

    /// The skin size every skin has, in texels: `(skinwidth, skinheight)`.
    #[must_use]
    pub fn skin_size(&self) -> (u32, u32) {
        let size = |v: i32| u32::try_from(v).unwrap_or(0);
        (
            size(self.header.skinwidth.get()),
            size(self.header.skinheight.get()),
        )
    }

    /// Vertices per frame (and texture vertices).
    #[must_use]
    pub fn num_vertices(&self) -> usize {
        self.stverts.len()
    }

    /// Triangles.
    #[must_use]
    pub fn num_triangles(&self) -> usize {
        self.triangles.len()
    }

    /// Every skin image, groups flattened in file order ([`Mdl::skin_groups`] says which
    /// belong together). Quake skins are 8-bit indices into
    /// [`PALETTE`](super::PALETTE); MDL2 skins are GameStudio codes 0, 2 or 3.
    #[must_use]
    pub fn skins(&self) -> &[Skin<'data>] {
        &self.skins
    }

    /// The skin entries of the header (`numskins`), each a single image or a group.
    #[must_use]
    pub fn skin_groups(&self) -> &[Group<'data>] {
        &self.skin_groups
    }

    /// The texture vertices `(onseam, s, t)`, one per vertex, in texels.
    pub fn stverts(&self) -> impl ExactSizeIterator<Item = (i32, i32, i32)> + Clone + 'data {
        self.stverts
            .iter()
            .map(|v| (v.onseam.get(), v.s.get(), v.t.get()))
    }

    /// Triangle `i` as stored: `(facesfront, vertex indices)` (clockwise seen from the
    /// front, Quake's winding), or `None` out of range.
    #[must_use]
    pub fn triangle(&self, i: usize) -> Option<(bool, [u32; 3])> {
        let t = self.triangles.get(i)?;
        // Validation proved every index in `0..numverts`.
        let indices = t.vertindex.map(|v| u32::try_from(v.get()).unwrap_or(0));
        Some((t.facesfront.get() != 0, indices))
    }

    /// The texture coordinates of triangle `i`'s corners (in stored order), by GLQuake's rule:
    /// a vertex on the seam of a back-facing triangle moves half the skin to the right, then
    /// `((s + ½) / skinwidth, (t + ½) / skinheight)`, `v` pointing down the image.
    #[must_use]
    pub fn corner_texcoords(&self, i: usize) -> Option<[[f32; 2]; 3]> {
        let (front, indices) = self.triangle(i)?;
        let (width, height) = self.skin_size();
        let (w, h) = (width.max(1) as f32, height.max(1) as f32);
        let seam = (width / 2) as f32;
        let uv = |v: u32| {
            let st = self.stverts.get(v as usize)?;
            let shift = if !front && st.onseam.get() != 0 {
                seam
            } else {
                0.0
            };
            Some([
                (st.s.get() as f32 + shift + 0.5) / w,
                (st.t.get() as f32 + 0.5) / h,
            ])
        };
        Some([uv(indices[0])?, uv(indices[1])?, uv(indices[2])?])
    }

    /// Every pose, frame groups flattened in file order ([`Mdl::frame_groups`] says
    /// which belong together; see [`Frames`] for the cost of finding one).
    #[must_use]
    pub fn frames(&self) -> Frames<'data> {
        self.frames
    }

    /// [`Mdl::frames`] with, where an entry is a group, the table of where each pose starts,
    /// made on the first [`Frames::get`], which is then a look-up whatever the entries.
    ///
    /// ```
    /// use skelmap_core::Parse;
    /// use skelmap_core::quake::Mdl;
    /// use skelmap_core::quake::write::{FrameDef, FrameEntry, Builder};
    /// let pose = |name: &str| FrameDef { name: name.into(), vertices: vec![([0; 3], 0); 3] };
    /// let group = FrameEntry::Group { intervals: vec![0.1, 0.2], frames: vec![pose("a"), pose("b")] };
    /// let bytes = Builder { frames: vec![group, FrameEntry::Single(pose("c"))], ..Builder::triangle() }.write();
    /// let mdl = Mdl::parse(&bytes)?;
    /// assert_eq!(mdl.indexed_frames().get(2).map(|f| f.name()), Some(&b"c"[..]));
    /// # Ok::<(), skelmap_core::Error>(())
    /// ```
    #[must_use]
    pub fn indexed_frames(&self) -> Frames<'_> {
        let mut frames = self.frames;
        if frames.stride.is_none() {
            frames.starts = Some(&self.pose_starts);
        }
        frames
    }

    /// The frame entries of the header (`numframes`), each a single frame or a group.
    #[must_use]
    pub fn frame_groups(&self) -> FrameGroups<'data> {
        self.frames.groups()
    }

    /// The position of vertex `v` in frame `frame`: `scale · packed + origin`.
    #[must_use]
    pub fn position(&self, frame: usize, v: usize) -> Option<[f32; 3]> {
        let p = self.indexed_frames().get(frame)?.vertices.get(v)?;
        let (scale, origin) = (self.scale(), self.origin());
        Some(core::array::from_fn(|k| {
            scale[k] * f32::from(p.v[k]) + origin[k]
        }))
    }

    /// The model's animations: each frame group one clip (named by its first frame's stem,
    /// `count / duration` frames per second, `fps` if that is not finite), and each run of single frames grouped by name
    /// stem at `fps`, as DarkPlaces does for frames without groups.
    ///
    /// ```
    /// use skelmap_core::Parse;
    /// use skelmap_core::quake::Mdl;
    /// use skelmap_core::quake::write::{FrameDef, FrameEntry, Builder};
    /// let pose = |name: &str| FrameDef { name: name.into(), vertices: vec![([0; 3], 0); 3] };
    /// let bytes = Builder {
    ///     frames: vec![
    ///         FrameEntry::Single(pose("stand1")),
    ///         FrameEntry::Single(pose("stand2")),
    ///         FrameEntry::Group { intervals: vec![0.1, 0.2, 0.3, 0.4], frames: vec![pose("fly1"); 4] },
    ///     ],
    ///     ..Builder::triangle()
    /// }
    /// .write();
    /// let clips = Mdl::parse(&bytes)?.clips(10.0);
    /// let summary: Vec<_> = clips.iter().map(|c| (c.name.as_str(), c.first, c.count, c.fps)).collect();
    /// assert_eq!(summary, [("stand", 0, 2, 10.0), ("fly", 2, 4, 10.0)]);
    /// # Ok::<(), skelmap_core::Error>(())
    /// ```
    #[must_use]
    pub fn clips(&self, fps: f32) -> Vec<FrameGroup> {
        let mut clips = Vec::new();
        // One walk over the poses beside the one over the entries: a run of single frames
        // is the walk where the run began, and how many.
        let mut poses = self.frames.iter();
        let mut singles: Option<(usize, FrameIter<'data>, usize)> = None;
        let flush = |clips: &mut Vec<FrameGroup>, run: Option<(usize, FrameIter<'data>, usize)>| {
            let Some((first, run, count)) = run else {
                return;
            };
            let names = run.take(count).map(|f| f.name());
            // Unnamed single frames make no clips.
            clips.extend(
                groups_from_names(names, fps)
                    .into_iter()
                    .filter(|g| !g.name.is_empty())
                    .map(|mut g| {
                        g.first += first as u32;
                        g
                    }),
            );
        };
        for group in self.frame_groups() {
            let members = poses.clone();
            // Past the entry's poses (`nth` of none is no step).
            if let Some(last) = group.count().checked_sub(1) {
                poses.nth(last);
            }
            if !group.is_group() {
                singles.get_or_insert((group.first(), members, 0)).2 += group.count();
                continue;
            }
            flush(&mut clips, singles.take());
            let first = members.take(1).map(|f| f.name());
            let stem = groups_from_names(first, fps);
            clips.push(FrameGroup {
                name: stem.into_iter().next().map(|g| g.name).unwrap_or_default(),
                first: group.first,
                count: group.count,
                // Validation proved the intervals positive; a tiny one would give an
                // infinite rate, which falls back to `fps`.
                fps: Some(group.count as f32 / group.duration())
                    .filter(|r| r.is_finite())
                    .unwrap_or(fps),
                looped: true,
            });
        }
        flush(&mut clips, singles.take());
        clips
    }
}

impl<'data> Frame<'data> {
    /// The vertices as the morph kernels read them (a zero-copy view of the same bytes).
    #[must_use]
    pub fn packed(&self) -> PackedFrame<'data> {
        PackedFrame::Bytes(
            <[[u8; 4]]>::ref_from_bytes(self.vertices.as_bytes()).unwrap_or_default(),
        )
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
        let frame = self.indexed_frames().get(i);
        Ok(frame.ok_or(MorphError::NoFrame(i))?.packed())
    }
}

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

/// One mesh, tweened between frames; its frame groups are its clips; a material per skin,
/// 8-bit skins through Quake's palette (an MDL2's through a grey ramp).
impl<'data> VertexAnimated<'data> for Mdl<'data> {
    type Mesh<'a>
        = &'a Mdl<'data>
    where
        Self: 'a;
    type Frames<'a>
        = Frames<'a>
    where
        Self: 'a;

    fn format(&self) -> Format {
        self.format
    }

    fn the_mesh(&self) -> &Mdl<'data> {
        self
    }

    fn frame_list(&self) -> Frames<'_> {
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

    fn clip_origin(&self) -> ClipOrigin {
        ClipOrigin::FrameGroups
    }

    fn built_in_clips(&self) -> Vec<FrameGroup> {
        self.clips(NAMED_CLIP_FPS)
    }

    fn skin_palette(&self) -> [[u8; 3]; 256] {
        match self.format {
            Format::Quake => super::PALETTE,
            _ => crate::alias::skin::grey_palette(),
        }
    }

    fn keyframe(&self, frame: usize) -> Option<(Keyframe<'_>, &'static NormalTable)> {
        PackedModel::keyframe(self, frame)
    }
}

/// Triangles reversed to counter-clockwise (Quake stores them clockwise), their corners'
/// texture coordinates too.
impl<'a, 'data: 'a> MeshView<'a> for &'a Mdl<'data> {
    fn num_vertices(&self) -> usize {
        Mdl::num_vertices(self)
    }

    fn num_triangles(&self) -> usize {
        Mdl::num_triangles(self)
    }

    fn triangle(&self, i: usize) -> Option<[u32; 3]> {
        Mdl::triangle(self, i).map(|(_, [a, b, c])| [c, b, a])
    }

    fn texcoord_layout(&self) -> TexcoordLayout {
        if self.skins.is_empty() {
            TexcoordLayout::None
        } else {
            TexcoordLayout::PerCorner
        }
    }

    fn corner_texcoords(&self, t: usize) -> Option<[[f32; 2]; 3]> {
        if self.skins.is_empty() {
            return None;
        }
        Mdl::corner_texcoords(self, t).map(|[a, b, c]| [c, b, a])
    }

    fn material(&self, _: usize) -> Option<usize> {
        (!self.skins.is_empty()).then_some(0)
    }
}
