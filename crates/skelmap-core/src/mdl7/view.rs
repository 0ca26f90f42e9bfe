//! The validated MDL7 view, [`Mdl7`]: bones, groups with their skins, texture coordinates,
//! triangles, vertices, frames and weights, all borrowed from the file; and what it gives
//! [`Model`](crate::Model).

use core::marker::PhantomData;
use core::ops::Range;

use glam::{Mat3A, Quat, Vec3A};
use zerocopy::{FromBytes, Immutable, KnownLayout, Unaligned};

use super::raw::{
    BonePrefix, BoneTransform, DeformerElement, DeformerWeight, Frame as FrameHead, Group as Head,
    Header, NONE16, TexCoord, TrianglePrefix, VertexPrefix,
};
use crate::alias::Skin;
use crate::alias::anorms::NORMALS;
use crate::format::Format;
use crate::name;
use crate::pose::{
    BindPoseMesh, BindVertex, Bone, LocalPose, MAX_BIND_INFLUENCES, PoseFrames, Skeleton,
};
use crate::skin::SimdLevel;
use crate::view::{
    DeformError, FrameVertices, IndexedNames, MeshView, ModelView, Selected, Submesh,
    TexcoordLayout,
};

/// A table of records whose size the header gives, each read through its prefix `T`.
#[derive(Debug)]
pub struct Table<'data, T> {
    bytes: &'data [u8],
    stride: usize,
    len: usize,
    record: PhantomData<&'data T>,
}

impl<T> Clone for Table<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Table<'_, T> {}

impl<'data, T: FromBytes + KnownLayout + Immutable + Unaligned> Table<'data, T> {
    /// `len` records of `stride` bytes (at least `size_of::<T>()`) in `bytes`.
    pub(crate) fn new(bytes: &'data [u8], stride: usize, len: usize) -> Self {
        Table {
            bytes,
            stride,
            len,
            record: PhantomData,
        }
    }

    /// Number of records.
    #[must_use]
    pub fn len(&self) -> usize {
        self.len
    }

    /// `true` if there are none.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes per record, as the header declares them.
    #[must_use]
    pub fn stride(&self) -> usize {
        self.stride
    }

    /// The bytes of every record.
    #[must_use]
    pub fn bytes(&self) -> &'data [u8] {
        self.bytes
    }

    /// Record `i`'s bytes, or `None` out of range.
    #[must_use]
    pub fn record(&self, i: usize) -> Option<&'data [u8]> {
        if i >= self.len {
            return None;
        }
        self.bytes.get(i * self.stride..(i + 1) * self.stride)
    }

    /// Record `i`'s prefix, or `None` out of range.
    #[must_use]
    pub fn get(&self, i: usize) -> Option<&'data T> {
        T::ref_from_prefix(self.record(i)?).ok().map(|(t, _)| t)
    }

    /// Every record's prefix, in order.
    pub fn iter(self) -> impl Iterator<Item = &'data T> + Clone + 'data
    where
        T: 'data,
    {
        (0..self.len).filter_map(move |i| self.get(i))
    }
}

/// The normal of a vertex record of 16 bytes (a `u16` normal-table index at byte 14; zero for
/// an index past the table, which validation warns about) or 26 bytes (three floats from byte
/// 14).
pub(crate) fn record_normal(record: &[u8]) -> Vec3A {
    if record.len() >= 26 {
        let f = |at: usize| {
            f32::from_le_bytes([record[at], record[at + 1], record[at + 2], record[at + 3]])
        };
        Vec3A::new(f(14), f(18), f(22))
    } else {
        let index = match record.get(14..16) {
            Some(&[lo, hi]) => u16::from_le_bytes([lo, hi]),
            _ => 0,
        };
        Vec3A::from(NORMALS.get(usize::from(index)).copied().unwrap_or([0.0; 3]))
    }
}

/// A vertex record's position.
fn position(v: &VertexPrefix) -> Vec3A {
    Vec3A::new(v.x.get(), v.y.get(), v.z.get())
}

/// One frame of a group: its name, the vertices that replace main vertices, and (group 0)
/// the bones' motions.
#[derive(Debug, Clone, Copy)]
pub struct Frame<'data> {
    head: &'data FrameHead,
    vertices: Table<'data, VertexPrefix>,
    transforms: &'data [BoneTransform],
}

