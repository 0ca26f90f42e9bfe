//! Truncated and mutated ZYM files never panic, and whatever opens walks.

use skelmap::Model;

use super::single;

fn fixtures() -> Vec<Vec<u8>> {
    vec![
        skelmap::zym::Builder::example().write().unwrap(),
        single().write().unwrap(),
    ]
}

#[test]
fn truncation_at_every_byte_never_panics_and_never_opens() {
    for bytes in fixtures() {
        for cut in 0..bytes.len() {
            let opened = Model::from_bytes(&bytes[..cut]);
            assert!(opened.is_err(), "a file cut at {cut} opened");
        }
        crate::exercise::model(&Model::from_bytes(&bytes).unwrap());
    }
}

#[test]
fn every_single_byte_flip_never_panics() {
    for bytes in fixtures() {
        for at in 0..bytes.len() {
            for flip in [0x01u8, 0x80, 0xff] {
                let mut b = bytes.clone();
                b[at] ^= flip;
                if let Ok(model) = Model::from_bytes(&b) {
                    crate::exercise::model(&model);
                }
            }
        }
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 512, ..Default::default() })]

    #[test]
    fn mutated_zym_files_never_panic(edits in proptest::collection::vec((0usize..4096, proptest::prelude::any::<u8>()), 1..6)) {
        for mut bytes in fixtures() {
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
