//! `Palette::build`'s two passes on x86-64, each glam's arithmetic in glam's order, so the
//! palette is the scalar one bit for bit (padding lanes included).
//!
//! - Local matrices, 16 bones a step with AVX-512F: the poses loaded as the blend loads them
//!   (rotations as rows, translations as four-bone vectors, `blend::load_step`), glam's
//!   `Mat3A::from_quat` and the columns' scaling run lane-wise, then the columns transposed
//!   back into four-bone vectors and their 128-bit quarters regrouped into one 64-byte
//!   `Affine3A` per bone. Without AVX-512, 8 bones a step with AVX2: the poses' records
//!   transposed into rows, the same arithmetic, and each bone's 16 floats transposed back
//!   as two halves.
//! - Concatenation, one bone at a time with AVX: glam's `Affine3A` product (each column the
//!   parent's axes times the child's entries, summed in glam's order), two of the child's
//!   columns a 256-bit register, each of the parent's axes loaded into both halves, and the
//!   last product kept in registers when the next bone is its child. A bone costs half the
//!   multiplications and shuffles of a column a register (`valgrind --tool=callgrind`:
//!   instructions of `Palette::build` in `benches/README.md`).

use core::arch::x86_64::{
    __m128, __m256, __m512, __mmask16, _mm_loadu_ps, _mm_set1_ps, _mm256_add_ps, _mm256_blend_ps,
    _mm256_broadcast_ps, _mm256_loadu_ps, _mm256_mul_ps, _mm256_permute_ps, _mm256_permute2f128_ps,
    _mm256_set_m128, _mm256_set1_ps, _mm256_setzero_ps, _mm256_storeu_ps, _mm256_sub_ps,
    _mm512_add_ps, _mm512_mask_loadu_ps, _mm512_mul_ps, _mm512_permute_ps, _mm512_set1_ps,
    _mm512_storeu_ps, _mm512_sub_ps,
};

use glam::{Affine3A, Quat, Vec3A};

use super::blend::{load_step, transpose_quarters, transpose4};
use super::ymm::{transpose_halves, transpose8};

// The passes read and write an `Affine3A` as 16 floats: the three axes, then the translation,
// each a `Vec3A` of 4 (glam's SIMD layout, asserted in `blend`).
const _: () = {
    assert!(size_of::<Affine3A>() == 64);
    assert!(core::mem::offset_of!(Affine3A, matrix3) == 0);
    assert!(core::mem::offset_of!(Affine3A, translation) == 48);
};

/// Bones a step.
const STEP: usize = 16;

/// Writes `Affine3A::from_scale_rotation_translation(scale, rotation, translation)` of the
/// leading `poses` into `out` (scale 1 for a bone past `scales`, which glam's product leaves
/// exact), as `lanes::local_matrices` says; returns how many it wrote (0 where the CPU lacks
/// AVX-512F and AVX2).
pub(crate) fn try_local_matrices(
    poses: &[(Quat, Vec3A)],
    scales: &[Vec3A],
    out: &mut [Affine3A],
) -> usize {
    if is_x86_feature_detected!("avx512f") {
        // SAFETY: the CPU was just found to support AVX-512F.
        unsafe { local_matrices_avx512(poses, scales, out) }
    } else if is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU was just found to support AVX2.
        unsafe { local_matrices_avx2(poses, scales, out) }
    } else {
        0
    }
}

/// `Mat3A::from_quat` of quaternion rows `x y z w`, lane-wise at any width, in glam's order:
/// the three axes, each as its rows `x y z`. `$add`, `$sub`, `$mul` are the width's lane-wise
/// operations and `$one` its vector of ones. Written once for the AVX-512 and AVX2 local
/// matrices, which expand it in their own `target_feature` functions.
macro_rules! from_quat_rows {
    ($q:expr, $add:expr, $sub:expr, $mul:expr, $one:expr) => {{
        let (add, sub, mul, one) = ($add, $sub, $mul, $one);
        let [x, y, z, w] = $q;
        let (x2, y2, z2) = (add(x, x), add(y, y), add(z, z));
        let (xx, xy, xz) = (mul(x, x2), mul(x, y2), mul(x, z2));
        let (yy, yz, zz) = (mul(y, y2), mul(y, z2), mul(z, z2));
        let (wx, wy, wz) = (mul(w, x2), mul(w, y2), mul(w, z2));
        [
            [sub(one, add(yy, zz)), add(xy, wz), sub(xz, wy)],
            [sub(xy, wz), sub(one, add(xx, zz)), add(yz, wx)],
            [add(xz, wy), sub(yz, wx), sub(one, add(xx, yy))],
        ]
    }};
}

