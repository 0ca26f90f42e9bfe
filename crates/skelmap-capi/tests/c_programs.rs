//! Builds `tests/c/smoke.c` with gcc and `tests/c/smoke.cpp` with g++ (`-Wall -Wextra
//! -Werror -fsanitize=address,undefined`), links them against the cdylib cargo built for
//! these tests, runs them on synthetic and shared-corpus models (DPM, SKM written by the
//! converter, MDL, MS3D, HMP) and a malformed file, and checks what they print against the
//! Rust API. The same for the examples in `examples/c/`: the headless renderer, and the
//! character (`character.c`: crossfade, torso layer, attachment), whose loop the README
//! quotes.
//!
//! The corpus part skips with a message when `../shared/corpus` is absent; the synthetic part
//! always runs. Without a C compiler the test fails: `.ci/run` installs one.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use skelmap_core::Parse;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use skelmap_core::gamestudio::{Hmp, Mdl, morph};
use skelmap_core::ms3d::Ms3d;
use skelmap_core::pose::{self, Interpolation, LocalPose, Palette, PoseFrames};
use skelmap_core::skin;
use skelmap_core::skm::{convert, resolve};
use skelmap_core::{Diagnostics, SkeletalMesh, dpm::Dpm, synth};

fn crate_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `target/<profile>/deps`, where cargo put `libskelmap_capi.so` for this test binary.
fn library_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().unwrap().to_path_buf();
    assert!(
        dir.join("libskelmap_capi.so").is_file(),
        "libskelmap_capi.so not found in {}",
        dir.display()
    );
    dir
}

