//! Pose sampling, palettes and the scalar skinning kernel: checked against an f64 computation
//! straight from the files' matrices, across formats (DPM and its SKM conversion), and at the
//! sampling endpoints.

use skelmap::Parse;
use skelmap::dpm::Dpm;
use skelmap::pose::{self, Interpolation, LocalPose, Palette, PoseFrames};
use skelmap::skin::{self, SkinError};
use skelmap::skm;
use skelmap::skm::{Skm, Skp, convert};
use skelmap::{Diagnostics, SkeletalMesh};

use crate::support::corpus_files;

type M64 = [[f64; 4]; 3];

/// Absolute f64 matrices of `frame`, straight from the DPM's 3×4 rows (no quaternions).
fn absolute_f64(m: &Dpm<'_>, frame: usize) -> Vec<M64> {
    let mut out: Vec<M64> = Vec::new();
    for (i, bone) in m.bones().enumerate() {
        let local = m
            .frame(frame)
            .unwrap()
            .pose(i)
            .unwrap()
            .map(|r| r.map(f64::from));
        let world = match bone.parent() {
            Some(p) => {
                let a = out[p];
                core::array::from_fn(|r| {
                    core::array::from_fn(|c| {
                        let rot =
                            a[r][0] * local[0][c] + a[r][1] * local[1][c] + a[r][2] * local[2][c];
                        if c == 3 { rot + a[r][3] } else { rot }
                    })
                })
            }
            None => local,
        };
        out.push(world);
    }
    out
}

/// Skins frame `frame` of every mesh with `skin::scalar` and with f64 maths; returns the worst
/// difference relative to the model's size.
fn worst_error(m: &Dpm<'_>, frame: usize) -> f64 {
    let (mut pose, mut palette) = (LocalPose::default(), Palette::default());
    pose::sample(m, frame, frame, 0.0, Interpolation::Nlerp, &mut pose);
    palette.build(m, &pose);
    let abs = absolute_f64(m, frame);
    let scale = f64::from(m.all_radius()).max(1.0);
    let mut worst = 0.0f64;
    for mesh in m.meshes() {
        let n = mesh.num_vertices();
        let (mut p, mut q) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
        skin::scalar(&mesh, &palette, &mut p, &mut q).unwrap();
        for (records, got) in mesh.vertices().zip(&p) {
            let mut want = [0.0f64; 3];
            for r in records {
                let (o, w, mat) = (
                    r.origin().map(f64::from),
                    f64::from(r.influence()),
                    abs[r.bonenum() as usize],
                );
                for k in 0..3 {
                    want[k] +=
                        mat[k][0] * o[0] + mat[k][1] * o[1] + mat[k][2] * o[2] + mat[k][3] * w;
                }
            }
            for k in 0..3 {
                worst = worst.max((f64::from(got[k]) - want[k]).abs() / scale);
            }
        }
    }
    worst
}

#[test]
fn bind_pose_of_every_corpus_dpm_matches_an_f64_computation() {
    for path in corpus_files("dpm") {
        let bytes = std::fs::read(&path).unwrap();
        let m = Dpm::parse(&bytes).unwrap();
        let e = worst_error(&m, 0);
        assert!(
            e < 1e-5,
            "{}: bind pose differs by {e} of its radius",
            path.display()
        );
    }
}

#[test]
fn sampled_frames_of_corpus_dpms_match_f64() {
    for path in corpus_files("dpm") {
        let bytes = std::fs::read(&path).unwrap();
        let m = Dpm::parse(&bytes).unwrap();
        let frames = m.num_frames() as usize;
        for frame in (0..frames).step_by((frames / 12).max(1)) {
            let e = worst_error(&m, frame);
            assert!(e < 1e-5, "{} frame {frame}: {e}", path.display());
        }
    }
}

/// DPM's batch conversion (16 matrices at a time with AVX-512 where the CPU has it) gives
/// every frame of every corpus DPM, and of models of 70, 67 and 3 bones (full steps, a partial
/// step of 6, and tails of 3 left to the scalar conversion), bit for bit as the
/// one-pose-at-a-time conversion: both normalise by one reciprocal of the length.
#[test]
fn batched_dpm_poses_match_the_scalar_conversion() {
    let mut inputs: Vec<Vec<u8>> = corpus_files("dpm")
        .iter()
        .map(|p| std::fs::read(p).unwrap())
        .collect();
    for bones in [70, 67, 3] {
        let params = skelmap::synth::TubeParams {
            bones,
            ..Default::default()
        };
        inputs.push(skelmap::synth::tube(&params).write().unwrap());
    }
    for bytes in &inputs {
        let m = Dpm::parse(bytes).unwrap();
        let mut batched = Vec::new();
        for frame in 0..m.num_frames() {
            batched.clear();
            m.frame_poses_into(frame, &mut batched);
            let scalar: Vec<_> = m.frame_poses(frame).collect();
            assert_eq!(batched, scalar, "frame {frame}");
        }
    }
}