/// The scales of bones `first .. first + 16` as four four-bone vectors (quarter `l` of vector
/// `j`: bone `first + 4j + l`), 1 for a bone past `scales` (not read).
#[inline]
#[target_feature(enable = "avx512f")]
fn load_scales(scales: &[Vec3A], first: usize) -> [__m512; 4] {
    let one = _mm512_set1_ps(1.0);
    core::array::from_fn(|j| {
        let have = scales.len().saturating_sub(first + 4 * j).min(4);
        if have == 0 {
            return one;
        }
        let mask: __mmask16 = if have == 4 {
            u16::MAX
        } else {
            (1 << (4 * have)) - 1
        };
        // SAFETY: the mask enables the 4 floats of each of bones `first + 4j ..` that
        // `scales` holds (`have` of them, each a `Vec3A` of 4 floats): bytes within `scales`.
        unsafe {
            _mm512_mask_loadu_ps(
                one,
                mask,
                scales.as_ptr().wrapping_add(first + 4 * j).cast(),
            )
        }
    })
}

/// # Safety
///
/// The CPU must support AVX-512F.
#[target_feature(enable = "avx512f")]
unsafe fn local_matrices_avx512(
    poses: &[(Quat, Vec3A)],
    scales: &[Vec3A],
    out: &mut [Affine3A],
) -> usize {
    let count = super::matrices::whole_steps(poses.len().min(out.len()));
    let (add, sub, mul) = (_mm512_add_ps, _mm512_sub_ps, _mm512_mul_ps);
    let one = _mm512_set1_ps(1.0);
    for (k, (step, dst)) in poses[..count]
        .chunks(STEP)
        .zip(out[..count].chunks_mut(STEP))
        .enumerate()
    {
        let ([x, y, z, w], translations) = load_step(step);
        let mut axes = from_quat_rows!([x, y, z, w], add, sub, mul, one);
        if !scales.is_empty() {
            // Axis `a` times the scale's component `a`: rows in the rotations' lane order.
            let s = transpose4(load_scales(scales, STEP * k));
            for (axis, s) in axes.iter_mut().zip(s) {
                for c in axis.iter_mut() {
                    *c = mul(*c, s);
                }
            }
        }
        // Each axis as four-bone vectors, its padding lane its z (as `Vec3A::new` fills it).
        let [ax, ay, az] = axes.map(|[a, b, c]| transpose4([a, b, c, c]));
        for (j, t) in translations.into_iter().enumerate() {
            let t = _mm512_permute_ps::<0b10_10_01_00>(t);
            let bones = transpose_quarters([ax[j], ay[j], az[j], t]);
            for (l, v) in bones.into_iter().enumerate() {
                if let Some(slot) = dst.get_mut(4 * j + l) {
                    // SAFETY: `slot` is one `Affine3A`, 16 writable floats (asserted above).
                    unsafe { _mm512_storeu_ps(core::ptr::from_mut(slot).cast(), v) };
                }
            }
        }
    }
    count
}

