//! The prepared kernel on AVX-512F (16 lanes) and AVX2 + FMA (two 8-lane halves).
//!
//! A block holds 16 vertices with the same influence count `k`; influence `j` of the block is
//! one slot of seven rows of 16 floats (`ox oy oz w nx ny nz`) and a row of 16 bone indices.
//! For each slot the twelve matrix entries of every lane's bone are looked up — with a permute
//! across registers holding the whole palette when it has at most 16 (AVX2, AVX-512) or 32
//! (AVX-512) bones, else with a gather whose indices are first clamped into the palette — and
//! accumulated with fused multiply-adds into six rows of results (`px py pz nx ny nz`).

use core::arch::x86_64::{
    __m256, __m256i, __m512, __m512i, __mmask16, _mm256_blendv_ps, _mm256_castsi256_ps,
    _mm256_cmpgt_epi32, _mm256_fmadd_ps, _mm256_i32gather_ps, _mm256_loadu_ps, _mm256_loadu_si256,
    _mm256_min_epu32, _mm256_permutevar8x32_ps, _mm256_set1_epi32, _mm256_setzero_ps,
    _mm256_storeu_ps, _mm512_add_ps, _mm512_fmadd_ps, _mm512_i32gather_ps, _mm512_loadu_ps,
    _mm512_loadu_si512, _mm512_mask_blend_ps, _mm512_mask_permutexvar_ps, _mm512_min_epu32,
    _mm512_mul_ps, _mm512_permutex2var_ps, _mm512_permutexvar_ps, _mm512_set1_epi32,
    _mm512_setzero_ps, _mm512_storeu_ps, _mm512_stream_ps, _mm512_test_epi32_mask,
};

use crate::skin::blocks::{BlockDest, BlockOut, LANES, Run, SLOT};

/// For output register `r` of an interleaved `x y z x y z …` run of 16 vertices (48 floats in
/// three registers): per position, which lane of `x` (0..16) or `y` (16..32) goes there (`z`
/// positions are filled by the second step), and the lane for the `z` positions.
const fn interleave(r: usize) -> ([i32; 16], [i32; 16], u16) {
    let (mut xy, mut z, mut mask) = ([0i32; 16], [0i32; 16], 0u16);
    let mut q = 0;
    while q < 16 {
        let p = 16 * r + q;
        let (lane, component) = ((p / 3) as i32, p % 3);
        match component {
            0 => xy[q] = lane,
            1 => xy[q] = 16 + lane,
            _ => {
                z[q] = lane;
                mask |= 1 << q;
            }
        }
        q += 1;
    }
    (xy, z, mask)
}

const INTERLEAVE: [([i32; 16], [i32; 16], u16); 3] = [interleave(0), interleave(1), interleave(2)];

/// Writes rows `x`, `y`, `z` (16 lanes each) interleaved into `out` (16 × 3 floats).
#[inline]
#[target_feature(enable = "avx512f")]
pub(crate) fn store_interleaved(x: __m512, y: __m512, z: __m512, out: &mut [[f32; 3]; LANES]) {
    let dst = out.as_mut_ptr().cast::<f32>();
    for (r, (xy, zi, mask)) in INTERLEAVE.iter().enumerate() {
        // SAFETY: `xy` and `zi` are 16 `i32`s each; `out` is 48 contiguous floats (arrays have
        // no padding) and the store writes floats `16r .. 16r + 16`, r < 3.
        unsafe {
            let t = _mm512_permutex2var_ps(x, _mm512_loadu_si512(xy.as_ptr().cast()), y);
            let v = _mm512_mask_permutexvar_ps(t, *mask, _mm512_loadu_si512(zi.as_ptr().cast()), z);
            _mm512_storeu_ps(dst.add(16 * r), v);
        }
    }
}

/// [`store_interleaved`] with non-temporal stores, which write whole cache lines to memory
/// without reading them first, when `out` starts on a 64-byte boundary (its 192 bytes are
/// then three whole lines); else with ordinary stores. The caller issues the store fence
/// (`_mm_sfence`) before its results may be read by another thread.
#[inline]
#[target_feature(enable = "avx512f")]
pub(crate) fn stream_interleaved(x: __m512, y: __m512, z: __m512, out: &mut [[f32; 3]; LANES]) {
    let dst = out.as_mut_ptr().cast::<f32>();
    if !(dst as usize).is_multiple_of(64) {
        store_interleaved(x, y, z, out);
        return;
    }
    for (r, (xy, zi, mask)) in INTERLEAVE.iter().enumerate() {
        // SAFETY: as in `store_interleaved`; `dst + 16r` is 64-byte aligned, as the streaming
        // store requires, since `dst` is and 16 floats are 64 bytes.
        unsafe {
            let t = _mm512_permutex2var_ps(x, _mm512_loadu_si512(xy.as_ptr().cast()), y);
            let v = _mm512_mask_permutexvar_ps(t, *mask, _mm512_loadu_si512(zi.as_ptr().cast()), z);
            _mm512_stream_ps(dst.add(16 * r), v);
        }
    }
}

