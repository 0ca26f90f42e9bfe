//! Quake III MD3 (`IDP3`): one test per validation rule of `md3`'s module docs and per
//! malformed pattern issue #54 names (fixtures from `md3::Builder`, exact errors and offsets),
//! the `Model` API and the morph kernels on MD3 frames, truncation sweeps, and the corpus
//! against its MANIFEST and the assimp oracle.

mod companion;
mod convert;
mod corpus;
mod model;
mod rules;
mod sweep;
mod write;

use core::mem::offset_of;

use skelmap::md3::raw::{Md3Header, Md3Surface};
use skelmap::md3::write::{Builder, FrameDef, SurfaceDef, TagDef};
use skelmap::{Diagnostics, Error, Format, Limits, Problem};

/// The offset of a header field.
fn header_at(field: usize) -> u64 {
    field as u64
}

/// The offset of field `field` of the surface header at `surface`.
fn surface_at(surface: u64, field: usize) -> u64 {
    surface + field as u64
}

/// Offsets of the header fields the tests break.
const NUM_FRAMES: usize = offset_of!(Md3Header, num_frames);
const NUM_SURFACES: usize = offset_of!(Md3Header, num_surfaces);
const OFS_FRAMES: usize = offset_of!(Md3Header, ofs_frames);
const OFS_END: usize = offset_of!(Md3Header, ofs_end);
const S_NUM_FRAMES: usize = offset_of!(Md3Surface, num_frames);
const S_NUM_VERTS: usize = offset_of!(Md3Surface, num_verts);
const S_OFS_ST: usize = offset_of!(Md3Surface, ofs_st);
const S_OFS_TRIANGLES: usize = offset_of!(Md3Surface, ofs_triangles);
const S_OFS_XYZ: usize = offset_of!(Md3Surface, ofs_xyz_normals);
const S_OFS_END: usize = offset_of!(Md3Surface, ofs_end);

fn err(bytes: &[u8]) -> Error {
    err_with(bytes, &Limits::default())
}

fn err_with(bytes: &[u8], limits: &Limits) -> Error {
    crate::support::parse_error::<skelmap::md3::Md3>(bytes, limits)
}

/// The warnings a file that opens has.
fn warnings(bytes: &[u8]) -> Diagnostics {
    crate::support::parse_warnings::<skelmap::md3::Md3>(bytes)
}

/// `(format, what, offset, problem)` of an [`Error::Invalid`].
fn invalid(e: &Error) -> (Format, &'static str, u64, Problem) {
    crate::support::invalid_parts(e)
}

/// `(what, offset, need, have)` of an [`Error::Truncated`].
fn truncated(e: &Error) -> (&'static str, u64, u64, u64) {
    crate::support::truncated_parts(e, Format::Md3)
}

fn put_i32(b: &mut [u8], at: u64, v: i32) {
    let at = at as usize;
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

/// The frame summaries `surfaces` call for: each frame's box and a sphere around the origin.
fn frames_for(surfaces: &[SurfaceDef], names: &[&str]) -> Vec<FrameDef> {
    (0..names.len())
        .map(|f| {
            let points: Vec<[f32; 3]> = surfaces
                .iter()
                .flat_map(|s| s.frames[f].iter())
                .map(|(xyz, _)| xyz.map(|c| f32::from(c) / 64.0))
                .collect();
            let mut bounds = [[0.0f32; 3]; 2];
            if let Some(first) = points.first() {
                bounds = [*first, *first];
            }
            for p in &points {
                for k in 0..3 {
                    bounds[0][k] = bounds[0][k].min(p[k]);
                    bounds[1][k] = bounds[1][k].max(p[k]);
                }
            }
            let radius = points
                .iter()
                .map(|p| (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt())
                .fold(0.0, f32::max);
            FrameDef {
                name: names[f].as_bytes().to_vec(),
                bounds,
                local_origin: [0.0; 3],
                radius,
            }
        })
        .collect()
}

/// A ring of `n` vertices over `frames` frames, moving and turning frame by frame (negative
/// coordinates included), each normal a different latitude and longitude.
fn ring(name: &str, n: usize, frames: usize) -> SurfaceDef {
    let frame = |f: usize| {
        (0..n)
            .map(|i| {
                let a = i as f32 / n as f32 * core::f32::consts::TAU + f as f32 * 0.3;
                let r = 300.0 + 40.0 * f as f32;
                let xyz = [
                    (r * a.cos()) as i16,
                    (r * a.sin()) as i16,
                    (i as i16 * 7 - 90) * (f as i16 + 1),
                ];
                let normal =
                    ((i * 37 + f * 11) % 256) as u16 | (((i * 13 + f * 5) % 256) << 8) as u16;
                (xyz, normal)
            })
            .collect()
    };
    SurfaceDef {
        name: name.as_bytes().to_vec(),
        shaders: vec![format!("models/test/{name}").into_bytes()],
        triangles: (0..n as i32 - 2).map(|i| [0, i + 2, i + 1]).collect(),
        st: (0..n).map(|i| [i as f32 / n as f32, 0.5]).collect(),
        frames: (0..frames).map(frame).collect(),
    }
}

/// Two surfaces (37 and 5 vertices: whole SIMD steps and a tail), three frames, two tags.
pub fn animated() -> Builder {
    let surfaces = vec![ring("body", 37, 3), ring("cap", 5, 3)];
    let tag = |f: usize| {
        let (s, c) = (f as f32 * 0.5).sin_cos();
        vec![
            TagDef {
                name: b"tag_weapon".to_vec(),
                origin: [f as f32, 2.0, 3.0],
                axis: [[c, s, 0.0], [-s, c, 0.0], [0.0, 0.0, 1.0]],
            },
            TagDef::at("tag_head", [0.0, 0.0, 10.0 + f as f32]),
        ]
    };
    Builder {
        name: b"models/test/animated.md3".to_vec(),
        frames: frames_for(&surfaces, &["walk1", "walk2", "walk3"]),
        tags: (0..3).map(tag).collect(),
        surfaces,
        ..Builder::default()
    }
}

/// Tags and no surfaces: an attachment rig of two frames.
pub fn tags_only() -> Builder {
    Builder {
        frames: frames_for(&[], &["rig1", "rig2"]),
        tags: vec![
            vec![TagDef::at("tag_weapon", [1.0, 0.0, 0.0])],
            vec![TagDef::at("tag_weapon", [2.0, 0.0, 0.0])],
        ],
        ..Builder::default()
    }
}

/// A player part: one surface `surface` (a ring of 5 vertices) over `frames` frames, and
/// `tags` at (1, 2, 3 + frame), each with the identity axes.
pub fn part(surface: &str, frames: usize, tags: &[&str]) -> Builder {
    let surfaces = vec![ring(surface, 5, frames)];
    let names: Vec<String> = (0..frames).map(|f| format!("frame{f}")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    Builder {
        name: format!("models/players/test/{surface}.md3").into_bytes(),
        frames: frames_for(&surfaces, &names),
        tags: (0..frames)
            .map(|f| {
                tags.iter()
                    .map(|t| TagDef::at(t, [1.0, 2.0, 3.0 + f as f32]))
                    .collect()
            })
            .collect(),
        surfaces,
        ..Builder::default()
    }
}
