//! MS3D and SL mdl through the shared animation types: local poses, palettes built in
//! hierarchy order, frames as `PoseFrames`, and the bind-pose kernels (linear blend and dual
//! quaternions).

use skelmap::Parse;
use skelmap::glam::{Affine3A, Vec3};
use skelmap::ms3d::Ms3d;
use skelmap::pose::{self, BindPoseMesh, Interpolation, LocalPose, Palette, PoseFrames};
use skelmap::skin;
use skelmap::skin::SkinError;
use skelmap::skin::dqs::deltas;
use skelmap::slmdl;
use skelmap::{Skeleton, synth};

use crate::support::corpus_files;
use crate::support::ms3d::arm;

/// Positions and normals of `n` vertices.
fn buffers(n: usize) -> (Vec<[f32; 3]>, Vec<[f32; 3]>) {
    (vec![[0.0; 3]; n], vec![[0.0; 3]; n])
}

fn largest_difference(a: &[[f32; 3]], b: &[[f32; 3]]) -> f32 {
    a.iter()
        .flatten()
        .zip(b.iter().flatten())
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

fn near(a: [f32; 3], b: [f32; 3], tolerance: f32) -> bool {
    (Vec3::from(a) - Vec3::from(b)).abs().max_element() <= tolerance
}

/// Palettes of an MS3D at rest and at `seconds`.
fn ms3d_palettes(m: &Ms3d<'_>, seconds: f32) -> (Palette, Palette) {
    let (mut pose, mut rest, mut now) =
        (LocalPose::default(), Palette::default(), Palette::default());
    m.local_rest_pose(&mut pose);
    rest.build(m, &pose);
    m.local_pose_at(seconds, Interpolation::Slerp, &mut pose);
    now.build(m, &pose);
    (rest, now)
}

#[test]
fn ms3d_palette_follows_the_hierarchy_when_a_child_comes_first() {
    // The arm with its two joints swapped in the file: "tip" (index 0) names "root" (index 1),
    // which comes after it, as its parent; the vertices' joint ids are swapped to match.
    let mut b = arm();
    b.joints.swap(0, 1);
    for v in &mut b.vertices {
        v.1 = 1 - v.1;
    }
    let bytes = b.write().unwrap();
    let m = Ms3d::parse(&bytes).unwrap();
    assert_eq!(m.evaluation_order(), [1, 0]);
    assert_eq!(m.hierarchy_order(), Some(&[1u16, 0][..]));
    let (rest, now) = ms3d_palettes(&m, 1.0);
    assert_eq!(rest.world[0].translation.to_array(), [0.0, 10.0, 0.0]);
    assert_eq!(rest.world[1], Affine3A::IDENTITY);
    // At 1 s the tip has turned 90° about Z around its joint at y = 10: the vertex at
    // (0, 20) goes to (−10, 10), as in the arm whose joints are in parent order.
    let mut deltas = Vec::new();
    now.relative_to(&rest, &mut deltas);
    let (mut p, mut n) = buffers(m.num_vertices());
    skin::bind_lbs(&m, &deltas, &mut p, &mut n).unwrap();
    assert!(near(p[2], [-10.0, 10.0, 0.0], 1e-5), "{:?}", p[2]);
    assert_eq!(p[0], [1.0, 0.0, 0.0], "root vertices stay");
    let ordered_bytes = arm().write().unwrap();
    let ordered = Ms3d::parse(&ordered_bytes).unwrap();
    let want = crate::support::ms3d::skinned(&ordered, Some(1.0));
    assert!(largest_difference(&p, &want) < 1e-5);
}

#[test]
fn ms3d_timeline_frames_sample_like_the_keys_at_their_times() {
    let bytes = arm().write().unwrap();
    let m = Ms3d::parse(&bytes).unwrap();
    // keyframer: 24 fps, 25 frames; frame f is at (f + 1) / 24 s.
    assert_eq!(PoseFrames::num_frames(&m), 25);
    assert_eq!(m.frame_seconds(11.0), 0.5);
    let (mut by_frame, mut by_time) = (LocalPose::default(), LocalPose::default());
    pose::sample(&m, 11, 11, 0.0, Interpolation::Slerp, &mut by_frame);
    m.local_pose_at(0.5, Interpolation::Slerp, &mut by_time);
    assert_eq!(by_frame, by_time);
    assert_eq!(m.bone_pose(25, 0), None, "past the timeline");
    let angle = by_time.bones[1].0.to_axis_angle().1.to_degrees();
    assert!((angle - 45.0).abs() < 1e-3, "{angle}");
}

#[test]
fn ms3d_dual_quaternions_match_linear_blending_on_single_joint_vertices() {
    let files = corpus_files("ms3d");
    for path in &files {
        let bytes = std::fs::read(path).unwrap();
        let m = Ms3d::parse(&bytes).unwrap();
        let n = m.num_vertices();
        let scale = (0..n)
            .filter_map(|i| m.position(i))
            .flatten()
            .fold(1.0f32, |s, c| s.max(c.abs()));
        // `None`: the rest pose itself.
        for seconds in [None, Some(0.5), Some(1.5)] {
            let (rest, now) = ms3d_palettes(&m, seconds.unwrap_or(0.0));
            let now = if seconds.is_some() { now } else { rest.clone() };
            let mut affine = Vec::new();
            now.relative_to(&rest, &mut affine);
            let dual = deltas(&now, &rest);
            let ((mut lbs, mut ln), (mut dqs, mut dn)) = (buffers(n), buffers(n));
            skin::bind_lbs(&m, &affine, &mut lbs, &mut ln).unwrap();
            skin::bind_dqs(&m, &dual, &mut dqs, &mut dn).unwrap();
            for i in 0..n {
                let v = m.bind_vertex(i).unwrap();
                let single = v
                    .influences
                    .iter()
                    .flatten()
                    .filter(|(_, w)| *w > 0.0)
                    .count()
                    <= 1;
                if single || seconds.is_none() {
                    assert!(
                        near(lbs[i], dqs[i], 2e-4 * scale),
                        "{} at {seconds:?} s, vertex {i}: {:?} against {:?}",
                        path.display(),
                        lbs[i],
                        dqs[i]
                    );
                }
                if seconds.is_none() {
                    // At rest both reproduce the stored position.
                    assert!(
                        near(dqs[i], m.position(i).unwrap(), 2e-4 * scale),
                        "{} vertex {i}: {:?} against {:?} ({:?})",
                        path.display(),
                        dqs[i],
                        m.position(i),
                        m.bind_vertex(i)
                    );
                }
            }
        }
    }
    // (An absent corpus was reported, or failed, by the lookup.)
}

/// LBS and DQS of the SL twist at `seconds`.
fn twist_at(
    mesh: &slmdl::Mesh<'_>,
    anim: &slmdl::Animation<'_>,
    seconds: f32,
) -> [Vec<[f32; 3]>; 2] {
    let (mut pose, mut bind, mut now) =
        (LocalPose::default(), Palette::default(), Palette::default());
    anim.sample(0.0, &mut pose);
    bind.build(anim, &pose);
    anim.sample(seconds, &mut pose);
    now.build(anim, &pose);
    let mut affine = Vec::new();
    now.relative_to(&bind, &mut affine);
    let n = mesh.num_vertices();
    let ((mut lbs, mut ln), (mut dqs, mut dn)) = (buffers(n), buffers(n));
    skin::bind_lbs(mesh, &affine, &mut lbs, &mut ln).unwrap();
    skin::bind_dqs(mesh, &deltas(&now, &bind), &mut dqs, &mut dn).unwrap();
    // Normals turn with their vertices and stay unit length under DQS.
    for (i, normal) in dn.iter().enumerate() {
        assert!(
            (Vec3::from(*normal).length() - 1.0).abs() < 1e-5,
            "normal {i}"
        );
    }
    [lbs, dqs]
}

#[test]
fn sl_dual_quaternions_keep_a_twisted_cylinder_round_where_linear_blending_collapses() {
    let (mdl, anim) = synth::sl_twist(8, 12, 170.0);
    let (mdl, anim) = (mdl.write(), anim.write());
    let (mesh, anim) = (
        slmdl::Mesh::parse(&mdl).unwrap(),
        slmdl::Animation::parse(&anim).unwrap(),
    );
    assert_eq!(anim.skeleton_bones().len(), 2);
    assert!(anim.skeleton_bones().all(|b| b.parent().is_none()));
    let radius = |p: [f32; 3]| (p[1] * p[1] + p[2] * p[2]).sqrt();
    // At the bind pose both kernels give back the stored vertices.
    let [lbs, dqs] = twist_at(&mesh, &anim, 0.0);
    for (i, (a, b)) in lbs.iter().zip(&dqs).enumerate() {
        let stored = mesh.bind_vertex(i).unwrap().position.to_array();
        assert!(
            near(*a, stored, 1e-6) && near(*b, stored, 1e-6),
            "vertex {i}"
        );
    }
    // Bone 1 turned 170° about X: the middle ring (x = 0, half on each bone) shrinks to
    // |cos 85°| = 0.087 of its radius under linear blending; dual quaternions turn it 85° and
    // keep its radius. The ends (one bone each) move alike under both.
    let [lbs, dqs] = twist_at(&mesh, &anim, 1.0);
    let (sin, cos) = 85f32.to_radians().sin_cos();
    let mut middle = 0;
    for i in 0..mesh.num_vertices() {
        let stored = mesh.bind_vertex(i).unwrap().position;
        if stored.x.abs() < 1e-6 {
            middle += 1;
            assert!(
                (radius(lbs[i]) - cos).abs() < 1e-5,
                "LBS vertex {i}: {:?}",
                lbs[i]
            );
            assert!(
                (radius(dqs[i]) - 1.0).abs() < 1e-5,
                "DQS vertex {i}: {:?}",
                dqs[i]
            );
            let turned = [
                0.0,
                stored.y * cos - stored.z * sin,
                stored.y * sin + stored.z * cos,
            ];
            assert!(near(dqs[i], turned, 1e-5), "DQS vertex {i}: {:?}", dqs[i]);
        }
        if (stored.x.abs() - 1.0).abs() < 1e-6 {
            assert!(near(lbs[i], dqs[i], 1e-5), "end vertex {i}");
        }
    }
    // 12 quads meet the middle ring, each with three corners on it.
    assert_eq!(middle, 2 * 12 * 3);
}

#[test]
fn sl_keyframes_are_frames_and_bind_pose_errors_are_typed() {
    let (mdl, anim) = synth::sl_twist(2, 3, 90.0);
    let anim_bytes = anim.write();
    let anim = slmdl::Animation::parse(&anim_bytes).unwrap();
    assert_eq!(PoseFrames::num_frames(&anim), 2);
    let (mut by_frame, mut by_time) = (LocalPose::default(), LocalPose::default());
    pose::sample(&anim, 0, 1, 1.0, Interpolation::Nlerp, &mut by_frame);
    anim.sample(1.0, &mut by_time);
    for (a, b) in by_frame.bones.iter().zip(&by_time.bones) {
        assert!(a.0.abs_diff_eq(b.0, 1e-6) && a.1 == b.1);
    }
    assert_eq!(anim.bone_pose(2, 0), None);
    assert_eq!(anim.bone_pose(0, 2), None);
    // A vertex naming bone 5 against a two-bone palette, and an output too short.
    let stray = slmdl::MeshBuilder::skinned(&[slmdl::VertexDef {
        weights: [0.5, 0.0, 0.0],
        indices: [0, 1, 2, 5],
        ..slmdl::VertexDef::default()
    }])
    .write();
    let stray = slmdl::Mesh::parse(&stray).unwrap();
    let two = [Affine3A::IDENTITY; 2];
    let (mut p, mut n) = buffers(1);
    assert_eq!(
        skin::bind_lbs(&stray, &two, &mut p, &mut n),
        Err(SkinError::Palette { bone: 5, have: 2 })
    );
    let mdl_bytes = mdl.write();
    let mesh = slmdl::Mesh::parse(&mdl_bytes).unwrap();
    let (mut p, mut n) = buffers(mesh.num_vertices() - 1);
    assert_eq!(
        skin::bind_dqs(&mesh, &[], &mut p, &mut n),
        Err(SkinError::Output {
            need: 2 * 3 * 6,
            have: 2 * 3 * 6 - 1
        })
    );
}
