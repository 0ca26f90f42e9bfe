//! Truncated and mutated MDC files never panic, and whatever opens walks.

use skelmap::Model;

use super::{animated, tags_only};
use crate::support::corpus_engines_dir;

#[test]
fn truncations_of_the_fixtures_and_the_corpus_never_panic() {
    let mut files = vec![animated().write(), tags_only().write()];
    if let Some(dir) = corpus_engines_dir("mdc") {
        for entry in std::fs::read_dir(dir).unwrap() {
            files.push(std::fs::read(entry.unwrap().path()).unwrap());
        }
    }
    for bytes in files {
        let stride = (bytes.len() / 512).max(1);
        for cut in (0..bytes.len().min(2048)).chain((2048..bytes.len()).step_by(stride)) {
            if let Ok(model) = Model::from_bytes(&bytes[..cut]) {
                crate::exercise::model(&model);
            }
        }
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 1024, ..Default::default() })]

    #[test]
    fn mutated_mdc_files_never_panic(edits in proptest::collection::vec((0usize..8192, proptest::prelude::any::<u8>()), 1..6)) {
        for mut bytes in [animated().write(), tags_only().write()] {
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
