//! One test per rule of `docs/formats/psk.md` § Validation: the exact error, `what`, offset
//! and problem, on the builder's example with one field changed.

use skelmap::WarningKind;
use skelmap::psk::{Builder, Psa, Psk};
use skelmap::{Error, Format, Limits, Parse, Problem};

use super::*;
use crate::support::{put_f32_le, put_i32, put_u16_le, put_u32_le};

fn put_i32_le(b: &mut [u8], at: u64, v: i32) {
    put_u32_le(b, at, v as u32);
}

#[test]
fn the_example_validates_without_findings() {
    let bytes = example_psk();
    assert_eq!(bytes.len() as u64, PSK_CHUNKS[7]);
    let diag = crate::support::parse_warnings::<Psk>(&bytes);
    assert!(diag.is_empty(), "{diag:?}");
    let psa = example_psa();
    assert_eq!(psa.len() as u64, PSA_CHUNKS[4]);
    assert!(crate::support::parse_warnings::<Psa>(&psa).is_empty());
    let _ = put_i32;
}

#[test]
fn rule_1_a_file_starts_with_its_header_chunk() {
    let mut b = example_psk();
    b[0] = b'X';
    assert!(matches!(
        psk_err(&b),
        Error::BadMagic {
            format: Format::Psk,
            ..
        }
    ));
    // The NUL after the name is part of the magic.
    let mut b = example_psa();
    b[8] = b'X';
    assert!(matches!(
        psa_err(&b),
        Error::BadMagic {
            format: Format::Psa,
            ..
        }
    ));
    assert_eq!(Format::sniff(&example_psk()), Some(Format::Psk));
    assert_eq!(Format::sniff(&example_psa()), Some(Format::Psa));
}

#[test]
fn rule_2_every_chunk_header_is_whole() {
    let mut b = example_psk();
    b.extend_from_slice(&[0; 10]);
    let e = psk_err(&b);
    assert_eq!(
        crate::support::truncated_parts(&e, Format::Psk),
        ("chunk", PSK_CHUNKS[7], 32, 10)
    );
}

#[test]
fn rule_3_sizes_are_not_negative_and_records_lie_in_the_file() {
    let mut b = example_psk();
    put_i32_le(&mut b, PSK_CHUNKS[1] + SIZE_AT, -1);
    assert_eq!(
        invalid(&psk_err(&b)),
        (
            Format::Psk,
            "chunk.data_size",
            PSK_CHUNKS[1] + SIZE_AT,
            Problem::Negative { value: -1 }
        )
    );
    let mut b = example_psk();
    put_i32_le(&mut b, PSK_CHUNKS[1] + COUNT_AT, -2);
    assert_eq!(
        invalid(&psk_err(&b)),
        (
            Format::Psk,
            "chunk.data_count",
            PSK_CHUNKS[1] + COUNT_AT,
            Problem::Negative { value: -2 }
        )
    );
    let mut b = example_psk();
    put_i32_le(&mut b, PSK_CHUNKS[6] + COUNT_AT, 1000);
    let data = PSK_CHUNKS[6] + HEADER;
    assert_eq!(
        crate::support::truncated_parts(&psk_err(&b), Format::Psk),
        ("chunk data", data, 12_000, PSK_CHUNKS[7] - data)
    );
}

