//! `skelmap convert` and `skelmap optimize`: any model in, through an [`Asset`], out in the
//! format the output's extension names; every conversion measured by reading back what was
//! written.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use skelmap_core::asset::{Asset, ClipKeys, Place, WriteOptions};
use skelmap_core::model::convert::{self as conv, AttachmentError, Posed, SkinningError};
use skelmap_core::name::CodePage;
use skelmap_core::{Format, Limits, Model, model, skm};
use skelmap_export::gltf;

use crate::load::{self, Companions};
use crate::output::Outputs;

/// The switches `convert` and `optimize` share.
#[derive(Debug, Clone, Default, Args)]
pub struct Switches {
    /// Which format an output whose extension several formats share is, by the name of its
    /// page in docs/formats (for `.mdl`: quake, mdl, slmdl or mdl7).
    #[arg(long, value_name = "FORMAT")]
    pub to: Option<String>,
    /// Resample the clips at this many frames a second (a glTF's animations are sampled at
    /// it; default: a clip's own keys).
    #[arg(long, value_name = "FPS")]
    pub fps: Option<f32>,
    /// Keep only this clip (repeatable); the others are left out.
    #[arg(long = "clip", value_name = "NAME")]
    pub clips: Vec<String>,
    /// Leave the animation out: the model in its bind pose only.
    #[arg(long)]
    pub no_animations: bool,
    /// Store a skeletal model's frames as vertex frames (for Quake MDL, MDL5, MD3, MD2 and MDC,
    /// which have no joints): every frame's skinned vertices.
    #[arg(long)]
    pub bake: bool,
    /// Optimise before writing (as `skelmap optimize` does).
    #[arg(long)]
    pub optimize: bool,
    /// With optimisation, keep this bone though no vertex uses it (repeatable; bones named
    /// `tag_…` and bones flagged as attachments are always kept).
    #[arg(long, value_name = "BONE")]
    pub keep: Vec<String>,
    /// Store the names in this code page: utf-8, or gbk (Chinese Windows). Default: the one
    /// the input's names are in (`info` says it), so that they keep their bytes.
    #[arg(long, value_name = "CODE_PAGE", value_parser = ["utf-8", "gbk"])]
    pub names: Option<String>,
}

/// The output: a format skelmap-core writes (by the output's extension, and `--to` where
/// several formats share it), or glTF. Not a list of formats: every table format is the one
/// variant `Format`, so a new format edits nothing here; the two glTF containers are the
/// exporter's, which the format table does not hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target {
    Format(Format),
    Glb,
    Gltf,
}

impl Target {
    fn of(output: &Path, to: Option<&str>) -> Result<Target, String> {
        let extension = output
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        let extension = match extension.as_deref() {
            Some("glb") => return Ok(Target::Glb),
            Some("gltf") => return Ok(Target::Gltf),
            // A stem, or the SKP of the pair: an SKM and its SKP.
            None | Some("skp") => return Ok(Target::Format(Format::Skm)),
            Some(extension) => extension,
        };
        // A format is written under its usual extension (an MD5's `.md5anim` files are
        // written beside its `.md5mesh`, not chosen by name).
        let formats: Vec<Format> = writable().filter(|f| f.extension() == extension).collect();
        let chosen = to.map(|to| {
            formats
                .iter()
                .copied()
                .find(|f| f.docs_page().eq_ignore_ascii_case(to))
        });
        match (formats.as_slice(), chosen) {
            ([one], _) => Ok(Target::Format(*one)),
            ([], _) => Err(format!(
                "{}: skelmap does not write .{extension} files; it writes {}{}",
                output.display(),
                outputs_list(),
                if extension == "obj" {
                    " (`skelmap export MODEL -o OUT.obj` writes one frame as OBJ)"
                } else {
                    ""
                }
            )),
            (_, Some(Some(format))) => Ok(Target::Format(format)),
            (several, _) => Err(format!(
                "{}: {} formats end in .{extension}; say which with {}",
                output.display(),
                match several.len() {
                    2 => "two".to_string(),
                    3 => "three".to_string(),
                    4 => "four".to_string(),
                    5 => "five".to_string(),
                    n => n.to_string(),
                },
                either(
                    several
                        .iter()
                        .map(|f| format!("--to {}", f.docs_page()))
                        .collect()
                )
            )),
        }
    }
}

