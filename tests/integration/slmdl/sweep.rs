//! Truncated and mutated SL files: rejected at every cut, never a panic.

use skelmap::Parse;
use skelmap::slmdl;

use crate::support::slmdl::{tri, walk};

#[test]
fn truncation_at_every_offset_is_rejected() {
    for bytes in [tri().write(), walk().write()] {
        for cut in 0..bytes.len() {
            assert!(
                slmdl::Mesh::parse(&bytes[..cut]).is_err()
                    && slmdl::Animation::parse(&bytes[..cut]).is_err(),
                "cut at {cut}"
            );
        }
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 1024, ..Default::default() })]

    #[test]
    fn mutated_sl_files_never_panic(edits in proptest::collection::vec((0usize..512, proptest::prelude::any::<u8>()), 1..6)) {
        for mut bytes in [tri().write(), walk().write()] {
            let len = bytes.len();
            for &(at, v) in &edits {
                bytes[at % len] = v;
            }
            if let Ok(m) = slmdl::Mesh::parse(&bytes) {
                crate::exercise::slmdl(&m);
            }
            if let Ok(a) = slmdl::Animation::parse(&bytes) {
                crate::exercise::slanim(&a);
            }
        }
    }
}
