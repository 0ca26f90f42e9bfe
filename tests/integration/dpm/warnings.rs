//! The list in `docs/formats/dpm.md` § Warnings: each oddity is accepted and recorded once
//! per kind, with the location of its first occurrence and a count.

use skelmap::Parse;
use skelmap::{Diagnostics, Limits, SkeletalMesh, WarningKind, dpm::Dpm};

use crate::support::{hdr, put_f32, put_u32, tube};

fn diagnostics(bytes: &[u8]) -> Diagnostics {
    let mut diag = Diagnostics::new();
    Dpm::parse_with(bytes, &Limits::default(), &mut diag)
        .expect("a warning must not reject the file");
    diag
}

fn only(diag: &Diagnostics, kind: WarningKind) -> &skelmap::Warning {
    assert_eq!(diag.warnings().len(), 1, "{:?}", diag.warnings());
    diag.get(kind)
        .unwrap_or_else(|| panic!("no {kind:?} in {:?}", diag.warnings()))
}

#[test]
fn clean_writer_output_has_no_warnings() {
    let (bytes, _) = tube();
    assert!(diagnostics(&bytes).is_empty());
}

#[test]
fn influence_sum_off_by_more_than_tolerance() {
    let (mut bytes, layout) = tube();
    let vertex = layout.meshes[0].ofs_verts;
    let w = f32::from_bits(crate::support::get_u32(&bytes, vertex + 4 + 12));
    put_f32(&mut bytes, vertex + 4 + 12, w + 0.25);
    let diag = diagnostics(&bytes);
    let w = only(&diag, WarningKind::InfluenceSum);
    assert_eq!((w.what, w.offset, w.count), ("vertex.boneverts", vertex, 1));
}

#[test]
fn influence_sum_within_tolerance_is_not_reported() {
    let (mut bytes, layout) = tube();
    let field = layout.meshes[0].ofs_verts + 4 + 12;
    let w = f32::from_bits(crate::support::get_u32(&bytes, field));
    put_f32(&mut bytes, field, w + 0.002); // as in the zombie model (sums 0.998..1.002)
    assert!(diagnostics(&bytes).is_empty());
}

#[test]
fn zero_rotation_row_in_a_pose() {
    let (mut bytes, layout) = tube();
    let row = layout.frame_poses[1] + 48 + 16; // frame 1, bone 1, row 1
    for k in 0..3 {
        put_f32(&mut bytes, row + 4 * k, if k == 1 { -0.0 } else { 0.0 });
    }
    // A judgement on the animation: validation leaves it to `check_rotations`.
    assert!(diagnostics(&bytes).is_empty());
    let mut diag = Diagnostics::new();
    Dpm::parse(&bytes).unwrap().check_rotations(&mut diag);
    let w = only(&diag, WarningKind::ZeroRotationRow);
    assert_eq!((w.what, w.offset, w.count), ("bonepose.matrix", row, 1));
    // `Model` gives it with the others when its diagnostics are asked for.
    let model = skelmap::Model::from_bytes(&bytes).unwrap();
    assert_eq!(model.diagnostics().count(WarningKind::ZeroRotationRow), 1);
}

#[test]
fn inverted_header_bounds() {
    let (mut bytes, _) = tube();
    put_f32(&mut bytes, hdr::MINS, 1e9); // mins.x > maxs.x
    let diag = diagnostics(&bytes);
    let w = only(&diag, WarningKind::Bounds);
    assert_eq!((w.what, w.offset), ("header.mins", hdr::MINS));
}

#[test]
fn negative_frame_radius() {
    let (mut bytes, layout) = tube();
    let frame = layout.ofs_frames + 2 * 68;
    put_f32(&mut bytes, frame + 60, -1.0); // frame 2 . allradius
    let diag = diagnostics(&bytes);
    let w = only(&diag, WarningKind::Bounds);
    assert_eq!((w.what, w.offset), ("frame.mins", frame + 32));
}

