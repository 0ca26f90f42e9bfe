//! One test per validation rule of `docs/formats/mdl7.md`, each asserting the error's variant,
//! label, offset and problem, and the warnings of its § Warnings.

use skelmap::Parse;
use skelmap::core::mdl7::{self, Builder, Mdl7, Sizes};
use skelmap::{Diagnostics, Error, Format, Limits, Problem, WarningKind};

use super::{err, err_bytes, err_with, invalid, truncated, unsupported, warnings, warnings_bytes};
use crate::support::mdl7::{demo, layout};
use crate::support::{put_f32_le, put_u16_le, put_u32_le};

#[test]
fn demo_fixture_is_clean() {
    let b = demo();
    let bytes = b.write();
    assert_eq!(Format::sniff(&bytes), Some(Format::Mdl7));
    let mut diag = Diagnostics::new();
    let m = Mdl7::parse_with(&bytes, &Limits::default(), &mut diag).unwrap();
    assert!(diag.is_empty(), "{:?}", diag.warnings());
    let l = layout(&b);
    assert_eq!(
        (l.groups[0], l.skins[0], l.texcoords[0], l.triangles[0]),
        (156, 200, 393, 489)
    );
    assert_eq!(
        (l.vertices[0], l.frames[0], l.deformers, l.end),
        (905, 1217, 2129, 2357)
    );
    assert_eq!(bytes.len() as u64, l.end);
    assert_eq!(m.header().data_size.get() as u64, l.end);
    assert_eq!(
        (m.bones().len(), m.groups().len(), m.skins().len()),
        (3, 1, 2)
    );
    let g = &m.groups()[0];
    assert_eq!(
        (g.vertices().len(), g.triangles().len(), g.frames().len()),
        (12, 16, 4)
    );
    assert_eq!(g.weights().unwrap().len(), 3);
    assert_eq!(m.skins()[0].external(), Some(&b"demo.tga"[..]));
    assert_eq!(m.skins()[1].name(), b"Skin2");
    assert_eq!(m.frame(3).unwrap().name(), b"bend 3");
}

