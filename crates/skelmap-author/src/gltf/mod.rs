//! glTF 2.0 in: a `.gltf` (with its buffers and images beside it, or in `data:` URIs) or a
//! `.glb` read into a format-neutral [`Asset`].
//!
//! ```
//! use skelmap_author::gltf::{self, Options};
//! // One triangle, its three positions in a base64 `data:` URI.
//! let json = br#"{
//!   "asset": {"version": "2.0"},
//!   "buffers": [{"byteLength": 36,
//!     "uri": "data:application/octet-stream;base64,AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAA"}],
//!   "bufferViews": [{"buffer": 0, "byteLength": 36}],
//!   "accessors": [{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3"}],
//!   "meshes": [{"name": "tri", "primitives": [{"attributes": {"POSITION": 0}}]}],
//!   "nodes": [{"mesh": 0, "translation": [0, 0, 2]}],
//!   "scenes": [{"nodes": [0]}]
//! }"#;
//! let asset = gltf::from_slice(json, None, &Options::default())?;
//! assert_eq!((asset.num_vertices(), asset.num_triangles()), (3, 1));
//! // Placed by its node, with a flat normal computed.
//! assert_eq!(asset.meshes[0].positions[1], [1.0, 0.0, 2.0]);
//! assert_eq!(asset.meshes[0].normals[0], [0.0, 0.0, 1.0]);
//! # Ok::<(), gltf::Error>(())
//! ```
//!
//! # What becomes what
//!
//! - **Coordinates.** The asset is in the glTF scene's coordinates: [`UpAxis::Y`], metres as
//!   the file has them, [`Asset::frame`] `None`, [`Asset::format`] `"glTF"`.
//! - **Scene.** The default scene (else the first) is imported; a file without scenes shows
//!   every node. Cameras, lights and nodes of other scenes are ignored.
//! - **Meshes.** One asset mesh per triangle primitive of every mesh node of the scene (a
//!   mesh used by two nodes becomes two meshes), in node order. `POSITION` (required),
//!   `NORMAL`, one `TEXCOORD_n` (the set the material's base colour texture samples, else
//!   `TEXCOORD_0`), `COLOR_0` (float or normalised integers) are read; sparse
//!   accessors and quantised (integer) attributes are supported. Indexed and non-indexed
//!   `TRIANGLES`, `TRIANGLE_STRIP` and `TRIANGLE_FAN` (degenerate strip and fan triangles
//!   dropped) are read; primitives of points or lines are **skipped**. A primitive without
//!   `NORMAL` gets **flat** normals, as the glTF specification asks: its vertices are
//!   unwelded, one per triangle corner.
//! - **Placement.** A static mesh is placed by its node's model-space transform; when its node
//!   is a joint (see below) or hangs under one, it is bound wholly to that joint, so it
//!   follows the animation. A skinned mesh is placed in the space of its skin's root-most
//!   joint (see below). A mirroring transform reverses the triangles' winding.
//! - **Skins.** Every `JOINTS_n`/`WEIGHTS_n` set (`u8`/`u16` joints, float or normalised
//!   integer weights) feeds [`Influences::push`](skelmap_core::asset::Influences::push),
//!   which merges, drops non-positive weights and normalises. A positive weight on a joint
//!   the skin does not have is an error; a zero weight there is ignored.
//! - **Skeleton.** Joints are, in file order but parents before children: every skin's
//!   joints; every node of the scene that a translation, rotation or scale channel
//!   animates (so rigidly animated parts keep their motion); and every node below a joint
//!   (except a skinned mesh's leaf node). Joints that are not a skin's joint are listed in
//!   [`Skeleton::attachments`](skelmap_core::asset::Skeleton::attachments): attachment
//!   points, and the nodes static meshes are bound to.
//! - **Nodes above the skeleton** are folded into the root joints: a root joint's pose (at
//!   rest and in every key) is its parent's model-space rest transform times its own (a
//!   shear this creates from a non-uniform scale is lost). A skin's `skeleton` node that is
//!   one of its joints, above all its other joints, has an identity inverse bind matrix and
//!   is animated by nothing (nor is anything above it) is such a node too, and weights on
//!   it become [`UNBOUND`](skelmap_core::asset::UNBOUND) (they stay put): that is how
//!   skelmap's own exporter marks its `skelmap_root`, so an exported model comes back with
//!   its own joints.
//! - **Bind pose.** [`Joint::world`](skelmap_core::asset::Joint::world) is `A · IBM⁻¹`, the
//!   inverse of the joint's inverse bind matrix carried by `A`, the model-space rest
//!   transform of the skin's root-most joint times its inverse bind matrix; the skinned
//!   vertices are multiplied by `A` too, so posing the asset with its keys reproduces the
//!   glTF skinning exactly. A joint in no skin is bound at its parent's bind times its rest
//!   pose. When skins disagree on a joint's inverse bind matrix, the first skin's is kept.
//!   The joints' parent-relative rotation, translation and scale are the nodes' rest pose
//!   where it puts each joint at its bind transform (within 1e-4, relative), else the bind
//!   transform relative to the parent's: a skin's inverse bind matrices need not match the
//!   rest pose, and the joints' keys are the bind pose's
//!   ([`Joint`](skelmap_core::asset::Joint)). Joints a clip does not animate keep the rest
//!   pose in its frames either way.
//! - **Animations.** Each animation becomes a clip of joint keys sampled every `1 / fps`
//!   seconds from its earliest key to its latest (the last frame clamped to it), with
//!   `LINEAR` (spherical for rotations), `STEP` and `CUBICSPLINE` interpolation; joints a
//!   clip does not animate keep their rest pose. `first` runs over the clips in order;
//!   every clip loops. The rate is [`Options::fps`], or by default the clip's own (see
//!   there).
//! - **Morph targets.** A mesh with morph targets is built at its default weights (the
//!   node's, else the mesh's, else zeros). Each sampled frame of an animation that animates
//!   weights becomes one [`MorphTarget`](skelmap_core::asset::MorphTarget) of every morphing
//!   mesh (`Σ wᵢ · targetᵢ` added to the base, minus the mesh as built; normals too), and
//!   the animation a [`ClipKeys::Morph`] clip. An
//!   animation of both joints and weights gives two clips of its name, joints first.
//! - **Materials.** Each material's base colour factor and base colour texture (PNG, JPEG,
//!   BMP or TGA, decoded to RGBA8 into [`Asset::images`]); other maps are ignored. A base
//!   colour texture's `KHR_texture_transform` (offset, rotation, scale) is applied to the
//!   coordinates read of the primitives that use the material (the set it names). A
//!   texture without `source` (its image named by an extension only) leaves the material
//!   its colour.
//! - **Leniency.** A document the `gltf` crate's types refuse is read again with what the
//!   specification allows mended: integers written as `3.0`, `extras` that are not
//!   objects, a scene without `nodes`, and animation channels without a target `node`
//!   (`KHR_animation_pointer`): one whose pointer names a node's `translation`, `rotation`,
//!   `scale` or `weights` animates that node, the others are left out.
//!
//! # Safety against bad files
//!
//! The JSON is parsed by the `gltf` crate without its validation; this module checks every
//! index and range itself (each [`Error`] names the structure, index and field): accessors
//! against their buffer views and buffers (offset, stride, count, component type, sparse
//! indices), indices against the vertex count, the node graph for cycles and shared
//! children, skins' joints, finite positions, transforms, inverse bind matrices, animation
//! times and values (NaN or infinite normals, texture coordinates, colours and weights
//! become 0 and are counted in [`Asset::replaced_non_finite`]). External files must be
//! relative paths below the glTF's folder (no absolute paths, no `..`, no URI scheme).
//! Allocations are bounded by the `MAX_*` limits below; no loop runs longer than the
//! data it walks.

