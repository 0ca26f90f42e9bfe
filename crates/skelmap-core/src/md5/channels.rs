//! The pre-release animation layout (`MD5Version 6`, `numchannels`): one curve of keys per
//! joint and attribute (`x`, `y`, `z`, `pitch`, `yaw`, `roll`), decoded at open into the
//! same [`Anim`] a version 10 animation gives (`docs/formats/md5.md`, § The pre-release
//! animation).
//!
//! Channel `i` of joint `j` and attribute `a` holds, over its `range a b`, `keys` values for
//! frames `a` to `b − 1`: the frames before `a` hold its first key, those from `b` on its
//! last. The animation has as many frames as the largest `b`. `x`, `y` and `z` are the
//! joint's translation relative to its parent; `yaw`, `pitch` and `roll` its rotation in
//! degrees, `Rz(yaw) · Ry(pitch) · Rx(roll)`. The two pseudo-joints `boundsMin` and
//! `boundsMax` give each frame's box. The layout names joints, not their parents: played on
//! a mesh, the animation takes the mesh's joints, in the mesh's order, each found by name;
//! read alone, its joints are roots in the order their first channels name them.

use std::collections::HashMap;

use glam::{Quat, Vec3, Vec3A};

use super::lex::{Head, Lexer, Span};
use super::raw::{ANIM_ALL, JointAnimInfo};
use super::validate::{Header, count, entry_head, poses_within, unread_rest};
use super::view::{Anim, MeshFile};
use crate::diag::{Diagnostics, WarningKind};
use crate::error::{Error, Problem, Result};
use crate::format::Format;
use crate::limits::Limits;

const FORMAT: Format = Format::Md5;

/// The attributes a channel animates, in the order a joint's values are kept.
const ATTRIBUTES: [&[u8]; 6] = [b"x", b"y", b"z", b"pitch", b"yaw", b"roll"];

/// What an attribute must be, and what each joint needs, in errors.
const ONE_OF: &str = "x, y, z, pitch, yaw or roll";
const ALL_SIX: &str = "a channel of each of x, y, z, pitch, yaw and roll for the joint";
const A_JOINT: &str = "a channel of a joint other than boundsMin and boundsMax";

/// The pseudo-joints whose `x`, `y` and `z` channels give each frame's box.
const BOUNDS: [&[u8]; 2] = [b"boundsMin", b"boundsMax"];

/// Fewer bytes of text than any channel takes: `channel 0{joint""attribute""starttime 0
/// endtime 0 framerate 0 strings 0 range 0 1 keys 1 0}` is 91 (its attribute is one letter
/// more).
const MIN_CHANNEL: u64 = 91;

/// One channel as read: its joint's name, attribute, range and where its keys start.
struct Channel {
    joint: Span,
    attribute: usize,
    first: u32,
    keys: std::ops::Range<usize>,
}

