//! The validated PSK and PSA views, the pair of them, and what `Model` reads through them: one
//! mesh of every wedge (a submesh per material) presented in the reference pose, the PSA's
//! frames played on the PSK's bones matched by name, its sequences as clips.
//!
//! Every coordinate is mirrored from Unreal's left-handed axes into right-handed ones by
//! negating `Y` where it is read (points, normals, bone and key translations, rotations), and
//! faces are reported in the reverse of their stored order, so that a model keeps its shape
//! and its front (`docs/formats/psk.md` § Axes).

use std::sync::OnceLock;

use glam::{Quat, Vec3A};
use zerocopy::LittleEndian;
use zerocopy::byteorder::F32;

use super::raw::{
    AnimInfoBinary, FNamedBoneBinary, VColor, VMaterial, VMeshUV, VNormal, VPoint, VQuatAnimKey,
    VRawBoneInfluence, VScaleAnimKey, VTriangle16, VTriangle32, VVertex,
};
use crate::format::Format;
use crate::name;
use crate::pose::framegroups::FrameGroup;
use crate::pose::{
    BindPoseMesh, BindVertex, Bone, LocalPose, MAX_BIND_INFLUENCES, PoseFrames, Skeleton,
};
use crate::view::{
    ClipOrigin, Conventions, IndexedNames, Material, MeshView, ModelView, Selected, Submesh,
    TexcoordLayout, TextureNames,
};

/// The most extra texture-coordinate sets read (`EXTRAUVS0` … `EXTRAUVS6`: Unreal keeps 8
/// sets, the wedge's own and these).
pub const MAX_EXTRA_UVS: usize = 7;

/// Frames per second of a sequence whose `AnimRate` is not positive.
pub const DEFAULT_RATE: f32 = 30.0;

/// A point's influences as the mesh is skinned with them: the heaviest
/// [`MAX_BIND_INFLUENCES`], normalised to sum to 1; a point without weights is bound wholly
/// to bone 0, as Unreal's importer binds it.
#[derive(Debug, Clone, Default)]
pub(super) struct PointWeights {
    /// Per point, where its influences start in `entries` (one more entry than points).
    starts: Vec<u32>,
    entries: Vec<(u16, f32)>,
    /// Points that had more than [`MAX_BIND_INFLUENCES`] weights.
    capped: usize,
    /// Points with no weight above 0.
    unweighted: usize,
}

impl PointWeights {
    fn build(num_points: usize, weights: &[VRawBoneInfluence]) -> PointWeights {
        // Counting sort by point: weights are validated in range.
        let mut starts = vec![0u32; num_points + 1];
        for w in weights.iter().filter(|w| w.weight.get() > 0.0) {
            starts[w.point_index.get() as usize + 1] += 1;
        }
        for i in 0..num_points {
            starts[i + 1] += starts[i];
        }
        let mut fill = starts.clone();
        let mut all = vec![(0u16, 0f32); starts[num_points] as usize];
        for w in weights.iter().filter(|w| w.weight.get() > 0.0) {
            let p = w.point_index.get() as usize;
            all[fill[p] as usize] = (w.bone_index.get() as u16, w.weight.get());
            fill[p] += 1;
        }
        let mut out = PointWeights {
            starts: Vec::with_capacity(num_points + 1),
            entries: Vec::with_capacity(all.len().min(num_points * MAX_BIND_INFLUENCES)),
            capped: 0,
            unweighted: 0,
        };
        for p in 0..num_points {
            out.starts.push(out.entries.len() as u32);
            let own = &mut all[starts[p] as usize..starts[p + 1] as usize];
            if own.is_empty() {
                out.unweighted += 1;
                out.entries.push((0, 1.0));
                continue;
            }
            // Heaviest first; equal weights keep file order (a stable sort).
            own.sort_by(|a, b| b.1.total_cmp(&a.1));
            let kept = &own[..own.len().min(MAX_BIND_INFLUENCES)];
            out.capped += usize::from(own.len() > MAX_BIND_INFLUENCES);
            // Summed and divided in f64: eight f32 weights cannot overflow it, so weights near
            // f32's largest keep their ratios. A weight too light beside the others to be an
            // f32 after the division is left out (the heaviest is at least 1/8).
            let sum: f64 = kept.iter().map(|k| f64::from(k.1)).sum();
            out.entries.extend(
                kept.iter()
                    .map(|&(bone, weight)| (bone, (f64::from(weight) / sum) as f32))
                    .filter(|&(_, weight)| weight > 0.0),
            );
        }
        out.starts.push(out.entries.len() as u32);
        out
    }

