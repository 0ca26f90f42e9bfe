//! The bind-pose linear blend (`skin::bind_lbs`) of a mesh that gives its vertices as arrays
//! of four byte weights (`BindPoseMesh::four_influences`: IQM), at every level, against the
//! same mesh read one `BindVertex` at a time.

use skelmap::Parse;
use skelmap::glam::{Affine3A, Quat, Vec3};
use skelmap::iqm::{self, ArrayDef, Iqm, JointDef, MeshDef, Transform};
use skelmap::pose::{BindPoseMesh, BindVertex};
use skelmap::skin::{self, SkinError};

use crate::support::{Streams, levels, zeros};

/// A mesh that gives only its vertices one at a time: `bind_lbs`'s reference path.
struct OneAtATime<'a>(&'a Iqm<'a>);

impl BindPoseMesh for OneAtATime<'_> {
    fn num_vertices(&self) -> usize {
        self.0.num_vertices()
    }

    fn bind_vertex(&self, i: usize) -> Option<BindVertex> {
        self.0.bind_vertex(i)
    }
}

/// A number in `[0, 1)` from `seed` (a fixed hash: the fixtures are the same on every run).
fn hashed(seed: u64) -> f32 {
    let x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(29) ^ seed;
    (x.wrapping_mul(0xbf58_476d_1ce4_e5b9) >> 40) as f32 / (1u64 << 24) as f32
}

/// `bones` bone matrices that turn, scale and move (none of them an identity).
fn deltas(bones: usize) -> Vec<Affine3A> {
    (0..bones as u64)
        .map(|b| {
            let h = |k: u64| hashed(b * 16 + k) * 2.0 - 1.0;
            let axis = Vec3::new(h(0), h(1), h(2) + 1.5).normalize();
            Affine3A::from_scale_rotation_translation(
                Vec3::new(1.0 + 0.3 * h(3), 1.0 - 0.2 * h(4), 0.9 + 0.1 * h(5)),
                Quat::from_axis_angle(axis, 3.0 * h(6)),
                Vec3::new(h(7), 5.0 * h(8), 0.25 * h(9)),
            )
        })
        .collect()
}

/// An IQM of `vertices` vertices bound to `bones` joints: each vertex's four weights one of
/// the patterns real files have (one bone, two, three, four, all zero, the nonzero ones in
/// any slot), normals where asked for.
fn fixture(vertices: usize, bones: usize, normals: bool) -> iqm::Builder {
    let v = |i: usize, k: u64| hashed((i as u64) * 8 + k);
    let joints = (0..bones)
        .map(|b| JointDef {
            name: format!("joint{b}").into_bytes(),
            parent: b as i32 - 1,
            transform: Transform::IDENTITY,
        })
        .collect();
    let weights = (0..vertices)
        .map(|i| match i % 7 {
            0 => [255, 0, 0, 0],
            1 => [128, 127, 0, 0],
            2 => [0, 0, 0, 0],
            3 => [90, 0, 80, 85],
            4 => [0, 200, 0, 55],
            5 => [64, 64, 64, 63],
            _ => [(v(i, 7) * 255.0) as u8, 3, 0, 1],
        })
        .collect();
    let bone = |i: usize, k: u64| (v(i, k) * bones as f32) as u8;
    iqm::Builder {
        positions: (0..vertices)
            .map(|i| [v(i, 0) * 4.0 - 2.0, v(i, 1) * 9.0, v(i, 2) - 0.5])
            .collect(),
        normals: if normals {
            (0..vertices)
                .map(|i| [v(i, 3) - 0.5, v(i, 4) - 0.5, -v(i, 5)])
                .collect()
        } else {
            Vec::new()
        },
        blend_indexes: (0..vertices)
            .map(|i| [bone(i, 10), bone(i, 11), bone(i, 12), bone(i, 13)])
            .collect(),
        blend_weights: weights,
        triangles: vec![[0, 0, 0]],
        meshes: vec![MeshDef {
            num_vertexes: vertices as u32,
            num_triangles: 1,
            ..MeshDef::default()
        }],
        joints,
        ..iqm::Builder::default()
    }
}

