//! Writing IQM files: [`Builder`].
//!
//! The builder writes what it is given, valid or not, so it also makes malformed test
//! fixtures; [`Iqm::parse`](crate::Parse::parse) is the judge. The layout is the IQM SDK's:
//! header, text, meshes, vertex array records, each array's data, triangles, adjacency,
//! joints, poses, anims, frames, bounds, comment, extensions. Every section starts 4-aligned
//! (vertex data 8-aligned, as the SDK aligns it) unless [`Builder::misalign`] asks otherwise.
//!
//! Poses are given as floats per frame and quantised as the SDK's compiler does: per pose and
//! channel, the smallest value is the channel's offset and one step of the stored `u16` is
//! `(largest − smallest) / 65535`; a channel whose values do not vary is left out of the mask.

use zerocopy::IntoBytes;
use zerocopy::byteorder::{F32, I32, LittleEndian, U32};

use super::raw::{self, Header, IQM_MAGIC, IQM_VERSION, NUM_CHANNELS};
use crate::asset::cut::{Cut, SkinFrames};
use crate::asset::{
    Asset, FitError, Fitted, JointKey, PosedMesh, UNBOUND, UpAxis, quantise_weights,
};
use crate::error::Result;
use crate::format::Format;
use crate::write::u32_field;

type Le = LittleEndian;

const FORMAT: Format = Format::Iqm;

/// A mesh: a range of the vertices and triangles, with a name and material.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MeshDef {
    /// Name.
    pub name: Vec<u8>,
    /// Material (texture) name.
    pub material: Vec<u8>,
    /// First vertex of the range.
    pub first_vertex: u32,
    /// Vertices in the range.
    pub num_vertexes: u32,
    /// First triangle.
    pub first_triangle: u32,
    /// Triangles.
    pub num_triangles: u32,
}

/// A joint of the bind pose, relative to its parent.
#[derive(Debug, Clone, PartialEq)]
pub struct JointDef {
    /// Name.
    pub name: Vec<u8>,
    /// Parent, −1 for a root.
    pub parent: i32,
    /// The transform.
    pub transform: Transform,
}

/// Translation, rotation (`x, y, z, w`) and scale, applied scale first.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Transform {
    /// Translation.
    pub translate: [f32; 3],
    /// Rotation quaternion `x, y, z, w`.
    pub rotate: [f32; 4],
    /// Scale.
    pub scale: [f32; 3],
}

impl Transform {
    /// No translation, rotation or scale.
    pub const IDENTITY: Transform = Transform {
        translate: [0.0; 3],
        rotate: [0.0, 0.0, 0.0, 1.0],
        scale: [1.0; 3],
    };

    /// The ten channels in file order.
    fn channels(&self) -> [f32; NUM_CHANNELS] {
        let (t, r, s) = (self.translate, self.rotate, self.scale);
        [t[0], t[1], t[2], r[0], r[1], r[2], r[3], s[0], s[1], s[2]]
    }
}

/// An anim: a named run of frames.
#[derive(Debug, Clone, PartialEq)]
pub struct AnimDef {
    /// Name.
    pub name: Vec<u8>,
    /// First frame.
    pub first_frame: u32,
    /// Frames.
    pub num_frames: u32,
    /// Frames per second.
    pub framerate: f32,
    /// Whether it loops.
    pub looped: bool,
}

/// One frame's bounds.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct BoundsDef {
    /// Box minimum.
    pub mins: [f32; 3],
    /// Box maximum.
    pub maxs: [f32; 3],
    /// Radius in the X-Y plane.
    pub xy_radius: f32,
    /// Spherical radius.
    pub radius: f32,
}

/// A vertex array of a type the builder has no field for (a custom type, or a standard type
/// in another format), written after the standard ones.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArrayDef {
    /// `type` (a custom type is `IQM_CUSTOM` + the text offset of [`ArrayDef::name`]).
    pub type_: u32,
    /// For a custom array, its name (added to the text; `type_` is then computed).
    pub name: Option<Vec<u8>>,
    /// Component format.
    pub format: u32,
    /// Components per vertex.
    pub size: u32,
    /// The data, as written.
    pub data: Vec<u8>,
}

