//! Exported glTF checked by the Khronos glTF-Validator (npm `gltf-validator`), which this
//! test installs itself into the target directory: `skelmap export` of every shared corpus
//! model and shared IQM (as `.glb`, as `.gltf` + `.bin`, with every influence, and with
//! placeholder files for the textures it names), the SKM conversions of
//! the corpus DPMs, the demo converted into every format skelmap writes and every corpus model
//! converted into an MD3 (each exported again), MDR fixtures (plain and compressed frames),
//! an MD5 with an `.md5scale`, raylib's guy playing its animation-only IQM, a
//! Quake III player as one scene, and `skelmap demo`'s `demo.glb` must have zero errors and
//! zero warnings.
//!
//! Without `npm` on the machine the test skips with a message, unless
//! `SKELMAP_REQUIRE_GLTF_VALIDATOR=1` (set by `.ci/run`) makes that a failure.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use rayon::prelude::*;
use support::glb_json;

/// The validator version the results were checked with.
const VALIDATOR: &str = "gltf-validator@2.0.0-dev.3.10";

/// Runs `skelmap` with `args`, which must succeed; returns its standard error.
fn skelmap(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_skelmap"))
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "skelmap {args:?}: {out:?}");
    String::from_utf8(out.stderr).unwrap()
}

/// Writes a 4 × 4 PNG at `path` (whatever its extension: the decoder reads the bytes),
/// creating its folder.
fn write_texture(path: &Path) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut bytes = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut bytes, 4, 4);
        encoder.set_color(png::ColorType::Rgb);
        let mut writer = encoder.write_header().unwrap();
        writer.write_image_data(&[90; 48]).unwrap();
    }
    std::fs::write(path, bytes).unwrap();
}

/// The first name each `texture not found` warning in `stderr` says was looked for in the
/// model's folder `beside`.
fn missing_textures(stderr: &str, beside: &Path) -> Vec<String> {
    let folders = format!(" in {}", beside.display());
    stderr
        .lines()
        .filter_map(|l| {
            let (names, _) = l.split_once("; looked for ")?.1.split_once(&folders)?;
            names.split(", ").next()
        })
        .map(str::to_string)
        .collect()
}

/// The directory holding `node_modules/gltf-validator`, installed on first use.
fn validator_dir() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("gltf-validator");
    if dir
        .join("node_modules/gltf-validator/package.json")
        .exists()
    {
        return Some(dir);
    }
    let required = std::env::var_os("SKELMAP_REQUIRE_GLTF_VALIDATOR").is_some();
    let npm = Command::new("npm")
        .args(["install", "--no-audit", "--no-fund", "--prefix"])
        .arg(&dir)
        .arg(VALIDATOR)
        .output();
    match npm {
        Ok(out) if out.status.success() => Some(dir),
        other if required => panic!("cannot install {VALIDATOR} with npm: {other:?}"),
        other => {
            eprintln!("skipping: cannot install {VALIDATOR} with npm ({other:?})");
            None
        }
    }
}

