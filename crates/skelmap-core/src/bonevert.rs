//! The skeletal vertex record shared by DPM (big-endian) and SKM (little-endian), and the one
//! MD5's decoded block and MDR's and MDM's laid-out surfaces are written in.
//!
//! A vertex is a `u32` influence count followed by that many 32-byte [`BoneVert`] records:
//! `origin[3]`, `influence`, `normal[3]`, `bonenum`. Origin and normal are stored already
//! multiplied by the influence, and each 16-byte half (`origin, influence` and
//! `normal, bonenum`) loads as one SIMD register. Because the records are variable-length there
//! is no random access: [`Vertices`] walks them in file order, and validation (`validate_vertices`) is the
//! one linear pass that proves a whole walk in bounds before any accessor runs.
//!
//! The code is generic over the byte order, so DPM and SKM share it rather than copy it.

use zerocopy::byteorder::{ByteOrder, F32, U32};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

use crate::diag::{Diagnostics, WarningKind};
use crate::error::{Error, Problem, Result};
use crate::floatbits::{Masks, big_endian, raw};
use crate::limits::Limits;
use crate::read::Reader;
use crate::scan::{
    ONE_INFLUENCE_GROUP, ONE_INFLUENCE_VERTEX, OneInfluenceRun, VertexWalk, WalkStop,
};

/// One bone influence on a vertex, as stored on disk (32 bytes).
///
/// Field names follow `dpmbonevert_t` in DarkPlaces' `model_dpmodel.h`.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct BoneVert<O: ByteOrder> {
    /// Position in the bone's frame-0 space, pre-multiplied by `influence`.
    pub origin: [F32<O>; 3],
    /// Weight of this bone; multiplies the bone's translation when skinning.
    pub influence: F32<O>,
    /// Normal in the bone's frame-0 space, pre-multiplied by `influence`.
    pub normal: [F32<O>; 3],
    /// Index of the bone.
    pub bonenum: U32<O>,
}

const _: () = assert!(size_of::<BoneVert<zerocopy::BigEndian>>() == 32);

/// The influence-count prefix of a vertex.
pub type VertexCount<O> = U32<O>;

impl<O: ByteOrder> BoneVert<O> {
    /// The pre-weighted origin.
    #[inline]
    #[must_use]
    pub fn origin(&self) -> [f32; 3] {
        self.origin.map(|v| v.get())
    }

    /// The weight.
    #[inline]
    #[must_use]
    pub fn influence(&self) -> f32 {
        self.influence.get()
    }

    /// The pre-weighted normal.
    #[inline]
    #[must_use]
    pub fn normal(&self) -> [f32; 3] {
        self.normal.map(|v| v.get())
    }

    /// The bone index (validated `< num_bones` in a parsed view).
    #[inline]
    #[must_use]
    pub fn bonenum(&self) -> u32 {
        self.bonenum.get()
    }

    /// A record from native values (for writers).
    #[must_use]
    pub fn new(origin: [f32; 3], influence: f32, normal: [f32; 3], bonenum: u32) -> Self {
        BoneVert {
            origin: origin.map(F32::new),
            influence: F32::new(influence),
            normal: normal.map(F32::new),
            bonenum: U32::new(bonenum),
        }
    }
}

/// Zero-copy iterator over the vertices of one mesh, in file order.
///
/// Each item is the vertex's influence records, borrowed from the file.
#[derive(Debug, Clone)]
pub struct Vertices<'data, O: ByteOrder> {
    /// The bytes from the next vertex's count prefix on.
    rest: &'data [u8],
    /// The length of the whole file (so that the offset of `rest` can be told).
    len: u64,
    remaining: u32,
    _order: core::marker::PhantomData<O>,
}

impl<'data, O: ByteOrder> Vertices<'data, O> {
    /// Walks `count` vertices of `data` starting at `offset` (already validated).
    pub(crate) fn new(data: &'data [u8], offset: u64, count: u32) -> Self {
        let rest = usize::try_from(offset)
            .ok()
            .and_then(|o| data.get(o..))
            .unwrap_or_default();
        Vertices {
            rest,
            len: data.len() as u64,
            remaining: if rest.is_empty() { 0 } else { count },
            _order: core::marker::PhantomData,
        }
    }

