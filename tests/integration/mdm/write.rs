//! The MDM writer (`mdm::Builder::from_asset`, through the write dispatch): a DPM, an IQM, an
//! asset of several roots and an MDM pair written as MDM + MDX + `.aninc`, read back with
//! every frame where the source puts it (within ET's 16-bit angles), clips back from the
//! `.aninc`, attachments as tags, and what it says it lost.

use std::collections::HashMap;

use skelmap::asset::{ClipKeys, Place, WriteOptions, Written};
use skelmap::model::convert::{self, Posed, SkinningError};
use skelmap::{Format, Model};

/// `model` converted and written as MDM through the write dispatch.
fn mdm_of(model: &Model<'_>) -> Written {
    let asset = convert::asset_of(model).unwrap();
    skelmap::model::write(Format::Mdm, &asset, &WriteOptions::default()).unwrap()
}

/// The written files read back as `Model::open` reads them from a folder.
fn read_back(w: &Written) -> Model<'static> {
    let (files, main) = crate::support::written_folder(w, "mdm");
    let files: &'static HashMap<String, Vec<u8>> = Box::leak(Box::new(files));
    Model::resolve(&files, &main, &skelmap::Limits::DEFAULT).unwrap()
}

/// ET's angles hold a turn in 65 536 steps: a bone's rotation and its direction from its
/// parent are each off by at most half a step (4.8e-5 radians an angle), which moves a point
/// by that times its distance from the bone, summed down a chain of bones.
const ANGLE_STEPS: f32 = 2e-4;

fn check(error: &SkinningError, frames: usize) {
    assert_eq!(error.frames, frames);
    assert!(error.max <= ANGLE_STEPS, "{error}");
}

fn clips(m: &Model<'_>) -> Vec<(String, u32, u32, bool)> {
    m.clips()
        .iter()
        .map(|c| (c.name.clone(), c.first, c.count, c.looped))
        .collect()
}

#[test]
fn a_dpm_written_as_mdm_skins_the_same_at_every_frame() {
    let bytes = skelmap::synth::tube(&Default::default()).write().unwrap();
    let source = Model::from_bytes(&bytes).unwrap();
    let written = mdm_of(&source);
    assert_eq!(written.format, Format::Mdm);
    assert_eq!(
        written
            .files
            .iter()
            .map(|f| f.place.clone())
            .collect::<Vec<_>>(),
        [
            Place::Main,
            Place::Extension("mdx"),
            Place::Extension("aninc")
        ]
    );
    assert_eq!(
        written.notes,
        [
            "every surface is drawn whole at every distance: its min_lod is its vertex count, \
             as skelmap makes no collapse order for ET's level of detail",
            "every bone's torso weight is 0: ET plays the legs' animation on the whole body",
        ]
    );
    let aninc = String::from_utf8(written.files[2].bytes.clone()).unwrap();
    let lines: Vec<&str> = aninc.lines().skip(1).collect();
    let want: Vec<String> = source
        .clips()
        .iter()
        .map(|c| {
            let looping = if c.looped { c.count } else { 0 };
            format!(
                "{} {} {} {looping} {} 0 0 0 0",
                c.name, c.first, c.count, c.fps
            )
        })
        .collect();
    assert_eq!(lines, want);
    let mdm = read_back(&written);
    assert_eq!(mdm.format(), Format::Mdm);
    assert_eq!(
        (mdm.num_frames(), mdm.num_meshes(), mdm.num_bones()),
        (source.num_frames(), source.num_meshes(), source.num_bones())
    );
    assert_eq!(clips(&mdm), clips(&source));
    // The attachment joint comes back as a tag on its bone (its one attachment), placed as
    // the source places it.
    assert_eq!((mdm.num_tags(), mdm.num_attachments()), (1, 1));
    let tags = convert::attachment_error(&source, &mdm, 0).expect("an attachment");
    assert_eq!((tags.source, tags.kept), (1, 1));
    assert!(
        tags.origin <= ANGLE_STEPS * 10.0 && tags.angle <= 1e-3,
        "{tags:?}"
    );
    let error = convert::skinning_error(Posed::Model(&source), Posed::Model(&mdm), 0);
    check(&error, source.num_frames());
}

#[test]
fn an_iqm_written_as_mdm_skins_the_same_and_says_what_it_lost() {
    use skelmap::synth::{CharacterParams, iqm_character};
    let params = CharacterParams {
        sides: 3,
        frames: 3,
        scaled_joints: 0,
    };
    let bytes = iqm_character(&params).model.write().unwrap();
    let source = Model::from_bytes(&bytes).unwrap();
    let written = mdm_of(&source);
    let mdm = read_back(&written);
    assert_eq!((mdm.num_bones(), mdm.num_tags()), (source.num_bones(), 0));
    let error = convert::skinning_error(Posed::Model(&source), Posed::Model(&mdm), 0);
    check(&error, source.num_frames());
    // The demo's head scales, which an MDX bone cannot.
    let demo = Model::from_bytes(&crate::support::iqm::demo().write().unwrap())
        .map(|m| mdm_of(&m))
        .unwrap();
    assert!(
        demo.notes
            .iter()
            .any(|n| n.contains("frames scale a joint")),
        "{:?}",
        demo.notes
    );
}

