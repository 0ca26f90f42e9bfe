//! Writing MDR files (fixtures, fuzz seeds and conversions): [`Builder`] lays out what it is given in the order
//! ioquake3's loader expects (header, frames, each level of detail with its surfaces, each
//! surface with its vertices and triangles, then the tags), counts and offsets computed, the
//! frames plain or compressed ([`Builder::compressed`]), and says where everything went
//! ([`Layout`]) so that a test can break one field. It writes what it is given; the parser
//! judges. [`Builder::from_asset`] makes one from any [`Asset`] (conversions).

use zerocopy::IntoBytes;
use zerocopy::byteorder::{F32, I32, U16};

use super::raw::{
    MAX_QPATH, MC_BIAS, MC_SCALE_VECT, MC_SCALE_XYZ, MDR_MAGIC, MDR_VERSION, MdrBone, MdrCompBone,
    MdrCompFrame, MdrFrame, MdrHeader, MdrLod, MdrSurface, MdrTag, MdrTriangle,
};
use glam::Affine3A;

use crate::alias::idp3_write::{field, floats, le_i32};
use crate::asset::{Asset, FitError, Fitted, UNBOUND, UpAxis};
use crate::format::Format;

/// A row-major 3×4 matrix: rotation in the first three columns, translation in the fourth.
pub type Matrix = [[f32; 4]; 3];

/// The identity [`Matrix`].
pub const IDENTITY: Matrix = [
    [1.0, 0.0, 0.0, 0.0],
    [0.0, 1.0, 0.0, 0.0],
    [0.0, 0.0, 1.0, 0.0],
];

/// One frame: its name (dropped when compressed) and a model-space matrix per bone. Its
/// bounds, sphere centre and radius are computed from LOD 0's vertices at the frame.
#[derive(Debug, Clone, PartialEq)]
pub struct FrameDef {
    /// At most 16 bytes.
    pub name: Vec<u8>,
    /// One matrix per bone.
    pub bones: Vec<Matrix>,
}

pub use crate::md4::write::{VertexDef, WeightDef};

/// One surface.
#[derive(Debug, Clone, PartialEq)]
pub struct SurfaceDef {
    /// At most 64 bytes.
    pub name: Vec<u8>,
    /// At most 64 bytes.
    pub shader: Vec<u8>,
    /// The vertices.
    pub vertices: Vec<VertexDef>,
    /// Triangles as stored (clockwise seen from the front).
    pub triangles: Vec<[i32; 3]>,
}

/// One tag: a named bone.
#[derive(Debug, Clone, PartialEq)]
pub struct TagDef {
    /// At most 32 bytes.
    pub name: Vec<u8>,
    /// The bone.
    pub bone: i32,
}

/// Builds an MDR.
#[derive(Debug, Clone, PartialEq)]
pub struct Builder {
    /// The model's name, at most 64 bytes.
    pub name: Vec<u8>,
    /// Version (2).
    pub version: i32,
    /// Bones in every frame.
    pub num_bones: usize,
    /// Frames.
    pub frames: Vec<FrameDef>,
    /// `true`: frames written compressed (`mdrCompFrame_t`, a negative `ofs_frames`).
    pub compressed: bool,
    /// Levels of detail, each a list of surfaces; LOD 0 is the model.
    pub lods: Vec<Vec<SurfaceDef>>,
    /// Tags.
    pub tags: Vec<TagDef>,
}

impl Default for Builder {
    fn default() -> Self {
        Builder {
            name: b"model".to_vec(),
            version: MDR_VERSION,
            num_bones: 0,
            frames: Vec::new(),
            compressed: false,
            lods: Vec::new(),
            tags: Vec::new(),
        }
    }
}

/// Where [`Builder::write_with_layout`] put each structure: file offsets.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Layout {
    /// The first frame.
    pub frames: u64,
    /// Each level of detail's header.
    pub lods: Vec<u64>,
    /// Per level of detail, each surface's header.
    pub surfaces: Vec<Vec<u64>>,
    /// Per level of detail, per surface, each vertex's start.
    pub vertices: Vec<Vec<Vec<u64>>>,
    /// Per level of detail, each surface's first triangle.
    pub triangles: Vec<Vec<u64>>,
    /// The first tag.
    pub tags: u64,
    /// The end of the file.
    pub end: u64,
}

