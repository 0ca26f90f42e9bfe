//! x86-64 SIMD kernels: the only module of skelmap-core besides `source.rs` allowed to opt
//! out of the compiler's memory-safety checks, each block justified by a `// SAFETY:` comment.
//!
//! - [`stream`]: the stream skinning kernel (AVX2 + FMA) over the mapped 32-byte records.
//! - [`prepared`]: the prepared skinning kernel over SoA blocks (AVX-512F, AVX2 + FMA).
//! - the morph kernel below (SSE2, part of the x86-64 baseline, so no run-time detection).
//!
//! The AVX kernels are `unsafe fn`s with `#[target_feature]`: their one precondition is that
//! the CPU has the features, which the safe dispatchers in `anim` check with
//! `is_x86_feature_detected!` before calling.
//!
//! ## The morph kernel
//!
//! One vertex per 128-bit register: the packed `x, y, z` (and normal byte) of both frames are
//! widened to `f32` lanes `[x, y, z, _]`, blended and scaled in one register each; the normal
//! comes from a table of 16-byte rows, is blended and normalised (`sqrt` + division, not
//! `rsqrt`, so results match the scalar reference within 1e-6). Outputs are written as three
//! floats per vertex.
#![allow(unsafe_code)]
// Value-only SSE2 intrinsics are safe to call since Rust 1.87; the morph kernel keeps them in
// `unsafe` blocks next to the pointer loads they work on.
#![allow(unused_unsafe)]

pub(crate) mod prepared {
    //! The prepared kernel on AVX-512F (16 lanes) and AVX2 + FMA (two 8-lane halves).
    //!
    //! A block holds 16 vertices with the same influence count `k`; influence `j` of the block is
    //! one slot of seven rows of 16 floats (`ox oy oz w nx ny nz`) and a row of 16 bone indices.
    //! For each slot the twelve matrix entries of every lane's bone are looked up — with a permute
    //! across registers holding the whole palette when it has at most 16 (AVX2, AVX-512) or 32
    //! (AVX-512) bones, else with a gather whose indices are first clamped into the palette — and
    //! accumulated with fused multiply-adds into six rows of results (`px py pz nx ny nz`).

    use core::arch::x86_64::{
        __m256, __m256i, __m512, __m512i, _mm256_blendv_ps, _mm256_castsi256_ps,
        _mm256_cmpgt_epi32, _mm256_fmadd_ps, _mm256_i32gather_ps, _mm256_loadu_ps,
        _mm256_loadu_si256, _mm256_min_epu32, _mm256_permutevar8x32_ps, _mm256_set1_epi32,
        _mm256_setzero_ps, _mm256_storeu_ps, _mm512_add_ps, _mm512_fmadd_ps, _mm512_i32gather_ps,
        _mm512_loadu_ps, _mm512_loadu_si512, _mm512_mask_blend_ps, _mm512_mask_permutexvar_ps,
        _mm512_min_epu32, _mm512_mul_ps, _mm512_permutex2var_ps, _mm512_permutexvar_ps,
        _mm512_set1_epi32, _mm512_setzero_ps, _mm512_storeu_ps, _mm512_test_epi32_mask,
    };

    use crate::anim::blocks::{BlockOut, LANES, Run, SLOT};

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

    const INTERLEAVE: [([i32; 16], [i32; 16], u16); 3] =
        [interleave(0), interleave(1), interleave(2)];

    /// Writes rows `x`, `y`, `z` (16 lanes each) interleaved into `out` (16 × 3 floats).
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn store_interleaved(x: __m512, y: __m512, z: __m512, out: &mut [[f32; 3]; LANES]) {
        let dst = out.as_mut_ptr().cast::<f32>();
        for (r, (xy, zi, mask)) in INTERLEAVE.iter().enumerate() {
            // SAFETY: `xy` and `zi` are 16 `i32`s each; `out` is 48 contiguous floats (arrays have
            // no padding) and the store writes floats `16r .. 16r + 16`, r < 3.
            unsafe {
                let t = _mm512_permutex2var_ps(x, _mm512_loadu_si512(xy.as_ptr().cast()), y);
                let v =
                    _mm512_mask_permutexvar_ps(t, *mask, _mm512_loadu_si512(zi.as_ptr().cast()), z);
                _mm512_storeu_ps(dst.add(16 * r), v);
            }
        }
    }

