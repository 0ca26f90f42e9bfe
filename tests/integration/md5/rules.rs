//! One test per validation rule of `md5`'s module docs, and per malformed pattern other
//! loaders broke on, each asserting the error's variant, section and field, line and column.

use skelmap::md5::{Anim, MeshFile};
use skelmap::model::Companion;
use skelmap::{Error, Format, Limits, Model, Parse, Problem, WarningKind};

use super::{
    ANIM, MESH, PRE_RELEASE, anim_error, files, located, mesh_error, mesh_warnings, open_pair, with,
};

fn expected(expected: &'static str) -> Problem {
    Problem::Expected { expected }
}

#[test]
fn the_fixtures_parse_without_warnings() {
    assert!(mesh_warnings(MESH).is_empty());
    let mut diag = skelmap::Diagnostics::new();
    Anim::parse_with(ANIM.as_bytes(), &Limits::DEFAULT, &mut diag).unwrap();
    assert!(diag.is_empty());
}

// ---- rule 1: the header ----

#[test]
fn rule_1_another_version_is_unsupported() {
    let e = mesh_error(&with(MESH, "MD5Version 10", "MD5Version 11"));
    assert!(matches!(
        e,
        Error::Unsupported {
            format: Format::Md5,
            what: "header.MD5Version",
            offset: 11,
            value: 11,
            ..
        }
    ));
}

/// `mesh` and `anim` open as a pair (`Model`, the animation found beside the mesh) with the
/// bones, vertices and frames of the fixtures they were made from.
fn assert_pair_opens_as_the_fixtures(mesh: &str, anim: &str) {
    let (plain, changed) = (files(MESH, ANIM), files(mesh, anim));
    let counts = |m: skelmap::Model<'_>| (m.num_bones(), m.num_vertices(), m.num_frames());
    assert_eq!(
        counts(open_pair(&changed, "m/fixture.md5mesh").unwrap()),
        counts(open_pair(&plain, "m/fixture.md5mesh").unwrap())
    );
}

/// Tesseract's exporter starts a file at its `commandline` (Red Eclipse's
/// `weapons/zapper/mesh.md5mesh`); Tesseract reads the version line only when there is one,
/// where Doom 3 and assimp refuse the file. It is recognised as MD5, read as version 10 and
/// warned about, a mesh and an animation alike, and `Model` opens the pair.
#[test]
fn rule_1_a_text_without_its_version_line_is_read_as_version_10() {
    let mesh = with(MESH, "MD5Version 10\n", "");
    let anim = with(ANIM, "MD5Version 10\n", "");
    assert!(mesh.starts_with("commandline") && anim.starts_with("commandline"));
    assert_eq!(Format::detect(mesh.as_bytes(), None), Some(Format::Md5));
    let diag = mesh_warnings(&mesh);
    let w = diag.get(WarningKind::SpecLimit).unwrap();
    assert_eq!(
        (w.what, w.offset, diag.warnings().len()),
        ("header.MD5Version", 0, 1)
    );
    let mut diag = skelmap::Diagnostics::new();
    Anim::parse_with(anim.as_bytes(), &Limits::DEFAULT, &mut diag).unwrap();
    assert!(diag.get(WarningKind::SpecLimit).is_some());
    assert_pair_opens_as_the_fixtures(&mesh, &anim);
    // Another first word is still no MD5 file.
    assert_eq!(
        Format::detect(b"commandlines \"\"\nnumJoints 1", None),
        None
    );
}

/// Red Eclipse's `weapons/grenade/grenade.md5mesh` has its version line and no
/// `commandline`; Red Eclipse's loader skips that line, Doom 3 requires it. Read with an
/// empty command line and warned about, at the keyword after the version, a mesh and an
/// animation alike; without both lines the text is still refused.
#[test]
fn rule_1_a_text_without_its_commandline_is_read_with_an_empty_one() {
    let mesh = with(MESH, "commandline \"fixture\"\n", "");
    let anim = with(ANIM, "commandline \"fixture\"\n", "");
    assert!(mesh.starts_with("MD5Version 10\n\nnumJoints"), "{mesh}");
    let diag = mesh_warnings(&mesh);
    let w = diag.get(WarningKind::SpecLimit).unwrap();
    assert_eq!(
        (w.what, w.offset, diag.warnings().len()),
        ("header.commandline", 15, 1)
    );
    let file = MeshFile::parse(mesh.as_bytes()).unwrap();
    assert_eq!(file.commandline(), b"");
    let mut diag = skelmap::Diagnostics::new();
    let parsed = Anim::parse_with(anim.as_bytes(), &Limits::DEFAULT, &mut diag).unwrap();
    assert_eq!(parsed.commandline(), b"");
    let w = diag.get(WarningKind::SpecLimit).unwrap();
    assert_eq!((w.what, diag.warnings().len()), ("header.commandline", 1));
    assert_pair_opens_as_the_fixtures(&mesh, &anim);
    // Another word where the command line stands is still an error, and so is a text
    // without both lines.
    assert_eq!(
        located(&mesh_error(&with(MESH, "commandline", "command"))),
        ("header.commandline", 2, 1, expected("commandline"))
    );
    assert_eq!(
        located(&mesh_error(&with(&mesh, "MD5Version 10\n", ""))),
        ("header.MD5Version", 2, 1, expected("MD5Version"))
    );
}

