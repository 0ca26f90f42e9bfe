//! Validating a surface's MD4 vertices: the walk MDR's rules 10 and 11 and MDM's rule 6 make
//! (`docs/formats/mdr.md`, `docs/formats/mdm.md` § Validation), each format checking the
//! bones its own way.

use core::mem::offset_of;

use zerocopy::FromBytes;
use zerocopy::byteorder::{F32, I32, LittleEndian};

use super::raw::{Md4Vertex, Md4Weight};
use crate::bonevert::INFLUENCE_SUM_TOLERANCE;
use crate::diag::{Diagnostics, WarningKind};
use crate::error::{Error, Problem, Result};
use crate::floatbits::{Masks, raw};
use crate::format::Format;
use crate::limits::Limits;
use crate::read::Reader;
use crate::rules::{self, check_finite, record_offset};
use crate::scan;

type Le = LittleEndian;

/// Byte offset of a field at `field` in a structure at `base`.
fn at(base: u64, field: usize) -> u64 {
    base + field as u64
}

/// `count` vertices from `start` in the file `reader` reads, each inside the file with its
/// weights: 1 to `max_influences_per_vertex` weights, and all surfaces' weights (`total`,
/// carried from one surface to the next) within `max_total_influences`; normals, texture
/// coordinates, weights and offsets finite; every weight's `bone_index` below `bone_limit`
/// (as a `u32`, so a negative index is above it) or handed to `bone` (its `what`, offset and
/// value), the format's own check, which names the error. `bone` is also shown the first
/// weight's index and each index larger than every one before it, in file order, so that a
/// format can remember the largest. Weights not summing to 1 are a warning. Returns the end
/// of the last vertex.
///
/// A lean pass ([`passing`]) takes the vertices that meet every rule; the first that does
/// not goes through the field-by-field walk ([`vertex`]), which names the field. Errors name
/// the reader's format, `vertex.*` or `weight.*`, and the field's offset.
pub(crate) fn vertices(
    (reader, limits): (Reader<'_>, &Limits),
    total: &mut u64,
    (start, count): (u64, u32),
    diag: &mut Diagnostics,
    (bone_limit, mut bone): (u32, impl FnMut(&'static str, u64, &I32<Le>) -> Result<()>),
) -> Result<u64> {
    let mut offset = start;
    let mut left = count;
    let mut largest = None;
    while left > 0 {
        let rules = PassRules {
            format: reader.format(),
            max_weights: limits.max_influences_per_vertex,
            budget: limits.max_total_influences.saturating_sub(*total),
            bone_limit,
        };
        let bytes = (reader.walk(offset).rest(), offset);
        let passed = passing(bytes, left, rules, diag, (&mut largest, &mut bone))?;
        offset += passed.bytes as u64;
        left -= passed.vertices;
        *total += passed.weights;
        if left == 0 {
            break;
        }
        offset = vertex((reader, limits), total, offset, diag, &mut bone)?;
        left -= 1;
    }
    Ok(offset)
}

/// What [`passing`] holds a vertex to.
#[derive(Debug, Clone, Copy)]
struct PassRules {
    /// The format named in warnings.
    format: Format,
    /// Weights a vertex may have (`Limits::max_influences_per_vertex`).
    max_weights: u32,
    /// Weights all the vertices passed may have together.
    budget: u64,
    /// Bone indices, as `u32`, at or above it stop the pass.
    bone_limit: u32,
}

/// The vertices [`passing`] took, their bytes and their weights.
#[derive(Debug, Default)]
struct Passed {
    vertices: u32,
    bytes: usize,
    weights: u64,
}

/// Takes vertices from the start of `bytes` (at offset `base` of the file), at most `count`,
/// while each meets every rule of [`vertices`]; stops before the first that does not.
/// Weights not summing to 1 are warned of as the walk does. Each bone index above `largest`
/// (all of them while it is `None`) becomes it and goes to `bone`, whose error stops the
/// pass.
///
/// Where the CPU has a scan for them, runs of vertices whose bone indices are no larger than
/// one seen before go through it ([`scan::md4_vertices`]), and this pass takes the vertex it
/// stops at. Here the checks of a vertex's fixed part, and those of each weight, are folded
/// into one branch, taken only at a fault: what is left is the chain of counts (each
/// vertex's count says where the next starts), the loads and the sum.
fn passing(
    (bytes, base): (&[u8], u64),
    count: u32,
    rules: PassRules,
    diag: &mut Diagnostics,
    (largest, bone): (
        &mut Option<u32>,
        &mut impl FnMut(&'static str, u64, &I32<Le>) -> Result<()>,
    ),
) -> Result<Passed> {
    let masks = Masks::of::<Le>();
    let non_finite = |v: F32<Le>| masks.non_finite(raw(v));
    // A count of 0, a negative one and one above the limit all wrap to at least this.
    let max_weights = rules.max_weights.min(i32::MAX.cast_unsigned());
    let mut passed = Passed::default();
    let mut seen = *largest;
    let mut rest = bytes;
    'vertices: while passed.vertices < count {
        // The scan takes what it can while no index is new, up to a vertex this pass must
        // look at.
        if let (Some(seen), Some(max_index)) = (seen, rules.bone_limit.checked_sub(1)) {
            let stop = scan::Md4Stop {
                most: count - passed.vertices,
                max_weights,
                budget: rules.budget - passed.weights,
                max_index: seen.min(max_index),
                tolerance: INFLUENCE_SUM_TOLERANCE,
            };
            if let Some(walked) = scan::md4_vertices(rest, stop) {
                passed.vertices += walked.vertices;
                passed.weights += walked.influences;
                rest = rest.get(walked.bytes..).unwrap_or_default();
                if passed.vertices == count {
                    break;
                }
            }
        }
        let Ok((head, after)) = Md4Vertex::ref_from_prefix(rest) else {
            break;
        };
        let num_weights = head.num_weights.get().cast_unsigned();
        if num_weights.wrapping_sub(1) >= max_weights
            || passed.weights + u64::from(num_weights) > rules.budget
        {
            break;
        }
        let Ok((weights, after)) =
            <[Md4Weight]>::ref_from_prefix_with_elems(after, num_weights as usize)
        else {
            break;
        };
        let [n0, n1, n2] = head.normal;
        let [t0, t1] = head.tex_coords;
        if non_finite(n0) | non_finite(n1) | non_finite(n2) | non_finite(t0) | non_finite(t1) {
            break;
        }
        let mut sum = 0.0f32;
        let mut top = 0u32;
        for w in weights {
            let index = w.bone_index.get().cast_unsigned();
            let [o0, o1, o2] = w.offset;
            if non_finite(w.bone_weight)
                | non_finite(o0)
                | non_finite(o1)
                | non_finite(o2)
                | (index >= rules.bone_limit)
            {
                break 'vertices;
            }
            top = top.max(index);
            sum += w.bone_weight.get();
        }
        let first = base + (bytes.len() - after.len() - size_of_val(weights)) as u64;
        if seen.is_none_or(|m| top > m) {
            new_largest((&mut seen, &mut *bone), weights, first)?;
        }
        if (sum - 1.0).abs() > INFLUENCE_SUM_TOLERANCE {
            sum_warning(diag, rules.format, first, num_weights, sum);
        }
        passed.vertices += 1;
        passed.weights += u64::from(num_weights);
        rest = after;
    }
    *largest = seen;
    passed.bytes = bytes.len() - rest.len();
    Ok(passed)
}

/// Each index of `weights` (the first at `first`) above `largest` becomes it and goes to
/// `bone`, in order: the rare step of [`passing`].
#[cold]
fn new_largest(
    (largest, bone): (
        &mut Option<u32>,
        &mut impl FnMut(&'static str, u64, &I32<Le>) -> Result<()>,
    ),
    weights: &[Md4Weight],
    first: u64,
) -> Result<()> {
    for (i, w) in weights.iter().enumerate() {
        let index = w.bone_index.get().cast_unsigned();
        if largest.is_none_or(|m| index > m) {
            *largest = Some(index);
            bone(
                "weight.bone_index",
                record_offset::<Md4Weight>(first, i),
                &w.bone_index,
            )?;
        }
    }
    Ok(())
}

/// The vertex at `offset`, field by field: the walk that names the first field breaking a
/// rule of [`vertices`]. Returns the vertex's end.
fn vertex(
    (reader, limits): (Reader<'_>, &Limits),
    total: &mut u64,
    offset: u64,
    diag: &mut Diagnostics,
    bone: &mut impl FnMut(&'static str, u64, &I32<Le>) -> Result<()>,
) -> Result<u64> {
    let format = reader.format();
    let max_total = limits.max_total_influences;
    let vertex: &Md4Vertex = reader.ref_at("vertex", offset)?;
    let field = |f: usize| at(offset, f);
    check_finite(
        format,
        "vertex.normal",
        field(offset_of!(Md4Vertex, normal)),
        &vertex.normal,
    )?;
    check_finite(
        format,
        "vertex.tex_coords",
        field(offset_of!(Md4Vertex, tex_coords)),
        &vertex.tex_coords,
    )?;
    let weights_at = field(offset_of!(Md4Vertex, num_weights));
    let num_weights = rules::non_negative(
        format,
        "vertex.num_weights",
        weights_at,
        vertex.num_weights.get(),
    )?;
    if num_weights == 0 {
        return Err(Error::Invalid {
            format,
            what: "vertex.num_weights",
            offset: weights_at,
            problem: Problem::NoInfluences,
        });
    }
    rules::check_limit(
        format,
        "vertex.num_weights",
        weights_at,
        num_weights,
        limits.max_influences_per_vertex,
    )?;
    *total += u64::from(num_weights);
    if *total > max_total {
        return Err(Error::Limit {
            format,
            what: "weights (all surfaces)",
            offset: weights_at,
            value: *total,
            max: max_total,
        });
    }
    let first = offset + size_of::<Md4Vertex>() as u64;
    let weights = reader.slice_at::<Md4Weight>("vertex.weights", first, num_weights.into())?;
    let mut sum = 0.0f32;
    for (i, w) in weights.iter().enumerate() {
        let base = record_offset::<Md4Weight>(first, i);
        bone(
            "weight.bone_index",
            at(base, offset_of!(Md4Weight, bone_index)),
            &w.bone_index,
        )?;
        check_finite(
            format,
            "weight.bone_weight",
            at(base, offset_of!(Md4Weight, bone_weight)),
            core::slice::from_ref(&w.bone_weight),
        )?;
        check_finite(
            format,
            "weight.offset",
            at(base, offset_of!(Md4Weight, offset)),
            &w.offset,
        )?;
        sum += w.bone_weight.get();
    }
    if (sum - 1.0).abs() > INFLUENCE_SUM_TOLERANCE {
        sum_warning(diag, format, first, num_weights, sum);
    }
    Ok(rules::end(first, weights))
}

/// The warning for a vertex whose `num_weights` weights, from `first`, sum to `sum`.
#[cold]
fn sum_warning(diag: &mut Diagnostics, format: Format, first: u64, num_weights: u32, sum: f32) {
    diag.warn(
        format,
        WarningKind::InfluenceSum,
        "vertex.weights",
        first,
        || format!("weights of a {num_weights}-weight vertex sum to {sum}"),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a walk gave: its result (as `Debug` shows it: the error with its every field),
    /// its warnings, and the largest bone index it showed `bone` with the offset where that
    /// index first came.
    type Outcome = (String, Diagnostics, Option<(i32, u64)>);

    /// `vertices` with an MDR-like bone check (`< 8`, as an index error).
    fn walk(bytes: &[u8], count: u32, limits: &Limits, fast: bool) -> Outcome {
        let reader = Reader::new(bytes, Format::Mdr);
        let mut diag = Diagnostics::new();
        let mut largest = None::<(i32, u64)>;
        let mut total = 3;
        let mut bone = |what, offset, value: &I32<Le>| {
            let value = value.get();
            if largest.is_none_or(|(m, _)| value > m) && (0..8).contains(&value) {
                largest = Some((value, offset));
            }
            match value {
                0..8 => Ok(()),
                _ => Err(Error::Invalid {
                    format: Format::Mdr,
                    what,
                    offset,
                    problem: Problem::Index {
                        index: value.into(),
                        len: 8,
                    },
                }),
            }
        };
        let result = if fast {
            vertices(
                (reader, limits),
                &mut total,
                (8, count),
                &mut diag,
                (8, bone),
            )
        } else {
            // The field-by-field walk alone, vertex after vertex.
            (0..count).try_fold(8, |offset, _| {
                vertex((reader, limits), &mut total, offset, &mut diag, &mut bone)
            })
        };
        (format!("{result:?}"), diag, largest)
    }

    /// Eight bytes of file before `count` vertices of 1 to 4 weights, with indices up to 7,
    /// a few sums off 1, and a file tail.
    fn file(count: u32) -> Vec<u8> {
        let mut seed = 0x2545_f491_u32;
        let mut next = move |n: u32| {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (seed >> 8) % n
        };
        let mut bytes = vec![0xAB; 8];
        let put = |bytes: &mut Vec<u8>, v: u32| bytes.extend_from_slice(&v.to_le_bytes());
        for v in 0..count {
            for f in [0.0f32, 0.6, 0.8, 0.25, 0.5] {
                put(&mut bytes, f.to_bits());
            }
            let n = 1 + next(4);
            put(&mut bytes, n);
            for w in 0..n {
                put(&mut bytes, next(8));
                let share = if v % 7 == 3 { 0.3 } else { 1.0 / n as f32 };
                put(&mut bytes, share.to_bits());
                for f in [w as f32, -1.5, 2.0] {
                    put(&mut bytes, f.to_bits());
                }
            }
        }
        bytes.extend_from_slice(&[0xCD; 8]);
        bytes
    }

    #[test]
    fn the_pass_agrees_with_the_field_by_field_walk_on_every_damaged_byte() {
        let count = 24;
        let bytes = file(count);
        let tight = Limits {
            max_influences_per_vertex: 3,
            max_total_influences: 40,
            ..Limits::DEFAULT
        };
        let mut damaged = 0;
        for limits in [Limits::DEFAULT, tight] {
            let whole = walk(&bytes, count, &limits, true);
            assert_eq!(whole, walk(&bytes, count, &limits, false));
            for at in 8..bytes.len() {
                for value in [0xFF, 0x7F, 0x80, 0x00, 0x08] {
                    let mut b = bytes.clone();
                    b[at] = value;
                    let fast = walk(&b, count, &limits, true);
                    assert_eq!(fast, walk(&b, count, &limits, false), "byte {at} = {value}");
                    damaged += usize::from(fast.0.starts_with("Err"));
                }
            }
            // Cut short anywhere.
            for len in 8..bytes.len() {
                let b = &bytes[..len];
                assert_eq!(
                    walk(b, count, &limits, true),
                    walk(b, count, &limits, false)
                );
            }
        }
        // The undamaged file passes with its sums off 1 warned of, and the damage is seen.
        let (end, diag, largest) = walk(&bytes, count, &Limits::DEFAULT, true);
        assert_eq!(end, format!("Ok({})", bytes.len() - 8));
        assert_eq!(diag.count(WarningKind::InfluenceSum), 3);
        assert_eq!(largest.map(|l| l.0), Some(7));
        assert!(damaged > 1000, "{damaged}");
    }
}