/// Skins every block of `run` with the AVX-512 kernel (`avx512 == true`) or the AVX2 one,
/// putting each block's results in `dest`; `false` (and nothing emitted) when the CPU lacks
/// the features.
pub(crate) fn try_prepared(avx512: bool, run: Run<'_>, dest: &mut impl BlockDest) -> bool {
    let avx2 = is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma");
    if avx512 && avx2 && is_x86_feature_detected!("avx512f") {
        // SAFETY: the CPU was just found to support AVX-512F, AVX2 and FMA.
        unsafe { prepared_avx512(run, dest) };
        true
    } else if !avx512 && avx2 {
        // SAFETY: the CPU was just found to support AVX2 and FMA.
        unsafe { prepared_avx2(run, dest) };
        true
    } else {
        false
    }
}

/// Skins every block of `run` with AVX-512F, putting each block's results in `dest`.
///
/// # Safety
///
/// The CPU must support AVX-512F, AVX2 and FMA.
#[target_feature(enable = "avx512f,avx2,fma")]
unsafe fn prepared_avx512(run: Run<'_>, dest: &mut impl BlockDest) {
    if !run.consistent() {
        return;
    }
    by_palette_and_stream!(blocks_avx512, run, dest);
}

/// The twelve palette rows (a [`SkinMatrices`](crate::skin::SkinMatrices) in its
/// structure-of-arrays layout) held for AVX-512 look-ups of 16 lanes' bones at once.
///
/// `MODE` 0: one-register permute (≤ 16 bones); 1: two-register permute (≤ 32); 2: two
/// two-register permutes and a blend (≤ 64); 3: clamped gather.
pub(crate) struct Lookup<'a, const MODE: u8> {
    lo: [__m512; 12],
    hi: [__m512; 12],
    soa: &'a [f32],
    padded: usize,
    last: __m512i,
    bit5: __m512i,
}

impl<'a, const MODE: u8> Lookup<'a, MODE> {
    /// The look-up over `soa`, twelve rows of `padded` floats; `None` unless `soa` holds them
    /// and `padded` is a non-zero multiple of 16 that suits `MODE` (16, 32, 64, any).
    #[target_feature(enable = "avx512f")]
    pub(crate) fn new(soa: &'a [f32], padded: usize) -> Option<Self> {
        let suits = match MODE {
            0 => padded == 16,
            1 => padded == 32,
            2 => padded == 64,
            _ => padded > 0 && padded.is_multiple_of(LANES),
        };
        if !suits || soa.len() < 12 * padded {
            return None;
        }
        let mut lo = [_mm512_setzero_ps(); 12];
        let mut hi = [_mm512_setzero_ps(); 12];
        if MODE < 2 {
            for (r, (l, h)) in lo.iter_mut().zip(hi.iter_mut()).enumerate() {
                // SAFETY: `soa` holds 12 rows of `padded` ≥ 16 floats (32 in mode 1), so floats
                // `r·padded .. r·padded + 16` (and `+ 16 .. + 32`) are in it.
                unsafe {
                    *l = _mm512_loadu_ps(soa.as_ptr().add(r * padded));
                    if MODE == 1 {
                        *h = _mm512_loadu_ps(soa.as_ptr().add(r * padded + LANES));
                    }
                }
            }
        }
        Some(Lookup {
            lo,
            hi,
            soa,
            padded,
            last: _mm512_set1_epi32((padded - 1) as i32),
            bit5: _mm512_set1_epi32(32),
        })
    }

    /// `idx` clamped into the palette (so every index addresses a float of each row), and
    /// which lanes look in the upper half of a 64-bone palette.
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(crate) fn index(&self, idx: __m512i) -> (__m512i, __mmask16) {
        let idx = _mm512_min_epu32(idx, self.last);
        (idx, _mm512_test_epi32_mask(idx, self.bit5))
    }

    /// Entry `e` (`row · 4 + column`, below 12) of each lane's bone, for indices from
    /// [`index`](Self::index).
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(crate) fn entry(&self, e: usize, idx: __m512i, upper: __mmask16) -> __m512 {
        let e = e.min(11);
        match MODE {
            0 => _mm512_permutexvar_ps(idx, self.lo[e]),
            1 => _mm512_permutex2var_ps(self.lo[e], idx, self.hi[e]),
            // SAFETY: mode 2 has `padded` = 64 (checked by `new`), so row `e` < 12 is floats
            // `64e .. 64e + 64` of `soa`, read as four 16-float loads.
            2 => unsafe {
                let row = self.soa.as_ptr().add(e * self.padded);
                let t = |q: usize| _mm512_loadu_ps(row.add(16 * q));
                _mm512_mask_blend_ps(
                    upper,
                    _mm512_permutex2var_ps(t(0), idx, t(1)),
                    _mm512_permutex2var_ps(t(2), idx, t(3)),
                )
            },
            // SAFETY: `index` clamped `idx ≤ padded − 1` lane-wise and row `e` < 12 spans floats
            // `e·padded .. (e + 1)·padded` of `soa`; the scale 4 is `size_of::<f32>`.
            _ => unsafe { _mm512_i32gather_ps::<4>(idx, self.soa.as_ptr().add(e * self.padded)) },
        }
    }
}

