//! The MD5 writer (`md5::Builder::from_asset`, through the write dispatch): the hand-worked
//! fixture and the shared weapons written again and read back with every frame where it
//! was, MD5 → IQM → MD5 within 1e-5 of the model's size, a DPM written as MD5 within the
//! converter's skinning error, and what it says it lost.

use skelmap::asset::{Asset, Place, WriteOptions, Written};
use skelmap::glam::Vec3;
use skelmap::md5::write::Builder;
use skelmap::md5::{Anim, MeshFile};
use skelmap::model::Pose;
use skelmap::model::convert;
use skelmap::pose::Interpolation;
use skelmap::{Format, Limits, Model, Parse};

use super::{ANIM, MESH, files, open_pair};
use crate::support::{corpus_dir, corpus_engines_dir};

/// `asset` written as `format` through the write dispatch.
fn written(format: Format, asset: &Asset) -> Written {
    skelmap::model::write(format, asset, &WriteOptions::default()).unwrap()
}

/// Every triangle corner of every frame of `model` (the bind pose when it has none), mesh
/// after mesh.
fn every_frame(model: &Model<'_>) -> Vec<Vec<[f32; 3]>> {
    let mut pose = Pose::default();
    let frames: Vec<Option<usize>> = match model.num_frames() {
        0 => vec![None],
        n => (0..n).map(Some).collect(),
    };
    frames
        .into_iter()
        .map(|f| {
            match f {
                Some(f) => model
                    .pose(f, f, 0.0, Interpolation::Nlerp, &mut pose)
                    .unwrap(),
                None => model.pose_bind(&mut pose),
            }
            // Triangle corners, so that vertices no triangle uses (an IQM's meshes share
            // one vertex array) do not count.
            let mut out = Vec::new();
            for mesh in model.meshes() {
                let n = mesh.num_vertices();
                let (mut p, mut q) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
                model.deform(mesh.index(), &pose, &mut p, &mut q).unwrap();
                for t in 0..mesh.num_triangles() {
                    out.extend(mesh.triangle(t).unwrap().map(|v| p[v as usize]));
                }
            }
            out
        })
        .collect()
}

/// The largest distance between the same vertex of two models over every frame, and the
/// first model's size (its bind-pose diagonal).
fn largest_distance(a: &Model<'_>, b: &Model<'_>) -> (f32, f32) {
    let (x, y) = (every_frame(a), every_frame(b));
    assert_eq!(x.len(), y.len(), "frames");
    let d = x
        .iter()
        .zip(&y)
        .flat_map(|(f, g)| {
            assert_eq!(f.len(), g.len(), "vertices");
            f.iter()
                .zip(g)
                .map(|(p, q)| Vec3::from(*p).distance(Vec3::from(*q)))
        })
        .fold(0.0, f32::max);
    let first = x.first().unwrap();
    let (lo, hi) = first.iter().fold((Vec3::MAX, Vec3::MIN), |(lo, hi), p| {
        (lo.min(Vec3::from(*p)), hi.max(Vec3::from(*p)))
    });
    (d, hi.distance(lo))
}

#[test]
fn the_builder_s_triangle_reads_back() {
    let b = Builder::triangle();
    let text = b.mesh_text();
    let file = MeshFile::parse(text.as_bytes()).unwrap();
    let mesh = file.mesh(0).unwrap();
    assert_eq!(
        (mesh.num_verts(), mesh.position(1)),
        (3, Some([1.0, 0.0, 0.0]))
    );
    // Written clockwise, read back counter-clockwise as it was given.
    assert!(text.contains("tri 0 2 1 0"));
    assert_eq!(
        skelmap::SkeletalMesh::triangles(&mesh).next(),
        Some([0, 1, 2])
    );
}

/// The fixture through an asset and back: the mesh file and its animation, every frame
/// where it was, the animation's components chosen by what varies (the arm's `z` and its
/// turn about `z`, the hand's `x`), and the losses said.
#[test]
fn the_fixture_is_written_again_with_every_frame_where_it_was() {
    let source_files = files(MESH, ANIM);
    let source = open_pair(&source_files, "m/fixture.md5mesh").unwrap();
    let w = written(Format::Md5, &convert::asset_of(&source).unwrap());
    assert_eq!(w.files.len(), 2);
    assert_eq!(w.files[1].place, Place::StemSuffix("-idle.md5anim".into()));
    assert!(
        w.notes.iter().any(|n| n.contains("no normals")),
        "{:?}",
        w.notes
    );
    let (out, main) = crate::support::written_folder(&w, "md5mesh");
    let model = Model::resolve(&&out, &main, &Limits::DEFAULT).unwrap();
    assert_eq!((model.format(), model.num_frames()), (Format::Md5, 2));
    let (d, size) = largest_distance(&source, &model);
    assert!(d <= 1e-6 * size, "{d} of {size}");
    let anim = Anim::parse(&w.files[1].bytes).unwrap();
    let bits: Vec<u32> = anim.hierarchy().iter().map(|h| h.anim_bits).collect();
    // Frame 1 moves the arm along z and turns it about z: those two; the hand's x.
    assert_eq!((bits, anim.num_animated_components()), (vec![0, 36, 1], 3));
}

