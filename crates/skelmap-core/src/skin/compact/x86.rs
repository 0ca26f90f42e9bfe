//! The compact kernel on AVX-512F (16 folded vertices per block) and on AVX2 + FMA (two halves
//! of 8).
//!
//! Per influence row the lanes' weights (`u16`) are widened and the weighted matrices of their
//! bones summed: a row of a few bones broadcasts each bone's twelve entries into the lanes of
//! its mask, so that one multiply-add per entry serves the whole row; any other row widens
//! the lanes' bones (`u8` or `u16`) and looks their entries up with the prepared kernel's
//! [`Lookup`] or [`Lookup8`]. The blended matrix then transforms the dequantised position
//! and normal.
#![allow(unsafe_code)]

use core::arch::x86_64::{
    __m256, __m256i, __m512, __m512i, __mmask16, _CMP_GT_OQ, _CMP_LT_OQ, _mm_loadl_epi64,
    _mm_loadu_ps, _mm_loadu_si128, _mm_storeu_ps, _mm256_and_si256, _mm256_blendv_ps,
    _mm256_castsi256_ps, _mm256_cmpeq_epi32, _mm256_cvtepi16_epi32, _mm256_cvtepi32_ps,
    _mm256_cvtepu8_epi32, _mm256_cvtepu16_epi32, _mm256_fmadd_ps, _mm256_loadu_si256,
    _mm256_mul_ps, _mm256_set1_epi32, _mm256_set1_ps, _mm256_setr_epi32, _mm256_setzero_ps,
    _mm256_setzero_si256, _mm256_storeu_ps, _mm512_add_ps, _mm512_castps128_ps512,
    _mm512_cmp_ps_mask, _mm512_cvtepi16_epi32, _mm512_cvtepi32_ps, _mm512_cvtepu8_epi32,
    _mm512_cvtepu16_epi32, _mm512_fmadd_ps, _mm512_fmsub_ps, _mm512_fnmadd_ps, _mm512_insertf32x4,
    _mm512_loadu_si512, _mm512_mask_add_ps, _mm512_mask_mov_ps, _mm512_mask_mul_ps,
    _mm512_mask_sub_ps, _mm512_mask3_fmadd_ps, _mm512_mul_ps, _mm512_permutex2var_ps,
    _mm512_rsqrt14_ps, _mm512_set1_epi32, _mm512_set1_ps, _mm512_setzero_ps, _mm512_storeu_ps,
};

use super::{
    BlockData, CompactRun, FEW, FewBones, NORMAL_ONE, RunScratch, WEIGHT_ONE, copy_placed_with,
    lane_of,
};
use crate::skin::blocks::{BlockOut, LANES};
use crate::skin::output::Sink;
use crate::skin::x86::{
    Lookup, Lookup8, by_palette_and_stream, store_interleaved, stream_interleaved,
};

/// Skins every block of `run` into `sink` (indexed from the run's first vertex) with the
/// AVX-512 kernel (`avx512 == true`) or the AVX2 one; `false` (and nothing written) when the
/// CPU lacks the features.
pub(crate) fn try_compact(avx512: bool, run: CompactRun<'_>, sink: &mut impl Sink) -> bool {
    let avx2 = is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma");
    if avx512 && avx2 && is_x86_feature_detected!("avx512f") {
        // SAFETY: the CPU was just found to support AVX-512F, AVX2 and FMA.
        unsafe { compact_avx512(run, sink) };
        true
    } else if !avx512 && avx2 {
        // SAFETY: the CPU was just found to support AVX2 and FMA.
        unsafe { compact_avx2(run, sink) };
        true
    } else {
        false
    }
}

/// `[e(0), e(1), e(2)]` for an expression `e` of `$i`, written out. A closure that holds
/// AVX-512 values, handed to `core::array::from_fn`, `map`, `fold` or `bool::then`, may stay
/// an out-of-line call, since those generic bodies lack the target features: the values then
/// pass through memory, and a kernel so written spends a large part of its time on those
/// round trips (`perf report` shows the closures as symbols of their own; the
/// `compact-dqs/<level>` rows of `benches/skin.rs` time the dual-quaternion kernel that uses
/// this macro).
macro_rules! each3 {
    (|$i:ident| $e:expr) => {
        [
            {
                let $i = 0usize;
                $e
            },
            {
                let $i = 1usize;
                $e
            },
            {
                let $i = 2usize;
                $e
            },
        ]
    };
}

