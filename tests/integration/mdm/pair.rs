//! The MDX an MDM opens with: the `.mdx` of its stem beside it, one given by path, or, when
//! neither is there, an `Error::Resolve` naming the `.mdx` looked for.

use std::collections::HashMap;

use skelmap::mdm::Builder;
use skelmap::model::OpenOptions;
use skelmap::source::Source;
use skelmap::{Error, Format, Limits, Model};

#[test]
fn the_mdx_of_the_stem_beside_the_mdm_is_found() {
    let (mdm, mdx) = Builder::triangle().write();
    let mut files = HashMap::new();
    files.insert("models/players/body.mdm".to_string(), mdm);
    files.insert("models/players/body.mdx".to_string(), mdx);
    let model = Model::resolve(&&files, "models/players/body.mdm", &Limits::DEFAULT).unwrap();
    assert_eq!(model.format(), Format::Mdm);
    assert_eq!(
        (model.num_bones(), model.num_frames(), model.num_meshes()),
        (2, 3, 1)
    );
    let pair = model.as_mdm().unwrap();
    assert_eq!(pair.mdx().name(), b"models/players/triangle.mdx");
}

#[test]
fn a_missing_mdx_is_a_resolve_error_naming_it() {
    let (mdm, _) = Builder::triangle().write();
    let mut files = HashMap::new();
    files.insert("models/players/body.mdm".to_string(), mdm.clone());
    match Model::resolve(&&files, "models/players/body.mdm", &Limits::DEFAULT) {
        Err(Error::Resolve { path, reason }) => {
            assert_eq!(path, "models/players/body.mdx");
            assert!(reason.contains("MDX"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
    // Bytes alone have no companion: the error says how to give one.
    match Model::from_bytes(&mdm) {
        Err(Error::Resolve { reason, .. }) => assert!(reason.contains("from_mdm"), "{reason}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn an_mdx_given_by_path_is_used_instead_of_the_stem() {
    let dir = tempfile::Builder::new()
        .prefix("skelmap-mdm-given-")
        .tempdir()
        .unwrap();
    let dir = dir.path();
    let three = super::three_bones();
    let (mdm, _) = three.write();
    let (_, other) = Builder::triangle().write();
    std::fs::write(dir.join("body.mdm"), mdm).unwrap();
    // The MDX beside it has too few bones for the mesh: given the right one, it opens.
    std::fs::write(dir.join("body.mdx"), other).unwrap();
    std::fs::write(dir.join("anims.mdx"), three.write_mdx()).unwrap();
    let beside = Model::open(dir.join("body.mdm"));
    assert!(
        matches!(
            beside,
            Err(Error::Invalid {
                format: Format::Mdm,
                ..
            })
        ),
        "{beside:?}"
    );
    let options = OpenOptions {
        skeleton: Some(dir.join("anims.mdx")),
        ..OpenOptions::default()
    };
    let model = Model::open_with(dir.join("body.mdm"), &options).unwrap();
    assert_eq!(model.num_bones(), 3);
}

#[test]
fn from_mdm_pairs_two_sources() {
    let (mdm, mdx) = Builder::triangle().write();
    let model = Model::from_mdm(
        Source::from_vec(mdm),
        Source::from_vec(mdx),
        &Limits::DEFAULT,
    )
    .unwrap();
    assert_eq!(model.num_vertices(), 3);
    assert_eq!(model.num_triangles(), 1);
}
