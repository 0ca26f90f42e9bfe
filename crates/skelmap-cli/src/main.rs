//! `skelmap`: inspect, validate, measure, export and preview classic game model files.

use skelmap_core::Parse;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use owo_colors::OwoColorize;
use skelmap_core::skm;
use skelmap_core::{Diagnostics, Error, Limits, Source, dpm::Dpm};

/// `println!` through `anstream` (colour stripped when piped or under NO_COLOR) that ends
/// the program quietly when the reader has gone away (`skelmap info x | head`).
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::emit(format_args!($($arg)*))
    };
}

mod bench;
mod demo;
mod export;
mod load;
mod summary;
mod validate;

use summary::Summary;

const AFTER_HELP: &str = "Formats: DarkPlaces DPM, Qfusion SKM (+ SKP skeleton), GameStudio \
MDL3/4/5 and HMP terrain, MilkShape MS3D, SL mdl/.anim. Colour only on a terminal; NO_COLOR \
turns it off.";

#[derive(Debug, Parser)]
#[command(
    name = "skelmap",
    version,
    about = "Validated zero-copy views of classic game model files: inspect, validate, \
             benchmark, export to glTF/OBJ and preview as PNG",
    after_help = AFTER_HELP
)]
struct Cli {
    /// Worker threads for `validate` and `bench` (default: one per core).
    #[arg(short = 'j', long, global = true)]
    jobs: Option<usize>,
    #[command(subcommand)]
    command: Command,
}

/// Where SKM skeletons are looked up.
#[derive(Debug, Clone, Args)]
struct RootArg {
    /// Game base directory for an SKM's skeleton and `.cfg` import paths
    /// (default: the model's own directory).
    #[arg(long)]
    root: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Build a small animated model, write it as DPM and SKM+SKP, validate both, skin every
    /// frame, and write demo.glb and demo.png.
    #[command(after_help = "Example:\n  skelmap demo -o /tmp/skelmap-demo")]
    Demo {
        /// Where to write the demo files.
        #[arg(short, long, default_value = "skelmap-demo")]
        out: PathBuf,
    },
    /// Describe a model: counts, bone tree, meshes, frames and frame groups, skins, bounds,
    /// diagnostics.
    #[command(after_help = "Example:\n  skelmap info models/player.dpm --json")]
    Info {
        /// The model file (the format is recognised from its first bytes).
        file: PathBuf,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        root: RootArg,
    },
    /// Validate files and directories (recursively), in parallel; prints a summary table and
    /// exits non-zero if any file fails.
    #[command(after_help = "Example:\n  skelmap validate models/ extra/zombie.dpm")]
    Validate {
        /// Model files, or directories searched for .dpm .skm .skp .mdl .hmp .ms3d .anim.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Print JSON instead of text (no progress bar).
        #[arg(long)]
        json: bool,
        /// Count files with warnings as failures.
        #[arg(long)]
        strict: bool,
        #[command(flatten)]
        root: RootArg,
    },
    /// Measure a model: open/validate, pose sampling, every skinning kernel on 1..N threads,
    /// in vertices/s and as a fraction of a memory-read pass measured in the same run.
    #[command(after_help = "Example:\n  skelmap bench models/zombie.dpm --seconds 0.5")]
    Bench {
        /// The model file.
        file: PathBuf,
        /// Time spent measuring each line.
        #[arg(long, default_value_t = 0.3)]
        seconds: f64,
        #[command(flatten)]
        root: RootArg,
    },
    /// Export a model as glTF 2.0 (.glb, or .gltf with a .bin beside it) or as OBJ (one frame).
    #[command(
        after_help = "Examples:\n  skelmap export zombie.dpm -o zombie.glb\n  \
                            skelmap export gun.mdl -o gun.obj --frame 3"
    )]
    Export {
        /// The model file.
        file: PathBuf,
        /// The output: `.glb`, `.gltf` or `.obj`.
        #[arg(short, long)]
        out: PathBuf,
        /// Pose at this frame instead of the bind pose.
        #[arg(long)]
        frame: Option<usize>,
        /// glTF: keep every influence (JOINTS_n/WEIGHTS_n sets) instead of the top 4.
        #[arg(long)]
        all_influences: bool,
        /// glTF: leave the animations (and the MDL/HMP morph targets they play) out.
        #[arg(long)]
        no_animations: bool,
        #[command(flatten)]
        root: RootArg,
    },
    /// Draw a flat-shaded preview PNG of a frame, or a contact sheet of frames or frame
    /// groups.
    #[command(
        after_help = "Examples:\n  skelmap render zombie.dpm -o zombie.png --frame 10\n  \
                            skelmap render zombie.dpm -o sheet.png --sheet"
    )]
    Render {
        /// The model file.
        file: PathBuf,
        /// The PNG to write.
        #[arg(short, long)]
        out: PathBuf,
        /// Pose at this frame instead of the bind pose.
        #[arg(long, conflicts_with = "sheet")]
        frame: Option<usize>,
        /// A contact sheet: the first frame of each frame group, or (with one group) up to
        /// 16 frames spread over the animation.
        #[arg(long)]
        sheet: bool,
        /// Image (or sheet cell) size in pixels.
        #[arg(long, default_value_t = 512)]
        size: u32,
        #[command(flatten)]
        root: RootArg,
    },
    /// Convert a DPM into an SKM and, beside it, its SKP skeleton.
    #[command(
        after_help = "Example:\n  skelmap convert player.dpm out/player.skm   (also writes out/player.skp)"
    )]
    Convert {
        /// The DPM to read.
        input: PathBuf,
        /// The SKM to write; the SKP goes beside it with the extension `.skp`.
        output: PathBuf,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Some(jobs) = cli.jobs {
        // Only fails if a pool exists already, which cannot happen this early.
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(jobs.max(1))
            .build_global();
    }
    let result = match cli.command {
        Command::Demo { out } => demo::run(&out),
        Command::Info { file, json, root } => info(&file, json, root.root.as_deref()),
        Command::Validate {
            paths,
            json,
            strict,
            root,
        } => validate::run(&paths, json, strict, root.root.as_deref()),
        Command::Bench {
            file,
            seconds,
            root,
        } => bench::run(&file, seconds, root.root.as_deref()),
        Command::Export {
            file,
            out,
            frame,
            all_influences,
            no_animations,
            root,
        } => export::export(
            &file,
            &out,
            &export::ExportArgs {
                frame,
                all_influences,
                no_animations,
            },
            root.root.as_deref(),
        ),
        Command::Render {
            file,
            out,
            frame,
            sheet,
            size,
            root,
        } => export::render(&file, &out, frame, sheet, size, root.root.as_deref()),
        Command::Convert { input, output } => convert(&input, &output),
    };
    match result {
        Ok(code) => code,
        Err(message) => {
            anstream::eprintln!("{} {message}", "error:".red().bold());
            ExitCode::FAILURE
        }
    }
}