/// Doom 3's pre-release models (`numbones`, `bone N { … }`; their animations `numchannels`,
/// `channel N { … }`) are refused with the reason, where assimp aborts on the mesh; a real
/// one (`lamp.md5mesh`, a version 6 text that says `MD5Version 10`) begins so.
/// The pre-release mesh layout is read (under `MD5Version 6`, and under 10, where
/// 21region/ik's `lamp.md5mesh` has it and assimp aborts), with a warning at `numbones`:
/// the joints are [`MESH`]'s (names, parents, positions, rotations), its vertices land at
/// [`BIND`](super::BIND), and the version-10 animation plays on it.
#[test]
fn rule_1_the_pre_release_mesh_layout_is_read() {
    let plain = MeshFile::parse(MESH.as_bytes()).unwrap();
    for text in [
        PRE_RELEASE.to_string(),
        with(PRE_RELEASE, "MD5Version 6", "MD5Version 10"),
    ] {
        let diag = mesh_warnings(&text);
        let w = diag.get(WarningKind::SpecLimit).unwrap();
        let at = text.find("numbones").unwrap() as u64;
        assert_eq!(
            (w.what, w.offset, diag.warnings().len()),
            ("header.numbones", at, 1)
        );
        assert!(
            w.detail
                .starts_with("the pre-release layout of MD5Version 6"),
            "{}",
            w.detail
        );
        let file = MeshFile::parse(text.as_bytes()).unwrap();
        assert_eq!(file.joints().len(), 3);
        for (i, (j, k)) in file.joints().iter().zip(plain.joints()).enumerate() {
            assert_eq!(file.joint_name(i), plain.joint_name(i));
            assert_eq!((j.parent, j.position), (k.parent, k.position), "joint {i}");
            // The same rotation, with w ≤ 0 as version 10 recovers it.
            assert!(j.orientation.w <= 0.0, "joint {i}");
            assert!(j.orientation.abs_diff_eq(k.orientation, 1e-6), "joint {i}");
            assert!(
                j.local_rotation.dot(k.local_rotation).abs() > 1.0 - 1e-6,
                "joint {i}"
            );
            assert!(
                j.local_translation.abs_diff_eq(k.local_translation, 1e-6),
                "joint {i}"
            );
        }
        let files = files(&text, ANIM);
        let model = open_pair(&files, "m/fixture.md5mesh").unwrap();
        assert_eq!(
            (model.num_bones(), model.num_vertices(), model.num_frames()),
            (3, 4, 2)
        );
        let mut pose = skelmap::model::Pose::default();
        model.pose_bind(&mut pose);
        let (mut p, mut q) = (vec![[0.0; 3]; 4], vec![[0.0; 3]; 4]);
        model.deform(0, &pose, &mut p, &mut q).unwrap();
        for (got, want) in p.iter().zip(super::BIND) {
            let d = (0..3).map(|k| (got[k] - want[k]).abs()).fold(0.0, f32::max);
            assert!(d < 1e-6, "{got:?} {want:?}");
        }
    }
}

/// Each part of a pre-release bone is checked where it stands: its index, a parent that is
/// no earlier bone, a missing bind matrix, a bone more than declared; a bind matrix that
/// scales is read with a warning; version 6 holds only the pre-release layouts.
#[test]
fn rule_1_a_pre_release_bone_is_checked() {
    let e = mesh_error(&with(PRE_RELEASE, "bone 1 {", "bone 2 {"));
    let mismatch = Problem::Mismatch {
        value: 2,
        expected: 1,
    };
    assert_eq!(located(&e), ("bone.index", 12, 6, mismatch));
    let earlier = expected("the name of an earlier bone");
    let e = mesh_error(&with(PRE_RELEASE, "parent \"root\"", "parent \"hand\""));
    assert_eq!(located(&e), ("bone.parent", 16, 9, earlier));
    let e = mesh_error(&with(PRE_RELEASE, "parent \"arm\"", "parent \"hand\""));
    assert_eq!(located(&e), ("bone.parent", 23, 9, earlier));
    let e = mesh_error(&with(PRE_RELEASE, "\tbindmat 1 0 0 0 1 0 0 0 1\n", ""));
    assert_eq!(located(&e), ("bone.bindmat", 9, 1, expected("bindmat")));
    let e = mesh_error(&with(PRE_RELEASE, "numbones 3", "numbones 2"));
    let more = Problem::MoreThanDeclared { declared: 2 };
    assert_eq!(located(&e), ("header.numbones", 19, 1, more));
    // A pre-release mesh's index is its place (a text that ends before its declared meshes:
    // `rule_4_a_text_may_end_before_its_declared_meshes`).
    let e = mesh_error(&with(PRE_RELEASE, "mesh 0 {", "mesh 1 {"));
    let mismatch = Problem::Mismatch {
        value: 1,
        expected: 0,
    };
    assert_eq!(located(&e), ("mesh.index", 28, 6, mismatch));
    let scaled = with(
        PRE_RELEASE,
        "bindmat 0 1 0 -1 0 0 0 0 1",
        "bindmat 0 2 0 -2 0 0 0 0 2",
    );
    let diag = mesh_warnings(&scaled);
    let w = diag.get(WarningKind::NonOrthonormal).unwrap();
    assert_eq!(w.what, "bone.bindmat");
    assert_eq!(
        w.detail,
        "bone 1's bind matrix also scales or skews; its rotation is read"
    );
    let file = MeshFile::parse(scaled.as_bytes()).unwrap();
    let plain = MeshFile::parse(MESH.as_bytes()).unwrap();
    assert!(
        file.joints()[1]
            .orientation
            .abs_diff_eq(plain.joints()[1].orientation, 1e-6)
    );
    // Version 6 with version 10's mesh layout is neither.
    let e = mesh_error(&with(MESH, "MD5Version 10", "MD5Version 6"));
    assert!(matches!(
        e,
        Error::Unsupported {
            what: "header.MD5Version",
            value: 6,
            offset: 11,
            ..
        }
    ));
    // The pre-release animation layout (`numchannels`) is read, and checked as such
    // (`channels.rs`).
    let e = anim_error(&with(ANIM, "numFrames 2", "numchannels 1"));
    let fewer = Problem::FewerThanDeclared {
        declared: 1,
        found: 0,
    };
    assert_eq!(located(&e), ("header.numchannels", 5, 1, fewer));
    // A pre-release mesh is not an animation.
    assert_eq!(
        located(&anim_error(PRE_RELEASE)),
        ("header", 4, 1, expected("numFrames (an .md5anim)"))
    );
}