    /// Byte offset of the next vertex's count prefix.
    #[must_use]
    pub fn offset(&self) -> u64 {
        self.len - self.rest.len() as u64
    }
}

impl<'data, O: ByteOrder + 'data> Iterator for Vertices<'data, O> {
    type Item = &'data [BoneVert<O>];

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.remaining == 0 {
            return None;
        }
        // Validation proved every count and record of the walk in bounds; should the data not
        // have been validated, the checked reads end the iteration instead of panicking.
        let (count, rest) = VertexCount::<O>::ref_from_prefix(self.rest).ok()?;
        let count = usize::try_from(count.get()).ok()?;
        let (records, rest) = <[BoneVert<O>]>::ref_from_prefix_with_elems(rest, count).ok()?;
        self.rest = rest;
        self.remaining -= 1;
        Some(records)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.remaining as usize;
        (n, Some(n))
    }
}

impl<'data, O: ByteOrder + 'data> ExactSizeIterator for Vertices<'data, O> {}
impl<'data, O: ByteOrder + 'data> core::iter::FusedIterator for Vertices<'data, O> {}

/// How far a vertex's influence sum may stray from 1 before it is reported.
pub const INFLUENCE_SUM_TOLERANCE: f32 = 0.01;

/// The lowest and highest positive floats, as bits, that a one-influence vertex's influence
/// may be without an influence-sum warning: `|w − 1| ≤` [`INFLUENCE_SUM_TOLERANCE`] as `f32`
/// computes it. Positive floats order as their bits do, so the scan of one-influence runs
/// tests the rule as a range of bits. Found by bisection, where `w − 1` is exact (0.5 to 2).
const ACCEPTED_INFLUENCE: (u32, u32) = {
    const fn passes(bits: u32) -> bool {
        (f32::from_bits(bits) - 1.0).abs() <= INFLUENCE_SUM_TOLERANCE
    }
    // Below 1.0: `passes` fails at `lo` and holds at `hi`; above: it holds at `lo`.
    let (mut lo, mut hi) = (0.5f32.to_bits(), 1.0f32.to_bits());
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if passes(mid) { hi = mid } else { lo = mid }
    }
    let low = hi;
    let (mut lo, mut hi) = (1.0f32.to_bits(), 2.0f32.to_bits());
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if passes(mid) { lo = mid } else { hi = mid }
    }
    (low, lo)
};

/// What [`validate_vertices`] needs to know about the model.
#[derive(Debug, Clone, Copy)]
pub(crate) struct WalkRules<'a> {
    /// Bones in the skeleton; every `bonenum` must be below it.
    pub num_bones: u32,
    /// Caps on influences per vertex and in total.
    pub limits: &'a Limits,
}

/// Field offsets inside a [`BoneVert`], for error locations.
const ORIGIN_AT: u64 = 0;
const INFLUENCE_AT: u64 = 12;
const NORMAL_AT: u64 = 16;
const BONENUM_AT: u64 = 28;

