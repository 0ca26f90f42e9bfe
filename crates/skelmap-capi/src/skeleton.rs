//! Bones, frames and frame groups: names, indices, look-ups by name.

use std::ffi::c_char;

use skelmap_core::Bone;
use skelmap_core::pose::framegroups::{self, FrameGroup};

use crate::boundary::{Fail, SkelmapStatus, copy_out, status, value};
use crate::model::{SkelmapModel, c_str};

/// One bone, filled by `skelmap_bone`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SkelmapBone {
    /// The parent's index, -1 for a root. Smaller than the bone's own, except in an MS3D,
    /// whose joints come in any order.
    pub parent: i32,
    /// The raw flags; bit 0 (`SKELMAP_BONE_ATTACHMENT`) marks an attachment point.
    pub flags: u32,
}

/// `SkelmapBone.flags` bit: the bone is an attachment point (a tag for weapons, hats...).
/// (A literal, so that the header defines it; it is the core's flag.)
pub const SKELMAP_BONE_ATTACHMENT: u32 = 1;
const _: () = assert!(SKELMAP_BONE_ATTACHMENT == skelmap_core::pose::BONE_FLAG_ATTACHMENT);

/// One named animation, filled by `skelmap_frame_group`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SkelmapFrameGroup {
    /// First frame.
    pub first: u32,
    /// Number of frames (at least 1).
    pub count: u32,
    /// Playback rate, frames per second.
    pub fps: f32,
    /// Whether the animation loops.
    pub looped: bool,
}

/// One bone controller, as the file stores it, filled by `skelmap_controller`: the
/// channel of a bone that a game turns or moves at run time (a Half-Life head, a mouth).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SkelmapController {
    /// The bone it drives.
    pub bone: i32,
    /// The motion type bits: `STUDIO_X` (1), `_Y` (2), `_Z` (4), `_XR` (8), `_YR` (16) or
    /// `_ZR` (32), with `STUDIO_RLOOP` (0x8000) for a turn that wraps around.
    pub type_: u32,
    /// The value at setting 0 (degrees for a turn, units for a move).
    pub start: f32,
    /// The value at setting 255.
    pub end: f32,
    /// The setting byte at rest.
    pub rest: i32,
    /// Its slot in `SkelmapControls.values`: 0–3 the entity's controllers, 4 the mouth.
    pub index: i32,
}

/// Fills `*out` with bone controller `index` of `model`, as stored.
///
/// Returns `SKELMAP_STATUS_OK`, or `SKELMAP_STATUS_NULL_PARAMETER` (`model` or `out`), or
/// `SKELMAP_STATUS_OUT_OF_RANGE` (`index` ≥ `SkelmapCounts.controllers`).
///
/// # Safety
///
/// `model` is NULL or a live model; `out` is NULL or valid for writing a `SkelmapController`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_controller(
    model: Option<&SkelmapModel>,
    index: u32,
    out: Option<&mut SkelmapController>,
) -> SkelmapStatus {
    status(|| {
        let model = model.ok_or(Fail::null("model"))?;
        let controllers = model.model.controllers();
        let c = controllers
            .get(index as usize)
            .ok_or_else(|| Fail::out_of_range("controller", index, controllers.len() as u64))?;
        *out.ok_or(Fail::null("out"))? = SkelmapController {
            bone: c.bone.get(),
            type_: c.type_.get() as u32,
            start: c.start.get(),
            end: c.end.get(),
            rest: c.rest.get(),
            index: c.index.get(),
        };
        Ok(())
    })
}

fn bone(model: &SkelmapModel, index: u32) -> Result<Bone<'_>, Fail> {
    model
        .model
        .bone(index as usize)
        .ok_or_else(|| Fail::out_of_range("bone", index, model.model.num_bones() as u64))
}