#[test]
fn rule_1_a_mesh_text_is_not_an_animation_and_the_reverse() {
    assert_eq!(
        located(&anim_error(MESH)),
        ("header", 4, 1, expected("numFrames (an .md5anim)"))
    );
    assert_eq!(
        located(&mesh_error(ANIM)),
        ("header", 4, 1, expected("numJoints (an .md5mesh)"))
    );
}

// ---- rule 2: tokens ----

/// assimp CVE-2025-2757: a quoted string without its closing quote read past the buffer.
#[test]
fn rule_2_unterminated_quoted_string_cve_2025_2757() {
    let e = mesh_error(&with(MESH, "\"arm\"\t0", "\"arm\t0"));
    assert_eq!(
        located(&e),
        ("joints.name", 9, 2, Problem::UnterminatedString)
    );
    // At the very end of the text as well.
    let e = mesh_error("MD5Version 10\ncommandline \"abc");
    assert_eq!(
        located(&e),
        ("header.commandline", 2, 13, Problem::UnterminatedString)
    );
}

/// assimp OSS-Fuzz 49422 and 54381: the header parse ran off the end of the text.
#[test]
fn rule_2_header_running_off_the_end_ossfuzz_49422_54381() {
    let text = &MESH[..MESH.find("numJoints").unwrap() + "numJoints".len()];
    assert_eq!(
        located(&mesh_error(text)),
        ("header.numJoints", 4, 10, expected("an integer"))
    );
    assert_eq!(
        located(&mesh_error("MD5Version")),
        ("header.MD5Version", 1, 11, expected("an integer"))
    );
    assert_eq!(
        located(&mesh_error("MD5Version 10 ")),
        ("header.commandline", 1, 15, expected("commandline"))
    );
}

/// assimp OSS-Fuzz 54435, 60274 and 62441: a section's parse ran off the end.
#[test]
fn rule_2_sections_running_off_the_end_ossfuzz_54435_60274_62441() {
    let in_joints = &MESH[..MESH.find("( 0 0 1 )").unwrap() + 4];
    assert_eq!(
        located(&mesh_error(in_joints)),
        ("joints.position", 9, 14, expected("a number"))
    );
    let in_weight = &MESH[..MESH.find("weight 4 1 1 (").unwrap() + 14];
    assert_eq!(
        located(&mesh_error(in_weight)),
        ("weight.pos", 28, 16, expected("a number"))
    );
    let in_frame = &ANIM[..ANIM.find("0 0 2 0").unwrap()];
    assert_eq!(
        located(&anim_error(in_frame)),
        (
            "header.numAnimatedComponents",
            31,
            2,
            Problem::FewerThanDeclared {
                declared: 7,
                found: 0
            }
        )
    );
}

/// Inside what is read; after the last mesh nothing is read (rule 8).
#[test]
fn rule_2_an_unclosed_comment_is_refused() {
    let e = mesh_error(&with(MESH, "\tnumtris 2", "/* never closed\n\tnumtris 2"));
    assert_eq!(
        located(&e),
        ("comment", 20, 1, Problem::UnterminatedComment)
    );
}

#[test]
fn rule_2_numbers_that_overflow_or_are_not_finite() {
    for (to, problem) in [
        ("( 1e39 0 0 )", Problem::NotFinite),
        ("( nan 0 0 )", Problem::NotFinite),
        ("( -inf 0 0 )", Problem::NotFinite),
        ("( 1.#QNAN 0 0 )", Problem::Number),
        ("( 1x 0 0 )", Problem::Number),
    ] {
        let e = mesh_error(&with(
            MESH,
            "weight 0 0 1 ( 1 0 0 )",
            &format!("weight 0 0 1 {to}"),
        ));
        assert_eq!(located(&e), ("weight.pos", 24, 17, problem), "{to}");
    }
    let e = mesh_error(&with(MESH, "numverts 4", "numverts 99999999999999999999"));
    assert_eq!(located(&e), ("mesh.numverts", 15, 11, Problem::Number));
    let e = mesh_error(&with(MESH, "numverts 4", "numverts 4.0"));
    assert_eq!(located(&e), ("mesh.numverts", 15, 11, Problem::Number));
}

// ---- rule 3: counts ----

#[test]
fn rule_3_negative_and_zero_counts() {
    let e = mesh_error(&with(MESH, "numverts 4", "numverts -1"));
    assert_eq!(
        located(&e),
        ("mesh.numverts", 15, 11, Problem::Negative { value: -1 })
    );
    let e = mesh_error(&with(MESH, "numJoints 3", "numJoints 0"));
    assert_eq!(located(&e), ("header.numJoints", 4, 11, Problem::Empty));
    let e = anim_error(&with(ANIM, "numFrames 2", "numFrames 0"));
    assert_eq!(located(&e), ("header.numFrames", 4, 11, Problem::Empty));
}

