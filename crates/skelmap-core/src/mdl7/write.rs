//! Writing MDL7 files: [`Builder`].
//!
//! The builder writes what it is given, valid or not, so it also makes malformed test fixtures;
//! [`Mdl7::parse`](crate::Parse::parse) is the judge. It writes the order real files have:
//! header, bones, each group (head, skins, texture coordinates, triangles, vertices, frames),
//! then every group's deformer, then [`Builder::trailing`]. Record sizes are
//! [`Builder::sizes`]; the default is the skinned player's (36-byte bones, 26-byte triangles
//! and vertices).

use zerocopy::IntoBytes;
use zerocopy::byteorder::{F32, LittleEndian, U16, U32};

use super::raw::{
    self, BONETRANS_SIZE, COLORVALUE_SIZE, FRAME_SIZE, Header, MATERIAL_SIZE, MDL7_MAGIC,
    Mdl7Material, NONE16, SKIN_SIZE, SKINPOINT_SIZE,
};
use crate::alias::anorms::NORMALS;
use crate::asset::cut::{Cut, SkinFrames};
use crate::asset::{
    Asset, FitError, Fitted, FrameKeys, Influences, Joint, JointKey, Material, Mesh, Skeleton,
    UpAxis,
};
use crate::format::Format;
use crate::pose::MAX_BIND_INFLUENCES;
use crate::view::NAMED_CLIP_FPS;
use glam::{Affine3A, Vec3};

type Le = LittleEndian;

/// The record sizes a file declares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sizes {
    /// Bone record: 16 (no name), 36 (20-byte name) or 48 (32-byte name).
    pub bone: u16,
    /// Triangle: 12, 16 or 26.
    pub triangle: u16,
    /// Main vertex: 16 (normal-table index) or 26 (float normal).
    pub vertex: u16,
    /// Frame vertex: 16 or 26.
    pub frame_vertex: u16,
}

impl Sizes {
    /// The skinned player's sizes: 36, 26, 26, 26.
    pub const PLAYER: Sizes = Sizes {
        bone: 36,
        triangle: 26,
        vertex: 26,
        frame_vertex: 26,
    };
    /// The older, smaller records of the ball: 36-byte bones, 12-byte triangles, 16-byte
    /// vertices.
    pub const SMALL: Sizes = Sizes {
        bone: 36,
        triangle: 12,
        vertex: 16,
        frame_vertex: 16,
    };
}

/// A bone: name, parent ([`NONE16`] for a root) and position relative to the parent.
#[derive(Debug, Clone, PartialEq)]
pub struct BoneDef {
    /// Name (cut to the record's name field).
    pub name: Vec<u8>,
    /// Parent bone, or [`NONE16`].
    pub parent: u16,
    /// Position relative to the parent.
    pub position: [f32; 3],
}

/// A skin record: its head and the payload its type describes, as bytes.
#[derive(Debug, Clone, PartialEq)]
pub struct SkinDef {
    /// Kind and flags.
    pub typ: u32,
    /// Width (or byte length, or skin index).
    pub width: u32,
    /// Height.
    pub height: u32,
    /// The skin's name.
    pub name: Vec<u8>,
    /// Everything after the head.
    pub payload: Vec<u8>,
}

impl SkinDef {
    /// An external texture named `file`.
    #[must_use]
    pub fn external(file: &[u8]) -> SkinDef {
        let mut payload = file.to_vec();
        payload.push(0);
        SkinDef {
            typ: 7,
            width: payload.len() as u32,
            height: 1,
            name: b"Skin1".to_vec(),
            payload,
        }
    }

    /// An embedded DDS file (kind 6; the width field is its byte length), with a material
    /// after it when `material` (type `0x16`, as GameStudio's character files store them: a
    /// white diffuse and ambient, no specular or emissive light).
    #[must_use]
    pub fn dds(file: &[u8], material: bool) -> SkinDef {
        let mut payload = file.to_vec();
        if material {
            payload.extend_from_slice(lit([1.0; 4]).as_bytes());
        }
        SkinDef {
            typ: if material { 0x16 } else { 0x6 },
            width: file.len() as u32,
            height: 0,
            name: b"SkinDds".to_vec(),
            payload,
        }
    }

    /// An embedded `width × height` RGB565 skin of one colour.
    #[must_use]
    pub fn rgb565(width: u32, height: u32, colour: u16) -> SkinDef {
        let payload = (0..width * height)
            .flat_map(|_| colour.to_le_bytes())
            .collect();
        SkinDef {
            typ: 2,
            width,
            height,
            name: b"Skin2".to_vec(),
            payload,
        }
    }
}

