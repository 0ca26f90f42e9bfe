//! The validation pass: the header (magic, version, counts, skin size, frame size), the five
//! arrays where its offsets say (after the header, apart, inside the file), then each array in
//! turn: skin names, texture coordinates, triangles, frames, the GL command list (the rules
//! are listed in the [module docs](super)).

use core::mem::offset_of;

use zerocopy::byteorder::{F32, I32, LittleEndian};
use zerocopy::{FromBytes, IntoBytes};

use super::raw::{
    ALIAS_VERSION, DaliasFrame, Dmdl, Dstvert, Dtriangle, Dtrivertx, GlVertex, MAX_FRAMES,
    MAX_MD2SKINS, MAX_TRIANGLES, MAX_VERTS, SkinName,
};
use super::view::{Frames, Md2};
use crate::alias::anorms::{NUM_NORMALS, normal_scan, scan_passes};
use crate::diag::{Diagnostics, WarningKind};
use crate::error::{Error, Problem, Result};
use crate::format::Format;
use crate::limits::Limits;
use crate::name;
use crate::parse::Parse;
use crate::read::Reader;
use crate::rules::{self, record_offset};
use crate::scan::Fields;

type Le = LittleEndian;

const FORMAT: Format = Format::Md2;

/// Byte offset of a header field.
fn at(field: usize) -> u64 {
    field as u64
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

/// A header count or offset that must not be negative.
fn non_negative(what: &'static str, field: usize, value: &I32<Le>) -> Result<u32> {
    rules::non_negative(FORMAT, what, at(field), value.get())
}

/// [`Error::Limit`] for `value` above `max`.
fn limit(what: &'static str, offset: u64, value: u32, max: u32) -> Result<()> {
    rules::check_limit(FORMAT, what, offset, value, max)
}

/// A warning where `value` goes past what Quake II accepts (`max`).
fn engine_limit(diag: &mut Diagnostics, what: &'static str, field: usize, value: u32, max: u32) {
    rules::engine_limit(diag, (FORMAT, "Quake II"), what, at(field), value, max);
}

/// The header's counts, each proven not negative and within the limits.
#[derive(Clone, Copy)]
struct Counts {
    skins: u32,
    xyz: u32,
    st: u32,
    tris: u32,
    glcmds: u32,
    frames: u32,
    /// Bytes per frame (at least its header and vertices).
    framesize: u32,
    /// `skinwidth` and `skinheight`, 0 where negative or 0 (no texture coordinates then).
    skin: [u32; 2],
}

/// The scan of a frame vertex's normal index.
const NORMALS: Option<Fields<1>> = normal_scan(
    size_of::<Dtrivertx>(),
    offset_of!(Dtrivertx, lightnormalindex),
);

/// Validates `data` under `limits`, recording findings in `diag`: the header, where its arrays
/// lie, then each array in file order.
impl<'data> Parse<'data> for Md2<'data> {
    const FORMAT: Format = FORMAT;

    fn parse_with(
        data: &'data [u8],
        limits: &Limits,
        diag: &mut Diagnostics,
    ) -> Result<Md2<'data>> {
        rules::begin(FORMAT, data, limits)?;
        let reader = Reader::new(data, FORMAT);
        let header: &Dmdl = reader.ref_at("header", 0)?;
        version(header)?;
        let counts = counts(header, limits, diag)?;
        skin_size(header, counts, diag);
        let furthest = arrays(header, counts)?;
        file_end(reader, header, furthest, diag)?;
        let ofs = |v: &I32<Le>| u64::from(v.get() as u32);
        let skins =
            reader.slice_at::<SkinName>("skins", ofs(&header.ofs_skins), counts.skins.into())?;
        let st = reader.slice_at::<Dstvert>("st", ofs(&header.ofs_st), counts.st.into())?;
        let triangles =
            reader.slice_at::<Dtriangle>("tris", ofs(&header.ofs_tris), counts.tris.into())?;
        let frames_len = u64::from(counts.framesize) * u64::from(counts.frames);
        let frame_bytes = reader
            .get_bytes(ofs(&header.ofs_frames), frames_len)
            .ok_or_else(|| reader.truncated("frames", ofs(&header.ofs_frames), frames_len))?;
        let glcmds =
            reader.slice_at::<I32<Le>>("glcmds", ofs(&header.ofs_glcmds), counts.glcmds.into())?;
        check_skins(skins, ofs(&header.ofs_skins))?;
        check_st(st, ofs(&header.ofs_st), counts, diag);
        check_triangles(triangles, ofs(&header.ofs_tris), counts)?;
        let frames = Frames::new(frame_bytes, counts.framesize, counts.frames, counts.xyz);
        check_frames(frames, ofs(&header.ofs_frames), diag)?;
        check_glcmds(glcmds, ofs(&header.ofs_glcmds), counts.xyz, diag)?;
        Ok(Md2 {
            header,
            skins,
            st,
            triangles,
            frames,
            glcmds,
        })
    }
}

