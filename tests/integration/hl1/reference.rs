//! The example's poses, triangles and texture coordinates computed here from the spec
//! (`docs/formats/hl1.md` § Animation and § Triangle commands), not by the reader; the
//! lower-case texture file and a sequence group found beside the model.

use skelmap::Model;
use skelmap::glam::{Affine3A, Quat, Vec3};
use skelmap::hl1::Builder;
use skelmap::model::Pose;
use skelmap::pose::Interpolation;
use skelmap::pose::PoseFrames;

/// Half-Life's `AngleQuaternion`, written out as the Euler product it is: yaw about Z of
/// pitch about Y of roll about X.
fn euler(roll: f32, pitch: f32, yaw: f32) -> Quat {
    Quat::from_rotation_z(yaw) * Quat::from_rotation_y(pitch) * Quat::from_rotation_x(roll)
}

fn close(a: Vec3, b: Vec3) -> bool {
    (a - b).length() < 1e-4
}

#[test]
fn a_strip_alternates_and_a_fan_turns_about_its_first_vertex() {
    let bytes = Builder::example().write().unwrap();
    let model = Model::from_bytes(&bytes).unwrap();
    let mesh = model.mesh(0).unwrap();
    assert_eq!((mesh.num_vertices(), mesh.num_triangles()), (8, 4));
    let tris: Vec<[u32; 3]> = mesh.triangles().collect();
    // GL's strip order (0 1 2), (2 1 3) and fan order (4 5 6), (4 6 7), each reversed to
    // face counter-clockwise.
    assert_eq!(tris, [[2, 1, 0], [3, 1, 2], [6, 5, 4], [7, 6, 4]]);
}

#[test]
fn texcoords_are_texels_over_the_texture_size() {
    let bytes = Builder::example().write().unwrap();
    let model = Model::from_bytes(&bytes).unwrap();
    let mesh = model.mesh(0).unwrap();
    // Vertex 3 is the strip's (3, s 4, t 4) on a 4×4 texture; vertex 4 the fan's (2, 2).
    assert_eq!(mesh.vertex_texcoord(3), Some([1.0, 1.0]));
    assert_eq!(mesh.vertex_texcoord(4), Some([0.5, 0.5]));
    assert_eq!(model.skins().len(), 2);
    let rgba = model.skins()[0].decode_rgba(0, &[[0; 3]; 256]).unwrap();
    // Pixel 5 is index 5: (5, 10, 250) from the texture's own palette.
    assert_eq!(&rgba[20..24], &[5, 10, 250, 255]);
}

#[test]
fn a_multi_run_channel_decodes_at_every_frame() {
    let bytes = Builder::example().write().unwrap();
    let model = Model::from_bytes(&bytes).unwrap();
    let pair = model.as_hl1().unwrap();
    // Frame 0 is `idle`; frames 1..=4 are `turn`, whose root X and yaw values are 0, 10, 10,
    // 40 (runs: 2 values over 3 frames, then 1) and bone 1's yaw 0, 20, 20, 80.
    assert_eq!(pair.num_frames(), 5);
    for (k, v) in [0.0f32, 10.0, 10.0, 40.0].into_iter().enumerate() {
        let (q, t) = pair.bone_pose(1 + k, 0).unwrap();
        assert!(close(t.into(), Vec3::new(v * 0.5, 0.0, 1.0)), "{k}: {t}");
        assert!(q.abs_diff_eq(euler(0.0, 0.0, v * 0.01), 1e-6), "{k}");
        let (q, t) = pair.bone_pose(1 + k, 1).unwrap();
        assert!(close(t.into(), Vec3::new(10.0, 0.0, 0.0)));
        assert!(
            q.abs_diff_eq(euler(0.0, 0.0, 0.5 + 2.0 * v * 0.02), 1e-6),
            "{k}"
        );
    }
    let clips = model.clips();
    assert_eq!(clips.len(), 2);
    assert_eq!(
        (clips[1].first, clips[1].count, clips[1].looped),
        (1, 4, true)
    );
    assert_eq!(clips[1].fps, 15.0);
    assert!(!clips[0].looped);
}