/// A triangle: vertex indices, texture coordinate indices, the material (skin in the group).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TriangleDef {
    /// Vertex indices.
    pub v_index: [u16; 3],
    /// Texture coordinate indices ([`NONE16`] for none).
    pub st_index: [u16; 3],
    /// Material (16- and 26-byte records).
    pub material: u32,
}

/// A vertex: position, bone (main vertices) or replaced vertex (frame vertices), normal.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VertexDef {
    /// Position.
    pub position: [f32; 3],
    /// `vertindex`: the bone of a main vertex ([`NONE16`] for none), the vertex a frame
    /// vertex replaces.
    pub vertindex: u16,
    /// Normal (written as the nearest normal-table entry in 16-byte records).
    pub normal: [f32; 3],
}

/// A frame: a name, replaced vertices and bone motions (`bone`, row-vector matrix).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FrameDef {
    /// Name.
    pub name: Vec<u8>,
    /// Vertices that replace main vertices.
    pub vertices: Vec<VertexDef>,
    /// Bone motions.
    pub transforms: Vec<(u16, [f32; 16])>,
}

/// One bone's weights in a deformer: the bone, then `(vertex, weight)` pairs.
pub type ElementDef = (u32, Vec<(u32, f32)>);

/// A group.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupDef {
    /// `typ` (1).
    pub typ: u8,
    /// Name.
    pub name: Vec<u8>,
    /// The head's `max_weights`.
    pub max_weights: u8,
    /// Skins.
    pub skins: Vec<SkinDef>,
    /// Texture coordinates.
    pub texcoords: Vec<[f32; 2]>,
    /// Triangles.
    pub triangles: Vec<TriangleDef>,
    /// Main vertices.
    pub vertices: Vec<VertexDef>,
    /// Frames.
    pub frames: Vec<FrameDef>,
    /// The bone deformer, written after the last group.
    pub weights: Option<Vec<ElementDef>>,
}

impl Default for GroupDef {
    fn default() -> Self {
        GroupDef {
            typ: 1,
            name: Vec::new(),
            max_weights: 0,
            skins: Vec::new(),
            texcoords: Vec::new(),
            triangles: Vec::new(),
            vertices: Vec::new(),
            frames: Vec::new(),
            weights: None,
        }
    }
}

/// Writes MDL7 files (see the [module docs](self)).
#[derive(Debug, Clone, PartialEq)]
pub struct Builder {
    /// Record sizes.
    pub sizes: Sizes,
    /// The header's `version`.
    pub version: u32,
    /// Bones, parents first.
    pub bones: Vec<BoneDef>,
    /// Groups.
    pub groups: Vec<GroupDef>,
    /// Bytes after the main data (entity and editor lumps).
    pub trailing: Vec<u8>,
}

impl Default for Builder {
    fn default() -> Self {
        Builder {
            sizes: Sizes::PLAYER,
            version: 0,
            bones: Vec::new(),
            groups: Vec::new(),
            trailing: Vec::new(),
        }
    }
}

/// A row-vector matrix turning by `degrees` about the X axis through `pivot`.
#[must_use]
pub fn turn_about(pivot: [f32; 3], degrees: f32) -> [f32; 16] {
    let (s, c) = degrees.to_radians().sin_cos();
    // Rows: x' = x, y' = y·c + z·s, z' = −y·s + z·c as row vectors times the matrix.
    let r = [[1.0, 0.0, 0.0], [0.0, c, s], [0.0, -s, c]];
    let moved = |k: usize| pivot[0] * r[0][k] + pivot[1] * r[1][k] + pivot[2] * r[2][k];
    let t = [
        pivot[0] - moved(0),
        pivot[1] - moved(1),
        pivot[2] - moved(2),
    ];
    [
        r[0][0], r[0][1], r[0][2], 0.0, r[1][0], r[1][1], r[1][2], 0.0, r[2][0], r[2][1], r[2][2],
        0.0, t[0], t[1], t[2], 1.0,
    ]
}