#[test]
fn rule_4_a_known_chunk_has_its_record_size_a_count_within_limits_and_appears_once() {
    let mut b = example_psk();
    put_i32_le(&mut b, PSK_CHUNKS[1] + SIZE_AT, 16);
    assert_eq!(
        invalid(&psk_err(&b)),
        (
            Format::Psk,
            "chunk.data_size",
            PSK_CHUNKS[1] + SIZE_AT,
            Problem::Mismatch {
                value: 16,
                expected: 12
            }
        )
    );
    let limits = Limits {
        max_bones: 1,
        ..Limits::default()
    };
    let e = crate::support::parse_error::<Psk>(&example_psk(), &limits);
    assert!(
        matches!(e, Error::Limit { format: Format::Psk, what: "chunk.data_count", offset, value: 2, max: 1 } if offset == PSK_CHUNKS[5] + COUNT_AT),
        "{e:?}"
    );
    let mut b = example_psk();
    let weights = b[PSK_CHUNKS[6] as usize..].to_vec();
    b.extend_from_slice(&weights);
    assert_eq!(
        invalid(&psk_err(&b)),
        (
            Format::Psk,
            "chunk.chunk_id",
            PSK_CHUNKS[7],
            Problem::RepeatedChunk {
                first: PSK_CHUNKS[6]
            }
        )
    );
    // `VTXW3200` is the same chunk as `VTXW0000`.
    let mut b = example_psk();
    let wedges = b[PSK_CHUNKS[2] as usize..PSK_CHUNKS[3] as usize].to_vec();
    let mut wide = wedges.clone();
    wide[4..8].copy_from_slice(b"3200");
    b.extend_from_slice(&wide);
    assert_eq!(
        invalid(&psk_err(&b)).3,
        Problem::RepeatedChunk {
            first: PSK_CHUNKS[2]
        }
    );
}

#[test]
fn rule_4_an_unknown_chunk_is_skipped_with_a_warning_and_the_file_still_opens() {
    let mut b = example_psk();
    b.extend(chunk("MRPHINFO", 4, 2, 7));
    b.extend(chunk("SOMETHINGNEW", 3, 5, 1));
    let mut diag = skelmap::Diagnostics::new();
    let psk = Psk::parse_with(&b, &Limits::default(), &mut diag).unwrap();
    assert_eq!(psk.num_wedges(), 4);
    let w = diag.get(WarningKind::SkippedChunk).unwrap();
    assert_eq!((w.offset, w.count), (PSK_CHUNKS[7], 2));
    let model = skelmap::Model::from_bytes(&b).unwrap();
    assert_eq!(model.num_bones(), 2);
}

#[test]
fn rule_5_the_chunks_a_file_needs_are_there() {
    let mut b = example_psk();
    b[PSK_CHUNKS[4] as usize + 3] = b'X'; // MATT0000 → MATX0000
    assert_eq!(
        invalid(&psk_err(&b)),
        (
            Format::Psk,
            "chunk.chunk_id",
            PSK_CHUNKS[7],
            Problem::MissingChunk { chunk: "MATT0000" }
        )
    );
    let mut b = example_psa();
    b[PSA_CHUNKS[3] as usize] = b'X'; // ANIMKEYS → XNIMKEYS
    assert_eq!(
        invalid(&psa_err(&b)),
        (
            Format::Psa,
            "chunk.chunk_id",
            PSA_CHUNKS[4],
            Problem::MissingChunk { chunk: "ANIMKEYS" }
        )
    );
    // Without `RAWWEIGHTS` every point is bound to bone 0.
    let b = example_psk();
    let cut = &b[..PSK_CHUNKS[6] as usize];
    let psk = Psk::parse(cut).unwrap();
    assert_eq!(psk.point_influences(3), &[(0, 1.0)]);
}

#[test]
fn rule_6_extras_have_a_record_per_wedge_or_point() {
    let mut builder = Builder::example();
    builder.extra_uvs = vec![vec![[0.5, 0.5]; 3]];
    let b = builder.write_psk().unwrap();
    assert_eq!(
        invalid(&psk_err(&b)),
        (
            Format::Psk,
            "chunk.data_count",
            PSK_CHUNKS[7] + COUNT_AT,
            Problem::Mismatch {
                value: 3,
                expected: 4
            }
        )
    );
    let mut builder = Builder::example();
    builder.normals = vec![[0.0, 0.0, 1.0]; 5];
    let b = builder.write_psk().unwrap();
    assert_eq!(
        invalid(&psk_err(&b)).3,
        Problem::Mismatch {
            value: 5,
            expected: 4
        }
    );
}

