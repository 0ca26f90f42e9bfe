//! The `std::arch` pieces that several skinning kernels share: the in-register palette
//! look-ups ([`Lookup`]: AVX-512F, [`Lookup8`]: AVX2), the interleaved stores of 16 results
//! ([`store_interleaved`], [`stream_interleaved`]), the loads of 16 stored vertices
//! ([`load_deinterleaved`]), the dispatch on palette width and streaming
//! ([`by_palette_and_stream!`]), and the rows of [`SkinMatrices`](super::SkinMatrices)
//! transposed from its records ([`soa_rows`]). Each kernel's own code lives beside its
//! portable code (`stream/x86.rs`, `prepared/x86.rs`, `compact/x86.rs`, `morph/x86.rs`,
//! `bind/x86.rs`).
//!
//! Like every `x86` module, this one may opt out of the compiler's memory-safety checks, each
//! block justified by a `// SAFETY:` comment; its functions carry `#[target_feature]`, and
//! their callers check the CPU's features first.
#![allow(unsafe_code)]

/// Runs `$kernel::<MODE, STREAM>($run, $sink)` with the look-up mode that suits the run's
/// padded palette and its streaming choice, then, after non-temporal stores, the store fence
/// that orders them before any store that follows (so that a thread that sees the call
/// finish sees its results). `$wide` is the mode for a palette padded to 128 bones: 4
/// (permutes) for the prepared kernel, 3 (gathers) for the compact kernel, each the faster
/// for it on `synth::iqm_character` (80 joints; `skelmap bench`).
macro_rules! by_palette_and_stream {
    ($kernel:ident, $run:expr, $sink:expr, $wide:literal) => {{
        let (run, sink) = ($run, $sink);
        let stream = run.stream;
        match (run.padded, stream) {
            (16, false) => $kernel::<0, false>(run, sink),
            (32, false) => $kernel::<1, false>(run, sink),
            (64, false) => $kernel::<2, false>(run, sink),
            (128, false) => $kernel::<$wide, false>(run, sink),
            (_, false) => $kernel::<3, false>(run, sink),
            (16, true) => $kernel::<0, true>(run, sink),
            (32, true) => $kernel::<1, true>(run, sink),
            (64, true) => $kernel::<2, true>(run, sink),
            (128, true) => $kernel::<$wide, true>(run, sink),
            (_, true) => $kernel::<3, true>(run, sink),
        }
        if stream {
            core::arch::x86_64::_mm_sfence();
        }
    }};
}

pub(crate) use by_palette_and_stream;

use core::arch::x86_64::{
    __m256, __m256i, __m512, __m512i, __mmask16, _MM_HINT_ET0, _mm_prefetch, _mm256_blendv_ps,
    _mm256_castsi256_ps, _mm256_cmpgt_epi32, _mm256_i32gather_ps, _mm256_loadu_ps,
    _mm256_min_epu32, _mm256_permutevar8x32_ps, _mm256_set1_epi32, _mm256_setzero_ps,
    _mm512_i32gather_ps, _mm512_loadu_ps, _mm512_loadu_si512, _mm512_mask_blend_ps,
    _mm512_mask_permutexvar_ps, _mm512_min_epu32, _mm512_permutex2var_ps, _mm512_permutexvar_ps,
    _mm512_set1_epi32, _mm512_setzero_ps, _mm512_storeu_ps, _mm512_stream_ps,
    _mm512_test_epi32_mask,
};

use zerocopy::byteorder::{F32, LittleEndian};

use super::blocks::LANES;

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

/// Asks for the cache lines of `block` (192 bytes, three or four lines) for writing, without
/// waiting for them.
#[inline]
pub(crate) fn prefetch_for_write(block: &[[f32; 3]; LANES]) {
    let at = block.as_ptr().cast::<i8>();
    for offset in [0, 64, 128, 191] {
        // SAFETY: a prefetch neither faults nor changes memory; the address lies in `block`.
        unsafe { _mm_prefetch::<_MM_HINT_ET0>(at.add(offset)) };
    }
}

/// For component `c` of 16 interleaved `x y z` vertices (48 floats in three registers): per
/// lane, where float `3 · lane + c` lies among the first two registers (0..32), and, for the
/// lanes whose float lies in the third, where in it and the mask of those lanes.
const fn deinterleave(c: usize) -> ([i32; 16], [i32; 16], u16) {
    let (mut low, mut high, mut mask) = ([0i32; 16], [0i32; 16], 0u16);
    let mut lane = 0;
    while lane < 16 {
        let at = 3 * lane + c;
        if at < 32 {
            low[lane] = at as i32;
        } else {
            high[lane] = (at - 32) as i32;
            mask |= 1 << lane;
        }
        lane += 1;
    }
    (low, high, mask)
}

