//! Writing MS3D files: [`Builder`] (conversions through `Builder::from_asset`, fixtures and
//! fuzz seeds).
//!
//! Writes exactly what it is given, valid or not; [`Ms3d::parse`](crate::Parse::parse) judges.

use zerocopy::byteorder::{F32, I32, LittleEndian, U16, U32};
use zerocopy::{FromZeros, IntoBytes};

use super::raw::{
    GroupHead, Header, JointEx, JointHead, Keyframe, Keyframer, MS3D_MAGIC, Material, ModelEx,
    Triangle, Vertex, VertexEx1,
};
use glam::Vec3;

use super::anim::DEFAULT_FPS;
use crate::asset::cut::{Cut, SkinFrames};
use crate::asset::{Asset, FitError, Fitted, Joint, JointKey, Skeleton, UpAxis, quantise_weights};
use crate::error::Result;
use crate::format::Format;
use crate::write::{name_field, u32_field};

type Le = LittleEndian;

/// A group to write.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GroupDef {
    /// Name, at most 32 bytes.
    pub name: Vec<u8>,
    /// Indices of the group's triangles.
    pub triangles: Vec<u16>,
    /// Material index, −1 for none.
    pub material: i8,
}

/// A joint to write.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct JointDef {
    /// Name, at most 32 bytes.
    pub name: Vec<u8>,
    /// Parent's name; empty for a root.
    pub parent: Vec<u8>,
    /// Rest rotation, Euler X, Y, Z in radians.
    pub rotation: [f32; 3],
    /// Rest position relative to the parent.
    pub position: [f32; 3],
    /// `(time in seconds, Euler angles)` keys.
    pub rotation_keys: Vec<(f32, [f32; 3])>,
    /// `(time in seconds, offset)` keys.
    pub position_keys: Vec<(f32, [f32; 3])>,
}

/// Comments to write: group, material and joint comments as `(index, text)`, then the
/// model comment.
pub type CommentsDef = ([Vec<(i32, Vec<u8>)>; 3], Option<Vec<u8>>);

/// Extra vertex weights to write: the sub-version (1, 2 or 3) and per vertex
/// `(extra joints, weights)`.
pub type VertexExtraDef = (i32, Vec<([i8; 3], [u8; 3])>);

/// The optional MilkShape 1.8 tail. Sections are written in order up to the last one given
/// (an absent section before a present one is written empty, as MilkShape does).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Tail {
    /// Group, material and joint comments as `(index, text)`, and the model comment.
    pub comments: Option<CommentsDef>,
    /// Vertex extras: sub-version (1, 2 or 3) and per vertex `(extra joints, weights)`.
    pub vertex_extra: Option<VertexExtraDef>,
    /// Joint colours.
    pub joint_colors: Option<Vec<[f32; 3]>>,
    /// Model settings `(joint size, transparency mode, alpha ref)`.
    pub model_extra: Option<(f32, i32, f32)>,
}

/// Builds an MS3D file.
#[derive(Debug, Clone)]
pub struct Builder {
    /// File version (3 or 4).
    pub version: i32,
    /// Vertices: model-space position and joint (−1 for none).
    pub vertices: Vec<([f32; 3], i8)>,
    /// Triangles as raw records.
    pub triangles: Vec<Triangle>,
    /// Groups.
    pub groups: Vec<GroupDef>,
    /// Materials: name and diffuse colour.
    pub materials: Vec<(Vec<u8>, [f32; 4])>,
    /// Per material, its texture file (at most 128 bytes; missing or empty for none).
    pub textures: Vec<Vec<u8>>,
    /// Frames per second, current time, total frames.
    pub keyframer: (f32, f32, i32),
    /// Joints.
    pub joints: Vec<JointDef>,
    /// The 1.8 tail.
    pub tail: Tail,
}

