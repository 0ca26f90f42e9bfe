//! The one place that knows every format: [`Model`], a validated model of any format behind
//! one format-neutral API.
//!
//! A `Model` holds the bytes of its files (a memory map, an owned buffer, or memory the caller
//! lends) together with the validated view over them, so it can be stored, sent between
//! threads and handed to C without lifetime tricks. `Model<'static>` owns or maps its files;
//! `Model<'data>` borrows bytes the caller owns. Everything a runtime needs is a method:
//!
//! - the skeleton ([`Model::bones`], [`Model::bone_index`]), frames and clips
//!   ([`Model::num_frames`], [`Model::clips`]);
//! - sampling ([`Model::sample`], [`Model::bind_pose`]) and palettes ([`Model::palette`]);
//! - meshes ([`Model::mesh`]: counts, triangles, texture coordinates, submeshes),
//!   materials, skins, the terrain grid, stored and computed bounds;
//! - deforming into caller buffers ([`Model::pose`] then [`Model::deform`]: skinning for
//!   skeletal formats, the morph for vertex-animated ones), and [`Model::prepare`], which
//!   gives the prepared SIMD kernel for every skeletal format.
//!
//! The format's own view stays reachable for format detail ([`Model::view`],
//! [`Model::as_dpm`] and the like).
//!
//! ```
//! use skelmap_core::Model;
//! use skelmap_core::model::Pose;
//! use skelmap_core::pose::Interpolation;
//!
//! let bytes = skelmap_core::synth::tube(&Default::default()).write()?;
//! let model = Model::from_bytes(&bytes)?; // or Model::open(path)
//! assert_eq!((model.num_bones(), model.num_frames(), model.num_meshes()), (4, 9, 1));
//! let mut pose = Pose::default();
//! model.pose(2, 3, 0.5, Interpolation::Nlerp, &mut pose)?;
//! let n = model.mesh(0).map_or(0, |m| m.num_vertices());
//! let (mut positions, mut normals) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
//! model.deform(0, &pose, &mut positions, &mut normals)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod deform;
mod mesh;
mod open;
mod records;

use std::sync::OnceLock;

pub use crate::skin::Records;
pub use deform::{Compact, DeformError, Pose, Prepared};
pub use mesh::{Material, Mesh, Submesh, TerrainGrid, TexcoordLayout};
pub use open::OpenOptions;

use crate::diag::Diagnostics;
use crate::dpm::Dpm;
use crate::format::Format;
use crate::gamestudio::{Hmp, HmpFrameIter, Mdl, MdlFrameIter};
use crate::ms3d::Ms3d;
use crate::pose::bounds::Aabb;
use crate::pose::framegroups::{FrameGroup, groups_from_names};
use crate::pose::{Bone, Interpolation, LocalPose, Palette, Skeleton, sample};
use crate::quake;
use crate::skm;
use crate::skm::Skp;
use crate::slmdl;
use crate::source::Source;

/// Frames per second of clips made from frame names (DarkPlaces' default).
pub const NAMED_CLIP_FPS: f32 = 10.0;