/// The formats skelmap-core writes, in the format table's order.
fn writable() -> impl Iterator<Item = Format> + Clone {
    Format::ALL.iter().copied().filter(|f| f.writable())
}

/// Every output `convert` writes, by extension, in the format table's order and then glTF:
/// `.dpm, …, .mdl (--to mdl7, mdl, slmdl, quake or hl1), …, .glb and .gltf`. Made from the
/// table, so a format that gains a writer is listed here and in `convert --help`.
fn outputs_list() -> String {
    let mut written: Vec<String> = writable_extensions()
        .map(|e| {
            if writable().filter(|f| f.extension() == e).count() > 1 {
                format!(".{e} ({})", to_choices(e))
            } else {
                format!(".{e}")
            }
        })
        .collect();
    written.push(".glb".to_string());
    format!("{} and .gltf", written.join(", "))
}

/// What `skelmap convert --help` (and the manual page) says: the outputs from the format
/// table ([`outputs_list`]), then what every conversion checks, measures and never does.
pub fn long_about() -> String {
    format!(
        "Convert a model to another format, chosen by the output's extension.\n\n\
         Outputs: {}. A format's other files are written beside the output and named after \
         it: an SKM's SKP (from one stem: an output without an extension, or named .skp, \
         writes both; a third argument names the SKP), a DPM's and an MDR's .framegroups, an \
         SL mdl's .anim, an MD5 mesh's .md5anim (one a clip), a PSK's .psa, an MDM's .mdx and \
         .aninc. The input is any model skelmap reads, or a glTF 2.0 file (.gltf with its \
         buffers and images, or .glb): skins with every influence, animations sampled at \
         --fps (default: each clip's own keys), morph targets, base-colour textures.\n\n\
         Every format's limits (joints, vertices, influences, name lengths) are checked \
         before anything is written; what does not fit is refused with what to do about it. \
         What a format cannot keep is said in a note (influences past four, scale, clip \
         names). A skeletal model becomes a vertex-animated one (Quake MDL, MDL5, MD3, MD2, \
         MDC) only with --bake. Every conversion is measured: the output is read back and \
         every frame compared with the source, as sets of points, and the largest and RMS \
         distance printed relative to the model's size and in its units. A DPM becomes an \
         SKM exactly.\n\n\
         No output may be the input, a file it was opened with, or another output. Each is \
         written to a temporary file beside it and renamed into place, so an interrupted run \
         leaves no half-written file; folders are created.",
        outputs_list()
    )
}

/// The usual extensions of the formats skelmap-core writes, each once.
fn writable_extensions() -> impl Iterator<Item = &'static str> {
    let mut seen = Vec::new();
    writable().map(Format::extension).filter(move |e| {
        let new = !seen.contains(e);
        seen.push(*e);
        new
    })
}

/// `--to quake, mdl, slmdl or mdl7`: the writable formats ending in `.extension`, by their
/// page in `docs/formats/`.
fn to_choices(extension: &str) -> String {
    let names = writable()
        .filter(|f| f.extension() == extension)
        .map(|f| f.docs_page().to_string())
        .collect();
    format!("--to {}", either(names))
}

/// `a, b or c`.
fn either(mut items: Vec<String>) -> String {
    match items.pop() {
        Some(last) if !items.is_empty() => format!("{} or {last}", items.join(", ")),
        Some(last) => last,
        None => String::new(),
    }
}