#[test]
fn dpm_and_its_skm_conversion_skin_alike() {
    for path in corpus_files("dpm") {
        let bytes = std::fs::read(&path).unwrap();
        let dpm = Dpm::parse(&bytes).unwrap();
        let c = convert::from_dpm(&dpm, &mut Diagnostics::new());
        let (skm_bytes, skp_bytes) = (c.skm.write().unwrap(), c.skp.write().unwrap());
        let skm = skm::Pair::new(
            Skm::parse(&skm_bytes).unwrap(),
            Skp::parse(&skp_bytes).unwrap(),
            &[],
        )
        .unwrap();
        let frames = dpm.num_frames() as usize;
        let (mut pose, mut pal_d, mut pal_s) =
            (LocalPose::default(), Palette::default(), Palette::default());
        for frame in (0..frames).step_by((frames / 6).max(1)) {
            let g = (frame + 1).min(frames - 1);
            pose::sample(&dpm, frame, g, 0.4, Interpolation::Slerp, &mut pose);
            pal_d.build(&dpm, &pose);
            pose::sample(&skm, frame, g, 0.4, Interpolation::Slerp, &mut pose);
            pal_s.build(&skm, &pose);
            let scale = dpm.all_radius().max(1.0);
            for (md, ms) in dpm.meshes().zip(skm.skm().meshes()) {
                let n = md.num_vertices();
                let (mut a, mut an, mut b, mut bn) = (
                    vec![[0.0; 3]; n],
                    vec![[0.0; 3]; n],
                    vec![[0.0; 3]; n],
                    vec![[0.0; 3]; n],
                );
                skin::scalar(&md, &pal_d, &mut a, &mut an).unwrap();
                skin::scalar(&ms, &pal_s, &mut b, &mut bn).unwrap();
                let worst = a
                    .iter()
                    .flatten()
                    .zip(b.iter().flatten())
                    .map(|(x, y)| (x - y).abs())
                    .fold(0.0, f32::max);
                assert!(
                    worst / scale < 1e-5,
                    "{} frame {frame}: {worst}",
                    path.display()
                );
            }
        }
    }
}

#[test]
fn sampling_endpoints_and_interpolations() {
    let bytes = crate::support::tube().0;
    let m = Dpm::parse(&bytes).unwrap();
    let mut pose = LocalPose::default();
    for interpolation in [Interpolation::Nlerp, Interpolation::Slerp] {
        pose::sample(&m, 2, 5, 0.0, interpolation, &mut pose);
        for (bone, (q, t)) in pose.bones.iter().enumerate() {
            let (qa, ta) = m.bone_pose(2, bone).unwrap();
            assert!(q.abs_diff_eq(qa, 1e-6) || q.abs_diff_eq(-qa, 1e-6));
            assert!(t.abs_diff_eq(ta, 1e-6));
        }
        pose::sample(&m, 2, 5, 1.0, interpolation, &mut pose);
        let (qb, _) = m.bone_pose(5, 1).unwrap();
        assert!(pose.bones[1].0.abs_diff_eq(qb, 1e-5) || pose.bones[1].0.abs_diff_eq(-qb, 1e-5));
        pose::sample(&m, 2, 5, 0.5, interpolation, &mut pose);
        assert!(
            pose.bones
                .iter()
                .all(|(q, _)| (q.length() - 1.0).abs() < 1e-5)
        );
    }
    pose::sample(&m, 99, 99, 0.0, Interpolation::Nlerp, &mut pose);
    assert_eq!(pose.bones.len(), 4, "frames past the end clamp to the last");
}

#[test]
fn palette_places_the_attachment_at_the_tip() {
    let bytes = crate::support::tube().0;
    let m = Dpm::parse(&bytes).unwrap();
    let (mut pose, mut palette) = (LocalPose::default(), Palette::default());
    pose::sample(&m, 0, 0, 0.0, Interpolation::Nlerp, &mut pose);
    palette.build(&m, &pose);
    let tip = palette.bone_world(3).unwrap();
    assert!(
        (tip.translation.z - 48.0).abs() < 1e-5,
        "bone 3 sits 3 segments up: {:?}",
        tip.translation
    );
    assert!(palette.bone_world(4).is_none());
}

#[test]
fn skinning_errors() {
    let bytes = crate::support::tube().0;
    let m = Dpm::parse(&bytes).unwrap();
    let mesh = m.mesh(0).unwrap();
    let (mut p, mut n) = (vec![[0.0; 3]; 10], vec![[0.0; 3]; 136]);
    let palette = Palette::default();
    assert_eq!(
        skin::scalar(&mesh, &palette, &mut p, &mut n),
        Err(SkinError::Output {
            need: 136,
            have: 10
        })
    );
    let mut p = vec![[0.0; 3]; 136];
    assert!(matches!(
        skin::scalar(&mesh, &palette, &mut p, &mut n),
        Err(SkinError::Palette { have: 0, .. })
    ));
}