impl<'data> Frame<'data> {
    /// Reads the frame at the start of `bytes` (validated), and the bytes after it.
    pub(crate) fn read(bytes: &'data [u8], vertex_size: usize) -> Option<(Self, &'data [u8])> {
        let (head, rest) = FrameHead::ref_from_prefix(bytes).ok()?;
        let n = head.vertices_count.get() as usize;
        let len = n.checked_mul(vertex_size)?;
        let (vertex_bytes, rest) = rest.split_at_checked(len)?;
        let m = head.transmatrix_count.get() as usize;
        let (transforms, rest) = <[BoneTransform]>::ref_from_prefix_with_elems(rest, m).ok()?;
        let frame = Frame {
            head,
            vertices: Table::new(vertex_bytes, vertex_size, n),
            transforms,
        };
        Some((frame, rest))
    }

    /// The name bytes, up to the first NUL.
    #[must_use]
    pub fn name(&self) -> &'data [u8] {
        name::trim_nul(&self.head.frame_name)
    }

    /// The vertices this frame moves: each replaces the main vertex its `vertindex` names
    /// (proven in range).
    #[must_use]
    pub fn vertices(&self) -> Table<'data, VertexPrefix> {
        self.vertices
    }

    /// The bones' motions (proven to name bones of the file, every value finite).
    #[must_use]
    pub fn transforms(&self) -> &'data [BoneTransform] {
        self.transforms
    }

    /// The motion of `bone`: the record at index `bone` when it names that bone, else the
    /// first record naming it; `None` when the frame has none.
    #[must_use]
    pub fn transform(&self, bone: usize) -> Option<&'data BoneTransform> {
        match self.transforms.get(bone) {
            Some(t) if usize::from(t.bone_index.get()) == bone => Some(t),
            _ => self
                .transforms
                .iter()
                .find(|t| usize::from(t.bone_index.get()) == bone),
        }
    }
}

/// A group's frames (validated), found by index in O(1) when every frame has the same size
/// and by a walk otherwise.
#[derive(Debug, Clone, Copy)]
pub struct Frames<'data> {
    pub(crate) bytes: &'data [u8],
    pub(crate) count: usize,
    pub(crate) vertex_size: usize,
    /// The size of every frame, when they are all of one size.
    pub(crate) uniform: Option<usize>,
    /// Whether every frame lists its replaced vertices in strictly increasing order (each
    /// vertex at most once); else the last listing of a vertex wins.
    pub(crate) ordered: bool,
}

impl<'data> Frames<'data> {
    /// Number of frames.
    #[must_use]
    pub fn len(&self) -> usize {
        self.count
    }

    /// `true` if there are none.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Frame `i`, or `None` out of range.
    #[must_use]
    pub fn get(&self, i: usize) -> Option<Frame<'data>> {
        if i >= self.count {
            return None;
        }
        match self.uniform {
            Some(size) => Frame::read(self.bytes.get(i * size..)?, self.vertex_size).map(|f| f.0),
            None => self.iter().nth(i),
        }
    }

    /// The frames in order.
    pub fn iter(&self) -> impl Iterator<Item = Frame<'data>> + Clone + 'data {
        let vertex_size = self.vertex_size;
        let mut rest = self.bytes;
        (0..self.count).map_while(move |_| {
            let (frame, next) = Frame::read(rest, vertex_size)?;
            rest = next;
            Some(frame)
        })
    }
}

/// One bone's weights in a deformer: `(bone, name, weights)`.
pub type Element<'data> = (u32, &'data [u8], &'data [DeformerWeight]);

/// A group's deformer: one element per bone, each listing the vertices it moves.
#[derive(Debug, Clone, Copy)]
pub struct Weights<'data> {
    pub(crate) bytes: &'data [u8],
    pub(crate) count: usize,
}

impl<'data> Weights<'data> {
    /// Number of elements.
    #[must_use]
    pub fn len(&self) -> usize {
        self.count
    }

    /// `true` if there are none.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The elements in order (bones and vertices proven in range, weights finite and ≥ 0).
    pub fn iter(&self) -> impl Iterator<Item = Element<'data>> + Clone + 'data {
        let mut rest = self.bytes;
        (0..self.count).map_while(move |_| {
            let (head, after) = DeformerElement::ref_from_prefix(rest).ok()?;
            let n = head.weights.get() as usize;
            let (weights, after) = <[DeformerWeight]>::ref_from_prefix_with_elems(after, n).ok()?;
            rest = after;
            let name = name::trim_nul(&head.element_name);
            Some((head.element_index.get(), name, weights))
        })
    }
}