/// `skelmap convert`.
pub fn convert(
    input: &Path,
    output: &Path,
    skp: Option<&Path>,
    switches: &Switches,
    companions: &Companions,
) -> Result<ExitCode, String> {
    let target = Target::of(output, switches.to.as_deref())?;
    let mut outputs = Outputs::new();
    let fail = |e: &dyn std::fmt::Display| format!("{}: {e}", input.display());
    if is_gltf(input) {
        outputs.read(input, "the model");
        // The buffer a `.gltf` most often names, when it is there; the other files a `.gltf`
        // names are not known here.
        let bin = input.with_extension("bin");
        let text = input
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("gltf"));
        if text && bin.is_file() {
            outputs.read(&bin, "the model's buffer");
        }
        let options = skelmap_author::gltf::Options {
            fps: switches.fps,
            no_animations: switches.no_animations,
        };
        let mut asset = skelmap_author::gltf::import(input, &options).map_err(|e| fail(&e))?;
        // An image file the glTF names but that is not there: the material keeps its name.
        for m in asset.materials.iter().filter(|m| m.image.is_none()) {
            if let Some(uri) = &m.external {
                say!(
                    "warning: {}: material '{}' names the image '{uri}', which is not there: \
                     the output names it without its pixels",
                    input.display(),
                    m.name
                );
            }
        }
        let resampled = Switches {
            fps: None,
            ..switches.clone()
        };
        select(&mut asset, &resampled).map_err(|e| fail(&e))?;
        let selected = asset.clone();
        if switches.optimize {
            optimise(&mut asset, switches);
        }
        write(
            &asset,
            Posed::Asset(&selected),
            target,
            output,
            skp,
            switches,
            &mut outputs,
        )?;
        return Ok(ExitCode::SUCCESS);
    }
    let (mut asset, model) = read(input, companions, &mut outputs)?;
    // The formats that carry images get the textures the model names; the others store the
    // names themselves.
    if match target {
        Target::Glb | Target::Gltf => true,
        Target::Format(format) => model::stores_images(format),
    } {
        load::textures(input, &mut asset, companions, model.base(), &mut outputs)?;
    }
    let untouched = switches.clips.is_empty()
        && switches.fps.is_none()
        && !switches.no_animations
        && !switches.optimize
        && switches.names.is_none();
    if let (Target::Format(Format::Skm), Some(dpm), true) = (target, model.as_dpm(), untouched) {
        return dpm_to_skm(dpm, output, skp, &mut outputs);
    }
    select(&mut asset, switches).map_err(|e| fail(&e))?;
    let selected = asset.clone();
    // Measured against what the engine draws of the input, unless clips were chosen or
    // resampled: then against the asset as chosen.
    let source = if selected.num_frames() == model.num_frames() && switches.fps.is_none() {
        Posed::Model(&model)
    } else {
        Posed::Asset(&selected)
    };
    if switches.optimize {
        optimise(&mut asset, switches);
    }
    write(&asset, source, target, output, skp, switches, &mut outputs)?;
    Ok(ExitCode::SUCCESS)
}

/// `skelmap optimize`: `convert --optimize`.
pub fn optimize(
    input: &Path,
    output: &Path,
    switches: &Switches,
    companions: &Companions,
) -> Result<ExitCode, String> {
    let switches = Switches {
        optimize: true,
        ..switches.clone()
    };
    let before = std::fs::metadata(input).map_or(0, |m| m.len());
    let code = convert(input, output, None, &switches, companions)?;
    let after = std::fs::metadata(output).map_or(0, |m| m.len());
    say!("bytes: {before} → {after}");
    Ok(code)
}

/// Whether `path` names a glTF file (`.gltf` or `.glb`).
fn is_gltf(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("gltf") || e.eq_ignore_ascii_case("glb"))
}

