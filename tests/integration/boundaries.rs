//! The house rules that the compiler alone does not enforce.

use std::path::{Path, PathBuf};

/// Whether a file may opt out of the workspace's `unsafe_code = "deny"`: the mmap constructor,
/// the root of each `x86` module of skelmap-core (its `std::arch` code: `x86.rs` or
/// `x86/mod.rs`, beside the portable code it speeds up), the C ABI crate's root, and the
/// testkit's driver of that C ABI (test support: it calls the `extern "C"` exports through raw
/// pointers as a C program does, for the `capi` fuzz target and the C ABI's tests).
fn may_allow_unsafe(relative: &str) -> bool {
    let core = relative.strip_prefix("crates/skelmap-core/src/");
    relative == "crates/skelmap-capi/src/lib.rs"
        || relative == "crates/skelmap-testkit/src/capi.rs"
        || core == Some("source.rs")
        || core
            .is_some_and(|p| p == "x86.rs" || p.ends_with("/x86.rs") || p.ends_with("/x86/mod.rs"))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.map(|e| e.unwrap()) {
        let path = entry.path();
        let name = entry.file_name();
        if path.is_dir() && !matches!(name.to_str(), Some("target" | ".git" | "corpus")) {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn unsafe_code_is_allowed_only_where_the_project_allows_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in [
        "crates",
        "src",
        "tests",
        "benches",
        "fuzz/src",
        "fuzz/fuzz_targets",
    ] {
        rust_files(&root.join(dir), &mut files);
    }
    assert!(files.len() > 50, "found only {} files", files.len());
    // Spelled in two pieces so that this file does not match itself.
    let patterns = [
        concat!("allow(", "unsafe_code)"),
        concat!("expect(", "unsafe_code)"),
    ];
    let mut offenders = Vec::new();
    let mut allowed_seen = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let relative = file
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let count: usize = patterns.iter().map(|p| text.matches(p).count()).sum();
        if count == 0 {
            continue;
        }
        if may_allow_unsafe(&relative) && count == 1 {
            allowed_seen.push(relative);
        } else {
            offenders.push(format!("{relative} ({count})"));
        }
    }
    assert!(
        offenders.is_empty(),
        "unsafe code allowed outside the mmap constructor, the x86 modules, the C ABI and its \
         driver: {offenders:?}"
    );
    for needed in [
        "crates/skelmap-core/src/source.rs",
        "crates/skelmap-capi/src/lib.rs",
        "crates/skelmap-testkit/src/capi.rs",
    ] {
        assert!(
            allowed_seen.iter().any(|f| f == needed),
            "{needed} no longer allows unsafe code: update this test"
        );
    }
}

/// The floors of skelmap-core, lowest first, each a list of its top-level modules (a file
/// `name.rs` or a folder `name/`). A file may name (`crate::m`, or `super::m` at the top level)
/// only modules on its own floor or below; ARCHITECTURE.md's floor table says the same.
const FLOORS: [(&str, &[&str]); 8] = [
    (
        "foundation",
        &[
            "bonevert",
            "diag",
            "error",
            "floatbits",
            "format",
            "limits",
            "name",
            "parse",
            "read",
            "resolver",
            "rules",
            "scan",
            "simd",
            "source",
            "text",
            "write",
        ],
    ),
    ("pose", &["pose"]),
    ("skin", &["skin"]),
    ("alias", &["alias"]),
    ("view", &["asset", "gpu", "view"]),
    ("md4 family", &["md4"]),
    // Every folder of the format table (`Format::folder`): see `floor_of`.
    ("formats", &[]),
    ("model", &["model", "synth"]),
];

/// Imports across format folders, each with its reason: the only arrows between rooms of the
/// formats floor.
const FORMAT_IMPORTS: [(&str, &str); 2] = [
    // DPM → SKM conversion reads a DPM to write an SKM and its SKP.
    ("crates/skelmap-core/src/skm/convert.rs", "dpm"),
    // ET:Legacy makes an MDC from an MD3: the MDC writer lays an asset out with the MD3
    // writer's fitting, then compresses the frames.
    ("crates/skelmap-core/src/mdc/write.rs", "md3"),
];

/// The floor of top-level module `name`, if it is on one: a format's folder (a row of the
/// format table) is on the formats floor.
fn floor_of(name: &str) -> Option<usize> {
    if skelmap::Format::ALL.iter().any(|f| f.folder() == name) {
        return FLOORS.iter().position(|(floor, _)| *floor == "formats");
    }
    FLOORS
        .iter()
        .position(|(_, modules)| modules.contains(&name))
}

/// The top-level modules `line` names (`crate::m…`, and `super::m…` in a top-level file).
fn named_modules(line: &str, top_level: bool) -> Vec<&str> {
    let mut names = Vec::new();
    let prefixes: &[&str] = if top_level {
        &["crate::", "super::"]
    } else {
        &["crate::"]
    };
    for prefix in prefixes {
        let mut rest = line;
        while let Some(at) = rest.find(prefix) {
            let before = rest[..at].chars().next_back();
            rest = &rest[at + prefix.len()..];
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue; // `skelmap_crate::` and the like are not this crate (`$crate::` is).
            }
            let end = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            names.push(&rest[..end]);
        }
    }
    names
}

