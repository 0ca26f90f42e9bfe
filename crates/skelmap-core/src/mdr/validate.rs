//! The validation pass: the header, the frames, the tags, then each level of detail's chain
//! of surfaces with their vertices, weights and triangles, every array proven inside the file
//! and every index in range (`docs/formats/mdr.md` § Validation, rules 1–12; the module docs
//! list them).

use core::mem::offset_of;

use zerocopy::byteorder::{F32, I32, LittleEndian};

use super::raw::{
    MDR_MAX_BONES, MDR_VERSION, MdrBone, MdrCompBone, MdrCompFrame, MdrFrame, MdrHeader, MdrLod,
    MdrSurface, MdrTag, MdrTriangle, SHADER_MAX_INDEXES, SHADER_MAX_VERTEXES,
};
use super::view::{self, FrameTable, Lod, Mdr, NO_TAG, Surface};
use crate::alias::idp3;
use crate::diag::{Diagnostics, WarningKind};
use crate::error::{Error, Problem, Result};
use crate::format::Format;
use crate::limits::Limits;
use crate::md4;
use crate::name;
use crate::parse::Parse;
use crate::read::Reader;
use crate::rules::{self, record_offset};

type Le = LittleEndian;

const FORMAT: Format = Format::Mdr;

/// Byte offset of a field at `field` in a structure at `base`.
fn at(base: u64, field: usize) -> u64 {
    base + field as u64
}

/// An `Invalid` error of this format.
fn invalid(what: &'static str, offset: u64, problem: Problem) -> Error {
    idp3::invalid(FORMAT, what, offset, problem)
}

/// A count or offset field that must not be negative.
fn non_negative(what: &'static str, offset: u64, value: &I32<Le>) -> Result<u32> {
    rules::non_negative(FORMAT, what, offset, value.get())
}

/// [`Error::Limit`] for `value` above `max`.
fn limit(what: &'static str, offset: u64, value: u32, max: u32) -> Result<()> {
    rules::check_limit(FORMAT, what, offset, value, max)
}

/// A warning where `value` goes past what ioquake3 accepts (`max`).
fn engine_limit(diag: &mut Diagnostics, what: &'static str, offset: u64, value: u32, max: u32) {
    rules::engine_limit(diag, (FORMAT, "ioquake3"), what, offset, value, max);
}

/// Floats that must be finite, the first that is not reported at its own offset.
fn finite(what: &'static str, first: u64, values: &[F32<Le>]) -> Result<()> {
    rules::check_finite(FORMAT, what, first, values)
}

/// An offset of the header that must point past it.
fn after_header(what: &'static str, field: u64, ofs: u64) -> Result<()> {
    let min = size_of::<MdrHeader>() as u64;
    if ofs < min {
        let problem = Problem::BelowMinimum { value: ofs, min };
        return Err(invalid(what, field, problem));
    }
    Ok(())
}

/// The header's counts, each proven not negative and within the limits.
#[derive(Clone, Copy)]
struct Counts {
    frames: u32,
    bones: u32,
    lods: u32,
    tags: u32,
}

