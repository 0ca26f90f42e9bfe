//! An MDM's skeleton found as Enemy Territory finds it: a character file under
//! `characters/` names the mesh and its animation group, whose first `animfile` is the MDX
//! and whose block (with the `.aninc` it includes) names the clips, and whose `skin` names the
//! `.skin` file; on disk, the game's base directory is found above the mesh.

use std::collections::HashMap;

use skelmap::mdm::Builder;
use skelmap::model::{ClipOrigin, Companion};
use skelmap::{Error, Limits, Model, Problem, WarningKind};

const MESH: &str = "models/players/temperate/axis/soldier/body.mdm";

/// A game folder as ET lays it out: the mesh with no MDX beside it, a character naming it,
/// the group, its first animation file (the triangle's three frames) and the clips it
/// includes, and a second animation file that is not read.
fn game() -> HashMap<String, Vec<u8>> {
    let (mdm, mdx) = Builder::triangle().write();
    let mut files = HashMap::new();
    files.insert(MESH.to_string(), mdm);
    files.insert("animations/human/base/body.mdx".to_string(), mdx);
    files.insert(
        "characters/temperate/axis/engineer.char".to_string(),
        b"characterDef\n{\n\tmesh \"models/players/temperate/axis/engineer/body.mdm\"\n}\n"
            .to_vec(),
    );
    files.insert(
        "characters/temperate/axis/soldier.char".to_string(),
        b"characterDef\n{\n\tskin \"s\"\n\tmesh\t\t\"models/players/temperate/axis/soldier/body.mdm\"\n\
          \tanimationgroup\t\"animations/human_base.anim\"\n\
          \tanimationscript\t\"animations/scripts/human_base.script\"\n}\n"
            .to_vec(),
    );
    files.insert(
        "animations/human_base.anim".to_string(),
        b"animgroup\n{\n\tanimfile \"animations/human/base/body.mdx\"\n\t{\n\
          \t\t#include \"animations/human/base/body.aninc\"\n\
          \t\tWAVE\t1 2 2 15 0 0 0\n\t}\n\
          \tanimfile \"animations/human/base/mortar.mdx\"\n\t{\n\t}\n}\n"
            .to_vec(),
    );
    // The skin the character names, `<mesh stem>_s.skin`, and another.
    let stem = MESH.trim_end_matches(".mdm");
    files.insert(
        format!("{stem}_s.skin"),
        b"md3_hat, \"models/players/hat.md3\"\nbody, \"models/players/soldier/body_s.tga\"\n"
            .to_vec(),
    );
    files.insert(
        format!("{stem}_red.skin"),
        b"body, models/players/soldier/body_red.tga\n".to_vec(),
    );
    files.insert(
        "animations/human/base/body.aninc".to_string(),
        b"// <name> <first> <length> <looping> <fps> <move speed> <transition> <reversed>\n\
          \t\tidle\t0 3 3 20 0 0 0\n\t\tplaceholder\t2 0 0 20 0 0 0\n\
          \t\ttoo_long\t1 5 0 20 0 0 0\n"
            .to_vec(),
    );
    files
}

#[test]
fn a_character_names_the_mdx_and_its_group_the_clips() {
    let files = game();
    let model = Model::resolve(&&files, MESH, &Limits::DEFAULT).unwrap();
    assert_eq!((model.num_bones(), model.num_frames()), (2, 3));
    let companions: Vec<_> = model.companions().collect();
    assert_eq!(
        companions,
        [
            (Companion::Skeleton, "animations/human/base/body.mdx"),
            (
                Companion::Character,
                "characters/temperate/axis/soldier.char"
            ),
            (
                Companion::AnimationGroup,
                "animations/human/base/body.aninc"
            ),
            (Companion::AnimationGroup, "animations/human_base.anim"),
            (
                Companion::Skin,
                "models/players/temperate/axis/soldier/body_s.skin"
            ),
        ]
    );
    // The skin names the surface's shader; its accessory line (`md3_hat`) names no surface.
    assert_eq!(
        model.material(0).unwrap().name,
        b"models/players/soldier/body_s.tga"
    );
    assert_eq!(model.clip_origin(), ClipOrigin::AnimationGroup);
    let clips: Vec<_> = model
        .clips()
        .iter()
        .map(|c| (c.name.as_str(), c.first, c.count, c.fps, c.looped))
        .collect();
    // The included file's clips where it is included, then the block's; names lowered as
    // ET lowers them; the placeholder of no frames is no clip.
    assert_eq!(
        clips,
        [("idle", 0, 3, 20.0, true), ("wave", 1, 2, 15.0, true)]
    );
    let warnings: Vec<_> = model
        .diagnostics()
        .warnings()
        .iter()
        .map(|w| (w.kind, w.detail.clone()))
        .collect();
    assert_eq!(
        warnings,
        [
            (
                WarningKind::ClipOutsideFrames,
                "animations/human/base/body.aninc, line 4: too_long plays frames 1..6 of a \
                 skeleton of 3 frames; left out"
                    .to_string()
            ),
            (
                WarningKind::CompanionIgnored,
                "animations/human_base.anim: 1 more animation files (each its own MDX) are not \
                 read; open one with --skeleton to play its clips"
                    .to_string()
            ),
        ]
    );
}