impl Default for Builder {
    fn default() -> Self {
        Builder {
            version: 4,
            vertices: Vec::new(),
            triangles: Vec::new(),
            groups: Vec::new(),
            materials: Vec::new(),
            textures: Vec::new(),
            keyframer: (24.0, 0.0, 1),
            joints: Vec::new(),
            tail: Tail::default(),
        }
    }
}

/// A triangle record with flat normal `normal`, texture coordinates `st`, in group `group`.
#[must_use]
pub fn triangle(v: [u16; 3], normal: [f32; 3], st: [[f32; 2]; 3], group: u8) -> Triangle {
    Triangle {
        flags: U16::new(0),
        vertex_indices: v.map(U16::new),
        vertex_normals: [normal.map(F32::new); 3],
        s: st.map(|c| F32::new(c[0])),
        t: st.map(|c| F32::new(c[1])),
        smoothing_group: 1,
        group_index: group,
    }
}

fn count16(what: &'static str, n: usize) -> Result<U16<Le>> {
    u32_field(Format::Ms3d, what, n as u64).and_then(|v| {
        u16::try_from(v)
            .map(U16::new)
            .map_err(|_| crate::error::Error::Write {
                format: Format::Ms3d,
                what,
                value: n as u64,
                max: u16::MAX.into(),
            })
    })
}

fn keys(out: &mut Vec<u8>, keys: &[(f32, [f32; 3])]) {
    for &(time, value) in keys {
        let k = Keyframe {
            time: F32::new(time),
            value: value.map(F32::new),
        };
        out.extend_from_slice(k.as_bytes());
    }
}

fn i32_le(out: &mut Vec<u8>, v: i32) {
    out.extend_from_slice(I32::<Le>::new(v).as_bytes());
}

