//! `skelmap validate`: files and directory trees, validated in parallel, with a progress bar
//! on a terminal, a per-format summary table and a non-zero exit on any failure.

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use indicatif::{ParallelProgressIterator, ProgressBar, ProgressDrawTarget, ProgressStyle};
use owo_colors::OwoColorize;
use rayon::prelude::*;
use serde::Serialize;

use skelmap_core::Format;

use crate::summary::DiagnosticSummary;

/// Extensions a directory walk picks up (compared case-insensitively): every extension of the
/// format table, as `.dpm .skm …` for messages.
pub fn extensions_text() -> String {
    let all: Vec<&str> = Format::all_extensions().collect();
    format!(".{}", all.join(" ."))
}

/// Deepest directory nesting a walk follows (symbolic links to directories are not followed).
const MAX_DEPTH: usize = 64;

/// The outcome for one file.
#[derive(Debug, Serialize)]
struct Outcome {
    file: String,
    /// The format's name; `unrecognised`, `empty` or `unreadable` for a file of none.
    format: String,
    ok: bool,
    error: Option<String>,
    /// Each kind of warning with its first occurrence and its count.
    warnings: Vec<DiagnosticSummary>,
    /// For a file read only with a model (a Half-Life sequence group), the model it was
    /// checked with.
    #[serde(skip_serializing_if = "Option::is_none")]
    model: Option<String>,
}

