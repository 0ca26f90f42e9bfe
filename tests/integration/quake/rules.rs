//! One test per validation rule of `quake`'s module docs, with exact errors and offsets, also
//! where validation's SIMD scans find the bad record.

use skelmap::Parse;
use skelmap::gamestudio::PixelFormat;
use skelmap::quake;
use skelmap::quake::write::{FrameDef, FrameEntry, SkinDef};
use skelmap::{Diagnostics, Error, Format, Limits, Problem, WarningKind};

use crate::support::quake::grouped;

use super::{err, err_with, invalid, limit, put_i32, unsupported};

// Offsets in `quake::Builder::triangle()`: header 84; skin type at 84, texels 88..152;
// stverts at 152 (3 × 12); triangle at 188 (16); frame type at 204, its header at 208
// (bbox 8, name 16), vertices at 232 (3 × 4); the file ends at 244.
const SKIN: u64 = 84;
const STVERTS: u64 = 152;
const TRIANGLE: u64 = 188;
const FRAME: u64 = 204;
const VERTICES: u64 = 232;
const END: usize = 244;

#[test]
fn the_triangle_fixture_is_clean_and_ends_where_the_offsets_say() {
    for b in [quake::Builder::triangle(), quake::Builder::mdl2_triangle()] {
        let bytes = b.write();
        let mut diag = Diagnostics::new();
        let m = quake::Mdl::parse_with(&bytes, &Limits::default(), &mut diag).unwrap();
        assert!(diag.is_empty(), "{:?}", diag.warnings());
        assert_eq!((m.num_vertices(), m.num_triangles()), (3, 1));
        assert_eq!((m.skins().len(), m.frames().len()), (1, 1));
        assert_eq!(m.frames().iter().next().unwrap().name(), b"base");
        assert_eq!(m.triangle(0), Some((true, [0, 1, 2])));
        assert_eq!(m.position(0, 2), Some([0.0, 1.0, 0.0]));
        assert_eq!(m.triangle(1), None);
        assert_eq!(m.position(1, 0), None);
    }
    assert_eq!(quake::Builder::triangle().write().len(), END);
    let m2 = quake::Builder::mdl2_triangle().write();
    assert_eq!(m2.len(), END + 64, "an RGB565 skin is 2 bytes a texel");
    let m = quake::Mdl::parse(&m2).unwrap();
    assert_eq!(m.format(), Format::Mdl);
    assert_eq!(m.skins()[0].format(), PixelFormat::Rgb565);
    let q = quake::Builder::triangle().write();
    assert_eq!(quake::Mdl::parse(&q).unwrap().format(), Format::Quake);
}

#[test]
fn rule1_magic_and_quake_version() {
    let mut bytes = quake::Builder::triangle().write();
    bytes[..4].copy_from_slice(b"MDL3");
    assert!(matches!(
        err(&bytes),
        Error::BadMagic {
            format: Format::Quake,
            ..
        }
    ));
    let bytes = quake::Builder {
        version: 5,
        ..quake::Builder::triangle()
    }
    .write();
    let e = err(&bytes);
    assert_eq!(unsupported(&e), ("header.version", 4, 5));
    assert_eq!(e.format(), Some(Format::Quake));
    // MDL2 files write version 0, and Quake's version rule is not theirs.
    let mdl2 = quake::Builder {
        version: 0,
        ..quake::Builder::mdl2_triangle()
    };
    assert!(quake::Mdl::parse(&mdl2.write()).is_ok());
}

#[test]
fn rule2_scale_and_origin_finite() {
    let mut b = quake::Builder::triangle();
    b.scale[1] = f32::NAN;
    let e = err(&b.write());
    assert_eq!(
        invalid(&e),
        (Format::Quake, "header.scale", 12, Problem::NotFinite)
    );
    let mut b = quake::Builder::mdl2_triangle();
    b.origin[2] = f32::INFINITY;
    assert_eq!(
        invalid(&err(&b.write())),
        (Format::Mdl, "header.scale_origin", 28, Problem::NotFinite)
    );
}

