//! Validation's scans of 32-bit words (AVX-512F and BW), big-endian (DPM) or little-endian
//! (SKM), each word tested the same way: with its bits masked by `keep`, it must lie in
//! `low ..= low + span` (one unsigned subtraction and comparison). A float passes when its
//! magnitude is at most `f32::MAX` (finite), an index when it is below its bound.
//!
//! - [`OneInfluenceScan`]: bone vertices are a `u32` influence count, then that many 32-byte
//!   records (origin, influence, normal, `bonenum`). Each count says where the next vertex
//!   starts, so the scalar walk is a chain of dependent reads; this scan takes runs of
//!   one-influence vertices off it, sixteen a step (nine registers, each word with its own
//!   test), and stops before any vertex the walk must look at (to report an error or a
//!   warning, or because it has more influences).
//! - [`try_any_word_fails`]: one test for every word of a flat table (triangle corners, bone
//!   references, texture coordinates), four registers a step.

use crate::skin::scan::{FINITE, ONE_INFLUENCE_GROUP};
use core::arch::x86_64::{
    __m512i, _mm512_and_si512, _mm512_cmpgt_epu32_mask, _mm512_loadu_si512,
    _mm512_maskz_loadu_epi32, _mm512_shuffle_epi8, _mm512_sub_epi32,
};

/// `pshufb` indices that reverse the bytes of every word.
const SWAP_WORDS: [u8; 64] = {
    let mut t = [0u8; 64];
    let mut i = 0;
    while i < 64 {
        t[i] = (i & !3) as u8 + 3 - (i & 3) as u8;
        i += 1;
    }
    t
};

/// The test of a register's sixteen words (see the module documentation).
#[derive(Debug, Clone, Copy)]
struct WordTests {
    keep: [u32; 16],
    low: [u32; 16],
    span: [u32; 16],
}

impl WordTests {
    /// Word `w`'s `(keep, low, span)` from `test(w)`.
    fn new(test: impl Fn(usize) -> (u32, u32, u32)) -> WordTests {
        let mut tests = WordTests {
            keep: [0; 16],
            low: [0; 16],
            span: [0; 16],
        };
        for w in 0..16 {
            (tests.keep[w], tests.low[w], tests.span[w]) = test(w);
        }
        tests
    }

    /// The lanes of `v` whose word fails its test. The tables are read from memory at each
    /// use (they fold into the instructions as operands): copied into registers once per
    /// call, nine registers' tables would not fit, and the copy cost more than the scan of a
    /// short run.
    #[target_feature(enable = "avx512f")]
    fn failing(&self, v: __m512i) -> u16 {
        // SAFETY: each table is sixteen words (64 bytes), and an unaligned load reads exactly
        // those.
        let (keep, low, span) = unsafe {
            (
                _mm512_loadu_si512(self.keep.as_ptr().cast()),
                _mm512_loadu_si512(self.low.as_ptr().cast()),
                _mm512_loadu_si512(self.span.as_ptr().cast()),
            )
        };
        let offset = _mm512_sub_epi32(_mm512_and_si512(v, keep), low);
        _mm512_cmpgt_epu32_mask(offset, span)
    }
}

/// The word-reversing shuffle, as a register.
#[target_feature(enable = "avx512f")]
fn swap_words() -> __m512i {
    // SAFETY: `SWAP_WORDS` is 64 bytes, and an unaligned load reads exactly those.
    unsafe { _mm512_loadu_si512(SWAP_WORDS.as_ptr().cast()) }
}

/// `v` in native word order: byte-swapped word by word when the file is big-endian.
#[target_feature(enable = "avx512f,avx512bw")]
fn native<const SWAP: bool>(v: __m512i, swap: __m512i) -> __m512i {
    if SWAP {
        _mm512_shuffle_epi8(v, swap)
    } else {
        v
    }
}

fn supported() -> bool {
    is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512bw")
}