mod access;
mod anim;
mod error;
mod material;
mod mesh;
mod nodes;
mod source;

use std::path::Path;

use glam::Affine3A;
use skelmap_core::asset::{self, Asset, ClipKeys, UpAxis};

pub use error::{Error, Result};

/// Largest file read: the glTF, `.glb`, each external buffer or image, and all buffers
/// together (1 GiB).
pub const MAX_FILE_BYTES: u64 = 1 << 30;
/// Most accessor values (components) decoded over the whole import (64 Mi).
pub const MAX_VALUES_READ: u64 = 1 << 26;
/// Most vertices over all meshes (after unwelding), 4 Mi.
pub const MAX_VERTICES: u64 = 1 << 22;
/// Most triangles over all meshes, 4 Mi.
pub const MAX_TRIANGLES: u64 = 1 << 22;
/// Most primitives read: each of a mesh's primitives once for every node that shows the mesh
/// (64 Ki, the asset's meshes).
pub const MAX_PRIMITIVES: u64 = 1 << 16;
/// Most bytes of the asset's mesh names, a mesh's name copied once for each primitive shown
/// (16 MiB).
pub const MAX_NAME_BYTES: u64 = 16 << 20;
/// Most joints: every 16-bit index but [`UNBOUND`](skelmap_core::asset::UNBOUND).
pub const MAX_JOINTS: usize = u16::MAX as usize;
/// Most frames in one clip (64 Ki: nine minutes at 120 fps); joint keys over all clips are
/// further bounded by [`MAX_CLIP_KEYS`](skelmap_core::asset::MAX_CLIP_KEYS).
pub const MAX_FRAMES_PER_CLIP: u64 = 1 << 16;
/// Most curve samples in one clip: frames × channels, a weights channel counting one a
/// morph target it sets (2 Mi: a 100-joint character's 300 channels over four minutes at
/// 30 fps). Sampling is the importer's costliest step: the
/// `gltf_import` fuzz target found a file of two keys 836,131 seconds apart that the
/// earlier caps (1 Mi frames, 16 Mi samples) let take 2.4 s under AddressSanitizer.
pub const MAX_SAMPLES: u64 = 1 << 21;
/// Most morph target values: morph frames × (6 per morphing vertex + the weights), 32 Mi.
pub const MAX_MORPH_VALUES: u64 = 1 << 25;
/// Most displacements added to make the morph frames: over every frame and morphing
/// primitive, its vertices × (1 + the targets the frame weighs), 256 Mi (a face of 5,000
/// vertices and 50 targets over 1,000 frames).
pub const MAX_MORPH_BLENDS: u64 = 1 << 28;
/// Widest and tallest decoded image.
pub const MAX_IMAGE_SIDE: u32 = 4096;
/// Most bytes of decoded images, one or all together (64 MiB).
pub const MAX_IMAGE_BYTES: u64 = 64 << 20;
/// Highest rate the default rule picks.
pub const MAX_DEFAULT_FPS: f32 = 120.0;
/// Lowest rate the default rule picks.
pub const MIN_DEFAULT_FPS: f32 = 1.0;
/// The rate of a clip whose keys all fall at one time (one frame).
pub const FALLBACK_FPS: f32 = 30.0;

