//! The stream kernel on AVX2 + FMA: one 32-byte record per 256-bit register.
//!
//! A record `[ox oy oz w | nx ny nz bone]` is loaded whole (and byte-swapped with one
//! `vpshufb` when the file is big-endian). Broadcasting each lane within its half gives
//! `[ox×4 | nx×4]`, `[oy×4 | ny×4]`, `[oz×4 | nz×4]` and `[w×4 | 0]`; multiplied by the bone's
//! paired columns `[c | c]` and summed, the low half is the position term `M·(o, w)` and the
//! high half the normal term `R·n`, in four multiply-adds for both.
#![allow(unsafe_code)]

use core::arch::x86_64::{
    __m256, __m256i, _mm256_add_ps, _mm256_blend_ps, _mm256_castsi256_ps, _mm256_fmadd_ps,
    _mm256_loadu_ps, _mm256_loadu_si256, _mm256_mul_ps, _mm256_permute_ps, _mm256_setr_epi8,
    _mm256_setzero_ps, _mm256_shuffle_epi8, _mm256_storeu_ps,
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
        3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12, 3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8,
        15, 14, 13, 12,
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
