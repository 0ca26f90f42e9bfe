//! The validated MS3D view: one sequential walk (`FORMATS.md` §6.4) and zero-copy accessors.

use std::borrow::Cow;

use zerocopy::LittleEndian;
use zerocopy::byteorder::{F32, I32, U16};

use super::raw::{
    GroupHead, Header, JointEx, JointHead, Keyframe, Keyframer, Material, ModelEx, Triangle,
    Vertex, VertexEx1, VertexEx2, VertexEx3,
};
use crate::diag::{Diagnostics, WarningKind};
use crate::error::{Error, Result};
use crate::floatbits::{Masks, flat, raw};
use crate::format::Format;
use crate::limits::Limits;
use crate::name;
use crate::parse::Parse;
use crate::pose::{Bone, Skeleton};
use crate::read::{Reader, Walk};
use crate::rules;

const FORMAT: Format = Format::Ms3d;
type Le = LittleEndian;

/// MilkShape's own limit on joints (`MAX_JOINTS`); more is accepted with a warning.
pub const SPEC_MAX_JOINTS: usize = 128;
/// MilkShape's limit on vertices and triangles (`MAX_VERTICES`, `MAX_TRIANGLES`).
pub const SPEC_MAX_VERTICES: u16 = 65_534;

/// A validated MS3D model over borrowed bytes. `Send` and `Sync`; `Clone` (it owns a small
/// index of its groups and joints, O(groups + joints), built once at open).
#[derive(Debug, Clone)]
pub struct Ms3d<'data> {
    data: &'data [u8],
    header: &'data Header,
    vertices: &'data [Vertex],
    triangles: &'data [Triangle],
    groups: Vec<Group<'data>>,
    materials: &'data [Material],
    keyframer: &'data Keyframer,
    joints: Vec<Joint<'data>>,
    /// Joint indices with every parent before its children.
    order: Vec<u16>,
    comments: Option<(u64, [u32; 3], bool)>,
    vertex_extra: Option<VertexExtra<'data>>,
    joint_extra: Option<&'data [JointEx]>,
    model_extra: Option<&'data ModelEx>,
}

/// One group (mesh): a name, its triangles and its material.
#[derive(Debug, Clone, Copy)]
pub struct Group<'data> {
    head: &'data GroupHead,
    triangle_indices: &'data [U16<Le>],
    material: i8,
    material_at: u64,
}

impl<'data> Group<'data> {
    /// The name bytes, up to the first NUL (not necessarily UTF-8: real files use GBK).
    #[must_use]
    pub fn name(&self) -> &'data [u8] {
        name::trim_nul(&self.head.name)
    }

    /// The name as text (invalid UTF-8 replaced).
    #[must_use]
    pub fn name_lossy(&self) -> Cow<'data, str> {
        name::lossy(self.name())
    }

    /// The triangles of the group, each `<` the model's triangle count.
    pub fn triangle_indices(&self) -> impl ExactSizeIterator<Item = u16> + Clone + 'data {
        self.triangle_indices.iter().map(|t| t.get())
    }

    /// The triangle indices as stored.
    #[must_use]
    pub fn triangle_index_slice(&self) -> &'data [U16<Le>] {
        self.triangle_indices
    }

    /// The material index, `None` for no material (validated `<` the material count).
    #[must_use]
    pub fn material(&self) -> Option<usize> {
        usize::try_from(self.material).ok()
    }

    /// The raw head record.
    #[must_use]
    pub fn raw(&self) -> &'data GroupHead {
        self.head
    }
}

/// One joint: rest rotation and position relative to its parent, and its animation keys.
#[derive(Debug, Clone, Copy)]
pub struct Joint<'data> {
    head: &'data JointHead,
    rotation_keys: &'data [Keyframe],
    position_keys: &'data [Keyframe],
    parent: Option<u16>,
}

