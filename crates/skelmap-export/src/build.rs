//! Building a [`Scene`] from each format's validated view.

use std::collections::HashMap;

use glam::{Affine3A, Quat, Vec3};
use skelmap_core::SkeletalMesh;
use skelmap_core::gamestudio::skin::{Skin, grey_palette};
use skelmap_core::gamestudio::{Hmp, Mdl, morph};
use skelmap_core::ms3d::{self, Ms3d};
use skelmap_core::pose::framegroups::{FrameGroup, groups_from_names};
use skelmap_core::pose::{Interpolation, LocalPose, Palette, PoseFrames, sample};
use skelmap_core::skin::{SimdLevel, SkinMatrices, skin_stream};
use skelmap_core::slmdl::{AttributeKind, SlMdl};

use crate::scene::{
    Clip, ClipKeys, Influences, Joint, MorphTarget, RgbaImage, Scene, SceneMaterial, SceneMesh,
    SceneSkeleton, UpAxis, unit,
};
use crate::{Error, Model, Result};

/// The joint index [`Influences`] use for "bound to no joint: stays where the scene put it".
pub const UNBOUND: u16 = u16::MAX;

/// Frames per second of frame groups made from frame names (DarkPlaces' default).
pub const NAMED_GROUP_FPS: f32 = 10.0;

/// Frames per second of an MS3D whose keyframer gives none.
pub const MS3D_DEFAULT_FPS: f32 = ms3d::anim::DEFAULT_FPS;

/// What to build.
#[derive(Debug, Clone, Default)]
pub struct SceneOptions {
    /// The frame to pose the meshes at; `None` is the bind pose (frame 0 for DPM, SKM, MDL
    /// and HMP; the joints' rest pose for MS3D).
    pub frame: Option<usize>,
    /// Frame groups replacing the ones derived from frame names (a DarkPlaces
    /// `.framegroups` sidecar, for instance). Groups reaching past the last frame are cut.
    pub groups: Option<Vec<FrameGroup>>,
    /// Build no clips, and so no MDL/HMP morph targets either (posing and bounds only).
    pub no_animations: bool,
}

/// Most animation keys a scene holds, over every clip: frames × joints (4 Mi keys are
/// 112 MiB), or frames × morph targets for vertex animation.
pub const MAX_CLIP_KEYS: u64 = 1 << 22;