/// The frame table's bounds and names are judged in one pass over it; each warning still
/// names the frame that earns it, the last frame's as well as the first's, and counts them.
#[test]
fn every_frame_is_judged_for_bounds_and_name() {
    let (clean, layout) = tube();
    let frames = layout.frame_poses.len() as u64;
    for f in [0, frames - 1] {
        let frame = layout.ofs_frames + f * 68;
        let mut bytes = clean.clone();
        put_f32(&mut bytes, frame + 56, f32::NAN); // yawradius
        let diag = diagnostics(&bytes);
        let w = only(&diag, WarningKind::Bounds);
        assert_eq!((w.what, w.offset, w.count), ("frame.mins", frame + 32, 1));

        let mut bytes = clean.clone();
        bytes[frame as usize..frame as usize + 32].fill(b'x');
        let diag = diagnostics(&bytes);
        let w = only(&diag, WarningKind::UnterminatedName);
        assert_eq!((w.what, w.offset, w.count), ("frame.name", frame, 1));
    }
    // Every frame inverted: one entry, counting them all, at the first.
    let mut bytes = clean.clone();
    for f in 0..frames {
        put_f32(&mut bytes, layout.ofs_frames + f * 68 + 32, 1e9); // mins.x > maxs.x
    }
    let w = only(&diagnostics(&bytes), WarningKind::Bounds).clone();
    assert_eq!((w.offset, w.count), (layout.ofs_frames + 32, frames));
}

#[test]
fn overlapping_regions_are_out_of_writer_order() {
    let (mut bytes, layout) = tube();
    let m = layout.meshes[0];
    put_u32(&mut bytes, m.header + 52, m.ofs_indices as u32); // group ids alias the indices
    let diag = diagnostics(&bytes);
    let order = diag.get(WarningKind::LayoutOrder).expect("layout warning");
    assert_eq!(
        (order.what, order.offset, order.count),
        ("mesh.groupids", m.ofs_indices, 1)
    );
}

#[test]
fn trailing_bytes_after_last_structure() {
    let (mut bytes, layout) = tube();
    bytes.extend_from_slice(&[0xEE; 8]);
    let n = bytes.len() as u32;
    put_u32(&mut bytes, hdr::FILESIZE, n);
    let diag = diagnostics(&bytes);
    let w = only(&diag, WarningKind::TrailingBytes);
    assert_eq!(
        (w.offset, w.detail.as_str()),
        (layout.filesize, "8 bytes after the last structure")
    );
}

#[test]
fn declared_filesize_smaller_than_data_limits_the_view() {
    let (mut bytes, layout) = tube();
    bytes.extend_from_slice(&[0xEE; 12]); // filesize field left as written
    let mut diag = Diagnostics::new();
    let model = Dpm::parse_with(&bytes, &Limits::default(), &mut diag).unwrap();
    let w = only(&diag, WarningKind::FileSize);
    assert_eq!((w.what, w.offset), ("header.filesize", hdr::FILESIZE));
    assert_eq!(model.data().len() as u64, layout.filesize);
}

#[test]
fn unknown_bone_flags() {
    let (mut bytes, layout) = tube();
    let field = layout.ofs_bones + 40 + 36; // bone 1 . flags
    put_u32(&mut bytes, field, 0b110);
    let diag = diagnostics(&bytes);
    let w = only(&diag, WarningKind::UnknownFlags);
    assert_eq!((w.what, w.offset), ("bone.flags", field));
}

#[test]
fn name_filling_its_field_is_kept_whole() {
    let mut b = crate::support::tube_builder();
    b.bones[1].name = b"abcdefghijklmnopqrstuvwxyz012345".to_vec(); // 32 bytes, no NUL
    let (bytes, layout) = b.write_with_layout().unwrap();
    let mut diag = Diagnostics::new();
    let model = Dpm::parse_with(&bytes, &Limits::default(), &mut diag).unwrap();
    let w = only(&diag, WarningKind::UnterminatedName);
    assert_eq!((w.what, w.offset), ("bone.name", layout.ofs_bones + 40));
    assert_eq!(
        model.bone(1).unwrap().name(),
        b"abcdefghijklmnopqrstuvwxyz012345"
    );
}

