//! Every shared MD5 (`corpus-engines/md5`) against its MANIFEST row and assimp's oracle:
//! exact counts, each mesh playing the animations of its own skeleton (the three weapons
//! share one folder), the bind pose equal to assimp's OBJ as sets of points within 1e-3 of
//! the model's size (assimp's axes being `(x, z, −y)`), and the first, a middle and the last
//! frame of every animation against assimp's scene skinned at that frame.

use skelmap::md5::{Anim, MeshFile};
use skelmap::model::Pose;
use skelmap::pose::Interpolation;
use skelmap::{Diagnostics, Format, Limits, Model, Parse, WarningKind};

use crate::support::oracle::{assert_same_points, assimp_frame, md5_frame_tool, obj_points};
use crate::support::{corpus_engines_dir, manifest_engines};

#[test]
fn every_shared_md5_matches_the_manifest() {
    let Some(dir) = corpus_engines_dir("md5") else {
        return;
    };
    let rows = manifest_engines("md5");
    assert_eq!(rows.len(), 10);
    for row in &rows {
        let name = &row.file;
        let bytes = std::fs::read(dir.join(name)).unwrap();
        assert_eq!(bytes.len() as u64, row.size, "{name}");
        let mut diag = Diagnostics::new();
        if name.ends_with(".md5mesh") {
            let m = MeshFile::parse_with(&bytes, &Limits::DEFAULT, &mut diag)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(m.num_joints() as u64, row.count("joints"), "{name}");
            assert_eq!(m.num_meshes() as u64, row.count("meshes"), "{name}");
            let sum = |f: fn(&skelmap::md5::Mesh<'_>) -> usize| {
                (0..m.num_meshes())
                    .map(|i| f(&m.mesh(i).unwrap()))
                    .sum::<usize>() as u64
            };
            assert_eq!(sum(|m| m.num_verts()), row.count("verts"), "{name}");
            assert_eq!(
                sum(|m| skelmap::SkeletalMesh::num_triangles(m)),
                row.count("tris"),
                "{name}"
            );
            assert_eq!(sum(|m| m.num_weights()), row.count("weights"), "{name}");
        } else {
            let a = Anim::parse_with(&bytes, &Limits::DEFAULT, &mut diag)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(a.num_frames() as u64, row.count("frames"), "{name}");
            assert_eq!(a.num_joints() as u64, row.count("joints"), "{name}");
            assert_eq!(a.frame_rate(), row.count("frameRate") as f32, "{name}");
            assert_eq!(
                a.num_animated_components() as u64,
                row.count("components"),
                "{name}"
            );
        }
        assert!(diag.is_empty(), "{name}: {:?}", diag.warnings());
        let model = Model::from_bytes(&bytes).unwrap();
        assert_eq!(model.format(), Format::Md5);
        skelmap_testkit::exercise::model(&model);
    }
}

/// Opened from the shared folder, each mesh plays exactly the animations of its skeleton,
/// one clip each at 24 frames a second, named without the mesh's name before them
/// (`reweap_pistol-idle` is `idle`; `reweap_rocket_idle` is not the rocket launcher's stem
/// and stays), and leaves the others out with a warning.
#[test]
fn each_mesh_plays_the_animations_of_its_own_skeleton() {
    let Some(dir) = corpus_engines_dir("md5") else {
        return;
    };
    for (mesh, clips) in [
        ("reweap_pistol.md5mesh", &["idle", "reload", "shoot"][..]),
        ("reweap_flamer.md5mesh", &["idle", "reload"]),
        (
            "reweap_rocket_launcher.md5mesh",
            &["reweap_rocket_idle", "reweap_rocket_shoot"],
        ),
    ] {
        let model = Model::open(dir.join(mesh)).unwrap();
        let names: Vec<&str> = model.clips().iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, clips, "{mesh}");
        assert!(model.clips().iter().all(|c| c.fps == 24.0));
        let ignored = model.diagnostics().count(WarningKind::CompanionIgnored);
        assert_eq!(ignored as usize, 7 - clips.len(), "{mesh}");
        skelmap_testkit::exercise::model(&model);
    }
}

#[test]
fn every_shared_md5mesh_matches_assimp_in_the_bind_pose() {
    let Some(dir) = corpus_engines_dir("md5") else {
        return;
    };
    let oracle = corpus_engines_dir("oracle").unwrap();
    let mut compared = 0;
    for row in manifest_engines("md5")
        .iter()
        .filter(|r| r.file.ends_with(".md5mesh"))
    {
        let name = &row.file;
        let theirs =
            obj_points(&std::fs::read_to_string(oracle.join(format!("{name}.obj"))).unwrap());
        let model = Model::open(dir.join(name)).unwrap();
        let mut pose = Pose::default();
        model.pose_bind(&mut pose);
        let mut ours = Vec::new();
        for mesh in 0..model.num_meshes() {
            let n = model.mesh(mesh).unwrap().num_vertices();
            let (mut p, mut q) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
            model.deform(mesh, &pose, &mut p, &mut q).unwrap();
            ours.extend(p.iter().map(|v| [v[0], v[2], -v[1]]));
        }
        assert_same_points(&ours, &theirs, name);
        // Frame 0 of each animation is a pose of the same skeleton: finite everywhere.
        for clip in model.clips() {
            model
                .pose(
                    clip.first as usize,
                    clip.first as usize,
                    0.0,
                    Interpolation::Nlerp,
                    &mut pose,
                )
                .unwrap();
            assert!(pose.palette().world.iter().all(|m| m.is_finite()), "{name}");
        }
        compared += 1;
    }
    assert_eq!(compared, 3);
}