/// How a C program links skelmap.
#[derive(Clone, Copy, PartialEq)]
enum Link<'a> {
    /// `libskelmap_capi.so` from `dir`.
    Shared(&'a Path),
    /// `libskelmap_capi.a` from `dir`, with what Rust's standard library needs.
    Static(&'a Path),
}

/// The shared library the C programs link: the one cargo built for these tests, or, when
/// `SKELMAP_ASAN_LIB` names a directory, the AddressSanitizer build there (`.ci/run`).
fn shared_dir() -> PathBuf {
    std::env::var_os("SKELMAP_ASAN_LIB").map_or_else(library_dir, PathBuf::from)
}

fn compile(compiler: &str, source: &Path, std: &str, out: &Path) {
    compile_with(compiler, source, std, out, Link::Shared(&shared_dir()));
}

fn compile_with(compiler: &str, source: &Path, std: &str, out: &Path, link: Link<'_>) {
    let libs: Vec<String> = match link {
        Link::Shared(dir) => vec![
            format!("-L{}", dir.display()),
            format!("-Wl,-rpath,{}", dir.display()),
            "-lskelmap_capi".into(),
            "-lm".into(),
        ],
        Link::Static(dir) => vec![
            dir.join("libskelmap_capi.a").display().to_string(),
            // In a `cargo test --workspace` build, cargo unifies skelmap-author's features
            // with the CLI's, so this archive also holds meshoptimizer's C++ objects; the C
            // ABI built alone (`-p skelmap-capi`) does not, and then this links nothing.
            "-Wl,--as-needed".into(),
            "-lstdc++".into(),
            "-Wl,--no-as-needed".into(),
            "-lpthread".into(),
            "-ldl".into(),
            "-lm".into(),
        ],
    };
    let status = Command::new(compiler)
        .arg(format!("-std={std}"))
        .args(["-Wall", "-Wextra", "-Werror", "-g", "-O1"])
        .args([
            "-fsanitize=address,undefined",
            "-fno-sanitize-recover=undefined",
        ])
        .args(["-fno-omit-frame-pointer"])
        .arg("-I")
        .arg(crate_dir().join("include"))
        .arg(source)
        .arg("-o")
        .arg(out)
        .args(&libs)
        .status()
        .unwrap_or_else(|e| panic!("cannot run {compiler} ({e}); install gcc and g++"));
    assert!(
        status.success(),
        "{compiler} failed on {}",
        source.display()
    );
}

fn run(program: &Path, args: &[PathBuf]) -> String {
    let output = Command::new(program)
        .args(args)
        .env("ASAN_OPTIONS", "detect_leaks=1:abort_on_error=0")
        .env("UBSAN_OPTIONS", "print_stacktrace=1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "{} failed ({}):\nstdout:\n{stdout}\nstderr:\n{stderr}",
        program.display(),
        output.status
    );
    assert!(stderr.is_empty(), "sanitizer or check output:\n{stderr}");
    stdout
}

/// What the Rust API says about a model: counts, and mesh 0's first and last vertex
/// (position then normal) deformed between frames 0 and min(1, frames − 1) at t = 0.5.
#[derive(Debug)]
struct Expected {
    format: u32,
    bones: u32,
    frames: u32,
    vertices: u64,
    triangles: u64,
    mesh0: usize,
    first: [f32; 6],
    last: [f32; 6],
}

fn second_frame(frames: usize) -> usize {
    usize::from(frames > 1)
}

/// Mesh `mesh` of `model` skinned between frames 0 and min(1, frames − 1) at t = 0.5.
fn skeletal<'a, S: PoseFrames<'a>>(model: &S, mesh: &impl SkeletalMesh<'a>) -> Vec<[f32; 6]> {
    let b = second_frame(model.num_frames());
    skeletal_at(model, mesh, b, 0.5)
}

/// Mesh `mesh` of `model` skinned between frames 0 and `b` at `t` by the scalar reference.
fn skeletal_at<'a, S: PoseFrames<'a>>(
    model: &S,
    mesh: &impl SkeletalMesh<'a>,
    b: usize,
    t: f32,
) -> Vec<[f32; 6]> {
    let (mut pose, mut palette) = (LocalPose::default(), Palette::default());
    pose::sample(model, 0, b, t, Interpolation::Nlerp, &mut pose);
    palette.build(model, &pose);
    let n = mesh.num_vertices();
    let (mut p, mut q) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
    skin::scalar(mesh, &palette, &mut p, &mut q).unwrap();
    join(&p, &q)
}

fn join(p: &[[f32; 3]], q: &[[f32; 3]]) -> Vec<[f32; 6]> {
    p.iter()
        .zip(q)
        .map(|(p, q)| [p[0], p[1], p[2], q[0], q[1], q[2]])
        .collect()
}

/// A Doom 3 mesh of two joints (the second turned 90° about `+Z`, one unit up) and one
/// triangle, a vertex weighted to both.
const MD5_MESH: &str = "MD5Version 10\ncommandline \"\"\nnumJoints 2\nnumMeshes 1\n\
joints {\n\"root\" -1 ( 0 0 0 ) ( 0 0 0 )\n\"arm\" 0 ( 0 0 1 ) ( 0 0 -0.70710677 )\n}\n\
mesh {\nshader \"skin\"\nnumverts 3\nvert 0 ( 0 0 ) 0 1\nvert 1 ( 1 0 ) 1 2\n\
vert 2 ( 0 1 ) 3 1\nnumtris 1\ntri 0 0 2 1\nnumweights 4\nweight 0 0 1 ( 1 0 0 )\n\
weight 1 0 0.5 ( 0 1 0 )\nweight 2 1 0.5 ( 1 0 0 )\nweight 3 1 1 ( 0 -1 0 )\n}\n";

/// Three frames of [`MD5_MESH`]'s joints: the arm rising and turning back.
const MD5_ANIM: &str = "MD5Version 10\ncommandline \"\"\nnumFrames 3\nnumJoints 2\n\
frameRate 24\nnumAnimatedComponents 6\nhierarchy {\n\"root\" -1 0 0\n\"arm\" 0 63 0\n}\n\
bounds {\n( 0 0 0 ) ( 1 1 1 )\n( 0 0 0 ) ( 1 1 2 )\n( 0 0 0 ) ( 1 1 3 )\n}\n\
baseframe {\n( 0 0 0 ) ( 0 0 0 )\n( 0 0 1 ) ( 0 0 -0.70710677 )\n}\n\
frame 0 {\n0 0 1 0 0 -0.70710677\n}\nframe 1 {\n0 0 2 0 0 -0.38268343\n}\n\
frame 2 {\n0 0 3 0 0 0\n}\n";

fn expected(path: &Path) -> Expected {
    let bytes = std::fs::read(path).unwrap();
    let (format, bones, frames, vertices, triangles, deformed) =
        match path.extension().and_then(|e| e.to_str()).unwrap() {
            "dpm" => {
                let m = Dpm::parse(&bytes).unwrap();
                let v = skeletal(&m, &m.mesh(0).unwrap());
                let counts = (m.num_vertices() as u64, m.num_triangles() as u64);
                (
                    1,
                    m.num_bones() as u32,
                    m.num_frames() as u32,
                    counts.0,
                    counts.1,
                    v,
                )
            }
            "skm" => {
                let resolver = skelmap_core::FsResolver::new(path.parent().unwrap());
                let name = path.file_name().unwrap().to_str().unwrap();
                let files = resolve::resolve(&resolver, name).unwrap();
                let m = files.open().unwrap();
                let v = skeletal(&m, &m.skm().mesh(0).unwrap());
                let counts = (
                    m.skm().num_vertices() as u64,
                    m.skm().num_triangles() as u64,
                );
                let (b, f) = (m.skp().num_bones() as u32, m.skp().num_frames() as u32);
                (2, b, f, counts.0, counts.1, v)
            }
            "ms3d" => {
                let m = Ms3d::parse(&bytes).unwrap();
                let frames = u32::try_from(m.total_frames()).unwrap_or(0).max(1);
                let b = second_frame(frames as usize) as f32;
                let fps = m.animation_fps();
                let fps = if fps.is_finite() && fps > 0.0 {
                    fps
                } else {
                    24.0
                };
                let (mut local, mut rest, mut now) =
                    (LocalPose::default(), Palette::default(), Palette::default());
                m.local_rest_pose(&mut local);
                rest.build(&m, &local);
                m.local_pose_at((0.5 * b + 1.0) / fps, Interpolation::Slerp, &mut local);
                now.build(&m, &local);
                let mut deltas = Vec::new();
                now.relative_to(&rest, &mut deltas);
                let mut p = vec![[0.0; 3]; m.vertices().len()];
                skin::bind_positions(&m, &deltas, &mut p).unwrap();
                let v = join(&p, &vec![[0.0; 3]; p.len()]);
                let (nv, nt) = (m.vertices().len() as u64, m.triangles().len() as u64);
                (4, m.joints().len() as u32, frames, nv, nt, v)
            }
            "mdl" => {
                let m = Mdl::parse(&bytes).unwrap();
                let n = m.num_vertices() as usize;
                let (mut p, mut q) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
                let b = second_frame(m.frames().len());
                morph::tween_scalar(&m, 0, b, 0.5, &mut p, &mut q).unwrap();
                let frames = m.frames().len() as u32;
                (
                    5,
                    0,
                    frames,
                    n as u64,
                    m.triangles().len() as u64,
                    join(&p, &q),
                )
            }
            "hmp" => {
                let h = Hmp::parse(&bytes).unwrap();
                let [nx, ny] = h.grid().map(u64::from);
                let n = (nx * ny) as usize;
                let (mut p, mut q) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
                h.tween(0, second_frame(h.frames().len()), 0.5, &mut p, &mut q)
                    .unwrap();
                let triangles = 2 * (nx - 1) * (ny - 1);
                let frames = h.frames().len() as u32;
                (6, 0, frames, n as u64, triangles, join(&p, &q))
            }
            "mdc" => {
                let m = skelmap_core::mdc::Mdc::parse(&bytes).unwrap();
                let s = &m.surfaces()[0];
                let n = s.num_vertices();
                let (mut p, mut q) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
                let b = second_frame(m.num_frames());
                let level = skelmap_core::skin::SimdLevel::Portable;
                m.tween_with_level(level, 0, 0, b, 0.5, &mut p, &mut q)
                    .unwrap();
                let surfaces = m.surfaces().iter();
                let vertices = surfaces.clone().map(|s| s.num_vertices() as u64).sum();
                let triangles = surfaces.map(|s| s.num_triangles() as u64).sum();
                let frames = m.num_frames() as u32;
                (14, 0, frames, vertices, triangles, join(&p, &q))
            }
            "md5mesh" => {
                // Opened as C opens it: with the animations beside it that fit.
                let model = skelmap_core::Model::open(path).unwrap();
                let m = model.as_md5().unwrap();
                let file = m.mesh_file().unwrap();
                let v = skeletal(m, &file.mesh(0).unwrap());
                let meshes = (0..file.num_meshes()).map(|i| file.mesh(i).unwrap());
                let vertices = meshes.clone().map(|m| m.num_verts() as u64).sum();
                let triangles = meshes.map(|m| m.num_triangles() as u64).sum();
                let frames = m.num_frames() as u32;
                (15, file.num_joints() as u32, frames, vertices, triangles, v)
            }
            other => panic!("no expectation for .{other}"),
        };
    Expected {
        format,
        bones,
        frames,
        vertices,
        triangles,
        mesh0: deformed.len(),
        first: deformed[0],
        last: *deformed.last().unwrap(),
    }
}

/// The `key=value` fields of the output line starting `kind path`.
fn fields<'a>(out: &'a str, kind: &str, path: &Path) -> HashMap<&'a str, &'a str> {
    let prefix = format!("{kind} {} ", path.display());
    let line = out
        .lines()
        .find(|l| l.starts_with(&prefix))
        .unwrap_or_else(|| panic!("no `{prefix}` line in:\n{out}"));
    line[prefix.len()..]
        .split(' ')
        .filter_map(|kv| kv.split_once('='))
        .collect()
}