#[test]
fn rule_7_points_and_normals_are_finite() {
    let mut b = example_psk();
    put_f32_le(&mut b, PSK_CHUNKS[1] + HEADER + 12 + 4, f32::NAN);
    assert_eq!(
        invalid(&psk_err(&b)),
        (
            Format::Psk,
            "point.point",
            PSK_CHUNKS[1] + HEADER + 16,
            Problem::NotFinite
        )
    );
    let mut builder = Builder::example();
    builder.normals = vec![[0.0, 0.0, 1.0]; 4];
    let mut b = builder.write_psk().unwrap();
    put_f32_le(&mut b, PSK_CHUNKS[7] + HEADER + 8, f32::INFINITY);
    assert_eq!(
        invalid(&psk_err(&b)),
        (
            Format::Psk,
            "normal.normal",
            PSK_CHUNKS[7] + HEADER + 8,
            Problem::NotFinite
        )
    );
}

#[test]
fn rule_8_every_wedge_names_a_point() {
    let mut b = example_psk();
    let wedge1 = PSK_CHUNKS[2] + HEADER + 16;
    put_u32_le(&mut b, wedge1, 4);
    assert_eq!(
        invalid(&psk_err(&b)),
        (
            Format::Psk,
            "wedge.point_index",
            wedge1,
            Problem::Index { index: 4, len: 4 }
        )
    );
    let mut b = example_psk();
    put_f32_le(&mut b, wedge1 + 4, f32::NAN);
    let diag = crate::support::parse_warnings::<Psk>(&b);
    let w = diag.get(WarningKind::NonFiniteTexcoord).unwrap();
    assert_eq!((w.offset, w.count), (wedge1 + 4, 1));
}

#[test]
fn rule_8_pskx_a_narrow_wedge_ignores_its_padding_and_a_wide_one_reads_32_bits() {
    // VTXW0000: the two bytes after the 16-bit point index are padding.
    let mut b = example_psk();
    let wedge2 = PSK_CHUNKS[2] + HEADER + 32;
    put_u16_le(&mut b, wedge2 + 2, 0xBEEF);
    let psk = Psk::parse(&b).unwrap();
    assert_eq!(psk.wedge_point(2), Some(2));
    assert!(!psk.wide_wedges());
    // VTXW3200 and FACE3200: all 32 bits count.
    let mut builder = Builder::example();
    builder.wide = true;
    let mut b = builder.write_psk().unwrap();
    assert_eq!(
        &b[PSK_CHUNKS[2] as usize..PSK_CHUNKS[2] as usize + 8],
        b"VTXW3200"
    );
    assert_eq!(
        &b[PSK_CHUNKS[3] as usize..PSK_CHUNKS[3] as usize + 8],
        b"FACE3200"
    );
    let psk = Psk::parse(&b).unwrap();
    assert!(psk.wide_wedges() && matches!(psk.faces(), skelmap::psk::Faces::Wide(_)));
    assert_eq!(psk.triangle(1), Some([0, 2, 3]));
    put_u16_le(&mut b, wedge2 + 2, 1);
    assert_eq!(
        invalid(&psk_err(&b)),
        (
            Format::Psk,
            "wedge.point_index",
            wedge2,
            Problem::Index {
                index: 0x1_0002,
                len: 4
            }
        )
    );
}

#[test]
fn rule_9_every_face_names_wedges_and_a_material() {
    let mut b = example_psk();
    let face1 = PSK_CHUNKS[3] + HEADER + 12;
    put_u16_le(&mut b, face1 + 2, 9);
    assert_eq!(
        invalid(&psk_err(&b)),
        (
            Format::Psk,
            "face.wedge_index",
            face1,
            Problem::Index { index: 9, len: 4 }
        )
    );
    let mut b = example_psk();
    b[(face1 + 6) as usize] = 2;
    assert_eq!(
        invalid(&psk_err(&b)),
        (
            Format::Psk,
            "face.mat_index",
            face1,
            Problem::Index { index: 2, len: 2 }
        )
    );
}

