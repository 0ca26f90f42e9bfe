//! The `assembly` fuzz target's harness: an input split into the files of a Quake III player
//! (three parts, `animation.cfg`, two skins, a weapon) served from memory, opened as one
//! [`Assembly`] through [`Assembly::resolve_player`], then every set of clips played (the
//! first, middle and last frame of each, within a budget), every part placed, and the player
//! written as one glTF scene and read back. Also replayed by the integration tests.

use std::collections::HashMap;

use skelmap_core::Limits;
use skelmap_core::model::{Assembly, Pose};
use skelmap_core::pose::Interpolation;
use skelmap_export::gltf;

/// The files an input holds, in order; the player's folder is `p`.
pub const FILES: [&str; 7] = [
    "p/lower.md3",
    "p/upper.md3",
    "p/head.md3",
    "p/animation.cfg",
    "p/lower_default.skin",
    "p/upper_default.skin",
    "w.md3",
];

/// The most clip sets played from one input (a complete `animation.cfg` gives 30).
const MAX_SETS: usize = 32;

/// Splits an input into [`FILES`]: each a little-endian `u16` length, then that many bytes
/// (the last file takes what is left when the input runs short); files past the input are
/// left out.
#[must_use]
pub fn split(mut data: &[u8]) -> HashMap<String, Vec<u8>> {
    let mut files = HashMap::new();
    for name in FILES {
        let Some((len, rest)) = data.split_first_chunk::<2>() else {
            break;
        };
        let len = usize::from(u16::from_le_bytes(*len)).min(rest.len());
        let (file, rest) = rest.split_at(len);
        files.insert(name.to_string(), file.to_vec());
        data = rest;
    }
    files
}

/// The input [`split`] gives back `files` from (each of [`FILES`] in order, missing ones
/// empty; files longer than 65535 bytes are cut).
#[must_use]
pub fn join(files: &HashMap<String, Vec<u8>>) -> Vec<u8> {
    let mut out = Vec::new();
    for name in FILES {
        let file = files.get(name).map_or(&[][..], Vec::as_slice);
        let file = &file[..file.len().min(usize::from(u16::MAX))];
        out.extend_from_slice(&(file.len() as u16).to_le_bytes());
        out.extend_from_slice(file);
    }
    out
}

/// Opens the player an input holds and drives it.
pub fn assembly(data: &[u8]) {
    let files = split(data);
    for weapon in [None, Some("w.md3")] {
        if let Ok(player) = Assembly::resolve_player(&&files, "p", weapon, &Limits::DEFAULT) {
            drive(&player);
        }
    }
}

/// Every part placed at the first, middle and last frame of each clip set (within
/// [`MAX_SETS`]), each transform finite where the tags are; the player written as a GLB
/// that reads back.
pub fn drive(player: &Assembly<'_>) {
    let parts = player.parts();
    let sets = player.clip_sets();
    let mut poses = vec![Pose::default(); parts.len()];
    let mut placed = Vec::new();
    for set in sets.iter().take(MAX_SETS) {
        assert_eq!(set.clips.len(), parts.len());
        for k in 0..3 {
            for ((part, pose), clip) in parts.iter().zip(&mut poses).zip(&set.clips) {
                let frame = clip.and_then(|c| part.model.clips().get(c)).map_or(0, |c| {
                    c.first as usize + (c.count as usize).saturating_sub(1) * k / 2
                });
                let frame = frame.min(part.model.num_frames().saturating_sub(1));
                if part.model.num_frames() > 0 {
                    let posed = part
                        .model
                        .pose(frame, frame, 0.5, Interpolation::Nlerp, pose);
                    assert!(posed.is_ok(), "{posed:?}");
                }
            }
            // Parts without frames give poses that cannot place their children: an error.
            if player.place(&poses, &mut placed).is_ok() {
                assert_eq!(placed.len(), parts.len());
            }
        }
    }
    let assets: Result<Vec<_>, _> = parts
        .iter()
        .map(|p| p.model.to_asset(&skelmap_core::asset::Options::default()))
        .collect();
    let Ok(assets) = assets else { return };
    let mut glb = Vec::new();
    if gltf::write_assembly_glb(player, &assets, &sets, &mut glb).is_ok() {
        let read = ::gltf::Gltf::from_slice(&glb);
        assert!(read.is_ok(), "{read:?}");
    }
}
