//! Validation rules shared by several formats, parameterised by format and byte order.
//!
//! Each function implements one rule of `docs/formats/` the same way for every format that has
//! it (DPM, SKM, SKP, ...), so that a rule is written, tested and tuned once.

use zerocopy::byteorder::{ByteOrder, F32, U32};

use crate::diag::{Diagnostics, WarningKind};
use crate::error::{Error, Problem, Result};
use crate::floatbits::{Masks, flat, raw};
use crate::format::Format;
use crate::limits::Limits;
use crate::name;
use crate::read::Reader;
use crate::scan;

/// Rejects data longer than [`Limits::max_file_size`].
pub(crate) fn check_file_size(format: Format, data: &[u8], limits: &Limits) -> Result<()> {
    let len = data.len() as u64;
    if len > limits.max_file_size {
        return Err(Error::Limit {
            format,
            what: "file size",
            offset: 0,
            value: len,
            max: limits.max_file_size,
        });
    }
    Ok(())
}

/// The checks every format's validation starts with: the data within
/// [`Limits::max_file_size`], and starting with the format's magic (or a truncated prefix of
/// it, left for the header read to report).
pub(crate) fn begin(format: Format, data: &[u8], limits: &Limits) -> Result<()> {
    check_file_size(format, data, limits)?;
    check_magic(format, data, format.magic(), format.magic_text())
}

/// Accepts data that starts with `magic` or is a (truncated) prefix of it.
///
/// A prefix is left for the header read to report as truncated; anything else is not a file of
/// this format at all.
pub(crate) fn check_magic(
    format: Format,
    data: &[u8],
    magic: &[u8],
    expected: &'static str,
) -> Result<()> {
    let shown = data.get(..magic.len()).unwrap_or(data);
    if magic.starts_with(shown) {
        Ok(())
    } else {
        Err(Error::BadMagic { format, expected })
    }
}

/// Rejects a `type` field other than `want` (`supported` says which, for the message).
pub(crate) fn check_type(
    format: Format,
    offset: u64,
    found: u32,
    want: u32,
    supported: &'static str,
) -> Result<()> {
    if found == want {
        return Ok(());
    }
    Err(Error::Unsupported {
        format,
        what: "header.type",
        offset,
        value: found.into(),
        supported,
    })
}

/// Applies the header's declared `filesize`: larger than the data is truncation, smaller than
/// the header is invalid, smaller than the data is honoured with a warning. Returns the bytes
/// the rest of validation may read.
pub(crate) fn declared_size<'data>(
    format: Format,
    data: &'data [u8],
    filesize: u32,
    filesize_at: u64,
    header_size: u64,
    diag: &mut Diagnostics,
) -> Result<&'data [u8]> {
    let (len, filesize) = (data.len() as u64, u64::from(filesize));
    if filesize > len {
        return Err(Error::Truncated {
            format,
            what: "file (header.filesize)",
            offset: 0,
            need: filesize,
            have: len,
        });
    }
    if filesize < header_size {
        return Err(Error::Invalid {
            format,
            what: "header.filesize",
            offset: filesize_at,
            problem: Problem::BelowMinimum {
                value: filesize,
                min: header_size,
            },
        });
    }
    if filesize < len {
        diag.warn(
            format,
            WarningKind::FileSize,
            "header.filesize",
            filesize_at,
            || format!("declares {filesize} bytes but {len} are present; the rest is ignored"),
        );
    }
    // filesize ≤ len, so the cut never fails.
    Ok(data.get(..filesize as usize).unwrap_or(data))
}

/// Rejects a count of zero ([`Problem::Empty`]) or above `max` ([`Error::Limit`]).
pub(crate) fn check_count(
    format: Format,
    what: &'static str,
    offset: u64,
    value: u32,
    max: u32,
) -> Result<()> {
    if value == 0 {
        return Err(Error::Invalid {
            format,
            what,
            offset,
            problem: Problem::Empty,
        });
    }
    check_limit(format, what, offset, value, max)
}

/// Rejects a count above `max` ([`Error::Limit`]).
pub(crate) fn check_limit(
    format: Format,
    what: &'static str,
    offset: u64,
    value: u32,
    max: u32,
) -> Result<()> {
    if value > max {
        return Err(Error::Limit {
            format,
            what,
            offset,
            value: value.into(),
            max: max.into(),
        });
    }
    Ok(())
}

