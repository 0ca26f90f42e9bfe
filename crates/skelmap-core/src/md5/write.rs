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
use crate::asset::{Asset, ClipKeys, FitError, Fitted, JointKey, UpAxis};
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

/// A quaternion's `x y z` as MD5 stores them: of the unit rotation with `w ≤ 0`.
fn stored(q: Quat) -> [f32; 3] {
    let q = q.normalize();
    let q = if q.w > 0.0 { -q } else { q };
    [q.x, q.y, q.z]
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

    /// A model from `asset`: the skeleton in its bind pose (or one root joint for an asset
    /// without one), each mesh's vertices with the weights they have (zero weights dropped,
    /// none refused: MD5 has no cap per vertex), positions in each joint's bind space, and an
    /// animation per clip of joint keys, all turned to MD5's `+Z` up. What MD5 cannot hold is
    /// said in the losses: scale
    /// (joints and keys are rotation and translation only), normals (derived by readers),
    /// vertex colours, morph-target clips.
    ///
    /// # Errors
    ///
    /// [`FitError`] when a vertex names a joint the skeleton lacks.
    pub fn from_asset(asset: &Asset) -> Result<Fitted<Builder>, FitError> {
        // Doom 3's axes: +Z up.
        let asset = asset.with_up(UpAxis::Z);
        let asset = asset.as_ref();
        let skeleton = asset.skeleton_or_root();
        let mut losses = Vec::new();
        let mut scaled = false;
        let joints: Vec<JointDef> = skeleton
            .joints
            .iter()
            .enumerate()
            .map(|(i, j)| {
                let (scale, orientation, position) = j.world.to_scale_rotation_translation();
                scaled |= (scale - Vec3::ONE).abs().max_element() > 1e-6;
                JointDef {
                    name: j.name.clone(),
                    parent: j.parent.filter(|&p| p < i),
                    position,
                    orientation: orientation.normalize(),
                }
            })
            .collect();
        // Each joint's bind transform as MD5 keeps it (no scale), and its inverse.
        let inverse: Vec<Affine3A> = joints
            .iter()
            .map(|j| Affine3A::from_rotation_translation(j.orientation, j.position).inverse())
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
                let influences = mesh.influences.of(v);
                let own: Vec<(u16, f32)> = if influences.is_empty() {
                    vec![(0, 1.0)]
                } else {
                    influences
                        .iter()
                        .copied()
                        .filter(|&(_, w)| w > 0.0)
                        .collect()
                };
                let mut weights = Vec::with_capacity(own.len());
                for (joint, bias) in own {
                    let joint = usize::from(joint);
                    let Some(inv) = inverse.get(joint) else {
                        return Err(FitError::new(
                            "MD5",
                            format!("a vertex of mesh {:?} naming joint {joint}", mesh.name),
                            format!("the skeleton's {} joints", joints.len()),
                            "give the asset the skeleton its influences name",
                        ));
                    };
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
        if scaled {
            losses.push(
                "MD5 joints cannot scale: the bind pose's scale was left out of the joints, and \
                 vertices were placed by rotation and translation alone"
                    .to_string(),
            );
        }
        let mut anims = Vec::new();
        let mut scaled_keys = false;
        for clip in &asset.clips {
            let ClipKeys::Joints(frames) = &clip.keys else {
                losses.push(format!(
                    "MD5 has no vertex animation: clip {:?} (morph targets) was left out",
                    clip.name
                ));
                continue;
            };
            let keys = |f: &Vec<JointKey>| {
                f.iter()
                    .map(|k| {
                        scaled_keys |= (k.scale - Vec3::ONE).abs().max_element() > 1e-6;
                        (k.rotation.normalize(), k.translation)
                    })
                    .collect::<Vec<_>>()
            };
            let frames: Vec<Vec<(Quat, Vec3)>> = frames.iter().map(keys).collect();
            let bounds = frames
                .iter()
                .map(|f| bounds_at(asset, &skeleton, f))
                .collect();
            anims.push(AnimDef {
                name: clip.name.clone(),
                frame_rate: if clip.fps > 0.0 { clip.fps } else { 24.0 },
                frames,
                bounds,
            });
        }
        if scaled_keys {
            losses.push(
                "MD5 keys cannot scale: the scale of animated joints was left out".to_string(),
            );
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

/// The box every mesh of `asset` fills when `keys` pose its skeleton.
fn bounds_at(asset: &Asset, skeleton: &crate::asset::Skeleton, keys: &[(Quat, Vec3)]) -> [Vec3; 2] {
    let keys: Vec<JointKey> = keys
        .iter()
        .map(|&(rotation, translation)| JointKey {
            rotation,
            translation,
            scale: Vec3::ONE,
        })
        .collect();
    let matrices = skeleton.skin_matrices(&keys);
    let (mut min, mut max) = (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN));
    for mesh in &asset.meshes {
        for p in mesh.skin(&matrices).positions {
            min = min.min(Vec3::from(p));
            max = max.max(Vec3::from(p));
        }
    }
    if min.x > max.x {
        [Vec3::ZERO; 2]
    } else {
        [min, max]
    }
}

impl crate::asset::Writer for Builder {
    const FORMAT: Format = Format::Md5;

    /// The `.md5mesh`, and beside it an `.md5anim` a clip, named `<stem>-<clip>.md5anim`.
    fn write_asset(
        asset: &Asset,
        _: &crate::asset::WriteOptions,
    ) -> core::result::Result<crate::asset::Written, crate::asset::WriteError> {
        use crate::asset::{Place, Written, WrittenFile};
        let Fitted { builder, losses } = Builder::from_asset(asset)?;
        let mut losses = losses;
        let mut files = vec![WrittenFile {
            place: Place::Main,
            bytes: builder.mesh_text().into_bytes(),
        }];
        let mut used: Vec<String> = Vec::new();
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
            // One file a clip: a name repeated (or equal but for case) gets a number.
            let mut name = clean.clone();
            let mut n = 1;
            while used.iter().any(|u| u.eq_ignore_ascii_case(&name)) {
                n += 1;
                name = format!("{clean}_{n}");
            }
            if name != anim.name {
                losses.push(format!(
                    "MD5 names an animation by its file: clip {:?} is written as {name:?}",
                    anim.name
                ));
            }
            files.push(WrittenFile {
                place: Place::StemSuffix(format!("-{name}.md5anim")),
                bytes: builder.anim_text(i).unwrap_or_default().into_bytes(),
            });
            used.push(name);
        }
        Ok(Written::new(Self::FORMAT, files).with_notes(losses))
    }
}
