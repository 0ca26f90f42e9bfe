//! A PSK through `Model`: counts, a submesh per material, per-wedge texture coordinates and
//! colours, materials, the skeleton; the PSA beside it found by name, its sequences as clips,
//! its bones matched by name; a PSA given by path instead; a PSA alone; a PSA that fits
//! nothing left out with a warning (given, an error).

use std::collections::HashMap;

use skelmap::WarningKind;
use skelmap::{Format, Limits, Model};

use super::{Builder, PSA_CHUNKS, PSK_CHUNKS, example_psa, example_psk, pair_files};

fn clips(m: &Model<'_>) -> Vec<(String, u32, u32, f32)> {
    m.clips()
        .iter()
        .map(|c| (c.name.clone(), c.first, c.count, c.fps))
        .collect()
}

#[test]
fn a_psk_alone_is_one_mesh_of_its_wedges_in_a_submesh_per_material() {
    let bytes = example_psk();
    let model = Model::from_bytes(&bytes).unwrap();
    assert_eq!(model.format(), Format::Psk);
    assert_eq!(
        (model.num_meshes(), model.num_bones(), model.num_frames()),
        (1, 2, 1)
    );
    assert!(model.clips().is_empty());
    let mesh = model.mesh(0).unwrap();
    assert_eq!((mesh.num_vertices(), mesh.num_triangles()), (4, 2));
    // Stored (2, 1, 0) and (3, 2, 0): reported reversed.
    assert_eq!(mesh.triangle(0), Some([0, 1, 2]));
    assert_eq!(mesh.triangle(1), Some([0, 2, 3]));
    assert_eq!(mesh.vertex_texcoord(3), Some([1.0, 1.0]));
    let submeshes: Vec<(Vec<u8>, Option<usize>, Vec<usize>)> = mesh
        .submeshes()
        .map(|s| {
            (
                s.name().to_vec(),
                s.material(),
                s.triangle_indices().collect(),
            )
        })
        .collect();
    assert_eq!(
        submeshes,
        vec![
            (b"skin".to_vec(), Some(0), vec![0]),
            (b"cloth".to_vec(), Some(1), vec![1])
        ]
    );
    assert_eq!(model.num_materials(), 2);
    assert_eq!(model.material(1).unwrap().name, b"cloth");
    let bones: Vec<(String, Option<usize>)> = model
        .bones()
        .map(|b| (b.name_lossy().into_owned(), b.parent()))
        .collect();
    assert_eq!(
        bones,
        vec![("root".to_string(), None), ("arm".to_string(), Some(0))]
    );
    assert!(model.diagnostics().is_empty(), "{:?}", model.diagnostics());
}

#[test]
fn the_psa_of_the_same_name_is_found_and_its_sequences_are_clips() {
    let files = pair_files();
    let model = Model::resolve(&&files, "models/soldier.psk", &Limits::default()).unwrap();
    assert_eq!(model.num_frames(), 3);
    assert_eq!(
        clips(&model),
        vec![
            ("idle".to_string(), 0, 1, 10.0),
            ("wave".to_string(), 1, 2, 20.0)
        ]
    );
    let pair = model.as_psk().unwrap();
    assert_eq!(pair.psa().unwrap().num_sequences(), 2);
    assert_eq!(
        (pair.matched_bone(0), pair.matched_bone(1)),
        (Some(0), Some(1))
    );
    // Without the PSA, the same mesh has one frame and no clips.
    let files = HashMap::from([("a.psk".to_string(), example_psk())]);
    let alone = Model::resolve(&&files, "a.psk", &Limits::default()).unwrap();
    assert_eq!(alone.num_frames(), 1);
}

#[test]
fn psa_bones_are_matched_by_name_and_the_unmatched_are_warned_about() {
    // The PSA's bones renamed and reordered: "ARM" (case ignored) first, then "tail".
    let mut anim = Builder::example();
    anim.bones[0].name = "ARM".into();
    anim.bones[1].name = "tail".into();
    anim.bones[1].parent = Some(0);
    let mut files = pair_files();
    files.insert("models/soldier.psa".into(), anim.write_psa().unwrap());
    let model = Model::resolve(&&files, "models/soldier.psk", &Limits::default()).unwrap();
    let pair = model.as_psk().unwrap();
    assert_eq!(
        (pair.matched_bone(0), pair.matched_bone(1)),
        (None, Some(0))
    );
    let w = model
        .diagnostics()
        .get(WarningKind::CompanionIgnored)
        .unwrap();
    // Said at the PSA's `BONENAMES` chunk; the PSA plays, so it is not left out.
    assert_eq!((w.count, w.what, w.offset), (1, "BONENAMES", PSA_CHUNKS[1]));
    assert_eq!(model.left_out().count(), 0);
    // Nothing matches: the PSA is left out and the mesh opens alone.
    let mut none = Builder::example();
    none.bones[0].name = "x".into();
    none.bones[1].name = "y".into();
    let mut files2 = pair_files();
    files2.insert("models/soldier.psa".into(), none.write_psa().unwrap());
    let model = Model::resolve(&&files2, "models/soldier.psk", &Limits::default()).unwrap();
    assert_eq!(model.num_frames(), 1);
    assert!(model.as_psk().unwrap().psa().is_none());
    let w = model
        .diagnostics()
        .get(WarningKind::CompanionIgnored)
        .unwrap();
    assert_eq!((w.what, w.offset), ("animation", PSA_CHUNKS[1]));
    let left = [(
        skelmap::model::Companion::AnimationBeside,
        "models/soldier.psa",
    )];
    assert_eq!(model.left_out().collect::<Vec<_>>(), left);
    // A PSA found by name that does not validate is left out the same way.
    let mut broken = example_psa();
    broken.truncate(100);
    let mut files3 = pair_files();
    files3.insert("models/soldier.psa".into(), broken);
    let model = Model::resolve(&&files3, "models/soldier.psk", &Limits::default()).unwrap();
    assert!(model.as_psk().unwrap().psa().is_none());
    assert_eq!(model.left_out().collect::<Vec<_>>(), left);
}

