//! Every shared IQM (`corpus-next/iqm`) against its MANIFEST row and the assimp oracle: exact
//! counts; bind-pose positions equal assimp's as sets; every frame skinned by the compact
//! kernel equal to the scalar reference; skinned bounds inside the bounds the file stores.

use skelmap::Model;
use skelmap::glam::Vec3;
use skelmap::model::Pose;
use skelmap::pose::Interpolation;
use skelmap::skin::{SimdLevel, SkinMatrices};
use skelmap::{Diagnostics, Limits, Parse, WarningKind};

use skelmap::iqm::Iqm;

use crate::support::{corpus_next_dir, manifest_next};

#[test]
fn every_shared_iqm_matches_the_manifest() {
    let Some(dir) = corpus_next_dir("iqm") else {
        return;
    };
    let rows = manifest_next("iqm");
    assert_eq!(rows.len(), 5);
    for row in &rows {
        let name = &row.file;
        let bytes = std::fs::read(dir.join(name)).unwrap();
        assert_eq!(bytes.len() as u64, row.size, "{name}");
        let mut diag = Diagnostics::new();
        let m = Iqm::parse_with(&bytes, &Limits::default(), &mut diag)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        // Only xygine's platform has unaligned sections; nothing else is odd.
        let kinds: Vec<_> = diag.warnings().iter().map(|w| w.kind).collect();
        let expected: &[WarningKind] = if name.starts_with("xygine") {
            &[WarningKind::Unaligned]
        } else {
            &[]
        };
        assert_eq!(kinds, expected, "{name}");
        assert_eq!(m.num_meshes() as u64, row.count("meshes"), "{name}");
        assert_eq!(m.num_vertices() as u64, row.count("verts"), "{name}");
        assert_eq!(m.num_triangles() as u64, row.count("tris"), "{name}");
        assert_eq!(m.num_joints() as u64, row.count("joints"), "{name}");
        assert_eq!(m.num_poses() as u64, row.count("poses"), "{name}");
        assert_eq!(m.num_anims() as u64, row.count("anims"), "{name}");
        assert_eq!(m.num_frames() as u64, row.count("frames"), "{name}");
        assert_eq!(m.num_framechannels() as u64, row.count("(ch"), "{name}");
        assert_eq!(
            m.has_frame_bounds(),
            row.summary.contains("bounds"),
            "{name}"
        );
        let arrays = row.field("VA").unwrap_or_default();
        assert_eq!(
            m.vertex_arrays().len(),
            arrays.matches(':').count(),
            "{name}: {arrays}"
        );
        let model = Model::from_bytes(&bytes).unwrap();
        skelmap_testkit::exercise::model(&model);
    }
}

/// `(x, z, −y)`: assimp turns IQM's Z-up into Y-up.
fn assimp_axes(p: [f32; 3]) -> Vec3 {
    Vec3::new(p[0], p[2], -p[1])
}

#[test]
fn bind_pose_positions_equal_assimps() {
    let Some(dir) = corpus_next_dir("iqm") else {
        return;
    };
    for row in manifest_next("iqm") {
        let name = &row.file;
        let bytes = std::fs::read(dir.join(name)).unwrap();
        let m = Iqm::parse(&bytes).unwrap();
        let obj =
            std::fs::read_to_string(dir.join("../oracle").join(format!("{name}.obj"))).unwrap();
        let oracle: Vec<Vec3> = obj
            .lines()
            .filter(|l| l.starts_with("v "))
            .map(|l| {
                let v: Vec<f32> = l
                    .split_whitespace()
                    .skip(1)
                    .map(|x| x.parse().unwrap())
                    .collect();
                Vec3::new(v[0], v[1], v[2])
            })
            .collect();
        let ours: Vec<Vec3> = (0..m.num_vertices())
            .filter_map(|v| m.position(v))
            .map(assimp_axes)
            .collect();
        assert_eq!(ours.is_empty(), oracle.is_empty(), "{name}");
        let size = bounds_diagonal(&ours);
        let near = |p: &Vec3, set: &[Vec3]| set.iter().any(|q| (*p - *q).length() <= 1e-4 * size);
        assert!(
            ours.iter().all(|p| near(p, &oracle)),
            "{name}: a vertex assimp lacks"
        );
        assert!(
            oracle.iter().all(|p| near(p, &ours)),
            "{name}: an assimp vertex we lack"
        );
    }
}

