//! Malformed text at every position: every prefix of the fixtures and every byte replaced by
//! each byte the grammar gives meaning to fails with a typed error or opens, never panics;
//! and lines far longer than any real file's.

use skelmap::md5::{Anim, MeshFile};
use skelmap::{Diagnostics, Error, Limits, Model, Parse, WarningKind};

use super::{ANIM, MESH, located, mesh_error, with};

fn typed(e: &Error) -> bool {
    matches!(
        e,
        Error::Text { .. } | Error::Limit { .. } | Error::Unsupported { .. }
    )
}

/// Every prefix is refused with a typed error, but one that ends a mesh text where a mesh
/// would start (rule 4: the Cube 2 engines read such a file), which is read with the meshes
/// before it and the warning that says how many it declares.
#[test]
fn every_prefix_is_refused_with_a_typed_error() {
    let mesh_at = MESH.find("mesh {").unwrap();
    for text in [MESH, ANIM] {
        let bytes = text.as_bytes();
        let ok_from = text.trim_end().len();
        for end in 0..bytes.len() {
            let prefix = &bytes[..end];
            let mut diag = Diagnostics::new();
            let mesh = MeshFile::parse_with(prefix, &Limits::DEFAULT, &mut diag).map(drop);
            let anim = Anim::parse(prefix).map(drop);
            let model = Model::from_bytes(prefix).map(drop);
            if end >= ok_from {
                continue;
            }
            let before_mesh = text == MESH
                && MESH
                    .get(end..mesh_at)
                    .is_some_and(|gap| gap.trim().is_empty());
            if before_mesh {
                let w = diag.get(WarningKind::SpecLimit);
                assert!(
                    mesh.is_ok() && model.is_ok() && w.is_some_and(|w| w.offset == end as u64),
                    "prefix of {end} bytes: {mesh:?} {diag:?}"
                );
                assert!(anim.is_err_and(|e| typed(&e)), "prefix of {end} bytes");
                continue;
            }
            for r in [&mesh, &anim] {
                assert!(r.as_ref().is_err_and(typed), "prefix of {end} bytes: {r:?}");
            }
            assert!(model.is_err(), "prefix of {end} bytes");
        }
    }
}

#[test]
fn every_byte_replaced_never_panics() {
    for text in [MESH, ANIM] {
        let bytes = text.as_bytes();
        for at in 0..bytes.len() {
            for b in [
                b'"', b'{', b'}', b'(', b')', b'/', b'*', b'-', b'9', b'e', b'\n', 0, 0xff,
            ] {
                let mut mutated = bytes.to_vec();
                mutated[at] = b;
                if let Ok(model) = Model::from_bytes(&mutated) {
                    skelmap_testkit::exercise::model(&model);
                } else {
                    let _ = (MeshFile::parse(&mutated), Anim::parse(&mutated));
                }
            }
        }
    }
}

/// A 100 MB line: as a comment the model still opens; as a string without its closing quote
/// it is refused at the quote; as a number it is one token that is no number.
#[test]
fn a_100_mb_line() {
    let long = "x".repeat(100 << 20);
    let text = with(MESH, "numJoints 3", &format!("// {long}\nnumJoints 3"));
    assert!(MeshFile::parse(text.as_bytes()).is_ok());
    let text = with(
        MESH,
        "commandline \"fixture\"",
        &format!("commandline \"{long}"),
    );
    assert_eq!(
        located(&mesh_error(&text)).3,
        skelmap::Problem::UnterminatedString
    );
    let digits = "1".repeat(100 << 20);
    let text = with(MESH, "weight 0 0 1 (", &format!("weight 0 0 {digits}x ("));
    assert_eq!(located(&mesh_error(&text)).3, skelmap::Problem::Number);
}

/// Fuzz crash (the `md5` target, first ten minutes): a joint's stored rotation `(0, 1e38,
/// −0.707)` squares past `f32`, so the recovered `w` was infinite and the normalised rotation
/// NaN. The rotation is normalised in `f64` instead: unit and finite, with a warning.
#[test]
fn fuzz_crash_a_rotation_whose_squares_overflow_f32() {
    let text = with(
        MESH,
        "( 0 0 1 ) ( 0 0 -0.70710677 )",
        "( 0 0 1 ) ( 0 1e38 -0.70710677 )",
    );
    let diag = super::mesh_warnings(&text);
    assert_eq!(diag.count(skelmap::WarningKind::QuatNotUnit), 1);
    let file = MeshFile::parse(text.as_bytes()).unwrap();
    let q = file.joints()[1].orientation;
    assert!(q.is_finite() && (q.length() - 1.0).abs() < 1e-6, "{q:?}");
    let model = Model::from_bytes(text.as_bytes()).unwrap();
    skelmap_testkit::exercise::model(&model);
}

/// The same class of input: finite numbers whose product is not (a weight of `3e38` on an
/// offset of `1e38`) are refused at the vertex, not decoded into infinite positions.
#[test]
fn a_weight_whose_product_overflows_is_refused() {
    let text = with(
        MESH,
        "weight 3 2 1 ( 0 0 0 )",
        "weight 3 2 3e38 ( 1e38 0 0 )",
    );
    let e = mesh_error(&text);
    assert_eq!(located(&e), ("vert", 18, 17, skelmap::Problem::NotFinite));
}
