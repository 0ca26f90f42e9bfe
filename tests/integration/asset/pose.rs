//! `Asset::split_bone_tags`: which attachment joints a format may store as points on their
//! parent bones, and the asset left without them.

use std::borrow::Cow;

use skelmap::Model;
use skelmap::asset::{Asset, ClipKeys, Options};
use skelmap::glam::{Quat, Vec3};
use skelmap::hl1::Builder;

/// The Half-Life example (bones `root` and `arm`, four frames) with its attachment on bone
/// `bone`, as an asset: joints `root`, `arm`, `attachment`.
fn example(bone: i32) -> Asset {
    let mut b = Builder::example();
    b.attachments[0].bone = bone;
    let bytes = b.write().unwrap();
    let model = Model::from_bytes(&bytes).unwrap();
    model.to_asset(&Options::default()).unwrap()
}

fn keys(asset: &mut Asset) -> impl Iterator<Item = &mut Vec<skelmap::asset::JointKey>> {
    asset.clips.iter_mut().flat_map(|c| match &mut c.keys {
        ClipKeys::Joints(frames) => frames.iter_mut(),
        ClipKeys::Morph(_) => panic!("joint keys"),
    })
}

#[test]
fn a_still_leaf_attachment_is_a_point_on_its_bone() {
    let asset = example(1);
    let (without, tags) = asset.split_bone_tags(false);
    assert!(matches!(without, Cow::Owned(_)));
    assert_eq!(tags.len(), 1);
    assert_eq!((tags[0].name.as_str(), tags[0].bone), ("attachment", 1));
    assert_eq!(tags[0].offset.translation.to_array(), [1.0, 2.0, 3.0]);
    let skeleton = without.skeleton.as_ref().unwrap();
    assert_eq!(skeleton.joints.len(), 2);
    assert!(skeleton.attachments.is_empty());
    let mut without = without.into_owned();
    assert!(keys(&mut without).all(|k| k.len() == 2));
    for k in 0..asset.num_frames() {
        assert_eq!(without.posed(Some(k)), asset.posed(Some(k)), "frame {k}");
    }
}

/// A leaf that moves against its parent in one frame, one that carries an influence, and
/// (for a format of origins alone) one that is turned stay joints.
#[test]
fn a_moving_weighted_or_turned_leaf_stays_a_joint() {
    let mut moved = example(1);
    keys(&mut moved).nth(2).unwrap()[2].translation.x += 0.01;
    let (same, tags) = moved.split_bone_tags(true);
    assert!(matches!(same, Cow::Borrowed(_)) && tags.is_empty());

    let mut weighted = example(1);
    weighted.meshes[0].influences.weights[0].0 = 2;
    assert!(weighted.split_bone_tags(true).1.is_empty());

    let mut turned = example(1);
    let turn = Quat::from_rotation_z(0.5);
    turned.skeleton.as_mut().unwrap().joints[2].rotation = turn;
    keys(&mut turned).for_each(|k| k[2].rotation = turn);
    assert!(turned.split_bone_tags(false).1.is_empty());
    let (_, tags) = turned.split_bone_tags(true);
    let (_, rotation, translation) = tags[0].offset.to_scale_rotation_translation();
    assert!(rotation.abs_diff_eq(turn, 1e-6));
    assert_eq!(translation, Vec3::new(1.0, 2.0, 3.0));
}

