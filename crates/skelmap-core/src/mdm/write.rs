//! [`Builder`]: writes an MDM and its MDX from plain values (fixtures, fuzz seeds, tests) or
//! from an asset ([`Builder::from_asset`], `skelmap convert … x.mdm`). Layout: the MDM
//! header, each surface (header, vertices with their weights, triangles, collapse map, bone
//! references) one after another, then each tag and its bone references; the MDX header, the
//! frames, then the bones.

use glam::{Affine3A, Mat3, Quat, Vec3};
use zerocopy::IntoBytes;
use zerocopy::byteorder::{F32, I16, I32};

use super::raw::{
    MAX_QPATH, MDM_VERSION, MDX_VERSION, MdmHeader, MdmSurface, MdmTag, MdxBoneFrameCompressed,
    MdxBoneInfo, MdxFrame, MdxHeader,
};
use crate::alias::idp3::Md3Triangle;
use crate::alias::idp3_write::axis_to_angles;
use crate::asset::{Asset, FitError, Fitted, JointKey, UNBOUND, UpAxis, rotation_translation};
use crate::format::{Format, MDM_MAGIC, MDX_MAGIC};
use crate::name::CodePage;

pub use crate::md4::write::{VertexDef as Vertex, WeightDef as Weight};

/// One surface.
#[derive(Debug, Clone, PartialEq)]
pub struct Surface {
    /// Name.
    pub name: String,
    /// Shader.
    pub shader: String,
    /// `minLod`.
    pub min_lod: i32,
    /// Vertices.
    pub vertices: Vec<Vertex>,
    /// Triangles (clockwise seen from the front).
    pub triangles: Vec<[i32; 3]>,
    /// The collapse map (written as given: one entry a vertex in a valid file).
    pub collapse_map: Vec<i32>,
    /// The bones ET builds for the surface.
    pub bone_references: Vec<i32>,
}

/// One tag.
#[derive(Debug, Clone, PartialEq)]
pub struct Tag {
    /// Name.
    pub name: String,
    /// Axes in the bone's space.
    pub axis: [[f32; 3]; 3],
    /// The bone.
    pub bone: i32,
    /// Origin in the bone's space.
    pub offset: [f32; 3],
    /// The bones ET builds for the tag.
    pub bone_references: Vec<i32>,
}

/// One MDX bone.
#[derive(Debug, Clone, PartialEq)]
pub struct Bone {
    /// Name.
    pub name: String,
    /// Parent, -1 for a root.
    pub parent: i32,
    /// Torso weight.
    pub torso_weight: f32,
    /// Distance from the parent.
    pub parent_dist: f32,
    /// Flags.
    pub flags: i32,
}

/// One bone in one frame: compressed angles, 65536 units a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BoneFrame {
    /// Pitch, yaw, roll of the model-space rotation.
    pub angles: [i16; 3],
    /// Pitch and yaw of the direction from the parent.
    pub ofs_angles: [i16; 2],
}

/// One MDX frame.
#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    /// Minimum and maximum corner.
    pub bounds: [[f32; 3]; 2],
    /// Culling sphere centre.
    pub local_origin: [f32; 3],
    /// Culling sphere radius.
    pub radius: f32,
    /// Where the root bones sit.
    pub parent_offset: [f32; 3],
    /// A bone frame per bone (written as many as given; `num_bones` is the bones' count).
    pub bones: Vec<BoneFrame>,
}

/// Where a surface's parts start in the MDM a [`Builder`] writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SurfaceLayout {
    /// The surface header.
    pub start: u64,
    /// The first vertex.
    pub vertices: u64,
    /// The triangles.
    pub triangles: u64,
    /// The collapse map.
    pub collapse_map: u64,
    /// The bone references.
    pub bone_references: u64,
    /// The end of the surface (the next one's start).
    pub end: u64,
}

/// Where a tag and its bone references start in the MDM a [`Builder`] writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TagLayout {
    /// The tag.
    pub start: u64,
    /// Its bone references.
    pub bone_references: u64,
}

/// Writes an MDM and the MDX that plays it.
///
/// ```
/// use skelmap_core::{Model, Parse};
/// use skelmap_core::mdm::{Builder, Mdm, Mdx};
/// let (mdm, mdx) = Builder::triangle().write();
/// assert_eq!(&mdm[..4], b"MDMW");
/// assert_eq!(&mdx[..4], b"MDXW");
/// assert_eq!(Mdx::parse(&mdx)?.num_frames(), 3);
/// assert_eq!(Mdm::parse(&mdm)?.num_vertices(), 3);
/// # Ok::<(), skelmap_core::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Builder {
    /// The MDM's name.
    pub name: String,
    /// `lodScale`.
    pub lod_scale: f32,
    /// `lodBias`.
    pub lod_bias: f32,
    /// Surfaces.
    pub surfaces: Vec<Surface>,
    /// Tags.
    pub tags: Vec<Tag>,
    /// The MDX's name.
    pub skeleton_name: String,
    /// Bones.
    pub bones: Vec<Bone>,
    /// Frames.
    pub frames: Vec<Frame>,
    /// `torsoParent`.
    pub torso_parent: i32,
    /// The code page the names are stored in ([`Asset::code_page`] for a builder made
    /// from an asset).
    pub code_page: CodePage,
}

/// `text` in `code_page` in a NUL-padded name field (cut to leave a NUL).
fn name_field(code_page: CodePage, text: &str) -> [u8; MAX_QPATH] {
    let mut field = [0u8; MAX_QPATH];
    let bytes = code_page.encode_within(text, MAX_QPATH - 1);
    field[..bytes.len()].copy_from_slice(&bytes);
    field
}

