//! One test per validation rule of `mdr`'s module docs (`docs/formats/mdr.md` § Validation),
//! each asserting the exact error or warning and its offset; the crash patterns ioquake3's
//! loader leaves open (a tag's or weight's bone, a triangle's index, `ofs_frames` of `-2³¹`,
//! more than 128 bones) among them.

use core::mem::offset_of;

use skelmap::mdr::raw::{
    MdrBone, MdrCompFrame, MdrFrame, MdrHeader, MdrLod, MdrSurface, MdrTag, MdrVertex, MdrWeight,
};
use skelmap::mdr::write::{Builder, IDENTITY};
use skelmap::{Error, Format, Limits, Problem, WarningKind};

use super::{animated, compressed, err, err_with, invalid, put_f32, put_i32, truncated, warnings};

const H_NUM_FRAMES: u64 = offset_of!(MdrHeader, num_frames) as u64;
const H_NUM_BONES: u64 = offset_of!(MdrHeader, num_bones) as u64;
const H_OFS_FRAMES: u64 = offset_of!(MdrHeader, ofs_frames) as u64;
const H_NUM_LODS: u64 = offset_of!(MdrHeader, num_lods) as u64;
const H_OFS_LODS: u64 = offset_of!(MdrHeader, ofs_lods) as u64;
const H_NUM_TAGS: u64 = offset_of!(MdrHeader, num_tags) as u64;
const H_OFS_TAGS: u64 = offset_of!(MdrHeader, ofs_tags) as u64;
const H_OFS_END: u64 = offset_of!(MdrHeader, ofs_end) as u64;

fn inv(bytes: &[u8]) -> (Format, &'static str, u64, Problem) {
    invalid(&err(bytes))
}

// ---- rule 1: magic and version ----

#[test]
fn rule_1_another_magic_is_refused() {
    let mut bytes = Builder::triangle().write();
    bytes[0] = b'X';
    assert!(matches!(
        err(&bytes),
        Error::BadMagic {
            format: Format::Mdr,
            expected: "\"RDM5\""
        }
    ));
}

