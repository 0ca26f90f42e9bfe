//! Converting between formats through an [`Asset`], and measuring what a conversion costs:
//! [`asset_of`], [`skinning_error`].
//!
//! Every writer takes an asset (`from_asset` in each format's `write.rs`), so a model of any
//! format converts by [`asset_of`] and the writer of the output's format; the writer checks
//! the output format's limits first and says in words what it could not keep.
//! [`skinning_error`] then opens what was written and compares every frame's vertices with
//! the source's as sets of points, since conversion splits vertices (per-corner texture
//! coordinates) and optimisation merges and reorders them.

use glam::Vec3A;
use rayon::prelude::*;

use super::Model;
use super::asset::MeshPicks;
use crate::asset::{self, Asset};
use crate::pose::framegroups::FrameGroup;

/// How far a converted model's skinned vertices lie from the source's, over every frame (the
/// bind pose for a model without frames). Shown as fractions of the size and in the model's
/// units: `largest 1.20e-4 (4.441e-3 units) and RMS …`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SkinningError {
    /// Largest distance, relative to the size.
    pub max: f32,
    /// Root mean square distance, relative to the size.
    pub rms: f32,
    /// The size: the diagonal of the source's bind-pose bounds.
    pub size: f32,
    /// Frames compared.
    pub frames: usize,
    /// Vertices compared per frame.
    pub vertices: usize,
}

impl core::fmt::Display for SkinningError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "largest {:.2e} ({:.3e} units) and RMS {:.2e} ({:.3e} units) of the model's size \
             ({:.4}) over {} frames of {} vertices",
            self.max,
            self.max * self.size,
            self.rms,
            self.rms * self.size,
            self.size,
            self.frames,
            self.vertices
        )
    }
}

/// `model` as an asset for conversion: its bind pose, and every frame in a clip (a model
/// whose frames make no clips gets one clip, `frames`, of all of them at
/// [`NAMED_CLIP_FPS`](super::NAMED_CLIP_FPS)).
///
/// ```
/// use skelmap_core::{Model, model::convert, synth};
/// let bytes = synth::tube(&Default::default()).write()?;
/// let asset = convert::asset_of(&Model::from_bytes(&bytes)?)?;
/// assert_eq!((asset.num_frames(), asset.clips.len()), (9, 2));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
///
/// [`asset::Error`]s of [`Model::to_asset`].
pub fn asset_of(model: &Model<'_>) -> Result<Asset, asset::Error> {
    asset_of_with(model, asset::Options::default())
}

/// [`asset_of`] from `options` other than the clips (a decoder of embedded DDS skins,
/// [`asset::Options::dds`]); clips as [`asset_of`] makes them where `options` has none.
///
/// # Errors
///
/// [`asset::Error`]s of [`Model::to_asset`].
pub fn asset_of_with(model: &Model<'_>, options: asset::Options) -> Result<Asset, asset::Error> {
    let frames = u32::try_from(model.num_frames()).unwrap_or(u32::MAX);
    let groups = (model.clips().is_empty() && frames > 0).then(|| {
        vec![FrameGroup {
            name: "frames".into(),
            first: 0,
            count: frames,
            fps: super::NAMED_CLIP_FPS,
            looped: true,
        }]
    });
    model.to_asset(&asset::Options {
        groups: options.groups.clone().or(groups),
        ..options
    })
}

/// What [`skinning_error`] compares: a model, posed by its own kernels (what an engine
/// draws), or an asset, posed by its linear blend or morph ([`Asset::posed`]).
#[derive(Debug, Clone, Copy)]
pub enum Posed<'a, 'data> {
    /// A model: frame `f` is [`Model::to_asset`] at frame `f`.
    Model(&'a Model<'data>),
    /// An asset: frame `f` is frame `f` of [`Asset::num_frames`]'s numbering.
    Asset(&'a Asset),
}

impl Posed<'_, '_> {
    fn num_frames(&self) -> usize {
        match self {
            Posed::Model(m) => m.num_frames(),
            Posed::Asset(a) => a.num_frames(),
        }
    }

    /// Every vertex at `frame` (its own pose for `None`, or when it has no frames), in `+Y`-up
    /// axes; empty for a frame it lacks.
    fn points(&self, frame: Option<usize>) -> Vec<Vec3A> {
        let frame = frame.filter(|_| self.num_frames() > 0);
        let posed = match self {
            Posed::Model(m) => m
                .to_asset(&asset::Options {
                    frame,
                    no_animations: true,
                    no_images: true,
                    ..asset::Options::default()
                })
                .ok()
                .map(|a| {
                    (
                        a.up,
                        a.meshes
                            .into_iter()
                            .map(|m| m.positions)
                            .collect::<Vec<_>>(),
                    )
                }),
            Posed::Asset(a) => a
                .posed(frame)
                .map(|p| (a.up, p.into_iter().map(|m| m.positions).collect())),
        };
        let Some((up, meshes)) = posed else {
            return Vec::new();
        };
        let turn = up.to_y_up();
        meshes
            .iter()
            .flatten()
            .map(|p| turn * Vec3A::from_array(*p))
            .collect()
    }
}

/// A [`Posed`] with what posing it at every frame needs once: for a model, the model vertex
/// behind each vertex of its asset ([`Model::asset_vertices`]), so that a frame's points
/// are its meshes deformed and picked, the points [`Model::to_asset`] would give, without
/// building the rest of an asset. Where the asset's vertices depend on posed corner normals
/// (MS3D), a frame whose normals break the picks ([`MeshPicks::hold`]) takes the general
/// path.
struct Frames<'p, 'data> {
    posed: Posed<'p, 'data>,
    picks: Option<Vec<MeshPicks>>,
}

impl<'p, 'data> Frames<'p, 'data> {
    fn new(posed: Posed<'p, 'data>) -> Self {
        // Where the asset cannot be built, neither are its points: the general path says so.
        let picks = match posed {
            Posed::Model(m) => (m.to_asset(&asset::Options {
                no_animations: true,
                no_images: true,
                ..asset::Options::default()
            }))
            .ok()
            .and_then(|_| m.asset_vertices()),
            Posed::Asset(_) => None,
        };
        Frames { posed, picks }
    }