#[test]
fn deformed_positions_follow_the_bones_at_a_frame() {
    let bytes = Builder::example().write().unwrap();
    let model = Model::from_bytes(&bytes).unwrap();
    let mut pose = Pose::default();
    model
        .pose(4, 4, 0.0, Interpolation::Slerp, &mut pose)
        .unwrap();
    let n = model.mesh(0).unwrap().num_vertices();
    let (mut p, mut nrm) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
    model.deform(0, &pose, &mut p, &mut nrm).unwrap();
    let root = Affine3A::from_rotation_translation(euler(0.0, 0.0, 0.4), Vec3::new(20.0, 0.0, 1.0));
    let arm =
        root * Affine3A::from_rotation_translation(euler(0.0, 0.0, 2.1), Vec3::new(10.0, 0.0, 0.0));
    // Mesh vertex 1 is model vertex 1 (root, (4, 0, 0)); mesh vertex 2 model vertex 2 (arm,
    // (0, 4, 0)).
    assert!(close(
        Vec3::from(p[1]),
        root.transform_point3(Vec3::new(4.0, 0.0, 0.0))
    ));
    assert!(
        close(
            Vec3::from(p[2]),
            arm.transform_point3(Vec3::new(0.0, 4.0, 0.0))
        ),
        "{:?}",
        p[2]
    );
    // The attachment is (1, 2, 3) in the arm's space.
    assert_eq!(model.num_attachments(), 1);
    let at = model.attachment_transform(0, &pose).unwrap();
    assert!(close(
        at.translation.into(),
        arm.transform_point3(Vec3::new(1.0, 2.0, 3.0))
    ));
}

/// A fresh folder for one test, removed with its files when the returned value drops (also
/// when the test panics).
fn temp_dir(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("skelmap-hl1-{name}-"))
        .tempdir()
        .unwrap()
}

#[test]
fn a_lower_case_texture_file_and_a_sequence_group_are_found() {
    let b = super::apart();
    let dir = temp_dir("companions");
    let dir = dir.path();
    let main = dir.join("man.mdl");
    std::fs::write(&main, b.write().unwrap()).unwrap();
    std::fs::write(dir.join("mant.mdl"), b.write_textures().unwrap()).unwrap();
    std::fs::write(dir.join("man01.mdl"), b.write_group(1).unwrap()).unwrap();
    let model = Model::open(&main).unwrap();
    let pair = model.as_hl1().unwrap();
    assert!(pair.texture_file().is_some());
    assert!(pair.model().textures().is_empty());
    assert_eq!(model.skins().len(), 2);
    assert_eq!(model.mesh(0).unwrap().vertex_texcoord(3), Some([1.0, 1.0]));
    assert!(pair.has_group(1));
    assert_eq!(pair.num_frames(), 1 + 4 + 3);
    let (_, t) = pair.bone_pose(5, 0).unwrap();
    assert!(close(t.into(), Vec3::new(1.0, 0.0, 1.0)));
    // Alone, the model has no textures and no group 1: texels, and two sequences.
    let bytes = b.write().unwrap();
    let alone = Model::from_bytes(&bytes).unwrap();
    assert_eq!(alone.skins().len(), 0);
    assert_eq!(alone.as_hl1().unwrap().num_frames(), 5);
    assert_eq!(alone.mesh(0).unwrap().vertex_texcoord(3), Some([4.0, 4.0]));
}

/// A mod ships `Hgrunt03.mdl` beside `hgrunt.mdl` (phoenixprojectsoftware/lad), and its
/// texture file as `MANT.MDL`: Windows and Xash3D find names in any case, and so does the
/// model, as spelled on disk.
#[test]
fn companions_named_in_another_case_are_found() {
    let b = super::apart();
    let dir = temp_dir("any-case");
    let dir = dir.path();
    let main = dir.join("man.mdl");
    std::fs::write(&main, b.write().unwrap()).unwrap();
    std::fs::write(dir.join("MANT.MDL"), b.write_textures().unwrap()).unwrap();
    std::fs::write(dir.join("Man01.mdl"), b.write_group(1).unwrap()).unwrap();
    let model = Model::open(&main).unwrap();
    let pair = model.as_hl1().unwrap();
    assert!(pair.texture_file().is_some());
    assert_eq!(model.skins().len(), 2);
    assert!(pair.has_group(1));
    assert_eq!(pair.num_frames(), 1 + 4 + 3);
    let names: Vec<String> = model.companions().map(|(_, p)| p.to_string()).collect();
    assert!(
        names.iter().any(|p| p.ends_with("MANT.MDL"))
            && names.iter().any(|p| p.ends_with("Man01.mdl")),
        "{names:?}"
    );
    assert!(model.diagnostics().is_empty(), "{:?}", model.diagnostics());
}

