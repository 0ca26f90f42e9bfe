//! The validation pass: the header, then the frames, the tag names, the tags and the chain of
//! surfaces, each where its offset says, every array proven inside the file and every index in
//! range (the rules are listed in the [module docs](super)).
//!
//! The checks that decode every vertex of every frame (frame bounds, radii and origins against
//! the vertices) judge the animation rather than make the file safe to read; they run when the
//! diagnostics are first asked for ([`Mdc::check_frames`]), not at open.

use core::mem::offset_of;

use zerocopy::byteorder::{I16, I32, LittleEndian};

use super::raw::{
    MDC_MAX_TRIANGLES, MDC_MAX_VERTS, MDC_VERSION, Md3Frame, Md3Shader, Md3St, Md3Triangle,
    Md3XyzNormal, MdcHeader, MdcSurface, MdcTag, MdcTagName, MdcXyzCompressed,
};
use super::view::{Mdc, Surface};
use crate::alias::idp3::{self, Array, Step};
use crate::diag::{Diagnostics, WarningKind};
use crate::error::{Error, Problem, Result};
use crate::format::Format;
use crate::limits::Limits;
use crate::name;
use crate::parse::Parse;
use crate::read::Reader;
use crate::rules::{self, record_offset};

type Le = LittleEndian;

const FORMAT: Format = Format::Mdc;

/// The size of the file header.
const HEADER_SIZE: u64 = size_of::<MdcHeader>() as u64;

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

/// A warning where `value` goes past what ET:Legacy accepts (`max`).
fn engine_limit(diag: &mut Diagnostics, what: &'static str, offset: u64, value: u32, max: u32) {
    rules::engine_limit(diag, (FORMAT, "ET:Legacy"), what, offset, value, max);
}

/// A header offset, not negative and, where it has something to point at, after the header.
fn header_offset(what: &'static str, field: usize, value: &I32<Le>, used: bool) -> Result<u64> {
    let field = at(0, field);
    let ofs = non_negative(what, field, value)?;
    if used {
        idp3::after_header(FORMAT, what, field, ofs, HEADER_SIZE)?;
    }
    Ok(ofs.into())
}

/// The header's counts, each proven not negative and within the limits.
#[derive(Clone, Copy)]
struct Counts {
    frames: u32,
    tags: u32,
    surfaces: u32,
}

/// Validates `data` under `limits`, recording findings in `diag`: the header (magic, version,
/// counts, offsets), the frames, the tag names and tags, then each surface in the order of the
/// chain.
impl<'data> Parse<'data> for Mdc<'data> {
    const FORMAT: Format = FORMAT;

    fn parse_with(
        data: &'data [u8],
        limits: &Limits,
        diag: &mut Diagnostics,
    ) -> Result<Mdc<'data>> {
        rules::begin(FORMAT, data, limits)?;
        let reader = Reader::new(data, FORMAT);
        let header: &MdcHeader = reader.ref_at("header", 0)?;
        version(header)?;
        rules::check_name(
            FORMAT,
            diag,
            "header.name",
            at(0, offset_of!(MdcHeader, name)),
            &header.name,
        );
        let counts = counts(header, limits, diag)?;
        let mut furthest = HEADER_SIZE;
        let (frames, frames_at) = frames(reader, header, counts, diag)?;
        furthest = furthest.max(rules::end(frames_at, frames));
        let (tag_names, names_at) = tag_names(reader, header, counts)?;
        furthest = furthest.max(rules::end(names_at, tag_names));
        let (tags, tags_at) = tags(reader, header, counts)?;
        furthest = furthest.max(rules::end(tags_at, tags));
        let (surfaces, surfaces_end) = surfaces(reader, header, counts, limits, diag)?;
        furthest = furthest.max(surfaces_end);
        if surfaces.is_empty() {
            diag.warn(
                FORMAT,
                WarningKind::NoGroups,
                "header.num_surfaces",
                at(0, offset_of!(MdcHeader, num_surfaces)),
                || "no surface with vertices: a model of tags only".into(),
            );
        }
        file_end(reader, header, furthest, diag)?;
        Ok(Mdc {
            header,
            frames,
            tag_names,
            tags,
            surfaces,
        })
    }
}

/// Version 2.
fn version(header: &MdcHeader) -> Result<()> {
    let version = header.version.get();
    if version != MDC_VERSION {
        return Err(Error::Unsupported {
            format: FORMAT,
            what: "header.version",
            offset: at(0, offset_of!(MdcHeader, version)),
            value: version.into(),
            supported: "MDC files are version 2",
        });
    }
    Ok(())
}

