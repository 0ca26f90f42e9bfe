//! Building an [`Asset`] from any [`Model`], through its format-neutral API only.
//!
//! One builder serves every format:
//!
//! - the meshes are deformed at the asset's frame ([`Model::deform`]);
//! - a mesh that keeps texture coordinates or normals per triangle corner (MS3D, MDL7,
//!   GameStudio MDL, Quake, MD2) is
//!   unwelded per submesh by (vertex, corner texture coordinate, corner normal); one that
//!   keeps them per vertex keeps its vertex arrays (a mesh drawn in several submeshes,
//!   Half-Life's studio meshes: each asset mesh the vertices its triangles use, in order);
//! - skeletal models get their joints, posed at the frame, per-vertex influences and one clip
//!   of joint keys per frame group;
//! - vertex-animated models (Quake, GameStudio MDL and HMP, MD2, MD3, MDC) get every frame
//!   as a morph target, when the
//!   asset has clips to play them;
//! - a skeletal model whose frames also replace vertices (MDL7, `Model::frames_replace_vertices`)
//!   gets its frames baked the same way: each frame deformed as [`Model::deform`] does it
//!   (replaced, then skinned) is a morph target of the mesh posed at the asset's frame, and
//!   the clips play the targets; the skeleton and influences are kept, its joints still at
//!   that frame (so a glTF viewer skins the targets by identities). Joint keys alone could
//!   not carry the replacements.
//! - skin scales (an MD5's `.md5scale`: [`LocalPose::skin_scales`](crate::pose::LocalPose::skin_scales),
//!   a joint's own vertices scaled without its children) become leaf joints: each joint with
//!   them gets a child `<joint>_skin` at the joint itself, whose scale (at the asset's frame
//!   and in every key) is the skin scale and which holds the joint's influences. A joint
//!   key's scale passes to the joint's children in every format an asset is written to; a
//!   leaf has none, so a format that keeps scale keys keeps skin scales exactly (see
//!   [`skin_joints`]).
//! - tags that name a bone (MDR's, MDM's, Half-Life's attachments) become attachment joints:
//!   the bone itself for a tag that is its bone (MDR's), else a leaf joint named as the tag,
//!   placed where the tag sits in its bone's space (see [`tag_joints`]).

use std::collections::HashMap;

use glam::{Affine3A, Quat, Vec3};

use super::{Mesh, Model, NAMED_CLIP_FPS, Pose, TexcoordLayout, TextureNames};
use crate::asset::{
    self, Asset, Clip, ClipKeys, Error, Image, Joint, JointKey, MAX_CLIP_KEYS, Material,
    MorphTarget, Options, Skeleton, Tag, UNBOUND, unit,
};
use crate::name::{CodePage, Unique};
use crate::pose::Interpolation;
use crate::pose::framegroups::FrameGroup;

type Result<T> = core::result::Result<T, Error>;

impl Model<'_> {
    /// The model as an [`Asset`]: an explicit copy of geometry, skeleton, skins and
    /// animation (see [`asset`] for what it holds).
    ///
    /// ```
    /// use skelmap_core::{Model, asset, synth};
    /// let bytes = synth::tube(&synth::TubeParams::default()).write()?;
    /// let model = Model::from_bytes(&bytes)?;
    /// let built = model.to_asset(&asset::Options { frame: Some(3), ..Default::default() })?;
    /// assert_eq!((built.num_vertices(), built.clips.len()), (136, 2));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::FrameOutOfRange`] for a frame the model lacks, [`Error::TooManyJoints`] for a
    /// skeleton 16-bit joint indices cannot address, [`Error::TooManyKeys`] for animations past
    /// [`MAX_CLIP_KEYS`], [`Error::Deform`] if a kernel rejects a mesh (impossible for a
    /// validated model).
    pub fn to_asset(&self, options: &Options) -> Result<Asset> {
        let model = self;
        // A model without frames is posed at its stored pose: one frame.
        let frames = model.num_frames().max(1);
        if let Some(frame) = options.frame.filter(|&f| f >= frames) {
            return Err(Error::FrameOutOfRange { frame, frames });
        }
        let groups = if options.no_animations || model.num_frames() == 0 {
            Vec::new()
        } else {
            clip_groups(options.groups.clone(), || model.clips().to_vec(), frames)
        };
        let skeletal = model.num_bones() > 0;
        // Frames that replace vertices before the bones pose them (MDL7) are baked: every
        // frame, replaced then skinned, becomes a morph target of the mesh posed at the
        // asset's frame, whose joints then hold still (see the module docs).
        let morphing = model.is_vertex_animated() || model.frames_replace_vertices();
        if skeletal {
            joint_index(model.num_bones() - 1)?;
        }
        let pose = model.asset_pose(options)?;

        let (materials, images, made_from) = materials(model, !options.no_images, options.dds);
        let mut meshes = Vec::new();
        // Per asset mesh, the model vertex of each vertex and the model mesh (a model mesh
        // gives one asset mesh per submesh).
        let mut sources: Vec<(Vec<u32>, usize)> = Vec::new();
        for mesh in model.meshes() {
            for part in mesh_parts(model, &mesh, &pose, skeletal, (&materials, &made_from))? {
                meshes.push(part.mesh);
                sources.push((part.picked, mesh.index()));
            }
        }

        let mut clips = Vec::new();
        // Per clip and frame, the joints' skin scales (empty where the frame has none).
        let mut skin_scales = Vec::new();
        let mut targets_made = false;
        if morphing && model.num_frames() > 1 && !groups.is_empty() {
            // Every frame becomes a target: refused before they are built.
            check_keys(&groups, model.num_frames())?;
            for (built_mesh, (picked, index)) in meshes.iter_mut().zip(&sources) {
                let Some(mesh) = model.mesh(*index) else {
                    continue;
                };
                built_mesh.targets = morph_targets(model, &mesh, picked, built_mesh)?;
                targets_made |= !built_mesh.targets.is_empty();
            }
        }
        // A model of tags and no surfaces (an MD3 attachment rig) plays its frames as morph
        // clips too, which move its tags alone.
        let tags_alone = morphing && meshes.is_empty() && model.num_tags() > 0;
        let morph_clips =
            targets_made || (tags_alone && model.num_frames() > 1 && !groups.is_empty());
        if morph_clips {
            clips = groups
                .iter()
                .map(|g| clip(g, ClipKeys::Morph((g.first..g.first + g.count).collect())))
                .collect();
        } else if skeletal {
            let bone_tags = (0..model.num_tags()).filter(|&t| model.tag_bone(t).is_some());
            check_keys(&groups, model.num_bones() + bone_tags.count())?;
            (clips, skin_scales) = model.joint_clips(&groups);
        }
        for mesh in &mut meshes {
            mesh.normals.iter_mut().for_each(|n| *n = unit(*n));
        }
        let mut skeleton = skeletal.then(|| model.asset_skeleton(&pose));
        if let Some(skeleton) = &mut skeleton
            && !morph_clips
        {
            let at = &pose.local().skin_scales;
            skin_joints(skeleton, &mut meshes, &mut clips, &skin_scales, at)?;
        }
        if let Some(skeleton) = &mut skeleton {
            tag_joints(model, skeleton, &mut clips)?;
        }
        let tags = model.asset_tags(&pose, morph_clips);
        let mut built = Asset {
            format: model.format().name(),
            up: model.conventions().up,
            front: model.conventions().front,
            meshes,
            materials,
            images,
            skeleton,
            clips,
            tags,
            frame: if options.at.is_some() || options.pose.is_some() {
                None
            } else {
                options.frame.or(morphing.then_some(0))
            },
            at: options
                .at
                .as_ref()
                .filter(|_| options.pose.is_none())
                .map(|at| (at.clip.name.clone(), at.seconds)),
            given_pose: options.pose.is_some(),
            replaced_non_finite: 0,
            code_page: model.code_page(),
        };
        built.replaced_non_finite = sanitise(&mut built);
        Ok(built)
    }
}