impl Builder {
    /// A small skinned model: a chain of 3 bones along Z, one group of 3 rings of 4 vertices
    /// (each ring bound to one bone, the middle one shared by two), two skins (an external
    /// name and an 8×8 RGB565 texture) and 4 frames bending bones 1 and 2.
    #[must_use]
    pub fn demo() -> Builder {
        let bones = vec![
            BoneDef {
                name: b"root".to_vec(),
                parent: NONE16,
                position: [0.0; 3],
            },
            BoneDef {
                name: b"middle".to_vec(),
                parent: 0,
                position: [0.0, 0.0, 1.0],
            },
            BoneDef {
                name: b"top".to_vec(),
                parent: 1,
                position: [0.0, 0.0, 1.0],
            },
        ];
        let mut vertices = Vec::new();
        let mut texcoords = Vec::new();
        for ring in 0..3u16 {
            for k in 0..4u16 {
                let (s, c) = (f32::from(k) * core::f32::consts::FRAC_PI_2).sin_cos();
                vertices.push(VertexDef {
                    position: [c * 0.5, s * 0.5, f32::from(ring)],
                    vertindex: ring,
                    normal: [c, s, 0.0],
                });
                texcoords.push([f32::from(k) / 4.0, f32::from(ring) / 2.0]);
            }
        }
        let mut triangles = Vec::new();
        for ring in 0..2u16 {
            for k in 0..4u16 {
                let (a, b) = (ring * 4 + k, ring * 4 + (k + 1) % 4);
                let (c, d) = (a + 4, b + 4);
                triangles.push(TriangleDef {
                    v_index: [a, b, d],
                    st_index: [a, b, d],
                    material: u32::from(ring),
                });
                triangles.push(TriangleDef {
                    v_index: [a, d, c],
                    st_index: [a, d, c],
                    material: u32::from(ring),
                });
            }
        }
        let frames = (0..4)
            .map(|f| {
                let degrees = 15.0 * f as f32;
                FrameDef {
                    name: format!("bend {f}").into_bytes(),
                    vertices: Vec::new(),
                    transforms: vec![
                        (0, turn_about([0.0; 3], 0.0)),
                        (1, turn_about([0.0, 0.0, 1.0], degrees)),
                        (2, turn_about([0.0, 0.0, 2.0], degrees)),
                    ],
                }
            })
            .collect();
        // The middle ring is shared half and half by the root and the middle bone.
        let weights = vec![
            (
                0,
                (0..4)
                    .map(|v| (v, 1.0))
                    .chain((4..8).map(|v| (v, 0.5)))
                    .collect(),
            ),
            (1, (4..8).map(|v| (v, 0.5)).collect()),
            (2, (8..12).map(|v| (v, 1.0)).collect()),
        ];
        Builder {
            bones,
            groups: vec![GroupDef {
                max_weights: 2,
                skins: vec![
                    SkinDef::external(b"demo.tga"),
                    SkinDef::rgb565(8, 8, 0xF800),
                ],
                texcoords,
                triangles,
                vertices,
                frames,
                weights: Some(weights),
                ..GroupDef::default()
            }],
            ..Builder::default()
        }
    }

    /// [`Builder::demo`] whose frames also replace vertices, as 14 real skeletal files do: a
    /// 13th vertex bound to no bone (in no triangle), and six frames:
    ///
    /// | frame | bones | replaces |
    /// |---|---|---|
    /// | 0 `bend 0` | unbent | nothing |
    /// | 1 `bend 1` | bent 15° | 2, 5, 9, 12 |
    /// | 2 `bend 2` | bent 30° | 1, 12 |
    /// | 3 `bend 3` | bent 45° | nothing |
    /// | 4 `shift a` | none (the bind pose) | 0, 12 |
    /// | 5 `shift b` | none | 0, 9 |
    ///
    /// Each replacement moves the stored vertex by a tenth to a fifth of a unit in bind space.
    #[must_use]
    pub fn mixed() -> Builder {
        let mut b = Builder::demo();
        let g = &mut b.groups[0];
        g.vertices.push(VertexDef {
            position: [0.0, 0.0, 3.0],
            vertindex: NONE16,
            normal: [0.0, 0.0, 1.0],
        });
        let stored: Vec<VertexDef> = g.vertices.clone();
        let moved = |v: u16, by: [f32; 3]| {
            let s = stored[usize::from(v)];
            VertexDef {
                position: core::array::from_fn(|k| s.position[k] + by[k]),
                vertindex: v,
                normal: s.normal,
            }
        };
        let replaces: [&[(u16, [f32; 3])]; 4] = [
            &[],
            &[
                (2, [0.1, 0.0, 0.0]),
                (5, [0.0, 0.1, 0.0]),
                (9, [0.0, 0.0, 0.2]),
                (12, [0.2, 0.0, 0.0]),
            ],
            &[(1, [0.0, 0.0, 0.1]), (12, [0.0, 0.2, 0.0])],
            &[],
        ];
        for (frame, list) in g.frames.iter_mut().zip(replaces) {
            frame.vertices = list.iter().map(|&(v, by)| moved(v, by)).collect();
        }
        let shift = |name: &str, list: &[(u16, [f32; 3])]| FrameDef {
            name: name.as_bytes().to_vec(),
            vertices: list.iter().map(|&(v, by)| moved(v, by)).collect(),
            transforms: Vec::new(),
        };
        g.frames.push(shift(
            "shift a",
            &[(0, [0.2, 0.0, 0.0]), (12, [0.0, 0.0, 0.2])],
        ));
        g.frames.push(shift(
            "shift b",
            &[(0, [0.0, 0.2, 0.0]), (9, [0.1, 0.1, 0.0])],
        ));
        b
    }

