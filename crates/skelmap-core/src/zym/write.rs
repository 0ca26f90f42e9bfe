//! [`Builder`]: writes a ZYM (type 1) from bones, poses, scenes, one-bone vertices and
//! shaders' triangles, the lumps in the header's order (`docs/formats/zym.md` § Writer order).
//! Fixtures, fuzz seeds and conversions use it.

use zerocopy::IntoBytes;
use zerocopy::byteorder::{BigEndian, F32, I32};

use super::raw::{self, Header, Lump};
use crate::error::{Error, Result};
use crate::format::Format;

/// One bone.
#[derive(Debug, Clone, PartialEq)]
pub struct BoneDef {
    /// Name, at most 31 bytes (a longer one is an [`Error::Write`]).
    pub name: String,
    /// Parent bone, `None` for a root; it must come before this bone.
    pub parent: Option<u32>,
    /// Flags (bit 0: [`raw::ZYMBONEFLAG_SHARED`]).
    pub flags: u32,
}

/// One scene: a clip of consecutive poses.
#[derive(Debug, Clone, PartialEq)]
pub struct SceneDef {
    /// Name, at most 31 bytes.
    pub name: String,
    /// First pose.
    pub start: u32,
    /// Number of poses.
    pub length: u32,
    /// Poses per second.
    pub framerate: f32,
    /// Whether the scene loops (otherwise [`raw::ZYMSCENEFLAG_NOLOOP`] is written).
    pub looped: bool,
}

/// One vertex, bound to one bone.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VertexDef {
    /// The bone.
    pub bone: u32,
    /// Position in the bone's pose-0 space.
    pub origin: [f32; 3],
    /// Texture coordinate as drawn (`t` flipped, as [`Zym::texcoord`](super::Zym::texcoord)
    /// reports it); the writer stores `1 − t`.
    pub texcoord: [f32; 2],
}

/// One shader and the triangles drawn with it.
#[derive(Debug, Clone, PartialEq)]
pub struct ShaderDef {
    /// Shader name, at most 31 bytes.
    pub name: String,
    /// Triangles, counter-clockwise seen from the front (the writer stores them reversed).
    pub triangles: Vec<[u32; 3]>,
}

/// Writes a ZYM file. Every field is public: fill them, or start from [`Builder::example`].
///
/// ```
/// use skelmap_core::{zym::{self, Zym}, Parse};
/// let bytes = zym::Builder::example().write()?;
/// let model = Zym::parse(&bytes)?;
/// assert_eq!((model.num_vertices(), model.num_triangles(), model.num_poses()), (6, 3, 3));
/// # Ok::<(), skelmap_core::Error>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Builder {
    /// The bones, parents first.
    pub bones: Vec<BoneDef>,
    /// The poses: each a row-major 3×4 matrix per bone, relative to its parent.
    pub poses: Vec<Vec<[[f32; 4]; 3]>>,
    /// The scenes.
    pub scenes: Vec<SceneDef>,
    /// The vertices.
    pub vertices: Vec<VertexDef>,
    /// The shaders, each with its run of triangles.
    pub shaders: Vec<ShaderDef>,
    /// The header's box minimum.
    pub mins: [f32; 3],
    /// The header's box maximum.
    pub maxs: [f32; 3],
    /// The header's bounding radius.
    pub radius: f32,
}

const FORMAT: Format = Format::Zym;

/// A pose matrix: a rotation about `Z` by `angle` radians, then the translation `t`.
#[must_use]
pub fn rotation_z(angle: f32, t: [f32; 3]) -> [[f32; 4]; 3] {
    let (s, c) = angle.sin_cos();
    [[c, -s, 0.0, t[0]], [s, c, 0.0, t[1]], [0.0, 0.0, 1.0, t[2]]]
}

impl Builder {
    /// A small model: two bones (a root and a child 10 units up `Z`), three poses in which the
    /// child turns about `Z`, two scenes (`idle`, one pose, looping; `bend`, two poses at 5
    /// per second, not looping), six vertices (three on each bone) and two shaders of one and
    /// two triangles.
    #[must_use]
    pub fn example() -> Builder {
        let bone = |name: &str, parent| BoneDef {
            name: name.into(),
            parent,
            flags: 0,
        };
        let vertex = |bone, origin, texcoord| VertexDef {
            bone,
            origin,
            texcoord,
        };
        let poses = (0..3)
            .map(|k| {
                vec![
                    rotation_z(0.0, [0.0, 0.0, 0.0]),
                    rotation_z(0.4 * k as f32, [0.0, 0.0, 10.0]),
                ]
            })
            .collect();
        Builder {
            bones: vec![bone("root", None), bone("tag_head", Some(0))],
            poses,
            scenes: vec![
                SceneDef {
                    name: "idle".into(),
                    start: 0,
                    length: 1,
                    framerate: 10.0,
                    looped: true,
                },
                SceneDef {
                    name: "bend".into(),
                    start: 1,
                    length: 2,
                    framerate: 5.0,
                    looped: false,
                },
            ],
            vertices: vec![
                vertex(0, [0.0, 0.0, 0.0], [0.0, 0.0]),
                vertex(0, [4.0, 0.0, 0.0], [1.0, 0.0]),
                vertex(0, [0.0, 4.0, 0.0], [0.0, 1.0]),
                vertex(1, [0.0, 0.0, 0.0], [0.5, 0.5]),
                vertex(1, [4.0, 0.0, 2.0], [1.0, 0.5]),
                vertex(1, [0.0, 4.0, 2.0], [0.5, 1.0]),
            ],
            shaders: vec![
                ShaderDef {
                    name: "models/body".into(),
                    triangles: vec![[0, 1, 2]],
                },
                ShaderDef {
                    name: "models/head".into(),
                    triangles: vec![[3, 4, 5], [2, 1, 3]],
                },
            ],
            mins: [-4.0, -4.0, 0.0],
            maxs: [4.0, 4.0, 12.0],
            radius: 14.0,
        }
    }

