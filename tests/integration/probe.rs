//! Format recognition by magic bytes and `Model::from_bytes`.

use skelmap::{Error, Format, Model, Source};

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
fn from_bytes_dispatches_to_the_dpm_view() {
    let (bytes, _) = tube();
    let model = Model::from_bytes(&bytes).unwrap();
    assert_eq!(model.format(), Format::Dpm);
    assert_eq!(model.as_dpm().map(|m| m.num_frames()), Some(9));
    assert!(model.as_ms3d().is_none());
}

#[test]
fn unknown_data_is_an_unknown_format_and_a_broken_file_its_error() {
    // A Half-Life MDL header cut short is a Half-Life MDL's error.
    assert!(matches!(
        Model::from_bytes(b"IDST\x0a\0\0\0"),
        Err(Error::Truncated {
            format: Format::Hl1,
            what: "header",
            ..
        })
    ));
    // An MD2 header cut short is an MD2's error.
    assert!(matches!(
        Model::from_bytes(b"IDP2\x08\0\0\0"),
        Err(Error::Truncated {
            format: Format::Md2,
            what: "header",
            ..
        })
    ));
    let e = Model::from_bytes(b"MS3D000000\x04\0\0\0").unwrap_err();
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
    let e = Model::from_bytes(&bytes[..100]).unwrap_err();
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
fn a_sprite_map_or_archive_is_named_and_other_bytes_are_unknown() {
    // Half-Life sprites named `.mdl` sit in real models folders; opened from the path (where
    // the extension could also decide) and from bytes, each is named, not just unknown.
    let sprite = b"IDSP\x02\0\0\0\x02\0\0\0\0\0\0\0";
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("muzzleflash.mdl");
    std::fs::write(&path, sprite).unwrap();
    for e in [
        Model::open(&path).unwrap_err(),
        Model::from_bytes(sprite).unwrap_err(),
    ] {
        assert!(
            matches!(
                e,
                Error::NotAModel {
                    kind: "a Half-Life or Quake sprite (IDSP)"
                }
            ),
            "{e}"
        );
        assert_eq!(
            e.to_string(),
            "not a model: the first bytes are those of a Half-Life or Quake sprite (IDSP)"
        );
        assert_eq!((e.format(), e.offset(), e.what()), (None, None, None));
    }
    let kinds = [
        (&b"IDS2"[..], "a Quake II sprite (IDS2)"),
        (b"IBSP", "a Quake II or Quake III map (IBSP)"),
        (b"VBSP", "a Source map (VBSP)"),
        (b"WAD2", "a Quake texture archive (WAD2)"),
        (b"WAD3", "a Half-Life texture archive (WAD3)"),
        (b"PACK", "a Quake or Quake II file archive (PACK)"),
        (b"PK\x03\x04", "a zip archive (a .pk3, .pk4 or .zip)"),
    ];
    for (magic, kind) in kinds {
        let mut bytes = magic.to_vec();
        bytes.extend([0; 60]);
        assert!(
            matches!(Model::from_bytes(&bytes), Err(Error::NotAModel { kind: k }) if k == kind),
            "{kind}"
        );
        // Cut short of its magic, nothing names it.
        assert!(matches!(
            Model::from_bytes(&magic[..3]),
            Err(Error::UnknownFormat)
        ));
    }
    for bytes in [&b"not a model at all"[..], b"", b"IDS"] {
        let e = Model::from_bytes(bytes).unwrap_err();
        assert!(matches!(e, Error::UnknownFormat), "{e}");
    }
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
fn mdl7_is_told_from_the_other_gamestudio_models_by_its_magic() {
    let mdl7 = crate::support::mdl7::demo().write();
    assert_eq!(Format::sniff(&mdl7), Some(Format::Mdl7));
    let mdl5 = crate::support::gamestudio::quad().write();
    assert_eq!(Format::sniff(&mdl5), Some(Format::Mdl));
    let mut mdl2 = crate::support::quake::grouped().write();
    mdl2[..4].copy_from_slice(b"MDL2");
    assert_eq!(Format::sniff(&mdl2), Some(Format::Mdl));
    assert_eq!(Format::sniff(b"MDL7"), Some(Format::Mdl7));
    assert_eq!(
        Format::sniff(b"MDL"),
        Some(Format::Mdl),
        "a prefix left for MDL to report"
    );
    let model = Model::from_bytes(&mdl7).unwrap();
    assert_eq!(model.format(), Format::Mdl7);
    // The MDL reader names the one that reads MDL7.
    let e = <skelmap::core::gamestudio::Mdl as skelmap::Parse>::parse(&mdl7)
        .map(|_| ())
        .unwrap_err();
    assert!(e.to_string().contains("mdl7::Mdl7"), "{e}");
}