use skelmap::pose::framegroups::groups_from_names;
use skelmap::skin::dqs::{deltas, skin_dqs};

/// The bind palette (frame 0) and the palette at `frame` of `m`.
fn palettes(m: &Dpm<'_>, frame: usize) -> (Palette, Palette) {
    let (mut pose, mut bind, mut now) =
        (LocalPose::default(), Palette::default(), Palette::default());
    pose::sample(m, 0, 0, 0.0, Interpolation::Nlerp, &mut pose);
    bind.build(m, &pose);
    pose::sample(m, frame, frame, 0.0, Interpolation::Nlerp, &mut pose);
    now.build(m, &pose);
    (bind, now)
}

#[test]
fn dqs_equals_lbs_for_single_influence_models() {
    for path in corpus_files("dpm") {
        let bytes = std::fs::read(&path).unwrap();
        let m = Dpm::parse(&bytes).unwrap();
        if m.meshes().any(|mesh| mesh.vertices().any(|v| v.len() > 1)) {
            continue;
        }
        let frames = m.num_frames() as usize;
        for frame in (0..frames).step_by((frames / 5).max(1)) {
            let (bind, now) = palettes(&m, frame);
            let d = deltas(&now, &bind);
            for mesh in m.meshes() {
                let n = mesh.num_vertices();
                let (mut a, mut an, mut b, mut bn) = (
                    vec![[0.0; 3]; n],
                    vec![[0.0; 3]; n],
                    vec![[0.0; 3]; n],
                    vec![[0.0; 3]; n],
                );
                skin::scalar(&mesh, &now, &mut a, &mut an).unwrap();
                skin_dqs(&mesh, &bind, &d, &mut b, &mut bn).unwrap();
                let scale = m.all_radius().max(1.0);
                let worst = a
                    .iter()
                    .flatten()
                    .zip(b.iter().flatten())
                    .map(|(x, y)| (x - y).abs())
                    .fold(0.0, f32::max);
                assert!(
                    worst / scale < 1e-4,
                    "{} frame {frame}: DQS and LBS differ by {worst}",
                    path.display()
                );
            }
        }
    }
}

#[test]
fn dqs_at_the_bind_pose_reproduces_it_and_keeps_volume_when_bent() {
    let bytes = crate::support::tube().0;
    let m = Dpm::parse(&bytes).unwrap();
    let mesh = m.mesh(0).unwrap();
    let n = mesh.num_vertices();
    let (mut lbs, mut ln, mut dqs, mut dn) = (
        vec![[0.0; 3]; n],
        vec![[0.0; 3]; n],
        vec![[0.0; 3]; n],
        vec![[0.0; 3]; n],
    );
    let (bind, _) = palettes(&m, 0);
    skin::scalar(&mesh, &bind, &mut lbs, &mut ln).unwrap();
    skin_dqs(&mesh, &bind, &deltas(&bind, &bind), &mut dqs, &mut dn).unwrap();
    let worst = lbs
        .iter()
        .flatten()
        .zip(dqs.iter().flatten())
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max);
    assert!(worst < 1e-4, "bind pose: {worst}");
    // A bent frame: blended vertices keep their distance to the bone axis better under DQS.
    let (bind, now) = palettes(&m, 2);
    skin::scalar(&mesh, &now, &mut lbs, &mut ln).unwrap();
    skin_dqs(&mesh, &bind, &deltas(&now, &bind), &mut dqs, &mut dn).unwrap();
    let spread = |points: &[[f32; 3]]| {
        points
            .iter()
            .map(|p| (p[0] * p[0] + p[1] * p[1]).sqrt())
            .fold(0.0, f32::max)
    };
    assert!(
        spread(&dqs) >= spread(&lbs) - 1e-3,
        "DQS {} vs LBS {}",
        spread(&dqs),
        spread(&lbs)
    );
}

#[test]
fn frame_groups_from_the_tube_frame_names() {
    let bytes = crate::support::tube().0;
    let m = Dpm::parse(&bytes).unwrap();
    let groups = groups_from_names(m.frames().map(|f| f.name()), 10.0);
    let summary: Vec<(&str, u32, u32)> = groups
        .iter()
        .map(|g| (g.name.as_str(), g.first, g.count))
        .collect();
    assert_eq!(summary, [("bind", 0, 1), ("wave", 1, 8)]);
}

