//! Truncated and mutated MDR files never panic, and whatever opens walks: every cut of the
//! fixtures (plain and compressed frames, two levels of detail) fails with a typed error, and
//! every single-byte flip either fails the same way or opens and walks.

use skelmap::{Model, Parse};

use super::{animated, compressed, lods};

fn fixtures() -> Vec<Vec<u8>> {
    vec![
        animated().write(),
        compressed().write(),
        lods().write(),
        skelmap::mdr::Builder {
            compressed: true,
            ..animated()
        }
        .write(),
    ]
}

#[test]
fn every_truncation_of_the_fixtures_is_refused_without_panic() {
    for bytes in fixtures() {
        for cut in 0..bytes.len() {
            // Every structure reaches the declared end, so no cut opens.
            assert!(
                skelmap::mdr::Mdr::parse(&bytes[..cut]).is_err(),
                "cut at {cut}"
            );
            assert!(Model::from_bytes(&bytes[..cut]).is_err());
        }
    }
}

#[test]
fn every_byte_flip_of_the_fixtures_fails_or_walks() {
    for bytes in fixtures() {
        for at in 0..bytes.len() {
            for flip in [0x01u8, 0x80, 0xFF] {
                let mut bytes = bytes.clone();
                bytes[at] ^= flip;
                if let Ok(view) = skelmap::mdr::Mdr::parse(&bytes) {
                    crate::exercise::mdr(&view);
                }
                if let Ok(model) = Model::from_bytes(&bytes) {
                    crate::exercise::model(&model);
                }
            }
        }
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 512, ..Default::default() })]

    #[test]
    fn mutated_mdr_files_never_panic(edits in proptest::collection::vec((0usize..4096, proptest::prelude::any::<u8>()), 1..6)) {
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
