//! `pose::blend::Blender::blend` sixteen bones a step with AVX-512F, for poses without scales;
//! and `pose::sample`'s blend of two frames (`try_nlerp_in_place`), on the same loads.
//!
//! A step loads 16 bones of a layer (`(Quat, Vec3A)`, 8 floats each: eight vectors of two
//! bones; a last, partial step leaves the missing bones unread, loading a last odd bone's
//! 8 floats alone) and regroups their 128-bit quarters
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
//!
//! Layers held as `SoaPose` blocks (`Blender::blend_soa`) skip the regrouping: a block's
//! seven rows are already in that lane order (rotations and translations alike, so the
//! translations are summed as rows with the rotations' weights) and are loaded as stored;
//! only the result's translation rows are transposed into four-bone vectors for the same
//! interleaving into records.
//!
//! Without AVX-512, the blend of two frames runs on AVX2, 8 bones a step: each frame's
//! records paired into rotation and translation vectors, the rotations transposed into rows
//! within 128-bit halves, the same arithmetic, and the records paired back.

use core::arch::x86_64::{
    __m256, __m512, __m512i, __mmask16, _CMP_GT_OQ, _CMP_LT_OQ, _CMP_NGE_UQ, _CMP_NGT_UQ,
    _CMP_NLE_UQ, _mm256_loadu_ps, _mm256_permute2f128_ps, _mm256_setzero_ps, _mm256_storeu_ps,
    _mm512_add_ps, _mm512_castps_si512, _mm512_castsi512_ps, _mm512_cmp_ps_mask, _mm512_div_ps,
    _mm512_fmadd_ps, _mm512_fnmadd_ps, _mm512_loadu_ps, _mm512_loadu_si512, _mm512_mask_blend_ps,
    _mm512_mask_div_ps, _mm512_mask_mov_ps, _mm512_mask_storeu_ps, _mm512_mask_sub_ps,
    _mm512_maskz_loadu_ps, _mm512_maskz_mov_ps, _mm512_mul_ps, _mm512_permutex2var_ps,
    _mm512_permutexvar_ps, _mm512_rsqrt14_ps, _mm512_set1_epi32, _mm512_set1_ps, _mm512_setzero_ps,
    _mm512_shuffle_f32x4, _mm512_shuffle_ps, _mm512_sqrt_ps, _mm512_storeu_ps, _mm512_sub_ps,
    _mm512_ternarylogic_epi32, _mm512_unpackhi_ps, _mm512_unpacklo_ps, _mm512_zextps256_ps512,
};

use glam::{Quat, Vec3A};

use super::ymm::transpose_halves;
use crate::pose::SoaBlock;
use crate::pose::SoaPose;
use crate::pose::blend::{Layer, Plan};

// Full steps load each translation's fourth lane too: glam stores a `Vec3A` as one
// `__m128` on x86-64, all 16 bytes initialised (this stops the build where it would be a
// padded struct instead, glam's `scalar-math`).
const _: fn(Vec3A) -> core::arch::x86_64::__m128 =
    <core::arch::x86_64::__m128 as From<Vec3A>>::from;

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

/// Blends as `lanes::blend_soa` says; `false` where the CPU lacks AVX-512F.
pub(crate) fn try_blend_soa(
    rest: &SoaPose,
    layers: &[Layer<'_, SoaPose>],
    plan: &[Plan],
    weights: &[f32],
    threshold: f32,
    out: &mut [(Quat, Vec3A)],
) -> bool {
    if !is_x86_feature_detected!("avx512f") {
        return false;
    }
    // SAFETY: the CPU was just found to support AVX-512F.
    unsafe { blend_soa_avx512(rest, layers, plan, weights, threshold, out) };
    true
}

/// Blends as `lanes::nlerp_in_place` says; returns how many poses it blended (0 where the
/// CPU lacks AVX-512F and AVX2).
pub(crate) fn try_nlerp_in_place(a: &mut [(Quat, Vec3A)], b: &[(Quat, Vec3A)], t: f32) -> usize {
    if is_x86_feature_detected!("avx512f") {
        // SAFETY: the CPU was just found to support AVX-512F.
        unsafe { nlerp_in_place_avx512(a, b, t) }
    } else if is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU was just found to support AVX2.
        unsafe { nlerp_in_place_avx2(a, b, t) }
    } else {
        0
    }
}

