//! Splitting one mesh over the current rayon pool: over how many threads ([`split`]), and
//! running its pieces with the calling thread taking part ([`for_each_piece`]).
//!
//! The kernels cut a mesh into pieces of [`CHUNK_VERTICES`](super::CHUNK_VERTICES) vertices
//! (but for streamed outputs, below), claimed one at a time by the caller and by helpers
//! spawned onto the pool, so a helper that starts late takes fewer and the threads finish
//! together; a fixed piece per thread would leave the late helper as much work as the caller.
//! The caller skins pieces itself rather than waiting idle; a caller from outside the pool (a
//! game's main thread) then waits for the helpers by spinning for at most [`SPIN_LIMIT`]
//! before it blocks, since a blocked caller has to be woken by another core. That hand-over
//! has a fixed cost even with no work, which `benches/skin.rs` times in its `handover` group;
//! the `compact-2t` and `prepared-2t` rows of its `skin-synthetic_100k` group, against
//! `compact` and `prepared`, show what the second thread gains on a mesh where that cost
//! matters.
//!
//! A mesh whose output is streamed (skinned from memory, pieces long enough that the
//! hand-over does not matter) is split into one piece per thread over the pool alone, the
//! caller blocking: there the caller's own piece made the two threads slower
//! (`skin-synthetic_4m/compact-2t`).

use core::sync::atomic::{AtomicUsize, Ordering};

use rayon::prelude::*;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// Vertices per parallel task at the least: a mesh is split over threads only when each gets
/// this many, so that a piece takes several times a fork-join's fixed cost to skin and two
/// threads never run a small mesh slower than one (compare `handover/join-2t` in
/// `benches/skin.rs` with what its `compact` and `prepared` rows take for this many vertices).
pub const PARALLEL_MIN_VERTICES: usize = 32_768;

/// How long a caller from outside the pool spins for the pool's pieces after its own, before
/// it blocks.
const SPIN_LIMIT: Duration = Duration::from_micros(50);

/// Spins between two looks at the clock.
const SPINS_PER_CHECK: usize = 64;

/// How many threads to skin `vertices` on in the current rayon pool: one per
/// [`PARALLEL_MIN_VERTICES`], at most every thread of the pool (below that a fork-join costs
/// more than the second thread saves).
pub(crate) fn split(vertices: usize) -> usize {
    (vertices / PARALLEL_MIN_VERTICES).clamp(1, rayon::current_num_threads().max(1))
}

/// How many of a mesh's `units` (blocks, chunks) go in one piece for [`for_each_piece`] on
/// `threads` threads: `claim` (a chunk's worth) where the caller takes part and pieces are
/// claimed, else an even share per thread (with `streamed` outputs, or on one thread, where
/// that is the whole mesh).
pub(crate) fn piece_units(units: usize, claim: usize, threads: usize, streamed: bool) -> usize {
    if threads > 1 && !streamed {
        claim.max(1)
    } else {
        units.div_ceil(threads.max(1)).max(1)
    }
}

/// Runs `work(i, &mut pieces[i])` for every piece on `threads` threads at most (the calling
/// one and helpers spawned onto the current rayon pool), each claiming the next piece not yet
/// taken until none is left; returns when all are done. With `streamed` (an output of at
/// least [`STREAM_MIN_BYTES`](super::STREAM_MIN_BYTES), skinned from memory) every piece goes
/// to the pool and the caller blocks: each piece then takes long enough that the hand-over
/// does not matter, and a piece of the caller's own made the two threads slower (the
/// `skin-synthetic_4m/compact-2t` row of `benches/skin.rs`).
pub(crate) fn for_each_piece<T: Send>(
    pieces: &mut [T],
    threads: usize,
    streamed: bool,
    work: impl Fn(usize, &mut T) + Sync,
) {
    if streamed {
        pieces
            .par_iter_mut()
            .enumerate()
            .for_each(|(i, piece)| work(i, piece));
        return;
    }
    let helpers = threads
        .saturating_sub(1)
        .min(pieces.len().saturating_sub(1));
    // One claim per piece of microseconds: the lock, seldom contended, costs far less.
    let queue = Mutex::new(pieces.iter_mut().enumerate());
    let claim = || queue.lock().unwrap_or_else(PoisonError::into_inner).next();
    let drain = || {
        while let Some((i, piece)) = claim() {
            work(i, piece);
        }
    };
    let finished = AtomicUsize::new(0);
    let (drain, finished) = (&drain, &finished);
    // A pool thread waits by running what is left of its own spawns, or by stealing.
    let outside = rayon::current_thread_index().is_none();
    rayon::in_place_scope(|scope| {
        for _ in 0..helpers {
            scope.spawn(move |_| {
                drain();
                finished.fetch_add(1, Ordering::Release);
            });
        }
        drain();
        if outside && helpers > 0 {
            spin_until(finished, helpers);
        }
    });
}

/// Spins until `finished` reaches `count`, or for [`SPIN_LIMIT`] at most.
fn spin_until(finished: &AtomicUsize, count: usize) {
    let start = Instant::now();
    loop {
        for _ in 0..SPINS_PER_CHECK {
            if finished.load(Ordering::Acquire) >= count {
                return;
            }
            core::hint::spin_loop();
        }
        if start.elapsed() >= SPIN_LIMIT {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_piece_runs_once_with_its_index() -> Result<(), rayon::ThreadPoolBuildError> {
        for threads in [1, 2, 3] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()?;
            // Fewer pieces than threads, as many, and more (each claimed by whichever thread
            // comes first).
            for n in [0, 1, 2, 5, 40] {
                let mut pieces = vec![0usize; n];
                // From outside the pool, then from one of its threads.
                for_each_piece(&mut pieces, threads, false, |i, p| *p += i + 1);
                pool.install(|| {
                    for_each_piece(&mut pieces, threads, false, |i, p| *p += 10 * (i + 1))
                });
                // Streamed: every piece to the pool.
                for_each_piece(&mut pieces, threads, true, |i, p| *p += 100 * (i + 1));
                let expected: Vec<usize> = (1..=n).map(|i| 111 * i).collect();
                assert_eq!(pieces, expected, "{threads} threads, {n} pieces");
            }
        }
        Ok(())
    }

    #[test]
    fn pieces_are_a_claim_each_unless_streamed_or_on_one_thread() {
        assert_eq!(piece_units(25, 1, 2, false), 1);
        assert_eq!(piece_units(6_274, 256, 2, false), 256);
        assert_eq!(piece_units(25, 1, 2, true), 13);
        assert_eq!(piece_units(6_274, 256, 1, false), 6_274);
        assert_eq!(piece_units(0, 256, 1, false), 1);
    }

    #[test]
    fn split_needs_a_full_task_per_thread() {
        let threads = rayon::current_num_threads();
        assert_eq!(split(0), 1);
        assert_eq!(split(PARALLEL_MIN_VERTICES * 2 - 1), 1);
        assert_eq!(split(PARALLEL_MIN_VERTICES * 2), 2.min(threads));
        assert_eq!(split(usize::MAX), threads);
    }
}
