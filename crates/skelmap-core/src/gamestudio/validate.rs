//! The GameStudio validation passes: MDL3/4/5 and HMP5/7 (`docs/formats/{mdl,hmp}.md` § Validation), each one
//! sequential walk from the header to the last frame. Skin records are read by
//! [`skin`](super::skin).
//!
//! Each step of a pass is a function of its own, called once from the pass and
//! `#[inline(always)]` into it: compiled apart, the steps make the passes slower (the `open/`
//! rows of `benches/open_validate.rs`).

use core::mem::offset_of;

use zerocopy::byteorder::{I32, LittleEndian};
use zerocopy::{Immutable, IntoBytes};

use super::frames::{Cursor, FrameKind, HmpFrames, HmpKind, MdlFrames, MdlKind, head_size};
use super::raw::{
    Hmp5Vertex, HmpHeader, MdlHeader, SkinVertex, Triangle, TrivertxByte, TrivertxWord,
};
use super::terrain::{Heights, Hmp, HmpVersion};
use super::view::{Mdl, MdlVersion, PackedVertices};
use crate::alias::anorms::{check_normals, normal_scan, scan_passes};
use crate::alias::skin::{Skin, SkinLayout, read_skin};
use crate::diag::{Diagnostics, WarningKind};
use crate::error::{Error, Problem, Result};
use crate::floatbits::{Masks, flat, raw};
use crate::format::Format;
use crate::limits::Limits;
use crate::parse::Parse;
use crate::read::{Reader, Walk};
use crate::rules::{self, record_offset};
use crate::scan::Fields;

type Le = LittleEndian;

/// Skin (UV) indices are 16-bit, so a model can address this many skin vertices.
const MAX_SKIN_VERTICES: u32 = 1 << 16;

const BYTE_NORMALS: Option<Fields<1>> =
    normal_scan(size_of::<TrivertxByte>(), offset_of!(TrivertxByte, normal));
const WORD_NORMALS: Option<Fields<1>> =
    normal_scan(size_of::<TrivertxWord>(), offset_of!(TrivertxWord, normal));
const HMP5_NORMALS: Option<Fields<1>> =
    normal_scan(size_of::<Hmp5Vertex>(), offset_of!(Hmp5Vertex, normal));

fn scan_passes_each<'a>(scan: Option<&Fields<1>>, tables: impl Iterator<Item = &'a [u8]>) -> bool {
    scan.and_then(|s| s.any_above_each(tables)) == Some(false)
}

/// Byte offset of a header field.
fn at(field: usize) -> u64 {
    field as u64
}

/// [`Error::Invalid`] of `format`.
fn invalid(format: Format, what: &'static str, offset: u64, problem: Problem) -> Error {
    Error::Invalid {
        format,
        what,
        offset,
        problem,
    }
}

/// Validates `data` under `limits`, recording findings in `diag`, in one walk in file order:
/// the header, the skins, the skin vertices, the triangles, the frames, any trailing bytes.
impl<'data> Parse<'data> for Mdl<'data> {
    const FORMAT: Format = Format::Mdl;

    fn parse_with(
        data: &'data [u8],
        limits: &Limits,
        diag: &mut Diagnostics,
    ) -> Result<Mdl<'data>> {
        const FORMAT: Format = Format::Mdl;
        rules::begin(FORMAT, data, limits)?;
        let version = mdl_version(data)?;
        let reader = Reader::new(data, FORMAT);
        let header: &MdlHeader = reader.ref_at("header", 0)?;
        check_mdl_scale(header)?;
        let counts = mdl_counts(header, limits)?;
        let layout = mdl_skin_layout(version, header, counts.skins)?;
        let mut walk = reader.walk(size_of::<MdlHeader>() as u64);
        let skins = read_mdl_skins(&mut walk, layout, counts.skins, limits, diag)?;
        let skin_vertices_at = walk.offset();
        let skin_vertices =
            walk.read_slice::<SkinVertex>("skin vertices", counts.skinverts.into())?;
        let triangles = read_mdl_triangles(&mut walk, counts)?;
        warn_skin_vertices(&skins, skin_vertices, skin_vertices_at, diag);
        let frames = read_mdl_frames(&mut walk, counts.frames, counts.verts)?;
        warn_trailing(FORMAT, &walk, reader.len(), diag);
        Ok(Mdl {
            version,
            header,
            skins,
            skin_vertices,
            triangles,
            frames,
            frame_starts: std::sync::OnceLock::new(),
        })
    }
}