/// Each step's poses of both frames loaded as [`load_step`] regroups them (the rotations as
/// rows, the translations as four-bone vectors: the same lanes in both), blended lane-wise
/// by `pose::sample`'s arithmetic (`matrices::nlerp_rows`) and stored back over `a`'s. Rows,
/// rather than two bones a vector as stored: the square root and the division then serve 16
/// bones each, and they bound a step.
#[target_feature(enable = "avx512f")]
fn nlerp_in_place_avx512(a: &mut [(Quat, Vec3A)], b: &[(Quat, Vec3A)], t: f32) -> usize {
    let poses = super::matrices::whole_steps(a.len().min(b.len()));
    let (a, b) = (&mut a[..poses], &b[..poses]);
    for (step_a, step_b) in a.chunks_mut(STEP).zip(b.chunks(STEP)) {
        let (rows, translations) =
            super::matrices::nlerp_rows(load_step(step_a), load_step(step_b), t);
        store_step(rows, translations, step_a);
    }
    poses
}

/// Blends as `lanes::nlerp_into` says; returns how many it blended (0 where the CPU lacks
/// AVX-512F and AVX2).
pub(crate) fn try_nlerp_into(
    a: &[(Quat, Vec3A)],
    b: &[(Quat, Vec3A)],
    t: f32,
    out: &mut [(Quat, Vec3A)],
) -> usize {
    if is_x86_feature_detected!("avx512f") {
        // SAFETY: the CPU was just found to support AVX-512F.
        unsafe { nlerp_into_avx512(a, b, t, out) }
    } else if is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU was just found to support AVX2.
        unsafe { nlerp_into_avx2(a, b, t, out) }
    } else {
        0
    }
}

/// [`nlerp_in_place_avx512`]'s steps with the blend stored into `out`, so that `a` need not
/// be copied there first.
#[target_feature(enable = "avx512f")]
fn nlerp_into_avx512(
    a: &[(Quat, Vec3A)],
    b: &[(Quat, Vec3A)],
    t: f32,
    out: &mut [(Quat, Vec3A)],
) -> usize {
    let poses = super::matrices::whole_steps(a.len().min(b.len()).min(out.len()));
    let steps = a[..poses].chunks(STEP).zip(b[..poses].chunks(STEP));
    for ((step_a, step_b), step_out) in steps.zip(out[..poses].chunks_mut(STEP)) {
        let (rows, translations) =
            super::matrices::nlerp_rows(load_step(step_a), load_step(step_b), t);
        store_step(rows, translations, step_out);
    }
    poses
}

/// Poses a step on AVX2.
const STEP_AVX2: usize = 8;

/// [`nlerp_in_place_avx512`] on AVX2, 8 poses a step (see [`nlerp_step_avx2`]).
#[target_feature(enable = "avx2")]
fn nlerp_in_place_avx2(a: &mut [(Quat, Vec3A)], b: &[(Quat, Vec3A)], t: f32) -> usize {
    let poses = super::matrices::whole_steps_of::<STEP_AVX2>(a.len().min(b.len()));
    let (a, b) = (&mut a[..poses], &b[..poses]);
    for (step_a, step_b) in a.chunks_mut(STEP_AVX2).zip(b.chunks(STEP_AVX2)) {
        let records = nlerp_step_avx2(step_a, step_b, t);
        store_records_avx2(records, step_a);
    }
    poses
}