    /// The file's bytes.
    ///
    /// # Errors
    ///
    /// [`Error::Write`] for a name longer than 31 bytes or a count or size an `int` cannot
    /// hold.
    pub fn write(&self) -> Result<Vec<u8>> {
        let numtris: usize = self.shaders.iter().map(|s| s.triangles.len()).sum();
        let mut lumps: [Vec<u8>; 9] = Default::default();
        let [
            scenes,
            poses,
            bones,
            counts,
            verts,
            texcoords,
            render,
            shaders,
            trizone,
        ] = &mut lumps;
        for s in &self.scenes {
            let scene = raw::Scene {
                name: name32("scene.name", &s.name)?,
                mins: self.mins.map(F32::new),
                maxs: self.maxs.map(F32::new),
                radius: F32::new(self.radius),
                framerate: F32::new(s.framerate),
                flags: I32::new(if s.looped {
                    0
                } else {
                    raw::ZYMSCENEFLAG_NOLOOP as i32
                }),
                start: int("scene.start", s.start as usize)?,
                length: int("scene.length", s.length as usize)?,
            };
            scenes.extend_from_slice(scene.as_bytes());
        }
        for pose in &self.poses {
            for m in pose {
                let p = raw::Pose {
                    matrix: m.map(|row| row.map(F32::<BigEndian>::new)),
                };
                poses.extend_from_slice(p.as_bytes());
            }
        }
        for b in &self.bones {
            let parent = b
                .parent
                .map_or(Ok(-1), |p| int("bone.parent", p as usize).map(|p| p.get()))?;
            let bone = raw::Bone {
                name: name32("bone.name", &b.name)?,
                flags: I32::new(b.flags as i32),
                parent: I32::new(parent),
            };
            bones.extend_from_slice(bone.as_bytes());
        }
        for v in &self.vertices {
            counts.extend_from_slice(I32::<BigEndian>::new(1).as_bytes());
            let vertex = raw::Vertex {
                bonenum: int("vertex.bonenum", v.bone as usize)?,
                origin: v.origin.map(F32::new),
            };
            verts.extend_from_slice(vertex.as_bytes());
            let [s, t] = v.texcoord;
            texcoords.extend_from_slice([F32::<BigEndian>::new(s), F32::new(1.0 - t)].as_bytes());
        }
        for s in &self.shaders {
            render.extend_from_slice(int("render.count", s.triangles.len())?.as_bytes());
            for &[a, b, c] in &s.triangles {
                for i in [c, b, a] {
                    render.extend_from_slice(int("render.indices", i as usize)?.as_bytes());
                }
            }
            shaders.extend_from_slice(&name32("shader.name", &s.name)?);
        }
        trizone.resize(numtris, 0);

        let mut header = Header {
            id: *raw::ZYM_MAGIC,
            type_: I32::new(raw::ZYM_TYPE_SKELETAL_POSE as i32),
            filesize: I32::new(0),
            mins: self.mins.map(F32::new),
            maxs: self.maxs.map(F32::new),
            radius: F32::new(self.radius),
            numverts: int("header.numverts", self.vertices.len())?,
            numtris: int("header.numtris", numtris)?,
            numshaders: int("header.numshaders", self.shaders.len())?,
            numbones: int("header.numbones", self.bones.len())?,
            numscenes: int("header.numscenes", self.scenes.len())?,
            lump_scenes: empty_lump(),
            lump_poses: empty_lump(),
            lump_bones: empty_lump(),
            lump_vertbonecounts: empty_lump(),
            lump_verts: empty_lump(),
            lump_texcoords: empty_lump(),
            lump_render: empty_lump(),
            lump_shaders: empty_lump(),
            lump_trizone: empty_lump(),
        };
        let mut at = size_of::<Header>();
        let mut placed = [empty_lump(); 9];
        for (lump, bytes) in placed.iter_mut().zip(&lumps) {
            *lump = Lump {
                start: int("lump.start", at)?,
                length: int("lump.length", bytes.len())?,
            };
            at += bytes.len();
        }
        [
            header.lump_scenes,
            header.lump_poses,
            header.lump_bones,
            header.lump_vertbonecounts,
            header.lump_verts,
            header.lump_texcoords,
            header.lump_render,
            header.lump_shaders,
            header.lump_trizone,
        ] = placed;
        header.filesize = int("header.filesize", at)?;
        let mut out = Vec::with_capacity(at);
        out.extend_from_slice(header.as_bytes());
        for bytes in &lumps {
            out.extend_from_slice(bytes);
        }
        Ok(out)
    }
}

fn empty_lump() -> Lump {
    Lump {
        start: I32::new(0),
        length: I32::new(0),
    }
}

/// `value` as a big-endian `int`, or [`Error::Write`].
fn int(what: &'static str, value: usize) -> Result<I32<BigEndian>> {
    i32::try_from(value)
        .map(I32::new)
        .map_err(|_| Error::Write {
            format: FORMAT,
            what,
            value: value as u64,
            max: i32::MAX as u64,
        })
}

/// A name in a 32-byte NUL-padded field, or [`Error::Write`] past 31 bytes.
fn name32(what: &'static str, name: &str) -> Result<[u8; 32]> {
    let bytes = name.as_bytes();
    if bytes.len() > 31 {
        return Err(Error::Write {
            format: FORMAT,
            what,
            value: bytes.len() as u64,
            max: 31,
        });
    }
    let mut field = [0u8; 32];
    field[..bytes.len()].copy_from_slice(bytes);
    Ok(field)
}