/// An IQM file to write. Empty vectors are sections left out.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Builder {
    /// Positions, one per vertex; their count is `num_vertexes`.
    pub positions: Vec<[f32; 3]>,
    /// Texture coordinates.
    pub texcoords: Vec<[f32; 2]>,
    /// Normals.
    pub normals: Vec<[f32; 3]>,
    /// Tangents, `w` the bitangent's sign.
    pub tangents: Vec<[f32; 4]>,
    /// Blend indexes.
    pub blend_indexes: Vec<[u8; 4]>,
    /// Blend weights, summing to 255.
    pub blend_weights: Vec<[u8; 4]>,
    /// Colours, RGBA.
    pub colors: Vec<[u8; 4]>,
    /// Other arrays, after the standard ones.
    pub arrays: Vec<ArrayDef>,
    /// Triangles (global vertex indices).
    pub triangles: Vec<[u32; 3]>,
    /// Per triangle, its neighbours across each edge (`u32::MAX` for none).
    pub adjacency: Vec<[u32; 3]>,
    /// Meshes.
    pub meshes: Vec<MeshDef>,
    /// Joints.
    pub joints: Vec<JointDef>,
    /// Per frame, one transform per pose.
    pub frames: Vec<Vec<Transform>>,
    /// The poses' parents, for an animation without joints (with joints, theirs are used).
    pub pose_parents: Vec<i32>,
    /// Anims.
    pub anims: Vec<AnimDef>,
    /// Bounds, one per frame.
    pub bounds: Vec<BoundsDef>,
    /// Comment.
    pub comment: Vec<u8>,
    /// Extensions, as name and data, chained in order.
    pub extensions: Vec<(Vec<u8>, Vec<u8>)>,
    /// Bytes inserted before every section after the header (1 makes every offset odd, as in
    /// real files whose sections are not aligned).
    pub misalign: u32,
}

impl Builder {
    /// A small skinned model: three joints in a chain (root, spine, head), two meshes of a
    /// square each sharing the vertex arrays, four frames in which the spine turns about Z and
    /// the head's X scale grows from 1 to 1.6, two anims ("idle" looping, "wave"), bounds per
    /// frame.
    #[must_use]
    pub fn demo() -> Builder {
        let joint = |name: &str, parent, y: f32| JointDef {
            name: name.into(),
            parent,
            transform: Transform {
                translate: [0.0, y, 0.0],
                ..Transform::IDENTITY
            },
        };
        let joints = vec![
            joint("root", -1, 0.0),
            joint("spine", 0, 1.0),
            joint("head", 1, 1.0),
        ];
        let positions = vec![
            [-0.5, 0.0, 0.0],
            [0.5, 0.0, 0.0],
            [0.5, 1.0, 0.0],
            [-0.5, 1.0, 0.0],
            [-0.5, 1.0, 0.0],
            [0.5, 1.0, 0.0],
            [0.5, 2.0, 0.0],
            [-0.5, 2.0, 0.0],
        ];
        let n = positions.len();
        let frames = (0..4)
            .map(|f| {
                let a = f as f32 * 0.2;
                let (s, c) = (a * 0.5).sin_cos();
                vec![
                    Transform::IDENTITY,
                    Transform {
                        translate: [0.0, 1.0, 0.0],
                        rotate: [0.0, 0.0, s, c],
                        scale: [1.0; 3],
                    },
                    Transform {
                        translate: [0.0, 1.0, 0.0],
                        rotate: [0.0, 0.0, 0.0, 1.0],
                        scale: [1.0 + a, 1.0, 1.0],
                    },
                ]
            })
            .collect();
        Builder {
            texcoords: positions.iter().map(|p| [p[0] + 0.5, p[1] / 2.0]).collect(),
            normals: vec![[0.0, 0.0, 1.0]; n],
            blend_indexes: vec![
                [0, 0, 0, 0],
                [0, 0, 0, 0],
                [1, 0, 0, 0],
                [1, 0, 0, 0],
                [1, 2, 0, 0],
                [1, 2, 0, 0],
                [2, 0, 0, 0],
                [2, 0, 0, 0],
            ],
            blend_weights: vec![
                [255, 0, 0, 0],
                [255, 0, 0, 0],
                [255, 0, 0, 0],
                [255, 0, 0, 0],
                [128, 127, 0, 0],
                [128, 127, 0, 0],
                [255, 0, 0, 0],
                [255, 0, 0, 0],
            ],
            positions,
            triangles: vec![[0, 1, 2], [0, 2, 3], [4, 5, 6], [4, 6, 7]],
            meshes: vec![
                MeshDef {
                    name: "body".into(),
                    material: "body.png".into(),
                    first_vertex: 0,
                    num_vertexes: 4,
                    first_triangle: 0,
                    num_triangles: 2,
                },
                MeshDef {
                    name: "head".into(),
                    material: "head.png".into(),
                    first_vertex: 4,
                    num_vertexes: 4,
                    first_triangle: 2,
                    num_triangles: 2,
                },
            ],
            joints,
            frames,
            anims: vec![
                AnimDef {
                    name: "idle".into(),
                    first_frame: 0,
                    num_frames: 1,
                    framerate: 10.0,
                    looped: true,
                },
                AnimDef {
                    name: "wave".into(),
                    first_frame: 1,
                    num_frames: 3,
                    framerate: 15.0,
                    looped: false,
                },
            ],
            bounds: vec![
                BoundsDef {
                    mins: [-1.0, 0.0, 0.0],
                    maxs: [1.0, 2.5, 0.0],
                    xy_radius: 2.7,
                    radius: 2.7,
                };
                4
            ],
            ..Builder::default()
        }
    }

