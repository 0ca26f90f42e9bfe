//! `mdl7::Builder::from_asset` and its `asset::Writer`: skeletal fixtures of other formats
//! (the DPM tube, the IQM demo, the MS3D arm) and MDL7's own (the demo, the mixed model)
//! written as MDL7 through `model::write`, reopened, and compared frame by frame with their
//! source; what MDL7 cannot keep, in the writer's notes; what it refuses.

use skelmap::asset::{Asset, Influences, JointKey, WriteError, WriteOptions};
use skelmap::core::mdl7::Builder;
use skelmap::glam::{Affine3A, Quat, Vec3};
use skelmap::model::convert::{self, Posed, SkinningError};
use skelmap::{Format, Model};

/// `asset` written as MDL7 through the write dispatch: the one file's bytes and the notes.
fn through(asset: &Asset) -> (Vec<u8>, Vec<String>) {
    let written = skelmap::model::write(Format::Mdl7, asset, &WriteOptions::default()).unwrap();
    assert_eq!(written.format, Format::Mdl7);
    assert_eq!(written.files.len(), 1);
    assert_eq!(written.first_frame, 0);
    let bytes = written.files.into_iter().next().unwrap().bytes;
    (bytes, written.notes)
}

fn asset_of(bytes: &[u8]) -> Asset {
    convert::asset_of(&Model::from_bytes(bytes).unwrap()).unwrap()
}

/// Every frame of `written` against the same frame of `asset`, relative to its size.
fn error(asset: &Asset, written: &Model<'_>) -> SkinningError {
    convert::skinning_error(Posed::Asset(asset), Posed::Model(written), 0)
}

const CLIPS_BY_NAME: &str =
    "MDL7 frames carry names, not clips: the clips come back from the names at 10 fps, looping";

#[test]
fn dpm_tube_keeps_bones_frames_clips_and_every_position() {
    let source = skelmap::synth::tube(&Default::default()).write().unwrap();
    let asset = asset_of(&source);
    let (bytes, notes) = through(&asset);
    let model = Model::from_bytes(&bytes).unwrap();
    assert_eq!(model.format(), Format::Mdl7);
    assert!(model.diagnostics().is_empty(), "{:?}", model.diagnostics());
    let clips: Vec<(&str, u32, u32)> = model
        .clips()
        .iter()
        .map(|c| (c.name.as_str(), c.first, c.count))
        .collect();
    assert_eq!(clips, [("bind", 0, 1), ("wave", 1, 8)]);
    assert_eq!(
        (model.num_bones(), model.num_frames()),
        (4, 9),
        "bones, frames"
    );
    assert_eq!(
        (model.num_vertices(), model.num_triangles()),
        (asset.num_vertices(), asset.num_triangles())
    );
    // The tube's joints have no bind rotation and its clips are DarkPlaces' own: nothing lost.
    assert_eq!(notes, Vec::<String>::new());
    let e = error(&asset, &model);
    assert_eq!((e.frames, e.vertices), (9, asset.num_vertices()));
    assert!(e.max <= 1e-6, "{e}");
}

/// A bind rotation of 3·10⁻⁴ rad is one MDL7 cannot keep, and the notes say so: measured as
/// an angle that is exact for small turns, not through `acos`, whose first step in `f32`
/// (7·10⁻⁴ rad for a quaternion) read it as none.
#[test]
fn a_bind_rotation_below_a_thousandth_of_a_radian_is_named() {
    let source = skelmap::synth::tube(&Default::default()).write().unwrap();
    let mut asset = asset_of(&source);
    let joint = &mut asset.skeleton.as_mut().unwrap().joints[1];
    joint.world *= Affine3A::from_quat(Quat::from_rotation_z(3e-4));
    let (_, notes) = through(&asset);
    assert_eq!(
        notes,
        [
            "1 joints have a bind rotation; MDL7 bones have none, so their orientation is not \
          kept (the frames move the vertices as the asset does)"
        ]
    );
}

