//! The block of sixteen bones' quantised channels that
//! [`ChannelLayout`](super::ChannelLayout) resolves and both its decodes read (the scalar one
//! in `channels.rs`, the AVX-512 one in `x86/channels.rs`): on its own so that the layout, the
//! dispatch in `lanes.rs` and the kernel all import it and none imports another in a loop.

/// Channels per bone: translation `x y z`, rotation `x y z w`, scale `x y z`.
pub const NUM_CHANNELS: usize = 10;

/// Bones per block.
pub(crate) const LANES: usize = 16;

/// Sixteen bones' channels, lane by lane (see [`ChannelLayout`](super::ChannelLayout)).
#[derive(Debug, Clone, Copy, PartialEq)]
#[repr(C, align(64))]
pub(crate) struct Block {
    /// Per channel and lane, the index in a frame of the value it reads (0 where it reads
    /// none).
    pub(crate) index: [[u32; LANES]; NUM_CHANNELS],
    /// Per channel and lane, where in the frame's bytes the four bytes holding that value
    /// start: at the value (`2 · index`), or for a frame's last value two bytes before it, so
    /// that no read passes the frame's end (0 where it reads none).
    pub(crate) byte: [[u32; LANES]; NUM_CHANNELS],
    /// Per channel and lane, how far the value lies in those four bytes' little-endian word:
    /// 0 or 16 bits.
    pub(crate) shift: [[u32; LANES]; NUM_CHANNELS],
    /// Per channel and lane, the offset.
    pub(crate) offset: [[f32; LANES]; NUM_CHANNELS],
    /// Per channel and lane, the scale (0 where it reads none).
    pub(crate) scale: [[f32; LANES]; NUM_CHANNELS],
    /// Per channel, the lanes that read a value.
    pub(crate) reads: [u16; NUM_CHANNELS],
    /// One past the last byte any lane reads (`byte + 4` at most; 0 where none reads): a
    /// frame at least this long holds every word the block gathers, checked once per frame
    /// instead of lane by lane.
    pub(crate) reads_end: u32,
    /// The first value any lane reads, and how many values from it to the last one read (0
    /// where none reads): a block whose values span at most 128 picks them by permutes from
    /// four registers loaded at `window`, instead of gathering them.
    pub(crate) window: u32,
    pub(crate) span: u32,
}

/// Where a block's decoded bones go: appended to `out` (`to` empty), or lane `l`'s written
/// at `out[to[l]]` (`out` sized already; an index past its end is dropped).
pub(crate) struct Placed<'a, T> {
    pub(crate) out: &'a mut Vec<T>,
    pub(crate) to: &'a [u32],
}

impl<T> Placed<'_, T> {
    /// Puts lane `lane`'s item (the lanes in order, when appending).
    #[inline]
    pub(crate) fn set(&mut self, lane: usize, item: T) {
        if self.to.is_empty() {
            self.out.push(item);
        } else if let Some(slot) = (self.to.get(lane)).and_then(|&to| self.out.get_mut(to as usize))
        {
            *slot = item;
        }
    }
}

impl Default for Block {
    fn default() -> Self {
        Block {
            index: [[0; LANES]; NUM_CHANNELS],
            byte: [[0; LANES]; NUM_CHANNELS],
            shift: [[0; LANES]; NUM_CHANNELS],
            offset: [[0.0; LANES]; NUM_CHANNELS],
            scale: [[0.0; LANES]; NUM_CHANNELS],
            reads: [0; NUM_CHANNELS],
            reads_end: 0,
            window: 0,
            span: 0,
        }
    }
}
