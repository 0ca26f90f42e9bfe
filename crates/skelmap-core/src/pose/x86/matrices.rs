//! Bone poses stored as big-endian 3×4 row-major matrices (DPM's) to rotation quaternions and
//! translations, 16 bones at a time with AVX-512F, alone or two frames converted and blended
//! (nlerp) in one pass.
//!
//! Each step loads 16 poses (768 bytes) as twelve vectors, byte-swaps them and transposes them
//! in registers into twelve rows of 16 native floats (one row per matrix entry), then runs
//! the scalar conversion's arithmetic lane-wise: the four textbook formulas, the one with the
//! largest divisor chosen by mask, then normalised by one reciprocal of the length: the
//! scalar conversion's poses, bit for bit. The blend runs `pose::sample`'s nlerp lane-wise
//! too, in its order: its results are those of blending the converted frames, bit for bit.
//! A last step of at least [`MIN_LANES`] poses runs with its unused lanes zero (and not
//! loaded) and discarded; fewer are left to the caller, for whom one scalar conversion each
//! is cheaper than a step. Blending two frames of 2 to 8 poses takes one step for both
//! frames, each in half the lanes: small models pay one conversion's latency and shuffles,
//! not two. The blended rows go out either interleaved into `(Quat, Vec3A)` records or, for a
//! `SoaPose`, permuted into its blocks' lane order and stored as rows (no interleaving).
//!
//! Without AVX-512, AVX2 converts and blends 8 poses a step into records, with the same
//! arithmetic in the same order (module `avx2`: both widths expand `unit_poses_at_width!`
//! and `nlerp_rows_at_width!`); a `SoaPose` is then filled by the callers.

use core::arch::x86_64::{
    __m256, __m512, __mmask16, _CMP_GE_OQ, _CMP_LT_OQ, _mm256_castpd_ps, _mm256_storeu_ps,
    _mm512_add_ps, _mm512_and_si512, _mm512_andnot_si512, _mm512_castpd_ps, _mm512_castps_pd,
    _mm512_castps_si512, _mm512_castps512_ps256, _mm512_castsi512_ps, _mm512_cmp_ps_mask,
    _mm512_div_ps, _mm512_extractf64x4_pd, _mm512_loadu_si512, _mm512_mask_blend_ps,
    _mm512_mask_permutexvar_ps, _mm512_mask_storeu_ps, _mm512_mask_xor_epi32,
    _mm512_maskz_loadu_epi32, _mm512_mul_ps, _mm512_or_si512, _mm512_permutex2var_ps,
    _mm512_permutexvar_ps, _mm512_rol_epi32, _mm512_set1_epi32, _mm512_set1_ps, _mm512_setzero_ps,
    _mm512_shuffle_f32x4, _mm512_slli_epi32, _mm512_sqrt_ps, _mm512_srli_epi32, _mm512_sub_ps,
    _mm512_unpackhi_pd, _mm512_unpackhi_ps, _mm512_unpacklo_pd, _mm512_unpacklo_ps,
};

use glam::{Quat, Vec3A};

use super::blend::transpose_quarters;
use avx2::{be_poses_avx2, be_poses_nlerp_avx2};

use crate::pose::{BLOCK_BONES, SoaBlock};

/// Bytes of one pose.
const POSE: usize = 48;

/// The fewest poses a step converts: below it, a step costs more than scalar conversions.
const MIN_LANES: usize = 4;

/// The fewest poses per frame for which two frames share one step (see
/// `be_poses_nlerp_avx512`): a frame of one pose costs less converted twice by scalar code
/// than by a step; from two poses per frame on, the shared step is cheaper. The `pose/dpm/`
/// rows of `benches/skin.rs` time both paths: `xon_vehicles_wakizashi_cockpit` (one bone)
/// takes the scalar one, `xon_onslaught_reactor` (six bones) the shared step.
const MIN_PAIRED: usize = 2;

/// The arithmetic of `pose::sample`'s nlerp, lane-wise and in its order, at any width: see
/// [`nlerp_rows`]. `$v` is the width's vector type; `$add`, `$mul`, `$div`, `$sqrt` its
/// lane-wise operations and `$splat` its broadcast; `$toward` negates the four rows of a
/// quaternion in the lanes where the dot product it is given is negative. Written once for
/// the AVX-512 and AVX2 blends, which expand it in their own `target_feature` functions.
macro_rules! nlerp_rows_at_width {
    ($v:ty, ($a:expr, $b:expr, $t:expr), $add:expr, $mul:expr, $div:expr, $sqrt:expr,
     $splat:expr, $toward:expr) => {{
        let (add, mul) = ($add, $mul);
        let (s, u) = ($splat($t), $splat(1.0 - $t));
        let ((qa, ta), (qb, tb)) = ($a, $b);
        let dot = |p: [$v; 4], q: [$v; 4]| {
            add(
                add(mul(p[0], q[0]), mul(p[2], q[2])),
                add(mul(p[1], q[1]), mul(p[3], q[3])),
            )
        };
        let qb: [$v; 4] = $toward(dot(qa, qb), qb);
        let lerp = |p: $v, q: $v| add(mul(p, u), mul(q, s));
        let q = [
            lerp(qa[0], qb[0]),
            lerp(qa[1], qb[1]),
            lerp(qa[2], qb[2]),
            lerp(qa[3], qb[3]),
        ];
        let inverse = $div($splat(1.0), $sqrt(dot(q, q)));
        (
            [
                mul(q[0], inverse),
                mul(q[1], inverse),
                mul(q[2], inverse),
                mul(q[3], inverse),
            ],
            core::array::from_fn(|k| lerp(ta[k], tb[k])),
        )
    }};
}

