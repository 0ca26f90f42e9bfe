//! Writing `.md5mesh` and `.md5anim` text: [`Builder`] holds a skeleton in its bind pose,
//! meshes of weighted vertices and animations, and prints them as Doom 3's `MD5Version 10`
//! files; [`Builder::from_asset`] makes one from any [`Asset`].
//!
//! Numbers are printed as Rust prints `f32` (the shortest text that reads back to the same
//! bits), so a written file reads back exactly. Rotations are stored as Doom 3 stores them:
//! `x, y, z` of the unit quaternion made to have `w ≤ 0` (`q` and `−q` are one rotation), so
//! readers recover `w = −√(1 − x² − y² − z²)` ([`rotation`](super::validate::rotation)).
//! Triangles are written clockwise seen from the front, as Doom 3 winds them (the reverse of
//! the counter-clockwise order [`Mesh`](super::Mesh) and assets hold).

use std::fmt::Write as _;

use glam::{Affine3A, Quat, Vec3, Vec3A};

use super::raw::{ANIM_QX, ANIM_QY, ANIM_QZ, ANIM_TX, ANIM_TY, ANIM_TZ};
use crate::asset::{Asset, ClipKeys, FitError, Fitted, JointKey, UNBOUND, UpAxis};
use crate::format::Format;

/// A joint: its name, parent (an earlier joint, or `None`) and bind pose in model space.
#[derive(Debug, Clone, PartialEq)]
pub struct JointDef {
    /// The name.
    pub name: String,
    /// The parent, an earlier joint.
    pub parent: Option<usize>,
    /// Position in model space.
    pub position: Vec3,
    /// Orientation in model space, unit length.
    pub orientation: Quat,
}

/// One weight of a vertex: a joint, its share, and the vertex's position in the joint's
/// bind space.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WeightDef {
    /// The joint.
    pub joint: usize,
    /// The share of the vertex (the weights of a vertex sum to 1).
    pub bias: f32,
    /// The position in the joint's bind space.
    pub position: Vec3,
}

/// A vertex: texture coordinate and weights (at least one).
#[derive(Debug, Clone, PartialEq)]
pub struct VertexDef {
    /// Texture coordinate, `v` down the image.
    pub st: [f32; 2],
    /// The weights.
    pub weights: Vec<WeightDef>,
}

/// A mesh: its shader, vertices and triangles (counter-clockwise seen from the front; written
/// clockwise, as Doom 3 winds them).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MeshDef {
    /// The shader (a material name, or a texture path).
    pub shader: String,
    /// The vertices.
    pub vertices: Vec<VertexDef>,
    /// The triangles, counter-clockwise.
    pub triangles: Vec<[u32; 3]>,
}

/// An animation: its name (the file is named `<stem>-<name>.md5anim`), rate, and per frame
/// each joint's parent-relative pose.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AnimDef {
    /// The name.
    pub name: String,
    /// Frames a second.
    pub frame_rate: f32,
    /// Per frame, per joint: rotation (unit) and translation relative to the parent.
    pub frames: Vec<Vec<(Quat, Vec3)>>,
    /// Per frame, the box the posed meshes fill (`[min, max]`).
    pub bounds: Vec<[Vec3; 2]>,
    /// Per frame, each joint's skin scale (the Quake II remaster's `.md5scale`: the joint's
    /// own vertices scaled about it, its children not), written beside the animation by
    /// [`scale_text`](Builder::scale_text); empty for none.
    pub skin_scales: Vec<Vec<f32>>,
}

/// What a Doom 3 model is made of, ready to print (see the [module docs](self)).
///
/// ```
/// use skelmap_core::md5::{MeshFile, write::Builder};
/// use skelmap_core::Parse;
/// let builder = Builder::triangle();
/// let text = builder.mesh_text();
/// let file = MeshFile::parse(text.as_bytes())?;
/// assert_eq!((file.num_joints(), file.mesh(0).unwrap().num_verts()), (1, 3));
/// # Ok::<(), skelmap_core::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Builder {
    /// The `commandline` line.
    pub commandline: String,
    /// The joints, parents first.
    pub joints: Vec<JointDef>,
    /// The meshes.
    pub meshes: Vec<MeshDef>,
    /// The animations, each its own file.
    pub anims: Vec<AnimDef>,
}

/// A quaternion's `x y z` as MD5 stores them: of the unit rotation with `w ≤ 0`, a zero
/// printed `0`, not `-0` (adding `+0` makes `−0` positive and changes nothing else), each
/// the nearest `f32` or the one next to it on either side: of those triples, the one whose
/// rotation as readers recover it ([`rotation`](super::validate::rotation): `w` from the
/// other three) lies nearest the rotation, the nearest `f32`s where none within unit length
/// is nearer.
///
/// Near half a turn `w` is small, and the square root that recovers it from `1 − x² − y²
/// − z²` magnifies the rounding of the other three: with the nearest `f32`s, a rotation
/// whose `w` is −2.8·10⁻⁴ (a Half-Life weapon's bone, 5.6·10⁻⁴ short of half a turn) comes
/// back as half a turn, its squares summing to 1. A neighbouring triple whose squares sum
/// to one `f32` step below 1 gives back `w` = −2.4·10⁻⁴.
fn stored(q: Quat) -> [f32; 3] {
    let q = q.normalize();
    let q = if q.w > 0.0 { -q } else { q };
    let nearest = [q.x + 0.0, q.y + 0.0, q.z + 0.0];
    let target = q.as_dquat();
    let off =
        |xyz: [f32; 3]| (super::validate::rotation(xyz).0.as_dquat() - target).length_squared();
    // A zero stays zero: its neighbours are the smallest subnormals, which move nothing.
    let around = |v: f32| {
        if v == 0.0 {
            [v; 3]
        } else {
            [v, v.next_down(), v.next_up()]
        }
    };
    let [xs, ys, zs] = nearest.map(around);
    let mut best = (off(nearest), nearest);
    for x in xs {
        for y in ys {
            for z in zs {
                // Squares past 1 leave `w` to the reader's rule (Doom 3 takes the root of
                // the magnitude, assimp 0): only triples within unit length are taken.
                let within = 1.0 - (x * x + y * y + z * z) >= 0.0;
                let d = off([x, y, z]);
                if within && d < best.0 {
                    best = (d, [x, y, z]);
                }
            }
        }
    }
    best.1
}

