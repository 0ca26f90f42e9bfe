//! One test per validation rule of `md2`'s module docs (and per malformed pattern issue #54
//! names), each asserting the exact error or warning, its field and its offset.

use core::mem::offset_of;

use skelmap::md2::Md2;
use skelmap::md2::raw::{DaliasFrame, Dmdl, Dtriangle, GlVertex};
use skelmap::md2::write::{Builder, FrameDef, GlCommandDef};
use skelmap::{Error, Format, Limits, Parse, Problem, WarningKind};

use super::{err, err_with, get_i32, invalid, put_i32, truncated, warnings};

fn field(f: usize) -> u64 {
    f as u64
}

/// The triangle, written, and where each array starts.
fn triangle() -> (Vec<u8>, [u64; 5]) {
    let bytes = Builder::triangle().write();
    let ofs = [
        offset_of!(Dmdl, ofs_skins),
        offset_of!(Dmdl, ofs_st),
        offset_of!(Dmdl, ofs_tris),
        offset_of!(Dmdl, ofs_frames),
        offset_of!(Dmdl, ofs_glcmds),
    ]
    .map(|f| get_i32(&bytes, f as u64) as u64);
    (bytes, ofs)
}

#[test]
fn the_builder_s_triangle_opens_without_warnings() {
    let (bytes, ofs) = triangle();
    assert_eq!(ofs, [68, 132, 144, 156, 208]);
    assert!(warnings(&bytes).is_empty());
    let md2 = Md2::parse(&bytes).unwrap();
    assert_eq!(md2.gl_commands().count(), 1);
}

/// Rule 1: the magic and the version.
#[test]
fn rule_1_magic_idp2_and_version_8() {
    let (mut bytes, _) = triangle();
    bytes[3] = b'3';
    assert!(matches!(
        err(&bytes),
        Error::BadMagic {
            format: Format::Md2,
            ..
        }
    ));
    let (mut bytes, _) = triangle();
    put_i32(&mut bytes, field(offset_of!(Dmdl, version)), 7);
    assert!(matches!(
        err(&bytes),
        Error::Unsupported {
            format: Format::Md2,
            what: "header.version",
            offset: 4,
            value: 7,
            ..
        }
    ));
    // A prefix of the magic is a file cut short.
    assert_eq!(truncated(&err(b"IDP")).0, "header");
}

/// Rule 2, and assimp's `malformed_zero_numvertices.md2`: a model of zero vertices.
#[test]
fn rule_2_zero_vertices_is_refused_like_assimps_malformed_file() {
    let (mut bytes, _) = triangle();
    let at = field(offset_of!(Dmdl, num_xyz));
    put_i32(&mut bytes, at, 0);
    assert_eq!(
        invalid(&err(&bytes)),
        (Format::Md2, "header.num_xyz", at, Problem::Empty)
    );
    for (f, what) in [
        (offset_of!(Dmdl, num_tris), "header.num_tris"),
        (offset_of!(Dmdl, num_frames), "header.num_frames"),
    ] {
        let (mut bytes, _) = triangle();
        put_i32(&mut bytes, field(f), 0);
        assert_eq!(
            invalid(&err(&bytes)),
            (Format::Md2, what, field(f), Problem::Empty)
        );
    }
}

/// Rule 2: counts, sizes and offsets are not negative.
#[test]
fn rule_2_negative_counts_and_offsets() {
    for (f, what) in [
        (offset_of!(Dmdl, framesize), "header.framesize"),
        (offset_of!(Dmdl, num_skins), "header.num_skins"),
        (offset_of!(Dmdl, num_st), "header.num_st"),
        (offset_of!(Dmdl, num_glcmds), "header.num_glcmds"),
        (offset_of!(Dmdl, ofs_tris), "header.ofs_tris"),
        (offset_of!(Dmdl, ofs_end), "header.ofs_end"),
    ] {
        let (mut bytes, _) = triangle();
        put_i32(&mut bytes, field(f), -3);
        assert_eq!(
            invalid(&err(&bytes)),
            (Format::Md2, what, field(f), Problem::Negative { value: -3 }),
            "{what}"
        );
    }
}

