//! One test per validation rule of `docs/formats/iqm.md`, each asserting the error's variant,
//! label, offset and problem.

use skelmap::Parse;
use skelmap::iqm::{self, ArrayDef, Iqm, Transform};
use skelmap::{Diagnostics, Error, Format, Limits, Problem, Skeleton, WarningKind};

use super::{err, err_bytes, warnings, warnings_bytes};
use crate::support::iqm::{at, demo};
use crate::support::{put_f32_le, put_u32_le};

/// `get_u32` reads big-endian; IQM is little-endian.
fn u32_le(bytes: &[u8], at: u64) -> u32 {
    let at = at as usize;
    u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap())
}

fn invalid(e: &Error) -> (&'static str, u64, Problem) {
    match e {
        Error::Invalid {
            what,
            offset,
            problem,
            ..
        } => (what, *offset, *problem),
        other => panic!("expected Invalid, got {other}"),
    }
}

#[test]
fn demo_fixture_is_clean() {
    let bytes = demo().write().unwrap();
    assert_eq!(Format::sniff(&bytes), Some(Format::Iqm));
    let mut diag = Diagnostics::new();
    let m = Iqm::parse_with(&bytes, &Limits::default(), &mut diag).unwrap();
    assert!(diag.is_empty(), "{:?}", diag.warnings());
    assert_eq!(
        (
            m.num_vertices(),
            m.num_triangles(),
            m.num_meshes(),
            m.num_joints(),
            m.num_poses(),
            m.num_frames(),
            m.num_anims()
        ),
        (8, 4, 2, 3, 3, 4, 2)
    );
    // The spine's rotation z and w, the head's X scale: three channels animate.
    assert_eq!(m.num_framechannels(), 3);
    assert!(m.has_scale());
    assert_eq!(m.bone_index(b"head"), Some(2));
    assert_eq!(m.mesh_material(1), Some(&b"head.png"[..]));
    assert_eq!(m.anim(1).unwrap().name, b"wave");
    assert_eq!(m.anim(1).unwrap().fps(), 15.0);
    assert!(m.anim(0).unwrap().looped);
    assert_eq!(m.frame_bounds(3).unwrap().aabb.maxs, [1.0, 2.5, 0.0]);
    assert_eq!(u32_le(&bytes, at::FILESIZE) as usize, bytes.len());
}

#[test]
fn rule1_short_header_bad_magic_and_version_1() {
    let mut bytes = demo().write().unwrap();
    assert!(matches!(
        err_bytes(&bytes[..123]),
        Error::Truncated {
            what: "header",
            need: 124,
            have: 123,
            ..
        }
    ));
    let mut other = bytes.clone();
    other[3] = b'x';
    assert!(matches!(err_bytes(&other), Error::BadMagic { .. }));
    put_u32_le(&mut bytes, at::VERSION, 1);
    let e = err_bytes(&bytes);
    assert!(
        matches!(
            e,
            Error::Unsupported {
                what: "header.version",
                offset: 16,
                value: 1,
                ..
            }
        ),
        "{e}"
    );
    assert!(e.to_string().contains("only version 2"), "{e}");
}

#[test]
fn rule2_declared_filesize_bounds_the_data() {
    let bytes = demo().write().unwrap();
    let len = bytes.len() as u32;
    let mut over = bytes.clone();
    put_u32_le(&mut over, at::FILESIZE, len + 1);
    assert!(matches!(
        err_bytes(&over),
        Error::Truncated {
            what: "file (header.filesize)",
            ..
        }
    ));
    let mut under = bytes.clone();
    put_u32_le(&mut under, at::FILESIZE, 100);
    assert_eq!(
        invalid(&err_bytes(&under)),
        (
            "header.filesize",
            20,
            Problem::BelowMinimum {
                value: 100,
                min: 124
            }
        )
    );
    let mut longer = bytes.clone();
    longer.extend_from_slice(&[0; 8]);
    let diag = warnings_bytes(&longer);
    assert_eq!(diag.count(WarningKind::FileSize), 1);
    assert_eq!(
        diag.count(WarningKind::TrailingBytes),
        0,
        "the cut data ends"
    );
}

