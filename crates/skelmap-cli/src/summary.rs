//! What `info` reports about a model, as one serialisable structure shared by the text and
//! JSON renderings (so the two always carry the same numbers). Built from format-neutral
//! parts: a skeleton, meshes, frame names, optional bounds.

use serde::Serialize;
use skelmap_core::bonevert::Vertices;
use skelmap_core::{Bone, Diagnostics, SkeletalMesh, Skeleton};
use skelmap_export::{Model, SceneOptions};

use crate::load::Opened;
use zerocopy::ByteOrder;

/// Everything `info` prints.
#[derive(Debug, Default, Serialize)]
pub struct Summary {
    pub file: String,
    pub format: &'static str,
    pub size: u64,
    /// The skeleton file an SKM was paired with.
    pub skeleton: Option<String>,
    pub levels_of_detail: u32,
    pub bones: u32,
    pub roots: u32,
    pub attachments: u32,
    pub meshes: u32,
    pub frames: u32,
    pub vertices: u64,
    pub triangles: u64,
    pub influences: u64,
    pub max_influences_per_vertex: u32,
    /// MS3D: groups, materials and joints under their own names (`null` for other formats).
    pub groups: Option<u32>,
    pub materials: Option<u32>,
    pub joints: Option<u32>,
    /// MDL/HMP: skins as "type code, width × height"; MS3D: materials and their texture
    /// files (`null` for other formats, whose meshes name their shaders).
    pub skins: Option<Vec<String>>,
    /// HMP: vertices per row and rows (`null` for other formats).
    pub grid: Option<[u32; 2]>,
    /// SL mdl: the declared vertex attributes, in order (`null` for other formats).
    pub attributes: Option<Vec<String>>,
    /// Stored bounds (DPM); `null` for formats that store none.
    pub bounds: Option<BoundsSummary>,
    /// The box around the vertices in the bind pose (frame 0; MS3D: the rest pose), computed.
    pub posed_bounds: Option<PosedBounds>,
    /// Named animations, and where they came from (`frame names` or `framegroups file`).
    pub frame_groups: Vec<GroupSummary>,
    pub groups_from: &'static str,
    pub bone_list: Vec<BoneSummary>,
    pub mesh_list: Vec<MeshSummary>,
    pub frame_names: Vec<String>,
    pub diagnostics: Vec<DiagnosticSummary>,
}

#[derive(Debug, Serialize)]
pub struct BoundsSummary {
    pub mins: [f32; 3],
    pub maxs: [f32; 3],
    pub yaw_radius: f32,
    pub all_radius: f32,
}

#[derive(Debug, Serialize)]
pub struct PosedBounds {
    pub mins: [f32; 3],
    pub maxs: [f32; 3],
}

#[derive(Debug, Serialize)]
pub struct GroupSummary {
    pub name: String,
    pub first: u32,
    pub count: u32,
    pub fps: f32,
    pub looped: bool,
}

#[derive(Debug, Serialize)]
pub struct BoneSummary {
    pub name: String,
    pub parent: Option<usize>,
    pub flags: u32,
    pub attachment: bool,
}

#[derive(Debug, Serialize)]
pub struct MeshSummary {
    pub name: Option<String>,
    pub shader: String,
    pub vertices: u32,
    pub triangles: u32,
    pub influences: u64,
    pub max_influences_per_vertex: u32,
}

impl MeshSummary {
    fn new<O: ByteOrder>(
        name: Option<String>,
        shader: String,
        vertices: Vertices<'_, O>,
        triangles: u32,
    ) -> Self {
        let count = vertices.len() as u32;
        let (influences, max) = vertices.fold((0u64, 0u32), |(n, max), v| {
            (n + v.len() as u64, max.max(v.len() as u32))
        });
        MeshSummary {
            name,
            shader,
            vertices: count,
            triangles,
            influences,
            max_influences_per_vertex: max,
        }
    }
}

#[derive(Debug, Serialize)]
pub struct DiagnosticSummary {
    pub kind: String,
    pub what: &'static str,
    pub offset: u64,
    pub count: u64,
    pub detail: String,
}

