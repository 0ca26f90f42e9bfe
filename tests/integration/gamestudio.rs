//! GameStudio MDL3/4/5 and HMP5/7: the corpus against MANIFEST.md and the assimp oracle, one
//! test per validation rule of `docs/formats/{mdl,hmp}.md` (fixtures from the builders), skin
//! decoding, the morph kernels and terrain meshes.

use skelmap::Parse;
use skelmap::gamestudio;
use skelmap::gamestudio::morph::{tween_scalar, tween_simd};
use skelmap::gamestudio::skin::grey_palette;
use skelmap::gamestudio::write::{MdlFrameDef, SkinDef};
use skelmap::gamestudio::{Hmp, HmpVersion, Mdl, MdlVersion, PixelFormat};
use skelmap::skin::morph::MorphError;
use skelmap::{Diagnostics, Error, Format, Limits, Problem, WarningKind};

use crate::support::{corpus_dir, manifest};

/// A two-triangle MDL5 quad: one 8×8 RGB565 skin with mips, 4 UVs, two word frames.
pub fn quad() -> gamestudio::ModelBuilder {
    let frame = |name: &[u8], lift: u16| MdlFrameDef {
        frame_type: 2,
        name: name.to_vec(),
        vertices: vec![
            ([0, 0, lift], 5),
            ([10, 0, lift], 5),
            ([0, 10, lift], 5),
            ([10, 10, lift], 5),
        ],
    };
    gamestudio::ModelBuilder {
        version: 5,
        scale: [0.5, 0.5, 0.25],
        offset: [-2.5, -2.5, 1.0],
        skins: vec![SkinDef {
            code: 2 + 8,
            width: 8,
            height: 8,
            data: vec![0xF8; 2 * (64 + 16 + 4 + 1)],
        }],
        skin_vertices: vec![[0, 0], [8, 0], [0, 8], [8, 8]],
        triangles: vec![([0, 1, 3], [0, 1, 3]), ([0, 3, 2], [0, 3, 2])],
        frames: vec![frame(b"stand", 0), frame(b"jump", 40)],
        ..gamestudio::ModelBuilder::default()
    }
}

/// A 3×2 HMP7 terrain without skins.
pub fn field() -> gamestudio::TerrainBuilder {
    gamestudio::TerrainBuilder {
        version: 7,
        height_scale: [0.5, -1.0],
        spacing: [4.0, 2.0],
        row: 3.0,
        skins: vec![],
        frames: vec![(0..6).map(|i| (i * 10, [0, 0])).collect()],
    }
}

fn mdl_err(b: &[u8]) -> Error {
    let e = Mdl::parse(b).map(|_| ()).expect_err("broken MDL accepted");
    assert_eq!(e.format(), Some(Format::Mdl), "{e}");
    e
}

fn hmp_err(b: &[u8]) -> Error {
    let e = Hmp::parse(b).map(|_| ()).expect_err("broken HMP accepted");
    assert_eq!(e.format(), Some(Format::Hmp), "{e}");
    e
}