#[test]
fn rule_10_bone_0_is_the_root_and_parents_come_first() {
    let bone = |i: u64| PSK_CHUNKS[5] + HEADER + 120 * i;
    let mut b = example_psk();
    put_i32_le(&mut b, bone(1) + 72, 1);
    assert_eq!(
        invalid(&psk_err(&b)),
        (
            Format::Psk,
            "bone.parent_index",
            bone(1) + 72,
            Problem::Parent { bone: 1, parent: 1 }
        )
    );
    let mut b = example_psk();
    put_i32_le(&mut b, bone(0) + 72, 5);
    assert_eq!(
        invalid(&psk_err(&b)).3,
        Problem::Parent { bone: 0, parent: 5 }
    );
    // −1 is also a root.
    let mut b = example_psk();
    put_i32_le(&mut b, bone(0) + 72, -1);
    assert!(Psk::parse(&b).is_ok());
    let mut builder = Builder::example();
    builder.bones.clear();
    builder.weights.clear();
    let b = builder.write_psk().unwrap();
    assert_eq!(
        invalid(&psk_err(&b)),
        (
            Format::Psk,
            "chunk.data_count",
            PSK_CHUNKS[5] + COUNT_AT,
            Problem::Empty
        )
    );
}

#[test]
fn rule_11_rest_poses_are_finite_and_rotations_not_zero() {
    let pos = |i: u64| PSK_CHUNKS[5] + HEADER + 120 * i + 76;
    let mut b = example_psk();
    put_f32_le(&mut b, pos(1) + 8, f32::NAN);
    assert_eq!(
        invalid(&psk_err(&b)),
        (
            Format::Psk,
            "bone.bone_pos.orientation",
            pos(1) + 8,
            Problem::NotFinite
        )
    );
    let mut b = example_psk();
    put_f32_le(&mut b, pos(0) + 20, f32::INFINITY);
    assert_eq!(
        invalid(&psk_err(&b)),
        (
            Format::Psk,
            "bone.bone_pos.position",
            pos(0) + 20,
            Problem::NotFinite
        )
    );
    let mut b = example_psk();
    for k in 0..4 {
        put_f32_le(&mut b, pos(0) + 4 * k, 0.0);
    }
    assert_eq!(
        invalid(&psk_err(&b)),
        (
            Format::Psk,
            "bone.bone_pos.orientation",
            pos(0),
            Problem::Empty
        )
    );
    let mut b = example_psk();
    put_f32_le(&mut b, pos(0) + 12, 2.0);
    let diag = crate::support::parse_warnings::<Psk>(&b);
    assert_eq!(diag.get(WarningKind::QuatNotUnit).unwrap().offset, pos(0));
}

#[test]
fn rule_12_weights_are_finite_not_negative_and_name_a_point_and_a_bone() {
    let weight = |i: u64| PSK_CHUNKS[6] + HEADER + 12 * i;
    // (the field's offset, its new bytes, what, problem)
    let cases = [
        (
            weight(1),
            f32::NAN.to_le_bytes(),
            "weight.weight",
            Problem::NotFinite,
        ),
        (
            weight(2),
            (-0.5f32).to_le_bytes(),
            "weight.weight",
            Problem::Weight { value: -0.5 },
        ),
        (
            weight(3) + 4,
            7u32.to_le_bytes(),
            "weight.point_index",
            Problem::Index { index: 7, len: 4 },
        ),
        (
            weight(4) + 8,
            2u32.to_le_bytes(),
            "weight.bone_index",
            Problem::Index { index: 2, len: 2 },
        ),
    ];
    for (offset, value, what, problem) in cases {
        let mut b = example_psk();
        b[offset as usize..offset as usize + 4].copy_from_slice(&value);
        assert_eq!(invalid(&psk_err(&b)), (Format::Psk, what, offset, problem));
    }
}