    /// The file's bytes.
    ///
    /// # Errors
    ///
    /// [`Error::Write`](crate::Error::Write) when a count or offset does not fit 32 bits.
    pub fn write(&self) -> Result<Vec<u8>> {
        let mut text = Text::default();
        // Names first, in the order the records name them, so offsets are known.
        let names = Names::new(self, &mut text);
        let mut out = Sections {
            bytes: vec![0u8; size_of::<Header>()],
            pad: self.misalign as usize,
        };
        let mut h = self.header()?;
        if !text.bytes.is_empty() {
            h.ofs_text = out.start(4)?;
            h.num_text = U32::new(field("num_text", text.bytes.len())?);
            out.bytes.extend_from_slice(&text.bytes);
        }
        if !self.meshes.is_empty() {
            h.ofs_meshes = out.start(4)?;
            h.num_meshes = U32::new(field("num_meshes", self.meshes.len())?);
            self.write_meshes(&mut out.bytes, &names.meshes);
        }
        let arrays = self.vertex_arrays(&names.custom);
        if !arrays.is_empty() {
            h.ofs_vertexarrays = out.start(4)?;
            h.num_vertexarrays = U32::new(field("num_vertexarrays", arrays.len())?);
            out.vertex_arrays(&arrays)?;
        }
        for (ofs, list) in [
            (&mut h.ofs_triangles, &self.triangles),
            (&mut h.ofs_adjacency, &self.adjacency),
        ] {
            if !list.is_empty() {
                *ofs = out.start(4)?;
                for t in list {
                    out.bytes
                        .extend_from_slice(t.map(U32::<Le>::new).as_bytes());
                }
            }
        }
        if !self.joints.is_empty() {
            h.ofs_joints = out.start(4)?;
            self.write_joints(&mut out.bytes, &names.joints);
        }
        self.write_animation(&mut out, &mut h, &names.anims)?;
        if !self.comment.is_empty() {
            h.ofs_comment = out.start(1)?;
            h.num_comment = U32::new(field("num_comment", self.comment.len())?);
            out.bytes.extend_from_slice(&self.comment);
        }
        if !self.extensions.is_empty() {
            h.ofs_extensions = out.extensions(&self.extensions, &names.extensions)?;
        }
        let mut out = out.bytes;
        h.filesize = U32::new(field("filesize", out.len())?);
        out[..size_of::<Header>()].copy_from_slice(h.as_bytes());
        Ok(out)
    }