#[test]
fn non_finite_texcoords_are_counted() {
    let (mut bytes, layout) = tube();
    let tc = layout.meshes[0].ofs_texcoords;
    put_f32(&mut bytes, tc + 8 * 5 + 4, f32::NAN); // vertex 5, t
    put_f32(&mut bytes, tc + 8 * 9, f32::INFINITY); // vertex 9, s
    let diag = diagnostics(&bytes);
    let w = only(&diag, WarningKind::NonFiniteTexcoord);
    assert_eq!((w.offset, w.count), (tc + 8 * 5, 2));
}

#[test]
fn each_kind_is_stored_once_however_often_it_occurs() {
    let (mut bytes, layout) = tube();
    // Break the influence sum of every vertex: scale every record's weight by 2.
    let model = Dpm::parse(&bytes).unwrap();
    let mut patches = Vec::new();
    let mut vertices = model.mesh(0).unwrap().vertices();
    loop {
        let at = vertices.offset();
        let Some(records) = vertices.next() else {
            break;
        };
        for (k, r) in records.iter().enumerate() {
            patches.push((at + 4 + 32 * k as u64 + 12, r.influence() * 2.0));
        }
    }
    for (at, w) in patches {
        put_f32(&mut bytes, at, w);
    }
    let diag = diagnostics(&bytes);
    let w = only(&diag, WarningKind::InfluenceSum);
    assert_eq!((w.offset, w.count), (layout.meshes[0].ofs_verts, 136));
}

/// Scales the rotation part of `bone`'s pose by `s` in every frame.
fn scale_bone(bytes: &mut [u8], layout: &skelmap::dpm::Layout, bone: u64, s: f32) {
    for &frame in &layout.frame_poses {
        let pose = frame + 48 * bone;
        for row in 0..3 {
            for col in 0..3 {
                let at = pose + 16 * row + 4 * col;
                let v = f32::from_bits(crate::support::get_u32(bytes, at));
                put_f32(bytes, at, v * s);
            }
        }
    }
}

/// Validation, then the rotation check `Model` runs at open.
fn rotation_diagnostics(bytes: &[u8]) -> Diagnostics {
    let mut diag = Diagnostics::new();
    let dpm = Dpm::parse_with(bytes, &Limits::default(), &mut diag).unwrap();
    assert!(
        diag.is_empty(),
        "validation leaves rotations to check_rotations"
    );
    dpm.check_rotations(&mut diag);
    diag
}

#[test]
fn scaled_sheared_or_mirrored_rotations_are_reported_once_with_their_count() {
    let (clean, layout) = tube();
    let frames = layout.frame_poses.len() as u64;
    let mut bytes = clean.clone();
    scale_bone(&mut bytes, &layout, 1, 1.5);
    let diag = rotation_diagnostics(&bytes);
    let w = only(&diag, WarningKind::NonOrthonormal);
    let first = layout.frame_poses[0] + 48;
    assert_eq!(
        (w.what, w.offset, w.count),
        ("bonepose.matrix", first, frames)
    );
    // A zero row in one of those poses is reported as such, not counted again.
    for k in 0..3 {
        put_f32(&mut bytes, layout.frame_poses[3] + 48 + 16 + 4 * k, 0.0);
    }
    let mut diag = Diagnostics::new();
    Dpm::parse_with(&bytes, &Limits::default(), &mut diag)
        .unwrap()
        .check_rotations(&mut diag);
    assert_eq!(diag.count(WarningKind::NonOrthonormal), frames - 1);
    assert_eq!(diag.count(WarningKind::ZeroRotationRow), 1);

    // A shear in one pose, and a mirror (determinant −1) in another.
    let mut bytes = clean.clone();
    put_f32(&mut bytes, layout.frame_poses[2] + 48 * 3 + 4, 0.2);
    let pose = layout.frame_poses[4] + 48 * 2;
    for col in 0..3 {
        let at = pose + 32 + 4 * col; // row 2 negated
        let v = f32::from_bits(crate::support::get_u32(&bytes, at));
        put_f32(&mut bytes, at, -v);
    }
    let diag = rotation_diagnostics(&bytes);
    let w = only(&diag, WarningKind::NonOrthonormal);
    let sheared = layout.frame_poses[2] + 48 * 3;
    assert_eq!((w.offset, w.count), (sheared, 2));

    // Within the converter's tolerance (1e-3 per element of R·Rᵀ): not reported.
    let mut bytes = clean;
    scale_bone(&mut bytes, &layout, 1, 1.0002);
    assert!(rotation_diagnostics(&bytes).is_empty());
}