impl<'data> Joint<'data> {
    /// The name bytes, up to the first NUL.
    #[must_use]
    pub fn name(&self) -> &'data [u8] {
        name::trim_nul(&self.head.name)
    }

    /// The name as text (invalid UTF-8 replaced).
    #[must_use]
    pub fn name_lossy(&self) -> Cow<'data, str> {
        name::lossy(self.name())
    }

    /// The parent joint's index, resolved from its name at open; `None` for a root.
    #[must_use]
    pub fn parent(&self) -> Option<usize> {
        self.parent.map(usize::from)
    }

    /// Rest rotation: Euler angles about X, Y, Z in radians.
    #[must_use]
    pub fn rotation(&self) -> [f32; 3] {
        self.head.rotation.map(|v| v.get())
    }

    /// Rest position relative to the parent.
    #[must_use]
    pub fn position(&self) -> [f32; 3] {
        self.head.position.map(|v| v.get())
    }

    /// Rotation keys: `(time in seconds, Euler angles)`, relative to the rest pose.
    pub fn rotation_keys(&self) -> impl ExactSizeIterator<Item = (f32, [f32; 3])> + Clone + 'data {
        self.rotation_keys.iter().map(key)
    }

    /// Position keys: `(time in seconds, offset)`, relative to the rest pose.
    pub fn position_keys(&self) -> impl ExactSizeIterator<Item = (f32, [f32; 3])> + Clone + 'data {
        self.position_keys.iter().map(key)
    }

    /// The raw head record.
    #[must_use]
    pub fn raw(&self) -> &'data JointHead {
        self.head
    }

    pub(crate) fn key_slices(&self) -> (&'data [Keyframe], &'data [Keyframe]) {
        (self.rotation_keys, self.position_keys)
    }
}

fn key(k: &Keyframe) -> (f32, [f32; 3]) {
    (k.time.get(), k.value.map(|v| v.get()))
}

/// The optional per-vertex extra weights, by sub-version.
#[derive(Debug, Clone, Copy)]
pub enum VertexExtra<'data> {
    /// 6-byte records, weights 0..=255.
    V1(&'data [VertexEx1]),
    /// 10-byte records, weights 0..=100.
    V2(&'data [VertexEx2]),
    /// 14-byte records, weights 0..=100.
    V3(&'data [VertexEx3]),
}

impl VertexExtra<'_> {
    /// The sub-version (1, 2 or 3).
    #[must_use]
    pub fn sub_version(&self) -> i32 {
        match self {
            VertexExtra::V1(_) => 1,
            VertexExtra::V2(_) => 2,
            VertexExtra::V3(_) => 3,
        }
    }

    fn get(&self, i: usize) -> Option<(VertexEx1, f32)> {
        match self {
            VertexExtra::V1(v) => v.get(i).map(|e| (*e, 255.0)),
            VertexExtra::V2(v) => v.get(i).map(|e| (e.base, 100.0)),
            VertexExtra::V3(v) => v.get(i).map(|e| (e.base, 100.0)),
        }
    }
}

/// Up to four `(joint, weight)` pairs of a vertex, weights normalised to sum to 1.
pub type VertexWeights = [Option<(u16, f32)>; 4];

/// What a comment is attached to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommentKind {
    /// A group (by index).
    Group,
    /// A material (by index).
    Material,
    /// A joint (by index).
    Joint,
    /// The whole model.
    Model,
}

/// One comment of the optional tail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Comment<'data> {
    /// What it is attached to.
    pub kind: CommentKind,
    /// The index of the group, material or joint (0 for the model).
    pub index: i32,
    /// The text bytes (encoding unspecified).
    pub text: &'data [u8],
}