/// The arithmetic of [`unit_poses`] at any width: `$v` the width's vector type, `$add`,
/// `$sub`, `$mul`, `$div`, `$sqrt` its lane-wise operations, `$splat` its broadcast, `$ge`
/// the lanes where one vector is at least another and `$blend(ge, b, a)` `a` in those lanes,
/// `b` elsewhere. Written once for the AVX-512 and AVX2 conversions.
macro_rules! unit_poses_at_width {
    ($v:ty, $m:expr, $add:expr, $sub:expr, $mul:expr, $div:expr, $sqrt:expr, $splat:expr,
     $ge:expr, $blend:expr) => {{
        let (add, sub, mul) = ($add, $sub, $mul);
        let one = $splat(1.0);
        let [r00, r01, r02, tx, r10, r11, r12, ty, r20, r21, r22, tz] = $m;
        let t = [
            sub(sub(add(one, r00), r11), r22),
            sub(add(sub(one, r00), r11), r22),
            add(sub(sub(one, r00), r11), r22),
            add(add(add(one, r00), r11), r22),
        ];
        let (xy, yz, zx) = (add(r10, r01), add(r21, r12), add(r02, r20));
        let (sx, sy, sz) = (sub(r21, r12), sub(r02, r20), sub(r10, r01));
        let by = [
            [t[0], xy, zx, sx],
            [xy, t[1], yz, sy],
            [zx, yz, t[2], sz],
            [sx, sy, sz, t[3]],
        ];
        let pick = |a: ([$v; 4], $v), b: ([$v; 4], $v)| {
            let first = $ge(a.1, b.1);
            (
                core::array::from_fn(|c| $blend(first, b.0[c], a.0[c])),
                $blend(first, b.1, a.1),
            )
        };
        let (v, _): ([$v; 4], $v) = pick(
            pick((by[0], t[0]), (by[1], t[1])),
            pick((by[2], t[2]), (by[3], t[3])),
        );
        let [x, y, z, w] = v;
        // `(x + z) + (y + w)`, as glam's `Vec4::length` adds (the scalar conversion's order).
        let dot = add(add(mul(x, x), mul(z, z)), add(mul(y, y), mul(w, w)));
        let inverse = $div(one, $sqrt(dot));
        (v.map(|c| mul(c, inverse)), [tx, ty, tz])
    }};
}

/// Appends the poses of `bytes` (big-endian 3×4 matrices) to `out` as unit quaternions and
/// translations, but for a last few (fewer than [`MIN_LANES`] past the last full step);
/// returns how many it converted (0 when the CPU lacks AVX-512F and AVX2).
pub(crate) fn try_be_poses(bytes: &[u8], out: &mut Vec<(Quat, Vec3A)>) -> usize {
    if is_x86_feature_detected!("avx512f") {
        // SAFETY: the CPU was just found to support AVX-512F.
        unsafe { be_poses_avx512(bytes, out) }
    } else if is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU was just found to support AVX2.
        unsafe { be_poses_avx2(bytes, out) }
    } else {
        0
    }
}

/// Where lane `j` of a group's three entry vectors takes its float from among the group's 48
/// (4 poses of 12 entries): vector `r`, lane `j` holds entry `4r + j / 4` of pose `j % 4`,
/// from the first two loaded vectors (`lo`) or, where `mask` says, from the third (`hi`).
const fn group_index(r: usize) -> ([i32; 16], [i32; 16], u16) {
    let (mut lo, mut hi, mut mask) = ([0i32; 16], [0i32; 16], 0u16);
    let mut j = 0;
    while j < 16 {
        let from = 12 * (j % 4) + 4 * r + j / 4;
        if from < 32 {
            lo[j] = from as i32;
        } else {
            hi[j] = (from - 32) as i32;
            mask |= 1 << j;
        }
        j += 1;
    }
    (lo, hi, mask)
}

const GROUP_INDEX: [([i32; 16], [i32; 16], u16); 3] =
    [group_index(0), group_index(1), group_index(2)];

/// The twelve entry rows of the step's `lanes` poses (`step` holds them; lanes past them are
/// zero): sixteen floats loaded at a time, byte-swapped, then [`transpose`]d.
#[inline]
#[target_feature(enable = "avx512f")]
fn rows_of(step: &[u8], lanes: usize) -> [__m512; 12] {
    let mut vectors = [_mm512_setzero_ps(); 12];
    for (v, vector) in vectors.iter_mut().enumerate() {
        *vector = swapped(step, 12 * lanes, v);
    }
    transpose(vectors)
}

/// The twelve entry rows of two frames' first `lanes` (at most 8) poses: frame `a`'s in
/// lanes 0–7, frame `b`'s in lanes 8–15 (lanes past `lanes` in each half are zero). The
/// halves of one [`transpose`]: poses 0–7 of a step come from its first six vectors.
#[inline]
#[target_feature(enable = "avx512f")]
fn paired_rows_of(a: &[u8], b: &[u8], lanes: usize) -> [__m512; 12] {
    let floats = (12 * lanes).min(96);
    let mut vectors = [_mm512_setzero_ps(); 12];
    let (front, back) = vectors.split_at_mut(6);
    for (v, (x, y)) in front.iter_mut().zip(back).enumerate() {
        *x = swapped(a, floats, v);
        *y = swapped(b, floats, v);
    }
    transpose(vectors)
}