impl Builder {
    /// Writes the file.
    ///
    /// # Errors
    ///
    /// [`Error::Write`](crate::Error::Write) when a name exceeds its field or a count its
    /// 16-bit field.
    pub fn write(&self) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        out.extend_from_slice(
            Header {
                id: *MS3D_MAGIC,
                version: I32::new(self.version),
            }
            .as_bytes(),
        );
        out.extend_from_slice(count16("nNumVertices", self.vertices.len())?.as_bytes());
        for &(position, bone_id) in &self.vertices {
            let v = Vertex {
                flags: 0,
                vertex: position.map(F32::new),
                bone_id,
                reference_count: 1,
            };
            out.extend_from_slice(v.as_bytes());
        }
        out.extend_from_slice(count16("nNumTriangles", self.triangles.len())?.as_bytes());
        out.extend_from_slice(self.triangles.as_bytes());
        out.extend_from_slice(count16("nNumGroups", self.groups.len())?.as_bytes());
        for g in &self.groups {
            let head = GroupHead {
                flags: 0,
                name: name_field(Format::Ms3d, "group.name", &g.name)?,
                num_triangles: count16("group.numtriangles", g.triangles.len())?,
            };
            out.extend_from_slice(head.as_bytes());
            for &t in &g.triangles {
                out.extend_from_slice(U16::<Le>::new(t).as_bytes());
            }
            out.push(g.material as u8);
        }
        out.extend_from_slice(count16("nNumMaterials", self.materials.len())?.as_bytes());
        for (i, (name, diffuse)) in self.materials.iter().enumerate() {
            let mut m = Material::new_zeroed();
            m.name = name_field(Format::Ms3d, "material.name", name)?;
            if let Some(texture) = self.textures.get(i) {
                m.texture = name_field(Format::Ms3d, "material.texture", texture)?;
            }
            m.diffuse = diffuse.map(F32::new);
            m.transparency = F32::new(1.0);
            out.extend_from_slice(m.as_bytes());
        }
        let (fps, time, frames) = self.keyframer;
        let k = Keyframer {
            animation_fps: F32::new(fps),
            current_time: F32::new(time),
            total_frames: I32::new(frames),
        };
        out.extend_from_slice(k.as_bytes());
        out.extend_from_slice(count16("nNumJoints", self.joints.len())?.as_bytes());
        for j in &self.joints {
            let head = JointHead {
                flags: 8,
                name: name_field(Format::Ms3d, "joint.name", &j.name)?,
                parent_name: name_field(Format::Ms3d, "joint.parentName", &j.parent)?,
                rotation: j.rotation.map(F32::new),
                position: j.position.map(F32::new),
                num_key_frames_rot: count16("joint.numKeyFramesRot", j.rotation_keys.len())?,
                num_key_frames_trans: count16("joint.numKeyFramesTrans", j.position_keys.len())?,
            };
            out.extend_from_slice(head.as_bytes());
            keys(&mut out, &j.rotation_keys);
            keys(&mut out, &j.position_keys);
        }
        self.write_tail(&mut out);
        Ok(out)
    }

    fn write_tail(&self, out: &mut Vec<u8>) {
        let t = &self.tail;
        let last = [
            t.comments.is_some(),
            t.vertex_extra.is_some(),
            t.joint_colors.is_some(),
            t.model_extra.is_some(),
        ]
        .iter()
        .rposition(|&present| present);
        let Some(last) = last else { return };
        // Comments (sub-version 1).
        i32_le(out, 1);
        let empty = CommentsDef::default();
        let (lists, model) = t.comments.as_ref().unwrap_or(&empty);
        for list in lists {
            i32_le(out, list.len() as i32);
            for (index, text) in list {
                i32_le(out, *index);
                i32_le(out, text.len() as i32);
                out.extend_from_slice(text);
            }
        }
        i32_le(out, i32::from(model.is_some()));
        if let Some(text) = model {
            i32_le(out, text.len() as i32);
            out.extend_from_slice(text);
        }
        if last < 1 {
            return;
        }
        // Vertex extras.
        let (sub, extras) = t.vertex_extra.clone().unwrap_or((3, Vec::new()));
        i32_le(out, sub);
        for i in 0..self.vertices.len() {
            let (bone_ids, weights) = extras.get(i).copied().unwrap_or(([-1; 3], [0; 3]));
            out.extend_from_slice(VertexEx1 { bone_ids, weights }.as_bytes());
            let extra_words = match sub {
                2 => 1,
                3 => 2,
                _ => 0,
            };
            for _ in 0..extra_words {
                out.extend_from_slice(U32::<Le>::new(0).as_bytes());
            }
        }
        if last < 2 {
            return;
        }
        // Joint colours (sub-version 1).
        i32_le(out, 1);
        let colors = t.joint_colors.clone().unwrap_or_default();
        for i in 0..self.joints.len() {
            let color = colors.get(i).copied().unwrap_or([1.0; 3]);
            out.extend_from_slice(
                JointEx {
                    color: color.map(F32::new),
                }
                .as_bytes(),
            );
        }
        if last < 3 {
            return;
        }
        // Model settings (sub-version 1).
        i32_le(out, 1);
        let (joint_size, mode, alpha_ref) = t.model_extra.unwrap_or((1.0, 0, 0.5));
        let m = ModelEx {
            joint_size: F32::new(joint_size),
            transparency_mode: I32::new(mode),
            alpha_ref: F32::new(alpha_ref),
        };
        out.extend_from_slice(m.as_bytes());
    }
}

/// Joints MilkShape addresses: a vertex's joint is a signed byte.
pub const MAX_JOINTS: usize = 128;

/// Longest joint, group and material name that keeps its terminating NUL.
pub const MAX_NAME: usize = 31;

