//! One test per validation rule of `docs/formats/zym.md`, each asserting the exact error or
//! warning, its field and its offset, on [`Builder::example`] (lumps at [`EXAMPLE_LUMPS`]).

use skelmap::zym::{Builder, Zym};
use skelmap::{Error, Format, Limits, Parse, Problem, WarningKind};

use super::{EXAMPLE_LUMPS, err, err_with, invalid, put_f32, put_i32};

const Z: Format = Format::Zym;

fn example() -> Vec<u8> {
    Builder::example().write().unwrap()
}

fn warnings(bytes: &[u8]) -> skelmap::Diagnostics {
    crate::support::parse_warnings::<Zym>(bytes)
}

#[test]
fn the_example_opens_without_warnings_with_its_lumps_in_order() {
    let bytes = example();
    assert_eq!(bytes.len() as u64, EXAMPLE_LUMPS[9]);
    assert!(warnings(&bytes).is_empty());
    let zym = Zym::parse(&bytes).unwrap();
    let h = zym.header();
    let lumps = [
        h.lump_scenes,
        h.lump_poses,
        h.lump_bones,
        h.lump_vertbonecounts,
        h.lump_verts,
        h.lump_texcoords,
        h.lump_render,
        h.lump_shaders,
        h.lump_trizone,
    ];
    for (k, lump) in lumps.iter().enumerate() {
        assert_eq!(lump.start.get() as u64, EXAMPLE_LUMPS[k], "lump {k}");
        assert_eq!(
            (lump.start.get() + lump.length.get()) as u64,
            EXAMPLE_LUMPS[k + 1]
        );
    }
    assert_eq!(
        (
            zym.num_bones(),
            zym.num_poses(),
            zym.num_vertices(),
            zym.num_triangles()
        ),
        (2, 3, 6, 3)
    );
}

/// Rule 1: the header, the magic and type 1 (types 0 and 2 unsupported).
#[test]
fn rule_1_magic_and_type() {
    let mut bytes = example();
    assert!(matches!(
        err(&bytes[..100]),
        Error::Truncated {
            what: "header",
            offset: 0,
            need: 140,
            have: 100,
            ..
        }
    ));
    bytes[0] = b'X';
    assert!(matches!(err(&bytes), Error::BadMagic { format: Z, .. }));
    for t in [0, 2] {
        let mut bytes = example();
        put_i32(&mut bytes, 12, t);
        match err(&bytes) {
            Error::Unsupported {
                format: Z,
                what: "header.type",
                offset: 12,
                value,
                ..
            } => {
                assert_eq!(value, i64::from(t));
            }
            e => panic!("{e:?}"),
        }
    }
}

/// Rule 2: the declared size.
#[test]
fn rule_2_declared_size() {
    let mut bytes = example();
    put_i32(&mut bytes, 16, 940);
    assert!(matches!(
        err(&bytes),
        Error::Truncated {
            what: "file (header.filesize)",
            need: 940,
            have: 939,
            ..
        }
    ));
    put_i32(&mut bytes, 16, 139);
    assert_eq!(
        invalid(&err(&bytes)),
        (
            Z,
            "header.filesize",
            16,
            Problem::BelowMinimum {
                value: 139,
                min: 140
            }
        )
    );
    put_i32(&mut bytes, 16, -1);
    assert_eq!(
        invalid(&err(&bytes)),
        (Z, "header.filesize", 16, Problem::Negative { value: -1 })
    );
    let mut longer = example();
    longer.extend_from_slice(&[0; 5]);
    assert_eq!(warnings(&longer).count(WarningKind::FileSize), 1);
}