fn bits(v: &[[f32; 3]]) -> Vec<[u32; 3]> {
    v.iter().map(|p| p.map(f32::to_bits)).collect()
}

#[test]
fn four_byte_influences_blend_as_one_vertex_at_a_time_at_every_level() {
    // Vertex counts around the blocks of sixteen, palettes of each look-up width (16, 32 and
    // 64 and 128 bones) and past the widest (the plain loop then reads the arrays).
    for vertices in [1, 15, 16, 17, 40, 168] {
        for bones in [1, 6, 16, 17, 32, 33, 64, 65, 80, 128, 129, 256, 300] {
            for with_normals in [true, false] {
                let bytes = fixture(vertices, bones, with_normals).write().unwrap();
                let mesh = Iqm::parse(&bytes).unwrap();
                let view = &mesh;
                let arrays = view.four_influences().expect("byte weights");
                assert_eq!(arrays.normals.is_some(), with_normals);
                let deltas = deltas(bones);
                let case = format!("{vertices} vertices, {bones} bones, normals {with_normals}");
                let (mut p, mut n): Streams = zeros(vertices);
                skin::bind_lbs(&OneAtATime(&mesh), &deltas, &mut p, &mut n).unwrap();
                assert!(
                    p.iter().flatten().all(|c| c.is_finite()),
                    "{case}: reference"
                );
                for level in levels() {
                    let (mut q, mut m): Streams = zeros(vertices);
                    skin::bind_lbs_with_level(&&mesh, &deltas, level, &mut q, &mut m).unwrap();
                    assert_eq!(bits(&q), bits(&p), "{case}, {level:?}: positions");
                    assert_eq!(bits(&m), bits(&n), "{case}, {level:?}: normals");
                }
                let mut only = vec![[0.0; 3]; vertices];
                skin::bind_positions(&&mesh, &deltas, &mut only).unwrap();
                assert_eq!(bits(&only), bits(&p), "{case}: positions alone");
            }
        }
    }
}

#[test]
fn blocks_whose_weights_all_total_one_blend_as_one_vertex_at_a_time() {
    // Byte weights summing to 255 whose quotients add up to exactly 1 in every vertex of a
    // block (the kernel then keeps its sums as they are), and one vertex in the third block
    // whose do not (that block divides by its totals).
    let patterns = [
        [255, 0, 0, 0],
        [128, 127, 0, 0],
        [0, 200, 55, 0],
        [51, 51, 51, 102],
    ];
    let total = |w: [u8; 4]| {
        w.iter()
            .filter(|&&b| b != 0)
            .fold(0.0f32, |t, &b| t + f32::from(b) / 255.0)
    };
    assert!(patterns.iter().all(|&w| total(w) == 1.0));
    assert_ne!(total([64, 64, 64, 63]), 1.0);
    for bones in [6, 40, 100] {
        let mut b = fixture(64, bones, true);
        b.blend_weights = (0..64).map(|i| patterns[i % 4]).collect();
        b.blend_weights[37] = [64, 64, 64, 63];
        let bytes = b.write().unwrap();
        let mesh = Iqm::parse(&bytes).unwrap();
        let deltas = deltas(bones);
        let (mut p, mut n): Streams = zeros(64);
        skin::bind_lbs(&OneAtATime(&mesh), &deltas, &mut p, &mut n).unwrap();
        for level in levels() {
            let (mut q, mut m): Streams = zeros(64);
            skin::bind_lbs_with_level(&&mesh, &deltas, level, &mut q, &mut m).unwrap();
            assert_eq!(bits(&q), bits(&p), "{bones} bones, {level:?}: positions");
            assert_eq!(bits(&m), bits(&n), "{bones} bones, {level:?}: normals");
        }
    }
}

