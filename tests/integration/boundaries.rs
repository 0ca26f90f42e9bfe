//! The house rules that the compiler alone does not enforce.

use std::path::{Path, PathBuf};

/// The only files that may opt out of the workspace's `unsafe_code = "deny"`: the mmap
/// constructor, the `std::arch` kernels, and the C ABI crate.
const UNSAFE_ALLOWED: [&str; 3] = [
    "crates/skelmap-core/src/source.rs",
    "crates/skelmap-core/src/skin/x86/mod.rs",
    "crates/skelmap-capi/src/lib.rs",
];

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
        if UNSAFE_ALLOWED.contains(&relative.as_str()) && count == 1 {
            allowed_seen.push(relative);
        } else {
            offenders.push(format!("{relative} ({count})"));
        }
    }
    assert!(
        offenders.is_empty(),
        "unsafe code allowed outside {UNSAFE_ALLOWED:?}: {offenders:?}"
    );
    allowed_seen.sort();
    let mut expected = UNSAFE_ALLOWED.map(String::from).to_vec();
    expected.sort();
    assert_eq!(
        allowed_seen, expected,
        "each allowed file opts out exactly once"
    );
}