    fn of(&self, point: usize) -> &[(u16, f32)] {
        match (self.starts.get(point), self.starts.get(point + 1)) {
            (Some(&a), Some(&b)) => self.entries.get(a as usize..b as usize).unwrap_or(&[]),
            _ => &[],
        }
    }
}

/// A PSK's faces: 16-bit wedge indices (`FACE0000`) or 32-bit ones (`FACE3200`, PSKX).
#[derive(Debug, Clone, Copy)]
pub enum Faces<'data> {
    /// `FACE0000`.
    Narrow(&'data [VTriangle16]),
    /// `FACE3200`.
    Wide(&'data [VTriangle32]),
}

impl Faces<'_> {
    /// Number of faces.
    #[must_use]
    pub fn len(&self) -> usize {
        match self {
            Faces::Narrow(f) => f.len(),
            Faces::Wide(f) => f.len(),
        }
    }

    /// `true` without faces.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Face `i`'s wedges as stored and its material.
    #[must_use]
    pub fn get(&self, i: usize) -> Option<([u32; 3], u8)> {
        match self {
            Faces::Narrow(f) => f
                .get(i)
                .map(|f| (f.wedge_index.map(|w| u32::from(w.get())), f.mat_index)),
            Faces::Wide(f) => f
                .get(i)
                .map(|f| (f.wedge_index.map(|w| w.get()), f.mat_index)),
        }
    }
}

/// A validated PSK: every accessor is infallible on it.
#[derive(Debug, Clone)]
pub struct Psk<'data> {
    pub(super) data: &'data [u8],
    pub(super) points: &'data [VPoint],
    pub(super) wedges: &'data [VVertex],
    /// `VTXW3200`: point indices of 32 bits.
    pub(super) wide_wedges: bool,
    pub(super) faces: Faces<'data>,
    pub(super) materials: &'data [VMaterial],
    /// Faces counted per material, on the first [`ModelView`] group asked for.
    pub(super) faces_per_material: OnceLock<Vec<u32>>,
    pub(super) bones: &'data [FNamedBoneBinary],
    pub(super) weights: &'data [VRawBoneInfluence],
    /// The optional per-wedge and per-point chunks, boxed to keep the view small.
    pub(super) extras: Box<Extras<'data>>,
    /// Each point's influences, gathered on the first skinning.
    pub(super) influences: OnceLock<Box<PointWeights>>,
}

/// A PSK's optional chunks: extra texture coordinates and colours per wedge, normals per
/// point (each empty when absent).
#[derive(Debug, Clone)]
pub(super) struct Extras<'data> {
    pub(super) extra_uvs: [&'data [VMeshUV]; MAX_EXTRA_UVS],
    pub(super) colors: &'data [VColor],
    pub(super) normals: &'data [VNormal],
    /// Where the points' weights are: the `RAWWEIGHTS` chunk's header, else (a file without
    /// one) the `PNTS0000` chunk's, which the warnings about weights name.
    pub(super) weights_at: u64,
}

/// A stored vector mirrored into right-handed axes (`Y` negated).
fn mirrored(v: &[F32<LittleEndian>; 3]) -> Vec3A {
    Vec3A::new(v[0].get(), -v[1].get(), v[2].get())
}

/// A stored orientation as the rotation it means in right-handed axes: a root's (bone 0's) as
/// stored, every other bone's conjugated, then mirrored (`docs/formats/psk.md` § Rotations).
/// Normalised; validation proved its length not zero.
pub(super) fn rotation(q: &[F32<LittleEndian>; 4], root: bool) -> Quat {
    let [x, y, z, w] = q.map(|c| c.get());
    let q = if root {
        Quat::from_xyzw(-x, y, -z, w)
    } else {
        Quat::from_xyzw(x, -y, z, w)
    };
    q.normalize()
}

