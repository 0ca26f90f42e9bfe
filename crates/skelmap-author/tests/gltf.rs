//! glTF import: skelmap's own export read back (counts, and skinned positions per frame
//! against the original model), the corpus exported and imported, a hand-made file with
//! morph targets and every interpolation, and one bad file per error.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

use glam::{Affine3A, Vec3};
use skelmap_author::gltf::{self, Error, Options};
use skelmap_core::asset::{self, Asset, ClipKeys, UNBOUND, UpAxis};
use skelmap_core::{Model, synth};
use skelmap_export::gltf::write_glb;

// ---------------------------------------------------------------------------------------
// Helpers

fn glb_of(asset: &Asset) -> Vec<u8> {
    let mut out = Vec::new();
    let options = skelmap_export::gltf::Options {
        all_influences: true,
        ..skelmap_export::gltf::Options::default()
    };
    write_glb(asset, &options, &mut out).unwrap();
    out
}

fn tube_bytes() -> Vec<u8> {
    synth::tube(&synth::TubeParams::default()).write().unwrap()
}

fn asset_at(model: &Model<'_>, frame: Option<usize>) -> Asset {
    model
        .to_asset(&asset::Options {
            frame,
            ..asset::Options::default()
        })
        .unwrap()
}

/// Each joint's model-space transform for one frame of joint keys.
fn worlds(asset: &Asset, keys: &[asset::JointKey]) -> Vec<Affine3A> {
    let joints = &asset.skeleton.as_ref().unwrap().joints;
    let mut out: Vec<Affine3A> = Vec::with_capacity(joints.len());
    for (j, joint) in joints.iter().enumerate() {
        let k = keys[j];
        let local = Affine3A::from_scale_rotation_translation(k.scale, k.rotation, k.translation);
        out.push(match joint.parent {
            Some(p) => out[p] * local,
            None => local,
        });
    }
    out
}

/// Linear blend skinning of every mesh of `asset` at `keys`: v' = Σ w · world · bind⁻¹ · v.
fn skin(asset: &Asset, keys: &[asset::JointKey]) -> Vec<Vec<Vec3>> {
    let joints = &asset.skeleton.as_ref().unwrap().joints;
    let world = worlds(asset, keys);
    let palette: Vec<Affine3A> = world
        .iter()
        .zip(joints)
        .map(|(w, j)| *w * j.world.inverse())
        .collect();
    asset
        .meshes
        .iter()
        .map(|mesh| {
            mesh.positions
                .iter()
                .enumerate()
                .map(|(v, &p)| {
                    let p = Vec3::from(p);
                    let inf = mesh.influences.of(v);
                    if inf.is_empty() {
                        return p;
                    }
                    inf.iter()
                        .map(|&(j, w)| {
                            if j == UNBOUND {
                                w * p
                            } else {
                                w * palette[usize::from(j)].transform_point3(p)
                            }
                        })
                        .sum()
                })
                .collect()
        })
        .collect()
}

fn size(asset: &Asset) -> f32 {
    let (lo, hi) = asset.bounds().unwrap();
    (Vec3::from(hi) - Vec3::from(lo)).length()
}

