//! glTF 2.0 output (`.glb`, or `.gltf` with a `.bin` beside it), built with `gltf-json`.
//!
//! What an asset becomes:
//!
//! - **Meshes**: one glTF mesh and node per asset mesh, with `POSITION`, `NORMAL` and
//!   `TEXCOORD_0` (`v` down, as glTF wants) and `u16`/`u32` indices.
//! - **Materials**: metallic 0, roughness 1, the material's colour; an MDL/HMP skin becomes an
//!   embedded PNG `baseColorTexture` (8-bit skins through a grey ramp: the game palette is not
//!   in the file). A material's texture file ([`Material::external`](asset::Material)) is an
//!   image URI; `skelmap_author::texture` finds and decodes such files into images first. A
//!   mesh without texture coordinates gets its material without the texture, as glTF
//!   requires.
//! - **Skeleton**: one node per joint under a root node named `skelmap_root`, which is also
//!   the skin's `skeleton` and last joint. Joint nodes carry the asset frame's local pose;
//!   inverse bind matrices are the inverse model-space joint transforms of that frame (by
//!   default the bind pose: the stored rest pose of IQM, MD5, PSK, Half-Life, MDL7 and MS3D,
//!   frame 0 elsewhere). Vertices with no usable influence are bound to
//!   `skelmap_root` and stay put. Skinned mesh nodes sit at the scene root without a transform,
//!   as glTF asks.
//! - **Influences**: `JOINTS_0`/`WEIGHTS_0`, 4 influences a vertex renormalised to sum to 1
//!   (what engines accept): where a vertex has more, the 4 whose largest error over the
//!   asset's frames is smallest ([`asset::Influences::cut`], the heaviest for an asset of one
//!   frame); [`Options::all_influences`] keeps every influence
//!   in as many `JOINTS_n`/`WEIGHTS_n` sets as the busiest vertex needs. Weights are unorm16
//!   summing to exactly 65535, chosen and quantised by [`gpu::Skin::new`], the code that
//!   builds the GPU skinning buffers.
//!   DPM and SKM store one pre-weighted position per influence; glTF stores one bind-pose
//!   position per vertex. The two agree exactly when a vertex's influences agree on its
//!   bind-pose position, as exporters write them.
//! - **Animations**: one per frame group. Skeletal: a translation and a rotation channel per
//!   joint (and a scale channel for a joint that scales: IQM, MDR), one key per frame at
//!   `1 / fps`, linear (rotations kept in one hemisphere so the interpolation takes the short
//!   way).
//!   Vertex-animation frames (Quake, GameStudio MDL and HMP, MD2, MD3, MDC; MDL7 frames that
//!   replace vertices): **morph targets**, chosen over sampled node animation because vertex
//!   animation is what the files store: target `k` is frame `k` minus the exported frame, and a
//!   frame group animates the mesh weights one-hot from one frame's target to the next, so
//!   linear interpolation reproduces the runtime's tween exactly. Meshes with as many targets
//!   share those weights; they grow with frames × targets, and an asset whose weights would
//!   pass [`MAX_CLIP_KEYS`](skelmap_core::asset::MAX_CLIP_KEYS) is refused before anything is
//!   written ([`morph_keys`]).
//! - **Axes**: glTF is `+Y` up. Quake-lineage assets (`+Z` up) are turned −90° about `X`
//!   in the data (vertices, morph targets, the root joints' poses and keys, the bind
//!   transforms), so no node carries the turn and `skelmap_root` binds at the identity; MS3D
//!   is already `+Y` up.

use std::collections::BTreeMap;
use std::io::Write;

use glam::{Affine3A, Mat4, Quat, Vec3};
use gltf_json as json;
use json::accessor::{ComponentType, GenericComponentType, Type};
use json::buffer::Target;
use json::validation::{Checked, Checked::Valid, USize64};
use json::{Accessor, Index, Node, Root};

mod assembly;

pub use assembly::{assembly_document, assembly_to_gltf, write_assembly_glb};

use crate::render;
use crate::{Error, Result};
use skelmap_core::asset::cut::SkinFrames;
use skelmap_core::asset::{self, Asset, ClipKeys, UpAxis};
use skelmap_core::gpu;

/// Choices for the glTF writer.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// Keep every influence (`JOINTS_n`/`WEIGHTS_n` sets of 4) instead of the 4 a vertex
    /// whose largest error over the frames is least ([`influence_notes`] says what was cut).
    pub all_influences: bool,
    /// Leave the animations out.
    pub no_animations: bool,
}

/// Name of the node above the skeleton (and of the joint unbound vertices follow).
pub const ROOT_NODE: &str = "skelmap_root";

