//! The Quake II remaster's `.md5scale`: a JSON sidecar beside an `.md5anim`
//! (`<anim stem>.md5scale`) that scales, per joint and frame, the vertices a joint moves
//! without passing the scale to its children, as q2pro reads it (`docs/formats/md5.md`).
//!
//! Its top level is an object whose keys are joint names; each value is an object whose keys
//! are frame numbers (decimal) with a number each, the joint's scale in that frame (1 where
//! unlisted), and optionally `"scale_positions": true`, which scales the joint's own animated
//! position by the same factor before its parent places it (so its children follow).
//!
//! The sidecar only adds to the animation, so what the engine skips is skipped here with a
//! warning ([`WarningKind::CompanionIgnored`]) rather than refused: a file that is not such an
//! object (the whole file), a joint the animation lacks, a frame past its frames, a value
//! that is not a finite number (that entry).

use std::collections::HashMap;

use serde_json::Value;

use super::view::Anim;
use crate::diag::{Diagnostics, WarningKind};
use crate::format::Format;

/// The sidecar of the animation at `anim_path`: its extension replaced by `.md5scale`, as
/// the engine names it.
pub(crate) fn path_of(anim_path: &str) -> String {
    format!("{}.md5scale", crate::resolver::strip_extension(anim_path))
}

/// Reads the sidecar `text` (at `path`, for messages) into `anim`: its skin scales, and the
/// positions of joints marked `scale_positions` scaled in its frames.
pub(crate) fn apply(anim: &mut Anim<'_>, path: &str, text: &[u8], diag: &mut Diagnostics) {
    let root = match serde_json::from_slice::<Value>(text) {
        Ok(Value::Object(root)) => root,
        Ok(_) => return ignored(diag, path, 0, "the top level is not an object"),
        Err(e) => {
            let offset = offset_of(text, e.line(), e.column());
            return ignored(diag, path, offset, &e.to_string());
        }
    };
    let (joints, frames) = (anim.num_joints(), anim.num_frames());
    let mut names = HashMap::with_capacity(joints);
    for i in 0..joints {
        if let Some(name) = anim.joint_name(i) {
            // The engine takes the first joint of a name.
            names.entry(name).or_insert(i);
        }
    }
    // As many as the frames' poses, which validation bounded.
    let mut scales = vec![1.0_f32; anim.poses.len()];
    let mut positions = vec![false; joints];
    for (name, entries) in &root {
        let Value::Object(entries) = entries else {
            return ignored(diag, path, 0, &format!("joint \"{name}\" is not an object"));
        };
        let Some(&joint) = names.get(name.as_bytes()) else {
            skipped(diag, path, &format!("no joint \"{name}\" in the animation"));
            continue;
        };
        for (key, value) in entries {
            if key == "scale_positions" {
                match value {
                    Value::Bool(on) => positions[joint] = *on,
                    _ => skipped(
                        diag,
                        path,
                        &format!("\"{name}\".scale_positions is not a boolean"),
                    ),
                }
                continue;
            }
            let Some(frame) = key.parse::<usize>().ok().filter(|&f| f < frames) else {
                skipped(
                    diag,
                    path,
                    &format!("\"{name}\": no frame \"{key}\" in the animation"),
                );
                continue;
            };
            match value.as_f64().map(|v| v as f32).filter(|v| v.is_finite()) {
                Some(scale) => scales[frame * joints + joint] = scale,
                None => skipped(
                    diag,
                    path,
                    &format!("\"{name}\".\"{key}\" is not a finite number"),
                ),
            }
        }
    }
    anim.set_skin_scales(scales, &positions);
}

/// The byte offset of 1-based `line` and `column` in `text` (the end where they run past it).
fn offset_of(text: &[u8], line: usize, column: usize) -> u64 {
    let mut start = 0;
    for _ in 1..line {
        match text[start..].iter().position(|&b| b == b'\n') {
            Some(i) => start += i + 1,
            None => return text.len() as u64,
        }
    }
    (start + column.saturating_sub(1)).min(text.len()) as u64
}

/// Records a sidecar left out whole.
fn ignored(diag: &mut Diagnostics, path: &str, offset: u64, why: &str) {
    diag.warn(
        Format::Md5,
        WarningKind::CompanionIgnored,
        "scale",
        offset,
        || format!("{path}: {why}; the animation plays without its scales"),
    );
}

/// Records one entry of a sidecar left out.
fn skipped(diag: &mut Diagnostics, path: &str, why: &str) {
    diag.warn(
        Format::Md5,
        WarningKind::CompanionIgnored,
        "scale",
        0,
        || format!("{path}: {why}; the entry is skipped"),
    );
}