fn floats(text: &str) -> Vec<f32> {
    text.split(',').map(|v| v.parse().unwrap()).collect()
}

/// The skinned vertex printed by C agrees with Rust's reference within 1e-5 relative
/// (1e-4 absolute near zero): C skins with the SIMD stream kernel, Rust with the scalar one.
fn assert_close(c: &[f32], rust: &[f32], what: &str) {
    assert_eq!(c.len(), rust.len(), "{what}");
    for (k, (a, b)) in c.iter().zip(rust).enumerate() {
        let tolerance = (1e-5 * b.abs()).max(1e-4);
        assert!((a - b).abs() <= tolerance, "{what}[{k}]: C {a}, Rust {b}");
    }
}

fn check_c_output(out: &str, path: &Path) {
    let e = expected(path);
    let model = fields(out, "model", path);
    let count = |k: &str| model[k].parse::<u64>().unwrap();
    assert_eq!(count("format"), u64::from(e.format), "{}", path.display());
    assert_eq!(count("bones"), u64::from(e.bones), "{}", path.display());
    assert_eq!(count("frames"), u64::from(e.frames), "{}", path.display());
    assert_eq!(count("vertices"), e.vertices, "{}", path.display());
    assert_eq!(count("triangles"), e.triangles, "{}", path.display());
    // The names' code page: what the Rust model finds.
    let page = match skelmap_core::Model::open(path).unwrap().code_page() {
        skelmap_core::name::CodePage::Utf8 => skelmap_capi::model::SKELMAP_CODE_PAGE_UTF8,
        skelmap_core::name::CodePage::Gbk => skelmap_capi::model::SKELMAP_CODE_PAGE_GBK,
    };
    assert_eq!(count("code_page"), u64::from(page), "{}", path.display());
    let bytes = std::fs::read(path).unwrap();
    let uv = match e.format {
        1 => Dpm::parse(&bytes)
            .unwrap()
            .mesh(0)
            .unwrap()
            .texcoords()
            .next(),
        2 => {
            let skm = skelmap_core::skm::Skm::parse(&bytes).unwrap();
            skm.mesh(0).unwrap().texcoords().next()
        }
        6 => {
            let h = Hmp::parse(&bytes).unwrap();
            let [nx, ny] = h.grid();
            let [cx, cy] = h.cell_size();
            let terrain = fields(out, "terrain", path);
            assert_eq!(terrain["columns"], nx.to_string());
            assert_eq!(terrain["rows"], ny.to_string());
            assert_eq!(floats(terrain["cell"]), [cx, cy]);
            let h0 = h.height(h.frames().get(0).unwrap().raw_height(0).unwrap());
            assert_eq!(floats(terrain["height0"]), [h0]);
            h.mesh(0).unwrap().uvs.first().copied()
        }
        _ => None, // per triangle corner: the C program checked WRONG_KIND
    };
    if let Some(uv) = uv {
        assert_eq!(
            floats(fields(out, "uv", path)["first"]),
            uv,
            "{}",
            path.display()
        );
    }
    let skin = fields(out, "skin", path);
    assert_eq!(skin["vertices"].parse::<usize>().unwrap(), e.mesh0);
    let normals = if e.format == 4 { 3 } else { 6 }; // MS3D: positions only
    let first = floats(skin["first"]);
    assert_close(&first[..normals], &e.first[..normals], "first vertex");
    let last = floats(skin["last"]);
    assert_close(&last[..normals], &e.last[..normals], "last vertex");
}

/// The `.framegroups` of [`character`]: `walk` (frames 1 to 8), `run` (9 to 16) and `shoot`
/// (17 to 24).
const CHARACTER_GROUPS: &str = "1 8 10 1 // walk\n9 8 10 1 // run\n17 8 10 1 // shoot\n";