/// The glTF JSON document of `asset` and the binary buffer it refers to (uri `bin_uri`, or
/// none for a `.glb`).
///
/// # Errors
///
/// [`Error::TooLarge`] past 4 GiB of binary data, or, before anything is built, for
/// animations that would hold more than [`MAX_CLIP_KEYS`](asset::MAX_CLIP_KEYS) morph weights
/// (frames × morph targets, see [`morph_keys`]); [`Error::Encode`] if a skin fails to encode.
pub fn document(
    asset: &Asset,
    options: &Options,
    bin_uri: Option<&str>,
) -> Result<(Root, Vec<u8>)> {
    if !options.no_animations {
        check_keys(
            "the morph animation (frames × morph targets)",
            morph_keys(asset),
        )?;
    }
    let mut b = Builder::default();
    b.root.asset.generator = Some(format!("skelmap-export {}", env!("CARGO_PKG_VERSION")));
    let textures = b.textures(asset)?;
    let materials = b.materials(asset, &textures);
    // Turned to glTF's axes in the data itself, so that the bind pose the inverse bind
    // matrices give and the nodes' rest pose agree (readers such as Blender's build bone
    // rests from the one and keep the other as a pose, and lose a turn on a joint).
    let asset = &*asset.with_up(UpAxis::Y);
    if !options.all_influences {
        b.frames = SkinFrames::of_asset(asset);
    }
    // Joints first, so the skin can name them.
    let joints = b.skeleton(asset);
    let mut scene_nodes: Vec<Index<Node>> = joints.root.into_iter().collect();
    let mut mesh_nodes = Vec::new();
    for mesh in &asset.meshes {
        if let Some(node) = b.mesh(mesh, options, &joints, &materials)? {
            mesh_nodes.push((node, mesh.targets.len()));
            scene_nodes.push(node);
        }
    }
    if !options.no_animations {
        b.animations(asset, &joints.nodes, &mesh_nodes);
    }
    b.scene(asset.format, scene_nodes);
    b.finish(bin_uri)
}

/// The morph weights the animations of `asset` hold in glTF: per frame of every clip of
/// morph frames, one weight per target of each mesh written, where meshes with as many
/// targets share one output (their one-hot weights are the same numbers). An asset's morph
/// targets are its frames, so this grows with frames × frames: [`document`] refuses it past
/// [`MAX_CLIP_KEYS`](asset::MAX_CLIP_KEYS), the budget the asset's own keys have.
///
/// ```
/// use skelmap_core::quake::write::{FrameDef, FrameEntry};
/// use skelmap_core::{Model, asset, quake};
/// use skelmap_export::gltf;
/// // A Quake MDL triangle of three frames, `run1` to `run3`: one clip of three keys, each
/// // showing one of three targets.
/// let vertices = vec![([0, 0, 0], 0), ([1, 0, 0], 0), ([0, 1, 0], 0)];
/// let mdl = quake::Builder {
///     frames: (1..=3)
///         .map(|k| FrameEntry::Single(FrameDef {
///             name: format!("run{k}").into_bytes(),
///             vertices: vertices.clone(),
///         }))
///         .collect(),
///     ..quake::Builder::triangle()
/// };
/// let asset = Model::from_vec(mdl.write())?.to_asset(&asset::Options::default())?;
/// assert_eq!((asset.clips.len(), asset.meshes[0].targets.len()), (1, 3));
/// assert_eq!(gltf::morph_keys(&asset), 3 * 3);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn morph_keys(asset: &Asset) -> u64 {
    let frames: u64 = asset
        .clips
        .iter()
        .map(|clip| match &clip.keys {
            ClipKeys::Morph(frames) => frames.len() as u64,
            ClipKeys::Joints(_) => 0,
        })
        .sum();
    let targets = asset
        .meshes
        .iter()
        .filter(|m| is_written(m))
        .map(|m| m.targets.len());
    frames.saturating_mul(weights_per_frame(targets))
}

/// The weights one key of a morph clip writes for meshes of `targets` targets each: one per
/// target of each distinct count (see [`Builder::morph_channels`]).
fn weights_per_frame(targets: impl IntoIterator<Item = usize>) -> u64 {
    let distinct: std::collections::BTreeSet<usize> =
        targets.into_iter().filter(|&t| t > 0).collect();
    distinct.iter().map(|&t| t as u64).sum()
}

/// [`Error::TooLarge`] (naming `what`) when `keys` exceeds
/// [`MAX_CLIP_KEYS`](asset::MAX_CLIP_KEYS): checked before anything is built.
fn check_keys(what: &'static str, keys: u64) -> Result<()> {
    if keys > asset::MAX_CLIP_KEYS {
        return Err(Error::TooLarge {
            what,
            size: keys,
            unit: "keys",
        });
    }
    Ok(())
}

