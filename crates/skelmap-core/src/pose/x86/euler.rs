//! Keyed joints (MS3D) sampled sixteen at a time with AVX-512F: each lane's two rotation keys,
//! Euler angles, become quaternions, are composed with the rest rotation (given as a
//! quaternion), blended along the shorter arc and normalised (nlerp); the position keys are
//! turned by the rest rotation, offset by the rest position and blended.
//!
//! Every step is the scalar sampler's arithmetic, lane-wise and in its order: the sines and
//! cosines of `pose::euler` (the same reduction and polynomials), glam's quaternion product,
//! its quaternion-times-vector and its dot products, the one multiply-subtract glam fuses
//! (when the build targets FMA) fused the same way. A lane's pose is therefore the scalar
//! one, bit for bit. Angles the polynomial does not reduce (beyond
//! `pose::euler::REDUCED_MAX`) are the caller's: the step reports them instead of sampling.
//!
//! The conversion of Euler angles alone (Half-Life's frames, `try_quats_from_zyx`) also runs
//! on AVX2, as two halves of eight lanes with the same arithmetic (both widths expand
//! `reduced_sin_cos!` and `quat_from_zyx_rows!`).

use core::arch::x86_64::{
    __m512, __mmask16, _CMP_GT_OQ, _CMP_LT_OQ, _CMP_NLE_UQ, _mm512_abs_ps, _mm512_add_epi32,
    _mm512_add_ps, _mm512_castpd_ps, _mm512_castps_pd, _mm512_castps_si512, _mm512_castsi512_ps,
    _mm512_cmp_ps_mask, _mm512_div_ps, _mm512_loadu_ps, _mm512_mask_blend_ps,
    _mm512_mask_xor_epi32, _mm512_maskz_mov_ps, _mm512_max_ps, _mm512_min_ps, _mm512_mul_ps,
    _mm512_set1_epi32, _mm512_set1_ps, _mm512_setzero_ps, _mm512_sqrt_ps, _mm512_storeu_ps,
    _mm512_sub_ps, _mm512_test_epi32_mask, _mm512_unpackhi_pd, _mm512_unpackhi_ps,
    _mm512_unpacklo_pd, _mm512_unpacklo_ps,
};

use glam::{Quat, Vec3A};

use crate::pose::euler::{COSINE, KeyLanes, PIO2_HI, PIO2_LO, PIO2_MID, REDUCED_MAX, ROUND, SINE};

use super::matrices::push_poses;

/// The reduction and polynomials of `pose::euler`'s `sin_cos4`, lane-wise at any width: `$a`
/// the half angles; `$add`, `$sub` and `$mul` the width's lane-wise operations and `$splat`
/// its broadcast. Gives the sine and cosine of each reduced angle and the shifted angle whose
/// low bits are its quadrant (see `ROUND`); each width swaps and signs them by the quadrant
/// with its own masks. Written once for the AVX-512 and AVX2 conversions, which expand it in
/// their own `target_feature` functions.
macro_rules! reduced_sin_cos {
    ($a:expr, $add:expr, $sub:expr, $mul:expr, $splat:expr) => {{
        let (add, sub, mul, k) = ($add, $sub, $mul, $splat);
        let a = $a;
        let round = k(ROUND);
        let shifted = add(mul(a, k(core::f32::consts::FRAC_2_PI)), round);
        let q = sub(shifted, round);
        let r = sub(
            sub(sub(a, mul(q, k(PIO2_HI))), mul(q, k(PIO2_MID))),
            mul(q, k(PIO2_LO)),
        );
        let z = mul(r, r);
        let sine_poly = sub(mul(add(mul(k(SINE[0]), z), k(SINE[1])), z), k(SINE[2]));
        let s = add(r, mul(mul(r, z), sine_poly));
        let cosine_poly = add(
            mul(sub(mul(k(COSINE[0]), z), k(COSINE[1])), z),
            k(COSINE[2]),
        );
        let c = add(sub(k(1.0), mul(k(0.5), z)), mul(mul(z, z), cosine_poly));
        (s, c, shifted)
    }};
}

