//! `skelmap bench --json` holds to its committed JSON Schema (`schema/bench.schema.json`) on a
//! skeletal model and on a vertex-animated one, with the fields each kind must have; on a
//! model whose pose scales, the dual-quaternion lines refuse, with the reason, instead of
//! timing an early return.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

const SCHEMA: &str = include_str!("../schema/bench.schema.json");

fn run(file: &PathBuf, json: bool) -> std::process::Output {
    let out = Command::new(env!("CARGO_BIN_EXE_skelmap"))
        .args(["bench", "--seconds", "0.01", "-j", "2"])
        .args(json.then_some("--json"))
        .arg(file)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    out
}

fn bench(file: &PathBuf) -> Value {
    serde_json::from_slice(&run(file, true).stdout).expect("bench --json prints one JSON object")
}

fn validator() -> jsonschema::Validator {
    let schema: Value = serde_json::from_str(SCHEMA).unwrap();
    jsonschema::draft202012::meta::validate(&schema).expect("a 2020-12 schema");
    jsonschema::draft202012::new(&schema).unwrap()
}

fn schema_errors(validator: &jsonschema::Validator, report: &Value) -> Vec<String> {
    validator
        .iter_errors(report)
        .map(|e| format!("{} (at {}): {e}", e.instance_path(), e.schema_path()))
        .collect()
}

/// `iqm::Builder::demo` scales its head joint by 1.4 along X at frame 2, the frame `bench`
/// skins (`frames / 2` of 4): both dual-quaternion lines refuse it, on every thread count,
/// naming the joint and its scale, in the JSON and in the table; every other line is timed.
#[test]
fn bench_says_why_the_dual_quaternion_lines_refuse_a_pose_that_scales() {
    let dir = tempfile::Builder::new()
        .prefix("skelmap-bench-scale-")
        .tempdir()
        .unwrap();
    let dir = dir.path();
    let iqm = dir.join("scaled.iqm");
    std::fs::write(&iqm, skelmap_core::iqm::Builder::demo().write().unwrap()).unwrap();
    let report = bench(&iqm);
    let errors = schema_errors(&validator(), &report);
    assert!(errors.is_empty(), "{errors:#?}");
    let kernels = report["kernels"].as_array().unwrap();
    // Frame 2's scale, 1.4, through 16-bit channels: "1.4" or a rounding of it.
    let reason = "bone 2 scales by 1.";
    let dqs: Vec<&Value> = kernels
        .iter()
        .filter(|k| k["name"].as_str().unwrap().contains("dqs"))
        .collect();
    // `dqs` (records) and `compact dqs <level>`, each on 1 and 2 threads.
    assert_eq!(dqs.len(), 4, "{kernels:#?}");
    for k in &dqs {
        let refused = k["refused"].as_str().unwrap();
        assert!(refused.contains(reason), "{refused}");
        assert!(
            refused.contains("dual quaternions cannot express scale"),
            "{refused}"
        );
        assert!(k.get("vertices_per_s").is_none(), "{k}");
    }
    let others: Vec<&Value> = kernels
        .iter()
        .filter(|k| !k["name"].as_str().unwrap().contains("dqs"))
        .collect();
    assert!(others.len() >= 8, "{kernels:#?}");
    assert!(
        others
            .iter()
            .all(|k| k["vertices_per_s"].as_f64().unwrap() > 0.0
                && k["above_roofline"].is_boolean()
                && k.get("refused").is_none())
    );
    // The table: one refusal line per kernel, in place of its rates.
    let text = String::from_utf8(run(&iqm, false).stdout).unwrap();
    let refusals: Vec<&str> = text.lines().filter(|l| l.contains("refused: ")).collect();
    assert_eq!(refusals.len(), 2, "{text}");
    assert!(refusals.iter().all(|l| l.contains(reason)), "{text}");
    assert!(refusals.iter().any(|l| l.starts_with("dqs ")), "{text}");
    assert!(
        refusals.iter().any(|l| l.starts_with("compact dqs ")),
        "{text}"
    );
    assert!(!text.lines().last().unwrap().contains("dqs"), "{text}");
}

#[test]
fn bench_json_matches_its_schema_for_skeletal_and_vertex_animated_models() {
    let validator = validator();
    let dir = tempfile::Builder::new()
        .prefix("skelmap-bench-json-")
        .tempdir()
        .unwrap();
    let dir = dir.path();
    let dpm = dir.join("tube.dpm");
    let tube = skelmap_core::synth::tube(&skelmap_core::synth::TubeParams::default());
    std::fs::write(&dpm, tube.write().unwrap()).unwrap();
    let quake = dir.join("triangle.mdl");
    std::fs::write(&quake, skelmap_core::quake::Builder::triangle().write()).unwrap();
    for (file, skeletal) in [(&dpm, true), (&quake, false)] {
        let report = bench(file);
        let errors = schema_errors(&validator, &report);
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
}