/// [`nlerp_into_avx512`] on AVX2, 8 poses a step (see [`nlerp_step_avx2`]).
#[target_feature(enable = "avx2")]
fn nlerp_into_avx2(
    a: &[(Quat, Vec3A)],
    b: &[(Quat, Vec3A)],
    t: f32,
    out: &mut [(Quat, Vec3A)],
) -> usize {
    let poses = super::matrices::whole_steps_of::<STEP_AVX2>(a.len().min(b.len()).min(out.len()));
    let steps = a[..poses]
        .chunks(STEP_AVX2)
        .zip(b[..poses].chunks(STEP_AVX2));
    for ((step_a, step_b), step_out) in steps.zip(out[..poses].chunks_mut(STEP_AVX2)) {
        store_records_avx2(nlerp_step_avx2(step_a, step_b, t), step_out);
    }
    poses
}

/// The nlerp of up to 8 poses of `a` and `b` (lanes past the shorter zero), as records: each
/// frame's records paired (`k` with `k + 4`) into rotation and translation vectors, the
/// rotations transposed into rows within halves, blended by `matrices::avx2::nlerp_rows`
/// (the translations, padding lanes too, as the four-float lerp glam runs), and paired back.
#[inline]
#[target_feature(enable = "avx2")]
fn nlerp_step_avx2(a: &[(Quat, Vec3A)], b: &[(Quat, Vec3A)], t: f32) -> [__m256; STEP_AVX2] {
    let load = |step: &[(Quat, Vec3A)]| {
        let records: [__m256; STEP_AVX2] = core::array::from_fn(|l| match step.get(l) {
            // SAFETY: a pose is 8 floats (asserted above).
            Some(p) => unsafe { _mm256_loadu_ps(core::ptr::from_ref(p).cast()) },
            None => _mm256_setzero_ps(),
        });
        let quats: [__m256; 4] =
            core::array::from_fn(|k| _mm256_permute2f128_ps::<0x20>(records[k], records[k + 4]));
        let translations: [__m256; 4] =
            core::array::from_fn(|k| _mm256_permute2f128_ps::<0x31>(records[k], records[k + 4]));
        (transpose_halves(quats), translations)
    };
    let (rows, translations) = super::matrices::avx2::nlerp_rows(load(a), load(b), t);
    let quats = transpose_halves(rows);
    core::array::from_fn(|l| {
        let (q, p) = (quats[l % 4], translations[l % 4]);
        if l < 4 {
            _mm256_permute2f128_ps::<0x20>(q, p)
        } else {
            _mm256_permute2f128_ps::<0x31>(q, p)
        }
    })
}

/// Stores the first `out.len()` (at most 8) of `records` into `out`.
#[inline]
#[target_feature(enable = "avx2")]
fn store_records_avx2(records: [__m256; STEP_AVX2], out: &mut [(Quat, Vec3A)]) {
    for (slot, record) in out.iter_mut().zip(records) {
        // SAFETY: `slot` is one pose, 8 writable floats (asserted above).
        unsafe { _mm256_storeu_ps(core::ptr::from_mut(slot).cast(), record) };
    }
}

/// Lane-index vectors, as `vpermps` reads them.
#[repr(C, align(64))]
pub(super) struct Index([i32; 16]);

