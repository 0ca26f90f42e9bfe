//! The DPM validation pass: every rule of `docs/formats/dpm.md` § Validation, in one linear walk.
//!
//! Order of work (and of the checks, so that the first error is deterministic):
//! 1. header: magic, type, declared file size, counts and their limits;
//! 2. the bone, mesh and frame tables in bounds;
//! 3. bones: `-1 ≤ parent < index`;
//! 4. meshes, in writer order: counts, the variable-length vertex walk (counts, bounds,
//!    `bonenum`, finite floats), texture coordinates, indices `< num_verts`, group ids;
//! 5. frames: pose block in bounds, every pose value finite (one scan of all the blocks where
//!    they follow one another, as writers lay them out), bounds and names.
//!
//! Nothing is allocated except the [`Diagnostics`] entries (at most one per kind).

use core::mem::offset_of;

use zerocopy::BigEndian;
use zerocopy::byteorder::{F32, U32};

use super::raw::{self, BonePose, Header};
use super::view::Dpm;
use crate::diag::{Diagnostics, WarningKind};
use crate::error::{Error, Problem, Result};
use crate::floatbits::{Masks, flat, raw};
use crate::format::Format;
use crate::limits::Limits;
use crate::name;
use crate::parse::Parse;
use crate::pose::rotation::count_non_rotations;
use crate::read::Reader;
use crate::rules::{self, Layout, MeshFields, MeshPass, end, record_offset};

const FORMAT: Format = Format::Dpm;

/// Every rule of `docs/formats/dpm.md` § Validation (see the [module docs](super)).
///
/// ```
/// use skelmap_core::{dpm::Dpm, synth, Diagnostics, Limits, Parse};
/// let bytes = synth::tube(&synth::TubeParams::default()).write()?;
/// let mut diag = Diagnostics::new();
/// let model = Dpm::parse_with(&bytes, &Limits::default(), &mut diag)?;
/// assert!(diag.is_empty());
/// assert_eq!(model.num_bones(), 4);
/// # Ok::<(), skelmap_core::Error>(())
/// ```
impl<'data> Parse<'data> for Dpm<'data> {
    const FORMAT: Format = FORMAT;

    fn parse_with(
        data: &'data [u8],
        limits: &Limits,
        diag: &mut Diagnostics,
    ) -> Result<Dpm<'data>> {
        let data = check_header(data, limits, diag)?;
        let reader = Reader::new(data, FORMAT);
        let header: &Header = reader.ref_at("header", 0)?;

        let num_bones = header.num_bones.get();
        let ofs_bones = u64::from(header.ofs_bones.get());
        let ofs_meshs = u64::from(header.ofs_meshs.get());
        let ofs_frames = u64::from(header.ofs_frames.get());
        let bones = reader.slice_at::<raw::Bone>("bone table", ofs_bones, num_bones.into())?;
        let meshes =
            reader.slice_at::<raw::Mesh>("mesh table", ofs_meshs, header.num_meshs.get().into())?;
        let frames = reader.slice_at::<raw::Frame>(
            "frame table",
            ofs_frames,
            header.num_frames.get().into(),
        )?;

        let mut layout = Layout::new(FORMAT);
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
        for (i, bone) in bones.iter().enumerate() {
            let at = record_offset::<raw::Bone>(ofs_bones, i);
            let field = |f: usize| at + f as u64;
            rules::check_parent(
                FORMAT,
                i,
                bone.parent.get(),
                field(offset_of!(raw::Bone, parent)),
            )?;
            rules::check_bone_flags(
                FORMAT,
                diag,
                i,
                bone.flags.get(),
                field(offset_of!(raw::Bone, flags)),
            );
            rules::check_name(FORMAT, diag, "bone.name", at, &bone.name);
        }

        let mut pass = MeshPass {
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
        let at_once = poses_at_once(reader, frames, num_bones);
        if let Some((start, poses, _)) = at_once {
            pass.layout
                .region("frame.bonepositions", start, end(start, poses));
        }
        // Where all poses passed at once and no frame warns, the frames need no walk.
        let walk_frames = !at_once.is_some_and(|(_, _, fine)| fine);
        for (i, frame) in frames.iter().enumerate().filter(|_| walk_frames) {
            let at = record_offset::<raw::Frame>(ofs_frames, i);
            if at_once.is_none() {
                pass.frame_poses(frame, at)?;
            }
            check_bounds(
                pass.diag,
                "frame.mins",
                at + offset_of!(raw::Frame, mins) as u64,
                [&frame.mins, &frame.maxs],
                [frame.yawradius.get(), frame.allradius.get()],
            );
            rules::check_name(FORMAT, pass.diag, "frame.name", at, &frame.name);
        }
        pass.layout.report(reader.bytes(), pass.diag);
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
    rules::begin(FORMAT, data, limits)?;
    let header: &Header = Reader::new(data, FORMAT).ref_at("header", 0)?;
    let at = |f: usize| f as u64;
    rules::check_type(
        FORMAT,
        at(offset_of!(Header, type_)),
        header.type_.get(),
        raw::DPM_TYPE_SKELETAL,
        "skelmap reads type 2 (skeletal)",
    )?;
    let data = rules::declared_size(
        FORMAT,
        data,
        header.filesize.get(),
        at(offset_of!(Header, filesize)),
        size_of::<Header>() as u64,
        diag,
    )?;
    let counts = [
        (
            "header.num_bones",
            offset_of!(Header, num_bones),
            header.num_bones.get(),
            limits.max_bones,
        ),
        (
            "header.num_meshs",
            offset_of!(Header, num_meshs),
            header.num_meshs.get(),
            limits.max_meshes,
        ),
        (
            "header.num_frames",
            offset_of!(Header, num_frames),
            header.num_frames.get(),
            limits.max_frames,
        ),
    ];
    for (what, field, value, max) in counts {
        rules::check_count(FORMAT, what, at(field), value, max)?;
    }
    Ok(data)
}

