//! `--blend` and `--additive`: a pose made of several clips at one time, as a game blends
//! them ([`pose::blend`]), for `export` and `render`.

use std::fmt::Write as _;
use std::path::Path;

use skelmap_core::Model;
use skelmap_core::pose::blend::{self, Blender, Layer, Mask};
use skelmap_core::pose::framegroups::FrameGroup;
use skelmap_core::pose::{Interpolation, LocalPose};

/// One `--blend` or `--additive` layer: `CLIP:WEIGHT[:FIRST..LAST]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Spec {
    /// The clip's name.
    pub clip: String,
    /// Its weight.
    pub weight: f32,
    /// The bones it plays, `first..=last` as `info` numbers them; every bone when `None`.
    pub bones: Option<(usize, usize)>,
}

/// Reads `CLIP:WEIGHT` or `CLIP:WEIGHT:FIRST..LAST` (the last `:`-separated fields, so a
/// clip's name may hold `:`).
pub fn parse(text: &str) -> Result<Spec, String> {
    let usage = || format!("{text:?}: give CLIP:WEIGHT or CLIP:WEIGHT:FIRST..LAST");
    let (rest, last) = text.rsplit_once(':').ok_or_else(usage)?;
    let (rest, weight, bones) = match last.split_once("..") {
        Some((first, end)) => {
            let (clip, weight) = rest.rsplit_once(':').ok_or_else(usage)?;
            let bone = |b: &str| {
                b.trim().parse::<usize>().map_err(|_| {
                    format!("{text:?}: {b:?} is not a bone number (bones count from 0)")
                })
            };
            let (first, last) = (bone(first)?, bone(end.trim_start_matches('='))?);
            if first > last {
                return Err(format!(
                    "{text:?}: the range {first}..{last} is empty: give FIRST..LAST with FIRST ≤ \
                     LAST (both played)"
                ));
            }
            (clip, weight, Some((first, last)))
        }
        None => (rest, last, None),
    };
    if rest.is_empty() {
        return Err(usage());
    }
    let weight = weight
        .trim()
        .parse::<f32>()
        .ok()
        .filter(|w| w.is_finite())
        .ok_or_else(|| format!("{text:?}: {weight:?} is not a weight (a finite number)"))?;
    Ok(Spec {
        clip: rest.to_string(),
        weight,
        bones,
    })
}

/// How `--clip`, `--time`, `--blend` and `--additive` pose a model.
#[derive(Debug, Clone, Default)]
pub struct Posing {
    /// `--clip`: the clip to pose in; with layers, the first layer at weight 1.
    pub clip: Option<String>,
    /// `--time`: seconds into every clip named.
    pub time: f32,
    /// `--blend` layers, in order.
    pub blend: Vec<Spec>,
    /// `--additive` layers, in order.
    pub additive: Vec<Spec>,
}

impl Posing {
    /// `true` when layers pose the model (a blend, or additive layers).
    pub fn is_layered(&self) -> bool {
        !self.blend.is_empty() || !self.additive.is_empty()
    }

    /// What the layers were, for the line that says what was written:
    /// ` (blend idle ×1, run ×1 on bones 10..20; additive aim ×0.5; at 0.3 s)`.
    pub fn describe(&self) -> String {
        let list = |specs: &mut dyn Iterator<Item = &Spec>| {
            let mut out = String::new();
            for (i, s) in specs.enumerate() {
                let sep = if i == 0 { "" } else { ", " };
                let _ = write!(out, "{sep}{} ×{}", s.clip, s.weight);
                if let Some((first, last)) = s.bones {
                    let _ = write!(out, " on bones {first}..{last}");
                }
            }
            out
        };
        let first = self.clip.as_ref().map(|clip| Spec {
            clip: clip.clone(),
            weight: 1.0,
            bones: None,
        });
        let mut parts = Vec::new();
        if first.is_some() || !self.blend.is_empty() {
            parts.push(format!(
                "blend {}",
                list(&mut first.iter().chain(&self.blend))
            ));
        }
        if !self.additive.is_empty() {
            parts.push(format!("additive {}", list(&mut self.additive.iter())));
        }
        format!(" ({}; at {} s)", parts.join("; "), self.time)
    }
}