/// Whether `mesh` becomes a glTF mesh: one without triangles or vertices does not.
fn is_written(mesh: &asset::Mesh) -> bool {
    !mesh.triangles.is_empty() && !mesh.positions.is_empty()
}

/// What writing `asset` with `options` does to its influences, in words: where a vertex has
/// more than four and `all_influences` is off, the notes of [`asset::Influences::cut`] over
/// every mesh (how many vertices had more, whether the four kept were chosen by their error
/// over the frames or are the heaviest, and why). [`document`] makes the same choice; this
/// makes it again, for a caller that reports it.
///
/// ```
/// use skelmap_core::{Model, model::convert, synth};
/// use skelmap_export::gltf;
/// let bytes = synth::tube(&Default::default()).write()?;
/// let asset = convert::asset_of(&Model::from_bytes(&bytes)?)?;
/// // The tube's vertices have at most three influences: nothing is cut.
/// assert!(gltf::influence_notes(&asset, &gltf::Options::default()).is_empty());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn influence_notes(asset: &Asset, options: &Options) -> Vec<String> {
    if options.all_influences {
        return Vec::new();
    }
    let asset = &*asset.with_up(UpAxis::Y);
    let frames = SkinFrames::of_asset(asset);
    let mut total = asset::cut::Cut::default();
    for mesh in &asset.meshes {
        total.add(&mesh.influences.cut(&mesh.positions, 4, &frames));
    }
    total.notes("vertices")
}

/// Writes `asset` as one binary glTF (`.glb`).
///
/// # Errors
///
/// As [`document`], plus [`Error::Io`] and [`Error::Encode`].
pub fn write_glb(asset: &Asset, options: &Options, out: impl Write) -> Result<()> {
    let (root, bin) = document(asset, options, None)?;
    glb(&root, bin, out)
}

/// Writes a document and its binary buffer as one `.glb`.
fn glb(root: &Root, bin: Vec<u8>, out: impl Write) -> Result<()> {
    let json = json::serialize::to_vec(root).map_err(|e| encode("glTF JSON", e))?;
    let glb = ::gltf::binary::Glb {
        header: ::gltf::binary::Header {
            magic: *b"glTF",
            version: 2,
            // `to_writer` computes the real length.
            length: 0,
        },
        json: json.into(),
        bin: (!bin.is_empty()).then(|| bin.into()),
    };
    glb.to_writer(out).map_err(|e| match e {
        ::gltf::Error::Io(e) => Error::Io(e),
        other => encode("GLB", other),
    })
}

/// `asset` as a `.gltf` JSON text and the binary buffer to save beside it as `bin_uri`.
///
/// # Errors
///
/// As [`document`].
pub fn to_gltf(asset: &Asset, options: &Options, bin_uri: &str) -> Result<(Vec<u8>, Vec<u8>)> {
    let (root, bin) = document(asset, options, Some(bin_uri))?;
    let json = json::serialize::to_vec_pretty(&root).map_err(|e| encode("glTF JSON", e))?;
    Ok((json, bin))
}

fn encode(what: &'static str, e: impl std::fmt::Display) -> Error {
    Error::Encode {
        what,
        message: e.to_string(),
    }
}

/// The column-major inverse of a joint's model-space transform.
fn inverse_bind(world: Affine3A) -> [f32; 16] {
    let mut m = Mat4::from(world.inverse()).to_cols_array();
    // Exactly (0, 0, 0, 1) in the last row, as validators demand.
    (m[3], m[7], m[11], m[15]) = (0.0, 0.0, 0.0, 1.0);
    m
}

/// The influence sets of `mesh` (see [`gpu::Skin::new`]): 4 influences a vertex chosen by
/// their error over `frames` ([`asset::Influences::cut`]), or every influence in as many sets of 4 as the busiest vertex needs, as unorm16
/// summing to exactly 65535; [`UNBOUND`](asset::UNBOUND) maps to `root_joint`.
fn influence_sets(
    mesh: &asset::Mesh,
    options: &Options,
    frames: &SkinFrames,
    root_joint: u16,
) -> Result<gpu::Skin> {
    let (sets, cut) = if options.all_influences {
        (mesh.influences.max_per_vertex().div_ceil(4).max(1), None)
    } else {
        (1, Some(mesh.influences.cut(&mesh.positions, 4, frames)))
    };
    gpu::Skin::new(
        cut.as_ref().map_or(&mesh.influences, |c| &c.influences),
        mesh.positions.len(),
        sets,
        gpu::Precision::Unorm16,
        gpu::JointWidth::U16,
        root_joint,
    )
    .map_err(|e| encode("glTF joints", e))
}

/// The nodes of a skeleton.
#[derive(Default)]
struct Joints {
    /// One node per joint, then the root node: the skin's joints (empty without a skeleton).
    nodes: Vec<Index<Node>>,
    /// The node above the skeleton.
    root: Option<Index<Node>>,
    /// The skin, where some mesh has influences.
    skin: Option<Index<json::Skin>>,
}

