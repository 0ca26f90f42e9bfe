//! `Model::to_asset`: here, tags that name a bone (Half-Life's attachments, MDM's tags,
//! MDR's) as the asset's attachment joints, and an asset without images.

use skelmap::Model;
use skelmap::asset::{ClipKeys, Options};
use skelmap::glam::{Affine3A, Vec3};
use skelmap::hl1::{AttachmentDef, Builder};
use skelmap::model::Pose;

/// A Half-Life attachment is a leaf joint of its bone, named as the reader names it, at its
/// origin in the bone's space at the asset's pose and in every key; flagged an attachment,
/// and where `Model::attachment_transform` puts it.
#[test]
fn a_half_life_attachment_is_a_leaf_joint_at_its_origin() {
    let bytes = Builder::example().write().unwrap();
    let model = Model::from_bytes(&bytes).unwrap();
    let asset = model.to_asset(&Options::default()).unwrap();
    let skeleton = asset.skeleton.as_ref().unwrap();
    assert_eq!(skeleton.joints.len(), model.num_bones() + 1);
    let leaf = &skeleton.joints[2];
    assert_eq!(
        (leaf.name.as_str(), leaf.parent, leaf.translation),
        ("attachment", Some(1), Vec3::new(1.0, 2.0, 3.0))
    );
    assert_eq!(skeleton.attachments, [2]);
    let mut pose = Pose::default();
    model.pose_bind(&mut pose);
    let at = model.attachment_transform(0, &pose).unwrap();
    assert!(leaf.world.abs_diff_eq(at, 1e-5), "{:?} {at:?}", leaf.world);
    let mut frames = 0;
    for clip in &asset.clips {
        let ClipKeys::Joints(keys) = &clip.keys else {
            panic!("{}: joint keys", clip.name);
        };
        for key in keys {
            assert_eq!(key.len(), 3);
            assert_eq!(key[2].translation, Vec3::new(1.0, 2.0, 3.0));
            assert_eq!(key[2].rotation, leaf.rotation);
            frames += 1;
        }
    }
    assert_eq!(frames, model.num_frames());
}

/// Attachments that share a name (studiomdl leaves them empty: `attachment`) are told apart
/// by a number, and a name a bone has is taken by the bone.
#[test]
fn attachments_of_one_name_are_numbered() {
    let mut b = Builder::example();
    let bone = b.bones[0].name.clone();
    b.attachments.push(AttachmentDef {
        name: String::new(),
        bone: 0,
        org: [0.0, 0.0, 5.0],
    });
    b.attachments.push(AttachmentDef {
        name: bone.clone(),
        bone: 1,
        org: [0.0; 3],
    });
    let bytes = b.write().unwrap();
    let model = Model::from_bytes(&bytes).unwrap();
    let asset = model.to_asset(&Options::default()).unwrap();
    let skeleton = asset.skeleton.as_ref().unwrap();
    let names: Vec<_> = (skeleton.joints[2..].iter())
        .map(|j| (j.name.clone(), j.parent))
        .collect();
    assert_eq!(
        names,
        [
            ("attachment".to_string(), Some(1)),
            ("attachment2".to_string(), Some(0)),
            (format!("{bone}2"), Some(1)),
        ]
    );
    assert_eq!(skeleton.attachments, [2, 3, 4]);
}

/// An MDR's tag is its bone (no offset, the bone's name): the bone is flagged, no joint
/// added.
#[test]
fn a_tag_that_is_its_bone_flags_the_bone() {
    let bytes = skelmap::mdr::Builder::triangle().write();
    let model = Model::from_bytes(&bytes).unwrap();
    assert_eq!(model.tag_offset(0), Affine3A::IDENTITY);
    let asset = model.to_asset(&Options::default()).unwrap();
    let skeleton = asset.skeleton.as_ref().unwrap();
    assert_eq!(skeleton.joints.len(), model.num_bones());
    let tag = model.tag_bone(0).unwrap();
    assert!(skeleton.attachments.contains(&tag));
}

/// A stored bone matrix whose rotation part overflows (the `write` fuzz target's third find,
/// `fuzz/seeds/write/crash-write-mdm-far-own-key.mdr`, holds entries of -2.6e38) has no
/// rotation: the asset keeps the identity and the matrix's place. The joint's bind transform used to be
/// replaced on its own (the identity, at the origin) and disagree with its keys; it is now
/// made again from the keys as kept.
#[test]
fn a_degenerate_bone_matrix_keeps_its_keys_and_bind_in_step() {
    let mut builder = skelmap::mdr::Builder::triangle();
    builder.frames[0].bones[0] = [
        [0.0, 0.0, 0.0, 5.0],
        [0.0, 0.0, -2.5e38, 0.0],
        [0.0, 5.8e25, 6.1e31, -2.0],
    ];
    let bytes = builder.write();
    let asset = Model::from_bytes(&bytes)
        .unwrap()
        .to_asset(&Options::default())
        .unwrap();
    assert!(
        asset.replaced_non_finite >= 1,
        "{}",
        asset.replaced_non_finite
    );
    let root = &asset.skeleton.as_ref().unwrap().joints[0];
    let place = Vec3::new(5.0, 0.0, -2.0);
    assert_eq!(
        (root.rotation, root.translation),
        (skelmap::glam::Quat::IDENTITY, place)
    );
    assert_eq!(root.world, Affine3A::from_translation(place));

    let bytes = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fuzz/seeds/write/crash-write-mdm-far-own-key.mdr"
    ))
    .unwrap();
    let asset = Model::from_bytes(&bytes)
        .unwrap()
        .to_asset(&Options::default())
        .unwrap();
    let root = &asset.skeleton.as_ref().unwrap().joints[0];
    assert_eq!(root.world.translation.x, root.translation.x);
    assert_eq!(root.translation.x, -2.545_471_6e38);
}