/// Fills `*out` with bone `index`'s parent and flags.
///
/// Returns `SKELMAP_STATUS_OK`, or `SKELMAP_STATUS_NULL_PARAMETER` (`model` or `out`), or
/// `SKELMAP_STATUS_OUT_OF_RANGE` (`index` ≥ `SkelmapCounts.bones`).
///
/// # Safety
///
/// `model` is NULL or a live model; `out` is NULL or valid for writing a `SkelmapBone`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_bone(
    model: Option<&SkelmapModel>,
    index: u32,
    out: Option<&mut SkelmapBone>,
) -> SkelmapStatus {
    status(|| {
        let b = bone(model.ok_or(Fail::null("model"))?, index)?;
        *out.ok_or(Fail::null("out"))? = SkelmapBone {
            parent: b.parent().map_or(-1, |p| p as i32),
            flags: b.flags(),
        };
        Ok(())
    })
}

/// Copies bone `index`'s name (bytes as stored, up to the first NUL) into `buf` of `len`
/// bytes, NUL-terminated and truncated to `len − 1`, and returns its full length (0 for an
/// unnamed bone).
///
/// Returns `SIZE_MAX` for a NULL `model` (`SKELMAP_STATUS_NULL_PARAMETER`) or an index past
/// `SkelmapCounts.bones` (`SKELMAP_STATUS_OUT_OF_RANGE`); the last error then says which.
///
/// # Safety
///
/// `model` is NULL or a live model; `buf` is NULL or valid for writes of `len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_bone_name(
    model: Option<&SkelmapModel>,
    index: u32,
    buf: *mut c_char,
    len: usize,
) -> usize {
    value(usize::MAX, || {
        let b = bone(model.ok_or(Fail::null("model"))?, index)?;
        // SAFETY: forwarded from this function's contract.
        Ok(unsafe { copy_out(b.name(), buf, len) })
    })
}

/// Returns the index of the first bone named exactly `name`, or -1 when there is none (or `model` or
/// `name` is NULL, `SKELMAP_STATUS_NULL_PARAMETER`). Real files repeat names; the first
/// match wins.
///
/// # Safety
///
/// `model` is NULL or a live model; `name` is NULL or a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_bone_index(
    model: Option<&SkelmapModel>,
    name: *const c_char,
) -> i32 {
    value(-1, || {
        let model = model.ok_or(Fail::null("model"))?;
        // SAFETY: forwarded from this function's contract.
        let name = unsafe { c_str(name, "name") }?.to_bytes();
        Ok(model.model.bone_index(name).map_or(-1, |i| i as i32))
    })
}

/// Copies frame `index`'s name into `buf` like `skelmap_bone_name` and returns its full
/// length. The frames of MS3D, SL, IQM, ZYM, PSK/PSA, Half-Life and MDM/MDX have no names
/// (length 0).
///
/// Returns `SIZE_MAX` for a NULL `model` (`SKELMAP_STATUS_NULL_PARAMETER`) or an index past
/// `SkelmapCounts.frames` (`SKELMAP_STATUS_OUT_OF_RANGE`).
///
/// # Safety
///
/// `model` is NULL or a live model; `buf` is NULL or valid for writes of `len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_frame_name(
    model: Option<&SkelmapModel>,
    index: u32,
    buf: *mut c_char,
    len: usize,
) -> usize {
    value(usize::MAX, || {
        let model = model.ok_or(Fail::null("model"))?;
        let name = model
            .model
            .frame_name(index as usize)
            .ok_or_else(|| Fail::out_of_range("frame", index, model.frame_count().into()))?;
        // SAFETY: forwarded from this function's contract.
        Ok(unsafe { copy_out(name, buf, len) })
    })
}

/// Returns the index of the first frame named exactly `name`, or -1 when there is none (or `model`
/// or `name` is NULL, `SKELMAP_STATUS_NULL_PARAMETER`).
///
/// # Safety
///
/// `model` is NULL or a live model; `name` is NULL or a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_frame_index(
    model: Option<&SkelmapModel>,
    name: *const c_char,
) -> i32 {
    value(-1, || {
        let model = model.ok_or(Fail::null("model"))?;
        // SAFETY: forwarded from this function's contract.
        let name = unsafe { c_str(name, "name") }?.to_bytes();
        let found = (model.model.frame_names())
            .take(model.frame_count() as usize)
            .position(|n| n == name);
        Ok(found.map_or(-1, |i| i as i32))
    })
}

fn group(model: &SkelmapModel, index: u32) -> Result<&FrameGroup, Fail> {
    model
        .groups
        .get(index as usize)
        .ok_or_else(|| Fail::out_of_range("frame group", index, model.groups.len() as u64))
}