    /// The header with the counts the builder knows before laying out, every offset 0.
    fn header(&self) -> Result<Header> {
        Ok(Header {
            magic: *IQM_MAGIC,
            version: U32::new(IQM_VERSION),
            filesize: U32::new(0),
            flags: U32::new(0),
            num_text: U32::new(0),
            ofs_text: U32::new(0),
            num_meshes: U32::new(0),
            ofs_meshes: U32::new(0),
            num_vertexarrays: U32::new(0),
            num_vertexes: U32::new(field("num_vertexes", self.positions.len())?),
            ofs_vertexarrays: U32::new(0),
            num_triangles: U32::new(field("num_triangles", self.triangles.len())?),
            ofs_triangles: U32::new(0),
            ofs_adjacency: U32::new(0),
            num_joints: U32::new(field("num_joints", self.joints.len())?),
            ofs_joints: U32::new(0),
            num_poses: U32::new(0),
            ofs_poses: U32::new(0),
            num_anims: U32::new(field("num_anims", self.anims.len())?),
            ofs_anims: U32::new(0),
            num_frames: U32::new(field("num_frames", self.frames.len())?),
            num_framechannels: U32::new(0),
            ofs_frames: U32::new(0),
            ofs_bounds: U32::new(0),
            num_comment: U32::new(0),
            ofs_comment: U32::new(0),
            num_extensions: U32::new(field("num_extensions", self.extensions.len())?),
            ofs_extensions: U32::new(0),
        })
    }

    /// Appends the mesh records, named by `names` (name, material).
    fn write_meshes(&self, out: &mut Vec<u8>, names: &[(u32, u32)]) {
        for (m, (name, material)) in self.meshes.iter().zip(names) {
            let record = raw::Mesh {
                name: U32::new(*name),
                material: U32::new(*material),
                first_vertex: U32::new(m.first_vertex),
                num_vertexes: U32::new(m.num_vertexes),
                first_triangle: U32::new(m.first_triangle),
                num_triangles: U32::new(m.num_triangles),
            };
            out.extend_from_slice(record.as_bytes());
        }
    }

    /// The vertex arrays in writer order, each `(type, format, size, data)`: the standard
    /// ones the builder has, then its custom ones (named by `custom`).
    fn vertex_arrays(&self, custom: &[Option<u32>]) -> Vec<(u32, u32, u32, Vec<u8>)> {
        let mut arrays: Vec<(u32, u32, u32, Vec<u8>)> = Vec::new();
        let floats = |v: &[f32]| v.iter().flat_map(|f| f.to_le_bytes()).collect::<Vec<u8>>();
        for (type_, size, values) in [
            (raw::IQM_POSITION, 3, self.positions.as_flattened()),
            (raw::IQM_TEXCOORD, 2, self.texcoords.as_flattened()),
            (raw::IQM_NORMAL, 3, self.normals.as_flattened()),
            (raw::IQM_TANGENT, 4, self.tangents.as_flattened()),
        ] {
            if !values.is_empty() {
                arrays.push((type_, raw::IQM_FLOAT, size, floats(values)));
            }
        }
        for (type_, bytes) in [
            (raw::IQM_BLENDINDEXES, &self.blend_indexes),
            (raw::IQM_BLENDWEIGHTS, &self.blend_weights),
            (raw::IQM_COLOR, &self.colors),
        ] {
            if !bytes.is_empty() {
                arrays.push((type_, raw::IQM_UBYTE, 4, bytes.as_flattened().to_vec()));
            }
        }
        for (a, name) in self.arrays.iter().zip(custom) {
            let type_ = name.map_or(a.type_, |n| raw::IQM_CUSTOM + n);
            arrays.push((type_, a.format, a.size, a.data.clone()));
        }
        arrays
    }

    /// Appends the joint records, named by `names`.
    fn write_joints(&self, out: &mut Vec<u8>, names: &[u32]) {
        for (j, name) in self.joints.iter().zip(names) {
            let t = &j.transform;
            let record = raw::Joint {
                name: U32::new(*name),
                parent: I32::new(j.parent),
                translate: t.translate.map(F32::new),
                rotate: t.rotate.map(F32::new),
                scale: t.scale.map(F32::new),
            };
            out.extend_from_slice(record.as_bytes());
        }
    }

