//! One test per validation rule of `docs/formats/ms3d.md`: header and bounds, references, joints, the
//! optional tail, finite floats, and the warnings.

use skelmap::Parse;
use skelmap::ms3d::{self, CommentKind, Ms3d};
use skelmap::{Diagnostics, Error, Format, Limits, Problem, Skeleton, WarningKind};

use crate::support::ms3d::arm;

use super::{err, warnings};

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

/// A parent name no joint has makes a root, with a warning: H3DView's `bonesgroup.ms3d`
/// names its first joint `<MS3DRoot>` with the parent `none`, and assimp opens it.
#[test]
fn rule7_a_parent_no_joint_has_makes_a_root() {
    let mut b = arm();
    b.joints[1].parent = b"none".to_vec();
    let bytes = b.write().unwrap();
    let diag = warnings(&b);
    let w = diag.get(WarningKind::UnknownParent).unwrap();
    let m = Ms3d::parse(&bytes).unwrap();
    // The name field of joint 1's parent: the only place these bytes occur.
    let field = bytes.windows(5).position(|w| w == b"none\0").unwrap() as u64;
    assert_eq!((w.what, w.offset, w.count), ("joint.parentName", field, 1));
    assert_eq!(w.detail, "joint 1 names the parent \"none\"");
    assert_eq!(
        m.joints().iter().map(|j| j.parent()).collect::<Vec<_>>(),
        [None, None]
    );
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

#[test]
fn a_model_of_no_vertex_has_no_mesh() {
    // Simple3DWorld's `Data/Model.ms3d`: a material and a timeline, no vertex or group.
    let mut b = arm();
    let with_vertices = |b: &ms3d::Builder| {
        let bytes = b.write().unwrap();
        let model = skelmap::Model::from_bytes(&bytes).unwrap();
        (model.num_meshes(), model.mesh(0).map(|m| m.num_vertices()))
    };
    b.groups.clear();
    // Without groups the vertices and triangles are still one mesh (and a warning).
    assert_eq!(with_vertices(&b), (1, Some(b.vertices.len())));
    b.triangles.clear();
    b.vertices.clear();
    b.joints.clear();
    assert_eq!(with_vertices(&b), (0, None));
}
