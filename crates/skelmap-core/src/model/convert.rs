//! Converting a skeletal model of any format to IQM or DPM, and measuring what a conversion
//! costs: [`to_iqm`], [`to_dpm`], [`skinning_error`].
//!
//! Both read the model through [`Model`] only: the joints' bind pose, the vertices skinned
//! by it (so that every format's vertices are bind-pose points, whatever it stores), their
//! influences, every frame sampled, and the clips. Each submesh becomes one mesh of the
//! output with its own run of vertices; a vertex whose triangle corners differ in texture
//! coordinate or normal (MS3D, which stores them per corner) is split into one vertex per
//! distinct corner.
//!
//! IQM keeps four influences in 255ths, as its compiler does: weights of 1/1000 or less are
//! dropped, the four largest kept, normalised, rounded to bytes and adjusted, from the first,
//! until they total exactly 255. A vertex with no weight left is written with four zero
//! weights, which readers bind to its first blend index (joint 0). [`skinning_error`]
//! measures what this moves, frame by frame, against the source.

use glam::{Affine3A, Quat, Vec3A};

use super::{Model, Pose};
use crate::dpm;
use crate::iqm;
use crate::pose::Interpolation;
use crate::pose::framegroups::FrameGroup;
use crate::view::{DeformError, TexcoordLayout};
use crate::write::{BoneDef, Influence};

/// A model converted: the builder of the output file, and where each of its vertices came
/// from.
#[derive(Debug, Clone)]
pub struct Converted<B> {
    /// The output, ready to write.
    pub builder: B,
    /// Per mesh of the output as [`Model`] opens it, per vertex, the source's `(mesh,
    /// vertex)`.
    pub origin: Vec<Vec<(u32, u32)>>,
    /// Vertices whose influences were cut to four or dropped below 1/1000 (IQM).
    pub reduced_vertices: usize,
    /// Frames in which a joint scales (DPM: its poses store the scale, but DPM readers,
    /// skelmap's included, read rotations without it).
    pub scaled_frames: usize,
}

/// How far a converted model's skinned vertices lie from the source's, over every frame (the
/// bind pose for a model without frames).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SkinningError {
    /// Largest distance, relative to the size.
    pub max: f32,
    /// Root mean square distance, relative to the size.
    pub rms: f32,
    /// The size: the diagonal of the source's bind-pose bounds.
    pub size: f32,
    /// Frames compared.
    pub frames: usize,
    /// Vertices compared per frame.
    pub vertices: usize,
}

impl core::fmt::Display for SkinningError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "largest {:.2e} and RMS {:.2e} of the model's size ({:.4}) over {} frames of {} \
             vertices",
            self.max, self.rms, self.size, self.frames, self.vertices
        )
    }
}

/// One joint: name, parent, bind transform relative to the parent.
struct Joint {
    name: Vec<u8>,
    parent: i32,
    rotation: Quat,
    translation: Vec3A,
    scale: Vec3A,
}

/// One output vertex in the bind pose.
struct Vertex {
    position: [f32; 3],
    normal: [f32; 3],
    texcoord: [f32; 2],
    influences: Vec<(u32, f32)>,
}

/// One output mesh: a run of vertices and its triangles (indices into the whole list).
struct Group {
    name: Vec<u8>,
    material: Vec<u8>,
    first_vertex: u32,
    num_vertices: u32,
    triangles: Vec<[u32; 3]>,
}

/// What both writers need, read once from the model.
struct Gathered {
    joints: Vec<Joint>,
    vertices: Vec<Vertex>,
    origin: Vec<(u32, u32)>,
    groups: Vec<Group>,
    /// Per frame, per joint: rotation, translation, scale.
    frames: Vec<Vec<(Quat, Vec3A, Vec3A)>>,
    clips: Vec<FrameGroup>,
    has_texcoords: bool,
}

