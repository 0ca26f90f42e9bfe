//! The validation pass: the header, then the frames, the tags and the chain of surfaces, each
//! where its offset says, every array proven inside the file and every index in range (the
//! rules are listed in the [module docs](super)).
//!
//! The checks that read every vertex of every frame (frame bounds, radii and origins against
//! the vertices) judge the animation rather than make the file safe to read; they run when
//! the diagnostics are first asked for ([`Md3::check_frames`]), not at open.

use core::mem::offset_of;

use zerocopy::byteorder::{F32, I32, LittleEndian};

use super::raw::{
    MD3_MAGIC, MD3_MAX_FRAMES, MD3_MAX_SHADERS, MD3_MAX_SURFACES, MD3_MAX_TAGS, MD3_MAX_TRIANGLES,
    MD3_MAX_VERTS, MD3_VERSION, Md3Frame, Md3Header, Md3Shader, Md3St, Md3Surface, Md3Tag,
    Md3Triangle, Md3XyzNormal,
};
use super::view::{Md3, Surface};
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

const FORMAT: Format = Format::Md3;

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

/// A name field an engine looks up as a C string (a surface or tag name): it must end
/// inside its field.
fn terminated(what: &'static str, offset: u64, field: &[u8]) -> Result<()> {
    idp3::terminated(FORMAT, what, offset, field)
}

/// Floats that must be finite, the first that is not reported at its own offset.
fn finite(what: &'static str, first: u64, values: &[F32<Le>]) -> Result<()> {
    match values.iter().position(|v| !v.get().is_finite()) {
        Some(i) => Err(invalid(
            what,
            record_offset::<F32<Le>>(first, i),
            Problem::NotFinite,
        )),
        None => Ok(()),
    }
}

/// The header's counts, each proven not negative and within the limits.
#[derive(Clone, Copy)]
struct Counts {
    frames: u32,
    tags: u32,
    surfaces: u32,
}

/// Validates `data` under `limits`, recording findings in `diag`: the header (magic, version,
/// counts, offsets), the frames, the tags, then each surface in the order of the chain.
impl<'data> Parse<'data> for Md3<'data> {
    const FORMAT: Format = FORMAT;

    fn parse_with(
        data: &'data [u8],
        limits: &Limits,
        diag: &mut Diagnostics,
    ) -> Result<Md3<'data>> {
        rules::begin(FORMAT, data, limits)?;
        let reader = Reader::new(data, FORMAT);
        let header: &Md3Header = reader.ref_at("header", 0)?;
        version(header)?;
        rules::check_name(
            FORMAT,
            diag,
            "header.name",
            at(0, offset_of!(Md3Header, name)),
            &header.name,
        );
        let counts = counts(header, limits, diag)?;
        let mut furthest = size_of::<Md3Header>() as u64;
        let frames = frames(reader, header, counts, diag)?;
        let frames_at = u64::from(header.ofs_frames.get() as u32);
        furthest = furthest.max(rules::end(frames_at, frames));
        let tags = tags(reader, header, counts, diag)?;
        let tags_at = u64::from(header.ofs_tags.get() as u32);
        furthest = furthest.max(rules::end(tags_at, tags));
        let (surfaces, surfaces_end) = surfaces(reader, header, counts, limits, diag)?;
        furthest = furthest.max(surfaces_end);
        if surfaces.is_empty() {
            diag.warn(
                FORMAT,
                WarningKind::NoGroups,
                "header.num_surfaces",
                at(0, offset_of!(Md3Header, num_surfaces)),
                || "no surface with vertices: a model of tags only".into(),
            );
        }
        file_end(reader, header, furthest, diag)?;
        Ok(Md3 {
            header,
            frames,
            tags,
            num_tags: counts.tags,
            surfaces,
        })
    }
}

/// Version 15.
fn version(header: &Md3Header) -> Result<()> {
    let version = header.version.get();
    if version != MD3_VERSION {
        return Err(Error::Unsupported {
            format: FORMAT,
            what: "header.version",
            offset: at(0, offset_of!(Md3Header, version)),
            value: version.into(),
            supported: "MD3 files are version 15",
        });
    }
    Ok(())
}

