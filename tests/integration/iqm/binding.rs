//! Sampling through the channel layout (`iqm::Pair::layout`) against the view's own decode,
//! pose by pose: the model's own frames and an animation-only IQM whose joints come in
//! another order, on a character with scaled keys and partial channel masks
//! (`synth::iqm_character`). The layout's blend is the scalar decode's, bit for bit.

use skelmap::Parse;
use skelmap::core::iqm::{self, Iqm};
use skelmap::glam::{Quat, Vec3A, Vec4};
use skelmap::pose::{Interpolation, LocalPose, PoseFrames, sample};
use skelmap::synth::{Character, CharacterParams, iqm_character};
use skelmap::{Limits, Model, Source};

/// Frame pairs and blends that cover the ends, the middle and a wrap.
const BLENDS: [(usize, usize, f32); 5] = [
    (0, 0, 0.0),
    (0, 1, 0.3),
    (17, 18, 0.5),
    (58, 59, 1.0),
    (59, 0, 0.9),
];

/// `model` playing the animation-only IQM `animation`.
fn paired<'d>(model: &'d [u8], animation: &'d [u8]) -> Model<'d> {
    Model::from_iqm(
        Source::from_bytes(model),
        Source::from_bytes(animation),
        &Limits::DEFAULT,
    )
    .unwrap()
}

fn character() -> (Vec<u8>, Vec<u8>) {
    let Character { model, animation } = iqm_character(&CharacterParams::default());
    (model.write().unwrap(), animation.write().unwrap())
}

/// `source`'s frames `a` and `b` decoded pose by pose (`frame_poses_into`, the view's own
/// decode) and blended as `pose::sample`'s nlerp blends them, spelled out.
fn reference<'d>(source: &impl PoseFrames<'d>, a: usize, b: usize, t: f32) -> LocalPose {
    let (mut pa, mut pb) = (Vec::new(), Vec::new());
    source.frame_poses_into(a, &mut pa);
    source.frame_poses_into(b, &mut pb);
    let bones = pa
        .iter()
        .zip(&pb)
        .map(|((qa, ta), (qb, tb))| {
            let qb = if qa.dot(*qb) < 0.0 { -*qb } else { *qb };
            let q = Vec4::from(*qa).lerp(Vec4::from(qb), t);
            let q = q * (1.0 / q.length_squared().sqrt());
            (Quat::from_vec4(q), ta.lerp(*tb, t))
        })
        .collect();
    let (mut sa, mut sb) = (Vec::new(), Vec::new());
    source.frame_scales_into(a, &mut sa);
    source.frame_scales_into(b, &mut sb);
    let scales = sa.iter().zip(&sb).map(|(x, y)| x.lerp(*y, t)).collect();
    let mut pose = LocalPose::default();
    (pose.bones, pose.scales) = (bones, scales);
    pose
}

#[test]
fn the_character_has_scaled_keys_and_partial_channel_masks() {
    let (model, animation) = character();
    let view = Iqm::parse(&model).unwrap();
    assert_eq!((view.num_joints(), view.num_vertices()), (80, 3040));
    assert!(view.has_scale());
    let masks: Vec<u32> = view.poses().iter().map(|p| p.channelmask.get()).collect();
    // Each joint turns about one axis (two rotation channels), only the root moves (two
    // translation channels), four joints scale (three channels).
    assert!(
        masks.iter().all(|m| (m >> 3 & 0xf).count_ones() == 2),
        "{masks:x?}"
    );
    assert_eq!(masks.iter().filter(|m| *m & 0x7 != 0).count(), 1);
    assert_eq!(masks[0] & 0x7, 0x3);
    assert_eq!(masks.iter().filter(|m| *m & 0x380 == 0x380).count(), 4);
    let anim = Iqm::parse(&animation).unwrap();
    assert_eq!((anim.num_joints(), anim.num_vertices()), (80, 0));
    let order = |v: &Iqm<'_>| {
        (0..80)
            .map(|i| v.joint_name(i).unwrap().to_vec())
            .collect::<Vec<_>>()
    };
    assert_ne!(
        order(&view),
        order(&anim),
        "the animation lists the joints in another order"
    );
}

#[test]
fn the_layout_samples_a_models_own_frames_as_the_view_decodes_them() {
    let (bytes, _) = character();
    let model = Model::from_bytes(&bytes).unwrap();
    let view = Iqm::parse(&bytes).unwrap();
    let layout = model.as_iqm().unwrap().layout().unwrap();
    assert_eq!(
        (layout.num_bones(), layout.values_per_frame()),
        (80, view.num_framechannels())
    );
    let mut pose = LocalPose::default();
    for (a, b, t) in BLENDS {
        model.sample(a, b, t, Interpolation::Nlerp, &mut pose);
        assert_eq!(pose, reference(&view, a, b, t), "frames {a}, {b} at {t}");
        assert_eq!(pose.scales.len(), 80);
    }
}

