//! Return to Castle Wolfenstein MDC (`IDPC`): one test per validation rule of `mdc`'s module
//! docs and per malformed pattern issue #54 names (fixtures from `mdc::Builder`, exact errors
//! and offsets), the `Model` API and tweening on MDC frames, tags, truncation sweeps, and the
//! corpus against its MANIFEST and assimp.

mod corpus;
mod model;
mod rules;
mod sweep;
mod write;

use core::mem::offset_of;

use skelmap::mdc::raw::{MdcHeader, MdcSurface};
use skelmap::mdc::write::{Builder, FrameDef, SurfaceDef, TagDef};
use skelmap::{Diagnostics, Error, Format, Limits, Problem};

/// Offsets of the header and surface-header fields the tests break.
const NUM_FRAMES: u64 = offset_of!(MdcHeader, num_frames) as u64;
const NUM_SURFACES: u64 = offset_of!(MdcHeader, num_surfaces) as u64;
const OFS_FRAMES: u64 = offset_of!(MdcHeader, ofs_frames) as u64;
const OFS_END: u64 = offset_of!(MdcHeader, ofs_end) as u64;
const S_NUM_VERTS: u64 = offset_of!(MdcSurface, num_verts) as u64;
const S_NUM_BASE_FRAMES: u64 = offset_of!(MdcSurface, num_base_frames) as u64;
const S_OFS_TRIANGLES: u64 = offset_of!(MdcSurface, ofs_triangles) as u64;
const S_OFS_ST: u64 = offset_of!(MdcSurface, ofs_st) as u64;
const S_OFS_COMPRESSED: u64 = offset_of!(MdcSurface, ofs_xyz_compressed) as u64;
const S_OFS_BASE_TABLE: u64 = offset_of!(MdcSurface, ofs_frame_base_frames) as u64;
const S_OFS_COMP_TABLE: u64 = offset_of!(MdcSurface, ofs_frame_comp_frames) as u64;
const S_OFS_END: u64 = offset_of!(MdcSurface, ofs_end) as u64;

fn err(bytes: &[u8]) -> Error {
    err_with(bytes, &Limits::default())
}

fn err_with(bytes: &[u8], limits: &Limits) -> Error {
    crate::support::parse_error::<skelmap::mdc::Mdc>(bytes, limits)
}

/// The warnings a file that opens has.
fn warnings(bytes: &[u8]) -> Diagnostics {
    crate::support::parse_warnings::<skelmap::mdc::Mdc>(bytes)
}

/// `(format, what, offset, problem)` of an [`Error::Invalid`].
fn invalid(e: &Error) -> (Format, &'static str, u64, Problem) {
    crate::support::invalid_parts(e)
}

/// `(what, offset, need, have)` of an [`Error::Truncated`].
fn truncated(e: &Error) -> (&'static str, u64, u64, u64) {
    crate::support::truncated_parts(e, Format::Mdc)
}

fn put_i32(b: &mut [u8], at: u64, v: i32) {
    let at = at as usize;
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

/// The little-endian `i32` at `at`.
fn get_i32(b: &[u8], at: u64) -> i32 {
    let at = at as usize;
    i32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

/// A ring of `n` vertices over `frames` frames as positions and unit normals: frame `f`
/// moves every vertex by `0.3 · f` units along a different direction a vertex (within the
/// compressed range), except every `rebase`-th frame, which jumps 40 units up (a new base
/// frame).
fn ring_frames(n: usize, frames: usize, rebase: usize) -> Vec<Vec<([f32; 3], [f32; 3])>> {
    (0..frames)
        .map(|f| {
            let lift = (f / rebase) as f32 * 40.0;
            (0..n)
                .map(|i| {
                    let a = i as f32 / n as f32 * core::f32::consts::TAU;
                    let d = 0.3 * (f % rebase) as f32;
                    let p = [
                        8.0 * a.cos() + d * a.sin(),
                        8.0 * a.sin() - d,
                        lift + i as f32 * 0.25 - 3.0 + d * 0.5,
                    ];
                    let (s, c) = (a + f as f32 * 0.2).sin_cos();
                    (p, [c * 0.6, s * 0.6, 0.8])
                })
                .collect()
        })
        .collect()
}

/// A surface named `name` of `n` vertices over `frames` frames, compressed as the engines
/// do (a new base frame every `rebase` frames).
fn ring(name: &str, n: usize, frames: usize, rebase: usize) -> SurfaceDef {
    let (mut s, _) = SurfaceDef::compress(&ring_frames(n, frames, rebase), 0.1);
    s.name = name.as_bytes().to_vec();
    s.shaders = vec![format!("models/test/{name}").into_bytes()];
    s.triangles = (0..n as i32 - 2).map(|i| [0, i + 2, i + 1]).collect();
    s.st = (0..n).map(|i| [i as f32 / n as f32, 0.5]).collect();
    s
}

/// Frame summaries that hold every vertex of `surfaces` (bounds from the decoded frames).
fn frames_for(n: &[(usize, usize)], frames: usize) -> Vec<FrameDef> {
    (0..frames)
        .map(|f| {
            let points: Vec<[f32; 3]> = n
                .iter()
                .flat_map(|&(n, rebase)| ring_frames(n, frames, rebase).swap_remove(f))
                .map(|(p, _)| p)
                .collect();
            let mut bounds = [[f32::MAX; 3], [f32::MIN; 3]];
            for p in &points {
                for k in 0..3 {
                    bounds[0][k] = bounds[0][k].min(p[k] - 0.1);
                    bounds[1][k] = bounds[1][k].max(p[k] + 0.1);
                }
            }
            let radius = points
                .iter()
                .map(|p| (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt() + 0.2)
                .fold(0.0, f32::max);
            FrameDef {
                name: format!("walk{}", f + 1).into_bytes(),
                bounds,
                local_origin: [0.0; 3],
                radius,
            }
        })
        .collect()
}

/// Two surfaces (37 and 5 vertices: whole SIMD steps and a tail) over six frames (base,
/// compressed, compressed, base, compressed, compressed), two tags turning.
pub fn animated() -> Builder {
    let frames = 6;
    let tag = |f: usize| {
        vec![
            TagDef {
                xyz: [f as i16 * 64, 128, 192],
                angles: [0, f as i16 * 1000, 0],
            },
            TagDef {
                xyz: [0, 0, 640 + f as i16 * 64],
                angles: [f as i16 * 500, 0, f as i16 * 250],
            },
        ]
    };
    Builder {
        name: b"models/test/animated.mdc".to_vec(),
        frames: frames_for(&[(37, 3), (5, 3)], frames),
        tag_names: vec![b"tag_weapon".to_vec(), b"tag_head".to_vec()],
        tags: (0..frames).map(tag).collect(),
        surfaces: vec![ring("body", 37, frames, 3), ring("cap", 5, frames, 3)],
        ..Builder::default()
    }
}

/// Tags and no surfaces: an attachment rig of two frames.
pub fn tags_only() -> Builder {
    Builder {
        frames: frames_for(&[], 2),
        tag_names: vec![b"tag_weapon".to_vec()],
        tags: vec![
            vec![TagDef {
                xyz: [64, 0, 0],
                angles: [0; 3],
            }],
            vec![TagDef {
                xyz: [128, 0, 0],
                angles: [0, 8175, 0],
            }],
        ],
        ..Builder::default()
    }
}
