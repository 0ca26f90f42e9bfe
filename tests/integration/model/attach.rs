//! `Model::attachments` for every format that has them: MD3 tags (a fixture, and a middle
//! frame of the shared player torso and tag-only rig), DPM and SKM attachment bones, IQM and
//! MS3D joints; and the errors of `Model::attachment_transform`.

use skelmap::glam::{Affine3A, Vec3A};
use skelmap::md3::write::{Builder as Md3Builder, TagDef};
use skelmap::model::{AttachmentKind, DeformError, Pose};
use skelmap::pose::Interpolation;
use skelmap::{Format, Model};

use crate::support::{corpus_engines_dir, iqm, ms3d, tube, tube_skm};

fn close(a: [f32; 3], b: [f32; 3], tolerance: f32) -> bool {
    (0..3).all(|k| (a[k] - b[k]).abs() <= tolerance)
}

/// The columns (forward, left, up) and translation of `m`.
fn parts(m: &Affine3A) -> ([[f32; 3]; 3], [f32; 3]) {
    (
        [
            m.matrix3.x_axis.to_array(),
            m.matrix3.y_axis.to_array(),
            m.matrix3.z_axis.to_array(),
        ],
        m.translation.to_array(),
    )
}

/// Two frames: `tag_weapon` moves from (2, 0, 1) facing +X to (0, 2, 3) facing +Y;
/// `tag_head` stays at (0, 0, 5), mirrored (its up axis −Z).
fn two_frame_md3() -> Vec<u8> {
    let mut b = Md3Builder::triangle();
    b.frames.push(b.frames[0].clone());
    let still = b.surfaces[0].frames[0].clone();
    b.surfaces[0].frames.push(still);
    let mut head = TagDef::at("tag_head", [0.0, 0.0, 5.0]);
    head.axis[2] = [0.0, 0.0, -1.0];
    let mut turned = TagDef::at("tag_weapon", [0.0, 2.0, 3.0]);
    turned.axis = [[0.0, 1.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 0.0, 1.0]];
    b.tags = vec![
        vec![TagDef::at("tag_weapon", [2.0, 0.0, 1.0]), head.clone()],
        vec![turned, head],
    ];
    b.write()
}

#[test]
fn md3_tags_are_the_attachments_of_its_model() {
    let bytes = two_frame_md3();
    let model = Model::from_bytes(&bytes).unwrap();
    let listed: Vec<_> = model.attachments().map(|a| (a.name, a.kind)).collect();
    assert_eq!(
        listed,
        [
            (&b"tag_weapon"[..], AttachmentKind::Tag(0)),
            (&b"tag_head"[..], AttachmentKind::Tag(1)),
        ]
    );
    assert_eq!((model.num_attachments(), model.num_tags()), (2, 2));
    assert_eq!(model.attachment_index(b"tag_head"), Some(1));
    assert_eq!(model.attachment_index(b"tag_torso"), None);
    assert_eq!(model.attachment(2), None);

    let mut pose = Pose::default();
    model
        .pose(0, 1, 0.0, Interpolation::Nlerp, &mut pose)
        .unwrap();
    let (axes, origin) = parts(&model.attachment_transform(0, &pose).unwrap());
    assert_eq!(origin, [2.0, 0.0, 1.0]);
    assert_eq!(axes, [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]);

    model
        .pose(0, 1, 1.0, Interpolation::Nlerp, &mut pose)
        .unwrap();
    let (axes, origin) = parts(&model.attachment_transform(0, &pose).unwrap());
    assert_eq!(origin, [0.0, 2.0, 3.0]);
    assert_eq!(axes, [[0.0, 1.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]);

    // Half way: the origin halfway, the axes turned 45° about Z and orthonormal again.
    model
        .pose(0, 1, 0.5, Interpolation::Nlerp, &mut pose)
        .unwrap();
    let at = model.attachment_transform(0, &pose).unwrap();
    let (axes, origin) = parts(&at);
    assert_eq!(origin, [1.0, 1.0, 2.0]);
    let s = 0.5f32.sqrt();
    assert!(close(axes[0], [s, s, 0.0], 1e-6), "{axes:?}");
    assert!(close(axes[1], [-s, s, 0.0], 1e-6), "{axes:?}");
    assert!(close(axes[2], [0.0, 0.0, 1.0], 1e-6), "{axes:?}");
    // A point one unit along the attached model's forward axis.
    let p = at.transform_point3a(Vec3A::X).to_array();
    assert!(close(p, [1.0 + s, 1.0 + s, 2.0], 1e-6), "{p:?}");

    // The mirrored tag stays mirrored.
    let (axes, origin) = parts(&model.attachment_transform(1, &pose).unwrap());
    assert_eq!(origin, [0.0, 0.0, 5.0]);
    assert_eq!(axes, [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, -1.0]]);
}

