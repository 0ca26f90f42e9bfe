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
//! - attachment points ([`Model::attachments`], [`Model::attachment_transform`]): bones
//!   flagged as attachments, every joint of the formats without such a flag, tags;
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

mod any;
mod assembly;
mod asset;
mod attach;
pub mod convert;
mod deform;
mod gpu;
mod mesh;
mod open;
mod prepared;
mod replace;
mod sampler;
mod still;
mod write;

use glam::Affine3A;
use std::sync::OnceLock;

pub use any::View;
pub use assembly::{
    Assembly, AttachError, Attached, ClipSet, PLAYER, Part, PlayerPart, place_parts,
};
pub use attach::{Attachment, AttachmentKind};
pub use mesh::Mesh;
pub use open::OpenOptions;
pub use prepared::{Compact, Prepared};
pub use sampler::Sampler;
pub use still::StaticMesh;
pub use write::{stores_images, write};

pub use crate::skin::Records;
pub use crate::view::{
    ClipOrigin, Conventions, DeformError, FrameVertices, Material, NAMED_CLIP_FPS, Pose, SkinFile,
    Submesh, TerrainGrid, TexcoordLayout, TextureNames, TriangleIndices,
};

use crate::diag::Diagnostics;
use crate::format::Format;
use crate::pose::bounds::Aabb;
use crate::pose::framegroups::{FrameGroup, groups_from_names, unique_names};
use crate::pose::{Bone, Interpolation, LocalPose, Palette, PoseFrames, Skeleton, SoaPose};
use crate::view::ModelView;
pub use crate::view::open::Companion;
use crate::view::open::Files;
use any::{FrameNamesKind, with_view};

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
    /// What opening found: validation's findings, then the companions' (a `.framegroups`
    /// sidecar's).
    found: Diagnostics,
    /// Where in `found` validation's findings end: the animation's checks
    /// ([`ModelView::check_animation`]) report between the two.
    validated: usize,
    /// `found` with the animation's checks, made when first asked for.
    diagnostics: OnceLock<Diagnostics>,
    clips: OnceLock<Vec<FrameGroup>>,
    /// The clips' indices ordered by name ([`Model::clip_index`]), made on first use.
    clips_by_name: OnceLock<Vec<u32>>,
    clip_origin: ClipOrigin,
    /// The code page of the model's names ([`Model::code_page`]), found on first use.
    code_page: OnceLock<crate::name::CodePage>,
    /// The last pose [`Model::is_stored_pose`] checked, by its stamp, and what it found
    /// (`stamp << 1 | found`): the check compares every bone, and a pose deforms every mesh.
    stored_pose: core::sync::atomic::AtomicU64,
    /// The bones flagged as attachments, in order, for formats where not every bone is one
    /// (DPM, SKM, SKP); found on first use.
    attachment_bones: OnceLock<Vec<u32>>,
    /// The bind pose's world transforms, for formats stored in their bind pose (MS3D, SL),
    /// computed on first use.
    bind: OnceLock<Palette>,
    /// Their inverses, which every pose of such a format multiplies by, computed on first use.
    bind_inverse: OnceLock<Vec<Affine3A>>,
    /// A model of one frame: its meshes deformed by that frame, made on the first deform
    /// (`still.rs`).
    still: OnceLock<Option<Box<still::Still<Pose>>>>,
    /// The directory [`Model::path`] and the companions' paths are relative to, for a model
    /// opened from a file.
    base: Option<std::path::PathBuf>,
}

impl<'data> Model<'data> {
    /// The format.
    #[must_use]
    pub fn format(&self) -> Format {
        with_view!(self.view(), v => ModelView::format(v))
    }