/// The pose blocks of all frames as one table, when they follow one another from the first
/// (as writers lay them out) and one scan of them all finds every value finite, with whether
/// every frame's bounds and name pass (found in the same pass over the frame table, while it
/// is in the cache). Then the frames need no scan of their own, and the table is one layout
/// region; otherwise each frame reads and scans its block, and the first that does not pass
/// is reported as it would be without this.
fn poses_at_once<'data>(
    reader: Reader<'data>,
    frames: &[raw::Frame],
    num_bones: u32,
) -> Option<(u64, &'data [BonePose], bool)> {
    let start = u64::try_from(frames.first()?.ofs_bonepositions.get()).ok()?;
    let block = size_of::<BonePose>() as u64 * u64::from(num_bones);
    let (strays, fine) =
        frames
            .iter()
            .zip(0u64..)
            .fold((0u64, true), |(strays, fine), (frame, i)| {
                let at = u64::try_from(frame.ofs_bonepositions.get()).unwrap_or(u64::MAX);
                (
                    strays | (at ^ start.wrapping_add(i.wrapping_mul(block))),
                    fine & bounds_fine(frame) & name::is_terminated(&frame.name),
                )
            });
    let all = u64::from(num_bones) * frames.len() as u64;
    let poses = reader
        .slice_at::<BonePose>("frame.bonepositions", start, all)
        .ok()?;
    (strays == 0 && !crate::scan::any_non_finite(flat::<BigEndian, _>(poses)))
        .then_some((start, poses, fine))
}

/// DPM's part of the pass: the group ids after the shared arrays, and the frames' poses.
trait DpmPass {
    fn mesh(&mut self, mesh: &raw::Mesh, at: u64) -> Result<()>;
    /// The pose block of the frame at `at`, where [`poses_at_once`] did not pass them all.
    fn frame_poses(&mut self, frame: &raw::Frame, at: u64) -> Result<()>;
}

impl DpmPass for MeshPass<'_, '_> {
    fn mesh(&mut self, mesh: &raw::Mesh, at: u64) -> Result<()> {
        let field = |f: usize| at + f as u64;
        let num_tris = mesh.num_tris.get();
        rules::check_name(FORMAT, self.diag, "mesh.shadername", at, &mesh.shadername);
        self.shared_arrays::<BigEndian>(MeshFields {
            num_verts: mesh.num_verts.get(),
            num_verts_at: field(offset_of!(raw::Mesh, num_verts)),
            num_tris,
            num_tris_at: field(offset_of!(raw::Mesh, num_tris)),
            ofs_verts: mesh.ofs_verts.get().into(),
            ofs_texcoords: mesh.ofs_texcoords.get().into(),
            ofs_indices: mesh.ofs_indices.get().into(),
        })?;
        let ofs_groupids = u64::from(mesh.ofs_groupids.get());
        let groupids = self.reader.slice_at::<U32<BigEndian>>(
            "mesh.groupids",
            ofs_groupids,
            num_tris.into(),
        )?;
        self.layout
            .region("mesh.groupids", ofs_groupids, end(ofs_groupids, groupids));
        Ok(())
    }