/// Reads `model` for conversion.
fn gather(model: &Model<'_>) -> Result<Gathered, DeformError> {
    if model.is_vertex_animated() || model.num_meshes() == 0 {
        return Err(DeformError::NotSkeletal(model.format()));
    }
    let mut pose = Pose::default();
    model.pose_bind(&mut pose);
    let local = pose.local();
    let joints = model
        .bones()
        .enumerate()
        .map(|(i, b)| {
            let (rotation, translation) = local.bones.get(i).copied().unwrap_or_default();
            Joint {
                name: b.name().to_vec(),
                parent: b.parent().map_or(-1, |p| p as i32),
                rotation,
                translation,
                scale: local.scales.get(i).copied().unwrap_or(Vec3A::ONE),
            }
        })
        .collect();

    let (mut vertices, mut origin, mut groups) = (Vec::new(), Vec::new(), Vec::new());
    let mut has_texcoords = false;
    for mesh in model.meshes() {
        let n = mesh.num_vertices();
        let (mut positions, mut normals) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
        model.deform(mesh.index(), &pose, &mut positions, &mut normals)?;
        let corner_normals = if mesh.has_corner_normals() {
            let mut out = vec![[0.0; 3]; 3 * mesh.num_triangles()];
            model.deform_corner_normals(mesh.index(), &pose, &mut out)?;
            Some(out)
        } else {
            None
        };
        let mut influences: Vec<Vec<(u32, f32)>> = vec![Vec::new(); n];
        mesh.for_each_influence(|v, bone, w| {
            if let Some(list) = influences.get_mut(v) {
                list.push((bone, w));
            }
        });
        let layout = mesh.texcoord_layout();
        has_texcoords |= layout != TexcoordLayout::None;
        // A mesh drawn in no group (an MS3D without groups) is drawn whole.
        let mut parts: Vec<(Vec<u8>, Option<usize>, Vec<usize>)> = mesh
            .submeshes()
            .map(|sub| {
                (
                    sub.name().to_vec(),
                    sub.material(),
                    sub.triangle_indices().collect(),
                )
            })
            .collect();
        if parts.is_empty() {
            parts.push((Vec::new(), None, (0..mesh.num_triangles()).collect()));
        }
        for (sub_name, sub_material, sub_triangles) in parts {
            let first_vertex = vertices.len() as u32;
            // Each (source vertex, corner texcoord, corner normal) once in this group.
            let mut seen: std::collections::HashMap<(u32, [u32; 5]), u32> =
                std::collections::HashMap::new();
            let mut triangles = Vec::with_capacity(sub_triangles.len());
            for t in sub_triangles {
                let Some(tri) = mesh.triangle(t) else {
                    continue;
                };
                let uvs = match layout {
                    TexcoordLayout::PerCorner => mesh.corner_texcoords(t),
                    TexcoordLayout::PerVertex => {
                        let uv = |k: usize| mesh.vertex_texcoord(tri[k] as usize);
                        uv(0).zip(uv(1)).zip(uv(2)).map(|((a, b), c)| [a, b, c])
                    }
                    TexcoordLayout::None => None,
                }
                .unwrap_or([[0.0; 2]; 3]);
                let mut out = [0u32; 3];
                for k in 0..3 {
                    let v = tri[k];
                    let normal = match &corner_normals {
                        Some(c) => c.get(3 * t + k).copied().unwrap_or_default(),
                        None => normals.get(v as usize).copied().unwrap_or_default(),
                    };
                    let key = (
                        v,
                        [
                            uvs[k][0].to_bits(),
                            uvs[k][1].to_bits(),
                            normal[0].to_bits(),
                            normal[1].to_bits(),
                            normal[2].to_bits(),
                        ],
                    );
                    out[k] = *seen.entry(key).or_insert_with(|| {
                        vertices.push(Vertex {
                            position: positions.get(v as usize).copied().unwrap_or_default(),
                            normal,
                            texcoord: uvs[k],
                            influences: influences.get(v as usize).cloned().unwrap_or_default(),
                        });
                        origin.push((mesh.index() as u32, v));
                        vertices.len() as u32 - 1
                    });
                }
                triangles.push(out);
            }
            let material = sub_material
                .and_then(|m| model.material(m))
                .map(|m| {
                    if m.texture.is_empty() {
                        m.name.to_vec()
                    } else {
                        m.texture.to_vec()
                    }
                })
                .unwrap_or_default();
            let name = if sub_name.is_empty() {
                mesh.name().to_vec()
            } else {
                sub_name
            };
            groups.push(Group {
                name,
                material,
                first_vertex,
                num_vertices: vertices.len() as u32 - first_vertex,
                triangles,
            });
        }
    }

    let mut frames = Vec::with_capacity(model.num_frames());
    let mut local = crate::pose::LocalPose::default();
    for f in 0..model.num_frames() {
        model.sample(f, f, 0.0, Interpolation::Nlerp, &mut local);
        frames.push(
            (0..model.num_bones())
                .map(|i| {
                    let (q, t) = local.bones.get(i).copied().unwrap_or_default();
                    (q, t, local.scales.get(i).copied().unwrap_or(Vec3A::ONE))
                })
                .collect(),
        );
    }
    Ok(Gathered {
        joints,
        vertices,
        origin,
        groups,
        frames,
        clips: model.clips().to_vec(),
        has_texcoords,
    })
}

