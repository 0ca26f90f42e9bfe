//! Whether a stored 3×3 rotation is one: the test the DPM validation and the DPM → SKM
//! conversion share, so that a model warned about at open is the model the conversion warns
//! about; and the quaternion and translation such a pose holds.

use glam::{BVec4A, Quat, Vec3A, Vec4};

/// How far `R·Rᵀ` may stray from the identity (per element) before a rotation is reported as
/// not orthonormal.
pub const ORTHONORMAL_TOLERANCE: f32 = 1e-3;

/// The rotation (as a unit quaternion; a non-orthonormal rotation, such as old dpmodel's
/// baked scale, loses its scale here) and translation of a 3×4 row-major pose (DPM's).
///
/// Of the four textbook formulas (one per quaternion component it divides by), the one whose
/// divisor `tᵢ` is largest is selected without branching: the `tᵢ` sum to 4, so the chosen one
/// is at least 1 and the result is accurate for every rotation. Each formula's vector is the
/// quaternion times `2√tᵢ`, so normalising it finishes the conversion: one square root and
/// one division, and no branch to mispredict.
#[inline]
pub(crate) fn pose_of_matrix(m: [[f32; 4]; 3]) -> (Quat, Vec3A) {
    let [
        [r00, r01, r02, tx],
        [r10, r11, r12, ty],
        [r20, r21, r22, tz],
    ] = m;
    let t = Vec4::new(
        1.0 + r00 - r11 - r22,
        1.0 - r00 + r11 - r22,
        1.0 - r00 - r11 + r22,
        1.0 + r00 + r11 + r22,
    );
    let (xy, yz, zx) = (r10 + r01, r21 + r12, r02 + r20);
    let (sx, sy, sz) = (r21 - r12, r02 - r20, r10 - r01);
    let by_x = Vec4::new(t.x, xy, zx, sx);
    let by_y = Vec4::new(xy, t.y, yz, sy);
    let by_z = Vec4::new(zx, yz, t.z, sz);
    let by_w = Vec4::new(sx, sy, sz, t.w);
    let pick = |a: (Vec4, f32), b: (Vec4, f32)| {
        let first = a.1 >= b.1;
        (
            Vec4::select(BVec4A::splat(first), a.0, b.0),
            if first { a.1 } else { b.1 },
        )
    };
    let (v, _) = pick(
        pick((by_x, t.x), (by_y, t.y)),
        pick((by_z, t.z), (by_w, t.w)),
    );
    // Times the reciprocal of the length, as the 16-lane conversion (`pose::lanes::be_poses`)
    // normalises: the two give the same bits. (`Vec4::normalize` divides each component.)
    let inverse = 1.0 / v.length();
    (Quat::from_vec4(v * inverse), Vec3A::new(tx, ty, tz))
}

/// `true` if the rotation part of a row-major 3×4 pose is a proper rotation: `R·Rᵀ` within
/// [`ORTHONORMAL_TOLERANCE`] of the identity per element, and determinant positive (no
/// mirroring). A scaled or sheared matrix is not: a quaternion cannot hold its scale.
///
/// ```
/// use skelmap_core::pose::is_rotation;
/// let turn = [[0.0, -1.0, 0.0, 5.0], [1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0]];
/// assert!(is_rotation(&turn));
/// let scaled = turn.map(|row| row.map(|v| 1.5 * v));
/// assert!(!is_rotation(&scaled));
/// ```
#[must_use]
#[inline]
pub fn is_rotation(m: &[[f32; 4]; 3]) -> bool {
    let mut lanes = [[0.0; LANES]; 9];
    for (k, lane) in lanes.iter_mut().enumerate() {
        lane.fill(IDENTITY[k]);
        lane[0] = m[k / 3][k % 3];
    }
    rotations(&lanes) & 1 != 0
}

/// How many of `items` hold a matrix (row-major 3×4, read by `matrix`) that is not a rotation
/// ([`is_rotation`]), and the index of the first. One branch-free pass, `LANES` matrices at a
/// time laid out lane by lane, so that the compiler turns the arithmetic into vector
/// instructions: what lets validation test every pose of a file at open for a small share of
/// the open's time.
pub(crate) fn count_non_rotations<T>(
    items: &[T],
    matrix: impl Fn(&T) -> [[f32; 4]; 3],
) -> (u64, Option<usize>) {
    count_non_rotations_of(items.iter().map(matrix))
}

