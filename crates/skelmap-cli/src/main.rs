//! `skelmap`: inspect, validate and demo classic game model files.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use skelmap_core::skm::{self, FsResolver, resolve::resolve};
use skelmap_core::{
    AnyModel, Diagnostics, Error, Format, Limits, Source, UnknownFormat, dpm::Dpm, open_any_with,
    synth,
};

mod summary;

use summary::Summary;

#[derive(Debug, Parser)]
#[command(
    name = "skelmap",
    version,
    about = "Validated zero-copy views of classic game model files (DPM, ...)"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Summarise a model: counts, bone tree, meshes, frames, bounds, diagnostics.
    ///
    /// Example: skelmap info models/player.dpm --json
    Info {
        /// The model file (the format is recognised from its first bytes).
        file: PathBuf,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
        /// Game base directory for an SKM's skeleton and `.cfg` import paths
        /// (default: the model's own directory).
        #[arg(long)]
        root: Option<PathBuf>,
    },
    /// Validate files: prints OK or the error for each; exits non-zero if any fails.
    ///
    /// Example: skelmap validate models/*.dpm
    Validate {
        /// The model files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Game base directory for SKM skeletons and `.cfg` import paths
        /// (default: each model's own directory).
        #[arg(long)]
        root: Option<PathBuf>,
    },
    /// Convert a DPM into an SKM and, beside it, its SKP skeleton.
    ///
    /// Example: skelmap convert player.dpm out/player.skm   (also writes out/player.skp)
    Convert {
        /// The DPM to read.
        input: PathBuf,
        /// The SKM to write; the SKP goes beside it with the extension `.skp`.
        output: PathBuf,
    },
    /// Build a small animated model with the writers, validate it and print its summary.
    ///
    /// Example: skelmap demo -o /tmp/skelmap-demo
    Demo {
        /// Where to write the demo files.
        #[arg(short, long, default_value = "skelmap-demo")]
        out: PathBuf,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Info { file, json, root } => info(&file, json, root.as_deref()),
        Command::Validate { files, root } => validate(&files, root.as_deref()),
        Command::Convert { input, output } => convert(&input, &output),
        Command::Demo { out } => demo(&out),
    };
    match result {
        Ok(code) => code,
        Err(message) => {
            eprintln!("skelmap: {message}");
            ExitCode::FAILURE
        }
    }
}

/// Reads one file; the error is one printable line.
fn read(path: &Path) -> Result<Source<'static>, String> {
    Source::read(path).map_err(|e| e.to_string())
}

/// Validates `bytes` (read from `path`) as whatever format they are.
fn open<'a>(path: &Path, bytes: &'a [u8], diag: &mut Diagnostics) -> Result<AnyModel<'a>, String> {
    match open_any_with(bytes, &Limits::default(), diag) {
        Ok(Some(model)) => Ok(model),
        Ok(None) => Err(format!("{}: {}", path.display(), UnknownFormat)),
        Err(e) => Err(format!("{}: {e}", path.display())),
    }
}

/// Validates the file at `path` (an SKM together with its skeleton and levels of detail) and
/// summarises it.
fn summarise(path: &Path, root: Option<&Path>, diag: &mut Diagnostics) -> Result<Summary, String> {
    let source = read(path)?;
    let name = path.display().to_string();
    let size = source.bytes().len() as u64;
    let sniffed = Format::sniff(source.bytes());
    if sniffed.is_none()
        && path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("anim"))
    {
        // `.anim` has no magic: recognised by its extension.
        let anim =
            skelmap_core::slmdl::SlAnim::parse_with(source.bytes(), &Limits::default(), diag)
                .map_err(|e| format!("{name}: {e}"))?;
        return Ok(Summary::of_anim(&name, size, &anim));
    }
    if sniffed != Some(Format::Skm) {
        let model = open(path, source.bytes(), diag)?;
        return Summary::of_model(&name, size, &model, diag);
    }
    let (resolver, relative) = skm_resolver(path, root)?;
    let fail = |e: Error| format!("{name}: {e}");
    let files = resolve(&resolver, &relative).map_err(fail)?;
    let model = files.open_with(&Limits::default(), diag).map_err(fail)?;
    Ok(Summary::of_skm(&name, size, &files.skp.0, &model, diag))
}

/// A filesystem resolver for the SKM at `path` and the model's path relative to its root.
fn skm_resolver(path: &Path, root: Option<&Path>) -> Result<(FsResolver, String), String> {
    let (root, relative) = match root {
        Some(root) => {
            let relative = path.strip_prefix(root).map_err(|_| {
                format!(
                    "{} is not inside the root {}",
                    path.display(),
                    root.display()
                )
            })?;
            (root.to_path_buf(), relative.to_path_buf())
        }
        None => {
            let dir = path.parent().unwrap_or(Path::new("")).to_path_buf();
            (dir, PathBuf::from(path.file_name().unwrap_or_default()))
        }
    };
    let relative = relative
        .to_str()
        .ok_or_else(|| format!("{}: the path is not UTF-8", path.display()))?
        .replace('\\', "/");
    Ok((FsResolver::new(root), relative))
}