/// Floats `16 v .. 16 v + 16` of `bytes` (big-endian), but none from `floats` on nor past
/// the end of `bytes` (those lanes are zero and not loaded), byte-swapped to native order.
#[inline]
#[target_feature(enable = "avx512f")]
fn swapped(bytes: &[u8], floats: usize, v: usize) -> __m512 {
    let floats = floats.min(bytes.len() / 4);
    let have = floats.saturating_sub(16 * v).min(16);
    if have == 0 {
        // No load at all: a masked load whose lanes are all disabled still costs a slow
        // path where its address lies past the mapped pages.
        return _mm512_setzero_ps();
    }
    let mask: __mmask16 = if have == 16 {
        u16::MAX
    } else {
        (1 << have) - 1
    };
    // SAFETY: the mask enables floats `16v .. 16v + have`, which lie within the first
    // `floats` ≤ `bytes.len() / 4` floats of `bytes`; disabled lanes are not read.
    let word = unsafe {
        _mm512_maskz_loadu_epi32(mask, bytes.as_ptr().cast::<i32>().wrapping_add(16 * v))
    };
    // Byte swap: the 16-bit halves, then the bytes within each half.
    let low_bytes = _mm512_set1_epi32(0x00FF_00FF);
    let halves = _mm512_rol_epi32::<16>(word);
    _mm512_castsi512_ps(_mm512_or_si512(
        _mm512_and_si512(_mm512_srli_epi32::<8>(halves), low_bytes),
        _mm512_andnot_si512(low_bytes, _mm512_slli_epi32::<8>(halves)),
    ))
}

/// Twelve vectors of 16 poses' entries, pose by pose (`4 g .. 4 g + 4` in vectors
/// `3 g .. 3 g + 3`), as twelve rows, entry by entry: regrouped by entry four poses at a time,
/// then the four groups' 128-bit quarters transposed. Lane `j` of every row is pose `j`.
#[inline]
#[target_feature(enable = "avx512f")]
fn transpose(vectors: [__m512; 12]) -> [__m512; 12] {
    // Per group of 4 poses (vectors 3g .. 3g + 2), three vectors of entries `4r .. 4r + 3`,
    // one 128-bit quarter per entry.
    let grouped: [[__m512; 3]; 4] = core::array::from_fn(|g| {
        core::array::from_fn(|r| {
            let (lo, hi, mask) = &GROUP_INDEX[r];
            // SAFETY: `lo` and `hi` are 16 `i32`s each, the loads' size.
            let (lo, hi) = unsafe {
                (
                    _mm512_loadu_si512(lo.as_ptr().cast()),
                    _mm512_loadu_si512(hi.as_ptr().cast()),
                )
            };
            let pair = _mm512_permutex2var_ps(vectors[3 * g], lo, vectors[3 * g + 1]);
            _mm512_mask_permutexvar_ps(pair, *mask, hi, vectors[3 * g + 2])
        })
    });
    let mut rows = [_mm512_setzero_ps(); 12];
    for (r, out) in rows.chunks_exact_mut(4).enumerate() {
        out.copy_from_slice(&transpose_quarters(core::array::from_fn(|g| grouped[g][r])));
    }
    rows
}

/// Seven rows of 16 lanes (quaternion `x y z w`, translation `x y z`) as 16 lanes of 8 floats
/// (the seven, then the seventh again: a `Vec3A`'s padding), two lanes per vector: pairs,
/// then quadruples interleaved within each 128-bit quarter, then quarters gathered.
#[inline]
#[target_feature(enable = "avx512f")]
fn interleave(rows: [__m512; 7]) -> [__m512; 8] {
    let [r0, r1, r2, r3, r4, r5, r6] = rows;
    // A translation's padding lane is its z, as `Vec3A::new` makes it.
    let r7 = r6;
    // Per quarter `q`: rows `a`, `b` at lanes 4q, 4q + 1 (lo) and 4q + 2, 4q + 3 (hi).
    let pairs = |a: __m512, b: __m512| (_mm512_unpacklo_ps(a, b), _mm512_unpackhi_ps(a, b));
    let ((l01, h01), (l23, h23)) = (pairs(r0, r1), pairs(r2, r3));
    let ((l45, h45), (l67, h67)) = (pairs(r4, r5), pairs(r6, r7));
    let quads = |a: __m512, b: __m512| {
        let (a, b) = (_mm512_castps_pd(a), _mm512_castps_pd(b));
        (
            _mm512_castpd_ps(_mm512_unpacklo_pd(a, b)),
            _mm512_castpd_ps(_mm512_unpackhi_pd(a, b)),
        )
    };
    // `front[k]`: rows 0–3 of lane 4q + k in quarter q; `back[k]`: rows 4–7.
    let ((f0, f1), (f2, f3)) = (quads(l01, l23), quads(h01, h23));
    let ((b0, b1), (b2, b3)) = (quads(l45, l67), quads(h45, h67));
    let (front, back) = ([f0, f1, f2, f3], [b0, b1, b2, b3]);
    // Vector `2q + h` holds lanes 4q + 2h and 4q + 2h + 1: quarter q of front and back of
    // each.
    let pick = |k: usize, q: usize| {
        let (f, b) = ((front[k], front[k + 1]), (back[k], back[k + 1]));
        let (x, y) = match q {
            0 => (
                _mm512_shuffle_f32x4::<0x00>(f.0, f.1),
                _mm512_shuffle_f32x4::<0x00>(b.0, b.1),
            ),
            1 => (
                _mm512_shuffle_f32x4::<0x55>(f.0, f.1),
                _mm512_shuffle_f32x4::<0x55>(b.0, b.1),
            ),
            2 => (
                _mm512_shuffle_f32x4::<0xAA>(f.0, f.1),
                _mm512_shuffle_f32x4::<0xAA>(b.0, b.1),
            ),
            _ => (
                _mm512_shuffle_f32x4::<0xFF>(f.0, f.1),
                _mm512_shuffle_f32x4::<0xFF>(b.0, b.1),
            ),
        };
        _mm512_mask_blend_ps(0xF0F0, x, y)
    };
    core::array::from_fn(|v| pick(2 * (v % 2), v / 2))
}

