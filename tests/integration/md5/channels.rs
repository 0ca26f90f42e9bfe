//! The pre-release animation layout (`MD5Version 6`, `numchannels`): [`ANIM`]'s two frames
//! written by hand as channels, one curve of keys a joint and attribute, play on the mesh as
//! [`ANIM`] does; read alone, its joints are roots; each malformed part of a channel is
//! refused where it stands.

use skelmap::md5::Anim;
use skelmap::{Diagnostics, Error, Limits, Model, Parse, Problem, WarningKind};

use super::{ANIM, FRAME_1, MESH, anim_error, files, located, open_pair, with};
use crate::support::frame_vertices;

/// One channel's text: `joint`'s `attribute`, keys for frames `first..first + keys.len()`.
fn channel(index: usize, joint: &str, attribute: &str, first: usize, keys: &[f32]) -> String {
    let end = first + keys.len();
    let values: Vec<String> = keys.iter().map(|k| format!("{k}")).collect();
    format!(
        "channel {index} {{\n\tjoint \"{joint}\"\n\tattribute \"{attribute}\"\n\tstarttime \
         0.000000\n\tendtime {:.6}\n\tframerate 24.000000\n\n\tstrings 0\n\n\trange {first} \
         {end}\n\tkeys {}\n\t\t{}\n}}\n\n",
        end as f32 / 24.0,
        keys.len(),
        values.join(" ")
    )
}

/// [`ANIM`] by hand in the pre-release layout: `root` still at the origin (its `x` one key
/// that the second frame holds, its `y` one key from frame 1 that the first frame holds);
/// `arm` at `(0, 0, 1)` turned 90° about `+Z` (yaw 90) in frame 0, at `(0, 0, 2)` unturned in
/// frame 1; `hand` at `(1, 0, 0)`, then `(2, 0, 0)`, unturned; and the two boxes.
fn channels() -> String {
    channels_without(|_, _| false)
}

/// [`channels`] without the channels `skip` says yes to (by joint and attribute).
fn channels_without(skip: impl Fn(&str, &str) -> bool) -> String {
    let mut curves: Vec<(&str, &str, usize, Vec<f32>)> = vec![
        ("root", "x", 0, vec![0.0]),
        ("root", "y", 1, vec![0.0]),
        ("root", "z", 0, vec![0.0, 0.0]),
        ("arm", "x", 0, vec![0.0, 0.0]),
        ("arm", "y", 0, vec![0.0, 0.0]),
        ("arm", "z", 0, vec![1.0, 2.0]),
        ("arm", "yaw", 0, vec![90.0, 0.0]),
        ("hand", "x", 0, vec![1.0, 2.0]),
        ("hand", "y", 0, vec![0.0, 0.0]),
        ("hand", "z", 0, vec![0.0, 0.0]),
    ];
    for joint in ["root", "arm", "hand"] {
        for attribute in ["pitch", "yaw", "roll"] {
            if (joint, attribute) != ("arm", "yaw") {
                curves.push((joint, attribute, 0, vec![0.0, 0.0]));
            }
        }
    }
    for (b, values) in [
        ("boundsMin", [[0.0, 0.0], [0.0, -1.0], [0.0, 0.0]]),
        ("boundsMax", [[1.0, 2.0], [1.0, 1.0], [1.0, 2.0]]),
    ] {
        for (attribute, keys) in ["x", "y", "z"].into_iter().zip(values) {
            curves.push((b, attribute, 0, keys.to_vec()));
        }
    }
    curves.retain(|(joint, attribute, ..)| !skip(joint, attribute));
    let mut text = format!(
        "MD5Version 6\ncommandline \"fixture\"\n\nnumchannels {}\n\n",
        curves.len()
    );
    for (i, (joint, attribute, first, keys)) in curves.iter().enumerate() {
        text.push_str(&channel(i, joint, attribute, *first, keys));
    }
    text
}

fn close(a: &[[f32; 3]], b: &[[f32; 3]]) -> bool {
    a.len() == b.len() && (a.iter().zip(b)).all(|(p, q)| (0..3).all(|k| (p[k] - q[k]).abs() < 1e-6))
}

