//! `Model::to_asset`: here, tags that name a bone (Half-Life's attachments, MDM's tags,
//! MDR's) as the asset's attachment joints.

use skelmap::Model;
use skelmap::asset::{ClipKeys, Options};
use skelmap::glam::{Affine3A, Vec3};
use skelmap::hl1::{AttachmentDef, Builder};
use skelmap::model::Pose;

/// A Half-Life attachment is a leaf joint of its bone, named as the reader names it, at its
/// origin in the bone's space at the asset's pose and in every key; flagged an attachment,
/// and where `Model::attachment_transform` puts it.
#[test]
fn a_half_life_attachment_is_a_leaf_joint_at_its_origin() {
    let bytes = Builder::example().write().unwrap();
    let model = Model::from_bytes(&bytes).unwrap();
    let asset = model.to_asset(&Options::default()).unwrap();
    let skeleton = asset.skeleton.as_ref().unwrap();
    assert_eq!(skeleton.joints.len(), model.num_bones() + 1);
    let leaf = &skeleton.joints[2];
    assert_eq!(
        (leaf.name.as_str(), leaf.parent, leaf.translation),
        ("attachment", Some(1), Vec3::new(1.0, 2.0, 3.0))
    );
    assert_eq!(skeleton.attachments, [2]);
    let mut pose = Pose::default();
    model.pose_bind(&mut pose);
    let at = model.attachment_transform(0, &pose).unwrap();
    assert!(leaf.world.abs_diff_eq(at, 1e-5), "{:?} {at:?}", leaf.world);
    let mut frames = 0;
    for clip in &asset.clips {
        let ClipKeys::Joints(keys) = &clip.keys else {
            panic!("{}: joint keys", clip.name);
        };
        for key in keys {
            assert_eq!(key.len(), 3);
            assert_eq!(key[2].translation, Vec3::new(1.0, 2.0, 3.0));
            assert_eq!(key[2].rotation, leaf.rotation);
            frames += 1;
        }
    }
    assert_eq!(frames, model.num_frames());
}

/// Attachments that share a name (studiomdl leaves them empty: `attachment`) are told apart
/// by a number, and a name a bone has is taken by the bone.
#[test]
fn attachments_of_one_name_are_numbered() {
    let mut b = Builder::example();
    let bone = b.bones[0].name.clone();
    b.attachments.push(AttachmentDef {
        name: String::new(),
        bone: 0,
        org: [0.0, 0.0, 5.0],
    });
    b.attachments.push(AttachmentDef {
        name: bone.clone(),
        bone: 1,
        org: [0.0; 3],
    });
    let bytes = b.write().unwrap();
    let model = Model::from_bytes(&bytes).unwrap();
    let asset = model.to_asset(&Options::default()).unwrap();
    let skeleton = asset.skeleton.as_ref().unwrap();
    let names: Vec<_> = (skeleton.joints[2..].iter())
        .map(|j| (j.name.clone(), j.parent))
        .collect();
    assert_eq!(
        names,
        [
            ("attachment".to_string(), Some(1)),
            ("attachment2".to_string(), Some(0)),
            (format!("{bone}2"), Some(1)),
        ]
    );
    assert_eq!(skeleton.attachments, [2, 3, 4]);
}

/// An MDR's tag is its bone (no offset, the bone's name): the bone is flagged, no joint
/// added.
#[test]
fn a_tag_that_is_its_bone_flags_the_bone() {
    let bytes = skelmap::mdr::Builder::triangle().write();
    let model = Model::from_bytes(&bytes).unwrap();
    assert_eq!(model.tag_offset(0), Affine3A::IDENTITY);
    let asset = model.to_asset(&Options::default()).unwrap();
    let skeleton = asset.skeleton.as_ref().unwrap();
    assert_eq!(skeleton.joints.len(), model.num_bones());
    let tag = model.tag_bone(0).unwrap();
    assert!(skeleton.attachments.contains(&tag));
}