fn i32s(values: &[i32]) -> impl Iterator<Item = u8> + '_ {
    values.iter().flat_map(|v| v.to_le_bytes())
}

fn f32x3(v: [f32; 3]) -> [F32<zerocopy::LittleEndian>; 3] {
    v.map(F32::new)
}

impl Builder {
    /// A small pair: two bones (a root, and a child 8 units along its offset direction, half
    /// torso) over three frames of different angles; one surface of three vertices (one on
    /// each bone, one shared 1/4 : 3/4) with a collapse map; a tag `tag_head` on the child.
    #[must_use]
    pub fn triangle() -> Builder {
        let weight = |bone: i32, weight: f32, offset: [f32; 3]| Weight {
            bone,
            weight,
            offset,
        };
        let frame = |parent_offset: [f32; 3], bones: [BoneFrame; 2]| Frame {
            bounds: [[-10.0, -10.0, -10.0], [10.0, 10.0, 20.0]],
            local_origin: [0.0, 0.0, 5.0],
            radius: 20.0,
            parent_offset,
            bones: bones.to_vec(),
        };
        let bone_frame = |angles: [i16; 3], ofs_angles: [i16; 2]| BoneFrame { angles, ofs_angles };
        Builder {
            name: "models/players/triangle.mdm".into(),
            lod_scale: 1.0,
            lod_bias: 0.0,
            surfaces: vec![Surface {
                name: "body".into(),
                shader: "models/players/body".into(),
                min_lod: 2,
                vertices: vec![
                    Vertex {
                        normal: [0.0, 0.0, 1.0],
                        tex_coords: [0.0, 0.0],
                        weights: vec![weight(0, 1.0, [1.0, 2.0, 3.0])],
                    },
                    Vertex {
                        normal: [1.0, 0.0, 0.0],
                        tex_coords: [1.0, 0.0],
                        weights: vec![weight(1, 1.0, [4.0, 0.0, -1.0])],
                    },
                    Vertex {
                        normal: [0.0, 1.0, 0.0],
                        tex_coords: [0.5, 1.0],
                        weights: vec![
                            weight(0, 0.25, [0.0, 5.0, 0.0]),
                            weight(1, 0.75, [2.0, -3.0, 1.0]),
                        ],
                    },
                ],
                triangles: vec![[0, 1, 2]],
                collapse_map: vec![0, 0, 1],
                bone_references: vec![0, 1],
            }],
            tags: vec![Tag {
                name: "tag_head".into(),
                axis: [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
                bone: 1,
                offset: [0.5, 0.0, 2.0],
                bone_references: vec![0, 1],
            }],
            skeleton_name: "models/players/triangle.mdx".into(),
            bones: vec![
                Bone {
                    name: "root".into(),
                    parent: -1,
                    torso_weight: 0.0,
                    parent_dist: 0.0,
                    flags: 0,
                },
                Bone {
                    name: "head".into(),
                    parent: 0,
                    torso_weight: 0.5,
                    parent_dist: 8.0,
                    flags: 0,
                },
            ],
            frames: vec![
                frame(
                    [0.0, 0.0, 0.0],
                    [
                        bone_frame([0, 0, 0], [0, 0]),
                        bone_frame([0, 0, 0], [-16384, 0]),
                    ],
                ),
                frame(
                    [1.0, 2.0, 3.0],
                    [
                        bone_frame([0, 16384, 0], [0, 0]),
                        bone_frame([2000, 16384, -3000], [-12000, 9000]),
                    ],
                ),
                frame(
                    [-4.0, 0.5, 24.0],
                    [
                        bone_frame([5461, -8192, 10923], [0, 0]),
                        bone_frame([-7000, 30000, 20000], [3000, -25000]),
                    ],
                ),
            ],
            torso_parent: 0,
            code_page: CodePage::Utf8,
        }
    }

    /// Where each surface's parts and each tag start in [`write_mdm`](Builder::write_mdm)'s
    /// output.
    #[must_use]
    pub fn mdm_layout(&self) -> (Vec<SurfaceLayout>, Vec<TagLayout>) {
        let mut at = size_of::<MdmHeader>() as u64;
        let mut surfaces = Vec::new();
        for s in &self.surfaces {
            let start = at;
            let vertices = start + size_of::<MdmSurface>() as u64;
            let bytes: usize = s.vertices.iter().map(Vertex::stored_len).sum();
            let triangles = vertices + bytes as u64;
            let collapse_map = triangles + 12 * s.triangles.len() as u64;
            let bone_references = collapse_map + 4 * s.collapse_map.len() as u64;
            let end = bone_references + 4 * s.bone_references.len() as u64;
            surfaces.push(SurfaceLayout {
                start,
                vertices,
                triangles,
                collapse_map,
                bone_references,
                end,
            });
            at = end;
        }
        let mut tags = Vec::new();
        for t in &self.tags {
            let bone_references = at + size_of::<MdmTag>() as u64;
            tags.push(TagLayout {
                start: at,
                bone_references,
            });
            at = bone_references + 4 * t.bone_references.len() as u64;
        }
        (surfaces, tags)
    }

    /// The MDM's bytes.
    #[must_use]
    pub fn write_mdm(&self) -> Vec<u8> {
        let (surfaces, tags) = self.mdm_layout();
        let end = tags
            .last()
            .map(|t| {
                t.bone_references
                    + 4 * self.tags.last().map_or(0, |t| t.bone_references.len()) as u64
            })
            .or(surfaces.last().map(|s| s.end))
            .unwrap_or(size_of::<MdmHeader>() as u64);
        let ofs_tags = tags.first().map_or(end, |t| t.start);
        let header = MdmHeader {
            ident: *MDM_MAGIC,
            version: I32::new(MDM_VERSION),
            name: name_field(self.code_page, &self.name),
            lod_scale: F32::new(self.lod_scale),
            lod_bias: F32::new(self.lod_bias),
            num_surfaces: I32::new(self.surfaces.len() as i32),
            ofs_surfaces: I32::new(size_of::<MdmHeader>() as i32),
            num_tags: I32::new(self.tags.len() as i32),
            ofs_tags: I32::new(ofs_tags as i32),
            ofs_end: I32::new(end as i32),
        };
        let mut out = header.as_bytes().to_vec();
        for (s, layout) in self.surfaces.iter().zip(&surfaces) {
            let rel = |at: u64| I32::new((at - layout.start) as i32);
            let header = MdmSurface {
                ident: I32::new(0),
                name: name_field(self.code_page, &s.name),
                shader: name_field(self.code_page, &s.shader),
                shader_index: I32::new(0),
                min_lod: I32::new(s.min_lod),
                ofs_header: I32::new(-(layout.start as i32)),
                num_verts: I32::new(s.vertices.len() as i32),
                ofs_verts: rel(layout.vertices),
                num_triangles: I32::new(s.triangles.len() as i32),
                ofs_triangles: rel(layout.triangles),
                ofs_collapse_map: rel(layout.collapse_map),
                num_bone_references: I32::new(s.bone_references.len() as i32),
                ofs_bone_references: rel(layout.bone_references),
                ofs_end: rel(layout.end),
            };
            out.extend_from_slice(header.as_bytes());
            for v in &s.vertices {
                v.put(&mut out);
            }
            for t in &s.triangles {
                let raw = Md3Triangle {
                    indexes: t.map(I32::new),
                };
                out.extend_from_slice(raw.as_bytes());
            }
            out.extend(i32s(&s.collapse_map));
            out.extend(i32s(&s.bone_references));
        }
        for t in &self.tags {
            let raw = MdmTag {
                name: name_field(self.code_page, &t.name),
                axis: t.axis.map(f32x3),
                bone_index: I32::new(t.bone),
                offset: f32x3(t.offset),
                num_bone_references: I32::new(t.bone_references.len() as i32),
                ofs_bone_references: I32::new(size_of::<MdmTag>() as i32),
                ofs_end: I32::new((size_of::<MdmTag>() + 4 * t.bone_references.len()) as i32),
            };
            out.extend_from_slice(raw.as_bytes());
            out.extend(i32s(&t.bone_references));
        }
        out
    }

    /// Where the frames and the bones start in [`write_mdx`](Builder::write_mdx)'s output,
    /// and the bytes a frame takes.
    #[must_use]
    pub fn mdx_layout(&self) -> (u64, u64, u64) {
        let frames = size_of::<MdxHeader>() as u64;
        let stride =
            (size_of::<MdxFrame>() + self.bones.len() * size_of::<MdxBoneFrameCompressed>()) as u64;
        let frames_bytes: u64 = self
            .frames
            .iter()
            .map(|f| {
                (size_of::<MdxFrame>() + f.bones.len() * size_of::<MdxBoneFrameCompressed>()) as u64
            })
            .sum();
        (frames, frames + frames_bytes, stride)
    }

    /// The MDX's bytes.
    #[must_use]
    pub fn write_mdx(&self) -> Vec<u8> {
        let (ofs_frames, ofs_bones, _) = self.mdx_layout();
        let end = ofs_bones + (self.bones.len() * size_of::<MdxBoneInfo>()) as u64;
        let header = MdxHeader {
            ident: *MDX_MAGIC,
            version: I32::new(MDX_VERSION),
            name: name_field(self.code_page, &self.skeleton_name),
            num_frames: I32::new(self.frames.len() as i32),
            num_bones: I32::new(self.bones.len() as i32),
            ofs_frames: I32::new(ofs_frames as i32),
            ofs_bones: I32::new(ofs_bones as i32),
            torso_parent: I32::new(self.torso_parent),
            ofs_end: I32::new(end as i32),
        };
        let mut out = header.as_bytes().to_vec();
        for f in &self.frames {
            let raw = MdxFrame {
                bounds: f.bounds.map(f32x3),
                local_origin: f32x3(f.local_origin),
                radius: F32::new(f.radius),
                parent_offset: f32x3(f.parent_offset),
            };
            out.extend_from_slice(raw.as_bytes());
            for b in &f.bones {
                let raw = MdxBoneFrameCompressed {
                    angles: [b.angles[0], b.angles[1], b.angles[2], 0].map(I16::new),
                    ofs_angles: b.ofs_angles.map(I16::new),
                };
                out.extend_from_slice(raw.as_bytes());
            }
        }
        for b in &self.bones {
            let raw = MdxBoneInfo {
                name: name_field(self.code_page, &b.name),
                parent: I32::new(b.parent),
                torso_weight: F32::new(b.torso_weight),
                parent_dist: F32::new(b.parent_dist),
                flags: I32::new(b.flags),
            };
            out.extend_from_slice(raw.as_bytes());
        }
        out
    }

    /// The MDM's and the MDX's bytes.
    #[must_use]
    pub fn write(&self) -> (Vec<u8>, Vec<u8>) {
        (self.write_mdm(), self.write_mdx())
    }
}

/// A frame's bounds, and the centre and radius of its culling sphere.
type Sphere = ([[f32; 3]; 2], Vec3, f32);

/// The longest name a 64-byte field holds with its NUL.
const MAX_NAME: usize = MAX_QPATH - 1;

/// `degrees` as an MDX's 16-bit angle (`SHORT2ANGLE`'s 65536 units a turn): the nearest unit,
/// wrapped into a turn.
fn angle_units(degrees: f64) -> i16 {
    let units = (degrees * 65536.0 / 360.0).round().rem_euclid(65536.0);
    // In 0..65536: its low 16 bits are the two's-complement angle.
    (units as u32 as u16).cast_signed()
}

/// The compressed angles of a model-space bone rotation. ET applies a bone as the matrix whose
/// rows are the `AnglesToAxis` vectors of its angles (`mdm::angles_rotation`), so the rows of
/// `rotation` are the forward, left and up axes the angles must give.
fn rotation_angles(rotation: Quat) -> [i16; 3] {
    let m = Mat3::from_quat(rotation);
    let rows = [m.row(0), m.row(1), m.row(2)].map(|r| r.to_array());
    axis_to_angles(&rows).map(angle_units)
}

/// The compressed pitch and yaw of the direction `d` (`mdm::offset_direction` inverted); 0
/// and 0 for a bone at its parent's place, whose direction nothing reads.
fn direction_angles(d: Vec3) -> [i16; 2] {
    let d = d.as_dvec3();
    if d.length() <= f64::from(f32::EPSILON) {
        return [0, 0];
    }
    let flat = d.x.hypot(d.y);
    let pitch = (-d.z).atan2(flat);
    // Straight up or down, the yaw turns nothing: 0 rather than the arctangent of zeros.
    let yaw = if flat > 0.0 { d.y.atan2(d.x) } else { 0.0 };
    [pitch, yaw].map(|a| angle_units(a.to_degrees()))
}

/// `bone` and its ancestors in `parents`, ascending: the bones ET builds before it.
fn with_ancestors(bones: impl IntoIterator<Item = usize>, parents: &[Option<usize>]) -> Vec<i32> {
    let mut wanted = vec![false; parents.len()];
    for bone in bones {
        let mut at = Some(bone);
        // Parents precede children, so each step goes down and the walk ends.
        while let Some(b) = at.filter(|&b| b < wanted.len() && !wanted[b]) {
            wanted[b] = true;
            at = parents[b];
        }
    }
    (0..parents.len())
        .filter(|&b| wanted[b])
        .map(|b| b as i32)
        .collect()
}

/// A clip's name as an `.aninc` line takes it: bare when it is one token ET reads as a
/// name, else quoted (a quote in it becomes `'`).
fn clip_token(name: &str) -> String {
    let plain = !name.is_empty()
        && !name.starts_with('#')
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
    if plain {
        name.to_string()
    } else {
        format!("\"{}\"", name.replace('"', "'"))
    }
}

/// The text of the `.aninc` beside an MDX written for `asset`: one line a clip, as the block
/// of an ET animation group lists them (`name first length looping fps move_speed transition
/// reversed priority`), the frames those the MDX numbers, the game's own numbers 0. Stored in
/// the asset's code page, as the MDM's and MDX's names are.
fn aninc_text(asset: &Asset) -> String {
    let mut text = String::from(
        "// name, first frame, length, looping (frames; 0: plays once), fps, move speed, \
         transition, reversed, priority\n",
    );
    for clip in asset.clips.iter().filter(|c| !c.is_empty()) {
        let looping = if clip.looped { clip.len() } else { 0 };
        text.push_str(&format!(
            "{} {} {} {looping} {} 0 0 0 0\n",
            clip_token(&clip.name),
            clip.first,
            clip.len(),
            // ET reads the rate to its hundredths.
            (clip.fps * 100.0).round() / 100.0
        ));
    }
    text
}

impl Builder {
    /// `asset` as an MDM and the MDX that plays it, in the semantics ET:Legacy's renderer
    /// gives them (`docs/formats/mdm.md`), `+Z` up (a `+Y`-up asset is turned). One MDX bone
    /// a joint, and one root before them when the asset has several roots (ET places every
    /// root at a frame's `parent_offset`), placed where the root of the most influences is;
    /// every frame of every clip, each bone's model-space rotation as ET's 16-bit angles and
    /// its place as the direction from its parent's place as written, at a fixed distance
    /// (the middle of the distances the frames give); the frame's bounds and culling sphere
    /// from the skinned vertices. One surface a mesh (split past ET's 6000 vertices, its
    /// collapse table, or 20 000 triangles), each weight's offset the vertex in its bone's bind
    /// space, the normal in the first weight's bone's (ET turns it by that bone only, so the
    /// heaviest weight comes first). An attachment joint that is a fixed point on its parent
    /// (a leaf without influences, still against its parent: an MDM's or a Half-Life model's
    /// tag, as [`Model::to_asset`](crate::Model::to_asset) makes it,
    /// [`Asset::split_bone_tags`]) becomes a tag on the parent's bone with its offset and axes,
    /// and no bone; other attachment joints, and joints named `tag_…`, tags on their own
    /// bones; the asset's tags tags on bone 0. The clips go into the `.aninc` beside
    /// the MDX ([`asset::Writer`](crate::asset::Writer)), where skelmap finds them and an
    /// animation group can `#include` them.
    ///
    /// A bone that carries vertices or tags and does not keep its distance from its parent
    /// hangs in the MDX from the earlier bone it keeps its distance to best, where that
    /// halves its miss (ET places a bone from its MDX parent only; its rotation is its own).
    ///
    /// What it cannot keep is said in [`Fitted::losses`]: a joint's scale; a bone whose
    /// distance from its parent changes between frames (by how much, apart for bones that
    /// carry no vertex or tag); the added root; bones hung from another; ET's level of detail
    /// (each surface is drawn whole: `min_lod` is its vertex count, and its collapse map
    /// points each vertex at the one before it); torso weights (all 0: ET plays the legs'
    /// animation on every bone); clip names ET lower-cases; more than ET's 128 bones, 32
    /// surfaces or 128 tags.
    ///
    /// ```
    /// use skelmap_core::{Limits, Model, Source, asset, mdm, synth};
    /// let bytes = synth::tube(&Default::default()).write()?;
    /// let asset = Model::from_bytes(&bytes)?.to_asset(&asset::Options::default())?;
    /// let fitted = mdm::Builder::from_asset(&asset)?;
    /// let (mdm, mdx) = fitted.builder.write();
    /// let (mdm, mdx) = (Source::from_vec(mdm), Source::from_vec(mdx));
    /// let model = Model::from_mdm(mdm, mdx, &Limits::DEFAULT)?;
    /// assert_eq!((model.num_bones(), model.num_frames()), (4, 9));
    /// assert_eq!(model.num_tags(), 1); // the tube's attachment joint
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`FitError`] for a surface, shader, bone, tag or clip name past its 63 bytes, and for
    /// vertex animation (morph clips), which an MDX cannot hold.
    pub fn from_asset(asset: &Asset) -> Result<Fitted<Builder>, FitError> {
        let asset = asset.with_up(UpAxis::Z);
        // A vertex bound to no joint stays put on a joint added for it.
        let (asset, still) = asset.with_still_joint();
        asset.refuse_vertex_animation("MDM")?;
        let (asset, bone_tags) = asset.split_bone_tags(true);
        let skeleton = asset.skeleton_or_root();
        let shaders = asset.shader_names("MDM", MAX_NAME)?;
        let names: Vec<String> = (0..asset.meshes.len())
            .map(|i| asset.mesh_name(i))
            .collect();
        asset.check_names("MDM", "surface", names.iter().map(String::as_str), MAX_NAME)?;
        let joint_names = skeleton.joints.iter().map(|j| j.name.as_str());
        asset.check_names("MDX", "bone", joint_names, MAX_NAME)?;
        let joints = skeleton.joints.len();
        // Attachments: the flagged joints, and those Quake III's and ET's tools name `tag_…`
        // (an MD5 weapon's `tag_muzzle`), where a game looks for them.
        let attached = skeleton.attachment_points();
        let tag_names = (attached.iter().map(|&j| skeleton.joints[j].name.as_str()))
            .chain(bone_tags.iter().map(|t| t.name.as_str()))
            .chain(asset.tags.iter().map(|t| t.name.as_str()));
        asset.check_names("MDM", "tag", tag_names, MAX_NAME)?;
        let clip_names = asset.clips.iter().map(|c| c.name.as_str());
        asset.check_names("MDX", "clip", clip_names, MAX_NAME)?;
        let mut losses = Vec::new();
        losses.extend(still);

        // Bones: one a joint, each parent as `Skeleton::world` takes it (one after its child
        // is a root); several roots hang from a bone added before them.
        let joint_parent = |j: usize| skeleton.joints[j].parent.filter(|&p| p < j);
        let roots: Vec<usize> = (0..joints).filter(|&j| joint_parent(j).is_none()).collect();
        let shift = usize::from(roots.len() > 1);
        let mut parents: Vec<Option<usize>> = vec![None; shift];
        parents.extend((0..joints).map(|j| match joint_parent(j) {
            Some(p) => Some(p + shift),
            None => (shift == 1).then_some(0),
        }));
        // Which bones show when misplaced: those vertices or tags hang on.
        let mut carries = vec![false; parents.len()];
        let mut influences = vec![0usize; joints];
        for mesh in &asset.meshes {
            for v in 0..mesh.positions.len() {
                let mut bound = false;
                for &(j, _) in mesh.influences.of(v) {
                    if let Some(count) = influences.get_mut(usize::from(j)) {
                        *count += 1;
                        carries[usize::from(j) + shift] = true;
                        bound = true;
                    }
                }
                // Bound wholly to the first joint below.
                carries[shift] |= !bound;
            }
        }
        for j in attached.iter().chain(bone_tags.iter().map(|t| &t.bone)) {
            carries[j + shift] = true;
        }
        carries[0] |= !asset.tags.is_empty();
        let mut bones: Vec<Bone> = Vec::with_capacity(parents.len());
        // The added root sits each frame where the root of the most influences in its
        // sub-tree is, which so stays exact.
        let main = {
            let mut held = influences.clone();
            for j in (0..joints).rev() {
                if let Some(p) = joint_parent(j) {
                    held[p] += held[j];
                }
            }
            (roots.iter().copied())
                .max_by_key(|&r| (held[r], core::cmp::Reverse(r)))
                .unwrap_or(0)
        };
        if shift == 1 {
            let name = skeleton.free_name("root");
            losses.push(format!(
                "the {} root joints hang from a bone '{name}' added where '{}' is in each \
                 frame: ET places every root bone at one point a frame",
                roots.len(),
                skeleton.joints[main].name
            ));
            bones.push(Bone {
                name,
                parent: -1,
                torso_weight: 0.0,
                parent_dist: 0.0,
                flags: 0,
            });
        }

        // Every frame's model-space rotations and places, a bone each.
        let bind = skeleton.bind_keys();
        let frames: Vec<Vec<JointKey>> = match asset.joint_frames() {
            Some(frames) if !frames.is_empty() => frames.iter().map(|f| f.to_vec()).collect(),
            _ => vec![bind],
        };
        // Each frame once: its bones' model-space rotations and places, and the bounds and
        // culling sphere of its skinned vertices (of the bones' places for a model of no mesh).
        let inverse_bind: Vec<Affine3A> =
            skeleton.joints.iter().map(|j| j.world.inverse()).collect();
        let (placed, spheres): (Vec<Vec<(Quat, Vec3)>>, Vec<Sphere>) = frames
            .iter()
            .map(|keys| {
                let world = skeleton.world(keys);
                let added = (Quat::IDENTITY, Vec3::from(world[main].translation));
                let placed: Vec<(Quat, Vec3)> = core::iter::repeat_n(added, shift)
                    .chain(world.iter().map(rotation_translation))
                    .collect();
                let matrices: Vec<Affine3A> = (world.iter().zip(&inverse_bind))
                    .map(|(w, i)| *w * *i)
                    .collect();
                let posed: Vec<Vec<[f32; 3]>> = (asset.meshes.iter())
                    .map(|m| m.skin(&matrices).positions)
                    .collect();
                let points: Vec<[f32; 3]> = match posed.iter().flatten().next() {
                    Some(_) => posed.into_iter().flatten().collect(),
                    None => placed.iter().map(|(_, t)| t.to_array()).collect(),
                };
                let (lo, hi) = crate::asset::bounds_of(points.iter()).unwrap_or_default();
                let centre = (Vec3::from(lo) + Vec3::from(hi)) / 2.0;
                let radius = (points.iter())
                    .map(|&p| centre.distance(Vec3::from(p)))
                    .fold(0.0f32, f32::max);
                (placed, ([lo, hi], centre, radius))
            })
            .unzip();
        let size = asset.bounds().map_or(1.0, |(lo, hi)| {
            Vec3::from(lo).distance(Vec3::from(hi)).max(1.0)
        });
        // Each bone placed from its parent's place as the MDX gives it back, so that no bone
        // takes on its parent's miss: the distance the middle of the frames', the direction
        // each frame's, in whole angle steps.
        let mut back: Vec<Vec<Vec3>> = vec![vec![Vec3::ZERO; parents.len()]; frames.len()];
        let mut directions: Vec<Vec<[i16; 2]>> = vec![vec![[0, 0]; parents.len()]; frames.len()];
        let mut misses = [(0usize, 0.0f32); 2];
        // Half the spread of bone `b`'s distances from bone `a`'s written places over the
        // frames, and their middle.
        let spread = |b: usize, a: usize, back: &[Vec<Vec3>]| {
            let distances =
                (back.iter().zip(&placed)).map(|(back, placed)| placed[b].1.distance(back[a]));
            let (lo, hi) = distances.fold((f32::MAX, 0.0f32), |(lo, hi), d| (lo.min(d), hi.max(d)));
            let half = (hi - lo.min(hi)) / 2.0;
            (half, lo.min(hi) + half)
        };
        let tolerance = 1e-5 * size;
        let mut anchored = Vec::new();
        for b in 0..parents.len() {
            let Some(mut p) = parents[b] else {
                for (back, placed) in back.iter_mut().zip(&placed) {
                    back[b] = placed[b].1;
                }
                if b >= shift {
                    bones.push(Bone {
                        name: skeleton.joints[b - shift].name.clone(),
                        parent: -1,
                        torso_weight: 0.0,
                        parent_dist: 0.0,
                        flags: 0,
                    });
                }
                continue;
            };
            let (mut half, mut distance) = spread(b, p, &back);
            // ET only places a bone from its MDX parent, and turns it by its own angles: a bone
            // that shows and does not keep its distance from its parent hangs in the MDX from
            // the earlier bone it keeps its distance to best, where that halves its miss.
            if carries[b] && half > tolerance {
                let best = (0..b)
                    .filter(|&a| a != p)
                    .map(|a| (a, spread(b, a, &back)))
                    .min_by(|x, y| x.1.0.total_cmp(&y.1.0));
                if let Some((a, (h, d))) = best
                    && h < half / 2.0
                {
                    anchored.push((b, p));
                    (p, half, distance) = (a, h, d);
                    parents[b] = Some(a);
                }
            }
            if half > tolerance {
                let miss = &mut misses[usize::from(!carries[b])];
                *miss = (miss.0 + 1, miss.1.max(half));
            }
            for ((back, direction), placed) in back.iter_mut().zip(&mut directions).zip(&placed) {
                let angles = direction_angles(placed[b].1 - back[p]);
                direction[b] = angles;
                let degrees = angles.map(|a| f32::from(a) * super::raw::SHORT_TO_DEGREES);
                back[b] = back[p] + distance * super::offset_direction(degrees);
            }
            bones.push(Bone {
                name: skeleton.joints[b - shift].name.clone(),
                parent: p as i32,
                torso_weight: 0.0,
                parent_dist: distance,
                // An attachment is its tag (below); a flag too would list it twice.
                flags: 0,
            });
        }
        if !anchored.is_empty() {
            let name = |b: usize| bones.get(b).map_or("", |bone: &Bone| bone.name.as_str());
            let some: Vec<String> = (anchored.iter().take(4))
                .map(|&(b, was)| {
                    let now = parents[b].unwrap_or(0);
                    format!("'{}' from '{}', not '{}'", name(b), name(now), name(was))
                })
                .collect();
            let more = if anchored.len() > 4 { ", …" } else { "" };
            losses.push(format!(
                "{} bones that carry vertices or tags hang in the MDX from the bone they keep \
                 their distance to, not their parent ({}{more}): the MDX's hierarchy differs",
                anchored.len(),
                some.join("; ")
            ));
        }
        if let [(moved, worst), _] = misses
            && moved > 0
        {
            losses.push(format!(
                "{moved} bones that carry vertices or tags move toward or away from their \
                 parents between frames, and an MDX keeps one distance a bone: they are placed \
                 up to {worst} units off"
            ));
        }
        if let [_, (idle, worst)] = misses
            && idle > 0
        {
            losses.push(format!(
                "{idle} bones that carry no vertex or tag move toward or away from their \
                 parents between frames (placed up to {worst} units off), which nothing drawn \
                 shows"
            ));
        }
        let scaled = asset
            .scaled_frames()
            .max(usize::from(skeleton.scaled_joints() > 0));
        if scaled > 0 {
            losses.push(format!(
                "{scaled} frames scale a joint, and an MDX bone does not scale: the scale is \
                 dropped (IQM keeps it)"
            ));
        }
        if bones.len() > super::raw::MDX_MAX_BONES as usize {
            losses.push(format!(
                "{} bones: past the {} ET's renderer has room for",
                bones.len(),
                super::raw::MDX_MAX_BONES
            ));
        }

        let mdx_frames: Vec<Frame> = (placed.iter().zip(&spheres))
            .zip(back.iter().zip(&directions))
            .map(
                |((placed, &(bounds, centre, radius)), (back, directions))| Frame {
                    bounds,
                    local_origin: centre.to_array(),
                    radius,
                    parent_offset: back.first().map_or([0.0; 3], |t| t.to_array()),
                    bones: (placed.iter().zip(directions))
                        .map(|(&(rotation, _), &ofs_angles)| BoneFrame {
                            angles: rotation_angles(rotation),
                            ofs_angles,
                        })
                        .collect(),
                },
            )
            .collect();

        // Surfaces: each weight's offset in its bone's bind space, the heaviest first.
        let bind: Vec<(Quat, Vec3)> = skeleton
            .joints
            .iter()
            .map(|j| rotation_translation(&j.world))
            .collect();
        let mut surfaces = Vec::new();
        let mut unbound = 0usize;
        for ((mesh, shader), name) in asset.meshes.iter().zip(shaders).zip(names) {
            let vertices: Vec<Vertex> = (0..mesh.positions.len())
                .map(|v| {
                    let p = Vec3::from(mesh.positions[v]);
                    let mut influences: Vec<(usize, f32)> = (mesh.influences.of(v).iter())
                        .filter(|&&(j, _)| j != UNBOUND && usize::from(j) < joints)
                        .map(|&(j, w)| (usize::from(j), w))
                        .collect();
                    influences.sort_by(|a, b| b.1.total_cmp(&a.1));
                    if influences.is_empty() {
                        unbound += 1;
                        influences.push((0, 1.0));
                    }
                    let weights = (influences.iter())
                        .map(|&(j, weight)| {
                            let (r, t) = bind[j];
                            Weight {
                                bone: (j + shift) as i32,
                                weight,
                                offset: (r.inverse() * (p - t)).to_array(),
                            }
                        })
                        .collect();
                    let n = Vec3::from(mesh.normals.get(v).copied().unwrap_or_default());
                    Vertex {
                        normal: (bind[influences[0].0].0.inverse() * n).to_array(),
                        tex_coords: mesh.uv(v),
                        weights,
                    }
                })
                .collect();
            let max_tris = (super::raw::SHADER_MAX_INDEXES / 3) as usize;
            let max_verts = super::raw::MDM_MAX_VERTS as usize;
            // The builder's names are text: UTF-8.
            let pieces = mesh.named_pieces(
                (&name, crate::name::CodePage::Utf8),
                (max_verts, max_tris),
                MAX_NAME,
                ("MDM", "ET"),
                &mut losses,
            );
            for (name, piece) in pieces {
                let vertices: Vec<Vertex> = (piece.vertices.iter())
                    .map(|&v| vertices[v as usize].clone())
                    .collect();
                let used =
                    (vertices.iter()).flat_map(|v| v.weights.iter().map(|w| w.bone as usize));
                let n = vertices.len();
                surfaces.push(Surface {
                    // Cut at a character's end: valid UTF-8.
                    name: String::from_utf8_lossy(&name).into_owned(),
                    shader: shader.clone(),
                    min_lod: n as i32,
                    bone_references: with_ancestors(used, &parents),
                    vertices,
                    // Counter-clockwise in the asset; an MDM stores them clockwise.
                    triangles: (piece.triangles.iter())
                        .map(|t| [t[2], t[1], t[0]].map(|i| i as i32))
                        .collect(),
                    collapse_map: (0..n).map(|j| j.saturating_sub(1) as i32).collect(),
                });
            }
        }
        if unbound > 0 {
            losses.push(format!(
                "{unbound} vertices without an influence are bound wholly to bone {shift}"
            ));
        }
        if !surfaces.is_empty() {
            losses.push(
                "every surface is drawn whole at every distance: its min_lod is its vertex \
                 count, as skelmap makes no collapse order for ET's level of detail"
                    .into(),
            );
        }
        if surfaces.len() > super::raw::MDM_MAX_SURFACES as usize {
            losses.push(format!(
                "{} surfaces: past the {} ET's tools write",
                surfaces.len(),
                super::raw::MDM_MAX_SURFACES
            ));
        }

        // Tags: attachment joints on their bones, fixed points on theirs, the asset's tags on
        // bone 0.
        let on_bone = |name: &str, j: usize, offset: Affine3A| Tag {
            name: name.to_string(),
            axis: [
                offset.matrix3.x_axis,
                offset.matrix3.y_axis,
                offset.matrix3.z_axis,
            ]
            .map(|a| a.to_array()),
            bone: (j + shift) as i32,
            offset: offset.translation.to_array(),
            bone_references: with_ancestors([j + shift], &parents),
        };
        let mut tags: Vec<Tag> = (attached.iter())
            .map(|&j| on_bone(&skeleton.joints[j].name, j, Affine3A::IDENTITY))
            .chain(bone_tags.iter().map(|t| on_bone(&t.name, t.bone, t.offset)))
            .collect();
        let (r0, t0) = if shift == 1 {
            (
                Quat::IDENTITY,
                skeleton.joints[main].world.translation.into(),
            )
        } else {
            bind[0]
        };
        let inverse = r0.inverse();
        tags.extend(asset.tags.iter().map(|t| {
            Tag {
                name: t.name.clone(),
                axis: [
                    t.pose.matrix3.x_axis,
                    t.pose.matrix3.y_axis,
                    t.pose.matrix3.z_axis,
                ]
                .map(|a| (inverse * Vec3::from(a)).to_array()),
                bone: 0,
                offset: (inverse * (Vec3::from(t.pose.translation) - t0)).to_array(),
                bone_references: vec![0],
            }
        }));
        if !asset.tags.is_empty() {
            losses.push(format!(
                "{} tags of the asset ride on bone 0 ('{}'), placed where the asset has them \
                 in the bind pose",
                asset.tags.len(),
                bones.first().map_or("", |b| b.name.as_str())
            ));
        }
        if tags.len() > super::raw::MDM_MAX_TAGS as usize {
            losses.push(format!(
                "{} tags: past the {} ET's tools write",
                tags.len(),
                super::raw::MDM_MAX_TAGS
            ));
        }
        if !asset.clips.is_empty() {
            losses.push(
                "every bone's torso weight is 0: ET plays the legs' animation on the whole \
                 body"
                    .into(),
            );
        }
        let renamed = (asset.clips.iter())
            .filter(|c| c.name != c.name.to_ascii_lowercase())
            .count();
        if renamed > 0 {
            losses.push(format!(
                "{renamed} clip names have capitals, which ET lower-cases when it reads them"
            ));
        }
        Ok(Fitted {
            builder: Builder {
                name: String::new(),
                lod_scale: 1.0,
                lod_bias: 0.0,
                surfaces,
                tags,
                skeleton_name: String::new(),
                bones,
                frames: mdx_frames,
                torso_parent: -1,
                code_page: asset.code_page,
            },
            losses,
        })
    }
}