/// The counts an MDL header declares, each checked against its bound.
#[derive(Clone, Copy)]
struct MdlCounts {
    verts: u32,
    tris: u32,
    frames: u32,
    skins: u32,
    skinverts: u32,
}

/// The MDL version its magic names; MDL2 and MDL7 are unsupported here, and a prefix of
/// `MDL` is taken for MDL3 so that its header is reported truncated.
#[inline(always)]
fn mdl_version(data: &[u8]) -> Result<MdlVersion> {
    const FORMAT: Format = Format::Mdl;
    match data.get(..4) {
        Some(b"MDL3") => Ok(MdlVersion::Mdl3),
        Some(b"MDL4") => Ok(MdlVersion::Mdl4),
        Some(b"MDL5") => Ok(MdlVersion::Mdl5),
        Some(m @ (b"MDL2" | b"MDL7")) => Err(Error::Unsupported {
            format: FORMAT,
            what: "header.ident",
            offset: 0,
            value: (m[3] - b'0').into(),
            supported: "this reader takes MDL3, MDL4 and MDL5; MDL2 has Quake's layout \
                        and quake::Mdl reads it, MDL7 is mdl7::Mdl7's (Model opens all)",
        }),
        // Shorter than a magic: a prefix of "MDL" is a truncated header, reported next.
        None if data.iter().zip(b"MDL").all(|(a, b)| a == b) => Ok(MdlVersion::Mdl3),
        _ => Err(Error::BadMagic {
            format: FORMAT,
            expected: "\"MDL3\", \"MDL4\" or \"MDL5\"",
        }),
    }
}

/// The header's `scale` and `offset`, every component finite.
#[inline(always)]
fn check_mdl_scale(header: &MdlHeader) -> Result<()> {
    let masks = Masks::of::<Le>();
    let scale_offset = [header.scale, header.scale_origin];
    if let Some(k) = flat::<Le, _>(core::slice::from_ref(&scale_offset))
        .iter()
        .position(|&v| masks.non_finite(raw(v)))
    {
        // `offset` follows `scale`: the value's own offset.
        const _: () =
            assert!(offset_of!(MdlHeader, scale_origin) == offset_of!(MdlHeader, scale) + 12);
        let what = if k < 3 {
            "header.scale"
        } else {
            "header.offset"
        };
        return Err(invalid(
            Format::Mdl,
            what,
            at(offset_of!(MdlHeader, scale) + 4 * k),
            Problem::NotFinite,
        ));
    }
    Ok(())
}

