//! The morph kernel: unpack two frames of packed vertices and tween them.
//!
//! Vertex-animated formats (Quake's MDL, GameStudio's MDL, MD2, MD3, MDC) store every frame as
//! packed integer coordinates and an index into a table of unit normals. The kernel computes
//! `position = scale · (a + t · (b − a)) + offset` per coordinate, with `a`, `b` the packed
//! coordinates of the two frames, and blends the two frames' table normals by `t` and
//! renormalises them.
//!
//! [`tween_scalar`] is the reference, one vertex at a time. [`tween_simd`] runs the widest
//! `std::arch` kernel the CPU has (AVX-512 on 16 vertices at a time, AVX2 on 8; see
//! `morph/x86.rs`), [`tween_with_level`] a chosen one. They agree with the reference within 1e-6
//! (tested on every corpus frame), and `cargo bench --bench morph` compares them.
//!
//! The kernel knows no format: a format hands it [`PackedFrame`]s (byte views of its records)
//! and its [`NormalTable`]. Records of signed 16-bit coordinates with a normal stored as
//! latitude and longitude bytes (Quake III's MD3) are [`PackedFrame::LatLong`]: their table is
//! [`LAT_LONG`], the cosine and sine of each byte's angle, and the kernels decode the normal in
//! the same pass as the blend.

use super::SimdLevel;

#[cfg(target_arch = "x86_64")]
mod x86;

/// Why a tween could not run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum MorphError {
    /// A frame index past the model's frames.
    #[error("frame {0} does not exist")]
    NoFrame(usize),
    /// Two frames of different packings, one of them [`PackedFrame::LatLong`] (whose normals
    /// mean something else).
    #[error("the two frames are packed differently")]
    Mixed,
    /// A mesh index past the model's meshes.
    #[error("mesh {0} does not exist")]
    NoMesh(usize),
    /// An output slice shorter than the model's vertex count.
    #[error("output holds {have} vertices; the model has {need}")]
    Output {
        /// Vertices the model has.
        need: usize,
        /// Vertices the output holds.
        have: usize,
    },
}

/// One frame's packed vertices, as the kernels read them.
#[derive(Debug, Clone, Copy)]
pub enum PackedFrame<'a> {
    /// Per vertex `[x, y, z, normal]`, one byte each (Quake's `trivertx_t`).
    Bytes(&'a [[u8; 4]]),
    /// Per vertex three little-endian `u16` coordinates, the normal byte and a pad byte.
    Words(&'a [[u8; 8]]),
    /// Per vertex three little-endian `i16` coordinates and a little-endian `u16` normal:
    /// latitude in the high byte, longitude in the low byte (Quake III's `md3XyzNormal_t`),
    /// unpacked with the [`LAT_LONG`] table.
    LatLong(&'a [LatLongVertex]),
}

/// A vertex of a [`PackedFrame::LatLong`]: `[x, y, z, normal]` as little-endian 16-bit words,
/// the coordinates signed.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    zerocopy::FromBytes,
    zerocopy::IntoBytes,
    zerocopy::KnownLayout,
    zerocopy::Immutable,
    zerocopy::Unaligned,
)]
#[repr(transparent)]
pub struct LatLongVertex(pub [u8; 8]);

impl PackedFrame<'_> {
    /// Number of vertices.
    #[must_use]
    pub fn len(&self) -> usize {
        match self {
            PackedFrame::Bytes(v) => v.len(),
            PackedFrame::Words(v) => v.len(),
            PackedFrame::LatLong(v) => v.len(),
        }
    }

    /// `true` when the frame has no vertices.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The frame without its first `n` vertices (empty when it has no more).
    #[must_use]
    pub fn skip(self, n: usize) -> Self {
        match self {
            PackedFrame::Bytes(v) => PackedFrame::Bytes(v.get(n..).unwrap_or_default()),
            PackedFrame::Words(v) => PackedFrame::Words(v.get(n..).unwrap_or_default()),
            PackedFrame::LatLong(v) => PackedFrame::LatLong(v.get(n..).unwrap_or_default()),
        }
    }
}

/// A table of unit normals padded to 256 rows of `[x, y, z, 0]`, so that any normal byte
/// indexes it without a bounds check (formats validate their indices against their own
/// table's length; the padding rows are zero).
#[derive(Debug, Clone, PartialEq)]
pub struct NormalTable {
    rows: [[f32; 4]; 256],
}