impl crate::asset::Writer for Builder {
    const FORMAT: Format = Format::Mdm;

    /// The MDM, the MDX of its stem beside it, and the clips in the `.aninc` of that stem.
    fn write_asset(
        asset: &Asset,
        _: &crate::asset::WriteOptions,
    ) -> Result<crate::asset::Written, crate::asset::WriteError> {
        use crate::asset::{Place, Written, WrittenFile};
        let Fitted { builder, losses } = Builder::from_asset(asset)?;
        let (mdm, mdx) = builder.write();
        let mut files = vec![
            WrittenFile {
                place: Place::Main,
                bytes: mdm,
            },
            WrittenFile {
                place: Place::Extension("mdx"),
                bytes: mdx,
            },
        ];
        if asset.clips.iter().any(|c| !c.is_empty()) {
            files.push(WrittenFile {
                place: Place::Extension("aninc"),
                bytes: asset.code_page.encode(&aninc_text(asset)).into_owned(),
            });
        }
        Ok(Written::new(Self::FORMAT, files).with_notes(losses))
    }
}

#[cfg(test)]
mod tests {
    use glam::{Mat3, Quat, Vec3};

    use super::{direction_angles, rotation_angles};
    use crate::mdm::raw::SHORT_TO_DEGREES;
    use crate::mdm::{angles_rotation, offset_direction};

