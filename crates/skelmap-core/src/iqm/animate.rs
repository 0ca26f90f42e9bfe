//! An IQM model and, when given, an IQM animation to play on it: [`Pair`].
//!
//! Engines load an IQM's animations from the model itself or from a second IQM that holds
//! only poses, frames and anims (raylib's `guy.iqm` and `guyanim.iqm`). The animation's bones
//! are matched to the model's joints by name where the animation names them (its joints), and
//! otherwise by index, when it has as many poses as the model has joints with the same
//! parents. A joint no bone of the animation matches keeps its bind pose.

use glam::{Quat, Vec3A};

use std::sync::OnceLock;

use super::view::Iqm;
use crate::diag::{Diagnostics, WarningKind};
use crate::error::{Error, Problem, Result};
use crate::format::Format;
use crate::limits::Limits;
use crate::parse::Parse;
use crate::pose::bounds::Aabb;
use crate::pose::framegroups::FrameGroup;
use crate::pose::{Bone, ChannelLayout, LocalPose, PoseFrames, Skeleton, unit_rotation};
use crate::resolver::Resolver;
use crate::view::open::{Companion, CompanionFile, Files, Given, Open};
use crate::view::{ClipOrigin, IndexedNames, Material, ModelView};

/// No pose of the animation drives this joint.
const NONE: u16 = u16::MAX;

/// An IQM and the animation it plays: its own frames, or those of an animation-only IQM.
///
/// ```
/// use skelmap_core::{Parse, iqm};
/// let model = iqm::Builder::demo().write()?;
/// // The demo's animation on its own: the poses, frames and anims, without joints or mesh.
/// let anim = iqm::Builder {
///     joints: Vec::new(),
///     pose_parents: vec![-1, 0, 1],
///     positions: Vec::new(),
///     texcoords: Vec::new(),
///     normals: Vec::new(),
///     blend_indexes: Vec::new(),
///     blend_weights: Vec::new(),
///     triangles: Vec::new(),
///     meshes: Vec::new(),
///     ..iqm::Builder::demo()
/// }
/// .write()?;
/// let paired = iqm::Pair::new(iqm::Iqm::parse(&model)?, iqm::Iqm::parse(&anim)?)?;
/// assert_eq!(paired.matched_joints(), 3);
/// # Ok::<(), skelmap_core::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Pair<'data> {
    // Boxed: two views side by side would make every `Pair` as large as both.
    mesh: Box<Iqm<'data>>,
    anim: Option<Box<Iqm<'data>>>,
    /// Per joint of `mesh`, the bone of `anim` that drives it ([`NONE`]: none).
    source: Vec<u16>,
    /// Per bone of `anim`, the joint of `mesh` it drives ([`NONE`]: none).
    target: Vec<u16>,
    /// The channels of the frames that play, per joint of `mesh` (per pose for a file
    /// without joints), resolved when a sample first goes through it ([`Pair::layout`]).
    layout: OnceLock<Option<ChannelLayout>>,
    /// Set by the first sample of a model playing its own frames, which decodes them in one
    /// walk of the poses, without the layout.
    sampled: OnceLock<()>,
    /// Every joint's parent ([`Skeleton::parent_table`]), made by the first palette built.
    parents: OnceLock<Vec<u16>>,
    /// For an animation without joints matched by index, its first pose whose parent is not
    /// its joint's, and how many are not.
    reparented: Option<(usize, usize)>,
}

impl<'data> Pair<'data> {
    /// An IQM that plays its own frames.
    #[must_use]
    pub fn single(mesh: Iqm<'data>) -> Self {
        Pair {
            mesh: Box::new(mesh),
            anim: None,
            source: Vec::new(),
            target: Vec::new(),
            layout: OnceLock::new(),
            sampled: OnceLock::new(),
            parents: OnceLock::new(),
            reparented: None,
        }
    }

