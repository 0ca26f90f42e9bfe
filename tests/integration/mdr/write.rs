//! The MDR writer (`mdr::Builder::from_asset`, through the write dispatch): a DPM, an IQM and
//! an MDR written as MDR and read back with every frame where the source puts it, clips back
//! from the frame names and the `.framegroups` beside it, attachments as tags, and what it
//! says it lost.

use skelmap::asset::{Place, WriteOptions, Written};
use skelmap::model::convert::{self, Posed};
use skelmap::{Format, Model};

/// `model` converted and written as MDR through the write dispatch.
fn mdr_of(model: &Model<'_>) -> Written {
    let asset = convert::asset_of(model).unwrap();
    skelmap::model::write(Format::Mdr, &asset, &WriteOptions::default()).unwrap()
}

#[test]
fn a_dpm_written_as_mdr_skins_the_same_at_every_frame() {
    let bytes = skelmap::synth::tube(&Default::default()).write().unwrap();
    let source = Model::from_bytes(&bytes).unwrap();
    let written = mdr_of(&source);
    assert_eq!(written.format, Format::Mdr);
    assert_eq!(
        written
            .files
            .iter()
            .map(|f| f.place.clone())
            .collect::<Vec<_>>(),
        [Place::Main, Place::Suffix(".framegroups")]
    );
    assert!(
        written
            .notes
            .iter()
            .any(|n| n.contains("hierarchy and names of 4 joints")),
        "{:?}",
        written.notes
    );
    let (files, main) = crate::support::written_folder(&written, "mdr");
    let mdr = Model::resolve(&&files, &main, &skelmap::Limits::DEFAULT).unwrap();
    assert_eq!(mdr.format(), Format::Mdr);
    assert_eq!(
        (mdr.num_frames(), mdr.num_meshes(), mdr.num_bones()),
        (
            source.num_frames(),
            source.num_meshes(),
            source.num_bones() + source.num_attachments()
        )
    );
    // The attachment comes back as a tag on a bone of its own, placed as the source places it.
    let tags = convert::attachment_error(&source, &mdr, 0).expect("an attachment");
    assert_eq!((tags.source, tags.kept), (1, 1));
    assert!(tags.origin <= 1e-5 && tags.angle <= 1e-3, "{tags:?}");
    let clips = |m: &Model<'_>| {
        m.clips()
            .iter()
            .map(|c| (c.name.clone(), c.first, c.count))
            .collect::<Vec<_>>()
    };
    assert_eq!(clips(&mdr), clips(&source));
    let error = convert::skinning_error(Posed::Model(&source), Posed::Model(&mdr), 0);
    assert_eq!(error.frames, source.num_frames());
    assert!(error.max <= 1e-5 * error.size, "{error}");
    // Plain frames hold the matrices exactly; compressed ones to ioquake3's 16 bits.
    let asset = convert::asset_of(&source).unwrap();
    let mut b = skelmap::mdr::Builder::from_asset(&asset).unwrap().builder;
    b.compressed = true;
    let bytes = b.write();
    let compressed = Model::from_bytes(&bytes).unwrap();
    let error = convert::skinning_error(Posed::Model(&source), Posed::Model(&compressed), 0);
    assert!(error.max <= 1e-2 * error.size, "{error}");
}

#[test]
fn an_iqm_written_as_mdr_skins_the_same_and_says_what_it_lost() {
    use skelmap::synth::{CharacterParams, iqm_character};
    let params = CharacterParams {
        sides: 3,
        frames: 3,
        scaled_joints: 0,
    };
    let bytes = iqm_character(&params).model.write().unwrap();
    let source = Model::from_bytes(&bytes).unwrap();
    let written = mdr_of(&source);
    let mdr = Model::from_bytes(&written.files[0].bytes).unwrap();
    let error = convert::skinning_error(Posed::Model(&source), Posed::Model(&mdr), 0);
    assert!(error.max <= 1e-5 * error.size, "{error}");
    // An IQM flags no joint as an attachment in its asset: no tag, one bone a joint.
    assert_eq!((mdr.num_bones(), mdr.num_tags()), (source.num_bones(), 0));
    assert!(
        written
            .notes
            .iter()
            .any(|n| n.contains("hierarchy and names of 80 joints")),
        "{:?}",
        written.notes
    );
    // The demo's head scales: MDR's matrices hold it, and the reader gives it back.
    let demo = crate::support::iqm::demo().write().unwrap();
    let demo = Model::from_bytes(&demo).unwrap();
    let written = mdr_of(&demo);
    let again = Model::from_bytes(&written.files[0].bytes).unwrap();
    let error = convert::skinning_error(Posed::Model(&demo), Posed::Model(&again), 0);
    assert_eq!(error.frames, demo.num_frames());
    assert!(error.max <= 1e-5 * error.size, "{error}");
    assert!(
        !written
            .notes
            .iter()
            .any(|n| n.contains("scale") || n.contains("shear")),
        "{:?}",
        written.notes
    );
}

