//! Posing an asset: its frames in one numbering, joint keys down the hierarchy, linear-blend
//! skinning and morphing of its meshes, turning it to another up axis, and resampling its
//! clips.
//!
//! This is the reference arithmetic writers and measurements use on an owned asset (baking
//! a skeletal model into vertex frames, comparing a conversion with its source); the
//! runtime's kernels in `skin/` never see an asset.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use glam::{Affine3A, Mat3, Quat, Vec3, Vec3A};

use super::{Asset, Clip, ClipKeys, FitError, Joint, JointKey, Mesh, Skeleton, UNBOUND, UpAxis};
use crate::pose::BONE_FLAG_ATTACHMENT;
use crate::write::{BoneDef, Influence};

/// Most frames [`Clip::resample`] makes of one clip.
pub const MAX_RESAMPLED_FRAMES: usize = 1 << 16;

/// The largest coordinate, or entry of a joint's transform, an asset may hold to be written
/// ([`Asset::refuse_out_of_range`]): a million units (ten kilometres in centimetres), so
/// that a skinned vertex's squared length stays within `f32`.
pub const MAX_COORDINATE: f32 = 1e6;

/// The most bytes of a frame name [`Asset::baked`] gives (a 16-byte field with its NUL, as
/// the vertex-animated formats store them).
pub const MAX_BAKED_NAME: usize = 15;

/// What one frame of an asset shows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FrameKeys<'a> {
    /// Every joint's parent-relative pose.
    Joints(&'a [JointKey]),
    /// A morph target of every mesh.
    Morph(u32),
}

impl Asset {
    /// Frames over every clip, in clip order: the numbering writers store frames in.
    #[must_use]
    pub fn num_frames(&self) -> usize {
        self.clips.iter().map(Clip::len).sum()
    }

    /// Frame `index` in the numbering of [`num_frames`](Asset::num_frames): its clip and what
    /// it shows, or `None` past the end.
    #[must_use]
    pub fn frame(&self, index: usize) -> Option<(usize, FrameKeys<'_>)> {
        let mut rest = index;
        for (c, clip) in self.clips.iter().enumerate() {
            if rest < clip.len() {
                let keys = match &clip.keys {
                    ClipKeys::Joints(frames) => FrameKeys::Joints(frames.get(rest)?),
                    ClipKeys::Morph(targets) => FrameKeys::Morph(*targets.get(rest)?),
                };
                return Some((c, keys));
            }
            rest -= clip.len();
        }
        None
    }

    /// Every mesh's positions and normals at frame `index` (see [`frame`](Asset::frame)),
    /// or at the asset's own pose for `None`: skinned by the joint keys with a linear blend,
    /// or moved to a morph target. A frame past the end gives `None`.
    #[must_use]
    pub fn posed(&self, index: Option<usize>) -> Option<Vec<PosedMesh>> {
        let keys = match index {
            None => None,
            Some(i) => Some(self.frame(i)?.1),
        };
        let matrices = match (keys, &self.skeleton) {
            (Some(FrameKeys::Joints(keys)), Some(skeleton)) => Some(skeleton.skin_matrices(keys)),
            _ => None,
        };
        Some(
            self.meshes
                .iter()
                .map(|mesh| match (keys, &matrices) {
                    (_, Some(m)) => mesh.skin(m),
                    (Some(FrameKeys::Morph(t)), None) => mesh.morphed(t as usize),
                    _ => PosedMesh {
                        positions: mesh.positions.clone(),
                        normals: mesh.normals.clone(),
                    },
                })
                .collect(),
        )
    }

    /// Every frame as vertex positions and normals, the meshes' vertices one after another:
    /// each frame of each clip posed ([`posed`](Asset::posed)), or the asset's own pose as
    /// one frame named `base` when it has no frames, names at most [`MAX_BAKED_NAME`] bytes (see
    /// [`frame_names`](Asset::frame_names)). What vertex-animated formats store.
    #[must_use]
    pub fn baked(&self) -> Vec<(Vec<u8>, PosedMesh)> {
        let join = |meshes: Vec<PosedMesh>| {
            let mut all = PosedMesh::default();
            for m in meshes {
                all.positions.extend(m.positions);
                all.normals.extend(m.normals);
            }
            all
        };
        if self.num_frames() == 0 {
            return vec![(b"base".to_vec(), join(self.posed(None).unwrap_or_default()))];
        }
        self.frame_names(MAX_BAKED_NAME)
            .into_iter()
            .enumerate()
            .map(|(f, name)| (name, join(self.posed(Some(f)).unwrap_or_default())))
            .collect()
    }

    /// Turns the asset so that `up` is its up axis: positions, normals, morph targets, the
    /// root joints' poses (bind and keys) and every joint's model-space transform are
    /// rotated; nothing else changes. Every change of up axis is a quarter turn, so points
    /// and translations are turned exactly: each coordinate is moved, or negated, never
    /// rounded, and the largest finite one stays finite.
    pub fn set_up(&mut self, up: UpAxis) {
        if self.up == up {
            return;
        }
        // From the current axes to +Y up, then from +Y up to the wanted axes.
        let turn = up.to_y_up().inverse() * self.up.to_y_up();
        // As a matrix, a quarter turn's entries are 0 and ±1 but for rounding: rounded, they
        // are exact. (The quaternion's own arithmetic on a point squares its coordinates, so
        // a huge one overflows to infinity and then to NaN.)
        let exact = Mat3::from_cols_array(&Mat3::from_quat(turn).to_cols_array().map(f32::round));
        let turn_affine = Affine3A::from_mat3(exact);
        let turn_point = |v: Vec3| exact * v;
        let rotate = |v: &mut [f32; 3]| *v = turn_point(Vec3::from(*v)).into();
        rotate(&mut self.front);
        for tag in &mut self.tags {
            tag.pose = turn_affine * tag.pose;
            tag.frames.iter_mut().for_each(|f| *f = turn_affine * *f);
        }
        for mesh in &mut self.meshes {
            mesh.positions.iter_mut().for_each(rotate);
            mesh.normals.iter_mut().for_each(rotate);
            for target in &mut mesh.targets {
                target.positions.iter_mut().for_each(rotate);
                target.normals.iter_mut().for_each(rotate);
            }
        }
        if let Some(skeleton) = self.skeleton.as_mut() {
            let roots: Vec<bool> = skeleton.joints.iter().map(|j| j.parent.is_none()).collect();
            for joint in &mut skeleton.joints {
                joint.world = turn_affine * joint.world;
                if joint.parent.is_none() {
                    joint.rotation = turn * joint.rotation;
                    joint.translation = turn_point(joint.translation);
                }
            }
            for clip in &mut self.clips {
                if let ClipKeys::Joints(frames) = &mut clip.keys {
                    for keys in frames {
                        for (key, _) in keys.iter_mut().zip(&roots).filter(|(_, r)| **r) {
                            key.rotation = turn * key.rotation;
                            key.translation = turn_point(key.translation);
                        }
                    }
                }
            }
        }
        self.up = up;
    }