#[test]
fn baked_frames_sample_exactly_like_the_file_and_refuse_oversized_sources() {
    use skelmap::pose::{BakeError, BakedFrames};
    for path in corpus_files("dpm") {
        let bytes = std::fs::read(&path).unwrap();
        let m = Dpm::parse(&bytes).unwrap();
        let baked = BakedFrames::new(&m).unwrap();
        assert_eq!(baked.num_frames(), m.num_frames() as usize);
        let (mut direct, mut fast) = (LocalPose::default(), LocalPose::default());
        let (mut a, mut b) = (Palette::default(), Palette::default());
        for frame in 0..baked.num_frames() {
            for interpolation in [Interpolation::Nlerp, Interpolation::Slerp] {
                pose::sample(&m, frame, frame + 1, 0.3, interpolation, &mut direct);
                pose::sample(&baked, frame, frame + 1, 0.3, interpolation, &mut fast);
                assert_eq!(direct, fast, "{} frame {frame}", path.display());
            }
            a.build(&m, &direct);
            b.build(&baked, &fast);
            assert_eq!(a, b);
        }
        assert_eq!(baked.frame(baked.num_frames()), None);
    }
    // The tube: 9 frames × 4 bones = 36 poses; a limit of 35 refuses it.
    let bytes = crate::support::tube().0;
    let m = Dpm::parse(&bytes).unwrap();
    assert_eq!(
        BakedFrames::with_limit(&m, 35).map(|_| ()),
        Err(BakeError::TooLarge { poses: 36, max: 35 })
    );
    let baked = BakedFrames::with_limit(&m, 36).unwrap();
    assert_eq!(baked.frame(8).map(<[_]>::len), Some(4));
    assert_eq!(baked.frame(9), None);
}

/// DPM's nlerp converts and blends both frames in one pass (16 bones a step with AVX-512, a
/// last step of at least 4 included, fewer blended one at a time; both frames in one step
/// when they hold 2 to 8 bones). It gives, bit for bit, the poses of converting each frame
/// and blending them: what sampling baked frames gives. On tubes of 1 to 70 bones (no step,
/// frames paired in one step, a short tail, a masked last step, whole steps) whose
/// frames turn each bone by about 10°, then 200°, then 10° about its own axis, so that the
/// quaternions of consecutive frames lie more than 90° apart and the far one is negated.
#[test]
fn dpm_nlerp_in_one_pass_is_the_blend_of_the_converted_frames() {
    use skelmap::dpm::write::FrameDef;
    use skelmap::glam::{Mat3, Vec3};
    use skelmap::pose::BakedFrames;
    let turned = |bone: usize, degrees: f32| {
        // An axis whose largest component is positive, as the conversion's chosen one is.
        let axis = Vec3::new(3.0 + bone as f32, 1.0, -2.0).normalize();
        let m = Mat3::from_axis_angle(axis, degrees.to_radians());
        let r = |i: usize| m.row(i);
        let origin = [bone as f32, 0.25, -1.5];
        [0, 1, 2].map(|i| [r(i).x, r(i).y, r(i).z, origin[i] * (1.0 + degrees / 90.0)])
    };
    for bones in [1, 2, 3, 4, 8, 9, 15, 16, 19, 20, 35, 67, 70] {
        let mut builder = skelmap::synth::tube(&skelmap::synth::TubeParams {
            bones,
            ..Default::default()
        });
        let bones = bones as usize;
        builder.frames = [10.0, 200.0, 10.0]
            .iter()
            .enumerate()
            .map(|(f, &degrees)| {
                let poses = (0..bones)
                    .map(|b| turned(b, degrees + (b % 7) as f32))
                    .collect();
                FrameDef::new(format!("turn{f}"), poses)
            })
            .collect();
        let bytes = builder.write().unwrap();
        let m = Dpm::parse(&bytes).unwrap();
        let baked = BakedFrames::new(&m).unwrap();
        let (mut direct, mut generic) = (LocalPose::default(), LocalPose::default());
        let mut far = 0;
        for (a, b) in [(0, 1), (1, 2), (2, 0), (1, 1), (0, 7)] {
            for t in [0.0, 0.3, 0.5, 1.0] {
                pose::sample(&m, a, b, t, Interpolation::Nlerp, &mut direct);
                pose::sample(&baked, a, b, t, Interpolation::Nlerp, &mut generic);
                assert_eq!(direct.bones.len(), bones);
                assert_eq!(direct, generic, "{bones} bones, frames {a} and {b} at {t}");
            }
            let (pa, pb) = (baked.frame(a).unwrap(), baked.frame(b.min(2)).unwrap());
            far += pa
                .iter()
                .zip(pb)
                .filter(|(p, q)| p.0.dot(q.0) < 0.0)
                .count();
        }
        // Frames 0 → 1 and 1 → 2, every bone.
        assert_eq!(far, 2 * bones, "{bones} bones");
    }
}