fn base64(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(char::from(A[(n >> (18 - 6 * k)) as usize & 63]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn floats(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// A glTF JSON with one buffer (`bytes` as a data URI) and the rest of the document.
fn with_buffer(bytes: &[u8], rest: &str) -> Vec<u8> {
    format!(
        r#"{{"asset":{{"version":"2.0"}},
  "buffers":[{{"byteLength":{},"uri":"data:application/octet-stream;base64,{}"}}],
  {rest}}}"#,
        bytes.len(),
        base64(bytes)
    )
    .into_bytes()
}

fn import(bytes: &[u8]) -> Result<Asset, Error> {
    gltf::from_slice(bytes, None, &Options::default())
}

/// A triangle: 3 positions (36 bytes) then 3 `u16` indices (6 bytes, padded to 8).
fn triangle_bytes(third: [f32; 3], indices: [u16; 3]) -> Vec<u8> {
    let mut bytes = floats(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0]);
    bytes.extend(floats(&third));
    for i in indices {
        bytes.extend(i.to_le_bytes());
    }
    bytes.extend([0, 0]);
    bytes
}

const TRIANGLE: &str = r#""bufferViews":[{"buffer":0,"byteLength":36},{"buffer":0,"byteOffset":36,"byteLength":6}],
  "accessors":[{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3"},
               {"bufferView":1,"componentType":5123,"count":3,"type":"SCALAR"}],
  "meshes":[{"primitives":[{"attributes":{"POSITION":0},"indices":1}]}],
  "nodes":[{"mesh":0}]"#;

// ---------------------------------------------------------------------------------------
// skelmap's own export, read back

#[test]
fn tube_round_trip_keeps_every_count() {
    let bytes = tube_bytes();
    let model = Model::from_bytes(&bytes).unwrap();
    let original = asset_at(&model, None);
    let imported = import(&glb_of(&original)).unwrap();
    assert_eq!(imported.format, "glTF");
    assert_eq!(imported.up, UpAxis::Y);
    assert_eq!(imported.frame, None);
    let joints = |a: &Asset| a.skeleton.as_ref().map_or(0, |s| s.joints.len());
    assert_eq!((joints(&original), joints(&imported)), (4, 4));
    assert_eq!(imported.num_vertices(), 136);
    assert_eq!(imported.num_triangles(), 256);
    assert_eq!(imported.meshes.len(), original.meshes.len());
    assert_eq!(imported.clips.len(), original.clips.len());
    for (a, b) in imported.clips.iter().zip(&original.clips) {
        assert_eq!(
            (a.name.as_str(), a.first, a.len()),
            (b.name.as_str(), b.first, b.len())
        );
        // A clip of one frame has no rate to recover.
        if b.len() > 1 {
            assert!(
                (a.fps - b.fps).abs() < 1e-3,
                "{} fps {} vs {}",
                a.name,
                a.fps,
                b.fps
            );
        }
        assert!(a.looped);
    }
    let names: Vec<_> = imported
        .skeleton
        .as_ref()
        .unwrap()
        .joints
        .iter()
        .map(|j| j.name.clone())
        .collect();
    assert_eq!(names, ["root", "seg1", "seg2", "seg3"]);
    // No joint outside the skins, so no attachment.
    assert!(imported.skeleton.as_ref().unwrap().attachments.is_empty());
    let material = &imported.materials[imported.meshes[0].material.unwrap()];
    assert_eq!(material.name, "tube");
}

#[test]
fn tube_round_trip_skins_like_the_original_in_every_frame() {
    let bytes = tube_bytes();
    let model = Model::from_bytes(&bytes).unwrap();
    let original = asset_at(&model, None);
    let imported = import(&glb_of(&original)).unwrap();
    let up = Affine3A::from_quat(UpAxis::Z.to_y_up());
    let tolerance = 1e-4 * size(&original);
    // The bind pose: the original turned to +Y up.
    for (a, b) in imported.meshes.iter().zip(&original.meshes) {
        for (p, q) in a.positions.iter().zip(&b.positions) {
            let d = (Vec3::from(*p) - up.transform_point3(Vec3::from(*q))).length();
            assert!(d <= tolerance, "bind pose off by {d}");
        }
    }
    let mut checked = 0;
    for clip in &imported.clips {
        let ClipKeys::Joints(frames) = &clip.keys else {
            panic!("the tube's clips are skeletal");
        };
        for (k, keys) in frames.iter().enumerate() {
            let posed = asset_at(&model, Some(clip.first as usize + k));
            let skinned = skin(&imported, keys);
            for (mesh, want) in skinned.iter().zip(&posed.meshes) {
                for (v, (p, q)) in mesh.iter().zip(&want.positions).enumerate() {
                    let d = (*p - up.transform_point3(Vec3::from(*q))).length();
                    assert!(
                        d <= tolerance,
                        "{} frame {k} vertex {v}: off by {d}",
                        clip.name
                    );
                    checked += 1;
                }
            }
        }
    }
    assert_eq!(checked, 136 * 9);
}

#[test]
fn fps_option_resamples_the_clips() {
    let bytes = tube_bytes();
    let model = Model::from_bytes(&bytes).unwrap();
    let original = asset_at(&model, None);
    let glb = glb_of(&original);
    let own = import(&glb).unwrap();
    let clip = own.clips.iter().position(|c| c.len() > 1).unwrap();
    let options = Options {
        fps: Some(own.clips[clip].fps * 2.0),
        ..Options::default()
    };
    let doubled = gltf::from_slice(&glb, None, &options).unwrap();
    assert_eq!(doubled.clips[clip].len(), 2 * own.clips[clip].len() - 1);
    assert!(doubled.clips.iter().all(|c| c.fps == options.fps.unwrap()));
    assert_eq!(doubled.clips[1].first as usize, doubled.clips[0].len());
    let none = gltf::from_slice(
        &glb,
        None,
        &Options {
            no_animations: true,
            ..Options::default()
        },
    )
    .unwrap();
    assert!(none.clips.is_empty());
    assert_eq!(none.skeleton.unwrap().joints.len(), 4);
}

/// Every corpus model of the formats with joints or morphs, exported and imported: same
/// joints, same triangles.
#[test]
fn corpus_models_come_back_with_their_joints_and_triangles() {
    let mut files: Vec<PathBuf> = Vec::new();
    for sub in ["dpm", "ms3d", "mdl", "hmp", "mdl_quake"] {
        files.extend(skelmap_testkit::corpus_files(sub));
    }
    for sub in ["iqm", "mdl7"] {
        files.extend(skelmap_testkit::corpus_next_files(sub));
    }
    let mut imported = 0;
    for path in &files {
        let bytes = std::fs::read(path).unwrap();
        let Ok(model) = Model::from_bytes(&bytes) else {
            eprintln!("{}: does not open, skipped", path.display());
            continue;
        };
        let Ok(original) = model.to_asset(&asset::Options::default()) else {
            eprintln!("{}: no asset, skipped", path.display());
            continue;
        };
        let back = import(&glb_of(&original)).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let joints = |a: &Asset| a.skeleton.as_ref().map_or(0, |s| s.joints.len());
        assert_eq!(joints(&back), joints(&original), "{}", path.display());
        assert_eq!(
            back.num_triangles(),
            original.num_triangles(),
            "{}",
            path.display()
        );
        imported += 1;
    }
    eprintln!("{imported} of {} corpus files imported", files.len());
    if skelmap_testkit::corpus_required() {
        assert!(imported > 0);
    }
}

// ---------------------------------------------------------------------------------------
// A hand-made file: morph targets, CUBICSPLINE, STEP, a static mesh under a joint

/// Two nodes: a morphing triangle (two targets, weights animated by a cubic spline) and,
/// under an animated node, a static triangle (translation LINEAR, rotation STEP).
fn morph_cubic_gltf() -> Vec<u8> {
    let mut bytes = triangle_bytes([0.0, 1.0, 0.0], [0, 1, 2]); // 0..44
    bytes.extend(floats(&[0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0])); // 44: target 0 (+Z)
    bytes.extend(floats(&[0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0])); // 80: target 1 (+Y)
    bytes.extend(floats(&[0.0, 0.5, 1.0])); // 116: times
    // 128: cubic weights: per key, in-tangents (2), values (2), out-tangents (2).
    bytes.extend(floats(&[
        0.0, 0.0, 0.0, 0.0, 0.0, 0.0, //
        0.0, 0.0, 1.0, 0.0, 0.0, 0.0, //
        0.0, 0.0, 0.0, 1.0, 0.0, 0.0,
    ]));
    bytes.extend(floats(&[0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 4.0, 0.0, 0.0])); // 200: translations
    bytes.extend(floats(&[
        0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0,
    ])); // 236: rotations
    with_buffer(
        &bytes,
        r#""bufferViews":[{"buffer":0,"byteLength":36},{"buffer":0,"byteOffset":36,"byteLength":6},
      {"buffer":0,"byteOffset":44,"byteLength":72},{"buffer":0,"byteOffset":116,"byteLength":12},
      {"buffer":0,"byteOffset":128,"byteLength":72},{"buffer":0,"byteOffset":200,"byteLength":36},
      {"buffer":0,"byteOffset":236,"byteLength":48}],
  "accessors":[{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3","min":[0,0,0],"max":[1,1,0]},
               {"bufferView":1,"componentType":5123,"count":3,"type":"SCALAR"},
               {"bufferView":2,"componentType":5126,"count":3,"type":"VEC3","min":[0,0,1],"max":[0,0,1]},
               {"bufferView":2,"byteOffset":36,"componentType":5126,"count":3,"type":"VEC3","min":[0,1,0],"max":[0,1,0]},
               {"bufferView":3,"componentType":5126,"count":3,"type":"SCALAR","min":[0],"max":[1]},
               {"bufferView":4,"componentType":5126,"count":18,"type":"SCALAR"},
               {"bufferView":5,"componentType":5126,"count":3,"type":"VEC3"},
               {"bufferView":6,"componentType":5126,"count":3,"type":"VEC4"}],
  "meshes":[{"name":"morph","primitives":[{"attributes":{"POSITION":0},"indices":1,
               "targets":[{"POSITION":2},{"POSITION":3}]}],"weights":[0,0]},
            {"name":"static","primitives":[{"attributes":{"POSITION":0},"indices":1}]}],
  "nodes":[{"name":"morpher","mesh":0},{"name":"mover","children":[2]},{"name":"held","mesh":1,"translation":[0,0,5]}],
  "scenes":[{"nodes":[0,1]}],
  "animations":[{"name":"wave","channels":[{"sampler":0,"target":{"node":0,"path":"weights"}}],
                 "samplers":[{"input":4,"output":5,"interpolation":"CUBICSPLINE"}]},
                {"name":"move","channels":[{"sampler":0,"target":{"node":1,"path":"translation"}},
                                           {"sampler":1,"target":{"node":1,"path":"rotation"}}],
                 "samplers":[{"input":4,"output":6},{"input":4,"output":7,"interpolation":"STEP"}]}]"#,
    )
}

#[test]
fn morph_targets_cubic_splines_steps_and_held_meshes() {
    let asset = import(&morph_cubic_gltf()).unwrap();
    assert_eq!(asset.meshes.len(), 2);
    // Key times 0, 0.5, 1 are even: 2 fps, 3 frames per clip.
    assert_eq!(asset.clips.len(), 2);
    let (wave, moving) = (&asset.clips[0], &asset.clips[1]);
    assert_eq!(
        (wave.name.as_str(), wave.fps, wave.len(), wave.first),
        ("wave", 2.0, 3, 0)
    );
    assert_eq!(
        (moving.name.as_str(), moving.fps, moving.len(), moving.first),
        ("move", 2.0, 3, 3)
    );
    let ClipKeys::Morph(targets) = &wave.keys else {
        panic!("a weights animation is a morph clip")
    };
    assert_eq!(targets, &[0, 1, 2]);
    // Each frame is a target: frame 1 is target 0 at weight 1, frame 2 target 1.
    let morph = &asset.meshes[0];
    assert_eq!(morph.targets.len(), 3);
    assert_eq!(morph.targets[0].positions[0], [0.0, 0.0, 0.0]);
    assert_eq!(morph.targets[1].positions[2], [0.0, 0.0, 1.0]);
    assert_eq!(morph.targets[2].positions[1], [0.0, 1.0, 0.0]);
    // The static mesh is not a morph and hangs under the animated node: both are joints,
    // neither in a skin, so both are attachments; the mesh is bound wholly to its node.
    let skeleton = asset.skeleton.as_ref().unwrap();
    let names: Vec<_> = skeleton.joints.iter().map(|j| j.name.as_str()).collect();
    assert_eq!(names, ["mover", "held"]);
    assert_eq!(skeleton.attachments, [0, 1]);
    assert_eq!(skeleton.joints[1].parent, Some(0));
    let held = &asset.meshes[1];
    assert!(held.targets.is_empty());
    assert_eq!(held.influences.of(0), &[(1, 1.0)]);
    assert_eq!(held.positions[0], [0.0, 0.0, 5.0]);
    // Flat normals were computed.
    assert_eq!(held.normals[0], [0.0, 0.0, 1.0]);
    let ClipKeys::Joints(frames) = &moving.keys else {
        panic!("a translation animation is a joint clip")
    };
    assert_eq!(frames[1][0].translation, Vec3::new(2.0, 0.0, 0.0));
    // STEP: the second key's rotation (180° about X) holds from 0.5 s.
    assert!(
        frames[0][0]
            .rotation
            .abs_diff_eq(glam::Quat::IDENTITY, 1e-6)
    );
    assert!(
        frames[1][0]
            .rotation
            .abs_diff_eq(glam::Quat::from_xyzw(1.0, 0.0, 0.0, 0.0), 1e-6)
    );
    // The held node keeps its rest pose in every key.
    assert_eq!(frames[2][1].translation, Vec3::new(0.0, 0.0, 5.0));
}

#[test]
fn cubic_spline_interpolates_between_keys() {
    let options = Options {
        fps: Some(4.0),
        ..Options::default()
    };
    let asset = gltf::from_slice(&morph_cubic_gltf(), None, &options).unwrap();
    // 1 s at 4 fps: 5 frames, and frame 1 (0.25 s) is halfway between weights (0,0) and
    // (1,0) with zero tangents: 0.5 of target 0.
    assert_eq!(asset.clips[0].len(), 5);
    let z = asset.meshes[0].targets[1].positions[0][2];
    assert!((z - 0.5).abs() < 1e-6, "{z}");
}

// ---------------------------------------------------------------------------------------
// Files

#[test]
fn gltf_with_external_buffer_is_read_from_its_folder() {
    let dir = tempfile::Builder::new()
        .prefix("skelmap-author-test-")
        .tempdir()
        .unwrap();
    let dir = dir.path();
    std::fs::create_dir_all(dir.join("data")).unwrap();
    let bin = triangle_bytes([0.0, 1.0, 0.0], [0, 1, 2]);
    std::fs::write(dir.join("data/tri angle.bin"), &bin).unwrap();
    let json = format!(
        r#"{{"asset":{{"version":"2.0"}},"buffers":[{{"byteLength":{},"uri":"data/tri%20angle.bin"}}],{TRIANGLE}}}"#,
        bin.len()
    );
    std::fs::write(dir.join("tri.gltf"), &json).unwrap();
    let asset = gltf::import(&dir.join("tri.gltf"), &Options::default()).unwrap();
    assert_eq!(asset.num_triangles(), 1);
    // Outside the folder: refused before any file is touched.
    for uri in ["../tri.bin", "/etc/passwd", "data/../../x.bin"] {
        let json = format!(
            r#"{{"asset":{{"version":"2.0"}},"buffers":[{{"byteLength":4,"uri":"{uri}"}}]}}"#
        );
        std::fs::write(dir.join("bad.gltf"), &json).unwrap();
        let err = gltf::import(&dir.join("bad.gltf"), &Options::default()).unwrap_err();
        assert!(
            matches!(
                err,
                Error::Buffer {
                    index: 0,
                    field: "uri",
                    ..
                }
            ),
            "{uri}: {err}"
        );
    }
    // Missing beside it: the I/O error names the file.
    std::fs::write(
        dir.join("missing.gltf"),
        r#"{"asset":{"version":"2.0"},"buffers":[{"byteLength":4,"uri":"gone.bin"}]}"#,
    )
    .unwrap();
    let err = gltf::import(&dir.join("missing.gltf"), &Options::default()).unwrap_err();
    assert!(
        matches!(&err, Error::Io { path, .. } if path.ends_with("gone.bin")),
        "{err}"
    );
}

/// The fuzz seeds: skelmap's export of synth models and the hand-made morph file. Written
/// with `SKELMAP_BLESS=1 cargo test -p skelmap-author --test gltf seeds`; each must import.
#[test]
fn seeds() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/seeds/gltf_import");
    let bytes = tube_bytes();
    let model = Model::from_bytes(&bytes).unwrap();
    let small = synth::tube(&synth::TubeParams {
        bones: 2,
        rings_per_bone: 1,
        sides: 3,
        frames: 3,
        ..synth::TubeParams::default()
    })
    .write()
    .unwrap();
    let small = Model::from_bytes(&small).unwrap();
    let seeds: Vec<(&str, Vec<u8>)> = vec![
        ("tube.glb", glb_of(&asset_at(&model, None))),
        ("tube-frame3.glb", glb_of(&asset_at(&model, Some(3)))),
        ("tube-small.glb", glb_of(&asset_at(&small, None))),
        ("morph-cubic.gltf", morph_cubic_gltf()),
    ];
    for (name, bytes) in seeds {
        let path = dir.join(name);
        if std::env::var_os("SKELMAP_BLESS").is_some() {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(&path, &bytes).unwrap();
        }
        let stored = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        import(&stored).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let _ = import(&std::fs::read(&path).unwrap());
    }
}

// ---------------------------------------------------------------------------------------
// One bad file per error

#[test]
fn missing_buffer() {
    let json = br#"{"asset":{"version":"2.0"},"buffers":[{"byteLength":4}]}"#;
    let err = import(json).unwrap_err();
    assert!(
        matches!(
            err,
            Error::Buffer {
                index: 0,
                field: "uri",
                ..
            }
        ),
        "{err}"
    );
    // A data URI shorter than the buffer's declared length.
    let json =
        br#"{"asset":{"version":"2.0"},"buffers":[{"byteLength":4,"uri":"data:;base64,AAA="}]}"#;
    let err = import(json).unwrap_err();
    assert!(
        matches!(
            err,
            Error::Buffer {
                index: 0,
                field: "byteLength",
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn accessor_past_its_buffer() {
    let bytes = triangle_bytes([0.0, 1.0, 0.0], [0, 1, 2]);
    let rest = TRIANGLE.replace(r#""count":3,"type":"VEC3""#, r#""count":4,"type":"VEC3""#);
    let err = import(&with_buffer(&bytes, &rest)).unwrap_err();
    assert!(
        matches!(
            err,
            Error::Accessor {
                index: 0,
                field: "count",
                ..
            }
        ),
        "{err}"
    );
    let rest = TRIANGLE.replace(
        r#""byteOffset":36,"byteLength":6"#,
        r#""byteOffset":40,"byteLength":6"#,
    );
    let err = import(&with_buffer(&bytes, &rest)).unwrap_err();
    assert!(
        matches!(
            err,
            Error::BufferView {
                index: 1,
                field: "byteLength",
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn index_past_vertex_count() {
    let bytes = triangle_bytes([0.0, 1.0, 0.0], [0, 1, 3]);
    let err = import(&with_buffer(&bytes, TRIANGLE)).unwrap_err();
    assert!(
        matches!(
            err,
            Error::Mesh {
                index: 0,
                primitive: 0,
                field: "indices",
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn node_cycle() {
    let json = br#"{"asset":{"version":"2.0"},"nodes":[{},{"children":[2]},{"children":[1]}]}"#;
    let err = import(json).unwrap_err();
    assert!(matches!(err, Error::NodeCycle { node: 1 }), "{err}");
    let json = br#"{"asset":{"version":"2.0"},"nodes":[{"children":[2]},{"children":[2]},{}]}"#;
    let err = import(json).unwrap_err();
    assert!(
        matches!(
            err,
            Error::NodeParents {
                node: 2,
                first: 0,
                second: 1
            }
        ),
        "{err}"
    );
}

#[test]
fn nan_position() {
    let bytes = triangle_bytes([0.0, f32::NAN, 0.0], [0, 1, 2]);
    let err = import(&with_buffer(&bytes, TRIANGLE)).unwrap_err();
    assert!(
        matches!(
            err,
            Error::NonFinite {
                accessor: 0,
                element: 2,
                used_as: "POSITION"
            }
        ),
        "{err}"
    );
    // A number past f32's range: refused by the JSON reader itself when the workspace's other
    // crates change how serde_json parses numbers (jsonschema, a dev-dependency of the CLI,
    // turns on its exact-float features), else as an infinite translation.
    let json = br#"{"asset":{"version":"2.0"},"nodes":[{"translation":[0,1e39,0]}]}"#;
    let err = import(json).unwrap_err();
    assert!(
        matches!(
            &err,
            Error::Node {
                index: 0,
                field: "translation",
                ..
            }
        ) || matches!(&err, Error::Json(m) if m.contains("number out of range")),
        "{err}"
    );
}

#[test]
fn bad_skin_joint() {
    let json = br#"{"asset":{"version":"2.0"},"nodes":[{}],"skins":[{"joints":[0,5]}]}"#;
    let err = import(json).unwrap_err();
    assert!(
        matches!(
            err,
            Error::Skin {
                index: 0,
                field: "joints",
                ..
            }
        ),
        "{err}"
    );
    let json = br#"{"asset":{"version":"2.0"},"nodes":[{}],"skins":[{"joints":[0,0]}]}"#;
    let err = import(json).unwrap_err();
    assert!(
        matches!(
            err,
            Error::Skin {
                index: 0,
                field: "joints",
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn weight_on_a_joint_the_skin_lacks() {
    let mut bytes = triangle_bytes([0.0, 1.0, 0.0], [0, 1, 2]);
    bytes.extend([0u8, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0]); // 44: joints (u8), vertex 2 → joint 1
    bytes.extend(floats(&[1.0, 0.0, 0.0, 0.0].repeat(3))); // 56: weights
    let rest = r#""bufferViews":[{"buffer":0,"byteLength":36},{"buffer":0,"byteOffset":36,"byteLength":6},
      {"buffer":0,"byteOffset":44,"byteLength":12},{"buffer":0,"byteOffset":56,"byteLength":48}],
  "accessors":[{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3"},
               {"bufferView":1,"componentType":5123,"count":3,"type":"SCALAR"},
               {"bufferView":2,"componentType":5121,"count":3,"type":"VEC4"},
               {"bufferView":3,"componentType":5126,"count":3,"type":"VEC4"}],
  "meshes":[{"primitives":[{"attributes":{"POSITION":0,"JOINTS_0":2,"WEIGHTS_0":3},"indices":1}]}],
  "nodes":[{"mesh":0,"skin":0},{"name":"bone"}],
  "skins":[{"joints":[1]}]"#;
    let err = import(&with_buffer(&bytes, rest)).unwrap_err();
    assert!(
        matches!(
            err,
            Error::Mesh {
                index: 0,
                primitive: 0,
                field: "JOINTS_n",
                ..
            }
        ),
        "{err}"
    );
    // Joint 0 only: imported, bound to the bone.
    let mut ok = bytes.clone();
    ok[44 + 8] = 0;
    let asset = import(&with_buffer(&ok, rest)).unwrap();
    assert_eq!(asset.meshes[0].influences.of(2), &[(0, 1.0)]);
    assert_eq!(asset.skeleton.unwrap().joints[0].name, "bone");
}

#[test]
fn malformed_containers_and_json() {
    let err = import(b"glTF\x02\0\0\0\x08\0\0\0").unwrap_err();
    assert!(matches!(err, Error::Glb { offset: 8, .. }), "{err}");
    let err = import(b"glTF\x01\0\0\0\x0c\0\0\0").unwrap_err();
    assert!(matches!(err, Error::Glb { offset: 4, .. }), "{err}");
    let err = import(b"{\"asset\":").unwrap_err();
    assert!(matches!(err, Error::Json(_)), "{err}");
    let json =
        br#"{"asset":{"version":"2.0"},"extensionsRequired":["KHR_draco_mesh_compression"]}"#;
    let err = import(json).unwrap_err();
    assert!(
        matches!(&err, Error::Extension(e) if e == "KHR_draco_mesh_compression"),
        "{err}"
    );
    let err = gltf::from_slice(
        b"{}",
        None,
        &Options {
            fps: Some(0.0),
            ..Options::default()
        },
    )
    .unwrap_err();
    assert!(matches!(err, Error::Options { field: "fps", .. }), "{err}");
}

#[test]
fn bad_animations() {
    let mut bytes = floats(&[0.0, 1.0, 0.5]);
    bytes.extend(floats(&[0.0; 9]));
    let rest = |channel: &str| {
        format!(
            r#""bufferViews":[{{"buffer":0,"byteLength":12}},{{"buffer":0,"byteOffset":12,"byteLength":36}}],
  "accessors":[{{"bufferView":0,"componentType":5126,"count":3,"type":"SCALAR"}},
               {{"bufferView":1,"componentType":5126,"count":3,"type":"VEC3"}}],
  "nodes":[{{}}],
  "animations":[{{"channels":[{channel}],"samplers":[{{"input":0,"output":1}}]}}]"#
        )
    };
    let err = import(&with_buffer(
        &bytes,
        &rest(r#"{"sampler":0,"target":{"node":0,"path":"translation"}}"#),
    ))
    .unwrap_err();
    assert!(
        matches!(
            err,
            Error::Sampler {
                animation: 0,
                sampler: 0,
                field: "input",
                ..
            }
        ),
        "{err}"
    );
    let err = import(&with_buffer(
        &bytes,
        &rest(r#"{"sampler":0,"target":{"node":3,"path":"translation"}}"#),
    ))
    .unwrap_err();
    assert!(
        matches!(
            err,
            Error::Channel {
                animation: 0,
                channel: 0,
                field: "target.node",
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn bad_material_and_image() {
    let json = br#"{"asset":{"version":"2.0"},"materials":[{"pbrMetallicRoughness":{"baseColorTexture":{"index":2}}}]}"#;
    let err = import(json).unwrap_err();
    assert!(
        matches!(
            err,
            Error::Material {
                index: 0,
                field: "pbrMetallicRoughness.baseColorTexture",
                ..
            }
        ),
        "{err}"
    );
    // A PNG signature and then nothing.
    let json = br#"{"asset":{"version":"2.0"},"images":[{"uri":"data:image/png;base64,iVBORw0KGgoAAAA"}],
      "textures":[{"source":0}],"materials":[{"pbrMetallicRoughness":{"baseColorTexture":{"index":0}}}]}"#;
    let err = import(json).unwrap_err();
    assert!(
        matches!(
            err,
            Error::Image {
                index: 0,
                field: "data",
                ..
            }
        ),
        "{err}"
    );
    let json = br#"{"asset":{"version":"2.0"},"images":[{"uri":"data:image/png;base64,AAAA"}],
      "textures":[{"source":0}],"materials":[{"pbrMetallicRoughness":{"baseColorTexture":{"index":0}}}]}"#;
    let err = import(json).unwrap_err();
    assert!(
        matches!(
            err,
            Error::Image {
                index: 0,
                field: "mimeType",
                ..
            }
        ),
        "{err}"
    );
    // An external image without a folder to look in is kept as the material's file name.
    let json = br#"{"asset":{"version":"2.0"},"images":[{"uri":"skins/a%20b.png"}],
      "textures":[{"source":0}],"materials":[{"pbrMetallicRoughness":{"baseColorTexture":{"index":0}}}]}"#;
    let asset = import(json).unwrap();
    assert_eq!(
        asset.materials[0].external.as_deref(),
        Some("skins/a%20b.png")
    );
    assert!(asset.images.is_empty());
}

#[test]
fn embedded_png_texture_is_decoded() {
    // The export of a model with a skin: an MDL has one; synth gives none, so make an asset.
    let bytes = tube_bytes();
    let model = Model::from_bytes(&bytes).unwrap();
    let mut original = asset_at(&model, None);
    original.images.push(asset::Image {
        width: 2,
        height: 1,
        rgba: vec![255, 0, 0, 255, 0, 255, 0, 128],
        jpeg: None,
    });
    original.materials[0].image = Some(0);
    let back = import(&glb_of(&original)).unwrap();
    assert_eq!(back.images, original.images);
    assert_eq!(back.materials[0].image, Some(0));
}

/// The `gltf_import` fuzz target's one finding (a timeout, no panic): the tube with its
/// `wave` clip's two keys 836,131 seconds apart. Sampled at the default rate's 1 fps floor it
/// was 836,133 frames, which the old caps allowed and which took 2.4 s under ASan; the clip
/// cap (64 Ki frames) now refuses it at once.
#[test]
fn regress_timeout_keys_836131_seconds_apart() {
    let bytes = include_bytes!("regress/timeout-keys-836131-seconds-apart.glb");
    let error = skelmap_author::gltf::from_slice(bytes, None, &Default::default()).unwrap_err();
    let skelmap_author::gltf::Error::Limit { found, limit, .. } = error else {
        panic!("{error}");
    };
    assert_eq!((found, limit), (836_133, 65_536));
}

#[test]
fn a_mask_materials_cutoff_survives_export_and_import() {
    let bytes = tube_bytes();
    let model = Model::from_bytes(&bytes).unwrap();
    let mut source = asset_at(&model, None);
    assert!(!source.materials.is_empty());
    source.materials[0].alpha_cutoff = Some(0.25);
    let back = import(&glb_of(&source)).unwrap();
    assert_eq!(back.materials[0].alpha_cutoff, Some(0.25));
    assert!(back.materials[1..].iter().all(|m| m.alpha_cutoff.is_none()));
    // `MASK` without a cutoff is glTF's default, 0.5; `BLEND` is drawn opaque.
    for (mode, cutoff) in [
        (r#""alphaMode":"MASK""#, Some(0.5)),
        (r#""alphaMode":"BLEND""#, None),
    ] {
        let json = format!(r#"{{"asset":{{"version":"2.0"}},"materials":[{{{mode}}}]}}"#);
        let asset = import(json.as_bytes()).unwrap();
        assert_eq!(asset.materials[0].alpha_cutoff, cutoff, "{mode}");
    }
    let json =
        br#"{"asset":{"version":"2.0"},"materials":[{"alphaMode":"MASK","alphaCutoff":-1}]}"#;
    let err = import(json).unwrap_err();
    assert!(
        matches!(
            err,
            Error::Material {
                index: 0,
                field: "alphaCutoff",
                ..
            }
        ),
        "{err}"
    );
}

// ---------------------------------------------------------------------------------------
// What a sweep of real glTF files showed

/// A skinned triangle on joint `arm` under joint `root` (scaled by `scale`), `arm` at `rest`
/// units up in the nodes and bound `bind` units up by its inverse bind matrix, turned a
/// quarter about Z over one second; with `static_mesh`, a second triangle on a node of no
/// joint, 5 units along X, which no animation moves.
fn skinned_gltf(scale: f32, rest: f32, bind: f32, static_mesh: bool) -> Vec<u8> {
    let s = scale;
    let mut bytes = floats(&[
        0.0,
        s * bind,
        0.0,
        s,
        s * bind,
        0.0,
        0.0,
        s * (bind + 1.0),
        0.0,
    ]);
    for i in [0u16, 1, 2] {
        bytes.extend(i.to_le_bytes());
    }
    bytes.extend([0, 0]); // 44: joints, each vertex on joint 1 (`arm`)
    bytes.extend([1u8, 0, 0, 0].repeat(3)); // 56: weights
    bytes.extend(floats(&[1.0, 0.0, 0.0, 0.0].repeat(3))); // 104: inverse bind matrices
    let r = 1.0 / s;
    #[rustfmt::skip]
    bytes.extend(floats(&[
        r, 0.0, 0.0, 0.0, 0.0, r, 0.0, 0.0, 0.0, 0.0, r, 0.0, 0.0, 0.0, 0.0, 1.0,
        r, 0.0, 0.0, 0.0, 0.0, r, 0.0, 0.0, 0.0, 0.0, r, 0.0, 0.0, -bind, 0.0, 1.0,
    ]));
    bytes.extend(floats(&[0.0, 1.0])); // 232: key times
    let h = std::f32::consts::FRAC_1_SQRT_2;
    bytes.extend(floats(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, h, h])); // 240: rotations
    let (extra_mesh, extra_node) = if static_mesh {
        (
            r#",{"primitives":[{"attributes":{"POSITION":0},"indices":1}]}"#,
            r#",{"mesh":1,"translation":[5,0,0]}"#,
        )
    } else {
        ("", "")
    };
    let rest_json = format!(
        r#""bufferViews":[{{"buffer":0,"byteLength":36}},{{"buffer":0,"byteOffset":36,"byteLength":6}},
      {{"buffer":0,"byteOffset":44,"byteLength":12}},{{"buffer":0,"byteOffset":56,"byteLength":48}},
      {{"buffer":0,"byteOffset":104,"byteLength":128}},{{"buffer":0,"byteOffset":232,"byteLength":8}},
      {{"buffer":0,"byteOffset":240,"byteLength":32}}],
  "accessors":[{{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3"}},
               {{"bufferView":1,"componentType":5123,"count":3,"type":"SCALAR"}},
               {{"bufferView":2,"componentType":5121,"count":3,"type":"VEC4"}},
               {{"bufferView":3,"componentType":5126,"count":3,"type":"VEC4"}},
               {{"bufferView":4,"componentType":5126,"count":2,"type":"MAT4"}},
               {{"bufferView":5,"componentType":5126,"count":2,"type":"SCALAR"}},
               {{"bufferView":6,"componentType":5126,"count":2,"type":"VEC4"}}],
  "meshes":[{{"primitives":[{{"attributes":{{"POSITION":0,"JOINTS_0":2,"WEIGHTS_0":3}},"indices":1}}]}}{extra_mesh}],
  "nodes":[{{"mesh":0,"skin":0}},{{"name":"root","scale":[{s},{s},{s}],"children":[2]}},
           {{"name":"arm","translation":[0,{rest},0]}}{extra_node}],
  "skins":[{{"joints":[1,2],"inverseBindMatrices":4}}],
  "animations":[{{"channels":[{{"sampler":0,"target":{{"node":2,"path":"rotation"}}}}],
                  "samplers":[{{"input":5,"output":6}}]}}],
  "scenes":[{{"nodes":[0,1{static_node}]}}]"#,
        static_node = if static_mesh { ",3" } else { "" },
    );
    with_buffer(&bytes, &rest_json)
}

/// Blender-IO's `03_skinned_cylinder.gltf` and gdx-gltf's `pbrTest.gltf` bind joints where
/// their nodes' rest pose does not put them. IQM, PSK and SL derive a joint's inverse bind
/// matrix from its stored bind pose, which was the rest pose: their frames were off by up to
/// 0.19 of the size. The joints' keys are now the bind pose's.
#[test]
fn a_skin_bound_apart_from_the_rest_pose_keeps_its_frames_in_every_format() {
    let asset = import(&skinned_gltf(1.0, 1.0, 2.0, false)).unwrap();
    let skeleton = asset.skeleton.as_ref().unwrap();
    let arm = &skeleton.joints[1];
    assert_eq!(arm.name, "arm");
    assert_eq!(arm.translation, Vec3::new(0.0, 2.0, 0.0));
    assert_eq!(arm.world.translation, Vec3::new(0.0, 2.0, 0.0).into());
    // The clip keeps the nodes' rest pose: one unit up, one below the bind.
    let ClipKeys::Joints(frames) = &asset.clips[0].keys else {
        panic!("joint keys");
    };
    assert_eq!(frames[0][1].translation, Vec3::new(0.0, 1.0, 0.0));
    for format in [
        skelmap_core::Format::Iqm,
        skelmap_core::Format::Psk,
        skelmap_core::Format::SlMdl,
        skelmap_core::Format::Ms3d,
        skelmap_core::Format::Dpm,
        skelmap_core::Format::Md5,
    ] {
        let (error, notes) = skelmap_testkit::write::written_error(&asset, format);
        assert!(error.frames >= 2, "{format}: {error}");
        assert!(error.max < 1e-5, "{format}: {error}; {notes:?}");
    }
    // Where the rest pose is the bind pose, the joint keeps the rest pose's numbers.
    let same = import(&skinned_gltf(1.0, 2.0, 2.0, false)).unwrap();
    assert_eq!(
        same.skeleton.unwrap().joints[1].translation,
        Vec3::new(0.0, 2.0, 0.0)
    );
}

/// ozz-animation's copy of Khronos' `BoxAnimated`: a static mesh beside the animated ones.
/// IQM, DPM and PSK bound its vertices to joint 0, which the animation moves (1.45 of the
/// size off); the formats whose vertices each follow a bone now bind them to a joint added
/// for them that stays at the origin, and say so.
#[test]
fn a_static_mesh_beside_a_skinned_one_stays_put_in_every_format() {
    let asset = import(&skinned_gltf(1.0, 2.0, 2.0, true)).unwrap();
    assert!(asset.meshes[1].influences.is_empty());
    let note = "3 vertices bound to no joint are weighted to the joint \"origin\", added at \
                the origin and never animated, so that they stay where they are";
    use skelmap_core::Format::*;
    // Every format with joints (the others store vertex frames).
    for format in [
        Dpm, Skm, Ms3d, Mdl7, SlMdl, Iqm, Mdr, Md5, Zym, Hl1, Mdm, Psk,
    ] {
        let (error, notes) = skelmap_testkit::write::written_error(&asset, format);
        assert!(error.max < 1e-5, "{format}: {error}; {notes:?}");
        // MS3D and MDL7 vertices may follow no bone.
        let unbound_ok = matches!(format, Ms3d | Mdl7);
        assert!(
            unbound_ok || notes.iter().any(|n| n == note),
            "{format}: {notes:?}"
        );
    }
}

/// assimp's `quad_skin.glb`: joints under a node that scales by 100. DPM and SKM bones do not
/// scale, and their vertices were weighted in the scaled bones' space: the bind pose came
/// back 0.495 of the size off, with no note. They are now weighted in the unscaled bones'
/// space, and the note says the scale is not kept.
#[test]
fn a_skeleton_scaled_in_its_bind_pose_is_written_in_place_by_formats_without_scale() {
    let mut asset = import(&skinned_gltf(100.0, 1.0, 1.0, false)).unwrap();
    // The bind pose alone: its frames scale as it does.
    asset.clips.clear();
    for (format, name) in [
        (skelmap_core::Format::Dpm, "DPM"),
        (skelmap_core::Format::Skm, "SKM"),
    ] {
        let (error, notes) = skelmap_testkit::write::written_error(&asset, format);
        assert!(error.max < 1e-5, "{format}: {error}");
        let note = format!(
            "1 joints scale in the bind pose; {name} bones do not scale, so the vertices are \
             weighted in the unscaled bones' space: the bind pose is kept, a frame that \
             scales otherwise is not"
        );
        assert!(notes.contains(&note), "{format}: {notes:?}");
    }
}

/// What the specification allows and the `gltf` crate's types refuse, each from a real or
/// a validator's test file: `integer_written_as_float.gltf`, `extras_non_object.gltf`,
/// `00_empty_scene.gltf` (Blender-IO), `24_animation_pointer.gltf` (Blender-IO, channels
/// naming their targets by `KHR_animation_pointer`). Each file was refused whole.
#[test]
fn what_the_specification_allows_and_the_gltf_types_refuse_is_read() {
    let bytes = triangle_bytes([0.0, 1.0, 0.0], [0, 1, 2]);
    let read = |rest: &str| import(&with_buffer(&bytes, rest));
    let float_count = TRIANGLE.replacen(
        r#""count":3,"type":"VEC3""#,
        r#""count":3.0,"type":"VEC3""#,
        1,
    );
    assert_eq!(read(&float_count).unwrap().num_vertices(), 3);
    let extras = format!(r#"{TRIANGLE}, "extras": 42"#);
    assert_eq!(read(&extras).unwrap().num_vertices(), 3);
    let empty_scene = format!(r#"{TRIANGLE}, "scenes":[{{}}], "scene":0"#);
    assert_eq!(read(&empty_scene).unwrap().meshes.len(), 0);
    // A channel naming its target by `KHR_animation_pointer`: a node's translation is read
    // as that node's channel, a material's colour left out.
    let mut keyed = bytes.clone();
    keyed.extend(floats(&[0.0, 1.0])); // 44: times
    keyed.extend(floats(&[0.0, 0.0, 0.0, 0.0, 0.0, 2.0])); // 52: translations
    let pointer = r#""bufferViews":[{"buffer":0,"byteLength":36},{"buffer":0,"byteOffset":36,"byteLength":6},
      {"buffer":0,"byteOffset":44,"byteLength":8},{"buffer":0,"byteOffset":52,"byteLength":24}],
  "accessors":[{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3"},
               {"bufferView":1,"componentType":5123,"count":3,"type":"SCALAR"},
               {"bufferView":2,"componentType":5126,"count":2,"type":"SCALAR"},
               {"bufferView":3,"componentType":5126,"count":2,"type":"VEC3"}],
  "meshes":[{"primitives":[{"attributes":{"POSITION":0},"indices":1}]}],
  "nodes":[{"mesh":0}],
  "animations":[{"channels":[
      {"sampler":0,"target":{"path":"pointer",
       "extensions":{"KHR_animation_pointer":{"pointer":"/nodes/0/translation"}}}},
      {"sampler":0,"target":{"path":"pointer",
       "extensions":{"KHR_animation_pointer":{"pointer":"/materials/0/emissiveFactor"}}}}],
    "samplers":[{"input":2,"output":3}]}]"#;
    let asset = import(&with_buffer(&keyed, pointer)).unwrap();
    assert_eq!((asset.num_vertices(), asset.clips.len()), (3, 1));
    assert_eq!(asset.skeleton.as_ref().map(|s| s.joints.len()), Some(1));
    // A document that is not an object is named so.
    let err = import(b"[1, 2]").unwrap_err();
    assert!(
        matches!(&err, Error::Json(text) if text.contains("not a JSON object")),
        "{err}"
    );
    // What stays wrong is refused with the first reading's words.
    let wrong = TRIANGLE.replacen(
        r#""count":3,"type":"VEC3""#,
        r#""count":3.5,"type":"VEC3""#,
        1,
    );
    let err = read(&wrong).unwrap_err();
    assert!(
        matches!(&err, Error::Json(text) if text.contains("3.5")),
        "{err}"
    );
}

/// The validator's `texture_no_source.gltf`: `source` is optional (an extension may name the
/// image). It was refused as "image 4294967295 does not exist".
#[test]
fn a_texture_without_source_leaves_its_material_the_colour() {
    let bytes = triangle_bytes([0.0, 1.0, 0.0], [0, 1, 2]);
    let rest = TRIANGLE.replacen(
        r#"{"attributes":{"POSITION":0},"indices":1}"#,
        r#"{"attributes":{"POSITION":0},"indices":1,"material":0}"#,
        1,
    ) + r#", "materials":[{"pbrMetallicRoughness":{"baseColorTexture":{"index":0},
               "baseColorFactor":[1,0.5,0.25,1]}}], "textures":[{}]"#;
    let asset = import(&with_buffer(&bytes, &rest)).unwrap();
    let m = &asset.materials[0];
    assert_eq!((m.image, m.external.as_deref()), (None, None));
    assert_eq!(m.base_color, [1.0, 0.5, 0.25, 1.0]);
}

/// The asset keeps one set of texture coordinates: the one the base colour texture samples
/// (`texCoord`, or its transform's), as the Asset Generator's `Mesh_PrimitivesUV_04.gltf`
/// samples `TEXCOORD_1`; `TEXCOORD_0` where the primitive lacks that set, untransformed.
#[test]
fn the_coordinate_set_the_base_colour_texture_samples_is_read() {
    let mut bytes = triangle_bytes([0.0, 1.0, 0.0], [0, 1, 2]);
    bytes.extend(floats(&[0.0, 0.0, 1.0, 0.0, 0.0, 1.0])); // 44: TEXCOORD_0
    bytes.extend(floats(&[0.5, 0.5, 0.75, 0.5, 0.5, 0.75])); // 68: TEXCOORD_1
    let document = |texture: &str, attributes: &str| {
        let rest = format!(
            r#""bufferViews":[{{"buffer":0,"byteLength":36}},{{"buffer":0,"byteOffset":36,"byteLength":6}},
      {{"buffer":0,"byteOffset":44,"byteLength":24}},{{"buffer":0,"byteOffset":68,"byteLength":24}}],
  "accessors":[{{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3"}},
               {{"bufferView":1,"componentType":5123,"count":3,"type":"SCALAR"}},
               {{"bufferView":2,"componentType":5126,"count":3,"type":"VEC2"}},
               {{"bufferView":3,"componentType":5126,"count":3,"type":"VEC2"}}],
  "textures":[{{}}],
  "materials":[{{"pbrMetallicRoughness":{{"baseColorTexture":{texture}}}}}],
  "meshes":[{{"primitives":[{{"attributes":{{"POSITION":0,{attributes}}},"indices":1,"material":0}}]}}],
  "nodes":[{{"mesh":0}}]"#
        );
        let asset = import(&with_buffer(&bytes, &rest)).unwrap();
        asset.meshes[0].uvs.clone().unwrap()
    };
    let both = r#""TEXCOORD_0":2,"TEXCOORD_1":3"#;
    let first = vec![[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]];
    let second = vec![[0.5, 0.5], [0.75, 0.5], [0.5, 0.75]];
    assert_eq!(document(r#"{"index":0}"#, both), first);
    assert_eq!(document(r#"{"index":0,"texCoord":1}"#, both), second);
    // The transform's own `texCoord` names the set, and the transform applies to it.
    let moved =
        r#"{"index":0,"extensions":{"KHR_texture_transform":{"offset":[1,2],"texCoord":1}}}"#;
    assert_eq!(
        document(moved, both),
        vec![[1.5, 2.5], [1.75, 2.5], [1.5, 2.75]]
    );
    // A set the primitive lacks: the first, and the transform meant for the other left out.
    assert_eq!(document(moved, r#""TEXCOORD_0":2"#), first);
}

/// Khronos' `TextureTransformTest.gltf`: a base colour texture's `KHR_texture_transform` was
/// accepted and dropped. It now moves the coordinates as the extension's matrices do
/// (translation · rotation · scale).
#[test]
fn a_base_colour_textures_transform_moves_the_texture_coordinates() {
    let mut bytes = triangle_bytes([0.0, 1.0, 0.0], [0, 1, 2]);
    bytes.extend(floats(&[0.0, 0.0, 1.0, 0.0, 0.0, 1.0])); // 44: TEXCOORD_0
    // The texture names no image: the transform is the material's all the same.
    let rest = r#""bufferViews":[{"buffer":0,"byteLength":36},{"buffer":0,"byteOffset":36,"byteLength":6},
      {"buffer":0,"byteOffset":44,"byteLength":24}],
  "accessors":[{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3"},
               {"bufferView":1,"componentType":5123,"count":3,"type":"SCALAR"},
               {"bufferView":2,"componentType":5126,"count":3,"type":"VEC2"}],
  "textures":[{}],
  "materials":[{"pbrMetallicRoughness":{"baseColorTexture":{"index":0,"extensions":
      {"KHR_texture_transform":{"offset":[0.5,0],"rotation":1.5707964,"scale":[2,1]}}}}}],
  "meshes":[{"primitives":[{"attributes":{"POSITION":0,"TEXCOORD_0":2},"indices":1,"material":0}]}],
  "nodes":[{"mesh":0}]"#;
    let asset = import(&with_buffer(&bytes, rest)).unwrap();
    let uvs = asset.meshes[0].uvs.as_ref().unwrap();
    // (u, v) ↦ (2u·cos r − v·sin r + 0.5, 2u·sin r + v·cos r) at a quarter turn.
    let expected = [[0.5, 0.0], [0.5, 2.0], [-0.5, 0.0]];
    for (uv, e) in uvs.iter().zip(expected) {
        assert!(
            (uv[0] - e[0]).abs() < 1e-6 && (uv[1] - e[1]).abs() < 1e-6,
            "{uvs:?}"
        );
    }
}

// ---------------------------------------------------------------------------------------
// Work and memory bounded by the file: small documents that name much (targets, nodes,
// skins, sets, files, images, channels) are read in time and memory their own size sets,
// or refused by a limit before the work is done.

/// A glTF of `bytes` (one data-URI buffer) and `rest`, with `views` and `accessors`.
fn document(bytes: &[u8], views: &str, accessors: &str, rest: &str) -> Vec<u8> {
    with_buffer(
        bytes,
        &format!(r#""bufferViews":[{views}],"accessors":[{accessors}],{rest}"#),
    )
}

/// `n` comma-separated copies of `item(i)`.
fn list(n: usize, item: impl Fn(usize) -> String) -> String {
    (0..n).map(item).collect::<Vec<_>>().join(",")
}

fn limit_of(err: &Error) -> Option<(&'static str, u64, u64)> {
    match err {
        Error::Limit { what, found, limit } => Some((what, *found, *limit)),
        _ => None,
    }
}

/// One primitive of `vertices` vertices (at 0.5, a displacement too) with `targets` targets
/// (each the JSON `target`), its node's weights animated from 0 to `last` seconds, every
/// weight `weight`.
fn morph_document(
    vertices: usize,
    targets: usize,
    target: &str,
    last: f32,
    weight: f32,
) -> Vec<u8> {
    let mut bytes = floats(&vec![0.5; 3 * vertices]);
    let times = bytes.len();
    bytes.extend(floats(&[0.0, last]));
    let weights = bytes.len();
    bytes.extend(floats(&vec![weight; 2 * targets]));
    document(
        &bytes,
        &format!(
            r#"{{"buffer":0,"byteLength":{times}}},{{"buffer":0,"byteOffset":{times},"byteLength":8}},
               {{"buffer":0,"byteOffset":{weights},"byteLength":{}}}"#,
            8 * targets
        ),
        &format!(
            r#"{{"bufferView":0,"componentType":5126,"count":{vertices},"type":"VEC3"}},
               {{"bufferView":1,"componentType":5126,"count":2,"type":"SCALAR","min":[0],"max":[{last}]}},
               {{"bufferView":2,"componentType":5126,"count":{},"type":"SCALAR"}}"#,
            2 * targets
        ),
        &format!(
            r#""meshes":[{{"primitives":[{{"attributes":{{"POSITION":0}},"targets":[{}]}}]}}],
               "nodes":[{{"mesh":0}}],
               "animations":[{{"channels":[{{"sampler":0,"target":{{"node":0,"path":"weights"}}}}],
                               "samplers":[{{"input":1,"output":2}}]}}]"#,
            list(targets, |_| target.into())
        ),
    )
}

#[test]
fn morph_targets_that_move_no_position_store_nothing() {
    // 30,000 vertices and 2,000 targets without POSITION: nothing a target and vertex, and
    // each frame of the weights animation displaces nothing.
    let (vertices, targets) = (30_000, 2_000);
    let json = morph_document(vertices, targets, "{}", 1.0, 1.0);
    let asset = gltf::from_slice(&json, None, &Options::default()).unwrap();
    let mesh = &asset.meshes[0];
    assert_eq!(mesh.positions.len(), vertices);
    assert_eq!(mesh.triangles.len(), vertices / 3);
    assert!(!mesh.targets.is_empty());
    for target in &mesh.targets {
        assert_eq!(target.positions.len(), vertices);
        assert!(target.positions.iter().flatten().all(|&d| d == 0.0));
    }
}

#[test]
fn primitives_shown_by_many_nodes_are_refused_past_the_limit() {
    // 300 nodes showing one mesh of 300 triangles' primitives: 90,000 primitives placed.
    let bytes = triangle_bytes([0.0, 1.0, 0.0], [0, 1, 2]);
    let views = r#"{"buffer":0,"byteLength":36}"#;
    let accessors = r#"{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3"}"#;
    let rest = format!(
        r#""meshes":[{{"primitives":[{}]}}],"nodes":[{}]"#,
        list(300, |_| r#"{"attributes":{"POSITION":0}}"#.into()),
        list(300, |_| r#"{"mesh":0}"#.into())
    );
    let err = import(&document(&bytes, views, accessors, &rest)).unwrap_err();
    let (what, found, limit) = limit_of(&err).unwrap();
    assert!(what.starts_with("primitives shown"), "{err}");
    assert_eq!(
        (found, limit),
        (gltf::MAX_PRIMITIVES + 1, gltf::MAX_PRIMITIVES)
    );

    // Two nodes showing a mesh named with 9 MiB: its name copied once a node.
    let name = "n".repeat(9 << 20);
    let rest = format!(
        r#""meshes":[{{"name":"{name}","primitives":[{{"attributes":{{"POSITION":0}}}}]}}],
           "nodes":[{{"mesh":0}},{{"mesh":0}}]"#
    );
    let err = import(&document(&bytes, views, accessors, &rest)).unwrap_err();
    let (what, found, limit) = limit_of(&err).unwrap();
    assert!(what.starts_with("bytes of mesh names"), "{err}");
    assert_eq!((found, limit), (18 << 20, gltf::MAX_NAME_BYTES));
}

#[test]
fn many_skins_over_many_nodes_are_checked_by_their_own_joints() {
    // 60,000 nodes under one root and as many skins, each of one node: every skin is checked
    // against its own joints, not against every node.
    let n = 60_000;
    let json = format!(
        r#"{{"asset":{{"version":"2.0"}},"nodes":[{{"children":[{}]}},{}],"skins":[{}]}}"#,
        list(n, |i| (i + 1).to_string()),
        list(n, |_| "{}".into()),
        list(n, |i| format!(r#"{{"joints":[{}]}}"#, i + 1))
    );
    let asset = import(json.as_bytes()).unwrap();
    let skeleton = asset.skeleton.as_ref().unwrap();
    assert_eq!(skeleton.joints.len(), n);
    // A skin listing a node twice is still named.
    let twice = r#"{"asset":{"version":"2.0"},"nodes":[{},{}],"skins":[{"joints":[1,0,1]}]}"#;
    let err = import(twice.as_bytes()).unwrap_err();
    assert!(
        matches!(&err, Error::Skin { index: 0, field: "joints", problem } if problem == "node 1 is listed twice"),
        "{err}"
    );
}

#[test]
fn thousands_of_influence_sets_are_found_by_name() {
    // One triangle with 20,000 JOINTS_n/WEIGHTS_n sets, all on the same two accessors, each
    // weighing joint 0: one influence a vertex.
    let sets = 20_000;
    let mut bytes = triangle_bytes([0.0, 1.0, 0.0], [0, 1, 2]);
    let joints = bytes.len();
    bytes.extend([0u8; 24]);
    let weights = bytes.len();
    bytes.extend(floats(&[0.25; 12]));
    let views = format!(
        r#"{{"buffer":0,"byteLength":36}},{{"buffer":0,"byteOffset":36,"byteLength":6}},
           {{"buffer":0,"byteOffset":{joints},"byteLength":24}},
           {{"buffer":0,"byteOffset":{weights},"byteLength":48}}"#
    );
    let accessors = r#"{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3"},
        {"bufferView":1,"componentType":5123,"count":3,"type":"SCALAR"},
        {"bufferView":2,"componentType":5123,"count":3,"type":"VEC4"},
        {"bufferView":3,"componentType":5126,"count":3,"type":"VEC4"}"#;
    let attributes = list(sets, |k| format!(r#""JOINTS_{k}":2,"WEIGHTS_{k}":3"#));
    let rest = format!(
        r#""meshes":[{{"primitives":[{{"attributes":{{"POSITION":0,{attributes}}},"indices":1}}]}}],
           "nodes":[{{"mesh":0,"skin":0}},{{}}],"skins":[{{"joints":[1]}}],"scenes":[{{"nodes":[0,1]}}]"#
    );
    let asset = import(&document(&bytes, &views, accessors, &rest)).unwrap();
    let influences = &asset.meshes[0].influences;
    for v in 0..3 {
        assert_eq!(influences.of(v).len(), 1, "vertex {v}");
        assert_eq!(influences.of(v)[0].1, 1.0);
    }
}

#[test]
fn buffers_naming_one_large_file_count_each_read() {
    let dir = tempfile::Builder::new()
        .prefix("skelmap-author-test-")
        .tempdir()
        .unwrap();
    let dir = dir.path();
    std::fs::write(dir.join("big.bin"), vec![0u8; 16 << 20]).unwrap();
    let buffers = |n: usize| {
        format!(
            r#"{{"asset":{{"version":"2.0"}},"buffers":[{}]}}"#,
            list(n, |_| r#"{"byteLength":4,"uri":"big.bin"}"#.into())
        )
    };
    // Three of them: read.
    std::fs::write(dir.join("three.gltf"), buffers(3)).unwrap();
    gltf::import(&dir.join("three.gltf"), &Options::default()).unwrap();
    // 65 of them read 1,040 MiB, past the 1 GiB the buffers may hold, though each declares
    // four bytes.
    std::fs::write(dir.join("many.gltf"), buffers(65)).unwrap();
    let err = gltf::import(&dir.join("many.gltf"), &Options::default()).unwrap_err();
    let (what, found, limit) = limit_of(&err).unwrap();
    assert_eq!(what, "bytes of buffers", "{err}");
    assert_eq!((found, limit), (65 << 24, gltf::MAX_FILE_BYTES));
}

/// An 8 × 8 JPEG.
fn jpeg() -> Vec<u8> {
    let mut out = Vec::new();
    let pixels: Vec<u8> = (0..8 * 8 * 3).map(|i| (i * 5) as u8).collect();
    image::codecs::jpeg::JpegEncoder::new(&mut out)
        .encode(&pixels, 8, 8, image::ExtendedColorType::Rgb8)
        .unwrap();
    out
}

#[test]
fn images_naming_the_same_bytes_are_decoded_once() {
    // A JPEG followed by 1 MiB (kept with it), shown by 200 images through 200 textures,
    // the images on `views` buffer views over those same bytes.
    let mut bytes = triangle_bytes([0.0, 1.0, 0.0], [0, 1, 2]);
    let at = bytes.len();
    bytes.extend(jpeg());
    bytes.resize(bytes.len() + (1 << 20), 0);
    let len = bytes.len() - at;
    let accessors = r#"{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3"}"#;
    let with = |views: usize| {
        let jpegs = list(views, |_| {
            format!(r#"{{"buffer":0,"byteOffset":{at},"byteLength":{len}}}"#)
        });
        let rest = format!(
            r#""meshes":[{{"primitives":[{{"attributes":{{"POSITION":0}},"material":0}}]}}],
               "nodes":[{{"mesh":0}}],
               "materials":[{}],"textures":[{}],"images":[{}]"#,
            list(200, |i| format!(
                r#"{{"pbrMetallicRoughness":{{"baseColorTexture":{{"index":{i}}}}}}}"#
            )),
            list(200, |i| format!(r#"{{"source":{i}}}"#)),
            list(200, |i| format!(
                r#"{{"bufferView":{},"mimeType":"image/jpeg"}}"#,
                1 + i % views
            ))
        );
        let views = format!(r#"{{"buffer":0,"byteLength":36}},{jpegs}"#);
        import(&document(&bytes, &views, accessors, &rest))
    };
    let asset = with(1).unwrap();
    assert_eq!(asset.images.len(), 1);
    assert!(asset.materials.iter().all(|m| m.image == Some(0)));
    assert_eq!(asset.images[0].jpeg.as_ref().map(Vec::len), Some(len));
    let asset = with(2).unwrap();
    assert_eq!(asset.images.len(), 2);
    assert!((0..200).all(|i| asset.materials[i].image == Some(i % 2)));
    // On 70 views, 70 decodes keep 70 MiB of JPEG files: past the images' 64 MiB.
    let err = with(70).unwrap_err();
    let (what, _, limit) = limit_of(&err).unwrap();
    assert_eq!(what, "bytes of decoded images and kept JPEG files", "{err}");
    assert_eq!(limit, gltf::MAX_IMAGE_BYTES);
}

#[test]
fn morph_frames_are_refused_past_the_blends_they_cost() {
    // 999 vertices, 3,000 targets sharing one displacement, over 100 frames: 300 million
    // displacements added, past the limit, though the file is small.
    let json = morph_document(999, 3_000, r#"{"POSITION":0}"#, 99.0, 0.5);
    let options = Options {
        fps: Some(1.0),
        ..Options::default()
    };
    let err = gltf::from_slice(&json, None, &options).unwrap_err();
    let (what, found, limit) = limit_of(&err).unwrap();
    assert!(what.starts_with("morph blends"), "{err}");
    assert_eq!((found, limit), (100 * 999 * 3_001, gltf::MAX_MORPH_BLENDS));
}

#[test]
fn a_weights_channel_counts_a_sample_a_target() {
    // 1,000 targets on one triangle, driven by 400 channels of 100 frames: 40 million
    // weights sampled, past the limit, from 40,000 channel samples.
    let targets = 1_000;
    let mut bytes = triangle_bytes([0.0, 1.0, 0.0], [0, 1, 2]);
    let times = bytes.len();
    bytes.extend(floats(&[0.0, 99.0]));
    let weights = bytes.len();
    bytes.extend(floats(&vec![0.5; 2 * targets]));
    let json = document(
        &bytes,
        &format!(
            r#"{{"buffer":0,"byteLength":36}},{{"buffer":0,"byteOffset":36,"byteLength":6}},
               {{"buffer":0,"byteOffset":{times},"byteLength":8}},
               {{"buffer":0,"byteOffset":{weights},"byteLength":{}}}"#,
            8 * targets
        ),
        &format!(
            r#"{{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3"}},
               {{"bufferView":1,"componentType":5123,"count":3,"type":"SCALAR"}},
               {{"bufferView":2,"componentType":5126,"count":2,"type":"SCALAR","min":[0],"max":[99]}},
               {{"bufferView":3,"componentType":5126,"count":{},"type":"SCALAR"}}"#,
            2 * targets
        ),
        &format!(
            r#""meshes":[{{"primitives":[{{"attributes":{{"POSITION":0}},"indices":1,"targets":[{}]}}]}}],
               "nodes":[{{"mesh":0}}],
               "animations":[{{"channels":[{}],"samplers":[{{"input":2,"output":3}}]}}]"#,
            list(targets, |_| r#"{"POSITION":0}"#.into()),
            list(400, |_| {
                r#"{"sampler":0,"target":{"node":0,"path":"weights"}}"#.into()
            })
        ),
    );
    let options = Options {
        fps: Some(1.0),
        ..Options::default()
    };
    let err = gltf::from_slice(&json, None, &options).unwrap_err();
    let (what, found, limit) = limit_of(&err).unwrap();
    assert!(what.starts_with("morph weights sampled"), "{err}");
    assert_eq!((found, limit), (100 * 400 * 1_000, gltf::MAX_MORPH_VALUES));
}

#[test]
fn a_long_vertex_animation_comes_back_from_its_one_hot_weights() {
    // A Quake model of 2,000 frames exported (a target a frame, each frame weighing one) and
    // read back: its frames weigh one target each, so shaping them costs a vertex each.
    let pose = |i: usize| skelmap_core::quake::write::FrameDef {
        name: format!("f{i}").into(),
        vertices: vec![([0, 0, (i % 250) as u8], 0), ([9, 0, 0], 0), ([0, 9, 0], 0)],
    };
    let bytes = skelmap_core::quake::Builder {
        frames: (0..2_000)
            .map(|i| skelmap_core::quake::write::FrameEntry::Single(pose(i)))
            .collect(),
        ..skelmap_core::quake::Builder::triangle()
    }
    .write();
    let model = Model::from_bytes(&bytes).unwrap();
    let asset = model.to_asset(&asset::Options::default()).unwrap();
    let back = import(&glb_of(&asset)).unwrap();
    assert_eq!(back.meshes[0].targets.len(), 2_000);
}