/// The header's counts: each not negative; then the vertex, triangle and frame counts from 1
/// to their limits, the skin count within its own, and (indices being 16-bit) the vertex and
/// skin vertex counts at most 2¹⁶.
#[inline(always)]
fn mdl_counts(header: &MdlHeader, limits: &Limits) -> Result<MdlCounts> {
    const FORMAT: Format = Format::Mdl;
    let count = |v: &I32<Le>, what, field| rules::non_negative(FORMAT, what, at(field), v.get());
    let numverts_at = offset_of!(MdlHeader, numverts);
    let numverts = count(&header.numverts, "header.numverts", numverts_at)?;
    let numtris_at = offset_of!(MdlHeader, numtris);
    let numtris = count(&header.numtris, "header.numtris", numtris_at)?;
    let numframes_at = offset_of!(MdlHeader, numframes);
    let numframes = count(&header.numframes, "header.numframes", numframes_at)?;
    let numskinverts_at = offset_of!(MdlHeader, synctype);
    let numskinverts = count(&header.synctype, "header.numskinverts", numskinverts_at)?;
    // Vertex indices are 16-bit too.
    let max_verts = limits.max_vertices_per_mesh.min(MAX_SKIN_VERTICES);
    rules::check_count(
        FORMAT,
        "header.numverts",
        at(numverts_at),
        numverts,
        max_verts,
    )?;
    let max_tris = limits.max_triangles_per_mesh;
    rules::check_count(FORMAT, "header.numtris", at(numtris_at), numtris, max_tris)?;
    let max_frames = limits.max_frames;
    rules::check_count(
        FORMAT,
        "header.numframes",
        at(numframes_at),
        numframes,
        max_frames,
    )?;
    let numskins = skin_count(
        FORMAT,
        header.numskins.get(),
        offset_of!(MdlHeader, numskins),
        limits,
    )?;
    if numskinverts > MAX_SKIN_VERTICES {
        return Err(invalid(
            FORMAT,
            "header.numskinverts",
            at(numskinverts_at),
            Problem::AboveMaximum {
                value: numskinverts.into(),
                max: MAX_SKIN_VERTICES.into(),
            },
        ));
    }
    Ok(MdlCounts {
        verts: numverts,
        tris: numtris,
        frames: numframes,
        skins: numskins,
        skinverts: numskinverts,
    })
}

/// How the skin records are laid out: MDL5's carry their own size; MDL3's and MDL4's take
/// the header's, which must then not be negative, nor zero where there are skins.
#[inline(always)]
fn mdl_skin_layout(version: MdlVersion, header: &MdlHeader, numskins: u32) -> Result<SkinLayout> {
    if version == MdlVersion::Mdl5 {
        return Ok(SkinLayout::Mdl5);
    }
    let dims = [
        (
            header.skinwidth.get(),
            "header.skinwidth",
            at(offset_of!(MdlHeader, skinwidth)),
        ),
        (
            header.skinheight.get(),
            "header.skinheight",
            at(offset_of!(MdlHeader, skinheight)),
        ),
    ];
    // Skins take their size from the header, which must then hold one.
    for (v, what, offset) in dims {
        if v < 0 || (numskins > 0 && v == 0) {
            return Err(invalid(
                Format::Mdl,
                what,
                offset,
                Problem::NotPositive { value: v.into() },
            ));
        }
    }
    let size = |v: i32| u32::try_from(v).unwrap_or(0);
    Ok(SkinLayout::Sized {
        width: size(dims[0].0),
        height: size(dims[1].0),
    })
}

/// `numskins` skin records of `layout` from `walk`; a warning where the header's skin width
/// is not a multiple of 4.
#[inline(always)]
fn read_mdl_skins<'data>(
    walk: &mut Walk<'data>,
    layout: SkinLayout,
    numskins: u32,
    limits: &Limits,
    diag: &mut Diagnostics,
) -> Result<Vec<Skin<'data>>> {
    const FORMAT: Format = Format::Mdl;
    let mut skins = Vec::with_capacity(numskins as usize);
    for _ in 0..numskins {
        skins.push(read_skin(walk, layout, FORMAT, limits)?);
    }
    if let SkinLayout::Sized { width, .. } = layout
        && numskins > 0
        && width % 4 != 0
    {
        diag.warn(
            FORMAT,
            WarningKind::SpecLimit,
            "header.skinwidth",
            at(offset_of!(MdlHeader, skinwidth)),
            || format!("skin width {width} is not a multiple of 4"),
        );
    }
    Ok(skins)
}

