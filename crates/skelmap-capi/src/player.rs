//! The Quake III player: `lower.md3`, `upper.md3` and `head.md3` (and a weapon) each on a tag
//! of the one below, each part a model of its own posed by its own clip, placed together.

use std::ffi::c_char;
use std::path::Path;

use skelmap_core::glam::Affine3A;
use skelmap_core::model::{Assembly, Attached, Model, place_parts};

use crate::boundary::{Fail, SkelmapStatus, copy_out, status, value};
use crate::model::{SkelmapModel, c_str, file_options, hand_out};
use crate::pose::{SkelmapPose, write_rows};

/// One part of a player: its name, its model, and where it is attached.
#[derive(Debug)]
struct PlayerPart {
    name: String,
    model: SkelmapModel,
    parent: Option<(usize, usize)>,
}

impl Attached<'static> for PlayerPart {
    fn model(&self) -> &Model<'static> {
        &self.model.model
    }

    fn parent(&self) -> Option<(usize, usize)> {
        self.parent
    }
}

/// An open Quake III player. Opaque to C; created by `skelmap_player_open` and destroyed by
/// `skelmap_player_free`.
#[derive(Debug)]
pub struct SkelmapPlayer {
    parts: Vec<PlayerPart>,
    /// Reused by `skelmap_player_place`.
    placed: Vec<Affine3A>,
}

impl SkelmapPlayer {
    fn part(&self, index: u32) -> Result<&PlayerPart, Fail> {
        self.parts
            .get(index as usize)
            .ok_or_else(|| Fail::out_of_range("part", index, self.parts.len() as u64))
    }
}

/// Opens the Quake III player in the folder `path` (or whose `lower.md3` `path` is), storing
/// a new player in `*out` (NULL on failure): `lower.md3` (part 0), `upper.md3` on its
/// `tag_torso` (part 1), `head.md3` on the torso's `tag_head` (part 2) and, when `weapon` is
/// not NULL, that model on the torso's `tag_weapon` (part 3). Each part is opened as
/// `skelmap_model_open_file_skin` opens it with `flags` and `skin` (the weapon with its own
/// default skin); the legs and the torso take their clips (frame groups) from the
/// `animation.cfg` beside them, with the game's legs offset, else from their frame names.
///
/// Returns `SKELMAP_STATUS_OK`, or `SKELMAP_STATUS_NULL_PARAMETER` (`path` or `out`), the
/// statuses of `skelmap_model_open_file_skin` for a part (`SKELMAP_STATUS_IO` for a part that
/// is missing), or `SKELMAP_STATUS_RESOLVE` when a part lacks the tag its child hangs on.
///
/// # Safety
///
/// `path` is a NUL-terminated string; `weapon` and `skin` are NULL or NUL-terminated; `out`
/// is valid for writing one pointer. Unless `SKELMAP_OPEN_READ` is given, the files must not
/// be modified or truncated until the player is freed (see `skelmap_model_open_file`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_player_open(
    path: *const c_char,
    weapon: *const c_char,
    skin: *const c_char,
    flags: u32,
    out: *mut *mut SkelmapPlayer,
) -> SkelmapStatus {
    let open = || {
        // SAFETY: forwarded from this function's contract.
        let (path, options) = unsafe { file_options(path, flags, skin) }?;
        let weapon = if weapon.is_null() {
            None
        } else {
            // SAFETY: non-NULL and NUL-terminated by this function's contract.
            let w = unsafe { c_str(weapon, "weapon") }?;
            Some(Path::new(
                w.to_str()
                    .map_err(|_| Fail::invalid("weapon is not UTF-8"))?,
            ))
        };
        let player = Assembly::open_player(path, weapon, &options)?;
        let parts: Vec<PlayerPart> = player
            .into_parts()
            .into_iter()
            .map(|p| PlayerPart {
                name: p.name,
                model: SkelmapModel::new(p.model),
                parent: p.parent,
            })
            .collect();
        Ok(SkelmapPlayer {
            placed: Vec::with_capacity(parts.len()),
            parts,
        })
    };
    // SAFETY: `out` is valid for one pointer write by this function's contract.
    unsafe { hand_out(out, open) }
}

/// Frees a player and its parts' models. NULL is allowed and does nothing. Returns nothing;
/// it cannot fail.
///
/// # Safety
///
/// `player` is NULL or a pointer from `skelmap_player_open` not freed before; no pointer
/// `skelmap_player_part` returned for it is used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_player_free(player: *mut SkelmapPlayer) {
    if !player.is_null() {
        let _ = status(|| {
            // SAFETY: the pointer came from Box::into_raw in hand_out and is freed once.
            drop(unsafe { Box::from_raw(player) });
            Ok(())
        });
    }
}

/// The number of parts: 3, or 4 with a weapon. Returns 0 for a NULL `player`
/// (`SKELMAP_STATUS_NULL_PARAMETER`).
///
/// # Safety
///
/// `player` is NULL or a live player.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_player_parts(player: Option<&SkelmapPlayer>) -> u32 {
    value(0, || {
        Ok(player.ok_or(Fail::null("player"))?.parts.len() as u32)
    })
}