/// Each shared weapon with its animations, written again: every frame within 1e-5 of its
/// size; and through IQM and back, the same.
#[test]
fn the_shared_weapons_survive_md5_and_iqm_round_trips() {
    let Some(dir) = corpus_engines_dir("md5") else {
        return;
    };
    for name in ["reweap_pistol", "reweap_flamer", "reweap_rocket_launcher"] {
        let source = Model::open(dir.join(format!("{name}.md5mesh"))).unwrap();
        let asset = convert::asset_of(&source).unwrap();
        let (out, main) = crate::support::written_folder(&written(Format::Md5, &asset), "md5mesh");
        let again = Model::resolve(&&out, &main, &Limits::DEFAULT).unwrap();
        let (d, size) = largest_distance(&source, &again);
        assert!(d <= 1e-5 * size, "{name} MD5 → MD5: {d} of {size}");
        let iqm = written(Format::Iqm, &asset);
        let iqm = Model::from_bytes(&iqm.files[0].bytes).unwrap();
        let (out, main) = crate::support::written_folder(
            &written(Format::Md5, &convert::asset_of(&iqm).unwrap()),
            "md5mesh",
        );
        let back = Model::resolve(&&out, &main, &Limits::DEFAULT).unwrap();
        let (d, size) = largest_distance(&source, &back);
        assert!(d <= 1e-5 * size, "{name} MD5 → IQM → MD5: {d} of {size}");
        println!("{name}: MD5 → MD5 and MD5 → IQM → MD5 within {d:.3e} of {size:.3e}");
    }
}

/// A DPM (golem: 63 bones, 703 frames in 21 clips, three of them named `dead01`) written as
/// MD5: a file a clip (the repeated names numbered, with a note), and the first, middle and
/// last frame of every clip within 1e-5 of the model's size of the asset's own.
#[test]
fn a_dpm_is_written_as_md5_with_every_clip() {
    let Some(dir) = corpus_dir("dpm") else {
        return;
    };
    let source = Model::open(dir.join("xon_monsters_golem.dpm")).unwrap();
    let asset = convert::asset_of(&source).unwrap();
    let w = written(Format::Md5, &asset);
    assert_eq!(w.files.len(), 1 + asset.clips.len());
    // Golem's three `dead01` runs are clips of their own names (`Model::clips`), so no
    // animation file is renamed.
    let names: Vec<&str> = asset.clips.iter().map(|c| c.name.as_str()).collect();
    assert!(names.contains(&"dead01_3"), "{names:?}");
    assert!(
        !w.notes.iter().any(|n| n.contains("dead01")),
        "{:?}",
        w.notes
    );
    let (out, main) = crate::support::written_folder(&w, "md5mesh");
    let model = Model::resolve(&&out, &main, &Limits::DEFAULT).unwrap();
    assert!(
        model.diagnostics().is_empty(),
        "{:?}",
        model.diagnostics().warnings()
    );
    assert_eq!(model.num_frames(), asset.num_frames());
    let size = {
        let p = &asset.posed(None).unwrap()[0].positions;
        let (lo, hi) = p.iter().fold((Vec3::MAX, Vec3::MIN), |(lo, hi), v| {
            (lo.min(Vec3::from(*v)), hi.max(Vec3::from(*v)))
        });
        hi.distance(lo)
    };
    let (mut seen, mut worst, mut first) = (Vec::<String>::new(), 0.0f32, 0usize);
    let mut pose = Pose::default();
    for clip in &asset.clips {
        let repeats = seen.iter().filter(|n| **n == clip.name).count();
        seen.push(clip.name.clone());
        let name = match repeats {
            0 => clip.name.clone(),
            n => format!("{}_{}", clip.name, n + 1),
        };
        let ours = model.clip(&name).unwrap_or_else(|| panic!("clip {name}"));
        assert_eq!(ours.count as usize, clip.len(), "{name}");
        for k in [0, clip.len() / 2, clip.len() - 1] {
            let theirs = asset.posed(Some(first + k)).unwrap();
            let f = ours.first as usize + k;
            model
                .pose(f, f, 0.0, Interpolation::Nlerp, &mut pose)
                .unwrap();
            for (m, posed) in theirs.iter().enumerate() {
                let n = posed.positions.len();
                let (mut p, mut q) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
                model.deform(m, &pose, &mut p, &mut q).unwrap();
                for (a, b) in p.iter().zip(&posed.positions) {
                    worst = worst.max(Vec3::from(*a).distance(Vec3::from(*b)));
                }
            }
        }
        first += clip.len();
    }
    assert!(worst <= 1e-5 * size, "{worst} of {size}");
    println!(
        "golem.dpm → MD5: {} clips, {} frames, within {worst:.3e} of {size:.3e}",
        asset.clips.len(),
        model.num_frames()
    );
}

