//! Packing vertex frames the way the alias formats store them: each coordinate as an
//! unsigned integer on a grid `scale` wide from `origin`, each normal as the nearest of the
//! 162 [`NORMALS`]. The writers of Quake MDL (bytes), MD2 (bytes, a grid a frame) and
//! GameStudio MDL (words) share it.

use std::collections::HashSet;

use super::anorms::NORMALS;

/// The grid that packs every point of `points` into `0..=max` per axis: `(scale, origin)`,
/// with `origin` the minimum corner. Unpacked, a point lies within `scale / 2` of where it
/// was; where the points already lie on a grid of at most `max` steps (a model read from a
/// format that packs, written back), on that grid: an axis's scale is then the coarsest
/// step that holds every coordinate, and the points come back within float rounding
/// instead of being moved to a grid of other steps. Otherwise, and wherever that grid would
/// put a point further off than the extent over `max` does, the scale is the extent over
/// `max` (1 for an axis without extent).
///
/// Work and memory are bounded by `max`: an axis stops collecting its coordinates past
/// `max + 1` distinct values (no grid of `max` steps holds more), and the search for the
/// step tests fewer than `2 · (max + 1)` coordinates in all.
#[must_use]
pub fn grid<'a>(points: impl IntoIterator<Item = &'a [f32; 3]>, max: u16) -> ([f32; 3], [f32; 3]) {
    let mut lo = [f32::INFINITY; 3];
    let mut hi = [f32::NEG_INFINITY; 3];
    // Per axis, the distinct coordinates while there are at most `max + 1` (`None` after).
    let limit = usize::from(max) + 1;
    let mut seen: [Option<HashSet<u32>>; 3] = core::array::from_fn(|_| Some(HashSet::new()));
    for p in points {
        for k in 0..3 {
            if p[k].is_finite() {
                lo[k] = lo[k].min(p[k]);
                hi[k] = hi[k].max(p[k]);
                // `+ 0.0` makes −0 the same value as +0.
                if let Some(set) = &mut seen[k]
                    && set.insert((p[k] + 0.0).to_bits())
                    && set.len() > limit
                {
                    seen[k] = None;
                }
            }
        }
    }
    let mut scale = [1.0; 3];
    let mut origin = [0.0; 3];
    for k in 0..3 {
        if lo[k] <= hi[k] {
            origin[k] = lo[k];
            let extent = hi[k] - lo[k];
            if extent > 0.0 {
                let even = extent / f32::from(max);
                let mut values: Vec<f32> = (seen[k].take().into_iter().flatten())
                    .map(f32::from_bits)
                    .collect();
                values.sort_unstable_by(f32::total_cmp);
                scale[k] = lattice(&values, max)
                    .filter(|&step| off_grid(&values, step) <= off_grid(&values, even))
                    .unwrap_or(even);
            }
        }
    }
    (scale, origin)
}

/// How far a coordinate lies off a grid: a hundredth of a step or less is on it.
const ON_GRID: f64 = 0.01;

/// The coarsest step `s` such that every one of `values` (distinct, ascending, finite, at
/// least two) lies within [`ON_GRID`] of a step of `values[0] + s · n` for an `n` in
/// `0..=max`, if there is one. The steps tried are the smallest gap between neighbours
/// divided by 1, 2, 3 …, each refined to divide the whole extent evenly, until the extent
/// would take more than `max` steps: since the values are at least that gap apart, fewer than
/// `2 · (max + 1)` values are tested over all tries.
fn lattice(values: &[f32], max: u16) -> Option<f32> {
    let (&first, &last) = (values.first()?, values.last()?);
    let extent = f64::from(last) - f64::from(first);
    let gap = (values.windows(2))
        .map(|w| f64::from(w[1]) - f64::from(w[0]))
        .fold(f64::INFINITY, f64::min);
    if !(extent > 0.0 && gap > 0.0) {
        return None;
    }
    for parts in 1..=u32::from(max) {
        let steps = (extent * f64::from(parts) / gap).round();
        if steps > f64::from(max) {
            break;
        }
        let step = extent / steps;
        let on = values.iter().all(|&v| {
            let n = (f64::from(v) - f64::from(first)) / step;
            (n - n.round()).abs() <= ON_GRID
        });
        if on {
            return Some(step as f32);
        }
    }
    None
}

/// The largest distance of one of `values` (ascending) from its nearest step of the grid
/// `values[0] + scale · n`.
fn off_grid(values: &[f32], scale: f32) -> f32 {
    let first = values.first().copied().unwrap_or_default();
    values
        .iter()
        .map(|&v| {
            let n = ((v - first) / scale).round();
            (first + scale * n - v).abs()
        })
        .fold(0.0, f32::max)
}

/// `p` on the grid of `(scale, origin)` (see [`grid`]), each coordinate rounded and held to
/// `0..=max`.
#[must_use]
pub fn pack(p: [f32; 3], (scale, origin): ([f32; 3], [f32; 3]), max: u16) -> [u16; 3] {
    let mut out = [0u16; 3];
    for k in 0..3 {
        let v = ((p[k] - origin[k]) / scale[k]).round();
        out[k] = if v.is_finite() {
            v.clamp(0.0, f32::from(max)) as u16
        } else {
            0
        };
    }
    out
}

