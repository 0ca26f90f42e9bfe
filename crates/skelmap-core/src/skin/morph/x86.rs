//! The morph kernel on AVX-512F (16 vertices per step) and AVX2 + FMA (8).
//!
//! Both frames' packed records are loaded a step at a time and split into `x`, `y`, `z` and
//! normal-index lanes (byte records with shifts and masks; word records first separated into
//! their even and odd 32-bit halves); the coordinates are blended and scaled, the two
//! frames' table normals gathered, blended and normalised with `sqrt` and a division. Every
//! operation is the scalar reference's, in its order and without fused multiply-adds, so the
//! results are the reference's to the bit. The results are stored interleaved. The
//! vertices past the last full step are left to the caller.
#![allow(unsafe_code)]

use core::arch::x86_64::{
    __m256, __m256i, __m512, __m512i, _CMP_GT_OQ, _mm256_add_ps, _mm256_and_ps, _mm256_and_si256,
    _mm256_blendv_ps, _mm256_cmp_ps, _mm256_cvtepi32_ps, _mm256_div_ps, _mm256_i32gather_ps,
    _mm256_loadu_si256, _mm256_mul_ps, _mm256_permute2x128_si256, _mm256_permutevar8x32_epi32,
    _mm256_set1_epi32, _mm256_set1_ps, _mm256_setr_epi32, _mm256_slli_epi32, _mm256_sqrt_ps,
    _mm256_srli_epi32, _mm256_storeu_ps, _mm256_sub_ps, _mm512_add_epi32, _mm512_add_ps,
    _mm512_and_si512, _mm512_cmp_ps_mask, _mm512_cvtepi32_ps, _mm512_div_ps, _mm512_i32gather_ps,
    _mm512_loadu_si512, _mm512_mask_blend_ps, _mm512_mul_ps, _mm512_permutex2var_epi32,
    _mm512_set1_epi32, _mm512_set1_ps, _mm512_setr_epi32, _mm512_slli_epi32, _mm512_sqrt_ps,
    _mm512_srli_epi32, _mm512_sub_ps,
};

use super::Unpack;
use crate::skin::x86::store_interleaved;

/// Tweens the leading full steps of `a` → `b` (record bytes, 8 per record when `WA` / `WB`,
/// else 4) at `t` into `positions` and `normals`, with AVX-512 (`avx512`) or AVX2; returns
/// the vertices done (0 when the CPU lacks the features).
pub(crate) fn try_morph<const WA: bool, const WB: bool>(
    avx512: bool,
    a: &[u8],
    b: &[u8],
    unpack: &Unpack<'_>,
    t: f32,
    positions: &mut [[f32; 3]],
    normals: &mut [[f32; 3]],
) -> usize {
    let avx2 = is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma");
    if avx512 && avx2 && is_x86_feature_detected!("avx512f") {
        // SAFETY: the CPU was just found to support AVX-512F, AVX2 and FMA.
        unsafe { morph_avx512::<WA, WB>(a, b, unpack, t, positions, normals) }
    } else if !avx512 && avx2 {
        // SAFETY: the CPU was just found to support AVX2 and FMA.
        unsafe { morph_avx2::<WA, WB>(a, b, unpack, t, positions, normals) }
    } else {
        0
    }
}

/// Bytes per record.
const fn stride(words: bool) -> usize {
    if words { 8 } else { 4 }
}

/// Vertices the kernels may run over: every input and output holds them.
fn vertices(a: &[u8], wa: bool, b: &[u8], wb: bool, out: usize) -> usize {
    (a.len() / stride(wa)).min(b.len() / stride(wb)).min(out)
}

/// 16 records from `bytes` (at least `16 · stride` long) as `x`, `y`, `z` and normal-index
/// lanes.
#[inline]
#[target_feature(enable = "avx512f")]
fn load16<const WORDS: bool>(bytes: &[u8]) -> [__m512i; 4] {
    if bytes.len() < 16 * stride(WORDS) {
        return [_mm512_set1_epi32(0); 4];
    }
    let byte = _mm512_set1_epi32(0xFF);
    if WORDS {
        let word = _mm512_set1_epi32(0xFFFF);
        // SAFETY: `bytes` holds the 128 bytes of the two loads.
        let (lo, hi) = unsafe {
            (
                _mm512_loadu_si512(bytes.as_ptr().cast()),
                _mm512_loadu_si512(bytes.as_ptr().add(64).cast()),
            )
        };
        // Record `i` is 32-bit halves `2i` (x | y << 16) and `2i + 1` (z | normal << 16).
        let even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
        let odd = _mm512_add_epi32(even, _mm512_set1_epi32(1));
        let (xy, zn) = (
            _mm512_permutex2var_epi32(lo, even, hi),
            _mm512_permutex2var_epi32(lo, odd, hi),
        );
        [
            _mm512_and_si512(xy, word),
            _mm512_srli_epi32::<16>(xy),
            _mm512_and_si512(zn, word),
            _mm512_and_si512(_mm512_srli_epi32::<16>(zn), byte),
        ]
    } else {
        // SAFETY: `bytes` holds the 64 bytes of the load.
        let v = unsafe { _mm512_loadu_si512(bytes.as_ptr().cast()) };
        [
            _mm512_and_si512(v, byte),
            _mm512_and_si512(_mm512_srli_epi32::<8>(v), byte),
            _mm512_and_si512(_mm512_srli_epi32::<16>(v), byte),
            _mm512_srli_epi32::<24>(v),
        ]
    }
}

