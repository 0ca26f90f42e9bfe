//! `Model`: every format behind one API. Every corpus file opens as a model whose counts are
//! its view's; every skeletal model's prepared kernel agrees with its zero-copy deform on
//! every frame checked; companions (SKM skeleton, SL animation, `.framegroups`) are found
//! through the resolver. `convert.rs`: conversions to IQM and DPM, measured. `still.rs`: the
//! one-frame path. `asset.rs`: tags that name bones in `Model::to_asset`. `write.rs`: the
//! write dispatch's refusals.

mod assembly;
mod asset;
mod attach;
mod convert;
mod gpu;
mod sampler;
mod still;
mod write;

use std::collections::HashMap;

use skelmap::glam::Vec3;
use skelmap::model::{ClipOrigin, Companion, DeformError, Pose, Records, TexcoordLayout};
use skelmap::pose::Interpolation;
use skelmap::skin::{SimdLevel, VertexOrder};
use skelmap::{Error, Format, Limits, Model, Source, WarningKind};

use crate::support::{corpus_files, tube, tube_skm};

/// A fresh folder for one test, removed with its files when the returned value drops (also
/// when the test panics).
fn temp_dir(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("skelmap-model-{name}-"))
        .tempdir()
        .unwrap()
}

/// The largest coordinate of `points`, at least 1: the scale tolerances are relative to.
fn size(points: &[[f32; 3]]) -> f32 {
    points.iter().flatten().fold(1.0f32, |m, v| m.max(v.abs()))
}

/// Deforms every mesh of `model` with `pose` and skins it with the prepared kernel at every
/// supported level; the two agree within 1e-5 of the model's size. Returns the deformed
/// positions of mesh 0.
fn prepared_agrees_with_deform(model: &Model<'_>, pose: &Pose, what: &str) -> Vec<[f32; 3]> {
    let prepared = model.prepare().unwrap();
    let mut first = Vec::new();
    for mesh in model.meshes() {
        let n = mesh.num_vertices();
        let (mut p, mut q) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
        model.deform(mesh.index(), pose, &mut p, &mut q).unwrap();
        let scale = size(&p);
        for level in SimdLevel::ALL.into_iter().filter(|l| l.is_supported()) {
            let (mut r, mut s) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
            prepared
                .skin(
                    mesh.index(),
                    pose,
                    level,
                    VertexOrder::Original,
                    &mut r,
                    &mut s,
                )
                .unwrap();
            for (v, (a, b)) in p.iter().zip(&r).enumerate() {
                let d = (Vec3::from(*a) - Vec3::from(*b)).abs().max_element();
                assert!(
                    d <= 1e-5 * scale,
                    "{what} {level} vertex {v}: {a:?} vs {b:?}"
                );
            }
        }
        if mesh.index() == 0 {
            first = p;
        }
    }
    first
}