/// A turn of `degrees` about `+Z` followed by a move by `t`, as a [`Matrix`].
#[must_use]
pub fn turn_z(degrees: f32, t: [f32; 3]) -> Matrix {
    let (s, c) = degrees.to_radians().sin_cos();
    [[c, -s, 0.0, t[0]], [s, c, 0.0, t[1]], [0.0, 0.0, 1.0, t[2]]]
}

impl Builder {
    /// A two-bone, two-frame model: one surface `triangle` of three vertices, each weighted
    /// to both bones or one, shader `models/triangle`, and a tag `tag_weapon` on bone 1.
    /// Frame 0 holds both bones at the identity; frame 1 turns bone 1 by 90° about `+Z` and
    /// moves it by `(1, 2, 3)`, and moves bone 0 by `(0, 0, 1)`.
    #[must_use]
    pub fn triangle() -> Builder {
        let up = [0.0, 0.0, 1.0];
        let one = |bone, offset| WeightDef {
            bone,
            weight: 1.0,
            offset,
        };
        Builder {
            num_bones: 2,
            frames: vec![
                FrameDef {
                    name: b"stand".to_vec(),
                    bones: vec![IDENTITY, IDENTITY],
                },
                FrameDef {
                    name: b"turn".to_vec(),
                    bones: vec![turn_z(0.0, [0.0, 0.0, 1.0]), turn_z(90.0, [1.0, 2.0, 3.0])],
                },
            ],
            lods: vec![vec![SurfaceDef {
                name: b"triangle".to_vec(),
                shader: b"models/triangle".to_vec(),
                vertices: vec![
                    VertexDef {
                        normal: up,
                        tex_coords: [0.0, 0.0],
                        weights: vec![one(0, [0.0, 0.0, 0.0])],
                    },
                    VertexDef {
                        normal: up,
                        tex_coords: [1.0, 0.0],
                        weights: vec![
                            WeightDef {
                                bone: 0,
                                weight: 0.25,
                                offset: [1.0, 0.0, 0.0],
                            },
                            WeightDef {
                                bone: 1,
                                weight: 0.75,
                                offset: [1.0, 0.0, 0.0],
                            },
                        ],
                    },
                    VertexDef {
                        normal: up,
                        tex_coords: [0.0, 1.0],
                        weights: vec![one(1, [0.0, 1.0, 0.0])],
                    },
                ],
                triangles: vec![[0, 2, 1]],
            }]],
            tags: vec![TagDef {
                name: b"tag_weapon".to_vec(),
                bone: 1,
            }],
            ..Builder::default()
        }
    }

    /// The file's bytes.
    #[must_use]
    pub fn write(&self) -> Vec<u8> {
        self.write_with_layout().0
    }