#[test]
fn rule_3_counts_over_the_limits() {
    let limits = Limits {
        max_bones: 2,
        ..Limits::DEFAULT
    };
    let e = MeshFile::parse_with(MESH.as_bytes(), &limits, &mut Default::default()).unwrap_err();
    assert!(
        matches!(
            e,
            Error::Limit {
                what: "header.numJoints",
                value: 3,
                max: 2,
                ..
            }
        ),
        "{e}"
    );
    let limits = Limits {
        max_influences_per_vertex: 1,
        ..Limits::DEFAULT
    };
    let e = MeshFile::parse_with(MESH.as_bytes(), &limits, &mut Default::default()).unwrap_err();
    assert!(
        matches!(
            e,
            Error::Limit {
                what: "vert.countWeight",
                value: 2,
                max: 1,
                ..
            }
        ),
        "{e}"
    );
    let e = anim_error(&with(
        ANIM,
        "numAnimatedComponents 7",
        "numAnimatedComponents 19",
    ));
    assert!(
        matches!(
            e,
            Error::Limit {
                what: "header.numAnimatedComponents",
                value: 19,
                max: 18,
                ..
            }
        ),
        "{e}"
    );
}

/// The weights of all meshes together stay within `max_total_influences`: two meshes of 5
/// weights each pass a cap of 9 one by one, not together.
#[test]
fn rule_6_total_influences_over_the_limit() {
    let mesh = &MESH[MESH.find("mesh {").unwrap()..];
    let text = with(&format!("{MESH}{mesh}"), "numMeshes 1", "numMeshes 2");
    let limits = Limits {
        max_total_influences: 9,
        ..Limits::DEFAULT
    };
    let e = MeshFile::parse_with(text.as_bytes(), &limits, &mut Default::default()).unwrap_err();
    let total = "mesh.numweights (total influences)";
    assert!(
        matches!(e, Error::Limit { what, value: 10, max: 9, .. } if what == total),
        "{e}"
    );
}

/// Frames × joints stay within `MAX_BAKED_POSES` (every frame is decoded at open): 65 536
/// frames of 65 joints, with text enough for the counts, are refused at `numFrames`.
#[test]
fn rule_7_frames_times_joints_over_the_limit() {
    let header = "MD5Version 10\ncommandline \"\"\nnumFrames 65536\nnumJoints 65\nframeRate 24\n\
                  numAnimatedComponents 0\n";
    let text = format!("{header}// {}\n", "x".repeat(700_000));
    let e = anim_error(&text);
    let max = skelmap::pose::MAX_BAKED_POSES as u64;
    assert!(
        matches!(e, Error::Limit { what: "header.numFrames × header.numJoints", offset: 29, value: 4_259_840, max: m, .. } if m == max),
        "{e}"
    );
}

/// A count that lies upward is refused before anything is reserved for it: the rest of the
/// text cannot hold that many entries.
#[test]
fn rule_3_a_count_the_text_cannot_hold_is_refused_before_reserving() {
    let e = mesh_error(&with(MESH, "numverts 4", "numverts 4000000"));
    let (what, line, column, problem) = located(&e);
    assert_eq!((what, line, column), ("mesh.numverts", 15, 11));
    let Problem::AboveMaximum {
        value: 4_000_000,
        max,
    } = problem
    else {
        panic!("{problem:?}")
    };
    assert!(max < 30, "{max}");
    let e = anim_error(&with(ANIM, "numFrames 2", "numFrames 60000"));
    assert!(matches!(
        located(&e).3,
        Problem::AboveMaximum { value: 60000, .. }
    ));
}

// ---- rule 4: counts against entries ----

#[test]
fn rule_4_counts_that_lie_in_both_directions() {
    let cases = [
        (
            "numJoints 3",
            "numJoints 4",
            "header.numJoints",
            11,
            1,
            Problem::FewerThanDeclared {
                declared: 4,
                found: 3,
            },
        ),
        (
            "numJoints 3",
            "numJoints 2",
            "header.numJoints",
            10,
            2,
            Problem::MoreThanDeclared { declared: 2 },
        ),
        (
            "numverts 4",
            "numverts 5",
            "mesh.numverts",
            20,
            2,
            Problem::FewerThanDeclared {
                declared: 5,
                found: 4,
            },
        ),
        (
            "numverts 4",
            "numverts 3",
            "mesh.numverts",
            19,
            2,
            Problem::MoreThanDeclared { declared: 3 },
        ),
        (
            "numtris 2",
            "numtris 3",
            "mesh.numtris",
            23,
            2,
            Problem::FewerThanDeclared {
                declared: 3,
                found: 2,
            },
        ),
        (
            "numtris 2",
            "numtris 1",
            "mesh.numtris",
            22,
            2,
            Problem::MoreThanDeclared { declared: 1 },
        ),
        (
            "numweights 5",
            "numweights 6",
            "mesh.numweights",
            29,
            1,
            Problem::FewerThanDeclared {
                declared: 6,
                found: 5,
            },
        ),
        (
            "numweights 5",
            "numweights 4",
            "mesh.numweights",
            28,
            2,
            Problem::MoreThanDeclared { declared: 4 },
        ),
    ];
    for (from, to, what, line, column, problem) in cases {
        let e = mesh_error(&with(MESH, from, to));
        assert_eq!(located(&e), (what, line, column, problem), "{to}");
    }
    let cases = [
        (
            "numFrames 2",
            "numFrames 3",
            "header.numFrames",
            18,
            1,
            Problem::FewerThanDeclared {
                declared: 3,
                found: 2,
            },
        ),
        (
            "\t0 0 2 0 0 0 2",
            "\t0 0 2 0 0 0",
            "header.numAnimatedComponents",
            32,
            1,
            Problem::FewerThanDeclared {
                declared: 7,
                found: 6,
            },
        ),
        (
            "\t0 0 2 0 0 0 2",
            "\t0 0 2 0 0 0 2 9",
            "header.numAnimatedComponents",
            31,
            16,
            Problem::MoreThanDeclared { declared: 7 },
        ),
    ];
    for (from, to, what, line, column, problem) in cases {
        let e = anim_error(&with(ANIM, from, to));
        assert_eq!(located(&e), (what, line, column, problem), "{to}");
    }
}