impl Builder {
    /// `asset` as an MS3D 1.8 file (`+Y` up; a `+Z`-up asset is turned): the vertices of
    /// every mesh in one list in the bind pose, one group per mesh, one material per asset
    /// material (diffuse colour, texture file), the joints' bind poses as rest rotations
    /// (Euler, `Rz · Ry · Rx`) and positions, and every frame of every clip as keys relative
    /// to the rest pose on MilkShape's one timeline at the first clip's rate (frame `k` at
    /// `(k + 1) / fps` seconds). Each vertex keeps four influences, chosen by their error over
    /// the asset's frames ([`Influences::cut`](crate::asset::Influences::cut)), written as
    /// sub-version 1 extras in 255ths (largest remainder, summing to 255; sub-versions 2 and
    /// 3 store percent, half the precision). A joint whose name an earlier one took, or that
    /// has none, is renamed (`name_7`, `_7`), since MS3D finds parents by name.
    ///
    /// Losses, in words: more than four influences, clips joined on one timeline (MS3D names
    /// none) or at other rates, joint scale (MS3D has none).
    ///
    /// ```
    /// use skelmap_core::{Model, asset, ms3d, synth};
    /// let bytes = synth::tube(&Default::default()).write()?;
    /// let asset = Model::from_bytes(&bytes)?.to_asset(&asset::Options::default())?;
    /// let file = ms3d::Builder::from_asset(&asset)?.builder.write()?;
    /// let model = Model::from_bytes(&file)?;
    /// assert_eq!((model.num_bones(), model.num_frames()), (4, 9));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`FitError`] for more than 65,535 vertices or triangles, more than [`MAX_JOINTS`]
    /// joints or 128 materials, a name longer than [`MAX_NAME`] bytes, a texture name longer
    /// than 127, or vertex animation.
    pub fn from_asset(asset: &Asset) -> core::result::Result<Fitted<Builder>, FitError> {
        let asset = asset.with_up(UpAxis::Y);
        let (materials, textures) = check_fit(&asset)?;
        let joints: &[Joint] = asset.skeleton.as_ref().map_or(&[], |s| &s.joints);
        let mut b = Builder::default();
        let mut losses = Vec::new();
        let names = joint_names(asset.skeleton.as_ref(), &mut losses);
        let (extras, cuts) = b.add_meshes(&asset, joints.len());
        losses.extend(cuts.notes("vertices"));
        b.materials = asset
            .materials
            .iter()
            .zip(materials)
            .map(|(m, name)| (asset.name_bytes(&name), m.base_color))
            .collect();
        b.textures = textures.iter().map(|t| asset.name_bytes(t)).collect();
        if !joints.is_empty() {
            b.tail.vertex_extra = Some((1, extras));
        }
        let fps = timeline_losses(&asset, joints, &mut losses);
        let frames = asset.joint_frames().unwrap_or_default();
        b.keyframer = (fps, 0.0, frames.len().max(1) as i32);
        let names: Vec<Vec<u8>> = names.iter().map(|n| asset.name_bytes(n)).collect();
        b.joints = joint_defs(joints, &names, &frames, fps);
        Ok(Fitted { builder: b, losses })
    }

    /// Appends every mesh of `asset` as a group of vertices and triangles, each vertex with
    /// its four influences of least error ([`Influences::cut`](crate::asset::Influences::cut))
    /// among the first `joints`: the sub-version 1 extras (three more joints, three weights in
    /// 255ths) and the cut made.
    fn add_meshes(&mut self, asset: &Asset, joints: usize) -> (Vec<VertexExtra>, Cut) {
        let mut extras = Vec::with_capacity(asset.num_vertices());
        let frames = SkinFrames::of_asset(asset);
        let mut cuts = Cut::default();
        for (g, mesh) in asset.meshes.iter().enumerate() {
            let first = self.vertices.len() as u16;
            let cut = mesh.influences.cut(&mesh.positions, 4, &frames);
            cuts.add(&cut);
            for (v, p) in mesh.positions.iter().enumerate() {
                let top: Vec<(u16, f32)> = cut
                    .influences
                    .of(v)
                    .iter()
                    .copied()
                    .filter(|&(j, _)| usize::from(j) < joints)
                    .collect();
                let shares = quantise_weights(&top.iter().map(|t| t.1).collect::<Vec<_>>(), 255);
                let id = |k: usize| top.get(k).map_or(-1, |t| t.0 as i8);
                let weight = |k: usize| shares.get(k).map_or(0, |&w| w as u8);
                self.vertices.push((*p, id(0)));
                extras.push(([id(1), id(2), id(3)], [weight(0), weight(1), weight(2)]));
            }
            let mut group = GroupDef {
                name: asset.name_bytes(&asset.mesh_name(g)),
                triangles: Vec::with_capacity(mesh.triangles.len()),
                material: mesh.material.map_or(-1, |m| m as i8),
            };
            for t in &mesh.triangles {
                group.triangles.push(self.triangles.len() as u16);
                let corner = |k: usize| t[k] as usize;
                let mut record = triangle(
                    t.map(|i| first + i as u16),
                    [0.0; 3],
                    [0, 1, 2].map(|k| mesh.uv(corner(k))),
                    g.min(255) as u8,
                );
                record.vertex_normals = [0, 1, 2].map(|k| {
                    mesh.normals
                        .get(corner(k))
                        .copied()
                        .unwrap_or_default()
                        .map(F32::new)
                });
                self.triangles.push(record);
            }
            self.groups.push(group);
        }
        (extras, cuts)
    }
}