#[test]
fn a_masked_texture_draws_its_last_palette_entry_transparent() {
    use skelmap::hl1::raw::STUDIO_NF_MASKED;
    let mut b = Builder::example();
    b.textures[0].flags |= STUDIO_NF_MASKED as i32;
    b.textures[0].pixels[5] = 255;
    b.textures[1].pixels[6] = 255;
    let bytes = b.write().unwrap();
    let model = Model::from_bytes(&bytes).unwrap();
    assert_eq!(model.skin(0).unwrap().transparent_index(), Some(255));
    assert_eq!(model.skin(1).unwrap().transparent_index(), None);
    let alpha = |skin: usize| -> Vec<u8> {
        let rgba = model.skin_rgba(skin).unwrap();
        rgba.chunks_exact(4).map(|p| p[3]).collect()
    };
    let mut masked = vec![255u8; 16];
    masked[5] = 0;
    assert_eq!(alpha(0), masked);
    // Index 255 of a texture without the flag is a colour like any other.
    assert_eq!(alpha(1), vec![255u8; 16]);
    let asset = model.to_asset(&Default::default()).unwrap();
    let cutoffs: Vec<Option<f32>> = asset.materials.iter().map(|m| m.alpha_cutoff).collect();
    assert_eq!(cutoffs, [Some(0.5), None]);
}

#[test]
fn a_sequences_motion_bone_stays_where_its_motiontype_says() {
    use skelmap::hl1::raw::{STUDIO_X, STUDIO_Z};
    let plain = Builder::example().write().unwrap();
    let mut moved = plain.clone();
    // The second sequence (`turn`, frames 1 to 4) names bone 1 and zeroes its X and Z.
    let seq = super::get_i32(&plain, 168) as usize + 176;
    super::put_i32(&mut moved, seq + 68, (STUDIO_X | STUDIO_Z) as i32);
    super::put_i32(&mut moved, seq + 72, 1);
    let (a, b) = (
        Model::from_bytes(&plain).unwrap(),
        Model::from_bytes(&moved).unwrap(),
    );
    let (a, b) = (a.as_hl1().unwrap(), b.as_hl1().unwrap());
    for frame in 0..a.num_frames() {
        for bone in 0..2 {
            let (qa, ta) = a.bone_pose(frame, bone).unwrap();
            let (qb, tb) = b.bone_pose(frame, bone).unwrap();
            assert_eq!(qa, qb, "frame {frame} bone {bone}");
            let expected = if bone == 1 && frame >= 1 {
                Vec3::new(0.0, ta.y, 0.0)
            } else {
                ta.into()
            };
            assert_eq!(Vec3::from(tb), expected, "frame {frame} bone {bone}");
        }
    }
    // The arm's default X, 10, is what the engine zeroes.
    assert_eq!(a.bone_pose(1, 1).unwrap().1.x, 10.0);
}

/// The example with three controllers: the arm's yaw (controller 0, −45° to 45°), the arm's
/// roll wrapping around (controller 1, `STUDIO_RLOOP`, −180° to 180°), and the mouth moving
/// the root along Y (0 to 5 units).
fn controlled_example() -> Vec<u8> {
    use skelmap::hl1::ControllerDef;
    use skelmap::hl1::raw::{STUDIO_RLOOP, STUDIO_XR, STUDIO_Y, STUDIO_ZR};
    let mut b = Builder::example();
    b.controllers = vec![
        ControllerDef {
            bone: 1,
            type_: STUDIO_ZR,
            start: -45.0,
            end: 45.0,
            index: 0,
        },
        ControllerDef {
            bone: 1,
            type_: STUDIO_XR | STUDIO_RLOOP,
            start: -180.0,
            end: 180.0,
            index: 1,
        },
        ControllerDef {
            bone: 0,
            type_: STUDIO_Y,
            start: 0.0,
            end: 5.0,
            index: 4,
        },
    ];
    b.write().unwrap()
}

