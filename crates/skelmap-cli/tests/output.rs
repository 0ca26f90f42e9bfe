//! No command writes over a file it reads or over another of its outputs, whatever path
//! leads there (`src/output.rs`); writes are atomic and create their folders.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::path::{Path, PathBuf};

use support::{listing, skelmap, stderr, stdout, temp_dir, write_tube};

/// The files in `dir` with their bytes (a folder's as empty).
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    listing(dir)
        .into_iter()
        .map(|name| {
            let bytes = std::fs::read(dir.join(&name)).unwrap_or_default();
            (name, bytes)
        })
        .collect()
}

/// Runs `args`, expects it to refuse with exactly `message` (after `error: `), and checks
/// that nothing in `dir` changed: the same files with the same bytes.
fn refused(dir: &Path, args: &[&str], message: &str) {
    let before = snapshot(dir);
    let out = skelmap(args);
    assert_eq!(out.status.code(), Some(1), "{args:?}: {out:?}");
    assert_eq!(stderr(&out), format!("error: {message}\n"), "{args:?}");
    assert_eq!(stdout(&out), "", "{args:?}: nothing is said to be written");
    assert!(
        before == snapshot(dir),
        "{args:?} changed the files of {dir:?}"
    );
}

/// A DPM under `name` in `dir`: files are recognised by their bytes, so a model may carry
/// any extension, an output's included.
fn model_named(dir: &Path, name: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::copy(write_tube(dir), &path).unwrap();
    std::fs::remove_file(dir.join("tube.dpm")).unwrap();
    path
}

/// `export g.obj -o g.obj`, `export g.glb -o g.glb` and `render g.png -o g.png` used to
/// replace the model with their output and print "wrote …".
#[test]
fn export_and_render_never_write_over_the_model() {
    let dir = temp_dir("guard-model");
    let dir = dir.path();
    for (command, name) in [
        ("export", "g.obj"),
        ("export", "g.glb"),
        ("export", "g.gltf"),
        ("render", "g.png"),
    ] {
        let model = model_named(dir, name);
        let arg = model.to_str().unwrap();
        refused(
            dir,
            &[command, arg, "-o", arg],
            &format!(
                "{arg} would overwrite the model, which this command reads; choose another \
                 output"
            ),
        );
        std::fs::remove_file(&model).unwrap();
    }
}

/// The same file reached by another path: through `..`, a symbolic link or a hard link.
#[test]
fn another_path_to_the_model_is_the_model() {
    let dir = temp_dir("guard-paths");
    let dir = dir.path();
    let model = model_named(dir, "g.glb");
    let arg = model.to_str().unwrap();
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    let mut others = vec![dir.join("sub/../g.glb")];
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(&model, dir.join("soft.glb")).unwrap();
        std::fs::hard_link(&model, dir.join("hard.glb")).unwrap();
        others.extend([dir.join("soft.glb"), dir.join("hard.glb")]);
    }
    for other in &others {
        let out = other.to_str().unwrap();
        refused(
            dir,
            &["export", arg, "-o", out],
            &format!(
                "{out} would overwrite the model ({arg}), which this command reads; choose \
                 another output"
            ),
        );
    }
}

/// A `.gltf` output writes its buffer beside it as `.bin`, and an `.obj` its materials as
/// `.mtl`; neither may be the model either, and nothing is written when one is refused.
#[test]
fn a_gltf_buffer_never_writes_over_the_model() {
    let dir = temp_dir("guard-bin");
    let dir = dir.path();
    for (name, output) in [("g.bin", "g.gltf"), ("m.mtl", "m.obj")] {
        let model = model_named(dir, name);
        let output = dir.join(output);
        let model = model.to_str().unwrap();
        refused(
            dir,
            &["export", model, "-o", output.to_str().unwrap()],
            &format!(
                "{model} would overwrite the model, which this command reads; choose another \
                 output"
            ),
        );
        assert!(!output.exists(), "{output:?} is not written");
    }
}