    /// Appends the animation's sections (poses, anims named by `names`, the quantised frames,
    /// bounds) and sets their header fields.
    fn write_animation(&self, out: &mut Sections, h: &mut Header, names: &[u32]) -> Result<()> {
        let (poses, values) = self.quantise();
        if !poses.is_empty() {
            h.ofs_poses = out.start(4)?;
            h.num_poses = U32::new(field("num_poses", poses.len())?);
            for p in &poses {
                out.bytes.extend_from_slice(p.as_bytes());
            }
        }
        if !self.anims.is_empty() {
            h.ofs_anims = out.start(4)?;
            for (a, name) in self.anims.iter().zip(names) {
                let record = raw::Anim {
                    name: U32::new(*name),
                    first_frame: U32::new(a.first_frame),
                    num_frames: U32::new(a.num_frames),
                    framerate: F32::new(a.framerate),
                    flags: U32::new(if a.looped { raw::IQM_LOOP } else { 0 }),
                };
                out.bytes.extend_from_slice(record.as_bytes());
            }
        }
        let channels: u32 = poses
            .iter()
            .map(|p| (p.channelmask.get() & raw::CHANNEL_MASK).count_ones())
            .sum();
        h.num_framechannels = U32::new(channels);
        if !values.is_empty() {
            h.ofs_frames = out.start(4)?;
            for v in &values {
                out.bytes.extend_from_slice(&v.to_le_bytes());
            }
        }
        if !self.bounds.is_empty() {
            h.ofs_bounds = out.start(4)?;
            for b in &self.bounds {
                let record = raw::Bounds {
                    bbmins: b.mins.map(F32::new),
                    bbmaxs: b.maxs.map(F32::new),
                    xyradius: F32::new(b.xy_radius),
                    radius: F32::new(b.radius),
                };
                out.bytes.extend_from_slice(record.as_bytes());
            }
        }
        Ok(())
    }

    /// The pose records and the frames' `u16` values, quantised per pose and channel.
    fn quantise(&self) -> (Vec<raw::Pose>, Vec<u16>) {
        let num_poses = self.frames.iter().map(Vec::len).max().unwrap_or(0);
        let channels = |f: usize, p: usize| {
            self.frames
                .get(f)
                .and_then(|frame| frame.get(p))
                .unwrap_or(&Transform::IDENTITY)
                .channels()
        };
        let mut poses = Vec::with_capacity(num_poses);
        for p in 0..num_poses {
            let parent = self
                .joints
                .get(p)
                .map(|j| j.parent)
                .or_else(|| self.pose_parents.get(p).copied())
                .unwrap_or(-1);
            let mut pose = raw::Pose {
                parent: I32::new(parent),
                channelmask: U32::new(0),
                channeloffset: [F32::new(0.0); NUM_CHANNELS],
                channelscale: [F32::new(0.0); NUM_CHANNELS],
            };
            let mut mask = 0;
            for c in 0..NUM_CHANNELS {
                let (mut lo, mut hi) = (f32::INFINITY, f32::NEG_INFINITY);
                for f in 0..self.frames.len() {
                    let v = channels(f, p)[c];
                    lo = lo.min(v);
                    hi = hi.max(v);
                }
                if self.frames.is_empty() {
                    (lo, hi) = (0.0, 0.0);
                }
                pose.channeloffset[c] = F32::new(lo);
                if hi - lo > 1e-7 {
                    mask |= 1 << c;
                    pose.channelscale[c] = F32::new((hi - lo) / 65535.0);
                }
            }
            pose.channelmask = U32::new(mask);
            poses.push(pose);
        }
        let mut values = Vec::new();
        for f in 0..self.frames.len() {
            for (p, pose) in poses.iter().enumerate() {
                let c = channels(f, p);
                for (k, v) in c.iter().enumerate() {
                    if pose.channelmask.get() >> k & 1 == 1 {
                        let (offset, scale) =
                            (pose.channeloffset[k].get(), pose.channelscale[k].get());
                        values.push(((v - offset) / scale).round().clamp(0.0, 65535.0) as u16);
                    }
                }
            }
        }
        (poses, values)
    }
}

