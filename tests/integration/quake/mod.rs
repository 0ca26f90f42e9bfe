//! Quake MDL (`IDPO`) and GameStudio MDL2: one test per validation rule of `quake`'s module
//! docs (fixtures from `quake::Builder`, exact errors and offsets), groups, clips, the on-seam
//! rule, the palette, the `Model` API, truncation sweeps, and the corpus against the assimp
//! oracle (frame 0, corner by corner).

mod corpus;
mod model;
mod rules;
mod sweep;

use skelmap::Parse;
use skelmap::quake;
use skelmap::{Diagnostics, Error, Format, Limits, Problem};

fn err(bytes: &[u8]) -> Error {
    quake::Mdl::parse(bytes)
        .map(|_| ())
        .expect_err("broken file accepted")
}

fn err_with(bytes: &[u8], limits: &Limits) -> Error {
    quake::Mdl::parse_with(bytes, limits, &mut Diagnostics::new())
        .map(|_| ())
        .expect_err("broken file accepted")
}

/// `(format, what, offset, problem)` of an [`Error::Invalid`].
fn invalid(e: &Error) -> (Format, &'static str, u64, Problem) {
    match e {
        Error::Invalid {
            format,
            what,
            offset,
            problem,
        } => (*format, what, *offset, *problem),
        other => panic!("not an Invalid error: {other}"),
    }
}

/// `(what, offset, value)` of an [`Error::Unsupported`].
fn unsupported(e: &Error) -> (&'static str, u64, i64) {
    match e {
        Error::Unsupported {
            what,
            offset,
            value,
            ..
        } => (what, *offset, *value),
        other => panic!("not an Unsupported error: {other}"),
    }
}

/// `(what, offset, value, max)` of an [`Error::Limit`].
fn limit(e: &Error) -> (&'static str, u64, u64, u64) {
    match e {
        Error::Limit {
            what,
            offset,
            value,
            max,
            ..
        } => (what, *offset, *value, *max),
        other => panic!("not a Limit error: {other}"),
    }
}

fn put_i32(b: &mut [u8], at: u64, v: i32) {
    let at = at as usize;
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}