    /// [`Posed::points`].
    fn points(&self, frame: Option<usize>) -> Vec<Vec3A> {
        let (Posed::Model(model), Some(picks)) = (self.posed, &self.picks) else {
            return self.posed.points(frame);
        };
        let mut pose = super::Pose::default();
        match frame.filter(|_| model.num_frames() > 0) {
            Some(f) => {
                let nlerp = crate::pose::Interpolation::Nlerp;
                if model.pose(f, f, 0.0, nlerp, &mut pose).is_err() {
                    return Vec::new();
                }
            }
            None => model.pose_bind(&mut pose),
        }
        let turn = model.conventions().up.to_y_up();
        let mut out = Vec::with_capacity(picks.iter().map(|p| p.vertices.len()).sum());
        let (mut positions, mut normals, mut corners) = (Vec::new(), Vec::new(), Vec::new());
        for (mesh, picked) in model.meshes().zip(picks) {
            let n = mesh.num_vertices();
            positions.resize(n, [0.0; 3]);
            normals.resize(n, [0.0; 3]);
            if (model.deform(mesh.index(), &pose, &mut positions, &mut normals)).is_err() {
                return Vec::new();
            }
            if picked.by_corner_normals() {
                corners.resize(3 * mesh.num_triangles(), [0.0; 3]);
                let posed = model.deform_corner_normals(mesh.index(), &pose, &mut corners);
                if posed.is_err() || !picked.hold(&corners) {
                    return self.posed.points(frame);
                }
            }
            out.extend(picked.vertices.iter().map(|&v| {
                let p = positions.get(v as usize).copied().unwrap_or_default();
                // Non-finite coordinates are 0 in an asset.
                turn * Vec3A::from_array(p.map(|c| if c.is_finite() { c } else { 0.0 }))
            }));
        }
        out
    }
}

/// How far the vertices of `converted` lie from those of `source`, frame by frame, compared
/// as sets of points: every point of each is matched to the nearest point of the other at
/// the same frame, and the largest and RMS distance are taken over both directions, so that
/// split, merged and reordered vertices compare equal. Frame `f` of the source is frame
/// `f + offset` of the conversion (an SL `.anim` starts with the bind pose). Both are turned
/// to `+Y` up; distances are relative to the diagonal of the source's bounds at its own
/// pose. Without frames, the own poses are compared. Measure against a [`Posed::Model`]
/// to see what an engine draws.
///
/// ```
/// use skelmap_core::{Model, iqm, model::convert::{self, Posed}, synth};
/// let bytes = synth::tube(&Default::default()).write()?;
/// let source = Model::from_bytes(&bytes)?;
/// let asset = convert::asset_of(&source)?;
/// let bytes = iqm::Builder::from_asset(&asset)?.builder.write()?;
/// let written = Model::from_bytes(&bytes)?;
/// let error = convert::skinning_error(Posed::Model(&source), Posed::Model(&written), 0);
/// assert!(error.max < 1e-3, "{error}"); // 8-bit weights and 16-bit channels
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn skinning_error(
    source: Posed<'_, '_>,
    converted: Posed<'_, '_>,
    offset: usize,
) -> SkinningError {
    skinning_error_with(source, converted, |f| f + offset)
}

/// [`skinning_error`] with frame `f` of the source compared to frame `frame(f)` of the
/// conversion, for a conversion that holds the clips in another order
/// ([`frames_by_clip`]).
#[must_use]
pub fn skinning_error_with(
    source: Posed<'_, '_>,
    converted: Posed<'_, '_>,
    frame: impl Fn(usize) -> usize + Sync,
) -> SkinningError {
    let (source_frames, converted_frames) = (Frames::new(source), Frames::new(converted));
    let base = source_frames.points(None);
    let (lo, hi) = bounds(&base);
    // A model without vertices (tags alone) has no size: errors are then 0 of 0.
    let size = Some((hi - lo).length())
        .filter(|s| s.is_finite())
        .map_or(f32::MIN_POSITIVE, |s| s.max(f32::MIN_POSITIVE));
    let frames = source.num_frames();
    // Frames are measured in parallel, then summed in frame order: the same figures on any
    // number of threads.
    let per_frame: Vec<(f32, f64, usize)> = (0..frames.max(1))
        .into_par_iter()
        .map(|f| {
            let (a, b) = if frames == 0 {
                (base.clone(), converted_frames.points(None))
            } else {
                (
                    source_frames.points(Some(f)),
                    converted_frames.points(Some(frame(f))),
                )
            };
            if a.is_empty() || b.is_empty() {
                return (f32::from(u8::from(a.len() != b.len())) * size, 0.0, 0);
            }
            let (mut max, mut sum, mut count) = (0.0f32, 0.0f64, 0usize);
            for d in nearest_distances(&a, &b)
                .into_iter()
                .chain(nearest_distances(&b, &a))
            {
                max = max.max(d);
                sum += f64::from(d) * f64::from(d);
                count += 1;
            }
            (max, sum, count)
        })
        .collect();
    let (max, sum, count) = per_frame
        .iter()
        .fold((0.0f32, 0.0f64, 0usize), |(m, s, c), &(fm, fs, fc)| {
            (m.max(fm), s + fs, c + fc)
        });
    SkinningError {
        max: max / size,
        rms: ((sum / count.max(1) as f64).sqrt() as f32) / size,
        size,
        frames: frames.max(1),
        vertices: base.len(),
    }
}

/// Where each frame of `source` lies in `converted` when the conversion holds the same clips
/// in another order: an MD5 mesh reads the animations beside it in the order of their file
/// names, one a clip, named as the MD5 writer names them (characters other than letters,
/// digits, `-` and `_` made `_`; the second clip of a name `name_2`, the third `name_3`).
/// `None` when the source's clips do not cover its frames one after another, or a clip is
/// missing from `converted` or of another length.
#[must_use]
pub fn frames_by_clip(source: Posed<'_, '_>, converted: &Model<'_>) -> Option<Vec<usize>> {
    let clips: Vec<(String, usize)> = match source {
        Posed::Model(m) => {
            let mut next = 0;
            let mut out = Vec::new();
            for c in m.clips() {
                (c.first as usize == next).then_some(())?;
                next += c.count as usize;
                out.push((c.name.clone(), c.count as usize));
            }
            (next == m.num_frames()).then_some(out)?
        }
        Posed::Asset(a) => a.clips.iter().map(|c| (c.name.clone(), c.len())).collect(),
    };
    let clean = |name: &str| -> String {
        name.chars()
            .map(|c| {
                if c.is_alphanumeric() || matches!(c, '_' | '-') {
                    c
                } else {
                    '_'
                }
            })
            .collect()
    };
    let mut seen: Vec<String> = Vec::new();
    let mut map = Vec::new();
    for (name, len) in clips {
        let base = clean(&name);
        let repeats = seen
            .iter()
            .filter(|n| n.eq_ignore_ascii_case(&base))
            .count();
        seen.push(base.clone());
        let written = match repeats {
            0 => base,
            n => format!("{base}_{}", n + 1),
        };
        let clip = converted.clip(&written)?;
        (clip.count as usize == len).then_some(())?;
        map.extend((0..len).map(|k| clip.first as usize + k));
    }
    Some(map)
}

/// For each point of `from`, the distance to the nearest point of `to` (not empty): looked
/// up in a grid of `to` where the nearest point lies within [`Grid::RINGS`] cells of the
/// point's own (a conversion that kept its points near where they were), else in a k-d tree
/// of `to`, built on the first point the grid leaves, as fast for a conversion that moved
/// points far as for one that kept them in place. Either finds the distance bit for bit.
/// Where a cell is crowded, points of `to` at one place are looked up as one: a cell of
/// thousands of coincident points (a glTF's copies of one mesh, each its own node) would cost
/// each look-up all of them. Only then, as the sort that finds them costs more than the grid.
fn nearest_distances(from: &[Vec3A], to: &[Vec3A]) -> Vec<f32> {
    let mut grid = Grid::new(to);
    let mut distinct = Vec::new();
    if grid.as_ref().is_some_and(Grid::crowded) {
        let bits = |p: &Vec3A| p.to_array().map(f32::to_bits);
        distinct = to.to_vec();
        distinct.sort_unstable_by_key(bits);
        distinct.dedup_by_key(|p| bits(p));
        grid = Grid::new(&distinct);
    }
    let to = if distinct.is_empty() { to } else { &distinct };
    let mut tree: Option<KdTree> = None;
    from.iter()
        .map(|&p| match grid.as_ref().and_then(|g| g.nearest(p)) {
            Some(d) => d,
            None => tree.get_or_insert_with(|| KdTree::new(to)).nearest(p),
        })
        .collect()
}

/// The smallest and largest coordinates of `points` along each axis (infinite, the wrong
/// way round, for none).
fn bounds(points: &[Vec3A]) -> (Vec3A, Vec3A) {
    points.iter().fold(
        (Vec3A::splat(f32::INFINITY), Vec3A::splat(f32::NEG_INFINITY)),
        |(min, max), p| (min.min(*p), max.max(*p)),
    )
}

/// Points sorted into a grid of cells over their bounds, about [`Grid::CELLS_PER_POINT`]
/// cells a point (most of them empty: a model's vertices lie on its surfaces), cells in
/// rows along `x`, rows in layers along `y`.
struct Grid {
    min: Vec3A,
    /// Cells per unit along each axis (0 along an axis of one cell).
    scale: Vec3A,
    /// A cell's edge along each axis (0 along an axis of one cell).
    edge: Vec3A,
    dims: [usize; 3],
    /// Per cell, where its points start in `points`; one more entry ends the last cell.
    starts: Vec<u32>,
    points: Vec<Vec3A>,
    /// What a bound on the distance to a cell leaves for the rounding of the cell a point
    /// falls in: the bound is trusted only that far short of it.
    slack: f32,
}

impl Grid {
    const CELLS_PER_POINT: usize = 8;
    /// Points in one cell past which a look-up's walk of them outweighs finding the points
    /// at one place ([`nearest_distances`]).
    const CROWDED: u32 = 64;
    const MAX_CELLS: usize = 1 << 22;
    /// Cells along an axis at most.
    const MAX_DIM: usize = 1024;
    /// The rings of cells around a point's own searched before the k-d tree is.
    const RINGS: usize = 2;
    /// Fewer points than this are searched in the k-d tree.
    const MIN_POINTS: usize = 64;