/// Rule 2: counts within the limits (errors) and within Quake II's (warnings).
#[test]
fn rule_2_limits_refuse_and_quake_ii_limits_warn() {
    let bytes = super::animated().write();
    let limits = Limits {
        max_frames: 2,
        ..Limits::default()
    };
    let at = field(offset_of!(Dmdl, num_frames));
    assert!(matches!(
        err_with(&bytes, &limits),
        Error::Limit { format: Format::Md2, what: "header.num_frames", offset, value: 3, max: 2 }
            if offset == at
    ));
    let limits = Limits {
        max_skins: 1,
        ..Limits::default()
    };
    assert!(matches!(
        err_with(&bytes, &limits),
        Error::Limit {
            what: "header.num_skins",
            value: 2,
            ..
        }
    ));
    // A count that would read far past the file is refused by the limits, not trusted.
    let (mut bytes, _) = triangle();
    put_i32(&mut bytes, field(offset_of!(Dmdl, num_tris)), i32::MAX);
    assert!(matches!(
        err(&bytes),
        Error::Limit {
            what: "header.num_tris",
            ..
        }
    ));
    // 2049 vertices: past Quake II's 2048, a warning.
    let many = Builder {
        frames: vec![FrameDef {
            name: b"base".to_vec(),
            scale: [1.0; 3],
            translate: [0.0; 3],
            vertices: vec![([1, 2, 3], 0); 2049],
        }],
        ..Builder::triangle()
    };
    let diag = warnings(&many.write());
    let w = diag
        .get(WarningKind::SpecLimit)
        .expect("engine limit warned");
    assert_eq!(
        (w.what, w.offset),
        ("header.num_xyz", field(offset_of!(Dmdl, num_xyz)))
    );
}

/// Rule 3: `framesize` holds a frame; more is a warning, and the frames are that far apart.
#[test]
fn rule_3_framesize_against_num_xyz() {
    let (mut bytes, _) = triangle();
    let at = field(offset_of!(Dmdl, framesize));
    put_i32(&mut bytes, at, 51);
    assert_eq!(
        invalid(&err(&bytes)),
        (
            Format::Md2,
            "header.framesize",
            at,
            Problem::BelowMinimum { value: 51, min: 52 }
        )
    );
    // Four bytes of padding after each of two frames: read with the stride.
    let mut b = Builder::triangle();
    let mut second = b.frames[0].clone();
    second.name = b"base2".to_vec();
    second.vertices[1].0 = [9, 0, 0];
    b.frames.push(second);
    let mut bytes = b.write();
    let frames_at = get_i32(&bytes, field(offset_of!(Dmdl, ofs_frames))) as usize;
    for f in [1, 0] {
        let end = frames_at + 52 * (f + 1);
        bytes.splice(end..end, [0xEE; 4]);
    }
    put_i32(&mut bytes, at, 56);
    for f in [offset_of!(Dmdl, ofs_glcmds), offset_of!(Dmdl, ofs_end)] {
        let v = get_i32(&bytes, field(f));
        put_i32(&mut bytes, field(f), v + 8);
    }
    let diag = warnings(&bytes);
    let w = diag.get(WarningKind::LayoutOrder).expect("padding warned");
    assert_eq!((w.what, w.offset), ("header.framesize", at));
    let md2 = Md2::parse(&bytes).unwrap();
    assert_eq!(md2.frames().stride(), 56);
    assert_eq!(
        md2.frames().get(1).unwrap().position(1),
        Some([9.0, 0.0, 0.0])
    );
    assert_eq!(md2.frames().get(1).unwrap().name(), b"base2");
}

/// Rule 4: an array's offset pointing into the header.
#[test]
fn rule_4_an_array_inside_the_header() {
    let (mut bytes, _) = triangle();
    let at = field(offset_of!(Dmdl, ofs_frames));
    put_i32(&mut bytes, at, 10);
    assert_eq!(
        invalid(&err(&bytes)),
        (
            Format::Md2,
            "header.ofs_frames",
            at,
            Problem::BelowMinimum { value: 10, min: 68 }
        )
    );
}