    /// Skins every block of `run` with the AVX-512 kernel (`avx512 == true`) or the AVX2 one,
    /// handing each block's results to `emit`; `false` (and nothing emitted) when the CPU lacks
    /// the features.
    pub(crate) fn try_prepared(
        avx512: bool,
        run: Run<'_>,
        emit: &mut impl FnMut(usize, &BlockOut),
    ) -> bool {
        let avx2 = is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma");
        if avx512 && avx2 && is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU was just found to support AVX-512F, AVX2 and FMA.
            unsafe { prepared_avx512(run, emit) };
            true
        } else if !avx512 && avx2 {
            // SAFETY: the CPU was just found to support AVX2 and FMA.
            unsafe { prepared_avx2(run, emit) };
            true
        } else {
            false
        }
    }

    /// Skins every block of `run` with AVX-512F, handing each block's results to `emit`.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX-512F, AVX2 and FMA.
    #[target_feature(enable = "avx512f,avx2,fma")]
    unsafe fn prepared_avx512(run: Run<'_>, emit: &mut impl FnMut(usize, &BlockOut)) {
        if !run.consistent() {
            return;
        }
        match run.padded {
            16 => blocks_avx512::<0>(run, emit),
            32 => blocks_avx512::<1>(run, emit),
            64 => blocks_avx512::<2>(run, emit),
            _ => blocks_avx512::<3>(run, emit),
        }
    }

    /// `MODE` 0: one-register permute (≤ 16 bones); 1: two-register permute (≤ 32); 2: two
    /// two-register permutes and a blend (≤ 64); 3: clamped gather.
    #[target_feature(enable = "avx512f,avx2,fma")]
    fn blocks_avx512<const MODE: u8>(run: Run<'_>, emit: &mut impl FnMut(usize, &BlockOut)) {
        let (soa, padded) = (run.soa, run.padded);
        let mut lo = [_mm512_setzero_ps(); 12];
        let mut hi = [_mm512_setzero_ps(); 12];
        if MODE < 2 {
            for (r, (l, h)) in lo.iter_mut().zip(hi.iter_mut()).enumerate() {
                // SAFETY: `consistent` proved `soa` holds 12 rows of `padded` ≥ 16 floats (≥ 32 in
                // mode 1), so floats `r·padded .. r·padded + 16` (and `+ 16 .. + 32`) are in it.
                unsafe {
                    *l = _mm512_loadu_ps(soa.as_ptr().add(r * padded));
                    if MODE == 1 {
                        *h = _mm512_loadu_ps(soa.as_ptr().add(r * padded + LANES));
                    }
                }
            }
        }
        let last = _mm512_set1_epi32((padded - 1) as i32);
        let bit5 = _mm512_set1_epi32(32);
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
                // Clamped, every index addresses a float of each palette row.
                let idx = _mm512_min_epu32(idx, last);
                let upper = _mm512_test_epi32_mask(idx, bit5);
                for r in 0..3 {
                    let m = |c: usize| -> __m512 {
                        let e = r * 4 + c;
                        match MODE {
                            0 => _mm512_permutexvar_ps(idx, lo[e]),
                            1 => _mm512_permutex2var_ps(lo[e], idx, hi[e]),
                            // SAFETY: mode 2 runs only with `padded` = 64, so row `e` is floats
                            // `64e .. 64e + 64` of `soa`, read as four 16-float loads.
                            2 => unsafe {
                                let row = soa.as_ptr().add(e * padded);
                                let t = |q: usize| _mm512_loadu_ps(row.add(16 * q));
                                _mm512_mask_blend_ps(
                                    upper,
                                    _mm512_permutex2var_ps(t(0), idx, t(1)),
                                    _mm512_permutex2var_ps(t(2), idx, t(3)),
                                )
                            },
                            // SAFETY: `idx ≤ padded − 1` lane-wise and row `e` spans floats
                            // `e·padded .. (e + 1)·padded` of `soa`; the scale 4 is `size_of::<f32>`.
                            _ => unsafe {
                                _mm512_i32gather_ps::<4>(idx, soa.as_ptr().add(e * padded))
                            },
                        }
                    };
                    let (m0, m1, m2, m3) = (m(0), m(1), m(2), m(3));
                    // Two short chains per row instead of one of four.
                    let p01 = _mm512_fmadd_ps(m1, v[1], _mm512_mul_ps(m0, v[0]));
                    let p23 = _mm512_fmadd_ps(m3, v[3], _mm512_mul_ps(m2, v[2]));
                    acc[r] = _mm512_add_ps(acc[r], _mm512_add_ps(p01, p23));
                    let n01 = _mm512_fmadd_ps(m1, v[5], _mm512_mul_ps(m0, v[4]));
                    acc[3 + r] = _mm512_add_ps(acc[3 + r], _mm512_fmadd_ps(m2, v[6], n01));
                }
            }
            store_interleaved(acc[0], acc[1], acc[2], &mut out.positions);
            store_interleaved(acc[3], acc[4], acc[5], &mut out.normals);
            emit(b, &out);
        }
    }

    /// Skins every block of `run` with AVX2 + FMA, handing each block's results to `emit`.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX2 and FMA.
    #[target_feature(enable = "avx2,fma")]
    unsafe fn prepared_avx2(run: Run<'_>, emit: &mut impl FnMut(usize, &BlockOut)) {
        if !run.consistent() {
            return;
        }
        if run.padded == 16 {
            blocks_avx2::<true>(run, emit);
        } else {
            blocks_avx2::<false>(run, emit);
        }
    }

    /// `PERMUTE`: look bones up with two 8-entry permutes and a blend (palettes of ≤ 16 bones),
    /// else with a clamped gather.
    #[target_feature(enable = "avx2,fma")]
    fn blocks_avx2<const PERMUTE: bool>(run: Run<'_>, emit: &mut impl FnMut(usize, &BlockOut)) {
        let (soa, padded) = (run.soa, run.padded);
        let mut lo = [_mm256_setzero_ps(); 12];
        let mut hi = [_mm256_setzero_ps(); 12];
        if PERMUTE {
            for (r, (l, h)) in lo.iter_mut().zip(hi.iter_mut()).enumerate() {
                // SAFETY: `consistent` proved `soa` holds 12 rows of `padded` = 16 floats; the two
                // loads read floats `16r .. 16r + 8` and `16r + 8 .. 16r + 16`.
                unsafe {
                    *l = _mm256_loadu_ps(soa.as_ptr().add(r * padded));
                    *h = _mm256_loadu_ps(soa.as_ptr().add(r * padded + 8));
                }
            }
        }
        let last = _mm256_set1_epi32((padded - 1) as i32);
        let seven = _mm256_set1_epi32(7);
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
                    let idx = _mm256_min_epu32(idx, last);
                    let upper = _mm256_castsi256_ps(_mm256_cmpgt_epi32(idx, seven));
                    for r in 0..3 {
                        let m = |c: usize| -> __m256 {
                            let e = r * 4 + c;
                            if PERMUTE {
                                _mm256_blendv_ps(
                                    _mm256_permutevar8x32_ps(lo[e], idx),
                                    _mm256_permutevar8x32_ps(hi[e], idx),
                                    upper,
                                )
                            } else {
                                // SAFETY: `idx ≤ padded − 1` lane-wise and row `e` spans floats
                                // `e·padded .. (e + 1)·padded` of `soa`; scale 4 = `size_of::<f32>`.
                                unsafe {
                                    _mm256_i32gather_ps::<4>(soa.as_ptr().add(e * padded), idx)
                                }
                            }
                        };
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
            emit(b, &BlockOut::from_rows(&rows));
        }
    }
}