/// `( a b c )`.
fn vector(out: &mut String, v: &[f32]) {
    out.push('(');
    for x in v {
        let _ = write!(out, " {x}");
    }
    out.push_str(" )");
}

/// A name as a quoted string: MD5 strings have no escapes, so quotes and line ends become
/// `_`.
fn quoted(name: &str) -> String {
    let clean: String = name
        .chars()
        .map(|c| {
            if matches!(c, '"' | '\n' | '\r') {
                '_'
            } else {
                c
            }
        })
        .collect();
    format!("\"{clean}\"")
}

impl Builder {
    /// A model of one joint and one triangle (fixtures, seeds, examples).
    #[must_use]
    pub fn triangle() -> Builder {
        let weight = |x, y| WeightDef {
            joint: 0,
            bias: 1.0,
            position: Vec3::new(x, y, 0.0),
        };
        Builder {
            commandline: String::new(),
            joints: vec![JointDef {
                name: "root".into(),
                parent: None,
                position: Vec3::ZERO,
                orientation: Quat::IDENTITY,
            }],
            meshes: vec![MeshDef {
                shader: "triangle".into(),
                vertices: [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0)]
                    .into_iter()
                    .map(|(x, y)| VertexDef {
                        st: [x, y],
                        weights: vec![weight(x, y)],
                    })
                    .collect(),
                triangles: vec![[0, 1, 2]],
            }],
            anims: Vec::new(),
        }
    }

    /// The `.md5mesh` text.
    #[must_use]
    pub fn mesh_text(&self) -> String {
        let mut t = String::new();
        let _ = write!(
            t,
            "MD5Version 10\ncommandline {}\n\nnumJoints {}\nnumMeshes {}\n\njoints {{\n",
            quoted(&self.commandline),
            self.joints.len(),
            self.meshes.len()
        );
        for j in &self.joints {
            let parent = j.parent.map_or(-1, |p| p as i64);
            let _ = write!(t, "\t{} {parent} ", quoted(&j.name));
            vector(&mut t, &j.position.to_array());
            t.push(' ');
            vector(&mut t, &stored(j.orientation));
            t.push('\n');
        }
        t.push_str("}\n");
        for m in &self.meshes {
            let _ = write!(
                t,
                "\nmesh {{\n\tshader {}\n\n\tnumverts {}\n",
                quoted(&m.shader),
                m.vertices.len()
            );
            let mut first = 0;
            for (i, v) in m.vertices.iter().enumerate() {
                let _ = write!(t, "\tvert {i} ");
                vector(&mut t, &v.st);
                let _ = writeln!(t, " {first} {}", v.weights.len());
                first += v.weights.len();
            }
            let _ = write!(t, "\n\tnumtris {}\n", m.triangles.len());
            for (i, [a, b, c]) in m.triangles.iter().enumerate() {
                let _ = writeln!(t, "\ttri {i} {c} {b} {a}");
            }
            let _ = write!(t, "\n\tnumweights {first}\n");
            let weights = m.vertices.iter().flat_map(|v| &v.weights);
            for (i, w) in weights.enumerate() {
                let _ = write!(t, "\tweight {i} {} {} ", w.joint, w.bias);
                vector(&mut t, &w.position.to_array());
                t.push('\n');
            }
            t.push_str("}\n");
        }
        t
    }

    /// The `.md5anim` text of animation `index`, or `None` past the last.
    #[must_use]
    pub fn anim_text(&self, index: usize) -> Option<String> {
        let anim = self.anims.get(index)?;
        let base = anim.frames.first()?;
        // A joint stores a component when some frame's differs from the first frame's.
        let parts = |(q, t): &(Quat, Vec3)| {
            let [x, y, z] = stored(*q);
            [t.x, t.y, t.z, x, y, z]
        };
        let bits = [ANIM_TX, ANIM_TY, ANIM_TZ, ANIM_QX, ANIM_QY, ANIM_QZ];
        let mut flags = vec![0u32; self.joints.len()];
        for frame in &anim.frames {
            for (j, (pose, first)) in frame.iter().zip(base).enumerate() {
                let (a, b) = (parts(pose), parts(first));
                for (k, bit) in bits.iter().enumerate() {
                    if a[k].to_bits() != b[k].to_bits()
                        && let Some(f) = flags.get_mut(j)
                    {
                        *f |= bit;
                    }
                }
            }
        }
        let components: u32 = flags.iter().map(|f| f.count_ones()).sum();
        let mut t = String::new();
        let _ = write!(
            t,
            "MD5Version 10\ncommandline {}\n\nnumFrames {}\nnumJoints {}\nframeRate {}\n\
             numAnimatedComponents {components}\n\nhierarchy {{\n",
            quoted(&self.commandline),
            anim.frames.len(),
            self.joints.len(),
            anim.frame_rate
        );
        let mut start = 0;
        for (j, f) in self.joints.iter().zip(&flags) {
            let parent = j.parent.map_or(-1, |p| p as i64);
            let first = if *f == 0 { 0 } else { start };
            let _ = writeln!(t, "\t{} {parent} {f} {first}", quoted(&j.name));
            start += f.count_ones();
        }
        t.push_str("}\n\nbounds {\n");
        for f in 0..anim.frames.len() {
            let [min, max] = anim.bounds.get(f).copied().unwrap_or([Vec3::ZERO; 2]);
            t.push('\t');
            vector(&mut t, &min.to_array());
            t.push(' ');
            vector(&mut t, &max.to_array());
            t.push('\n');
        }
        t.push_str("}\n\nbaseframe {\n");
        for pose in base {
            let p = parts(pose);
            t.push('\t');
            vector(&mut t, &p[..3]);
            t.push(' ');
            vector(&mut t, &p[3..]);
            t.push('\n');
        }
        t.push_str("}\n");
        for (i, frame) in anim.frames.iter().enumerate() {
            let _ = write!(t, "\nframe {i} {{\n\t");
            let mut any = false;
            for (pose, f) in frame.iter().zip(&flags) {
                let p = parts(pose);
                for (k, bit) in bits.iter().enumerate() {
                    if f & bit != 0 {
                        if any {
                            t.push(' ');
                        }
                        let _ = write!(t, "{}", p[k]);
                        any = true;
                    }
                }
            }
            t.push_str("\n}\n");
        }
        Some(t)
    }

    /// The `.md5scale` JSON of animation `index` (`{ "<joint>": { "<frame>": scale } }`, the
    /// frames whose scale is not 1), or `None` when it has no skin scale other than 1 (or
    /// there is no such animation).
    #[must_use]
    pub fn scale_text(&self, index: usize) -> Option<String> {
        let anim = self.anims.get(index)?;
        let mut joints = serde_json::Map::new();
        for (j, joint) in self.joints.iter().enumerate() {
            let frames: serde_json::Map<String, serde_json::Value> = (anim.skin_scales.iter())
                .enumerate()
                .filter_map(|(f, scales)| {
                    let s = scales.get(j).copied().filter(|&s| s != 1.0)?;
                    Some((f.to_string(), serde_json::Value::from(f64::from(s))))
                })
                .collect();
            if !frames.is_empty() {
                joints.insert(joint.name.clone(), frames.into());
            }
        }
        (!joints.is_empty()).then(|| serde_json::Value::from(joints).to_string())
    }

    /// A model from `asset`: the skeleton in its bind pose (or one root joint for an asset
    /// without one), each mesh's vertices with the weights they have (zero weights dropped,
    /// none refused: MD5 has no cap per vertex), positions in each joint's bind space, and an
    /// animation per clip of joint keys, all turned to MD5's `+Z` up. A vertex of a skinned
    /// asset bound to no joint (no influences, or a share on
    /// [`UNBOUND`], as a glTF's zero-weight vertices are) stays where
    /// it is, as [`Mesh::skin`](crate::asset::Mesh::skin) keeps it: its share goes to a joint
    /// added after the others at the origin, which no animation moves. What MD5 cannot hold
    /// is said in the losses: scale (joints and keys are rotation and translation only; the
    /// frames that scale and the farthest a vertex moves for it, over every frame), normals
    /// (derived by readers), vertex colours. A leaf joint that scales
    /// uniformly, alone of its line (as [`Model::to_asset`](crate::Model::to_asset) carries an
    /// MD5's skin scales), keeps its scale as a skin scale ([`AnimDef::skin_scales`], the
    /// `.md5scale` beside each animation): its weights are given in its scaled bind space.
    ///
    /// # Errors
    ///
    /// [`FitError`] when a vertex names a joint the skeleton lacks, or for vertex animation
    /// (morph-target clips), which MD5 cannot hold.
    pub fn from_asset(asset: &Asset) -> Result<Fitted<Builder>, FitError> {
        asset.refuse_vertex_animation("MD5")?;
        // Doom 3's axes: +Z up.
        let asset = asset.with_up(UpAxis::Z);
        // A vertex of a skinned asset bound to no joint: to a joint added at the origin.
        let (asset, still) = asset.with_still_joint();
        let asset = asset.as_ref();
        let skeleton = asset.skeleton_or_root();
        let mut losses: Vec<String> = still.into_iter().collect();
        let mut scaled = false;
        let skin = skin_joints(&skeleton, &asset.clips);
        let joints: Vec<JointDef> = skeleton
            .joints
            .iter()
            .enumerate()
            .map(|(i, j)| {
                let (scale, orientation, position) = j.world.to_scale_rotation_translation();
                scaled |= (scale - Vec3::ONE).abs().max_element() > 1e-6
                    && skin.get(i).is_none_or(Option::is_none);
                JointDef {
                    name: j.name.clone(),
                    parent: j.parent.filter(|&p| p < i),
                    position,
                    orientation: orientation.normalize(),
                }
            })
            .collect();
        // Each joint's bind transform as MD5 keeps it (no scale), and its inverse; a skin
        // joint's weights are in its scaled bind space, which its skin scales then scale.
        let inverse: Vec<Affine3A> = joints
            .iter()
            .enumerate()
            .map(|(i, j)| {
                let inverse =
                    Affine3A::from_rotation_translation(j.orientation, j.position).inverse();
                match skin.get(i).copied().flatten() {
                    Some(s) => Affine3A::from_scale(Vec3::splat(1.0 / s)) * inverse,
                    None => inverse,
                }
            })
            .collect();
        let mut meshes = Vec::with_capacity(asset.meshes.len());
        for mesh in &asset.meshes {
            let mut vertices = Vec::with_capacity(mesh.positions.len());
            for (v, p) in mesh.positions.iter().enumerate() {
                let st = mesh
                    .uvs
                    .as_ref()
                    .and_then(|u| u.get(v))
                    .copied()
                    .unwrap_or_default();
                let own = shares(mesh, v);
                let mut weights = Vec::with_capacity(own.len());
                for (joint, bias) in own {
                    let joint = match joint {
                        // Only an asset without a skeleton has such shares left: its root.
                        UNBOUND => 0,
                        j if usize::from(j) < skeleton.joints.len() => usize::from(j),
                        j => {
                            return Err(FitError::new(
                                "MD5",
                                format!("a vertex of mesh {:?} naming joint {j}", mesh.name),
                                format!("the skeleton's {} joints", skeleton.joints.len()),
                                "give the asset the skeleton its influences name",
                            ));
                        }
                    };
                    let inv = inverse.get(joint).copied().unwrap_or_default();
                    let position = Vec3::from(inv.transform_point3a(Vec3A::from(*p)));
                    weights.push(WeightDef {
                        joint,
                        bias,
                        position,
                    });
                }
                vertices.push(VertexDef { st, weights });
            }
            let shader = asset.material_name(mesh);
            meshes.push(MeshDef {
                shader,
                vertices,
                triangles: mesh.triangles.clone(),
            });
            if mesh.colors.is_some() {
                losses.push(format!(
                    "MD5 has no vertex colours: mesh {:?}'s were left out",
                    mesh.name
                ));
            }
        }
        let mut anims = Vec::new();
        // Frames that scale a joint, and the farthest a vertex lands from where the asset
        // puts it for want of scale, over every frame.
        let (mut scaled_frames, mut total_frames, mut farthest) = (0usize, 0usize, 0.0f32);
        for clip in &asset.clips {
            // Morph-target clips were refused above; an empty one holds nothing to write.
            let ClipKeys::Joints(frames) = &clip.keys else {
                continue;
            };
            let mut posed = Vec::with_capacity(frames.len());
            let mut bounds = Vec::with_capacity(frames.len());
            let mut skin_scales = Vec::new();
            for keys in frames {
                let pose: Vec<(Quat, Vec3)> = keys
                    .iter()
                    .map(|k| (k.rotation.normalize(), k.translation))
                    .collect();
                // Each joint's skin scale: a skin joint's key scale, else 1.
                let own: Vec<f32> = (keys.iter().zip(&skin))
                    .map(|(k, s)| if s.is_some() { k.scale.x } else { 1.0 })
                    .collect();
                let ours = skinned(asset, &skeleton, &inverse, (&pose, &own));
                total_frames += 1;
                let scales = (keys.iter().zip(&skin))
                    .any(|(k, s)| s.is_none() && (k.scale - Vec3::ONE).abs().max_element() > 1e-6);
                if scales || scaled {
                    scaled_frames += usize::from(scales);
                    let matrices = skeleton.skin_matrices(keys);
                    let theirs = asset
                        .meshes
                        .iter()
                        .flat_map(|m| m.skin(&matrices).positions);
                    for (a, b) in ours.iter().zip(theirs) {
                        farthest = farthest.max(a.distance(Vec3::from(b)));
                    }
                }
                bounds.push(bounds_of(&ours));
                posed.push(pose);
                if skin.iter().any(Option::is_some) {
                    skin_scales.push(own);
                }
            }
            anims.push(AnimDef {
                name: clip.name.clone(),
                frame_rate: if clip.fps > 0.0 { clip.fps } else { 24.0 },
                frames: posed,
                bounds,
                skin_scales,
            });
        }
        if scaled || scaled_frames > 0 {
            let bind = if scaled {
                "the bind pose scales a joint (vertices are placed exactly: each weight is \
                 given in its joint's unscaled space) and "
            } else {
                ""
            };
            losses.push(format!(
                "MD5 joints cannot scale: {bind}{scaled_frames} of {total_frames} frames scale \
                 a joint; without scale a vertex lands up to {farthest:.3e} from where the \
                 asset puts it (IQM keeps scale)"
            ));
        }
        losses.push("MD5 stores no normals: readers derive them from the triangles".to_string());
        Ok(Fitted {
            builder: Builder {
                commandline: String::new(),
                joints,
                meshes,
                anims,
            },
            losses,
        })
    }
}