impl NormalTable {
    /// The table of `normals` (at most 256; more are ignored), padded with zero rows.
    #[must_use]
    pub const fn new(normals: &[[f32; 3]]) -> NormalTable {
        let mut rows = [[0.0f32; 4]; 256];
        let mut i = 0;
        while i < normals.len() && i < 256 {
            rows[i] = [normals[i][0], normals[i][1], normals[i][2], 0.0];
            i += 1;
        }
        NormalTable { rows }
    }

    /// The rows, 16 bytes each.
    #[must_use]
    pub fn rows(&self) -> &[[f32; 4]; 256] {
        &self.rows
    }

    /// Entry `index` as `[x, y, z]`.
    #[inline(always)]
    #[must_use]
    pub fn get(&self, index: u8) -> [f32; 3] {
        let [x, y, z, _] = self.rows[usize::from(index)];
        [x, y, z]
    }
}

/// The table of [`PackedFrame::LatLong`] normals: row `i` is `[cos θ, sin θ, 0, 0]` with
/// `θ = i · 2π / 256`. A normal of latitude `a` and longitude `b` is
/// `(cos a · sin b, sin a · sin b, cos b)`.
pub static LAT_LONG: NormalTable = lat_long_table();

/// Builds [`LAT_LONG`]: the sine over the first quarter turn, reflected (so that the table
/// is exactly symmetric), computed in `f64` and rounded once.
const fn lat_long_table() -> NormalTable {
    let mut rows = [[0.0f32; 4]; 256];
    let mut i = 0;
    while i < 256 {
        rows[i] = [sin_turn(i + 64) as f32, sin_turn(i) as f32, 0.0, 0.0];
        i += 1;
    }
    NormalTable { rows }
}

/// `sin(i · 2π / 256)` for any `i`, by the Taylor series on the first quarter turn (exact to
/// `f64` rounding there: the angle is at most π/2).
const fn sin_turn(i: usize) -> f64 {
    let i = i % 256;
    let (quarter, sign) = match i / 64 {
        0 => (i, 1.0),
        1 => (128 - i, 1.0),
        2 => (i - 128, -1.0),
        _ => (256 - i, -1.0),
    };
    let x = quarter as f64 * (core::f64::consts::PI / 128.0);
    // x − x³/3! + x⁵/5! − …, to the 25th power: past f64's precision for x ≤ π/2.
    let (mut term, mut sum, mut k) = (x, x, 1);
    while k < 13 {
        term = -term * x * x / ((2 * k) as f64 * (2 * k + 1) as f64);
        sum += term;
        k += 1;
    }
    sign * sum
}

/// The unit normal a [`PackedFrame::LatLong`] vertex stores as `normal` (latitude in the high
/// byte, longitude in the low): what the kernels compute for it.
///
/// ```
/// use skelmap_core::skin::morph::lat_long_normal;
/// assert_eq!(lat_long_normal(0), [0.0, 0.0, 1.0]); // longitude 0: straight up
/// let n = lat_long_normal(64); // longitude a quarter turn, latitude 0: +X
/// assert!((n[0] - 1.0).abs() < 1e-7 && n[1].abs() < 1e-7 && n[2].abs() < 1e-7);
/// ```
#[must_use]
#[inline(always)]
pub fn lat_long_normal(normal: u16) -> [f32; 3] {
    let [lng, lat] = normal.to_le_bytes();
    LatLongVertex([0, 0, 0, 0, 0, 0, lng, lat]).normal(&LAT_LONG)
}

/// What turns packed coordinates into positions: `scale · packed + offset`, and the normal
/// table the records index.
#[derive(Debug, Clone, Copy)]
pub struct Unpack<'a> {
    /// Per-axis scale.
    pub scale: [f32; 3],
    /// Per-axis offset.
    pub offset: [f32; 3],
    /// The normals the records' normal bytes index.
    pub normals: &'a NormalTable,
}

/// A packed vertex record: its coordinates and its normal (an index into the table, or,
/// for [`LatLongVertex`], decoded from the table of [`LAT_LONG`]).
pub(crate) trait Packed: Copy {
    fn coords(&self) -> [f32; 3];
    fn normal(&self, table: &NormalTable) -> [f32; 3];
}