/// Skins every block of `run`, with the look-up that suits its palette.
///
/// # Safety
///
/// The CPU must support AVX-512F, AVX2 and FMA.
#[target_feature(enable = "avx512f,avx2,fma")]
unsafe fn compact_avx512(run: CompactRun<'_>, sink: &mut impl Sink) {
    by_palette_and_stream!(blocks, run, sink, 3);
}

/// 16 lanes of `u16` from `row` (at least 16 long) as `i32`.
#[inline]
#[target_feature(enable = "avx512f,avx2")]
fn widen_u16(row: &[u16]) -> __m512i {
    if row.len() < LANES {
        return _mm512_set1_epi32(0);
    }
    // SAFETY: `row` holds at least 16 `u16`s, the 32 bytes read.
    _mm512_cvtepu16_epi32(unsafe { _mm256_loadu_si256(row.as_ptr().cast()) })
}

/// 16 lanes of bones from `row` (16 bytes, or 32 when `wide`) as `i32`.
#[inline]
#[target_feature(enable = "avx512f,avx2")]
fn bones(row: &[u8], wide: bool) -> __m512i {
    if row.len() < if wide { 2 * LANES } else { LANES } {
        return _mm512_set1_epi32(0);
    }
    // SAFETY: `row` holds the 32 (wide) or 16 bytes read.
    unsafe {
        if wide {
            _mm512_cvtepu16_epi32(_mm256_loadu_si256(row.as_ptr().cast()))
        } else {
            _mm512_cvtepu8_epi32(_mm_loadu_si128(row.as_ptr().cast()))
        }
    }
}

/// Per block, what both AVX-512 kernels decode the same way.
struct Decode {
    weight: __m512,
    origin: [__m512; 3],
    step: [__m512; 3],
    snorm: __m512,
}

impl Decode {
    #[target_feature(enable = "avx512f")]
    fn new(run: &CompactRun<'_>) -> Decode {
        Decode {
            weight: _mm512_set1_ps(1.0 / WEIGHT_ONE),
            origin: run.origin.map(|v| _mm512_set1_ps(v)),
            step: run.step.map(|v| _mm512_set1_ps(v)),
            snorm: _mm512_set1_ps(1.0 / NORMAL_ONE),
        }
    }

    /// The block's bind-space positions, rows `x`, `y`, `z`.
    #[inline]
    #[target_feature(enable = "avx512f,avx2,fma")]
    fn point(&self, block: &BlockData<'_>) -> [__m512; 3] {
        each3!(|a| {
            let q = widen_u16(block.position.get(a * LANES..).unwrap_or_default());
            _mm512_fmadd_ps(_mm512_cvtepi32_ps(q), self.step[a], self.origin[a])
        })
    }

    /// The block's unit normals, rows `x`, `y`, `z`.
    #[inline]
    #[target_feature(enable = "avx512f,avx2,fma")]
    fn normal(&self, block: &BlockData<'_>) -> [__m512; 3] {
        each3!(|a| match block.normal.get(a * LANES..(a + 1) * LANES) {
            Some(q) => {
                // SAFETY: `q` is 16 `i16`s, the 32 bytes read.
                let q = unsafe { _mm256_loadu_si256(q.as_ptr().cast()) };
                _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_cvtepi16_epi32(q)), self.snorm)
            }
            None => _mm512_setzero_ps(),
        })
    }
}

/// Row `j` of `block`: its bone bytes (16 or 32, or a [`FewBones`] record) and its weights;
/// `None` when the block's arrays are short (never, for a mesh built by `CompactMesh::new`).
#[inline]
#[target_feature(enable = "avx512f,avx2")]
fn row_input<'b>(
    run: &CompactRun<'_>,
    decode: &Decode,
    block: &BlockData<'b>,
    j: usize,
) -> Option<(&'b [u8], __m512)> {
    let width = if run.wide { 2 * LANES } else { LANES };
    let b = block.bones.get(j * width..(j + 1) * width)?;
    let w = block.weights.get(j * LANES..(j + 1) * LANES)?;
    Some((
        b,
        _mm512_mul_ps(_mm512_cvtepi32_ps(widen_u16(w)), decode.weight),
    ))
}

