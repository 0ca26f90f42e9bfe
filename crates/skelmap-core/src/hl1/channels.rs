//! A sequence's animation channels resolved once, for sampling: which of each bone's six
//! channels are animated and where their runs start, and the value every other channel
//! keeps. Decoding a frame then walks the animated channels' runs and nothing else.
//!
//! A sequence's records say per bone and channel whether it is animated (a non-zero offset)
//! and where; the bone says its default value and scale; the sequence zeroes its motion
//! bone's position components. None of it changes between frames, and on the shared models
//! finding it again on every sample (a branch per channel on what it is) cost more than
//! walking the runs. [`Pair`](super::Pair) resolves a sequence the first time one of its
//! frames is decoded and keeps it.

use super::raw;
use crate::read::slice_in;

/// Per frame, six channels (position x, y, z, then roll, pitch, yaw) as rows of sixteen
/// bones: what a frame's rotations are made from sixteen at a time.
pub(super) type ChannelRows = [[f32; 16]; 6];

/// One animated channel: where its runs start and how its decoded value becomes the
/// channel's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Channel {
    /// Offset of its first run in the group's bytes.
    pub(super) at: usize,
    /// Its row (0–5).
    pub(super) row: u8,
    /// Its bone's lane in the bone's chunk of sixteen.
    pub(super) lane: u8,
    /// The bone's default value for the channel.
    pub(super) value: f32,
    /// The bone's scale for the channel.
    pub(super) scale: f32,
}

/// One sequence's channels (its first blend), resolved for every bone.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct SequenceChannels {
    /// Per chunk of sixteen bones, each channel's value where it is not animated: the bone's
    /// default, or 0 for a position component the sequence zeroes (animated or not).
    pub(super) rest: Vec<ChannelRows>,
    /// Per chunk, the lanes whose bone record lies in the group's bytes (bit `lane`).
    pub(super) present: Vec<u16>,
    /// The animated channels, chunk after chunk.
    pub(super) channels: Vec<Channel>,
    /// Chunk `c`'s channels are `channels[ends[c - 1]..ends[c]]` (from 0 for the first).
    pub(super) ends: Vec<usize>,
    /// For a skeleton of at most eight bones, whose frames are decoded several to a set of
    /// rows: `rest` and `present` of its one chunk repeated every `bones` lanes.
    pub(super) tiled: Option<(ChannelRows, u16)>,
}

impl SequenceChannels {
    /// The channels of sequence `s` (blend 0) over `bones`, its records at `first` in the
    /// group's bytes `data`; `zeroed(bone)` the position components the sequence zeroes on
    /// `bone`.
    pub(super) fn new(
        data: &[u8],
        first: usize,
        bones: &[raw::Bone],
        zeroed: impl Fn(usize) -> [bool; 3],
    ) -> SequenceChannels {
        let chunks = bones.len().div_ceil(16);
        let mut out = SequenceChannels {
            rest: vec![[[0.0; 16]; 6]; chunks],
            present: vec![0; chunks],
            channels: Vec::new(),
            ends: Vec::with_capacity(chunks),
            tiled: None,
        };
        for (bone, b) in bones.iter().enumerate() {
            let (chunk, lane) = (bone / 16, bone % 16);
            let [x, y, z] = zeroed(bone);
            let zeroed = [x, y, z, false, false, false];
            let record = first.saturating_add(12 * bone);
            if let Some(anim) = slice_in::<raw::Anim>(data, record as u64, 1).and_then(<[_]>::first)
            {
                out.present[chunk] |= 1 << lane;
                for (j, zeroed) in zeroed.into_iter().enumerate() {
                    let rest = &mut out.rest[chunk][j][lane];
                    let (value, scale) = (b.value[j].get(), b.scale[j].get());
                    let offset = usize::from(anim.offset[j].get());
                    if zeroed {
                        *rest = 0.0;
                    } else if offset == 0 {
                        *rest = value;
                    } else {
                        // The record is in `data`: `record + offset` cannot overflow.
                        out.channels.push(Channel {
                            at: record + offset,
                            row: j as u8,
                            lane: lane as u8,
                            value,
                            scale,
                        });
                    }
                }
            }
            if lane == 15 || bone + 1 == bones.len() {
                out.ends.push(out.channels.len());
            }
        }
        if (1..=8).contains(&bones.len())
            && let (Some(rest), Some(&present)) = (out.rest.first(), out.present.first())
        {
            let mut tiled = ([[0.0; 16]; 6], 0u16);
            for lane in 0..16 {
                let from = lane % bones.len();
                for (to, rest) in tiled.0.iter_mut().zip(rest) {
                    to[lane] = rest[from];
                }
                tiled.1 |= (present >> from & 1) << lane;
            }
            out.tiled = Some(tiled);
        }
        out
    }

    /// Chunk `c`'s animated channels (none past the last chunk).
    pub(super) fn chunk(&self, c: usize) -> &[Channel] {
        let start = c
            .checked_sub(1)
            .map_or(Some(0), |p| self.ends.get(p).copied());
        let end = self.ends.get(c).copied();
        start
            .zip(end)
            .and_then(|(start, end)| self.channels.get(start..end))
            .unwrap_or(&[])
    }
}
