//! An [`Assembly`] as one glTF scene: a Quake III player's legs, torso, head and weapon, each
//! part a node under its parent's attachment, and each [`ClipSet`] an animation.
//!
//! - **Parts.** A node per part, named as the part, holding one node per mesh of its asset
//!   (built as [`document`](super::document) builds a model's meshes, morph targets and
//!   materials included) and one node per attachment of its model (named as the
//!   attachment; a tag's pose is its transform in the part's first frame). A part hangs
//!   under the attachment node of its parent it is attached at; the root part is the
//!   scene's node.
//! - **Animations.** Each [`ClipSet`] becomes an animation of its name. A part that plays
//!   a clip gets, at one key per frame of the clip at the clip's rate, the morph weights of
//!   its meshes (frame `f` shows target `f` alone, as a single model's export does) and the
//!   translation and rotation of its attachment nodes (the tags in that frame,
//!   orthonormalised), so linear interpolation reproduces the game's tween of surfaces and
//!   tags. A part that plays nothing keeps its first frame.
//! - **Axes.** As for one model: a `+Z`-up part is turned to glTF's `+Y` up in its data,
//!   and its attachments' transforms are turned alike (`T' = R · T · R⁻¹`), so no node
//!   carries the turn.

use std::io::Write;
use std::ops::Range;

use glam::{Affine3A, Mat3, Quat, Vec3};
use json::accessor::Type;
use json::animation::Property;
use json::{Accessor, Index, Node, Root};
use skelmap_core::asset::{Asset, UpAxis};
use skelmap_core::model::{Assembly, ClipSet};
use skelmap_core::pose::Interpolation;
use skelmap_core::view::Pose;

use super::{
    Builder, Channels, Joints, Options, check_keys, encode, glb, hemisphere, is_written, json,
    weights_per_frame,
};
use crate::{Error, Result};

/// The nodes of one part: its mesh nodes with their morph target counts, and its attachment
/// nodes.
struct PartNodes {
    meshes: Vec<(Index<Node>, usize)>,
    attachments: Vec<Index<Node>>,
}

/// The glTF JSON document of `assembly` and the binary buffer it refers to (uri `bin_uri`,
/// or none for a `.glb`): `assets[i]` is part `i`'s model as an asset
/// ([`Model::to_asset`](skelmap_core::Model::to_asset), its textures found), and each of
/// `sets` becomes an animation.
///
/// # Errors
///
/// [`Error::Encode`] when `assets` does not give one asset per part, or a set one clip entry
/// per part; [`Error::TooLarge`], before anything is built, when the sets' keys (over every
/// set and part that plays a clip, its frames × its meshes' morph targets and its
/// attachments, see [`super::morph_keys`]) exceed [`MAX_CLIP_KEYS`](skelmap_core::asset::MAX_CLIP_KEYS);
/// [`Error::Deform`] when a part's frame cannot be posed; as [`document`](super::document)
/// otherwise.
pub fn assembly_document(
    assembly: &Assembly<'_>,
    assets: &[Asset],
    sets: &[ClipSet],
    bin_uri: Option<&str>,
) -> Result<(Root, Vec<u8>)> {
    let parts = assembly.parts();
    if assets.len() != parts.len() {
        return Err(mismatch(format!(
            "{} assets for {} parts",
            assets.len(),
            parts.len()
        )));
    }
    if let Some(set) = sets.iter().find(|s| s.clips.len() != parts.len()) {
        return Err(mismatch(format!(
            "clip set {:?} names {} clips for {} parts",
            set.name,
            set.clips.len(),
            parts.len()
        )));
    }
    check_keys(
        "the assembly's animation (frames × morph targets and attachments)",
        set_keys(assembly, assets, sets),
    )?;
    let mut b = Builder::default();
    b.root.asset.generator = Some(format!("skelmap-export {}", env!("CARGO_PKG_VERSION")));
    let mut nodes: Vec<PartNodes> = Vec::with_capacity(parts.len());
    let mut part_nodes: Vec<Index<Node>> = Vec::with_capacity(parts.len());
    let mut pose = Pose::default();
    for (part, asset) in parts.iter().zip(assets) {
        let turn = turn_of(asset.up);
        let textures = b.textures(asset)?;
        let materials = b.materials(asset, &textures);
        let asset = &*asset.with_up(UpAxis::Y);
        let mut own = PartNodes {
            meshes: Vec::new(),
            attachments: Vec::new(),
        };
        let mut children = Vec::new();
        for mesh in &asset.meshes {
            let options = Options::default();
            if let Some(node) = b.mesh(mesh, &options, &Joints::default(), &materials)? {
                own.meshes.push((node, mesh.targets.len()));
                children.push(node);
            }
        }
        let tags = tags_at(part, 0, turn, &mut pose)?;
        for (attachment, tag) in part.model.attachments().zip(tags) {
            let node = b.root.push(Node {
                name: Some(attachment.name_lossy().into_owned()),
                translation: Some(tag.0),
                rotation: Some(json::scene::UnitQuaternion(tag.1)),
                ..Node::default()
            });
            own.attachments.push(node);
            children.push(node);
        }
        let node = b.root.push(Node {
            name: Some(part.name.clone()),
            children: (!children.is_empty()).then_some(children),
            ..Node::default()
        });
        if let Some((parent, at)) = part.parent {
            let host = nodes.get(parent).and_then(|n| n.attachments.get(at));
            let host = host.ok_or_else(|| mismatch(format!("part {:?}'s parent", part.name)))?;
            b.root.nodes[host.value()]
                .children
                .get_or_insert_with(Vec::new)
                .push(node);
        }
        nodes.push(own);
        part_nodes.push(node);
    }
    for set in sets {
        b.clip_set(assembly, assets, set, &nodes, &mut pose)?;
    }
    if let Some(&root) = part_nodes.first() {
        b.scene("assembly", vec![root]);
    }
    b.finish(bin_uri)
}

