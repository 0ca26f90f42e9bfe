//! One test per validation rule of `docs/formats/skm.md` for SKM and SKP, each on the converted
//! tube with one field broken, asserting the exact error variant, field and byte offset.
//!
//! SKM fixture: header (24 B), 1 mesh header (156 B) at 24, then vertices, texcoords, indices,
//! references. SKP fixture: header (28 B), 4 bones (72 B) at 28, 9 frames (68 B) at 316, then
//! 9 pose blocks of 4 × 28 B.

use skelmap::Parse;
use skelmap::skm;
use skelmap::skm::{Skm, Skp};
use skelmap::{Diagnostics, Error, Format, Limits, Problem, WarningKind};

use crate::support::{put_f32_le, put_u32_le, tube_skm};

fn skm_err(bytes: &[u8]) -> Error {
    Skm::parse(bytes)
        .map(|_| ())
        .expect_err("broken SKM accepted")
}

fn skp_err(bytes: &[u8]) -> Error {
    Skp::parse(bytes)
        .map(|_| ())
        .expect_err("broken SKP accepted")
}

#[test]
fn converted_tube_is_clean() {
    let ((skm, _), (skp, _)) = tube_skm();
    let mut diag = Diagnostics::new();
    let m = Skm::parse_with(&skm, &Limits::default(), &mut diag).unwrap();
    let p = Skp::parse_with(&skp, &Limits::default(), &mut diag).unwrap();
    assert!(diag.is_empty(), "{:?}", diag.warnings());
    assert_eq!(
        (
            m.num_bones(),
            m.num_meshes(),
            m.num_vertices(),
            m.num_triangles()
        ),
        (4, 1, 136, 256)
    );
    assert_eq!((p.num_bones(), p.num_frames()), (4, 9));
    assert_eq!(Format::sniff(&skm), Some(Format::Skm));
    assert_eq!(Format::sniff(&skp), Some(Format::Skp));
}

// ---- rule 1: length, magic, type, and SKM vs SKP ----

#[test]
fn skm_rule1_shorter_than_header() {
    let ((skm, _), _) = tube_skm();
    let e = skm_err(&skm[..23]);
    assert!(
        matches!(
            e,
            Error::Truncated {
                format: Format::Skm,
                what: "header",
                offset: 0,
                need: 24,
                have: 23
            }
        ),
        "{e}"
    );
}

#[test]
fn skp_rule1_shorter_than_header() {
    let (_, (skp, _)) = tube_skm();
    let e = skp_err(&skp[..27]);
    assert!(
        matches!(
            e,
            Error::Truncated {
                format: Format::Skp,
                what: "header",
                offset: 0,
                need: 28,
                have: 27
            }
        ),
        "{e}"
    );
}

#[test]
fn rule1_magic() {
    let ((mut skm, _), (mut skp, _)) = tube_skm();
    skm[3] = b'2';
    skp[0] = b's';
    assert!(matches!(
        skm_err(&skm),
        Error::BadMagic {
            format: Format::Skm,
            ..
        }
    ));
    assert!(matches!(
        skp_err(&skp),
        Error::BadMagic {
            format: Format::Skp,
            ..
        }
    ));
}

#[test]
fn rule1_type_other_than_2() {
    let ((mut skm, _), (mut skp, _)) = tube_skm();
    put_u32_le(&mut skm, 4, 3);
    put_u32_le(&mut skp, 4, 1);
    assert!(matches!(
        skm_err(&skm),
        Error::Unsupported {
            format: Format::Skm,
            what: "header.type",
            offset: 4,
            ..
        }
    ));
    assert!(matches!(
        skp_err(&skp),
        Error::Unsupported {
            format: Format::Skp,
            what: "header.type",
            offset: 4,
            ..
        }
    ));
}

#[test]
fn rule1_skeleton_opened_as_mesh_and_mesh_as_skeleton() {
    let ((skm, _), (skp, _)) = tube_skm();
    let e = skm_err(&skp);
    assert!(
        matches!(
            e,
            Error::WrongFormat {
                expected: Format::Skm,
                found: Format::Skp
            }
        ),
        "{e}"
    );
    assert_eq!(
        e.to_string(),
        "SKM: the header layout is that of an SKP file, not an SKM file"
    );
    let e = skp_err(&skm);
    assert!(
        matches!(
            e,
            Error::WrongFormat {
                expected: Format::Skp,
                found: Format::Skm
            }
        ),
        "{e}"
    );
}

