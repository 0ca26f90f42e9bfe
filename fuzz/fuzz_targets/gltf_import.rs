#![no_main]
// glTF import (skelmap_author::gltf::from_slice, no base folder) over any bytes: it must not
// panic, and what it returns must hold the asset's invariants.
use skelmap_core::asset::{Asset, ClipKeys, UNBOUND};

fn check(asset: &Asset) {
    let joints = asset.skeleton.as_ref().map_or(0, |s| s.joints.len());
    if let Some(skeleton) = &asset.skeleton {
        for (j, joint) in skeleton.joints.iter().enumerate() {
            assert!(
                joint.parent.is_none_or(|p| p < j),
                "joint {j}: parent after child"
            );
            assert!(joint.world.is_finite(), "joint {j}: world not finite");
            assert!(
                joint.rotation.is_finite()
                    && joint.translation.is_finite()
                    && joint.scale.is_finite()
            );
        }
        assert!(skeleton.attachments.windows(2).all(|w| w[0] < w[1]));
        assert!(skeleton.attachments.iter().all(|&a| a < joints));
    }
    for mesh in &asset.meshes {
        let n = mesh.positions.len();
        assert_eq!(mesh.normals.len(), n);
        assert!(mesh.uvs.as_ref().is_none_or(|u| u.len() == n));
        assert!(mesh.colors.as_ref().is_none_or(|c| c.len() == n));
        assert!(mesh.material.is_none_or(|m| m < asset.materials.len()));
        assert!(mesh.positions.iter().flatten().all(|v| v.is_finite()));
        assert!(mesh.normals.iter().flatten().all(|v| v.is_finite()));
        assert!(mesh.triangles.iter().flatten().all(|&i| (i as usize) < n));
        if !mesh.influences.is_empty() {
            assert_eq!(mesh.influences.starts.len(), n + 1);
            for v in 0..n {
                let inf = mesh.influences.of(v);
                assert!(!inf.is_empty());
                let sum: f32 = inf.iter().map(|&(_, w)| w).sum();
                assert!((sum - 1.0).abs() < 1e-3, "vertex {v}: weights sum to {sum}");
                assert!(
                    inf.iter()
                        .all(|&(j, _)| j == UNBOUND || usize::from(j) < joints)
                );
            }
        }
        for t in &mesh.targets {
            assert_eq!((t.positions.len(), t.normals.len()), (n, n));
        }
    }
    for m in &asset.materials {
        assert!(m.image.is_none_or(|i| i < asset.images.len()));
    }
    for image in &asset.images {
        assert_eq!(
            image.rgba.len() as u64,
            u64::from(image.width) * u64::from(image.height) * 4
        );
    }
    for clip in &asset.clips {
        assert!(clip.fps.is_finite() && clip.fps > 0.0);
        match &clip.keys {
            ClipKeys::Joints(frames) => {
                assert!(frames.iter().all(|f| f.len() == joints));
            }
            ClipKeys::Morph(frames) => {
                for mesh in asset.meshes.iter().filter(|m| !m.targets.is_empty()) {
                    assert!(frames.iter().all(|&t| (t as usize) < mesh.targets.len()));
                }
            }
        }
    }
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(asset) = skelmap_author::gltf::from_slice(data, None, &Default::default()) {
        check(&asset);
    }
});
