//! The validation's SIMD scans, dispatched. Each asks of a run of records whether every one
//! passes the checks the format's scalar walk makes (or, for one-influence vertices, how many
//! at its start do), with AVX-512 where the CPU has it (AVX2 for the flat scans and the
//! vertex walks where it has not), and answers `None` elsewhere (the walk then does
//! all the work). The walks search for the first record that fails, and build its
//! error or warning, only where a scan does not pass; so a scan decides how fast validation
//! is, never what it reports.

use zerocopy::byteorder::{ByteOrder, F32, U32};

mod read;
#[cfg(target_arch = "x86_64")]
mod x86;

pub use read::read_pass;
#[cfg(target_arch = "x86_64")]
pub(crate) use read::sum_portable;

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
        x86::poses::try_quats_off_unit(bytes, tolerance)
            .map(|(count, first)| (bytes.len() / STEP * 16, count, first));
        bytes, tolerance
    )
}

/// MS3D vertex records (15 bytes): finite coordinates, joint index −1 or below `joints`.
pub(crate) fn ms3d_vertices(bytes: &[u8], joints: usize) -> Option<bool> {
    x86_or_none!(x86::records::try_vertices_pass(bytes, joints); bytes, joints)
}

/// MS3D triangle records (70 bytes): vertex indices below `vertices`, finite normals and
/// texture coordinates, group index below `groups`, smoothing group at most 32.
pub(crate) fn ms3d_triangles(bytes: &[u8], vertices: usize, groups: usize) -> Option<bool> {
    x86_or_none!(
        x86::records::try_triangles_pass(bytes, vertices, groups);
        bytes, vertices, groups
    )
}

/// MS3D key records (16 bytes): finite time and values, no time earlier than the one before.
pub(crate) fn ms3d_keys(bytes: &[u8]) -> Option<bool> {
    x86_or_none!(x86::records::try_keys_pass(bytes); bytes)
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
        x86::records::try_vertex_extras_pass(bytes, stride, joints, scale);
        bytes, stride, joints, scale
    )
}

/// The scan of unsigned little-endian fields `W` bytes wide (1, 2 or 4) in records of a fixed
/// stride, each field at most its own maximum (GameStudio and Quake normal indices, triangle
/// corners and texture coordinates). Built from constants, it is itself a constant.
#[derive(Debug, Clone)]
pub(crate) struct Fields<const W: usize> {
    #[cfg(target_arch = "x86_64")]
    scan: x86::fields::FieldScan<W>,
}

impl<const W: usize> Fields<W> {
    /// Records of `max.len() · W` bytes (1 to 64) whose field `k` must be at most `max[k]`;
    /// `u32::MAX` (or any value the field's width cannot exceed) leaves a field unchecked.
    /// `None` for another width or stride, and off x86-64.
    ///
    /// Always inlined, as `FieldScan::new` is (a copy of the built table stalls).
    #[inline(always)]
    pub(crate) const fn new(max: &[u32]) -> Option<Self> {
        #[cfg(target_arch = "x86_64")]
        {
            match x86::fields::FieldScan::new(max) {
                Some(scan) => Some(Fields { scan }),
                None => None,
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = max;
            None
        }
    }

    /// Whether any field of the records of `bytes` (whole records, as a slice of them gives)
    /// is above its maximum; `None` for tables under [`SHORT`] bytes or without AVX-512 (F
    /// and BW) and AVX2.
    pub(crate) fn any_above(&self, bytes: &[u8]) -> Option<bool> {
        if bytes.len() < SHORT {
            return None;
        }
        x86_or_none!(self.scan.try_any_above(bytes); bytes)
    }

    /// [`Fields::any_above`] of several tables (each whole records) at once, short ones
    /// included; `None` without AVX-512 (F and BW) and AVX2.
    pub(crate) fn any_above_each<'a>(
        &self,
        tables: impl Iterator<Item = &'a [u8]>,
    ) -> Option<bool> {
        x86_or_none!(self.scan.try_any_above_each(tables); tables)
    }
}

/// The scan of unsigned little-endian fields at any byte offset of records of a fixed stride
/// (PSK's faces: 32-bit wedge indices in packed 18-byte records), each field at most its own
/// maximum.
#[derive(Debug, Clone)]
pub(crate) struct Packed {
    #[cfg(target_arch = "x86_64")]
    scan: x86::packed::PackedScan,
}