/// The shares of vertex `v` of `mesh` an MD5 file stores: its positive influences, or all of
/// it on [`UNBOUND`] when it has none.
fn shares(mesh: &crate::asset::Mesh, v: usize) -> Vec<(u16, f32)> {
    let own: Vec<(u16, f32)> = mesh
        .influences
        .of(v)
        .iter()
        .copied()
        .filter(|&(_, w)| w > 0.0)
        .collect();
    if own.is_empty() {
        vec![(UNBOUND, 1.0)]
    } else {
        own
    }
}

/// Per joint of `skeleton`, its bind scale if it is a skin joint: a leaf that scales, whose
/// bind transform and every key of `clips` scale it uniformly (its bind by a scale whose
/// inverse is finite),
/// while no joint above it scales, at the bind or in a key; else `None`.
fn skin_joints(
    skeleton: &crate::asset::Skeleton,
    clips: &[crate::asset::Clip],
) -> Vec<Option<f32>> {
    let joints = &skeleton.joints;
    let uniform = |v: Vec3| {
        let tolerance = 1e-6 * v.x.abs().max(1.0);
        ((v.x - v.y).abs() <= tolerance && (v.x - v.z).abs() <= tolerance && v.x >= 0.0)
            .then_some(v.x)
    };
    let keys = || {
        clips.iter().flat_map(|c| match &c.keys {
            ClipKeys::Joints(frames) => frames.as_slice(),
            ClipKeys::Morph(_) => &[],
        })
    };
    let still = |j: usize| {
        let one = |v: Vec3| (v - Vec3::ONE).abs().max_element() <= 1e-6;
        joints
            .get(j)
            .is_some_and(|joint| one(joint.world.to_scale_rotation_translation().0))
            && keys().all(|k| k.get(j).is_none_or(|k| one(k.scale)))
    };
    let mut parent = vec![false; joints.len()];
    for p in joints.iter().filter_map(|j| j.parent) {
        if let Some(flag) = parent.get_mut(p) {
            *flag = true;
        }
    }
    (0..joints.len())
        .map(|j| {
            let joint = joints.get(j)?;
            if parent.get(j).copied().unwrap_or(true) {
                return None;
            }
            let bind = uniform(joint.world.to_scale_rotation_translation().0)
                .filter(|&s| s > 0.0 && (1.0 / s).is_finite())?;
            if !keys().all(|k| k.get(j).is_none_or(|k| uniform(k.scale).is_some())) {
                return None;
            }
            let scales = (bind - 1.0).abs() > 1e-6
                || keys().any(|k| k.get(j).is_some_and(|k| (k.scale.x - 1.0).abs() > 1e-6));
            if !scales {
                return None;
            }
            // Every joint above it (the walk bounded by the joint count).
            let mut above = joint.parent;
            for _ in 0..joints.len() {
                let Some(a) = above else { break };
                if !still(a) {
                    return None;
                }
                above = joints.get(a).and_then(|a| a.parent);
            }
            Some(bind)
        })
        .collect()
}

