//! Chains of run-length records (Half-Life's animation values), walked many at once.
//!
//! A chain is a walk: each run's header says where the next run starts, so one chain is a
//! sequence of dependent loads. The chains are independent of one another, and the scans
//! walk them side by side (AVX-512: sixteen a register, AVX2: eight), a gather a register and
//! several registers a round, so that their loads overlap instead of waiting on each other.
//! A chain starts at a channel of a record: its offset is read from the records
//! (`mstudioanim_t`, six 16-bit offsets from the record's own start), a zero offset meaning
//! no chain. With AVX-512 the chains of every sequence of a file are queued, and a lane whose
//! chain ends takes the next; with AVX2 the chains of a sequence are packed, their first runs
//! judged eight a register, and the few chains of more than one run walked on one at a time.

use core::arch::x86_64::{
    __m256i, __m512i, _mm_loadu_si128, _mm256_add_epi32, _mm256_and_si256, _mm256_castsi256_ps,
    _mm256_cmpeq_epi32, _mm256_cmpgt_epi32, _mm256_cvtepu16_epi32, _mm256_loadu_si256,
    _mm256_mask_i32gather_epi32, _mm256_movemask_ps, _mm256_or_si256, _mm256_permutevar8x32_epi32,
    _mm256_set1_epi32, _mm256_setr_epi32, _mm256_setzero_si256, _mm256_slli_epi32,
    _mm256_srli_epi32, _mm256_srlv_epi32, _mm256_storeu_si256, _mm256_testz_si256,
    _mm512_add_epi32, _mm512_and_si512, _mm512_cmplt_epu32_mask, _mm512_cvtepu16_epi32,
    _mm512_loadu_si512, _mm512_mask_add_epi32, _mm512_mask_cmple_epu32_mask,
    _mm512_mask_cmplt_epu32_mask, _mm512_mask_expand_epi32, _mm512_mask_i32gather_epi32,
    _mm512_mask_mov_epi32, _mm512_maskz_compress_epi32, _mm512_set1_epi32, _mm512_setzero_si512,
    _mm512_slli_epi32, _mm512_srli_epi32, _mm512_storeu_si512, _mm512_sub_epi32,
    _mm512_test_epi32_mask,
};

use crate::scan::AnimChains;

/// Channels a record has: six 16-bit offsets, twelve bytes.
const CHANNELS: usize = 6;

/// Whether every chain of Half-Life animation-value runs of every entry of `chains` passes
/// (an entry's records at its `base` in `bytes`, one chain a channel whose offset is not 0,
/// from the record's start, walked until its runs cover the entry's `frames`): each run a
/// whole two-byte header `valid, total` with `1 ≤ valid ≤ total`, followed by its `valid`
/// 16-bit values, all within `bytes`. `None` where an entry's records do not lie within
/// `bytes`, where the CPU lacks AVX-512F and AVX2, or where `bytes` is too long for the
/// gathers' signed 32-bit offsets (and the sums past them).
pub(crate) fn try_anim_runs(
    bytes: &[u8],
    chains: impl Iterator<Item = AnimChains> + Clone,
) -> Option<bool> {
    if bytes.len() > MAX_LEN {
        return None;
    }
    for entry in chains.clone() {
        let end = entry
            .records
            .checked_mul(2 * CHANNELS)?
            .checked_add(entry.base)?;
        if end > bytes.len() || entry.frames > MAX_LEN as u32 {
            return None;
        }
    }
    if is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("popcnt") {
        // SAFETY: the CPU was just found to support AVX-512F and POPCNT; `bytes` is short
        // enough and holds every entry's records.
        Some(unsafe { anim_runs(bytes, chains) })
    } else if super::avx2() && is_x86_feature_detected!("popcnt") {
        Some({ chains }.all(|entry| {
            let lanes = Lanes::of(bytes, entry);
            // SAFETY: the CPU was just found to support AVX2 and POPCNT; as above.
            unsafe { anim_runs_avx2(lanes, entry.frames) }
        }))
    } else {
        None
    }
}

/// The longest table, and the most frames, the scans take: an offset, a run's end (at most
/// 512 bytes past it) and a count of frames (at most 255 past `frames`) stay below 2³¹, so
/// signed and unsigned comparisons agree.
const MAX_LEN: usize = 1 << 30;

/// The lanes of a scan: the channels of the records at `base`, `count` of them (six a
/// record), which lie within `bytes` (at most [`MAX_LEN`] long).
#[derive(Clone, Copy)]
struct Lanes<'a> {
    bytes: &'a [u8],
    base: usize,
    count: usize,
}