/// # Safety
///
/// The CPU must support AVX-512F.
#[target_feature(enable = "avx512f")]
unsafe fn be_poses_avx512(bytes: &[u8], out: &mut Vec<(Quat, Vec3A)>) -> usize {
    let poses = whole_steps(bytes.len() / POSE);
    out.reserve(poses);
    for step in bytes
        .get(..poses * POSE)
        .unwrap_or_default()
        .chunks(16 * POSE)
    {
        let lanes = step.len() / POSE;
        let (q, t) = unit_poses(rows_of(step, lanes));
        push_poses([q[0], q[1], q[2], q[3], t[0], t[1], t[2]], lanes, out);
    }
    poses
}

/// Blends the poses of two frames (`a` and `b`, big-endian 3×4 matrices, as many as the
/// shorter holds) at `t` and appends them to `out`, but for a last few (fewer than
/// [`MIN_LANES`] past the last full step, or a single pose): each converted to a unit
/// quaternion and a translation, the quaternions blended along the shorter arc and
/// normalised (nlerp), the translations linearly. Returns how many it blended (0 when the CPU
/// lacks AVX-512F and AVX2).
pub(crate) fn try_be_poses_nlerp(
    a: &[u8],
    b: &[u8],
    t: f32,
    out: &mut Vec<(Quat, Vec3A)>,
) -> usize {
    if is_x86_feature_detected!("avx512f") {
        // SAFETY: the CPU was just found to support AVX-512F.
        unsafe { be_poses_nlerp_avx512(a, b, t, out) }
    } else if is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU was just found to support AVX2.
        unsafe { be_poses_nlerp_avx2(a, b, t, out) }
    } else {
        0
    }
}

/// Converts both frames' poses and blends them, 16 poses a step, appending them to `out`.
///
/// # Safety
///
/// The CPU must support AVX-512F.
#[target_feature(enable = "avx512f")]
unsafe fn be_poses_nlerp_avx512(a: &[u8], b: &[u8], t: f32, out: &mut Vec<(Quat, Vec3A)>) -> usize {
    out.reserve(a.len().min(b.len()) / POSE);
    nlerp_steps(a, b, t, |_, rows, lanes| push_poses(rows, lanes, out))
}

/// [`try_be_poses_nlerp`] into the blocks of a `SoaPose` (as many as the poses need) instead:
/// the same poses, bit for bit, each step's rows stored in the blocks' lane order, and no
/// other lane written. Returns how many it blended (0 when the CPU lacks AVX-512F).
pub(crate) fn try_be_poses_nlerp_soa(a: &[u8], b: &[u8], t: f32, out: &mut [SoaBlock]) -> usize {
    if is_x86_feature_detected!("avx512f") {
        // SAFETY: the CPU was just found to support AVX-512F.
        unsafe { be_poses_nlerp_soa_avx512(a, b, t, out) }
    } else {
        0
    }
}

/// # Safety
///
/// The CPU must support AVX-512F.
#[target_feature(enable = "avx512f")]
unsafe fn be_poses_nlerp_soa_avx512(a: &[u8], b: &[u8], t: f32, out: &mut [SoaBlock]) -> usize {
    let order = super::blend::index(&super::blend::TO_ROWS);
    nlerp_steps(a, b, t, |first, rows, lanes| {
        // Only the step's poses: the lanes past them keep the identity a `SoaPose` holds.
        let mask = super::blend::row_lanes(lanes);
        if let Some(block) = out.get_mut(first / BLOCK_BONES) {
            for (row, v) in block.rows.iter_mut().zip(rows) {
                let v = _mm512_permutexvar_ps(order, v);
                // SAFETY: `row` is 16 writable floats.
                unsafe { _mm512_mask_storeu_ps(row.as_mut_ptr(), mask, v) };
            }
        }
    })
}

