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

/// The `assembly` target's seed: the synthetic player of one frame an animation (with its
/// `animation.cfg`, two skins and a weapon) in the harness's input layout. Written by
/// `SKELMAP_BLESS=1`, else compared with the committed file.
#[test]
fn the_assembly_seed_is_the_synthetic_player_and_replays() {
    use skelmap_testkit::assembly;
    let player = skelmap_core::synth::player(1);
    let mut files = std::collections::HashMap::new();
    for (name, bytes) in &player.files {
        files.insert(format!("p/{name}"), bytes.clone());
    }
    files.insert(
        "w.md3".to_string(),
        skelmap_core::md3::Builder::triangle().write(),
    );
    let seed = assembly::join(&files);
    assert_eq!(assembly::split(&seed).len(), assembly::FILES.len());
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/seeds/assembly/player.bin");
    if std::env::var_os("SKELMAP_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &seed).unwrap();
    }
    assert_eq!(std::fs::read(&path).unwrap(), seed, "{}", path.display());
    // The seed opens as a player of four parts, and so does every truncation and flip of it
    // without a panic.
    let player = skelmap_core::model::Assembly::resolve_player(
        &&files,
        "p",
        Some("w.md3"),
        &skelmap_core::Limits::DEFAULT,
    )
    .unwrap();
    assert_eq!(player.parts().len(), 4);
    assembly::assembly(&seed);
    for len in (0..seed.len()).step_by(37) {
        assembly::assembly(&seed[..len]);
    }
    let mut flipped = seed.clone();
    for i in (0..seed.len()).step_by(53) {
        flipped[i] ^= 0xA5;
        assembly::assembly(&flipped);
        flipped[i] = seed[i];
    }
}