    /// The grid of `points`; `None` for too few points, or bounds that are not finite or
    /// span no space.
    /// Whether a cell holds more than [`Grid::CROWDED`] points.
    fn crowded(&self) -> bool {
        self.starts
            .windows(2)
            .any(|w| w[1].saturating_sub(w[0]) > Self::CROWDED)
    }

    fn new(points: &[Vec3A]) -> Option<Grid> {
        if points.len() < Self::MIN_POINTS || u32::try_from(points.len()).is_err() {
            return None;
        }
        let (min, max) = bounds(points);
        let extent = max - min;
        let largest = extent.max_element();
        if !(extent.is_finite() && largest > 0.0) {
            return None;
        }
        // Cells near cubes; an axis the points spread along less than a cell's worth is one
        // cell thick.
        let flat = largest / Self::MAX_DIM as f32;
        let cells = (points.len() * Self::CELLS_PER_POINT).min(Self::MAX_CELLS);
        let side = (extent.max(Vec3A::splat(flat)).element_product() / cells as f32).cbrt();
        let dims = [0, 1, 2].map(|a| {
            let d = (extent[a] / side).ceil();
            if extent[a] <= flat || !d.is_finite() {
                1
            } else {
                (d as usize).clamp(1, Self::MAX_DIM)
            }
        });
        let along = |a: usize, one: f32, many: f32| if dims[a] == 1 { one } else { many };
        let scale = Vec3A::from_array([0, 1, 2].map(|a| along(a, 0.0, dims[a] as f32 / extent[a])));
        let edge = Vec3A::from_array([0, 1, 2].map(|a| along(a, 0.0, extent[a] / dims[a] as f32)));
        let total = dims[0] * dims[1] * dims[2];
        let mut grid = Grid {
            min,
            scale,
            edge,
            dims,
            starts: vec![0; total + 1],
            points: vec![Vec3A::ZERO; points.len()],
            slack: largest * 4e-6,
        };
        // A counting sort: each cell's count, their running sums (where each cell ends),
        // then each point put before its cell's end.
        let ids: Vec<u32> = points.iter().map(|&p| grid.cell(p) as u32).collect();
        for &id in &ids {
            grid.starts[id as usize] += 1;
        }
        let mut sum = 0;
        for start in &mut grid.starts {
            sum += *start;
            *start = sum;
        }
        for (&id, &p) in ids.iter().zip(points) {
            let end = &mut grid.starts[id as usize];
            *end -= 1;
            grid.points[*end as usize] = p;
        }
        Some(grid)
    }