/// The model at `input`, and as an asset.
fn read(
    input: &Path,
    companions: &Companions,
    outputs: &mut Outputs,
) -> Result<(Asset, Model<'static>), String> {
    let fail = |e: &dyn std::fmt::Display| format!("{}: {e}", input.display());
    let model = load::open(input, companions)?;
    outputs.read_model(input, companions, &model);
    if let Some(note) = load::other_bodies(&model) {
        say!("note: {note}");
    }
    // Tags alone (an MD3 attachment rig) are a model an MD3 holds.
    if model.num_meshes() == 0 && model.num_tags() == 0 {
        // A Half-Life body that shows an empty model: the `--body` that shows a mesh.
        let hint = load::empty_body_hint(&model);
        let what = if hint.is_empty() {
            " (an animation or a skeleton on its own)"
        } else {
            ""
        };
        return Err(format!(
            "{}: the {} has no mesh to convert{what}{hint}",
            input.display(),
            model.format()
        ));
    }
    let options = skelmap_core::asset::Options {
        dds: Some(skelmap_author::texture::decode_dds),
        ..Default::default()
    };
    let asset = conv::asset_of_with(&model, options).map_err(|e| fail(&e))?;
    Ok((asset, model))
}

/// A DPM as an SKM and SKP, exactly: the same pre-weighted records, every matrix as a
/// quaternion and an origin ([`skm::convert::from_dpm`]).
fn dpm_to_skm(
    dpm: &skelmap_core::dpm::Dpm<'_>,
    output: &Path,
    skp: Option<&Path>,
    outputs: &mut Outputs,
) -> Result<ExitCode, String> {
    let bad = |e: &dyn std::fmt::Display| format!("{}: {e}", output.display());
    let (skm_path, skp_path) = skm_outputs(output, skp)?;
    outputs.claim(&skm_path)?;
    outputs.claim(&skp_path)?;
    let mut diag = skelmap_core::Diagnostics::new();
    let converted = skm::convert::from_dpm(dpm, &mut diag);
    let files = [
        (skm_path, converted.skm.write().map_err(|e| bad(&e))?),
        (skp_path, converted.skp.write().map_err(|e| bad(&e))?),
    ];
    for (path, bytes) in &files {
        outputs.write(path, bytes)?;
        say!("wrote {} ({} bytes)", path.display(), bytes.len());
    }
    for w in diag.warnings() {
        say!("warning: {w}");
    }
    Ok(ExitCode::SUCCESS)
}

/// Applies `--clip`, `--no-animations`, `--fps` and `--names` to `asset`.
fn select(asset: &mut Asset, switches: &Switches) -> Result<(), String> {
    match switches.names.as_deref() {
        Some("gbk") => asset.code_page = CodePage::Gbk,
        Some(_) => asset.code_page = CodePage::Utf8,
        None => {}
    }
    if switches.no_animations {
        asset.clips.clear();
        for mesh in &mut asset.meshes {
            mesh.targets.clear();
        }
    }
    if !switches.clips.is_empty() {
        let present: HashSet<&str> = asset.clips.iter().map(|c| c.name.as_str()).collect();
        if let Some(missing) = switches
            .clips
            .iter()
            .find(|name| !present.contains(name.as_str()))
        {
            let names: Vec<&str> = asset.clips.iter().map(|c| c.name.as_str()).collect();
            return Err(format!(
                "no clip is named '{missing}'; the clips are: {}",
                names.join(", ")
            ));
        }
        let chosen: HashSet<&str> = switches.clips.iter().map(String::as_str).collect();
        asset.retain_clips(|c| chosen.contains(c.name.as_str()));
    }
    if let Some(fps) = switches.fps {
        if !(fps.is_finite() && fps > 0.0) {
            return Err(format!("--fps {fps}: the rate must be a positive number"));
        }
        for clip in &mut asset.clips {
            if matches!(clip.keys, ClipKeys::Morph(_)) {
                return Err(
                    "--fps resamples joint animation; vertex animation keeps its \
                            frames"
                        .into(),
                );
            }
            clip.resample(fps);
        }
        asset.retain_clips(|_| true);
    }
    Ok(())
}