/// A primitive's vertex attributes.
type Attributes = BTreeMap<Checked<json::mesh::Semantic>, Index<Accessor>>;

#[derive(Default)]
struct Builder {
    root: Root,
    bin: Vec<u8>,
    sampler: Option<Index<json::texture::Sampler>>,
    /// Per textured material, its copy without the texture, made for a mesh without texture
    /// coordinates (glTF requires `TEXCOORD_0` where a texture is bound).
    untextured: BTreeMap<usize, Index<json::Material>>,
    /// The asset's joint frames, which choose the 4 influences a vertex keeps.
    frames: SkinFrames,
}

impl Builder {
    /// `material`, or for a mesh without texture coordinates its copy without a texture.
    fn material_for(
        &mut self,
        material: Index<json::Material>,
        has_uvs: bool,
    ) -> Index<json::Material> {
        let i = material.value();
        let textured = self.root.materials[i]
            .pbr_metallic_roughness
            .base_color_texture
            .is_some();
        if has_uvs || !textured {
            return material;
        }
        if let Some(&copy) = self.untextured.get(&i) {
            return copy;
        }
        let mut plain = self.root.materials[i].clone();
        plain.pbr_metallic_roughness.base_color_texture = None;
        let copy = self.root.push(plain);
        self.untextured.insert(i, copy);
        copy
    }

    /// One material per asset material, in order: metallic 0, roughness 1, its colour, as
    /// base colour texture its image (one of `textures`) or else its external file, and
    /// `alphaMode` `MASK` where it has an alpha cutoff.
    fn materials(
        &mut self,
        asset: &Asset,
        textures: &[Index<json::Texture>],
    ) -> Vec<Index<json::Material>> {
        asset
            .materials
            .iter()
            .map(|m| {
                let mut material = json::Material {
                    name: Some(m.name.clone()),
                    ..json::Material::default()
                };
                let pbr = &mut material.pbr_metallic_roughness;
                pbr.base_color_factor = json::material::PbrBaseColorFactor(m.base_color);
                pbr.metallic_factor = json::material::StrengthFactor(0.0);
                pbr.roughness_factor = json::material::StrengthFactor(1.0);
                let texture = match (m.image.and_then(|i| textures.get(i)), &m.external) {
                    (Some(&index), _) => Some(index),
                    (None, Some(uri)) => Some(self.external_texture(uri)),
                    (None, None) => None,
                };
                pbr.base_color_texture = texture.map(|index| json::texture::Info {
                    index,
                    tex_coord: 0,
                    extensions: None,
                    extras: Default::default(),
                });
                if let Some(cutoff) = m.alpha_cutoff {
                    material.alpha_mode = Valid(json::material::AlphaMode::Mask);
                    material.alpha_cutoff = Some(json::material::AlphaCutoff(cutoff));
                }
                self.root.push(material)
            })
            .collect()
    }

    /// The asset's skeleton, if any: its joint nodes, the root node above them and, where
    /// some mesh has influences, the skin.
    fn skeleton(&mut self, asset: &Asset) -> Joints {
        let Some(skeleton) = asset.skeleton.as_ref() else {
            return Joints::default();
        };
        let (mut nodes, roots) = self.joint_tree(skeleton);
        let root = self.root.push(Node {
            name: Some(ROOT_NODE.into()),
            children: (!roots.is_empty()).then_some(roots),
            ..Node::default()
        });
        let has_meshes = asset.meshes.iter().any(|m| !m.influences.is_empty());
        let skin = has_meshes.then(|| self.skin(skeleton, &nodes, root));
        nodes.push(root);
        Joints {
            nodes,
            root: Some(root),
            skin,
        }
    }

    /// One node per joint with its local pose, each under its parent; returns the nodes and
    /// those of joints without a parent.
    fn joint_tree(&mut self, skeleton: &asset::Skeleton) -> (Vec<Index<Node>>, Vec<Index<Node>>) {
        let mut joint_nodes: Vec<Index<Node>> = Vec::new();
        for joint in &skeleton.joints {
            joint_nodes.push(self.root.push(Node {
                name: Some(joint.name.clone()),
                rotation: Some(json::scene::UnitQuaternion(
                    joint.rotation.normalize().to_array(),
                )),
                translation: Some(joint.translation.to_array()),
                scale: (joint.scale != Vec3::ONE).then(|| joint.scale.to_array()),
                ..Node::default()
            }));
        }
        let mut children: Vec<Vec<Index<Node>>> = vec![Vec::new(); joint_nodes.len()];
        let mut roots = Vec::new();
        for (i, joint) in skeleton.joints.iter().enumerate() {
            match joint.parent.filter(|&p| p < joint_nodes.len() && p != i) {
                Some(p) => children[p].push(joint_nodes[i]),
                None => roots.push(joint_nodes[i]),
            }
        }
        for (node, kids) in joint_nodes.iter().zip(children) {
            if !kids.is_empty() {
                self.root.nodes[node.value()].children = Some(kids);
            }
        }
        (joint_nodes, roots)
    }

