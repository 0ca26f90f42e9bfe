//! Blender, the program modders use, as a client of `skelmap export`: every skeletal corpus
//! model (DPM, MS3D, IQM, MDL7 with bones and a mesh), the Quake MDLs and one GameStudio MDL
//! (vertex-animated: morph targets) are exported as `.glb`, imported into an empty Blender
//! scene by its glTF add-on and exported again by it (`tests/blender/roundtrip.py`).
//!
//! skelmap's GLB must hold an animation per clip of the model (a vertex-animated model of one
//! frame has none to hold) and, for a skeletal model, a skin of the model's bones plus the
//! `skelmap_root` joint the exporter puts above them. Blender's report must show one armature
//! of those bones with `skelmap_root` its only root bone, every mesh node skelmap wrote as a
//! mesh object bound to it, with the same vertex count (the importer does not merge vertices
//! by default), a shape key per morph target plus Blender's basis, and at least an action per
//! animation (Blender names them `<clip>_<object>`; the names are printed). Blender's own GLB
//! must exist, with a skin of as many joints for a skeletal model and as many animations.
//! Files without bones or without a mesh are not skeletal models and are left out, saying so.
//!
//! Everything lands in `target/tmp/blender/`, at stable paths: `<model file>.glb` (skelmap's),
//! `<model file>.blender.glb` (Blender's, for a later test to import back), `.report.json`
//! and `.log` (Blender's output). Models run in parallel, one Blender per CPU.
//!
//! Without `blender` on the PATH the test skips with a message, unless
//! `SKELMAP_REQUIRE_BLENDER=1` (set by `.ci/run`) makes that a failure. Debian 12's Blender
//! 3.4 needs `python3-numpy`; the script puts back the `numpy.bool` alias its add-on uses.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::Value;

/// The environment variable that turns a missing Blender from a skip into a failure.
const REQUIRE_BLENDER: &str = "SKELMAP_REQUIRE_BLENDER";

/// One Blender run taking longer than this is a failure (the slowest model takes ~50 s).
const TIMEOUT: Duration = Duration::from_secs(600);

/// The vertex-animated GameStudio MDL taken from `corpus/mdl` (the most clips there).
const MORPH_MDL: &str = "mdl/gex4_skeleton.mdl";

/// The Quake knight, which the brief names; the corpus may not hold it.
const QUAKE_KNIGHT: &str = "mdl_quake/knight.mdl";

/// How far Blender's re-exported frames may stray from the model's at the times both hold,
/// relative to the model's size: Blender keeps every key and influence (`--all-influences`
/// on both sides), so what remains is 32-bit rounding through its bone rests.
const SHARED_TOLERANCE: f32 = 1e-4;

/// `blender --version`'s first line, or `None` (after saying so) when there is no Blender.
fn blender_version() -> Option<String> {
    let out = Command::new("blender")
        .arg("--version")
        .stdin(Stdio::null())
        .output();
    match out {
        Ok(out) if out.status.success() => {
            let text = String::from_utf8_lossy(&out.stdout);
            Some(text.lines().next().unwrap_or("").trim().to_string())
        }
        other => {
            assert!(
                !std::env::var(REQUIRE_BLENDER).is_ok_and(|v| v == "1"),
                "blender is not runnable and {REQUIRE_BLENDER}=1: {other:?}"
            );
            eprintln!("SKIPPED: the blender command is not installed ({other:?})");
            None
        }
    }
}

/// `skelmap info --json` of `path`.
fn info(path: &Path) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_skelmap"))
        .arg("info")
        .arg("--json")
        .arg(path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "skelmap info --json {}: {}",
        path.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn count(v: &Value, key: &str) -> u64 {
    v[key].as_u64().unwrap_or_else(|| panic!("{key} in {v}"))
}

/// What the glTF should hold in Blender.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Bones and meshes: an armature.
    Skeletal,
    /// Frames of vertex positions: morph targets, shape keys in Blender.
    Morph,
}

