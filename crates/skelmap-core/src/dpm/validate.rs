//! The DPM validation pass: every rule of `FORMATS.md` §2.7, in one linear walk.
//!
//! Order of work (and of the checks, so that the first error is deterministic):
//! 1. header: magic, type, declared file size, counts and their limits;
//! 2. the bone, mesh and frame tables in bounds;
//! 3. bones: `-1 ≤ parent < index`;
//! 4. meshes, in writer order: counts, the variable-length vertex walk (counts, bounds,
//!    `bonenum`, finite floats), texture coordinates, indices `< num_verts`, group ids;
//! 5. frames: pose block in bounds, every pose value finite.
//!
//! Nothing is allocated except the [`Diagnostics`] entries (at most one per kind).

use core::mem::offset_of;

use zerocopy::BigEndian;
use zerocopy::byteorder::F32;

use super::raw::{self, BonePose, Header};
use super::view::Dpm;
use crate::bonevert::{WalkRules, validate_vertices};
use crate::diag::{Diagnostics, WarningKind};
use crate::error::{Error, Result};
use crate::floatbits::{Masks, flat, raw};
use crate::limits::Limits;
use crate::name;
use crate::probe::Format;
use crate::read::Reader;

const FORMAT: Format = Format::Dpm;

impl<'data> Dpm<'data> {
    /// Validates `data` as a DPM with the default [`Limits`], discarding warnings.
    ///
    /// # Errors
    ///
    /// Any violation of the format rules, as a typed [`Error`] naming the structure, field and
    /// byte offset; [`Error::Limit`] when a count exceeds [`Limits::DEFAULT`].
    pub fn parse(data: &'data [u8]) -> Result<Dpm<'data>> {
        Dpm::parse_with(data, &Limits::DEFAULT, &mut Diagnostics::new())
    }

    /// Validates `data` as a DPM under `limits`, recording non-fatal findings in `diag`.
    ///
    /// ```
    /// use skelmap_core::{dpm::Dpm, synth, Diagnostics, Limits};
    /// let bytes = synth::tube(&synth::TubeParams::default()).write()?;
    /// let mut diag = Diagnostics::new();
    /// let model = Dpm::parse_with(&bytes, &Limits::default(), &mut diag)?;
    /// assert!(diag.is_empty());
    /// assert_eq!(model.num_bones(), 4);
    /// # Ok::<(), skelmap_core::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`Dpm::parse`], with the caller's limits.
    pub fn parse_with(
        data: &'data [u8],
        limits: &Limits,
        diag: &mut Diagnostics,
    ) -> Result<Dpm<'data>> {
        let data = check_header(data, limits, diag)?;
        let reader = Reader::new(data, FORMAT);
        let header: &Header = reader.ref_at("header", 0)?;

        let num_bones = header.num_bones.get();
        let num_meshs = header.num_meshs.get();
        let num_frames = header.num_frames.get();
        let ofs_bones = u64::from(header.ofs_bones.get());
        let ofs_meshs = u64::from(header.ofs_meshs.get());
        let ofs_frames = u64::from(header.ofs_frames.get());

        let bones = reader.slice_at::<raw::Bone>("bone table", ofs_bones, num_bones.into())?;
        let meshes = reader.slice_at::<raw::Mesh>("mesh table", ofs_meshs, num_meshs.into())?;
        let frames = reader.slice_at::<raw::Frame>("frame table", ofs_frames, num_frames.into())?;

        let mut layout = Layout::default();
        layout.region("header", 0, size_of::<Header>() as u64);
        layout.region("bone table", ofs_bones, end(ofs_bones, bones));
        layout.region("mesh table", ofs_meshs, end(ofs_meshs, meshes));
        layout.region("frame table", ofs_frames, end(ofs_frames, frames));

        check_bounds(
            diag,
            "header.mins",
            offset_of!(Header, mins) as u64,
            [&header.mins, &header.maxs],
            [header.yawradius.get(), header.allradius.get()],
        );
        check_bones(bones, ofs_bones, diag)?;

        let mut pass = Pass {
            reader,
            limits,
            num_bones,
            total_influences: 0,
            layout,
            diag,
        };
        for (i, mesh) in meshes.iter().enumerate() {
            pass.mesh(mesh, record_offset::<raw::Mesh>(ofs_meshs, i))?;
        }
        for (i, frame) in frames.iter().enumerate() {
            pass.frame(frame, record_offset::<raw::Frame>(ofs_frames, i))?;
        }
        pass.layout.report(reader.len(), pass.diag);
        Ok(Dpm {
            data,
            header,
            bones,
            meshes,
            frames,
        })
    }
}