/// Whether any whole word of `bytes`, read big-endian or little-endian, fails its test:
/// `(word & keep) - low` (wrapping unsigned) at most `span`; `None` when the CPU lacks
/// AVX-512F and BW.
pub(crate) fn try_any_word_fails(
    bytes: &[u8],
    big_endian: bool,
    (keep, low, span): (u32, u32, u32),
) -> Option<bool> {
    let tests = WordTests::new(|_| (keep, low, span));
    // SAFETY: the CPU was just found to support AVX-512F and BW.
    supported().then(|| unsafe {
        if big_endian {
            any_word_fails::<true>(&tests, bytes)
        } else {
            any_word_fails::<false>(&tests, bytes)
        }
    })
}

/// Four registers a step, and the last partial register under a mask; the failing lanes are
/// gathered into one mask, tested once at the end.
///
/// # Safety
///
/// The CPU must support AVX-512F and BW.
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn any_word_fails<const SWAP: bool>(tests: &WordTests, bytes: &[u8]) -> bool {
    let swap = swap_words();
    let words = &bytes[..bytes.len() / 4 * 4];
    let mut bad = 0u16;
    let mut steps = words.chunks_exact(256);
    for step in &mut steps {
        for register in step.chunks_exact(64) {
            // SAFETY: the chunk is 64 bytes, and an unaligned load reads exactly those.
            let v = unsafe { _mm512_loadu_si512(register.as_ptr().cast()) };
            bad |= tests.failing(native::<SWAP>(v, swap));
        }
    }
    for rest in steps.remainder().chunks(64) {
        let lanes = u16::MAX >> (16 - rest.len() / 4);
        // SAFETY: the lanes `lanes` sets are the chunk's words (it is a whole number of them,
        // 4 to 64 bytes), and a masked load reads no other memory.
        let v = unsafe { _mm512_maskz_loadu_epi32(lanes, rest.as_ptr().cast()) };
        bad |= tests.failing(native::<SWAP>(v, swap)) & lanes;
    }
    bad != 0
}

/// The scan of runs of one-influence bone vertices, for a model's bone count and the
/// influence values the sum rule accepts. A group of sixteen is nine registers, and every
/// word of it has its own test: the count is 1, the influence's bits lie in the accepted range
/// (positive floats order as their bits do), the other floats are finite, and `bonenum` is
/// below the bone count.
#[derive(Debug, Clone)]
pub(crate) struct OneInfluenceScan {
    big_endian: bool,
    tests: [WordTests; 9],
}

impl OneInfluenceScan {
    /// `None` when the CPU lacks AVX-512F and BW, or the model has no bone (no record passes).
    /// `influence` is the accepted influence range, as the bits of two positive floats.
    pub(crate) fn new(big_endian: bool, num_bones: u32, influence: (u32, u32)) -> Option<Self> {
        let max_bone = num_bones.checked_sub(1)?;
        if !supported() || influence.1 < influence.0 {
            return None;
        }
        let tests = core::array::from_fn(|register| {
            WordTests::new(|w| match (16 * register + w) % 9 {
                // The count.
                0 => (u32::MAX, 1, 0),
                4 => (u32::MAX, influence.0, influence.1 - influence.0),
                8 => (u32::MAX, 0, max_bone),
                // A coordinate of the origin or the normal.
                _ => FINITE,
            })
        });
        Some(OneInfluenceScan { big_endian, tests })
    }

    /// How many one-influence vertices at the start of `bytes` pass, up to the first that does
    /// not; `bytes` is looked at in whole groups of sixteen (a partial group passes nothing).
    pub(crate) fn passing_vertices(&self, bytes: &[u8]) -> usize {
        // SAFETY: the constructor found the CPU to support AVX-512F and BW.
        unsafe {
            if self.big_endian {
                one_influence_vertices::<true>(self, bytes)
            } else {
                one_influence_vertices::<false>(self, bytes)
            }
        }
    }
}