/// `influences` cut to IQM's four bytes as its compiler cuts them (see the module docs), and
/// whether anything was dropped.
fn quantise(influences: &[(u32, f32)]) -> ([u8; 4], [u8; 4], bool) {
    let mut kept: Vec<(u32, f32)> = influences
        .iter()
        .copied()
        .filter(|&(_, w)| w > 1e-3 && w.is_finite())
        .collect();
    kept.sort_by(|a, b| b.1.total_cmp(&a.1));
    let reduced = kept.len() > 4 || kept.len() < influences.iter().filter(|i| i.1 > 0.0).count();
    kept.truncate(4);
    let (mut bones, mut weights) = ([0u8; 4], [0u8; 4]);
    let total: f32 = kept.iter().map(|k| k.1).sum();
    if kept.is_empty() || total <= 0.0 {
        return (bones, weights, true);
    }
    let mut bytes = [0i32; 4];
    for (k, &(bone, w)) in kept.iter().enumerate() {
        bones[k] = bone.min(255) as u8;
        bytes[k] = (0.5 + w / total * 255.0) as i32;
    }
    let used = kept.len();
    let mut sum: i32 = bytes.iter().sum();
    let mut k = 0;
    // Each step moves the sum by one towards 255; at most 4 · 255 steps.
    while sum != 255 {
        let slot = k % used;
        if sum > 255 && bytes[slot] > 0 {
            bytes[slot] -= 1;
            sum -= 1;
        } else if sum < 255 && bytes[slot] < 255 {
            bytes[slot] += 1;
            sum += 1;
        }
        k += 1;
    }
    for (w, b) in weights.iter_mut().zip(bytes) {
        *w = b.clamp(0, 255) as u8;
    }
    (bones, weights, reduced)
}

