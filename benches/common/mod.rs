//! Inputs shared by the benches.

use std::path::PathBuf;

/// Every file of `../shared/corpus/<sub>` as `(file stem, bytes)`, sorted; empty (with a
/// message) when the shared corpus is absent.
#[allow(clippy::unwrap_used)]
pub fn corpus(sub: &str) -> Vec<(String, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpus")
        .join(sub);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!("SKIPPED corpus inputs: {} is absent", dir.display());
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = entries.map(|e| e.unwrap().path()).collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            (
                p.file_stem().unwrap().to_string_lossy().into_owned(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect()
}

/// The memory-read roofline: read every byte once (as u64 words) and sum them.
#[allow(dead_code)]
pub fn byte_sum(bytes: &[u8]) -> u64 {
    let words = bytes.chunks_exact(8);
    let tail = words.remainder();
    let sum = words.fold(0u64, |s, w| {
        s.wrapping_add(u64::from_le_bytes(w.try_into().unwrap_or_default()))
    });
    tail.iter().fold(sum, |s, b| s.wrapping_add(u64::from(*b)))
}