    /// `mesh` playing the frames of `anim`, its bones matched to `mesh`'s joints: by name
    /// where `anim` has joints, else by index when it has as many poses as `mesh` has joints.
    /// Poses whose parents are not their joints' still play on them, in the model's
    /// hierarchy, as the IQM SDK's loader plays them (it checks the counts only; Red
    /// Eclipse's player ships a `crouch.iqm` with four such poses of 78);
    /// [`Pair::reparented`] says which. A joint left unmatched keeps its bind pose.
    ///
    /// # Errors
    ///
    /// [`Error::Invalid`] with [`Problem::Empty`] when `anim` has no poses, and with
    /// [`Problem::Skeleton`] when none of its bones matches a joint of `mesh`.
    pub fn new(mesh: Iqm<'data>, anim: Iqm<'data>) -> Result<Self> {
        let fail = |problem| Error::Invalid {
            format: Format::Iqm,
            what: "animation.poses",
            offset: core::mem::offset_of!(super::raw::Header, num_poses) as u64,
            problem,
        };
        if anim.num_poses() == 0 {
            return Err(fail(Problem::Empty));
        }
        let joints = mesh.num_joints();
        let mut reparented = None;
        let mut source = vec![NONE; joints];
        let mut target = vec![NONE; anim.num_poses()];
        if anim.num_joints() > 0 {
            // Each name's first joint in the animation, found once: a look-up a model joint
            // rather than a walk of the animation's (both files untrusted, 65 535 joints each).
            let mut by_name = std::collections::HashMap::with_capacity(anim.num_joints());
            for j in 0..anim.num_joints() {
                by_name
                    .entry(anim.joint_name(j).unwrap_or_default())
                    .or_insert(j);
            }
            for (i, slot) in source.iter_mut().enumerate() {
                let name = mesh.joint_name(i).unwrap_or_default();
                if let Some(&j) = by_name.get(name)
                    && let Some(t) = target.get_mut(j)
                {
                    *slot = j as u16;
                    *t = i as u16;
                }
            }
        } else if anim.num_poses() == joints {
            let differ =
                |i: &usize| anim.bone(*i).map(|b| b.parent()) != mesh.bone(*i).map(|b| b.parent());
            let count = (0..joints).filter(differ).count();
            reparented = (0..joints).find(differ).map(|first| (first, count));
            for i in 0..joints {
                source[i] = i as u16;
                target[i] = i as u16;
            }
        }
        if source.iter().all(|&s| s == NONE) {
            return Err(fail(Problem::Skeleton {
                bones: anim.num_poses() as u64,
                joints: joints as u64,
            }));
        }
        Ok(Pair {
            mesh: Box::new(mesh),
            anim: Some(Box::new(anim)),
            source,
            target,
            layout: OnceLock::new(),
            sampled: OnceLock::new(),
            parents: OnceLock::new(),
            reparented,
        })
    }

    /// Where an animation without joints plays by index on joints whose parents are not its
    /// poses': the first such pose, and how many there are. `None` when every parent agrees,
    /// the bones were matched by name, or the model plays its own frames.
    #[must_use]
    pub fn reparented(&self) -> Option<(usize, usize)> {
        self.reparented
    }

