//! The block layout the prepared kernel works on, shared by its portable and `std::arch`
//! versions.

/// Lanes per block.
pub(crate) const LANES: usize = 16;
/// Float rows per slot: `ox oy oz w nx ny nz`.
pub(crate) const ROWS: usize = 7;
/// Floats per slot.
pub(crate) const SLOT: usize = ROWS * LANES;

/// One block's results, per lane (interleaved, ready to copy to the outputs).
#[derive(Clone, Copy)]
pub(crate) struct BlockOut {
    /// Position of each lane's vertex.
    pub positions: [[f32; 3]; LANES],
    /// Normal of each lane's vertex.
    pub normals: [[f32; 3]; LANES],
}

impl BlockOut {
    /// All zeros.
    pub(crate) const ZERO: BlockOut = BlockOut {
        positions: [[0.0; 3]; LANES],
        normals: [[0.0; 3]; LANES],
    };

    /// Fills the block from rows `px py pz nx ny nz` of 16 lanes each.
    #[inline]
    pub(crate) fn from_rows(rows: &[[f32; LANES]; 6]) -> BlockOut {
        BlockOut {
            positions: core::array::from_fn(|l| [rows[0][l], rows[1][l], rows[2][l]]),
            normals: core::array::from_fn(|l| [rows[3][l], rows[4][l], rows[5][l]]),
        }
    }
}

/// Where a kernel puts each block's results: straight into the destination where the
/// block's 16 vertices lie there whole and consecutive (`lend`), else handed over (`emit`).
pub(crate) trait BlockDest {
    /// The destination's 16 positions and normals for block `b`, when its lanes are all
    /// vertices and lie consecutively there.
    fn lend(&mut self, b: usize) -> Option<super::output::BlockMut<'_>>;
    /// Puts block `b`'s results where they go.
    fn emit(&mut self, b: usize, out: &BlockOut);
}

/// The blocks of one bucket and the palette they are skinned with.
#[derive(Clone, Copy)]
pub(crate) struct Run<'a> {
    /// Influences per vertex.
    pub k: usize,
    /// Number of blocks.
    pub blocks: usize,
    /// `blocks · k` slots of [`SLOT`] floats.
    pub data: &'a [f32],
    /// `blocks · k` rows of 16 bone indices.
    pub bones: &'a [u32],
    /// Twelve palette rows of `padded` floats.
    pub soa: &'a [f32],
    /// Row length, a non-zero multiple of 16.
    pub padded: usize,
    /// Whether blocks written straight into the destination use non-temporal stores (see
    /// [`STREAM_MIN_BYTES`](super::STREAM_MIN_BYTES)).
    pub stream: bool,
}

impl Run<'_> {
    /// Whether the slices hold what the fields claim (the kernels check before any load).
    pub(crate) fn consistent(&self) -> bool {
        let slots = self.blocks.checked_mul(self.k);
        self.padded > 0
            && self.padded.is_multiple_of(LANES)
            && slots
                .and_then(|s| s.checked_mul(SLOT))
                .is_some_and(|n| self.data.len() >= n)
            && slots
                .and_then(|s| s.checked_mul(LANES))
                .is_some_and(|n| self.bones.len() >= n)
            && self.soa.len() >= 12 * self.padded
    }
}
