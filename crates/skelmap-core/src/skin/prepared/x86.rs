//! The prepared kernel on AVX-512F (16 lanes) and AVX2 + FMA (two 8-lane halves).
//!
//! A block holds 16 vertices with the same influence count `k`; influence `j` of the block is
//! one slot of seven rows of 16 floats (`ox oy oz w nx ny nz`) and a row of 16 bone indices.
//! For each slot the twelve matrix entries of every lane's bone are looked up — with permutes
//! across registers holding the whole palette when it has at most 16 bones (AVX2), or 16, 32,
//! 64 or 128 (AVX-512: a row in one, two, four or eight registers), else with a gather whose
//! indices are first clamped into the palette — and accumulated with fused multiply-adds into
//! six rows of results (`px py pz nx ny nz`).
#![allow(unsafe_code)]

use core::arch::x86_64::{
    __m256i, __m512i, _mm256_fmadd_ps, _mm256_loadu_ps, _mm256_loadu_si256, _mm256_setzero_ps,
    _mm256_storeu_ps, _mm512_add_ps, _mm512_fmadd_ps, _mm512_loadu_ps, _mm512_loadu_si512,
    _mm512_mul_ps, _mm512_setzero_ps,
};

use crate::skin::blocks::{BlockDest, BlockOut, LANES, Run, SLOT};
use crate::skin::x86::{
    Lookup, Lookup8, by_palette_and_stream, store_interleaved, stream_interleaved,
};

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
    by_palette_and_stream!(blocks_avx512, run, dest, 4);
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
