//! Euler angles to a quaternion, with the three sines and cosines computed together, and
//! back ([`zyx_of`], for the writers of formats that key Euler angles).
//!
//! Formats that key rotations as Euler angles convert them as they sample: MS3D one key per
//! joint whenever playback crosses a key, Half-Life every bone of both frames, sixteen bones
//! at a time ([`quats_from_zyx`]). Three calls to `f32::sin_cos` made that conversion most of
//! the cost of a pose; here the three half angles go through one four-lane polynomial
//! instead, written lane by lane so that the compiler turns it into vector instructions on
//! any x86-64.
//!
//! Accuracy: range reduction by π/2 in three parts (the first two with few enough bits that
//! their products with the quadrant are exact), then minimax polynomials on [−π/4, π/4]. The
//! sines and cosines are within 1.2·10⁻⁷ of `f32::sin_cos` (one unit in the last place at 1)
//! for every |angle| up to [`REDUCED_MAX`]; beyond that (no modelling tool writes such angles,
//! but a file may) the lanes fall back to `f32::sin_cos`.

use glam::{EulerRot, Quat};

/// The largest |angle| the polynomial path reduces: `4096 · π/2`, so that the quadrant has at
/// most 12 bits and its products with [`PIO2_HI`] and [`PIO2_MID`] are exact in `f32`.
pub(crate) const REDUCED_MAX: f32 = 6433.0;

/// π/2 in three parts. The first two have at most 12 significant bits.
pub(crate) const PIO2_HI: f32 = 1.570_312_5;
pub(crate) const PIO2_MID: f32 = 4.837_513e-4;
pub(crate) const PIO2_LO: f32 = 7.549_79e-8;

/// Adding and subtracting this rounds an `f32` of magnitude below 2²² to an integer (ties
/// to even), without needing a rounding instruction.
pub(crate) const ROUND: f32 = 12_582_912.0; // 1.5 · 2²³

/// The sine's polynomial on [−π/4, π/4]: `sin r ≈ r + r·z·((S0·z + S1)·z − S2)`, `z = r²`.
pub(crate) const SINE: [f32; 3] = [-1.951_529_6e-4, 8.332_161e-3, 1.666_665_5e-1];

/// The cosine's polynomial on [−π/4, π/4]: `cos r ≈ 1 − z/2 + z²·((C0·z − C1)·z + C2)`,
/// `z = r²`.
pub(crate) const COSINE: [f32; 3] = [2.443_315_7e-5, 1.388_731_6e-3, 4.166_664_6e-2];

/// The Euler angles `[x, y, z]` in radians whose rotation `Rz(z) · Ry(y) · Rx(x)` is `q`
/// (normalised; no rotation for a zero `q`), found in double precision: near a pitch of ±90°
/// the single-precision decomposition loses digits (up to about 10⁻² radians of the
/// rotation), which keys written from it would then lack.
pub(crate) fn zyx_of(q: Quat) -> [f32; 3] {
    let q = q.as_dquat();
    if q.length_squared() == 0.0 || !q.is_finite() {
        return [0.0; 3];
    }
    let (z, y, x) = q.normalize().to_euler(EulerRot::ZYX);
    [x as f32, y as f32, z as f32]
}

/// The rotation `Rz(z) · Ry(y) · Rx(x)` of Euler angles `[x, y, z]` in radians.
// Always inlined: called out of line, the angles went through memory and their reload
// stalled on store forwarding.
#[inline(always)]
pub(crate) fn quat_from_zyx(angles: [f32; 3]) -> Quat {
    let [x, y, z] = angles;
    let (s, c) = sin_cos4([0.5 * x, 0.5 * y, 0.5 * z, 0.0]);
    let [sx, sy, sz, _] = s;
    let [cx, cy, cz, _] = c;
    // qz · qy · qx expanded.
    Quat::from_xyzw(
        sx * cy * cz - cx * sy * sz,
        cx * sy * cz + sx * cy * sz,
        cx * cy * sz - sx * sy * cz,
        cx * cy * cz + sx * sy * sz,
    )
}