/// Rule 3: every count at least 1, not negative, within the limits.
#[test]
fn rule_3_counts() {
    let fields = [
        ("header.numverts", 48),
        ("header.numtris", 52),
        ("header.numshaders", 56),
        ("header.numbones", 60),
        ("header.numscenes", 64),
    ];
    for (what, at) in fields {
        let mut bytes = example();
        put_i32(&mut bytes, at, 0);
        assert_eq!(invalid(&err(&bytes)), (Z, what, at, Problem::Empty));
        put_i32(&mut bytes, at, -3);
        assert_eq!(
            invalid(&err(&bytes)),
            (Z, what, at, Problem::Negative { value: -3 })
        );
    }
    let limits = Limits {
        max_bones: 1,
        ..Limits::default()
    };
    assert!(matches!(
        err_with(&example(), &limits),
        Error::Limit {
            what: "header.numbones",
            offset: 60,
            value: 2,
            max: 1,
            ..
        }
    ));
}

/// Rule 4: every lump's start and length not negative, the lump within the data.
#[test]
fn rule_4_lumps_in_bounds() {
    let mut bytes = example();
    put_i32(&mut bytes, 84, -1);
    assert_eq!(
        invalid(&err(&bytes)),
        (Z, "lump_bones.start", 84, Problem::Negative { value: -1 })
    );
    let mut bytes = example();
    put_i32(&mut bytes, 136, -2);
    assert_eq!(
        invalid(&err(&bytes)),
        (
            Z,
            "lump_trizone.length",
            136,
            Problem::Negative { value: -2 }
        )
    );
    let mut bytes = example();
    put_i32(&mut bytes, 132, 0x7fff_fff0);
    assert!(matches!(
        err(&bytes),
        Error::Truncated {
            what: "lump_trizone",
            offset: 0x7fff_fff0,
            need: 3,
            have: 0,
            ..
        }
    ));
}

/// Rule 5: each lump exactly as long as its counts need.
#[test]
fn rule_5_lump_lengths() {
    let cases = [
        ("lump_scenes.length", 72, 152),
        ("lump_bones.length", 88, 80),
        ("lump_vertbonecounts.length", 96, 24),
        ("lump_verts.length", 104, 96),
        ("lump_texcoords.length", 112, 48),
        ("lump_render.length", 120, 44),
        ("lump_shaders.length", 128, 64),
        ("lump_trizone.length", 136, 3),
    ];
    for (what, at, want) in cases {
        let mut bytes = example();
        put_i32(&mut bytes, at, want as i32 - 1);
        assert_eq!(
            invalid(&err(&bytes)),
            (
                Z,
                what,
                at,
                Problem::Mismatch {
                    value: want - 1,
                    expected: want
                }
            ),
            "{what}"
        );
    }
}

/// Rule 6: at least one whole pose, every value finite; bytes after the last whole pose
/// ignored with a warning.
#[test]
fn rule_6_poses() {
    let mut bytes = example();
    put_i32(&mut bytes, 80, 95);
    assert_eq!(
        invalid(&err(&bytes)),
        (
            Z,
            "lump_poses.length",
            80,
            Problem::BelowMinimum { value: 95, min: 96 }
        )
    );
    let mut bytes = example();
    // Pose 2, bone 1, row 1, tx.
    let at = 292 + (2 * 2 + 1) * 48 + 16 + 12;
    put_f32(&mut bytes, at, f32::NAN);
    assert_eq!(
        invalid(&err(&bytes)),
        (Z, "pose.matrix", at, Problem::NotFinite)
    );
    // Eight more bytes than three poses (running into the bones lump).
    let mut bytes = example();
    put_i32(&mut bytes, 80, 288 + 8);
    let diag = warnings(&bytes);
    assert_eq!(diag.count(WarningKind::TrailingBytes), 1);
    assert_eq!(Zym::parse(&bytes).unwrap().num_poses(), 3);
    let limits = Limits {
        max_frames: 2,
        ..Limits::default()
    };
    assert!(matches!(
        err_with(&example(), &limits),
        Error::Limit {
            what: "poses",
            offset: 80,
            value: 3,
            max: 2,
            ..
        }
    ));
}

/// Rule 7: parents precede their children.
#[test]
fn rule_7_parents() {
    let mut bytes = example();
    let at = 580 + 40 + 36;
    put_i32(&mut bytes, at, 1);
    assert_eq!(
        invalid(&err(&bytes)),
        (Z, "bone.parent", at, Problem::Parent { bone: 1, parent: 1 })
    );
    put_i32(&mut bytes, at, -2);
    assert_eq!(
        invalid(&err(&bytes)),
        (
            Z,
            "bone.parent",
            at,
            Problem::Parent {
                bone: 1,
                parent: -2
            }
        )
    );
}

