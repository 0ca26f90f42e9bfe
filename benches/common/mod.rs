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

/// The memory-read roofline: read every byte once with the widest loads this CPU has
/// (`skin::read_pass`: AVX-512 on the project machine) and sum them, so that a kernel's
/// fraction of it is not flattered by a narrow read.
#[allow(dead_code)]
pub fn byte_sum(bytes: &[u8]) -> u64 {
    skelmap::skin::read_pass(bytes, skelmap::skin::SimdLevel::detect())
}
