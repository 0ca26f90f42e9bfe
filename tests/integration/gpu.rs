//! `gpu`: choosing and quantising influences (`gpu::Skin`), GPU buffers from an asset
//! (`gpu::Mesh::from_asset`), palettes and the shader reference, and their errors. The
//! buffers of models (`Model::gpu_mesh`) are tested in `model/gpu.rs`.

use skelmap::asset::{self, Influences, UNBOUND};
use skelmap::gpu::{self, Error, JointWidth, Joints, Precision, Skin, Weights};
use skelmap::model::Pose;
use skelmap::pose::Interpolation;
use skelmap::{Model, synth};

/// `n` vertices with 1 to 11 influences each on joints below `joints`, weights from a fixed
/// linear congruential sequence (some tiny, to be quantised to 0).
fn many(n: usize, joints: u16) -> Influences {
    let mut state = 12345u32;
    let mut next = || {
        state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        state >> 8
    };
    let mut out = Influences::default();
    for _ in 0..n {
        let k = 1 + next() as usize % 11;
        let list: Vec<(u16, f32)> = (0..k)
            .map(|_| {
                let joint = (next() % u32::from(joints)) as u16;
                let weight = if next() % 4 == 0 {
                    1e-6
                } else {
                    (next() % 1000) as f32 + 1.0
                };
                (joint, weight)
            })
            .collect();
        out.push(list.into_iter(), 0);
    }
    out
}

fn sums(skin: &Skin, n: usize) -> Vec<u32> {
    (0..n)
        .map(|v| {
            (0..4 * skin.num_sets())
                .map(|k| skin.influence(v, k).unwrap().1)
                .sum()
        })
        .collect()
}

#[test]
fn weights_sum_exactly_to_one_at_every_precision_and_set_count() {
    let influences = many(2000, 40);
    for (precision, one) in [(Precision::Unorm8, 255), (Precision::Unorm16, 65535)] {
        for sets in [1, 2, 3] {
            let skin = Skin::new(&influences, 2000, sets, precision, JointWidth::Auto, 40).unwrap();
            assert_eq!((skin.joints.len(), skin.weights.len()), (sets, sets));
            assert!(skin.joints.iter().all(|j| j.len() == 2000));
            assert!(
                sums(&skin, 2000).iter().all(|&s| s == one),
                "{precision:?} {sets}"
            );
            for v in 0..2000 {
                let list: Vec<(u16, u32)> = (0..4 * sets)
                    .map(|k| skin.influence(v, k).unwrap())
                    .collect();
                // Largest first; a slot of weight 0 names joint 0.
                assert!(list.windows(2).all(|p| p[0].1 >= p[1].1), "{list:?}");
                assert!(list.iter().all(|&(j, w)| w > 0 || j == 0), "{list:?}");
                // Joints with weight are distinct.
                let mut used: Vec<u16> = list.iter().filter(|x| x.1 > 0).map(|x| x.0).collect();
                used.sort_unstable();
                assert!(used.windows(2).all(|p| p[0] != p[1]), "{list:?}");
            }
        }
    }
}

#[test]
fn largest_remainder_decides_the_last_units() {
    let mut influences = Influences::default();
    // Thirds: 85 each at unorm8; 21845 each at unorm16.
    influences.push([(3, 1.0), (1, 1.0), (2, 1.0)].into_iter(), 0);
    // 0.5, 0.3, 0.1, 0.06, 0.04: the top four renormalised over 0.96.
    influences.push(
        [(0, 0.5), (1, 0.3), (2, 0.1), (3, 0.06), (4, 0.04)].into_iter(),
        0,
    );
    let skin = Skin::new(&influences, 2, 1, Precision::Unorm8, JointWidth::Auto, 9).unwrap();
    // Equal weights: sorted by joint.
    assert_eq!(skin.joints[0].get(0), Some([1, 2, 3, 0]));
    assert_eq!(skin.weights[0].get(0), Some([85, 85, 85, 0]));
    assert_eq!(skin.weights[0].get(1), Some([133, 80, 26, 16]));
    let skin = Skin::new(&influences, 2, 1, Precision::Unorm16, JointWidth::Auto, 9).unwrap();
    assert_eq!(skin.weights[0].get(0), Some([21845, 21845, 21845, 0]));
    assert_eq!(skin.weights[0].get(1).unwrap().iter().sum::<u32>(), 65535);
}