/// Converts both frames' poses and blends them, 16 poses a step, handing each step's seven
/// rows to `emit` with the index of its first pose and its number of lanes; returns how many
/// poses it blended. Frames of at most 8 poses (and at least [`MIN_PAIRED`]) take one step
/// for both: frame `a` in lanes 0–7, frame `b` in lanes 8–15, so one conversion serves the
/// two (see [`paired_rows_of`]).
#[inline]
#[target_feature(enable = "avx512f")]
fn nlerp_steps(
    a: &[u8],
    b: &[u8],
    t: f32,
    mut emit: impl FnMut(usize, [__m512; 7], usize),
) -> usize {
    let pairs = a.len().min(b.len()) / POSE;
    if (MIN_PAIRED..=8).contains(&pairs) {
        let (q, p) = unit_poses(paired_rows_of(a, b, pairs));
        // Lanes 8–15 (frame `b`) down to 0–7.
        let down = |v: __m512| _mm512_shuffle_f32x4::<0b01_00_11_10>(v, v);
        let qb = [down(q[0]), down(q[1]), down(q[2]), down(q[3])];
        let pb = [down(p[0]), down(p[1]), down(p[2])];
        emit(0, nlerp_lanes((q, p), (qb, pb), t), pairs);
        return pairs;
    }
    let poses = whole_steps(pairs);
    let [a, b] = [a, b].map(|f| f.get(..poses * POSE).unwrap_or_default());
    for (k, (step_a, step_b)) in a.chunks(16 * POSE).zip(b.chunks(16 * POSE)).enumerate() {
        let lanes = step_a.len() / POSE;
        let from_a = unit_poses(rows_of(step_a, lanes));
        let from_b = unit_poses(rows_of(step_b, lanes));
        emit(16 * k, nlerp_lanes(from_a, from_b, t), lanes);
    }
    poses
}

/// The arithmetic of `pose::sample`'s nlerp, lane-wise and in its order, of poses `a` and `b`
/// (quaternion rows `x y z w`, translation rows `x y z`) at `t`: see [`nlerp_rows`]. Returns
/// the seven rows, quaternion first.
#[inline]
#[target_feature(enable = "avx512f")]
pub(super) fn nlerp_lanes(
    a: ([__m512; 4], [__m512; 3]),
    b: ([__m512; 4], [__m512; 3]),
    t: f32,
) -> [__m512; 7] {
    let (q, p) = nlerp_rows(a, b, t);
    [q[0], q[1], q[2], q[3], p[0], p[1], p[2]]
}

/// The arithmetic of `pose::sample`'s nlerp, lane-wise and in its order, of poses `a` and `b`
/// at `t`: the rotations as four rows (`x y z w`, the same lane order in both), the
/// translations as any `N` vectors whose lanes match between `a` and `b` (rows, or bones'
/// `x y z` records). The dot product as `(x + z) + (y + w)`, the far quaternion negated,
/// each blend `a (1 − t) + b t`, and the normalisation by one reciprocal of the square root
/// of the squared length.
#[inline]
#[target_feature(enable = "avx512f")]
pub(super) fn nlerp_rows<const N: usize>(
    a: ([__m512; 4], [__m512; N]),
    b: ([__m512; 4], [__m512; N]),
    t: f32,
) -> ([__m512; 4], [__m512; N]) {
    nlerp_rows_at_width!(
        __m512,
        (a, b, t),
        _mm512_add_ps,
        _mm512_mul_ps,
        _mm512_div_ps,
        _mm512_sqrt_ps,
        _mm512_set1_ps,
        |dot, q: [__m512; 4]| {
            let far = _mm512_cmp_ps_mask::<_CMP_LT_OQ>(dot, _mm512_setzero_ps());
            let sign = _mm512_set1_epi32(i32::MIN);
            let toward = |c: __m512| {
                let c = _mm512_castps_si512(c);
                _mm512_castsi512_ps(_mm512_mask_xor_epi32(c, far, c, sign))
            };
            [toward(q[0]), toward(q[1]), toward(q[2]), toward(q[3])]
        }
    )
}

/// Of `poses`, how many steps of 16 cover: every one, unless fewer than [`MIN_LANES`]
/// follow the last full step (those are left to the caller).
pub(super) fn whole_steps(poses: usize) -> usize {
    whole_steps_of::<16>(poses)
}

/// Of `poses`, how many steps of `LANES` cover, as [`whole_steps`] counts them.
pub(super) fn whole_steps_of<const LANES: usize>(poses: usize) -> usize {
    if poses % LANES < MIN_LANES {
        poses - poses % LANES
    } else {
        poses
    }
}

/// The unit quaternions (rows `x y z w`) and translations of a step's twelve entry rows: the
/// four textbook formulas, the one with the largest divisor chosen by mask (ties to the
/// first, as the scalar `pick` chooses), then normalised: the scalar
/// `pose::rotation::pose_of_matrix`, bit for bit.
#[inline]
#[target_feature(enable = "avx512f")]
fn unit_poses(m: [__m512; 12]) -> ([__m512; 4], [__m512; 3]) {
    unit_poses_at_width!(
        __m512,
        m,
        _mm512_add_ps,
        _mm512_sub_ps,
        _mm512_mul_ps,
        _mm512_div_ps,
        _mm512_sqrt_ps,
        _mm512_set1_ps,
        _mm512_cmp_ps_mask::<_CMP_GE_OQ>,
        _mm512_mask_blend_ps
    )
}

