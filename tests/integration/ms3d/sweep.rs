//! Truncated and mutated MS3D files never panic; a regression the fuzz runs found.

use skelmap::Parse;
use skelmap::ms3d::Ms3d;

use crate::support::corpus_dir;
use crate::support::ms3d::{arm, arm_with_tail};

#[test]
fn truncation_never_panics_and_cuts_before_the_tail_fail() {
    let mut b = arm();
    b.tail.model_extra = Some((1.0, 0, 0.5));
    let full = b.write().unwrap();
    let tail_start = arm().write().unwrap().len();
    for cut in 0..full.len() {
        let result = Ms3d::parse(&full[..cut]);
        if cut < tail_start {
            assert!(
                result.is_err(),
                "cut at {cut} inside the mandatory part accepted"
            );
        }
    }
    if let Some(dir) = corpus_dir("ms3d") {
        let bytes = std::fs::read(dir.join("ms3drender_NeHe_Model.ms3d")).unwrap();
        for cut in 0..bytes.len() {
            assert!(
                Ms3d::parse(&bytes[..cut]).is_err(),
                "NeHe cut at {cut} accepted"
            );
        }
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 1024, ..Default::default() })]

    #[test]
    fn mutated_ms3d_never_panics(edits in proptest::collection::vec((0usize..4096, proptest::prelude::any::<u8>()), 1..8)) {
        let mut bytes = arm_with_tail().write().unwrap();
        let len = bytes.len();
        for (at, v) in edits {
            bytes[at % len] = v;
        }
        if let Ok(m) = Ms3d::parse(&bytes) {
            crate::exercise::ms3d(&m);
        }
    }
}

#[test]
fn truncated_corpus_ms3d_never_panics() {
    let files = crate::support::corpus_files("ms3d");
    for path in &files {
        let bytes = std::fs::read(path).unwrap();
        let stride = (bytes.len() / 512).max(1);
        for cut in (0..bytes.len().min(4096)).chain((4096..bytes.len()).step_by(stride)) {
            if let Ok(m) = Ms3d::parse(&bytes[..cut]) {
                // Only a cut at the end of the mandatory part or of a tail section can validate.
                crate::exercise::ms3d(&m);
            }
        }
    }
}

/// Regression (found by the CI fuzz smoke run of `probe_any` and `structured`): a joint whose
/// rest position is 1e31 units away (rotation −1.7e38 rad) used to fail the fuzz harness's check
/// that the prepared kernel agrees with `deform`. Neither path was wrong: both round at the
/// magnitude of the transforms they chain, so a unit offset 1e31 away is lost in both,
/// differently (0 against 1). The check's tolerance now scales with the pose's and the bind
/// pose's translations; the model still opens, poses and deforms without a panic.
#[test]
fn a_joint_far_away_used_to_fail_the_prepared_against_deform_check() {
    let mut b = arm();
    b.joints[1].parent = Vec::new();
    b.joints[1].rotation = [0.0, -1.7e38, 2.35e-38];
    b.joints[1].position = [1.0e31, 4.5e-39, 0.0];
    b.joints[1].rotation_keys = Vec::new();
    let bytes = b.write().unwrap();
    let model = skelmap::Model::from_bytes(&bytes).unwrap();
    crate::exercise::model(&model);
    let seed = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/seeds/probe_any/regress-far-joint.ms3d");
    let seed = std::fs::read(seed).unwrap();
    crate::exercise::model(&skelmap::Model::from_bytes(&seed).unwrap());
}