/// Validates `data` as an MS3D under `limits`, recording findings in `diag`.
impl<'data> Parse<'data> for Ms3d<'data> {
    const FORMAT: Format = FORMAT;

    fn parse_with(
        data: &'data [u8],
        limits: &Limits,
        diag: &mut Diagnostics,
    ) -> Result<Ms3d<'data>> {
        rules::begin(FORMAT, data, limits)?;
        let reader = Reader::new(data, FORMAT);
        let mut walk = reader.walk(0);
        let header = walk.read::<Header>("header")?;
        let version = header.version.get();
        if !(3..=4).contains(&version) {
            return Err(Error::Unsupported {
                format: FORMAT,
                what: "header.version",
                offset: 10,
                detail: format!("version {version}; versions 3 and 4 are defined"),
            });
        }
        let masks = Masks::of::<Le>();

        let (count_at, n) = count(&mut walk, "nNumVertices")?;
        check_spec_count(diag, "nNumVertices", count_at, n);
        limit(
            count_at,
            "nNumVertices",
            n.into(),
            limits.max_vertices_per_mesh.into(),
        )?;
        let vertices_at = walk.offset();
        let vertices = walk.read_slice::<Vertex>("vertices", n.into())?;

        let (count_at, n) = count(&mut walk, "nNumTriangles")?;
        check_spec_count(diag, "nNumTriangles", count_at, n);
        limit(
            count_at,
            "nNumTriangles",
            n.into(),
            limits.max_triangles_per_mesh.into(),
        )?;
        let triangles_at = walk.offset();
        let triangles = walk.read_slice::<Triangle>("triangles", n.into())?;

        let (count_at, num_groups) = count(&mut walk, "nNumGroups")?;
        limit(
            count_at,
            "nNumGroups",
            num_groups.into(),
            limits.max_meshes.into(),
        )?;
        if num_groups == 0 {
            diag.warn(
                FORMAT,
                WarningKind::NoGroups,
                "nNumGroups",
                count_at,
                || "the model has no groups".into(),
            );
        }
        let mut groups = Vec::with_capacity(num_groups.into());
        for _ in 0..num_groups {
            let at = walk.offset();
            let head = walk.read::<GroupHead>("group")?;
            let indices_at = walk.offset();
            let triangle_indices = walk
                .read_slice::<U16<Le>>("group.triangleIndices", head.num_triangles.get().into())?;
            let material_at = walk.offset();
            let material = *walk.read::<i8>("group.materialIndex")?;
            rules::check_name(FORMAT, diag, "group.name", at + 1, &head.name);
            if let Some(k) = triangle_indices
                .iter()
                .position(|t| usize::from(t.get()) >= triangles.len())
            {
                return Err(invalid(
                    "group.triangleIndices",
                    indices_at + 2 * k as u64,
                    format!(
                        "triangle {} out of range: the model has {}",
                        triangle_indices.get(k).map_or(0, |t| t.get()),
                        triangles.len()
                    ),
                ));
            }
            groups.push(Group {
                head,
                triangle_indices,
                material,
                material_at,
            });
        }

        let (_, num_materials) = count(&mut walk, "nNumMaterials")?;
        let materials_at = walk.offset();
        let materials = walk.read_slice::<Material>("materials", num_materials.into())?;
        let keyframer_at = walk.offset();
        let keyframer = walk.read::<Keyframer>("keyframer")?;

        let (count_at, num_joints) = count(&mut walk, "nNumJoints")?;
        limit(
            count_at,
            "nNumJoints",
            num_joints.into(),
            limits.max_bones.into(),
        )?;
        if usize::from(num_joints) > SPEC_MAX_JOINTS {
            diag.warn(
                FORMAT,
                WarningKind::SpecLimit,
                "nNumJoints",
                count_at,
                || format!("{num_joints} joints; MilkShape allows {SPEC_MAX_JOINTS}"),
            );
        }
        let mut joints = Vec::with_capacity(num_joints.into());
        let mut joint_offsets = Vec::with_capacity(num_joints.into());
        for _ in 0..num_joints {
            let at = walk.offset();
            let head = walk.read::<JointHead>("joint")?;
            let rot_at = walk.offset();
            let rotation_keys = walk.read_slice::<Keyframe>(
                "joint.keyFramesRot",
                head.num_key_frames_rot.get().into(),
            )?;
            let pos_at = walk.offset();
            let position_keys = walk.read_slice::<Keyframe>(
                "joint.keyFramesTrans",
                head.num_key_frames_trans.get().into(),
            )?;
            let head_floats = head.rotation.iter().chain(&head.position);
            if let Some(k) = head_floats.clone().position(|v| masks.non_finite(raw(*v))) {
                let (what, field) = if k < 3 {
                    ("joint.rotation", 65)
                } else {
                    ("joint.position", 77)
                };
                return Err(invalid(what, at + field, "value is NaN or infinite".into()));
            }
            check_keys(rotation_keys, rot_at, "joint.keyFramesRot", masks, diag)?;
            check_keys(position_keys, pos_at, "joint.keyFramesTrans", masks, diag)?;
            rules::check_name(FORMAT, diag, "joint.name", at + 1, &head.name);
            joints.push(Joint {
                head,
                rotation_keys,
                position_keys,
                parent: None,
            });
            joint_offsets.push(at);
        }
        let order = resolve_parents(&mut joints, &joint_offsets)?;

        check_vertices(vertices, vertices_at, joints.len(), masks)?;
        check_triangles(
            triangles,
            triangles_at,
            vertices.len(),
            groups.len(),
            masks,
            diag,
        )?;
        for group in &groups {
            let in_range =
                group.material == -1 || group.material().is_some_and(|m| m < materials.len());
            if !in_range {
                return Err(invalid(
                    "group.materialIndex",
                    group.material_at,
                    format!(
                        "material {} out of range: the model has {}",
                        group.material,
                        materials.len()
                    ),
                ));
            }
        }
        for (i, m) in materials.iter().enumerate() {
            let colours = [m.ambient, m.diffuse, m.specular, m.emissive];
            let bad = masks.any_non_finite(flat::<Le, _>(&colours))
                | masks.non_finite(raw(m.shininess))
                | masks.non_finite(raw(m.transparency));
            if bad {
                return Err(invalid(
                    "material",
                    materials_at + 361 * i as u64,
                    "a colour or value is NaN or infinite".into(),
                ));
            }
            rules::check_name(
                FORMAT,
                diag,
                "material.name",
                materials_at + 361 * i as u64,
                &m.name,
            );
        }
        if masks.non_finite(raw(keyframer.animation_fps))
            | masks.non_finite(raw(keyframer.current_time))
        {
            return Err(invalid(
                "keyframer",
                keyframer_at,
                "value is NaN or infinite".into(),
            ));
        }

        let mut model = Ms3d {
            data,
            header,
            vertices,
            triangles,
            groups,
            materials,
            keyframer,
            joints,
            order,
            comments: None,
            vertex_extra: None,
            joint_extra: None,
            model_extra: None,
        };
        model.read_tail(walk, diag)?;
        Ok(model)
    }
}

