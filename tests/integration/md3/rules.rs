//! One test per validation rule of `md3`'s module docs, and one per malformed pattern that
//! broke other readers (issue #54, item 9), each asserting the exact error or warning and its
//! offset.

use core::mem::offset_of;

use skelmap::md3::Md3;
use skelmap::md3::raw::{Md3Frame, Md3Surface, Md3Tag, Md3Triangle};
use skelmap::md3::write::{Builder, TagDef};
use skelmap::{Error, Format, Limits, Parse, Problem, WarningKind};

use super::{
    NUM_FRAMES, NUM_SURFACES, OFS_END, OFS_FRAMES, S_NUM_FRAMES, S_NUM_VERTS, S_OFS_END, S_OFS_ST,
    S_OFS_TRIANGLES, S_OFS_XYZ, animated, err, err_with, header_at, invalid, put_i32, surface_at,
    tags_only, truncated, warnings,
};

// ---- rule 1: magic and version ----

#[test]
fn rule_1_another_magic_is_refused() {
    let mut bytes = Builder::triangle().write();
    bytes[3] = b'2';
    assert!(matches!(
        err(&bytes),
        Error::BadMagic {
            format: Format::Md3,
            expected: "\"IDP3\""
        }
    ));
}

#[test]
fn rule_1_a_version_other_than_15_is_unsupported() {
    let mut b = Builder::triangle();
    b.version = 16;
    match err(&b.write()) {
        Error::Unsupported {
            format: Format::Md3,
            what: "header.version",
            offset: 4,
            value: 16,
            ..
        } => {}
        other => panic!("{other}"),
    }
}

#[test]
fn rule_1_a_header_cut_short_is_truncated() {
    let bytes = Builder::triangle().write();
    assert_eq!(truncated(&err(&bytes[..50])), ("header", 0, 108, 50));
}

// ---- rule 2: counts ----

#[test]
fn rule_2_a_model_without_frames_is_refused() {
    let mut bytes = Builder::triangle().write();
    put_i32(&mut bytes, header_at(NUM_FRAMES), 0);
    assert_eq!(
        invalid(&err(&bytes)),
        (Format::Md3, "header.num_frames", 76, Problem::Empty)
    );
}

#[test]
fn rule_2_a_negative_surface_count_is_refused() {
    let mut bytes = Builder::triangle().write();
    put_i32(&mut bytes, header_at(NUM_SURFACES), -1);
    assert_eq!(
        invalid(&err(&bytes)),
        (
            Format::Md3,
            "header.num_surfaces",
            84,
            Problem::Negative { value: -1 }
        )
    );
}

/// ezquake-source #1121: a surface count that keeps a naive reader walking. The count is a
/// mesh count and stops at the limit before any surface is read.
#[test]
fn ezquake_1121_a_huge_surface_count_is_over_the_limit() {
    let mut bytes = Builder::triangle().write();
    put_i32(&mut bytes, header_at(NUM_SURFACES), i32::MAX);
    match err(&bytes) {
        Error::Limit {
            format: Format::Md3,
            what: "header.num_surfaces",
            offset: 84,
            value,
            max,
        } => assert_eq!(
            (value, max),
            (i32::MAX as u64, Limits::default().max_meshes.into())
        ),
        other => panic!("{other}"),
    }
}

/// ezquake-source #1121, the other way: a surface whose `ofs_end` is 0 while it has vertices
/// would make the next surface itself. The chain must move forward by at least the surface.
#[test]
fn ezquake_1121_a_surface_that_does_not_advance_is_refused() {
    let (mut bytes, layout) = Builder::triangle().write_with_layout();
    let s = layout.surfaces[0];
    put_i32(&mut bytes, surface_at(s, S_OFS_END), 0);
    let (format, what, offset, problem) = invalid(&err(&bytes));
    assert_eq!(
        (format, what, offset),
        (Format::Md3, "surface.ofs_end", s + 104)
    );
    let Problem::BelowMinimum { value: 0, min } = problem else {
        panic!("{problem}")
    };
    // The end of the vertices, the surface's last array.
    assert_eq!(
        min,
        u64::from(bytes_le(&bytes, s + S_OFS_XYZ as u64)) + 3 * 8
    );
}