/// Validates `data` under `limits`, recording findings in `diag`: the header (magic, version,
/// counts), the frames, the tags, then each level of detail and its surfaces in chain order.
impl<'data> Parse<'data> for Mdr<'data> {
    const FORMAT: Format = FORMAT;

    fn parse_with(
        data: &'data [u8],
        limits: &Limits,
        diag: &mut Diagnostics,
    ) -> Result<Mdr<'data>> {
        rules::begin(FORMAT, data, limits)?;
        let reader = Reader::new(data, FORMAT);
        let header: &MdrHeader = reader.ref_at("header", 0)?;
        version(header)?;
        // Rule 2, checked first as ioquake3 does.
        let end_at = at(0, offset_of!(MdrHeader, ofs_end));
        let end = rules::declared_end_first(reader, end_at, header.ofs_end.get())?;
        rules::check_name(
            FORMAT,
            diag,
            "header.name",
            at(0, offset_of!(MdrHeader, name)),
            &header.name,
        );
        let counts = counts(header, limits, diag)?;
        let mut furthest = size_of::<MdrHeader>() as u64;
        let (frames, frames_end) = frames(reader, header, counts, diag)?;
        furthest = furthest.max(frames_end);
        let (tags, tags_end) = tags(reader, header, counts)?;
        furthest = furthest.max(tags_end);
        let mut walk = SurfaceWalk {
            reader,
            bones: counts.bones,
            limits,
            total_weights: 0,
            furthest,
            packed: rules::Packed::new(FORMAT, reader.len()),
        };
        let lods = lods(&mut walk, header, counts, diag)?;
        if lods.first().is_none_or(|lod| lod.surfaces.is_empty()) {
            diag.warn(
                FORMAT,
                WarningKind::NoGroups,
                "header.num_lods",
                at(0, offset_of!(MdrHeader, num_lods)),
                || "no surface in LOD 0: a model of tags only".into(),
            );
        }
        file_end(reader, (end, end_at), walk.furthest, diag)?;
        // Each bone's first tag: the bones are named by their tags in O(1) each.
        let mut bone_tags = vec![NO_TAG; counts.bones as usize];
        for (i, tag) in tags.iter().enumerate().rev() {
            if let Some(slot) = bone_tags.get_mut(tag.bone_index.get() as usize) {
                *slot = i as u32;
            }
        }
        Ok(Mdr {
            header,
            frames,
            tags,
            bone_tags,
            lods,
        })
    }
}

/// Rule 1: version 2.
fn version(header: &MdrHeader) -> Result<()> {
    let version = header.version.get();
    if version != MDR_VERSION {
        return Err(Error::Unsupported {
            format: FORMAT,
            what: "header.version",
            offset: at(0, offset_of!(MdrHeader, version)),
            value: version.into(),
            supported: "MDR files are version 2",
        });
    }
    Ok(())
}

/// Rule 3: the counts not negative, at least one frame and one bone, within the limits (tags
/// as bones, levels of detail as meshes); past ioquake3's bones a warning.
fn counts(header: &MdrHeader, limits: &Limits, diag: &mut Diagnostics) -> Result<Counts> {
    let field = |f: usize| at(0, f);
    let frames_at = field(offset_of!(MdrHeader, num_frames));
    let frames = non_negative("header.num_frames", frames_at, &header.num_frames)?;
    rules::check_count(
        FORMAT,
        "header.num_frames",
        frames_at,
        frames,
        limits.max_frames,
    )?;
    let bones_at = field(offset_of!(MdrHeader, num_bones));
    let bones = non_negative("header.num_bones", bones_at, &header.num_bones)?;
    rules::check_count(
        FORMAT,
        "header.num_bones",
        bones_at,
        bones,
        limits.max_bones,
    )?;
    let lods_at = field(offset_of!(MdrHeader, num_lods));
    let lods = non_negative("header.num_lods", lods_at, &header.num_lods)?;
    limit("header.num_lods", lods_at, lods, limits.max_meshes)?;
    let tags_at = field(offset_of!(MdrHeader, num_tags));
    let tags = non_negative("header.num_tags", tags_at, &header.num_tags)?;
    limit("header.num_tags", tags_at, tags, limits.max_bones)?;
    engine_limit(diag, "header.num_bones", bones_at, bones, MDR_MAX_BONES);
    Ok(Counts {
        frames,
        bones,
        lods,
        tags,
    })
}

