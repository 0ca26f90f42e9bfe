//! Splitting one mesh over the current rayon pool: how many pieces ([`split`]), and running
//! them with the calling thread taking one ([`for_each_piece`]).
//!
//! A caller from outside the pool (a game's main thread) skins the first piece itself, then
//! waits for the pool's by spinning for at most [`SPIN_LIMIT`] before it blocks, since a
//! blocked caller has to be woken by another core. Handing work to the pool and back costs
//! about 15 µs on the project's virtual machine even with no work (the `handover` bench),
//! against about 80 µs for half of a 100k-vertex compact mesh; with the caller's piece, the
//! compact kernel on two threads went from 1.65× to 1.88× one thread at 100k vertices
//! (benches/README.md, run 16).
//!
//! The prepared kernel splits the same way since its blocks are stored in place: before,
//! its two-thread row moved by up to a quarter between builds of the same prepared code
//! (with a `memmove` of each block's results that took 7–12% of the time), and no A/B of the
//! split could be trusted (runs 16 and 17).
//!
//! A mesh whose output is streamed (skinned from memory, pieces of milliseconds) is split
//! over the pool alone, the caller blocking: there the hand-over does not matter, and the
//! caller's piece measured slower (run 17d).

use core::sync::atomic::{AtomicUsize, Ordering};

use rayon::prelude::*;
use std::time::{Duration, Instant};

/// Vertices per parallel task at the least: a mesh is split over threads only when each gets
/// this many (a fork-join over the pool costs about 15 µs on the project machine; 32 768
/// vertices take about 50 µs to skin compact and 80 µs prepared), so two threads never run a
/// small mesh slower than one.
pub const PARALLEL_MIN_VERTICES: usize = 32_768;

/// How long a caller from outside the pool spins for the pool's pieces after its own, before
/// it blocks.
const SPIN_LIMIT: Duration = Duration::from_micros(50);

/// Spins between two looks at the clock.
const SPINS_PER_CHECK: usize = 64;

/// How many tasks to split `vertices` into on the current rayon pool: one per
/// [`PARALLEL_MIN_VERTICES`], at most one per thread (below that a fork-join costs more than
/// the second thread saves).
pub(crate) fn split(vertices: usize) -> usize {
    (vertices / PARALLEL_MIN_VERTICES).clamp(1, rayon::current_num_threads().max(1))
}

/// Runs `work(i, &mut pieces[i])` for every piece: the first on the calling thread, the others
/// on the current rayon pool; returns when all are done. With `streamed` (an output of at
/// least [`STREAM_MIN_BYTES`](super::STREAM_MIN_BYTES), skinned from memory) every piece goes
/// to the pool and the caller blocks: each piece then takes milliseconds, so the hand-over
/// does not matter, and the caller's piece measured slower (two threads 1.65× one instead of
/// 1.82× on the 4M-vertex tube, benches/README.md run 17d).
pub(crate) fn for_each_piece<T: Send>(
    pieces: &mut [T],
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
    let Some((first, rest)) = pieces.split_first_mut() else {
        return;
    };
    let others = rest.len();
    let finished = AtomicUsize::new(0);
    let (work, finished) = (&work, &finished);
    // A pool thread waits by running what is left of its own spawns, or by stealing.
    let outside = rayon::current_thread_index().is_none();
    rayon::in_place_scope(|scope| {
        for (i, piece) in rest.iter_mut().enumerate() {
            scope.spawn(move |_| {
                work(i + 1, piece);
                finished.fetch_add(1, Ordering::Release);
            });
        }
        work(0, first);
        if outside && others > 0 {
            spin_until(finished, others);
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
            for n in [0, 1, 2, 5] {
                let mut pieces = vec![0usize; n];
                // From outside the pool, then from one of its threads.
                for_each_piece(&mut pieces, false, |i, p| *p += i + 1);
                pool.install(|| for_each_piece(&mut pieces, false, |i, p| *p += 10 * (i + 1)));
                // Streamed: every piece to the pool.
                for_each_piece(&mut pieces, true, |i, p| *p += 100 * (i + 1));
                let expected: Vec<usize> = (1..=n).map(|i| 111 * i).collect();
                assert_eq!(pieces, expected, "{threads} threads, {n} pieces");
            }
        }
        Ok(())
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