#[test]
fn every_corpus_file_opens_as_a_model_with_its_views_counts() {
    let mut opened = 0;
    for folder in ["dpm", "mdl", "hmp", "ms3d", "mdl_quake"] {
        for path in corpus_files(folder) {
            let model = Model::open(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let name = path.display();
            assert_eq!(model.size(), std::fs::metadata(&path).unwrap().len());
            match model.format() {
                Format::Dpm => {
                    let m = model.as_dpm().unwrap();
                    assert_eq!(model.num_vertices(), m.num_vertices(), "{name}");
                    assert_eq!(model.num_triangles(), m.num_triangles(), "{name}");
                    assert_eq!(model.num_bones(), m.num_bones(), "{name}");
                    assert_eq!(model.num_frames(), m.num_frames(), "{name}");
                    assert_eq!(model.num_meshes(), m.num_meshes(), "{name}");
                    assert_eq!(model.clip_origin(), ClipOrigin::FrameNames);
                }
                Format::Ms3d => {
                    let m = model.as_ms3d().unwrap();
                    assert_eq!(model.num_vertices(), m.vertices().len(), "{name}");
                    assert_eq!(model.num_bones(), m.joints().len(), "{name}");
                    let mesh = model.mesh(0).unwrap();
                    assert_eq!(mesh.submeshes().len(), m.groups().len(), "{name}");
                    assert_eq!(mesh.texcoord_layout(), TexcoordLayout::PerCorner);
                    assert!(mesh.has_corner_normals());
                }
                // An MDL2 (Quake's layout) and a Quake model: one morph mesh, groups as clips.
                Format::Mdl | Format::Quake if model.as_mdl().is_none() => {
                    let q = model
                        .as_quake()
                        .unwrap_or_else(|| panic!("{name}: neither an MDL nor a Quake view"));
                    assert_eq!(model.num_vertices(), q.num_vertices(), "{name}");
                    assert_eq!(model.num_frames(), q.frames().len(), "{name}");
                    assert_eq!(model.skins().len(), q.skins().len(), "{name}");
                    assert_eq!(model.clip_origin(), ClipOrigin::FrameGroups, "{name}");
                    let mesh = model.mesh(0).unwrap();
                    assert_eq!(mesh.texcoord_layout(), TexcoordLayout::PerCorner);
                    assert!(matches!(model.prepare(), Err(DeformError::NotSkeletal(_))));
                }
                Format::Mdl => {
                    let m = model.as_mdl().unwrap();
                    assert_eq!(model.num_vertices(), m.num_vertices(), "{name}");
                    assert_eq!(model.num_frames(), m.frames().len(), "{name}");
                    assert_eq!(
                        (model.num_bones(), model.skins().len()),
                        (0, m.skins().len())
                    );
                    assert!(matches!(model.prepare(), Err(DeformError::NotSkeletal(_))));
                }
                Format::Hmp => {
                    let grid = model.terrain().unwrap();
                    assert_eq!(
                        model.num_vertices(),
                        grid.columns as usize * grid.rows as usize
                    );
                }
                other => panic!("{name}: unexpected {other}"),
            }
            crate::exercise::model(&model);
            opened += 1;
        }
    }
    eprintln!("{opened} corpus models opened");
}

/// DPMs at frames 0, 1, the middle and the last (`kernels.rs` holds every frame of every DPM
/// and SKM to the scalar reference); MS3Ds, whose reference is the bind-pose blend `deform`
/// runs, at every frame of the timeline.
#[test]
fn every_skeletal_corpus_model_prepares_to_its_deform() {
    for path in corpus_files("dpm").into_iter().chain(corpus_files("ms3d")) {
        let model = Model::open(&path).unwrap();
        let frames = model.num_frames();
        let mut pose = Pose::default();
        let picks: Vec<usize> = if model.format() == Format::Ms3d {
            (0..frames).collect()
        } else {
            vec![0, 1.min(frames - 1), frames / 2, frames - 1]
        };
        for f in picks {
            model
                .pose(f, f, 0.0, Interpolation::Nlerp, &mut pose)
                .unwrap();
            prepared_agrees_with_deform(&model, &pose, &format!("{} frame {f}", path.display()));
        }
    }
}

/// An MS3D's converted records skin, by its rest pose, to the positions the file stores,
/// with the scalar, stream and prepared kernels alike.
#[test]
fn ms3d_records_at_rest_reproduce_the_stored_vertices_with_every_kernel() {
    for path in corpus_files("ms3d") {
        let model = Model::open(&path).unwrap();
        let m = model.as_ms3d().unwrap();
        let mut pose = Pose::default();
        model.pose_bind(&mut pose);
        let records = model.weighted_records().unwrap().unwrap();
        let records = Records::from(records.mesh());
        let n = records.num_vertices();
        assert_eq!(n, m.vertices().len());
        let stored: Vec<[f32; 3]> = (0..n).map(|i| m.position(i).unwrap()).collect();
        let scale = size(&stored);
        let (mut p, mut q) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
        records
            .skin_scalar(pose.record_palette(), &mut p, &mut q)
            .unwrap();
        let worst = |got: &[[f32; 3]]| {
            got.iter()
                .zip(&stored)
                .map(|(a, b)| (Vec3::from(*a) - Vec3::from(*b)).abs().max_element())
                .fold(0.0f32, f32::max)
        };
        assert!(
            worst(&p) <= 1e-5 * scale,
            "{}: {}",
            path.display(),
            worst(&p)
        );
        records
            .skin_stream(pose.matrices(), SimdLevel::detect(), &mut p, &mut q)
            .unwrap();
        assert!(worst(&p) <= 1e-5 * scale, "{}", path.display());
        let deformed = prepared_agrees_with_deform(&model, &pose, &path.display().to_string());
        assert!(worst(&deformed) <= 1e-5 * scale, "{}", path.display());
    }
}

#[test]
fn an_skm_opens_with_its_skeleton_from_disk_and_from_memory() {
    let dir = temp_dir("skm");
    let dir = dir.path();
    let ((skm, _), (skp, _)) = tube_skm();
    std::fs::write(dir.join("tube.skm"), &skm).unwrap();
    std::fs::write(dir.join("tube.skp"), &skp).unwrap();
    let model = Model::open(dir.join("tube.skm")).unwrap();
    assert_eq!(model.format(), Format::Skm);
    assert_eq!(
        model.companions().collect::<Vec<_>>(),
        [(Companion::Skeleton, "tube.skp")]
    );
    assert_eq!((model.num_bones(), model.num_frames()), (4, 9));
    let memory = Model::from_skm(
        Source::from_bytes(&skm),
        Source::from_bytes(&skp),
        &Limits::DEFAULT,
    )
    .unwrap();
    assert_eq!(memory.num_vertices(), model.num_vertices());
    // On its own an SKM is no model.
    let e = Model::from_bytes(&skm).unwrap_err();
    assert!(matches!(e, Error::Resolve { .. }), "{e}");
    std::fs::remove_file(dir.join("tube.skp")).unwrap();
    let e = Model::open(dir.join("tube.skm")).unwrap_err();
    assert!(
        matches!(&e, Error::Resolve { path, .. } if path == "tube.skp"),
        "{e}"
    );
}

#[test]
fn a_relative_model_path_works_with_a_root_that_contains_it() {
    let dir = temp_dir("root");
    let dir = dir.path();
    std::fs::create_dir_all(dir.join("models/tube")).unwrap();
    let ((skm, _), (skp, _)) = tube_skm();
    std::fs::write(dir.join("models/tube/tube.skm"), &skm).unwrap();
    std::fs::write(dir.join("models/shared.skp"), &skp).unwrap();
    std::fs::write(
        dir.join("models/tube/tube.cfg"),
        "import models/shared.skm\n",
    )
    .unwrap();
    let options = skelmap::model::OpenOptions {
        root: Some(dir.to_path_buf()),
        ..Default::default()
    };
    // `./` and the root's own spelling do not matter.
    let model = Model::open_with(dir.join("./models/tube/tube.skm"), &options).unwrap();
    assert_eq!(model.path(), "models/tube/tube.skm");
    assert_eq!(
        model.companions().next(),
        Some((Companion::Skeleton, "models/shared.skp"))
    );
    let e = Model::open_with(std::env::temp_dir().join("x.skm"), &options).unwrap_err();
    assert!(matches!(e, Error::Resolve { .. }), "{e}");
}

/// Clips from frame names only when some frame has a name: an MDL whose frames are all
/// unnamed has no clips, one with names has a clip per stem.
#[test]
fn frames_without_names_make_no_clips() {
    let mut builder = crate::support::gamestudio::quad();
    let bytes = builder.write();
    let model = Model::from_bytes(&bytes).unwrap();
    assert_eq!(model.clip_origin(), ClipOrigin::FrameNames);
    let clips: Vec<(&str, u32, u32)> = model
        .clips()
        .iter()
        .map(|c| (c.name.as_str(), c.first, c.count))
        .collect();
    assert_eq!(clips, [("stand", 0, 1), ("jump", 1, 1)]);
    let names: Vec<&[u8]> = model.frame_names().collect();
    assert_eq!(names, [b"stand".as_slice(), b"jump"]);

    for frame in &mut builder.frames {
        frame.name.clear();
    }
    let bytes = builder.write();
    let model = Model::from_bytes(&bytes).unwrap();
    assert_eq!(model.num_frames(), 2);
    assert_eq!(model.clip_origin(), ClipOrigin::None);
    assert!(model.clips().is_empty());
    assert!(model.frame_names().all(<[u8]>::is_empty));
    assert_eq!(model.frame_names().len(), 2);
}

#[test]
fn a_framegroups_sidecar_gives_the_clips() {
    let dir = temp_dir("framegroups");
    let dir = dir.path();
    let (bytes, _) = tube();
    let path = dir.join("tube.dpm");
    std::fs::write(&path, &bytes).unwrap();
    assert_eq!(Model::open(&path).unwrap().clips().len(), 2);
    std::fs::write(
        dir.join("tube.dpm.framegroups"),
        "0 1 10 0 // rest\n1 8 20 1 // swing\n",
    )
    .unwrap();
    let model = Model::open(&path).unwrap();
    assert_eq!(model.clip_origin(), ClipOrigin::FrameGroupsFile);
    let clips: Vec<(&str, u32, u32, f32)> = model
        .clips()
        .iter()
        .map(|c| (c.name.as_str(), c.first, c.count, c.fps))
        .collect();
    assert_eq!(clips, [("rest", 0, 1, 10.0), ("swing", 1, 8, 20.0)]);
    assert_eq!(model.clip("swing").map(|c| c.first), Some(1));
    // A sidecar past the model's frames is ignored with a warning naming it; the model
    // opens with its own clips.
    std::fs::write(
        dir.join("tube.dpm.framegroups"),
        "0 1 10 0 // rest\n\n1 20 10 0\n",
    )
    .unwrap();
    let model = Model::open(&path).unwrap();
    assert_eq!(model.clip_origin(), ClipOrigin::FrameNames);
    assert_eq!(model.clips().len(), 2);
    let warning = model
        .diagnostics()
        .get(WarningKind::CompanionIgnored)
        .unwrap();
    assert_eq!(
        (warning.what, warning.offset, warning.count),
        ("framegroups line", 18, 1)
    );
    assert_eq!(
        warning.detail,
        "tube.dpm.framegroups, line 3: index 20 is out of range: there are 9; the model's own \
         clips are used"
    );
    assert_eq!(
        model.left_out().collect::<Vec<_>>(),
        [(Companion::FrameGroups, "tube.dpm.framegroups")]
    );
    // A problem that names its line is not given the line twice.
    std::fs::write(dir.join("tube.dpm.framegroups"), "0\n").unwrap();
    let model = Model::open(&path).unwrap();
    let warning = model
        .diagnostics()
        .get(WarningKind::CompanionIgnored)
        .unwrap();
    assert_eq!(
        warning.detail,
        "tube.dpm.framegroups: line 1 has 1 fields; 2 expected; the model's own clips are used"
    );
}

/// Half-Life sequences, MD5 animations and ET's animation groups are their models' clips: no
/// engine reads a `.framegroups` file for them, and one beside them is neither looked for nor
/// a companion, while an MD3 beside it takes its clips from it.
#[test]
fn formats_with_clips_of_their_own_do_not_look_for_framegroups() {
    let dir = temp_dir("own-clips");
    let dir = dir.path();
    let md5 = skelmap::md5::Builder::triangle();
    let (mdm, mdx) = skelmap::mdm::Builder::triangle().write();
    let files: [(&str, Vec<u8>); 5] = [
        ("man.mdl", skelmap::hl1::Builder::example().write().unwrap()),
        ("tri.md5mesh", md5.mesh_text().into_bytes()),
        ("body.mdm", mdm),
        ("body.mdx", mdx),
        ("tri.md3", skelmap::md3::Builder::triangle().write()),
    ];
    for (name, bytes) in &files {
        std::fs::write(dir.join(name), bytes).unwrap();
        std::fs::write(
            dir.join(format!("{name}.framegroups")),
            "0 1 10 0 // rest\n",
        )
        .unwrap();
    }
    for (name, _) in &files {
        let model = Model::open(dir.join(name)).unwrap();
        let sidecar = model
            .companions()
            .any(|(kind, _)| kind == Companion::FrameGroups);
        let named = model.clips().iter().any(|c| c.name == "rest");
        let reads = name.ends_with(".md3");
        assert_eq!((sidecar, named), (reads, reads), "{name}");
        assert_eq!(
            model.clip_origin() == ClipOrigin::FrameGroupsFile,
            reads,
            "{name}"
        );
    }
}

#[test]
fn an_sl_mesh_is_paired_with_its_animation_and_skinned_like_the_others() {
    let dir = temp_dir("sl");
    let dir = dir.path();
    let (mdl, anim) = skelmap::synth::sl_twist(4, 8, 120.0);
    std::fs::write(dir.join("twist.mdl"), mdl.write()).unwrap();
    std::fs::write(dir.join("twist.anim"), anim.write()).unwrap();
    let model = Model::open(dir.join("twist.mdl")).unwrap();
    assert_eq!(model.format(), Format::SlMdl);
    assert_eq!(
        model.companions().collect::<Vec<_>>(),
        [(Companion::Animation, "twist.anim")]
    );
    assert_eq!((model.num_bones(), model.num_frames()), (2, 2));
    let mut pose = Pose::default();
    model.pose_bind(&mut pose);
    let m = model.as_sl_mdl().unwrap().mdl();
    let stored: Vec<[f32; 3]> = (0..m.num_vertices())
        .map(|i| {
            m.attribute(skelmap::slmdl::AttributeKind::Position)
                .unwrap()
                .floats::<3>(i)
                .unwrap()
        })
        .collect();
    let at_rest = prepared_agrees_with_deform(&model, &pose, "twist at rest");
    for (a, b) in at_rest.iter().zip(&stored) {
        assert!((Vec3::from(*a) - Vec3::from(*b)).length() < 1e-5);
    }
    model
        .pose(0, 1, 1.0, Interpolation::Nlerp, &mut pose)
        .unwrap();
    prepared_agrees_with_deform(&model, &pose, "twist at keyframe 1");
    // The animation's own file opens as a skeleton without meshes (by its extension).
    let alone = Model::open(dir.join("twist.anim")).unwrap();
    assert_eq!(
        (alone.format(), alone.num_meshes(), alone.num_bones()),
        (Format::SlAnim, 0, 2)
    );
    // Without its animation the mesh is static: nothing to prepare, deformed as stored.
    let mdl_bytes = std::fs::read(dir.join("twist.mdl")).unwrap();
    let static_mesh = Model::from_bytes(&mdl_bytes).unwrap();
    assert_eq!((static_mesh.num_bones(), static_mesh.num_frames()), (0, 0));
    assert!(matches!(
        static_mesh.prepare(),
        Err(DeformError::NotSkeletal(Format::SlMdl))
    ));
    let mut still = Pose::default();
    static_mesh.pose_bind(&mut still);
    let n = stored.len();
    let (mut p, mut q) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
    static_mesh.deform(0, &still, &mut p, &mut q).unwrap();
    assert_eq!(p, stored);
}

#[test]
fn an_sl_blend_index_past_the_animations_bones_refuses_the_pair() {
    let (mdl, mut anim) = skelmap::synth::sl_twist(4, 8, 120.0);
    anim.bones = 1;
    for key in &mut anim.keyframes {
        key.bones.truncate(1);
    }
    let (mdl, anim) = (mdl.write(), anim.write());
    let files: HashMap<String, &[u8]> = [
        ("twist.mdl".to_string(), mdl.as_slice()),
        ("twist.anim".to_string(), anim.as_slice()),
    ]
    .into();
    let e = Model::resolve(&files, "twist.mdl", &Limits::DEFAULT).unwrap_err();
    assert!(
        matches!(
            e,
            Error::Invalid {
                format: Format::SlMdl,
                what: "vertex.blend_indices",
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn poses_and_deforms_report_what_is_wrong() {
    let (bytes, _) = tube();
    let model = Model::from_bytes(&bytes).unwrap();
    let mut pose = Pose::default();
    let (mut p, mut q) = (vec![[0.0; 3]; 136], vec![[0.0; 3]; 136]);
    assert_eq!(
        model.deform(0, &pose, &mut p, &mut q),
        Err(DeformError::NotSampled)
    );
    assert_eq!(
        model.pose(0, 9, 0.5, Interpolation::Nlerp, &mut pose),
        Err(DeformError::NoFrame {
            frame: 9,
            frames: 9
        })
    );
    assert_eq!(
        model
            .pose(0, 1, f32::NAN, Interpolation::Nlerp, &mut pose)
            .map_err(|e| e.to_string()),
        Err("blend factor NaN is not finite".to_string())
    );
    model
        .pose(0, 1, 0.5, Interpolation::Nlerp, &mut pose)
        .unwrap();
    assert_eq!(
        model.deform(1, &pose, &mut p, &mut q),
        Err(DeformError::NoMesh { mesh: 1, meshes: 1 })
    );
    assert!(matches!(
        model.deform(0, &pose, &mut p[..10], &mut q),
        Err(DeformError::Skin(skelmap::skin::SkinError::Output {
            need: 136,
            have: 10
        }))
    ));
    model.deform(0, &pose, &mut p, &mut q).unwrap();
}

/// `Model::pose_clip` plays an MS3D's timeline in seconds from 0 (its first key), where
/// `Model::pose` by frame starts at frame 0 = 1 / fps; a DPM clip by time lands on the
/// frames `Model::pose` blends.
#[test]
fn clips_sampled_by_time_reach_the_first_key_and_match_the_frames() {
    let seed =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds/probe_any/arm_tail.ms3d");
    let bytes = std::fs::read(seed).unwrap();
    let model = Model::from_bytes(&bytes).unwrap();
    let clip = model.clips()[0].clone();
    let mut by_time = Pose::default();
    model
        .pose_clip(&clip, 0.0, true, Interpolation::Slerp, &mut by_time)
        .unwrap();
    let ms3d = model.as_ms3d().unwrap();
    let mut keys = skelmap::pose::LocalPose::default();
    ms3d.local_pose_at(0.0, Interpolation::Slerp, &mut keys);
    assert_eq!(by_time.local().bones, keys.bones);
    // Past the end, a looping clip wraps and a held one stops at its last key.
    let length = clip.count as f32 / clip.fps;
    let mut wrapped = Pose::default();
    model
        .pose_clip(&clip, length, true, Interpolation::Slerp, &mut wrapped)
        .unwrap();
    assert_eq!(wrapped.local().bones, keys.bones);
    let mut held = Pose::default();
    model
        .pose_clip(&clip, 2.0 * length, false, Interpolation::Slerp, &mut held)
        .unwrap();
    ms3d.local_pose_at(length, Interpolation::Slerp, &mut keys);
    assert_eq!(held.local().bones, keys.bones);
    assert!(matches!(
        model.pose_clip(&clip, f32::NAN, true, Interpolation::Slerp, &mut held),
        Err(DeformError::Time(_))
    ));

    let (dpm, _) = tube();
    let model = Model::from_bytes(&dpm).unwrap();
    let clip = skelmap::pose::framegroups::FrameGroup {
        name: "walk".into(),
        first: 2,
        count: 4,
        fps: 8.0,
        looped: false,
    };
    let (mut a, mut b) = (Pose::default(), Pose::default());
    // 0.3125 s at 8 fps is frame 2.5 of the clip: frames 4 and 5 half way; held at the end.
    for (seconds, looped, f, g, t) in [
        (0.3125, true, 4, 5, 0.5),
        (0.4375, true, 5, 2, 0.5),
        (9.0, false, 5, 5, 0.0),
    ] {
        model
            .pose_clip(&clip, seconds, looped, Interpolation::Nlerp, &mut a)
            .unwrap();
        model.pose(f, g, t, Interpolation::Nlerp, &mut b).unwrap();
        assert_eq!(a.palette().world, b.palette().world, "{seconds} s");
    }
    let late = skelmap::pose::framegroups::FrameGroup { first: 7, ..clip };
    assert!(matches!(
        model.pose_clip(&late, 0.0, true, Interpolation::Nlerp, &mut a),
        Err(DeformError::Clip { .. })
    ));
}

/// `Model::sample_clip` gives the parent-relative pose `Model::pose_clip` builds on (an MS3D
/// in seconds, a DPM between frames), and `Model::pose_local` turns a caller's pose into the
/// same world transforms; a pose of another bone count, or a model without bones, is refused.
#[test]
fn a_clip_samples_to_a_local_pose_that_poses_the_model() {
    let seed =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds/probe_any/arm_tail.ms3d");
    let bytes = std::fs::read(seed).unwrap();
    let ms3d = Model::from_bytes(&bytes).unwrap();
    let (dpm, _) = tube();
    let dpm = Model::from_bytes(&dpm).unwrap();
    for model in [&ms3d, &dpm] {
        let clip = skelmap::pose::framegroups::FrameGroup {
            name: "all".into(),
            first: 0,
            count: model.num_frames() as u32,
            fps: 8.0,
            looped: true,
        };
        let mut local = skelmap::pose::LocalPose::default();
        let (mut by_clip, mut by_local) = (Pose::default(), Pose::default());
        for seconds in [0.0, 0.3125, 7.9] {
            model
                .sample_clip(&clip, seconds, true, Interpolation::Nlerp, &mut local)
                .unwrap();
            model
                .pose_clip(&clip, seconds, true, Interpolation::Nlerp, &mut by_clip)
                .unwrap();
            assert_eq!(&local, by_clip.local(), "{:?} {seconds} s", model.format());
            model.pose_local(&local, &mut by_local).unwrap();
            assert_eq!(by_local.palette().world, by_clip.palette().world);
            assert_eq!(by_local.matrices(), by_clip.matrices());
        }
        assert!(matches!(
            model.sample_clip(&clip, f32::INFINITY, true, Interpolation::Nlerp, &mut local),
            Err(DeformError::Time(_))
        ));
        let bones = model.num_bones();
        local.bones.pop();
        assert!(matches!(
            model.pose_local(&local, &mut by_local),
            Err(DeformError::PoseBones { found, bones: b }) if found == bones - 1 && b == bones
        ));
    }
    let quake = skelmap::quake::Builder::triangle().write();
    let morph = Model::from_bytes(&quake).unwrap();
    assert!(matches!(
        morph.pose_local(&skelmap::pose::LocalPose::default(), &mut Pose::default()),
        Err(DeformError::WrongPose {
            found: "bones",
            format: Format::Quake
        })
    ));
}

/// `Model::pose_local_from` on a bone turned by hand gives what `pose_local` gives for the
/// whole pose (world transforms and the kernels' matrices, bit for bit) on an MS3D (whose
/// parents may follow their children: rebuilt in hierarchy order) and a DPM, for every bone
/// as the start; a change above the start stays unbuilt; the refusals name what is wrong and
/// leave the pose as it was.
#[test]
fn a_subtree_rebuild_is_the_whole_pose_below_the_bone() {
    use skelmap::glam::{Affine3A, Quat};
    let seed =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds/probe_any/arm_tail.ms3d");
    let ms3d = std::fs::read(seed).unwrap();
    let (dpm, _) = tube();
    for bytes in [&ms3d, &dpm] {
        let model = Model::from_bytes(bytes).unwrap();
        let bones = model.num_bones();
        let mut local = skelmap::pose::LocalPose::default();
        model.sample(1, 2, 0.5, Interpolation::Nlerp, &mut local);
        for from in 0..bones {
            let (mut pose, mut whole) = (Pose::default(), Pose::default());
            model.pose_local(&local, &mut pose).unwrap();
            let mut turned = local.clone();
            turned.bones[from].0 = Quat::from_rotation_y(0.6) * turned.bones[from].0;
            model.pose_local_from(&turned, from, &mut pose).unwrap();
            model.pose_local(&turned, &mut whole).unwrap();
            let what = format!("{:?}, bone {from}", model.format());
            assert_eq!(pose.palette().world, whole.palette().world, "{what}");
            assert_eq!(pose.matrices(), whole.matrices(), "{what}");
            assert_eq!(pose.local(), &turned, "{what}");
        }
        // A change above the start is not rebuilt: the root keeps its world transform.
        let mut pose = Pose::default();
        model.pose_local(&local, &mut pose).unwrap();
        let root = pose.palette().world[0];
        let mut moved = local.clone();
        moved.mul_bone(0, Affine3A::from_rotation_x(1.0)).unwrap();
        model.pose_local_from(&moved, bones - 1, &mut pose).unwrap();
        assert_eq!(pose.palette().world[0], root);
        // Refusals.
        let kept = pose.palette().world.clone();
        assert!(matches!(
            model.pose_local_from(&local, bones, &mut pose),
            Err(DeformError::NoBone { bone, bones: b }) if bone == bones && b == bones
        ));
        let mut short = local.clone();
        short.bones.pop();
        assert!(matches!(
            model.pose_local_from(&short, 0, &mut pose),
            Err(DeformError::PoseBones { found, bones: b }) if found == bones - 1 && b == bones
        ));
        assert!(matches!(
            model.pose_local_from(&local, 0, &mut Pose::default()),
            Err(DeformError::NotSampled)
        ));
        assert_eq!(pose.palette().world, kept);
    }
    let quake = skelmap::quake::Builder::triangle().write();
    let morph = Model::from_bytes(&quake).unwrap();
    assert!(matches!(
        morph.pose_local_from(
            &skelmap::pose::LocalPose::default(),
            0,
            &mut Pose::default()
        ),
        Err(DeformError::WrongPose {
            found: "bones",
            format: Format::Quake
        })
    ));
}

/// Review finding: the bind pose of a vertex-animated model used to keep the bones of a
/// skeletal model sampled into the same pose before (so a C caller saw stale bone counts
/// and matrices).
#[test]
fn a_vertex_animated_bind_pose_leaves_no_bones_behind() {
    let (dpm, _) = tube();
    let skeletal = Model::from_bytes(&dpm).unwrap();
    let quake = skelmap::quake::Builder::triangle().write();
    let morph = Model::from_bytes(&quake).unwrap();
    let mut pose = Pose::default();
    skeletal.pose_bind(&mut pose);
    assert!(!pose.palette().world.is_empty());
    morph.pose_bind(&mut pose);
    assert!(pose.palette().world.is_empty() && pose.local().bones.is_empty());
}