impl<'data> Psk<'data> {
    /// The file's bytes.
    #[must_use]
    pub fn data(&self) -> &'data [u8] {
        self.data
    }

    /// Number of points (positions).
    #[must_use]
    pub fn num_points(&self) -> usize {
        self.points.len()
    }

    /// Number of wedges: the mesh's vertices.
    #[must_use]
    pub fn num_wedges(&self) -> usize {
        self.wedges.len()
    }

    /// Number of faces.
    #[must_use]
    pub fn num_faces(&self) -> usize {
        self.faces.len()
    }

    /// Number of materials.
    #[must_use]
    pub fn num_materials(&self) -> usize {
        self.materials.len()
    }

    /// Faces per material, counted on the first call and kept (validation proved every
    /// material byte names a material). Faces come sorted by material in exported files, so
    /// the count goes a run of equal materials at a time.
    fn faces_per_material(&self) -> &[u32] {
        self.faces_per_material.get_or_init(|| {
            let mut counts = vec![0u32; self.materials.len()];
            let mut add = |material: u8, run: u32| {
                if let Some(n) = counts.get_mut(usize::from(material)) {
                    *n += run;
                }
            };
            let mut run = (0u8, 0u32);
            let mut step = |material: u8| {
                if material == run.0 {
                    run.1 += 1;
                } else {
                    add(run.0, run.1);
                    run = (material, 1);
                }
            };
            match self.faces {
                Faces::Narrow(f) => f.iter().for_each(|f| step(f.mat_index)),
                Faces::Wide(f) => f.iter().for_each(|f| step(f.mat_index)),
            }
            add(run.0, run.1);
            counts
        })
    }

    /// Number of bones.
    #[must_use]
    pub fn num_bones(&self) -> usize {
        self.bones.len()
    }

    /// Number of raw weights.
    #[must_use]
    pub fn num_weights(&self) -> usize {
        self.weights.len()
    }

    /// `true` for PSKX's 32-bit point indices (`VTXW3200`).
    #[must_use]
    pub fn wide_wedges(&self) -> bool {
        self.wide_wedges
    }

    /// The faces as stored.
    #[must_use]
    pub fn faces(&self) -> Faces<'data> {
        self.faces
    }

    /// The points as stored (Unreal's axes).
    #[must_use]
    pub fn points(&self) -> &'data [VPoint] {
        self.points
    }

    /// The wedges as stored.
    #[must_use]
    pub fn wedges(&self) -> &'data [VVertex] {
        self.wedges
    }

    /// The materials as stored.
    #[must_use]
    pub fn materials(&self) -> &'data [VMaterial] {
        self.materials
    }

    /// The reference skeleton as stored.
    #[must_use]
    pub fn bones(&self) -> &'data [FNamedBoneBinary] {
        self.bones
    }

    /// The raw weights as stored.
    #[must_use]
    pub fn weights(&self) -> &'data [VRawBoneInfluence] {
        self.weights
    }

    /// Point `i` in right-handed axes (`Y` negated).
    #[must_use]
    pub fn point(&self, i: usize) -> Option<[f32; 3]> {
        self.points.get(i).map(|p| mirrored(&p.point).to_array())
    }

    /// Wedge `i`'s point (the low 16 bits of the field in `VTXW0000`).
    #[must_use]
    pub fn wedge_point(&self, i: usize) -> Option<u32> {
        let w = self.wedges.get(i)?;
        let mask = if self.wide_wedges { u32::MAX } else { 0xFFFF };
        Some(w.point_index.get() & mask)
    }

    /// Wedge `i`'s texture coordinate as stored (`V` downwards, as glTF's).
    #[must_use]
    pub fn texcoord(&self, i: usize) -> Option<[f32; 2]> {
        self.wedges.get(i).map(|w| [w.u.get(), w.v.get()])
    }

    /// Wedge `i`'s texture coordinate of extra set `set` (`EXTRAUVS<set>`), if the file has it.
    #[must_use]
    pub fn extra_texcoord(&self, set: usize, i: usize) -> Option<[f32; 2]> {
        let uv = self.extras.extra_uvs.get(set)?.get(i)?;
        Some([uv.u.get(), uv.v.get()])
    }

    /// Which extra texture-coordinate sets the file has.
    #[must_use]
    pub fn has_extra_texcoords(&self, set: usize) -> bool {
        self.extras
            .extra_uvs
            .get(set)
            .is_some_and(|s| !s.is_empty())
    }

    /// Wedge `i`'s colour as RGBA (`VERTEXCOLOR` stores BGRA), if the file has colours.
    #[must_use]
    pub fn color(&self, i: usize) -> Option<[u8; 4]> {
        self.extras.colors.get(i).map(|c| [c.r, c.g, c.b, c.a])
    }

    /// Point `i`'s stored normal (`VTXNORMS`) in right-handed axes, if the file has normals.
    #[must_use]
    pub fn normal(&self, i: usize) -> Option<[f32; 3]> {
        self.extras
            .normals
            .get(i)
            .map(|n| mirrored(&n.normal).to_array())
    }

    /// `true` when the file stores normals (`VTXNORMS`).
    #[must_use]
    pub fn has_normals(&self) -> bool {
        !self.extras.normals.is_empty()
    }

    /// Material `i`'s name, up to its first NUL.
    #[must_use]
    pub fn material_name(&self, i: usize) -> Option<&'data [u8]> {
        self.materials
            .get(i)
            .map(|m| name::trim_nul(&m.material_name))
    }

    /// Face `i` as three wedges, counter-clockwise seen from its front in right-handed axes
    /// (the stored order reversed).
    #[must_use]
    pub fn triangle(&self, i: usize) -> Option<[u32; 3]> {
        let ([a, b, c], _) = self.faces.get(i)?;
        Some([c, b, a])
    }

    /// Face `i`'s material.
    #[must_use]
    pub fn face_material(&self, i: usize) -> Option<usize> {
        self.faces.get(i).map(|(_, m)| usize::from(m))
    }

    /// Bone `i`'s rest pose relative to its parent, in right-handed axes.
    #[must_use]
    pub fn rest_pose(&self, i: usize) -> Option<(Quat, Vec3A)> {
        let b = self.bones.get(i)?;
        Some((
            rotation(&b.bone_pos.orientation, i == 0),
            mirrored(&b.bone_pos.position),
        ))
    }

    /// Point `point`'s influences as the mesh is skinned with them: the heaviest 8, normalised,
    /// a point without weights wholly on bone 0. The table is gathered on the first call (or
    /// the first skinning) and kept.
    #[must_use]
    pub fn point_influences(&self, point: usize) -> &[(u16, f32)] {
        self.point_weights().of(point)
    }

    /// How many points had more than 8 weights (the lightest were dropped) and how many had
    /// none (bound to bone 0).
    #[must_use]
    pub fn weight_findings(&self) -> (usize, usize) {
        let w = self.point_weights();
        (w.capped, w.unweighted)
    }

    fn point_weights(&self) -> &PointWeights {
        self.influences
            .get_or_init(|| Box::new(PointWeights::build(self.points.len(), self.weights)))
    }

    fn bone_of(&self, i: usize) -> Option<Bone<'data>> {
        bone_at(self.bones, i)
    }
}