/// Checks what the header alone decides and returns the bytes the rest may read:
/// all of `data`, or its first `filesize` bytes when the file declares less.
fn check_header<'data>(
    data: &'data [u8],
    limits: &Limits,
    diag: &mut Diagnostics,
) -> Result<&'data [u8]> {
    let len = data.len() as u64;
    if len > limits.max_file_size {
        return Err(Error::Limit {
            format: FORMAT,
            what: "file size",
            offset: 0,
            value: len,
            max: limits.max_file_size,
        });
    }
    // A prefix of the magic is a truncated DPM; anything else is not a DPM at all.
    let magic = raw::DPM_MAGIC.as_slice();
    let shown = data.get(..magic.len()).unwrap_or(data);
    if !magic.starts_with(shown) {
        return Err(Error::BadMagic {
            format: FORMAT,
            expected: "\"DARKPLACESMODEL\\0\"",
        });
    }
    let reader = Reader::new(data, FORMAT);
    let header: &Header = reader.ref_at("header", 0)?;

    let kind = header.type_.get();
    if kind != raw::DPM_TYPE_SKELETAL {
        return Err(Error::Unsupported {
            format: FORMAT,
            what: "header.type",
            offset: offset_of!(Header, type_) as u64,
            detail: format!("model type {kind}; only type 2 (skeletal) is defined"),
        });
    }

    let filesize_at = offset_of!(Header, filesize) as u64;
    let filesize = u64::from(header.filesize.get());
    if filesize > len {
        return Err(Error::Truncated {
            format: FORMAT,
            what: "file (header.filesize)",
            offset: 0,
            need: filesize,
            have: len,
        });
    }
    if filesize < size_of::<Header>() as u64 {
        return Err(Error::Invalid {
            format: FORMAT,
            what: "header.filesize",
            offset: filesize_at,
            detail: format!("declared size {filesize} is smaller than the 80-byte header"),
        });
    }
    if filesize < len {
        diag.warn(
            FORMAT,
            WarningKind::FileSize,
            "header.filesize",
            filesize_at,
            || format!("declares {filesize} bytes but {len} are present; the rest is ignored"),
        );
    }

    check_count(
        "header.num_bones",
        offset_of!(Header, num_bones) as u64,
        header.num_bones.get(),
        limits.max_bones,
        "model has no bones",
    )?;
    check_count(
        "header.num_meshs",
        offset_of!(Header, num_meshs) as u64,
        header.num_meshs.get(),
        limits.max_meshes,
        "model has no meshes",
    )?;
    check_count(
        "header.num_frames",
        offset_of!(Header, num_frames) as u64,
        header.num_frames.get(),
        limits.max_frames,
        "model has no frames",
    )?;
    // filesize ≤ len was checked above, so this cut never fails.
    Ok(data.get(..filesize as usize).unwrap_or(data))
}

fn check_bones(bones: &[raw::Bone], ofs_bones: u64, diag: &mut Diagnostics) -> Result<()> {
    for (i, bone) in bones.iter().enumerate() {
        let at = record_offset::<raw::Bone>(ofs_bones, i);
        let parent = bone.parent.get();
        if parent < -1 || i64::from(parent) >= i as i64 {
            return Err(Error::Invalid {
                format: FORMAT,
                what: "bone.parent",
                offset: at + offset_of!(raw::Bone, parent) as u64,
                detail: format!(
                    "bone {i} has parent {parent}; it must be -1 (root) or a bone before it"
                ),
            });
        }
        let flags = bone.flags.get();
        if flags & !raw::DPMBONEFLAG_ATTACHMENT != 0 {
            diag.warn(
                FORMAT,
                WarningKind::UnknownFlags,
                "bone.flags",
                at + offset_of!(raw::Bone, flags) as u64,
                || format!("bone {i} has flags {flags:#x}; only bit 0 (attachment) is defined"),
            );
        }
        check_name(diag, "bone.name", at, &bone.name);
    }
    Ok(())
}

/// The state of the validation pass over meshes and frames.
struct Pass<'a, 'data> {
    reader: Reader<'data>,
    limits: &'a Limits,
    num_bones: u32,
    /// Influence records seen so far, over all meshes.
    total_influences: u64,
    layout: Layout,
    diag: &'a mut Diagnostics,
}