/// Optimises `asset` and prints the report.
fn optimise(asset: &mut Asset, switches: &Switches) {
    let options = skelmap_author::optimize::Options {
        keep: switches.keep.clone(),
        ..skelmap_author::optimize::Options::default()
    };
    let report = skelmap_author::optimize::optimize(asset, &options);
    say!("{}", report.to_string().trim_end());
}

/// Files to write: each path and its bytes, the main one first.
type Files = Vec<(PathBuf, Vec<u8>)>;

/// Writes `asset` as `target` and measures what was written against `source`.
#[allow(clippy::too_many_arguments)]
fn write(
    asset: &Asset,
    source: Posed<'_, '_>,
    target: Target,
    output: &Path,
    skp: Option<&Path>,
    switches: &Switches,
    outputs: &mut Outputs,
) -> Result<(), String> {
    let Target::Format(format) = target else {
        return write_gltf(asset, source, target, output, outputs);
    };
    let bad = |e: &dyn std::fmt::Display| format!("{}: {e}", output.display());
    let written =
        model::write(format, asset, &WriteOptions::bake(switches.bake)).map_err(|e| bad(&e))?;
    // An SKM is written under the output's stem, its SKP beside it or where `--skp` says.
    let (main, skp_path) = if format == Format::Skm {
        let (skm_path, skp_path) = skm_outputs(output, skp)?;
        (skm_path, Some(skp_path))
    } else {
        (output.to_path_buf(), None)
    };
    let files: Files = written
        .files
        .into_iter()
        .map(|file| match (file.place, &skp_path) {
            (Place::Extension("skp"), Some(path)) => (path.clone(), file.bytes),
            (place, _) => (place.path(&main), file.bytes),
        })
        .collect();
    let (losses, offset) = (written.notes, written.first_frame);
    for (path, _) in &files {
        outputs.claim(path)?;
    }
    let (error, attachments) = measure(&files, source, offset)?;
    for (path, bytes) in &files {
        outputs.write(path, bytes)?;
        say!("wrote {} ({} bytes)", path.display(), bytes.len());
    }
    say!("conversion error: {error}");
    if let Some(attachments) = attachments {
        say!("attachment points: {attachments}");
    }
    for loss in losses {
        say!("note: {loss}");
    }
    Ok(())
}

/// Opens what is about to be written and compares every frame with `source`, as an engine
/// draws both; and, for a model source with attachment points, where they are.
fn measure(
    files: &[(PathBuf, Vec<u8>)],
    source: Posed<'_, '_>,
    offset: usize,
) -> Result<(SkinningError, Option<AttachmentError>), String> {
    let first = files
        .first()
        .map(|f| f.0.display().to_string())
        .unwrap_or_default();
    let reopen = |e: &dyn std::fmt::Display| {
        format!("{first}: the file written does not read back ({e}); please report this")
    };
    // The files under one stem, as the resolver finds companions: `model.skm` and
    // `model.skp`, `model.mdl` and `model.anim`, `model.dpm` and `model.dpm.framegroups`,
    // `model.md5mesh` and `model-walk.md5anim`.
    let extension = |p: &Path| p.extension().map(|e| e.to_string_lossy().into_owned());
    let main = format!(
        "model.{}",
        files
            .first()
            .and_then(|f| extension(&f.0))
            .unwrap_or_default()
    );
    let first_name = files
        .first()
        .and_then(|f| f.0.file_name())
        .map(|n| n.to_string_lossy().into_owned());
    let first_stem = files
        .first()
        .and_then(|f| f.0.file_stem())
        .map(|n| n.to_string_lossy().into_owned());
    let table: HashMap<String, Vec<u8>> = files
        .iter()
        .enumerate()
        .map(|(k, (path, bytes))| {
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let renamed = match (&first_name, k) {
                (_, 0) => main.clone(),
                (Some(first), _) if name.starts_with(first.as_str()) => {
                    format!("{main}{}", &name[first.len()..])
                }
                _ => match &first_stem {
                    Some(stem) if name.starts_with(stem.as_str()) => {
                        format!("model{}", &name[stem.len()..])
                    }
                    _ => format!("model.{}", extension(path).unwrap_or_default()),
                },
            };
            (renamed, bytes.clone())
        })
        .collect();
    let model = Model::resolve(&&table, &main, &Limits::default()).map_err(|e| reopen(&e))?;
    // Compared clip by clip where the clips are found again by name, so that a format that
    // reads them back in another order (MD5: the animations beside the mesh, in name order)
    // is measured against the same frames: the vertices and the attachment points.
    let map = conv::frames_by_clip(source, &model);
    let frame = |f: usize| match &map {
        Some(map) => map.get(f).copied().unwrap_or(f),
        None => f + offset,
    };
    let attachments = match source {
        Posed::Model(input) => conv::attachment_error_with(input, &model, frame),
        Posed::Asset(_) => None,
    };
    let error = conv::skinning_error_with(source, Posed::Model(&model), frame);
    Ok((error, attachments))
}

