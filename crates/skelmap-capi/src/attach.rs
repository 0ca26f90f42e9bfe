//! Attachment points: the bones flagged as attachments (DPM, SKM, SKP, MDX), every joint of
//! the formats without such a flag (IQM, MS3D, MD5, PSK, PSA, ZYM), tags (MD3, MDC, MDR, MDM,
//! Half-Life's attachments); and where a pose puts them.

use std::ffi::c_char;

use skelmap_core::model::{Attachment, AttachmentKind};

use crate::boundary::{Fail, SkelmapStatus, copy_out, status, value};
use crate::model::{SkelmapModel, c_str};
use crate::pose::{SkelmapPose, write_rows};

/// `SkelmapAttachment.kind`: the attachment is bone `index` of the skeleton.
pub const SKELMAP_ATTACHMENT_BONE: u32 = 0;
/// `SkelmapAttachment.kind`: the attachment is tag `index`: stored in every frame (MD3, MDC)
/// or placed by a bone (MDR, MDM, Half-Life).
pub const SKELMAP_ATTACHMENT_TAG: u32 = 1;

/// One attachment point, filled by `skelmap_attachment`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SkelmapAttachment {
    /// `SKELMAP_ATTACHMENT_BONE` or `SKELMAP_ATTACHMENT_TAG`.
    pub kind: u32,
    /// The bone's index (`skelmap_bone`) or the tag's, by `kind`.
    pub index: u32,
}

fn attachment(model: &SkelmapModel, index: u32) -> Result<Attachment<'_>, Fail> {
    model.model.attachment(index as usize).ok_or_else(|| {
        Fail::out_of_range("attachment", index, model.model.num_attachments() as u64)
    })
}

/// Fills `*out` with attachment `index`: bones first (skeleton order), then tags (file
/// order).
///
/// Returns `SKELMAP_STATUS_OK`, or `SKELMAP_STATUS_NULL_PARAMETER` (`model` or `out`), or
/// `SKELMAP_STATUS_OUT_OF_RANGE` (`index` ≥ `SkelmapCounts.attachments`).
///
/// # Safety
///
/// `model` is NULL or a live model; `out` is NULL or valid for writing a
/// `SkelmapAttachment`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_attachment(
    model: Option<&SkelmapModel>,
    index: u32,
    out: Option<&mut SkelmapAttachment>,
) -> SkelmapStatus {
    status(|| {
        let a = attachment(model.ok_or(Fail::null("model"))?, index)?;
        let (kind, index) = match a.kind {
            AttachmentKind::Bone(i) => (SKELMAP_ATTACHMENT_BONE, i),
            AttachmentKind::Tag(i) => (SKELMAP_ATTACHMENT_TAG, i),
        };
        *out.ok_or(Fail::null("out"))? = SkelmapAttachment {
            kind,
            index: index as u32,
        };
        Ok(())
    })
}

/// Copies attachment `index`'s name into `buf` like `skelmap_bone_name` and returns its full
/// length.
///
/// Returns `SIZE_MAX` for a NULL `model` (`SKELMAP_STATUS_NULL_PARAMETER`) or an index past
/// `SkelmapCounts.attachments` (`SKELMAP_STATUS_OUT_OF_RANGE`).
///
/// # Safety
///
/// `model` is NULL or a live model; `buf` is NULL or valid for writes of `len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_attachment_name(
    model: Option<&SkelmapModel>,
    index: u32,
    buf: *mut c_char,
    len: usize,
) -> usize {
    value(usize::MAX, || {
        let a = attachment(model.ok_or(Fail::null("model"))?, index)?;
        // SAFETY: forwarded from this function's contract.
        Ok(unsafe { copy_out(a.name, buf, len) })
    })
}

/// Returns the index of the first attachment named exactly `name` (`tag_weapon`), or -1 when
/// there is none (or `model` or `name` is NULL, `SKELMAP_STATUS_NULL_PARAMETER`).
///
/// # Safety
///
/// `model` is NULL or a live model; `name` is NULL or a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_attachment_index(
    model: Option<&SkelmapModel>,
    name: *const c_char,
) -> i32 {
    value(-1, || {
        let model = model.ok_or(Fail::null("model"))?;
        // SAFETY: forwarded from this function's contract.
        let name = unsafe { c_str(name, "name") }?.to_bytes();
        Ok(model.model.attachment_index(name).map_or(-1, |i| i as i32))
    })
}

/// Writes where attachment `index` is in `pose` (sampled from `model`) into `out` as a
/// row-major 3×4 matrix (`out[4·r + c]`, the translation in column 3): a bone's world
/// transform, or a tag blended between the pose's two frames with its axes made orthonormal.
/// Its columns 0, 1, 2 are the point's forward, left and up axes, so a model attached there
/// is placed by it.
///
/// Returns `SKELMAP_STATUS_OK`, or `SKELMAP_STATUS_NULL_PARAMETER` (`model`, `pose` or
/// `out`), `SKELMAP_STATUS_OUT_OF_RANGE` (`index` ≥ `SkelmapCounts.attachments`, or a pose of
/// frames the model lacks), `SKELMAP_STATUS_INVALID_ARGUMENT` (a pose never sampled) or
/// `SKELMAP_STATUS_WRONG_KIND` (a pose sampled from another kind of model).
///
/// # Safety
///
/// `model` is NULL or a live model; `pose` is NULL or a live pose; `out` is NULL or valid for
/// writing 12 floats.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_attachment_world(
    model: Option<&SkelmapModel>,
    pose: Option<&SkelmapPose>,
    index: u32,
    out: *mut f32,
) -> SkelmapStatus {
    status(|| {
        let model = model.ok_or(Fail::null("model"))?;
        let pose = pose.ok_or(Fail::null("pose"))?;
        let m = model
            .model
            .attachment_transform(index as usize, &pose.pose)?;
        // SAFETY: forwarded from this function's contract.
        unsafe { write_rows(&m, out) }
    })
}