/// A few-bone row's palette columns: each bone's first entry, the lanes naming it, and how
/// many bones there are (unused columns point at bone 0 and name no lanes).
#[inline]
fn few_columns(run: &CompactRun<'_>, record: &FewBones) -> ([*const f32; FEW], [u16; FEW], usize) {
    let mut columns = [run.soa.as_ptr(); FEW];
    let mut masks = [0u16; FEW];
    let mut n = 0;
    for (&bone, &mask) in record.bones.iter().zip(&record.masks) {
        let bone = usize::from(bone);
        if mask == 0 || bone >= run.padded {
            break;
        }
        columns[n] = run.soa.as_ptr().wrapping_add(bone);
        masks[n] = mask;
        n += 1;
    }
    (columns, masks, n)
}

/// Entry `e` of the palette column at `column`, broadcast.
///
/// # Safety
///
/// `column` is a pointer from [`few_columns`] and `e < 12`: the column's bone is below
/// `padded` and `soa` holds 12 rows of `padded` floats.
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn broadcast(run: &CompactRun<'_>, column: *const f32, e: usize) -> __m512 {
    // SAFETY: the caller's contract: float `e·padded + bone` is in `soa`.
    _mm512_set1_ps(unsafe { *column.add(e * run.padded) })
}

/// Calls `f(row, lanes, weights, entries)` once for each influence row of `block`, `entries`
/// being the first `E` palette entries of each lane's bone: for a row of a few bones, each
/// bone's broadcast into the lanes of its mask (`lanes` their union); for any other row,
/// looked up (`lanes` all). `false` when the block's arrays are short.
#[inline]
#[target_feature(enable = "avx512f,avx2,fma")]
fn rows<const MODE: u8, const E: usize>(
    lookup: &Lookup<'_, MODE>,
    run: &CompactRun<'_>,
    decode: &Decode,
    block: &BlockData<'_>,
    mut f: impl FnMut(usize, __mmask16, __m512, &[__m512; E]),
) -> bool {
    if run.soa.len() < 12 * run.padded || E > 12 {
        return false;
    }
    for j in 0..block.k {
        let Some((b, w)) = row_input(run, decode, block, j) else {
            return false;
        };
        if j < 32 && block.few >> j & 1 == 1 {
            let Some(record) = FewBones::read(b) else {
                return false;
            };
            let (columns, masks, n) = few_columns(run, &record);
            let mut entries = [_mm512_setzero_ps(); E];
            for (&column, &mask) in columns.iter().zip(&masks).take(n) {
                for (e, entry) in entries.iter_mut().enumerate() {
                    // SAFETY: `column` comes from `few_columns` and `e < E ≤ 12`.
                    *entry = _mm512_mask_mov_ps(*entry, mask, unsafe { broadcast(run, column, e) });
                }
            }
            let lanes = masks.iter().fold(0, |all, m| all | m);
            if lanes != 0 {
                f(j, lanes, w, &entries);
            }
        } else {
            let (idx, upper) = lookup.index(bones(b, run.wide));
            let mut entries = [_mm512_setzero_ps(); E];
            for (e, entry) in entries.iter_mut().enumerate() {
                *entry = lookup.entry(e, idx, upper);
            }
            f(j, u16::MAX, w, &entries);
        }
    }
    true
}

/// Stores block `i`'s results: straight into the destination when it lends the block, else
/// through `out`; with non-temporal stores where `STREAM` and the destination is aligned for
/// them (see [`stream_interleaved`]).
#[inline]
#[target_feature(enable = "avx512f")]
fn store<const STREAM: bool>(
    sink: &mut impl Sink,
    i: usize,
    out: &mut BlockOut,
    positions: [__m512; 3],
    normals: Option<[__m512; 3]>,
) {
    let n = sink.len();
    let mut direct = sink.block_mut(i * LANES);
    let lent = direct.is_some();
    let (p, q) = match direct.as_mut() {
        Some((p, q)) => (&mut **p, &mut **q),
        None => (&mut out.positions, &mut out.normals),
    };
    let put = |[x, y, z]: [__m512; 3], out: &mut [[f32; 3]; LANES]| {
        if STREAM && lent {
            stream_interleaved(x, y, z, out);
        } else {
            store_interleaved(x, y, z, out);
        }
    };
    put(positions, p);
    match normals {
        Some(normals) => put(normals, q),
        None => *q = [[0.0; 3]; LANES],
    }
    if !lent {
        let lanes = n.saturating_sub(i * LANES).min(LANES);
        sink.put_run(i * LANES, &out.positions[..lanes], &out.normals[..lanes]);
    }
}