impl<'a> Lanes<'a> {
    /// The lanes of `entry`'s records in `bytes`.
    fn of(bytes: &'a [u8], entry: AnimChains) -> Self {
        Lanes {
            bytes,
            base: entry.base,
            count: CHANNELS * entry.records,
        }
    }

    /// The offsets of the `N` lanes from `first` (a multiple of 8) as little-endian 16-bit
    /// words, zero past the last lane, and what each lane's record adds to `base`; the
    /// lane's chain starts at `base` plus both.
    #[inline(always)]
    fn offsets<const N: usize>(&self, first: usize) -> ([u8; N], [i32; 16]) {
        let at = self.base + 2 * first;
        let mut words = [0; N];
        match self.bytes.get(at..).and_then(<[u8]>::first_chunk::<N>) {
            Some(whole) if first + N / 2 <= self.count => words = *whole,
            _ => {
                let n = 2 * self.count.saturating_sub(first).min(N / 2);
                words[..n].copy_from_slice(&self.bytes[at..at + n]);
            }
        }
        // Lane `first + j` is channel `(first + j) mod 6` of record `⌊(first + j) / 6⌋`; the
        // pattern repeats every 48 lanes (eight records, 96 bytes).
        let mut record = [0; 16];
        record.copy_from_slice(&RECORD_OF_LANE[first % 48..first % 48 + 16]);
        let whole = (self.base + 96 * (first / 48)) as i32;
        (words, record.map(|r| r + whole))
    }
}

/// `12 · ⌊lane / 6⌋` for 64 lanes: where a lane's record starts, from the records' start (the
/// last 16 read from a start of at most 40).
const RECORD_OF_LANE: [i32; 64] = {
    let mut table = [0; 64];
    let mut lane = 0;
    while lane < 64 {
        table[lane] = 12 * (lane / CHANNELS) as i32;
        lane += 1;
    }
    table
};

/// Chains waiting for a lane, as many as [`anim_runs`] queues at a time.
const QUEUE: usize = 256;

