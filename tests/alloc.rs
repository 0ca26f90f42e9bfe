//! Opening a DPM allocates O(meshes), not O(vertices): a counting global allocator measures
//! `Dpm::parse_with` on models of very different sizes. (A separate test binary, because the
//! global allocator is process-wide; its single test runs alone.)
#![allow(clippy::unwrap_used)]

use skelmap::Parse;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use skelmap::dpm::Dpm;
use skelmap::synth::{TubeParams, tube};
use skelmap::{Diagnostics, Limits, SkeletalMesh};

struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);
static BYTES: AtomicU64 = AtomicU64::new(0);

// The test binary is not one of the crates where `unsafe` is allowed to live; this impl is
// test scaffolding that forwards to the system allocator.
#[allow(unsafe_code)]
// SAFETY: every method forwards to `System` with the caller's arguments unchanged.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Relaxed);
        BYTES.fetch_add(layout.size() as u64, Relaxed);
        // SAFETY: forwarded unchanged; the caller upholds `GlobalAlloc::alloc`'s contract.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System.alloc` with this layout (see `alloc`).
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Allocations and bytes allocated while `f` runs.
fn measure<R>(f: impl FnOnce() -> R) -> (u64, u64, R) {
    let (a0, b0) = (ALLOCATIONS.load(Relaxed), BYTES.load(Relaxed));
    let r = f();
    (ALLOCATIONS.load(Relaxed) - a0, BYTES.load(Relaxed) - b0, r)
}

fn model(rings_per_bone: u32) -> Vec<u8> {
    tube(&TubeParams {
        bones: 16,
        rings_per_bone,
        sides: 16,
        frames: 4,
        ..TubeParams::default()
    })
    .write()
    .unwrap()
}

/// Every vertex's first weight raised by 0.5, so every vertex triggers an influence-sum warning.
fn with_odd_sums(mut bytes: Vec<u8>) -> Vec<u8> {
    let m = Dpm::parse(&bytes).unwrap();
    let mut at = Vec::new();
    let mut verts = m.mesh(0).unwrap().vertices();
    loop {
        let offset = verts.offset();
        if verts.next().is_none() {
            break;
        }
        at.push(offset as usize + 4 + 12);
    }
    for a in at {
        let w = f32::from_be_bytes(bytes[a..a + 4].try_into().unwrap()) + 0.5;
        bytes[a..a + 4].copy_from_slice(&w.to_be_bytes());
    }
    bytes
}

#[test]
fn parse_allocation_does_not_grow_with_vertices() {
    let small = model(1); // 17 rings × 16 = 272 vertices
    let large = model(400); // 6401 rings × 16 = 102 416 vertices

    for bytes in [&small, &large] {
        let mut diag = Diagnostics::new();
        let (allocs, bytes_allocated, result) = measure(|| {
            Dpm::parse_with(bytes, &Limits::default(), &mut diag).map(|m| m.num_vertices())
        });
        assert!(result.is_ok());
        assert!(diag.is_empty());
        assert_eq!(
            (allocs, bytes_allocated),
            (0, 0),
            "a clean file is opened without allocating"
        );
    }

    // Warnings on every vertex still cost one entry (one Vec slot and one detail string).
    let (small, large) = (with_odd_sums(small), with_odd_sums(large));
    let mut counts = Vec::new();
    for bytes in [&small, &large] {
        let mut diag = Diagnostics::new();
        let (allocs, _, result) =
            measure(|| Dpm::parse_with(bytes, &Limits::default(), &mut diag).is_ok());
        assert!(result);
        assert_eq!(diag.warnings().len(), 1);
        counts.push((allocs, diag.warnings()[0].count));
    }
    assert_eq!(
        counts[0].0, counts[1].0,
        "allocations independent of vertex count: {counts:?}"
    );
    assert!(counts[0].0 <= 3, "{counts:?}");
    assert_eq!((counts[0].1, counts[1].1), (272, 102_416));
}