/// Rules 4 and 5: the frames where `ofs_frames` says (compressed at `-ofs_frames` for a
/// negative one), past the header, inside the file, every float finite. Returns them and
/// their end.
fn frames<'data>(
    reader: Reader<'data>,
    header: &MdrHeader,
    counts: Counts,
    diag: &mut Diagnostics,
) -> Result<(FrameTable<'data>, u64)> {
    let field = at(0, offset_of!(MdrHeader, ofs_frames));
    let ofs = i64::from(header.ofs_frames.get());
    let (compressed, start) = (ofs < 0, ofs.unsigned_abs());
    after_header("header.ofs_frames", field, start)?;
    let num_bones = counts.bones as usize;
    let stride = FrameTable::stride(compressed, num_bones) as u64;
    let bytes = u64::from(counts.frames) * stride;
    let Some(table) = reader.get_bytes(start, bytes) else {
        return Err(reader.truncated("frames", start, bytes));
    };
    let mut has_scale = false;
    for f in 0..u64::from(counts.frames) {
        let base = start + f * stride;
        has_scale |= frame(reader, base, compressed, counts.bones, diag)?;
    }
    let frames = FrameTable {
        bytes: table,
        compressed,
        num_frames: counts.frames as usize,
        num_bones,
        has_scale,
    };
    Ok((frames, start + bytes))
}

/// Rule 5 for the frame at `base`: its summary's floats finite, and for a plain frame every
/// matrix entry; a name filling its field is a warning. Returns whether a bone of the frame
/// scales ([`view::scales`]).
fn frame(
    reader: Reader<'_>,
    base: u64,
    compressed: bool,
    bones: u32,
    diag: &mut Diagnostics,
) -> Result<bool> {
    // The summary's floats lie at the same places in both encodings.
    let summary: &MdrCompFrame = reader.ref_at("frame", base)?;
    finite(
        "frame.bounds",
        at(base, offset_of!(MdrCompFrame, bounds)),
        summary.bounds.as_flattened(),
    )?;
    finite(
        "frame.local_origin",
        at(base, offset_of!(MdrCompFrame, local_origin)),
        &summary.local_origin,
    )?;
    finite(
        "frame.radius",
        at(base, offset_of!(MdrCompFrame, radius)),
        core::slice::from_ref(&summary.radius),
    )?;
    if compressed {
        let first = base + size_of::<MdrCompFrame>() as u64;
        let matrices = reader.slice_at::<MdrCompBone>("frame.bones", first, bones.into())?;
        return Ok(matrices.iter().any(|bone| view::scales(&bone.matrix())));
    }
    let plain: &MdrFrame = reader.ref_at("frame", base)?;
    if !name::is_terminated(&plain.name) {
        rules::check_name(
            FORMAT,
            diag,
            "frame.name",
            at(base, offset_of!(MdrFrame, name)),
            &plain.name,
        );
    }
    let first = base + size_of::<MdrFrame>() as u64;
    let matrices = reader.slice_at::<MdrBone>("frame.bones", first, bones.into())?;
    for (b, bone) in matrices.iter().enumerate() {
        finite(
            "frame.bones",
            record_offset::<MdrBone>(first, b),
            bone.matrix.as_flattened(),
        )?;
    }
    Ok(matrices.iter().any(|bone| view::scales(&bone.matrix())))
}

/// Rule 6: the tags at `ofs_tags`, past the header and inside the file, each name terminated
/// and each bone in range. Returns them and their end.
fn tags<'data>(
    reader: Reader<'data>,
    header: &MdrHeader,
    counts: Counts,
) -> Result<(&'data [MdrTag], u64)> {
    let field = at(0, offset_of!(MdrHeader, ofs_tags));
    let ofs = u64::from(non_negative("header.ofs_tags", field, &header.ofs_tags)?);
    if counts.tags == 0 {
        return Ok((&[], 0));
    }
    after_header("header.ofs_tags", field, ofs)?;
    let tags = reader.slice_at::<MdrTag>("tags", ofs, counts.tags.into())?;
    for (i, tag) in tags.iter().enumerate() {
        let base = record_offset::<MdrTag>(ofs, i);
        idp3::terminated(
            FORMAT,
            "tag.name",
            at(base, offset_of!(MdrTag, name)),
            &tag.name,
        )?;
        bone_index(
            "tag.bone_index",
            at(base, offset_of!(MdrTag, bone_index)),
            &tag.bone_index,
            counts.bones,
        )?;
    }
    Ok((tags, rules::end(ofs, tags)))
}