/// The tube with joint 2 made a root: its keys become its model-space transforms, frame by
/// frame, so the asset draws the same; and joint 1 renamed `TAG_grip`.
fn two_roots() -> skelmap::asset::Asset {
    let bytes = skelmap::synth::tube(&Default::default()).write().unwrap();
    let source = Model::from_bytes(&bytes).unwrap();
    let mut asset = convert::asset_of(&source).unwrap();
    let skeleton = asset.skeleton.clone().unwrap();
    for clip in &mut asset.clips {
        let ClipKeys::Joints(frames) = &mut clip.keys else {
            panic!("a skeletal clip")
        };
        for keys in frames {
            let world = skeleton.world(keys);
            let (scale, rotation, translation) = world[2].to_scale_rotation_translation();
            keys[2] = skelmap::asset::JointKey {
                rotation,
                translation,
                scale,
            };
        }
    }
    let joints = &mut asset.skeleton.as_mut().unwrap().joints;
    let (_, rotation, translation) = joints[2].world.to_scale_rotation_translation();
    (joints[2].parent, joints[2].rotation, joints[2].translation) = (None, rotation, translation);
    joints[1].name = "TAG_grip".into();
    asset
}

/// Two roots: ET places every root at one point a frame, so the writer adds a root where the
/// root of more influences is (joint 0) and hangs both from it. The other root keeps its
/// distance to joint 1 (its parent before it was made a root) and not to the added root, so it
/// hangs from joint 1 in the MDX, and the notes say so: the model skins as the asset does. A
/// joint named `tag_…` is a tag.
#[test]
fn several_roots_hang_from_an_added_root_and_a_bone_from_the_one_it_keeps_to() {
    let asset = two_roots();
    let written = skelmap::model::write(Format::Mdm, &asset, &WriteOptions::default()).unwrap();
    // The tube has a joint named `root`: the added one takes the next free name.
    assert_eq!(
        written.notes[..2],
        [
            "the 2 root joints hang from a bone 'root_1' added where 'root' is in each frame: \
             ET places every root bone at one point a frame",
            "1 bones that carry vertices or tags hang in the MDX from the bone they keep their \
             distance to, not their parent ('seg2' from 'TAG_grip', not 'root_1'): the MDX's \
             hierarchy differs"
        ]
    );
    assert!(
        !written
            .notes
            .iter()
            .any(|n| n.contains("move toward or away")),
        "{:?}",
        written.notes
    );
    let mdm = read_back(&written);
    let names: Vec<String> = (0..mdm.num_bones())
        .map(|b| String::from_utf8_lossy(mdm.bone(b).unwrap().name()).into_owned())
        .collect();
    let parents: Vec<Option<usize>> = (0..mdm.num_bones())
        .map(|b| mdm.bone(b).unwrap().parent())
        .collect();
    assert_eq!(names, ["root_1", "root", "TAG_grip", "seg2", "seg3"]);
    assert_eq!(parents, [None, Some(0), Some(1), Some(2), Some(3)]);
    let tags: Vec<String> = mdm
        .attachments()
        .map(|a| String::from_utf8_lossy(a.name).into_owned())
        .collect();
    assert_eq!(tags, ["TAG_grip", "seg3"]);
    let error = convert::skinning_error(Posed::Asset(&asset), Posed::Model(&mdm), 0);
    check(&error, mdm.num_frames());
}