const DEINTERLEAVE: [([i32; 16], [i32; 16], u16); 3] =
    [deinterleave(0), deinterleave(1), deinterleave(2)];

/// The rows `x`, `y`, `z` of 16 interleaved vertices stored as little-endian floats (48, the
/// native ones on x86-64): the inverse of [`store_interleaved`].
#[inline]
#[target_feature(enable = "avx512f")]
pub(crate) fn load_deinterleaved(from: &[[F32<LittleEndian>; 3]; LANES]) -> [__m512; 3] {
    let src = from.as_ptr().cast::<f32>();
    // SAFETY: `from` is 48 contiguous 4-byte floats (arrays have no padding; the unaligned
    // loads need no alignment): the loads read floats `0 .. 16`, `16 .. 32` and `32 .. 48`.
    let r = unsafe { [0, 16, 32].map(|at| _mm512_loadu_ps(src.add(at))) };
    DEINTERLEAVE.map(|(low, high, mask)| {
        // SAFETY: `low` and `high` are 16 `i32`s each.
        unsafe {
            let t = _mm512_permutex2var_ps(r[0], _mm512_loadu_si512(low.as_ptr().cast()), r[1]);
            _mm512_mask_permutexvar_ps(t, mask, _mm512_loadu_si512(high.as_ptr().cast()), r[2])
        }
    })
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

/// The twelve palette rows (a [`SkinMatrices`](crate::skin::SkinMatrices) in its
/// structure-of-arrays layout) held for AVX-512 look-ups of 16 lanes' bones at once.
///
/// `MODE` 0: one-register permute (≤ 16 bones); 1: two-register permute (≤ 32); 2: two
/// two-register permutes and a blend (≤ 64); 4: four two-register permutes and three blends
/// (≤ 128); 3: clamped gather (any width). The permutes read each row from memory (L1) per
/// look-up in modes 2 and 4; they still beat a gather in the bind-pose blend (the `bind-iqm`
/// bench) and the prepared kernel.
pub(crate) struct Lookup<'a, const MODE: u8> {
    lo: [__m512; 12],
    hi: [__m512; 12],
    soa: &'a [f32],
    padded: usize,
    last: __m512i,
    bit5: __m512i,
    bit6: __m512i,
}