/// [`count_non_rotations`] of the matrices `matrices` yields, in one pass (an MDL7's bone
/// transformations across all its frames, which lie between frame heads).
pub(crate) fn count_non_rotations_of(
    matrices: impl Iterator<Item = [[f32; 4]; 3]>,
) -> (u64, Option<usize>) {
    let (mut count, mut first) = (0u64, None);
    let mut lanes = [[0.0f32; LANES]; 9];
    let mut filled = 0;
    let mut at = 0;
    let mut test = |at: usize, lanes: &[[f32; LANES]; 9]| {
        let bad = !rotations(lanes) & (u32::MAX >> (32 - LANES));
        count += u64::from(bad.count_ones());
        if first.is_none() && bad != 0 {
            first = Some(at + bad.trailing_zeros() as usize);
        }
    };
    for m in matrices {
        for (k, lane) in lanes.iter_mut().enumerate() {
            lane[filled] = m[k / 3][k % 3];
        }
        filled += 1;
        if filled == LANES {
            test(at, &lanes);
            at += LANES;
            filled = 0;
        }
    }
    if filled > 0 {
        // Unused lanes hold the identity, a rotation.
        for (k, lane) in lanes.iter_mut().enumerate() {
            lane[filled..].fill(IDENTITY[k]);
        }
        test(at, &lanes);
    }
    (count, first)
}

/// Matrices tested together.
const LANES: usize = 16;

/// The 3×3 identity, row by row.
const IDENTITY: [f32; 9] = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];

/// A bit per lane, set when that lane's 3×3 (element `k` of every matrix in `m[k]`, row-major)
/// is a rotation.
#[inline]
fn rotations(m: &[[f32; LANES]; 9]) -> u32 {
    let mut good = [false; LANES];
    for (i, good) in good.iter_mut().enumerate() {
        let x = [m[0][i], m[1][i], m[2][i]];
        let y = [m[3][i], m[4][i], m[5][i]];
        let z = [m[6][i], m[7][i], m[8][i]];
        let dot = |a: [f32; 3], b: [f32; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
        // The rows' lengths and their pairwise products: the six distinct elements of R·Rᵀ.
        let deviation = (dot(x, x) - 1.0)
            .abs()
            .max((dot(y, y) - 1.0).abs())
            .max((dot(z, z) - 1.0).abs())
            .max(dot(x, y).abs())
            .max(dot(y, z).abs())
            .max(dot(z, x).abs());
        let cross = [
            x[1] * y[2] - x[2] * y[1],
            x[2] * y[0] - x[0] * y[2],
            x[0] * y[1] - x[1] * y[0],
        ];
        // Non-strict comparisons so that NaN fails both.
        *good = (deviation <= ORTHONORMAL_TOLERANCE) & (dot(cross, z) > 0.0);
    }
    good.iter()
        .enumerate()
        .fold(0, |bits, (i, &g)| bits | (u32::from(g) << i))
}

#[cfg(test)]
mod tests {
    use super::*;

    const TURN: [[f32; 4]; 3] = [
        [0.0, -1.0, 0.0, 5.0],
        [1.0, 0.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0],
    ];

    fn scaled(m: [[f32; 4]; 3], s: f32) -> [[f32; 4]; 3] {
        m.map(|row| [row[0] * s, row[1] * s, row[2] * s, row[3]])
    }

    #[test]
    fn rotations_pass_and_scale_shear_mirror_and_nan_fail() {
        assert!(is_rotation(&TURN));
        assert!(is_rotation(&scaled(
            TURN,
            1.0 + ORTHONORMAL_TOLERANCE / 4.0
        )));
        assert!(!is_rotation(&scaled(TURN, 1.5)));
        let mut shear = TURN;
        shear[0][2] = 0.1;
        assert!(!is_rotation(&shear));
        let mut mirror = TURN;
        mirror[2][2] = -1.0;
        assert!(!is_rotation(&mirror));
        let mut nan = TURN;
        nan[1][1] = f32::NAN;
        assert!(!is_rotation(&nan));
    }

    #[test]
    fn counting_covers_every_lane_and_the_remainder() {
        // 2 full chunks and a remainder of 3; bad ones at 5, 17, 33 and 34.
        let bad = [5, 17, 33, 34];
        let poses: Vec<[[f32; 4]; 3]> = (0..2 * LANES + 3)
            .map(|i| {
                if bad.contains(&i) {
                    scaled(TURN, 2.0)
                } else {
                    TURN
                }
            })
            .collect();
        assert_eq!(count_non_rotations(&poses, |m| *m), (4, Some(5)));
        assert_eq!(count_non_rotations(&poses[6..], |m| *m), (3, Some(11)));
        assert_eq!(count_non_rotations(&poses[18..33], |m| *m), (0, None));
        assert_eq!(count_non_rotations(&poses[34..], |m| *m), (1, Some(0)));
        assert_eq!(count_non_rotations(&poses[..0], |m| *m), (0, None));
    }
}
