//! Enemy Territory MDM + MDX (`MDMW` / `MDXW`): one test per validation rule of `mdm`'s
//! module docs (fixtures from `mdm::Builder`, exact errors and offsets), bones, vertices and
//! tags against ET's placement written out in the tests, the MDX found beside the MDM, given,
//! through a character file and its animation group (`companion.rs`), or missing, the `Model` API over built pairs and an MDX alone, and truncation and
//! byte-flip sweeps. No MDM or MDX may be shared: every fixture is built.

mod companion;
mod model;
mod pair;
mod reference;
mod rules;
mod sweep;
mod write;

pub use reference::three_bones;
use skelmap::mdm::{Mdm, Mdx};
use skelmap::{Diagnostics, Error, Format, Limits, Problem};

fn mdm_err(bytes: &[u8]) -> Error {
    crate::support::parse_error::<Mdm>(bytes, &Limits::default())
}

fn mdx_err(bytes: &[u8]) -> Error {
    crate::support::parse_error::<Mdx>(bytes, &Limits::default())
}

fn mdm_warnings(bytes: &[u8]) -> Diagnostics {
    crate::support::parse_warnings::<Mdm>(bytes)
}

fn mdx_warnings(bytes: &[u8]) -> Diagnostics {
    crate::support::parse_warnings::<Mdx>(bytes)
}

/// `(format, what, offset, problem)` of an [`Error::Invalid`].
fn invalid(e: &Error) -> (Format, &'static str, u64, Problem) {
    crate::support::invalid_parts(e)
}

fn put_i32(b: &mut [u8], at: u64, v: i32) {
    let at = at as usize;
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

fn put_f32(b: &mut [u8], at: u64, v: f32) {
    let at = at as usize;
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}
