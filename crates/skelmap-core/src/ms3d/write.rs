//! Writing MS3D files: [`Builder`] (fixtures and fuzz seeds).
//!
//! Writes exactly what it is given, valid or not; [`Ms3d::parse`](crate::Parse::parse) judges.

use zerocopy::byteorder::{F32, I32, LittleEndian, U16, U32};
use zerocopy::{FromZeros, IntoBytes};

use super::raw::{
    GroupHead, Header, JointEx, JointHead, Keyframe, Keyframer, MS3D_MAGIC, Material, ModelEx,
    Triangle, Vertex, VertexEx1,
};
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
        for (name, diffuse) in &self.materials {
            let mut m = Material::new_zeroed();
            m.name = name_field(Format::Ms3d, "material.name", name)?;
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