/// Every vertex of every mesh of `asset`, one after another, placed as an MD5 reader places
/// it when `keys` (parent-relative, without scale) pose `skeleton` with each joint's skin
/// scale of `own`: through each joint's bind `inverse` (unscaled, but for skin joints). A
/// share bound to no joint stays, as the added joint keeps it.
fn skinned(
    asset: &Asset,
    skeleton: &crate::asset::Skeleton,
    inverse: &[Affine3A],
    (keys, own): (&[(Quat, Vec3)], &[f32]),
) -> Vec<Vec3> {
    let keys: Vec<JointKey> = keys
        .iter()
        .map(|&(rotation, translation)| JointKey {
            rotation,
            translation,
            scale: Vec3::ONE,
        })
        .collect();
    let matrices: Vec<Affine3A> = skeleton
        .world(&keys)
        .into_iter()
        .zip(inverse)
        .enumerate()
        .map(|(j, (w, i))| match own.get(j).copied() {
            Some(s) if s != 1.0 => w * Affine3A::from_scale(Vec3::splat(s)) * *i,
            _ => w * *i,
        })
        .collect();
    asset
        .meshes
        .iter()
        .flat_map(|m| m.skin(&matrices).positions)
        .map(Vec3::from)
        .collect()
}

/// The box `points` fill (`[min, max]`), zero when there are none.
fn bounds_of(points: &[Vec3]) -> [Vec3; 2] {
    match points.split_first() {
        Some((&p, rest)) => rest
            .iter()
            .fold([p, p], |[lo, hi], &q| [lo.min(q), hi.max(q)]),
        None => [Vec3::ZERO; 2],
    }
}

