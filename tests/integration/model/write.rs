//! `model::write`, the one way to write any format: numbers a writer's arithmetic would
//! overflow refused before any writer runs, meshes that draw nothing left out where a format
//! needs something to draw, and nothing handed out that does not open again. The regressions
//! are the `write` fuzz target's first finds, on its seeds.

use std::path::Path;

use skelmap::asset::{Asset, FitError, MAX_COORDINATE, Options, WriteError, WriteOptions};
use skelmap::{Format, Model};

fn seed(path: &str) -> Vec<u8> {
    std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fuzz/seeds")
            .join(path),
    )
    .unwrap()
}

fn asset_of(bytes: &[u8]) -> Asset {
    Model::from_bytes(bytes)
        .unwrap()
        .to_asset(&Options::default())
        .unwrap()
}

fn writable() -> impl Iterator<Item = Format> {
    Format::ALL.iter().copied().filter(|f| f.writable())
}

/// Writes `asset` in every writable format; each either opens again or is refused as not
/// fitting; returns the refusals' texts by format.
fn every_format(asset: &Asset) -> Vec<(Format, FitError)> {
    let mut refused = Vec::new();
    for format in writable() {
        match skelmap::model::write(format, asset, &WriteOptions::bake(true)) {
            Ok(_) => {}
            Err(WriteError::Fit(e)) => refused.push((format, e)),
            Err(e) => panic!("{format}: {e}"),
        }
    }
    refused
}

/// Models whose numbers reach past `f32` once a writer turns, scales, skins or squares them:
/// a Quake vertex at x = −f32::MAX (its grid's scale was infinite), an MS3D joint 1e31 units
/// away (its skinned bounds and radius), a Half-Life bone whose bind transform takes a vertex
/// to 3e38, an IQM joint scaled by a subnormal (its inverse bind). Every writer wrote infinities or NaN
/// into a file none of skelmap's readers open; now each is refused, naming what is too far.
#[test]
fn numbers_a_writer_would_overflow_used_to_be_written_as_infinities() {
    for (path, names) in [
        (
            "export/crash-export-huge-coordinate-turned-up.mdl",
            "vertex 0 of mesh 0",
        ),
        ("probe_any/regress-far-joint.ms3d", "joint"),
        ("hl1/regress-bind-overflow.mdl", "vertex 0 of mesh 0"),
        ("iqm/regress-joint-scale-denormal.iqm", "joint"),
    ] {
        let asset = asset_of(&seed(path));
        let refused = every_format(&asset);
        assert_eq!(refused.len(), writable().count(), "{path}");
        for (format, e) in refused {
            assert!(
                e.what.starts_with(names) && e.limit.contains("±1e6"),
                "{path}, {format}: {e}"
            );
        }
    }
}

#[test]
fn a_coordinate_past_the_limit_is_named_and_one_within_it_written() {
    let bytes = skelmap::synth::tube(&Default::default()).write().unwrap();
    let mut asset = asset_of(&bytes);
    asset.meshes[0].positions[5] = [0.0, MAX_COORDINATE, 0.0];
    assert!(asset.refuse_out_of_range("DPM").is_ok());
    skelmap::model::write(Format::Dpm, &asset, &WriteOptions::default()).unwrap();
    asset.meshes[0].positions[5][1] = -1.5e6;
    let e = asset.refuse_out_of_range("DPM").unwrap_err();
    assert_eq!(e.what, "vertex 5 of mesh 0 at 1.5e6 units");
    // A joint moved that far in one frame.
    let mut asset = asset_of(&bytes);
    let skelmap::asset::ClipKeys::Joints(frames) = &mut asset.clips[1].keys else {
        panic!("joint keys");
    };
    frames[2][0].translation.x = 3e6;
    let e = asset.refuse_out_of_range("IQM").unwrap_err();
    assert_eq!(
        e.what,
        "joint 'root' in frame 3 at 3e6 (a place or a scale)"
    );
}

/// A skeleton alone (an MDX, an SL animation) has nothing a DPM, SKM, ZYM, MD2, Quake or
/// MDL5 file can draw: each wrote a header of zero meshes or vertices, which its reader
/// refuses; now each says so. IQM, MD5, glTF's formats of joints without meshes write it.
#[test]
fn a_skeleton_alone_used_to_be_written_as_a_file_of_nothing() {
    let mdx = skelmap::mdm::Builder::triangle().write_mdx();
    let asset = asset_of(&mdx);
    assert!(asset.meshes.is_empty());
    let refused: Vec<Format> = every_format(&asset)
        .into_iter()
        .filter(|(_, e)| e.what == "no triangles")
        .map(|(f, _)| f)
        .collect();
    let need = [
        Format::Dpm,
        Format::Skm,
        Format::Zym,
        Format::Md2,
        Format::Quake,
        Format::Mdl,
    ];
    for format in need {
        assert!(refused.contains(&format), "{format}: {refused:?}");
    }
    for format in [Format::Iqm, Format::Md5] {
        skelmap::model::write(format, &asset, &WriteOptions::default()).unwrap();
    }
}

/// A mesh without vertices or triangles beside one that draws is left out, in words.
#[test]
fn a_mesh_that_draws_nothing_is_left_out_in_words() {
    let bytes = skelmap::synth::tube(&Default::default()).write().unwrap();
    let mut asset = asset_of(&bytes);
    let mut empty = asset.meshes[0].clone();
    empty.positions.clear();
    empty.normals.clear();
    empty.uvs = None;
    empty.triangles.clear();
    empty.influences = Default::default();
    asset.meshes.push(empty);
    let written = skelmap::model::write(Format::Dpm, &asset, &WriteOptions::default()).unwrap();
    assert!(
        written
            .notes
            .contains(&"1 meshes without vertices or triangles are left out".to_string()),
        "{:?}",
        written.notes
    );
    let again = Model::from_bytes(&written.files[0].bytes).unwrap();
    assert_eq!(again.num_meshes(), 1);
}