/// Rule 8: scenes within the poses, at a finite, non-negative rate.
#[test]
fn rule_8_scenes() {
    let scene1 = 140 + 76;
    let (start, length, rate) = (scene1 + 68, scene1 + 72, scene1 + 60);
    let with = |at: u64, v: i32| {
        let mut bytes = example();
        put_i32(&mut bytes, at, v);
        invalid(&err(&bytes))
    };
    assert_eq!(
        with(start, 3),
        (Z, "scene.start", start, Problem::Index { index: 3, len: 3 })
    );
    assert_eq!(
        with(start, -1),
        (Z, "scene.start", start, Problem::Negative { value: -1 })
    );
    assert_eq!(
        with(length, 3),
        (
            Z,
            "scene.length",
            length,
            Problem::AboveMaximum { value: 3, max: 2 }
        )
    );
    // DarkPlaces' unsigned sum wraps on a negative length and lets it through.
    assert_eq!(
        with(length, -1),
        (Z, "scene.length", length, Problem::Negative { value: -1 })
    );
    let mut bytes = example();
    put_f32(&mut bytes, rate, f32::NAN);
    assert_eq!(
        invalid(&err(&bytes)),
        (Z, "scene.framerate", rate, Problem::NotFinite)
    );
    put_f32(&mut bytes, rate, -2.5);
    assert_eq!(
        invalid(&err(&bytes)),
        (Z, "scene.framerate", rate, Problem::Negative { value: -2 })
    );
}

/// Rule 9: one influence per vertex, as DarkPlaces requires.
#[test]
fn rule_9_one_influence_per_vertex() {
    let at = 660 + 4 * 4;
    let mut bytes = example();
    put_i32(&mut bytes, at, 2);
    assert_eq!(
        invalid(&err(&bytes)),
        (
            Z,
            "vertbonecounts",
            at,
            Problem::Mismatch {
                value: 2,
                expected: 1
            }
        )
    );
    put_i32(&mut bytes, at, -1);
    assert_eq!(
        invalid(&err(&bytes)),
        (Z, "vertbonecounts", at, Problem::Negative { value: -1 })
    );
    put_i32(&mut bytes, at, 0);
    assert_eq!(
        invalid(&err(&bytes)),
        (
            Z,
            "vertbonecounts",
            at,
            Problem::Mismatch {
                value: 0,
                expected: 1
            }
        )
    );
}

/// Rule 10: every vertex names a bone and has a finite origin.
#[test]
fn rule_10_vertices() {
    let at = 684 + 16 * 3;
    let mut bytes = example();
    put_i32(&mut bytes, at, 2);
    assert_eq!(
        invalid(&err(&bytes)),
        (Z, "vertex.bonenum", at, Problem::Index { index: 2, len: 2 })
    );
    put_i32(&mut bytes, at, -1);
    assert_eq!(
        invalid(&err(&bytes)),
        (
            Z,
            "vertex.bonenum",
            at,
            Problem::Index { index: -1, len: 2 }
        )
    );
    let mut bytes = example();
    let origin_z = 684 + 16 * 5 + 4 + 8;
    put_f32(&mut bytes, origin_z, f32::INFINITY);
    assert_eq!(
        invalid(&err(&bytes)),
        (Z, "vertex.origin", origin_z, Problem::NotFinite)
    );
}