#[test]
fn unbound_and_empty_vertices_use_the_identity_entry() {
    let mut influences = Influences::default();
    influences.push([(UNBOUND, 1.0)].into_iter(), UNBOUND);
    influences.push([(2, 0.75), (UNBOUND, 0.25)].into_iter(), UNBOUND);
    // Vertex 2 has no influence list at all.
    let skin = Skin::new(&influences, 3, 1, Precision::Unorm8, JointWidth::Auto, 7).unwrap();
    assert_eq!(skin.joints[0].get(0), Some([7, 0, 0, 0]));
    assert_eq!(skin.weights[0].get(0), Some([255, 0, 0, 0]));
    assert_eq!(skin.joints[0].get(1), Some([2, 7, 0, 0]));
    assert_eq!(skin.weights[0].get(1), Some([191, 64, 0, 0]));
    assert_eq!(skin.joints[0].get(2), Some([7, 0, 0, 0]));
    assert_eq!(skin.joints[0].get(3), None);
}

#[test]
fn joint_width_follows_the_palette() {
    let influences = many(10, 200);
    let auto = |unbound| {
        Skin::new(
            &influences,
            10,
            1,
            Precision::Unorm8,
            JointWidth::Auto,
            unbound,
        )
        .unwrap()
    };
    assert!(matches!(auto(255).joints[0], Joints::U8(_)));
    assert!(matches!(auto(256).joints[0], Joints::U16(_)));
    let wide = Skin::new(&influences, 10, 1, Precision::Unorm8, JointWidth::U16, 5).unwrap();
    assert!(matches!(wide.joints[0], Joints::U16(_)));
    assert_eq!(wide.joints[0].as_bytes().len(), 10 * 8);
    assert!(matches!(wide.weights[0], Weights::Unorm8(_)));
    assert_eq!(wide.weights[0].as_bytes().len(), 10 * 4);
    assert_eq!(
        Skin::new(&influences, 10, 1, Precision::Unorm8, JointWidth::U8, 256),
        Err(Error::JointWidth {
            entries: 257,
            bits: 8
        })
    );
}

fn tube_asset() -> asset::Asset {
    let bytes = synth::tube(&Default::default()).write().unwrap();
    let model = Model::from_bytes(&bytes).unwrap();
    skelmap::model::convert::asset_of(&model).unwrap()
}

#[test]
fn from_asset_concatenates_meshes_into_draws() {
    let mut built = tube_asset();
    let copy = built.meshes[0].clone();
    built.meshes.push(copy);
    let mesh = gpu::Mesh::from_asset(&built, &gpu::Options::default()).unwrap();
    let (v, t) = (
        built.meshes[0].positions.len(),
        built.meshes[0].triangles.len(),
    );
    assert_eq!(mesh.positions.len(), 2 * v);
    assert_eq!((mesh.normals.len(), mesh.uvs.len()), (2 * v, 2 * v));
    assert_eq!(mesh.indices.len(), 6 * t);
    assert_eq!(mesh.draws.len(), 2);
    assert_eq!(
        (mesh.draws[1].first_index, mesh.draws[1].num_indices),
        (3 * t as u32, 3 * t as u32)
    );
    // The second copy's indices are offset by the first's vertices.
    assert_eq!(
        mesh.indices[3 * t],
        built.meshes[0].triangles[0][0] + v as u32
    );
    assert_eq!(mesh.sources[v + 3], [1, 3]);
    let joints = built.skeleton.as_ref().unwrap().joints.len();
    assert_eq!(mesh.inverse_binds.len(), joints + 1);
    assert_eq!(mesh.num_joints(), joints);
}

