//! Sampling the quantised channels (scale included), palettes with scale, and skinning: the
//! bind pose reproduces the stored mesh; the prepared and compact kernels agree with the
//! zero-copy deform; dual quaternions refuse a scaled pose.

use skelmap::Model;
use skelmap::glam::{Quat, Vec3};
use skelmap::model::{DeformError, Pose};
use skelmap::pose::{Interpolation, LocalPose};
use skelmap::skin::{SimdLevel, SkinMatrices, VertexOrder};

use crate::support::iqm::demo;

#[test]
fn frames_decode_to_the_written_transforms_within_one_step() {
    let b = demo();
    let bytes = b.write().unwrap();
    let model = Model::from_bytes(&bytes).unwrap();
    let mut local = LocalPose::default();
    for (f, frame) in b.frames.iter().enumerate() {
        model.sample(f, f, 0.0, Interpolation::Nlerp, &mut local);
        assert_eq!(local.bones.len(), 3);
        assert_eq!(
            local.scales.len(),
            3,
            "a scaled model's pose carries scales"
        );
        for (j, t) in frame.iter().enumerate() {
            let (q, p) = local.bones[j];
            let want = Quat::from_array(t.rotate).normalize();
            assert!(
                q.dot(want).abs() > 1.0 - 1e-6,
                "frame {f} joint {j}: {q} vs {want}"
            );
            assert!((Vec3::from(p) - Vec3::from_array(t.translate)).length() < 1e-4);
            let s = Vec3::from(local.scales[j]);
            assert!((s - Vec3::from_array(t.scale)).length() < 1e-4, "{s}");
        }
    }
}

#[test]
fn scale_reaches_the_skinned_vertices() {
    let bytes = demo().write().unwrap();
    let model = Model::from_bytes(&bytes).unwrap();
    let mut pose = Pose::default();
    model
        .pose(3, 3, 0.0, Interpolation::Nlerp, &mut pose)
        .unwrap();
    let (mut p, mut n) = (vec![[0.0; 3]; 8], vec![[0.0; 3]; 8]);
    model.deform(0, &pose, &mut p, &mut n).unwrap();
    // Vertex 6, (0.5, 2, 0), wholly on the head: 0.5 along the head's X, which frame 3 scales
    // by 1.6, one unit above the spine, which turns 0.6 rad about Z and stands at (0, 1, 0).
    let want = Vec3::Y + Quat::from_rotation_z(0.6) * Vec3::new(0.8, 1.0, 0.0);
    let got = Vec3::from_array(p[6]);
    assert!((got - want).length() < 1e-3, "{got} vs {want}");
}

#[test]
fn the_bind_pose_gives_the_stored_mesh() {
    let b = demo();
    let bytes = b.write().unwrap();
    let model = Model::from_bytes(&bytes).unwrap();
    let mut pose = Pose::default();
    model.pose_bind(&mut pose);
    let (mut p, mut n) = (vec![[0.0; 3]; 8], vec![[0.0; 3]; 8]);
    model.deform(0, &pose, &mut p, &mut n).unwrap();
    for (got, want) in p.iter().zip(&b.positions) {
        assert!((Vec3::from_array(*got) - Vec3::from_array(*want)).length() < 1e-6);
    }
    assert!(
        n.iter()
            .all(|n| (Vec3::from_array(*n) - Vec3::Z).length() < 1e-6)
    );
}

#[test]
fn prepared_and_compact_kernels_agree_with_deform() {
    let bytes = demo().write().unwrap();
    let model = Model::from_bytes(&bytes).unwrap();
    let prepared = model.prepare().unwrap();
    let compact = model.compact().unwrap();
    let (mut pose, mut matrices) = (Pose::default(), SkinMatrices::default());
    let size = 2.5_f32; // the demo's diagonal is about 2.3
    for f in 0..4 {
        model
            .pose(f, (f + 1) % 4, 0.25, Interpolation::Nlerp, &mut pose)
            .unwrap();
        let (mut a, mut an) = (vec![[0.0; 3]; 8], vec![[0.0; 3]; 8]);
        model.deform(0, &pose, &mut a, &mut an).unwrap();
        for level in crate::support::levels() {
            let (mut b, mut bn) = (vec![[0.0; 3]; 8], vec![[0.0; 3]; 8]);
            prepared
                .skin(0, &pose, level, VertexOrder::Original, &mut b, &mut bn)
                .unwrap();
            compact.matrices(&pose, &mut matrices).unwrap();
            let (mut c, mut cn) = (vec![[0.0; 3]; 8], vec![[0.0; 3]; 8]);
            compact.skin(0, &matrices, level, &mut c, &mut cn).unwrap();
            for v in 0..8 {
                let d = |x: [f32; 3]| (Vec3::from_array(x) - Vec3::from_array(a[v])).length();
                assert!(
                    d(b[v]) < 1e-5 * size,
                    "prepared {level:?} frame {f} vertex {v}"
                );
                assert!(
                    d(c[v]) < 1e-4 * size,
                    "compact {level:?} frame {f} vertex {v}"
                );
            }
        }
    }
}

