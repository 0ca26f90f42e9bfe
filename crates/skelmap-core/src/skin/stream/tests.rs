//! Every level of the stream kernel against the portable one, on records written by the
//! format writers in both byte orders: every influence count from 1 to 8, mixed counts, vertex
//! counts that are no multiple of a SIMD width, interleaved outputs and missing bones.

#![allow(clippy::unwrap_used)]

use glam::{Affine3A, Quat, Vec3};
use zerocopy::byteorder::{BigEndian, ByteOrder, LittleEndian};

use super::stream_records;
use crate::bonevert::Vertices;
use crate::pose::Palette;
use crate::skin::output::{SkinnedVertex, Split};
use crate::skin::{SimdLevel, SkinMatrices};
use crate::write::{Influence, put_vertices};

/// Bones in the test palettes.
const BONES: u32 = 40;

/// Where no kernel wrote.
const UNTOUCHED: [f32; 3] = [1234.5; 3];

/// A deterministic source of test values (xorshift).
struct Values(u64);

impl Values {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A float in `[-1, 1)`.
    fn float(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 23) as f32 - 1.0
    }

    fn vec3(&mut self) -> Vec3 {
        Vec3::new(self.float(), self.float(), self.float())
    }
}

/// `BONES` rotated, scaled and translated bones, laid out for the kernels.
fn matrices(values: &mut Values) -> SkinMatrices {
    let world = (0..BONES)
        .map(|_| {
            let axis = (values.vec3() + Vec3::new(0.0, 0.0, 2.0)).normalize();
            Affine3A::from_scale_rotation_translation(
                Vec3::splat(1.0) + 0.25 * values.vec3(),
                Quat::from_axis_angle(axis, 3.0 * values.float()),
                20.0 * values.vec3(),
            )
        })
        .collect();
    SkinMatrices::from_palette(&Palette { world })
}

/// One vertex per entry of `counts`, with that many influences of weights summing to 1.
fn mesh(counts: &[usize], values: &mut Values) -> Vec<Vec<Influence>> {
    counts
        .iter()
        .map(|&count| {
            let weights: Vec<f32> = (0..count).map(|_| 1.5 + values.float()).collect();
            let total: f32 = weights.iter().sum();
            weights
                .iter()
                .map(|w| {
                    let bone = (values.next() % u64::from(BONES)) as u32;
                    let origin = 50.0 * values.vec3();
                    let normal = values.vec3().normalize_or(Vec3::Z);
                    Influence::weighted(bone, w / total, origin.into(), normal.into())
                })
                .collect()
        })
        .collect()
}

/// The vertex records of `vertices` as a file of byte order `O` stores them.
fn records<O: ByteOrder>(vertices: &[Vec<Influence>]) -> Vec<u8> {
    let mut bytes = Vec::new();
    put_vertices::<O>(&mut bytes, vertices);
    bytes
}

/// The walk over `count` vertices that `records` wrote.
fn walk<O: ByteOrder>(bytes: &[u8], count: usize) -> Vertices<'_, O> {
    Vertices::new(bytes, 0, count as u32)
}

/// Positions and normals from a kernel, and its result.
type Skinned = (Vec<[f32; 3]>, Vec<[f32; 3]>, Result<(), u32>);

/// [`Skinned`] from `stream_records` at `level`, into outputs that start as [`UNTOUCHED`].
fn skin<O: ByteOrder>(
    bytes: &[u8],
    count: usize,
    matrices: &SkinMatrices,
    level: SimdLevel,
) -> Skinned {
    let (mut positions, mut normals) = (vec![UNTOUCHED; count], vec![UNTOUCHED; count]);
    let mut sink = Split {
        positions: &mut positions,
        normals: &mut normals,
    };
    let result = stream_records(walk::<O>(bytes, count), matrices.paired(), level, &mut sink);
    (positions, normals, result)
}

/// Whether `got` is `want` within the rounding of fused multiply-adds: `max(1e-5 · |want|,
/// 1e-4)`, the tolerance the kernels are held to against the scalar reference.
fn close(want: &[[f32; 3]], got: &[[f32; 3]]) -> bool {
    want.len() == got.len()
        && want
            .iter()
            .flatten()
            .zip(got.iter().flatten())
            .all(|(w, g)| (w - g).abs() <= (1e-5 * w.abs()).max(1e-4))
}

