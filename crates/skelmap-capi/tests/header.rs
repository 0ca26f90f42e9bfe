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