/// Validates the file at `path` and summarises it.
fn summarise(path: &Path, root: Option<&Path>) -> Result<Summary, String> {
    let model = load::open(path, root)?;
    Summary::of_model(&path.display().to_string(), &model)
}

fn info(path: &Path, json: bool, root: Option<&Path>) -> Result<ExitCode, String> {
    let summary = summarise(path, root)?;
    print_summary(&summary, json)?;
    Ok(ExitCode::SUCCESS)
}

fn print_summary(summary: &Summary, json: bool) -> Result<(), String> {
    if json {
        let text = serde_json::to_string_pretty(summary).map_err(|e| e.to_string())?;
        say!("{text}");
    } else {
        let mut text = String::new();
        summary::render_text(summary, &mut text);
        say!("{}", text.trim_end_matches('\n'));
    }
    Ok(())
}

fn convert(input: &Path, output: &Path) -> Result<ExitCode, String> {
    let fail = |e: Error| format!("{}: {e}", input.display());
    let source = Source::read(input).map_err(|e| e.to_string())?;
    let mut diag = Diagnostics::new();
    let dpm = Dpm::parse_with(source.bytes(), &Limits::default(), &mut diag).map_err(fail)?;
    let converted = skm::convert::from_dpm(&dpm, &mut diag);
    let skp_path = output.with_extension("skp");
    for (path, bytes) in [
        (output, converted.skm.write().map_err(fail)?),
        (skp_path.as_path(), converted.skp.write().map_err(fail)?),
    ] {
        write_file(path, &bytes)?;
        say!("wrote {} ({} bytes)", path.display(), bytes.len());
    }
    for w in diag.warnings() {
        say!("warning: {w}");
    }
    Ok(ExitCode::SUCCESS)
}

/// Writes one line to standard output; see [`say!`].
fn emit(line: std::fmt::Arguments<'_>) {
    use std::io::Write;
    let mut out = anstream::stdout();
    if let Err(e) = writeln!(out, "{line}") {
        // A closed pipe is the reader's choice, not an error; anything else is reported once.
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            anstream::eprintln!("error: cannot write to standard output: {e}");
        }
        std::process::exit(if e.kind() == std::io::ErrorKind::BrokenPipe {
            0
        } else {
            1
        });
    }
}

/// Writes `bytes` to `path`; the error is one line.
fn write_file(path: &Path, bytes: &[u8]) -> Result<(), String> {
    std::fs::write(path, bytes).map_err(|e| format!("cannot write {}: {e}", path.display()))
}