    /// The file's bytes and where each structure went.
    #[must_use]
    pub fn write_with_layout(&self) -> (Vec<u8>, Layout) {
        let mut out = vec![0u8; size_of::<MdrHeader>()];
        let mut layout = Layout {
            frames: out.len() as u64,
            ..Layout::default()
        };
        for frame in &self.frames {
            self.put_frame(&mut out, frame);
        }
        let lods_at = out.len();
        for (l, surfaces) in self.lods.iter().enumerate() {
            let lod_at = out.len();
            layout.lods.push(lod_at as u64);
            out.extend_from_slice(&[0u8; size_of::<MdrLod>()]);
            let (mut heads, mut starts, mut tris) = (Vec::new(), Vec::new(), Vec::new());
            for s in surfaces {
                heads.push(out.len() as u64);
                let (vertices, triangles) = put_surface(&mut out, s);
                starts.push(vertices);
                tris.push(triangles);
            }
            layout.surfaces.push(heads);
            layout.vertices.push(starts);
            layout.triangles.push(tris);
            let lod = MdrLod {
                num_surfaces: le_i32(surfaces.len()),
                ofs_surfaces: le_i32(size_of::<MdrLod>()),
                ofs_end: le_i32(out.len() - lod_at),
            };
            out[lod_at..lod_at + size_of::<MdrLod>()].copy_from_slice(lod.as_bytes());
            let _ = l;
        }
        layout.tags = out.len() as u64;
        for tag in &self.tags {
            let raw = MdrTag {
                bone_index: I32::new(tag.bone),
                name: field::<32>(&tag.name),
            };
            out.extend_from_slice(raw.as_bytes());
        }
        layout.end = out.len() as u64;
        let frames_at = le_i32(size_of::<MdrHeader>());
        let header = MdrHeader {
            ident: *MDR_MAGIC,
            version: I32::new(self.version),
            name: field::<MAX_QPATH>(&self.name),
            num_frames: le_i32(self.frames.len()),
            num_bones: le_i32(self.num_bones),
            ofs_frames: if self.compressed {
                I32::new(-frames_at.get())
            } else {
                frames_at
            },
            num_lods: le_i32(self.lods.len()),
            ofs_lods: le_i32(lods_at),
            num_tags: le_i32(self.tags.len()),
            ofs_tags: le_i32(layout.tags as usize),
            ofs_end: le_i32(out.len()),
        };
        out[..size_of::<MdrHeader>()].copy_from_slice(header.as_bytes());
        (out, layout)
    }

    /// Appends `frame`: its summary (bounds of LOD 0 at the frame) and `num_bones` matrices
    /// (identity for bones it lacks), plain or compressed.
    fn put_frame(&self, out: &mut Vec<u8>, frame: &FrameDef) {
        let bone = |b: usize| frame.bones.get(b).copied().unwrap_or(IDENTITY);
        let (mut min, mut max) = ([f32::INFINITY; 3], [f32::NEG_INFINITY; 3]);
        for v in self
            .lods
            .first()
            .into_iter()
            .flatten()
            .flat_map(|s| &s.vertices)
        {
            let p = place(v, |b| bone(usize::try_from(b).unwrap_or(usize::MAX)));
            for k in 0..3 {
                min[k] = min[k].min(p[k]);
                max[k] = max[k].max(p[k]);
            }
        }
        if min[0] > max[0] {
            (min, max) = ([0.0; 3], [0.0; 3]);
        }
        let origin: [f32; 3] = core::array::from_fn(|k| 0.5 * (min[k] + max[k]));
        let radius = (0..3)
            .map(|k| (max[k] - origin[k]).powi(2))
            .sum::<f32>()
            .sqrt();
        let summary = MdrCompFrame {
            bounds: [min, max].map(floats),
            local_origin: floats(origin),
            radius: F32::new(radius),
        };
        out.extend_from_slice(summary.as_bytes());
        if self.compressed {
            for b in 0..self.num_bones {
                out.extend_from_slice(compress(&bone(b)).as_bytes());
            }
        } else {
            out.extend_from_slice(&field::<16>(&frame.name));
            for b in 0..self.num_bones {
                let raw = MdrBone {
                    matrix: bone(b).map(floats),
                };
                out.extend_from_slice(raw.as_bytes());
            }
        }
        let _ = size_of::<MdrFrame>();
    }
}

/// Where vertex `v` lands with bone matrices `bone`: ioquake3's `Σ weight · (M · offset)`.
fn place(v: &VertexDef, bone: impl Fn(i32) -> Matrix) -> [f32; 3] {
    let mut p = [0.0f32; 3];
    for w in &v.weights {
        let m = bone(w.bone);
        for (r, row) in m.iter().enumerate() {
            let moved = row[0] * w.offset[0] + row[1] * w.offset[1] + row[2] * w.offset[2] + row[3];
            p[r] += w.weight * moved;
        }
    }
    p
}