/// A bone whose place relative to its parent changes length between frames keeps the middle
/// length, and the notes give the largest miss; skinning is off by about that.
#[test]
fn a_bone_that_moves_away_from_its_parent_is_placed_at_the_middle_distance() {
    let bytes = skelmap::synth::tube(&Default::default()).write().unwrap();
    let source = Model::from_bytes(&bytes).unwrap();
    let mut asset = convert::asset_of(&source).unwrap();
    // Bone 3 stretched by 1 unit in the last frame of the first clip.
    let ClipKeys::Joints(frames) = &mut asset.clips[0].keys else {
        panic!("a skeletal clip")
    };
    let last = frames.last_mut().unwrap();
    let t = last[3].translation;
    last[3].translation = t + t.normalize();
    let fitted = skelmap::mdm::Builder::from_asset(&asset).unwrap();
    let note = fitted
        .losses
        .iter()
        .find(|n| n.contains("move toward or away"))
        .expect("a note");
    assert!(
        note.starts_with(
            "1 bones that carry vertices or tags move toward or away from their parents \
             between frames"
        ),
        "{note}"
    );
    let off: f32 = note
        .rsplit("up to ")
        .next()
        .and_then(|s| s.split(' ').next())
        .unwrap()
        .parse()
        .unwrap();
    assert!((off - 0.5).abs() < 1e-4, "{note}");
    let (mdm, mdx) = fitted.builder.write();
    let limits = skelmap::Limits::DEFAULT;
    let model = Model::from_mdm(
        skelmap::Source::from_vec(mdm),
        skelmap::Source::from_vec(mdx),
        &limits,
    )
    .unwrap();
    let error = convert::skinning_error(Posed::Asset(&asset), Posed::Model(&model), 0);
    assert!(
        error.max * error.size <= 0.5 + 1e-3 && error.max * error.size >= 0.4,
        "{error}"
    );
}

/// An MDM pair (the builder's, with torso weights, a tag and distances) written again skins
/// as its asset does at every frame. Its vertex of two weights whose offsets disagree on
/// where it is comes back where the asset holds it. Its tag `tag_head`, half a unit and two
/// from bone 1, is a leaf joint of the asset (`Model::to_asset`) and a tag on bone 1 again in
/// the MDM written: no bone added, the same name, offset and axes, placed where the source
/// places it in every frame.
#[test]
fn an_mdm_written_again_skins_as_its_asset() {
    let (mdm, mdx) = skelmap::mdm::Builder::triangle().write();
    let limits = skelmap::Limits::DEFAULT;
    let source = Model::from_mdm(
        skelmap::Source::from_vec(mdm),
        skelmap::Source::from_vec(mdx),
        &limits,
    )
    .unwrap();
    let asset = convert::asset_of(&source).unwrap();
    let skeleton = asset.skeleton.as_ref().unwrap();
    let names: Vec<_> = skeleton.joints.iter().map(|j| j.name.as_str()).collect();
    assert_eq!(names, ["root", "head", "tag_head"]);
    assert_eq!(
        (skeleton.joints[2].parent, &skeleton.attachments),
        (Some(1), &vec![2])
    );
    let written = skelmap::model::write(Format::Mdm, &asset, &WriteOptions::default()).unwrap();
    let again = read_back(&written);
    assert_eq!(clips(&again), clips(&source));
    assert_eq!((again.num_bones(), again.num_tags()), (2, 1));
    assert_eq!(again.tag_bone(0), Some(1));
    let offset = again.tag_offset(0);
    assert!(offset.abs_diff_eq(source.tag_offset(0), 1e-6), "{offset:?}");
    let error = convert::skinning_error(Posed::Asset(&asset), Posed::Model(&again), 0);
    check(&error, 3);
    let tag = again.attachment_index(b"tag_head").expect("the tag");
    let (mut pose, mut was) = Default::default();
    for frame in 0..3 {
        let posed = |m: &Model, p: &mut skelmap::model::Pose| {
            m.pose(frame, frame, 0.0, Default::default(), p).unwrap();
        };
        posed(&again, &mut pose);
        posed(&source, &mut was);
        let at = again.attachment_transform(tag, &pose).unwrap();
        let before = source.attachment_transform(0, &was).unwrap();
        assert!(
            at.translation.distance(before.translation) <= 1e-3,
            "frame {frame}: {at:?} {before:?}"
        );
        assert!(
            at.matrix3.abs_diff_eq(before.matrix3, 1e-3),
            "frame {frame}"
        );
    }
}

#[test]
fn names_too_long_for_their_fields_are_refused() {
    let bytes = skelmap::synth::tube(&Default::default()).write().unwrap();
    let asset = convert::asset_of(&Model::from_bytes(&bytes).unwrap()).unwrap();
    for (what, set) in [
        (
            "surface",
            &(|a: &mut skelmap::asset::Asset| a.meshes[0].name = "m".repeat(64)) as &dyn Fn(&mut _),
        ),
        ("bone", &|a: &mut skelmap::asset::Asset| {
            a.skeleton.as_mut().unwrap().joints[1].name = "b".repeat(64)
        }),
        ("clip", &|a: &mut skelmap::asset::Asset| {
            a.clips[0].name = "c".repeat(64)
        }),
    ] {
        let mut asset = asset.clone();
        set(&mut asset);
        let e = skelmap::mdm::Builder::from_asset(&asset).unwrap_err();
        assert!(e.to_string().contains(&format!("the {what} name")), "{e}");
        assert!(e.to_string().contains("(64 bytes)"), "{e}");
    }
}