/// The chains of `chains` walked sixteen a register, [`REGISTERS`](anim_runs) registers side
/// by side, each lane stepping one run a round: a round's gathers are independent, so their
/// loads overlap. A lane whose chain ends (its runs cover its entry's frames) takes the next
/// chain waiting, so that the lanes stay busy however unequal the chains are (most of a real
/// model's channels hold one or two runs, a few dozens): the chains' starts (channels whose
/// offset is not 0) are compressed into a queue, [`QUEUE`] at a time, and expanded into the
/// free lanes. A lane reads four bytes at its run (the header and the first value, which a
/// valid run has) and only where those lie within `bytes`; any lane that fails ends the scan.
///
/// # Safety
///
/// The CPU must support AVX-512F and POPCNT, `bytes.len()` must be at most [`MAX_LEN`], and
/// every entry's records must lie within `bytes` with its `frames` at most [`MAX_LEN`].
#[target_feature(enable = "avx512f,popcnt")]
unsafe fn anim_runs(bytes: &[u8], chains: impl Iterator<Item = AnimChains>) -> bool {
    // Six registers' state (position, frames covered, frames to cover) and the constants
    // nearly fill the 32 registers. Where chains are short (real models) four ran as fast
    // (the gathers' loads bound the walk); long ones wait on the gathers' latency.
    const REGISTERS: usize = 6;
    let zero = _mm512_setzero_si512();
    // Every start is below `MAX_LEN + 2¹⁶`, and fits.
    let last = _mm512_set1_epi32(bytes.len().saturating_sub(4) as i32);
    let len = _mm512_set1_epi32(bytes.len() as i32);
    let (one, byte) = (_mm512_set1_epi32(1), _mm512_set1_epi32(0xFF));
    let mut queue = Queue::new(bytes, chains);
    let mut at = [zero; REGISTERS];
    let mut covered = [zero; REGISTERS];
    let mut target = [zero; REGISTERS];
    let mut active = [0u16; REGISTERS];
    // One register's round, written out for each register (`$r` a literal): indexed by a
    // loop counter, the registers' state lived on the stack.
    macro_rules! round {
        ($busy:ident, $r:literal) => {
            let free = !active[$r];
            let refill = if free == 0 {
                None
            } else {
                // SAFETY: this function's CPU has what `next` needs.
                unsafe { queue.next(free.count_ones() as usize) }
            };
            if let Some((starts, targets)) = refill {
                // The free lanes take the next chains in order; a lane past the queue's last
                // takes frames 0 and stays free.
                at[$r] = _mm512_mask_expand_epi32(at[$r], free, starts);
                target[$r] = _mm512_mask_expand_epi32(target[$r], free, targets);
                covered[$r] = _mm512_mask_mov_epi32(covered[$r], free, zero);
                active[$r] = _mm512_cmplt_epu32_mask(covered[$r], target[$r]);
            }
            if active[$r] != 0 {
                $busy = true;
                // Four bytes from `at`, within `bytes`: a run has them, so a lane without
                // fails (and a table shorter than four bytes fails every lane).
                if bytes.len() < 4
                    || _mm512_mask_cmple_epu32_mask(active[$r], at[$r], last) != active[$r]
                {
                    return false;
                }
                // SAFETY: every gathered lane reads `at..at + 4`, and `at ≤ bytes.len() − 4`
                // was just checked for each; `at` is below 2³¹, a nonnegative offset.
                let run = unsafe {
                    _mm512_mask_i32gather_epi32::<1>(
                        zero,
                        active[$r],
                        at[$r],
                        bytes.as_ptr().cast(),
                    )
                };
                let valid = _mm512_and_si512(run, byte);
                let total = _mm512_and_si512(_mm512_srli_epi32::<8>(run), byte);
                // `valid − 1` below `total`, unsigned: 0 wraps to the largest word.
                let counted =
                    _mm512_mask_cmplt_epu32_mask(active[$r], _mm512_sub_epi32(valid, one), total);
                // Past the header and the values: `at + 2 · (valid + 1)`, below 2³¹.
                let end =
                    _mm512_add_epi32(at[$r], _mm512_slli_epi32::<1>(_mm512_add_epi32(valid, one)));
                if _mm512_mask_cmple_epu32_mask(counted, end, len) != active[$r] {
                    return false;
                }
                at[$r] = end;
                covered[$r] = _mm512_mask_add_epi32(covered[$r], active[$r], covered[$r], total);
                active[$r] = _mm512_mask_cmplt_epu32_mask(active[$r], covered[$r], target[$r]);
            }
        };
    }
    loop {
        let mut busy = false;
        round!(busy, 0);
        round!(busy, 1);
        round!(busy, 2);
        round!(busy, 3);
        round!(busy, 4);
        round!(busy, 5);
        // Each round takes every active lane at least one frame on, and a lane is active for
        // at most its entry's frames rounds; the queue ends with the entries.
        if !busy && queue.is_done() {
            return true;
        }
    }
}

/// The chains [`anim_runs`] has yet to give a lane: their starts and frames, [`QUEUE`] at a
/// time, gathered from the entries' records sixteen channels a step.
struct Queue<'a, I> {
    bytes: &'a [u8],
    chains: I,
    /// The entry being queued, its frames and its next lane.
    current: Option<(Lanes<'a>, u32, usize)>,
    /// Where each queued chain starts, and the frames it covers; past `fill`, frames 0.
    starts: [i32; QUEUE + 32],
    targets: [i32; QUEUE + 32],
    head: usize,
    fill: usize,
    done: bool,
}

impl<'a, I: Iterator<Item = AnimChains>> Queue<'a, I> {
    // Inlined, so that the queue is made in place rather than copied there.
    #[inline(always)]
    fn new(bytes: &'a [u8], chains: I) -> Self {
        Queue {
            bytes,
            chains,
            current: None,
            starts: [0; QUEUE + 32],
            targets: [0; QUEUE + 32],
            head: 0,
            fill: 0,
            done: false,
        }
    }

    /// Whether every chain has been given out.
    fn is_done(&self) -> bool {
        self.done
    }

    /// The next sixteen chains (starts and frames, frames 0 past the last), of which up to
    /// `wanted` are taken; `None` once every chain has been given out. Inlined into the walk
    /// (a call would spill its registers, all of which a call may clobber).
    ///
    /// # Safety
    ///
    /// The CPU must support AVX-512F and POPCNT.
    #[inline(always)]
    unsafe fn next(&mut self, wanted: usize) -> Option<(__m512i, __m512i)> {
        if self.done {
            return None;
        }
        if self.head >= self.fill {
            // SAFETY: the caller's CPU supports what `refill` needs.
            unsafe { self.refill() };
            if self.fill == 0 {
                self.done = true;
                return None;
            }
        }
        let head = self.head;
        let starts = &self.starts[head..head + 16];
        let targets = &self.targets[head..head + 16];
        // SAFETY: both slices are sixteen words long; the caller's CPU has AVX-512F.
        let (starts, targets) = unsafe {
            (
                _mm512_loadu_si512(starts.as_ptr().cast()),
                _mm512_loadu_si512(targets.as_ptr().cast()),
            )
        };
        self.head += wanted.min(self.fill - head);
        Some((starts, targets))
    }