/// The string table under construction: starts with the empty string.
#[derive(Debug)]
struct Text {
    bytes: Vec<u8>,
}

impl Default for Text {
    fn default() -> Self {
        Text { bytes: vec![0] }
    }
}

impl Text {
    /// Appends `s` and its NUL and returns its offset (0 for the empty string).
    fn add(&mut self, s: &[u8]) -> u32 {
        if s.is_empty() {
            return 0;
        }
        let at = self.bytes.len() as u32;
        self.bytes.extend_from_slice(s);
        self.bytes.push(0);
        at
    }
}

/// A count or offset as a 32-bit field.
fn field(what: &'static str, value: usize) -> Result<u32> {
    u32_field(FORMAT, what, value as u64)
}

/// Joints an IQM's byte blend indices can name.
pub const MAX_JOINTS: usize = 256;

impl Builder {
    /// `asset` as an IQM (`+Z` up; a `+Y`-up asset is turned): its joints, one mesh per asset
    /// mesh over one run of the vertex arrays, every frame of every clip in clip order, the
    /// clips as anims, bounds per frame. Each vertex keeps four influences, chosen by their
    /// error over the asset's frames ([`Influences::cut`](crate::asset::Influences::cut)),
    /// scaled to sum to 1 and rounded to 255ths by largest remainder so they total exactly
    /// 255; the losses say how many vertices had more. A vertex bound to no joint is bound to
    /// a joint added for it ([`Asset::with_still_joint`]). An asset without a skeleton
    /// becomes a static IQM.
    ///
    /// ```
    /// use skelmap_core::{Model, asset, iqm, synth};
    /// let dpm = synth::tube(&Default::default()).write()?;
    /// let asset = Model::from_bytes(&dpm)?.to_asset(&asset::Options::default())?;
    /// let fitted = iqm::Builder::from_asset(&asset)?;
    /// let bytes = fitted.builder.write()?;
    /// let model = Model::from_bytes(&bytes)?;
    /// assert_eq!((model.num_bones(), model.num_frames(), model.clips().len()), (4, 9, 2));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`FitError`] for more than [`MAX_JOINTS`] joints, or for vertex animation (morph
    /// clips), which IQM cannot hold.
    pub fn from_asset(asset: &Asset) -> core::result::Result<Fitted<Builder>, FitError> {
        let asset = asset.with_up(UpAxis::Z);
        // A vertex bound to no joint stays put on a joint added for it.
        let (asset, still) = asset.with_still_joint();
        let joints = asset.skeleton.as_ref().map_or(0, |s| s.joints.len());
        if joints > MAX_JOINTS {
            return Err(FitError::new(
                "IQM",
                format!("{joints} joints"),
                format!("its blend indices are bytes, so at most {MAX_JOINTS} joints"),
                "drop unused bones with `skelmap optimize`, or convert to DPM or SKM",
            ));
        }
        asset.refuse_vertex_animation("IQM")?;
        let mut b = Builder::default();
        let mut losses = Vec::new();
        losses.extend(still);
        let has_uvs = asset.meshes.iter().any(|m| m.uvs.is_some());
        let has_colors =
            asset.meshes.iter().all(|m| m.colors.is_some()) && !asset.meshes.is_empty();
        let frames = SkinFrames::of_asset(&asset);
        let mut cuts = Cut::default();
        for (i, mesh) in asset.meshes.iter().enumerate() {
            let first_vertex = b.positions.len() as u32;
            let first_triangle = b.triangles.len() as u32;
            b.positions.extend_from_slice(&mesh.positions);
            b.normals.extend_from_slice(&mesh.normals);
            if has_uvs {
                b.texcoords.extend(mesh.uvs_or_zero());
            }
            if has_colors {
                let colors = mesh.colors.as_deref().unwrap_or_default();
                b.colors.extend(
                    (0..mesh.positions.len()).map(|v| colors.get(v).copied().unwrap_or([255; 4])),
                );
            }
            if joints > 0 {
                let cut = mesh.influences.cut(&mesh.positions, 4, &frames);
                cuts.add(&cut);
                for v in 0..mesh.positions.len() {
                    let top: Vec<(u16, f32)> = cut
                        .influences
                        .of(v)
                        .iter()
                        .copied()
                        .filter(|&(j, _)| j != UNBOUND)
                        .collect();
                    let bytes = quantise_weights(&top.iter().map(|t| t.1).collect::<Vec<_>>(), 255);
                    let (mut index, mut weight) = ([0u8; 4], [0u8; 4]);
                    for (k, (&(j, _), q)) in top.iter().zip(bytes).enumerate() {
                        index[k] = u8::try_from(j).unwrap_or(0);
                        weight[k] = u8::try_from(q).unwrap_or(255);
                    }
                    if top.is_empty() {
                        weight[0] = 255;
                    }
                    b.blend_indexes.push(index);
                    b.blend_weights.push(weight);
                }
            }
            b.triangles
                .extend(mesh.triangles.iter().map(|t| t.map(|i| i + first_vertex)));
            let material = mesh
                .material
                .and_then(|m| asset.materials.get(m))
                .map(|m| m.texture_file().unwrap_or_else(|| m.name.clone()))
                .unwrap_or_default();
            b.meshes.push(MeshDef {
                name: asset.name_bytes(&asset.mesh_name(i)),
                material: asset.name_bytes(&material),
                first_vertex,
                num_vertexes: mesh.positions.len() as u32,
                first_triangle,
                num_triangles: mesh.triangles.len() as u32,
            });
        }
        losses.extend(cuts.notes("vertices"));
        let transform = |k: &JointKey| Transform {
            translate: k.translation.into(),
            rotate: k.rotation.to_array(),
            scale: k.scale.into(),
        };
        if let Some(skeleton) = &asset.skeleton {
            b.joints = skeleton
                .joints
                .iter()
                .zip(skeleton.bind_keys())
                .map(|(j, key)| JointDef {
                    name: asset.name_bytes(&j.name),
                    parent: j.parent.map_or(-1, |p| p as i32),
                    transform: transform(&key),
                })
                .collect();
            b.frames = asset
                .joint_frames()
                .unwrap_or_default()
                .into_iter()
                .map(|keys| keys.iter().map(transform).collect())
                .collect();
            let mut first = 0u32;
            for clip in &asset.clips {
                let count = clip.len() as u32;
                b.anims.push(AnimDef {
                    name: asset.name_bytes(&clip.name),
                    first_frame: first,
                    num_frames: count,
                    framerate: clip.fps,
                    looped: clip.looped,
                });
                first += count;
            }
            b.bounds = (0..b.frames.len())
                .map(|f| bounds_of(asset.posed(Some(f)).unwrap_or_default()))
                .collect();
        }
        Ok(Fitted { builder: b, losses })
    }
}

