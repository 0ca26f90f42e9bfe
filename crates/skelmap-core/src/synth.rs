//! Procedural test models, written with the format writers.
//!
//! [`tube`] builds a bending tube: a chain of bones, a cylinder of vertices around it, each
//! vertex weighted to the one to three nearest bones (about 2.5 influences on average), and an
//! animation in which every joint bends. Its frames are named `bind`, then `wave_1` ….
//! It serves as the demo model, as test fixtures, as fuzz seeds and, scaled up, as the
//! benchmark model.
//!
//! [`sl_twist`] builds an SL `mdl` cylinder bound to two bones and an `.anim` that twists one
//! of them: the case where linear blend skinning collapses ("candy wrapper") and
//! dual-quaternion skinning does not.

use core::f32::consts::TAU;

use crate::dpm::raw::DPMBONEFLAG_ATTACHMENT;
use crate::dpm::write::{IDENTITY, Matrix3x4};
use crate::dpm::{self, BoneDef, FrameDef, Influence, MeshDef};
use crate::slmdl::{self, Easing, KeyframeDef};

/// Shape of a [`tube`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TubeParams {
    /// Bones in the chain (the last one is flagged as an attachment point).
    pub bones: u32,
    /// Rings of vertices per bone segment.
    pub rings_per_bone: u32,
    /// Vertices around each ring.
    pub sides: u32,
    /// Frames, including the bind pose.
    pub frames: u32,
    /// Length of each bone segment.
    pub segment_length: f32,
    /// Tube radius.
    pub radius: f32,
    /// How far each bone's influence reaches from its segment's centre, in segment lengths
    /// (1.5 gives about 2.9 influences per vertex, 1.25 about 2.5; at least 0.5 is used).
    pub reach: f32,
}

impl Default for TubeParams {
    /// A small tube: 4 bones, 17 rings of 8 vertices (136 vertices, 256 triangles), 9 frames.
    fn default() -> Self {
        TubeParams {
            bones: 4,
            rings_per_bone: 4,
            sides: 8,
            frames: 9,
            segment_length: 16.0,
            radius: 4.0,
            reach: 1.5,
        }
    }
}

impl TubeParams {
    /// Number of vertices the tube will have.
    #[must_use]
    pub fn num_vertices(&self) -> usize {
        self.rings() as usize * self.sides.max(3) as usize
    }

    fn rings(&self) -> u32 {
        self.bones.max(1) * self.rings_per_bone.max(1) + 1
    }
}

