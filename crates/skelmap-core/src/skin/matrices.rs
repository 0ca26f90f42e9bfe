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
///   with permutes rather than gathers. Where the CPU has AVX-512, the rows are made sixteen
///   bones a step, the records' columns transposed in registers (the same floats as copying
///   them one at a time).
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
        #[cfg(target_arch = "x86_64")]
        if super::x86::soa_rows(&self.paired, padded, &mut self.soa) {
            return;
        }
        soa_rows(&self.paired, padded, &mut self.soa);
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

/// Row `r * 4 + c` (row `r` of column `c`) of `soa` (rows of `padded` floats) from the paired
/// records, a row at a time so that each is written in order; its padding zeroed.
fn soa_rows(paired: &[[f32; PAIRED]], padded: usize, soa: &mut [f32]) {
    for (k, row) in soa.chunks_exact_mut(padded).enumerate() {
        let at = (k % 4) * 8 + k / 4;
        let (values, padding) = row.split_at_mut(paired.len().min(padded));
        for (slot, record) in values.iter_mut().zip(paired) {
            *slot = record[at];
        }
        padding.fill(0.0);
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

#[cfg(test)]
mod tests {
    use glam::{Affine3A, Mat3A, Vec3A};

    use super::{SkinMatrices, soa_rows};
    use crate::pose::Palette;

    /// `bones` transforms whose every entry differs (bone `b`, float `i` of its columns:
    /// `100 b + i`), with a −0.0 and a NaN of a payload of its own among them.
    fn palette(bones: usize) -> Palette {
        let world = (0..bones)
            .map(|b| {
                let v = |c: usize| {
                    let mut v = [0.0f32; 3];
                    for (r, x) in v.iter_mut().enumerate() {
                        *x = (100 * b + 4 * c + r) as f32;
                    }
                    if b == 3 && c == 0 {
                        v[1] = -0.0;
                    }
                    if b == 5 && c == 3 {
                        v[2] = f32::from_bits(0x7FC0_1234);
                    }
                    Vec3A::from_array(v)
                };
                Affine3A {
                    matrix3: Mat3A::from_cols(v(0), v(1), v(2)),
                    translation: v(3),
                }
            })
            .collect();
        Palette { world }
    }

    fn bits(values: &[f32]) -> Vec<u32> {
        values.iter().map(|x| x.to_bits()).collect()
    }

    /// The rows as built (sixteen bones a step where the CPU has AVX-512) are those of the
    /// one-at-a-time copy, bit for bit, padding included, for every size around the steps and
    /// the paddings; a palette that shrinks within one padding leaves no lane of the larger.
    #[test]
    fn rows_built_a_step_at_a_time_are_the_copied_rows() {
        let sizes = (0..=40).chain([47, 48, 63, 64, 65, 80, 81, 127, 128, 129, 130, 200]);
        let mut shrunk = SkinMatrices::from_palette(&palette(81));
        for bones in sizes {
            let m = SkinMatrices::from_palette(&palette(bones));
            let (soa, padded) = m.soa();
            let mut copied = vec![f32::NAN; 12 * padded];
            soa_rows(m.paired(), padded, &mut copied);
            assert_eq!(bits(soa), bits(&copied), "{bones} bones");
            if (65..=128).contains(&bones) {
                shrunk.update(&palette(bones));
                assert_eq!(
                    bits(shrunk.soa().0),
                    bits(&copied),
                    "81, then {bones} bones"
                );
            }
        }
    }
}