/// Rule 4 (assimp CVE-2025-3549, OSS-Fuzz 68711 in MD3's, the same pattern): offsets that
/// point into each other.
#[test]
fn rule_4_arrays_pointing_into_each_other() {
    let (mut bytes, ofs) = triangle();
    let at = field(offset_of!(Dmdl, ofs_tris));
    // The triangles moved 4 bytes into the texture coordinates (132..144).
    put_i32(&mut bytes, at, ofs[1] as i32 + 4);
    assert_eq!(
        invalid(&err(&bytes)),
        (
            Format::Md2,
            "header.ofs_tris",
            at,
            Problem::BelowMinimum {
                value: ofs[1] + 4,
                min: ofs[2]
            }
        )
    );
    // An empty array may sit anywhere: no skins, the offset left in the frames.
    let no_skins = Builder {
        skins: Vec::new(),
        ..Builder::triangle()
    };
    let mut bytes = no_skins.write();
    let frames_at = get_i32(&bytes, field(offset_of!(Dmdl, ofs_frames)));
    put_i32(
        &mut bytes,
        field(offset_of!(Dmdl, ofs_skins)),
        frames_at + 4,
    );
    assert!(Md2::parse(&bytes).is_ok());
}

/// Rule 4: offsets and `ofs_end` outside the file.
#[test]
fn rule_4_arrays_and_ofs_end_outside_the_file() {
    let (mut bytes, _) = triangle();
    let len = bytes.len() as u64;
    put_i32(&mut bytes, field(offset_of!(Dmdl, ofs_glcmds)), len as i32);
    assert_eq!(truncated(&err(&bytes)), ("glcmds", len, 44, 0));
    let (mut bytes, _) = triangle();
    put_i32(&mut bytes, field(offset_of!(Dmdl, ofs_end)), len as i32 + 1);
    assert_eq!(
        truncated(&err(&bytes)),
        ("file (header.ofs_end)", 0, len + 1, len)
    );
    // Bytes past `ofs_end`: a warning.
    let trailing = Builder {
        trailing: vec![0; 5],
        ..Builder::triangle()
    };
    let diag = warnings(&trailing.write());
    let w = diag.get(WarningKind::FileSize).expect("size warned");
    assert_eq!(
        (w.what, w.offset),
        ("header.ofs_end", field(offset_of!(Dmdl, ofs_end)))
    );
    // `ofs_end` short of the arrays: a warning, and the arrays still read.
    let (mut bytes, _) = triangle();
    put_i32(&mut bytes, field(offset_of!(Dmdl, ofs_end)), 100);
    assert!(warnings(&bytes).get(WarningKind::FileSize).is_some());
}

/// Rule 5 (assimp #6771): a skin name without its NUL; frame names only warn.
#[test]
fn rule_5_unterminated_skin_names() {
    let long = Builder {
        skins: vec![vec![b'a'; 64]],
        ..Builder::triangle()
    };
    let (_, ofs) = triangle();
    assert_eq!(
        invalid(&err(&long.write())),
        (
            Format::Md2,
            "skin.name",
            ofs[0],
            Problem::Unterminated { len: 64 }
        )
    );
    let mut b = Builder::triangle();
    b.frames[0].name = b"sixteen_bytes_xx".to_vec();
    let diag = warnings(&b.write());
    let w = diag
        .get(WarningKind::UnterminatedName)
        .expect("name warned");
    assert_eq!(
        (w.what, w.offset),
        ("frame.name", ofs[3] + offset_of!(DaliasFrame, name) as u64)
    );
}

