//! `skelmap info --json` as a contract: numbers, not prose, in the shape
//! `schema/info.schema.json` (JSON Schema 2020-12) commits to. Every corpus model's output and a
//! synthetic model of every format are validated against it, and the schema is shown strict
//! enough to refuse the old prose skins.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{Value, json};
use skelmap_core::gamestudio;
use skelmap_core::gamestudio::write::{MdlFrameDef, SkinDef};
use tempfile::TempDir;

const SCHEMA: &str = include_str!("../schema/info.schema.json");

fn schema() -> Value {
    serde_json::from_str(SCHEMA).expect("schema/info.schema.json is JSON")
}

fn validator() -> jsonschema::Validator {
    jsonschema::draft202012::new(&schema()).expect("schema/info.schema.json compiles")
}

/// Every way `output` breaks the schema, one line each (empty when it conforms).
fn violations(validator: &jsonschema::Validator, output: &Value) -> Vec<String> {
    validator
        .iter_errors(output)
        .map(|e| format!("{} (at {}): {e}", e.instance_path(), e.schema_path()))
        .collect()
}

fn skelmap(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_skelmap"))
        .args(args)
        .output()
        .unwrap()
}

/// `info --json` of `path`: the parsed output, or the process's output when it failed.
fn info_json(path: &Path) -> Result<Value, Output> {
    let out = skelmap(&["info", path.to_str().unwrap(), "--json"]);
    if !out.status.success() {
        return Err(out);
    }
    let text = String::from_utf8(out.stdout.clone()).unwrap();
    Ok(serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("{}: info --json is not JSON ({e}):\n{text}", path.display())))
}

fn info_text(path: &Path) -> String {
    let out = skelmap(&["info", path.to_str().unwrap()]);
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stdout).unwrap()
}

/// A fresh folder for one test, removed with its files when the returned value drops (also
/// when the test panics).
fn temp_dir(name: &str) -> TempDir {
    tempfile::Builder::new()
        .prefix(&format!("skelmap-cli-schema-{name}-"))
        .tempdir()
        .unwrap()
}

/// The vertex-animated formats: one mesh, and a list of skins. GameStudio's MDL (MDL2 too)
/// and HMP, and Quake's MDL; not the SL engine's skeletal "SL mdl".
fn one_mesh_with_skins(format: &str) -> bool {
    matches!(format, "MDL" | "HMP" | "Quake MDL")
}

/// Every model file of the corpus: each folder but `oracle/` (assimp's outputs, not models).
fn corpus_models() -> Vec<PathBuf> {
    let Some(root) = skelmap_testkit::corpus_path("") else {
        return Vec::new();
    };
    let mut folders: Vec<String> = std::fs::read_dir(&root)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name != "oracle")
        .collect();
    folders.sort();
    let mut files: Vec<PathBuf> = folders
        .iter()
        .flat_map(|folder| skelmap_testkit::corpus_files(folder))
        .collect();
    // The formats added later, kept in corpus-next.
    files.extend(skelmap_testkit::corpus_next_files("iqm"));
    files.extend(skelmap_testkit::corpus_next_files("mdl7"));
    files
}

#[test]
fn the_schema_is_a_valid_draft_2020_12_schema() {
    let schema = schema();
    if let Err(e) = jsonschema::draft202012::meta::validate(&schema) {
        panic!("schema/info.schema.json is not a 2020-12 schema: {e}");
    }
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
}

/// Every corpus model (Quake's and MDL2 included) opens, and its `info --json` matches the
/// schema; an MDL, HMP or Quake MDL is one mesh and lists its skins.
#[test]
fn every_corpus_model_matches_the_info_schema() {
    let files = corpus_models();
    if files.is_empty() {
        return; // corpus_models has said why (or panicked under SKELMAP_REQUIRE_CORPUS=1).
    }
    let validator = validator();
    let mut broken = Vec::new();
    for path in &files {
        let output = match info_json(path) {
            Ok(output) => output,
            Err(out) => {
                let stderr = String::from_utf8_lossy(&out.stderr);
                broken.push(format!(
                    "{}: info failed: {}",
                    path.display(),
                    stderr.trim()
                ));
                continue;
            }
        };
        for v in violations(&validator, &output) {
            broken.push(format!("{}: {v}", path.display()));
        }
        if one_mesh_with_skins(output["format"].as_str().unwrap_or_default()) {
            if output["meshes"] != 1 || output["mesh_list"].as_array().map(Vec::len) != Some(1) {
                broken.push(format!(
                    "{}: a vertex-animated model is one mesh",
                    path.display()
                ));
            }
            if !output["skins"].is_array() {
                broken.push(format!(
                    "{}: a vertex-animated model lists its skins",
                    path.display()
                ));
            }
        }
    }
    assert!(broken.is_empty(), "{}", broken.join("\n"));
    eprintln!("info --json: {} corpus files match the schema", files.len());
}