/// A text that ends after fewer meshes than it declares is read with the meshes it holds
/// and a warning, as the Cube 2 engines' line readers read it (Red Eclipse's
/// `props/ball/ball.md5mesh`: two declared, one there). Anything else where a mesh should
/// start stays an error (`rule_4_deeply_repeated_sections`), in the pre-release layout too.
#[test]
fn rule_4_a_text_may_end_before_its_declared_meshes() {
    for (declared, at_end) in [("numMeshes 2", ""), ("numMeshes 3", "\n// the end\n\r\n")] {
        let text = format!("{}{at_end}", with(MESH, "numMeshes 1", declared));
        let mut diag = skelmap::Diagnostics::new();
        let mesh = MeshFile::parse_with(text.as_bytes(), &Limits::DEFAULT, &mut diag).unwrap();
        assert_eq!(mesh.num_meshes(), 1);
        assert_eq!(diag.warnings().len(), 1, "{diag:?}");
        let w = diag.get(WarningKind::SpecLimit).unwrap();
        assert_eq!(
            (w.what, w.offset, w.count),
            ("header.numMeshes", text.len() as u64, 1)
        );
        let n = &declared[10..];
        assert_eq!(
            w.detail,
            format!(
                "declares {n} meshes, and the text ends after 1: read as 1, as the Cube 2 \
                 engines read it (Doom 3 and Daemon refuse the file)"
            )
        );
    }
    // A skeleton whose one declared mesh never comes.
    let bare = &MESH[..MESH.find("mesh {").unwrap()];
    let mut diag = skelmap::Diagnostics::new();
    let mesh = MeshFile::parse_with(bare.as_bytes(), &Limits::DEFAULT, &mut diag).unwrap();
    assert_eq!((mesh.num_meshes(), mesh.joints().len()), (0, 3));
    assert!(
        diag.get(WarningKind::SpecLimit)
            .unwrap()
            .detail
            .contains("ends after 0")
    );
    // The pre-release layout names its own count.
    let pre = with(PRE_RELEASE, "nummeshes 1", "nummeshes 2");
    let mut diag = skelmap::Diagnostics::new();
    let mesh = MeshFile::parse_with(pre.as_bytes(), &Limits::DEFAULT, &mut diag).unwrap();
    assert_eq!(mesh.num_meshes(), 1);
    // One kind, counted twice: the layout's warning first, then the meshes'.
    assert_eq!(diag.count(WarningKind::SpecLimit), 2);
    // Through `Model`, with the animation beside it, the pair opens as the fixtures do.
    assert_pair_opens_as_the_fixtures(&with(MESH, "numMeshes 1", "numMeshes 2"), ANIM);
}

/// Bounds entries past the declared frames are checked and not read, with a warning counting
/// them: Sauerbraten's `captaincannon` animations list one more than their frames, and the
/// Cube 2 engines never read the bounds. Doom 3 refuses such a file.
#[test]
fn rule_4_bounds_past_the_declared_frames_are_left_unread() {
    let extra = "\t( 0 -1 0 ) ( 2 1 2 )\n\t( 9 9 9 ) ( 9 9 9 )\n\t( 1 1 1 ) ( 2 2 2 )\n";
    let text = with(ANIM, "\t( 0 -1 0 ) ( 2 1 2 )\n", extra);
    let mut diag = skelmap::Diagnostics::new();
    let anim = Anim::parse_with(text.as_bytes(), &Limits::DEFAULT, &mut diag).unwrap();
    assert_eq!(anim.num_frames(), 2);
    let w = diag.get(WarningKind::SpecLimit).unwrap();
    let first = text.find("( 9 9 9 )").unwrap() as u64;
    assert_eq!((w.what, w.offset, w.count), ("header.numFrames", first, 2));
    assert_eq!(
        w.detail,
        "bounds entries past the 2 declared frames: not read, as the Cube 2 engines leave \
         them (Doom 3 refuses the file)"
    );
    assert_pair_opens_as_the_fixtures(MESH, &text);
    // An extra entry is read as an entry: a malformed one is an error where it breaks.
    let broken = with(
        ANIM,
        "\t( 0 -1 0 ) ( 2 1 2 )\n",
        "\t( 0 -1 0 ) ( 2 1 2 )\n\t( 9 9 ) ( 9 9 9 )\n",
    );
    let e = anim_error(&broken);
    assert_eq!(located(&e), ("bounds.min", 18, 8, expected("a number")));
}

#[test]
fn rule_4_an_entry_s_own_index_is_its_place() {
    let e = mesh_error(&with(MESH, "vert 2 (", "vert 7 ("));
    assert_eq!(
        located(&e),
        (
            "vert.index",
            18,
            7,
            Problem::Mismatch {
                value: 7,
                expected: 2
            }
        )
    );
    let e = mesh_error(&with(MESH, "tri 1 0", "tri 0 0"));
    assert_eq!(
        located(&e),
        (
            "tri.index",
            22,
            6,
            Problem::Mismatch {
                value: 0,
                expected: 1
            }
        )
    );
    let e = anim_error(&with(ANIM, "frame 1 {", "frame 2 {"));
    assert_eq!(
        located(&e),
        (
            "frame.index",
            30,
            7,
            Problem::Mismatch {
                value: 2,
                expected: 1
            }
        )
    );
}