    /// The skin of `joint_nodes` and then `root`: each joint's inverse bind matrix, the
    /// identity for the root.
    fn skin(
        &mut self,
        skeleton: &asset::Skeleton,
        joint_nodes: &[Index<Node>],
        root: Index<Node>,
    ) -> Index<json::Skin> {
        let mut ibm: Vec<[f32; 16]> = skeleton
            .joints
            .iter()
            .map(|j| inverse_bind(j.world))
            .collect();
        ibm.push(Mat4::IDENTITY.to_cols_array());
        let ibm = self.floats(&ibm, Type::Mat4, None, false);
        let mut joints = joint_nodes.to_vec();
        joints.push(root);
        self.root.push(json::Skin {
            name: Some("skeleton".into()),
            inverse_bind_matrices: Some(ibm),
            joints,
            skeleton: Some(root),
            extensions: None,
            extras: Default::default(),
        })
    }

    /// The glTF mesh and node of `mesh`, or `None` for one without triangles or vertices: the
    /// node skinned by `joints.skin` where the mesh has influences.
    fn mesh(
        &mut self,
        mesh: &asset::Mesh,
        options: &Options,
        joints: &Joints,
        materials: &[Index<json::Material>],
    ) -> Result<Option<Index<Node>>> {
        if !is_written(mesh) {
            return Ok(None);
        }
        let skinned = joints.skin.is_some() && !mesh.influences.is_empty();
        let root_joint = joints.nodes.len().saturating_sub(1) as u16;
        let attributes = self.attributes(mesh, options, skinned.then_some(root_joint))?;
        let indices = self.indices(&mesh.triangles, mesh.positions.len());
        let targets = self.morph_targets(mesh);
        let weights = (!targets.is_empty()).then(|| vec![0.0; targets.len()]);
        let has_uvs = mesh
            .uvs
            .as_ref()
            .is_some_and(|u| u.len() == mesh.positions.len());
        let material = mesh
            .material
            .and_then(|m| materials.get(m))
            .map(|&m| self.material_for(m, has_uvs));
        let gltf_mesh = self.root.push(json::Mesh {
            name: Some(mesh.name.clone()),
            primitives: vec![json::mesh::Primitive {
                attributes,
                indices: Some(indices),
                material,
                mode: Valid(json::mesh::Mode::Triangles),
                targets: (!targets.is_empty()).then_some(targets),
                extensions: None,
                extras: Default::default(),
            }],
            weights,
            extensions: None,
            extras: Default::default(),
        });
        Ok(Some(self.root.push(Node {
            name: Some(mesh.name.clone()),
            mesh: Some(gltf_mesh),
            skin: if skinned { joints.skin } else { None },
            ..Node::default()
        })))
    }

    /// Positions (with bounds), normals, texture coordinates and colours where every vertex
    /// has one, and with `root_joint` (a skinned mesh) the influence sets.
    fn attributes(
        &mut self,
        mesh: &asset::Mesh,
        options: &Options,
        root_joint: Option<u16>,
    ) -> Result<Attributes> {
        let mut attributes = BTreeMap::new();
        let position = self.floats(&mesh.positions, Type::Vec3, Some(Target::ArrayBuffer), true);
        attributes.insert(Valid(json::mesh::Semantic::Positions), position);
        let normal = self.floats(&mesh.normals, Type::Vec3, Some(Target::ArrayBuffer), false);
        attributes.insert(Valid(json::mesh::Semantic::Normals), normal);
        if let Some(uvs) = mesh
            .uvs
            .as_ref()
            .filter(|u| u.len() == mesh.positions.len())
        {
            let uv = self.floats(uvs, Type::Vec2, Some(Target::ArrayBuffer), false);
            attributes.insert(Valid(json::mesh::Semantic::TexCoords(0)), uv);
        }
        if let Some(colors) = mesh
            .colors
            .as_ref()
            .filter(|c| c.len() == mesh.positions.len())
        {
            let rgba: Vec<[f32; 4]> = colors
                .iter()
                .map(|c| c.map(|b| f32::from(b) / 255.0))
                .collect();
            let color = self.floats(&rgba, Type::Vec4, Some(Target::ArrayBuffer), false);
            attributes.insert(Valid(json::mesh::Semantic::Colors(0)), color);
        }
        if let Some(root_joint) = root_joint {
            let skin = influence_sets(mesh, options, &self.frames, root_joint)?;
            for (set, (joints, weights)) in skin.joints.iter().zip(&skin.weights).enumerate() {
                let n = joints.len();
                let j = self.integers(joints.as_bytes(), n, ComponentType::U16, false);
                let w = self.integers(weights.as_bytes(), n, ComponentType::U16, true);
                attributes.insert(Valid(json::mesh::Semantic::Joints(set as u32)), j);
                attributes.insert(Valid(json::mesh::Semantic::Weights(set as u32)), w);
            }
        }
        Ok(attributes)
    }

