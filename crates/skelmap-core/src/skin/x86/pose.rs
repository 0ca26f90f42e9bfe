//! DPM bone poses (3×4 big-endian row-major matrices) to rotation quaternions and
//! translations, 16 bones at a time with AVX-512F.
//!
//! Each step reads 16 poses (768 bytes) into twelve rows of 16 native floats (one row per
//! matrix entry) and runs the scalar conversion's arithmetic lane-wise: the four textbook
//! formulas, the one with the largest divisor chosen by mask, then normalised. A last step of
//! at least [`MIN_LANES`] poses runs with its unused lanes zero and discarded; fewer are left
//! to the caller, for whom one scalar conversion each is cheaper than a step.

use core::arch::x86_64::{
    __m512, _CMP_GE_OQ, _mm512_add_ps, _mm512_cmp_ps_mask, _mm512_div_ps, _mm512_loadu_ps,
    _mm512_mask_blend_ps, _mm512_mul_ps, _mm512_set1_ps, _mm512_sqrt_ps, _mm512_storeu_ps,
    _mm512_sub_ps,
};

use glam::{Quat, Vec3A};

/// Bytes of one pose.
const POSE: usize = 48;

/// The fewest poses a step converts: below it, a step costs more than scalar conversions.
const MIN_LANES: usize = 4;

/// Appends the poses of `bytes` (big-endian 3×4 matrices) to `out` as unit quaternions and
/// translations, but for a last few (fewer than [`MIN_LANES`] past the last full step);
/// returns how many it converted (0 when the CPU lacks AVX-512F).
pub(crate) fn try_be_poses(bytes: &[u8], out: &mut Vec<(Quat, Vec3A)>) -> usize {
    if is_x86_feature_detected!("avx512f") {
        // SAFETY: the CPU was just found to support AVX-512F.
        unsafe { be_poses_avx512(bytes, out) }
    } else {
        0
    }
}

/// # Safety
///
/// The CPU must support AVX-512F.
#[target_feature(enable = "avx512f")]
unsafe fn be_poses_avx512(bytes: &[u8], out: &mut Vec<(Quat, Vec3A)>) -> usize {
    let poses = bytes.len() / POSE;
    let poses = if poses % 16 < MIN_LANES {
        poses - poses % 16
    } else {
        poses
    };
    out.reserve(poses);
    let one = _mm512_set1_ps(1.0);
    let mut rows = [[0.0f32; 16]; 7];
    for step in bytes
        .get(..poses * POSE)
        .unwrap_or_default()
        .chunks(16 * POSE)
    {
        let lanes = step.len() / POSE;
        // Entry `e` of every lane's pose, byte-swapped, as one row.
        let mut soa = [[0.0f32; 16]; 12];
        for (l, pose) in step.chunks_exact(POSE).enumerate() {
            for (e, word) in pose.chunks_exact(4).enumerate() {
                if let (Some(row), Ok(word)) = (soa.get_mut(e), <[u8; 4]>::try_from(word)) {
                    row[l] = f32::from_be_bytes(word);
                }
            }
        }
        // SAFETY: each row is 16 floats, the load's size.
        let m: [__m512; 12] = core::array::from_fn(|e| unsafe { _mm512_loadu_ps(soa[e].as_ptr()) });
        let [r00, r01, r02, tx, r10, r11, r12, ty, r20, r21, r22, tz] = m;
        let (add, sub) = (_mm512_add_ps, _mm512_sub_ps);
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
        // The formula with the largest divisor, as the scalar `pick` chooses it (ties to the
        // first).
        let pick = |a: ([__m512; 4], __m512), b: ([__m512; 4], __m512)| {
            let first = _mm512_cmp_ps_mask::<_CMP_GE_OQ>(a.1, b.1);
            (
                core::array::from_fn(|c| _mm512_mask_blend_ps(first, b.0[c], a.0[c])),
                _mm512_mask_blend_ps(first, b.1, a.1),
            )
        };
        let (v, _) = pick(
            pick((by[0], t[0]), (by[1], t[1])),
            pick((by[2], t[2]), (by[3], t[3])),
        );
        let [x, y, z, w] = v;
        let dot = add(
            add(_mm512_mul_ps(x, x), _mm512_mul_ps(y, y)),
            add(_mm512_mul_ps(z, z), _mm512_mul_ps(w, w)),
        );
        let inverse = _mm512_div_ps(one, _mm512_sqrt_ps(dot));
        let values = [
            _mm512_mul_ps(x, inverse),
            _mm512_mul_ps(y, inverse),
            _mm512_mul_ps(z, inverse),
            _mm512_mul_ps(w, inverse),
            tx,
            ty,
            tz,
        ];
        for (row, v) in rows.iter_mut().zip(values) {
            // SAFETY: `row` is 16 writable floats, the store's size.
            unsafe { _mm512_storeu_ps(row.as_mut_ptr(), v) };
        }
        out.extend((0..lanes).map(|l| {
            (
                Quat::from_xyzw(rows[0][l], rows[1][l], rows[2][l], rows[3][l]),
                Vec3A::new(rows[4][l], rows[5][l], rows[6][l]),
            )
        }));
    }
    poses
}