/// [`quat_from_zyx`] of the first `count` (at most sixteen) Euler angle triples given as rows
/// x, y, z, written into those lanes of `out` as rows x, y, z, w (other lanes may be written
/// too): each lane's rotation is the one `quat_from_zyx` gives its three angles, bit for
/// bit. With AVX-512F the sixteen are converted together when there are a few and every
/// angle is in the polynomial's range.
pub(crate) fn quats_from_zyx(angles: &[[f32; 16]; 3], count: usize, out: &mut [[f32; 16]; 4]) {
    // Below four lanes, converting them one by one costs less than the sixteen.
    #[cfg(target_arch = "x86_64")]
    if count >= 4 && super::x86::euler::try_quats_from_zyx(angles, out).is_some() {
        return;
    }
    for i in 0..count.min(16) {
        let [x, y, z, w] = quat_from_zyx([angles[0][i], angles[1][i], angles[2][i]]).to_array();
        (out[0][i], out[1][i], out[2][i], out[3][i]) = (x, y, z, w);
    }
}

/// Up to sixteen keyed joints gathered for one sampling step, one lane per joint: what the
/// scalar sampler reads for a joint at a time, laid out for `pose::lanes::keyed_nlerp`.
///
/// Each joint's values are four-float records, copied as they come (a key as the file stores
/// it), so that gathering a joint is a few 16-byte copies; the step turns every sixteen
/// records into four rows of sixteen lanes. Lane `l`'s records sit at slot
/// [`KeyLanes::slot`]`(l)`, where that turn puts them back in lane `l`.
#[derive(Debug, Clone, Default)]
pub(crate) struct KeyLanes {
    /// The rest rotation, a quaternion `x, y, z, w`.
    pub(crate) rest: [[f32; 4]; 16],
    /// The rest position, then any value.
    pub(crate) origin: [[f32; 4]; 16],
    /// The rotation track's, then the position track's, two keys around the sample time, as
    /// stored: time, then the Euler angles or the position (zeros in lanes without keys).
    pub(crate) keys: [[[[f32; 4]; 16]; 2]; 2],
    /// The sample time, in seconds.
    pub(crate) seconds: f32,
    /// Lanes with rotation keys, and lanes with position keys.
    pub(crate) keyed: [u16; 2],
}

impl KeyLanes {
    /// Where lane `lane`'s records go: sixteen records load as four registers of four, and
    /// the turn into rows leaves record `4j + i` in lane `4i + j`; the slot is that
    /// transposition of the lane (its own inverse).
    #[inline]
    pub(crate) const fn slot(lane: usize) -> usize {
        4 * (lane % 4) + lane / 4 % 4
    }
}

