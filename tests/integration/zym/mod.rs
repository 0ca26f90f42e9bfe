//! DarkPlaces ZYM (`ZYMOTICMODEL`, type 1): one test per validation rule of
//! `docs/formats/zym.md` (fixtures from `zym::Builder`, exact errors and offsets), the
//! truncation and mutation sweeps, and a reference whose positions the test computes by
//! DarkPlaces' formula, against `Model::deform` and the compact kernel.

mod reference;
mod rules;
mod sweep;
mod write;

use skelmap::zym::{BoneDef, Builder, SceneDef, ShaderDef, VertexDef};
use skelmap::{Error, Format, Limits, Problem};

fn err(bytes: &[u8]) -> Error {
    err_with(bytes, &Limits::default())
}

fn err_with(bytes: &[u8], limits: &Limits) -> Error {
    crate::support::parse_error::<skelmap::zym::Zym>(bytes, limits)
}

/// `(format, what, offset, problem)` of an [`Error::Invalid`].
fn invalid(e: &Error) -> (Format, &'static str, u64, Problem) {
    crate::support::invalid_parts(e)
}

fn put_i32(b: &mut [u8], at: u64, v: i32) {
    let at = at as usize;
    b[at..at + 4].copy_from_slice(&v.to_be_bytes());
}

fn put_f32(b: &mut [u8], at: u64, v: f32) {
    let at = at as usize;
    b[at..at + 4].copy_from_slice(&v.to_be_bytes());
}

/// Where [`Builder::example`]'s lumps start, in the header's order: scenes, poses, bones,
/// bone counts, vertices, texture coordinates, render list, shaders, triangle zones; and the
/// file's end.
const EXAMPLE_LUMPS: [u64; 10] = [140, 292, 580, 660, 684, 780, 828, 872, 936, 939];

/// The least a model can be: one bone, one pose, one scene, three vertices on the bone, one
/// triangle, one shader.
pub fn single() -> Builder {
    Builder {
        bones: vec![BoneDef {
            name: "root".into(),
            parent: None,
            flags: 0,
        }],
        poses: vec![vec![skelmap::zym::write::rotation_z(0.0, [1.0, 2.0, 3.0])]],
        scenes: vec![SceneDef {
            name: "still".into(),
            start: 0,
            length: 1,
            framerate: 10.0,
            looped: true,
        }],
        vertices: (0..3)
            .map(|i| VertexDef {
                bone: 0,
                origin: [i as f32, (i * i) as f32, 0.0],
                texcoord: [0.25 * i as f32, 0.5],
            })
            .collect(),
        shaders: vec![ShaderDef {
            name: "single".into(),
            triangles: vec![[0, 1, 2]],
        }],
        mins: [0.0; 3],
        maxs: [2.0, 4.0, 0.0],
        radius: 5.0,
        ..Builder::default()
    }
}
