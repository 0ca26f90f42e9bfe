//! `skelmap bench --json` holds to its committed JSON Schema (`schema/bench.schema.json`) on a
//! skeletal model and on a vertex-animated one, with the fields each kind must have.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

const SCHEMA: &str = include_str!("../schema/bench.schema.json");

fn bench(file: &PathBuf) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_skelmap"))
        .args(["bench", "--json", "--seconds", "0.01", "-j", "2"])
        .arg(file)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    serde_json::from_slice(&out.stdout).expect("bench --json prints one JSON object")
}

#[test]
fn bench_json_matches_its_schema_for_skeletal_and_vertex_animated_models() {
    let schema: Value = serde_json::from_str(SCHEMA).unwrap();
    jsonschema::draft202012::meta::validate(&schema).expect("a 2020-12 schema");
    let validator = jsonschema::draft202012::new(&schema).unwrap();
    let dir = std::env::temp_dir().join(format!("skelmap-bench-json-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let dpm = dir.join("tube.dpm");
    let tube = skelmap_core::synth::tube(&skelmap_core::synth::TubeParams::default());
    std::fs::write(&dpm, tube.write().unwrap()).unwrap();
    let quake = dir.join("triangle.mdl");
    std::fs::write(&quake, skelmap_core::quake::Builder::triangle().write()).unwrap();
    for (file, skeletal) in [(&dpm, true), (&quake, false)] {
        let report = bench(file);
        let errors: Vec<String> = validator
            .iter_errors(&report)
            .map(|e| format!("{} (at {}): {e}", e.instance_path(), e.schema_path()))
            .collect();
        assert!(errors.is_empty(), "{}: {errors:#?}", file.display());
        assert!(report["open"]["gbps"].as_f64().unwrap() > 0.0);
        assert!(report["open"]["read_gbps"].as_f64().unwrap() > 0.0);
        let kernels = report["kernels"].as_array().unwrap();
        assert!(!kernels.is_empty());
        assert!(
            kernels
                .iter()
                .all(|k| k["vertices_per_s"].as_f64().unwrap() > 0.0)
        );
        if skeletal {
            assert!(report["pose"]["file_ns_per_bone"].as_f64().unwrap() > 0.0);
            assert!(report["morph"].is_null());
            assert!(kernels.iter().any(|k| k["layout"] == "prepared"));
            assert!(kernels.iter().any(|k| k["layout"] == "compact"));
        } else {
            assert!(report["pose"].is_null());
            assert!(report["morph"]["scalar"].as_f64().unwrap() > 0.0);
            assert!(report["morph"]["simd"].as_f64().unwrap() > 0.0);
            assert!(kernels.iter().all(|k| k["layout"] == "frames"));
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
