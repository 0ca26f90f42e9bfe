//! ioquake3 MDR (`RDM5`): one test per validation rule of `mdr`'s module docs (fixtures from
//! `mdr::Builder`, exact errors and offsets), vertices, tags and compressed frames against
//! ioquake3's formulas written out in the tests, the `Model` API over built files, and
//! truncation and byte-flip sweeps. No MDR file is public: every fixture is built.

mod model;
mod reference;
mod rules;
mod sweep;
mod write;

use skelmap::mdr::write::{Builder, SurfaceDef, VertexDef, WeightDef, turn_z};
use skelmap::{Diagnostics, Error, Format, Limits, Problem};

fn err(bytes: &[u8]) -> Error {
    err_with(bytes, &Limits::default())
}

fn err_with(bytes: &[u8], limits: &Limits) -> Error {
    crate::support::parse_error::<skelmap::mdr::Mdr>(bytes, limits)
}

/// The warnings a file that opens has.
fn warnings(bytes: &[u8]) -> Diagnostics {
    crate::support::parse_warnings::<skelmap::mdr::Mdr>(bytes)
}

/// `(format, what, offset, problem)` of an [`Error::Invalid`].
fn invalid(e: &Error) -> (Format, &'static str, u64, Problem) {
    crate::support::invalid_parts(e)
}

/// `(what, offset, need, have)` of an [`Error::Truncated`].
fn truncated(e: &Error) -> (&'static str, u64, u64, u64) {
    crate::support::truncated_parts(e, Format::Mdr)
}

fn put_i32(b: &mut [u8], at: u64, v: i32) {
    let at = at as usize;
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

fn put_f32(b: &mut [u8], at: u64, v: f32) {
    let at = at as usize;
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

/// The builder's triangle with its frames compressed.
pub fn compressed() -> Builder {
    Builder {
        compressed: true,
        ..Builder::triangle()
    }
}

/// The triangle with a second level of detail: one surface of one vertex-sharing triangle.
pub fn lods() -> Builder {
    let mut b = Builder::triangle();
    let one = |bone, offset| WeightDef {
        bone,
        weight: 1.0,
        offset,
    };
    let vertex = |weights| VertexDef {
        normal: [0.0, 0.0, 1.0],
        tex_coords: [0.5, 0.5],
        weights,
    };
    b.lods.push(vec![SurfaceDef {
        name: b"triangle_lod1".to_vec(),
        shader: b"models/triangle".to_vec(),
        vertices: vec![
            vertex(vec![one(0, [0.0, 0.0, 0.0])]),
            vertex(vec![one(1, [1.0, 0.0, 0.0])]),
            vertex(vec![one(1, [0.0, 1.0, 0.0])]),
        ],
        triangles: vec![[0, 2, 1]],
    }]);
    b
}

/// A model of three bones and four frames, two surfaces, two tags: bones turning about `+Z`
/// by different angles per frame and moving, vertices of one, two and three weights.
pub fn animated() -> Builder {
    let mut b = Builder::triangle();
    b.num_bones = 3;
    b.frames = (0..4)
        .map(|f| {
            let f32f = f as f32;
            skelmap::mdr::write::FrameDef {
                name: format!("walk{f}").into_bytes(),
                bones: vec![
                    turn_z(10.0 * f32f, [0.0, 0.0, 0.5 * f32f]),
                    turn_z(-20.0 * f32f, [1.0, f32f, 0.0]),
                    turn_z(45.0 * f32f, [0.0, 2.0, 0.25 * f32f]),
                ],
            }
        })
        .collect();
    let w = |bone, weight, offset| WeightDef {
        bone,
        weight,
        offset,
    };
    b.lods[0].push(SurfaceDef {
        name: b"second".to_vec(),
        shader: b"models/second".to_vec(),
        vertices: vec![
            VertexDef {
                normal: [1.0, 0.0, 0.0],
                tex_coords: [0.25, 0.75],
                weights: vec![
                    w(0, 0.5, [1.0, 2.0, 3.0]),
                    w(1, 0.25, [-1.0, 0.5, 2.0]),
                    w(2, 0.25, [0.0, -1.0, 1.0]),
                ],
            },
            VertexDef {
                normal: [0.0, 1.0, 0.0],
                tex_coords: [0.5, 0.5],
                weights: vec![w(2, 1.0, [2.0, 0.0, -1.0])],
            },
            VertexDef {
                normal: [0.0, 0.0, -1.0],
                tex_coords: [1.0, 0.25],
                weights: vec![w(1, 0.6, [0.5, 0.5, 0.5]), w(2, 0.4, [1.5, -0.5, 0.0])],
            },
        ],
        triangles: vec![[0, 1, 2], [2, 1, 0]],
    });
    b.tags.push(skelmap::mdr::write::TagDef {
        name: b"tag_head".to_vec(),
        bone: 2,
    });
    b
}