#[target_feature(enable = "avx512f,avx2,fma")]
fn blocks_avx512<const MODE: u8, const STREAM: bool>(run: Run<'_>, dest: &mut impl BlockDest) {
    let Some(lookup) = Lookup::<MODE>::new(run.soa, run.padded) else {
        return;
    };
    let mut out = BlockOut::ZERO;
    for b in 0..run.blocks {
        let mut acc = [_mm512_setzero_ps(); 6];
        for slot in b * run.k..(b + 1) * run.k {
            let (Some(d), Some(bi)) = (
                run.data.get(slot * SLOT..(slot + 1) * SLOT),
                run.bones.get(slot * LANES..(slot + 1) * LANES),
            ) else {
                return;
            };
            // SAFETY: `d` is `SLOT` = 7 · 16 floats and `bi` 16 `u32`s; every load reads 16
            // elements starting at a multiple of 16 inside them.
            let (idx, v) = unsafe {
                let idx = _mm512_loadu_si512(bi.as_ptr().cast::<__m512i>());
                let row = |i: usize| _mm512_loadu_ps(d.as_ptr().add(i * LANES));
                (
                    idx,
                    [row(0), row(1), row(2), row(3), row(4), row(5), row(6)],
                )
            };
            let (idx, upper) = lookup.index(idx);
            for r in 0..3 {
                let m = |c: usize| lookup.entry(r * 4 + c, idx, upper);
                let (m0, m1, m2, m3) = (m(0), m(1), m(2), m(3));
                // Two short chains per row instead of one of four.
                let p01 = _mm512_fmadd_ps(m1, v[1], _mm512_mul_ps(m0, v[0]));
                let p23 = _mm512_fmadd_ps(m3, v[3], _mm512_mul_ps(m2, v[2]));
                acc[r] = _mm512_add_ps(acc[r], _mm512_add_ps(p01, p23));
                let n01 = _mm512_fmadd_ps(m1, v[5], _mm512_mul_ps(m0, v[4]));
                acc[3 + r] = _mm512_add_ps(acc[3 + r], _mm512_fmadd_ps(m2, v[6], n01));
            }
        }
        match dest.lend(b) {
            Some((positions, normals)) if STREAM => {
                stream_interleaved(acc[0], acc[1], acc[2], positions);
                stream_interleaved(acc[3], acc[4], acc[5], normals);
            }
            Some((positions, normals)) => {
                store_interleaved(acc[0], acc[1], acc[2], positions);
                store_interleaved(acc[3], acc[4], acc[5], normals);
            }
            None => {
                store_interleaved(acc[0], acc[1], acc[2], &mut out.positions);
                store_interleaved(acc[3], acc[4], acc[5], &mut out.normals);
                dest.emit(b, &out);
            }
        }
    }
}

/// Skins every block of `run` with AVX2 + FMA, putting each block's results in `dest`.
///
/// # Safety
///
/// The CPU must support AVX2 and FMA.
#[target_feature(enable = "avx2,fma")]
unsafe fn prepared_avx2(run: Run<'_>, dest: &mut impl BlockDest) {
    if !run.consistent() {
        return;
    }
    if run.padded == LANES {
        blocks_avx2::<true>(run, dest);
    } else {
        blocks_avx2::<false>(run, dest);
    }
}

/// The twelve palette rows held for AVX2 look-ups of 8 lanes' bones at once. `PERMUTE`: two
/// 8-entry permutes and a blend (palettes of ≤ 16 bones), else a clamped gather.
pub(crate) struct Lookup8<'a, const PERMUTE: bool> {
    lo: [__m256; 12],
    hi: [__m256; 12],
    soa: &'a [f32],
    padded: usize,
    last: __m256i,
    seven: __m256i,
}