#[test]
fn attachment_transform_refuses_what_it_cannot_place() {
    let bytes = two_frame_md3();
    let model = Model::from_bytes(&bytes).unwrap();
    let mut pose = Pose::default();
    assert_eq!(
        model.attachment_transform(0, &pose),
        Err(DeformError::NotSampled)
    );
    model
        .pose(0, 1, 0.5, Interpolation::Nlerp, &mut pose)
        .unwrap();
    assert_eq!(
        model.attachment_transform(2, &pose),
        Err(DeformError::NoAttachment {
            attachment: 2,
            attachments: 2
        })
    );
    // A pose of bones (a DPM's) for a model whose attachments are tags.
    let (dpm, _) = tube();
    let skeletal = Model::from_bytes(&dpm).unwrap();
    let mut bones = Pose::default();
    skeletal
        .pose(1, 2, 0.5, Interpolation::Nlerp, &mut bones)
        .unwrap();
    assert_eq!(
        model.attachment_transform(0, &bones),
        Err(DeformError::WrongPose {
            found: "bones",
            format: Format::Md3
        })
    );
    // And a pose of frames for a model whose attachments are bones.
    assert_eq!(
        skeletal.attachment_transform(0, &pose),
        Err(DeformError::WrongPose {
            found: "frames",
            format: Format::Dpm
        })
    );
}

#[test]
fn attachment_bones_are_the_attachments_of_dpm_and_skm() {
    let (dpm, _) = tube();
    let ((skm, _), (skp, _)) = tube_skm();
    let dir = tempfile::Builder::new()
        .prefix("skelmap-attach-")
        .tempdir()
        .unwrap();
    let dir = dir.path();
    std::fs::write(dir.join("tube.skm"), &skm).unwrap();
    std::fs::write(dir.join("tube.skp"), &skp).unwrap();
    for model in [
        Model::from_bytes(&dpm).unwrap(),
        Model::open(dir.join("tube.skm")).unwrap(),
    ] {
        let what = model.format().name();
        // The tube flags its last bone, `seg3`, and no other.
        let listed: Vec<_> = model.attachments().map(|a| (a.name, a.kind)).collect();
        assert_eq!(listed, [(&b"seg3"[..], AttachmentKind::Bone(3))], "{what}");
        let mut pose = Pose::default();
        model
            .pose(4, 5, 0.25, Interpolation::Nlerp, &mut pose)
            .unwrap();
        assert_eq!(
            model.attachment_transform(0, &pose),
            Ok(pose.palette().bone_world(3).unwrap()),
            "{what}"
        );
    }
}

#[test]
fn every_iqm_and_ms3d_joint_is_an_attachment() {
    let iqm = iqm::demo().write().unwrap();
    let model = Model::from_bytes(&iqm).unwrap();
    let listed: Vec<_> = model.attachments().map(|a| (a.name, a.kind)).collect();
    assert_eq!(
        listed,
        [
            (&b"root"[..], AttachmentKind::Bone(0)),
            (&b"spine"[..], AttachmentKind::Bone(1)),
            (&b"head"[..], AttachmentKind::Bone(2)),
        ]
    );
    let ms3d = ms3d::arm().write().unwrap();
    let model = Model::from_bytes(&ms3d).unwrap();
    let listed: Vec<_> = model.attachments().map(|a| (a.name, a.kind)).collect();
    assert_eq!(
        listed,
        [
            (&b"root"[..], AttachmentKind::Bone(0)),
            (&b"tip"[..], AttachmentKind::Bone(1)),
        ]
    );
    let mut pose = Pose::default();
    model.pose_bind(&mut pose);
    // `tip` rests 10 up Y from `root`.
    let (_, origin) = parts(&model.attachment_transform(1, &pose).unwrap());
    assert!(close(origin, [0.0, 10.0, 0.0], 1e-6), "{origin:?}");
}

#[test]
fn formats_without_attachments_list_none() {
    let quake = skelmap::quake::Builder::triangle().write();
    let model = Model::from_bytes(&quake).unwrap();
    assert_eq!((model.num_attachments(), model.num_tags()), (0, 0));
}