/// A six-bone tube (bones 0 to 5, the last `seg5`, an attachment) of 25 frames with
/// [`CHARACTER_GROUPS`] in its `.framegroups` sidecar, written into `dir`.
fn character(dir: &Path) -> PathBuf {
    let path = dir.join("character.dpm");
    let tube = synth::tube(&synth::TubeParams {
        bones: 6,
        frames: 25,
        ..synth::TubeParams::default()
    });
    std::fs::write(&path, tube.write().unwrap()).unwrap();
    std::fs::write(dir.join("character.dpm.framegroups"), CHARACTER_GROUPS).unwrap();
    path
}

/// Row-major 3×4 rows as the C programs print them: the diagonal, then the translation.
fn printed(m: &skelmap_core::glam::Affine3A) -> [f32; 6] {
    let (x, y, z) = (m.matrix3.x_axis, m.matrix3.y_axis, m.matrix3.z_axis);
    let t = m.translation;
    [x.x, y.y, z.z, t.x, t.y, t.z]
}

/// What `check_runtime` in `smoke.c` does, with the Rust API, on the character at `path`:
/// its `runtime` and `runtime-ik` lines.
fn check_runtime_output(out: &str, path: &Path) {
    use skelmap_core::glam::{Affine3A, Vec3A};
    use skelmap_core::model::Pose;
    use skelmap_core::pose::blend::{self, Blender, Layer, Mask};
    use skelmap_core::pose::{AimIk, TwoBoneIk};
    let model = skelmap_core::Model::open(path).unwrap();
    let clips = model.clips();
    assert_eq!(clips.len(), 3, "the sidecar's clips");
    let sample = |clip: usize, seconds: f32| {
        let mut local = LocalPose::default();
        model
            .sample_clip(
                &clips[clip],
                seconds,
                true,
                Interpolation::Nlerp,
                &mut local,
            )
            .unwrap();
        local
    };
    let mut rest = LocalPose::default();
    model.bind_pose(&mut rest);
    let (walk, run) = (sample(0, 0.3), sample(1, 0.3));
    let mut shoot = LocalPose::default();
    model.sample(19, 20, 0.25, Interpolation::Slerp, &mut shoot);
    let mut shoot0 = LocalPose::default();
    model
        .sample_clip(&clips[2], 0.0, false, Interpolation::Nlerp, &mut shoot0)
        .unwrap();
    let (from, to) = blend::crossfade(0.1, 0.4);
    let legs = [1.0, 1.0, 1.0, 0.5, 0.0, 0.0];
    let layers = [
        Layer::new(&walk, from).masked(Mask::Weights(&legs)),
        Layer::new(&run, to).masked(Mask::Weights(&legs)),
        Layer::new(&shoot, 1.0).masked(Mask::Range { first: 3, last: 5 }),
    ];
    let (mut blender, mut out_pose) = (Blender::default(), LocalPose::default());
    blender.blend(&rest, &layers, 0.1, &mut out_pose);
    let mut recoil = LocalPose::default();
    blend::additive_difference(&shoot, &shoot0, &mut recoil);
    blender.add(&Layer::new(&recoil, 0.5), &mut out_pose);
    let line = fields(out, "runtime", path);
    assert_close(
        &floats(line["blend4"]),
        &printed(&out_pose.bone_matrix(4)),
        "blended bone 4",
    );

    let rows = |r: [f32; 12]| {
        let col = |c: usize| Vec3A::new(r[c], r[4 + c], r[8 + c]);
        Affine3A::from_cols(col(0), col(1), col(2), col(3))
    };
    let quarter = rows([0., -1., 0., 0., 1., 0., 0., 0., 0., 0., 1., 0.]);
    let up = rows([1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 1., 0.5]);
    let place = rows([1., 0., 0., 2., 0., 1., 0., 3., 0., 0., 1., 40.]);
    out_pose.mul_bone(1, quarter).unwrap();
    out_pose.mul_bones(2, usize::MAX, up).unwrap();
    let mut palette = Palette::default();
    model.palette(&out_pose, &mut palette);
    out_pose
        .set_bone_model(model.view(), &palette, 3, place)
        .unwrap();
    model.palette(&out_pose, &mut palette);
    out_pose
        .mul_bone_model(model.view(), &palette, 3, up)
        .unwrap();
    model.palette(&out_pose, &mut palette);
    let ik = TwoBoneIk {
        target: Vec3A::new(10.0, 6.0, 55.0),
        mid_axis: Vec3A::X,
        ..TwoBoneIk::default()
    };
    let [s, m, e] = [3, 4, 5].map(|b| palette.world[b]);
    let correction = ik.solve(&s, &m, &e);
    correction.apply(&mut out_pose, 3, 4);
    model.palette(&out_pose, &mut palette);
    let aim = AimIk {
        target: Vec3A::new(-30.0, 0.0, 20.0),
        ..AimIk::default()
    };
    aim.solve(&palette.world[2]).apply(&mut out_pose, 2);
    let mut pose = Pose::default();
    model.pose_local(&out_pose, &mut pose).unwrap();
    let end = pose.palette().world[5];
    let line = fields(out, "runtime-ik", path);
    assert_eq!(line["reached"], u8::from(correction.reached).to_string());
    let t = end.translation.to_array();
    assert_close(&floats(line["end"]), &t, "IK chain end");
    let at = model.attachment_transform(0, &pose).unwrap();
    assert_close(
        &floats(line["attachment"]),
        &at.translation.to_array(),
        "attachment",
    );
}

