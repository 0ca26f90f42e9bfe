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
    Error::Invalid {
        format: FORMAT,
        what,
        offset,
        problem,
    }
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

/// A name field an engine reads as a C string (a surface, shader or tag name): it must end
/// inside its field.
fn terminated(what: &'static str, offset: u64, field: &[u8]) -> Result<()> {
    if name::is_terminated(field) {
        return Ok(());
    }
    let len = field.len() as u64;
    Err(invalid(what, offset, Problem::Unterminated { len }))
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

/// `true` if the rows of `axis` are orthonormal within 1e-3 (exporters write 6 digits).
fn is_rotation(axis: &[[F32<Le>; 3]; 3]) -> bool {
    let row = |r: usize| axis[r].map(|v| v.get());
    let dot = |a: [f32; 3], b: [f32; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    let (x, y, z) = (row(0), row(1), row(2));
    [dot(x, x) - 1.0, dot(y, y) - 1.0, dot(z, z) - 1.0]
        .iter()
        .chain(&[dot(x, y), dot(y, z), dot(z, x)])
        .all(|e| e.abs() < 1e-3)
}

/// An offset of the header that must not point into the header.
fn after_header(what: &'static str, field: u64, ofs: u32) -> Result<()> {
    let min = size_of::<Md3Header>() as u64;
    if u64::from(ofs) < min {
        return Err(invalid(
            what,
            field,
            Problem::BelowMinimum {
                value: ofs.into(),
                min,
            },
        ));
    }
    Ok(())
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
    let mut surfaces = Vec::with_capacity(counts.surfaces as usize);
    let (mut offset, mut end) = (u64::from(first), 0);
    for index in 0..counts.surfaces {
        let header: &Md3Surface = reader.ref_at("surface", offset)?;
        let step = match surface(reader, offset, header, counts, limits, diag)? {
            Step::Next(surface, length) => {
                surfaces.push(surface);
                length
            }
            Step::Empty(length) => {
                diag.warn(FORMAT, WarningKind::LayoutOrder, "surface", offset, || {
                    format!("surface {index} has no vertices and no triangles; skipped")
                });
                length
            }
            Step::Repeat => {
                // `ofs_end` 0: every surface left is this one again, as the engines read it.
                let left = counts.surfaces - index;
                diag.warn_n(
                    FORMAT,
                    WarningKind::LayoutOrder,
                    "surface",
                    offset,
                    left.into(),
                    || {
                        format!(
                            "surface {index} is empty with ofs_end 0: it and the {} after it are \
                             read as empty surfaces",
                            left - 1
                        )
                    },
                );
                end = end.max(offset + size_of::<Md3Surface>() as u64);
                break;
            }
        };
        offset += u64::from(step);
        end = end.max(offset);
    }
    Ok((surfaces, end))
}

/// What a surface header leads to: a surface and its length, an empty surface and its length,
/// or an empty surface repeating to the end of the chain.
enum Step<'data> {
    Next(Surface<'data>, u32),
    Empty(u32),
    Repeat,
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
) -> Result<Step<'data>> {
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
    terminated(
        "surface.name",
        field(offset_of!(Md3Surface, name)),
        &header.name,
    )?;
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
        terminated(
            "shader.name",
            at(offset, offset_of!(Md3Shader, name)),
            &shader.name,
        )?;
    }
    check_triangles(triangles, rel(&header.ofs_triangles), fields.verts)?;
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
    let header_size = size_of::<Md3Surface>() as u32;
    // The arrays: (what, offset field, offset, bytes).
    let xyz_count = u64::from(fields.verts) * u64::from(fields.frames);
    let arrays = [
        (
            "surface.ofs_shaders",
            offset_of!(Md3Surface, ofs_shaders),
            &header.ofs_shaders,
            u64::from(fields.shaders) * size_of::<Md3Shader>() as u64,
        ),
        (
            "surface.ofs_triangles",
            offset_of!(Md3Surface, ofs_triangles),
            &header.ofs_triangles,
            u64::from(fields.triangles) * size_of::<Md3Triangle>() as u64,
        ),
        (
            "surface.ofs_st",
            offset_of!(Md3Surface, ofs_st),
            &header.ofs_st,
            u64::from(fields.verts) * size_of::<Md3St>() as u64,
        ),
        (
            "surface.ofs_xyz_normals",
            offset_of!(Md3Surface, ofs_xyz_normals),
            &header.ofs_xyz_normals,
            xyz_count * size_of::<Md3XyzNormal>() as u64,
        ),
    ];
    let mut placed = [(0u64, 0u64, 0usize); 4];
    for (k, (what, f, value, bytes)) in arrays.iter().enumerate() {
        let ofs = non_negative(what, field(*f), value)?;
        placed[k] = (u64::from(ofs), u64::from(ofs) + bytes, k);
    }
    // In offset order, every array with bytes starts after the header and after the one
    // before it.
    placed.sort_unstable();
    let mut previous_end = u64::from(header_size);
    for &(start, end, k) in placed.iter().filter(|(s, e, _)| e > s) {
        let (what, f, _, _) = arrays[k];
        if start < previous_end {
            let problem = Problem::BelowMinimum {
                value: start,
                min: previous_end,
            };
            return Err(invalid(what, field(f), problem));
        }
        previous_end = end;
    }
    if u64::from(fields.end) < previous_end {
        let problem = Problem::BelowMinimum {
            value: fields.end.into(),
            min: previous_end,
        };
        return Err(invalid(
            "surface.ofs_end",
            field(offset_of!(Md3Surface, ofs_end)),
            problem,
        ));
    }
    Ok(())
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

/// Every triangle corner indexes one of `verts` vertices.
fn check_triangles(triangles: &[Md3Triangle], first: u64, verts: u32) -> Result<()> {
    let ok = |v: &I32<Le>| u32::try_from(v.get()).is_ok_and(|v| v < verts);
    for (i, t) in triangles.iter().enumerate() {
        if let Some(k) = (0..3).find(|&k| !ok(&t.indexes[k])) {
            let offset = record_offset::<Md3Triangle>(first, i)
                + (offset_of!(Md3Triangle, indexes) + 4 * k) as u64;
            let problem = Problem::Index {
                index: t.indexes[k].get().into(),
                len: verts.into(),
            };
            return Err(invalid("triangle.indexes", offset, problem));
        }
    }
    Ok(())
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
/// and origins against their vertices: a warning where a vertex lies outside a frame's box or
/// sphere (by more than half a unit of 1/64), or where a value is not finite.
fn check_frames(md3: &Md3<'_>, diag: &mut Diagnostics) {
    let ofs_tags = u64::from(md3.header.ofs_tags.get() as u32);
    if let Some(i) = md3.tags.iter().position(|t| !is_rotation(&t.axis)) {
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
    let tolerance = 0.5 / 64.0 + 1e-4;
    for (f, frame) in md3.frames.iter().enumerate() {
        let offset = record_offset::<Md3Frame>(ofs_frames, f);
        let floats = frame
            .bounds
            .as_flattened()
            .iter()
            .chain(&frame.local_origin)
            .chain(core::iter::once(&frame.radius));
        if floats.clone().any(|v| !v.get().is_finite()) {
            diag.warn(FORMAT, WarningKind::Bounds, "frame.bounds", offset, || {
                format!("frame {f}'s bounds, origin or radius are not finite")
            });
            continue;
        }
        let [lo, hi] = frame.bounds.map(|b| b.map(|v| v.get()));
        let origin = frame.local_origin.map(|v| v.get());
        let radius = frame.radius.get();
        let mut outside_box = false;
        let mut farthest = 0.0f32;
        for surface in &md3.surfaces {
            for p in surface.frame_positions(f) {
                outside_box |= (0..3).any(|k| p[k] < lo[k] - tolerance || p[k] > hi[k] + tolerance);
                let d = [p[0] - origin[0], p[1] - origin[1], p[2] - origin[2]];
                farthest = farthest.max((d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt());
            }
        }
        if outside_box {
            diag.warn(FORMAT, WarningKind::Bounds, "frame.bounds", offset, || {
                format!("frame {f} has vertices outside its bounds")
            });
        }
        if farthest > radius + tolerance * 2.0 {
            let at = offset + offset_of!(Md3Frame, radius) as u64;
            diag.warn(FORMAT, WarningKind::Bounds, "frame.radius", at, || {
                format!(
                    "frame {f} has a vertex {farthest} from its origin, past its radius {radius}"
                )
            });
        }
    }
}