/// `m` compressed as `MC_UnCompress` reads it back: each value rounded to its nearest step,
/// clamped to 16 bits.
#[must_use]
pub fn compress(m: &Matrix) -> MdrCompBone {
    let word = |v: f32, scale: f32| {
        let q = (v / scale).round() as i64 + i64::from(MC_BIAS);
        U16::new(q.clamp(0, i64::from(u16::MAX)) as u16)
    };
    let mut comp = [U16::new(0); 12];
    for r in 0..3 {
        comp[r] = word(m[r][3], MC_SCALE_XYZ);
        for c in 0..3 {
            comp[3 + 3 * r + c] = word(m[r][c], MC_SCALE_VECT);
        }
    }
    MdrCompBone { comp }
}

/// Appends surface `s` (header, vertices, triangles); returns each vertex's start and the
/// first triangle's.
fn put_surface(out: &mut Vec<u8>, s: &SurfaceDef) -> (Vec<u64>, u64) {
    let base = out.len();
    out.extend_from_slice(&[0u8; size_of::<MdrSurface>()]);
    let mut starts = Vec::with_capacity(s.vertices.len());
    for v in &s.vertices {
        starts.push(out.len() as u64);
        v.put(out);
    }
    let triangles_at = out.len();
    for t in &s.triangles {
        let raw = MdrTriangle {
            indexes: t.map(I32::new),
        };
        out.extend_from_slice(raw.as_bytes());
    }
    let header = MdrSurface {
        ident: I32::new(0),
        name: field::<MAX_QPATH>(&s.name),
        shader: field::<MAX_QPATH>(&s.shader),
        shader_index: I32::new(0),
        ofs_header: I32::new(-(base as i32)),
        num_verts: le_i32(s.vertices.len()),
        ofs_verts: le_i32(size_of::<MdrSurface>()),
        num_triangles: le_i32(s.triangles.len()),
        ofs_triangles: le_i32(triangles_at - base),
        num_bone_references: I32::new(0),
        ofs_bone_references: le_i32(triangles_at - base),
        ofs_end: le_i32(out.len() - base),
    };
    out[base..base + size_of::<MdrSurface>()].copy_from_slice(header.as_bytes());
    (starts, triangles_at as u64)
}

/// The longest name each field holds with its NUL: a surface's or shader's, a tag's, a
/// frame's.
const MAX_PATH_NAME: usize = MAX_QPATH - 1;
const MAX_TAG_NAME: usize = 31;
const MAX_FRAME_NAME: usize = 15;

/// `m` as MDR's row-major 3×4.
fn matrix(m: &Affine3A) -> Matrix {
    let (x, y, z, t) = (
        m.matrix3.x_axis,
        m.matrix3.y_axis,
        m.matrix3.z_axis,
        m.translation,
    );
    [
        [x.x, y.x, z.x, t.x],
        [x.y, y.y, z.y, t.y],
        [x.z, y.z, z.z, t.z],
    ]
}