/// One group (mesh) of an MDL7.
#[derive(Debug, Clone)]
pub struct Group<'data> {
    pub(crate) head: &'data Head,
    pub(crate) skins: Range<usize>,
    pub(crate) texcoords: &'data [TexCoord],
    pub(crate) triangles: Table<'data, TrianglePrefix>,
    pub(crate) vertices: Table<'data, VertexPrefix>,
    pub(crate) frames: Frames<'data>,
    pub(crate) weights: Option<Weights<'data>>,
    /// The group's first vertex and triangle in the model's one mesh.
    pub(crate) first_vertex: usize,
    pub(crate) first_triangle: usize,
    /// Where the frames start in the file (for [`Mdl7::check_rotations`]'s offsets).
    pub(crate) frames_at: u64,
}

impl<'data> Group<'data> {
    /// The head as stored.
    #[must_use]
    pub fn head(&self) -> &'data Head {
        self.head
    }

    /// The name, up to the first NUL.
    #[must_use]
    pub fn name(&self) -> &'data [u8] {
        name::trim_nul(&self.head.name)
    }

    /// The group's skins, as indices into [`Mdl7::skins`].
    #[must_use]
    pub fn skins(&self) -> Range<usize> {
        self.skins.clone()
    }

    /// The texture coordinates.
    #[must_use]
    pub fn texcoords(&self) -> &'data [TexCoord] {
        self.texcoords
    }

    /// The triangles (every index proven in range).
    #[must_use]
    pub fn triangles(&self) -> Table<'data, TrianglePrefix> {
        self.triangles
    }

    /// The main vertices: positions and normals as stored, the bone each is bound to.
    #[must_use]
    pub fn vertices(&self) -> Table<'data, VertexPrefix> {
        self.vertices
    }

    /// Main vertex `i`'s normal: from the normal table (16-byte vertices) or as stored.
    #[must_use]
    pub fn normal(&self, i: usize) -> Option<Vec3A> {
        self.vertices.record(i).map(record_normal)
    }

    /// The frames.
    #[must_use]
    pub fn frames(&self) -> Frames<'data> {
        self.frames
    }

    /// The bone weights, when a deformer gives them.
    #[must_use]
    pub fn weights(&self) -> Option<Weights<'data>> {
        self.weights
    }

    /// The texture coordinate of triangle corner `st`: `[0, 0]` for none ([`NONE16`], or a
    /// group without texture coordinates).
    fn texcoord(&self, st: u16) -> [f32; 2] {
        if st == NONE16 {
            return [0.0; 2];
        }
        self.texcoords
            .get(usize::from(st))
            .map_or([0.0; 2], |t| [t.u.get(), t.v.get()])
    }
}

/// One submesh: the triangles of a group drawn with one of its skins.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Part {
    pub(crate) group: usize,
    /// The skin in [`Mdl7::skins`], `None` for triangles without one.
    pub(crate) skin: Option<usize>,
    /// The triangles' stored material: `Some` selects them among the group's, `None` takes
    /// them all.
    pub(crate) select: Option<u32>,
    pub(crate) count: usize,
}

/// A validated MDL7 (zero-copy but for one record per group, skin and submesh).
#[derive(Debug, Clone)]
pub struct Mdl7<'data> {
    pub(crate) data: &'data [u8],
    pub(crate) header: &'data Header,
    pub(crate) bones: Table<'data, BonePrefix>,
    pub(crate) groups: Vec<Group<'data>>,
    pub(crate) skins: Vec<Skin<'data>>,
    pub(crate) parts: Vec<Part>,
    pub(crate) num_vertices: usize,
    pub(crate) num_triangles: usize,
    /// Whether any frame of any group replaces vertices.
    pub(crate) vertex_frames: bool,
    /// Where the main data ends and the entity lump starts.
    pub(crate) main_end: usize,
}