impl<'data> Anim<'data> {
    /// Reads the rest of an animation in the pre-release layout (the module's description)
    /// after its `header`: with `mesh`, its joints are the mesh's, found by name; without,
    /// the animation's own, each a root.
    ///
    /// # Errors
    ///
    /// The text's errors as for version 10 ([`Error::Text`] naming the field, line and
    /// column); [`Problem::Expected`] for an attribute other than the six and for a joint
    /// that lacks one of them (at its first channel), and for channels of the boxes alone;
    /// [`Problem::DuplicateName`] for a second channel of one joint and attribute (the
    /// numbers are the two channels'); [`Problem::Mismatch`] for `keys` other than
    /// `b − a` or for `strings` other than 0 (no file is known to have them);
    /// [`Problem::BelowMinimum`] for a range that ends where it starts or before;
    /// [`Problem::JointMismatch`] for a mesh joint without channels or a joint the mesh
    /// lacks; [`Error::Limit`] past [`Limits`].
    pub(crate) fn parse_channels(
        mut lex: Lexer<'data>,
        header: Header,
        limits: &Limits,
        diag: &mut Diagnostics,
        mesh: Option<&MeshFile<'_>>,
    ) -> Result<Self> {
        let data = lex.text();
        let channels_at = lex.next_offset()?;
        let most = (u64::from(limits.max_bones) + 2) * 6;
        let n = count(
            &mut lex,
            "numchannels",
            "header.numchannels",
            1,
            most,
            MIN_CHANNEL,
        )?;
        let mut channels = Vec::with_capacity(n);
        let mut keys: Vec<f32> = Vec::new();
        let mut head = Head::new("channel");
        let mut frame_rate = None;
        for _ in 0..n {
            entry_head(
                &mut lex,
                &mut head,
                ("header.numchannels", "channel.index"),
                n,
            )?;
            lex.bracket(b'{', "channel")?;
            lex.keyword("joint", "channel.joint", "joint")?;
            let joint = lex.string("channel.joint")?;
            lex.keyword("attribute", "channel.attribute", "attribute")?;
            let at = lex.next_offset()?;
            let name = lex.string("channel.attribute")?;
            let attribute = (ATTRIBUTES.iter())
                .position(|a| name.of(data).eq_ignore_ascii_case(a))
                .ok_or_else(|| {
                    lex.error(
                        "channel.attribute",
                        at,
                        Problem::Expected { expected: ONE_OF },
                    )
                })?;
            for field in ["starttime", "endtime"] {
                lex.keyword(field, "channel.time", field)?;
                lex.float("channel.time")?;
            }
            lex.keyword("framerate", "channel.framerate", "framerate")?;
            let at = lex.next_offset()?;
            let rate = lex.float("channel.framerate")?;
            if rate < 0.0 {
                let value = rate.into();
                return Err(lex.error("channel.framerate", at, Problem::NotPositive { value }));
            }
            frame_rate.get_or_insert((rate, at));
            lex.keyword("strings", "channel.strings", "strings")?;
            let (strings, at) = lex.integer("channel.strings")?;
            if strings != 0 {
                let value = strings.unsigned_abs();
                let problem = Problem::Mismatch { value, expected: 0 };
                return Err(lex.error("channel.strings", at, problem));
            }
            lex.keyword("range", "channel.range", "range")?;
            let (first, first_at) = lex.integer("channel.range")?;
            let (end, end_at) = lex.integer("channel.range")?;
            let max_frames = u64::from(limits.max_frames);
            let frame = |value: i64, at: u64| match u64::try_from(value) {
                Ok(v) if v <= max_frames => Ok(v as u32),
                Ok(v) => Err(Error::Limit {
                    format: FORMAT,
                    what: "channel.range",
                    offset: at,
                    value: v,
                    max: max_frames,
                }),
                Err(_) => Err(lex.error("channel.range", at, Problem::Negative { value })),
            };
            let (first, end) = (frame(first, first_at)?, frame(end, end_at)?);
            if end <= first {
                let problem = Problem::BelowMinimum {
                    value: end.into(),
                    min: u64::from(first) + 1,
                };
                return Err(lex.error("channel.range", end_at, problem));
            }
            lex.keyword("keys", "channel.keys", "keys")?;
            let (declared, at) = lex.integer("channel.keys")?;
            let expected = u64::from(end - first);
            if u64::try_from(declared) != Ok(expected) {
                let value = declared.unsigned_abs();
                return Err(lex.error("channel.keys", at, Problem::Mismatch { value, expected }));
            }
            // Each key takes two bytes of text at least.
            if expected > lex.remaining() / 2 {
                let max = lex.remaining() / 2;
                let problem = Problem::AboveMaximum {
                    value: expected,
                    max,
                };
                return Err(lex.error("channel.keys", at, problem));
            }
            let start = keys.len();
            for _ in 0..expected {
                if lex.peek()? == Some(b'}') {
                    let at = lex.next_offset()?;
                    let problem = Problem::FewerThanDeclared {
                        declared: expected,
                        found: (keys.len() - start) as u64,
                    };
                    return Err(lex.error("channel.keys", at, problem));
                }
                keys.push(lex.float("channel.keys")?);
            }
            if lex.peek()? != Some(b'}') {
                let at = lex.next_offset()?;
                let problem = Problem::MoreThanDeclared { declared: expected };
                return Err(lex.error("channel.keys", at, problem));
            }
            lex.bracket(b'}', "channel")?;
            channels.push(Channel {
                joint,
                attribute,
                first,
                keys: start..keys.len(),
            });
        }
        unread_rest(&mut lex, diag, "channel");
        let Some((mut frame_rate, rate_at)) = frame_rate else {
            return Err(lex.error("header.numchannels", channels_at, Problem::Empty));
        };
        if frame_rate == 0.0 {
            diag.warn(
                FORMAT,
                WarningKind::FrameRate,
                "channel.framerate",
                rate_at,
                || "framerate is 0; 24 frames a second are used".to_string(),
            );
            frame_rate = 24.0;
        }
        // Each joint's six channels, joints in the order their first channels name them.
        let mut joints: Vec<(Span, [Option<usize>; 6])> = Vec::new();
        let mut boxes: [[Option<usize>; 6]; 2] = [[None; 6]; 2];
        let mut index: HashMap<&[u8], usize> = HashMap::new();
        for (c, channel) in channels.iter().enumerate() {
            let name = channel.joint.of(data);
            let slot = match BOUNDS.iter().position(|b| name == *b) {
                Some(b) => &mut boxes[b][channel.attribute],
                None => {
                    let next = joints.len();
                    let j = *index.entry(name).or_insert(next);
                    if j == next {
                        joints.push((channel.joint, [None; 6]));
                    }
                    &mut joints[j].1[channel.attribute]
                }
            };
            if let Some(first) = slot.replace(c) {
                let problem = Problem::DuplicateName {
                    bone: c as u64,
                    first: first as u64,
                };
                return Err(lex.error("channel.attribute", channel.joint.start.into(), problem));
            }
        }
        if joints.is_empty() {
            let problem = Problem::Expected { expected: A_JOINT };
            return Err(lex.error("header.numchannels", channels_at, problem));
        }
        if let Some((span, _)) = joints.iter().find(|(_, a)| a.contains(&None)) {
            let problem = Problem::Expected { expected: ALL_SIX };
            return Err(lex.error("channel.attribute", span.start.into(), problem));
        }
        // The joints as the mesh orders them, with its parents; or the animation's own.
        let hierarchy: Vec<(usize, JointAnimInfo)> = match mesh {
            Some(mesh) => {
                let names: std::collections::HashSet<&[u8]> =
                    mesh.joints.iter().map(|j| j.name.of(mesh.text)).collect();
                let foreign = (joints.iter().enumerate())
                    .find(|(_, (span, _))| !names.contains(span.of(data)));
                if let Some((joint, (span, _))) = foreign {
                    let problem = Problem::JointMismatch {
                        joint: joint as u64,
                    };
                    return Err(lex.error("channel.joint", span.start.into(), problem));
                }
                let mut out = Vec::with_capacity(mesh.joints.len());
                for (m, joint) in mesh.joints.iter().enumerate() {
                    let name = joint.name.of(mesh.text);
                    let Some(&j) = index.get(name) else {
                        let problem = Problem::JointMismatch { joint: m as u64 };
                        return Err(lex.error("channel.joint", channels_at, problem));
                    };
                    out.push((j, info(joints[j].0, joint.parent, m)));
                }
                out
            }
            None => (joints.iter().enumerate())
                .map(|(j, (span, _))| (j, info(*span, -1, j)))
                .collect(),
        };
        let num_frames = (channels.iter().map(|c| c.first as usize + c.keys.len()))
            .max()
            .unwrap_or(1);
        let what = "channel.range × joints";
        let poses = poses_within(num_frames, hierarchy.len(), what, channels_at)?;
        // Channel `c`'s value at frame `f`: its first key before its range, its last after.
        let value = |c: usize, f: usize| {
            let channel = &channels[c];
            let k = f.saturating_sub(channel.first as usize);
            let last = channel.keys.end - 1;
            keys[(channel.keys.start + k).min(last)]
        };
        let mut anim = Anim {
            text: data,
            commandline: header.commandline,
            frame_rate,
            num_animated_components: (hierarchy.len() * 6) as u32,
            hierarchy: hierarchy.iter().map(|(_, h)| *h).collect(),
            bounds: Vec::with_capacity(num_frames),
            base_frame: Vec::new(),
            poses: Vec::with_capacity(poses as usize),
            skin_scales: Vec::new(),
        };
        for f in 0..num_frames {
            let corner = |b: usize| {
                let c = boxes[b];
                Vec3::new(
                    c[0].map_or(0.0, |c| value(c, f)),
                    c[1].map_or(0.0, |c| value(c, f)),
                    c[2].map_or(0.0, |c| value(c, f)),
                )
            };
            anim.bounds.push([corner(0), corner(1)]);
            for &(j, _) in &hierarchy {
                let [x, y, z, pitch, yaw, roll] =
                    joints[j].1.map(|c| c.map_or(0.0, |c| value(c, f)));
                let rotation = Quat::from_rotation_z(yaw.to_radians())
                    * Quat::from_rotation_y(pitch.to_radians())
                    * Quat::from_rotation_x(roll.to_radians());
                // Kept with `w` not above 0, as version 10's frames keep it.
                let rotation = if rotation.w > 0.0 {
                    -rotation
                } else {
                    rotation
                };
                anim.poses.push((rotation, Vec3A::new(x, y, z)));
            }
        }
        anim.base_frame = (anim.poses.iter().take(hierarchy.len()))
            .map(|(q, t)| (*t, [q.x, q.y, q.z]))
            .collect();
        Ok(anim)
    }
}

/// A hierarchy entry of a pre-release animation: all six components, six a joint.
fn info(name: Span, parent_num: i32, joint: usize) -> JointAnimInfo {
    JointAnimInfo {
        name,
        parent_num,
        anim_bits: ANIM_ALL,
        first_component: (joint * 6) as u32,
    }
}
