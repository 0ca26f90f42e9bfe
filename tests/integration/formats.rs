//! "How to add a format" (ARCHITECTURE.md) held to the tree: every row of the format table
//! (`Format::ALL`, made from `format_table!` in skelmap-core's `format.rs`) has each thing
//! the checklist asks for, and a missing one fails naming the format and the item.

use std::path::Path;

use skelmap::Format;

/// What the checklist asks of one format, each item a path or a line to find, with what is
/// missing when it is not there.
fn missing_items(root: &Path, format: Format) -> Vec<String> {
    let folder = format.folder();
    let mut missing = Vec::new();
    let mut need_file = |relative: String| {
        if !root.join(&relative).is_file() {
            missing.push(format!("the file {relative}"));
        }
    };
    for file in ["mod.rs", "raw.rs", "validate.rs", "view.rs", "write.rs"] {
        need_file(format!("crates/skelmap-core/src/{folder}/{file}"));
    }
    need_file(format!("docs/formats/{}.md", format.docs_page()));
    need_file(format!("fuzz/fuzz_targets/{}.rs", format.fuzz_target()));
    need_file(format!("tests/integration/{folder}/mod.rs"));
    let read = |relative: &str| std::fs::read_to_string(root.join(relative)).unwrap_or_default();
    let mut need_text = |relative: &str, text: String, what: &str| {
        if !read(relative).contains(&text) {
            missing.push(format!("{what} (`{text}` in {relative})"));
        }
    };
    need_text(
        "fuzz/Cargo.toml",
        format!("name = \"{}\"", format.fuzz_target()),
        "the fuzz target's [[bin]]",
    );
    need_text(
        "docs/formats/README.md",
        format!("({}.md)", format.docs_page()),
        "the docs index's row",
    );
    need_text(
        "tests/integration/main.rs",
        format!("mod {folder};"),
        "the test folder in the test binary",
    );
    need_text(
        "crates/skelmap-capi/include/skelmap.h",
        format!("{} = {},", c_name(format), format.c_value()),
        "the C ABI's `SkelmapFormat` value (add it in crates/skelmap-capi/src/model.rs and \
         regenerate the header)",
    );
    missing
}

/// The name cbindgen gives a format's `SkelmapFormat` value: `SlMdl` → `SKELMAP_FORMAT_SL_MDL`.
fn c_name(format: Format) -> String {
    let mut name = String::from("SKELMAP_FORMAT_");
    let mut previous_lower = false;
    for c in format!("{format:?}").chars() {
        if c.is_ascii_uppercase() && previous_lower {
            name.push('_');
        }
        previous_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        name.push(c.to_ascii_uppercase());
    }
    name
}

#[test]
fn every_format_has_what_the_checklist_asks_for() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let report: Vec<String> = Format::ALL
        .iter()
        .flat_map(|&format| {
            missing_items(root, format)
                .into_iter()
                .map(move |item| format!("{format:?} lacks {item}"))
        })
        .collect();
    assert!(report.is_empty(), "{}", report.join("\n"));
}

#[test]
fn the_checklist_names_what_a_format_lacks() {
    // A tree with nothing in it lacks every item, each named.
    let empty = std::env::temp_dir().join("skelmap-checklist-empty-tree");
    let missing = missing_items(&empty, Format::Iqm);
    assert_eq!(missing.len(), 12, "{missing:#?}");
    assert!(missing[0].ends_with("crates/skelmap-core/src/iqm/mod.rs"));
    assert!(
        missing
            .iter()
            .any(|m| m.contains("SKELMAP_FORMAT_IQM = 10,"))
    );
    assert_eq!(c_name(Format::SlMdl), "SKELMAP_FORMAT_SL_MDL");
    assert_eq!(c_name(Format::Mdl7), "SKELMAP_FORMAT_MDL7");
}

#[test]
fn every_format_has_its_own_c_value() {
    let mut values: Vec<u32> = Format::ALL.iter().map(|f| f.c_value()).collect();
    assert!(!values.contains(&0), "0 is the C ABI's \"no format\"");
    values.sort_unstable();
    values.dedup();
    assert_eq!(
        values.len(),
        Format::ALL.len(),
        "two formats share a C value"
    );
}