/// Writes `asset` as glTF (`.glb`, or `.gltf` with its `.bin` beside it), measured as the
/// other outputs are: the same document as a GLB, read back by skelmap's glTF importer.
fn write_gltf(
    asset: &Asset,
    source: Posed<'_, '_>,
    target: Target,
    output: &Path,
    outputs: &mut Outputs,
) -> Result<(), String> {
    let bad = |e: &dyn std::fmt::Display| format!("{}: {e}", output.display());
    let options = gltf::Options {
        all_influences: true,
        ..gltf::Options::default()
    };
    let mut glb = Vec::new();
    gltf::write_glb(asset, &options, &mut glb).map_err(|e| bad(&e))?;
    let back = skelmap_author::gltf::from_slice(&glb, None, &Default::default()).map_err(|e| {
        bad(&format!(
            "the file written does not read back ({e}); please report this"
        ))
    })?;
    let error = conv::skinning_error(source, Posed::Asset(&back), 0);
    let files = if target == Target::Glb {
        vec![(output.to_path_buf(), glb)]
    } else {
        let bin = output.with_extension("bin");
        let uri = bin
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("model.bin");
        let (json, data) = gltf::to_gltf(asset, &options, uri).map_err(|e| bad(&e))?;
        vec![(output.to_path_buf(), json), (bin, data)]
    };
    for (path, _) in &files {
        outputs.claim(path)?;
    }
    for (path, bytes) in &files {
        outputs.write(path, bytes)?;
        say!("wrote {} ({} bytes)", path.display(), bytes.len());
    }
    say!("conversion error: {error}");
    Ok(())
}