fn bytes_le(b: &[u8], at: u64) -> u32 {
    let at = at as usize;
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

#[test]
fn rule_2_per_surface_limits_are_errors_and_engine_limits_warnings() {
    let bytes = animated().write();
    let limits = Limits {
        max_vertices_per_mesh: 36,
        ..Limits::default()
    };
    let layout = animated().write_with_layout().1;
    match err_with(&bytes, &limits) {
        Error::Limit {
            what: "surface.num_verts",
            offset,
            value: 37,
            max: 36,
            ..
        } => assert_eq!(offset, surface_at(layout.surfaces[0], S_NUM_VERTS)),
        other => panic!("{other}"),
    }
    // 33 surfaces: past ioquake3's 32, which is a warning and nothing more.
    let mut b = Builder::triangle();
    let surface = b.surfaces[0].clone();
    b.surfaces = vec![surface; 33];
    let diag = warnings(&b.write());
    let w = diag
        .get(WarningKind::SpecLimit)
        .expect("engine limit reported");
    assert_eq!((w.what, w.offset), ("header.num_surfaces", 84));
    assert!(w.detail.contains("33 goes past the 32 ioquake3 accepts"));
}

// ---- rule 3: frames and tags inside the file ----

#[test]
fn rule_3_frames_inside_the_header_are_refused() {
    let mut bytes = Builder::triangle().write();
    put_i32(&mut bytes, header_at(OFS_FRAMES), 8);
    assert_eq!(
        invalid(&err(&bytes)),
        (
            Format::Md3,
            "header.ofs_frames",
            92,
            Problem::BelowMinimum { value: 8, min: 108 }
        )
    );
}

#[test]
fn rule_3_frames_past_the_end_are_truncated() {
    let mut bytes = Builder::triangle().write();
    let len = bytes.len() as u64;
    put_i32(&mut bytes, header_at(OFS_FRAMES), len as i32 - 10);
    assert_eq!(truncated(&err(&bytes)), ("frames", len - 10, 56, 10));
}

// ---- rule 4: tags ----

#[test]
fn rule_4_an_unterminated_tag_name_is_refused() {
    let mut b = Builder::triangle();
    b.tags[0][0].name = vec![b'x'; 64];
    let (bytes, layout) = b.write_with_layout();
    assert_eq!(
        invalid(&err(&bytes)),
        (
            Format::Md3,
            "tag.name",
            layout.tags,
            Problem::Unterminated { len: 64 }
        )
    );
}

#[test]
fn rule_4_a_tag_axis_that_is_not_finite_is_refused() {
    let mut b = animated();
    b.tags[2][1].axis[1][2] = f32::NAN;
    let (bytes, layout) = b.write_with_layout();
    // Frame 2, tag 1; the axis' sixth float.
    let tag = layout.tags + (2 * 2 + 1) * size_of::<Md3Tag>() as u64;
    let at = tag + offset_of!(Md3Tag, axis) as u64 + 5 * 4;
    assert_eq!(
        invalid(&err(&bytes)),
        (Format::Md3, "tag.axis", at, Problem::NotFinite)
    );
}

#[test]
fn rule_4_a_skewed_tag_axis_is_a_warning_when_asked() {
    let mut b = Builder::triangle();
    b.tags[0][0].axis[0] = [2.0, 0.0, 0.0];
    let (bytes, layout) = b.write_with_layout();
    assert!(warnings(&bytes).get(WarningKind::NonOrthonormal).is_none());
    let model = skelmap::Model::from_bytes(&bytes).unwrap();
    let w = model
        .diagnostics()
        .get(WarningKind::NonOrthonormal)
        .unwrap();
    assert_eq!((w.what, w.offset), ("tag.axis", layout.tags + 76));
}

// ---- rule 5: the chain of surfaces ----

/// A surface header that is all zeros in the middle of a shipped file (assimp crashes on it):
/// it and every surface counted after it are read as that empty surface, as the engines read
/// them; the surfaces before it stay.
#[test]
fn an_all_zero_surface_header_in_the_middle_ends_the_chain() {
    let mut b = animated();
    let third = b.surfaces[0].clone();
    b.surfaces.push(third);
    let (mut bytes, layout) = b.write_with_layout();
    let middle = layout.surfaces[1] as usize;
    bytes[middle..middle + size_of::<Md3Surface>()].fill(0);
    let mut diag = skelmap::Diagnostics::new();
    let md3 = Md3::parse_with(&bytes, &Limits::default(), &mut diag).unwrap();
    assert_eq!(md3.surfaces().len(), 1);
    assert_eq!(md3.surfaces()[0].name(), b"body");
    let w = diag.get(WarningKind::LayoutOrder).unwrap();
    assert_eq!((w.what, w.offset, w.count), ("surface", middle as u64, 2));
    // The model it makes deforms its one mesh.
    let model = skelmap::Model::from_bytes(&bytes).unwrap();
    assert_eq!(model.num_meshes(), 1);
    skelmap_testkit::exercise::model(&model);
}

#[test]
fn rule_5_an_empty_surface_is_skipped() {
    let mut b = animated();
    b.surfaces[1].triangles.clear();
    b.surfaces[1].st.clear();
    b.surfaces[1].frames = vec![vec![]; 3];
    let (bytes, layout) = b.write_with_layout();
    let mut diag = skelmap::Diagnostics::new();
    let md3 = Md3::parse_with(&bytes, &Limits::default(), &mut diag).unwrap();
    assert_eq!(md3.surfaces().len(), 1);
    let w = diag.get(WarningKind::LayoutOrder).unwrap();
    assert_eq!(
        (w.what, w.offset, w.count),
        ("surface", layout.surfaces[1], 1)
    );
}

/// Tags and no surfaces (38 of the held-out MD3s: attachment rigs; assimp refuses them): the
/// model opens with no meshes and its tags, and says it has no surfaces.
#[test]
fn tags_and_no_surfaces_open_as_a_rig() {
    let bytes = tags_only().write();
    let diag = warnings(&bytes);
    let w = diag.get(WarningKind::NoGroups).unwrap();
    assert_eq!((w.what, w.offset), ("header.num_surfaces", 84));
    let md3 = Md3::parse(&bytes).unwrap();
    assert_eq!(
        (md3.num_frames(), md3.num_tags(), md3.surfaces().len()),
        (2, 1, 0)
    );
    assert_eq!(md3.tag(1, 0).unwrap().origin(), [2.0, 0.0, 0.0]);
    let model = skelmap::Model::from_bytes(&bytes).unwrap();
    assert_eq!((model.num_meshes(), model.num_frames()), (0, 2));
    skelmap_testkit::exercise::model(&model);
}

// ---- rule 6: vertices and frames of a surface ----

/// assimp's `malformed_zero_numvertices`: a surface with triangles and no vertices.
#[test]
fn zero_vertices_with_triangles_are_refused() {
    let (mut bytes, layout) = Builder::triangle().write_with_layout();
    let at = surface_at(layout.surfaces[0], S_NUM_VERTS);
    put_i32(&mut bytes, at, 0);
    assert_eq!(
        invalid(&err(&bytes)),
        (Format::Md3, "surface.num_verts", at, Problem::Empty)
    );
}

#[test]
fn rule_6_a_surface_with_other_frames_than_the_model_is_refused() {
    let (mut bytes, layout) = animated().write_with_layout();
    let at = surface_at(layout.surfaces[1], S_NUM_FRAMES);
    put_i32(&mut bytes, at, 2);
    assert_eq!(
        invalid(&err(&bytes)),
        (
            Format::Md3,
            "surface.num_frames",
            at,
            Problem::Mismatch {
                value: 2,
                expected: 3
            }
        )
    );
}

// ---- rule 7: a surface's arrays ----

/// assimp CVE-2025-3549 / OSS-Fuzz 68711: surface offsets that point outside the file.
#[test]
fn cve_2025_3549_surface_offsets_outside_the_file_are_truncated() {
    let (mut bytes, layout) = Builder::triangle().write_with_layout();
    let s = layout.surfaces[0];
    put_i32(&mut bytes, surface_at(s, S_OFS_XYZ), 1 << 20);
    put_i32(&mut bytes, surface_at(s, S_OFS_END), (1 << 20) + 24);
    let len = bytes.len() as u64;
    assert_eq!(
        truncated(&err(&bytes)),
        ("surface.xyz_normals", s + (1 << 20), 24, 0)
    );
    assert!(s + (1 << 20) > len);
}

/// CVE-2025-3549's other half: arrays pointing into each other.
#[test]
fn cve_2025_3549_surface_arrays_that_overlap_are_refused() {
    let (mut bytes, layout) = Builder::triangle().write_with_layout();
    let s = layout.surfaces[0];
    let triangles = bytes_le(&bytes, s + S_OFS_TRIANGLES as u64);
    // The texture coordinates moved onto the triangles.
    put_i32(&mut bytes, surface_at(s, S_OFS_ST), triangles as i32);
    let (format, what, offset, problem) = invalid(&err(&bytes));
    assert_eq!(
        (format, what, offset),
        (Format::Md3, "surface.ofs_st", s + 96)
    );
    assert_eq!(
        problem,
        Problem::BelowMinimum {
            value: triangles.into(),
            min: u64::from(triangles) + size_of::<Md3Triangle>() as u64,
        }
    );
}

#[test]
fn rule_7_a_surface_array_inside_its_header_is_refused() {
    let (mut bytes, layout) = Builder::triangle().write_with_layout();
    let s = layout.surfaces[0];
    put_i32(&mut bytes, surface_at(s, S_OFS_TRIANGLES), 40);
    let (_, what, offset, problem) = invalid(&err(&bytes));
    assert_eq!((what, offset), ("surface.ofs_triangles", s + 88));
    assert_eq!(
        problem,
        Problem::BelowMinimum {
            value: 40,
            min: 108
        }
    );
}

#[test]
fn rule_7_a_negative_surface_offset_is_refused() {
    let (mut bytes, layout) = Builder::triangle().write_with_layout();
    let s = layout.surfaces[0];
    put_i32(&mut bytes, surface_at(s, S_OFS_ST), -8);
    assert_eq!(
        invalid(&err(&bytes)),
        (
            Format::Md3,
            "surface.ofs_st",
            s + 96,
            Problem::Negative { value: -8 }
        )
    );
}

// ---- rule 8: names ----

/// assimp #6771: names without their NUL (a tag's aside, rule 4), each a warning with the
/// whole field as the name (skelmap reads no name past its field). A surface name: 3ds Max
/// exporters fill it with long object names (a DarkPlaces SDK's `muzzle1.md3`:
/// `Plane001___Duplicate___…`), and ioquake3 and DarkPlaces open such a model; frame and
/// model names, display-only; and a shader name: exporters cut a texture's path to the field
/// (Sauerbraten's `horse.md3`), ioquake3 reads on to the index after it and opens the model.
#[test]
fn assimp_6771_an_unterminated_surface_name_or_shader_path_is_read_whole() {
    let mut b = Builder::triangle();
    b.surfaces[0].name = vec![b's'; 64];
    let (bytes, layout) = b.write_with_layout();
    let w = warnings(&bytes)
        .get(WarningKind::UnterminatedName)
        .cloned()
        .unwrap();
    let at = layout.surfaces[0] + 4;
    assert_eq!((w.what, w.offset, w.count), ("surface.name", at, 1));
    assert_eq!(Md3::parse(&bytes).unwrap().surfaces()[0].name(), [b's'; 64]);
    let mut b = Builder::triangle();
    let path = b"/home/modder/sauer/packages/models/monster/rat/Material_horse_01".to_vec();
    assert_eq!(path.len(), 64);
    b.surfaces[0].shaders = vec![path.clone(), b"second".to_vec()];
    let (bytes, layout) = b.write_with_layout();
    let w = warnings(&bytes)
        .get(WarningKind::UnterminatedName)
        .cloned()
        .unwrap();
    let at = layout.surfaces[0] + 108;
    assert_eq!((w.what, w.offset, w.count), ("shader.name", at, 1));
    let md3 = Md3::parse(&bytes).unwrap();
    let surface = &md3.surfaces()[0];
    assert_eq!(surface.shader_name(), &path[..]);
    let shaders: Vec<&[u8]> = surface.shaders().collect();
    assert_eq!(shaders, [&path[..], b"second"]);
}

#[test]
fn assimp_6771_an_unterminated_frame_name_is_a_warning() {
    let mut b = Builder::triangle();
    b.frames[0].name = vec![b'f'; 16];
    let (bytes, layout) = b.write_with_layout();
    let diag = warnings(&bytes);
    let w = diag.get(WarningKind::UnterminatedName).unwrap();
    let at = layout.frames + offset_of!(Md3Frame, name) as u64;
    assert_eq!((w.what, w.offset), ("frame.name", at));
    assert_eq!(
        Md3::parse(&bytes).unwrap().frame(0).unwrap().name,
        [b'f'; 16]
    );
}

// ---- rule 9: triangles ----

#[test]
fn rule_9_a_triangle_index_past_the_vertices_is_refused() {
    let mut b = animated();
    b.surfaces[1].triangles[2][1] = 5;
    let (bytes, layout) = b.write_with_layout();
    let triangles = layout.surfaces[1] + 108 + 68;
    let at = triangles + 2 * 12 + 4;
    assert_eq!(
        invalid(&err(&bytes)),
        (
            Format::Md3,
            "triangle.indexes",
            at,
            Problem::Index { index: 5, len: 5 }
        )
    );
}

// ---- rule 10: the file's end ----

#[test]
fn rule_10_an_end_past_the_file_is_truncated() {
    let mut bytes = Builder::triangle().write();
    let len = bytes.len() as u64;
    put_i32(&mut bytes, header_at(OFS_END), len as i32 + 1);
    assert_eq!(
        truncated(&err(&bytes)),
        ("file (header.ofs_end)", 0, len + 1, len)
    );
}

/// Tremulous' missile: `ofs_end` one byte short of the file.
#[test]
fn rule_10_an_end_short_of_the_file_is_a_warning() {
    let mut bytes = Builder::triangle().write();
    bytes.push(0);
    let diag = warnings(&bytes);
    let w = diag.get(WarningKind::FileSize).unwrap();
    assert_eq!((w.what, w.offset), ("header.ofs_end", 104));
}

// ---- rule 11: frame bounds against the vertices ----

#[test]
fn rule_11_frame_bounds_that_miss_vertices_are_a_warning_when_asked() {
    let mut b = animated();
    b.frames[1].bounds[1][0] = 0.0;
    b.frames[2].radius = 1.0;
    let (bytes, layout) = b.write_with_layout();
    // Opening does not read the vertices of every frame.
    assert!(warnings(&bytes).get(WarningKind::Bounds).is_none());
    let model = skelmap::Model::from_bytes(&bytes).unwrap();
    let w = model.diagnostics().get(WarningKind::Bounds).unwrap();
    assert_eq!(
        (w.what, w.offset, w.count),
        ("frame.bounds", layout.frames + 56, 2)
    );
    // A model built with its true bounds has none.
    let good = animated().write();
    let model = skelmap::Model::from_bytes(&good).unwrap();
    assert!(model.diagnostics().get(WarningKind::Bounds).is_none());
}

#[test]
fn rule_11_frames_at_the_limit_of_tags_open() {
    // 17 tags: one past ioquake3's 16, a warning.
    let mut b = Builder::triangle();
    b.tags = vec![
        (0..17)
            .map(|i| TagDef::at(&format!("tag_{i}"), [0.0; 3]))
            .collect(),
    ];
    let diag = warnings(&b.write());
    let w = diag.get(WarningKind::SpecLimit).unwrap();
    assert_eq!((w.what, w.offset), ("header.num_tags", 80));
}
