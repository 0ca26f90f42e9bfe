//! [`Builder`]: writes a ZYM (type 1) from bones, poses, scenes, one-bone vertices and
//! shaders' triangles, the lumps in the header's order (`docs/formats/zym.md` § Writer order).
//! Fixtures, fuzz seeds and conversions use it.

use zerocopy::IntoBytes;
use zerocopy::byteorder::{BigEndian, F32, I32};

use glam::{Affine3A, Vec3A};

use super::raw::{self, Header, Lump};
use crate::asset::{Asset, FitError, Fitted, JointKey, UpAxis};
use crate::error::{Error, Result};
use crate::format::Format;
use crate::name::CodePage;

/// The longest name a 32-byte field holds with its NUL.
pub const MAX_NAME: usize = 31;

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
    /// The code page the names are stored in ([`Asset::code_page`] for a builder made
    /// from an asset).
    pub code_page: CodePage,
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
            code_page: CodePage::Utf8,
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
                name: name32(self.code_page, "scene.name", &s.name)?,
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
                name: name32(self.code_page, "bone.name", &b.name)?,
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
            shaders.extend_from_slice(&name32(self.code_page, "shader.name", &s.name)?);
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

impl Builder {
    /// A builder for `asset`: its joints as bones, its frames as poses (the bind pose alone
    /// for an asset without frames), its clips as scenes laid end to end, its meshes as one
    /// vertex array with a shader each. Each vertex is bound to its heaviest joint (ZYM has
    /// one bone per vertex) and stored in that joint's space of the pose the asset's meshes
    /// are posed in. What ZYM cannot keep is said in the losses: vertices that lose
    /// influences, normals (ZYM stores none, engines derive them), joint scale.
    ///
    /// # Errors
    ///
    /// [`FitError`] for a bone, shader or clip name longer than [`MAX_NAME`] bytes, or for
    /// vertex animation.
    pub fn from_asset(asset: &Asset) -> core::result::Result<Fitted<Builder>, FitError> {
        let asset = asset.with_up(UpAxis::Z);
        // A vertex bound to no joint stays put on a joint added for it.
        let (asset, still) = asset.with_still_joint();
        let (asset, dropped) = asset.drawable("ZYM")?;
        asset.refuse_vertex_animation("ZYM")?;
        let skeleton = asset.skeleton_or_root();
        let joint_names = skeleton.joints.iter().map(|j| j.name.as_str());
        asset.check_names("ZYM", "bone", joint_names, MAX_NAME)?;
        let shaders = asset.shader_names("ZYM", MAX_NAME)?;
        asset.check_names(
            "ZYM",
            "clip",
            asset.clips.iter().map(|c| c.name.as_str()),
            MAX_NAME,
        )?;
        let inverse: Vec<Affine3A> = skeleton.joints.iter().map(|j| j.world.inverse()).collect();
        let mut b = Builder {
            bones: skeleton
                .joints
                .iter()
                .map(|j| BoneDef {
                    name: j.name.clone(),
                    parent: j.parent.map(|p| p as u32),
                    flags: 0,
                })
                .collect(),
            code_page: asset.code_page,
            ..Builder::default()
        };
        let (mut cut, mut unbound, mut normals) = (0usize, 0usize, false);
        for (mesh, shader) in asset.meshes.iter().zip(shaders) {
            let base = b.vertices.len() as u32;
            let uvs = mesh.uvs_or_zero();
            for (v, p) in mesh.positions.iter().enumerate() {
                let influences = mesh.influences.of(v);
                cut += usize::from(influences.len() > 1);
                // A vertex bound to no joint (`UNBOUND`) follows the first bone.
                let heaviest = (influences.iter())
                    .filter(|&&(j, _)| usize::from(j) < inverse.len())
                    .max_by(|a, b| a.1.total_cmp(&b.1));
                unbound += usize::from(heaviest.is_none() && !influences.is_empty());
                let bone = heaviest.map_or(0, |&(j, _)| j);
                let to_bone = inverse.get(usize::from(bone)).copied().unwrap_or_default();
                b.vertices.push(VertexDef {
                    bone: bone.into(),
                    origin: to_bone.transform_point3a(Vec3A::from_array(*p)).to_array(),
                    texcoord: uvs.get(v).copied().unwrap_or_default(),
                });
            }
            normals |= !mesh.normals.is_empty();
            b.shaders.push(ShaderDef {
                name: shader,
                triangles: mesh.triangles.iter().map(|t| t.map(|i| i + base)).collect(),
            });
        }
        let frames = asset.joint_frames().unwrap_or_default();
        b.poses = frames
            .iter()
            .map(|keys| keys.iter().map(JointKey::matrix3x4).collect())
            .collect();
        if b.poses.is_empty() {
            b.poses.push(
                skeleton
                    .bind_keys()
                    .iter()
                    .map(JointKey::matrix3x4)
                    .collect(),
            );
        }
        let mut first = 0u32;
        for clip in asset.clips.iter().filter(|c| !c.is_empty()) {
            let length = clip.len() as u32;
            b.scenes.push(SceneDef {
                name: clip.name.clone(),
                start: first,
                length,
                framerate: clip.fps,
                looped: clip.looped,
            });
            first += length;
        }
        if b.scenes.is_empty() {
            b.scenes.push(SceneDef {
                name: "bind".into(),
                start: 0,
                length: 1,
                framerate: crate::view::NAMED_CLIP_FPS,
                looped: true,
            });
        }
        if let Some((mins, maxs)) = asset.bounds() {
            b.mins = mins;
            b.maxs = maxs;
            let far = |c: usize| mins[c].abs().max(maxs[c].abs());
            b.radius = (far(0).powi(2) + far(1).powi(2) + far(2).powi(2)).sqrt();
        }
        let mut losses = Vec::new();
        losses.extend(still);
        losses.extend(dropped);
        if cut > 0 {
            losses.push(format!(
                "{cut} vertices had more than one influence; ZYM binds a vertex to one bone, so \
                 each keeps only its heaviest"
            ));
        }
        if unbound > 0 {
            losses.push(format!(
                "{unbound} vertices bound to no joint follow bone 0 ('{}')",
                skeleton.joints[0].name
            ));
        }
        if normals {
            losses.push("ZYM stores no normals; engines derive them from the triangles".into());
        }
        let scaled = asset.scaled_frames();
        if scaled > 0 {
            losses.push(format!(
                "{scaled} frames scale a joint; DarkPlaces normalises rotations, so those frames \
                 differ"
            ));
        }
        Ok(Fitted { builder: b, losses })
    }
}

impl crate::asset::Writer for Builder {
    const FORMAT: Format = Format::Zym;

    fn write_asset(
        asset: &Asset,
        _: &crate::asset::WriteOptions,
    ) -> core::result::Result<crate::asset::Written, crate::asset::WriteError> {
        let Fitted { builder, losses } = Builder::from_asset(asset)?;
        Ok(crate::asset::Written::one(Self::FORMAT, builder.write()?).with_notes(losses))
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

/// A name in `code_page` in a 32-byte NUL-padded field, or [`Error::Write`] past 31 bytes.
fn name32(code_page: CodePage, what: &'static str, name: &str) -> Result<[u8; 32]> {
    let bytes = &*code_page.encode(name);
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