impl Model<'_> {
    /// The code page of the model's names ([`CodePage::of`] its bones, meshes and their
    /// groups, materials and texture names, attachments and frames): the one
    /// [`to_asset`](Model::to_asset) decodes them with and records as
    /// [`Asset::code_page`]. Found on the first call, over every name, and kept.
    ///
    /// ```
    /// use skelmap_core::{Model, name::CodePage, synth};
    /// let mut b = synth::tube(&synth::TubeParams::default());
    /// b.bones[0].name = vec![0xC4, 0xE3]; // GBK
    /// let bytes = b.write()?;
    /// let model = Model::from_bytes(&bytes)?;
    /// assert_eq!(model.code_page(), CodePage::Gbk);
    /// # Ok::<(), skelmap_core::Error>(())
    /// ```
    #[must_use]
    pub fn code_page(&self) -> CodePage {
        *self.code_page.get_or_init(|| {
            let materials = (0..self.num_materials())
                .filter_map(|i| self.material(i))
                .flat_map(|m| [m.name, m.texture]);
            let meshes = self.meshes().flat_map(|mesh| {
                let groups: Vec<&[u8]> = mesh.submeshes().map(|s| s.name()).collect();
                std::iter::once(mesh.name()).chain(groups)
            });
            CodePage::of(
                self.bones()
                    .map(|b| b.name())
                    .chain(meshes)
                    .chain(materials)
                    .chain(self.attachments().map(|a| a.name))
                    .chain(self.frame_names()),
            )
        })
    }
}

impl Model<'_> {
    /// The pose an asset is built at: a clip's time, a frame, or the stored (bind) pose.
    fn asset_pose(&self, options: &Options) -> Result<Pose> {
        let mut pose = Pose::default();
        if let Some(local) = &options.pose {
            self.pose_local(local, &mut pose)?;
            return Ok(pose);
        }
        match (&options.at, options.frame) {
            (Some(at), _) => {
                self.pose_clip(
                    &at.clip,
                    at.seconds,
                    at.clip.looped,
                    Interpolation::Nlerp,
                    &mut pose,
                )?;
            }
            (None, Some(f)) if self.num_frames() > 0 => {
                self.pose(f, f, 0.0, Interpolation::Nlerp, &mut pose)?;
            }
            _ => self.pose_bind(&mut pose),
        }
        Ok(pose)
    }

    /// Each of `groups` as a clip of joint keys: every frame's parent-relative pose of every
    /// bone (with its scale where the frames scale); and per clip and frame, the bones' skin
    /// scales (empty for a frame without them).
    fn joint_clips(&self, groups: &[FrameGroup]) -> (Vec<Clip>, Vec<Vec<Vec<f32>>>) {
        let mut local = crate::pose::LocalPose::default();
        groups
            .iter()
            .map(|g| {
                let (keys, skin_scales) = (g.first..g.first + g.count)
                    .map(|f| {
                        self.sample(
                            f as usize,
                            f as usize,
                            0.0,
                            Interpolation::Nlerp,
                            &mut local,
                        );
                        let keys = local
                            .bones
                            .iter()
                            .enumerate()
                            .map(|(i, &(rotation, t))| JointKey {
                                rotation,
                                translation: t.into(),
                                scale: local.scales.get(i).map_or(Vec3::ONE, |&s| s.into()),
                            })
                            .collect();
                        (keys, local.skin_scales.clone())
                    })
                    .unzip();
                (clip(g, ClipKeys::Joints(keys)), skin_scales)
            })
            .unzip()
    }

    /// The bones as joints at `pose` (names, parents, parent-relative and model-space
    /// transforms), and which are flagged as attachments.
    fn asset_skeleton(&self, pose: &Pose) -> Skeleton {
        let code_page = self.code_page();
        Skeleton {
            joints: self
                .bones()
                .enumerate()
                .map(|(i, b)| {
                    let (rotation, translation) =
                        pose.local().bones.get(i).copied().unwrap_or_default();
                    let scale = pose.local().scales.get(i).map_or(Vec3::ONE, |&s| s.into());
                    Joint {
                        name: code_page.decode(b.name()).into_owned(),
                        parent: b.parent(),
                        rotation,
                        translation: translation.into(),
                        scale,
                        world: pose.palette().bone_world(i).unwrap_or_default(),
                    }
                })
                .collect(),
            // The flagged bones; the tags that name bones are added by `tag_joints`.
            attachments: self
                .bones()
                .enumerate()
                .filter(|(_, b)| b.is_attachment())
                .map(|(i, _)| i)
                .collect(),
        }
    }
}

