//! `--blend` and `--additive` (`src/layers.rs`): the poses they give, checked against poses
//! computed here from the clips' samples with the formulas written out, and their errors.
#![allow(clippy::unwrap_used)]

mod support;

use std::path::{Path, PathBuf};

use skelmap_core::Model;
use skelmap_core::asset;
use skelmap_core::glam::{Quat, Vec4};
use skelmap_core::pose::framegroups::FrameGroup;
use skelmap_core::pose::{Interpolation, LocalPose};
use support::{skelmap, stderr, stdout, temp_dir, write_tube};

/// The tube (4 bones, 9 frames) with two clips: `idle` (frames 0–3, 10 fps, looping) and
/// `bend` (frames 4–8, 2 fps, held).
fn tube_with_clips(dir: &Path) -> PathBuf {
    let dpm = write_tube(dir);
    std::fs::write(
        dir.join("tube.dpm.framegroups"),
        "0 4 10 1 // idle\n4 5 2 0 // bend\n",
    )
    .unwrap();
    dpm
}

/// The vertices of an OBJ, as numbers.
fn vertices(text: &str) -> Vec<[f32; 3]> {
    text.lines()
        .filter_map(|l| l.strip_prefix("v "))
        .map(|l| {
            let v: Vec<f32> = l.split_whitespace().map(|x| x.parse().unwrap()).collect();
            [v[0], v[1], v[2]]
        })
        .collect()
}

/// `skelmap export DPM -o OUT.obj ARGS…`: its OBJ text and its standard output.
fn export_obj(dpm: &Path, name: &str, args: &[&str]) -> (String, String) {
    let out = dpm.with_file_name(name);
    let mut all = vec!["export", dpm.to_str().unwrap(), "-o", out.to_str().unwrap()];
    all.extend_from_slice(args);
    let run = skelmap(&all);
    assert!(run.status.success(), "{run:?}");
    (std::fs::read_to_string(&out).unwrap(), stdout(&run))
}

/// The OBJ vertices of `model` posed by `local`, through the library.
fn posed_by(model: &Model<'_>, local: LocalPose) -> Vec<[f32; 3]> {
    let built = model
        .to_asset(&asset::Options {
            pose: Some(local),
            no_animations: true,
            ..asset::Options::default()
        })
        .unwrap();
    let mut text = Vec::new();
    skelmap_export::obj::write(&built, &mut text).unwrap();
    vertices(&String::from_utf8(text).unwrap())
}

fn assert_close(found: &[[f32; 3]], expected: &[[f32; 3]]) {
    assert_eq!(found.len(), expected.len());
    for (i, (f, e)) in found.iter().zip(expected).enumerate() {
        for k in 0..3 {
            assert!(
                (f[k] - e[k]).abs() <= 1e-5,
                "vertex {i}: {f:?} against {e:?}"
            );
        }
    }
}

/// The pose of clip `name` (as [`tube_with_clips`] defines it) at `seconds`, through the
/// library.
fn clip_pose(model: &Model<'_>, name: &str, seconds: f32) -> LocalPose {
    let (first, count, fps, looped) = match name {
        "idle" => (0, 4, 10.0, true),
        _ => (4, 5, 2.0, false),
    };
    let clip = FrameGroup {
        name: name.into(),
        first,
        count,
        fps,
        looped,
    };
    let mut local = LocalPose::default();
    model
        .sample_clip(
            &clip,
            seconds,
            clip.looped,
            Interpolation::Nlerp,
            &mut local,
        )
        .unwrap();
    local
}

/// `--blend idle:1 --blend bend:1:1..2`: bones 1 and 2 half of each clip (rotations summed
/// in one hemisphere and normalised, translations averaged), bones 0 and 3 `idle` alone;
/// `--clip idle` is the same first layer.
#[test]
fn blend_normalises_weights_per_bone() {
    let dir = temp_dir("layers-blend");
    let dir = dir.path();
    let dpm = tube_with_clips(dir);
    let args = [
        "--blend",
        "idle:1",
        "--blend",
        "bend:1:1..2",
        "--time",
        "0.25",
    ];
    let (text, said) = export_obj(&dpm, "blend.obj", &args);
    assert_eq!(text.lines().nth(1), Some("# a given pose"));
    assert!(
        said.contains("0 animations (blend idle ×1, bend ×1 on bones 1..2; at 0.25 s)"),
        "{said}"
    );
    let bytes = std::fs::read(&dpm).unwrap();
    let model = Model::from_bytes(&bytes).unwrap();
    let (idle, bend) = (
        clip_pose(&model, "idle", 0.25),
        clip_pose(&model, "bend", 0.25),
    );
    let mut expected = idle.clone();
    for bone in 1..=2 {
        let ((qi, ti), (qb, tb)) = (idle.bones[bone], bend.bones[bone]);
        let (a, b) = (Vec4::from(qi), Vec4::from(qb));
        let b = if a.dot(b) < 0.0 { -b } else { b };
        expected.bones[bone] = (Quat::from_vec4((a + b).normalize()), (ti + tb) * 0.5);
    }
    // The blend moves the tube: neither clip alone gives it.
    assert_ne!(idle.bones[1], expected.bones[1]);
    assert_close(&vertices(&text), &posed_by(&model, expected));
    let (with_clip, _) = export_obj(
        &dpm,
        "clip.obj",
        &["--clip", "idle", "--blend", "bend:1:1..2", "--time", "0.25"],
    );
    assert_eq!(vertices(&with_clip), vertices(&text));
}

