//! `skelmap_static_mesh_*`: the one-frame path through the C ABI copies, bit for bit, what
//! `skelmap_model_skin` writes for the model's one frame, on a synthetic tube of one frame and
//! every corpus DPM and MS3D of one frame, and refuses a model of several frames. The calls
//! live in skelmap-testkit's `capi` module.
#![allow(clippy::unwrap_used)]

use skelmap_capi::SkelmapStatus;
use skelmap_core::synth::{TubeParams, tube};
use skelmap_testkit::capi::static_against_skin;

#[test]
fn the_static_mesh_is_what_skinning_the_one_frame_writes() {
    let one = TubeParams {
        frames: 1,
        ..TubeParams::default()
    };
    assert_eq!(static_against_skin(&tube(&one).write().unwrap()), Ok(true));
    let mut compared = 0;
    for dir in ["dpm", "ms3d"] {
        for path in skelmap_testkit::corpus_files(dir) {
            let bytes = std::fs::read(&path).unwrap();
            match static_against_skin(&bytes) {
                Ok(same) => {
                    assert!(same, "{}", path.display());
                    compared += 1;
                }
                Err(status) => {
                    assert_eq!(status, Some(SkelmapStatus::WrongKind), "{}", path.display())
                }
            }
        }
    }
    let corpus = !skelmap_testkit::corpus_files("dpm").is_empty();
    assert_eq!(compared > 0, corpus);
}

#[test]
fn a_model_of_several_frames_has_no_static_mesh() {
    let nine = tube(&TubeParams::default()).write().unwrap();
    assert_eq!(
        static_against_skin(&nine),
        Err(Some(SkelmapStatus::WrongKind))
    );
}