impl Model<'_> {
    /// The tags stored with the frames (MD3's, MDC's): each where `pose` puts it and, with
    /// `per_frame` (every frame is a morph target), as every frame stores it. Tags that name
    /// a bone (MDR's, MDM's, Half-Life's attachments) are joints instead ([`tag_joints`]).
    fn asset_tags(&self, pose: &Pose, per_frame: bool) -> Vec<Tag> {
        // Tags follow the bone attachments in `attachments`.
        let bones = self.num_bone_attachments();
        let code_page = self.code_page();
        (0..self.num_tags())
            .filter(|&i| self.tag_bone(i).is_none())
            .map(|i| Tag {
                name: self
                    .attachment(bones + i)
                    .map(|a| code_page.decode(a.name).into_owned())
                    .unwrap_or_default(),
                pose: self
                    .attachment_transform(bones + i, pose)
                    .unwrap_or_default(),
                frames: if per_frame {
                    (0..self.num_frames())
                        .map(|f| self.tag(f, i).unwrap_or_default())
                        .collect()
                } else {
                    Vec::new()
                },
            })
            .collect()
    }
}

/// Gives each joint of `skeleton` whose skin scale ([`LocalPose::skin_scales`](crate::pose::LocalPose::skin_scales):
/// its own vertices scaled about it, its children not) differs from 1 at the asset's pose
/// (`at`) or in a frame of `clips` (`keyed`, per clip and frame) a leaf joint, appended after
/// the others: named `<joint>_skin` (a number added if that is taken), at the joint with no
/// rotation or translation of its own and the skin scale as its uniform scale, at the pose
/// and in each clip's keys (1 in a frame without skin scales). The joint's influences in
/// `meshes` move to its leaf. The meshes were deformed with the skin scales at the pose, so
/// the leaf's bind transform (the joint's, scaled) takes them back out and each frame's
/// scale puts its own in: the frames' vertices exactly, in any format that keeps scale keys.
/// A joint whose skin scale at the pose is 0 (its vertices hidden, collapsed onto it), so
/// small that its inverse overflows, or not finite gets no leaf: no transform undoes the
/// collapse.
///
/// # Errors
///
/// [`Error::TooManyJoints`] when the leaves take the skeleton past 16-bit joint indices.
fn skin_joints(
    skeleton: &mut Skeleton,
    meshes: &mut [asset::Mesh],
    clips: &mut [Clip],
    keyed: &[Vec<Vec<f32>>],
    at: &[f32],
) -> Result<()> {
    // Every format but MD5 with an `.md5scale`: nothing to look at, joint by joint.
    if at.is_empty() && keyed.iter().flatten().all(Vec::is_empty) {
        return Ok(());
    }
    let joints = skeleton.joints.len();
    let scale_at = |j: usize| at.get(j).copied().unwrap_or(1.0);
    let varies = |j: usize| {
        keyed
            .iter()
            .flatten()
            .any(|frame| frame.get(j).is_some_and(|&s| s != 1.0))
    };
    let scaled: Vec<usize> = (0..joints)
        .filter(|&j| {
            // A scale whose inverse overflows (a subnormal one) has no bind to undo.
            let s = scale_at(j);
            s.is_finite() && (1.0 / s).is_finite() && (s != 1.0 || varies(j))
        })
        .collect();
    if scaled.is_empty() {
        return Ok(());
    }
    let mut leaf = vec![None; joints];
    let mut names = joint_names(skeleton);
    for &j in &scaled {
        let index = joint_index(skeleton.joints.len())?;
        let Some(joint) = skeleton.joints.get(j) else {
            continue;
        };
        let name = names.free(&format!("{}_skin", joint.name));
        let s = Vec3::splat(scale_at(j));
        let world = joint.world * Affine3A::from_scale(s);
        skeleton.joints.push(Joint {
            name,
            parent: Some(j),
            rotation: Quat::IDENTITY,
            translation: Vec3::ZERO,
            scale: s,
            world,
        });
        if let Some(slot) = leaf.get_mut(j) {
            *slot = Some(index);
        }
    }
    for mesh in meshes {
        for (joint, _) in &mut mesh.influences.weights {
            if let Some(&Some(to)) = leaf.get(usize::from(*joint)) {
                *joint = to;
            }
        }
    }
    for (clip, keyed) in clips.iter_mut().zip(keyed) {
        let ClipKeys::Joints(frames) = &mut clip.keys else {
            continue;
        };
        for (keys, scales) in frames.iter_mut().zip(keyed) {
            keys.extend(scaled.iter().map(|&j| JointKey {
                rotation: Quat::IDENTITY,
                translation: Vec3::ZERO,
                scale: Vec3::splat(scales.get(j).copied().unwrap_or(1.0)),
            }));
        }
    }
    Ok(())
}