/// `counts.tris` triangles from `walk`, every corner below `counts.verts` and (where there
/// are skin vertices) every UV index below `counts.skinverts`.
#[inline(always)]
fn read_mdl_triangles<'data>(
    walk: &mut Walk<'data>,
    counts: MdlCounts,
) -> Result<&'data [Triangle]> {
    let MdlCounts {
        verts: numverts,
        skinverts: numskinverts,
        ..
    } = counts;
    let triangles_at = walk.offset();
    let triangles = walk.read_slice::<Triangle>("triangles", counts.tris.into())?;
    // Corners at most `numverts − 1` and (with skin vertices) `numskinverts − 1`: scanned
    // where they can be, walked to find the first that is not.
    let corners = numverts.checked_sub(1).and_then(|xyz| {
        let uv = numskinverts.checked_sub(1).unwrap_or(u32::MAX);
        Fields::<2>::new(&[xyz, xyz, xyz, uv, uv, uv])
    });
    if scan_passes(corners.as_ref(), triangles) {
        return Ok(triangles);
    }
    for (i, t) in triangles.iter().enumerate() {
        let record = record_offset::<Triangle>(triangles_at, i);
        let check =
            |indices: &[zerocopy::byteorder::U16<Le>; 3], len: u32, what, field| match indices
                .iter()
                .position(|v| u32::from(v.get()) >= len)
            {
                Some(k) => Err(invalid(
                    Format::Mdl,
                    what,
                    record + at(field) + 2 * k as u64,
                    Problem::Index {
                        index: indices[k].get().into(),
                        len: len.into(),
                    },
                )),
                None => Ok(()),
            };
        let xyz_at = offset_of!(Triangle, index_xyz);
        check(&t.index_xyz, numverts, "triangle.index_xyz", xyz_at)?;
        // Without skin vertices the UV indices mean nothing and are ignored.
        if numskinverts > 0 {
            let uv_at = offset_of!(Triangle, index_uv);
            check(&t.index_uv, numskinverts, "triangle.index_uv", uv_at)?;
        }
    }
    Ok(triangles)
}

/// A warning where a skin vertex (the table at `skin_vertices_at`) lies outside the first
/// skin.
#[inline(always)]
fn warn_skin_vertices(
    skins: &[Skin<'_>],
    skin_vertices: &[SkinVertex],
    skin_vertices_at: u64,
    diag: &mut Diagnostics,
) {
    let (width, height) = skins.first().map_or((0, 0), |s| (s.width(), s.height()));
    // Coordinates are `i16`: read as `u16`, a negative one is above any maximum below
    // 0x8000.
    let uv_scan = (width < 0x8000 && height < 0x8000)
        .then(|| Fields::<2>::new(&[width, height]))
        .flatten();
    if width > 0
        && !scan_passes(uv_scan.as_ref(), skin_vertices)
        && skin_vertices.iter().any(|uv| {
            !(0..=width as i32).contains(&i32::from(uv.u.get()))
                || !(0..=height as i32).contains(&i32::from(uv.v.get()))
        })
    {
        diag.warn(
            Format::Mdl,
            WarningKind::SpecLimit,
            "skin vertices",
            skin_vertices_at,
            || "skin vertices outside the first skin".into(),
        );
    }
}

/// Validates `data` under `limits`, recording findings in `diag`, in one walk in file order:
/// the header (its floats, the grid, the skin and frame counts), the skins, the frames, any
/// trailing bytes.
impl<'data> Parse<'data> for Hmp<'data> {
    const FORMAT: Format = Format::Hmp;

    fn parse_with(
        data: &'data [u8],
        limits: &Limits,
        diag: &mut Diagnostics,
    ) -> Result<Hmp<'data>> {
        const FORMAT: Format = Format::Hmp;
        rules::begin(FORMAT, data, limits)?;
        let version = hmp_version(data)?;
        let reader = Reader::new(data, FORMAT);
        let header: &HmpHeader = reader.ref_at("header", 0)?;
        check_hmp_floats(header)?;
        let [nx, ny] = hmp_grid(header, limits)?;
        let numskins = skin_count(
            FORMAT,
            header.numskins.get(),
            offset_of!(HmpHeader, numskins),
            limits,
        )?;
        let numframes = hmp_count(
            "header.numframes",
            at(offset_of!(HmpHeader, numframes)),
            header.numframes.get(),
            limits.max_frames,
        )?;
        let mut walk = reader.walk(size_of::<HmpHeader>() as u64);
        let skins = read_hmp_skins(&mut walk, version, numskins, limits)?;
        // `nx · ny` is `numverts`, which the grid divides exactly.
        let frames = read_hmp_frames(&mut walk, numframes, (version, nx * ny), diag)?;
        warn_trailing(FORMAT, &walk, reader.len(), diag);
        Ok(Hmp {
            version,
            header,
            grid: [nx, ny],
            skins,
            frames,
        })
    }
}