/// Writes the synthetic tube as DPM and as SKM + SKP, and a truncated copy of the DPM.
/// The C program's player lines against `Assembly::place` with the legs in frame 3 and the
/// torso in frame 1.
fn check_player_output(out: &str, dir: &Path) {
    use skelmap_core::model::{Assembly, OpenOptions, Pose};
    let player = Assembly::open_player(dir, None, &OpenOptions::default()).unwrap();
    let parts: Vec<&str> = out.lines().filter(|l| l.starts_with("player ")).collect();
    assert_eq!(
        parts,
        [
            "player part=0 name=lower parent=-1 attachment=0 frames=36 groups=18",
            "player part=1 name=upper parent=0 attachment=0 frames=26 groups=19",
            "player part=2 name=head parent=1 attachment=0 frames=1 groups=1",
        ],
        "{out}"
    );
    let mut poses = vec![Pose::default(); 3];
    for ((part, pose), f) in player.parts().iter().zip(&mut poses).zip([3, 1, 0]) {
        part.model
            .pose(f, f, 0.0, Interpolation::Nlerp, pose)
            .unwrap();
    }
    let mut placed = Vec::new();
    player.place(&poses, &mut placed).unwrap();
    let lines: Vec<&str> = out.lines().filter(|l| l.starts_with("placed ")).collect();
    assert_eq!(lines.len(), 3, "{out}");
    for (i, (line, m)) in lines.iter().zip(&placed).enumerate() {
        let origin = line.split("origin=").nth(1).unwrap();
        let (origin, x) = origin.split_once(" x=").unwrap();
        let t = m.translation.to_array();
        let a = m.matrix3.x_axis.to_array();
        assert_close(&floats(origin), &t, &format!("part {i} origin"));
        assert_close(&floats(x), &a, &format!("part {i} x axis"));
    }
    assert!(placed[2].translation.length() > 1.0);
}

/// For `check_options` in `smoke.c`: a Half-Life model of two body parts, `head` (models
/// `full` and `one`, the first mesh of `full`) and `gun` (`blank`, `one`, `full`), so that
/// body values 0, 1 and 2 show three different meshes; and an MD5 mesh alone in its folder
/// with an animation elsewhere.
fn options_inputs(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    use skelmap_core::hl1::{BodyPartDef, Builder, ModelDef};
    let mut b = Builder::example();
    let full = b.bodyparts[0].models[0].clone();
    let mut one = full.clone();
    one.name = "one".into();
    one.meshes.truncate(1);
    let blank = ModelDef {
        name: "blank".into(),
        vertices: Vec::new(),
        normals: Vec::new(),
        meshes: Vec::new(),
    };
    b.bodyparts = vec![
        BodyPartDef {
            name: "head".into(),
            models: vec![full.clone(), one.clone()],
        },
        BodyPartDef {
            name: "gun".into(),
            models: vec![blank, one, full],
        },
    ];
    let hl1 = dir.join("two_parts.mdl");
    std::fs::write(&hl1, b.write().unwrap()).unwrap();
    let alone = dir.join("md5_alone");
    std::fs::create_dir_all(&alone).unwrap();
    std::fs::write(alone.join("arm.md5mesh"), MD5_MESH).unwrap();
    let wave = dir.join("wave.md5anim");
    std::fs::write(&wave, MD5_ANIM).unwrap();
    (hl1, alone.join("arm.md5mesh"), wave)
}

/// What `check_options` printed is what the Rust API opens with the same options: per body
/// value, the counts of the meshes it shows (three different ones); the MD5 mesh's frames
/// with its animation given and alone.
fn check_options_output(out: &str, hl1: &Path, md5: &Path, wave: &Path) {
    use skelmap_core::model::OpenOptions;
    let open = |path: &Path, options: OpenOptions| skelmap_core::Model::open_with(path, &options);
    let prefix = format!("options {} body=", hl1.display());
    let lines: Vec<&str> = out.lines().filter(|l| l.starts_with(&prefix)).collect();
    assert_eq!(lines.len(), 3, "{out}");
    let mut seen = Vec::new();
    for (body, line) in (0u32..).zip(&lines) {
        let model = open(
            hl1,
            OpenOptions {
                body: Some(body),
                ..OpenOptions::default()
            },
        )
        .unwrap();
        let counts = (model.num_vertices(), model.num_triangles());
        assert_eq!(
            *line,
            format!(
                "{prefix}{body} vertices={} triangles={}",
                counts.0, counts.1
            )
        );
        seen.push(counts);
    }
    seen.dedup();
    assert_eq!(seen.len(), 3, "three bodies, three meshes: {seen:?}");
    let line = out
        .lines()
        .find(|l| l.starts_with(&format!("options {} default", hl1.display())))
        .unwrap();
    assert!(line.ends_with(&format!("vertices={}", seen[0].0)), "{line}");

    let animated = open(
        md5,
        OpenOptions {
            animation: Some(wave.to_path_buf()),
            ..OpenOptions::default()
        },
    )
    .unwrap();
    assert_eq!(animated.num_frames(), 3);
    let f = fields(out, "options", md5);
    assert_eq!(
        (f["frames"], f["groups"]),
        ("3", animated.clips().len().to_string().as_str()),
        "{out}"
    );
    let alone = open(md5, OpenOptions::default()).unwrap();
    let line = format!(
        "options {} alone frames={}",
        md5.display(),
        alone.num_frames()
    );
    assert!(out.lines().any(|l| l == line), "no `{line}` in:\n{out}");
}

fn synthetic_inputs(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let dpm = synth::tube(&synth::TubeParams::default()).write().unwrap();
    let (dpm_path, skm_path) = (dir.join("tube.dpm"), dir.join("tube.skm"));
    std::fs::write(&dpm_path, &dpm).unwrap();
    write_skm(&dpm_path, &skm_path);
    // Cut inside the mesh arrays: the header promises more than the file holds.
    let malformed = dir.join("truncated.dpm");
    std::fs::write(&malformed, &dpm[..dpm.len() / 2]).unwrap();
    (dpm_path, skm_path, malformed)
}