/// The names of a skeleton's joints, for naming joints added to it: `stem`, or `stem` with a
/// number from 2 on when a joint is named that ([`Unique`]).
fn joint_names(skeleton: &Skeleton) -> Unique {
    let mut names = Unique::new("", false);
    for joint in &skeleton.joints {
        names.take(&joint.name);
    }
    names
}

/// Gives each of the model's tags that names a bone (an MDR's tag, an MDM's, a Half-Life
/// attachment) its place among the joints of `skeleton`, flagged as an attachment: the bone
/// itself when the tag is the bone (no offset from it, and the bone's name: an MDR's tags,
/// which name MDR's bones), else a leaf joint appended after the others, named as the tag
/// (a number added if that is taken: Half-Life's unnamed attachments are all `attachment`),
/// with the bone as its parent and the tag's place in the bone's space
/// ([`Model::tag_offset`]) as its transform, at the asset's pose and in every key of `clips`.
/// So every writer keeps the tag's name and place; the MDM and Half-Life writers store such a
/// leaf as a tag on its bone again ([`Asset::split_bone_tags`](crate::asset::Asset::split_bone_tags)).
///
/// # Errors
///
/// [`Error::TooManyJoints`] when the leaves take the skeleton past 16-bit joint indices.
fn tag_joints(model: &Model<'_>, skeleton: &mut Skeleton, clips: &mut [Clip]) -> Result<()> {
    let bones = model.num_bones().min(skeleton.joints.len());
    let first_tag = model.num_bone_attachments();
    let mut flagged = vec![false; bones];
    for &a in &skeleton.attachments {
        if let Some(f) = flagged.get_mut(a) {
            *f = true;
        }
    }
    let mut names = joint_names(skeleton);
    let mut keys = Vec::new();
    let code_page = model.code_page();
    for t in 0..model.num_tags() {
        let Some(bone) = model.tag_bone(t).filter(|&b| b < bones) else {
            continue;
        };
        let name = model
            .attachment(first_tag + t)
            .map(|a| code_page.decode(a.name).into_owned())
            .unwrap_or_default();
        let offset = model.tag_offset(t);
        let parent = &skeleton.joints[bone];
        if offset == Affine3A::IDENTITY && name == parent.name && !flagged[bone] {
            skeleton.attachments.push(bone);
            flagged[bone] = true;
            continue;
        }
        let index = usize::from(joint_index(skeleton.joints.len())?);
        let (scale, rotation, translation) = offset.to_scale_rotation_translation();
        let key = if scale.is_finite() && rotation.is_finite() && translation.is_finite() {
            JointKey {
                rotation,
                translation,
                scale,
            }
        } else {
            // Axes that are no rotation (zero, or overflowing): the tag at its origin.
            JointKey {
                rotation: Quat::IDENTITY,
                translation: offset.translation.into(),
                scale: Vec3::ONE,
            }
        };
        let world = parent.world
            * Affine3A::from_scale_rotation_translation(key.scale, key.rotation, key.translation);
        let name = names.free(&name);
        skeleton.joints.push(Joint {
            name,
            parent: Some(bone),
            rotation: key.rotation,
            translation: key.translation,
            scale: key.scale,
            world,
        });
        skeleton.attachments.push(index);
        keys.push(key);
    }
    skeleton.attachments.sort_unstable();
    if !keys.is_empty() {
        for clip in clips {
            if let ClipKeys::Joints(frames) = &mut clip.keys {
                for frame in frames {
                    frame.extend_from_slice(&keys);
                }
            }
        }
    }
    Ok(())
}

fn clip(g: &FrameGroup, keys: ClipKeys) -> Clip {
    Clip {
        name: g.name.clone(),
        first: g.first,
        fps: g.fps,
        looped: g.looped,
        keys,
    }
}