/// The same section over and over: a section inside another is refused at the first one
/// past the count; meshes past the declared ones are not read (rule 8). One pass either way.
#[test]
fn rule_4_deeply_repeated_sections() {
    let mesh_block = &MESH[MESH.find("mesh {").unwrap()..];
    let text = format!("{MESH}{}", mesh_block.repeat(20_000));
    let mut diag = skelmap::Diagnostics::new();
    let mesh = MeshFile::parse_with(text.as_bytes(), &Limits::DEFAULT, &mut diag).unwrap();
    assert_eq!(mesh.num_meshes(), 1);
    let w = diag.get(WarningKind::TrailingBytes).unwrap();
    assert_eq!((w.what, w.offset, w.count), ("end", MESH.len() as u64, 1));
    let verts = &MESH[MESH.find("\tvert 0").unwrap()..MESH.find("\tnumtris").unwrap()];
    let text = with(
        MESH,
        "\tnumtris",
        &format!("{}\tnumtris", verts.repeat(20_000)),
    );
    let e = mesh_error(&text);
    assert_eq!(located(&e).0, "mesh.numverts");
    assert!(matches!(
        located(&e).3,
        Problem::MoreThanDeclared { declared: 4 }
    ));
    let joints = &MESH[MESH.find("joints {").unwrap()..MESH.find("mesh {").unwrap()];
    let text = with(MESH, "mesh {", &format!("{}mesh {{", joints.repeat(20_000)));
    let e = mesh_error(&text);
    assert_eq!(
        located(&e),
        (
            "header.numMeshes",
            13,
            1,
            Problem::FewerThanDeclared {
                declared: 1,
                found: 0
            }
        )
    );
}

// ---- rule 5: parents ----

#[test]
fn rule_5_a_joint_whose_parent_is_itself_or_later() {
    let e = mesh_error(&with(MESH, "\"arm\"\t0", "\"arm\"\t1"));
    assert_eq!(
        located(&e),
        ("joints.parent", 9, 8, Problem::OwnParent { bone: 1 })
    );
    let e = mesh_error(&with(MESH, "\"arm\"\t0", "\"arm\"\t2"));
    assert_eq!(
        located(&e),
        (
            "joints.parent",
            9,
            8,
            Problem::Parent { bone: 1, parent: 2 }
        )
    );
    let e = mesh_error(&with(MESH, "\"root\"\t-1", "\"root\"\t-2"));
    assert_eq!(
        located(&e),
        (
            "joints.parent",
            8,
            9,
            Problem::Parent {
                bone: 0,
                parent: -2
            }
        )
    );
    let e = anim_error(&with(ANIM, "\"hand\"\t1", "\"hand\"\t2"));
    assert_eq!(
        located(&e),
        ("hierarchy.parent", 12, 9, Problem::OwnParent { bone: 2 })
    );
}

// ---- rule 6: indices ----

#[test]
fn rule_6_weight_and_vertex_indices_out_of_range() {
    let e = mesh_error(&with(MESH, "weight 4 1 1", "weight 4 3 1"));
    assert_eq!(
        located(&e),
        ("weight.joint", 28, 11, Problem::Index { index: 3, len: 3 })
    );
    let e = mesh_error(&with(MESH, "vert 3 ( 1 1 ) 4 1", "vert 3 ( 1 1 ) 4 2"));
    assert_eq!(
        located(&e),
        (
            "vert.startWeight",
            19,
            17,
            Problem::Index { index: 5, len: 5 }
        )
    );
    let e = mesh_error(&with(MESH, "tri 1 0 2 3", "tri 1 0 2 4"));
    assert_eq!(
        located(&e),
        ("tri.vertIndex", 22, 12, Problem::Index { index: 4, len: 4 })
    );
    let e = mesh_error(&with(MESH, "tri 1 0 2 3", "tri 1 0 -1 3"));
    assert_eq!(
        located(&e),
        (
            "tri.vertIndex",
            22,
            10,
            Problem::Index { index: -1, len: 4 }
        )
    );
}

/// Doom 3 refuses a vertex without weights ("Vertex without any joint weights").
#[test]
fn rule_6_a_vertex_without_weights() {
    let e = mesh_error(&with(MESH, "vert 2 ( 0 1 ) 3 1", "vert 2 ( 0 1 ) 3 0"));
    assert_eq!(
        located(&e),
        ("vert.countWeight", 18, 19, Problem::NoInfluences)
    );
}

// ---- rule 7: animations ----

#[test]
fn rule_7_animation_flags_components_and_rate() {
    let e = anim_error(&with(ANIM, "\"hand\"\t1 1 6", "\"hand\"\t1 64 6"));
    assert_eq!(
        located(&e),
        ("hierarchy.flags", 12, 11, Problem::UnknownCode { code: 64 })
    );
    let e = anim_error(&with(ANIM, "\"hand\"\t1 1 6", "\"hand\"\t1 1 7"));
    assert_eq!(
        located(&e),
        (
            "hierarchy.startIndex",
            12,
            13,
            Problem::AboveMaximum { value: 8, max: 7 }
        )
    );
    let e = anim_error(&with(ANIM, "frameRate 24", "frameRate -1"));
    assert_eq!(
        located(&e),
        (
            "header.frameRate",
            6,
            11,
            Problem::NotPositive { value: -1.0 }
        )
    );
    let mut diag = skelmap::Diagnostics::new();
    let text = with(ANIM, "frameRate 24", "frameRate 0");
    let anim = Anim::parse_with(text.as_bytes(), &Limits::DEFAULT, &mut diag).unwrap();
    assert_eq!(
        (anim.frame_rate(), diag.count(WarningKind::FrameRate)),
        (24.0, 1)
    );
}