impl<'data> Mdl7<'data> {
    /// The header as stored.
    #[must_use]
    pub fn header(&self) -> &'data Header {
        self.header
    }

    /// The bytes the view reads.
    #[must_use]
    pub fn data(&self) -> &'data [u8] {
        self.data
    }

    /// The entity lump after the main data (`header.entlump_size` bytes, as many as the file
    /// holds; empty without one): MED's entity data, kept as stored.
    ///
    /// ```
    /// use skelmap_core::{Parse, mdl7};
    /// let mut b = mdl7::Builder::demo();
    /// b.trailing = b"entity".to_vec();
    /// let bytes = b.write();
    /// let view = mdl7::Mdl7::parse(&bytes)?;
    /// assert_eq!((view.entity_lump(), view.editor_lump()), (&b"entity"[..], &b""[..]));
    /// # Ok::<(), skelmap_core::Error>(())
    /// ```
    #[must_use]
    pub fn entity_lump(&self) -> &'data [u8] {
        self.lump(0, self.header.entlump_size.get())
    }

    /// The editor lump after the entity lump (`header.medlump_size` bytes, as many as the
    /// file holds; empty without one), kept as stored.
    #[must_use]
    pub fn editor_lump(&self) -> &'data [u8] {
        let skip = self.header.entlump_size.get();
        self.lump(skip, self.header.medlump_size.get())
    }

    /// `len` bytes from `skip` past the main data, clipped to the file.
    fn lump(&self, skip: u32, len: u32) -> &'data [u8] {
        let rest = self.data.get(self.main_end..).unwrap_or_default();
        let rest = rest.get(skip as usize..).unwrap_or_default();
        rest.get(..len as usize).unwrap_or(rest)
    }

    /// The bones: parent and position relative to it (parents before children).
    #[must_use]
    pub fn bones(&self) -> Table<'data, BonePrefix> {
        self.bones
    }

    /// Bone `i`'s bind position in model space: its position plus its parents'.
    #[must_use]
    pub fn bind_position(&self, i: usize) -> Option<Vec3A> {
        let mut at = Some(i);
        let mut sum = Vec3A::ZERO;
        // Parents precede children (validated), so the walk ends.
        while let Some(b) = at {
            let bone = self.bones.get(b)?;
            sum += Vec3A::new(bone.x.get(), bone.y.get(), bone.z.get());
            at = parent_of(bone);
        }
        Some(sum)
    }

    /// The groups.
    #[must_use]
    pub fn groups(&self) -> &[Group<'data>] {
        &self.groups
    }

    /// Every group's skins, in order.
    #[must_use]
    pub fn skins(&self) -> &[Skin<'data>] {
        &self.skins
    }

    /// `true` when bones move the vertices (frames then store bone motions); `false` when the
    /// frames replace vertices.
    #[must_use]
    pub fn is_skeletal(&self) -> bool {
        !self.bones.is_empty()
    }

    /// Number of frames: group 0's.
    #[must_use]
    pub fn num_frames(&self) -> usize {
        self.groups.first().map_or(0, |g| g.frames.len())
    }

    /// Frame `i` of group 0, which holds the bones' motions and the frames' names.
    #[must_use]
    pub fn frame(&self, i: usize) -> Option<Frame<'data>> {
        self.groups.first()?.frames.get(i)
    }

    /// The group holding vertex `v` of the model's one mesh, and `v` within it.
    fn vertex_group(&self, v: usize) -> Option<(&Group<'data>, usize)> {
        let g = self
            .groups
            .partition_point(|g| g.first_vertex <= v)
            .checked_sub(1)?;
        let group = self.groups.get(g)?;
        let local = v - group.first_vertex;
        (local < group.vertices.len()).then_some((group, local))
    }

    /// The group holding triangle `t` of the model's one mesh, and `t` within it.
    fn triangle_group(&self, t: usize) -> Option<(&Group<'data>, usize)> {
        let g = self
            .groups
            .partition_point(|g| g.first_triangle <= t)
            .checked_sub(1)?;
        let group = self.groups.get(g)?;
        let local = t - group.first_triangle;
        (local < group.triangles.len()).then_some((group, local))
    }

    /// The pose of `bone` in `frame`, relative to its parent: the stored motion `M` (row
    /// vectors, about the bone's bind position `P`) turned into `rotation · x + translation`
    /// with translation `M(P) − P(parent)`. A bone the frame does not move keeps its bind
    /// pose.
    fn local_pose(&self, frame: &Frame<'data>, bone: usize) -> Option<(Quat, Vec3A)> {
        let record = self.bones.get(bone)?;
        let parent = parent_of(record)
            .and_then(|p| self.bind_position(p))
            .unwrap_or(Vec3A::ZERO);
        let own = self.bind_position(bone)?;
        Some(motion_pose(frame.transform(bone), own, parent))
    }

    /// Every bone's bind position in model space, in one pass (parents precede children).
    fn bind_positions(&self) -> Vec<Vec3A> {
        let mut out: Vec<Vec3A> = Vec::with_capacity(self.bones.len());
        for bone in self.bones.iter() {
            let parent = parent_of(bone).and_then(|p| out.get(p).copied());
            let at = Vec3A::new(bone.x.get(), bone.y.get(), bone.z.get());
            out.push(parent.unwrap_or(Vec3A::ZERO) + at);
        }
        out
    }

    /// Writes frames `a` and `b`'s vertices tweened at `t` into `positions` and `normals`:
    /// each frame's vertices are the stored ones with the frame's replacements (applied in the
    /// order listed, so the last listing of a vertex wins); normals are blended and
    /// renormalised. A frame past a group's own frames is its stored vertices. For a skeletal
    /// file this is the bind-space mesh the bones then pose.
    pub(crate) fn tween_into(
        &self,
        [a, b]: [usize; 2],
        t: f32,
        positions: &mut [[f32; 3]],
        normals: &mut [[f32; 3]],
    ) {
        for group in &self.groups {
            let first = group.first_vertex;
            let n = group.vertices.len();
            let (Some(pos), Some(nrm)) = (
                positions.get_mut(first..first + n),
                normals.get_mut(first..first + n),
            ) else {
                continue;
            };
            let stored = |i: usize| {
                let v = group.vertices.get(i).map_or(Vec3A::ZERO, position);
                (v, group.normal(i).unwrap_or(Vec3A::ZERO))
            };
            // Frame a: the stored vertices, then its replacements.
            for (i, (p, q)) in pos.iter_mut().zip(nrm.iter_mut()).enumerate() {
                let (v, n) = stored(i);
                *p = v.into();
                *q = n.into();
            }
            let replace = |frame: Option<Frame<'data>>, f: &mut dyn FnMut(usize, Vec3A, Vec3A)| {
                if let Some(frame) = frame {
                    let table = frame.vertices();
                    for k in 0..table.len() {
                        let (Some(v), Some(r)) = (table.get(k), table.record(k)) else {
                            continue;
                        };
                        f(
                            usize::from(v.vertindex.get()),
                            position(v),
                            record_normal(r),
                        );
                    }
                }
            };
            replace(group.frames.get(a), &mut |i, v, n| {
                if let (Some(p), Some(q)) = (pos.get_mut(i), nrm.get_mut(i)) {
                    *p = v.into();
                    *q = n.into();
                }
            });
            if group.frames.ordered {
                // Towards frame b: first towards the stored vertices, then by each of b's
                // replacements' offsets from them (each vertex listed at most once).
                for (i, (p, q)) in pos.iter_mut().zip(nrm.iter_mut()).enumerate() {
                    let (v, n) = stored(i);
                    *p = Vec3A::from(*p).lerp(v, t).into();
                    *q = Vec3A::from(*q).lerp(n, t).into();
                }
                replace(group.frames.get(b), &mut |i, v, n| {
                    let (sv, sn) = stored(i);
                    if let (Some(p), Some(q)) = (pos.get_mut(i), nrm.get_mut(i)) {
                        *p = (Vec3A::from(*p) + t * (v - sv)).into();
                        *q = (Vec3A::from(*q) + t * (n - sn)).into();
                    }
                });
            } else {
                // A frame of this group lists a vertex twice or out of order: frame b whole
                // (an explicit copy, the last listing of a vertex winning), then the blend.
                let mut target: Vec<(Vec3A, Vec3A)> = (0..n).map(stored).collect();
                replace(group.frames.get(b), &mut |i, v, n| {
                    if let Some(slot) = target.get_mut(i) {
                        *slot = (v, n);
                    }
                });
                for ((p, q), (v, n)) in pos.iter_mut().zip(nrm.iter_mut()).zip(target) {
                    *p = Vec3A::from(*p).lerp(v, t).into();
                    *q = Vec3A::from(*q).lerp(n, t).into();
                }
            }
            for q in nrm.iter_mut() {
                *q = Vec3A::from(*q).normalize_or_zero().into();
            }
        }
    }

    /// The model's mesh with every vertex's weights gathered from the deformers (an explicit
    /// copy, `O(weights)`), for skinning.
    #[must_use]
    pub fn bind_mesh(&self) -> BindMesh<'_, 'data> {
        let mut starts = Vec::with_capacity(self.num_vertices + 1);
        let mut influences: Vec<(u16, f32)> = Vec::new();
        let mut counts = vec![0u32; self.num_vertices];
        for group in &self.groups {
            for (_, _, weights) in group.weights.iter().flat_map(Weights::iter) {
                for w in weights {
                    if let Some(c) = counts.get_mut(group.first_vertex + w.index.get() as usize) {
                        *c += 1;
                    }
                }
            }
        }
        let mut total = 0u32;
        for c in &counts {
            starts.push(total);
            total += c;
        }
        starts.push(total);
        influences.resize(total as usize, (0, 0.0));
        let mut fill = starts.clone();
        for group in &self.groups {
            for (bone, _, weights) in group.weights.iter().flat_map(Weights::iter) {
                for w in weights {
                    let v = group.first_vertex + w.index.get() as usize;
                    if let Some(slot) = fill.get_mut(v) {
                        if let Some(entry) = influences.get_mut(*slot as usize) {
                            *entry = (bone as u16, w.weight.get());
                        }
                        *slot += 1;
                    }
                }
            }
        }
        BindMesh {
            model: self,
            starts,
            influences,
        }
    }
}