    /// The asset with `up` as its up axis: itself when it already is, else a turned copy
    /// (see [`set_up`](Asset::set_up)).
    #[must_use]
    pub fn with_up(&self, up: UpAxis) -> Cow<'_, Asset> {
        if self.up == up {
            Cow::Borrowed(self)
        } else {
            let mut turned = self.clone();
            turned.set_up(up);
            Cow::Owned(turned)
        }
    }

    /// Each frame's joint keys (see [`frame`](Asset::frame)), or `None` when a frame is a
    /// morph target or the asset has no skeleton.
    #[must_use]
    pub fn joint_frames(&self) -> Option<Vec<&[JointKey]>> {
        self.skeleton.as_ref()?;
        (0..self.num_frames())
            .map(|f| match self.frame(f)?.1 {
                FrameKeys::Joints(keys) => Some(keys),
                FrameKeys::Morph(_) => None,
            })
            .collect()
    }

    /// Each mesh's [`material_name`](Asset::material_name): the shaders a format that names
    /// them stores (DPM, SKM, ZYM), each refused past `max` bytes.
    ///
    /// # Errors
    ///
    /// [`FitError`] naming the first name too long for `format`.
    pub fn shader_names(&self, format: &'static str, max: usize) -> Result<Vec<String>, FitError> {
        let names: Vec<String> = self.meshes.iter().map(|m| self.material_name(m)).collect();
        self.check_names(format, "shader", names.iter().map(String::as_str), max)?;
        Ok(names)
    }

    /// The name a file stores for mesh `mesh`'s material: its texture file when it names one,
    /// else the material's name, else the mesh's. A name the reader could not decode (it
    /// holds U+FFFD, as a legacy code page read as UTF-8 does) becomes `material_{index}`.
    #[must_use]
    pub fn material_name(&self, mesh: &Mesh) -> String {
        let name = match mesh
            .material
            .and_then(|i| Some((i, self.materials.get(i)?)))
        {
            Some((i, m)) => {
                let name = m.texture_file().unwrap_or_else(|| m.name.clone());
                if name.contains(char::REPLACEMENT_CHARACTER) {
                    format!("material_{i}")
                } else {
                    name
                }
            }
            None => mesh.name.clone(),
        };
        name.replace(char::REPLACEMENT_CHARACTER, "_")
    }

    /// The name a file stores for mesh `index`: its own, or `mesh_{index}` when the reader
    /// could not decode it (it holds U+FFFD).
    #[must_use]
    pub fn mesh_name(&self, index: usize) -> String {
        match self.meshes.get(index) {
            Some(m) if !m.name.contains(char::REPLACEMENT_CHARACTER) => m.name.clone(),
            _ => format!("mesh_{index}"),
        }
    }

    /// Frame names that give the clips back when grouped by their stems
    /// ([`groups_from_names`](crate::pose::framegroups::groups_from_names)), as stored in the
    /// asset's code page ([`name_bytes`](Asset::name_bytes)), each at most `max` bytes: frame
    /// `k` of clip `walk` is `walk_{k+1}`, in the numbering of
    /// [`num_frames`](Asset::num_frames). The stem is the clip's name with every character
    /// that is not a letter or digit (in any script: a clip named on Chinese Windows keeps its
    /// name) made `_`, cut to whole characters that leave room for the clip's largest number,
    /// so that every frame of a clip has one stem. Where a cut gives a clip the stem of the
    /// clip before it (`attack_sword_1`, `attack_sword_2` in 15 bytes), whose frames a reader
    /// would join to it, it is cut one byte shorter and ends in a letter the other's does not.
    /// [`frame_name_note`](Asset::frame_name_note) says which names are not read back whole.
    ///
    /// ```
    /// use skelmap_core::Model;
    /// use skelmap_core::asset::Options;
    /// use skelmap_core::synth::{TubeParams, tube};
    /// let bytes = tube(&TubeParams::default()).write()?;
    /// let mut asset = Model::from_bytes(&bytes)?.to_asset(&Options::default())?;
    /// asset.clips.truncate(1);
    /// asset.clips[0].name = "run fast".into();
    /// assert_eq!(asset.frame_names(15)[0], b"run_fast_1");
    /// assert_eq!(asset.frame_name_note(15, "MD2"), None);
    /// asset.clips[0].name = "run fast forward".into();
    /// assert_eq!(asset.frame_names(15)[0], b"run_fast_forw_1");
    /// let note = asset.frame_name_note(15, "MD2").unwrap_or_default();
    /// assert!(note.starts_with("1 clip name is read back otherwise: MD2 names clips by"));
    /// assert!(note.ends_with("(`run fast forward` as `run_fast_forw`)"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn frame_names(&self, max: usize) -> Vec<Vec<u8>> {
        let stems = self.frame_stems(max);
        self.clips
            .iter()
            .zip(stems)
            .flat_map(|(clip, stem)| {
                (0..clip.len()).map(move |k| [&stem[..], format!("_{}", k + 1).as_bytes()].concat())
            })
            .collect()
    }

    /// Per clip, the stem of its [`frame_names`](Asset::frame_names).
    fn frame_stems(&self, max: usize) -> Vec<Vec<u8>> {
        let mut stems: Vec<Vec<u8>> = Vec::with_capacity(self.clips.len());
        // The stem of the last clip with frames: the one a reader would join a clip's to.
        let mut previous: Option<usize> = None;
        for clip in &self.clips {
            let text = frame_stem_text(&clip.name);
            let room = max.saturating_sub(format!("_{}", clip.len()).len());
            let mut stem = self.name_bytes_within(&text, room);
            if let Some(taken) = previous.and_then(|p| stems.get(p))
                && *taken == stem
                && room > 0
            {
                let head = self.name_bytes_within(&text, room - 1);
                let mut distinct = (b'a'..=b'z').map(|c| [&head[..], &[c]].concat());
                stem = distinct.find(|s| s != taken).unwrap_or(stem);
            }
            if !clip.is_empty() {
                previous = Some(stems.len());
            }
            stems.push(stem);
        }
        stems
    }

    /// The note of a writer whose frame names carry the clips ([`frame_names`] of `max`
    /// bytes, `format` naming the file), for the clips whose names they cut (or end in
    /// another letter, to keep two clips apart): `None` when every clip with frames is read
    /// back by its own name, or by that name with `_` for what is not a letter or digit (a
    /// change the documentation states, which a note on every such file would repeat).
    ///
    /// [`frame_names`]: Asset::frame_names
    #[must_use]
    pub fn frame_name_note(&self, max: usize, format: &str) -> Option<String> {
        let stems = self.frame_stems(max);
        let changed: Vec<String> = (self.clips.iter().zip(&stems))
            .filter(|(clip, _)| !clip.is_empty())
            .filter_map(|(clip, stem)| {
                let read = self.code_page.decode(stem);
                (read != frame_stem_text(&clip.name)).then(|| {
                    let shown = crate::name::shown;
                    format!("`{}` as `{}`", shown(&clip.name), shown(&read))
                })
            })
            .collect();
        let first = changed.first()?;
        let (count, more) = match changed.len() {
            1 => ("1 clip name is".to_string(), String::new()),
            n => (
                format!("{n} clip names are"),
                format!(" and {} more", n - 1),
            ),
        };
        Some(format!(
            "{count} read back otherwise: {format} names clips by their frames' names, \
             letters, digits and `_` in at most {max} bytes with the frame's number \
             ({first}{more})"
        ))
    }

    /// Frames in which a joint's scale differs from 1 by more than 1e-4: what formats
    /// without scale (DPM, SKM, MS3D, SL) lose.
    #[must_use]
    pub fn scaled_frames(&self) -> usize {
        self.joint_frames()
            .unwrap_or_default()
            .iter()
            .filter(|keys| {
                keys.iter()
                    .any(|k| (k.scale - Vec3::ONE).abs().max_element() > 1e-4)
            })
            .count()
    }

    /// Refuses skeletal animation for `format`, which stores each frame's vertices, unless
    /// `bake` asks for every frame's skinned vertices.
    ///
    /// # Errors
    ///
    /// [`FitError`] for a skeleton with frames and no `bake`.
    pub fn refuse_unbaked(&self, format: &'static str, bake: bool) -> Result<(), FitError> {
        if self.skeleton.is_some() && self.num_frames() > 0 && !bake {
            return Err(FitError::new(
                format,
                "skeletal animation",
                "it stores each frame's vertices, not joints",
                "bake every frame's skinned vertices with `--bake`",
            ));
        }
        Ok(())
    }

    /// Refuses vertex animation for `format`, whose frames pose joints only.
    ///
    /// # Errors
    ///
    /// [`FitError`] when a clip plays morph targets.
    pub fn refuse_vertex_animation(&self, format: &'static str) -> Result<(), FitError> {
        if self.has_morph_clips() {
            return Err(FitError::new(
                format,
                "vertex animation (morph-target frames)",
                "its frames pose joints only",
                "convert to a format of vertex frames (MD3, MD2, MDC, Quake MDL or \
                 GameStudio MDL5) or to glTF (morph targets), or leave the animation out with \
                 `--no-animations`",
            ));
        }
        Ok(())
    }

    /// Refuses an asset whose numbers a writer's `f32` arithmetic could overflow: a vertex
    /// position or morph offset, a tag's place, an entry of a joint's bind transform or of
    /// its inverse (a joint scaled to nothing has none), or of a joint's model-space
    /// transform from its own keys or in any frame, past ±[`MAX_COORDINATE`]. Within it, a skinned vertex (three
    /// such factors) and the squares its bounds and radius take stay finite. What
    /// [`model::write`](fn@crate::model::write) checks before any writer runs.
    ///
    /// ```
    /// use skelmap_core::{Model, asset::MAX_COORDINATE};
    /// let bytes = skelmap_core::synth::tube(&Default::default()).write()?;
    /// let mut asset = Model::from_bytes(&bytes)?.to_asset(&Default::default())?;
    /// assert!(asset.refuse_out_of_range("DPM").is_ok());
    /// asset.meshes[0].positions[7][2] = 2.0 * MAX_COORDINATE;
    /// let e = asset.refuse_out_of_range("DPM").unwrap_err();
    /// assert_eq!(e.what, "vertex 7 of mesh 0 at 2e6 units");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`FitError`] naming the first number out of range.
    pub fn refuse_out_of_range(&self, format: &'static str) -> Result<(), FitError> {
        // NaN is beyond it too.
        fn beyond(values: impl IntoIterator<Item = f32>) -> Option<f32> {
            use core::cmp::Ordering::{Equal, Less};
            (values.into_iter())
                .find(|v| !matches!(v.abs().partial_cmp(&MAX_COORDINATE), Some(Less | Equal)))
                .map(f32::abs)
        }
        let refuse = |what: String| {
            FitError::new(
                format,
                what,
                format!(
                    "coordinates and transforms within ±{MAX_COORDINATE:e}, which a writer's \
                     arithmetic holds"
                ),
                "scale the model down, or remove the vertices or joints that are that far",
            )
        };
        for (m, mesh) in self.meshes.iter().enumerate() {
            let targets = mesh.targets.iter().flat_map(|t| &t.positions);
            for (v, p) in mesh.positions.iter().chain(targets).enumerate() {
                if let Some(far) = beyond(*p) {
                    let v = v % mesh.positions.len().max(1);
                    return Err(refuse(format!("vertex {v} of mesh {m} at {far:e} units")));
                }
            }
        }
        let entries = |a: &Affine3A| a.to_cols_array();
        for tag in &self.tags {
            let places = core::iter::once(&tag.pose).chain(&tag.frames);
            if let Some(far) = beyond(places.flat_map(entries)) {
                return Err(refuse(format!("tag '{}' at {far:e} units", tag.name)));
            }
        }
        let Some(skeleton) = &self.skeleton else {
            return Ok(());
        };
        for joint in &skeleton.joints {
            let both = [joint.world, joint.world.inverse()];
            if let Some(far) = beyond(both.iter().flat_map(entries)) {
                return Err(refuse(format!(
                    "joint '{}' bound at {far:e} (a place, a scale or its inverse)",
                    joint.name
                )));
            }
        }
        // The joints' own keys too (what a writer stores for an asset without frames), whose
        // transforms need not be the bind transforms' (the asset's frame).
        let own = skeleton.bind_keys();
        let frames = self.joint_frames().unwrap_or_default();
        let keyed = frames.iter().enumerate().map(|(f, keys)| (Some(f), *keys));
        for (f, keys) in core::iter::once((None, own.as_slice())).chain(keyed) {
            let world = skeleton.world(keys);
            for (joint, w) in skeleton.joints.iter().zip(&world) {
                if let Some(far) = beyond(entries(w)) {
                    let when = f.map_or("at the asset's frame".into(), |f| format!("in frame {f}"));
                    return Err(refuse(format!(
                        "joint '{}' {when} at {far:e} (a place or a scale)",
                        joint.name
                    )));
                }
            }
        }
        Ok(())
    }

    /// Refuses an asset with nothing to write in `format`: no vertex, joint, tag or clip (a
    /// glTF of points and lines alone, which the importer skips, or of no node).
    ///
    /// # Errors
    ///
    /// [`FitError`] naming the empty asset.
    pub fn refuse_empty(&self, format: &'static str) -> Result<(), FitError> {
        let empty = self.num_vertices() == 0
            && self.skeleton.as_ref().is_none_or(|s| s.joints.is_empty())
            && self.tags.is_empty()
            && self.clips.is_empty();
        if !empty {
            return Ok(());
        }
        Err(FitError::new(
            format,
            "an empty model (no vertex, joint, tag or animation)",
            "a model holds something to draw or to animate",
            "check the input: of a glTF, only the triangles of its scene's nodes are read",
        ))
    }

    /// The asset without its meshes that draw nothing (no vertex or no triangle), for a
    /// format whose meshes each need both, and a note of how many were left out (`None` for
    /// none).
    ///
    /// # Errors
    ///
    /// [`FitError`] when no mesh is left: `format` needs something to draw.
    pub fn drawable(
        &self,
        format: &'static str,
    ) -> Result<(Cow<'_, Asset>, Option<String>), FitError> {
        let draws = |m: &Mesh| !m.positions.is_empty() && !m.triangles.is_empty();
        let empty = self.meshes.iter().filter(|m| !draws(m)).count();
        if empty == self.meshes.len() {
            return Err(FitError::new(
                format,
                "no triangles",
                "a model has at least one mesh of at least one triangle",
                "convert a model with a mesh; a skeleton or animation alone can be written \
                 as IQM, MD5 or glTF",
            ));
        }
        if empty == 0 {
            return Ok((Cow::Borrowed(self), None));
        }
        let mut kept = self.clone();
        kept.meshes.retain(draws);
        let note = format!("{empty} meshes without vertices or triangles are left out");
        Ok((Cow::Owned(kept), Some(note)))
    }

    /// The asset with every vertex of a skinned asset bound to a joint, for a format whose
    /// vertices each follow a bone: where the asset has joints and a vertex is bound to none
    /// (a mesh without influences, as a glTF's static mesh beside a skinned one; a vertex
    /// without any; a share on [`UNBOUND`]), that share goes to a joint added after the
    /// others at the origin, which every frame keeps there, so that the vertex stays where
    /// it is, as [`Mesh::skin`] keeps it. With the note that says so; the asset itself where
    /// no vertex is loose, where it has no joints (a writer's root holds every vertex), or
    /// where no joint index is left.
    ///
    /// ```
    /// use skelmap_core::{Model, asset, synth};
    /// let bytes = synth::tube(&Default::default()).write()?;
    /// let mut asset = Model::from_bytes(&bytes)?.to_asset(&asset::Options::default())?;
    /// let joints = asset.skeleton.as_ref().map_or(0, |s| s.joints.len());
    /// // A mesh that follows no joint (as a glTF's static mesh does).
    /// asset.meshes[0].influences = Default::default();
    /// let vertices = asset.meshes[0].positions.len();
    /// let (still, note) = asset.with_still_joint();
    /// assert_eq!(still.skeleton.as_ref().unwrap().joints[joints].name, "origin");
    /// assert_eq!(still.meshes[0].influences.of(0), [(joints as u16, 1.0)]);
    /// assert!(note.unwrap().starts_with(&format!("{vertices} vertices bound to no joint")));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn with_still_joint(&self) -> (Cow<'_, Asset>, Option<String>) {
        let Some(skeleton) = self.skeleton.as_ref().filter(|s| !s.joints.is_empty()) else {
            return (Cow::Borrowed(self), None);
        };
        let loose = |m: &Mesh, v: usize| {
            let shares = m.influences.of(v);
            shares.is_empty() || shares.iter().any(|&(j, _)| j == UNBOUND)
        };
        let count: usize = (self.meshes.iter())
            .map(|m| (0..m.positions.len()).filter(|&v| loose(m, v)).count())
            .sum();
        let index = skeleton.joints.len();
        let Some(still) = u16::try_from(index)
            .ok()
            .filter(|&j| count > 0 && j != UNBOUND)
        else {
            return (Cow::Borrowed(self), None);
        };
        let taken: HashSet<&str> = skeleton.joints.iter().map(|j| j.name.as_str()).collect();
        let name = core::iter::once("origin".to_string())
            .chain((2..=index + 2).map(|k| format!("origin_{k}")))
            .find(|n| !taken.contains(n.as_str()))
            .unwrap_or_default();
        let mut out = self.clone();
        if let Some(s) = out.skeleton.as_mut() {
            s.joints.push(Joint {
                name: name.clone(),
                parent: None,
                rotation: Quat::IDENTITY,
                translation: Vec3::ZERO,
                scale: Vec3::ONE,
                world: Affine3A::IDENTITY,
            });
        }
        for clip in &mut out.clips {
            if let ClipKeys::Joints(frames) = &mut clip.keys {
                for keys in frames.iter_mut().filter(|k| k.len() == index) {
                    keys.push(JointKey {
                        rotation: Quat::IDENTITY,
                        translation: Vec3::ZERO,
                        scale: Vec3::ONE,
                    });
                }
            }
        }
        for mesh in &mut out.meshes {
            let vertices = mesh.positions.len();
            if !(0..vertices).any(|v| loose(mesh, v)) {
                continue;
            }
            let mut influences = super::Influences::default();
            for v in 0..vertices {
                let shares = mesh.influences.of(v);
                let moved: Vec<(u16, f32)> = if shares.is_empty() {
                    vec![(still, 1.0)]
                } else {
                    let to_still = |j| if j == UNBOUND { still } else { j };
                    shares.iter().map(|&(j, w)| (to_still(j), w)).collect()
                };
                influences.push_exact(&moved);
            }
            mesh.influences = influences;
        }
        let note = format!(
            "{count} vertices bound to no joint are weighted to the joint {:?}, added at \
             the origin and never animated, so that they stay where they are",
            crate::name::shown(&name)
        );
        (Cow::Owned(out), Some(note))
    }

    /// The skeleton, or for an asset without joints one root at the origin (where DPM and
    /// SKM bind every vertex).
    #[must_use]
    pub fn skeleton_or_root(&self) -> Skeleton {
        let mut skeleton = self.skeleton.clone().unwrap_or_default();
        if skeleton.joints.is_empty() {
            skeleton.joints.push(Joint {
                name: "root".into(),
                parent: None,
                rotation: Quat::IDENTITY,
                translation: Vec3::ZERO,
                scale: Vec3::ONE,
                world: Affine3A::IDENTITY,
            });
        }
        skeleton
    }

    /// Whether a clip plays morph targets (vertex animation).
    #[must_use]
    pub fn has_morph_clips(&self) -> bool {
        self.clips
            .iter()
            .any(|c| matches!(c.keys, ClipKeys::Morph(_)) && !c.is_empty())
    }

    /// Keeps the clips `keep` says yes to, renumbering the frames of those left.
    pub fn retain_clips(&mut self, mut keep: impl FnMut(&Clip) -> bool) {
        self.clips.retain(|c| keep(c));
        let mut first = 0u32;
        for clip in &mut self.clips {
            clip.first = first;
            first = first.saturating_add(u32::try_from(clip.len()).unwrap_or(u32::MAX));
        }
    }

    /// The attachment joints a format can store as points on their parent bones (an MDM's
    /// tags, a Half-Life model's attachments), as such points, and the asset without them
    /// (itself when there are none). A joint is one when it is flagged as an attachment, has a
    /// parent before it, no joint below it and no influence, and holds one parent-relative
    /// transform at the asset's frame and in every key: what [`Model::to_asset`](crate::Model::to_asset)
    /// makes of a tag on a bone. With `turns` false (a format whose points have an origin
    /// alone), only joints that neither turn nor scale against their parent are.
    ///
    /// ```
    /// use skelmap_core::{Model, asset::Options};
    /// // A Half-Life model with one attachment, at (1, 2, 3) in bone 1's space.
    /// let bytes = skelmap_core::hl1::Builder::example().write()?;
    /// let asset = Model::from_bytes(&bytes)?.to_asset(&Options::default())?;
    /// let (without, tags) = asset.split_bone_tags(false);
    /// assert_eq!((tags.len(), tags[0].name.as_str(), tags[0].bone), (1, "attachment", 1));
    /// assert_eq!(tags[0].offset.translation.to_array(), [1.0, 2.0, 3.0]);
    /// let joints = |a: &skelmap_core::asset::Asset| a.skeleton.as_ref().map_or(0, |s| s.joints.len());
    /// assert_eq!(joints(&without), joints(&asset) - 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn split_bone_tags(&self, turns: bool) -> (Cow<'_, Asset>, Vec<BoneTag>) {
        let Some(skeleton) = &self.skeleton else {
            return (Cow::Borrowed(self), Vec::new());
        };
        let joints = skeleton.joints.len();
        // Joints with a joint below them or an influence: bones either way.
        let mut bones = vec![false; joints];
        for (j, joint) in skeleton.joints.iter().enumerate() {
            if let Some(p) = joint.parent.filter(|&p| p < j) {
                bones[p] = true;
            }
        }
        for mesh in &self.meshes {
            for &(j, _) in &mesh.influences.weights {
                if let Some(b) = bones.get_mut(usize::from(j)) {
                    *b = true;
                }
            }
        }
        let frames = self.joint_frames().unwrap_or_default();
        let same = |a: &JointKey, b: &JointKey| {
            a.rotation.dot(b.rotation).abs() >= 1.0 - 1e-6
                && a.translation
                    .abs_diff_eq(b.translation, 1e-5 * (1.0 + b.translation.length()))
                && a.scale.abs_diff_eq(b.scale, 1e-5)
        };
        let still = |j: usize| {
            let joint = &skeleton.joints[j];
            let key = JointKey {
                rotation: joint.rotation,
                translation: joint.translation,
                scale: joint.scale,
            };
            let plain = JointKey {
                rotation: Quat::IDENTITY,
                translation: key.translation,
                scale: Vec3::ONE,
            };
            (turns || same(&key, &plain))
                && frames
                    .iter()
                    .all(|f| f.get(j).is_some_and(|k| same(k, &key)))
        };
        let folded: Vec<usize> = (skeleton.attachments.iter().copied())
            .filter(|&j| {
                j < joints
                    && skeleton.joints[j].parent.is_some_and(|p| p < j)
                    && !bones[j]
                    && still(j)
            })
            .collect();
        if folded.is_empty() {
            return (Cow::Borrowed(self), Vec::new());
        }
        // Each kept joint's new index.
        let mut index: Vec<Option<usize>> = (0..joints).map(Some).collect();
        for &j in &folded {
            index[j] = None;
        }
        for (next, slot) in index.iter_mut().flatten().enumerate() {
            *slot = next;
        }
        let new = |j: usize| index.get(j).copied().flatten();
        let tags = (folded.iter())
            .filter_map(|&j| {
                let joint = &skeleton.joints[j];
                Some(BoneTag {
                    name: joint.name.clone(),
                    bone: new(joint.parent?)?,
                    offset: Affine3A::from_scale_rotation_translation(
                        joint.scale,
                        joint.rotation,
                        joint.translation,
                    ),
                })
            })
            .collect();
        let mut kept = self.clone();
        if let Some(s) = &mut kept.skeleton {
            let mut j = 0;
            s.joints.retain(|_| {
                j += 1;
                index[j - 1].is_some()
            });
            for joint in &mut s.joints {
                joint.parent = joint.parent.and_then(new);
            }
            s.attachments = (s.attachments.iter()).filter_map(|&a| new(a)).collect();
        }
        for mesh in &mut kept.meshes {
            for (j, _) in &mut mesh.influences.weights {
                if let Some(to) = new(usize::from(*j)) {
                    // Fewer joints than before: the index fits.
                    *j = to as u16;
                }
            }
        }
        for clip in &mut kept.clips {
            if let ClipKeys::Joints(frames) = &mut clip.keys {
                for keys in frames {
                    let mut j = 0;
                    keys.retain(|_| {
                        j += 1;
                        index.get(j - 1).is_none_or(Option::is_some)
                    });
                }
            }
        }
        (Cow::Owned(kept), tags)
    }
}

