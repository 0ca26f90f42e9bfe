//! What the CLI's test files share: running the binary, reading its output, scratch folders.
#![allow(dead_code, clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use skelmap_core::synth::{TubeParams, tube};
use tempfile::TempDir;

/// Runs the `skelmap` binary built for these tests.
pub fn skelmap(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_skelmap"))
        .args(args)
        .output()
        .unwrap()
}

/// Standard output, as UTF-8.
pub fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

/// A fresh folder for one test, named after it, in the system's temporary folder. It is removed
/// with everything in it when the returned value drops, also when the test panics: keep it
/// bound until the test ends.
pub fn temp_dir(name: &str) -> TempDir {
    tempfile::Builder::new()
        .prefix(&format!("skelmap-cli-{name}-"))
        .tempdir()
        .unwrap()
}

/// Writes the default synthetic tube as `dir/tube.dpm`.
pub fn write_tube(dir: &Path) -> PathBuf {
    let path = dir.join("tube.dpm");
    std::fs::write(&path, tube(&TubeParams::default()).write().unwrap()).unwrap();
    path
}

/// Writes `synth::iqm_character` (80 joints, its vertices in a vertex-cache order) as
/// `dir/character.iqm`.
pub fn write_character(dir: &Path) -> PathBuf {
    let path = dir.join("character.iqm");
    let bytes = skelmap_core::synth::iqm_character(&Default::default())
        .model
        .write()
        .unwrap();
    std::fs::write(&path, bytes).unwrap();
    path
}

/// Writes each `(path, bytes)` of `files` under `dir`, creating its folders: a game folder
/// laid out as a test needs it.
pub fn write_files(dir: &Path, files: &[(&str, &[u8])]) {
    for (path, bytes) in files {
        let full = dir.join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, bytes).unwrap();
    }
}

/// Standard error, as UTF-8.
pub fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

/// The files in `dir`, sorted.
pub fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// The width and RGBA pixels of a PNG `render` wrote.
pub fn pixels(path: &Path) -> (u32, Vec<u8>) {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut rgba = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut rgba).unwrap();
    rgba.truncate(info.buffer_size());
    (info.width, rgba)
}

/// The largest error `convert` reports (relative to the model's size) in its standard output
/// `text`: the number after "conversion error: largest ".
pub fn largest_conversion_error(text: &str) -> f32 {
    let largest = text
        .split("conversion error: largest ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|v| v.parse().ok());
    assert!(largest.is_some(), "no conversion error in {text}");
    largest.unwrap()
}

/// An MD5 in `dir`: `m.md5mesh` (a root and its child `arm` a unit up, a vertex on the root
/// and two on the arm), its animation `m-idle.md5anim` (the arm a unit further up in its
/// second frame) and that animation's `.md5scale` (the arm's own vertices halved in the
/// second frame). Returns the mesh's path.
pub fn write_md5_with_skin_scale(dir: &Path) -> PathBuf {
    let mesh = dir.join("m.md5mesh");
    std::fs::write(
        &mesh,
        "MD5Version 10\ncommandline \"\"\nnumJoints 2\nnumMeshes 1\njoints {\n\t\"root\"\t-1 \
         ( 0 0 0 ) ( 0 0 0 )\n\t\"arm\"\t0 ( 0 0 1 ) ( 0 0 0 )\n}\nmesh {\n\tshader \"skin\"\n\
         \tnumverts 3\n\tvert 0 ( 0 0 ) 0 1\n\tvert 1 ( 1 0 ) 1 1\n\tvert 2 ( 0 1 ) 2 1\n\
         \tnumtris 1\n\ttri 0 0 2 1\n\tnumweights 3\n\tweight 0 0 1 ( 1 0 0 )\n\
         \tweight 1 1 1 ( 1 0 0 )\n\tweight 2 1 1 ( 0 1 0 )\n}\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("m-idle.md5anim"),
        "MD5Version 10\ncommandline \"\"\nnumFrames 2\nnumJoints 2\nframeRate 24\n\
         numAnimatedComponents 1\nhierarchy {\n\t\"root\"\t-1 0 0\n\t\"arm\"\t0 4 0\n}\n\
         bounds {\n\t( 0 0 0 ) ( 1 1 1 )\n\t( 0 0 0 ) ( 1 1 2 )\n}\nbaseframe {\n\
         \t( 0 0 0 ) ( 0 0 0 )\n\t( 0 0 1 ) ( 0 0 0 )\n}\nframe 0 {\n\t1\n}\nframe 1 {\n\t2\n}\n",
    )
    .unwrap();
    std::fs::write(dir.join("m-idle.md5scale"), r#"{ "arm": { "1": 0.5 } }"#).unwrap();
    mesh
}

/// The JSON chunk of the `.glb` at `path`.
pub fn glb_json(path: &Path) -> serde_json::Value {
    let bytes = std::fs::read(path).unwrap();
    let len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    serde_json::from_slice(&bytes[20..20 + len]).unwrap()
}