#[test]
fn rule_13_sequences_lie_within_the_keys() {
    let info = |i: u64| PSA_CHUNKS[2] + HEADER + 168 * i;
    let mut b = example_psa();
    put_i32_le(&mut b, info(0) + 128, 3);
    assert_eq!(
        invalid(&psa_err(&b)),
        (
            Format::Psa,
            "info.total_bones",
            info(0) + 128,
            Problem::Mismatch {
                value: 3,
                expected: 2
            }
        )
    );
    let mut b = example_psa();
    put_i32_le(&mut b, info(1) + 164, 3);
    assert_eq!(
        invalid(&psa_err(&b)),
        (
            Format::Psa,
            "info.num_raw_frames",
            info(1) + 164,
            Problem::AboveMaximum { value: 3, max: 2 }
        )
    );
    let mut b = example_psa();
    put_i32_le(&mut b, info(1) + 160, -1);
    assert_eq!(
        invalid(&psa_err(&b)),
        (
            Format::Psa,
            "info.first_raw_frame",
            info(1) + 160,
            Problem::Negative { value: -1 }
        )
    );
    let mut b = example_psa();
    put_f32_le(&mut b, info(0) + 152, f32::NAN);
    assert_eq!(
        invalid(&psa_err(&b)),
        (
            Format::Psa,
            "info.anim_rate",
            info(0) + 152,
            Problem::NotFinite
        )
    );
    let mut b = example_psa();
    put_f32_le(&mut b, info(0) + 152, 0.0);
    let diag = crate::support::parse_warnings::<Psa>(&b);
    assert_eq!(
        diag.get(WarningKind::FrameRate).unwrap().offset,
        info(0) + 152
    );
    let psa = Psa::parse(&b).unwrap();
    assert_eq!(psa.sequence(0).unwrap().rate(), skelmap::psk::DEFAULT_RATE);
}

/// CUE4Parse before its fix of issue 103 wrote each sequence's frame count as its first
/// frame; the Blender importer reads such sequences back to back from frame 0 when the first
/// one starts at its own count, and so does skelmap, with a warning. The example's `idle`
/// (1 frame at 0) and `wave` (2 at 1) stored that way read as stored correctly.
#[test]
fn rule_13_cue4parse_103_first_frames_that_are_counts_are_read_back_to_back() {
    let info = |i: u64| PSA_CHUNKS[2] + HEADER + 168 * i;
    let mut b = example_psa();
    put_i32_le(&mut b, info(0) + 160, 1);
    put_i32_le(&mut b, info(1) + 160, 2);
    let w = crate::support::parse_warnings::<Psa>(&b)
        .get(WarningKind::SpecLimit)
        .cloned()
        .unwrap();
    assert_eq!((w.what, w.offset), ("info.first_raw_frame", info(0) + 160));
    let psa = Psa::parse(&b).unwrap();
    let starts: Vec<(u32, u32)> = psa
        .sequences()
        .map(|s| (s.first_frame(), s.num_frames()))
        .collect();
    assert_eq!(starts, [(0, 1), (1, 2)]);
    let one = |i| psa.sequence(i).map(|s| (s.first_frame(), s.num_frames()));
    assert_eq!((one(0), one(1)), (Some((0, 1)), Some((1, 2))));
    let original = example_psa();
    let stored = Psa::parse(&original).unwrap();
    assert!(
        psa.sequences()
            .map(|s| s.first_frame())
            .eq(stored.sequences().map(|s| s.first_frame()))
    );
    // Read back to back, the sequences must still fit the keys.
    put_i32_le(&mut b, info(1) + 164, 3);
    assert_eq!(
        invalid(&psa_err(&b)),
        (
            Format::Psa,
            "info.num_raw_frames",
            info(1) + 164,
            Problem::AboveMaximum { value: 3, max: 2 }
        )
    );
    // A first sequence of no frames at frame 0 is no sign of it: the starts stay as stored.
    let mut b = example_psa();
    put_i32_le(&mut b, info(0) + 164, 0);
    let psa = Psa::parse(&b).unwrap();
    assert_eq!(psa.sequence(1).map(|s| s.first_frame()), Some(1));
    assert!(crate::support::parse_warnings::<Psa>(&b).is_empty());
}