impl<'a, const MODE: u8> Lookup<'a, MODE> {
    /// The look-up over `soa`, twelve rows of `padded` floats; `None` unless `soa` holds them
    /// and `padded` is a non-zero multiple of 16 that suits `MODE` (16, 32, 64, any, 128).
    #[target_feature(enable = "avx512f")]
    pub(crate) fn new(soa: &'a [f32], padded: usize) -> Option<Self> {
        let suits = match MODE {
            0 => padded == 16,
            1 => padded == 32,
            2 => padded == 64,
            4 => padded == 128,
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
            bit6: _mm512_set1_epi32(64),
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
            // SAFETY: mode 4 has `padded` = 128 (checked by `new`), so row `e` < 12 is floats
            // `128e .. 128e + 128` of `soa`, read as eight 16-float loads.
            4 => unsafe {
                let row = self.soa.as_ptr().add(e * self.padded);
                let t = |q: usize| _mm512_loadu_ps(row.add(16 * q));
                let half = |q: usize| {
                    _mm512_mask_blend_ps(
                        upper,
                        _mm512_permutex2var_ps(t(q), idx, t(q + 1)),
                        _mm512_permutex2var_ps(t(q + 2), idx, t(q + 3)),
                    )
                };
                let high = _mm512_test_epi32_mask(idx, self.bit6);
                _mm512_mask_blend_ps(high, half(0), half(4))
            },
            // SAFETY: `index` clamped `idx ≤ padded − 1` lane-wise and row `e` < 12 spans floats
            // `e·padded .. (e + 1)·padded` of `soa`; the scale 4 is `size_of::<f32>`.
            _ => unsafe { _mm512_i32gather_ps::<4>(idx, self.soa.as_ptr().add(e * self.padded)) },
        }
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

/// The twelve structure-of-arrays rows of [`SkinMatrices`](super::SkinMatrices) from its
/// paired records (see `skin/matrices.rs`), sixteen bones a step: each bone's four columns
/// picked out of its record into one register, then transposed, four bones at a time within
/// each column's quarter and then across the quarters. Row `r * 4 + c` (row `r` of column
/// `c`) goes to `soa[(r * 4 + c) * padded ..]`; lanes past the records, up to `padded`, are
/// zeroed. The same floats as the one-at-a-time copy, moved, never computed. `false`, with
/// `soa` untouched, where the CPU lacks AVX-512F.
pub(crate) fn soa_rows(
    paired: &[[f32; super::matrices::PAIRED]],
    padded: usize,
    soa: &mut [f32],
) -> bool {
    if !is_x86_feature_detected!("avx512f")
        || padded == 0
        || !padded.is_multiple_of(LANES)
        || paired.len() > padded
        || soa.len() < 12 * padded
    {
        return false;
    }
    // SAFETY: the CPU was just found to support AVX-512F; `padded` is a nonzero multiple of
    // 16 at least the records' count, and `soa` holds twelve rows of it.
    unsafe { soa_rows_avx512(paired, padded, soa) };
    true
}

/// # Safety
///
/// The CPU must support AVX-512F; `padded` must be a multiple of 16, at least
/// `paired.len()`, and `soa` at least `12 · padded` floats.
#[target_feature(enable = "avx512f")]
unsafe fn soa_rows_avx512(
    paired: &[[f32; super::matrices::PAIRED]],
    padded: usize,
    soa: &mut [f32],
) {
    use core::arch::x86_64::{
        _mm512_castpd_ps, _mm512_castps_pd, _mm512_shuffle_f32x4, _mm512_unpackhi_pd,
        _mm512_unpackhi_ps, _mm512_unpacklo_pd, _mm512_unpacklo_ps,
    };
    // A record's columns `x y z t`, each the first of its pair: floats 0, 8, 16 and 24 on.
    const COLUMNS: [i32; 16] = [0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19, 24, 25, 26, 27];
    let bones = paired.len();
    // SAFETY: `COLUMNS` is 16 `i32`s.
    let columns = unsafe { _mm512_loadu_si512(COLUMNS.as_ptr().cast()) };
    let steps = bones.div_ceil(LANES);
    for step in 0..steps {
        let first = step * LANES;
        // Bone `first + b`'s columns, or zeros past the records.
        let v: [__m512; LANES] = core::array::from_fn(|b| match paired.get(first + b) {
            Some(record) => {
                let at = record.as_ptr();
                // SAFETY: a record is 32 contiguous floats: the loads read floats 0..16 and
                // 16..32.
                unsafe {
                    _mm512_permutex2var_ps(
                        _mm512_loadu_ps(at),
                        columns,
                        _mm512_loadu_ps(at.add(16)),
                    )
                }
            }
            None => _mm512_setzero_ps(),
        });
        // Per four bones, components 0, 1 and 2 of every column: quarter `c` of `w[q][r]`
        // holds component `r` of column `c` of bones `4q .. 4q + 4`.
        let w: [[__m512; 3]; 4] = core::array::from_fn(|q| {
            let [a, b, c, d] = [v[4 * q], v[4 * q + 1], v[4 * q + 2], v[4 * q + 3]];
            let (ab_lo, ab_hi) = (_mm512_unpacklo_ps(a, b), _mm512_unpackhi_ps(a, b));
            let (cd_lo, cd_hi) = (_mm512_unpacklo_ps(c, d), _mm512_unpackhi_ps(c, d));
            let pd = |x: __m512, y: __m512, high: bool| {
                let (x, y) = (_mm512_castps_pd(x), _mm512_castps_pd(y));
                _mm512_castpd_ps(if high {
                    _mm512_unpackhi_pd(x, y)
                } else {
                    _mm512_unpacklo_pd(x, y)
                })
            };
            [
                pd(ab_lo, cd_lo, false),
                pd(ab_lo, cd_lo, true),
                pd(ab_hi, cd_hi, false),
            ]
        });
        // Component `r` of every column, per four bones.
        let components: [[__m512; 4]; 3] = core::array::from_fn(|r| w.map(|quad| quad[r]));
        for (r, [x0, x1, x2, x3]) in components.into_iter().enumerate() {
            let u0 = _mm512_shuffle_f32x4::<0b01_00_01_00>(x0, x1);
            let u1 = _mm512_shuffle_f32x4::<0b11_10_11_10>(x0, x1);
            let u2 = _mm512_shuffle_f32x4::<0b01_00_01_00>(x2, x3);
            let u3 = _mm512_shuffle_f32x4::<0b11_10_11_10>(x2, x3);
            let rows = [
                _mm512_shuffle_f32x4::<0b10_00_10_00>(u0, u2),
                _mm512_shuffle_f32x4::<0b11_01_11_01>(u0, u2),
                _mm512_shuffle_f32x4::<0b10_00_10_00>(u1, u3),
                _mm512_shuffle_f32x4::<0b11_01_11_01>(u1, u3),
            ];
            for (c, row) in rows.into_iter().enumerate() {
                let at = (r * 4 + c) * padded + first;
                // SAFETY: `first + 16 ≤ padded` (a multiple of 16 at least `bones`), so the
                // store writes floats `at .. at + 16` of row `r * 4 + c`, within `soa`'s
                // `12 · padded` (the caller's precondition).
                unsafe { _mm512_storeu_ps(soa.as_mut_ptr().add(at), row) };
            }
        }
    }
    for row in soa.chunks_exact_mut(padded).take(12) {
        row[steps * LANES..].fill(0.0);
    }
}
