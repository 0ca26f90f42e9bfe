//! One test per validation rule of `mdm`'s module docs (`docs/formats/mdm.md` § Validation),
//! each asserting the exact error or warning and its offset: the MDM's rules, the MDX's, and
//! the pair's.

use core::mem::offset_of;

use skelmap::mdm::raw::{
    MdmHeader, MdmSurface, MdmTag, MdmVertex, MdmWeight, MdxBoneInfo, MdxFrame, MdxHeader,
};
use skelmap::mdm::{Builder, Mdm, Mdx, Pair};
use skelmap::{Error, Format, Limits, Parse, Problem, WarningKind};

use super::{invalid, mdm_err, mdm_warnings, mdx_err, mdx_warnings, put_f32, put_i32};

fn off<T>(field: usize) -> u64 {
    let _ = core::marker::PhantomData::<T>;
    field as u64
}

/// The fixture's MDM and its layout: the surface's parts, the tag's start.
fn mdm() -> (Vec<u8>, skelmap::mdm::write::SurfaceLayout, u64) {
    let b = Builder::triangle();
    let (surfaces, tags) = b.mdm_layout();
    (b.write_mdm(), surfaces[0], tags[0].start)
}

fn mdm_inv(bytes: &[u8]) -> (Format, &'static str, u64, Problem) {
    invalid(&mdm_err(bytes))
}

fn mdx_inv(bytes: &[u8]) -> (Format, &'static str, u64, Problem) {
    invalid(&mdx_err(bytes))
}

const M: Format = Format::Mdm;
const X: Format = Format::Mdx;

// ---- MDM rule 1: magic and version ----

#[test]
fn mdm_rule_1_another_magic_is_refused() {
    let (mut bytes, _, _) = mdm();
    bytes[3] = b'X';
    assert!(matches!(
        mdm_err(&bytes),
        Error::BadMagic {
            format: Format::Mdm,
            expected: "\"MDMW\""
        }
    ));
}

#[test]
fn mdm_rule_1_a_version_other_than_3_is_unsupported() {
    let (mut bytes, _, _) = mdm();
    put_i32(&mut bytes, 4, 2);
    assert!(matches!(
        mdm_err(&bytes),
        Error::Unsupported {
            format: Format::Mdm,
            what: "header.version",
            offset: 4,
            value: 2,
            ..
        }
    ));
}

// ---- MDM rule 2: the declared end ----

#[test]
fn mdm_rule_2_an_end_past_the_file_or_negative_is_refused_short_warns() {
    let (mut bytes, _, _) = mdm();
    let at = off::<MdmHeader>(offset_of!(MdmHeader, ofs_end));
    let len = bytes.len() as i32;
    put_i32(&mut bytes, at, len + 1);
    assert!(matches!(
        mdm_err(&bytes),
        Error::Truncated { format: Format::Mdm, what: "file (header.ofs_end)", offset: 0, need, have }
            if need == len as u64 + 1 && have == len as u64
    ));
    put_i32(&mut bytes, at, -1);
    assert_eq!(
        mdm_inv(&bytes),
        (M, "header.ofs_end", at, Problem::Negative { value: -1 })
    );
    put_i32(&mut bytes, at, len - 4);
    let diag = mdm_warnings(&bytes);
    assert!(diag.get(WarningKind::FileSize).is_some());
}

// ---- MDM rule 3: counts and level-of-detail factors ----