/// Builds a bending tube along +Z (see the module docs).
#[must_use]
pub fn tube(p: &TubeParams) -> dpm::Builder {
    let bones = p.bones.max(1);
    let sides = p.sides.max(3);
    let rings = p.rings();
    let len = p.segment_length;
    // Below half a segment some vertices would have no bone at all.
    let reach = p.reach.max(0.5) * len;

    let mut b = dpm::Builder::default();
    for j in 0..bones {
        let name = if j == 0 {
            "root".to_string()
        } else {
            format!("seg{j}")
        };
        let mut bone = BoneDef::new(name, j as i32 - 1);
        if j + 1 == bones && bones > 1 {
            bone.flags = DPMBONEFLAG_ATTACHMENT;
        }
        b.bones.push(bone);
    }

    let mut mesh = MeshDef {
        shader: b"tube".to_vec(),
        ..MeshDef::default()
    };
    for r in 0..rings {
        let z = r as f32 * len / p.rings_per_bone.max(1) as f32;
        let mut weights: Vec<(u32, f32)> = (0..bones)
            .map(|j| (j, 1.0 - (z - (j as f32 + 0.5) * len).abs() / reach))
            .filter(|&(_, w)| w > 0.0)
            .collect();
        let total: f32 = weights.iter().map(|w| w.1).sum();
        weights.iter_mut().for_each(|w| w.1 /= total);
        for s in 0..sides {
            let a = TAU * s as f32 / sides as f32;
            let (sin, cos) = a.sin_cos();
            let normal = [cos, sin, 0.0];
            let vertex = weights
                .iter()
                .map(|&(j, w)| {
                    let local = [p.radius * cos, p.radius * sin, z - j as f32 * len];
                    Influence::weighted(j, w, local, normal)
                })
                .collect();
            mesh.vertices.push(vertex);
            mesh.texcoords
                .push([s as f32 / sides as f32, 1.0 - r as f32 / (rings - 1) as f32]);
        }
    }
    for r in 0..rings - 1 {
        for s in 0..sides {
            let at = |ring: u32, side: u32| ring * sides + side % sides;
            let (a, b2, c, d) = (at(r, s), at(r, s + 1), at(r + 1, s), at(r + 1, s + 1));
            mesh.triangles.push([a, b2, d]);
            mesh.triangles.push([a, d, c]);
        }
    }
    mesh.group_ids = vec![0; mesh.triangles.len()];
    b.meshes.push(mesh);

    let frames = p.frames.max(1);
    for k in 0..frames {
        let phase = if frames > 1 {
            TAU * (k as f32) / (frames - 1) as f32
        } else {
            0.0
        };
        let poses = (0..bones)
            .map(|j| {
                if k == 0 {
                    return translated(IDENTITY, j, len);
                }
                let m = if j == 0 {
                    rotation_z(0.1 * phase.sin())
                } else {
                    rotation_x(0.35 * (phase + 0.7 * j as f32).sin())
                };
                translated(m, j, len)
            })
            .collect();
        let name = if k == 0 {
            "bind".to_string()
        } else {
            format!("wave_{k}")
        };
        b.frames.push(FrameDef::new(name, poses));
    }
    b
}

/// `m` with the parent-relative offset of bone `j` (root at the origin, others `len` up Z).
fn translated(mut m: Matrix3x4, j: u32, len: f32) -> Matrix3x4 {
    m[2][3] = if j == 0 { 0.0 } else { len };
    m
}

fn rotation_x(angle: f32) -> Matrix3x4 {
    let (s, c) = angle.sin_cos();
    [[1.0, 0.0, 0.0, 0.0], [0.0, c, -s, 0.0], [0.0, s, c, 0.0]]
}

fn rotation_z(angle: f32) -> Matrix3x4 {
    let (s, c) = angle.sin_cos();
    [[c, -s, 0.0, 0.0], [s, c, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0]]
}