/// `model` as an IQM: joints, one mesh per submesh, every frame, the clips as anims, bounds
/// per frame (see the [module docs](self) for how influences are cut). A model without bones
/// becomes a static IQM (no joints, no blend arrays).
///
/// ```
/// use skelmap_core::{Model, model::convert};
/// let dpm = skelmap_core::synth::tube(&Default::default()).write()?;
/// let source = Model::from_bytes(&dpm)?;
/// let converted = convert::to_iqm(&source)?;
/// let iqm = converted.builder.write()?;
/// let model = Model::from_bytes(&iqm)?;
/// assert_eq!((model.num_bones(), model.num_frames()), (4, 9));
/// let error = convert::skinning_error(&source, &model, &converted.origin)?;
/// assert!(error.max < 1e-3, "{error}"); // 8-bit weights and 16-bit channels
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
///
/// [`DeformError::NotSkeletal`] for a vertex-animated model or one without meshes (a
/// skeleton or an animation on its own); the deform's errors.
pub fn to_iqm(model: &Model<'_>) -> Result<Converted<iqm::Builder>, DeformError> {
    let g = gather(model)?;
    let mut b = iqm::Builder::default();
    let mut reduced_vertices = 0;
    for v in &g.vertices {
        b.positions.push(v.position);
        b.normals.push(v.normal);
        if g.has_texcoords {
            b.texcoords.push(v.texcoord);
        }
        if !g.joints.is_empty() {
            let (bones, weights, reduced) = quantise(&v.influences);
            reduced_vertices += usize::from(reduced);
            b.blend_indexes.push(bones);
            b.blend_weights.push(weights);
        }
    }
    for group in &g.groups {
        b.meshes.push(iqm::MeshDef {
            name: group.name.clone(),
            material: group.material.clone(),
            first_vertex: group.first_vertex,
            num_vertexes: group.num_vertices,
            first_triangle: b.triangles.len() as u32,
            num_triangles: group.triangles.len() as u32,
        });
        b.triangles.extend_from_slice(&group.triangles);
    }
    b.joints = g
        .joints
        .iter()
        .map(|j| iqm::JointDef {
            name: j.name.clone(),
            parent: j.parent,
            transform: transform(j.rotation, j.translation, j.scale),
        })
        .collect();
    b.frames = g
        .frames
        .iter()
        .map(|f| f.iter().map(|&(q, t, s)| transform(q, t, s)).collect())
        .collect();
    b.anims = g
        .clips
        .iter()
        .map(|c| iqm::AnimDef {
            name: c.name.as_bytes().to_vec(),
            first_frame: c.first,
            num_frames: c.count,
            framerate: c.fps,
            looped: c.looped,
        })
        .collect();
    b.bounds = frame_bounds(model)?;
    Ok(Converted {
        builder: b,
        origin: vec![g.origin],
        reduced_vertices,
        scaled_frames: 0,
    })
}