    /// The file's bytes.
    #[must_use]
    pub fn write(&self) -> Vec<u8> {
        let mut out = vec![0u8; size_of::<Header>()];
        for bone in &self.bones {
            out.extend_from_slice(U16::<Le>::new(bone.parent).as_bytes());
            out.extend_from_slice(&[0, 0]);
            put_floats(&mut out, &bone.position);
            let name_len = usize::from(self.sizes.bone).saturating_sub(16);
            out.extend((0..name_len).map(|k| bone.name.get(k).copied().unwrap_or(0)));
        }
        for group in &self.groups {
            self.write_group(&mut out, group);
        }
        for (g, group) in self.groups.iter().enumerate() {
            if let Some(elements) = &group.weights {
                let at = out.len();
                out.extend_from_slice(&[0, raw::DEFORMER_BONES, 0, 0]);
                put_u32(&mut out, g as u32);
                put_u32(&mut out, elements.len() as u32);
                put_u32(&mut out, 0);
                for (bone, weights) in elements {
                    put_u32(&mut out, *bone);
                    let name = self
                        .bones
                        .get(*bone as usize)
                        .map_or(&[][..], |b| b.name.as_slice());
                    out.extend((0..20).map(|k| name.get(k).copied().unwrap_or(0)));
                    put_u32(&mut out, weights.len() as u32);
                    for &(v, w) in weights {
                        put_u32(&mut out, v);
                        put_floats(&mut out, &[w]);
                    }
                }
                let size = (out.len() - at) as u32;
                out[at + 12..at + 16].copy_from_slice(&size.to_le_bytes());
            }
        }
        let data_size = out.len() as u32;
        let header = Header {
            ident: *MDL7_MAGIC,
            version: U32::new(self.version),
            bones_num: U32::new(self.bones.len() as u32),
            groups_num: U32::new(self.groups.len() as u32),
            data_size: U32::new(data_size),
            entlump_size: U32::new(self.trailing.len() as u32),
            medlump_size: U32::new(0),
            bone_stc_size: U16::new(self.sizes.bone),
            skin_stc_size: U16::new(SKIN_SIZE),
            colorvalue_stc_size: U16::new(COLORVALUE_SIZE),
            material_stc_size: U16::new(MATERIAL_SIZE),
            skinpoint_stc_size: U16::new(SKINPOINT_SIZE),
            triangle_stc_size: U16::new(self.sizes.triangle),
            mainvertex_stc_size: U16::new(self.sizes.vertex),
            framevertex_stc_size: U16::new(self.sizes.frame_vertex),
            bonetrans_stc_size: U16::new(BONETRANS_SIZE),
            frame_stc_size: U16::new(FRAME_SIZE),
        };
        out[..size_of::<Header>()].copy_from_slice(header.as_bytes());
        out.extend_from_slice(&self.trailing);
        out
    }

    /// Appends one group: head, skins, texture coordinates, triangles, vertices, frames.
    fn write_group(&self, out: &mut Vec<u8>, group: &GroupDef) {
        let at = out.len();
        out.extend_from_slice(&[
            group.typ,
            u8::from(group.weights.is_some()),
            group.max_weights,
            0,
        ]);
        put_u32(out, 0);
        out.extend((0..16).map(|k| group.name.get(k).copied().unwrap_or(0)));
        for n in [
            group.skins.len(),
            group.texcoords.len(),
            group.triangles.len(),
            group.vertices.len(),
            group.frames.len(),
        ] {
            put_u32(out, n as u32);
        }
        for skin in &group.skins {
            put_u32(out, skin.typ);
            put_u32(out, skin.width);
            put_u32(out, skin.height);
            out.extend((0..16).map(|k| skin.name.get(k).copied().unwrap_or(0)));
            out.extend_from_slice(&skin.payload);
        }
        for st in &group.texcoords {
            put_floats(out, st);
        }
        for tri in &group.triangles {
            let words: Vec<u16> = tri.v_index.iter().chain(&tri.st_index).copied().collect();
            for w in words {
                out.extend_from_slice(&w.to_le_bytes());
            }
            if self.sizes.triangle >= 16 {
                put_u32(out, tri.material);
            }
            if self.sizes.triangle >= 26 {
                out.extend_from_slice(&[0xFF; 6]);
                put_u32(out, u32::MAX);
            }
        }
        for v in &group.vertices {
            put_vertex(out, v, self.sizes.vertex);
        }
        for frame in &group.frames {
            out.extend((0..16).map(|k| frame.name.get(k).copied().unwrap_or(0)));
            put_u32(out, frame.vertices.len() as u32);
            put_u32(out, frame.transforms.len() as u32);
            for v in &frame.vertices {
                put_vertex(out, v, self.sizes.frame_vertex);
            }
            for (bone, m) in &frame.transforms {
                put_floats(out, m);
                out.extend_from_slice(&bone.to_le_bytes());
                out.extend_from_slice(&[0, 0]);
            }
        }
        let size = (out.len() - at) as u32;
        out[at + 4..at + 8].copy_from_slice(&size.to_le_bytes());
    }
}

