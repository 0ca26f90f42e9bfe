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