/// An attachment joint stored as a point on its parent bone ([`Asset::split_bone_tags`]).
#[derive(Debug, Clone, PartialEq)]
pub struct BoneTag {
    /// The joint's name.
    pub name: String,
    /// Its parent, as a joint of the asset without the points.
    pub bone: usize,
    /// Where it sits in the bone's space: the joint's parent-relative transform.
    pub offset: Affine3A,
}

/// The rotation (unit) and translation of `m`, its scale dropped; the identity rotation where
/// `m` has none (a frame that scales a joint to nothing): what the writers whose bones do not
/// scale store.
pub(crate) fn rotation_translation(m: &Affine3A) -> (Quat, Vec3) {
    let (_, rotation, translation) = m.to_scale_rotation_translation();
    let rotation = if rotation.is_finite() && rotation.length_squared() > 0.0 {
        rotation.normalize()
    } else {
        Quat::IDENTITY
    };
    (rotation, translation)
}

/// One mesh posed: positions and normals.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PosedMesh {
    /// Positions.
    pub positions: Vec<[f32; 3]>,
    /// Normals (not renormalised).
    pub normals: Vec<[f32; 3]>,
}

impl Skeleton {
    /// The joints as bone records (attachments flagged), for DPM and SKP, their names in
    /// `code_page` ([`Asset::code_page`]).
    #[must_use]
    pub fn bone_defs(&self, code_page: crate::name::CodePage) -> Vec<BoneDef> {
        let mut flags = vec![0; self.joints.len()];
        for &a in &self.attachments {
            if let Some(f) = flags.get_mut(a) {
                *f = BONE_FLAG_ATTACHMENT;
            }
        }
        self.joints
            .iter()
            .zip(flags)
            .map(|(j, flags)| BoneDef {
                name: code_page.encode(&j.name).into_owned(),
                parent: j.parent.map_or(-1, |p| p as i32),
                flags,
            })
            .collect()
    }