#[test]
fn rule3_counts_not_negative_at_least_one_and_limited() {
    let cases = [
        (48, -1, "header.numskins", Problem::Negative { value: -1 }),
        (52, -8, "header.skinwidth", Problem::Negative { value: -8 }),
        (60, 0, "header.numverts", Problem::Empty),
        (64, 0, "header.numtris", Problem::Empty),
        (68, 0, "header.numframes", Problem::Empty),
        (68, -3, "header.numframes", Problem::Negative { value: -3 }),
    ];
    for (at, value, what, problem) in cases {
        let mut bytes = quake::Builder::triangle().write();
        put_i32(&mut bytes, at, value);
        assert_eq!(
            invalid(&err(&bytes)),
            (Format::Quake, what, at, problem),
            "{what} = {value}"
        );
    }
    let bytes = quake::Builder::triangle().write();
    let tight = Limits {
        max_vertices_per_mesh: 2,
        ..Limits::default()
    };
    assert_eq!(
        limit(&err_with(&bytes, &tight)),
        ("header.numverts", 60, 3, 2)
    );
    let tight = Limits {
        max_skins: 0,
        ..Limits::default()
    };
    assert_eq!(
        limit(&err_with(&bytes, &tight)),
        ("header.numskins", 48, 1, 0)
    );
}

#[test]
fn rule4_skin_size_positive_and_limited_with_a_width_warning() {
    for (at, what) in [(52, "header.skinwidth"), (56, "header.skinheight")] {
        let mut bytes = quake::Builder::triangle().write();
        put_i32(&mut bytes, at, 0);
        let problem = Problem::NotPositive { value: 0.0 };
        assert_eq!(invalid(&err(&bytes)), (Format::Quake, what, at, problem));
    }
    // Without skins the size is not used.
    let bare = quake::Builder {
        skins: vec![],
        skin_size: [0, 0],
        ..quake::Builder::triangle()
    };
    assert!(quake::Mdl::parse(&bare.write()).is_ok());
    let tight = Limits {
        max_skin_dimension: 4,
        ..Limits::default()
    };
    let e = err_with(&quake::Builder::triangle().write(), &tight);
    assert_eq!(limit(&e), ("header.skinwidth", 52, 8, 4));
    // The default bound is DarkPlaces' 65 536: a mod's 8192 × 256 view-model skin (copper's
    // `v_rebar.mdl`) is read; one texel wider than the bound is not.
    let wide = |width: i32, height: i32| quake::Builder {
        skin_size: [width, height],
        skins: vec![SkinDef::Single {
            code: 0,
            texels: vec![7; (width * height) as usize],
        }],
        ..quake::Builder::triangle()
    };
    let mdl = wide(8192, 256).write();
    let view = quake::Mdl::parse(&mdl).unwrap();
    assert_eq!(view.skin_size(), (8192, 256));
    let e = err(&wide(65_537, 1).write());
    assert_eq!(limit(&e), ("header.skinwidth", 52, 65_537, 65_536));
    let odd = quake::Builder {
        skin_size: [6, 8],
        skins: vec![SkinDef::Single {
            code: 0,
            texels: vec![0; 48],
        }],
        ..quake::Builder::triangle()
    };
    let mut diag = Diagnostics::new();
    quake::Mdl::parse_with(&odd.write(), &Limits::default(), &mut diag).unwrap();
    let w = diag.get(WarningKind::SpecLimit).unwrap();
    assert_eq!((w.what, w.offset), ("header.skinwidth", 52));
}