impl Packed for [u8; 4] {
    #[inline(always)]
    fn coords(&self) -> [f32; 3] {
        [self[0], self[1], self[2]].map(f32::from)
    }
    #[inline(always)]
    fn normal(&self, table: &NormalTable) -> [f32; 3] {
        table.get(self[3])
    }
}

impl Packed for LatLongVertex {
    #[inline(always)]
    fn coords(&self) -> [f32; 3] {
        let s = &self.0;
        [
            i16::from_le_bytes([s[0], s[1]]),
            i16::from_le_bytes([s[2], s[3]]),
            i16::from_le_bytes([s[4], s[5]]),
        ]
        .map(f32::from)
    }
    /// `(cos a · sin b, sin a · sin b, cos b)` from `table`'s rows of latitude `a` (the high
    /// byte) and longitude `b` (the low byte), in the order the SIMD kernels compute it.
    #[inline(always)]
    fn normal(&self, table: &NormalTable) -> [f32; 3] {
        let (lng, lat) = (self.0[6], self.0[7]);
        let ([cos_a, sin_a, ..], [cos_b, sin_b, ..]) =
            (table.rows[usize::from(lat)], table.rows[usize::from(lng)]);
        [cos_a * sin_b, sin_a * sin_b, cos_b]
    }
}

impl Packed for [u8; 8] {
    #[inline(always)]
    fn coords(&self) -> [f32; 3] {
        [
            u16::from_le_bytes([self[0], self[1]]),
            u16::from_le_bytes([self[2], self[3]]),
            u16::from_le_bytes([self[4], self[5]]),
        ]
        .map(f32::from)
    }
    #[inline(always)]
    fn normal(&self, table: &NormalTable) -> [f32; 3] {
        table.get(self[6])
    }
}

/// The two frames checked against the outputs, dispatched once on their packing to a kernel
/// generic over the record types; `$own` says whether each frame has its own grid
/// (`$unpack` is then `[frame a's, frame b's]`).
macro_rules! dispatch {
    ($unpack:expr, $own:expr, $a:expr, $b:expr, $t:expr, $positions:expr, $normals:expr, $kernel:ident) => {{
        let need = $a.len();
        let have = $positions.len().min($normals.len());
        if have < need {
            return Err(MorphError::Output { need, have });
        }
        match ($a, $b) {
            (PackedFrame::Bytes(x), PackedFrame::Bytes(y)) => {
                $kernel::<_, _, { $own }>(x, y, $unpack, $t, $positions, $normals)
            }
            (PackedFrame::Bytes(x), PackedFrame::Words(y)) => {
                $kernel::<_, _, { $own }>(x, y, $unpack, $t, $positions, $normals)
            }
            (PackedFrame::Words(x), PackedFrame::Bytes(y)) => {
                $kernel::<_, _, { $own }>(x, y, $unpack, $t, $positions, $normals)
            }
            (PackedFrame::Words(x), PackedFrame::Words(y)) => {
                $kernel::<_, _, { $own }>(x, y, $unpack, $t, $positions, $normals)
            }
            (PackedFrame::LatLong(x), PackedFrame::LatLong(y)) => {
                $kernel::<_, _, { $own }>(x, y, $unpack, $t, $positions, $normals)
            }
            (PackedFrame::LatLong(_), _) | (_, PackedFrame::LatLong(_)) => {
                return Err(MorphError::Mixed);
            }
        }
        Ok(())
    }};
}

/// `n` scaled to unit length; `+Z` for a zero vector.
#[inline(always)]
pub(crate) fn normalise(n: [f32; 3]) -> [f32; 3] {
    let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
    if len > 0.0 {
        let inv = 1.0 / len;
        n.map(|c| c * inv)
    } else {
        [0.0, 0.0, 1.0]
    }
}

