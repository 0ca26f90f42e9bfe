//! Unreal PSK and PSA (ActorX chunks): one test per validation rule of `docs/formats/psk.md`
//! (fixtures from `psk::Builder`, exact errors and offsets), the truncation and mutation
//! sweeps, a reference whose positions the test computes from the bytes by the spec's rules,
//! the pair of a PSK and its PSA through `Model`, and the writer's round trips.

mod model;
mod reference;
mod rules;
mod sweep;
mod write;

use std::collections::HashMap;

use skelmap::psk::{Builder, Psa, Psk};
use skelmap::{Error, Format, Limits, Problem};

fn psk_err(bytes: &[u8]) -> Error {
    crate::support::parse_error::<Psk>(bytes, &Limits::default())
}

fn psa_err(bytes: &[u8]) -> Error {
    crate::support::parse_error::<Psa>(bytes, &Limits::default())
}

/// `(format, what, offset, problem)` of an [`Error::Invalid`].
fn invalid(e: &Error) -> (Format, &'static str, u64, Problem) {
    crate::support::invalid_parts(e)
}

/// Where [`Builder::example`]'s PSK chunk headers start: `ACTRHEAD`, `PNTS0000`,
/// `VTXW0000`, `FACE0000`, `MATT0000`, `REFSKELT`, `RAWWEIGHTS`; and the file's end.
const PSK_CHUNKS: [u64; 8] = [0, 32, 112, 208, 264, 472, 744, 848];

/// Where [`Builder::example`]'s PSA chunk headers start: `ANIMHEAD`, `BONENAMES`,
/// `ANIMINFO`, `ANIMKEYS`; and the file's end.
const PSA_CHUNKS: [u64; 5] = [0, 32, 304, 672, 896];

/// The records of a chunk start 32 bytes after its header.
const HEADER: u64 = 32;
/// `DataSize` and `DataCount` in a chunk header.
const SIZE_AT: u64 = 24;
const COUNT_AT: u64 = 28;

fn example_psk() -> Vec<u8> {
    Builder::example().write_psk().unwrap()
}

fn example_psa() -> Vec<u8> {
    Builder::example().write_psa().unwrap()
}

/// A chunk of `count` records of `size` bytes, each byte `fill`.
fn chunk(id: &str, size: i32, count: i32, fill: u8) -> Vec<u8> {
    let mut out = vec![0u8; 20];
    out[..id.len()].copy_from_slice(id.as_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&size.to_le_bytes());
    out.extend_from_slice(&count.to_le_bytes());
    out.extend(std::iter::repeat_n(fill, (size * count) as usize));
    out
}

/// The example's PSK and PSA as files `models/soldier.psk` and `models/soldier.psa`.
fn pair_files() -> HashMap<String, Vec<u8>> {
    let mut files = HashMap::new();
    files.insert("models/soldier.psk".to_string(), example_psk());
    files.insert("models/soldier.psa".to_string(), example_psa());
    files
}
