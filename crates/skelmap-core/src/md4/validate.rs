//! Validating a surface's MD4 vertices: the walk MDR's rules 10 and 11 and MDM's rule 6 make
//! (`docs/formats/mdr.md`, `docs/formats/mdm.md` § Validation), each format checking the
//! bones its own way.

use core::mem::offset_of;

use zerocopy::byteorder::{I32, LittleEndian};

use super::raw::{Md4Vertex, Md4Weight};
use crate::bonevert::INFLUENCE_SUM_TOLERANCE;
use crate::diag::{Diagnostics, WarningKind};
use crate::error::{Error, Problem, Result};
use crate::limits::Limits;
use crate::read::Reader;
use crate::rules::{self, check_finite, record_offset};

type Le = LittleEndian;

/// Byte offset of a field at `field` in a structure at `base`.
fn at(base: u64, field: usize) -> u64 {
    base + field as u64
}

/// `count` vertices from `start` in the file `reader` reads, each inside the file with its
/// weights: 1 to `max_influences_per_vertex` weights, and all surfaces' weights (`total`,
/// carried from one surface to the next) within `max_total_influences`; normals, texture
/// coordinates, weights and offsets finite; every weight's `bone_index` handed to `bone`
/// (its `what`, offset and value), the format's own check. Weights not summing to 1 are a
/// warning. Returns the end of the last vertex.
///
/// Errors name the reader's format, `vertex.*` or `weight.*`, and the field's offset.
pub(crate) fn vertices(
    (reader, limits): (Reader<'_>, &Limits),
    total: &mut u64,
    (start, count): (u64, u32),
    diag: &mut Diagnostics,
    mut bone: impl FnMut(&'static str, u64, &I32<Le>) -> Result<()>,
) -> Result<u64> {
    let format = reader.format();
    let max_total = limits.max_total_influences;
    let mut offset = start;
    for _ in 0..count {
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
            diag.warn(
                format,
                WarningKind::InfluenceSum,
                "vertex.weights",
                first,
                || format!("weights of a {num_weights}-weight vertex sum to {sum}"),
            );
        }
        offset = rules::end(first, weights);
    }
    Ok(offset)
}