/// A bone index in `0..bones`.
fn bone_index(what: &'static str, offset: u64, value: &I32<Le>, bones: u32) -> Result<u32> {
    match u32::try_from(value.get()) {
        Ok(b) if b < bones => Ok(b),
        _ => Err(invalid(
            what,
            offset,
            Problem::Index {
                index: value.get().into(),
                len: bones.into(),
            },
        )),
    }
}

/// What the surface walk carries from one surface to the next.
struct SurfaceWalk<'a, 'data> {
    reader: Reader<'data>,
    bones: u32,
    limits: &'a Limits,
    /// Weights of every surface so far (against `Limits::max_total_influences`).
    total_weights: u64,
    /// The end of the furthest structure so far.
    furthest: u64,
    /// The LODs and surfaces so far, laid end to end as ioquake3 copies them.
    packed: rules::Packed,
}

/// Rule 7: the levels of detail along their chain from `ofs_lods`, each with its surfaces.
fn lods<'data>(
    walk: &mut SurfaceWalk<'_, 'data>,
    header: &MdrHeader,
    counts: Counts,
    diag: &mut Diagnostics,
) -> Result<Vec<Lod<'data>>> {
    let field = at(0, offset_of!(MdrHeader, ofs_lods));
    let mut base = u64::from(non_negative("header.ofs_lods", field, &header.ofs_lods)?);
    if counts.lods > 0 {
        after_header("header.ofs_lods", field, base)?;
    }
    let mut lods = Vec::with_capacity(counts.lods as usize);
    for _ in 0..counts.lods {
        let lod: &MdrLod = walk.reader.ref_at("lod", base)?;
        let lod_field = |f: usize| at(base, f);
        let surfaces_at = lod_field(offset_of!(MdrLod, num_surfaces));
        let num_surfaces = non_negative("lod.num_surfaces", surfaces_at, &lod.num_surfaces)?;
        limit(
            "lod.num_surfaces",
            surfaces_at,
            num_surfaces,
            walk.limits.max_meshes,
        )?;
        let first_at = lod_field(offset_of!(MdrLod, ofs_surfaces));
        let first = u64::from(non_negative(
            "lod.ofs_surfaces",
            first_at,
            &lod.ofs_surfaces,
        )?);
        let end_at = lod_field(offset_of!(MdrLod, ofs_end));
        let end = u64::from(non_negative("lod.ofs_end", end_at, &lod.ofs_end)?);
        let min = size_of::<MdrLod>() as u64;
        if num_surfaces > 0 && first < min {
            let problem = Problem::BelowMinimum { value: first, min };
            return Err(invalid("lod.ofs_surfaces", first_at, problem));
        }
        walk.furthest = walk.furthest.max(base + min);
        walk.packed.add("lod", base, min)?;
        let mut surfaces = Vec::with_capacity(num_surfaces as usize);
        let mut at_surface = base + first;
        for _ in 0..num_surfaces {
            let (surface, length) = self::surface(walk, at_surface, diag)?;
            surfaces.push(surface);
            at_surface += u64::from(length);
        }
        lods.push(Lod { surfaces });
        base += end;
    }
    Ok(lods)
}