    /// A name for a bone a writer adds (a common root): `stem`, else `stem_1`, `stem_2` …,
    /// the first no joint has (compared ignoring ASCII case, as engines look bones up).
    ///
    /// ```
    /// use glam::{Affine3A, Quat, Vec3};
    /// use skelmap_core::asset::{Joint, Skeleton};
    /// let joint = |name: &str| Joint {
    ///     name: name.into(),
    ///     parent: None,
    ///     rotation: Quat::IDENTITY,
    ///     translation: Vec3::ZERO,
    ///     scale: Vec3::ONE,
    ///     world: Affine3A::IDENTITY,
    /// };
    /// let skeleton = Skeleton { joints: vec![joint("Root"), joint("root_1")], ..Skeleton::default() };
    /// assert_eq!(skeleton.free_name("root"), "root_2");
    /// assert_eq!(skeleton.free_name("base"), "base");
    /// ```
    #[must_use]
    pub fn free_name(&self, stem: &str) -> String {
        free_name_among(self.joints.iter().map(|j| j.name.as_str()), stem)
    }

    /// The joints' names made distinct for a format that finds joints by name: a name an
    /// earlier joint has (compared ignoring ASCII case with `ignore_case`), and an empty name
    /// (by which nothing can be found: an MS3D joint naming an empty parent has none), gets
    /// `_<index>` appended (a larger number where that name is taken too), the name cut to
    /// `max` bytes at a character boundary; each such joint's index, new and old name are
    /// returned beside the names, for the writer's note. Linear in the joints, by a set of
    /// names.
    ///
    /// ```
    /// use glam::{Affine3A, Quat, Vec3};
    /// use skelmap_core::asset::{Joint, Skeleton};
    /// let joint = |name: &str| Joint {
    ///     name: name.into(),
    ///     parent: None,
    ///     rotation: Quat::IDENTITY,
    ///     translation: Vec3::ZERO,
    ///     scale: Vec3::ONE,
    ///     world: Affine3A::IDENTITY,
    /// };
    /// let skeleton = Skeleton {
    ///     joints: vec![joint("Leg"), joint("leg"), joint("Leg"), joint("Leg_2")],
    ///     ..Skeleton::default()
    /// };
    /// let (names, renamed) = skeleton.distinct_names(63, true);
    /// assert_eq!(names, ["Leg", "leg_1", "Leg_3", "Leg_2"]);
    /// assert_eq!(renamed.len(), 2);
    /// assert_eq!(skeleton.distinct_names(63, false).0, ["Leg", "leg", "Leg_3", "Leg_2"]);
    /// // Joints without a name, the first too (Half-Life's are often unnamed).
    /// let skeleton = Skeleton {
    ///     joints: vec![joint(""), joint("_0"), joint("")],
    ///     ..Skeleton::default()
    /// };
    /// assert_eq!(skeleton.distinct_names(63, false).0, ["_1", "_0", "_2"]);
    /// ```
    #[must_use]
    pub fn distinct_names(
        &self,
        max: usize,
        ignore_case: bool,
    ) -> (Vec<String>, Vec<(usize, String, String)>) {
        // Every name given out or held by a joint, as compared.
        let mut used: HashSet<String> = (self.joints.iter())
            .map(|j| folded(&j.name, ignore_case))
            .collect();
        let mut seen: HashSet<String> = HashSet::with_capacity(self.joints.len());
        // Per name repeated (as compared), the last number tried for it: every number up to
        // it gave a name taken then, and so still taken, so the next repeat starts past it.
        // Each number is tried once per name, however many joints are named with numbers
        // the repeats would try (which made a file of them quadratic).
        let mut tried: HashMap<String, usize> = HashMap::new();
        let mut renamed = Vec::new();
        let names = (self.joints.iter().enumerate())
            .map(|(i, j)| {
                if !j.name.is_empty() && seen.insert(folded(&j.name, ignore_case)) {
                    return j.name.clone();
                }
                let key = folded(&j.name, ignore_case);
                let from = tried.get(&key).map_or(i, |&last| i.max(last + 1));
                // Of the joints' count + 1 numbers from `from` on, one gives a free name.
                let name = (from..=from + self.joints.len())
                    .map(|k| {
                        let suffix = format!("_{k}");
                        let mut cut = max.saturating_sub(suffix.len()).min(j.name.len());
                        while !j.name.is_char_boundary(cut) {
                            cut -= 1;
                        }
                        (
                            k,
                            format!("{}{suffix}", j.name.get(..cut).unwrap_or_default()),
                        )
                    })
                    .find(|(_, n)| !used.contains(&folded(n, ignore_case)))
                    .map_or_else(String::new, |(k, n)| {
                        tried.insert(key, k);
                        n
                    });
                used.insert(folded(&name, ignore_case));
                seen.insert(folded(&name, ignore_case));
                renamed.push((i, name.clone(), j.name.clone()));
                name
            })
            .collect();
        (names, renamed)
    }