#[test]
fn mdm_rule_3_factors_finite_counts_not_negative_and_limited() {
    let (bytes, _, _) = mdm();
    let mut b = bytes.clone();
    let scale = off::<MdmHeader>(offset_of!(MdmHeader, lod_scale));
    put_f32(&mut b, scale, f32::NAN);
    assert_eq!(
        mdm_inv(&b),
        (M, "header.lod_scale", scale, Problem::NotFinite)
    );
    let mut b = bytes.clone();
    let bias = off::<MdmHeader>(offset_of!(MdmHeader, lod_bias));
    put_f32(&mut b, bias, f32::INFINITY);
    assert_eq!(
        mdm_inv(&b),
        (M, "header.lod_bias", bias, Problem::NotFinite)
    );
    let mut b = bytes.clone();
    let surfaces = off::<MdmHeader>(offset_of!(MdmHeader, num_surfaces));
    put_i32(&mut b, surfaces, -3);
    assert_eq!(
        mdm_inv(&b),
        (
            M,
            "header.num_surfaces",
            surfaces,
            Problem::Negative { value: -3 }
        )
    );
    let mut b = bytes.clone();
    let tags = off::<MdmHeader>(offset_of!(MdmHeader, num_tags));
    put_i32(&mut b, tags, 1_000_000);
    let limits = Limits::default();
    match crate::support::parse_error::<Mdm>(&b, &limits) {
        Error::Limit {
            format: Format::Mdm,
            what: "header.num_tags",
            offset,
            value: 1_000_000,
            ..
        } => {
            assert_eq!(offset, tags);
        }
        other => panic!("{other}"),
    }
    // Past ET's 32 surfaces: a warning (an empty chain of 33 fails first, so the limit is
    // checked on the count field alone).
    let mut many = Builder::triangle();
    let surface = many.surfaces[0].clone();
    many.surfaces = vec![surface; 33];
    let diag = mdm_warnings(&many.write_mdm());
    assert!(diag.get(WarningKind::SpecLimit).is_some());
}

// ---- MDM rule 4: the surfaces' chain ----

#[test]
fn mdm_rule_4_surfaces_start_past_the_header_and_lie_inside() {
    let (bytes, s, _) = mdm();
    let mut b = bytes.clone();
    let first = off::<MdmHeader>(offset_of!(MdmHeader, ofs_surfaces));
    put_i32(&mut b, first, 50);
    assert_eq!(
        mdm_inv(&b),
        (
            M,
            "header.ofs_surfaces",
            first,
            Problem::BelowMinimum {
                value: 50,
                min: 100
            }
        )
    );
    let mut b = bytes.clone();
    let name = s.start + off::<MdmSurface>(offset_of!(MdmSurface, name));
    b[name as usize..name as usize + 64].fill(b'a');
    // A surface name without its NUL (exporters fill it with long object names, as MD3's do)
    // and a shader path cut to its field, as MD3 exporters write it: warnings, the whole field
    // the name.
    let w = mdm_warnings(&b)
        .get(WarningKind::UnterminatedName)
        .cloned()
        .unwrap();
    assert_eq!((w.what, w.offset), ("surface.name", name));
    let mut b = bytes.clone();
    let shader = s.start + off::<MdmSurface>(offset_of!(MdmSurface, shader));
    b[shader as usize..shader as usize + 64].fill(b'p');
    let w = mdm_warnings(&b)
        .get(WarningKind::UnterminatedName)
        .cloned()
        .unwrap();
    assert_eq!((w.what, w.offset), ("surface.shader", shader));
    let mut b = bytes.clone();
    let end = s.start + off::<MdmSurface>(offset_of!(MdmSurface, ofs_end));
    put_i32(&mut b, end, -176);
    assert_eq!(
        mdm_inv(&b),
        (M, "surface.ofs_end", end, Problem::Negative { value: -176 })
    );
    // Two surfaces whose chain leads past the file.
    let mut b = bytes.clone();
    put_i32(
        &mut b,
        off::<MdmHeader>(offset_of!(MdmHeader, num_surfaces)),
        2,
    );
    put_i32(&mut b, end, 100_000);
    assert!(matches!(
        mdm_err(&b),
        Error::Truncated {
            format: Format::Mdm,
            what: "surface",
            offset: 100_100,
            ..
        }
    ));
}

/// As in the `mdr` target's fuzz timeout: a surface (or tag) whose `ofs_end` is 0 makes
/// every next one the same, so 65,536 of them cost one record. Laid end to end, the chain's
/// structures must fit in the file.
#[test]
fn mdm_rule_4_fuzz_timeout_a_chain_that_visits_a_surface_or_tag_again_is_refused() {
    let (bytes, s, tag) = mdm();
    let len = bytes.len() as u64;
    let revisited = |b: &[u8], what: &str, at: u64| match mdm_inv(b) {
        (M, w, offset, Problem::Revisited { bytes, file }) => {
            assert_eq!((w, offset, file), (what, at, len));
            assert!(bytes > len);
        }
        other => panic!("{other:?}"),
    };
    let mut b = bytes.clone();
    let count = off::<MdmHeader>(offset_of!(MdmHeader, num_surfaces));
    put_i32(&mut b, count, 65_536);
    put_i32(
        &mut b,
        s.start + off::<MdmSurface>(offset_of!(MdmSurface, ofs_end)),
        0,
    );
    revisited(&b, "surface", s.start);
    let mut b = bytes;
    let count = off::<MdmHeader>(offset_of!(MdmHeader, num_tags));
    put_i32(&mut b, count, 65_535);
    put_i32(&mut b, tag + off::<MdmTag>(offset_of!(MdmTag, ofs_end)), 0);
    revisited(&b, "tag", tag);
}