impl crate::asset::Writer for Builder {
    const FORMAT: Format = Format::Md5;

    /// The `.md5mesh`, and beside it an `.md5anim` a clip, named `<stem>-<clip>.md5anim`
    /// (and its `.md5scale`, where the clip has skin scales); the text in the asset's
    /// [`code_page`](Asset::code_page), so quoted names keep the source's bytes.
    fn write_asset(
        asset: &Asset,
        _: &crate::asset::WriteOptions,
    ) -> core::result::Result<crate::asset::Written, crate::asset::WriteError> {
        use crate::asset::{Place, Written, WrittenFile};
        let Fitted { builder, losses } = Builder::from_asset(asset)?;
        let mut losses = losses;
        let mut files = vec![WrittenFile {
            place: Place::Main,
            bytes: asset.name_bytes(&builder.mesh_text()),
        }];
        let mut used = crate::name::Unique::new("_", true);
        for (i, anim) in builder.anims.iter().enumerate() {
            let clean: String = anim
                .name
                .chars()
                .map(|c| {
                    if c.is_alphanumeric() || matches!(c, '_' | '-') {
                        c
                    } else {
                        '_'
                    }
                })
                .collect();
            // One file a clip: a name repeated (or equal but for ASCII case) gets a number.
            let name = used.free(&clean);
            if name != anim.name {
                losses.push(format!(
                    "MD5 names an animation by its file: clip {:?} is written as {:?}",
                    crate::name::shown(&anim.name),
                    crate::name::shown(&name)
                ));
            }
            files.push(WrittenFile {
                place: Place::StemSuffix(format!("-{name}.md5anim")),
                bytes: asset.name_bytes(&builder.anim_text(i).unwrap_or_default()),
            });
            if let Some(scales) = builder.scale_text(i) {
                files.push(WrittenFile {
                    place: Place::StemSuffix(format!("-{name}.md5scale")),
                    bytes: asset.name_bytes(&scales),
                });
            }
        }
        Ok(Written::new(Self::FORMAT, files).with_notes(losses))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::asset::{Clip, Influences, Joint, Mesh, Skeleton};

    /// [`Builder::triangle`] with a second joint, `arm`, at `(0, 0, 1)` turned 90° about `+Z`
    /// (a stored rotation with `w > 0`, so written negated; its `z` the `f32` below the
    /// nearest, −0.70710677, whose `w` as readers recover it is nearer), and a two-frame
    /// animation in which the arm rises to `(0, 0, 2)` and the root stays.
    fn two_joints() -> Builder {
        let mut b = Builder::triangle();
        let turn = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
        b.joints.push(JointDef {
            name: "arm".into(),
            parent: Some(0),
            position: Vec3::Z,
            orientation: turn,
        });
        let rest = (Quat::IDENTITY, Vec3::ZERO);
        b.anims.push(AnimDef {
            name: "rise".into(),
            frame_rate: 24.0,
            frames: vec![
                vec![rest, (turn, Vec3::Z)],
                vec![rest, (turn, 2.0 * Vec3::Z)],
            ],
            bounds: vec![[Vec3::ZERO, Vec3::ONE]; 2],
            skin_scales: Vec::new(),
        });
        b
    }

    #[test]
    fn the_mesh_text_is_doom_3_s() {
        let text = two_joints().mesh_text();
        assert_eq!(
            text,
            "MD5Version 10\ncommandline \"\"\n\nnumJoints 2\nnumMeshes 1\n\njoints {\n\
             \t\"root\" -1 ( 0 0 0 ) ( 0 0 0 )\n\
             \t\"arm\" 0 ( 0 0 1 ) ( 0 0 -0.70710677 )\n}\n\n\
             mesh {\n\tshader \"triangle\"\n\n\tnumverts 3\n\
             \tvert 0 ( 0 0 ) 0 1\n\tvert 1 ( 1 0 ) 1 1\n\tvert 2 ( 0 1 ) 2 1\n\n\
             \tnumtris 1\n\ttri 0 2 1 0\n\n\tnumweights 3\n\
             \tweight 0 0 1 ( 0 0 0 )\n\tweight 1 0 1 ( 1 0 0 )\n\tweight 2 0 1 ( 0 1 0 )\n}\n"
        );
    }

    /// Near half a turn the triple stored is the one whose rotation as readers recover it
    /// lies nearest: for turns about an oblique axis 2·10⁻⁴ to 6·10⁻⁴ short of half a turn
    /// (`w` 1·10⁻⁴ to 3·10⁻⁴), the nearest `f32`s come back up to 2.1·10⁻⁴ away (`w` 0), the
    /// triple stored at most 1.2·10⁻⁴ (what `w`'s steps near 0, the square roots of multiples
    /// of 2⁻²⁴, allow), and never further than the nearest `f32`s.
    #[test]
    fn a_rotation_near_half_a_turn_is_stored_as_readers_recover_it_best() {
        use crate::md5::validate::rotation;
        let axis = Vec3::new(0.3, -0.5, 0.8).normalize();
        let (mut worst_nearest, mut worst_stored) = (0.0f64, 0.0f64);
        for k in 0..=40 {
            let short = 2e-4 + 1e-5 * k as f32;
            let q = Quat::from_axis_angle(axis, std::f32::consts::PI - short).normalize();
            let q = if q.w > 0.0 { -q } else { q };
            let off = |xyz: [f32; 3]| (rotation(xyz).0.as_dquat() - q.as_dquat()).length();
            let (nearest, kept) = (off([q.x, q.y, q.z]), off(stored(q)));
            assert!(kept <= nearest, "{short}: {kept} {nearest}");
            worst_nearest = worst_nearest.max(nearest);
            worst_stored = worst_stored.max(kept);
        }
        assert!(worst_nearest > 2e-4, "{worst_nearest}");
        assert!(worst_stored < 1.21e-4, "{worst_stored}");
    }

    /// Only the arm's `z` varies: one component, the base frame holding the first frame.
    #[test]
    fn the_anim_text_stores_what_varies() {
        let text = two_joints().anim_text(0).unwrap();
        assert_eq!(
            text,
            "MD5Version 10\ncommandline \"\"\n\nnumFrames 2\nnumJoints 2\nframeRate 24\n\
             numAnimatedComponents 1\n\nhierarchy {\n\t\"root\" -1 0 0\n\t\"arm\" 0 4 0\n}\n\n\
             bounds {\n\t( 0 0 0 ) ( 1 1 1 )\n\t( 0 0 0 ) ( 1 1 1 )\n}\n\n\
             baseframe {\n\t( 0 0 0 ) ( 0 0 0 )\n\t( 0 0 1 ) ( 0 0 -0.70710677 )\n}\n\n\
             frame 0 {\n\t1\n}\n\nframe 1 {\n\t2\n}\n"
        );
        assert_eq!(two_joints().anim_text(1), None);
    }

    /// Two joints: `root` at the origin, `arm` its child at `(0, 0, 1)`; one mesh of three
    /// vertices bound by `influences` (see [`loose`]); one clip of two frames, the arm at rest then 1 further up (with
    /// `scale` in frame 1), the root turned a quarter about `+Z` in frame 1.
    fn rising(scale: Vec3, influences: Influences) -> Asset {
        let joint = |name: &str, parent, translation: Vec3| Joint {
            name: name.into(),
            parent,
            rotation: Quat::IDENTITY,
            translation,
            scale: Vec3::ONE,
            world: Affine3A::from_translation(translation),
        };
        let key = |rotation, translation, scale| JointKey {
            rotation,
            translation,
            scale,
        };
        let turn = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
        Asset {
            format: "test",
            up: UpAxis::Z,
            front: [1.0, 0.0, 0.0],
            meshes: vec![Mesh {
                name: "m".into(),
                positions: vec![[1.0, 0.0, 1.0], [0.0, 1.0, 1.0], [1.0, 1.0, 0.0]],
                triangles: vec![[0, 1, 2]],
                influences,
                ..Mesh::default()
            }],
            materials: Vec::new(),
            images: Vec::new(),
            skeleton: Some(Skeleton {
                joints: vec![
                    joint("root", None, Vec3::ZERO),
                    joint("arm", Some(0), Vec3::Z),
                ],
                attachments: Vec::new(),
            }),
            clips: vec![Clip {
                name: "rise".into(),
                first: 0,
                fps: 10.0,
                looped: true,
                keys: ClipKeys::Joints(vec![
                    vec![
                        key(Quat::IDENTITY, Vec3::ZERO, Vec3::ONE),
                        key(Quat::IDENTITY, Vec3::Z, Vec3::ONE),
                    ],
                    vec![
                        key(turn, Vec3::ZERO, Vec3::ONE),
                        key(Quat::IDENTITY, 2.0 * Vec3::Z, scale),
                    ],
                ]),
            }],
            tags: Vec::new(),
            frame: None,
            at: None,
            given_pose: false,
            replaced_non_finite: 0,
            code_page: Default::default(),
        }
    }

    /// Vertex 0 on the arm, vertex 1 half on the arm and half on no joint, vertex 2 on
    /// nothing at all.
    fn loose() -> Influences {
        Influences {
            starts: vec![0, 1, 3, 3],
            weights: vec![(1, 1.0), (1, 0.5), (UNBOUND, 0.5)],
        }
    }

    /// Where an MD5 reader puts each vertex of `b`'s mesh 0 in frame `f` of animation 0.
    fn placed(b: &Builder, f: usize) -> Vec<Vec3> {
        let frame = &b.anims[0].frames[f];
        let mut world: Vec<Affine3A> = Vec::new();
        for (j, &(q, t)) in b.joints.iter().zip(frame) {
            let local = Affine3A::from_rotation_translation(q, t);
            world.push(j.parent.map_or(local, |p| world[p] * local));
        }
        b.meshes[0]
            .vertices
            .iter()
            .map(|v| {
                v.weights
                    .iter()
                    .map(|w| w.bias * world[w.joint].transform_point3(w.position))
                    .sum()
            })
            .collect()
    }

    /// A share bound to no joint goes to a joint added at the origin that the animation
    /// never moves: the vertex bound to nothing stays in every frame, the half-bound one
    /// moves half as far as the arm; what the asset's own skinning says.
    #[test]
    fn vertices_bound_to_no_joint_stay_where_they_are() {
        let asset = rising(Vec3::ONE, loose());
        let Fitted { builder, losses } = Builder::from_asset(&asset).unwrap();
        let names: Vec<&str> = builder.joints.iter().map(|j| j.name.as_str()).collect();
        assert_eq!(names, ["root", "arm", "origin"]);
        assert_eq!(builder.joints[2].parent, None);
        let joints = |v: usize| -> Vec<usize> {
            builder.meshes[0].vertices[v]
                .weights
                .iter()
                .map(|w| w.joint)
                .collect()
        };
        assert_eq!(
            (joints(0), joints(1), joints(2)),
            (vec![1], vec![1, 2], vec![2])
        );
        assert!(
            losses[0].starts_with("2 vertices bound to no joint"),
            "{losses:?}"
        );
        assert_eq!(builder.anims[0].frames[1][2], (Quat::IDENTITY, Vec3::ZERO));
        for f in 0..2 {
            let theirs = asset.posed(Some(f)).unwrap().remove(0).positions;
            for (a, b) in placed(&builder, f).iter().zip(&theirs) {
                assert!(a.distance(Vec3::from(*b)) < 1e-6, "frame {f}: {a} {b:?}");
            }
        }
        assert!(placed(&builder, 1)[2].distance(Vec3::new(1.0, 1.0, 0.0)) < 1e-6);
        // The animation's hierarchy names the added joint too, and it stores nothing.
        let text = builder.anim_text(0).unwrap();
        assert!(text.contains("\t\"origin\" -1 0 0\n"), "{text}");
        // A name in use is not taken again.
        let mut taken = asset.clone();
        taken.skeleton.as_mut().unwrap().joints[0].name = "origin".into();
        let b = Builder::from_asset(&taken).unwrap().builder;
        assert_eq!(b.joints[2].name, "origin_2");
        // Every vertex on a joint: nothing is added.
        let bound = Influences {
            starts: vec![0, 1, 2, 3],
            weights: vec![(1, 1.0), (0, 1.0), (0, 1.0)],
        };
        assert_eq!(
            Builder::from_asset(&rising(Vec3::ONE, bound))
                .unwrap()
                .builder
                .joints
                .len(),
            2
        );
        // A joint the skeleton lacks is refused.
        let wrong = Influences {
            starts: vec![0, 1, 2, 3],
            weights: vec![(2, 1.0), (0, 1.0), (0, 1.0)],
        };
        let e = Builder::from_asset(&rising(Vec3::ONE, wrong)).unwrap_err();
        assert_eq!(e.what, "a vertex of mesh \"m\" naming joint 2");
    }

    /// A clip file's name is the clip's, numbered where it repeats another's (ignoring ASCII
    /// case) with the first number free; four thousand clips of one name write in a look-up
    /// each.
    #[test]
    fn repeated_clip_names_get_the_first_number_free() {
        use crate::asset::{Place, Writer};
        let mut asset = rising(Vec3::ONE, loose());
        let clip = asset.clips[0].clone();
        asset.clips = ["idle", "Idle", "idle_3", "idle", "walk/run", "walk_run"]
            .iter()
            .map(|name| Clip {
                name: (*name).into(),
                ..clip.clone()
            })
            .collect();
        let written = Builder::write_asset(&asset, &Default::default()).unwrap();
        let suffixes: Vec<&str> = written
            .files
            .iter()
            .filter_map(|f| match &f.place {
                Place::StemSuffix(s) => Some(s.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(
            suffixes,
            [
                "-idle.md5anim",
                "-Idle_2.md5anim",
                "-idle_3.md5anim",
                "-idle_4.md5anim",
                "-walk_run.md5anim",
                "-walk_run_2.md5anim",
            ]
        );
        assert!(written.notes.iter().any(|n| n
            == "MD5 names an animation by its file: clip \"walk/run\" is written as \"walk_run\""));
        asset.clips = vec![clip; 4000];
        let written = Builder::write_asset(&asset, &Default::default()).unwrap();
        assert_eq!(written.files.len(), 4001);
        assert!(matches!(&written.files[4000].place,
            Place::StemSuffix(s) if s == "-rise_4000.md5anim"));
    }

    /// A key that scales, not uniformly: the frame is counted and the farthest a vertex
    /// lands from the asset's place over every frame said (vertex 0, on the arm at
    /// `(1, 0, 1)` from its `(1, 0, 0)` offset, lands 1 from where scale `(2, 1, 1)` puts it,
    /// the root's quarter turn turning both).
    #[test]
    fn scale_is_reported_with_its_error_over_every_frame() {
        let scale = Vec3::new(2.0, 1.0, 1.0);
        let losses = Builder::from_asset(&rising(scale, loose())).unwrap().losses;
        let note = losses.iter().find(|n| n.contains("cannot scale")).unwrap();
        assert!(note.contains("1 of 2 frames scale a joint"), "{note}");
        assert!(note.contains("up to 1.000e0 from"), "{note}");
        let losses = Builder::from_asset(&rising(Vec3::ONE, loose()))
            .unwrap()
            .losses;
        assert!(!losses.iter().any(|n| n.contains("scale")), "{losses:?}");
    }

    /// A leaf that scales uniformly keeps its scale as a skin scale: the arm's 2 in frame 1,
    /// written as the animation's `.md5scale`, nothing said lost (the reader's placing,
    /// which the loss note measures, is the asset's). The joint added for the loose vertices
    /// scales by 1.
    #[test]
    fn a_leaf_that_scales_uniformly_keeps_it_as_a_skin_scale() {
        let Fitted { builder, losses } =
            Builder::from_asset(&rising(Vec3::splat(2.0), loose())).unwrap();
        assert!(!losses.iter().any(|n| n.contains("scale")), "{losses:?}");
        assert_eq!(
            builder.anims[0].skin_scales,
            [[1.0, 1.0, 1.0], [1.0, 2.0, 1.0]]
        );
        assert_eq!(
            builder.scale_text(0).as_deref(),
            Some(r#"{"arm":{"1":2.0}}"#)
        );
        // Without scale, no sidecar.
        let plain = Builder::from_asset(&rising(Vec3::ONE, loose()))
            .unwrap()
            .builder;
        assert!(plain.anims[0].skin_scales.is_empty());
        assert_eq!(plain.scale_text(0), None);
    }
}