/// Appends the first `lanes` of seven rows (quaternion `x y z w`, translation `x y z`) to
/// `out` as poses.
#[inline]
#[target_feature(enable = "avx512f")]
pub(super) fn push_poses(rows: [__m512; 7], lanes: usize, out: &mut Vec<(Quat, Vec3A)>) {
    let lanes = lanes.min(16);
    out.reserve(lanes);
    let len = out.len();
    // Two records a vector, stored whole: a reader that loads the poses back in vectors (the
    // palette's local matrices, a blend) then takes them from these stores, where records
    // written a float group at a time could not be forwarded to its loads and stalled them.
    let at = out.as_mut_ptr().wrapping_add(len).cast::<f32>();
    for (k, pair) in interleave(rows)
        .into_iter()
        .enumerate()
        .take(lanes.div_ceil(2))
    {
        let mask: __mmask16 = if 2 * k + 1 < lanes { u16::MAX } else { 0x00FF };
        // SAFETY: records `len + 2k` and, where the mask enables it, `len + 2k + 1` are below
        // `len + lanes`, within the capacity reserved above; each is 8 floats (asserted in
        // `blend`).
        unsafe { _mm512_mask_storeu_ps(at.wrapping_add(16 * k), mask, pair) };
    }
    // SAFETY: the `lanes` records from `len` on were written above, each a quaternion and a
    // vector of plain floats.
    unsafe { out.set_len(len + lanes) };
}

/// The first `lanes` of seven rows as [`push_poses`] reads them, lane `l`'s pose written at
/// `out[to[l]]` (dropped where that is past `out`'s end): each record one 256-bit store of
/// its half of [`interleave`]'s vectors, as `push_poses` stores them.
#[inline]
#[target_feature(enable = "avx512f")]
pub(super) fn scatter_poses(
    rows: [__m512; 7],
    lanes: usize,
    to: &[u32],
    out: &mut [(Quat, Vec3A)],
) {
    let to = to.get(..lanes.min(16)).unwrap_or(to);
    let mut put = |lane: usize, record: __m256| {
        if let Some(slot) = to.get(lane).and_then(|&at| out.get_mut(at as usize)) {
            // SAFETY: `slot` is one record of 8 writable floats (asserted in `blend`).
            unsafe { _mm256_storeu_ps(core::ptr::from_mut(slot).cast(), record) };
        }
    };
    for (k, pair) in interleave(rows).into_iter().enumerate() {
        if 2 * k >= to.len() {
            break;
        }
        put(2 * k, _mm512_castps512_ps256(pair));
        let high = _mm512_extractf64x4_pd::<1>(_mm512_castps_pd(pair));
        put(2 * k + 1, _mm256_castpd_ps(high));
    }
}

/// The conversion and blend on AVX2, 8 poses a step: the AVX-512 kernels' arithmetic, in
/// their order (so the scalar conversion's poses, bit for bit), on 256-bit vectors. A step
/// loads each pose's three rows as 128-bit quarters, pairs pose `k` with pose `k + 4` in one
/// vector, byte-swaps and transposes the four pairs of each row within their halves: the
/// twelve entry rows, lane `j` pose `j`. Frames of 2 to 4 poses share one step, frame `a` in
/// lanes 0–3 and frame `b` in lanes 4–7.
pub(super) mod avx2 {
    use core::arch::x86_64::{
        __m128i, __m256, _CMP_GE_OQ, _CMP_LT_OQ, _mm_loadu_si128, _mm_setzero_si128, _mm256_add_ps,
        _mm256_and_ps, _mm256_blendv_ps, _mm256_castsi256_ps, _mm256_cmp_ps, _mm256_div_ps,
        _mm256_mul_ps, _mm256_permute2f128_ps, _mm256_set_m128i, _mm256_set1_ps, _mm256_setr_epi8,
        _mm256_setzero_ps, _mm256_shuffle_epi8, _mm256_sqrt_ps, _mm256_storeu_ps, _mm256_sub_ps,
        _mm256_xor_ps,
    };

    use glam::{Quat, Vec3A};

    use super::super::ymm::{transpose_halves, transpose8};
    use super::{MIN_LANES, POSE, whole_steps_of};

    /// Poses a step.
    const LANES: usize = 8;