/// Every file the model was opened with is an input: here an SKM's skeleton, reached through
/// a link under an output's name (a skeleton's own name always ends in `.skp`).
#[cfg(unix)]
#[test]
fn the_model_s_companions_are_inputs_too() {
    let dir = temp_dir("guard-companions");
    let dir = dir.path();
    let dpm = write_tube(dir);
    let out = skelmap(&[
        "convert",
        dpm.to_str().unwrap(),
        dir.join("m").to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{out:?}");
    std::fs::remove_file(&dpm).unwrap();
    std::os::unix::fs::symlink(dir.join("m.skp"), dir.join("rig.png")).unwrap();
    let skm = dir.join("m.skm");
    let rig = dir.join("rig.png");
    let rig = rig.to_str().unwrap();
    refused(
        dir,
        &["render", skm.to_str().unwrap(), "-o", rig, "--size", "32"],
        &format!(
            "{rig} would overwrite the model's skeleton ({}), which this command reads; \
             choose another output",
            dir.join("m.skp").display()
        ),
    );
}

/// A companion found from the game folder above the model (an MDM's MDX, through its
/// character file) is an input too, named by its path under that folder.
#[cfg(unix)]
#[test]
fn a_companion_found_from_the_game_folder_is_an_input() {
    let dir = temp_dir("guard-game-folder");
    let dir = dir.path();
    let etmain = dir.join("etmain");
    let (mdm, mdx) = skelmap_core::mdm::Builder::triangle().write();
    let files: [(&str, &[u8]); 4] = [
        ("models/body.mdm", &mdm),
        ("animations/body.mdx", &mdx),
        (
            "characters/c.char",
            b"characterDef { mesh \"models/body.mdm\" animationGroup \"animations/g.anim\" }",
        ),
        (
            "animations/g.anim",
            b"animgroup { animfile \"animations/body.mdx\" { } }",
        ),
    ];
    support::write_files(&etmain, &files);
    std::os::unix::fs::symlink(etmain.join("animations/body.mdx"), dir.join("rig.png")).unwrap();
    let mesh = etmain.join("models/body.mdm");
    let rig = dir.join("rig.png");
    let rig = rig.to_str().unwrap();
    refused(
        dir,
        &["render", mesh.to_str().unwrap(), "-o", rig, "--size", "32"],
        &format!(
            "{rig} would overwrite the model's skeleton ({}), which this command reads; \
             choose another output",
            etmain.join("animations/body.mdx").display()
        ),
    );
}

/// `convert a.dpm a.dpm` used to overwrite its own input, and `convert a.dpm a.skp` wrote the
/// SKM to a.skp and then the SKP over it. Outputs come from one stem now; neither may be the
/// input (compared as canonical paths) or the other output; no temporary file is left over.
#[test]
fn convert_never_overwrites_its_input_or_its_other_output() {
    let dir = temp_dir("convert-safe");
    let dir = dir.path();
    let dpm = write_tube(dir);
    let before = std::fs::read(&dpm).unwrap();
    let dpm_arg = dpm.to_str().unwrap();

    let out = skelmap(&["convert", dpm_arg, dpm_arg]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert_eq!(
        std::fs::read(&dpm).unwrap(),
        before,
        "the input is untouched"
    );

    // The same file reached by another path, under an SKM name: still the input.
    let disguised = dir.join("x.skm");
    std::fs::copy(&dpm, &disguised).unwrap();
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    let other_path = dir.join("sub/../x.skm");
    let out = skelmap(&[
        "convert",
        disguised.to_str().unwrap(),
        other_path.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        stderr(&out).contains("would overwrite the model"),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read(&disguised).unwrap(), before);
    std::fs::remove_file(&disguised).unwrap();
    std::fs::remove_dir(dir.join("sub")).unwrap();

    // `a.skp` names the stem: a.skm and a.skp, both valid.
    let out = skelmap(&["convert", dpm_arg, dir.join("a.skp").to_str().unwrap()]);
    assert!(out.status.success(), "{out:?}");
    let skm = dir.join("a.skm");
    let out = skelmap(&[
        "validate",
        skm.to_str().unwrap(),
        dir.join("a.skp").to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stdout(&out));
    assert_eq!(
        listing(dir),
        ["a.skm", "a.skp", "tube.dpm"],
        "no temporary files"
    );

    // Both named; an SKP output that is not .skp is refused before anything is written.
    let out = skelmap(&[
        "convert",
        dpm_arg,
        dir.join("b.skm").to_str().unwrap(),
        dir.join("c.skp").to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{out:?}");
    let out = skelmap(&[
        "convert",
        dpm_arg,
        dir.join("d.skm").to_str().unwrap(),
        dir.join("d.skm").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(!dir.join("d.skm").exists());
}

/// `export`, `render` and `convert` used to fail when the output folder did not exist.
#[test]
fn outputs_into_folders_that_do_not_exist_yet() {
    let dir = temp_dir("new-folders");
    let dir = dir.path();
    let dpm = write_tube(dir);
    let dpm = dpm.to_str().unwrap();
    for args in [
        vec!["export", dpm, "-o", "a/b/tube.glb"],
        vec!["render", dpm, "-o", "c/d/tube.png", "--size", "64"],
        vec!["convert", dpm, "e/f/tube"],
    ] {
        let args: Vec<String> = args
            .iter()
            .map(|a| {
                if a.contains('/') {
                    dir.join(a).to_string_lossy().into_owned()
                } else {
                    a.to_string()
                }
            })
            .collect();
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = skelmap(&refs);
        assert!(out.status.success(), "{refs:?}: {}", stderr(&out));
    }
    for file in [
        "a/b/tube.glb",
        "c/d/tube.png",
        "e/f/tube.skm",
        "e/f/tube.skp",
    ] {
        assert!(dir.join(file).is_file(), "{file}");
    }
}