/// Converts the DPM at `dpm` to `skm` and the `.skp` beside it.
fn write_skm(dpm: &Path, skm: &Path) {
    let bytes = std::fs::read(dpm).unwrap();
    let c = convert::from_dpm(&Dpm::parse(&bytes).unwrap(), &mut Diagnostics::new());
    std::fs::write(skm, c.skm.write().unwrap()).unwrap();
    std::fs::write(skm.with_extension("skp"), c.skp.write().unwrap()).unwrap();
}

fn corpus() -> Option<PathBuf> {
    skelmap_testkit::corpus_path("")
}

#[test]
fn c_and_cpp_programs_agree_with_the_rust_api_under_sanitizers() {
    let dir = tempfile::Builder::new()
        .prefix("skelmap-capi-")
        .tempdir()
        .unwrap();
    let dir = dir.path();
    let (dpm, skm, malformed) = synthetic_inputs(dir);
    // A tube whose second bone is named in GBK (手臂): its code page is GBK.
    let mut gbk = synth::tube(&synth::TubeParams::default());
    gbk.bones[1].name = vec![0xCA, 0xD6, 0xB1, 0xDB];
    let gbk_path = dir.join("gbk.dpm");
    std::fs::write(&gbk_path, gbk.write().unwrap()).unwrap();
    let mut models = vec![dpm.clone(), skm, gbk_path.clone()];
    if let Some(corpus) = corpus() {
        let raptor = corpus.join("dpm/xon_vehicles_raptor.dpm");
        let raptor_skm = dir.join("raptor.skm");
        write_skm(&raptor, &raptor_skm);
        models.extend([
            raptor,
            raptor_skm,
            corpus.join("dpm/xon_monsters_zombie.dpm"),
            corpus.join("mdl/gex4_skeleton.mdl"),
            corpus.join("mdl/assimp_minigun_mdl3.mdl"),
            corpus.join("ms3d/milkshape3dengine_dwarf1.ms3d"),
            corpus.join("hmp/gex4_terrain.hmp"),
        ]);
    }

    // Return to Castle Wolfenstein: a base and a compressed frame, and a tag from angles.
    let mdc = dir.join("triangle.mdc");
    std::fs::write(&mdc, skelmap_core::mdc::Builder::triangle().write()).unwrap();
    models.push(mdc);
    if let Some(engines) = skelmap_testkit::corpus_engines_path("mdc") {
        models.push(engines.join("assimp_spider.mdc"));
    }

    // Doom 3: a mesh of two joints with an animation beside it, and a shared weapon.
    let md5 = dir.join("md5");
    std::fs::create_dir_all(&md5).unwrap();
    std::fs::write(md5.join("arm.md5mesh"), MD5_MESH).unwrap();
    std::fs::write(md5.join("arm-wave.md5anim"), MD5_ANIM).unwrap();
    models.push(md5.join("arm.md5mesh"));
    if let Some(engines) = skelmap_testkit::corpus_engines_path("md5") {
        models.push(engines.join("reweap_pistol.md5mesh"));
    }

    let smoke_c = dir.join("smoke_c");
    compile("gcc", &crate_dir().join("tests/c/smoke.c"), "c11", &smoke_c);
    let player = dir.join("player");
    std::fs::create_dir_all(&player).unwrap();
    synth::player(2).write_to(&player).unwrap();
    let mut args = models.clone();
    args.extend([PathBuf::from("--malformed"), malformed.clone()]);
    args.extend([PathBuf::from("--player"), player.clone()]);
    let upper = player.join("upper.md3");
    args.extend([PathBuf::from("--morph"), upper.clone()]);
    args.extend([PathBuf::from("--no-morph"), dpm.clone()]);
    let character = character(dir);
    args.extend([PathBuf::from("--runtime"), character.clone()]);
    let (hl1, md5_alone, wave) = options_inputs(dir);
    args.extend([PathBuf::from("--options"), hl1.clone(), md5_alone.clone()]);
    args.push(wave.clone());
    let out = run(&smoke_c, &args);
    check_options_output(&out, &hl1, &md5_alone, &wave);
    check_runtime_output(&out, &character);
    assert!(out.contains("failures 0"), "{out}");
    check_player_output(&out, &player);
    // The MD3's GPU buffers through C: vertex 0 halfway between frames 0 and 1, as Rust's
    // shader reference puts it.
    let morph = fields(&out, "morph", &upper);
    assert_eq!((morph["packing"], morph["frames"]), ("2", "26"));
    let model = skelmap_core::Model::open(&upper).unwrap();
    let (p, n) = model
        .gpu_morph()
        .unwrap()
        .tween_vertex(0, 0, 1, 0.5)
        .unwrap();
    assert_close(&floats(morph["vertex"]), &[p, n].concat(), "C morph vertex");
    for model in &models {
        check_c_output(&out, model);
    }
    assert_eq!(fields(&out, "model", &gbk_path)["code_page"], "1");
    // The synthetic tube flags its last bone (3) as an attachment: the C program found it.
    let attachment = fields(&out, "attachment", &dpm);
    assert_eq!(
        (attachment["n"], attachment["kind"], attachment["index"]),
        ("0", "0", "3")
    );
    // The synthetic DPM's GPU buffers, skinned by the C shader reference: all four choices
    // compared vertex by vertex (the bound itself is checked in C).
    let gpu: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with(&format!("gpu {} ", dpm.display())))
        .collect();
    assert_eq!(gpu.len(), 4, "{out}");
    assert!(gpu.iter().all(|l| !l.contains(" compared=0 ")), "{gpu:?}");
    let bad = fields(&out, "malformed", &malformed);
    assert_eq!(bad["status"], "5", "SKELMAP_STATUS_MALFORMED");
    let line = out.lines().find(|l| l.starts_with("malformed")).unwrap();
    assert!(line.contains("message=DPM: truncated"), "{line}");
    assert!(line.contains("at offset"), "{line}");

    let smoke_cpp = dir.join("smoke_cpp");
    compile(
        "g++",
        &crate_dir().join("tests/c/smoke.cpp"),
        "c++17",
        &smoke_cpp,
    );
    let out = run(&smoke_cpp, &[dpm.clone(), malformed.clone()]);
    assert_eq!(fields(&out, "local", &dpm)["bones"], "4", "{out}");
    let skin = fields(&out, "skin", &dpm);
    assert_close(
        &floats(skin["first"]),
        &expected(&dpm).first,
        "C++ first vertex",
    );
    let line = out.lines().find(|l| l.starts_with("malformed")).unwrap();
    assert!(
        line.contains("error=malformed file: DPM: truncated"),
        "{line}"
    );

    // The README's C example compiles warning-free and prints the vertex Rust computes.
    let readme = std::fs::read_to_string(crate_dir().join("../../README.md")).unwrap();
    let example = readme
        .split("## From C and C++")
        .nth(1)
        .and_then(|s| s.split("```c\n").nth(1))
        .and_then(|s| s.split("```").next())
        .expect("a C example in the README's `From C and C++` section");
    let example_c = dir.join("readme_example.c");
    std::fs::write(&example_c, example).unwrap();
    let example_bin = dir.join("readme_example");
    compile("gcc", &example_c, "c11", &example_bin);
    // On an animated DPM and on one of a single frame (15 of the 39 public DPMs have one):
    // the example prints the vertex Rust computes for the first clip 0.1 s in.
    let single = dir.join("single.dpm");
    let one_frame = synth::tube(&synth::TubeParams {
        frames: 1,
        ..synth::TubeParams::default()
    });
    std::fs::write(&single, one_frame.write().unwrap()).unwrap();
    let mut examples = vec![dpm.clone(), single];
    if let Some(corpus) = corpus() {
        // A real one-frame DPM (ASan once saw the old example print its fill byte here) and
        // the other formats.
        examples.extend([
            corpus.join("dpm/xon_onslaught_reactor.dpm"),
            corpus.join("ms3d/milkshape3dengine_dwarf1.ms3d"),
            corpus.join("mdl_quake/bq_lavaball.mdl"),
        ]);
    }
    for model_path in &examples {
        let out = run(&example_bin, std::slice::from_ref(model_path));
        let xyz: Vec<f32> = out
            .trim()
            .strip_prefix("vertex 0 at ")
            .unwrap_or_else(|| panic!("README example on {}: {out}", model_path.display()))
            .split(' ')
            .map(|v| v.parse().unwrap())
            .collect();
        let model = skelmap_core::Model::open(model_path).unwrap();
        let mut pose = skelmap_core::model::Pose::default();
        match model.clips().first() {
            Some(clip) => model
                .pose_clip(clip, 0.1, true, Interpolation::Nlerp, &mut pose)
                .unwrap(),
            None => model.pose_bind(&mut pose),
        }
        let n = model.mesh(0).unwrap().num_vertices();
        let (mut p, mut q) = (vec![[0.0f32; 3]; n], vec![[0.0f32; 3]; n]);
        model.deform(0, &pose, &mut p, &mut q).unwrap();
        // printf's %g keeps 6 significant digits.
        for (&c, r) in xyz.iter().zip(p[0]) {
            assert!(
                (c - r).abs() <= 1e-5 * r.abs().max(1.0),
                "README example on {}: {c} vs {r}",
                model_path.display()
            );
        }
    }
}