/// Part `index`'s model, owned by the player: every model function takes it (counts, frame
/// groups, `skelmap_pose_sample`, meshes, materials, attachments). Do not free it; it lives
/// as long as the player.
///
/// Returns NULL for a NULL `player` (`SKELMAP_STATUS_NULL_PARAMETER`) or an `index` past the
/// parts (`SKELMAP_STATUS_OUT_OF_RANGE`).
///
/// # Safety
///
/// `player` is NULL or a live player.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_player_part(
    player: Option<&SkelmapPlayer>,
    index: u32,
) -> *const SkelmapModel {
    value(std::ptr::null(), || {
        let part = player.ok_or(Fail::null("player"))?.part(index)?;
        Ok(&raw const part.model)
    })
}

/// Copies part `index`'s name (`lower`, `upper`, `head`, `weapon`) into `buf` like
/// `skelmap_bone_name` and returns its full length.
///
/// Returns `SIZE_MAX` for a NULL `player` (`SKELMAP_STATUS_NULL_PARAMETER`) or an `index`
/// past the parts (`SKELMAP_STATUS_OUT_OF_RANGE`).
///
/// # Safety
///
/// `player` is NULL or a live player; `buf` is NULL or valid for writes of `len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_player_part_name(
    player: Option<&SkelmapPlayer>,
    index: u32,
    buf: *mut c_char,
    len: usize,
) -> usize {
    value(usize::MAX, || {
        let part = player.ok_or(Fail::null("player"))?.part(index)?;
        // SAFETY: forwarded from this function's contract.
        Ok(unsafe { copy_out(part.name.as_bytes(), buf, len) })
    })
}

/// Where part `index` hangs: `*parent` the parent part's index (-1 for the root, the legs)
/// and `*attachment` the index of the parent's attachment (`skelmap_attachment`) it is
/// placed on (0 for the root).
///
/// Returns `SKELMAP_STATUS_OK`, or `SKELMAP_STATUS_NULL_PARAMETER` (`player`, `parent` or
/// `attachment`), `SKELMAP_STATUS_OUT_OF_RANGE` (`index` past the parts).
///
/// # Safety
///
/// `player` is NULL or a live player; `parent` and `attachment` are NULL or valid for one
/// write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_player_part_parent(
    player: Option<&SkelmapPlayer>,
    index: u32,
    parent: Option<&mut i32>,
    attachment: Option<&mut u32>,
) -> SkelmapStatus {
    status(|| {
        let part = player.ok_or(Fail::null("player"))?.part(index)?;
        let (p, a) = part.parent.map_or((-1, 0), |(p, a)| (p as i32, a as u32));
        *parent.ok_or(Fail::null("parent"))? = p;
        *attachment.ok_or(Fail::null("attachment"))? = a;
        Ok(())
    })
}

/// Places every part: `poses[i]` is part `i`'s pose, sampled from `skelmap_player_part(i)`
/// (so the legs and the torso play different frames); `out` receives, per part, its
/// transform into the legs' space as a row-major 3×4 matrix (`out[12·i + 4·r + c]`, the
/// translation in column 3), as `skelmap_attachment_world` writes one: the parent's transform
/// times the parent's tag in the parent's pose. The root's is the identity.
///
/// Returns `SKELMAP_STATUS_OK`, or `SKELMAP_STATUS_NULL_PARAMETER` (`player`, `poses`, a
/// pose of `poses`, or `out`), `SKELMAP_STATUS_BUFFER_TOO_SMALL` (`count` below the parts, or
/// `out_len` below 12 floats a part), and the statuses of `skelmap_attachment_world` for a
/// parent's pose.
///
/// # Safety
///
/// `player` is NULL or a live player, used by one thread at a time (it keeps its working
/// buffers); `poses` is NULL or valid for reads of `count` pointers, each NULL or a live
/// pose; `out` is NULL or valid for writes of `out_len` floats.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_player_place(
    player: Option<&mut SkelmapPlayer>,
    poses: *const *const SkelmapPose,
    count: u32,
    out: *mut f32,
    out_len: usize,
) -> SkelmapStatus {
    status(|| {
        let player = player.ok_or(Fail::null("player"))?;
        let parts = player.parts.len();
        if poses.is_null() {
            return Err(Fail::null("poses"));
        }
        if (count as usize) < parts {
            return Err(Fail::too_small("poses", parts as u64, u64::from(count)));
        }
        if out.is_null() {
            return Err(Fail::null("out"));
        }
        if out_len < 12 * parts {
            return Err(Fail::too_small("out", 12 * parts as u64, out_len as u64));
        }
        // SAFETY: `poses` is readable for `count` ≥ parts pointers by this function's
        // contract.
        let given = unsafe { std::slice::from_raw_parts(poses, parts) };
        // SAFETY: each pointer is NULL or a live pose by this function's contract.
        let pose = |i: usize| given.get(i).and_then(|&p| unsafe { p.as_ref() });
        if let Some(i) = (0..parts).find(|&i| pose(i).is_none()) {
            return Err(Fail::null(format!("poses[{i}]")));
        }
        place_parts(
            &player.parts,
            |i| pose(i).map(|p| &p.pose),
            &mut player.placed,
        )?;
        for (i, m) in player.placed.iter().enumerate() {
            // SAFETY: `out` is writable for `out_len` ≥ 12 · parts floats (checked above).
            unsafe { write_rows(m, out.add(12 * i)) }?;
        }
        Ok(())
    })
}