/// `no_images` leaves the skins undecoded and everything else as it was: what a measurement
/// that poses every frame asks for (the Half-Life textures of a 4,440-frame model were
/// decoded once a frame).
#[test]
fn no_images_keeps_the_materials_and_vertices_without_decoding_skins() {
    let bytes = Builder::example().write().unwrap();
    let model = Model::from_bytes(&bytes).unwrap();
    let with = model.to_asset(&Options::default()).unwrap();
    let without = model
        .to_asset(&Options {
            no_images: true,
            ..Options::default()
        })
        .unwrap();
    assert!(!with.images.is_empty());
    assert!(without.images.is_empty());
    assert!(without.materials.iter().all(|m| m.image.is_none()));
    let names = |a: &skelmap::asset::Asset| -> Vec<String> {
        a.materials.iter().map(|m| m.name.clone()).collect()
    };
    assert_eq!(names(&without), names(&with));
    let positions = |a: &skelmap::asset::Asset| -> Vec<[f32; 3]> {
        a.meshes.iter().flat_map(|m| m.positions.clone()).collect()
    };
    assert_eq!(positions(&without), positions(&with));
}

/// An IQM of twenty thousand meshes, each a triangle of its own material, is one welded
/// model mesh of as many parts: each part costs the vertices it draws (not every vertex of
/// the model), each material a look-up (not a walk of the others), and each asset mesh keeps
/// its three vertices and its own material.
#[test]
fn an_iqm_of_many_meshes_makes_as_many_asset_meshes_and_materials() {
    use skelmap::iqm::{Builder, MeshDef};
    const MESHES: u32 = 20_000;
    let corner = |m: u32, k: u32| [m as f32, k as f32, 0.0];
    let bytes = Builder {
        positions: (0..MESHES)
            .flat_map(|m| (0..3).map(move |k| corner(m, k)))
            .collect(),
        triangles: (0..MESHES).map(|m| [3 * m, 3 * m + 1, 3 * m + 2]).collect(),
        meshes: (0..MESHES)
            .map(|m| MeshDef {
                name: format!("m{m}").into_bytes(),
                // Every other material's name repeated: one material for both.
                material: format!("material{}", m / 2).into_bytes(),
                first_vertex: 3 * m,
                num_vertexes: 3,
                first_triangle: m,
                num_triangles: 1,
            })
            .collect(),
        ..Builder::default()
    }
    .write()
    .unwrap();
    let model = Model::from_bytes(&bytes).unwrap();
    let asset = model.to_asset(&Options::default()).unwrap();
    assert_eq!(asset.meshes.len(), MESHES as usize);
    assert_eq!(asset.materials.len(), MESHES as usize / 2);
    for (m, mesh) in asset.meshes.iter().enumerate() {
        let m32 = m as u32;
        assert_eq!(
            mesh.positions,
            (0..3).map(|k| corner(m32, k)).collect::<Vec<_>>()
        );
        assert_eq!(mesh.triangles, [[0, 1, 2]]);
        assert_eq!(mesh.material, Some(m / 2));
        assert_eq!(asset.materials[m / 2].name, format!("material{}", m / 2));
    }
}

/// An MD3 of twenty thousand surfaces, each the same triangle, makes twenty thousand asset
/// meshes: the names' code page is found once for the model (not once a mesh), and
/// converting it measures each copy's distance at one look-up (not a walk of a cell of
/// thousands of coincident points).
#[test]
fn an_md3_of_many_copies_of_a_surface_converts_to_md2() {
    use skelmap::asset::{WriteOptions, Writer};
    const SURFACES: usize = 20_000;
    let mut b = skelmap::md3::Builder::triangle();
    let surface = b.surfaces[0].clone();
    b.surfaces = (0..SURFACES)
        .map(|k| {
            let mut s = surface.clone();
            s.name = format!("s{k}").into_bytes();
            s
        })
        .collect();
    let bytes = b.write();
    let model = Model::from_bytes(&bytes).unwrap();
    let asset = model.to_asset(&Options::default()).unwrap();
    assert_eq!(asset.meshes.len(), SURFACES);
    assert_eq!(
        asset.meshes[SURFACES - 1].name,
        format!("s{}", SURFACES - 1)
    );
    let written = skelmap::md2::Builder::write_asset(&asset, &WriteOptions::default()).unwrap();
    let back = Model::from_bytes(&written.files[0].bytes).unwrap();
    use skelmap::model::convert::{Posed, skinning_error};
    let error = skinning_error(Posed::Model(&model), Posed::Model(&back), 0);
    assert_eq!(error.vertices, 3 * SURFACES);
    assert!(error.max < 1e-2, "{error}");
}