/// Rule 6: triangle indices in range, read unsigned.
#[test]
fn rule_6_triangle_indices() {
    let (_, ofs) = triangle();
    let mut b = Builder::triangle();
    b.triangles[0].0[2] = 3;
    let at = ofs[2] + offset_of!(Dtriangle, index_xyz) as u64 + 4;
    assert_eq!(
        invalid(&err(&b.write())),
        (
            Format::Md2,
            "triangle.index_xyz",
            at,
            Problem::Index { index: 3, len: 3 }
        )
    );
    let mut b = Builder::triangle();
    b.triangles[0].1[1] = 0xFFFF; // -1 as a C `short`: 65535 unsigned
    let at = ofs[2] + offset_of!(Dtriangle, index_st) as u64 + 2;
    assert_eq!(
        invalid(&err(&b.write())),
        (
            Format::Md2,
            "triangle.index_st",
            at,
            Problem::Index {
                index: 65535,
                len: 3
            }
        )
    );
}

/// Rule 7: frame scale and translate finite, and what they unpack to.
#[test]
fn rule_7_frame_scale_and_translate() {
    let (_, ofs) = triangle();
    for (k, scale, translate, what, field_at) in [
        (
            1,
            f32::NAN,
            0.0,
            "frame.scale",
            offset_of!(DaliasFrame, scale) + 4,
        ),
        (
            2,
            1.0,
            f32::INFINITY,
            "frame.translate",
            offset_of!(DaliasFrame, translate) + 8,
        ),
        (0, 3e38, 3e38, "frame.scale", offset_of!(DaliasFrame, scale)),
    ] {
        let mut b = Builder::triangle();
        b.frames[0].scale[k] = scale;
        b.frames[0].translate[k] = translate;
        assert_eq!(
            invalid(&err(&b.write())),
            (
                Format::Md2,
                what,
                ofs[3] + field_at as u64,
                Problem::NotFinite
            ),
            "{what} {k}"
        );
    }
}

/// Rule 8: a strip that runs off the end of the command list.
#[test]
fn rule_8_gl_commands_running_off_the_end() {
    let (_, ofs) = triangle();
    // A strip of 5 with 3 vertices' words and the 0 after them: 15 words needed, 10 left.
    let mut words = GlCommandDef::words(&[GlCommandDef {
        fan: false,
        vertices: vec![([0.0, 0.0], 0), ([1.0, 0.0], 1), ([0.0, 1.0], 2)],
    }]);
    words[0] = 5;
    let b = Builder {
        gl_words: Some(words),
        ..Builder::triangle()
    };
    assert_eq!(
        invalid(&err(&b.write())),
        (
            Format::Md2,
            "glcmd.count",
            ofs[4],
            Problem::CommandOverrun { need: 15, left: 10 }
        )
    );
    // A fan of i32::MIN vertices: its size does not overflow the walk.
    let b = Builder {
        gl_words: Some(vec![i32::MIN, 0]),
        ..Builder::triangle()
    };
    assert!(matches!(
        invalid(&err(&b.write())).3,
        Problem::CommandOverrun { left: 1, .. }
    ));
}

/// Rule 8: a list without its terminating 0, and a vertex index out of range.
#[test]
fn rule_8_gl_commands_without_their_end_or_naming_a_missing_vertex() {
    let (_, ofs) = triangle();
    let strip = GlCommandDef {
        fan: true,
        vertices: vec![([0.0, 0.0], 0), ([1.0, 0.0], 1), ([0.0, 1.0], 2)],
    };
    let mut words = GlCommandDef::words(std::slice::from_ref(&strip));
    words.pop();
    let b = Builder {
        gl_words: Some(words),
        ..Builder::triangle()
    };
    assert_eq!(
        invalid(&err(&b.write())),
        (
            Format::Md2,
            "glcmds",
            ofs[4] + 40,
            Problem::NoTerminator { words: 10 }
        )
    );
    let mut bad = strip;
    bad.vertices[2].1 = 3;
    let b = Builder {
        gl_words: Some(GlCommandDef::words(&[bad])),
        ..Builder::triangle()
    };
    let at = ofs[4] + 4 + 2 * 12 + offset_of!(GlVertex, index) as u64;
    assert_eq!(
        invalid(&err(&b.write())),
        (
            Format::Md2,
            "glcmd.index",
            at,
            Problem::Index { index: 3, len: 3 }
        )
    );
}