/// Writes `assembly` as one binary glTF (`.glb`); see [`assembly_document`].
///
/// ```
/// use skelmap_core::Model;
/// use skelmap_core::asset::Options;
/// use skelmap_core::md3::{Builder, write::TagDef};
/// use skelmap_core::model::Assembly;
/// use skelmap_export::gltf;
///
/// let mut legs = Builder::triangle();
/// legs.tags = vec![vec![TagDef::at("tag_torso", [0.0, 0.0, 24.0])]];
/// let (legs, torso) = (legs.write(), Builder::triangle().write());
/// let mut player = Assembly::new("lower", Model::from_bytes(&legs)?);
/// player.attach("upper", Model::from_bytes(&torso)?, 0, b"tag_torso")?;
/// let assets = player
///     .parts()
///     .iter()
///     .map(|p| p.model.to_asset(&Options::default()))
///     .collect::<Result<Vec<_>, _>>()?;
///
/// let mut glb = Vec::new();
/// gltf::write_assembly_glb(&player, &assets, &player.clip_sets(), &mut glb)?;
/// assert_eq!(&glb[..4], b"glTF");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
///
/// As [`assembly_document`], plus [`Error::Io`] and [`Error::Encode`].
pub fn write_assembly_glb(
    assembly: &Assembly<'_>,
    assets: &[Asset],
    sets: &[ClipSet],
    out: impl Write,
) -> Result<()> {
    let (root, bin) = assembly_document(assembly, assets, sets, None)?;
    glb(&root, bin, out)
}

/// `assembly` as a `.gltf` JSON text and the binary buffer to save beside it as `bin_uri`;
/// see [`assembly_document`].
///
/// # Errors
///
/// As [`assembly_document`].
pub fn assembly_to_gltf(
    assembly: &Assembly<'_>,
    assets: &[Asset],
    sets: &[ClipSet],
    bin_uri: &str,
) -> Result<(Vec<u8>, Vec<u8>)> {
    let (root, bin) = assembly_document(assembly, assets, sets, Some(bin_uri))?;
    let json = json::serialize::to_vec_pretty(&root).map_err(|e| encode("glTF JSON", e))?;
    Ok((json, bin))
}

fn mismatch(message: String) -> Error {
    Error::Encode {
        what: "the assembly",
        message,
    }
}

/// The keys the animations of `sets` hold: for each set and each part that plays a clip in
/// it, the clip's frames × (the morph weights a frame of the part's meshes writes + its
/// attachments), as [`Builder::clip_set`] writes them. `assets` and each set hold one entry
/// per part.
fn set_keys(assembly: &Assembly<'_>, assets: &[Asset], sets: &[ClipSet]) -> u64 {
    let parts = assembly.parts();
    let channels: Vec<u64> = parts
        .iter()
        .zip(assets)
        .map(|(part, asset)| {
            let targets = asset
                .meshes
                .iter()
                .filter(|m| is_written(m))
                .map(|m| m.targets.len());
            weights_per_frame(targets).saturating_add(part.model.num_attachments() as u64)
        })
        .collect();
    let mut keys = 0u64;
    for set in sets {
        for ((part, &channels), &clip) in parts.iter().zip(&channels).zip(&set.clips) {
            let frames = clip_frames(part, clip);
            keys = keys.saturating_add(u64::from(frames.end - frames.start) * channels);
        }
    }
    keys
}