/// The SKM and SKP `convert` writes: both from `output`'s stem (`x`, `x.skm` or `x.skp` give
/// `x.skm` and `x.skp`), or the SKP named by `skp`.
fn skm_outputs(output: &Path, skp: Option<&Path>) -> Result<(PathBuf, PathBuf), String> {
    let skm_path = output.with_extension("skm");
    let skp_path = match skp {
        Some(path)
            if path
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("skp")) =>
        {
            path.to_path_buf()
        }
        Some(path) => {
            return Err(format!(
                "{}: the SKP output must end in .skp",
                path.display()
            ));
        }
        None => skm_path.with_extension("skp"),
    };
    Ok((skm_path, skp_path))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The synthetic tube as an asset, its first clip repeated as `clip0`, `clip1`, ….
    fn asset_with_clips(n: usize) -> Asset {
        use skelmap_core::synth::{TubeParams, tube};
        let bytes = tube(&TubeParams::default()).write().unwrap();
        let mut asset = Model::from_bytes(&bytes)
            .unwrap()
            .to_asset(&skelmap_core::asset::Options::default())
            .unwrap();
        let clip = asset.clips[0].clone();
        asset.clips = (0..n)
            .map(|i| skelmap_core::asset::Clip {
                name: format!("clip{i}"),
                ..clip.clone()
            })
            .collect();
        asset
    }

    /// Thousands of clips and of `--clip`s: the clips named are kept, in the asset's order
    /// and renumbered; a name that is no clip's is refused, naming every clip.
    #[test]
    fn clips_are_chosen_by_name_among_thousands() {
        let n = 3_000;
        let mut asset = asset_with_clips(n);
        let frames = asset.clips[0].len();
        let switches = Switches {
            clips: (0..n)
                .rev()
                .step_by(2)
                .map(|i| format!("clip{i}"))
                .collect(),
            ..Switches::default()
        };
        select(&mut asset, &switches).unwrap();
        let names: Vec<&str> = asset.clips.iter().map(|c| c.name.as_str()).collect();
        let expected: Vec<String> = (1..n).step_by(2).map(|i| format!("clip{i}")).collect();
        assert_eq!(names, expected);
        assert!(
            asset
                .clips
                .iter()
                .enumerate()
                .all(|(k, c)| c.first as usize == k * frames)
        );

        let mut asset = asset_with_clips(n);
        let switches = Switches {
            clips: vec!["clip7".into(), "clip3000".into(), "clip8".into()],
            ..Switches::default()
        };
        let names: Vec<String> = (0..n).map(|i| format!("clip{i}")).collect();
        assert_eq!(
            select(&mut asset, &switches),
            Err(format!(
                "no clip is named 'clip3000'; the clips are: {}",
                names.join(", ")
            ))
        );
        assert_eq!(asset.clips.len(), n);
    }

    #[test]
    fn the_output_s_extension_chooses_a_writable_format() {
        let of = |path: &str, to| Target::of(Path::new(path), to);
        assert_eq!(of("a.IQM", None), Ok(Target::Format(Format::Iqm)));
        assert_eq!(of("a.md2", Some("md2")), Ok(Target::Format(Format::Md2)));
        assert_eq!(of("a", None), Ok(Target::Format(Format::Skm)));
        assert_eq!(of("a.skp", None), Ok(Target::Format(Format::Skm)));
        assert_eq!(of("a.glb", None), Ok(Target::Glb));
        assert_eq!(
            of("a.mdl", Some("slmdl")),
            Ok(Target::Format(Format::SlMdl))
        );
        assert_eq!(of("a.mdl", Some("MDL")), Ok(Target::Format(Format::Mdl)));
        assert_eq!(of("a.mdl", Some("mdl7")), Ok(Target::Format(Format::Mdl7)));
        assert_eq!(
            of("a.mdl", Some("quake")),
            Ok(Target::Format(Format::Quake))
        );
        assert_eq!(of("a.mdl", Some("hl1")), Ok(Target::Format(Format::Hl1)));
        assert_eq!(
            of("a.mdl", None),
            Err(
                "a.mdl: five formats end in .mdl; say which with --to mdl7, --to mdl, --to \
                 slmdl, --to quake or --to hl1"
                    .to_string()
            )
        );
        assert_eq!(of("a.md5mesh", None), Ok(Target::Format(Format::Md5)));
        assert_eq!(of("a.mdr", None), Ok(Target::Format(Format::Mdr)));
        assert_eq!(of("a.psk", None), Ok(Target::Format(Format::Psk)));
        assert!(of("a.md5anim", None).is_err());
        assert_eq!(
            of("a.hmp", None),
            Err(
                "a.hmp: skelmap does not write .hmp files; it writes .dpm, .skm, .ms3d, .mdl \
                 (--to mdl7, mdl, slmdl, quake or hl1), .iqm, .md3, .md2, .mdc, .mdr, .md5mesh, \
                 .zym, .mdm, .psk, .glb and .gltf"
                    .to_string()
            )
        );
    }
}
