//! The `export` fuzz target's harness: every model that opens is turned into assets (bind
//! pose, first, last and one-past-the-last frame) and written as glTF, OBJ and a tiny PNG, with
//! the asset's invariants checked. Also replayed by skelmap-export's tests.

use skelmap_core::Model;
use skelmap_core::asset::{self, Asset};
use skelmap_export::gltf;
use skelmap_export::{obj, render};

/// Opens `data` as any format and drives the exporters over it.
pub fn export(data: &[u8]) {
    if let Ok(model) = Model::from_bytes(data) {
        drive(&model);
    }
}

/// Assets at the bind pose and at frames 0, last and one past the last, each written out.
pub fn drive(model: &Model<'_>) {
    let frames = model.num_frames().max(1);
    for frame in [None, Some(0), Some(frames.saturating_sub(1)), Some(frames)] {
        let options = asset::Options {
            frame,
            ..asset::Options::default()
        };
        match model.to_asset(&options) {
            Ok(asset) => {
                assert!(
                    frame.is_none_or(|f| f < frames),
                    "frame {frame:?} of {frames}"
                );
                check(&asset);
                let mut glb = Vec::new();
                let all = gltf::Options {
                    all_influences: true,
                    ..gltf::Options::default()
                };
                if gltf::write_glb(&asset, &all, &mut glb).is_ok()
                    && let Err(e) = ::gltf::Gltf::from_slice(&glb)
                {
                    panic!("unreadable GLB: {e}");
                }
                let _ = obj::write(&asset, std::io::sink());
                if let Ok(image) = render::render(&asset, 16, 16) {
                    assert_eq!(image.rgba.len(), 16 * 16 * 4);
                }
            }
            Err(asset::Error::FrameOutOfRange { .. }) => assert_eq!(frame, Some(frames)),
            Err(asset::Error::TooManyKeys { .. } | asset::Error::TooManyJoints { .. }) => {}
            Err(e) => panic!("the asset of a validated model failed: {e}"),
        }
    }
}

/// What every asset promises its writers.
fn check(asset: &Asset) {
    let joints = asset.skeleton.as_ref().map_or(0, |s| s.joints.len());
    for mesh in &asset.meshes {
        let n = mesh.positions.len();
        assert_eq!(mesh.normals.len(), n);
        assert!(mesh.uvs.as_ref().is_none_or(|u| u.len() == n));
        assert!(mesh.triangles.iter().flatten().all(|&i| (i as usize) < n));
        for target in &mesh.targets {
            assert_eq!((target.positions.len(), target.normals.len()), (n, n));
        }
        if !mesh.influences.is_empty() {
            assert_eq!(mesh.influences.starts.len(), n + 1);
            for v in 0..n {
                let inf = mesh.influences.of(v);
                assert!(!inf.is_empty());
                let sum: f32 = inf.iter().map(|(_, w)| w).sum();
                assert!((sum - 1.0).abs() < 1e-3, "weights sum to {sum}");
                assert!(inf.iter().all(|&(j, _)| {
                    usize::from(j) < joints || j == skelmap_core::asset::UNBOUND
                }));
            }
        }
    }
}