pub(crate) mod stream {
    //! The stream kernel on AVX2 + FMA: one 32-byte record per 256-bit register.
    //!
    //! A record `[ox oy oz w | nx ny nz bone]` is loaded whole (and byte-swapped with one
    //! `vpshufb` when the file is big-endian). Broadcasting each lane within its half gives
    //! `[ox×4 | nx×4]`, `[oy×4 | ny×4]`, `[oz×4 | nz×4]` and `[w×4 | 0]`; multiplied by the bone's
    //! paired columns `[c | c]` and summed, the low half is the position term `M·(o, w)` and the
    //! high half the normal term `R·n`, in four multiply-adds for both.

    use core::arch::x86_64::{
        __m256, __m256i, _mm256_add_ps, _mm256_blend_ps, _mm256_castsi256_ps, _mm256_fmadd_ps,
        _mm256_loadu_ps, _mm256_loadu_si256, _mm256_mul_ps, _mm256_permute_ps, _mm256_setr_epi8,
        _mm256_setzero_ps, _mm256_shuffle_epi8, _mm256_storeu_ps,
    };

    use zerocopy::byteorder::ByteOrder;

    use crate::anim::output::Sink;
    use crate::bonevert::{BoneVert, Vertices};

    /// Whether `O` is big-endian (constant-folded).
    #[inline(always)]
    fn is_big<O: ByteOrder>() -> bool {
        zerocopy::byteorder::U32::<O>::new(1).to_bytes()[3] == 1
    }

