//! Malformed input never panics: truncation of every corpus DPM at every offset of its first
//! 4 KiB and at a stride through the rest, and random mutations (proptest). When a mutated file
//! still validates, every accessor is walked and the view's invariants are checked.

use proptest::prelude::*;
use skelmap::Parse;
use skelmap::{Error, dpm::Dpm};

use crate::exercise;
use crate::support::{corpus_files, hdr, put_u32, tube};

fn truncation_points(len: usize) -> impl Iterator<Item = usize> {
    let stride = (len / 256).max(1);
    (0..len.min(4096)).chain((4096..len).step_by(stride))
}

#[test]
fn truncated_corpus_files_are_rejected_without_panic() {
    let files = corpus_files("dpm");
    for path in &files {
        let bytes = std::fs::read(path).unwrap();
        for cut in truncation_points(bytes.len()) {
            // As cut: the declared filesize exposes the truncation at once.
            let e = Dpm::parse(&bytes[..cut]).expect_err("truncated file accepted");
            if cut >= 80 {
                assert!(
                    matches!(
                        e,
                        Error::Truncated {
                            what: "file (header.filesize)",
                            ..
                        }
                    ),
                    "{e}"
                );
            }
            // With the filesize field patched to match, validation must find the cut itself.
            if cut >= 80 {
                let mut patched = bytes[..cut].to_vec();
                put_u32(&mut patched, hdr::FILESIZE, cut as u32);
                assert!(
                    Dpm::parse(&patched).is_err(),
                    "{} cut at {cut} accepted",
                    path.display()
                );
            }
        }
    }
}

#[test]
fn truncated_synthetic_file_is_rejected_at_every_offset() {
    let (bytes, _) = tube();
    for cut in 0..bytes.len() {
        let mut patched = bytes[..cut].to_vec();
        if cut >= 80 {
            put_u32(&mut patched, hdr::FILESIZE, cut as u32);
        }
        assert!(Dpm::parse(&patched).is_err(), "cut at {cut} accepted");
    }
}

/// Interesting values for a 32-bit field.
fn field_value() -> impl Strategy<Value = u32> {
    prop_oneof![
        Just(0u32),
        Just(1),
        Just(2),
        Just(0x7FFF_FFFF),
        Just(0x8000_0000),
        Just(u32::MAX),
        Just(f32::NAN.to_bits()),
        Just(f32::INFINITY.to_bits()),
        0u32..20_000,
        any::<u32>(),
    ]
}

#[derive(Debug, Clone)]
enum Mutation {
    Byte(usize, u8),
    Field(usize, u32),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(a, v)| Mutation::Byte(a, v)),
        // Header and table fields are 4-aligned: hit them often.
        (any::<usize>(), field_value()).prop_map(|(a, v)| Mutation::Field(a, v)),
        (0usize..20, field_value()).prop_map(|(a, v)| Mutation::Field(16 + 4 * a, v)),
    ]
}

fn mutate(mut bytes: Vec<u8>, mutations: &[Mutation]) -> Vec<u8> {
    let len = bytes.len();
    for m in mutations {
        match *m {
            Mutation::Byte(at, v) => bytes[at % len] = v,
            Mutation::Field(at, v) => {
                let at = (at % (len / 4)) * 4;
                bytes[at..at + 4].copy_from_slice(&v.to_be_bytes());
            }
        }
    }
    bytes
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1024, ..ProptestConfig::default() })]

    #[test]
    fn mutated_synthetic_dpm_never_panics(mutations in prop::collection::vec(mutation(), 1..6)) {
        let (bytes, _) = tube();
        let bytes = mutate(bytes, &mutations);
        if let Ok(m) = Dpm::parse(&bytes) {
            exercise::dpm(&m);
        }
    }

    #[test]
    fn arbitrary_bytes_after_the_magic_never_panic(tail in prop::collection::vec(any::<u8>(), 0..600)) {
        let mut bytes = b"DARKPLACESMODEL\0".to_vec();
        bytes.extend_from_slice(&tail);
        if let Ok(m) = Dpm::parse(&bytes) {
            exercise::dpm(&m);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn mutated_corpus_dpm_never_panics(
        which in 0usize..10,
        mutations in prop::collection::vec(mutation(), 1..4),
    ) {
        let files = corpus_files("dpm");
        if let Some(path) = files.get(which % files.len().max(1)) {
            let bytes = mutate(std::fs::read(path).unwrap(), &mutations);
            if let Ok(m) = Dpm::parse(&bytes) {
                exercise::dpm(&m);
            }
        }
    }
}

#[test]
fn truncated_skm_and_skp_are_rejected_at_every_offset() {
    let ((skm, _), (skp, _)) = crate::support::tube_skm();
    for (bytes, skp_file) in [(&skm, false), (&skp, true)] {
        for cut in 0..bytes.len() {
            let mut patched = bytes[..cut].to_vec();
            if cut >= 12 {
                crate::support::put_u32_le(&mut patched, 8, cut as u32); // filesize
            }
            let accepted = if skp_file {
                skelmap::skm::Skp::parse(&patched).is_ok()
            } else {
                skelmap::skm::Skm::parse(&patched).is_ok()
            };
            assert!(!accepted, "cut at {cut} accepted (skp: {skp_file})");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1024, ..ProptestConfig::default() })]

    #[test]
    fn mutated_skm_and_skp_never_panic(
        mutations in prop::collection::vec(mutation(), 1..6),
        which in 0u8..3,
    ) {
        let ((skm, _), (skp, _)) = crate::support::tube_skm();
        match which {
            0 => {
                if let Ok(m) = skelmap::skm::Skm::parse(&mutate_le(skm, &mutations)) {
                    exercise::skm(&m);
                }
            }
            1 => {
                if let Ok(m) = skelmap::skm::Skp::parse(&mutate_le(skp, &mutations)) {
                    exercise::skp(&m);
                }
            }
            _ => {
                let (a, b) = (mutate_le(skm, &mutations), mutate_le(skp, &mutations));
                if let (Ok(a), Ok(b)) = (skelmap::skm::Skm::parse(&a), skelmap::skm::Skp::parse(&b))
                    && let Ok(model) = skelmap::skm::Pair::new(a, b, &[]) {
                        exercise::skm_model(&model);
                    }
            }
        }
    }
}

/// As `mutate`, with 32-bit fields written little-endian.
fn mutate_le(bytes: Vec<u8>, mutations: &[Mutation]) -> Vec<u8> {
    let swapped: Vec<Mutation> = mutations
        .iter()
        .map(|m| match *m {
            Mutation::Field(at, v) => Mutation::Field(at, v.swap_bytes()),
            Mutation::Byte(at, v) => Mutation::Byte(at, v),
        })
        .collect();
    mutate(bytes, &swapped)
}
