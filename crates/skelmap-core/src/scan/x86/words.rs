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
//! - [`VertexWalkScan`]: the same walk for vertices of any influence count, a vertex at a
//!   time and a record (eight words, one 256-bit register) at a time: the chain stays, but
//!   each record costs a load, a byte swap and one test of its eight words where the scalar
//!   walk tests them one by one.
//! - [`try_md4_vertices`]: MD4 vertices (MDR, MDM), a 24-byte head and 20-byte weights, a
//!   vertex of 1 to 4 weights in one or two registers with a test per word; each count has
//!   its own code, which steps by a constant, so the chain of counts runs through a
//!   predicted branch rather than through the loaded count.
//! - [`try_any_word_fails`]: one test for every word of a flat table (triangle corners, bone
//!   references, texture coordinates), four registers a step; [`try_any_record_word_fails`]
//!   the same with a test per word of records of up to sixteen words (ZYM's vertices: a bone
//!   number and three floats).
//!
//! Without AVX-512, AVX2 runs each of these the same way in 32-byte registers (see the parent
//! module).

use crate::scan::{ANY, FINITE, Md4Stop, ONE_INFLUENCE_GROUP, WalkStop, Walked};
use core::arch::x86_64::{
    __m256i, __m512i, _mm_extract_epi32, _mm256_and_si256, _mm256_castsi256_ps,
    _mm256_castsi256_si128, _mm256_cmpeq_epi32, _mm256_cmpgt_epu32_mask, _mm256_loadu_si256,
    _mm256_max_epu32, _mm256_movemask_ps, _mm256_or_si256, _mm256_setzero_si256,
    _mm256_shuffle_epi8, _mm256_sub_epi32, _mm256_testz_si256, _mm256_xor_si256, _mm512_and_si512,
    _mm512_cmpgt_epu32_mask, _mm512_loadu_si512, _mm512_maskz_loadu_epi32, _mm512_shuffle_epi8,
    _mm512_sub_epi32,
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

    /// The lanes of `v` whose word fails its test. The tables are loaded where they are used:
    /// the compiler hoists those loads out of the scans' loops (in `one_influence_vertices`
    /// all 27 registers of tables stay in registers, as `perf annotate` shows), so copying
    /// them into an array of registers by hand saves nothing. The `dpm/<model>` rows of
    /// `benches/open_validate.rs` time these scans, the one-influence models
    /// (`xon_onslaught_reactor`, `xon_vehicles_wakizashi_cockpit`) most of all.
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

    /// [`WordTests::failing`] of words `8 H ..` of the tables, on AVX2: the failing lanes of
    /// `v` are those not zero (a word's offset above its span changes their maximum).
    #[target_feature(enable = "avx2")]
    fn failing_avx2<const H: usize>(&self, v: __m256i) -> __m256i {
        const { assert!(H < 2) };
        // SAFETY: each table is sixteen words, and an unaligned load reads words `8 H ..
        // 8 H + 8` of it.
        let (keep, low, span) = unsafe {
            (
                _mm256_loadu_si256(self.keep.as_ptr().add(8 * H).cast()),
                _mm256_loadu_si256(self.low.as_ptr().add(8 * H).cast()),
                _mm256_loadu_si256(self.span.as_ptr().add(8 * H).cast()),
            )
        };
        let offset = _mm256_sub_epi32(_mm256_and_si256(v, keep), low);
        _mm256_xor_si256(_mm256_max_epu32(offset, span), span)
    }

    /// The failing words of a 64-byte block (bit `w` for word `w`), on AVX2.
    #[target_feature(enable = "avx2")]
    fn failing_block_avx2<const SWAP: bool>(&self, block: &[u8; 64]) -> u16 {
        let [a, b] = native_halves::<SWAP>(block);
        let zero = _mm256_setzero_si256();
        let passing = |v: __m256i| {
            _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(v, zero))) as u16
        };
        !(passing(self.failing_avx2::<0>(a)) | (passing(self.failing_avx2::<1>(b)) << 8))
    }
}

/// The two registers of a 64-byte block, in native word order.
#[target_feature(enable = "avx2")]
fn native_halves<const SWAP: bool>(block: &[u8; 64]) -> [__m256i; 2] {
    let [a, b] = super::halves(block);
    [native_avx2::<SWAP>(a), native_avx2::<SWAP>(b)]
}