/// The headless C renderer (`examples/c/render.c`, C99, the C ABI alone) draws a textured,
/// animated frame of an MS3D, a DPM, an MDL and a Quake model, linked against the cdylib and
/// against the staticlib, under AddressSanitizer and UBSan; both links draw the same image.
/// With `SKELMAP_ASAN_LIB` naming a directory that holds a `libskelmap_capi.so` built with
/// `-Zsanitizer=address` (nightly; `.ci/run` builds one), every C program here links that
/// one instead of the plain cdylib, so that writes inside the library are checked as well.
#[test]
fn the_c_renderer_draws_every_format_against_both_libraries() {
    let dir = tempfile::Builder::new()
        .prefix("skelmap-render-")
        .tempdir()
        .unwrap();
    let dir = dir.path();
    let (dpm, _, _) = synthetic_inputs(dir);
    let mut models = vec![(dpm, false)];
    if let Some(corpus) = corpus() {
        models.extend([
            (corpus.join("ms3d/milkshape3dengine_dwarf1.ms3d"), false),
            (corpus.join("dpm/xon_monsters_golem.dpm"), false),
            (corpus.join("mdl/gex4_skeleton.mdl"), true),
            (corpus.join("mdl_quake/bq_lavaball.mdl"), true),
        ]);
    }
    let source = crate_dir().join("examples/c/render.c");
    let (shared, lib) = (shared_dir(), library_dir());
    let links = [
        ("shared", Link::Shared(&shared)),
        ("static", Link::Static(&lib)),
    ];
    let mut images: Vec<Vec<String>> = Vec::new();
    for (name, link) in links {
        let program = dir.join(format!("render_{name}"));
        compile_with("gcc", &source, "c99", &program, link);
        let mut lines = Vec::new();
        for (model, textured) in &models {
            let out = dir.join("frame.ppm");
            let printed = run(
                &program,
                &[model.clone(), out.clone(), "0.3".into(), "128".into()],
            );
            let line = printed.trim().to_string();
            let field = |key: &str| -> u64 {
                line.split(' ')
                    .find_map(|w| w.strip_prefix(key))
                    .and_then(|v| v.parse().ok())
                    .unwrap_or_else(|| panic!("{}: {line}", model.display()))
            };
            assert!(field("triangles=") > 0 && field("pixels=") > 0, "{line}");
            if *textured {
                assert!(
                    field("textured=") > 0,
                    "{}: no skin drawn: {line}",
                    model.display()
                );
            }
            let ppm = std::fs::read(&out).unwrap();
            assert!(ppm.starts_with(b"P6\n128 128\n255\n"));
            assert_eq!(ppm.len(), b"P6\n128 128\n255\n".len() + 128 * 128 * 3);
            println!("{name}: {} {line}", model.display());
            lines.push(line);
        }
        images.push(lines);
    }
    assert!(
        images.windows(2).all(|w| w[0] == w[1]),
        "the links drew different images"
    );
}

