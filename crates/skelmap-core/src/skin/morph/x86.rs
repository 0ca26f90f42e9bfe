//! The morph kernel on AVX-512F (16 vertices per step) and AVX2 + FMA (8).
//!
//! Both frames' packed records are loaded a step at a time and split into `x`, `y`, `z` and
//! normal lanes (byte records with shifts and masks; word records first separated into their
//! even and odd 32-bit halves, lat/long records' coordinates sign-extended); the coordinates
//! are blended and scaled, the two frames' normals gathered from the table (for lat/long
//! records, the cosine and sine of both angles, multiplied), blended and normalised with
//! `sqrt` and a division. Every
//! operation is the scalar reference's, in its order and without fused multiply-adds, so the
//! results are the reference's to the bit. The results are stored interleaved. The
//! vertices past the last full step are left to the caller.
#![allow(unsafe_code)]

use super::Unpack;

/// Record kinds, the kernels' const parameter: `[x, y, z, normal]` bytes.
pub(crate) const BYTES: u8 = 0;
/// Three `u16` coordinates, a normal byte and a pad byte.
pub(crate) const WORDS: u8 = 1;
/// Three `i16` coordinates and a `u16` normal of latitude (high byte) and longitude.
pub(crate) const LAT_LONG: u8 = 2;