/// Bone `i` of `bones`, the root (bone 0) without a parent whatever it stores (0 or −1).
fn bone_at<'data>(bones: &'data [FNamedBoneBinary], i: usize) -> Option<Bone<'data>> {
    let b = bones.get(i)?;
    let parent = if i == 0 { -1 } else { b.parent_index.get() };
    Some(Bone::new(&b.name, parent, 0))
}

/// A validated PSA: bones, sequences, keys.
#[derive(Debug, Clone)]
pub struct Psa<'data> {
    pub(super) data: &'data [u8],
    pub(super) bones: &'data [FNamedBoneBinary],
    pub(super) infos: &'data [AnimInfoBinary],
    pub(super) keys: &'data [VQuatAnimKey],
    pub(super) scales: &'data [VScaleAnimKey],
    /// The `BONENAMES` chunk's header, which what is said of the bones names.
    pub(super) bones_at: u64,
    pub(super) num_frames: usize,
    /// The sequences lie back to back from frame 0, whatever their `FirstRawFrame`
    /// ([`firsts_are_counts`](super::validate::firsts_are_counts)).
    pub(super) back_to_back: bool,
}

/// One sequence of a PSA.
#[derive(Debug, Clone, Copy)]
pub struct Sequence<'data> {
    raw: &'data AnimInfoBinary,
    first: u32,
}