#[test]
fn iqm_demo_says_its_scale_is_lost_and_measures_it() {
    let asset = asset_of(&skelmap::iqm::Builder::demo().write().unwrap());
    let (bytes, notes) = through(&asset);
    assert_eq!(
        notes,
        [
            CLIPS_BY_NAME,
            "3 frames scale a joint; MDL7 readers take a transformation's rotation, so those \
             frames differ (IQM keeps scale)"
        ]
    );
    let model = Model::from_bytes(&bytes).unwrap();
    assert_eq!((model.num_bones(), model.num_frames()), (3, 4));
    // The head's X scale (up to 1.5) is what is lost: 13% of the demo's size at worst.
    let e = error(&asset, &model);
    assert!(e.max > 0.1 && e.max < 0.2, "{e}");
}

/// The `write` fuzz target's first find in a writer (`fuzz/seeds/write/crash-write-mdl7-
/// collapsed-parent.iqm`): an IQM whose spine is keyed to scale 0 in every frame. A bone's
/// MDL7 motion is its parent's skinning matrix inverted times its own, and a matrix scaled to
/// nothing has no inverse: the head's motions were NaN, which no MDL7 reader opens. Now the
/// parent's rotation and place alone are undone there (MDL7 readers drop scale anyway).
#[test]
fn a_parent_scaled_to_nothing_used_to_give_its_children_nan_motions() {
    let asset = crate::support::iqm::demo_spine_collapsed();
    let (bytes, _) = through(&asset);
    let model = Model::from_bytes(&bytes).unwrap();
    assert_eq!((model.num_bones(), model.num_frames()), (3, 4));
    // The head, below the spine, turns with it as the asset turns it.
    let mut pose = skelmap::model::Pose::default();
    for frame in 0..4 {
        model
            .pose(frame, frame, 0.0, Default::default(), &mut pose)
            .unwrap();
        let head = pose.palette().bone_world(2).unwrap();
        assert!(head.is_finite(), "frame {frame}");
    }
}

#[test]
fn ms3d_arm_keeps_its_frames_and_says_its_bind_rotations_go() {
    let asset = asset_of(&crate::support::ms3d::arm().write().unwrap());
    let (bytes, notes) = through(&asset);
    assert_eq!(
        notes,
        [
            CLIPS_BY_NAME,
            "2 joints have a bind rotation; MDL7 bones have none, so their orientation is not \
             kept (the frames move the vertices as the asset does)"
        ]
    );
    let model = Model::from_bytes(&bytes).unwrap();
    let e = error(&asset, &model);
    assert_eq!((e.frames, e.vertices), (25, 4));
    assert!(e.max <= 1e-6, "{e}");
}

#[test]
fn mdl7_demo_and_mixed_come_back_with_their_skins_and_replaced_vertices() {
    for (name, b, frames) in [("demo", Builder::demo(), 4), ("mixed", Builder::mixed(), 6)] {
        let asset = asset_of(&b.write());
        let (bytes, notes) = through(&asset);
        assert_eq!(notes, Vec::<String>::new(), "{name}");
        let model = Model::from_bytes(&bytes).unwrap();
        assert_eq!(
            (model.num_bones(), model.num_frames()),
            (3, frames),
            "{name}"
        );
        let e = error(&asset, &model);
        assert_eq!(e.frames, frames, "{name}");
        assert!(e.max <= 1e-6, "{name}: {e}");
        let again = convert::asset_of(&model).unwrap();
        // The external name stays a name; the 8×8 RGB565 skin comes back as the same texels.
        let textures = |a: &Asset| -> Vec<(Option<String>, Option<Vec<u8>>)> {
            let image = |i: usize| a.images.get(i).map(|i| i.rgba.clone());
            a.materials
                .iter()
                .map(|m| (m.texture_file(), m.image.and_then(image)))
                .collect()
        };
        let want = textures(&asset);
        assert_eq!(want[0], (Some("demo.tga".to_string()), None));
        assert_eq!(want[1].1.as_ref().map(Vec::len), Some(8 * 8 * 4));
        assert_eq!(textures(&again), want, "{name}");
    }
}