/// Warns ([`WarningKind::SpecLimit`]) where `value` goes past the `max` that `engine`
/// accepts: the engines' limits are reported, not enforced.
pub(crate) fn engine_limit(
    diag: &mut Diagnostics,
    (format, engine): (Format, &'static str),
    what: &'static str,
    offset: u64,
    value: u32,
    max: u32,
) {
    if value > max {
        diag.warn(format, WarningKind::SpecLimit, what, offset, || {
            format!("{value} goes past the {max} {engine} accepts")
        });
    }
}

/// Reads a signed count, size or offset that must not be negative.
pub(crate) fn non_negative(
    format: Format,
    what: &'static str,
    offset: u64,
    value: i32,
) -> Result<u32> {
    u32::try_from(value).map_err(|_| Error::Invalid {
        format,
        what,
        offset,
        problem: Problem::Negative {
            value: value.into(),
        },
    })
}

/// Requires `-1 ≤ parent < index` (parents precede children; one forward pass builds poses).
pub(crate) fn check_parent(format: Format, index: usize, parent: i32, offset: u64) -> Result<()> {
    if parent >= -1 && i64::from(parent) < index as i64 {
        return Ok(());
    }
    Err(Error::Invalid {
        format,
        what: "bone.parent",
        offset,
        problem: Problem::Parent {
            bone: index as u64,
            parent: parent.into(),
        },
    })
}

/// Warns about bone flag bits other than bit 0 (attachment), the only one DPM and SKP define.
pub(crate) fn check_bone_flags(
    format: Format,
    diag: &mut Diagnostics,
    index: usize,
    flags: u32,
    offset: u64,
) {
    if flags & !1 != 0 {
        diag.warn(
            format,
            WarningKind::UnknownFlags,
            "bone.flags",
            offset,
            || format!("bone {index} has flags {flags:#x}; only bit 0 (attachment) is defined"),
        );
    }
}

/// Warns about a name field without a NUL terminator.
pub(crate) fn check_name(
    format: Format,
    diag: &mut Diagnostics,
    what: &'static str,
    offset: u64,
    field: &[u8],
) {
    if !name::is_terminated(field) {
        diag.warn(format, WarningKind::UnterminatedName, what, offset, || {
            format!("{:?} fills all {} bytes", name::lossy(field), field.len())
        });
    }
}

/// Floats that must be finite (`values`, the first at file offset `first`): the first that is
/// not is reported at its own offset, as [`Problem::NotFinite`].
pub(crate) fn check_finite<O: ByteOrder>(
    format: Format,
    what: &'static str,
    first: u64,
    values: &[F32<O>],
) -> Result<()> {
    match values.iter().position(|v| !v.get().is_finite()) {
        Some(i) => Err(Error::Invalid {
            format,
            what,
            offset: record_offset::<F32<O>>(first, i),
            problem: Problem::NotFinite,
        }),
        None => Ok(()),
    }
}

/// Offset of record `index` in a table of `T`s at `base`.
pub(crate) fn record_offset<T>(base: u64, index: usize) -> u64 {
    base + index as u64 * size_of::<T>() as u64
}

/// End offset of a slice known to lie at `start`.
pub(crate) fn end<T>(start: u64, items: &[T]) -> u64 {
    start + size_of_val(items) as u64
}

/// Tracks whether regions come in the reference writer's order without overlap, and the
/// furthest byte any region reaches, without storing the regions.
#[derive(Debug)]
pub(crate) struct Layout {
    format: Format,
    cursor: u64,
    furthest: u64,
    first_disorder: Option<(&'static str, u64, u64)>,
    disorders: u64,
}

impl Layout {
    pub(crate) fn new(format: Format) -> Self {
        Layout {
            format,
            cursor: 0,
            furthest: 0,
            first_disorder: None,
            disorders: 0,
        }
    }

    /// Notes the next region in writer order.
    pub(crate) fn region(&mut self, what: &'static str, start: u64, end: u64) {
        if start < self.cursor {
            self.disorders += 1;
            self.first_disorder
                .get_or_insert((what, start, self.cursor));
        }
        self.cursor = end;
        self.furthest = self.furthest.max(end);
    }

    /// Notes a region that may lie anywhere (linked structures): it reaches `end`, but its
    /// place is not checked against writer order.
    pub(crate) fn reach(&mut self, end: u64) {
        self.furthest = self.furthest.max(end);
    }

    /// Warns about disorder and about bytes of `data` after the furthest region, except up to
    /// three zero bytes that pad the file to a multiple of four: writers align the file's end
    /// (the IQM exporter after an odd count of 16-bit frame values), and such bytes hold
    /// nothing.
    pub(crate) fn report(&self, data: &[u8], diag: &mut Diagnostics) {
        let len = data.len() as u64;
        if let Some((what, start, cursor)) = self.first_disorder {
            diag.warn_n(self.format, WarningKind::LayoutOrder, what, start, self.disorders, || {
                format!("{what} starts at {start}, before the end of the previous structure at {cursor}")
            });
        }
        let padding = len - self.furthest.min(len) < 4
            && len.is_multiple_of(4)
            && usize::try_from(self.furthest)
                .ok()
                .and_then(|at| data.get(at..))
                .is_some_and(|tail| tail.iter().all(|&b| b == 0));
        if self.furthest < len && !padding {
            let extra = len - self.furthest;
            diag.warn(
                self.format,
                WarningKind::TrailingBytes,
                "file",
                self.furthest,
                || format!("{extra} bytes after the last structure"),
            );
        }
    }
}

/// Checks a mesh's `count` texture coordinates at `offset` (in bounds; non-finite ones warned).
pub(crate) fn check_texcoords<O: ByteOrder>(
    reader: Reader<'_>,
    offset: u64,
    count: u32,
    layout: &mut Layout,
    diag: &mut Diagnostics,
) -> Result<()> {
    let texcoords = reader.slice_at::<[F32<O>; 2]>("mesh.texcoords", offset, count.into())?;
    layout.region("mesh texcoords", offset, end(offset, texcoords));
    let masks = Masks::of::<O>();
    if scan::any_non_finite(flat::<O, _>(texcoords)) {
        let bad_st = |st: &[F32<O>; 2]| masks.non_finite(raw(st[0])) | masks.non_finite(raw(st[1]));
        let bad = texcoords.iter().filter(|st| bad_st(st)).count() as u64;
        let first = texcoords.iter().position(bad_st).unwrap_or(0);
        diag.warn_n(
            reader.format(),
            WarningKind::NonFiniteTexcoord,
            "mesh.texcoords",
            record_offset::<[u32; 2]>(offset, first),
            bad,
            || format!("texture coordinate of vertex {first} is NaN or infinite"),
        );
    }
    Ok(())
}

/// Checks a table of `count` `u32`s at `offset` (triangle corners, bone references) in bounds,
/// every value below `bound`. `what` names the table.
pub(crate) fn check_index_table<O: ByteOrder>(
    reader: Reader<'_>,
    what: &'static str,
    offset: u64,
    count: u64,
    bound: u32,
    layout: &mut Layout,
) -> Result<()> {
    let values = reader.slice_at::<U32<O>>(what, offset, count)?;
    layout.region(what, offset, end(offset, values));
    // A branch-free pass over the table; the second pass runs only to locate a bad value.
    if !scan::any_at_least(values, bound) {
        return Ok(());
    }
    let (k, value) = values
        .iter()
        .map(|v| v.get())
        .enumerate()
        .find(|&(_, v)| v >= bound)
        .unwrap_or((0, bound));
    Err(Error::Invalid {
        format: reader.format(),
        what,
        offset: offset + 4 * k as u64,
        problem: Problem::Index {
            index: value.into(),
            len: bound.into(),
        },
    })
}

/// Where a mesh header keeps what DPM and SKM meshes share (field offsets are absolute).
#[derive(Debug, Clone, Copy)]
pub(crate) struct MeshFields {
    pub num_verts: u32,
    pub num_verts_at: u64,
    pub num_tris: u32,
    pub num_tris_at: u64,
    pub ofs_verts: u64,
    pub ofs_texcoords: u64,
    pub ofs_indices: u64,
}

/// The state of one validation pass over a file's meshes (shared by DPM and SKM).
#[derive(Debug)]
pub(crate) struct MeshPass<'a, 'data> {
    pub reader: Reader<'data>,
    pub limits: &'a Limits,
    pub num_bones: u32,
    /// Influence records seen so far, over all meshes.
    pub total_influences: u64,
    pub layout: Layout,
    pub diag: &'a mut Diagnostics,
}

impl MeshPass<'_, '_> {
    /// Counts, the vertex walk, texture coordinates and indices, in writer order.
    pub(crate) fn shared_arrays<O: ByteOrder>(&mut self, m: MeshFields) -> Result<()> {
        let format = self.reader.format();
        let limits = self.limits;
        check_count(
            format,
            "mesh.num_verts",
            m.num_verts_at,
            m.num_verts,
            limits.max_vertices_per_mesh,
        )?;
        check_count(
            format,
            "mesh.num_tris",
            m.num_tris_at,
            m.num_tris,
            limits.max_triangles_per_mesh,
        )?;
        let rules = crate::bonevert::WalkRules {
            num_bones: self.num_bones,
            limits,
        };
        let verts_end = crate::bonevert::validate_vertices::<O>(
            self.reader,
            m.ofs_verts,
            m.num_verts,
            rules,
            &mut self.total_influences,
            self.diag,
        )?;
        self.layout.region("mesh.vertices", m.ofs_verts, verts_end);
        check_texcoords::<O>(
            self.reader,
            m.ofs_texcoords,
            m.num_verts,
            &mut self.layout,
            self.diag,
        )?;
        let corners = u64::from(m.num_tris) * 3;
        check_index_table::<O>(
            self.reader,
            "mesh.indices",
            m.ofs_indices,
            corners,
            m.num_verts,
            &mut self.layout,
        )
    }
}

/// The bytes of a chain's structures laid end to end (each found `ofs_end` after the one
/// before, as MDR's LODs and surfaces and MDM's surfaces and tags are), against the file's
/// length. Real files lay their structures side by side, so the total fits; a chain that
/// visits the same bytes again (an `ofs_end` of 0) would otherwise make thousands of meshes
/// from one record. ioquake3 copies an MDR's LODs and surfaces end to end into a buffer of
/// `ofs_end` bytes and refuses what does not fit.
pub(crate) struct Packed {
    format: Format,
    bytes: u64,
    file: u64,
}

impl Packed {
    /// An empty chain in a file of `file` bytes.
    pub(crate) fn new(format: Format, file: u64) -> Self {
        Packed {
            format,
            bytes: 0,
            file,
        }
    }

    /// Adds a structure of `bytes`, the one the field `what` at `offset` leads to;
    /// [`Problem::Revisited`] once the total passes the file's length.
    pub(crate) fn add(&mut self, what: &'static str, offset: u64, bytes: u64) -> Result<()> {
        self.bytes = self.bytes.saturating_add(bytes);
        if self.bytes > self.file {
            return Err(Error::Invalid {
                format: self.format,
                what,
                offset,
                problem: Problem::Revisited {
                    bytes: self.bytes,
                    file: self.file,
                },
            });
        }
        Ok(())
    }
}

/// A header's `ofs_end` (`value`, read at file offset `field`) checked before anything else,
/// as loaders that copy `ofsEnd` bytes check it (ioquake3's MDR, ET's MDM and MDX): not
/// negative (`header.ofs_end`, [`Problem::Negative`]) and not past the data (`file
/// (header.ofs_end)`, truncated). Returns it; [`check_declared_end`] judges it against the
/// structures once they are walked.
pub(crate) fn declared_end_first(reader: Reader<'_>, field: u64, value: i32) -> Result<u64> {
    let format = reader.format();
    let end = u64::from(non_negative(format, "header.ofs_end", field, value)?);
    if end > reader.len() {
        return Err(Error::Truncated {
            format,
            what: "file (header.ofs_end)",
            offset: 0,
            need: end,
            have: reader.len(),
        });
    }
    Ok(end)
}

/// A declared file end (`end`, read from the field `what` at `offset`) against the data's
/// length `len`: past the data is truncation; short of what the file's `part`s reach
/// (`furthest`) or of the data, a warning; bytes between the last `part` and the end, a
/// warning. Engines that read such a field copy only `end` bytes.
pub(crate) fn check_declared_end(
    diag: &mut Diagnostics,
    format: Format,
    (what, offset): (&'static str, u64),
    (end, len, furthest): (u64, u64, u64),
    part: &'static str,
) -> Result<()> {
    if end > len {
        return Err(Error::Truncated {
            format,
            what: "file (header.ofs_end)",
            offset: 0,
            need: end,
            have: len,
        });
    }
    if end < furthest {
        diag.warn(format, WarningKind::FileSize, what, offset, || {
            format!("declares {end} bytes but the model's {part}s reach {furthest}")
        });
    } else if end < len {
        diag.warn(format, WarningKind::FileSize, what, offset, || {
            format!("declares {end} bytes but {len} are present; the rest is ignored")
        });
    }
    if furthest < end {
        let extra = end - furthest;
        diag.warn(format, WarningKind::TrailingBytes, "file", furthest, || {
            format!("{extra} bytes after the last {part}")
        });
    }
    Ok(())
}