/// The bounds of every posed vertex.
fn bounds_of(meshes: Vec<PosedMesh>) -> BoundsDef {
    let mut b: Option<BoundsDef> = None;
    for p in meshes.iter().flat_map(|m| m.positions.iter()) {
        let xy = (p[0] * p[0] + p[1] * p[1]).sqrt();
        let r = (xy * xy + p[2] * p[2]).sqrt();
        let b = b.get_or_insert(BoundsDef {
            mins: *p,
            maxs: *p,
            xy_radius: xy,
            radius: r,
        });
        for ((lo, hi), c) in b.mins.iter_mut().zip(&mut b.maxs).zip(p) {
            *lo = lo.min(*c);
            *hi = hi.max(*c);
        }
        b.xy_radius = b.xy_radius.max(xy);
        b.radius = b.radius.max(r);
    }
    b.unwrap_or_default()
}

impl crate::asset::Writer for Builder {
    const FORMAT: Format = Format::Iqm;

    fn write_asset(
        asset: &Asset,
        _: &crate::asset::WriteOptions,
    ) -> core::result::Result<crate::asset::Written, crate::asset::WriteError> {
        let Fitted { builder, losses } = Builder::from_asset(asset)?;
        Ok(crate::asset::Written::one(Self::FORMAT, builder.write()?).with_notes(losses))
    }
}