    /// Queues the chains of the entries from where the last refill stopped, until the queue
    /// holds at least [`QUEUE`] or the entries end.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX-512F and POPCNT.
    #[target_feature(enable = "avx512f,popcnt")]
    unsafe fn refill(&mut self) {
        let mut fill = 0;
        while fill < QUEUE {
            let Some((lanes, frames, first)) = &mut self.current else {
                match self.chains.next() {
                    // An entry of no frames has no runs to walk.
                    Some(entry) if entry.frames > 0 => {
                        self.current = Some((Lanes::of(self.bytes, entry), entry.frames, 0));
                    }
                    Some(_) => {}
                    None => break,
                }
                continue;
            };
            if *first >= lanes.count {
                self.current = None;
                continue;
            }
            let frames = _mm512_set1_epi32(*frames as i32);
            // Sixteen lanes a step while the queue has room; the records' offsets loaded
            // straight from the bytes while sixteen lanes remain, through `offsets` after.
            while fill < QUEUE && *first < lanes.count {
                let at = lanes.base + 2 * *first;
                let (offsets, record) = match lanes.bytes.get(at..at + 32) {
                    Some(words) if *first + 16 <= lanes.count => {
                        let pattern = &RECORD_OF_LANE[*first % 48..*first % 48 + 16];
                        let whole = (lanes.base + 96 * (*first / 48)) as i32;
                        // SAFETY: both loads read slices of exactly their widths (32 bytes,
                        // sixteen words).
                        unsafe {
                            (
                                _mm512_cvtepu16_epi32(_mm256_loadu_si256(words.as_ptr().cast())),
                                _mm512_add_epi32(
                                    _mm512_loadu_si512(pattern.as_ptr().cast()),
                                    _mm512_set1_epi32(whole),
                                ),
                            )
                        }
                    }
                    _ => {
                        let (words, record) = lanes.offsets::<32>(*first);
                        // SAFETY: both loads read arrays of exactly their widths (32 and 64
                        // bytes).
                        unsafe {
                            (
                                _mm512_cvtepu16_epi32(_mm256_loadu_si256(words.as_ptr().cast())),
                                _mm512_loadu_si512(record.as_ptr().cast::<__m512i>()),
                            )
                        }
                    }
                };
                let some = _mm512_test_epi32_mask(offsets, offsets);
                let starts = _mm512_maskz_compress_epi32(some, _mm512_add_epi32(record, offsets));
                let to = &mut self.starts[fill..fill + 16];
                // SAFETY: `to` is sixteen words long.
                unsafe { _mm512_storeu_si512(to.as_mut_ptr().cast(), starts) };
                let to = &mut self.targets[fill..fill + 16];
                // SAFETY: as above.
                unsafe { _mm512_storeu_si512(to.as_mut_ptr().cast(), frames) };
                fill += some.count_ones() as usize;
                *first += 16;
            }
        }
        let past = &mut self.targets[fill..fill + 16];
        // SAFETY: `past` is sixteen words long.
        unsafe { _mm512_storeu_si512(past.as_mut_ptr().cast(), _mm512_setzero_si512()) };
        (self.head, self.fill) = (0, fill);
    }
}

