//! Animations sampled to frames: joint keys per frame, and morph weights per frame.

use std::collections::HashMap;

use glam::{Quat, Vec3};
use gltf::json::accessor::Type;
use gltf::json::animation::{Interpolation, Property};
use gltf::json::validation::Checked;
use skelmap_core::asset::{Clip, ClipKeys, JointKey, MAX_CLIP_KEYS};

use super::access::{Doc, Finite, Norm};
use super::error::{Error, Result};
use super::nodes::{Rig, Tree};
use super::{
    FALLBACK_FPS, MAX_DEFAULT_FPS, MAX_FRAMES_PER_CLIP, MAX_MORPH_VALUES, MAX_SAMPLES,
    MIN_DEFAULT_FPS,
};

/// Per node, whether a translation, rotation or scale channel animates it; checks every
/// channel's sampler and node.
pub(crate) fn animated_nodes(doc: &Doc<'_>) -> Result<Vec<bool>> {
    let n = doc.root.nodes.len();
    let mut animated = vec![false; n];
    for (a, animation) in doc.root.animations.iter().enumerate() {
        for (c, channel) in animation.channels.iter().enumerate() {
            let error = |field, problem| Error::Channel {
                animation: a,
                channel: c,
                field,
                problem,
            };
            let s = channel.sampler.value();
            if s >= animation.samplers.len() {
                return Err(error(
                    "sampler",
                    format!(
                        "sampler {s} does not exist ({} samplers)",
                        animation.samplers.len()
                    ),
                ));
            }
            let node = channel.target.node.value();
            if node >= n {
                return Err(error(
                    "target.node",
                    format!("node {node} does not exist ({n} nodes)"),
                ));
            }
            if matches!(
                channel.target.path,
                Checked::Valid(Property::Translation | Property::Rotation | Property::Scale)
            ) {
                animated[node] = true;
            }
        }
    }
    Ok(animated)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Interp {
    Step,
    Linear,
    Cubic,
}

/// One decoded sampler.
struct Curve {
    times: Vec<f32>,
    /// Per key (`3` per key for cubic splines: in-tangent, value, out-tangent), `width`
    /// values.
    values: Vec<f32>,
    width: usize,
    interp: Interp,
}

impl Curve {
    fn decode(
        doc: &mut Doc<'_>,
        a: usize,
        s: usize,
        types: &[Type],
        width: usize,
    ) -> Result<Curve> {
        let error = |field, problem| Error::Sampler {
            animation: a,
            sampler: s,
            field,
            problem,
        };
        let (input, output, interpolation) = {
            let sampler = &doc.root.animations[a].samplers[s];
            (
                sampler.input.value(),
                sampler.output.value(),
                sampler.interpolation,
            )
        };
        let interp = match interpolation {
            Checked::Valid(Interpolation::Step) => Interp::Step,
            Checked::Valid(Interpolation::Linear) => Interp::Linear,
            Checked::Valid(Interpolation::CubicSpline) => Interp::Cubic,
            Checked::Invalid => {
                return Err(error("interpolation", "not a glTF interpolation".into()));
            }
        };
        let times = doc
            .floats(
                input,
                "animation input",
                &[Type::Scalar],
                Norm::Flag,
                Finite::Refuse,
            )?
            .values;
        if times.is_empty() {
            return Err(error("input", "no keys".into()));
        }
        if let Some(k) = times.windows(2).position(|w| w[1] < w[0]) {
            return Err(error(
                "input",
                format!(
                    "key {} at {} s comes before key {k} at {} s",
                    k + 1,
                    times[k + 1],
                    times[k]
                ),
            ));
        }
        let values = doc
            .floats(
                output,
                "animation output",
                types,
                Norm::Flag,
                Finite::Refuse,
            )?
            .values;
        let per = if interp == Interp::Cubic { 3 } else { 1 };
        let want = times.len() * per * width;
        if values.len() != want {
            return Err(error(
                "output",
                format!(
                    "{} values; {} keys of {width} need {want}",
                    values.len(),
                    times.len()
                ),
            ));
        }
        Ok(Curve {
            times,
            values,
            width,
            interp,
        })
    }

    fn first(&self) -> f32 {
        self.times.first().copied().unwrap_or(0.0)
    }

    fn last(&self) -> f32 {
        self.times.last().copied().unwrap_or(0.0)
    }

    /// The value of key `k` (`part` 0: in-tangent, 1: value, 2: out-tangent of a cubic).
    fn at(&self, k: usize, part: usize) -> &[f32] {
        let index = if self.interp == Interp::Cubic {
            3 * k + part
        } else {
            k
        };
        self.values
            .get(index * self.width..(index + 1) * self.width)
            .unwrap_or_default()
    }

    /// The curve at time `t` into `out` (`width` values); `rotation` interpolates
    /// quaternions on the sphere and normalises.
    fn sample(&self, t: f32, rotation: bool, out: &mut Vec<f32>) {
        out.clear();
        let n = self.times.len();
        let next = self.times.partition_point(|&x| x <= t);
        if next == 0 || next >= n || self.interp == Interp::Step {
            let k = next.saturating_sub(1).min(n.saturating_sub(1));
            out.extend_from_slice(self.at(k, 1));
        } else {
            let k = next - 1;
            let dt = self.times[next] - self.times[k];
            let u = if dt > 0.0 {
                ((t - self.times[k]) / dt).clamp(0.0, 1.0)
            } else {
                0.0
            };
            let (p0, p1) = (self.at(k, 1), self.at(next, 1));
            match self.interp {
                Interp::Linear if rotation => {
                    let q0 = quat(p0);
                    let q1 = quat(p1);
                    out.extend_from_slice(&q0.slerp(q1, u).to_array());
                }
                Interp::Linear => out.extend(p0.iter().zip(p1).map(|(a, b)| a + (b - a) * u)),
                _ => {
                    let (m0, m1) = (self.at(k, 2), self.at(next, 0));
                    let (u2, u3) = (u * u, u * u * u);
                    let h00 = 2.0 * u3 - 3.0 * u2 + 1.0;
                    let h10 = u3 - 2.0 * u2 + u;
                    let h01 = -2.0 * u3 + 3.0 * u2;
                    let h11 = u3 - u2;
                    out.extend((0..self.width).map(|i| {
                        let g = |v: &[f32]| v.get(i).copied().unwrap_or(0.0);
                        h00 * g(p0) + h10 * dt * g(m0) + h01 * g(p1) + h11 * dt * g(m1)
                    }));
                }
            }
        }
        if rotation {
            let q = quat(out).normalize();
            out.clear();
            let q = if q.is_finite() { q } else { Quat::IDENTITY };
            out.extend_from_slice(&q.to_array());
        }
        out.iter_mut()
            .filter(|v| !v.is_finite())
            .for_each(|v| *v = 0.0);
    }
}

fn quat(v: &[f32]) -> Quat {
    let g = |i: usize| v.get(i).copied().unwrap_or(0.0);
    let q = Quat::from_xyzw(g(0), g(1), g(2), g(3));
    if q.length_squared() > 1e-12 {
        q.normalize()
    } else {
        Quat::IDENTITY
    }
}

/// The rate of a clip whose keys fall at `times` (every channel's, merged): see
/// [`Options::fps`](super::Options::fps).
pub(crate) fn default_fps(times: &mut [f32]) -> f32 {
    times.sort_by(f32::total_cmp);
    let gaps: Vec<f64> = times
        .windows(2)
        .map(|w| f64::from(w[1]) - f64::from(w[0]))
        .filter(|&g| g > 1e-6)
        .collect();
    let (Some(lo), Some(hi)) = (
        gaps.iter().copied().reduce(f64::min),
        gaps.iter().copied().reduce(f64::max),
    ) else {
        return FALLBACK_FPS;
    };
    let fps = if hi - lo <= 0.01 * lo {
        // Evenly spaced: their own rate, from the whole span.
        let span = f64::from(times[times.len() - 1]) - f64::from(times[0]);
        gaps.len() as f64 / span
    } else {
        1.0 / lo
    };
    let fps = fps.clamp(f64::from(MIN_DEFAULT_FPS), f64::from(MAX_DEFAULT_FPS));
    let rounded = fps.round();
    (if (fps - rounded).abs() < 1e-3 {
        rounded
    } else {
        fps
    }) as f32
}

/// A mesh instance with morph targets, which weights channels can animate.
pub(crate) struct MorphNode {
    pub node: usize,
    pub targets: usize,
    pub default: Vec<f32>,
}

/// The clips, and for each morph frame (the frames of morph clips, in order) the weights of
/// every morph node.
pub(crate) struct Animations {
    pub clips: Vec<Clip>,
    pub morph_frames: Vec<Vec<Vec<f32>>>,
}

enum Target {
    Joint { joint: usize, path: Property },
    Weights { morph: usize },
}

/// Samples every animation (see the module documentation of [`gltf`](super)).
pub(crate) fn animations(
    doc: &mut Doc<'_>,
    tree: &Tree,
    rig: &Rig,
    morphs: &[MorphNode],
    fps: Option<f32>,
    morph_vertices: u64,
) -> Result<Animations> {
    let joints = rig.nodes.len();
    let mut clips = Vec::new();
    let mut morph_frames: Vec<Vec<Vec<f32>>> = Vec::new();
    let mut first = 0u64;
    let mut joint_keys = 0u64;
    let mut weights_sampled = 0u64;
    // Each morph node's index, found once for every channel of every animation.
    let mut morph_of = HashMap::with_capacity(morphs.len());
    for (k, m) in morphs.iter().enumerate() {
        morph_of.entry(m.node).or_insert(k);
    }
    for a in 0..doc.root.animations.len() {
        let curves = curves(doc, a, rig, (morphs, &morph_of))?;
        if curves.is_empty() {
            continue;
        }
        let timing = Timing::of(&curves, fps)?;
        let frames = timing.frames;
        let name = doc.root.animations[a]
            .name
            .clone()
            .unwrap_or_else(|| format!("animation {a}"));
        let clip = |first: u64, keys| Clip {
            name: name.clone(),
            first: u32::try_from(first).unwrap_or(u32::MAX),
            fps: timing.rate,
            looped: true,
            keys,
        };
        if curves
            .iter()
            .any(|(t, _)| matches!(t, Target::Joint { .. }))
        {
            joint_keys += frames as u64 * joints as u64;
            if joint_keys > MAX_CLIP_KEYS {
                return Err(Error::Limit {
                    what: "joint keys (frames × joints)",
                    found: joint_keys,
                    limit: MAX_CLIP_KEYS,
                });
            }
            let keys = joint_frames(&curves, &timing, tree, rig);
            clips.push(clip(first, ClipKeys::Joints(keys)));
            first += frames as u64;
        }
        if curves
            .iter()
            .any(|(t, _)| matches!(t, Target::Weights { .. }))
        {
            let values = (morph_frames.len() + frames) as u64
                * (morph_vertices * 6 + morphs.iter().map(|m| m.targets as u64).sum::<u64>());
            if values > MAX_MORPH_VALUES {
                return Err(Error::Limit {
                    what: "morph target values (frames × vertices)",
                    found: values,
                    limit: MAX_MORPH_VALUES,
                });
            }
            // A weights channel sets every target of its node at each frame, and several
            // channels may drive one node.
            let widths: u64 = curves
                .iter()
                .filter(|(t, _)| matches!(t, Target::Weights { .. }))
                .map(|(_, c)| c.width as u64)
                .sum();
            weights_sampled += frames as u64 * widths;
            if weights_sampled > MAX_MORPH_VALUES {
                return Err(Error::Limit {
                    what: "morph weights sampled (frames × weights channels × targets)",
                    found: weights_sampled,
                    limit: MAX_MORPH_VALUES,
                });
            }
            let start = morph_frames.len() as u32;
            morph_frames.extend(weight_frames(&curves, &timing, morphs));
            let keys = ClipKeys::Morph((start..start + frames as u32).collect());
            clips.push(clip(first, keys));
            first += frames as u64;
        }
    }
    Ok(Animations {
        clips,
        morph_frames,
    })
}

/// Animation `a`'s channels that drive a joint's transform or a morph node's weights, each
/// with its decoded sampler; channels of other nodes and unknown paths are left out.
fn curves(
    doc: &mut Doc<'_>,
    a: usize,
    rig: &Rig,
    (morphs, morph_of): (&[MorphNode], &HashMap<usize, usize>),
) -> Result<Vec<(Target, Curve)>> {
    let mut curves: Vec<(Target, Curve)> = Vec::new();
    let channels: Vec<(usize, usize, Checked<Property>)> = doc.root.animations[a]
        .channels
        .iter()
        .map(|c| (c.sampler.value(), c.target.node.value(), c.target.path))
        .collect();
    for (s, node, path) in channels {
        let target = match path {
            Checked::Valid(p @ (Property::Translation | Property::Rotation | Property::Scale)) => {
                match rig.joint_of.get(node).copied().flatten() {
                    Some(j) => Target::Joint {
                        joint: usize::from(j),
                        path: p,
                    },
                    None => continue,
                }
            }
            Checked::Valid(Property::MorphTargetWeights) => match morph_of.get(&node).copied() {
                Some(morph) => Target::Weights { morph },
                None => continue,
            },
            Checked::Invalid => continue,
        };
        let (types, width): (&[Type], usize) = match &target {
            Target::Joint {
                path: Property::Rotation,
                ..
            } => (&[Type::Vec4], 4),
            Target::Joint { .. } => (&[Type::Vec3], 3),
            Target::Weights { morph } => (&[Type::Scalar], morphs[*morph].targets),
        };
        let curve = Curve::decode(doc, a, s, types, width)?;
        curves.push((target, curve));
    }
    Ok(curves)
}

/// When a clip's frames fall: from its curves' first key to their last, at `rate`.
struct Timing {
    t0: f32,
    t1: f32,
    rate: f32,
    frames: usize,
}

impl Timing {
    /// The frames of `curves` at `fps`, or at the rate their keys suggest
    /// ([`default_fps`]); refused past [`MAX_FRAMES_PER_CLIP`] frames or [`MAX_SAMPLES`]
    /// samples.
    fn of(curves: &[(Target, Curve)], fps: Option<f32>) -> Result<Timing> {
        let t0 = curves
            .iter()
            .map(|(_, c)| c.first())
            .fold(f32::INFINITY, f32::min);
        let t1 = curves
            .iter()
            .map(|(_, c)| c.last())
            .fold(f32::NEG_INFINITY, f32::max);
        let rate = match fps {
            Some(f) => f,
            None => {
                let mut times: Vec<f32> = curves
                    .iter()
                    .flat_map(|(_, c)| c.times.iter().copied())
                    .collect();
                default_fps(&mut times)
            }
        };
        let span = (f64::from(t1) - f64::from(t0)) * f64::from(rate);
        let frames_f = if span > 0.0 {
            (span - 1e-3).ceil().max(0.0) + 1.0
        } else {
            1.0
        };
        if frames_f > MAX_FRAMES_PER_CLIP as f64 {
            return Err(Error::Limit {
                what: "frames in one clip",
                found: frames_f.min(u64::MAX as f64) as u64,
                limit: MAX_FRAMES_PER_CLIP,
            });
        }
        let frames = frames_f as usize;
        let samples = frames as u64 * curves.len() as u64;
        if samples > MAX_SAMPLES {
            return Err(Error::Limit {
                what: "samples in one clip (frames × channels)",
                found: samples,
                limit: MAX_SAMPLES,
            });
        }
        Ok(Timing {
            t0,
            t1,
            rate,
            frames,
        })
    }

    /// The time of frame `f`, at most the last key's.
    fn time(&self, f: usize) -> f32 {
        (f64::from(self.t0) + f as f64 / f64::from(self.rate)).min(f64::from(self.t1)) as f32
    }
}

/// Every frame's joint keys: the rest pose, with each joint channel's sample at the frame's
/// time, folded as the rig folds the nodes above a root joint.
fn joint_frames(
    curves: &[(Target, Curve)],
    timing: &Timing,
    tree: &Tree,
    rig: &Rig,
) -> Vec<Vec<JointKey>> {
    let rest: Vec<JointKey> = rig
        .nodes
        .iter()
        .map(|&node| {
            let r = tree.rest[node];
            JointKey {
                rotation: r.r,
                translation: r.t,
                scale: r.s,
            }
        })
        .collect();
    let mut buffer = Vec::new();
    let mut keys = Vec::with_capacity(timing.frames);
    for f in 0..timing.frames {
        let t = timing.time(f);
        let mut frame = rest.clone();
        for (target, curve) in curves {
            let Target::Joint { joint, path } = target else {
                continue;
            };
            let rotation = *path == Property::Rotation;
            curve.sample(t, rotation, &mut buffer);
            let Some(key) = frame.get_mut(*joint) else {
                continue;
            };
            let v3 = || Vec3::new(buffer[0], buffer[1], buffer[2]);
            match path {
                Property::Translation if buffer.len() >= 3 => key.translation = v3(),
                Property::Scale if buffer.len() >= 3 => key.scale = v3(),
                Property::Rotation => key.rotation = quat(&buffer),
                _ => {}
            }
        }
        for (key, fold) in frame.iter_mut().zip(&rig.fold) {
            let trs = super::nodes::Trs {
                t: key.translation,
                r: key.rotation,
                s: key.scale,
            }
            .folded(fold);
            *key = JointKey {
                rotation: trs.r,
                translation: trs.t,
                scale: trs.s,
            };
        }
        keys.push(frame);
    }
    keys
}

/// Every frame's weights of every morph node: its default weights, replaced where a channel
/// drives it by the channel's sample at the frame's time.
fn weight_frames(
    curves: &[(Target, Curve)],
    timing: &Timing,
    morphs: &[MorphNode],
) -> Vec<Vec<Vec<f32>>> {
    let mut buffer = Vec::new();
    (0..timing.frames)
        .map(|f| {
            let t = timing.time(f);
            let mut weights: Vec<Vec<f32>> = morphs.iter().map(|m| m.default.clone()).collect();
            for (target, curve) in curves {
                if let Target::Weights { morph } = target {
                    curve.sample(t, false, &mut buffer);
                    if let Some(w) = weights.get_mut(*morph) {
                        w.clone_from(&buffer);
                    }
                }
            }
            weights
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_rate_of_even_and_uneven_keys() {
        let mut even: Vec<f32> = (0..9).map(|k| k as f32 / 15.0).collect();
        assert_eq!(default_fps(&mut even), 15.0);
        // Uneven: the smallest gap, 0.01 s, capped at 120.
        assert_eq!(default_fps(&mut [0.0, 0.5, 0.51, 2.0]), 100.0);
        assert_eq!(default_fps(&mut [0.0, 0.5, 0.501]), MAX_DEFAULT_FPS);
        assert_eq!(default_fps(&mut [1.0]), FALLBACK_FPS);
        assert_eq!(default_fps(&mut [0.0, 10.0]), 1.0);
        assert_eq!(default_fps(&mut [0.0, 100.0]), MIN_DEFAULT_FPS);
    }
}