/// A vertex's sub-version 1 extras: three more joints and three weights in 255ths.
type VertexExtra = ([i8; 3], [u8; 3]);

/// Refuses what MS3D cannot address or name: 16-bit vertex and triangle counts, joints and
/// materials in signed bytes, names past their fields. The material names (an undecodable
/// one becomes `material_{i}`) and texture names, checked.
fn check_fit(asset: &Asset) -> core::result::Result<(Vec<String>, Vec<String>), FitError> {
    let fit = |what: String, limit: &str, advice: &str| FitError::new("MS3D", what, limit, advice);
    asset.refuse_vertex_animation("MS3D")?;
    let (vertices, triangles) = (asset.num_vertices(), asset.num_triangles());
    if vertices > usize::from(u16::MAX) || triangles > usize::from(u16::MAX) {
        return Err(fit(
            format!("{vertices} vertices and {triangles} triangles"),
            "its counts are 16-bit: at most 65,535 of each",
            "merge duplicate vertices with `skelmap optimize`, or convert to IQM or DPM",
        ));
    }
    let joints: &[Joint] = asset.skeleton.as_ref().map_or(&[], |s| &s.joints);
    if joints.len() > MAX_JOINTS {
        return Err(fit(
            format!("{} joints", joints.len()),
            "a vertex names its joint in a signed byte: at most 128 joints",
            "drop unused bones with `skelmap optimize`, or convert to IQM or DPM",
        ));
    }
    if asset.materials.len() > 128 {
        return Err(fit(
            format!("{} materials", asset.materials.len()),
            "a group names its material in a signed byte: at most 128",
            "merge materials in the source model",
        ));
    }
    asset.check_names(
        "MS3D",
        "joint",
        joints.iter().map(|j| j.name.as_str()),
        MAX_NAME,
    )?;
    asset.check_names(
        "MS3D",
        "group",
        (0..asset.meshes.len())
            .map(|i| asset.mesh_name(i))
            .collect::<Vec<_>>()
            .iter()
            .map(String::as_str),
        MAX_NAME,
    )?;
    // A name the reader could not decode (U+FFFD) is replaced by `material_{i}`.
    let materials: Vec<String> = asset
        .materials
        .iter()
        .enumerate()
        .map(|(i, m)| {
            if m.name.contains(char::REPLACEMENT_CHARACTER) {
                format!("material_{i}")
            } else {
                m.name.clone()
            }
        })
        .collect();
    asset.check_names(
        "MS3D",
        "material",
        materials.iter().map(String::as_str),
        MAX_NAME,
    )?;
    let textures: Vec<String> = asset
        .materials
        .iter()
        .map(|m| m.texture_file().unwrap_or_default())
        .collect();
    asset.check_names("MS3D", "texture", textures.iter().map(String::as_str), 127)?;
    Ok((materials, textures))
}