// ---- MDM rule 5: a surface's counts ----

#[test]
fn mdm_rule_5_surface_counts_not_negative_and_limited() {
    let (bytes, s, _) = mdm();
    let mut b = bytes.clone();
    let verts = s.start + off::<MdmSurface>(offset_of!(MdmSurface, num_verts));
    put_i32(&mut b, verts, -1);
    assert_eq!(
        mdm_inv(&b),
        (
            M,
            "surface.num_verts",
            verts,
            Problem::Negative { value: -1 }
        )
    );
    let mut b = bytes.clone();
    let refs = s.start + off::<MdmSurface>(offset_of!(MdmSurface, num_bone_references));
    put_i32(&mut b, refs, 100_000);
    assert!(matches!(
        mdm_err(&b),
        Error::Limit { format: Format::Mdm, what: "surface.num_bone_references", offset, .. } if offset == refs
    ));
    let mut b = bytes.clone();
    let tris = s.start + off::<MdmSurface>(offset_of!(MdmSurface, num_triangles));
    let limits = Limits {
        max_triangles_per_mesh: 0,
        ..Limits::default()
    };
    assert!(matches!(
        crate::support::parse_error::<Mdm>(&b, &limits),
        Error::Limit { format: Format::Mdm, what: "surface.num_triangles", offset, value: 1, max: 0 } if offset == tris
    ));
    put_i32(&mut b, tris, 0);
    assert!(Mdm::parse(&b).is_ok());
}

// ---- MDM rule 6: vertices and weights ----

#[test]
fn mdm_rule_6_vertices_have_finite_weights_on_bones_inside_the_file() {
    let (bytes, s, _) = mdm();
    let v0 = s.vertices;
    let w0 = v0 + size_of::<MdmVertex>() as u64;
    let mut b = bytes.clone();
    let count = v0 + off::<MdmVertex>(offset_of!(MdmVertex, num_weights));
    put_i32(&mut b, count, 0);
    assert_eq!(
        mdm_inv(&b),
        (M, "vertex.num_weights", count, Problem::NoInfluences)
    );
    let mut b = bytes.clone();
    put_i32(&mut b, count, 1_000_000);
    assert!(matches!(
        mdm_err(&b),
        Error::Limit {
            what: "vertex.num_weights",
            ..
        }
    ));
    let mut b = bytes.clone();
    let weight = w0 + off::<MdmWeight>(offset_of!(MdmWeight, bone_weight));
    put_f32(&mut b, weight, f32::NAN);
    assert_eq!(
        mdm_inv(&b),
        (M, "weight.bone_weight", weight, Problem::NotFinite)
    );
    let mut b = bytes.clone();
    let offset_z = w0 + off::<MdmWeight>(offset_of!(MdmWeight, offset)) + 8;
    put_f32(&mut b, offset_z, f32::NEG_INFINITY);
    assert_eq!(
        mdm_inv(&b),
        (M, "weight.offset", offset_z, Problem::NotFinite)
    );
    let mut b = bytes.clone();
    let bone = w0 + off::<MdmWeight>(offset_of!(MdmWeight, bone_index));
    put_i32(&mut b, bone, -1);
    assert_eq!(
        mdm_inv(&b),
        (
            M,
            "weight.bone_index",
            bone,
            Problem::Negative { value: -1 }
        )
    );
    let mut b = bytes.clone();
    let normal_y = v0 + off::<MdmVertex>(offset_of!(MdmVertex, normal)) + 4;
    put_f32(&mut b, normal_y, f32::NAN);
    assert_eq!(
        mdm_inv(&b),
        (M, "vertex.normal", normal_y, Problem::NotFinite)
    );
    let mut b = bytes.clone();
    let ofs = s.start + off::<MdmSurface>(offset_of!(MdmSurface, ofs_verts));
    put_i32(&mut b, ofs, 1_000_000);
    assert!(matches!(
        mdm_err(&b),
        Error::Truncated { what: "vertex", .. }
    ));
    // Weights summing to other than 1: a warning.
    let mut b = bytes.clone();
    put_f32(&mut b, weight, 0.5);
    assert!(mdm_warnings(&b).get(WarningKind::InfluenceSum).is_some());
}

