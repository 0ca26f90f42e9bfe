//! The IQM validation pass: every rule of `docs/formats/iqm.md` § Validation, in one linear
//! walk.
//!
//! Order of work (and of the checks, so that the first error is deterministic):
//! 1. header: magic, version, declared file size, counts and their limits;
//! 2. sections in writer order, each at or after the header and inside the data: text,
//!    meshes, the vertex array records, and then each array's contents (types, formats, sizes,
//!    data in bounds, floats finite, blend indexes in range); triangles, adjacency, joints,
//!    poses, anims, frames, bounds, comment;
//! 3. meshes (names, vertex and triangle ranges); triangles and adjacency; joints (names,
//!    parents, finite transforms); poses (parents, agreement with the joints, finite channels,
//!    the channel count); anims; bounds;
//! 4. the extension chain.
//!
//! Nothing is allocated except the [`Diagnostics`] entries (at most one per kind).

use core::mem::offset_of;

use zerocopy::FromBytes;
use zerocopy::LittleEndian;
use zerocopy::byteorder::{F32, U32};

use super::raw::{self, Header, IQM_CUSTOM, IQM_VERSION};
use super::view::{Arrays, Iqm, Quad};
use crate::diag::{Diagnostics, WarningKind};
use crate::error::{Error, Problem, Result};
use crate::format::Format;
use crate::limits::Limits;
use crate::parse::Parse;
use crate::read::{Raw, Reader};
use crate::rules::{self, Layout, record_offset};

type Le = LittleEndian;

const FORMAT: Format = Format::Iqm;

/// Bytes of the header; no section may start inside it.
const HEADER_SIZE: u64 = size_of::<Header>() as u64;

/// The most components a custom vertex array may have per vertex (the standard types have at
/// most 4; custom arrays in real files have up to 4).
pub const MAX_CUSTOM_SIZE: u32 = 16;

/// One section the header places (rule 4): its name, its record count, where the header
/// stores its offset, its record size, the alignment below which it is warned about, and
/// whether an offset of 0 means it is absent (whatever the count).
#[derive(Debug, Clone, Copy)]
struct Section {
    what: &'static str,
    count: fn(&Header) -> u64,
    ofs_field: usize,
    record: usize,
    align: u64,
    optional: bool,
}

/// The header's sections in the reference writer's order, the order they are checked in.
const SECTIONS: [Section; 11] = [
    Section {
        what: "text",
        count: |h| h.num_text.get().into(),
        ofs_field: offset_of!(Header, ofs_text),
        record: 1,
        align: 1,
        optional: false,
    },
    Section {
        what: "meshes",
        count: |h| h.num_meshes.get().into(),
        ofs_field: offset_of!(Header, ofs_meshes),
        record: size_of::<raw::Mesh>(),
        align: 4,
        optional: false,
    },
    Section {
        what: "vertex arrays",
        count: |h| h.num_vertexarrays.get().into(),
        ofs_field: offset_of!(Header, ofs_vertexarrays),
        record: size_of::<raw::VertexArray>(),
        align: 4,
        optional: false,
    },
    Section {
        what: "triangles",
        count: |h| h.num_triangles.get().into(),
        ofs_field: offset_of!(Header, ofs_triangles),
        record: size_of::<raw::Triangle>(),
        align: 4,
        optional: false,
    },
    Section {
        what: "adjacency",
        count: |h| h.num_triangles.get().into(),
        ofs_field: offset_of!(Header, ofs_adjacency),
        record: size_of::<raw::Triangle>(),
        align: 4,
        optional: true,
    },
    Section {
        what: "joints",
        count: |h| h.num_joints.get().into(),
        ofs_field: offset_of!(Header, ofs_joints),
        record: size_of::<raw::Joint>(),
        align: 4,
        optional: false,
    },
    Section {
        what: "poses",
        count: |h| h.num_poses.get().into(),
        ofs_field: offset_of!(Header, ofs_poses),
        record: size_of::<raw::Pose>(),
        align: 4,
        optional: false,
    },
    Section {
        what: "anims",
        count: |h| h.num_anims.get().into(),
        ofs_field: offset_of!(Header, ofs_anims),
        record: size_of::<raw::Anim>(),
        align: 4,
        optional: false,
    },
    Section {
        what: "frames",
        count: |h| u64::from(h.num_frames.get()) * u64::from(h.num_framechannels.get()),
        ofs_field: offset_of!(Header, ofs_frames),
        record: size_of::<raw::Channel>(),
        align: 4,
        optional: false,
    },
    Section {
        what: "bounds",
        count: |h| h.num_frames.get().into(),
        ofs_field: offset_of!(Header, ofs_bounds),
        record: size_of::<raw::Bounds>(),
        align: 4,
        optional: true,
    },
    Section {
        what: "comment",
        count: |h| h.num_comment.get().into(),
        ofs_field: offset_of!(Header, ofs_comment),
        record: 1,
        align: 1,
        optional: false,
    },
];

/// The sections up to and including the vertex array records, which are checked (rule 6)
/// before the sections after them.
const BEFORE_ARRAYS: usize = 3;