    /// Runs [`stream_avx2`] if the CPU supports AVX2 and FMA (`None` otherwise).
    pub(crate) fn try_stream_avx2<O: ByteOrder>(
        vertices: Vertices<'_, O>,
        paired: &[[f32; 32]],
        sink: &mut impl Sink,
    ) -> Option<Result<(), u32>> {
        if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma") {
            // SAFETY: the CPU was just found to support AVX2 and FMA, `stream_avx2`'s only
            // precondition.
            Some(unsafe { stream_avx2(vertices, paired, sink) })
        } else {
            None
        }
    }

    /// Skins every vertex of `vertices` with `paired` into `sink`, in file order. Returns the
    /// first bone index the palette lacks as `Err`.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX2 and FMA.
    #[target_feature(enable = "avx2,fma")]
    unsafe fn stream_avx2<O: ByteOrder>(
        vertices: Vertices<'_, O>,
        paired: &[[f32; 32]],
        sink: &mut impl Sink,
    ) -> Result<(), u32> {
        let big = is_big::<O>();
        // Reverses the bytes of every 32-bit word (the shuffle works per 128-bit half).
        let swap = _mm256_setr_epi8(
            3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12, 3, 2, 1, 0, 7, 6, 5, 4, 11, 10,
            9, 8, 15, 14, 13, 12,
        );
        for (i, records) in vertices.enumerate() {
            let mut acc = _mm256_setzero_ps();
            for r in records {
                let bone = r.bonenum();
                let m = paired.get(bone as usize).ok_or(bone)?;
                let rec = load_record(r, big, swap);
                // SAFETY: `m` is a 32-float array; each load reads floats `8c .. 8c + 8` of it.
                let (c0, c1, c2, c3) = unsafe {
                    (
                        _mm256_loadu_ps(m.as_ptr()),
                        _mm256_loadu_ps(m.as_ptr().add(8)),
                        _mm256_loadu_ps(m.as_ptr().add(16)),
                        _mm256_loadu_ps(m.as_ptr().add(24)),
                    )
                };
                let x = _mm256_permute_ps::<0b00_00_00_00>(rec);
                let y = _mm256_permute_ps::<0b01_01_01_01>(rec);
                let z = _mm256_permute_ps::<0b10_10_10_10>(rec);
                // `[w×4 | bone bits×4]` with the bone half cleared: the bits are no float.
                let w = _mm256_blend_ps::<0b1111_0000>(
                    _mm256_permute_ps::<0b11_11_11_11>(rec),
                    _mm256_setzero_ps(),
                );
                // Two independent products per pair keep the dependency chain short.
                let xy = _mm256_fmadd_ps(c1, y, _mm256_mul_ps(c0, x));
                let zw = _mm256_fmadd_ps(c3, w, _mm256_mul_ps(c2, z));
                acc = _mm256_add_ps(acc, _mm256_add_ps(xy, zw));
            }
            let mut out = [0.0f32; 8];
            // SAFETY: `out` is 8 writable floats.
            unsafe { _mm256_storeu_ps(out.as_mut_ptr(), acc) };
            sink.put(i, [out[0], out[1], out[2]], [out[4], out[5], out[6]]);
        }
        Ok(())
    }

    /// The record as `[ox oy oz w | nx ny nz bone]` in native order.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn load_record<O: ByteOrder>(r: &BoneVert<O>, big: bool, swap: __m256i) -> __m256 {
        // SAFETY: `BoneVert` is exactly 32 bytes (asserted in bonevert.rs) of plain data with
        // alignment 1, and the unaligned load reads those 32 bytes.
        let raw = unsafe { _mm256_loadu_si256((r as *const BoneVert<O>).cast::<__m256i>()) };
        let native = if big {
            _mm256_shuffle_epi8(raw, swap)
        } else {
            raw
        };
        _mm256_castsi256_ps(native)
    }
}

use core::arch::x86_64::{
    __m128, __m128i, _mm_add_ps, _mm_cvtepi32_ps, _mm_div_ps, _mm_loadl_epi64, _mm_loadu_ps,
    _mm_mul_ps, _mm_set1_ps, _mm_setr_ps, _mm_setzero_si128, _mm_shuffle_ps, _mm_sqrt_ps,
    _mm_storeu_ps, _mm_sub_ps, _mm_unpacklo_epi8, _mm_unpacklo_epi16,
};

use crate::gamestudio::anorms::NORMALS;
use crate::gamestudio::raw::{TrivertxByte, TrivertxWord};

/// The normal table as 16-byte rows `[x, y, z, 0]`, padded to 256 entries (never read past
/// 162 for a validated model).
static NORMALS_16: [[f32; 4]; 256] = {
    let mut table = [[0.0f32; 4]; 256];
    let mut i = 0;
    while i < NORMALS.len() {
        table[i] = [NORMALS[i][0], NORMALS[i][1], NORMALS[i][2], 0.0];
        i += 1;
    }
    table
};