/// `Rz(z) · Ry(y) · Rx(x)` of Euler angle rows x, y, z, lane-wise at any width, as
/// `pose::euler::quat_from_zyx`: `$sin_cos` the width's sines and cosines of half angles,
/// the operations as for `reduced_sin_cos!`. Gives the rows x, y, z, w. Written once for the
/// AVX-512 and AVX2 conversions.
macro_rules! quat_from_zyx_rows {
    ($angles:expr, $sin_cos:ident, $add:expr, $sub:expr, $mul:expr, $splat:expr) => {{
        let (add, sub, mul) = ($add, $sub, $mul);
        let angles = $angles;
        let half = $splat(0.5);
        // Called one by one, not through `map`: through a closure, `perf` showed the call
        // out of line (its own symbol), its vectors passed in memory.
        let (sx, cx) = $sin_cos(mul(half, angles[0]));
        let (sy, cy) = $sin_cos(mul(half, angles[1]));
        let (sz, cz) = $sin_cos(mul(half, angles[2]));
        [
            sub(mul(mul(sx, cy), cz), mul(mul(cx, sy), sz)),
            add(mul(mul(cx, sy), cz), mul(mul(sx, cy), sz)),
            sub(mul(mul(cx, cy), sz), mul(mul(sx, sy), cz)),
            add(mul(mul(cx, cy), cz), mul(mul(sx, sy), sz)),
        ]
    }};
}

/// Samples the first `count` (at most 16) lanes of `keys` and appends their poses to `out`;
/// `None`, with nothing appended, when the CPU lacks AVX-512F or an angle of those lanes is
/// beyond the polynomial's range.
pub(crate) fn try_keyed_nlerp(
    keys: &KeyLanes,
    count: usize,
    out: &mut Vec<(Quat, Vec3A)>,
) -> Option<()> {
    if !is_x86_feature_detected!("avx512f") {
        return None;
    }
    // SAFETY: the CPU was just found to support AVX-512F.
    unsafe { keyed_nlerp(keys, count.min(16), out) }
}

/// `Rz(z) · Ry(y) · Rx(x)` of sixteen Euler angle triples given as rows x, y, z, lane by lane
/// as the scalar `pose::euler::quat_from_zyx` computes each, bit for bit, written into `out`
/// as rows x, y, z, w (with AVX2 where the CPU lacks AVX-512F, eight lanes at a time).
/// `None`, with `out` untouched, when the CPU lacks both, or when an angle is beyond the
/// polynomial's range or a NaN (the scalar conversion uses the standard library there).
pub(crate) fn try_quats_from_zyx(angles: &[[f32; 16]; 3], out: &mut [[f32; 16]; 4]) -> Option<()> {
    if is_x86_feature_detected!("avx512f") {
        // SAFETY: the CPU was just found to support AVX-512F.
        unsafe { quats_from_zyx(angles, out) }
    } else if is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU was just found to support AVX2.
        unsafe { avx2::quats_from_zyx(angles, out) }
    } else {
        None
    }
}

/// # Safety
///
/// The CPU must support AVX-512F.
#[target_feature(enable = "avx512f")]
unsafe fn quats_from_zyx(angles: &[[f32; 16]; 3], out: &mut [[f32; 16]; 4]) -> Option<()> {
    // SAFETY: each row is 16 floats, which the load reads.
    let a: [__m512; 3] = core::array::from_fn(|k| unsafe { _mm512_loadu_ps(angles[k].as_ptr()) });
    if beyond_reduced(&a) != 0 {
        return None;
    }
    for (row, q) in out.iter_mut().zip(quat_from_zyx(a)) {
        // SAFETY: each row is 16 floats, which the store writes.
        unsafe { _mm512_storeu_ps(row.as_mut_ptr(), q) };
    }
    Some(())
}

/// The lanes where an angle of `angles` is beyond what the polynomial reduces (a half angle
/// above `REDUCED_MAX`) or a NaN: where the scalar conversion uses the standard library.
#[inline]
#[target_feature(enable = "avx512f")]
fn beyond_reduced(angles: &[__m512; 3]) -> __mmask16 {
    let limit = _mm512_set1_ps(2.0 * REDUCED_MAX);
    let [x, y, z] = *angles;
    _mm512_cmp_ps_mask::<_CMP_NLE_UQ>(_mm512_abs_ps(x), limit)
        | _mm512_cmp_ps_mask::<_CMP_NLE_UQ>(_mm512_abs_ps(y), limit)
        | _mm512_cmp_ps_mask::<_CMP_NLE_UQ>(_mm512_abs_ps(z), limit)
}