    /// The cell `p` falls in, as coordinates: a point outside the bounds (or not finite)
    /// in the nearest cell along each axis.
    fn coordinates(&self, p: Vec3A) -> [usize; 3] {
        let at = (p - self.min) * self.scale;
        // `as` takes a negative value or NaN to 0 and a large one to the largest. (Written
        // out: an array's `map` is not inlined here, and this runs for every point.)
        let [x, y, z] = self.dims;
        [
            (at.x as usize).min(x - 1),
            (at.y as usize).min(y - 1),
            (at.z as usize).min(z - 1),
        ]
    }

    fn cell(&self, p: Vec3A) -> usize {
        let [x, y, z] = self.coordinates(p);
        (z * self.dims[1] + y) * self.dims[0] + x
    }

    /// Lowers `best`, a squared distance, to that of the nearest point in cells `x` of row
    /// `y` of layer `z` (one run of points, the row's cells being in order).
    fn scan(
        &self,
        p: Vec3A,
        x: core::ops::RangeInclusive<usize>,
        y: usize,
        z: usize,
        best: &mut f32,
    ) {
        let row = (z * self.dims[1] + y) * self.dims[0];
        let (lo, hi) = (self.starts[row + x.start()], self.starts[row + x.end() + 1]);
        for q in &self.points[lo as usize..hi as usize] {
            *best = best.min(p.distance_squared(*q));
        }
    }