/// The frame, tag and surface counts: not negative, at least one frame (and no more than the
/// `i16` frame tables can name), within the limits (tags as bones, surfaces as meshes).
fn counts(header: &MdcHeader, limits: &Limits, diag: &mut Diagnostics) -> Result<Counts> {
    let frames_at = at(0, offset_of!(MdcHeader, num_frames));
    let frames = non_negative("header.num_frames", frames_at, &header.num_frames)?;
    rules::check_count(
        FORMAT,
        "header.num_frames",
        frames_at,
        frames,
        limits.max_frames,
    )?;
    let tags_at = at(0, offset_of!(MdcHeader, num_tags));
    let tags = non_negative("header.num_tags", tags_at, &header.num_tags)?;
    limit("header.num_tags", tags_at, tags, limits.max_bones)?;
    let surfaces_at = at(0, offset_of!(MdcHeader, num_surfaces));
    let surfaces = non_negative("header.num_surfaces", surfaces_at, &header.num_surfaces)?;
    limit(
        "header.num_surfaces",
        surfaces_at,
        surfaces,
        limits.max_meshes,
    )?;
    // Past `i16::MAX + 1` frames a surface's frame tables cannot name a base frame for each.
    engine_limit(diag, "header.num_frames", frames_at, frames, 32_768);
    Ok(Counts {
        frames,
        tags,
        surfaces,
    })
}

/// The frame summaries at `ofs_frames`, inside the file and after the header. Their names are
/// display-only (a missing NUL is a warning); their bounds are checked later
/// ([`Mdc::check_frames`]).
fn frames<'data>(
    reader: Reader<'data>,
    header: &MdcHeader,
    counts: Counts,
    diag: &mut Diagnostics,
) -> Result<(&'data [Md3Frame], u64)> {
    let ofs = header_offset(
        "header.ofs_frames",
        offset_of!(MdcHeader, ofs_frames),
        &header.ofs_frames,
        true,
    )?;
    let frames = reader.slice_at::<Md3Frame>("frames", ofs, counts.frames.into())?;
    if let Some(i) = frames.iter().position(|f| !name::is_terminated(&f.name)) {
        let offset = record_offset::<Md3Frame>(ofs, i) + offset_of!(Md3Frame, name) as u64;
        rules::check_name(FORMAT, diag, "frame.name", offset, &frames[i].name);
    }
    Ok((frames, ofs))
}

/// The tag names at `ofs_tag_names`, `num_tags` of them, each ending with a NUL in its field.
fn tag_names<'data>(
    reader: Reader<'data>,
    header: &MdcHeader,
    counts: Counts,
) -> Result<(&'data [MdcTagName], u64)> {
    let ofs = header_offset(
        "header.ofs_tag_names",
        offset_of!(MdcHeader, ofs_tag_names),
        &header.ofs_tag_names,
        counts.tags > 0,
    )?;
    let names = reader.slice_at::<MdcTagName>("tag_names", ofs, counts.tags.into())?;
    for (i, n) in names.iter().enumerate() {
        let offset = record_offset::<MdcTagName>(ofs, i);
        idp3::terminated(FORMAT, "tag_name.name", offset, &n.name)?;
    }
    Ok((names, ofs))
}

/// The tags at `ofs_tags`, `num_frames · num_tags` of them, inside the file (every value of an
/// `mdcTag_t` is a valid position or angle).
fn tags<'data>(
    reader: Reader<'data>,
    header: &MdcHeader,
    counts: Counts,
) -> Result<(&'data [MdcTag], u64)> {
    let count = u64::from(counts.frames) * u64::from(counts.tags);
    let ofs = header_offset(
        "header.ofs_tags",
        offset_of!(MdcHeader, ofs_tags),
        &header.ofs_tags,
        count > 0,
    )?;
    Ok((reader.slice_at::<MdcTag>("tags", ofs, count)?, ofs))
}