/// The sines and cosines of four angles.
#[inline(always)]
fn sin_cos4(x: [f32; 4]) -> ([f32; 4], [f32; 4]) {
    if x.iter().any(|a| a.is_nan() || a.abs() > REDUCED_MAX) {
        let both = x.map(f32::sin_cos);
        return (both.map(|p| p.0), both.map(|p| p.1));
    }
    let (mut sin, mut cos) = ([0.0f32; 4], [0.0f32; 4]);
    for i in 0..4 {
        let a = x[i];
        let shifted = a * core::f32::consts::FRAC_2_PI + ROUND;
        let q = shifted - ROUND;
        let r = ((a - q * PIO2_HI) - q * PIO2_MID) - q * PIO2_LO;
        let z = r * r;
        let s = r + r * z * ((SINE[0] * z + SINE[1]) * z - SINE[2]);
        let c = 1.0 - 0.5 * z + z * z * ((COSINE[0] * z - COSINE[1]) * z + COSINE[2]);
        // The quadrant: odd ones swap sine and cosine, and the sine is negative in quadrants
        // 2 and 3, the cosine in 1 and 2.
        // The integer sits in the low mantissa bits of `shifted` (negative ones too, modulo
        // 2²²), which an `as` conversion would saturate lane by lane.
        let quadrant = shifted.to_bits();
        let (s, c) = if quadrant & 1 != 0 { (c, s) } else { (s, c) };
        sin[i] = if quadrant & 2 != 0 { -s } else { s };
        cos[i] = if quadrant.wrapping_add(1) & 2 != 0 {
            -c
        } else {
            c
        };
    }
    (sin, cos)
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::EulerRot;

    fn angles() -> impl Iterator<Item = f32> {
        let fine = (-40_000..=40_000).map(|i| i as f32 * 1e-4);
        let coarse = (-6433..=6433).map(|i| i as f32 + 0.37);
        let edges = [
            0.0,
            -0.0,
            core::f32::consts::FRAC_PI_4,
            core::f32::consts::FRAC_PI_2,
            core::f32::consts::PI,
            -core::f32::consts::PI,
            REDUCED_MAX,
            -REDUCED_MAX,
            REDUCED_MAX.next_up(),
            1e6,
            -3e7,
            f32::MAX,
            f32::MIN_POSITIVE,
        ];
        fine.chain(coarse).chain(edges)
    }

    #[test]
    fn sines_and_cosines_match_std_within_1_2e_7() {
        let mut worst = 0.0f32;
        for a in angles() {
            let (s, c) = sin_cos4([a, -a, 0.5 * a, 0.0]);
            for (k, v) in [a, -a, 0.5 * a, 0.0].into_iter().enumerate() {
                let (ws, wc) = v.sin_cos();
                worst = worst.max((s[k] - ws).abs()).max((c[k] - wc).abs());
            }
        }
        assert!(worst <= 1.2e-7, "worst difference {worst:e}");
    }

    #[test]
    fn a_nan_or_infinite_angle_gives_what_std_gives() {
        for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
            let (s, c) = sin_cos4([bad, 1.0, 2.0, 3.0]);
            assert!(s[0].is_nan() && c[0].is_nan());
            assert_eq!((s[1], c[1]), 1.0f32.sin_cos());
        }
    }

    #[test]
    fn sixteen_at_once_are_each_alone_bit_for_bit() {
        let values: Vec<f32> = angles().step_by(31).collect();
        for (chunk, start) in (0..values.len()).step_by(48).enumerate() {
            let mut rows = [[0.0f32; 16]; 3];
            for (k, row) in rows.iter_mut().enumerate() {
                for (i, v) in row.iter_mut().enumerate() {
                    *v = values[(start + 16 * k + i) % values.len()];
                }
            }
            // One chunk with a NaN: the others lanes still convert as alone.
            if chunk == 3 {
                rows[1][5] = f32::NAN;
            }
            for count in [16, 3] {
                let mut all = [[0.0f32; 16]; 4];
                quats_from_zyx(&rows, count, &mut all);
                for i in 0..count {
                    let one = quat_from_zyx([rows[0][i], rows[1][i], rows[2][i]]);
                    let got = [all[0][i], all[1][i], all[2][i], all[3][i]];
                    let bits = |q: [f32; 4]| q.map(f32::to_bits);
                    assert_eq!(bits(got), bits(one.to_array()), "chunk {chunk} lane {i}");
                }
            }
        }
    }

    #[test]
    fn quaternions_match_glam_within_2e_7() {
        let mut worst = 0.0f32;
        let values: Vec<f32> = angles().step_by(97).collect();
        for (i, &x) in values.iter().enumerate() {
            let y = values[(i * 7 + 3) % values.len()];
            let z = values[(i * 13 + 5) % values.len()];
            let want = Quat::from_euler(EulerRot::ZYX, z, y, x);
            let got = quat_from_zyx([x, y, z]);
            worst = worst.max(
                (glam::Vec4::from(got) - glam::Vec4::from(want))
                    .abs()
                    .max_element(),
            );
        }
        assert!(worst <= 2e-7, "worst difference {worst:e}");
    }
}