    /// The distance from `p` to the nearest point, when it lies within [`Grid::RINGS`] cells
    /// of `p`'s own (as the cells a point falls in are rounded): each ring of cells around
    /// `p`'s searched until the nearest point found is nearer than any the next ring can hold.
    fn nearest(&self, p: Vec3A) -> Option<f32> {
        let c = self.coordinates(p);
        // How far `p` lies inside its cell from its nearer wall along each axis with walls.
        let wall = |a: usize| {
            let lo = self.min[a] + c[a] as f32 * self.edge[a];
            (p[a] - lo).min(lo + self.edge[a] - p[a]).max(0.0)
        };
        // Infinite along an axis of one cell, whose edge is 0.
        let along = |a: usize| {
            if self.dims[a] > 1 {
                wall(a)
            } else {
                f32::INFINITY
            }
        };
        let walls = Vec3A::new(along(0), along(1), along(2));
        let mut best = f32::INFINITY;
        self.scan(p, c[0]..=c[0], c[1], c[2], &mut best);
        for r in 1..=Self::RINGS + 1 {
            // Every point of ring `r` or further lies at least this far along some axis.
            let reach = (self.edge * (r - 1) as f32 + walls).min_element() - self.slack;
            if reach > 0.0 && best <= reach * reach {
                return Some(best.sqrt());
            }
            if r > Self::RINGS {
                return None;
            }
            let lo = [0, 1, 2].map(|a| c[a].saturating_sub(r));
            let hi = [0, 1, 2].map(|a| (c[a] + r).min(self.dims[a] - 1));
            for z in lo[2]..=hi[2] {
                for y in lo[1]..=hi[1] {
                    if z.abs_diff(c[2]) == r || y.abs_diff(c[1]) == r {
                        self.scan(p, lo[0]..=hi[0], y, z, &mut best);
                        continue;
                    }
                    // Inside the ring's faces along y and z: its two ends along x.
                    for x in [c[0].checked_sub(r), Some(c[0] + r)] {
                        if let Some(x) = x.filter(|&x| x < self.dims[0]) {
                            self.scan(p, x..=x, y, z, &mut best);
                        }
                    }
                }
            }
            // The ring reached every cell: nothing is further.
            if (0..3).all(|a| c[a] <= r && c[a] + r + 1 >= self.dims[a]) {
                return Some(best.sqrt());
            }
        }
        None
    }
}

/// Points in a k-d tree laid out in place: in each range of more than [`KdTree::LEAF`]
/// points, the median along the axis the range spreads widest sits at the range's middle,
/// the points before it not above it along that axis and those after not below.
struct KdTree {
    points: Vec<Vec3A>,
    /// Per split, at its median's index: the axis (0, 1 or 2).
    axes: Vec<u8>,
}

impl KdTree {
    /// Ranges this small are searched point by point.
    const LEAF: usize = 8;

    fn new(points: &[Vec3A]) -> KdTree {
        let mut tree = KdTree {
            points: points.to_vec(),
            axes: vec![0; points.len()],
        };
        // Ranges still to split; their depth is the tree's, about log₂ of the points.
        let mut ranges = vec![(0, points.len())];
        while let Some((lo, hi)) = ranges.pop() {
            if hi - lo <= Self::LEAF {
                continue;
            }
            let range = &mut tree.points[lo..hi];
            let (min, max) = bounds(range);
            let spread = max - min;
            let axis = if spread.x >= spread.y && spread.x >= spread.z {
                0
            } else if spread.y >= spread.z {
                1
            } else {
                2
            };
            let mid = (hi - lo) / 2;
            range.select_nth_unstable_by(mid, |a, b| a[axis].total_cmp(&b[axis]));
            tree.axes[lo + mid] = axis as u8;
            ranges.push((lo, lo + mid));
            ranges.push((lo + mid + 1, hi));
        }
        tree
    }

    /// The distance from `p` to the nearest point (infinite for no points).
    fn nearest(&self, p: Vec3A) -> f32 {
        let mut best = f32::INFINITY;
        self.search(p, 0, self.points.len(), &mut best);
        best.sqrt()
    }

    /// Lowers `best`, a squared distance, to that of the nearest point of `lo..hi` to `p`:
    /// the side of each split `p` lies on first, the other only if the split's plane is
    /// nearer than the best found.
    fn search(&self, p: Vec3A, lo: usize, hi: usize, best: &mut f32) {
        if hi - lo <= Self::LEAF {
            for q in &self.points[lo..hi] {
                *best = best.min(p.distance_squared(*q));
            }
            return;
        }
        let mid = lo + (hi - lo) / 2;
        let q = self.points[mid];
        *best = best.min(p.distance_squared(q));
        let axis = usize::from(self.axes[mid]);
        let across = p[axis] - q[axis];
        let (near, far) = if across < 0.0 {
            ((lo, mid), (mid + 1, hi))
        } else {
            ((mid + 1, hi), (lo, mid))
        };
        self.search(p, near.0, near.1, best);
        if across * across < *best {
            self.search(p, far.0, far.1, best);
        }
    }
}

/// How far a converted model's attachment points lie from the source's, matched by name,
/// over every frame ([`attachment_error`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AttachmentError {
    /// The source's attachment points.
    pub source: usize,
    /// How many of them the conversion has (by name).
    pub kept: usize,
    /// The largest distance between matched origins, in model units.
    pub origin: f32,
    /// The largest angle between matched axes, in radians.
    pub angle: f32,
    /// Frames compared.
    pub frames: usize,
}

impl core::fmt::Display for AttachmentError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "{} of {} kept; origins within {:.3e} units and axes within {:.3}° over {} frames",
            self.kept,
            self.source,
            self.origin,
            self.angle.to_degrees(),
            self.frames
        )
    }
}

/// The attachment points of `source` (bones flagged as attachments, IQM and MS3D joints, MD3
/// tags: [`Model::attachments`]) against those of `converted` with the same names (each taken
/// once; a name the source holds several times matched in order, or by the number
/// [`Model::to_asset`] gives the second and later), frame by
/// frame (frame `f` of the source is frame `f + offset` of the conversion), each placed by
/// [`Model::attachment_transform`] and turned to `+Y` up, as the vertices are compared (a
/// conversion between a `+Y`-up and a `+Z`-up format turns its joints): the largest distance
/// between origins and the largest angle between each of the three axes. `None` when the
/// source has no attachment point.
///
/// ```
/// use skelmap_core::{Model, md3, model::convert};
/// let bytes = md3::Builder::triangle().write();
/// let source = Model::from_bytes(&bytes)?;
/// let asset = convert::asset_of(&source)?;
/// let written = md3::Builder::from_asset(&asset, false)?.builder.write();
/// let error = convert::attachment_error(&source, &Model::from_bytes(&written)?, 0);
/// let error = error.ok_or("tag_weapon")?;
/// assert_eq!((error.kept, error.origin, error.angle), (1, 0.0, 0.0));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn attachment_error(
    source: &Model<'_>,
    converted: &Model<'_>,
    offset: usize,
) -> Option<AttachmentError> {
    attachment_error_with(source, converted, |f| f + offset)
}

