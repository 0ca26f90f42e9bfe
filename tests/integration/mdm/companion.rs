//! An MDM's skeleton found as Enemy Territory finds it: a character file under
//! `characters/` names the mesh and its animation group, whose first `animfile` is the MDX
//! and whose block (with the `.aninc` it includes) names the clips, whose other animation
//! files play after it, and whose `skin` names the `.skin` file (a corpse's: the character
//! naming it as its `undressedCorpseModel`); on disk, the game's base directory is found above
//! the mesh.

use std::collections::HashMap;

use skelmap::mdm::Builder;
use skelmap::model::{ClipOrigin, Companion};
use skelmap::{Error, Limits, Model, Problem, WarningKind};

use crate::support;

const MESH: &str = "models/players/temperate/axis/soldier/body.mdm";

/// A game folder as ET lays it out: the mesh with no MDX beside it, a character naming it,
/// the group, its first animation file (the triangle's three frames) and the clips it
/// includes, and a second animation file that is missing.
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
    let clips = support::clips(&model);
    // The included file's clips where it is included, then the block's; names lowered as
    // ET lowers them; the placeholder of no frames is no clip.
    assert_eq!(
        clips,
        [("idle", 0, 3, 20.0, true), ("wave", 1, 2, 15.0, true)]
    );
    assert_eq!(
        support::warnings(&model),
        [
            (
                WarningKind::CompanionIgnored,
                "animations/human_base.anim: animation files left out with their clips: \
                 animations/human/base/mortar.mdx is missing"
            ),
            (
                WarningKind::ClipOutsideFrames,
                "animations/human/base/body.aninc, line 4: too_long plays frames 1..6 of \
                 animations/human/base/body.mdx, which has 3 frames; left out"
            ),
        ]
    );
}

/// ET's undressed corpse (`naked.mdm`): no character names it as its `mesh`, the soldier's
/// names it as its `undressedCorpseModel`. It opens with the soldier's group and the skin
/// its `undressedCorpseSkin` names, `<corpse stem>_<skin>.skin`.
#[test]
fn an_undressed_corpse_opens_with_the_group_of_the_character_naming_it() {
    const CORPSE: &str = "models/players/temperate/common/naked.mdm";
    let mut files = game();
    let mesh = files.remove(MESH).unwrap();
    files.insert(CORPSE.to_string(), mesh);
    files.insert(
        "characters/temperate/axis/soldier.char".to_string(),
        b"characterDef\n{\n\tmesh \"models/players/temperate/axis/soldier/body.mdm\"\n\
          \tanimationgroup \"animations/human_base.anim\"\n\tskin \"s\"\n\
          \tundressedCorpseModel \"models/players/temperate/common/naked.mdm\"\n\
          \tundressedCorpseSkin \"axis_soldier\"\n}\n"
            .to_vec(),
    );
    files.insert(
        "models/players/temperate/common/naked_axis_soldier.skin".to_string(),
        b"body, models/players/temperate/common/bare_legs.tga\n".to_vec(),
    );
    let model = Model::resolve(&&files, CORPSE, &Limits::DEFAULT).unwrap();
    assert_eq!((model.num_bones(), model.num_frames()), (2, 3));
    let companions: Vec<_> = model.companions().collect();
    assert_eq!(
        companions[0],
        (Companion::Skeleton, "animations/human/base/body.mdx")
    );
    assert_eq!(
        companions[1],
        (
            Companion::Character,
            "characters/temperate/axis/soldier.char"
        )
    );
    assert_eq!(
        companions.last(),
        Some(&(
            Companion::Skin,
            "models/players/temperate/common/naked_axis_soldier.skin"
        ))
    );
    assert_eq!(
        model.material(0).unwrap().name,
        b"models/players/temperate/common/bare_legs.tga"
    );
    assert_eq!(support::clips(&model).len(), 2);
}

/// A second animation file's MDX: the triangle's bones with the head 6 units from the root
/// rather than 8, and two frames of its own.
fn mortar() -> Builder {
    let mut mortar = Builder::triangle();
    mortar.bones[1].parent_dist = 6.0;
    mortar.frames.remove(0);
    mortar.frames[0].bones[1].angles = [-7000, 1200, 300];
    mortar.frames[1].parent_offset = [2.0, -1.0, 20.0];
    mortar
}