/// [`local_matrices_avx512`] on AVX2, 8 bones a step: the poses' records transposed into
/// rows, the same arithmetic in the same order, and each bone's matrix transposed back as
/// two 8-float halves.
///
/// # Safety
///
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
unsafe fn local_matrices_avx2(
    poses: &[(Quat, Vec3A)],
    scales: &[Vec3A],
    out: &mut [Affine3A],
) -> usize {
    const LANES: usize = 8;
    let count = super::matrices::whole_steps_of::<LANES>(poses.len().min(out.len()));
    let (add, sub, mul) = (_mm256_add_ps, _mm256_sub_ps, _mm256_mul_ps);
    let one = _mm256_set1_ps(1.0);
    for (k, (step, dst)) in poses[..count]
        .chunks(LANES)
        .zip(out[..count].chunks_mut(LANES))
        .enumerate()
    {
        let records: [__m256; LANES] = core::array::from_fn(|l| match step.get(l) {
            // SAFETY: a pose is 8 floats (asserted in `blend`).
            Some(p) => unsafe { _mm256_loadu_ps(core::ptr::from_ref(p).cast()) },
            None => _mm256_setzero_ps(),
        });
        let [x, y, z, w, tx, ty, tz, _] = transpose8(records);
        let mut axes = from_quat_rows!([x, y, z, w], add, sub, mul, one);
        if !scales.is_empty() {
            // Bones `j` and `j + 4` of the step paired, then rows `x y z` (1 past `scales`).
            let scale = |bone: usize| match scales.get(LANES * k + bone) {
                // SAFETY: a `Vec3A` is 4 floats.
                Some(s) => unsafe { _mm_loadu_ps(core::ptr::from_ref(s).cast()) },
                None => _mm_set1_ps(1.0),
            };
            let pairs = core::array::from_fn(|j| _mm256_set_m128(scale(j + 4), scale(j)));
            let s = transpose_halves(pairs);
            for (axis, s) in axes.iter_mut().zip(s) {
                for c in axis.iter_mut() {
                    *c = mul(*c, s);
                }
            }
        }
        // Each axis's padding lane its z (as `Vec3A::new` fills it), the translation's too.
        let [[ax, ay, az], [bx, by, bz], [cx, cy, cz]] = axes;
        let front = transpose8([ax, ay, az, az, bx, by, bz, bz]);
        let back = transpose8([cx, cy, cz, cz, tx, ty, tz, tz]);
        for (slot, (f, b)) in dst.iter_mut().zip(front.into_iter().zip(back)) {
            let at = core::ptr::from_mut(slot).cast::<f32>();
            // SAFETY: `slot` is one `Affine3A`, 16 writable floats (asserted above).
            unsafe {
                _mm256_storeu_ps(at, f);
                _mm256_storeu_ps(at.wrapping_add(8), b);
            }
        }
    }
    count
}

/// Concatenates as `lanes::concatenate` says; `false`, with `world` untouched, where the CPU
/// lacks AVX.
pub(crate) fn try_concatenate(
    world: &mut [Affine3A],
    links: impl Iterator<Item = (usize, usize)>,
) -> bool {
    if !is_x86_feature_detected!("avx") {
        return false;
    }
    // SAFETY: the CPU was just found to support AVX.
    unsafe { concatenate_avx(world, links) };
    true
}

/// # Safety
///
/// The CPU must support AVX.
#[target_feature(enable = "avx")]
unsafe fn concatenate_avx(world: &mut [Affine3A], links: impl Iterator<Item = (usize, usize)>) {
    let bones = world.len();
    let base = world.as_mut_ptr().cast::<f32>();
    // The last product, as columns 0–1 and 2–3, and its bone: a chain's next bone takes its
    // parent from registers rather than through a store and a reload.
    let mut last: Option<(usize, [__m256; 2])> = None;
    for (child, parent) in links {
        if child >= bones || parent >= bones {
            continue;
        }
        let (at, from) = (
            base.wrapping_add(16 * child),
            base.wrapping_add(16 * parent),
        );
        // `last` holds what was last stored at its bone; a bone its own parent is squared, as
        // the scalar product does, since every read comes before the child's writes.
        // SAFETY: `from` and `at` are the parent's and the child's `Affine3A` of `world` (both
        // indices in range, 64 bytes each, 16-byte aligned as `Affine3A` is, so each column
        // is an aligned `__m128`), reached through one pointer to `world`.
        unsafe {
            // Each of the parent's columns in both halves of a register.
            let axes: [__m256; 4] = match last {
                Some((bone, [low, high])) if bone == parent => [
                    _mm256_permute2f128_ps::<0x00>(low, low),
                    _mm256_permute2f128_ps::<0x11>(low, low),
                    _mm256_permute2f128_ps::<0x00>(high, high),
                    _mm256_permute2f128_ps::<0x11>(high, high),
                ],
                _ => core::array::from_fn(|c| {
                    _mm256_broadcast_ps(&*from.wrapping_add(4 * c).cast::<__m128>())
                }),
            };
            // Two columns of the product a register: `Mat3A::mul_vec3a` of the child's
            // columns, each half's entries splatted within the half.
            let [low, high] = [at, at.wrapping_add(8)].map(|half| {
                let local = _mm256_loadu_ps(half);
                let mut v = _mm256_mul_ps(axes[0], _mm256_permute_ps::<0x00>(local));
                v = _mm256_add_ps(v, _mm256_mul_ps(axes[1], _mm256_permute_ps::<0x55>(local)));
                _mm256_add_ps(v, _mm256_mul_ps(axes[2], _mm256_permute_ps::<0xAA>(local)))
            });
            // The translation column (the upper half) adds the parent's translation; the
            // third axis keeps its sum, as `x + 0` would turn −0 into +0.
            let high = _mm256_blend_ps::<0xF0>(high, _mm256_add_ps(high, axes[3]));
            _mm256_storeu_ps(at, low);
            _mm256_storeu_ps(at.wrapping_add(8), high);
            last = Some((child, [low, high]));
        }
    }
}