/// [`attachment_error`] with frame `f` of the source compared to frame `frame(f)` of the
/// conversion, for a conversion that holds the clips in another order
/// ([`frames_by_clip`]), as [`skinning_error_with`] measures its vertices.
///
/// ```
/// use skelmap_core::{Model, md3, model::convert};
/// let mut builder = md3::Builder::triangle();
/// builder.frames.push(builder.frames[0].clone());
/// let still = builder.surfaces[0].frames[0].clone();
/// builder.surfaces[0].frames.push(still);
/// let mut moved = builder.tags[0].clone();
/// moved[0].origin[2] += 4.0;
/// builder.tags.push(moved);
/// let bytes = builder.write();
/// let source = Model::from_bytes(&bytes)?;
/// // The same two frames, stored the other way round.
/// builder.tags.swap(0, 1);
/// let swapped_bytes = builder.write();
/// let swapped = Model::from_bytes(&swapped_bytes)?;
/// let error = convert::attachment_error_with(&source, &swapped, |f| 1 - f);
/// assert_eq!(error.map(|e| (e.kept, e.origin)), Some((1, 0.0)));
/// let error = convert::attachment_error(&source, &swapped, 0);
/// assert!(error.is_some_and(|e| (e.origin - 4.0).abs() < 1e-5));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn attachment_error_with(
    source: &Model<'_>,
    converted: &Model<'_>,
    frame: impl Fn(usize) -> usize,
) -> Option<AttachmentError> {
    // Names as text, each model's in its own code page: a conversion may store them in
    // another (`convert --names`).
    let text = |m: &Model<'_>| -> Vec<String> {
        let page = m.code_page();
        m.attachments()
            .map(|a| page.decode(a.name).into_owned())
            .collect()
    };
    let names = text(source);
    if names.is_empty() {
        return None;
    }
    // The converted attachments by name, each taken once: the `k`-th of a name the source
    // holds several times (Half-Life's unnamed attachments, all `attachment`) is the `k`-th
    // of that name, or the joint `Model::to_asset` numbered `<name><k>` for it.
    let mut by_name: std::collections::HashMap<String, Vec<usize>> = Default::default();
    for (j, name) in text(converted).into_iter().enumerate() {
        by_name.entry(name).or_default().push(j);
    }
    let mut seen: std::collections::HashMap<&str, usize> = Default::default();
    let mut taken = vec![false; converted.num_attachments()];
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let k = seen.entry(name).or_insert(0);
        *k += 1;
        let numbered = format!("{name}{k}");
        let found = [name, &numbered]
            .into_iter()
            .filter_map(|n| by_name.get(n))
            .flatten()
            .copied()
            .find(|&j| !taken[j]);
        if let Some(j) = found {
            taken[j] = true;
            pairs.push((i, j));
        }
    }
    let frames = source.num_frames().max(1);
    let turn = |m: &Model<'_>| glam::Affine3A::from_quat(m.conventions().up.to_y_up());
    let (turn_source, turn_converted) = (turn(source), turn(converted));
    let (mut origin, mut angle) = (0.0f32, 0.0f32);
    let (mut a, mut b) = (super::Pose::default(), super::Pose::default());
    for f in 0..frames {
        let posed = |m: &Model<'_>, frame: usize, pose: &mut super::Pose| {
            if m.num_frames() == 0 {
                m.pose_bind(pose);
                true
            } else {
                let interpolation = crate::pose::Interpolation::Nlerp;
                m.pose(frame, frame, 0.0, interpolation, pose).is_ok()
            }
        };
        if !(posed(source, f, &mut a) && posed(converted, frame(f), &mut b)) {
            continue;
        }
        for &(i, j) in &pairs {
            let (Ok(x), Ok(y)) = (
                source.attachment_transform(i, &a),
                converted.attachment_transform(j, &b),
            ) else {
                continue;
            };
            let (x, y) = (turn_source * x, turn_converted * y);
            origin = origin.max(x.translation.distance(y.translation));
            for (p, q) in [
                (x.matrix3.x_axis, y.matrix3.x_axis),
                (x.matrix3.y_axis, y.matrix3.y_axis),
                (x.matrix3.z_axis, y.matrix3.z_axis),
            ] {
                angle = angle.max(angle_between(p, q));
            }
        }
    }
    Some(AttachmentError {
        source: names.len(),
        kept: pairs.len(),
        origin,
        angle,
        frames,
    })
}

/// The angle between `p` and `q` (0 for a zero vector), as `atan2(|p × q|, p · q)`: exact to
/// a few ulps at any angle, where `acos` of the normalised dot product cannot tell apart two
/// directions closer than about 3.5·10⁻⁴ rad (0.02°) in `f32`, the step of `acos` below 1.
fn angle_between(p: Vec3A, q: Vec3A) -> f32 {
    p.cross(q).length().atan2(p.dot(q))
}

#[cfg(test)]
mod tests {
    use glam::Vec3A;

