//! HMP5/7: the field fixture and its mesh and tween, then one test per validation rule of
//! `docs/formats/hmp.md`, HMP7's skin records among them.

use skelmap::Parse;
use skelmap::gamestudio::skin::grey_palette;
use skelmap::gamestudio::write::SkinDef;
use skelmap::gamestudio::{Hmp, HmpVersion, PixelFormat};
use skelmap::skin::morph::MorphError;
use skelmap::{Error, Format, Problem};

use crate::support::gamestudio::field;

use super::{hmp_err, put_i32};

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