/// A packed record the SSE2 kernel can widen: its coordinates as `[x, y, z, n]` in 32-bit lanes.
pub(crate) trait Widen: Copy {
    fn widen(&self) -> __m128i;
    fn normal(&self) -> u8;
}

impl Widen for TrivertxWord {
    #[inline(always)]
    fn widen(&self) -> __m128i {
        // SAFETY: `self` is 8 readable bytes (`TrivertxWord` is 8 bytes, alignment 1) and
        // `_mm_loadl_epi64` reads exactly 8 bytes with no alignment requirement; SSE2 is part
        // of the x86-64 baseline.
        unsafe {
            let raw = _mm_loadl_epi64((self as *const TrivertxWord).cast::<__m128i>());
            _mm_unpacklo_epi16(raw, _mm_setzero_si128())
        }
    }
    #[inline(always)]
    fn normal(&self) -> u8 {
        self.normal
    }
}

impl Widen for TrivertxByte {
    #[inline(always)]
    fn widen(&self) -> __m128i {
        let v = self.v;
        let word = u32::from_le_bytes([v[0], v[1], v[2], self.normal]);
        // SAFETY: value-only SSE2 intrinsics (no memory access); SSE2 is baseline on x86-64.
        unsafe {
            let raw = core::arch::x86_64::_mm_cvtsi32_si128(word as i32);
            let zero = _mm_setzero_si128();
            _mm_unpacklo_epi16(_mm_unpacklo_epi8(raw, zero), zero)
        }
    }
    #[inline(always)]
    fn normal(&self) -> u8 {
        self.normal
    }
}

/// Tweens `fa` → `fb` at `t` into `positions`/`normals` (the caller checks the lengths), one
/// vertex per 128-bit register.
pub(crate) fn morph_sse2<A: Widen, B: Widen>(
    fa: &[A],
    fb: &[B],
    scale: [f32; 3],
    offset: [f32; 3],
    t: f32,
    positions: &mut [[f32; 3]],
    normals: &mut [[f32; 3]],
) {
    // SAFETY: value-only SSE2 intrinsics; SSE2 is baseline on x86-64.
    let (s, o, tt) = unsafe {
        (
            _mm_setr_ps(scale[0], scale[1], scale[2], 0.0),
            _mm_setr_ps(offset[0], offset[1], offset[2], 0.0),
            _mm_set1_ps(t),
        )
    };
    for (((a, b), pos), nrm) in fa
        .iter()
        .zip(fb)
        .zip(positions.iter_mut())
        .zip(normals.iter_mut())
    {
        let na = &NORMALS_16[usize::from(a.normal())];
        let nb = &NORMALS_16[usize::from(b.normal())];
        let mut p = [0.0f32; 4];
        let mut q = [0.0f32; 4];
        // SAFETY: the loads read the 16-byte rows `na`, `nb` and the stores write the 16-byte
        // locals `p`, `q` (unaligned forms); the rest is value-only SSE2, baseline on x86-64.
        unsafe {
            let xa = _mm_cvtepi32_ps(a.widen());
            let xb = _mm_cvtepi32_ps(b.widen());
            let blend = _mm_add_ps(xa, _mm_mul_ps(tt, _mm_sub_ps(xb, xa)));
            _mm_storeu_ps(p.as_mut_ptr(), _mm_add_ps(_mm_mul_ps(s, blend), o));
            let va = _mm_loadu_ps(na.as_ptr());
            let vb = _mm_loadu_ps(nb.as_ptr());
            let m = _mm_add_ps(va, _mm_mul_ps(tt, _mm_sub_ps(vb, va)));
            _mm_storeu_ps(
                q.as_mut_ptr(),
                _mm_div_ps(m, _mm_sqrt_ps(hsum3(_mm_mul_ps(m, m)))),
            );
        }
        *pos = [p[0], p[1], p[2]];
        *nrm = if q.iter().take(3).all(|c| c.is_finite()) {
            [q[0], q[1], q[2]]
        } else {
            [0.0, 0.0, 1.0]
        };
    }
}

/// `x + y + z` of `[x, y, z, _]`, broadcast to every lane.
#[inline(always)]
fn hsum3(v: __m128) -> __m128 {
    // SAFETY: value-only SSE2 shuffles and adds; SSE2 is baseline on x86-64.
    unsafe {
        let x = _mm_shuffle_ps::<0b00_00_00_00>(v, v);
        let y = _mm_shuffle_ps::<0b01_01_01_01>(v, v);
        let z = _mm_shuffle_ps::<0b10_10_10_10>(v, v);
        _mm_add_ps(_mm_add_ps(x, y), z)
    }
}