/// Required extensions this importer can ignore or implements (prefixes).
const KNOWN_EXTENSIONS: [&str; 4] = [
    "KHR_mesh_quantization",
    "KHR_texture_transform",
    "KHR_materials_",
    "KHR_lights_punctual",
];

/// How to import.
///
/// ```
/// let options = skelmap_author::gltf::Options { fps: Some(30.0), ..Default::default() };
/// assert!(!options.no_animations);
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Options {
    /// Frames per second at which animations are sampled. `None` (the default): each clip's
    /// own rate. When its key times (all channels' together) are evenly spaced (gaps within
    /// 1 % of each other), their rate; otherwise one over the smallest gap between two key
    /// times. Either way limited to [`MIN_DEFAULT_FPS`]..=[`MAX_DEFAULT_FPS`] and rounded to
    /// a whole number when within 0.001 of one; a clip whose keys fall at one time gets
    /// [`FALLBACK_FPS`] and one frame.
    pub fps: Option<f32>,
    /// Build no clips (and so no morph targets). The skeleton stays the same.
    pub no_animations: bool,
}

/// Imports the `.gltf` or `.glb` at `path`, resolving its external buffers and images
/// relative to its folder.
///
/// ```
/// use skelmap_author::gltf::{self, Error, Options};
/// let dir = std::env::temp_dir().join("skelmap-author-doc-import");
/// std::fs::create_dir_all(&dir)?;
/// let path = dir.join("model.gltf");
/// std::fs::write(&path, br#"{"asset":{"version":"2.0"},
///   "buffers":[{"byteLength":36,"uri":"missing.bin"}]}"#)?;
/// // The buffer is looked for beside the file, and is not there.
/// let err = gltf::import(&path, &Options::default()).unwrap_err();
/// assert!(matches!(&err, Error::Io { path, .. } if path.ends_with("missing.bin")));
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
///
/// [`Error::Io`] when the file or one it names cannot be read; otherwise as [`from_slice`].
pub fn import(path: &Path, options: &Options) -> Result<Asset> {
    let bytes = source::read_file(path)?;
    let base = path.parent().unwrap_or(Path::new("."));
    from_slice(&bytes, Some(base), options)
}