/// The surfaces along their chain from `ofs_surfaces`: the empty ones (no vertices, no
/// triangles) skipped with a warning, the others validated by [`surface`]. Returns them and
/// the end of the last.
fn surfaces<'data>(
    reader: Reader<'data>,
    header: &MdcHeader,
    counts: Counts,
    limits: &Limits,
    diag: &mut Diagnostics,
) -> Result<(Vec<Surface<'data>>, u64)> {
    let first = header_offset(
        "header.ofs_surfaces",
        offset_of!(MdcHeader, ofs_surfaces),
        &header.ofs_surfaces,
        counts.surfaces > 0,
    )?;
    let size = size_of::<MdcSurface>() as u64;
    let chain = (first, counts.surfaces, size);
    idp3::walk_surfaces(FORMAT, chain, diag, |offset, diag| {
        let header: &MdcSurface = reader.ref_at("surface", offset)?;
        surface(reader, offset, header, counts, limits, diag)
    })
}

/// The surface counts and `ofs_end`, each not negative.
struct SurfaceFields {
    comp_frames: u32,
    base_frames: u32,
    shaders: u32,
    verts: u32,
    triangles: u32,
    end: u32,
}

/// The surface whose header is at `base`: its counts within the limits, its arrays inside the
/// file, inside the surface and not overlapping, names terminated, triangle indices and frame
/// tables in range.
fn surface<'data>(
    reader: Reader<'data>,
    base: u64,
    header: &'data MdcSurface,
    counts: Counts,
    limits: &Limits,
    diag: &mut Diagnostics,
) -> Result<Step<Surface<'data>>> {
    let field = |f: usize| at(base, f);
    let fields = surface_fields(header, base, limits, diag)?;
    let empty = fields.verts == 0 && fields.triangles == 0;
    if empty && fields.end == 0 {
        return Ok(Step::Repeat);
    }
    if fields.verts == 0 && !empty {
        return Err(invalid(
            "surface.num_verts",
            field(offset_of!(MdcSurface, num_verts)),
            Problem::Empty,
        ));
    }
    if !empty && fields.base_frames == 0 {
        return Err(invalid(
            "surface.num_base_frames",
            field(offset_of!(MdcSurface, num_base_frames)),
            Problem::Empty,
        ));
    }
    rules::check_name(
        FORMAT,
        diag,
        "surface.name",
        field(offset_of!(MdcSurface, name)),
        &header.name,
    );
    check_layout(header, base, &fields, counts.frames, empty)?;
    if empty {
        return Ok(Step::Empty(fields.end));
    }
    let surface = read_surface(reader, header, base, &fields, counts.frames)?;
    let rel = |v: &I32<Le>| base + u64::from(v.get() as u32);
    for (i, shader) in surface.shaders.iter().enumerate() {
        let offset = record_offset::<Md3Shader>(rel(&header.ofs_shaders), i);
        // A shader path cut to its 64 bytes, as for MD3: the whole field is the name.
        rules::check_name(
            FORMAT,
            diag,
            "shader.name",
            at(offset, offset_of!(Md3Shader, name)),
            &shader.name,
        );
    }
    let triangles_at = rel(&header.ofs_triangles);
    idp3::check_triangles(FORMAT, surface.triangles, triangles_at, fields.verts)?;
    check_frame_table(
        "surface.frame_base_frames",
        surface.base_frames,
        rel(&header.ofs_frame_base_frames),
        fields.base_frames,
        false,
    )?;
    if fields.comp_frames > 0 {
        check_frame_table(
            "surface.frame_comp_frames",
            surface.comp_frames,
            rel(&header.ofs_frame_comp_frames),
            fields.comp_frames,
            true,
        )?;
    }
    if let Some(i) = surface
        .st
        .iter()
        .position(|s| !(s.st[0].get().is_finite() && s.st[1].get().is_finite()))
    {
        let offset = record_offset::<Md3St>(rel(&header.ofs_st), i);
        diag.warn(
            FORMAT,
            WarningKind::NonFiniteTexcoord,
            "surface.st",
            offset,
            || "a texture coordinate is NaN or infinite".into(),
        );
    }
    Ok(Step::Next(surface, fields.end))
}

