//! `model::Sampler` against `Model::sample` and `Model::sample_controlled`, bit for bit, on
//! every fuzz seed that opens as a model with frames (every format), the shared Half-Life
//! models and Half-Life models of several sizes, over calls that play forward, repeat,
//! jump, wrap and run past the last frame; and controls set, changed and set again.

use std::path::Path;

use skelmap::Model;
use skelmap::hl1::Controls;
use skelmap::pose::{Interpolation, LocalPose};

/// Frame pairs a player asks for: forward, the same pair again, backward, a jump, frames out
/// of range (clamped) and a frame with itself.
fn calls(frames: usize) -> Vec<(usize, usize, f32)> {
    let mut calls: Vec<_> = (0..frames).map(|f| (f, (f + 1) % frames, 0.25)).collect();
    calls.extend([(1, 2, 0.5), (1, 2, 0.75), (2, 1, 0.5), (frames / 2, 0, 0.6)]);
    calls.extend([(frames + 5, 0, 0.5), (3, 3, 0.0), (0, frames + 1, 1.0)]);
    calls
}

/// A pose's bits: per bone the rotation's and the translation's, then the scales'.
type Bits = (Vec<([u32; 4], [u32; 3])>, Vec<[u32; 3]>);

fn bits(pose: &LocalPose) -> Bits {
    let bones = pose
        .bones
        .iter()
        .map(|(q, t)| {
            (
                q.to_array().map(f32::to_bits),
                t.to_array().map(f32::to_bits),
            )
        })
        .collect();
    let scales = pose
        .scales
        .iter()
        .map(|s| s.to_array().map(f32::to_bits))
        .collect();
    (bones, scales)
}

/// Every call of [`calls`] through one sampler against the model's own sampling, with both
/// interpolations, without controls and then with two settings in turn.
fn agrees(name: &str, model: &Model<'_>) -> usize {
    let frames = model.num_frames();
    let settings = [
        None,
        Some(Controls {
            values: [30.0, -20.0, 1.5, 0.0, 0.25],
        }),
        Some(Controls::default()),
    ];
    for interpolation in [Interpolation::Nlerp, Interpolation::Slerp] {
        let mut sampler = model.sampler();
        let (mut kept, mut fresh) = (LocalPose::default(), LocalPose::default());
        for controls in settings {
            if let Some(controls) = controls {
                sampler.set_controls(controls);
                assert_eq!(sampler.controls(), Some(&controls));
            }
            for (a, b, t) in calls(frames) {
                sampler.sample(a, b, t, interpolation, &mut kept);
                match &controls {
                    Some(c) => model.sample_controlled(a, b, t, interpolation, c, &mut fresh),
                    None => model.sample(a, b, t, interpolation, &mut fresh),
                }
                let at = format!("{name} {interpolation:?} {controls:?} {a} {b} {t}");
                assert_eq!(bits(&kept), bits(&fresh), "{at}");
            }
        }
        assert!(std::ptr::eq(sampler.model(), model));
    }
    frames
}

#[test]
fn a_models_sampler_gives_what_the_model_gives() {
    let seeds = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds");
    let mut sampled = Vec::new();
    for dir in std::fs::read_dir(&seeds).unwrap() {
        let dir = dir.unwrap().path();
        for file in std::fs::read_dir(&dir).unwrap() {
            let file = file.unwrap().path();
            let bytes = std::fs::read(&file).unwrap();
            let Ok(model) = Model::from_bytes(&bytes) else {
                continue;
            };
            if model.num_frames() >= 2 && model.num_bones() > 0 {
                agrees(&file.display().to_string(), &model);
                sampled.push(model.format());
            }
        }
    }
    // Skeletal formats with frames, among them one with its own sampling (MS3D), one with
    // frames kept (Half-Life) and one with a pass of its own (DPM).
    for format in [
        skelmap::Format::Dpm,
        skelmap::Format::Iqm,
        skelmap::Format::Ms3d,
        skelmap::Format::Hl1,
        skelmap::Format::Zym,
        skelmap::Format::Mdr,
    ] {
        assert!(sampled.contains(&format), "no seed of {format:?}");
    }
    for bones in [2, 3, 8, 9, 17] {
        let bytes = crate::hl1::chain(bones).write().unwrap();
        let model = Model::from_bytes(&bytes).unwrap();
        assert_eq!(agrees(&format!("{bones} bones"), &model), 25);
    }
    if let Some(dir) = skelmap_testkit::corpus_engines_path("hl1") {
        for name in [
            "assimp_man.mdl",
            "assimp_chrome_sphere.mdl",
            "assimp_multiple_roots.mdl",
        ] {
            let model = Model::open(dir.join(name)).unwrap();
            agrees(name, &model);
        }
    }
}