impl Model<'_> {
    /// Number of frames the model can be posed at (`SceneOptions::frame` below this).
    #[must_use]
    pub fn num_frames(&self) -> usize {
        match self {
            Model::Dpm(m) => m.frame_count(),
            Model::Skm(m) => m.frame_count(),
            Model::Skp(p) => p.frame_count(),
            Model::Ms3d(m) => ms3d::anim::frame_count(m),
            Model::Mdl(m) => m.frames().len(),
            Model::Hmp(h) => h.frames().len(),
            Model::SlMdl(_) => 1,
        }
    }

    /// The frame groups a scene gets unless [`SceneOptions::groups`] overrides them.
    #[must_use]
    pub fn default_groups(&self) -> Vec<FrameGroup> {
        let names: Vec<Vec<u8>> = match self {
            Model::Dpm(m) => m.frames().map(|f| f.name().to_vec()).collect(),
            Model::Skm(m) => m.skp().frames().map(|f| f.name().to_vec()).collect(),
            Model::Skp(p) => p.frames().map(|f| f.name().to_vec()).collect(),
            Model::Mdl(m) => m.frames().iter().map(|f| f.name().to_vec()).collect(),
            Model::Hmp(h) => h
                .frames()
                .iter()
                .map(|f| f.name_lossy().into_owned().into_bytes())
                .collect(),
            Model::Ms3d(m) if !m.joints().is_empty() => {
                return vec![FrameGroup {
                    name: "animation".into(),
                    first: 0,
                    count: ms3d_keyed_frames(m) as u32,
                    fps: ms3d::anim::fps(m),
                    looped: true,
                }];
            }
            Model::Ms3d(_) | Model::SlMdl(_) => Vec::new(),
        };
        groups_from_names(names.iter().map(Vec::as_slice), NAMED_GROUP_FPS)
    }

    /// Builds the scene: an explicit copy of geometry, skeleton, skins and animation.
    ///
    /// # Errors
    ///
    /// [`Error::FrameOutOfRange`] for a frame the model lacks, [`Error::TooManyJoints`] for a
    /// skeleton glTF joint indices cannot address, [`Error::Skin`] if a kernel rejects a
    /// mesh (impossible for a validated model).
    pub fn scene(&self, options: &SceneOptions) -> Result<Scene> {
        let frames = self.num_frames();
        if let Some(frame) = options.frame.filter(|&f| f >= frames) {
            return Err(Error::FrameOutOfRange { frame, frames });
        }
        let groups = if options.no_animations {
            Vec::new()
        } else {
            clip_groups(options.groups.clone(), || self.default_groups(), frames)
        };
        let frame = options.frame;
        let mut scene = match self {
            Model::Dpm(m) => skeletal(
                "DPM",
                m,
                m.meshes().map(|x| (x.shader_name_lossy().into_owned(), x)),
                frame,
                &groups,
            )?,
            Model::Skm(m) => skeletal(
                "SKM",
                m,
                m.skm().meshes().map(|x| {
                    let name = x.mesh_name_lossy().into_owned();
                    let shader = x.shader_name_lossy().into_owned();
                    (if shader.is_empty() { name } else { shader }, x)
                }),
                frame,
                &groups,
            )?,
            Model::Skp(p) => skeletal(
                "SKP",
                p,
                std::iter::empty::<(String, skelmap_core::skm::SkmMeshView<'_>)>(),
                frame,
                &groups,
            )?,
            Model::Ms3d(m) => ms3d_scene(m, frame, &groups)?,
            Model::Mdl(m) => mdl_scene(m, frame.unwrap_or(0), &groups)?,
            Model::Hmp(h) => hmp_scene(h, frame.unwrap_or(0), &groups)?,
            Model::SlMdl(m) => sl_scene(m),
        };
        scene.replaced_non_finite = sanitise(&mut scene);
        Ok(scene)
    }
}

/// Replaces every NaN or infinite number a file smuggled in (validation does not reject
/// them) by 0, or by the identity for a rotation or transform, and counts the replacements:
/// glTF, OBJ and the rasteriser all need finite numbers.
fn sanitise(scene: &mut Scene) -> usize {
    let mut replaced = 0usize;
    let mut fix = |values: &mut [f32]| {
        for v in values.iter_mut().filter(|v| !v.is_finite()) {
            *v = 0.0;
            replaced += 1;
        }
    };
    for mesh in &mut scene.meshes {
        fix(mesh.positions.as_flattened_mut());
        fix(mesh.normals.as_flattened_mut());
        if let Some(uvs) = mesh.uvs.as_mut() {
            fix(uvs.as_flattened_mut());
        }
        for target in &mut mesh.targets {
            fix(target.positions.as_flattened_mut());
            fix(target.normals.as_flattened_mut());
        }
    }
    let mut keys = 0usize;
    let mut fix_pose = |q: &mut Quat, t: &mut Vec3| {
        if !q.is_finite() || q.length_squared() < 1e-12 {
            *q = Quat::IDENTITY;
            keys += 1;
        }
        if !t.is_finite() {
            *t = Vec3::ZERO;
            keys += 1;
        }
    };
    if let Some(skeleton) = scene.skeleton.as_mut() {
        for joint in &mut skeleton.joints {
            fix_pose(&mut joint.rotation, &mut joint.translation);
            if !joint.world.is_finite() {
                joint.world = Affine3A::IDENTITY;
            }
        }
    }
    for clip in &mut scene.clips {
        if let ClipKeys::Joints(frames) = &mut clip.keys {
            for (q, t) in frames.iter_mut().flatten() {
                fix_pose(q, t);
            }
        }
    }
    replaced + keys
}