/// The AVX-512 kernel (see [`try_morph`]).
///
/// # Safety
///
/// The CPU must support AVX-512F, AVX2 and FMA.
#[target_feature(enable = "avx512f,avx2,fma")]
unsafe fn morph_avx512<const WA: bool, const WB: bool>(
    a: &[u8],
    b: &[u8],
    unpack: &Unpack<'_>,
    t: f32,
    positions: &mut [[f32; 3]],
    normals: &mut [[f32; 3]],
) -> usize {
    let n = vertices(a, WA, b, WB, positions.len().min(normals.len()));
    let steps = n / 16;
    let tt = _mm512_set1_ps(t);
    let scale = unpack.scale.map(|s| _mm512_set1_ps(s));
    let offset = unpack.offset.map(|o| _mm512_set1_ps(o));
    let table = unpack.normals.rows().as_flattened();
    let (zero, one) = (_mm512_set1_ps(0.0), _mm512_set1_ps(1.0));
    for step in 0..steps {
        let (sa, sb) = (16 * stride(WA), 16 * stride(WB));
        let (Some(ra), Some(rb)) = (
            a.get(step * sa..(step + 1) * sa),
            b.get(step * sb..(step + 1) * sb),
        ) else {
            break;
        };
        let (la, lb) = (load16::<WA>(ra), load16::<WB>(rb));
        let coordinate = |c: usize| {
            let (x, y) = (_mm512_cvtepi32_ps(la[c]), _mm512_cvtepi32_ps(lb[c]));
            let blend = _mm512_add_ps(x, _mm512_mul_ps(tt, _mm512_sub_ps(y, x)));
            _mm512_add_ps(_mm512_mul_ps(scale[c], blend), offset[c])
        };
        let (px, py, pz) = (coordinate(0), coordinate(1), coordinate(2));
        // Table rows are 4 floats; an index below 256 reads at most float 1023 + 2 < 1024.
        let (ia, ib) = (_mm512_slli_epi32::<2>(la[3]), _mm512_slli_epi32::<2>(lb[3]));
        let component = |c: usize| {
            // SAFETY: the table is 256 rows of 4 floats; every lane index is `4·i` with
            // `i < 256`, and `c < 3`, so each gathered float lies inside it.
            let (na, nb) = unsafe {
                let base = table.as_ptr().add(c);
                (
                    _mm512_i32gather_ps::<4>(ia, base),
                    _mm512_i32gather_ps::<4>(ib, base),
                )
            };
            _mm512_add_ps(na, _mm512_mul_ps(tt, _mm512_sub_ps(nb, na)))
        };
        let (nx, ny, nz) = (component(0), component(1), component(2));
        let length = _mm512_sqrt_ps(_mm512_add_ps(
            _mm512_add_ps(_mm512_mul_ps(nx, nx), _mm512_mul_ps(ny, ny)),
            _mm512_mul_ps(nz, nz),
        ));
        // Where the blend has no length (or is not finite), the normal is +z.
        let positive = _mm512_cmp_ps_mask::<_CMP_GT_OQ>(length, zero);
        let inverse = _mm512_div_ps(one, length);
        let unit = |v: __m512, fallback: __m512| {
            _mm512_mask_blend_ps(positive, fallback, _mm512_mul_ps(v, inverse))
        };
        let (Some(p), Some(q)) = (
            positions.get_mut(step * 16..step * 16 + 16),
            normals.get_mut(step * 16..step * 16 + 16),
        ) else {
            break;
        };
        let (Ok(p), Ok(q)) = (
            <&mut [[f32; 3]; 16]>::try_from(p),
            <&mut [[f32; 3]; 16]>::try_from(q),
        ) else {
            break;
        };
        store_interleaved(px, py, pz, p);
        store_interleaved(unit(nx, zero), unit(ny, zero), unit(nz, one), q);
    }
    steps * 16
}