/// A joint scaled unevenly under a turned one shears its bone's matrix, which a turn and a
/// scale along the bone's axes cannot give back: the writer counts those frames.
#[test]
fn frames_that_shear_a_bone_are_counted_in_the_notes() {
    use skelmap::asset::ClipKeys;
    use skelmap::glam::{Quat, Vec3};
    let bytes = skelmap::synth::tube(&Default::default()).write().unwrap();
    let mut asset = convert::asset_of(&Model::from_bytes(&bytes).unwrap()).unwrap();
    let ClipKeys::Joints(frames) = &mut asset.clips[0].keys else {
        panic!("a skeletal clip");
    };
    let sheared = frames.len();
    for keys in frames.iter_mut() {
        keys[0].scale = Vec3::new(2.0, 1.0, 1.0);
        keys[1].rotation = Quat::from_rotation_z(0.7) * keys[1].rotation;
    }
    let fitted = skelmap::mdr::Builder::from_asset(&asset).unwrap();
    let want = format!("{sheared} frames shear a bone");
    assert!(
        fitted.losses.iter().any(|n| n.starts_with(&want)),
        "{want}: {:?}",
        fitted.losses
    );
}

/// An MDR whose weights agree on each vertex's place in frame 0 (the builder's triangle)
/// comes back the same model; the animated fixture, whose first vertex of its second surface
/// has weights that do not agree, comes back as its asset holds it (one place a vertex).
#[test]
fn an_mdr_written_again_is_the_same_model() {
    let bytes = skelmap::mdr::Builder::triangle().write();
    let source = Model::from_bytes(&bytes).unwrap();
    let written = mdr_of(&source);
    let (files, main) = crate::support::written_folder(&written, "mdr");
    let again = Model::resolve(&&files, &main, &skelmap::Limits::DEFAULT).unwrap();
    let error = convert::skinning_error(Posed::Model(&source), Posed::Model(&again), 0);
    assert_eq!(error.frames, 2);
    assert!(error.max <= 1e-5 * error.size, "{error}");
    let tags = convert::attachment_error(&source, &again, 0).expect("a tag");
    assert_eq!((tags.source, tags.kept), (1, 1));
    assert!(tags.origin <= 1e-5 && tags.angle <= 1e-3, "{tags:?}");
    let bytes = super::animated().write();
    let source = Model::from_bytes(&bytes).unwrap();
    let asset = convert::asset_of(&source).unwrap();
    let written = skelmap::model::write(Format::Mdr, &asset, &WriteOptions::default()).unwrap();
    let again = Model::from_bytes(&written.files[0].bytes).unwrap();
    let error = convert::skinning_error(Posed::Asset(&asset), Posed::Model(&again), 0);
    assert!(error.max <= 1e-5 * error.size, "{error}");
}

#[test]
fn names_too_long_for_their_fields_are_refused() {
    let bytes = skelmap::synth::tube(&Default::default()).write().unwrap();
    let mut asset = convert::asset_of(&Model::from_bytes(&bytes).unwrap()).unwrap();
    asset.meshes[0].name = "m".repeat(64);
    let e = skelmap::mdr::Builder::from_asset(&asset).unwrap_err();
    assert!(e.to_string().contains("64 bytes"), "{e}");
}

/// A mesh past ioquake3's 999 vertices a surface is written as several surfaces that draw the
/// same at every frame; a name too long for the suffix is cut for it.
#[test]
fn a_mesh_past_ioquake3_s_surface_limits_is_split_and_draws_the_same() {
    use skelmap::synth::{TubeParams, tube};
    // 41 rings of 32: 1312 vertices, 2560 triangles (past 999 and 1999).
    let params = TubeParams {
        rings_per_bone: 10,
        sides: 32,
        ..Default::default()
    };
    let source = tube(&params).write().unwrap();
    let source = Model::from_bytes(&source).unwrap();
    assert_eq!(
        (source.num_vertices(), source.num_triangles()),
        (1312, 2560)
    );
    let mut asset = convert::asset_of(&source).unwrap();
    asset.meshes[0].name = "n".repeat(63);
    let fitted = skelmap::mdr::Builder::from_asset(&asset).unwrap();
    let name = "n".repeat(63);
    assert_eq!(
        fitted.losses[1..],
        [
            format!(
                "mesh '{name}' (1312 vertices, 2560 triangles) is past ioquake3's 999 \
                 vertices or 1999 triangles a surface: written as 2 surfaces"
            ),
            format!(
                "the surface name \"{name}\" is 63 bytes: cut to 61, as an MDR's 62-byte \
                 field holds it with its NUL"
            ),
        ]
    );
    let bytes = fitted.builder.write();
    let mdr = <skelmap::mdr::Mdr as skelmap::Parse>::parse(&bytes).unwrap();
    let surfaces: Vec<(usize, usize, Vec<u8>)> = mdr.lods()[0]
        .surfaces()
        .iter()
        .map(|s| (s.num_vertices(), s.num_triangles(), s.name().to_vec()))
        .collect();
    // The first surface takes triangles in order while their vertices fit, to 999; the
    // second copies the 34 vertices it shares with the first at the cut.
    let mut cut = "n".repeat(61).into_bytes();
    cut.extend_from_slice(b"_2");
    assert_eq!(
        surfaces,
        [(999, 1932, "n".repeat(63).into_bytes()), (347, 628, cut)]
    );
    assert!(surfaces.iter().all(|&(v, t, _)| v <= 999 && t <= 1999));
    let model = Model::from_bytes(&bytes).unwrap();
    assert_eq!(model.num_triangles(), 2560);
    let error = convert::skinning_error(Posed::Model(&source), Posed::Model(&model), 0);
    assert_eq!(error.frames, source.num_frames());
    assert!(error.max <= 1e-5 * error.size, "{error}");
}