impl Summary {
    fn new(file: &str, format: &'static str, size: u64, diag: &Diagnostics) -> Summary {
        Summary {
            file: file.to_string(),
            format,
            size,
            diagnostics: diag
                .warnings()
                .iter()
                .map(|w| DiagnosticSummary {
                    kind: w.kind.describe().to_string(),
                    what: w.what,
                    offset: w.offset,
                    count: w.count,
                    detail: w.detail.clone(),
                })
                .collect(),
            ..Summary::default()
        }
    }

    fn skeleton<'a>(mut self, bones: impl Iterator<Item = Bone<'a>>) -> Self {
        self.bone_list = bones
            .map(|b| BoneSummary {
                name: b.name_lossy().into_owned(),
                parent: b.parent(),
                flags: b.flags(),
                attachment: b.is_attachment(),
            })
            .collect();
        self.bones = self.bone_list.len() as u32;
        self.roots = self.bone_list.iter().filter(|b| b.parent.is_none()).count() as u32;
        self.attachments = self.bone_list.iter().filter(|b| b.attachment).count() as u32;
        self
    }

    fn meshes(mut self, meshes: impl Iterator<Item = MeshSummary>) -> Self {
        self.mesh_list = meshes.collect();
        self.meshes = self.mesh_list.len() as u32;
        self.vertices = self.mesh_list.iter().map(|m| u64::from(m.vertices)).sum();
        self.triangles = self.mesh_list.iter().map(|m| u64::from(m.triangles)).sum();
        self.influences = self.mesh_list.iter().map(|m| m.influences).sum();
        self.max_influences_per_vertex = self
            .mesh_list
            .iter()
            .map(|m| m.max_influences_per_vertex)
            .max()
            .unwrap_or(0);
        self
    }

    fn frames(mut self, names: impl Iterator<Item = String>) -> Self {
        self.frame_names = names.collect();
        self.frames = self.frame_names.len() as u32;
        self
    }

    /// The summary of a validated DPM, or of a lone SKM or SKP file.
    pub fn of_model(
        file: &str,
        opened: &Opened,
        model: &Model<'_>,
        diag: &Diagnostics,
    ) -> Result<Summary, String> {
        let s = Summary::new(file, model.format().name(), opened.size, diag);
        let mut s = match model {
            Model::Dpm(m) => {
                let mut s = s
                    .skeleton(m.bones())
                    .meshes(m.meshes().map(|x| {
                        MeshSummary::new(
                            None,
                            x.shader_name_lossy().into_owned(),
                            x.vertices(),
                            x.num_tris(),
                        )
                    }))
                    .frames(m.frames().map(|f| f.name_lossy().into_owned()));
                s.bounds = Some(BoundsSummary {
                    mins: m.mins(),
                    maxs: m.maxs(),
                    yaw_radius: m.yaw_radius(),
                    all_radius: m.all_radius(),
                });
                s
            }
            Model::Skm(m) => {
                let mut s = s
                    .skeleton(m.skeleton_bones())
                    .meshes(skm_meshes(&m.skm()))
                    .frames(m.skp().frames().map(|f| f.name_lossy().into_owned()));
                s.skeleton.clone_from(&opened.skeleton);
                s.levels_of_detail = m.lods().count() as u32;
                s
            }
            Model::Skp(p) => s
                .skeleton(p.bones())
                .frames(p.frames().map(|f| f.name_lossy().into_owned())),
            Model::Ms3d(m) => of_ms3d(s, m),
            Model::Mdl(m) => {
                let mut s = s;
                s.vertices = m.num_verts().into();
                s.triangles = m.triangles().len() as u64;
                s.frames = m.frames().len() as u32;
                s.frame_names = m
                    .frames()
                    .iter()
                    .map(|f| f.name_lossy().into_owned())
                    .collect();
                s.skins = Some(m.skins().iter().map(skin_label).collect());
                s
            }
            Model::Hmp(h) => {
                let mut s = s;
                let [nx, ny] = h.grid();
                s.vertices = u64::from(nx) * u64::from(ny);
                s.triangles = 2 * u64::from(nx - 1) * u64::from(ny - 1);
                s.frames = h.frames().len() as u32;
                s.frame_names = h
                    .frames()
                    .iter()
                    .map(|f| f.name_lossy().into_owned())
                    .collect();
                s.skins = Some(h.skins().iter().map(skin_label).collect());
                s.grid = Some([nx, ny]);
                s
            }
            Model::SlMdl(m) => {
                let mut s = s;
                s.vertices = m.vertex_count().into();
                s.triangles = (m.vertex_count() / 3).into();
                s.attributes = Some(
                    m.attributes()
                        .map(|(_, kind, v)| format!("{kind:?} ({} bytes)", v.size()))
                        .collect(),
                );
                s
            }
            // `Model` is non-exhaustive: a format the library opens before this command
            // learns to describe it is refused rather than summarised with made-up zeros.
            _ => {
                return Err(format!(
                    "{file}: info does not describe {} models yet",
                    model.format()
                ));
            }
        };
        s.groups_from = if opened.groups.is_some() {
            "framegroups file"
        } else {
            "frame names"
        };
        s.frame_groups = opened
            .groups
            .clone()
            .unwrap_or_else(|| model.default_groups())
            .into_iter()
            .map(|g| GroupSummary {
                name: g.name,
                first: g.first,
                count: g.count,
                fps: g.fps,
                looped: g.looped,
            })
            .collect();
        let scene = model
            .scene(&SceneOptions {
                no_animations: true,
                ..SceneOptions::default()
            })
            .map_err(|e| format!("{file}: {e}"))?;
        s.posed_bounds = scene
            .bounds()
            .map(|(mins, maxs)| PosedBounds { mins, maxs });
        Ok(s)
    }
}