impl<'data> Ms3d<'data> {
    /// Reads the optional MilkShape 1.8 tail: each section present if bytes remain.
    fn read_tail(&mut self, mut walk: Walk<'data>, diag: &mut Diagnostics) -> Result<()> {
        let end = self.data.len() as u64;
        let more = |w: &Walk<'_>| w.offset() < end;
        // Comments: sub-version 1; group, material and joint comments, then the model's.
        if more(&walk) {
            let at = walk.offset();
            let sub = walk.read::<I32<Le>>("comments.subVersion")?.get();
            if sub != 1 {
                return unknown_sub_version(diag, "comments.subVersion", at, sub);
            }
            let start = walk.offset();
            let mut counts = [0u32; 3];
            for (slot, what) in counts.iter_mut().zip([
                "nNumGroupComments",
                "nNumMaterialComments",
                "nNumJointComments",
            ]) {
                let n = non_negative(&mut walk, what)?;
                for _ in 0..n {
                    walk.read::<I32<Le>>("comment.index")?;
                    let len = non_negative(&mut walk, "comment.length")?;
                    walk.read_slice::<u8>("comment.text", len.into())?;
                }
                *slot = n;
            }
            let has_model = non_negative(&mut walk, "nHasModelComment")?;
            if has_model > 1 {
                return Err(invalid(
                    "nHasModelComment",
                    walk.offset() - 4,
                    format!("{has_model}; 0 or 1 expected"),
                ));
            }
            if has_model == 1 {
                let len = non_negative(&mut walk, "comment.length")?;
                walk.read_slice::<u8>("comment.text", len.into())?;
            }
            self.comments = Some((start, counts, has_model == 1));
        }
        // Extra vertex weights: sub-version 1, 2 or 3.
        if more(&walk) {
            let at = walk.offset();
            let sub = walk.read::<I32<Le>>("vertexExtra.subVersion")?.get();
            let n = self.vertices.len() as u64;
            let extra = match sub {
                1 => VertexExtra::V1(walk.read_slice("vertexExtra", n)?),
                2 => VertexExtra::V2(walk.read_slice("vertexExtra", n)?),
                3 => VertexExtra::V3(walk.read_slice("vertexExtra", n)?),
                _ => return unknown_sub_version(diag, "vertexExtra.subVersion", at, sub),
            };
            self.check_vertex_extra(extra, at + 4)?;
            self.vertex_extra = Some(extra);
        }
        // Joint colours: sub-version 1.
        if more(&walk) {
            let at = walk.offset();
            let sub = walk.read::<I32<Le>>("jointExtra.subVersion")?.get();
            if sub != 1 {
                return unknown_sub_version(diag, "jointExtra.subVersion", at, sub);
            }
            self.joint_extra = Some(walk.read_slice("jointExtra", self.joints.len() as u64)?);
        }
        // Model settings: sub-version 1.
        if more(&walk) {
            let at = walk.offset();
            let sub = walk.read::<I32<Le>>("modelExtra.subVersion")?.get();
            if sub != 1 {
                return unknown_sub_version(diag, "modelExtra.subVersion", at, sub);
            }
            self.model_extra = Some(walk.read("modelExtra")?);
        }
        if more(&walk) {
            let (at, extra) = (walk.offset(), end - walk.offset());
            diag.warn(FORMAT, WarningKind::TrailingBytes, "file", at, || {
                format!("{extra} bytes after the last structure")
            });
        }
        Ok(())
    }

