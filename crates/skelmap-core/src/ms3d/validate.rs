//! The MS3D validation pass (`docs/formats/ms3d.md` § Validation): one sequential walk over the sections and
//! the optional MilkShape 1.8 tail.

use core::mem::offset_of;

use zerocopy::byteorder::{F32, I32, U16};
use zerocopy::{IntoBytes, LittleEndian};

use super::raw::{
    GroupHead, Header, JointHead, Keyframe, Keyframer, Material, Triangle, Vertex, VertexEx1,
    VertexEx2, VertexEx3,
};
use super::view::{Group, Joint, Ms3d, SPEC_MAX_JOINTS, SPEC_MAX_VERTICES, VertexExtra};
use crate::diag::{Diagnostics, WarningKind};
use crate::error::{Error, Problem, Result};
use crate::floatbits::{Masks, flat, raw};
use crate::format::Format;
use crate::limits::Limits;
use crate::name;
use crate::parse::Parse;
use crate::read::{Reader, Walk};
use crate::rules;
use crate::scan;

const FORMAT: Format = Format::Ms3d;
type Le = LittleEndian;

/// Validates `data` as an MS3D under `limits`, recording findings in `diag`: the sections in
/// file order (each read and bounded as it comes), then the checks that need later sections
/// (vertex joints, triangle groups, group materials), then the optional 1.8 tail.
impl<'data> Parse<'data> for Ms3d<'data> {
    const FORMAT: Format = FORMAT;

    fn parse_with(
        data: &'data [u8],
        limits: &Limits,
        diag: &mut Diagnostics,
    ) -> Result<Ms3d<'data>> {
        rules::begin(FORMAT, data, limits)?;
        let mut walk = Reader::new(data, FORMAT).walk(0);
        let header = read_header(&mut walk)?;
        let masks = Masks::of::<Le>();
        let max_vertices = limits.max_vertices_per_mesh.into();
        let (vertices_at, vertices) =
            read_counted::<Vertex>(&mut walk, "nNumVertices", "vertices", max_vertices, diag)?;
        let max_triangles = limits.max_triangles_per_mesh.into();
        let (triangles_at, triangles) =
            read_counted::<Triangle>(&mut walk, "nNumTriangles", "triangles", max_triangles, diag)?;
        let groups = read_groups(&mut walk, triangles.len(), limits, diag)?;
        let (_, num_materials) = count(&mut walk, "nNumMaterials")?;
        let materials_at = walk.offset();
        let materials = walk.read_slice::<Material>("materials", num_materials.into())?;
        let keyframer_at = walk.offset();
        let keyframer = walk.read::<Keyframer>("keyframer")?;
        let (mut joints, joint_offsets) = read_joints(&mut walk, limits, masks, diag)?;
        let order = resolve_parents(&mut joints, &joint_offsets, diag)?;

        check_vertices(vertices, vertices_at, joints.len(), masks)?;
        check_triangles(
            triangles,
            triangles_at,
            vertices.len(),
            groups.len(),
            masks,
            diag,
        )?;
        check_group_materials(&groups, materials.len())?;
        check_materials(materials, materials_at, masks, diag)?;
        if masks.non_finite(raw(keyframer.animation_fps))
            | masks.non_finite(raw(keyframer.current_time))
        {
            return Err(invalid("keyframer", keyframer_at, Problem::NotFinite));
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

/// The header, whose version must be 3 or 4.
fn read_header<'data>(walk: &mut Walk<'data>) -> Result<&'data Header> {
    let header = walk.read::<Header>("header")?;
    let version = header.version.get();
    if !(3..=4).contains(&version) {
        return Err(Error::Unsupported {
            format: FORMAT,
            what: "header.version",
            offset: offset_of!(Header, version) as u64,
            value: version.into(),
            supported: "skelmap reads versions 3 and 4",
        });
    }
    Ok(header)
}

/// A `u16` count named `count_what` (past MilkShape's own limit: a warning; past `max`: a
/// limit error), then that many records, named `what`, and their offset.
fn read_counted<'data, T: crate::read::Raw>(
    walk: &mut Walk<'data>,
    count_what: &'static str,
    what: &'static str,
    max: u64,
    diag: &mut Diagnostics,
) -> Result<(u64, &'data [T])> {
    let (count_at, n) = count(walk, count_what)?;
    check_spec_count(diag, count_what, count_at, n);
    limit(count_at, count_what, n.into(), max)?;
    let at = walk.offset();
    Ok((at, walk.read_slice::<T>(what, n.into())?))
}