// ---- rule 8: the end ----

/// Doom 3 reads the declared meshes or frames and stops: what follows (an extra block, an
/// editor's leftovers, a comment never closed) is not read, and named by a warning at its
/// first byte. Comments and white space there are no finding.
#[test]
fn rule_8_what_follows_the_declared_meshes_or_frames_is_not_read() {
    let warned = |diag: &skelmap::Diagnostics| {
        let w = diag.get(WarningKind::TrailingBytes).expect("warned");
        (w.what, w.offset, w.count)
    };
    let junk = format!("{MESH}junk");
    let mesh = MeshFile::parse(junk.as_bytes()).unwrap();
    assert_eq!(mesh.num_meshes(), 1);
    let at = MESH.len() as u64;
    assert_eq!(warned(&mesh_warnings(&junk)), ("end", at, 1));
    let open = format!("{MESH}/* never closed");
    assert_eq!(warned(&mesh_warnings(&open)), ("end", at, 1));
    let quiet = format!("{MESH}// a comment\n/* and another */\r\n");
    assert!(mesh_warnings(&quiet).is_empty());
    // A mesh declared none: its one mesh is text after the header's.
    let none = with(MESH, "numMeshes 1", "numMeshes 0");
    let mesh = MeshFile::parse(none.as_bytes()).unwrap();
    assert_eq!(mesh.num_meshes(), 0);
    let first = none.find("mesh {").unwrap() as u64;
    assert_eq!(warned(&mesh_warnings(&none)), ("end", first, 1));
    // An animation of two frames declaring one; then, as Sauerbraten's
    // `mrfixit/backward.md5anim` ends, pieces of older lines after the last frame.
    let one = with(ANIM, "numFrames 2", "numFrames 1");
    let one = with(&one, "\t( 0 -1 0 ) ( 2 1 2 )\n", "");
    let mut diag = skelmap::Diagnostics::new();
    let anim = Anim::parse_with(one.as_bytes(), &Limits::DEFAULT, &mut diag).unwrap();
    assert_eq!(anim.num_frames(), 1);
    let second = one.find("frame 1").unwrap() as u64;
    assert_eq!(warned(&diag), ("end", second, 1));
    let leftovers = format!("{ANIM}0.189587 0.981864\n}}\n\n11 5.097563 0.0\n}}\n");
    let mut diag = skelmap::Diagnostics::new();
    let anim = Anim::parse_with(leftovers.as_bytes(), &Limits::DEFAULT, &mut diag).unwrap();
    assert_eq!(anim.num_frames(), 2);
    assert_eq!(warned(&diag), ("end", ANIM.len() as u64, 1));
    let text = diag.warnings()[0].to_string();
    assert!(text.contains("after the last declared frame"), "{text}");
}

// ---- rule 9: animations on a mesh ----

#[test]
fn rule_9_an_animation_of_other_joints_beside_the_mesh_is_left_out() {
    // The frames the mesh plays, and what its one warning of left-out animations says.
    let opened = |files: &std::collections::HashMap<String, Vec<u8>>| {
        let model = open_pair(files, "m/fixture.md5mesh").unwrap();
        let w = model
            .diagnostics()
            .get(WarningKind::CompanionIgnored)
            .unwrap();
        (model.num_frames(), w.what, w.count, w.detail.clone())
    };
    let other = with(ANIM, "\"hand\"", "\"claw\"");
    let mut files = files(MESH, &other);
    let (frames, _, _, detail) = opened(&files);
    assert_eq!(frames, 1);
    assert_eq!(
        detail,
        "m/fixture-idle.md5anim: MD5: invalid hierarchy.name at line 12, column 3: joint 2 \
         differs from the model's joint 2 in name or parent; not played on this mesh"
    );
    // Every animation left out is named, each with its reason, in the one warning: a
    // folder may hold a dozen of another skeleton's (nbever/j-md5loader holds three).
    let fewer = with(ANIM, "numJoints 3", "numJoints 4");
    files.insert("m/other.md5anim".to_string(), fewer.into_bytes());
    files.insert("m/plays.md5anim".to_string(), ANIM.as_bytes().to_vec());
    let (frames, what, count, detail) = opened(&files);
    assert_eq!((frames, what, count), (2, "animation", 2));
    // `Model::left_out` names the two of the three opened, in the order found, and the
    // `.md5scale` that came with one of them.
    files.insert(
        "m/fixture-idle.md5scale".to_string(),
        br#"{ "arm": { "1": 0.5 } }"#.to_vec(),
    );
    let model = open_pair(&files, "m/fixture.md5mesh").unwrap();
    assert_eq!(model.companions().count(), 4);
    assert_eq!(
        model.left_out().collect::<Vec<_>>(),
        [
            (Companion::AnimationBeside, "m/fixture-idle.md5anim"),
            (Companion::Scale, "m/fixture-idle.md5scale"),
            (Companion::AnimationBeside, "m/other.md5anim"),
        ]
    );
    assert!(
        detail.contains("m/fixture-idle.md5anim: MD5: invalid hierarchy.name")
            && detail.contains("m/other.md5anim: MD5: invalid header.numJoints")
            && detail.ends_with("; not played on this mesh"),
        "{detail}"
    );
}