/// `c − a · b`, fused where glam fuses it.
#[inline]
#[target_feature(enable = "avx512f")]
fn neg_mul_sub(a: __m512, b: __m512, c: __m512) -> __m512 {
    #[cfg(target_feature = "fma")]
    {
        core::arch::x86_64::_mm512_fnmadd_ps(a, b, c)
    }
    #[cfg(not(target_feature = "fma"))]
    {
        _mm512_sub_ps(c, _mm512_mul_ps(a, b))
    }
}

/// Negates the lanes of `v` in `mask` (flips their sign bits).
#[inline]
#[target_feature(enable = "avx512f")]
fn negate(v: __m512, mask: __mmask16) -> __m512 {
    let v = _mm512_castps_si512(v);
    _mm512_castsi512_ps(_mm512_mask_xor_epi32(
        v,
        mask,
        v,
        _mm512_set1_epi32(i32::MIN),
    ))
}

/// The sines and cosines of sixteen half angles, as `pose::euler`'s `sin_cos4` computes them.
#[inline]
#[target_feature(enable = "avx512f")]
fn sin_cos(a: __m512) -> (__m512, __m512) {
    let (s, c, shifted) = reduced_sin_cos!(
        a,
        _mm512_add_ps,
        _mm512_sub_ps,
        _mm512_mul_ps,
        _mm512_set1_ps
    );
    let quadrant = _mm512_castps_si512(shifted);
    let bit = |b: i32, v| _mm512_test_epi32_mask(v, _mm512_set1_epi32(b));
    let odd = bit(1, quadrant);
    let (s, c) = (
        _mm512_mask_blend_ps(odd, s, c),
        _mm512_mask_blend_ps(odd, c, s),
    );
    let next = _mm512_add_epi32(quadrant, _mm512_set1_epi32(1));
    (negate(s, bit(2, quadrant)), negate(c, bit(2, next)))
}

/// `Rz(z) · Ry(y) · Rx(x)` of sixteen Euler angle triples, as `pose::euler::quat_from_zyx`.
#[inline]
#[target_feature(enable = "avx512f")]
fn quat_from_zyx(angles: [__m512; 3]) -> [__m512; 4] {
    quat_from_zyx_rows!(
        angles,
        sin_cos,
        _mm512_add_ps,
        _mm512_sub_ps,
        _mm512_mul_ps,
        _mm512_set1_ps
    )
}

/// glam's `Quat * Quat`, lane-wise: `(lx · r.wzyx) · (1, −1, 1, −1) + lw · r` plus
/// `(lz · r.yxwz) · (−1, 1, 1, −1) + (ly · r.zwxy) · (1, 1, −1, −1)`, each product rounded
/// before it is added (a product times ±1 is exact, so glam's multiply-add by the sign
/// pattern is a signed addition, fused or not).
#[inline]
#[target_feature(enable = "avx512f")]
fn mul_quat(l: [__m512; 4], r: [__m512; 4]) -> [__m512; 4] {
    let (add, sub, mul) = (_mm512_add_ps, _mm512_sub_ps, _mm512_mul_ps);
    let [lx, ly, lz, lw] = l;
    let [rx, ry, rz, rw] = r;
    let first = [
        add(mul(lx, rw), mul(lw, rx)),
        sub(mul(lw, ry), mul(lx, rz)),
        add(mul(lx, ry), mul(lw, rz)),
        sub(mul(lw, rw), mul(lx, rx)),
    ];
    // The last lane adds two negated products: −(a + b) would differ in the sign of a zero.
    let second = [
        sub(mul(ly, rz), mul(lz, ry)),
        add(mul(lz, rx), mul(ly, rw)),
        sub(mul(lz, rw), mul(ly, rx)),
        add(negate(mul(lz, rz), u16::MAX), negate(mul(ly, ry), u16::MAX)),
    ];
    core::array::from_fn(|c| add(first[c], second[c]))
}

