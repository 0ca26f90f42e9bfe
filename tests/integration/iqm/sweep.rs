//! Truncated and mutated IQM files never panic; what validates walks every accessor.

use skelmap::Model;
use skelmap::Parse;
use skelmap::iqm::{self, Iqm};

use crate::support::corpus_next_files;
use crate::support::iqm::demo;

fn walk(bytes: &[u8]) {
    if Iqm::parse(bytes).is_ok() {
        let model = Model::from_bytes(bytes).expect("a valid IQM opens as a model");
        crate::exercise::model(&model);
    }
}

#[test]
fn truncation_never_panics_and_every_cut_fails() {
    let full = iqm::Builder {
        extensions: vec![(b"FTE_MESH".to_vec(), vec![0; 56])],
        comment: b"made by skelmap".to_vec(),
        ..demo()
    }
    .write()
    .unwrap();
    for cut in 0..full.len() {
        assert!(Iqm::parse(&full[..cut]).is_err(), "cut at {cut} accepted");
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 1024, ..Default::default() })]

    #[test]
    fn mutated_iqm_never_panics(edits in proptest::collection::vec((0usize..4096, proptest::prelude::any::<u8>()), 1..8)) {
        let mut bytes = demo().write().unwrap();
        let len = bytes.len();
        for (at, v) in edits {
            bytes[at % len] = v;
        }
        walk(&bytes);
    }
}

#[test]
fn truncated_and_flipped_corpus_iqm_never_panics() {
    for path in corpus_next_files("iqm") {
        let bytes = std::fs::read(&path).unwrap();
        for cut in (0..bytes.len()).step_by((bytes.len() / 256).max(1)) {
            walk(&bytes[..cut]);
        }
        for at in (0..bytes.len()).step_by((bytes.len() / 512).max(1)) {
            let mut flipped = bytes.clone();
            flipped[at] ^= 0xff;
            walk(&flipped);
        }
    }
}
