//! Test support shared by the test suites, benches and fuzz targets (a dev-dependency only,
//! and a path dependency of the `fuzz/` workspace).
//!
//! Without features it is the one place that knows where the shared corpus is and what to do
//! when it is absent. The corpus lives beside the checkout, in `../shared/corpus`. A fresh
//! clone elsewhere has none, so tests that read it skip, saying so on stderr. With
//! `SKELMAP_REQUIRE_CORPUS=1` in the environment (CI sets it when the corpus is there) a
//! missing corpus is a failure instead: a test cannot pass by skipping the files it exists to
//! check.
//!
//! Behind features, the harnesses that the fuzz targets and the tests share, so that a property
//! checked under fuzzing is also checked on every `cargo test`; each feature is the module of
//! the same name:
//! - `exercise` walks every accessor of a validated view and asserts what validation promises.
//! - `structured` writes a valid file of a chosen shape and overwrites one 32-bit field.
//! - `export` turns any model that opens into scenes and writes them out.
//! - `assembly` opens a Quake III player held in memory, plays its clip sets and writes it as
//!   one scene.
//! - `capi` calls every export of the C ABI the way a careless C caller would.
//! - `write` writes any model that opens in every writable format and opens what it wrote.

// Test support: failing loudly is its purpose.
#![allow(clippy::panic, clippy::expect_used, clippy::unwrap_used)]

#[cfg(feature = "assembly")]
pub mod assembly;
#[cfg(feature = "capi")]
pub mod capi;
#[cfg(feature = "exercise")]
pub mod exercise;
#[cfg(feature = "export")]
pub mod export;
#[cfg(feature = "structured")]
pub mod structured;
#[cfg(feature = "write")]
pub mod write;

use std::path::PathBuf;

/// The environment variable that turns a missing corpus from a skip into a failure.
pub const REQUIRE_CORPUS: &str = "SKELMAP_REQUIRE_CORPUS";

/// `../shared/corpus` beside the checkout.
#[must_use]
pub fn corpus_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus")
}

/// `../shared/corpus-next` beside the checkout: real files of the formats added after the
/// first corpus (IQM, MDL7), kept apart so that tests walking every folder of the corpus do
/// not meet them.
#[must_use]
pub fn corpus_next_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus-next")
}

/// [`corpus_path`] in [`corpus_next_root`].
///
/// # Panics
///
/// When it is absent and [`REQUIRE_CORPUS`] is `1`.
#[must_use]
pub fn corpus_next_path(sub: &str) -> Option<PathBuf> {
    lookup(corpus_next_root().join(sub), corpus_required())
}

/// [`corpus_files`] in [`corpus_next_root`].
///
/// # Panics
///
/// As [`corpus_files`].
#[must_use]
pub fn corpus_next_files(sub: &str) -> Vec<PathBuf> {
    list(corpus_next_path(sub))
}

/// `../shared/corpus-engines` beside the checkout: real files of the engine formats (MD3,
/// MD2, MDC, MD5, Half-Life MDL), with assimp's output in its `oracle/` folder.
#[must_use]
pub fn corpus_engines_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus-engines")
}

/// [`corpus_path`] in [`corpus_engines_root`].
///
/// # Panics
///
/// When it is absent and [`REQUIRE_CORPUS`] is `1`.
#[must_use]
pub fn corpus_engines_path(sub: &str) -> Option<PathBuf> {
    lookup(corpus_engines_root().join(sub), corpus_required())
}

/// `true` when [`REQUIRE_CORPUS`] is set to `1`.
#[must_use]
pub fn corpus_required() -> bool {
    std::env::var(REQUIRE_CORPUS).is_ok_and(|v| v == "1")
}

/// The corpus path `sub` (a folder such as `"dpm"`, or a file such as
/// `"dpm/xon_monsters_golem.dpm"`; `""` for the root), or `None` when it is absent, after
/// saying on stderr that the caller skips.
///
/// # Panics
///
/// When it is absent and [`REQUIRE_CORPUS`] is `1`.
#[must_use]
pub fn corpus_path(sub: &str) -> Option<PathBuf> {
    lookup(corpus_root().join(sub), corpus_required())
}

/// `path` if it exists; else a skip message and `None`, or a panic when `required`.
fn lookup(path: PathBuf, required: bool) -> Option<PathBuf> {
    if path.exists() {
        return Some(path);
    }
    assert!(
        !required,
        "{} is absent and {REQUIRE_CORPUS}=1: the corpus tests must not skip",
        path.display()
    );
    eprintln!("SKIPPED: {} is absent", path.display());
    None
}

/// Every file in corpus folder `sub`, sorted; empty (after the skip message) when absent.
///
/// # Panics
///
/// When it is absent and [`REQUIRE_CORPUS`] is `1`, or when the folder cannot be listed.
#[must_use]
pub fn corpus_files(sub: &str) -> Vec<PathBuf> {
    list(corpus_path(sub))
}

/// The files of `dir`, sorted; empty for `None`.
fn list(dir: Option<PathBuf>) -> Vec<PathBuf> {
    let Some(dir) = dir else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

/// A DDS file of one 4 × 4 DXT1 block, written byte by byte from the DirectDraw Surface
/// layout (the magic, the 124-byte header with its pixel format `DXT1`, then the block):
/// colours `c0` and `c1` as RGB565, `c0 > c1` (the block's four-colour mode), and per texel,
/// row by row from the top, a 2-bit index (`0`: `c0`, `1`: `c1`).
#[must_use]
pub fn dxt1_4x4(c0: u16, c1: u16, indices: [[u8; 4]; 4]) -> Vec<u8> {
    assert!(c0 > c1, "four-colour mode needs c0 > c1");
    let mut header = [0u32; 31];
    header[0] = 124; // dwSize
    header[1] = 0x1 | 0x2 | 0x4 | 0x1000; // caps, height, width, pixel format
    header[2] = 4; // dwHeight
    header[3] = 4; // dwWidth
    header[4] = 8; // dwPitchOrLinearSize: one block
    header[18] = 32; // ddspf.dwSize
    header[19] = 0x4; // ddspf.dwFlags: DDPF_FOURCC
    header[20] = u32::from_le_bytes(*b"DXT1"); // ddspf.dwFourCC
    header[26] = 0x1000; // dwCaps: DDSCAPS_TEXTURE
    let mut out = b"DDS ".to_vec();
    out.extend(header.iter().flat_map(|w| w.to_le_bytes()));
    out.extend(c0.to_le_bytes());
    out.extend(c1.to_le_bytes());
    // Texel (x, y) takes bits 2·(4y + x) of the little-endian index word.
    let mut word = 0u32;
    for (y, row) in indices.iter().enumerate() {
        for (x, &i) in row.iter().enumerate() {
            word |= u32::from(i & 3) << (2 * (4 * y + x));
        }
    }
    out.extend(word.to_le_bytes());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_corpus_skips_unless_required() {
        let missing = corpus_root().join("no such folder");
        assert_eq!(lookup(missing.clone(), false), None);
        let present = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        assert_eq!(lookup(present.clone(), true), Some(present));
        let failed = std::panic::catch_unwind(|| lookup(missing, true));
        assert!(failed.is_err(), "a required corpus that is absent fails");
    }
}