/// The model's materials and the images of their skins, and for each model material the
/// asset material that stands for it: the one made from it, or (a shader name shared with an
/// earlier material) the first of that name; none for a skin left out. Found with a look-up
/// a material, however many there are (an IQM's 65 536 meshes may each name one).
///
/// Shader-named materials (DPM, SKM, IQM) that share a name are one material. A skin's
/// material (GameStudio, Quake) is kept when a submesh draws with it, or for the first skin
/// when none does, and its skin is decoded as its image (8-bit skins through
/// [`Model::skin_palette`]: Quake's palette, or a grey ramp for GameStudio, whose palette is
/// not in the file; a reference followed to its skin), unless `decode` is false (then no
/// image is made). An MDL7's groups draw with several skins at once; MDL5, HMP and Quake
/// skins are alternatives, of which the first is drawn.
pub(super) fn materials(
    model: &Model<'_>,
    decode: bool,
    dds: Option<asset::DecodeDds>,
) -> (Vec<Material>, Vec<Image>, Vec<Option<usize>>) {
    let used: std::collections::HashSet<usize> = model
        .meshes()
        .flat_map(|mesh| {
            mesh.submeshes()
                .filter_map(|s| s.material())
                .collect::<Vec<_>>()
        })
        .collect();
    let mut materials: Vec<Material> = Vec::new();
    let mut images: Vec<Image> = Vec::new();
    let mut sources: Vec<Option<usize>> = vec![None; model.num_materials()];
    // Each name's first material.
    let mut named: HashMap<String, usize> = HashMap::new();
    // The shader-named materials made from none of their own (their name's).
    let mut shared: Vec<(usize, String)> = Vec::new();
    let conventions = model.conventions();
    let names_files = conventions.textures == TextureNames::Files;
    let code_page = model.code_page();
    for (i, m) in (0..model.num_materials()).filter_map(|i| Some((i, model.material(i)?))) {
        let name = code_page.decode(m.name).into_owned();
        let clamp = |c: f32| {
            if c.is_finite() {
                c.clamp(0.0, 1.0)
            } else {
                1.0
            }
        };
        let [r, g, b, _] = m.diffuse;
        let base_color = match m.skin {
            Some(_) => [1.0; 4],
            None if conventions.own_materials => [clamp(r), clamp(g), clamp(b), 1.0],
            // A shader name only: a neutral grey.
            None => [0.8, 0.8, 0.8, 1.0],
        };
        let image = match m.skin {
            // Meshes naming one shader share one material, unless materials are the file's own.
            None if !conventions.own_materials && named.contains_key(&name) => {
                shared.push((i, name));
                continue;
            }
            None => None,
            Some(skin) => {
                let first = i == 0 && used.is_empty();
                if !used.contains(&i) && !first {
                    continue;
                }
                let decoded = model.skin(skin).filter(|_| decode).and_then(|s| {
                    // An embedded DDS file, by the decoder the caller has.
                    if let Some(file) = s.dds() {
                        return dds.and_then(|decode| decode(file));
                    }
                    Some(Image {
                        width: s.width(),
                        height: s.height(),
                        rgba: model.skin_rgba(skin)?,
                        jpeg: None,
                    })
                });
                decoded.map(|image| {
                    images.push(image);
                    images.len() - 1
                })
            }
        };
        if let Some(source) = sources.get_mut(i) {
            *source = Some(materials.len());
        }
        named.entry(name.clone()).or_insert(materials.len());
        materials.push(Material {
            name,
            base_color,
            image,
            // A shader name (`Default OBJ`) is mapped to textures by an engine's rules: not a
            // file name to point an image at.
            external: if image.is_none() && names_files {
                relative_uri(m.texture, code_page)
            } else {
                None
            },
            texture: (image.is_none() && !m.texture.is_empty() && names_files)
                .then(|| code_page.decode(m.texture).into_owned()),
            // A skin with a transparent index: its texels are drawn or not, never blended.
            alpha_cutoff: image
                .and(m.skin)
                .and_then(|skin| model.skin(skin)?.transparent_index())
                .map(|_| 0.5),
        });
    }
    for (i, name) in shared {
        if let Some(source) = sources.get_mut(i) {
            *source = named.get(&name).copied();
        }
    }
    (materials, images, sources)
}

/// What picks, at a pose, the vertices [`Model::to_asset`] makes of one model mesh
/// ([`Model::asset_vertices`]).
#[derive(Debug, Clone, Default)]
pub(super) struct MeshPicks {
    /// Per asset vertex (the mesh's parts one after another), the model vertex behind it.
    pub vertices: Vec<u32>,
    /// Where normals are stored per corner, so that corners are told apart by their posed
    /// normals (MS3D): each corner drawn and the asset vertex it became, in drawing order;
    /// empty for other meshes, whose asset vertices are the same at every pose.
    corners: Vec<[u32; 2]>,
    /// Per asset vertex, its first corner in [`corners`](MeshPicks::corners).
    first: Vec<u32>,
    /// Pairs of asset vertices of one model vertex and the same texture coordinates: apart
    /// at the pose the picks were made at only by their corner normals.
    rivals: Vec<[u32; 2]>,
}

impl MeshPicks {
    /// Whether these picks are what [`Model::to_asset`] makes at the pose that gave the
    /// mesh's corner normals `normals` ([`Model::deform_corner_normals`]): every corner
    /// still has the normal of its asset vertex's first corner, bit for bit, and no two
    /// rivals have the same. Always for a mesh whose asset vertices do not depend on them.
    pub(super) fn hold(&self, normals: &[[f32; 3]]) -> bool {
        let bits = |c: u32| normals.get(c as usize).map(|n| n.map(f32::to_bits));
        let of = |a: u32| self.first.get(a as usize).and_then(|&c| bits(c));
        self.corners
            .iter()
            .all(|&[c, a]| bits(c).is_some() && bits(c) == of(a))
            && self.rivals.iter().all(|&[a, b]| of(a) != of(b))
    }

    /// Whether the picks depend on the posed corner normals (see [`hold`](MeshPicks::hold)).
    pub(super) fn by_corner_normals(&self) -> bool {
        !self.corners.is_empty()
    }
}

impl Model<'_> {
    /// Per mesh of the model, what picks the vertices of the asset meshes
    /// [`Model::to_asset`] makes of it: the model vertex behind each, one part after
    /// another. They are the same at every pose but where normals are stored per corner,
    /// whose corners [`MeshPicks::hold`] checks; so a measurement can deform a mesh and pick
    /// its vertices instead of building an asset a frame. `None` where the asset's meshes
    /// cannot be made.
    pub(super) fn asset_vertices(&self) -> Option<Vec<MeshPicks>> {
        let mut pose = Pose::default();
        self.pose_bind(&mut pose);
        let (materials, _, made_from) = materials(self, false, None);
        self.meshes()
            .map(|mesh| {
                let parts = mesh_parts(self, &mesh, &pose, false, (&materials, &made_from));
                let mut picks = MeshPicks::default();
                for part in parts.ok()? {
                    let base = picks.vertices.len() as u32;
                    if mesh.has_corner_normals() {
                        picks.add_corners(&part, base);
                    }
                    picks.vertices.extend(part.picked);
                }
                Some(picks)
            })
            .collect()
    }
}