/// A point folded from the middle of the joints: the joints after it, their parents, the
/// influences and the keys move down one, and the asset skins as before.
#[test]
fn joints_after_a_point_are_renumbered() {
    let mut asset = example(0);
    // Reorder to root, attachment, arm: new joint i is old joint `old[i]`.
    let old = [0usize, 2, 1];
    let new = [0usize, 2, 1];
    let skeleton = asset.skeleton.as_mut().unwrap();
    skeleton.joints = old.iter().map(|&o| skeleton.joints[o].clone()).collect();
    for joint in &mut skeleton.joints {
        joint.parent = joint.parent.map(|p| new[p]);
    }
    skeleton.attachments = vec![1];
    for mesh in &mut asset.meshes {
        for (j, _) in &mut mesh.influences.weights {
            *j = new[usize::from(*j)] as u16;
        }
    }
    for k in keys(&mut asset) {
        *k = old.iter().map(|&o| k[o]).collect();
    }
    let (without, tags) = asset.split_bone_tags(false);
    assert_eq!((tags[0].name.as_str(), tags[0].bone), ("attachment", 0));
    let skeleton = without.skeleton.as_ref().unwrap();
    let joints: Vec<_> = (skeleton.joints.iter())
        .map(|j| (j.name.as_str(), j.parent))
        .collect();
    assert_eq!(joints, [("root", None), ("arm", Some(0))]);
    assert!(without.meshes[0].influences.weights.iter().all(|w| w.0 < 2));
    for k in 0..asset.num_frames() {
        assert_eq!(without.posed(Some(k)), asset.posed(Some(k)), "frame {k}");
    }
}

/// `Skeleton::distinct_names` on twenty thousand joints named `a` and twenty thousand named
/// `a_0` … `a_19999`, the numbers each repeat of `a` tries first: the repeats get `a_20000`
/// on, each in one try past the last number its name was given (not a try of every taken
/// number before a free one).
#[test]
fn repeats_of_a_name_whose_numbers_are_taken_are_named_past_them() {
    use skelmap::asset::{Joint, Skeleton};
    use skelmap::glam::Affine3A;
    const HALF: usize = 20_000;
    let joint = |name: String| Joint {
        name,
        parent: None,
        rotation: Quat::IDENTITY,
        translation: Vec3::ZERO,
        scale: Vec3::ONE,
        world: Affine3A::IDENTITY,
    };
    let skeleton = Skeleton {
        joints: (0..HALF)
            .map(|_| joint("a".into()))
            .chain((0..HALF).map(|k| joint(format!("a_{k}"))))
            .collect(),
        ..Skeleton::default()
    };
    let (names, renamed) = skeleton.distinct_names(63, false);
    assert_eq!(renamed.len(), HALF - 1);
    assert_eq!(names[0], "a");
    assert!((1..HALF).all(|i| names[i] == format!("a_{}", HALF + i - 1)));
    assert!((0..HALF).all(|k| names[HALF + k] == format!("a_{k}")));
}

/// `Asset::frame_names`: a clip's name kept in any script, in the asset's code page, cut to
/// whole characters that fit with the frame's number; what is not a letter or digit is `_`.
#[test]
fn frame_names_keep_any_script_cut_to_whole_characters() {
    use skelmap::name::CodePage;
    let mut asset = example(1);
    asset.clips.truncate(1);
    let frames = asset.clips[0].len();
    // 十个汉字的动画名字: ten characters, 30 bytes in UTF-8 and 20 in GBK.
    let name = "\u{5341}\u{4e2a}\u{6c49}\u{5b57}\u{7684}\u{52a8}\u{753b}\u{540d}\u{5b57}!";
    asset.clips[0].name = name.into();
    let chars: Vec<String> = name.chars().map(String::from).collect();
    for (page, kept) in [(CodePage::Utf8, 4), (CodePage::Gbk, 6)] {
        asset.code_page = page;
        let names = asset.frame_names(15);
        assert_eq!((names.len(), frames > 0), (frames, true));
        for (k, stored) in names.iter().enumerate() {
            let want = format!("{}_{}", chars[..kept].concat(), k + 1);
            assert_eq!(stored, &*page.encode(&want), "{page:?} frame {k}");
            assert!(stored.len() <= 15);
        }
    }
    // Room for every character: the `!` is `_`.
    asset.code_page = CodePage::Gbk;
    let whole = format!("{}__1", chars[..9].concat());
    assert_eq!(asset.frame_names(31)[0], &*CodePage::Gbk.encode(&whole));
}