/// Up to three zero bytes that pad the file to a multiple of four are not trailing data
/// (Red Eclipse's IQMs end so, after an odd count of 16-bit frame values, the header's size
/// counting them); other bytes after the last section are.
#[test]
fn rule2_zero_padding_to_four_bytes_is_not_trailing() {
    let mut b = demo();
    b.comment = b"ab\0".to_vec();
    let bytes = b.write().unwrap();
    let pad = (4 - bytes.len() % 4) % 4;
    assert_ne!(pad, 0, "the comment ends the file off a multiple of four");
    let padded = |fill: u8, n: usize| {
        let mut v = bytes.clone();
        v.resize(v.len() + n, fill);
        let len = v.len() as u32;
        put_u32_le(&mut v, at::FILESIZE, len);
        v
    };
    assert!(warnings_bytes(&bytes).is_empty());
    let diag = warnings_bytes(&padded(0, pad));
    assert!(diag.is_empty(), "{:?}", diag.warnings());
    for (fill, n) in [(0xAA, pad), (0, pad + 4)] {
        let diag = warnings_bytes(&padded(fill, n));
        let w = diag.get(WarningKind::TrailingBytes).unwrap();
        assert_eq!(
            (w.offset, w.detail.clone()),
            (
                bytes.len() as u64,
                format!("{n} bytes after the last structure")
            )
        );
    }
}

