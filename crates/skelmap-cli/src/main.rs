//! `skelmap`: inspect, validate and demo classic game model files.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use skelmap_core::{
    AnyModel, Diagnostics, Error, Limits, Source, UnknownFormat, dpm::Dpm, open_any_with, synth,
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
    },
    /// Validate files: prints OK or the error for each; exits non-zero if any fails.
    ///
    /// Example: skelmap validate models/*.dpm
    Validate {
        /// The model files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
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
        Command::Info { file, json } => info(&file, json),
        Command::Validate { files } => validate(&files),
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

fn info(path: &Path, json: bool) -> Result<ExitCode, String> {
    let source = read(path)?;
    let mut diag = Diagnostics::new();
    let model = open(path, source.bytes(), &mut diag)?;
    let name = path.display().to_string();
    let summary = Summary::new(&name, source.bytes().len() as u64, &model, &diag)?;
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

fn validate(files: &[PathBuf]) -> Result<ExitCode, String> {
    let mut failed = 0usize;
    for path in files {
        let mut diag = Diagnostics::new();
        let checked =
            read(path).and_then(|source| open(path, source.bytes(), &mut diag).map(|_| ()));
        match checked {
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
    let summary = Summary::new(
        &path.display().to_string(),
        bytes.len() as u64,
        &AnyModel::Dpm(model),
        &diag,
    )?;
    print_summary(&summary, false)?;
    Ok(ExitCode::SUCCESS)
}
