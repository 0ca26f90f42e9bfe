//! MDL3/4/5: the quad fixture, then one test per validation rule of `docs/formats/mdl.md`, with the
//! exact error and offset wherever validation's SIMD scans find a bad record.

use skelmap::Parse;
use skelmap::gamestudio;
use skelmap::gamestudio::morph::tween_scalar;
use skelmap::gamestudio::skin::grey_palette;
use skelmap::gamestudio::write::{MdlFrameDef, SkinDef};
use skelmap::gamestudio::{Mdl, MdlVersion, PixelFormat};
use skelmap::{Diagnostics, Error, Format, Limits, Problem, WarningKind};

use crate::support::gamestudio::quad;

use super::{mdl_err, put_i32};

// Offsets in the quad: header 84; skin at 84 (12 + 170 bytes); 4 UVs at 266; 2 triangles at
// 282; frame 0 at 306 (4 type + 16 bbox + 16 name, vertices at 342), frame 1 at 374.
const UVS: usize = 266;
const TRIS: usize = 282;
const FRAME0: usize = 306;

#[test]
fn quad_fixture_is_clean() {
    let bytes = quad().write();
    assert_eq!(bytes.len(), 442);
    assert_eq!(Format::sniff(&bytes), Some(Format::Mdl));
    let mut diag = Diagnostics::new();
    let m = Mdl::parse_with(&bytes, &Limits::default(), &mut diag).unwrap();
    assert!(diag.is_empty(), "{:?}", diag.warnings());
    assert_eq!(
        (
            m.version(),
            m.num_vertices(),
            m.triangles().len(),
            m.frames().len()
        ),
        (MdlVersion::Mdl5, 4, 2, 2)
    );
    let skin = &m.skins()[0];
    assert_eq!(
        (skin.format(), skin.width(), skin.num_levels()),
        (PixelFormat::Rgb565, 8, 4)
    );
    assert_eq!(
        skin.level(3).map(|(w, h, t)| (w, h, t.len())),
        Some((1, 1, 2))
    );
    assert_eq!(m.frames().get(1).unwrap().name(), b"jump");
    assert_eq!(m.normalised_uv(3, 8, 8), Some([1.0, 1.0]));
}

#[test]
fn mdl_rule1_magic_versions_and_counts() {
    let bytes = quad().write();
    assert!(matches!(
        mdl_err(&bytes[..83]),
        Error::Truncated {
            what: "header",
            need: 84,
            have: 83,
            ..
        }
    ));
    let mut b = bytes.clone();
    b[3] = b'7';
    let e = mdl_err(&b);
    assert!(
        matches!(
            &e,
            Error::Unsupported {
                what: "header.ident",
                offset: 0,
                value: 7,
                ..
            }
        ),
        "{e}"
    );
    b[0] = b'X';
    assert!(matches!(mdl_err(&b), Error::BadMagic { .. }));
    for (at, what) in [
        (60, "header.numverts"),
        (64, "header.numtris"),
        (68, "header.numframes"),
    ] {
        let mut b = bytes.clone();
        put_i32(&mut b, at, 0);
        assert!(
            matches!(mdl_err(&b), Error::Invalid { what: w, offset, .. } if w == what && offset == at as u64),
            "{what}"
        );
        put_i32(&mut b, at, -1);
        assert!(
            matches!(mdl_err(&b), Error::Invalid { what: w, .. } if w == what),
            "{what} negative"
        );
    }
}

#[test]
fn mdl_rule2_header_skin_size_for_mdl3_and_4() {
    let mut q = quad();
    q.version = 4;
    q.skins[0] = SkinDef {
        code: 2,
        data: vec![0; 2 * 64],
        ..SkinDef::default()
    };
    q.skin_size = [0, 8];
    assert!(matches!(
        mdl_err(&q.write()),
        Error::Invalid {
            what: "header.skinwidth",
            offset: 52,
            ..
        }
    ));
    q.skin_size = [8, 8];
    assert!(Mdl::parse(&q.write()).is_ok());
}

