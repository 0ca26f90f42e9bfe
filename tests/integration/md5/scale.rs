//! The Quake II remaster's `.md5scale` beside an animation: a joint's own vertices scaled
//! about it in each frame, its children untouched, `scale_positions` moving the joint (and so
//! its children), frame `b`'s scales between two frames; every sampling path and kernel
//! agreeing; malformed sidecars and entries skipped with warnings. The reference is q2pro's
//! per-weight rule written out here: `Σ bias · (joint position + scale · joint rotation ·
//! offset)`, the joints' world transforms taken from the model (which the scales must not
//! reach).

use std::collections::HashMap;

use skelmap::glam::{Affine3A, Vec3, Vec3A};
use skelmap::md5::MeshFile;
use skelmap::model::{Companion, DeformError, Pose};
use skelmap::pose::blend::{Blender, Layer};
use skelmap::pose::{self, Interpolation, LocalPose};
use skelmap::skin::dqs::DualQuatPalette;
use skelmap::skin::{SimdLevel, SkinMatrices, VertexOrder};
use skelmap::{Model, Parse, WarningKind};

use super::{ANIM, BIND, FRAME_1, MESH, files, open_pair};

/// [`files`] with `scale` as the animation's `.md5scale`.
fn with_scale(scale: &str) -> HashMap<String, Vec<u8>> {
    let mut f = files(MESH, ANIM);
    f.insert(
        "m/fixture-idle.md5scale".to_string(),
        scale.as_bytes().to_vec(),
    );
    f
}

/// q2pro's positions of [`MESH`] under `world` (per joint) with `scales` (per joint).
fn reference(world: &[Affine3A], scales: &[f32]) -> Vec<[f32; 3]> {
    let file = MeshFile::parse(MESH.as_bytes()).unwrap();
    let mesh = file.mesh(0).unwrap();
    let weights = mesh.weights();
    mesh.weight_ranges()
        .iter()
        .map(|range| {
            let first = range.first_weight.get() as usize;
            let n = range.num_weights.get() as usize;
            let mut sum = Vec3A::ZERO;
            for w in &weights[first..first + n] {
                let joint = w.joint_index.get() as usize;
                let offset = Vec3A::from(w.offset.map(|c| c.get()));
                let m = world[joint];
                let s = scales.get(joint).copied().unwrap_or(1.0);
                sum += w.joint_weight.get() * (m.translation + s * (m.matrix3 * offset));
            }
            sum.into()
        })
        .collect()
}

/// Mesh 0 deformed by `pose` through `deform`, `prepare` and `compact` (in file order and in
/// the layout's own), which must agree.
fn deformed(model: &Model<'_>, pose: &Pose) -> Vec<[f32; 3]> {
    let n = model.mesh(0).unwrap().num_vertices();
    let buffers = || (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
    let (mut p, mut q) = buffers();
    model.deform(0, pose, &mut p, &mut q).unwrap();
    let level = SimdLevel::detect();
    let prepared = model.prepare().unwrap();
    let (mut pp, mut pq) = buffers();
    prepared
        .skin(0, pose, level, VertexOrder::Original, &mut pp, &mut pq)
        .unwrap();
    let compact = model.compact().unwrap();
    let mut matrices = SkinMatrices::default();
    compact.matrices(pose, &mut matrices).unwrap();
    let (mut cp, mut cq) = buffers();
    compact.skin(0, &matrices, level, &mut cp, &mut cq).unwrap();
    let (mut sp, mut sq) = buffers();
    compact
        .skin_pose(0, pose, &matrices, level, &mut sp, &mut sq)
        .unwrap();
    for v in 0..n {
        for (what, other) in [
            ("prepared", pp[v]),
            ("compact", cp[v]),
            ("skin_pose", sp[v]),
        ] {
            assert!(
                Vec3A::from(other).distance(Vec3A::from(p[v])) < 1e-5,
                "vertex {v}: {what} {other:?} against deform {:?}",
                p[v]
            );
        }
    }
    p
}

fn assert_close(got: &[[f32; 3]], want: &[[f32; 3]], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}");
    for (v, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            Vec3A::from(*g).distance(Vec3A::from(*w)) < 1e-5,
            "{what}, vertex {v}: {g:?} against {w:?}"
        );
    }
}