// ---- rule 2: caps and declared size ----

#[test]
fn skm_rule2_counts() {
    let ((skm, _), _) = tube_skm();
    let mut b = skm.clone();
    put_u32_le(&mut b, 12, 0);
    assert!(matches!(
        skm_err(&b),
        Error::Invalid {
            what: "header.num_bones",
            offset: 12,
            ..
        }
    ));
    let mut b = skm.clone();
    put_u32_le(&mut b, 12, 65_536);
    assert!(matches!(
        skm_err(&b),
        Error::Limit {
            what: "header.num_bones",
            offset: 12,
            value: 65_536,
            max: 65_535,
            ..
        }
    ));
    let mut b = skm.clone();
    put_u32_le(&mut b, 16, 0);
    assert!(matches!(
        skm_err(&b),
        Error::Invalid {
            what: "header.num_meshes",
            offset: 16,
            ..
        }
    ));
    let limits = Limits {
        max_meshes: 0,
        ..Limits::default()
    };
    let e = Skm::parse_with(&skm, &limits, &mut Diagnostics::new())
        .map(|_| ())
        .unwrap_err();
    assert!(
        matches!(
            e,
            Error::Limit {
                what: "header.num_meshes",
                value: 1,
                max: 0,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn skp_rule2_counts() {
    let (_, (skp, _)) = tube_skm();
    let mut b = skp.clone();
    put_u32_le(&mut b, 16, 0);
    assert!(matches!(
        skp_err(&b),
        Error::Invalid {
            what: "header.num_frames",
            offset: 16,
            ..
        }
    ));
    let mut b = skp.clone();
    put_u32_le(&mut b, 16, 65_537);
    assert!(matches!(
        skp_err(&b),
        Error::Limit {
            what: "header.num_frames",
            offset: 16,
            value: 65_537,
            max: 65_536,
            ..
        }
    ));
    let mut b = skp.clone();
    put_u32_le(&mut b, 12, 0);
    assert!(matches!(
        skp_err(&b),
        Error::Invalid {
            what: "header.num_bones",
            offset: 12,
            ..
        }
    ));
}

#[test]
fn rule2_declared_size_beyond_data() {
    let ((mut skm, l), (mut skp, p)) = tube_skm();
    put_u32_le(&mut skm, 8, l.filesize as u32 + 4);
    put_u32_le(&mut skp, 8, p.filesize as u32 + 4);
    assert!(matches!(
        skm_err(&skm),
        Error::Truncated {
            what: "file (header.filesize)",
            ..
        }
    ));
    assert!(matches!(
        skp_err(&skp),
        Error::Truncated {
            what: "file (header.filesize)",
            ..
        }
    ));
}

// ---- rule 3: SKM mesh table and arrays ----

#[test]
fn skm_rule3_mesh_table_past_end() {
    let ((mut skm, l), _) = tube_skm();
    put_u32_le(&mut skm, 20, l.filesize as u32 - 100); // ofs_meshes
    let e = skm_err(&skm);
    assert!(
        matches!(
            e,
            Error::Truncated {
                what: "mesh table",
                need: 156,
                have: 100,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn skm_rule3_mesh_counts() {
    let ((skm, l), _) = tube_skm();
    let mesh = l.meshes[0][0];
    for (field, what) in [
        (128, "mesh.num_verts"),
        (132, "mesh.num_tris"),
        (136, "mesh.num_references"),
    ] {
        let mut b = skm.clone();
        put_u32_le(&mut b, mesh + field, 0);
        let e = skm_err(&b);
        assert!(
            matches!(e, Error::Invalid { what: w, offset, .. } if w == what && offset == mesh + field),
            "{e}"
        );
    }
}

#[test]
fn skm_rule3_arrays_past_end() {
    let ((skm, l), _) = tube_skm();
    let mesh = l.meshes[0][0];
    for (field, what) in [
        (144, "mesh.texcoords"),
        (148, "mesh.indices"),
        (152, "mesh.references"),
    ] {
        let mut b = skm.clone();
        put_u32_le(&mut b, mesh + field, l.filesize as u32);
        let e = skm_err(&b);
        assert!(
            matches!(e, Error::Truncated { what: w, have: 0, .. } if w == what),
            "{what}: {e}"
        );
    }
}

#[test]
fn skm_rule3_vertex_walk() {
    let ((skm, l), _) = tube_skm();
    let verts = l.meshes[0][1];
    let mut b = skm.clone();
    put_u32_le(&mut b, verts, 0);
    assert!(
        matches!(skm_err(&b), Error::Invalid { what: "vertex.numbones", offset, .. } if offset == verts)
    );
    let mut b = skm.clone();
    put_u32_le(&mut b, verts, 17);
    assert!(matches!(
        skm_err(&b),
        Error::Limit {
            what: "vertex.numbones",
            value: 17,
            ..
        }
    ));
    let mut b = skm.clone();
    put_u32_le(&mut b, verts + 4 + 28, 4); // first record's bonenum
    assert!(
        matches!(skm_err(&b), Error::Invalid { what: "bonevert.bonenum", offset, .. } if offset == verts + 32)
    );
    let mut b = skm.clone();
    put_f32_le(&mut b, verts + 4 + 16, f32::NAN); // first record's normal.x
    assert!(
        matches!(skm_err(&b), Error::Invalid { what: "bonevert.normal", offset, .. } if offset == verts + 20)
    );
}

#[test]
fn skm_rule3_index_and_reference_ranges() {
    let ((skm, l), _) = tube_skm();
    let [_, _, _, indices, refs] = l.meshes[0];
    let mut b = skm.clone();
    put_u32_le(&mut b, indices + 8, 136);
    assert!(
        matches!(skm_err(&b), Error::Invalid { what: "mesh.indices", offset, .. } if offset == indices + 8)
    );
    let mut b = skm.clone();
    put_u32_le(&mut b, refs + 4, 4);
    assert!(
        matches!(skm_err(&b), Error::Invalid { what: "mesh.references", offset, .. } if offset == refs + 4)
    );
}

// ---- rule 4: SKP tables, poses, parents, finite values ----

#[test]
fn skp_rule4_tables_past_end() {
    let (_, (skp, p)) = tube_skm();
    let mut b = skp.clone();
    put_u32_le(&mut b, 20, p.filesize as u32 - 72); // ofs_bones: room for 1 of 4 bones
    assert!(matches!(
        skp_err(&b),
        Error::Truncated {
            what: "bone table",
            need: 288,
            have: 72,
            ..
        }
    ));
    let mut b = skp.clone();
    put_u32_le(&mut b, 24, p.filesize as u32); // ofs_frames
    assert!(matches!(
        skp_err(&b),
        Error::Truncated {
            what: "frame table",
            have: 0,
            ..
        }
    ));
}

#[test]
fn skp_rule4_pose_block_past_end() {
    let (_, (mut skp, p)) = tube_skm();
    let frame3 = p.ofs_frames + 3 * 68;
    put_u32_le(&mut skp, frame3 + 64, p.filesize as u32 - 56);
    let e = skp_err(&skp);
    assert!(
        matches!(
            e,
            Error::Truncated {
                what: "frame.bonepositions",
                need: 112,
                have: 56,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn skp_rule4_parents() {
    let (_, (skp, p)) = tube_skm();
    for (bone, parent) in [(1u64, -2i32), (2, 2), (0, 1)] {
        let mut b = skp.clone();
        let field = p.ofs_bones + 72 * bone + 64;
        put_u32_le(&mut b, field, parent as u32);
        let e = skp_err(&b);
        assert!(
            matches!(e, Error::Invalid { format: Format::Skp, what: "bone.parent", offset, .. } if offset == field),
            "{e}"
        );
    }
}

#[test]
fn skp_rule4_non_finite_pose_values() {
    let (_, (skp, p)) = tube_skm();
    let pose = p.frame_poses[5] + 2 * 28; // frame 5, bone 2
    let mut b = skp.clone();
    put_f32_le(&mut b, pose + 8, f32::NAN); // quat.z
    // The offset is the value's own.
    assert!(
        matches!(skp_err(&b), Error::Invalid { what: "bonepose.quat", offset, .. } if offset == pose + 8)
    );
    let mut b = skp.clone();
    put_f32_le(&mut b, pose + 24, f32::INFINITY); // origin.z
    assert!(
        matches!(skp_err(&b), Error::Invalid { what: "bonepose.origin", offset, .. } if offset == pose + 24)
    );
}

#[test]
fn skp_warns_about_non_unit_quaternions() {
    let (_, (mut skp, p)) = tube_skm();
    let pose = p.frame_poses[1] + 28; // frame 1, bone 1
    for k in 0..4 {
        put_f32_le(&mut skp, pose + 4 * k, 0.9); // length 1.8
    }
    let mut diag = Diagnostics::new();
    Skp::parse_with(&skp, &Limits::default(), &mut diag).unwrap();
    let w = diag.get(WarningKind::QuatNotUnit).unwrap();
    assert_eq!((w.offset, w.count, diag.warnings().len()), (pose, 1, 1));
}

// ---- rule 5: pairing ----

#[test]
fn rule5_pairing_requires_equal_bone_counts() {
    let ((skm, _), (skp, _)) = tube_skm();
    // A 3-bone skeleton (one frame, identity poses) against the 4-bone meshes.
    let other = skelmap::skm::SkpBuilder {
        bones: (0..3)
            .map(|i| skelmap::write::BoneDef::new(format!("b{i}"), i - 1))
            .collect(),
        frames: vec![skelmap::skm::FrameDef {
            name: b"f".to_vec(),
            poses: vec![],
        }],
    }
    .write()
    .unwrap();
    let e =
        skm::Pair::new(Skm::parse(&skm).unwrap(), Skp::parse(&other).unwrap(), &[]).unwrap_err();
    assert!(
        matches!(
            &e,
            Error::Invalid {
                format: Format::Skm,
                what: "header.num_bones",
                offset: 12,
                problem: Problem::Mismatch {
                    value: 4,
                    expected: 3
                }
            }
        ),
        "{e}"
    );
    assert!(skm::Pair::new(Skm::parse(&skm).unwrap(), Skp::parse(&skp).unwrap(), &[]).is_ok());
}

/// A 35-bone tube as SKP: two whole steps of sixteen poses a frame, which the quaternion scan
/// takes where the CPU has AVX-512, and three after them, which the scalar check takes.
fn long_skp() -> (Vec<u8>, skelmap::core::skm::write::SkeletonLayout) {
    let params = skelmap::synth::TubeParams {
        bones: 35,
        frames: 3,
        ..skelmap::synth::TubeParams::default()
    };
    let dpm = skelmap::synth::tube(&params).write().unwrap();
    let model = skelmap::dpm::Dpm::parse(&dpm).unwrap();
    let c = skelmap::skm::convert::from_dpm(&model, &mut Diagnostics::new());
    c.skp.write_with_layout().unwrap()
}

#[test]
fn skp_non_unit_quaternions_are_counted_and_located_in_steps_and_after_them() {
    let (clean, p) = long_skp();
    let mut diag = Diagnostics::new();
    Skp::parse_with(&clean, &Limits::default(), &mut diag).unwrap();
    assert!(diag.is_empty(), "{:?}", diag.warnings());
    // (bones broken in frame 1, the bone reported first, the count).
    let cases: [(&[u64], u64, u64); 5] = [
        (&[3], 3, 1),
        (&[33], 33, 1),
        (&[15, 16, 34], 15, 3),
        (&[32, 34], 32, 2),
        (&[0, 5, 17, 31, 32, 34], 0, 6),
    ];
    for (bones, first, count) in cases {
        let mut skp = clean.clone();
        for &bone in bones {
            let pose = p.frame_poses[1] + 28 * bone;
            put_f32_le(&mut skp, pose + 8, 1.2); // quat.z: length² ≥ 1.44
        }
        let mut diag = Diagnostics::new();
        Skp::parse_with(&skp, &Limits::default(), &mut diag).unwrap();
        let w = diag.get(WarningKind::QuatNotUnit).unwrap();
        assert_eq!(
            (w.offset, w.count, diag.warnings().len()),
            (p.frame_poses[1] + 28 * first, count, 1),
            "bones {bones:?}"
        );
    }
}