/// The frame, tag and surface counts: not negative, at least one frame, within the limits
/// (tags as bones, surfaces as meshes); past ioquake3's own limits a warning.
fn counts(header: &Md3Header, limits: &Limits, diag: &mut Diagnostics) -> Result<Counts> {
    let frames_at = at(0, offset_of!(Md3Header, num_frames));
    let frames = non_negative("header.num_frames", frames_at, &header.num_frames)?;
    rules::check_count(
        FORMAT,
        "header.num_frames",
        frames_at,
        frames,
        limits.max_frames,
    )?;
    let tags_at = at(0, offset_of!(Md3Header, num_tags));
    let tags = non_negative("header.num_tags", tags_at, &header.num_tags)?;
    limit("header.num_tags", tags_at, tags, limits.max_bones)?;
    let surfaces_at = at(0, offset_of!(Md3Header, num_surfaces));
    let surfaces = non_negative("header.num_surfaces", surfaces_at, &header.num_surfaces)?;
    limit(
        "header.num_surfaces",
        surfaces_at,
        surfaces,
        limits.max_meshes,
    )?;
    engine_limit(diag, "header.num_frames", frames_at, frames, MD3_MAX_FRAMES);
    engine_limit(diag, "header.num_tags", tags_at, tags, MD3_MAX_TAGS);
    engine_limit(
        diag,
        "header.num_surfaces",
        surfaces_at,
        surfaces,
        MD3_MAX_SURFACES,
    );
    Ok(Counts {
        frames,
        tags,
        surfaces,
    })
}

/// The frames at `ofs_frames`, inside the file and after the header. Their names are
/// display-only (a missing NUL is a warning); their bounds are checked later
/// ([`Md3::check_frames`]).
fn frames<'data>(
    reader: Reader<'data>,
    header: &Md3Header,
    counts: Counts,
    diag: &mut Diagnostics,
) -> Result<&'data [Md3Frame]> {
    let field = at(0, offset_of!(Md3Header, ofs_frames));
    let ofs = non_negative("header.ofs_frames", field, &header.ofs_frames)?;
    after_header("header.ofs_frames", field, ofs)?;
    let frames = reader.slice_at::<Md3Frame>("frames", ofs.into(), counts.frames.into())?;
    if let Some(i) = frames.iter().position(|f| !name::is_terminated(&f.name)) {
        let offset = record_offset::<Md3Frame>(ofs.into(), i) + offset_of!(Md3Frame, name) as u64;
        rules::check_name(FORMAT, diag, "frame.name", offset, &frames[i].name);
    }
    Ok(frames)
}

/// The tags at `ofs_tags`, `num_frames · num_tags` of them: inside the file and after the
/// header, each name terminated, each origin and axis finite (whether the axes are a rotation
/// is judged with the frames, [`check_frames`]).
fn tags<'data>(
    reader: Reader<'data>,
    header: &Md3Header,
    counts: Counts,
    _: &mut Diagnostics,
) -> Result<&'data [Md3Tag]> {
    let field = at(0, offset_of!(Md3Header, ofs_tags));
    let ofs = non_negative("header.ofs_tags", field, &header.ofs_tags)?;
    let count = u64::from(counts.frames) * u64::from(counts.tags);
    if count > 0 {
        after_header("header.ofs_tags", field, ofs)?;
    }
    let tags = reader.slice_at::<Md3Tag>("tags", ofs.into(), count)?;
    for (i, tag) in tags.iter().enumerate() {
        let base = record_offset::<Md3Tag>(ofs.into(), i);
        terminated("tag.name", at(base, offset_of!(Md3Tag, name)), &tag.name)?;
        finite(
            "tag.origin",
            at(base, offset_of!(Md3Tag, origin)),
            &tag.origin,
        )?;
        finite(
            "tag.axis",
            at(base, offset_of!(Md3Tag, axis)),
            tag.axis.as_flattened(),
        )?;
    }
    Ok(tags)
}

/// An offset of the header that must not point into the header.
fn after_header(what: &'static str, field: u64, ofs: u32) -> Result<()> {
    idp3::after_header(FORMAT, what, field, ofs, size_of::<Md3Header>() as u64)
}

/// The surfaces along their chain from `ofs_surfaces`: the empty ones (no vertices, no
/// triangles) skipped with a warning, the others validated by [`surface`]. Returns them and
/// the end of the last.
fn surfaces<'data>(
    reader: Reader<'data>,
    header: &Md3Header,
    counts: Counts,
    limits: &Limits,
    diag: &mut Diagnostics,
) -> Result<(Vec<Surface<'data>>, u64)> {
    let field = at(0, offset_of!(Md3Header, ofs_surfaces));
    let first = non_negative("header.ofs_surfaces", field, &header.ofs_surfaces)?;
    if counts.surfaces > 0 {
        after_header("header.ofs_surfaces", field, first)?;
    }
    let size = size_of::<Md3Surface>() as u64;
    let chain = (u64::from(first), counts.surfaces, size);
    idp3::walk_surfaces(FORMAT, chain, diag, |offset, diag| {
        let header: &Md3Surface = reader.ref_at("surface", offset)?;
        surface(reader, offset, header, counts, limits, diag)
    })
}