impl MeshPicks {
    /// Adds the corners of `part`, whose first vertex is asset vertex `base`, and its rivals.
    fn add_corners(&mut self, part: &Part, base: u32) {
        self.first
            .resize(base as usize + part.picked.len(), u32::MAX);
        for &[corner, v] in &part.corners {
            let a = base + v;
            self.corners.push([corner, a]);
            if let Some(first) = self.first.get_mut(a as usize)
                && *first == u32::MAX
            {
                *first = corner;
            }
        }
        // Asset vertices of one model vertex and the same texture coordinates, by vertex.
        let uv = |k: usize| {
            (part.mesh.uvs.as_ref())
                .and_then(|u| u.get(k))
                .map(|t| t.map(f32::to_bits))
        };
        let mut by_vertex: HashMap<(u32, Option<[u32; 2]>), Vec<u32>> = HashMap::new();
        for (k, &v) in part.picked.iter().enumerate() {
            by_vertex
                .entry((v, uv(k)))
                .or_default()
                .push(base + k as u32);
        }
        for same in by_vertex.values() {
            for (i, &a) in same.iter().enumerate() {
                self.rivals.extend(same[..i].iter().map(|&b| [a, b]));
            }
        }
    }
}

/// Bits of a corner's attributes that decide whether two corners of one vertex can share
/// an unwelded vertex.
type CornerKey = (u32, [u32; 5]);

/// One asset mesh made of a model mesh's submesh ([`mesh_parts`]).
pub(super) struct Part {
    /// The asset mesh.
    pub mesh: asset::Mesh,
    /// Per vertex of [`mesh`](Part::mesh), the model vertex it came from.
    pub picked: Vec<u32>,
    /// Where corners were unwelded (texture coordinates or normals stored per corner), each
    /// corner drawn (`3 · triangle + k` of the model mesh) and the vertex of
    /// [`mesh`](Part::mesh) it became, in drawing order; empty for a welded mesh.
    pub corners: Vec<[u32; 2]>,
}

/// The asset meshes of one model mesh, one per submesh, with, for each of their vertices,
/// the model vertex it came from.
pub(super) fn mesh_parts(
    model: &Model<'_>,
    mesh: &Mesh<'_>,
    pose: &Pose,
    skeletal: bool,
    (materials, sources): (&[Material], &[Option<usize>]),
) -> Result<Vec<Part>> {
    let n = mesh.num_vertices();
    let (mut positions, mut normals) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
    model.deform(mesh.index(), pose, &mut positions, &mut normals)?;
    let corner_normals = if mesh.has_corner_normals() {
        let mut out = vec![[0.0; 3]; 3 * mesh.num_triangles()];
        model.deform_corner_normals(mesh.index(), pose, &mut out)?;
        Some(out)
    } else {
        None
    };
    let mut influences: Vec<Vec<(u16, f32)>> = if skeletal {
        vec![Vec::new(); n]
    } else {
        Vec::new()
    };
    mesh.for_each_influence(|v, bone, weight| {
        if let Some(list) = influences.get_mut(v) {
            list.push((u16::try_from(bone).unwrap_or(UNBOUND), weight));
        }
    });
    let layout = mesh.texcoord_layout();
    let unweld = layout == TexcoordLayout::PerCorner || corner_normals.is_some();
    let mut out = Vec::new();
    // A mesh drawn in no submesh (an MS3D without groups) is drawn whole.
    let mut parts: Vec<(&[u8], Option<usize>, Vec<usize>)> = mesh
        .submeshes()
        .map(|sub| (sub.name(), sub.material(), sub.triangle_indices().collect()))
        .collect();
    if parts.is_empty() && mesh.num_triangles() > 0 {
        parts.push((&[], None, (0..mesh.num_triangles()).collect()));
    }
    // Where a welded mesh is drawn in several parts (Half-Life's studio meshes), each asset
    // mesh keeps only the vertices its triangles use, in the model's order: not every part
    // a copy of every vertex.
    let compact = parts.len() > 1;
    // Per vertex of the mesh, its index in the part being built (`u32::MAX`: unused).
    let mut index = if compact {
        vec![u32::MAX; n]
    } else {
        Vec::new()
    };
    // The names' code page, found once for every part.
    let named = (model, model.code_page());
    for (sub_name, sub_material, sub_triangles) in parts {
        let name = mesh_name(named, mesh, sub_name, sub_material, materials);
        let material = if model.conventions().own_materials {
            sub_material
        } else {
            sub_material.and_then(|i| sources.get(i).copied().flatten())
        };
        let mut built = asset::Mesh {
            name,
            material,
            uvs: (layout != TexcoordLayout::None).then(Vec::new),
            ..asset::Mesh::default()
        };
        let mut picked: Vec<u32> = Vec::new();
        let mut drawn: Vec<[u32; 2]> = Vec::new();
        if unweld {
            let mut corners: HashMap<CornerKey, u32> = HashMap::new();
            for &t in &sub_triangles {
                let (Some(tri), Some(uvs)) = (mesh.triangle(t), mesh.corner_texcoords(t)) else {
                    continue;
                };
                let mut face = [0u32; 3];
                for k in 0..3 {
                    let v = tri[k];
                    let normal = corner_normals
                        .as_ref()
                        .and_then(|c| c.get(3 * t + k).copied())
                        .unwrap_or_else(|| normals.get(v as usize).copied().unwrap_or_default());
                    let bits = [
                        normal[0].to_bits(),
                        normal[1].to_bits(),
                        normal[2].to_bits(),
                        uvs[k][0].to_bits(),
                        uvs[k][1].to_bits(),
                    ];
                    let next = picked.len() as u32;
                    face[k] = *corners.entry((v, bits)).or_insert_with(|| {
                        picked.push(v);
                        built
                            .positions
                            .push(positions.get(v as usize).copied().unwrap_or_default());
                        built.normals.push(normal);
                        if let Some(list) = built.uvs.as_mut() {
                            list.push(uvs[k]);
                        }
                        next
                    });
                    drawn.push([(3 * t + k) as u32, face[k]]);
                }
                built.triangles.push(face);
            }
        } else {
            let triangles = sub_triangles.iter().filter_map(|&t| mesh.triangle(t));
            if compact {
                // The vertices the part uses, in the model's order, each given its index in
                // the part; `index` is cleared again after, so that a part costs what it
                // draws, not the mesh's vertex count (an IQM of 65 536 meshes is one welded
                // mesh of as many parts).
                let mut used: Vec<u32> = triangles
                    .clone()
                    .flatten()
                    .filter(|&v| (v as usize) < n)
                    .collect();
                used.sort_unstable();
                used.dedup();
                for &v in &used {
                    if let Some(slot) = index.get_mut(v as usize) {
                        *slot = picked.len() as u32;
                        picked.push(v);
                    }
                }
                built.triangles = triangles
                    .filter_map(|tri| {
                        let face = tri.map(|v| index.get(v as usize).copied().unwrap_or(u32::MAX));
                        face.iter().all(|&i| i != u32::MAX).then_some(face)
                    })
                    .collect();
                for &v in &used {
                    if let Some(slot) = index.get_mut(v as usize) {
                        *slot = u32::MAX;
                    }
                }
            } else {
                picked = (0..n as u32).collect();
                built.triangles = triangles.collect();
            }
            let at =
                |v: &u32, from: &[[f32; 3]]| from.get(*v as usize).copied().unwrap_or_default();
            built.positions = picked.iter().map(|v| at(v, &positions)).collect();
            built.normals = picked.iter().map(|v| at(v, &normals)).collect();
            if let Some(list) = built.uvs.as_mut() {
                *list = picked
                    .iter()
                    .map(|&v| mesh.vertex_texcoord(v as usize).unwrap_or_default())
                    .collect();
            }
        }
        built.colors = picked
            .iter()
            .map(|&v| mesh.vertex_color(v as usize))
            .collect::<Option<Vec<_>>>()
            .filter(|c| !c.is_empty());
        if skeletal {
            for &v in &picked {
                let list = influences.get(v as usize).map_or(&[][..], Vec::as_slice);
                built.influences.push(list.iter().copied(), UNBOUND);
            }
        }
        if !(unweld && built.triangles.is_empty()) {
            out.push(Part {
                mesh: built,
                picked,
                corners: drawn,
            });
        }
    }
    Ok(out)
}

