//! Pose sampling, palettes and the scalar skinning kernel: checked against an f64 computation
//! straight from the files' matrices, across formats (DPM and its SKM conversion), and at the
//! sampling endpoints.

use skelmap::anim::skin::{SkinError, skin_scalar};
use skelmap::anim::{self, Interpolation, LocalPose, Palette, PoseFrames};
use skelmap::dpm::Dpm;
use skelmap::skm::{Skm, SkmModel, Skp, convert};
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

/// Skins frame `frame` of every mesh with `skin_scalar` and with f64 maths; returns the worst
/// difference relative to the model's size.
fn worst_error(m: &Dpm<'_>, frame: usize) -> f64 {
    let (mut pose, mut palette) = (LocalPose::default(), Palette::default());
    anim::sample(m, frame, frame, 0.0, Interpolation::Nlerp, &mut pose);
    palette.build(m, &pose);
    let abs = absolute_f64(m, frame);
    let scale = f64::from(m.all_radius()).max(1.0);
    let mut worst = 0.0f64;
    for mesh in m.meshes() {
        let n = mesh.num_verts() as usize;
        let (mut p, mut q) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
        skin_scalar(&mesh, &palette, &mut p, &mut q).unwrap();
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

#[test]
fn dpm_and_its_skm_conversion_skin_alike() {
    for path in corpus_files("dpm") {
        let bytes = std::fs::read(&path).unwrap();
        let dpm = Dpm::parse(&bytes).unwrap();
        let c = convert::from_dpm(&dpm, &mut Diagnostics::new());
        let (skm_bytes, skp_bytes) = (c.skm.write().unwrap(), c.skp.write().unwrap());
        let skm = SkmModel::pair(
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
            anim::sample(&dpm, frame, g, 0.4, Interpolation::Slerp, &mut pose);
            pal_d.build(&dpm, &pose);
            anim::sample(&skm, frame, g, 0.4, Interpolation::Slerp, &mut pose);
            pal_s.build(&skm, &pose);
            let scale = dpm.all_radius().max(1.0);
            for (md, ms) in dpm.meshes().zip(skm.skm().meshes()) {
                let n = md.num_verts() as usize;
                let (mut a, mut an, mut b, mut bn) = (
                    vec![[0.0; 3]; n],
                    vec![[0.0; 3]; n],
                    vec![[0.0; 3]; n],
                    vec![[0.0; 3]; n],
                );
                skin_scalar(&md, &pal_d, &mut a, &mut an).unwrap();
                skin_scalar(&ms, &pal_s, &mut b, &mut bn).unwrap();
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
        anim::sample(&m, 2, 5, 0.0, interpolation, &mut pose);
        for (bone, (q, t)) in pose.bones.iter().enumerate() {
            let (qa, ta) = m.bone_pose(2, bone).unwrap();
            assert!(q.abs_diff_eq(qa, 1e-6) || q.abs_diff_eq(-qa, 1e-6));
            assert!(t.abs_diff_eq(ta, 1e-6));
        }
        anim::sample(&m, 2, 5, 1.0, interpolation, &mut pose);
        let (qb, _) = m.bone_pose(5, 1).unwrap();
        assert!(pose.bones[1].0.abs_diff_eq(qb, 1e-5) || pose.bones[1].0.abs_diff_eq(-qb, 1e-5));
        anim::sample(&m, 2, 5, 0.5, interpolation, &mut pose);
        assert!(
            pose.bones
                .iter()
                .all(|(q, _)| (q.length() - 1.0).abs() < 1e-5)
        );
    }
    anim::sample(&m, 99, 99, 0.0, Interpolation::Nlerp, &mut pose);
    assert_eq!(pose.bones.len(), 4, "frames past the end clamp to the last");
}

#[test]
fn palette_places_the_attachment_at_the_tip() {
    let bytes = crate::support::tube().0;
    let m = Dpm::parse(&bytes).unwrap();
    let (mut pose, mut palette) = (LocalPose::default(), Palette::default());
    anim::sample(&m, 0, 0, 0.0, Interpolation::Nlerp, &mut pose);
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
        skin_scalar(&mesh, &palette, &mut p, &mut n),
        Err(SkinError::Output {
            need: 136,
            have: 10
        })
    );
    let mut p = vec![[0.0; 3]; 136];
    assert!(matches!(
        skin_scalar(&mesh, &palette, &mut p, &mut n),
        Err(SkinError::Palette { have: 0, .. })
    ));
}
