//! IQM: one test per validation rule of `docs/formats/iqm.md` (fixtures from `iqm::Builder`),
//! the quirks of real files, sampling with scale and skinning, and the shared corpus against
//! its MANIFEST and the assimp oracle.

mod animation;
mod binding;
mod corpus;
mod quirks;
mod rules;
mod sweep;

use skelmap::Parse;
use skelmap::core::iqm::{self, Iqm};
use skelmap::{Diagnostics, Error, Format, Limits};

fn err_bytes(bytes: &[u8]) -> Error {
    let e = Iqm::parse(bytes)
        .map(|_| ())
        .expect_err("broken IQM accepted");
    assert_eq!(e.format(), Some(Format::Iqm), "{e}");
    e
}

fn err(b: &iqm::Builder) -> Error {
    err_bytes(&b.write().unwrap())
}

fn warnings_bytes(bytes: &[u8]) -> Diagnostics {
    let mut diag = Diagnostics::new();
    Iqm::parse_with(bytes, &Limits::default(), &mut diag)
        .unwrap_or_else(|e| panic!("a warning must not reject the file: {e}"));
    diag
}

fn warnings(b: &iqm::Builder) -> Diagnostics {
    warnings_bytes(&b.write().unwrap())
}