/// `gpu_error`: the four choices, as fractions with RMS at most the largest, for every corpus
/// model with bones and vertices; `null` for the others; the text prints it on one line.
#[test]
fn info_reports_the_gpu_error_of_skeletal_models() {
    let files = corpus_models();
    let mut skeletal = 0;
    for path in &files {
        let output = info_json(path).unwrap();
        let gpu = &output["gpu_error"];
        let has = output["bones"].as_u64() > Some(0)
            && output["vertices"].as_u64() > Some(0)
            && !one_mesh_with_skins(output["format"].as_str().unwrap());
        assert_eq!(gpu.is_object(), has, "{}: {gpu}", path.display());
        if !has {
            assert!(gpu.is_null(), "{}", path.display());
            continue;
        }
        skeletal += 1;
        // Every corpus model is within the budget: every frame measured.
        let frames = output["frames"].as_u64().unwrap().max(1);
        assert_eq!(
            (gpu["frames"].as_u64(), gpu["of_frames"].as_u64()),
            (Some(frames), Some(frames)),
            "{}: {gpu}",
            path.display()
        );
        for choice in ["top4_unorm8", "top4_unorm16", "top8_unorm8", "top8_unorm16"] {
            let (max, rms) = (
                gpu[choice]["max"].as_f64().unwrap(),
                gpu[choice]["rms"].as_f64().unwrap(),
            );
            assert!(
                (0.0..1.0).contains(&max) && rms <= max,
                "{}: {gpu}",
                path.display()
            );
        }
        let text = info_text(path);
        let lines: Vec<&str> = text
            .lines()
            .filter(|l| l.trim_start().starts_with("GPU skinning error"))
            .collect();
        assert_eq!(lines.len(), 1, "{}:\n{text}", path.display());
        assert!(lines[0].contains("top-8 unorm8"), "{}", lines[0]);
    }
    if !files.is_empty() {
        // 10 DPMs, 3 MS3Ds with joints, 2 IQMs with vertices, the MDL7 player.
        assert_eq!(skeletal, 16);
    }
}

/// A two-triangle MDL5 with one 8×8 RGB565 skin with mips.
fn quad_mdl() -> Vec<u8> {
    let frame = |name: &[u8]| MdlFrameDef {
        frame_type: 2,
        name: name.to_vec(),
        vertices: vec![
            ([0, 0, 0], 5),
            ([10, 0, 0], 5),
            ([0, 10, 0], 5),
            ([10, 10, 0], 5),
        ],
    };
    gamestudio::MdlBuilder {
        skins: vec![SkinDef {
            code: 2 + 8,
            width: 8,
            height: 8,
            data: vec![0xF8; 2 * (64 + 16 + 4 + 1)],
        }],
        skin_vertices: vec![[0, 0], [8, 0], [0, 8], [8, 8]],
        triangles: vec![([0, 1, 3], [0, 1, 3]), ([0, 3, 2], [0, 3, 2])],
        frames: vec![frame(b"stand1"), frame(b"stand2")],
        ..gamestudio::MdlBuilder::default()
    }
    .write()
}

/// A 2×2 HMP7 terrain with a skin of every kind: texels, an external name, a reference, texels
/// with mips and a material, a DDS file, and a material with its text definition but no texels.
fn skinned_hmp() -> Vec<u8> {
    let material = vec![0u8; 68]; // 17 zero floats: finite.
    let mut definition = material.clone();
    definition.extend_from_slice(&5i32.to_le_bytes());
    definition.extend_from_slice(b"shine");
    let skin = |code, width, height, data| SkinDef {
        code,
        width,
        height,
        data,
    };
    gamestudio::HmpBuilder {
        row: 2.0,
        skins: vec![
            skin(2, 2, 2, vec![0; 8]),
            skin(7, 9, 1, b"bark.tga\0".to_vec()),
            skin(1, 0, 0, Vec::new()),
            skin(
                4 | 0x08 | 0x10,
                8,
                8,
                [vec![0; 3 * (64 + 16 + 4 + 1)], material].concat(),
            ),
            skin(6, 4, 0, b"DDS ".to_vec()),
            skin(2 | 0x10 | 0x20, 0, 0, definition),
        ],
        frames: vec![vec![(10, [0, 0]); 4]],
        ..gamestudio::HmpBuilder::default()
    }
    .write()
}