/// Tweens frame `a` towards frame `b` at `t` (0 = `a`, 1 = `b`) into `positions` and
/// `normals`, one vertex at a time (the reference). Vertices past the shorter frame are not
/// written.
///
/// ```
/// use skelmap_core::skin::morph::{NormalTable, PackedFrame, Unpack, tween_scalar};
/// static NORMALS: NormalTable = NormalTable::new(&[[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]);
/// let unpack = Unpack { scale: [0.5; 3], offset: [1.0, 0.0, 0.0], normals: &NORMALS };
/// let (a, b) = ([[0u8, 0, 0, 0]], [[4u8, 8, 0, 1]]);
/// let (mut p, mut n) = ([[0.0; 3]], [[0.0; 3]]);
/// tween_scalar(&unpack, PackedFrame::Bytes(&a), PackedFrame::Bytes(&b), 0.5, &mut p, &mut n)?;
/// assert_eq!(p[0], [2.0, 2.0, 0.0]);
/// assert!((n[0][0] - 0.5f32.sqrt()).abs() < 1e-6);
/// # Ok::<(), skelmap_core::skin::morph::MorphError>(())
/// ```
///
/// # Errors
///
/// [`MorphError::Output`] for an output shorter than frame `a`.
pub fn tween_scalar(
    unpack: &Unpack<'_>,
    a: PackedFrame<'_>,
    b: PackedFrame<'_>,
    t: f32,
    positions: &mut [[f32; 3]],
    normals: &mut [[f32; 3]],
) -> Result<(), MorphError> {
    dispatch!(
        [unpack, unpack],
        false,
        a,
        b,
        t,
        positions,
        normals,
        scalar_kernel
    )
}

/// The scalar kernel: with one grid (`OWN` false, `unpack[0]`),
/// `scale · (a + t · (b − a)) + offset`; with each frame's own (`OWN`),
/// `(1 − t) · (scale_a · a + offset_a) + t · (scale_b · b + offset_b)`, exact at `t` 0 and 1.
fn scalar_kernel<A: Packed, B: Packed, const OWN: bool>(
    fa: &[A],
    fb: &[B],
    [unpack, unpack_b]: [&Unpack<'_>; 2],
    t: f32,
    positions: &mut [[f32; 3]],
    normals: &mut [[f32; 3]],
) {
    let (scale, offset) = (unpack.scale, unpack.offset);
    let (scale_b, offset_b) = (unpack_b.scale, unpack_b.offset);
    let u = 1.0 - t;
    for (((va, vb), p), n) in fa
        .iter()
        .zip(fb)
        .zip(positions.iter_mut())
        .zip(normals.iter_mut())
    {
        let (x, y) = (va.coords(), vb.coords());
        for k in 0..3 {
            p[k] = if OWN {
                let (pa, pb) = (scale[k] * x[k] + offset[k], scale_b[k] * y[k] + offset_b[k]);
                pa * u + pb * t
            } else {
                scale[k] * (x[k] + t * (y[k] - x[k])) + offset[k]
            };
        }
        let (ta, tb) = (va.normal(unpack.normals), vb.normal(unpack.normals));
        *n = normalise(core::array::from_fn(|k| ta[k] + t * (tb[k] - ta[k])));
    }
}

/// As [`tween_scalar`], with the widest `std::arch` kernel this CPU has
/// ([`SimdLevel::detect`]: AVX-512 on 16 vertices at a time, AVX2 on 8), the scalar kernel
/// elsewhere.
///
/// # Errors
///
/// [`MorphError::Output`] for outputs shorter than frame `a`.
pub fn tween_simd(
    unpack: &Unpack<'_>,
    a: PackedFrame<'_>,
    b: PackedFrame<'_>,
    t: f32,
    positions: &mut [[f32; 3]],
    normals: &mut [[f32; 3]],
) -> Result<(), MorphError> {
    tween_with_level(SimdLevel::detect(), unpack, a, b, t, positions, normals)
}

/// [`tween_scalar`] at an explicit level: [`SimdLevel::Portable`] is the scalar kernel, the
/// others their `std::arch` kernels (a level the CPU lacks falls back to the best it has);
/// the vertices past the kernel's last full step go through the scalar kernel (the same
/// operations, so the same bits). Padding them to one more step on the stack was slower on
/// every `morph` and `morph-md3` row, MD3's many small surfaces included.
///
/// ```
/// use skelmap_core::skin::SimdLevel;
/// use skelmap_core::skin::morph::{NormalTable, PackedFrame, Unpack, tween_with_level, tween_scalar};
///
/// let table = NormalTable::new(&[[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]);
/// let unpack = Unpack { scale: [0.5; 3], offset: [1.0; 3], normals: &table };
/// let a: Vec<[u8; 4]> = (0..40u8).map(|i| [i, 2 * i, 3, i % 2]).collect();
/// let b: Vec<[u8; 4]> = (0..40u8).map(|i| [i + 1, i, 9, 0]).collect();
/// let (fa, fb) = (PackedFrame::Bytes(&a), PackedFrame::Bytes(&b));
/// let mut reference = (vec![[0.0; 3]; 40], vec![[0.0; 3]; 40]);
/// tween_scalar(&unpack, fa, fb, 0.25, &mut reference.0, &mut reference.1)?;
/// for level in SimdLevel::ALL {
///     let (mut p, mut n) = (vec![[0.0; 3]; 40], vec![[0.0; 3]; 40]);
///     tween_with_level(level, &unpack, fa, fb, 0.25, &mut p, &mut n)?;
///     for (x, y) in p.iter().flatten().zip(reference.0.iter().flatten()) {
///         assert!((x - y).abs() < 1e-5);
///     }
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
///
/// [`MorphError::Output`] for outputs shorter than frame `a`.
pub fn tween_with_level(
    level: SimdLevel,
    unpack: &Unpack<'_>,
    a: PackedFrame<'_>,
    b: PackedFrame<'_>,
    t: f32,
    positions: &mut [[f32; 3]],
    normals: &mut [[f32; 3]],
) -> Result<(), MorphError> {
    tween_level::<false>(level, [unpack, unpack], a, b, t, positions, normals)
}

/// One frame with the grid that unpacks it, for formats whose every frame has its own scale
/// and offset (Quake II's MD2): its positions are `scale · packed + offset`.
#[derive(Debug, Clone, Copy)]
pub struct Keyframe<'a> {
    /// The packed vertices.
    pub frame: PackedFrame<'a>,
    /// Per-axis scale.
    pub scale: [f32; 3],
    /// Per-axis offset.
    pub offset: [f32; 3],
}

