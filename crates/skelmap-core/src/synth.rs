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