/// The validated view of each format, as a [`Model`] holds it.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum View<'data> {
    /// A DarkPlaces model.
    Dpm(Dpm<'data>),
    /// A Qfusion mesh paired with its skeleton (and levels of detail).
    Skm(skm::Model<'data>),
    /// A Qfusion skeleton on its own: bones and frames, no meshes.
    Skp(Skp<'data>),
    /// A MilkShape 3D model.
    Ms3d(Ms3d<'data>),
    /// A GameStudio model.
    Mdl(Mdl<'data>),
    /// A GameStudio terrain.
    Hmp(Hmp<'data>),
    /// A Quake model, or a GameStudio MDL2 (which has Quake's layout).
    Quake(quake::Mdl<'data>),
    /// An SL mesh, with its animation when one was found.
    SlMdl(slmdl::Model<'data>),
    /// An SL animation on its own: bones and keyframes, no meshes.
    SlAnim(slmdl::Animation<'data>),
}

/// What a file beside the model is to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Companion {
    /// An SKM's skeleton (`.skp`, named by its `.cfg` or its own name).
    Skeleton,
    /// An SKM's level of detail (`name_1.skm` … `name_4.skm`).
    LevelOfDetail,
    /// An SL mesh's animation (`name.anim`).
    Animation,
    /// DarkPlaces' `.framegroups` sidecar (`model.dpm.framegroups`).
    FrameGroups,
}

/// Where [`Model::clips`] come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClipOrigin {
    /// Consecutive frames whose names share a stem (`walk_1`, `walk_2` …), at
    /// [`NAMED_CLIP_FPS`].
    FrameNames,
    /// A `.framegroups` sidecar.
    FrameGroupsFile,
    /// The whole timeline of an MS3D (`total_frames`), at its keyframer's rate.
    Timeline,
    /// A Quake model's (or MDL2's) frame groups, timed by their intervals, and its single
    /// frames grouped by name at [`NAMED_CLIP_FPS`].
    FrameGroups,
    /// The model has no frames to group.
    None,
}

/// The files a model is made of: the one opened, then its companions.
#[derive(Debug)]
struct Files<'data> {
    path: String,
    main: Source<'data>,
    companions: Vec<(Companion, String, Source<'data>)>,
}

impl<'data> Files<'data> {
    fn companion(&self, kind: Companion) -> impl Iterator<Item = &Source<'data>> {
        self.companions
            .iter()
            .filter(move |(k, _, _)| *k == kind)
            .map(|(_, _, source)| source)
    }
}

self_cell::self_cell!(
    /// The files and the views borrowed from them.
    struct Cell<'data> {
        owner: Files<'data>,
        #[covariant]
        dependent: View,
    }
);

impl core::fmt::Debug for Cell<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        self.borrow_dependent().fmt(f)
    }
}

/// A validated model of any format (see the [module docs](self)). `Send` and `Sync`.
#[derive(Debug)]
pub struct Model<'data> {
    cell: Cell<'data>,
    diagnostics: Diagnostics,
    clips: OnceLock<Vec<FrameGroup>>,
    clip_origin: ClipOrigin,
    /// The bind pose's world transforms, for formats stored in their bind pose (MS3D, SL),
    /// computed on first use.
    bind: OnceLock<Palette>,
}

impl<'data> Model<'data> {
    /// The format.
    #[must_use]
    pub fn format(&self) -> Format {
        match self.view() {
            View::Dpm(_) => Format::Dpm,
            View::Skm(_) => Format::Skm,
            View::Skp(_) => Format::Skp,
            View::Ms3d(_) => Format::Ms3d,
            View::Mdl(_) => Format::Mdl,
            View::Hmp(_) => Format::Hmp,
            View::SlMdl(_) => Format::SlMdl,
            View::SlAnim(_) => Format::SlAnim,
            View::Quake(q) => q.format(),
        }
    }

    /// The format's own view, for format detail.
    #[must_use]
    pub fn view(&self) -> &View<'_> {
        self.cell.borrow_dependent()
    }

    /// The DPM view, if this is a DPM.
    #[must_use]
    pub fn as_dpm(&self) -> Option<&Dpm<'_>> {
        match self.view() {
            View::Dpm(m) => Some(m),
            _ => None,
        }
    }

    /// The paired SKM, if this is an SKM.
    #[must_use]
    pub fn as_skm(&self) -> Option<&skm::Model<'_>> {
        match self.view() {
            View::Skm(m) => Some(m),
            _ => None,
        }
    }

    /// The SKP view, if this is a lone skeleton.
    #[must_use]
    pub fn as_skp(&self) -> Option<&Skp<'_>> {
        match self.view() {
            View::Skp(m) => Some(m),
            _ => None,
        }
    }

    /// The MS3D view, if this is an MS3D.
    #[must_use]
    pub fn as_ms3d(&self) -> Option<&Ms3d<'_>> {
        match self.view() {
            View::Ms3d(m) => Some(m),
            _ => None,
        }
    }

    /// The MDL view, if this is a GameStudio model.
    #[must_use]
    pub fn as_mdl(&self) -> Option<&Mdl<'_>> {
        match self.view() {
            View::Mdl(m) => Some(m),
            _ => None,
        }
    }

    /// The HMP view, if this is a terrain.
    #[must_use]
    pub fn as_hmp(&self) -> Option<&Hmp<'_>> {
        match self.view() {
            View::Hmp(m) => Some(m),
            _ => None,
        }
    }

    /// The SL mesh (and its animation), if this is an SL mesh.
    #[must_use]
    pub fn as_sl_mdl(&self) -> Option<&slmdl::Model<'_>> {
        match self.view() {
            View::SlMdl(m) => Some(m),
            _ => None,
        }
    }

    /// The SL animation: the one opened, or the one an SL mesh was paired with.
    #[must_use]
    pub fn as_sl_anim(&self) -> Option<slmdl::Animation<'_>> {
        match self.view() {
            View::SlAnim(a) => Some(*a),
            View::SlMdl(m) => m.anim(),
            _ => None,
        }
    }

    /// The non-fatal findings of validation (one entry per kind), over every file opened.
    #[must_use]
    pub fn diagnostics(&self) -> &Diagnostics {
        &self.diagnostics
    }

    /// The size in bytes of the file opened (its companions not counted).
    #[must_use]
    pub fn size(&self) -> u64 {
        self.cell.borrow_owner().main.bytes().len() as u64
    }

    /// The bytes of every file the model was opened from: the model's own (`None`), then its
    /// companions, each with the path the resolver was asked for.
    pub fn files(&self) -> impl Iterator<Item = (Option<Companion>, &str, &[u8])> + '_ {
        let files = self.cell.borrow_owner();
        core::iter::once((None, files.path.as_str(), files.main.bytes())).chain(
            files
                .companions
                .iter()
                .map(|(kind, path, source)| (Some(*kind), path.as_str(), source.bytes())),
        )
    }

    /// The path the model was opened by (relative to the resolver's root), empty for a model
    /// made from bytes.
    #[must_use]
    pub fn path(&self) -> &str {
        &self.cell.borrow_owner().path
    }

    /// The companion files opened with the model, by role and path (as the resolver was
    /// asked for them).
    pub fn companions(&self) -> impl Iterator<Item = (Companion, &str)> + '_ {
        self.cell
            .borrow_owner()
            .companions
            .iter()
            .map(|(kind, path, _)| (*kind, path.as_str()))
    }

    // ---- skeleton ----

    /// The bones in file order (none for vertex-animated formats). MS3D files list joints
    /// in any order: see [`Model::hierarchy_order`].
    pub fn bones(&self) -> impl ExactSizeIterator<Item = Bone<'_>> + Clone + '_ {
        self.view().skeleton_bones()
    }

    /// Number of bones.
    #[must_use]
    pub fn num_bones(&self) -> usize {
        self.view().num_bones()
    }

    /// Bone `index`, or `None` out of range.
    #[must_use]
    pub fn bone(&self, index: usize) -> Option<Bone<'_>> {
        self.view().bone(index)
    }

    /// Index of the first bone named exactly `name` (bytes, without NUL).
    #[must_use]
    pub fn bone_index(&self, name: &[u8]) -> Option<usize> {
        self.view().bone_index(name)
    }

    /// Index of the first bone whose name equals `name` ignoring ASCII case.
    #[must_use]
    pub fn bone_index_ignore_ascii_case(&self, name: &[u8]) -> Option<usize> {
        self.view().bone_index_ignore_ascii_case(name)
    }

    /// Bone indices with every parent before its children, when file order is not such an
    /// order (MS3D); `None` otherwise.
    #[must_use]
    pub fn hierarchy_order(&self) -> Option<&[u16]> {
        self.view().hierarchy_order()
    }

    // ---- frames and clips ----

    /// Number of frames [`Model::sample`] and [`Model::pose`] address: DPM, SKM and SKP
    /// frames; MDL and HMP frames (vertex animation); the MS3D timeline (its keyframer's
    /// frame count, at least 1); SL keyframes; 0 for a static SL mesh.
    #[must_use]
    pub fn num_frames(&self) -> usize {
        match self.view() {
            View::Dpm(m) => m.num_frames(),
            View::Skm(m) => m.skp().num_frames(),
            View::Skp(p) => p.num_frames(),
            View::Ms3d(m) => m.num_frames(),
            View::Mdl(m) => m.frames().len(),
            View::Hmp(h) => h.frames().len(),
            View::Quake(q) => q.frames().len(),
            View::SlMdl(m) => m.anim().map_or(0, |a| a.num_keyframes()),
            View::SlAnim(a) => a.num_keyframes(),
        }
    }

    /// `true` for the vertex-animated formats (GameStudio MDL and HMP, Quake MDL and MDL2):
    /// every frame stores the mesh's positions, [`Model::pose`] records two frames and a
    /// blend, and [`Model::deform`] tweens them.
    #[must_use]
    pub fn is_vertex_animated(&self) -> bool {
        matches!(self.view(), View::Mdl(_) | View::Hmp(_) | View::Quake(_))
    }

    /// The name of frame `index` (empty for formats whose frames have none: MS3D, SL), or
    /// `None` out of range.
    #[must_use]
    pub fn frame_name(&self, index: usize) -> Option<&[u8]> {
        if index >= self.num_frames() {
            return None;
        }
        Some(match self.view() {
            View::Dpm(m) => m.frame(index)?.name(),
            View::Skm(m) => m.skp().frame(index)?.name(),
            View::Skp(p) => p.frame(index)?.name(),
            View::Mdl(m) => m.frames().get(index)?.name(),
            View::Hmp(h) => h.frames().get(index)?.name(),
            View::Quake(q) => q.frames().get(index)?.name(),
            View::Ms3d(_) | View::SlMdl(_) | View::SlAnim(_) => &[],
        })
    }

    /// Every frame's name in order, as [`Model::frame_name`] gives them: one walk over the
    /// frames, so O(1) a frame even where finding one frame by index is a walk (an MDL that
    /// mixes byte and word frames, a Quake model with frame groups).
    ///
    /// ```
    /// use skelmap_core::Model;
    /// use skelmap_core::quake;
    /// let bytes = quake::Builder::triangle().write();
    /// let model = Model::from_bytes(&bytes)?;
    /// assert_eq!(model.frame_names().collect::<Vec<_>>(), [b"base"]);
    /// # Ok::<(), skelmap_core::Error>(())
    /// ```
    pub fn frame_names(&self) -> FrameNames<'_> {
        let walk = match self.view() {
            View::Mdl(m) => Names::Mdl(m.frames().iter()),
            View::Hmp(h) => Names::Hmp(h.frames().iter()),
            View::Quake(q) => Names::Quake(q.frames().iter()),
            _ => Names::Indexed(0..self.num_frames()),
        };
        FrameNames { model: self, walk }
    }

    /// The named animations: from a `.framegroups` sidecar when one was opened, else from
    /// frame names (or the MS3D timeline); see [`Model::clip_origin`]. Built on first use.
    #[must_use]
    pub fn clips(&self) -> &[FrameGroup] {
        self.clips.get_or_init(|| self.default_clips())
    }

    /// Where [`Model::clips`] come from. Frames without names (a terrain's, usually) make no
    /// clips: [`ClipOrigin::None`]. (A Quake model's frame groups are timed by their
    /// intervals and need no names.) Found on each call, from the frames, so that opening
    /// reads no frame name.
    #[must_use]
    pub fn clip_origin(&self) -> ClipOrigin {
        let named = || self.frame_names().any(|n| !n.is_empty());
        match self.clip_origin {
            ClipOrigin::FrameNames if !named() => ClipOrigin::None,
            origin => origin,
        }
    }

    /// The first clip named exactly `name`.
    #[must_use]
    pub fn clip(&self, name: &str) -> Option<&FrameGroup> {
        self.clips().iter().find(|c| c.name == name)
    }

    fn default_clips(&self) -> Vec<FrameGroup> {
        match self.clip_origin() {
            ClipOrigin::FrameNames => groups_from_names(self.frame_names(), NAMED_CLIP_FPS),
            ClipOrigin::Timeline => self
                .as_ms3d()
                .map(|m| {
                    vec![FrameGroup {
                        name: "animation".into(),
                        first: 0,
                        // The whole timeline, as MilkShape plays it (the last key holds).
                        count: m.num_frames() as u32,
                        fps: m.fps(),
                        looped: true,
                    }]
                })
                .unwrap_or_default(),
            ClipOrigin::FrameGroups => match self.view() {
                View::Quake(q) => q.clips(NAMED_CLIP_FPS),
                _ => Vec::new(),
            },
            ClipOrigin::FrameGroupsFile | ClipOrigin::None => Vec::new(),
        }
    }

    // ---- sampling ----

    /// Samples frames `a` and `b` blended at `t` (0 = `a`, 1 = `b`) into `out`, reusing its
    /// allocation; frames past the last are clamped to it. One parent-relative pose per bone:
    ///
    /// - DPM, SKM, SKP, SL: each bone's rotation and translation blended (rotations along the
    ///   shorter arc by `interpolation`). A DPM rotation that is not orthonormal (scale or
    ///   shear in the file) loses its scale here, as in DarkPlaces; open reports such poses as
    ///   [`WarningKind::NonOrthonormal`](crate::WarningKind::NonOrthonormal).
    /// - MS3D: the joints' keys evaluated at frame `a + t·(b − a)` of the timeline, frame `f`
    ///   being `(f + 1) / fps` seconds in, rotation keys blended by `interpolation` too.
    /// - MDL, HMP and a static SL mesh have no bones: `out` is emptied.
    pub fn sample(
        &self,
        a: usize,
        b: usize,
        t: f32,
        interpolation: Interpolation,
        out: &mut LocalPose,
    ) {
        let last = self.num_frames().saturating_sub(1);
        let (a, b) = (a.min(last), b.min(last));
        match self.view() {
            View::Dpm(m) => sample(m, a, b, t, interpolation, out),
            View::Skm(m) => sample(m, a, b, t, interpolation, out),
            View::Skp(p) => sample(p, a, b, t, interpolation, out),
            View::Ms3d(m) => {
                let frame = a as f32 + t * (b as f32 - a as f32);
                m.local_pose_at(m.frame_seconds(frame), interpolation, out);
            }
            View::SlMdl(m) => match m.anim() {
                Some(anim) => sample(&anim, a, b, t, interpolation, out),
                None => out.bones.clear(),
            },
            View::SlAnim(anim) => sample(anim, a, b, t, interpolation, out),
            View::Mdl(_) | View::Hmp(_) | View::Quake(_) => out.bones.clear(),
        }
    }

    /// The bind pose into `out`: frame 0 for DPM, SKM and SKP (whose meshes are stored
    /// relative to it) and SL (keyframe 0); the joints' rest pose for MS3D; empty for
    /// formats without bones.
    pub fn bind_pose(&self, out: &mut LocalPose) {
        match self.view() {
            View::Ms3d(m) => m.local_rest_pose(out),
            _ => self.sample(0, 0, 0.0, Interpolation::Nlerp, out),
        }
    }

    /// Concatenates `pose` down the hierarchy into world transforms, one per bone, reusing
    /// `out`'s allocation (MS3D in its [`hierarchy_order`](Model::hierarchy_order)).
    pub fn palette(&self, pose: &LocalPose, out: &mut Palette) {
        match self.view() {
            View::Dpm(m) => out.build(m, pose),
            View::Skm(m) => out.build(m, pose),
            View::Skp(p) => out.build(p, pose),
            View::Ms3d(m) => out.build(m, pose),
            View::SlMdl(m) => match m.anim() {
                Some(anim) => out.build(&anim, pose),
                None => out.world.clear(),
            },
            View::SlAnim(anim) => out.build(anim, pose),
            View::Mdl(_) | View::Hmp(_) | View::Quake(_) => out.world.clear(),
        }
    }

    /// The bind pose's world transforms ([`Model::bind_pose`] through [`Model::palette`]),
    /// computed once and kept.
    #[must_use]
    pub fn bind_palette(&self) -> &Palette {
        self.bind.get_or_init(|| {
            let (mut local, mut palette) = (LocalPose::default(), Palette::default());
            self.bind_pose(&mut local);
            self.palette(&local, &mut palette);
            palette
        })
    }

    // ---- bounds ----

    /// The bounds the file stores (the DPM header's), if any.
    #[must_use]
    pub fn stored_bounds(&self) -> Option<Aabb> {
        self.as_dpm().map(|m| Aabb {
            mins: m.mins(),
            maxs: m.maxs(),
        })
    }
}

