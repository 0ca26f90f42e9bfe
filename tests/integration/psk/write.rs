//! The PSK writer through the write dispatch: a PSK and PSA written again move every vertex
//! as the asset made of them at every frame, with their clips; a glTF-like asset of another
//! format (a DPM) written as PSK and PSA moves as the source at every frame, also when its
//! skeleton has several roots or joints of one name; the files go beside each other (`x.psk`,
//! `x.psa`).

use std::collections::HashMap;

use skelmap::asset::{Asset, Place, WriteOptions, Written};
use skelmap::{Format, Limits, Model};

use super::pair_files;
use crate::support::frame_vertices;

fn written(asset: &Asset) -> Written {
    skelmap::model::write(Format::Psk, asset, &WriteOptions::default()).unwrap()
}

fn close(a: [f32; 3], b: [f32; 3]) -> bool {
    (0..3).all(|c| (a[c] - b[c]).abs() <= 1e-4 * (1.0 + b[c].abs()))
}

/// The written files as a folder, and the PSK's path in it.
fn folder(w: &Written) -> HashMap<String, Vec<u8>> {
    w.files
        .iter()
        .map(|f| {
            let path = f.place.clone().path(std::path::Path::new("out/x.psk"));
            (path.to_str().unwrap().to_string(), f.bytes.clone())
        })
        .collect()
}

fn moves_as_the_asset(asset: &Asset, out: &Written) {
    let files = folder(out);
    let again = Model::resolve(&&files, "out/x.psk", &Limits::default()).unwrap();
    assert_eq!(again.format(), Format::Psk);
    let frames = asset.num_frames().max(1);
    assert_eq!(again.num_frames(), frames);
    for k in 0..frames {
        let want: Vec<[f32; 3]> = asset
            .posed(Some(k))
            .unwrap()
            .into_iter()
            .flat_map(|m| m.positions)
            .collect();
        let got = frame_vertices(&again, k);
        assert_eq!(want.len(), got.len());
        for (v, (w, g)) in want.iter().zip(&got).enumerate() {
            assert!(close(*g, *w), "frame {k}, vertex {v}: {g:?} against {w:?}");
        }
    }
    let clips = |m: &Model<'_>| {
        m.clips()
            .iter()
            .map(|c| (c.name.clone(), c.count, c.fps))
            .collect::<Vec<_>>()
    };
    let want: Vec<_> = asset
        .clips
        .iter()
        .filter(|c| !c.is_empty())
        .map(|c| (c.name.clone(), c.len() as u32, c.fps))
        .collect();
    assert_eq!(clips(&again), want);
}

#[test]
fn a_psk_and_psa_written_again_move_as_the_original_at_every_frame() {
    let files = pair_files();
    let source = Model::resolve(&&files, "models/soldier.psk", &Limits::default()).unwrap();
    let asset = source.to_asset(&Default::default()).unwrap();
    let out = written(&asset);
    assert_eq!(out.files.len(), 2);
    assert_eq!(out.files[0].place, Place::Main);
    assert_eq!(out.files[1].place, Place::Extension("psa"));
    assert!(out.notes.is_empty(), "{:?}", out.notes);
    moves_as_the_asset(&asset, &out);
    // And the source itself moves as its asset.
    for k in 0..source.num_frames() {
        let want = &asset.posed(Some(k)).unwrap()[0].positions;
        for (v, (w, g)) in want.iter().zip(frame_vertices(&source, k)).enumerate() {
            assert!(close(g, *w), "frame {k}, vertex {v}: {g:?} against {w:?}");
        }
    }
}

#[test]
fn a_dpm_written_as_psk_moves_as_the_dpm_at_every_frame() {
    let bytes = skelmap::synth::tube(&Default::default()).write().unwrap();
    let source = Model::from_bytes(&bytes).unwrap();
    let asset = source.to_asset(&Default::default()).unwrap();
    assert!(asset.num_frames() > 2);
    let out = written(&asset);
    assert_eq!(out.files.len(), 2);
    moves_as_the_asset(&asset, &out);
}

/// The synthetic tube DPM changed by `change`, written as PSK + PSA and checked to move as
/// its asset at every frame: the files, and the PSK's bones (name, parent).
fn changed_tube_as_psk(
    change: impl FnOnce(&mut skelmap::dpm::Builder),
) -> (Written, Vec<(String, Option<usize>)>) {
    let mut dpm = skelmap::synth::tube(&Default::default());
    change(&mut dpm);
    let bytes = dpm.write().unwrap();
    let asset = Model::from_bytes(&bytes)
        .unwrap()
        .to_asset(&Default::default())
        .unwrap();
    let out = written(&asset);
    moves_as_the_asset(&asset, &out);
    let bones = {
        let again = Model::from_bytes(&out.files[0].bytes).unwrap();
        again
            .bones()
            .map(|b| (String::from_utf8_lossy(b.name()).into_owned(), b.parent()))
            .collect()
    };
    (out, bones)
}