/// Quake's skins are types 0 and 1; an `IDPO` file may hold GameStudio's 16-bit records too
/// (codes 2 and 3, at the header's size: Acknex's `griechin.mdl`, 300 × 300 RGB565, which
/// assimp opens), and no other code.
#[test]
fn rule5_skin_types() {
    let mut bytes = quake::Builder::triangle().write();
    put_i32(&mut bytes, SKIN, 4);
    let e = err(&bytes);
    assert_eq!(unsupported(&e), ("skin.type", SKIN, 4));
    assert!(
        e.to_string()
            .contains("type 0 (single) or 1 (group); GameStudio's 2 or 3"),
        "{e}"
    );
    for (code, format) in [(2, PixelFormat::Rgb565), (3, PixelFormat::Argb4444)] {
        let b = quake::Builder {
            skins: vec![SkinDef::Single {
                code,
                texels: vec![7; 128],
            }],
            ..quake::Builder::triangle()
        };
        let bytes = b.write();
        let mdl = quake::Mdl::parse(&bytes).unwrap();
        let skin = &mdl.skins()[0];
        assert_eq!(mdl.format(), Format::Quake);
        assert_eq!((skin.format(), skin.width(), skin.height()), (format, 8, 8));
        // Half of the texels were an 8-bit skin's: the 16-bit one runs on into the rest.
        let mut short = b.clone();
        short.skins = vec![SkinDef::Single {
            code,
            texels: vec![7; 64],
        }];
        assert!(quake::Mdl::parse(&short.write()).is_err(), "code {code}");
    }
    // MDL2 skins are GameStudio codes: 1 is not one.
    let mut bytes = quake::Builder::mdl2_triangle().write();
    put_i32(&mut bytes, SKIN, 1);
    let e = err(&bytes);
    assert_eq!(e.format(), Some(Format::Mdl));
    assert_eq!(unsupported(&e), ("skin.type", SKIN, 1));
    // 8-bit and ARGB4444 MDL2 skins read.
    for (code, size) in [(0, 64), (3, 128)] {
        let b = quake::Builder {
            skins: vec![SkinDef::Single {
                code,
                texels: vec![7; size],
            }],
            ..quake::Builder::mdl2_triangle()
        };
        assert!(quake::Mdl::parse(&b.write()).is_ok(), "code {code}");
    }
}

// Offsets in `grouped()`: skin 0 at 84 (68 bytes); the group's type at 152, count at 156,
// intervals at 160 and 164, images from 168 to 296; stverts at 296, triangle at 332; frame 0
// at 348 (40 bytes); the frame group's type at 388, its header at 392 (count at 392),
// intervals at 404, 408, 412, poses from 416 (36 bytes each).
const SKIN_GROUP: u64 = 152;
const FRAME_GROUP: u64 = 388;

#[test]
fn rule6_groups_have_members_and_rising_positive_intervals() {
    let cases: [(u64, f32, Problem); 3] = [
        (160, f32::NAN, Problem::NotFinite),
        (160, 0.0, Problem::NotPositive { value: 0.0 }),
        (
            164,
            0.125,
            Problem::Decreasing {
                value: 0.125,
                previous: 0.25,
            },
        ),
    ];
    for (at, value, problem) in cases {
        let mut bytes = grouped().write();
        bytes[at as usize..at as usize + 4].copy_from_slice(&value.to_le_bytes());
        let e = err(&bytes);
        assert_eq!(
            invalid(&e),
            (Format::Quake, "skin group.intervals", at, problem)
        );
    }
    let mut bytes = grouped().write();
    bytes[408..412].copy_from_slice(&0.05f32.to_le_bytes());
    let problem = Problem::Decreasing {
        value: 0.05f32.into(),
        previous: 0.1f32.into(),
    };
    let e = err(&bytes);
    assert_eq!(
        invalid(&e),
        (Format::Quake, "frame group.intervals", 408, problem)
    );
    let mut bytes = grouped().write();
    put_i32(&mut bytes, SKIN_GROUP + 4, 0);
    assert_eq!(
        invalid(&err(&bytes)),
        (
            Format::Quake,
            "skin group.numskins",
            SKIN_GROUP + 4,
            Problem::Empty
        )
    );
    let mut bytes = grouped().write();
    put_i32(&mut bytes, FRAME_GROUP + 4, -2);
    assert_eq!(
        invalid(&err(&bytes)),
        (
            Format::Quake,
            "frame group.numframes",
            FRAME_GROUP + 4,
            Problem::Negative { value: -2 }
        )
    );
    // Members of all groups count against the limits, before any is read.
    let bytes = grouped().write();
    let tight = Limits {
        max_frames: 3,
        ..Limits::default()
    };
    assert_eq!(
        limit(&err_with(&bytes, &tight)),
        ("frame group.numframes", FRAME_GROUP + 4, 4, 3)
    );
    let tight = Limits {
        max_skins: 2,
        ..Limits::default()
    };
    assert_eq!(
        limit(&err_with(&bytes, &tight)),
        ("skin group.numskins", SKIN_GROUP + 4, 3, 2)
    );
    // A count of 2^31 − 1 is refused by the limit, not attempted.
    let mut bytes = grouped().write();
    put_i32(&mut bytes, FRAME_GROUP + 4, i32::MAX);
    assert!(matches!(err(&bytes), Error::Limit { .. }));
}