#[test]
fn rule1_the_header_is_48_bytes() {
    let bytes = demo().write();
    let e = err_bytes(&bytes[..47]);
    assert!(
        matches!(
            e,
            Error::Truncated {
                what: "header",
                offset: 0,
                need: 48,
                have: 47,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn rule2_the_magic_is_mdl7() {
    let mut bytes = demo().write();
    bytes[3] = b'5';
    assert!(matches!(err_bytes(&bytes), Error::BadMagic { .. }));
}

#[test]
fn rule3_every_record_size_is_one_real_files_use() {
    let bytes = demo().write();
    // (offset, a size no file uses, the label)
    let cases: [(u64, u16, &str); 10] = [
        (28, 17, "header.bone_stc_size"),
        (30, 32, "header.skin_stc_size"),
        (32, 12, "header.colorvalue_stc_size"),
        (34, 64, "header.material_stc_size"),
        (36, 12, "header.skinpoint_stc_size"),
        (38, 20, "header.triangle_stc_size"),
        (40, 20, "header.mainvertex_stc_size"),
        (42, 14, "header.framevertex_stc_size"),
        (44, 64, "header.bonetrans_stc_size"),
        (46, 28, "header.frame_stc_size"),
    ];
    for (at, size, label) in cases {
        let mut bad = bytes.clone();
        put_u16_le(&mut bad, at, size);
        assert_eq!(unsupported(&err_bytes(&bad)), (label, at, i64::from(size)));
    }
    // Each size real files use is read.
    for sizes in [
        Sizes::PLAYER,
        Sizes::SMALL,
        Sizes {
            bone: 16,
            triangle: 16,
            ..Sizes::PLAYER
        },
        Sizes {
            bone: 48,
            frame_vertex: 16,
            ..Sizes::PLAYER
        },
    ] {
        let b = Builder { sizes, ..demo() };
        let diag = warnings(&b);
        assert!(diag.is_empty(), "{sizes:?}: {:?}", diag.warnings());
    }
}

#[test]
fn rule4_bones_and_groups_within_the_limits() {
    let bytes = demo().write();
    let limits = Limits {
        max_bones: 2,
        ..Limits::default()
    };
    let e = err_with(&bytes, &limits);
    assert!(
        matches!(
            e,
            Error::Limit {
                what: "header.bones_num",
                offset: 8,
                value: 3,
                max: 2,
                ..
            }
        ),
        "{e}"
    );
    let limits = Limits {
        max_meshes: 0,
        ..Limits::default()
    };
    let e = err_with(&bytes, &limits);
    assert!(
        matches!(
            e,
            Error::Limit {
                what: "header.groups_num",
                offset: 12,
                value: 1,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn rule4_bones_are_named_by_16_bit_indices() {
    let mut bytes = demo().write();
    put_u32_le(&mut bytes, 8, 0x1_0000);
    let limits = Limits {
        max_bones: u32::MAX,
        ..Limits::default()
    };
    assert_eq!(
        invalid(&err_with(&bytes, &limits)),
        (
            "header.bones_num",
            8,
            Problem::AboveMaximum {
                value: 0x1_0000,
                max: 0xFFFF
            }
        )
    );
}

#[test]
fn rule5_the_bones_fit() {
    let mut bytes = demo().write();
    put_u32_le(&mut bytes, 8, 256);
    assert_eq!(truncated(&err_bytes(&bytes)), ("bones", 48));
}

#[test]
fn rule6_parents_come_first() {
    let mut bytes = demo().write();
    let bone1 = 48 + 36;
    put_u16_le(&mut bytes, bone1, 2);
    let e = err_bytes(&bytes);
    assert_eq!(
        invalid(&e),
        (
            "bone.parent_index",
            bone1,
            Problem::Parent { bone: 1, parent: 2 }
        )
    );
    put_u16_le(&mut bytes, bone1, 1);
    assert_eq!(
        invalid(&err_bytes(&bytes)).2,
        Problem::Parent { bone: 1, parent: 1 }
    );
}

#[test]
fn rule7_bone_positions_are_finite() {
    let mut bytes = demo().write();
    let y = 48 + 2 * 36 + 8;
    put_f32_le(&mut bytes, y, f32::INFINITY);
    assert_eq!(
        invalid(&err_bytes(&bytes)),
        ("bone.position", y, Problem::NotFinite)
    );
}

#[test]
fn rule8_the_group_heads_fit_before_any_is_reserved() {
    let mut bytes = demo().write();
    put_u32_le(&mut bytes, 12, 200);
    let e = err_bytes(&bytes);
    assert!(
        matches!(
            e,
            Error::Truncated {
                what: "group",
                offset: 156,
                need: 8800,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn rule9_groups_are_triangle_meshes() {
    let b = Builder {
        groups: vec![mdl7::GroupDef {
            typ: 2,
            ..demo().groups[0].clone()
        }],
        ..demo()
    };
    assert_eq!(unsupported(&err(&b)), ("group.typ", 156, 2));
}

#[test]
fn rule10_skins_within_the_limit_fit_and_follow_the_skin_rules() {
    let bytes = demo().write();
    let numskins = 156 + 24;
    let mut bad = bytes.clone();
    put_u32_le(&mut bad, numskins, 257);
    assert!(matches!(
        err_bytes(&bad),
        Error::Limit {
            what: "group.numskins",
            offset: 180,
            value: 257,
            ..
        }
    ));
    put_u32_le(&mut bad, numskins, 200);
    assert_eq!(truncated(&err_bytes(&bad)), ("skin", 200));
    // A skin type no MDL7-style record has.
    let mut bad = bytes.clone();
    put_u32_le(&mut bad, 200, 0x47);
    assert_eq!(unsupported(&err_bytes(&bad)), ("skin.type", 200, 0x47));
    // A reference must name another skin of the same group.
    let mut b = demo();
    b.groups[0].skins[1] = mdl7::SkinDef {
        typ: 1,
        width: 1,
        height: 0,
        name: b"self".to_vec(),
        payload: Vec::new(),
    };
    assert_eq!(
        invalid(&err(&b)),
        ("skin.width", 237 + 4, Problem::Index { index: 1, len: 2 })
    );
    // The name field is read: a truncated one is reported as such (skin 1's, at 237 + 12).
    assert_eq!(
        truncated(&err_bytes(&bytes[..260])),
        ("skin.texture_name", 249)
    );
}

#[test]
fn rule11_texture_coordinates_fit() {
    let mut bytes = demo().write();
    put_u32_le(&mut bytes, 156 + 28, 1_000_000);
    assert_eq!(truncated(&err_bytes(&bytes)), ("group.texcoords", 393));
}

#[test]
fn rule12_the_one_mesh_within_the_vertex_and_triangle_limits() {
    let bytes = demo().write();
    let limits = Limits {
        max_vertices_per_mesh: 11,
        ..Limits::default()
    };
    assert!(matches!(
        err_with(&bytes, &limits),
        Error::Limit {
            what: "group.numverts",
            offset: 192,
            value: 12,
            max: 11,
            ..
        }
    ));
    let limits = Limits {
        max_triangles_per_mesh: 15,
        ..Limits::default()
    };
    assert!(matches!(
        err_with(&bytes, &limits),
        Error::Limit {
            what: "group.numtris",
            offset: 188,
            value: 16,
            ..
        }
    ));
}

#[test]
fn rule13_triangles_fit_and_name_vertices_and_texture_coordinates() {
    let bytes = demo().write();
    let tri = 489 + 26; // triangle 1
    let mut bad = bytes.clone();
    put_u16_le(&mut bad, tri + 4, 12);
    assert_eq!(
        invalid(&err_bytes(&bad)),
        (
            "triangle.v_index",
            tri + 4,
            Problem::Index { index: 12, len: 12 }
        )
    );
    let mut bad = bytes.clone();
    put_u16_le(&mut bad, tri + 8, 12);
    assert_eq!(
        invalid(&err_bytes(&bad)),
        (
            "triangle.st_index",
            tri + 8,
            Problem::Index { index: 12, len: 12 }
        )
    );
    // The second set of a 26-byte triangle, at byte 16, is not read: any value passes.
    let mut unread = bytes.clone();
    put_u16_le(&mut unread, tri + 18, 40);
    assert!(warnings_bytes(&unread).is_empty());
    let mut bad = bytes.clone();
    put_u32_le(&mut bad, 156 + 32, 100);
    assert_eq!(truncated(&err_bytes(&bad)), ("group.triangles", 489));
    // Without texture coordinates, their indices are not read.
    let mut b = demo();
    b.groups[0].texcoords.clear();
    assert!(warnings(&b).is_empty());
}

#[test]
fn rule14_main_vertices_are_finite_with_normals_and_bones() {
    let bytes = demo().write();
    let v3 = 905 + 3 * 26;
    let cases: [(u64, &str, Problem); 2] = [
        (v3 + 8, "vertex.position", Problem::NotFinite),
        (v3 + 18, "vertex.norm", Problem::NotFinite),
    ];
    for (at, label, problem) in cases {
        let mut bad = bytes.clone();
        put_f32_le(&mut bad, at, f32::NAN);
        assert_eq!(invalid(&err_bytes(&bad)), (label, at, problem));
    }
    let mut bad = bytes.clone();
    put_u16_le(&mut bad, v3 + 12, 3);
    assert_eq!(
        invalid(&err_bytes(&bad)),
        (
            "vertex.vertindex",
            v3 + 12,
            Problem::Index { index: 3, len: 3 }
        )
    );
    // 16-byte vertices: a normal-table index.
    let b = Builder {
        sizes: Sizes::SMALL,
        ..demo()
    };
    let l = layout(&b);
    // An index past the table is read as a zero normal, warned (see `engine.rs`).
    let mut past = b.write();
    let at = l.vertices[0] + 16 + 14;
    past[at as usize] = 162;
    let diag = warnings_bytes(&past);
    let w = diag.get(WarningKind::NormalIndex).unwrap();
    assert_eq!((w.what, w.offset, w.count), ("vertex.norm162index", at, 1));
    let mut bad = bytes.clone();
    put_u32_le(&mut bad, 156 + 36, 1000);
    assert_eq!(truncated(&err_bytes(&bad)), ("group.vertices", 905));
}

/// The demo with frame 1 replacing vertices 2 and 5 (a boneless copy, so that frame vertices
/// are read without a warning).
fn morph_demo() -> Builder {
    let mut b = demo();
    b.bones.clear();
    let g = &mut b.groups[0];
    g.weights = None;
    for v in &mut g.vertices {
        v.vertindex = 0xFFFF;
    }
    for f in &mut g.frames {
        f.transforms.clear();
    }
    g.frames[1].vertices = [2u16, 5]
        .iter()
        .map(|&i| mdl7::VertexDef {
            position: [0.0, 0.0, 9.0],
            vertindex: i,
            normal: [0.0, 0.0, 1.0],
        })
        .collect();
    b
}

#[test]
fn rule15_frames_replace_vertices_in_order_and_move_bones() {
    let b = morph_demo();
    assert!(warnings(&b).is_empty());
    let l = layout(&b);
    let frame1 = l.frames[0] + 24;
    let first = frame1 + 24; // its first vertex
    let bytes = b.write();
    let mut bad = bytes.clone();
    put_u16_le(&mut bad, first + 12, 12);
    assert_eq!(
        invalid(&err_bytes(&bad)),
        (
            "frame_vertex.vertindex",
            first + 12,
            Problem::Index { index: 12, len: 12 }
        )
    );
    // Out of order or twice: read (the last listing wins), warned (see `engine.rs`).
    let mut twice = bytes.clone();
    put_u16_le(&mut twice, first + 26 + 12, 2);
    let diag = warnings_bytes(&twice);
    let w = diag.get(WarningKind::FrameVertexOrder).unwrap();
    assert_eq!(
        (w.what, w.offset, w.count),
        ("frame_vertex.vertindex", first + 26 + 12, 1)
    );
    let mut bad = bytes.clone();
    put_f32_le(&mut bad, first + 4, f32::NAN);
    assert_eq!(
        invalid(&err_bytes(&bad)),
        ("frame_vertex.position", first + 4, Problem::NotFinite)
    );
    let mut bad = bytes.clone();
    put_u32_le(&mut bad, frame1 + 16, 100);
    assert_eq!(truncated(&err_bytes(&bad)), ("frame.vertices", first));
    let mut bad = bytes.clone();
    put_u32_le(&mut bad, l.groups[0] + 40, 1000);
    assert_eq!(truncated(&err_bytes(&bad)), ("frame", l.frames[0]));
    let limits = Limits {
        max_frames: 3,
        ..Limits::default()
    };
    assert!(matches!(
        err_with(&bytes, &limits),
        Error::Limit {
            what: "group.numframes",
            offset,
            value: 4,
            ..
        } if offset == l.groups[0] + 40
    ));
    // Bone motions: the demo's frame 0, bone 2 (its third record).
    let bytes = demo().write();
    let record = 1217 + 24 + 2 * 68;
    let mut bad = bytes.clone();
    put_u16_le(&mut bad, record + 64, 3);
    assert_eq!(
        invalid(&err_bytes(&bad)),
        (
            "bone_transform.bone_index",
            record + 64,
            Problem::Index { index: 3, len: 3 }
        )
    );
    let mut bad = bytes.clone();
    put_f32_le(&mut bad, record + 4 * 13, f32::NEG_INFINITY);
    assert_eq!(
        invalid(&err_bytes(&bad)),
        ("bone_transform.m", record + 52, Problem::NotFinite)
    );
    let mut bad = bytes.clone();
    put_u32_le(&mut bad, 1217 + 20, 50);
    assert_eq!(truncated(&err_bytes(&bad)), ("frame.transforms", 1241));
}

#[test]
fn rule16_deformers_weight_vertices_of_their_group_by_bones() {
    let bytes = demo().write();
    let d = 2129;
    let mut bad = bytes.clone();
    bad[d as usize + 1] = 1;
    assert_eq!(
        unsupported(&err_bytes(&bad)),
        ("deformer.deformer_typ", d + 1, 1)
    );
    let mut bad = bytes.clone();
    put_u32_le(&mut bad, d + 4, 1);
    assert_eq!(
        invalid(&err_bytes(&bad)),
        (
            "deformer.group_index",
            d + 4,
            Problem::Index { index: 1, len: 1 }
        )
    );
    let element0 = d + 16;
    let mut bad = bytes.clone();
    put_u32_le(&mut bad, element0, 3);
    assert_eq!(
        invalid(&err_bytes(&bad)),
        (
            "deformer_element.element_index",
            element0,
            Problem::Index { index: 3, len: 3 }
        )
    );
    let weight2 = element0 + 28 + 2 * 8;
    let mut bad = bytes.clone();
    put_u32_le(&mut bad, weight2, 12);
    assert_eq!(
        invalid(&err_bytes(&bad)),
        (
            "deformer_weight.index",
            weight2,
            Problem::Index { index: 12, len: 12 }
        )
    );
    let mut bad = bytes.clone();
    put_f32_le(&mut bad, weight2 + 4, f32::NAN);
    assert_eq!(
        invalid(&err_bytes(&bad)),
        ("deformer_weight.weight", weight2 + 4, Problem::NotFinite)
    );
    let mut bad = bytes.clone();
    put_f32_le(&mut bad, weight2 + 4, -0.5);
    assert_eq!(
        invalid(&err_bytes(&bad)),
        (
            "deformer_weight.weight",
            weight2 + 4,
            Problem::NotPositive { value: -0.5 }
        )
    );
    let mut bad = bytes.clone();
    put_u32_le(&mut bad, d + 12, 229);
    assert_eq!(
        invalid(&err_bytes(&bad)),
        (
            "deformer.deformerdata_size",
            d + 12,
            Problem::Mismatch {
                value: 229,
                expected: 228
            }
        )
    );
    let mut bad = bytes.clone();
    put_u32_le(&mut bad, element0 + 24, 1000);
    assert_eq!(
        truncated(&err_bytes(&bad)),
        ("deformer_weight", element0 + 28)
    );
    let mut bad = bytes.clone();
    put_u32_le(&mut bad, d + 8, 100);
    assert_eq!(truncated(&err_bytes(&bad)), ("deformer_element", d + 16));
    let limits = Limits {
        max_total_influences: 10,
        ..Limits::default()
    };
    assert!(matches!(
        err_with(&bytes, &limits),
        Error::Limit {
            what: "deformer_element.weights",
            value: 12,
            max: 10,
            ..
        }
    ));
    // A second bone deformer for the same group.
    let mut twice = bytes.clone();
    twice[156 + 1] = 2;
    let block = bytes[d as usize..].to_vec();
    twice.extend_from_slice(&block);
    assert_eq!(
        unsupported(&err_bytes(&twice)),
        ("deformer.group_index", 2357 + 4, 0)
    );
    // A deformer the groups promise but the file lacks.
    let mut missing = bytes.clone();
    missing[156 + 1] = 2;
    assert_eq!(truncated(&err_bytes(&missing)), ("deformer", 2357));
}

#[test]
fn every_warning_names_its_field() {
    let mut b = demo();
    b.version = 3;
    b.trailing = b"entity lump".to_vec();
    b.bones[1].name = b"a_name_of_20_bytes_x".to_vec();
    b.groups[0].triangles[0].material = 7;
    // A scaled motion.
    b.groups[0].frames[2].transforms[2].1[0] = 2.0;
    let diag = warnings(&b);
    let kinds: Vec<_> = diag.warnings().iter().map(|w| (w.kind, w.what)).collect();
    assert_eq!(
        kinds,
        [
            (WarningKind::SpecLimit, "header.version"),
            (WarningKind::UnterminatedName, "bone.name"),
            // The rotation check after validation, as `Model::diagnostics` runs it.
            (WarningKind::NonOrthonormal, "bone_transform.m"),
        ],
        "{:?}",
        diag.warnings()
    );
    // The material warning is a SpecLimit too: counted with the version's.
    assert_eq!(diag.count(WarningKind::SpecLimit), 2);
    // Frame 2's third record: 1217 + 2 · 228 + 24 + 2 · 68.
    let skewed = diag.get(WarningKind::NonOrthonormal).unwrap();
    assert_eq!((skewed.offset, skewed.count), (1833, 1));
    assert!(
        skewed.detail.contains("frame 2 scales or shears bone 2"),
        "{}",
        skewed.detail
    );
    // The entity lump the header sizes is part of the file (real A6/A7 models end with it
    // and an editor lump: Acknex/Ackmania's `lotterDrums.mdl`, 4,896 + 63,972 bytes); bytes
    // past both lumps, or lumps cut short, are said.
    let mut lumped = demo();
    lumped.trailing = b"entity lump".to_vec();
    let bytes = lumped.write();
    assert!(warnings_bytes(&bytes).is_empty());
    let main_end = bytes.len() as u64 - 11;
    let mut extra = bytes.clone();
    extra.extend_from_slice(b"xyz");
    let diag = warnings_bytes(&extra);
    let w = diag.get(WarningKind::TrailingBytes).unwrap();
    assert_eq!((w.what, w.offset), ("lumps", main_end + 11));
    assert_eq!(
        w.detail,
        "3 bytes after the main data and the entity and editor lumps (11 bytes), ignored"
    );
    let short = &bytes[..bytes.len() - 4];
    let diag = warnings_bytes(short);
    let w = diag.get(WarningKind::FileSize).unwrap();
    assert_eq!((w.what, w.offset), ("header.entlump_size", 20));
    assert_eq!(
        w.detail,
        "the entity and editor lumps declare 11 + 0 bytes; the file holds 7 after the main data"
    );
    let view = Mdl7::parse(short).unwrap();
    assert_eq!(
        (view.entity_lump(), view.editor_lump()),
        (&b"entity "[..], &b""[..])
    );
    let mut both = bytes.clone();
    put_u32_le(&mut both, 20, 7);
    put_u32_le(&mut both, 24, 4);
    let view = Mdl7::parse(&both).unwrap();
    assert_eq!(
        (view.entity_lump(), view.editor_lump()),
        (&b"entity "[..], &b"lump"[..])
    );
    assert!(warnings_bytes(&both).is_empty());
    let bytes = demo().write();
    let mut wrong = bytes.clone();
    put_u32_le(&mut wrong, 16, 10);
    let diag = warnings_bytes(&wrong);
    assert_eq!(
        diag.get(WarningKind::FileSize).map(|w| (w.what, w.offset)),
        Some(("header.data_size", 16))
    );
    // Frame vertices of a skeletal model are read (replaced, then skinned): no warning.
    let mut b = demo();
    b.groups[0].frames[1].vertices = vec![mdl7::VertexDef {
        position: [0.0; 3],
        vertindex: 0,
        normal: [0.0, 0.0, 1.0],
    }];
    assert!(warnings(&b).is_empty());
    // Bone transformations in a group other than 0 are not read, and said so.
    let mut b = demo();
    let mut second = b.groups[0].clone();
    second.weights = None;
    b.groups.push(second);
    assert_eq!(
        warnings(&b).get(WarningKind::SpecLimit).map(|w| w.what),
        Some("frame.transmatrix_count")
    );
    // A texture coordinate that is not finite: warned, with how many.
    let mut b = demo();
    b.groups[0].texcoords[3] = [f32::NAN, f32::INFINITY];
    let diag = warnings(&b);
    let texcoords = diag.get(WarningKind::NonFiniteTexcoord).unwrap();
    assert_eq!(
        (texcoords.what, texcoords.offset, texcoords.count),
        ("group.texcoords", 393 + 24, 2)
    );
    // No groups.
    let b = Builder::default();
    assert_eq!(
        warnings(&b).get(WarningKind::NoGroups).map(|w| w.what),
        Some("header.groups_num")
    );
    assert!(Mdl7::parse(&b.write()).is_ok());
}