impl<'a, const PERMUTE: bool> Lookup8<'a, PERMUTE> {
    /// The look-up over `soa`, twelve rows of `padded` floats; `None` unless `soa` holds them
    /// and `padded` is a non-zero multiple of 16 (exactly 16 with `PERMUTE`).
    #[target_feature(enable = "avx2,fma")]
    pub(crate) fn new(soa: &'a [f32], padded: usize) -> Option<Self> {
        let suits = if PERMUTE {
            padded == 16
        } else {
            padded > 0 && padded.is_multiple_of(LANES)
        };
        if !suits || soa.len() < 12 * padded {
            return None;
        }
        let mut lo = [_mm256_setzero_ps(); 12];
        let mut hi = [_mm256_setzero_ps(); 12];
        if PERMUTE {
            for (r, (l, h)) in lo.iter_mut().zip(hi.iter_mut()).enumerate() {
                // SAFETY: `soa` holds 12 rows of `padded` = 16 floats; the two loads read
                // floats `16r .. 16r + 8` and `16r + 8 .. 16r + 16`.
                unsafe {
                    *l = _mm256_loadu_ps(soa.as_ptr().add(r * padded));
                    *h = _mm256_loadu_ps(soa.as_ptr().add(r * padded + 8));
                }
            }
        }
        Some(Lookup8 {
            lo,
            hi,
            soa,
            padded,
            last: _mm256_set1_epi32((padded - 1) as i32),
            seven: _mm256_set1_epi32(7),
        })
    }

    /// `idx` clamped into the palette, and which lanes look in the upper 8 of 16 bones.
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    pub(crate) fn index(&self, idx: __m256i) -> (__m256i, __m256) {
        let idx = _mm256_min_epu32(idx, self.last);
        (
            idx,
            _mm256_castsi256_ps(_mm256_cmpgt_epi32(idx, self.seven)),
        )
    }

    /// Entry `e` (below 12) of each lane's bone, for indices from [`index`](Self::index).
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    pub(crate) fn entry(&self, e: usize, idx: __m256i, upper: __m256) -> __m256 {
        let e = e.min(11);
        if PERMUTE {
            _mm256_blendv_ps(
                _mm256_permutevar8x32_ps(self.lo[e], idx),
                _mm256_permutevar8x32_ps(self.hi[e], idx),
                upper,
            )
        } else {
            // SAFETY: `index` clamped `idx ≤ padded − 1` lane-wise and row `e` < 12 spans floats
            // `e·padded .. (e + 1)·padded` of `soa`; scale 4 = `size_of::<f32>`.
            unsafe { _mm256_i32gather_ps::<4>(self.soa.as_ptr().add(e * self.padded), idx) }
        }
    }
}

#[target_feature(enable = "avx2,fma")]
fn blocks_avx2<const PERMUTE: bool>(run: Run<'_>, dest: &mut impl BlockDest) {
    let Some(lookup) = Lookup8::<PERMUTE>::new(run.soa, run.padded) else {
        return;
    };
    let mut rows = [[0.0f32; LANES]; 6];
    for b in 0..run.blocks {
        for half in 0..2 {
            let lane0 = half * 8;
            let mut acc = [_mm256_setzero_ps(); 6];
            for slot in b * run.k..(b + 1) * run.k {
                let (Some(d), Some(bi)) = (
                    run.data.get(slot * SLOT..(slot + 1) * SLOT),
                    run.bones
                        .get(slot * LANES + lane0..slot * LANES + lane0 + 8),
                ) else {
                    return;
                };
                // SAFETY: `d` is 7 · 16 floats and `bi` 8 `u32`s; each load reads 8 elements
                // at `16i + lane0` (≤ 16i + 8) inside `d`, or all of `bi`.
                let (idx, v) = unsafe {
                    let idx = _mm256_loadu_si256(bi.as_ptr().cast::<__m256i>());
                    let row = |i: usize| _mm256_loadu_ps(d.as_ptr().add(i * LANES + lane0));
                    (
                        idx,
                        [row(0), row(1), row(2), row(3), row(4), row(5), row(6)],
                    )
                };
                let (idx, upper) = lookup.index(idx);
                for r in 0..3 {
                    let m = |c: usize| lookup.entry(r * 4 + c, idx, upper);
                    let (m0, m1, m2, m3) = (m(0), m(1), m(2), m(3));
                    acc[r] = _mm256_fmadd_ps(
                        m0,
                        v[0],
                        _mm256_fmadd_ps(
                            m1,
                            v[1],
                            _mm256_fmadd_ps(m2, v[2], _mm256_fmadd_ps(m3, v[3], acc[r])),
                        ),
                    );
                    acc[3 + r] = _mm256_fmadd_ps(
                        m0,
                        v[4],
                        _mm256_fmadd_ps(m1, v[5], _mm256_fmadd_ps(m2, v[6], acc[3 + r])),
                    );
                }
            }
            for (row, a) in rows.iter_mut().zip(acc) {
                // SAFETY: `row` is 16 writable floats; the store writes 8 at `lane0` ≤ 8.
                unsafe { _mm256_storeu_ps(row.as_mut_ptr().add(lane0), a) };
            }
        }
        dest.emit(b, &BlockOut::from_rows(&rows));
    }
}