#[test]
fn rule3_counts_within_the_limits() {
    let bytes = demo().write().unwrap();
    let limits = Limits {
        max_bones: 2,
        ..Limits::default()
    };
    let e = Iqm::parse_with(&bytes, &limits, &mut Diagnostics::new())
        .map(|_| ())
        .unwrap_err();
    assert!(
        matches!(
            e,
            Error::Limit {
                what: "header.num_joints",
                offset: 68,
                value: 3,
                max: 2,
                ..
            }
        ),
        "{e}"
    );
    let limits = Limits {
        max_vertices_per_mesh: 7,
        ..Limits::default()
    };
    let e = Iqm::parse_with(&bytes, &limits, &mut Diagnostics::new())
        .map(|_| ())
        .unwrap_err();
    assert!(
        matches!(
            e,
            Error::Limit {
                what: "header.num_vertexes",
                offset: 48,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn rule4_sections_lie_after_the_header_and_inside_the_data() {
    let bytes = demo().write().unwrap();
    let len = bytes.len() as u32;
    let mut past = bytes.clone();
    put_u32_le(&mut past, at::OFS_JOINTS, len - 8);
    let e = err_bytes(&past);
    assert!(
        matches!(
            e,
            Error::Truncated {
                what: "joints",
                need: 144,
                ..
            }
        ),
        "{e}"
    );
    // An offset near 4 GiB does not wrap.
    let mut wrap = bytes.clone();
    put_u32_le(&mut wrap, at::OFS_TRIANGLES, u32::MAX - 4);
    assert!(matches!(
        err_bytes(&wrap),
        Error::Truncated {
            what: "triangles",
            ..
        }
    ));
    let mut inside = bytes.clone();
    put_u32_le(&mut inside, at::OFS_MESHES, 8);
    assert_eq!(
        invalid(&err_bytes(&inside)),
        (
            "header.ofs_meshes",
            40,
            Problem::BelowMinimum { value: 8, min: 124 }
        )
    );
    // A section with no entries is not read, wherever its offset points.
    let mut empty = iqm::Builder {
        comment: Vec::new(),
        ..demo()
    }
    .write()
    .unwrap();
    put_u32_le(&mut empty, 112, u32::MAX);
    assert!(Iqm::parse(&empty).is_ok());
}

#[test]
fn rule4_unaligned_sections_are_read_with_a_warning() {
    let aligned = demo().write().unwrap();
    let odd = iqm::Builder {
        misalign: 1,
        ..demo()
    }
    .write()
    .unwrap();
    assert_eq!(u32_le(&odd, at::OFS_MESHES) % 4, 1);
    let diag = warnings_bytes(&odd);
    let w = diag.get(WarningKind::Unaligned).expect("unaligned warned");
    assert!(w.count >= 10, "every section: {w:?}");
    let (a, b) = (Iqm::parse(&aligned).unwrap(), Iqm::parse(&odd).unwrap());
    for v in 0..a.num_vertices() {
        assert_eq!(a.position(v), b.position(v));
        assert_eq!(a.blend(v), b.blend(v));
    }
    assert_eq!(a.joint_transform(2), b.joint_transform(2));
}

#[test]
fn rule5_strings_start_inside_the_text_and_end_in_it() {
    let bytes = demo().write().unwrap();
    let num_text = u32_le(&bytes, at::NUM_TEXT);
    let mesh0 = u64::from(u32_le(&bytes, at::OFS_MESHES));
    let mut outside = bytes.clone();
    put_u32_le(&mut outside, mesh0, num_text);
    assert_eq!(
        invalid(&err_bytes(&outside)),
        (
            "mesh.name",
            mesh0,
            Problem::Index {
                index: num_text.into(),
                len: num_text.into()
            }
        )
    );
    // The text's last NUL overwritten: the last string runs off its end.
    let mut open = bytes.clone();
    let ofs_text = u64::from(u32_le(&bytes, 32));
    let last = (ofs_text + u64::from(num_text) - 1) as usize;
    open[last] = b'x';
    let (what, _, problem) = invalid(&err_bytes(&open));
    assert!(matches!(problem, Problem::Unterminated { .. }), "{problem}");
    assert!(what.ends_with(".name"), "{what}");
}

#[test]
fn rule6_vertex_arrays_have_known_types_formats_and_sizes() {
    let bytes = demo().write().unwrap();
    let va = u64::from(u32_le(&bytes, at::OFS_VERTEXARRAYS));
    let mut kind = bytes.clone();
    put_u32_le(&mut kind, va, 7);
    assert_eq!(
        invalid(&err_bytes(&kind)),
        ("vertexarray.type", va, Problem::UnknownCode { code: 7 })
    );
    let mut format = bytes.clone();
    put_u32_le(&mut format, va + 8, 9);
    assert_eq!(
        invalid(&err_bytes(&format)),
        (
            "vertexarray.format",
            va + 8,
            Problem::UnknownCode { code: 9 }
        )
    );
    let mut size = bytes.clone();
    put_u32_le(&mut size, va + 12, 4);
    let e = err_bytes(&size);
    assert!(
        matches!(e, Error::Unsupported { what: "vertexarray.size", offset, value: 4, .. } if offset == va + 12),
        "{e}"
    );
    let mut double = bytes.clone();
    put_u32_le(&mut double, va + 8, iqm::raw::IQM_DOUBLE);
    let e = err_bytes(&double);
    assert!(
        matches!(e, Error::Unsupported { what: "vertexarray.format", offset, value: 8, .. } if offset == va + 8),
        "{e}"
    );
    let mut past = bytes.clone();
    put_u32_le(&mut past, va + 16, bytes.len() as u32 - 8);
    assert!(matches!(
        err_bytes(&past),
        Error::Truncated {
            what: "vertexarray.offset",
            need: 96,
            ..
        }
    ));
    // A custom array is named through the text.
    let custom = iqm::Builder {
        arrays: vec![ArrayDef {
            type_: 0,
            name: Some(b"bonemask".to_vec()),
            format: iqm::raw::IQM_HALF,
            size: 2,
            data: vec![0; 8 * 4],
        }],
        ..demo()
    };
    let bytes = custom.write().unwrap();
    let m = Iqm::parse(&bytes).unwrap();
    let array = m.vertex_arrays().last().unwrap();
    assert_eq!(m.custom_name(array), Some(&b"bonemask"[..]));
    let mut unnamed = custom.clone();
    unnamed.arrays[0].name = None;
    unnamed.arrays[0].type_ = iqm::raw::IQM_CUSTOM + 100_000;
    let (what, _, problem) = invalid(&err(&unnamed));
    assert_eq!(what, "vertexarray.type");
    assert!(
        matches!(problem, Problem::Index { index: 100_000, .. }),
        "{problem}"
    );
}

#[test]
fn rule6_read_floats_are_finite() {
    let bytes = demo().write().unwrap();
    let va = u64::from(u32_le(&bytes, at::OFS_VERTEXARRAYS));
    let positions = u64::from(u32_le(&bytes, va + 16));
    let mut nan = bytes.clone();
    put_f32_le(&mut nan, positions + 4 * 7, f32::NAN);
    assert_eq!(
        invalid(&err_bytes(&nan)),
        ("vertex.position", positions + 28, Problem::NotFinite)
    );
    let mut b = demo();
    b.texcoords[3][1] = f32::INFINITY;
    assert_eq!(invalid(&err(&b)).0, "vertex.texcoord");
}

#[test]
fn rule7_blend_indexes_name_a_joint() {
    let mut b = demo();
    b.blend_indexes[5] = [1, 3, 0, 0];
    let bytes = b.write().unwrap();
    let va = u64::from(u32_le(&bytes, at::OFS_VERTEXARRAYS));
    // Arrays: position, texcoord, normal, blend indexes, blend weights.
    let indexes = u64::from(u32_le(&bytes, va + 3 * 20 + 16));
    assert_eq!(
        invalid(&err_bytes(&bytes)),
        (
            "vertex.blendindexes",
            indexes + 5 * 4 + 1,
            Problem::Index { index: 3, len: 3 }
        )
    );
}

#[test]
fn rule8_mesh_ranges_lie_inside_the_totals() {
    let mut b = demo();
    b.meshes[1].num_vertexes = 5;
    let bytes = b.write().unwrap();
    let mesh1 = u64::from(u32_le(&bytes, at::OFS_MESHES)) + 24;
    assert_eq!(
        invalid(&err_bytes(&bytes)),
        (
            "mesh.num_vertexes",
            mesh1 + 8,
            Problem::AboveMaximum { value: 9, max: 8 }
        )
    );
    let mut b = demo();
    b.meshes[0].first_triangle = 3;
    let (what, offset, problem) = invalid(&err(&b));
    assert_eq!(
        (what, problem),
        (
            "mesh.num_triangles",
            Problem::AboveMaximum { value: 5, max: 4 }
        )
    );
    assert_eq!(
        offset,
        u64::from(u32_le(&b.write().unwrap(), at::OFS_MESHES)) + 16
    );
}

#[test]
fn rule9_triangles_name_vertices_and_adjacency_names_triangles() {
    let mut b = demo();
    b.triangles[2] = [4, 8, 6];
    let bytes = b.write().unwrap();
    let tris = u64::from(u32_le(&bytes, at::OFS_TRIANGLES));
    assert_eq!(
        invalid(&err_bytes(&bytes)),
        (
            "triangle.vertex",
            tris + 2 * 12 + 4,
            Problem::Index { index: 8, len: 8 }
        )
    );
    let mut b = demo();
    b.adjacency = vec![[1, u32::MAX, u32::MAX]; 4];
    let m = b.write().unwrap();
    assert_eq!(
        Iqm::parse(&m).unwrap().adjacency(0),
        Some([1, u32::MAX, u32::MAX])
    );
    b.adjacency[3] = [u32::MAX, 4, u32::MAX];
    let (what, _, problem) = invalid(&err(&b));
    assert_eq!(
        (what, problem),
        ("adjacency.triangle", Problem::Index { index: 4, len: 4 })
    );
}

#[test]
fn rule10_joints_have_earlier_parents_and_finite_transforms() {
    let mut b = demo();
    b.joints[1].parent = 1;
    b.frames.clear();
    b.anims.clear();
    b.bounds.clear();
    let bytes = b.write().unwrap();
    let joint1 = u64::from(u32_le(&bytes, at::OFS_JOINTS)) + 48;
    assert_eq!(
        invalid(&err_bytes(&bytes)),
        (
            "joint.parent",
            joint1 + 4,
            Problem::Parent { bone: 1, parent: 1 }
        )
    );
    let mut b = demo();
    b.joints[2].transform.scale[1] = f32::NAN;
    let bytes = b.write().unwrap();
    let joint2 = u64::from(u32_le(&bytes, at::OFS_JOINTS)) + 96;
    assert_eq!(
        invalid(&err_bytes(&bytes)),
        (
            "joint.transform",
            joint2 + 8 + 7 * 4 + 4,
            Problem::NotFinite
        )
    );
    let mut b = demo();
    b.joints[0].transform.rotate = [0.0; 4];
    let (what, offset, problem) = invalid(&err(&b));
    assert_eq!(
        (what, problem),
        ("joint.rotate", Problem::NotPositive { value: 0.0 })
    );
    assert_eq!(
        offset,
        u64::from(u32_le(&b.write().unwrap(), at::OFS_JOINTS)) + 20
    );
}

#[test]
fn rule11_poses_match_the_joints_and_the_channel_count() {
    let bytes = demo().write().unwrap();
    let mut count = bytes.clone();
    put_u32_le(&mut count, at::NUM_POSES, 2);
    assert_eq!(
        invalid(&err_bytes(&count)),
        (
            "header.num_poses",
            76,
            Problem::Mismatch {
                value: 2,
                expected: 3
            }
        )
    );
    let poses = u64::from(u32_le(&bytes, at::OFS_POSES));
    let mut parent = bytes.clone();
    put_u32_le(&mut parent, poses + 88 * 2, u32::MAX); // head's pose made a root
    assert_eq!(
        invalid(&err_bytes(&parent)),
        (
            "pose.parent",
            poses + 176,
            Problem::PoseParent {
                pose: 2,
                parent: -1,
                joint: 1
            }
        )
    );
    let mut channels = bytes.clone();
    put_u32_le(&mut channels, at::NUM_FRAMECHANNELS, 4);
    assert_eq!(
        invalid(&err_bytes(&channels)),
        (
            "header.num_framechannels",
            96,
            Problem::Mismatch {
                value: 4,
                expected: 3
            }
        )
    );
    // An animated channel whose largest value overflows.
    let mut huge = bytes.clone();
    let head_scale_x = poses + 88 * 2 + 8 + 40 + 7 * 4;
    put_f32_le(&mut huge, head_scale_x, 1e35);
    assert_eq!(
        invalid(&err_bytes(&huge)),
        ("pose.channel", head_scale_x, Problem::NotFinite)
    );
    // Channels that pass, whose offsets and scales together pass f32's range: the sum that
    // checks them all at once is not finite, the channels one by one are, and the file is
    // read. The scale of a channel the mask leaves out is never read, however large.
    let mask = u32_le(&bytes, poses + 4);
    let unanimated: Vec<u64> = (0..10).filter(|c| mask >> c & 1 == 0).take(2).collect();
    assert_eq!(unanimated.len(), 2, "pose 0's mask {mask:#x}");
    let mut large = bytes.clone();
    put_f32_le(&mut large, poses + 8 + 4 * unanimated[0], 3e38);
    for c in unanimated {
        put_f32_le(&mut large, poses + 48 + 4 * c, 3e38);
    }
    assert!(Iqm::parse(&large).is_ok());
    let mut nan = bytes.clone();
    put_f32_le(&mut nan, poses + 8, f32::NAN);
    assert_eq!(
        invalid(&err_bytes(&nan)),
        ("pose.channel", poses + 8, Problem::NotFinite)
    );
    // A pose parent at or after its own index.
    let mut b = demo();
    b.joints.clear();
    b.pose_parents = vec![-1, 2, 1];
    b.blend_indexes.clear();
    b.blend_weights.clear();
    let (what, _, problem) = invalid(&err(&b));
    assert_eq!(
        (what, problem),
        ("pose.parent", Problem::Parent { bone: 1, parent: 2 })
    );
}

#[test]
fn rule12_anims_lie_inside_the_frames_at_a_finite_rate() {
    let mut b = demo();
    b.anims[1].num_frames = 4;
    let bytes = b.write().unwrap();
    let anim1 = u64::from(u32_le(&bytes, at::OFS_ANIMS)) + 20;
    assert_eq!(
        invalid(&err_bytes(&bytes)),
        (
            "anim.num_frames",
            anim1 + 4,
            Problem::AboveMaximum { value: 5, max: 4 }
        )
    );
    let mut b = demo();
    b.anims[0].framerate = f32::NAN;
    assert_eq!(invalid(&err(&b)).0, "anim.framerate");
}

#[test]
fn rule13_bounds_are_finite() {
    let mut b = demo();
    b.bounds[2].radius = f32::INFINITY;
    let bytes = b.write().unwrap();
    let bounds = u64::from(u32_le(&bytes, 104));
    assert_eq!(
        invalid(&err_bytes(&bytes)),
        ("bounds", bounds + 2 * 32 + 28, Problem::NotFinite)
    );
}

#[test]
fn rule14_the_extension_chain_has_exactly_its_links() {
    let b = iqm::Builder {
        extensions: vec![
            (b"FTE_MESH".to_vec(), vec![7; 56]),
            (b"OTHER".to_vec(), vec![1, 2, 3]),
        ],
        ..demo()
    };
    let bytes = b.write().unwrap();
    let m = Iqm::parse(&bytes).unwrap();
    let found: Vec<_> = m.extensions().map(|e| (e.name, e.data.len())).collect();
    assert_eq!(found, [(&b"FTE_MESH"[..], 56), (&b"OTHER"[..], 3)]);

    // The last link made to point back at the first: a cycle.
    let first = u32_le(&bytes, at::OFS_EXTENSIONS);
    let second = u32_le(&bytes, u64::from(first) + 12);
    let mut cycle = bytes.clone();
    put_u32_le(&mut cycle, u64::from(second) + 12, first);
    assert_eq!(
        invalid(&err_bytes(&cycle)),
        (
            "extension.ofs_extensions",
            u64::from(second) + 12,
            Problem::Mismatch {
                value: first.into(),
                expected: 0
            }
        )
    );
    let mut many = bytes.clone();
    put_u32_le(&mut many, at::NUM_EXTENSIONS, u32::MAX);
    let (what, offset, problem) = invalid(&err_bytes(&many));
    assert_eq!((what, offset), ("header.num_extensions", 116));
    assert!(matches!(problem, Problem::AboveMaximum { .. }));
    let mut data = bytes.clone();
    put_u32_le(&mut data, u64::from(first) + 4, 1 << 20);
    assert!(matches!(
        err_bytes(&data),
        Error::Truncated {
            what: "extension.ofs_data",
            ..
        }
    ));
}

#[test]
fn warnings_name_what_is_odd() {
    // A rotation far from unit length is normalised.
    let mut b = demo();
    b.joints[1].transform.rotate = [0.0, 0.0, 0.0, 2.0];
    let diag = warnings(&b);
    assert_eq!(diag.count(WarningKind::QuatNotUnit), 1);
    let m = b.write().unwrap();
    let m = Iqm::parse(&m).unwrap();
    assert_eq!(
        m.joint_transform(1).unwrap().0,
        skelmap::glam::Quat::IDENTITY
    );
    // Channel-mask bits past the ten channels.
    let bytes = demo().write().unwrap();
    let poses = u64::from(u32_le(&bytes, at::OFS_POSES));
    let mut mask = bytes.clone();
    let old = u32_le(&bytes, poses + 4);
    put_u32_le(&mut mask, poses + 4, old | 1 << 12);
    assert_eq!(warnings_bytes(&mask).count(WarningKind::UnknownFlags), 1);
    // Transform identity is what an unanimated pose decodes to.
    assert_eq!(Transform::IDENTITY.scale, [1.0; 3]);
}

#[test]
fn rule6_float_weights_lie_in_zero_to_one() {
    let mut weights: Vec<u8> = Vec::new();
    for k in 0..8 {
        let w: [f32; 4] = if k == 5 {
            [1.5, 0.0, 0.0, 0.0]
        } else {
            [1.0, 0.0, 0.0, 0.0]
        };
        weights.extend(w.iter().flat_map(|v| v.to_le_bytes()));
    }
    let b = iqm::Builder {
        blend_weights: Vec::new(),
        arrays: vec![ArrayDef {
            type_: iqm::raw::IQM_BLENDWEIGHTS,
            name: None,
            format: iqm::raw::IQM_FLOAT,
            size: 4,
            data: weights,
        }],
        ..demo()
    };
    let bytes = b.write().unwrap();
    let va = u64::from(u32_le(&bytes, at::OFS_VERTEXARRAYS));
    // Arrays: position, texcoord, normal, blend indexes, then the float weights.
    let data = u64::from(u32_le(&bytes, va + 4 * 20 + 16));
    assert_eq!(
        invalid(&err_bytes(&bytes)),
        (
            "vertex.blendweights",
            data + 5 * 16,
            Problem::Weight { value: 1.5 }
        )
    );
}

#[test]
fn rule6_a_repeated_array_is_checked_and_set_aside() {
    let second = |value: f32| ArrayDef {
        type_: iqm::raw::IQM_POSITION,
        name: None,
        format: iqm::raw::IQM_FLOAT,
        size: 3,
        data: [value; 24].iter().flat_map(|v| v.to_le_bytes()).collect(),
    };
    let b = iqm::Builder {
        arrays: vec![second(9.0)],
        ..demo()
    };
    let bytes = b.write().unwrap();
    let diag = warnings(&b);
    let w = diag.get(WarningKind::SpecLimit).expect("warned");
    let va = u64::from(u32_le(&bytes, at::OFS_VERTEXARRAYS));
    assert_eq!((w.what, w.offset), ("vertexarray.type", va + 5 * 20));
    assert_eq!(
        Iqm::parse(&bytes).unwrap().position(0),
        Some([-0.5, 0.0, 0.0])
    );
    let e = err(&iqm::Builder {
        arrays: vec![second(f32::NAN)],
        ..demo()
    });
    assert_eq!(invalid(&e).2, Problem::NotFinite);
}

#[test]
fn rule7_indexes_of_a_file_without_bones_are_not_read() {
    let b = iqm::Builder {
        joints: Vec::new(),
        frames: Vec::new(),
        anims: Vec::new(),
        bounds: Vec::new(),
        blend_indexes: vec![[200, 0, 0, 0]; 8],
        ..demo()
    };
    let diag = warnings(&b);
    assert!(diag.is_empty(), "{:?}", diag.warnings());
}

#[test]
fn rule14_extension_data_lies_after_the_header() {
    let bytes = iqm::Builder {
        extensions: vec![(b"FTE_MESH".to_vec(), vec![7; 56])],
        ..demo()
    }
    .write()
    .unwrap();
    let link = u64::from(u32_le(&bytes, at::OFS_EXTENSIONS));
    let mut inside = bytes.clone();
    put_u32_le(&mut inside, link + 8, 16);
    assert_eq!(
        invalid(&err_bytes(&inside)),
        (
            "extension.ofs_data",
            link + 8,
            Problem::BelowMinimum {
                value: 16,
                min: 124
            }
        )
    );
}