#[test]
fn a_scale_moves_only_the_joints_own_vertices() {
    let scaled = with_scale(r#"{ "arm": { "1": 0.5 } }"#);
    let model = open_pair(&scaled, "m/fixture.md5mesh").unwrap();
    assert!(model.diagnostics().is_empty());
    assert!(
        model
            .companions()
            .any(|(k, p)| k == Companion::Scale && p == "m/fixture-idle.md5scale")
    );
    let anim = &model.as_md5().unwrap().animations()[0].anim;
    assert_eq!(anim.skin_scales(0), Some(&[1.0, 1.0, 1.0][..]));
    assert_eq!(anim.skin_scales(1), Some(&[1.0, 0.5, 1.0][..]));
    assert_eq!(anim.skin_scales(2), None);

    let mut pose = Pose::default();
    model
        .pose(1, 1, 0.0, Interpolation::Nlerp, &mut pose)
        .unwrap();
    assert_eq!(pose.local().skin_scales, [1.0, 0.5, 1.0]);
    // By hand: vertex 1 is ½ (0, 1, 0) + ½ ((0, 0, 2) + ½ (1, 0, 0)); the hand, the arm's
    // child, is not scaled; vertex 3 is (0, 0, 2) + ½ (0, −1, 0).
    let want = [
        [1.0, 0.0, 0.0],
        [0.25, 0.5, 1.0],
        [2.0, 0.0, 2.0],
        [0.0, -0.5, 2.0],
    ];
    let got = deformed(&model, &pose);
    assert_close(&got, &want, "frame 1");
    assert_close(
        &got,
        &reference(&pose.palette().world, &[1.0, 0.5, 1.0]),
        "frame 1 by the rule",
    );
    // The bones stay where the frame puts them: the world transforms are the unscaled ones.
    let plain_files = files(MESH, ANIM);
    let unscaled = open_pair(&plain_files, "m/fixture.md5mesh").unwrap();
    let mut plain = Pose::default();
    unscaled
        .pose(1, 1, 0.0, Interpolation::Nlerp, &mut plain)
        .unwrap();
    assert_eq!(pose.palette(), plain.palette());
    assert_close(
        &deformed(&unscaled, &plain),
        &FRAME_1,
        "without the sidecar",
    );
    assert!(plain.local().skin_scales.is_empty());
    // Frame 0 lists no scale: the bind positions.
    model
        .pose(0, 0, 0.0, Interpolation::Nlerp, &mut pose)
        .unwrap();
    assert_close(&deformed(&model, &pose), &BIND, "frame 0");
    // The bind pose has no skin scales.
    model.pose_bind(&mut pose);
    assert!(pose.local().skin_scales.is_empty());
    assert_close(&deformed(&model, &pose), &BIND, "bind pose");
}

#[test]
fn between_two_frames_the_second_frames_scales_are_taken() {
    let files = with_scale(r#"{ "arm": { "1": 0.5 }, "hand": { "0": 3 } }"#);
    let model = open_pair(&files, "m/fixture.md5mesh").unwrap();
    let mut pose = Pose::default();
    for (a, b, t, scales) in [
        (0, 1, 0.25, [1.0, 0.5, 1.0]),
        (0, 1, 0.0, [1.0, 0.5, 1.0]),
        (1, 0, 0.75, [1.0, 1.0, 3.0]),
        (0, 0, 0.0, [1.0, 1.0, 3.0]),
    ] {
        model
            .pose(a, b, t, Interpolation::Nlerp, &mut pose)
            .unwrap();
        assert_eq!(pose.local().skin_scales, scales, "({a}, {b}, {t})");
        assert_close(
            &deformed(&model, &pose),
            &reference(&pose.palette().world, &scales),
            &format!("({a}, {b}, {t})"),
        );
    }
}

#[test]
fn scale_positions_moves_the_joint_and_its_children_and_zero_hides_its_vertices() {
    let files = with_scale(r#"{ "arm": { "1": 0, "scale_positions": true } }"#);
    let model = open_pair(&files, "m/fixture.md5mesh").unwrap();
    let mut pose = Pose::default();
    model
        .pose(1, 1, 0.0, Interpolation::Nlerp, &mut pose)
        .unwrap();
    // The arm's animated position (0, 0, 2) scaled by 0: the arm at the root, the hand
    // (2 along the arm's x) at (2, 0, 0); the arm's own vertices collapse onto it.
    let arm = pose.palette().bone_world(1).unwrap();
    let hand = pose.palette().bone_world(2).unwrap();
    assert_eq!(Vec3::from(arm.translation), Vec3::ZERO);
    assert_eq!(Vec3::from(hand.translation), Vec3::new(2.0, 0.0, 0.0));
    let want = [
        [1.0, 0.0, 0.0],
        [0.0, 0.5, 0.0],
        [2.0, 0.0, 0.0],
        [0.0, 0.0, 0.0],
    ];
    assert_close(&deformed(&model, &pose), &want, "frame 1");
    // Frame 0 lists no scale: its positions are the file's.
    model
        .pose(0, 0, 0.0, Interpolation::Nlerp, &mut pose)
        .unwrap();
    assert_close(&deformed(&model, &pose), &BIND, "frame 0");
}

#[test]
fn every_sampling_path_carries_the_skin_scales() {
    let files = with_scale(r#"{ "arm": { "1": 0.5 }, "root": { "0": 2 } }"#);
    let model = open_pair(&files, "m/fixture.md5mesh").unwrap();
    let baked = model.bake().unwrap();
    let mut sampler = model.sampler();
    for (a, b, t) in [(0, 1, 0.5), (1, 0, 0.25), (1, 1, 0.0), (0, 0, 0.0)] {
        let mut want = LocalPose::default();
        model.sample(a, b, t, Interpolation::Nlerp, &mut want);
        assert_eq!(want.skin_scales.len(), 3);
        let mut got = LocalPose::default();
        pose::sample(&baked, a, b, t, Interpolation::Nlerp, &mut got);
        assert_eq!(got, want, "baked ({a}, {b}, {t})");
        sampler.sample(a, b, t, Interpolation::Nlerp, &mut got);
        assert_eq!(got, want, "sampler ({a}, {b}, {t})");
        let mut soa = skelmap::pose::SoaPose::default();
        model.sample_soa(a, b, t, Interpolation::Nlerp, &mut soa);
        soa.to_local(&mut got);
        assert_eq!(got, want, "SoA ({a}, {b}, {t})");
        // Blending keeps the rest pose's skin scales.
        let mut blended = LocalPose::default();
        Blender::default().blend(&want, &[Layer::new(&want, 1.0)], 0.1, &mut blended);
        assert_eq!(blended.skin_scales, want.skin_scales);
        // A pose reused for another model loses them.
        let other = Model::from_bytes(MESH.as_bytes()).unwrap();
        let mut reused = want.clone();
        other.sample(0, 0, 0.0, Interpolation::Nlerp, &mut reused);
        assert!(reused.skin_scales.is_empty());
        other.bind_pose(&mut reused);
        assert!(reused.skin_scales.is_empty());
    }
    // A clip played by time takes the frames' scales too.
    let clip = model.clips()[0].clone();
    let mut by_time = LocalPose::default();
    model
        .sample_clip(
            &clip,
            0.5 / clip.fps,
            false,
            Interpolation::Nlerp,
            &mut by_time,
        )
        .unwrap();
    assert_eq!(by_time.skin_scales, [1.0, 0.5, 1.0]);
}

#[test]
fn dual_quaternions_refuse_a_skin_scale_and_gpu_buffers_carry_it() {
    let files = with_scale(r#"{ "arm": { "1": 0.5 } }"#);
    let model = open_pair(&files, "m/fixture.md5mesh").unwrap();
    let compact = model.compact().unwrap();
    let mut pose = Pose::default();
    let mut dq = DualQuatPalette::default();
    model
        .pose(0, 0, 0.0, Interpolation::Nlerp, &mut pose)
        .unwrap();
    compact.dual_quats(&pose, &mut dq).unwrap();
    model
        .pose(1, 1, 0.0, Interpolation::Nlerp, &mut pose)
        .unwrap();
    match compact.dual_quats(&pose, &mut dq) {
        Err(DeformError::Scale { bone: 1, scale }) => assert!((scale - 0.5).abs() < 1e-6),
        other => panic!("{other:?}"),
    }
    // The GPU palette is the skinning palette: the arm's transform scaled.
    let gpu = model.gpu_mesh(&Default::default()).unwrap();
    let mut palette = Vec::new();
    gpu.palette(&pose, &mut palette).unwrap();
    let mut scaled = pose.palette().clone();
    scaled.apply_skin_scales(&[1.0, 0.5, 1.0]);
    let (mut want, mut unscaled) = (Vec::new(), Vec::new());
    gpu.palette_from_world(&scaled.world, &mut want).unwrap();
    gpu.palette_from_world(&pose.palette().world, &mut unscaled)
        .unwrap();
    assert_eq!(palette[..3], want[..3]);
    assert_ne!(palette[..3], unscaled[..3]);
}

#[test]
fn an_animation_opened_alone_reads_its_sidecar() {
    let files = with_scale(r#"{ "hand": { "1": 0.25 } }"#);
    let model = open_pair(&files, "m/fixture-idle.md5anim").unwrap();
    let mut local = LocalPose::default();
    model.sample(1, 1, 0.0, Interpolation::Nlerp, &mut local);
    assert_eq!(local.skin_scales, [1.0, 1.0, 0.25]);
}

#[test]
fn what_the_engine_skips_is_skipped_with_a_warning() {
    let files = with_scale(
        r#"{
  "arm": { "1": 0.5, "7": 2, "x": 2, "0": "big", "scale_positions": 1 },
  "tail": { "1": 0.5 }
}"#,
    );
    let model = open_pair(&files, "m/fixture.md5mesh").unwrap();
    let warnings: Vec<_> = model.diagnostics().warnings().to_vec();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert_eq!(warnings[0].kind, WarningKind::CompanionIgnored);
    assert_eq!(warnings[0].count, 5, "{warnings:?}");
    // Entries skipped, the sidecar read: not left out.
    assert_eq!(model.left_out().count(), 0);
    let anim = &model.as_md5().unwrap().animations()[0].anim;
    assert_eq!(anim.skin_scales(1), Some(&[1.0, 0.5, 1.0][..]));
    assert_eq!(anim.skin_scales(0), Some(&[1.0, 1.0, 1.0][..]));

    // Where the JSON parser stopped: the last byte before the end, a stray `x`.
    let stray = "{\n  \"arm\": { \"1\": 0.5 },\n  x\n}";
    for (text, offset) in [
        ("{ \"arm\": { \"1\": 0.5 ", 19),
        (stray, stray.find('x').unwrap() as u64),
        ("[1, 2]", 0),
        // The parser stops on the blank before the array it did not expect.
        ("{ \"arm\": [1] }", 8),
        ("{ \"arm\": { \"1\": 0.5 } } x", 24),
        ("", 0),
    ] {
        let files = with_scale(text);
        let model = open_pair(&files, "m/fixture.md5mesh").unwrap();
        let warnings: Vec<_> = model.diagnostics().warnings().to_vec();
        assert_eq!(warnings.len(), 1, "{text:?}: {warnings:?}");
        assert_eq!(warnings[0].kind, WarningKind::CompanionIgnored, "{text:?}");
        assert_eq!(warnings[0].offset, offset, "{text:?}: {warnings:?}");
        let left = [(Companion::Scale, "m/fixture-idle.md5scale")];
        assert_eq!(model.left_out().collect::<Vec<_>>(), left, "{text:?}");
        let anim = &model.as_md5().unwrap().animations()[0].anim;
        assert_eq!(anim.skin_scales(1), None, "{text:?}");
        let mut local = LocalPose::default();
        model.sample(1, 1, 0.0, Interpolation::Nlerp, &mut local);
        assert!(local.skin_scales.is_empty(), "{text:?}");
    }
}

#[test]
fn a_given_animation_reads_the_sidecar_beside_it() {
    let dir = tempfile::Builder::new()
        .prefix("skelmap-md5-scale-")
        .tempdir()
        .unwrap();
    let dir = dir.path();
    let elsewhere = dir.join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let (mesh, anim) = (dir.join("m.md5mesh"), elsewhere.join("run.md5anim"));
    std::fs::write(&mesh, MESH).unwrap();
    std::fs::write(&anim, ANIM).unwrap();
    // A sidecar beside the mesh, named for the mesh, is not the animation's.
    std::fs::write(dir.join("m.md5scale"), r#"{ "arm": { "1": 9 } }"#).unwrap();
    let options = skelmap::model::OpenOptions {
        animation: Some(anim.clone()),
        ..Default::default()
    };
    let sample = || {
        let model = Model::open_with(&mesh, &options).unwrap();
        let mut local = LocalPose::default();
        model.sample(1, 1, 0.0, Interpolation::Nlerp, &mut local);
        local.skin_scales
    };
    assert!(sample().is_empty());
    std::fs::write(elsewhere.join("run.md5scale"), r#"{ "arm": { "1": 0.5 } }"#).unwrap();
    assert_eq!(sample(), [1.0, 0.5, 1.0]);
}