/// 8 records from `bytes` (at least `8 · stride` long) as `x`, `y`, `z` and normal-index
/// lanes.
#[inline]
#[target_feature(enable = "avx2")]
fn load8<const WORDS: bool>(bytes: &[u8]) -> [__m256i; 4] {
    if bytes.len() < 8 * stride(WORDS) {
        return [_mm256_set1_epi32(0); 4];
    }
    let byte = _mm256_set1_epi32(0xFF);
    if WORDS {
        let word = _mm256_set1_epi32(0xFFFF);
        // SAFETY: `bytes` holds the 64 bytes of the two loads.
        let (lo, hi) = unsafe {
            (
                _mm256_loadu_si256(bytes.as_ptr().cast()),
                _mm256_loadu_si256(bytes.as_ptr().add(32).cast()),
            )
        };
        // Even 32-bit halves to the low 128 bits, odd to the high, then paired across.
        let split = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
        let (lo, hi) = (
            _mm256_permutevar8x32_epi32(lo, split),
            _mm256_permutevar8x32_epi32(hi, split),
        );
        let (xy, zn) = (
            _mm256_permute2x128_si256::<0x20>(lo, hi),
            _mm256_permute2x128_si256::<0x31>(lo, hi),
        );
        [
            _mm256_and_si256(xy, word),
            _mm256_srli_epi32::<16>(xy),
            _mm256_and_si256(zn, word),
            _mm256_and_si256(_mm256_srli_epi32::<16>(zn), byte),
        ]
    } else {
        // SAFETY: `bytes` holds the 32 bytes of the load.
        let v = unsafe { _mm256_loadu_si256(bytes.as_ptr().cast()) };
        [
            _mm256_and_si256(v, byte),
            _mm256_and_si256(_mm256_srli_epi32::<8>(v), byte),
            _mm256_and_si256(_mm256_srli_epi32::<16>(v), byte),
            _mm256_srli_epi32::<24>(v),
        ]
    }
}

/// The AVX2 kernel (see [`try_morph`]).
///
/// # Safety
///
/// The CPU must support AVX2 and FMA.
#[target_feature(enable = "avx2,fma")]
unsafe fn morph_avx2<const WA: bool, const WB: bool>(
    a: &[u8],
    b: &[u8],
    unpack: &Unpack<'_>,
    t: f32,
    positions: &mut [[f32; 3]],
    normals: &mut [[f32; 3]],
) -> usize {
    let n = vertices(a, WA, b, WB, positions.len().min(normals.len()));
    let steps = n / 8;
    let tt = _mm256_set1_ps(t);
    let scale = unpack.scale.map(|s| _mm256_set1_ps(s));
    let offset = unpack.offset.map(|o| _mm256_set1_ps(o));
    let table = unpack.normals.rows().as_flattened();
    let (zero, one) = (_mm256_set1_ps(0.0), _mm256_set1_ps(1.0));
    let mut rows = [[0.0f32; 8]; 6];
    for step in 0..steps {
        let (sa, sb) = (8 * stride(WA), 8 * stride(WB));
        let (Some(ra), Some(rb)) = (
            a.get(step * sa..(step + 1) * sa),
            b.get(step * sb..(step + 1) * sb),
        ) else {
            break;
        };
        let (la, lb) = (load8::<WA>(ra), load8::<WB>(rb));
        let coordinate = |c: usize| {
            let (x, y) = (_mm256_cvtepi32_ps(la[c]), _mm256_cvtepi32_ps(lb[c]));
            let blend = _mm256_add_ps(x, _mm256_mul_ps(tt, _mm256_sub_ps(y, x)));
            _mm256_add_ps(_mm256_mul_ps(scale[c], blend), offset[c])
        };
        let (ia, ib) = (_mm256_slli_epi32::<2>(la[3]), _mm256_slli_epi32::<2>(lb[3]));
        let component = |c: usize| {
            // SAFETY: as in the AVX-512 kernel: indices `4·i`, `i < 256`, plus `c < 3` stay
            // inside the table's 1024 floats.
            let (na, nb) = unsafe {
                let base = table.as_ptr().add(c);
                (
                    _mm256_i32gather_ps::<4>(base, ia),
                    _mm256_i32gather_ps::<4>(base, ib),
                )
            };
            _mm256_add_ps(na, _mm256_mul_ps(tt, _mm256_sub_ps(nb, na)))
        };
        let (nx, ny, nz) = (component(0), component(1), component(2));
        let length = _mm256_sqrt_ps(_mm256_add_ps(
            _mm256_add_ps(_mm256_mul_ps(nx, nx), _mm256_mul_ps(ny, ny)),
            _mm256_mul_ps(nz, nz),
        ));
        let positive = _mm256_cmp_ps::<_CMP_GT_OQ>(length, zero);
        let inverse = _mm256_div_ps(one, length);
        let unit = |v: __m256, fallback: __m256| {
            _mm256_blendv_ps(
                fallback,
                _mm256_and_ps(_mm256_mul_ps(v, inverse), positive),
                positive,
            )
        };
        let values = [
            coordinate(0),
            coordinate(1),
            coordinate(2),
            unit(nx, zero),
            unit(ny, zero),
            unit(nz, one),
        ];
        for (row, v) in rows.iter_mut().zip(values) {
            // SAFETY: `row` is 8 writable floats, the store's size.
            unsafe { _mm256_storeu_ps(row.as_mut_ptr(), v) };
        }
        let (Some(p), Some(q)) = (
            positions.get_mut(step * 8..step * 8 + 8),
            normals.get_mut(step * 8..step * 8 + 8),
        ) else {
            break;
        };
        for (lane, (p, q)) in p.iter_mut().zip(q.iter_mut()).enumerate() {
            *p = [rows[0][lane], rows[1][lane], rows[2][lane]];
            *q = [rows[3][lane], rows[4][lane], rows[5][lane]];
        }
    }
    steps * 8
}
