//! Truncated and mutated MDL7 files never panic; what validates walks every accessor.

use skelmap::Model;
use skelmap::Parse;
use skelmap::core::mdl7::{Builder, Mdl7, Sizes};

use crate::support::corpus_next_files;
use crate::support::mdl7::{demo, morphing};

fn walk(bytes: &[u8]) {
    if Mdl7::parse(bytes).is_ok() {
        let model = Model::from_bytes(bytes).expect("a valid MDL7 opens as a model");
        crate::exercise::model(&model);
    }
}

#[test]
fn truncation_never_panics_and_every_cut_fails() {
    for b in [
        demo(),
        morphing(),
        Builder {
            sizes: Sizes::SMALL,
            ..demo()
        },
    ] {
        let full = b.write();
        for cut in 0..full.len() {
            assert!(Mdl7::parse(&full[..cut]).is_err(), "cut at {cut} accepted");
        }
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 1024, ..Default::default() })]

    #[test]
    fn mutated_mdl7_never_panics(edits in proptest::collection::vec((0usize..4096, proptest::prelude::any::<u8>()), 1..8)) {
        let mut bytes = demo().write();
        let len = bytes.len();
        for (at, v) in edits {
            bytes[at % len] = v;
        }
        walk(&bytes);
    }

    /// Whole 32-bit fields (counts, sizes, indices, floats) set to edge values.
    #[test]
    fn mdl7_fields_at_their_edges_never_panic(
        edits in proptest::collection::vec((0usize..1024, edge()), 1..6)
    ) {
        let mut bytes = demo().write();
        let words = bytes.len() / 4;
        for (at, v) in edits {
            let at = 4 * (at % words);
            bytes[at..at + 4].copy_from_slice(&v.to_le_bytes());
        }
        walk(&bytes);
    }
}

/// A value a field might hold to break a reader.
fn edge() -> impl proptest::strategy::Strategy<Value = u32> {
    proptest::prop_oneof![
        proptest::prelude::Just(0u32),
        proptest::prelude::Just(1),
        proptest::prelude::Just(0xFFFF),
        proptest::prelude::Just(0xFFFF_FFFF),
        proptest::prelude::Just(u32::MAX / 28),
        proptest::prelude::Just(0x7fc0_0000), // a NaN as a float
        proptest::prelude::any::<u32>(),
    ]
}

#[test]
fn truncated_and_flipped_corpus_mdl7_never_panics() {
    for path in corpus_next_files("mdl7") {
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

/// Regression (found while writing the `mdl7` fuzz harness): two weights of 3e38 on one vertex
/// summed to infinity, and normalising by that sum bound the vertex with weights of 0. The
/// weights are now scaled by the largest before they are summed.
#[test]
fn weights_whose_sum_overflows_used_to_normalise_to_zero() {
    let seed = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/seeds/mdl7/regress-weights-sum-overflow.mdl");
    let bytes = std::fs::read(seed).unwrap();
    let model = Mdl7::parse(&bytes).unwrap();
    let v = skelmap::pose::BindPoseMesh::bind_vertex(&model.bind_mesh(), 0).unwrap();
    let weights: Vec<(u16, f32)> = v.influences.iter().flatten().copied().collect();
    assert_eq!(weights, [(0, 0.5), (0, 0.5)]);
    walk(&bytes);
}
