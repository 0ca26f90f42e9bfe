//! `pose::blend::Blender::blend` sixteen bones a step with AVX-512F, for poses without scales.
//!
//! A step loads 16 bones of a layer (`(Quat, Vec3A)`, 8 floats each: eight vectors of two
//! bones, the translations' unused fourth lanes not read) and regroups their 128-bit quarters
//! into four vectors of rotations and four of translations, four bones each. The rotations
//! are transposed into four rows (x, y, z, w) of 16 bones, lane `4l + j` holding bone
//! `4j + l`, where the hemisphere test and the weighted sum run lane-wise; translations need
//! no test and are summed as they were regrouped, each four-bone vector with its bones'
//! weights. The sums stay in registers over every layer and the rest pose. A layer that
//! plays every bone at one weight ([`Plan::Uniform`]) is one broadcast, its weight summed
//! once for the whole skeleton; only per-bone weights ([`Plan::PerBone`]) are loaded and
//! summed per bone. Then each rotation is normalised (a reciprocal square root refined by
//! one Newton step; a lane whose squared length is not a normal float takes the exact
//! `1 / sqrt`, and the identity where the scalar blend falls back to it), each translation
//! divided by its bone's total weight, and the rows interleaved back into records.

use core::arch::x86_64::{
    __m512, __m512i, __mmask16, _CMP_GT_OQ, _CMP_LT_OQ, _CMP_NGE_UQ, _CMP_NGT_UQ, _CMP_NLE_UQ,
    _mm512_add_ps, _mm512_cmp_ps_mask, _mm512_div_ps, _mm512_fmadd_ps, _mm512_fnmadd_ps,
    _mm512_loadu_si512, _mm512_mask_blend_ps, _mm512_mask_div_ps, _mm512_mask_mov_ps,
    _mm512_mask_storeu_ps, _mm512_mask_sub_ps, _mm512_maskz_loadu_ps, _mm512_maskz_mov_ps,
    _mm512_mul_ps, _mm512_permutex2var_ps, _mm512_permutexvar_ps, _mm512_rsqrt14_ps,
    _mm512_set1_ps, _mm512_setzero_ps, _mm512_shuffle_f32x4, _mm512_shuffle_ps, _mm512_sqrt_ps,
    _mm512_sub_ps, _mm512_unpackhi_ps, _mm512_unpacklo_ps,
};

use glam::{Quat, Vec3A};

use crate::pose::blend::{Layer, Plan};

// The kernel reads and writes `(Quat, Vec3A)` as 8 floats, the rotation's x, y, z, w first.
const _: () = {
    assert!(size_of::<(Quat, Vec3A)>() == 32);
    assert!(core::mem::offset_of!((Quat, Vec3A), 0) == 0);
    assert!(core::mem::offset_of!((Quat, Vec3A), 1) == 16);
};

/// Bones a step.
const STEP: usize = 16;

/// Blends as `lanes::blend` says; `false` where the CPU lacks AVX-512F.
pub(crate) fn try_blend(
    rest: &[(Quat, Vec3A)],
    layers: &[Layer<'_>],
    plan: &[Plan],
    weights: &[f32],
    threshold: f32,
    out: &mut [(Quat, Vec3A)],
) -> bool {
    if !is_x86_feature_detected!("avx512f") {
        return false;
    }
    // SAFETY: the CPU was just found to support AVX-512F.
    unsafe { blend_avx512(rest, layers, plan, weights, threshold, out) };
    true
}

/// Lane-index vectors, as `vpermps` reads them.
#[repr(C, align(64))]
struct Index([i32; 16]);

/// Bone order (lane `i`: bone `i` of the step) to row order (lane `4l + j`: bone `4j + l`).
const TO_ROWS: Index = {
    let mut idx = [0i32; 16];
    let mut lane = 0;
    while lane < 16 {
        idx[lane] = (4 * (lane % 4) + lane / 4) as i32;
        lane += 1;
    }
    Index(idx)
};

/// Bone order to the `j`-th four-bone translation vector (lanes `4l .. 4l + 4`: bone
/// `4j + l`).
const TO_QUADS: [Index; 4] = {
    let mut out = [
        Index([0; 16]),
        Index([0; 16]),
        Index([0; 16]),
        Index([0; 16]),
    ];
    let mut j = 0;
    while j < 4 {
        let mut lane = 0;
        while lane < 16 {
            out[j].0[lane] = (4 * j + lane / 4) as i32;
            lane += 1;
        }
        j += 1;
    }
    out
};

/// A rotation vector's four bones and a translation vector's, interleaved into the records
/// of its first two bones (`[0]`) and last two (`[1]`), as `vpermt2ps` reads them.
const INTERLEAVE: [Index; 2] = [
    Index([0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20, 21, 22, 23]),
    Index([8, 9, 10, 11, 24, 25, 26, 27, 12, 13, 14, 15, 28, 29, 30, 31]),
];

#[inline]
#[target_feature(enable = "avx512f")]
fn index(i: &Index) -> __m512i {
    // SAFETY: `i` is 64 readable bytes.
    unsafe { _mm512_loadu_si512(i.0.as_ptr().cast()) }
}

/// One weight per bone of a step: in row order, for the rotations, and in the order of each
/// four-bone translation vector.
#[derive(Clone, Copy)]
struct Weigh {
    rows: __m512,
    quads: [__m512; 4],
}

impl Weigh {
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn uniform(w: f32) -> Weigh {
        let v = _mm512_set1_ps(w);
        Weigh {
            rows: v,
            quads: [v; 4],
        }
    }

    /// From 16 weights in bone order.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn per_bone(bones: __m512) -> Weigh {
        let mut quads = [bones; 4];
        for (quad, i) in quads.iter_mut().zip(&TO_QUADS) {
            *quad = _mm512_permutexvar_ps(index(i), bones);
        }
        Weigh {
            rows: _mm512_permutexvar_ps(index(&TO_ROWS), bones),
            quads,
        }
    }
}