/// An SL `mdl` cylinder of radius 1 around the X axis from `x = −1` to `x = 1`, as a triangle
/// list of `rings` × `sides` quads, bound to bone 0 with weight `(1 − x) / 2` and to bone 1
/// with the rest; and its `.anim`: keyframe 0 (the bind pose, at 0 s) leaves both bones in
/// place, keyframe 1 (at 1 s, linear) turns bone 1 by `degrees` about +X. Both sizes are at
/// least 1.
///
/// ```
/// use skelmap_core::Parse;
/// use skelmap_core::slmdl;
/// let (mdl, anim) = skelmap_core::synth::sl_twist(4, 8, 180.0);
/// let (mdl, anim) = (mdl.write(), anim.write());
/// assert_eq!(slmdl::Mesh::parse(&mdl)?.num_vertices(), 4 * 8 * 6);
/// assert_eq!(slmdl::Animation::parse(&anim)?.num_keyframes(), 2);
/// # Ok::<(), skelmap_core::Error>(())
/// ```
#[must_use]
pub fn sl_twist(
    rings: u32,
    sides: u32,
    degrees: f32,
) -> (slmdl::MeshBuilder, slmdl::AnimationBuilder) {
    let (rings, sides) = (rings.max(1), sides.max(1));
    let vertex = |ring: u32, side: u32| {
        let x = -1.0 + 2.0 * ring as f32 / rings as f32;
        let angle = TAU * side as f32 / sides as f32;
        let (sin, cos) = angle.sin_cos();
        slmdl::VertexDef {
            position: [x, cos, sin],
            normal: [0.0, cos, sin],
            // Stored: bone 0's weight; the implied fourth weight goes to bone 1.
            weights: [(1.0 - x) / 2.0, 0.0, 0.0],
            indices: [0, 0, 0, 1],
            texcoord: [ring as f32 / rings as f32, side as f32 / sides as f32],
        }
    };
    let mut vertices = Vec::new();
    for ring in 0..rings {
        for side in 0..sides {
            let quad = [
                vertex(ring, side),
                vertex(ring + 1, side),
                vertex(ring + 1, side + 1),
                vertex(ring, side + 1),
            ];
            vertices.extend([0, 1, 2, 0, 2, 3].map(|k| quad[k]));
        }
    }
    let half = degrees.to_radians() / 2.0;
    let still = ([0.0, 0.0, 0.0, 1.0], [0.0; 3]);
    let twisted = ([half.sin(), 0.0, 0.0, half.cos()], [0.0; 3]);
    let anim = slmdl::AnimationBuilder {
        bones: 2,
        keyframes: vec![
            KeyframeDef {
                time: 0.0,
                easing: Easing::Linear,
                bones: vec![still, still],
            },
            KeyframeDef {
                time: 1.0,
                easing: Easing::Linear,
                bones: vec![still, twisted],
            },
        ],
    };
    (slmdl::MeshBuilder::skinned(&vertices), anim)
}

/// Shape of an [`iqm_character`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CharacterParams {
    /// Vertices around each ring (two rings a joint).
    pub sides: u32,
    /// Frames of the animation.
    pub frames: u32,
    /// How many joints scale in the animation (the first limbs' hands and feet, then more).
    pub scaled_joints: u32,
}

impl Default for CharacterParams {
    /// About a game character: 80 joints, 3 040 vertices (two rings of 19 a joint) with four
    /// influences each, 60 frames, scale keys on four joints.
    fn default() -> Self {
        CharacterParams {
            sides: 19,
            frames: 60,
            scaled_joints: 4,
        }
    }
}

/// An [`iqm_character`]: the model (mesh, joints and its own animation) and the same motion
/// as an animation-only IQM whose joints are listed in another order.
#[derive(Debug, Clone)]
pub struct Character {
    /// The skinned model, with its own frames and one anim.
    pub model: crate::iqm::Builder,
    /// Joints (same names, depth-first where the model is breadth-first), frames and one
    /// anim; no mesh. Played on `model` by joint name (`Model::from_iqm`).
    pub animation: crate::iqm::Builder,
}

/// A humanoid skeleton of 80 joints (spine, head and face, two arms with five three-bone
/// fingers, two legs, a tail), the model's joints in breadth-first order, each joint's
/// segment wrapped in two rings of vertices weighted to four joints (the joint, its parent,
/// its grandparent and the joint after it, descending weights summing to 255) and the
/// vertices interleaved (neighbours in the file belong to different joints), animated by
/// every joint turning about its own axis, the root moving, and `scaled_joints` joints
/// scaling: channels constant over the frames (most translations, most scales) are left out
/// of the frame data by the writer, so the poses have partial channel masks.
#[must_use]
pub fn iqm_character(p: &CharacterParams) -> Character {
    use crate::iqm::{AnimDef, Builder, MeshDef};
    let tree = humanoid_tree();
    let (bfs, dfs) = tree_orders(&tree);
    let joints = joints_in(&tree, &bfs);
    let mut model = Builder {
        joints: joints.clone(),
        ..Builder::default()
    };
    add_rings(&mut model, &joints, p.sides.max(3));
    interleave_vertices(&mut model);
    model.meshes.push(MeshDef {
        name: b"body".to_vec(),
        material: b"body.png".to_vec(),
        first_vertex: 0,
        num_vertexes: model.positions.len() as u32,
        first_triangle: 0,
        num_triangles: model.triangles.len() as u32,
    });
    let frames = character_frames(&tree, p);
    let anim = AnimDef {
        name: b"walk".to_vec(),
        first_frame: 0,
        num_frames: frames.len() as u32,
        framerate: 30.0,
        looped: true,
    };
    let reorder = |order: &[usize]| -> Vec<Vec<crate::iqm::Transform>> {
        frames
            .iter()
            .map(|f| order.iter().map(|&i| f[i]).collect())
            .collect()
    };
    model.frames = reorder(&bfs);
    model.anims = vec![anim.clone()];
    let animation = Builder {
        joints: joints_in(&tree, &dfs),
        frames: reorder(&dfs),
        anims: vec![anim],
        ..Builder::default()
    };
    Character { model, animation }
}

