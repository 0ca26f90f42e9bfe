//! The ZYM writer (`zym::Builder::from_asset`, through the write dispatch): a ZYM written
//! again moves every vertex as the asset made of it (and so as the original) at every pose,
//! with its scenes; a DPM of
//! several influences per vertex written as ZYM keeps its one-influence vertices exactly,
//! says what it cut, and keeps its clips.

use skelmap::asset::{Asset, WriteOptions, Written};
use skelmap::{Format, Model};

use crate::support::frame_vertices;

fn written(asset: &Asset) -> Written {
    skelmap::model::write(Format::Zym, asset, &WriteOptions::default()).unwrap()
}

fn close(a: [f32; 3], b: [f32; 3]) -> bool {
    (0..3).all(|c| (a[c] - b[c]).abs() <= 1e-4 * (1.0 + b[c].abs()))
}

#[test]
fn a_zym_written_again_moves_as_the_original_with_its_scenes() {
    let bytes = skelmap::zym::Builder::example().write().unwrap();
    let source = Model::from_bytes(&bytes).unwrap();
    let asset = source.to_asset(&Default::default()).unwrap();
    let out = written(&asset);
    assert_eq!(out.files.len(), 1);
    assert!(
        out.notes.iter().all(|n| !n.contains("influence")),
        "{:?}",
        out.notes
    );
    let again = Model::from_bytes(&out.files[0].bytes).unwrap();
    assert!(again.diagnostics().is_empty());
    assert_eq!(again.num_frames(), source.num_frames());
    let clips = |m: &Model<'_>| {
        m.clips()
            .iter()
            .map(|c| (c.name.clone(), c.first, c.count, c.fps, c.looped))
            .collect::<Vec<_>>()
    };
    assert_eq!(clips(&again), clips(&source));
    // The asset has a mesh per shader; the file written from it, their vertices in turn.
    for k in 0..source.num_frames() {
        let want: Vec<[f32; 3]> = asset
            .posed(Some(k))
            .unwrap()
            .into_iter()
            .flat_map(|m| m.positions)
            .collect();
        let got = frame_vertices(&again, k);
        assert_eq!(want.len(), got.len());
        for (v, (w, g)) in want.iter().zip(&got).enumerate() {
            assert!(close(*g, *w), "pose {k}, vertex {v}: {g:?} against {w:?}");
        }
    }
    // And the source's own vertices move as the asset's first mesh's.
    for k in 0..source.num_frames() {
        let want = &asset.posed(Some(k)).unwrap()[0].positions;
        for (v, (w, g)) in want.iter().zip(frame_vertices(&source, k)).enumerate() {
            assert!(close(g, *w), "pose {k}, vertex {v}: {g:?} against {w:?}");
        }
    }
}

#[test]
fn a_dpm_of_blended_vertices_keeps_its_one_bone_vertices_and_says_what_it_cut() {
    let bytes = skelmap::synth::tube(&Default::default()).write().unwrap();
    let source = Model::from_bytes(&bytes).unwrap();
    let asset = source.to_asset(&Default::default()).unwrap();
    let blended = crate::support::blended_vertices(&asset);
    assert!(blended > 0);
    let out = written(&asset);
    assert!(
        out.notes
            .iter()
            .any(|n| n.starts_with(&format!("{blended} vertices had more than one influence"))),
        "{:?}",
        out.notes
    );
    let zym = Model::from_bytes(&out.files[0].bytes).unwrap();
    assert_eq!(zym.format(), Format::Zym);
    assert_eq!(zym.num_frames(), source.num_frames());
    assert_eq!(zym.clips().len(), asset.clips.len());
    let single: Vec<bool> = asset
        .meshes
        .iter()
        .flat_map(|m| (0..m.positions.len()).map(|v| m.influences.of(v).len() == 1))
        .collect();
    assert!(single.iter().any(|&s| s));
    for k in 0..source.num_frames() {
        let posed: Vec<[f32; 3]> = asset
            .posed(Some(k))
            .unwrap()
            .into_iter()
            .flat_map(|m| m.positions)
            .collect();
        let got = frame_vertices(&zym, k);
        assert_eq!(got.len(), posed.len());
        for v in (0..got.len()).filter(|&v| single[v]) {
            assert!(
                close(got[v], posed[v]),
                "frame {k}, vertex {v}: {:?} against {:?}",
                got[v],
                posed[v]
            );
        }
    }
}