    /// Each morph target's position (with bounds) and normal offsets.
    fn morph_targets(&mut self, mesh: &asset::Mesh) -> Vec<json::mesh::MorphTarget> {
        mesh.targets
            .iter()
            .map(|t| json::mesh::MorphTarget {
                positions: Some(self.floats(
                    &t.positions,
                    Type::Vec3,
                    Some(Target::ArrayBuffer),
                    true,
                )),
                normals: Some(self.floats(
                    &t.normals,
                    Type::Vec3,
                    Some(Target::ArrayBuffer),
                    false,
                )),
                tangents: None,
            })
            .collect()
    }

    /// The default glTF scene of `nodes`, named `name`. A model with nothing to show (no
    /// triangles, no joints) gets no scene at all: glTF allows a scene without nodes, but
    /// readers such as the `gltf` crate refuse one.
    fn scene(&mut self, name: &str, nodes: Vec<Index<Node>>) {
        if !nodes.is_empty() {
            let scene_index = self.root.push(json::Scene {
                name: Some(name.into()),
                nodes,
                extensions: None,
                extras: Default::default(),
            });
            self.root.scene = Some(scene_index);
        }
    }

    /// The document and its binary buffer, described by the document unless empty (`uri`:
    /// where it is saved, or none inside a `.glb`); [`Error::TooLarge`] past 4 GiB.
    fn finish(mut self, uri: Option<&str>) -> Result<(Root, Vec<u8>)> {
        let len = self.bin.len() as u64;
        if len > u64::from(u32::MAX) - 64 {
            return Err(Error::TooLarge {
                what: "the glTF binary buffer",
                size: len,
                unit: "bytes",
            });
        }
        if len > 0 {
            self.root.push(json::Buffer {
                byte_length: USize64(len),
                name: None,
                uri: uri.map(str::to_owned),
                extensions: None,
                extras: Default::default(),
            });
        }
        Ok((self.root, self.bin))
    }

    /// Appends `bytes` (4-byte aligned) as a buffer view.
    fn view(&mut self, bytes: &[u8], target: Option<Target>) -> Index<json::buffer::View> {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        let offset = self.bin.len();
        self.bin.extend_from_slice(bytes);
        self.root.push(json::buffer::View {
            buffer: Index::new(0),
            byte_length: USize64(bytes.len() as u64),
            byte_offset: Some(USize64(offset as u64)),
            byte_stride: None,
            name: None,
            target: target.map(Valid),
            extensions: None,
            extras: Default::default(),
        })
    }

    fn accessor(
        &mut self,
        view: Index<json::buffer::View>,
        count: usize,
        component: ComponentType,
        type_: Type,
        bounds: Option<(Vec<f32>, Vec<f32>)>,
    ) -> Index<Accessor> {
        let (min, max) = bounds.map_or((None, None), |(lo, hi)| (Some(lo.into()), Some(hi.into())));
        self.root.push(Accessor {
            buffer_view: Some(view),
            byte_offset: None,
            count: USize64(count as u64),
            component_type: Valid(GenericComponentType(component)),
            extensions: None,
            extras: Default::default(),
            type_: Valid(type_),
            min,
            max,
            name: None,
            normalized: false,
            sparse: None,
        })
    }

    /// Float elements of `N` components; with `bounds`, the accessor gets `min`/`max`.
    fn floats<const N: usize>(
        &mut self,
        data: &[[f32; N]],
        type_: Type,
        target: Option<Target>,
        bounds: bool,
    ) -> Index<Accessor> {
        let view = self.view(bytemuck::cast_slice(data.as_flattened()), target);
        let bounds = bounds.then(|| {
            let mut lo = [f32::INFINITY; N];
            let mut hi = [f32::NEG_INFINITY; N];
            for v in data {
                for k in 0..N {
                    lo[k] = lo[k].min(v[k]);
                    hi[k] = hi[k].max(v[k]);
                }
            }
            (lo.to_vec(), hi.to_vec())
        });
        self.accessor(view, data.len(), ComponentType::F32, type_, bounds)
    }

