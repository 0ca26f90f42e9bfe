//! The fuzz seeds in fuzz/seeds/<target>/ are written by the project's writers and replayed
//! here on stable, so every seed and every committed crash regression runs on each `cargo test`.
//!
//! `SKELMAP_BLESS=1 cargo test --test integration seeds` rewrites the generated seeds.

use std::path::{Path, PathBuf};

use skelmap::dpm::{Dpm, MeshDef};
use skelmap::synth::{TubeParams, tube};
use skelmap::{Format, open_any};

fn seeds_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds")
}

/// The generated seeds: (target, file name, bytes).
fn generated() -> Vec<(&'static str, &'static str, Vec<u8>)> {
    let small = tube(&TubeParams::default()).write().unwrap();
    let tiny = tube(&TubeParams {
        bones: 1,
        rings_per_bone: 1,
        sides: 3,
        frames: 1,
        ..TubeParams::default()
    })
    .write()
    .unwrap();
    let long = tube(&TubeParams {
        bones: 12,
        rings_per_bone: 1,
        sides: 4,
        frames: 3,
        ..TubeParams::default()
    })
    .write()
    .unwrap();
    let mut two = tube(&TubeParams {
        bones: 3,
        rings_per_bone: 1,
        sides: 5,
        frames: 2,
        ..TubeParams::default()
    });
    let second = MeshDef {
        shader: b"second".to_vec(),
        ..two.meshes[0].clone()
    };
    two.meshes.push(second);
    let two = two.write().unwrap();
    let mut out = Vec::new();
    for target in ["dpm", "probe_any"] {
        out.push((target, "tube.dpm", small.clone()));
        out.push((target, "tiny.dpm", tiny.clone()));
        out.push((target, "chain12.dpm", long.clone()));
        out.push((target, "two_meshes.dpm", two.clone()));
    }
    out
}

#[test]
fn committed_seeds_match_the_writers() {
    let bless = std::env::var_os("SKELMAP_BLESS").is_some();
    for (target, name, bytes) in generated() {
        let path = seeds_dir().join(target).join(name);
        if bless {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &bytes).unwrap();
        }
        let committed = std::fs::read(&path).unwrap_or_else(|e| {
            panic!(
                "{}: {e}; run with SKELMAP_BLESS=1 to write it",
                path.display()
            )
        });
        assert!(
            committed == bytes,
            "{} differs from the writer's output; rerun with SKELMAP_BLESS=1",
            path.display()
        );
        assert!(Dpm::parse(&bytes).is_ok(), "seed {name} must be valid");
    }
}

#[test]
fn every_seed_and_regression_replays_without_panic() {
    let mut replayed = 0;
    for target in std::fs::read_dir(seeds_dir()).unwrap() {
        let target = target.unwrap().path();
        for file in std::fs::read_dir(&target).unwrap() {
            let bytes = std::fs::read(file.unwrap().path()).unwrap();
            if let Ok(Some(model)) = open_any(&bytes) {
                crate::exercise::any(&model);
            }
            if Format::sniff(&bytes) == Some(Format::Dpm) || target.ends_with("dpm") {
                let _ = Dpm::parse(&bytes);
            }
            replayed += 1;
        }
    }
    assert!(replayed >= 8, "only {replayed} seeds found");
}