#[test]
fn dual_quaternions_refuse_a_pose_that_scales() {
    let bytes = demo().write().unwrap();
    let model = Model::from_bytes(&bytes).unwrap();
    let compact = model.compact().unwrap();
    let mut pose = Pose::default();
    let mut dq = Default::default();
    model
        .pose(0, 0, 0.0, Interpolation::Nlerp, &mut pose)
        .unwrap();
    compact
        .dual_quats(&pose, &mut dq)
        .expect("frame 0 does not scale");
    model
        .pose(3, 3, 0.0, Interpolation::Nlerp, &mut pose)
        .unwrap();
    let e = compact.dual_quats(&pose, &mut dq).unwrap_err();
    assert!(matches!(e, DeformError::Scale { bone: 2, .. }), "{e}");
    let _ = SimdLevel::detect();
}

/// The demo's animation on its own, without bounds.
fn animation_only() -> skelmap::iqm::Builder {
    skelmap::iqm::Builder {
        bounds: Vec::new(),
        ..crate::support::iqm::animation_only()
    }
}

/// Every frame's palette of `model`.
fn palettes(model: &Model<'_>) -> Vec<Vec<skelmap::glam::Affine3A>> {
    let mut pose = Pose::default();
    (0..model.num_frames())
        .map(|f| {
            model
                .pose(f, f, 0.0, Interpolation::Nlerp, &mut pose)
                .unwrap();
            pose.palette().world.clone()
        })
        .collect()
}

#[test]
fn an_animation_only_iqm_plays_on_a_model_by_index() {
    use skelmap::{Limits, Source};
    let own = demo().write().unwrap();
    let anim = animation_only().write().unwrap();
    // The model without frames of its own.
    let mesh = skelmap::iqm::Builder {
        frames: Vec::new(),
        anims: Vec::new(),
        bounds: Vec::new(),
        ..demo()
    }
    .write()
    .unwrap();
    let paired = Model::from_iqm(
        Source::from_bytes(&mesh),
        Source::from_bytes(&anim),
        &Limits::DEFAULT,
    )
    .unwrap();
    let reference = Model::from_bytes(&own).unwrap();
    assert_eq!(paired.num_frames(), 4);
    assert_eq!(paired.as_iqm().unwrap().matched_joints(), 3);
    assert_eq!(paired.clips(), reference.clips());
    assert_eq!(palettes(&paired), palettes(&reference));
}

#[test]
fn an_animation_with_named_joints_plays_on_a_model_by_name() {
    use skelmap::iqm::{JointDef, Transform};
    use skelmap::{Limits, Source};
    // The animation has one joint more, "tail", between the model's.
    let mut b = animation_only();
    b.pose_parents.clear();
    let tail = JointDef {
        name: b"tail".to_vec(),
        parent: 0,
        transform: Transform::IDENTITY,
    };
    let mut joints = demo().joints;
    joints.insert(1, tail);
    joints[2].parent = 0;
    joints[3].parent = 2;
    b.joints = joints;
    for frame in &mut b.frames {
        frame.insert(
            1,
            Transform {
                translate: [5.0, 0.0, 0.0],
                ..Transform::IDENTITY
            },
        );
    }
    let anim = b.write().unwrap();
    let own = demo().write().unwrap();
    let paired = Model::from_iqm(
        Source::from_bytes(&own),
        Source::from_bytes(&anim),
        &Limits::DEFAULT,
    )
    .unwrap();
    assert_eq!(paired.as_iqm().unwrap().matched_joints(), 3);
    let reference = Model::from_bytes(&own).unwrap();
    for (a, b) in palettes(&paired).iter().zip(palettes(&reference)) {
        for (x, y) in a.iter().zip(&b) {
            assert!(x.abs_diff_eq(*y, 1e-6), "{x:?} vs {y:?}");
        }
    }
}