#[target_feature(enable = "avx512f,avx2,fma")]
fn blocks<const MODE: u8, const STREAM: bool>(run: CompactRun<'_>, sink: &mut impl Sink) {
    let Some(lookup) = Lookup::<MODE>::new(run.soa, run.padded) else {
        return;
    };
    if run.soa.len() < 12 * run.padded {
        return;
    }
    let decode = Decode::new(&run);
    let mut out = BlockOut::ZERO;
    for i in 0..run.blocks.len() {
        let Some(block) = run.block(i) else {
            return;
        };
        // The linear blend: a few-bone row adds each bone's entries into the lanes of its
        // mask, one masked multiply-add per entry whose operand is broadcast straight from
        // the bone's matrix (the masks of a row are disjoint, so each lane still takes one
        // multiply-add per row, as in the look-up rows and the other kernels).
        let mut m = [_mm512_setzero_ps(); 12];
        for j in 0..block.k {
            let Some((b, w)) = row_input(&run, &decode, &block, j) else {
                return;
            };
            if j < 32 && block.few >> j & 1 == 1 {
                let Some(record) = FewBones::read(b) else {
                    return;
                };
                for (&bone, &lanes) in record.bones.iter().zip(&record.masks) {
                    let Some(matrix) = run.paired.get(usize::from(bone)) else {
                        break;
                    };
                    if lanes == 0 {
                        break;
                    }
                    for (e, acc) in m.iter_mut().enumerate() {
                        // Entry `e` (row `e / 4`, column `e % 4`) in the paired layout.
                        let entry = _mm512_set1_ps(matrix[e % 4 * 8 + e / 4]);
                        *acc = _mm512_mask3_fmadd_ps(w, entry, *acc, lanes);
                    }
                }
            } else {
                let (idx, upper) = lookup.index(bones(b, run.wide));
                for (e, acc) in m.iter_mut().enumerate() {
                    *acc = _mm512_fmadd_ps(w, lookup.entry(e, idx, upper), *acc);
                }
            }
        }
        let row = |r: usize, [x, y, z]: [__m512; 3], t: __m512| {
            _mm512_fmadd_ps(
                m[r * 4],
                x,
                _mm512_fmadd_ps(m[r * 4 + 1], y, _mm512_fmadd_ps(m[r * 4 + 2], z, t)),
            )
        };
        let p = decode.point(&block);
        let positions = [row(0, p, m[3]), row(1, p, m[7]), row(2, p, m[11])];
        // (An `if`, not `bool::then`: see `each3`.)
        let normals = if run.normals {
            let (n, zero) = (decode.normal(&block), _mm512_setzero_ps());
            Some([row(0, n, zero), row(1, n, zero), row(2, n, zero)])
        } else {
            None
        };
        store::<STREAM>(sink, i, &mut out, positions, normals);
    }
}

/// Skins every block of `run` by dual quaternions with AVX-512F into `sink` (the palette's
/// rows are `real.xyzw`, `dual.xyzw`); `false` (and nothing written) when the CPU lacks the
/// features.
pub(crate) fn try_compact_dqs(run: CompactRun<'_>, sink: &mut impl Sink) -> bool {
    if is_x86_feature_detected!("avx512f")
        && is_x86_feature_detected!("avx2")
        && is_x86_feature_detected!("fma")
    {
        // SAFETY: the CPU was just found to support AVX-512F, AVX2 and FMA.
        unsafe { compact_dqs_avx512(run, sink) };
        true
    } else {
        false
    }
}

/// # Safety
///
/// The CPU must support AVX-512F, AVX2 and FMA.
#[target_feature(enable = "avx512f,avx2,fma")]
unsafe fn compact_dqs_avx512(run: CompactRun<'_>, sink: &mut impl Sink) {
    by_palette_and_stream!(dqs_blocks, run, sink, 3);
}

/// `a × b` of row triples.
#[inline]
#[target_feature(enable = "avx512f,fma")]
fn cross(a: [__m512; 3], b: [__m512; 3]) -> [__m512; 3] {
    let c = |i: usize, j: usize| _mm512_fmsub_ps(a[i], b[j], _mm512_mul_ps(a[j], b[i]));
    [c(1, 2), c(2, 0), c(0, 1)]
}