/// `groups` (or the defaults) cut to `frames`, empty ones dropped.
fn clip_groups(
    groups: Option<Vec<FrameGroup>>,
    defaults: impl FnOnce() -> Vec<FrameGroup>,
    frames: usize,
) -> Vec<FrameGroup> {
    let frames = u32::try_from(frames).unwrap_or(u32::MAX);
    groups
        .unwrap_or_else(defaults)
        .into_iter()
        .filter_map(|mut g| {
            g.count = g.count.min(frames.saturating_sub(g.first));
            if !(g.fps.is_finite() && g.fps > 0.0) {
                g.fps = NAMED_GROUP_FPS;
            }
            (g.count > 0).then_some(g)
        })
        .collect()
}

/// Refuses clips whose keys (frames × `channels`: joints or morph targets) would exceed
/// [`MAX_CLIP_KEYS`].
fn check_keys(groups: &[FrameGroup], channels: usize) -> Result<()> {
    let keys: u64 = groups.iter().map(|g| u64::from(g.count)).sum::<u64>() * channels as u64;
    if keys > MAX_CLIP_KEYS {
        return Err(Error::TooLarge {
            what: "the animation (frames × joints or morph targets)",
            size: keys,
            unit: "keys",
        });
    }
    Ok(())
}

fn joint_index(i: usize) -> Result<u16> {
    u16::try_from(i)
        .ok()
        .filter(|&j| j != UNBOUND)
        .ok_or(Error::TooManyJoints { joints: i + 1 })
}

/// The local pose at `frame` (clamped), through the same sampling the runtime uses.
fn local_pose<'d, S: PoseFrames<'d>>(source: &S, frame: usize) -> Vec<(Quat, Vec3)> {
    let mut pose = LocalPose::default();
    sample(source, frame, frame, 0.0, Interpolation::Nlerp, &mut pose);
    pose.bones.iter().map(|&(q, t)| (q, t.into())).collect()
}

/// DPM, SKM and SKP: the skeleton at `frame` (frame 0 when `None`), meshes skinned with the
/// stream kernel, influences from the pre-weighted records.
fn skeletal<'d, S, M>(
    format: &'static str,
    source: &S,
    meshes: impl Iterator<Item = (String, M)>,
    frame: Option<usize>,
    groups: &[FrameGroup],
) -> Result<Scene>
where
    S: PoseFrames<'d>,
    M: SkeletalMesh<'d>,
{
    let bones: Vec<_> = source.skeleton_bones().collect();
    if !bones.is_empty() {
        joint_index(bones.len() - 1)?;
    }
    check_keys(groups, bones.len())?;
    let at = frame.unwrap_or(0);
    let mut local = LocalPose::default();
    sample(source, at, at, 0.0, Interpolation::Nlerp, &mut local);
    let mut palette = Palette::default();
    palette.build(source, &local);
    let matrices = SkinMatrices::from_palette(&palette);
    let joints = bones
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let (rotation, translation) = local.bones.get(i).copied().unwrap_or_default();
            Joint {
                name: b.name_lossy().into_owned(),
                parent: b.parent(),
                rotation,
                translation: translation.into(),
                world: palette.bone_world(i).unwrap_or_default(),
            }
        })
        .collect();

    let mut materials: Vec<SceneMaterial> = Vec::new();
    let mut out = Vec::new();
    for (name, mesh) in meshes {
        let n = mesh.num_verts() as usize;
        let (mut positions, mut normals) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
        skin_stream(
            &mesh,
            &matrices,
            SimdLevel::detect(),
            &mut positions,
            &mut normals,
        )?;
        let mut influences = Influences::default();
        for records in mesh.vertices() {
            influences.push(
                records
                    .iter()
                    .map(|r| (u16::try_from(r.bonenum()).unwrap_or(UNBOUND), r.influence())),
                UNBOUND,
            );
        }
        let material = match materials.iter().position(|m| m.name == name) {
            Some(i) => i,
            None => {
                materials.push(SceneMaterial {
                    name: name.clone(),
                    base_color: [0.8, 0.8, 0.8, 1.0],
                    image: None,
                });
                materials.len() - 1
            }
        };
        out.push(SceneMesh {
            name,
            material: Some(material),
            positions,
            normals: normals.into_iter().map(unit).collect(),
            uvs: Some(mesh.texcoords().collect()),
            triangles: mesh.triangles().collect(),
            influences,
            targets: Vec::new(),
        });
    }
    let clips = groups
        .iter()
        .map(|g| Clip {
            name: g.name.clone(),
            first: g.first,
            fps: g.fps,
            looped: g.looped,
            keys: ClipKeys::Joints(
                (g.first..g.first + g.count)
                    .map(|f| local_pose(source, f as usize))
                    .collect(),
            ),
        })
        .collect();
    Ok(Scene {
        format,
        up: UpAxis::Z,
        meshes: out,
        materials,
        images: Vec::new(),
        skeleton: (!bones.is_empty()).then_some(SceneSkeleton { joints }),
        clips,
        frame,
        replaced_non_finite: 0,
    })
}

