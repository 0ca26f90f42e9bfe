//! Every export over valid, truncated and corrupted models through caller memory: each call
//! returns a status (never a crash or panic), bad outputs are refused, and what a model names
//! can be looked up again. The same driver runs as the `capi` fuzz target.
#![allow(clippy::unwrap_used)]

use std::path::Path;

use skelmap_core::synth;
use skelmap_testkit::capi::exercise;

fn sweep(bytes: &[u8]) {
    let _ = exercise(bytes);
    // Every truncation point inside the first 512 bytes (headers and tables), then every
    // 97th byte beyond.
    let cuts = (0..bytes.len().min(512)).chain((512..bytes.len()).step_by(97));
    for cut in cuts {
        let _ = exercise(&bytes[..cut]);
    }
    // A byte flipped at every 13th offset.
    for at in (0..bytes.len()).step_by(13) {
        let mut bad = bytes.to_vec();
        bad[at] ^= 0xff;
        let _ = exercise(&bad);
    }
}

#[test]
fn synthetic_models_through_the_c_abi() {
    let dpm = synth::tube(&synth::TubeParams::default()).write().unwrap();
    assert!(exercise(&dpm) > 0);
    sweep(&dpm);
}

#[test]
fn iqm_models_through_the_c_abi() {
    let demo = skelmap_core::iqm::Builder {
        colors: vec![[255, 128, 0, 255]; 8],
        tangents: vec![[1.0, 0.0, 0.0, 1.0]; 8],
        ..skelmap_core::iqm::Builder::demo()
    }
    .write()
    .unwrap();
    assert!(exercise(&demo) > 0);
    sweep(&demo);
    for path in skelmap_testkit::corpus_next_files("iqm") {
        let bytes = std::fs::read(&path).unwrap();
        let _ = exercise(&bytes);
    }
}

#[test]
fn mdl7_models_through_the_c_abi() {
    let demo = skelmap_core::mdl7::Builder::demo().write();
    assert!(exercise(&demo) > 0);
    sweep(&demo);
    for path in skelmap_testkit::corpus_next_files("mdl7") {
        let bytes = std::fs::read(&path).unwrap();
        assert!(exercise(&bytes) > 0, "{}", path.display());
    }
}

/// Quake II, Quake III, Return to Castle Wolfenstein and Doom 3 models (fixtures swept, the
/// shared files opened whole): vertex animation, tags and MD5's decoded text through C.
#[test]
fn engine_models_through_the_c_abi() {
    for bytes in [
        skelmap_core::md2::Builder::triangle().write(),
        skelmap_core::md3::Builder::triangle().write(),
        skelmap_core::mdc::Builder::triangle().write(),
    ] {
        assert!(exercise(&bytes) > 0);
        sweep(&bytes);
    }
    for sub in ["md2", "md3", "mdc", "md5"] {
        let Some(dir) = skelmap_testkit::corpus_engines_path(sub) else {
            continue;
        };
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let bytes = std::fs::read(&path).unwrap();
            assert!(exercise(&bytes) > 0, "{}", path.display());
        }
    }
}

#[test]
fn corpus_models_through_the_c_abi() {
    let Some(corpus) = skelmap_testkit::corpus_path("") else {
        return;
    };
    for (dir, file) in [
        ("dpm", "xon_vehicles_spiderbot_top.dpm"),
        ("mdl", "gex4_skeleton.mdl"),
        ("ms3d", "ms3drender_NeHe_Model.ms3d"),
        ("hmp", "assimp_terrain.hmp"),
        ("mdl_quake", "bq_lavaball.mdl"),
        ("mdl", "libgs_mdl2-bush.mdl"),
    ] {
        let bytes = std::fs::read(corpus.join(dir).join(file)).unwrap();
        assert!(exercise(&bytes) > 0, "{file}");
        // Truncations only: the corpus files are large.
        for cut in (0..bytes.len()).step_by(bytes.len() / 200 + 1) {
            let _ = exercise(&bytes[..cut]);
        }
    }
}

/// The `capi` fuzz target's committed seeds (and any regression saved beside them) replay.
#[test]
fn fuzz_seeds_replay() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/seeds/capi");
    let mut replayed = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let bytes = std::fs::read(entry.unwrap().path()).unwrap();
        assert!(exercise(&bytes) > 0);
        replayed += 1;
    }
    assert!(replayed >= 10, "{replayed} seeds in {}", dir.display());
}

/// Regression (the `capi` fuzz smoke run, 2026-11-23): an MS3D with no vertices, posed at rest
/// by the new `skelmap_pose_bind`, skins into an empty packed buffer successfully, as it
/// should; the driver's check took that success for a bad output accepted and panicked.
/// The check now asks only that the capacity holds the mesh and the stride is legal.
#[test]
fn an_empty_mesh_used_to_fail_the_harness_when_skinned_into_nothing() {
    let seed =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/seeds/capi/regress-empty-mesh.ms3d");
    let bytes = std::fs::read(seed).unwrap();
    assert!(exercise(&bytes) > 0);
}

/// Regression (the `capi` fuzz smoke run in CI, 2026-11-27): an MDL7 with bones and no groups
/// has no mesh, yet `skelmap_compact_new` folded it into one mesh of 0 vertices, so compact
/// mesh 0 existed where `skelmap_mesh_info` said model mesh 0 did not, and a zero-capacity
/// output was accepted for it. A compact model now has the model's meshes: none here.
#[test]
fn an_mdl7_without_groups_used_to_compact_into_an_empty_mesh() {
    let seed = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz/seeds/capi/regress-mdl7-without-groups.mdl");
    let bytes = std::fs::read(seed).unwrap();
    assert!(exercise(&bytes) > 0);
    let model = skelmap_core::Model::from_bytes(&bytes).unwrap();
    assert_eq!(model.num_meshes(), 0);
    assert_eq!(model.compact().unwrap().num_meshes(), 0);
}
