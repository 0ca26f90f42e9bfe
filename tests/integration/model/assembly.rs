//! `Assembly`: models attached at one another's attachment points, and the Quake III player
//! opened from its folder (legs, torso, head, a weapon), each part posed by its own clip.

use skelmap::Error;
use skelmap::Model;
use skelmap::model::{Assembly, AttachError, OpenOptions, Pose};
use skelmap::pose::Interpolation;
use tempfile::TempDir;

use crate::md3::part;

/// A player's folder for one test, removed with its files when the returned value drops (also
/// when the test panics).
fn player_dir(name: &str, with_head: bool) -> TempDir {
    let dir = tempfile::Builder::new()
        .prefix(&format!("skelmap-player-{name}-"))
        .tempdir()
        .unwrap();
    let write = |file: &str, bytes: Vec<u8>| std::fs::write(dir.path().join(file), bytes).unwrap();
    write("lower.md3", part("l_legs", 20, &["tag_torso"]).write());
    write(
        "upper.md3",
        part("u_torso", 14, &["tag_head", "tag_weapon", "tag_torso"]).write(),
    );
    if with_head {
        write("head.md3", part("h_head", 1, &["tag_head"]).write());
    }
    write("weapon.md3", part("w_gun", 1, &["tag_flash"]).write());
    write(
        "upper_red.skin",
        b"u_torso,models/players/test/red\n".to_vec(),
    );
    write(
        "lower_red.skin",
        b"l_legs,models/players/test/red_legs\n".to_vec(),
    );
    write(
        "head_red.skin",
        b"h_head,models/players/test/red_head\n".to_vec(),
    );
    dir
}

/// Each part placed on its parent's tag in the parent's own frame: the fixture's tags sit at
/// (1, 2, 3 + frame) with the identity axes, so a part's origin adds its ancestors' tags.
#[test]
fn the_player_places_each_part_on_its_parents_tag() {
    let dir = player_dir("place", true);
    let dir = dir.path();
    let weapon = dir.join("weapon.md3");
    let player = Assembly::open_player(dir, Some(&weapon), &OpenOptions::default()).unwrap();
    let names: Vec<_> = player.parts().iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["lower", "upper", "head", "weapon"]);
    let parents: Vec<_> = player.parts().iter().map(|p| p.parent).collect();
    assert_eq!(parents, [None, Some((0, 0)), Some((1, 0)), Some((1, 1))]);

    // Legs and torso in different frames (as different clips would put them).
    let mut poses = vec![Pose::default(); 4];
    let frames = [(7, 8, 0.5), (11, 11, 0.0), (0, 0, 0.0), (0, 0, 0.0)];
    for ((part, pose), (a, b, t)) in player.parts().iter().zip(&mut poses).zip(frames) {
        part.model
            .pose(a, b, t, Interpolation::Nlerp, pose)
            .unwrap();
    }
    let mut placed = Vec::new();
    player.place(&poses, &mut placed).unwrap();
    let origins: Vec<[f32; 3]> = placed.iter().map(|m| m.translation.to_array()).collect();
    assert_eq!(
        origins,
        [
            [0.0, 0.0, 0.0],
            [1.0, 2.0, 10.5],
            [2.0, 4.0, 24.5],
            [2.0, 4.0, 24.5],
        ]
    );
    // Opened from its lower.md3 the same player, its skin chosen by name for every part.
    let red = OpenOptions {
        skin: Some("red".to_string()),
        ..OpenOptions::default()
    };
    let player = Assembly::open_player(dir.join("lower.md3"), None, &red).unwrap();
    let shaders: Vec<Vec<u8>> = player
        .parts()
        .iter()
        .map(|p| p.model.material(0).unwrap().name.to_vec())
        .collect();
    assert_eq!(
        shaders,
        [
            b"models/players/test/red_legs".to_vec(),
            b"models/players/test/red".to_vec(),
            b"models/players/test/red_head".to_vec(),
        ]
    );
}