/// The lines of `examples/c/character.c` between its loop markers, unindented: what the
/// README's "Playing a character" quotes.
fn character_loop() -> String {
    let source = std::fs::read_to_string(crate_dir().join("examples/c/character.c")).unwrap();
    let start = source.find("/* -- the loop -- */\n").unwrap() + "/* -- the loop -- */\n".len();
    let end = source.find("        /* -- end of the loop -- */").unwrap();
    source[start..end]
        .lines()
        .map(|l| l.strip_prefix("        ").unwrap_or(l))
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

/// `examples/c/character.c` plays the walk → run crossfade under a torso layer with the Rust
/// API's numbers, frame by frame, on the synthetic character and (with the corpus) the golem
/// (63 bones; its right palm stands in for an attachment), compiled warning-free under
/// AddressSanitizer and UBSan; and the README quotes its loop as it is.
#[test]
fn the_character_example_plays_like_the_rust_api() {
    let readme = std::fs::read_to_string(crate_dir().join("../../README.md")).unwrap();
    let quoted = readme
        .split("## Playing a character")
        .nth(1)
        .and_then(|s| s.split("```c\n").nth(1))
        .and_then(|s| s.split("```").next())
        .expect("a C block in the README's `Playing a character` section");
    assert_eq!(
        quoted,
        character_loop(),
        "the README's C loop is character.c's"
    );

    let dir = tempfile::Builder::new()
        .prefix("skelmap-character-")
        .tempdir()
        .unwrap();
    let dir = dir.path();
    let program = dir.join("character");
    compile(
        "gcc",
        &crate_dir().join("examples/c/character.c"),
        "c99",
        &program,
    );
    let mut cases = vec![(character(dir), ["walk", "run", "shoot", "3", "5", "seg5"])];
    if let Some(corpus) = corpus() {
        cases.push((
            corpus.join("dpm/xon_monsters_golem.dpm"),
            ["idle", "run", "melee01", "10", "58", "Base HumanRPalm"],
        ));
    }
    for (model_path, args) in &cases {
        let mut argv = vec![model_path.clone()];
        argv.extend(args.iter().map(PathBuf::from));
        let out = run(&program, &argv);
        println!("{}:\n{out}", model_path.display());
        let expected = character_frames(model_path, args);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), expected.len(), "{out}");
        for (line, (weights, at, vertex)) in lines.iter().zip(&expected) {
            let field = |key: &str| {
                line.split(' ')
                    .find_map(|w| w.strip_prefix(key))
                    .unwrap_or_else(|| panic!("no {key} in {line}"))
            };
            let printed_weights = [
                field("walk=").parse().unwrap(),
                field("run=").parse().unwrap(),
            ];
            assert_close(&printed_weights, weights, line);
            assert_close(&floats(field("attachment=")), at, line);
            assert_close(&floats(field("vertex0=")), vertex, line);
        }
    }
}

/// Per frame of `character.c` run on `path` with `args`, by the Rust API: the crossfade's
/// weights, where the hand is and vertex 0 of the first mesh.
fn character_frames(path: &Path, args: &[&str; 6]) -> Vec<([f32; 2], [f32; 3], [f32; 3])> {
    use skelmap_core::model::Pose;
    use skelmap_core::pose::blend::{self, Blender, Layer, Mask};
    let model = skelmap_core::Model::open(path).unwrap();
    let clip = |name: &str| model.clips().iter().find(|c| c.name == name).unwrap();
    let (walk, run, torso) = (clip(args[0]), clip(args[1]), clip(args[2]));
    let (first, last): (usize, usize) = (args[3].parse().unwrap(), args[4].parse().unwrap());
    let hand = args[5].as_bytes();
    let attachment = model.attachment_index(hand);
    let bone = model.bones().position(|b| b.name() == hand);
    let legs: Vec<f32> = (0..model.num_bones())
        .map(|b| {
            if (first..=last).contains(&b) {
                0.0
            } else {
                1.0
            }
        })
        .collect();
    let mut rest = LocalPose::default();
    model.bind_pose(&mut rest);
    let (mut w, mut r, mut t, mut blended) = Default::default();
    let (mut blender, mut pose) = (Blender::default(), Pose::default());
    let n = model.mesh(0).unwrap().num_vertices();
    let (mut p, mut q) = (vec![[0.0f32; 3]; n], vec![[0.0f32; 3]; n]);
    (0..8)
        .map(|frame| {
            let time = 0.1 * frame as f32;
            let (from, to) = blend::crossfade(time - 0.2, 0.4);
            let nlerp = Interpolation::Nlerp;
            model.sample_clip(walk, time, true, nlerp, &mut w).unwrap();
            model.sample_clip(run, time, true, nlerp, &mut r).unwrap();
            model.sample_clip(torso, time, true, nlerp, &mut t).unwrap();
            let layers = [
                Layer::new(&w, from).masked(Mask::Weights(&legs)),
                Layer::new(&r, to).masked(Mask::Weights(&legs)),
                Layer::new(&t, 1.0).masked(Mask::Range { first, last }),
            ];
            blender.blend(&rest, &layers, 0.1, &mut blended);
            model.pose_local(&blended, &mut pose).unwrap();
            let at = match (attachment, bone) {
                (Some(a), _) => model.attachment_transform(a, &pose).unwrap(),
                (None, Some(b)) => pose.palette().world[b],
                (None, None) => panic!("no hand {}", args[5]),
            };
            model.deform(0, &pose, &mut p, &mut q).unwrap();
            ([from, to], at.translation.to_array(), p[0])
        })
        .collect()
}