    /// How many joints scale in the bind pose (by more than rounding, 1e-6 on an axis): what
    /// a writer whose bones do not scale drops and says it dropped.
    #[must_use]
    pub fn scaled_joints(&self) -> usize {
        (self.joints.iter())
            .filter(|j| !j.scale.abs_diff_eq(Vec3::ONE, 1e-6))
            .count()
    }

    /// The inverse bind transforms a format whose bones do not scale (DPM, SKM: its name is
    /// `format`) weighs its vertices with, and a note of how many joints scale in the bind
    /// pose (`None` for none). Where none does, the inverses of the joints' bind transforms.
    /// Else the inverses of the transforms the bind keys give without their scale: the
    /// bones' bind pose as such a format stores it, so the bind pose comes back exactly (a
    /// glTF's joints under a node that scales by 100, as assimp's `quad_skin.glb`), and so
    /// does every frame that scales as the bind pose does, uniformly.
    ///
    /// ```
    /// use skelmap_core::{Model, asset, synth};
    /// let bytes = synth::tube(&Default::default()).write()?;
    /// let asset = Model::from_bytes(&bytes)?.to_asset(&asset::Options::default())?;
    /// let skeleton = asset.skeleton.as_ref().unwrap();
    /// let (inverse, note) = skeleton.unscaled_inverse_binds("DPM");
    /// assert_eq!((inverse.len(), note), (skeleton.joints.len(), None));
    /// assert_eq!(inverse[1], skeleton.joints[1].world.inverse());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn unscaled_inverse_binds(&self, format: &str) -> (Vec<Affine3A>, Option<String>) {
        let scaled = self.scaled_joints();
        let worlds = if scaled == 0 {
            self.joints.iter().map(|j| j.world).collect()
        } else {
            let keys: Vec<JointKey> = (self.bind_keys().into_iter())
                .map(|k| JointKey {
                    scale: Vec3::ONE,
                    ..k
                })
                .collect();
            self.world(&keys)
        };
        let note = (scaled > 0).then(|| {
            format!(
                "{scaled} joints scale in the bind pose; {format} bones do not scale, so the \
                 vertices are weighted in the unscaled bones' space: the bind pose is kept, a \
                 frame that scales otherwise is not"
            )
        });
        (worlds.iter().map(Affine3A::inverse).collect(), note)
    }

    /// Each joint's pose as its stored bind keys.
    #[must_use]
    pub fn bind_keys(&self) -> Vec<JointKey> {
        self.joints
            .iter()
            .map(|j| JointKey {
                rotation: j.rotation,
                translation: j.translation,
                scale: j.scale,
            })
            .collect()
    }

    /// Model-space transforms of `keys` (one parent-relative pose per joint), concatenated
    /// down the hierarchy. A joint whose parent comes after it is taken as a root; a joint
    /// without a key keeps the identity.
    #[must_use]
    pub fn world(&self, keys: &[JointKey]) -> Vec<Affine3A> {
        let mut world: Vec<Affine3A> = Vec::with_capacity(self.joints.len());
        for (i, joint) in self.joints.iter().enumerate() {
            let local = keys.get(i).map_or(Affine3A::IDENTITY, |k| {
                Affine3A::from_scale_rotation_translation(k.scale, k.rotation, k.translation)
            });
            let parent = joint
                .parent
                .filter(|&p| p < i)
                .and_then(|p| world.get(p).copied());
            world.push(parent.map_or(local, |p| p * local));
        }
        world
    }

    /// Per joint, the transform that takes a bind-pose point to where `keys` put it:
    /// `world(keys) · inverse(bind world)`.
    #[must_use]
    pub fn skin_matrices(&self, keys: &[JointKey]) -> Vec<Affine3A> {
        self.world(keys)
            .into_iter()
            .zip(&self.joints)
            .map(|(w, j)| w * j.world.inverse())
            .collect()
    }
}