fn info(path: &Path, json: bool, root: Option<&Path>) -> Result<ExitCode, String> {
    let summary = summarise(path, root, &mut Diagnostics::new())?;
    print_summary(&summary, json)?;
    Ok(ExitCode::SUCCESS)
}

fn print_summary(summary: &Summary, json: bool) -> Result<(), String> {
    if json {
        let text = serde_json::to_string_pretty(summary).map_err(|e| e.to_string())?;
        println!("{text}");
    } else {
        let mut text = String::new();
        summary::render_text(summary, &mut text);
        print!("{text}");
    }
    Ok(())
}

fn validate(files: &[PathBuf], root: Option<&Path>) -> Result<ExitCode, String> {
    let mut failed = 0usize;
    for path in files {
        let mut diag = Diagnostics::new();
        match summarise(path, root, &mut diag) {
            Ok(_) if diag.is_empty() => println!("OK    {}", path.display()),
            Ok(_) => println!(
                "OK    {} ({} kinds of warning)",
                path.display(),
                diag.warnings().len()
            ),
            Err(message) => {
                failed += 1;
                println!("FAIL  {message}");
            }
        }
    }
    println!("{} passed, {} failed", files.len() - failed, failed);
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn convert(input: &Path, output: &Path) -> Result<ExitCode, String> {
    let source = read(input)?;
    let fail = |e: Error| format!("{}: {e}", input.display());
    let mut diag = Diagnostics::new();
    let dpm = Dpm::parse_with(source.bytes(), &Limits::default(), &mut diag).map_err(fail)?;
    let converted = skm::convert::from_dpm(&dpm, &mut diag);
    let skp_path = output.with_extension("skp");
    for (path, bytes) in [
        (output, converted.skm.write().map_err(fail)?),
        (skp_path.as_path(), converted.skp.write().map_err(fail)?),
    ] {
        std::fs::write(path, &bytes)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        println!("wrote {} ({} bytes)", path.display(), bytes.len());
    }
    for w in diag.warnings() {
        println!("warning: {w}");
    }
    Ok(ExitCode::SUCCESS)
}

fn demo(out: &Path) -> Result<ExitCode, String> {
    let params = synth::TubeParams::default();
    let bytes = synth::tube(&params).write().map_err(|e| e.to_string())?;
    std::fs::create_dir_all(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let path = out.join("demo.dpm");
    std::fs::write(&path, &bytes).map_err(|e| format!("cannot write {}: {e}", path.display()))?;

    let mut diag = Diagnostics::new();
    let model =
        Dpm::parse_with(&bytes, &Limits::default(), &mut diag).map_err(|e: Error| e.to_string())?;
    println!(
        "skelmap demo: wrote a procedural {}-bone tube to {} and validated it",
        model.num_bones(),
        path.display()
    );
    let summary = Summary::of_model(
        &path.display().to_string(),
        bytes.len() as u64,
        &AnyModel::Dpm(model),
        &diag,
    )?;
    print_summary(&summary, false)?;
    demo_skin(&model)?;
    Ok(ExitCode::SUCCESS)
}

/// Skins every frame of `model` with the prepared kernel at the best SIMD level and prints
/// the rate (a progress report, not a benchmark: `cargo bench --bench skin` measures).
fn demo_skin(model: &Dpm<'_>) -> Result<(), String> {
    use skelmap_core::anim::{
        self, Interpolation, LocalPose, Palette, PreparedMesh, SimdLevel, SkinMatrices, VertexOrder,
    };
    let level = SimdLevel::detect();
    let prepared: Vec<PreparedMesh> = model.meshes().map(|m| PreparedMesh::new(&m)).collect();
    let n = prepared
        .iter()
        .map(PreparedMesh::num_verts)
        .max()
        .unwrap_or(0);
    let (mut positions, mut normals) = (vec![[0.0f32; 3]; n], vec![[0.0f32; 3]; n]);
    let (mut pose, mut palette, mut matrices) = (
        LocalPose::default(),
        Palette::default(),
        SkinMatrices::default(),
    );
    let frames = model.num_frames() as usize;
    let rounds = 200;
    let start = std::time::Instant::now();
    for _ in 0..rounds {
        for frame in 0..frames {
            anim::sample(model, frame, frame, 0.0, Interpolation::Nlerp, &mut pose);
            palette.build(model, &pose);
            matrices.update(&palette);
            for mesh in &prepared {
                mesh.skin(
                    &matrices,
                    level,
                    VertexOrder::Original,
                    &mut positions,
                    &mut normals,
                )
                .map_err(|e| e.to_string())?;
            }
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    let skinned = (rounds * frames) as f64 * model.total_vertices() as f64;
    println!(
        "skinned all {frames} frames {rounds} times with the prepared kernel ({level}): \
         {:.0} M vertices/s including sampling",
        skinned / seconds.max(1e-9) / 1e6
    );
    Ok(())
}