/// Validates `num_vertices` vertices starting at `offset`, in one pass.
///
/// Checks each count (`1 ..= max_influences_per_vertex`), that every record lies in bounds,
/// that every float is finite and every `bonenum < num_bones`, and adds the records to
/// `total_influences`, failing once it exceeds `max_total_influences`. Influence sums off by
/// more than [`INFLUENCE_SUM_TOLERANCE`] are recorded as warnings. Returns the offset just
/// past the last vertex.
pub(crate) fn validate_vertices<O: ByteOrder>(
    reader: Reader<'_>,
    offset: u64,
    num_verts: u32,
    rules: WalkRules<'_>,
    total_influences: &mut u64,
    diag: &mut Diagnostics,
) -> Result<u64> {
    let format = reader.format();
    let (max_per_vertex, max_total) = (
        rules.limits.max_influences_per_vertex,
        rules.limits.max_total_influences,
    );
    let num_bones = rules.num_bones;
    let masks = Masks::of::<O>();
    // Loop state lives in locals; offsets are derived from a saved cursor only on the cold
    // paths, so the common path is the reads and the checks.
    let mut total = *total_influences;
    let mut walk = reader.walk(offset);
    // Where the CPU has AVX-512, a scan goes ahead of the walk over runs of one-influence
    // vertices, sixteen a step, and stops before the first vertex that does not pass (another
    // count, or a field the walk must report). The walk takes that vertex and any after it up
    // to the next one-influence vertex, where the scan goes on. Where a scan passes only a
    // few vertices, the walk instead takes twice as many as the last time before the next
    // scan, so a model with several influences per vertex rarely pays for one.
    let one = U32::<O>::new(1).to_bytes();
    let run = (max_per_vertex >= 1 && num_verts >= 16)
        .then(|| OneInfluenceRun::new(big_endian::<O>(), num_bones, ACCEPTED_INFLUENCE))
        .flatten();
    // The vertices the walk takes go through a vectorised walk first, which tests each record
    // at once and stops before any vertex the scalar walk below must report.
    let vectorised = VertexWalk::new(
        big_endian::<O>(),
        num_bones,
        max_per_vertex,
        INFLUENCE_SUM_TOLERANCE,
    );
    let (mut left, mut stretch, mut seek) = (num_verts, 1u32, false);
    while left > 0 {
        let mut walked = left;
        if let Some(run) = &run {
            let allowed = (max_total.saturating_sub(total) / 16).min(u64::from(left / 16));
            let bytes = walk.rest();
            let bytes = usize::try_from(allowed)
                .ok()
                .and_then(|groups| bytes.get(..groups.saturating_mul(ONE_INFLUENCE_GROUP)))
                .unwrap_or(bytes);
            let passed = run.passing_vertices(bytes);
            walk.skip(passed * ONE_INFLUENCE_VERTEX);
            total += passed as u64;
            left -= passed as u32;
            (stretch, seek) = if passed >= 8 {
                (1, true)
            } else {
                (stretch.saturating_mul(2).min(1 << 12), false)
            };
            walked = left.min(stretch);
        }
        let mut n = 0;
        loop {
            if let Some(vectorised) = &vectorised {
                let budget = max_total.saturating_sub(total);
                let stop = WalkStop {
                    until: walked.saturating_sub(n),
                    most: left,
                    budget,
                    seek,
                };
                let done = vectorised.walk(walk.rest(), stop);
                walk.skip(done.bytes);
                n += done.vertices;
                left -= done.vertices;
                total += done.influences;
            }
            if !(left > 0 && (n < walked || (seek && walk.rest().get(..4) != Some(&one[..])))) {
                break;
            }
            n += 1;
            left -= 1;
            let vertex = walk;
            let count = walk.read::<VertexCount<O>>("vertex.numbones")?.get();
            if count.wrapping_sub(1) >= max_per_vertex {
                return Err(bad_count(format, vertex.offset(), count, max_per_vertex));
            }
            total += u64::from(count);
            if total > max_total {
                return Err(Error::Limit {
                    format,
                    what: "total bone influences",
                    offset: vertex.offset(),
                    value: total,
                    max: max_total,
                });
            }
            let records = walk.read_slice::<BoneVert<O>>("vertex.boneverts", count.into())?;
            let mut bad = false;
            let mut sum = 0.0f32;
            for r in records {
                sum += r.influence.get();
                bad |= record_is_bad(r, masks, num_bones);
            }
            if bad {
                return Err(locate_bad_record(
                    format,
                    records,
                    vertex.offset() + 4,
                    num_bones,
                ));
            }
            if (sum - 1.0).abs() > INFLUENCE_SUM_TOLERANCE {
                warn_influence_sum(diag, format, vertex.offset(), count, sum);
            }
        }
    }
    *total_influences = total;
    Ok(walk.offset())
}

