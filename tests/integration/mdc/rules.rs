//! One test per validation rule of `mdc`'s module docs, and one per malformed pattern that
//! broke other readers (issue #54, item 9), each asserting the exact error or warning and its
//! offset.

use core::mem::offset_of;

use skelmap::mdc::Mdc;
use skelmap::mdc::raw::{Md3Frame, Md3Shader, Md3Triangle, MdcHeader, MdcSurface, MdcTag};
use skelmap::mdc::write::{Builder, SurfaceDef};
use skelmap::{Error, Format, Limits, Model, Parse, Problem, WarningKind};

use super::{
    NUM_FRAMES, NUM_SURFACES, OFS_END, OFS_FRAMES, S_NUM_BASE_FRAMES, S_NUM_VERTS,
    S_OFS_BASE_TABLE, S_OFS_COMP_TABLE, S_OFS_COMPRESSED, S_OFS_END, S_OFS_ST, S_OFS_TRIANGLES,
    animated, err, err_with, get_i32, invalid, put_i32, tags_only, truncated, warnings,
};

/// The size of the file header and of a surface header.
const HEADER: u64 = size_of::<MdcHeader>() as u64;
const SURFACE: u64 = size_of::<MdcSurface>() as u64;

// ---- rule 1: magic and version ----

#[test]
fn rule_1_another_magic_is_refused() {
    let mut bytes = Builder::triangle().write();
    bytes[3] = b'3';
    assert!(matches!(
        err(&bytes),
        Error::BadMagic {
            format: Format::Mdc,
            expected: "\"IDPC\""
        }
    ));
}

#[test]
fn rule_1_a_version_other_than_2_is_unsupported() {
    let mut b = Builder::triangle();
    b.version = 3;
    match err(&b.write()) {
        Error::Unsupported {
            format: Format::Mdc,
            what: "header.version",
            offset: 4,
            value: 3,
            ..
        } => {}
        other => panic!("{other}"),
    }
}

#[test]
fn rule_1_a_header_cut_short_is_truncated() {
    let bytes = Builder::triangle().write();
    assert_eq!(truncated(&err(&bytes[..50])), ("header", 0, HEADER, 50));
}

// ---- rule 2: counts ----

#[test]
fn rule_2_a_model_without_frames_is_refused() {
    let mut bytes = Builder::triangle().write();
    put_i32(&mut bytes, NUM_FRAMES, 0);
    assert_eq!(
        invalid(&err(&bytes)),
        (Format::Mdc, "header.num_frames", NUM_FRAMES, Problem::Empty)
    );
}

#[test]
fn rule_2_a_negative_surface_count_is_refused() {
    let mut bytes = Builder::triangle().write();
    put_i32(&mut bytes, NUM_SURFACES, -1);
    assert_eq!(
        invalid(&err(&bytes)),
        (
            Format::Mdc,
            "header.num_surfaces",
            NUM_SURFACES,
            Problem::Negative { value: -1 }
        )
    );
}

/// ezquake-source #1121: a surface count that keeps a naive reader walking. The count is a
/// mesh count and stops at the limit before any surface is read.
#[test]
fn ezquake_1121_a_huge_surface_count_is_over_the_limit() {
    let mut bytes = Builder::triangle().write();
    put_i32(&mut bytes, NUM_SURFACES, i32::MAX);
    match err(&bytes) {
        Error::Limit {
            format: Format::Mdc,
            what: "header.num_surfaces",
            offset: NUM_SURFACES,
            value,
            max,
        } => assert_eq!(
            (value, max),
            (i32::MAX as u64, Limits::default().max_meshes.into())
        ),
        other => panic!("{other}"),
    }
}

/// ezquake-source #1121, the other way: a surface with vertices whose `ofs_end` is 0 would be
/// its own next surface. The chain must move forward past the surface's arrays.
#[test]
fn ezquake_1121_a_surface_that_does_not_advance_is_refused() {
    let (mut bytes, layout) = Builder::triangle().write_with_layout();
    let s = layout.surfaces[0];
    let length = bytes.len() as u64 - s;
    put_i32(&mut bytes, s + S_OFS_END, 0);
    assert_eq!(
        invalid(&err(&bytes)),
        (
            Format::Mdc,
            "surface.ofs_end",
            s + S_OFS_END,
            Problem::BelowMinimum {
                value: 0,
                min: length
            }
        )
    );
}