/// Frames up to the last key of any joint (later frames repeat it), at least 1, at most
/// [`ms3d_frames`]: the length of the MS3D clip.
fn ms3d_keyed_frames(m: &Ms3d<'_>) -> usize {
    let last = m
        .joints()
        .iter()
        .flat_map(|j| j.rotation_keys().chain(j.position_keys()))
        .map(|(t, _)| t)
        .filter(|t| t.is_finite())
        .fold(0.0f32, f32::max);
    let frames = (last * ms3d::anim::fps(m)).ceil();
    let frames = if frames.is_finite() && frames > 0.0 {
        frames.min(ms3d::anim::frame_count(m) as f32) as usize
    } else {
        1
    };
    frames.clamp(1, ms3d::anim::frame_count(m))
}

/// MS3D absolute joint transforms at frame `f` (MilkShape's first frame being 1), or at
/// rest.
fn ms3d_pose(m: &Ms3d<'_>, frame: Option<usize>) -> Vec<Affine3A> {
    match frame {
        Some(f) => ms3d::anim::pose_at(m, ms3d::anim::frame_seconds(m, f as f32)),
        None => ms3d::anim::rest_pose(m),
    }
}

/// MS3D parent-relative joint rotations and translations at frame `f`, or at rest.
fn ms3d_locals(m: &Ms3d<'_>, frame: Option<usize>) -> Vec<(Quat, Vec3)> {
    let mut pose = LocalPose::default();
    match frame {
        Some(f) => {
            ms3d::anim::local_pose_at(m, ms3d::anim::frame_seconds(m, f as f32), &mut pose);
        }
        None => ms3d::anim::local_rest_pose(m, &mut pose),
    }
    pose.bones.into_iter().map(|(q, t)| (q, t.into())).collect()
}

