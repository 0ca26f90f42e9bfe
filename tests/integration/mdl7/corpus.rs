//! Every shared MDL7 (`corpus-next/mdl7`) against its MANIFEST row and the assimp oracle:
//! exact counts; frame-0 positions and texture coordinates of the boneless files equal
//! assimp's as sets; the player's bind pose gives its stored vertices, its joints stay on
//! their parents in every frame, and every frame's compact and prepared results equal the
//! scalar reference.

use skelmap::Model;
use skelmap::glam::{Affine3A, Vec3};
use skelmap::model::Pose;
use skelmap::pose::Interpolation;
use skelmap::skin::{SkinMatrices, VertexOrder};
use skelmap::{Diagnostics, Limits, Parse};

use skelmap::core::mdl7::Mdl7;

use crate::support::{corpus_next_dir, manifest_next};

#[test]
fn every_shared_mdl7_matches_the_manifest() {
    let Some(dir) = corpus_next_dir("mdl7") else {
        return;
    };
    let rows = manifest_next("mdl7");
    assert_eq!(rows.len(), 4);
    for row in &rows {
        let name = &row.file;
        let bytes = std::fs::read(dir.join(name)).unwrap();
        assert_eq!(bytes.len() as u64, row.size, "{name}");
        let mut diag = Diagnostics::new();
        let m = Mdl7::parse_with(&bytes, &Limits::default(), &mut diag)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(diag.is_empty(), "{name}: {:?}", diag.warnings());
        let h = m.header();
        assert_eq!(u64::from(h.version.get()), row.count("version"), "{name}");
        assert_eq!(m.bones().len() as u64, row.count("bones"), "{name}");
        assert_eq!(m.groups().len() as u64, row.count("groups"), "{name}");
        assert_eq!(
            u64::from(h.data_size.get()),
            row.count("data_size"),
            "{name}"
        );
        let stc = row.field("tri/vtx stc").unwrap();
        assert_eq!(
            stc,
            format!(
                "{}/{}",
                h.triangle_stc_size.get(),
                h.mainvertex_stc_size.get()
            ),
            "{name}"
        );
        let g = &m.groups()[0];
        assert_eq!(g.triangles().len() as u64, row.count("tris"), "{name}");
        assert_eq!(g.vertices().len() as u64, row.count("verts"), "{name}");
        assert_eq!(g.frames().len() as u64, row.count("frames(max)"), "{name}");
        // The skins' types: `[0x7×2]`.
        let skins = row.field("skins").unwrap();
        let first = m.skins()[0].type_code();
        assert_eq!(skins, format!("[{first:#x}×{}]", m.skins().len()), "{name}");
        // Read from the first to the last byte.
        assert_eq!(u64::from(h.data_size.get()), bytes.len() as u64, "{name}");
        let model = Model::from_bytes(&bytes).unwrap();
        skelmap_testkit::exercise::model(&model);
    }
}

/// The `v` and `vt` lines of assimp's OBJ of `name`.
fn oracle(dir: &std::path::Path, name: &str) -> (Vec<Vec3>, Vec<[f32; 2]>) {
    let obj = std::fs::read_to_string(dir.join("../oracle").join(format!("{name}.obj"))).unwrap();
    let numbers = |l: &str| -> Vec<f32> {
        l.split_whitespace()
            .skip(1)
            .map(|x| x.parse().unwrap())
            .collect()
    };
    let v = obj
        .lines()
        .filter(|l| l.starts_with("v "))
        .map(|l| Vec3::from_slice(&numbers(l)[..3]))
        .collect();
    let vt = obj
        .lines()
        .filter(|l| l.starts_with("vt "))
        .map(|l| {
            let n = numbers(l);
            [n[0], n[1]]
        })
        .collect();
    (v, vt)
}