/// The `u32` the header stores at byte `field` (0 past its end, which no table row names).
fn header_word(h: &Header, field: usize) -> u32 {
    zerocopy::IntoBytes::as_bytes(h)
        .get(field..field + 4)
        .and_then(|b| U32::<Le>::read_from_bytes(b).ok())
        .map_or(0, U32::get)
}

/// A section's bytes as its records: [`Pass::section`] took a whole number of them.
fn records<T: Raw>(bytes: &[u8]) -> &[T] {
    <[T]>::ref_from_bytes(bytes).unwrap_or_default()
}

/// Every rule of `docs/formats/iqm.md` § Validation, in the order its section gives.
///
/// ```
/// use skelmap_core::{iqm::Iqm, iqm::Builder, Diagnostics, Limits, Parse};
/// let bytes = Builder::demo().write()?;
/// let mut diag = Diagnostics::new();
/// let model = Iqm::parse_with(&bytes, &Limits::default(), &mut diag)?;
/// assert!(diag.is_empty());
/// assert_eq!(model.num_frames(), 4);
/// # Ok::<(), skelmap_core::Error>(())
/// ```
impl<'data> Parse<'data> for Iqm<'data> {
    const FORMAT: Format = FORMAT;

    fn parse_with(
        data: &'data [u8],
        limits: &Limits,
        diag: &mut Diagnostics,
    ) -> Result<Iqm<'data>> {
        rules::begin(FORMAT, data, limits)?;
        let header: &Header = Reader::new(data, FORMAT).ref_at("header", 0)?;
        let at = |f: usize| f as u64;
        let version = header.version.get();
        if version != IQM_VERSION {
            return Err(Error::Unsupported {
                format: FORMAT,
                what: "header.version",
                offset: at(offset_of!(Header, version)),
                value: version.into(),
                supported: "only version 2 is read (version 1, of 2010, stored no quaternion w)",
            });
        }
        let data = rules::declared_size(
            FORMAT,
            data,
            header.filesize.get(),
            at(offset_of!(Header, filesize)),
            HEADER_SIZE,
            diag,
        )?;
        check_limits(header, limits)?;
        let mut pass = Pass {
            reader: Reader::new(data, FORMAT),
            layout: Layout::new(FORMAT),
            diag,
        };
        pass.layout.region("header", 0, HEADER_SIZE);
        let h = header;
        // The sections up to the vertex array records, whose contents are checked before
        // the sections after them (rule 6 before rule 4's later sections).
        let mut found: [&'data [u8]; SECTIONS.len()] = [&[]; SECTIONS.len()];
        let (before, after) = SECTIONS.split_at(BEFORE_ARRAYS);
        for (slot, section) in found.iter_mut().zip(before) {
            *slot = pass.section(h, section)?;
        }
        let [text, _, vertex_arrays, ..] = found;
        let strings = Strings::new(text);
        let vertex_arrays: &[raw::VertexArray] = records(vertex_arrays);
        let num_joints = h.num_joints.get();
        let num_poses = h.num_poses.get();
        // Blend indexes name joints, or poses in a file without joints.
        let num_bones = if num_joints > 0 {
            num_joints
        } else {
            num_poses
        };
        let arrays = pass.vertex_arrays(vertex_arrays, h, &strings, num_bones)?;
        for (slot, section) in found.iter_mut().skip(BEFORE_ARRAYS).zip(after) {
            *slot = pass.section(h, section)?;
        }
        let [
            _,
            meshes,
            _,
            triangles,
            adjacency,
            joints,
            poses,
            anims,
            frames,
            bounds,
            comment,
        ] = found;
        let meshes: &[raw::Mesh] = records(meshes);
        let triangles: &[raw::Triangle] = records(triangles);
        let adjacency: &[raw::Triangle] = records(adjacency);
        let joints: &[raw::Joint] = records(joints);
        let poses: &[raw::Pose] = records(poses);
        let anims: &[raw::Anim] = records(anims);
        let frames: &[raw::Channel] = records(frames);
        let bounds: &[raw::Bounds] = records(bounds);

        pass.meshes(meshes, h, &strings)?;
        pass.triangles(triangles, adjacency, h)?;
        pass.joints(joints, h, &strings)?;
        let poses_scale = pass.poses(poses, joints, h)?;
        let has_scale = poses_scale
            || joints
                .iter()
                .any(|j| j.scale.iter().any(|s| s.get() != 1.0));
        pass.anims(anims, h, &strings)?;
        pass.bounds(bounds, h)?;
        pass.extensions(h, &strings)?;
        pass.layout.report(pass.reader.bytes(), pass.diag);
        Ok(Iqm {
            data,
            header,
            text,
            meshes,
            vertex_arrays,
            arrays,
            triangles,
            adjacency,
            joints,
            poses,
            anims,
            frames,
            bounds,
            comment,
            has_scale,
        })
    }
}