#[test]
fn rule_14_keys_are_whole_frames_finite_with_rotations_not_zero() {
    let key = |i: u64| PSA_CHUNKS[3] + HEADER + 32 * i;
    let mut b = example_psa();
    put_i32_le(&mut b, PSA_CHUNKS[3] + COUNT_AT, 5);
    b.truncate((PSA_CHUNKS[4] - 32) as usize);
    assert_eq!(
        invalid(&psa_err(&b)),
        (
            Format::Psa,
            "chunk.data_count",
            PSA_CHUNKS[3] + COUNT_AT,
            Problem::Mismatch {
                value: 5,
                expected: 4
            }
        )
    );
    let mut b = example_psa();
    put_f32_le(&mut b, key(3) + 28, f32::NAN);
    assert_eq!(
        invalid(&psa_err(&b)),
        (Format::Psa, "key", key(3) + 28, Problem::NotFinite)
    );
    let mut b = example_psa();
    for k in 0..4 {
        put_f32_le(&mut b, key(1) + 12 + 4 * k, 0.0);
    }
    assert_eq!(
        invalid(&psa_err(&b)),
        (Format::Psa, "key.orientation", key(1) + 12, Problem::Empty)
    );
    let limits = Limits {
        max_frames: 2,
        ..Limits::default()
    };
    let e = crate::support::parse_error::<Psa>(&example_psa(), &limits);
    assert!(
        matches!(
            e,
            Error::Limit {
                format: Format::Psa,
                what: "frames",
                value: 3,
                max: 2,
                ..
            }
        ),
        "{e:?}"
    );
}

#[test]
fn rule_15_scale_keys_are_one_per_key() {
    let mut b = example_psa();
    b.extend(chunk("SCALEKEYS", 16, 5, 0));
    assert_eq!(
        invalid(&psa_err(&b)),
        (
            Format::Psa,
            "chunk.data_count",
            PSA_CHUNKS[4] + COUNT_AT,
            Problem::Mismatch {
                value: 5,
                expected: 6
            }
        )
    );
    let mut b = example_psa();
    b.extend(chunk("SCALEKEYS", 16, 6, 0));
    put_f32_le(&mut b, PSA_CHUNKS[4] + HEADER + 16 + 4, f32::NAN);
    assert_eq!(
        invalid(&psa_err(&b)),
        (
            Format::Psa,
            "scale",
            PSA_CHUNKS[4] + HEADER + 20,
            Problem::NotFinite
        )
    );
    let mut b = example_psa();
    let mut scales = chunk("SCALEKEYS", 16, 6, 0);
    for k in 0..6 {
        for c in 0..3 {
            let at = HEADER as usize + 16 * k + 4 * c;
            scales[at..at + 4].copy_from_slice(&2.0f32.to_le_bytes());
        }
    }
    b.extend(scales);
    assert_eq!(Psa::parse(&b).unwrap().scale(2, 1), Some([2.0; 3]));
}

/// The example with its wedges repeated 40 times (160, past what the record scans take) and
/// 120 faces over them, materials in runs (0, 0, 0, 1, 1, 1, …); with `wide`, PSKX's 32-bit
/// indices.
fn large_psk(wide: bool) -> Vec<u8> {
    let mut b = Builder::example();
    let one = b.wedges.clone();
    b.wedges = (0..40).flat_map(|_| one.iter().cloned()).collect();
    b.faces = (0..120u32)
        .map(|i| skelmap::psk::FaceDef {
            wedges: [i % 160, (i + 1) % 160, (i + 2) % 160],
            material: ((i / 3) % 2) as u8,
            smoothing: 1,
        })
        .collect();
    b.wide = wide;
    b.write_psk().unwrap()
}