/// Writes a model of every format the CLI reads (and the companions that change its output) to
/// `dir`, and returns the files `info` is pointed at.
fn synthetic_models(dir: &Path) -> Vec<PathBuf> {
    use skelmap_core::synth::{TubeParams, sl_twist, tube};
    let write = |name: &str, bytes: &[u8]| {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    };
    let dpm = write("tube.dpm", &tube(&TubeParams::default()).write().unwrap());
    let skm = dir.join("tube_skm.skm");
    let out = skelmap(&["convert", dpm.to_str().unwrap(), skm.to_str().unwrap()]);
    assert!(out.status.success(), "{out:?}");
    // A sidecar that names the groups: `groups_from` becomes "framegroups file".
    let grouped = write("grouped.dpm", &std::fs::read(&dpm).unwrap());
    write(
        "grouped.dpm.framegroups",
        b"0 1 10 0 // bind\n1 8 15 1 // wave\n",
    );
    let ms3d = skelmap_core::ms3d::Builder {
        vertices: vec![([0.0; 3], -1), ([1.0, 0.0, 0.0], -1), ([0.0, 1.0, 0.0], -1)],
        triangles: vec![skelmap_core::ms3d::write::triangle(
            [0, 1, 2],
            [0.0, 0.0, 1.0],
            [[0.0; 2]; 3],
            0,
        )],
        ..skelmap_core::ms3d::Builder::default()
    }
    .write()
    .unwrap();
    // An MD3 with a tag: its attachment list names it, placed by frame 0.
    let mut md3 = skelmap_core::md3::Builder::triangle();
    md3.tags = vec![vec![skelmap_core::md3::write::TagDef::at(
        "tag_weapon",
        [2.0, 0.0, 1.0],
    )]];
    let md3 = write("tagged.md3", &md3.write());
    let (sl_mdl, sl_anim) = sl_twist(2, 4, 90.0);
    let twist = write("twist.mdl", &sl_mdl.write());
    let anim = write("twist.anim", &sl_anim.write());
    vec![
        dpm,
        grouped,
        skm,
        dir.join("tube_skm.skp"),
        write("arm.ms3d", &ms3d),
        write("quad.mdl", &quad_mdl()),
        write("field.hmp", &skinned_hmp()),
        twist,
        anim,
        md3,
    ]
}

