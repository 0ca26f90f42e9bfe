//! `skelmap export` (glTF 2.0 / OBJ) and `skelmap render` (PNG preview or contact sheet).

use std::path::Path;
use std::process::ExitCode;

use skelmap_core::Diagnostics;
use skelmap_export::gltf::{self, GltfOptions};
use skelmap_export::{Model, Scene, SceneOptions, obj, render};

use crate::load::{self, Opened};
use crate::write_file;

/// Most cells of a contact sheet.
const SHEET_CELLS: usize = 16;

/// `export`'s switches.
pub struct ExportArgs {
    pub frame: Option<usize>,
    pub all_influences: bool,
    pub no_animations: bool,
}

/// The scene of `model` at `frame` with the sidecar's groups, as a one-line error.
fn scene_of(
    path: &Path,
    model: &Model<'_>,
    opened: &Opened,
    frame: Option<usize>,
    no_animations: bool,
) -> Result<Scene, String> {
    model
        .scene(&SceneOptions {
            frame,
            groups: opened.groups.clone(),
            no_animations,
        })
        .map_err(|e| format!("{}: {e}", path.display()))
}

fn extension(path: &Path) -> String {
    path.extension()
        .and_then(|e| e.to_str())
        .unwrap_or_default()
        .to_ascii_lowercase()
}

pub fn export(
    path: &Path,
    out: &Path,
    args: &ExportArgs,
    root: Option<&Path>,
) -> Result<ExitCode, String> {
    let kind = extension(out);
    if !matches!(kind.as_str(), "glb" | "gltf" | "obj") {
        return Err(format!(
            "{}: the output must end in .glb, .gltf or .obj",
            out.display()
        ));
    }
    let mut diag = Diagnostics::new();
    let scene = load::with_model(path, root, &mut diag, |model, opened, _| {
        scene_of(
            path,
            model,
            &opened,
            args.frame,
            args.no_animations || kind == "obj",
        )
    })?;
    let options = GltfOptions {
        all_influences: args.all_influences,
        no_animations: args.no_animations,
    };
    let fail = |e: skelmap_export::Error| format!("{}: {e}", out.display());
    match kind.as_str() {
        "glb" => {
            let mut bytes = Vec::new();
            gltf::write_glb(&scene, &options, &mut bytes).map_err(fail)?;
            write_file(out, &bytes)?;
        }
        "gltf" => {
            let bin = out.with_extension("bin");
            let uri = bin
                .file_name()
                .and_then(|n| n.to_str())
                .ok_or_else(|| format!("{}: the file name is not UTF-8", out.display()))?;
            let (json, data) = gltf::to_gltf(&scene, &options, uri).map_err(fail)?;
            write_file(out, &json)?;
            if !data.is_empty() {
                write_file(&bin, &data)?;
            }
        }
        _ => {
            let mut text = Vec::new();
            obj::write_obj(&scene, &mut text).map_err(fail)?;
            write_file(out, &text)?;
        }
    }
    say!(
        "wrote {}: {} meshes, {} vertices, {} triangles, {} joints, {} animations{}",
        out.display(),
        scene.meshes.len(),
        scene.num_vertices(),
        scene.num_triangles(),
        scene.skeleton.as_ref().map_or(0, |s| s.joints.len()),
        if kind == "obj" { 0 } else { scene.clips.len() },
        scene
            .frame
            .map_or_else(|| " (bind pose)".to_string(), |f| format!(" (frame {f})")),
    );
    warn_replaced(&scene);
    Ok(ExitCode::SUCCESS)
}

/// Says so when the file's NaN or infinite numbers had to be replaced.
fn warn_replaced(scene: &Scene) {
    if scene.replaced_non_finite > 0 {
        use owo_colors::OwoColorize;
        anstream::eprintln!(
            "{} {} NaN or infinite numbers (from huge or broken values in the file) were \
             replaced by 0 or the identity",
            "warning:".yellow().bold(),
            scene.replaced_non_finite
        );
    }
}

pub fn render(
    path: &Path,
    out: &Path,
    frame: Option<usize>,
    sheet: bool,
    size: u32,
    root: Option<&Path>,
) -> Result<ExitCode, String> {
    let mut diag = Diagnostics::new();
    let fail = |e: skelmap_export::Error| format!("{}: {e}", out.display());
    let (image, cells) = load::with_model(path, root, &mut diag, |model, opened, _| {
        if !sheet {
            let scene = scene_of(path, model, &opened, frame, true)?;
            warn_replaced(&scene);
            let image = render::render(&scene, size, size).map_err(fail)?;
            return Ok((image, Vec::new()));
        }
        let frames = sheet_frames(model, &opened);
        let scenes = frames
            .iter()
            .map(|(_, f)| scene_of(path, model, &opened, Some(*f), true))
            .collect::<Result<Vec<_>, _>>()?;
        let columns = (scenes.len() as f64).sqrt().ceil() as u32;
        let image = render::contact_sheet(&scenes, columns, size, size).map_err(fail)?;
        Ok((image, frames))
    })?;
    let png = render::encode_png(image.width, image.height, &image.rgba).map_err(fail)?;
    write_file(out, &png)?;
    say!(
        "wrote {} ({} × {} pixels)",
        out.display(),
        image.width,
        image.height
    );
    for (i, (label, frame)) in cells.iter().enumerate() {
        say!("  cell {i}: {label} (frame {frame})");
    }
    Ok(ExitCode::SUCCESS)
}

/// The contact sheet's cells: the first frame of each group, or, with a single group, up
/// to [`SHEET_CELLS`] frames spread evenly over the model's frames.
fn sheet_frames(model: &Model<'_>, opened: &Opened) -> Vec<(String, usize)> {
    let groups = opened
        .groups
        .clone()
        .unwrap_or_else(|| model.default_groups());
    if groups.len() > 1 {
        return groups
            .iter()
            .take(SHEET_CELLS)
            .map(|g| (g.name.clone(), g.first as usize))
            .collect();
    }
    let n = model.num_frames().max(1);
    let cells = n.min(SHEET_CELLS);
    (0..cells)
        .map(|k| {
            let f = k * n / cells;
            (format!("frame {f}"), f)
        })
        .collect()
}