/// `model` as a DPM: its joints as bones, one mesh per submesh with each vertex's influences
/// pre-weighted in the bind pose's bone space, every frame as parent-relative 3×4 matrices
/// (scale kept), frames named after their clip (`walk_1`, …) so that the clips come back
/// from the names; their rates do not, which a `.framegroups` sidecar can give.
///
/// # Errors
///
/// As [`to_iqm`].
pub fn to_dpm(model: &Model<'_>) -> Result<Converted<dpm::Builder>, DeformError> {
    let g = gather(model)?;
    let bind = model.bind_palette().world.clone();
    let inverse: Vec<Affine3A> = bind.iter().map(Affine3A::inverse).collect();
    let mut b = dpm::Builder {
        bones: g
            .joints
            .iter()
            .map(|j| BoneDef::new(j.name.clone(), j.parent))
            .collect(),
        ..dpm::Builder::default()
    };
    // A DPM has at least one bone: a static model gets a root that holds every vertex.
    let mut joints = g.joints;
    if joints.is_empty() {
        b.bones.push(BoneDef::new("root", -1));
        joints.push(Joint {
            name: b"root".to_vec(),
            parent: -1,
            rotation: Quat::IDENTITY,
            translation: Vec3A::ZERO,
            scale: Vec3A::ONE,
        });
    }
    let mut origin = Vec::with_capacity(g.groups.len());
    for group in &g.groups {
        let range = group.first_vertex as usize..(group.first_vertex + group.num_vertices) as usize;
        let vertices = g.vertices.get(range.clone()).unwrap_or_default();
        let records = vertices
            .iter()
            .map(|v| {
                let total: f32 = v.influences.iter().map(|i| i.1).filter(|w| *w > 0.0).sum();
                let mut list: Vec<Influence> = v
                    .influences
                    .iter()
                    .filter(|i| i.1 > 0.0 && total > 0.0)
                    .map(|&(bone, w)| {
                        let m = inverse.get(bone as usize).copied().unwrap_or_default();
                        let p = m.transform_point3a(Vec3A::from_array(v.position));
                        let n = m.matrix3 * Vec3A::from_array(v.normal);
                        Influence::weighted(bone, w / total, p.to_array(), n.to_array())
                    })
                    .collect();
                if list.is_empty() {
                    // DPM has no unweighted vertex: bind it to the first bone.
                    let m = inverse.first().copied().unwrap_or_default();
                    let p = m.transform_point3a(Vec3A::from_array(v.position));
                    let n = m.matrix3 * Vec3A::from_array(v.normal);
                    list.push(Influence::weighted(0, 1.0, p.to_array(), n.to_array()));
                }
                list
            })
            .collect();
        let first = group.first_vertex;
        b.meshes.push(dpm::MeshDef {
            shader: group.material.clone(),
            vertices: records,
            texcoords: vertices.iter().map(|v| v.texcoord).collect(),
            triangles: group
                .triangles
                .iter()
                .map(|t| t.map(|i| i - first))
                .collect(),
            group_ids: Vec::new(),
        });
        origin.push(g.origin.get(range).unwrap_or_default().to_vec());
    }
    let scaled_frames = g
        .frames
        .iter()
        .filter(|f| {
            f.iter()
                .any(|&(_, _, s)| (s - Vec3A::ONE).abs().max_element() > 1e-4)
        })
        .count();
    let names = frame_names(&g.clips, g.frames.len());
    b.frames = g
        .frames
        .iter()
        .zip(names)
        .map(|(f, name)| {
            let poses = f.iter().map(|&(q, t, s)| matrix3x4(q, t, s)).collect();
            dpm::FrameDef::new(name, poses)
        })
        .collect();
    if b.frames.is_empty() {
        // A DPM has at least one frame: the bind pose.
        let poses = joints
            .iter()
            .map(|j| matrix3x4(j.rotation, j.translation, j.scale))
            .collect();
        b.frames.push(dpm::FrameDef::new("bind", poses));
    }
    Ok(Converted {
        builder: b,
        origin,
        reduced_vertices: 0,
        scaled_frames,
    })
}

/// Frame names that give the clips back: frame `k` of clip `walk` is `walk_{k+1}`; frames in
/// no clip are `frame_{index}`. Names are cut to DPM's 32 bytes.
fn frame_names(clips: &[FrameGroup], frames: usize) -> Vec<Vec<u8>> {
    let mut names: Vec<Vec<u8>> = (0..frames)
        .map(|f| format!("frame_{f}").into_bytes())
        .collect();
    for clip in clips {
        let stem: String = clip
            .name
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .take(24)
            .collect();
        for k in 0..clip.count as usize {
            if let Some(name) = names.get_mut(clip.first as usize + k) {
                *name = format!("{stem}_{}", k + 1).into_bytes();
            }
        }
    }
    names
}

/// DPM's row-major 3×4 matrix of a pose's rotation, translation and scale.
fn matrix3x4(q: Quat, t: Vec3A, s: Vec3A) -> dpm::write::Matrix3x4 {
    let m = Affine3A::from_scale_rotation_translation(s.into(), q, t.into());
    let (x, y, z) = (m.matrix3.x_axis, m.matrix3.y_axis, m.matrix3.z_axis);
    [
        [x.x, y.x, z.x, m.translation.x],
        [x.y, y.y, z.y, m.translation.y],
        [x.z, y.z, z.z, m.translation.z],
    ]
}

/// A transform from a pose's rotation, translation and scale.
fn transform(q: Quat, t: Vec3A, s: Vec3A) -> iqm::Transform {
    iqm::Transform {
        translate: t.to_array(),
        rotate: q.to_array(),
        scale: s.to_array(),
    }
}