#[test]
fn a_corpus_dpm_with_a_scaled_bone_is_reported_at_open() {
    use skelmap::Model;
    for path in crate::support::corpus_files("dpm") {
        let bytes = std::fs::read(&path).unwrap();
        let model = Model::from_bytes(&bytes).unwrap();
        let non_orthonormal = model.diagnostics().count(WarningKind::NonOrthonormal);
        assert_eq!(non_orthonormal, 0, "{}", path.display());

        // The same file with bone 0 scaled 1.5× in every frame.
        let dpm = Dpm::parse(&bytes).unwrap();
        let mut scaled = bytes.clone();
        for frame in dpm.frames() {
            let ofs = frame.raw().ofs_bonepositions.get() as usize;
            for k in [0, 1, 2, 4, 5, 6, 8, 9, 10] {
                let at = ofs + 4 * k;
                let v = f32::from_bits(u32::from_be_bytes(scaled[at..at + 4].try_into().unwrap()));
                scaled[at..at + 4].copy_from_slice(&(v * 1.5).to_be_bytes());
            }
        }
        let model = Model::from_bytes(&scaled).unwrap();
        let w = model
            .diagnostics()
            .get(WarningKind::NonOrthonormal)
            .unwrap();
        assert_eq!(w.count, dpm.num_frames() as u64, "{}", path.display());
    }
}

/// What `Model` reported when it ran the rotation check at open: validation's findings, then
/// the check's.
fn open_time_diagnostics(bytes: &[u8]) -> Diagnostics {
    let mut diag = Diagnostics::new();
    Dpm::parse_with(bytes, &Limits::default(), &mut diag)
        .unwrap()
        .check_rotations(&mut diag);
    diag
}

#[test]
fn a_model_asked_for_its_diagnostics_reports_the_rotation_check_as_at_open() {
    let (clean, layout) = tube();
    let mut scaled = clean.clone();
    scale_bone(&mut scaled, &layout, 1, 1.5);
    // A validation finding too, before the check's: trailing bytes.
    let mut trailing = scaled.clone();
    trailing.extend_from_slice(&[0; 7]);
    let declared = trailing.len() as u32 - 7;
    put_u32(&mut trailing, hdr::FILESIZE, declared);
    let mut inputs = vec![
        ("clean".to_string(), clean),
        ("scaled".to_string(), scaled),
        ("scaled, trailing".to_string(), trailing),
    ];
    for path in crate::support::corpus_files("dpm") {
        inputs.push((path.display().to_string(), std::fs::read(&path).unwrap()));
    }
    for (name, bytes) in &inputs {
        let model = skelmap::Model::from_bytes(bytes).unwrap();
        let diag = model.diagnostics();
        assert_eq!(*diag, open_time_diagnostics(bytes), "{name}");
        // The same entries, text and counts, on every call.
        assert_eq!(model.diagnostics(), diag, "{name}");
    }
    let skewed = open_time_diagnostics(&inputs[2].1);
    let kinds: Vec<_> = skewed.warnings().iter().map(|w| w.kind).collect();
    assert_eq!(kinds.last(), Some(&WarningKind::NonOrthonormal));
    assert!(kinds.len() >= 2, "{kinds:?}");
}
