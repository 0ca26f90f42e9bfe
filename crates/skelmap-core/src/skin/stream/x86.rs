//! The stream kernel on x86-64: AVX2 + FMA, and AVX-512 for one-influence vertices.
//!
//! **AVX2.** A record `[ox oy oz w | nx ny nz bone]` is loaded whole into a 256-bit register
//! (and byte-swapped with one `vpshufb` when the file is big-endian). Broadcasting each lane
//! within its half gives `[ox×4 | nx×4]`, `[oy×4 | ny×4]`, `[oz×4 | nz×4]` and `[w×4 | 0]`;
//! multiplied by the bone's paired columns `[c | c]` and summed, the low half is the position
//! term `M·(o, w)` and the high half the normal term `R·n`, in four multiply-adds for both.
//!
//! **AVX-512.** A vertex of one influence (most vertices of rigid and vehicle models) has its
//! record broadcast into both 256-bit halves of a 512-bit register. One in-lane permute gives
//! `[ox×4 | nx×4 | oy×4 | ny×4]` and a zero-masked one `[oz×4 | nz×4 | w×4 | 0]`; the bone's
//! 32 paired floats load as two 512-bit registers `[x x | y y]` and `[z z | t 0]`, so two
//! multiply-adds and one fold of the halves give the vertex, where AVX2 needs four broadcasts,
//! four multiply-adds and two additions. A big-endian record is byte-swapped with one 512-bit
//! `vpshufb` (AVX-512BW), which the compiler merges into the two permutes. Pairing two
//! consecutive one-influence vertices in one register would take as many permutes and
//! multiply-adds per vertex, plus the columns of two bones inserted into each register, so it
//! is not done. Vertices of two or more influences take the AVX2 steps: two records per
//! register lose to them (see [`skin::stream`](fn@super::stream)'s documentation).
#![allow(unsafe_code)]

use core::arch::x86_64::{
    __m256, __m256i, __m512, __m512i, __mmask16, _mm256_add_ps, _mm256_blend_ps, _mm256_castpd_ps,
    _mm256_castsi256_ps, _mm256_fmadd_ps, _mm256_loadu_ps, _mm256_loadu_si256, _mm256_mul_ps,
    _mm256_permute_ps, _mm256_setr_epi8, _mm256_setzero_ps, _mm256_shuffle_epi8, _mm256_storeu_ps,
    _mm512_broadcast_i64x4, _mm512_castps_pd, _mm512_castps512_ps256, _mm512_castsi512_ps,
    _mm512_extractf64x4_pd, _mm512_fmadd_ps, _mm512_loadu_ps, _mm512_maskz_permutevar_ps,
    _mm512_mul_ps, _mm512_permutevar_ps, _mm512_set4_epi32, _mm512_setr_epi32, _mm512_shuffle_epi8,
};

use zerocopy::byteorder::ByteOrder;

use crate::bonevert::{BoneVert, Vertices};
use crate::skin::output::Sink;

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

/// Runs [`stream_avx512`] if the CPU supports AVX-512F, AVX-512BW, AVX2 and FMA (`None`
/// otherwise).
pub(crate) fn try_stream_avx512<O: ByteOrder>(
    vertices: Vertices<'_, O>,
    paired: &[[f32; 32]],
    sink: &mut impl Sink,
) -> Option<Result<(), u32>> {
    if is_x86_feature_detected!("avx512f")
        && is_x86_feature_detected!("avx512bw")
        && is_x86_feature_detected!("avx2")
        && is_x86_feature_detected!("fma")
    {
        // SAFETY: the CPU was just found to support every feature `stream_avx512` enables,
        // its only precondition.
        Some(unsafe { stream_avx512(vertices, paired, sink) })
    } else {
        None
    }
}

/// Reverses the bytes of every 32-bit word of a 256-bit register (`vpshufb` works per
/// 128-bit half).
#[inline]
#[target_feature(enable = "avx2")]
fn swap_words() -> __m256i {
    _mm256_setr_epi8(
        3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12, 3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8,
        15, 14, 13, 12,
    )
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
    let swap = swap_words();
    for (i, records) in vertices.enumerate() {
        put(sink, i, vertex_avx2(records, paired, big, swap)?);
    }
    Ok(())
}