/// The masked-load mask of floats `0 .. count` (`count <= 16`).
#[inline]
fn lanes(count: usize) -> __mmask16 {
    if count >= 16 {
        u16::MAX
    } else {
        (1u16 << count) - 1
    }
}

/// The first `count` (≤ 16) floats of `floats`, the rest zero and not read.
#[inline]
#[target_feature(enable = "avx512f")]
fn load_floats(floats: &[f32], count: usize) -> __m512 {
    let count = count.min(floats.len()).min(16);
    if count == 0 {
        return _mm512_setzero_ps();
    }
    // SAFETY: the mask enables floats `0 .. count`, within `floats`.
    unsafe { _mm512_maskz_loadu_ps(lanes(count), floats.as_ptr()) }
}

/// Bones `2v` and `2v + 1` of `bones` (at most 16), each as its 8 floats but the
/// translation's unused fourth lane (zero, not read); a bone past the end is zero.
#[inline]
#[target_feature(enable = "avx512f")]
fn load_pair(bones: &[(Quat, Vec3A)], v: usize) -> __m512 {
    let mask: __mmask16 = match bones.len().saturating_sub(2 * v) {
        // No load at all: a masked load with every lane disabled may still take a slow path
        // where its address lies past the mapped pages.
        0 => return _mm512_setzero_ps(),
        1 => 0x007F,
        _ => 0x7F7F,
    };
    // SAFETY: the mask enables floats 0–6 of bone `2v` and, where `bones` has it, of bone
    // `2v + 1`: bytes within `bones`, whose records are 8 floats each (asserted above).
    unsafe { _mm512_maskz_loadu_ps(mask, bones.as_ptr().wrapping_add(2 * v).cast()) }
}

/// The 4×4 transpose of each 128-bit quarter of four vectors (its own inverse).
#[inline]
#[target_feature(enable = "avx512f")]
fn transpose4([a, b, c, d]: [__m512; 4]) -> [__m512; 4] {
    let (t0, t1) = (_mm512_unpacklo_ps(a, b), _mm512_unpackhi_ps(a, b));
    let (t2, t3) = (_mm512_unpacklo_ps(c, d), _mm512_unpackhi_ps(c, d));
    [
        _mm512_shuffle_ps::<0x44>(t0, t2),
        _mm512_shuffle_ps::<0xEE>(t0, t2),
        _mm512_shuffle_ps::<0x44>(t1, t3),
        _mm512_shuffle_ps::<0xEE>(t1, t3),
    ]
}

/// Up to 16 bones: their rotations as rows (x, y, z, w) and their translations as four
/// four-bone vectors; missing bones are zero.
#[inline]
#[target_feature(enable = "avx512f")]
fn load_step(bones: &[(Quat, Vec3A)]) -> ([__m512; 4], [__m512; 4]) {
    let zero = _mm512_setzero_ps();
    let (mut quats, mut translations) = ([zero; 4], [zero; 4]);
    for (j, (q, t)) in quats.iter_mut().zip(&mut translations).enumerate() {
        let (a, b) = (load_pair(bones, 2 * j), load_pair(bones, 2 * j + 1));
        // Quarters 0 and 2 of each: the rotations of its two bones; 1 and 3: translations.
        *q = _mm512_shuffle_f32x4::<0x88>(a, b);
        *t = _mm512_shuffle_f32x4::<0xDD>(a, b);
    }
    (transpose4(quats), translations)
}