/// The joints' names, unique: joints find their parents by name, so a name used before gets
/// its index appended (a loss, noted).
fn joint_names(skeleton: Option<&Skeleton>, losses: &mut Vec<String>) -> Vec<String> {
    let Some(skeleton) = skeleton else {
        return Vec::new();
    };
    let (names, renamed) = skeleton.distinct_names(MAX_NAME, false);
    losses.extend(renamed.into_iter().map(|(i, name, taken)| {
        if taken.is_empty() {
            format!(
                "joint {i} has no name and is named '{name}': MS3D finds parents by name, and \
                 a joint naming no parent is a root"
            )
        } else {
            format!(
                "joint {i} is renamed '{name}': MS3D finds parents by name, and '{taken}' is \
                 taken"
            )
        }
    }));
    names
}

/// The rate of MilkShape's one timeline (the first clip's), noting what it loses: joint
/// scale, clips joined, other rates.
fn timeline_losses(asset: &Asset, joints: &[Joint], losses: &mut Vec<String>) -> f32 {
    if joints
        .iter()
        .any(|j| (j.scale - Vec3::ONE).abs().max_element() > 1e-4)
    {
        losses.push("a joint's bind pose scales; MS3D joints have no scale".into());
    }
    let scaled = asset.scaled_frames();
    if scaled > 0 {
        losses.push(format!(
            "{scaled} frames scale a joint; MS3D keys have no scale, so those frames differ \
             (IQM keeps scale)"
        ));
    }
    let fps = asset
        .clips
        .first()
        .map_or(DEFAULT_FPS, |c| c.fps)
        .clamp(1e-3, 1e6);
    if asset.clips.len() > 1 {
        losses.push(format!(
            "{} clips were joined on MilkShape's one timeline, which names no clips",
            asset.clips.len()
        ));
    }
    if asset.clips.iter().any(|c| c.fps != fps) {
        losses.push(format!(
            "clips at other rates than {fps} fps play at {fps} fps on the timeline"
        ));
    }
    fps
}

/// The joints with their rest pose (Euler rotation, position) and their keys relative to it,
/// frame `k` of `frames` at `(k + 1) / fps` seconds.
fn joint_defs(
    joints: &[Joint],
    names: &[Vec<u8>],
    frames: &[&[JointKey]],
    fps: f32,
) -> Vec<JointDef> {
    joints
        .iter()
        .enumerate()
        .map(|(i, j)| {
            let rest = j.rotation;
            let rotation_keys = frames
                .iter()
                .enumerate()
                .filter_map(|(f, keys)| {
                    let k = keys.get(i)?;
                    Some((
                        (f + 1) as f32 / fps,
                        crate::pose::euler::zyx_of(rest.inverse() * k.rotation),
                    ))
                })
                .collect();
            let position_keys = frames
                .iter()
                .enumerate()
                .filter_map(|(f, keys)| {
                    let k = keys.get(i)?;
                    let offset = rest.inverse() * (k.translation - j.translation);
                    Some(((f + 1) as f32 / fps, offset.to_array()))
                })
                .collect();
            JointDef {
                name: names.get(i).cloned().unwrap_or_default(),
                parent: j
                    .parent
                    .and_then(|p| names.get(p))
                    .cloned()
                    .unwrap_or_default(),
                rotation: crate::pose::euler::zyx_of(rest),
                position: j.translation.to_array(),
                rotation_keys,
                position_keys,
            }
        })
        .collect()
}

impl crate::asset::Writer for Builder {
    const FORMAT: Format = Format::Ms3d;

    fn write_asset(
        asset: &Asset,
        _: &crate::asset::WriteOptions,
    ) -> core::result::Result<crate::asset::Written, crate::asset::WriteError> {
        let Fitted { builder, losses } = Builder::from_asset(asset)?;
        Ok(crate::asset::Written::one(Self::FORMAT, builder.write()?).with_notes(losses))
    }
}