/// `v` rotated by the unit quaternion `(q, w)`: `v + 2w (q × v) + 2 q × (q × v)`.
#[inline]
#[target_feature(enable = "avx512f,fma")]
fn rotate(q: [__m512; 3], w: __m512, v: [__m512; 3]) -> [__m512; 3] {
    let two = _mm512_set1_ps(2.0);
    let c = cross(q, v);
    let t = each3!(|i| _mm512_mul_ps(two, c[i]));
    let u = cross(q, t);
    each3!(|i| _mm512_add_ps(_mm512_fmadd_ps(w, t[i], v[i]), u[i]))
}

/// `a · b` over four rows, summed from zero in row order.
#[inline]
#[target_feature(enable = "avx512f,fma")]
fn dot4(a: &[__m512; 4], b: &[__m512; 4]) -> __m512 {
    let d = _mm512_fmadd_ps(a[0], b[0], _mm512_setzero_ps());
    let d = _mm512_fmadd_ps(a[1], b[1], d);
    let d = _mm512_fmadd_ps(a[2], b[2], d);
    _mm512_fmadd_ps(a[3], b[3], d)
}

#[target_feature(enable = "avx512f,avx2,fma")]
fn dqs_blocks<const MODE: u8, const STREAM: bool>(run: CompactRun<'_>, sink: &mut impl Sink) {
    let Some(lookup) = Lookup::<MODE>::new(run.soa, run.padded) else {
        return;
    };
    let decode = Decode::new(&run);
    let mut out = BlockOut::ZERO;
    let zero = _mm512_setzero_ps();
    let identity = [
        zero,
        zero,
        zero,
        _mm512_set1_ps(1.0),
        zero,
        zero,
        zero,
        zero,
    ];
    for i in 0..run.blocks.len() {
        let Some(block) = run.block(i) else {
            return;
        };
        let (unit, total) = if block.k == 1 {
            // One influence a lane: the blend is the bone's dual quaternion, which the palette
            // holds normalised, so it is taken as it is (lanes without a bone keep the identity).
            let (mut unit, mut total) = (identity, zero);
            let whole = rows::<MODE, 8>(&lookup, &run, &decode, &block, |_, lanes, w, entries| {
                for (u, &e) in unit.iter_mut().zip(entries) {
                    *u = _mm512_mask_mov_ps(*u, lanes, e);
                }
                total = _mm512_mask_mov_ps(total, lanes, w);
            });
            if !whole {
                return;
            }
            (unit, total)
        } else {
            // Per lane: the weighted sums of real and dual parts, the weight total, and the first
            // influence's rotation (every other one is taken in its hemisphere).
            let (mut sum, mut total, mut pivot) = ([zero; 8], zero, [zero; 4]);
            let whole = rows::<MODE, 8>(&lookup, &run, &decode, &block, |j, lanes, w, entries| {
                if j == 0 {
                    for (p, &e) in pivot.iter_mut().zip(entries) {
                        *p = _mm512_mask_mov_ps(*p, lanes, e);
                    }
                }
                let dot = dot4(&[entries[0], entries[1], entries[2], entries[3]], &pivot);
                let opposite = _mm512_cmp_ps_mask::<_CMP_LT_OQ>(dot, zero);
                let signed = _mm512_mask_sub_ps(w, opposite, zero, w);
                for (acc, &entry) in sum.iter_mut().zip(entries) {
                    *acc = _mm512_mask3_fmadd_ps(signed, entry, *acc, lanes);
                }
                total = _mm512_mask_add_ps(total, lanes, total, w);
            });
            if !whole {
                return;
            }
            // Normalised; a blend of no length is the identity.
            let real = [sum[0], sum[1], sum[2], sum[3]];
            let length2 = dot4(&real, &real);
            let some = _mm512_cmp_ps_mask::<_CMP_GT_OQ>(length2, zero);
            // 1 / √length²: the 14-bit estimate and one Newton step (about 2⁻²⁷ off), where the
            // square root and the division made a chain the next block could not overlap.
            let estimate = _mm512_rsqrt14_ps(length2);
            let half = _mm512_mul_ps(_mm512_set1_ps(0.5), length2);
            let square = _mm512_mul_ps(estimate, estimate);
            let inverse = _mm512_mul_ps(
                estimate,
                _mm512_fnmadd_ps(half, square, _mm512_set1_ps(1.5)),
            );
            let mut unit = identity;
            for (u, &s) in unit.iter_mut().zip(&sum) {
                *u = _mm512_mask_mul_ps(*u, some, s, inverse);
            }
            (unit, total)
        };
        let (q, w) = ([unit[0], unit[1], unit[2]], unit[3]);
        let (d, dw) = ([unit[4], unit[5], unit[6]], unit[7]);
        // Translation 2 (w·d − dw·q + q × d), added to the rotated rest position.
        let qd = cross(q, d);
        let two = _mm512_set1_ps(2.0);
        let point = decode.point(&block);
        let moved = rotate(q, w, each3!(|c| _mm512_mul_ps(point[c], total)));
        let positions = each3!(|c| {
            let t = _mm512_fnmadd_ps(dw, q[c], _mm512_fmadd_ps(w, d[c], qd[c]));
            _mm512_fmadd_ps(two, t, moved[c])
        });
        let normals = if run.normals {
            let n = decode.normal(&block);
            Some(rotate(q, w, each3!(|c| _mm512_mul_ps(n[c], total))))
        } else {
            None
        };
        store::<STREAM>(sink, i, &mut out, positions, normals);
    }
}