/// Tweens the leading full steps of `a` → `b` (records of kinds `KA` and `KB`: [`BYTES`],
/// [`WORDS`] or [`LAT_LONG`], the last only with itself) at `t` into `positions` and
/// `normals`, with AVX-512 (`avx512`) or AVX2; returns the vertices done (0 when the CPU
/// lacks the features). With `OWN`, each frame is unpacked on its own grid (`unpack` is
/// `[a's, b's]`) and the positions blended; otherwise `unpack[0]` unpacks the blend.
pub(crate) fn try_morph<const KA: u8, const KB: u8, const OWN: bool>(
    avx512: bool,
    a: &[u8],
    b: &[u8],
    unpack: [&Unpack<'_>; 2],
    t: f32,
    positions: &mut [[f32; 3]],
    normals: &mut [[f32; 3]],
) -> usize {
    let avx2 = is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma");
    if avx512 && avx2 && is_x86_feature_detected!("avx512f") {
        // SAFETY: the CPU was just found to support AVX-512F, AVX2 and FMA.
        unsafe { morph_avx512::<KA, KB, OWN>(a, b, unpack, t, positions, normals) }
    } else if !avx512 && avx2 {
        // SAFETY: the CPU was just found to support AVX2 and FMA.
        unsafe { morph_avx2::<KA, KB, OWN>(a, b, unpack, t, positions, normals) }
    } else {
        0
    }
}

/// Bytes per record of kind `kind`.
const fn stride(kind: u8) -> usize {
    if kind == BYTES { 4 } else { 8 }
}

/// Vertices the kernels may run over: every input and output holds them.
fn vertices(a: &[u8], ka: u8, b: &[u8], kb: u8, out: usize) -> usize {
    (a.len() / stride(ka)).min(b.len() / stride(kb)).min(out)
}

/// The morph kernel for one register width, `$lanes` vertices a step: the width's module `$w`
/// gives the loads, the arithmetic, the table gather, the selection and the stores, and the
/// body runs the same operations in the same order at both widths (the scalar reference's,
/// without fused multiply-adds, so the results are the reference's to the bit).
macro_rules! morph_kernel {
    ($(#[$doc:meta])* $name:ident, $w:ident, $features:literal) => {
        $(#[$doc])*
        ///
        /// # Safety
        ///
        /// The CPU must support the features the function enables.
        #[target_feature(enable = $features)]
        unsafe fn $name<const KA: u8, const KB: u8, const OWN: bool>(
            a: &[u8],
            b: &[u8],
            [unpack, unpack_b]: [&Unpack<'_>; 2],
            t: f32,
            positions: &mut [[f32; 3]],
            normals: &mut [[f32; 3]],
        ) -> usize {
            use $w::{
                LANES, add, div, float, gather, lat_long, load, mul, positive, select, splat, sqrt,
                sub,
            };
            let n = vertices(a, KA, b, KB, positions.len().min(normals.len()));
            let steps = n / LANES;
            let tt = splat(t);
            let [sx, sy, sz] = unpack.scale;
            let [ox, oy, oz] = unpack.offset;
            let (scale, offset) = ([splat(sx), splat(sy), splat(sz)], [splat(ox), splat(oy), splat(oz)]);
            let [bx, by, bz] = unpack_b.scale;
            let [px, py, pz] = unpack_b.offset;
            let (scale_b, offset_b) = ([splat(bx), splat(by), splat(bz)], [splat(px), splat(py), splat(pz)]);
            let uu = splat(1.0 - t);
            let table = unpack.normals.rows().as_flattened();
            let (zero, one) = (splat(0.0), splat(1.0));
            for step in 0..steps {
                let (sa, sb) = (LANES * stride(KA), LANES * stride(KB));
                let (Some(ra), Some(rb)) = (
                    a.get(step * sa..(step + 1) * sa),
                    b.get(step * sb..(step + 1) * sb),
                ) else {
                    break;
                };
                let (la, lb) = (load::<KA>(ra), load::<KB>(rb));
                let coordinate = |c: usize| {
                    let (x, y) = (float(la[c]), float(lb[c]));
                    if OWN {
                        // Each frame on its own grid, the positions blended.
                        let pa = add(mul(scale[c], x), offset[c]);
                        let pb = add(mul(scale_b[c], y), offset_b[c]);
                        add(mul(pa, uu), mul(pb, tt))
                    } else {
                        let blend = add(x, mul(tt, sub(y, x)));
                        add(mul(scale[c], blend), offset[c])
                    }
                };
                // The frames' normals: table rows gathered a component at a time (both frames'
                // component, then its blend: gathering all six first was slower on the
                // `morph` bench), or decoded from latitude and longitude (`KA` is `LAT_LONG`
                // only when `KB` is).
                let decoded =
                    (KA == LAT_LONG).then(|| (lat_long(table, la[3]), lat_long(table, lb[3])));
                let component = |c: usize| {
                    let (na, nb) = match decoded {
                        Some((na, nb)) => (na[c], nb[c]),
                        None => (gather(table, c, la[3]), gather(table, c, lb[3])),
                    };
                    add(na, mul(tt, sub(nb, na)))
                };
                let (nx, ny, nz) = (component(0), component(1), component(2));
                let length = sqrt(add(add(mul(nx, nx), mul(ny, ny)), mul(nz, nz)));
                // Where the blend has no length (or is not finite), the normal is +z.
                let positive = positive(length);
                let inverse = div(one, length);
                let unit = |v, fallback| select(positive, fallback, mul(v, inverse));
                let values = [
                    coordinate(0),
                    coordinate(1),
                    coordinate(2),
                    unit(nx, zero),
                    unit(ny, zero),
                    unit(nz, one),
                ];
                let (Some(p), Some(q)) = (
                    positions.get_mut(step * LANES..(step + 1) * LANES),
                    normals.get_mut(step * LANES..(step + 1) * LANES),
                ) else {
                    break;
                };
                $w::store(values, p, q);
            }
            steps * LANES
        }
    };
}

morph_kernel!(
    /// The AVX-512 kernel (see [`try_morph`]): 16 vertices a step.
    morph_avx512,
    w16,
    "avx512f,avx2,fma"
);

morph_kernel!(
    /// The AVX2 kernel (see [`try_morph`]): 8 vertices a step.
    morph_avx2,
    w8,
    "avx2,fma"
);

/// The kernel's lane-wise arithmetic at one width: `splat`, `float` (from `i32` lanes), `add`,
/// `sub`, `mul`, `div` and `sqrt`, each the one intrinsic of the width's `$feature`.
macro_rules! lane_arithmetic {
    (
        $feature:literal, $float:ty, $int:ty, $set1:ident, $cvt:ident, $add:ident, $sub:ident,
        $mul:ident, $div:ident, $sqrt:ident
    ) => {
        #[inline]
        #[target_feature(enable = $feature)]
        pub(super) fn splat(v: f32) -> $float {
            $set1(v)
        }

        #[inline]
        #[target_feature(enable = $feature)]
        pub(super) fn float(v: $int) -> $float {
            $cvt(v)
        }

        #[inline]
        #[target_feature(enable = $feature)]
        pub(super) fn add(a: $float, b: $float) -> $float {
            $add(a, b)
        }

        #[inline]
        #[target_feature(enable = $feature)]
        pub(super) fn sub(a: $float, b: $float) -> $float {
            $sub(a, b)
        }

        #[inline]
        #[target_feature(enable = $feature)]
        pub(super) fn mul(a: $float, b: $float) -> $float {
            $mul(a, b)
        }

        #[inline]
        #[target_feature(enable = $feature)]
        pub(super) fn div(a: $float, b: $float) -> $float {
            $div(a, b)
        }

        #[inline]
        #[target_feature(enable = $feature)]
        pub(super) fn sqrt(a: $float) -> $float {
            $sqrt(a)
        }
    };
}

/// The 512-bit pieces of the kernel: 16 lanes.
mod w16 {
    use core::arch::x86_64::{
        __m512, __m512i, __mmask16, _CMP_GT_OQ, _mm512_add_epi32, _mm512_add_ps, _mm512_and_si512,
        _mm512_cmp_ps_mask, _mm512_cvtepi32_ps, _mm512_div_ps, _mm512_i32gather_ps,
        _mm512_loadu_si512, _mm512_mask_blend_ps, _mm512_mul_ps, _mm512_permutex2var_epi32,
        _mm512_set1_epi32, _mm512_set1_ps, _mm512_setr_epi32, _mm512_setzero_ps, _mm512_slli_epi32,
        _mm512_sqrt_ps, _mm512_srai_epi32, _mm512_srli_epi32, _mm512_sub_ps,
    };

    use super::{BYTES, LAT_LONG, stride};
    use crate::skin::x86::store_interleaved;

    pub(super) const LANES: usize = 16;

    lane_arithmetic!(
        "avx512f",
        __m512,
        __m512i,
        _mm512_set1_ps,
        _mm512_cvtepi32_ps,
        _mm512_add_ps,
        _mm512_sub_ps,
        _mm512_mul_ps,
        _mm512_div_ps,
        _mm512_sqrt_ps
    );

    /// The lanes where `v` is positive.
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(super) fn positive(v: __m512) -> __mmask16 {
        _mm512_cmp_ps_mask::<_CMP_GT_OQ>(v, _mm512_setzero_ps())
    }

    /// `v` where `lanes` says, `fallback` elsewhere.
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(super) fn select(lanes: __mmask16, fallback: __m512, v: __m512) -> __m512 {
        _mm512_mask_blend_ps(lanes, fallback, v)
    }

    /// Component `c` (below 3) of the table rows the lanes' normal indices (below 256) name.
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(super) fn gather(table: &[f32], c: usize, index: __m512i) -> __m512 {
        if table.len() < 1024 || c >= 3 {
            return _mm512_setzero_ps();
        }
        // Table rows are 4 floats.
        let at = _mm512_slli_epi32::<2>(index);
        // SAFETY: the table holds 1024 floats (256 rows of 4, checked above); every lane
        // index is `4·i` with `i < 256` (a byte), and `c < 3`, so each gathered float lies
        // inside it.
        unsafe { _mm512_i32gather_ps::<4>(at, table.as_ptr().add(c)) }
    }

    /// The normals of 16 lat/long words (latitude in bits 8..16, longitude in 0..8):
    /// `(cos a · sin b, sin a · sin b, cos b)` from the table's rows `[cos, sin, 0, 0]`.
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(super) fn lat_long(table: &[f32], normal: __m512i) -> [__m512; 3] {
        let byte = _mm512_set1_epi32(0xFF);
        let lat = _mm512_and_si512(_mm512_srli_epi32::<8>(normal), byte);
        let lng = _mm512_and_si512(normal, byte);
        let (cos_a, sin_a) = (gather(table, 0, lat), gather(table, 1, lat));
        let (cos_b, sin_b) = (gather(table, 0, lng), gather(table, 1, lng));
        [
            _mm512_mul_ps(cos_a, sin_b),
            _mm512_mul_ps(sin_a, sin_b),
            cos_b,
        ]
    }

    /// 16 records of kind `KIND` from `bytes` (at least `16 · stride` long) as `x`, `y`, `z`
    /// and normal lanes (an index, or a lat/long word).
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(super) fn load<const KIND: u8>(bytes: &[u8]) -> [__m512i; 4] {
        if bytes.len() < LANES * stride(KIND) {
            return [_mm512_set1_epi32(0); 4];
        }
        let byte = _mm512_set1_epi32(0xFF);
        if KIND != BYTES {
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
            if KIND == LAT_LONG {
                // Signed coordinates: each half shifted to the top and back, arithmetically.
                return [
                    _mm512_srai_epi32::<16>(_mm512_slli_epi32::<16>(xy)),
                    _mm512_srai_epi32::<16>(xy),
                    _mm512_srai_epi32::<16>(_mm512_slli_epi32::<16>(zn)),
                    _mm512_srli_epi32::<16>(zn),
                ];
            }
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

    /// Stores the rows `[px, py, pz, nx, ny, nz]` interleaved into 16 positions and normals.
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(super) fn store(v: [__m512; 6], positions: &mut [[f32; 3]], normals: &mut [[f32; 3]]) {
        if let (Ok(p), Ok(q)) = (
            <&mut [[f32; 3]; LANES]>::try_from(positions),
            <&mut [[f32; 3]; LANES]>::try_from(normals),
        ) {
            store_interleaved(v[0], v[1], v[2], p);
            store_interleaved(v[3], v[4], v[5], q);
        }
    }
}

/// The 256-bit pieces of the kernel: 8 lanes.
mod w8 {
    use core::arch::x86_64::{
        __m256, __m256i, _CMP_GT_OQ, _mm256_add_ps, _mm256_and_si256, _mm256_blendv_ps,
        _mm256_cmp_ps, _mm256_cvtepi32_ps, _mm256_div_ps, _mm256_i32gather_ps, _mm256_loadu_si256,
        _mm256_mul_ps, _mm256_permute2x128_si256, _mm256_permutevar8x32_epi32, _mm256_set1_epi32,
        _mm256_set1_ps, _mm256_setr_epi32, _mm256_setzero_ps, _mm256_slli_epi32, _mm256_sqrt_ps,
        _mm256_srai_epi32, _mm256_srli_epi32, _mm256_storeu_ps, _mm256_sub_ps,
    };

    use super::{BYTES, LAT_LONG, stride};

    pub(super) const LANES: usize = 8;

    lane_arithmetic!(
        "avx2",
        __m256,
        __m256i,
        _mm256_set1_ps,
        _mm256_cvtepi32_ps,
        _mm256_add_ps,
        _mm256_sub_ps,
        _mm256_mul_ps,
        _mm256_div_ps,
        _mm256_sqrt_ps
    );

    /// The lanes where `v` is positive, all bits set.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) fn positive(v: __m256) -> __m256 {
        _mm256_cmp_ps::<_CMP_GT_OQ>(v, _mm256_setzero_ps())
    }

    /// `v` where `lanes` says, `fallback` elsewhere.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) fn select(lanes: __m256, fallback: __m256, v: __m256) -> __m256 {
        _mm256_blendv_ps(fallback, v, lanes)
    }

    /// Component `c` (below 3) of the table rows the lanes' normal indices (below 256) name.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) fn gather(table: &[f32], c: usize, index: __m256i) -> __m256 {
        if table.len() < 1024 || c >= 3 {
            return _mm256_setzero_ps();
        }
        // Table rows are 4 floats.
        let at = _mm256_slli_epi32::<2>(index);
        // SAFETY: as in the 512-bit gather: indices `4·i`, `i < 256`, plus `c < 3` stay
        // inside the table's 1024 floats.
        unsafe { _mm256_i32gather_ps::<4>(table.as_ptr().add(c), at) }
    }

    /// The normals of 8 lat/long words, as the 512-bit `lat_long`.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) fn lat_long(table: &[f32], normal: __m256i) -> [__m256; 3] {
        let byte = _mm256_set1_epi32(0xFF);
        let lat = _mm256_and_si256(_mm256_srli_epi32::<8>(normal), byte);
        let lng = _mm256_and_si256(normal, byte);
        let (cos_a, sin_a) = (gather(table, 0, lat), gather(table, 1, lat));
        let (cos_b, sin_b) = (gather(table, 0, lng), gather(table, 1, lng));
        [
            _mm256_mul_ps(cos_a, sin_b),
            _mm256_mul_ps(sin_a, sin_b),
            cos_b,
        ]
    }

    /// 8 records of kind `KIND` from `bytes` (at least `8 · stride` long) as `x`, `y`, `z` and
    /// normal lanes (an index, or a lat/long word).
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) fn load<const KIND: u8>(bytes: &[u8]) -> [__m256i; 4] {
        if bytes.len() < LANES * stride(KIND) {
            return [_mm256_set1_epi32(0); 4];
        }
        let byte = _mm256_set1_epi32(0xFF);
        if KIND != BYTES {
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
            if KIND == LAT_LONG {
                // Signed coordinates: each half shifted to the top and back, arithmetically.
                return [
                    _mm256_srai_epi32::<16>(_mm256_slli_epi32::<16>(xy)),
                    _mm256_srai_epi32::<16>(xy),
                    _mm256_srai_epi32::<16>(_mm256_slli_epi32::<16>(zn)),
                    _mm256_srli_epi32::<16>(zn),
                ];
            }
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

    /// Stores the rows `[px, py, pz, nx, ny, nz]` into 8 positions and normals.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) fn store(v: [__m256; 6], positions: &mut [[f32; 3]], normals: &mut [[f32; 3]]) {
        let mut rows = [[0.0f32; LANES]; 6];
        for (row, v) in rows.iter_mut().zip(v) {
            // SAFETY: `row` is 8 writable floats, the store's size.
            unsafe { _mm256_storeu_ps(row.as_mut_ptr(), v) };
        }
        for (lane, (p, q)) in positions.iter_mut().zip(normals.iter_mut()).enumerate() {
            *p = [rows[0][lane], rows[1][lane], rows[2][lane]];
            *q = [rows[3][lane], rows[4][lane], rows[5][lane]];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{
        LAT_LONG as TABLE, LatLongVertex, MorphError, PackedFrame, Unpack, tween_scalar,
    };
    use super::{LAT_LONG, try_morph};
    use zerocopy::IntoBytes;

    /// Lat/long records every normal word and coordinate sign reach, both kernels against
    /// the scalar reference, to the bit, and each kernel running over its whole steps.
    #[test]
    fn lat_long_kernels_equal_the_reference_to_the_bit() -> Result<(), MorphError> {
        let record = |i: usize, f: usize| {
            let c = |k: usize| ((i * 7919 + k * 104_729 + f * 31) % 65_536) as u16;
            let mut r = [0u8; 8];
            for (k, w) in [c(0), c(1), c(2), c(3)].iter().enumerate() {
                r[2 * k..2 * k + 2].copy_from_slice(&w.to_le_bytes());
            }
            LatLongVertex(r)
        };
        let n = 16 * 64 + 5;
        let a: Vec<_> = (0..n).map(|i| record(i, 0)).collect();
        let b: Vec<_> = (0..n).map(|i| record(i, 1)).collect();
        let unpack = Unpack {
            scale: [1.0 / 64.0; 3],
            offset: [0.0; 3],
            normals: &TABLE,
        };
        let (mut p0, mut n0) = (vec![[0.0f32; 3]; n], vec![[0.0f32; 3]; n]);
        let (fa, fb) = (PackedFrame::LatLong(&a), PackedFrame::LatLong(&b));
        tween_scalar(&unpack, fa, fb, 0.3, &mut p0, &mut n0)?;
        for avx512 in [false, true] {
            let (mut p1, mut n1) = (vec![[0.0f32; 3]; n], vec![[0.0f32; 3]; n]);
            let (x, y) = (a.as_bytes(), b.as_bytes());
            let done = try_morph::<LAT_LONG, LAT_LONG, false>(
                avx512,
                x,
                y,
                [&unpack, &unpack],
                0.3,
                &mut p1,
                &mut n1,
            );
            let supported = if avx512 {
                is_x86_feature_detected!("avx512f")
            } else {
                is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma")
            };
            if !supported {
                assert_eq!(done, 0);
                continue;
            }
            assert_eq!(done, n - 5, "avx512: {avx512}");
            for v in 0..done {
                assert_eq!(p1[v].map(f32::to_bits), p0[v].map(f32::to_bits), "{v}");
                assert_eq!(n1[v].map(f32::to_bits), n0[v].map(f32::to_bits), "{v}");
            }
        }
        Ok(())
    }
}