/// Version 8.
fn version(header: &Dmdl) -> Result<()> {
    let version = header.version.get();
    if version != ALIAS_VERSION {
        return Err(Error::Unsupported {
            format: FORMAT,
            what: "header.version",
            offset: at(offset_of!(Dmdl, version)),
            value: version.into(),
            supported: "MD2 files are version 8",
        });
    }
    Ok(())
}

/// The counts in field order, each not negative; vertices, triangles and frames from 1 to
/// their limits, texture coordinates and skins within theirs, past Quake II's own a warning;
/// the frame size at least a frame's header and vertices.
fn counts(header: &Dmdl, limits: &Limits, diag: &mut Diagnostics) -> Result<Counts> {
    let framesize = non_negative(
        "header.framesize",
        offset_of!(Dmdl, framesize),
        &header.framesize,
    )?;
    let skins = non_negative(
        "header.num_skins",
        offset_of!(Dmdl, num_skins),
        &header.num_skins,
    )?;
    let xyz = non_negative("header.num_xyz", offset_of!(Dmdl, num_xyz), &header.num_xyz)?;
    let st = non_negative("header.num_st", offset_of!(Dmdl, num_st), &header.num_st)?;
    let tris = non_negative(
        "header.num_tris",
        offset_of!(Dmdl, num_tris),
        &header.num_tris,
    )?;
    let glcmds = non_negative(
        "header.num_glcmds",
        offset_of!(Dmdl, num_glcmds),
        &header.num_glcmds,
    )?;
    let frames = non_negative(
        "header.num_frames",
        offset_of!(Dmdl, num_frames),
        &header.num_frames,
    )?;
    let counted = [
        (
            "header.num_xyz",
            offset_of!(Dmdl, num_xyz),
            xyz,
            limits.max_vertices_per_mesh,
        ),
        (
            "header.num_tris",
            offset_of!(Dmdl, num_tris),
            tris,
            limits.max_triangles_per_mesh,
        ),
        (
            "header.num_frames",
            offset_of!(Dmdl, num_frames),
            frames,
            limits.max_frames,
        ),
    ];
    for (what, field, value, max) in counted {
        rules::check_count(FORMAT, what, at(field), value, max)?;
    }
    limit(
        "header.num_st",
        at(offset_of!(Dmdl, num_st)),
        st,
        limits.max_vertices_per_mesh,
    )?;
    limit(
        "header.num_skins",
        at(offset_of!(Dmdl, num_skins)),
        skins,
        limits.max_skins,
    )?;
    engine_limit(
        diag,
        "header.num_xyz",
        offset_of!(Dmdl, num_xyz),
        xyz,
        MAX_VERTS,
    );
    engine_limit(
        diag,
        "header.num_tris",
        offset_of!(Dmdl, num_tris),
        tris,
        MAX_TRIANGLES,
    );
    engine_limit(
        diag,
        "header.num_frames",
        offset_of!(Dmdl, num_frames),
        frames,
        MAX_FRAMES,
    );
    engine_limit(
        diag,
        "header.num_skins",
        offset_of!(Dmdl, num_skins),
        skins,
        MAX_MD2SKINS,
    );
    let framesize_at = at(offset_of!(Dmdl, framesize));
    let min = size_of::<DaliasFrame>() as u64 + u64::from(xyz) * size_of::<Dtrivertx>() as u64;
    if u64::from(framesize) < min {
        let problem = Problem::BelowMinimum {
            value: framesize.into(),
            min,
        };
        return Err(invalid("header.framesize", framesize_at, problem));
    }
    if u64::from(framesize) > min {
        diag.warn(
            FORMAT,
            WarningKind::LayoutOrder,
            "header.framesize",
            framesize_at,
            || format!("frames are {framesize} bytes apart; their data takes {min}"),
        );
    }
    let size = |v: &I32<Le>| u32::try_from(v.get()).unwrap_or(0);
    Ok(Counts {
        skins,
        xyz,
        st,
        tris,
        glcmds,
        frames,
        framesize,
        skin: [size(&header.skinwidth), size(&header.skinheight)],
    })
}