#[test]
fn mdl_rule3_skin_types_mips_sizes() {
    let mut q = quad();
    q.version = 3;
    q.skin_size = [8, 8];
    q.skins[0] = SkinDef {
        code: 4,
        data: vec![0; 3 * 64],
        ..SkinDef::default()
    };
    assert!(
        matches!(
            mdl_err(&q.write()),
            Error::Unsupported {
                what: "skin.type",
                offset: 84,
                ..
            }
        ),
        "RGB888 is MDL5 only"
    );

    let mut q = quad();
    q.skins[0].code = 7;
    assert!(matches!(
        mdl_err(&q.write()),
        Error::Unsupported {
            what: "skin.type",
            ..
        }
    ));
    let mut q = quad();
    q.skins[0] = SkinDef {
        code: 8,
        width: 8,
        height: 8,
        data: vec![0; 85],
    };
    assert!(
        matches!(
            mdl_err(&q.write()),
            Error::Invalid {
                what: "skin.type",
                ..
            }
        ),
        "8-bit skins take no mips"
    );
    let mut q = quad();
    q.skins[0] = SkinDef {
        code: 10,
        width: 12,
        height: 8,
        data: vec![0; 400],
    };
    assert!(
        matches!(
            mdl_err(&q.write()),
            Error::Invalid {
                what: "skin.type",
                ..
            }
        ),
        "sides must divide by 8"
    );
    let mut q = quad();
    q.skins[0].width = 0;
    assert!(matches!(
        mdl_err(&q.write()),
        Error::Invalid {
            what: "skin.width",
            offset: 88,
            ..
        }
    ));
    let limits = Limits {
        max_skin_dimension: 4,
        ..Limits::default()
    };
    let e = Mdl::parse_with(&quad().write(), &limits, &mut Diagnostics::new())
        .map(|_| ())
        .unwrap_err();
    assert!(
        matches!(
            e,
            Error::Limit {
                what: "skin size",
                value: 8,
                max: 4,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn mdl_rule3_skin_texels_and_dds_in_bounds() {
    // Cut inside the first level's 8 × 8 × 2 = 128 texel bytes (at 96, after type, w, h).
    let bytes = quad().write();
    let e = mdl_err(&bytes[..96 + 50]);
    assert!(
        matches!(
            e,
            Error::Truncated {
                what: "skin.texels",
                offset: 96,
                need: 128,
                have: 50,
                ..
            }
        ),
        "{e}"
    );
    let mut q = quad();
    q.skins[0] = SkinDef {
        code: 6,
        width: 20,
        height: 0,
        data: b"DDS fake blob 20 b!!".to_vec(),
    };
    let bytes = q.write();
    let m = Mdl::parse(&bytes).unwrap();
    assert_eq!(m.skins()[0].dds().map(<[u8]>::len), Some(20));
    assert!(m.skins()[0].decode_rgba(0, &grey_palette()).is_none());
}

#[test]
fn mdl_rule5_triangle_indices() {
    let mut b = quad().write();
    b[TRIS + 12 + 4..TRIS + 12 + 6].copy_from_slice(&4u16.to_le_bytes()); // triangle 1, xyz[2]
    assert!(
        matches!(mdl_err(&b), Error::Invalid { what: "triangle.index_xyz", offset, .. } if offset == (TRIS + 16) as u64)
    );
    let mut b = quad().write();
    b[TRIS + 6..TRIS + 8].copy_from_slice(&4u16.to_le_bytes()); // triangle 0, uv[0]
    assert!(
        matches!(mdl_err(&b), Error::Invalid { what: "triangle.index_uv", offset, .. } if offset == (TRIS + 6) as u64)
    );
    let mut q = quad();
    q.skin_vertices.clear(); // no UVs: UV indices are ignored
    assert!(Mdl::parse(&q.write()).is_ok());
    let _ = UVS;
}

#[test]
fn mdl_rule6_frame_types_and_bounds() {
    let mut b = quad().write();
    put_i32(&mut b, FRAME0, 1);
    assert!(
        matches!(mdl_err(&b), Error::Unsupported { what: "frame.type", offset, .. } if offset == FRAME0 as u64)
    );
    let b = quad().write();
    assert!(matches!(
        mdl_err(&b[..b.len() - 1]),
        Error::Truncated {
            what: "frame.vertices",
            ..
        }
    ));
}

/// Frames are found in the file on each access. Where frames mix byte and word packing (and
/// so sizes), each is found by a walk from the first; every frame reads back as written, by
/// index and in order, through the view and through the model's morph.
#[test]
fn mdl_frames_of_mixed_types_read_back_by_index_and_in_order() {
    let mut q = quad();
    let types = [2, 0, 0, 2, 0];
    q.frames = types
        .iter()
        .enumerate()
        .map(|(k, &frame_type)| MdlFrameDef {
            frame_type,
            name: format!("f{k}").into_bytes(),
            vertices: (0..4u16)
                .map(|v| ([v, 10 * k as u16, 200 + v], (k as u8) * 4 + v as u8))
                .collect(),
        })
        .collect();
    let bytes = q.write();
    let m = Mdl::parse(&bytes).unwrap();
    let frames = m.frames();
    assert_eq!((frames.len(), frames.iter().len()), (5, 5));
    let read = |f: skelmap::gamestudio::MdlFrame<'_>| {
        let v = f.vertices();
        let packed: Vec<_> = (0..v.len()).filter_map(|i| v.get(i)).collect();
        (f.frame_type(), f.name().to_vec(), packed)
    };
    let in_order: Vec<_> = frames.iter().map(read).collect();
    let by_index: Vec<_> = (0..5).filter_map(|k| frames.get(k)).map(read).collect();
    assert_eq!(in_order, by_index);
    for (k, (frame_type, name, packed)) in in_order.iter().enumerate() {
        let want: Vec<_> = (0..4u16)
            .map(|v| ([v, 10 * k as u16, 200 + v], (k as u8) * 4 + v as u8))
            .collect();
        assert_eq!(
            (*frame_type, name.as_slice(), packed),
            (types[k], format!("f{k}").as_bytes(), &want)
        );
    }
    assert!(frames.get(5).is_none());
    let model = skelmap::Model::from_bytes(&bytes).unwrap();
    let names: Vec<_> = model.frame_names().collect();
    let by_index: Vec<_> = (0..5).filter_map(|k| model.frame_name(k)).collect();
    assert_eq!((names.len(), &names), (5, &by_index));
    // Frame 3 (word-packed, after two byte frames) tweened at t = 0: its positions.
    let (mut p, mut n) = (vec![[0.0; 3]; 4], vec![[0.0; 3]; 4]);
    tween_scalar(&m, 3, 3, 0.0, &mut p, &mut n).unwrap();
    // Vertex 1 packed (1, 30, 201): scale (0.5, 0.5, 0.25), offset (−2.5, −2.5, 1).
    assert_eq!(p[1], [-2.0, 12.5, 51.25]);
}

#[test]
fn mdl_rule7_normal_index_below_162() {
    let mut b = quad().write();
    let normal = FRAME0 + 36 + 8 * 2 + 6; // frame 0, vertex 2, normal byte
    b[normal] = 162;
    assert!(
        matches!(mdl_err(&b), Error::Invalid { what: "frame.vertices", offset, .. } if offset == normal as u64)
    );
}

#[test]
fn mdl_rule8_scale_and_offset_finite() {
    let mut q = quad();
    q.offset[1] = f32::INFINITY;
    assert!(matches!(
        mdl_err(&q.write()),
        Error::Invalid {
            what: "header.offset",
            offset: 24, // the header's offset[1]: the value itself
            problem: Problem::NotFinite,
            ..
        }
    ));
    let mut q = quad();
    q.scale[0] = f32::NAN;
    assert!(matches!(
        mdl_err(&q.write()),
        Error::Invalid {
            what: "header.scale",
            offset: 8,
            problem: Problem::NotFinite,
            ..
        }
    ));
}

#[test]
fn mdl_trailing_bytes_are_a_warning() {
    let mut b = quad().write();
    b.extend_from_slice(&[1, 2, 3]);
    let mut diag = Diagnostics::new();
    Mdl::parse_with(&b, &Limits::default(), &mut diag).unwrap();
    assert_eq!(
        diag.get(WarningKind::TrailingBytes).map(|w| w.offset),
        Some(442)
    );
}

/// Skin vertices outside the first skin are a warning at the skin vertex table, which follows
/// the skins (it used to be reported at offset 84, the end of the header, wherever the table
/// was).
#[test]
fn mdl_skin_vertices_outside_the_skin_are_a_warning_at_their_table() {
    let mut q = quad();
    q.skin_vertices[3] = [9, 8];
    let mut diag = Diagnostics::new();
    Mdl::parse_with(&q.write(), &Limits::default(), &mut diag).unwrap();
    let w = diag.get(WarningKind::SpecLimit).unwrap();
    assert_eq!((w.what, w.offset), ("skin vertices", UVS as u64));
}

/// A quad with 300 vertices, 250 skin vertices and 100 triangles, one word frame then one
/// byte frame, on a 16 × 8 skin: every table long enough for validation's SIMD scans (where
/// the CPU has them), and every maximum different from the one beside it (vertex and skin
/// vertex counts, skin width and height).
fn wide_quad() -> gamestudio::MdlBuilder {
    const N: u16 = 300;
    const UV: u16 = 250;
    let frame = |frame_type| MdlFrameDef {
        frame_type,
        name: b"wide".to_vec(),
        vertices: (0..N)
            .map(|i| ([i % 200, i / 2, 7], (i % 162) as u8))
            .collect(),
    };
    gamestudio::MdlBuilder {
        skins: vec![SkinDef {
            code: 2 + 8,
            width: 16,
            height: 8,
            // 16 × 8, 8 × 4, 4 × 2 and 2 × 1 RGB565 texels.
            data: vec![0xF8; 2 * (128 + 32 + 8 + 2)],
        }],
        // Within 8 × 8, and corners below 250: a scan with the maxima of the skin's width and
        // height, or of the two kinds of corner, swapped would pass the bad values below.
        skin_vertices: (0..UV as i16).map(|i| [i % 9, i % 9]).collect(),
        triangles: (0..N / 3)
            .map(|t| ([t, t + 100, UV - 1 - t], [2 * t, 2 * t + 1, UV - 1 - t]))
            .collect(),
        frames: vec![frame(2), frame(0)],
        ..quad()
    }
}

// Offsets in the wide quad: the skin at 84 (12 + 340 bytes), UVs at 436, triangles at
// 436 + 4 · 250 = 1436, frame 0 at 1436 + 12 · 100 = 2636 (vertices at 2636 + 36 = 2672, 8
// bytes each), frame 1 at 2672 + 8 · 300 = 5072 (type, bbox 8, name 16: vertices at 5100, 4
// bytes each).
const WIDE_UVS: usize = 436;
const WIDE_TRIS: usize = 1436;
const WIDE_WORDS: usize = 2672;
const WIDE_BYTES: usize = 5100;

/// Every index and normal of the wide quad is checked, wherever it lies in its table: a bad
/// one in the first, a middle or the last record (of a table the SIMD scans take whole, and of
/// its last partial register) is reported at its own offset, as the record-by-record walk
/// reports it.
#[test]
fn mdl_scanned_tables_report_the_exact_record() {
    let bytes = wide_quad().write();
    let m = Mdl::parse(&bytes).unwrap();
    assert_eq!(
        (m.num_vertices(), m.triangles().len(), m.frames().len()),
        (300, 100, 2)
    );
    assert_eq!((m.skin_vertices().len(), m.skin_size()), (250, (16, 8)));
    let put_u16 = |b: &mut [u8], at: usize, v: u16| b[at..at + 2].copy_from_slice(&v.to_le_bytes());
    for t in [0, 1, 50, 98, 99] {
        for k in 0..3 {
            for (what, field, bad, len) in [
                ("triangle.index_xyz", 0, 300u16, 300),
                ("triangle.index_xyz", 0, u16::MAX, 300),
                ("triangle.index_uv", 6, 250, 250),
                ("triangle.index_uv", 6, 299, 250),
            ] {
                let mut b = bytes.clone();
                let at = WIDE_TRIS + 12 * t + field + 2 * k;
                put_u16(&mut b, at, bad);
                let want = Problem::Index {
                    index: bad.into(),
                    len,
                };
                match mdl_err(&b) {
                    Error::Invalid {
                        what: w,
                        offset,
                        problem,
                        ..
                    } => assert_eq!((w, offset, problem), (what, at as u64, want)),
                    e => panic!("{e}"),
                }
            }
        }
    }
    for (table, stride, normal) in [(WIDE_WORDS, 8, 6), (WIDE_BYTES, 4, 3)] {
        for v in [0, 15, 16, 150, 287, 288, 299] {
            for bad in [162u8, 255] {
                let mut b = bytes.clone();
                let at = table + stride * v + normal;
                b[at] = bad;
                let want = Problem::Index {
                    index: bad.into(),
                    len: 162,
                };
                match mdl_err(&b) {
                    Error::Invalid {
                        what,
                        offset,
                        problem,
                        ..
                    } => assert_eq!((what, offset, problem), ("frame.vertices", at as u64, want)),
                    e => panic!("{e}"),
                }
            }
        }
    }
    // Skin vertices outside the 16 × 8 skin, at either coordinate and either end.
    for (i, c, bad) in [
        (0, 0, 17i16),
        (150, 1, -1),
        (249, 0, i16::MIN),
        (249, 1, 9),
        (7, 1, 16),
    ] {
        let mut q = wide_quad();
        q.skin_vertices[i][c] = bad;
        let mut diag = Diagnostics::new();
        Mdl::parse_with(&q.write(), &Limits::default(), &mut diag).unwrap();
        let w = diag.get(WarningKind::SpecLimit).map(|w| (w.what, w.offset));
        assert_eq!(
            w,
            Some(("skin vertices", WIDE_UVS as u64)),
            "vertex {i}, {c} = {bad}"
        );
    }
    let mut diag = Diagnostics::new();
    Mdl::parse_with(&bytes, &Limits::default(), &mut diag).unwrap();
    assert!(diag.get(WarningKind::SpecLimit).is_none());
}

/// Frames are read before their normal indices are scanned, all frames at once; errors still
/// come in file order: a bad index in frame 0 before an unknown type or a truncation in frame
/// 1, and an unknown type in frame 0 before a bad index in frame 1 (which is never read).
#[test]
fn mdl_frame_errors_come_in_file_order() {
    let bytes = wide_quad().write();
    let normal0 = WIDE_WORDS + 8 * 5 + 6;
    let frame1 = WIDE_WORDS + 8 * 300;
    let at_normal0 = |e: Error| matches!(e, Error::Invalid { what: "frame.vertices", offset, .. } if offset == normal0 as u64);
    let mut b = bytes.clone();
    b[normal0] = 200;
    put_i32(&mut b, frame1, 1);
    assert!(at_normal0(mdl_err(&b)));
    let mut b = bytes.clone();
    b[normal0] = 200;
    assert!(at_normal0(mdl_err(&b[..frame1 + 100])));
    let mut b = bytes.clone();
    put_i32(&mut b, WIDE_WORDS - 36, 1);
    b[WIDE_BYTES + 3] = 200;
    let e = mdl_err(&b);
    assert!(
        matches!(e, Error::Unsupported { what: "frame.type", offset, .. } if offset == (WIDE_WORDS - 36) as u64),
        "{e}"
    );
}

/// In a model of 130 frames, all word-packed (their vertices found by arithmetic) or word
/// then byte frames (each frame read): a bad normal index in the first, the last or any frame
/// between is reported at its byte, and before a broken frame that comes after it; a broken
/// frame comes before a bad index after it.
#[test]
fn mdl_frame_normals_of_long_models_are_reported_in_file_order() {
    for words in [130, 100] {
        let mut q = quad();
        q.frames = (0..130u16)
            .map(|k| MdlFrameDef {
                frame_type: if k < words { 2 } else { 0 },
                name: format!("f{k}").into_bytes(),
                vertices: (0..4).map(|v| ([v, k % 200, 0], 7)).collect(),
            })
            .collect();
        let bytes = q.write();
        assert_eq!(Mdl::parse(&bytes).unwrap().frames().len(), 130);
        // Frame k's start, and vertex 3's normal byte in it (type 4, bbox 2 records, name
        // 16; the normal is byte 6 of a word record, byte 3 of a byte record).
        let w = usize::from(words);
        let frame_at = |k: usize| FRAME0 + 68 * k.min(w) + 44 * k.saturating_sub(w);
        let normal_at = |k: usize| {
            let (head, record, normal) = if k < w { (36, 8, 6) } else { (28, 4, 3) };
            frame_at(k) + head + 3 * record + normal
        };
        assert_eq!(frame_at(130), bytes.len());
        for k in [0, 1, 63, 64, 99, 100, 128, 129] {
            let mut b = bytes.clone();
            b[normal_at(k)] = 162;
            let e = mdl_err(&b);
            assert!(
                matches!(e, Error::Invalid { what: "frame.vertices", offset, .. } if offset == normal_at(k) as u64),
                "{words} word frames, frame {k}: {e}"
            );
            // A frame after it with an unknown type: still the index.
            if k < 129 {
                put_i32(&mut b, frame_at(129), 1);
                let e = mdl_err(&b);
                assert!(
                    matches!(e, Error::Invalid { offset, .. } if offset == normal_at(k) as u64),
                    "{words} word frames, frame {k} before a broken frame: {e}"
                );
            }
            // A broken frame before it: the broken frame.
            if k > 0 {
                let mut b = bytes.clone();
                b[normal_at(k)] = 162;
                put_i32(&mut b, frame_at(k - 1), 1);
                let e = mdl_err(&b);
                assert!(
                    matches!(e, Error::Unsupported { what: "frame.type", offset, .. } if offset == frame_at(k - 1) as u64),
                    "{words} word frames, frame {k} after a broken frame: {e}"
                );
            }
        }
    }
}

/// Byte and word frames mixed over 20,000 frames: through the model, frame `i` is found in a
/// table of where each starts, made once, not by a walk over the frames before it; the frames
/// are those the walk finds.
#[test]
fn every_frame_of_many_mixed_frames_is_looked_up() {
    let count = 20_000;
    let frames: Vec<MdlFrameDef> = (0..count)
        .map(|i| MdlFrameDef {
            frame_type: if i % 3 == 0 { 2 } else { 0 },
            name: format!("f{i}").into_bytes(),
            vertices: vec![([0, 0, (i % 200) as u16], 0); 4],
        })
        .collect();
    let bytes = gamestudio::MdlBuilder {
        version: 5,
        frames,
        ..quad()
    }
    .write();
    let model = skelmap::Model::from_bytes(&bytes).unwrap();
    assert_eq!(model.num_frames(), count);
    let walked: Vec<Vec<u8>> = model.frame_names().map(<[u8]>::to_vec).collect();
    for (i, name) in walked.iter().enumerate() {
        assert_eq!(model.frame_name(i), Some(&name[..]), "frame {i}");
    }
    let mdl = Mdl::parse(&bytes).unwrap();
    let frames = mdl.indexed_frames();
    for i in [0, 1, 2, 3, 4, 19_999] {
        let found = frames.get(i).map(|f| f.name_lossy().into_owned());
        assert_eq!(found, Some(format!("f{i}")));
    }
}