impl Builder {
    /// `asset` as an MDR (`+Z` up; a `+Y`-up asset is turned), in the semantics ioquake3's
    /// renderer states for MDR: a frame's matrix for a joint takes a bind-pose point to where
    /// that frame puts it (`world · bind⁻¹`), so every weight's offset is the vertex's
    /// bind-pose position and every normal its bind-pose normal, and skinning at each frame
    /// is exact. One bone per joint, then one bone per attachment (a flagged joint, a joint
    /// named `tag_…`, or a tag of the asset) holding its model-space transform, named by a
    /// tag, since a tag is placed by its bone's matrix. One LOD of one surface per asset
    /// mesh. Every frame of every clip, named after its clip (`walk_1` …, at most 15 bytes),
    /// so that clips come back from the names; their rates and loops go into a
    /// `.framegroups` text beside it
    /// ([`asset::Writer`](crate::asset::Writer)). Frames are written plain (exact); set
    /// [`Builder::compressed`] on the result for ioquake3's 16-bit frames.
    ///
    /// What it cannot keep is said in [`Fitted::losses`]: the hierarchy and the joints'
    /// names (an MDR's bones are model-space matrices without names); a bone matrix that
    /// shears (skelmap reads a bone as a turn and a scale along its axes, which a joint
    /// scaled unevenly under a turned one is not); more than ioquake3's 128
    /// bones (it misdraws such a file). A mesh past ioquake3's 999 vertices or 1999 triangles a
    /// surface is written as several surfaces (`name`, `name_2`, …), vertices shared across
    /// a cut copied into each, as the MD3 writer does; the losses say so.
    ///
    /// ```
    /// use skelmap_core::{Model, asset, mdr, synth};
    /// let bytes = synth::tube(&Default::default()).write()?;
    /// let asset = Model::from_bytes(&bytes)?.to_asset(&asset::Options::default())?;
    /// let fitted = mdr::Builder::from_asset(&asset)?;
    /// let written = fitted.builder.write();
    /// let model = Model::from_bytes(&written)?;
    /// // The tube's four joints, and a bone for its attachment joint's tag.
    /// assert_eq!((model.num_bones(), model.num_frames(), model.clips().len()), (5, 9, 2));
    /// assert_eq!(model.num_tags(), 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`FitError`] for a mesh, shader or tag name too long for its field, and for vertex
    /// animation (morph clips), which MDR cannot hold.
    pub fn from_asset(asset: &Asset) -> Result<Fitted<Builder>, FitError> {
        let asset = asset.with_up(UpAxis::Z);
        // A vertex bound to no joint stays put on a joint added for it.
        let (asset, still) = asset.with_still_joint();
        asset.refuse_vertex_animation("MDR")?;
        let skeleton = asset.skeleton_or_root();
        let shaders: Vec<String> = asset
            .meshes
            .iter()
            .map(|m| asset.material_name(m))
            .collect();
        asset.check_names(
            "MDR",
            "shader",
            shaders.iter().map(String::as_str),
            MAX_PATH_NAME,
        )?;
        let names: Vec<String> = (0..asset.meshes.len())
            .map(|i| asset.mesh_name(i))
            .collect();
        asset.check_names(
            "MDR",
            "mesh",
            names.iter().map(String::as_str),
            MAX_PATH_NAME,
        )?;
        // Attachments: flagged joints and joints named `tag_…`, then the asset's tags.
        let joints = skeleton.joints.len();
        let attached = skeleton.attachment_points();
        let tag_names: Vec<String> = attached
            .iter()
            .map(|&j| skeleton.joints[j].name.clone())
            .chain(asset.tags.iter().map(|t| t.name.clone()))
            .collect();
        asset.check_names(
            "MDR",
            "tag",
            tag_names.iter().map(String::as_str),
            MAX_TAG_NAME,
        )?;
        let mut losses = Vec::new();
        losses.extend(still);
        if joints > 1 {
            losses.push(format!(
                "the hierarchy and names of {joints} joints are not kept: MDR stores each \
                 bone's model-space matrix per frame (attachments come back as tags)"
            ));
        }
        let bind = skeleton.bind_keys();
        let frames: Vec<Vec<crate::asset::JointKey>> = match asset.joint_frames() {
            Some(frames) if !frames.is_empty() => frames.iter().map(|f| f.to_vec()).collect(),
            _ => vec![bind],
        };
        let frame_names = asset.frame_names(MAX_FRAME_NAME);
        let mut b = Builder {
            name: Vec::new(),
            num_bones: joints + tag_names.len(),
            ..Builder::default()
        };
        for (k, keys) in frames.iter().enumerate() {
            let world = skeleton.world(keys);
            let mut bones: Vec<Matrix> = skeleton.skin_matrices(keys).iter().map(matrix).collect();
            bones.extend(attached.iter().map(|&j| matrix(&world[j])));
            bones.extend(
                asset
                    .tags
                    .iter()
                    .map(|t| matrix(t.frames.get(k).unwrap_or(&t.pose))),
            );
            let name = frame_names.get(k).cloned().unwrap_or_else(|| "bind".into());
            b.frames.push(FrameDef { name, bones });
        }
        let sheared = b
            .frames
            .iter()
            .filter(|f| f.bones.iter().any(super::view::shears))
            .count();
        if sheared > 0 {
            losses.push(format!(
                "{sheared} frames shear a bone (a joint scaled unevenly under a turned one): \
                 ioquake3 draws the matrices as written, but skelmap reads a bone as a turn \
                 and a scale along its axes, so those frames differ (IQM keeps them)"
            ));
        }
        b.tags = tag_names
            .into_iter()
            .enumerate()
            .map(|(i, name)| TagDef {
                name: asset.name_bytes(&name),
                bone: (joints + i) as i32,
            })
            .collect();
        let mut surfaces = Vec::new();
        let mut unbound = 0usize;
        for ((mesh, shader), name) in asset.meshes.iter().zip(shaders).zip(names) {
            let vertices = (0..mesh.positions.len())
                .map(|v| {
                    let offset = mesh.positions[v];
                    let mut weights: Vec<WeightDef> = mesh
                        .influences
                        .of(v)
                        .iter()
                        .filter(|&&(j, _)| j != UNBOUND && usize::from(j) < joints)
                        .map(|&(j, weight)| WeightDef {
                            bone: i32::from(j),
                            weight,
                            offset,
                        })
                        .collect();
                    if weights.is_empty() {
                        unbound += 1;
                        weights.push(WeightDef {
                            bone: 0,
                            weight: 1.0,
                            offset,
                        });
                    }
                    VertexDef {
                        normal: mesh.normals.get(v).copied().unwrap_or_default(),
                        tex_coords: mesh.uv(v),
                        weights,
                    }
                })
                .collect::<Vec<_>>();
            let max_verts = super::raw::SHADER_MAX_VERTEXES as usize - 1;
            let max_tris = (super::raw::SHADER_MAX_INDEXES as usize - 1) / 3;
            let pieces = mesh.named_pieces(
                (&name, asset.code_page),
                (max_verts, max_tris),
                MAX_PATH_NAME,
                ("MDR", "ioquake3"),
                &mut losses,
            );
            for (name, piece) in pieces {
                surfaces.push(SurfaceDef {
                    name,
                    shader: asset.name_bytes(&shader),
                    vertices: piece
                        .vertices
                        .iter()
                        .map(|&v| vertices[v as usize].clone())
                        .collect(),
                    // Counter-clockwise in the asset; MDR stores them clockwise.
                    triangles: piece
                        .triangles
                        .iter()
                        .map(|t| [t[2], t[1], t[0]].map(|i| i as i32))
                        .collect(),
                });
            }
        }
        if unbound > 0 {
            losses.push(format!(
                "{unbound} vertices without an influence are bound wholly to bone 0"
            ));
        }
        if b.num_bones > super::raw::MDR_MAX_BONES as usize {
            losses.push(format!(
                "{} bones: past the {} ioquake3 blends (its renderer writes past its array)",
                b.num_bones,
                super::raw::MDR_MAX_BONES
            ));
        }
        b.lods = vec![surfaces];
        Ok(Fitted { builder: b, losses })
    }
}

impl crate::asset::Writer for Builder {
    const FORMAT: Format = Format::Mdr;

    /// The MDR, and its clips in a `.framegroups` beside it (MDR stores frames, not clips).
    fn write_asset(
        asset: &Asset,
        _: &crate::asset::WriteOptions,
    ) -> Result<crate::asset::Written, crate::asset::WriteError> {
        use crate::asset::{Place, Written, WrittenFile};
        let Fitted { builder, losses } = Builder::from_asset(asset)?;
        let mut files = vec![WrittenFile {
            place: Place::Main,
            bytes: builder.write(),
        }];
        if !asset.clips.is_empty() {
            files.push(WrittenFile {
                place: Place::Suffix(".framegroups"),
                bytes: asset.name_bytes(&crate::asset::framegroups_text(asset)),
            });
        }
        Ok(Written::new(Self::FORMAT, files).with_notes(losses))
    }
}