/// One model to send through Blender, with what `info --json` says about it.
#[derive(Debug)]
struct Job {
    path: PathBuf,
    name: String,
    kind: Kind,
    bones: u64,
    meshes: u64,
    vertices: u64,
    frames: u64,
    clips: Vec<String>,
}

impl Job {
    /// A rough cost (Blender's export samples every action over every bone), largest first.
    fn cost(&self) -> u64 {
        (self.bones + 1) * self.frames + self.vertices / 10
    }
}

/// The job for `path`, or why it is left out.
fn job(path: &Path, kind: Kind) -> Result<Job, String> {
    let v = info(path);
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let clips = v["frame_groups"]
        .as_array()
        .map(|groups| {
            groups
                .iter()
                .map(|g| g["name"].as_str().unwrap_or("").to_string())
                .collect()
        })
        .unwrap_or_default();
    let job = Job {
        path: path.to_path_buf(),
        name,
        kind,
        bones: count(&v, "bones"),
        meshes: count(&v, "meshes"),
        vertices: count(&v, "vertices"),
        frames: count(&v, "frames"),
        clips,
    };
    if job.meshes == 0 || job.vertices == 0 {
        return Err(format!(
            "no mesh ({} bones, {} frames: an animation or a skeleton only)",
            job.bones, job.frames
        ));
    }
    if kind == Kind::Skeletal && job.bones == 0 {
        return Err("no bones (a static or vertex-animated model)".to_string());
    }
    Ok(job)
}

/// The models to run and the files left out with the reason.
fn jobs() -> (Vec<Job>, Vec<(PathBuf, String)>) {
    let mut skeletal = Vec::new();
    for sub in ["dpm", "ms3d"] {
        skeletal.extend(skelmap_testkit::corpus_files(sub));
    }
    for sub in ["iqm", "mdl7"] {
        skeletal.extend(skelmap_testkit::corpus_next_files(sub));
    }
    let mut morph = skelmap_testkit::corpus_files("mdl_quake");
    if skelmap_testkit::corpus_root().join(QUAKE_KNIGHT).exists() {
        eprintln!("the Quake knight is {QUAKE_KNIGHT}");
    } else {
        eprintln!("NOTE: {QUAKE_KNIGHT} is not in the corpus: the Quake MDLs there stand for it");
    }
    morph.extend(skelmap_testkit::corpus_path(MORPH_MDL));

    let mut jobs = Vec::new();
    let mut left_out = Vec::new();
    let all = skeletal
        .into_iter()
        .map(|p| (p, Kind::Skeletal))
        .chain(morph.into_iter().map(|p| (p, Kind::Morph)));
    for (path, kind) in all {
        match job(&path, kind) {
            Ok(job) => jobs.push(job),
            Err(why) => left_out.push((path, why)),
        }
    }
    (jobs, left_out)
}

/// What one model gave.
#[derive(Debug)]
struct Outcome {
    name: String,
    kind: Kind,
    bones: u64,
    blender_bones: Option<u64>,
    mesh_objects: usize,
    vertices: u64,
    shape_keys: u64,
    clips: usize,
    actions: Vec<String>,
    out_animations: usize,
    out_bytes: u64,
    seconds: f64,
    /// Blender's frames against the model's at the times both hold (how many), and
    /// Blender's GLB written as DPM and IQM against itself: largest distance relative to the
    /// size.
    shared_error: f32,
    frames_compared: usize,
    dpm_error: f32,
    iqm_error: f32,
    problems: Vec<String>,
}

/// The JSON chunk of a GLB.
fn glb_json(path: &Path) -> Result<Value, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if bytes.len() < 20 || &bytes[0..4] != b"glTF" || &bytes[16..20] != b"JSON" {
        return Err(format!("{} is not a GLB", path.display()));
    }
    let len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let chunk = bytes
        .get(20..20 + len)
        .ok_or_else(|| format!("{}: JSON chunk past the end", path.display()))?;
    serde_json::from_slice(chunk).map_err(|e| format!("{}: {e}", path.display()))
}

