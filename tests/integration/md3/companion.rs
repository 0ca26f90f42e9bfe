//! An MD3's companions (`md3/companion.rs`): levels of detail `name_1.md3`, `name_2.md3`;
//! the `.skin` chosen by name that names each surface's shader; a player's `animation.cfg`
//! as clips, with the legs offset; and what a broken or missing companion costs.

use std::path::{Path, PathBuf};

use skelmap::model::{ClipOrigin, Companion, OpenOptions};
use skelmap::pose::animation_cfg::{Body, Footsteps, Sex};
use skelmap::{Error, Model, WarningKind};

use super::part;

/// A fresh folder for one test, removed with its files when the returned value drops (also
/// when the test panics).
fn temp_dir(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("skelmap-md3-{name}-"))
        .tempdir()
        .unwrap()
}

/// The companions `model` opened with, each with its path.
fn companions(model: &Model<'_>) -> Vec<(Companion, String)> {
    model
        .companions()
        .map(|(k, p)| (k, p.to_string()))
        .collect()
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// An `animation.cfg` of the 25 required animations, one frame each except `LEGS_WALK`
/// (stored at 14, 3 frames, looping) and `TORSO_STAND` (11, 2 frames, not looping), numbered
/// in one run: `BOTH_` 0–5, `TORSO_` 6–13, `LEGS_` 14–27.
fn animation_cfg() -> String {
    let mut text = String::from("// test player\nsex f\nfootsteps mech\nheadoffset 0 0 -3.5\n");
    let rows = [
        (0, 1, 0),
        (1, 1, 1),
        (2, 1, 0),
        (3, 1, 1),
        (4, 1, 0),
        (5, 1, 1),
        (6, 1, 0),
        (7, 1, 0),
        (8, 1, 0),
        (9, 1, 0),
        (10, 1, 0),
        (11, 2, 0),
        (13, 1, 0),
        (14, 1, 1),
        (15, 3, 3),
        (18, 1, 1),
        (19, 1, 1),
        (20, 1, 1),
        (21, 1, 1),
        (22, 1, 1),
        (23, 1, 1),
        (24, 1, 1),
        (25, 1, 1),
        (26, 1, 1),
        (27, 1, 1),
    ];
    for (first, count, looping) in rows {
        text += &format!("{first}\t{count}\t{looping}\t15\n");
    }
    text
}

#[test]
fn a_players_legs_open_with_lods_skin_and_animation_cfg() {
    let dir = temp_dir("legs");
    let dir = dir.path();
    // 6 deaths, then 14 legs frames (LEGS_WALKCR at 14 less 8 torso-only frames: 6).
    let lower = write(
        dir,
        "lower.md3",
        &part("l_legs", 20, &["tag_torso"]).write(),
    );
    write(
        dir,
        "lower_1.md3",
        &part("l_legs", 20, &["tag_torso"]).write(),
    );
    write(
        dir,
        "lower_2.md3",
        &part("l_legs", 20, &["tag_torso"]).write(),
    );
    write(
        dir,
        "lower_default.skin",
        b"tag_torso,\nl_legs,models/players/test/legs.tga\n",
    );
    write(
        dir,
        "lower_red.skin",
        b"L_LEGS , \"models/players/test/red legs\"\n",
    );
    write(dir, "animation.cfg", animation_cfg().as_bytes());

    let model = Model::open(&lower).unwrap();
    assert_eq!(
        companions(&model),
        [
            (Companion::LevelOfDetail, "lower_1.md3".to_string()),
            (Companion::LevelOfDetail, "lower_2.md3".to_string()),
            (Companion::Skin, "lower_default.skin".to_string()),
            (Companion::AnimationConfig, "animation.cfg".to_string()),
        ]
    );
    let pair = model.as_md3().unwrap();
    assert_eq!(pair.lods().len(), 2);
    assert_eq!(pair.lods()[1].num_frames(), 20);
    assert_eq!(
        model.material(0).unwrap().name,
        b"models/players/test/legs.tga"
    );
    let (cfg, part) = pair.animation_cfg().unwrap();
    assert_eq!(part, Body::Legs);
    assert_eq!(
        (cfg.sex, cfg.footsteps, cfg.head_offset, cfg.legs_offset),
        (Sex::Female, Footsteps::Mech, [0.0, 0.0, -3.5], 8)
    );
    assert_eq!(model.clip_origin(), ClipOrigin::AnimationConfig);
    let clips: Vec<_> = model
        .clips()
        .iter()
        .map(|c| (c.name.as_str(), c.first, c.count, c.looped))
        .collect();
    assert_eq!(clips.len(), 6 + 12);
    assert_eq!(clips[0], ("both_death1", 0, 1, false));
    assert_eq!(clips[6], ("legs_walkcr", 6, 1, true));
    assert_eq!(clips[7], ("legs_walk", 7, 3, true));
    assert_eq!(clips[17], ("legs_turn", 19, 1, true));
    assert!(model.clips().iter().all(|c| c.fps == 15.0));

    // The skin chosen by name: surface names compare without case.
    let red = OpenOptions {
        skin: Some("red".to_string()),
        ..OpenOptions::default()
    };
    let model = Model::open_with(&lower, &red).unwrap();
    assert_eq!(
        model.material(0).unwrap().name,
        b"models/players/test/red legs"
    );
    assert!(model.companions().any(|(_, p)| p == "lower_red.skin"));
    // A skin asked for by name must be there.
    let blue = OpenOptions {
        skin: Some("blue".to_string()),
        ..OpenOptions::default()
    };
    match Model::open_with(&lower, &blue) {
        Err(Error::Resolve { path, .. }) => assert_eq!(path, "lower_blue.skin"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_players_torso_plays_the_torso_clips() {
    let dir = temp_dir("torso");
    let dir = dir.path();
    let upper = write(
        dir,
        "upper.md3",
        &part("u_torso", 14, &["tag_head", "tag_weapon", "tag_torso"]).write(),
    );
    write(dir, "animation.cfg", animation_cfg().as_bytes());
    let model = Model::open(&upper).unwrap();
    let clips: Vec<_> = model
        .clips()
        .iter()
        .map(|c| (c.name.as_str(), c.first, c.count, c.looped))
        .collect();
    // 6 deaths, 7 torso clips, and the 6 gestures copied from TORSO_GESTURE.
    assert_eq!(clips.len(), 6 + 7 + 6);
    assert_eq!(clips[11], ("torso_stand", 11, 2, false));
    assert_eq!(clips[13], ("torso_getflag", 6, 1, false));
    // No skin beside it: the surface's own shader.
    assert_eq!(model.material(0).unwrap().name, b"models/test/u_torso");
}

#[test]
fn other_models_ignore_animation_cfg_and_take_frame_name_clips() {
    let dir = temp_dir("head");
    let dir = dir.path();
    let head = write(dir, "head.md3", &part("h_head", 3, &[]).write());
    write(dir, "animation.cfg", animation_cfg().as_bytes());
    let model = Model::open(&head).unwrap();
    assert_eq!(model.companions().count(), 0);
    assert_eq!(model.clip_origin(), ClipOrigin::FrameNames);
    assert_eq!(model.clips()[0].name, "frame");
}

/// A non-segmented player (Tremulous' aliens): `nonseg.md3` with its `nonseg_default.skin`
/// and an `animation.cfg` that says `nonsegmented`, whose animations are the whole model's
/// clips, at the frames the file gives. A file of the other kind is ignored with a warning,
/// on either side.
#[test]
fn a_non_segmented_player_plays_its_animation_cfg() {
    let dir = temp_dir("nonseg");
    let dir = dir.path();
    let nonseg = write(dir, "nonseg.md3", &part("alien", 60, &[]).write());
    write(
        dir,
        "nonseg_default.skin",
        b"alien,models/players/alien/skin.tga\n",
    );
    // The 24 animations of the release without dead poses, two frames each from 0; the
    // deaths three frames from 50.
    let mut cfg = String::from("sex n\nnonsegmented\n\n");
    for i in 0..21 {
        cfg += &format!("{}\t2\t{}\t20\t\t// {i}\n", 2 * i, 2 * (i % 2));
    }
    cfg += "50\t3\t0\t10\n53\t-3\t0\t10\n56\t3\t0\t0\n";
    write(dir, "animation.cfg", cfg.as_bytes());

    let model = Model::open(&nonseg).unwrap();
    assert_eq!(
        companions(&model),
        [
            (Companion::Skin, "nonseg_default.skin".to_string()),
            (Companion::AnimationConfig, "animation.cfg".to_string()),
        ]
    );
    assert_eq!(
        model.material(0).unwrap().name,
        b"models/players/alien/skin.tga"
    );
    let (cfg, body) = model.as_md3().unwrap().animation_cfg().unwrap();
    assert!(cfg.nonsegmented && body == Body::Both && cfg.sex == Sex::Neuter);
    assert_eq!(model.clip_origin(), ClipOrigin::AnimationConfig);
    let clips: Vec<_> = model
        .clips()
        .iter()
        .map(|c| (c.name.as_str(), c.first, c.count, c.looped, c.fps))
        .collect();
    assert_eq!(clips.len(), 24);
    assert_eq!(clips[0], ("nspa_stand", 0, 2, false, 20.0));
    assert_eq!(clips[5], ("nspa_charge", 10, 2, true, 20.0));
    assert_eq!(clips[20], ("nspa_pain2", 40, 2, false, 20.0));
    // A negative count plays backwards: the frames are the same; a rate of 0 reads as 1.
    assert_eq!(clips[22], ("nspa_death2", 53, 3, false, 10.0));
    assert_eq!(clips[23], ("nspa_death3", 56, 3, false, 1.0));
    assert!(cfg.animations[22].reversed);
    assert!(model.diagnostics().warnings().is_empty());

    // A segmented player's file beside nonseg.md3, and a non-segmented one beside lower.md3.
    let ignored = |model: &Model<'_>| {
        let w = model
            .diagnostics()
            .get(WarningKind::CompanionIgnored)
            .unwrap();
        assert_eq!(model.clip_origin(), ClipOrigin::FrameNames);
        w.detail.clone()
    };
    let lower = write(dir, "lower.md3", &part("l_legs", 60, &[]).write());
    assert_eq!(
        ignored(&Model::open(&lower).unwrap()),
        "animation.cfg: a non-segmented player's (it says `nonsegmented`), for nonseg.md3; \
         ignored"
    );
    write(dir, "animation.cfg", animation_cfg().as_bytes());
    assert_eq!(
        ignored(&Model::open(&nonseg).unwrap()),
        "animation.cfg: a segmented player's (it does not say `nonsegmented`), for lower.md3 \
         and upper.md3; ignored"
    );
}

/// A Turtle Arena player (`raph/animation.cfg`): Spearmint's options with values, then each
/// animation named on its line in an order and number of the file's own; the legs offset is
/// taken from the first legs and torso animations in the file's order.
#[test]
fn a_players_named_animations_are_its_clips() {
    let dir = temp_dir("named");
    let dir = dir.path();
    let lower = write(
        dir,
        "lower.md3",
        &part("l_legs", 12, &["tag_torso"]).write(),
    );
    let upper = write(dir, "upper.md3", &part("u_torso", 9, &["tag_head"]).write());
    // Frames as one run: 3 both, 6 torso-only, 9 legs; the legs part stores 3 + 9.
    let cfg = "// frame data\nsex m\ndefault_weapon wp_sais\nboundingbox -15 -15 -24 15 15 32\n\
               fixedlegs false\n\
               BOTH_DEATH1\t0\t2\t0\t20\n\
               BOTH_LADDER_UP\t2\t1\t1\t30\n\
               TORSO_GESTURE\t3\t4\t0\t20\n\
               TORSO_STAND_GUN\t7\t2\t0\t30\n\
               LEGS_WALKCR\t9\t4\t4\t10\n\
               LEGS_IDLE\t13\t5\t5\t5\n";
    write(dir, "animation.cfg", cfg.as_bytes());

    let clips = |path: &Path| -> Vec<(String, u32, u32, bool)> {
        let model = Model::open(path).unwrap();
        assert_eq!(model.clip_origin(), ClipOrigin::AnimationConfig);
        assert!(model.diagnostics().warnings().is_empty());
        let (cfg, _) = model.as_md3().unwrap().animation_cfg().unwrap();
        assert_eq!((cfg.legs_offset, cfg.fixed_legs), (6, false));
        model
            .clips()
            .iter()
            .map(|c| (c.name.clone(), c.first, c.count, c.looped))
            .collect()
    };
    let clip = |name: &str, first, count, looped| (name.to_string(), first, count, looped);
    assert_eq!(
        clips(&lower),
        [
            clip("both_death1", 0, 2, false),
            clip("both_ladder_up", 2, 1, true),
            clip("legs_walkcr", 3, 4, true),
            clip("legs_idle", 7, 5, true),
        ]
    );
    assert_eq!(
        clips(&upper),
        [
            clip("both_death1", 0, 2, false),
            clip("both_ladder_up", 2, 1, true),
            clip("torso_gesture", 3, 4, false),
            clip("torso_stand_gun", 7, 2, false),
        ]
    );
}

/// A broken `.skin`, `animation.cfg` or level of detail costs what it gives, not the model:
/// a warning names the file and the line.
#[test]
fn broken_companions_are_ignored_with_a_warning() {
    let dir = temp_dir("broken");
    let dir = dir.path();
    let lower = write(dir, "lower.md3", &part("l_legs", 20, &[]).write());
    let mut lod = part("l_legs", 20, &[]).write();
    lod[4] = 14; // version 14
    write(dir, "lower_1.md3", &lod);
    let long = format!("l_legs,{}\n", "x".repeat(64));
    write(dir, "lower_default.skin", long.as_bytes());
    let cfg = animation_cfg().replace("15\t3\t3\t15", "15\t3\t3\tfast");
    write(dir, "animation.cfg", cfg.as_bytes());

    let model = Model::open(&lower).unwrap();
    let pair = model.as_md3().unwrap();
    assert!(pair.lods().is_empty() && pair.skin().is_none() && pair.animation_cfg().is_none());
    let ignored: Vec<&str> = model
        .diagnostics()
        .warnings()
        .iter()
        .filter(|w| w.kind == WarningKind::CompanionIgnored)
        .map(|w| w.detail.as_str())
        .collect();
    assert_eq!(ignored.len(), 1, "one entry per kind: {ignored:?}");
    assert!(ignored[0].starts_with("lower_1.md3: "), "{ignored:?}");
    let entry = model
        .diagnostics()
        .warnings()
        .iter()
        .find(|w| w.kind == WarningKind::CompanionIgnored)
        .unwrap();
    assert_eq!(entry.count, 3);
    // All three opened, all three left out.
    let left: Vec<_> = model.left_out().map(|(_, path)| path).collect();
    assert_eq!(left, ["lower_1.md3", "lower_default.skin", "animation.cfg"]);
    assert_eq!(model.companions().count(), 3);
    // The surface's own shader, frame-name clips.
    assert_eq!(model.material(0).unwrap().name, b"models/test/l_legs");
    assert_eq!(model.clip_origin(), ClipOrigin::FrameNames);
}

/// An `animation.cfg` whose animations run past the legs' frames (a part from another
/// player): each such animation is left out of the clips with a `ClipOutsideFrames` warning
/// naming its line, name and frames; the ones that fit stay.
#[test]
fn animations_past_the_frames_are_left_out_with_a_warning() {
    let dir = temp_dir("outside");
    let dir = dir.path();
    skelmap::synth::player(2).write_to(dir).unwrap();
    // The legs of a player of one frame an animation: 18 frames where the file numbers 36.
    let short = skelmap::synth::player(1);
    write(dir, "lower.md3", short.file("lower.md3").unwrap());
    let model = Model::open(dir.join("lower.md3")).unwrap();
    assert_eq!(model.num_frames(), 18);
    let names: Vec<&str> = model.clips().iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names.len(), 6 + 3);
    assert_eq!(names[6..], ["legs_walkcr", "legs_walk", "legs_run"]);
    let w = model
        .diagnostics()
        .get(WarningKind::ClipOutsideFrames)
        .unwrap();
    assert_eq!((w.count, w.what), (9, "animation.cfg"));
    assert_eq!(
        w.detail,
        "line 20: LEGS_BACK plays frames 18..20 of a model of 18 frames; left out"
    );
}