/// The arrays of the surface whose header is at `base`, each read where its offset says
/// (rule 7 has placed them), and its end inside the file.
fn read_surface<'data>(
    reader: Reader<'data>,
    header: &'data MdcSurface,
    base: u64,
    fields: &SurfaceFields,
    frames: u32,
) -> Result<Surface<'data>> {
    let rel = |v: &I32<Le>| base + u64::from(v.get() as u32);
    let n = u64::from(fields.verts);
    let shaders = reader.slice_at::<Md3Shader>(
        "surface.shaders",
        rel(&header.ofs_shaders),
        fields.shaders.into(),
    )?;
    let triangles = reader.slice_at::<Md3Triangle>(
        "surface.triangles",
        rel(&header.ofs_triangles),
        fields.triangles.into(),
    )?;
    let st = reader.slice_at::<Md3St>("surface.st", rel(&header.ofs_st), n)?;
    let xyz = reader.slice_at::<Md3XyzNormal>(
        "surface.xyz_normals",
        rel(&header.ofs_xyz_normals),
        n * u64::from(fields.base_frames),
    )?;
    let comp = reader.slice_at::<MdcXyzCompressed>(
        "surface.xyz_compressed",
        rel(&header.ofs_xyz_compressed),
        n * u64::from(fields.comp_frames),
    )?;
    let base_frames = reader.slice_at::<I16<Le>>(
        "surface.frame_base_frames",
        rel(&header.ofs_frame_base_frames),
        frames.into(),
    )?;
    let comp_frames = reader.slice_at::<I16<Le>>(
        "surface.frame_comp_frames",
        rel(&header.ofs_frame_comp_frames),
        frames.into(),
    )?;
    // The surface's end inside the file too: the next surface starts there.
    if base + u64::from(fields.end) > reader.len() {
        return Err(reader.truncated("surface", base, fields.end.into()));
    }
    Ok(Surface {
        header,
        offset: base,
        shaders,
        triangles,
        st,
        xyz,
        comp,
        base_frames,
        comp_frames,
        num_verts: fields.verts,
        has_comp: fields.comp_frames > 0,
    })
}

/// Rule 7 for the surface whose header is at `base`: its seven arrays, in offset order, each
/// after the header and the one before, all ending by `ofs_end` (the frame tables count only
/// for a surface with vertices).
fn check_layout(
    header: &MdcSurface,
    base: u64,
    fields: &SurfaceFields,
    frames: u32,
    empty: bool,
) -> Result<()> {
    let field = |f: usize| at(base, f);
    let n = u64::from(fields.verts);
    let tables = u64::from(frames) * 2;
    let array = |what: &'static str, f: usize, value: &I32<Le>, bytes: u64| -> Result<Array> {
        let start = u64::from(non_negative(what, field(f), value)?);
        Ok(Array {
            what,
            field: field(f),
            start,
            bytes,
        })
    };
    let table_bytes = if empty { 0 } else { tables };
    let mut arrays = [
        array(
            "surface.ofs_shaders",
            offset_of!(MdcSurface, ofs_shaders),
            &header.ofs_shaders,
            u64::from(fields.shaders) * size_of::<Md3Shader>() as u64,
        )?,
        array(
            "surface.ofs_triangles",
            offset_of!(MdcSurface, ofs_triangles),
            &header.ofs_triangles,
            u64::from(fields.triangles) * size_of::<Md3Triangle>() as u64,
        )?,
        array(
            "surface.ofs_st",
            offset_of!(MdcSurface, ofs_st),
            &header.ofs_st,
            n * size_of::<Md3St>() as u64,
        )?,
        array(
            "surface.ofs_xyz_normals",
            offset_of!(MdcSurface, ofs_xyz_normals),
            &header.ofs_xyz_normals,
            n * u64::from(fields.base_frames) * size_of::<Md3XyzNormal>() as u64,
        )?,
        array(
            "surface.ofs_xyz_compressed",
            offset_of!(MdcSurface, ofs_xyz_compressed),
            &header.ofs_xyz_compressed,
            n * u64::from(fields.comp_frames) * size_of::<MdcXyzCompressed>() as u64,
        )?,
        array(
            "surface.ofs_frame_base_frames",
            offset_of!(MdcSurface, ofs_frame_base_frames),
            &header.ofs_frame_base_frames,
            table_bytes,
        )?,
        array(
            "surface.ofs_frame_comp_frames",
            offset_of!(MdcSurface, ofs_frame_comp_frames),
            &header.ofs_frame_comp_frames,
            table_bytes,
        )?,
    ];
    idp3::check_arrays(
        FORMAT,
        size_of::<MdcSurface>() as u64,
        &mut arrays,
        (
            "surface.ofs_end",
            field(offset_of!(MdcSurface, ofs_end)),
            fields.end,
        ),
    )?;
    Ok(())
}