#[test]
fn boneless_frame0_positions_and_texcoords_are_assimps() {
    let Some(dir) = corpus_next_dir("mdl7") else {
        return;
    };
    let mut compared = Vec::new();
    for row in manifest_next("mdl7") {
        let name = &row.file;
        if row.count("bones") > 0 {
            continue; // assimp 5.2.5 crashes on it: no oracle.
        }
        let bytes = std::fs::read(dir.join(name)).unwrap();
        let model = Model::from_bytes(&bytes).unwrap();
        let mesh = model.mesh(0).unwrap();
        let n = mesh.num_vertices();
        let mut pose = Pose::default();
        model
            .pose(0, 0, 0.0, Interpolation::Nlerp, &mut pose)
            .unwrap();
        let (mut p, mut q) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
        model.deform(0, &pose, &mut p, &mut q).unwrap();
        let (v, vt) = oracle(&dir, name);
        if v.is_empty() {
            // assimp loads no mesh from the cube; we do.
            assert_eq!((name.as_str(), n), ("retroack_cube.mdl", 8));
            continue;
        }
        // assimp: (x, z, −y) of ours.
        let ours: Vec<Vec3> = p.iter().map(|a| Vec3::new(a[0], a[2], -a[1])).collect();
        let near = |a: &Vec3, set: &[Vec3]| set.iter().any(|b| (*a - *b).length() <= 1e-3);
        assert!(
            v.iter().all(|a| near(a, &ours)),
            "{name}: an assimp vertex we lack"
        );
        assert!(
            ours.iter().all(|a| near(a, &v)),
            "{name}: a vertex assimp lacks"
        );
        // assimp: (u, 1 − v) of ours.
        let corners: Vec<[f32; 2]> = (0..mesh.num_triangles())
            .filter_map(|t| mesh.corner_texcoords(t))
            .flatten()
            .map(|[u, v]| [u, 1.0 - v])
            .collect();
        let near_uv = |a: &[f32; 2]| {
            corners
                .iter()
                .any(|b| (a[0] - b[0]).abs() <= 1e-3 && (a[1] - b[1]).abs() <= 1e-3)
        };
        assert!(vt.iter().all(near_uv), "{name}: an assimp UV we lack");
        compared.push((name.clone(), v.len(), vt.len()));
    }
    if corpus_next_dir("mdl7").is_some() {
        compared.sort();
        assert_eq!(
            compared,
            [
                (
                    "assimp_sphere_diffpinkbluespec_alpha90.mdl".to_string(),
                    62,
                    0
                ),
                ("libgs_mdl7-ball.mdl".to_string(), 114, 480),
            ]
        );
    }
}

fn diagonal(points: &[[f32; 3]]) -> f32 {
    let (lo, hi) = points.iter().fold(
        (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)),
        |(lo, hi), p| (lo.min(Vec3::from(*p)), hi.max(Vec3::from(*p))),
    );
    (hi - lo).length()
}