#[test]
fn the_first_sample_without_the_layout_gives_the_bits_of_the_layouts() {
    // The first sample of a fresh model playing its own frames walks the poses; the layout
    // is made on the second (on the first for an animation-only IQM). Each blend, as a
    // model's first sample and as a later one, on the model's own frames and on the
    // animation-only IQM played by joint name.
    let (model, animation) = character();
    let mut later = LocalPose::default();
    for (a, b, t) in BLENDS {
        for (which, fresh) in [
            ("own frames", Model::from_bytes(&model).unwrap()),
            ("animation", paired(&model, &animation)),
        ] {
            let mut first = LocalPose::default();
            fresh.sample(a, b, t, Interpolation::Nlerp, &mut first);
            fresh.sample(a, b, t, Interpolation::Nlerp, &mut later);
            assert_eq!(first, later, "{which}: frames {a}, {b} at {t}");
            assert_eq!(
                first,
                reference(fresh.as_iqm().unwrap(), a, b, t),
                "{which}"
            );
        }
    }
}

#[test]
fn an_animation_in_another_joint_order_samples_as_the_models_own() {
    let (model, animation) = character();
    let own = Model::from_bytes(&model).unwrap();
    let paired = paired(&model, &animation);
    let bound = paired.as_iqm().unwrap();
    assert_eq!(bound.matched_joints(), 80);
    assert_eq!(bound.layout().map(|l| l.num_bones()), Some(80));
    let (mut mine, mut theirs) = (LocalPose::default(), LocalPose::default());
    for (a, b, t) in BLENDS {
        own.sample(a, b, t, Interpolation::Nlerp, &mut mine);
        paired.sample(a, b, t, Interpolation::Nlerp, &mut theirs);
        assert_eq!(theirs, mine, "frames {a}, {b} at {t}");
        // And the binding against the joint-by-joint mapping it replaces.
        assert_eq!(theirs, reference(bound, a, b, t), "frames {a}, {b} at {t}");
    }
}

#[test]
fn joints_the_animation_leaves_alone_keep_their_bind_pose() {
    // The animation drops the left arm's joints: those keep the model's bind transforms.
    let Character {
        model,
        mut animation,
    } = iqm_character(&CharacterParams::default());
    let keep: Vec<usize> = (0..animation.joints.len())
        .filter(|&i| !animation.joints[i].name.ends_with(b"_l"))
        .collect();
    let remap = |p: i32| {
        usize::try_from(p)
            .ok()
            .and_then(|p| keep.iter().position(|&k| k == p))
    };
    animation.joints = keep
        .iter()
        .map(|&i| {
            let mut j = animation.joints[i].clone();
            j.parent = remap(j.parent).map_or(-1, |p| p as i32);
            j
        })
        .collect();
    for frame in &mut animation.frames {
        *frame = keep.iter().map(|&i| frame[i]).collect();
    }
    let (model, animation) = (model.write().unwrap(), animation.write().unwrap());
    let paired = paired(&model, &animation);
    let bound = paired.as_iqm().unwrap();
    assert_eq!(bound.matched_joints(), keep.len());
    let view = Iqm::parse(&model).unwrap();
    let mut pose = LocalPose::default();
    for (a, b, t) in BLENDS {
        paired.sample(a, b, t, Interpolation::Nlerp, &mut pose);
        assert_eq!(pose, reference(bound, a, b, t), "frames {a}, {b} at {t}");
        for i in 0..view.num_joints() {
            if view.joint_name(i).unwrap().ends_with(b"_l") {
                let (q, p, s) = view.joint_transform(i).unwrap();
                assert_eq!((pose.bones[i], pose.scales[i]), ((q, p), s), "joint {i}");
            }
        }
    }
}

#[test]
fn a_view_and_its_model_sample_alike_on_every_shape_of_mask() {
    // The demo: joints that read every channel, none, and only a scale.
    let bytes = iqm::Builder::demo().write().unwrap();
    let model = Model::from_bytes(&bytes).unwrap();
    let view = Iqm::parse(&bytes).unwrap();
    let mut pose = LocalPose::default();
    let mut direct = LocalPose::default();
    for (a, b, t) in [(0, 1, 0.25), (1, 3, 0.5), (3, 3, 0.0)] {
        model.sample(a, b, t, Interpolation::Nlerp, &mut pose);
        sample(&view, a, b, t, Interpolation::Nlerp, &mut direct);
        assert_eq!(pose, direct);
        assert_eq!(pose, reference(&view, a, b, t));
    }
    assert!(pose.scales.iter().any(|s| *s != Vec3A::ONE));
}