    /// `count` vertex attributes of 4 integers of `component` in `bytes`; `normalized`
    /// makes them unorm (weights).
    fn integers(
        &mut self,
        bytes: &[u8],
        count: usize,
        component: ComponentType,
        normalized: bool,
    ) -> Index<Accessor> {
        let view = self.view(bytes, Some(Target::ArrayBuffer));
        let accessor = self.accessor(view, count, component, Type::Vec4, None);
        self.root.accessors[accessor.value()].normalized = normalized;
        accessor
    }

    /// Triangle indices, as `u16` when every vertex fits below the restart value.
    fn indices(&mut self, triangles: &[[u32; 3]], vertices: usize) -> Index<Accessor> {
        let target = Some(Target::ElementArrayBuffer);
        let count = triangles.len() * 3;
        if vertices < usize::from(u16::MAX) {
            let narrow: Vec<u16> = triangles.iter().flatten().map(|&i| i as u16).collect();
            let view = self.view(bytemuck::cast_slice(&narrow), target);
            self.accessor(view, count, ComponentType::U16, Type::Scalar, None)
        } else {
            let view = self.view(bytemuck::cast_slice(triangles.as_flattened()), target);
            self.accessor(view, count, ComponentType::U32, Type::Scalar, None)
        }
    }

    /// The sampler every texture uses (nearest magnification: skins are small and
    /// pixel-drawn), made on first use.
    fn sampler(&mut self) -> Index<json::texture::Sampler> {
        if let Some(sampler) = self.sampler {
            return sampler;
        }
        let sampler = self.root.push(json::texture::Sampler {
            mag_filter: Some(Valid(json::texture::MagFilter::Nearest)),
            min_filter: Some(Valid(json::texture::MinFilter::Linear)),
            name: None,
            wrap_s: Valid(json::texture::WrappingMode::Repeat),
            wrap_t: Valid(json::texture::WrappingMode::Repeat),
            extensions: None,
            extras: Default::default(),
        });
        self.sampler = Some(sampler);
        sampler
    }

    /// A texture whose image is the file at `uri`, relative to the glTF (not embedded: the
    /// model only names it).
    fn external_texture(&mut self, uri: &str) -> Index<json::Texture> {
        let sampler = Some(self.sampler());
        let source = self.root.push(json::Image {
            buffer_view: None,
            mime_type: None,
            name: None,
            uri: Some(uri.to_owned()),
            extensions: None,
            extras: Default::default(),
        });
        self.root.push(json::Texture {
            name: None,
            sampler,
            source,
            extensions: None,
            extras: Default::default(),
        })
    }

    /// Each image as an embedded texture, in the asset's image order: its JPEG as it is, else
    /// a PNG of its texels.
    fn textures(&mut self, asset: &Asset) -> Result<Vec<Index<json::Texture>>> {
        let sampler = (!asset.images.is_empty()).then(|| self.sampler());
        asset
            .images
            .iter()
            .enumerate()
            .map(|(i, image)| {
                let (bytes, mime) = match &image.jpeg {
                    Some(jpeg) => (jpeg.clone(), "image/jpeg"),
                    None => (
                        render::encode_png(image.width, image.height, &image.rgba)?,
                        "image/png",
                    ),
                };
                let view = self.view(&bytes, None);
                let source = self.root.push(json::Image {
                    buffer_view: Some(view),
                    mime_type: Some(json::image::MimeType(mime.into())),
                    name: Some(format!("skin {i}")),
                    uri: None,
                    extensions: None,
                    extras: Default::default(),
                });
                Ok(self.root.push(json::Texture {
                    name: None,
                    sampler,
                    source,
                    extensions: None,
                    extras: Default::default(),
                }))
            })
            .collect()
    }

    /// One animation per clip: joint channels, or morph weights on the mesh nodes.
    fn animations(
        &mut self,
        asset: &Asset,
        joint_nodes: &[Index<Node>],
        mesh_nodes: &[(Index<Node>, usize)],
    ) {
        use json::animation::Property;
        for clip in asset.clips.iter().filter(|c| !c.is_empty()) {
            let input = self.times(clip.len(), clip.fps);
            let mut channels = Channels::default();
            match &clip.keys {
                ClipKeys::Joints(frames) => {
                    let bones = frames.first().map_or(0, Vec::len);
                    for (bone, &node) in joint_nodes.iter().enumerate().take(bones) {
                        let key = |f: &Vec<asset::JointKey>| f.get(bone).copied();
                        let translations: Vec<[f32; 3]> = frames
                            .iter()
                            .map(|f| key(f).map_or([0.0; 3], |k| k.translation.to_array()))
                            .collect();
                        let rotations = hemisphere(
                            frames
                                .iter()
                                .map(|f| key(f).map_or(Quat::IDENTITY, |k| k.rotation)),
                        );
                        let scales: Vec<[f32; 3]> = frames
                            .iter()
                            .map(|f| key(f).map_or([1.0; 3], |k| k.scale.to_array()))
                            .collect();
                        let t = self.floats(&translations, Type::Vec3, None, false);
                        let r = self.floats(&rotations, Type::Vec4, None, false);
                        channels.linear(input, t, node, Property::Translation);
                        channels.linear(input, r, node, Property::Rotation);
                        // Scale only where a joint scales (IQM): other formats keep two
                        // channels a joint.
                        if scales.iter().any(|s| *s != [1.0; 3]) {
                            let s = self.floats(&scales, Type::Vec3, None, false);
                            channels.linear(input, s, node, Property::Scale);
                        }
                    }
                }
                ClipKeys::Morph(frames) => {
                    self.morph_channels(frames, mesh_nodes, input, &mut channels);
                }
            }
            channels.push_to(&mut self.root, &clip.name);
        }
    }