/// Imports a glTF held in memory: a `.glb` (recognised by its magic) or glTF JSON. External
/// files are looked for below `base`; without one, only `data:` URIs and the GLB binary
/// chunk can hold data.
///
/// ```
/// use skelmap_author::gltf::{self, Error, Options};
/// let json = br#"{"asset":{"version":"2.0"},"buffers":[{"byteLength":4,"uri":"a.bin"}]}"#;
/// let err = gltf::from_slice(json, None, &Options::default()).unwrap_err();
/// assert!(matches!(err, Error::Buffer { index: 0, field: "uri", .. }));
/// ```
///
/// # Errors
///
/// Any [`Error`]: a malformed container or JSON, a refused URI, a structure that does not
/// hold together (each variant names it), or a file past the `MAX_*` limits.
pub fn from_slice(bytes: &[u8], base: Option<&Path>, options: &Options) -> Result<Asset> {
    if let Some(fps) = options.fps
        && !(fps.is_finite() && fps > 0.0)
    {
        return Err(Error::Options {
            field: "fps",
            problem: format!("{fps} is not a positive rate"),
        });
    }
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(Error::Limit {
            what: "bytes in one file",
            found: bytes.len() as u64,
            limit: MAX_FILE_BYTES,
        });
    }
    let (json, bin) = if bytes.starts_with(b"glTF") {
        source::split_glb(bytes)?
    } else {
        (bytes, None)
    };
    let root = source::parse_json(json)?;
    if let Some(unknown) = root
        .extensions_required
        .iter()
        .find(|e| !KNOWN_EXTENSIONS.iter().any(|k| e.starts_with(k)))
    {
        return Err(Error::Extension(unknown.clone()));
    }
    let buffers = source::load_buffers(&root, bin, base)?;
    let mut doc = access::Doc::new(root, buffers);
    build(&mut doc, base, options)
}

/// One primitive where the asset shows it.
struct Instance {
    prim: mesh::Primitive,
    place: Affine3A,
    bound: Option<u16>,
    /// Its node's entry among the morph nodes.
    morph: Option<usize>,
    mesh: usize,
    primitive: usize,
}

fn build(doc: &mut access::Doc<'_>, base: Option<&Path>, options: &Options) -> Result<Asset> {
    let tree = nodes::tree(doc)?;
    let shown = nodes::scene_nodes(doc, &tree)?;
    let animated = anim::animated_nodes(doc)?;
    let rig = nodes::rig(doc, &tree, &shown, &animated)?;
    let (materials, images) = material::materials(doc, base)?;
    let (instances, morphs) = instances(doc, &tree, &shown, &rig)?;
    let animations = if options.no_animations {
        anim::Animations {
            clips: Vec::new(),
            morph_frames: Vec::new(),
        }
    } else {
        let morph_vertices = instances
            .iter()
            .filter(|i| i.morph.is_some())
            .map(|i| i.prim.vertices() as u64)
            .sum();
        anim::animations(doc, &tree, &rig, &morphs, options.fps, morph_vertices)?
    };

    let meshes = meshes(&instances, &morphs, &animations)?;
    let mut asset = Asset {
        format: "glTF",
        up: UpAxis::Y,
        // glTF models face +Z by the specification's convention.
        front: [0.0, 0.0, 1.0],
        meshes,
        materials,
        images,
        skeleton: rig.skeleton,
        clips: animations.clips,
        tags: Vec::new(),
        frame: None,
        at: None,
        given_pose: false,
        replaced_non_finite: doc.replaced,
        code_page: Default::default(),
    };
    asset.replaced_non_finite += sanitise(&mut asset);
    Ok(asset)
}

