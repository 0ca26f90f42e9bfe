//! The SL `mdl` and `.anim` pair: one test per validation rule (fixtures from the writers),
//! strided attribute views, influences, easing and sampling, truncation and mutation.

use skelmap::Parse;
use skelmap::slmdl::{self, AttributeKind, Easing, KeyframeDef};
use skelmap::{Error, Format, Limits, Problem};

/// Three skinned vertices in the 48-byte D3D9 layout.
pub fn tri() -> slmdl::MeshBuilder {
    let v = |position, weights, indices, texcoord| slmdl::VertexDef {
        position,
        normal: [0.0, 0.0, 1.0],
        weights,
        indices,
        texcoord,
    };
    slmdl::MeshBuilder::skinned(&[
        v([0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0, 1, 2, 3], [0.0, 0.0]),
        v([3.0, 0.0, 4.0], [0.5, 0.25, 0.0], [1, 2, 0, 0], [1.0, 0.0]),
        v([0.0, 2.0, 0.0], [0.2, 0.2, 0.2], [3, 2, 1, 0], [0.0, 1.0]),
    ])
}

/// Two bones, three keyframes at 0, 1 and 2 s: linear, then ease-in, then step.
pub fn walk() -> slmdl::AnimationBuilder {
    let turn = |deg: f32| {
        let h = deg.to_radians() / 2.0;
        [0.0, 0.0, h.sin(), h.cos()]
    };
    let key = |time, easing, deg, x| KeyframeDef {
        time,
        easing,
        bones: vec![(turn(deg), [x, 0.0, 0.0]), (turn(0.0), [1.0; 3])],
    };
    slmdl::AnimationBuilder {
        bones: 2,
        keyframes: vec![
            key(0.0, Easing::Linear, 0.0, 0.0),
            key(1.0, Easing::EaseIn, 90.0, 2.0),
            key(2.0, Easing::Step, 180.0, 4.0),
        ],
    }
}

fn mdl_err(bytes: &[u8]) -> Error {
    let e = slmdl::Mesh::parse(bytes)
        .map(|_| ())
        .expect_err("broken mdl accepted");
    assert_eq!(e.format(), Some(Format::SlMdl), "{e}");
    e
}

fn anim_err(bytes: &[u8]) -> Error {
    let e = slmdl::Animation::parse(bytes)
        .map(|_| ())
        .expect_err("broken anim accepted");
    assert_eq!(e.format(), Some(Format::SlAnim), "{e}");
    e
}

#[test]
fn mdl_layout_views_and_influences() {
    let bytes = tri().write();
    assert_eq!(bytes.len(), 0x34 + 3 * 48);
    assert_eq!(Format::sniff(&bytes), Some(Format::SlMdl));
    assert_eq!(
        Format::sniff(b"MDL5...."),
        Some(Format::Mdl),
        "GameStudio's upper-case MDL is another format"
    );
    let m = slmdl::Mesh::parse(&bytes).unwrap();
    assert_eq!(
        (m.num_vertices(), m.vertex_size(), m.radius()),
        (3, 48, 5.0)
    );
    let kinds: Vec<AttributeKind> = m.attributes().map(|(_, k, _)| k).collect();
    use AttributeKind::*;
    assert_eq!(
        kinds,
        [Position, Normal, BlendWeights, BlendIndices, Texcoord]
    );
    let pos = m.attribute(Position).unwrap();
    assert_eq!((pos.len(), pos.floats::<3>(1)), (3, Some([3.0, 0.0, 4.0])));
    assert_eq!(
        m.attribute(Texcoord).unwrap().floats::<2>(2),
        Some([0.0, 1.0])
    );
    assert!(m.attribute(Color).is_none());
    // The last weight is 1 − Σ the stored three.
    assert_eq!(
        m.influences(1),
        Some([(1, 0.5), (2, 0.25), (0, 0.0), (0, 0.25)])
    );
    let w = m.influences(2).unwrap();
    assert!((w[3].1 - 0.4).abs() < 1e-6 && w[3].0 == 0);
}

#[test]
fn mdl_rule_magic_and_header() {
    let bytes = tri().write();
    assert!(matches!(
        mdl_err(&bytes[..0x33]),
        Error::Truncated {
            what: "header",
            need: 52,
            have: 51,
            ..
        }
    ));
    let mut b = bytes.clone();
    b[0] = b'M';
    assert!(matches!(mdl_err(&b), Error::BadMagic { .. }));
}

#[test]
fn mdl_rule_attribute_count_at_most_16() {
    let mut b = tri().write();
    b[16..20].copy_from_slice(&17u32.to_le_bytes());
    assert!(matches!(
        mdl_err(&b),
        Error::Invalid {
            what: "header.attribute_count",
            offset: 16,
            ..
        }
    ));
}

#[test]
fn mdl_rule_known_types_and_sizes() {
    let mut b = tri().write();
    b[20 + 3] = 9; // attribute 3: unknown type
    assert!(matches!(
        mdl_err(&b),
        Error::Unsupported {
            what: "header.attribute_types",
            offset: 23,
            ..
        }
    ));
    let mut b = tri().write();
    b[36 + 1] = 8; // attribute 1 (normal) cannot be 8 bytes
    assert!(matches!(
        mdl_err(&b),
        Error::Invalid {
            what: "header.attribute_sizes",
            offset: 37,
            ..
        }
    ));
}