/// Where chunk `id`'s records start.
fn records_of(bytes: &[u8], id: &[u8; 8]) -> u64 {
    bytes.windows(8).position(|w| w == id).unwrap() as u64 + HEADER
}

#[test]
fn rules_8_and_9_on_tables_the_scans_prove_name_the_first_failure_as_the_walk_does() {
    for wide in [false, true] {
        let clean = large_psk(wide);
        let psk = Psk::parse(&clean).unwrap();
        assert_eq!((psk.num_wedges(), psk.num_faces()), (160, 120));
        assert_eq!(psk.wide_wedges(), wide);
        // Faces per material, counted on first use: 60 of each, in runs of three.
        let model = skelmap::Model::from_bytes(&clean).unwrap();
        let mesh = model.mesh(0).unwrap();
        let per: Vec<usize> = mesh
            .submeshes()
            .map(|s| s.triangle_indices().count())
            .collect();
        assert_eq!(per, [60, 60]);
        let (wedges, faces) = match wide {
            false => (b"VTXW0000", b"FACE0000"),
            true => (b"VTXW3200", b"FACE3200"),
        };
        // A face's stride, its second wedge index's offset and its material's.
        let (stride, second, material) = if wide { (18, 4, 12) } else { (12, 2, 6) };
        let wedge = |i: u64| records_of(&clean, wedges) + 16 * i;
        let face = |i: u64| records_of(&clean, faces) + stride * i;
        for i in [0, 77, 159] {
            let mut b = clean.clone();
            put_u32_le(&mut b, wedge(i), 4);
            let problem = Problem::Index { index: 4, len: 4 };
            let want = (Format::Psk, "wedge.point_index", wedge(i), problem);
            assert_eq!(invalid(&psk_err(&b)), want);
            // A second bad wedge after it: the first is named.
            put_u32_le(&mut b, wedge(159.min(i + 1)), 5);
            assert_eq!(invalid(&psk_err(&b)).2, wedge(i));
            let mut b = clean.clone();
            put_f32_le(&mut b, wedge(i) + 8, f32::INFINITY);
            put_f32_le(&mut b, wedge(159 - i / 2) + 4, f32::NAN);
            let diag = crate::support::parse_warnings::<Psk>(&b);
            let w = diag.get(WarningKind::NonFiniteTexcoord).unwrap();
            let count = if 159 - i / 2 == i { 1 } else { 2 };
            assert_eq!((w.offset, w.count), (wedge(i.min(159 - i / 2)) + 4, count));
        }
        for i in [0, 61, 119] {
            let mut b = clean.clone();
            put_u16_le(&mut b, face(i) + second, 160);
            let problem = Problem::Index {
                index: 160,
                len: 160,
            };
            let want = (Format::Psk, "face.wedge_index", face(i), problem);
            assert_eq!(invalid(&psk_err(&b)), want);
            if wide {
                // All 32 bits count.
                let mut b = clean.clone();
                put_u16_le(&mut b, face(i) + second + 2, 1);
                let problem = Problem::Index {
                    index: 0x1_0000 + i64::from((i + 1) as u32 % 160),
                    len: 160,
                };
                let want = (Format::Psk, "face.wedge_index", face(i), problem);
                assert_eq!(invalid(&psk_err(&b)), want);
            }
            let mut b = clean.clone();
            b[(face(i) + material) as usize] = 2;
            let problem = Problem::Index { index: 2, len: 2 };
            let want = (Format::Psk, "face.mat_index", face(i), problem);
            assert_eq!(invalid(&psk_err(&b)), want);
            // The auxiliary material is not checked.
            let mut b = clean.clone();
            b[(face(i) + material + 1) as usize] = 0xFF;
            assert!(Psk::parse(&b).is_ok());
        }
    }
}