#[cfg(test)]
mod tests {
    use glam::{Affine3A, Quat, Vec3, Vec3A};

    use super::{concatenate_avx, local_matrices_avx2};
    use crate::pose::x86::matrices::whole_steps_of;

    /// `n` poses (rotations about axes from a sequence, one not of unit length) and scales.
    fn poses(n: usize) -> (Vec<(Quat, Vec3A)>, Vec<Vec3A>) {
        let mut state = 0x9E37_79B9u32.wrapping_add(n as u32);
        let mut next = move || {
            state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (state >> 8) as f32 / (1u32 << 24) as f32 * 2.0 - 1.0
        };
        let mut poses = Vec::new();
        let mut scales = Vec::new();
        for k in 0..n {
            let axis = Vec3::new(next(), next(), next()).normalize_or(Vec3::Y);
            let mut q = Quat::from_axis_angle(axis, 3.0 * next());
            if k == 5 {
                q *= 1.25;
            }
            poses.push((q, Vec3A::new(next(), next(), next()) * 40.0));
            scales.push(Vec3A::new(1.0 + next(), 1.0 + next(), 1.0 + next()));
        }
        (poses, scales)
    }

    /// The AVX2 local matrices are glam's `Affine3A::from_scale_rotation_translation`, bit for
    /// bit, at every count around its steps of 8, with no scales, every bone's, or the first
    /// few bones' (1 after them); a tail of fewer than 4 is left to the caller.
    #[test]
    fn the_avx2_local_matrices_are_glams_at_every_count() {
        if !is_x86_feature_detected!("avx2") {
            return;
        }
        for n in 0..=37 {
            let (poses, all) = poses(n);
            for scaled in [0, n, n / 2 + 1] {
                let scales = &all[..scaled.min(n)];
                let mut out = vec![Affine3A::ZERO; n];
                // SAFETY: the CPU was just found to support AVX2.
                let done = unsafe { local_matrices_avx2(&poses, scales, &mut out) };
                assert_eq!(done, whole_steps_of::<8>(n), "{n} bones");
                for (k, (got, &(q, t))) in out.iter().zip(&poses).enumerate().take(done) {
                    let s = scales.get(k).map_or(Vec3::ONE, |&s| s.into());
                    let want = Affine3A::from_scale_rotation_translation(s, q, t.into());
                    assert_eq!(
                        got.to_cols_array().map(f32::to_bits),
                        want.to_cols_array().map(f32::to_bits),
                        "{n} bones, {scaled} scales, bone {k}"
                    );
                }
                assert!(out[done..].iter().all(|m| *m == Affine3A::ZERO));
            }
        }
    }

    /// The AVX concatenation is glam's product, bit for bit, link by link: a chain (the
    /// parent the last product, taken from registers), a parent stored earlier, a bone its
    /// own parent (squared, from memory and from registers), and links out of range (skipped).
    #[test]
    fn the_avx_products_are_glams_through_chains_squares_and_strays() {
        if !is_x86_feature_detected!("avx") {
            return;
        }
        let (poses, scales) = poses(12);
        let locals: Vec<Affine3A> = poses
            .iter()
            .zip(&scales)
            .map(|(&(q, t), &s)| Affine3A::from_scale_rotation_translation(s.into(), q, t.into()))
            .collect();
        let links = [
            (1, 0),
            (2, 1),
            (3, 1),
            (4, 4),
            (5, 99),
            (99, 0),
            (6, 3),
            (7, 6),
            (7, 7),
            (8, 2),
            (11, 8),
            (10, 9),
        ];
        let mut want = locals.clone();
        for &(j, p) in &links {
            if j < want.len() && p < want.len() {
                want[j] = want[p] * want[j];
            }
        }
        let mut got = locals;
        // SAFETY: the CPU was just found to support AVX.
        unsafe { concatenate_avx(&mut got, links.into_iter()) };
        for (k, (got, want)) in got.iter().zip(&want).enumerate() {
            assert_eq!(
                got.to_cols_array().map(f32::to_bits),
                want.to_cols_array().map(f32::to_bits),
                "bone {k}"
            );
        }
    }
}