/// The [`Limits`] on the header's counts (rule 3).
fn check_limits(h: &Header, limits: &Limits) -> Result<()> {
    let at = |f: usize| f as u64;
    // Blend indexes become `u16` bones.
    let max_bones = limits.max_bones.min(u32::from(u16::MAX));
    for (what, offset, value, max) in [
        (
            "header.num_meshes",
            offset_of!(Header, num_meshes),
            h.num_meshes.get(),
            limits.max_meshes,
        ),
        (
            "header.num_vertexes",
            offset_of!(Header, num_vertexes),
            h.num_vertexes.get(),
            limits.max_vertices_per_mesh,
        ),
        (
            "header.num_triangles",
            offset_of!(Header, num_triangles),
            h.num_triangles.get(),
            limits.max_triangles_per_mesh,
        ),
        (
            "header.num_joints",
            offset_of!(Header, num_joints),
            h.num_joints.get(),
            max_bones,
        ),
        (
            "header.num_poses",
            offset_of!(Header, num_poses),
            h.num_poses.get(),
            max_bones,
        ),
        (
            "header.num_frames",
            offset_of!(Header, num_frames),
            h.num_frames.get(),
            limits.max_frames,
        ),
        (
            "header.num_anims",
            offset_of!(Header, num_anims),
            h.num_anims.get(),
            limits.max_frames,
        ),
    ] {
        if value > max {
            return Err(Error::Limit {
                format: FORMAT,
                what,
                offset: at(offset),
                value: value.into(),
                max: max.into(),
            });
        }
    }
    Ok(())
}

/// The string table and where its last terminator is: an offset names a terminated string
/// exactly when it is at or before that NUL.
struct Strings {
    len: u64,
    last_nul: Option<u64>,
}

impl Strings {
    fn new(text: &[u8]) -> Self {
        Strings {
            len: text.len() as u64,
            last_nul: text.iter().rposition(|&b| b == 0).map(|i| i as u64),
        }
    }