    /// Extra joints −1 or in range; weight sums within the sub-version's scale.
    fn check_vertex_extra(&self, extra: VertexExtra<'_>, at: u64) -> Result<()> {
        let stride = [6u64, 10, 14]
            .get(extra.sub_version() as usize - 1)
            .copied()
            .unwrap_or(6);
        for i in 0..self.vertices.len() {
            let Some((e, scale)) = extra.get(i) else {
                break;
            };
            let record_at = at + stride * i as u64;
            if let Some(k) = e
                .bone_ids
                .iter()
                .position(|&b| !joint_ok(b, self.joints.len()))
            {
                return Err(invalid(
                    "vertexExtra.boneIds",
                    record_at + k as u64,
                    format!(
                        "joint {} out of range: the model has {}",
                        e.bone_ids[k],
                        self.joints.len()
                    ),
                ));
            }
            let sum: u32 = e.weights.iter().map(|&w| u32::from(w)).sum();
            if sum as f32 > scale {
                return Err(invalid(
                    "vertexExtra.weights",
                    record_at + 3,
                    format!(
                        "weights sum to {sum}; sub-version {} allows at most {scale}",
                        extra.sub_version()
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The bytes the view covers.
    #[must_use]
    pub fn data(&self) -> &'data [u8] {
        self.data
    }

    /// The file version (3 or 4).
    #[must_use]
    pub fn version(&self) -> i32 {
        self.header.version.get()
    }

    /// The vertices as stored (model-space positions, one joint each).
    #[must_use]
    pub fn vertices(&self) -> &'data [Vertex] {
        self.vertices
    }

    /// Position of vertex `i`.
    #[must_use]
    pub fn position(&self, i: usize) -> Option<[f32; 3]> {
        self.vertices.get(i).map(|v| v.vertex.map(|c| c.get()))
    }

    /// The joints influencing vertex `i` with their weights, normalised to sum to 1.
    ///
    /// Without the 1.8 extras, the vertex's own joint with weight 1. With them (scaled 0..=255
    /// for sub-version 1, 0..=100 for 2 and 3): `weights[0]` for the own joint, `weights[1]`
    /// and `weights[2]` for `boneIds[0]` and `boneIds[1]`, and the remainder `1 − Σ` for
    /// `boneIds[2]`; joints of −1 are dropped and the rest renormalised. Extra joints whose
    /// weights are all zero leave the own joint with weight 1. `None` entries are unused;
    /// `None` for an out-of-range `i`.
    #[must_use]
    pub fn vertex_weights(&self, i: usize) -> Option<VertexWeights> {
        let v = self.vertices.get(i)?;
        let own = u16::try_from(v.bone_id).ok();
        let mut out: VertexWeights = [None; 4];
        match self.vertex_extra.and_then(|x| x.get(i)) {
            Some((e, scale)) if e.bone_ids.iter().any(|&b| b >= 0) => {
                let w = e.weights.map(|w| f32::from(w) / scale);
                let rest = (1.0 - w.iter().sum::<f32>()).max(0.0);
                let joints = [
                    own,
                    u16::try_from(e.bone_ids[0]).ok(),
                    u16::try_from(e.bone_ids[1]).ok(),
                    u16::try_from(e.bone_ids[2]).ok(),
                ];
                let weights = [w[0], w[1], w[2], rest];
                let total: f32 = joints
                    .iter()
                    .zip(&weights)
                    .filter(|(j, _)| j.is_some())
                    .map(|(_, w)| w)
                    .sum();
                if total > 0.0 {
                    for (slot, (joint, weight)) in
                        out.iter_mut().zip(joints.into_iter().zip(weights))
                    {
                        if let Some(j) = joint.filter(|_| weight > 0.0) {
                            *slot = Some((j, weight / total));
                        }
                    }
                } else {
                    // Extra joints with no weight at all: the vertex's own joint takes it all.
                    out[0] = own.map(|j| (j, 1.0));
                }
            }
            _ => out[0] = own.map(|j| (j, 1.0)),
        }
        Some(out)
    }

    /// The triangles as stored.
    #[must_use]
    pub fn triangles(&self) -> &'data [Triangle] {
        self.triangles
    }

    /// The groups (meshes).
    #[must_use]
    pub fn groups(&self) -> &[Group<'data>] {
        &self.groups
    }

    /// The materials as stored.
    #[must_use]
    pub fn materials(&self) -> &'data [Material] {
        self.materials
    }

    /// Animation frames per second.
    #[must_use]
    pub fn animation_fps(&self) -> f32 {
        self.keyframer.animation_fps.get()
    }

    /// The editor's current time, seconds.
    #[must_use]
    pub fn current_time(&self) -> f32 {
        self.keyframer.current_time.get()
    }

    /// Frames in the animation.
    #[must_use]
    pub fn total_frames(&self) -> i32 {
        self.keyframer.total_frames.get()
    }

    /// The joints, in file order.
    #[must_use]
    pub fn joints(&self) -> &[Joint<'data>] {
        &self.joints
    }

    /// Joint indices ordered so that every parent comes before its children.
    #[must_use]
    pub fn evaluation_order(&self) -> &[u16] {
        &self.order
    }

    /// The 1.8 extra vertex weights, if present.
    #[must_use]
    pub fn vertex_extra(&self) -> Option<VertexExtra<'data>> {
        self.vertex_extra
    }

    /// The 1.8 joint colours, if present.
    #[must_use]
    pub fn joint_extra(&self) -> Option<&'data [JointEx]> {
        self.joint_extra
    }