impl Mesh {
    /// The mesh skinned with a linear blend of `matrices` (one per joint, see
    /// [`Skeleton::skin_matrices`]). A vertex without influences, or bound to
    /// [`UNBOUND`], stays where it is.
    #[must_use]
    pub fn skin(&self, matrices: &[Affine3A]) -> PosedMesh {
        let mut out = PosedMesh {
            positions: Vec::with_capacity(self.positions.len()),
            normals: Vec::with_capacity(self.normals.len()),
        };
        for (v, p) in self.positions.iter().enumerate() {
            let n = self.normals.get(v).copied().unwrap_or_default();
            let (mut sp, mut sn, mut total) = (Vec3A::ZERO, Vec3A::ZERO, 0.0f32);
            for &(joint, weight) in self.influences.of(v) {
                let m = match matrices.get(usize::from(joint)) {
                    Some(m) if joint != UNBOUND => *m,
                    _ => Affine3A::IDENTITY,
                };
                sp += weight * m.transform_point3a(Vec3A::from_array(*p));
                sn += weight * m.transform_vector3a(Vec3A::from_array(n));
                total += weight;
            }
            if total > 0.0 {
                out.positions.push(sp.to_array());
                out.normals.push(sn.to_array());
            } else {
                out.positions.push(*p);
                out.normals.push(n);
            }
        }
        out
    }