/// A material of `colour` as its diffuse and ambient light, without specular or emissive
/// light (as GameStudio's character files store them).
fn lit(colour: [f32; 4]) -> Mdl7Material {
    let colour = colour.map(F32::<Le>::new);
    let none = [F32::<Le>::new(0.0); 4];
    Mdl7Material {
        diffuse: colour,
        ambient: colour,
        specular: none,
        emissive: none,
        power: F32::new(0.0),
    }
}

/// Appends a vertex record of `size` bytes (16: nearest normal-table index; 26: the normal).
fn put_vertex(out: &mut Vec<u8>, v: &VertexDef, size: u16) {
    put_floats(out, &v.position);
    out.extend_from_slice(&v.vertindex.to_le_bytes());
    if size >= 26 {
        put_floats(out, &v.normal);
    } else {
        out.push(nearest_normal(v.normal));
        out.push(0);
    }
}

/// The index of the normal-table entry nearest `n`.
fn nearest_normal(n: [f32; 3]) -> u8 {
    let dot = |k: usize| {
        let e = NORMALS.get(k).copied().unwrap_or([0.0; 3]);
        e[0] * n[0] + e[1] * n[1] + e[2] * n[2]
    };
    (0..162)
        .max_by(|&a, &b| dot(a).total_cmp(&dot(b)))
        .unwrap_or(0) as u8
}

fn put_u32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn put_floats(out: &mut Vec<u8>, values: &[f32]) {
    for &v in values {
        out.extend_from_slice(F32::<Le>::new(v).as_bytes());
    }
}

/// Most influences a vertex keeps: what the reader blends ([`MAX_BIND_INFLUENCES`]).
pub const MAX_INFLUENCES: usize = MAX_BIND_INFLUENCES;

/// Longest bone name that keeps its terminating NUL in a 48-byte bone record's 32-byte field
/// (a name that fills its field is read, with an `UnterminatedName` warning).
pub const MAX_BONE_NAME: usize = 31;

/// Longest frame name that keeps its terminating NUL in the 16-byte field.
pub const MAX_FRAME_NAME: usize = 15;

/// Most vertices of one group: triangles name them in 16 bits.
pub const MAX_GROUP_VERTICES: usize = u16::MAX as usize;

/// The skin kind of 32-bit texels (ARGB8888, stored B, G, R, A).
const SKIN_ARGB8888: u32 = 5;

/// The skin flag of a material after the texels or name (alone, with size 0 × 0, a material
/// without a texture).
const SKIN_MATERIAL: u32 = crate::alias::raw::SKINTYPE_MATERIAL as u32;

