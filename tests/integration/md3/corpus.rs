//! Every shared MD3 (`corpus-engines/md3`) against its MANIFEST row and the assimp oracle:
//! exact counts and names, frame 0 equal to assimp's OBJ as sets of points, assimp's keyframe
//! option (which reads frame 0 whatever it is asked) pinned, the winding
//! agreeing with the stored normals, SIMD tweens equal to the scalar reference on every frame.

use skelmap::md3::Md3;
use skelmap::model::Pose;
use skelmap::pose::Interpolation;
use skelmap::skin::SimdLevel;
use skelmap::{Diagnostics, Format, Limits, Model, Parse, WarningKind};

use crate::support::oracle::{
    assert_same_points, assimp_frame, keyframe_tool, obj_points, same_points,
};
use crate::support::{corpus_engines_dir, manifest_engines};

/// The names in a MANIFEST list such as `tags [tag_flash, tag_weapon]`.
fn listed(summary: &str, key: &str) -> Vec<String> {
    let Some(at) = summary.find(&format!("{key} [")) else {
        return Vec::new();
    };
    let rest = &summary[at + key.len() + 2..];
    let end = rest.find(']').unwrap();
    rest[..end]
        .split(", ")
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

#[test]
fn every_shared_md3_matches_the_manifest() {
    let Some(dir) = corpus_engines_dir("md3") else {
        return;
    };
    let rows = manifest_engines("md3");
    assert_eq!(rows.len(), 8);
    for row in &rows {
        let name = &row.file;
        let bytes = std::fs::read(dir.join(name)).unwrap();
        assert_eq!(bytes.len() as u64, row.size, "{name}");
        let mut diag = Diagnostics::new();
        let m = Md3::parse_with(&bytes, &Limits::default(), &mut diag)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let kinds: Vec<_> = diag.warnings().iter().map(|w| w.kind).collect();
        let expected: &[WarningKind] = match name.as_str() {
            "trem_missile.md3" => &[WarningKind::FileSize],
            "trem_rifle_hand.md3" => &[WarningKind::NoGroups],
            _ => &[],
        };
        assert_eq!(kinds, expected, "{name}");
        assert_eq!(m.num_frames() as u64, row.count("frames"), "{name}");
        assert_eq!(m.num_tags() as u64, row.count("tags"), "{name}");
        assert_eq!(m.surfaces().len() as u64, row.count("surfaces"), "{name}");
        let verts: usize = m.surfaces().iter().map(|s| s.num_vertices()).sum();
        let tris: usize = m.surfaces().iter().map(|s| s.num_triangles()).sum();
        let shaders: usize = m.surfaces().iter().map(|s| s.shaders().len()).sum();
        assert_eq!(verts as u64, row.count("verts"), "{name}");
        assert_eq!(tris as u64, row.count("tris"), "{name}");
        assert_eq!(shaders as u64, row.count("shaders"), "{name}");
        let tags: Vec<String> = m
            .tags(0)
            .map(|t| String::from_utf8_lossy(t.name()).into_owned())
            .collect();
        assert_eq!(tags, listed(&row.summary, "tags"), "{name}");
        let surfaces: Vec<String> = m
            .surfaces()
            .iter()
            .map(|s| s.name_lossy().into_owned())
            .collect();
        assert_eq!(surfaces, listed(&row.summary, "surf"), "{name}");
        // Opened through the probe, whatever its name; the animation checks find nothing.
        let model = Model::from_bytes(&bytes).unwrap();
        assert_eq!(model.format(), Format::Md3);
        assert!(
            model.diagnostics().get(WarningKind::Bounds).is_none(),
            "{name}"
        );
        skelmap_testkit::exercise::model(&model);
    }
}

/// Frame 0 of every shared MD3 assimp opens equals its OBJ as sets of points, within 1e-3 of
/// the model's size, assimp's axes being `(x, z, −y)`; the MD3 refused by assimp (tags only)
/// has no oracle.
#[test]
fn every_shared_md3_matches_assimp_on_frame_0() {
    let Some(dir) = corpus_engines_dir("md3") else {
        return;
    };
    let oracle = corpus_engines_dir("oracle").unwrap();
    let mut compared = 0;
    for row in manifest_engines("md3") {
        let name = &row.file;
        let Ok(obj) = std::fs::read_to_string(oracle.join(format!("{name}.obj"))) else {
            assert_eq!(name, "trem_rifle_hand.md3");
            continue;
        };
        let theirs = obj_points(&obj);
        let model = Model::open(dir.join(name)).unwrap();
        let ours: Vec<_> = frame_positions(&model, 0)
            .iter()
            .map(|v| [v[0], v[2], -v[1]])
            .collect();
        assert_same_points(&ours, &theirs, name);
        compared += 1;
    }
    assert_eq!(compared, 7);
}

/// Frame `f`'s positions of every surface through `Model::deform`.
fn frame_positions(model: &Model<'_>, f: usize) -> Vec<[f32; 3]> {
    let mut pose = Pose::default();
    model
        .pose(f, f, 0.0, Interpolation::Nlerp, &mut pose)
        .unwrap();
    let mut out = Vec::new();
    for mesh in 0..model.num_meshes() {
        let n = model.mesh(mesh).unwrap().num_vertices();
        let (mut p, mut q) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
        model.deform(mesh, &pose, &mut p, &mut q).unwrap();
        out.extend(p);
    }
    out
}

/// assimp 5.2.5's `AI_CONFIG_IMPORT_MD3_KEYFRAME` checks that the frame exists and then
/// reads every surface's first frame whatever it asked for (`MD3Importer::InternReadFile`
/// never moves past `OFS_XYZNORMAL`'s frame 0), so it is no oracle for later frames: for the
/// first, a middle and the last frame of every shared MD3 it opens, its output is our frame
/// `f` or, where assimp ignores the option as 5.2.5 does, our frame 0; past the last frame
/// it refuses. A later assimp that honours the option is held to our frame `f` by the same
/// test. The tags-only file, which assimp refuses, is left out.
#[test]
fn assimp_keyframes_are_our_frames_or_its_frame_0() {
    let Some(dir) = corpus_engines_dir("md3") else {
        return;
    };
    let Some(tool) = keyframe_tool("AI_CONFIG_IMPORT_MD3_KEYFRAME") else {
        return;
    };
    let (mut equal, mut first_only) = (0, 0);
    for row in manifest_engines("md3") {
        let path = dir.join(&row.file);
        let model = Model::open(&path).unwrap();
        if model.num_meshes() == 0 {
            continue;
        }
        let frames = model.num_frames();
        let zero = frame_positions(&model, 0);
        for f in [0, frames / 2, frames - 1] {
            let theirs = assimp_frame(&tool, &path, f);
            let ours = frame_positions(&model, f);
            let what = format!("{} frame {f}", row.file);
            if same_points(&ours, &theirs).is_ok() {
                equal += 1;
            } else {
                assert_same_points(&zero, &theirs, &what);
                first_only += 1;
            }
        }
        let past = std::process::Command::new(tool.path())
            .arg(&path)
            .arg(frames.to_string())
            .output()
            .unwrap();
        assert!(!past.status.success(), "{}", row.file);
    }
    assert_eq!(equal + first_only, 21);
    eprintln!("assimp's MD3 keyframes: {equal} equal to ours, {first_only} its frame 0 instead");
}

/// The meshes' counter-clockwise triangles face the way the stored normals point: every
/// triangle of every file but one, where 13 of 64 face against them.
#[test]
fn the_winding_agrees_with_the_stored_normals() {
    let Some(dir) = corpus_engines_dir("md3") else {
        return;
    };
    for row in manifest_engines("md3") {
        let model = Model::open(dir.join(&row.file)).unwrap();
        let mut pose = Pose::default();
        model
            .pose(0, 0, 0.0, Interpolation::Nlerp, &mut pose)
            .unwrap();
        let (mut agree, mut total) = (0, 0);
        for mesh in model.meshes() {
            let n = mesh.num_vertices();
            let (mut p, mut q) = (vec![[0.0f32; 3]; n], vec![[0.0f32; 3]; n]);
            model.deform(mesh.index(), &pose, &mut p, &mut q).unwrap();
            for t in 0..mesh.num_triangles() {
                let [a, b, c] = mesh.triangle(t).unwrap().map(|i| i as usize);
                let (u, v) = (
                    [0, 1, 2].map(|k| p[b][k] - p[a][k]),
                    [0, 1, 2].map(|k| p[c][k] - p[a][k]),
                );
                let face = [
                    u[1] * v[2] - u[2] * v[1],
                    u[2] * v[0] - u[0] * v[2],
                    u[0] * v[1] - u[1] * v[0],
                ];
                let normal: Vec<f32> = (0..3).map(|k| q[a][k] + q[b][k] + q[c][k]).collect();
                let dot: f32 = (0..3).map(|k| face[k] * normal[k]).sum();
                agree += usize::from(dot > 0.0);
                total += 1;
            }
        }
        // Tremulous' missile has 13 triangles whose stored normals face away from them.
        let expected = if row.file == "trem_missile.md3" {
            51
        } else {
            total
        };
        assert_eq!(agree, expected, "{}: of {total}", row.file);
    }
}

/// On every frame pair of every shared MD3, every SIMD level's tween equals the scalar
/// reference within 1e-6 (relative to the coordinate).
#[test]
fn simd_tweens_equal_the_scalar_reference_on_every_shared_frame() {
    let Some(dir) = corpus_engines_dir("md3") else {
        return;
    };
    for row in manifest_engines("md3") {
        let bytes = std::fs::read(dir.join(&row.file)).unwrap();
        let m = Md3::parse(&bytes).unwrap();
        let frames = m.num_frames();
        for (mesh, s) in m.surfaces().iter().enumerate() {
            let n = s.num_vertices();
            let (mut p0, mut n0) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
            let (mut p1, mut n1) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
            for a in 0..frames {
                let b = (a + 1) % frames;
                m.tween_with_level(SimdLevel::Portable, mesh, a, b, 0.375, &mut p0, &mut n0)
                    .unwrap();
                for level in SimdLevel::ALL {
                    m.tween_with_level(level, mesh, a, b, 0.375, &mut p1, &mut n1)
                        .unwrap();
                    for (x, y) in p0
                        .iter()
                        .chain(&n0)
                        .flatten()
                        .zip(p1.iter().chain(&n1).flatten())
                    {
                        assert!(
                            (x - y).abs() <= 1e-6 * x.abs().max(1.0),
                            "{}: {x} ≠ {y}",
                            row.file
                        );
                    }
                }
            }
        }
    }
}

/// Tags at a middle frame of every shared MD3 with tags: what `Model` places (the stored tag
/// at the frame, and the blend halfway to the next) against the file's `md3Tag_t` records
/// decoded here from the bytes: the stored tag bit for bit, the blend's origin halfway and
/// its axes orthonormal.
#[test]
fn tags_at_a_middle_frame_are_the_file_s_records() {
    let Some(dir) = corpus_engines_dir("md3") else {
        return;
    };
    let mut checked = Vec::new();
    for row in manifest_engines("md3") {
        let bytes = std::fs::read(dir.join(&row.file)).unwrap();
        let model = Model::from_bytes(&bytes).unwrap();
        let (frames, tags) = (model.num_frames(), model.num_tags());
        if tags == 0 {
            continue;
        }
        let i32_at = |at: usize| i32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
        let f32_at = |at: usize| f32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
        let ofs_tags = i32_at(96) as usize;
        let mid = frames / 2;
        // `md3Tag_t`: a 64-byte name, the origin, then the three axes, 112 bytes.
        let record = |f: usize, k: usize| {
            let at = ofs_tags + (f * tags + k) * 112;
            let float = |i: usize| f32_at(at + 64 + 4 * i);
            let row = |r: usize| [float(3 * r), float(3 * r + 1), float(3 * r + 2)];
            (row(0), [row(1), row(2), row(3)])
        };
        for k in 0..tags {
            let (origin, axes) = record(mid, k);
            let stored = model.tag(mid, k).unwrap();
            assert_eq!(stored.translation.to_array(), origin, "{}", row.file);
            let columns = [
                stored.matrix3.x_axis,
                stored.matrix3.y_axis,
                stored.matrix3.z_axis,
            ];
            for (c, axis) in columns.iter().zip(axes) {
                assert_eq!(c.to_array(), axis, "{}", row.file);
            }
            let next = (mid + 1) % frames;
            let mut pose = Pose::default();
            model
                .pose(mid, next, 0.5, Interpolation::Nlerp, &mut pose)
                .unwrap();
            let placed = model.attachment_transform(k, &pose).unwrap();
            let (o2, _) = record(next, k);
            for a in 0..3 {
                let want = origin[a] + 0.5 * (o2[a] - origin[a]);
                assert!((placed.translation[a] - want).abs() < 1e-4, "{}", row.file);
            }
            let m = placed.matrix3;
            let gram = m.transpose() * m;
            assert!(
                gram.abs_diff_eq(skelmap::glam::Mat3A::IDENTITY, 1e-5),
                "{}",
                row.file
            );
        }
        checked.push((row.file.clone(), mid, tags));
    }
    let names: Vec<_> = checked.iter().map(|(f, _, _)| f.as_str()).collect();
    assert_eq!(
        names,
        [
            "trem_psaw.md3",
            "trem_human_base_upper.md3",
            "trem_rifle_hand.md3"
        ]
    );
}