/// The skin size texture coordinates divide by: where a side is not positive, a warning (the
/// mesh then has no texture coordinates).
fn skin_size(header: &Dmdl, counts: Counts, diag: &mut Diagnostics) {
    let [w, h] = [header.skinwidth.get(), header.skinheight.get()];
    if counts.skin.contains(&0) {
        let field = if counts.skin[0] == 0 {
            offset_of!(Dmdl, skinwidth)
        } else {
            offset_of!(Dmdl, skinheight)
        };
        diag.warn(
            FORMAT,
            WarningKind::SpecLimit,
            "header.skinwidth",
            at(field),
            || format!("the skin is {w} × {h}: the mesh has no texture coordinates"),
        );
    }
}

/// The five arrays the header places: every one with bytes starts after the header and after
/// the one before it in file order (none overlaps another). Returns where the last ends.
fn arrays(header: &Dmdl, counts: Counts) -> Result<u64> {
    let c = |n: u32, size: usize| u64::from(n) * size as u64;
    let arrays = [
        (
            "header.ofs_skins",
            offset_of!(Dmdl, ofs_skins),
            &header.ofs_skins,
            c(counts.skins, size_of::<SkinName>()),
        ),
        (
            "header.ofs_st",
            offset_of!(Dmdl, ofs_st),
            &header.ofs_st,
            c(counts.st, size_of::<Dstvert>()),
        ),
        (
            "header.ofs_tris",
            offset_of!(Dmdl, ofs_tris),
            &header.ofs_tris,
            c(counts.tris, size_of::<Dtriangle>()),
        ),
        (
            "header.ofs_frames",
            offset_of!(Dmdl, ofs_frames),
            &header.ofs_frames,
            c(counts.frames, counts.framesize as usize),
        ),
        (
            "header.ofs_glcmds",
            offset_of!(Dmdl, ofs_glcmds),
            &header.ofs_glcmds,
            c(counts.glcmds, size_of::<I32<Le>>()),
        ),
    ];
    let mut placed = [(0u64, 0u64, 0usize); 5];
    for (k, (what, field, value, bytes)) in arrays.iter().enumerate() {
        let ofs = u64::from(non_negative(what, *field, value)?);
        placed[k] = (ofs, ofs + bytes, k);
    }
    placed.sort_unstable();
    let mut previous_end = size_of::<Dmdl>() as u64;
    for &(start, end, k) in placed.iter().filter(|(s, e, _)| e > s) {
        if start < previous_end {
            let (what, field, _, _) = arrays[k];
            let problem = Problem::BelowMinimum {
                value: start,
                min: previous_end,
            };
            return Err(invalid(what, at(field), problem));
        }
        previous_end = end;
    }
    Ok(previous_end)
}

/// `ofs_end`, the file's length: past the data is truncation; short of the arrays or of the
/// data, a warning; bytes between the last array and `ofs_end`, a warning.
fn file_end(
    reader: Reader<'_>,
    header: &Dmdl,
    furthest: u64,
    diag: &mut Diagnostics,
) -> Result<()> {
    let field = offset_of!(Dmdl, ofs_end);
    let end = u64::from(non_negative("header.ofs_end", field, &header.ofs_end)?);
    let range = (end, reader.len(), furthest);
    rules::check_declared_end(diag, FORMAT, ("header.ofs_end", at(field)), range, "array")
}

