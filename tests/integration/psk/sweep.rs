//! Truncated and mutated PSK and PSA files never panic, and whatever opens walks.

use skelmap::Model;

use super::{Builder, example_psa, example_psk};

fn fixtures() -> Vec<Vec<u8>> {
    let mut wide = Builder::example();
    wide.wide = true;
    wide.normals = vec![[0.0, 0.0, 1.0]; 4];
    wide.colors = vec![[1, 2, 3, 4]; 4];
    wide.extra_uvs = vec![vec![[0.5, 0.25]; 4]];
    vec![example_psk(), example_psa(), wide.write_psk().unwrap()]
}

#[test]
fn truncation_inside_a_chunk_never_panics_and_never_opens() {
    for bytes in fixtures() {
        // Cut at a chunk boundary a file may still open (a chunk it does not need is gone);
        // cut anywhere else it must not.
        let mut boundaries = vec![0usize];
        let mut at = 0usize;
        while at + 32 <= bytes.len() {
            let size = i32::from_le_bytes(bytes[at + 24..at + 28].try_into().unwrap()) as usize;
            let count = i32::from_le_bytes(bytes[at + 28..at + 32].try_into().unwrap()) as usize;
            at += 32 + size * count;
            boundaries.push(at);
        }
        for cut in 0..bytes.len() {
            let opened = Model::from_bytes(&bytes[..cut]);
            if let Ok(model) = &opened {
                crate::exercise::model(model);
            }
            if !boundaries.contains(&cut) {
                assert!(opened.is_err(), "a file cut at {cut} opened");
            }
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
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 256, ..Default::default() })]

    #[test]
    fn mutated_psk_and_psa_files_never_panic(edits in proptest::collection::vec((0usize..4096, proptest::prelude::any::<u8>()), 1..6)) {
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
