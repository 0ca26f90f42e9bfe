//! Truncated and mutated MDM and MDX files never panic, and whatever opens walks: every cut
//! fails with a typed error, and every single-byte flip either fails or opens and walks.

use skelmap::Parse;
use skelmap::mdm::{Builder, Mdm, Mdx, Pair};

fn fixtures() -> Vec<Builder> {
    vec![Builder::triangle(), super::three_bones()]
}

#[test]
fn every_truncation_of_either_file_is_refused_without_panic() {
    for b in fixtures() {
        let (mdm, mdx) = b.write();
        for cut in 0..mdm.len() {
            assert!(Mdm::parse(&mdm[..cut]).is_err(), "MDM cut at {cut}");
        }
        for cut in 0..mdx.len() {
            assert!(Mdx::parse(&mdx[..cut]).is_err(), "MDX cut at {cut}");
        }
    }
}

#[test]
fn every_byte_flip_of_either_file_fails_or_walks() {
    for b in fixtures() {
        let (mdm, mdx) = b.write();
        let good_mdx = Mdx::parse(&mdx).unwrap();
        for at in 0..mdm.len() {
            for flip in [0x01u8, 0x80, 0xFF] {
                let mut bytes = mdm.clone();
                bytes[at] ^= flip;
                if let Ok(view) = Mdm::parse(&bytes) {
                    crate::exercise::mdm(&view);
                    if let Ok(pair) = Pair::new(view, good_mdx.clone()) {
                        crate::exercise::mdm_pair(&pair);
                    }
                }
            }
        }
        for at in 0..mdx.len() {
            for flip in [0x01u8, 0x80, 0xFF] {
                let mut bytes = mdx.clone();
                bytes[at] ^= flip;
                if let Ok(view) = Mdx::parse(&bytes) {
                    crate::exercise::mdx(&view);
                    if let Ok(model) = skelmap::Model::from_bytes(&bytes) {
                        crate::exercise::model(&model);
                    }
                }
            }
        }
    }
}