/// The HMP version its magic names; HMP4 is unsupported, and a prefix of `HMP` is taken for
/// HMP5 so that its header is reported truncated.
#[inline(always)]
fn hmp_version(data: &[u8]) -> Result<HmpVersion> {
    const FORMAT: Format = Format::Hmp;
    match data.get(..4) {
        Some(b"HMP5") => Ok(HmpVersion::Hmp5),
        Some(b"HMP7") => Ok(HmpVersion::Hmp7),
        // HMP4's layout is undocumented and no sample proves it.
        Some(b"HMP4") => Err(Error::Unsupported {
            format: FORMAT,
            what: "header.ident",
            offset: 0,
            value: 4,
            supported: "skelmap reads HMP5 and HMP7",
        }),
        None if data.iter().zip(b"HMP").all(|(a, b)| a == b) => Ok(HmpVersion::Hmp5),
        _ => Err(Error::BadMagic {
            format: FORMAT,
            expected: "\"HMP5\" or \"HMP7\"",
        }),
    }
}

/// The header's height scale and offset and its grid spacings finite, then the spacings
/// positive.
#[inline(always)]
fn check_hmp_floats(header: &HmpHeader) -> Result<()> {
    const FORMAT: Format = Format::Hmp;
    let floats = [
        (
            "header.scale",
            at(offset_of!(HmpHeader, scale) + 8),
            header.scale[2].get(),
        ),
        (
            "header.offset",
            at(offset_of!(HmpHeader, offset) + 8),
            header.offset[2].get(),
        ),
        (
            "header.ftrisize_x",
            at(offset_of!(HmpHeader, ftrisize_x)),
            header.ftrisize_x.get(),
        ),
        (
            "header.ftrisize_y",
            at(offset_of!(HmpHeader, ftrisize_y)),
            header.ftrisize_y.get(),
        ),
    ];
    for (what, offset, v) in floats {
        if !v.is_finite() {
            return Err(invalid(FORMAT, what, offset, Problem::NotFinite));
        }
    }
    // The grid spacings.
    for (what, offset, v) in floats.get(2..).unwrap_or_default() {
        if *v <= 0.0 {
            return Err(invalid(
                FORMAT,
                what,
                *offset,
                Problem::NotPositive { value: (*v).into() },
            ));
        }
    }
    Ok(())
}

/// The grid's vertices per row and rows: `fnumverts_x` a whole number from 2 to
/// [`Limits::max_vertices_per_mesh`], and `numverts` (not above that limit) two or more
/// whole rows of it.
#[inline(always)]
fn hmp_grid(header: &HmpHeader, limits: &Limits) -> Result<[u32; 2]> {
    const FORMAT: Format = Format::Hmp;
    let fnx_at = at(offset_of!(HmpHeader, fnumverts_x));
    let fnx = header.fnumverts_x.get();
    if !fnx.is_finite() {
        return Err(invalid(
            FORMAT,
            "header.fnumverts_x",
            fnx_at,
            Problem::NotFinite,
        ));
    }
    if fnx.fract() != 0.0 {
        return Err(invalid(
            FORMAT,
            "header.fnumverts_x",
            fnx_at,
            Problem::NotWhole { value: fnx.into() },
        ));
    }
    if fnx < 2.0 {
        return Err(invalid(
            FORMAT,
            "header.fnumverts_x",
            fnx_at,
            Problem::BelowMinimum {
                value: fnx.max(0.0) as u64,
                min: 2,
            },
        ));
    }
    if fnx > limits.max_vertices_per_mesh as f32 {
        return Err(Error::Limit {
            format: FORMAT,
            what: "header.fnumverts_x",
            offset: fnx_at,
            value: fnx as u64,
            max: limits.max_vertices_per_mesh.into(),
        });
    }
    let nx = fnx as u32;
    let numverts_at = at(offset_of!(HmpHeader, numverts));
    let numverts = hmp_count(
        "header.numverts",
        numverts_at,
        header.numverts.get(),
        limits.max_vertices_per_mesh,
    )?;
    if numverts % nx != 0 || numverts / nx < 2 {
        return Err(invalid(
            FORMAT,
            "header.numverts",
            numverts_at,
            Problem::Rows {
                value: numverts.into(),
                row: nx.into(),
            },
        ));
    }
    Ok([nx, numverts / nx])
}