/// Every skin name ends with a NUL inside its 64 bytes (engines open it as a path).
fn check_skins(skins: &[SkinName], first: u64) -> Result<()> {
    match skins.iter().position(|s| !name::is_terminated(&s.name)) {
        Some(i) => Err(invalid(
            "skin.name",
            record_offset::<SkinName>(first, i),
            Problem::Unterminated {
                len: size_of::<SkinName>() as u64,
            },
        )),
        None => Ok(()),
    }
}

/// Texture coordinates outside the skin: a warning.
fn check_st(st: &[Dstvert], first: u64, counts: Counts, diag: &mut Diagnostics) {
    let [w, h] = counts.skin.map(i64::from);
    if w == 0 || h == 0 {
        return;
    }
    let outside = |v: &Dstvert| {
        !(0..=w).contains(&i64::from(v.s.get())) || !(0..=h).contains(&i64::from(v.t.get()))
    };
    if let Some(i) = st.iter().position(outside) {
        let n = st.iter().filter(|v| outside(v)).count() as u64;
        diag.warn_n(
            FORMAT,
            WarningKind::SpecLimit,
            "st",
            record_offset::<Dstvert>(first, i),
            n,
            || format!("texture coordinate {i} lies outside the {w} × {h} skin"),
        );
    }
}

/// Every corner's vertex below `num_xyz` and texture coordinate below `num_st`.
fn check_triangles(triangles: &[Dtriangle], first: u64, counts: Counts) -> Result<()> {
    for (i, t) in triangles.iter().enumerate() {
        let base = record_offset::<Dtriangle>(first, i);
        let tables = [
            (
                "triangle.index_xyz",
                offset_of!(Dtriangle, index_xyz),
                &t.index_xyz,
                counts.xyz,
            ),
            (
                "triangle.index_st",
                offset_of!(Dtriangle, index_st),
                &t.index_st,
                counts.st,
            ),
        ];
        for (what, field, indices, len) in tables {
            if let Some(k) = (0..3).find(|&k| u32::from(indices[k].get()) >= len) {
                let problem = Problem::Index {
                    index: indices[k].get().into(),
                    len: len.into(),
                };
                return Err(invalid(what, base + (field + 2 * k) as u64, problem));
            }
        }
    }
    Ok(())
}

/// Every frame's scale and translate finite, and the largest position they unpack to
/// (`scale · 255 + translate`) finite too; names that fill their field, and normal indices
/// past the table, warnings.
fn check_frames(frames: Frames<'_>, first: u64, diag: &mut Diagnostics) -> Result<()> {
    let mut bad_normals = (0u64, None::<(u64, usize, u8)>);
    for (f, frame) in frames.iter().enumerate() {
        let base = first + f as u64 * u64::from(frames.stride());
        let header = frame.header();
        for (what, field, values) in [
            ("frame.scale", offset_of!(DaliasFrame, scale), &header.scale),
            (
                "frame.translate",
                offset_of!(DaliasFrame, translate),
                &header.translate,
            ),
        ] {
            if let Some(k) = values.iter().position(|v| !v.get().is_finite()) {
                let offset = record_offset::<F32<Le>>(base + field as u64, k);
                return Err(invalid(what, offset, Problem::NotFinite));
            }
        }
        let far = (0..3)
            .position(|k| !(header.scale[k].get() * 255.0 + header.translate[k].get()).is_finite());
        if let Some(k) = far {
            let offset = record_offset::<F32<Le>>(base + offset_of!(DaliasFrame, scale) as u64, k);
            return Err(invalid("frame.scale", offset, Problem::NotFinite));
        }
        rules::check_name(
            FORMAT,
            diag,
            "frame.name",
            base + offset_of!(DaliasFrame, name) as u64,
            &header.name,
        );
        let vertices = frame.vertices();
        if scan_passes(NORMALS.as_ref(), vertices) {
            continue;
        }
        let vertices_at = base + size_of::<DaliasFrame>() as u64;
        for (v, vertex) in vertices.iter().enumerate() {
            if usize::from(vertex.lightnormalindex) >= NUM_NORMALS {
                bad_normals.0 += 1;
                let offset = record_offset::<Dtrivertx>(vertices_at, v)
                    + offset_of!(Dtrivertx, lightnormalindex) as u64;
                bad_normals
                    .1
                    .get_or_insert((offset, v, vertex.lightnormalindex));
            }
        }
    }
    if let (n, Some((offset, v, index))) = bad_normals {
        diag.warn_n(
            FORMAT,
            WarningKind::NormalIndex,
            "frame.vertices",
            offset,
            n,
            || {
                format!(
                    "vertex {v} has normal index {index}; there are 162, and it is read as \
                     the first, as DarkPlaces reads it"
                )
            },
        );
    }
    Ok(())
}