/// [`anim_runs`] on AVX2, for one entry, in two passes over its chains, since AVX2 has no
/// compress, expand or mask registers to keep lanes busy as [`anim_runs`] does. First the
/// starts of the channels whose offset is not 0 are packed, eight channels a step
/// ([`COMPRESS`]), into a block of [`PACKED`] at a time. Then the packed chains' first runs
/// are gathered eight a register and judged; the few chains whose first run does not cover
/// the frames (most of a real model's channels hold one run) are walked on one at a time
/// ([`walk_on`]). Walking every chain to its end in the registers instead kept a register
/// gathering, for all its eight channels, as long as its longest chain, and most of a real
/// model's channels have no values at all.
///
/// # Safety
///
/// The CPU must support AVX2 and POPCNT, `bytes.len()` must be at most [`MAX_LEN`], and the
/// records of `lanes` must lie within its bytes.
#[target_feature(enable = "avx2,popcnt")]
unsafe fn anim_runs_avx2(lanes: Lanes<'_>, frames: u32) -> bool {
    if frames == 0 {
        return true;
    }
    let mut packed = [0i32; PACKED + 8];
    let mut fill = 0;
    // The shifts that take lane `k`'s nibble of a `COMPRESS` entry to the bottom.
    let nibbles = _mm256_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28);
    // Lane `first`'s record starts `whole + RECORD_OF_LANE[phase]` bytes in, `phase` being
    // `first mod 48` (the pattern repeats every eight records).
    let (mut whole, mut phase) = (lanes.base as i32, 0);
    for first in (0..lanes.count).step_by(8) {
        let (offsets, record) = if first + 8 <= lanes.count {
            // SAFETY: the eight words at `base + 2 · first` are channels of the records,
            // which lie within `bytes`; `phase + 8 ≤ 48` words of the 64-word table.
            unsafe {
                (
                    _mm256_cvtepu16_epi32(_mm_loadu_si128(
                        lanes.bytes.as_ptr().add(lanes.base + 2 * first).cast(),
                    )),
                    _mm256_add_epi32(
                        _mm256_loadu_si256(RECORD_OF_LANE.as_ptr().add(phase).cast()),
                        _mm256_set1_epi32(whole),
                    ),
                )
            }
        } else {
            let (words, record) = lanes.offsets::<16>(first);
            // SAFETY: both loads read arrays at least their widths (16 and 32 bytes).
            unsafe {
                (
                    _mm256_cvtepu16_epi32(_mm_loadu_si128(words.as_ptr().cast())),
                    _mm256_loadu_si256(record.as_ptr().cast::<__m256i>()),
                )
            }
        };
        phase += 8;
        if phase == 48 {
            (whole, phase) = (whole + 96, 0);
        }
        let some = _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(
            offsets,
            _mm256_setzero_si256(),
        ))) as usize;
        let order = compressing(some, nibbles);
        let starts = _mm256_permutevar8x32_epi32(_mm256_add_epi32(record, offsets), order);
        let to = &mut packed[fill..fill + 8];
        // SAFETY: `to` is eight words long.
        unsafe { _mm256_storeu_si256(to.as_mut_ptr().cast(), starts) };
        fill += some.count_ones() as usize;
        if fill >= PACKED {
            // SAFETY: this function's CPU has what `first_runs` needs; as for this one.
            if !unsafe { first_runs(lanes.bytes, &packed[..fill], frames) } {
                return false;
            }
            fill = 0;
        }
    }
    // SAFETY: as above.
    unsafe { first_runs(lanes.bytes, &packed[..fill], frames) }
}

/// Chains [`anim_runs_avx2`] packs before judging them.
const PACKED: usize = 256;

/// For each mask of eight lanes, the lanes whose bit is set, in order, then the others: lane
/// `k` of the result takes the lane in bits `4k..4k + 4`.
const COMPRESS: [u32; 256] = {
    let mut table = [0; 256];
    let mut mask = 0;
    while mask < 256 {
        let (mut code, mut slot, mut lane) = (0u32, 0, 0);
        while lane < 8 {
            if mask & (1 << lane) != 0 {
                code |= lane << (4 * slot);
                slot += 1;
            }
            lane += 1;
        }
        table[mask] = code;
        mask += 1;
    }
    table
};

