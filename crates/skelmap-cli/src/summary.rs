//! What `info` reports about a model, as one serialisable structure shared by the text and
//! JSON renderings (so the two always carry the same numbers).

use serde::Serialize;
use skelmap_core::Skeleton;
use skelmap_core::dpm::Dpm;
use skelmap_core::{AnyModel, Diagnostics};

/// Everything `info` prints.
#[derive(Debug, Serialize)]
pub struct Summary {
    pub file: String,
    pub format: &'static str,
    pub size: u64,
    pub bones: u32,
    pub roots: u32,
    pub attachments: u32,
    pub meshes: u32,
    pub frames: u32,
    pub vertices: u64,
    pub triangles: u64,
    pub influences: u64,
    pub max_influences_per_vertex: u32,
    pub bounds: BoundsSummary,
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
pub struct BoneSummary {
    pub name: String,
    pub parent: Option<usize>,
    pub flags: u32,
    pub attachment: bool,
}

#[derive(Debug, Serialize)]
pub struct MeshSummary {
    pub shader: String,
    pub vertices: u32,
    pub triangles: u32,
    pub influences: u64,
    pub max_influences_per_vertex: u32,
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
    /// The summary of a validated model; an error for a format `info` cannot describe yet.
    pub fn new(
        file: &str,
        size: u64,
        model: &AnyModel<'_>,
        diag: &Diagnostics,
    ) -> Result<Summary, String> {
        // `AnyModel` is non-exhaustive: a format the library opens before this command learns
        // to describe it is refused rather than summarised with made-up zeros.
        let AnyModel::Dpm(dpm) = model else {
            return Err(format!(
                "{file}: info does not describe {} models yet",
                model.format()
            ));
        };
        let mut s = of_dpm(file, size, dpm);
        s.diagnostics = diag
            .warnings()
            .iter()
            .map(|w| DiagnosticSummary {
                kind: w.kind.describe().to_string(),
                what: w.what,
                offset: w.offset,
                count: w.count,
                detail: w.detail.clone(),
            })
            .collect();
        Ok(s)
    }
}

fn of_dpm(file: &str, size: u64, m: &Dpm<'_>) -> Summary {
    let mesh_list: Vec<MeshSummary> = m
        .meshes()
        .map(|mesh| {
            let (influences, max) = mesh.vertices().fold((0u64, 0u32), |(n, max), v| {
                (n + v.len() as u64, max.max(v.len() as u32))
            });
            MeshSummary {
                shader: mesh.shader_name_lossy().into_owned(),
                vertices: mesh.num_verts(),
                triangles: mesh.num_tris(),
                influences,
                max_influences_per_vertex: max,
            }
        })
        .collect();
    Summary {
        file: file.to_string(),
        format: "DPM",
        size,
        bones: m.num_bones(),
        roots: m.roots().count() as u32,
        attachments: m.attachments().count() as u32,
        meshes: m.num_meshes(),
        frames: m.num_frames(),
        vertices: m.total_vertices(),
        triangles: m.total_triangles(),
        influences: mesh_list.iter().map(|x| x.influences).sum(),
        max_influences_per_vertex: mesh_list
            .iter()
            .map(|x| x.max_influences_per_vertex)
            .max()
            .unwrap_or(0),
        bounds: BoundsSummary {
            mins: m.mins(),
            maxs: m.maxs(),
            yaw_radius: m.yaw_radius(),
            all_radius: m.all_radius(),
        },
        bone_list: m
            .bones()
            .map(|b| BoneSummary {
                name: b.name_lossy().into_owned(),
                parent: b.parent(),
                flags: b.flags(),
                attachment: b.is_attachment(),
            })
            .collect(),
        mesh_list,
        frame_names: m.frames().map(|f| f.name_lossy().into_owned()).collect(),
        diagnostics: Vec::new(),
    }
}

/// The readable rendering of a summary.
pub fn render_text(s: &Summary, out: &mut String) {
    use std::fmt::Write;
    let _ = writeln!(out, "{}: {} model, {} bytes", s.file, s.format, s.size);
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
    let b = &s.bounds;
    let _ = writeln!(
        out,
        "  bounds {:?} .. {:?}, yaw radius {}, radius {}",
        b.mins, b.maxs, b.yaw_radius, b.all_radius
    );
    let _ = writeln!(out, "  bone tree:");
    let mut depth = vec![0usize; s.bone_list.len()];
    for (i, bone) in s.bone_list.iter().enumerate() {
        let d = bone.parent.and_then(|p| depth.get(p)).map_or(0, |d| d + 1);
        if let Some(slot) = depth.get_mut(i) {
            *slot = d;
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
    let _ = writeln!(out, "  meshes:");
    for (i, m) in s.mesh_list.iter().enumerate() {
        let _ = writeln!(
            out,
            "    {i:>3} {:?}: {} vertices, {} triangles, {} influences (max {})",
            m.shader, m.vertices, m.triangles, m.influences, m.max_influences_per_vertex
        );
    }
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