impl Pass<'_, '_> {
    fn mesh(&mut self, mesh: &raw::Mesh, at: u64) -> Result<()> {
        let num_verts = mesh.num_verts.get();
        let num_tris = mesh.num_tris.get();
        let field = |f: usize| at + f as u64;
        check_count(
            "mesh.num_verts",
            field(offset_of!(raw::Mesh, num_verts)),
            num_verts,
            self.limits.max_vertices_per_mesh,
            "mesh has no vertices",
        )?;
        check_count(
            "mesh.num_tris",
            field(offset_of!(raw::Mesh, num_tris)),
            num_tris,
            self.limits.max_triangles_per_mesh,
            "mesh has no triangles",
        )?;
        check_name(self.diag, "mesh.shadername", at, &mesh.shadername);

        let ofs_verts = u64::from(mesh.ofs_verts.get());
        let rules = WalkRules {
            num_bones: self.num_bones,
            limits: self.limits,
        };
        let verts_end = validate_vertices::<BigEndian>(
            self.reader,
            ofs_verts,
            num_verts,
            rules,
            &mut self.total_influences,
            self.diag,
        )?;
        self.layout.region("mesh vertices", ofs_verts, verts_end);

        let ofs_texcoords = u64::from(mesh.ofs_texcoords.get());
        let texcoords = self.reader.slice_at::<[F32<BigEndian>; 2]>(
            "mesh.texcoords",
            ofs_texcoords,
            num_verts.into(),
        )?;
        self.layout.region(
            "mesh texcoords",
            ofs_texcoords,
            end(ofs_texcoords, texcoords),
        );
        let masks = Masks::of::<BigEndian>();
        let bad_st =
            |st: &[F32<BigEndian>; 2]| masks.non_finite(raw(st[0])) | masks.non_finite(raw(st[1]));
        let bad = texcoords
            .iter()
            .fold(0u64, |n, st| n + u64::from(bad_st(st)));
        if bad > 0 {
            let first = texcoords.iter().position(bad_st).unwrap_or(0);
            self.diag.warn_n(
                FORMAT,
                WarningKind::NonFiniteTexcoord,
                "mesh.texcoords",
                record_offset::<[u32; 2]>(ofs_texcoords, first),
                bad,
                || format!("texture coordinate of vertex {first} is NaN or infinite"),
            );
        }

        let ofs_indices = u64::from(mesh.ofs_indices.get());
        let indices = self.reader.slice_at::<[zerocopy::U32<BigEndian>; 3]>(
            "mesh.indices",
            ofs_indices,
            num_tris.into(),
        )?;
        self.layout
            .region("mesh indices", ofs_indices, end(ofs_indices, indices));
        let flat_indices = indices.as_flattened();
        let out_of_range = flat_indices
            .iter()
            .fold(0u32, |acc, i| acc | u32::from(i.get() >= num_verts));
        if out_of_range != 0 {
            let (k, index) = flat_indices
                .iter()
                .map(|i| i.get())
                .enumerate()
                .find(|&(_, i)| i >= num_verts)
                .unwrap_or((0, num_verts));
            return Err(Error::Invalid {
                format: FORMAT,
                what: "mesh.indices",
                offset: ofs_indices + 4 * k as u64,
                detail: format!(
                    "triangle {} refers to vertex {index}; the mesh has {num_verts}",
                    k / 3
                ),
            });
        }

        let ofs_groupids = u64::from(mesh.ofs_groupids.get());
        let groupids = self.reader.slice_at::<zerocopy::U32<BigEndian>>(
            "mesh.groupids",
            ofs_groupids,
            num_tris.into(),
        )?;
        self.layout
            .region("mesh groupids", ofs_groupids, end(ofs_groupids, groupids));
        Ok(())
    }