    /// The model.
    #[must_use]
    pub fn mesh(&self) -> &Iqm<'data> {
        &self.mesh
    }

    /// The animation-only IQM it plays, if it was given one.
    #[must_use]
    pub fn animation(&self) -> Option<&Iqm<'data>> {
        self.anim.as_deref()
    }

    /// How many of the model's joints the animation drives (all of them when the model plays
    /// its own frames).
    #[must_use]
    pub fn matched_joints(&self) -> usize {
        match self.anim {
            Some(_) => self.source.iter().filter(|&&s| s != NONE).count(),
            None => self.mesh.num_joints(),
        }
    }

    /// The binding of the frames that play to the model's joints: per joint, where each of
    /// its channels sits in a frame of the file that plays (or, for a joint the animation
    /// leaves alone, its bind transform as constants), with offsets and scales. Sampling
    /// decodes through it, so a model playing an animation-only IQM samples as fast as one
    /// playing its own frames.
    ///
    /// Made on the first call and kept: one allocation of about 3.2 KB per 16 joints, left
    /// out of opening so that opening allocates O(meshes). Sampling makes it on its first
    /// call for an animation-only IQM, and on its second for a model playing its own frames:
    /// the first decodes both frames in one walk of the poses (the same poses, bit for bit),
    /// so that a model posed once (a conversion, a thumbnail, a frame-0 export) never pays
    /// for it. `None` for a file without poses (its frames are its joints' bind pose).
    ///
    /// ```
    /// use skelmap_core::{Parse, iqm};
    /// let bytes = iqm::Builder::demo().write()?;
    /// let model = iqm::Pair::single(iqm::Iqm::parse(&bytes)?);
    /// assert_eq!(model.layout().map(|l| l.num_bones()), Some(3));
    /// # Ok::<(), skelmap_core::Error>(())
    /// ```
    pub fn layout(&self) -> Option<&ChannelLayout> {
        self.layout
            .get_or_init(|| {
                let frames = self.frames();
                if frames.num_poses() == 0 {
                    return None;
                }
                let per_frame = frames.num_framechannels();
                let Some(anim) = &self.anim else {
                    return Some(ChannelLayout::new(frames.pose_channels(), per_frame));
                };
                let poses: Vec<_> = anim.pose_channels().collect();
                let joints = (0..self.mesh.num_joints()).map(|i| {
                    let driven = self.source.get(i).copied().filter(|&s| s != NONE);
                    driven
                        .and_then(|s| poses.get(usize::from(s)).copied())
                        .or_else(|| self.mesh.joint_channels(i))
                        .unwrap_or(crate::pose::BoneChannels::constant(
                            [0.0; 3],
                            [0.0, 0.0, 0.0, 1.0],
                            [1.0; 3],
                        ))
                });
                Some(ChannelLayout::new(joints, per_frame))
            })
            .as_ref()
    }

    /// Frames `a` and `b` decoded through [`Pair::layout`] and blended (nlerp) into `out`
    /// and `scales` (on the first sample of a model playing its own frames, by the view's
    /// walk of its poses instead); `false` where there is no layout or a frame is out of
    /// range.
    fn nlerp_layout(
        &self,
        a: usize,
        b: usize,
        t: f32,
        out: &mut Vec<(Quat, Vec3A)>,
        scales: Option<&mut Vec<Vec3A>>,
    ) -> bool {
        if self.anim.is_none() && self.layout.get().is_none() && self.sampled.set(()).is_ok() {
            return match scales {
                Some(scales) => self.mesh.nlerp_frames_scaled_into(a, b, t, out, scales),
                None => self.mesh.nlerp_frames_into(a, b, t, out),
            };
        }
        let frames = self.frames();
        let (Some(layout), Some(va), Some(vb)) = (
            self.layout(),
            frames.frame_values(a),
            frames.frame_values(b),
        ) else {
            return false;
        };
        layout.nlerp_frames(va, vb, t, out, scales);
        true
    }

    /// The file whose frames and anims play.
    fn frames(&self) -> &Iqm<'data> {
        self.anim.as_deref().unwrap_or(&self.mesh)
    }

    /// Every joint's bind transform into `poses` (and its scale into `scales`), then the
    /// animation's frame `frame` over the joints it drives.
    fn mapped_frame(
        &self,
        anim: &Iqm<'data>,
        frame: usize,
        mut poses: Option<&mut Vec<(Quat, Vec3A)>>,
        mut scales: Option<&mut Vec<Vec3A>>,
    ) {
        let (start_p, start_s) = (
            poses.as_ref().map_or(0, |p| p.len()),
            scales.as_ref().map_or(0, |s| s.len()),
        );
        for i in 0..self.mesh.num_joints() {
            let (q, t, s) =
                self.mesh
                    .joint_transform(i)
                    .unwrap_or((Quat::IDENTITY, Vec3A::ZERO, Vec3A::ONE));
            if let Some(p) = poses.as_deref_mut() {
                p.push((q, t));
            }
            if let Some(out) = scales.as_deref_mut() {
                out.push(s);
            }
        }
        anim.for_each_pose(frame, |bone, c| {
            let Some(&joint) = self.target.get(bone) else {
                return;
            };
            if joint == NONE {
                return;
            }
            let j = usize::from(joint);
            if let Some(slot) = poses.as_deref_mut().and_then(|p| p.get_mut(start_p + j)) {
                *slot = (
                    unit_rotation(c[3], c[4], c[5], c[6]),
                    Vec3A::new(c[0], c[1], c[2]),
                );
            }
            if let Some(slot) = scales.as_deref_mut().and_then(|s| s.get_mut(start_s + j)) {
                *slot = Vec3A::new(c[7], c[8], c[9]);
            }
        });
    }
}