/// A joint of [`humanoid_tree`]: its name, its parent's name, its offset from the parent.
type TreeJoint = (String, Option<String>, [f32; 3]);

/// The 80 joints of [`iqm_character`]'s skeleton, parents before children.
fn humanoid_tree() -> Vec<TreeJoint> {
    let mut tree: Vec<(String, Option<String>, [f32; 3])> = Vec::new();
    let mut add = |name: String, parent: Option<&str>, offset: [f32; 3]| {
        tree.push((name, parent.map(str::to_string), offset));
    };
    add("root".into(), None, [0.0, 0.0, 40.0]);
    let mut spine = "root".to_string();
    for k in 0..5 {
        let name = format!("spine{k}");
        add(name.clone(), Some(&spine), [0.0, 0.0, 6.0]);
        spine = name;
    }
    add("neck".into(), Some(&spine), [0.0, 0.0, 5.0]);
    add("head".into(), Some("neck"), [0.0, 0.0, 4.0]);
    add("jaw".into(), Some("head"), [0.0, 2.0, -1.0]);
    for side in ["l", "r"] {
        add(format!("eye_{side}"), Some("head"), [0.0, 2.0, 2.0]);
    }
    for k in 0..19 {
        let a = TAU * k as f32 / 19.0;
        add(
            format!("face{k}"),
            Some("head"),
            [2.0 * a.cos(), 2.0, 2.0 * a.sin()],
        );
    }
    for (side, x) in [("l", 1.0f32), ("r", -1.0)] {
        add(
            format!("clavicle_{side}"),
            Some(&spine),
            [3.0 * x, 0.0, 2.0],
        );
        add(
            format!("upperarm_{side}"),
            Some(&format!("clavicle_{side}")),
            [6.0 * x, 0.0, 0.0],
        );
        add(
            format!("forearm_{side}"),
            Some(&format!("upperarm_{side}")),
            [10.0 * x, 0.0, 0.0],
        );
        add(
            format!("hand_{side}"),
            Some(&format!("forearm_{side}")),
            [9.0 * x, 0.0, 0.0],
        );
        for f in 0..5 {
            let mut parent = format!("hand_{side}");
            for b in 0..3 {
                let name = format!("finger{f}_{b}_{side}");
                let y = if b == 0 { f as f32 - 2.0 } else { 0.0 };
                add(name.clone(), Some(&parent), [1.5 * x, y * 0.6, 0.0]);
                parent = name;
            }
        }
        add(format!("thigh_{side}"), Some("root"), [4.0 * x, 0.0, -2.0]);
        add(
            format!("calf_{side}"),
            Some(&format!("thigh_{side}")),
            [0.0, 0.0, -18.0],
        );
        add(
            format!("foot_{side}"),
            Some(&format!("calf_{side}")),
            [0.0, 0.0, -17.0],
        );
        add(
            format!("toe_{side}"),
            Some(&format!("foot_{side}")),
            [0.0, 5.0, -2.0],
        );
    }
    let mut tail = "root".to_string();
    for k in 0..4 {
        let name = format!("tail{k}");
        add(name.clone(), Some(&tail), [0.0, -4.0, 0.0]);
        tail = name;
    }
    tree
}