    /// Converts the poses of `bytes` as `try_be_poses` says, 8 a step.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn be_poses_avx2(bytes: &[u8], out: &mut Vec<(Quat, Vec3A)>) -> usize {
        let poses = whole_steps_of::<LANES>(bytes.len() / POSE);
        out.reserve(poses);
        for step in bytes
            .get(..poses * POSE)
            .unwrap_or_default()
            .chunks(LANES * POSE)
        {
            let lanes = step.len() / POSE;
            let (q, t) = unit_poses(rows_of(|k| pose(step, k)));
            push_poses([q[0], q[1], q[2], q[3], t[0], t[1], t[2]], lanes, out);
        }
        poses
    }

    /// Converts and blends two frames' poses as `try_be_poses_nlerp` says, 8 a step; frames
    /// of 2 to 4 poses in one step, `a` in lanes 0–3 and `b` in lanes 4–7.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn be_poses_nlerp_avx2(
        a: &[u8],
        b: &[u8],
        t: f32,
        out: &mut Vec<(Quat, Vec3A)>,
    ) -> usize {
        let pairs = a.len().min(b.len()) / POSE;
        out.reserve(pairs);
        if (2..=LANES / 2).contains(&pairs) {
            let rows = rows_of(|k| {
                if k < LANES / 2 {
                    pose(a, k).filter(|_| k < pairs)
                } else {
                    pose(b, k - LANES / 2).filter(|_| k - LANES / 2 < pairs)
                }
            });
            let (q, p) = unit_poses(rows);
            // Lanes 4–7 (frame `b`) down to 0–3.
            let down = |v: __m256| _mm256_permute2f128_ps::<0x01>(v, v);
            let qb = [down(q[0]), down(q[1]), down(q[2]), down(q[3])];
            let pb = [down(p[0]), down(p[1]), down(p[2])];
            push_poses(nlerp_lanes((q, p), (qb, pb), t), pairs, out);
            return pairs;
        }
        let poses = whole_steps_of::<LANES>(pairs);
        let [a, b] = [a, b].map(|f| f.get(..poses * POSE).unwrap_or_default());
        for (step_a, step_b) in a.chunks(LANES * POSE).zip(b.chunks(LANES * POSE)) {
            let lanes = step_a.len() / POSE;
            let from_a = unit_poses(rows_of(|k| pose(step_a, k)));
            let from_b = unit_poses(rows_of(|k| pose(step_b, k)));
            push_poses(nlerp_lanes(from_a, from_b, t), lanes, out);
        }
        poses
    }

    /// Pose `k` of `bytes` (48 bytes), if `bytes` holds it whole.
    fn pose(bytes: &[u8], k: usize) -> Option<&[u8; POSE]> {
        bytes.get(k * POSE..(k + 1) * POSE)?.try_into().ok()
    }

    /// The twelve entry rows of the poses `at` gives for lanes 0–7 (zero where it gives
    /// none): row `4i + j` is entry `j` of each pose's matrix row `i`, native floats.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn rows_of<'a>(at: impl Fn(usize) -> Option<&'a [u8; POSE]>) -> [__m256; 12] {
        let poses: [Option<&[u8; POSE]>; LANES] = core::array::from_fn(at);
        // Reverses the bytes of each 32-bit float.
        let swap = _mm256_setr_epi8(
            3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12, 3, 2, 1, 0, 7, 6, 5, 4, 11, 10,
            9, 8, 15, 14, 13, 12,
        );
        let quarter = |k: usize, i: usize| -> __m128i {
            match poses[k] {
                // SAFETY: the pose is 48 bytes; quarter `i < 3` is bytes `16i .. 16i + 16`.
                Some(p) => unsafe { _mm_loadu_si128(p.as_ptr().add(16 * i).cast()) },
                None => _mm_setzero_si128(),
            }
        };
        let mut rows = [_mm256_setzero_ps(); 12];
        for (i, out) in rows.chunks_exact_mut(4).enumerate() {
            let pairs: [__m256; 4] = core::array::from_fn(|k| {
                let v = _mm256_set_m128i(quarter(k + 4, i), quarter(k, i));
                _mm256_castsi256_ps(_mm256_shuffle_epi8(v, swap))
            });
            out.copy_from_slice(&transpose_halves(pairs));
        }
        rows
    }

    /// The unit quaternions (rows `x y z w`) and translations of twelve entry rows, as the
    /// AVX-512 `unit_poses` computes them, in its order.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn unit_poses(m: [__m256; 12]) -> ([__m256; 4], [__m256; 3]) {
        unit_poses_at_width!(
            __m256,
            m,
            _mm256_add_ps,
            _mm256_sub_ps,
            _mm256_mul_ps,
            _mm256_div_ps,
            _mm256_sqrt_ps,
            _mm256_set1_ps,
            _mm256_cmp_ps::<_CMP_GE_OQ>,
            |ge, b, a| _mm256_blendv_ps(b, a, ge)
        )
    }

    /// The AVX-512 `nlerp_rows` on 8 lanes, in its order: the rotations as four rows, the
    /// translations as any `N` vectors whose lanes match between `a` and `b`.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(in crate::pose::x86) fn nlerp_rows<const N: usize>(
        a: ([__m256; 4], [__m256; N]),
        b: ([__m256; 4], [__m256; N]),
        t: f32,
    ) -> ([__m256; 4], [__m256; N]) {
        nlerp_rows_at_width!(
            __m256,
            (a, b, t),
            _mm256_add_ps,
            _mm256_mul_ps,
            _mm256_div_ps,
            _mm256_sqrt_ps,
            _mm256_set1_ps,
            |dot, q: [__m256; 4]| {
                let far = _mm256_cmp_ps::<_CMP_LT_OQ>(dot, _mm256_setzero_ps());
                // The sign bit where the far quaternion is negated.
                let sign = _mm256_and_ps(far, _mm256_set1_ps(-0.0));
                q.map(|c| _mm256_xor_ps(c, sign))
            }
        )
    }

    /// [`nlerp_rows`] of two converted steps as seven rows, quaternion first.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn nlerp_lanes(
        a: ([__m256; 4], [__m256; 3]),
        b: ([__m256; 4], [__m256; 3]),
        t: f32,
    ) -> [__m256; 7] {
        let (q, p) = nlerp_rows(a, b, t);
        [q[0], q[1], q[2], q[3], p[0], p[1], p[2]]
    }

    /// Appends the first `lanes` of seven rows (quaternion `x y z w`, translation `x y z`) to
    /// `out` as poses: an 8×8 transpose (the translation's `z` again as its padding, as
    /// `Vec3A::new` makes it), one 32-byte record a lane.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(in crate::pose::x86) fn push_poses(
        rows: [__m256; 7],
        lanes: usize,
        out: &mut Vec<(Quat, Vec3A)>,
    ) {
        let lanes = lanes.min(LANES);
        out.reserve(lanes);
        let records = records(rows);
        let len = out.len();
        let at = out.as_mut_ptr().wrapping_add(len).cast::<f32>();
        for (lane, &record) in records.iter().enumerate().take(lanes) {
            // SAFETY: record `len + lane` is below `len + lanes`, within the capacity reserved
            // above; each record is 8 floats (asserted in `blend`).
            unsafe { _mm256_storeu_ps(at.wrapping_add(8 * lane), record) };
        }
        // SAFETY: the `lanes` records from `len` on were written above, each a quaternion and
        // a vector of plain floats.
        unsafe { out.set_len(len + lanes) };
    }

    /// Seven rows (quaternion `x y z w`, translation `x y z`) as each lane's 32-byte record,
    /// the translation's `z` again as its padding.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(in crate::pose::x86) fn records(rows: [__m256; 7]) -> [__m256; LANES] {
        let [r0, r1, r2, r3, r4, r5, r6] = rows;
        transpose8([r0, r1, r2, r3, r4, r5, r6, r6])
    }

    const _: () = assert!(MIN_LANES <= LANES);
}