impl Builder {
    /// `asset` as an MDL7 (`+Z` up; a `+Y`-up asset is turned): one group per asset mesh, in
    /// the bind pose, every vertex with its own texture coordinate; the joints as bones at
    /// their bind positions (36-byte records, or 48 where a name is longer than 19 bytes);
    /// every vertex's influences as the group's bone deformer (at most [`MAX_INFLUENCES`],
    /// chosen by their error over the asset's frames with
    /// [`Influences::cut`](crate::asset::Influences::cut)) and its heaviest bone in its
    /// record's `vertindex`, for readers that ignore deformers; every frame of every clip,
    /// named `clip_k` as DarkPlaces names them so that the clips come back: a frame of joint
    /// keys as one bone transformation per bone in group 0, a morph frame as the vertices
    /// it moves in every group (the bones at their bind pose). A material becomes one skin
    /// of its group: its texture file (or its name) as an external name with its colour as
    /// a `0x10` material (its image, when it has one, as 32-bit texels instead of the name), or
    /// the material alone when it has neither.
    ///
    /// MDL7 bones have no bind rotation: each frame's transformation is the bone's skinning
    /// motion relative to its parent's (`docs/formats/mdl7.md` § Bone frames), so vertices
    /// move as in the asset while the joints' own bind orientations are not kept.
    ///
    /// Losses, in words: more than [`MAX_INFLUENCES`] influences, bind rotations of joints,
    /// joint scale (a transformation that scales is read as its rotation), clip rates and
    /// loops (frame names carry none).
    ///
    /// ```
    /// use skelmap_core::{Model, asset, mdl7, synth};
    /// let bytes = synth::tube(&Default::default()).write()?;
    /// let asset = Model::from_bytes(&bytes)?.to_asset(&asset::Options::default())?;
    /// let file = mdl7::Builder::from_asset(&asset)?.builder.write();
    /// let model = Model::from_bytes(&file)?;
    /// assert_eq!((model.num_bones(), model.num_frames(), model.clips().len()), (4, 9, 2));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`FitError`] for a mesh of more than [`MAX_GROUP_VERTICES`] vertices, more than
    /// 65,535 joints, or a bone name longer than [`MAX_BONE_NAME`] bytes.
    pub fn from_asset(asset: &Asset) -> Result<Fitted<Builder>, FitError> {
        let asset = asset.with_up(UpAxis::Z);
        check_fit(&asset)?;
        let mut losses = Vec::new();
        let joints: &[Joint] = asset.skeleton.as_ref().map_or(&[], |s| &s.joints);
        let long_names = joints.iter().any(|j| asset.name_bytes(&j.name).len() > 19);
        let mut b = Builder {
            sizes: Sizes {
                bone: if long_names { 48 } else { 36 },
                ..Sizes::PLAYER
            },
            bones: bone_defs(&asset, joints),
            ..Builder::default()
        };
        let frames = SkinFrames::of_asset(&asset);
        let mut cuts = Cut::default();
        for (g, mesh) in asset.meshes.iter().enumerate() {
            let cut = mesh
                .influences
                .cut(&mesh.positions, MAX_INFLUENCES, &frames);
            cuts.add(&cut);
            let mut group = mesh_group(&asset, mesh, &cut.influences, joints.len());
            group.name = asset.name_bytes(&asset.mesh_name(g));
            b.groups.push(group);
        }
        losses.extend(cuts.notes("vertices"));
        add_frames(&asset, &mut b, &mut losses);
        losses.extend(asset.frame_name_note(MAX_FRAME_NAME, "MDL7"));
        losses.extend(joint_losses(&asset, joints));
        Ok(Fitted { builder: b, losses })
    }
}

/// Refuses what MDL7 cannot address: a group's vertices past 16 bits, bones past 16 bits,
/// bone names past the longest record's field, an external texture's name past 1023 bytes.
fn check_fit(asset: &Asset) -> Result<(), FitError> {
    if let Some(mesh) = asset
        .meshes
        .iter()
        .find(|m| m.positions.len() > MAX_GROUP_VERTICES)
    {
        return Err(FitError::new(
            "MDL7",
            format!("a mesh of {} vertices", mesh.positions.len()),
            "triangles name a group's vertices in 16 bits: at most 65,535",
            "merge duplicate vertices with `skelmap optimize`, or convert to IQM or DPM",
        ));
    }
    let joints: &[Joint] = asset.skeleton.as_ref().map_or(&[], |s| &s.joints);
    if joints.len() > usize::from(NONE16) {
        return Err(FitError::new(
            "MDL7",
            format!("{} joints", joints.len()),
            "bones are named in 16 bits, 0xFFFF meaning none: at most 65,535",
            "drop unused bones with `skelmap optimize`, or convert to IQM",
        ));
    }
    asset.check_names(
        "MDL7",
        "bone",
        joints.iter().map(|j| j.name.as_str()),
        MAX_BONE_NAME,
    )?;
    // A material without an image is an external texture: its name and NUL fill at most
    // the 1024 bytes MDL7 readers take (`MAX_EXTERNAL_NAME`).
    let textures: Vec<String> = (asset.materials.iter())
        .filter(|m| m.image.is_none())
        .map(|m| m.texture_file().unwrap_or_else(|| m.name.clone()))
        .collect();
    let most = crate::alias::raw::MAX_EXTERNAL_NAME as usize - 1;
    asset.check_names("MDL7", "texture", textures.iter().map(String::as_str), most)
}

/// The joints as bone records: parent, and bind position relative to the parent's.
fn bone_defs(asset: &Asset, joints: &[Joint]) -> Vec<BoneDef> {
    let at = |j: &Joint| Vec3::from(j.world.translation);
    joints
        .iter()
        .map(|j| {
            let parent = j.parent.and_then(|p| joints.get(p));
            let position = at(j) - parent.map_or(Vec3::ZERO, at);
            BoneDef {
                name: asset.name_bytes(&j.name),
                parent: j.parent.map_or(NONE16, |p| p as u16),
                position: position.to_array(),
            }
        })
        .collect()
}