impl<'data> Sequence<'data> {
    /// The record as stored.
    #[must_use]
    pub fn raw(&self) -> &'data AnimInfoBinary {
        self.raw
    }

    /// The name, up to its first NUL.
    #[must_use]
    pub fn name(&self) -> &'data [u8] {
        name::trim_nul(&self.raw.name)
    }

    /// The group, up to its first NUL.
    #[must_use]
    pub fn group(&self) -> &'data [u8] {
        name::trim_nul(&self.raw.group)
    }

    /// The first frame (validated with [`num_frames`](Sequence::num_frames) within the file's):
    /// `FirstRawFrame`, or where a file written by CUE4Parse before its fix of issue 103
    /// stores every sequence's frame count there, the frames of the sequences before it.
    #[must_use]
    pub fn first_frame(&self) -> u32 {
        self.first
    }

    /// Number of frames.
    #[must_use]
    pub fn num_frames(&self) -> u32 {
        self.raw.num_raw_frames.get() as u32
    }

    /// Frames per second: `AnimRate`, or [`DEFAULT_RATE`] where it is not positive.
    #[must_use]
    pub fn rate(&self) -> f32 {
        let rate = self.raw.anim_rate.get();
        if rate > 0.0 { rate } else { DEFAULT_RATE }
    }
}

impl<'data> Psa<'data> {
    /// The file's bytes.
    #[must_use]
    pub fn data(&self) -> &'data [u8] {
        self.data
    }

    /// Number of bones (keys per frame).
    #[must_use]
    pub fn num_bones(&self) -> usize {
        self.bones.len()
    }

    /// Number of frames: keys ÷ bones.
    #[must_use]
    pub fn num_frames(&self) -> usize {
        self.num_frames
    }

    /// The bones as stored.
    #[must_use]
    pub fn bones(&self) -> &'data [FNamedBoneBinary] {
        self.bones
    }

    /// Bone `i`'s name, up to its first NUL.
    #[must_use]
    pub fn bone_name(&self, i: usize) -> Option<&'data [u8]> {
        self.bones.get(i).map(|b| name::trim_nul(&b.name))
    }

    /// Number of sequences.
    #[must_use]
    pub fn num_sequences(&self) -> usize {
        self.infos.len()
    }

    /// Sequence `i`.
    #[must_use]
    pub fn sequence(&self, i: usize) -> Option<Sequence<'data>> {
        let raw = self.infos.get(i)?;
        let first = if self.back_to_back {
            // Validated: the counts before it sum within the file's frames.
            let before = self.infos.get(..i).unwrap_or_default();
            before.iter().map(|s| s.num_raw_frames.get() as u32).sum()
        } else {
            raw.first_raw_frame.get() as u32
        };
        Some(Sequence { raw, first })
    }

    /// The sequences in file order.
    pub fn sequences(&self) -> impl ExactSizeIterator<Item = Sequence<'data>> + Clone + 'data {
        let back_to_back = self.back_to_back;
        let mut next = 0u32;
        self.infos.iter().map(move |raw| {
            let count = raw.num_raw_frames.get() as u32;
            let first = if back_to_back {
                next
            } else {
                raw.first_raw_frame.get() as u32
            };
            next = next.wrapping_add(count);
            Sequence { raw, first }
        })
    }

    /// The key of bone `bone` at frame `frame` as stored.
    #[must_use]
    pub fn raw_key(&self, frame: usize, bone: usize) -> Option<&'data VQuatAnimKey> {
        if bone >= self.bones.len() {
            return None;
        }
        self.keys.get(frame.checked_mul(self.bones.len())? + bone)
    }

    /// Bone `bone`'s pose at frame `frame` relative to its parent, in right-handed axes.
    #[must_use]
    pub fn key(&self, frame: usize, bone: usize) -> Option<(Quat, Vec3A)> {
        let k = self.raw_key(frame, bone)?;
        Some((rotation(&k.orientation, bone == 0), mirrored(&k.position)))
    }

    /// Bone `bone`'s scale at frame `frame` (`SCALEKEYS`), if the file has scale keys.
    #[must_use]
    pub fn scale(&self, frame: usize, bone: usize) -> Option<[f32; 3]> {
        if bone >= self.bones.len() {
            return None;
        }
        let s = self
            .scales
            .get(frame.checked_mul(self.bones.len())? + bone)?;
        Some(s.scale_vector.map(|c| c.get()))
    }

    fn clips(&self) -> Vec<FrameGroup> {
        self.sequences()
            .filter(|s| s.num_frames() > 0)
            .map(|s| FrameGroup {
                name: name::lossy(s.name()).into_owned(),
                first: s.first_frame(),
                count: s.num_frames(),
                fps: s.rate(),
                looped: true,
            })
            .collect()
    }

    fn bone_of(&self, i: usize) -> Option<Bone<'data>> {
        bone_at(self.bones, i)
    }
}

