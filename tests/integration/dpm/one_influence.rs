//! Meshes whose vertices have one influence each (rigid models: vehicles, buildings). Where
//! the CPU has AVX-512, validation steps over them sixteen at a time; these tests break one
//! vertex at a time, inside a group of sixteen, at a group's edge and in the tail after the
//! last whole group, and assert the same errors and warnings, at the same offsets, as the
//! vertex-by-vertex rules give (`docs/formats/dpm.md`, rule 9; `docs/formats/skm.md`, rule 3).
//!
//! Fixture: the default tube (4 bones, 136 vertices: eight groups of sixteen and a tail of
//! eight) with each vertex reduced to its first influence at weight 1, so vertex `v` starts
//! at `ofs_verts + 36 v` and its record's fields at `+ 4` (origin), `+ 16` (influence),
//! `+ 20` (normal), `+ 32` (bonenum).

use skelmap::Parse;
use skelmap::skm::Skm;
use skelmap::{Diagnostics, Error, Format, Limits, SkeletalMesh, WarningKind, dpm::Dpm};

use crate::support::{put_f32, put_f32_le, put_u32, put_u32_le, tube_builder};

/// Vertices broken in turn: the first, inside the first group, the last of a group, the
/// first of the next, inside a later group, the last whole group's end, and the tail.
const PLACES: [u64; 8] = [0, 5, 15, 16, 77, 127, 128, 135];

fn one_influence_builder() -> skelmap::dpm::Builder {
    let mut builder = tube_builder();
    for vertex in &mut builder.meshes[0].vertices {
        vertex.truncate(1);
        vertex[0].weight = 1.0;
    }
    builder
}

/// The single-influence tube as DPM, and the offset of its first vertex.
fn dpm() -> (Vec<u8>, u64) {
    let (bytes, layout) = one_influence_builder().write_with_layout().unwrap();
    (bytes, layout.meshes[0].ofs_verts)
}

/// The single-influence tube as SKM, and the offset of its first vertex.
fn skm() -> (Vec<u8>, u64) {
    let (dpm, _) = dpm();
    let model = Dpm::parse(&dpm).unwrap();
    let converted = skelmap::skm::convert::from_dpm(&model, &mut Diagnostics::new());
    let (bytes, layout) = converted.skm.write_with_layout().unwrap();
    (bytes, layout.meshes[0][1])
}

fn dpm_result(bytes: &[u8], limits: &Limits) -> Result<Diagnostics, Error> {
    let mut diag = Diagnostics::new();
    Dpm::parse_with(bytes, limits, &mut diag).map(|_| diag)
}

fn skm_result(bytes: &[u8]) -> Result<Diagnostics, Error> {
    let mut diag = Diagnostics::new();
    Skm::parse_with(bytes, &Limits::default(), &mut diag).map(|_| diag)
}

/// `(what, offset)` of an `Invalid` error, else a panic naming the error.
fn invalid_at(result: Result<Diagnostics, Error>, format: Format) -> (&'static str, u64) {
    match result {
        Err(Error::Invalid {
            format: f,
            what,
            offset,
            ..
        }) if f == format => (what, offset),
        other => panic!("expected an invalid {format:?} field, got {other:?}"),
    }
}

#[test]
fn the_fixtures_are_clean_and_read_back_one_influence_per_vertex() {
    let (bytes, _) = dpm();
    let diag = dpm_result(&bytes, &Limits::default()).unwrap();
    assert!(diag.is_empty(), "{:?}", diag.warnings());
    let model = Dpm::parse(&bytes).unwrap();
    let mesh = model.mesh(0).unwrap();
    let want = &one_influence_builder().meshes[0].vertices;
    assert_eq!(mesh.vertices().len(), 136);
    for (vertex, want) in mesh.vertices().zip(want) {
        assert_eq!(vertex.len(), 1);
        assert_eq!(vertex[0].bonenum(), want[0].bone);
        assert_eq!(vertex[0].origin(), want[0].origin);
    }
    let (bytes, _) = skm();
    assert!(skm_result(&bytes).unwrap().is_empty());
}

#[test]
fn a_bad_field_of_any_vertex_is_reported_at_its_own_offset() {
    let (clean, verts) = dpm();
    for v in PLACES {
        let record = verts + 36 * v + 4;
        let cases: [(u64, u32, &str, u64); 5] = [
            (28, 4, "bonevert.bonenum", record + 28),
            (28, u32::MAX, "bonevert.bonenum", record + 28),
            (0, f32::NAN.to_bits(), "bonevert.origin", record),
            (8, f32::INFINITY.to_bits(), "bonevert.origin", record),
            (
                24,
                f32::NEG_INFINITY.to_bits(),
                "bonevert.normal",
                record + 16,
            ),
        ];
        for (field, value, what, offset) in cases {
            let mut bytes = clean.clone();
            put_u32(&mut bytes, record + field, value);
            let got = invalid_at(dpm_result(&bytes, &Limits::default()), Format::Dpm);
            assert_eq!(
                got,
                (what, offset),
                "vertex {v}, field +{field} = {value:#x}"
            );
        }
    }
}

#[test]
fn a_non_finite_influence_is_reported_where_the_walk_reports_it() {
    let (clean, verts) = dpm();
    for v in PLACES {
        let record = verts + 36 * v + 4;
        let mut bytes = clean.clone();
        put_f32(&mut bytes, record + 12, f32::NAN);
        let (what, offset) = invalid_at(dpm_result(&bytes, &Limits::default()), Format::Dpm);
        assert_eq!(offset, record + 12, "vertex {v}: {what}");
    }
}