/// MS3D: corners unwelded per group by (vertex, normal, texture coordinate), skinned with
/// `pose · rest⁻¹` blended by the vertex weights.
fn ms3d_scene(m: &Ms3d<'_>, frame: Option<usize>, groups: &[FrameGroup]) -> Result<Scene> {
    let joints_in = m.joints();
    if !joints_in.is_empty() {
        joint_index(joints_in.len() - 1)?;
    }
    check_keys(groups, joints_in.len())?;
    let rest = ms3d::anim::rest_pose(m);
    let now = ms3d_pose(m, frame);
    let bind: Vec<Affine3A> = now
        .iter()
        .zip(&rest)
        .map(|(n, r)| *n * r.inverse())
        .collect();
    let locals = ms3d_locals(m, frame);
    let joints = joints_in
        .iter()
        .enumerate()
        .map(|(i, j)| {
            let (rotation, translation) = locals.get(i).copied().unwrap_or_default();
            Joint {
                name: j.name_lossy().into_owned(),
                parent: j.parent(),
                rotation,
                translation,
                world: now.get(i).copied().unwrap_or_default(),
            }
        })
        .collect();
    let materials = m
        .materials()
        .iter()
        .map(|mat| {
            let d = mat.diffuse.map(|c| c.get());
            let clamp = |c: f32| {
                if c.is_finite() {
                    c.clamp(0.0, 1.0)
                } else {
                    1.0
                }
            };
            SceneMaterial {
                name: skelmap_core::name::lossy(skelmap_core::name::trim_nul(&mat.name))
                    .into_owned(),
                base_color: [clamp(d[0]), clamp(d[1]), clamp(d[2]), 1.0],
                image: None,
            }
        })
        .collect();
    let skinned = !joints_in.is_empty();
    let mut meshes = Vec::new();
    for group in m.groups() {
        let mut mesh = SceneMesh {
            name: group.name_lossy().into_owned(),
            material: group.material(),
            uvs: Some(Vec::new()),
            ..SceneMesh::default()
        };
        let mut corners: HashMap<(u16, [u32; 5]), u32> = HashMap::new();
        for t in group.triangle_indices() {
            let Some(tri) = m.triangles().get(usize::from(t)) else {
                continue;
            };
            let mut out = [0u32; 3];
            for (k, slot) in out.iter_mut().enumerate() {
                let v = tri.vertex_indices[k].get();
                let normal = tri.vertex_normals[k].map(|c| c.get());
                let uv = [tri.s[k].get(), tri.t[k].get()];
                let key = (
                    v,
                    [
                        normal[0].to_bits(),
                        normal[1].to_bits(),
                        normal[2].to_bits(),
                        uv[0].to_bits(),
                        uv[1].to_bits(),
                    ],
                );
                let next = mesh.positions.len() as u32;
                *slot = *corners.entry(key).or_insert_with(|| {
                    let i = usize::from(v);
                    let weights = m.vertex_weights(i).unwrap_or_default();
                    let stored = Vec3::from(m.position(i).unwrap_or_default());
                    let (mut p, mut n, mut total) = (Vec3::ZERO, Vec3::ZERO, 0.0);
                    for (j, w) in weights.into_iter().flatten() {
                        if let Some(b) = bind.get(usize::from(j)) {
                            p += w * b.transform_point3(stored);
                            n += w * b.transform_vector3(Vec3::from(normal));
                            total += w;
                        }
                    }
                    let (p, n) = if total > 0.0 {
                        (p / total, n)
                    } else {
                        (stored, Vec3::from(normal))
                    };
                    mesh.positions.push(p.into());
                    mesh.normals.push(unit(n.into()));
                    if let Some(uvs) = mesh.uvs.as_mut() {
                        uvs.push(uv);
                    }
                    if skinned {
                        mesh.influences.push(weights.into_iter().flatten(), UNBOUND);
                    }
                    next
                });
            }
            mesh.triangles.push(out);
        }
        if !mesh.triangles.is_empty() {
            meshes.push(mesh);
        }
    }
    let clips = if skinned {
        groups
            .iter()
            .map(|g| Clip {
                name: g.name.clone(),
                first: g.first,
                fps: g.fps,
                looped: g.looped,
                keys: ClipKeys::Joints(
                    (g.first..g.first + g.count)
                        .map(|f| ms3d_locals(m, Some(f as usize)))
                        .collect(),
                ),
            })
            .collect()
    } else {
        Vec::new()
    };
    Ok(Scene {
        format: "MS3D",
        up: UpAxis::Y,
        meshes,
        materials,
        images: Vec::new(),
        skeleton: skinned.then_some(SceneSkeleton { joints }),
        clips,
        frame,
        replaced_non_finite: 0,
    })
}