#[test]
fn a_psa_given_by_path_plays_instead_of_the_one_beside_and_a_misfit_is_an_error() {
    use skelmap::model::OpenOptions;
    let dir = tempfile::Builder::new()
        .prefix("skelmap-psk-given-")
        .tempdir()
        .unwrap();
    let dir = dir.path();
    let elsewhere = dir.join("anims");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::write(dir.join("soldier.psk"), example_psk()).unwrap();
    std::fs::write(dir.join("soldier.psa"), example_psa()).unwrap();
    // The given PSA: only the example's second sequence, renamed.
    let mut only = Builder::example();
    only.sequences.remove(0);
    only.sequences[0].name = "salute".into();
    let given = elsewhere.join("salute.psa");
    std::fs::write(&given, only.write_psa().unwrap()).unwrap();
    let open = |animation: Option<&std::path::Path>| {
        let options = OpenOptions {
            animation: animation.map(std::path::Path::to_path_buf),
            ..OpenOptions::default()
        };
        Model::open_with(dir.join("soldier.psk"), &options)
    };
    let beside = open(None).unwrap();
    assert_eq!(clips(&beside).len(), 2);
    let model = open(Some(&given)).unwrap();
    assert_eq!(
        clips(&model),
        vec![("salute".to_string(), 1, 2, 20.0)],
        "the given PSA's sequence, over the same frames of the same file layout"
    );
    // A given PSA whose bones match none of the mesh's is an error, not a warning.
    let mut none = Builder::example();
    none.bones[0].name = "x".into();
    none.bones[1].name = "y".into();
    let misfit = elsewhere.join("misfit.psa");
    std::fs::write(&misfit, none.write_psa().unwrap()).unwrap();
    match open(Some(&misfit)) {
        Err(e) => assert_eq!(
            crate::support::invalid_parts(&e),
            (
                Format::Psa,
                "BONENAMES",
                PSA_CHUNKS[1],
                skelmap::Problem::Skeleton {
                    bones: 2,
                    joints: 2
                }
            )
        ),
        Ok(m) => panic!("opened with {} frames", m.num_frames()),
    }
    // One that cannot be read is an I/O error naming it.
    match open(Some(&elsewhere.join("missing.psa"))) {
        Err(skelmap::Error::Io { path, .. }) => assert!(path.ends_with("missing.psa")),
        other => panic!("{:?}", other.map(|m| m.num_frames())),
    }
}

#[test]
fn a_psa_alone_is_a_skeleton_with_clips_and_no_meshes() {
    let bytes = example_psa();
    let model = Model::from_bytes(&bytes).unwrap();
    assert_eq!(model.format(), Format::Psa);
    assert_eq!(
        (model.num_meshes(), model.num_bones(), model.num_frames()),
        (0, 2, 3)
    );
    assert_eq!(clips(&model).len(), 2);
    crate::exercise::model(&model);
}

#[test]
fn points_with_more_than_8_weights_keep_the_8_heaviest_normalised() {
    let mut b = Builder::example();
    b.bones
        .extend((2..12).map(|i| skelmap::psk::write::BoneDef {
            name: format!("b{i}"),
            parent: Some(0),
            rotation: skelmap::glam::Quat::IDENTITY,
            translation: [0.0; 3],
        }));
    b.weights.retain(|w| w.point != 0);
    for bone in 0..10u32 {
        b.weights.push(skelmap::psk::write::WeightDef {
            point: 0,
            bone,
            weight: 1.0 + bone as f32,
        });
    }
    b.weights.retain(|w| w.point != 1);
    let bytes = b.write_psk().unwrap();
    let model = Model::from_bytes(&bytes).unwrap();
    let psk = model.as_psk().unwrap().psk();
    let kept = psk.point_influences(0);
    let total: f32 = (2..10).map(|b| 1.0 + b as f32).sum();
    assert_eq!(kept.len(), 8);
    assert_eq!(kept[0], (9, 10.0 / total));
    assert_eq!(kept[7].0, 2);
    assert_eq!(psk.point_influences(1), &[(0, 1.0)]);
    // Both said at the `RAWWEIGHTS` chunk's header.
    let weights_at = bytes.windows(10).position(|w| w == b"RAWWEIGHTS").unwrap() as u64;
    let diag = model.diagnostics();
    for kind in [WarningKind::SpecLimit, WarningKind::ZeroWeights] {
        let w = diag.get(kind).unwrap();
        assert_eq!((w.count, w.what, w.offset), (1, "RAWWEIGHTS", weights_at));
    }
    // A file without `RAWWEIGHTS`: every point unweighted, said at the points' chunk.
    let cut = &example_psk()[..PSK_CHUNKS[6] as usize];
    let model = Model::from_bytes(cut).unwrap();
    let w = model.diagnostics().get(WarningKind::ZeroWeights).unwrap();
    assert_eq!((w.count, w.offset), (4, PSK_CHUNKS[1]));
}