/// The GL command list: from its first word, a count and that many vertices (a strip where
/// positive, a fan where negative) until a count of 0, all inside the list, every vertex index
/// below `num_xyz`. An empty list (Quake II then draws nothing) or words after the 0 are
/// warnings; texture coordinates that are not finite, a warning.
fn check_glcmds(words: &[I32<Le>], first: u64, xyz: u32, diag: &mut Diagnostics) -> Result<()> {
    let word_at = |i: usize| record_offset::<I32<Le>>(first, i);
    if words.is_empty() {
        diag.warn(
            FORMAT,
            WarningKind::SpecLimit,
            "header.num_glcmds",
            at(offset_of!(Dmdl, num_glcmds)),
            || "no GL commands: Quake II draws the model from them, and draws nothing".into(),
        );
        return Ok(());
    }
    let vertex_words = size_of::<GlVertex>() / size_of::<I32<Le>>();
    let mut i = 0usize;
    let mut bad_st = None;
    // Each step consumes at least the count's word, so the walk ends within `words.len()`.
    while let Some(count) = words.get(i) {
        let count = count.get();
        if count == 0 {
            let rest = words.len() - i - 1;
            if rest > 0 {
                diag.warn(
                    FORMAT,
                    WarningKind::TrailingBytes,
                    "glcmds",
                    word_at(i + 1),
                    || format!("{rest} words after the command list's terminating 0"),
                );
            }
            if let Some(offset) = bad_st {
                diag.warn(
                    FORMAT,
                    WarningKind::NonFiniteTexcoord,
                    "glcmd.st",
                    offset,
                    || "a GL command's texture coordinate is NaN or infinite".into(),
                );
            }
            return Ok(());
        }
        let n = count.unsigned_abs() as usize;
        let left = words.len() - i - 1;
        let need = n.saturating_mul(vertex_words);
        if need > left {
            let problem = Problem::CommandOverrun {
                need: need as u64,
                left: left as u64,
            };
            return Err(invalid("glcmd.count", word_at(i), problem));
        }
        let vertices = words
            .get(i + 1..i + 1 + need)
            .and_then(|w| <[GlVertex]>::ref_from_bytes(w.as_bytes()).ok())
            .unwrap_or_default();
        for (v, vertex) in vertices.iter().enumerate() {
            let at = word_at(i + 1 + v * vertex_words);
            let index = vertex.index.get();
            if !u32::try_from(index).is_ok_and(|x| x < xyz) {
                let problem = Problem::Index {
                    index: index.into(),
                    len: xyz.into(),
                };
                return Err(invalid(
                    "glcmd.index",
                    at + offset_of!(GlVertex, index) as u64,
                    problem,
                ));
            }
            if bad_st.is_none() && !(vertex.s.get().is_finite() && vertex.t.get().is_finite()) {
                bad_st = Some(at);
            }
        }
        i += 1 + need;
    }
    Err(invalid(
        "glcmds",
        word_at(words.len()),
        Problem::NoTerminator {
            words: words.len() as u64,
        },
    ))
}
