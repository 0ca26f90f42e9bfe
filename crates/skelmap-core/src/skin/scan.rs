//! The validation's SIMD scans, dispatched. Each asks of a run of records whether every one
//! passes the checks the format's scalar walk makes (or, for one-influence vertices, how many
//! at its start do), with AVX-512 where the CPU has it, and answers `None` elsewhere (the walk
//! then does all the work). The walks search for the first record that fails, and build its
//! error or warning, only where a scan does not pass; so a scan decides how fast validation
//! is, never what it reports.

use zerocopy::byteorder::{ByteOrder, F32, U32};

use crate::floatbits::{Masks, big_endian};

/// Tables shorter than this (four registers) are left to the scalar passes, which take them
/// in less time than a scan takes to start (SKP poses come a frame at a time, a few bones
/// each on rigid models).
const SHORT: usize = 256;

/// The x86-64 call where there is one, else `None` (the arguments marked used).
macro_rules! x86_or_none {
    ($call:expr; $($arg:ident),*) => {{
        #[cfg(target_arch = "x86_64")]
        {
            $call
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = ($($arg,)*);
            None
        }
    }};
}

/// DPM poses (big-endian 3×4 matrices, 48 bytes each): whether any value is NaN or infinite
/// and whether any rotation row is zero (its first three values ±0).
pub(crate) fn be_poses(bytes: &[u8]) -> Option<(bool, bool)> {
    x86_or_none!(super::x86::pose::try_scan_be_poses(bytes); bytes)
}

/// SKP poses (28 bytes, known finite), in whole steps of sixteen: how many poses the scan
/// covered, how many of those have a quaternion whose squared length, added in `x, y, z, w`
/// order, is more than `tolerance` from 1, and the index of the first (`usize::MAX` when
/// none is). The poses after the covered ones are the caller's.
pub(crate) fn skp_quats_off_unit(bytes: &[u8], tolerance: f32) -> Option<(usize, u64, usize)> {
    const STEP: usize = 16 * 28;
    if bytes.len() < STEP {
        return None;
    }
    x86_or_none!(
        super::x86::pose::try_quats_off_unit(bytes, tolerance)
            .map(|(count, first)| (bytes.len() / STEP * 16, count, first));
        bytes, tolerance
    )
}

/// MS3D vertex records (15 bytes): finite coordinates, joint index −1 or below `joints`.
pub(crate) fn ms3d_vertices(bytes: &[u8], joints: usize) -> Option<bool> {
    x86_or_none!(super::x86::records::try_vertices_pass(bytes, joints); bytes, joints)
}

/// MS3D triangle records (70 bytes): vertex indices below `vertices`, finite normals and
/// texture coordinates, group index below `groups`, smoothing group at most 32.
pub(crate) fn ms3d_triangles(bytes: &[u8], vertices: usize, groups: usize) -> Option<bool> {
    x86_or_none!(
        super::x86::records::try_triangles_pass(bytes, vertices, groups);
        bytes, vertices, groups
    )
}

/// MS3D key records (16 bytes): finite time and values, no time earlier than the one before.
pub(crate) fn ms3d_keys(bytes: &[u8]) -> Option<bool> {
    x86_or_none!(super::x86::records::try_keys_pass(bytes); bytes)
}

/// MS3D vertex extra records of `stride` bytes (6, 10 or 14): joint indices −1 or below
/// `joints`, weights summing to at most `scale`.
pub(crate) fn ms3d_vertex_extras(
    bytes: &[u8],
    stride: usize,
    joints: usize,
    scale: u32,
) -> Option<bool> {
    x86_or_none!(
        super::x86::records::try_vertex_extras_pass(bytes, stride, joints, scale);
        bytes, stride, joints, scale
    )
}