/// The parent of a bone record, `None` for a root.
fn parent_of(bone: &BonePrefix) -> Option<usize> {
    let p = bone.parent_index.get();
    (p != NONE16).then_some(usize::from(p))
}

/// An MDL7's one mesh with its weights gathered per vertex ([`Mdl7::bind_mesh`]).
#[derive(Debug, Clone)]
pub struct BindMesh<'a, 'data> {
    model: &'a Mdl7<'data>,
    starts: Vec<u32>,
    influences: Vec<(u16, f32)>,
}

/// Vertices as stored, bound by their weights: the [`MAX_BIND_INFLUENCES`] largest,
/// normalised to sum 1. A vertex without weight is bound wholly to the bone its record names,
/// or to none.
impl BindPoseMesh for BindMesh<'_, '_> {
    fn num_vertices(&self) -> usize {
        self.model.num_vertices
    }

    fn bind_vertex(&self, i: usize) -> Option<BindVertex> {
        let (group, local) = self.model.vertex_group(i)?;
        let v = group.vertices.get(local)?;
        let mut influences = [None; MAX_BIND_INFLUENCES];
        let (start, end) = (
            *self.starts.get(i)? as usize,
            *self.starts.get(i + 1)? as usize,
        );
        let mut weights: [(u16, f32); MAX_BIND_INFLUENCES] = [(0, 0.0); MAX_BIND_INFLUENCES];
        let mut used = 0;
        for &(bone, w) in self.influences.get(start..end).unwrap_or_default() {
            if w <= 0.0 {
                continue;
            }
            if used < MAX_BIND_INFLUENCES {
                weights[used] = (bone, w);
                used += 1;
            } else if let Some(min) =
                (0..used).min_by(|&x, &y| weights[x].1.total_cmp(&weights[y].1))
                && weights[min].1 < w
            {
                weights[min] = (bone, w);
            }
        }
        // Scaled by the largest first, so that the sum of finite weights cannot overflow.
        let top = weights[..used].iter().fold(0.0f32, |m, w| m.max(w.1));
        let sum: f32 = weights[..used].iter().map(|w| w.1 / top).sum();
        if used > 0 && top > 0.0 {
            for (slot, &(bone, w)) in influences.iter_mut().zip(&weights[..used]) {
                *slot = Some((bone, w / top / sum));
            }
        } else {
            let bone = v.vertindex.get();
            if usize::from(bone) < self.model.bones.len() {
                influences[0] = Some((bone, 1.0));
            }
        }
        Some(BindVertex {
            position: position(v),
            normal: group.normal(local)?,
            influences,
        })
    }
}

