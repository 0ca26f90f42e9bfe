//! MS3D: the corpus against MANIFEST.md and the assimp oracle, one test per validation rule of
//! `docs/formats/ms3d.md` (fixtures from `ms3d::Builder`), the optional tail, weights and animation.

use skelmap::Parse;
use skelmap::ms3d::write::triangle;
use skelmap::ms3d::{self, CommentKind, Ms3d};
use skelmap::pose::{Interpolation, LocalPose};
use skelmap::{Diagnostics, Error, Format, Limits, Problem, Skeleton, WarningKind};

use crate::support::{corpus_dir, manifest};

/// A two-joint arm: `root` at the origin, `tip` 10 up Y; four vertices (two per joint), two
/// triangles in one group with one material; `tip` has rotation keys 0 → 90° about Z at 0 s, 1 s.
pub fn arm() -> ms3d::Builder {
    let quarter = core::f32::consts::FRAC_PI_2;
    ms3d::Builder {
        vertices: vec![
            ([1.0, 0.0, 0.0], 0),
            ([-1.0, 0.0, 0.0], 0),
            ([0.0, 20.0, 0.0], 1),
            ([1.0, 20.0, 0.0], 1),
        ],
        triangles: vec![
            triangle(
                [0, 1, 2],
                [0.0, 0.0, 1.0],
                [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]],
                0,
            ),
            triangle(
                [1, 3, 2],
                [0.0, 0.0, 1.0],
                [[1.0, 0.0], [1.0, 1.0], [0.0, 1.0]],
                0,
            ),
        ],
        groups: vec![ms3d::GroupDef {
            name: b"arm".to_vec(),
            triangles: vec![0, 1],
            material: 0,
        }],
        materials: vec![(b"skin".to_vec(), [1.0, 0.5, 0.25, 1.0])],
        keyframer: (24.0, 0.0, 25),
        joints: vec![
            ms3d::JointDef {
                name: b"root".to_vec(),
                ..ms3d::JointDef::default()
            },
            ms3d::JointDef {
                name: b"tip".to_vec(),
                parent: b"root".to_vec(),
                position: [0.0, 10.0, 0.0],
                rotation_keys: vec![(0.0, [0.0; 3]), (1.0, [0.0, 0.0, quarter])],
                ..ms3d::JointDef::default()
            },
        ],
        tail: ms3d::Tail::default(),
        version: 4,
    }
}

/// The arm with every tail section: comments, sub-version 3 weights, joint colours, settings.
pub fn arm_with_tail() -> ms3d::Builder {
    let mut b = arm();
    b.tail = ms3d::Tail {
        comments: Some((
            [vec![(0, b"arm".to_vec())], vec![], vec![]],
            Some(b"demo".to_vec()),
        )),
        vertex_extra: Some((3, vec![([1, -1, -1], [60, 40, 0]); 4])),
        joint_colors: Some(vec![[1.0, 1.0, 0.0]; 2]),
        model_extra: Some((1.0, 0, 0.5)),
    };
    b
}

fn err(b: &ms3d::Builder) -> Error {
    let bytes = b.write().unwrap();
    let e = Ms3d::parse(&bytes)
        .map(|_| ())
        .expect_err("broken MS3D accepted");
    assert_eq!(e.format(), Some(Format::Ms3d), "{e}");
    e
}

fn warnings(b: &ms3d::Builder) -> Diagnostics {
    let mut diag = Diagnostics::new();
    Ms3d::parse_with(&b.write().unwrap(), &Limits::default(), &mut diag)
        .expect("a warning must not reject the file");
    diag
}

// Offsets in the arm fixture: header 14, vertex count at 14, vertices at 16 (15 B each),
// triangle count at 76, triangles at 78 (70 B each), group count at 218, group 0 at 220.
const VERTICES: u64 = 16;
const TRIANGLES: u64 = 78;
const GROUP0: u64 = 220;

#[test]
fn arm_fixture_is_clean() {
    let bytes = arm().write().unwrap();
    assert_eq!(Format::sniff(&bytes), Some(Format::Ms3d));
    let mut diag = Diagnostics::new();
    let m = Ms3d::parse_with(&bytes, &Limits::default(), &mut diag).unwrap();
    assert!(diag.is_empty(), "{:?}", diag.warnings());
    assert_eq!(
        (
            m.vertices().len(),
            m.triangles().len(),
            m.groups().len(),
            m.materials().len(),
            m.joints().len()
        ),
        (4, 2, 1, 1, 2)
    );
    assert_eq!(m.joints()[1].parent(), Some(0));
    assert_eq!(m.bone_index(b"tip"), Some(1));
    assert_eq!(m.groups()[0].triangle_indices().collect::<Vec<_>>(), [0, 1]);
    assert_eq!(m.groups()[0].material(), Some(0));
    assert_eq!((m.animation_fps(), m.total_frames()), (24.0, 25));
    assert!(!m.has_comments() && m.vertex_extra().is_none());
}