/// The fixture with vertex 0 bound to no joint and vertex 3 half so (as glTF import gives
/// zero-weight vertices): written with a joint added at the origin that no frame moves, read
/// back with every frame where the asset's own skinning puts it; vertex 0 never moves.
#[test]
fn vertices_bound_to_no_joint_stay_where_they_are() {
    let source_files = files(MESH, ANIM);
    let source = open_pair(&source_files, "m/fixture.md5mesh").unwrap();
    let mut asset = convert::asset_of(&source).unwrap();
    let mut loose = skelmap::asset::Influences::default();
    let mesh = &mut asset.meshes[0];
    for v in 0..mesh.positions.len() {
        let list: Vec<(u16, f32)> = match v {
            0 => vec![(skelmap::asset::UNBOUND, 1.0)],
            3 => vec![(1, 0.5), (skelmap::asset::UNBOUND, 0.5)],
            _ => mesh.influences.of(v).to_vec(),
        };
        loose.push(list.into_iter(), skelmap::asset::UNBOUND);
    }
    mesh.influences = loose;
    let w = written(Format::Md5, &asset);
    assert!(
        w.notes
            .iter()
            .any(|n| n.starts_with("2 vertices bound to no joint")),
        "{:?}",
        w.notes
    );
    let (out, main) = crate::support::written_folder(&w, "md5mesh");
    let model = Model::resolve(&&out, &main, &Limits::DEFAULT).unwrap();
    assert_eq!((model.num_bones(), model.num_frames()), (4, 2));
    let mut pose = Pose::default();
    for f in 0..2 {
        model
            .pose(f, f, 0.0, Interpolation::Nlerp, &mut pose)
            .unwrap();
        let mut p = vec![[0.0; 3]; 4];
        let mut q = p.clone();
        model.deform(0, &pose, &mut p, &mut q).unwrap();
        let theirs = &asset.posed(Some(f)).unwrap()[0].positions;
        for (v, (a, b)) in p.iter().zip(theirs).enumerate() {
            assert!(
                Vec3::from(*a).distance(Vec3::from(*b)) < 1e-6,
                "frame {f} vertex {v}: {a:?} {b:?}"
            );
        }
        assert_eq!(p[0], asset.meshes[0].positions[0], "frame {f}");
    }
}