    /// How the format's files are meant to be read: up and front in their coordinates, and
    /// what materials name.
    ///
    /// ```
    /// use skelmap_core::{Model, model::TextureNames};
    /// let bytes = skelmap_core::synth::tube(&Default::default()).write()?;
    /// // A DPM names shaders.
    /// let conventions = Model::from_bytes(&bytes)?.conventions();
    /// assert_eq!(conventions.textures, TextureNames::Shaders);
    /// assert_eq!(conventions.front, [1.0, 0.0, 0.0]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn conventions(&self) -> Conventions {
        with_view!(self.view(), v => ModelView::conventions(v))
    }

    /// The format's own view, for format detail.
    #[must_use]
    pub fn view(&self) -> &View<'_> {
        self.cell.borrow_dependent()
    }

    /// The non-fatal findings of validation (one entry per kind), over every file opened.
    ///
    /// The checks that judge the animation rather than prove the file safe to read (a DPM's
    /// rotations: [`Dpm::check_rotations`](crate::dpm::Dpm::check_rotations)) read every pose of every frame; they run on the
    /// first call, not at open, so that a model that is never asked costs only its
    /// validation. Their findings come where they would if they ran at open: after
    /// validation's, before the companions'.
    ///
    /// ```
    /// use skelmap_core::{Model, WarningKind};
    ///
    /// let bytes = skelmap_core::synth::tube(&Default::default()).write()?;
    /// let model = Model::from_bytes(&bytes)?;
    /// assert_eq!(model.diagnostics().count(WarningKind::NonOrthonormal), 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn diagnostics(&self) -> &Diagnostics {
        self.diagnostics.get_or_init(|| {
            self.found.with_inserted(self.validated, |diag| {
                with_view!(self.view(), v => ModelView::check_animation(v, diag));
            })
        })
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

    /// The directory [`Model::path`] and the companions' paths are relative to, for a model
    /// opened from a file ([`Model::open_with`]): the root given, else the game's base
    /// directory the format found above the file (an MDM's, holding `characters/`), else the
    /// file's own directory. `None` for a model made from bytes or through a resolver.
    #[must_use]
    pub fn base(&self) -> Option<&std::path::Path> {
        self.base.as_deref()
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

    /// The [`companions`](Model::companions) opened with the model but left out, in the same
    /// order, each named in a
    /// [`WarningKind::CompanionIgnored`](crate::WarningKind::CompanionIgnored) warning that
    /// says why: an animation beside an MD5 mesh or a PSA that does not fit the skeleton, a
    /// skin, level of detail, `animation.cfg`, `.md5scale` or `.framegroups` file that does
    /// not read, a Half-Life texture or sequence-group file refused, an Enemy Territory skin
    /// or clip list that does not read or an animation file not joined to the skeleton.
    ///
    /// ```
    /// use skelmap_core::Model;
    /// use skelmap_core::model::Companion;
    /// let dir = std::env::temp_dir().join(format!("skelmap-left-out-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir)?;
    /// let bytes = skelmap_core::synth::tube(&Default::default()).write()?;
    /// std::fs::write(dir.join("tube.dpm"), &bytes)?;
    /// std::fs::write(dir.join("tube.dpm.framegroups"), "0 2 10 1 // walk\nnot a line\n")?;
    /// let model = Model::open(dir.join("tube.dpm"))?;
    /// let left: Vec<_> = model.left_out().collect();
    /// assert_eq!(left, [(Companion::FrameGroups, "tube.dpm.framegroups")]);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn left_out(&self) -> impl Iterator<Item = (Companion, &str)> + '_ {
        let files = self.cell.borrow_owner();
        files
            .companions
            .iter()
            .enumerate()
            .filter(|&(i, _)| files.is_left_out(i))
            .map(|(_, (kind, path, _))| (*kind, path.as_str()))
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
        Skeleton::bone(self.view(), index)
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

    /// Number of frames [`Model::sample`] and [`Model::pose`] address: the file's frames,
    /// skeletal or vertex; the frames of every animation the model plays, one animation after
    /// another, where it has several (an MD5 mesh's `.md5anim` files, a Half-Life model's
    /// sequences, a PSA's sequences); the MS3D timeline (its keyframer's frame count, at least
    /// 1); SL keyframes. A model without animation has 0, or 1 where its format gives the bind
    /// pose as a frame (an MD5 mesh alone, a PSK without a PSA).
    #[must_use]
    pub fn num_frames(&self) -> usize {
        with_view!(self.view(), v => ModelView::num_frames(v))
    }

    /// `true` for the vertex-animated formats (Quake MDL and MDL2, GameStudio MDL3–5 and HMP,
    /// MD2, MD3, MDC, and an MDL7 without bones):
    /// every frame stores the mesh's positions, [`Model::pose`] records two frames and a
    /// blend, and [`Model::deform`] tweens them.
    #[must_use]
    pub fn is_vertex_animated(&self) -> bool {
        with_view!(self.view(), v => ModelView::is_vertex_animated(v))
    }

    /// The name of frame `index` (empty for formats whose frames have none: MS3D, SL, IQM,
    /// ZYM, PSK and PSA, Half-Life, MDM and MDX), or `None` out of range.
    #[must_use]
    pub fn frame_name(&self, index: usize) -> Option<&[u8]> {
        with_view!(self.view(), v => ModelView::frame_name(v, index))
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
        FrameNames(self.view().frame_names_kind())
    }

    /// The named animations: from a `.framegroups` sidecar when one was opened, else the
    /// clips the format defines (an IQM's animations, an MD5 mesh's `.md5anim` files,
    /// Half-Life sequences, PSA sequences, ZYM scenes, Quake frame groups, a Quake III
    /// player's `animation.cfg`, an Enemy Territory animation group, the MS3D timeline), else
    /// frame names; see [`Model::clip_origin`]. Built on first use.
    /// Each has its own name ([`unique_names`]): a clip whose name an earlier one has (a Quake
    /// model's frame group and the single frames after it, of one stem; a DPM's second
    /// `dead01`) gets `_2`, `_3` ….
    #[must_use]
    pub fn clips(&self) -> &[FrameGroup] {
        self.clips.get_or_init(|| {
            let mut clips = self.default_clips();
            unique_names(&mut clips);
            clips
        })
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
        self.clips().get(self.clip_index(name)?)
    }

    /// The index in [`Model::clips`] of the first clip named exactly `name`: a binary search
    /// of the clips ordered by name (made with them), so that finding each of many clips by
    /// name does not scan them all.
    ///
    /// ```
    /// use skelmap_core::Model;
    /// use skelmap_core::synth::{TubeParams, tube};
    /// let bytes = tube(&TubeParams::default()).write()?;
    /// let model = Model::from_bytes(&bytes)?;
    /// let first = model.clips().first().map(|c| c.name.clone()).unwrap_or_default();
    /// assert_eq!(model.clip_index(&first), Some(0));
    /// assert_eq!(model.clip_index("no such clip"), None);
    /// # Ok::<(), skelmap_core::Error>(())
    /// ```
    #[must_use]
    pub fn clip_index(&self, name: &str) -> Option<usize> {
        let clips = self.clips();
        let by_name = self.clips_by_name.get_or_init(|| {
            let mut order: Vec<u32> = (0..clips.len() as u32).collect();
            // Stable: the first of a name (if two had one) stays first.
            order.sort_by(|&a, &b| clips[a as usize].name.cmp(&clips[b as usize].name));
            order
        });
        let at = by_name.partition_point(|&i| clips[i as usize].name.as_str() < name);
        let &i = by_name.get(at)?;
        (clips[i as usize].name == name).then_some(i as usize)
    }

    fn default_clips(&self) -> Vec<FrameGroup> {
        match self.clip_origin() {
            ClipOrigin::FrameNames => groups_from_names(self.frame_names(), NAMED_CLIP_FPS),
            ClipOrigin::Timeline
            | ClipOrigin::FrameGroups
            | ClipOrigin::AnimationConfig
            | ClipOrigin::AnimationGroup => {
                with_view!(self.view(), v => ModelView::built_in_clips(v))
            }
            ClipOrigin::FrameGroupsFile | ClipOrigin::None => Vec::new(),
        }
    }

    // ---- sampling ----

    /// Samples frames `a` and `b` blended at `t` (0 = `a`, 1 = `b`) into `out`, reusing its
    /// allocation; frames past the last are clamped to it. One parent-relative pose per bone:
    ///
    /// - The skeletal formats (DPM, SKM, SKP, IQM, MD5, Half-Life, ZYM, MDR, MDM/MDX,
    ///   PSK/PSA, MDL7, SL): each bone's rotation and translation (and scale: IQM, MDR) blended
    ///   (rotations along the shorter arc by `interpolation`). A DPM rotation that is not
    ///   orthonormal (scale or shear in the file) loses its scale here, as in DarkPlaces; open
    ///   reports such poses as [`WarningKind::NonOrthonormal`](crate::WarningKind::NonOrthonormal).
    /// - MS3D: the joints' keys evaluated at frame `a + t·(b − a)` of the timeline, frame `f`
    ///   being `(f + 1) / fps` seconds in, rotation keys blended by `interpolation` too.
    /// - The vertex-animated formats and a static SL mesh have no bones: `out` is emptied.
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
        // Formats that sample themselves (MS3D) leave skin scales alone.
        out.skin_scales.clear();
        with_view!(self.view(), v => ModelView::sample(v, a, b, t, interpolation, out));
    }

    /// The bone controllers the model declares, as stored (a Half-Life model's: which bone
    /// and channel each drives, its range and its slot); empty for every other format.
    /// [`Model::sample_controlled`] sets them.
    #[must_use]
    pub fn controllers(&self) -> &[crate::hl1::raw::BoneController] {
        // Half-Life's alone: the format traits sit below the formats and cannot name its
        // records, and no other format has controllers.
        self.as_hl1().map_or(&[], |pair| pair.model().controllers())
    }

    /// [`Model::sample`] with the model's bone controllers set as `controls` says: a
    /// Half-Life model's channels adjusted as the game's renderer adjusts them (a head turned
    /// towards the player, a mouth opened; see [`hl1::Controls`](crate::hl1::Controls) for
    /// units, ranges and wrapping). For a model without controllers, [`Model::sample`]
    /// itself. All-zero controls are what games set at spawn, not "no adjustment": a
    /// controller whose range excludes 0 is clamped into it.
    ///
    /// ```
    /// use skelmap_core::Model;
    /// use skelmap_core::hl1::{Builder, ControllerDef, Controls, raw::STUDIO_ZR};
    /// use skelmap_core::pose::{Interpolation, LocalPose};
    /// let mut b = Builder::example();
    /// // Controller 0 turns bone 1 about Z, from −90° to 90°.
    /// b.controllers.push(ControllerDef {
    ///     bone: 1,
    ///     type_: STUDIO_ZR,
    ///     start: -90.0,
    ///     end: 90.0,
    ///     index: 0,
    /// });
    /// let bytes = b.write()?;
    /// let model = Model::from_bytes(&bytes)?;
    /// assert_eq!(model.controllers().len(), 1);
    /// let (mut plain, mut turned) = (LocalPose::default(), LocalPose::default());
    /// model.sample(0, 1, 0.5, Interpolation::Nlerp, &mut plain);
    /// let controls = Controls { values: [30.0, 0.0, 0.0, 0.0, 0.0] };
    /// model.sample_controlled(0, 1, 0.5, Interpolation::Nlerp, &controls, &mut turned);
    /// assert_eq!(turned.bones[0], plain.bones[0]);
    /// assert_ne!(turned.bones[1], plain.bones[1]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn sample_controlled(
        &self,
        a: usize,
        b: usize,
        t: f32,
        interpolation: Interpolation,
        controls: &crate::hl1::Controls,
        out: &mut LocalPose,
    ) {
        match self.as_hl1() {
            Some(pair) if !pair.model().controllers().is_empty() => {
                // `sample` clamps the frames, as `Model::sample` does.
                let controlled = pair.controlled(*controls);
                crate::pose::sample(&controlled, a, b, t, interpolation, out);
            }
            _ => self.sample(a, b, t, interpolation, out),
        }
    }

    /// [`Model::sample`] into a [`SoaPose`], the layout [`Blender::blend_soa`] reads: the
    /// same poses, bit for bit. DPM's sampler writes them in that layout as it computes them
    /// (with [`Interpolation::Nlerp`]); other formats are sampled as a [`LocalPose`] and
    /// copied in.
    ///
    /// [`Blender::blend_soa`]: crate::pose::blend::Blender::blend_soa
    ///
    /// ```
    /// use skelmap_core::Model;
    /// use skelmap_core::pose::{Interpolation, LocalPose, SoaPose};
    /// let bytes = skelmap_core::synth::tube(&Default::default()).write()?;
    /// let model = Model::from_bytes(&bytes)?;
    /// let (mut local, mut soa, mut back) = (LocalPose::default(), SoaPose::default(), LocalPose::default());
    /// model.sample(3, 4, 0.5, Interpolation::Nlerp, &mut local);
    /// model.sample_soa(3, 4, 0.5, Interpolation::Nlerp, &mut soa);
    /// soa.to_local(&mut back);
    /// assert_eq!(back, local);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn sample_soa(
        &self,
        a: usize,
        b: usize,
        t: f32,
        interpolation: Interpolation,
        out: &mut SoaPose,
    ) {
        let last = self.num_frames().saturating_sub(1);
        let (a, b) = (a.min(last), b.min(last));
        let native = interpolation == Interpolation::Nlerp
            && with_view!(self.view(), v => v.pose_frames().is_some_and(|frames| {
                let done = !frames.has_scale()
                    && !frames.has_skin_scale()
                    && frames.nlerp_frames_soa_into(a, b, t, out);
                if done {
                    out.resize(frames.skeleton_bones().len());
                    out.scales.clear();
                    out.skin_scales.clear();
                }
                done
            }));
        if !native {
            out.fill_from(|local| {
                self.sample(a, b, t, interpolation, local);
                true
            });
        }
    }

    /// The bind pose into `out`: the rest pose the file stores for IQM, MD5, PSK, Half-Life,
    /// MDL7 and MS3D (their joints' bind transforms); frame 0 for DPM, SKM and SKP (whose
    /// meshes are stored relative to it), ZYM, MDR, MDM and MDX, and SL (keyframe 0); empty
    /// for formats without bones.
    pub fn bind_pose(&self, out: &mut LocalPose) {
        out.skin_scales.clear();
        with_view!(self.view(), v => ModelView::bind_pose(v, out));
    }

    /// Concatenates `pose` down the hierarchy into world transforms, one per bone, reusing
    /// `out`'s allocation (MS3D in its [`hierarchy_order`](Model::hierarchy_order)).
    pub fn palette(&self, pose: &LocalPose, out: &mut Palette) {
        with_view!(self.view(), v => out.build(v, pose));
    }

    /// The bind pose's world transforms ([`Model::bind_pose`] through [`Model::palette`]),
    /// computed once and kept.
    #[must_use]
    pub fn bind_palette(&self) -> &Palette {
        match self.bind.get() {
            Some(palette) => palette,
            None => {
                let mut local = LocalPose::default();
                self.bind_pose(&mut local);
                self.bind_palette_of(&local)
            }
        }
    }

    /// [`Model::bind_palette`], made from `bind` (what [`Model::bind_pose`] gives) when it is
    /// not yet kept.
    pub(crate) fn bind_palette_of(&self, bind: &LocalPose) -> &Palette {
        self.bind.get_or_init(|| {
            let mut palette = Palette::default();
            self.palette(bind, &mut palette);
            palette
        })
    }

    /// The inverse of each of [`Model::bind_palette`]'s transforms, computed once and kept.
    pub(crate) fn bind_inverse(&self) -> &[Affine3A] {
        self.bind_inverse.get_or_init(|| {
            self.bind_palette()
                .world
                .iter()
                .map(Affine3A::inverse)
                .collect()
        })
    }

    // ---- bounds ----

    /// The bounds the file stores, if any (DPM, IQM, ZYM, Half-Life, MD3, MDC, MDR, MDM).
    #[must_use]
    pub fn stored_bounds(&self) -> Option<Aabb> {
        with_view!(self.view(), v => ModelView::stored_bounds(v))
    }
}

/// The iterator of [`Model::frame_names`].
#[derive(Debug, Clone)]
pub struct FrameNames<'a>(FrameNamesKind<'a>);

impl<'a> Iterator for FrameNames<'a> {
    type Item = &'a [u8];

    fn next(&mut self) -> Option<&'a [u8]> {
        self.0.next()
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

impl ExactSizeIterator for FrameNames<'_> {}