/// The code of a file above its first `#[cfg(test)]` (unit tests sit at the end of a file
/// and may use any floor), without comment lines.
fn code_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .take_while(|(_, l)| l.trim() != "#[cfg(test)]")
        .filter(|(_, l)| !l.trim_start().starts_with("//"))
        .map(|(i, l)| (i + 1, l))
}

#[test]
fn no_import_runs_back_up_a_floor_of_skelmap_core() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let src = root.join("crates/skelmap-core/src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    assert!(files.len() > 80, "found only {} files", files.len());
    let mut offenders = Vec::new();
    let mut placed = 0;
    for file in &files {
        let relative = file
            .strip_prefix(&src)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let module = relative.split('/').next().unwrap().trim_end_matches(".rs");
        if module == "lib" {
            continue; // The crate root declares every module and re-exports the API.
        }
        let own = floor_of(module)
            .unwrap_or_else(|| panic!("{relative}: module `{module}` is on no floor of FLOORS"));
        placed += 1;
        let top_level = !relative.contains('/')
            || relative.ends_with("/mod.rs") && relative.matches('/').count() == 1;
        let path = format!("crates/skelmap-core/src/{relative}");
        let text = std::fs::read_to_string(file).unwrap();
        for (line_number, line) in code_lines(&text) {
            for name in named_modules(line, top_level) {
                let Some(floor) = floor_of(name) else {
                    continue; // An item of the crate root (`crate::Error`) or a macro.
                };
                let across_formats = FLOORS[own].0 == "formats" && floor == own && name != module;
                let allowed = FORMAT_IMPORTS.contains(&(path.as_str(), name));
                if floor > own || across_formats && !allowed {
                    offenders.push(format!(
                        "{path}:{line_number} ({}) names `{name}` ({})",
                        FLOORS[own].0, FLOORS[floor].0
                    ));
                }
            }
        }
    }
    assert!(placed > 80, "placed only {placed} files on floors");
    assert!(
        offenders.is_empty(),
        "imports that run back up a floor, or across format folders:\n{}",
        offenders.join("\n")
    );
}

#[test]
fn the_floor_check_reads_imports_as_the_compiler_does() {
    assert_eq!(named_modules("use crate::skin::scan;", false), ["skin"]);
    assert_eq!(
        named_modules("    let x = crate::pose::lanes::be_poses(b, out);", false),
        ["pose"]
    );
    assert!(named_modules("use skelmap_crate::dpm;", false).is_empty());
    assert_eq!(named_modules("$crate::view::MeshView", false), ["view"]);
    assert_eq!(named_modules("use super::dpm::Dpm;", true), ["dpm"]);
    assert!(named_modules("use super::raw;", false).is_empty());
    let text = "use crate::dpm;\n// crate::model in a comment\n#[cfg(test)]\nuse crate::model;\n";
    assert_eq!(code_lines(text).map(|(n, _)| n).collect::<Vec<_>>(), [1]);
}