    fn frame_poses(&mut self, frame: &raw::Frame, at: u64) -> Result<()> {
        let ofs_field = at + offset_of!(raw::Frame, ofs_bonepositions) as u64;
        let ofs = frame.ofs_bonepositions.get();
        let ofs = u64::from(rules::non_negative(
            FORMAT,
            "frame.ofs_bonepositions",
            ofs_field,
            ofs,
        )?);
        let poses =
            self.reader
                .slice_at::<BonePose>("frame.bonepositions", ofs, self.num_bones.into())?;
        self.layout
            .region("frame.bonepositions", ofs, end(ofs, poses));
        let values = flat::<BigEndian, _>(poses);
        if crate::scan::any_non_finite(values) {
            let masks = Masks::of::<BigEndian>();
            let k = values
                .iter()
                .position(|v| masks.non_finite(raw(*v)))
                .unwrap_or(0);
            let (b, k) = (k / 12, k % 12);
            return Err(Error::Invalid {
                format: FORMAT,
                what: "bonepose.matrix",
                offset: record_offset::<BonePose>(ofs, b) + 4 * k as u64,
                problem: Problem::NotFinite,
            });
        }
        Ok(())
    }
}

impl Dpm<'_> {
    /// Judges the rotations of every pose of every frame: reports, each kind as one entry
    /// counting them, the rotation rows of length zero ([`WarningKind::ZeroRotationRow`]),
    /// then the poses whose rotation part is not a rotation
    /// ([`WarningKind::NonOrthonormal`]; [`is_rotation`](crate::pose::is_rotation): scaled,
    /// sheared or mirrored beyond the tolerance the DPM → SKM conversion uses). Such a pose
    /// has no quaternion: sampling keeps its rotation only, as DarkPlaces does. A pose with a
    /// zero row is reported as such and not counted again.
    ///
    /// Validation ([`Parse`]) proves the file safe to read and leaves this out: it is a
    /// judgement on the animation, and it costs a few nanoseconds per pose, several times what
    /// validating the pose costs. [`Model::diagnostics`](crate::Model::diagnostics) runs it
    /// when first called.
    ///
    /// ```
    /// use skelmap_core::{dpm::Dpm, synth, Diagnostics, Parse, WarningKind};
    /// let bytes = synth::tube(&synth::TubeParams::default()).write()?;
    /// let mut diag = Diagnostics::new();
    /// Dpm::parse(&bytes)?.check_rotations(&mut diag);
    /// assert_eq!(diag.count(WarningKind::NonOrthonormal), 0);
    /// assert_eq!(diag.count(WarningKind::ZeroRotationRow), 0);
    /// # Ok::<(), skelmap_core::Error>(())
    /// ```
    pub fn check_rotations(&self, diag: &mut Diagnostics) {
        let masks = Masks::of::<BigEndian>();
        let zero_row = |row: &[F32<BigEndian>; 4]| {
            masks.zero(raw(row[0])) && masks.zero(raw(row[1])) && masks.zero(raw(row[2]))
        };
        let block_at = |frame: &super::view::Frame<'_>| {
            u64::try_from(frame.raw().ofs_bonepositions.get()).unwrap_or(0)
        };
        for frame in self.frames() {
            let rows = frame.poses().iter().flat_map(|p| &p.matrix);
            let zero_rows = rows.clone().filter(|r| zero_row(r)).count() as u64;
            if let Some(r) = rows.clone().position(zero_row) {
                let (b, row) = (r / 3, r % 3);
                diag.warn_n(
                    FORMAT,
                    WarningKind::ZeroRotationRow,
                    "bonepose.matrix",
                    record_offset::<BonePose>(block_at(&frame), b) + 16 * row as u64,
                    zero_rows,
                    || format!("bone {b}, row {row}: rotation row has zero length"),
                );
            }
        }
        let matrix = |p: &BonePose| {
            if p.matrix.iter().any(zero_row) {
                IDENTITY_POSE
            } else {
                p.matrix.map(|row| row.map(|v| v.get()))
            }
        };
        for frame in self.frames() {
            let (skewed, first) = count_non_rotations(frame.poses(), matrix);
            if let Some(b) = first {
                diag.warn_n(
                    FORMAT,
                    WarningKind::NonOrthonormal,
                    "bonepose.matrix",
                    record_offset::<BonePose>(block_at(&frame), b),
                    skewed,
                    || {
                        format!(
                            "bone {b}: rotation is scaled or sheared; sampling keeps only its \
                             rotation"
                        )
                    },
                );
            }
        }
    }
}

/// A pose that is a rotation, standing in for one reported otherwise.
const IDENTITY_POSE: [[f32; 4]; 3] = [
    [1.0, 0.0, 0.0, 0.0],
    [0.0, 1.0, 0.0, 0.0],
    [0.0, 0.0, 1.0, 0.0],
];

/// Whether a frame's box and radii pass [`check_bounds`] (branch-free, for a pass over the
/// whole table).
#[inline(always)]
fn bounds_fine(frame: &raw::Frame) -> bool {
    let boxed = (0..3).fold(true, |ok, k| {
        ok & (frame.mins[k].get() <= frame.maxs[k].get())
    });
    let radius = |r: f32| (r >= 0.0) & r.is_finite();
    boxed & radius(frame.yawradius.get()) & radius(frame.allradius.get())
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