impl Packed {
    /// Records of `stride` bytes (1 to 64) whose fields are `(offset, width, maximum)`, each
    /// inside the record and 1 to 4 bytes wide, at most sixteen; `None` for another shape, and
    /// without AVX-512 (F, BW and VBMI).
    pub(crate) fn new(stride: usize, fields: &[(usize, usize, u32)]) -> Option<Packed> {
        x86_or_none!(
            x86::packed::PackedScan::new(stride, fields).map(|scan| Packed { scan });
            stride, fields
        )
    }

    /// Whether any field of the whole records of `bytes` is above its maximum.
    pub(crate) fn any_above(&self, bytes: &[u8]) -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            self.scan.any_above(bytes)
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = bytes;
            true
        }
    }
}

/// Whether any whole word of a flat table (big-endian or little-endian `u32`s) fails its test:
/// `(word & keep) - low` (wrapping unsigned) at most `span`, which [`below`] and [`FINITE`]
/// set; `None` for tables under [`SHORT`] bytes or without AVX-512 and AVX2.
pub(crate) fn any_word_fails(
    bytes: &[u8],
    big_endian: bool,
    test: (u32, u32, u32),
) -> Option<bool> {
    if bytes.len() < SHORT {
        return None;
    }
    x86_or_none!(
        x86::words::try_any_word_fails(bytes, big_endian, test);
        bytes, big_endian, test
    )
}

/// Whether a scan shows every little-endian word of `bytes` (`u32`, or `i32` read as one, a
/// negative value then at least 2³¹) below `bound`: `false` where some word is not, and
/// where no scan ran (short tables, no AVX-512 or AVX2), so that the caller's walk then
/// looks.
pub(crate) fn le_words_below(bytes: &[u8], bound: u32) -> bool {
    any_word_fails(bytes, false, below(bound)) == Some(false)
}

/// [`any_word_fails`] with a test per word of a record: records of `tests.len()` words (1, 2,
/// 4, 8 or 16; `bytes` starts at one), word `k` of each taking test `k`. `None` for another
/// length, for tables under [`SHORT`] bytes and without AVX-512 and AVX2.
pub(crate) fn any_record_word_fails(
    bytes: &[u8],
    big_endian: bool,
    tests: &[(u32, u32, u32)],
) -> Option<bool> {
    if bytes.len() < SHORT {
        return None;
    }
    x86_or_none!(
        x86::words::try_any_record_word_fails(bytes, big_endian, tests);
        bytes, big_endian, tests
    )
}

/// The test of [`any_word_fails`] that every value passes.
pub(crate) const ANY: (u32, u32, u32) = (0, 0, 0);

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

/// Whether any of `values` is NaN or infinite: a scan of the raw words where the CPU has one
/// (and the table is [`SHORT`] bytes or more), else the flat pass of
/// [`Masks::any_non_finite`](crate::floatbits::Masks::any_non_finite).
pub(crate) fn any_non_finite<O: ByteOrder>(values: &[F32<O>]) -> bool {
    let bytes = zerocopy::IntoBytes::as_bytes(values);
    let scan = || -> Option<bool> {
        if bytes.len() < SHORT {
            return None;
        }
        x86_or_none!(x86::poses::try_any_non_finite(bytes, big_endian::<O>()); bytes)
    };
    scan().unwrap_or_else(|| Masks::of::<O>().any_non_finite(values))
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
    scan: x86::words::OneInfluenceScan,
}

impl OneInfluenceRun {
    /// The scan for a model of `num_bones` bones whose accepted influence values are the
    /// positive floats with bits `influence.0 ..= influence.1`; `None` without AVX-512 (F and
    /// BW) and AVX2, or without a bone.
    pub(crate) fn new(big_endian: bool, num_bones: u32, influence: (u32, u32)) -> Option<Self> {
        x86_or_none!(
            x86::words::OneInfluenceScan::new(big_endian, num_bones, influence)
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

/// The walk of bone vertices of any influence count (DPM, SKM), with the checks of
/// validation's scalar walk: the count in `1 ..= max_per_vertex`, the records in bounds,
/// finite floats, `bonenum` below the bone count and the influence sum within the tolerance.
/// It keeps the walk's chain of counts but tests each record's eight words at once, and
/// stops before any vertex the scalar walk must look at.
#[derive(Debug, Clone)]
pub(crate) struct VertexWalk {
    #[cfg(target_arch = "x86_64")]
    scan: x86::words::VertexWalkScan,
}

/// Where a [`VertexWalk`] stops: it walks while fewer than `most` vertices have passed and
/// either fewer than `until` have, or `seek` is set and the next vertex has more than one
/// influence; and it stops before the first vertex that breaks a rule or whose count would
/// take the influences past `budget`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct WalkStop {
    /// Vertices to walk in any case.
    pub until: u32,
    /// Vertices to walk at most.
    pub most: u32,
    /// Influences the vertices may have in total.
    pub budget: u64,
    /// Whether to go on past `until` up to the next one-influence vertex.
    pub seek: bool,
}

/// How far a [`VertexWalk`] went: whole vertices, their bytes and their influences.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Walked {
    /// Vertices that passed.
    pub vertices: u32,
    /// Their bytes, counts included.
    pub bytes: usize,
    /// Their influences.
    pub influences: u64,
}

impl VertexWalk {
    /// The walk for a model of `num_bones` bones; `None` without AVX-512 (F, BW and
    /// VL) and AVX2, or without a bone.
    pub(crate) fn new(
        big_endian: bool,
        num_bones: u32,
        max_per_vertex: u32,
        tolerance: f32,
    ) -> Option<Self> {
        x86_or_none!(
            x86::words::VertexWalkScan::new(big_endian, num_bones, max_per_vertex, tolerance)
                .map(|scan| VertexWalk { scan });
            big_endian, num_bones, max_per_vertex, tolerance
        )
    }