/// An HMP header count `value` (field `what` at `offset`): from 1 to `max`.
#[inline]
fn hmp_count(what: &'static str, offset: u64, value: i32, max: u32) -> Result<u32> {
    let count = rules::non_negative(Format::Hmp, what, offset, value)?;
    rules::check_count(Format::Hmp, what, offset, count, max)?;
    Ok(count)
}

/// `numskins` skin records from `walk`: MDL5's layout in HMP5, HMP7's own in HMP7.
#[inline(always)]
fn read_hmp_skins<'data>(
    walk: &mut Walk<'data>,
    version: HmpVersion,
    numskins: u32,
    limits: &Limits,
) -> Result<Vec<Skin<'data>>> {
    let mut skins = Vec::with_capacity(numskins as usize);
    for index in 0..numskins {
        let layout = match version {
            HmpVersion::Hmp5 => SkinLayout::Mdl5,
            HmpVersion::Hmp7 => SkinLayout::Hmp7 {
                index,
                count: numskins,
            },
        };
        skins.push(read_skin(walk, layout, Format::Hmp, limits)?);
    }
    Ok(skins)
}

/// `numframes` HMP frames read with `params` from `walk`: a warning for each frame whose type
/// is not 2, and every HMP5 normal index below 162.
#[inline(always)]
fn read_hmp_frames<'data>(
    walk: &mut Walk<'data>,
    numframes: u32,
    params: (HmpVersion, u32),
    diag: &mut Diagnostics,
) -> Result<HmpFrames<'data>> {
    const FORMAT: Format = Format::Hmp;
    let stride = HmpKind::size(&[], params);
    let frames = HmpFrames::new(*walk, numframes, params, stride);
    for f in 0..numframes {
        let at = walk.offset();
        let frame = HmpKind::read(Cursor(walk), params)?;
        let frame_type = frame.frame_type();
        if frame_type != 2 {
            diag.warn(FORMAT, WarningKind::SpecLimit, "frame.type", at, || {
                format!("frame {f} has type {frame_type}; 2 is usual")
            });
        }
        if let Heights::V5(v) = frame.heights {
            let vertices_at = walk.offset() - v.as_bytes().len() as u64;
            let normal_at = offset_of!(Hmp5Vertex, normal);
            let scan = HMP5_NORMALS.as_ref();
            check_normals(FORMAT, v, scan, vertices_at, normal_at, |v| v.normal)?;
        }
    }
    Ok(frames)
}

/// Reads `numframes` MDL frames of `numverts` vertices from `walk`, then checks the normal
/// indices of every frame that is whole. Errors come in file order: a bad index in a frame
/// comes before the error of a later frame that is not whole or not of a known type.
fn read_mdl_frames<'data>(
    walk: &mut Walk<'data>,
    numframes: u32,
    numverts: u32,
) -> Result<MdlFrames<'data>> {
    let first = *walk;
    // Every frame's size, while all have the first's.
    let mut stride = None;
    let mut same = true;
    let (mut whole, mut read) = (0, Ok(()));
    for _ in 0..numframes {
        let at = walk.offset();
        if let Err(e) = MdlKind::read(Cursor(walk), numverts) {
            read = Err(e);
            break;
        }
        let size = (walk.offset() - at) as usize;
        same &= *stride.get_or_insert(size) == size;
        whole += 1;
    }
    let frames = MdlFrames::new(first, whole, numverts, stride.filter(|_| same));
    check_mdl_normals(frames, first.offset())?;
    read.map(|()| frames)
}