/// Rule 8: an empty command list, words after the 0, a texture coordinate that is not
/// finite: warnings.
#[test]
fn rule_8_gl_command_warnings() {
    let empty = Builder {
        gl_words: Some(Vec::new()),
        ..Builder::triangle()
    };
    let diag = warnings(&empty.write());
    assert_eq!(
        diag.get(WarningKind::SpecLimit).map(|w| w.what),
        Some("header.num_glcmds")
    );
    assert_eq!(Md2::parse(&empty.write()).unwrap().gl_commands().count(), 0);
    let (_, ofs) = triangle();
    let strip = GlCommandDef {
        fan: false,
        vertices: vec![([f32::NAN, 0.0], 0), ([1.0, 0.0], 1), ([0.0, 1.0], 2)],
    };
    let mut words = GlCommandDef::words(&[strip]);
    words.extend([7, 7]);
    let b = Builder {
        gl_words: Some(words),
        ..Builder::triangle()
    };
    let bytes = b.write();
    let diag = warnings(&bytes);
    let after = diag
        .get(WarningKind::TrailingBytes)
        .expect("words after the end");
    assert_eq!((after.what, after.offset), ("glcmds", ofs[4] + 44));
    let st = diag
        .get(WarningKind::NonFiniteTexcoord)
        .expect("NaN warned");
    assert_eq!((st.what, st.offset), ("glcmd.st", ofs[4] + 4));
    let commands: Vec<_> = Md2::parse(&bytes).unwrap().gl_commands().collect();
    assert_eq!(commands.len(), 1);
    assert!(!commands[0].fan && commands[0].vertices.len() == 3);
}

/// Rule 9: a skin without size, texture coordinates outside the skin, normal indices past
/// the table (read as the first, as DarkPlaces reads them).
#[test]
fn rule_9_warnings_that_read_on() {
    let sizeless = Builder {
        skin_size: [0, 64],
        ..Builder::triangle()
    };
    let bytes = sizeless.write();
    let w = warnings(&bytes);
    assert_eq!(
        w.get(WarningKind::SpecLimit).map(|w| (w.what, w.offset)),
        Some(("header.skinwidth", field(offset_of!(Dmdl, skinwidth))))
    );
    let model = skelmap::Model::from_bytes(&bytes).unwrap();
    assert_eq!(
        model.mesh(0).unwrap().texcoord_layout(),
        skelmap::model::TexcoordLayout::None
    );
    let (_, ofs) = triangle();
    let mut b = Builder::triangle();
    b.st[2] = [3, 9];
    let w = warnings(&b.write());
    let spec = w.get(WarningKind::SpecLimit).expect("outside the skin");
    assert_eq!((spec.what, spec.offset), ("st", ofs[1] + 8));
    let mut b = Builder::triangle();
    b.frames[0].vertices[1].1 = 200;
    b.frames[0].vertices[2].1 = 162;
    let bytes = b.write();
    let w = warnings(&bytes);
    let normal = w
        .get(WarningKind::NormalIndex)
        .expect("normal index warned");
    assert_eq!(
        (normal.what, normal.offset, normal.count),
        ("frame.vertices", ofs[3] + 40 + 4 + 3, 2)
    );
    let md2 = Md2::parse(&bytes).unwrap();
    let first = skelmap::alias::anorms::NORMALS[0];
    assert_eq!(md2.frames().get(0).unwrap().normal(1), Some(first));
    let (mut p, mut n) = (vec![[0.0; 3]; 3], vec![[0.0; 3]; 3]);
    md2.tween_with_level(
        skelmap::skin::SimdLevel::detect(),
        0,
        0,
        0.0,
        &mut p,
        &mut n,
    )
    .unwrap();
    for k in 0..3 {
        assert!((n[1][k] - first[k]).abs() < 1e-6 && (n[2][k] - first[k]).abs() < 1e-6);
    }
}
