//! Packing vertex frames the way the alias formats store them: each coordinate as an
//! unsigned integer on a grid `scale` wide from `origin`, each normal as the nearest of the
//! 162 [`NORMALS`]. Writers of Quake MDL (bytes) and GameStudio MDL (bytes or words) share it.

use super::anorms::NORMALS;

/// The grid that packs every point of `points` into `0..=max` per axis: `(scale, origin)`,
/// with `origin` the minimum corner and `scale` the extent over `max` (1 for an axis
/// without extent). Unpacked, a point lies within `scale / 2` of where it was.
#[must_use]
pub fn grid<'a>(points: impl IntoIterator<Item = &'a [f32; 3]>, max: u16) -> ([f32; 3], [f32; 3]) {
    let mut lo = [f32::INFINITY; 3];
    let mut hi = [f32::NEG_INFINITY; 3];
    for p in points {
        for k in 0..3 {
            if p[k].is_finite() {
                lo[k] = lo[k].min(p[k]);
                hi[k] = hi[k].max(p[k]);
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
                scale[k] = extent / f32::from(max);
            }
        }
    }
    (scale, origin)
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

    #[test]
    fn points_pack_within_half_a_step() {
        let points = [[-1.0, 0.0, 2.0], [1.0, 0.0, 4.0], [0.3, 0.0, 3.3]];
        let g = grid(&points, 255);
        assert_eq!(g, ([2.0 / 255.0, 1.0, 2.0 / 255.0], [-1.0, 0.0, 2.0]));
        assert_eq!(pack(points[0], g, 255), [0, 0, 0]);
        assert_eq!(pack(points[1], g, 255), [255, 0, 255]);
        let q = pack(points[2], g, 255);
        let back = (0..3).map(|k| g.1[k] + g.0[k] * f32::from(q[k]));
        for (b, p) in back.zip(points[2]) {
            assert!((b - p).abs() <= 1.0 / 255.0);
        }
        let up = nearest_normal([0.0, 0.0, 1.0]);
        assert_eq!(NORMALS[usize::from(up)], [0.0, 0.0, 1.0]);
    }
}