    use super::{Frames, Grid, Posed, angle_between, nearest_distances};

    /// A measurement's points, deformed and picked, are those of the asset `to_asset` builds
    /// at the same frame, bit for bit and in order: for a tube written by every writer (its
    /// frames baked for those without joints), at the bind pose, the first frame and the
    /// last. Welded vertices (DPM, IQM, MD3 …), corners unwelded by their texture
    /// coordinates (MD2, Quake and GameStudio MDL, MDL7), Half-Life's studio meshes, each
    /// keeping the vertices its triangles use, and MS3D's corners told apart by their posed
    /// normals take the picks.
    #[test]
    fn measured_points_are_the_assets() {
        use crate::{Format, Model, asset::WriteOptions, synth};
        let bytes = synth::tube(&synth::TubeParams::default()).write().unwrap();
        let asset = super::asset_of(&Model::from_bytes(&bytes).unwrap()).unwrap();
        // The tube twice, of two materials: Half-Life's one model of two studio meshes.
        let mut two = asset.clone();
        let mut material = two.materials[0].clone();
        material.name.push('2');
        two.materials.push(material);
        let mut second = two.meshes[0].clone();
        second.material = Some(1);
        second.positions.iter_mut().for_each(|p| p[0] += 50.0);
        two.meshes.push(second);
        let (mut picked, mut general) = (Vec::new(), Vec::new());
        let formats = Format::ALL.iter().filter(|f| f.writable());
        for (format, asset) in formats.flat_map(|&f| [(f, &asset), (f, &two)]) {
            let Ok(written) = crate::model::write(format, asset, &WriteOptions::bake(true)) else {
                continue;
            };
            // Formats of one file: the others are opened through their companions.
            let Ok(model) = Model::from_bytes(&written.files[0].bytes) else {
                continue;
            };
            let frames = Frames::new(Posed::Model(&model));
            let last = model.num_frames().saturating_sub(1);
            for frame in [None, Some(0), Some(last)] {
                let want = Posed::Model(&model).points(frame);
                let got = frames.points(frame);
                assert!(!want.is_empty(), "{format:?}");
                let bits = |p: &[Vec3A]| -> Vec<[u32; 3]> {
                    p.iter().map(|v| v.to_array().map(f32::to_bits)).collect()
                };
                assert_eq!(bits(&got), bits(&want), "{format:?} at {frame:?}");
            }
            match frames.picks {
                Some(_) => picked.push(format),
                None => general.push(format),
            }
        }
        for format in [
            Format::Dpm,
            Format::Iqm,
            Format::Md2,
            Format::Md3,
            Format::Hl1,
            Format::Ms3d,
        ] {
            assert!(picked.contains(&format), "{format:?}: {picked:?}");
        }
        assert_eq!(general, []);
        let hl1 = crate::model::write(Format::Hl1, &two, &WriteOptions::default()).unwrap();
        let hl1 = Model::from_bytes(&hl1.files[0].bytes).unwrap();
        assert_eq!(hl1.mesh(0).map(|m| m.submeshes().count()), Some(2));
    }