/// A frame table (`first` its file offset): every entry below `len`; with `none_allowed`, a
/// negative entry means "no compressed frame", as the engines read it.
fn check_frame_table(
    what: &'static str,
    table: &[I16<Le>],
    first: u64,
    len: u32,
    none_allowed: bool,
) -> Result<()> {
    let bad = |v: i16| {
        if v < 0 {
            !none_allowed
        } else {
            u32::from(v.unsigned_abs()) >= len
        }
    };
    if let Some(i) = table.iter().position(|v| bad(v.get())) {
        let problem = Problem::Index {
            index: table[i].get().into(),
            len: len.into(),
        };
        return Err(invalid(what, record_offset::<I16<Le>>(first, i), problem));
    }
    Ok(())
}

/// A surface's counts and `ofs_end`, not negative and within the limits (past ET:Legacy's, a
/// warning).
fn surface_fields(
    header: &MdcSurface,
    base: u64,
    limits: &Limits,
    diag: &mut Diagnostics,
) -> Result<SurfaceFields> {
    let field = |f: usize| at(base, f);
    let count = |what: &'static str, f: usize, v: &I32<Le>| non_negative(what, field(f), v);
    let comp_frames = count(
        "surface.num_comp_frames",
        offset_of!(MdcSurface, num_comp_frames),
        &header.num_comp_frames,
    )?;
    let base_frames = count(
        "surface.num_base_frames",
        offset_of!(MdcSurface, num_base_frames),
        &header.num_base_frames,
    )?;
    let shaders = count(
        "surface.num_shaders",
        offset_of!(MdcSurface, num_shaders),
        &header.num_shaders,
    )?;
    let verts = count(
        "surface.num_verts",
        offset_of!(MdcSurface, num_verts),
        &header.num_verts,
    )?;
    let triangles = count(
        "surface.num_triangles",
        offset_of!(MdcSurface, num_triangles),
        &header.num_triangles,
    )?;
    let end = count(
        "surface.ofs_end",
        offset_of!(MdcSurface, ofs_end),
        &header.ofs_end,
    )?;
    let verts_at = field(offset_of!(MdcSurface, num_verts));
    let triangles_at = field(offset_of!(MdcSurface, num_triangles));
    limit(
        "surface.num_verts",
        verts_at,
        verts,
        limits.max_vertices_per_mesh,
    )?;
    limit(
        "surface.num_triangles",
        triangles_at,
        triangles,
        limits.max_triangles_per_mesh,
    )?;
    limit(
        "surface.num_base_frames",
        field(offset_of!(MdcSurface, num_base_frames)),
        base_frames,
        limits.max_frames,
    )?;
    limit(
        "surface.num_comp_frames",
        field(offset_of!(MdcSurface, num_comp_frames)),
        comp_frames,
        limits.max_frames,
    )?;
    engine_limit(diag, "surface.num_verts", verts_at, verts, MDC_MAX_VERTS);
    engine_limit(
        diag,
        "surface.num_triangles",
        triangles_at,
        triangles,
        MDC_MAX_TRIANGLES,
    );
    Ok(SurfaceFields {
        comp_frames,
        base_frames,
        shaders,
        verts,
        triangles,
        end,
    })
}

/// `ofs_end`, the file's length: past the data is truncation; short of the structures or of
/// the data, a warning (the engines copy only `ofs_end` bytes).
fn file_end(
    reader: Reader<'_>,
    header: &MdcHeader,
    furthest: u64,
    diag: &mut Diagnostics,
) -> Result<()> {
    let field = at(0, offset_of!(MdcHeader, ofs_end));
    let end = u64::from(non_negative("header.ofs_end", field, &header.ofs_end)?);
    let range = (end, reader.len(), furthest);
    rules::check_declared_end(diag, FORMAT, ("header.ofs_end", field), range, "structure")
}

/// The checks that judge the frames rather than prove the file safe to read: here with the
/// rules, and called through the view (`ModelView::check_animation`).
impl Mdc<'_> {
    /// Every decoded vertex of every frame against its frame's stored bounds, radius and
    /// origin: a [`WarningKind::Bounds`](crate::diag::WarningKind::Bounds) where they disagree.
    /// A pass over all frames, which [`Model::diagnostics`](crate::Model::diagnostics) runs
    /// when first asked, not at open.
    pub fn check_frames(&self, diag: &mut Diagnostics) {
        let ofs_frames = u64::from(self.header.ofs_frames.get() as u32);
        let positions = |f: usize, visit: &mut dyn FnMut([f32; 3])| {
            for s in &self.surfaces {
                for v in 0..s.num_vertices() {
                    if let Some(p) = s.position(f, v) {
                        visit(p);
                    }
                }
            }
        };
        idp3::check_frame_bounds(FORMAT, self.frames, ofs_frames, positions, diag);
    }
}