#[test]
fn a_synthetic_model_of_every_format_matches_the_info_schema() {
    let dir = temp_dir("synthetic");
    let dir = dir.path();
    let validator = validator();
    let mut formats = BTreeSet::new();
    for path in synthetic_models(dir) {
        let output = info_json(&path).unwrap_or_else(|out| panic!("{}: {out:?}", path.display()));
        let errors = violations(&validator, &output);
        assert!(
            errors.is_empty(),
            "{}:\n{}",
            path.display(),
            errors.join("\n")
        );
        formats.insert(output["format"].as_str().unwrap().to_string());
        match path.file_name().unwrap().to_str().unwrap() {
            "tube_skm.skm" => assert_eq!(output["skeleton"], "tube_skm.skp"),
            "grouped.dpm" => assert_eq!(output["groups_from"], "framegroups file"),
            "twist.mdl" => assert!(output["animation"].is_string(), "{output}"),
            "quad.mdl" | "field.hmp" => assert_eq!(output["meshes"], 1),
            "tagged.md3" => {
                assert_eq!(output["attachments"], 1);
                assert_eq!(
                    output["attachment_list"],
                    json!([{
                        "name": "tag_weapon",
                        "kind": "tag",
                        "index": 0,
                        "origin": [2.0, 0.0, 1.0],
                        "axes": [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
                    }])
                );
            }
            "tube.dpm" => {
                assert_eq!(output["attachments"], 1);
                assert_eq!(output["attachment_list"][0]["name"], "seg3");
                assert_eq!(output["attachment_list"][0]["kind"], "bone");
                assert_eq!(output["attachment_list"][0]["index"], 3);
            }
            _ => {}
        }
    }
    let expected = [
        "DPM", "HMP", "MD3", "MDL", "MS3D", "SKM", "SKP", "SL anim", "SL mdl",
    ];
    assert_eq!(formats, expected.iter().map(|f| f.to_string()).collect());
}

/// Each skin is an object of numbers (it used to be a sentence such as
/// "type 2, Rgb565, 1272 × 1114, 1 level(s)"), and the text output gives each its own line.
#[test]
fn info_gives_each_skin_as_numbers_and_as_one_line() {
    let dir = temp_dir("skins");
    let dir = dir.path();
    let hmp = dir.join("field.hmp");
    std::fs::write(&hmp, skinned_hmp()).unwrap();
    let output = info_json(&hmp).unwrap();
    let skin = |code: i32, format: &str, [width, height, levels]: [u32; 3]| {
        json!({
            "type": code, "format": format, "width": width, "height": height, "levels": levels,
            "external": null, "reference": null, "material": false, "definition_bytes": null,
        })
    };
    let mut external = skin(7, "external", [0, 0, 0]);
    external["external"] = json!("bark.tga");
    let mut reference = skin(1, "reference", [0, 0, 0]);
    reference["reference"] = json!(0);
    let mut mips = skin(0x1C, "rgb888", [8, 8, 4]);
    mips["material"] = json!(true);
    let mut definition = skin(0x32, "rgb565", [0, 0, 0]);
    definition["material"] = json!(true);
    definition["definition_bytes"] = json!(5);
    assert_eq!(
        output["skins"],
        json!([
            skin(2, "rgb565", [2, 2, 1]),
            external,
            reference,
            mips,
            skin(6, "dds", [0, 0, 1]),
            definition,
        ])
    );

    let text = info_text(&hmp);
    for line in [
        "  skin 0: rgb565 2 × 2, 1 level\n",
        "  skin 1: external \"bark.tga\"\n",
        "  skin 2: reference to skin 0\n",
        "  skin 3: rgb888 8 × 8, 4 levels, material\n",
        "  skin 4: dds (embedded file)\n",
        "  skin 5: rgb565, no texels, material, material definition (5 bytes)\n",
    ] {
        assert!(text.contains(line), "{line:?} missing from:\n{text}");
    }
    assert!(
        !text.contains("level(s)") && !text.contains("skins:"),
        "{text}"
    );

    let mdl = dir.join("quad.mdl");
    std::fs::write(&mdl, quad_mdl()).unwrap();
    assert!(info_text(&mdl).contains("  skin 0: rgb565 8 × 8, 4 levels\n"));
    assert_eq!(info_json(&mdl).unwrap()["skins"][0]["type"], 10);

    // A terrain without skins says so, in both renderings.
    let bare = dir.join("bare.hmp");
    let bytes = gamestudio::HmpBuilder {
        row: 2.0,
        frames: vec![vec![(10, [0, 0]); 4]],
        ..gamestudio::HmpBuilder::default()
    }
    .write();
    std::fs::write(&bare, bytes).unwrap();
    assert!(info_text(&bare).contains("  skins: none\n"));
    assert_eq!(info_json(&bare).unwrap()["skins"], json!([]));
}

/// The schema is strict: the old prose skin, a count given as a string, a fraction where a
/// count belongs, a field it does not know, a missing field and an external skin without its
/// name are each refused.
#[test]
fn the_schema_refuses_prose_and_drift() {
    let dir = temp_dir("strict");
    let dir = dir.path();
    let hmp = dir.join("field.hmp");
    std::fs::write(&hmp, skinned_hmp()).unwrap();
    let good = info_json(&hmp).unwrap();
    let validator = validator();
    assert!(violations(&validator, &good).is_empty());
    type Break = fn(&mut Value);
    let broken: [(&str, Break); 7] = [
        ("a skin as a sentence", |v| {
            v["skins"][0] = json!("type 2, Rgb565, 2 × 2, 1 level(s)");
        }),
        ("a count as a string", |v| v["bones"] = json!("0")),
        ("a fractional width", |v| {
            v["skins"][0]["width"] = json!(2.5)
        }),
        ("an unknown field", |v| v["colour"] = json!("red")),
        ("an unknown skin field", |v| {
            v["skins"][0]["mips"] = json!(true)
        }),
        ("a missing count", |v| {
            v.as_object_mut().unwrap().remove("meshes");
        }),
        ("an external skin without its name", |v| {
            v["skins"][1]["external"] = Value::Null;
        }),
    ];
    for (what, mutate) in broken {
        let mut output = good.clone();
        mutate(&mut output);
        assert!(
            !validator.is_valid(&output),
            "the schema accepts {what}: {output}"
        );
    }
}
