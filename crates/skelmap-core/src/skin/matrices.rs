//! The bone palette laid out for the SIMD kernels, rebuilt from a [`Palette`] once per frame.

use glam::{Affine3A, Vec4};

use crate::pose::Palette;

/// Floats per bone in the paired layout: four columns, each repeated in both 128-bit halves
/// (the translation's second copy zeroed).
pub(crate) const PAIRED: usize = 32;

/// A [`Palette`] in the layouts the kernels read, built once per frame (O(bones)):
///
/// - **paired**, for the stream kernel: per bone the columns `x, y, z, t` of the 3×4 matrix,
///   each as `[c, c]` (8 floats) so one 256-bit load feeds the position and normal halves of a
///   32-byte record at once; the translation's normal half is zero;
/// - **structure of arrays**, for the prepared kernel: twelve rows `m[r][c]` of one float per
///   bone, padded to 16, 32, 64 or 128 bones (a multiple of 16 above that) so a palette of up
///   to 128 bones sits in one to eight AVX-512 registers per row and lanes look their bone up
///   with permutes rather than gathers.
///
/// ```
/// use skelmap_core::pose::Palette;
/// use skelmap_core::skin::SkinMatrices;
/// use skelmap_core::glam::{Affine3A, Vec3};
/// let palette = Palette { world: vec![Affine3A::from_translation(Vec3::new(1.0, 2.0, 3.0)); 3] };
/// let m = SkinMatrices::from_palette(&palette);
/// assert_eq!(m.bones(), 3);
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SkinMatrices {
    bones: usize,
    paired: Vec<[f32; PAIRED]>,
    /// Row `r * 4 + c` (column `c` of row `r`) holds bone `b` at `row * padded + b`.
    soa: Vec<f32>,
    padded: usize,
}

impl SkinMatrices {
    /// The palette's matrices in kernel layouts.
    #[must_use]
    pub fn from_palette(palette: &Palette) -> Self {
        let mut m = SkinMatrices::default();
        m.update(palette);
        m
    }

    /// Rebuilds from `palette`, reusing the allocations.
    pub fn update(&mut self, palette: &Palette) {
        self.update_with(palette.world.iter().copied());
    }

    /// Rebuilds from one transform per bone, reusing the allocations: the records as the
    /// transforms are read, then the rows from the records (the table is cleared and
    /// resized only when its size changes; every entry is written).
    pub(crate) fn update_with(&mut self, world: impl ExactSizeIterator<Item = Affine3A>) {
        let bones = world.len();
        let padded = padded(bones);
        self.bones = bones;
        self.padded = padded;
        self.paired.clear();
        self.paired.reserve(bones);
        if self.soa.len() != 12 * padded {
            self.soa.clear();
            self.soa.resize(12 * padded, 0.0);
        }
        // `take`: an iterator longer than it said cannot grow the table past its rows.
        for w in world.take(bones) {
            let columns = [
                w.matrix3.x_axis,
                w.matrix3.y_axis,
                w.matrix3.z_axis,
                w.translation,
            ];
            let [x, y, z, t] = columns.map(|c| c.extend(0.0));
            // Whole columns, so that the record is written in vectors, not float by float.
            self.paired
                .push(bytemuck::cast([x, x, y, y, z, z, t, Vec4::ZERO]));
        }
        // Row `r * 4 + c` (row `r` of column `c`) from the records, a row at a time so that
        // each is written in order; its padding zeroed.
        for (k, row) in self.soa.chunks_exact_mut(padded).enumerate() {
            let at = (k % 4) * 8 + k / 4;
            let (values, padding) = row.split_at_mut(self.paired.len().min(padded));
            for (slot, record) in values.iter_mut().zip(&self.paired) {
                *slot = record[at];
            }
            padding.fill(0.0);
        }
    }

    /// Number of bones.
    #[must_use]
    pub fn bones(&self) -> usize {
        self.bones
    }

    /// `true` when `other` holds the same matrices bit for bit (`-0.0` is not `0.0`, a NaN
    /// equals itself): then every kernel gives the same result with either.
    pub(crate) fn same_bits(&self, other: &SkinMatrices) -> bool {
        fn bits(m: &SkinMatrices) -> &[u32] {
            bytemuck::cast_slice::<[f32; PAIRED], u32>(&m.paired)
        }
        self.bones == other.bones && bits(self) == bits(other)
    }

    /// Per bone, the paired columns (see the type's documentation).
    pub(crate) fn paired(&self) -> &[[f32; PAIRED]] {
        &self.paired
    }

    /// The twelve rows and their length (a multiple of 16, at least the bone count).
    pub(crate) fn soa(&self) -> (&[f32], usize) {
        (&self.soa, self.padded)
    }
}

/// The row length of a palette of `bones` in structure-of-arrays layout: 16, 32, 64 or 128
/// (the sizes the permute look-ups serve), else a multiple of 16.
pub(crate) fn padded(bones: usize) -> usize {
    match bones {
        0..=16 => 16,
        17..=32 => 32,
        33..=64 => 64,
        65..=128 => 128,
        _ => bones.div_ceil(16) * 16,
    }
}
