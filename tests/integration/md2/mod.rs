//! Quake II MD2 (`IDP2`): one test per validation rule of `md2`'s module docs and per
//! malformed pattern issue #54 names (fixtures from `md2::Builder`, exact errors and offsets),
//! the `Model` API and the per-frame tween on MD2 frames, truncation sweeps, the writer's
//! round trip, and the corpus against its MANIFEST and the assimp oracle.

mod corpus;
mod model;
mod rules;
mod sweep;

use skelmap::md2::write::{Builder, FrameDef, GlCommandDef};
use skelmap::{Diagnostics, Error, Format, Limits, Problem};

fn err(bytes: &[u8]) -> Error {
    err_with(bytes, &Limits::default())
}

fn err_with(bytes: &[u8], limits: &Limits) -> Error {
    crate::support::parse_error::<skelmap::md2::Md2>(bytes, limits)
}

/// The warnings a file that opens has.
fn warnings(bytes: &[u8]) -> Diagnostics {
    crate::support::parse_warnings::<skelmap::md2::Md2>(bytes)
}

/// `(format, what, offset, problem)` of an [`Error::Invalid`].
fn invalid(e: &Error) -> (Format, &'static str, u64, Problem) {
    crate::support::invalid_parts(e)
}

/// `(what, offset, need, have)` of an [`Error::Truncated`].
fn truncated(e: &Error) -> (&'static str, u64, u64, u64) {
    crate::support::truncated_parts(e, Format::Md2)
}

fn get_i32(b: &[u8], at: u64) -> i32 {
    let at = at as usize;
    i32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

fn put_i32(b: &mut [u8], at: u64, v: i32) {
    let at = at as usize;
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

/// Vertices of [`animated`]: two whole AVX-512 steps and a tail of 8.
pub const RING: usize = 40;

/// A ring of [`RING`] vertices over three frames named `walk01` … `walk03`, each frame on its
/// own grid (scale and translate differ frame to frame, the packed bytes too), every normal
/// index a different one of the 162; a fan of triangles, a texture coordinate per vertex
/// and a shared one for the centre; GL commands of one strip and one fan.
pub fn animated() -> Builder {
    let n = RING;
    let frame = |f: usize| FrameDef {
        name: format!("walk{:02}", f + 1).into_bytes(),
        scale: [0.5 + f as f32 * 0.25, 0.75, 0.125 * (f + 1) as f32],
        translate: [-32.0 + f as f32, 8.0 * f as f32, -4.0],
        vertices: (0..n)
            .map(|i| {
                let v = [
                    ((i * 37 + f * 53) % 256) as u8,
                    ((i * 91 + f * 7) % 256) as u8,
                    ((i * 13 + f * 101) % 256) as u8,
                ];
                (v, ((i * 7 + f * 11) % 162) as u8)
            })
            .collect(),
    };
    let triangles = (1..n as u16 - 1)
        .map(|i| ([0, i, i + 1], [0, i, i + 1]))
        .collect();
    let st = (0..n)
        .map(|i| [(i * 6) as i16, (i % 7 * 30) as i16])
        .collect();
    let strip = GlCommandDef {
        fan: false,
        vertices: vec![
            ([0.0, 0.0], 0),
            ([0.5, 0.0], 1),
            ([0.0, 0.5], 2),
            ([0.5, 0.5], 3),
        ],
    };
    let fan = GlCommandDef {
        fan: true,
        vertices: (4..9).map(|i| ([0.25, 0.25], i)).collect(),
    };
    Builder {
        skin_size: [256, 256],
        skins: vec![
            b"models/test/walker.pcx".to_vec(),
            b"models/test/walker2.pcx".to_vec(),
        ],
        st,
        triangles,
        frames: (0..3).map(frame).collect(),
        gl_words: Some(GlCommandDef::words(&[strip, fan])),
        ..Builder::default()
    }
}