/// Runs `cmd` with its output in `log`, killing it after [`TIMEOUT`].
fn run_logged(mut cmd: Command, log: &Path) -> Result<(), String> {
    let file = File::create(log).unwrap();
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(file.try_clone().unwrap())
        .stderr(file)
        .spawn()
        .map_err(|e| format!("cannot start {cmd:?}: {e}"))?;
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            if status.success() {
                return Ok(());
            }
            let text = std::fs::read_to_string(log).unwrap_or_default();
            let tail: Vec<&str> = text.lines().rev().take(25).collect();
            let tail: Vec<&str> = tail.into_iter().rev().collect();
            return Err(format!(
                "{status} (log {}):\n{}",
                log.display(),
                tail.join("\n")
            ));
        }
        if started.elapsed() > TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!(
                "timed out after {TIMEOUT:?} (log {})",
                log.display()
            ));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Exports `job` with skelmap, sends it through Blender and checks the report.
fn run(job: &Job, dir: &Path) -> Outcome {
    let started = Instant::now();
    let mut outcome = Outcome {
        name: job.name.clone(),
        kind: job.kind,
        bones: job.bones,
        blender_bones: None,
        mesh_objects: 0,
        vertices: 0,
        shape_keys: 0,
        clips: job.clips.len(),
        actions: Vec::new(),
        out_animations: 0,
        out_bytes: 0,
        seconds: 0.0,
        shared_error: 0.0,
        frames_compared: 0,
        dpm_error: 0.0,
        iqm_error: 0.0,
        problems: Vec::new(),
    };
    let glb = dir.join(format!("{}.glb", job.name));
    let out = dir.join(format!("{}.blender.glb", job.name));
    let report = dir.join(format!("{}.report.json", job.name));
    let log = dir.join(format!("{}.log", job.name));
    for stale in [&glb, &out, &report] {
        let _ = std::fs::remove_file(stale);
    }
    let exported = Command::new(env!("CARGO_BIN_EXE_skelmap"))
        .arg("export")
        .arg(&job.path)
        .arg("--all-influences")
        .arg("-o")
        .arg(&glb)
        .output()
        .unwrap();
    if !exported.status.success() {
        outcome.problems.push(format!(
            "skelmap export failed: {}",
            String::from_utf8_lossy(&exported.stderr)
        ));
        return outcome;
    }
    let written = match glb_json(&glb).and_then(|g| Written::of(&g)) {
        Ok(w) => w,
        Err(e) => {
            outcome.problems.push(format!("skelmap's GLB: {e}"));
            return outcome;
        }
    };
    check_written(job, &written, &mut outcome.problems);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/blender/roundtrip.py");
    let mut blender = Command::new("blender");
    blender
        .args([
            "-b",
            "--factory-startup",
            "--python-exit-code",
            "1",
            "--python",
        ])
        .arg(&script)
        .arg("--")
        .arg(&glb)
        .arg(&out)
        .arg(&report);
    let ran = run_logged(blender, &log);
    outcome.seconds = started.elapsed().as_secs_f64();
    if let Err(e) = ran {
        outcome.problems.push(format!("blender failed: {e}"));
        return outcome;
    }
    let r: Value = match std::fs::read(&report).map(|b| serde_json::from_slice(&b)) {
        Ok(Ok(r)) => r,
        other => {
            outcome
                .problems
                .push(format!("no report {}: {other:?}", report.display()));
            return outcome;
        }
    };
    check(job, &written, &r, &mut outcome);
    match std::fs::metadata(&out) {
        Ok(m) if m.len() > 0 => {
            outcome.out_bytes = m.len();
            match glb_json(&out) {
                Ok(gltf) => check_output(job, &written, &gltf, &mut outcome),
                Err(e) => outcome.problems.push(e),
            }
            if job.kind == Kind::Skeletal {
                import_back(job, &out, &mut outcome);
            }
        }
        other => outcome
            .problems
            .push(format!("{} missing or empty: {other:?}", out.display())),
    }
    outcome
}