/// Every primitive of every shown node, placed, with the morph nodes their targets belong to
/// (each with its default weights); at most [`MAX_PRIMITIVES`], [`MAX_VERTICES`],
/// [`MAX_TRIANGLES`] and [`MAX_NAME_BYTES`] in all.
fn instances(
    doc: &mut access::Doc<'_>,
    tree: &nodes::Tree,
    shown: &[bool],
    rig: &nodes::Rig,
) -> Result<(Vec<Instance>, Vec<anim::MorphNode>)> {
    let mut instances: Vec<Instance> = Vec::new();
    let mut morphs: Vec<anim::MorphNode> = Vec::new();
    // Each morph node's index in `morphs`.
    let mut morph_of: std::collections::HashMap<usize, usize> = Default::default();
    let (mut vertices, mut triangles) = (0u64, 0u64);
    // Primitives visited and the bytes of the names their meshes copy: a mesh of many empty
    // primitives, or of a long name, shown by many nodes adds no vertex.
    let (mut primitives, mut name_bytes) = (0u64, 0u64);
    for node in (0..doc.root.nodes.len()).filter(|&i| shown[i]) {
        let (Some(m), skin) = (
            doc.root.nodes[node].mesh.map(|m| m.value()),
            doc.root.nodes[node].skin.map(|s| s.value()),
        ) else {
            continue;
        };
        for p in 0..doc.root.meshes[m].primitives.len() {
            primitives += 1;
            if primitives > MAX_PRIMITIVES {
                return Err(Error::Limit {
                    what: "primitives shown (a mesh's once a node showing it)",
                    found: primitives,
                    limit: MAX_PRIMITIVES,
                });
            }
            let context = skin
                .and_then(|s| rig.skins.get(s))
                .map(|s| (s, &rig.joint_of[..]));
            let Some(prim) = mesh::read(doc, m, p, context)? else {
                continue;
            };
            vertices += prim.vertices() as u64;
            triangles += prim.triangles.len() as u64;
            name_bytes += prim.name.len() as u64;
            if name_bytes > MAX_NAME_BYTES {
                return Err(Error::Limit {
                    what: "bytes of mesh names (a primitive's once a node showing it)",
                    found: name_bytes,
                    limit: MAX_NAME_BYTES,
                });
            }
            if vertices > MAX_VERTICES {
                return Err(Error::Limit {
                    what: "vertices",
                    found: vertices,
                    limit: MAX_VERTICES,
                });
            }
            if triangles > MAX_TRIANGLES {
                return Err(Error::Limit {
                    what: "triangles",
                    found: triangles,
                    limit: MAX_TRIANGLES,
                });
            }
            let (place, bound) = match skin.and_then(|s| rig.skins.get(s)) {
                Some(s) if !prim.influences.is_empty() => (s.to_asset, None),
                _ => rig.place(tree, node),
            };
            let morph = if prim.targets.is_empty() {
                None
            } else {
                let k = match morph_of.get(&node) {
                    Some(&k) => k,
                    None => {
                        morph_of.insert(node, morphs.len());
                        morphs.push(anim::MorphNode {
                            node,
                            targets: 0,
                            default: Vec::new(),
                        });
                        morphs.len() - 1
                    }
                };
                morphs[k].targets = morphs[k].targets.max(prim.targets.len());
                Some(k)
            };
            instances.push(Instance {
                prim,
                place,
                bound,
                morph,
                mesh: m,
                primitive: p,
            });
        }
    }
    for morph in &mut morphs {
        let n = &doc.root.nodes[morph.node];
        let weights = n.weights.as_ref().or_else(|| {
            n.mesh
                .and_then(|m| doc.root.meshes.get(m.value()))
                .and_then(|m| m.weights.as_ref())
        });
        morph.default = (0..morph.targets)
            .map(|k| weights.and_then(|w| w.get(k)).copied().unwrap_or(0.0))
            .map(|w| if w.is_finite() { w } else { 0.0 })
            .collect();
    }

    Ok((instances, morphs))
}