/// An animation beside the mesh is fitted as soon as its hierarchy is read: one of other
/// joints is left out without its frames read (a frame that would be refused and a rotation
/// that would be warned of change nothing), and what the parse of an animation left out
/// found does not join the model's findings; what that of one played found does.
#[test]
fn rule_9_an_animation_left_out_brings_no_findings_of_its_own() {
    let unit = "0 0 1 0 0 -0.70710677 1";
    let long = "0 0 1 0.9 0.9 -0.70710677 1";
    let kinds = |model: &Model<'_>| {
        let w = model.diagnostics().warnings();
        w.iter().map(|w| (w.kind, w.count)).collect::<Vec<_>>()
    };
    // Other joints, a rotation past unit length in frame 0 and a NaN in frame 1.
    let other = with(&with(ANIM, "\"hand\"", "\"claw\""), unit, long);
    let other = with(&other, "0 0 2 0 0 0 2", "0 0 2 0 0 0 nan");
    let files = files(MESH, &other);
    let model = open_pair(&files, "m/fixture.md5mesh").unwrap();
    assert_eq!(model.num_frames(), 1);
    assert_eq!(kinds(&model), [(WarningKind::CompanionIgnored, 1)]);
    let detail = &model.diagnostics().warnings()[0].detail;
    assert!(
        detail.contains("hierarchy.name at line 12, column 3"),
        "{detail}"
    );
    // The same joints, refused at frame 1 after the warning at frame 0.
    let refused = with(&with(ANIM, unit, long), "0 0 2 0 0 0 2", "0 0 2 0 0 0 nan");
    let files = self::files(MESH, &refused);
    let model = open_pair(&files, "m/fixture.md5mesh").unwrap();
    assert_eq!(model.num_frames(), 1);
    assert_eq!(kinds(&model), [(WarningKind::CompanionIgnored, 1)]);
    let detail = &model.diagnostics().warnings()[0].detail;
    assert!(detail.contains("frame.component"), "{detail}");
    // Played: its finding is the model's.
    let played = with(ANIM, unit, long);
    let files = self::files(MESH, &played);
    let model = open_pair(&files, "m/fixture.md5mesh").unwrap();
    assert_eq!(model.num_frames(), 2);
    assert_eq!(kinds(&model), [(WarningKind::QuatNotUnit, 1)]);
}

/// vkQuake #980: an animation of another joint count aborted the engine; given explicitly,
/// it is an error located in the animation.
#[test]
fn rule_9_an_animation_given_that_does_not_fit_is_an_error() {
    let dir = tempfile_dir();
    let dir = dir.path();
    let (mesh, anim) = (dir.join("m.md5mesh"), dir.join("a.md5anim"));
    std::fs::write(&mesh, MESH).unwrap();
    let open = |text: &str| {
        std::fs::write(&anim, text).unwrap();
        let options = skelmap::model::OpenOptions {
            animation: Some(anim.clone()),
            ..Default::default()
        };
        skelmap::Model::open_with(&mesh, &options)
    };
    assert_eq!(open(ANIM).unwrap().num_frames(), 2);
    let e = open(&with(ANIM, "\"hand\"", "\"claw\"")).unwrap_err();
    assert_eq!(
        located(&e),
        ("hierarchy.name", 12, 3, Problem::JointMismatch { joint: 2 })
    );
    let e = open(&with(ANIM, "\"hand\"\t1", "\"hand\"\t0")).unwrap_err();
    assert_eq!(located(&e).3, Problem::JointMismatch { joint: 2 });
    let fewer = with(
        &with(ANIM, "numJoints 3", "numJoints 2"),
        "\t\"hand\"\t1 1 6\n",
        "",
    );
    let fewer = with(
        &with(&fewer, "\t( 1 0 0 ) ( 0 0 0 )\n", ""),
        "numAnimatedComponents 7",
        "numAnimatedComponents 6",
    );
    let fewer = with(
        &with(&fewer, " -0.70710677 1\n", " -0.70710677\n"),
        "0 0 0 2\n",
        "0 0 0\n",
    );
    // Another joint count is said first, at the animation's `numJoints`, as Doom 3 checks
    // it, also where an earlier joint differs as well (the last joint of a folder's other
    // skeleton, `boblamp` beside `monster`, used to be named instead).
    let count = Problem::Mismatch {
        value: 2,
        expected: 3,
    };
    let e = open(&fewer).unwrap_err();
    assert_eq!(located(&e), ("header.numJoints", 5, 1, count));
    let e = open(&with(&fewer, "\"arm\"", "\"elbow\"")).unwrap_err();
    assert_eq!(located(&e), ("header.numJoints", 5, 1, count));
    assert_eq!(
        e.to_string(),
        "MD5: invalid header.numJoints at line 5, column 1: is 2 but must be 3"
    );
}

/// A fresh directory under the system's temporary one, removed with its files when the
/// returned value drops (also when the test panics).
fn tempfile_dir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("skelmap-md5-rules-")
        .tempdir()
        .unwrap()
}

// ---- warnings ----

#[test]
fn warnings_weights_off_one_and_rotations_past_unit() {
    let diag = mesh_warnings(&with(MESH, "weight 3 2 1 (", "weight 3 2 0.5 ("));
    let w = diag.get(WarningKind::InfluenceSum).unwrap();
    assert_eq!((w.what, w.count), ("weight.bias", 1));
    let diag = mesh_warnings(&with(
        MESH,
        "( 0 0 0 )\n\t\"arm\"",
        "( 0.9 0.9 0 )\n\t\"arm\"",
    ));
    assert_eq!(diag.count(WarningKind::QuatNotUnit), 1);
}