    /// Checks that `offset` names a string terminated inside the text (rule 5); offset 0 of a
    /// file without text is the empty string.
    fn check(&self, what: &'static str, at: u64, offset: u32) -> Result<()> {
        let offset = u64::from(offset);
        if self.len == 0 && offset == 0 {
            return Ok(());
        }
        if offset >= self.len {
            return Err(invalid(
                what,
                at,
                Problem::Index {
                    index: offset as i64,
                    len: self.len,
                },
            ));
        }
        if self.last_nul.is_none_or(|nul| offset > nul) {
            return Err(invalid(
                what,
                at,
                Problem::Unterminated {
                    len: self.len - offset,
                },
            ));
        }
        Ok(())
    }
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

/// The walk's state: the reader, the regions seen so far, the findings.
struct Pass<'data, 'd> {
    reader: Reader<'data>,
    layout: Layout,
    diag: &'d mut Diagnostics,
}

impl<'data> Pass<'data, '_> {
    /// `section`'s bytes (rule 4): nothing when its count is 0 (or, for an optional section,
    /// its offset is 0), whatever the offset; else at or after the header, inside the data,
    /// warned when not aligned to its alignment.
    fn section(&mut self, h: &Header, section: &Section) -> Result<&'data [u8]> {
        let Section {
            what,
            count,
            ofs_field,
            record,
            align,
            optional,
        } = *section;
        let ofs = u64::from(header_word(h, ofs_field));
        let count = count(h);
        if count == 0 || (optional && ofs == 0) {
            return Ok(&[]);
        }
        if ofs < HEADER_SIZE {
            return Err(invalid(
                ofs_label(what),
                ofs_field as u64,
                Problem::BelowMinimum {
                    value: ofs,
                    min: HEADER_SIZE,
                },
            ));
        }
        let bytes = self
            .reader
            .slice_at::<u8>(what, ofs, count.saturating_mul(record as u64))?;
        if ofs % align != 0 {
            self.diag
                .warn(FORMAT, WarningKind::Unaligned, what, ofs, || {
                    format!("{what} start at {ofs}, not a multiple of {align}; read unaligned")
                });
        }
        self.layout.region(what, ofs, rules::end(ofs, bytes));
        Ok(bytes)
    }

    /// Each vertex array (rule 6): a known type or a named custom one, a known format, a size
    /// its type allows, its data inside the file; standard arrays' floats finite and blend
    /// indexes below `num_bones`.
    fn vertex_arrays(
        &mut self,
        arrays: &'data [raw::VertexArray],
        h: &Header,
        strings: &Strings,
        num_bones: u32,
    ) -> Result<Arrays<'data>> {
        let ofs = u64::from(h.ofs_vertexarrays.get());
        let num_vertexes = u64::from(h.num_vertexes.get());
        let mut out = Arrays::default();
        for (i, va) in arrays.iter().enumerate() {
            let at = record_offset::<raw::VertexArray>(ofs, i);
            let field = |f: usize| at + f as u64;
            let (type_, format, size) = (va.type_.get(), va.format.get(), va.size.get());
            if type_ >= IQM_CUSTOM {
                strings.check(
                    "vertexarray.type",
                    field(offset_of!(raw::VertexArray, type_)),
                    type_ - IQM_CUSTOM,
                )?;
            } else if type_ > raw::IQM_COLOR {
                return Err(invalid(
                    "vertexarray.type",
                    field(offset_of!(raw::VertexArray, type_)),
                    Problem::UnknownCode { code: type_.into() },
                ));
            }
            let Some(component) = raw::component_size(format) else {
                return Err(invalid(
                    "vertexarray.format",
                    field(offset_of!(raw::VertexArray, format)),
                    Problem::UnknownCode {
                        code: format.into(),
                    },
                ));
            };
            if !allowed(type_, format, size) {
                // The size is at fault when the type allows this format at some size.
                let size_at_fault = (1..=MAX_CUSTOM_SIZE).any(|s| allowed(type_, format, s));
                let (what, offset, value) = if size_at_fault {
                    ("vertexarray.size", offset_of!(raw::VertexArray, size), size)
                } else {
                    (
                        "vertexarray.format",
                        offset_of!(raw::VertexArray, format),
                        format,
                    )
                };
                return Err(Error::Unsupported {
                    format: FORMAT,
                    what,
                    offset: field(offset),
                    value: value.into(),
                    supported: supported(type_),
                });
            }
            let data_at = u64::from(va.offset.get());
            let count = num_vertexes * u64::from(size);
            if data_at < HEADER_SIZE && count > 0 {
                return Err(invalid(
                    "vertexarray.offset",
                    field(offset_of!(raw::VertexArray, offset)),
                    Problem::BelowMinimum {
                        value: data_at,
                        min: HEADER_SIZE,
                    },
                ));
            }
            let bytes = count * component;
            let data = self
                .reader
                .get_bytes(data_at, bytes)
                .ok_or_else(|| self.reader.truncated("vertexarray.offset", data_at, bytes))?;
            if count > 0 {
                if data_at % component.max(4) != 0 {
                    self.diag.warn(
                        FORMAT,
                        WarningKind::Unaligned,
                        "vertex array",
                        data_at,
                        || {
                            format!(
                                "vertex array {i} starts at {data_at}, not a multiple of {}; \
                                 read unaligned",
                                component.max(4)
                            )
                        },
                    );
                }
                self.layout.region("vertex array", data_at, data_at + bytes);
            }
            if type_ >= IQM_CUSTOM {
                continue;
            }
            self.standard_array(&mut out, type_, format, data, data_at, num_bones, h, at)?;
        }
        Ok(out)
    }

    /// Reads a standard array into `out` (the first of each type; a repeated one is warned and
    /// ignored) and checks its values.
    #[allow(clippy::too_many_arguments)]
    fn standard_array(
        &mut self,
        out: &mut Arrays<'data>,
        type_: u32,
        format: u32,
        data: &'data [u8],
        data_at: u64,
        num_bones: u32,
        h: &Header,
        record: u64,
    ) -> Result<()> {
        let n = h.num_vertexes.get() as usize;
        let taken = match type_ {
            raw::IQM_POSITION => out.position.is_some(),
            raw::IQM_TEXCOORD => out.texcoord.is_some(),
            raw::IQM_NORMAL => out.normal.is_some(),
            raw::IQM_TANGENT => out.tangent.is_some(),
            raw::IQM_BLENDINDEXES => out.blend_indexes.is_some(),
            raw::IQM_BLENDWEIGHTS => out.blend_weights.is_some(),
            _ => out.color.is_some(),
        };
        if taken {
            // A repeated array is checked like the first, then set aside.
            let mut again = Arrays::default();
            self.standard_array(
                &mut again, type_, format, data, data_at, num_bones, h, record,
            )?;
            self.diag.warn(
                FORMAT,
                WarningKind::SpecLimit,
                "vertexarray.type",
                record,
                || format!("a second vertex array of type {type_}; the first is used"),
            );
            return Ok(());
        }
        let floats = |what| -> Result<&'data [F32<Le>]> {
            let values: &[F32<Le>] = crate::read::slice_in(data, 0, (data.len() / 4) as u64)
                .ok_or_else(|| self.reader.truncated(what, data_at, data.len() as u64))?;
            // The scan says whether any value fails; the scalar search, only then, which.
            if crate::scan::any_non_finite(values)
                && let Some(k) = values.iter().position(|v| !v.get().is_finite())
            {
                return Err(invalid(what, data_at + 4 * k as u64, Problem::NotFinite));
            }
            Ok(values)
        };
        match type_ {
            raw::IQM_POSITION => out.position = Some(as_arrays(floats("vertex.position")?, n)),
            raw::IQM_TEXCOORD => out.texcoord = Some(as_arrays(floats("vertex.texcoord")?, n)),
            raw::IQM_NORMAL => out.normal = Some(as_arrays(floats("vertex.normal")?, n)),
            raw::IQM_TANGENT => out.tangent = Some(as_arrays(floats("vertex.tangent")?, n)),
            raw::IQM_BLENDINDEXES => {
                let quad = if format == raw::IQM_UBYTE {
                    Quad::U8(crate::read::slice_in(data, 0, n as u64).unwrap_or_default())
                } else {
                    Quad::U32(crate::read::slice_in(data, 0, n as u64).unwrap_or_default())
                };
                // Without joints or poses nothing skins: the indexes are never read.
                if num_bones > 0 {
                    self.blend_indexes(quad, data_at, format, num_bones)?;
                }
                out.blend_indexes = Some(quad);
            }
            raw::IQM_BLENDWEIGHTS | raw::IQM_COLOR => {
                let what = if type_ == raw::IQM_COLOR {
                    "vertex.color"
                } else {
                    "vertex.blendweights"
                };
                let quad = if format == raw::IQM_UBYTE {
                    Quad::U8(crate::read::slice_in(data, 0, n as u64).unwrap_or_default())
                } else {
                    let values = floats(what)?;
                    if type_ == raw::IQM_BLENDWEIGHTS
                        && let Some(k) = values.iter().position(|v| !(0.0..=1.0).contains(&v.get()))
                    {
                        let value = values.get(k).map_or(0.0, |v| v.get()).into();
                        return Err(invalid(
                            what,
                            data_at + 4 * k as u64,
                            Problem::Weight { value },
                        ));
                    }
                    Quad::F32(as_arrays(values, n))
                };
                if type_ == raw::IQM_COLOR {
                    out.color = Some(quad);
                } else {
                    self.zero_weights(quad, data_at, n);
                    out.blend_weights = Some(quad);
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Every blend index below `num_bones` (rule 7).
    fn blend_indexes(
        &self,
        quad: Quad<'data>,
        data_at: u64,
        format: u32,
        num_bones: u32,
    ) -> Result<()> {
        let width = if format == raw::IQM_UBYTE { 1 } else { 4 };
        // A branch-free pass finds whether any index fails; the search, only then, which.
        let bad = match quad {
            Quad::U8(a) => {
                let bytes = a.as_flattened();
                let largest = bytes.iter().fold(0u8, |m, &b| m.max(b));
                if u32::from(largest) < num_bones {
                    None
                } else {
                    bytes
                        .iter()
                        .position(|&b| u32::from(b) >= num_bones)
                        .map(|k| (k, i64::from(bytes[k])))
                }
            }
            Quad::U32(a) => {
                let words = a.as_flattened();
                if crate::scan::any_at_least(words, num_bones) {
                    words
                        .iter()
                        .position(|b| b.get() >= num_bones)
                        .map(|k| (k, i64::from(words[k].get() as i32)))
                } else {
                    None
                }
            }
            Quad::F32(_) => None,
        };
        match bad {
            Some((k, index)) => Err(invalid(
                "vertex.blendindexes",
                data_at + width * k as u64,
                Problem::Index {
                    index,
                    len: num_bones.into(),
                },
            )),
            None => Ok(()),
        }
    }

    /// Warns once about vertices whose weights are all zero.
    fn zero_weights(&mut self, quad: Quad<'data>, data_at: u64, n: usize) {
        let zero = |v: usize| match quad {
            Quad::U8(a) => a.get(v).is_some_and(|w| *w == [0; 4]),
            // Below the smallest normal float a weight counts as zero (`iqm::view`).
            Quad::F32(a) => a
                .get(v)
                .is_some_and(|w| w.iter().all(|c| c.get() < f32::MIN_POSITIVE)),
            Quad::U32(_) => false,
        };
        // Counted in one branch-free pass (four weight bytes are one word); the first found
        // only when there is one.
        let count = match quad {
            Quad::U8(a) => a
                .iter()
                .fold(0u64, |c, w| c + u64::from(u32::from_ne_bytes(*w) == 0)),
            _ => (0..n).filter(|&v| zero(v)).count() as u64,
        };
        let first = if count > 0 {
            (0..n).find(|&v| zero(v))
        } else {
            None
        };
        if let Some(first) = first {
            let width = match quad {
                Quad::U8(_) => 4,
                _ => 16,
            };
            self.diag.warn_n(
                FORMAT,
                WarningKind::ZeroWeights,
                "vertex.blendweights",
                data_at + width * first as u64,
                count,
                || {
                    format!(
                        "{count} vertices (the first is {first}) have no weight; each follows \
                         its first blend index wholly, as in FTE and DarkPlaces"
                    )
                },
            );
        }
    }

    /// Each mesh's name and material, and its vertex and triangle ranges inside the totals
    /// (rule 8).
    fn meshes(&mut self, meshes: &[raw::Mesh], h: &Header, strings: &Strings) -> Result<()> {
        let ofs = u64::from(h.ofs_meshes.get());
        for (i, m) in meshes.iter().enumerate() {
            let at = record_offset::<raw::Mesh>(ofs, i);
            let field = |f: usize| at + f as u64;
            strings.check(
                "mesh.name",
                field(offset_of!(raw::Mesh, name)),
                m.name.get(),
            )?;
            strings.check(
                "mesh.material",
                field(offset_of!(raw::Mesh, material)),
                m.material.get(),
            )?;
            for (what, first, count, first_at, total) in [
                (
                    "mesh.num_vertexes",
                    m.first_vertex.get(),
                    m.num_vertexes.get(),
                    offset_of!(raw::Mesh, first_vertex),
                    h.num_vertexes.get(),
                ),
                (
                    "mesh.num_triangles",
                    m.first_triangle.get(),
                    m.num_triangles.get(),
                    offset_of!(raw::Mesh, first_triangle),
                    h.num_triangles.get(),
                ),
            ] {
                let end = u64::from(first) + u64::from(count);
                if end > u64::from(total) {
                    return Err(invalid(
                        what,
                        field(first_at),
                        Problem::AboveMaximum {
                            value: end,
                            max: total.into(),
                        },
                    ));
                }
            }
        }
        Ok(())
    }

    /// Triangle indices below `num_vertexes`, adjacency below `num_triangles` or `u32::MAX`
    /// (rule 9).
    fn triangles(
        &mut self,
        triangles: &[raw::Triangle],
        adjacency: &[raw::Triangle],
        h: &Header,
    ) -> Result<()> {
        let vertexes = h.num_vertexes.get();
        let words = triangles.as_flattened_words();
        let flat = if crate::scan::any_at_least(words, vertexes) {
            words.iter().position(|v| v.get() >= vertexes)
        } else {
            None
        };
        if let Some(k) = flat {
            let value = triangles[k / 3].vertex[k % 3].get();
            return Err(invalid(
                "triangle.vertex",
                u64::from(h.ofs_triangles.get()) + 4 * k as u64,
                Problem::Index {
                    index: value.into(),
                    len: vertexes.into(),
                },
            ));
        }
        let count = h.num_triangles.get();
        let words = adjacency.as_flattened_words();
        // `v + 1` (wrapping) at most `count`: below `count`, or `u32::MAX` (no neighbour).
        let test = (u32::MAX, u32::MAX, count);
        let fails = crate::scan::any_word_fails(zerocopy::IntoBytes::as_bytes(words), false, test)
            .unwrap_or_else(|| {
                let fold = |acc, v: &U32<Le>| acc | u32::from(v.get().wrapping_add(1) > count);
                words.iter().fold(0u32, fold) != 0
            });
        let flat = if fails {
            words
                .iter()
                .position(|v| v.get() >= count && v.get() != u32::MAX)
        } else {
            None
        };
        if let Some(k) = flat {
            let value = adjacency[k / 3].vertex[k % 3].get();
            return Err(invalid(
                "adjacency.triangle",
                u64::from(h.ofs_adjacency.get()) + 4 * k as u64,
                Problem::Index {
                    index: value.into(),
                    len: count.into(),
                },
            ));
        }
        Ok(())
    }

    /// Each joint's name, parent before it (or negative), finite transform with a rotation
    /// that is not zero (rule 10).
    fn joints(&mut self, joints: &[raw::Joint], h: &Header, strings: &Strings) -> Result<()> {
        let ofs = u64::from(h.ofs_joints.get());
        for (i, j) in joints.iter().enumerate() {
            let at = record_offset::<raw::Joint>(ofs, i);
            let field = |f: usize| at + f as u64;
            strings.check(
                "joint.name",
                field(offset_of!(raw::Joint, name)),
                j.name.get(),
            )?;
            check_parent(
                i,
                j.parent.get(),
                field(offset_of!(raw::Joint, parent)),
                "joint.parent",
            )?;
            let values = j
                .translate
                .iter()
                .chain(&j.rotate)
                .chain(&j.scale)
                .position(|v| !v.get().is_finite());
            if let Some(k) = values {
                return Err(invalid(
                    "joint.transform",
                    field(offset_of!(raw::Joint, translate)) + 4 * k as u64,
                    Problem::NotFinite,
                ));
            }
            let length = j
                .rotate
                .iter()
                .map(|c| f64::from(c.get()).powi(2))
                .sum::<f64>()
                .sqrt();
            if length == 0.0 {
                return Err(invalid(
                    "joint.rotate",
                    field(offset_of!(raw::Joint, rotate)),
                    Problem::NotPositive { value: 0.0 },
                ));
            }
            if (length - 1.0).abs() > 1e-2 {
                self.diag.warn(
                    FORMAT,
                    WarningKind::QuatNotUnit,
                    "joint.rotate",
                    field(offset_of!(raw::Joint, rotate)),
                    || format!("joint {i}'s rotation has length {length}; it is normalised"),
                );
            }
        }
        Ok(())
    }

    /// Each pose's parent before it (or negative) and equal to its joint's; finite channels
    /// whose largest value stays finite; `num_poses` a count the joints allow; the channel
    /// count the masks give (rule 11). Returns whether a pose scales.
    fn poses(&mut self, poses: &[raw::Pose], joints: &[raw::Joint], h: &Header) -> Result<bool> {
        let (num_joints, num_poses) = (h.num_joints.get(), h.num_poses.get());
        if num_joints > 0 && num_poses > 0 && num_poses != num_joints {
            return Err(invalid(
                "header.num_poses",
                offset_of!(Header, num_poses) as u64,
                Problem::Mismatch {
                    value: num_poses.into(),
                    expected: num_joints.into(),
                },
            ));
        }
        let ofs = u64::from(h.ofs_poses.get());
        let (mut channels, mut scales) = (0u64, false);
        for (i, p) in poses.iter().enumerate() {
            let at = record_offset::<raw::Pose>(ofs, i);
            let field = |f: usize| at + f as u64;
            let parent = p.parent.get();
            check_parent(
                i,
                parent,
                field(offset_of!(raw::Pose, parent)),
                "pose.parent",
            )?;
            if let Some(j) = joints.get(i)
                && j.parent.get().max(-1) != parent.max(-1)
            {
                return Err(invalid(
                    "pose.parent",
                    field(offset_of!(raw::Pose, parent)),
                    Problem::PoseParent {
                        pose: i as u64,
                        parent: parent.into(),
                        joint: j.parent.get().into(),
                    },
                ));
            }
            let mask = p.channelmask.get();
            if mask & !raw::CHANNEL_MASK != 0 {
                self.diag.warn(
                    FORMAT,
                    WarningKind::UnknownFlags,
                    "pose.channelmask",
                    field(offset_of!(raw::Pose, channelmask)),
                    || format!("pose {i} has mask {mask:#x}; only bits 0 to 9 are channels"),
                );
            }
            channels += u64::from((mask & raw::CHANNEL_MASK).count_ones());
            // Every channel's offset and scale finite, and the largest value it decodes to
            // (`|offset| + 65535 |scale|` when animated). One term a channel, finite exactly
            // when its channel passes, their tests folded without a branch; only a pose that
            // fails looks at its channels one by one.
            let (offsets, scales_of) = (
                p.channeloffset.map(|v| v.get()),
                p.channelscale.map(|v| v.get()),
            );
            let passes = (0..raw::NUM_CHANNELS).fold(true, |ok, c| {
                let reach = if mask >> c & 1 == 1 { 65535.0 } else { 1.0 };
                ok & (offsets[c].abs() + scales_of[c].abs() * reach).is_finite()
            });
            if !passes {
                for c in 0..raw::NUM_CHANNELS {
                    let (offset, scale) = (p.channeloffset[c].get(), p.channelscale[c].get());
                    let animated = mask >> c & 1 == 1;
                    let top = offset.abs() + if animated { 65535.0 * scale.abs() } else { 0.0 };
                    if !offset.is_finite() || !scale.is_finite() || !top.is_finite() {
                        let which = if offset.is_finite() {
                            offset_of!(raw::Pose, channelscale)
                        } else {
                            offset_of!(raw::Pose, channeloffset)
                        };
                        return Err(invalid(
                            "pose.channel",
                            field(which) + 4 * c as u64,
                            Problem::NotFinite,
                        ));
                    }
                }
            }
            for c in 7..raw::NUM_CHANNELS {
                let (offset, scale) = (offsets[c], scales_of[c]);
                scales |= (offset != 1.0) | ((mask >> c & 1 == 1) & (scale != 0.0));
            }
        }
        let declared = h.num_framechannels.get();
        if h.num_frames.get() > 0 && channels != u64::from(declared) {
            return Err(invalid(
                "header.num_framechannels",
                offset_of!(Header, num_framechannels) as u64,
                Problem::Mismatch {
                    value: declared.into(),
                    expected: channels,
                },
            ));
        }
        Ok(scales)
    }

    /// Each anim's name, its frames inside `num_frames` and a finite rate (rule 12); a rate
    /// that is not positive is warned.
    fn anims(&mut self, anims: &[raw::Anim], h: &Header, strings: &Strings) -> Result<()> {
        let ofs = u64::from(h.ofs_anims.get());
        let frames = h.num_frames.get();
        for (i, a) in anims.iter().enumerate() {
            let at = record_offset::<raw::Anim>(ofs, i);
            let field = |f: usize| at + f as u64;
            strings.check(
                "anim.name",
                field(offset_of!(raw::Anim, name)),
                a.name.get(),
            )?;
            let end = u64::from(a.first_frame.get()) + u64::from(a.num_frames.get());
            if end > u64::from(frames) {
                return Err(invalid(
                    "anim.num_frames",
                    field(offset_of!(raw::Anim, first_frame)),
                    Problem::AboveMaximum {
                        value: end,
                        max: frames.into(),
                    },
                ));
            }
            let rate = a.framerate.get();
            if !rate.is_finite() {
                return Err(invalid(
                    "anim.framerate",
                    field(offset_of!(raw::Anim, framerate)),
                    Problem::NotFinite,
                ));
            }
            if rate <= 0.0 {
                self.diag.warn(
                    FORMAT,
                    WarningKind::FrameRate,
                    "anim.framerate",
                    field(offset_of!(raw::Anim, framerate)),
                    || {
                        format!(
                            "anim {i} has frame rate {rate}; it plays at {} frames per second, \
                             as in FTE",
                            crate::view::NAMED_CLIP_FPS
                        )
                    },
                );
            }
        }
        Ok(())
    }

    /// Every bound finite (rule 13).
    fn bounds(&mut self, bounds: &[raw::Bounds], h: &Header) -> Result<()> {
        // Eight floats a record, in order: one flat table for the scan.
        let values =
            <[F32<Le>]>::ref_from_bytes(zerocopy::IntoBytes::as_bytes(bounds)).unwrap_or_default();
        if !crate::scan::any_non_finite(values) {
            return Ok(());
        }
        match values.iter().position(|v| !v.get().is_finite()) {
            Some(k) => Err(invalid(
                "bounds",
                u64::from(h.ofs_bounds.get()) + 4 * k as u64,
                Problem::NotFinite,
            )),
            None => Ok(()),
        }
    }

    /// The extension chain (rule 14): exactly `num_extensions` links, each at or after the
    /// header and inside the data, with a named string and its data inside the data, the last
    /// pointing nowhere (so the chain has no cycle).
    fn extensions(&mut self, h: &Header, strings: &Strings) -> Result<()> {
        let count = h.num_extensions.get();
        if count == 0 {
            return Ok(());
        }
        // Each link takes 16 bytes of the file: more links than fit cannot be distinct.
        let fit = self.reader.len() / size_of::<raw::Extension>() as u64;
        if u64::from(count) > fit {
            return Err(invalid(
                "header.num_extensions",
                offset_of!(Header, num_extensions) as u64,
                Problem::AboveMaximum {
                    value: count.into(),
                    max: fit,
                },
            ));
        }
        let mut link = h.ofs_extensions;
        let mut link_field = offset_of!(Header, ofs_extensions) as u64;
        for _ in 0..count {
            let at = u64::from(link.get());
            if at < HEADER_SIZE {
                return Err(invalid(
                    "extension.ofs_extensions",
                    link_field,
                    Problem::BelowMinimum {
                        value: at,
                        min: HEADER_SIZE,
                    },
                ));
            }
            let e: &raw::Extension = self.reader.ref_at("extension", at)?;
            let field = |f: usize| at + f as u64;
            strings.check(
                "extension.name",
                field(offset_of!(raw::Extension, name)),
                e.name.get(),
            )?;
            let (data_at, len) = (u64::from(e.ofs_data.get()), u64::from(e.num_data.get()));
            if len > 0 && data_at < HEADER_SIZE {
                return Err(invalid(
                    "extension.ofs_data",
                    field(offset_of!(raw::Extension, ofs_data)),
                    Problem::BelowMinimum {
                        value: data_at,
                        min: HEADER_SIZE,
                    },
                ));
            }
            if self.reader.get_bytes(data_at, len).is_none() {
                return Err(self.reader.truncated("extension.ofs_data", data_at, len));
            }
            // Writers order links and data differently (FTE: every link, then every data).
            self.layout.reach(at + size_of::<raw::Extension>() as u64);
            self.layout.reach(data_at + len);
            link = e.ofs_extensions;
            link_field = field(offset_of!(raw::Extension, ofs_extensions));
        }
        if link.get() != 0 {
            return Err(invalid(
                "extension.ofs_extensions",
                link_field,
                Problem::Mismatch {
                    value: link.get().into(),
                    expected: 0,
                },
            ));
        }
        Ok(())
    }
}

/// The label of a section's offset field.
fn ofs_label(what: &'static str) -> &'static str {
    match what {
        "text" => "header.ofs_text",
        "meshes" => "header.ofs_meshes",
        "vertex arrays" => "header.ofs_vertexarrays",
        "triangles" => "header.ofs_triangles",
        "adjacency" => "header.ofs_adjacency",
        "joints" => "header.ofs_joints",
        "poses" => "header.ofs_poses",
        "anims" => "header.ofs_anims",
        "frames" => "header.ofs_frames",
        "bounds" => "header.ofs_bounds",
        _ => "header.ofs_comment",
    }
}

/// A parent that is negative (a root) or an earlier index.
fn check_parent(index: usize, parent: i32, offset: u64, what: &'static str) -> Result<()> {
    if parent < 0 || (parent as usize) < index {
        return Ok(());
    }
    Err(invalid(
        what,
        offset,
        Problem::Parent {
            bone: index as u64,
            parent: parent.into(),
        },
    ))
}

/// Whether a standard array of `type_` may have `format` and `size` (custom arrays: any
/// format, 1 to [`MAX_CUSTOM_SIZE`] components).
fn allowed(type_: u32, format: u32, size: u32) -> bool {
    match type_ {
        raw::IQM_POSITION | raw::IQM_NORMAL => format == raw::IQM_FLOAT && size == 3,
        raw::IQM_TEXCOORD => format == raw::IQM_FLOAT && size == 2,
        raw::IQM_TANGENT => format == raw::IQM_FLOAT && size == 4,
        raw::IQM_BLENDINDEXES => {
            matches!(format, raw::IQM_UBYTE | raw::IQM_INT | raw::IQM_UINT) && size == 4
        }
        raw::IQM_BLENDWEIGHTS | raw::IQM_COLOR => {
            matches!(format, raw::IQM_UBYTE | raw::IQM_FLOAT) && size == 4
        }
        _ => (1..=MAX_CUSTOM_SIZE).contains(&size),
    }
}

/// What [`allowed`] accepts for `type_`, for the message.
fn supported(type_: u32) -> &'static str {
    match type_ {
        raw::IQM_POSITION => "positions are read as 3 floats",
        raw::IQM_NORMAL => "normals are read as 3 floats",
        raw::IQM_TEXCOORD => "texture coordinates are read as 2 floats",
        raw::IQM_TANGENT => "tangents are read as 4 floats",
        raw::IQM_BLENDINDEXES => "blend indexes are read as 4 ubytes, ints or uints",
        raw::IQM_BLENDWEIGHTS => "blend weights are read as 4 ubytes or floats",
        raw::IQM_COLOR => "colours are read as 4 ubytes or floats",
        _ => "custom arrays have 1 to 16 components",
    }
}

/// The words of a table of triangles (or adjacency), in order.
trait Words {
    fn as_flattened_words(&self) -> &[U32<Le>];
}

impl Words for [raw::Triangle] {
    fn as_flattened_words(&self) -> &[U32<Le>] {
        <[U32<Le>]>::ref_from_bytes(zerocopy::IntoBytes::as_bytes(self)).unwrap_or_default()
    }
}

/// `values` as `n` arrays of `N` (the array was proven to hold `n · N` values).
fn as_arrays<const N: usize>(values: &[F32<Le>], n: usize) -> &[[F32<Le>; N]] {
    let (chunks, _) = values.as_chunks::<N>();
    chunks.get(..n).unwrap_or(chunks)
}
