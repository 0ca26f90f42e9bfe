//! The exporters never panic on a model that validated: the `export` fuzz target's harness
//! replayed over its seeds, over every truncation and many byte flips of them, and over
//! truncations of corpus files.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

use skelmap_testkit::export as harness;

fn seeds() -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/seeds/export");
    let mut out: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let path = e.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(path).unwrap())
        })
        .collect();
    out.sort();
    out
}

#[test]
fn seeds_export_cleanly() {
    let seeds = seeds();
    // 10 writer-built seeds and the regressions (`crash-*`).
    assert!(seeds.len() >= 11);
    for (_, bytes) in &seeds {
        harness::export(bytes);
    }
}

#[test]
fn truncated_and_flipped_seeds_never_panic() {
    for (name, bytes) in seeds() {
        for len in 0..bytes.len().min(600) {
            harness::export(&bytes[..len]);
        }
        // Every byte of the first 600 flipped in turn, and then every 7th.
        let positions = (0..bytes.len().min(600)).chain((600..bytes.len()).step_by(7));
        for at in positions {
            let mut flipped = bytes.clone();
            flipped[at] ^= 0xA5;
            harness::export(&flipped);
        }
        eprintln!("{name}: swept");
    }
}

#[test]
fn corpus_files_and_their_truncations_never_panic() {
    let Some(root) = skelmap_testkit::corpus_path("") else {
        return;
    };
    let picks = [
        "dpm/xon_vehicles_raptor.dpm",
        "mdl/gex4_skeleton.mdl",
        "ms3d/ms3drender_NeHe_Model.ms3d",
        "hmp/assimp_terrain.hmp",
    ];
    for pick in picks {
        let bytes = std::fs::read(root.join(pick)).unwrap();
        harness::export(&bytes);
        let step = (bytes.len() / 150).max(1);
        for len in (0..bytes.len()).step_by(step) {
            harness::export(&bytes[..len]);
        }
    }
}