#[test]
fn rule_1_a_version_other_than_2_is_unsupported() {
    let b = Builder {
        version: 3,
        ..Builder::triangle()
    };
    match err(&b.write()) {
        Error::Unsupported {
            format: Format::Mdr,
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
    assert_eq!(truncated(&err(&bytes[..50])), ("header", 0, 104, 50));
}

// ---- rule 2: the declared end ----

#[test]
fn rule_2_an_end_past_the_file_is_truncation() {
    let mut bytes = Builder::triangle().write();
    let len = bytes.len() as u64;
    put_i32(&mut bytes, H_OFS_END, len as i32 + 1);
    assert_eq!(
        truncated(&err(&bytes)),
        ("file (header.ofs_end)", 0, len + 1, len)
    );
    put_i32(&mut bytes, H_OFS_END, -1);
    assert_eq!(
        inv(&bytes),
        (
            Format::Mdr,
            "header.ofs_end",
            H_OFS_END,
            Problem::Negative { value: -1 }
        )
    );
}

#[test]
fn rule_2_an_end_short_of_the_structures_is_a_warning() {
    let mut bytes = Builder::triangle().write();
    let len = bytes.len() as i32;
    put_i32(&mut bytes, H_OFS_END, len - 36);
    let diag = warnings(&bytes);
    let w = diag.get(WarningKind::FileSize).expect("reported");
    assert_eq!((w.what, w.offset), ("header.ofs_end", H_OFS_END));
}

// ---- rule 3: counts ----

#[test]
fn rule_3_no_frames_or_no_bones_is_refused() {
    let mut bytes = Builder::triangle().write();
    put_i32(&mut bytes, H_NUM_FRAMES, 0);
    assert_eq!(
        inv(&bytes),
        (
            Format::Mdr,
            "header.num_frames",
            H_NUM_FRAMES,
            Problem::Empty
        )
    );
    let mut bytes = Builder::triangle().write();
    put_i32(&mut bytes, H_NUM_BONES, 0);
    assert_eq!(
        inv(&bytes),
        (Format::Mdr, "header.num_bones", H_NUM_BONES, Problem::Empty)
    );
}

#[test]
fn rule_3_negative_counts_are_refused() {
    for (field, what) in [
        (H_NUM_FRAMES, "header.num_frames"),
        (H_NUM_BONES, "header.num_bones"),
        (H_NUM_LODS, "header.num_lods"),
        (H_NUM_TAGS, "header.num_tags"),
    ] {
        let mut bytes = Builder::triangle().write();
        put_i32(&mut bytes, field, -2);
        assert_eq!(
            inv(&bytes),
            (Format::Mdr, what, field, Problem::Negative { value: -2 })
        );
    }
}

#[test]
fn rule_3_counts_past_the_limits_are_refused() {
    let bytes = animated().write();
    for (limits, what, offset, value) in [
        (
            Limits {
                max_frames: 3,
                ..Limits::default()
            },
            "header.num_frames",
            H_NUM_FRAMES,
            4,
        ),
        (
            Limits {
                max_bones: 2,
                ..Limits::default()
            },
            "header.num_bones",
            H_NUM_BONES,
            3,
        ),
        (
            Limits {
                max_meshes: 1,
                ..Limits::default()
            },
            "lod.num_surfaces",
            super::animated().write_with_layout().1.lods[0],
            2,
        ),
    ] {
        match err_with(&bytes, &limits) {
            Error::Limit {
                format: Format::Mdr,
                what: w,
                offset: o,
                value: v,
                ..
            } => assert_eq!((w, o, v), (what, offset, value)),
            other => panic!("{other}"),
        }
    }
}

#[test]
fn rule_3_more_bones_than_ioquake3_blends_is_a_warning() {
    let mut b = Builder::triangle();
    b.num_bones = 129;
    for f in &mut b.frames {
        f.bones.resize(129, IDENTITY);
    }
    let diag = warnings(&b.write());
    let w = diag.get(WarningKind::SpecLimit).expect("reported");
    assert_eq!((w.what, w.offset), ("header.num_bones", H_NUM_BONES));
    assert!(
        warnings(&Builder::triangle().write())
            .get(WarningKind::SpecLimit)
            .is_none()
    );
}

// ---- rule 4: where the frames are ----

#[test]
fn rule_4_frames_inside_the_header_are_refused() {
    for ofs in [0, 50, -50] {
        let mut bytes = Builder::triangle().write();
        put_i32(&mut bytes, H_OFS_FRAMES, ofs);
        assert_eq!(
            inv(&bytes),
            (
                Format::Mdr,
                "header.ofs_frames",
                H_OFS_FRAMES,
                Problem::BelowMinimum {
                    value: u64::from(ofs.unsigned_abs()),
                    min: 104
                }
            )
        );
    }
}

#[test]
fn rule_4_frames_past_the_file_are_truncation_even_at_minus_2_pow_31() {
    let mut bytes = Builder::triangle().write();
    let len = bytes.len() as u64;
    put_i32(&mut bytes, H_OFS_FRAMES, i32::MIN);
    let (what, offset, need, have) = truncated(&err(&bytes));
    assert_eq!((what, offset, have), ("frames", 1 << 31, 0));
    assert!(len < 1 << 31);
    assert_eq!(need, 2 * (40 + 24 * 2));
    // A plain table reaching one byte past the end.
    let mut bytes = Builder::triangle().write();
    let frames = 2 * (56 + 48 * 2);
    put_i32(&mut bytes, H_OFS_FRAMES, (len - frames + 1) as i32);
    assert_eq!(
        truncated(&err(&bytes)),
        ("frames", len - frames + 1, frames, frames - 1)
    );
}

// ---- rule 5: frame floats ----

#[test]
fn rule_5_a_matrix_entry_that_is_not_finite_is_refused() {
    let (mut bytes, layout) = Builder::triangle().write_with_layout();
    // Frame 1, bone 1, row 1, column 3 (its Y translation).
    let frame = layout.frames + (56 + 48 * 2);
    let at = frame + 56 + 48 + offset_of!(MdrBone, matrix) as u64 + 4 * (4 + 3);
    put_f32(&mut bytes, at, f32::NAN);
    assert_eq!(
        inv(&bytes),
        (Format::Mdr, "frame.bones", at, Problem::NotFinite)
    );
}

#[test]
fn rule_5_a_summary_that_is_not_finite_is_refused_in_both_encodings() {
    let (mut bytes, layout) = compressed().write_with_layout();
    let at = layout.frames + (40 + 24 * 2) + offset_of!(MdrCompFrame, radius) as u64;
    put_f32(&mut bytes, at, f32::INFINITY);
    assert_eq!(
        inv(&bytes),
        (Format::Mdr, "frame.radius", at, Problem::NotFinite)
    );
    let (mut bytes, layout) = Builder::triangle().write_with_layout();
    let at = layout.frames + offset_of!(MdrFrame, bounds) as u64 + 16;
    put_f32(&mut bytes, at, f32::NAN);
    assert_eq!(
        inv(&bytes),
        (Format::Mdr, "frame.bounds", at, Problem::NotFinite)
    );
}

#[test]
fn rule_5_a_frame_name_filling_its_field_is_a_warning() {
    let mut b = Builder::triangle();
    b.frames[1].name = b"sixteen_bytes_xx".to_vec();
    let (bytes, layout) = b.write_with_layout();
    let diag = warnings(&bytes);
    let w = diag.get(WarningKind::UnterminatedName).expect("reported");
    let at = layout.frames + (56 + 48 * 2) + offset_of!(MdrFrame, name) as u64;
    assert_eq!((w.what, w.offset), ("frame.name", at));
}

// ---- rule 6: tags ----

#[test]
fn rule_6_a_tag_on_a_bone_past_the_skeleton_is_refused() {
    let (mut bytes, layout) = Builder::triangle().write_with_layout();
    let at = layout.tags + offset_of!(MdrTag, bone_index) as u64;
    for bone in [2, -1] {
        put_i32(&mut bytes, at, bone);
        assert_eq!(
            inv(&bytes),
            (
                Format::Mdr,
                "tag.bone_index",
                at,
                Problem::Index {
                    index: bone.into(),
                    len: 2
                }
            )
        );
    }
}

#[test]
fn rule_6_an_unterminated_tag_name_is_refused() {
    let mut b = Builder::triangle();
    b.tags[0].name = vec![b'x'; 32];
    let (bytes, layout) = b.write_with_layout();
    let at = layout.tags + offset_of!(MdrTag, name) as u64;
    assert_eq!(
        inv(&bytes),
        (
            Format::Mdr,
            "tag.name",
            at,
            Problem::Unterminated { len: 32 }
        )
    );
}

#[test]
fn rule_6_tags_in_the_header_or_past_the_file_are_refused() {
    let mut bytes = Builder::triangle().write();
    put_i32(&mut bytes, H_OFS_TAGS, 8);
    assert_eq!(
        inv(&bytes),
        (
            Format::Mdr,
            "header.ofs_tags",
            H_OFS_TAGS,
            Problem::BelowMinimum { value: 8, min: 104 }
        )
    );
    let mut bytes = Builder::triangle().write();
    let len = bytes.len() as u64;
    put_i32(&mut bytes, H_OFS_TAGS, len as i32 - 35);
    assert_eq!(truncated(&err(&bytes)), ("tags", len - 35, 36, 35));
}

// ---- rule 7: levels of detail ----

#[test]
fn rule_7_lods_in_the_header_or_past_the_file_are_refused() {
    let mut bytes = Builder::triangle().write();
    put_i32(&mut bytes, H_OFS_LODS, 0);
    assert_eq!(
        inv(&bytes),
        (
            Format::Mdr,
            "header.ofs_lods",
            H_OFS_LODS,
            Problem::BelowMinimum { value: 0, min: 104 }
        )
    );
    let mut bytes = lods_past_the_first();
    let len = bytes.len() as u64;
    put_i32(&mut bytes, H_OFS_LODS, len as i32 - 4);
    assert_eq!(truncated(&err(&bytes)), ("lod", len - 4, 12, 4));
}

/// The two-LOD fixture's bytes.
fn lods_past_the_first() -> Vec<u8> {
    super::lods().write()
}

#[test]
fn rule_7_a_lod_with_a_negative_field_or_surfaces_in_its_header_is_refused() {
    let (bytes, layout) = super::lods().write_with_layout();
    let lod = layout.lods[1];
    for (field, what) in [
        (offset_of!(MdrLod, num_surfaces), "lod.num_surfaces"),
        (offset_of!(MdrLod, ofs_surfaces), "lod.ofs_surfaces"),
        (offset_of!(MdrLod, ofs_end), "lod.ofs_end"),
    ] {
        let mut bytes = bytes.clone();
        let at = lod + field as u64;
        put_i32(&mut bytes, at, -1);
        assert_eq!(
            inv(&bytes),
            (Format::Mdr, what, at, Problem::Negative { value: -1 })
        );
    }
    let mut bytes = bytes.clone();
    let at = lod + offset_of!(MdrLod, ofs_surfaces) as u64;
    put_i32(&mut bytes, at, 4);
    assert_eq!(
        inv(&bytes),
        (
            Format::Mdr,
            "lod.ofs_surfaces",
            at,
            Problem::BelowMinimum { value: 4, min: 12 }
        )
    );
}

#[test]
fn rule_7_no_lod_is_a_model_of_tags_only() {
    let mut b = Builder::triangle();
    b.lods.clear();
    let diag = warnings(&b.write());
    let w = diag.get(WarningKind::NoGroups).expect("reported");
    assert_eq!((w.what, w.offset), ("header.num_lods", H_NUM_LODS));
}

// ---- rule 8: the surface chain ----

/// A surface name without its NUL (exporters fill it with long object names, as MD3's do) is
/// a warning, the whole field the name, as a shader path cut to its field is.
#[test]
fn rule_8_an_unterminated_surface_name_or_shader_path_is_warned_about() {
    let (mut bytes, layout) = Builder::triangle().write_with_layout();
    let at = layout.surfaces[0][0] + offset_of!(MdrSurface, name) as u64;
    bytes[at as usize..at as usize + 64].fill(b'x');
    let w = warnings(&bytes)
        .get(WarningKind::UnterminatedName)
        .cloned()
        .unwrap();
    assert_eq!((w.what, w.offset, w.count), ("surface.name", at, 1));
    // A shader path cut to its field, as MD3 exporters write it: the whole field the name.
    let (mut bytes, layout) = Builder::triangle().write_with_layout();
    let at = layout.surfaces[0][0] + offset_of!(MdrSurface, shader) as u64;
    bytes[at as usize..at as usize + 64].fill(b'x');
    let w = warnings(&bytes)
        .get(WarningKind::UnterminatedName)
        .cloned()
        .unwrap();
    assert_eq!((w.what, w.offset), ("surface.shader", at));
}

#[test]
fn rule_8_a_surface_chain_leaving_the_file_is_truncation() {
    let (mut bytes, layout) = animated().write_with_layout();
    let first = layout.surfaces[0][0];
    let len = bytes.len() as u64;
    put_i32(
        &mut bytes,
        first + offset_of!(MdrSurface, ofs_end) as u64,
        (len - first - 100) as i32,
    );
    assert_eq!(truncated(&err(&bytes)), ("surface", len - 100, 168, 100));
    let mut bytes = animated().write();
    let at = first + offset_of!(MdrSurface, ofs_end) as u64;
    put_i32(&mut bytes, at, -168);
    assert_eq!(
        inv(&bytes),
        (
            Format::Mdr,
            "surface.ofs_end",
            at,
            Problem::Negative { value: -168 }
        )
    );
}

/// A fuzz timeout of the `mdr` target: 664 bytes whose surface ends at 0 bytes (each next
/// surface the same one) made 51,200 meshes, and the compact skinning of each took the
/// fuzzer past its time. A LOD that ends at 0 bytes repeats the same way. Laid end to end, as ioquake3 copies them, the
/// structures must fit in the file.
#[test]
fn rule_8_fuzz_timeout_a_chain_that_visits_a_surface_again_is_refused() {
    let (mut bytes, layout) = Builder::triangle().write_with_layout();
    let (lod, surface) = (layout.lods[0], layout.surfaces[0][0]);
    let len = bytes.len() as u64;
    // The surface's structures as written, its `ofs_end`.
    let end_at = (surface + offset_of!(MdrSurface, ofs_end) as u64) as usize;
    let one = u64::from(u32::from_le_bytes(
        bytes[end_at..end_at + 4].try_into().unwrap(),
    ));
    put_i32(
        &mut bytes,
        lod + offset_of!(MdrLod, num_surfaces) as u64,
        51_200,
    );
    put_i32(&mut bytes, end_at as u64, 0);
    let visits = len / one + 1;
    assert_eq!(
        inv(&bytes),
        (
            Format::Mdr,
            "surface",
            surface,
            Problem::Revisited {
                bytes: size_of::<MdrLod>() as u64 + visits * one,
                file: len
            }
        )
    );
    // A LOD chain that stays on one LOD of no surface is paid for by its 12 bytes each.
    let mut b = Builder::triangle();
    b.lods = vec![Vec::new()];
    let (mut bytes, layout) = b.write_with_layout();
    let len = bytes.len() as u64;
    put_i32(&mut bytes, H_NUM_LODS, 65_536);
    put_i32(
        &mut bytes,
        layout.lods[0] + offset_of!(MdrLod, ofs_end) as u64,
        0,
    );
    let visits = len / 12 + 1;
    assert_eq!(
        inv(&bytes),
        (
            Format::Mdr,
            "lod",
            layout.lods[0],
            Problem::Revisited {
                bytes: visits * 12,
                file: len
            }
        )
    );
}

// ---- rule 9: surface counts and arrays ----

#[test]
fn rule_9_negative_surface_counts_are_refused() {
    for (field, what) in [
        (offset_of!(MdrSurface, num_verts), "surface.num_verts"),
        (
            offset_of!(MdrSurface, num_triangles),
            "surface.num_triangles",
        ),
        (offset_of!(MdrSurface, ofs_verts), "surface.ofs_verts"),
        (
            offset_of!(MdrSurface, ofs_triangles),
            "surface.ofs_triangles",
        ),
    ] {
        let (mut bytes, layout) = Builder::triangle().write_with_layout();
        let at = layout.surfaces[0][0] + field as u64;
        put_i32(&mut bytes, at, -3);
        assert_eq!(
            inv(&bytes),
            (Format::Mdr, what, at, Problem::Negative { value: -3 })
        );
    }
}

#[test]
fn rule_9_arrays_inside_the_surface_header_are_refused() {
    let (mut bytes, layout) = Builder::triangle().write_with_layout();
    let at = layout.surfaces[0][0] + offset_of!(MdrSurface, ofs_verts) as u64;
    put_i32(&mut bytes, at, 100);
    assert_eq!(
        inv(&bytes),
        (
            Format::Mdr,
            "surface.ofs_verts",
            at,
            Problem::BelowMinimum {
                value: 100,
                min: 168
            }
        )
    );
}

#[test]
fn rule_9_surface_counts_past_the_limits_are_errors_and_ioquake3s_warnings() {
    let (bytes, layout) = Builder::triangle().write_with_layout();
    let at = layout.surfaces[0][0] + offset_of!(MdrSurface, num_verts) as u64;
    let limits = Limits {
        max_vertices_per_mesh: 2,
        ..Limits::default()
    };
    match err_with(&bytes, &limits) {
        Error::Limit {
            what: "surface.num_verts",
            offset,
            value: 3,
            max: 2,
            ..
        } => assert_eq!(offset, at),
        other => panic!("{other}"),
    }
    let mut b = Builder::triangle();
    let v = b.lods[0][0].vertices[0].clone();
    b.lods[0][0].vertices.resize(1000, v);
    let (bytes, layout) = b.write_with_layout();
    let diag = warnings(&bytes);
    let w = diag.get(WarningKind::SpecLimit).expect("reported");
    let at = layout.surfaces[0][0] + offset_of!(MdrSurface, num_verts) as u64;
    assert_eq!((w.what, w.offset), ("surface.num_verts", at));
}

// ---- rule 10: vertices and weight counts ----

#[test]
fn rule_10_a_vertex_without_weights_is_refused() {
    let (mut bytes, layout) = Builder::triangle().write_with_layout();
    let at = layout.vertices[0][0][0] + offset_of!(MdrVertex, num_weights) as u64;
    put_i32(&mut bytes, at, 0);
    assert_eq!(
        inv(&bytes),
        (Format::Mdr, "vertex.num_weights", at, Problem::NoInfluences)
    );
    put_i32(&mut bytes, at, -1);
    assert_eq!(
        inv(&bytes),
        (
            Format::Mdr,
            "vertex.num_weights",
            at,
            Problem::Negative { value: -1 }
        )
    );
}

#[test]
fn rule_10_weights_past_the_limits_or_the_file_are_refused() {
    let (bytes, layout) = Builder::triangle().write_with_layout();
    let second = layout.vertices[0][0][1] + offset_of!(MdrVertex, num_weights) as u64;
    let one = Limits {
        max_influences_per_vertex: 1,
        ..Limits::default()
    };
    assert!(matches!(
        err_with(&bytes, &one),
        Error::Limit { what: "vertex.num_weights", offset, value: 2, max: 1, .. } if offset == second
    ));
    let three = Limits {
        max_total_influences: 3,
        ..Limits::default()
    };
    let third = layout.vertices[0][0][2] + offset_of!(MdrVertex, num_weights) as u64;
    assert!(matches!(
        err_with(&bytes, &three),
        Error::Limit { what: "weights (all surfaces)", offset, value: 4, max: 3, .. } if offset == third
    ));
    let mut bytes = bytes.clone();
    put_i32(&mut bytes, second, 1_000_000);
    let first = layout.vertices[0][0][1] + 24;
    let many = Limits {
        max_influences_per_vertex: 2_000_000,
        ..Limits::default()
    };
    let len = bytes.len() as u64;
    assert_eq!(
        truncated(&err_with(&bytes, &many)),
        ("vertex.weights", first, 20_000_000, len - first)
    );
}

// ---- rule 11: weights ----

#[test]
fn rule_11_a_weight_on_a_bone_past_the_skeleton_is_refused() {
    let (mut bytes, layout) = Builder::triangle().write_with_layout();
    let weight = layout.vertices[0][0][1] + 24 + 20;
    let at = weight + offset_of!(MdrWeight, bone_index) as u64;
    put_i32(&mut bytes, at, 2);
    assert_eq!(
        inv(&bytes),
        (
            Format::Mdr,
            "weight.bone_index",
            at,
            Problem::Index { index: 2, len: 2 }
        )
    );
}

#[test]
fn rule_11_floats_that_are_not_finite_are_refused() {
    let (bytes, layout) = Builder::triangle().write_with_layout();
    let vertex = layout.vertices[0][0][2];
    let weight = vertex + 24;
    for (at, what) in [
        (vertex + 4, "vertex.normal"),
        (vertex + 16, "vertex.tex_coords"),
        (weight + 4, "weight.bone_weight"),
        (weight + 16, "weight.offset"),
    ] {
        let mut bytes = bytes.clone();
        put_f32(&mut bytes, at, f32::NAN);
        assert_eq!(inv(&bytes), (Format::Mdr, what, at, Problem::NotFinite));
    }
}

#[test]
fn rule_11_weights_not_summing_to_one_are_a_warning() {
    let mut b = Builder::triangle();
    b.lods[0][0].vertices[1].weights[0].weight = 0.5;
    let (bytes, layout) = b.write_with_layout();
    let diag = warnings(&bytes);
    let w = diag.get(WarningKind::InfluenceSum).expect("reported");
    assert_eq!(
        (w.what, w.offset),
        ("vertex.weights", layout.vertices[0][0][1] + 24)
    );
    assert!(
        warnings(&Builder::triangle().write())
            .get(WarningKind::InfluenceSum)
            .is_none()
    );
}

// ---- rule 12: triangles ----

#[test]
fn rule_12_a_triangle_index_past_the_vertices_is_refused() {
    let (mut bytes, layout) = Builder::triangle().write_with_layout();
    for (k, index) in [(1, 3), (2, -1)] {
        let at = layout.triangles[0][0] + 4 * k;
        put_i32(&mut bytes, at, index);
        assert_eq!(
            inv(&bytes),
            (
                Format::Mdr,
                "triangle.indexes",
                at,
                Problem::Index {
                    index: index.into(),
                    len: 3
                }
            )
        );
        put_i32(&mut bytes, at, 0);
    }
}

#[test]
fn rule_12_triangles_past_the_file_are_truncation() {
    let (mut bytes, layout) = Builder::triangle().write_with_layout();
    let at = layout.surfaces[0][0] + offset_of!(MdrSurface, num_triangles) as u64;
    put_i32(&mut bytes, at, 1000);
    assert_eq!(
        truncated(&err(&bytes)),
        (
            "triangles",
            layout.triangles[0][0],
            12_000,
            bytes.len() as u64 - layout.triangles[0][0]
        )
    );
}