#[test]
fn rule7_triangle_indices_in_range() {
    for (k, v) in [(0u64, 3), (2, -1)] {
        let mut bytes = quake::Builder::triangle().write();
        let at = TRIANGLE + 4 + 4 * k;
        put_i32(&mut bytes, at, v);
        let problem = Problem::Index {
            index: v.into(),
            len: 3,
        };
        assert_eq!(
            invalid(&err(&bytes)),
            (Format::Quake, "triangle.vertindex", at, problem)
        );
    }
}

#[test]
fn rule8_frame_types() {
    let mut bytes = quake::Builder::triangle().write();
    put_i32(&mut bytes, FRAME, 2);
    let e = err(&bytes);
    assert_eq!(unsupported(&e), ("frame.type", FRAME, 2));
}

#[test]
fn rule9_normal_index_below_162() {
    let mut bytes = quake::Builder::triangle().write();
    bytes[(VERTICES + 4 + 3) as usize] = 162;
    let problem = Problem::Index {
        index: 162,
        len: 162,
    };
    assert_eq!(
        invalid(&err(&bytes)),
        (Format::Quake, "frame.vertices", VERTICES + 4 + 3, problem)
    );
}

#[test]
fn rule10_records_in_bounds_and_the_warnings() {
    for bytes in [
        quake::Builder::triangle().write(),
        quake::Builder::mdl2_triangle().write(),
        grouped().write(),
    ] {
        for cut in 0..bytes.len() {
            let e = err(&bytes[..cut]);
            assert!(matches!(e, Error::Truncated { .. }), "cut at {cut}: {e}");
        }
    }
    let e = err(&quake::Builder::triangle().write()[..VERTICES as usize + 5]);
    assert!(matches!(
        e,
        Error::Truncated {
            what: "frame.vertices",
            offset: VERTICES,
            need: 12,
            have: 5,
            ..
        }
    ));
    let b = quake::Builder {
        trailing: b"QMEX and more".to_vec(),
        stverts: vec![[0, 0, 0], [32, 9, 0], [0, 0, 7]],
        ..quake::Builder::triangle()
    };
    let mut diag = Diagnostics::new();
    quake::Mdl::parse_with(&b.write(), &Limits::default(), &mut diag).unwrap();
    let w = diag.get(WarningKind::TrailingBytes).unwrap();
    assert_eq!((w.what, w.offset), ("file", END as u64));
    let w = diag.get(WarningKind::SpecLimit).unwrap();
    assert_eq!((w.what, w.offset), ("stverts", STVERTS));
}