/// Rule 11: the render list's runs, their counts and indices.
#[test]
fn rule_11_render_list() {
    let list = 828;
    let mut bytes = example();
    put_i32(&mut bytes, list, -1);
    assert_eq!(
        invalid(&err(&bytes)),
        (Z, "render.count", list, Problem::Negative { value: -1 })
    );
    // The first run empty: the second run's count is then read from the first triangle's
    // first index (2), and the two runs end one triangle short of the list's end.
    put_i32(&mut bytes, list, 0);
    assert_eq!(
        invalid(&err(&bytes)),
        (
            Z,
            "render.count",
            list + 4,
            Problem::Mismatch {
                value: 2,
                expected: 3
            }
        )
    );
    let mut bytes = example();
    put_i32(&mut bytes, list, 4);
    assert_eq!(
        invalid(&err(&bytes)),
        (
            Z,
            "render.count",
            list,
            Problem::Mismatch {
                value: 4,
                expected: 3
            }
        )
    );
    let mut bytes = example();
    put_i32(&mut bytes, list + 8, 6);
    assert_eq!(
        invalid(&err(&bytes)),
        (
            Z,
            "render.indices",
            list + 8,
            Problem::Index { index: 6, len: 6 }
        )
    );
}

/// The warnings: unknown flags, unterminated names, bounds, trailing bytes, lump order.
#[test]
fn the_warnings() {
    let mut bytes = example();
    put_i32(&mut bytes, 580 + 32, 6);
    put_i32(&mut bytes, 140 + 64, 2);
    let diag = warnings(&bytes);
    assert_eq!(diag.count(WarningKind::UnknownFlags), 2);
    let mut bytes = example();
    bytes[872..904].fill(b'a');
    assert_eq!(warnings(&bytes).count(WarningKind::UnterminatedName), 1);
    let mut bytes = example();
    put_f32(&mut bytes, 20, 100.0);
    assert_eq!(warnings(&bytes).count(WarningKind::Bounds), 1);
    let mut bytes = example();
    bytes.extend_from_slice(&[0; 4]);
    put_i32(&mut bytes, 16, 943);
    assert_eq!(warnings(&bytes).count(WarningKind::TrailingBytes), 1);
    // The bones lump moved to the end: out of writer order.
    let mut bytes = example();
    let bones = bytes[580..660].to_vec();
    bytes.extend_from_slice(&bones);
    put_i32(&mut bytes, 84, 939);
    put_i32(&mut bytes, 16, 1019);
    assert_eq!(warnings(&bytes).count(WarningKind::LayoutOrder), 1);
}

/// Rules 9 and 10 on tables the scans prove (the example's vertices repeated 40 times): the
/// first failure is named as the walk names it.
#[test]
fn rules_9_and_10_on_tables_the_scans_prove_name_the_first_failure() {
    let mut b = Builder::example();
    let one = b.vertices.clone();
    b.vertices = (0..40).flat_map(|_| one.iter().cloned()).collect();
    let n = b.vertices.len() as u64;
    let clean = b.write().unwrap();
    assert_eq!(Zym::parse(&clean).unwrap().num_vertices() as u64, n);
    // `lump_vertbonecounts.start` and `lump_verts.start`, big-endian, in the header.
    let start = |at: usize| u64::from(u32::from_be_bytes(clean[at..at + 4].try_into().unwrap()));
    let (counts, verts) = (start(92), start(100));
    for i in [0, n / 2 + 1, n - 1] {
        let mut bytes = clean.clone();
        put_i32(&mut bytes, counts + 4 * i, 2);
        let problem = Problem::Mismatch {
            value: 2,
            expected: 1,
        };
        assert_eq!(
            invalid(&err(&bytes)),
            (Z, "vertbonecounts", counts + 4 * i, problem)
        );
        let mut bytes = clean.clone();
        put_i32(&mut bytes, verts + 16 * i, 2);
        put_f32(&mut bytes, verts + 16 * (n - 1) + 8, f32::NAN);
        let problem = Problem::Index { index: 2, len: 2 };
        assert_eq!(
            invalid(&err(&bytes)),
            (Z, "vertex.bonenum", verts + 16 * i, problem)
        );
        let mut bytes = clean.clone();
        put_f32(&mut bytes, verts + 16 * i + 4, f32::NEG_INFINITY);
        assert_eq!(
            invalid(&err(&bytes)),
            (Z, "vertex.origin", verts + 16 * i + 4, Problem::NotFinite)
        );
    }
}