/// Skins every block of `run` with AVX2 + FMA, with the look-up that suits its palette.
///
/// # Safety
///
/// The CPU must support AVX2 and FMA.
#[target_feature(enable = "avx2,fma")]
unsafe fn compact_avx2(run: CompactRun<'_>, sink: &mut impl Sink) {
    if run.padded == LANES {
        blocks_avx2::<true>(run, sink);
    } else {
        blocks_avx2::<false>(run, sink);
    }
}

/// 8 lanes of `u16` from the start of `row` (at least 8 long) as `i32`.
#[inline]
#[target_feature(enable = "avx2")]
fn widen8_u16(row: &[u16]) -> __m256i {
    if row.len() < 8 {
        return _mm256_setzero_si256();
    }
    // SAFETY: `row` holds at least 8 `u16`s, the 16 bytes read.
    _mm256_cvtepu16_epi32(unsafe { _mm_loadu_si128(row.as_ptr().cast()) })
}

/// 8 lanes of `i16` from the start of `row` (at least 8 long) as `f32`.
#[inline]
#[target_feature(enable = "avx2")]
fn widen8_i16(row: &[i16]) -> __m256 {
    if row.len() < 8 {
        return _mm256_setzero_ps();
    }
    // SAFETY: `row` holds at least 8 `i16`s, the 16 bytes read.
    _mm256_cvtepi32_ps(_mm256_cvtepi16_epi32(unsafe {
        _mm_loadu_si128(row.as_ptr().cast())
    }))
}