/// The `write` fuzz target's first find in the writers themselves
/// (`fuzz/seeds/write/crash-write-mdl7-collapsed-parent.iqm`): an IQM whose spine is keyed to
/// scale 0 in every frame (IQM animations hide parts so). MDL7 inverted the spine's skinning
/// matrix for the head's motion and SL took the spine's rotation from its scaled matrix: NaN
/// in both files. Now every format writes it or refuses it in words (`every_format` fails on
/// anything else), and MDL7 and SL write it.
#[test]
fn a_joint_scaled_to_nothing_used_to_be_written_as_nan_by_mdl7_and_sl() {
    let asset = crate::support::iqm::demo_spine_collapsed();
    let refused: Vec<Format> = every_format(&asset).into_iter().map(|(f, _)| f).collect();
    assert!(!refused.contains(&Format::Mdl7) && !refused.contains(&Format::SlMdl));
}

/// The `write` fuzz target's second find (`fuzz/seeds/write/crash-write-unbound-vertex.mdr`):
/// a vertex bound to no joint (`asset::UNBOUND`, as a glTF's vertex of zero weights is)
/// became a ZYM vertex and a PSK weight of bone 65535, which neither reader opens. Then both
/// bound it to bone 0, which moves it; now every format whose vertices each follow a bone
/// binds it to a joint added at the origin (`Asset::with_still_joint`), says so, and draws
/// it where it was in every frame.
#[test]
fn a_vertex_bound_to_no_joint_used_to_name_bone_65535() {
    let bytes = skelmap::synth::tube(&Default::default()).write().unwrap();
    let mut asset = asset_of(&bytes);
    let mut influences = skelmap::asset::Influences::default();
    let mesh = &mut asset.meshes[0];
    for v in 0..mesh.positions.len() {
        let kept = if v == 3 {
            vec![(skelmap::asset::UNBOUND, 1.0)]
        } else {
            mesh.influences.of(v).to_vec()
        };
        influences.push(kept.into_iter(), 0);
    }
    mesh.influences = influences;
    assert!(every_format(&asset).is_empty());
    let note = "1 vertices bound to no joint are weighted to the joint \"origin\", added at the \
                origin and never animated, so that they stay where they are";
    for format in [
        Format::Zym,
        Format::Psk,
        Format::Iqm,
        Format::Dpm,
        Format::Mdr,
    ] {
        let (error, notes) = skelmap_testkit::write::written_error(&asset, format);
        assert!(notes.iter().any(|n| n == note), "{format}: {notes:?}");
        // ZYM keeps one bone a vertex, and says so.
        assert!(
            format == Format::Zym || error.max < 1e-3,
            "{format}: {error}"
        );
    }
}

/// A glTF of points or lines alone (Khronos' `Mesh_PrimitiveMode_00.gltf`) imports as an
/// asset of nothing, which IQM wrote as an empty file with no word. Nothing is refused.
#[test]
fn an_asset_of_nothing_is_refused() {
    let bytes = skelmap::synth::tube(&Default::default()).write().unwrap();
    let mut asset = asset_of(&bytes);
    asset.meshes.clear();
    asset.skeleton = None;
    asset.clips.clear();
    for format in writable() {
        match skelmap::model::write(format, &asset, &WriteOptions::bake(true)) {
            Err(WriteError::Fit(e)) => {
                assert_eq!(
                    e.what, "an empty model (no vertex, joint, tag or animation)",
                    "{format}"
                )
            }
            other => panic!("{format}: {:?}", other.map(|w| w.files.len())),
        }
    }
}

/// Khronos' `many-cubes.gltf`: 501 meshes. IQM, DPM and MD5 wrote them and then refused to
/// read them back ("over the limit of 256"): a default limit a real file exceeds is a bug.
#[test]
fn a_model_of_five_hundred_meshes_is_written_and_read() {
    let bytes = skelmap::synth::tube(&Default::default()).write().unwrap();
    let mut asset = asset_of(&bytes);
    let mesh = asset.meshes[0].clone();
    asset.meshes = vec![mesh; 501];
    for format in [Format::Iqm, Format::Dpm, Format::Md5] {
        let (error, _) = skelmap_testkit::write::written_error(&asset, format);
        assert_eq!(
            error.vertices,
            501 * asset.meshes[0].positions.len(),
            "{format}"
        );
    }
}

/// The `write` fuzz target's third find (`fuzz/seeds/write/crash-write-mdm-far-own-key.mdr`):
/// an MDR whose asset holds a joint's own key 2.5e38 units out while its bind transform is
/// at the origin, and no frame. The range check read the bind transforms and the frames;
/// the MDM writer, for an asset without frames, writes the joints' own keys, and its frame's
/// radius overflowed. The joints' own keys are checked too.
#[test]
fn a_far_own_key_used_to_give_an_infinite_mdx_radius() {
    let bytes = skelmap::synth::tube(&Default::default()).write().unwrap();
    let mut asset = asset_of(&bytes);
    asset.clips.clear();
    asset.skeleton.as_mut().unwrap().joints[0].translation.x = -2.5e38;
    let e = asset.refuse_out_of_range("MDM").unwrap_err();
    assert_eq!(
        e.what,
        "joint 'root' at the asset's frame at 2.5e38 (a place or a scale)"
    );
    assert_eq!(every_format(&asset).len(), writable().count());
    let seeded = asset_of(&seed("write/crash-write-mdm-far-own-key.mdr"));
    assert_eq!(every_format(&seeded).len(), writable().count());
}