impl<'data> View<'data> {
    /// Number of bones.
    #[must_use]
    pub fn num_bones(&self) -> usize {
        match self {
            View::Dpm(m) => m.num_bones(),
            View::Skm(m) => m.skp().num_bones(),
            View::Skp(p) => p.num_bones(),
            View::Ms3d(m) => m.joints().len(),
            View::SlMdl(m) => m.anim().map_or(0, |a| a.num_bones()),
            View::SlAnim(a) => a.num_bones(),
            View::Mdl(_) | View::Hmp(_) | View::Quake(_) => 0,
        }
    }

    /// Bone `index`, or `None` out of range.
    #[must_use]
    pub fn bone(&self, index: usize) -> Option<Bone<'data>> {
        match self {
            View::Dpm(m) => m.bone(index),
            View::Skm(m) => m.skp().bone(index),
            View::Skp(p) => p.bone(index),
            View::Ms3d(m) => Skeleton::bone(m, index),
            View::SlMdl(_) | View::SlAnim(_) if index < self.num_bones() => {
                Some(Bone::new(&[], -1, 0))
            }
            _ => None,
        }
    }
}

/// Every format's skeleton, one bone at a time (empty for formats without bones).
impl<'data> Skeleton<'data> for View<'data> {
    fn skeleton_bones(&self) -> impl ExactSizeIterator<Item = Bone<'data>> + Clone {
        (0..self.num_bones()).map(move |i| self.bone(i).unwrap_or(Bone::new(&[], -1, 0)))
    }

    fn hierarchy_order(&self) -> Option<&[u16]> {
        match self {
            View::Ms3d(m) => m.hierarchy_order(),
            _ => None,
        }
    }

    fn bone(&self, index: usize) -> Option<Bone<'data>> {
        View::bone(self, index)
    }
}