/// glam's `Quat * Vec3A` (`mul_vec3a`), lane-wise.
#[inline]
#[target_feature(enable = "avx512f")]
fn mul_vec3(q: [__m512; 4], v: [__m512; 3]) -> [__m512; 3] {
    let (add, sub, mul) = (_mm512_add_ps, _mm512_sub_ps, _mm512_mul_ps);
    let [bx, by, bz, w] = q;
    let [vx, vy, vz] = v;
    let two = _mm512_set1_ps(2.0);
    let dot3 = |a: [__m512; 3], b: [__m512; 3]| {
        add(add(mul(a[0], b[0]), mul(a[1], b[1])), mul(a[2], b[2]))
    };
    let b = [bx, by, bz];
    let scale = sub(mul(w, w), dot3(b, b));
    let along = mul(dot3(v, b), two);
    // glam's cross: (b.zxy · v − v.zxy · b).zxy.
    let cross = [
        neg_mul_sub(vy, bz, mul(by, vz)),
        neg_mul_sub(vz, bx, mul(bz, vx)),
        neg_mul_sub(vx, by, mul(bx, vy)),
    ];
    let w2 = mul(w, two);
    core::array::from_fn(|c| add(add(mul(v[c], scale), mul(b[c], along)), mul(cross[c], w2)))
}

/// Sixteen four-float records as four rows of sixteen lanes: lane `4i + j` of row `c` is
/// value `c` of record `4j + i` (see `KeyLanes::slot`). Eight shuffles: pairs of floats, then
/// pairs of pairs, within each 128-bit quarter.
#[inline]
#[target_feature(enable = "avx512f")]
fn rows(records: &[[f32; 4]; 16]) -> [__m512; 4] {
    let floats = records.as_flattened();
    // SAFETY: `floats` is 64 floats, and the loads read floats 16k .. 16k + 16 of them.
    let v: [__m512; 4] =
        core::array::from_fn(|k| unsafe { _mm512_loadu_ps(floats.as_ptr().wrapping_add(16 * k)) });
    let (lo01, hi01) = (
        _mm512_castps_pd(_mm512_unpacklo_ps(v[0], v[1])),
        _mm512_castps_pd(_mm512_unpackhi_ps(v[0], v[1])),
    );
    let (lo23, hi23) = (
        _mm512_castps_pd(_mm512_unpacklo_ps(v[2], v[3])),
        _mm512_castps_pd(_mm512_unpackhi_ps(v[2], v[3])),
    );
    [
        _mm512_castpd_ps(_mm512_unpacklo_pd(lo01, lo23)),
        _mm512_castpd_ps(_mm512_unpackhi_pd(lo01, lo23)),
        _mm512_castpd_ps(_mm512_unpacklo_pd(hi01, hi23)),
        _mm512_castpd_ps(_mm512_unpackhi_pd(hi01, hi23)),
    ]
}

/// How far `t` lies from times `a` to `b`, clamped to `0 ..= 1`, and 0 where `b` is not
/// later: the scalar sampler's `fraction`, in its operations (its clamp keeps a NaN and a
/// −0, as the minimum and maximum with their operands in this order do).
#[inline]
#[target_feature(enable = "avx512f")]
fn fraction(a: __m512, b: __m512, t: __m512) -> __m512 {
    let span = _mm512_sub_ps(b, a);
    let f = _mm512_div_ps(_mm512_sub_ps(t, a), span);
    let f = _mm512_max_ps(_mm512_setzero_ps(), _mm512_min_ps(_mm512_set1_ps(1.0), f));
    _mm512_maskz_mov_ps(
        _mm512_cmp_ps_mask::<_CMP_GT_OQ>(span, _mm512_setzero_ps()),
        f,
    )
}