/// The groups, each with its triangle indices proven below `num_triangles` and its name
/// checked (its material is checked once the materials are read: [`check_group_materials`]).
fn read_groups<'data>(
    walk: &mut Walk<'data>,
    num_triangles: usize,
    limits: &Limits,
    diag: &mut Diagnostics,
) -> Result<Vec<Group<'data>>> {
    let (count_at, num_groups) = count(walk, "nNumGroups")?;
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
        let triangle_indices =
            walk.read_slice::<U16<Le>>("group.triangleIndices", head.num_triangles.get().into())?;
        let material_at = walk.offset();
        let material = *walk.read::<i8>("group.materialIndex")?;
        rules::check_name(
            FORMAT,
            diag,
            "group.name",
            at + offset_of!(GroupHead, name) as u64,
            &head.name,
        );
        let outside = |t: &U16<Le>| usize::from(t.get()) >= num_triangles;
        if let Some(k) = any(triangle_indices, outside)
            .then(|| triangle_indices.iter().position(outside))
            .flatten()
        {
            return Err(invalid(
                "group.triangleIndices",
                rules::record_offset::<U16<Le>>(indices_at, k),
                Problem::Index {
                    index: triangle_indices.get(k).map_or(0, |t| t.get()).into(),
                    len: num_triangles as u64,
                },
            ));
        }
        groups.push(Group {
            head,
            triangle_indices,
            material,
            material_at,
        });
    }
    Ok(groups)
}

/// The joints (their parents still unresolved: [`resolve_parents`]) and each one's offset,
/// with finite rest transforms and keys, and names checked.
fn read_joints<'data>(
    walk: &mut Walk<'data>,
    limits: &Limits,
    masks: Masks,
    diag: &mut Diagnostics,
) -> Result<(Vec<Joint<'data>>, Vec<u64>)> {
    let (count_at, num_joints) = count(walk, "nNumJoints")?;
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
        let rotation_keys = walk
            .read_slice::<Keyframe>("joint.keyFramesRot", head.num_key_frames_rot.get().into())?;
        let pos_at = walk.offset();
        let position_keys = walk.read_slice::<Keyframe>(
            "joint.keyFramesTrans",
            head.num_key_frames_trans.get().into(),
        )?;
        let head_floats = head.rotation.iter().chain(&head.position);
        if let Some(k) = head_floats.clone().position(|v| masks.non_finite(raw(*v))) {
            let (what, field) = if k < 3 {
                ("joint.rotation", offset_of!(JointHead, rotation) as u64)
            } else {
                ("joint.position", offset_of!(JointHead, position) as u64)
            };
            return Err(invalid(what, at + field, Problem::NotFinite));
        }
        let keys_in_order = check_keys(rotation_keys, rot_at, "joint.keyFramesRot", masks, diag)?
            & check_keys(position_keys, pos_at, "joint.keyFramesTrans", masks, diag)?;
        rules::check_name(
            FORMAT,
            diag,
            "joint.name",
            at + offset_of!(JointHead, name) as u64,
            &head.name,
        );
        joints.push(Joint {
            head,
            rotation_keys,
            position_keys,
            parent: None,
            keys_in_order,
        });
        joint_offsets.push(at);
    }
    Ok((joints, joint_offsets))
}