    /// The texture coordinate of vertex `v`, or `(0, 0)` for a mesh without them (what every
    /// writer stores then).
    #[must_use]
    pub fn uv(&self, v: usize) -> [f32; 2] {
        self.uvs
            .as_ref()
            .and_then(|uvs| uvs.get(v))
            .copied()
            .unwrap_or_default()
    }

    /// Every vertex's texture coordinate (see [`uv`](Mesh::uv)).
    #[must_use]
    pub fn uvs_or_zero(&self) -> Vec<[f32; 2]> {
        (0..self.positions.len()).map(|v| self.uv(v)).collect()
    }

    /// Each vertex's influences as pre-weighted records (DPM's and SKM's): per influence, the
    /// bind-pose position and normal in the bone's space (through `inverse_bind`, one per
    /// joint) and the weight. Influences on [`UNBOUND`] or a joint past `inverse_bind` are
    /// left out; a vertex left with none is bound wholly to bone 0.
    #[must_use]
    pub fn pre_weighted(&self, inverse_bind: &[Affine3A]) -> Vec<Vec<Influence>> {
        (0..self.positions.len())
            .map(|v| {
                let p = Vec3A::from_array(self.positions.get(v).copied().unwrap_or_default());
                let n = Vec3A::from_array(self.normals.get(v).copied().unwrap_or_default());
                let record = |bone: usize, weight: f32| {
                    let m = inverse_bind.get(bone).copied().unwrap_or_default();
                    let origin = m.transform_point3a(p).to_array();
                    let normal = m.transform_vector3a(n).to_array();
                    Influence::weighted(bone as u32, weight, origin, normal)
                };
                let list: Vec<Influence> = self
                    .influences
                    .of(v)
                    .iter()
                    .filter(|&&(j, w)| {
                        j != UNBOUND && w > 0.0 && usize::from(j) < inverse_bind.len()
                    })
                    .map(|&(j, w)| record(usize::from(j), w))
                    .collect();
                if list.is_empty() {
                    vec![record(0, 1.0)]
                } else {
                    list
                }
            })
            .collect()
    }