#[test]
fn rule_2_per_surface_limits_are_errors_and_engine_limits_warnings() {
    let (bytes, layout) = animated().write_with_layout();
    let limits = Limits {
        max_vertices_per_mesh: 36,
        ..Limits::default()
    };
    match err_with(&bytes, &limits) {
        Error::Limit {
            format: Format::Mdc,
            what: "surface.num_verts",
            offset,
            value: 37,
            max: 36,
        } => assert_eq!(offset, layout.surfaces[0] + S_NUM_VERTS),
        other => panic!("{other}"),
    }
    // 10 001 vertices: one past ET:Legacy's 10 000, a warning and nothing more.
    let n = 10_001;
    let mut b = Builder::triangle();
    b.frames.truncate(1);
    b.tags.truncate(1);
    b.surfaces[0] = SurfaceDef {
        name: b"big".to_vec(),
        triangles: vec![[0, 2, 1]],
        st: vec![[0.0; 2]; n],
        base_frames: vec![vec![([0, 0, 0], 0); n]],
        frame_base_frames: vec![0],
        frame_comp_frames: vec![-1],
        ..SurfaceDef::default()
    };
    let (bytes, layout) = b.write_with_layout();
    let diag = warnings(&bytes);
    let w = diag.get(WarningKind::SpecLimit).expect("engine limit");
    assert_eq!(
        (w.what, w.offset),
        ("surface.num_verts", layout.surfaces[0] + S_NUM_VERTS)
    );
    assert!(
        w.detail
            .contains("10001 goes past the 10000 ET:Legacy accepts")
    );
    assert_eq!(Mdc::parse(&bytes).unwrap().surfaces()[0].num_vertices(), n);
}

// ---- rule 3: frames, tag names and tags inside the file ----

#[test]
fn rule_3_frames_inside_the_header_are_refused() {
    let mut bytes = Builder::triangle().write();
    put_i32(&mut bytes, OFS_FRAMES, 8);
    assert_eq!(
        invalid(&err(&bytes)),
        (
            Format::Mdc,
            "header.ofs_frames",
            OFS_FRAMES,
            Problem::BelowMinimum {
                value: 8,
                min: HEADER
            }
        )
    );
}

#[test]
fn rule_3_frames_and_tags_past_the_end_are_truncated() {
    let mut bytes = Builder::triangle().write();
    let len = bytes.len() as u64;
    put_i32(&mut bytes, OFS_FRAMES, len as i32 - 10);
    // Two frames of 56 bytes, 10 of them in the file.
    assert_eq!(truncated(&err(&bytes)), ("frames", len - 10, 2 * 56, 10));
    let mut bytes = Builder::triangle().write();
    let ofs_tags = offset_of!(MdcHeader, ofs_tags) as u64;
    put_i32(&mut bytes, ofs_tags, len as i32 - 4);
    let tags = 2 * size_of::<MdcTag>() as u64;
    assert_eq!(truncated(&err(&bytes)), ("tags", len - 4, tags, 4));
}

// ---- rule 4: tag names ----

/// assimp #6771 for tags: a tag name without its NUL.
#[test]
fn rule_4_an_unterminated_tag_name_is_refused() {
    let mut b = Builder::triangle();
    b.tag_names[0] = vec![b't'; 64];
    let (bytes, layout) = b.write_with_layout();
    assert_eq!(
        invalid(&err(&bytes)),
        (
            Format::Mdc,
            "tag_name.name",
            layout.tag_names,
            Problem::Unterminated { len: 64 }
        )
    );
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
    bytes[middle..middle + SURFACE as usize].fill(0);
    let mut diag = skelmap::Diagnostics::new();
    let mdc = Mdc::parse_with(&bytes, &Limits::default(), &mut diag).unwrap();
    assert_eq!(mdc.surfaces().len(), 1);
    assert_eq!(mdc.surfaces()[0].name(), b"body");
    let w = diag.get(WarningKind::LayoutOrder).unwrap();
    assert_eq!((w.what, w.offset, w.count), ("surface", middle as u64, 2));
    let model = Model::from_bytes(&bytes).unwrap();
    assert_eq!(model.num_meshes(), 1);
    crate::exercise::model(&model);
}

#[test]
fn rule_5_an_empty_surface_is_skipped() {
    let mut b = animated();
    let cap = &mut b.surfaces[1];
    cap.triangles.clear();
    cap.st.clear();
    cap.base_frames.clear();
    cap.comp_frames.clear();
    let (bytes, layout) = b.write_with_layout();
    let mut diag = skelmap::Diagnostics::new();
    let mdc = Mdc::parse_with(&bytes, &Limits::default(), &mut diag).unwrap();
    assert_eq!(mdc.surfaces().len(), 1);
    let w = diag.get(WarningKind::LayoutOrder).unwrap();
    assert_eq!(
        (w.what, w.offset, w.count),
        ("surface", layout.surfaces[1], 1)
    );
}