/// The IQM SDK's loader plays an unnamed animation's poses on the joints of the same index
/// whatever their parents, and Red Eclipse ships a `crouch.iqm` with 4 of 78 poses whose
/// parent is not their joint's. Each pose plays on its joint, in the model's hierarchy, with
/// a warning naming the first.
#[test]
fn an_animation_whose_parents_differ_plays_by_index_with_a_warning() {
    use skelmap::{Limits, Source, WarningKind};
    let own = demo().write().unwrap();
    let differ = skelmap::iqm::Builder {
        pose_parents: vec![-1, 0, 0],
        ..animation_only()
    }
    .write()
    .unwrap();
    let same = animation_only().write().unwrap();
    let pair = |anim| {
        Model::from_iqm(
            Source::from_bytes(&own),
            Source::from_bytes(anim),
            &Limits::DEFAULT,
        )
        .unwrap()
    };
    let (paired, reference) = (pair(&differ[..]), pair(&same[..]));
    let iqm = paired.as_iqm().unwrap();
    assert_eq!((iqm.matched_joints(), iqm.reparented()), (3, Some((2, 1))));
    assert_eq!(reference.as_iqm().unwrap().reparented(), None);
    let w = paired.diagnostics().get(WarningKind::SpecLimit).unwrap();
    assert_eq!((w.what, w.offset), ("animation.poses", 76));
    assert!(
        w.detail
            .contains("1 have another parent (pose 2: parent 0, the joint's 1)"),
        "{}",
        w.detail
    );
    assert!(
        reference
            .diagnostics()
            .get(WarningKind::SpecLimit)
            .is_none()
    );
    // The same frames in the model's hierarchy.
    assert_eq!(palettes(&paired), palettes(&reference));
}

#[test]
fn an_animation_that_matches_no_joint_is_refused() {
    use skelmap::{Error, Limits, Problem, Source};
    let anim = skelmap::iqm::Builder {
        pose_parents: vec![-1, 0],
        frames: demo().frames.iter().map(|f| f[..2].to_vec()).collect(),
        ..animation_only()
    }
    .write()
    .unwrap();
    let own = demo().write().unwrap();
    let e = Model::from_iqm(
        Source::from_bytes(&own),
        Source::from_bytes(&anim),
        &Limits::DEFAULT,
    )
    .map(|_| ())
    .unwrap_err();
    assert!(
        matches!(
            e,
            Error::Invalid {
                what: "animation.poses",
                problem: Problem::Skeleton {
                    bones: 2,
                    joints: 3
                },
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn raylibs_guyanim_plays_on_guy_as_guy_plays_itself() {
    use skelmap::{Limits, Source};
    let Some(dir) = crate::support::corpus_next_dir("iqm") else {
        return;
    };
    let guy = std::fs::read(dir.join("raylib_guy.iqm")).unwrap();
    let anim = std::fs::read(dir.join("raylib_guyanim.iqm")).unwrap();
    let paired = Model::from_iqm(
        Source::from_bytes(&guy),
        Source::from_bytes(&anim),
        &Limits::DEFAULT,
    )
    .unwrap();
    let reference = Model::from_bytes(&guy).unwrap();
    assert_eq!(paired.as_iqm().unwrap().matched_joints(), 14);
    assert_eq!(
        (paired.num_frames(), paired.clips()),
        (122, reference.clips())
    );
    assert_eq!(palettes(&paired), palettes(&reference));
}

#[test]
fn the_one_pass_blend_is_the_blend_of_the_decoded_frames() {
    use skelmap::pose::{PoseFrames, sample};
    let Some(dir) = crate::support::corpus_next_dir("iqm") else {
        return;
    };
    let bytes = std::fs::read(dir.join("raylib_guy.iqm")).unwrap();
    let iqm = <skelmap::iqm::Iqm as skelmap::Parse>::parse(&bytes).unwrap();
    let mut fast = LocalPose::default();
    for (a, b, t) in [(0, 1, 0.3), (70, 71, 0.5), (121, 0, 0.9)] {
        sample(&iqm, a, b, t, Interpolation::Nlerp, &mut fast);
        let (mut pa, mut pb) = (Vec::new(), Vec::new());
        iqm.frame_poses_into(a, &mut pa);
        iqm.frame_poses_into(b, &mut pb);
        for (i, ((qa, ta), (qb, tb))) in pa.iter().zip(&pb).enumerate() {
            // sample's blend, spelled out: b turned towards a, lerped, normalised.
            let qb = if qa.dot(*qb) < 0.0 { -*qb } else { *qb };
            let q = skelmap::glam::Vec4::from(*qa).lerp(skelmap::glam::Vec4::from(qb), t);
            let q = q * (1.0 / q.length_squared().sqrt());
            assert_eq!(
                fast.bones[i],
                (Quat::from_vec4(q), ta.lerp(*tb, t)),
                "bone {i}"
            );
        }
        let (mut sa, mut sb) = (Vec::new(), Vec::new());
        iqm.frame_scales_into(a, &mut sa);
        iqm.frame_scales_into(b, &mut sb);
        let blended: Vec<_> = sa.iter().zip(&sb).map(|(x, y)| x.lerp(*y, t)).collect();
        assert_eq!(fast.scales, blended);
    }
}