/// Skins every block of `run` with AVX2 + FMA, 8 lanes at a time (each block in two halves).
/// One function on purpose: its vectors stay in registers only while they stay in one
/// `#[target_feature]` body (see ARCHITECTURE.md, "SIMD values stay in the kernel's own code"),
/// so the per-row look-ups, the blend and the stores are written out in it.
#[target_feature(enable = "avx2,fma")]
fn blocks_avx2<const PERMUTE: bool>(run: CompactRun<'_>, sink: &mut impl Sink) {
    let Some(lookup) = Lookup8::<PERMUTE>::new(run.soa, run.padded) else {
        return;
    };
    if run.soa.len() < 12 * run.padded {
        return;
    }
    let weight = _mm256_set1_ps(1.0 / WEIGHT_ONE);
    let origin = run.origin.map(|v| _mm256_set1_ps(v));
    let step = run.step.map(|v| _mm256_set1_ps(v));
    let snorm = _mm256_set1_ps(1.0 / NORMAL_ONE);
    let zero = _mm256_setzero_ps();
    let bits = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    let width = if run.wide { 2 * LANES } else { LANES };
    let n = sink.len();
    let mut rows = [[0.0f32; LANES]; 6];
    for i in 0..run.blocks.len() {
        let Some(BlockData {
            position,
            normal,
            bones: bone_rows,
            weights,
            k,
            few,
        }) = run.block(i)
        else {
            return;
        };
        for lane0 in [0, 8] {
            let mut m = [_mm256_setzero_ps(); 12];
            for j in 0..k {
                let (Some(b), Some(w)) = (
                    bone_rows.get(j * width..(j + 1) * width),
                    weights.get(j * LANES + lane0..(j + 1) * LANES),
                ) else {
                    return;
                };
                let w = _mm256_mul_ps(_mm256_cvtepi32_ps(widen8_u16(w)), weight);
                if j < 32 && few >> j & 1 == 1 {
                    let Some(record) = FewBones::read(b) else {
                        return;
                    };
                    // Each bone's entries blended into the lanes that name it (zero in lanes
                    // that name none, where the weight is 0 too), then one multiply-add each.
                    let mut entries = [zero; 12];
                    for (&bone, &mask) in record.bones.iter().zip(&record.masks) {
                        let bone = usize::from(bone);
                        if mask == 0 || bone >= run.padded {
                            break;
                        }
                        let lanes = i32::from(mask >> lane0 & 0xFF);
                        if lanes == 0 {
                            continue;
                        }
                        let select = _mm256_castsi256_ps(_mm256_cmpeq_epi32(
                            _mm256_and_si256(_mm256_set1_epi32(lanes), bits),
                            bits,
                        ));
                        let column = run.soa.as_ptr().wrapping_add(bone);
                        for (e, entry) in entries.iter_mut().enumerate() {
                            // SAFETY: `bone < padded` and `soa` holds 12 rows of `padded`
                            // floats, so float `e·padded + bone` (e < 12) is in it.
                            let value = _mm256_set1_ps(unsafe { *column.add(e * run.padded) });
                            *entry = _mm256_blendv_ps(*entry, value, select);
                        }
                    }
                    for (acc, entry) in m.iter_mut().zip(entries) {
                        *acc = _mm256_fmadd_ps(w, entry, *acc);
                    }
                } else {
                    let idx = if run.wide {
                        let Some(row) = b.get(2 * lane0..2 * lane0 + 16) else {
                            return;
                        };
                        // SAFETY: `row` is the 16 bytes read.
                        _mm256_cvtepu16_epi32(unsafe { _mm_loadu_si128(row.as_ptr().cast()) })
                    } else {
                        let Some(row) = b.get(lane0..lane0 + 8) else {
                            return;
                        };
                        // SAFETY: `row` is the 8 bytes read.
                        _mm256_cvtepu8_epi32(unsafe { _mm_loadl_epi64(row.as_ptr().cast()) })
                    };
                    let (idx, upper) = lookup.index(idx);
                    for (e, entry) in m.iter_mut().enumerate() {
                        *entry = _mm256_fmadd_ps(w, lookup.entry(e, idx, upper), *entry);
                    }
                }
            }
            let axis = |a: usize| {
                let q = widen8_u16(position.get(a * LANES + lane0..).unwrap_or_default());
                _mm256_fmadd_ps(_mm256_cvtepi32_ps(q), step[a], origin[a])
            };
            let (x, y, z) = (axis(0), axis(1), axis(2));
            let row = |r: usize, x: __m256, y: __m256, z: __m256, t: __m256| {
                _mm256_fmadd_ps(
                    m[r * 4],
                    x,
                    _mm256_fmadd_ps(m[r * 4 + 1], y, _mm256_fmadd_ps(m[r * 4 + 2], z, t)),
                )
            };
            let mut out = [
                row(0, x, y, z, m[3]),
                row(1, x, y, z, m[7]),
                row(2, x, y, z, m[11]),
                zero,
                zero,
                zero,
            ];
            if run.normals {
                let fraction = |r: usize| {
                    let q = widen8_i16(normal.get(r * LANES + lane0..).unwrap_or_default());
                    _mm256_mul_ps(q, snorm)
                };
                let (nx, ny, nz) = (fraction(0), fraction(1), fraction(2));
                out[3] = row(0, nx, ny, nz, zero);
                out[4] = row(1, nx, ny, nz, zero);
                out[5] = row(2, nx, ny, nz, zero);
            }
            for (dst, value) in rows.iter_mut().zip(out) {
                // SAFETY: `dst` is 16 writable floats; the store writes 8 at `lane0` ≤ 8.
                unsafe { _mm256_storeu_ps(dst.as_mut_ptr().add(lane0), value) };
            }
        }
        let block = BlockOut::from_rows(&rows);
        let lanes = n.saturating_sub(i * LANES).min(LANES);
        sink.put_run(
            i * LANES,
            &block.positions[..lanes],
            &block.normals[..lanes],
        );
    }
}

/// `compact::copy_placed` with AVX-512F's block copy ([`copy_block_avx512`]); `false` (and
/// nothing copied) when the CPU lacks it.
pub(crate) fn copy_placed_avx512(
    positions: &RunScratch,
    normals: &RunScratch,
    place: &[u16],
    at: usize,
    sink: &mut impl Sink,
) -> bool {
    if !is_x86_feature_detected!("avx512f") {
        return false;
    }
    // SAFETY: the CPU was just found to support AVX-512F.
    unsafe { copy_placed_wide(positions, normals, place, at, sink) };
    true
}