/// Bone order (lane `i`: bone `i` of the step) to row order (lane `4l + j`: bone `4j + l`).
pub(super) const TO_ROWS: Index = {
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
pub(super) fn index(i: &Index) -> __m512i {
    // SAFETY: `i` is 64 readable bytes.
    unsafe { _mm512_loadu_si512(i.0.as_ptr().cast()) }
}

/// One weight per bone of a step: in row order, for the rotations, and in the order of each
/// four-bone translation vector.
#[derive(Clone, Copy)]
struct Weigh {
    rows: __m512,
    quads: [__m512; 4],
    /// One positive weight for every bone.
    uniform: bool,
}

impl Weigh {
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn uniform(w: f32) -> Weigh {
        let v = _mm512_set1_ps(w);
        Weigh {
            rows: v,
            quads: [v; 4],
            uniform: true,
        }
    }

    /// From 16 weights in a block's lane order (see `pose::SoaBlock`), for rows of
    /// rotations and of translations alike.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn block(rows: __m512) -> Weigh {
        Weigh {
            rows,
            quads: [rows; 4],
            uniform: false,
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
            uniform: false,
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

/// Bones `2v` and `2v + 1` of `bones` (at most 16), each as its 8 floats; a bone past the end
/// is zero (not read). Plain loads, as a full step's: the poses loaded were often just
/// written, and a masked load may not take its data from a store still in flight.
#[inline]
#[target_feature(enable = "avx512f")]
fn load_pair(bones: &[(Quat, Vec3A)], v: usize) -> __m512 {
    let at = bones.as_ptr().wrapping_add(2 * v).cast::<f32>();
    match bones.len().saturating_sub(2 * v) {
        0 => _mm512_setzero_ps(),
        1 => {
            // SAFETY: bone `2v` is 8 readable floats of `bones`, whose records are 8 floats
            // each (asserted above).
            let bone = unsafe { _mm256_loadu_ps(at) };
            _mm512_zextps256_ps512(bone)
        }
        // SAFETY: bones `2v` and `2v + 1` are 16 readable floats of `bones`.
        _ => unsafe { _mm512_loadu_ps(at) },
    }
}

/// The 4×4 transpose of each 128-bit quarter of four vectors (its own inverse).
#[inline]
#[target_feature(enable = "avx512f")]
pub(super) fn transpose4([a, b, c, d]: [__m512; 4]) -> [__m512; 4] {
    let (t0, t1) = (_mm512_unpacklo_ps(a, b), _mm512_unpackhi_ps(a, b));
    let (t2, t3) = (_mm512_unpacklo_ps(c, d), _mm512_unpackhi_ps(c, d));
    [
        _mm512_shuffle_ps::<0x44>(t0, t2),
        _mm512_shuffle_ps::<0xEE>(t0, t2),
        _mm512_shuffle_ps::<0x44>(t1, t3),
        _mm512_shuffle_ps::<0xEE>(t1, t3),
    ]
}

/// The 4×4 transpose of four vectors' 128-bit quarters: vector `q` of the result holds
/// quarter `q` of each of the four, in order.
#[inline]
#[target_feature(enable = "avx512f")]
pub(super) fn transpose_quarters([a, b, c, d]: [__m512; 4]) -> [__m512; 4] {
    let (t0, t1) = (
        _mm512_shuffle_f32x4::<0x44>(a, b),
        _mm512_shuffle_f32x4::<0xEE>(a, b),
    );
    let (t2, t3) = (
        _mm512_shuffle_f32x4::<0x44>(c, d),
        _mm512_shuffle_f32x4::<0xEE>(c, d),
    );
    [
        _mm512_shuffle_f32x4::<0x88>(t0, t2),
        _mm512_shuffle_f32x4::<0xDD>(t0, t2),
        _mm512_shuffle_f32x4::<0x88>(t1, t3),
        _mm512_shuffle_f32x4::<0xDD>(t1, t3),
    ]
}

/// Up to 16 bones: their rotations as rows (x, y, z, w) and their translations as four
/// four-bone vectors; missing bones are zero.
#[inline]
#[target_feature(enable = "avx512f")]
pub(super) fn load_step(bones: &[(Quat, Vec3A)]) -> ([__m512; 4], [__m512; 4]) {
    let zero = _mm512_setzero_ps();
    let (mut quats, mut translations) = ([zero; 4], [zero; 4]);
    let full = bones.len() >= STEP;
    for (j, (q, t)) in quats.iter_mut().zip(&mut translations).enumerate() {
        let (a, b) = if full {
            // SAFETY: bones `4j .. 4j + 4` are 128 readable bytes of `bones`.
            unsafe {
                let at = bones.as_ptr().wrapping_add(4 * j).cast::<f32>();
                (_mm512_loadu_ps(at), _mm512_loadu_ps(at.wrapping_add(16)))
            }
        } else {
            (load_pair(bones, 2 * j), load_pair(bones, 2 * j + 1))
        };
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
    /// Every bone has had a positive weight (a uniform layer has been added).
    weighed: bool,
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
            self.weighed = w.uniform;
            return;
        }
        let s = &self.rows;
        let dot = _mm512_add_ps(
            _mm512_fmadd_ps(s[1], rows[1], _mm512_mul_ps(s[0], rows[0])),
            _mm512_fmadd_ps(s[3], rows[3], _mm512_mul_ps(s[2], rows[2])),
        );
        let signed = if self.weighed {
            // Every bone's sum is a weighted rotation already, so its dot with a rotation is
            // ±0 only in an exact tie: the dot's sign bit flips the weight, one operation.
            _mm512_castsi512_ps(_mm512_ternarylogic_epi32::<0x78>(
                _mm512_castps_si512(w.rows),
                _mm512_castps_si512(dot),
                _mm512_set1_epi32(i32::MIN),
            ))
        } else {
            // A bone no layer has weighed yet sums to zero, whose dot may be −0: `dot < 0`.
            let opposed = _mm512_cmp_ps_mask::<_CMP_LT_OQ>(dot, _mm512_setzero_ps());
            _mm512_mask_sub_ps(w.rows, opposed, _mm512_setzero_ps(), w.rows)
        };
        for (sum, q) in self.rows.iter_mut().zip(rows) {
            *sum = _mm512_fmadd_ps(q, signed, *sum);
        }
        for ((sum, t), w) in self.translations.iter_mut().zip(translations).zip(w.quads) {
            *sum = _mm512_fmadd_ps(t, w, *sum);
        }
        self.weighed |= w.uniform;
    }
}

/// The blend. Every layer's plan and weights are as `Blender::blend_lanes` makes them: a
/// `Uniform` layer's pose has at least `rest.len()` bones; `weights` holds `rest.len()`
/// weights for each `PerBone` layer `k` at `k · rest.len()`.
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
    let Totals {
        per_bone,
        total,
        rest_share,
        uniform_inverse,
    } = Totals::of(plan, threshold);
    for first in (0..bones).step_by(STEP) {
        let mut step = Step::new(first, bones, total, Layout::Records);
        for (k, (layer, plan)) in layers.iter().zip(plan).enumerate() {
            let poses = layer.pose.bones.get(first..).unwrap_or_default();
            let poses = &poses[..poses.len().min(step.count)];
            match *plan {
                Plan::Skip => {}
                Plan::Uniform(w) => step.sums.add(load_step(poses), &Weigh::uniform(w)),
                Plan::PerBone => {
                    let w = step.weights(&weights[k * bones..(k + 1) * bones]);
                    step.sums.add(load_step(poses), &w);
                }
            }
        }
        let count = step.count;
        let rest_step = || load_step(&rest[first..first + count]);
        let (rows, translations) =
            step.finish(rest_step, per_bone, threshold, rest_share, &uniform_inverse);
        store_step(rows, translations, &mut out[first..first + count]);
    }
}

/// [`blend_avx512`] of poses in `SoaPose` blocks, whose rows are loaded as they are stored;
/// the same plan and weights, `rest` as long as `out`.
#[target_feature(enable = "avx512f")]
fn blend_soa_avx512(
    rest: &SoaPose,
    layers: &[Layer<'_, SoaPose>],
    plan: &[Plan],
    weights: &[f32],
    threshold: f32,
    out: &mut [(Quat, Vec3A)],
) {
    let bones = rest.len().min(out.len());
    let Totals {
        per_bone,
        total,
        rest_share,
        uniform_inverse,
    } = Totals::of(plan, threshold);
    for (block, first) in (0..bones).step_by(STEP).enumerate() {
        let mut step = Step::new(first, bones, total, Layout::Blocks);
        for (k, (layer, plan)) in layers.iter().zip(plan).enumerate() {
            let Some(rows) = layer.pose.blocks.get(block) else {
                continue;
            };
            match *plan {
                Plan::Skip => {}
                Plan::Uniform(w) => step.sums.add(load_block(rows), &Weigh::uniform(w)),
                Plan::PerBone => {
                    let w = step.weights(&weights[k * bones..(k + 1) * bones]);
                    step.sums.add(load_block(rows), &w);
                }
            }
        }
        let rest_block = || load_block(&rest.blocks[block]);
        let (rows, [x, y, z, _]) = step.finish(
            rest_block,
            per_bone,
            threshold,
            rest_share,
            &uniform_inverse,
        );
        let translations = transpose4([x, y, z, _mm512_setzero_ps()]);
        store_step(rows, translations, &mut out[first..first + step.count]);
    }
}

/// What the plan fixes for every step of a blend.
struct Totals {
    /// Some layer is weighed per bone.
    per_bone: bool,
    /// The uniform layers' total weight: every bone's without per-bone weights; with them,
    /// where every step's total starts.
    total: f32,
    /// The rest pose's share of every bone without per-bone weights.
    rest_share: f32,
    /// The reciprocal of every bone's total weight without per-bone weights.
    uniform_inverse: Weigh,
}

impl Totals {
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn of(plan: &[Plan], threshold: f32) -> Totals {
        let total: f32 = plan
            .iter()
            .map(|p| if let Plan::Uniform(w) = *p { w } else { 0.0 })
            .sum();
        let rest_share = if total > 0.0 { threshold - total } else { 1.0 };
        Totals {
            per_bone: plan.contains(&Plan::PerBone),
            total,
            rest_share,
            uniform_inverse: Weigh::uniform(1.0 / (total + rest_share.max(0.0))),
        }
    }
}

/// A block's rotation rows, and its translation rows with a zero fourth.
#[inline]
#[target_feature(enable = "avx512f")]
fn load_block(block: &SoaBlock) -> ([__m512; 4], [__m512; 4]) {
    // SAFETY: each row is 16 readable floats.
    let row = |k: usize| unsafe { _mm512_loadu_ps(block.rows[k].as_ptr()) };
    (
        [row(0), row(1), row(2), row(3)],
        [row(4), row(5), row(6), _mm512_setzero_ps()],
    )
}

/// How a step's translations are held: as four-bone records (`(Quat, Vec3A)` poses) or as
/// rows in a block's lane order (`SoaPose`), where their weights are the rotations'.
#[derive(Clone, Copy, PartialEq)]
enum Layout {
    Records,
    Blocks,
}

/// One step of the blend: its bones and running sums.
struct Step {
    /// Its first bone.
    first: usize,
    /// How many bones it blends (0 to 16).
    count: usize,
    layout: Layout,
    sums: Sums,
    /// Per bone, the total weight so far (the uniform layers' from the start): in bone
    /// order for records, in the block's lane order for blocks.
    total_weight: __m512,
}

impl Step {
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn new(first: usize, bones: usize, uniform_total: f32, layout: Layout) -> Step {
        let zero = _mm512_setzero_ps();
        Step {
            first,
            count: bones.saturating_sub(first).min(STEP),
            layout,
            sums: Sums {
                rows: [zero; 4],
                translations: [zero; 4],
                started: false,
                weighed: false,
            },
            total_weight: _mm512_set1_ps(uniform_total),
        }
    }

    /// The step's weights of a layer weighed per bone, from `row` (one per bone of the
    /// skeleton), added to the step's totals.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn weights(&mut self, row: &[f32]) -> Weigh {
        let w = load_floats(row.get(self.first..).unwrap_or_default(), self.count);
        let w = match self.layout {
            Layout::Records => w,
            Layout::Blocks => _mm512_permutexvar_ps(index(&TO_ROWS), w),
        };
        self.total_weight = _mm512_add_ps(self.total_weight, w);
        self.weigh(w)
    }

    /// `w`, in the order of `total_weight`, as the sums read it.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn weigh(&self, w: __m512) -> Weigh {
        match self.layout {
            Layout::Records => Weigh::per_bone(w),
            Layout::Blocks => Weigh::block(w),
        }
    }

    /// The rest pose's share added (`rest_share` of it everywhere, or per bone where the
    /// layers are weighed per bone), then the rotations normalised and the translations
    /// divided by their total weights.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn finish(
        &mut self,
        rest: impl FnOnce() -> ([__m512; 4], [__m512; 4]),
        per_bone: bool,
        threshold: f32,
        rest_share: f32,
        uniform_inverse: &Weigh,
    ) -> ([__m512; 4], [__m512; 4]) {
        let (zero, one) = (_mm512_setzero_ps(), _mm512_set1_ps(1.0));
        let inverse = if per_bone {
            // Per bone: the rest pose where the total is below the threshold (all of it
            // where there is no weight), then the total's reciprocal.
            let total = self.total_weight;
            let weighed = _mm512_cmp_ps_mask::<_CMP_GT_OQ>(total, zero);
            let share = _mm512_mask_blend_ps(
                weighed,
                one,
                _mm512_sub_ps(_mm512_set1_ps(threshold), total),
            );
            let valid = match self.layout {
                Layout::Records => lanes(self.count),
                Layout::Blocks => row_lanes(self.count),
            };
            let filled = _mm512_cmp_ps_mask::<_CMP_GT_OQ>(share, zero) & valid;
            let mut total = total;
            if filled != 0 {
                let share = _mm512_maskz_mov_ps(filled, share);
                self.sums.add(rest(), &self.weigh(share));
                total = _mm512_add_ps(total, share);
            }
            self.weigh(_mm512_div_ps(one, total))
        } else {
            if rest_share > 0.0 {
                self.sums.add(rest(), &Weigh::uniform(rest_share));
            }
            *uniform_inverse
        };
        let rows = normalized(self.sums.rows, self.count);
        let mut translations = self.sums.translations;
        for (t, w) in translations.iter_mut().zip(inverse.quads) {
            *t = _mm512_mul_ps(*t, w);
        }
        (rows, translations)
    }
}