/// A pair keeps its joints' parents in one table (`Skeleton::parent_table`), the bones'
/// parents in file order, and its palettes are those of the bones' walk (baked frames walk
/// them), bit for bit, for its own frames and an animation played on it.
#[test]
fn a_pair_s_parent_table_is_its_joints_parents() {
    use skelmap::Skeleton;
    use skelmap::pose::{BakedFrames, NO_PARENT, Palette};
    let (model, animation) = character();
    let own = iqm::Pair::single(Iqm::parse(&model).unwrap());
    let played =
        iqm::Pair::new(Iqm::parse(&model).unwrap(), Iqm::parse(&animation).unwrap()).unwrap();
    for pair in [&own, &played] {
        let want: Vec<u16> = pair
            .skeleton_bones()
            .map(|b| b.parent().map_or(NO_PARENT, |p| p as u16))
            .collect();
        assert_eq!(pair.parent_table(), Some(want.as_slice()));
        assert!(want.iter().filter(|&&p| p == NO_PARENT).count() >= 1);
        let baked = BakedFrames::new(pair).unwrap();
        let mut pose = LocalPose::default();
        let (mut got, mut walked) = (Palette::default(), Palette::default());
        for (a, b, t) in BLENDS {
            sample(pair, a, b, t, Interpolation::Nlerp, &mut pose);
            got.build(pair, &pose);
            walked.build(&baked, &pose);
            assert_eq!(got.world.len(), want.len());
            for (i, (x, y)) in got.world.iter().zip(&walked.world).enumerate() {
                let bits = |m: &skelmap::glam::Affine3A| m.to_cols_array().map(f32::to_bits);
                assert_eq!(bits(x), bits(y), "frames {a}, {b} at {t}: joint {i}");
            }
        }
    }
}

/// Writes the character (`character.iqm`) and its animation (`character_anim.iqm`) into
/// `SKELMAP_CHARACTER_DIR` for `skelmap bench` (see benches/README.md).
#[test]
#[ignore = "writes the bench's input files"]
fn write_character_for_bench() {
    let dir = std::path::PathBuf::from(
        std::env::var_os("SKELMAP_CHARACTER_DIR").expect("SKELMAP_CHARACTER_DIR"),
    );
    let (model, animation) = character();
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("character.iqm"), model).unwrap();
    std::fs::write(dir.join("character_anim.iqm"), animation).unwrap();
}

/// Forty thousand joints a side, the animation's in reverse order: each model joint finds
/// its animation joint with a look-up (not a walk of the animation's joints for each), and
/// all are matched.
#[test]
fn many_joints_are_matched_by_name_in_a_look_up_each() {
    use skelmap::iqm::{Builder, JointDef, MeshDef, Transform};
    const JOINTS: usize = 40_000;
    let joints = |reversed: bool| -> Vec<JointDef> {
        (0..JOINTS)
            .map(|i| JointDef {
                name: format!("joint{}", if reversed { JOINTS - 1 - i } else { i }).into_bytes(),
                parent: -1,
                transform: Transform::IDENTITY,
            })
            .collect()
    };
    let mut mesh = Builder {
        positions: vec![[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
        triangles: vec![[0, 1, 2]],
        blend_indexes: vec![[0; 4]; 3],
        blend_weights: vec![[255, 0, 0, 0]; 3],
        meshes: vec![MeshDef {
            name: b"m".to_vec(),
            material: b"mat".to_vec(),
            first_vertex: 0,
            num_vertexes: 3,
            first_triangle: 0,
            num_triangles: 1,
        }],
        ..Builder::default()
    };
    mesh.joints = joints(false);
    // Animation joint `a` moves `a` along x in both frames.
    let frame: Vec<Transform> = (0..JOINTS)
        .map(|a| Transform {
            translate: [a as f32, 0.0, 0.0],
            ..Transform::IDENTITY
        })
        .collect();
    let animation = Builder {
        joints: joints(true),
        frames: vec![frame.clone(), frame],
        ..Builder::default()
    };
    let (mesh, animation) = (mesh.write().unwrap(), animation.write().unwrap());
    let pair = iqm::Pair::new(Iqm::parse(&mesh).unwrap(), Iqm::parse(&animation).unwrap());
    let pair = pair.unwrap();
    assert_eq!(pair.matched_joints(), JOINTS);
    // Model joint `k` is animation joint `JOINTS - 1 - k`, so it moves that far.
    let mut pose = LocalPose::default();
    sample(&pair, 0, 1, 0.5, Interpolation::Nlerp, &mut pose);
    assert_eq!(pose.bones.len(), JOINTS);
    for (k, (_, t)) in pose.bones.iter().enumerate() {
        assert_eq!(t.x, (JOINTS - 1 - k) as f32, "joint {k}");
    }
}