    /// The 1.8 model settings, if present.
    #[must_use]
    pub fn model_extra(&self) -> Option<&'data ModelEx> {
        self.model_extra
    }

    /// `true` if the comment section of the 1.8 tail is present.
    #[must_use]
    pub fn has_comments(&self) -> bool {
        self.comments.is_some()
    }

    /// The comments of the 1.8 tail (none when it is absent).
    pub fn comments(&self) -> impl Iterator<Item = Comment<'data>> + 'data {
        let reader = Reader::new(self.data, FORMAT);
        let (start, counts, model) = self.comments.unwrap_or((u64::MAX, [0; 3], false));
        let mut walk = reader.walk(start);
        let kinds = [
            CommentKind::Group,
            CommentKind::Material,
            CommentKind::Joint,
        ];
        let mut section = 0usize;
        let mut left = 0u32;
        let mut model_left = model;
        let mut started = false;
        core::iter::from_fn(move || {
            loop {
                if !started || left == 0 {
                    if started {
                        section += 1;
                    }
                    if section < 3 {
                        walk.next::<I32<Le>>()?;
                        left = counts.get(section).copied().unwrap_or(0);
                        started = true;
                        if left == 0 {
                            continue;
                        }
                    } else {
                        if !model_left {
                            return None;
                        }
                        model_left = false;
                        walk.next::<I32<Le>>()?;
                        let len = walk.next::<I32<Le>>()?.get();
                        let text = walk.next_slice::<u8>(u64::try_from(len).ok()?)?;
                        return Some(Comment {
                            kind: CommentKind::Model,
                            index: 0,
                            text,
                        });
                    }
                }
                left -= 1;
                let index = walk.next::<I32<Le>>()?.get();
                let len = walk.next::<I32<Le>>()?.get();
                let text = walk.next_slice::<u8>(u64::try_from(len).ok()?)?;
                return Some(Comment {
                    kind: *kinds.get(section)?,
                    index,
                    text,
                });
            }
        })
    }
}

impl<'data> Skeleton<'data> for Ms3d<'data> {
    fn skeleton_bones(&self) -> impl ExactSizeIterator<Item = Bone<'data>> + Clone {
        self.joints.iter().map(|j| {
            let parent = j.parent.map_or(-1, i32::from);
            // MS3D joint flags are editor state (selected, dirty), not DPM/SKP bone flags:
            // MS3D has no attachment bones. The raw flags stay available through `Joint::raw`.
            Bone::new(&j.head.name, parent, 0)
        })
    }

    fn hierarchy_order(&self) -> Option<&[u16]> {
        Some(&self.order)
    }
}