/// The fixture with the Quake II remaster's `.md5scale` (the arm's own vertices halved in
/// frame 1, the hand's tripled in frame 0): the asset gives each scaled joint a leaf joint
/// that holds its influences and scales by the skin scale, at the asset's pose (frame 1, so
/// the arm's leaf is bound at ½) and in every key; written as IQM (which keeps scale keys)
/// every frame lands where the source puts it, and written as MD5 the leaves' scales go into
/// the animation's `.md5scale`, every frame again where it was.
#[test]
fn skin_scales_survive_iqm_and_md5_as_leaf_joints() {
    // Vertex 1's weights name one point at the asset's pose (frame 1, the arm at (0, 0, 2)
    // unturned and its skin halved): `(0.5, 0, 2)`, so that a format storing one bind-space
    // point a vertex holds it exactly; and shares that IQM's 8-bit weights hold exactly.
    let mesh = MESH
        .replace("weight 1 0 0.5 ( 0 1 0 )", "weight 1 0 0.6 ( 0.5 0 2 )")
        .replace("weight 2 1 0.5 ( 1 0 0 )", "weight 2 1 0.4 ( 1 0 0 )");
    let mut source_files = files(&mesh, ANIM);
    source_files.insert(
        "m/fixture-idle.md5scale".to_string(),
        br#"{ "arm": { "1": 0.5 }, "hand": { "0": 3 } }"#.to_vec(),
    );
    let source = open_pair(&source_files, "m/fixture.md5mesh").unwrap();
    let options = skelmap::asset::Options {
        frame: Some(1),
        ..Default::default()
    };
    let asset = source.to_asset(&options).unwrap();
    let skeleton = asset.skeleton.as_ref().unwrap();
    let names: Vec<&str> = skeleton.joints.iter().map(|j| j.name.as_str()).collect();
    assert_eq!(names, ["root", "arm", "hand", "arm_skin", "hand_skin"]);
    let (arm, hand) = (&skeleton.joints[3], &skeleton.joints[4]);
    assert_eq!((arm.parent, hand.parent), (Some(1), Some(2)));
    assert_eq!((arm.scale, hand.scale), (Vec3::splat(0.5), Vec3::ONE));
    // Every influence on the arm or the hand now names its leaf.
    let joints: Vec<u16> = asset.meshes[0]
        .influences
        .weights
        .iter()
        .map(|w| w.0)
        .collect();
    assert!(!joints.iter().any(|&j| j == 1 || j == 2), "{joints:?}");
    let skelmap::asset::ClipKeys::Joints(keys) = &asset.clips[0].keys else {
        panic!("joint keys");
    };
    let leaf_scales: Vec<[f32; 2]> = keys.iter().map(|k| [k[3].scale.x, k[4].scale.x]).collect();
    assert_eq!(leaf_scales, [[1.0, 3.0], [0.5, 1.0]]);

    let w = written(Format::Iqm, &asset);
    let (out, main) = crate::support::written_folder(&w, "iqm");
    let model = Model::resolve(&&out, &main, &Limits::DEFAULT).unwrap();
    let (d, size) = largest_distance(&source, &model);
    assert!(d <= 1e-5 * size, "IQM: {d} of {size}");

    let w = written(Format::Md5, &asset);
    let places: Vec<&Place> = w.files.iter().map(|f| &f.place).collect();
    assert_eq!(
        places,
        [
            &Place::Main,
            &Place::StemSuffix("-idle.md5anim".into()),
            &Place::StemSuffix("-idle.md5scale".into()),
        ]
    );
    assert_eq!(
        String::from_utf8_lossy(&w.files[2].bytes),
        r#"{"arm_skin":{"1":0.5},"hand_skin":{"0":3.0}}"#
    );
    assert!(
        !w.notes.iter().any(|n| n.contains("scale")),
        "{:?}",
        w.notes
    );
    let (out, main) = crate::support::written_folder(&w, "md5mesh");
    let model = Model::resolve(&&out, &main, &Limits::DEFAULT).unwrap();
    assert!(model.diagnostics().is_empty());
    let (d, size) = largest_distance(&source, &model);
    assert!(d <= 1e-5 * size, "MD5: {d} of {size}");
}

/// A skin scale so small that its inverse overflows (a subnormal `1e-40`): at the pose
/// that has it, the joint gets no leaf (nothing could undo the collapse), and the MD5
/// written from that asset prints finite numbers only; at the bind pose the leaf is made
/// (bound at 1) and its key keeps the scale.
#[test]
fn a_subnormal_skin_scale_makes_no_leaf_where_it_is_the_pose() {
    let mut source_files = files(MESH, ANIM);
    source_files.insert(
        "m/fixture-idle.md5scale".to_string(),
        br#"{ "arm": { "1": 1e-40 } }"#.to_vec(),
    );
    let source = open_pair(&source_files, "m/fixture.md5mesh").unwrap();
    let at = |frame| {
        let options = skelmap::asset::Options {
            frame,
            ..Default::default()
        };
        source.to_asset(&options).unwrap()
    };
    let names = |asset: &Asset| -> Vec<String> {
        let skeleton = asset.skeleton.as_ref().unwrap();
        skeleton.joints.iter().map(|j| j.name.clone()).collect()
    };
    let collapsed = at(Some(1));
    assert_eq!(names(&collapsed), ["root", "arm", "hand"]);
    let w = written(Format::Md5, &collapsed);
    for file in &w.files {
        let text = String::from_utf8_lossy(&file.bytes).to_lowercase();
        assert!(!text.contains("inf") && !text.contains("nan"), "{text}");
    }
    let bind = at(None);
    assert_eq!(names(&bind), ["root", "arm", "hand", "arm_skin"]);
    let skelmap::asset::ClipKeys::Joints(keys) = &bind.clips[0].keys else {
        panic!("joint keys");
    };
    assert_eq!(keys[1][3].scale, Vec3::splat(1e-40));
}
