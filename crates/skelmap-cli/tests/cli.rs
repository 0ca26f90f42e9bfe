//! The `skelmap` binary as a user runs it: exit codes, output lines, JSON numbers.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use skelmap_core::Parse;
use std::path::Path;
use std::process::Command;

use skelmap_core::synth::{TubeParams, tube};
use support::{
    glb_json, largest_conversion_error, pixels, skelmap, stderr, stdout, temp_dir, write_character,
    write_md5_with_skin_scale, write_tube,
};

#[test]
fn demo_writes_validates_exports_and_renders() {
    let dir = temp_dir("demo");
    let dir = dir.path();
    let out = skelmap(&["demo", "-o", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{out:?}");
    let text = stdout(&out);
    for expected in [
        "a procedural 8-bone creature, 1560 vertices, 3072 triangles, 37 frames",
        "demo.dpm (215612 bytes): valid, 0 warnings",
        "valid and paired, 0 warnings",
        "animations: bind (1 frames), wave (12 frames), curl (12 frames), swirl (12 frames)",
        "DPM: skinned all 37 frames",
        "SKM: skinned all 37 frames",
        "DPM and SKM skin to the same positions on every frame",
        "8 joints, 4 animations",
        "demo.png (1024 × 768)",
    ] {
        assert!(
            text.contains(expected),
            "{expected:?} missing from:\n{text}"
        );
    }
    let dpm = std::fs::read(dir.join("demo.dpm")).unwrap();
    let model = skelmap_core::dpm::Dpm::parse(&dpm).unwrap();
    assert_eq!((model.num_bones(), model.num_frames()), (8, 37));
    for name in ["demo.skm", "demo.skp", "demo.glb", "demo.png"] {
        assert!(
            std::fs::metadata(dir.join(name)).unwrap().len() > 1000,
            "{name}"
        );
    }
    assert_eq!(&std::fs::read(dir.join("demo.glb")).unwrap()[..4], b"glTF");
}

#[test]
fn info_json_reports_the_counts() {
    let dir = temp_dir("json");
    let dir = dir.path();
    let path = write_tube(dir);
    let out = skelmap(&["info", path.to_str().unwrap(), "--json"]);
    assert!(out.status.success(), "{out:?}");
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(v["format"], "DPM");
    assert_eq!(
        [
            &v["bones"],
            &v["meshes"],
            &v["frames"],
            &v["vertices"],
            &v["triangles"]
        ],
        [4, 1, 9, 136, 256]
    );
    assert_eq!(v["mesh_list"][0]["vertices"], 136);
    assert_eq!(v["bone_list"][3]["attachment"], true);
    assert_eq!(v["frame_names"][8], "wave_8");
    assert_eq!(v["diagnostics"].as_array().unwrap().len(), 0);
}

/// A model whose names are GBK (saved on Chinese Windows): `info` says so and shows them as
/// text, and `convert` stores them in GBK again.
#[test]
fn info_names_the_code_page_and_convert_keeps_it() {
    let dir = temp_dir("gbk");
    let dir = dir.path();
    let arm: &[u8] = &[0xCA, 0xD6, 0xB1, 0xDB]; // 手臂
    let mut b = tube(&TubeParams::default());
    // The tube's attachment bone, so that `convert` matches it by name.
    b.bones[3].name = arm.to_vec();
    let path = dir.join("tube.dpm");
    std::fs::write(&path, b.write().unwrap()).unwrap();
    let out = skelmap(&["info", path.to_str().unwrap(), "--json"]);
    assert!(out.status.success(), "{out:?}");
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(v["code_page"], "GBK");
    assert_eq!(v["bone_list"][3]["name"], "\u{624b}\u{81c2}");
    let out = skelmap(&["info", path.to_str().unwrap()]);
    assert!(
        stdout(&out).contains("\n  names in GBK\n"),
        "{}",
        stdout(&out)
    );
    let ms3d = dir.join("tube.ms3d");
    let out = skelmap(&["convert", path.to_str().unwrap(), ms3d.to_str().unwrap()]);
    assert!(out.status.success(), "{out:?}");
    let written = std::fs::read(&ms3d).unwrap();
    assert!(written.windows(arm.len()).any(|w| w == arm));
    // `--names utf-8` stores them in UTF-8 instead; the attachment is still matched, by
    // its name as text.
    let utf8_out = dir.join("utf8.ms3d");
    let out = skelmap(&[
        "convert",
        path.to_str().unwrap(),
        utf8_out.to_str().unwrap(),
        "--names",
        "utf-8",
    ]);
    assert!(out.status.success(), "{out:?}");
    assert!(
        stdout(&out).contains("attachment points: 1 of 1 kept"),
        "{}",
        stdout(&out)
    );
    let written = std::fs::read(&utf8_out).unwrap();
    let utf8 = "\u{624b}\u{81c2}".as_bytes();
    assert!(written.windows(utf8.len()).any(|w| w == utf8));
    assert!(!written.windows(arm.len()).any(|w| w == arm));
    let out = skelmap(&[
        "convert",
        path.to_str().unwrap(),
        utf8_out.to_str().unwrap(),
        "--names",
        "latin1",
    ]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    // A model whose names are UTF-8 says nothing of it.
    let utf8 = write_tube(dir);
    let out = skelmap(&["info", utf8.to_str().unwrap()]);
    assert!(!stdout(&out).contains("names in"), "{}", stdout(&out));
}

#[test]
fn info_json_on_a_corpus_model() {
    let Some(path) = skelmap_testkit::corpus_path("dpm/xon_monsters_golem.dpm") else {
        return;
    };
    let out = skelmap(&["info", path.to_str().unwrap(), "--json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(
        [
            &v["bones"],
            &v["meshes"],
            &v["frames"],
            &v["vertices"],
            &v["triangles"],
            &v["roots"]
        ],
        [63, 1, 703, 8507, 7300, 8]
    );
    assert_eq!(v["max_influences_per_vertex"], 7);
}

#[test]
fn validate_reports_each_file_and_fails_if_any_fails() {
    let dir = temp_dir("validate");
    let dir = dir.path();
    let good = write_tube(dir);
    let mut bytes = std::fs::read(&good).unwrap();
    bytes[152..156].copy_from_slice(&(-7i32).to_be_bytes()); // bone 1 . parent
    let broken = dir.join("broken.dpm");
    std::fs::write(&broken, &bytes).unwrap();
    let garbage = dir.join("garbage.bin");
    std::fs::write(&garbage, b"not a model at all").unwrap();
    let missing = dir.join("missing.dpm");

    let args = [&good, &broken, &garbage, &missing].map(|p| p.to_str().unwrap().to_string());
    let out = skelmap(&["validate", &args[0], &args[1], &args[2], &args[3]]);
    assert_eq!(out.status.code(), Some(1));
    let lines: Vec<String> = stdout(&out).lines().map(str::to_string).collect();
    assert_eq!(lines.len(), 11, "{lines:?}");
    assert!(lines[0].starts_with("OK    "));
    assert!(lines[1].ends_with(
        "DPM: invalid bone.parent at offset 152: bone 1 has parent -7; it must be -1 or an earlier bone"
    ), "{}", lines[1]);
    assert!(lines[2].ends_with("unrecognised file: the first bytes match no supported format"));
    assert!(lines[3].starts_with("FAIL  cannot read "), "{}", lines[3]);
    // The summary table: one row per format (by magic), files of none by why, then the total.
    assert_eq!(
        lines[5..].to_vec(),
        [
            "format        files     ok  warnings  failed",
            "DPM               2      1         0       1",
            "unreadable        1      0         0       1",
            "unrecognised      1      0         0       1",
            "total             4      1         0       3",
            "1 passed, 3 failed",
        ]
    );
    // Piped: no colour codes, no progress bar.
    assert!(!stdout(&out).contains('\x1b') && out.stderr.is_empty());

    let out = skelmap(&["validate", &args[0]]);
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn info_on_a_broken_file_prints_one_error_line() {
    let dir = temp_dir("broken");
    let dir = dir.path();
    let path = dir.join("short.dpm");
    std::fs::write(&path, b"DARKPLACESMODEL\0\0\0\0\x02").unwrap();
    let out = skelmap(&["info", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("error: ")
            && !err.contains('\x1b')
            && err.contains("DPM: truncated header at offset 0: need 80 bytes, have 20"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn convert_writes_skm_and_skp_that_info_reads_back() {
    let dir = temp_dir("convert");
    let dir = dir.path();
    let dpm = write_tube(dir);
    let skm = dir.join("out.skm");
    let out = skelmap(&["convert", dpm.to_str().unwrap(), skm.to_str().unwrap()]);
    assert!(out.status.success(), "{out:?}");
    let text = stdout(&out);
    assert!(
        text.contains("out.skm (") && text.contains("out.skp ("),
        "{text}"
    );

    let out = skelmap(&["info", skm.to_str().unwrap(), "--json"]);
    assert!(out.status.success(), "{out:?}");
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(v["format"], "SKM");
    assert_eq!(v["skeleton"], "out.skp");
    assert_eq!(
        [
            &v["bones"],
            &v["meshes"],
            &v["frames"],
            &v["vertices"],
            &v["triangles"]
        ],
        [4, 1, 9, 136, 256]
    );
    assert_eq!(v["mesh_list"][0]["name"], "tube");
    assert!(v["bounds"].is_null());

    let skp = dir.join("out.skp");
    let out = skelmap(&["validate", skm.to_str().unwrap(), skp.to_str().unwrap()]);
    assert_eq!(stdout(&out).lines().last(), Some("2 passed, 0 failed"));
}

#[test]
fn skm_without_its_skeleton_fails_validation() {
    let dir = temp_dir("lonely");
    let dir = dir.path();
    let dpm = write_tube(dir);
    let skm = dir.join("lonely.skm");
    assert!(
        skelmap(&["convert", dpm.to_str().unwrap(), skm.to_str().unwrap()])
            .status
            .success()
    );
    std::fs::create_dir_all(dir.join("rigs")).unwrap();
    std::fs::rename(dir.join("lonely.skp"), dir.join("rigs/shared.skp")).unwrap();
    let skm_arg = skm.to_str().unwrap();
    let out = skelmap(&["validate", skm_arg]);
    assert_eq!(out.status.code(), Some(1));
    let expected = format!(
        "FAIL  {skm_arg}: its skeleton {} was not found (the model's name with .skp; no .cfg \
         names another); name the file with --skeleton FILE, or the game folder its path \
         starts from with --root DIR\n",
        dir.join("lonely.skp").display()
    );
    assert!(stdout(&out).starts_with(&expected), "{}", stdout(&out));

    // A `.cfg` that names a skeleton that is not there is named as the reason.
    std::fs::write(dir.join("lonely.cfg"), "import rigs/missing.skm\n").unwrap();
    let out = skelmap(&["info", skm_arg]);
    assert_eq!(
        stderr(&out),
        format!(
            "error: {skm_arg}: its skeleton {} was not found (the skeleton {} imports); name \
             the file with --skeleton FILE, or the game folder its path starts from with \
             --root DIR\n",
            dir.join("rigs/missing.skp").display(),
            dir.join("lonely.cfg").display()
        )
    );

    // `--skeleton` names it, wherever it is; every command that opens a model takes it.
    let rig = dir.join("rigs/shared.skp");
    let rig = rig.to_str().unwrap();
    let out = skelmap(&["validate", skm_arg, "--skeleton", rig]);
    assert!(out.status.success(), "{}", stdout(&out));
    let out = skelmap(&["info", skm_arg, "--skeleton", rig, "--json"]);
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(
        (json["bones"].as_u64(), json["skeleton"].as_str()),
        (Some(4), Some(rig)),
        "{json}"
    );
    for command in ["info", "validate", "bench", "export", "render"] {
        let help = stdout(&skelmap(&[command, "--help"]));
        assert!(help.contains("--skeleton <FILE>"), "{command}: {help}");
    }

    // A skeleton of another model is named, found by name or given: the SKM is not at fault.
    let other = dir.join("other.dpm");
    let params = TubeParams {
        bones: 6,
        ..TubeParams::default()
    };
    std::fs::write(&other, tube(&params).write().unwrap()).unwrap();
    let out = skelmap(&[
        "convert",
        other.to_str().unwrap(),
        dir.join("other").to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{out:?}");
    std::fs::remove_file(dir.join("lonely.cfg")).unwrap();
    std::fs::copy(dir.join("other.skp"), dir.join("lonely.skp")).unwrap();
    let foreign = |skeleton: &Path, args: &[&str]| {
        let out = skelmap(args);
        assert_eq!(
            stderr(&out),
            format!(
                "error: {skm_arg}: the model is weighted to 4 bones, but its skeleton {} has 6: \
                 the skeleton is another model's; name the right one with --skeleton FILE\n",
                skeleton.display()
            )
        );
    };
    foreign(&dir.join("lonely.skp"), &["info", skm_arg]);
    // A broken skeleton is named, with what is wrong in it; opened itself, it is the model.
    let mut broken = std::fs::read(dir.join("rigs/shared.skp")).unwrap();
    broken.truncate(70);
    std::fs::write(dir.join("lonely.skp"), &broken).unwrap();
    let skp = dir.join("lonely.skp");
    let skp_arg = skp.to_str().unwrap();
    let message = stderr(&skelmap(&["info", skp_arg]));
    assert!(
        message.starts_with(&format!("error: {skp_arg}: ")) && !message.contains("skeleton"),
        "{message}"
    );
    let out = skelmap(&["info", skm_arg]);
    let message = stderr(&out);
    assert!(
        message.starts_with(&format!(
            "error: {skm_arg}: its skeleton {}: SKP: truncated",
            dir.join("lonely.skp").display()
        )),
        "{message}"
    );
    let other_skp = dir.join("other.skp");
    foreign(
        &other_skp,
        &["info", skm_arg, "--skeleton", other_skp.to_str().unwrap()],
    );
}

#[test]
fn convert_reports_an_input_it_cannot_read() {
    let dir = temp_dir("convert-bad");
    let dir = dir.path();
    let bad = dir.join("x.dpm");
    std::fs::write(&bad, b"SKM1 not a dpm").unwrap();
    let out = skelmap(&[
        "convert",
        bad.to_str().unwrap(),
        dir.join("y.skm").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.starts_with(&format!("error: {}: ", bad.display())),
        "{err}"
    );
    assert!(!dir.join("y.skm").exists());
}

#[test]
fn info_json_on_a_corpus_ms3d() {
    let Some(path) = skelmap_testkit::corpus_path("ms3d/milkshape3dengine_dwarf1.ms3d") else {
        return;
    };
    let out = skelmap(&["info", path.to_str().unwrap(), "--json"]);
    assert!(out.status.success(), "{out:?}");
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(v["format"], "MS3D");
    assert_eq!(
        [
            &v["vertices"],
            &v["triangles"],
            &v["groups"],
            &v["materials"],
            &v["joints"],
            &v["frames"]
        ],
        [979, 1896, 4, 2, 46, 400]
    );
    assert_eq!(v["bones"], 46);
}

#[test]
fn info_and_validate_understand_sl_mdl_and_anim() {
    use skelmap_core::slmdl::{self, Easing, KeyframeDef};
    let dir = temp_dir("sl");
    let dir = dir.path();
    let mdl = dir.join("tri.mdl");
    let vertex = slmdl::VertexDef {
        weights: [1.0, 0.0, 0.0],
        ..slmdl::VertexDef::default()
    };
    std::fs::write(&mdl, slmdl::MeshBuilder::skinned(&[vertex; 3]).write()).unwrap();
    let anim = dir.join("walk.anim");
    let key = |time| KeyframeDef {
        time,
        easing: Easing::Linear,
        bones: vec![],
    };
    std::fs::write(
        &anim,
        slmdl::AnimationBuilder {
            bones: 2,
            keyframes: vec![key(0.0), key(0.5)],
        }
        .write(),
    )
    .unwrap();

    let out = skelmap(&["info", mdl.to_str().unwrap(), "--json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(
        (v["format"].as_str(), v["vertices"].as_u64()),
        (Some("SL mdl"), Some(3))
    );
    assert_eq!(v["attributes"].as_array().map(Vec::len), Some(5));

    let out = skelmap(&["info", anim.to_str().unwrap(), "--json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(
        (
            v["format"].as_str(),
            v["bones"].as_u64(),
            v["frames"].as_u64()
        ),
        (Some("SL anim"), Some(2), Some(2))
    );

    let out = skelmap(&["validate", mdl.to_str().unwrap(), anim.to_str().unwrap()]);
    assert_eq!(stdout(&out).lines().last(), Some("2 passed, 0 failed"));
}

#[test]
fn info_json_on_corpus_mdl_and_hmp() {
    let Some(corpus) = skelmap_testkit::corpus_path("") else {
        return;
    };
    let json = |p: &Path| -> serde_json::Value {
        serde_json::from_str(&stdout(&skelmap(&["info", p.to_str().unwrap(), "--json"]))).unwrap()
    };
    let v = json(&corpus.join("mdl/libgs_mdl5-earth.mdl"));
    assert_eq!(
        (
            v["format"].as_str(),
            v["vertices"].as_u64(),
            v["triangles"].as_u64(),
            v["frames"].as_u64()
        ),
        (Some("MDL"), Some(2307), Some(4512), Some(1))
    );
    assert_eq!(v["skins"].as_array().map(Vec::len), Some(2));
    let v = json(&corpus.join("hmp/assimp_terrain.hmp"));
    assert_eq!(
        (
            v["format"].as_str(),
            v["grid"][0].as_u64(),
            v["grid"][1].as_u64(),
            v["vertices"].as_u64()
        ),
        (Some("HMP"), Some(33), Some(33), Some(1089))
    );
    // MDL2 has Quake's layout and reads through the Quake reader, still as an MDL.
    let v = json(&corpus.join("mdl/libgs_mdl2-bush.mdl"));
    assert_eq!(
        (
            v["format"].as_str(),
            v["meshes"].as_u64(),
            v["vertices"].as_u64(),
            v["skins"][0]["format"].as_str(),
            v["groups_from"].as_str()
        ),
        (
            Some("MDL"),
            Some(1),
            Some(73),
            Some("rgb565"),
            Some("groups in the model")
        )
    );
    let v = json(&corpus.join("mdl_quake/bq_lavaball.mdl"));
    assert_eq!(
        (
            v["format"].as_str(),
            v["frames"].as_u64(),
            v["skins"][0]["format"].as_str(),
            v["frame_groups"].as_array().map(Vec::len)
        ),
        (Some("Quake MDL"), Some(3), Some("palette8"), Some(3))
    );
}

#[test]
fn validate_walks_directories_and_reports_json() {
    let dir = temp_dir("walk");
    let dir = dir.path();
    let nested = dir.join("a/b");
    std::fs::create_dir_all(&nested).unwrap();
    write_tube(dir);
    write_tube(&nested);
    // Not a model extension: skipped by the walk.
    std::fs::write(nested.join("notes.txt"), b"hello").unwrap();
    std::fs::write(nested.join("bad.mdl"), b"MDL5 but nothing else").unwrap();
    let out = skelmap(&["validate", "--json", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(
        (json["passed"].as_u64(), json["failed"].as_u64()),
        (Some(2), Some(1))
    );
    let files = json["files"].as_array().unwrap();
    assert_eq!(files.len(), 3);
    let bad = files.iter().find(|f| f["ok"] == false).unwrap();
    assert_eq!(bad["format"], "MDL");
    assert!(
        bad["error"]
            .as_str()
            .unwrap()
            .contains("bad.mdl: MDL: truncated"),
        "{bad}"
    );
}

/// An Enemy Territory game folder: the mesh with no MDX beside it, found through its
/// character file and animation group. `validate` of the folder opens the mesh (the game
/// folder found above it) and leaves the `.anim` text alone, which an SL `.anim` walk used
/// to fail; `info` names the clips the group gives (its second animation file's after the
/// first's) and every file the mesh was opened with, and the second MDX alone its block's.
#[test]
fn an_et_game_folder_validates_and_names_its_clips() {
    let dir = temp_dir("et-game");
    let dir = dir.path();
    let etmain = dir.join("etmain");
    let mut builder = skelmap_core::mdm::Builder::triangle();
    let (mdm, mdx) = builder.write();
    builder.frames.truncate(2);
    let mortar = builder.write_mdx();
    let files: [(&str, &[u8]); 6] = [
        ("models/players/soldier/body.mdm", &mdm),
        ("animations/body.mdx", &mdx),
        ("animations/mortar.mdx", &mortar),
        (
            "characters/axis/soldier.char",
            b"characterDef {\n mesh \"models/players/soldier/body.mdm\"\n \
              animationGroup \"animations/human.anim\"\n}\n",
        ),
        (
            "animations/human.anim",
            b"animgroup {\n animfile \"animations/body.mdx\" {\n  #include \
              \"animations/body.aninc\"\n }\n animfile \"animations/mortar.mdx\" {\n  \
              fire 0 2 0 10 0 0 0\n }\n}\n",
        ),
        (
            "animations/body.aninc",
            b"idle 0 3 3 20 0 0 0\nwave 1 2 0 12.5 0 0 0\n",
        ),
    ];
    support::write_files(&etmain, &files);
    let out = skelmap(&["validate", "--json", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{out:?}");
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let formats: Vec<_> = json["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["format"].as_str().unwrap(), f["ok"].as_bool().unwrap()))
        .collect();
    assert_eq!(formats, [("MDX", true), ("MDX", true), ("MDM", true)]);
    let mesh = etmain.join("models/players/soldier/body.mdm");
    let out = skelmap(&["info", mesh.to_str().unwrap()]);
    assert!(out.status.success(), "{out:?}");
    let text = stdout(&out);
    for line in [
        "skeleton animations/body.mdx",
        "2 bones (1 root, 1 attachment), 1 mesh, 5 frames",
        "clips (from animation group)",
        "    wave ",
        "    fire ",
        "  opened with 5 files:\n    animations/body.mdx (skeleton)\n    \
         characters/axis/soldier.char (character)\n    animations/mortar.mdx (animation file)\n    \
         animations/body.aninc (animation group)\n    animations/human.anim (animation group)\n",
    ] {
        assert!(text.contains(line), "{line:?} in:\n{text}");
    }
    let out = skelmap(&["info", mesh.to_str().unwrap(), "--json"]);
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let companions: Vec<_> = json["companions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["kind"].as_str().unwrap(), c["path"].as_str().unwrap()))
        .collect();
    assert_eq!(companions[2], ("animation_file", "animations/mortar.mdx"));
    assert_eq!(json["frames"], 5);
    // Alone, with no `.aninc` beside it, the second MDX takes its block's clips from the
    // group found through the game folder above it.
    let mortar = etmain.join("animations/mortar.mdx");
    let out = skelmap(&["info", mortar.to_str().unwrap()]);
    let text = stdout(&out);
    assert!(text.contains("clips (from animation group)"), "{text}");
    assert!(text.contains("    fire "), "{text}");
    assert!(
        text.contains("characters/axis/soldier.char (character)"),
        "{text}"
    );
}

#[test]
fn export_and_render_write_their_files() {
    let dir = temp_dir("export");
    let dir = dir.path();
    let tube = write_tube(dir);
    let t = tube.to_str().unwrap();
    let o = |n: &str| dir.join(n).to_str().unwrap().to_string();
    let out = skelmap(&["export", t, "-o", &o("t.glb")]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        stdout(&out).trim_end(),
        format!(
            "wrote {}: 1 mesh, 136 vertices, 256 triangles, 4 joints, 2 animations (bind pose)",
            o("t.glb")
        )
    );
    assert!(skelmap(&["export", t, "-o", &o("t.gltf")]).status.success());
    assert!(std::fs::metadata(dir.join("t.bin")).is_ok());
    let out = skelmap(&["export", t, "-o", &o("t.obj"), "--frame", "3"]);
    assert!(out.status.success(), "{out:?}");
    let obj = std::fs::read_to_string(dir.join("t.obj")).unwrap();
    assert_eq!(obj.lines().filter(|l| l.starts_with("f ")).count(), 256);

    let out = skelmap(&["render", t, "-o", &o("t.png"), "--size", "64"]);
    assert!(out.status.success(), "{out:?}");
    assert!(stdout(&out).contains("(64 × 64 pixels)"));
    let out = skelmap(&["render", t, "-o", &o("s.png"), "--sheet", "--size", "32"]);
    assert!(out.status.success(), "{out:?}");
    // Two groups (bind, wave): one cell each, side by side.
    let text = stdout(&out);
    assert!(text.contains("(64 × 32 pixels)"), "{text}");
    // Each group at its middle frame (wave: frames 1..9).
    assert!(text.contains("cell 1: wave f5 0.40s (frame 5)"), "{text}");

    // Errors are one line naming the problem.
    let out = skelmap(&["export", t, "-o", &o("t.fbx")]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1);
    assert!(
        err.contains("the output must end in .glb, .gltf or .obj"),
        "{err}"
    );
    let out = skelmap(&["render", t, "-o", &o("x.png"), "--frame", "99"]);
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("frame 99 is out of range: the model has 9 frames"),
        "{err}"
    );
}

#[test]
fn bench_measures_every_kernel() {
    let dir = temp_dir("bench");
    let dir = dir.path();
    let tube = write_tube(dir);
    let out = skelmap(&[
        "bench",
        tube.to_str().unwrap(),
        "--seconds",
        "0.01",
        "-j",
        "2",
    ]);
    assert!(out.status.success(), "{out:?}");
    let text = stdout(&out);
    for line in [
        "open + validate",
        "sample + palette",
        "scalar",
        "stream portable",
        "prepared portable",
        "compact portable",
        "dqs",
    ] {
        assert!(text.contains(line), "{line:?} missing:\n{text}");
    }
    // Every kernel on 1 and 2 threads, each with its time per frame of the model.
    let rows: Vec<&str> = text.lines().filter(|l| l.contains("% ")).collect();
    assert!(rows.len() >= 2 * 4, "{text}");
    assert!(text.contains("roofline   µs/frame\n"), "{text}");
    for row in &rows {
        // A line measured above the read roofline (a model small enough to stay in the
        // caches) says so after its time.
        let row = row.trim_end().trim_end_matches("above roofline").trim_end();
        let micros = row.split_whitespace().last().unwrap();
        assert!(micros.parse::<f64>().is_ok_and(|t| t > 0.0), "{row}");
    }
    // Then the fastest of them.
    let best = text.lines().last().unwrap();
    assert!(
        best.starts_with("best: ") && best.ends_with(" µs per frame of this model's 136 vertices"),
        "{text}"
    );
}

/// Where the compact layout grouped vertices by the bones they bind (a character in an
/// exporter's vertex-cache order), `bench` also times the best level writing the blocks in
/// their own order; where it kept file order (the tube), it does not.
#[test]
fn bench_times_grouped_compact_blocks_in_their_own_order_too() {
    let dir = temp_dir("bench-grouped");
    let dir = dir.path();
    let character = write_character(dir);
    let tube = write_tube(dir);
    let level = skelmap_core::skin::SimdLevel::detect();
    let line = format!("compact {level} prepared order ");
    for (model, timed) in [(&character, true), (&tube, false)] {
        let path = model.to_str().unwrap();
        let out = skelmap(&["bench", path, "--seconds", "0.01", "-j", "1"]);
        assert!(out.status.success(), "{out:?}");
        let text = stdout(&out);
        let rows: Vec<&str> = text.lines().filter(|l| l.starts_with(&line)).collect();
        assert_eq!(rows.len(), usize::from(timed), "{path}:\n{text}");
        for row in rows {
            assert!(row.contains("% "), "{row}");
        }
    }
}

#[test]
fn bench_times_a_skeletal_deform_once_and_a_morph_at_each_level() {
    let dir = temp_dir("bench-deform");
    let dir = dir.path();
    let character = write_character(dir);
    let quake = dir.join("triangle.mdl");
    std::fs::write(&quake, skelmap_core::quake::Builder::triangle().write()).unwrap();
    let tube = write_tube(dir);
    let levels: Vec<String> = skelmap_core::skin::SimdLevel::ALL
        .into_iter()
        .filter(|l| l.is_supported())
        .map(|l| format!("deform {l} "))
        .collect();
    for (model, morph) in [(&character, false), (&tube, false), (&quake, true)] {
        let path = model.to_str().unwrap();
        let out = skelmap(&["bench", path, "--seconds", "0.01", "-j", "1"]);
        assert!(out.status.success(), "{out:?}");
        let text = stdout(&out);
        let rows: Vec<&str> = text.lines().filter(|l| l.starts_with("deform ")).collect();
        if morph {
            let named: Vec<bool> = levels
                .iter()
                .map(|n| rows.iter().any(|r| r.starts_with(n)))
                .collect();
            assert!(
                named.iter().all(|&n| n) && rows.len() == levels.len(),
                "{path}:\n{text}"
            );
        } else {
            assert_eq!(rows.len(), 1, "{path}:\n{text}");
            assert!(
                rows[0].split_whitespace().nth(1) == Some("1"),
                "{}",
                rows[0]
            );
        }
    }
}

#[test]
fn every_command_has_help_with_an_example() {
    for command in [
        "demo", "info", "validate", "bench", "export", "render", "convert",
    ] {
        let out = skelmap(&[command, "--help"]);
        assert!(out.status.success());
        let text = stdout(&out);
        assert!(text.contains("Example"), "{command}: {text}");
        assert!(text.contains("skelmap "), "{command}: {text}");
    }
}

/// A relative model path and a relative `--root` work together (run from the root's parent),
/// as do an absolute path under a relative root; a path outside the root is refused.
#[test]
fn relative_model_path_and_relative_root_work_together() {
    let dir = temp_dir("relative-root");
    let dir = dir.path();
    let models = dir.join("models");
    std::fs::create_dir_all(&models).unwrap();
    let dpm = write_tube(dir);
    let skm = models.join("z.skm");
    let out = skelmap(&["convert", dpm.to_str().unwrap(), skm.to_str().unwrap()]);
    assert!(out.status.success(), "{out:?}");
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_skelmap"))
            .args(args)
            .current_dir(dir)
            .output()
            .unwrap()
    };
    for args in [
        vec!["info", "models/z.skm", "--root", "."],
        vec!["info", "./models/z.skm", "--root", "./"],
        vec!["info", "models/z.skm", "--root", "models"],
        vec!["info", skm.to_str().unwrap(), "--root", "."],
    ] {
        let out = run(&args);
        assert!(out.status.success(), "{args:?}: {out:?}");
        assert!(
            stdout(&out).contains("SKM model"),
            "{args:?}: {}",
            stdout(&out)
        );
    }
    let out = run(&["info", "tube.dpm", "--root", "models"]);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("is not inside the root"),
        "{out:?}"
    );
}

/// A model named by its bare file name, run from its folder, finds its companions as it does
/// by any other path: an MD5 mesh listed the empty folder and played no animation.
#[test]
fn a_bare_file_name_finds_the_animations_beside_it() {
    let dir = temp_dir("bare-name");
    let dir = dir.path();
    write_md5_with_skin_scale(dir);
    let frames = |path: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_skelmap"))
            .args(["info", path, "--json"])
            .current_dir(dir)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        json["frames"].as_u64().unwrap()
    };
    assert_eq!((frames("m.md5mesh"), frames("./m.md5mesh")), (2, 2));
}

/// `info` marks each file the model was opened with but left out, in the list and in the
/// JSON: beside an MD5 mesh, an animation of another skeleton; the one that fits plays.
#[test]
fn info_marks_the_files_a_model_left_out() {
    let dir = temp_dir("left-out");
    let dir = dir.path();
    let mesh = write_md5_with_skin_scale(dir);
    let idle = std::fs::read_to_string(dir.join("m-idle.md5anim")).unwrap();
    std::fs::write(
        dir.join("z-claw.md5anim"),
        idle.replace("\"arm\"", "\"claw\""),
    )
    .unwrap();
    let out = skelmap(&["info", mesh.to_str().unwrap()]);
    assert!(out.status.success(), "{out:?}");
    let text = stdout(&out);
    let list = "  opened with 3 files:\n    m-idle.md5anim (animation beside)\n    \
                m-idle.md5scale (scale)\n    z-claw.md5anim (animation beside, left out)\n";
    assert!(text.contains(list), "{text}");
    assert!(
        text.contains("z-claw.md5anim: MD5: invalid hierarchy.name"),
        "{text}"
    );
    let out = skelmap(&["info", mesh.to_str().unwrap(), "--json"]);
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let entry = |kind: &str, path: &str, left_out: bool| serde_json::json!({ "kind": kind, "path": path, "left_out": left_out });
    assert_eq!(
        json["companions"],
        serde_json::json!([
            entry("animation_beside", "m-idle.md5anim", false),
            entry("scale", "m-idle.md5scale", false),
            entry("animation_beside", "z-claw.md5anim", true),
        ])
    );
}

/// `render -o x.jpg` used to write PNG bytes under a JPEG name.
#[test]
fn render_refuses_extensions_it_does_not_write() {
    let dir = temp_dir("render-jpg");
    let dir = dir.path();
    let dpm = write_tube(dir);
    let jpg = dir.join("x.jpg");
    let out = skelmap(&["render", dpm.to_str().unwrap(), "-o", jpg.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("must end in .png"),
        "{}",
        stderr(&out)
    );
    assert!(!jpg.exists());
}

/// `render --sheet` used to keep 16 cells silently, show each group's first frame, and fail
/// above 4096 px with "bad image size"; its help now says both limits.
#[test]
fn contact_sheets_show_middle_frames_say_what_they_drop_and_their_limits() {
    let dir = temp_dir("sheet");
    let dir = dir.path();
    let dpm = dir.join("tube.dpm");
    let params = TubeParams {
        frames: 40,
        ..TubeParams::default()
    };
    std::fs::write(&dpm, tube(&params).write().unwrap()).unwrap();
    // 18 groups of 2 frames over the tube's first 36 frames.
    let groups: String = (0..18)
        .map(|g| format!("{} 2 10 1 // g{g}\n", 2 * g))
        .collect();
    std::fs::write(dir.join("tube.dpm.framegroups"), groups).unwrap();
    let png = dir.join("sheet.png");
    let out = skelmap(&[
        "render",
        dpm.to_str().unwrap(),
        "-o",
        png.to_str().unwrap(),
        "--sheet",
        "--size",
        "32",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("the first 16 of 18 frame groups; 2 left out"),
        "{}",
        stderr(&out)
    );
    let text = stdout(&out);
    assert!(text.contains("cell 0: g0 f1 0.10s (frame 1)"), "{text}");
    assert!(text.contains("cell 15: g15 f31 0.10s (frame 31)"), "{text}");
    assert!(!text.contains("cell 16"), "{text}");

    let out = skelmap(&[
        "render",
        dpm.to_str().unwrap(),
        "-o",
        png.to_str().unwrap(),
        "--size",
        "5000",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("at most 16777216 pixels (4096 × 4096)"),
        "{}",
        stderr(&out)
    );
    let help = stdout(&skelmap(&["render", "--help"]));
    assert!(
        help.contains("at most 16 cells") && help.contains("4096 × 4096"),
        "{help}"
    );
}

/// `validate` on an empty folder used to exit 0 and print nothing.
#[test]
fn validate_says_when_it_finds_no_model_files() {
    let dir = temp_dir("validate-empty");
    let dir = dir.path();
    std::fs::write(dir.join("readme.txt"), "not a model").unwrap();
    let out = skelmap(&["validate", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("no model files found"),
        "{}",
        stderr(&out)
    );
}

/// `convert model.ms3d …` used to answer "DPM: bad magic"; convert reads every model now,
/// and names what it cannot convert.
#[test]
fn convert_takes_any_mesh_and_names_what_it_cannot_convert() {
    let dir = temp_dir("convert-ms3d");
    let dir = dir.path();
    let ms3d = dir.join("arm.ms3d");
    let bytes = skelmap_core::ms3d::Builder {
        vertices: vec![([0.0; 3], -1); 3],
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
    std::fs::write(&ms3d, bytes).unwrap();
    let ms3d_arg = ms3d.to_str().unwrap();
    for (out_name, written) in [
        ("x", vec!["x.skm", "x.skp"]),
        ("x.iqm", vec!["x.iqm"]),
        ("y.dpm", vec!["y.dpm"]),
    ] {
        let out = skelmap(&["convert", ms3d_arg, dir.join(out_name).to_str().unwrap()]);
        assert!(out.status.success(), "{out:?}");
        assert!(
            stdout(&out).contains("conversion error: largest 0.00e0"),
            "{}",
            stdout(&out)
        );
        for file in written {
            let out = skelmap(&["validate", dir.join(file).to_str().unwrap()]);
            assert!(out.status.success(), "{file}: {}", stdout(&out));
        }
    }
    // A Quake model of one frame is a static mesh to IQM; one of two frames is vertex
    // animation, which IQM cannot hold: refused before anything is written.
    let quake = dir.join("tri.mdl");
    let mut builder = skelmap_core::quake::Builder::triangle();
    std::fs::write(&quake, builder.write()).unwrap();
    let out = skelmap(&[
        "convert",
        quake.to_str().unwrap(),
        dir.join("s.iqm").to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{out:?}");
    let second = builder.frames[0].clone();
    builder.frames.push(second);
    std::fs::write(&quake, builder.write()).unwrap();
    let out = skelmap(&[
        "convert",
        quake.to_str().unwrap(),
        dir.join("q.iqm").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains(
            "IQM cannot hold vertex animation (morph-target frames): its frames pose joints \
             only; convert to a format of vertex frames (MD3, MD2, MDC, Quake MDL or \
             GameStudio MDL5) or to glTF (morph targets), or leave the animation out with \
             `--no-animations`"
        ),
        "{}",
        stderr(&out)
    );
    assert!(!dir.join("q.iqm").exists());
    // Into a vertex format it goes.
    let out = skelmap(&[
        "convert",
        quake.to_str().unwrap(),
        dir.join("q5.mdl").to_str().unwrap(),
        "--to",
        "mdl",
    ]);
    assert!(out.status.success(), "{out:?}");
    assert!(
        stdout(&out).contains("over 2 frames of 3 vertices"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn convert_measures_a_dpm_as_iqm_and_an_iqm_as_dpm_with_its_clips() {
    let dir = temp_dir("convert-iqm");
    let dir = dir.path();
    let dpm = write_tube(dir);
    let iqm = dir.join("tube.iqm");
    let out = skelmap(&["convert", dpm.to_str().unwrap(), iqm.to_str().unwrap()]);
    assert!(out.status.success(), "{out:?}");
    let text = stdout(&out);
    assert!(text.contains("conversion error: largest "), "{text}");
    assert!(text.contains("over 9 frames of "), "{text}");
    let back = dir.join("back.dpm");
    let out = skelmap(&["convert", iqm.to_str().unwrap(), back.to_str().unwrap()]);
    assert!(out.status.success(), "{out:?}");
    assert!(
        stdout(&out).contains("back.dpm.framegroups"),
        "{}",
        stdout(&out)
    );
    let info = |p: &std::path::Path| {
        let out = skelmap(&["info", "--json", p.to_str().unwrap()]);
        assert!(out.status.success(), "{out:?}");
        let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
        (
            json["bones"].clone(),
            json["frames"].clone(),
            json["clips"].clone(),
        )
    };
    assert_eq!(info(&dpm), info(&back));
}

/// `info` used to say "frames 1" and "meshes 0" for an MDL or HMP, print a blank frame list and
/// an unnamed group for a terrain, and give an MS3D's frames as 400 but its clip as 0..362.
#[test]
fn info_counts_read_as_english_and_agree() {
    let dir = temp_dir("info-wording");
    let dir = dir.path();
    let hmp = dir.join("field.hmp");
    let field = skelmap_core::gamestudio::HmpBuilder {
        row: 2.0,
        frames: vec![vec![(10, [0, 0]); 4]],
        ..Default::default()
    };
    let mut bytes = field.write();
    // No skins: the frame's name field follows the header (84), type (4) and box (16).
    bytes[104..120].fill(0);
    std::fs::write(&hmp, bytes).unwrap();
    let text = stdout(&skelmap(&["info", hmp.to_str().unwrap()]));
    assert!(text.contains("no bones, 1 mesh, 1 frame\n"), "{text}");
    assert!(text.contains("4 vertices, 2 triangles\n"), "{text}");
    assert!(
        !text.contains("frames:") && !text.contains("frame groups"),
        "{text}"
    );
    assert!(!text.lines().any(|l| l.trim().is_empty()), "{text}");

    let dpm = write_tube(dir);
    let text = stdout(&skelmap(&["info", dpm.to_str().unwrap()]));
    assert!(
        text.contains("4 bones (1 root, 1 attachment), 1 mesh, 9 frames"),
        "{text}"
    );

    let Some(ms3d) = skelmap_testkit::corpus_path("ms3d/milkshape3dengine_dwarf1.ms3d") else {
        return;
    };
    let text = stdout(&skelmap(&["info", ms3d.to_str().unwrap()]));
    assert!(text.contains(", 400 frames\n"), "{text}");
    assert!(
        text.contains(
            "    clip        first    last     fps   seconds  loops\n    \
             animation       0     399      30    13.333  yes\n"
        ),
        "{text}"
    );
}

/// `info` on a chain of 1,500 bones: the tree is indented two spaces a level up to 32 levels;
/// deeper bones are indented as the 32nd and say their depth, so each line stays short.
#[test]
fn info_numbers_the_depth_of_bones_too_deep_to_indent() {
    let dir = temp_dir("chain");
    let dir = dir.path();
    let path = dir.join("chain.dpm");
    let bytes = tube(&TubeParams {
        bones: 1_500,
        rings_per_bone: 1,
        sides: 3,
        frames: 1,
        ..TubeParams::default()
    })
    .write()
    .unwrap();
    std::fs::write(&path, bytes).unwrap();
    let out = skelmap(&["info", path.to_str().unwrap()]);
    assert!(out.status.success(), "{out:?}");
    let text = stdout(&out);
    let tree: Vec<&str> = text
        .lines()
        .skip_while(|l| *l != "  bone tree:")
        .skip(1)
        .take(1_500)
        .collect();
    let pad = |depth: usize| " ".repeat(4 + 2 * depth);
    assert_eq!(tree[0], "      0 root");
    assert_eq!(tree[1], format!("{}  1 seg1", pad(1)));
    assert_eq!(tree[32], format!("{} 32 seg32", pad(32)));
    assert_eq!(tree[33], format!("{} 33 seg33 [depth 33]", pad(32)));
    assert_eq!(
        tree[1_499],
        format!("{}1499 seg1499 [depth 1499] [attachment]", pad(32))
    );
    for (depth, line) in tree.iter().enumerate().skip(33) {
        assert_eq!(
            *line,
            format!(
                "{}{depth:>3} seg{depth} [depth {depth}]{}",
                pad(32),
                if depth == 1_499 { " [attachment]" } else { "" }
            )
        );
    }
}

/// `info` lists each clip in aligned columns: first and last frame, rate, seconds, looping;
/// a long clip name widens the name column instead of breaking the others.
#[test]
fn info_lists_clips_in_aligned_columns() {
    let dir = temp_dir("clips");
    let dir = dir.path();
    let dpm = write_tube(dir);
    std::fs::write(
        dir.join("tube.dpm.framegroups"),
        "0 4 10 1 // idle\n4 5 2.5 0 // a_clip_name_longer_than_sixteen\n",
    )
    .unwrap();
    let text = stdout(&skelmap(&["info", dpm.to_str().unwrap()]));
    let expected = "  clips (from framegroups file):\n    \
                    clip                              first    last     fps   seconds  loops\n    \
                    idle                                  0       3      10     0.400  yes\n    \
                    a_clip_name_longer_than_sixteen       4       8     2.5     2.000  no\n";
    assert!(text.contains(expected), "{text}");
}

/// `-j` used to be accepted by every command; only `validate` and `bench` run in parallel.
#[test]
fn jobs_only_where_they_are_used() {
    let dir = temp_dir("jobs");
    let dir = dir.path();
    let dpm = write_tube(dir);
    let out = skelmap(&["info", "-j", "2", dpm.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "clap refuses it");
    let out = skelmap(&["validate", "-j", "1", dpm.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    for command in ["validate", "bench"] {
        assert!(stdout(&skelmap(&[command, "--help"])).contains("--jobs"));
    }
    for command in ["info", "export", "render", "convert", "demo"] {
        assert!(
            !stdout(&skelmap(&[command, "--help"])).contains("--jobs"),
            "{command}"
        );
    }
}

/// `bench --help` now says how long a run takes.
#[test]
fn bench_help_gives_the_time_a_run_takes() {
    let help = stdout(&skelmap(&["bench", "--help"]));
    assert!(
        help.contains("about 56 measurements (some 18 s at the default"),
        "{help}"
    );
}

/// `validate` counts kinds of warning in plain English ("1 kind of warning"), here on a Quake
/// model with an editor's bytes after its last frame (as real files carry).
#[test]
fn validate_counts_kinds_of_warning_in_plain_english() {
    let dir = temp_dir("warning-kinds");
    let dir = dir.path();
    let path = dir.join("tail.mdl");
    let model = skelmap_core::quake::Builder {
        trailing: b"QMEX".to_vec(),
        ..skelmap_core::quake::Builder::triangle()
    };
    std::fs::write(&path, model.write()).unwrap();
    let out = skelmap(&["validate", path.to_str().unwrap()]);
    assert!(out.status.success(), "{out:?}");
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().take(2).collect();
    assert_eq!(
        lines,
        [
            format!("WARN  {} (1 kind of warning)", path.display()).as_str(),
            "      bytes after the end of the model, ignored: 4 bytes after the last frame (file \
             at offset 244)",
        ],
        "{text}"
    );
    // With --strict the warning fails the file, and the reason is printed under it.
    let out = skelmap(&["validate", "--strict", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout(&out).starts_with(&format!(
            "FAIL  {} (1 kind of warning, --strict)\n      {}\n",
            path.display(),
            lines[1].trim_start()
        )),
        "{}",
        stdout(&out)
    );
    // The JSON keeps every part of it.
    let out = skelmap(&["validate", "--json", path.to_str().unwrap()]);
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let warning = &json["files"][0]["warnings"][0];
    assert_eq!(warning["kind"], "bytes after the end of the model, ignored");
    assert_eq!(warning["count"], 1);
    assert!(
        warning["detail"].as_str().is_some_and(|d| !d.is_empty()),
        "{warning}"
    );
}

/// `info DIR` said "Is a directory", an empty file was "unrecognised", a parent that is a
/// file gave "File exists (os error 17)", and the help named neither Quake MDL, MDL2 nor
/// `.framegroups`, nor where `--frame` counts from.
#[test]
fn errors_and_help_say_what_is_wrong_and_what_to_do() {
    let dir = temp_dir("errors");
    let dir = dir.path();
    let dpm = write_tube(dir);
    let dir_arg = dir.to_str().unwrap();
    let error = |args: &[&str]| {
        let out = skelmap(args);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {out:?}");
        stderr(&out)
    };
    assert_eq!(
        error(&["info", dir_arg]),
        format!(
            "error: {dir_arg} is a folder, not a model file; `skelmap validate {dir_arg}` \
             checks every model in it\n"
        )
    );
    let empty = dir.join("empty.dpm");
    std::fs::write(&empty, b"").unwrap();
    let empty = empty.to_str().unwrap();
    assert_eq!(
        error(&["info", empty]),
        format!("error: {empty}: the file is empty (0 bytes)\n")
    );
    let out = skelmap(&["validate", empty]);
    assert!(stdout(&out).contains("\nempty             1      0         0       1\n"));

    let out = dir.join("tube.dpm/x.glb");
    // After the warning that the tube's texture is not there.
    let text = error(&["export", dpm.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert_eq!(
        text.lines()
            .skip(1)
            .map(|l| format!("{l}\n"))
            .collect::<String>(),
        format!(
            "error: cannot write {}: {} is a file, not a folder\n",
            out.display(),
            dpm.display()
        )
    );
    let inside = dir.join("tube.dpm/demo");
    assert_eq!(
        error(&["demo", "-o", inside.to_str().unwrap()]),
        format!(
            "error: cannot write the demo into {}: {} is a file, not a folder\n",
            inside.display(),
            dpm.display()
        )
    );

    // The formats come from the format table: each its own line, with its extensions and
    // whether `convert` writes it.
    let help = stdout(&skelmap(&["--help"]));
    for format in skelmap_core::Format::ALL {
        let line = format!("\n  {} (.{}", format.name(), format.extensions()[0]);
        assert!(help.contains(&line), "{line:?} missing from:\n{help}");
    }
    for words in [
        "  MD5 (.md5mesh .md5anim, written): A Doom 3 model",
        "  MDX (.mdx): An Enemy Territory skeleton",
        "  Quake MDL (.mdl, written): A Quake model, or a GameStudio MDL2",
        "MDL3, MDL4 or MDL5",
        "HMP5 or HMP7",
        "zombie.dpm.framegroups",
    ] {
        assert!(help.contains(words), "{words:?} missing from:\n{help}");
    }
    for command in ["export", "render"] {
        let help = stdout(&skelmap(&[command, "--help"]));
        assert!(help.contains("(counted from 0)"), "{help}");
    }
}

/// `convert --help` and the refusal of an output skelmap does not write list the same
/// outputs, from the format table: every written format's usual extension (the formats
/// sharing `.mdl` by `--to`), then glTF's two.
#[test]
fn convert_lists_every_output_the_format_table_writes() {
    let listed = ".dpm, .skm, .ms3d, .mdl (--to mdl7, mdl, slmdl, quake or hl1), .iqm, .md3, \
                  .md2, .mdc, .mdr, .md5mesh, .zym, .mdm, .psk, .glb and .gltf";
    let help = stdout(&skelmap(&["convert", "--help"]));
    assert!(help.contains(&format!("Outputs: {listed}. ")), "{help}");
    for format in skelmap_core::Format::ALL.iter().filter(|f| f.writable()) {
        let extension = format!(".{}", format.extensions()[0]);
        assert!(listed.contains(&extension), "{format:?}");
    }
    // The short help keeps to one line.
    let short = stdout(&skelmap(&["help"]));
    assert!(
        short.contains(
            "  convert      Convert a model to another format, chosen by the output's extension\n"
        ),
        "{short}"
    );
    let dir = temp_dir("convert-outputs");
    let dir = dir.path();
    let dpm = write_tube(dir);
    let out = dir.join("tube.obj");
    let refused = skelmap(&["convert", dpm.to_str().unwrap(), out.to_str().unwrap()]);
    assert_eq!(refused.status.code(), Some(1), "{refused:?}");
    assert_eq!(
        stderr(&refused),
        format!(
            "error: {}: skelmap does not write .obj files; it writes {listed} (`skelmap \
             export MODEL -o OUT.obj` writes one frame as OBJ)\n",
            out.display()
        )
    );
    assert!(!out.exists());
    let out = dir.join("tube.fbx");
    let refused = skelmap(&["convert", dpm.to_str().unwrap(), out.to_str().unwrap()]);
    assert_eq!(
        stderr(&refused),
        format!(
            "error: {}: skelmap does not write .fbx files; it writes {listed}\n",
            out.display()
        )
    );
}

/// `validate --help` names every extension a folder is searched for: the format table's.
#[test]
fn validate_help_names_every_extension_it_searches() {
    let help = stdout(&skelmap(&["validate", "--help"]));
    let all: Vec<String> = skelmap_core::Format::all_extensions()
        .map(|e| format!(".{e}"))
        .collect();
    let line = format!("directories searched for {}\n", all.join(" "));
    assert!(help.contains(&line), "{line:?} missing from:\n{help}");
    for extension in [".md5mesh", ".psa", ".mdx", ".zym"] {
        assert!(all.iter().any(|e| e == extension), "{extension}");
    }
}

/// Shell completions and the manual page come from the CLI's own definition, so they name
/// every command and switch it has.
#[test]
fn completions_and_the_manual_page_come_from_the_cli() {
    let bash = skelmap(&["completions", "bash"]);
    assert!(bash.status.success(), "{bash:?}");
    let bash = stdout(&bash);
    for word in ["_skelmap()", "convert", "--skeleton", "--sheet"] {
        assert!(bash.contains(word), "{word:?} missing from the bash script");
    }
    let zsh = stdout(&skelmap(&["completions", "zsh"]));
    assert!(zsh.starts_with("#compdef skelmap"), "{zsh}");
    let man = skelmap(&["man"]);
    assert!(man.status.success(), "{man:?}");
    let man = stdout(&man);
    for words in [
        ".TH skelmap 1",
        ".SH SUBCOMMANDS",
        "skelmap\\-export",
        "Formats, recognised by their first bytes",
        "Half\\-Life MDL (.mdl, written)",
    ] {
        assert!(
            man.contains(words),
            "{words:?} missing from the manual page"
        );
    }
    let out = skelmap(&["completions", "tcsh"]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "an unknown shell is a usage error"
    );
}

/// An OBJ used to lose its materials: no `.mtl`, no `usemtl`. Now the `.mtl` beside it names
/// each material with its colour, and a skin the model carries is written beside it as PNG.
#[test]
fn obj_export_writes_its_materials_and_skins() {
    let dir = temp_dir("obj-mtl");
    let dir = dir.path();
    let model = dir.join("tri.mdl");
    std::fs::write(&model, skelmap_core::quake::Builder::triangle().write()).unwrap();
    let obj = dir.join("out/tri.obj");
    let out = skelmap(&[
        "export",
        model.to_str().unwrap(),
        "-o",
        obj.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{out:?}");
    assert!(
        stdout(&out).ends_with(&format!(
            "  materials in {}; 1 skin written beside it\n",
            dir.join("out/tri.mtl").display()
        )),
        "{}",
        stdout(&out)
    );
    let text = std::fs::read_to_string(&obj).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[2..5],
        ["mtllib tri.mtl", "o mdl", "usemtl skin"],
        "{text}"
    );
    let mtl = std::fs::read_to_string(dir.join("out/tri.mtl")).unwrap();
    assert_eq!(
        mtl,
        "# skelmap Quake MDL materials\n\nnewmtl skin\nKd 1 1 1\nmap_Kd tri_0.png\n"
    );
    let png = std::fs::read(dir.join("out/tri_0.png")).unwrap();
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"));
}

/// `info` used to refuse more than one file. Several are described in turn (a JSON array
/// with `--json`); one that fails is reported and the others are still described.
#[test]
fn info_describes_several_files() {
    let dir = temp_dir("info-several");
    let dir = dir.path();
    let tube = write_tube(dir);
    let quake = dir.join("tri.mdl");
    std::fs::write(&quake, skelmap_core::quake::Builder::triangle().write()).unwrap();
    let missing = dir.join("missing.dpm");
    let [tube, quake, missing] = [&tube, &quake, &missing].map(|p| p.to_str().unwrap());

    let out = skelmap(&["info", "--json", tube, quake]);
    assert!(out.status.success(), "{out:?}");
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let formats: Vec<&str> = json
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["format"].as_str().unwrap())
        .collect();
    assert_eq!(formats, ["DPM", "Quake MDL"]);

    let out = skelmap(&["info", tube, missing, quake]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(text.starts_with(&format!("{tube}: DPM model, ")), "{text}");
    assert!(
        text.contains(&format!("\n\n{quake}: Quake MDL model, ")),
        "{text}"
    );
    assert_eq!(stderr(&out).lines().count(), 1, "{}", stderr(&out));
    assert!(stderr(&out).contains("missing.dpm"), "{}", stderr(&out));
}

#[test]
fn an_iqm_plays_the_animation_given_with_it() {
    let Some(dir) = skelmap_testkit::corpus_next_path("iqm") else {
        return;
    };
    let guy = dir.join("raylib_guy.iqm");
    let anim = dir.join("raylib_guyanim.iqm");
    let cube = dir.join("ld37_color-cube.iqm");
    let [guy, anim, cube] = [&guy, &anim, &cube].map(|p| p.to_str().unwrap());
    let out = skelmap(&["info", guy, "--animation", anim]);
    assert!(out.status.success(), "{out:?}");
    let text = stdout(&out);
    assert!(text.contains(&format!("animation {anim}")), "{text}");
    assert!(
        text.contains("14 bones (1 root, 14 attachments), 1 mesh, 122 frames"),
        "{text}"
    );
    // A static model is no animation: the error names the animation, not the model.
    let out = skelmap(&["info", guy, "--animation", cube]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains(&format!(
            "{guy}: its animation {cube}: IQM: invalid animation.poses"
        )),
        "{err}"
    );
    // `validate DIR` finds .iqm files.
    let out = skelmap(&["validate", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(stdout(&out).matches(".iqm").count(), 5, "{}", stdout(&out));
}

#[test]
fn an_mdl7_is_read_validated_exported_and_converted() {
    let dir = temp_dir("mdl7");
    let dir = dir.path();
    let mdl = dir.join("demo.mdl");
    std::fs::write(&mdl, skelmap_core::mdl7::Builder::demo().write()).unwrap();
    let out = skelmap(&["info", mdl.to_str().unwrap(), "--json"]);
    assert!(out.status.success(), "{out:?}");
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(v["format"], "MDL7");
    assert_eq!(
        [
            &v["bones"],
            &v["frames"],
            &v["vertices"],
            &v["triangles"],
            &v["influences"]
        ],
        [3, 4, 12, 16, 16]
    );
    assert_eq!(v["skins"].as_array().unwrap().len(), 2);
    let out = skelmap(&["validate", mdl.to_str().unwrap()]);
    assert!(out.status.success(), "{out:?}");
    assert!(stdout(&out).contains("MDL7"), "{}", stdout(&out));
    let glb = dir.join("demo.glb");
    let out = skelmap(&["export", mdl.to_str().unwrap(), "-o", glb.to_str().unwrap()]);
    assert!(out.status.success(), "{out:?}");
    assert!(
        stdout(&out).contains("3 joints, 1 animation"),
        "{}",
        stdout(&out)
    );
    let iqm = dir.join("demo.iqm");
    let out = skelmap(&["convert", mdl.to_str().unwrap(), iqm.to_str().unwrap()]);
    assert!(out.status.success(), "{out:?}");
    let converted = std::fs::read(&iqm).unwrap();
    let model = skelmap_core::Model::from_bytes(&converted).unwrap();
    assert_eq!((model.num_bones(), model.num_frames()), (3, 4));
}

/// `convert … out.mdl --to mdl7` writes an MDL7 from any skeletal model, measures it, and
/// says what it lost; `.mdl` alone asks which of the five formats.
#[test]
fn convert_writes_mdl7_when_asked_by_its_docs_name() {
    let dir = temp_dir("convert-mdl7");
    let dir = dir.path();
    let dpm = write_tube(dir);
    let mdl = dir.join("tube.mdl");
    let out = skelmap(&["convert", dpm.to_str().unwrap(), mdl.to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains(
            "five formats end in .mdl; say which with --to mdl7, --to mdl, --to slmdl, --to \
             quake or --to hl1"
        ),
        "{}",
        stderr(&out)
    );
    assert!(!mdl.exists());
    let out = skelmap(&[
        "convert",
        dpm.to_str().unwrap(),
        mdl.to_str().unwrap(),
        "--to",
        "mdl7",
    ]);
    assert!(out.status.success(), "{out:?}");
    assert!(
        stdout(&out).contains("over 9 frames of 136 vertices"),
        "{}",
        stdout(&out)
    );
    let bytes = std::fs::read(&mdl).unwrap();
    assert_eq!(&bytes[..4], b"MDL7");
    let model = skelmap_core::Model::from_bytes(&bytes).unwrap();
    assert_eq!((model.num_bones(), model.num_frames()), (4, 9));
}

/// `--clip NAME --time SECONDS` poses `export` and `render` as a game plays the clip: a time
/// on a frame gives that frame, a time past a clip that does not loop holds its last frame,
/// and a glTF holds that clip's animation only.
#[test]
fn export_and_render_pose_by_clip_and_time() {
    let dir = temp_dir("clip-time");
    let dir = dir.path();
    let dpm = write_tube(dir);
    std::fs::write(
        dir.join("tube.dpm.framegroups"),
        "0 4 10 1 // idle\n4 5 2 0 // bend\n",
    )
    .unwrap();
    let obj = |args: &[&str], name: &str| {
        let out = dir.join(name);
        let mut all = vec!["export", dpm.to_str().unwrap(), "-o", out.to_str().unwrap()];
        all.extend_from_slice(args);
        let run = skelmap(&all);
        assert!(run.status.success(), "{run:?}");
        let text = std::fs::read_to_string(&out).unwrap();
        let header = text.lines().nth(1).unwrap_or_default().to_string();
        let vertices: Vec<String> = text
            .lines()
            .filter(|l| l.starts_with("v "))
            .map(str::to_string)
            .collect();
        (header, vertices)
    };
    // 1.5 s at 2 fps is the clip's frame 3: the model's frame 7.
    let (header, at_time) = obj(&["--clip", "bend", "--time", "1.5"], "t.obj");
    assert_eq!(header, "# clip bend at 1.5 s");
    let (_, at_frame) = obj(&["--frame", "7"], "f.obj");
    assert_eq!(at_time, at_frame);
    // Past its end, a clip that does not loop holds its last frame (8).
    let (_, held) = obj(&["--clip", "bend", "--time", "10"], "h.obj");
    let (_, last) = obj(&["--frame", "8"], "l.obj");
    assert_eq!(held, last);
    let glb = dir.join("bend.glb");
    let out = skelmap(&[
        "export",
        dpm.to_str().unwrap(),
        "-o",
        glb.to_str().unwrap(),
        "--clip",
        "bend",
    ]);
    assert!(out.status.success(), "{out:?}");
    assert!(
        stdout(&out).contains("1 animation (clip bend at 0 s)"),
        "{}",
        stdout(&out)
    );
    let out = skelmap(&[
        "export",
        dpm.to_str().unwrap(),
        "-o",
        glb.to_str().unwrap(),
        "--clip",
        "nope",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("no clip named \"nope\"; its clips are idle, bend"),
        "{}",
        stderr(&out)
    );
    let png = dir.join("bend.png");
    let out = skelmap(&[
        "render",
        dpm.to_str().unwrap(),
        "-o",
        png.to_str().unwrap(),
        "--clip",
        "bend",
        "--time",
        "0.4",
    ]);
    assert!(out.status.success(), "{out:?}");
    assert!(png.is_file());
    // --time without --clip is refused by the parser.
    let out = skelmap(&[
        "render",
        dpm.to_str().unwrap(),
        "-o",
        png.to_str().unwrap(),
        "--time",
        "1",
    ]);
    assert_eq!(out.status.code(), Some(2));
}

/// `render --yaw --pitch --background` turn the camera and colour the background; `--clips`
/// picks a sheet's clips in order; each refuses what it cannot use.
#[test]
fn render_turns_the_camera_colours_the_background_and_picks_clips() {
    let dir = temp_dir("view");
    let dir = dir.path();
    let dpm = write_tube(dir);
    std::fs::write(
        dir.join("tube.dpm.framegroups"),
        "0 4 10 1 // idle\n4 5 2 0 // bend\n",
    )
    .unwrap();
    let png = |name: &str, extra: &[&str]| {
        let out = dir.join(name);
        let mut args = vec![
            "render",
            dpm.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--size",
            "64",
        ];
        args.extend_from_slice(extra);
        let run = skelmap(&args);
        assert!(run.status.success(), "{run:?}");
        (pixels(&out), stdout(&run))
    };
    let ((_, default), _) = png("default.png", &[]);
    // The corner is the default mid grey, 808690.
    assert_eq!(default[..4], [0x80, 0x86, 0x90, 0xff]);
    let ((_, white), _) = png("white.png", &["--background", "#ffffff"]);
    assert_eq!(white[..4], [255; 4]);
    let ((_, behind), _) = png("behind.png", &["--yaw", "180", "--pitch", "-30"]);
    assert_ne!(behind, default, "the other side, from below");
    let ((width, sheet), text) = png("sheet.png", &["--sheet", "--clips", "bend,idle"]);
    assert_eq!(width, 128);
    // Each cell is labelled: dark glyph pixels in its top-left corner (rows 2..10).
    let ink = |x: u32, y: u32| sheet[4 * (y * width + x) as usize..][..3] == [16, 16, 20];
    assert!(
        (2..10).any(|y| (2..40).any(|x| ink(x, y))),
        "cell 0 unlabelled"
    );
    assert!(
        (2..10).any(|y| (66..104).any(|x| ink(x, y))),
        "cell 1 unlabelled"
    );
    assert!(
        text.contains("cell 0: bend f6 1.00s (frame 6)\n  cell 1: idle f2 0.20s (frame 2)"),
        "{text}"
    );
    let out = dir.join("x.png");
    let refuse = |args: &[&str]| {
        let mut all = vec!["render", dpm.to_str().unwrap(), "-o", out.to_str().unwrap()];
        all.extend_from_slice(args);
        skelmap(&all)
    };
    let bad = refuse(&["--background", "red"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        stderr(&bad).contains("\"red\" is not a colour: give six hexadecimal digits, RRGGBB"),
        "{}",
        stderr(&bad)
    );
    assert_eq!(
        refuse(&["--clips", "idle"]).status.code(),
        Some(2),
        "--clips needs --sheet"
    );
    let bad = refuse(&["--sheet", "--clips", "run"]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(
        stderr(&bad).contains("no clip named \"run\"; its clips are idle, bend"),
        "{}",
        stderr(&bad)
    );
}

/// `export DIR -o OUTDIR` and `render DIR -o OUTDIR` handle every model under DIR, each to
/// `OUTDIR/<its path>.glb` or `.png`, and say how many they wrote and which failed.
#[test]
fn export_and_render_a_directory_of_models() {
    let dir = temp_dir("batch");
    let dir = dir.path();
    let models = dir.join("models");
    std::fs::create_dir_all(models.join("gamestudio")).unwrap();
    write_tube(&models);
    std::fs::write(
        models.join("gamestudio/demo.mdl"),
        skelmap_core::mdl7::Builder::demo().write(),
    )
    .unwrap();
    std::fs::write(models.join("broken.mdl"), b"MDL7 and nothing else").unwrap();
    let before = std::fs::read(models.join("tube.dpm")).unwrap();
    let out = dir.join("out");
    let run = skelmap(&[
        "export",
        models.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(run.status.code(), Some(1), "one file fails");
    assert!(
        stdout(&run).contains(&format!(
            "wrote 2 of 3 files to {}; 1 failed",
            out.display()
        )),
        "{}",
        stdout(&run)
    );
    assert!(stderr(&run).contains("broken.mdl"), "{}", stderr(&run));
    assert!(out.join("tube.dpm.glb").is_file());
    assert!(out.join("gamestudio/demo.mdl.glb").is_file());
    assert!(!out.join("broken.mdl.glb").exists());
    assert_eq!(std::fs::read(models.join("tube.dpm")).unwrap(), before);
    std::fs::remove_file(models.join("broken.mdl")).unwrap();
    let pngs = dir.join("png");
    let run = skelmap(&[
        "render",
        models.to_str().unwrap(),
        "-o",
        pngs.to_str().unwrap(),
        "--size",
        "32",
    ]);
    assert!(run.status.success(), "{run:?}");
    assert!(
        stdout(&run).contains("wrote 2 of 2 files"),
        "{}",
        stdout(&run)
    );
    assert_eq!(pixels(&pngs.join("gamestudio/demo.mdl.png")).0, 32);
    // A directory of models is not written into a file.
    let run = skelmap(&[
        "export",
        models.to_str().unwrap(),
        "-o",
        models.join("tube.dpm").to_str().unwrap(),
    ]);
    assert_eq!(run.status.code(), Some(1));
    assert!(stderr(&run).contains("this is a file"), "{}", stderr(&run));
    assert_eq!(std::fs::read(models.join("tube.dpm")).unwrap(), before);
}

/// A group named in another case than its model (`Hgrunt03.mdl` beside `hgrunt.mdl`, as a
/// mod ships it) is its model's group: read with the model, and checked against it alone.
#[test]
fn a_sequence_group_in_another_case_is_its_models() {
    use skelmap_core::hl1::{Builder, SequenceDef};
    let dir = temp_dir("hl1_group_case");
    let dir = dir.path();
    let mut b = Builder::example();
    b.groups = vec!["far".into()];
    b.sequences.push(SequenceDef {
        label: "group1".into(),
        fps: 5.0,
        looping: true,
        group: 1,
        frames: vec![vec![[2, 0, 0, 0, 0, 0], [0; 6]]; 3],
    });
    std::fs::write(dir.join("hgrunt.mdl"), b.write().unwrap()).unwrap();
    std::fs::write(dir.join("Hgrunt01.mdl"), b.write_group(1).unwrap()).unwrap();
    let out = skelmap(&["validate", "--json", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let group = json["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["file"].as_str().unwrap().ends_with("Hgrunt01.mdl"))
        .unwrap();
    let model = dir.join("hgrunt.mdl").display().to_string();
    assert_eq!(
        (group["ok"].as_bool(), group["model"].as_str()),
        (Some(true), Some(model.as_str()))
    );
    let info = skelmap(&["info", dir.join("hgrunt.mdl").to_str().unwrap()]);
    let text = stdout(&info);
    assert!(text.contains("Hgrunt01.mdl (sequence group)"), "{text}");
    assert!(text.contains("diagnostics: none"), "{text}");
}

/// A Half-Life sequence group (`<stem>NN.mdl`, `IDSQ`) is no model of its own: `validate`
/// checks it with the model beside it (which must open, declare the group, read it, and find
/// its animations valid), and a directory's `export` writes it with its model.
#[test]
fn sequence_groups_are_checked_and_exported_with_their_models() {
    use skelmap_core::hl1::{Builder, SequenceDef};
    let dir = temp_dir("hl1_groups");
    let dir = dir.path();
    let mut b = Builder::example();
    b.groups = vec!["far".into(), "farther".into()];
    for g in 1..=2 {
        b.sequences.push(SequenceDef {
            label: format!("group{g}"),
            fps: 5.0,
            looping: true,
            group: g,
            frames: vec![vec![[2, 0, 0, 0, 0, 0], [0; 6]]; 3],
        });
    }
    std::fs::write(dir.join("man.mdl"), b.write().unwrap()).unwrap();
    std::fs::write(dir.join("man01.mdl"), b.write_group(1).unwrap()).unwrap();
    // Group 2 cut short: its runs leave the file.
    let two = b.write_group(2).unwrap();
    std::fs::write(dir.join("man02.mdl"), &two[..two.len() - 2]).unwrap();
    // Group 3, which the model does not declare; a group whose model is missing.
    std::fs::write(dir.join("man03.mdl"), b.write_group(1).unwrap()).unwrap();
    std::fs::write(dir.join("lost01.mdl"), b.write_group(1).unwrap()).unwrap();
    let out = skelmap(&["validate", "--json", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let files = json["files"].as_array().unwrap();
    let outcome = |name: &str| {
        files
            .iter()
            .find(|f| f["file"].as_str().unwrap().ends_with(name))
            .unwrap()
    };
    let model = dir.join("man.mdl").display().to_string();
    let one = outcome("man01.mdl");
    assert_eq!(
        (
            one["ok"].as_bool(),
            one["format"].as_str(),
            one["model"].as_str()
        ),
        (Some(true), Some("Half-Life MDL"), Some(model.as_str()))
    );
    let error = |name: &str| outcome(name)["error"].as_str().unwrap().to_string();
    assert!(
        error("man02.mdl").contains("man02.mdl: Half-Life MDL: truncated"),
        "{}",
        error("man02.mdl")
    );
    assert!(
        error("man03.mdl").ends_with(&format!(
            "man03.mdl: not read: {model} declares 2 sequence groups besides itself"
        )),
        "{}",
        error("man03.mdl")
    );
    assert!(
        error("lost01.mdl").contains("lost.mdl is not beside it"),
        "{}",
        error("lost01.mdl")
    );
    assert_eq!(
        (json["passed"].as_u64(), json["failed"].as_u64()),
        (Some(2), Some(3))
    );
    // `info` on a group names it and its model.
    let info = skelmap(&["info", dir.join("man01.mdl").to_str().unwrap()]);
    assert_eq!(info.status.code(), Some(1));
    assert!(
        stderr(&info).contains(&format!(
            "man01.mdl: sequence group 1 of the Half-Life model {model}, animations only, which \
             that model reads: open the model"
        )),
        "{}",
        stderr(&info)
    );
    // With group 1 gone, group 2 is not read, however it is.
    std::fs::remove_file(dir.join("man01.mdl")).unwrap();
    std::fs::write(dir.join("man02.mdl"), &two).unwrap();
    let out = skelmap(&["validate", dir.join("man02.mdl").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout(&out).contains("reads its sequence groups from 01 up to the first file missing"),
        "{}",
        stdout(&out)
    );
    // In a directory, the groups beside their model go with it; the lost one fails alone.
    std::fs::write(dir.join("man01.mdl"), b.write_group(1).unwrap()).unwrap();
    std::fs::remove_file(dir.join("man03.mdl")).unwrap();
    let glbs = dir.join("glb");
    let run = skelmap(&[
        "export",
        dir.to_str().unwrap(),
        "-o",
        glbs.to_str().unwrap(),
    ]);
    assert_eq!(run.status.code(), Some(1));
    assert!(
        stdout(&run).contains(&format!(
            "wrote 1 of 2 files to {}; 1 failed (2 sequence-group files read with their models)",
            glbs.display()
        )),
        "{}",
        stdout(&run)
    );
    assert!(stderr(&run).contains("lost01.mdl"), "{}", stderr(&run));
    assert!(glbs.join("man.mdl.glb").is_file());
    // Every sequence, the groups' among them, is an animation.
    let gltf = glb_json(&glbs.join("man.mdl.glb"));
    assert_eq!(
        gltf["animations"].as_array().map(Vec::len),
        Some(b.sequences.len())
    );
}

/// `--body N` opens a Half-Life model as an entity whose `body` is N shows it: `info` lists
/// each body part's models with the one shown, and the mesh is made of those.
#[test]
fn the_body_value_chooses_each_half_life_parts_model() {
    use skelmap_core::hl1::{BodyPartDef, Builder};
    let dir = temp_dir("hl1_body");
    let dir = dir.path();
    let mut b = Builder::example();
    let full = b.bodyparts[0].models[0].clone();
    let mut one = full.clone();
    one.name = "one".into();
    one.meshes.truncate(1);
    b.bodyparts = vec![
        BodyPartDef {
            name: "head".into(),
            models: vec![full.clone(), one.clone()],
        },
        BodyPartDef {
            name: "gun".into(),
            models: vec![one, full],
        },
    ];
    let path = dir.join("two_parts.mdl");
    std::fs::write(&path, b.write().unwrap()).unwrap();
    let p = path.to_str().unwrap();
    let out = skelmap(&["info", p, "--json", "--body", "1"]);
    assert!(out.status.success(), "{out:?}");
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(v["body"]["value"], 1);
    let parts = v["body"]["parts"].as_array().unwrap();
    let part = |i: usize| {
        (
            parts[i]["name"].as_str().unwrap(),
            parts[i]["base"].as_i64().unwrap(),
            parts[i]["shown"].as_u64().unwrap(),
            parts[i]["models"].as_array().unwrap().len(),
        )
    };
    assert_eq!([part(0), part(1)], [("head", 1, 1, 2), ("gun", 2, 0, 2)]);
    // Body 1 shows the one-mesh model of each part (the example's first mesh: 2 triangles);
    // body 0 the full head (its two meshes: 4) and the one-mesh gun.
    assert_eq!(v["triangles"], 4);
    let out = skelmap(&["info", p, "--json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(
        (v["body"]["value"].as_u64(), v["triangles"].as_u64()),
        (Some(0), Some(6))
    );
    let out = skelmap(&["info", p, "--body", "2"]);
    assert!(
        stdout(&out).contains("    part 1 gun (base 2): 0 one, *1 body"),
        "{}",
        stdout(&out)
    );
    let glb = dir.join("body1.glb");
    let out = skelmap(&["export", p, "--body", "1", "-o", glb.to_str().unwrap()]);
    assert!(out.status.success(), "{out:?}");
    assert!(stdout(&out).contains("4 triangles"), "{}", stdout(&out));
    // What one body value leaves out of an export or a conversion is said.
    let left_out = "note: body 1 shows one model of each body part; the 2 others are left \
                    out ('head' 1, 'gun' 1): --body picks them (`info` lists them)\n";
    assert!(stdout(&out).ends_with(left_out), "{}", stdout(&out));
    let iqm = dir.join("body1.iqm");
    let out = skelmap(&["convert", p, iqm.to_str().unwrap(), "--body", "1"]);
    assert!(out.status.success(), "{out:?}");
    assert!(stdout(&out).starts_with(left_out), "{}", stdout(&out));
    let out = skelmap(&["export", p, "--body", "1", "-o", "-", "--format", "obj"]);
    assert!(out.status.success(), "{out:?}");
    assert!(stderr(&out).ends_with(left_out), "{}", stderr(&out));
}

/// A gib model's first template is empty (Half-Life picks a random body for each gib): an
/// OBJ or a render of body 0 has no triangles, and the error names the `--body` value that
/// shows a model with a mesh; so does `convert`'s.
#[test]
fn an_empty_half_life_body_names_one_that_shows_a_mesh() {
    use skelmap_core::hl1::{BodyPartDef, Builder};
    let dir = temp_dir("hl1_empty_body");
    let dir = dir.path();
    let mut b = Builder::example();
    let full = b.bodyparts[0].models[0].clone();
    let mut empty = full.clone();
    empty.name = "template".into();
    (empty.vertices, empty.normals, empty.meshes) = (Vec::new(), Vec::new(), Vec::new());
    b.bodyparts = vec![BodyPartDef {
        name: "gibs".into(),
        models: vec![empty, full],
    }];
    // No attachment either, as gibs have none (a rig of tags alone converts).
    b.attachments.clear();
    let path = dir.join("gibs.mdl");
    std::fs::write(&path, b.write().unwrap()).unwrap();
    let p = path.to_str().unwrap();
    let obj = dir.join("gibs.obj");
    let o = obj.to_str().unwrap();
    let hint = "; body 0 shows no mesh: --body 1 shows model 1 of body part 0 (`info` lists them)";
    let out = skelmap(&["export", p, "-o", o]);
    assert!(!out.status.success(), "{out:?}");
    assert_eq!(
        stderr(&out).trim_end(),
        format!("error: {o}: the Half-Life MDL model has no triangles to write as OBJ{hint}")
    );
    let png = dir.join("gibs.png");
    let out = skelmap(&["render", p, "-o", png.to_str().unwrap()]);
    assert!(
        stderr(&out).contains(&format!("has no triangles to render{hint}")),
        "{out:?}"
    );
    let out = skelmap(&["export", p, "--body", "1", "-o", o]);
    assert!(out.status.success(), "{out:?}");
    assert!(stdout(&out).contains("4 triangles"), "{}", stdout(&out));
    // `convert` names it too, where it refuses a model without a mesh.
    let out = skelmap(&["convert", p, dir.join("gibs.iqm").to_str().unwrap()]);
    assert!(!out.status.success(), "{out:?}");
    assert_eq!(
        stderr(&out).trim_end(),
        format!("error: {p}: the Half-Life MDL has no mesh to convert{hint}")
    );
}

/// `export -o -` writes the glTF (its buffer inside, as a base64 data URI) or the OBJ to
/// standard output, and says what it wrote on standard error.
#[test]
fn export_writes_text_to_standard_output() {
    let dir = temp_dir("stdout");
    let dir = dir.path();
    let dpm = write_tube(dir);
    let d = dpm.to_str().unwrap();
    let run = skelmap(&["export", d, "-o", "-", "--format", "obj"]);
    assert!(run.status.success(), "{run:?}");
    let text = stdout(&run);
    assert!(
        text.starts_with("# skelmap DPM export\n# bind pose\n"),
        "{text}"
    );
    assert_eq!(text.lines().filter(|l| l.starts_with("v ")).count(), 136);
    assert!(!text.contains("mtllib"), "no materials on standard output");
    assert!(stderr(&run).contains("wrote obj to standard output: 136 vertices"));
    let run = skelmap(&["export", d, "-o", "-", "--format", "gltf", "--frame", "2"]);
    assert!(run.status.success(), "{run:?}");
    let json: serde_json::Value = serde_json::from_str(&stdout(&run)).unwrap();
    let buffer = &json["buffers"][0];
    let uri = buffer["uri"].as_str().unwrap();
    let encoded = uri
        .strip_prefix("data:application/octet-stream;base64,")
        .unwrap();
    // Base64 holds 3 bytes in 4 characters.
    let length = buffer["byteLength"].as_u64().unwrap() as usize;
    assert_eq!(encoded.len(), length.div_ceil(3) * 4);
    assert!(!dir.join("-").exists(), "no file named -");
    let run = skelmap(&["export", d, "-o", "-"]);
    assert_eq!(run.status.code(), Some(1));
    assert!(
        stderr(&run).contains("give --format gltf or --format obj"),
        "{}",
        stderr(&run)
    );
}

/// A glTF comes in through `convert`: the tube exported as `.gltf` (with its `.bin`) and as
/// `.glb` becomes a DPM with its clips, measured against the imported asset.
/// glTF outputs are measured as the others are: read back by skelmap's importer and
/// compared with the model, every frame.
#[test]
fn convert_measures_its_gltf_and_glb_outputs() {
    let dir = temp_dir("convert-to-gltf");
    let dir = dir.path();
    let dpm = write_tube(dir);
    for name in ["out.gltf", "out.glb"] {
        let out = skelmap(&[
            "convert",
            dpm.to_str().unwrap(),
            dir.join(name).to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{out:?}");
        let text = stdout(&out);
        let line = text
            .lines()
            .find(|l| l.starts_with("conversion error: largest "))
            .unwrap_or_else(|| panic!("{text}"));
        assert!(line.ends_with("over 9 frames of 136 vertices"), "{line}");
        let largest = largest_conversion_error(line);
        assert!(largest <= 1e-5, "{line}");
    }
}

/// ozz-animation's `interpolation_test.gltf` names an image, `l.jpg`, that its folder lacks:
/// the conversion said nothing, and the output named the image still. It now warns.
#[test]
fn convert_warns_of_an_image_the_gltf_names_that_is_not_there() {
    let dir = temp_dir("convert-gltf-missing-image");
    let dir = dir.path();
    let gltf = dir.join("tri.gltf");
    std::fs::write(
        &gltf,
        r#"{"asset":{"version":"2.0"},
  "buffers":[{"byteLength":36,
    "uri":"data:application/octet-stream;base64,AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAA"}],
  "bufferViews":[{"buffer":0,"byteLength":36}],
  "accessors":[{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3"}],
  "images":[{"uri":"l.jpg"}], "textures":[{"source":0}],
  "materials":[{"name":"skin","pbrMetallicRoughness":{"baseColorTexture":{"index":0}}}],
  "meshes":[{"primitives":[{"attributes":{"POSITION":0},"material":0}]}],
  "nodes":[{"mesh":0}]}"#,
    )
    .unwrap();
    let out = skelmap(&[
        "convert",
        gltf.to_str().unwrap(),
        dir.join("tri.dpm").to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{out:?}");
    let text = stdout(&out);
    let warning = format!(
        "warning: {}: material 'skin' names the image 'l.jpg', which is not there: the output \
         names it without its pixels",
        gltf.display()
    );
    assert!(text.contains(&warning), "{text}");
}

#[test]
fn convert_reads_gltf_and_glb() {
    let dir = temp_dir("convert-gltf");
    let dir = dir.path();
    let dpm = write_tube(dir);
    for name in ["tube.gltf", "tube.glb"] {
        let out = skelmap(&[
            "export",
            dpm.to_str().unwrap(),
            "-o",
            dir.join(name).to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{out:?}");
        let back = dir.join(format!("{name}.dpm"));
        let out = skelmap(&[
            "convert",
            dir.join(name).to_str().unwrap(),
            back.to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{out:?}");
        let text = stdout(&out);
        assert!(text.contains("over 9 frames of 136 vertices"), "{text}");
        assert!(text.contains(".dpm.framegroups"), "{text}");
        let out = skelmap(&["info", "--json", back.to_str().unwrap()]);
        let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
        assert_eq!(
            (json["bones"].as_u64(), json["frames"].as_u64()),
            (Some(4), Some(9))
        );
    }
    // The `.gltf`'s buffer is an input: no output may replace it.
    let out = skelmap(&[
        "convert",
        dir.join("tube.gltf").to_str().unwrap(),
        dir.join("tube.gltf").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
}

/// MD5 exporters write `shader ""` (assimp's BoarMan test model has fourteen such meshes, 13
/// of them empty): `info` shows the material as unnamed, and `convert` looks for no texture.
#[test]
fn an_md5_mesh_with_an_empty_shader_is_unnamed_and_looks_for_no_texture() {
    let dir = temp_dir("md5-empty-shader");
    let dir = dir.path();
    let mesh = dir.join("boar.md5mesh");
    std::fs::write(
        &mesh,
        "MD5Version 10\ncommandline \"\"\nnumJoints 1\nnumMeshes 2\njoints {\n\t\"Bone\"\t-1 \
         ( 0 0 0 ) ( -0.707107 0 0 )\t\t// \n}\nmesh {\n\tshader \"\"\n\tnumverts 0\n\tnumtris 0\n\
         \tnumweights 0\n}\nmesh {\n\tshader \"\"\n\tnumverts 3\n\tvert 0 ( 0 0 ) 0 1\n\
         \tvert 1 ( 1 0 ) 1 1\n\tvert 2 ( 0 1 ) 2 1\n\tnumtris 1\n\ttri 0 0 2 1\n\tnumweights 3\n\
         \tweight 0 0 1 ( 0 0 0 )\n\tweight 1 0 1 ( 1 0 0 )\n\tweight 2 0 1 ( 0 1 0 )\n}\n",
    )
    .unwrap();
    let out = skelmap(&["info", mesh.to_str().unwrap()]);
    assert!(out.status.success(), "{out:?}");
    let text = stdout(&out);
    for line in [
        "materials: (unnamed); (unnamed)",
        "1 bone (1 root, 1 attachment), 2 meshes, 1 frame",
        "0 0 vertices, 0 triangles",
        "1 3 vertices, 1 triangle, 3 influences (max 1)",
    ] {
        assert!(text.contains(line), "{line:?} in:\n{text}");
    }
    let glb = dir.join("boar.glb");
    let out = skelmap(&["convert", mesh.to_str().unwrap(), glb.to_str().unwrap()]);
    assert!(out.status.success(), "{out:?}");
    assert!(!stderr(&out).contains("texture"), "{}", stderr(&out));
}

/// An MD3 player's legs: `info` names the skin chosen with `--skin`, the levels of detail,
/// the clips of `animation.cfg`, and the tags with where frame 0 puts them.
#[test]
fn info_shows_an_md3s_companions_and_tags() {
    use skelmap_core::md3::Builder;
    use skelmap_core::md3::write::TagDef;
    let dir = temp_dir("md3-companions");
    let dir = dir.path();
    let mut legs = Builder::triangle();
    legs.tags = vec![vec![TagDef::at("tag_torso", [0.0, 0.0, 24.0])]];
    let bytes = legs.write();
    for name in ["lower.md3", "lower_1.md3", "lower_2.md3"] {
        std::fs::write(dir.join(name), &bytes).unwrap();
    }
    std::fs::write(dir.join("lower_red.skin"), "triangle,models/red\n").unwrap();
    // 25 animations of one frame: the legs' start at the deaths' end once moved back.
    let cfg: String = (0..25).map(|i| format!("{} 1 1 15\n", i.min(6))).collect();
    std::fs::write(dir.join("animation.cfg"), cfg).unwrap();
    let lower = dir.join("lower.md3");
    let out = skelmap(&["info", lower.to_str().unwrap(), "--skin", "red"]);
    assert!(out.status.success(), "{out:?}");
    let text = stdout(&out);
    for line in [
        "materials: models/red",
        "2 levels of detail",
        "skin file lower_red.skin",
        "clips from animation.cfg",
        "tags:",
        "  0 tag_torso at [0.0, 0.0, 24.0]",
        "clips (from animation.cfg):",
    ] {
        assert!(text.contains(line), "{line:?} in:\n{text}");
    }
    let out = skelmap(&["info", lower.to_str().unwrap(), "--skin", "blue"]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("lower_blue.skin"), "{}", stderr(&out));
}

/// A Quake III player exported as one scene from its folder or its `lower.md3`; `--part`
/// exports the legs alone; `--play` names clips the parts have; a player's switches on
/// anything else, and a player as OBJ or with `--frame`, are refused in one line.
#[test]
fn export_writes_a_player_as_one_scene() {
    let dir = temp_dir("player-export");
    let dir = dir.path();
    skelmap_core::synth::player(1).write_to(dir).unwrap();
    let (d, lower) = (dir.to_str().unwrap(), dir.join("lower.md3"));
    let glb = dir.join("out/player.glb");
    let out = skelmap(&["export", d, "-o", glb.to_str().unwrap()]);
    assert!(out.status.success(), "{out:?}");
    assert!(
        stdout(&out).contains("a player of 3 parts (lower, upper, head), 3 meshes, 18 vertices, 12 triangles, 30 animations"),
        "{}",
        stdout(&out)
    );
    let out = skelmap(&[
        "export",
        lower.to_str().unwrap(),
        "-o",
        glb.to_str().unwrap(),
        "--play",
        "both_death1",
    ]);
    assert!(stdout(&out).contains("1 animation"), "{out:?}");
    let out = skelmap(&[
        "export",
        lower.to_str().unwrap(),
        "-o",
        glb.to_str().unwrap(),
        "--part",
    ]);
    assert!(
        stdout(&out).contains("wrote") && stdout(&out).contains("1 mesh,"),
        "{out:?}"
    );
    for (args, message) in [
        (
            vec!["--play", "legs_fly"],
            "--play legs_fly: every name must be a clip of some part",
        ),
        (
            vec!["--frame", "2"],
            "--frame, --clip, --blend and --additive pose one model",
        ),
    ] {
        let mut all = vec!["export", d, "-o", glb.to_str().unwrap()];
        all.extend(args);
        let out = skelmap(&all);
        assert!(
            !out.status.success() && stderr(&out).contains(message),
            "{out:?}"
        );
    }
    let upper = dir.join("upper.md3");
    let out = skelmap(&[
        "export",
        upper.to_str().unwrap(),
        "-o",
        glb.to_str().unwrap(),
        "--weapon",
        "w.md3",
    ]);
    assert!(
        !out.status.success() && stderr(&out).contains("are for a Quake III player"),
        "{out:?}"
    );
}

/// `convert` writes MD3 and MD2 and prints each output's error over every frame, in
/// fractions of the size and in model units: an MD3 comes back exactly; the tube refuses
/// without `--bake` and is baked with it; a rig of tags alone converts to an MD3.
#[test]
fn convert_writes_md3_and_md2_and_measures_every_frame() {
    let dir = temp_dir("convert-md3");
    let dir = dir.path();
    let md3 = dir.join("animated.md3");
    let mut b = skelmap_core::md3::Builder::triangle();
    b.frames.push(b.frames[0].clone());
    let moved: Vec<([i16; 3], u16)> = b.surfaces[0].frames[0]
        .iter()
        .map(|(p, n)| ([p[0], p[1], p[2] + 64], *n))
        .collect();
    b.surfaces[0].frames.push(moved);
    b.tags.push(b.tags[0].clone());
    std::fs::write(&md3, b.write()).unwrap();
    let out = skelmap(&[
        "convert",
        md3.to_str().unwrap(),
        dir.join("back.md3").to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{out:?}");
    assert!(
        stdout(&out).contains(
            "conversion error: largest 0.00e0 (0.000e0 units) and RMS 0.00e0 (0.000e0 units) \
             of the model's size (1.4142) over 2 frames of 3 vertices\nattachment points: 1 \
             of 1 kept; origins within 0.000e0 units and axes within 0.000° over 2 frames"
        ),
        "{}",
        stdout(&out)
    );
    let out = skelmap(&[
        "convert",
        md3.to_str().unwrap(),
        dir.join("q2.md2").to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{out:?}");
    assert!(
        stdout(&out).contains(" units) of the model's size"),
        "{}",
        stdout(&out)
    );
    assert!(
        stdout(&out).contains("over 2 frames of 3 vertices"),
        "{}",
        stdout(&out)
    );

    let dpm = write_tube(dir);
    let refused = dir.join("tube.md3");
    let out = skelmap(&["convert", dpm.to_str().unwrap(), refused.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("MD3 cannot hold skeletal animation"),
        "{}",
        stderr(&out)
    );
    assert!(!refused.exists());
    for name in ["tube.md3", "tube.md2"] {
        let path = dir.join(name);
        let out = skelmap(&[
            "convert",
            dpm.to_str().unwrap(),
            path.to_str().unwrap(),
            "--bake",
        ]);
        assert!(out.status.success(), "{out:?}");
        assert!(
            stdout(&out).contains("over 9 frames of "),
            "{}",
            stdout(&out)
        );
        let out = skelmap(&["validate", path.to_str().unwrap()]);
        assert!(out.status.success(), "{name}: {}", stdout(&out));
    }

    let rig = dir.join("rig.md3");
    let mut b = skelmap_core::md3::Builder::triangle();
    b.surfaces.clear();
    std::fs::write(&rig, b.write()).unwrap();
    let out = skelmap(&[
        "convert",
        rig.to_str().unwrap(),
        dir.join("rig2.md3").to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{out:?}");
    let info = skelmap(&["info", dir.join("rig2.md3").to_str().unwrap()]);
    assert!(stdout(&info).contains("tag_weapon"), "{}", stdout(&info));
}

/// `export` to glTF keeps four influences a vertex unless `--all-influences`, chosen as the
/// other writers choose them, and says so in a note (on standard output beside the file it
/// wrote, on standard error when the glTF goes to standard output); with every influence kept
/// there is no note.
#[test]
fn export_says_which_influences_a_gltf_keeps() {
    let Some(path) = skelmap_testkit::corpus_path("dpm/xon_monsters_nanomage_lod2.dpm") else {
        return;
    };
    let dir = temp_dir("export-influences");
    let dir = dir.path();
    let note = "note: 412 vertices had more than 4 influences; the 4 whose largest error over \
                551 frames is smallest were kept (118 differ from the 4 heaviest)";
    let path = path.to_str().unwrap();
    let glb = dir.join("m.glb");
    let out = skelmap(&["export", path, "-o", glb.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).lines().any(|l| l == note), "{}", stdout(&out));
    let out = skelmap(&["export", path, "-o", "-", "--format", "gltf"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).lines().any(|l| l == note), "{}", stderr(&out));
    let all = dir.join("all.glb");
    let out = skelmap(&[
        "export",
        path,
        "-o",
        all.to_str().unwrap(),
        "--all-influences",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stdout(&out).contains("note:"), "{}", stdout(&out));
}

/// MD5 → glTF → MD5 with `export` and `convert`: each shared weapon's mesh and its
/// animations (one file a clip) come back with every frame within 1e-5 of the model's size of
/// the original, and `convert` reports its error over every frame, clip by clip.
#[test]
fn md5_survives_a_gltf_round_trip() {
    use skelmap_core::Model;
    let Some(corpus) = skelmap_testkit::corpus_engines_path("md5") else {
        return;
    };
    let dir = temp_dir("md5-gltf");
    let dir = dir.path();
    for name in ["reweap_pistol", "reweap_flamer", "reweap_rocket_launcher"] {
        let source = corpus.join(format!("{name}.md5mesh"));
        let back = dir.join(format!("{name}.md5mesh"));
        let (largest, text) = through_gltf(&source, &dir.join(format!("{name}.glb")), &back);
        assert!(largest <= 1e-5, "{name}: {text}");
        let (a, b) = (Model::open(&source).unwrap(), Model::open(&back).unwrap());
        assert_eq!(
            (a.num_frames(), a.clips().len()),
            (b.num_frames(), b.clips().len())
        );
        let error = frames_error(&a, &b);
        assert!(error <= 1e-5, "{name}: {error}");
    }
}

/// `source` exported to `glb` and converted back to `back` (`export`, then `convert`), both
/// succeeding: the largest error `convert` printed, and its output.
fn through_gltf(source: &Path, glb: &Path, back: &Path) -> (f32, String) {
    let out = skelmap(&[
        "export",
        source.to_str().unwrap(),
        "-o",
        glb.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{out:?}");
    let out = skelmap(&["convert", glb.to_str().unwrap(), back.to_str().unwrap()]);
    assert!(out.status.success(), "{out:?}");
    let text = stdout(&out);
    (largest_conversion_error(&text), text)
}

/// The farthest a vertex of `b` lies from where `a` puts it, over every frame, the clips
/// matched by name.
fn frames_error(a: &skelmap_core::Model<'_>, b: &skelmap_core::Model<'_>) -> f32 {
    use skelmap_core::model::convert::{self, Posed};
    let map = convert::frames_by_clip(Posed::Model(a), b).expect("the same clips");
    convert::skinning_error_with(Posed::Model(a), Posed::Model(b), |f| map[f]).max
}

/// An MD5 whose animation has the Quake II remaster's `.md5scale` (the arm's own vertices
/// halved in frame 1): through glTF and back to MD5 with `export` and
/// `convert`, the skin scale travels as a leaf joint's scale key and comes back as an
/// `.md5scale` beside the animation, every frame within 1e-5 of the model's size, and
/// `convert` reports an error to match.
#[test]
fn an_md5_s_skin_scales_survive_a_gltf_round_trip() {
    use skelmap_core::Model;
    let dir = temp_dir("md5-scale-gltf");
    let dir = dir.path();
    let mesh = write_md5_with_skin_scale(dir);
    let back = dir.join("back.md5mesh");
    let (largest, text) = through_gltf(&mesh, &dir.join("m.glb"), &back);
    assert!(largest <= 1e-5, "{text}");
    assert_eq!(
        std::fs::read_to_string(dir.join("back-idle.md5scale")).unwrap(),
        r#"{"arm_skin":{"1":0.5}}"#
    );
    let (a, b) = (Model::open(&mesh).unwrap(), Model::open(&back).unwrap());
    assert_eq!((a.num_frames(), b.num_frames()), (2, 2));
    let error = frames_error(&a, &b);
    assert!(error <= 1e-5, "{error}");
}

/// An IQM whose two clips an MD5 reads back in another order (`walk` before `idle` in
/// the IQM; `back-idle.md5anim` before `back-walk.md5anim` beside the mesh): `convert`
/// measures the attachment points (IQM's joints) against the frames of the same clip, as
/// it measures the vertices, so both come back near 0.
#[test]
fn convert_measures_attachments_of_reordered_clips_by_clip() {
    use skelmap_core::model::convert;
    let dir = temp_dir("md5-reordered-attachments");
    let dir = dir.path();
    let bytes = tube(&TubeParams::default()).write().unwrap();
    let source = skelmap_core::Model::from_bytes(&bytes).unwrap();
    let asset = convert::asset_of(&source).unwrap();
    let mut iqm = skelmap_core::iqm::Builder::from_asset(&asset)
        .unwrap()
        .builder;
    let frames = u32::try_from(iqm.frames.len()).unwrap();
    assert_eq!(frames, 9);
    iqm.anims = [("walk", 0, 5), ("idle", 5, frames - 5)]
        .map(
            |(name, first_frame, num_frames)| skelmap_core::iqm::AnimDef {
                name: name.into(),
                first_frame,
                num_frames,
                framerate: 10.0,
                looped: true,
            },
        )
        .into();
    let input = dir.join("tube.iqm");
    std::fs::write(&input, iqm.write().unwrap()).unwrap();
    let out = skelmap(&[
        "convert",
        input.to_str().unwrap(),
        dir.join("back.md5mesh").to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{out:?}");
    let text = stdout(&out);
    let back = skelmap_core::Model::open(dir.join("back.md5mesh")).unwrap();
    let names: Vec<&str> = back.clips().iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["idle", "walk"]);
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix("attachment points: 4 of 4 kept; origins within "))
        .unwrap_or_else(|| panic!("{text}"));
    let origin: f32 = line.split(' ').next().unwrap().parse().unwrap();
    assert!(origin < 1e-3, "{text}");
    assert!(line.ends_with("over 9 frames"), "{text}");
}

/// Through glTF and back with `export` and `convert`: a DPM into MDR and into PSK (with its
/// PSA beside it), and a ZYM (which binds a vertex to one bone, so it is made from the DPM
/// first) into ZYM again. Each comes back with every frame within 1e-5 of its size and its
/// clips (MDR's from the frame names and the `.framegroups` beside it, ZYM's scenes, PSA's
/// sequences), and `convert` reports its error.
#[test]
fn mdr_zym_and_psk_survive_a_gltf_round_trip() {
    use skelmap_core::Model;
    use skelmap_core::model::convert::{self, Posed};
    let dir = temp_dir("mdr-zym-gltf");
    let dir = dir.path();
    let dpm = write_tube(dir);
    let zym = dir.join("tube.zym");
    let out = skelmap(&["convert", dpm.to_str().unwrap(), zym.to_str().unwrap()]);
    assert!(out.status.success(), "{out:?}");
    for (source, ext) in [(dpm.clone(), "mdr"), (zym, "zym"), (dpm, "psk")] {
        let glb = dir.join(format!("from-{ext}.glb"));
        let back = dir.join(format!("back.{ext}"));
        let (largest, text) = through_gltf(&source, &glb, &back);
        assert!(largest <= 1e-5, "{ext}: {text}");
        let (a, b) = (Model::open(&source).unwrap(), Model::open(&back).unwrap());
        let clips = |m: &Model<'_>| {
            m.clips()
                .iter()
                .map(|c| (c.name.clone(), c.first, c.count))
                .collect::<Vec<_>>()
        };
        assert_eq!(clips(&a), clips(&b), "{ext}");
        let error = convert::skinning_error(Posed::Model(&a), Posed::Model(&b), 0);
        assert_eq!(error.frames, a.num_frames(), "{ext}");
        assert!(error.max <= 1e-5 * error.size, "{ext}: {error}");
    }
}