/// Tags and no surfaces (25 of the held-out MDCs: attachment rigs; assimp refuses them): the
/// model opens with no meshes and its tags, and says it has no surfaces.
#[test]
fn tags_and_no_surfaces_open_as_a_rig() {
    let bytes = tags_only().write();
    let diag = warnings(&bytes);
    let w = diag.get(WarningKind::NoGroups).unwrap();
    assert_eq!((w.what, w.offset), ("header.num_surfaces", NUM_SURFACES));
    let mdc = Mdc::parse(&bytes).unwrap();
    assert_eq!(
        (mdc.num_frames(), mdc.num_tags(), mdc.surfaces().len()),
        (2, 1, 0)
    );
    assert_eq!(mdc.tag(1, 0).unwrap().origin(), [2.0, 0.0, 0.0]);
    let model = Model::from_bytes(&bytes).unwrap();
    assert_eq!(
        (model.num_meshes(), model.num_frames(), model.num_tags()),
        (0, 2, 1)
    );
    assert_eq!(model.attachment(0).unwrap().name, b"tag_weapon");
    crate::exercise::model(&model);
}

// ---- rule 6: vertices and base frames of a surface ----

/// assimp's `malformed_zero_numvertices`: a surface with triangles and no vertices.
#[test]
fn zero_vertices_with_triangles_are_refused() {
    let (mut bytes, layout) = Builder::triangle().write_with_layout();
    let at = layout.surfaces[0] + S_NUM_VERTS;
    put_i32(&mut bytes, at, 0);
    assert_eq!(
        invalid(&err(&bytes)),
        (Format::Mdc, "surface.num_verts", at, Problem::Empty)
    );
}

#[test]
fn rule_6_vertices_without_a_base_frame_are_refused() {
    let (mut bytes, layout) = Builder::triangle().write_with_layout();
    let at = layout.surfaces[0] + S_NUM_BASE_FRAMES;
    put_i32(&mut bytes, at, 0);
    assert_eq!(
        invalid(&err(&bytes)),
        (Format::Mdc, "surface.num_base_frames", at, Problem::Empty)
    );
}

// ---- rule 7: a surface's arrays ----

/// assimp CVE-2025-3549 / OSS-Fuzz 68711: surface offsets that point outside the file.
#[test]
fn cve_2025_3549_surface_offsets_outside_the_file_are_truncated() {
    let (mut bytes, layout) = Builder::triangle().write_with_layout();
    let s = layout.surfaces[0];
    // Three compressed vertices of 4 bytes, a megabyte out.
    put_i32(&mut bytes, s + S_OFS_COMPRESSED, 1 << 20);
    put_i32(&mut bytes, s + S_OFS_END, (1 << 20) + 12);
    assert!(s + (1 << 20) > bytes.len() as u64);
    assert_eq!(
        truncated(&err(&bytes)),
        ("surface.xyz_compressed", s + (1 << 20), 12, 0)
    );
}

/// CVE-2025-3549's other half: arrays pointing into each other.
#[test]
fn cve_2025_3549_surface_arrays_that_overlap_are_refused() {
    let (mut bytes, layout) = Builder::triangle().write_with_layout();
    let s = layout.surfaces[0];
    let triangles = get_i32(&bytes, s + S_OFS_TRIANGLES);
    // The texture coordinates moved onto the triangles.
    put_i32(&mut bytes, s + S_OFS_ST, triangles);
    assert_eq!(
        invalid(&err(&bytes)),
        (
            Format::Mdc,
            "surface.ofs_st",
            s + S_OFS_ST,
            Problem::BelowMinimum {
                value: triangles as u64,
                min: triangles as u64 + size_of::<Md3Triangle>() as u64,
            }
        )
    );
}

#[test]
fn rule_7_a_surface_array_inside_its_header_is_refused() {
    let (mut bytes, layout) = Builder::triangle().write_with_layout();
    let s = layout.surfaces[0];
    put_i32(&mut bytes, s + S_OFS_TRIANGLES, 40);
    assert_eq!(
        invalid(&err(&bytes)),
        (
            Format::Mdc,
            "surface.ofs_triangles",
            s + S_OFS_TRIANGLES,
            Problem::BelowMinimum {
                value: 40,
                min: SURFACE
            }
        )
    );
}