fn put_i32(b: &mut [u8], at: usize, v: i32) {
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

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

// ---- MDL rules ----

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
fn wide_quad() -> gamestudio::ModelBuilder {
    const N: u16 = 300;
    const UV: u16 = 250;
    let frame = |frame_type| MdlFrameDef {
        frame_type,
        name: b"wide".to_vec(),
        vertices: (0..N)
            .map(|i| ([i % 200, i / 2, 7], (i % 162) as u8))
            .collect(),
    };
    gamestudio::ModelBuilder {
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

/// An HMP5 grid of 20 × 20 vertices (1600 bytes a frame): a normal index of 162 or more (162,
/// 200, 255) is reported at its own byte wherever it lies.
#[test]
fn hmp5_scanned_normals_report_the_exact_vertex() {
    let mut f = field();
    f.version = 5;
    f.row = 20.0;
    f.frames = vec![(0..400).map(|i| (i, [(i % 162) as u8, 0])).collect()];
    assert_eq!(Hmp::parse(&f.write()).unwrap().grid(), [20, 20]);
    for (v, bad) in [
        (0, 162),
        (15, 255),
        (16, 162),
        (200, 200),
        (383, 162),
        (384, 255),
        (399, 162),
    ] {
        let mut g = f.clone();
        g.frames[0][v].1[0] = bad;
        // Header 84 + frame head 36 + vertex v · 4 + the normal byte at 2.
        let at = (84 + 36 + 4 * v + 2) as u64;
        match hmp_err(&g.write()) {
            Error::Invalid { what, offset, .. } => {
                assert_eq!((what, offset), ("frame.vertices", at))
            }
            e => panic!("{e}"),
        }
    }
}

// ---- HMP rules ----

#[test]
fn hmp_fixture_and_mesh() {
    let bytes = field().write();
    assert_eq!(Format::sniff(&bytes), Some(Format::Hmp));
    let h = Hmp::parse(&bytes).unwrap();
    assert_eq!((h.version(), h.grid()), (HmpVersion::Hmp7, [3, 2]));
    let mesh = h.mesh(0).unwrap();
    assert_eq!(mesh.positions.len(), 6);
    assert_eq!(mesh.positions[4], [4.0, 2.0, 0.5 * 40.0 - 1.0]);
    assert_eq!(mesh.triangles, [[0, 1, 4], [0, 4, 3], [1, 2, 5], [1, 5, 4]]);
    assert_eq!(mesh.normals[0], [0.0, 0.0, 1.0]);
    assert_eq!(mesh.uvs[5], [1.0, 1.0]);
}

/// The terrain morph: at t = 0 and 1 it reproduces each frame's mesh exactly; between, heights
/// blend linearly; bad frames and short outputs are typed errors.
#[test]
fn hmp_tween_matches_the_frame_meshes() {
    let mut b = field();
    // Frame 1: every packed height 100 higher, normals tilted towards +Y (HMP7 bytes x, y).
    b.frames
        .push((0..6).map(|i| (i * 10 + 100, [0, 127])).collect());
    let bytes = b.write();
    let h = Hmp::parse(&bytes).unwrap();
    let (mut p, mut n) = (vec![[0.0; 3]; 6], vec![[0.0; 3]; 6]);
    for frame in [0, 1] {
        h.tween(frame, frame, 0.0, &mut p, &mut n).unwrap();
        let mesh = h.mesh(frame).unwrap();
        assert_eq!((&p, &n), (&mesh.positions, &mesh.normals), "frame {frame}");
    }
    h.tween(0, 1, 0.25, &mut p, &mut n).unwrap();
    // z = 0.5 · (40 + 0.25 · 100) − 1 for vertex 4.
    assert_eq!(p[4], [4.0, 2.0, 0.5 * 65.0 - 1.0]);
    assert!(
        n.iter()
            .all(|v| (v.iter().map(|c| c * c).sum::<f32>() - 1.0).abs() < 1e-6)
    );
    assert_eq!(
        h.tween(0, 2, 0.5, &mut p, &mut n),
        Err(MorphError::NoFrame(2))
    );
    assert_eq!(
        h.tween(0, 1, 0.5, &mut p[..5], &mut n),
        Err(MorphError::Output { need: 6, have: 5 })
    );
}

#[test]
fn hmp_rule1_hmp4_is_unsupported() {
    let mut b = field().write();
    b[3] = b'4';
    assert!(matches!(
        &hmp_err(&b),
        Error::Unsupported {
            what: "header.ident",
            offset: 0,
            value: 4,
            ..
        }
    ));
}

#[test]
fn hmp_rule2_grid_spacing_positive() {
    let mut f = field();
    f.spacing[0] = 0.0;
    assert!(matches!(
        hmp_err(&f.write()),
        Error::Invalid {
            what: "header.ftrisize_x",
            offset: 36,
            ..
        }
    ));
    let mut f = field();
    f.spacing[1] = f32::NAN;
    assert!(matches!(
        hmp_err(&f.write()),
        Error::Invalid {
            what: "header.ftrisize_y",
            offset: 40,
            ..
        }
    ));
}

#[test]
fn hmp_rule3_row_length_whole_and_at_least_2() {
    for row in [2.5, 1.0] {
        let mut f = field();
        f.row = row;
        assert!(
            matches!(
                hmp_err(&f.write()),
                Error::Invalid {
                    what: "header.fnumverts_x",
                    offset: 44,
                    ..
                }
            ),
            "{row}"
        );
    }
}

#[test]
fn hmp_rule4_vertices_fill_whole_rows() {
    let mut f = field();
    f.row = 4.0; // 6 vertices are not rows of 4
    assert!(matches!(
        hmp_err(&f.write()),
        Error::Invalid {
            what: "header.numverts",
            offset: 60,
            ..
        }
    ));
}

/// An HMP7 field with the given skins (records start at 84: type, width, height at +0, +4,
/// +8, the payload at +12).
fn field_with(skins: Vec<SkinDef>) -> Vec<u8> {
    let mut f = field();
    f.skins = skins;
    f.write()
}

fn skin(code: i32, width: i32, height: i32, data: Vec<u8>) -> SkinDef {
    SkinDef {
        code,
        width,
        height,
        data,
    }
}

/// 68 bytes of material: 17 little-endian floats 0.5.
fn material() -> Vec<u8> {
    (0..17).flat_map(|_| 0.5f32.to_le_bytes()).collect()
}

#[test]
fn hmp7_skin_types_are_a_kind_and_flags() {
    let named = |name: &[u8]| {
        let mut v = name.to_vec();
        v.push(0);
        skin(7, v.len() as i32, 1, v)
    };
    let mut text = 11i32.to_le_bytes().to_vec();
    text.extend_from_slice(b"shader=glow");
    let skins = vec![
        skin(0x04, 8, 8, vec![7; 192]),                        // plain RGB888
        skin(0x14, 8, 8, [vec![7; 192], material()].concat()), // + material
        skin(0x0C, 8, 8, vec![7; 3 * (64 + 16 + 4 + 1)]),      // + mips
        skin(0x02, 4, 2, vec![0; 16]),                         // RGB565
        skin(0x06, 8, 1, b"DDS 1234".to_vec()),                // a DDS file of 8 bytes
        skin(0x10, 0, 0, material()),                          // a material only
        named(b"textures/rock.tga"),                           // an external file
        skin(0x01, 0, 0, Vec::new()),                          // a reference to skin 0
        skin(0x24, 2, 2, [vec![1; 12], text].concat()),        // + material text
    ];
    let bytes = field_with(skins);
    let hmp = Hmp::parse(&bytes).unwrap();
    let s = hmp.skins();
    let summary: Vec<(PixelFormat, u32, u32, usize)> = s
        .iter()
        .map(|k| (k.format(), k.width(), k.height(), k.num_levels()))
        .collect();
    assert_eq!(
        summary,
        [
            (PixelFormat::Rgb888, 8, 8, 1),
            (PixelFormat::Rgb888, 8, 8, 1),
            (PixelFormat::Rgb888, 8, 8, 4),
            (PixelFormat::Rgb565, 4, 2, 1),
            (PixelFormat::Dds, 0, 0, 1),
            (PixelFormat::Palette8, 0, 0, 0),
            (PixelFormat::External, 0, 0, 0),
            (PixelFormat::Reference, 0, 0, 0),
            (PixelFormat::Rgb888, 2, 2, 1),
        ]
    );
    assert!(s[1].material().is_some() && s[5].material().is_some());
    assert_eq!(s[1].material().unwrap().power.get(), 0.5);
    assert_eq!(s[4].dds(), Some(&b"DDS 1234"[..]));
    assert_eq!(s[6].external(), Some(&b"textures/rock.tga"[..]));
    assert_eq!(s[7].reference(), Some(0));
    assert_eq!(s[8].definition(), Some(&b"shader=glow"[..]));
    assert_eq!(s[8].decode_rgba(0, &grey_palette()).unwrap().len(), 16);
    assert_eq!(s[6].decode_rgba(0, &grey_palette()), None);
}

#[test]
fn hmp7_skin_type_bits_beyond_the_flags_are_unsupported() {
    for code in [0x44, 0x84, 0x100, -1] {
        let e = hmp_err(&field_with(vec![skin(code, 8, 8, vec![0; 192])]));
        assert!(
            matches!(e, Error::Unsupported { what: "skin.type", offset: 84, value, .. } if value == i64::from(code)),
            "{code:#x}: {e}"
        );
    }
    // Mips on a kind without texels.
    for code in [0x0F, 0x09, 0x0E] {
        let e = hmp_err(&field_with(vec![skin(code, 8, 1, vec![0; 64])]));
        assert!(
            matches!(
                e,
                Error::Unsupported {
                    what: "skin.type",
                    offset: 84,
                    ..
                }
            ),
            "{code:#x}: {e}"
        );
    }
}

#[test]
fn hmp7_external_names_are_bounded_and_terminated() {
    let cases: [(SkinDef, &str, u64, Problem); 5] = [
        (skin(7, 0, 1, Vec::new()), "skin.width", 88, Problem::Empty),
        (
            skin(7, 1025, 1, vec![b'a'; 1025]),
            "skin.width",
            88,
            Problem::AboveMaximum {
                value: 1025,
                max: 1024,
            },
        ),
        (
            skin(7, 4, 2, b"abc\0".to_vec()),
            "skin.height",
            92,
            Problem::Mismatch {
                value: 2,
                expected: 1,
            },
        ),
        (
            skin(7, 4, 1, b"abcd".to_vec()),
            "skin.texture_name",
            96,
            Problem::Unterminated { len: 4 },
        ),
        (
            skin(7, 2, 1, b"\0x".to_vec()),
            "skin.texture_name",
            96,
            Problem::Empty,
        ),
    ];
    for (def, what, offset, problem) in cases {
        let e = hmp_err(&field_with(vec![def]));
        assert!(
            matches!(&e, Error::Invalid { what: w, offset: o, problem: p, .. } if *w == what && *o == offset && *p == problem),
            "{e}"
        );
    }
    // A name running past the end of the file is truncated, not read past it.
    let bytes = field_with(vec![skin(7, 900, 1, b"short\0".to_vec())]);
    assert!(matches!(
        hmp_err(&bytes),
        Error::Truncated {
            what: "skin.texture_name",
            offset: 96,
            ..
        }
    ));
}

#[test]
fn hmp7_references_name_another_skin_of_the_file() {
    for (target, len) in [(2, 2), (1, 2), (-1, 2)] {
        let bytes = field_with(vec![
            skin(0x02, 4, 2, vec![0; 16]),
            skin(0x01, target, 0, Vec::new()),
        ]);
        let e = hmp_err(&bytes);
        // The second record starts at 84 + 12 + 16 = 112; its width at 116.
        let expected = if target < 0 {
            Problem::Negative { value: -1 }
        } else {
            Problem::Index {
                index: target.into(),
                len,
            }
        };
        assert!(
            matches!(&e, Error::Invalid { what: "skin.width", offset: 116, problem, .. } if *problem == expected),
            "{target}: {e}"
        );
    }
}

#[test]
fn hmp7_material_and_text_payloads_are_checked() {
    let mut bad = material();
    bad[4 * 5..4 * 6].copy_from_slice(&f32::NAN.to_le_bytes()); // ambient.y
    let e = hmp_err(&field_with(vec![skin(
        0x14,
        8,
        8,
        [vec![7; 192], bad].concat(),
    )]));
    // Texels 96..288, the material from 288: its sixth float at 308.
    assert!(matches!(
        e,
        Error::Invalid {
            what: "skin.material",
            offset: 308,
            problem: Problem::NotFinite,
            ..
        }
    ));
    let e = hmp_err(&field_with(vec![skin(
        0x24,
        2,
        2,
        [vec![1; 12], (-3i32).to_le_bytes().to_vec()].concat(),
    )]));
    assert!(matches!(
        e,
        Error::Invalid {
            what: "skin.definition_length",
            offset: 108,
            problem: Problem::Negative { value: -3 },
            ..
        }
    ));
    let e = hmp_err(&field_with(vec![skin(
        0x24,
        2,
        2,
        [vec![1; 12], 5000i32.to_le_bytes().to_vec()].concat(),
    )]));
    assert!(matches!(
        e,
        Error::Truncated {
            what: "skin.definition",
            offset: 112,
            ..
        }
    ));
}

#[test]
fn hmp7_texel_rules_mips_and_sizes() {
    // 8-bit with mips, and sides not divisible by 8.
    for (code, w, h) in [(0x08, 8, 8), (0x0C, 12, 8)] {
        let e = hmp_err(&field_with(vec![skin(code, w, h, vec![0; 1024])]));
        assert!(
            matches!(
                e,
                Error::Invalid {
                    what: "skin.type",
                    offset: 84,
                    problem: Problem::Mips,
                    ..
                }
            ),
            "{code:#x} {w}×{h}: {e}"
        );
    }
    // One side zero, the other not.
    let e = hmp_err(&field_with(vec![skin(0x04, 8, 0, Vec::new())]));
    assert!(matches!(
        e,
        Error::Invalid {
            what: "skin.height",
            offset: 92,
            problem: Problem::NotPositive { .. },
            ..
        }
    ));
    // A DDS file of 0 bytes.
    let e = hmp_err(&field_with(vec![skin(0x06, 0, 1, Vec::new())]));
    assert!(matches!(
        e,
        Error::Invalid {
            what: "skin.width",
            offset: 88,
            ..
        }
    ));
}

#[test]
fn hmp_rule6_at_least_one_frame_in_bounds() {
    let bytes = field().write();
    let mut b = bytes.clone();
    put_i32(&mut b, 68, 0);
    assert!(matches!(
        hmp_err(&b),
        Error::Invalid {
            what: "header.numframes",
            offset: 68,
            ..
        }
    ));
    assert!(matches!(
        hmp_err(&bytes[..bytes.len() - 2]),
        Error::Truncated {
            what: "frame.vertices",
            ..
        }
    ));
}

#[test]
fn hmp_rule7_hmp5_normal_index_below_162() {
    let mut f = field();
    f.version = 5;
    f.frames[0][3].1 = [200, 0];
    let e = hmp_err(&f.write());
    // Header 84 + frame head 36 + vertex 3 · 4 + the normal byte at 2 = 134.
    let at_134 = matches!(
        e,
        Error::Invalid {
            what: "frame.vertices",
            offset: 134,
            ..
        }
    );
    assert!(at_134, "{e}");
}

// ---- skins ----

#[test]
fn skin_decoding_channel_order() {
    // One texel per format: red.
    let cases: [(i32, Vec<u8>); 5] = [
        (0, vec![200]),
        (2, 0xF800u16.to_le_bytes().to_vec()),
        (3, 0xFF00u16.to_le_bytes().to_vec()),
        (4, vec![0, 0, 255]),
        (5, vec![0, 0, 255, 128]),
    ];
    for (code, texel) in cases {
        let mut q = quad();
        let data: Vec<u8> = texel
            .iter()
            .copied()
            .cycle()
            .take(texel.len() * 64)
            .collect();
        q.skins[0] = SkinDef {
            code,
            width: 8,
            height: 8,
            data,
        };
        let bytes = q.write();
        let m = Mdl::parse(&bytes).unwrap();
        let rgba = m.skins()[0].decode_rgba(0, &grey_palette()).unwrap();
        let want: [u8; 4] = match code {
            0 => [200, 200, 200, 255],
            5 => [255, 0, 0, 128],
            _ => [255, 0, 0, 255],
        };
        assert_eq!(&rgba[..4], want, "type {code}");
        assert_eq!(rgba.len(), 8 * 8 * 4);
    }
}

/// Writes every corpus skin as a PNG under target/skelmap-skins for looking at (the channel
/// order of RGB888 and RGB565 was checked that way: the earth's oceans are blue).
#[test]
fn corpus_skins_decode_to_png() {
    let Some(dir) = corpus_dir("mdl") else { return };
    let out = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/skelmap-skins");
    std::fs::create_dir_all(&out).unwrap();
    for name in [
        "assimp_minigun_mdl3.mdl",
        "gex4_skeleton.mdl",
        "libgs_mdl4-golem.mdl",
        "libgs_mdl5-earth.mdl",
    ] {
        let bytes = std::fs::read(dir.join(name)).unwrap();
        let m = Mdl::parse(&bytes).unwrap();
        for (i, skin) in m.skins().iter().enumerate() {
            let rgba = skin.decode_rgba(0, &grey_palette()).unwrap();
            assert_eq!(
                rgba.len() as u64,
                4 * u64::from(skin.width()) * u64::from(skin.height())
            );
            let file = std::fs::File::create(out.join(format!("{name}.{i}.png"))).unwrap();
            let mut enc =
                png::Encoder::new(std::io::BufWriter::new(file), skin.width(), skin.height());
            enc.set_color(png::ColorType::Rgba);
            enc.set_depth(png::BitDepth::Eight);
            enc.write_header().unwrap().write_image_data(&rgba).unwrap();
        }
    }
}

// ---- morph ----

#[test]
fn morph_scalar_and_lanes_agree_and_interpolate() {
    let bytes = quad().write();
    let m = Mdl::parse(&bytes).unwrap();
    let (mut p0, mut n0) = (vec![[0.0; 3]; 4], vec![[0.0; 3]; 4]);
    let (mut p1, mut n1) = (vec![[0.0; 3]; 4], vec![[0.0; 3]; 4]);
    tween_scalar(&m, 0, 1, 0.25, &mut p0, &mut n0).unwrap();
    tween_simd(&m, 0, 1, 0.25, &mut p1, &mut n1).unwrap();
    assert_eq!(p0, p1);
    // Vertex 3: packed (10, 10, 0 → 40); z = 0.25 · (0 + 0.25 · 40) + 1 = 3.5.
    assert_eq!(p0[3], [0.5 * 10.0 - 2.5, 0.5 * 10.0 - 2.5, 3.5]);
    assert!(tween_scalar(&m, 0, 2, 0.0, &mut p0, &mut n0).is_err());
    assert!(tween_scalar(&m, 0, 1, 0.0, &mut p0[..3], &mut n0).is_err());
}

/// Every frame pair `f → f + 1` of `model` at `t` = 0.375, at every level, against the scalar
/// reference: the SIMD kernels do the reference's operations in its order, so the results are
/// the same to the bit.
fn every_level_tweens_like_the_reference(model: &skelmap::Model<'_>, name: &str) {
    use skelmap::model::Pose;
    use skelmap::pose::Interpolation;
    use skelmap::skin::SimdLevel;
    let n = model.mesh(0).unwrap().num_vertices();
    let frames = model.num_frames();
    let mut pose = Pose::default();
    for f in 0..frames {
        model
            .pose(f, (f + 1) % frames, 0.375, Interpolation::Nlerp, &mut pose)
            .unwrap();
        let mut reference = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
        model
            .deform_with_level(
                0,
                &pose,
                SimdLevel::Portable,
                &mut reference.0,
                &mut reference.1,
            )
            .unwrap();
        for level in SimdLevel::ALL {
            let mut got = (vec![[1.0; 3]; n], vec![[1.0; 3]; n]);
            model
                .deform_with_level(0, &pose, level, &mut got.0, &mut got.1)
                .unwrap();
            assert!(got == reference, "{name}: frame {f} at {level}");
        }
    }
}

#[test]
fn morph_kernels_agree_on_every_corpus_frame() {
    for path in crate::support::corpus_files("mdl")
        .into_iter()
        .chain(crate::support::corpus_files("mdl_quake"))
    {
        let bytes = std::fs::read(&path).unwrap();
        let model = skelmap::Model::from_bytes(&bytes).unwrap();
        every_level_tweens_like_the_reference(&model, &path.display().to_string());
    }
}

#[test]
fn morph_kernels_agree_on_byte_and_word_frames_of_every_tail_length() {
    // 0..=40 vertices: no full step, one or two full steps of 8 or 16, and every tail.
    for n in 0..=40u16 {
        for (version, words) in [(3, false), (4, true)] {
            let frame = |shift: u16| MdlFrameDef {
                frame_type: if words { 2 } else { 0 },
                name: b"f".to_vec(),
                vertices: (0..n)
                    .map(|i| {
                        let c = [i * 5 % 256, (i * 11 + shift) % 256, (i * shift) % 256];
                        (if words { c.map(|v| v * 97) } else { c }, (i % 162) as u8)
                    })
                    .collect(),
            };
            let bytes = gamestudio::ModelBuilder {
                version,
                scale: [0.25, 0.5, 2.0],
                triangles: vec![([0, 0, 0], [0, 0, 0])],
                frames: vec![frame(3), frame(7), frame(1)],
                ..gamestudio::ModelBuilder::default()
            }
            .write();
            let Ok(model) = skelmap::Model::from_bytes(&bytes) else {
                assert_eq!(n, 0, "only an empty model is refused");
                continue;
            };
            every_level_tweens_like_the_reference(&model, &format!("{n} vertices, words {words}"));
        }
    }
}

// ---- corpus ----

/// The positions (`v` lines) of assimp's OBJ of corpus file `file`.
fn oracle_positions(dir: &std::path::Path, file: &str) -> Vec<[f32; 3]> {
    let obj = std::fs::read(dir.join("../oracle").join(format!("{file}.obj"))).unwrap();
    obj.split(|&b| b == b'\n')
        .filter(|l| l.starts_with(b"v "))
        .map(|l| {
            let v: Vec<f32> = String::from_utf8_lossy(l)
                .split_whitespace()
                .skip(1)
                .map(|x| x.parse().unwrap())
                .collect();
            [v[0], v[1], v[2]]
        })
        .collect()
}

/// The largest distance (per coordinate) from a point of either set to the nearest point of
/// the other: 0 when the sets are equal, whatever their order and duplicates.
fn farthest_nearest(a: &[[f32; 3]], b: &[[f32; 3]]) -> f32 {
    let distance =
        |p: &[f32; 3], q: &[f32; 3]| (0..3).map(|k| (p[k] - q[k]).abs()).fold(0.0, f32::max);
    let nearest = |p: &[f32; 3], set: &[[f32; 3]]| {
        set.iter().map(|q| distance(p, q)).fold(f32::MAX, f32::min)
    };
    a.iter()
        .map(|p| nearest(p, b))
        .chain(b.iter().map(|q| nearest(q, a)))
        .fold(0.0, f32::max)
}

#[test]
fn every_corpus_mdl_matches_the_manifest_and_frame0_the_oracle() {
    let Some(dir) = corpus_dir("mdl") else { return };
    let rows = manifest("mdl");
    assert_eq!(rows.len(), 6);
    for row in &rows {
        let bytes = std::fs::read(dir.join(&row.file)).unwrap();
        let name = &row.file;
        if row.summary.contains("unsupported frame type 30") {
            let e = Mdl::parse(&bytes).map(|_| ()).unwrap_err();
            assert!(
                matches!(
                    &e,
                    Error::Unsupported {
                        what: "header.ident",
                        value: 2,
                        ..
                    }
                ),
                "{name}: {e}"
            );
            continue;
        }
        let mut diag = Diagnostics::new();
        let m = Mdl::parse_with(&bytes, &Limits::default(), &mut diag)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(diag.is_empty(), "{name}: {:?}", diag.warnings());
        let skins: Vec<String> = m
            .skins()
            .iter()
            .map(|s| format!("({}, {}, {})", s.type_code(), s.width(), s.height()))
            .collect();
        assert_eq!(
            row.field("skins").unwrap(),
            format!("{} [{}]", skins.len(), skins.join(", ")),
            "{name} skins"
        );
        assert_eq!(m.num_vertices() as u64, row.count("verts"), "{name}");
        assert_eq!(m.triangles().len() as u64, row.count("tris"), "{name}");
        assert_eq!(m.frames().len() as u64, row.count("frames"), "{name}");
        assert_eq!(
            m.skin_vertices().len() as u64,
            row.count("skinverts"),
            "{name}"
        );
        let kind = if m.frames().get(0).unwrap().frame_type() == 0 {
            "'0'"
        } else {
            "'2'"
        };
        assert!(
            row.summary
                .contains(&format!("{{{kind}: {}}}", m.frames().len())),
            "{name} frame types"
        );

        // assimp's OBJ: frame 0, axes (x, y, z) → (x, z, −y), duplicate positions merged;
        // every position of either side lies within 1e-3 of one of the other.
        let oracle = oracle_positions(&dir, &row.file);
        let n = m.num_vertices() as usize;
        let (mut p, mut nrm) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
        tween_scalar(&m, 0, 0, 0.0, &mut p, &mut nrm).unwrap();
        let used: std::collections::BTreeSet<u16> =
            m.triangles().flat_map(|(xyz, _)| xyz).collect();
        let ours: Vec<[f32; 3]> = used
            .iter()
            .map(|&i| {
                let v = p[usize::from(i)];
                [v[0], v[2], -v[1]]
            })
            .collect();
        let worst = farthest_nearest(&ours, &oracle);
        assert!(
            worst <= 1e-3,
            "{name}: a frame-0 position is {worst} from the oracle"
        );
        println!("{name}: frame 0 within {worst:e} of assimp");
    }
}

#[test]
fn every_corpus_hmp_matches_the_manifest_and_the_oracle_grid() {
    let Some(dir) = corpus_dir("hmp") else { return };
    for row in manifest("hmp") {
        let bytes = std::fs::read(dir.join(&row.file)).unwrap();
        let mut diag = Diagnostics::new();
        let h = Hmp::parse_with(&bytes, &Limits::default(), &mut diag).unwrap();
        assert!(diag.is_empty(), "{}: {:?}", row.file, diag.warnings());
        let [nx, ny] = h.grid();
        assert_eq!(row.field("grid").unwrap(), format!("{nx} x {ny}"));
        assert_eq!(u64::from(nx * ny), row.count("num_verts"));
        assert_eq!(h.skins().len() as u64, row.count("skins"));
        assert_eq!(h.frames().len() as u64, row.count("frames"));
        // assimp: one quad face per cell, spanning 0..(n − 1) · spacing in X and Y.
        let info = std::fs::read_to_string(
            dir.join("../oracle")
                .join(format!("{}.info_raw.txt", row.file)),
        )
        .unwrap();
        let faces: u32 = info
            .lines()
            .find_map(|l| l.strip_prefix("Faces:"))
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        assert_eq!(faces, (nx - 1) * (ny - 1));
        let mesh = h.mesh(0).unwrap();
        let max_x = mesh.positions.iter().map(|p| p[0]).fold(0.0, f32::max);
        assert!(
            info.contains(&format!("Maximum point      ({max_x:.6} ")),
            "{}: x extent {max_x}",
            row.file
        );
        assert_eq!(mesh.triangles.len() as u32, 2 * faces);

        // assimp's OBJ, frame 0: X and Y as ours; its Z ignores the header's height scale and
        // offset (`docs/formats/hmp.md` § Quirks and decisions: `((h / 65535) − 0.5) · ftrisize_x · 8`), so our packed
        // heights are put through that formula to prove the same values at the same places.
        let oracle = oracle_positions(&dir, &row.file);
        let frame = h.frames().get(0).unwrap();
        let [dx, _] = h.cell_size();
        let ours: Vec<[f32; 3]> = mesh
            .positions
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let raw = f32::from(frame.raw_height(i).unwrap());
                [p[0], p[1], (raw / 65535.0 - 0.5) * dx * 8.0]
            })
            .collect();
        let worst = farthest_nearest(&ours, &oracle);
        assert!(
            worst <= 1e-3,
            "{}: a frame-0 vertex is {worst} from assimp's",
            row.file
        );
        println!(
            "{}: frame 0 within {worst:e} of assimp (its height formula)",
            row.file
        );
    }
}

/// The HMP7 normals (stored as two `i8` components) agree with the normals of the terrain's own
/// height field: the reading documented in `gamestudio/hmp.rs`.
#[test]
fn hmp7_normals_match_the_height_field() {
    let Some(dir) = corpus_dir("hmp") else { return };
    let bytes = std::fs::read(dir.join("gex4_terrain.hmp")).unwrap();
    let h = Hmp::parse(&bytes).unwrap();
    let mesh = h.mesh(0).unwrap();
    let [nx, ny] = h.grid().map(|v| v as usize);
    let (mut sum, mut count, mut worst) = (0.0f64, 0, 1.0f64);
    for iy in 1..ny - 1 {
        for ix in 1..nx - 1 {
            let i = iy * nx + ix;
            let p = &mesh.positions;
            let dzdx = f64::from(p[i + 1][2] - p[i - 1][2]) / f64::from(p[i + 1][0] - p[i - 1][0]);
            let dzdy =
                f64::from(p[i + nx][2] - p[i - nx][2]) / f64::from(p[i + nx][1] - p[i - nx][1]);
            let len = (dzdx * dzdx + dzdy * dzdy + 1.0).sqrt();
            let n = mesh.normals[i].map(f64::from);
            let cos = (-dzdx * n[0] - dzdy * n[1] + n[2]) / len;
            sum += cos;
            count += 1;
            worst = worst.min(cos);
        }
    }
    let mean = sum / f64::from(count);
    assert!(
        mean > 0.999 && worst > 0.95,
        "mean cosine {mean}, worst {worst}"
    );
}

#[test]
fn truncation_and_mutation_never_panic() {
    for bytes in [quad().write(), field().write()] {
        for cut in 0..bytes.len() {
            assert!(
                Mdl::parse(&bytes[..cut]).is_err() && Hmp::parse(&bytes[..cut]).is_err(),
                "cut at {cut}"
            );
        }
    }
    for path in crate::support::corpus_files("mdl")
        .into_iter()
        .chain(crate::support::corpus_files("hmp"))
    {
        let bytes = std::fs::read(&path).unwrap();
        let stride = (bytes.len() / 512).max(1);
        for cut in (0..bytes.len().min(4096)).chain((4096..bytes.len()).step_by(stride)) {
            let _ = (Mdl::parse(&bytes[..cut]), Hmp::parse(&bytes[..cut]));
        }
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 1024, ..Default::default() })]

    #[test]
    fn mutated_gamestudio_files_never_panic(edits in proptest::collection::vec((0usize..4096, proptest::prelude::any::<u8>()), 1..6)) {
        for mut bytes in [quad().write(), field().write()] {
            let len = bytes.len();
            for &(at, v) in &edits {
                bytes[at % len] = v;
            }
            if let Ok(model) = skelmap::Model::from_bytes(&bytes) {
                crate::exercise::model(&model);
            }
        }
    }
}

/// Regression (found by the fuzz run of `probe_any`): an MDL without skin vertices, whose UV
/// indices validation rightly ignores, used to claim per-corner texture coordinates and then
/// have none to give (`corner_texcoords` returned `None` for every triangle, which the
/// harness's consistency check caught). Such a mesh now says it has no texture coordinates.
#[test]
fn an_mdl_without_skin_vertices_used_to_claim_texture_coordinates() {
    let mut q = quad();
    q.skin_vertices.clear();
    q.triangles = vec![([0, 1, 3], [7, 9, 11]), ([0, 3, 2], [0, 3, 2])];
    let bytes = q.write();
    let model = skelmap::Model::from_bytes(&bytes).unwrap();
    let mesh = model.mesh(0).unwrap();
    assert_eq!(mesh.texcoord_layout(), skelmap::model::TexcoordLayout::None);
    assert_eq!(mesh.corner_texcoords(0), None);
    crate::exercise::model(&model);
    let seed = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/seeds/probe_any/regress-mdl-without-skin-vertices.mdl");
    let seed = std::fs::read(seed).unwrap();
    crate::exercise::model(&skelmap::Model::from_bytes(&seed).unwrap());
}
