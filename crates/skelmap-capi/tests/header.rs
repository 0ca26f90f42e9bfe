//! The committed `include/skelmap.h` is what cbindgen makes of this crate today.
//!
//! A stale header would let C callers compile against functions or layouts that no longer
//! exist. Regenerate after changing the API with
//! `SKELMAP_BLESS=1 cargo test -p skelmap-capi --test header`.

#![allow(clippy::expect_used)]

use std::path::Path;

#[test]
fn committed_header_is_current() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(dir.join("cbindgen.toml")).expect("cbindgen.toml");
    let mut generated = Vec::new();
    cbindgen::Builder::new()
        .with_crate(dir)
        .with_config(config)
        .generate()
        .expect("cbindgen parses the crate")
        .write(&mut generated);
    let generated = String::from_utf8(generated).expect("UTF-8 header");
    let path = dir.join("include/skelmap.h");
    if std::env::var_os("SKELMAP_BLESS").is_some() {
        std::fs::write(&path, &generated).expect("write include/skelmap.h");
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "include/skelmap.h is stale: regenerate it with \
         `SKELMAP_BLESS=1 cargo test -p skelmap-capi --test header` and commit the result"
    );
}

fn header() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("include/skelmap.h");
    std::fs::read_to_string(path).expect("include/skelmap.h")
}

/// The `SKELMAP_…` words of `text`.
fn constants(text: &str) -> std::collections::BTreeSet<&str> {
    text.split(|c: char| !(c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_'))
        .filter(|w| w.starts_with("SKELMAP_") && w.len() > "SKELMAP_".len())
        .collect()
}

/// Every constant the header's documentation names is defined by it (a `#define` or an enum
/// value): `SKELMAP_BONE_ATTACHMENT` used to be documented and missing.
#[test]
fn every_constant_the_docs_name_is_defined() {
    let header = header();
    let defined: std::collections::BTreeSet<&str> = header
        .lines()
        .filter_map(|l| {
            let l = l.trim_start();
            let name = l.strip_prefix("#define ").unwrap_or(l);
            let name = name.split([' ', ',']).next()?;
            (name.starts_with("SKELMAP_") && (l.starts_with("#define ") || l.contains(" = ")))
                .then_some(name)
        })
        .collect();
    // The one `SKELMAP_` word that is not a constant: the environment variable in the note
    // on how to regenerate the header.
    let missing: Vec<&str> = constants(&header)
        .into_iter()
        .filter(|c| !defined.contains(c) && *c != "SKELMAP_BLESS")
        .collect();
    assert!(
        missing.is_empty(),
        "documented but not defined: {missing:?}"
    );
    assert!(defined.contains("SKELMAP_BONE_ATTACHMENT"));
}

/// Every function's documentation says what it returns: its statuses, `SIZE_MAX` or the
/// value for failure, or that it cannot fail.
#[test]
fn every_function_documents_what_it_returns() {
    let header = header();
    let mut undocumented = Vec::new();
    let mut doc = String::new();
    for line in header.lines() {
        let t = line.trim();
        if t.starts_with("/**") {
            doc.clear();
        }
        if t.starts_with('*') || t.starts_with("/**") {
            doc.push_str(t);
            doc.push(' ');
            continue;
        }
        if let Some(name) = t
            .split(['(', ' ', '*'])
            .find(|w| w.starts_with("skelmap_"))
            .filter(|_| t.contains('('))
        {
            let says = ["Returns", "returns", "never NULL"]
                .iter()
                .any(|w| doc.contains(w));
            if !says {
                undocumented.push(name.to_string());
            }
            doc.clear();
        }
    }
    assert!(
        undocumented.is_empty(),
        "no return documentation: {undocumented:?}"
    );
}
