//! Format recognition by magic bytes and `open_any`.

use skelmap::{AnyModel, Error, Format, Source, open_any};

use crate::support::tube;

#[test]
fn sniff_recognises_dpm_by_its_sixteen_byte_magic() {
    let (bytes, _) = tube();
    assert_eq!(Format::sniff(&bytes), Some(Format::Dpm));
    assert_eq!(
        Format::sniff(b"DARKPLACESMODEL"),
        None,
        "15 bytes are not the whole magic"
    );
    assert_eq!(Format::sniff(b""), None);
    assert_eq!(Format::Dpm.magic(), b"DARKPLACESMODEL\0");
}

#[test]
fn open_any_dispatches_to_the_dpm_view() {
    let (bytes, _) = tube();
    match open_any(&bytes).unwrap() {
        Some(AnyModel::Dpm(m)) => assert_eq!(m.num_frames(), 9),
        other => panic!("expected a DPM, got {other:?}"),
    }
}

#[test]
fn open_any_returns_none_for_unknown_data_and_errors_for_broken_dpm() {
    assert!(
        open_any(b"IDP2\x08\0\0\0").unwrap().is_none(),
        "Quake 2 MD2 is not supported"
    );
    let e = open_any(b"MS3D000000\x04\0\0\0").unwrap_err();
    assert!(
        matches!(
            e,
            Error::Truncated {
                format: Format::Ms3d,
                what: "nNumVertices",
                offset: 14,
                ..
            }
        ),
        "{e}"
    );
    let (bytes, _) = tube();
    let e = open_any(&bytes[..100]).unwrap_err();
    assert!(
        matches!(
            e,
            Error::Truncated {
                what: "file (header.filesize)",
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn reading_a_missing_file_is_an_io_error_naming_the_path() {
    let e = Source::read("/nonexistent/skelmap/model.dpm").unwrap_err();
    assert!(
        matches!(&e, Error::Io { path, .. } if path.ends_with("model.dpm")),
        "{e}"
    );
    assert!(
        e.to_string()
            .starts_with("cannot read /nonexistent/skelmap/model.dpm: ")
    );
    assert_eq!((e.format(), e.offset()), (None, None));
}

#[test]
fn mapping_an_empty_file_gives_no_bytes() {
    let path = std::env::temp_dir().join(format!("skelmap-empty-{}.dpm", std::process::id()));
    std::fs::write(&path, b"").unwrap();
    #[allow(unsafe_code)]
    // SAFETY: the file is private to this test and not modified while mapped.
    let source = unsafe { Source::map(&path) }.unwrap();
    assert!(source.bytes().is_empty());
    std::fs::remove_file(&path).unwrap();
}