/// `tag_weapon` of the shared Tremulous torso between frames 76 and 77 (of 153), against the
/// stored tags read here with plain offsets: the origin halfway, the blended axes made
/// orthonormal (expected values by Gram–Schmidt in double precision).
#[test]
fn a_corpus_tag_at_a_middle_frame() {
    let Some(dir) = corpus_engines_dir("md3") else {
        return;
    };
    let bytes = std::fs::read(dir.join("trem_human_base_upper.md3")).unwrap();
    let model = Model::from_bytes(&bytes).unwrap();
    let names: Vec<_> = model
        .attachments()
        .map(|a| a.name_lossy().into_owned())
        .collect();
    assert_eq!(names, ["tag_head", "tag_weapon", "tag_torso"]);
    let weapon = model.attachment_index(b"tag_weapon").unwrap();

    // Frame 76 as stored: `md3Tag_t` at ofs_tags + (76 · 3 + 1) · 112, floats after the name.
    let ofs_tags = u32::from_le_bytes(bytes[96..100].try_into().unwrap()) as usize;
    let at = ofs_tags + (76 * 3 + 1) * 112 + 64;
    let stored: Vec<f32> = (0..12)
        .map(|k| f32::from_le_bytes(bytes[at + 4 * k..at + 4 * k + 4].try_into().unwrap()))
        .collect();
    assert_eq!(
        stored[..3],
        [15.175_916, -14.962_286, 4.609_765],
        "the stored origin"
    );
    let mut pose = Pose::default();
    model
        .pose(76, 76, 0.0, Interpolation::Nlerp, &mut pose)
        .unwrap();
    let (axes, origin) = parts(&model.attachment_transform(weapon, &pose).unwrap());
    assert_eq!(origin, [stored[0], stored[1], stored[2]]);
    for r in 0..3 {
        let row = [stored[3 + 3 * r], stored[4 + 3 * r], stored[5 + 3 * r]];
        assert!(
            close(axes[r], row, 1e-5),
            "axis {r}: {:?} vs {row:?}",
            axes[r]
        );
    }

    model
        .pose(76, 77, 0.5, Interpolation::Nlerp, &mut pose)
        .unwrap();
    let (axes, origin) = parts(&model.attachment_transform(weapon, &pose).unwrap());
    assert!(
        close(origin, [15.469_044, -14.176_475, 4.976_807], 1e-5),
        "{origin:?}"
    );
    let expected = [
        [0.917_960_9, 0.035_322_51, -0.395_095],
        [-0.394_833_87, 0.177_108_07, -0.901_520_4],
        [0.038_130_55, 0.983_557_35, 0.176_524_8],
    ];
    for r in 0..3 {
        assert!(close(axes[r], expected[r], 1e-5), "axis {r}: {:?}", axes[r]);
    }
}

/// The shared tag-only rig (no surfaces, 15 frames, one tag) is all attachment.
#[test]
fn a_corpus_rig_without_surfaces_places_its_tag() {
    let Some(dir) = corpus_engines_dir("md3") else {
        return;
    };
    let bytes = std::fs::read(dir.join("trem_rifle_hand.md3")).unwrap();
    let model = Model::from_bytes(&bytes).unwrap();
    assert_eq!((model.num_meshes(), model.num_frames()), (0, 15));
    assert_eq!(
        model.attachment(0).map(|a| a.name),
        Some(&b"tag_weapon"[..])
    );
    let mut pose = Pose::default();
    model
        .pose(7, 7, 0.0, Interpolation::Nlerp, &mut pose)
        .unwrap();
    let (_, origin) = parts(&model.attachment_transform(0, &pose).unwrap());
    assert_eq!(origin, [6.520_228_4, -5.263_509_3, -7.434_911]);
}

/// Attachment `i` is found directly, whether every bone attaches (IQM) or only the flagged
/// ones (DPM): placing each of 20,000 attachments walks no list of bones.
#[test]
fn each_of_many_attachments_is_found_directly() {
    let bones = 20_000;
    let mut builder = skelmap::synth::tube(&skelmap::synth::TubeParams {
        bones,
        rings_per_bone: 1,
        sides: 3,
        frames: 1,
        ..skelmap::synth::TubeParams::default()
    });
    // Every other bone flagged: the attachments are bones 0, 2, 4 ….
    for (i, bone) in builder.bones.iter_mut().enumerate() {
        bone.flags = if i % 2 == 0 {
            skelmap::dpm::raw::DPMBONEFLAG_ATTACHMENT
        } else {
            0
        };
    }
    let bytes = builder.write().unwrap();
    let model = Model::from_bytes(&bytes).unwrap();
    assert_eq!(model.num_attachments(), bones as usize / 2);
    let mut pose = Pose::default();
    model.pose_bind(&mut pose);
    for i in 0..model.num_attachments() {
        let attachment = model.attachment(i).unwrap();
        assert_eq!(attachment.kind, AttachmentKind::Bone(2 * i));
        let at = model.attachment_transform(i, &pose).unwrap();
        assert_eq!(at, pose.palette().world[2 * i]);
    }
    assert!(model.attachment(bones as usize / 2).is_none());
}