/// Every group's material index −1 (none) or below `num_materials`.
fn check_group_materials(groups: &[Group<'_>], num_materials: usize) -> Result<()> {
    for group in groups {
        let in_range = group.material == -1 || group.material().is_some_and(|m| m < num_materials);
        if !in_range {
            return Err(invalid(
                "group.materialIndex",
                group.material_at,
                Problem::Index {
                    index: group.material.into(),
                    len: num_materials as u64,
                },
            ));
        }
    }
    Ok(())
}

/// Every material's colours and scalars finite, and its name checked.
fn check_materials(
    materials: &[Material],
    materials_at: u64,
    masks: Masks,
    diag: &mut Diagnostics,
) -> Result<()> {
    for (i, m) in materials.iter().enumerate() {
        let at = rules::record_offset::<Material>(materials_at, i);
        let colours = [m.ambient, m.diffuse, m.specular, m.emissive];
        let bad = masks.any_non_finite(flat::<Le, _>(&colours))
            | masks.non_finite(raw(m.shininess))
            | masks.non_finite(raw(m.transparency));
        if bad {
            return Err(invalid("material", at, Problem::NotFinite));
        }
        rules::check_name(FORMAT, diag, "material.name", at, &m.name);
    }
    Ok(())
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
                    walk.offset() - size_of::<I32<Le>>() as u64,
                    Problem::AboveMaximum {
                        value: has_model.into(),
                        max: 1,
                    },
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
            self.check_vertex_extra(extra, at + size_of::<I32<Le>>() as u64)?;
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
        let stride = [
            size_of::<VertexEx1>(),
            size_of::<VertexEx2>(),
            size_of::<VertexEx3>(),
        ]
        .get(extra.sub_version() as usize - 1)
        .copied()
        .unwrap_or(size_of::<VertexEx1>());
        let joints = self.joints.len();
        let (bytes, scale) = match extra {
            VertexExtra::V1(v) => (v.as_bytes(), 255),
            VertexExtra::V2(v) => (v.as_bytes(), 100),
            VertexExtra::V3(v) => (v.as_bytes(), 100),
        };
        let clean =
            scan::ms3d_vertex_extras(bytes, stride, joints, scale).unwrap_or_else(|| match extra {
                VertexExtra::V1(v) => !any(v, |e| extra_bad(e, joints, 255)),
                VertexExtra::V2(v) => !any(v, |e| extra_bad(&e.base, joints, 100)),
                VertexExtra::V3(v) => !any(v, |e| extra_bad(&e.base, joints, 100)),
            });
        if clean {
            return Ok(());
        }
        // Something failed: find the first record and say what.
        for i in 0..self.vertices.len() {
            let Some((e, scale)) = extra.get(i) else {
                break;
            };
            let record_at = at + (stride * i) as u64;
            if let Some(k) = e
                .bone_ids
                .iter()
                .position(|&b| !joint_ok(b, self.joints.len()))
            {
                return Err(invalid(
                    "vertexExtra.boneIds",
                    record_at + k as u64,
                    Problem::Index {
                        index: e.bone_ids[k].into(),
                        len: self.joints.len() as u64,
                    },
                ));
            }
            let sum: u32 = e.weights.iter().map(|&w| u32::from(w)).sum();
            if sum as f32 > scale {
                return Err(invalid(
                    "vertexExtra.weights",
                    record_at + offset_of!(VertexEx1, weights) as u64,
                    Problem::AboveMaximum {
                        value: sum.into(),
                        max: scale as u64,
                    },
                ));
            }
        }
        Ok(())
    }
}

fn invalid(what: &'static str, offset: u64, problem: Problem) -> Error {
    Error::Invalid {
        format: FORMAT,
        what,
        offset,
        problem,
    }
}

fn count(walk: &mut Walk<'_>, what: &'static str) -> Result<(u64, u16)> {
    let at = walk.offset();
    Ok((at, walk.read::<U16<Le>>(what)?.get()))
}