    /// The key times of `frames` frames at `fps` (a rate that is not positive is
    /// [`NAMED_CLIP_FPS`](skelmap_core::view::NAMED_CLIP_FPS)), with their bounds (a
    /// sampler's input).
    fn times(&mut self, frames: usize, fps: f32) -> Index<Accessor> {
        let fps = if fps > 0.0 && fps.is_finite() {
            fps
        } else {
            skelmap_core::view::NAMED_CLIP_FPS
        };
        let times: Vec<[f32; 1]> = (0..frames).map(|k| [k as f32 / fps]).collect();
        self.floats(&times, Type::Scalar, None, true)
    }

    /// A morph weights channel at `input`'s times for each of `meshes` (a node and its
    /// number of targets) that has targets, showing target `f` alone for each `f` of
    /// `frames`: meshes with as many targets share one output accessor.
    fn morph_channels(
        &mut self,
        frames: &[u32],
        meshes: &[(Index<Node>, usize)],
        input: Index<Accessor>,
        channels: &mut Channels,
    ) {
        let mut shared: BTreeMap<usize, Index<Accessor>> = BTreeMap::new();
        for &(node, targets) in meshes.iter().filter(|(_, t)| *t > 0) {
            let weights = match shared.get(&targets) {
                Some(&weights) => weights,
                None => {
                    let weights = self.one_hot(frames, targets);
                    shared.insert(targets, weights);
                    weights
                }
            };
            channels.linear(
                input,
                weights,
                node,
                json::animation::Property::MorphTargetWeights,
            );
        }
    }

    /// Morph weights that show target `f` alone, for each `f` of `frames`, of a mesh with
    /// `targets` targets (a frame past them shows none).
    fn one_hot(&mut self, frames: &[u32], targets: usize) -> Index<Accessor> {
        let mut weights = vec![[0.0f32]; frames.len() * targets];
        for (key, &f) in weights.chunks_exact_mut(targets.max(1)).zip(frames) {
            if let Some(weight) = key.get_mut(f as usize) {
                *weight = [1.0];
            }
        }
        self.floats(&weights, Type::Scalar, None, false)
    }
}

/// `rotations`, normalised, each flipped into the hemisphere of the one before, so that a
/// linear key-to-key interpolation takes the short way.
fn hemisphere(rotations: impl Iterator<Item = Quat>) -> Vec<[f32; 4]> {
    let mut previous = Quat::IDENTITY;
    rotations
        .map(|q| {
            let q = q.normalize();
            previous = if previous.dot(q) < 0.0 { -q } else { q };
            previous.to_array()
        })
        .collect()
}

/// An animation's samplers and channels, as they are added.
#[derive(Default)]
struct Channels {
    samplers: Vec<json::animation::Sampler>,
    channels: Vec<json::animation::Channel>,
}

impl Channels {
    /// A channel animating `path` of `node` with `output` at `input`'s times, linearly.
    fn linear(
        &mut self,
        input: Index<Accessor>,
        output: Index<Accessor>,
        node: Index<Node>,
        path: json::animation::Property,
    ) {
        self.channels.push(json::animation::Channel {
            sampler: Index::new(self.samplers.len() as u32),
            target: json::animation::Target {
                node,
                path: Valid(path),
                extensions: None,
                extras: Default::default(),
            },
            extensions: None,
            extras: Default::default(),
        });
        self.samplers.push(json::animation::Sampler {
            input,
            interpolation: Valid(json::animation::Interpolation::Linear),
            output,
            extensions: None,
            extras: Default::default(),
        });
    }

    /// Adds the animation named `name` to `root`, unless it has no channel.
    fn push_to(self, root: &mut Root, name: &str) {
        if !self.channels.is_empty() {
            root.push(json::Animation {
                name: Some(name.to_owned()),
                channels: self.channels,
                samplers: self.samplers,
                extensions: None,
                extras: Default::default(),
            });
        }
    }
}