    /// Walks the vertices at the start of `bytes` up to `stop`.
    pub(crate) fn walk(&self, bytes: &[u8], stop: WalkStop) -> Walked {
        #[cfg(target_arch = "x86_64")]
        {
            self.scan.walk(bytes, stop)
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = (bytes, stop);
            Walked::default()
        }
    }
}

/// Where [`md4_vertices`] stops: before the first vertex that breaks a rule, whose count is
/// not 1 to 4 or above `max_weights`, or that would take the weights past `budget`, and
/// after `most` vertices.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Md4Stop {
    /// Vertices to walk at most.
    pub most: u32,
    /// Weights a vertex may have.
    pub max_weights: u32,
    /// Weights the vertices may have in total.
    pub budget: u64,
    /// The largest bone index a weight may name.
    pub max_index: u32,
    /// How far from 1 a vertex's weights may sum.
    pub tolerance: f32,
}

/// MD4 vertices (MDR, MDM: a normal, a texture coordinate and a weight count, then 20-byte
/// weights of bone index, weight and offset, little-endian) at the start of `bytes`, walked
/// while each has every float finite, every bone index at most `stop.max_index` and weights
/// summing to within `stop.tolerance` of 1, up to `stop`; `None` without AVX-512 (F and BW)
/// and AVX2, where the format's pass does all the work.
pub(crate) fn md4_vertices(bytes: &[u8], stop: Md4Stop) -> Option<Walked> {
    x86_or_none!(x86::words::try_md4_vertices(bytes, stop); bytes, stop)
}

/// Where one Half-Life sequence's chains of animation-value runs are: `records` records
/// (`mstudioanim_t`: six 16-bit offsets from the record's start, 0 for none) at `base`, each
/// channel's chain walked until its runs cover `frames`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct AnimChains {
    pub base: usize,
    pub records: usize,
    pub frames: u32,
}

/// Half-Life's chains of animation-value runs: one from each channel of the records of every
/// entry of `chains` in `bytes`. Whether every run has its two-byte header, `1 ..= total`
/// values and its end within `bytes`; the chains are walked many at a time, so that their
/// dependent reads overlap. `None` without AVX-512 and AVX2, or for records outside `bytes`,
/// where the format's walk does all the work.
pub(crate) fn hl1_anim_runs(
    bytes: &[u8],
    chains: impl Iterator<Item = AnimChains> + Clone,
) -> Option<bool> {
    x86_or_none!(x86::runs::try_anim_runs(bytes, chains); bytes, chains)
}

/// What [`hl1_tricmds`] walked: the commands and their vertices.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Tricmds {
    pub commands: u64,
    pub vertices: u64,
}

/// One Half-Life mesh's triangle commands from `at` in `bytes` (each a little-endian `i16`
/// count, negative for a fan, then that many 8-byte triverts; a count of 0 ends them), walked
/// when every one passes: its count at least 3 either way, its triverts within `bytes`, their
/// vertex and normal indices (read as unsigned, so a negative one is above any maximum up to
/// `i16::MAX`) at most `max`, and the vertices up to each command at most `most`. `None`
/// where any fails, and without AVX-512 (F and BW) and AVX2, where the format's walk does
/// all the work and names the first fault.
pub(crate) fn hl1_tricmds(bytes: &[u8], at: usize, max: [u16; 2], most: u64) -> Option<Tricmds> {
    x86_or_none!(x86::tricmds::try_tricmds(bytes, at, max, most); bytes, at, max, most)
}