/// PSK's only root is bone 0. A skeleton of several roots hangs them from a bone added at
/// the origin (named apart from the tube's own `root`), the joints one place down, so every
/// vertex moves as the source's at every frame: written as bone 0's children, the tube's
/// second root followed bone 0 and its vertices landed up to the tube's length off.
#[test]
fn a_skeleton_of_several_roots_hangs_them_from_an_added_root() {
    let (out, bones) = changed_tube_as_psk(|dpm| dpm.bones[2].parent = -1);
    assert_eq!(
        out.notes,
        ["the 2 root joints hang from a bone 'root_1' added at the origin: a PSK has one root"]
    );
    let want = [
        ("root_1", None),
        ("root", Some(0)),
        ("seg1", Some(1)),
        ("seg2", Some(0)),
        ("seg3", Some(3)),
    ];
    assert_eq!(bones.len(), want.len());
    for ((name, parent), (want_name, want_parent)) in bones.iter().zip(want) {
        assert_eq!((name.as_str(), *parent), (want_name, want_parent));
    }
    // Whatever frame it plays, the added root stays at the origin.
    let psa = &out.files[1].bytes;
    let pair = HashMap::from([
        ("x.psk".to_string(), out.files[0].bytes.clone()),
        ("x.psa".to_string(), psa.clone()),
    ]);
    let played = Model::resolve(&&pair, "x.psk", &Limits::default()).unwrap();
    for k in 0..played.num_frames() {
        let mut pose = skelmap::model::Pose::default();
        played
            .pose(k, k, 0.0, skelmap::pose::Interpolation::Nlerp, &mut pose)
            .unwrap();
        let world = pose.palette().world[0];
        assert_eq!(world, skelmap::glam::Affine3A::IDENTITY, "frame {k}");
    }
}

/// A PSA's keys find their bones by name, ASCII case ignored: a joint whose name an earlier
/// one has (`SEG1` after `seg1`, as DarkPlaces' spider has four bones named `Spider`) is
/// renamed, so each plays its own keys; it played the first one's and landed off.
#[test]
fn joints_of_one_name_are_renamed_to_play_their_own_keys() {
    let (out, bones) = changed_tube_as_psk(|dpm| dpm.bones[2].name = b"SEG1".to_vec());
    assert_eq!(
        out.notes,
        ["joint 2 is renamed 'SEG1_2': a PSA's keys find their bones by name, and 'SEG1' is taken"]
    );
    let names: Vec<&str> = bones.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(names, ["root", "seg1", "SEG1_2", "seg3"]);
}

/// The added root is named apart from the names as written: with `Root` renamed `Root_1`
/// after the tube's `root`, it is `root_2`, not `root_1`, which would take `Root_1`'s keys.
#[test]
fn the_added_root_is_named_apart_from_renamed_joints() {
    let (out, bones) = changed_tube_as_psk(|dpm| {
        dpm.bones[1].name = b"Root".to_vec();
        dpm.bones[2].parent = -1;
    });
    let names: Vec<&str> = bones.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(names, ["root_2", "root", "Root_1", "seg2", "seg3"]);
    assert_eq!(
        out.notes,
        [
            "joint 1 is renamed 'Root_1': a PSA's keys find their bones by name, and 'Root' \
             is taken",
            "the 2 root joints hang from a bone 'root_2' added at the origin: a PSK has one root",
        ]
    );
}

#[test]
fn a_psk_without_animation_writes_no_psa_and_keeps_its_points_bit_for_bit() {
    let files = pair_files();
    let alone = HashMap::from([("a.psk".to_string(), files["models/soldier.psk"].clone())]);
    let source = Model::resolve(&&alone, "a.psk", &Limits::default()).unwrap();
    let asset = source.to_asset(&Default::default()).unwrap();
    let out = written(&asset);
    // The mesh alone has no animation: no PSA is written.
    assert_eq!(asset.num_frames(), 0);
    assert_eq!(out.files.len(), 1);
    let again = Model::from_bytes(&out.files[0].bytes).unwrap();
    let want: Vec<[f32; 3]> = asset
        .posed(None)
        .unwrap()
        .into_iter()
        .flat_map(|m| m.positions)
        .collect();
    assert_eq!(frame_vertices(&again, 0), want);
}
