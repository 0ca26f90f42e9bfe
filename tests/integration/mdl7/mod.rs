//! MDL7: one test per validation rule of `docs/formats/mdl7.md` (fixtures from
//! `mdl7::Builder`), the decisions of § Quirks and decisions, and the shared files of
//! `corpus-next/mdl7` against their MANIFEST and the assimp oracle.

mod corpus;
mod engine;
mod quirks;
mod rules;
mod sweep;
mod write;

use skelmap::Parse;
use skelmap::core::mdl7::{Builder, Mdl7};
use skelmap::{Diagnostics, Error, Format, Limits, Problem};

fn err_bytes(bytes: &[u8]) -> Error {
    err_with(bytes, &Limits::default())
}

fn err_with(bytes: &[u8], limits: &Limits) -> Error {
    let e = Mdl7::parse_with(bytes, limits, &mut Diagnostics::new())
        .map(|_| ())
        .expect_err("broken MDL7 accepted");
    assert_eq!(e.format(), Some(Format::Mdl7), "{e}");
    e
}

fn err(b: &Builder) -> Error {
    err_bytes(&b.write())
}

fn warnings(b: &Builder) -> Diagnostics {
    warnings_bytes(&b.write())
}

fn warnings_bytes(bytes: &[u8]) -> Diagnostics {
    let mut diag = Diagnostics::new();
    Mdl7::parse_with(bytes, &Limits::default(), &mut diag)
        .unwrap_or_else(|e| panic!("a warning must not reject the file: {e}"))
        .check_rotations(&mut diag);
    diag
}

/// The label, offset and problem of an [`Error::Invalid`].
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

/// The label, offset and value of an [`Error::Unsupported`].
fn unsupported(e: &Error) -> (&'static str, u64, i64) {
    match e {
        Error::Unsupported {
            what,
            offset,
            value,
            ..
        } => (what, *offset, *value),
        other => panic!("expected Unsupported, got {other}"),
    }
}

/// The label, offset and sizes of an [`Error::Truncated`].
fn truncated(e: &Error) -> (&'static str, u64) {
    match e {
        Error::Truncated { what, offset, .. } => (what, *offset),
        other => panic!("expected Truncated, got {other}"),
    }
}