impl Summary {
    /// The summary of an SL `.anim` (opened by extension: the format has no magic).
    pub fn of_anim(file: &str, size: u64, anim: &skelmap_core::slmdl::SlAnim<'_>) -> Summary {
        let mut s = Summary::new(file, "SL anim", size, &Diagnostics::new());
        s.bones = anim.bone_count();
        s.frames = anim.keyframe_count();
        s.frame_names = anim.times().map(|t| format!("{t}s")).collect();
        s
    }
}

fn skin_label(skin: &skelmap_core::gamestudio::Skin<'_>) -> String {
    format!(
        "type {}, {:?}, {} × {}, {} level(s)",
        skin.type_code(),
        skin.format(),
        skin.width(),
        skin.height(),
        skin.num_levels()
    )
}

/// MS3D: groups as meshes (with their distinct vertices), joints as the skeleton.
fn of_ms3d(s: Summary, m: &skelmap_core::ms3d::Ms3d<'_>) -> Summary {
    let groups = m.groups().iter().map(|g| {
        let mut used = vec![false; m.vertices().len()];
        let corners = g
            .triangle_indices()
            .filter_map(|t| m.triangles().get(usize::from(t)))
            .flat_map(|t| t.vertex_indices);
        for v in corners {
            if let Some(slot) = used.get_mut(usize::from(v.get())) {
                *slot = true;
            }
        }
        let material = g.material().and_then(|k| m.materials().get(k));
        let material_name = |x: &skelmap_core::ms3d::raw::Material| {
            skelmap_core::name::lossy(skelmap_core::name::trim_nul(&x.name)).into_owned()
        };
        MeshSummary {
            name: Some(g.name_lossy().into_owned()),
            shader: material.map(material_name).unwrap_or_default(),
            vertices: used.iter().filter(|u| **u).count() as u32,
            triangles: g.triangle_indices().len() as u32,
            influences: 0,
            max_influences_per_vertex: 0,
        }
    });
    let mut s = s.skeleton(m.skeleton_bones()).meshes(groups);
    s.vertices = m.vertices().len() as u64;
    s.triangles = m.triangles().len() as u64;
    s.groups = Some(m.groups().len() as u32);
    s.materials = Some(m.materials().len() as u32);
    // MS3D skins are texture files named by its materials.
    s.skins = Some(
        m.materials()
            .iter()
            .map(|x| {
                let text = |b: &[u8]| {
                    skelmap_core::name::lossy(skelmap_core::name::trim_nul(b)).into_owned()
                };
                format!("{}: texture {:?}", text(&x.name), text(&x.texture))
            })
            .collect(),
    );
    s.joints = Some(m.joints().len() as u32);
    s.frames = u32::try_from(m.total_frames()).unwrap_or(0);
    s
}

fn skm_meshes<'a>(m: &'a skelmap_core::skm::Skm<'a>) -> impl Iterator<Item = MeshSummary> + 'a {
    m.meshes().map(|x| {
        MeshSummary::new(
            Some(x.mesh_name_lossy().into_owned()),
            x.shader_name_lossy().into_owned(),
            x.vertices(),
            x.num_tris(),
        )
    })
}