/// The breadth-first (the model's) and depth-first (the animation's) orders of `tree`.
fn tree_orders(tree: &[TreeJoint]) -> (Vec<usize>, Vec<usize>) {
    let children = |i: Option<usize>| -> Vec<usize> {
        let parent = i.map(|i| tree[i].0.clone());
        (0..tree.len()).filter(|&c| tree[c].1 == parent).collect()
    };
    let mut bfs = children(None);
    let mut k = 0;
    while k < bfs.len() {
        let more = children(Some(bfs[k]));
        bfs.extend(more);
        k += 1;
    }
    let mut dfs = Vec::new();
    let mut stack: Vec<usize> = children(None).into_iter().rev().collect();
    while let Some(i) = stack.pop() {
        dfs.push(i);
        stack.extend(children(Some(i)).into_iter().rev());
    }
    (bfs, dfs)
}

/// The joints of `tree` in `order`, each at its offset from its parent.
fn joints_in(tree: &[TreeJoint], order: &[usize]) -> Vec<crate::iqm::JointDef> {
    use crate::iqm::{JointDef, Transform};
    order
        .iter()
        .map(|&i| {
            let (name, parent, offset) = &tree[i];
            let parent = parent
                .as_ref()
                .and_then(|p| order.iter().position(|&j| &tree[j].0 == p))
                .map_or(-1, |p| p as i32);
            JointDef {
                name: name.clone().into_bytes(),
                parent,
                transform: Transform {
                    translate: *offset,
                    ..Transform::IDENTITY
                },
            }
        })
        .collect()
}

/// Two rings of `sides` vertices around each joint's segment, weighted to four joints (the
/// joint, its parent, its grandparent and the joint after it), with their triangles.
fn add_rings(model: &mut crate::iqm::Builder, joints: &[crate::iqm::JointDef], sides: u32) {
    // World bind positions (the bind rotations are identities).
    let mut world = vec![[0.0f32; 3]; joints.len()];
    for (i, j) in joints.iter().enumerate() {
        let base = usize::try_from(j.parent).map_or([0.0; 3], |p| world[p]);
        let t = j.transform.translate;
        world[i] = [base[0] + t[0], base[1] + t[1], base[2] + t[2]];
    }
    let n = joints.len();
    for (i, j) in joints.iter().enumerate() {
        let parent = usize::try_from(j.parent).ok();
        let grand = parent.and_then(|p| usize::try_from(joints[p].parent).ok());
        let from = parent.map_or([world[i][0], world[i][1], world[i][2] - 2.0], |p| world[p]);
        let first = model.positions.len() as u32;
        let influences = [Some(i), parent, grand, Some((i + 1) % n)];
        let mut indexes = [0u8; 4];
        let mut weights = [0u8; 4];
        for (k, (slot, w)) in influences.iter().zip([120u8, 70, 40, 25]).enumerate() {
            indexes[k] = slot.unwrap_or(i) as u8;
            weights[k] = w;
        }
        for ring in 0..2 {
            let s = 0.25 + 0.5 * ring as f32;
            let centre = [0, 1, 2].map(|c| from[c] + (world[i][c] - from[c]) * s);
            for k in 0..sides {
                let a = TAU * k as f32 / sides as f32;
                let (sin, cos) = a.sin_cos();
                model
                    .positions
                    .push([centre[0] + cos, centre[1] + sin, centre[2]]);
                model.normals.push([cos, sin, 0.0]);
                model.texcoords.push([k as f32 / sides as f32, ring as f32]);
                model.blend_indexes.push(indexes);
                model.blend_weights.push(weights);
            }
        }
        for k in 0..sides {
            let (a, b) = (first + k, first + (k + 1) % sides);
            let (c, d) = (a + sides, b + sides);
            model.triangles.push([a, b, d]);
            model.triangles.push([a, d, c]);
        }
    }
}