    fn frame(&mut self, frame: &raw::Frame, at: u64) -> Result<()> {
        let ofs_field = at + offset_of!(raw::Frame, ofs_bonepositions) as u64;
        let ofs = frame.ofs_bonepositions.get();
        let Ok(ofs) = u64::try_from(ofs) else {
            return Err(Error::Invalid {
                format: FORMAT,
                what: "frame.ofs_bonepositions",
                offset: ofs_field,
                detail: format!("negative offset {ofs}"),
            });
        };
        let poses =
            self.reader
                .slice_at::<BonePose>("frame.bonepositions", ofs, self.num_bones.into())?;
        self.layout
            .region("frame bonepositions", ofs, end(ofs, poses));

        // A flat pass over the raw bits of the whole block (vectorised), then a scan for zero
        // rotation rows that is cheap because their first value is almost never zero.
        let masks = Masks::of::<BigEndian>();
        let non_finite = masks.any_non_finite(flat::<BigEndian, _>(poses));
        let zero_row = |row: &[F32<BigEndian>; 4]| {
            masks.zero(raw(row[0])) && masks.zero(raw(row[1])) && masks.zero(raw(row[2]))
        };
        let zero_rows = poses
            .iter()
            .flat_map(|p| &p.matrix)
            .filter(|r| zero_row(r))
            .count() as u64;
        if non_finite {
            let values = poses.iter().flat_map(|p| p.matrix.as_flattened());
            let k = values
                .clone()
                .position(|v| masks.non_finite(raw(*v)))
                .unwrap_or(0);
            let (b, k) = (k / 12, k % 12);
            return Err(Error::Invalid {
                format: FORMAT,
                what: "bonepose.matrix",
                offset: record_offset::<BonePose>(ofs, b) + 4 * k as u64,
                detail: format!(
                    "bone {b}, row {}, column {}: value is NaN or infinite",
                    k / 4,
                    k % 4
                ),
            });
        }
        if zero_rows > 0 {
            let rows = poses.iter().flat_map(|p| &p.matrix);
            let r = rows.clone().position(zero_row).unwrap_or(0);
            let (b, row) = (r / 3, r % 3);
            self.diag.warn_n(
                FORMAT,
                WarningKind::ZeroRotationRow,
                "bonepose.matrix",
                record_offset::<BonePose>(ofs, b) + 16 * row as u64,
                zero_rows,
                || format!("bone {b}, row {row}: rotation row has zero length"),
            );
        }
        check_bounds(
            self.diag,
            "frame.mins",
            at + offset_of!(raw::Frame, mins) as u64,
            [&frame.mins, &frame.maxs],
            [frame.yawradius.get(), frame.allradius.get()],
        );
        check_name(self.diag, "frame.name", at, &frame.name);
        Ok(())
    }
}

/// Rejects a count of zero (`Invalid`) or above its limit (`Limit`).
fn check_count(what: &'static str, offset: u64, value: u32, max: u32, empty: &str) -> Result<()> {
    if value == 0 {
        return Err(Error::Invalid {
            format: FORMAT,
            what,
            offset,
            detail: empty.to_string(),
        });
    }
    if value > max {
        return Err(Error::Limit {
            format: FORMAT,
            what,
            offset,
            value: value.into(),
            max: max.into(),
        });
    }
    Ok(())
}

/// Warns when a box is inverted or a radius is negative or NaN (engines recompute bounds).
fn check_bounds(
    diag: &mut Diagnostics,
    what: &'static str,
    at: u64,
    [mins, maxs]: [&[F32<BigEndian>; 3]; 2],
    radii: [f32; 2],
) {
    let boxed = (0..3).all(|k| mins[k].get() <= maxs[k].get());
    let radii_ok = radii.iter().all(|r| *r >= 0.0 && r.is_finite());
    if !(boxed && radii_ok) {
        diag.warn(FORMAT, WarningKind::Bounds, what, at, || {
            let (lo, hi) = (mins.map(|v| v.get()), maxs.map(|v| v.get()));
            format!("mins {lo:?}, maxs {hi:?}, radii {radii:?}")
        });
    }
}

fn check_name(diag: &mut Diagnostics, what: &'static str, at: u64, field: &[u8]) {
    if !name::is_terminated(field) {
        diag.warn(FORMAT, WarningKind::UnterminatedName, what, at, || {
            format!("{:?} fills all {} bytes", name::lossy(field), field.len())
        });
    }
}

/// Offset of record `index` in a table of `T`s at `base`.
fn record_offset<T>(base: u64, index: usize) -> u64 {
    base + index as u64 * size_of::<T>() as u64
}

/// End offset of a slice known to lie at `start`.
fn end<T>(start: u64, items: &[T]) -> u64 {
    start + size_of_val(items) as u64
}

/// Tracks whether regions come in dpmodel's writer order without overlap, and the furthest
/// byte any region reaches, without storing the regions.
#[derive(Debug, Default)]
struct Layout {
    cursor: u64,
    furthest: u64,
    first_disorder: Option<(&'static str, u64, u64)>,
    disorders: u64,
}

impl Layout {
    fn region(&mut self, what: &'static str, start: u64, end: u64) {
        if start < self.cursor {
            self.disorders += 1;
            self.first_disorder
                .get_or_insert((what, start, self.cursor));
        }
        self.cursor = end;
        self.furthest = self.furthest.max(end);
    }

    fn report(&self, len: u64, diag: &mut Diagnostics) {
        if let Some((what, start, cursor)) = self.first_disorder {
            diag.warn_n(FORMAT, WarningKind::LayoutOrder, what, start, self.disorders, || {
                format!("{what} starts at {start}, before the end of the previous structure at {cursor}")
            });
        }
        if self.furthest < len {
            let extra = len - self.furthest;
            diag.warn(
                FORMAT,
                WarningKind::TrailingBytes,
                "file",
                self.furthest,
                || format!("{extra} bytes after the last structure"),
            );
        }
    }
}