/// `--additive bend:0.5` on the bind pose: each bone turned by half (normalised linear
/// blend from the identity) of `bend`'s turn from its first frame, after its own rotation,
/// and moved by half its move.
#[test]
fn additive_adds_the_difference_from_the_first_frame() {
    let dir = temp_dir("layers-additive");
    let dir = dir.path();
    let dpm = tube_with_clips(dir);
    let (text, said) = export_obj(
        &dpm,
        "add.obj",
        &["--additive", "bend:0.5", "--time", "1.5"],
    );
    assert!(said.contains("(additive bend ×0.5; at 1.5 s)"), "{said}");
    let bytes = std::fs::read(&dpm).unwrap();
    let model = Model::from_bytes(&bytes).unwrap();
    let at = clip_pose(&model, "bend", 1.5);
    let mut first = LocalPose::default();
    model.sample(4, 4, 0.0, Interpolation::Nlerp, &mut first);
    let mut expected = LocalPose::default();
    model.bind_pose(&mut expected);
    for (bone, (q, t)) in expected.bones.iter_mut().enumerate() {
        let ((qa, ta), (qf, tf)) = (at.bones[bone], first.bones[bone]);
        let turn = qf.inverse() * qa;
        let turn = if turn.w < 0.0 { -turn } else { turn };
        let half = (Vec4::from(Quat::IDENTITY) * 0.5 + Vec4::from(turn) * 0.5).normalize();
        *q = (*q * Quat::from_vec4(half)).normalize();
        *t += (ta - tf) * 0.5;
    }
    let mut bind = LocalPose::default();
    model.bind_pose(&mut bind);
    assert_ne!(bind.bones, expected.bones);
    assert_close(&vertices(&text), &posed_by(&model, expected));
    // Taken away again by the same layer at the negative weight: the bind pose.
    let (back, _) = export_obj(
        &dpm,
        "back.obj",
        &[
            "--additive",
            "bend:0.5",
            "--additive",
            "bend:-0.5",
            "--time",
            "1.5",
        ],
    );
    assert_close(&vertices(&back), &posed_by(&model, bind));
}

/// Each mistake is one line naming what is wrong.
#[test]
fn layer_mistakes_are_errors() {
    let dir = temp_dir("layers-errors");
    let dir = dir.path();
    let dpm = tube_with_clips(dir);
    let png = dir.join("x.png");
    let run = |args: &[&str]| {
        let mut all = vec!["render", dpm.to_str().unwrap(), "-o", png.to_str().unwrap()];
        all.extend_from_slice(args);
        skelmap(&all)
    };
    for (args, code, message) in [
        (
            &["--time", "1"][..],
            2,
            "--time needs --clip, --blend or --additive",
        ),
        (
            &["--blend", "idle:1:2..4"],
            1,
            "idle:1:2..4: bone 4 does not exist: the bones are 0..3",
        ),
        (
            &["--blend", "walk:1"],
            1,
            "no clip named \"walk\"; its clips are idle, bend",
        ),
        (
            &["--blend", "idle:0"],
            1,
            "--blend idle:0: blend weights are positive",
        ),
        (
            &["--blend", "idle"],
            2,
            "give CLIP:WEIGHT or CLIP:WEIGHT:FIRST..LAST",
        ),
        (&["--blend", "idle:1:3..1"], 2, "the range 3..1 is empty"),
        (
            &["--blend", "idle:1", "--frame", "2"],
            2,
            "cannot be used with",
        ),
        (
            &["--additive", "idle:1", "--sheet"],
            2,
            "cannot be used with",
        ),
    ] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(code), "{args:?}: {out:?}");
        assert!(stderr(&out).contains(message), "{args:?}: {}", stderr(&out));
    }
    assert!(!png.exists());
    // A model without bones has nothing to blend.
    let mdl = dir.join("tri.mdl");
    std::fs::write(&mdl, skelmap_core::quake::Builder::triangle().write()).unwrap();
    let out = skelmap(&[
        "render",
        mdl.to_str().unwrap(),
        "-o",
        png.to_str().unwrap(),
        "--blend",
        "base:1",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out)
            .contains("--blend and --additive pose bones, and this Quake MDL model has none"),
        "{}",
        stderr(&out)
    );
}