/// `Builder`'s MDX of `bones` and `frames`, parsed alone: the reference a joined frame is
/// placed as.
fn alone(bones: &Builder, frames: Vec<skelmap::mdm::write::Frame>) -> Vec<u8> {
    let mut builder = bones.clone();
    builder.frames = frames;
    builder.write().1
}

/// Every animation file of the group plays after the skeleton, its frames placed by its own
/// bones (ET's `R_CalcBones` takes the new frame's model's bone records), its block's clips
/// on its frames; a file missing, of another skeleton or that does not open is left out with
/// its clips and a warning naming it.
#[test]
fn the_group_s_other_animation_files_play_after_the_skeleton() {
    use skelmap::mdm::Mdx;
    use skelmap::pose::PoseFrames;
    use skelmap::{Parse, Skeleton};

    let mut files = game();
    let base = "animations/human/base";
    let mortar = mortar();
    files.insert(format!("{base}/mortar.mdx"), mortar.write().1);
    // Four frames: the triangle's in reverse, then its first again.
    let mut swim = Builder::triangle();
    swim.frames.reverse();
    swim.frames.push(swim.frames[0].clone());
    files.insert(format!("{base}/swim.mdx"), swim.write().1);
    let mut other = Builder::triangle();
    other.bones.push(other.bones[1].clone());
    files.insert(format!("{base}/other.mdx"), other.write().1);
    let mut renamed = Builder::triangle();
    renamed.bones[1].name = "neck".into();
    files.insert(format!("{base}/renamed.mdx"), renamed.write().1);
    let mut broken = mortar.write().1;
    broken.truncate(100);
    files.insert(format!("{base}/broken.mdx"), broken);
    files.insert(
        "animations/human_base.anim".to_string(),
        format!(
            "animgroup\n{{\n\tanimfile \"{base}/body.mdx\"\n\t{{\n\
             \t\t#include \"{base}/body.aninc\"\n\t\tWAVE\t1 2 2 15 0 0 0\n\t}}\n\
             \tanimfile \"{base}/mortar.mdx\" {{ fire 0 2 0 10 0 0 0\n late 1 5 0 20 0 0 0 }}\n\
             \tanimfile \"{base}/gone.mdx\" {{ gone 0 1 0 20 0 0 0 }}\n\
             \tanimfile \"{base}/other.mdx\" {{ other 0 1 0 20 0 0 0 }}\n\
             \tanimfile \"{base}/renamed.mdx\" {{ renamed 0 1 0 20 0 0 0 }}\n\
             \tanimfile \"{base}/broken.mdx\" {{ broken 0 1 0 20 0 0 0 }}\n\
             \tanimfile \"{base}/swim.mdx\" {{ swim 0 4 4 15 0 0 0 }}\n}}\n"
        )
        .into_bytes(),
    );
    let model = Model::resolve(&&files, MESH, &Limits::DEFAULT).unwrap();
    assert_eq!((model.num_bones(), model.num_frames()), (2, 3 + 2 + 4));
    let companions: Vec<_> = model.companions().collect();
    let file = |name: &str| format!("{base}/{name}");
    assert_eq!(
        companions,
        [
            (Companion::Skeleton, file("body.mdx").as_str()),
            (
                Companion::Character,
                "characters/temperate/axis/soldier.char"
            ),
            (Companion::AnimationFile, &file("mortar.mdx")),
            (Companion::AnimationFile, &file("other.mdx")),
            (Companion::AnimationFile, &file("renamed.mdx")),
            (Companion::AnimationFile, &file("broken.mdx")),
            (Companion::AnimationFile, &file("swim.mdx")),
            (Companion::AnimationGroup, &file("body.aninc")),
            (Companion::AnimationGroup, "animations/human_base.anim"),
            (
                Companion::Skin,
                "models/players/temperate/axis/soldier/body_s.skin"
            ),
        ]
    );
    let clips = support::clips(&model);
    assert_eq!(
        clips,
        [
            ("idle", 0, 3, 20.0, true),
            ("wave", 1, 2, 15.0, true),
            ("fire", 3, 2, 10.0, false),
            ("swim", 5, 4, 15.0, true),
        ]
    );
    let warnings = support::warnings(&model);
    // One warning names every file left out (a diagnostic keeps a kind's first detail).
    let group = "animations/human_base.anim";
    assert_eq!(warnings.len(), 2, "{warnings:#?}");
    assert_eq!(
        (warnings[0].0, warnings[1]),
        (
            WarningKind::CompanionIgnored,
            (
                WarningKind::ClipOutsideFrames,
                "animations/human/base/body.aninc, line 4: too_long plays frames 1..6 of \
                 animations/human/base/body.mdx, which has 3 frames; left out"
            )
        )
    );
    let left_out = warnings[0].1;
    let (head, broken) = left_out.split_once(" does not open (").unwrap();
    assert_eq!(
        head,
        format!(
            "{group}: animation files left out with their clips: {base}/gone.mdx is missing; \
             {base}/other.mdx has 3 bones where the skeleton has 2; {base}/renamed.mdx gives \
             bone 1 (head) another name than the skeleton; {base}/broken.mdx"
        )
    );
    assert!(
        broken.starts_with("MDX: ") && broken.ends_with(')'),
        "{broken}"
    );
    // The mortar's clip past its two frames counts with the first file's.
    assert_eq!(model.diagnostics().warnings()[1].count, 2);

    // Each file's frames where the timeline puts them, placed by its own bones.
    let pair = model.as_mdm().unwrap();
    let owned: Vec<_> = pair
        .animation_files()
        .map(|mdx| (mdx.name().to_vec(), mdx.own_frames()))
        .collect();
    let name = |b: &Builder| b.skeleton_name.as_bytes().to_vec();
    assert_eq!(
        owned,
        [
            (name(&Builder::triangle()), 0..3),
            (name(&mortar), 3..5),
            (name(&swim), 5..9),
        ]
    );
    let triangle = Builder::triangle();
    let references = [
        (&triangle, triangle.write().1, 0),
        (&mortar, mortar.write().1, 3),
        (&swim, swim.write().1, 5),
    ];
    for (builder, bytes, start) in &references {
        let mdx = Mdx::parse(bytes).unwrap();
        for local in 0..builder.frames.len() {
            for bone in 0..2 {
                assert_eq!(
                    pair.bone_pose(start + local, bone),
                    mdx.bone_pose(local, bone),
                    "frame {local} of {}, bone {bone}",
                    builder.skeleton_name
                );
            }
        }
    }
    // A lerp from one file's frame to another's takes the bones of the frame lerped towards:
    // the skeleton's last frame to the mortar's first, and back.
    let pairs = [
        (
            2,
            3,
            &mortar,
            [triangle.frames[2].clone(), mortar.frames[0].clone()],
        ),
        (
            3,
            2,
            &triangle,
            [mortar.frames[0].clone(), triangle.frames[2].clone()],
        ),
    ];
    for (a, b, bones, frames) in pairs {
        let bytes = alone(bones, frames.to_vec());
        let reference = Mdx::parse(&bytes).unwrap();
        for t in [0.0, 0.25, 1.0] {
            let (mut got, mut want) = (Vec::new(), Vec::new());
            assert!(pair.nlerp_frames_into(a, b, t, &mut got));
            assert!(reference.nlerp_frames_into(0, 1, t, &mut want));
            assert_eq!(got, want, "{a} to {b} at {t}");
        }
    }
    // The tag and the legs-and-torso pose of a mortar frame are the mortar's.
    let mortar_bytes = mortar.write().1;
    let mortar_mdx = Mdx::parse(&mortar_bytes).unwrap();
    let (mdm, _) = Builder::triangle().write();
    let mortar_pair =
        skelmap::mdm::Pair::new(skelmap::mdm::Mdm::parse(&mdm).unwrap(), mortar_mdx.clone())
            .unwrap();
    assert_eq!(pair.tag_pose(4, 0), mortar_pair.tag_pose(1, 0));
    assert_ne!(pair.tag_pose(4, 0), pair.tag_pose(1, 0));
    let mut pose = skelmap::model::Pose::default();
    model
        .pose_legs_torso((3, 4, 0.5), (4, 4, 0.0), &mut pose)
        .unwrap();
    let mut want = Vec::new();
    assert!(mortar_mdx.legs_torso_poses_into((0, 1, 0.5), (1, 1, 0.0), &mut want));
    assert_eq!(pose.local().bones, want);
    assert_eq!(pair.mdx().skeleton_bones().len(), 2);
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
    let dir = tempfile::Builder::new()
        .prefix("skelmap-et-game-")
        .tempdir()
        .unwrap();
    let dir = dir.path();
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
    assert_eq!(support::clips(&alone), [("idle", 0, 3, 20.0, true)]);
    assert_eq!(
        support::warnings(&alone),
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

/// An MDX opened alone without an `.aninc` beside it takes the clips of the block of the
/// first animation group naming it (the path compared as ET compares them: any case, `\`
/// as `/`), with the files that block includes; an MDX no group names plays every frame.
#[test]
fn an_mdx_alone_takes_its_clips_from_the_group_naming_it() {
    let mut files = game();
    let base = "animations/human/base";
    files.insert(format!("{base}/mortar.mdx"), mortar().write().1);
    files.insert(
        format!("{base}/mortar_extra.aninc"),
        b"aim 1 1 1 20 0 0 0\n".to_vec(),
    );
    files.insert(
        "animations/human_base.anim".to_string(),
        b"animgroup {\n animfile \"animations/human/base/body.mdx\" { }\n \
          animfile \"Animations\\Human\\Base\\MORTAR.mdx\" {\n  \
          #include \"animations/human/base/mortar_extra.aninc\"\n  fire 0 2 0 10 0 0 0\n  \
          late 1 5 0 20 0 0 0\n }\n}\n"
            .to_vec(),
    );
    let mortar = format!("{base}/mortar.mdx");
    let model = Model::resolve(&&files, &mortar, &Limits::DEFAULT).unwrap();
    assert_eq!(model.num_frames(), 2);
    assert_eq!(
        model.companions().collect::<Vec<_>>(),
        [
            (
                Companion::Character,
                "characters/temperate/axis/soldier.char"
            ),
            (
                Companion::AnimationGroup,
                "animations/human/base/mortar_extra.aninc"
            ),
            (Companion::AnimationGroup, "animations/human_base.anim"),
        ]
    );
    assert_eq!(model.clip_origin(), ClipOrigin::AnimationGroup);
    assert_eq!(
        support::clips(&model),
        [("aim", 1, 1, 20.0, true), ("fire", 0, 2, 10.0, false)]
    );
    assert_eq!(
        support::warnings(&model),
        [(
            WarningKind::ClipOutsideFrames,
            "animations/human_base.anim, line 6: late plays frames 1..6 of \
             Animations/Human/Base/MORTAR.mdx, which has 2 frames; left out"
        )]
    );
    drop(model);
    // The `.aninc` beside it comes first; no group naming it, every frame at 20 fps.
    files.insert(
        format!("{base}/mortar.aninc"),
        b"idle 0 2 2 20 0 0 0\n".to_vec(),
    );
    let model = Model::resolve(&&files, &mortar, &Limits::DEFAULT).unwrap();
    assert_eq!(support::clips(&model), [("idle", 0, 2, 20.0, true)]);
    drop(model);
    files.remove(&format!("{base}/mortar.aninc"));
    files.insert(
        "animations/human_base.anim".to_string(),
        b"animgroup { animfile \"animations/human/base/body.mdx\" { } }".to_vec(),
    );
    let model = Model::resolve(&&files, &mortar, &Limits::DEFAULT).unwrap();
    assert_eq!(model.companions().count(), 0);
    assert_eq!(model.clip_origin(), ClipOrigin::FrameGroups);
    assert_eq!(support::clips(&model), [("all", 0, 2, 20.0, true)]);
}

/// A later animation file that would take the model's frames past `Limits::max_frames` is
/// left out, and the files after it are not read.
#[test]
fn a_group_s_file_past_the_frame_limit_is_left_out_with_the_rest() {
    let mut files = game();
    let base = "animations/human/base";
    files.insert(format!("{base}/mortar.mdx"), mortar().write().1);
    files.insert(
        "animations/human_base.anim".to_string(),
        format!(
            "animgroup {{ animfile \"{base}/body.mdx\" {{ }} animfile \"{base}/mortar.mdx\" \
             {{ }} animfile \"{base}/gone.mdx\" {{ }} }}"
        )
        .into_bytes(),
    );
    let limits = Limits {
        max_frames: 4,
        ..Limits::DEFAULT
    };
    let model = Model::resolve(&&files, MESH, &limits).unwrap();
    assert_eq!(model.num_frames(), 3);
    assert_eq!(
        support::warnings(&model),
        [(
            WarningKind::CompanionIgnored,
            "animations/human_base.anim: animation files left out with their clips: \
             animations/human/base/mortar.mdx would take the frames past the limit of 4, and \
             the files after it are not read"
        )]
    );
    // The file opened and not joined is left out (`gone.mdx` was never found).
    assert_eq!(
        model.left_out().collect::<Vec<_>>(),
        [(Companion::AnimationFile, "animations/human/base/mortar.mdx")]
    );
}