    /// Half of an angle step, in radians, with room for the three angles adding up.
    const STEP: f32 = 3.0 * core::f32::consts::PI / 65536.0;

    /// Rotations about axes from a sequence, the vertical ones (where yaw and roll turn about
    /// the same axis) among them.
    fn rotations() -> Vec<Quat> {
        let mut state = 0x2545_F491u32;
        let mut next = move || {
            state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (state >> 8) as f32 / (1u32 << 24) as f32 * 2.0 - 1.0
        };
        let mut out: Vec<Quat> = (0..500)
            .map(|_| {
                let axis = Vec3::new(next(), next(), next()).normalize_or(Vec3::Z);
                Quat::from_axis_angle(axis, 3.2 * next())
            })
            .collect();
        out.push(Quat::from_rotation_y(core::f32::consts::FRAC_PI_2));
        out.push(Quat::from_rotation_y(-core::f32::consts::FRAC_PI_2) * Quat::from_rotation_x(1.0));
        out.push(Quat::IDENTITY);
        out
    }

    fn degrees(units: &[i16]) -> Vec<f32> {
        units
            .iter()
            .map(|&u| f32::from(u) * SHORT_TO_DEGREES)
            .collect()
    }

    /// ET's rotation of the angles written for a rotation is that rotation, to half a step
    /// an angle.
    #[test]
    fn written_angles_give_the_rotation_back() {
        for q in rotations() {
            let a = degrees(&rotation_angles(q));
            let back = angles_rotation([a[0], a[1], a[2]]);
            let want = Mat3::from_quat(q);
            let off = (back - want).to_cols_array().map(f32::abs);
            assert!(off.iter().all(|&d| d <= 2.0 * STEP), "{q:?}: {off:?}");
        }
    }

    /// The offset direction of the angles written for a direction is that direction, to half
    /// a step; a bone at its parent's place gets 0 and 0.
    #[test]
    fn written_directions_give_the_direction_back() {
        for q in rotations() {
            let d = q * Vec3::new(3.0, -1.0, 2.0);
            let a = degrees(&direction_angles(d));
            let back = offset_direction([a[0], a[1]]);
            assert!(
                back.distance(d.normalize()) <= 2.0 * STEP,
                "{d:?}: {back:?}"
            );
        }
        assert_eq!(direction_angles(Vec3::ZERO), [0, 0]);
        assert_eq!(direction_angles(-Vec3::Z), [16384, 0]);
        assert_eq!(direction_angles(-Vec3::X), [0, -32768]);
    }
}