// ---- MDM rule 7: triangles ----

#[test]
fn mdm_rule_7_triangle_indices_are_vertices_of_the_surface() {
    let (mut bytes, s, _) = mdm();
    put_i32(&mut bytes, s.triangles + 4, 3);
    assert_eq!(
        mdm_inv(&bytes),
        (
            M,
            "triangle.indexes",
            s.triangles + 4,
            Problem::Index { index: 3, len: 3 }
        )
    );
}

// ---- MDM rule 8: collapse map and bone references ----

#[test]
fn mdm_rule_8_collapse_map_entries_in_range_bone_references_not_negative() {
    let (bytes, s, _) = mdm();
    let mut b = bytes.clone();
    put_i32(&mut b, s.collapse_map + 8, 3);
    assert_eq!(
        mdm_inv(&b),
        (
            M,
            "collapse_map",
            s.collapse_map + 8,
            Problem::Index { index: 3, len: 3 }
        )
    );
    let mut b = bytes.clone();
    put_i32(&mut b, s.collapse_map, -1);
    assert_eq!(
        mdm_inv(&b),
        (
            M,
            "collapse_map",
            s.collapse_map,
            Problem::Index { index: -1, len: 3 }
        )
    );
    let mut b = bytes.clone();
    put_i32(&mut b, s.bone_references + 4, -2);
    assert_eq!(
        mdm_inv(&b),
        (
            M,
            "surface.bone_references",
            s.bone_references + 4,
            Problem::Negative { value: -2 }
        )
    );
    let mut b = bytes.clone();
    let ofs = s.start + off::<MdmSurface>(offset_of!(MdmSurface, ofs_collapse_map));
    put_i32(&mut b, ofs, -4);
    assert_eq!(
        mdm_inv(&b),
        (
            M,
            "surface.ofs_collapse_map",
            ofs,
            Problem::Negative { value: -4 }
        )
    );
    let mut b = bytes;
    put_i32(&mut b, ofs, 1_000_000);
    assert!(matches!(
        mdm_err(&b),
        Error::Truncated {
            what: "collapse map",
            ..
        }
    ));
}

// ---- MDM rule 9: tags ----

#[test]
fn mdm_rule_9_tags_lie_inside_with_finite_axes_and_bones_not_negative() {
    let (bytes, _, tag) = mdm();
    let mut b = bytes.clone();
    let axis = tag + off::<MdmTag>(offset_of!(MdmTag, axis)) + 16;
    put_f32(&mut b, axis, f32::NAN);
    assert_eq!(mdm_inv(&b), (M, "tag.axis", axis, Problem::NotFinite));
    let mut b = bytes.clone();
    let bone = tag + off::<MdmTag>(offset_of!(MdmTag, bone_index));
    put_i32(&mut b, bone, -5);
    assert_eq!(
        mdm_inv(&b),
        (M, "tag.bone_index", bone, Problem::Negative { value: -5 })
    );
    let mut b = bytes.clone();
    b[tag as usize..tag as usize + 64].fill(b't');
    assert_eq!(
        mdm_inv(&b),
        (M, "tag.name", tag, Problem::Unterminated { len: 64 })
    );
    let mut b = bytes.clone();
    let refs = tag + off::<MdmTag>(offset_of!(MdmTag, num_bone_references));
    put_i32(&mut b, refs, 3);
    assert!(matches!(
        mdm_err(&b),
        Error::Truncated {
            format: Format::Mdm,
            what: "tag bone references",
            ..
        }
    ));
    let mut b = bytes.clone();
    let first = off::<MdmHeader>(offset_of!(MdmHeader, ofs_tags));
    put_i32(&mut b, first, 99);
    assert_eq!(
        mdm_inv(&b),
        (
            M,
            "header.ofs_tags",
            first,
            Problem::BelowMinimum {
                value: 99,
                min: 100
            }
        )
    );
    let mut b = bytes;
    put_i32(&mut b, first, 1_000_000);
    assert!(matches!(
        mdm_err(&b),
        Error::Truncated {
            what: "tag",
            offset: 1_000_000,
            ..
        }
    ));
}