/// Every bone of `bones`.
fn all_bones<'data>(
    bones: &'data [FNamedBoneBinary],
) -> impl ExactSizeIterator<Item = Bone<'data>> + Clone {
    (0..bones.len()).map(move |i| bone_at(bones, i).unwrap_or_else(|| Bone::new(&[], -1, 0)))
}

impl<'data> Skeleton<'data> for Psa<'data> {
    fn skeleton_bones(&self) -> impl ExactSizeIterator<Item = Bone<'data>> + Clone {
        all_bones(self.bones)
    }

    fn bone(&self, index: usize) -> Option<Bone<'data>> {
        self.bone_of(index)
    }
}

impl<'data> PoseFrames<'data> for Psa<'data> {
    fn num_frames(&self) -> usize {
        self.num_frames
    }

    fn bone_pose(&self, frame: usize, bone: usize) -> Option<(Quat, Vec3A)> {
        self.key(frame, bone)
    }
}

/// A PSA alone: a skeleton whose frame 0 is its bind pose, the sequences as clips, no meshes.
impl<'data> ModelView<'data> for Psa<'data> {
    type Mesh<'a>
        = crate::view::NoMesh
    where
        Self: 'a;
    type FrameNames<'a>
        = IndexedNames<'a, 'data, Self>
    where
        Self: 'a;
    type BindMesh<'a>
        = crate::view::NoMesh
    where
        Self: 'a;

    fn format(&self) -> Format {
        Format::Psa
    }

    fn conventions(&self) -> Conventions {
        UNREAL
    }

    fn pose_frames(&self) -> Option<&impl PoseFrames<'data>> {
        Some(self)
    }

    fn frame_names(&self) -> Self::FrameNames<'_> {
        IndexedNames::new(self)
    }

    fn clip_origin(&self) -> ClipOrigin {
        ClipOrigin::FrameGroups
    }

    fn built_in_clips(&self) -> Vec<FrameGroup> {
        self.clips()
    }

    fn every_bone_attaches(&self) -> bool {
        true
    }
}

/// Unreal's conventions once mirrored: `+Z` up, facing `+X`; materials name Unreal materials,
/// not files.
const UNREAL: Conventions = Conventions {
    textures: TextureNames::Shaders,
    ..Conventions::QUAKE
};

/// The marker of a PSK bone that no PSA bone matches.
const UNMATCHED: u16 = u16::MAX;

/// A PSK with the PSA beside it (when one was found or given), the PSA's bones matched to the
/// PSK's by name.
#[derive(Debug, Clone)]
pub struct Pair<'data> {
    pub(super) psk: Psk<'data>,
    /// Boxed to keep the view small.
    pub(super) psa: Option<Box<Psa<'data>>>,
    /// Per PSK bone, its PSA bone, or [`UNMATCHED`].
    pub(super) matched: Vec<u16>,
}