/// The first skin decoded (8-bit skins through a grey ramp: the game palette is not in the
/// file), as the scene's only image and material.
fn first_skin(skins: &[Skin<'_>], name: &str) -> (Vec<SceneMaterial>, Vec<RgbaImage>) {
    let image = skins.first().and_then(|s| {
        Some(RgbaImage {
            width: s.width(),
            height: s.height(),
            rgba: s.decode_rgba(0, &grey_palette())?,
        })
    });
    let material = SceneMaterial {
        name: name.to_owned(),
        base_color: [1.0; 4],
        image: image.as_ref().map(|_| 0),
    };
    (vec![material], image.into_iter().collect())
}

/// Morph clips: each group shows its frames' targets in turn.
fn morph_clips(groups: &[FrameGroup]) -> Vec<Clip> {
    groups
        .iter()
        .map(|g| Clip {
            name: g.name.clone(),
            first: g.first,
            fps: g.fps,
            looped: g.looped,
            keys: ClipKeys::Morph((g.first..g.first + g.count).collect()),
        })
        .collect()
}

fn difference(a: &[[f32; 3]], b: &[[f32; 3]]) -> Vec<[f32; 3]> {
    a.iter()
        .zip(b)
        .map(|(p, q)| [p[0] - q[0], p[1] - q[1], p[2] - q[2]])
        .collect()
}

/// Per-vertex 3-vectors.
type Points = Vec<[f32; 3]>;

/// MDL: corners unwelded by (3D vertex, skin vertex); every frame a morph target.
fn mdl_scene(m: &Mdl<'_>, frame: usize, groups: &[FrameGroup]) -> Result<Scene> {
    let n = m.num_verts() as usize;
    let tween = |f: usize| -> Result<(Points, Points)> {
        let (mut p, mut q) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
        morph::tween_scalar(m, f, f, 0.0, &mut p, &mut q)?;
        Ok((p, q))
    };
    let (width, height) = match m.skins().first() {
        Some(s) => (s.width(), s.height()),
        None => {
            let h = m.header();
            (
                u32::try_from(h.skinwidth.get()).unwrap_or(1),
                u32::try_from(h.skinheight.get()).unwrap_or(1),
            )
        }
    };
    // Corner → (3D vertex, skin vertex), deduplicated.
    let mut corners: HashMap<(u16, u16), u32> = HashMap::new();
    let mut sources: Vec<u16> = Vec::new();
    let mut uvs = Vec::new();
    let mut triangles = Vec::new();
    for (xyz, st) in m.triangles() {
        let mut out = [0u32; 3];
        for k in 0..3 {
            let next = sources.len() as u32;
            out[k] = *corners.entry((xyz[k], st[k])).or_insert_with(|| {
                sources.push(xyz[k]);
                uvs.push(
                    m.normalised_uv(usize::from(st[k]), width, height)
                        .unwrap_or_default(),
                );
                next
            });
        }
        triangles.push(out);
    }
    let pick = |v: &[[f32; 3]]| -> Vec<[f32; 3]> {
        sources
            .iter()
            .map(|&s| v.get(usize::from(s)).copied().unwrap_or_default())
            .collect()
    };
    let (base_p, base_n) = tween(frame)?;
    let (positions, normals) = (pick(&base_p), pick(&base_n));
    // Targets only serve the clips: none without animations.
    let targets = if m.frames().len() > 1 && !groups.is_empty() {
        (0..m.frames().len())
            .map(|f| {
                let (p, q) = tween(f)?;
                Ok(MorphTarget {
                    name: m.frames()[f].name_lossy().into_owned(),
                    positions: difference(&pick(&p), &positions),
                    normals: difference(&pick(&q), &normals),
                })
            })
            .collect::<Result<Vec<_>>>()?
    } else {
        Vec::new()
    };
    let mesh = SceneMesh {
        name: "mdl".into(),
        material: Some(0),
        positions,
        normals,
        uvs: Some(uvs),
        triangles,
        influences: Influences::default(),
        targets,
    };
    morph_scene("MDL", mesh, m.skins(), groups, frame)
}

/// A GameStudio scene: one mesh (normals made unit) with its morph targets, the first skin
/// as its material, and a clip per group when there is anything to animate.
fn morph_scene(
    format: &'static str,
    mut mesh: SceneMesh,
    skins: &[Skin<'_>],
    groups: &[FrameGroup],
    frame: usize,
) -> Result<Scene> {
    // Morph weights: one key per target per frame.
    check_keys(groups, mesh.targets.len())?;
    mesh.normals.iter_mut().for_each(|n| *n = unit(*n));
    let (materials, images) = first_skin(skins, &mesh.name);
    let clips = if mesh.targets.is_empty() {
        Vec::new()
    } else {
        morph_clips(groups)
    };
    Ok(Scene {
        format,
        up: UpAxis::Z,
        meshes: vec![mesh],
        materials,
        images,
        skeleton: None,
        clips,
        frame: Some(frame),
        replaced_non_finite: 0,
    })
}

/// HMP: the terrain grid at `frame`; other frames as morph targets.
fn hmp_scene(h: &Hmp<'_>, frame: usize, groups: &[FrameGroup]) -> Result<Scene> {
    let base = h.mesh(frame).unwrap_or_else(|| empty_terrain(h));
    let targets = if h.frames().len() > 1 && !groups.is_empty() {
        (0..h.frames().len())
            .filter_map(|f| {
                let t = h.mesh(f)?;
                Some(MorphTarget {
                    name: h.frames()[f].name_lossy().into_owned(),
                    positions: difference(&t.positions, &base.positions),
                    normals: difference(&t.normals, &base.normals),
                })
            })
            .collect()
    } else {
        Vec::new()
    };
    let mesh = SceneMesh {
        name: "terrain".into(),
        material: Some(0),
        positions: base.positions,
        normals: base.normals,
        uvs: Some(base.uvs),
        triangles: base.triangles,
        influences: Influences::default(),
        targets,
    };
    morph_scene("HMP", mesh, h.skins(), groups, frame)
}

fn empty_terrain(h: &Hmp<'_>) -> skelmap_core::gamestudio::TerrainMesh {
    skelmap_core::gamestudio::TerrainMesh {
        grid: h.grid(),
        positions: Vec::new(),
        normals: Vec::new(),
        uvs: Vec::new(),
        triangles: Vec::new(),
    }
}

/// SL mdl: a triangle list (three vertices per triangle, no index buffer in the file);
/// static, since the file names no skeleton hierarchy.
fn sl_scene(m: &SlMdl<'_>) -> Scene {
    let n = m.vertex_count() as usize;
    let floats3 = |kind| -> Option<Vec<[f32; 3]>> {
        let view = m.attribute(kind)?;
        (0..n).map(|i| view.floats::<3>(i)).collect()
    };
    let positions = floats3(AttributeKind::Position).unwrap_or_default();
    let normals = floats3(AttributeKind::Normal)
        .unwrap_or_else(|| vec![[0.0, 0.0, 1.0]; positions.len()])
        .into_iter()
        .map(unit)
        .collect();
    let uvs = m
        .attribute(AttributeKind::Texcoord)
        .filter(|v| v.size() >= 8)
        .and_then(|v| (0..n).map(|i| v.floats::<2>(i)).collect());
    let triangles = (0..positions.len() as u32 / 3)
        .map(|t| [3 * t, 3 * t + 1, 3 * t + 2])
        .collect();
    Scene {
        format: "SL mdl",
        up: UpAxis::Z,
        meshes: vec![SceneMesh {
            name: "mdl".into(),
            material: None,
            positions,
            normals,
            uvs,
            triangles,
            influences: Influences::default(),
            targets: Vec::new(),
        }],
        materials: Vec::new(),
        images: Vec::new(),
        skeleton: None,
        clips: Vec::new(),
        frame: None,
        replaced_non_finite: 0,
    }
}