// ---- MDX rule 1: magic and version ----

#[test]
fn mdx_rule_1_magic_and_version() {
    let mut bytes = Builder::triangle().write_mdx();
    put_i32(&mut bytes, 4, 3);
    assert!(matches!(
        mdx_err(&bytes),
        Error::Unsupported {
            format: Format::Mdx,
            what: "header.version",
            offset: 4,
            value: 3,
            ..
        }
    ));
    bytes[0] = b'N';
    assert!(matches!(
        mdx_err(&bytes),
        Error::BadMagic {
            format: Format::Mdx,
            ..
        }
    ));
}

// ---- MDX rule 2: the declared end ----

#[test]
fn mdx_rule_2_an_end_past_the_file_is_refused_trailing_bytes_warn() {
    let mut bytes = Builder::triangle().write_mdx();
    let at = off::<MdxHeader>(offset_of!(MdxHeader, ofs_end));
    let len = bytes.len() as i32;
    put_i32(&mut bytes, at, len + 8);
    assert!(matches!(
        mdx_err(&bytes),
        Error::Truncated {
            format: Format::Mdx,
            what: "file (header.ofs_end)",
            ..
        }
    ));
    put_i32(&mut bytes, at, len);
    bytes.extend_from_slice(&[0; 8]);
    assert!(mdx_warnings(&bytes).get(WarningKind::FileSize).is_some());
}

// ---- MDX rule 3: counts ----

#[test]
fn mdx_rule_3_at_least_one_frame_and_bone() {
    let bytes = Builder::triangle().write_mdx();
    let frames = off::<MdxHeader>(offset_of!(MdxHeader, num_frames));
    let bones = off::<MdxHeader>(offset_of!(MdxHeader, num_bones));
    let mut b = bytes.clone();
    put_i32(&mut b, frames, 0);
    assert_eq!(
        mdx_inv(&b),
        (X, "header.num_frames", frames, Problem::Empty)
    );
    let mut b = bytes.clone();
    put_i32(&mut b, bones, -1);
    assert_eq!(
        mdx_inv(&b),
        (
            X,
            "header.num_bones",
            bones,
            Problem::Negative { value: -1 }
        )
    );
    let mut b = bytes;
    put_i32(&mut b, frames, 1 << 30);
    assert!(matches!(
        mdx_err(&b),
        Error::Limit {
            what: "header.num_frames",
            ..
        }
    ));
}

// ---- MDX rule 4: frames ----

#[test]
fn mdx_rule_4_frames_past_the_header_inside_the_file_and_finite() {
    let builder = Builder::triangle();
    let bytes = builder.write_mdx();
    let (frames, _, stride) = builder.mdx_layout();
    let ofs = off::<MdxHeader>(offset_of!(MdxHeader, ofs_frames));
    let mut b = bytes.clone();
    put_i32(&mut b, ofs, 40);
    assert_eq!(
        mdx_inv(&b),
        (
            X,
            "header.ofs_frames",
            ofs,
            Problem::BelowMinimum { value: 40, min: 96 }
        )
    );
    let mut b = bytes.clone();
    let parent_offset = frames + stride + off::<MdxFrame>(offset_of!(MdxFrame, parent_offset)) + 4;
    put_f32(&mut b, parent_offset, f32::NAN);
    assert_eq!(
        mdx_inv(&b),
        (X, "frame.parent_offset", parent_offset, Problem::NotFinite)
    );
    let mut b = bytes.clone();
    let radius = frames + 2 * stride + off::<MdxFrame>(offset_of!(MdxFrame, radius));
    put_f32(&mut b, radius, f32::INFINITY);
    assert_eq!(mdx_inv(&b), (X, "frame.radius", radius, Problem::NotFinite));
    let mut b = bytes;
    put_i32(&mut b, ofs, 400);
    assert!(matches!(
        mdx_err(&b),
        Error::Truncated {
            format: Format::Mdx,
            what: "frames",
            offset: 400,
            ..
        }
    ));
}

// ---- MDX rule 5: bones ----