/// Tweens keyframe `a` towards keyframe `b`, each unpacked on its own grid, at `t` (0 = `a`,
/// 1 = `b`) into `positions` and `normals`, one vertex at a time (the reference): each
/// position is `(1 − t) · pa + t · pb` with `pa`, `pb` the two frames' unpacked positions
/// (exactly `pa` at `t` = 0 and `pb` at 1); normals as [`tween_scalar`], from `table`.
///
/// ```
/// use skelmap_core::skin::morph::{Keyframe, NormalTable, PackedFrame, tween_keyframes_scalar};
/// static NORMALS: NormalTable = NormalTable::new(&[[0.0, 0.0, 1.0]]);
/// let (a, b) = ([[2u8, 0, 0, 0]], [[1u8, 0, 0, 0]]);
/// let ka = Keyframe { frame: PackedFrame::Bytes(&a), scale: [1.0; 3], offset: [0.0; 3] };
/// let kb = Keyframe { frame: PackedFrame::Bytes(&b), scale: [4.0; 3], offset: [1.0; 3] };
/// let (mut p, mut n) = ([[0.0; 3]], [[0.0; 3]]);
/// tween_keyframes_scalar(&NORMALS, ka, kb, 0.5, &mut p, &mut n)?; // (2, 0, 0) to (5, 1, 1)
/// assert_eq!(p[0], [3.5, 0.5, 0.5]);
/// # Ok::<(), skelmap_core::skin::morph::MorphError>(())
/// ```
///
/// # Errors
///
/// [`MorphError::Output`] for an output shorter than frame `a`; [`MorphError::Mixed`] for
/// frames of different packings, one of them lat/long.
pub fn tween_keyframes_scalar(
    table: &NormalTable,
    a: Keyframe<'_>,
    b: Keyframe<'_>,
    t: f32,
    positions: &mut [[f32; 3]],
    normals: &mut [[f32; 3]],
) -> Result<(), MorphError> {
    let (ua, ub) = keyframe_grids(table, &a, &b);
    let (fa, fb) = (a.frame, b.frame);
    dispatch!(
        [&ua, &ub],
        true,
        fa,
        fb,
        t,
        positions,
        normals,
        scalar_kernel
    )
}