#[test]
fn the_players_bind_pose_is_its_stored_mesh_and_its_joints_hold() {
    let Some(dir) = corpus_next_dir("mdl7") else {
        return;
    };
    let bytes = std::fs::read(dir.join("libgs_mdl7-player.mdl")).unwrap();
    let model = Model::from_bytes(&bytes).unwrap();
    let view = model.as_mdl7().unwrap();
    let group = &view.groups()[0];
    let n = model.mesh(0).unwrap().num_vertices();
    let mut pose = Pose::default();
    let (mut p, mut q) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
    model.pose_bind(&mut pose);
    model.deform(0, &pose, &mut p, &mut q).unwrap();
    let size = diagonal(&p);
    for (v, out) in p.iter().enumerate() {
        let stored = group.vertices().get(v).unwrap();
        let stored = Vec3::new(stored.x.get(), stored.y.get(), stored.z.get());
        let d = (Vec3::from(*out) - stored).length();
        assert!(d <= 1e-6 * size, "vertex {v} off by {d}");
    }
    // Frame 0 is a pose: the walk's first, up to 5.9 units from the stored mesh.
    model
        .pose(0, 0, 0.0, Interpolation::Nlerp, &mut pose)
        .unwrap();
    let (mut f0, mut q0) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
    model.deform(0, &pose, &mut f0, &mut q0).unwrap();
    let moved = p
        .iter()
        .zip(&f0)
        .map(|(a, b)| (Vec3::from(*a) - Vec3::from(*b)).length())
        .fold(0.0f32, f32::max);
    assert!(moved > 1.0, "frame 0 moves the mesh by {moved}");
    // Every bone's bind position moves with its parent (motions compose), but for the root
    // and Joint_3_5, which frames translate.
    let bind = model.bind_palette().world.clone();
    let parents: Vec<i32> = (0..model.num_bones())
        .map(|b| {
            view.bones().get(b).map_or(-1, |r| {
                let p = r.parent_index.get();
                if p == 0xFFFF { -1 } else { i32::from(p) }
            })
        })
        .collect();
    let names: Vec<&[u8]> = model.bones().map(|b| b.name()).collect();
    for f in 0..model.num_frames() {
        model
            .pose(f, f, 0.0, Interpolation::Nlerp, &mut pose)
            .unwrap();
        let world = &pose.palette().world;
        let motion = |b: usize| -> Affine3A { world[b] * bind[b].inverse() };
        for (b, &parent) in parents.iter().enumerate() {
            if parent < 0 || names[b] == b"Joint_3_5" {
                continue;
            }
            let pivot = view.bind_position(b).unwrap();
            let own = motion(b).transform_point3a(pivot);
            let by_parent = motion(parent as usize).transform_point3a(pivot);
            assert!(
                (own - by_parent).length() < 1e-3,
                "frame {f}: bone {b} leaves its parent by {}",
                (own - by_parent).length()
            );
        }
    }
}

#[test]
fn every_player_frame_skins_alike_with_the_compact_and_prepared_kernels() {
    let Some(dir) = corpus_next_dir("mdl7") else {
        return;
    };
    let bytes = std::fs::read(dir.join("libgs_mdl7-player.mdl")).unwrap();
    let model = Model::from_bytes(&bytes).unwrap();
    let n = model.mesh(0).unwrap().num_vertices();
    let compact = model.compact().unwrap();
    let prepared = model.prepare().unwrap();
    let mut pose = Pose::default();
    let mut matrices = SkinMatrices::default();
    let (mut exact, mut normals) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
    let (mut fast, mut fast_normals) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
    let (mut worst_compact, mut worst_prepared) = (0.0f32, 0.0f32);
    for f in 0..model.num_frames() {
        model
            .pose(f, f, 0.0, Interpolation::Nlerp, &mut pose)
            .unwrap();
        model.deform(0, &pose, &mut exact, &mut normals).unwrap();
        let size = diagonal(&exact);
        for level in crate::support::levels() {
            compact.matrices(&pose, &mut matrices).unwrap();
            compact
                .skin(0, &matrices, level, &mut fast, &mut fast_normals)
                .unwrap();
            for (a, b) in exact.iter().zip(&fast) {
                let d = (Vec3::from(*a) - Vec3::from(*b)).length() / size;
                worst_compact = worst_compact.max(d);
                assert!(
                    d <= 1e-5,
                    "frame {f} {level:?}: compact off by {d} of the size"
                );
            }
            prepared
                .skin(
                    0,
                    &pose,
                    level,
                    VertexOrder::Original,
                    &mut fast,
                    &mut fast_normals,
                )
                .unwrap();
            for (a, b) in exact.iter().zip(&fast) {
                let d = (Vec3::from(*a) - Vec3::from(*b)).length() / size;
                worst_prepared = worst_prepared.max(d);
                assert!(
                    d <= 1e-5,
                    "frame {f} {level:?}: prepared off by {d} of the size"
                );
            }
        }
    }
    eprintln!(
        "player: compact within {worst_compact:e}, prepared within {worst_prepared:e} of the \
         size of the scalar skinning, over 40 frames"
    );
}