impl<'data> Pair<'data> {
    /// The PSK alone.
    #[must_use]
    pub fn single(psk: Psk<'data>) -> Pair<'data> {
        Pair {
            psk,
            psa: None,
            matched: Vec::new(),
        }
    }

    /// The PSK playing `psa`: each PSK bone takes the keys of the PSA bone of its name (ASCII
    /// case ignored, as Unreal's names compare). Returns the pair and the number of PSA bones
    /// that match no PSK bone (their keys are ignored).
    #[must_use]
    pub fn new(psk: Psk<'data>, psa: Psa<'data>) -> (Pair<'data>, usize) {
        // Each name's first PSA bone, found once (a look-up a PSK bone, not a walk of the
        // PSA's: both files are untrusted).
        let mut by_name = std::collections::HashMap::with_capacity(psa.num_bones());
        for j in 0..psa.num_bones() {
            let name = psa.bone_name(j).unwrap_or_default().to_ascii_lowercase();
            by_name.entry(name).or_insert(j);
        }
        let mut used = vec![false; psa.num_bones()];
        let matched: Vec<u16> = (0..psk.num_bones())
            .map(|i| {
                let name = psk.bone_of(i).map(|b| b.name()).unwrap_or_default();
                by_name
                    .get(&name.to_ascii_lowercase())
                    .inspect(|&&j| {
                        if let Some(u) = used.get_mut(j) {
                            *u = true;
                        }
                    })
                    .map_or(UNMATCHED, |&j| j as u16)
            })
            .collect();
        let unmatched = used.iter().filter(|&&u| !u).count();
        (
            Pair {
                psk,
                psa: Some(Box::new(psa)),
                matched,
            },
            unmatched,
        )
    }

    /// The mesh.
    #[must_use]
    pub fn psk(&self) -> &Psk<'data> {
        &self.psk
    }

    /// The animations, if a PSA was found or given.
    #[must_use]
    pub fn psa(&self) -> Option<&Psa<'data>> {
        self.psa.as_deref()
    }

    /// The PSA bone PSK bone `bone` plays, if one matches it.
    #[must_use]
    pub fn matched_bone(&self, bone: usize) -> Option<usize> {
        self.matched
            .get(bone)
            .filter(|&&j| j != UNMATCHED)
            .map(|&j| usize::from(j))
    }

    /// The PSA, when it has frames to play.
    fn playing(&self) -> Option<&Psa<'data>> {
        self.psa.as_deref().filter(|a| a.num_frames() > 0)
    }
}

impl<'data> Skeleton<'data> for Pair<'data> {
    fn skeleton_bones(&self) -> impl ExactSizeIterator<Item = Bone<'data>> + Clone {
        all_bones(self.psk.bones)
    }

    fn bone(&self, index: usize) -> Option<Bone<'data>> {
        self.psk.bone_of(index)
    }
}

/// The PSA's frames on the PSK's bones (a bone it does not key keeps its rest pose); without
/// a PSA, one frame: the reference pose.
impl<'data> PoseFrames<'data> for Pair<'data> {
    fn num_frames(&self) -> usize {
        self.playing().map_or(1, Psa::num_frames)
    }

    fn bone_pose(&self, frame: usize, bone: usize) -> Option<(Quat, Vec3A)> {
        let Some(psa) = self.playing() else {
            return (frame == 0).then(|| self.psk.rest_pose(bone)).flatten();
        };
        if frame >= psa.num_frames() {
            return None;
        }
        match self.matched_bone(bone) {
            Some(j) => psa.key(frame, j),
            None => self.psk.rest_pose(bone),
        }
    }
}

impl<'data> ModelView<'data> for Pair<'data> {
    type Mesh<'a>
        = &'a Psk<'data>
    where
        Self: 'a;
    type FrameNames<'a>
        = IndexedNames<'a, 'data, Self>
    where
        Self: 'a;
    type BindMesh<'a>
        = &'a Psk<'data>
    where
        Self: 'a;

    fn format(&self) -> Format {
        Format::Psk
    }

    fn conventions(&self) -> Conventions {
        UNREAL
    }

    /// Points with more than 8 weights and points with none, found when the weights are first
    /// gathered.
    fn check_animation(&self, diag: &mut crate::diag::Diagnostics) {
        let (capped, unweighted) = self.psk.weight_findings();
        if capped > 0 {
            diag.warn_n(
                Format::Psk,
                crate::diag::WarningKind::SpecLimit,
                "RAWWEIGHTS",
                self.psk.extras.weights_at,
                capped as u64,
                || {
                    format!(
                        "{capped} points have more than {MAX_BIND_INFLUENCES} weights; the \
                         lightest are dropped and the rest normalised"
                    )
                },
            );
        }
        if unweighted > 0 {
            diag.warn_n(
                Format::Psk,
                crate::diag::WarningKind::ZeroWeights,
                "RAWWEIGHTS",
                self.psk.extras.weights_at,
                unweighted as u64,
                || format!("{unweighted} points have no weight; bound to bone 0"),
            );
        }
    }

    fn pose_frames(&self) -> Option<&impl PoseFrames<'data>> {
        Some(self)
    }

    fn frame_names(&self) -> Self::FrameNames<'_> {
        IndexedNames::new(self)
    }

    fn clip_origin(&self) -> ClipOrigin {
        if self.playing().is_some() {
            ClipOrigin::FrameGroups
        } else {
            ClipOrigin::None
        }
    }

    fn built_in_clips(&self) -> Vec<FrameGroup> {
        self.playing().map(Psa::clips).unwrap_or_default()
    }

    /// The reference skeleton, whatever the PSA plays.
    fn bind_pose(&self, out: &mut LocalPose) {
        out.bones.clear();
        out.scales.clear();
        out.bones
            .extend((0..self.psk.num_bones()).filter_map(|i| self.psk.rest_pose(i)));
    }

    fn num_meshes(&self) -> usize {
        1
    }

    fn mesh(&self, index: usize) -> Option<&Psk<'data>> {
        (index == 0).then_some(&self.psk)
    }

    fn every_bone_attaches(&self) -> bool {
        true
    }

    fn num_materials(&self) -> usize {
        self.psk.num_materials()
    }

    fn material(&self, index: usize) -> Option<Material<'_>> {
        self.psk.material_name(index).map(Material::plain)
    }

    fn bind_pose_mesh(&self) -> Option<&Psk<'data>> {
        Some(&self.psk)
    }
}