/// The string-table offsets of every name the records store, added in the order the
/// records name them.
struct Names {
    /// Each mesh's name and material.
    meshes: Vec<(u32, u32)>,
    joints: Vec<u32>,
    anims: Vec<u32>,
    extensions: Vec<u32>,
    /// Each custom array's name (`None` for an array of a standard type).
    custom: Vec<Option<u32>>,
}

impl Names {
    fn new(b: &Builder, text: &mut Text) -> Names {
        let meshes = b
            .meshes
            .iter()
            .map(|m| (text.add(&m.name), text.add(&m.material)))
            .collect();
        let joints = b.joints.iter().map(|j| text.add(&j.name)).collect();
        let anims = b.anims.iter().map(|a| text.add(&a.name)).collect();
        let extensions = b.extensions.iter().map(|(n, _)| text.add(n)).collect();
        let custom = b
            .arrays
            .iter()
            .map(|a| a.name.as_ref().map(|n| text.add(n)))
            .collect();
        Names {
            meshes,
            joints,
            anims,
            extensions,
            custom,
        }
    }
}

/// The file being laid out: its bytes, and the padding [`Builder::misalign`] puts before
/// each section.
struct Sections {
    bytes: Vec<u8>,
    pad: usize,
}

impl Sections {
    /// Starts a section aligned to `align` (then misaligned by the padding): its offset.
    fn start(&mut self, align: usize) -> Result<U32<Le>> {
        while !self.bytes.len().is_multiple_of(align) {
            self.bytes.push(0);
        }
        self.bytes.resize(self.bytes.len() + self.pad, 0);
        Ok(U32::new(field("offset", self.bytes.len())?))
    }

    /// Appends the vertex array records, then each array's data (8-aligned), filling in the
    /// records' offsets.
    fn vertex_arrays(&mut self, arrays: &[(u32, u32, u32, Vec<u8>)]) -> Result<()> {
        let records_at = self.bytes.len();
        let record_size = size_of::<raw::VertexArray>();
        self.bytes
            .resize(records_at + arrays.len() * record_size, 0);
        for (i, (type_, format, size, data)) in arrays.iter().enumerate() {
            let offset = self.start(8)?;
            self.bytes.extend_from_slice(data);
            let record = raw::VertexArray {
                type_: U32::new(*type_),
                flags: U32::new(0),
                format: U32::new(*format),
                size: U32::new(*size),
                offset,
            };
            let at = records_at + i * record_size;
            self.bytes[at..at + record_size].copy_from_slice(record.as_bytes());
        }
        Ok(())
    }

    /// Appends each extension's data and its link record, chained in order: the first
    /// link's offset (for the header).
    fn extensions(&mut self, extensions: &[(Vec<u8>, Vec<u8>)], names: &[u32]) -> Result<U32<Le>> {
        let mut links = Vec::new();
        for ((_, data), name) in extensions.iter().zip(names) {
            let ofs_data = self.start(4)?;
            self.bytes.extend_from_slice(data);
            let at = self.start(4)?;
            self.bytes
                .resize(self.bytes.len() + size_of::<raw::Extension>(), 0);
            links.push((at, *name, ofs_data, data.len()));
        }
        for (i, (at, name, ofs_data, len)) in links.iter().enumerate() {
            let next = links.get(i + 1).map_or(U32::new(0), |l| l.0);
            let record = raw::Extension {
                name: U32::new(*name),
                num_data: U32::new(field("extension.num_data", *len)?),
                ofs_data: *ofs_data,
                ofs_extensions: next,
            };
            let at = at.get() as usize;
            self.bytes[at..at + size_of::<raw::Extension>()].copy_from_slice(record.as_bytes());
        }
        Ok(links.first().map_or(U32::new(0), |l| l.0))
    }
}