/// Whether any whole word of a flat table (big-endian or little-endian `u32`s) fails its test:
/// `(word & keep) - low` (wrapping unsigned) at most `span`, which [`below`] and [`FINITE`]
/// set; `None` for tables under [`SHORT`] bytes or without AVX-512.
pub(crate) fn any_word_fails(
    bytes: &[u8],
    big_endian: bool,
    test: (u32, u32, u32),
) -> Option<bool> {
    if bytes.len() < SHORT {
        return None;
    }
    x86_or_none!(
        super::x86::words::try_any_word_fails(bytes, big_endian, test);
        bytes, big_endian, test
    )
}

/// The test of [`any_word_fails`] that a value at or above `bound` fails (every value, when
/// `bound` is 0).
pub(crate) fn below(bound: u32) -> (u32, u32, u32) {
    match bound.checked_sub(1) {
        Some(max) => (u32::MAX, 0, max),
        // (w & 0) - 1 wraps to u32::MAX, above a span of 0.
        None => (0, 1, 0),
    }
}

/// The test of [`any_word_fails`] that a NaN or an infinity fails.
pub(crate) const FINITE: (u32, u32, u32) = (0x7FFF_FFFF, 0, 0x7F7F_FFFF);

/// Whether any of `values` is NaN or infinite: the word scan where there is one, else the
/// flat pass of [`Masks::any_non_finite`](crate::floatbits::Masks::any_non_finite).
pub(crate) fn any_non_finite<O: ByteOrder>(values: &[F32<O>]) -> bool {
    let bytes = zerocopy::IntoBytes::as_bytes(values);
    any_word_fails(bytes, big_endian::<O>(), FINITE)
        .unwrap_or_else(|| Masks::of::<O>().any_non_finite(values))
}

/// Whether any of `values` is `bound` or above: the word scan where there is one, else one
/// flat branch-free pass.
pub(crate) fn any_at_least<O: ByteOrder>(values: &[U32<O>], bound: u32) -> bool {
    let bytes = zerocopy::IntoBytes::as_bytes(values);
    any_word_fails(bytes, big_endian::<O>(), below(bound)).unwrap_or_else(|| {
        let fold = |acc, v: &U32<O>| acc | u32::from(v.get() >= bound);
        values.iter().fold(0u32, fold) != 0
    })
}

/// Bytes of a one-influence bone vertex: a `u32` count, then one 32-byte record.
pub(crate) const ONE_INFLUENCE_VERTEX: usize = 36;

/// Bytes of sixteen one-influence bone vertices: the unit [`OneInfluenceRun`] reads in.
pub(crate) const ONE_INFLUENCE_GROUP: usize = 16 * ONE_INFLUENCE_VERTEX;

/// The scan of runs of one-influence bone vertices (DPM, SKM): a count of 1, finite floats,
/// `bonenum` below the bone count, and an influence the sum rule accepts, so the walk can
/// step over whole runs of them, sixteen vertices a step. Most
/// vertices of rigid models (vehicles, buildings) are such runs, and there the walk's cost
/// is its chain of dependent reads (each count says where the next vertex starts), which a
/// scan of a guessed layout avoids.
#[derive(Debug, Clone)]
pub(crate) struct OneInfluenceRun {
    #[cfg(target_arch = "x86_64")]
    scan: super::x86::words::OneInfluenceScan,
}

impl OneInfluenceRun {
    /// The scan for a model of `num_bones` bones whose accepted influence values are the
    /// positive floats with bits `influence.0 ..= influence.1`; `None` without AVX-512 (F and
    /// BW) or without a bone.
    pub(crate) fn new(big_endian: bool, num_bones: u32, influence: (u32, u32)) -> Option<Self> {
        x86_or_none!(
            super::x86::words::OneInfluenceScan::new(big_endian, num_bones, influence)
                .map(|scan| OneInfluenceRun { scan });
            big_endian, num_bones, influence
        )
    }

    /// How many one-influence vertices at the start of `bytes` pass, up to the first that
    /// does not; `bytes` is read in whole groups of sixteen (a partial group passes nothing).
    pub(crate) fn passing_vertices(&self, bytes: &[u8]) -> usize {
        #[cfg(target_arch = "x86_64")]
        {
            self.scan.passing_vertices(bytes)
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = bytes;
            0
        }
    }
}