/// The bones: names (20 or 32 bytes, or none) and parents.
impl<'data> Skeleton<'data> for Mdl7<'data> {
    fn skeleton_bones(&self) -> impl ExactSizeIterator<Item = Bone<'data>> + Clone {
        let bones = self.bones;
        (0..bones.len()).map(move |i| mdl7_bone(&bones, i))
    }

    fn bone(&self, index: usize) -> Option<Bone<'data>> {
        (index < self.bones.len()).then(|| mdl7_bone(&self.bones, index))
    }
}

/// Bone `i` of `bones` (in range): its name after the prefix, and its parent.
fn mdl7_bone<'data>(bones: &Table<'data, BonePrefix>, i: usize) -> Bone<'data> {
    let record = bones.record(i).unwrap_or_default();
    let name = record.get(size_of::<BonePrefix>()..).unwrap_or_default();
    let parent = bones.get(i).and_then(parent_of).map_or(-1, |p| p as i32);
    Bone::new(name, parent, 0)
}

/// Group 0's frames of bone motions, for skeletal files.
impl<'data> PoseFrames<'data> for Mdl7<'data> {
    fn num_frames(&self) -> usize {
        if self.is_skeletal() {
            Mdl7::num_frames(self)
        } else {
            0
        }
    }

    fn bone_pose(&self, frame: usize, bone: usize) -> Option<(Quat, Vec3A)> {
        let frame = self.frame(frame)?;
        self.local_pose(&frame, bone)
    }

    /// Linear in the bones and the frame's records, whatever their order: bind positions in
    /// one pass, then each bone's motion found in one pass over the records.
    fn frame_poses_into(&self, frame: usize, out: &mut Vec<(Quat, Vec3A)>) {
        let Some(f) = self.frame(frame) else {
            return;
        };
        let bind = self.bind_positions();
        // The record at a bone's own index, else the first naming it ([`Frame::transform`]).
        let mut motions: Vec<Option<&BoneTransform>> = vec![None; bind.len()];
        for (k, t) in f.transforms().iter().enumerate() {
            let b = usize::from(t.bone_index.get());
            if let Some(slot) = motions.get_mut(b)
                && (slot.is_none() || k == b)
            {
                *slot = Some(t);
            }
        }
        out.extend(
            self.bones
                .iter()
                .zip(&bind)
                .zip(motions)
                .map(|((bone, &own), m)| {
                    let parent = parent_of(bone).and_then(|p| bind.get(p).copied());
                    motion_pose(m, own, parent.unwrap_or(Vec3A::ZERO))
                }),
        );
    }
}