#[test]
fn rule_7_a_negative_surface_offset_is_refused() {
    let (mut bytes, layout) = Builder::triangle().write_with_layout();
    let s = layout.surfaces[0];
    put_i32(&mut bytes, s + S_OFS_ST, -8);
    assert_eq!(
        invalid(&err(&bytes)),
        (
            Format::Mdc,
            "surface.ofs_st",
            s + S_OFS_ST,
            Problem::Negative { value: -8 }
        )
    );
}

/// A frame table that runs past the surface's `ofs_end` into the next surface.
#[test]
fn rule_7_a_frame_table_past_the_surface_end_is_refused() {
    let (mut bytes, layout) = animated().write_with_layout();
    let s = layout.surfaces[0];
    let end = get_i32(&bytes, s + S_OFS_END);
    put_i32(&mut bytes, s + S_OFS_COMP_TABLE, end - 2);
    // Six frames: 12 bytes from 2 short of the end.
    assert_eq!(
        invalid(&err(&bytes)),
        (
            Format::Mdc,
            "surface.ofs_end",
            s + S_OFS_END,
            Problem::BelowMinimum {
                value: end as u64,
                min: end as u64 + 10
            }
        )
    );
}

// ---- rule 8: names ----

/// assimp #6771: names without their NUL (a tag's aside), each a warning with the whole field
/// as the name: a surface name (exporters fill it with long object names, as MD3's do), frame
/// and model names, and a shader path cut to its field, as MD3 exporters write it.
#[test]
fn assimp_6771_an_unterminated_surface_name_or_shader_path_is_read_whole() {
    let mut b = Builder::triangle();
    b.surfaces[0].name = vec![b's'; 64];
    let (bytes, layout) = b.write_with_layout();
    let at = layout.surfaces[0] + offset_of!(MdcSurface, name) as u64;
    let w = warnings(&bytes)
        .get(WarningKind::UnterminatedName)
        .cloned()
        .unwrap();
    assert_eq!((w.what, w.offset, w.count), ("surface.name", at, 1));
    assert_eq!(Mdc::parse(&bytes).unwrap().surfaces()[0].name(), [b's'; 64]);
    let mut b = Builder::triangle();
    b.surfaces[0].shaders.push(vec![b'x'; 64]);
    let (bytes, layout) = b.write_with_layout();
    // The second shader, after the surface header and the first.
    let at = layout.surfaces[0] + SURFACE + size_of::<Md3Shader>() as u64;
    let w = warnings(&bytes)
        .get(WarningKind::UnterminatedName)
        .cloned()
        .unwrap();
    assert_eq!((w.what, w.offset, w.count), ("shader.name", at, 1));
    let mdc = Mdc::parse(&bytes).unwrap();
    assert_eq!(mdc.surfaces()[0].shaders().nth(1), Some(&[b'x'; 64][..]));
}

#[test]
fn assimp_6771_unterminated_frame_and_model_names_are_warnings() {
    let mut b = Builder::triangle();
    b.frames[1].name = vec![b'f'; 16];
    let (bytes, layout) = b.write_with_layout();
    let w = warnings(&bytes)
        .get(WarningKind::UnterminatedName)
        .cloned()
        .unwrap();
    let frame = layout.frames + 56 + offset_of!(Md3Frame, name) as u64;
    assert_eq!((w.what, w.offset, w.count), ("frame.name", frame, 1));
    assert_eq!(
        Mdc::parse(&bytes).unwrap().frame(1).unwrap().name,
        [b'f'; 16]
    );
    let mut b = Builder::triangle();
    b.name = vec![b'm'; 64];
    let w = warnings(&b.write())
        .get(WarningKind::UnterminatedName)
        .cloned()
        .unwrap();
    let model = offset_of!(MdcHeader, name) as u64;
    assert_eq!((w.what, w.offset, w.count), ("header.name", model, 1));
}

// ---- rule 9: triangles ----

#[test]
fn rule_9_a_triangle_index_past_the_vertices_is_refused() {
    let mut b = animated();
    b.surfaces[1].triangles[2][1] = 5;
    let (bytes, layout) = b.write_with_layout();
    // The cap's triangles follow its header and its one shader.
    let triangles = layout.surfaces[1] + SURFACE + size_of::<Md3Shader>() as u64;
    let at = triangles + 2 * 12 + 4;
    assert_eq!(
        invalid(&err(&bytes)),
        (
            Format::Mdc,
            "triangle.indexes",
            at,
            Problem::Index { index: 5, len: 5 }
        )
    );
}

// ---- rule 10: the frame tables ----