#[cfg(test)]
mod tests {
    use super::{Fields, SHORT};

    /// Whether any field of the records of `bytes` is above its maximum, one at a time.
    fn any_above_scalar<const W: usize>(bytes: &[u8], max: &[u32]) -> bool {
        bytes.chunks_exact(W * max.len()).any(|record| {
            record.chunks_exact(W).zip(max).any(|(field, &m)| {
                let v = field
                    .iter()
                    .rev()
                    .fold(0u32, |v, &b| (v << 8) | u32::from(b));
                v > m
            })
        })
    }

    /// The answers of every scan this CPU has for `bytes`: the widest's (what `any_above`
    /// runs) and AVX2's.
    fn answers<const W: usize>(scan: &Fields<W>, bytes: &[u8]) -> Vec<bool> {
        let mut answers: Vec<bool> = scan.any_above(bytes).into_iter().collect();
        #[cfg(target_arch = "x86_64")]
        answers.extend(scan.scan.try_any_above_avx2(bytes));
        answers
    }

    /// Records of every stride the scan takes for width `W`, their maxima a mix of checked
    /// and unchecked fields; each table (alone, and as one of two scanned in one call)
    /// passing, then failing at one field of its first, of a middle and of its last
    /// record in turn. The scan (where the CPU has one) answers as the scalar walk does.
    fn scan_agrees<const W: usize>() {
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let largest = u32::MAX >> (32 - 8 * W);
        for fields in 1..=64 / W {
            // Which fields are checked turns with the stride, so that every field position,
            // the first included, is checked in some stride, and single-field records are.
            let max: Vec<u32> = (0..fields)
                .map(|k| match (k + fields) % 3 {
                    0 => u32::MAX,
                    1 => (next() as u32) & largest,
                    _ => largest / 2,
                })
                .collect();
            let Some(scan) = Fields::<W>::new(&max) else {
                continue;
            };
            let stride = fields * W;
            for records in [SHORT / stride + 1, 97, 300] {
                // Every field at most its maximum: `max` itself, or a smaller value.
                let bytes: Vec<u8> = (0..records)
                    .flat_map(|_| max.clone())
                    .flat_map(|m| {
                        let v = m.min(largest);
                        let v = if next() % 2 == 0 { v } else { v / 2 };
                        v.to_le_bytes().into_iter().take(W)
                    })
                    .collect();
                assert!(!any_above_scalar::<W>(&bytes, &max));
                for any in answers(&scan, &bytes) {
                    assert!(!any, "width {W}, stride {stride}, {records} records");
                }
                let twice = [bytes.as_slice(), bytes.as_slice()];
                if let Some(any) = scan.any_above_each(twice.into_iter()) {
                    assert!(!any, "each: width {W}, stride {stride}, {records} records");
                }
                let checked: Vec<usize> = (0..fields).filter(|&k| max[k] < largest).collect();
                for record in [0, records / 2, records - 1] {
                    for &k in &checked {
                        let mut bad = bytes.clone();
                        let at = record * stride + k * W;
                        let v = max[k] + 1;
                        bad[at..at + W].copy_from_slice(&v.to_le_bytes()[..W]);
                        assert!(any_above_scalar::<W>(&bad, &max));
                        for any in answers(&scan, &bad) {
                            assert!(
                                any,
                                "width {W}, stride {stride}, record {record}, field {k}"
                            );
                        }
                        // The failing table second of two, then first.
                        for pair in [[bytes.as_slice(), &bad], [&bad, bytes.as_slice()]] {
                            if let Some(any) = scan.any_above_each(pair.into_iter()) {
                                assert!(any, "each: width {W}, stride {stride}, record {record}");
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn field_scans_answer_as_the_scalar_walk_for_every_stride() {
        scan_agrees::<1>();
        scan_agrees::<2>();
        scan_agrees::<4>();
    }

    #[test]
    fn field_scans_leave_short_tables_and_odd_widths_to_the_walk() {
        let scan = Fields::<1>::new(&[0]);
        assert!(
            scan.as_ref()
                .is_none_or(|s| s.any_above(&[1; SHORT - 1]).is_none())
        );
        assert!(Fields::<3>::new(&[0]).is_none());
        assert!(Fields::<4>::new(&[0; 17]).is_none());
        assert!(Fields::<2>::new(&[]).is_none());
    }
}