    /// The mesh moved to morph target `target` (its own pose when there is none).
    #[must_use]
    pub fn morphed(&self, target: usize) -> PosedMesh {
        let add = |base: &[[f32; 3]], delta: Option<&Vec<[f32; 3]>>| -> Vec<[f32; 3]> {
            base.iter()
                .enumerate()
                .map(|(i, b)| {
                    let d = delta.and_then(|d| d.get(i)).copied().unwrap_or_default();
                    [b[0] + d[0], b[1] + d[1], b[2] + d[2]]
                })
                .collect()
        };
        let t = self.targets.get(target);
        PosedMesh {
            positions: add(&self.positions, t.map(|t| &t.positions)),
            normals: add(&self.normals, t.map(|t| &t.normals)),
        }
    }
}

impl Clip {
    /// The clip's joint keys sampled at `fps` frames a second over the same duration
    /// (`len / fps` seconds of the old rate), interpolating between neighbouring frames
    /// (shortest-arc normalised lerp for rotations). Morph clips, clips without frames and rates that
    /// are not positive and finite are left alone; at most [`MAX_RESAMPLED_FRAMES`] frames
    /// are made.
    pub fn resample(&mut self, fps: f32) {
        let ClipKeys::Joints(frames) = &self.keys else {
            return;
        };
        if frames.is_empty() || !(fps.is_finite() && fps > 0.0 && self.fps > 0.0) {
            return;
        }
        let last = frames.len() - 1;
        // The last frame stays the last: a clip of n frames spans (n - 1) / fps seconds.
        let seconds = last as f32 / self.fps;
        let count = ((seconds * fps).round() as usize + 1).clamp(1, MAX_RESAMPLED_FRAMES);
        let resampled: Vec<Vec<JointKey>> = (0..count)
            .map(|k| {
                let at = if count > 1 {
                    k as f32 * last as f32 / (count - 1) as f32
                } else {
                    0.0
                };
                let a = (at.floor() as usize).min(last);
                let b = (a + 1).min(last);
                let t = at - a as f32;
                let (ka, kb) = (&frames[a], &frames[b]);
                ka.iter()
                    .zip(kb)
                    .map(|(x, y)| JointKey {
                        rotation: x.rotation.lerp(y.rotation, t),
                        translation: x.translation.lerp(y.translation, t),
                        scale: x.scale.lerp(y.scale, t),
                    })
                    .collect()
            })
            .collect();
        self.keys = ClipKeys::Joints(resampled);
        self.fps = fps;
    }
}

impl super::Material {
    /// The texture file this material names, as a path relative to the model with `/`:
    /// [`texture`](super::Material::texture) with `\\` made `/` and any leading `./` dropped, else
    /// [`external`](super::Material::external) with its `%XX` escapes decoded (when that is UTF-8).
    ///
    /// ```
    /// use skelmap_core::asset::Material;
    ///
    /// let m = Material { texture: Some(".\\skins\\jeep1.jpg".into()), ..Material::default() };
    /// assert_eq!(m.texture_file().as_deref(), Some("skins/jeep1.jpg"));
    /// let m = Material { external: Some("my%20skin.png".into()), ..Material::default() };
    /// assert_eq!(m.texture_file().as_deref(), Some("my skin.png"));
    /// let m = Material { external: Some("caf%C3%A9%zz.png".into()), ..Material::default() };
    /// assert_eq!(m.texture_file().as_deref(), Some("café%zz.png"));
    /// let m = Material { external: Some("%FF.png".into()), ..Material::default() };
    /// assert_eq!(m.texture_file(), None); // not UTF-8
    /// ```
    #[must_use]
    pub fn texture_file(&self) -> Option<String> {
        if let Some(stored) = self.texture.as_deref().filter(|t| !t.trim().is_empty()) {
            let mut path = stored.trim().replace('\\', "/");
            while let Some(rest) = path.strip_prefix("./") {
                path = rest.to_string();
            }
            return Some(path);
        }
        self.external.as_deref().and_then(percent_decoded)
    }
}

/// `uri` with its `%XX` escapes decoded, when the result is UTF-8.
fn percent_decoded(uri: &str) -> Option<String> {
    let bytes = uri.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        let escape = (b == b'%')
            .then(|| bytes.get(i + 1..i + 3))
            .flatten()
            .and_then(|hex| std::str::from_utf8(hex).ok())
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match escape {
            Some(byte) => {
                decoded.push(byte);
                i += 3;
            }
            None => {
                decoded.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(decoded).ok()
}

/// `name` as joint names compare: ASCII case folded when `ignore_case`.
fn folded(name: &str, ignore_case: bool) -> String {
    if ignore_case {
        name.to_ascii_lowercase()
    } else {
        name.to_string()
    }
}

/// [`Skeleton::free_name`] among `names` (a writer's names after it renamed some): `stem`,
/// else `stem_1`, `stem_2` …, the first none of them is, ignoring ASCII case.
pub(crate) fn free_name_among<'a>(names: impl IntoIterator<Item = &'a str>, stem: &str) -> String {
    let taken: HashSet<String> = names.into_iter().map(|n| folded(n, true)).collect();
    // Of the names' count + 1 candidates, one is free.
    (0..=taken.len())
        .map(|k| match k {
            0 => stem.to_string(),
            k => format!("{stem}_{k}"),
        })
        .find(|n| !taken.contains(&folded(n, true)))
        .unwrap_or_default()
}

/// A clip's name as its frames' stem before any cut ([`Asset::frame_names`]): every character
/// that is not a letter or digit made `_`.
fn frame_stem_text(name: &str) -> String {
    (name.chars())
        .map(|c| if c.is_alphanumeric() { c } else { '_' })
        .collect()
}