/// The lanes of a row (lane `4l + j`: bone `4j + l`) that hold bones `0 .. count`.
#[inline]
pub(super) fn row_lanes(count: usize) -> __mmask16 {
    /// Per count 0 to 16, its lanes.
    const MASKS: [u16; STEP + 1] = {
        let mut masks = [0u16; STEP + 1];
        let mut count = 1;
        while count <= STEP {
            let bone = count - 1;
            masks[count] = masks[bone] | 1 << (4 * (bone % 4) + bone / 4);
            count += 1;
        }
        masks
    };
    MASKS[count.min(STEP)]
}

/// The rotation rows normalised as glam's `normalize_or(identity)` does (up to the
/// reciprocal square root's rounding), for the step's first `count` bones.
#[inline]
#[target_feature(enable = "avx512f")]
fn normalized(rows: [__m512; 4], count: usize) -> [__m512; 4] {
    let length2 = _mm512_add_ps(
        _mm512_fmadd_ps(rows[1], rows[1], _mm512_mul_ps(rows[0], rows[0])),
        _mm512_fmadd_ps(rows[3], rows[3], _mm512_mul_ps(rows[2], rows[2])),
    );
    let estimate = _mm512_rsqrt14_ps(length2);
    // One Newton step: r · (3/2 − (l²/2) · r²).
    let half = _mm512_mul_ps(length2, _mm512_set1_ps(0.5));
    let mut inverse = _mm512_mul_ps(
        estimate,
        _mm512_fnmadd_ps(_mm512_mul_ps(half, estimate), estimate, _mm512_set1_ps(1.5)),
    );
    // Lanes (in row order) whose squared length is zero, subnormal, infinite or NaN: exact.
    let valid = row_lanes(count);
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
    if out.len() >= STEP {
        for (j, (q, t)) in quats.into_iter().zip(translations).enumerate() {
            // SAFETY: bones `4j .. 4j + 4` are 128 writable bytes of `out`, whose records
            // are 8 floats each (asserted above).
            unsafe {
                let at = out.as_mut_ptr().wrapping_add(4 * j).cast::<f32>();
                _mm512_storeu_ps(at, _mm512_permutex2var_ps(q, front, t));
                _mm512_storeu_ps(at.wrapping_add(16), _mm512_permutex2var_ps(q, back, t));
            }
        }
        return;
    }
    for (j, (q, t)) in quats.into_iter().zip(translations).enumerate() {
        for (v, i) in [(2 * j, front), (2 * j + 1, back)] {
            let pair = _mm512_permutex2var_ps(q, i, t);
            let mask: __mmask16 = match out.len().saturating_sub(2 * v) {
                0 => continue,
                1 => 0x00FF,
                _ => {
                    // SAFETY: bones `2v` and `2v + 1` are 64 writable bytes of `out`.
                    unsafe { _mm512_storeu_ps(out.as_mut_ptr().wrapping_add(2 * v).cast(), pair) };
                    continue;
                }
            };
            // SAFETY: the mask enables the 8 floats of bone `2v` and, where `out` has it,
            // of bone `2v + 1`: bytes within `out`, whose records are 8 floats each
            // (asserted above); the unused fourth lane of a translation is written 0.
            unsafe {
                _mm512_mask_storeu_ps(out.as_mut_ptr().wrapping_add(2 * v).cast(), mask, pair);
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use glam::{Quat, Vec3, Vec3A};

    use super::{nlerp_in_place_avx2, nlerp_into_avx2};
    use crate::pose::local::nlerp_pose;
    use crate::pose::x86::matrices::whole_steps_of;

    /// `n` unit poses (rotations about axes from a sequence, some across the hemisphere of
    /// the other frame's).
    fn frame(n: usize, seed: u32) -> Vec<(Quat, Vec3A)> {
        let mut state = seed.wrapping_mul(2_654_435_761).wrapping_add(7);
        let mut next = move || {
            state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (state >> 8) as f32 / (1u32 << 24) as f32 * 2.0 - 1.0
        };
        (0..n)
            .map(|_| {
                let axis = Vec3::new(next(), next(), next()).normalize_or(Vec3::Z);
                let q = Quat::from_axis_angle(axis, 6.0 * next());
                (q, Vec3A::new(next(), next(), next()) * 30.0)
            })
            .collect()
    }

    fn bits(p: &(Quat, Vec3A)) -> ([u32; 4], [u32; 3]) {
        (
            p.0.to_array().map(f32::to_bits),
            p.1.to_array().map(f32::to_bits),
        )
    }

    /// The AVX2 blends of two frames, in place and into a third slice, are the scalar nlerp's,
    /// bit for bit, at every count around their steps of 8, leaving a tail of fewer than 4 (and
    /// everything past the shortest slice) untouched.
    #[test]
    fn the_avx2_blends_are_the_scalar_nlerp_at_every_count() {
        if !is_x86_feature_detected!("avx2") {
            return;
        }
        for n in 0..=37 {
            for t in [0.0, 0.35, 1.0] {
                let (a, b) = (frame(n, n as u32), frame(n + 2, 100 + n as u32));
                let want: Vec<_> = a
                    .iter()
                    .zip(&b)
                    .map(|(&x, &y)| nlerp_pose(x, y, t))
                    .collect();
                let done = whole_steps_of::<8>(n);
                let mut in_place = a.clone();
                // SAFETY: the CPU was just found to support AVX2.
                assert_eq!(unsafe { nlerp_in_place_avx2(&mut in_place, &b, t) }, done);
                let mut into = vec![(Quat::IDENTITY, Vec3A::ZERO); n];
                // SAFETY: as above.
                assert_eq!(unsafe { nlerp_into_avx2(&a, &b, t, &mut into) }, done);
                for k in 0..n {
                    let (p, i) = (bits(&in_place[k]), bits(&into[k]));
                    if k < done {
                        assert_eq!(p, bits(&want[k]), "{n} poses, t {t}, pose {k}, in place");
                        assert_eq!(i, bits(&want[k]), "{n} poses, t {t}, pose {k}, into");
                    } else {
                        assert_eq!(p, bits(&a[k]), "{n} poses, pose {k} left in place");
                        assert_eq!(i, bits(&(Quat::IDENTITY, Vec3A::ZERO)));
                    }
                }
            }
        }
    }
}