/// The frames of `part`'s model that its clip `clip` (an index into its model's
/// [`clips`](skelmap_core::Model::clips)) plays, those the model has; empty for a part that
/// plays none.
fn clip_frames(part: &skelmap_core::model::Part<'_>, clip: Option<usize>) -> Range<u32> {
    let Some(clip) = clip.and_then(|c| part.model.clips().get(c)) else {
        return 0..0;
    };
    let frames = u32::try_from(part.model.num_frames()).unwrap_or(u32::MAX);
    let end = clip.first.saturating_add(clip.count).min(frames);
    clip.first..end.max(clip.first)
}

/// The turn from `up` to glTF's `+Y` up, its entries rounded to the exact 0 and ±1 of a
/// quarter turn (as [`Asset::set_up`] turns the data).
fn turn_of(up: UpAxis) -> Affine3A {
    let turn = Mat3::from_quat(up.to_y_up())
        .to_cols_array()
        .map(f32::round);
    Affine3A::from_mat3(Mat3::from_cols_array(&turn))
}

/// Translation and rotation of each attachment of `part` in its model's frame `frame`,
/// turned by `turn`; an attachment that cannot be placed (not finite) is the identity.
fn tags_at(
    part: &skelmap_core::model::Part<'_>,
    frame: usize,
    turn: Affine3A,
    pose: &mut Pose,
) -> Result<Vec<([f32; 3], [f32; 4])>> {
    let model = &part.model;
    if model.num_attachments() == 0 {
        return Ok(Vec::new());
    }
    model.pose(frame, frame, 0.0, Interpolation::Nlerp, pose)?;
    (0..model.num_attachments())
        .map(|a| {
            let local = turn * model.attachment_transform(a, pose)? * turn.inverse();
            let (_, rotation, translation) = local.to_scale_rotation_translation();
            Ok(if rotation.is_finite() && translation.is_finite() {
                (translation.to_array(), rotation.normalize().to_array())
            } else {
                (Vec3::ZERO.to_array(), Quat::IDENTITY.to_array())
            })
        })
        .collect()
}

impl Builder {
    /// The animation of `set`: for each part that plays a clip, its meshes' morph weights
    /// and its attachments' poses, one key per frame of the clip.
    fn clip_set(
        &mut self,
        assembly: &Assembly<'_>,
        assets: &[Asset],
        set: &ClipSet,
        nodes: &[PartNodes],
        pose: &mut Pose,
    ) -> Result<()> {
        let mut channels = Channels::default();
        for (((part, asset), own), clip) in assembly
            .parts()
            .iter()
            .zip(assets)
            .zip(nodes)
            .zip(&set.clips)
        {
            let range = clip_frames(part, *clip);
            let animated = own.meshes.iter().any(|&(_, t)| t > 0) || !own.attachments.is_empty();
            let Some(clip) = clip.and_then(|c| part.model.clips().get(c)) else {
                continue;
            };
            // A part with nothing to animate gets no keys (not even their times), so that
            // the work stays within the keys `set_keys` counted.
            if range.is_empty() || !animated {
                continue;
            }
            let frames: Vec<u32> = range.collect();
            let input: Index<Accessor> = self.times(frames.len(), clip.fps);
            self.morph_channels(&frames, &own.meshes, input, &mut channels);
            if own.attachments.is_empty() {
                continue;
            }
            let turn = turn_of(asset.up);
            let mut keys = Vec::with_capacity(frames.len());
            for &f in &frames {
                keys.push(tags_at(part, f as usize, turn, pose)?);
            }
            for (a, &node) in own.attachments.iter().enumerate() {
                let translations: Vec<[f32; 3]> = keys.iter().map(|k| k[a].0).collect();
                let rotations = hemisphere(keys.iter().map(|k| Quat::from_array(k[a].1)));
                let t = self.floats(&translations, Type::Vec3, None, false);
                let r = self.floats(&rotations, Type::Vec4, None, false);
                channels.linear(input, t, node, Property::Translation);
                channels.linear(input, r, node, Property::Rotation);
            }
        }
        channels.push_to(&mut self.root, &set.name);
        Ok(())
    }
}