/// The surface counts and offsets, each not negative.
struct SurfaceFields {
    frames: u32,
    shaders: u32,
    verts: u32,
    triangles: u32,
    end: u32,
}

/// The surface whose header is at `base`: its counts within the limits, its arrays inside the
/// file, inside the surface and not overlapping, names terminated, triangle indices in range,
/// frames the model's.
fn surface<'data>(
    reader: Reader<'data>,
    base: u64,
    header: &'data Md3Surface,
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
            field(offset_of!(Md3Surface, num_verts)),
            Problem::Empty,
        ));
    }
    if !empty && fields.frames != counts.frames {
        return Err(invalid(
            "surface.num_frames",
            field(offset_of!(Md3Surface, num_frames)),
            Problem::Mismatch {
                value: fields.frames.into(),
                expected: counts.frames.into(),
            },
        ));
    }
    rules::check_name(
        FORMAT,
        diag,
        "surface.name",
        field(offset_of!(Md3Surface, name)),
        &header.name,
    );
    if &header.ident != MD3_MAGIC {
        diag.warn(
            FORMAT,
            WarningKind::SpecLimit,
            "surface.ident",
            field(offset_of!(Md3Surface, ident)),
            || "a surface's ident is not \"IDP3\"".into(),
        );
    }
    check_arrays(header, base, &fields)?;
    if empty {
        return Ok(Step::Empty(fields.end));
    }
    let rel = |v: &I32<Le>| base + u64::from(v.get() as u32);
    let xyz_count = u64::from(fields.verts) * u64::from(fields.frames);
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
    let st = reader.slice_at::<Md3St>("surface.st", rel(&header.ofs_st), fields.verts.into())?;
    let xyz = reader.slice_at::<Md3XyzNormal>(
        "surface.xyz_normals",
        rel(&header.ofs_xyz_normals),
        xyz_count,
    )?;
    // The surface's end inside the file too: the next surface starts there.
    if base + u64::from(fields.end) > reader.len() {
        return Err(reader.truncated("surface", base, fields.end.into()));
    }
    for (i, shader) in shaders.iter().enumerate() {
        let offset = record_offset::<Md3Shader>(rel(&header.ofs_shaders), i);
        // Exporters write a shader's path cut to its 64 bytes: the engines read past the
        // field to the index after it (usually 0), so the name is the whole field.
        rules::check_name(
            FORMAT,
            diag,
            "shader.name",
            at(offset, offset_of!(Md3Shader, name)),
            &shader.name,
        );
    }
    idp3::check_triangles(FORMAT, triangles, rel(&header.ofs_triangles), fields.verts)?;
    if let Some(i) = st
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
    Ok(Step::Next(
        Surface {
            header,
            offset: base,
            shaders,
            triangles,
            st,
            xyz,
            num_verts: fields.verts,
        },
        fields.end,
    ))
}

/// The surface's four arrays (shaders, triangles, texture coordinates, frame vertices): each
/// offset not negative and, in offset order, every array with bytes after the header and
/// after the one before it, and all of them before `ofs_end`.
fn check_arrays(header: &Md3Surface, base: u64, fields: &SurfaceFields) -> Result<()> {
    let field = |f: usize| at(base, f);
    let array = |what: &'static str, f: usize, value: &I32<Le>, bytes: u64| -> Result<Array> {
        let start = u64::from(non_negative(what, field(f), value)?);
        Ok(Array {
            what,
            field: field(f),
            start,
            bytes,
        })
    };
    let xyz_count = u64::from(fields.verts) * u64::from(fields.frames);
    let mut arrays = [
        array(
            "surface.ofs_shaders",
            offset_of!(Md3Surface, ofs_shaders),
            &header.ofs_shaders,
            u64::from(fields.shaders) * size_of::<Md3Shader>() as u64,
        )?,
        array(
            "surface.ofs_triangles",
            offset_of!(Md3Surface, ofs_triangles),
            &header.ofs_triangles,
            u64::from(fields.triangles) * size_of::<Md3Triangle>() as u64,
        )?,
        array(
            "surface.ofs_st",
            offset_of!(Md3Surface, ofs_st),
            &header.ofs_st,
            u64::from(fields.verts) * size_of::<Md3St>() as u64,
        )?,
        array(
            "surface.ofs_xyz_normals",
            offset_of!(Md3Surface, ofs_xyz_normals),
            &header.ofs_xyz_normals,
            xyz_count * size_of::<Md3XyzNormal>() as u64,
        )?,
    ];
    idp3::check_arrays(
        FORMAT,
        size_of::<Md3Surface>() as u64,
        &mut arrays,
        (
            "surface.ofs_end",
            field(offset_of!(Md3Surface, ofs_end)),
            fields.end,
        ),
    )
}