/// Beside the mesh, the channels play as [`ANIM`]: the same vertices in both frames (frame
/// 1 as worked out by hand), at 24 frames a second, with the boxes the bounds channels give
/// and a warning naming the layout.
#[test]
fn a_pre_release_animation_plays_on_its_mesh_as_version_10_does() {
    let text = channels();
    let (plain, pre) = (files(MESH, ANIM), files(MESH, &text));
    let (a, b) = (
        open_pair(&plain, "m/fixture.md5mesh").unwrap(),
        open_pair(&pre, "m/fixture.md5mesh").unwrap(),
    );
    assert_eq!((b.num_frames(), b.clips()[0].fps), (2, 24.0));
    assert!(close(&frame_vertices(&b, 1), &FRAME_1));
    for f in 0..2 {
        assert!(
            close(&frame_vertices(&a, f), &frame_vertices(&b, f)),
            "frame {f}"
        );
    }
    let warning = b.diagnostics().get(WarningKind::SpecLimit).unwrap();
    assert_eq!(warning.what, "header.numchannels");
    let mut diag = Diagnostics::new();
    let anim = Anim::parse_with(text.as_bytes(), &Limits::DEFAULT, &mut diag).unwrap();
    assert_eq!(diag.warnings().len(), 1);
    let (v10, v6) = (Anim::parse(ANIM.as_bytes()).unwrap(), anim);
    for f in 0..2 {
        assert_eq!(v6.bounds(f), v10.bounds(f), "frame {f}");
    }
    // Read alone: its joints, each a root, in the order their first channels name them.
    let names: Vec<&[u8]> = (0..3).map(|j| v6.joint_name(j).unwrap()).collect();
    assert_eq!(names, [&b"root"[..], b"arm", b"hand"]);
    assert!(v6.hierarchy().iter().all(|h| h.parent_num == -1));
    assert_eq!((v6.num_frames(), v6.num_animated_components()), (2, 18));
    let (q, t) = v6.frame(0).unwrap()[1];
    assert!(t.abs_diff_eq(skelmap::glam::Vec3A::new(0.0, 0.0, 1.0), 0.0));
    let quarter = skelmap::glam::Quat::from_rotation_z(core::f32::consts::FRAC_PI_2);
    assert!(q.dot(quarter).abs() > 1.0 - 1e-7 && q.w <= 0.0);
}

/// Each part of a channel is checked where it stands.
#[test]
fn a_pre_release_channel_is_checked() {
    let text = channels();
    // Each edit of the text, and the field, line, column and problem it is refused with.
    let cases = [
        (
            ("attribute \"x\"", "attribute \"w\""),
            ("channel.attribute", 8, 12),
            Problem::Expected {
                expected: "x, y, z, pitch, yaw or roll",
            },
        ),
        // A second channel of one joint and attribute.
        (
            ("attribute \"z\"", "attribute \"x\""),
            ("channel.attribute", 35, 9),
            Problem::DuplicateName { bone: 2, first: 0 },
        ),
        (
            ("keys 2\n\t\t0 0\n", "keys 2\n\t\t0\n"),
            ("channel.keys", 46, 1),
            Problem::FewerThanDeclared {
                declared: 2,
                found: 1,
            },
        ),
        (
            ("keys 2\n\t\t0 0\n", "keys 2\n\t\t0 0 0\n"),
            ("channel.keys", 45, 7),
            Problem::MoreThanDeclared { declared: 2 },
        ),
        (
            ("range 0 1\n\tkeys 1", "range 0 1\n\tkeys 2"),
            ("channel.keys", 16, 7),
            Problem::Mismatch {
                value: 2,
                expected: 1,
            },
        ),
        (
            ("range 0 1", "range 1 1"),
            ("channel.range", 15, 10),
            Problem::BelowMinimum { value: 1, min: 2 },
        ),
        (
            ("strings 0", "strings 1"),
            ("channel.strings", 13, 10),
            Problem::Mismatch {
                value: 1,
                expected: 0,
            },
        ),
    ];
    for ((from, to), (field, line, column), problem) in cases {
        let e = anim_error(&with(&text, from, to));
        assert_eq!(located(&e), (field, line, column, problem), "{to}");
    }
    let e = anim_error(&with(&text, "numchannels 24", "numchannels 25"));
    assert_eq!(located(&e).0, "header.numchannels");
    let fewer = Problem::FewerThanDeclared {
        declared: 25,
        found: 24,
    };
    assert_eq!(located(&e).3, fewer);
    // Channels past the declared ones are left unread with a warning, as frames are.
    let mut diag = Diagnostics::new();
    let short = with(&text, "numchannels 24", "numchannels 23");
    Anim::parse_with(short.as_bytes(), &Limits::DEFAULT, &mut diag).unwrap();
    assert!(diag.get(WarningKind::TrailingBytes).is_some());
}