#[cfg(test)]
mod tests {
    use glam::{Mat3, Quat, Vec3, Vec3A};

    use super::avx2::{be_poses_avx2, be_poses_nlerp_avx2};
    use super::whole_steps_of;
    use crate::pose::local::nlerp_pose;
    use crate::pose::rotation::pose_of_matrix;

    /// `n` row-major 3×4 poses, and their big-endian bytes: rotations half a turn about each
    /// axis (each of the four formulas chosen), the identity, a scaled rotation and turns
    /// about axes from a sequence.
    fn poses(n: usize, seed: u32) -> (Vec<[[f32; 4]; 3]>, Vec<u8>) {
        let mut state = seed.wrapping_mul(2_654_435_761).wrapping_add(1);
        let mut next = move || {
            state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (state >> 8) as f32 / (1u32 << 24) as f32 * 2.0 - 1.0
        };
        let special = [
            Mat3::from_rotation_x(core::f32::consts::PI),
            Mat3::from_rotation_y(core::f32::consts::PI),
            Mat3::from_rotation_z(core::f32::consts::PI),
            Mat3::IDENTITY,
            Mat3::from_rotation_y(0.7) * 1.5,
        ];
        let matrices: Vec<[[f32; 4]; 3]> = (0..n)
            .map(|k| {
                let m = special.get(k % 8).copied().unwrap_or_else(|| {
                    let axis = Vec3::new(next(), next(), next()).normalize_or(Vec3::X);
                    Mat3::from_quat(Quat::from_axis_angle(axis, 4.0 * next()))
                });
                let t = [next() * 50.0, next() * 50.0, next() * 50.0];
                core::array::from_fn(|r| {
                    let row = m.row(r);
                    [row.x, row.y, row.z, t[r]]
                })
            })
            .collect();
        let bytes = matrices
            .iter()
            .flatten()
            .flatten()
            .flat_map(|v| v.to_be_bytes())
            .collect();
        (matrices, bytes)
    }

    fn bits(p: &(Quat, Vec3A)) -> ([u32; 4], [u32; 3]) {
        (
            p.0.to_array().map(f32::to_bits),
            p.1.to_array().map(f32::to_bits),
        )
    }

    /// The AVX2 conversion gives the scalar conversion's poses, bit for bit, at every count
    /// around its steps of 8, appended after what `out` held; it leaves a tail of fewer than
    /// 4 past its last whole step to the caller.
    #[test]
    fn the_avx2_conversion_is_the_scalar_one_at_every_count() {
        if !is_x86_feature_detected!("avx2") {
            return;
        }
        for n in 0..=41 {
            let (matrices, bytes) = poses(n, n as u32);
            let held = (Quat::IDENTITY, Vec3A::splat(7.0));
            let mut out = vec![held];
            // SAFETY: the CPU was just found to support AVX2.
            let done = unsafe { be_poses_avx2(&bytes, &mut out) };
            assert_eq!(done, whole_steps_of::<8>(n), "{n} poses");
            assert_eq!(out.len(), 1 + done);
            assert_eq!(bits(&out[0]), bits(&held));
            for (k, (got, m)) in out[1..].iter().zip(&matrices).enumerate() {
                assert_eq!(bits(got), bits(&pose_of_matrix(*m)), "{n} poses, pose {k}");
            }
        }
    }

    /// The AVX2 blend of two frames gives the scalar conversions' nlerp, bit for bit, at every
    /// count (frames of 2 to 4 poses in one shared step) and for frames of unequal lengths.
    #[test]
    fn the_avx2_blend_is_the_scalar_nlerp_at_every_count() {
        if !is_x86_feature_detected!("avx2") {
            return;
        }
        for n in 0..=41 {
            for (extra, t) in [(0, 0.3), (3, 0.75), (1, 0.0), (0, 1.0)] {
                let (ma, a) = poses(n, 7 * n as u32 + 1);
                let (mb, b) = poses(n + extra, 7 * n as u32 + 2);
                let mut out = Vec::new();
                // SAFETY: the CPU was just found to support AVX2.
                let done = unsafe { be_poses_nlerp_avx2(&a, &b, t, &mut out) };
                let want = if (2..=4).contains(&n) {
                    n
                } else {
                    whole_steps_of::<8>(n)
                };
                assert_eq!(done, want, "{n} poses");
                assert_eq!(out.len(), done);
                for (k, got) in out.iter().enumerate() {
                    let scalar = nlerp_pose(pose_of_matrix(ma[k]), pose_of_matrix(mb[k]), t);
                    assert_eq!(bits(got), bits(&scalar), "{n} poses, t {t}, pose {k}");
                }
            }
        }
    }
}
