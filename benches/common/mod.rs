//! Inputs shared by the benches.

/// Every file of `../shared/corpus/<sub>` as `(file stem, bytes)`, sorted; empty (with a
/// message) when the shared corpus is absent (see `skelmap_testkit`).
#[allow(clippy::unwrap_used)]
pub fn corpus(sub: &str) -> Vec<(String, Vec<u8>)> {
    skelmap_testkit::corpus_files(sub)
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
