//! `skelmap export` (glTF 2.0 / OBJ) and `skelmap render` (PNG preview or contact sheet).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use skelmap_core::Model;
use skelmap_core::asset::{self, Asset, ClipTime};
use skelmap_export::gltf;
use skelmap_export::{obj, render};

use crate::layers::{self, Posing};
use crate::load;
use crate::output::Outputs;
use crate::summary::count;

/// Most cells of a contact sheet.
const SHEET_CELLS: usize = 16;

/// `export`'s switches.
pub struct ExportArgs {
    /// `--format`: the output's format when its extension does not say (`-o -`).
    pub format: Option<String>,
    pub frame: Option<usize>,
    /// `--clip`, `--time`, `--blend`, `--additive`.
    pub at: Posing,
    pub all_influences: bool,
    pub no_animations: bool,
}

/// The asset of `model` at `frame`, at a time in a clip (whose animation is then the only
/// one), or posed by layers (without animations), as a one-line error.
pub(crate) fn scene_of(
    path: &Path,
    model: &Model<'_>,
    frame: Option<usize>,
    at: &Posing,
    no_animations: bool,
) -> Result<Asset, String> {
    let (clip, pose) = if at.is_layered() {
        (None, Some(layers::pose(path, model, at)?))
    } else {
        (clip_time(path, model, at)?, None)
    };
    let options = asset::Options {
        frame,
        groups: clip.as_ref().map(|at| vec![at.clip.clone()]),
        no_animations: no_animations || pose.is_some(),
        at: clip,
        pose,
        dds: Some(skelmap_author::texture::decode_dds),
        no_images: false,
    };
    model
        .to_asset(&options)
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// The clip of `model` named `name`, `seconds` into it; an error lists the clips there are.
fn clip_time(path: &Path, model: &Model<'_>, at: &Posing) -> Result<Option<ClipTime>, String> {
    let (Some(name), seconds) = (&at.clip, &at.time) else {
        return Ok(None);
    };
    if !seconds.is_finite() {
        return Err(format!("--time {seconds}: not a number of seconds"));
    }
    let clips = model.clips();
    match clips.iter().find(|c| &c.name == name) {
        Some(clip) => Ok(Some(ClipTime {
            clip: clip.clone(),
            seconds: *seconds,
        })),
        None => Err(no_clip(path, clips, name)),
    }
}

/// How the asset was posed, for the line that says what was written.
fn posed(asset: &Asset, at: &Posing) -> String {
    if at.is_layered() {
        return at.describe();
    }
    match (&asset.at, asset.frame) {
        (Some((clip, seconds)), _) => format!(" (clip {clip} at {seconds} s)"),
        (None, Some(f)) => format!(" (frame {f})"),
        (None, None) => " (bind pose)".to_string(),
    }
}

pub(crate) fn extension(path: &Path) -> String {
    path.extension()
        .and_then(|e| e.to_str())
        .unwrap_or_default()
        .to_ascii_lowercase()
}

/// An export error as printed: the file it concerns, and `hint` after an error for a model
/// without triangles.
fn failure(place: &Path, e: &skelmap_export::Error, hint: &str) -> String {
    match e {
        skelmap_export::Error::NoGeometry { .. } => format!("{}: {e}{hint}", place.display()),
        _ => format!("{}: {e}", place.display()),
    }
}

pub fn export(
    path: &Path,
    out: &Path,
    args: &ExportArgs,
    companions: &load::Companions,
) -> Result<ExitCode, String> {
    let to_stdout = out == Path::new("-");
    let kind = args.format.clone().unwrap_or_else(|| extension(out));
    if to_stdout && !matches!(kind.as_str(), "gltf" | "obj") {
        return Err(
            "-o - writes text to standard output: give --format gltf or --format obj (a .glb \
             is binary: write it to a file)"
                .to_string(),
        );
    }
    if !matches!(kind.as_str(), "glb" | "gltf" | "obj") {
        return Err(format!(
            "{}: the output must end in .glb, .gltf or .obj",
            out.display()
        ));
    }
    let model = load::open(path, companions)?;
    if to_stdout {
        return export_to_stdout(path, &model, &kind, args, companions);
    }
    let mut outputs = Outputs::new();
    outputs.read_model(path, companions, &model);
    outputs.claim(out)?;
    let bin = out.with_extension("bin");
    if kind == "gltf" {
        outputs.claim(&bin)?;
    }
    let mut asset = scene_of(
        path,
        &model,
        args.frame,
        &args.at,
        args.no_animations || kind == "obj",
    )?;
    if kind == "obj" && !asset.materials.is_empty() {
        outputs.claim(&out.with_extension("mtl"))?;
    }
    load::textures(path, &mut asset, companions, model.base(), &mut outputs)?;
    let options = gltf::Options {
        all_influences: args.all_influences,
        no_animations: args.no_animations,
    };
    let hint = load::empty_body_hint(&model);
    let fail = |e: skelmap_export::Error| failure(out, &e, &hint);
    let mut materials = None;
    match kind.as_str() {
        "glb" => {
            let mut bytes = Vec::new();
            gltf::write_glb(&asset, &options, &mut bytes).map_err(fail)?;
            outputs.write(out, &bytes)?;
        }
        "gltf" => {
            let uri = bin
                .file_name()
                .and_then(|n| n.to_str())
                .ok_or_else(|| format!("{}: the file name is not UTF-8", out.display()))?;
            let (json, data) = gltf::to_gltf(&asset, &options, uri).map_err(fail)?;
            outputs.write(out, &json)?;
            if !data.is_empty() {
                outputs.write(&bin, &data)?;
            }
        }
        _ => materials = write_obj(out, &asset, &mut outputs, &hint)?,
    }
    let joints = asset.skeleton.as_ref().map_or(0, |s| s.joints.len());
    let clips = if kind == "obj" { 0 } else { asset.clips.len() };
    say!(
        "wrote {}: {}, {}, {}, {}, {}{}",
        out.display(),
        count(asset.meshes.len() as u64, "mesh", "meshes"),
        count(asset.num_vertices() as u64, "vertex", "vertices"),
        count(asset.num_triangles() as u64, "triangle", "triangles"),
        count(joints as u64, "joint", "joints"),
        count(clips as u64, "animation", "animations"),
        posed(&asset, &args.at),
    );
    if let Some(line) = materials {
        say!("{line}");
    }
    if kind != "obj" {
        for note in gltf::influence_notes(&asset, &options) {
            say!("note: {note}");
        }
    }
    if let Some(note) = load::other_bodies(&model) {
        say!("note: {note}");
    }
    warn_replaced(&asset);
    Ok(ExitCode::SUCCESS)
}

/// `export -o -`: the glTF (its buffer in the JSON as a base64 `data:` URI) or the OBJ
/// (without materials, which would be files) on standard output; the line that says what was
/// written goes to standard error.
fn export_to_stdout(
    path: &Path,
    model: &Model<'_>,
    kind: &str,
    args: &ExportArgs,
    companions: &load::Companions,
) -> Result<ExitCode, String> {
    use std::io::Write;
    let mut asset = scene_of(
        path,
        model,
        args.frame,
        &args.at,
        args.no_animations || kind == "obj",
    )?;
    if kind == "gltf" {
        load::textures(
            path,
            &mut asset,
            companions,
            model.base(),
            &mut Outputs::new(),
        )?;
    }
    let hint = load::empty_body_hint(model);
    let fail = |e: skelmap_export::Error| failure(path, &e, &hint);
    let options = gltf::Options {
        all_influences: args.all_influences,
        no_animations: args.no_animations,
    };
    let text = if kind == "gltf" {
        // The buffer is known only once written: written once to learn it, then again with
        // it as the URI.
        let (_, data) = gltf::to_gltf(&asset, &options, "buffer.bin").map_err(fail)?;
        let uri = format!("data:application/octet-stream;base64,{}", base64(&data));
        gltf::to_gltf(&asset, &options, &uri).map_err(fail)?.0
    } else {
        let mut text = Vec::new();
        obj::write(&asset, &mut text).map_err(fail)?;
        text
    };
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(&text).and_then(|()| stdout.flush()) {
        // A closed pipe is the reader's choice (`| head`), not an error.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => return Ok(ExitCode::SUCCESS),
        Err(e) => return Err(format!("cannot write to standard output: {e}")),
        Ok(()) => {}
    }
    anstream::eprintln!(
        "wrote {} to standard output: {}, {}{}",
        kind,
        count(asset.num_vertices() as u64, "vertex", "vertices"),
        count(asset.num_triangles() as u64, "triangle", "triangles"),
        posed(&asset, &args.at)
    );
    if kind == "gltf" {
        for note in gltf::influence_notes(&asset, &options) {
            anstream::eprintln!("note: {note}");
        }
    }
    if let Some(note) = load::other_bodies(model) {
        anstream::eprintln!("note: {note}");
    }
    Ok(ExitCode::SUCCESS)
}

/// `bytes` in standard base64 with padding (RFC 4648 § 4).
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(char::from(ALPHABET[(n >> (18 - 6 * k)) as usize & 63]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Writes `asset` as the OBJ `out`, its materials as the `.mtl` beside it, and each decoded
/// image (a skin the model holds, or a texture file found for it) as
/// `<out stem>_<material>.png` beside them, one file per material that has an image (the
/// same bytes where materials share one). Every file is claimed before the first is
/// written (the `.mtl` by the caller, before the textures are looked up). Returns the line
/// that says where the materials went, if any.
/// `hint` follows an error for an asset without triangles ([`empty_body_hint`]).
fn write_obj(
    out: &Path,
    asset: &Asset,
    outputs: &mut Outputs,
    hint: &str,
) -> Result<Option<String>, String> {
    let fail = |e: skelmap_export::Error| failure(out, &e, hint);
    let mtl = out.with_extension("mtl");
    let stem = out
        .file_stem()
        .and_then(|s| s.to_str())
        .ok_or_else(|| format!("{}: the file name is not UTF-8", out.display()))?;
    let skins = skin_files(asset, stem);
    let textures: Vec<Option<String>> = skins
        .iter()
        .map(|skin| skin.as_ref().map(|(name, _)| name.clone()))
        .collect();
    // Per material with an image (not found beside the model or in a `--textures` folder:
    // warned then), its file and the image's index.
    let images: Vec<(PathBuf, usize)> = skins
        .into_iter()
        .flatten()
        .map(|(name, image)| (out.with_file_name(name), image))
        .collect();
    for (image_path, _) in &images {
        outputs.claim(image_path)?;
    }
    let mtllib = mtl
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| format!("{}: the file name is not UTF-8", out.display()))?;
    let materials = obj::Materials {
        mtllib,
        textures: &textures,
    };
    let mut text = Vec::new();
    let with = (!asset.materials.is_empty()).then_some(&materials);
    obj::write_with(asset, with, &mut text).map_err(fail)?;
    outputs.write(out, &text)?;
    if with.is_some() {
        let mut text = Vec::new();
        obj::write_mtl(asset, &textures, &mut text).map_err(fail)?;
        outputs.write(&mtl, &text)?;
    }
    let pngs = encode_skins(asset, images.iter().map(|&(_, image)| image)).map_err(fail)?;
    for (image_path, image) in &images {
        if let Some(png) = pngs.get(image) {
            outputs.write(image_path, png)?;
        }
    }
    Ok(with.map(|_| {
        format!(
            "  materials in {}; {} beside it",
            mtl.display(),
            count(images.len() as u64, "skin written", "skins written")
        )
    }))
}

/// Per material of `asset`, the PNG file its image is written to beside an OBJ whose stem is
/// `stem` (`<stem>_<material>.png`) and the image's index in [`Asset::images`]; `None` for a
/// material without an image.
fn skin_files(asset: &Asset, stem: &str) -> Vec<Option<(String, usize)>> {
    asset
        .materials
        .iter()
        .enumerate()
        .map(|(i, material)| {
            let image = material.image.filter(|&k| k < asset.images.len())?;
            Some((format!("{stem}_{i}.png"), image))
        })
        .collect()
}

/// Each of `images` (indices into [`Asset::images`], repeated where materials share an
/// image) encoded as PNG, once per distinct image, by index.
fn encode_skins(
    asset: &Asset,
    images: impl IntoIterator<Item = usize>,
) -> Result<HashMap<usize, Vec<u8>>, skelmap_export::Error> {
    let mut pngs = HashMap::new();
    for k in images {
        if pngs.contains_key(&k) {
            continue;
        }
        if let Some(image) = asset.images.get(k) {
            let png = render::encode_png(image.width, image.height, &image.rgba)?;
            pngs.insert(k, png);
        }
    }
    Ok(pngs)
}

/// Says so when the file's NaN or infinite numbers had to be replaced.
pub(crate) fn warn_replaced(asset: &Asset) {
    if asset.replaced_non_finite > 0 {
        use owo_colors::OwoColorize;
        anstream::eprintln!(
            "{} {} NaN or infinite numbers (from huge or broken values in the file) were \
             replaced by 0 or the identity",
            "warning:".yellow().bold(),
            asset.replaced_non_finite
        );
    }
}

/// `render`'s switches.
pub struct RenderArgs {
    pub frame: Option<usize>,
    /// `--clip`, `--time`, `--blend`, `--additive`.
    pub at: Posing,
    pub sheet: bool,
    /// The clips a sheet shows (all, when empty).
    pub clips: Vec<String>,
    pub size: u32,
    pub view: render::View,
}

/// A colour given as hexadecimal `RRGGBB` (a leading `#` allowed), opaque.
pub fn parse_colour(text: &str) -> Result<[u8; 4], String> {
    let hex = text.strip_prefix('#').unwrap_or(text);
    let value = (hex.len() == 6)
        .then(|| u32::from_str_radix(hex, 16).ok())
        .flatten()
        .ok_or_else(|| format!("{text:?} is not a colour: give six hexadecimal digits, RRGGBB"))?;
    let [_, r, g, b] = value.to_be_bytes();
    Ok([r, g, b, 255])
}

pub fn render(
    path: &Path,
    out: &Path,
    args: &RenderArgs,
    companions: &load::Companions,
) -> Result<ExitCode, String> {
    let RenderArgs {
        frame,
        ref at,
        sheet,
        ref clips,
        size,
        ref view,
    } = *args;
    if extension(out) != "png" {
        return Err(format!(
            "{}: render writes PNG images; the output must end in .png",
            out.display()
        ));
    }
    let model = load::open(path, companions)?;
    let hint = load::empty_body_hint(&model);
    let fail = |e: skelmap_export::Error| failure(out, &e, &hint);
    let mut outputs = Outputs::new();
    outputs.read_model(path, companions, &model);
    outputs.claim(out)?;
    let (image, cells) = if sheet {
        let (frames, dropped) = sheet_frames(path, &model, clips)?;
        if dropped > 0 {
            use owo_colors::OwoColorize;
            anstream::eprintln!(
                "{} the sheet shows the first {SHEET_CELLS} of {} frame groups; {dropped} left \
                 out",
                "note:".cyan().bold(),
                SHEET_CELLS + dropped
            );
        }
        let mut assets = frames
            .iter()
            .map(|(_, f)| scene_of(path, &model, Some(*f), &Posing::default(), true))
            .collect::<Result<Vec<_>, _>>()?;
        // Looked up once: every cell is the same model.
        if let Some((first, rest)) = assets.split_first_mut() {
            load::textures(path, first, companions, model.base(), &mut outputs)?;
            for other in rest {
                other.materials.clone_from(&first.materials);
                other.images.clone_from(&first.images);
            }
        }
        let columns = (assets.len() as f64).sqrt().ceil() as u32;
        let mut image =
            render::contact_sheet_with(&assets, columns, size, size, view).map_err(fail)?;
        let labels: Vec<String> = frames.iter().map(|(label, _)| label.clone()).collect();
        render::label_cells(&mut image, &labels, columns, [size, size], view.background);
        (image, frames)
    } else {
        let mut asset = scene_of(path, &model, frame, at, true)?;
        load::textures(path, &mut asset, companions, model.base(), &mut outputs)?;
        warn_replaced(&asset);
        (
            render::render_with(&asset, size, size, view).map_err(fail)?,
            Vec::new(),
        )
    };
    let png = render::encode_png(image.width, image.height, &image.rgba).map_err(fail)?;
    outputs.write(out, &png)?;
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

/// The contact sheet's cells and how many groups did not fit: the middle frame of each group
/// (clips usually start in the idle pose, so their first frames look alike), or, with a
/// single group, up to [`SHEET_CELLS`] frames spread evenly over the model's frames. `chosen`
/// names the clips to show, in order (all when empty); a name the model lacks is an error
/// that lists its clips.
fn sheet_frames(
    path: &Path,
    model: &Model<'_>,
    chosen: &[String],
) -> Result<(Vec<(String, usize)>, usize), String> {
    let all = model.clips();
    if !chosen.is_empty() {
        let mut picked = Vec::with_capacity(chosen.len());
        for name in chosen {
            match all.iter().find(|c| &c.name == name) {
                Some(c) => picked.push(c.clone()),
                None => return Err(no_clip(path, all, name)),
            }
        }
        let cells = picked.iter().take(SHEET_CELLS).map(middle).collect();
        return Ok((cells, picked.len().saturating_sub(SHEET_CELLS)));
    }
    let groups = all;
    if groups.len() > 1 {
        let cells = groups.iter().take(SHEET_CELLS).map(middle).collect();
        return Ok((cells, groups.len().saturating_sub(SHEET_CELLS)));
    }
    let n = model.num_frames().max(1);
    let cells = n.min(SHEET_CELLS);
    let frames = (0..cells)
        .map(|k| {
            let f = k * n / cells;
            (format!("frame {f}"), f)
        })
        .collect();
    Ok((frames, 0))
}

/// A clip's cell: its middle frame, labelled with the clip's name, the frame and the seconds
/// into the clip.
fn middle(clip: &skelmap_core::pose::framegroups::FrameGroup) -> (String, usize) {
    let frame = clip.first + clip.count / 2;
    let seconds = f64::from(clip.count / 2) / f64::from(clip.fps);
    (
        format!("{} f{frame} {seconds:.2}s", clip.name),
        frame as usize,
    )
}

/// The error for a clip `name` that `path`'s model lacks, listing the clips it has.
pub(crate) fn no_clip(
    path: &Path,
    clips: &[skelmap_core::pose::framegroups::FrameGroup],
    name: &str,
) -> String {
    if clips.is_empty() {
        return format!("{}: has no clips", path.display());
    }
    let names: Vec<&str> = clips.iter().map(|c| c.name.as_str()).collect();
    format!(
        "{}: no clip named {name:?}; its clips are {}",
        path.display(),
        names.join(", ")
    )
}

/// Runs `job(model, output)` for every model file under `dir` (found as `validate` finds
/// them), in parallel, each output `out_dir/<the model's path under dir>.<extension>`, so that
/// `a.mdl` and `a.dpm` do not meet. Each file's lines are left out; a progress bar (on a
/// terminal) and a summary replace them, with one line per file that failed.
pub fn batch(
    dir: &Path,
    out_dir: &Path,
    extension: &str,
    job: impl Fn(&Path, &Path) -> Result<ExitCode, String> + Sync,
) -> Result<ExitCode, String> {
    use indicatif::{ParallelProgressIterator, ProgressBar, ProgressDrawTarget, ProgressStyle};
    use owo_colors::OwoColorize;
    use rayon::prelude::*;
    use std::io::IsTerminal;

    if out_dir.is_file() {
        return Err(format!(
            "{}: a directory of models is written to a directory, and this is a file",
            out_dir.display()
        ));
    }
    let mut files = Vec::new();
    crate::validate::walk(dir, 0, &mut files)?;
    if files.is_empty() {
        return Err(format!(
            "no model files found under {} (looked for {})",
            dir.display(),
            crate::validate::extensions_text()
        ));
    }
    // A Half-Life sequence group goes with its model, when the walk found that: no job of its
    // own.
    let found: std::collections::HashSet<&PathBuf> = files.iter().collect();
    let groups: std::collections::HashSet<PathBuf> = files
        .iter()
        .filter(|path| {
            crate::load::sequence_group(path).is_some_and(|(model, _)| found.contains(&model))
        })
        .cloned()
        .collect();
    files.retain(|path| !groups.contains(path));
    let grouped = groups.len();
    let bar = ProgressBar::new(files.len() as u64);
    if !std::io::stderr().is_terminal() {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    } else if let Ok(style) =
        ProgressStyle::with_template("{bar:40.cyan/blue} {pos}/{len} files {elapsed} {msg}")
    {
        bar.set_style(style);
    }
    let results: Vec<Result<(), String>> = files
        .par_iter()
        .progress_with(bar.clone())
        .map(|path| {
            let relative = path.strip_prefix(dir).unwrap_or(path);
            let mut name = relative.as_os_str().to_owned();
            name.push(".");
            name.push(extension);
            let out = out_dir.join(name);
            crate::quietly(|| job(path, &out)).map(|_| ())
        })
        .collect();
    bar.finish_and_clear();
    let failed: Vec<&String> = results.iter().filter_map(|r| r.as_ref().err()).collect();
    for message in &failed {
        anstream::eprintln!("{} {message}", "error:".red().bold());
    }
    say!(
        "wrote {} of {} to {}{}{}",
        files.len() - failed.len(),
        count(files.len() as u64, "file", "files"),
        out_dir.display(),
        if failed.is_empty() {
            String::new()
        } else {
            format!("; {} failed", failed.len())
        },
        match grouped {
            0 => String::new(),
            n => format!(
                " ({} read with {})",
                count(n as u64, "sequence-group file", "sequence-group files"),
                if n == 1 { "its model" } else { "their models" }
            ),
        }
    );
    Ok(if failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_is_rfc_4648() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
        assert_eq!(base64(&[0xff, 0xfe, 0xfd, 0x00]), "//79AA==");
    }

    /// An asset whose materials point at `images` (an index each, `None` for no image) of
    /// `count` distinct 256 × 256 images, each filled with its index.
    fn asset_with(images: &[Option<usize>], count: usize) -> Asset {
        Asset {
            format: "test",
            up: asset::UpAxis::Y,
            front: [0.0, 0.0, 1.0],
            meshes: Vec::new(),
            materials: images
                .iter()
                .map(|&image| asset::Material {
                    image,
                    ..asset::Material::default()
                })
                .collect(),
            images: (0..count)
                .map(|k| asset::Image {
                    width: 256,
                    height: 256,
                    rgba: (0..256 * 256 * 4).map(|p| (p * 7 + k) as u8).collect(),
                    jpeg: None,
                })
                .collect(),
            skeleton: None,
            clips: Vec::new(),
            tags: Vec::new(),
            frame: None,
            at: None,
            given_pose: false,
            replaced_non_finite: 0,
            code_page: Default::default(),
        }
    }

    /// 2,000 materials sharing two images: still one file per material with an image, named
    /// by the material, but each image is encoded once and its bytes written to each of its
    /// files.
    #[test]
    fn skins_shared_by_materials_are_encoded_once() {
        let images: Vec<Option<usize>> = (0..2000).map(|i| (i % 5 != 4).then_some(i % 2)).collect();
        let asset = asset_with(&images, 2);
        let files = skin_files(&asset, "out");
        assert_eq!(files.len(), 2000);
        assert_eq!(files[0], Some(("out_0.png".to_string(), 0)));
        assert_eq!(files[3], Some(("out_3.png".to_string(), 1)));
        assert_eq!(files[4], None);
        let pngs = encode_skins(&asset, files.iter().flatten().map(|&(_, k)| k)).unwrap();
        assert_eq!(pngs.len(), 2);
        for (k, image) in asset.images.iter().enumerate() {
            let png = render::encode_png(image.width, image.height, &image.rgba).unwrap();
            assert_eq!(pngs[&k], png);
        }
        // An index past the images (not an asset the readers make) has no file.
        let asset = asset_with(&[Some(0), Some(3)], 1);
        assert_eq!(
            skin_files(&asset, "x"),
            [Some(("x_0.png".to_string(), 0)), None]
        );
    }
}