/// [`copy_placed_avx512`] once the CPU is known to support AVX-512F.
///
/// # Safety
///
/// The CPU must support AVX-512F.
#[target_feature(enable = "avx512f")]
unsafe fn copy_placed_wide(
    positions: &RunScratch,
    normals: &RunScratch,
    place: &[u16],
    at: usize,
    sink: &mut impl Sink,
) {
    copy_placed_with(positions, normals, place, at, sink, |from, lanes, out| {
        copy_block_avx512(from, lanes, out)
    });
}

/// Copies vertex `lanes[i]` of `from` (taken by [`lane_of`]) to `out[i]`, each as one
/// 16-byte read and one 16-byte write (SSE, which every x86-64 CPU has) whose fourth float
/// the next vertex's write then covers: two memory operations a vertex where copying the
/// three floats takes four.
#[inline]
pub(crate) fn copy_block(from: &RunScratch, lanes: &[u16; LANES], out: &mut [[f32; 3]; LANES]) {
    let (src, dst) = (from.as_ptr().cast::<f32>(), out.as_mut_ptr().cast::<f32>());
    let [front @ .., last] = lanes;
    for (i, &lane) in front.iter().enumerate() {
        let at = 3 * lane_of(lane);
        // SAFETY: the read is floats `at .. at + 4`, `at + 4 ≤ 3 · CHUNK_VERTICES + 1` (a lane
        // is below `CHUNK_VERTICES`), within `from`'s `3 · (CHUNK_VERTICES + 1)` contiguous
        // floats; the write is floats `3i .. 3i + 4`, `i < 15`, within `out`'s 48 (arrays have
        // no padding).
        unsafe { _mm_storeu_ps(dst.add(3 * i), _mm_loadu_ps(src.add(at))) };
    }
    out[LANES - 1] = from[lane_of(*last)];
}

/// [`copy_block`] on AVX-512F: vertices `4k .. 4k + 4` read into the four quarters of one
/// register (their fourth floats unused), and the three registers' worth of floats picked
/// out of the four by three two-register permutes, each written by one 64-byte store.
#[inline]
#[target_feature(enable = "avx512f")]
fn copy_block_avx512(from: &RunScratch, lanes: &[u16; LANES], out: &mut [[f32; 3]; LANES]) {
    // The floats of output register `r`, as lanes of its pair (`k`, `k + 1`) of quarters
    // registers: lane `i` below 16 is float `i` of register `k`, else float `i - 16` of `k + 1`.
    const PICK: [[i32; 16]; 3] = [
        [0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, 16, 17, 18, 20],
        [5, 6, 8, 9, 10, 12, 13, 14, 16, 17, 18, 20, 21, 22, 24, 25],
        [
            10, 12, 13, 14, 16, 17, 18, 20, 21, 22, 24, 25, 26, 28, 29, 30,
        ],
    ];
    let src = from.as_ptr().cast::<f32>();
    let vertex = |lane: u16| {
        // SAFETY: the read is floats `3l .. 3l + 4` with `l = lane_of(lane)` below
        // `CHUNK_VERTICES`, within `from`'s `3 · (CHUNK_VERTICES + 1)` contiguous floats.
        unsafe { _mm_loadu_ps(src.add(3 * lane_of(lane))) }
    };
    let quarters: [__m512; 4] = core::array::from_fn(|k| {
        let v = _mm512_castps128_ps512(vertex(lanes[4 * k]));
        let v = _mm512_insertf32x4::<1>(v, vertex(lanes[4 * k + 1]));
        let v = _mm512_insertf32x4::<2>(v, vertex(lanes[4 * k + 2]));
        _mm512_insertf32x4::<3>(v, vertex(lanes[4 * k + 3]))
    });
    let dst = out.as_mut_ptr().cast::<f32>();
    for (r, pick) in PICK.iter().enumerate() {
        // SAFETY: `pick` is 16 `i32`s, read unaligned.
        let pick = unsafe { _mm512_loadu_si512(pick.as_ptr().cast()) };
        let floats = _mm512_permutex2var_ps(quarters[r], pick, quarters[r + 1]);
        // SAFETY: floats `16r .. 16r + 16`, `r < 3`, of `out`'s 48 (arrays have no padding).
        unsafe { _mm512_storeu_ps(dst.add(16 * r), floats) };
    }
}