#[test]
fn a_bad_influence_count_is_reported_at_its_vertex() {
    let (clean, verts) = dpm();
    for v in PLACES {
        let vertex = verts + 36 * v;
        let mut bytes = clean.clone();
        put_u32(&mut bytes, vertex, 0);
        let got = invalid_at(dpm_result(&bytes, &Limits::default()), Format::Dpm);
        assert_eq!(got, ("vertex.numbones", vertex), "vertex {v}");
        let mut bytes = clean.clone();
        put_u32(&mut bytes, vertex, 1000);
        match dpm_result(&bytes, &Limits::default()) {
            Err(Error::Limit {
                what: "vertex.numbones",
                offset,
                value: 1000,
                ..
            }) => assert_eq!(offset, vertex, "vertex {v}"),
            other => panic!("vertex {v}: {other:?}"),
        }
    }
}

#[test]
fn influence_sums_off_by_more_than_the_tolerance_are_warned_from_the_first() {
    let (clean, verts) = dpm();
    for (i, &first) in PLACES.iter().enumerate() {
        for w in [0.5, 0.98999, 1.0101, 2.0, 0.0, -1.0] {
            let mut bytes = clean.clone();
            // The first and every later place: one warning, at the first, with their count.
            for &v in &PLACES[i..] {
                put_f32(&mut bytes, verts + 36 * v + 4 + 12, w);
            }
            let diag = dpm_result(&bytes, &Limits::default()).unwrap();
            let warning = diag.get(WarningKind::InfluenceSum).unwrap();
            assert_eq!(diag.warnings().len(), 1);
            assert_eq!(
                (warning.what, warning.offset, warning.count),
                (
                    "vertex.boneverts",
                    verts + 36 * first,
                    (PLACES.len() - i) as u64
                ),
                "from vertex {first}, influence {w}"
            );
        }
        // Within the tolerance: no warning.
        for w in [0.99, 1.01, 0.995] {
            let mut bytes = clean.clone();
            put_f32(&mut bytes, verts + 36 * first + 4 + 12, w);
            assert!(dpm_result(&bytes, &Limits::default()).unwrap().is_empty());
        }
    }
}

#[test]
fn the_total_influence_limit_is_reported_at_the_vertex_that_passes_it() {
    let (bytes, verts) = dpm();
    for max in [0, 1, 15, 16, 17, 100, 128, 135] {
        let limits = Limits {
            max_total_influences: max,
            ..Limits::default()
        };
        match dpm_result(&bytes, &limits) {
            Err(Error::Limit {
                what: "total bone influences",
                offset,
                value,
                ..
            }) => assert_eq!((offset, value), (verts + 36 * max, max + 1), "max {max}"),
            other => panic!("max {max}: {other:?}"),
        }
    }
    let limits = Limits {
        max_total_influences: 136,
        ..Limits::default()
    };
    assert!(dpm_result(&bytes, &limits).is_ok());
}

#[test]
fn vertices_with_more_influences_among_one_influence_runs_are_read_in_place() {
    // Two-influence vertices inside groups shift every later vertex by 32 bytes; validation
    // must find the layout the counts give, not the one a run of sixteen suggests.
    let mut builder = one_influence_builder();
    let full = tube_builder().meshes[0].vertices.clone();
    for v in [3, 40, 41, 100, 135] {
        builder.meshes[0].vertices[v] = full[v].clone();
    }
    let (bytes, layout) = builder.write_with_layout().unwrap();
    assert!(dpm_result(&bytes, &Limits::default()).unwrap().is_empty());
    let model = Dpm::parse(&bytes).unwrap();
    let counts: Vec<usize> = model.mesh(0).unwrap().vertices().map(<[_]>::len).collect();
    let want: Vec<usize> = builder.meshes[0].vertices.iter().map(Vec::len).collect();
    assert_eq!(counts, want);
    // A bad bone after the shift is found at its shifted offset.
    let shifted: u64 = want[..101].iter().map(|&n| 4 + 32 * n as u64).sum();
    let mut broken = bytes.clone();
    put_u32(
        &mut broken,
        layout.meshes[0].ofs_verts + shifted + 4 + 28,
        4,
    );
    let got = invalid_at(dpm_result(&broken, &Limits::default()), Format::Dpm);
    assert_eq!(
        got,
        (
            "bonevert.bonenum",
            layout.meshes[0].ofs_verts + shifted + 32
        )
    );
}

#[test]
fn skm_little_endian_runs_report_the_same_fields() {
    let (clean, verts) = skm();
    for v in PLACES {
        let record = verts + 36 * v + 4;
        let mut bytes = clean.clone();
        put_u32_le(&mut bytes, record + 28, 4);
        let got = invalid_at(skm_result(&bytes), Format::Skm);
        assert_eq!(got, ("bonevert.bonenum", record + 28), "vertex {v}");
        let mut bytes = clean.clone();
        put_f32_le(&mut bytes, record + 20, f32::NAN);
        let got = invalid_at(skm_result(&bytes), Format::Skm);
        assert_eq!(got, ("bonevert.normal", record + 16), "vertex {v}");
        let mut bytes = clean.clone();
        put_f32_le(&mut bytes, record + 12, 0.5);
        let diag = skm_result(&bytes).unwrap();
        let warning = diag.get(WarningKind::InfluenceSum).unwrap();
        assert_eq!((warning.offset, warning.count), (verts + 36 * v, 1));
    }
}