#[test]
fn from_asset_refuses_what_it_cannot_build() {
    let mut built = tube_asset();
    let bad = gpu::Options {
        influences: gpu::Influences::Within(f32::NAN),
        ..Default::default()
    };
    assert!(matches!(
        gpu::Mesh::from_asset(&built, &bad),
        Err(Error::Tolerance(t)) if t.is_nan()
    ));
    let joints = built.skeleton.as_ref().unwrap().joints.len();
    built.meshes[0].influences.weights[0].0 = 40;
    assert_eq!(
        gpu::Mesh::from_asset(&built, &gpu::Options::default()),
        Err(Error::Joint { joint: 40, joints })
    );
    built.skeleton = None;
    assert_eq!(
        gpu::Mesh::from_asset(&built, &gpu::Options::default()),
        Err(Error::NotSkeletal)
    );
}

#[test]
fn palettes_need_every_joint_and_refuse_scale_for_dual_quaternions() {
    let bytes = synth::tube(&Default::default()).write().unwrap();
    let model = Model::from_bytes(&bytes).unwrap();
    let mesh = model.gpu_mesh(&gpu::Options::default()).unwrap();
    let mut palette = Vec::new();
    assert_eq!(
        mesh.palette(&Pose::default(), &mut palette),
        Err(Error::PoseBones {
            found: 0,
            needed: 4
        })
    );
    let mut dq = Vec::new();
    assert_eq!(
        mesh.dual_quaternions(&Pose::default(), &mut dq),
        Err(Error::PoseBones {
            found: 0,
            needed: 4
        })
    );
    let mut pose = Pose::default();
    model
        .pose(5, 6, 0.25, Interpolation::Nlerp, &mut pose)
        .unwrap();
    mesh.palette(&pose, &mut palette).unwrap();
    mesh.dual_quaternions(&pose, &mut dq).unwrap();
    assert_eq!((palette.len(), dq.len()), (5, 5));
    // A rigid palette: dual-quaternion and matrix skinning agree on single-joint vertices.
    for v in 0..mesh.positions.len() {
        let (joint, weight) = mesh.skin.influence(v, 0).unwrap();
        if weight == 255 {
            let (p, _) = mesh.skin_vertex(v, &palette).unwrap();
            let q = mesh.skin_vertex_dq(v, &dq).unwrap();
            let d = (0..3).map(|k| (p[k] - q[k]).abs()).fold(0.0, f32::max);
            assert!(d < 1e-4, "vertex {v} joint {joint}: {p:?} {q:?}");
        }
    }
    // Out of range: no vertex, or a palette too short for its joints.
    assert_eq!(mesh.skin_vertex(mesh.positions.len(), &palette), None);
    assert_eq!(mesh.skin_vertex(0, &palette[..0]), None);
}

#[test]
fn within_takes_eight_only_where_four_moves_a_vertex_too_far() {
    // Vertices with 5 influences: the tube's 4 joints, which move apart, and the unbound
    // entry, which stays; keeping 4 drops joint 0's sixth.
    let mut built = tube_asset();
    let n = built.meshes[0].positions.len();
    let mut influences = Influences::default();
    for _ in 0..n {
        let list = [(UNBOUND, 5.0), (3, 4.0), (2, 3.0), (1, 2.0), (0, 1.0)];
        influences.push(list.into_iter(), 0);
    }
    built.meshes[0].influences = influences;
    let within = |t| {
        gpu::Mesh::from_asset(
            &built,
            &gpu::Options {
                influences: gpu::Influences::Within(t),
                ..Default::default()
            },
        )
        .unwrap()
        .skin
        .num_sets()
    };
    assert_eq!(within(0.0), 2);
    assert_eq!(within(10.0), 1);
}