/// The readable rendering of a summary.
pub fn render_text(s: &Summary, out: &mut String) {
    use std::fmt::Write;
    let _ = writeln!(out, "{}: {} model, {} bytes", s.file, s.format, s.size);
    if let Some(skins) = &s.skins {
        let _ = writeln!(
            out,
            "  skins: {}",
            if skins.is_empty() {
                "none".to_string()
            } else {
                skins.join("; ")
            }
        );
    }
    if let Some([nx, ny]) = s.grid {
        let _ = writeln!(out, "  terrain grid {nx} × {ny}");
    }
    if let Some(attributes) = &s.attributes {
        let _ = writeln!(out, "  attributes: {}", attributes.join(", "));
    }
    if let Some(skeleton) = &s.skeleton {
        let _ = writeln!(
            out,
            "  skeleton {skeleton}, levels of detail {}",
            s.levels_of_detail
        );
    }
    let _ = writeln!(
        out,
        "  bones {} ({} roots, {} attachments), meshes {}, frames {}",
        s.bones, s.roots, s.attachments, s.meshes, s.frames
    );
    let _ = writeln!(
        out,
        "  vertices {}, triangles {}, influences {} (at most {} per vertex)",
        s.vertices, s.triangles, s.influences, s.max_influences_per_vertex
    );
    if let Some(b) = &s.bounds {
        let _ = writeln!(
            out,
            "  bounds {:?} .. {:?}, yaw radius {}, radius {}",
            b.mins, b.maxs, b.yaw_radius, b.all_radius
        );
    }
    if let Some(b) = &s.posed_bounds {
        let _ = writeln!(out, "  bind-pose bounds {:?} .. {:?}", b.mins, b.maxs);
    }
    if !s.bone_list.is_empty() {
        let _ = writeln!(out, "  bone tree:");
    }
    for (i, bone) in s.bone_list.iter().enumerate() {
        // Depth by walking the parent chain (validated acyclic; bounded by the bone count,
        // since MS3D parents may come after their children).
        let mut d = 0usize;
        let mut at = bone.parent;
        while let Some(p) = at.filter(|_| d < s.bone_list.len()) {
            d += 1;
            at = s.bone_list.get(p).and_then(|b| b.parent);
        }
        let tag = if bone.attachment { " [attachment]" } else { "" };
        let _ = writeln!(
            out,
            "    {:indent$}{i:>3} {}{tag}",
            "",
            bone.name,
            indent = 2 * d
        );
    }
    if !s.mesh_list.is_empty() {
        let _ = writeln!(out, "  meshes:");
    }
    for (i, m) in s.mesh_list.iter().enumerate() {
        let name = m
            .name
            .as_deref()
            .map(|n| format!("{n:?} "))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "    {i:>3} {name}shader {:?}: {} vertices, {} triangles, {} influences (max {})",
            m.shader, m.vertices, m.triangles, m.influences, m.max_influences_per_vertex
        );
    }
    if !s.frame_names.is_empty() {
        let _ = write!(out, "  frames:");
        const SHOWN: usize = 12;
        for name in s.frame_names.iter().take(SHOWN) {
            let _ = write!(out, " {name}");
        }
        if s.frame_names.len() > SHOWN {
            let more = s.frame_names.len() - SHOWN;
            let last = s.frame_names.last().map_or("", String::as_str);
            let _ = write!(out, " … ({more} more, last {last})");
        }
        let _ = writeln!(out);
    }
    if !s.frame_groups.is_empty() {
        let _ = writeln!(out, "  frame groups (from {}):", s.groups_from);
    }
    for g in &s.frame_groups {
        let _ = writeln!(
            out,
            "    {:<16} frames {}..{} at {} fps{}",
            g.name,
            g.first,
            g.first + g.count,
            g.fps,
            if g.looped { ", looped" } else { "" }
        );
    }
    if s.diagnostics.is_empty() {
        let _ = writeln!(out, "  diagnostics: none");
    } else {
        let _ = writeln!(out, "  diagnostics:");
        for d in &s.diagnostics {
            let _ = writeln!(
                out,
                "    - {} ×{}: {} at offset {}: {}",
                d.kind, d.count, d.what, d.offset, d.detail
            );
        }
    }
}