fn invalid(what: &'static str, offset: u64, detail: String) -> Error {
    Error::Invalid {
        format: FORMAT,
        what,
        offset,
        detail,
    }
}

fn count(walk: &mut Walk<'_>, what: &'static str) -> Result<(u64, u16)> {
    let at = walk.offset();
    Ok((at, walk.read::<U16<Le>>(what)?.get()))
}

fn non_negative(walk: &mut Walk<'_>, what: &'static str) -> Result<u32> {
    let at = walk.offset();
    let v = walk.read::<I32<Le>>(what)?.get();
    u32::try_from(v).map_err(|_| invalid(what, at, format!("negative count {v}")))
}

fn limit(at: u64, what: &'static str, value: u64, max: u64) -> Result<()> {
    if value > max {
        return Err(Error::Limit {
            format: FORMAT,
            what,
            offset: at,
            value,
            max,
        });
    }
    Ok(())
}

fn check_spec_count(diag: &mut Diagnostics, what: &'static str, at: u64, n: u16) {
    if n > SPEC_MAX_VERTICES {
        diag.warn(FORMAT, WarningKind::SpecLimit, what, at, || {
            format!("{n}; MilkShape allows {SPEC_MAX_VERTICES}")
        });
    }
}

/// Warns about a tail section with an unknown sub-version; the tail ends there (not an error).
fn unknown_sub_version(
    diag: &mut Diagnostics,
    what: &'static str,
    at: u64,
    sub: i32,
) -> Result<()> {
    diag.warn(FORMAT, WarningKind::UnknownSubVersion, what, at, || {
        format!("sub-version {sub} is not known; the rest of the file is ignored")
    });
    Ok(())
}

fn joint_ok(id: i8, joints: usize) -> bool {
    id == -1 || usize::try_from(id).is_ok_and(|j| j < joints)
}

fn check_keys(
    keys: &[Keyframe],
    at: u64,
    what: &'static str,
    masks: Masks,
    diag: &mut Diagnostics,
) -> Result<()> {
    if masks.any_non_finite(flat::<Le, _>(keys)) {
        let k = keys
            .iter()
            .position(|k| masks.any_non_finite(flat::<Le, _>(core::slice::from_ref(k))))
            .unwrap_or(0);
        return Err(invalid(
            what,
            at + 16 * k as u64,
            format!("key {k}: value is NaN or infinite"),
        ));
    }
    if let Some(k) = keys
        .windows(2)
        .position(|w| w[1].time.get() < w[0].time.get())
    {
        diag.warn(
            FORMAT,
            WarningKind::KeyOrder,
            what,
            at + 16 * (k as u64 + 1),
            || format!("key {} is earlier than key {k}", k + 1),
        );
    }
    Ok(())
}

fn check_vertices(vertices: &[Vertex], at: u64, joints: usize, masks: Masks) -> Result<()> {
    for (i, v) in vertices.iter().enumerate() {
        let record = at + 15 * i as u64;
        if masks.any_non_finite(flat::<Le, _>(core::slice::from_ref(&v.vertex))) {
            return Err(invalid(
                "vertex.vertex",
                record + 1,
                format!("vertex {i}: position is NaN or infinite"),
            ));
        }
        if !joint_ok(v.bone_id, joints) {
            return Err(invalid(
                "vertex.boneId",
                record + 13,
                format!(
                    "vertex {i}: joint {} out of range: the model has {joints}",
                    v.bone_id
                ),
            ));
        }
    }
    Ok(())
}