/// Each frame's bounds of the source's skinned vertices.
fn frame_bounds(model: &Model<'_>) -> Result<Vec<iqm::BoundsDef>, DeformError> {
    let mut out = Vec::with_capacity(model.num_frames());
    let mut pose = Pose::default();
    let (mut positions, mut normals) = (Vec::new(), Vec::new());
    for f in 0..model.num_frames() {
        model.pose(f, f, 0.0, Interpolation::Nlerp, &mut pose)?;
        let mut b: Option<iqm::BoundsDef> = None;
        for mesh in model.meshes() {
            positions.resize(mesh.num_vertices(), [0.0; 3]);
            normals.resize(mesh.num_vertices(), [0.0; 3]);
            model.deform(mesh.index(), &pose, &mut positions, &mut normals)?;
            for p in &positions {
                let xy = (p[0] * p[0] + p[1] * p[1]).sqrt();
                let r = (xy * xy + p[2] * p[2]).sqrt();
                let b = b.get_or_insert(iqm::BoundsDef {
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
        }
        out.push(b.unwrap_or_default());
    }
    Ok(out)
}

/// How far `converted`'s skinned vertices lie from `source`'s, frame by frame (both posed at
/// the same frame index; the bind pose when the source has no frames), relative to the
/// diagonal of the source's bind-pose bounds. `origin` is [`Converted::origin`].
///
/// # Errors
///
/// [`DeformError`]s of posing or deforming either model, and [`DeformError::NoFrame`] when
/// `converted` has fewer frames than `source`.
pub fn skinning_error(
    source: &Model<'_>,
    converted: &Model<'_>,
    origin: &[Vec<(u32, u32)>],
) -> Result<SkinningError, DeformError> {
    let (mut a, mut b) = (Pose::default(), Pose::default());
    let skin = |model: &Model<'_>, pose: &Pose| -> Result<Vec<Vec<[f32; 3]>>, DeformError> {
        model
            .meshes()
            .map(|m| {
                let n = m.num_vertices();
                let (mut p, mut q) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
                model.deform(m.index(), pose, &mut p, &mut q)?;
                Ok(p)
            })
            .collect()
    };
    source.pose_bind(&mut a);
    let bind = skin(source, &a)?;
    let (lo, hi) = bind.iter().flatten().fold(
        (Vec3A::splat(f32::INFINITY), Vec3A::splat(f32::NEG_INFINITY)),
        |(lo, hi), p| (lo.min(Vec3A::from_array(*p)), hi.max(Vec3A::from_array(*p))),
    );
    let size = (hi - lo).length().max(f32::MIN_POSITIVE);
    let frames = source.num_frames();
    let (mut max, mut sum, mut count) = (0.0f32, 0.0f64, 0usize);
    for f in 0..frames.max(1) {
        if frames == 0 {
            source.pose_bind(&mut a);
            converted.pose_bind(&mut b);
        } else {
            source.pose(f, f, 0.0, Interpolation::Nlerp, &mut a)?;
            converted.pose(f, f, 0.0, Interpolation::Nlerp, &mut b)?;
        }
        let (want, got) = (skin(source, &a)?, skin(converted, &b)?);
        for (mesh, map) in got.iter().zip(origin) {
            for (p, &(m, v)) in mesh.iter().zip(map) {
                let Some(q) = want.get(m as usize).and_then(|w| w.get(v as usize)) else {
                    continue;
                };
                let d = (Vec3A::from_array(*p) - Vec3A::from_array(*q)).length();
                max = max.max(d);
                sum += f64::from(d) * f64::from(d);
                count += 1;
            }
        }
    }
    let per_frame = count / frames.max(1);
    Ok(SkinningError {
        max: max / size,
        rms: ((sum / count.max(1) as f64).sqrt() as f32) / size,
        size,
        frames: frames.max(1),
        vertices: per_frame,
    })
}
