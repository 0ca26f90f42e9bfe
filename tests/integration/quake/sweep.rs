//! Truncated and mutated Quake and MDL2 files never panic.

use skelmap::Model;
use skelmap::quake;

use crate::support::quake::grouped;

#[test]
fn truncations_and_mutations_of_the_corpus_never_panic() {
    let files = crate::support::corpus_files("mdl_quake")
        .into_iter()
        .chain(crate::support::corpus_files("mdl"));
    for path in files {
        let bytes = std::fs::read(&path).unwrap();
        let stride = (bytes.len() / 512).max(1);
        for cut in (0..bytes.len().min(4096)).chain((4096..bytes.len()).step_by(stride)) {
            if let Ok(model) = Model::from_bytes(&bytes[..cut]) {
                crate::exercise::model(&model);
            }
        }
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 1024, ..Default::default() })]

    #[test]
    fn mutated_quake_files_never_panic(edits in proptest::collection::vec((0usize..4096, proptest::prelude::any::<u8>()), 1..6)) {
        for mut bytes in [grouped().write(), quake::Builder::mdl2_triangle().write()] {
            let len = bytes.len();
            for &(at, v) in &edits {
                bytes[at % len] = v;
            }
            if let Ok(model) = Model::from_bytes(&bytes) {
                crate::exercise::model(&model);
            }
        }
    }
}
