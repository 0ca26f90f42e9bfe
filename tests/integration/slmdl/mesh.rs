//! The SL `mdl`: strided attribute views and influences, one test per validation rule, and
//! regressions.

use skelmap::Parse;
use skelmap::slmdl::{self, AttributeKind};
use skelmap::{Error, Format, Limits, Problem};

use crate::support::slmdl::tri;

fn mdl_err(bytes: &[u8]) -> Error {
    let e = slmdl::Mesh::parse(bytes)
        .map(|_| ())
        .expect_err("broken mdl accepted");
    assert_eq!(e.format(), Some(Format::SlMdl), "{e}");
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