fn check_triangles(
    triangles: &[Triangle],
    at: u64,
    vertices: usize,
    groups: usize,
    masks: Masks,
    diag: &mut Diagnostics,
) -> Result<()> {
    for (i, t) in triangles.iter().enumerate() {
        let record = at + 70 * i as u64;
        if let Some(k) = t
            .vertex_indices
            .iter()
            .position(|v| usize::from(v.get()) >= vertices)
        {
            return Err(invalid(
                "triangle.vertexIndices",
                record + 2 + 2 * k as u64,
                format!(
                    "triangle {i}: vertex {} out of range: the model has {vertices}",
                    t.vertex_indices[k].get()
                ),
            ));
        }
        let floats: [&[[F32<Le>; 3]]; 1] = [&t.vertex_normals];
        let st = [t.s, t.t];
        if masks.any_non_finite(flat::<Le, _>(floats[0])) | masks.any_non_finite(flat::<Le, _>(&st))
        {
            return Err(invalid(
                "triangle.vertexNormals",
                record + 8,
                format!("triangle {i}: a normal or texture coordinate is NaN or infinite"),
            ));
        }
        if usize::from(t.group_index) >= groups {
            diag.warn(
                FORMAT,
                WarningKind::TriangleGroup,
                "triangle.groupIndex",
                record + 69,
                || {
                    format!(
                        "triangle {i} names group {}; the model has {groups}",
                        t.group_index
                    )
                },
            );
        }
        if t.smoothing_group > 32 {
            diag.warn(
                FORMAT,
                WarningKind::SpecLimit,
                "triangle.smoothingGroup",
                record + 68,
                || {
                    format!(
                        "triangle {i}: smoothing group {}; MilkShape uses 1..=32",
                        t.smoothing_group
                    )
                },
            );
        }
    }
    Ok(())
}

/// Resolves every joint's parent name to an index (unique names, no self-parent, no missing
/// parent, no cycle) and returns an order in which parents precede children.
fn resolve_parents(joints: &mut [Joint<'_>], offsets: &[u64]) -> Result<Vec<u16>> {
    let at = |i: usize| offsets.get(i).copied().unwrap_or(0);
    let mut sorted: Vec<(&[u8], usize)> = joints
        .iter()
        .enumerate()
        .map(|(i, j)| (j.name(), i))
        .collect();
    sorted.sort_unstable();
    if let Some(w) = sorted.windows(2).find(|w| w[0].0 == w[1].0) {
        let (first, second) = (w[0].1.min(w[1].1), w[0].1.max(w[1].1));
        return Err(invalid(
            "joint.name",
            at(second) + 1,
            format!(
                "joint {second} repeats the name {:?} of joint {first}",
                name::lossy(w[0].0)
            ),
        ));
    }
    for i in 0..joints.len() {
        let parent_name = joints
            .get(i)
            .map_or(&[][..], |j| name::trim_nul(&j.head.parent_name));
        if parent_name.is_empty() {
            continue;
        }
        let found = sorted
            .binary_search_by(|(n, _)| (*n).cmp(parent_name))
            .ok()
            .and_then(|k| sorted.get(k))
            .map(|&(_, p)| p);
        let Some(p) = found else {
            return Err(invalid(
                "joint.parentName",
                at(i) + 33,
                format!(
                    "joint {i}: no joint is named {:?}",
                    name::lossy(parent_name)
                ),
            ));
        };
        if p == i {
            return Err(invalid(
                "joint.parentName",
                at(i) + 33,
                format!("joint {i} is its own parent"),
            ));
        }
        if let Some(j) = joints.get_mut(i) {
            j.parent = u16::try_from(p).ok();
        }
    }
    // Depth of every joint in O(joints): follow each parent chain once, remembering depths;
    // meeting a joint that is still being followed means a cycle.
    const UNSEEN: u32 = u32::MAX;
    const FOLLOWING: u32 = u32::MAX - 1;
    let mut depth = vec![UNSEEN; joints.len()];
    let mut chain: Vec<usize> = Vec::new();
    for start in 0..joints.len() {
        let mut i = start;
        let base = loop {
            match depth.get(i).copied() {
                Some(UNSEEN) => {
                    if let Some(d) = depth.get_mut(i) {
                        *d = FOLLOWING;
                    }
                    chain.push(i);
                    match joints.get(i).and_then(|j| j.parent) {
                        Some(p) => i = usize::from(p),
                        None => break 0,
                    }
                }
                Some(FOLLOWING) => {
                    return Err(invalid(
                        "joint.parentName",
                        at(i) + 33,
                        format!("joint {i} is part of a parent cycle"),
                    ));
                }
                Some(d) => break d + 1,
                None => break 0,
            }
        };
        for (k, &j) in chain.iter().rev().enumerate() {
            if let Some(d) = depth.get_mut(j) {
                *d = base + k as u32;
            }
        }
        chain.clear();
    }
    let mut order: Vec<u16> = (0..joints.len() as u16).collect();
    order.sort_by_key(|&j| depth.get(usize::from(j)).copied().unwrap_or(0));
    Ok(order)
}