/// The iterator of [`Model::frame_names`].
#[derive(Debug, Clone)]
pub struct FrameNames<'a> {
    model: &'a Model<'a>,
    walk: Names<'a>,
}

/// How [`FrameNames`] walks: frames found by index where that is O(1), else the view's own
/// walk over its frames.
#[derive(Debug, Clone)]
enum Names<'a> {
    Indexed(core::ops::Range<usize>),
    Mdl(MdlFrameIter<'a>),
    Hmp(HmpFrameIter<'a>),
    Quake(quake::FrameIter<'a>),
}

impl<'a> Iterator for FrameNames<'a> {
    type Item = &'a [u8];

    fn next(&mut self) -> Option<&'a [u8]> {
        match &mut self.walk {
            Names::Indexed(range) => {
                let f = range.next()?;
                Some(self.model.frame_name(f).unwrap_or_default())
            }
            Names::Mdl(frames) => frames.next().map(|f| f.name()),
            Names::Hmp(frames) => frames.next().map(|f| f.name()),
            Names::Quake(frames) => frames.next().map(|f| f.name()),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match &self.walk {
            Names::Indexed(range) => range.size_hint(),
            Names::Mdl(frames) => frames.size_hint(),
            Names::Hmp(frames) => frames.size_hint(),
            Names::Quake(frames) => frames.size_hint(),
        }
    }
}

impl ExactSizeIterator for FrameNames<'_> {}