/// [`quake::Builder::triangle`] with 300 vertices and stverts and 100 triangles on a 16 × 8
/// skin: every table long enough for validation's SIMD scans (where the CPU has them). The
/// texture coordinates stay within 8 × 8, so that a scan with the skin's width and height
/// swapped would pass the bad ones below; the unchecked words (`onseam`, `facesfront`) hold
/// any value. Offsets: the skin at 84 (4 + 128 bytes), stverts at 216 (12 bytes each),
/// triangles at 3816 (16 each), the frame type at 5416, its vertices at 5444 (4 each).
fn wide_triangle() -> quake::Builder {
    const N: i32 = 300;
    quake::Builder {
        skin_size: [16, 8],
        skins: vec![SkinDef::Single {
            code: 0,
            texels: (0..128).collect(),
        }],
        stverts: (0..N)
            .map(|i| [i.wrapping_mul(7_919_777), i % 9, i % 9])
            .collect(),
        triangles: (0..N / 3)
            .map(|t| (t.wrapping_mul(-1_000_003), [3 * t, 3 * t + 1, N - 1 - t]))
            .collect(),
        frames: vec![FrameEntry::Single(FrameDef {
            name: b"wide".to_vec(),
            vertices: (0..N).map(|i| ([i as u8, 1, 2], (i % 162) as u8)).collect(),
        })],
        ..quake::Builder::triangle()
    }
}
const WIDE_STVERTS: u64 = 216;
const WIDE_TRIANGLES: u64 = 3816;
const WIDE_VERTICES: u64 = 5444;

/// A bad corner, normal index or texture coordinate in the first, a middle or the last record
/// of a table the SIMD scans take is reported at its own offset, as the record-by-record walk
/// reports it.
#[test]
fn scanned_tables_report_the_exact_record() {
    let bytes = wide_triangle().write();
    let m = quake::Mdl::parse(&bytes).unwrap();
    assert_eq!(m.num_vertices(), 300);
    for t in [0, 1, 50, 98, 99] {
        for k in 0..3 {
            for bad in [300, -1, i32::MIN] {
                let mut b = bytes.clone();
                let at = WIDE_TRIANGLES + 16 * t + 4 + 4 * k;
                put_i32(&mut b, at, bad);
                let problem = Problem::Index {
                    index: bad.into(),
                    len: 300,
                };
                let e = err(&b);
                assert_eq!(
                    invalid(&e),
                    (Format::Quake, "triangle.vertindex", at, problem),
                    "{e}"
                );
            }
        }
    }
    for v in [0, 15, 16, 150, 287, 288, 299] {
        for bad in [162u8, 255] {
            let mut b = bytes.clone();
            let at = WIDE_VERTICES + 4 * v + 3;
            b[at as usize] = bad;
            let problem = Problem::Index {
                index: bad.into(),
                len: 162,
            };
            assert_eq!(
                invalid(&err(&b)),
                (Format::Quake, "frame.vertices", at, problem)
            );
        }
    }
    // Texture coordinates outside the 16 × 8 skin, at either coordinate and either end.
    for (i, c, bad) in [
        (0, 1, 17),
        (150, 2, -1),
        (299, 1, i32::MIN),
        (299, 2, 9),
        (7, 2, 16),
    ] {
        let mut q = wide_triangle();
        q.stverts[i][c] = bad;
        let mut diag = Diagnostics::new();
        quake::Mdl::parse_with(&q.write(), &Limits::default(), &mut diag).unwrap();
        let w = diag.get(WarningKind::SpecLimit).map(|w| (w.what, w.offset));
        assert_eq!(
            w,
            Some(("stverts", WIDE_STVERTS)),
            "stvert {i}, {c} = {bad}"
        );
    }
    let mut diag = Diagnostics::new();
    quake::Mdl::parse_with(&bytes, &Limits::default(), &mut diag).unwrap();
    assert!(diag.get(WarningKind::SpecLimit).is_none());
}