/// Blender's GLB read back by skelmap's importer: every frame both it and the model hold
/// (Blender samples each action at 24 fps from its start; a model's clip at 10 fps shares
/// every fifth, at 30 fps every fourth), compared as sets of points within
/// [`SHARED_TOLERANCE`] of the model's size; and its
/// first frames written as DPM and IQM and read again, each within 1e-4 of the model's size
/// (2e-3 for IQM, whose byte weights cost zombie's four-influence vertices 1.45e-3) unless
/// the writer says it cut influences or dropped scale.
fn import_back(job: &Job, out: &Path, o: &mut Outcome) {
    use skelmap_core::asset::{Asset, Clip, ClipKeys};
    use skelmap_core::model::convert::{self, Posed};
    let back = match skelmap_author::gltf::import(out, &Default::default()) {
        Ok(a) => a,
        Err(e) => {
            o.problems
                .push(format!("skelmap cannot import Blender's GLB: {e}"));
            return;
        }
    };
    let model = skelmap_core::Model::open(&job.path).unwrap();
    let source = convert::asset_of(&model).unwrap();
    // Per source clip, the frames shared with Blender's animation of the same clip (named
    // as the clip, or `<clip>_<object>`), at most 8 a clip.
    let keys = |a: &Asset, clip: &Clip, frame: usize| match &clip.keys {
        ClipKeys::Joints(frames) => frames.get(frame).cloned().map(|k| (a.clips.len(), k)),
        ClipKeys::Morph(_) => None,
    };
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    for clip in &source.clips {
        let prefix = format!("{}_", clip.name);
        let Some(blender) = back
            .clips
            .iter()
            .find(|c| c.name == clip.name || c.name.starts_with(&prefix))
        else {
            continue;
        };
        for i in 0..clip.len() {
            let at = i as f64 / f64::from(clip.fps);
            let j = (at * f64::from(blender.fps)).round();
            if (j / f64::from(blender.fps) - at).abs() > 1e-6
                || ours.len() >= 8 * source.clips.len()
            {
                continue;
            }
            if let (Some((_, a)), Some((_, b))) =
                (keys(&source, clip, i), keys(&back, blender, j as usize))
            {
                ours.push(a);
                theirs.push(b);
            }
        }
    }
    let only = |a: &Asset, frames: Vec<Vec<skelmap_core::asset::JointKey>>| {
        let mut a = a.clone();
        a.clips = vec![Clip {
            name: "shared".into(),
            first: 0,
            fps: 24.0,
            looped: false,
            keys: ClipKeys::Joints(frames),
        }];
        a
    };
    o.frames_compared = ours.len();
    if !ours.is_empty() {
        let (a, b) = (only(&source, ours), only(&back, theirs));
        let error = convert::skinning_error(Posed::Asset(&a), Posed::Asset(&b), 0);
        o.shared_error = error.max;
        if error.max > SHARED_TOLERANCE {
            o.problems.push(format!(
                "Blender's frames against the model's at {} shared times: {error}",
                o.frames_compared
            ));
        }
    }
    let mut cut = back;
    let mut frames = 0;
    cut.retain_clips(|c| {
        frames += c.len();
        frames - c.len() < 24
    });
    let limits = skelmap_core::Limits::DEFAULT;
    let lossy = |losses: &[String]| {
        losses
            .iter()
            .any(|l| l.contains("influences") || l.contains("scale"))
    };
    let dpm = skelmap_core::dpm::Builder::from_asset(&cut).unwrap();
    let bytes = dpm.builder.write().unwrap();
    let written =
        skelmap_core::Model::from_source(skelmap_core::Source::from_bytes(&bytes), None, &limits)
            .unwrap();
    let error = convert::skinning_error(Posed::Asset(&cut), Posed::Model(&written), 0);
    o.dpm_error = error.max;
    if error.max > 1e-4 && !lossy(&dpm.losses) {
        o.problems.push(format!("Blender's GLB → DPM: {error}"));
    }
    let iqm = skelmap_core::iqm::Builder::from_asset(&cut).unwrap();
    let bytes = iqm.builder.write().unwrap();
    let written = skelmap_core::Model::from_bytes(&bytes).unwrap();
    let error = convert::skinning_error(Posed::Asset(&cut), Posed::Model(&written), 0);
    o.iqm_error = error.max;
    if error.max > 2e-3 && !lossy(&iqm.losses) {
        o.problems.push(format!("Blender's GLB → IQM: {error}"));
    }
}