// ---- rules 1-2: header and bounds ----

#[test]
fn rule1_version_other_than_3_or_4_is_unsupported() {
    let e = err(&ms3d::Builder {
        version: 5,
        ..arm()
    });
    assert!(
        matches!(
            e,
            Error::Unsupported {
                what: "header.version",
                offset: 10,
                ..
            }
        ),
        "{e}"
    );
    assert!(
        Ms3d::parse(
            &ms3d::Builder {
                version: 3,
                ..arm()
            }
            .write()
            .unwrap()
        )
        .is_ok()
    );
}

#[test]
fn rule1_magic_and_short_header() {
    let mut bytes = arm().write().unwrap();
    assert!(matches!(
        Ms3d::parse(&bytes[..13]),
        Err(Error::Truncated {
            what: "header",
            need: 14,
            have: 13,
            ..
        })
    ));
    bytes[9] = b'1';
    assert!(matches!(
        Ms3d::parse(&bytes),
        Err(Error::BadMagic {
            format: Format::Ms3d,
            ..
        })
    ));
}

#[test]
fn rule2_every_section_in_bounds() {
    let bytes = arm().write().unwrap();
    let e = Ms3d::parse(&bytes[..TRIANGLES as usize + 69])
        .map(|_| ())
        .unwrap_err();
    assert!(
        matches!(
            e,
            Error::Truncated {
                what: "triangles",
                offset: TRIANGLES,
                need: 140,
                have: 69,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn rule2_counts_within_limits() {
    let bytes = arm().write().unwrap();
    let limits = Limits {
        max_bones: 1,
        ..Limits::default()
    };
    let e = Ms3d::parse_with(&bytes, &limits, &mut Diagnostics::new())
        .map(|_| ())
        .unwrap_err();
    assert!(
        matches!(
            e,
            Error::Limit {
                what: "nNumJoints",
                value: 2,
                max: 1,
                ..
            }
        ),
        "{e}"
    );
}

// ---- rules 3-6: references ----

#[test]
fn rule4_triangle_vertex_index_in_range() {
    let mut b = arm();
    b.triangles[1].vertex_indices[2].set(4);
    let e = err(&b);
    assert!(
        matches!(e, Error::Invalid { what: "triangle.vertexIndices", offset, .. } if offset == TRIANGLES + 70 + 2 + 4),
        "{e}"
    );
}

#[test]
fn rule5_group_triangle_index_in_range() {
    let mut b = arm();
    b.groups[0].triangles[1] = 2;
    let e = err(&b);
    assert!(
        matches!(e, Error::Invalid { what: "group.triangleIndices", offset, .. } if offset == GROUP0 + 35 + 2),
        "{e}"
    );
}

#[test]
fn rule5_group_material_in_range() {
    let mut b = arm();
    b.groups[0].material = 1;
    let e = err(&b);
    assert!(
        matches!(e, Error::Invalid { what: "group.materialIndex", offset, .. } if offset == GROUP0 + 35 + 4),
        "{e}"
    );
    b.groups[0].material = -1;
    assert!(
        Ms3d::parse(&b.write().unwrap()).is_ok(),
        "-1 means no material"
    );
}

#[test]
fn rule6_vertex_joint_in_range() {
    for bad in [2i8, -2] {
        let mut b = arm();
        b.vertices[3].1 = bad;
        let e = err(&b);
        assert!(
            matches!(e, Error::Invalid { what: "vertex.boneId", offset, .. } if offset == VERTICES + 3 * 15 + 13),
            "{bad}: {e}"
        );
    }
}

#[test]
fn rule6_extra_joints_in_range() {
    let mut b = arm();
    b.tail.vertex_extra = Some((
        3,
        vec![([-1, -1, -1], [100, 0, 0]), ([1, 5, -1], [50, 50, 0])],
    ));
    let e = err(&b);
    assert!(
        matches!(
            e,
            Error::Invalid {
                what: "vertexExtra.boneIds",
                ..
            }
        ),
        "{e}"
    );
}

// ---- rule 7: joints ----

#[test]
fn rule7_joint_names_unique() {
    let mut b = arm();
    b.joints[1].name = b"root".to_vec();
    b.joints[1].parent = Vec::new();
    assert_duplicate_name(&b, 1, 0);
}

/// Asserts that the file `b` writes is refused for joint `bone`'s name, a repeat of `first`'s.
fn assert_duplicate_name(b: &ms3d::Builder, bone: u64, first: u64) {
    let e = err(b);
    assert!(
        matches!(
            &e,
            Error::Invalid {
                what: "joint.name",
                problem: Problem::DuplicateName { bone: b, first: f },
                ..
            } if (*b, *f) == (bone, first)
        ),
        "{e}"
    );
}

#[test]
fn rule7_the_first_repeat_in_file_order_is_reported() {
    // Joints b, a, b, a: joint 2 repeats joint 0 and joint 3 repeats joint 1. The report
    // names joint 2, the earliest repeat, whatever order the names sort in.
    let mut b = arm();
    b.joints = [b"b", b"a", b"b", b"a"]
        .iter()
        .map(|n| ms3d::JointDef {
            name: n.to_vec(),
            ..ms3d::JointDef::default()
        })
        .collect();
    assert_duplicate_name(&b, 2, 0);
}

#[test]
fn rule7_names_end_at_their_first_nul() {
    // Bytes after a name's NUL are not part of it: the parent "root\0xyz" is "root", and
    // "tip\0aa" repeats "tip\0bb".
    let mut b = arm();
    b.joints[0].name = b"root\0abc".to_vec();
    b.joints[1].parent = b"root\0xyz".to_vec();
    let bytes = b.write().unwrap();
    let m = Ms3d::parse(&bytes).unwrap();
    assert_eq!(m.joints()[1].parent(), Some(0));
    assert_eq!(m.bone_index(b"root"), Some(0));
    b.joints[0].name = b"tip\0aa".to_vec();
    b.joints[0].parent = Vec::new();
    b.joints[1].name = b"tip\0bb".to_vec();
    b.joints[1].parent = Vec::new();
    assert_duplicate_name(&b, 1, 0);
}

#[test]
fn rule7_parent_must_exist() {
    let mut b = arm();
    b.joints[1].parent = b"nobody".to_vec();
    assert!(matches!(
        err(&b),
        Error::Invalid {
            what: "joint.parentName",
            problem: Problem::UnknownParent { bone: 1 },
            ..
        }
    ));
}

#[test]
fn rule7_no_self_parent_and_no_cycle() {
    let mut b = arm();
    b.joints[1].parent = b"tip".to_vec();
    assert!(matches!(
        &err(&b),
        Error::Invalid {
            what: "joint.parentName",
            problem: Problem::OwnParent { bone: 1 },
            ..
        }
    ));
    let mut b = arm();
    b.joints[0].parent = b"tip".to_vec(); // root → tip → root
    assert!(matches!(
        &err(&b),
        Error::Invalid {
            what: "joint.parentName",
            problem: Problem::ParentCycle { .. },
            ..
        }
    ));
}

#[test]
fn rule7_parents_may_come_after_children() {
    let mut b = arm();
    b.joints.swap(0, 1); // tip (parent root) now precedes root
    for v in &mut b.vertices {
        v.1 = 1 - v.1;
    }
    let bytes = b.write().unwrap();
    let m = Ms3d::parse(&bytes).unwrap();
    assert_eq!(m.joints()[0].parent(), Some(1));
    assert_eq!(m.evaluation_order(), [1, 0]);
}

#[test]
fn rule7_parents_before_children_keep_the_file_order() {
    // root, a (of root), a1 (of a), b (of root): parents come first, so the file order is
    // the evaluation order (sorting by depth would put b before a1). The same joints with
    // a1 first are sorted by depth instead.
    let joint = |name: &[u8], parent: &[u8]| ms3d::JointDef {
        name: name.to_vec(),
        parent: parent.to_vec(),
        ..ms3d::JointDef::default()
    };
    let mut b = arm();
    b.joints = vec![
        joint(b"root", b""),
        joint(b"a", b"root"),
        joint(b"a1", b"a"),
        joint(b"b", b"root"),
    ];
    let bytes = b.write().unwrap();
    let m = Ms3d::parse(&bytes).unwrap();
    let parents: Vec<_> = m.joints().iter().map(|j| j.parent()).collect();
    assert_eq!(parents, [None, Some(0), Some(1), Some(0)]);
    assert_eq!(m.evaluation_order(), [0, 1, 2, 3]);
    b.joints.swap(0, 2); // a1, a, root, b
    let bytes = b.write().unwrap();
    let m = Ms3d::parse(&bytes).unwrap();
    assert_eq!(m.evaluation_order(), [2, 1, 3, 0]);
}

#[test]
fn rule7_a_parent_name_that_starts_with_nul_names_no_parent() {
    // The name ends at its first NUL: "\0root" is the empty name, which makes a root.
    let mut b = arm();
    b.joints[1].parent = b"\0root".to_vec();
    let bytes = b.write().unwrap();
    let m = Ms3d::parse(&bytes).unwrap();
    assert_eq!(m.joints()[1].parent(), None);
    assert_eq!(m.evaluation_order(), [0, 1]);
}

// ---- rule 8: the optional tail ----

#[test]
fn rule8_tail_variants_round_trip() {
    let mut b = arm();
    b.tail = ms3d::Tail {
        comments: Some((
            [
                vec![(0, b"group note".to_vec())],
                vec![],
                vec![(1, b"tip".to_vec())],
            ],
            Some(b"model".to_vec()),
        )),
        vertex_extra: Some((1, vec![([1, -1, -1], [128, 127, 0]); 4])),
        joint_colors: Some(vec![[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]),
        model_extra: Some((2.0, 1, 0.25)),
    };
    let bytes = b.write().unwrap();
    let m = Ms3d::parse(&bytes).unwrap();
    let comments: Vec<_> = m
        .comments()
        .map(|c| (c.kind, c.index, c.text.to_vec()))
        .collect();
    assert_eq!(
        comments,
        [
            (CommentKind::Group, 0, b"group note".to_vec()),
            (CommentKind::Joint, 1, b"tip".to_vec()),
            (CommentKind::Model, 0, b"model".to_vec()),
        ]
    );
    assert_eq!(m.vertex_extra().map(|v| v.sub_version()), Some(1));
    assert_eq!(m.joint_extra().map(<[_]>::len), Some(2));
    assert_eq!(m.model_extra().map(|x| x.transparency_mode.get()), Some(1));
    // Sub-version 1: 0..=255. Vertex 0 (joint 0): 128/255 to joint 0, 127/255 to joint 1.
    let w = m.vertex_weights(0).unwrap();
    assert_eq!(w[0].map(|(j, _)| j), Some(0));
    assert!((w[0].unwrap().1 - 128.0 / 255.0).abs() < 1e-6);
    assert!((w[1].unwrap().1 - 127.0 / 255.0).abs() < 1e-6);
    assert_eq!(w[2], None);
}

#[test]
fn weights_remainder_goes_to_the_third_extra_joint_and_zero_weights_fall_back() {
    let mut b = arm();
    // Vertex 0: 40% own (joint 0), 30% joint 1, remainder 30% to boneIds[2] = joint 1 again.
    // Vertex 1: extra joints but all weights zero: the own joint takes everything.
    b.tail.vertex_extra = Some((3, vec![([1, -1, 1], [40, 30, 0]), ([1, -1, -1], [0, 0, 0])]));
    let bytes = b.write().unwrap();
    let m = Ms3d::parse(&bytes).unwrap();
    let w0 = m.vertex_weights(0).unwrap();
    let got: Vec<(u16, f32)> = w0
        .iter()
        .flatten()
        .map(|&(j, w)| (j, (w * 100.0).round()))
        .collect();
    assert_eq!(got, [(0, 40.0), (1, 30.0), (1, 30.0)]);
    assert_eq!(
        m.vertex_weights(1).unwrap(),
        [Some((0, 1.0)), None, None, None]
    );
}

#[test]
fn rule8_weights_within_the_sub_version_scale() {
    let mut b = arm();
    b.tail.vertex_extra = Some((2, vec![([1, -1, -1], [60, 50, 0]); 4])); // 110 > 100
    let e = err(&b);
    assert!(
        matches!(
            e,
            Error::Invalid {
                what: "vertexExtra.weights",
                ..
            }
        ),
        "{e}"
    );
    b.tail.vertex_extra = Some((1, vec![([1, -1, -1], [60, 50, 0]); 4])); // fine on 0..=255
    assert!(Ms3d::parse(&b.write().unwrap()).is_ok());
}

#[test]
fn rule8_negative_comment_count_and_overlong_comment() {
    let mut b = arm();
    b.tail.comments = Some(([vec![(0, b"x".to_vec())], vec![], vec![]], None));
    let mut bytes = b.write().unwrap();
    let tail = bytes.len() - (4 + 4 + 4 + 4 + 1 + 4 + 4 + 4);
    let count_at = tail + 4;
    bytes[count_at..count_at + 4].copy_from_slice(&(-1i32).to_le_bytes());
    assert!(matches!(
        Ms3d::parse(&bytes),
        Err(Error::Invalid {
            what: "nNumGroupComments",
            ..
        })
    ));
    bytes[count_at..count_at + 4].copy_from_slice(&1i32.to_le_bytes());
    let len_at = count_at + 8;
    bytes[len_at..len_at + 4].copy_from_slice(&1000i32.to_le_bytes());
    assert!(matches!(
        Ms3d::parse(&bytes),
        Err(Error::Truncated {
            what: "comment.text",
            need: 1000,
            ..
        })
    ));
}

#[test]
fn rule8_unknown_sub_version_ends_the_tail_with_a_warning() {
    let mut b = arm();
    b.tail.vertex_extra = Some((7, vec![]));
    let diag = warnings(&b);
    assert_eq!(
        diag.count(WarningKind::UnknownSubVersion),
        1,
        "{:?}",
        diag.warnings()
    );
}

#[test]
fn rule8_bytes_after_the_tail_are_trailing() {
    let mut b = arm();
    b.tail.model_extra = Some((1.0, 0, 0.5));
    let mut bytes = b.write().unwrap();
    bytes.extend_from_slice(&[0; 3]);
    let mut diag = Diagnostics::new();
    Ms3d::parse_with(&bytes, &Limits::default(), &mut diag).unwrap();
    assert_eq!(
        diag.get(WarningKind::TrailingBytes)
            .map(|w| w.detail.as_str()),
        Some("3 bytes after the last structure")
    );
}

// ---- rule 9 and warnings ----

#[test]
fn rule9_non_finite_floats() {
    let mut b = arm();
    b.vertices[2].0[1] = f32::NAN;
    assert!(
        matches!(err(&b), Error::Invalid { what: "vertex.vertex", offset, .. } if offset == VERTICES + 2 * 15 + 1)
    );
    let mut b = arm();
    b.joints[1].rotation_keys[1].1[2] = f32::INFINITY;
    assert!(matches!(
        err(&b),
        Error::Invalid {
            what: "joint.keyFramesRot",
            ..
        }
    ));
}

/// The offset in `bytes` of the only occurrence of `value`'s bytes.
fn offset_of_value(bytes: &[u8], value: f32) -> u64 {
    let needle = value.to_le_bytes();
    let mut hits = bytes.windows(4).enumerate().filter(|(_, w)| *w == needle);
    let (at, _) = hits.next().expect("value written");
    assert!(hits.next().is_none(), "value written once");
    at as u64
}

/// Joint errors come in file order: a non-finite key of joint 0 before a non-finite rest
/// transform of joint 1 or a truncation in it, and a non-finite rest transform of joint 0
/// before a non-finite key of joint 1. Each at its own offset; the joints carry enough keys
/// that their tables are scanned where the CPU can.
#[test]
fn joint_key_errors_come_in_file_order() {
    let nan = f32::from_bits(0x7FC0_1234);
    let keyed = || {
        let mut b = arm();
        for joint in &mut b.joints {
            joint.rotation_keys = (0..40).map(|k| (k as f32, [0.0, 0.1, 0.2])).collect();
            joint.position_keys = (0..40).map(|k| (k as f32, [1.0, 0.0, 0.0])).collect();
        }
        b
    };
    assert!(Ms3d::parse(&keyed().write().unwrap()).is_ok());
    for (track, what) in [(0, "joint.keyFramesRot"), (1, "joint.keyFramesTrans")] {
        for key in [0, 17, 39] {
            let mut b = keyed();
            let keys = if track == 0 {
                &mut b.joints[0].rotation_keys
            } else {
                &mut b.joints[0].position_keys
            };
            keys[key].1[2] = nan;
            // Joint 1's rest rotation is not finite either.
            b.joints[1].rotation[0] = f32::INFINITY;
            let bytes = b.write().unwrap();
            // The key's record starts 12 bytes (time, x, y) before its z.
            let at = offset_of_value(&bytes, nan) - 12;
            let e = Ms3d::parse(&bytes).map(|_| ()).unwrap_err();
            assert!(
                matches!(e, Error::Invalid { what: w, offset, problem: Problem::NotFinite, .. } if w == what && offset == at),
                "{e}"
            );
            // Cut inside joint 1's keys: the key of joint 0 still comes first.
            let joint1 = offset_of_value(&bytes, f32::INFINITY) as usize;
            let e = Ms3d::parse(&bytes[..joint1 + 200]).map(|_| ()).unwrap_err();
            assert!(
                matches!(e, Error::Invalid { what: w, offset, .. } if w == what && offset == at),
                "{e}"
            );
        }
    }
    let mut b = keyed();
    let marker = f32::from_bits(0x7F80_0000 | 0x4321);
    b.joints[0].position[0] = marker;
    b.joints[1].rotation_keys[5].1[0] = nan;
    let bytes = b.write().unwrap();
    let at = offset_of_value(&bytes, marker);
    let e = Ms3d::parse(&bytes).map(|_| ()).unwrap_err();
    assert!(
        matches!(e, Error::Invalid { what: "joint.position", offset, .. } if offset == at),
        "{e}"
    );
}

#[test]
fn warnings_no_groups_key_order_triangle_group_smoothing() {
    let mut b = arm();
    b.groups.clear();
    let diag = warnings(&b);
    assert_eq!(
        (
            diag.count(WarningKind::NoGroups),
            diag.count(WarningKind::TriangleGroup)
        ),
        (1, 2)
    );
    let mut b = arm();
    b.joints[1].rotation_keys.swap(0, 1);
    assert_eq!(warnings(&b).count(WarningKind::KeyOrder), 1);
    let mut b = arm();
    b.triangles[0].smoothing_group = 33;
    assert_eq!(warnings(&b).count(WarningKind::SpecLimit), 1);
}

// ---- animation ----

/// An MS3D's vertices skinned at `seconds` (at rest with `None`): the keyed pose against the
/// rest pose, by the bind-pose linear blend.
pub fn skinned(m: &Ms3d<'_>, seconds: Option<f32>) -> Vec<[f32; 3]> {
    use skelmap::pose::{LocalPose, Palette};
    let (mut local, mut rest, mut now) =
        (LocalPose::default(), Palette::default(), Palette::default());
    m.local_rest_pose(&mut local);
    rest.build(m, &local);
    if let Some(seconds) = seconds {
        m.local_pose_at(seconds, Interpolation::Slerp, &mut local);
    }
    now.build(m, &local);
    let mut deltas = Vec::new();
    now.relative_to(&rest, &mut deltas);
    let mut out = vec![[0.0; 3]; m.vertices().len()];
    skelmap::skin::skin_bind_positions(m, &deltas, &mut out).unwrap();
    out
}

#[test]
fn rest_pose_skins_to_the_stored_positions_and_keys_bend_the_tip() {
    let bytes = arm().write().unwrap();
    let m = Ms3d::parse(&bytes).unwrap();
    let rest = skinned(&m, None);
    assert_eq!(rest[2], [0.0, 20.0, 0.0]);
    // At 1 s the tip joint (at y = 10) has turned 90° about Z: (0, 20) → (−10, 10).
    let bent = skinned(&m, Some(1.0));
    assert!(
        (bent[2][0] + 10.0).abs() < 1e-5 && (bent[2][1] - 10.0).abs() < 1e-5,
        "{:?}",
        bent[2]
    );
    assert_eq!(bent[0], [1.0, 0.0, 0.0], "root vertices stay");
    // Halfway: 45°, and past the last key the pose is clamped.
    let half = skinned(&m, Some(0.5));
    let s = core::f32::consts::FRAC_1_SQRT_2 * 10.0;
    assert!(
        (half[2][0] + s).abs() < 1e-4 && (half[2][1] - 10.0 - s).abs() < 1e-4,
        "{:?}",
        half[2]
    );
    assert_eq!(skinned(&m, Some(5.0)), bent);
}

#[test]
fn corpus_rest_pose_reproduces_stored_positions() {
    let Some(dir) = corpus_dir("ms3d") else {
        return;
    };
    for name in [
        "ms3drender_NeHe_Model.ms3d",
        "milkshape3dengine_dwarf1.ms3d",
        "ms3drender_tortoise.ms3d",
    ] {
        let bytes = std::fs::read(dir.join(name)).unwrap();
        let m = Ms3d::parse(&bytes).unwrap();
        let at_rest = skinned(&m, None);
        for (i, p) in at_rest.iter().enumerate() {
            let want = m.position(i).unwrap();
            let err = (0..3).map(|k| (p[k] - want[k]).abs()).fold(0.0, f32::max);
            assert!(
                err < 1e-3 * want.iter().map(|v| v.abs()).fold(1.0, f32::max),
                "{name} vertex {i}: {p:?} vs {want:?}"
            );
        }
        let moved = skinned(&m, Some(0.5));
        assert!(moved.iter().all(|p| p.iter().all(|v| v.is_finite())));
    }
}

// ---- corpus ----

#[test]
fn every_corpus_ms3d_matches_the_manifest_and_the_oracle() {
    let Some(dir) = corpus_dir("ms3d") else {
        return;
    };
    let rows = manifest("ms3d");
    assert_eq!(rows.len(), 5);
    for row in &rows {
        let bytes = std::fs::read(dir.join(&row.file)).unwrap();
        let mut diag = Diagnostics::new();
        let m = Ms3d::parse_with(&bytes, &Limits::default(), &mut diag)
            .unwrap_or_else(|e| panic!("{}: {e}", row.file));
        assert!(diag.is_empty(), "{}: {:?}", row.file, diag.warnings());
        let name = &row.file;
        assert_eq!(
            row.summary.split(';').next().map(str::trim),
            Some(format!("v{}", m.version()).as_str())
        );
        assert_eq!(m.vertices().len() as u64, row.count("verts"), "{name}");
        assert_eq!(m.triangles().len() as u64, row.count("tris"), "{name}");
        assert_eq!(m.groups().len() as u64, row.count("groups"), "{name}");
        assert_eq!(m.materials().len() as u64, row.count("materials"), "{name}");
        assert_eq!(m.joints().len() as u64, row.count("joints"), "{name}");
        let keys: usize = m
            .joints()
            .iter()
            .map(|j| j.rotation_keys().len() + j.position_keys().len())
            .sum();
        assert_eq!(keys as u64, row.count("keyframes"), "{name}");
        assert_eq!(m.total_frames() as u64, row.count("total_frames"), "{name}");
        assert_eq!(m.animation_fps() as u64, row.count("fps"), "{name}");
        // Tail variants as the MANIFEST lists them.
        let ext = row.field("1.8 ext:").unwrap_or("");
        assert_eq!(m.has_comments(), ext.contains("comments sub 1"), "{name}");
        let vsub = m.vertex_extra().map(|v| v.sub_version());
        assert_eq!(
            vsub.map(|s| format!("vertex-extra sub {s}"))
                .is_some_and(|s| ext.contains(&s)),
            vsub.is_some(),
            "{name}"
        );
        assert_eq!(
            m.joint_extra().is_some(),
            ext.contains("joint-extra sub 1"),
            "{name}"
        );
        assert_eq!(
            m.model_extra().is_some(),
            ext.contains("model-extra sub 1"),
            "{name}"
        );

        // The assimp oracle's OBJ lists the distinct stored positions (no axis change for MS3D).
        let obj = std::fs::read(dir.join("../oracle").join(format!("{}.obj", row.file))).unwrap();
        let round = |v: [f32; 3]| v.map(|c| (c * 1000.0).round() as i64);
        let mut oracle: Vec<[i64; 3]> = obj
            .split(|&b| b == b'\n')
            .filter(|l| l.starts_with(b"v "))
            .map(|l| {
                let text = String::from_utf8_lossy(l);
                let v: Vec<f32> = text
                    .split_whitespace()
                    .skip(1)
                    .map(|x| x.parse().unwrap())
                    .collect();
                round([v[0], v[1], v[2]])
            })
            .collect();
        let mut ours: Vec<[i64; 3]> = (0..m.vertices().len())
            .map(|i| round(m.position(i).unwrap()))
            .collect();
        oracle.sort_unstable();
        oracle.dedup();
        ours.sort_unstable();
        ours.dedup();
        assert_eq!(
            ours, oracle,
            "{name}: distinct positions differ from the oracle"
        );
    }
}

#[test]
fn non_utf8_group_names_are_kept_as_bytes() {
    let Some(dir) = corpus_dir("ms3d") else {
        return;
    };
    let bytes = std::fs::read(dir.join("ms3drender_tortoise.ms3d")).unwrap();
    let m = Ms3d::parse(&bytes).unwrap();
    let odd = m
        .groups()
        .iter()
        .filter(|g| std::str::from_utf8(g.name()).is_err())
        .count();
    assert!(odd > 0, "tortoise has GBK-encoded group names");
    assert!(m.groups().iter().all(|g| !g.name_lossy().is_empty()));
}

#[test]
fn truncation_never_panics_and_cuts_before_the_tail_fail() {
    let mut b = arm();
    b.tail.model_extra = Some((1.0, 0, 0.5));
    let full = b.write().unwrap();
    let tail_start = arm().write().unwrap().len();
    for cut in 0..full.len() {
        let result = Ms3d::parse(&full[..cut]);
        if cut < tail_start {
            assert!(
                result.is_err(),
                "cut at {cut} inside the mandatory part accepted"
            );
        }
    }
    if let Some(dir) = corpus_dir("ms3d") {
        let bytes = std::fs::read(dir.join("ms3drender_NeHe_Model.ms3d")).unwrap();
        for cut in 0..bytes.len() {
            assert!(
                Ms3d::parse(&bytes[..cut]).is_err(),
                "NeHe cut at {cut} accepted"
            );
        }
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 1024, ..Default::default() })]

    #[test]
    fn mutated_ms3d_never_panics(edits in proptest::collection::vec((0usize..4096, proptest::prelude::any::<u8>()), 1..8)) {
        let mut bytes = arm_with_tail().write().unwrap();
        let len = bytes.len();
        for (at, v) in edits {
            bytes[at % len] = v;
        }
        if let Ok(m) = Ms3d::parse(&bytes) {
            crate::exercise::ms3d(&m);
        }
    }
}

#[test]
fn truncated_corpus_ms3d_never_panics() {
    let files = crate::support::corpus_files("ms3d");
    for path in &files {
        let bytes = std::fs::read(path).unwrap();
        let stride = (bytes.len() / 512).max(1);
        for cut in (0..bytes.len().min(4096)).chain((4096..bytes.len()).step_by(stride)) {
            if let Ok(m) = Ms3d::parse(&bytes[..cut]) {
                // Only a cut at the end of the mandatory part or of a tail section can validate.
                crate::exercise::ms3d(&m);
            }
        }
    }
}

/// Poses sampled at `times` with one reused `LocalPose` (which resumes where the previous
/// sample stood) equal those sampled with a fresh one each time (which searches from scratch).
fn resumed_equals_fresh(m: &Ms3d<'_>, times: &[f32], interpolation: Interpolation) {
    let mut reused = LocalPose::default();
    for &t in times {
        m.local_pose_at(t, interpolation, &mut reused);
        let mut fresh = LocalPose::default();
        m.local_pose_at(t, interpolation, &mut fresh);
        assert_eq!(reused.bones, fresh.bones, "t = {t}");
    }
}

#[test]
fn sampling_resumes_forward_backward_and_across_models() {
    // Several keys per track, sampled forward, backward, jumping and outside the keys.
    let mut b = arm();
    let quarter = core::f32::consts::FRAC_PI_2;
    b.joints[1].rotation_keys = (0..8)
        .map(|k| {
            (
                k as f32 * 0.25,
                [0.1 * k as f32, 0.0, quarter * (k % 3) as f32],
            )
        })
        .collect();
    b.joints[1].position_keys = (0..5)
        .map(|k| (k as f32 * 0.4, [k as f32, 0.0, 0.0]))
        .collect();
    let bytes = b.write().unwrap();
    let m = Ms3d::parse(&bytes).unwrap();
    let forward: Vec<f32> = (-4..80).map(|i| i as f32 * 0.03).collect();
    let backward: Vec<f32> = forward.iter().rev().copied().collect();
    let jumps = [1.7, 0.1, 0.1, 1.2, -1.0, 9.0, 0.26, 0.25, 0.24, 1.75];
    for interpolation in [Interpolation::Slerp, Interpolation::Nlerp] {
        resumed_equals_fresh(&m, &forward, interpolation);
        resumed_equals_fresh(&m, &backward, interpolation);
        resumed_equals_fresh(&m, &jumps, interpolation);
    }

    // One pose reused across two models with the same key times and other values: the
    // remembered rotations belong to the first model and must not leak into the second.
    let mut other = b.clone();
    for (_, angles) in &mut other.joints[1].rotation_keys {
        angles[1] = 0.5;
    }
    other.joints[1].rotation = [0.0, 0.3, 0.0];
    let other_bytes = other.write().unwrap();
    let n = Ms3d::parse(&other_bytes).unwrap();
    // And a third with the first's keys and rest rotation but another rest position: keys are
    // remembered composed with the rest transform, so they must be forgotten here too.
    let mut moved = b.clone();
    moved.joints[1].position[2] += 0.25;
    let moved_bytes = moved.write().unwrap();
    let o = Ms3d::parse(&moved_bytes).unwrap();
    let mut shared = LocalPose::default();
    for &t in &forward {
        for (before, after) in [(&m, &n), (&m, &o)] {
            before.local_pose_at(t, Interpolation::Slerp, &mut shared);
            after.local_pose_at(t, Interpolation::Slerp, &mut shared);
            let mut fresh = LocalPose::default();
            after.local_pose_at(t, Interpolation::Slerp, &mut fresh);
            assert_eq!(shared.bones, fresh.bones, "t = {t}");
        }
    }
}

#[test]
fn out_of_order_keys_sample_the_same_whatever_came_before() {
    // Keys out of time order (a warning, not an error): a sample must not depend on the
    // samples before it.
    let mut b = arm();
    b.joints[1].rotation_keys = vec![
        (0.0, [0.0; 3]),
        (1.0, [0.0, 0.0, 1.0]),
        (0.5, [0.0, 1.0, 0.0]),
        (2.0, [1.0, 0.0, 0.0]),
    ];
    let bytes = b.write().unwrap();
    let m = Ms3d::parse(&bytes).unwrap();
    let times: Vec<f32> = (0..50).map(|i| i as f32 * 0.05).collect();
    let shuffled: Vec<f32> = (0..50).map(|i| ((i * 17) % 50) as f32 * 0.05).collect();
    resumed_equals_fresh(&m, &times, Interpolation::Slerp);
    resumed_equals_fresh(&m, &shuffled, Interpolation::Slerp);
}

#[test]
fn corpus_sampling_resumes_to_the_same_poses() {
    for path in crate::support::corpus_files("ms3d") {
        let bytes = std::fs::read(&path).unwrap();
        let m = Ms3d::parse(&bytes).unwrap();
        let fps = m.fps();
        let forward: Vec<f32> = (0..m.num_frames() * 2)
            .map(|f| (f as f32 * 0.5 + 1.0) / fps)
            .collect();
        let shuffled: Vec<f32> = (0..forward.len())
            .map(|i| forward[(i * 7919) % forward.len()])
            .collect();
        for interpolation in [Interpolation::Slerp, Interpolation::Nlerp] {
            resumed_equals_fresh(&m, &forward, interpolation);
            resumed_equals_fresh(&m, &shuffled, interpolation);
        }
        eprintln!("{}: {} samples", path.display(), 4 * forward.len());
    }
}

/// Regression (found by the CI fuzz smoke run of `probe_any` and `structured`): a joint whose
/// rest position is 1e31 units away (rotation −1.7e38 rad) used to fail the fuzz harness's check
/// that the prepared kernel agrees with `deform`. Neither path was wrong: both round at the
/// magnitude of the transforms they chain, so a unit offset 1e31 away is lost in both,
/// differently (0 against 1). The check's tolerance now scales with the pose's and the bind
/// pose's translations; the model still opens, poses and deforms without a panic.
#[test]
fn a_joint_far_away_used_to_fail_the_prepared_against_deform_check() {
    let mut b = arm();
    b.joints[1].parent = Vec::new();
    b.joints[1].rotation = [0.0, -1.7e38, 2.35e-38];
    b.joints[1].position = [1.0e31, 4.5e-39, 0.0];
    b.joints[1].rotation_keys = Vec::new();
    let bytes = b.write().unwrap();
    let model = skelmap::Model::from_bytes(&bytes).unwrap();
    crate::exercise::model(&model);
    let seed = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/seeds/probe_any/regress-far-joint.ms3d");
    let seed = std::fs::read(seed).unwrap();
    crate::exercise::model(&skelmap::Model::from_bytes(&seed).unwrap());
}