/// An asset mesh's name: the group's, where materials are the file's own (MS3D); else the
/// material's (a shader) or the mesh's own, else the kind of mesh.
fn mesh_name(
    (model, code_page): (&Model<'_>, CodePage),
    mesh: &Mesh<'_>,
    submesh: &[u8],
    material: Option<usize>,
    materials: &[Material],
) -> String {
    let lossy = |b: &[u8]| code_page.decode(b).into_owned();
    if model.conventions().own_materials {
        return lossy(submesh);
    }
    if let Some(name) = material
        .and_then(|i| materials.get(i))
        .map(|m| m.name.clone())
        && !name.is_empty()
        && model.skins().is_empty()
    {
        return name;
    }
    if !mesh.name().is_empty() {
        return lossy(mesh.name());
    }
    if model.terrain().is_some() {
        "terrain"
    } else {
        "mdl"
    }
    .to_string()
}

/// Every frame of a vertex-animated mesh as a morph target: its positions and normals minus
/// the asset's, through the unwelding `picked`.
fn morph_targets(
    model: &Model<'_>,
    mesh: &Mesh<'_>,
    picked: &[u32],
    base: &asset::Mesh,
) -> Result<Vec<MorphTarget>> {
    let n = mesh.num_vertices();
    let (mut p, mut q) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
    let mut pose = Pose::default();
    let pick = |v: &[[f32; 3]]| -> Vec<[f32; 3]> {
        picked
            .iter()
            .map(|&s| v.get(s as usize).copied().unwrap_or_default())
            .collect()
    };
    let mut targets = Vec::with_capacity(model.num_frames());
    let code_page = model.code_page();
    for (f, name) in model.frame_names().enumerate() {
        model.pose(f, f, 0.0, Interpolation::Nlerp, &mut pose)?;
        model.deform(mesh.index(), &pose, &mut p, &mut q)?;
        targets.push(MorphTarget {
            name: code_page.decode(name).into_owned(),
            positions: difference(&pick(&p), &base.positions),
            normals: difference(&pick(&q), &base.normals),
        });
    }
    Ok(targets)
}

fn difference(a: &[[f32; 3]], b: &[[f32; 3]]) -> Vec<[f32; 3]> {
    a.iter()
        .zip(b)
        .map(|(p, q)| [p[0] - q[0], p[1] - q[1], p[2] - q[2]])
        .collect()
}

/// Replaces every NaN or infinite number a file smuggled in (validation does not reject
/// them) by 0, or by the identity for a rotation or transform, and counts the replacements:
/// glTF, OBJ and the rasteriser all need finite numbers.
fn sanitise(asset: &mut Asset) -> usize {
    let mut replaced = 0usize;
    let mut fix = |values: &mut [f32]| {
        for v in values.iter_mut().filter(|v| !v.is_finite()) {
            *v = 0.0;
            replaced += 1;
        }
    };
    for mesh in &mut asset.meshes {
        fix(mesh.positions.as_flattened_mut());
        fix(mesh.normals.as_flattened_mut());
        if let Some(uvs) = mesh.uvs.as_mut() {
            fix(uvs.as_flattened_mut());
        }
        for target in &mut mesh.targets {
            fix(target.positions.as_flattened_mut());
            fix(target.normals.as_flattened_mut());
        }
    }
    // Per key, how many of its rotation, translation and scale were replaced.
    let fix_pose = |q: &mut Quat, t: &mut Vec3, s: &mut Vec3| {
        let mut fixed = 0;
        if !q.is_finite() || q.length_squared() < 1e-12 {
            *q = Quat::IDENTITY;
            fixed += 1;
        }
        if !t.is_finite() {
            *t = Vec3::ZERO;
            fixed += 1;
        }
        if !s.is_finite() {
            *s = Vec3::ONE;
            fixed += 1;
        }
        fixed
    };
    let mut keys = 0usize;
    if let Some(skeleton) = asset.skeleton.as_mut() {
        let mut worlds = false;
        for joint in &mut skeleton.joints {
            keys += fix_pose(
                &mut joint.rotation,
                &mut joint.translation,
                &mut joint.scale,
            );
            worlds |= !joint.world.is_finite();
        }
        // A joint's bind transform is its keys concatenated down the hierarchy: where either
        // was replaced, the transforms are made again from the keys as kept, so that the two
        // agree (a degenerate stored matrix gives a rotation of NaN and a finite place, which
        // the place keeps). What overflows even so is the identity.
        if worlds || keys > 0 {
            let world = skeleton.world(&skeleton.bind_keys());
            for (joint, w) in skeleton.joints.iter_mut().zip(world) {
                joint.world = if w.is_finite() { w } else { Affine3A::IDENTITY };
            }
        }
    }
    for clip in &mut asset.clips {
        if let ClipKeys::Joints(frames) = &mut clip.keys {
            for key in frames.iter_mut().flatten() {
                keys += fix_pose(&mut key.rotation, &mut key.translation, &mut key.scale);
            }
        }
    }
    for tag in &mut asset.tags {
        for t in core::iter::once(&mut tag.pose).chain(&mut tag.frames) {
            if !t.is_finite() {
                *t = Affine3A::IDENTITY;
                keys += 1;
            }
        }
    }
    replaced + keys
}

/// `groups` (or the defaults) cut to `frames`, empty ones dropped.
fn clip_groups(
    groups: Option<Vec<FrameGroup>>,
    defaults: impl FnOnce() -> Vec<FrameGroup>,
    frames: usize,
) -> Vec<FrameGroup> {
    let frames = u32::try_from(frames).unwrap_or(u32::MAX);
    groups
        .unwrap_or_else(defaults)
        .into_iter()
        .filter_map(|mut g| {
            g.count = g.count.min(frames.saturating_sub(g.first));
            if !(g.fps.is_finite() && g.fps > 0.0) {
                g.fps = NAMED_CLIP_FPS;
            }
            (g.count > 0).then_some(g)
        })
        .collect()
}

/// Refuses clips whose keys (frames × `channels`: joints or morph targets) would exceed
/// [`MAX_CLIP_KEYS`].
fn check_keys(groups: &[FrameGroup], channels: usize) -> Result<()> {
    let keys: u64 = groups.iter().map(|g| u64::from(g.count)).sum::<u64>() * channels as u64;
    if keys > MAX_CLIP_KEYS {
        return Err(Error::TooManyKeys { keys });
    }
    Ok(())
}

fn joint_index(i: usize) -> Result<u16> {
    u16::try_from(i)
        .ok()
        .filter(|&j| j != UNBOUND)
        .ok_or(Error::TooManyJoints { joints: i + 1 })
}

/// `name` as a URI relative to the model (see [`Material::external`]), or `None` for an
/// empty name, one that would leave the model's folder, or one that is text in none of the
/// code pages ([`CodePage::decoded`] in the model's `code_page`: an IRI is Unicode).
fn relative_uri(name: &[u8], code_page: CodePage) -> Option<String> {
    let name = code_page.decoded(name)?;
    let slashed: Vec<u8> = name
        .bytes()
        .map(|b| if b == b'\\' { b'/' } else { b })
        .collect();
    crate::resolver::check_path(std::str::from_utf8(&slashed).ok()?).ok()?;
    let mut uri = String::with_capacity(slashed.len());
    for &b in &slashed {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            uri.push(char::from(b));
        } else {
            uri.push_str(&format!("%{b:02X}"));
        }
    }
    Some(uri)
}

#[cfg(test)]
mod tests {
    use super::MeshPicks;

    /// Picks made where corners 0 and 1 share asset vertex 0 and corner 2 is asset vertex
    /// 1, a rival of 0 (the same model vertex and texture coordinates), hold while the
    /// posed normals keep that partition, and not where two corners of vertex 0 part, the
    /// rivals meet or a corner is missing.
    #[test]
    fn picks_hold_while_posed_corner_normals_keep_their_partition() {
        let picks = MeshPicks {
            vertices: vec![7, 7],
            corners: vec![[0, 0], [1, 0], [2, 1]],
            first: vec![0, 2],
            rivals: vec![[1, 0]],
        };
        let (up, side) = ([0.0, 0.0, 1.0], [1.0, 0.0, 0.0]);
        assert!(picks.by_corner_normals());
        assert!(picks.hold(&[up, up, side]));
        assert!(!picks.hold(&[up, side, side]), "corners of one vertex part");
        assert!(!picks.hold(&[up, up, up]), "rivals meet");
        assert!(!picks.hold(&[up, up]), "a corner missing");
        let welded = MeshPicks::default();
        assert!(!welded.by_corner_normals() && welded.hold(&[]));
    }
}