/// The index of the table normal nearest to `n` in direction (the largest dot product).
#[must_use]
pub fn nearest_normal(n: [f32; 3]) -> u8 {
    let mut best = (0usize, f32::NEG_INFINITY);
    for (i, t) in NORMALS.iter().enumerate() {
        let d = t[0] * n[0] + t[1] * n[1] + t[2] * n[2];
        if d > best.1 {
            best = (i, d);
        }
    }
    best.0 as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Unpacks `q` from grid `g`, as the readers do.
    fn unpack(g: ([f32; 3], [f32; 3]), q: [u16; 3]) -> [f32; 3] {
        core::array::from_fn(|k| g.0[k] * f32::from(q[k]) + g.1[k])
    }

    #[test]
    fn points_pack_within_half_a_step() {
        // x and z: 0.3 and 0.3001 within a hundredth of a step of a tenth, where the points
        // keep their places (0.3001 off by 1e-4, under the extent over 255's half step).
        let points = [[-1.0, 0.0, 2.0], [1.0, 0.0, 4.0], [0.3001, 0.0, 3.3]];
        let g = grid(&points, 255);
        assert_eq!(g.1, [-1.0, 0.0, 2.0]);
        assert_eq!(g.0[1], 1.0);
        assert!((g.0[0] - 0.1).abs() < 1e-6 && (g.0[2] - 0.1).abs() < 1e-6);
        assert_eq!(pack(points[0], g, 255), [0, 0, 0]);
        assert_eq!(pack(points[1], g, 255), [20, 0, 20]);
        let back = unpack(g, pack(points[2], g, 255));
        for (b, p) in back.into_iter().zip(points[2]) {
            assert!((b - p).abs() <= 1.01e-4, "{b} {p}");
        }
        let up = nearest_normal([0.0, 0.0, 1.0]);
        assert_eq!(NORMALS[usize::from(up)], [0.0, 0.0, 1.0]);
    }

    #[test]
    fn points_on_a_coarser_grid_keep_it() {
        // A frame as an MD2 exporter packs it: one step for all three axes (the longest
        // axis's extent over 255), each axis from its own minimum, z reaching step 254 and
        // x only 36: the extent over 255 would move every point.
        let (step, origin) = (0.662_745_1_f32, [-12.0_f32, -12.0, 0.0]);
        let ns: [[u16; 3]; 5] = [[0, 0, 0], [36, 5, 254], [7, 36, 120], [13, 2, 6], [1, 1, 1]];
        let points: Vec<[f32; 3]> = (ns.iter())
            .map(|n| core::array::from_fn(|k| step * f32::from(n[k]) + origin[k]))
            .collect();
        let g = grid(&points, 255);
        assert_eq!(g.1, origin);
        for (p, n) in points.iter().zip(&ns) {
            assert_eq!(pack(*p, g, 255), *n);
            let back = unpack(g, *n);
            for k in 0..3 {
                assert!((back[k] - p[k]).abs() <= 4.0 * f32::EPSILON * p[k].abs().max(1.0));
            }
        }
        for k in 0..3 {
            assert!((g.0[k] - step).abs() <= 1e-6, "axis {k}: {}", g.0[k]);
        }
    }

    #[test]
    fn the_coarsest_grid_holding_the_points_is_taken() {
        // Steps 0, 6, 8 and 254 of 0.5: every one even, so a step of 1.0 holds them.
        let values = [0.0, 3.0, 4.0, 127.0];
        assert_eq!(lattice(&values, 255), Some(1.0));
        // Steps 0, 6 and 13: only the step itself.
        assert_eq!(lattice(&[0.0, 3.0, 6.5], 255), Some(0.5));
        // More steps than `max`: none.
        assert_eq!(lattice(&[0.0, 0.5, 200.0], 255), None);
        assert_eq!(lattice(&[0.0, 0.5, 127.5], 255), Some(0.5));
        // One value, or none: none.
        assert_eq!(lattice(&[1.0], 255), None);
        assert_eq!(lattice(&[], 255), None);
    }

    #[test]
    fn an_axis_past_max_distinct_values_is_spread_evenly() {
        // 300 distinct values on a step of 1 cannot be 255 steps of any grid.
        let points: Vec<[f32; 3]> = (0..300).map(|i| [i as f32, 0.0, 0.0]).collect();
        let g = grid(&points, 255);
        assert_eq!(g.0[0], 299.0 / 255.0);
        // Within `max`, their own step.
        let g = grid(&points[..256], 255);
        assert_eq!(g.0[0], 1.0);
    }

    #[test]
    fn a_grid_of_more_steps_than_max_is_not_taken() {
        // A step of 1e-3 holds the values, but in 1,000 steps: not within 255, within 65,535.
        let values = [0.0, 1e-3, 1.000_37];
        assert_eq!(lattice(&values, 255), None);
        assert!(lattice(&values, u16::MAX).is_some_and(|s| (s - 1.000_37e-3).abs() < 1e-9));
        let g = grid(
            &[[0.0, 0.0, 0.0], [1e-3, 0.0, 0.0], [1.000_37, 0.0, 0.0]],
            255,
        );
        assert_eq!(g.0[0], 1.000_37 / 255.0);
    }
}