/// # Safety
///
/// The CPU must support AVX-512F; `count ≤ 16`.
#[target_feature(enable = "avx512f")]
unsafe fn keyed_nlerp(keys: &KeyLanes, count: usize, out: &mut Vec<(Quat, Vec3A)>) -> Option<()> {
    let enabled: __mmask16 = if count >= 16 {
        u16::MAX
    } else {
        (1 << count) - 1
    };
    let seconds = _mm512_set1_ps(keys.seconds);
    let rest = rows(&keys.rest);
    let [rotation, position] = &keys.keys;
    let ([time_a, ax, ay, az], [time_b, bx, by, bz]) = (rows(&rotation[0]), rows(&rotation[1]));
    let (key_a, key_b) = ([ax, ay, az], [bx, by, bz]);
    // The polynomial reduces half angles up to REDUCED_MAX; beyond it (or for a NaN, which
    // validation does not let through) the scalar sampler uses the standard library, so
    // such a step is the caller's.
    if (beyond_reduced(&key_a) | beyond_reduced(&key_b)) & enabled != 0 {
        return None;
    }
    let [rotated, positioned] = keys.keyed;
    let composed = |angles| mul_quat(rest, quat_from_zyx(angles));
    let (qa, qb) = (composed(key_a), composed(key_b));
    let (qa, qb) = (
        core::array::from_fn::<_, 4, _>(|c| _mm512_mask_blend_ps(rotated, rest[c], qa[c])),
        core::array::from_fn::<_, 4, _>(|c| _mm512_mask_blend_ps(rotated, rest[c], qb[c])),
    );
    let (add, mul, sub) = (_mm512_add_ps, _mm512_mul_ps, _mm512_sub_ps);
    let one = _mm512_set1_ps(1.0);
    let lerp = |a: __m512, b: __m512, t: __m512| add(mul(a, sub(one, t)), mul(b, t));
    // Rotation: the shorter arc, blended, then each component divided by the length.
    let dot4 = |a: [__m512; 4], b: [__m512; 4]| {
        add(
            add(mul(a[0], b[0]), mul(a[2], b[2])),
            add(mul(a[1], b[1]), mul(a[3], b[3])),
        )
    };
    let far = _mm512_cmp_ps_mask::<_CMP_LT_OQ>(dot4(qa, qb), _mm512_setzero_ps());
    let qb = qb.map(|c| negate(c, far));
    let t = fraction(time_a, time_b, seconds);
    let q: [__m512; 4] = core::array::from_fn(|c| lerp(qa[c], qb[c], t));
    let length = _mm512_sqrt_ps(dot4(q, q));
    let q = q.map(|c| _mm512_div_ps(c, length));
    // Translation: each key turned by the rest rotation and offset by the rest position.
    let [ox, oy, oz, _] = rows(&keys.origin);
    let origin = [ox, oy, oz];
    let ([time_a, ax, ay, az], [time_b, bx, by, bz]) = (rows(&position[0]), rows(&position[1]));
    let placed = |key: [__m512; 3]| {
        let turned = mul_vec3(rest, key);
        core::array::from_fn::<_, 3, _>(|c| add(origin[c], turned[c]))
    };
    let (pa, pb) = (placed([ax, ay, az]), placed([bx, by, bz]));
    let t = fraction(time_a, time_b, seconds);
    let p: [__m512; 3] = core::array::from_fn(|c| {
        _mm512_mask_blend_ps(positioned, origin[c], lerp(pa[c], pb[c], t))
    });
    push_poses([q[0], q[1], q[2], q[3], p[0], p[1], p[2]], count, out);
    Some(())
}

/// `try_quats_from_zyx` on AVX2: the sixteen lanes as two halves of eight, the AVX-512
/// arithmetic in its order (`pose::euler`'s `sin_cos4` and `quat_from_zyx`, lane-wise).
mod avx2 {
    use core::arch::x86_64::{
        __m256, _CMP_NLE_UQ, _mm256_add_epi32, _mm256_add_ps, _mm256_and_ps, _mm256_and_si256,
        _mm256_andnot_ps, _mm256_blendv_ps, _mm256_castps_si256, _mm256_castsi256_ps,
        _mm256_cmp_ps, _mm256_cmpeq_epi32, _mm256_loadu_ps, _mm256_movemask_ps, _mm256_mul_ps,
        _mm256_set1_epi32, _mm256_set1_ps, _mm256_storeu_ps, _mm256_sub_ps, _mm256_xor_ps,
    };

    use crate::pose::euler::{COSINE, PIO2_HI, PIO2_LO, PIO2_MID, REDUCED_MAX, ROUND, SINE};

    /// # Safety
    ///
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn quats_from_zyx(
        angles: &[[f32; 16]; 3],
        out: &mut [[f32; 16]; 4],
    ) -> Option<()> {
        // SAFETY: each row is 16 floats; half `h` reads floats `8h .. 8h + 8`.
        let load = |k: usize, h: usize| unsafe { _mm256_loadu_ps(angles[k].as_ptr().add(8 * h)) };
        let halves: [[__m256; 3]; 2] =
            core::array::from_fn(|h| core::array::from_fn(|k| load(k, h)));
        let limit = _mm256_set1_ps(2.0 * REDUCED_MAX);
        let sign = _mm256_set1_ps(-0.0);
        for a in &halves {
            for &v in a {
                let beyond = _mm256_cmp_ps::<_CMP_NLE_UQ>(_mm256_andnot_ps(sign, v), limit);
                if _mm256_movemask_ps(beyond) != 0 {
                    return None;
                }
            }
        }
        for (h, a) in halves.into_iter().enumerate() {
            for (row, q) in out.iter_mut().zip(quat_from_zyx(a)) {
                // SAFETY: each row is 16 floats; half `h` writes floats `8h .. 8h + 8`.
                unsafe { _mm256_storeu_ps(row.as_mut_ptr().add(8 * h), q) };
            }
        }
        Some(())
    }