/// The pose `posing`'s layers give `model` (`path` names it in errors): every `--blend`
/// layer (after `--clip` at weight 1, if given) sampled at `--time`, blended with weights
/// normalised per bone (a bone no layer plays holds the bind pose), then each `--additive`
/// layer's difference from its clip's first frame added with its weight.
pub fn pose(path: &Path, model: &Model<'_>, posing: &Posing) -> Result<LocalPose, String> {
    let bones = model.num_bones();
    if bones == 0 {
        return Err(format!(
            "{}: --blend and --additive pose bones, and this {} model has none",
            path.display(),
            model.format().name()
        ));
    }
    let clip = |name: &str| {
        model
            .clip(name)
            .cloned()
            .ok_or_else(|| crate::export::no_clip(path, model.clips(), name))
    };
    let mask = |spec: &Spec| match spec.bones {
        Some((first, last)) if last >= bones => Err(format!(
            "{}: {}:{}:{first}..{last}: bone {last} does not exist: the bones are 0..{}",
            path.display(),
            spec.clip,
            spec.weight,
            bones - 1
        )),
        Some((first, last)) => Ok(Mask::Range { first, last }),
        None => Ok(Mask::All),
    };
    let sample = |clip: &FrameGroup, out: &mut LocalPose| {
        model
            .sample_clip(clip, posing.time, clip.looped, Interpolation::Nlerp, out)
            .map_err(|e| format!("{}: clip {}: {e}", path.display(), clip.name))
    };
    let mut rest = LocalPose::default();
    model.bind_pose(&mut rest);
    let first = posing.clip.as_ref().map(|name| Spec {
        clip: name.clone(),
        weight: 1.0,
        bones: None,
    });
    let blended: Vec<&Spec> = first.iter().chain(&posing.blend).collect();
    let mut sampled = Vec::with_capacity(blended.len());
    for spec in &blended {
        if spec.weight <= 0.0 {
            return Err(format!(
                "{}: --blend {}:{}: blend weights are positive",
                path.display(),
                spec.clip,
                spec.weight
            ));
        }
        let mut local = LocalPose::default();
        sample(&clip(&spec.clip)?, &mut local)?;
        sampled.push((local, mask(spec)?));
    }
    let mut blender = Blender::default();
    let mut out = LocalPose::default();
    if sampled.is_empty() {
        out.clone_from(&rest);
    } else {
        let layers: Vec<Layer<'_>> = sampled
            .iter()
            .zip(&blended)
            .map(|((local, mask), spec)| Layer::new(local, spec.weight).masked(*mask))
            .collect();
        // No threshold: weights are normalised per bone whatever their sum.
        blender.blend(&rest, &layers, 0.0, &mut out);
    }
    let (mut at, mut reference, mut difference) = (
        LocalPose::default(),
        LocalPose::default(),
        LocalPose::default(),
    );
    for spec in &posing.additive {
        let clip = clip(&spec.clip)?;
        sample(&clip, &mut at)?;
        let start = clip.first as usize;
        model.sample(start, start, 0.0, Interpolation::Nlerp, &mut reference);
        blend::additive_difference(&at, &reference, &mut difference);
        let layer = Layer::new(&difference, spec.weight).masked(mask(spec)?);
        blender.add(&layer, &mut out);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_layer_with_and_without_bones() {
        assert_eq!(
            parse("run:0.5:10..20"),
            Ok(Spec {
                clip: "run".into(),
                weight: 0.5,
                bones: Some((10, 20))
            })
        );
        assert_eq!(
            parse("a:b:1"),
            Ok(Spec {
                clip: "a:b".into(),
                weight: 1.0,
                bones: None
            })
        );
        assert_eq!(parse("run:1:3..=3").map(|s| s.bones), Ok(Some((3, 3))));
    }

    /// A model with 2,000 clips (a frame each) and as many layers: each layer plays the clip
    /// it names, and a name that is no clip's is refused, naming every clip.
    #[test]
    fn layers_find_their_clips_among_thousands() {
        use skelmap_core::synth::{TubeParams, tube};
        let n = 2_000;
        let mut builder = tube(&TubeParams {
            frames: n,
            ..TubeParams::default()
        });
        for (i, frame) in builder.frames.iter_mut().enumerate() {
            frame.name = format!("c{i}x").into_bytes();
        }
        let bytes = builder.write().unwrap();
        let model = Model::from_bytes(&bytes).unwrap();
        assert_eq!(model.clips().len(), n as usize);
        let path = Path::new("tube.dpm");
        let layer = |i: u32| Spec {
            clip: format!("c{i}x"),
            weight: 1.0,
            bones: None,
        };
        let last = Posing {
            blend: vec![layer(n - 1)],
            ..Posing::default()
        };
        let mut expected = LocalPose::default();
        model
            .sample_clip(
                model.clip("c1999x").unwrap(),
                0.0,
                true,
                Interpolation::Nlerp,
                &mut expected,
            )
            .unwrap();
        let posed = pose(path, &model, &last).unwrap();
        for ((q, t), (eq, et)) in posed.bones.iter().zip(&expected.bones) {
            assert!(q.abs_diff_eq(*eq, 1e-6) && t.abs_diff_eq(*et, 1e-6));
        }
        let all = Posing {
            blend: (0..n).rev().map(layer).collect(),
            additive: vec![layer(0)],
            ..Posing::default()
        };
        assert!(pose(path, &model, &all).is_ok());
        let missing = Posing {
            blend: vec![layer(5), layer(n)],
            ..Posing::default()
        };
        let names: Vec<String> = (0..n).map(|i| format!("c{i}x")).collect();
        assert_eq!(
            pose(path, &model, &missing).err(),
            Some(format!(
                "tube.dpm: no clip named \"c2000x\"; its clips are {}",
                names.join(", ")
            ))
        );
    }

    #[test]
    fn refuses_what_is_not_a_layer() {
        for text in [
            "run",
            ":1",
            "run:x",
            "run:inf",
            "run:1:5..2",
            "run:1:a..3",
            "1..2",
        ] {
            assert!(parse(text).is_err(), "{text}");
        }
    }
}