#[test]
fn a_controller_adds_to_the_channel_it_drives_as_the_renderer_does() {
    use skelmap::hl1::Controls;
    let bytes = controlled_example();
    let model = Model::from_bytes(&bytes).unwrap();
    let pair = model.as_hl1().unwrap();
    let stored = pair.model().controllers();
    assert_eq!(stored.len(), 3);
    // Yaw 60° clamps to 45°; roll 400° wraps to 40°; the mouth's 3 units stand.
    let controls = Controls {
        values: [60.0, 400.0, 0.0, 0.0, 3.0],
    };
    let adjust = |i: usize| controls.adjustment(&stored[i]);
    assert!((adjust(0) - 45f32.to_radians()).abs() < 1e-7);
    assert!((adjust(1) - 40f32.to_radians()).abs() < 1e-6);
    assert_eq!(adjust(2), 3.0);
    // The mouth never wraps: the looping roll, driven by the mouth, clamps 400° to 180°.
    let mut by_mouth = stored[1];
    by_mouth.index = 4.into();
    let loud = Controls {
        values: [0.0, 0.0, 0.0, 0.0, 400.0],
    };
    assert_eq!(loud.adjustment(&by_mouth), 180f32.to_radians());
    let controlled = pair.controlled(controls);
    // The example's channels (`Builder::example`): frame 0 is `idle` (all zero), frames 1–4
    // `turn` with k = 0, 10, 10, 40: the root's X and yaw step k, the arm's yaw 2k.
    for (frame, k) in [0.0f32, 0.0, 10.0, 10.0, 40.0].into_iter().enumerate() {
        let (q0, t0) = controlled.bone_pose(frame, 0).unwrap();
        let (q1, t1) = controlled.bone_pose(frame, 1).unwrap();
        let root = (euler(0.0, 0.0, 0.01 * k), Vec3::new(0.5 * k, 3.0, 1.0));
        let yaw = 0.5 + 0.02 * 2.0 * k + 45f32.to_radians();
        let arm = (
            euler(40f32.to_radians(), 0.0, yaw),
            Vec3::new(10.0, 0.0, 0.0),
        );
        for ((q, t), (wq, wt), bone) in [((q0, t0), root, 0), ((q1, t1), arm, 1)] {
            assert!(q.dot(wq).abs() > 1.0 - 1e-6, "frame {frame} bone {bone}");
            assert!(close(t.into(), wt), "frame {frame} bone {bone}");
        }
    }
    // Settings of 0 leave every pose as sampling without controls gives it.
    let neutral = pair.controlled(Controls::default());
    for frame in 0..pair.num_frames() {
        for bone in 0..2 {
            let (q, t) = neutral.bone_pose(frame, bone).unwrap();
            let (wq, wt) = pair.bone_pose(frame, bone).unwrap();
            assert_eq!((q, t), (wq, wt), "frame {frame} bone {bone}");
        }
    }
}

