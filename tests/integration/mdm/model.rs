//! The `Model` API over a built MDM + MDX and over an MDX alone: skeleton, clips, meshes,
//! materials, attachments, levels of detail from the collapse map, and preparing.

use skelmap::mdm::{Builder, CLIP_FPS, Mdm};
use skelmap::source::Source;
use skelmap::{Format, Limits, Model, Parse};

fn model(b: &Builder) -> Model<'static> {
    let (mdm, mdx) = b.write();
    Model::from_mdm(
        Source::from_vec(mdm),
        Source::from_vec(mdx),
        &Limits::DEFAULT,
    )
    .unwrap()
}

#[test]
fn a_pair_has_the_skeleton_clip_meshes_materials_and_tags() {
    let m = model(&super::three_bones());
    assert_eq!(m.format(), Format::Mdm);
    let bones: Vec<_> = m.bones().map(|b| (b.name().to_vec(), b.parent())).collect();
    assert_eq!(
        bones,
        vec![
            (b"root".to_vec(), None),
            (b"head".to_vec(), Some(0)),
            (b"hand".to_vec(), Some(1))
        ]
    );
    assert_eq!(m.num_frames(), 3);
    let clips = m.clips();
    assert_eq!(clips.len(), 1);
    assert_eq!(
        (clips[0].first, clips[0].count, clips[0].fps),
        (0, 3, CLIP_FPS)
    );
    assert_eq!((m.num_meshes(), m.num_materials()), (1, 1));
    assert_eq!(m.material(0).unwrap().name, b"models/players/body");
    // The flagged bone, then the two tags.
    let names: Vec<_> = m.attachments().map(|a| a.name.to_vec()).collect();
    assert_eq!(
        names,
        vec![
            b"hand".to_vec(),
            b"tag_head".to_vec(),
            b"tag_weapon".to_vec()
        ]
    );
    assert!(m.prepare().is_ok() && m.compact().is_ok());
    crate::exercise::model(&m);
}

/// ET's player meshes leave their shaders empty for a `.skin` file to fill by surface name:
/// the material is named after the surface, as an MD3's.
#[test]
fn a_surface_without_a_shader_names_its_material_after_itself() {
    let mut b = super::three_bones();
    b.surfaces[0].shader.clear();
    let m = model(&b);
    assert_eq!(m.material(0).unwrap().name, b.surfaces[0].name.as_bytes());
}

#[test]
fn an_mdx_alone_is_a_skeleton_with_frames_and_no_mesh() {
    let mdx = Builder::triangle().write_mdx();
    let m = Model::from_bytes(&mdx).unwrap();
    assert_eq!(m.format(), Format::Mdx);
    assert_eq!((m.num_bones(), m.num_frames(), m.num_meshes()), (2, 3, 0));
    assert_eq!(m.clips().len(), 1);
    assert!(m.as_mdx().is_some() && m.as_mdm().is_none());
    crate::exercise::model(&m);
}

#[test]
fn levels_of_detail_follow_the_collapse_map() {
    let mut b = Builder::triangle();
    // A quad of four vertices: vertex 3 collapses into 2, vertex 2 into 0.
    let surface = &mut b.surfaces[0];
    let last = surface.vertices[2].clone();
    surface.vertices.push(last);
    surface.triangles = vec![[0, 1, 2], [0, 2, 3], [1, 3, 2]];
    surface.collapse_map = vec![0, 0, 0, 2];
    surface.min_lod = 2;
    let mdm = b.write_mdm();
    let mdm = Mdm::parse(&mdm).unwrap();
    let s = &mdm.surfaces()[0];
    assert_eq!(s.collapse_map().collect::<Vec<_>>(), vec![0, 0, 0, 2]);
    assert_eq!(
        (
            s.lod_vertices(1.0),
            s.lod_vertices(0.75),
            s.lod_vertices(0.1)
        ),
        (4, 3, 2)
    );
    let mut out = Vec::new();
    s.lod_triangles(4, &mut out);
    assert_eq!(out, vec![[0, 1, 2], [0, 2, 3], [1, 3, 2]]);
    // Vertex 3 becomes 2: the second triangle merges away.
    s.lod_triangles(3, &mut out);
    assert_eq!(
        out,
        vec![[0, 1, 2], [1, 2, 2]]
            .into_iter()
            .filter(|t| t[1] != t[2])
            .collect::<Vec<_>>()
    );
    // Vertices 2 and 3 become 0: nothing is left.
    s.lod_triangles(2, &mut out);
    assert!(out.is_empty());
}

/// Fuzz timeout `mdm/regress-timeout-one-tag-read-as-many` (a seed): a 1,342-byte file whose
/// tag's `ofs_end` is 0 held 23,810 tags, each the same record read again. Such a chain is now
/// refused (rule 4: the structures laid end to end must fit in the file), but a model may hold
/// that many tags of its own: finding an attachment must not walk those before it, nor an
/// error be built (counting them all) when none is returned, or placing every attachment is
/// quadratic. This places 20,000 of them.
#[test]
fn many_tags_place_every_attachment() {
    use skelmap::model::{AttachmentKind, Pose};
    use skelmap::view::DeformError;

    const TAGS: usize = 20_000;
    let mut b = super::three_bones();
    b.tags = vec![b.tags[0].clone(); TAGS];
    let m = Model::from_mdm(
        Source::from_vec(b.write_mdm()),
        Source::from_vec(b.write_mdx()),
        &Limits::DEFAULT,
    )
    .unwrap();
    assert_eq!((m.num_tags(), m.num_attachments()), (TAGS, TAGS + 1));
    let listed: Vec<_> = m.attachments().collect();
    assert_eq!(listed.len(), TAGS + 1);
    assert_eq!(
        (listed[0].name, listed[0].kind),
        (&b"hand"[..], AttachmentKind::Bone(2))
    );
    let mut pose = Pose::default();
    m.pose(1, 2, 0.25, skelmap::pose::Interpolation::Nlerp, &mut pose)
        .unwrap();
    let first = m.attachment_transform(1, &pose).unwrap();
    for (i, listed) in listed.iter().enumerate() {
        assert_eq!(m.attachment(i).as_ref(), Some(listed));
        if i > 0 {
            assert_eq!(listed.kind, AttachmentKind::Tag(i - 1));
            assert_eq!(listed.name, b"tag_head");
            assert_eq!(m.attachment_transform(i, &pose).unwrap(), first);
        }
    }
    assert_eq!(m.attachment(TAGS + 1), None);
    assert_eq!(
        m.attachment_transform(TAGS + 1, &pose),
        Err(DeformError::NoAttachment {
            attachment: TAGS + 1,
            attachments: TAGS + 1
        })
    );
}