/// One asset mesh as a group: its skin, a texture coordinate per vertex, its triangles, its
/// vertices bound to their heaviest bone, and its deformer from `influences` (bones at or
/// past `bones` and [`UNBOUND`](crate::asset::UNBOUND) left out).
fn mesh_group(asset: &Asset, mesh: &Mesh, influences: &Influences, bones: usize) -> GroupDef {
    let skin = mesh
        .material
        .and_then(|i| Some((i, asset.materials.get(i)?)))
        .map(|(i, m)| material_skin(asset, i, m));
    let material = if skin.is_some() { 0 } else { u32::MAX };
    let bound = |v: usize| -> Vec<(u16, f32)> {
        influences
            .of(v)
            .iter()
            .copied()
            .filter(|&(j, w)| usize::from(j) < bones && w > 0.0)
            .collect()
    };
    let vertices = (0..mesh.positions.len())
        .map(|v| {
            let heaviest = bound(v)
                .into_iter()
                .max_by(|a, b| a.1.total_cmp(&b.1))
                .map_or(NONE16, |(j, _)| j);
            VertexDef {
                position: mesh.positions[v],
                vertindex: heaviest,
                normal: mesh.normals.get(v).copied().unwrap_or([0.0, 0.0, 1.0]),
            }
        })
        .collect();
    let mut elements: Vec<ElementDef> = (0..bones as u32).map(|j| (j, Vec::new())).collect();
    for v in 0..mesh.positions.len() {
        for (j, w) in bound(v) {
            if let Some(element) = elements.get_mut(usize::from(j)) {
                element.1.push((v as u32, w));
            }
        }
    }
    elements.retain(|e| !e.1.is_empty());
    let max_weights = (0..mesh.positions.len())
        .map(|v| bound(v).len())
        .max()
        .unwrap_or(0);
    GroupDef {
        max_weights: max_weights.min(usize::from(u8::MAX)) as u8,
        skins: skin.into_iter().collect(),
        texcoords: mesh.uvs_or_zero(),
        triangles: mesh
            .triangles
            .iter()
            .map(|t| {
                let corners = t.map(|i| i as u16);
                TriangleDef {
                    v_index: corners,
                    st_index: corners,
                    material,
                }
            })
            .collect(),
        vertices,
        weights: (bones > 0).then_some(elements),
        ..GroupDef::default()
    }
}

/// Material `index` as a skin followed by its colour as a material: its image as 32-bit
/// texels (kind 5, ARGB8888 stored B, G, R, A), else the name a file stores for it (its
/// texture file, else its name) as an external texture, else the material alone.
fn material_skin(asset: &Asset, index: usize, m: &Material) -> SkinDef {
    let material = lit(m.base_color);
    let name = match m.texture_file() {
        Some(file) => file,
        None if m.name.contains(char::REPLACEMENT_CHARACTER) => format!("material_{index}"),
        None => m.name.clone(),
    };
    let image = m
        .image
        .and_then(|i| asset.images.get(i))
        .filter(|i| i.rgba.len() == 4 * (i.width as usize) * (i.height as usize));
    let mut skin = if let Some(image) = image {
        SkinDef {
            typ: SKIN_ARGB8888 | SKIN_MATERIAL,
            width: image.width,
            height: image.height,
            name: Vec::new(),
            payload: image
                .rgba
                .chunks_exact(4)
                .flat_map(|c| [c[2], c[1], c[0], c[3]])
                .collect(),
        }
    } else if name.is_empty() {
        SkinDef {
            typ: SKIN_MATERIAL,
            width: 0,
            height: 0,
            name: Vec::new(),
            payload: Vec::new(),
        }
    } else {
        let mut skin = SkinDef::external(&asset.name_bytes(&name));
        skin.typ |= SKIN_MATERIAL;
        skin
    };
    skin.name = asset.name_bytes_within(&name, MAX_FRAME_NAME);
    skin.payload.extend_from_slice(material.as_bytes());
    skin
}

/// Every frame of every clip: joint keys as group 0's bone transformations, a morph target as
/// the vertices it moves in each group.
fn add_frames(asset: &Asset, b: &mut Builder, losses: &mut Vec<String>) {
    let names = asset.frame_names(MAX_FRAME_NAME);
    let skeleton = asset.skeleton.as_ref();
    for (f, name) in names.into_iter().enumerate() {
        let Some((_, keys)) = asset.frame(f) else {
            break;
        };
        for (g, group) in b.groups.iter_mut().enumerate() {
            let mut frame = FrameDef {
                name: name.clone(),
                ..FrameDef::default()
            };
            match keys {
                FrameKeys::Joints(keys) => {
                    if let (0, Some(skeleton)) = (g, skeleton) {
                        frame.transforms = bone_motions(skeleton, keys);
                    }
                }
                FrameKeys::Morph(target) => {
                    if let Some(mesh) = asset.meshes.get(g) {
                        frame.vertices = moved_vertices(mesh, target as usize);
                    }
                }
            }
            group.frames.push(frame);
        }
    }
    if asset
        .clips
        .iter()
        .any(|c| c.fps != NAMED_CLIP_FPS || !c.looped)
    {
        losses.push(format!(
            "MDL7 frames carry names, not clips: the clips come back from the names at \
             {NAMED_CLIP_FPS} fps, looping"
        ));
    }
}