/// `true` if a float of the record is NaN or infinite, or its bone is out of range.
///
/// A fixed-size, branch-free check of the record's eight words (the compiler unrolls it).
/// Including the `bonenum` word in the float test is harmless: bits that look non-finite
/// mean `bonenum ≥ 0x7F800000`, which is out of range anyway.
#[inline(always)]
fn record_is_bad<O: ByteOrder>(r: &BoneVert<O>, masks: Masks, num_bones: u32) -> bool {
    let words: [u32; 8] = [
        raw(r.origin[0]),
        raw(r.origin[1]),
        raw(r.origin[2]),
        raw(r.influence),
        raw(r.normal[0]),
        raw(r.normal[1]),
        raw(r.normal[2]),
        u32::from_ne_bytes(r.bonenum.to_bytes()),
    ];
    let non_finite = words
        .iter()
        .fold(0u32, |acc, &w| acc | u32::from(masks.non_finite(w)));
    (non_finite != 0) | (r.bonenum.get() >= num_bones)
}

/// The error for an influence count of 0 or above the limit.
#[cold]
fn bad_count(format: crate::format::Format, offset: u64, count: u32, max: u32) -> Error {
    if count == 0 {
        Error::Invalid {
            format,
            what: "vertex.numbones",
            offset,
            problem: Problem::NoInfluences,
        }
    } else {
        Error::Limit {
            format,
            what: "vertex.numbones",
            offset,
            value: count.into(),
            max: max.into(),
        }
    }
}

#[cold]
fn warn_influence_sum(
    diag: &mut Diagnostics,
    format: crate::format::Format,
    offset: u64,
    count: u32,
    sum: f32,
) {
    diag.warn(
        format,
        WarningKind::InfluenceSum,
        "vertex.boneverts",
        offset,
        || format!("influences of a {count}-influence vertex sum to {sum}"),
    );
}

#[inline]
fn all_finite<O: ByteOrder>(v: &[F32<O>; 3]) -> bool {
    v[0].get().is_finite() & v[1].get().is_finite() & v[2].get().is_finite()
}

/// Finds the first offending field among `records` (which are known to contain one).
#[cold]
fn locate_bad_record<O: ByteOrder>(
    format: crate::format::Format,
    records: &[BoneVert<O>],
    at: u64,
    num_bones: u32,
) -> Error {
    let mut offset = at;
    for r in records {
        let checks: [(&'static str, u64, bool); 3] = [
            ("bonevert.origin", ORIGIN_AT, all_finite(&r.origin)),
            (
                "bonevert.influence",
                INFLUENCE_AT,
                r.influence.get().is_finite(),
            ),
            ("bonevert.normal", NORMAL_AT, all_finite(&r.normal)),
        ];
        if let Some((what, field_at, _)) = checks.into_iter().find(|c| !c.2) {
            return Error::Invalid {
                format,
                what,
                offset: offset + field_at,
                problem: Problem::NotFinite,
            };
        }
        let bone = r.bonenum.get();
        if bone >= num_bones {
            return Error::Invalid {
                format,
                what: "bonevert.bonenum",
                offset: offset + BONENUM_AT,
                problem: Problem::Index {
                    index: bone.into(),
                    len: num_bones.into(),
                },
            };
        }
        offset += size_of::<BoneVert<O>>() as u64;
    }
    // Unreachable when the fast check failed (it flags only what the loop above finds), but
    // stay total: report the record block.
    Error::Invalid {
        format,
        what: "vertex.boneverts",
        offset: at,
        problem: Problem::NotFinite,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn warned(w: f32) -> bool {
        (w - 1.0).abs() > INFLUENCE_SUM_TOLERANCE
    }

    #[test]
    fn the_accepted_influence_bits_are_exactly_those_without_a_warning() {
        let (low, high) = ACCEPTED_INFLUENCE;
        assert!(!warned(f32::from_bits(low)) && warned(f32::from_bits(low - 1)));
        assert!(!warned(f32::from_bits(high)) && warned(f32::from_bits(high + 1)));
        assert!(f32::from_bits(low) < 1.0 && f32::from_bits(high) > 1.0);
        // Positive floats order as their bits: a sweep around both edges agrees.
        for bits in (low - 1000..low + 1000).chain(high - 1000..high + 1000) {
            assert_eq!((low..=high).contains(&bits), !warned(f32::from_bits(bits)));
        }
    }
}