#[test]
fn mdl_rule_sizes_sum_to_the_vertex_size() {
    let mut b = tri().write();
    b[8..12].copy_from_slice(&44u32.to_le_bytes());
    let e = mdl_err(&b);
    assert!(
        matches!(
            &e,
            Error::Invalid {
                what: "header.vertex_size",
                offset: 8,
                problem: Problem::Mismatch {
                    value: 44,
                    expected: 48
                },
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn mdl_rule_vertices_exactly_fill_the_file() {
    let bytes = tri().write();
    assert!(matches!(
        mdl_err(&bytes[..bytes.len() - 1]),
        Error::Truncated {
            what: "vertices",
            offset: 52,
            need: 144,
            have: 143,
            ..
        }
    ));
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(matches!(
        mdl_err(&longer),
        Error::Invalid {
            what: "vertices",
            offset: 196,
            ..
        }
    ));
    let limits = Limits {
        max_vertices_per_mesh: 2,
        ..Limits::default()
    };
    let e = slmdl::Mesh::parse_with(&bytes, &limits, &mut skelmap::Diagnostics::new())
        .map(|_| ())
        .unwrap_err();
    assert!(matches!(
        e,
        Error::Limit {
            what: "header.vertex_count",
            value: 3,
            max: 2,
            ..
        }
    ));
}

#[test]
fn mdl_rule_radius_finite_and_not_negative() {
    for radius in [f32::NAN, -1.0] {
        let mut b = tri();
        b.radius = radius;
        assert!(matches!(
            mdl_err(&b.write()),
            Error::Invalid {
                what: "header.radius",
                offset: 12,
                ..
            }
        ));
    }
}

#[test]
fn mdl_rule_float_attributes_finite() {
    let mut b = tri().write();
    let at = 52 + 48 + 12 + 4; // vertex 1, normal.y
    b[at..at + 4].copy_from_slice(&f32::INFINITY.to_le_bytes());
    assert!(matches!(
        mdl_err(&b),
        Error::Invalid {
            what: "vertex",
            offset: 116, // the value itself
            problem: Problem::NotFinite,
            ..
        }
    ));
}

/// Regression (found by `mutated_sl_files_never_panic`): finite but absurd blend weights such
/// as 1e30 and −1e30 used to validate, and the implied last weight `1 − Σ` then cancelled to
/// make a vertex's influences sum to 0. Weights must now lie in 0..=1 and sum to at most 1.
#[test]
fn regression_blend_weights_outside_unit_range_are_rejected() {
    for weights in [[1e30f32, -1e30, 0.0], [0.7, 0.5, 0.0], [-0.1, 0.5, 0.5]] {
        let mut b = tri().write();
        let at = 52 + 48 + 24; // vertex 1, blend weights
        for (k, w) in weights.iter().enumerate() {
            b[at + 4 * k..at + 4 * k + 4].copy_from_slice(&w.to_le_bytes());
        }
        let e = mdl_err(&b);
        assert!(
            matches!(
                e,
                Error::Invalid {
                    what: "vertex",
                    offset: 124,
                    ..
                }
            ),
            "{weights:?}: {e}"
        );
    }
}

/// Regression (found by the CI fuzz smoke run of `slmdl`, whose executions slowed to ~2.6k/s):
/// a 52-byte header declaring no attributes (vertex size 0) and millions of vertices used to
/// validate, since `count × 0` bytes fit, leaving consumers to loop over empty vertices.
#[test]
fn regression_vertices_without_attributes_are_rejected() {
    let b = slmdl::MeshBuilder {
        radius: 1.0,
        attributes: vec![],
        vertex_count: 4_000_000,
        vertices: vec![],
    };
    let e = mdl_err(&b.write());
    assert!(
        matches!(
            e,
            Error::Invalid {
                what: "header.vertex_size",
                offset: 8,
                ..
            }
        ),
        "{e}"
    );
    let empty = slmdl::MeshBuilder {
        radius: 0.0,
        attributes: vec![],
        vertex_count: 0,
        vertices: vec![],
    };
    assert!(
        slmdl::Mesh::parse(&empty.write()).is_ok(),
        "no vertices and no attributes is an empty mesh"
    );
}

#[test]
fn anim_sampling_with_easing() {
    let bytes = walk().write();
    assert_eq!(bytes.len(), 8 + 3 * (8 + 2 * 28));
    assert_eq!(Format::sniff(&bytes), None, ".anim has no magic");
    let a = slmdl::Animation::parse(&bytes).unwrap();
    assert_eq!((a.num_bones(), a.num_keyframes()), (2, 3));
    assert_eq!(a.times().collect::<Vec<_>>(), [0.0, 1.0, 2.0]);
    let mut pose = skelmap::pose::LocalPose::default();
    let angle = |q: skelmap::glam::Quat| q.to_axis_angle().1.to_degrees();
    a.sample(0.5, &mut pose); // linear: half way
    let b = &pose.bones;
    assert!((angle(b[0].0) - 45.0).abs() < 1e-3 && (b[0].1.x - 1.0).abs() < 1e-6);
    a.sample(1.5, &mut pose); // ease-in from keyframe 1: f = 0.25
    let b = &pose.bones;
    assert!(
        (angle(b[0].0) - 112.5).abs() < 1e-3 && (b[0].1.x - 2.5).abs() < 1e-5,
        "{pose:?}"
    );
    a.sample(2.5, &mut pose); // past the end: clamped to the last keyframe
    assert!((angle(pose.bones[0].0) - 180.0).abs() < 1e-3);
    a.sample(-3.0, &mut pose); // before the start: the first keyframe
    assert!(angle(pose.bones[0].0).abs() < 1e-3);
    assert_eq!(
        pose.bones[1].1,
        skelmap::glam::Vec3A::ONE,
        "bones are independent"
    );
    assert!((Easing::EaseInOut.apply(0.5) - 0.5).abs() < 1e-6 && Easing::Step.apply(0.9) == 0.0);
}

#[test]
fn anim_step_holds_until_the_next_keyframe() {
    let mut b = walk();
    b.keyframes[0].easing = Easing::Step;
    let bytes = b.write();
    let a = slmdl::Animation::parse(&bytes).unwrap();
    let mut pose = skelmap::pose::LocalPose::default();
    a.sample(0.99, &mut pose);
    assert!(pose.bones[0].0.to_axis_angle().1.abs() < 1e-6);
    assert_eq!(
        a.key(2).map(|(t, e, keys)| (t, e, keys.len())),
        Some((2.0, Easing::Step, 2))
    );
}

#[test]
fn anim_rule_counts_and_exact_size() {
    let bytes = walk().write();
    let mut b = bytes.clone();
    b[0..4].copy_from_slice(&0u32.to_le_bytes());
    assert!(matches!(
        anim_err(&b),
        Error::Invalid {
            what: "header.bone_count",
            offset: 0,
            ..
        }
    ));
    let mut b = bytes.clone();
    b[4..8].copy_from_slice(&0u32.to_le_bytes());
    assert!(matches!(
        anim_err(&b),
        Error::Invalid {
            what: "header.keyframe_count",
            offset: 4,
            ..
        }
    ));
    let mut b = bytes.clone();
    b[4..8].copy_from_slice(&70_000u32.to_le_bytes());
    assert!(matches!(
        anim_err(&b),
        Error::Limit {
            what: "header.keyframe_count",
            ..
        }
    ));
    assert!(matches!(
        anim_err(&bytes[..bytes.len() - 4]),
        Error::Truncated {
            what: "keyframes",
            ..
        }
    ));
    let mut longer = bytes.clone();
    longer.extend_from_slice(&[0; 4]);
    assert!(matches!(
        anim_err(&longer),
        Error::Invalid {
            what: "keyframes",
            offset: 200,
            ..
        }
    ));
}

#[test]
fn anim_rule_times_easing_and_values() {
    let second = 8 + 64; // keyframe 1 starts here
    let mut b = walk().write();
    b[second..second + 4].copy_from_slice(&(-1.0f32).to_le_bytes());
    assert!(matches!(
        anim_err(&b),
        Error::Invalid {
            what: "keyframe.time",
            offset: 72,
            ..
        }
    ));
    let mut b = walk().write();
    b[second + 4..second + 8].copy_from_slice(&5u32.to_le_bytes());
    assert!(matches!(
        anim_err(&b),
        Error::Invalid {
            what: "keyframe.easing",
            offset: 76,
            ..
        }
    ));
    let mut b = walk().write();
    let bone1 = second + 8 + 28 + 16; // keyframe 1, bone 1, translation.x
    b[bone1..bone1 + 4].copy_from_slice(&f32::NAN.to_le_bytes());
    assert!(matches!(
        anim_err(&b),
        Error::Invalid {
            what: "keyframe.bones",
            offset: 108,
            ..
        }
    ));
}

#[test]
fn truncation_at_every_offset_is_rejected() {
    for bytes in [tri().write(), walk().write()] {
        for cut in 0..bytes.len() {
            assert!(
                slmdl::Mesh::parse(&bytes[..cut]).is_err()
                    && slmdl::Animation::parse(&bytes[..cut]).is_err(),
                "cut at {cut}"
            );
        }
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 1024, ..Default::default() })]

    #[test]
    fn mutated_sl_files_never_panic(edits in proptest::collection::vec((0usize..512, proptest::prelude::any::<u8>()), 1..6)) {
        for mut bytes in [tri().write(), walk().write()] {
            let len = bytes.len();
            for &(at, v) in &edits {
                bytes[at % len] = v;
            }
            if let Ok(m) = slmdl::Mesh::parse(&bytes) {
                crate::exercise::slmdl(&m);
            }
            if let Ok(a) = slmdl::Animation::parse(&bytes) {
                crate::exercise::slanim(&a);
            }
        }
    }
}