/// Rules 8–12 for the surface whose header is at `base`. Returns it and its `ofs_end`.
fn surface<'data>(
    walk: &mut SurfaceWalk<'_, 'data>,
    base: u64,
    diag: &mut Diagnostics,
) -> Result<(Surface<'data>, u32)> {
    let reader = walk.reader;
    let header: &'data MdrSurface = reader.ref_at("surface", base)?;
    let field = |f: usize| at(base, f);
    let end = non_negative(
        "surface.ofs_end",
        field(offset_of!(MdrSurface, ofs_end)),
        &header.ofs_end,
    )?;
    rules::check_name(
        FORMAT,
        diag,
        "surface.name",
        field(offset_of!(MdrSurface, name)),
        &header.name,
    );
    // A shader path cut to its 64 bytes, as for MD3: the whole field is the name.
    rules::check_name(
        FORMAT,
        diag,
        "surface.shader",
        field(offset_of!(MdrSurface, shader)),
        &header.shader,
    );
    let verts_at = field(offset_of!(MdrSurface, num_verts));
    let verts = non_negative("surface.num_verts", verts_at, &header.num_verts)?;
    limit(
        "surface.num_verts",
        verts_at,
        verts,
        walk.limits.max_vertices_per_mesh,
    )?;
    let triangles_at = field(offset_of!(MdrSurface, num_triangles));
    let num_triangles = non_negative("surface.num_triangles", triangles_at, &header.num_triangles)?;
    limit(
        "surface.num_triangles",
        triangles_at,
        num_triangles,
        walk.limits.max_triangles_per_mesh,
    )?;
    engine_limit(
        diag,
        "surface.num_verts",
        verts_at,
        verts,
        SHADER_MAX_VERTEXES - 1,
    );
    engine_limit(
        diag,
        "surface.num_triangles",
        triangles_at,
        num_triangles,
        SHADER_MAX_INDEXES / 3 - 1,
    );
    let array = |what: &'static str, f: usize, value: &I32<Le>, count: u32| -> Result<u64> {
        let ofs = u64::from(non_negative(what, field(f), value)?);
        let min = size_of::<MdrSurface>() as u64;
        if count > 0 && ofs < min {
            return Err(invalid(
                what,
                field(f),
                Problem::BelowMinimum { value: ofs, min },
            ));
        }
        Ok(base + ofs)
    };
    let verts_start = array(
        "surface.ofs_verts",
        offset_of!(MdrSurface, ofs_verts),
        &header.ofs_verts,
        verts,
    )?;
    let triangles_start = array(
        "surface.ofs_triangles",
        offset_of!(MdrSurface, ofs_triangles),
        &header.ofs_triangles,
        num_triangles,
    )?;
    // Rules 10 and 11: the vertices and their weights, every bone in range.
    let bones = walk.bones;
    let verts_end = md4::validate::vertices(
        (reader, walk.limits),
        &mut walk.total_weights,
        (verts_start, verts),
        diag,
        (bones, |what, offset, value| {
            bone_index(what, offset, value, bones).map(drop)
        }),
    )?;
    let triangles =
        reader.slice_at::<MdrTriangle>("triangles", triangles_start, num_triangles.into())?;
    idp3::check_triangles(FORMAT, triangles, triangles_start, verts)?;
    let triangles_end = rules::end(triangles_start, triangles);
    let bytes = size_of::<MdrSurface>() as u64
        + (verts_end - verts_start)
        + (triangles_end - triangles_start);
    walk.packed.add("surface", base, bytes)?;
    walk.furthest = walk
        .furthest
        .max(base + size_of::<MdrSurface>() as u64)
        .max(verts_end)
        .max(triangles_end);
    let vertices = reader
        .get_bytes(verts_start, verts_end - verts_start)
        .unwrap_or_default();
    Ok((
        Surface::new((header, base), (vertices, verts), triangles, ()),
        end,
    ))
}

/// Rule 2: `ofs_end` (`end`, read at `field`) not past the file; short of the structures or
/// of the data, a warning.
fn file_end(
    reader: Reader<'_>,
    (end, field): (u64, u64),
    furthest: u64,
    diag: &mut Diagnostics,
) -> Result<()> {
    let range = (end, reader.len(), furthest);
    rules::check_declared_end(diag, FORMAT, ("header.ofs_end", field), range, "structure")
}