/// Fills `*out` with frame group `index`: its frame range, rate and looping.
///
/// Groups come from a `.framegroups` file (see `skelmap_model_open_file` and
/// `skelmap_model_set_framegroups`), else from frame names (`walk_1`, `walk_2`... form
/// `walk`, at 10 fps, looping); formats that define their clips give them instead: an IQM's
/// animations, an MD5 mesh's `.md5anim` files, Half-Life sequences, PSA sequences, ZYM scenes,
/// a Quake III player's `animation.cfg`, an Enemy Territory animation group, a Quake model's
/// frame groups (timed by their intervals); an MS3D has one group spanning its timeline
/// (`total_frames`) at its rate.
///
/// Returns `SKELMAP_STATUS_OK`, or `SKELMAP_STATUS_NULL_PARAMETER` (`model` or `out`), or
/// `SKELMAP_STATUS_OUT_OF_RANGE` (`index` ≥ `SkelmapCounts.frame_groups`).
///
/// # Safety
///
/// `model` is NULL or a live model; `out` is NULL or valid for writing a
/// `SkelmapFrameGroup`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_frame_group(
    model: Option<&SkelmapModel>,
    index: u32,
    out: Option<&mut SkelmapFrameGroup>,
) -> SkelmapStatus {
    status(|| {
        let g = group(model.ok_or(Fail::null("model"))?, index)?;
        *out.ok_or(Fail::null("out"))? = SkelmapFrameGroup {
            first: g.first,
            count: g.count,
            fps: g.fps,
            looped: g.looped,
        };
        Ok(())
    })
}

/// Copies frame group `index`'s name into `buf` like `skelmap_bone_name` and returns its
/// full length.
///
/// Returns `SIZE_MAX` for a NULL `model` (`SKELMAP_STATUS_NULL_PARAMETER`) or an index past
/// `SkelmapCounts.frame_groups` (`SKELMAP_STATUS_OUT_OF_RANGE`).
///
/// # Safety
///
/// `model` is NULL or a live model; `buf` is NULL or valid for writes of `len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_frame_group_name(
    model: Option<&SkelmapModel>,
    index: u32,
    buf: *mut c_char,
    len: usize,
) -> usize {
    value(usize::MAX, || {
        let g = group(model.ok_or(Fail::null("model"))?, index)?;
        // SAFETY: forwarded from this function's contract.
        Ok(unsafe { copy_out(g.name.as_bytes(), buf, len) })
    })
}

/// Replaces the model's frame groups with those of a DarkPlaces `.framegroups` text
/// (`first count fps loop // name` per line) in `text[0..len]`, for a model opened from
/// memory. Every group must lie within the model's frames; on failure the groups are
/// unchanged. Not to be called while another thread reads the model.
///
/// Returns `SKELMAP_STATUS_OK`, or `SKELMAP_STATUS_NULL_PARAMETER` (`model`, or `text` with a
/// non-zero `len`), `SKELMAP_STATUS_MALFORMED` (a line that does not parse or a group
/// outside the frames; the message names the line's byte offset), or
/// `SKELMAP_STATUS_WRONG_KIND` (a model without frames).
///
/// # Safety
///
/// `model` is NULL or a live model used by no other thread during the call and without a
/// live sampler (`skelmap_sampler_new`); `text` is valid for reads of `len` bytes (NULL
/// allowed when `len` is 0).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_model_set_framegroups(
    model: Option<&mut SkelmapModel>,
    text: *const u8,
    len: usize,
) -> SkelmapStatus {
    status(|| {
        let model = model.ok_or(Fail::null("model"))?;
        let text = if len == 0 {
            &[][..]
        } else if text.is_null() {
            return Err(Fail::null("text"));
        } else {
            // SAFETY: non-NULL and readable for `len` bytes by this function's contract; only
            // read during this call.
            unsafe { std::slice::from_raw_parts(text, len) }
        };
        if model.frame_count() == 0 {
            return Err(Fail::wrong_kind(format!(
                "{:?} models without frames take no .framegroups",
                model.format()
            )));
        }
        model.groups = framegroups::parse(text, model.frame_count(), model.model.format())?;
        Ok(())
    })
}