/// What skelmap's GLB holds, which Blender's scene must show.
#[derive(Debug, Default)]
struct Written {
    /// Nodes with a mesh (skelmap writes a mesh per material group: MS3D groups, MDL7 skins).
    mesh_nodes: usize,
    /// `POSITION` vertices over every primitive of those meshes.
    vertices: u64,
    /// Morph targets of each mesh node's mesh (the most of its primitives).
    targets: Vec<usize>,
    /// Joints of the skin (none without one).
    joints: Option<usize>,
    animations: usize,
}

impl Written {
    fn of(gltf: &Value) -> Result<Self, String> {
        let none = Vec::new();
        let array = |v: &Value| v.as_array().unwrap_or(&none).clone();
        let accessors = array(&gltf["accessors"]);
        let meshes = array(&gltf["meshes"]);
        let mut w = Written {
            animations: array(&gltf["animations"]).len(),
            joints: gltf["skins"][0]["joints"].as_array().map(Vec::len),
            ..Written::default()
        };
        for node in array(&gltf["nodes"]) {
            let Some(m) = node["mesh"].as_u64() else {
                continue;
            };
            let mesh = meshes
                .get(m as usize)
                .ok_or_else(|| format!("node mesh {m} out of range"))?;
            w.mesh_nodes += 1;
            let mut targets = 0;
            for prim in array(&mesh["primitives"]) {
                let a = prim["attributes"]["POSITION"]
                    .as_u64()
                    .ok_or("a primitive without POSITION")?;
                w.vertices += accessors
                    .get(a as usize)
                    .and_then(|a| a["count"].as_u64())
                    .ok_or_else(|| format!("POSITION accessor {a} has no count"))?;
                targets = targets.max(array(&prim["targets"]).len());
            }
            w.targets.push(targets);
        }
        Ok(w)
    }
}

/// skelmap's GLB against the model: an animation per clip (a vertex-animated model of one
/// frame has nothing to animate and gets none), a skin of the bones and `skelmap_root`.
fn check_written(job: &Job, w: &Written, p: &mut Vec<String>) {
    let clips = if job.kind == Kind::Morph && job.frames <= 1 {
        0
    } else {
        job.clips.len()
    };
    if w.animations != clips {
        p.push(format!(
            "skelmap wrote {} animations for {} clips {:?}",
            w.animations,
            job.clips.len(),
            job.clips
        ));
    }
    let joints = match job.kind {
        // skelmap's glTF has one joint more than the model: `skelmap_root`, the skin's
        // skeleton and the parent of every root bone.
        Kind::Skeletal => Some(job.bones as usize + 1),
        Kind::Morph => None,
    };
    if w.joints != joints {
        p.push(format!(
            "skelmap wrote a skin of {:?} joints, not {joints:?}",
            w.joints
        ));
    }
    if w.mesh_nodes == 0 || w.vertices == 0 {
        p.push(format!(
            "skelmap wrote {} mesh nodes, {} vertices",
            w.mesh_nodes, w.vertices
        ));
    }
}