#[test]
fn a_player_without_a_part_or_a_tag_is_refused() {
    let dir = player_dir("missing", false);
    let dir = dir.path();
    match Assembly::open_player(dir, None, &OpenOptions::default()) {
        Err(Error::Io { .. }) => {}
        other => panic!("{other:?}"),
    }
    // A weapon on a torso without `tag_weapon`.
    std::fs::write(dir.join("head.md3"), part("h_head", 1, &[]).write()).unwrap();
    std::fs::write(
        dir.join("upper.md3"),
        part("u_torso", 14, &["tag_head"]).write(),
    )
    .unwrap();
    let weapon = dir.join("weapon.md3");
    match Assembly::open_player(dir, Some(&weapon), &OpenOptions::default()) {
        Err(Error::Resolve { path, .. }) => {
            assert!(path.ends_with("upper.md3: tag_weapon"), "{path}")
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn attaching_needs_a_part_and_an_attachment() {
    let bytes = part("a", 1, &["tag_x"]).write();
    let mut assembly = Assembly::new("a", Model::from_bytes(&bytes).unwrap());
    assert_eq!(
        assembly.attach("b", Model::from_bytes(&bytes).unwrap(), 3, b"tag_x"),
        Err(AttachError::NoPart {
            parent: 3,
            parts: 1
        })
    );
    assert_eq!(
        assembly.attach("b", Model::from_bytes(&bytes).unwrap(), 0, b"tag_y"),
        Err(AttachError::NoAttachment {
            parent: "a".to_string(),
            attachment: "tag_y".to_string()
        })
    );
    assert_eq!(
        assembly.attach("b", Model::from_bytes(&bytes).unwrap(), 0, b"tag_x"),
        Ok(1)
    );
    assert_eq!(assembly.part_index("b"), Some(1));
    // Fewer poses than parts.
    let mut placed = Vec::new();
    assert!(assembly.place(&[Pose::default()], &mut placed).is_err());
}

/// The synthetic player of `frames` frames an animation, written to a folder of its own that
/// is removed with its files when the returned value drops (also when the test panics).
fn synth_player(name: &str, frames: usize) -> TempDir {
    let dir = tempfile::Builder::new()
        .prefix(&format!("skelmap-synth-{name}-"))
        .tempdir()
        .unwrap();
    skelmap::synth::player(frames).write_to(dir.path()).unwrap();
    dir
}

/// The sets of clips a player plays: `both_` clips on legs and torso, each legs clip with
/// the torso standing, each torso clip (but `torso_stand`) with the legs idle; the head (one
/// frame) plays nothing.
#[test]
fn a_players_clip_sets_pair_each_clip_with_the_other_parts_idle() {
    let dir = synth_player("sets", 2);
    let dir = dir.path();
    let player = Assembly::open_player(dir, None, &OpenOptions::default()).unwrap();
    let clips: Vec<usize> = player
        .parts()
        .iter()
        .map(|p| p.model.clips().len())
        .collect();
    // The torso's 7 animations and the 6 Team Arena gestures (copies of `torso_gesture`).
    assert_eq!(clips, [18, 19, 1]);
    let sets = player.clip_sets();
    let names: Vec<&str> = sets.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names.len(), 6 + 12 + 12);
    assert_eq!(names[..2], ["both_death1", "both_dead1"]);
    assert_eq!(names[6], "legs_walkcr+torso_stand");
    assert_eq!(names[15], "legs_idle+torso_stand");
    assert_eq!(names[18], "legs_idle+torso_gesture");
    assert!(!names.contains(&"legs_idle+torso_stand+frame"));
    let name_of = |part: usize, clip: Option<usize>| {
        clip.map(|c| player.parts()[part].model.clips()[c].name.clone())
    };
    let run = sets
        .iter()
        .find(|s| s.name == "legs_run+torso_stand")
        .unwrap();
    assert_eq!(
        (0..3).map(|p| name_of(p, run.clips[p])).collect::<Vec<_>>(),
        [
            Some("legs_run".to_string()),
            Some("torso_stand".to_string()),
            None
        ]
    );
    // Chosen by name: each part plays the name it has, the others idle.
    let attack = player.clip_set(&["legs_walk", "torso_attack"]).unwrap();
    assert_eq!(attack.name, "legs_walk+torso_attack");
    assert_eq!(
        player.clip_set(&["torso_attack"]).unwrap().name,
        "legs_idle+torso_attack"
    );
    assert_eq!(player.clip_set(&["legs_fly"]), None);
    // The legs offset: lower's legs_walkcr starts after the 6 both_ animations.
    let lower = &player.parts()[0].model;
    let walkcr = lower
        .clips()
        .iter()
        .find(|c| c.name == "legs_walkcr")
        .unwrap();
    assert_eq!((walkcr.first, walkcr.count), (12, 2));
}

/// A Quake III-style player with no `animation.cfg` beside it (the held-out set has them):
/// the parts still assemble on their tags, each plays the clips its frame names make, and
/// the clip sets pair those as for a configured player.
#[test]
fn a_player_without_animation_cfg_assembles_with_frame_name_clips() {
    let dir = synth_player("no-cfg", 2);
    let dir = dir.path();
    std::fs::remove_file(dir.join("animation.cfg")).unwrap();
    let player = Assembly::open_player(dir, None, &OpenOptions::default()).unwrap();
    let names: Vec<&str> = player.parts().iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["lower", "upper", "head"]);
    let parents: Vec<_> = player.parts().iter().map(|p| p.parent).collect();
    assert_eq!(parents, [None, Some((0, 0)), Some((1, 0))]);
    for part in player.parts() {
        assert_ne!(
            part.model.clip_origin(),
            skelmap::view::ClipOrigin::AnimationConfig
        );
        let frames = part.model.num_frames();
        let covered: usize = part.model.clips().iter().map(|c| c.count as usize).sum();
        assert_eq!(covered, frames, "{}", part.name);
    }
    // Placed at a middle frame of the legs and torso: the torso on the legs' tag_torso.
    let poses: Vec<Pose> = player
        .parts()
        .iter()
        .map(|p| {
            let mut pose = Pose::default();
            let f = p.model.num_frames() / 2;
            p.model
                .pose(f, f, 0.0, Interpolation::Nlerp, &mut pose)
                .unwrap();
            pose
        })
        .collect();
    let mut placed = Vec::new();
    player.place(&poses, &mut placed).unwrap();
    let lower = &player.parts()[0].model;
    let torso = lower.attachment_transform(0, &poses[0]).unwrap();
    assert!(placed[1].abs_diff_eq(placed[0] * torso, 1e-5));
    assert!(!player.clip_sets().is_empty());
}

/// A part of 20,000 clips: each clip's set found by a look-up of its name, and sets told
/// apart by a set of those seen, so that listing them is not a scan of every clip for each.
#[test]
fn the_clip_sets_of_a_part_of_many_clips_are_each_found_once() {
    let pose = |i: usize| skelmap::quake::write::FrameDef {
        name: format!("c{i}x").into(),
        vertices: vec![([0, 0, (i % 250) as u8], 0), ([9, 0, 0], 0), ([0, 9, 0], 0)],
    };
    let clips = 20_000;
    let bytes = skelmap::quake::Builder {
        frames: (0..clips)
            .map(|i| skelmap::quake::write::FrameEntry::Single(pose(i)))
            .collect(),
        ..skelmap::quake::Builder::triangle()
    }
    .write();
    let assembly = Assembly::new("body", Model::from_bytes(&bytes).unwrap());
    let sets = assembly.clip_sets();
    assert_eq!(sets.len(), clips);
    for (i, set) in sets.iter().enumerate() {
        assert_eq!(
            (set.name.clone(), &set.clips[..]),
            (format!("c{i}x"), &[Some(i)][..])
        );
    }
    let last = assembly.clip_set(&["c19999x"]).unwrap();
    assert_eq!(last.clips, [Some(clips - 1)]);
}
