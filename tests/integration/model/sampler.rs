//! `model::Sampler` against `Model::sample`, `Model::sample_controlled` and
//! `Model::sample_clip`, bit for bit, on every fuzz seed that opens as a model with frames
//! (every format), the shared Half-Life models and Half-Life models of several sizes, over
//! calls that play forward, repeat, jump, wrap and run past the last frame, and clips played
//! by time; and controls set, changed and set again.

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
    clips_agree(name, model);
    frames
}

/// Each of the model's first three clips played through one sampler against
/// `Model::sample_clip`, at 60 ticks a second for two seconds and at times before, far past
/// and (not looped) beyond its end; with controls set, whole frames against
/// `Model::sample_controlled`; and the errors `Model::sample_clip` gives, `out` unchanged.
fn clips_agree(name: &str, model: &Model<'_>) {
    let nlerp = Interpolation::Nlerp;
    let (mut kept, mut fresh) = (LocalPose::default(), LocalPose::default());
    for clip in model.clips().iter().take(3) {
        for looped in [true, false] {
            let mut sampler = model.sampler();
            let times = (0..120).map(|tick| tick as f32 / 60.0);
            for seconds in times.chain([-0.25, 1e4, 0.0]) {
                sampler
                    .sample_clip(clip, seconds, looped, nlerp, &mut kept)
                    .unwrap();
                model
                    .sample_clip(clip, seconds, looped, nlerp, &mut fresh)
                    .unwrap();
                let at = format!("{name} clip {} {seconds} {looped}", clip.name);
                assert_eq!(bits(&kept), bits(&fresh), "{at}");
            }
        }
        // A looped clip with controls, against the frames its time falls between (frame
        // `seconds · fps` of the clip, computed in f64 as `sample_clip` documents).
        let controls = Controls {
            values: [30.0, -20.0, 1.5, 0.0, 0.25],
        };
        let mut sampler = model.sampler();
        sampler.set_controls(controls);
        if model.format() == skelmap::Format::Ms3d {
            continue; // keyed in seconds: whole frames are not its frame pairs
        }
        for tick in 0..120 {
            let seconds = tick as f32 / 60.0;
            sampler
                .sample_clip(clip, seconds, true, nlerp, &mut kept)
                .unwrap();
            let at = (f64::from(seconds) * f64::from(clip.fps)).rem_euclid(f64::from(clip.count));
            let i = (at.floor() as u32).min(clip.count - 1);
            let t = (at - f64::from(i)) as f32;
            let a = (clip.first + i) as usize;
            let b = (clip.first + (i + 1) % clip.count) as usize;
            model.sample_controlled(a, b, t, nlerp, &controls, &mut fresh);
            assert_eq!(
                bits(&kept),
                bits(&fresh),
                "{name} clip {} {seconds}",
                clip.name
            );
        }
        let before = bits(&kept);
        let err = sampler.sample_clip(clip, f32::NAN, true, nlerp, &mut kept);
        assert!(
            matches!(err, Err(skelmap::model::DeformError::Time(_))),
            "{name}"
        );
        let mut beyond = clip.clone();
        beyond.first = model.num_frames() as u32;
        let err = sampler.sample_clip(&beyond, 0.0, true, nlerp, &mut kept);
        assert!(
            matches!(err, Err(skelmap::model::DeformError::Clip { .. })),
            "{name}"
        );
        assert_eq!(bits(&kept), before, "{name}");
    }
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