/// The running sums of a step's bones.
struct Sums {
    rows: [__m512; 4],
    translations: [__m512; 4],
    started: bool,
}

impl Sums {
    /// Adds a step of poses at `w`: each rotation turned to the hemisphere of its running
    /// sum first (none to turn to before the first).
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn add(&mut self, (rows, translations): ([__m512; 4], [__m512; 4]), w: &Weigh) {
        if !self.started {
            self.started = true;
            for (sum, q) in self.rows.iter_mut().zip(rows) {
                *sum = _mm512_mul_ps(q, w.rows);
            }
            for ((sum, t), w) in self.translations.iter_mut().zip(translations).zip(w.quads) {
                *sum = _mm512_mul_ps(t, w);
            }
            return;
        }
        let s = &self.rows;
        let dot = _mm512_fmadd_ps(
            s[3],
            rows[3],
            _mm512_fmadd_ps(
                s[2],
                rows[2],
                _mm512_fmadd_ps(s[1], rows[1], _mm512_mul_ps(s[0], rows[0])),
            ),
        );
        let opposed = _mm512_cmp_ps_mask::<_CMP_LT_OQ>(dot, _mm512_setzero_ps());
        let signed = _mm512_mask_sub_ps(w.rows, opposed, _mm512_setzero_ps(), w.rows);
        for (sum, q) in self.rows.iter_mut().zip(rows) {
            *sum = _mm512_fmadd_ps(q, signed, *sum);
        }
        for ((sum, t), w) in self.translations.iter_mut().zip(translations).zip(w.quads) {
            *sum = _mm512_fmadd_ps(t, w, *sum);
        }
    }
}

