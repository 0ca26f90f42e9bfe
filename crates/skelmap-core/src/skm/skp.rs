//! The SKP skeleton file: validation (`FORMATS.md` §3.5) and zero-copy accessors.

use core::mem::offset_of;
use std::borrow::Cow;

use glam::{Quat, Vec3A};
use zerocopy::LittleEndian;

use super::raw::{SkpBone, SkpBonePose, SkpFrame, SkpHeader};
use crate::diag::{Diagnostics, WarningKind};
use crate::error::{Error, Result};
use crate::floatbits::{Masks, flat, raw as raw_bits};
use crate::format::Format;
use crate::limits::Limits;
use crate::name;
use crate::parse::Parse;
use crate::pose::{Bone, PoseFrames, Skeleton};
use crate::read::Reader;
use crate::rules::{self, Layout, end, record_offset};

const FORMAT: Format = Format::Skp;

/// How far a quaternion's squared length may stray from 1 before it is reported.
pub const QUAT_LENGTH_TOLERANCE: f32 = 0.01;

/// A validated SKP skeleton over borrowed bytes: bones and frames of parent-relative
/// quaternion + origin poses. `Copy`, `Send` and `Sync`.
#[derive(Debug, Clone, Copy)]
pub struct Skp<'data> {
    data: &'data [u8],
    header: &'data SkpHeader,
    bones: &'data [SkpBone],
    frames: &'data [SkpFrame],
}

/// Validates `data` as an SKP under `limits`, recording non-fatal findings in `diag`.
impl<'data> Parse<'data> for Skp<'data> {
    const FORMAT: Format = FORMAT;

    fn parse_with(
        data: &'data [u8],
        limits: &Limits,
        diag: &mut Diagnostics,
    ) -> Result<Skp<'data>> {
        rules::begin(FORMAT, data, limits)?;
        if super::looks_like_skm(data) {
            return Err(Error::WrongFormat {
                expected: Format::Skp,
                found: Format::Skm,
            });
        }
        let header: &SkpHeader = Reader::new(data, FORMAT).ref_at("header", 0)?;
        let at = |f: usize| f as u64;
        let words = super::SharedHeader {
            type_: header.type_.get(),
            filesize: header.filesize.get(),
            num_bones: header.num_bones.get(),
        };
        let data = super::check_shared_header(
            FORMAT,
            data,
            words,
            size_of::<SkpHeader>(),
            limits,
            diag,
            "skeleton has no bones",
        )?;
        let num_bones = header.num_bones.get();
        let num_frames = header.num_frames.get();
        rules::check_count(
            FORMAT,
            "header.num_frames",
            at(offset_of!(SkpHeader, num_frames)),
            num_frames,
            limits.max_frames,
            "skeleton has no frames",
        )?;

        let reader = Reader::new(data, FORMAT);
        let ofs_bones = u64::from(header.ofs_bones.get());
        let ofs_frames = u64::from(header.ofs_frames.get());
        let bones = reader.slice_at::<SkpBone>("bone table", ofs_bones, num_bones.into())?;
        let frames = reader.slice_at::<SkpFrame>("frame table", ofs_frames, num_frames.into())?;
        let mut layout = Layout::new(FORMAT);
        layout.region("header", 0, size_of::<SkpHeader>() as u64);
        layout.region("bone table", ofs_bones, end(ofs_bones, bones));
        layout.region("frame table", ofs_frames, end(ofs_frames, frames));

        for (i, bone) in bones.iter().enumerate() {
            let at = record_offset::<SkpBone>(ofs_bones, i);
            let field = |f: usize| at + f as u64;
            rules::check_parent(
                FORMAT,
                i,
                bone.parent.get(),
                field(offset_of!(SkpBone, parent)),
            )?;
            rules::check_bone_flags(
                FORMAT,
                diag,
                i,
                bone.flags.get(),
                field(offset_of!(SkpBone, flags)),
            );
            rules::check_name(FORMAT, diag, "bone.name", at, &bone.name);
        }
        for (i, frame) in frames.iter().enumerate() {
            let at = record_offset::<SkpFrame>(ofs_frames, i);
            let ofs = u64::from(frame.ofs_bonepositions.get());
            let poses =
                reader.slice_at::<SkpBonePose>("frame.bonepositions", ofs, num_bones.into())?;
            layout.region("frame.bonepositions", ofs, end(ofs, poses));
            check_poses(poses, ofs, diag)?;
            rules::check_name(FORMAT, diag, "frame.name", at, &frame.name);
        }
        layout.report(reader.len(), diag);
        Ok(Skp {
            data,
            header,
            bones,
            frames,
        })
    }
}