/// A joint without all six attributes is refused at its first channel; beside a mesh, an
/// animation whose joints are not the mesh's is left out with a warning.
#[test]
fn a_pre_release_animation_needs_every_joint_of_its_mesh() {
    let e = anim_error(&channels_without(|j, a| (j, a) == ("root", "pitch")));
    let six = Problem::Expected {
        expected: "a channel of each of x, y, z, pitch, yaw and roll for the joint",
    };
    assert_eq!(located(&e), ("channel.attribute", 7, 9, six));
    // The boxes alone.
    let boxes: String = channels()
        .split("channel ")
        .filter(|c| !c.contains("\"root\"") && !c.contains("\"arm\"") && !c.contains("\"hand\""))
        .collect::<Vec<_>>()
        .join("channel ")
        .replace("numchannels 24", "numchannels 6");
    let renumbered = (0..24).fold(boxes, |t, i| {
        t.replacen(
            &format!("channel {} {{", i + 18),
            &format!("channel {i} {{"),
            1,
        )
    });
    let e = anim_error(&renumbered);
    let joint = Problem::Expected {
        expected: "a channel of a joint other than boundsMin and boundsMax",
    };
    assert_eq!(located(&e), ("header.numchannels", 4, 1, joint));
    // `hand` renamed: the mesh's `hand` has no channel.
    let other = channels().replace("\"hand\"", "\"claw\"");
    assert!(Anim::parse(other.as_bytes()).is_ok());
    let pre = files(MESH, &other);
    let model = open_pair(&pre, "m/fixture.md5mesh").unwrap();
    assert_eq!(model.num_frames(), 1);
    let ignored = model
        .diagnostics()
        .get(WarningKind::CompanionIgnored)
        .unwrap();
    assert!(
        ignored.detail.contains("fixture-idle.md5anim") && ignored.detail.contains("joint 2"),
        "{}",
        ignored.detail
    );
}

/// Every prefix of the channels is refused with a typed error, and every byte replaced by
/// one that matters to the grammar parses or is refused, never panicking.
#[test]
fn every_prefix_and_every_byte_replaced_of_the_channels() {
    let text = channels();
    let bytes = text.as_bytes();
    let whole = text.trim_end().len();
    for end in 0..whole {
        let e = Anim::parse(&bytes[..end]).expect_err("a prefix is refused");
        assert!(
            matches!(e, Error::Text { .. } | Error::Unsupported { .. }),
            "prefix of {end} bytes: {e}"
        );
    }
    for at in 0..bytes.len() {
        for b in [b'"', b'{', b'}', b'-', b'9', b'\n', 0xff] {
            let mut mutated = bytes.to_vec();
            mutated[at] = b;
            if let Ok(model) = Model::from_bytes(&mutated) {
                skelmap_testkit::exercise::model(&model);
            }
        }
    }
}

/// The numbers a channel holds are checked: a negative frame rate or range start, a range
/// past `Limits::max_frames`, frames × joints past what an animation decodes; a frame rate
/// of 0 is read as 24 with a warning; a mesh joint that no channel names leaves the
/// animation out, named at `numchannels`.
#[test]
fn a_pre_release_channel_s_numbers_are_checked() {
    let text = channels();
    let e = anim_error(&with(&text, "framerate 24.000000", "framerate -24"));
    let negative = Problem::NotPositive { value: -24.0 };
    assert_eq!(located(&e), ("channel.framerate", 11, 12, negative));
    let e = anim_error(&with(&text, "range 0 1", "range -1 1"));
    assert_eq!(
        located(&e),
        ("channel.range", 15, 8, Problem::Negative { value: -1 })
    );
    let limits = Limits {
        max_frames: 1,
        ..Limits::DEFAULT
    };
    let e = Anim::parse_with(text.as_bytes(), &limits, &mut Diagnostics::new()).unwrap_err();
    assert!(
        matches!(
            e,
            Error::Limit {
                what: "channel.range",
                value: 2,
                max: 1,
                ..
            }
        ),
        "{e}"
    );
    // 4,194,301 frames of 3 joints: past the 4,194,304 poses an animation decodes.
    let far = with(&text, "range 0 2\n", "range 4194299 4194301\n");
    let limits = Limits {
        max_frames: u32::MAX,
        ..Limits::DEFAULT
    };
    let e = Anim::parse_with(far.as_bytes(), &limits, &mut Diagnostics::new()).unwrap_err();
    assert!(
        matches!(
            e,
            Error::Limit {
                what: "channel.range × joints",
                value: 12_582_903,
                max: 4_194_304,
                ..
            }
        ),
        "{e}"
    );
    let mut diag = Diagnostics::new();
    let zero = text.replacen("framerate 24.000000", "framerate 0", 1);
    let anim = Anim::parse_with(zero.as_bytes(), &Limits::DEFAULT, &mut diag).unwrap();
    assert_eq!(anim.frame_rate(), 24.0);
    let warning = diag.get(WarningKind::FrameRate).unwrap();
    assert_eq!(warning.what, "channel.framerate");
    // No channel of `hand`: the mesh's joint 2 has none.
    let without = channels_without(|j, _| j == "hand");
    let pre = files(MESH, &without);
    let model = open_pair(&pre, "m/fixture.md5mesh").unwrap();
    assert_eq!(model.num_frames(), 1);
    let ignored = model
        .diagnostics()
        .get(WarningKind::CompanionIgnored)
        .unwrap();
    assert!(
        ignored.detail.contains("channel.joint at line 4, column 1")
            && ignored.detail.contains("joint 2 differs"),
        "{}",
        ignored.detail
    );
}