/// Every animation of every shared mesh, at its first, a middle and its last frame, equal to
/// assimp's as sets of points within 1e-3 of the model's size. assimp reads only the
/// animation named like the mesh, so each pair is copied into a folder as `x.md5mesh` and
/// `x.md5anim`; its scene's keys are taken at the frame and its bones skin the mesh.
#[test]
fn every_shared_animation_matches_assimp_at_three_frames() {
    let Some(dir) = corpus_engines_dir("md5") else {
        return;
    };
    let Some(tool) = md5_frame_tool() else {
        return;
    };
    let scratch = tempfile::Builder::new()
        .prefix("skelmap-md5-frames-")
        .tempdir()
        .unwrap();
    let scratch = scratch.path();
    let mut compared = 0;
    for mesh in ["reweap_pistol", "reweap_flamer", "reweap_rocket_launcher"] {
        let model = Model::open(dir.join(format!("{mesh}.md5mesh"))).unwrap();
        let m = model.as_md5().unwrap();
        for a in m.animations() {
            // The clip's file: its name, or the mesh's name and a `-` or `_` before it.
            let anim_file = [
                a.name.to_string(),
                format!("{mesh}-{}", a.name),
                format!("{mesh}_{}", a.name),
            ]
            .into_iter()
            .map(|stem| dir.join(format!("{stem}.md5anim")))
            .find(|p| p.is_file())
            .unwrap();
            std::fs::copy(
                dir.join(format!("{mesh}.md5mesh")),
                scratch.join("x.md5mesh"),
            )
            .unwrap();
            std::fs::copy(&anim_file, scratch.join("x.md5anim")).unwrap();
            let n = a.anim.num_frames();
            for k in [0, n / 2, n - 1] {
                let theirs = assimp_frame(&tool, &scratch.join("x.md5mesh"), k);
                let mut pose = Pose::default();
                let f = a.first_frame + k;
                model
                    .pose(f, f, 0.0, Interpolation::Nlerp, &mut pose)
                    .unwrap();
                let mut ours = Vec::new();
                for i in 0..model.num_meshes() {
                    let count = model.mesh(i).unwrap().num_vertices();
                    let (mut p, mut q) = (vec![[0.0; 3]; count], vec![[0.0; 3]; count]);
                    model.deform(i, &pose, &mut p, &mut q).unwrap();
                    ours.extend(p.iter().map(|v| [v[0], v[2], -v[1]]));
                }
                assert_same_points(&ours, &theirs, &format!("{mesh} {} frame {k}", a.name));
                compared += 1;
            }
        }
    }
    assert_eq!(compared, 3 * 7);
}

/// Every shared mesh's texture coordinates are assimp's with `v` turned over: MD5's `v`
/// runs down the image, as an asset's does, and assimp (whose OBJ `vt` runs up) stores
/// `1 − v`. Equal as sets within 1e-6 (the OBJ keeps each distinct `vt` once).
#[test]
fn every_shared_md5mesh_s_texture_coordinates_are_assimp_s_turned_over() {
    let Some(dir) = corpus_engines_dir("md5") else {
        return;
    };
    let oracle = corpus_engines_dir("oracle").unwrap();
    for name in [
        "reweap_pistol.md5mesh",
        "reweap_flamer.md5mesh",
        "reweap_rocket_launcher.md5mesh",
    ] {
        let text = std::fs::read_to_string(oracle.join(format!("{name}.obj"))).unwrap();
        let theirs: Vec<[f32; 2]> = text
            .lines()
            .filter_map(|l| l.strip_prefix("vt "))
            .map(|l| {
                let f: Vec<f32> = l.split_whitespace().map(|x| x.parse().unwrap()).collect();
                [f[0], f[1]]
            })
            .collect();
        let model = Model::open(dir.join(name)).unwrap();
        let asset = skelmap::model::convert::asset_of(&model).unwrap();
        let ours: Vec<[f32; 2]> = asset
            .meshes
            .iter()
            .flat_map(|m| m.uvs.clone().unwrap())
            .map(|[u, v]| [u, 1.0 - v])
            .collect();
        let near = |a: &[f32; 2], set: &[[f32; 2]]| {
            set.iter()
                .any(|b| (a[0] - b[0]).abs() <= 1e-6 && (a[1] - b[1]).abs() <= 1e-6)
        };
        assert!(!theirs.is_empty(), "{name}");
        assert!(ours.iter().all(|a| near(a, &theirs)), "{name}: ours");
        assert!(theirs.iter().all(|b| near(b, &ours)), "{name}: theirs");
    }
}