impl<'a, 'data: 'a> MeshView<'a> for &'a Psk<'data> {
    fn num_vertices(&self) -> usize {
        self.num_wedges()
    }

    fn num_triangles(&self) -> usize {
        self.num_faces()
    }

    fn triangle(&self, i: usize) -> Option<[u32; 3]> {
        Psk::triangle(self, i)
    }

    fn texcoord_layout(&self) -> TexcoordLayout {
        TexcoordLayout::PerVertex
    }

    fn vertex_texcoord(&self, v: usize) -> Option<[f32; 2]> {
        self.texcoord(v)
    }

    fn vertex_color(&self, v: usize) -> Option<[u8; 4]> {
        self.color(v)
    }

    fn num_groups(&self) -> Option<usize> {
        Some(self.materials.len())
    }

    /// The faces of material `i`, found in the face table by their `MatIndex` byte.
    fn group(&self, i: usize) -> Option<Submesh<'a>> {
        let count = *self.faces_per_material().get(i)? as usize;
        let (table, stride, at): (&'a [u8], usize, usize) = match self.faces {
            Faces::Narrow(f) => (
                zerocopy::IntoBytes::as_bytes(f),
                size_of::<VTriangle16>(),
                core::mem::offset_of!(VTriangle16, mat_index),
            ),
            Faces::Wide(f) => (
                zerocopy::IntoBytes::as_bytes(f),
                size_of::<VTriangle32>(),
                core::mem::offset_of!(VTriangle32, mat_index),
            ),
        };
        Some(Submesh::selected(
            self.material_name(i)?,
            Some(i),
            Selected {
                table,
                stride,
                at,
                mask: 0xFF,
                value: i as u32,
                first: 0,
                count,
            },
        ))
    }

    fn for_each_influence(&self, mut f: impl FnMut(usize, u32, f32)) {
        for v in 0..self.num_wedges() {
            let point = self.wedge_point(v).unwrap_or(0) as usize;
            for &(bone, weight) in self.point_influences(point) {
                f(v, u32::from(bone), weight);
            }
        }
    }
}

/// Each wedge at its point in the reference pose, with the point's stored normal (zero where
/// the file has none) and influences.
impl BindPoseMesh for &Psk<'_> {
    fn num_vertices(&self) -> usize {
        self.num_wedges()
    }

    fn bind_vertex(&self, i: usize) -> Option<BindVertex> {
        let point = self.wedge_point(i)? as usize;
        let position = mirrored(&self.points.get(point)?.point);
        let normal = self
            .extras
            .normals
            .get(point)
            .map_or(Vec3A::ZERO, |n| mirrored(&n.normal));
        let mut influences = [None; MAX_BIND_INFLUENCES];
        for (slot, &inf) in influences.iter_mut().zip(self.point_influences(point)) {
            *slot = Some(inf);
        }
        Some(BindVertex {
            position,
            normal,
            influences,
        })
    }
}