/// An MDX beside the mesh, or one given, comes before the character's group (whose clips are
/// then not the model's); the character's skin still names the shaders.
#[test]
fn the_mdx_beside_the_mesh_comes_before_the_character_s_group() {
    let mut files = game();
    let (_, beside) = Builder::triangle().write();
    files.insert(MESH.replace(".mdm", ".mdx"), beside);
    let model = Model::resolve(&&files, MESH, &Limits::DEFAULT).unwrap();
    let companions: Vec<_> = model.companions().map(|(kind, _)| kind).collect();
    assert_eq!(
        companions,
        [Companion::Skeleton, Companion::Character, Companion::Skin]
    );
    assert_eq!(model.clip_origin(), ClipOrigin::FrameGroups);
    assert_eq!(
        model.material(0).unwrap().name,
        b"models/players/soldier/body_s.tga"
    );
    drop(model);
    // No character names the mesh: the surface's own shader, with no `_default.skin`.
    files.retain(|path, _| !path.starts_with("characters/"));
    let model = Model::resolve(&&files, MESH, &Limits::DEFAULT).unwrap();
    let companions: Vec<_> = model.companions().map(|(kind, _)| kind).collect();
    assert_eq!(companions, [Companion::Skeleton]);
    assert_eq!(model.material(0).unwrap().name, b"models/players/body");
}