/// Vertex `i` moves to `i · 97 mod n` (97 is prime to every count of two rings of 3 to 200
/// sides a joint): as an exporter's vertex-cache order does, neighbouring vertices belong to
/// different joints, so each block of 16 blends many bones.
fn interleave_vertices(model: &mut crate::iqm::Builder) {
    let n_vertices = model.positions.len();
    let to = |i: usize| i * 97 % n_vertices;
    if !n_vertices.is_multiple_of(97) {
        fn permute<T>(v: &mut Vec<T>, to: impl Fn(usize) -> usize) {
            let mut slots: Vec<Option<T>> = v.iter().map(|_| None).collect();
            for (i, x) in core::mem::take(v).into_iter().enumerate() {
                slots[to(i)] = Some(x);
            }
            *v = slots.into_iter().flatten().collect();
        }
        permute(&mut model.positions, to);
        permute(&mut model.normals, to);
        permute(&mut model.texcoords, to);
        permute(&mut model.blend_indexes, to);
        permute(&mut model.blend_weights, to);
        for t in &mut model.triangles {
            *t = t.map(|v| to(v as usize) as u32);
        }
    }
}

/// Every frame of the motion, per joint of `tree` (tree order): each joint turning about its
/// own axis, the root moving, the first `scaled_joints` of the hands, feet, head and spine
/// (then the rest) scaling.
fn character_frames(tree: &[TreeJoint], p: &CharacterParams) -> Vec<Vec<crate::iqm::Transform>> {
    use crate::iqm::Transform;
    // Scaled: hands and feet first.
    let scaled: Vec<usize> = ["hand_l", "hand_r", "foot_l", "foot_r", "head", "spine2"]
        .iter()
        .filter_map(|s| tree.iter().position(|t| t.0 == *s))
        .chain(0..tree.len())
        .take(p.scaled_joints as usize)
        .collect();
    // One frame of the motion, per joint of the tree (tree order).
    let frame = |f: u32| -> Vec<Transform> {
        let time = f as f32 / p.frames.max(1) as f32 * TAU;
        (0..tree.len())
            .map(|i| {
                let phase = i as f32 * 0.37;
                let angle = 0.3 * (time + phase).sin();
                let axis = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]][i % 3];
                let (s, c) = (angle * 0.5).sin_cos();
                let mut translate = tree[i].2;
                if i == 0 {
                    translate[0] += 3.0 * time.sin();
                    translate[1] += 10.0 * time.cos();
                }
                let scale = if scaled.contains(&i) {
                    let k = 1.0 + 0.2 * (time + phase).sin();
                    [k, k, 1.0 + 0.1 * time.cos()]
                } else {
                    [1.0; 3]
                };
                Transform {
                    translate,
                    rotate: [axis[0] * s, axis[1] * s, axis[2] * s, c],
                    scale,
                }
            })
            .collect()
    };
    (0..p.frames.max(2)).map(frame).collect()
}

/// A Quake III player's files: `lower.md3`, `upper.md3`, `head.md3`, an `animation.cfg`
/// and a `default` skin for each part ([`player`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Player {
    /// Each file's name and bytes.
    pub files: Vec<(&'static str, Vec<u8>)>,
}

impl Player {
    /// Writes every file into the folder `dir`, which must exist.
    ///
    /// # Errors
    ///
    /// The first error writing a file.
    pub fn write_to(&self, dir: &std::path::Path) -> std::io::Result<()> {
        self.files
            .iter()
            .try_for_each(|(name, bytes)| std::fs::write(dir.join(name), bytes))
    }

    /// The bytes of the file `name`.
    #[must_use]
    pub fn file(&self, name: &str) -> Option<&[u8]> {
        self.files
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, b)| b.as_slice())
    }
}