/// A surface's counts and `ofs_end`, not negative and within the limits (past ioquake3's, a
/// warning).
fn surface_fields(
    header: &Md3Surface,
    base: u64,
    limits: &Limits,
    diag: &mut Diagnostics,
) -> Result<SurfaceFields> {
    let field = |f: usize| at(base, f);
    let frames_at = field(offset_of!(Md3Surface, num_frames));
    let frames = non_negative("surface.num_frames", frames_at, &header.num_frames)?;
    let shaders_at = field(offset_of!(Md3Surface, num_shaders));
    let shaders = non_negative("surface.num_shaders", shaders_at, &header.num_shaders)?;
    let verts_at = field(offset_of!(Md3Surface, num_verts));
    let verts = non_negative("surface.num_verts", verts_at, &header.num_verts)?;
    let triangles_at = field(offset_of!(Md3Surface, num_triangles));
    let triangles = non_negative("surface.num_triangles", triangles_at, &header.num_triangles)?;
    let end_at = field(offset_of!(Md3Surface, ofs_end));
    let end = non_negative("surface.ofs_end", end_at, &header.ofs_end)?;
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
    limit("surface.num_frames", frames_at, frames, limits.max_frames)?;
    engine_limit(diag, "surface.num_verts", verts_at, verts, MD3_MAX_VERTS);
    engine_limit(
        diag,
        "surface.num_triangles",
        triangles_at,
        triangles,
        MD3_MAX_TRIANGLES,
    );
    engine_limit(
        diag,
        "surface.num_shaders",
        shaders_at,
        shaders,
        MD3_MAX_SHADERS,
    );
    Ok(SurfaceFields {
        frames,
        shaders,
        verts,
        triangles,
        end,
    })
}

/// `ofs_end`, the file's length: past the data is truncation; short of the structures or of
/// the data, a warning (ioquake3 copies only `ofs_end` bytes).
fn file_end(
    reader: Reader<'_>,
    header: &Md3Header,
    furthest: u64,
    diag: &mut Diagnostics,
) -> Result<()> {
    let field = at(0, offset_of!(Md3Header, ofs_end));
    let end = u64::from(non_negative("header.ofs_end", field, &header.ofs_end)?);
    let range = (end, reader.len(), furthest);
    rules::check_declared_end(diag, FORMAT, ("header.ofs_end", field), range, "structure")
}

/// The checks that judge the frames rather than prove the file safe to read: here with the
/// rules, and called through the view (`ModelView::check_animation`).
impl Md3<'_> {
    /// Every vertex of every frame against its frame's stored bounds, radius and origin: a
    /// [`WarningKind::Bounds`](crate::diag::WarningKind::Bounds) where they disagree; and every
    /// tag's axes, a [`WarningKind::NonOrthonormal`](crate::diag::WarningKind::NonOrthonormal)
    /// where they are not orthonormal. A pass
    /// over all frames, which [`Model::diagnostics`](crate::Model::diagnostics) runs when first
    /// asked, not at open.
    pub fn check_frames(&self, diag: &mut Diagnostics) {
        check_frames(self, diag);
    }
}

/// The tags' axes, a warning where they are not orthonormal; the frames' stored bounds, radii
/// and origins against their vertices ([`idp3::check_frame_bounds`]).
fn check_frames(md3: &Md3<'_>, diag: &mut Diagnostics) {
    let ofs_tags = u64::from(md3.header.ofs_tags.get() as u32);
    let rotation = |t: &Md3Tag| idp3::is_rotation(&t.axis.map(|r| r.map(|v| v.get())));
    if let Some(i) = md3.tags.iter().position(|t| !rotation(t)) {
        let offset = record_offset::<Md3Tag>(ofs_tags, i) + offset_of!(Md3Tag, axis) as u64;
        diag.warn(
            FORMAT,
            WarningKind::NonOrthonormal,
            "tag.axis",
            offset,
            || "a tag's axes are not orthonormal; they are orthonormalised when blended".into(),
        );
    }
    let ofs_frames = u64::from(md3.header.ofs_frames.get() as u32);
    let positions = |f: usize, visit: &mut dyn FnMut([f32; 3])| {
        for surface in &md3.surfaces {
            surface.frame_positions(f).for_each(&mut *visit);
        }
    };
    idp3::check_frame_bounds(FORMAT, md3.frames, ofs_frames, positions, diag);
}