#[test]
fn a_missing_mdx_names_the_group_and_character_it_was_found_through() {
    let mut files = game();
    files.remove("animations/human/base/body.mdx");
    match Model::resolve(&&files, MESH, &Limits::DEFAULT) {
        Err(Error::Resolve { path, reason }) => {
            assert_eq!(
                path,
                "animations/human/base/body.mdx (the first animfile of \
                 animations/human_base.anim, the animation group \
                 characters/temperate/axis/soldier.char gives the mesh)"
            );
            assert_eq!(reason, "the MDX skeleton is missing");
        }
        other => panic!("{other:?}"),
    }
    // No character names the mesh: the MDX of its stem is what is missing.
    let mut files = game();
    files.retain(|path, _| !path.starts_with("characters/"));
    match Model::resolve(&&files, MESH, &Limits::DEFAULT) {
        Err(Error::Resolve { path, .. }) => assert_eq!(path, MESH.replace(".mdm", ".mdx")),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_group_that_is_not_one_is_a_text_error_at_its_place() {
    let mut files = game();
    files.insert(
        "animations/human_base.anim".to_string(),
        b"animgroup\n{\n\tanimation \"x.mdx\"\n".to_vec(),
    );
    match Model::resolve(&&files, MESH, &Limits::DEFAULT) {
        Err(Error::Text {
            what,
            line,
            column,
            offset,
            problem,
            ..
        }) => {
            assert_eq!((what, line, column, offset), ("animation group", 3, 2, 13));
            assert_eq!(
                problem,
                Problem::Expected {
                    expected: "animfile"
                }
            );
        }
        other => panic!("{other:?}"),
    }
    // A group over the size bound is refused before it is read.
    let mut files = game();
    files.insert(
        "animations/human_base.anim".to_string(),
        vec![b' '; (1 << 20) + 1],
    );
    assert!(matches!(
        Model::resolve(&&files, MESH, &Limits::DEFAULT),
        Err(Error::Limit {
            what: "animation group",
            ..
        })
    ));
}

/// On disk, with no root given, the folder above the mesh that holds `characters/` is the
/// game's base directory; the model says so, and its paths are relative to it.
#[test]
fn on_disk_the_base_directory_is_found_above_the_mesh() {
    let dir = std::env::temp_dir().join(format!("skelmap-et-game-{}", std::process::id()));
    let etmain = dir.join("etmain");
    for (path, bytes) in game() {
        let full = etmain.join(&path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, bytes).unwrap();
    }
    let model = Model::open(etmain.join(MESH)).unwrap();
    assert_eq!(
        model.base(),
        Some(std::path::absolute(&etmain).unwrap().as_path())
    );
    assert_eq!(model.path(), MESH);
    assert_eq!(model.clips().len(), 2);
    // A skin asked for by name replaces the character's; one that does not exist is an error.
    let skin = |name: &str| skelmap::model::OpenOptions {
        skin: Some(name.to_string()),
        ..Default::default()
    };
    let red = Model::open_with(etmain.join(MESH), &skin("red")).unwrap();
    assert_eq!(
        red.material(0).unwrap().name,
        b"models/players/soldier/body_red.tga"
    );
    match Model::open_with(etmain.join(MESH), &skin("blue")) {
        Err(Error::Resolve { path, reason }) => assert_eq!(
            (path.as_str(), reason),
            (
                "models/players/temperate/axis/soldier/body_blue.skin",
                "no such skin beside the model"
            )
        ),
        other => panic!("{other:?}"),
    }
    // A root given is used as given: here the mesh's folder, where nothing names its MDX.
    let options = skelmap::model::OpenOptions {
        root: Some(etmain.join("models/players/temperate/axis/soldier")),
        ..Default::default()
    };
    assert!(matches!(
        Model::open_with(etmain.join(MESH), &options),
        Err(Error::Resolve { .. })
    ));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Without a group, an MDX's clips are the `.aninc` file of its stem beside it (the block ET's
/// groups include for it): for the MDX alone, and for an MDM whose MDX lies beside it.
#[test]
fn the_aninc_beside_an_mdx_names_its_clips() {
    let (mdm, mdx) = Builder::triangle().write();
    let mut files = HashMap::new();
    files.insert("anims/body.mdx".to_string(), mdx.clone());
    files.insert(
        "anims/body.aninc".to_string(),
        b"// <name> <first> <length> <looping> <fps>\nidle 0 3 3 20 0 0 0\nrun 1 5 0 20 0 0 0\n"
            .to_vec(),
    );
    files.insert("models/body.mdm".to_string(), mdm);
    files.insert("models/body.mdx".to_string(), mdx);
    files.insert(
        "models/body.aninc".to_string(),
        b"wave 1 2 0 10 0 0 0\n".to_vec(),
    );
    let alone = Model::resolve(&&files, "anims/body.mdx", &Limits::DEFAULT).unwrap();
    assert_eq!(
        alone.companions().collect::<Vec<_>>(),
        [(Companion::ClipList, "anims/body.aninc")]
    );
    assert_eq!(alone.clip_origin(), ClipOrigin::AnimationGroup);
    let clips: Vec<_> = alone
        .clips()
        .iter()
        .map(|c| (c.name.as_str(), c.first, c.count, c.looped))
        .collect();
    assert_eq!(clips, [("idle", 0, 3, true)]);
    let warnings: Vec<_> = alone
        .diagnostics()
        .warnings()
        .iter()
        .map(|w| (w.kind, w.detail.as_str()))
        .collect();
    assert_eq!(
        warnings,
        [(
            WarningKind::ClipOutsideFrames,
            "anims/body.aninc, line 3: run plays frames 1..6 of a skeleton of 3 frames; left out"
        )]
    );
    let pair = Model::resolve(&&files, "models/body.mdm", &Limits::DEFAULT).unwrap();
    let clips: Vec<_> = pair.clips().iter().map(|c| c.name.as_str()).collect();
    assert_eq!(clips, ["wave"]);
    drop((alone, pair));
    // A list over the size bound costs its clips, not the model.
    files.insert("anims/body.aninc".to_string(), vec![b' '; (1 << 20) + 1]);
    let alone = Model::resolve(&&files, "anims/body.mdx", &Limits::DEFAULT).unwrap();
    assert_eq!(alone.clip_origin(), ClipOrigin::FrameGroups);
    assert_eq!(alone.clips().len(), 1);
    assert_eq!(
        alone.diagnostics().warnings()[0].kind,
        WarningKind::CompanionIgnored
    );
}