    /// An MS3D folded along a hard edge: two triangles share vertices 0 and 2 with the same
    /// texture coordinates and different corner normals, so each of those vertices is two
    /// asset vertices (rivals) that only their posed normals tell apart. A joint turns it;
    /// the picks hold at every frame and give the asset's points bit for bit.
    #[test]
    fn corners_told_apart_by_their_normals_are_picked_as_the_asset_has_them() {
        use crate::ms3d::{Builder, GroupDef, JointDef, write::triangle};
        let builder = Builder {
            vertices: vec![
                ([0.0, 0.0, 0.0], 0),
                ([1.0, 0.0, 0.0], 0),
                ([0.0, 1.0, 0.0], 0),
                ([0.0, 0.0, 1.0], 0),
            ],
            triangles: vec![
                triangle(
                    [0, 1, 2],
                    [0.0, 0.0, 1.0],
                    [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]],
                    0,
                ),
                triangle(
                    [0, 2, 3],
                    [1.0, 0.0, 0.0],
                    [[0.0, 0.0], [0.0, 1.0], [1.0, 1.0]],
                    0,
                ),
            ],
            groups: vec![GroupDef {
                name: b"fold".to_vec(),
                triangles: vec![0, 1],
                material: -1,
            }],
            keyframer: (4.0, 0.0, 4),
            joints: vec![JointDef {
                name: b"root".to_vec(),
                rotation_keys: (0..4)
                    .map(|k| (k as f32 / 4.0, [0.3 * k as f32, 0.2, 0.0]))
                    .collect(),
                ..JointDef::default()
            }],
            ..Builder::default()
        };
        let bytes = builder.write().unwrap();
        let model = crate::Model::from_bytes(&bytes).unwrap();
        let frames = Frames::new(Posed::Model(&model));
        let picks = frames.picks.as_ref().unwrap();
        assert_eq!(picks[0].vertices, [0, 1, 2, 0, 2, 3]);
        assert!(picks[0].by_corner_normals());
        for frame in (0..model.num_frames()).map(Some).chain([None]) {
            let bits = |p: &[Vec3A]| -> Vec<[u32; 3]> {
                p.iter().map(|v| v.to_array().map(f32::to_bits)).collect()
            };
            let want = Posed::Model(&model).points(frame);
            assert_eq!(want.len(), 6);
            assert_eq!(bits(&frames.points(frame)), bits(&want), "{frame:?}");
        }
    }

    /// The angle is exact where `acos` reads 0 or its first step: a turn of 10⁻⁵ rad, equal
    /// directions, opposite ones and a zero vector.
    #[test]
    fn angles_are_exact_below_the_step_of_acos() {
        let x = Vec3A::X;
        let turned = Vec3A::new(1e-5f32.cos(), 1e-5f32.sin(), 0.0);
        assert!((angle_between(x, turned) - 1e-5).abs() < 1e-11);
        assert_eq!(x.angle_between(turned), 0.0, "acos cannot see it");
        assert_eq!(angle_between(x, 2.0 * x), 0.0);
        assert_eq!(angle_between(x, -x), core::f32::consts::PI);
        assert_eq!(angle_between(Vec3A::ZERO, x), 0.0);
    }

    /// The k-d tree finds what looking at every point finds, bit for bit: points near each
    /// other, far apart and far from all, and points repeated on a split.
    #[test]
    fn the_tree_search_finds_the_nearest_point() {
        let mut state = 0x1234_5678u32;
        let mut next = move || {
            state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (state >> 8) as f32 / (1u32 << 24) as f32 * 2.0 - 1.0
        };
        let mut to: Vec<Vec3A> = (0..400)
            .map(|_| Vec3A::new(next(), next(), next()) * 50.0)
            .collect();
        to.extend([Vec3A::new(1.0, 2.0, 3.0); 20]);
        let mut from: Vec<Vec3A> = Vec::new();
        for (k, q) in to.iter().enumerate() {
            let spread = [0.01, 0.5, 3.0, 9.0, 40.0][k % 5];
            from.push(*q + Vec3A::new(next(), next(), next()) * spread);
        }
        from.extend([Vec3A::splat(500.0), Vec3A::new(1.0, 2.0, 3.5)]);
        assert_exact(&from, &to);
    }

    /// Thousands of points at each of three places (a glTF's copies of one triangle, each
    /// its own node) are looked up as three: every distance is the nearest place's, and a
    /// look-up does not go through every copy (quadratic in the copies).
    #[test]
    fn coincident_points_are_looked_up_once() {
        let places = [Vec3A::ZERO, Vec3A::X, Vec3A::Y];
        let to: Vec<Vec3A> = (0..60_000).map(|k| places[k % 3]).collect();
        let mut from = to.clone();
        from.extend([Vec3A::new(0.5, 0.0, 0.0), Vec3A::new(3.0, 4.0, 0.0)]);
        let got = nearest_distances(&from, &to);
        assert!(got[..60_000].iter().all(|&d| d == 0.0));
        assert_eq!(got[60_000], 0.5);
        assert_eq!(got[60_001], Vec3A::new(3.0, 4.0, 0.0).distance(Vec3A::Y));
        assert_exact(&from[59_990..], &places);
    }

    /// Each distance is what looking at every point of `to` finds, bit for bit.
    fn assert_exact(from: &[Vec3A], to: &[Vec3A]) {
        let got = nearest_distances(from, to);
        for (p, d) in from.iter().zip(got) {
            let want = to
                .iter()
                .map(|q| p.distance(*q))
                .fold(f32::INFINITY, f32::min);
            assert_eq!(d.to_bits(), want.to_bits(), "{p}");
        }
    }

    /// The grid answers what it can and leaves the rest to the tree, with the same distances
    /// as looking at every point: a flat sheet of points (one cell thick along `z`) and the
    /// same points moved a little, a lot and onto the cells' walls; points outside the
    /// bounds; points repeated; a point not finite.
    #[test]
    fn the_grid_finds_the_nearest_point() {
        let sheet: Vec<Vec3A> = (0..40)
            .flat_map(|i| (0..30).map(move |j| Vec3A::new(i as f32 * 0.37, j as f32 * 0.61, 0.0)))
            .collect();
        let grid = Grid::new(&sheet).expect("a grid of 1,200 points");
        assert_eq!(grid.dims[2], 1);
        assert!(grid.dims[0] > 1 && grid.dims[1] > 1);
        let mut from = Vec::new();
        for (k, q) in sheet.iter().enumerate() {
            let step = [0.0, 1e-6, 0.05, 0.3, 2.0, 40.0][k % 6];
            from.push(*q + Vec3A::new(step, -step * 0.5, step * 0.25));
        }
        // On the walls between cells, and outside the bounds on every side.
        for a in 0..3 {
            for c in 0..grid.dims[a] {
                let mut p = sheet[17];
                p[a] = grid.min[a] + c as f32 * grid.edge[a];
                from.push(p);
            }
        }
        from.extend([Vec3A::splat(-7.0), Vec3A::new(20.0, 30.0, 5.0), Vec3A::NAN]);
        let mut to = sheet.clone();
        to.extend([sheet[5]; 9]);
        assert_exact(&from, &to);
        // Points in every direction around a cloud of them.
        let cloud: Vec<Vec3A> = (0..512)
            .map(|k| Vec3A::new((k % 8) as f32, (k / 8 % 8) as f32, (k / 64) as f32) * 1.5)
            .collect();
        let around: Vec<Vec3A> = (0..2000)
            .map(|k| {
                let t = k as f32 * 0.618;
                Vec3A::new(t.sin(), (t * 1.3).cos(), (t * 0.7).sin()) * (k % 23) as f32
                    + Vec3A::splat(5.0)
            })
            .collect();
        assert_exact(&around, &cloud);
    }
}