#[test]
fn more_than_eight_influences_keep_the_eight_that_err_least() {
    let mut asset = asset_of(&skelmap::synth::tube(&Default::default()).write().unwrap());
    // Six more joints under the root, resting where it rests, so that vertex 0 can name ten.
    let skeleton = asset.skeleton.as_mut().unwrap();
    for k in 0..6 {
        skeleton.joints.push(skelmap::asset::Joint {
            name: format!("extra{k}"),
            parent: Some(0),
            rotation: Quat::IDENTITY,
            translation: Vec3::ZERO,
            scale: Vec3::ONE,
            world: skeleton.joints[0].world * Affine3A::IDENTITY,
        });
    }
    for clip in &mut asset.clips {
        if let skelmap::asset::ClipKeys::Joints(frames) = &mut clip.keys {
            for keys in frames {
                keys.extend(
                    [JointKey {
                        rotation: Quat::IDENTITY,
                        translation: Vec3::ZERO,
                        scale: Vec3::ONE,
                    }; 6],
                );
            }
        }
    }
    let mesh = &mut asset.meshes[0];
    let mut influences = Influences::default();
    for v in 0..mesh.positions.len() {
        if v == 0 {
            influences.push((0..10u16).map(|j| (j, 1.0 + f32::from(j))), 0);
        } else {
            influences.push(mesh.influences.of(v).iter().copied(), 0);
        }
    }
    mesh.influences = influences;
    let (bytes, notes) = through(&asset);
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(
        notes[0].starts_with(
            "1 vertices had more than 8 influences; the 8 whose largest error over 9 frames \
             is smallest were kept"
        ),
        "{notes:?}"
    );
    let model = Model::from_bytes(&bytes).unwrap();
    assert_eq!(model.num_bones(), 10);
    let e = error(&asset, &model);
    assert!(e.max < 0.05, "{e}");
}

/// The `write` fuzz target's fourth find (`fuzz/seeds/write/crash-write-mdl7-long-texture.md5`):
/// an MD5 whose shader name ran to 1 239 bytes became an MDL7 external texture of that many,
/// past the 1 024 MDL7 readers take with its NUL; now refused in words.
#[test]
fn a_texture_name_past_1023_bytes_used_to_be_written_unreadable() {
    let mut asset = asset_of(&skelmap::iqm::Builder::demo().write().unwrap());
    for m in &mut asset.materials {
        m.image = None;
        m.texture = None;
    }
    asset.materials[0].name = "t".repeat(1023);
    through(&asset);
    asset.materials[0].name = "t".repeat(1024);
    let e = skelmap::model::write(Format::Mdl7, &asset, &WriteOptions::default()).unwrap_err();
    assert!(
        matches!(&e, WriteError::Fit(f) if f.what.starts_with("the texture name")),
        "{e}"
    );
}

#[test]
fn refuses_a_bone_name_past_31_bytes() {
    let mut asset = asset_of(&skelmap::synth::tube(&Default::default()).write().unwrap());
    asset.skeleton.as_mut().unwrap().joints[1].name = "b".repeat(32);
    let e = skelmap::model::write(Format::Mdl7, &asset, &WriteOptions::default()).unwrap_err();
    assert!(matches!(e, WriteError::Fit(_)));
    assert_eq!(
        e.to_string(),
        format!(
            "MDL7 cannot hold the bone name '{}' (32 bytes): bone names are at most 31 bytes; \
             rename the bone in the source model",
            "b".repeat(32)
        )
    );
    // 20 to 31 bytes take the 48-byte bone records, each name with its NUL.
    asset.skeleton.as_mut().unwrap().joints[1].name = "b".repeat(31);
    let (bytes, _) = through(&asset);
    assert_eq!(u16::from_le_bytes([bytes[28], bytes[29]]), 48);
    let model = Model::from_bytes(&bytes).unwrap();
    assert!(model.diagnostics().is_empty(), "{:?}", model.diagnostics());
    assert_eq!(
        model.bones().nth(1).unwrap().name(),
        "b".repeat(31).as_bytes()
    );
}
