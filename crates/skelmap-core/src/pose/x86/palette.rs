//! `Palette::build`'s two passes on x86-64, each glam's arithmetic in glam's order, so the
//! palette is the scalar one bit for bit (padding lanes included).
//!
//! - Local matrices, 16 bones a step with AVX-512F: the poses loaded as the blend loads them
//!   (rotations as rows, translations as four-bone vectors, `blend::load_step`), glam's
//!   `Mat3A::from_quat` and the columns' scaling run lane-wise, then the columns transposed
//!   back into four-bone vectors and their 128-bit quarters regrouped into one 64-byte
//!   `Affine3A` per bone.
//! - Concatenation, one bone at a time with AVX: glam's `Affine3A` product (each column the
//!   parent's axes times the child's entries, summed in glam's order), each of the child's
//!   columns loaded once and its entries splatted with VEX shuffles, and the last product
//!   kept in registers when the next bone is its child. The scalar loop spent its time on
//!   SSE2's destructive shuffles and their register copies.

use core::arch::x86_64::{
    __m128, __m512, __mmask16, _mm_add_ps, _mm_loadu_ps, _mm_mul_ps, _mm_permute_ps, _mm_storeu_ps,
    _mm512_add_ps, _mm512_mask_loadu_ps, _mm512_mul_ps, _mm512_permute_ps, _mm512_set1_ps,
    _mm512_storeu_ps, _mm512_sub_ps,
};

use glam::{Affine3A, Quat, Vec3A};

use super::blend::{load_step, transpose_quarters, transpose4};

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
/// AVX-512F).
pub(crate) fn try_local_matrices(
    poses: &[(Quat, Vec3A)],
    scales: &[Vec3A],
    out: &mut [Affine3A],
) -> usize {
    if !is_x86_feature_detected!("avx512f") {
        return 0;
    }
    // SAFETY: the CPU was just found to support AVX-512F.
    unsafe { local_matrices_avx512(poses, scales, out) }
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
        // `Mat3A::from_quat`, lane-wise.
        let (x2, y2, z2) = (add(x, x), add(y, y), add(z, z));
        let (xx, xy, xz) = (mul(x, x2), mul(x, y2), mul(x, z2));
        let (yy, yz, zz) = (mul(y, y2), mul(y, z2), mul(z, z2));
        let (wx, wy, wz) = (mul(w, x2), mul(w, y2), mul(w, z2));
        let mut axes = [
            [sub(one, add(yy, zz)), add(xy, wz), sub(xz, wy)],
            [sub(xy, wz), sub(one, add(xx, zz)), add(yz, wx)],
            [add(xz, wy), sub(yz, wx), sub(one, add(xx, yy))],
        ];
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
    // The last product and its bone: a chain's next bone takes its parent from registers
    // rather than through a store and a reload.
    let mut last: Option<(usize, [__m128; 4])> = None;
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
        // indices in range, 64 bytes each), reached through one pointer to `world`.
        unsafe {
            let axes: [__m128; 4] = match last {
                Some((bone, columns)) if bone == parent => columns,
                _ => core::array::from_fn(|c| _mm_loadu_ps(from.wrapping_add(4 * c))),
            };
            // Column `c` of the product: `Mat3A::mul_vec3a` of the child's column `c`, plus
            // the parent's translation for the translation column.
            let columns: [__m128; 4] = core::array::from_fn(|c| {
                let local = _mm_loadu_ps(at.wrapping_add(4 * c));
                let mut v = _mm_mul_ps(axes[0], _mm_permute_ps::<0x00>(local));
                v = _mm_add_ps(v, _mm_mul_ps(axes[1], _mm_permute_ps::<0x55>(local)));
                v = _mm_add_ps(v, _mm_mul_ps(axes[2], _mm_permute_ps::<0xAA>(local)));
                if c == 3 { _mm_add_ps(v, axes[3]) } else { v }
            });
            for (c, v) in columns.into_iter().enumerate() {
                _mm_storeu_ps(at.wrapping_add(4 * c), v);
            }
            last = Some((child, columns));
        }
    }
}