/// A Quake III player of `frames` frames an animation (at least 1): `animation.cfg` lists
/// the 25 animations of the game's order in one run of frames (`BOTH_`, then `TORSO_`, then
/// `LEGS_`), so `upper.md3` has 13 · `frames` frames and `lower.md3` 18 · `frames` (the legs
/// offset skips the torso's). Each part is a ring of 6 vertices that turns and rises frame
/// by frame; `lower.md3` has `tag_torso`, `upper.md3` `tag_head`, `tag_weapon` and
/// `tag_torso`, `head.md3` (one frame) `tag_head`; a tag in frame `f` is at
/// `(f / 4, 0, height)` and turned `f / 8` radians about `+Z`.
#[must_use]
pub fn player(frames: usize) -> Player {
    use crate::md3;
    use crate::pose::animation_cfg::NAMES;
    let frames = frames.max(1);
    let part = |surface: &str, count: usize, height: f32, tags: &[&str]| {
        let ring = |f: usize| -> Vec<([i16; 3], u16)> {
            (0..6)
                .map(|i| {
                    let a = i as f32 / 6.0 * TAU + f as f32 * 0.25;
                    let xyz = [a.cos() * 8.0, a.sin() * 8.0, height * (i % 2) as f32];
                    let normal = ((i * 40) as u16) | (((f * 9) % 256) as u16) << 8;
                    (xyz.map(|c| (c * 64.0) as i16), normal)
                })
                .collect()
        };
        let tag = |name: &&str, f: usize| {
            let (s, c) = (f as f32 / 8.0).sin_cos();
            md3::write::TagDef {
                name: name.as_bytes().to_vec(),
                origin: [f as f32 / 4.0, 0.0, height],
                axis: [[c, s, 0.0], [-s, c, 0.0], [0.0, 0.0, 1.0]],
            }
        };
        md3::Builder {
            name: format!("models/players/synth/{surface}.md3").into_bytes(),
            frames: (0..count)
                .map(|f| md3::write::FrameDef {
                    name: format!("frame{f}").into_bytes(),
                    bounds: [[-8.0, -8.0, 0.0], [8.0, 8.0, height]],
                    local_origin: [0.0; 3],
                    radius: (64.0 + height * height).sqrt(),
                })
                .collect(),
            tags: (0..count)
                .map(|f| tags.iter().map(|t| tag(t, f)).collect())
                .collect(),
            surfaces: vec![md3::write::SurfaceDef {
                name: surface.as_bytes().to_vec(),
                shaders: vec![format!("models/players/synth/{surface}").into_bytes()],
                triangles: (0..4).map(|i| [0, i + 2, i + 1]).collect(),
                st: (0..6).map(|i| [i as f32 / 6.0, 0.5]).collect(),
                frames: (0..count).map(ring).collect(),
            }],
            ..md3::Builder::default()
        }
        .write()
    };
    let mut cfg = String::from("// a synthetic player\nsex m\nfootsteps normal\n");
    for (i, name) in NAMES.iter().take(25).enumerate() {
        let looping = if name.starts_with("LEGS_") { frames } else { 0 };
        cfg.push_str(&format!(
            "{}\t{frames}\t{looping}\t15\t// {name}\n",
            i * frames
        ));
    }
    let skin = |surface: &str| format!("{surface},models/players/synth/{surface}_red.tga\n");
    Player {
        files: vec![
            (
                "lower.md3",
                part("l_legs", 18 * frames, 24.0, &["tag_torso"]),
            ),
            (
                "upper.md3",
                part(
                    "u_torso",
                    13 * frames,
                    16.0,
                    &["tag_head", "tag_weapon", "tag_torso"],
                ),
            ),
            ("head.md3", part("h_head", 1, 8.0, &["tag_head"])),
            ("animation.cfg", cfg.into_bytes()),
            ("lower_default.skin", skin("l_legs").into_bytes()),
            ("upper_default.skin", skin("u_torso").into_bytes()),
            ("head_default.skin", skin("h_head").into_bytes()),
        ],
    }
}