#[test]
fn a_bone_past_the_palette_is_named_with_the_vertices_before_it_written() {
    // 48 vertices on one joint more than the palette: the last joint named by vertex 36 with
    // weight (the third block of sixteen), by the weightless vertex 37 (bound wholly to its
    // first index), or only where vertex 38 has no weight (not an error). Palettes of 20 and
    // 100 bones: two look-up widths.
    for (have, vertex, slot, failing) in [20u8, 100].into_iter().flat_map(|have| {
        [(36, 1, true), (37, 0, true), (38, 1, false)].map(|(v, s, f)| (have, v, s, f))
    }) {
        let deltas = deltas(usize::from(have));
        let mut b = fixture(48, usize::from(have) + 1, true);
        for (i, k) in b.blend_indexes.iter_mut().enumerate() {
            *k = k.map(|j| j % have);
            if i == vertex {
                k[slot] = have;
            }
        }
        let bytes = b.write().unwrap();
        let mesh = Iqm::parse(&bytes).unwrap();
        let (mut p, mut n): Streams = zeros(48);
        let reference = skin::bind_lbs(&OneAtATime(&mesh), &deltas, &mut p, &mut n);
        let error = SkinError::Palette {
            bone: u32::from(have),
            have: usize::from(have),
        };
        assert_eq!(reference.err(), failing.then_some(error), "vertex {vertex}");
        let written = if failing { vertex } else { 48 };
        for level in levels() {
            let (mut q, mut m): Streams = zeros(48);
            let result = skin::bind_lbs_with_level(&&mesh, &deltas, level, &mut q, &mut m);
            assert_eq!(result.err(), failing.then_some(error), "{level:?}");
            assert_eq!(bits(&q[..written]), bits(&p[..written]), "{level:?}");
            assert_eq!(bits(&m[..written]), bits(&n[..written]), "{level:?}");
        }
    }
}

#[test]
fn a_bone_past_the_palette_in_the_last_partial_block_is_named_there() {
    // 44 vertices: two blocks of sixteen and a last block of twelve, blended as a padded
    // whole one. Vertex 41 names the bone past a palette of 20 (or 100) with weight; the 41
    // vertices before it are written, as the reference writes them.
    for have in [20u8, 100] {
        let deltas = deltas(usize::from(have));
        let mut b = fixture(44, usize::from(have) + 1, true);
        for (i, k) in b.blend_indexes.iter_mut().enumerate() {
            *k = k.map(|j| j % have);
            if i == 41 {
                k[1] = have;
            }
        }
        let bytes = b.write().unwrap();
        let mesh = Iqm::parse(&bytes).unwrap();
        let (mut p, mut n): Streams = zeros(44);
        let error = SkinError::Palette {
            bone: u32::from(have),
            have: usize::from(have),
        };
        let reference = skin::bind_lbs(&OneAtATime(&mesh), &deltas, &mut p, &mut n);
        assert_eq!(reference.err(), Some(error));
        for level in levels() {
            let (mut q, mut m): Streams = zeros(44);
            let result = skin::bind_lbs_with_level(&&mesh, &deltas, level, &mut q, &mut m);
            assert_eq!(result.err(), Some(error), "{level:?}");
            assert_eq!(bits(&q[..41]), bits(&p[..41]), "{level:?}");
            assert_eq!(bits(&m[..41]), bits(&n[..41]), "{level:?}");
        }
    }
}

#[test]
fn only_byte_weights_of_a_model_with_joints_are_read_as_arrays() {
    let bytes = fixture(20, 3, true).write().unwrap();
    assert!((&Iqm::parse(&bytes).unwrap()).four_influences().is_some());
    // Float weights, and byte weights without joints, are read one vertex at a time.
    let floats = iqm::Builder {
        blend_weights: Vec::new(),
        arrays: vec![ArrayDef {
            type_: iqm::raw::IQM_BLENDWEIGHTS,
            name: None,
            format: iqm::raw::IQM_FLOAT,
            size: 4,
            data: (0..20)
                .flat_map(|_| [1.0f32, 0.0, 0.0, 0.0])
                .flat_map(f32::to_le_bytes)
                .collect(),
        }],
        ..fixture(20, 3, true)
    };
    let unjointed = iqm::Builder {
        joints: Vec::new(),
        ..fixture(20, 3, true)
    };
    for b in [floats, unjointed] {
        let bytes = b.write().unwrap();
        assert!((&Iqm::parse(&bytes).unwrap()).four_influences().is_none());
    }
}