/// The model's joints.
/// An IQM opens on its own, or with the animation-only IQM it was given to play.
impl<'a> Open<'a> for Pair<'a> {
    fn companions<'data, R: Resolver<'data> + ?Sized>(
        _: &R,
        _: &str,
        _: &[u8],
        given: Given<'data>,
    ) -> Result<Vec<CompanionFile<'data>>> {
        Ok(given
            .animation
            .map(|(path, anim)| (Companion::Animation, path, anim))
            .into_iter()
            .collect())
    }

    fn open(files: &'a Files<'_>, limits: &Limits, diag: &mut Diagnostics) -> Result<Self> {
        let mesh = Iqm::parse_with(files.main.bytes(), limits, diag)?;
        let Some(anim) = files.companion(Companion::Animation).next() else {
            return Ok(Pair::single(mesh));
        };
        let pair = Pair::new(mesh, Iqm::parse_with(anim.bytes(), limits, diag)?)?;
        if let Some((first, count)) = pair.reparented() {
            let parent = |iqm: Option<&Iqm<'_>>| {
                iqm.and_then(|m| m.bone(first))
                    .and_then(|b| b.parent())
                    .map_or_else(|| "none".to_string(), |p| p.to_string())
            };
            let (theirs, ours) = (parent(pair.animation()), parent(Some(pair.mesh())));
            diag.warn(
                Format::Iqm,
                WarningKind::SpecLimit,
                "animation.poses",
                core::mem::offset_of!(super::raw::Header, num_poses) as u64,
                || {
                    format!(
                        "the animation's poses play on the model's joints by index, as the IQM \
                         SDK's loader plays them, though {count} have another parent (pose \
                         {first}: parent {theirs}, the joint's {ours})"
                    )
                },
            );
        }
        Ok(pair)
    }
}

impl<'data> Skeleton<'data> for Pair<'data> {
    fn skeleton_bones(&self) -> impl ExactSizeIterator<Item = Bone<'data>> + Clone {
        self.mesh.skeleton_bones()
    }

    fn bone(&self, index: usize) -> Option<Bone<'data>> {
        Skeleton::bone(&*self.mesh, index)
    }

    fn parent_table(&self) -> Option<&[u16]> {
        let table =
            (self.parents).get_or_init(|| crate::pose::parent_table(self.mesh.skeleton_bones()));
        Some(table)
    }
}