/// Each bone's motion in MDL7's row-vector form for one frame of `keys`: with `S(b)` the
/// asset's skinning matrix (`world · bind⁻¹`), the motion is `S(parent)⁻¹ · S(b)`, so that the
/// reader's `W(b) = M(b) · W(parent)` is `S(b)` again.
fn bone_motions(skeleton: &Skeleton, keys: &[JointKey]) -> Vec<(u16, [f32; 16])> {
    let skins = skeleton.skin_matrices(keys);
    skeleton
        .joints
        .iter()
        .enumerate()
        .map(|(b, j)| {
            let own = skins.get(b).copied().unwrap_or(Affine3A::IDENTITY);
            let parent = j
                .parent
                .and_then(|p| skins.get(p))
                .copied()
                .unwrap_or(Affine3A::IDENTITY);
            let m = unscaled_inverse(parent) * own;
            let (x, y, z, t) = (
                m.matrix3.x_axis,
                m.matrix3.y_axis,
                m.matrix3.z_axis,
                m.translation,
            );
            let row = [
                x.x, x.y, x.z, 0.0, y.x, y.y, y.z, 0.0, z.x, z.y, z.z, 0.0, t.x, t.y, t.z, 1.0,
            ];
            (b as u16, row)
        })
        .collect()
}

/// The inverse of `m`, or where a scale collapses it to a plane, a line or a point in a
/// frame (an IQM joint keyed to scale 0, hiding what it carries) and it has none, the inverse
/// of its rotation and translation alone: the bones below it then move as its rotation and
/// place take them, where an inverse would give them NaN (MDL7 readers drop a motion's scale).
fn unscaled_inverse(m: Affine3A) -> Affine3A {
    let inverse = m.inverse();
    if inverse.is_finite() {
        return inverse;
    }
    let (rotation, translation) = crate::asset::rotation_translation(&m);
    Affine3A::from_rotation_translation(rotation, translation).inverse()
}

/// The vertices morph target `target` moves, at their moved positions.
fn moved_vertices(mesh: &Mesh, target: usize) -> Vec<VertexDef> {
    let moved = mesh.morphed(target);
    moved
        .positions
        .iter()
        .zip(&moved.normals)
        .enumerate()
        .filter(|&(v, (p, n))| mesh.positions.get(v) != Some(p) || mesh.normals.get(v) != Some(n))
        .map(|(v, (p, n))| VertexDef {
            position: *p,
            vertindex: v as u16,
            normal: *n,
        })
        .collect()
}

/// What the joints lose: bind rotations (MDL7 bones have none) and scale.
fn joint_losses(asset: &Asset, joints: &[Joint]) -> Vec<String> {
    let mut losses = Vec::new();
    let turned = joints
        .iter()
        .filter(|j| {
            let (_, rotation, _) = j.world.to_scale_rotation_translation();
            // The turn's angle, `2·atan2(|xyz|, |w|)`: exact for small turns, where
            // `Quat::angle_between` (an `acos`) reads every turn under 7·10⁻⁴ rad as none.
            2.0 * rotation.xyz().length().atan2(rotation.w.abs()) > 1e-4
        })
        .count();
    if turned > 0 {
        losses.push(format!(
            "{turned} joints have a bind rotation; MDL7 bones have none, so their orientation \
             is not kept (the frames move the vertices as the asset does)"
        ));
    }
    let scaled = asset.scaled_frames();
    if scaled > 0 {
        losses.push(format!(
            "{scaled} frames scale a joint; MDL7 readers take a transformation's rotation, so \
             those frames differ (IQM keeps scale)"
        ));
    }
    losses
}

impl crate::asset::Writer for Builder {
    const FORMAT: Format = Format::Mdl7;

    fn write_asset(
        asset: &Asset,
        _: &crate::asset::WriteOptions,
    ) -> Result<crate::asset::Written, crate::asset::WriteError> {
        let Fitted { builder, losses } = Builder::from_asset(asset)?;
        Ok(crate::asset::Written::one(Self::FORMAT, builder.write()).with_notes(losses))
    }

    /// Images become 32-bit skins.
    const STORES_IMAGES: bool = true;
}