/// Blender's scene against skelmap's GLB and the model.
fn check(job: &Job, w: &Written, r: &Value, o: &mut Outcome) {
    let empty = Vec::new();
    let armatures = r["armatures"].as_array().unwrap_or(&empty);
    let meshes = r["meshes"].as_array().unwrap_or(&empty);
    let actions = r["actions"].as_array().unwrap_or(&empty);
    o.mesh_objects = meshes.len();
    o.vertices = meshes.iter().map(|m| count(m, "vertices")).sum();
    o.shape_keys = meshes.iter().map(|m| count(m, "shape_keys")).sum();
    o.actions = actions
        .iter()
        .map(|a| a["name"].as_str().unwrap_or("").to_string())
        .collect();
    let p = &mut o.problems;
    match job.kind {
        Kind::Skeletal => {
            if armatures.len() == 1 {
                let a = &armatures[0];
                let bones = count(a, "bones");
                o.blender_bones = Some(bones);
                if bones != job.bones + 1 {
                    p.push(format!(
                        "{bones} bones in Blender, not the model's {} + skelmap_root",
                        job.bones
                    ));
                }
                let roots = &a["roots"];
                if *roots != serde_json::json!(["skelmap_root"]) {
                    p.push(format!("root bones {roots}, not [\"skelmap_root\"]"));
                }
            } else {
                p.push(format!("{} armatures, not 1", armatures.len()));
            }
            for m in meshes {
                if m["armature"].is_null() || count(m, "vertex_groups") == 0 {
                    p.push(format!(
                        "mesh {} is not bound to the armature: {m}",
                        m["name"]
                    ));
                }
            }
        }
        Kind::Morph => {
            if !armatures.is_empty() {
                p.push(format!(
                    "{} armatures in a vertex-animated model",
                    armatures.len()
                ));
            }
        }
    }
    if meshes.is_empty() {
        p.push("no mesh objects".to_string());
    }
    if meshes.len() != w.mesh_nodes {
        p.push(format!(
            "{} mesh objects for the {} mesh nodes skelmap wrote",
            meshes.len(),
            w.mesh_nodes
        ));
    }
    for m in meshes {
        if count(m, "vertices") == 0 {
            p.push(format!("mesh {} has no vertices", m["name"]));
        }
    }
    if o.vertices != w.vertices {
        p.push(format!(
            "{} vertices in Blender for the {} skelmap wrote",
            o.vertices, w.vertices
        ));
    }
    // A shape key per morph target and Blender's basis.
    let mut keys: Vec<u64> = meshes.iter().map(|m| count(m, "shape_keys")).collect();
    let mut want: Vec<u64> = w
        .targets
        .iter()
        .map(|&t| if t == 0 { 0 } else { t as u64 + 1 })
        .collect();
    keys.sort_unstable();
    want.sort_unstable();
    if keys != want {
        p.push(format!(
            "shape keys {keys:?}, not {want:?} (targets + basis)"
        ));
    }
    if actions.len() < w.animations {
        p.push(format!(
            "{} actions {:?} for {} animations (clips {:?})",
            actions.len(),
            o.actions,
            w.animations,
            job.clips
        ));
    }
}

/// Blender's GLB: the same skin for a skeletal model, and the animations again.
fn check_output(job: &Job, w: &Written, gltf: &Value, o: &mut Outcome) {
    let len = |key: &str| gltf[key].as_array().map_or(0, Vec::len);
    o.out_animations = len("animations");
    let joints = gltf["skins"][0]["joints"].as_array().map(Vec::len);
    if joints != w.joints {
        o.problems.push(format!(
            "Blender's GLB has a skin of {joints:?} joints for the {:?} skelmap wrote",
            w.joints
        ));
    }
    if job.kind == Kind::Skeletal && len("skins") != 1 {
        o.problems
            .push(format!("Blender's GLB has {} skins, not 1", len("skins")));
    }
    if len("meshes") == 0 {
        o.problems.push("Blender's GLB has no mesh".to_string());
    }
    if o.out_animations < w.animations {
        o.problems.push(format!(
            "Blender's GLB has {} animations for the {} skelmap wrote",
            o.out_animations, w.animations
        ));
    }
}