/// The MDL7 fixtures: a demo skinned with an embedded DDS file (type `0x16`), and the
/// writer's model whose skeletal frames also replace vertices.
fn mdl7_fixtures() -> [(&'static str, skelmap_core::mdl7::Builder); 2] {
    use skelmap_core::mdl7::{Builder, SkinDef};
    let file = skelmap_testkit::dxt1_4x4(0xF800, 0x001F, [[0, 1, 0, 1]; 4]);
    let mut dds = Builder::demo();
    dds.groups[0].skins = vec![SkinDef::dds(&file, true)];
    for t in &mut dds.groups[0].triangles {
        t.material = 0;
    }
    [("dds", dds), ("mixed", Builder::mixed())]
}

/// `model` exported as `.glb` and `.gltf` (and with placeholder textures where it names
/// missing ones), its `.glb` imported and written again, and the extra files some models get
/// (every influence and an SKM for DPMs, raylib's guy playing its animation-only IQM), into
/// `out`; whether it was also exported with its textures.
fn export_model(model: &Path, out: &Path) -> (Vec<PathBuf>, bool) {
    let o = |name: &str| out.join(name).to_str().unwrap().to_string();
    let mut outputs = Vec::new();
    let mut textured = false;
    let name = model.file_name().unwrap().to_str().unwrap();
    let m = model.to_str().unwrap();
    let warnings = skelmap(&["export", m, "-o", &o(&format!("{name}.glb"))]);
    skelmap(&["export", m, "-o", &o(&format!("{name}.gltf"))]);
    outputs.push(out.join(format!("{name}.glb")));
    outputs.push(out.join(format!("{name}.gltf")));
    // With the textures it names present (placeholders under the names looked for).
    let missing = missing_textures(&warnings, model.parent().unwrap());
    if !missing.is_empty() {
        let folder = out.join(format!("{name}.textures"));
        for texture in &missing {
            write_texture(&folder.join(texture));
        }
        let folder = folder.to_str().unwrap();
        for ext in ["glb", "gltf"] {
            let file = o(&format!("{name}.textured.{ext}"));
            let warnings = skelmap(&["export", m, "--textures", folder, "-o", &file]);
            assert_eq!(warnings, "", "{name} with its textures");
            outputs.push(PathBuf::from(file));
        }
        textured = true;
    }
    // Imported back and written again: glTF from an imported model.
    let again = o(&format!("{name}.again.glb"));
    skelmap(&["convert", &o(&format!("{name}.glb")), &again]);
    outputs.push(PathBuf::from(again));
    if name.ends_with(".dpm") {
        let all = o(&format!("{name}.all.glb"));
        skelmap(&["export", m, "-o", &all, "--all-influences"]);
        outputs.push(PathBuf::from(all));
        let skm = o(&format!("{}.skm", name.trim_end_matches(".dpm")));
        skelmap(&["convert", m, &skm]);
        let glb = format!("{skm}.glb");
        skelmap(&["export", &skm, "-o", &glb]);
        outputs.push(PathBuf::from(glb));
    }
    // An IQM with the animation-only IQM it plays (raylib's guy).
    if name == "raylib_guy.iqm" {
        let anim = model.with_file_name("raylib_guyanim.iqm");
        let glb = o("raylib_guy+anim.glb");
        skelmap(&[
            "export",
            m,
            "--animation",
            anim.to_str().unwrap(),
            "-o",
            &glb,
        ]);
        outputs.push(PathBuf::from(glb));
    }
    (outputs, textured)
}

fn corpus_models() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for sub in ["dpm", "mdl", "hmp", "ms3d", "mdl_quake"] {
        files.extend(skelmap_testkit::corpus_files(sub));
    }
    files.extend(skelmap_testkit::corpus_next_files("iqm"));
    files.extend(skelmap_testkit::corpus_next_files("mdl7"));
    // The shared files of the engine formats skelmap reads (MD2, MD3, MDC, MD5: each mesh
    // with the animations beside it, and each animation alone).
    for sub in ["md2", "md3", "mdc", "md5"] {
        if let Some(dir) = skelmap_testkit::corpus_engines_path(sub) {
            for entry in std::fs::read_dir(dir).unwrap() {
                files.push(entry.unwrap().path());
            }
        }
    }
    // The shared Half-Life models, each with the texture and sequence-group files beside it
    // (those companions are not models of their own: a texture file has no mesh, a group file
    // alone is refused).
    if let Some(dir) = skelmap_testkit::corpus_engines_path("hl1") {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if skelmap_core::Model::open(&path).is_ok_and(|m| m.num_meshes() > 0) {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

#[test]
fn every_export_passes_the_khronos_validator() {
    let Some(validator) = validator_dir() else {
        return;
    };
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("gltf-exports");
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).unwrap();
    let o = |name: &str| out.join(name).to_str().unwrap().to_string();

    skelmap(&["demo", "-o", &o("demo")]);
    let mut outputs = vec![out.join("demo/demo.glb")];
    // A glTF written to standard output: its buffer inside the JSON, as a data URI.
    let piped = Command::new(env!("CARGO_BIN_EXE_skelmap"))
        .args(["export", &o("demo/demo.dpm"), "-o", "-", "--format", "gltf"])
        .output()
        .unwrap();
    assert!(piped.status.success(), "{piped:?}");
    std::fs::write(out.join("piped.gltf"), &piped.stdout).unwrap();
    outputs.push(out.join("piped.gltf"));
    let models = corpus_models();
    // Each model's files on every core: `skelmap` runs hundreds of times here.
    let exported: Vec<(Vec<PathBuf>, bool)> =
        models.par_iter().map(|m| export_model(m, &out)).collect();
    let mut textured_models = 0;
    for (files, textured) in exported {
        outputs.extend(files);
        textured_models += usize::from(textured);
    }

    // Converted models exported again: the demo into every format skelmap writes (baked
    // where the format has no joints), and every corpus model baked into an MD3.
    let formats: Vec<_> = (skelmap_core::Format::ALL.iter())
        .filter(|f| f.writable())
        .collect();
    outputs.extend(
        formats
            .par_iter()
            .map(|format| {
                let ext = format.extension();
                let converted = o(&format!("demo/demo.{}.{ext}", format.docs_page()));
                let page = format.docs_page();
                skelmap(&[
                    "convert",
                    &o("demo/demo.dpm"),
                    &converted,
                    "--bake",
                    "--to",
                    page,
                ]);
                let glb = format!("{converted}.glb");
                skelmap(&["export", &converted, "-o", &glb]);
                PathBuf::from(glb)
            })
            .collect::<Vec<_>>(),
    );
    outputs.extend(
        models
            .par_iter()
            .filter_map(|model| {
                let name = model.file_name().unwrap().to_str().unwrap();
                if skelmap_core::Model::open(model).unwrap().num_meshes() == 0 {
                    return None; // an animation on its own
                }
                let md3 = o(&format!("{name}.md3"));
                skelmap(&["convert", model.to_str().unwrap(), &md3, "--bake"]);
                let glb = format!("{md3}.glb");
                skelmap(&["export", &md3, "-o", &glb]);
                Some(PathBuf::from(glb))
            })
            .collect::<Vec<_>>(),
    );

    // MDR fixtures of issue 56 (no MDR file is public): frames plain and compressed, a tag,
    // two levels of detail.
    let plain = skelmap_core::mdr::Builder::triangle();
    let compressed = skelmap_core::mdr::Builder {
        compressed: true,
        ..skelmap_core::mdr::Builder::triangle()
    };
    for (name, builder) in [("plain", plain), ("compressed", compressed)] {
        let model = out.join(format!("{name}.mdr"));
        std::fs::write(&model, builder.write()).unwrap();
        let glb = out.join(format!("{name}_mdr.glb"));
        skelmap(&[
            "export",
            model.to_str().unwrap(),
            "-o",
            glb.to_str().unwrap(),
        ]);
        outputs.push(glb);
    }

    // An MDM with its MDX beside it (issue 56: no MDM file is public): a tag on a bone.
    let (mdm, mdx) = skelmap_core::mdm::Builder::triangle().write();
    let model = out.join("triangle.mdm");
    std::fs::write(&model, mdm).unwrap();
    std::fs::write(out.join("triangle.mdx"), mdx).unwrap();
    let glb = out.join("triangle_mdm.glb");
    skelmap(&[
        "export",
        model.to_str().unwrap(),
        "-o",
        glb.to_str().unwrap(),
    ]);
    outputs.push(glb);

    // An MD5 whose animation has a `.md5scale` (issue 55): the skin scale a leaf joint's
    // scale keys.
    let md5 = out.join("skin_scale");
    std::fs::create_dir_all(&md5).unwrap();
    let mesh = support::write_md5_with_skin_scale(&md5);
    let glb = out.join("skin_scale_md5.glb");
    skelmap(&[
        "export",
        mesh.to_str().unwrap(),
        "-o",
        glb.to_str().unwrap(),
    ]);
    let json = glb_json(&glb);
    let names: Vec<&str> = (json["nodes"].as_array().unwrap().iter())
        .filter_map(|n| n["name"].as_str())
        .collect();
    assert!(names.contains(&"arm_skin"), "{names:?}");
    outputs.push(glb);

    // MDL7 fixtures of issue 52: embedded DDS skins (one DXT1 block: its texture embedded as
    // a PNG) and skeletal frames that also replace vertices (baked as morph targets).
    for (name, builder) in mdl7_fixtures() {
        let model = out.join(format!("{name}.mdl"));
        std::fs::write(&model, builder.write()).unwrap();
        let glb = out.join(format!("{name}.glb"));
        skelmap(&[
            "export",
            model.to_str().unwrap(),
            "-o",
            glb.to_str().unwrap(),
        ]);
        let json = glb_json(&glb);
        if name == "dds" {
            assert_eq!(json["images"].as_array().map(Vec::len), Some(1), "{json}");
            assert_eq!(json["images"][0]["mimeType"], "image/png");
            assert_eq!(
                json["materials"][0]["pbrMetallicRoughness"]["baseColorTexture"]["index"],
                0
            );
        } else {
            assert_eq!(
                json["meshes"][0]["primitives"][0]["targets"]
                    .as_array()
                    .map(Vec::len),
                Some(6)
            );
        }
        outputs.push(glb);
    }

    // A Quake III player as one scene (the synthetic one), with a weapon, as `.glb` and as
    // `.gltf`, every clip set and one chosen.
    let player = out.join("player");
    std::fs::create_dir_all(&player).unwrap();
    skelmap_core::synth::player(2).write_to(&player).unwrap();
    let weapon = player.join("weapon.md3");
    std::fs::write(&weapon, skelmap_core::md3::Builder::triangle().write()).unwrap();
    let (p, w) = (player.to_str().unwrap(), weapon.to_str().unwrap());
    for (name, extra) in [
        ("player.glb", vec!["--weapon", w]),
        ("player.gltf", vec![]),
        ("player-run.glb", vec!["--play", "legs_run,torso_attack"]),
    ] {
        let mut args = vec!["export", p, "-o"];
        let to = o(name);
        args.push(&to);
        args.extend(extra);
        skelmap(&args);
        outputs.push(out.join(name));
    }
    let json = glb_json(&out.join("player-run.glb"));
    assert_eq!(json["animations"][0]["name"], "legs_run+torso_attack");

    // The validator in one Node process per core, each on its share of the files.
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/gltf_validator.js");
    let share = outputs.len().div_ceil(rayon::current_num_threads());
    let reports: Vec<String> = outputs
        .par_chunks(share.max(1))
        .map(|files| {
            let report = Command::new("node")
                .arg(&script)
                .args(files)
                .env("GLTF_VALIDATOR_DIR", &validator)
                .output()
                .unwrap();
            assert!(report.status.success(), "{report:?}");
            String::from_utf8(report.stdout).unwrap()
        })
        .collect();
    let lines: Vec<serde_json::Value> = (reports.iter().flat_map(|r| r.lines()))
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), outputs.len());
    for line in &lines {
        assert_eq!(line["errors"], 0, "{line}");
        assert_eq!(line["warnings"], 0, "{line}");
    }
    eprintln!(
        "{} files from {} corpus models ({textured_models} also with their textures) and the \
         demo: 0 errors, 0 warnings",
        lines.len(),
        models.len()
    );
}