/// Fuzz crash `psk/crash-6c306462`: weights near f32's largest overflowed their f32 sum to
/// infinity and every normalised weight of the point became 0. Summed in f64 they keep their
/// ratio, and a weight too light beside them to survive the division is left out.
#[test]
fn weights_whose_sum_overflows_f32_keep_their_ratios() {
    let mut b = Builder::example();
    b.weights.retain(|w| w.point != 0);
    for (bone, weight) in [(0, f32::MAX), (1, f32::MAX / 2.0), (1, 1e-30)] {
        b.weights.push(skelmap::psk::write::WeightDef {
            point: 0,
            bone,
            weight,
        });
    }
    let bytes = b.write_psk().unwrap();
    let model = Model::from_bytes(&bytes).unwrap();
    let psk = model.as_psk().unwrap().psk();
    assert_eq!(psk.point_influences(0), &[(0, 2.0 / 3.0), (1, 1.0 / 3.0)]);
}

#[test]
fn colours_normals_and_extra_texture_coordinates_are_read_per_wedge_and_point() {
    let mut b = Builder::example();
    b.colors = vec![[10, 20, 30, 40]; 4];
    b.normals = vec![[0.0, 0.5, 1.0]; 4];
    b.extra_uvs = vec![vec![[0.1, 0.2]; 4], vec![[0.3, 0.4]; 4]];
    let bytes = b.write_psk().unwrap();
    let model = Model::from_bytes(&bytes).unwrap();
    let psk = model.as_psk().unwrap().psk();
    assert_eq!(psk.color(2), Some([10, 20, 30, 40]));
    assert_eq!(
        model.mesh(0).unwrap().vertex_color(2),
        Some([10, 20, 30, 40])
    );
    assert_eq!(psk.normal(1), Some([0.0, 0.5, 1.0]));
    assert_eq!(psk.extra_texcoord(1, 3), Some([0.3, 0.4]));
    assert!(!psk.has_extra_texcoords(2));
    // The stored normal is the bind-pose normal; at the reference pose it is unchanged.
    let mut pose = skelmap::model::Pose::default();
    model
        .pose(0, 0, 0.0, skelmap::pose::Interpolation::Nlerp, &mut pose)
        .unwrap();
    let (mut p, mut n) = (vec![[0.0; 3]; 4], vec![[0.0; 3]; 4]);
    model.deform(0, &pose, &mut p, &mut n).unwrap();
    let len = (0.25f32 + 1.0).sqrt();
    assert!(
        (n[0][1] - 0.5 / len).abs() < 1e-5 || (n[0][1] - 0.5).abs() < 1e-5,
        "{:?}",
        n[0]
    );
}

/// Thirty thousand bones a side, the PSA's in reverse order and upper case: each PSK bone
/// finds its PSA bone with a look-up (not a walk of the PSA's bones for each), and
/// all are matched.
#[test]
fn many_bones_are_matched_by_name_in_a_look_up_each() {
    use skelmap::Parse;
    use skelmap::psk::{Pair, Psa, Psk};
    const BONES: usize = 30_000;
    let mut mesh = Builder::example();
    let bone = mesh.bones[0].clone();
    mesh.bones = (0..BONES)
        .map(|i| skelmap::psk::BoneDef {
            name: format!("bone{i}"),
            parent: None,
            ..bone.clone()
        })
        .collect();
    let mut anim = mesh.clone();
    anim.bones.reverse();
    for b in &mut anim.bones {
        b.name = b.name.to_ascii_uppercase();
    }
    anim.frames = vec![
        anim.bones
            .iter()
            .map(|b| (b.rotation, b.translation))
            .collect(),
    ];
    anim.sequences.truncate(1);
    anim.sequences[0].first_frame = 0;
    anim.sequences[0].num_frames = 1;
    let (psk, psa) = (mesh.write_psk().unwrap(), anim.write_psa().unwrap());
    let (pair, unmatched) = Pair::new(Psk::parse(&psk).unwrap(), Psa::parse(&psa).unwrap());
    assert_eq!(unmatched, 0);
    assert_eq!(pair.matched_bone(0), Some(BONES - 1));
    assert_eq!(pair.matched_bone(BONES - 1), Some(0));
}
