//! Truncated and mutated GameStudio files never panic; regressions the fuzz runs found.

use skelmap::Parse;
use skelmap::gamestudio::{Hmp, Mdl};

use crate::support::gamestudio::{field, quad};

#[test]
fn truncation_and_mutation_never_panic() {
    for bytes in [quad().write(), field().write()] {
        for cut in 0..bytes.len() {
            assert!(
                Mdl::parse(&bytes[..cut]).is_err() && Hmp::parse(&bytes[..cut]).is_err(),
                "cut at {cut}"
            );
        }
    }
    for path in crate::support::corpus_files("mdl")
        .into_iter()
        .chain(crate::support::corpus_files("hmp"))
    {
        let bytes = std::fs::read(&path).unwrap();
        let stride = (bytes.len() / 512).max(1);
        for cut in (0..bytes.len().min(4096)).chain((4096..bytes.len()).step_by(stride)) {
            let _ = (Mdl::parse(&bytes[..cut]), Hmp::parse(&bytes[..cut]));
        }
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 1024, ..Default::default() })]

    #[test]
    fn mutated_gamestudio_files_never_panic(edits in proptest::collection::vec((0usize..4096, proptest::prelude::any::<u8>()), 1..6)) {
        for mut bytes in [quad().write(), field().write()] {
            let len = bytes.len();
            for &(at, v) in &edits {
                bytes[at % len] = v;
            }
            if let Ok(model) = skelmap::Model::from_bytes(&bytes) {
                crate::exercise::model(&model);
            }
        }
    }
}

/// Regression (found by the fuzz run of `probe_any`): an MDL without skin vertices, whose UV
/// indices validation rightly ignores, used to claim per-corner texture coordinates and then
/// have none to give (`corner_texcoords` returned `None` for every triangle, which the
/// harness's consistency check caught). Such a mesh now says it has no texture coordinates.
#[test]
fn an_mdl_without_skin_vertices_used_to_claim_texture_coordinates() {
    let mut q = quad();
    q.skin_vertices.clear();
    q.triangles = vec![([0, 1, 3], [7, 9, 11]), ([0, 3, 2], [0, 3, 2])];
    let bytes = q.write();
    let model = skelmap::Model::from_bytes(&bytes).unwrap();
    let mesh = model.mesh(0).unwrap();
    assert_eq!(mesh.texcoord_layout(), skelmap::model::TexcoordLayout::None);
    assert_eq!(mesh.corner_texcoords(0), None);
    crate::exercise::model(&model);
    let seed = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/seeds/probe_any/regress-mdl-without-skin-vertices.mdl");
    let seed = std::fs::read(seed).unwrap();
    crate::exercise::model(&skelmap::Model::from_bytes(&seed).unwrap());
}