fn non_negative(walk: &mut Walk<'_>, what: &'static str) -> Result<u32> {
    let at = walk.offset();
    let v = walk.read::<I32<Le>>(what)?.get();
    rules::non_negative(FORMAT, what, at, v)
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

/// `true` if `id` is −1 or names one of `joints`. Branch-free: −1 maps to 0, a joint index to
/// itself plus one, any other negative id to above 2³¹ (more joints than a file can hold).
#[inline]
fn joint_ok(id: i8, joints: usize) -> bool {
    (i32::from(id) + 1) as u32 as usize <= joints
}

/// `true` if `bad` holds for any record: one pass that ORs the flags without branching (the
/// common case, every record valid, pays no branch per record); callers search for the first
/// failing record, and build its error, only when this says there is one.
#[inline]
fn any<T>(records: &[T], bad: impl Fn(&T) -> bool) -> bool {
    records.iter().fold(false, |acc, r| acc | bad(r))
}

/// A vertex extra record with a joint out of range or weights summing above `scale`.
#[inline]
fn extra_bad(e: &VertexEx1, joints: usize, scale: u32) -> bool {
    let sum: u32 = e.weights.iter().map(|&w| u32::from(w)).sum();
    !(joint_ok(e.bone_ids[0], joints)
        & joint_ok(e.bone_ids[1], joints)
        & joint_ok(e.bone_ids[2], joints))
        | (sum > scale)
}

fn check_keys(
    keys: &[Keyframe],
    at: u64,
    what: &'static str,
    masks: Masks,
    diag: &mut Diagnostics,
) -> Result<bool> {
    if scan::ms3d_keys(keys.as_bytes()) == Some(true) {
        return Ok(true);
    }
    if masks.any_non_finite(flat::<Le, _>(keys)) {
        let k = keys
            .iter()
            .position(|k| masks.any_non_finite(flat::<Le, _>(core::slice::from_ref(k))))
            .unwrap_or(0);
        return Err(invalid(
            what,
            rules::record_offset::<Keyframe>(at, k),
            Problem::NotFinite,
        ));
    }
    let later_first = |w: &[Keyframe]| w[1].time.get() < w[0].time.get();
    if !keys.windows(2).fold(false, |acc, w| acc | later_first(w)) {
        return Ok(true);
    }
    if let Some(k) = keys.windows(2).position(later_first) {
        diag.warn(
            FORMAT,
            WarningKind::KeyOrder,
            what,
            rules::record_offset::<Keyframe>(at, k + 1),
            || format!("key {} is earlier than key {k}", k + 1),
        );
        return Ok(false);
    }
    Ok(true)
}

// The record layouts `skin::scan` tests: a vertex's floats at 1..13 and its joint at 13;
// a triangle's indices at 2..8, its fifteen floats at 8..68 with no gap, the smoothing group
// at 68 and the group index at 69; a vertex extra's joints at 0..3 and weights at 3..6; a
// key's time at 0, then its three values.
const _: () = assert!(
    size_of::<Vertex>() == 15
        && offset_of!(Vertex, vertex) == 1
        && offset_of!(Vertex, bone_id) == 13
        && size_of::<Triangle>() == 70
        && offset_of!(Triangle, vertex_indices) == 2
        && offset_of!(Triangle, vertex_normals) == 8
        && offset_of!(Triangle, s) == 44
        && offset_of!(Triangle, t) == 56
        && offset_of!(Triangle, smoothing_group) == 68
        && offset_of!(Triangle, group_index) == 69
        && offset_of!(VertexEx1, bone_ids) == 0
        && offset_of!(VertexEx1, weights) == 3
        && size_of::<VertexEx1>() == 6
        && size_of::<VertexEx2>() == 10
        && size_of::<VertexEx3>() == 14
        && size_of::<Keyframe>() == 16
        && offset_of!(Keyframe, time) == 0
);

fn check_vertices(vertices: &[Vertex], at: u64, joints: usize, masks: Masks) -> Result<()> {
    if scan::ms3d_vertices(vertices.as_bytes(), joints) == Some(true) {
        return Ok(());
    }
    for (i, v) in vertices.iter().enumerate() {
        let record = rules::record_offset::<Vertex>(at, i);
        if masks.any_non_finite(flat::<Le, _>(core::slice::from_ref(&v.vertex))) {
            return Err(invalid(
                "vertex.vertex",
                record + offset_of!(Vertex, vertex) as u64,
                Problem::NotFinite,
            ));
        }
        if !joint_ok(v.bone_id, joints) {
            return Err(invalid(
                "vertex.boneId",
                record + offset_of!(Vertex, bone_id) as u64,
                Problem::Index {
                    index: v.bone_id.into(),
                    len: joints as u64,
                },
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
    // The scan tests the warnings' fields too: when it passes, there is nothing to report.
    if scan::ms3d_triangles(triangles.as_bytes(), vertices, groups) == Some(true) {
        return Ok(());
    }
    for (i, t) in triangles.iter().enumerate() {
        let record = rules::record_offset::<Triangle>(at, i);
        if let Some(k) = t
            .vertex_indices
            .iter()
            .position(|v| usize::from(v.get()) >= vertices)
        {
            return Err(invalid(
                "triangle.vertexIndices",
                rules::record_offset::<U16<Le>>(
                    record + offset_of!(Triangle, vertex_indices) as u64,
                    k,
                ),
                Problem::Index {
                    index: t.vertex_indices[k].get().into(),
                    len: vertices as u64,
                },
            ));
        }
        let floats: [&[[F32<Le>; 3]]; 1] = [&t.vertex_normals];
        let st = [t.s, t.t];
        if masks.any_non_finite(flat::<Le, _>(floats[0])) | masks.any_non_finite(flat::<Le, _>(&st))
        {
            return Err(invalid(
                "triangle.vertexNormals",
                record + offset_of!(Triangle, vertex_normals) as u64,
                Problem::NotFinite,
            ));
        }
        if usize::from(t.group_index) >= groups {
            diag.warn(
                FORMAT,
                WarningKind::TriangleGroup,
                "triangle.groupIndex",
                record + offset_of!(Triangle, group_index) as u64,
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
                record + offset_of!(Triangle, smoothing_group) as u64,
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

/// A joint name as a sort key: its bytes before the first NUL, zero-padded to the field's 32
/// bytes and read as four words. Two keys are equal exactly when the names are (a name holds
/// no NUL), the empty name's key is all zeros, and keys compare as integers, where names
/// would compare by a call per pair. Their order is not the names' byte order, which no
/// caller needs.
type NameKey = [u64; 4];

#[inline]
fn name_key(field: &[u8; 32]) -> NameKey {
    let end = name::trim_nul(field).len();
    let mut key = NameKey::default();
    for (k, (word, bytes)) in key.iter_mut().zip(field.chunks_exact(8)).enumerate() {
        // The word's bytes before `end` stay, in its low bits; a shift by 64 keeps none.
        let kept = end.saturating_sub(8 * k).min(8) as u32;
        let mask = u64::MAX.checked_shr(8 * (8 - kept)).unwrap_or(0);
        *word = u64::from_le_bytes(bytes.try_into().unwrap_or_default()) & mask;
    }
    key
}

/// Resolves every joint's parent name to an index (unique names, no self-parent, no cycle) and
/// returns an order in which parents precede children. A parent name no joint has makes a
/// root, with a warning: an exporter writes `none` for the root's (H3DView's
/// `bonesgroup.ms3d`), and assimp opens such a file.
fn resolve_parents(
    joints: &mut [Joint<'_>],
    offsets: &[u64],
    diag: &mut Diagnostics,
) -> Result<Vec<u16>> {
    let at = |i: usize| offsets.get(i).copied().unwrap_or(0);
    let mut sorted: Vec<(NameKey, usize)> = joints
        .iter()
        .enumerate()
        .map(|(i, j)| (name_key(&j.head.name), i))
        .collect();
    sorted.sort_unstable();
    // Equal names sort by index: of the pairs, report the one whose second joint comes first
    // in the file.
    let repeat = sorted
        .windows(2)
        .filter(|w| w[0].0 == w[1].0)
        .map(|w| (w[1].1, w[0].1))
        .min();
    if let Some((second, first)) = repeat {
        return Err(invalid(
            "joint.name",
            at(second) + offset_of!(JointHead, name) as u64,
            Problem::DuplicateName {
                bone: second as u64,
                first: first as u64,
            },
        ));
    }
    for i in 0..joints.len() {
        let Some(field) = joints.get(i).map(|j| &j.head.parent_name) else {
            continue;
        };
        // The empty name (a root) is told by its first byte. Comparing the built key with
        // the all-zero one instead read it back in 16-byte halves right after four 8-byte
        // stores, which stalled on store forwarding: a third of this function's time.
        if field.first() == Some(&0) {
            continue;
        }
        let parent_name = name_key(field);
        let found = sorted
            .binary_search_by(|(n, _)| n.cmp(&parent_name))
            .ok()
            .and_then(|k| sorted.get(k))
            .map(|&(_, p)| p);
        let Some(p) = found else {
            let at = at(i) + offset_of!(JointHead, parent_name) as u64;
            diag.warn(
                FORMAT,
                WarningKind::UnknownParent,
                "joint.parentName",
                at,
                || {
                    format!(
                        "joint {i} names the parent {:?}",
                        name::lossy(name::trim_nul(field))
                    )
                },
            );
            continue;
        };
        if p == i {
            return Err(invalid(
                "joint.parentName",
                at(i) + offset_of!(JointHead, parent_name) as u64,
                Problem::OwnParent { bone: i as u64 },
            ));
        }
        if let Some(j) = joints.get_mut(i) {
            j.parent = u16::try_from(p).ok();
        }
    }
    let mut order: Vec<u16> = (0..joints.len() as u16).collect();
    // Every parent before its children (as every corpus file has them): file order is an
    // evaluation order, and no chain of parents can close on itself.
    if joints
        .iter()
        .enumerate()
        .all(|(i, j)| j.parent.is_none_or(|p| usize::from(p) < i))
    {
        return Ok(order);
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
                        at(i) + offset_of!(JointHead, parent_name) as u64,
                        Problem::ParentCycle { bone: i as u64 },
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
    order.sort_by_key(|&j| depth.get(usize::from(j)).copied().unwrap_or(0));
    Ok(order)
}