pub fn run(
    paths: &[PathBuf],
    json: bool,
    strict: bool,
    companions: &crate::load::Companions,
) -> Result<ExitCode, String> {
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() {
            walk(path, 0, &mut files)?;
        } else {
            files.push(path.clone());
        }
    }
    if files.is_empty() {
        return Err(format!(
            "no model files found (looked for {} in {})",
            extensions_text(),
            paths
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    let bar = ProgressBar::new(files.len() as u64);
    if json || !std::io::stderr().is_terminal() {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    } else if let Ok(style) =
        ProgressStyle::with_template("{bar:40.cyan/blue} {pos}/{len} files {elapsed} {msg}")
    {
        bar.set_style(style);
    }
    let outcomes: Vec<Outcome> = files
        .par_iter()
        .progress_with(bar.clone())
        .map(|path| check(path, companions, strict))
        .collect();
    bar.finish_and_clear();

    let failed = outcomes.iter().filter(|o| !o.ok).count();
    if json {
        let text = serde_json::to_string_pretty(&serde_json::json!({
            "files": outcomes,
            "passed": outcomes.len() - failed,
            "failed": failed,
        }))
        .map_err(|e| e.to_string())?;
        say!("{text}");
    } else {
        print_text(&outcomes);
    }
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// Collects model files under `dir`, sorted, skipping symbolic links to directories.
pub fn walk(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) -> Result<(), String> {
    if depth > MAX_DEPTH {
        return Err(format!(
            "{}: directories nested deeper than {MAX_DEPTH}",
            dir.display()
        ));
    }
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut paths: Vec<(PathBuf, std::fs::FileType)> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| Some((e.path(), e.file_type().ok()?)))
        .collect();
    paths.sort_by(|a, b| a.0.cmp(&b.0));
    for (path, kind) in paths {
        if kind.is_dir() {
            walk(&path, depth + 1, out)?;
        } else if path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| Format::all_extensions().any(|x| x.eq_ignore_ascii_case(e)))
            && !another_games_text(&path)
        {
            out.push(path);
        }
    }
    Ok(())
}

/// `true` for a file that only formats without magic name by its extension and that no
/// format recognises (its first bytes are text): another game's file of that name, such as
/// Enemy Territory's `.anim` animation groups, which the walk leaves alone.
fn another_games_text(path: &Path) -> bool {
    use std::io::Read;
    let Some(extension) = path.extension().and_then(|e| e.to_str()) else {
        return false;
    };
    let magicless = Format::ALL
        .iter()
        .filter(|f| {
            f.extensions()
                .iter()
                .any(|x| x.eq_ignore_ascii_case(extension))
        })
        .all(|f| f.magic().is_empty());
    let mut head = Vec::new();
    magicless
        && std::fs::File::open(path)
            .and_then(|f| f.take(16).read_to_end(&mut head))
            .is_ok_and(|n| n >= 4 && Format::detect(&head, Some(extension)).is_none())
}

fn check(path: &Path, companions: &crate::load::Companions, strict: bool) -> Outcome {
    if let Some((model, g)) = crate::load::sequence_group(path) {
        return check_group(path, (&model, g), companions, strict);
    }
    let file = path.display().to_string();
    // Opening validates; what `info` measures on top (GPU buffers and their error over every
    // frame, bounds) is not validation, and costs vertices × frames on a large model.
    match crate::load::open(path, companions) {
        Ok(model) => {
            let warnings: Vec<DiagnosticSummary> = model
                .diagnostics()
                .warnings()
                .iter()
                .map(DiagnosticSummary::of)
                .collect();
            Outcome {
                file,
                format: model.format().name().to_string(),
                ok: !strict || warnings.is_empty(),
                error: None,
                warnings,
                model: None,
            }
        }
        Err(message) => Outcome {
            file,
            format: format_guess(path),
            ok: false,
            error: Some(message),
            warnings: Vec::new(),
            model: None,
        },
    }
}

/// A Half-Life sequence group (`path`, group `g` of `model`), checked as the model reads it:
/// the model opened, then the group validated against it. It passes when both pass and the
/// model reads it (it declares the group, and reads its groups up to the first missing file).
fn check_group(
    path: &Path,
    (model, g): (&Path, usize),
    companions: &crate::load::Companions,
    strict: bool,
) -> Outcome {
    let file = path.display().to_string();
    let mut outcome = Outcome {
        file: file.clone(),
        format: Format::Hl1.name().to_string(),
        ok: false,
        error: None,
        warnings: Vec::new(),
        model: Some(model.display().to_string()),
    };
    let checked = (|| {
        if !model.is_file() {
            return Err(format!(
                "{file}: a Half-Life sequence group, read with its model, and {} is not beside it",
                model.display()
            ));
        }
        let opened = crate::load::open(model, companions).map_err(|e| {
            format!("{file}: sequence group {g} of a model that does not open: {e}")
        })?;
        let pair = opened
            .as_hl1()
            .ok_or_else(|| format!("{file}: {} is not a Half-Life model", model.display()))?;
        let bytes = std::fs::read(path).map_err(|e| format!("{file}: {e}"))?;
        let mut diag = skelmap_core::Diagnostics::new();
        let limits = crate::load::open_options(companions).limits;
        pair.model()
            .check_group(&bytes, g, &limits, &mut diag)
            .map_err(|e| format!("{file}: {e}"))?;
        let declared = pair.model().seqgroups().len();
        if g >= declared {
            return Err(format!(
                "{file}: not read: {} declares {} sequence group{} besides itself",
                model.display(),
                declared.saturating_sub(1),
                if declared == 2 { "" } else { "s" }
            ));
        }
        if !pair.has_group(g) {
            return Err(format!(
                "{file}: not read: {} reads its sequence groups from 01 up to the first file \
                 missing, and one before {g:02} is",
                model.display()
            ));
        }
        Ok(diag)
    })();
    match checked {
        Ok(diag) => {
            outcome.warnings = diag.warnings().iter().map(DiagnosticSummary::of).collect();
            outcome.ok = !strict || outcome.warnings.is_empty();
        }
        Err(message) => outcome.error = Some(message),
    }
    outcome
}

/// The format a failed file claims by its magic (or, for the SL `.anim`, which has none, by
/// its extension); `unrecognised`, `empty` or `unreadable` when it claims none.
fn format_guess(path: &Path) -> String {
    let head = std::fs::File::open(path).and_then(|mut f| {
        let mut buf = [0u8; 16];
        let n = std::io::Read::read(&mut f, &mut buf)?;
        Ok(buf[..n].to_vec())
    });
    match head {
        Err(_) => "unreadable".into(),
        Ok(head) if head.is_empty() => "empty".into(),
        Ok(head) => {
            let extension = path.extension().and_then(|e| e.to_str());
            skelmap_core::Format::detect(&head, extension)
                .map_or_else(|| "unrecognised".into(), |f| f.name().to_string())
        }
    }
}

fn print_text(outcomes: &[Outcome]) {
    for o in outcomes {
        match (&o.error, o.ok, o.warnings.len()) {
            (Some(e), _, _) => say!("{}  {e}", "FAIL".red().bold()),
            (None, true, 0) => match &o.model {
                Some(model) => say!("{}    {} (with {model})", "OK".green(), o.file),
                None => say!("{}    {}", "OK".green(), o.file),
            },
            (None, ok, n) => {
                say!(
                    "{}  {} ({}{})",
                    if ok {
                        "WARN".yellow().to_string()
                    } else {
                        "FAIL".red().bold().to_string()
                    },
                    o.file,
                    crate::summary::count(n as u64, "kind of warning", "kinds of warning"),
                    if ok { "" } else { ", --strict" }
                );
                for w in &o.warnings {
                    say!("      {}", w.line());
                }
            }
        }
    }
    #[derive(Default)]
    struct Row {
        files: usize,
        ok: usize,
        warned: usize,
        failed: usize,
    }
    let mut rows: BTreeMap<&str, Row> = BTreeMap::new();
    for o in outcomes {
        let row = rows.entry(o.format.as_str()).or_default();
        row.files += 1;
        row.ok += usize::from(o.ok);
        row.warned += usize::from(!o.warnings.is_empty());
        row.failed += usize::from(!o.ok);
    }
    say!("");
    say!(
        "{:<12} {:>6} {:>6} {:>9} {:>7}",
        "format",
        "files",
        "ok",
        "warnings",
        "failed"
    );
    let mut total = Row::default();
    for (format, r) in &rows {
        say!(
            "{format:<12} {:>6} {:>6} {:>9} {:>7}",
            r.files,
            r.ok,
            r.warned,
            r.failed
        );
        total.files += r.files;
        total.ok += r.ok;
        total.warned += r.warned;
        total.failed += r.failed;
    }
    say!(
        "{:<12} {:>6} {:>6} {:>9} {:>7}",
        "total",
        total.files,
        total.ok,
        total.warned,
        total.failed
    );
    let verdict = format!("{} passed, {} failed", total.ok, total.failed);
    if total.failed == 0 {
        say!("{}", verdict.green());
    } else {
        say!("{}", verdict.red().bold());
    }
}