/// A bone's parent-relative pose from its motion `m` in a frame (none: the bind pose), its
/// bind position `own` and its parent's `parent` (see [`Mdl7::local_pose`]).
fn motion_pose(m: Option<&BoneTransform>, own: Vec3A, parent: Vec3A) -> (Quat, Vec3A) {
    let Some(transform) = m else {
        return (Quat::IDENTITY, own - parent);
    };
    let m = transform.m.map(|v| v.get());
    let rotation = Mat3A::from_cols(
        Vec3A::new(m[0], m[1], m[2]),
        Vec3A::new(m[4], m[5], m[6]),
        Vec3A::new(m[8], m[9], m[10]),
    );
    let translation = Vec3A::new(m[12], m[13], m[14]);
    let moved = rotation * own + translation;
    (Quat::from_mat3a(&rotation).normalize(), moved - parent)
}

/// One mesh of every group's vertices, a submesh per group and skin; bones or vertex frames.
impl<'data> ModelView<'data> for Mdl7<'data> {
    type Mesh<'a>
        = &'a Mdl7<'data>
    where
        Self: 'a;
    type FrameNames<'a>
        = IndexedNames<'a, 'data, Mdl7<'data>>
    where
        Self: 'a;
    type BindMesh<'a>
        = BindMesh<'a, 'data>
    where
        Self: 'a;

    fn check_animation(&self, diag: &mut crate::diag::Diagnostics) {
        self.check_rotations(diag);
    }

    fn format(&self) -> Format {
        Format::Mdl7
    }

    fn pose_frames(&self) -> Option<&impl PoseFrames<'data>> {
        self.is_skeletal().then_some(self)
    }

    fn num_frames(&self) -> usize {
        match Mdl7::num_frames(self) {
            // A model without bones or frames shows its stored vertices as frame 0.
            0 if !self.is_skeletal() => 1,
            n => n,
        }
    }

    fn frame_name(&self, index: usize) -> Option<&[u8]> {
        match self.frame(index) {
            Some(frame) => Some(frame.name()),
            None => (index < ModelView::num_frames(self)).then_some(&[]),
        }
    }

    fn frame_names(&self) -> Self::FrameNames<'_> {
        IndexedNames::new(self)
    }

    fn is_vertex_animated(&self) -> bool {
        !self.is_skeletal()
    }

    fn bind_pose(&self, out: &mut LocalPose) {
        out.bones.clear();
        out.scales.clear();
        out.bones.extend((0..self.bones.len()).map(|b| {
            let bone = self.bones.get(b);
            let at = bone.map_or(Vec3A::ZERO, |r| Vec3A::new(r.x.get(), r.y.get(), r.z.get()));
            (Quat::IDENTITY, at)
        }));
    }

    fn num_meshes(&self) -> usize {
        usize::from(!self.groups.is_empty())
    }

    fn mesh(&self, index: usize) -> Option<&Mdl7<'data>> {
        (index == 0 && !self.groups.is_empty()).then_some(self)
    }

    fn skins(&self) -> &[Skin<'_>] {
        &self.skins
    }

    fn bind_pose_mesh(&self) -> Option<Self::BindMesh<'_>> {
        self.is_skeletal().then(|| self.bind_mesh())
    }

    fn is_bind_posed(&self) -> bool {
        self.is_skeletal()
    }

    fn frames_replace_vertices(&self) -> bool {
        self.is_skeletal() && self.vertex_frames
    }

    /// The stored vertices with frames `a` and `b`'s replacements, tweened (the same rule as
    /// a boneless file's frames), and the vertices either replaces.
    fn frame_bind_vertices(&self, a: usize, b: usize, t: f32, vertices: &mut FrameVertices) {
        vertices.clear();
        if !ModelView::frames_replace_vertices(self) {
            return;
        }
        for group in &self.groups {
            for frame in [a, b].into_iter().filter_map(|f| group.frames.get(f)) {
                let listed = frame.vertices().iter().map(|v| v.vertindex.get());
                let first = group.first_vertex as u32;
                vertices
                    .replaced
                    .extend(listed.map(|v| first + u32::from(v)));
            }
        }
        if vertices.replaced.is_empty() {
            return;
        }
        vertices.replaced.sort_unstable();
        vertices.replaced.dedup();
        let n = self.num_vertices;
        vertices.positions.resize(n, [0.0; 3]);
        vertices.normals.resize(n, [0.0; 3]);
        self.tween_into([a, b], t, &mut vertices.positions, &mut vertices.normals);
    }

    fn tween(
        &self,
        _: usize,
        a: usize,
        b: usize,
        t: f32,
        _: SimdLevel,
        positions: &mut [[f32; 3]],
        normals: &mut [[f32; 3]],
    ) -> Result<(), DeformError> {
        let frames = ModelView::num_frames(self);
        if let Some(&frame) = [a, b].iter().find(|&&f| f >= frames) {
            return Err(DeformError::NoFrame { frame, frames });
        }
        let need = self.num_vertices;
        let have = positions.len().min(normals.len());
        if have < need {
            return Err(crate::skin::SkinError::Output { need, have }.into());
        }
        self.tween_into([a, b], t, positions, normals);
        Ok(())
    }
}

