//! One test per validation rule of `docs/formats/dpm.md`, each on a fixture written by `dpm::Builder`
//! with one field broken, asserting the exact error variant, field and byte offset.
//!
//! Fixture: the default tube (support::tube): 4 bones, 1 mesh (136 vertices, 256 triangles),
//! 9 frames, laid out by the builder in dpmodel order; `layout` gives every offset.

use skelmap::Parse;
use skelmap::{Diagnostics, Error, Format, Limits, dpm::Dpm};

use crate::support::{hdr, put_f32, put_i32, put_u32, tube};

fn parse_err(bytes: &[u8]) -> Error {
    parse_err_with(bytes, &Limits::default())
}

fn parse_err_with(bytes: &[u8], limits: &Limits) -> Error {
    match Dpm::parse_with(bytes, limits, &mut Diagnostics::new()) {
        Ok(_) => panic!("the broken fixture was accepted"),
        Err(e) => {
            assert_eq!(e.format(), Some(Format::Dpm), "{e}");
            e
        }
    }
}

const BONE: u64 = 40;
const FRAME: u64 = 68;
const POSE: u64 = 48;

// ---- rule 1: length, magic, type ----

#[test]
fn rule1_data_shorter_than_header_is_truncated() {
    let (bytes, _) = tube();
    let e = parse_err(&bytes[..79]);
    assert!(
        matches!(
            e,
            Error::Truncated {
                what: "header",
                offset: 0,
                need: 80,
                have: 79,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn rule1_empty_data_is_truncated_header() {
    let e = parse_err(&[]);
    assert!(
        matches!(
            e,
            Error::Truncated {
                what: "header",
                offset: 0,
                need: 80,
                have: 0,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn rule1_all_sixteen_magic_bytes_must_match() {
    let (mut bytes, _) = tube();
    bytes[15] = b'!'; // the NUL ending "DARKPLACESMODEL\0"
    assert!(matches!(parse_err(&bytes), Error::BadMagic { .. }));
    let e = parse_err(b"DARKPLACESMODEX");
    assert!(
        matches!(e, Error::BadMagic { .. }),
        "a short non-prefix is not a DPM: {e}"
    );
}

#[test]
fn rule1_type_other_than_2_is_unsupported() {
    let (mut bytes, _) = tube();
    put_u32(&mut bytes, hdr::TYPE, 1);
    let e = parse_err(&bytes);
    assert!(
        matches!(
            e,
            Error::Unsupported {
                what: "header.type",
                offset: 16,
                ..
            }
        ),
        "{e}"
    );
}

// ---- rule 2: at least one bone, mesh and frame ----

#[test]
fn rule2_no_bones() {
    let (mut bytes, _) = tube();
    put_u32(&mut bytes, hdr::NUM_BONES, 0);
    let e = parse_err(&bytes);
    assert!(
        matches!(
            e,
            Error::Invalid {
                what: "header.num_bones",
                offset: 56,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn rule2_no_meshes() {
    let (mut bytes, _) = tube();
    put_u32(&mut bytes, hdr::NUM_MESHS, 0);
    let e = parse_err(&bytes);
    assert!(
        matches!(
            e,
            Error::Invalid {
                what: "header.num_meshs",
                offset: 60,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn rule2_no_frames() {
    let (mut bytes, _) = tube();
    put_u32(&mut bytes, hdr::NUM_FRAMES, 0);
    let e = parse_err(&bytes);
    assert!(
        matches!(
            e,
            Error::Invalid {
                what: "header.num_frames",
                offset: 64,
                ..
            }
        ),
        "{e}"
    );
}

// ---- rule 3: caps (Limits) ----

#[test]
fn rule3_bones_over_default_cap_of_65535() {
    let (mut bytes, _) = tube();
    put_u32(&mut bytes, hdr::NUM_BONES, 65_536);
    let e = parse_err(&bytes);
    assert!(
        matches!(
            e,
            Error::Limit {
                what: "header.num_bones",
                offset: 56,
                value: 65_536,
                max: 65_535,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn rule3_meshes_over_configured_limit() {
    let (bytes, _) = tube();
    let limits = Limits {
        max_meshes: 0,
        ..Limits::default()
    };
    let e = parse_err_with(&bytes, &limits);
    assert!(
        matches!(
            e,
            Error::Limit {
                what: "header.num_meshs",
                offset: 60,
                value: 1,
                max: 0,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn rule3_frames_over_default_cap_of_65536() {
    let (mut bytes, _) = tube();
    put_u32(&mut bytes, hdr::NUM_FRAMES, 65_537);
    let e = parse_err(&bytes);
    assert!(
        matches!(
            e,
            Error::Limit {
                what: "header.num_frames",
                offset: 64,
                value: 65_537,
                max: 65_536,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn rule3_file_size_over_configured_limit() {
    let (bytes, _) = tube();
    let limits = Limits {
        max_file_size: 1000,
        ..Limits::default()
    };
    let e = parse_err_with(&bytes, &limits);
    assert!(
        matches!(
            e,
            Error::Limit {
                what: "file size",
                offset: 0,
                max: 1000,
                ..
            }
        ),
        "{e}"
    );
}

// ---- rule 4: declared file size ----

#[test]
fn rule4_filesize_larger_than_data_is_truncated() {
    let (mut bytes, layout) = tube();
    put_u32(&mut bytes, hdr::FILESIZE, layout.filesize as u32 + 1);
    let e = parse_err(&bytes);
    let (need, have) = (layout.filesize + 1, layout.filesize);
    assert!(
        matches!(e, Error::Truncated { what: "file (header.filesize)", offset: 0, need: n, have: h, .. } if n == need && h == have),
        "{e}"
    );
}

#[test]
fn rule4_filesize_smaller_than_header_is_invalid() {
    let (mut bytes, _) = tube();
    put_u32(&mut bytes, hdr::FILESIZE, 79);
    let e = parse_err(&bytes);
    assert!(
        matches!(
            e,
            Error::Invalid {
                what: "header.filesize",
                offset: 20,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn rule4_nothing_is_read_past_a_smaller_declared_filesize() {
    // Declare the file 48 bytes (one bone pose) shorter: the last frame's poses no longer fit,
    // although the bytes are present.
    let (mut bytes, layout) = tube();
    put_u32(&mut bytes, hdr::FILESIZE, layout.filesize as u32 - 48);
    let e = parse_err(&bytes);
    let last = layout.frame_poses[8];
    assert!(
        matches!(e, Error::Truncated { what: "frame.bonepositions", offset, need: 192, have: 144, .. } if offset == last),
        "{e}"
    );
}

// ---- rule 5: tables in bounds ----

#[test]
fn rule5_bone_table_past_end() {
    let (mut bytes, layout) = tube();
    let at = layout.filesize - 10;
    put_u32(&mut bytes, hdr::OFS_BONES, at as u32);
    let e = parse_err(&bytes);
    assert!(
        matches!(e, Error::Truncated { what: "bone table", offset, need: 160, have: 10, .. } if offset == at),
        "{e}"
    );
}

#[test]
fn rule5_mesh_table_offset_beyond_4gib_does_not_wrap() {
    let (mut bytes, _) = tube();
    put_u32(&mut bytes, hdr::OFS_MESHS, u32::MAX);
    let e = parse_err(&bytes);
    assert!(
        matches!(
            e,
            Error::Truncated {
                what: "mesh table",
                offset: 4_294_967_295,
                need: 56,
                have: 0,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn rule5_frame_table_longer_than_file() {
    let (mut bytes, layout) = tube();
    put_u32(&mut bytes, hdr::NUM_FRAMES, 65_536);
    let e = parse_err(&bytes);
    let have = layout.filesize - layout.ofs_frames;
    assert!(
        matches!(e, Error::Truncated { what: "frame table", need: 4_456_448, have: h, .. } if h == have),
        "{e}"
    );
}

// ---- rule 6: parents ----

#[test]
fn rule6_parent_below_minus_one() {
    let (mut bytes, layout) = tube();
    let field = layout.ofs_bones + BONE + 32; // bone 1 . parent
    put_i32(&mut bytes, field, -2);
    let e = parse_err(&bytes);
    assert!(
        matches!(e, Error::Invalid { what: "bone.parent", offset, .. } if offset == field),
        "{e}"
    );
}

#[test]
fn rule6_parent_equal_to_own_index() {
    let (mut bytes, layout) = tube();
    let field = layout.ofs_bones + 2 * BONE + 32; // bone 2 . parent
    put_i32(&mut bytes, field, 2);
    let e = parse_err(&bytes);
    assert!(
        matches!(e, Error::Invalid { what: "bone.parent", offset, .. } if offset == field),
        "{e}"
    );
}

#[test]
fn rule6_parent_after_child() {
    let (mut bytes, layout) = tube();
    let field = layout.ofs_bones + 32; // bone 0 . parent
    put_i32(&mut bytes, field, 3);
    let e = parse_err(&bytes);
    assert!(
        matches!(e, Error::Invalid { what: "bone.parent", offset, .. } if offset == field),
        "{e}"
    );
}

// ---- rule 7: frame pose blocks ----

#[test]
fn rule7_negative_pose_offset() {
    let (mut bytes, layout) = tube();
    let field = layout.ofs_frames + 3 * FRAME + 64; // frame 3 . ofs_bonepositions
    put_i32(&mut bytes, field, -4);
    let e = parse_err(&bytes);
    assert!(
        matches!(e, Error::Invalid { what: "frame.ofs_bonepositions", offset, .. } if offset == field),
        "{e}"
    );
}

#[test]
fn rule7_pose_block_past_end() {
    let (mut bytes, layout) = tube();
    let at = layout.filesize - 100;
    put_i32(&mut bytes, layout.ofs_frames + 64, at as i32); // frame 0
    let e = parse_err(&bytes);
    assert!(
        matches!(e, Error::Truncated { what: "frame.bonepositions", offset, need: 192, have: 100, .. } if offset == at),
        "{e}"
    );
}

// ---- rule 8: mesh counts and arrays ----

#[test]
fn rule8_mesh_without_vertices() {
    let (mut bytes, layout) = tube();
    let field = layout.meshes[0].header + 32;
    put_u32(&mut bytes, field, 0);
    let e = parse_err(&bytes);
    assert!(
        matches!(e, Error::Invalid { what: "mesh.num_verts", offset, .. } if offset == field),
        "{e}"
    );
}

#[test]
fn rule8_mesh_without_triangles() {
    let (mut bytes, layout) = tube();
    let field = layout.meshes[0].header + 36;
    put_u32(&mut bytes, field, 0);
    let e = parse_err(&bytes);
    assert!(
        matches!(e, Error::Invalid { what: "mesh.num_tris", offset, .. } if offset == field),
        "{e}"
    );
}

#[test]
fn rule8_vertices_over_limit() {
    let (bytes, layout) = tube();
    let limits = Limits {
        max_vertices_per_mesh: 135,
        ..Limits::default()
    };
    let e = parse_err_with(&bytes, &limits);
    let field = layout.meshes[0].header + 32;
    assert!(
        matches!(e, Error::Limit { what: "mesh.num_verts", offset, value: 136, max: 135, .. } if offset == field),
        "{e}"
    );
}

#[test]
fn rule8_triangles_over_limit() {
    let (bytes, layout) = tube();
    let limits = Limits {
        max_triangles_per_mesh: 255,
        ..Limits::default()
    };
    let e = parse_err_with(&bytes, &limits);
    let field = layout.meshes[0].header + 36;
    assert!(
        matches!(e, Error::Limit { what: "mesh.num_tris", offset, value: 256, max: 255, .. } if offset == field),
        "{e}"
    );
}

#[test]
fn rule8_texcoords_past_end() {
    let (mut bytes, layout) = tube();
    let at = layout.filesize - 8;
    put_u32(&mut bytes, layout.meshes[0].header + 44, at as u32);
    let e = parse_err(&bytes);
    assert!(
        matches!(e, Error::Truncated { what: "mesh.texcoords", offset, need: 1088, have: 8, .. } if offset == at),
        "{e}"
    );
}

#[test]
fn rule8_indices_past_end() {
    let (mut bytes, layout) = tube();
    let at = layout.filesize;
    put_u32(&mut bytes, layout.meshes[0].header + 48, at as u32);
    let e = parse_err(&bytes);
    assert!(
        matches!(e, Error::Truncated { what: "mesh.indices", offset, need: 3072, have: 0, .. } if offset == at),
        "{e}"
    );
}

#[test]
fn rule8_groupids_past_end() {
    let (mut bytes, layout) = tube();
    let at = layout.filesize - 1020;
    put_u32(&mut bytes, layout.meshes[0].header + 52, at as u32);
    let e = parse_err(&bytes);
    assert!(
        matches!(e, Error::Truncated { what: "mesh.groupids", offset, need: 1024, have: 1020, .. } if offset == at),
        "{e}"
    );
}

// ---- rule 9: the variable-length vertex walk ----

#[test]
fn rule9_vertex_without_influences() {
    let (mut bytes, layout) = tube();
    let at = layout.meshes[0].ofs_verts;
    put_u32(&mut bytes, at, 0);
    let e = parse_err(&bytes);
    assert!(
        matches!(e, Error::Invalid { what: "vertex.numbones", offset, .. } if offset == at),
        "{e}"
    );
}

#[test]
fn rule9_influences_over_cap_of_16() {
    let (mut bytes, layout) = tube();
    let at = layout.meshes[0].ofs_verts;
    put_u32(&mut bytes, at, 17);
    let e = parse_err(&bytes);
    assert!(
        matches!(e, Error::Limit { what: "vertex.numbones", offset, value: 17, max: 16, .. } if offset == at),
        "{e}"
    );
}

#[test]
fn rule9_count_prefix_past_end() {
    let (mut bytes, layout) = tube();
    let at = layout.filesize - 2;
    put_u32(&mut bytes, layout.meshes[0].header + 40, at as u32);
    let e = parse_err(&bytes);
    assert!(
        matches!(e, Error::Truncated { what: "vertex.numbones", offset, need: 4, have: 2, .. } if offset == at),
        "{e}"
    );
}

#[test]
fn rule9_influence_records_past_end() {
    // Append a vertex that claims 2 influences but carries only one record, and point the
    // mesh's vertices at it.
    let (mut bytes, layout) = tube();
    let at = layout.filesize;
    bytes.extend_from_slice(&2u32.to_be_bytes()); // numbones = 2
    bytes.extend_from_slice(&[0; 32]); // one bonevert (all zero: bone 0, weight 0)
    let new_size = bytes.len() as u32;
    put_u32(&mut bytes, hdr::FILESIZE, new_size);
    put_u32(&mut bytes, layout.meshes[0].header + 40, at as u32);
    let e = parse_err(&bytes);
    assert!(
        matches!(e, Error::Truncated { what: "vertex.boneverts", offset, need: 64, have: 32, .. } if offset == at + 4),
        "{e}"
    );
}

#[test]
fn rule9_bonenum_out_of_range() {
    let (mut bytes, layout) = tube();
    let field = layout.meshes[0].ofs_verts + 4 + 28; // vertex 0, record 0, bonenum
    put_u32(&mut bytes, field, 4);
    let e = parse_err(&bytes);
    assert!(
        matches!(e, Error::Invalid { what: "bonevert.bonenum", offset, .. } if offset == field),
        "{e}"
    );
}

#[test]
fn rule9_total_influences_over_limit() {
    let (bytes, layout) = tube();
    // Walk the builder's own vertices to find the one whose influences push the total past 3.
    let vertices = &crate::support::tube_builder().meshes[0].vertices;
    let (mut offset, mut total) = (layout.meshes[0].ofs_verts, 0u64);
    for v in vertices {
        total += v.len() as u64;
        if total > 3 {
            break;
        }
        offset += 4 + 32 * v.len() as u64;
    }
    let limits = Limits {
        max_total_influences: 3,
        ..Limits::default()
    };
    let e = parse_err_with(&bytes, &limits);
    assert!(
        matches!(e, Error::Limit { what: "total bone influences", offset: o, value: v, max: 3, .. } if o == offset && v == total),
        "{e}"
    );
}

// ---- rule 10: triangle indices ----

#[test]
fn rule10_index_equal_to_vertex_count() {
    let (mut bytes, layout) = tube();
    let field = layout.meshes[0].ofs_indices + 4 * 17; // triangle 5, corner 2
    put_u32(&mut bytes, field, 136);
    let e = parse_err(&bytes);
    assert!(
        matches!(e, Error::Invalid { what: "mesh.indices", offset, .. } if offset == field),
        "{e}"
    );
}

// ---- rule 11: non-finite floats ----

#[test]
fn rule11_nan_in_bone_pose() {
    let (mut bytes, layout) = tube();
    let field = layout.frame_poses[2] + POSE + (4 + 3) * 4; // frame 2, bone 1, row 1, column 3
    put_f32(&mut bytes, field, f32::NAN);
    let e = parse_err(&bytes);
    assert!(
        matches!(e, Error::Invalid { what: "bonepose.matrix", offset, .. } if offset == field),
        "{e}"
    );
}

/// The frames' pose blocks one after another (as the writer lays them out) are scanned at
/// once; out of that order each frame scans its own. Either way the first frame in table
/// order with a non-finite value is the one reported, at that value's byte.
#[test]
fn rule11_nan_in_bone_pose_is_reported_in_frame_order_whatever_the_blocks_order() {
    let (clean, layout) = tube();
    let frames = layout.frame_poses.len();
    assert!(frames >= 4);
    let ofs_field = |f: usize| layout.ofs_frames + 68 * f as u64 + 64;
    // Frames 1 and 2 swap blocks: frame 1 reads the block after frame 2's.
    let mut swapped = clean.clone();
    put_i32(&mut swapped, ofs_field(1), layout.frame_poses[2] as i32);
    put_i32(&mut swapped, ofs_field(2), layout.frame_poses[1] as i32);
    assert_eq!(
        Dpm::parse(&swapped).ok().map(|d| d.num_frames()),
        Some(frames)
    );
    // An infinity in the third block (frame 2's in order, frame 1's swapped) and a NaN in the
    // last: the infinity is reported.
    for bytes in [&clean, &swapped] {
        let mut bytes = bytes.clone();
        let last = layout.frame_poses[frames - 1] + 5 * 4;
        put_f32(&mut bytes, last, f32::NAN);
        let infinity = layout.frame_poses[2] + 7 * 4;
        put_f32(&mut bytes, infinity, f32::INFINITY);
        let e = parse_err(&bytes);
        assert!(
            matches!(e, Error::Invalid { what: "bonepose.matrix", offset, .. } if offset == infinity),
            "{e}"
        );
    }
    // Frame 1 reads the block that ends where the first begins (the last mesh's group ids,
    // which validation does not read as floats): an infinity there is reported, though the
    // blocks from the first on are clean.
    let block = layout.frame_poses[1] - layout.frame_poses[0];
    let mut bytes = clean.clone();
    put_i32(
        &mut bytes,
        ofs_field(1),
        (layout.frame_poses[0] - block) as i32,
    );
    let infinity = layout.frame_poses[0] - 4;
    put_f32(&mut bytes, infinity, f32::INFINITY);
    let e = parse_err(&bytes);
    assert!(
        matches!(e, Error::Invalid { what: "bonepose.matrix", offset, .. } if offset == infinity),
        "{e}"
    );
}

#[test]
fn rule11_infinite_origin() {
    let (mut bytes, layout) = tube();
    let record = layout.meshes[0].ofs_verts + 4;
    put_f32(&mut bytes, record + 4, f32::INFINITY); // origin.y
    let e = parse_err(&bytes);
    assert!(
        matches!(e, Error::Invalid { what: "bonevert.origin", offset, .. } if offset == record),
        "{e}"
    );
}

#[test]
fn rule11_nan_influence() {
    let (mut bytes, layout) = tube();
    let record = layout.meshes[0].ofs_verts + 4; // vertex 0, record 0
    put_f32(&mut bytes, record + 12, f32::NAN);
    let e = parse_err(&bytes);
    assert!(
        matches!(e, Error::Invalid { what: "bonevert.influence", offset, .. } if offset == record + 12),
        "{e}"
    );
}

#[test]
fn rule11_nan_normal() {
    let (mut bytes, layout) = tube();
    let record = layout.meshes[0].ofs_verts + 4;
    put_f32(&mut bytes, record + 24, f32::NEG_INFINITY); // normal.z
    let e = parse_err(&bytes);
    assert!(
        matches!(e, Error::Invalid { what: "bonevert.normal", offset, .. } if offset == record + 16),
        "{e}"
    );
}

#[test]
fn error_messages_name_format_field_and_offset() {
    let (mut bytes, layout) = tube();
    let field = layout.ofs_bones + BONE + 32;
    put_i32(&mut bytes, field, -7);
    let text = parse_err(&bytes).to_string();
    assert_eq!(
        text,
        format!(
            "DPM: invalid bone.parent at offset {field}: bone 1 has parent -7; it must be -1 or an earlier bone"
        )
    );
}
