//! `skelmap_compact_*`: the compact kernel through the C ABI skins like `skelmap_model_skin`
//! (within 10⁻⁴ of the model's size) on the synthetic tube and character and every corpus DPM
//! and MS3D, in
//! the layout's own order the same values where its order puts them, and refuses what it
//! cannot skin with the documented status. The calls themselves live in
//! skelmap-testkit's `capi` module, beside the other drivers of the C ABI.
#![allow(clippy::unwrap_used)]

use skelmap_capi::SkelmapStatus;
use skelmap_core::synth;
use skelmap_core::{Model, gamestudio};
use skelmap_testkit::capi::{compact_against_file, compact_statuses};

#[test]
fn compact_skinning_matches_the_file_kernel_through_the_c_abi() {
    let tube = synth::tube(&synth::TubeParams::default()).write().unwrap();
    // A game character whose layout groups vertices by their joints: the layout's own order
    // moves them (checked here), which the C calls in that order must follow.
    let character = synth::iqm_character(&synth::CharacterParams::default())
        .model
        .write()
        .unwrap();
    let compact = Model::from_bytes(&character).unwrap().compact().unwrap();
    let order = compact.mesh(0).unwrap().prepared_order();
    assert!(!order.iter().copied().eq(0..order.len() as u32));
    let mut inputs = vec![("tube".to_string(), tube), ("character".into(), character)];
    for dir in ["dpm", "ms3d"] {
        for path in skelmap_testkit::corpus_files(dir) {
            inputs.push((path.display().to_string(), std::fs::read(&path).unwrap()));
        }
    }
    let mut compared = 0;
    for (name, bytes) in &inputs {
        // Two corpus MS3D files have no joints: nothing to fold, `None`.
        let Some((position, normal)) = compact_against_file(bytes) else {
            continue;
        };
        assert!(
            position <= 1e-4,
            "{name}: positions differ by {position:e} of the size"
        );
        assert!(normal <= 2e-3, "{name}: normals differ by {normal:e}");
        compared += 1;
    }
    // The tube, the character, and with the corpus its 10 DPMs and the 3 MS3Ds that have
    // joints.
    let corpus = !skelmap_testkit::corpus_files("dpm").is_empty();
    assert_eq!(compared, if corpus { 15 } else { 2 });
}

#[test]
fn compact_calls_return_the_documented_statuses() {
    use SkelmapStatus::*;
    let tube = synth::tube(&synth::TubeParams::default()).write().unwrap();
    // A 3×2 terrain: vertex-animated, nothing to fold.
    let terrain = gamestudio::HmpBuilder {
        row: 3.0,
        frames: vec![(0..6).map(|i| (i * 10, [0, 0])).collect()],
        ..gamestudio::HmpBuilder::default()
    }
    .write();
    assert_eq!(
        compact_statuses(&tube, &terrain),
        [
            WrongKind,       // made from the terrain
            Ok,              // ... which left NULL
            NullParameter,   // from NULL
            NullParameter,   // into NULL
            Ok,              // from the tube
            NullParameter,   // info into NULL
            InvalidArgument, // an unsampled pose
            Ok,              // frames 1 and 2
            NullParameter,   // a NULL pose
            OutOfRange,      // mesh 1 of 1
            BufferTooSmall,  // one vertex short
            InvalidArgument, // an 8-byte stride
            NullParameter,   // both outputs NULL
            WrongKind,       // a pose of the terrain's frames
            WrongKind,       // prepared order: the terrain's pose
            Ok,              // frames 1 and 2
            NullParameter,   // a NULL pose
            OutOfRange,      // mesh 1 of 1
            BufferTooSmall,  // one vertex short
            Ok,              // the order
            NullParameter,   // of no compact model
            OutOfRange,      // of mesh 1
            NullParameter,   // into NULL
            BufferTooSmall,  // one short
            Ok,              // a triangle remapped
            NullParameter,   // with no compact model
            OutOfRange,      // of mesh 1
            NullParameter,   // from NULL
            Ok,              // none, from NULL
            InvalidArgument, // 3 · count overflows
        ]
    );
}