/// [`tween_keyframes_scalar`] at an explicit level, as [`tween_with_level`]: the `std::arch`
/// kernels compute the same operations in the same order, so the results are the
/// reference's to the bit.
///
/// # Errors
///
/// As [`tween_keyframes_scalar`].
pub fn tween_keyframes_with_level(
    level: SimdLevel,
    table: &NormalTable,
    a: Keyframe<'_>,
    b: Keyframe<'_>,
    t: f32,
    positions: &mut [[f32; 3]],
    normals: &mut [[f32; 3]],
) -> Result<(), MorphError> {
    let (ua, ub) = keyframe_grids(table, &a, &b);
    tween_level::<true>(level, [&ua, &ub], a.frame, b.frame, t, positions, normals)
}

/// The two keyframes' grids, both with `table`.
fn keyframe_grids<'t>(
    table: &'t NormalTable,
    a: &Keyframe<'_>,
    b: &Keyframe<'_>,
) -> (Unpack<'t>, Unpack<'t>) {
    let grid = |k: &Keyframe<'_>| Unpack {
        scale: k.scale,
        offset: k.offset,
        normals: table,
    };
    (grid(a), grid(b))
}

/// The kernels at `level` over the leading full steps, the scalar kernel over the rest; `OWN`
/// as for [`scalar_kernel`].
fn tween_level<const OWN: bool>(
    level: SimdLevel,
    unpack: [&Unpack<'_>; 2],
    a: PackedFrame<'_>,
    b: PackedFrame<'_>,
    t: f32,
    positions: &mut [[f32; 3]],
    normals: &mut [[f32; 3]],
) -> Result<(), MorphError> {
    let level = level.or_supported();
    let need = a.len();
    let have = positions.len().min(normals.len());
    if have < need {
        return Err(MorphError::Output { need, have });
    }
    let n = need.min(b.len());
    let (positions, normals) = (&mut positions[..n], &mut normals[..n]);
    #[cfg(target_arch = "x86_64")]
    let done = if level == SimdLevel::Portable {
        0
    } else {
        simd_head::<OWN>(
            level == SimdLevel::Avx512,
            unpack,
            a,
            b,
            t,
            positions,
            normals,
        )
    };
    #[cfg(not(target_arch = "x86_64"))]
    let done = {
        let _ = level;
        0
    };
    let (p, q) = (&mut positions[done..], &mut normals[done..]);
    let (a, b) = (a.skip(done), b.skip(done));
    dispatch!(unpack, OWN, a, b, t, p, q, scalar_kernel)
}

/// The `std::arch` kernel over the leading full steps; returns the vertices it tweened.
#[cfg(target_arch = "x86_64")]
fn simd_head<const OWN: bool>(
    avx512: bool,
    unpack: [&Unpack<'_>; 2],
    a: PackedFrame<'_>,
    b: PackedFrame<'_>,
    t: f32,
    positions: &mut [[f32; 3]],
    normals: &mut [[f32; 3]],
) -> usize {
    use x86::{BYTES, LAT_LONG, WORDS, try_morph};
    use zerocopy::IntoBytes;
    // The kernel for records of kinds `$ka` and `$kb`, over the bytes `$x` and `$y`.
    macro_rules! run {
        ($ka:ident, $kb:ident, $x:expr, $y:expr) => {
            try_morph::<$ka, $kb, OWN>(avx512, $x, $y, unpack, t, positions, normals)
        };
    }
    match (a, b) {
        (PackedFrame::Bytes(x), PackedFrame::Bytes(y)) => {
            run!(BYTES, BYTES, x.as_flattened(), y.as_flattened())
        }
        (PackedFrame::Bytes(x), PackedFrame::Words(y)) => {
            run!(BYTES, WORDS, x.as_flattened(), y.as_flattened())
        }
        (PackedFrame::Words(x), PackedFrame::Bytes(y)) => {
            run!(WORDS, BYTES, x.as_flattened(), y.as_flattened())
        }
        (PackedFrame::Words(x), PackedFrame::Words(y)) => {
            run!(WORDS, WORDS, x.as_flattened(), y.as_flattened())
        }
        (PackedFrame::LatLong(x), PackedFrame::LatLong(y)) => {
            run!(LAT_LONG, LAT_LONG, x.as_bytes(), y.as_bytes())
        }
        // Mixed packings are refused by the scalar kernel the caller runs next.
        _ => 0,
    }
}

/// The name of the kernel [`tween_simd`] runs on this CPU (`avx512`, `avx2` or `portable`,
/// the scalar kernel).
#[must_use]
pub fn simd_kernel_name() -> &'static str {
    SimdLevel::detect().name()
}