/// [`stream_avx2`] with one-influence vertices in 512-bit registers (see the module
/// documentation).
///
/// # Safety
///
/// The CPU must support AVX-512F, AVX-512BW, AVX2 and FMA.
#[target_feature(enable = "avx512f,avx512bw,avx2,fma")]
unsafe fn stream_avx512<O: ByteOrder>(
    vertices: Vertices<'_, O>,
    paired: &[[f32; 32]],
    sink: &mut impl Sink,
) -> Result<(), u32> {
    let big = is_big::<O>();
    let swap = swap_words();
    // `vpshufb` control reversing the bytes of every word, per 128-bit lane.
    let swap512 = _mm512_set4_epi32(0x0c0d_0e0f, 0x0809_0a0b, 0x0405_0607, 0x0001_0203);
    // In-lane word indices: lanes 0 and 1 (`[o w]` and `[n bone]` of the low copy) take word
    // 0 or 2, lanes 2 and 3 (the high copy) word 1 or 3.
    let xy_at = _mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1);
    let zw_at = _mm512_setr_epi32(2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3);
    // Every lane but the last four, which would hold the bone index (no float).
    const ZW_LANES: __mmask16 = 0x0fff;
    for (i, records) in vertices.enumerate() {
        let acc = if let [r] = records {
            let bone = r.bonenum();
            let m = paired.get(bone as usize).ok_or(bone)?;
            let rec = broadcast_record(r, big, swap512);
            let xy = _mm512_permutevar_ps(rec, xy_at);
            let zw = _mm512_maskz_permutevar_ps(ZW_LANES, rec, zw_at);
            // SAFETY: `m` is a 32-float array; the loads read floats 0..16 and 16..32 of it.
            let (c01, c23) = unsafe {
                (
                    _mm512_loadu_ps(m.as_ptr()),
                    _mm512_loadu_ps(m.as_ptr().add(16)),
                )
            };
            // `[x·ox + z·oz | x·nx + z·nz | y·oy + t·w | y·ny]`: the halves add up to the vertex.
            let sum = _mm512_fmadd_ps(c23, zw, _mm512_mul_ps(c01, xy));
            let high = _mm256_castpd_ps(_mm512_extractf64x4_pd::<1>(_mm512_castps_pd(sum)));
            _mm256_add_ps(_mm512_castps512_ps256(sum), high)
        } else {
            vertex_avx2(records, paired, big, swap)?
        };
        put(sink, i, acc);
    }
    Ok(())
}

/// One vertex's `[position, 0 | normal, 0]` from its records, one record per 256-bit register;
/// `Err` with the first bone the palette lacks.
#[inline]
#[target_feature(enable = "avx2,fma")]
fn vertex_avx2<O: ByteOrder>(
    records: &[BoneVert<O>],
    paired: &[[f32; 32]],
    big: bool,
    swap: __m256i,
) -> Result<__m256, u32> {
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
    Ok(acc)
}

/// Writes `[position, _ | normal, _]` as vertex `i` of `sink`.
#[inline]
#[target_feature(enable = "avx2")]
fn put(sink: &mut impl Sink, i: usize, acc: __m256) {
    let mut out = [0.0f32; 8];
    // SAFETY: `out` is 8 writable floats.
    unsafe { _mm256_storeu_ps(out.as_mut_ptr(), acc) };
    sink.put(i, [out[0], out[1], out[2]], [out[4], out[5], out[6]]);
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

/// The record in both 256-bit halves of a 512-bit register, in native order.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx2")]
fn broadcast_record<O: ByteOrder>(r: &BoneVert<O>, big: bool, swap: __m512i) -> __m512 {
    // SAFETY: as in `load_record`, the unaligned load reads the record's 32 bytes.
    let raw = unsafe { _mm256_loadu_si256((r as *const BoneVert<O>).cast::<__m256i>()) };
    let both = _mm512_broadcast_i64x4(raw);
    let native = if big {
        _mm512_shuffle_epi8(both, swap)
    } else {
        both
    };
    _mm512_castsi512_ps(native)
}