#[test]
fn mdx_rule_5_bones_named_parented_before_and_finite() {
    let builder = Builder::triangle();
    let bytes = builder.write_mdx();
    let (_, bones, _) = builder.mdx_layout();
    let second = bones + size_of::<MdxBoneInfo>() as u64;
    let mut b = bytes.clone();
    let parent = second + off::<MdxBoneInfo>(offset_of!(MdxBoneInfo, parent));
    put_i32(&mut b, parent, 1);
    assert_eq!(
        mdx_inv(&b),
        (
            X,
            "bone.parent",
            parent,
            Problem::Parent { bone: 1, parent: 1 }
        )
    );
    let mut b = bytes.clone();
    b[bones as usize..bones as usize + 64].fill(b'b');
    assert_eq!(
        mdx_inv(&b),
        (X, "bone.name", bones, Problem::Unterminated { len: 64 })
    );
    let mut b = bytes.clone();
    let dist = second + off::<MdxBoneInfo>(offset_of!(MdxBoneInfo, parent_dist));
    put_f32(&mut b, dist, f32::NAN);
    assert_eq!(
        mdx_inv(&b),
        (X, "bone.parent_dist", dist, Problem::NotFinite)
    );
    let mut b = bytes.clone();
    let weight = second + off::<MdxBoneInfo>(offset_of!(MdxBoneInfo, torso_weight));
    put_f32(&mut b, weight, f32::NAN);
    assert_eq!(
        mdx_inv(&b),
        (X, "bone.torso_weight", weight, Problem::NotFinite)
    );
    let mut b = bytes;
    let ofs = off::<MdxHeader>(offset_of!(MdxHeader, ofs_bones));
    put_i32(&mut b, ofs, 95);
    assert_eq!(
        mdx_inv(&b),
        (
            X,
            "header.ofs_bones",
            ofs,
            Problem::BelowMinimum { value: 95, min: 96 }
        )
    );
}

// ---- MDX rule 6: torso parent ----

#[test]
fn mdx_rule_6_the_torso_parent_is_a_bone_or_minus_one() {
    let bytes = Builder::triangle().write_mdx();
    let at = off::<MdxHeader>(offset_of!(MdxHeader, torso_parent));
    let mut b = bytes.clone();
    put_i32(&mut b, at, 2);
    assert_eq!(
        mdx_inv(&b),
        (
            X,
            "header.torso_parent",
            at,
            Problem::Index { index: 2, len: 2 }
        )
    );
    put_i32(&mut b, at, -2);
    assert_eq!(
        mdx_inv(&b),
        (
            X,
            "header.torso_parent",
            at,
            Problem::Index { index: -2, len: 2 }
        )
    );
    put_i32(&mut b, at, -1);
    assert_eq!(Mdx::parse(&b).unwrap().torso_parent(), None);
}

// ---- pair rule 1: every bone the mesh names is the skeleton's ----

#[test]
fn pair_rule_1_a_bone_past_the_skeleton_is_refused_where_the_mesh_names_it() {
    let mut b = Builder::triangle();
    b.surfaces[0].vertices[1].weights[0].bone = 5;
    b.tags[0].bone = 3;
    let (mdm, mdx) = b.write();
    let (surfaces, _) = b.mdm_layout();
    // Vertex 1 follows vertex 0 and its one weight.
    let v1 = surfaces[0].vertices + (size_of::<MdmVertex>() + size_of::<MdmWeight>()) as u64;
    let bone = v1 + size_of::<MdmVertex>() as u64;
    let mesh = Mdm::parse(&mdm).unwrap();
    assert_eq!(mesh.max_bone(), Some(5));
    let e = Pair::new(mesh, Mdx::parse(&mdx).unwrap()).unwrap_err();
    assert_eq!(
        invalid(&e),
        (
            M,
            "weight.bone_index",
            bone,
            Problem::Index { index: 5, len: 2 }
        )
    );
    // A tag's bone alone.
    let mut b = Builder::triangle();
    b.tags[0].bone = 2;
    let (mdm, mdx) = b.write();
    let tag = b.mdm_layout().1[0].start;
    let e = Pair::new(Mdm::parse(&mdm).unwrap(), Mdx::parse(&mdx).unwrap()).unwrap_err();
    assert_eq!(
        invalid(&e),
        (
            M,
            "tag.bone_index",
            tag + off::<MdmTag>(offset_of!(MdmTag, bone_index)),
            Problem::Index { index: 2, len: 2 }
        )
    );
}