/// One group (nine registers) a step; in the first group with a failing word, the vertices
/// before that word's pass.
///
/// # Safety
///
/// The CPU must support AVX-512F and BW.
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn one_influence_vertices<const SWAP: bool>(scan: &OneInfluenceScan, bytes: &[u8]) -> usize {
    let swap = swap_words();
    let mut vertices = 0;
    for group in bytes.chunks_exact(ONE_INFLUENCE_GROUP) {
        let mut bad = 0;
        for (register, tests) in group.chunks_exact(64).zip(&scan.tests) {
            // SAFETY: the chunk is 64 bytes, and an unaligned load reads exactly those.
            let v = unsafe { _mm512_loadu_si512(register.as_ptr().cast()) };
            bad |= tests.failing(native::<SWAP>(v, swap));
        }
        if bad != 0 {
            // Which word failed first (word `16 r + l` is lane `l` of register `r`), found
            // again only for the one group that stops the scan.
            for (r, (register, tests)) in group.chunks_exact(64).zip(&scan.tests).enumerate() {
                // SAFETY: as above.
                let v = unsafe { _mm512_loadu_si512(register.as_ptr().cast()) };
                let failing = tests.failing(native::<SWAP>(v, swap));
                if failing != 0 {
                    let word = 16 * r + failing.trailing_zeros() as usize;
                    return vertices + word / 9;
                }
            }
        }
        vertices += 16;
    }
    vertices
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One-influence vertices (36 bytes each) in `big_endian` order: count 1, origin,
    /// influence, normal, bonenum.
    fn one_influence_vertices(count: usize, big_endian: bool, bones: u32) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(count * 36);
        for v in 0..count {
            let words = [
                1,
                (v as f32).to_bits(),
                (-1.5f32).to_bits(),
                f32::MAX.to_bits(),
                1.0f32.to_bits(),
                0.0f32.to_bits(),
                (-0.0f32).to_bits(),
                f32::MIN.to_bits(),
                v as u32 % bones,
            ];
            for w in words {
                bytes.extend(if big_endian {
                    w.to_be_bytes()
                } else {
                    w.to_le_bytes()
                });
            }
        }
        bytes
    }

    /// The passing vertices at the start, in whole groups, record by record in plain Rust.
    fn one_influence_reference(
        bytes: &[u8],
        big_endian: bool,
        bones: u32,
        accepted: (u32, u32),
    ) -> usize {
        let word = |b: &[u8]| {
            let b = [b[0], b[1], b[2], b[3]];
            if big_endian {
                u32::from_be_bytes(b)
            } else {
                u32::from_le_bytes(b)
            }
        };
        let vertex_passes = |v: &[u8]| {
            let w: Vec<u32> = v.chunks_exact(4).map(word).collect();
            let finite = [1, 2, 3, 5, 6, 7]
                .iter()
                .all(|&k| f32::from_bits(w[k]).is_finite());
            w[0] == 1 && finite && (accepted.0..=accepted.1).contains(&w[4]) && w[8] < bones
        };
        let whole = bytes.len() / ONE_INFLUENCE_GROUP * ONE_INFLUENCE_GROUP;
        bytes[..whole]
            .chunks_exact(36)
            .take_while(|v| vertex_passes(v))
            .count()
    }

    #[test]
    fn the_one_influence_scan_stops_at_the_first_vertex_with_any_failing_word() {
        if !supported() {
            return;
        }
        let accepted = (0.99f32.to_bits(), 1.01f32.to_bits());
        assert!(OneInfluenceScan::new(false, 0, accepted).is_none());
        assert!(OneInfluenceScan::new(false, 4, (accepted.1, accepted.0)).is_none());
        for big_endian in [false, true] {
            let scan = OneInfluenceScan::new(big_endian, 5, accepted);
            assert!(scan.is_some(), "the CPU has AVX-512F and BW");
            let Some(scan) = scan else { return };
            let put = |bytes: &mut [u8], at: usize, w: u32| {
                let b = if big_endian {
                    w.to_be_bytes()
                } else {
                    w.to_le_bytes()
                };
                bytes[at..at + 4].copy_from_slice(&b);
            };
            let clean = one_influence_vertices(48, big_endian, 5);
            assert_eq!(scan.passing_vertices(&clean), 48);
            // Only whole groups count.
            assert_eq!(scan.passing_vertices(&clean[..clean.len() - 1]), 32);
            assert_eq!(scan.passing_vertices(&clean[..ONE_INFLUENCE_GROUP - 1]), 0);
            assert_eq!(scan.passing_vertices(&[]), 0);
            let mut b = clean.clone();
            put(&mut b, 36 * 20 + 4, f32::NAN.to_bits());
            assert_eq!(scan.passing_vertices(&b), 20);
            let floats = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, -f32::NAN];
            let floats = floats.map(f32::to_bits);
            let influences = [
                accepted.0 - 1,
                accepted.0,
                accepted.1,
                accepted.1 + 1,
                0,
                (-1.0f32).to_bits(),
                f32::NAN.to_bits(),
            ];
            // Every word of every vertex, in turn.
            for v in 0..48 {
                for k in 0..9 {
                    let values: &[u32] = match k {
                        0 => &[0, 2, u32::MAX, 0x0100_0000],
                        4 => &influences,
                        8 => &[3, 4, 5, 6, u32::MAX],
                        _ => &floats,
                    };
                    for &value in values {
                        let mut b = clean.clone();
                        put(&mut b, 36 * v + 4 * k, value);
                        assert_eq!(
                            scan.passing_vertices(&b),
                            one_influence_reference(&b, big_endian, 5, accepted),
                            "{big_endian}: vertex {v} word {k} = {value:#x}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn the_word_scan_finds_any_failing_word_at_every_position_and_length() {
        use crate::skin::scan::below;
        if !supported() {
            return;
        }
        for big_endian in [false, true] {
            let encode = |w: u32| {
                if big_endian {
                    w.to_be_bytes()
                } else {
                    w.to_le_bytes()
                }
            };
            let words_of = |values: &[u32]| values.iter().flat_map(|&w| encode(w)).collect();
            let reference = |bytes: &[u8], (keep, low, span): (u32, u32, u32)| {
                bytes.chunks_exact(4).any(|b| {
                    let b = [b[0], b[1], b[2], b[3]];
                    let w = if big_endian {
                        u32::from_be_bytes(b)
                    } else {
                        u32::from_le_bytes(b)
                    };
                    (w & keep).wrapping_sub(low) > span
                })
            };
            let check = |bytes: &[u8], test| {
                assert_eq!(
                    try_any_word_fails(bytes, big_endian, test),
                    Some(reference(bytes, test)),
                    "{big_endian}: {} bytes, test {test:x?}",
                    bytes.len()
                );
            };
            // Every length up to five registers and a bit, each position broken in turn.
            for len in 0..84 {
                let values: Vec<u32> = (0..len).map(|i| i % 7).collect();
                let clean: Vec<u8> = words_of(&values);
                for test in [below(7), below(6), below(0), below(u32::MAX)] {
                    check(&clean, test);
                }
                for at in 0..len as usize {
                    for value in [6, 7, 8, u32::MAX, 0x0700_0000] {
                        let mut b = clean.clone();
                        b[4 * at..4 * at + 4].copy_from_slice(&encode(value));
                        check(&b, below(7));
                    }
                    for value in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, f32::MAX, -0.0] {
                        let mut b = clean.clone();
                        b[4 * at..4 * at + 4].copy_from_slice(&encode(value.to_bits()));
                        check(&b, crate::skin::scan::FINITE);
                    }
                }
                // A trailing partial word is not looked at.
                let mut b = clean.clone();
                b.extend_from_slice(&[0xFF; 3]);
                assert_eq!(try_any_word_fails(&b, big_endian, below(7)), Some(false));
            }
        }
    }
}