#[test]
fn every_skeletal_model_round_trips_through_blender() {
    let Some(version) = blender_version() else {
        return;
    };
    let started = Instant::now();
    let (mut jobs, left_out) = jobs();
    for (path, why) in &left_out {
        eprintln!("left out: {}: {why}", path.display());
    }
    if jobs.is_empty() {
        // The corpus helpers said why (or panicked under SKELMAP_REQUIRE_CORPUS=1).
        return;
    }
    jobs.sort_by_key(|j| std::cmp::Reverse(j.cost()));
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("blender");
    std::fs::create_dir_all(&dir).unwrap();
    let workers = std::thread::available_parallelism()
        .map_or(2, usize::from)
        .clamp(1, 4);
    eprintln!(
        "{version}: {} models on {workers} workers into {}",
        jobs.len(),
        dir.display()
    );

    let next = AtomicUsize::new(0);
    let outcomes = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(job) = jobs.get(i) else { break };
                    let outcome = run(job, &dir);
                    eprintln!(
                        "{:<42} {:>5.1} s {}",
                        outcome.name,
                        outcome.seconds,
                        if outcome.problems.is_empty() {
                            "ok"
                        } else {
                            "FAILED"
                        }
                    );
                    outcomes.lock().unwrap().push(outcome);
                }
            });
        }
    });
    let mut outcomes = outcomes.into_inner().unwrap();
    outcomes.sort_by(|a, b| a.name.cmp(&b.name));

    eprintln!(
        "\n{:<42} {:>6} {:>6} {:>6} {:>7} {:>5} {:>5} {:>7} {:>6} {:>6}",
        "model", "kind", "bones", "b.arm", "meshes", "verts", "keys", "clips", "acts", "out"
    );
    for o in &outcomes {
        eprintln!(
            "{:<42} {:>6} {:>6} {:>6} {:>7} {:>5} {:>5} {:>7} {:>6} {:>6}  {:.1} s",
            o.name,
            match o.kind {
                Kind::Skeletal => "skel",
                Kind::Morph => "morph",
            },
            o.bones,
            o.blender_bones.map_or("-".to_string(), |b| b.to_string()),
            o.mesh_objects,
            o.vertices,
            o.shape_keys,
            o.clips,
            o.actions.len(),
            o.out_animations,
            o.seconds,
        );
    }
    for o in &outcomes {
        eprintln!(
            "{} ({} bytes from Blender) actions: {}",
            o.name,
            o.out_bytes,
            o.actions.join(", ")
        );
    }
    for o in outcomes.iter().filter(|o| o.kind == Kind::Skeletal) {
        eprintln!(
            "{:<42} back from Blender: {} shared frames {:.1e}, as DPM {:.1e}, as IQM {:.1e}",
            o.name, o.frames_compared, o.shared_error, o.dpm_error, o.iqm_error
        );
    }
    let total = started.elapsed();
    eprintln!(
        "\n{} models through Blender in {:.1} s ({} left out)",
        outcomes.len(),
        total.as_secs_f64(),
        left_out.len()
    );
    let failed: Vec<String> = outcomes
        .iter()
        .filter(|o| !o.problems.is_empty())
        .map(|o| format!("{}:\n  {}", o.name, o.problems.join("\n  ")))
        .collect();
    assert!(
        failed.is_empty(),
        "{} of {} models failed in Blender:\n{}",
        failed.len(),
        outcomes.len(),
        failed.join("\n")
    );
}