/// The base and compressed frames a model frame names exist; `-1` in `frameCompFrames` is
/// "no compressed frame", anywhere else in the tables an index out of range.
#[test]
fn rule_10_frame_tables_name_frames_that_exist() {
    let (good, layout) = animated().write_with_layout();
    let s = layout.surfaces[0];
    let base_table = s + get_i32(&good, s + S_OFS_BASE_TABLE) as u64;
    let comp_table = s + get_i32(&good, s + S_OFS_COMP_TABLE) as u64;
    let put_i16 = |bytes: &mut Vec<u8>, at: u64, v: i16| {
        bytes[at as usize..at as usize + 2].copy_from_slice(&v.to_le_bytes());
    };
    let cases = [
        (base_table + 2 * 4, 2, "surface.frame_base_frames", 2),
        (base_table + 2 * 5, -1, "surface.frame_base_frames", 2),
        (comp_table + 2, 4, "surface.frame_comp_frames", 4),
    ];
    for (at, value, what, len) in cases {
        let mut bytes = good.clone();
        put_i16(&mut bytes, at, value);
        assert_eq!(
            invalid(&err(&bytes)),
            (
                Format::Mdc,
                what,
                at,
                Problem::Index {
                    index: value.into(),
                    len
                }
            ),
            "{what} = {value}"
        );
    }
    // Frame 1 with no compressed frame of its own: its base frame alone.
    let mut bytes = good.clone();
    put_i16(&mut bytes, comp_table + 2, -1);
    let mdc = Mdc::parse(&bytes).unwrap();
    let body = &mdc.surfaces()[0];
    assert_eq!(body.comp_frame(1), None);
    assert_eq!(body.position(1, 3), body.position(0, 3));
}

/// Without compressed frames the engines never read `frameCompFrames`: any value opens.
#[test]
fn rule_10_the_compressed_table_of_a_surface_without_compressed_frames_is_ignored() {
    let mut b = Builder::triangle();
    let s = &mut b.surfaces[0];
    s.comp_frames.clear();
    s.frame_comp_frames = vec![7, -300];
    let bytes = b.write();
    let mdc = Mdc::parse(&bytes).unwrap();
    let s = &mdc.surfaces()[0];
    assert_eq!((s.comp_frame(0), s.comp_frame(1)), (None, None));
    assert_eq!(s.position(1, 1), Some([1.0, 0.0, 0.0]));
}

// ---- rule 11: the file's end and texture coordinates ----

#[test]
fn rule_11_an_end_past_the_file_is_truncated() {
    let mut bytes = Builder::triangle().write();
    let len = bytes.len() as u64;
    put_i32(&mut bytes, OFS_END, len as i32 + 1);
    assert_eq!(
        truncated(&err(&bytes)),
        ("file (header.ofs_end)", 0, len + 1, len)
    );
}

#[test]
fn rule_11_an_end_short_of_the_file_is_a_warning() {
    let mut bytes = Builder::triangle().write();
    bytes.push(0);
    let diag = warnings(&bytes);
    let w = diag.get(WarningKind::FileSize).unwrap();
    assert_eq!((w.what, w.offset), ("header.ofs_end", OFS_END));
}

#[test]
fn rule_11_a_texture_coordinate_that_is_not_finite_is_a_warning() {
    let mut b = Builder::triangle();
    b.surfaces[0].st[2][1] = f32::INFINITY;
    let (bytes, layout) = b.write_with_layout();
    let s = layout.surfaces[0];
    let diag = warnings(&bytes);
    let w = diag.get(WarningKind::NonFiniteTexcoord).unwrap();
    let st = s + get_i32(&bytes, s + S_OFS_ST) as u64;
    assert_eq!((w.what, w.offset), ("surface.st", st + 2 * 8));
}

// ---- rule 12: frame bounds against the vertices ----

#[test]
fn rule_12_frame_bounds_that_miss_vertices_are_a_warning_when_asked() {
    let mut b = animated();
    b.frames[1].bounds[1][0] = -100.0;
    b.frames[4].radius = 1.0;
    let (bytes, layout) = b.write_with_layout();
    // Opening does not decode the vertices of every frame.
    assert!(warnings(&bytes).get(WarningKind::Bounds).is_none());
    let model = Model::from_bytes(&bytes).unwrap();
    let diag = model.diagnostics();
    let found: Vec<_> = diag
        .warnings()
        .iter()
        .filter(|w| w.kind == WarningKind::Bounds)
        .map(|w| (w.what, w.offset, w.count))
        .collect();
    assert_eq!(found, [("frame.bounds", layout.frames + 56, 2)]);
    // A model built with its true bounds has none: compressed frames decode inside them.
    let good = animated().write();
    let model = Model::from_bytes(&good).unwrap();
    assert!(model.diagnostics().get(WarningKind::Bounds).is_none());
}