fn bounds_diagonal(points: &[Vec3]) -> f32 {
    let (lo, hi) = points.iter().fold(
        (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)),
        |(lo, hi), p| (lo.min(*p), hi.max(*p)),
    );
    (hi - lo).length().max(f32::MIN_POSITIVE)
}

#[test]
fn every_frame_skins_alike_with_the_compact_kernel_and_inside_the_stored_bounds() {
    let Some(dir) = corpus_next_dir("iqm") else {
        return;
    };
    let mut checked = 0;
    for row in manifest_next("iqm") {
        let name = &row.file;
        let bytes = std::fs::read(dir.join(name)).unwrap();
        let model = Model::from_bytes(&bytes).unwrap();
        if model.num_meshes() == 0 || model.num_bones() == 0 {
            continue;
        }
        let iqm = model.as_iqm().unwrap().mesh();
        let n = model.mesh(0).unwrap().num_vertices();
        let compact = model.compact().unwrap();
        assert_eq!(
            compact.exact_vertices(),
            0,
            "{name}: every vertex in the blocks"
        );
        let (mut worst, mut worst_bind) = (0.0f32, 0.0f32);
        let (mut pose, mut matrices) = (Pose::default(), SkinMatrices::default());
        let (mut exact, mut normals) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
        let (mut fast, mut fast_normals) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
        model.pose_bind(&mut pose);
        model.deform(0, &pose, &mut exact, &mut normals).unwrap();
        let size = bounds_diagonal(
            &exact
                .iter()
                .map(|p| Vec3::from_array(*p))
                .collect::<Vec<_>>(),
        );
        for f in 0..model.num_frames() {
            model
                .pose(f, f, 0.0, Interpolation::Nlerp, &mut pose)
                .unwrap();
            model.deform(0, &pose, &mut exact, &mut normals).unwrap();
            compact.matrices(&pose, &mut matrices).unwrap();
            compact
                .skin(
                    0,
                    &matrices,
                    SimdLevel::detect(),
                    &mut fast,
                    &mut fast_normals,
                )
                .unwrap();
            // The size is the frame's: the pose's scale scales the quantisation steps too.
            let frame_size = bounds_diagonal(
                &exact
                    .iter()
                    .map(|p| Vec3::from_array(*p))
                    .collect::<Vec<_>>(),
            );
            for (a, b) in exact.iter().zip(&fast) {
                let d = (Vec3::from_array(*a) - Vec3::from_array(*b)).length();
                worst = worst.max(d / frame_size);
                worst_bind = worst_bind.max(d / size);
                assert!(
                    d <= 1e-5 * frame_size,
                    "{name} frame {f}: compact off by {d}"
                );
            }
            let Some(stored) = iqm.frame_bounds(f) else {
                continue;
            };
            let points: Vec<Vec3> = exact.iter().map(|p| Vec3::from_array(*p)).collect();
            let (lo, hi) = points.iter().fold(
                (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)),
                |(lo, hi), p| (lo.min(*p), hi.max(*p)),
            );
            let (slo, shi) = (
                Vec3::from_array(stored.aabb.mins),
                Vec3::from_array(stored.aabb.maxs),
            );
            let tolerance = 1e-3 * (shi - slo).length();
            assert!(
                (lo - slo).abs().max_element() <= tolerance
                    && (hi - shi).abs().max_element() <= tolerance,
                "{name} frame {f}: skinned {lo}..{hi}, stored {slo}..{shi}"
            );
            checked += 1;
        }
        eprintln!(
            "{name}: compact within {worst:e} of the frame's size ({worst_bind:e} of the bind \
             pose's) of the exact skinning"
        );
    }
    if corpus_next_dir("iqm").is_some() {
        assert_eq!(
            checked, 122,
            "raylib's guy stores bounds for its 122 frames"
        );
    }
}