/// `v` in native word order on AVX2: byte-swapped word by word when the file is big-endian.
#[target_feature(enable = "avx2")]
fn native_avx2<const SWAP: bool>(v: __m256i) -> __m256i {
    if SWAP {
        // SAFETY: `SWAP_WORDS` is 64 bytes, and an unaligned load reads the first 32. Each
        // 128-bit half of the shuffle indexes its own bytes: those 32 indices reverse every
        // word of both halves.
        let swap = unsafe { _mm256_loadu_si256(SWAP_WORDS.as_ptr().cast()) };
        _mm256_shuffle_epi8(v, swap)
    } else {
        v
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
    words_fail(
        bytes,
        big_endian,
        &WordTests::new(|_| (keep, low, span)),
        true,
    )
}

/// [`try_any_word_fails`] with a test per word of a record: records of `tests.len()` words
/// (1, 2, 4, 8 or 16, `bytes` starting at one), word `k` of each taking test `k`. `None` for
/// another length.
pub(crate) fn try_any_record_word_fails(
    bytes: &[u8],
    big_endian: bool,
    tests: &[(u32, u32, u32)],
) -> Option<bool> {
    // A register's sixteen words are then whole records, and every register starts one; the
    // length being a power of two, a mask finds a word's test.
    if !tests.len().is_power_of_two() || tests.len() > 16 {
        return None;
    }
    let last = tests.len() - 1;
    words_fail(
        bytes,
        big_endian,
        &WordTests::new(|w| tests[w & last]),
        true,
    )
}

/// The scan of [`try_any_word_fails`] with each lane's test given: AVX-512's where the CPU
/// has it and `wide` is set, else AVX2's.
fn words_fail(bytes: &[u8], big_endian: bool, tests: &WordTests, wide: bool) -> Option<bool> {
    if wide && supported() {
        // SAFETY: the CPU was just found to support AVX-512F and BW.
        Some(unsafe {
            if big_endian {
                any_word_fails::<true>(tests, bytes)
            } else {
                any_word_fails::<false>(tests, bytes)
            }
        })
    } else {
        // SAFETY: the CPU was just found to support AVX2.
        super::avx2().then(|| unsafe {
            if big_endian {
                any_word_fails_avx2::<true>(tests, bytes)
            } else {
                any_word_fails_avx2::<false>(tests, bytes)
            }
        })
    }
}

/// [`any_word_fails`] on AVX2: 64 bytes a step in two registers, the last partial step from
/// a zero-padded copy whose words after the end are left out.
///
/// # Safety
///
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
unsafe fn any_word_fails_avx2<const SWAP: bool>(tests: &WordTests, bytes: &[u8]) -> bool {
    let words = &bytes[..bytes.len() / 4 * 4];
    let mut bad = _mm256_setzero_si256();
    let mut steps = words.chunks_exact(64);
    for step in &mut steps {
        let Some(block) = step.first_chunk::<64>() else {
            continue;
        };
        let [a, b] = native_halves::<SWAP>(block);
        bad = _mm256_or_si256(bad, tests.failing_avx2::<0>(a));
        bad = _mm256_or_si256(bad, tests.failing_avx2::<1>(b));
    }
    let rest = steps.remainder();
    let tail = if rest.is_empty() {
        0
    } else {
        let lanes = u16::MAX >> (16 - rest.len() / 4);
        tests.failing_block_avx2::<SWAP>(&super::padded(rest)) & lanes
    };
    _mm256_testz_si256(bad, bad) == 0 || tail != 0
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
    /// Whether AVX-512 runs the scan (else AVX2).
    wide: bool,
    tests: [WordTests; 9],
}

impl OneInfluenceScan {
    /// `None` when the CPU lacks AVX-512 (F and BW) and AVX2, or the model has no bone (no
    /// record passes). `influence` is the accepted influence range, as the bits of two
    /// positive floats.
    pub(crate) fn new(big_endian: bool, num_bones: u32, influence: (u32, u32)) -> Option<Self> {
        let max_bone = num_bones.checked_sub(1)?;
        let wide = supported();
        if !(wide || super::avx2()) || influence.1 < influence.0 {
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
        Some(OneInfluenceScan {
            big_endian,
            wide,
            tests,
        })
    }

    /// How many one-influence vertices at the start of `bytes` pass, up to the first that does
    /// not; `bytes` is looked at in whole groups of sixteen (a partial group passes nothing).
    pub(crate) fn passing_vertices(&self, bytes: &[u8]) -> usize {
        // SAFETY: the constructor found the CPU to support AVX-512F and BW where `wide` is
        // set, and AVX2 where it is not.
        unsafe {
            match (self.wide, self.big_endian) {
                (true, true) => one_influence_vertices::<true>(self, bytes),
                (true, false) => one_influence_vertices::<false>(self, bytes),
                (false, true) => one_influence_vertices_avx2::<true>(self, bytes),
                (false, false) => one_influence_vertices_avx2::<false>(self, bytes),
            }
        }
    }

    /// The same scan run by AVX2, whatever else the CPU has.
    #[cfg(test)]
    fn narrow(self) -> Self {
        OneInfluenceScan {
            wide: false,
            ..self
        }
    }
}

/// [`one_influence_vertices`] on AVX2: a group is nine 64-byte blocks, each in two registers
/// against its tables' halves.
///
/// # Safety
///
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
unsafe fn one_influence_vertices_avx2<const SWAP: bool>(
    scan: &OneInfluenceScan,
    bytes: &[u8],
) -> usize {
    let mut vertices = 0;
    for group in bytes.chunks_exact(ONE_INFLUENCE_GROUP) {
        let blocks = group.chunks_exact(64).filter_map(<[u8]>::first_chunk::<64>);
        let mut bad = _mm256_setzero_si256();
        for (block, tests) in blocks.clone().zip(&scan.tests) {
            let [a, b] = native_halves::<SWAP>(block);
            bad = _mm256_or_si256(bad, tests.failing_avx2::<0>(a));
            bad = _mm256_or_si256(bad, tests.failing_avx2::<1>(b));
        }
        if _mm256_testz_si256(bad, bad) == 0 {
            // The first failing word, found again only for the group that stops the scan.
            for (r, (block, tests)) in blocks.zip(&scan.tests).enumerate() {
                let failing = tests.failing_block_avx2::<SWAP>(block);
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

/// The walk of bone vertices of any influence count: each vertex's count must be
/// `1 ..= max_per_vertex`, its records must lie in the bytes, every float of them be finite and
/// every `bonenum` below the bone count, and its influences, added in record order from 0 as
/// `f32`, sum to within `tolerance` of 1.
#[derive(Debug, Clone)]
pub(crate) struct VertexWalkScan {
    big_endian: bool,
    /// Whether AVX-512 runs the walk (else AVX2).
    wide: bool,
    max_per_vertex: u32,
    tolerance: f32,
    /// The highest bone index.
    max_bone: u32,
}

impl VertexWalkScan {
    /// `None` when the CPU lacks AVX-512 (F, BW and VL) and AVX2, or the model has no bone (no
    /// record passes).
    pub(crate) fn new(
        big_endian: bool,
        num_bones: u32,
        max_per_vertex: u32,
        tolerance: f32,
    ) -> Option<Self> {
        let max_bone = num_bones.checked_sub(1)?;
        let wide = supported() && is_x86_feature_detected!("avx512vl");
        (wide || super::avx2()).then_some(VertexWalkScan {
            big_endian,
            wide,
            max_per_vertex,
            tolerance,
            max_bone,
        })
    }

    /// `scan::VertexWalk::walk`.
    pub(crate) fn walk(&self, bytes: &[u8], stop: WalkStop) -> Walked {
        // SAFETY: the constructor found the CPU to support AVX-512F, BW and VL where `wide`
        // is set, and AVX2 where it is not.
        unsafe {
            match (self.wide, self.big_endian) {
                (true, true) => walk_vertices::<true>(self, bytes, stop),
                (true, false) => walk_vertices::<false>(self, bytes, stop),
                (false, true) => walk_vertices_avx2::<true>(self, bytes, stop),
                (false, false) => walk_vertices_avx2::<false>(self, bytes, stop),
            }
        }
    }

    /// The same walk run by AVX2, whatever else the CPU has.
    #[cfg(test)]
    fn narrow(self) -> Self {
        VertexWalkScan {
            wide: false,
            ..self
        }
    }

    /// A record's tests, as `(keep, low, span)` words: seven finite floats, then `bonenum`.
    fn record_tests(&self) -> [[i32; 8]; 3] {
        let (keep, low, max) = (FINITE.0 as i32, FINITE.1 as i32, FINITE.2 as i32);
        let mut span = [max; 8];
        span[7] = self.max_bone as i32;
        let mut keeps = [keep; 8];
        keeps[7] = -1;
        [keeps, [low; 8], span]
    }
}

/// The walk of both widths, a vertex a step: `records` says whether a vertex's records (in
/// the file's order) pass their tests, and the sum of their influences.
#[inline(always)]
fn walk_with<const SWAP: bool>(
    scan: &VertexWalkScan,
    bytes: &[u8],
    stop: WalkStop,
    mut records: impl FnMut(&[u8]) -> (bool, f32),
) -> Walked {
    let mut walked = Walked::default();
    while let Some(&[a, b, c, d]) = bytes.get(walked.bytes..walked.bytes + 4) {
        let count = if SWAP {
            u32::from_be_bytes([a, b, c, d])
        } else {
            u32::from_le_bytes([a, b, c, d])
        };
        let n = walked.vertices;
        if n >= stop.most || (n >= stop.until && !(stop.seek && count != 1)) {
            break;
        }
        if count.wrapping_sub(1) >= scan.max_per_vertex
            || u64::from(count) > stop.budget - walked.influences
        {
            break;
        }
        let start = walked.bytes + 4;
        let Some(vertex) = bytes.get(start..start + 32 * count as usize) else {
            break;
        };
        let (pass, sum) = records(vertex);
        if !pass || (sum - 1.0).abs() > scan.tolerance {
            break;
        }
        walked.vertices += 1;
        walked.bytes = start + vertex.len();
        walked.influences += u64::from(count);
    }
    walked
}

/// A vertex a step, a record (one register) at a time; the chain of counts bounds it.
///
/// # Safety
///
/// The CPU must support AVX-512F, BW and VL.
#[target_feature(enable = "avx512f,avx512bw,avx512vl")]
unsafe fn walk_vertices<const SWAP: bool>(
    scan: &VertexWalkScan,
    bytes: &[u8],
    stop: WalkStop,
) -> Walked {
    let [keep, low, span] = scan.record_tests();
    // SAFETY: each table is eight words (32 bytes), and an unaligned load reads exactly those.
    let [keep, low, span] = unsafe {
        [
            _mm256_loadu_si256(keep.as_ptr().cast()),
            _mm256_loadu_si256(low.as_ptr().cast()),
            _mm256_loadu_si256(span.as_ptr().cast()),
        ]
    };
    let records = |records: &[u8]| {
        let (mut bad, mut sum) = (0u8, 0.0f32);
        for record in records.chunks_exact(32) {
            // SAFETY: the chunk is 32 bytes, and an unaligned load reads exactly those.
            let v = native_avx2::<SWAP>(unsafe { _mm256_loadu_si256(record.as_ptr().cast()) });
            bad |= _mm256_cmpgt_epu32_mask(_mm256_sub_epi32(_mm256_and_si256(v, keep), low), span);
            sum += f32::from_bits(_mm_extract_epi32::<3>(_mm256_castsi256_si128(v)) as u32);
        }
        (bad == 0, sum)
    };
    walk_with::<SWAP>(scan, bytes, stop, records)
}

/// [`walk_vertices`] on AVX2: a record's words fail where their offset's unsigned maximum
/// with the span is not the span.
///
/// # Safety
///
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
unsafe fn walk_vertices_avx2<const SWAP: bool>(
    scan: &VertexWalkScan,
    bytes: &[u8],
    stop: WalkStop,
) -> Walked {
    let [keep, low, span] = scan.record_tests();
    // SAFETY: as in `walk_vertices`.
    let [keep, low, span] = unsafe {
        [
            _mm256_loadu_si256(keep.as_ptr().cast()),
            _mm256_loadu_si256(low.as_ptr().cast()),
            _mm256_loadu_si256(span.as_ptr().cast()),
        ]
    };
    let records = |records: &[u8]| {
        let (mut bad, mut sum) = (_mm256_setzero_si256(), 0.0f32);
        for record in records.chunks_exact(32) {
            // SAFETY: the chunk is 32 bytes, and an unaligned load reads exactly those.
            let v = native_avx2::<SWAP>(unsafe { _mm256_loadu_si256(record.as_ptr().cast()) });
            let offset = _mm256_sub_epi32(_mm256_and_si256(v, keep), low);
            let above = _mm256_xor_si256(_mm256_max_epu32(offset, span), span);
            bad = _mm256_or_si256(bad, above);
            sum += f32::from_bits(_mm_extract_epi32::<3>(_mm256_castsi256_si128(v)) as u32);
        }
        (_mm256_testz_si256(bad, bad) == 1, sum)
    };
    walk_with::<SWAP>(scan, bytes, stop, records)
}

/// `scan::md4_vertices`; `None` when the CPU lacks AVX-512 (F and BW) and AVX2.
pub(crate) fn try_md4_vertices(bytes: &[u8], stop: Md4Stop) -> Option<Walked> {
    if supported() {
        // SAFETY: the CPU supports AVX-512F and BW.
        Some(unsafe { md4_vertices(bytes, stop) })
    } else {
        try_md4_vertices_avx2(bytes, stop)
    }
}

/// [`try_md4_vertices`] on AVX2, whatever else the CPU has; `None` without it.
pub(crate) fn try_md4_vertices_avx2(bytes: &[u8], stop: Md4Stop) -> Option<Walked> {
    // SAFETY: the CPU supports AVX2.
    super::avx2().then(|| unsafe { md4_vertices_avx2(bytes, stop) })
}

/// Lanes of an MD4 vertex of at most 4 weights: a head of 6 words, 5 a weight.
const MD4_LANES: usize = 6 + 5 * 4;

/// The bytes of an MD4 vertex of at most 4 weights.
const MD4_BYTES: usize = 4 * MD4_LANES;

/// The test of word `w` of an MD4 vertex of up to 4 weights: the head's normal and texture
/// coordinate finite, its count taken as it is (checked before), each weight's bone index at
/// most `max_index` and its weight and offset finite; words past the vertex pass.
fn md4_test(w: usize, max_index: u32) -> (u32, u32, u32) {
    match w {
        0..5 => FINITE,
        5 => ANY,
        w if w < MD4_LANES && (w - 6) % 5 == 0 => (u32::MAX, 0, max_index),
        w if w < MD4_LANES => FINITE,
        _ => ANY,
    }
}

/// The walk of both widths: `vertex(window, count)` is the bytes of the vertex at the start
/// of `window` when it passes (its count already checked), else `None`. It stops short of
/// the last [`MD4_BYTES`] of `bytes` (the end of a file), which the format's pass takes, so
/// that every vertex it reads lies in a window of known length.
#[inline(always)]
fn md4_walk(
    bytes: &[u8],
    stop: Md4Stop,
    mut vertex: impl FnMut(&[u8; MD4_BYTES], u32) -> Option<usize>,
) -> Walked {
    let mut walked = Walked::default();
    while walked.vertices < stop.most {
        let Some(window) = bytes
            .get(walked.bytes..)
            .and_then(<[u8]>::first_chunk::<MD4_BYTES>)
        else {
            break;
        };
        let [.., a, b, c, d] = *window.first_chunk::<24>().unwrap_or(&[0; 24]);
        let count = u32::from_le_bytes([a, b, c, d]);
        if count.wrapping_sub(1) >= stop.max_weights
            || u64::from(count) > stop.budget - walked.influences
        {
            break;
        }
        let Some(step) = vertex(window, count) else {
            break;
        };
        walked.vertices += 1;
        walked.bytes += step;
        walked.influences += u64::from(count);
    }
    walked
}

/// The sum of the `N` weights of the vertex at the start of `window`, added in order from 0
/// as `f32`.
#[inline(always)]
fn md4_weight_sum<const N: usize>(window: &[u8; MD4_BYTES]) -> f32 {
    let weight = |k: usize| {
        let at = 24 + 20 * k + 4;
        let [a, b, c, d] = [window[at], window[at + 1], window[at + 2], window[at + 3]];
        f32::from_le_bytes([a, b, c, d])
    };
    (0..N).fold(0.0f32, |sum, k| sum + weight(k))
}

/// The walk of MD4 vertices: a vertex at a time, its words in one register (1 or 2 weights)
/// or two (3 or 4), each word against [`md4_test`]. Each count has its own code, which steps
/// by a constant, so the chain of counts runs through a predicted branch.
///
/// # Safety
///
/// The CPU must support AVX-512F and BW.
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn md4_vertices(bytes: &[u8], stop: Md4Stop) -> Walked {
    let test = |w: usize| md4_test(w, stop.max_index);
    let tests = [WordTests::new(test), WordTests::new(|w| test(16 + w))];
    let (tolerance, tests) = (stop.tolerance, &tests);
    md4_walk(bytes, stop, |window, count| match count {
        1 => md4_vertex::<1>(window, tests, tolerance),
        2 => md4_vertex::<2>(window, tests, tolerance),
        3 => md4_vertex::<3>(window, tests, tolerance),
        4 => md4_vertex::<4>(window, tests, tolerance),
        _ => None,
    })
}

/// The bytes of the vertex of `N` weights at the start of `window` when it passes `tests`
/// and its weights, added in order from 0 as `f32`, sum to within `tolerance` of 1.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn md4_vertex<const N: usize>(
    window: &[u8; MD4_BYTES],
    tests: &[WordTests; 2],
    tolerance: f32,
) -> Option<usize> {
    const { assert!(N >= 1 && N <= 4) };
    let size = 24 + 20 * N;
    let lanes = size / 4;
    let first = u16::MAX >> 16usize.saturating_sub(lanes);
    // SAFETY: the masked load reads the first `min(lanes, 16)` words of `window`, which has
    // `MD4_LANES ≥ lanes` words.
    let v = unsafe { _mm512_maskz_loadu_epi32(first, window.as_ptr().cast()) };
    let mut failing = tests[0].failing(v) & first;
    if lanes > 16 {
        let second = u16::MAX >> (32 - lanes);
        // SAFETY: the masked load reads words 16 .. lanes of `window`, which has
        // `MD4_LANES ≥ lanes` words.
        let v = unsafe { _mm512_maskz_loadu_epi32(second, window.as_ptr().add(64).cast()) };
        failing |= tests[1].failing(v) & second;
    }
    let sum = md4_weight_sum::<N>(window);
    (failing == 0 && (sum - 1.0).abs() <= tolerance).then_some(size)
}

/// [`md4_vertices`] on AVX2: a vertex's words in registers of eight from words 0, 8 and 16,
/// and from word 18 (so that no load passes the window's 26 words), as many as its count
/// needs.
///
/// # Safety
///
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
unsafe fn md4_vertices_avx2(bytes: &[u8], stop: Md4Stop) -> Walked {
    let test = |w: usize| md4_test(w, stop.max_index);
    let tests = [
        WordTests::new(test),
        WordTests::new(|w| test(16 + w)),
        WordTests::new(|w| test(18 + w)),
    ];
    let (tolerance, tests) = (stop.tolerance, &tests);
    md4_walk(bytes, stop, |window, count| match count {
        1 => md4_vertex_avx2::<1>(window, tests, tolerance),
        2 => md4_vertex_avx2::<2>(window, tests, tolerance),
        3 => md4_vertex_avx2::<3>(window, tests, tolerance),
        4 => md4_vertex_avx2::<4>(window, tests, tolerance),
        _ => None,
    })
}

/// [`md4_vertex`] on AVX2.
#[inline]
#[target_feature(enable = "avx2")]
fn md4_vertex_avx2<const N: usize>(
    window: &[u8; MD4_BYTES],
    tests: &[WordTests; 3],
    tolerance: f32,
) -> Option<usize> {
    const { assert!(N >= 1 && N <= 4) };
    let size = 24 + 20 * N;
    let lanes = size / 4;
    // The failing words of the register of words `word ..= word + 7`, as bits `word ..`.
    let bits = |word: usize, failing: __m256i| {
        let zero = _mm256_setzero_si256();
        let passing = _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(failing, zero)));
        u32::from(!(passing as u8)) << word
    };
    let load = |word: usize| match window.get(4 * word..).and_then(<[u8]>::first_chunk::<32>) {
        // SAFETY: the chunk is 32 bytes, and an unaligned load reads exactly those.
        Some(chunk) => unsafe { _mm256_loadu_si256(chunk.as_ptr().cast()) },
        None => _mm256_setzero_si256(),
    };
    let mut failing = bits(0, tests[0].failing_avx2::<0>(load(0)));
    failing |= bits(8, tests[0].failing_avx2::<1>(load(8)));
    if lanes > 16 {
        failing |= bits(16, tests[1].failing_avx2::<0>(load(16)));
    }
    if lanes > 24 {
        failing |= bits(18, tests[2].failing_avx2::<0>(load(18)));
    }
    let failing = failing & (u32::MAX >> (32 - lanes));
    let sum = md4_weight_sum::<N>(window);
    (failing == 0 && (sum - 1.0).abs() <= tolerance).then_some(size)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A word's bytes in the file's order.
    fn encode(w: u32, big_endian: bool) -> [u8; 4] {
        if big_endian {
            w.to_be_bytes()
        } else {
            w.to_le_bytes()
        }
    }

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
                bytes.extend(encode(w, big_endian));
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
        if !super::super::avx2() {
            return;
        }
        let accepted = (0.99f32.to_bits(), 1.01f32.to_bits());
        assert!(OneInfluenceScan::new(false, 0, accepted).is_none());
        assert!(OneInfluenceScan::new(false, 4, (accepted.1, accepted.0)).is_none());
        // The widest scan, then AVX2's.
        let scans = [false, true].into_iter().flat_map(|big_endian| {
            let scan = OneInfluenceScan::new(big_endian, 5, accepted);
            assert!(scan.is_some(), "the CPU has AVX2");
            scan.into_iter().flat_map(|s| [s.clone(), s.narrow()])
        });
        for scan in scans {
            let big_endian = scan.big_endian;
            let put = |bytes: &mut [u8], at: usize, w: u32| {
                bytes[at..at + 4].copy_from_slice(&encode(w, big_endian));
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

    /// Bone vertices with the given influence counts, in `big_endian` order; each vertex's
    /// influences sum to 1 (the last takes the rest) and its bones run from 0.
    fn vertices_of(counts: &[u32], big_endian: bool, bones: u32) -> Vec<u8> {
        let mut words = Vec::new();
        for (v, &count) in counts.iter().enumerate() {
            words.push(count);
            let mut left = 1.0f32;
            for j in 0..count {
                let w = if j + 1 == count { left } else { 0.5 * left };
                left -= w;
                let o = v as f32 * 0.25 - 3.0;
                words.extend([o, -o, 1e30, w, 0.0, -0.0, f32::MIN].map(f32::to_bits));
                words.push((v as u32 + j) % bones);
            }
        }
        words
            .into_iter()
            .flat_map(|w| encode(w, big_endian))
            .collect()
    }

    /// What the scalar walk of validation lets a vertex walk pass over, vertex by vertex.
    fn walk_reference(
        bytes: &[u8],
        big_endian: bool,
        (bones, max_per_vertex, tolerance): (u32, u32, f32),
        (until, most, budget, seek): (u32, u32, u64, bool),
    ) -> Walked {
        let word = |at: usize| {
            let b: [u8; 4] = bytes.get(at..at + 4)?.try_into().ok()?;
            Some(if big_endian {
                u32::from_be_bytes(b)
            } else {
                u32::from_le_bytes(b)
            })
        };
        let mut walked = Walked::default();
        while let Some(count) = word(walked.bytes) {
            let n = walked.vertices;
            let go_on = n < until || (seek && count != 1);
            if n >= most || !go_on || count == 0 || count > max_per_vertex {
                break;
            }
            if u64::from(count) + walked.influences > budget {
                break;
            }
            let mut sum = 0.0f32;
            let mut fine = true;
            for j in 0..count as usize {
                let at = walked.bytes + 4 + 32 * j;
                let Some(fields) = (0..8).map(|k| word(at + 4 * k)).collect::<Option<Vec<_>>>()
                else {
                    return walked;
                };
                fine &= fields[..7].iter().all(|&w| f32::from_bits(w).is_finite());
                fine &= fields[7] < bones;
                sum += f32::from_bits(fields[3]);
            }
            if !fine || (sum - 1.0).abs() > tolerance {
                break;
            }
            walked.vertices += 1;
            walked.bytes += 4 + 32 * count as usize;
            walked.influences += u64::from(count);
        }
        walked
    }

    #[test]
    fn the_vertex_walk_stops_where_the_scalar_walk_must_look() {
        let rules = (5, 8, 0.01);
        let Some(walk) = VertexWalkScan::new(false, rules.0, rules.1, rules.2) else {
            return;
        };
        assert!(VertexWalkScan::new(false, 0, 8, 0.01).is_none());
        let counts = [1, 2, 3, 1, 1, 4, 8, 2, 5, 1, 7, 3, 6, 1, 2, 2];
        let total: u32 = counts.iter().sum();
        let n = counts.len() as u32;
        // Each byte order, by the widest walk and by AVX2's.
        let walks = [false, true].into_iter().flat_map(|big_endian| {
            let walk = VertexWalkScan {
                big_endian,
                ..walk.clone()
            };
            [walk.clone(), walk.narrow()]
        });
        for walk in walks {
            let big_endian = walk.big_endian;
            let put = |bytes: &mut [u8], at: usize, w: u32| {
                bytes[at..at + 4].copy_from_slice(&encode(w, big_endian));
            };
            let check = |bytes: &[u8], stop: (u32, u32, u64, bool), what: &str| {
                let (until, most, budget, seek) = stop;
                let at = WalkStop {
                    until,
                    most,
                    budget,
                    seek,
                };
                assert_eq!(
                    walk.walk(bytes, at),
                    walk_reference(bytes, big_endian, rules, stop),
                    "{big_endian}: {what}, stop {stop:?}"
                );
            };
            let clean = vertices_of(&counts, big_endian, rules.0);
            let everything = (n, n, u64::MAX, false);
            assert_eq!(
                walk.walk(
                    &clean,
                    WalkStop {
                        until: n,
                        most: n,
                        budget: u64::MAX,
                        seek: false
                    }
                ),
                Walked {
                    vertices: n,
                    bytes: clean.len(),
                    influences: total.into()
                }
            );
            // Where it stops: vertex counts, the influence budget, the seek for a vertex of
            // one influence, and the end of the bytes.
            for until in 0..=n {
                for seek in [false, true] {
                    check(&clean, (until, n, u64::MAX, seek), "until");
                    check(&clean, (n, until, u64::MAX, seek), "most");
                }
            }
            for budget in 0..=u64::from(total) {
                check(&clean, (n, n, budget, false), "budget");
            }
            for len in 0..clean.len() {
                check(&clean[..len], everything, "cut short");
            }
            // Every word of every record, and every count, broken in turn.
            let mut at = 0;
            for &count in &counts {
                for bad in [0, 9, u32::MAX, 0x0100_0000] {
                    let mut b = clean.clone();
                    put(&mut b, at, bad);
                    check(&b, everything, "count");
                }
                for k in 0..8 * count as usize {
                    let values: &[u32] = match k % 8 {
                        3 => &[0, 0x7F80_0000, 0x3F80_0000, 0x3DCC_CCCD],
                        7 => &[4, 5, u32::MAX],
                        _ => &[0x7F80_0000, 0xFF80_0000, 0x7FC0_0000, 0x7F7F_FFFF],
                    };
                    for &value in values {
                        let mut b = clean.clone();
                        put(&mut b, at + 4 + 4 * k, value);
                        check(&b, everything, "record");
                    }
                }
                at += 4 + 32 * count as usize;
            }
            // Sums at the tolerance's edges: a one-influence vertex's weight.
            for bits in (0.99f32.to_bits() - 3..0.99f32.to_bits() + 3)
                .chain(1.01f32.to_bits() - 3..1.01f32.to_bits() + 3)
            {
                let mut b = clean.clone();
                put(&mut b, 4 + 12, bits);
                check(&b, everything, "sum");
            }
        }
    }

    #[test]
    fn the_word_scan_finds_any_failing_word_at_every_position_and_length() {
        use crate::scan::{ANY, FINITE, below};
        if !super::super::avx2() {
            return;
        }
        for big_endian in [false, true] {
            let encode = |w: u32| encode(w, big_endian);
            let words_of = |values: &[u32]| values.iter().flat_map(|&w| encode(w)).collect();
            // Word `k` takes test `k % tests.len()`, one word at a time.
            let reference = |bytes: &[u8], tests: &[(u32, u32, u32)]| {
                bytes.chunks_exact(4).enumerate().any(|(k, b)| {
                    let (keep, low, span) = tests[k % tests.len()];
                    let b = [b[0], b[1], b[2], b[3]];
                    let w = if big_endian {
                        u32::from_be_bytes(b)
                    } else {
                        u32::from_le_bytes(b)
                    };
                    (w & keep).wrapping_sub(low) > span
                })
            };
            let check = |bytes: &[u8], tests: &[(u32, u32, u32)]| {
                let got = match tests {
                    [test] => try_any_word_fails(bytes, big_endian, *test),
                    _ => try_any_record_word_fails(bytes, big_endian, tests),
                };
                let expected = Some(reference(bytes, tests));
                let bytes_tests = (bytes.len(), tests);
                assert_eq!(got, expected, "{big_endian}: {bytes_tests:x?}");
                // AVX2's scan, whatever else the CPU has.
                let tests = WordTests::new(|w| tests[w % tests.len()]);
                let narrow = words_fail(bytes, big_endian, &tests, false);
                assert_eq!(narrow, expected, "AVX2, {big_endian}: {bytes_tests:x?}");
            };
            // Records of four words: a bone number, two floats and a word left unchecked.
            let record = [below(7), FINITE, FINITE, ANY];
            // Every length up to five registers and a bit, each position broken in turn.
            for len in 0..84 {
                let values: Vec<u32> = (0..len).map(|i| i % 7).collect();
                let clean: Vec<u8> = words_of(&values);
                for test in [below(7), below(6), below(0), below(u32::MAX)] {
                    check(&clean, &[test]);
                }
                check(&clean, &record);
                for at in 0..len as usize {
                    for value in [6, 7, 8, u32::MAX, 0x0700_0000] {
                        let mut b = clean.clone();
                        b[4 * at..4 * at + 4].copy_from_slice(&encode(value));
                        check(&b, &[below(7)]);
                        check(&b, &record);
                    }
                    for value in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, f32::MAX, -0.0] {
                        let mut b = clean.clone();
                        b[4 * at..4 * at + 4].copy_from_slice(&encode(value.to_bits()));
                        check(&b, &[FINITE]);
                        check(&b, &record);
                    }
                }
                // A trailing partial word is not looked at.
                let mut b = clean.clone();
                b.extend_from_slice(&[0xFF; 3]);
                assert_eq!(try_any_word_fails(&b, big_endian, below(7)), Some(false));
            }
        }
        // Records whose words do not tile a register are refused.
        for len in [0, 3, 5, 6, 7, 12, 17, 32] {
            assert_eq!(
                try_any_record_word_fails(&[0; 256], false, &vec![ANY; len]),
                None
            );
        }
    }

    /// MD4 vertices of the given weight counts: normal, texture coordinate, count, then per
    /// weight a bone index below `bones`, an even share and an offset.
    fn md4_vertices_of(counts: &[u32], bones: u32) -> Vec<u8> {
        let mut bytes = Vec::new();
        let put = |bytes: &mut Vec<u8>, w: u32| bytes.extend_from_slice(&w.to_le_bytes());
        for (v, &n) in counts.iter().enumerate() {
            for f in [0.0f32, -0.6, 0.8, f32::MAX, 0.5] {
                put(&mut bytes, f.to_bits());
            }
            put(&mut bytes, n);
            for w in 0..n {
                put(&mut bytes, (v as u32 + w) % bones);
                put(&mut bytes, (1.0 / n as f32).to_bits());
                for f in [w as f32, f32::MIN, -0.0] {
                    put(&mut bytes, f.to_bits());
                }
            }
        }
        bytes
    }

    /// The MD4 walk in plain Rust, field by field, with the scan's stops.
    fn md4_reference(bytes: &[u8], stop: Md4Stop) -> Walked {
        let word = |at: usize| {
            u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
        };
        let finite = |at: usize| f32::from_bits(word(at)).is_finite();
        let mut walked = Walked::default();
        while walked.vertices < stop.most && walked.bytes + MD4_BYTES <= bytes.len() {
            let at = walked.bytes;
            let count = word(at + 20);
            if !(1..=4).contains(&count)
                || count > stop.max_weights
                || u64::from(count) > stop.budget - walked.influences
                || !(0..5).all(|k| finite(at + 4 * k))
            {
                break;
            }
            let mut sum = 0.0f32;
            let weights_pass = (0..count as usize).all(|k| {
                let w = at + 24 + 20 * k;
                sum += f32::from_bits(word(w + 4));
                word(w) <= stop.max_index && (1..5).all(|f| finite(w + 4 * f))
            });
            if !weights_pass || (sum - 1.0).abs() > stop.tolerance {
                break;
            }
            walked.vertices += 1;
            walked.bytes += 24 + 20 * count as usize;
            walked.influences += u64::from(count);
        }
        walked
    }

    #[test]
    fn the_md4_walk_agrees_with_the_field_by_field_walk_on_every_damaged_word() {
        let counts = [
            1, 2, 3, 4, 2, 2, 1, 4, 3, 3, 1, 1, 2, 4, 5, 1, 2, 3, 1, 1, 1, 1,
        ];
        let clean = md4_vertices_of(&counts, 6);
        let stop = Md4Stop {
            most: u32::MAX,
            max_weights: 8,
            budget: u64::MAX,
            max_index: 5,
            tolerance: 0.01,
        };
        let Some(whole) = try_md4_vertices(&clean, stop) else {
            return;
        };
        // Up to the vertex of 5 weights, which the format's pass takes.
        assert_eq!(whole.vertices, 14);
        assert_eq!(whole, md4_reference(&clean, stop));
        let stops = [
            stop,
            Md4Stop {
                max_weights: 3,
                ..stop
            },
            Md4Stop { budget: 20, ..stop },
            Md4Stop { most: 9, ..stop },
            Md4Stop {
                max_index: 4,
                ..stop
            },
            Md4Stop {
                tolerance: 0.0,
                ..stop
            },
        ];
        let damage = [
            f32::NAN.to_bits(),
            f32::INFINITY.to_bits(),
            f32::NEG_INFINITY.to_bits(),
            0,
            1,
            4,
            6,
            u32::MAX,
            0x3F00_0000,
        ];
        let mut differ = 0;
        for stop in stops {
            for at in (0..clean.len()).step_by(4) {
                for value in damage {
                    let mut bytes = clean.clone();
                    bytes[at..at + 4].copy_from_slice(&value.to_le_bytes());
                    let walked = try_md4_vertices(&bytes, stop);
                    let expected = Some(md4_reference(&bytes, stop));
                    assert_eq!(walked, expected, "word {at} = {value:#x}");
                    let narrow = try_md4_vertices_avx2(&bytes, stop);
                    assert_eq!(narrow, expected, "AVX2: word {at} = {value:#x}");
                    differ += usize::from(walked != Some(whole));
                }
            }
            for len in 0..clean.len() {
                let expected = Some(md4_reference(&clean[..len], stop));
                assert_eq!(
                    try_md4_vertices(&clean[..len], stop),
                    expected,
                    "cut at {len}"
                );
                let narrow = try_md4_vertices_avx2(&clean[..len], stop);
                assert_eq!(narrow, expected, "AVX2: cut at {len}");
            }
        }
        assert!(differ > 1000, "{differ}");
    }
}