/// The asset's meshes: each instance at its morph node's default weights, with one target
/// per morph frame of the animations.
fn meshes(
    instances: &[Instance],
    morphs: &[anim::MorphNode],
    animations: &anim::Animations,
) -> Result<Vec<asset::Mesh>> {
    morph_blends(instances, morphs, animations)?;
    let mut meshes = Vec::with_capacity(instances.len());
    for instance in instances {
        let default = instance
            .morph
            .and_then(|k| morphs.get(k))
            .map_or(&[][..], |m| &m.default[..]);
        let mut built = instance
            .prim
            .to_mesh(default, &instance.place, instance.bound);
        if let Some(k) = built
            .positions
            .iter()
            .position(|p| !p.iter().all(|c| c.is_finite()))
        {
            return Err(Error::Mesh {
                index: instance.mesh,
                primitive: instance.primitive,
                field: "POSITION",
                problem: format!("vertex {k} is placed out of range"),
            });
        }
        if let Some(k) = instance.morph {
            for (f, frame) in animations.morph_frames.iter().enumerate() {
                let weights = frame.get(k).map_or(default, |w| &w[..]);
                let target = instance.prim.target(
                    format!("morph frame {f}"),
                    weights,
                    &instance.place,
                    &built,
                );
                built.targets.push(target);
            }
        }
        meshes.push(built);
    }
    Ok(meshes)
}

/// Refuses morph frames past [`MAX_MORPH_BLENDS`]: each frame shapes each morphing
/// primitive, adding a displacement a vertex for each target the frame weighs. Counted per
/// morph node from the frames' weights (the sampled weights, bounded by
/// [`MAX_MORPH_VALUES`]) before any shape is made.
fn morph_blends(
    instances: &[Instance],
    morphs: &[anim::MorphNode],
    animations: &anim::Animations,
) -> Result<()> {
    // Per morph node: the frames, and the targets they weigh, summed over the frames.
    let mut per_node = vec![0u64; morphs.len()];
    for (k, (node, sum)) in morphs.iter().zip(&mut per_node).enumerate() {
        for frame in &animations.morph_frames {
            let weights = frame.get(k).map_or(&node.default[..], |w| &w[..]);
            *sum += 1 + weights.iter().filter(|&&w| w != 0.0).count() as u64;
        }
    }
    let blends = instances
        .iter()
        .filter_map(|i| Some(i.prim.vertices() as u64 * per_node.get(i.morph?)?))
        .fold(0u64, u64::saturating_add);
    if blends > MAX_MORPH_BLENDS {
        return Err(Error::Limit {
            what: "morph blends (frames × vertices × targets weighed)",
            found: blends,
            limit: MAX_MORPH_BLENDS,
        });
    }
    Ok(())
}

/// Replaces numbers that overflowed while combining finite ones (morph sums, folded keys)
/// and counts them.
fn sanitise(asset: &mut Asset) -> usize {
    let mut replaced = 0;
    let mut fix = |v: &mut [f32], to: f32| {
        for x in v.iter_mut().filter(|x| !x.is_finite()) {
            *x = to;
            replaced += 1;
        }
    };
    for mesh in &mut asset.meshes {
        for t in &mut mesh.targets {
            fix(t.positions.as_flattened_mut(), 0.0);
            fix(t.normals.as_flattened_mut(), 0.0);
        }
    }
    for clip in &mut asset.clips {
        if let ClipKeys::Joints(frames) = &mut clip.keys {
            for key in frames.iter_mut().flatten() {
                if !key.rotation.is_finite() {
                    key.rotation = glam::Quat::IDENTITY;
                    replaced += 1;
                }
                if !key.translation.is_finite() {
                    key.translation = glam::Vec3::ZERO;
                    replaced += 1;
                }
                if !key.scale.is_finite() {
                    key.scale = glam::Vec3::ONE;
                    replaced += 1;
                }
            }
        }
    }
    if let Some(skeleton) = asset.skeleton.as_mut() {
        for joint in &mut skeleton.joints {
            if !(joint.rotation.is_finite()
                && joint.translation.is_finite()
                && joint.scale.is_finite())
            {
                joint.rotation = glam::Quat::IDENTITY;
                joint.translation = glam::Vec3::ZERO;
                joint.scale = glam::Vec3::ONE;
                replaced += 1;
            }
        }
    }
    replaced
}