/// The frames of the animation (or the model's own), in the model's joint order.
impl<'data> PoseFrames<'data> for Pair<'data> {
    fn num_frames(&self) -> usize {
        self.frames().num_frames()
    }

    fn bone_pose(&self, frame: usize, bone: usize) -> Option<(Quat, Vec3A)> {
        let Some(anim) = &self.anim else {
            return self.mesh.bone_pose(frame, bone);
        };
        if frame >= anim.num_frames() {
            return None;
        }
        match self.source.get(bone).copied()? {
            NONE => self.mesh.joint_transform(bone).map(|(q, t, _)| (q, t)),
            s => anim.bone_pose(frame, usize::from(s)),
        }
    }

    fn frame_poses_into(&self, frame: usize, out: &mut Vec<(Quat, Vec3A)>) {
        match &self.anim {
            None => self.mesh.frame_poses_into(frame, out),
            Some(anim) if frame < anim.num_frames() => {
                self.mapped_frame(anim, frame, Some(out), None);
            }
            Some(_) => {}
        }
    }

    fn has_scale(&self) -> bool {
        self.mesh.has_scale() || self.anim.as_deref().is_some_and(Iqm::has_scale)
    }

    /// Through [`Pair::layout`]: the poses of the model's own frames or of its animation,
    /// matched to the joints once.
    fn nlerp_frames_into(&self, a: usize, b: usize, t: f32, out: &mut Vec<(Quat, Vec3A)>) -> bool {
        self.nlerp_layout(a, b, t, out, None)
    }

    fn nlerp_frames_scaled_into(
        &self,
        a: usize,
        b: usize,
        t: f32,
        out: &mut Vec<(Quat, Vec3A)>,
        scales: &mut Vec<Vec3A>,
    ) -> bool {
        self.nlerp_layout(a, b, t, out, Some(scales))
    }

    fn frame_scales_into(&self, frame: usize, out: &mut Vec<Vec3A>) {
        match &self.anim {
            None => self.mesh.frame_scales_into(frame, out),
            Some(anim) if frame < anim.num_frames() => {
                self.mapped_frame(anim, frame, None, Some(out));
            }
            Some(_) => {}
        }
    }
}

/// The model's mesh, materials and bind pose; the animation's frames, clips and bounds.
impl<'data> ModelView<'data> for Pair<'data> {
    type Mesh<'a>
        = &'a Iqm<'data>
    where
        Self: 'a;
    type FrameNames<'a>
        = IndexedNames<'a, 'data, Self>
    where
        Self: 'a;
    type BindMesh<'a>
        = &'a Iqm<'data>
    where
        Self: 'a;

    fn format(&self) -> Format {
        Format::Iqm
    }

    fn conventions(&self) -> crate::view::Conventions {
        ModelView::conventions(self.mesh())
    }

    /// IQM has no attachment flag: every joint is a point a model may be attached to.
    fn every_bone_attaches(&self) -> bool {
        true
    }

    fn pose_frames(&self) -> Option<&impl PoseFrames<'data>> {
        Some(self)
    }

    fn frame_names(&self) -> Self::FrameNames<'_> {
        IndexedNames::new(self)
    }

    fn clip_origin(&self) -> ClipOrigin {
        self.frames().clip_origin()
    }

    fn built_in_clips(&self) -> Vec<FrameGroup> {
        self.frames().built_in_clips()
    }

    fn bind_pose(&self, out: &mut LocalPose) {
        if self.anim.is_none() {
            return self.mesh.bind_pose(out);
        }
        // The model's joints, with the animation's scale where it has one.
        self.mesh.bind_pose(out);
        if self.has_scale() && out.scales.is_empty() {
            out.scales.resize(out.bones.len(), Vec3A::ONE);
        }
    }

    fn stored_bounds(&self) -> Option<Aabb> {
        self.frames().stored_bounds()
    }

    fn num_meshes(&self) -> usize {
        ModelView::num_meshes(&*self.mesh)
    }

    fn mesh(&self, index: usize) -> Option<&Iqm<'data>> {
        ModelView::mesh(&*self.mesh, index)
    }

    fn num_materials(&self) -> usize {
        ModelView::num_materials(&*self.mesh)
    }

    fn material(&self, index: usize) -> Option<Material<'_>> {
        ModelView::material(&*self.mesh, index)
    }

    fn bind_pose_mesh(&self) -> Option<&Iqm<'data>> {
        ModelView::bind_pose_mesh(&*self.mesh)
    }

    fn has_skeleton(&self) -> bool {
        ModelView::has_skeleton(&*self.mesh)
    }
}
