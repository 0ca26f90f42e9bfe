//! The format-neutral `Model` API over built MDRs: recognition, the skeleton of roots named by
//! tags, LOD 0's meshes (triangles counter-clockwise, texture coordinates, influences),
//! materials, clips, attachments, the GPU buffers and their error, the owned asset, and every
//! level of detail through the view.

use skelmap::model::{AttachmentKind, Pose};
use skelmap::pose::Interpolation;
use skelmap::{Format, Model, Parse};

use super::{animated, compressed, lods};

/// A surface with no shader is named for a `.skin` file to fill by surface name, as an MD3's.
#[test]
fn a_surface_without_a_shader_names_its_material_after_itself() {
    let mut b = animated();
    b.lods[0][1].shader.clear();
    let bytes = b.write();
    let model = Model::from_bytes(&bytes).unwrap();
    let name = b.lods[0][1].name.clone();
    assert_eq!(model.material(1).unwrap().name, &name[..]);
    assert_eq!(
        model.as_mdr().unwrap().surfaces()[1].shader_name(),
        &name[..]
    );
}

#[test]
fn an_mdr_is_recognised_by_its_magic_whatever_its_name() {
    let bytes = animated().write();
    assert_eq!(Format::sniff(&bytes), Some(Format::Mdr));
    assert_eq!(Format::detect(&bytes, Some("md3")), Some(Format::Mdr));
    assert_eq!(Format::Mdr.extension(), "mdr");
    assert!(Format::Mdr.writable());
}

#[test]
fn the_model_has_lod0s_meshes_and_a_skeleton_of_roots_named_by_tags() {
    let b = animated();
    let bytes = b.write();
    let model = Model::from_bytes(&bytes).unwrap();
    assert_eq!(model.format(), Format::Mdr);
    assert_eq!(
        (model.num_meshes(), model.num_bones(), model.num_frames()),
        (2, 3, 4)
    );
    let bones: Vec<_> = model
        .bones()
        .map(|b| (b.name().to_vec(), b.parent()))
        .collect();
    assert_eq!(
        bones,
        [
            (b"".to_vec(), None),
            (b"tag_weapon".to_vec(), None),
            (b"tag_head".to_vec(), None)
        ]
    );
    let mesh = model.mesh(1).unwrap();
    assert_eq!((mesh.num_vertices(), mesh.num_triangles()), (3, 2));
    // Stored clockwise [0, 1, 2]; given counter-clockwise.
    assert_eq!(mesh.triangle(0), Some([2, 1, 0]));
    assert_eq!(mesh.vertex_texcoord(2), Some([1.0, 0.25]));
    let mut influences = Vec::new();
    mesh.for_each_influence(|v, bone, w| influences.push((v, bone, w)));
    assert_eq!(
        influences,
        [
            (0, 0, 0.5),
            (0, 1, 0.25),
            (0, 2, 0.25),
            (1, 2, 1.0),
            (2, 1, 0.6),
            (2, 2, 0.4)
        ]
    );
    let shaders: Vec<_> = (0..model.num_materials())
        .map(|m| model.material(m).unwrap().name.to_vec())
        .collect();
    assert_eq!(
        shaders,
        [b"models/triangle".to_vec(), b"models/second".to_vec()]
    );
    assert!(model.diagnostics().is_empty());
}

#[test]
fn frames_named_as_a_clip_give_one_clip_and_unnamed_compressed_frames_none() {
    let bytes = animated().write();
    let model = Model::from_bytes(&bytes).unwrap();
    let clips: Vec<_> = model
        .clips()
        .iter()
        .map(|c| (c.name.clone(), c.first, c.count))
        .collect();
    assert_eq!(clips, [("walk".to_string(), 0, 4)]);
    let bytes = compressed().write();
    let model = Model::from_bytes(&bytes).unwrap();
    // As an MD3 whose frames are unnamed: frames are posed by index.
    assert!(model.clips().is_empty());
    assert_eq!(model.clip_origin(), skelmap::model::ClipOrigin::None);
}

#[test]
fn tags_are_attachments_placed_by_their_bones_and_stored_per_frame() {
    let b = animated();
    let bytes = b.write();
    let model = Model::from_bytes(&bytes).unwrap();
    let attachments: Vec<_> = model.attachments().map(|a| (a.name, a.kind)).collect();
    assert_eq!(
        attachments,
        [
            (&b"tag_weapon"[..], AttachmentKind::Tag(0)),
            (&b"tag_head"[..], AttachmentKind::Tag(1))
        ]
    );
    let mut pose = Pose::default();
    model
        .pose(2, 2, 0.0, Interpolation::Nlerp, &mut pose)
        .unwrap();
    let placed = model.attachment_transform(1, &pose).unwrap();
    let stored = model.tag(2, 1).unwrap();
    assert!(placed.abs_diff_eq(stored, 1e-6), "{placed:?} vs {stored:?}");
    // Bone 2 at frame 2: turned 90° about +Z, at (0, 2, 0.5).
    assert_eq!(stored.translation.to_array(), [0.0, 2.0, 0.5]);
    assert!(model.tag(4, 0).is_none() && model.tag(0, 2).is_none());
}

/// The GPU buffers hold one bind-space point a vertex: exact up to the weights'
/// quantisation where a vertex's weights agree on where it is in frame 0 (the triangle), and
/// measured, not hidden, where they do not (the animated fixture's first vertex of its second
/// surface puts each weight's offset somewhere else).
#[test]
fn gpu_buffers_skin_as_the_cpu_and_the_asset_keeps_every_frame() {
    let options = skelmap::gpu::Options::default();
    let bytes = skelmap::mdr::Builder::triangle().write();
    let model = Model::from_bytes(&bytes).unwrap();
    let error = model.gpu_error(&options).unwrap();
    assert!(error.max < 1e-2 * error.size, "{error:?}");
    let bytes = animated().write();
    let model = Model::from_bytes(&bytes).unwrap();
    let mesh = model.gpu_mesh(&options).unwrap();
    assert_eq!((mesh.positions.len(), mesh.indices.len()), (6, 9));
    let error = model.gpu_error(&options).unwrap();
    assert_eq!((error.frames, error.vertices), (4, 6));
    assert!(error.max > 1e-2 * error.size, "{error:?}");
    let asset = model.to_asset(&skelmap::asset::Options::default()).unwrap();
    let joints = asset.skeleton.as_ref().map_or(0, |s| s.joints.len());
    assert_eq!((asset.meshes.len(), joints), (2, 3));
    // The tags name bones: the asset's skeleton carries them as attachments.
    assert!(asset.tags.is_empty());
    assert_eq!(asset.skeleton.as_ref().unwrap().attachments, [1, 2]);
}

#[test]
fn every_level_of_detail_is_reached_through_the_view() {
    let bytes = lods().write();
    let mdr = skelmap::mdr::Mdr::parse(&bytes).unwrap();
    let names: Vec<Vec<_>> = mdr
        .lods()
        .iter()
        .map(|l| l.surfaces().iter().map(|s| s.name().to_vec()).collect())
        .collect();
    assert_eq!(
        names,
        [vec![b"triangle".to_vec()], vec![b"triangle_lod1".to_vec()]]
    );
    let model = Model::from_bytes(&bytes).unwrap();
    assert_eq!(model.num_meshes(), 1);
    assert_eq!(model.as_mdr().unwrap().lods().len(), 2);
}