/// The chains starting at `starts` (each below 2³¹), each walked until its runs cover
/// `frames`: every first run gathered and judged eight a register, then any chain it leaves
/// short walked on by [`walk_on`].
///
/// # Safety
///
/// The CPU must support AVX2 and POPCNT, `bytes.len()` must be at most [`MAX_LEN`], and
/// `starts` at most [`PACKED`] + 8 long.
#[target_feature(enable = "avx2,popcnt")]
unsafe fn first_runs(bytes: &[u8], starts: &[i32], frames: u32) -> bool {
    // Signed: every start and end is below 2³¹, and a table shorter than four bytes makes
    // `last` negative, failing every lane.
    let last = _mm256_set1_epi32(bytes.len() as i32 - 4);
    let len = _mm256_set1_epi32(bytes.len() as i32);
    let frames_v = _mm256_set1_epi32(frames as i32);
    let (zero, one, byte) = (
        _mm256_setzero_si256(),
        _mm256_set1_epi32(1),
        _mm256_set1_epi32(0xFF),
    );
    let lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    let nibbles = _mm256_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28);
    // Where each chain left short ends, and the frames it has covered.
    let mut ends = [0i32; PACKED + 16];
    let mut totals = [0i32; PACKED + 16];
    let mut shorts = 0;
    for block in starts.chunks(8) {
        let at_v = match block.first_chunk::<8>() {
            // SAFETY: `block` is eight words long.
            Some(whole) => unsafe { _mm256_loadu_si256(whole.as_ptr().cast()) },
            None => {
                let mut at = [0i32; 8];
                at[..block.len()].copy_from_slice(block);
                // SAFETY: `at` is eight words long.
                unsafe { _mm256_loadu_si256(at.as_ptr().cast()) }
            }
        };
        let active = _mm256_cmpgt_epi32(_mm256_set1_epi32(block.len() as i32), lane);
        // Four bytes from `at`, within `bytes`: a run has them.
        if _mm256_testz_si256(_mm256_cmpgt_epi32(at_v, last), active) == 0 {
            return false;
        }
        let base = bytes.as_ptr().cast();
        // SAFETY: every gathered lane (the active ones) reads `at..at + 4`, and
        // `at ≤ bytes.len() − 4` was just checked for each; `at` is nonnegative.
        let run = unsafe { _mm256_mask_i32gather_epi32::<1>(zero, base, at_v, active) };
        let valid = _mm256_and_si256(run, byte);
        let total = _mm256_and_si256(_mm256_srli_epi32::<8>(run), byte);
        let end = _mm256_add_epi32(at_v, _mm256_slli_epi32::<1>(_mm256_add_epi32(valid, one)));
        let bad = _mm256_or_si256(
            _mm256_or_si256(
                _mm256_cmpeq_epi32(valid, zero),
                _mm256_cmpgt_epi32(valid, total),
            ),
            _mm256_cmpgt_epi32(end, len),
        );
        if _mm256_testz_si256(bad, active) == 0 {
            return false;
        }
        // A chain its first run leaves short is queued, not walked here, so that no branch
        // waits on the gather.
        let short = _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_and_si256(
            _mm256_cmpgt_epi32(frames_v, total),
            active,
        ))) as usize;
        let order = compressing(short, nibbles);
        let (to_end, to_total) = (
            &mut ends[shorts..shorts + 8],
            &mut totals[shorts..shorts + 8],
        );
        // SAFETY: both slices are eight words long.
        unsafe {
            _mm256_storeu_si256(
                to_end.as_mut_ptr().cast(),
                _mm256_permutevar8x32_epi32(end, order),
            );
            _mm256_storeu_si256(
                to_total.as_mut_ptr().cast(),
                _mm256_permutevar8x32_epi32(total, order),
            );
        }
        shorts += short.count_ones() as usize;
    }
    (0..shorts).all(|j| walk_on(bytes, ends[j] as usize, totals[j] as u32, frames))
}

/// The permutation that takes the lanes of `mask`'s set bits to the front ([`COMPRESS`]),
/// `nibbles` holding the shifts `4k` for lane `k`.
#[inline]
#[target_feature(enable = "avx2")]
fn compressing(mask: usize, nibbles: __m256i) -> __m256i {
    _mm256_and_si256(
        _mm256_srlv_epi32(_mm256_set1_epi32(COMPRESS[mask] as i32), nibbles),
        _mm256_set1_epi32(0xF),
    )
}

/// A chain walked on from its run at `at`, its runs so far covering `covered` frames, until
/// they cover `frames`: each run judged as [`anim_runs`] judges it.
fn walk_on(bytes: &[u8], mut at: usize, mut covered: u32, frames: u32) -> bool {
    while covered < frames {
        let Some(&[valid, total]) = bytes.get(at..at.saturating_add(2)) else {
            return false;
        };
        let end = at + 2 * (usize::from(valid) + 1);
        if valid == 0 || valid > total || end > bytes.len() {
            return false;
        }
        covered += u32::from(total);
        at = end;
    }
    true
}

/// The chains of the records, one at a time, as the scan must judge them. Written out rather
/// than through [`walk_on`], which the AVX2 scan runs: the reference shares no code with
/// what it checks.
#[cfg(test)]
fn anim_runs_scalar(bytes: &[u8], base: usize, records: usize, frames: u32) -> bool {
    (0..records * CHANNELS).all(|lane| {
        let record = base + 12 * (lane / CHANNELS);
        let field = record + 2 * (lane % CHANNELS);
        let offset = usize::from(u16::from_le_bytes([bytes[field], bytes[field + 1]]));
        if offset == 0 {
            return true;
        }
        let (mut at, mut covered) = (record + offset, 0u32);
        while covered < frames {
            let Some(&[valid, total]) = bytes.get(at..at + 2) else {
                return false;
            };
            let end = at + 2 * (usize::from(valid) + 1);
            if valid == 0 || valid > total || end > bytes.len() {
                return false;
            }
            covered += u32::from(total);
            at = end;
        }
        true
    })
}