impl<'data> Skp<'data> {
    /// The bytes the view covers.
    #[must_use]
    pub fn data(&self) -> &'data [u8] {
        self.data
    }

    /// The raw header.
    #[must_use]
    pub fn header(&self) -> &'data SkpHeader {
        self.header
    }

    /// Number of bones (at least 1).
    #[must_use]
    pub fn num_bones(&self) -> usize {
        self.bones.len()
    }

    /// Number of frames (at least 1; frame 0 is the bind pose).
    #[must_use]
    pub fn num_frames(&self) -> usize {
        self.frames.len()
    }

    /// The bones, in file order (parents before children).
    pub fn bones(
        &self,
    ) -> impl ExactSizeIterator<Item = Bone<'data>> + DoubleEndedIterator + Clone {
        self.bones.iter().map(bone)
    }

    /// Bone `index`, or `None` if out of range.
    #[must_use]
    pub fn bone(&self, index: usize) -> Option<Bone<'data>> {
        self.bones.get(index).map(bone)
    }

    /// The frames, in file order.
    pub fn frames(
        &self,
    ) -> impl ExactSizeIterator<Item = Frame<'data>> + DoubleEndedIterator + Clone {
        let (data, num_bones) = (self.data, self.num_bones());
        self.frames.iter().map(move |raw| Frame {
            data,
            raw,
            num_bones,
        })
    }

    /// Frame `index`, or `None` if out of range.
    #[must_use]
    pub fn frame(&self, index: usize) -> Option<Frame<'data>> {
        self.frames().nth(index)
    }

    /// Index of the first frame named exactly `name`.
    #[must_use]
    pub fn frame_index(&self, name: &[u8]) -> Option<usize> {
        name::position(self.frames().map(|f| f.name()), name, false)
    }

    /// Index of the first frame whose name equals `name` ignoring ASCII case.
    #[must_use]
    pub fn frame_index_ignore_ascii_case(&self, name: &[u8]) -> Option<usize> {
        name::position(self.frames().map(|f| f.name()), name, true)
    }
}

impl<'data> Skeleton<'data> for Skp<'data> {
    fn skeleton_bones(&self) -> impl ExactSizeIterator<Item = Bone<'data>> + Clone {
        self.bones()
    }
}

impl<'data> PoseFrames<'data> for Skp<'data> {
    fn num_frames(&self) -> usize {
        self.num_frames()
    }

    fn bone_pose(&self, frame: usize, bone: usize) -> Option<(Quat, Vec3A)> {
        let (q, o) = self.frame(frame)?.pose(bone)?;
        Some(skp_pose(q, o))
    }

    fn frame_poses(&self, frame: usize) -> impl Iterator<Item = (Quat, Vec3A)> + '_ {
        let poses = self.frame(frame).map(|f| f.poses()).unwrap_or_default();
        poses.iter().map(|p| skp_pose(p.quat(), p.origin()))
    }
}

pub(super) fn skp_pose(q: [f32; 4], o: [f32; 3]) -> (Quat, Vec3A) {
    (Quat::from_array(q).normalize(), Vec3A::from(o))
}

fn bone(raw: &SkpBone) -> Bone<'_> {
    Bone::new(&raw.name, raw.parent.get(), raw.flags.get())
}

/// Every pose value finite (error); quaternions of non-unit length (warning).
fn check_poses(poses: &[SkpBonePose], ofs: u64, diag: &mut Diagnostics) -> Result<()> {
    let masks = Masks::of::<LittleEndian>();
    if masks.any_non_finite(flat::<LittleEndian, _>(poses)) {
        let values = poses.iter().flat_map(|p| p.quat.iter().chain(&p.origin));
        let k = values
            .clone()
            .position(|v| masks.non_finite(raw_bits(*v)))
            .unwrap_or(0);
        let (b, k) = (k / 7, k % 7);
        let (what, field) = if k < 4 {
            ("bonepose.quat", 0)
        } else {
            ("bonepose.origin", 16)
        };
        return Err(Error::Invalid {
            format: FORMAT,
            what,
            offset: record_offset::<SkpBonePose>(ofs, b) + field,
            detail: format!("bone {b}, component {}: value is NaN or infinite", k % 4),
        });
    }
    let off_unit = |p: &SkpBonePose| {
        let len2: f32 = p.quat().iter().map(|v| v * v).sum();
        (len2 - 1.0).abs() > QUAT_LENGTH_TOLERANCE
    };
    let count = poses.iter().filter(|p| off_unit(p)).count() as u64;
    if count > 0 {
        let b = poses.iter().position(off_unit).unwrap_or(0);
        let q = poses.get(b).map(SkpBonePose::quat).unwrap_or_default();
        diag.warn_n(
            FORMAT,
            WarningKind::QuatNotUnit,
            "bonepose.quat",
            record_offset::<SkpBonePose>(ofs, b),
            count,
            || {
                let len = q.iter().map(|v| v * v).sum::<f32>().sqrt();
                format!("bone {b}: quaternion {q:?} has length {len}")
            },
        );
    }
    Ok(())
}

/// One frame of an [`Skp`]: a name and one parent-relative pose per bone.
#[derive(Debug, Clone, Copy)]
pub struct Frame<'data> {
    data: &'data [u8],
    raw: &'data SkpFrame,
    num_bones: usize,
}

impl<'data> Frame<'data> {
    /// The name bytes, up to the first NUL.
    #[must_use]
    pub fn name(&self) -> &'data [u8] {
        name::trim_nul(&self.raw.name)
    }

    /// The name as text (invalid UTF-8 replaced).
    #[must_use]
    pub fn name_lossy(&self) -> Cow<'data, str> {
        name::lossy(self.name())
    }

    /// One pose per bone, each relative to its parent; every value finite.
    #[must_use]
    pub fn poses(&self) -> &'data [SkpBonePose] {
        Reader::new(self.data, FORMAT)
            .get_slice(
                self.raw.ofs_bonepositions.get().into(),
                self.num_bones as u64,
            )
            .unwrap_or_default()
    }

    /// The pose of `bone`: quaternion `(x, y, z, w)` and origin, relative to its parent.
    #[must_use]
    pub fn pose(&self, bone: usize) -> Option<([f32; 4], [f32; 3])> {
        self.poses().get(bone).map(|p| (p.quat(), p.origin()))
    }

    /// The raw record.
    #[must_use]
    pub fn raw(&self) -> &'data SkpFrame {
        self.raw
    }
}