/// The blend. Every layer's plan and weights are as `Blender::blend_lanes` makes them: a
/// `Uniform` layer's pose has at least `rest.len()` bones; `weights` holds `rest.len()`
/// weights per layer.
#[target_feature(enable = "avx512f")]
fn blend_avx512(
    rest: &[(Quat, Vec3A)],
    layers: &[Layer<'_>],
    plan: &[Plan],
    weights: &[f32],
    threshold: f32,
    out: &mut [(Quat, Vec3A)],
) {
    let bones = rest.len().min(out.len());
    let per_bone = plan.contains(&Plan::PerBone);
    // Without per-bone weights, every bone has the same total weight and rest-pose share.
    let total: f32 = plan
        .iter()
        .map(|p| if let Plan::Uniform(w) = *p { w } else { 0.0 })
        .sum();
    let rest_share = if total > 0.0 { threshold - total } else { 1.0 };
    let uniform_inverse = Weigh::uniform(1.0 / (total + rest_share.max(0.0)));
    let (zero, one) = (_mm512_setzero_ps(), _mm512_set1_ps(1.0));
    for first in (0..bones).step_by(STEP) {
        let count = (bones - first).min(STEP);
        let mut sums = Sums {
            rows: [zero; 4],
            translations: [zero; 4],
            started: false,
        };
        let mut total_weight = zero;
        for (k, (layer, plan)) in layers.iter().zip(plan).enumerate() {
            let w = match *plan {
                Plan::Skip => continue,
                Plan::Uniform(w) => {
                    total_weight = _mm512_add_ps(total_weight, _mm512_set1_ps(w));
                    Weigh::uniform(w)
                }
                Plan::PerBone => {
                    let row = weights.get(k * bones + first..).unwrap_or_default();
                    let w = load_floats(row, count);
                    total_weight = _mm512_add_ps(total_weight, w);
                    Weigh::per_bone(w)
                }
            };
            let poses = layer.pose.bones.get(first..).unwrap_or_default();
            sums.add(load_step(&poses[..poses.len().min(count)]), &w);
        }
        let rest_step = &rest[first..first + count];
        let inverse = if per_bone {
            // Per bone: the rest pose where the total is below the threshold (all of it
            // where there is no weight), then the total's reciprocal.
            let weighed = _mm512_cmp_ps_mask::<_CMP_GT_OQ>(total_weight, zero);
            let share = _mm512_mask_blend_ps(
                weighed,
                one,
                _mm512_sub_ps(_mm512_set1_ps(threshold), total_weight),
            );
            let filled = _mm512_cmp_ps_mask::<_CMP_GT_OQ>(share, zero) & lanes(count);
            if filled != 0 {
                let share = _mm512_maskz_mov_ps(filled, share);
                sums.add(load_step(rest_step), &Weigh::per_bone(share));
                total_weight = _mm512_add_ps(total_weight, share);
            }
            Weigh::per_bone(_mm512_div_ps(one, total_weight))
        } else {
            if rest_share > 0.0 {
                sums.add(load_step(rest_step), &Weigh::uniform(rest_share));
            }
            uniform_inverse
        };
        let rows = normalized(sums.rows, count);
        let mut translations = sums.translations;
        for (t, w) in translations.iter_mut().zip(inverse.quads) {
            *t = _mm512_mul_ps(*t, w);
        }
        store_step(rows, translations, &mut out[first..first + count]);
    }
}

/// The rotation rows normalised as glam's `normalize_or(identity)` does (up to the
/// reciprocal square root's rounding), for the step's first `count` bones.
#[inline]
#[target_feature(enable = "avx512f")]
fn normalized(rows: [__m512; 4], count: usize) -> [__m512; 4] {
    let length2 = _mm512_fmadd_ps(
        rows[3],
        rows[3],
        _mm512_fmadd_ps(
            rows[2],
            rows[2],
            _mm512_fmadd_ps(rows[1], rows[1], _mm512_mul_ps(rows[0], rows[0])),
        ),
    );
    let estimate = _mm512_rsqrt14_ps(length2);
    // One Newton step: r · (3/2 − (l²/2) · r²).
    let half = _mm512_mul_ps(length2, _mm512_set1_ps(0.5));
    let mut inverse = _mm512_mul_ps(
        estimate,
        _mm512_fnmadd_ps(_mm512_mul_ps(half, estimate), estimate, _mm512_set1_ps(1.5)),
    );
    // Lanes (in row order) whose squared length is zero, subnormal, infinite or NaN: exact.
    let valid = if count >= STEP {
        u16::MAX
    } else {
        (0..STEP)
            .filter(|lane| 4 * (lane % 4) + lane / 4 < count)
            .fold(0u16, |m, lane| m | (1 << lane))
    };
    let odd = (_mm512_cmp_ps_mask::<_CMP_NGE_UQ>(length2, _mm512_set1_ps(f32::MIN_POSITIVE))
        | _mm512_cmp_ps_mask::<_CMP_NLE_UQ>(length2, _mm512_set1_ps(f32::MAX)))
        & valid;
    let mut out = rows;
    if odd == 0 {
        for c in &mut out {
            *c = _mm512_mul_ps(*c, inverse);
        }
        return out;
    }
    let one = _mm512_set1_ps(1.0);
    inverse = _mm512_mask_div_ps(inverse, odd, one, _mm512_sqrt_ps(length2));
    // The identity where the reciprocal length is not positive and finite.
    let identity = odd
        & (_mm512_cmp_ps_mask::<_CMP_NGT_UQ>(inverse, _mm512_setzero_ps())
            | _mm512_cmp_ps_mask::<_CMP_NLE_UQ>(inverse, _mm512_set1_ps(f32::MAX)));
    for c in &mut out {
        *c = _mm512_maskz_mov_ps(!identity, _mm512_mul_ps(*c, inverse));
    }
    out[3] = _mm512_mask_mov_ps(out[3], identity, one);
    out
}

/// Writes the step's rotation rows and translation vectors into `out` (at most 16 bones).
#[inline]
#[target_feature(enable = "avx512f")]
fn store_step(rows: [__m512; 4], translations: [__m512; 4], out: &mut [(Quat, Vec3A)]) {
    let quats = transpose4(rows);
    let (front, back) = (index(&INTERLEAVE[0]), index(&INTERLEAVE[1]));
    for (j, (q, t)) in quats.into_iter().zip(translations).enumerate() {
        for (v, i) in [(2 * j, front), (2 * j + 1, back)] {
            let mask: __mmask16 = match out.len().saturating_sub(2 * v) {
                0 => continue,
                1 => 0x00FF,
                _ => 0xFFFF,
            };
            let pair = _mm512_permutex2var_ps(q, i, t);
            // SAFETY: the mask enables the 8 floats of bone `2v` and, where `out` has it,
            // of bone `2v + 1`: bytes within `out`, whose records are 8 floats each
            // (asserted above); the unused fourth lane of a translation is written 0.
            unsafe {
                _mm512_mask_storeu_ps(out.as_mut_ptr().wrapping_add(2 * v).cast(), mask, pair);
            };
        }
    }
}