/// Every level on `vertices` in byte order `O` agrees with the portable kernel, into split
/// and into interleaved outputs.
fn check_levels<O: ByteOrder>(vertices: &[Vec<Influence>], matrices: &SkinMatrices, what: &str) {
    let bytes = records::<O>(vertices);
    let n = vertices.len();
    let (want_p, want_n, result) = skin::<O>(&bytes, n, matrices, SimdLevel::Portable);
    assert_eq!(result, Ok(()), "{what}");
    assert!(!want_p.contains(&UNTOUCHED), "{what}: every vertex written");
    for level in SimdLevel::ALL {
        let (p, q, result) = skin::<O>(&bytes, n, matrices, level);
        assert_eq!(result, Ok(()), "{what} at {level}");
        assert!(close(&want_p, &p), "{what}: positions at {level}");
        assert!(close(&want_n, &q), "{what}: normals at {level}");
        let mut interleaved = vec![SkinnedVertex::default(); n];
        let mut sink = &mut interleaved[..];
        let result = stream_records(walk::<O>(&bytes, n), matrices.paired(), level, &mut sink);
        assert_eq!(result, Ok(()), "{what}: interleaved at {level}");
        for (i, v) in interleaved.iter().enumerate() {
            assert_eq!(
                (v.position, v.normal),
                (p[i], q[i]),
                "{what}: interleaved at {level}"
            );
        }
    }
}

#[test]
fn every_level_agrees_with_portable_for_each_influence_count_and_byte_order() {
    let mut values = Values(0x9e37_79b9_7f4a_7c15);
    let matrices = matrices(&mut values);
    for count in 1..=8 {
        // 37 vertices: no multiple of 2, 8 or 16.
        let vertices = mesh(&[count; 37], &mut values);
        check_levels::<BigEndian>(&vertices, &matrices, &format!("{count} influences, DPM"));
        check_levels::<LittleEndian>(&vertices, &matrices, &format!("{count} influences, SKM"));
    }
}

#[test]
fn every_level_agrees_with_portable_on_mixed_counts() {
    let mut values = Values(0x2545_f491_4f6c_dd1d);
    let matrices = matrices(&mut values);
    // Runs of one-influence vertices between vertices of every other count, odd and even.
    let pattern = [1, 1, 1, 2, 1, 3, 8, 1, 5, 1, 1, 7, 4, 6, 1, 1, 2, 2, 3];
    for n in [1, 2, 15, 16, 17, 101] {
        let counts: Vec<usize> = pattern.iter().copied().cycle().take(n).collect();
        let vertices = mesh(&counts, &mut values);
        check_levels::<BigEndian>(&vertices, &matrices, &format!("{n} mixed, DPM"));
        check_levels::<LittleEndian>(&vertices, &matrices, &format!("{n} mixed, SKM"));
    }
}

/// A mesh of `counts` whose vertex `at` has `BONES + 3` as record `slot`'s bone, and whose
/// last vertex refers to `BONES + 1`: every level reports `BONES + 3`, keeps the vertices
/// before `at` as the portable kernel wrote them, and writes none from `at` on.
fn check_missing<O: ByteOrder>(counts: &[usize], at: usize, slot: usize, values: &mut Values) {
    let matrices = matrices(values);
    let mut vertices = mesh(counts, values);
    vertices[at][slot].bone = BONES + 3;
    if let Some(last) = vertices.last_mut().filter(|_| at + 1 < counts.len()) {
        last[0].bone = BONES + 1;
    }
    let bytes = records::<O>(&vertices);
    let n = vertices.len();
    let what = format!(
        "bone missing at vertex {at}, record {slot} of {}",
        counts[at]
    );
    let (want_p, want_n, result) = skin::<O>(&bytes, n, &matrices, SimdLevel::Portable);
    assert_eq!(result, Err(BONES + 3), "{what}: portable");
    for level in SimdLevel::ALL {
        let (p, q, result) = skin::<O>(&bytes, n, &matrices, level);
        assert_eq!(result, Err(BONES + 3), "{what} at {level}");
        assert!(
            close(&want_p[..at], &p[..at]),
            "{what}: positions at {level}"
        );
        assert!(close(&want_n[..at], &q[..at]), "{what}: normals at {level}");
        assert!(
            p[at..].iter().chain(&q[at..]).all(|v| *v == UNTOUCHED),
            "{what}: nothing written from the missing bone on at {level}"
        );
    }
}

#[test]
fn every_level_reports_the_first_missing_bone_and_keeps_what_it_wrote() {
    let mut values = Values(0x1405_7b7e_f767_814f);
    for count in [1, 2, 3, 8] {
        let mut counts = vec![1, 2, 1, 1, 3];
        counts.extend([count; 4]);
        counts.extend([1, 4, 1]);
        for slot in [0, count - 1] {
            check_missing::<BigEndian>(&counts, 6, slot, &mut values);
            check_missing::<LittleEndian>(&counts, 6, slot, &mut values);
        }
    }
    // The first vertex, and the last.
    check_missing::<BigEndian>(&[1, 1, 2], 0, 0, &mut values);
    check_missing::<LittleEndian>(&[2, 1, 1], 2, 0, &mut values);
}