/// Every group's vertices and triangles, one after the other; texture coordinates per
/// triangle corner.
impl<'a, 'data: 'a> MeshView<'a> for &'a Mdl7<'data> {
    fn num_vertices(&self) -> usize {
        self.num_vertices
    }

    fn num_triangles(&self) -> usize {
        self.num_triangles
    }

    fn triangle(&self, i: usize) -> Option<[u32; 3]> {
        let (group, local) = self.triangle_group(i)?;
        let t = group.triangles.get(local)?;
        Some(
            t.v_index
                .map(|v| (group.first_vertex + usize::from(v.get())) as u32),
        )
    }

    fn texcoord_layout(&self) -> TexcoordLayout {
        if self.groups.iter().all(|g| g.texcoords.is_empty()) {
            TexcoordLayout::None
        } else {
            TexcoordLayout::PerCorner
        }
    }

    fn corner_texcoords(&self, t: usize) -> Option<[[f32; 2]; 3]> {
        let (group, local) = self.triangle_group(t)?;
        let tri = group.triangles.get(local)?;
        Some(tri.st_index.map(|st| group.texcoord(st.get())))
    }

    fn num_groups(&self) -> Option<usize> {
        Some(self.parts.len())
    }

    fn group(&self, i: usize) -> Option<Submesh<'a>> {
        let part = *self.parts.get(i)?;
        let group = self.groups.get(part.group)?;
        let name = group.name();
        Some(match part.select {
            None => Submesh::range(name, part.skin, group.first_triangle, part.count),
            Some(value) => Submesh::selected(
                name,
                part.skin,
                Selected {
                    table: group.triangles.bytes(),
                    stride: group.triangles.stride(),
                    at: size_of::<TrianglePrefix>(),
                    mask: u32::MAX,
                    value,
                    first: group.first_triangle,
                    count: part.count,
                },
            ),
        })
    }

    fn for_each_influence(&self, mut f: impl FnMut(usize, u32, f32)) {
        if !self.is_skeletal() {
            return;
        }
        let mesh = self.bind_mesh();
        for v in 0..self.num_vertices {
            if let Some(vertex) = mesh.bind_vertex(v) {
                for (bone, w) in vertex.influences.into_iter().flatten() {
                    f(v, u32::from(bone), w);
                }
            }
        }
    }
}