/// The body value picks each body part's model as the engine does, `(body / base) %
/// models`, with the bases written as studiomdl writes them (the product of the earlier
/// parts' model counts): for a model of two parts of two and three models (one of them
/// blank), every body value (past their product too, where the choice wraps) shows the mesh
/// that a file holding just those two models shows at body 0, through `Hl1::with_body` and
/// `OpenOptions::body`, frame 3 deformed alike.
#[test]
fn the_body_value_shows_each_parts_model_as_the_engine_picks_it() {
    use skelmap::Parse;
    use skelmap::hl1::{BodyPartDef, Hl1, ModelDef};
    use skelmap::model::OpenOptions;
    let mut b = Builder::example();
    let full = b.bodyparts[0].models[0].clone();
    let mut one = full.clone();
    one.name = "one".into();
    one.meshes.truncate(1);
    let blank = ModelDef {
        name: "blank".into(),
        vertices: Vec::new(),
        normals: Vec::new(),
        meshes: Vec::new(),
    };
    b.bodyparts = vec![
        BodyPartDef {
            name: "head".into(),
            models: vec![full.clone(), one.clone()],
        },
        BodyPartDef {
            name: "gun".into(),
            models: vec![blank, one, full],
        },
    ];
    let bytes = b.write().unwrap();
    let model = Hl1::parse(&bytes).unwrap();
    let bases: Vec<i32> = model.bodyparts().iter().map(|p| p.base.get()).collect();
    assert_eq!(bases, [1, 2]);
    let dir = temp_dir("body");
    let dir = dir.path();
    let path = dir.join("two_parts.mdl");
    std::fs::write(&path, &bytes).unwrap();
    let shown = |m: &Model<'_>| {
        let mut pose = Pose::default();
        m.pose(3, 3, 0.0, Interpolation::Slerp, &mut pose).unwrap();
        let mesh = m.mesh(0).unwrap();
        let n = mesh.num_vertices();
        let (mut p, mut nrm) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
        m.deform(0, &pose, &mut p, &mut nrm).unwrap();
        let tris: Vec<[u32; 3]> = mesh.triangles().collect();
        (p, nrm, tris, mesh.submeshes().len())
    };
    for body in 0..9u32 {
        let chosen = [body as usize % 2, body as usize / 2 % 3];
        assert_eq!(
            [model.body_model(0, body), model.body_model(1, body)],
            chosen.map(Some),
            "body {body}"
        );
        let mut alone = b.clone();
        for (part, &m) in alone.bodyparts.iter_mut().zip(&chosen) {
            part.models = vec![part.models[m].clone()];
        }
        let alone = alone.write().unwrap();
        let with = model.with_body(body, &skelmap::Limits::default()).unwrap();
        let reference = Hl1::parse(&alone).unwrap();
        assert_eq!(with.body(), body);
        assert_eq!(
            (
                with.num_vertices(),
                with.num_triangles(),
                with.meshes().len()
            ),
            (
                reference.num_vertices(),
                reference.num_triangles(),
                reference.meshes().len()
            ),
            "body {body}"
        );
        let options = OpenOptions {
            body: Some(body),
            ..OpenOptions::default()
        };
        let opened = Model::open_with(&path, &options).unwrap();
        assert_eq!(opened.as_hl1().unwrap().model().body(), body);
        assert_eq!(
            shown(&opened),
            shown(&Model::from_bytes(&alone).unwrap()),
            "body {body}"
        );
    }
    // The default is body 0; the mesh limit holds for the models a body value shows: body
    // 0's two meshes pass three, body 4's four do not.
    assert_eq!(model.body(), 0);
    let limits = skelmap::Limits {
        max_meshes: 3,
        ..skelmap::Limits::default()
    };
    let body_0 = Hl1::parse_with(&bytes, &limits, &mut skelmap::Diagnostics::new()).unwrap();
    assert!(matches!(
        body_0.with_body(4, &limits),
        Err(skelmap::Error::Limit { what: "meshes", .. })
    ));
}

/// A model drawn in several studio meshes becomes an asset mesh per studio mesh holding only
/// the vertices its triangles use, in the model's order (each part used to carry every
/// vertex of the model): the example's strip and fan, four vertices each, and each asset
/// triangle's corners where the model's triangle puts them, with their normals, texture
/// coordinates and bones.
#[test]
fn each_studio_mesh_is_an_asset_mesh_of_its_own_vertices() {
    let bytes = Builder::example().write().unwrap();
    let model = Model::from_bytes(&bytes).unwrap();
    let mesh = model.mesh(0).unwrap();
    let mut pose = Pose::default();
    model.pose_bind(&mut pose);
    let pair = model.as_hl1().unwrap();
    let n = mesh.num_vertices();
    let (mut p, mut nrm) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
    model.deform(0, &pose, &mut p, &mut nrm).unwrap();
    let asset = model.to_asset(&Default::default()).unwrap();
    let counts: Vec<(usize, usize)> = asset
        .meshes
        .iter()
        .map(|m| (m.positions.len(), m.triangles.len()))
        .collect();
    assert_eq!(counts, [(4, 2), (4, 2)]);
    let model_triangles: Vec<[u32; 3]> = mesh.triangles().collect();
    let mut k = 0;
    for part in &asset.meshes {
        let uvs = part.uvs.as_ref().unwrap();
        for tri in &part.triangles {
            for (corner, &v) in tri.iter().zip(&model_triangles[k]) {
                let c = *corner as usize;
                assert_eq!(part.positions[c], p[v as usize], "triangle {k}");
                assert_eq!(part.normals[c], nrm[v as usize], "triangle {k}");
                assert_eq!(
                    Some(uvs[c]),
                    mesh.vertex_texcoord(v as usize),
                    "triangle {k}"
                );
                let bone = pair.bind_vertex_of(v as usize).unwrap().0;
                assert_eq!(
                    part.influences.of(c),
                    [(u16::from(bone), 1.0)],
                    "triangle {k}"
                );
            }
            k += 1;
        }
    }
    assert_eq!(k, model_triangles.len());
}