/// Every normal index of `frames` (read from `first_at` on) below 162. Where every frame has
/// one type (every known file), all their vertices in one scan where the CPU has it, found
/// by arithmetic; otherwise the byte frames in one scan and the word frames in another. Only
/// where a scan fails (or cannot run), frame by frame in file order, for the first index
/// out of range and its offset.
fn check_mdl_normals(frames: MdlFrames<'_>, first_at: u64) -> Result<()> {
    let Some(first) = frames.get(0) else {
        return Ok(());
    };
    let numverts = first.vertices.len();
    // Each frame's vertices, after its head. (A byte frame is never the size of a word
    // frame, so frames of one size have one type.)
    let uniform = match first.vertices {
        PackedVertices::Byte(_) => {
            let record = size_of::<TrivertxByte>();
            let tables = frames.uniform_parts(head_size(record), numverts * record);
            tables.map(|t| scan_passes_each(BYTE_NORMALS.as_ref(), t))
        }
        PackedVertices::Word(_) => {
            let record = size_of::<TrivertxWord>();
            let tables = frames.uniform_parts(head_size(record), numverts * record);
            tables.map(|t| scan_passes_each(WORD_NORMALS.as_ref(), t))
        }
    };
    // Mixed types: the vertices of the frames of one type (`word` or byte), each frame read.
    let tables = |word: bool| {
        frames.iter().filter_map(move |f| match f.vertices {
            PackedVertices::Byte(v) if !word => Some(v.as_bytes()),
            PackedVertices::Word(v) if word => Some(v.as_bytes()),
            _ => None,
        })
    };
    let passes = uniform.unwrap_or_else(|| {
        scan_passes_each(BYTE_NORMALS.as_ref(), tables(false))
            && scan_passes_each(WORD_NORMALS.as_ref(), tables(true))
    });
    if passes {
        return Ok(());
    }
    let mut at = first_at;
    for frame in frames {
        at = match frame.vertices {
            PackedVertices::Byte(v) => {
                frame_normals(v, at, offset_of!(TrivertxByte, normal), |v| v.normal)?
            }
            PackedVertices::Word(v) => {
                frame_normals(v, at, offset_of!(TrivertxWord, normal), |v| v.normal)?
            }
        };
    }
    Ok(())
}

/// [`check_normals`] of the frame starting at `at` whose vertices are `vertices` (after its
/// type, its two bounding-box records and its name); returns where the next frame starts.
fn frame_normals<T: IntoBytes + Immutable>(
    vertices: &[T],
    at: u64,
    normal_at: usize,
    normal: impl Fn(&T) -> u8,
) -> Result<u64> {
    let vertices_at = at + head_size(size_of::<T>()) as u64;
    check_normals(Format::Mdl, vertices, None, vertices_at, normal_at, normal)?;
    Ok(vertices_at + vertices.as_bytes().len() as u64)
}

/// The skin count at header field `field`: not negative, within [`Limits::max_skins`].
fn skin_count(format: Format, value: i32, field: usize, limits: &Limits) -> Result<u32> {
    let numskins = rules::non_negative(format, "header.numskins", at(field), value)?;
    if numskins > limits.max_skins {
        return Err(Error::Limit {
            format,
            what: "header.numskins",
            offset: at(field),
            value: numskins.into(),
            max: limits.max_skins.into(),
        });
    }
    Ok(numskins)
}

/// Warns about bytes after the last frame.
fn warn_trailing(format: Format, walk: &Walk<'_>, len: u64, diag: &mut Diagnostics) {
    let end = walk.offset();
    if end < len {
        let extra = len - end;
        diag.warn(format, WarningKind::TrailingBytes, "file", end, || {
            format!("{extra} bytes after the last frame")
        });
    }
}