    /// The sines and cosines of eight half angles, as the AVX-512 `sin_cos`.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn sin_cos(a: __m256) -> (__m256, __m256) {
        let (s, c, shifted) = reduced_sin_cos!(
            a,
            _mm256_add_ps,
            _mm256_sub_ps,
            _mm256_mul_ps,
            _mm256_set1_ps
        );
        let quadrant = _mm256_castps_si256(shifted);
        // All ones where bit `b` of `v` is set.
        let bit = |b: i32, v| {
            let b = _mm256_set1_epi32(b);
            _mm256_castsi256_ps(_mm256_cmpeq_epi32(_mm256_and_si256(v, b), b))
        };
        let odd = bit(1, quadrant);
        let (s, c) = (_mm256_blendv_ps(s, c, odd), _mm256_blendv_ps(c, s, odd));
        let next = _mm256_add_epi32(quadrant, _mm256_set1_epi32(1));
        let sign = _mm256_set1_ps(-0.0);
        let negate = |v: __m256, lanes: __m256| _mm256_xor_ps(v, _mm256_and_ps(lanes, sign));
        (negate(s, bit(2, quadrant)), negate(c, bit(2, next)))
    }

    /// `Rz(z) · Ry(y) · Rx(x)` of eight Euler angle triples, as the AVX-512 `quat_from_zyx`.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn quat_from_zyx(angles: [__m256; 3]) -> [__m256; 4] {
        quat_from_zyx_rows!(
            angles,
            sin_cos,
            _mm256_add_ps,
            _mm256_sub_ps,
            _mm256_mul_ps,
            _mm256_set1_ps
        )
    }
}

#[cfg(test)]
mod tests {
    use crate::pose::euler::{REDUCED_MAX, quat_from_zyx};

    /// The AVX2 conversion is the scalar `quat_from_zyx` of every lane, bit for bit, over
    /// angles of every quadrant up to the polynomial's range, and refuses (leaving `out` as
    /// it was) a set with one angle beyond it or a NaN, in either half.
    #[test]
    fn the_avx2_conversion_is_the_scalar_one_in_every_lane() {
        if !is_x86_feature_detected!("avx2") {
            return;
        }
        let mut state = 0x1234_5678u32;
        let mut next = move |scale: f32| {
            state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            ((state >> 8) as f32 / (1u32 << 24) as f32 * 2.0 - 1.0) * scale
        };
        for round in 0..400 {
            let scale = [4.0, 40.0, 2.0 * REDUCED_MAX][round % 3];
            let angles: [[f32; 16]; 3] =
                core::array::from_fn(|_| core::array::from_fn(|_| next(scale)));
            let mut out = [[0.0f32; 16]; 4];
            // SAFETY: the CPU was just found to support AVX2.
            let done = unsafe { super::avx2::quats_from_zyx(&angles, &mut out) };
            assert_eq!(done, Some(()));
            for lane in 0..16 {
                let want = quat_from_zyx([angles[0][lane], angles[1][lane], angles[2][lane]]);
                let got = [out[0][lane], out[1][lane], out[2][lane], out[3][lane]];
                assert_eq!(
                    got.map(f32::to_bits),
                    want.to_array().map(f32::to_bits),
                    "round {round}, lane {lane}"
                );
            }
        }
        for (k, lane, bad) in [
            (0, 3, f32::NAN),
            (2, 12, 2.0 * REDUCED_MAX + 1.0),
            (1, 8, f32::NEG_INFINITY),
        ] {
            let mut angles = [[0.5f32; 16]; 3];
            angles[k][lane] = bad;
            let mut out = [[7.0f32; 16]; 4];
            // SAFETY: as above.
            let done = unsafe { super::avx2::quats_from_zyx(&angles, &mut out) };
            assert_eq!(done, None);
            assert_eq!(out, [[7.0f32; 16]; 4]);
        }
    }
}