#[cfg(test)]
mod tests {
    use super::{AnimChains, Lanes, anim_runs, anim_runs_avx2, anim_runs_scalar};

    /// Each path the CPU has, with the answer of the first, for the entries of `chains`.
    fn try_entries(bytes: &[u8], chains: &[AnimChains]) -> Option<bool> {
        let answer = super::try_anim_runs(bytes, chains.iter().copied());
        if is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU has AVX-512F, the tests' tables are short, and `answer` is
            // `None` (compared against `Some` below) where an entry lies outside `bytes`.
            let avx512 = answer.map(|_| unsafe { anim_runs(bytes, chains.iter().copied()) });
            assert_eq!(answer, avx512);
        }
        if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("popcnt") {
            let avx2 = answer.map(|_| {
                chains.iter().all(|&entry| {
                    // SAFETY: the CPU has AVX2 and POPCNT; as above.
                    unsafe { anim_runs_avx2(Lanes::of(bytes, entry), entry.frames) }
                })
            });
            assert_eq!(answer, avx2);
        }
        answer
    }

    /// [`try_entries`] of one entry.
    fn try_anim_runs(bytes: &[u8], base: usize, records: usize, frames: u32) -> Option<bool> {
        let entry = AnimChains {
            base,
            records,
            frames,
        };
        try_entries(bytes, &[entry])
    }

    /// A chain of runs of `(valid, total)`, each followed by its values.
    fn chain(runs: &[(u8, u8)]) -> Vec<u8> {
        runs.iter()
            .flat_map(|&(valid, total)| {
                [valid, total]
                    .into_iter()
                    .chain((0..2 * usize::from(valid)).map(|k| k as u8))
            })
            .collect()
    }

    /// `records` records, then the chains their channels name: `chains(lane)` for each lane,
    /// `None` for a channel without values (offset 0).
    fn file(records: usize, chains: impl Fn(usize) -> Option<Vec<u8>>) -> Vec<u8> {
        let mut bytes = vec![0; 12 * records];
        for lane in 0..6 * records {
            if let Some(runs) = chains(lane) {
                let offset = (bytes.len() - 12 * (lane / 6)) as u16;
                bytes[2 * lane..2 * lane + 2].copy_from_slice(&offset.to_le_bytes());
                bytes.extend_from_slice(&runs);
            }
        }
        bytes
    }

    #[test]
    fn the_scan_judges_every_chain_as_the_walk_does() {
        let Some(true) = try_anim_runs(&[0; 12], 0, 1, 1) else {
            return; // Neither AVX-512F nor AVX2 here: nothing to compare.
        };
        // Chains of one run, of several, of a run that covers more than the frames, and
        // faults: valid 0, valid above total, values past the end, a header past the end.
        let good = [
            chain(&[(3, 3)]),
            chain(&[(1, 2), (4, 4), (2, 9)]),
            chain(&[(1, 200)]),
            chain(&[(5, 5), (1, 1), (1, 1), (1, 1), (1, 1), (1, 1)]),
        ];
        let bad = [
            chain(&[(0, 3)]),
            chain(&[(1, 2), (5, 4)]),
            chain(&[(2, 2), (1, 0)]),
        ];
        // 40 records (240 lanes: more than a round of registers of either width); every
        // fifth channel without values; a fault in some of them.
        let (good, bad) = (&good, &bad);
        let chains = |faults: bool| {
            move |lane: usize| match lane {
                _ if lane % 5 == 2 => None,
                _ if faults && lane % 53 == 40 => Some(bad[lane % bad.len()].clone()),
                _ => Some(good[lane % good.len()].clone()),
            }
        };
        for faults in [false, true] {
            let mut bytes = file(40, chains(faults));
            // Past the chains, bytes that are no run: the last chain's values cut short.
            bytes.extend_from_slice(&chain(&[(4, 10)])[..7]);
            for frames in [0, 1, 3, 9, 10, 11, 30] {
                for (first, records) in [(0, 40), (0, 1), (3, 5), (7, 33), (39, 1), (0, 0)] {
                    let expected = anim_runs_scalar(&bytes, 12 * first, records, frames);
                    let answer = try_anim_runs(&bytes, 12 * first, records, frames);
                    assert_eq!(
                        answer,
                        Some(expected),
                        "{faults} {frames} {first} {records}"
                    );
                }
            }
        }
        // Both answers occur.
        let clean = file(40, chains(false));
        let faulty = file(40, chains(true));
        assert!(anim_runs_scalar(&clean, 0, 40, 9));
        assert!(!anim_runs_scalar(&faulty, 0, 40, 9));
        // A chain that ends where the bytes do passes; one a byte shorter fails, as does
        // one starting past the end, or at its last byte.
        let whole = file(1, |lane| (lane == 4).then(|| chain(&[(1, 1), (3, 4)])));
        for frames in [1, 2, 5] {
            assert_eq!(try_anim_runs(&whole, 0, 1, frames), Some(true));
            let short = &whole[..whole.len() - 1];
            assert_eq!(try_anim_runs(short, 0, 1, frames), Some(frames == 1));
        }
        assert_eq!(try_anim_runs(&whole, 0, 1, 6), Some(false));
        for offset in [whole.len() - 1, whole.len(), 0xFFFF] {
            let mut past = whole.clone();
            past[2..4].copy_from_slice(&(offset as u16).to_le_bytes());
            assert_eq!(try_anim_runs(&past, 0, 1, 1), Some(false), "{offset}");
        }
        // Records that do not lie within the bytes: no answer.
        assert_eq!(try_anim_runs(&whole, whole.len() - 11, 1, 1), None);
        assert_eq!(try_anim_runs(&whole, 0, usize::MAX, 1), None);
    }

    /// Entries of many chains each, unequal in length, are judged together as one at a time:
    /// lanes freed by short chains take the queue's next ones, across entries and refills of
    /// the queue.
    #[test]
    fn the_scan_of_many_entries_judges_them_as_one_at_a_time() {
        let Some(true) = try_anim_runs(&[0; 12], 0, 1, 1) else {
            return;
        };
        // Chains of 0 to 19 runs of one frame each, then one of 21: each walked as far as the
        // frames reach, and each covering 21 frames at least; every seventh channel without
        // values.
        let runs = |lane: usize| {
            let mut runs = vec![(1, 1); (lane * 7919) % 20];
            runs.push((1, 21));
            chain(&runs)
        };
        // 900 lanes, several refills of the queue; the chains within a record's 16-bit reach.
        let records = 150;
        let chains = |fault: Option<usize>| {
            move |lane: usize| match lane {
                _ if lane % 7 == 3 => None,
                _ if Some(lane) == fault => Some(chain(&[(2, 1)])),
                _ => Some(runs(lane)),
            }
        };
        for fault in [None, Some(0), Some(1), Some(450), Some(898)] {
            let bytes = file(records, chains(fault));
            assert!(bytes.len() < 0x10000);
            for frames in [0, 1, 2, 17, 21, 22] {
                // The records split into entries of unequal sizes, some of no frames.
                let entries: Vec<AnimChains> = [(0, 1), (1, 50), (51, 0), (51, 70), (121, 29)]
                    .into_iter()
                    .enumerate()
                    .map(|(k, (first, records))| AnimChains {
                        base: 12 * first,
                        records,
                        frames: if k == 1 { frames / 2 } else { frames },
                    })
                    .collect();
                let expected = entries
                    .iter()
                    .all(|entry| anim_runs_scalar(&bytes, entry.base, entry.records, entry.frames));
                // Clean chains pass while their runs cover the frames; a fault fails them.
                if frames <= 21 {
                    assert_eq!(
                        expected,
                        fault.is_none() || frames == 0,
                        "{fault:?} {frames}"
                    );
                }
                assert_eq!(
                    try_entries(&bytes, &entries),
                    Some(expected),
                    "{fault:?} {frames}"
                );
            }
        }
        // A fault is found: in an entry's chain of 1 run, and not where it is past the frames.
        let faulty = file(records, chains(Some(1)));
        let all = AnimChains {
            base: 0,
            records,
            frames: 1,
        };
        assert_eq!(try_entries(&faulty, &[all]), Some(false));
        let clean = file(records, chains(None));
        assert_eq!(try_entries(&clean, &[all, all]), Some(true));
        // No entries, and an entry outside the bytes among good ones.
        assert_eq!(try_entries(&clean, &[]), Some(true));
        let outside = AnimChains {
            base: clean.len(),
            records: 1,
            frames: 1,
        };
        assert_eq!(try_entries(&clean, &[all, outside]), None);
    }
}
