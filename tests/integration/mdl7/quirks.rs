//! The decisions of `docs/formats/mdl7.md` § Quirks and decisions, each on a fixture: bone
//! frames against a reference written from the format's definition (row vectors, own motion
//! then the parent's), the bind pose, weights (normalised, missing, more than 8), bones a frame
//! lacks, vertex frames, submeshes by material and skins referring within their group.

use skelmap::Model;
use skelmap::core::mdl7::{self, Builder, Mdl7};
use skelmap::model::Pose;
use skelmap::pose::{BindPoseMesh, Interpolation};
use skelmap::skin::{SimdLevel, SkinMatrices, VertexOrder};
use skelmap::{Parse, WarningKind};

use crate::support::mdl7::{demo, morphing};

/// `p · M` for a row vector `p` and a row-major 4×4 `M`.
fn row_times(p: [f32; 3], m: &[f32; 16]) -> [f32; 3] {
    core::array::from_fn(|k| p[0] * m[k] + p[1] * m[4 + k] + p[2] * m[8 + k] + m[12 + k])
}

/// `A · B` of row-major 4×4 matrices.
fn times(a: &[f32; 16], b: &[f32; 16]) -> [f32; 16] {
    core::array::from_fn(|i| {
        let (r, c) = (i / 4, i % 4);
        (0..4).map(|k| a[4 * r + k] * b[4 * k + c]).sum()
    })
}

const IDENTITY: [f32; 16] = [
    1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0,
];

/// The skinned positions of frame `f` of `b` by the format's definition (see
/// [`skin_reference`]).
fn reference(b: &Builder, f: usize) -> Vec<[f32; 3]> {
    let stored: Vec<[f32; 3]> = b.groups[0].vertices.iter().map(|v| v.position).collect();
    skin_reference(b, &b.groups[0].frames[f].transforms, &stored)
}

/// The bind-space `positions` of group 0 of `b` skinned by `transforms` by the format's
/// definition: each bone's world motion `W(b) = M(b) · W(parent)` (the identity for a bone
/// the transforms lack), each vertex `Σ w · p · W(bone) / Σ w` over its deformer weights, or
/// wholly its `vertindex` bone, or where it is.
pub(super) fn skin_reference(
    b: &Builder,
    transforms: &[(u16, [f32; 16])],
    positions: &[[f32; 3]],
) -> Vec<[f32; 3]> {
    let mut world: Vec<[f32; 16]> = Vec::new();
    for (i, bone) in b.bones.iter().enumerate() {
        let own = transforms
            .iter()
            .find(|(k, _)| usize::from(*k) == i)
            .map_or(IDENTITY, |t| t.1);
        let w = if bone.parent == 0xFFFF {
            own
        } else {
            times(&own, &world[usize::from(bone.parent)])
        };
        world.push(w);
    }
    let g = &b.groups[0];
    (0..g.vertices.len())
        .map(|v| {
            let vertex = mdl7::VertexDef {
                position: positions[v],
                ..g.vertices[v]
            };
            let weights: Vec<(usize, f32)> = g
                .weights
                .iter()
                .flatten()
                .flat_map(|(bone, ws)| {
                    ws.iter()
                        .filter(|(i, _)| *i as usize == v)
                        .map(move |(_, w)| (*bone as usize, *w))
                })
                .collect();
            let sum: f32 = weights.iter().map(|w| w.1).sum();
            if sum > 0.0 {
                let mut p = [0.0f32; 3];
                for (bone, w) in weights {
                    let q = row_times(vertex.position, &world[bone]);
                    for k in 0..3 {
                        p[k] += w / sum * q[k];
                    }
                }
                p
            } else if usize::from(vertex.vertindex) < world.len() {
                row_times(vertex.position, &world[usize::from(vertex.vertindex)])
            } else {
                vertex.position
            }
        })
        .collect()
}

pub(super) fn distance(a: [f32; 3], b: [f32; 3]) -> f32 {
    (0..3).map(|k| (a[k] - b[k]).powi(2)).sum::<f32>().sqrt()
}

/// Frame `f` of `bytes` through `Model::deform`, the prepared and the compact kernels.
fn skinned(bytes: &[u8], f: Option<usize>) -> [Vec<[f32; 3]>; 3] {
    skinned_between(bytes, f.map(|f| (f, f, 0.0)))
}

/// Frames `a` and `b` of `bytes` tweened at `t` (the bind pose for `None`) through
/// `Model::deform`, the prepared and the compact kernels.
pub(super) fn skinned_between(
    bytes: &[u8],
    frames: Option<(usize, usize, f32)>,
) -> [Vec<[f32; 3]>; 3] {
    let model = Model::from_bytes(bytes).unwrap();
    let n = model.mesh(0).unwrap().num_vertices();
    let mut pose = Pose::default();
    match frames {
        Some((a, b, t)) => model
            .pose(a, b, t, Interpolation::Nlerp, &mut pose)
            .unwrap(),
        None => model.pose_bind(&mut pose),
    }
    let mut out = [vec![[0.0; 3]; n], vec![[0.0; 3]; n], vec![[0.0; 3]; n]];
    let mut normals = vec![[0.0; 3]; n];
    model.deform(0, &pose, &mut out[0], &mut normals).unwrap();
    let prepared = model.prepare().unwrap();
    prepared
        .skin(
            0,
            &pose,
            SimdLevel::detect(),
            VertexOrder::Original,
            &mut out[1],
            &mut normals,
        )
        .unwrap();
    let compact = model.compact().unwrap();
    let mut matrices = SkinMatrices::default();
    compact.matrices(&pose, &mut matrices).unwrap();
    compact
        .skin_pose(
            0,
            &pose,
            &matrices,
            SimdLevel::detect(),
            &mut out[2],
            &mut normals,
        )
        .unwrap();
    // In the layout's own order: the same bits where its order puts each vertex (a vertex a
    // frame replaces too).
    let (mut p, mut q) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
    let level = SimdLevel::detect();
    compact
        .skin_pose_prepared(0, &pose, &matrices, level, &mut p, &mut q)
        .unwrap();
    let order = compact.mesh(0).unwrap().prepared_order();
    let bits = |v: [f32; 3]| v.map(f32::to_bits);
    for (at, &v) in order.iter().enumerate() {
        let v = v as usize;
        assert_eq!(
            (bits(p[at]), bits(q[at])),
            (bits(out[2][v]), bits(normals[v]))
        );
    }
    out
}

/// The diagonal of the box around `points`.
fn size(points: &[[f32; 3]]) -> f32 {
    let lo = points.iter().fold([f32::INFINITY; 3], |a, p| {
        core::array::from_fn(|k| a[k].min(p[k]))
    });
    let hi = points.iter().fold([f32::NEG_INFINITY; 3], |a, p| {
        core::array::from_fn(|k| a[k].max(p[k]))
    });
    distance(lo, hi)
}

/// Every kernel's result within `fraction` of the size of `expected`.
pub(super) fn assert_kernels(
    kernels: &[Vec<[f32; 3]>; 3],
    expected: &[[f32; 3]],
    fraction: f32,
    what: &str,
) {
    let tolerance = fraction * size(expected);
    for (name, out) in ["deform", "prepared", "compact"].iter().zip(kernels) {
        assert_near(out, expected, tolerance, &format!("{what}, {name}"));
    }
}

fn assert_near(ours: &[[f32; 3]], expected: &[[f32; 3]], tolerance: f32, what: &str) {
    assert_eq!(ours.len(), expected.len(), "{what}");
    for (v, (a, b)) in ours.iter().zip(expected).enumerate() {
        assert!(
            distance(*a, *b) <= tolerance,
            "{what}: vertex {v} at {a:?}, expected {b:?}"
        );
    }
}

#[test]
fn bone_frames_compose_own_motion_then_the_parents() {
    let b = demo();
    let bytes = b.write();
    for f in 0..4 {
        let expected = reference(&b, f);
        assert_kernels(
            &skinned(&bytes, Some(f)),
            &expected,
            1e-5,
            &format!("frame {f}"),
        );
    }
    // Frame 3 moves the top ring (45° at each joint).
    let top = skinned(&bytes, Some(3))[0][9];
    assert!(
        distance(top, b.groups[0].vertices[9].position) > 0.5,
        "{top:?}"
    );
}

#[test]
fn the_bind_pose_gives_the_stored_vertices() {
    let b = demo();
    let stored: Vec<[f32; 3]> = b.groups[0].vertices.iter().map(|v| v.position).collect();
    let [deform, prepared, compact] = skinned(&b.write(), None);
    assert_near(&deform, &stored, 1e-6 * size(&stored), "deform");
    assert_kernels(&[deform, prepared, compact], &stored, 1e-5, "bind pose");
}

#[test]
fn weights_are_normalised_and_unweighted_vertices_follow_their_bone() {
    let mut b = demo();
    // The middle ring: a quarter each to bones 0 and 1 (sum 0.5).
    let ws = b.groups[0].weights.as_mut().unwrap();
    for (_, list) in ws.iter_mut().take(2) {
        for w in list.iter_mut().filter(|(v, _)| (4..8).contains(v)) {
            w.1 = 0.25;
        }
    }
    // Vertex 8 loses its weight: it follows its `vertindex`, bone 2.
    ws[2].1.retain(|(v, _)| *v != 8);
    let bytes = b.write();
    let expected = reference(&b, 3);
    assert_kernels(&skinned(&bytes, Some(3)), &expected, 1e-5, "frame 3");
    let model = Mdl7::parse(&bytes).unwrap();
    let mesh = model.bind_mesh();
    let v5 = mesh.bind_vertex(5).unwrap();
    assert_eq!(v5.influences[..3], [Some((0, 0.5)), Some((1, 0.5)), None]);
    let v8 = mesh.bind_vertex(8).unwrap();
    assert_eq!(v8.influences[..2], [Some((2, 1.0)), None]);
}

#[test]
fn a_vertex_keeps_its_eight_largest_weights() {
    let mut b = demo();
    b.bones = (0..10)
        .map(|i| mdl7::BoneDef {
            name: format!("b{i}").into_bytes(),
            parent: 0xFFFF,
            position: [0.0; 3],
        })
        .collect();
    for f in &mut b.groups[0].frames {
        f.transforms.clear();
    }
    // Vertex 0: weights 1..=10 (in tenths) to bones 0..=9; the two smallest go.
    b.groups[0].weights = Some(
        (0..10u32)
            .map(|bone| (bone, vec![(0, (bone + 1) as f32 / 10.0)]))
            .collect(),
    );
    let bytes = b.write();
    let model = Mdl7::parse(&bytes).unwrap();
    let v = model.bind_mesh().bind_vertex(0).unwrap();
    let mut bones: Vec<u16> = v.influences.iter().flatten().map(|i| i.0).collect();
    bones.sort_unstable();
    assert_eq!(bones, [2, 3, 4, 5, 6, 7, 8, 9]);
    let sum: f32 = v.influences.iter().flatten().map(|i| i.1).sum();
    assert!((sum - 1.0).abs() < 1e-6, "{sum}");
    // Vertex 1 has no weight and its `vertindex` is bone 0.
    assert_eq!(
        model.bind_mesh().bind_vertex(1).unwrap().influences[0],
        Some((0, 1.0))
    );
}

#[test]
fn a_bone_a_frame_lacks_keeps_its_bind_pose() {
    let mut b = demo();
    // Frame 2 without bone 1's motion: bone 2 still turns, about its own pivot.
    b.groups[0].frames[2]
        .transforms
        .retain(|(bone, _)| *bone != 1);
    let bytes = b.write();
    let expected = reference(&b, 2);
    assert_kernels(&skinned(&bytes, Some(2)), &expected, 1e-5, "frame 2");
    // The root ring does not move, the middle ring neither (its bones do not).
    assert_near(
        &skinned(&bytes, Some(2))[0][..8],
        &b.groups[0].vertices[..8]
            .iter()
            .map(|v| v.position)
            .collect::<Vec<_>>(),
        1e-6,
        "unmoved rings",
    );
}

#[test]
fn vertex_frames_replace_vertices_and_tween() {
    let b = morphing();
    let bytes = b.write();
    let model = Model::from_bytes(&bytes).unwrap();
    assert!(model.is_vertex_animated());
    assert_eq!(model.num_frames(), 3);
    let names: Vec<&[u8]> = model.frame_names().collect();
    assert_eq!(names, [&b"rest"[..], b"lift1", b"lift2"]);
    let mesh = model.mesh(0).unwrap();
    assert_eq!((mesh.num_vertices(), mesh.num_triangles()), (6, 2));
    assert_eq!(mesh.triangle(1), Some([3, 4, 5]));
    let mut pose = Pose::default();
    let (mut p, mut n) = (vec![[0.0; 3]; 6], vec![[0.0; 3]; 6]);
    let z = |p: &[[f32; 3]]| p.iter().map(|v| v[2]).collect::<Vec<_>>();
    // Halfway from the rest to frame 1: only vertex 2 rises, by half.
    model
        .pose(0, 1, 0.5, Interpolation::Nlerp, &mut pose)
        .unwrap();
    model.deform(0, &pose, &mut p, &mut n).unwrap();
    assert_eq!(z(&p), [0.0, 0.0, 0.5, 0.0, 0.0, 0.0]);
    // A quarter from frame 1 to frame 2: vertex 2 stays at 1, the others rise by a quarter.
    model
        .pose(1, 2, 0.25, Interpolation::Nlerp, &mut pose)
        .unwrap();
    model.deform(0, &pose, &mut p, &mut n).unwrap();
    assert_eq!(z(&p), [0.25, 0.25, 1.0, 0.0, 0.0, 0.0]);
    // The replaced vertices are moved as a whole, x and y included.
    assert_eq!(p[1], [1.0, 1.0, 0.25]);
    assert!(n.iter().all(|q| *q == [0.0, 0.0, 1.0]), "{n:?}");
    // Group 1 has no frames: its stored vertices in every frame.
    assert_eq!(p[3], [5.0, 0.0, 0.0]);
}

#[test]
fn a_boneless_model_without_frames_shows_its_stored_mesh() {
    let mut b = morphing();
    b.groups[0].frames.clear();
    let bytes = b.write();
    let model = Model::from_bytes(&bytes).unwrap();
    assert_eq!(model.num_frames(), 1);
    assert_eq!(model.frame_names().next(), Some(&b""[..]));
    let mut pose = Pose::default();
    model.pose_bind(&mut pose);
    let (mut p, mut n) = (vec![[0.0; 3]; 6], vec![[0.0; 3]; 6]);
    model.deform(0, &pose, &mut p, &mut n).unwrap();
    assert_eq!(p[5], [7.0, 0.0, 0.0]);
}

#[test]
fn submeshes_select_a_groups_triangles_by_material() {
    let mut b = demo();
    // Alternate the two skins, and leave triangle 15 without one.
    for (i, t) in b.groups[0].triangles.iter_mut().enumerate() {
        t.material = (i % 2) as u32;
    }
    b.groups[0].triangles[15].material = u32::MAX;
    let bytes = b.write();
    let model = Model::from_bytes(&bytes).unwrap();
    let mesh = model.mesh(0).unwrap();
    let parts: Vec<(Option<usize>, Vec<usize>)> = mesh
        .submeshes()
        .map(|s| (s.material(), s.triangle_indices().collect()))
        .collect();
    assert_eq!(
        parts,
        [
            (Some(0), vec![0, 2, 4, 6, 8, 10, 12, 14]),
            (Some(1), vec![1, 3, 5, 7, 9, 11, 13]),
            (None, vec![15]),
        ]
    );
    for s in mesh.submeshes() {
        assert_eq!(s.triangle_indices().len(), s.num_triangles());
    }
    // The demo's own materials are consecutive: one range each.
    let demo_bytes = demo().write();
    let model = Model::from_bytes(&demo_bytes).unwrap();
    let counts: Vec<usize> = model
        .mesh(0)
        .unwrap()
        .submeshes()
        .map(|s| s.num_triangles())
        .collect();
    assert_eq!(counts, [8, 8]);
    // 12-byte triangles have no material: the group's first skin draws them all.
    let small = Builder {
        sizes: mdl7::Sizes::SMALL,
        ..demo()
    };
    let small_bytes = small.write();
    let model = Model::from_bytes(&small_bytes).unwrap();
    let parts: Vec<_> = model
        .mesh(0)
        .unwrap()
        .submeshes()
        .map(|s| (s.material(), s.num_triangles()))
        .collect();
    assert_eq!(parts, [(Some(0), 16)]);
}

#[test]
fn a_skin_reference_names_a_skin_of_its_own_group() {
    let mut b = demo();
    let mut second = b.groups[0].clone();
    second.weights = None;
    second.frames.clear();
    second.skins[0] = mdl7::SkinDef {
        typ: 1,
        width: 1,
        height: 0,
        name: b"again".to_vec(),
        payload: Vec::new(),
    };
    b.groups.push(second);
    let bytes = b.write();
    let model = Mdl7::parse(&bytes).unwrap();
    assert_eq!(model.skins().len(), 4);
    // Group 1's skin 0 refers to its skin 1: the file's skin 3.
    assert_eq!(model.skins()[2].reference(), Some(3));
    let m = Model::from_bytes(&bytes).unwrap();
    let mesh = m.mesh(0).unwrap();
    assert_eq!((mesh.num_vertices(), mesh.num_triangles()), (24, 32));
    assert_eq!(mesh.triangle(16), Some([12, 13, 17]));
}

#[test]
fn frame_zero_is_a_pose_and_the_frames_name_the_clips() {
    let bytes = demo().write();
    let model = Model::from_bytes(&bytes).unwrap();
    assert!(model.diagnostics().is_empty());
    assert_eq!(model.num_bones(), 3);
    let clips = model.clips();
    assert_eq!(clips.len(), 1);
    assert_eq!((clips[0].name.as_str(), clips[0].count), ("bend", 4));
    // Frame 0 of the demo has no motion: it equals the bind pose; frame 1 does not.
    let [bind, ..] = skinned(&bytes, None);
    let [zero, ..] = skinned(&bytes, Some(0));
    let [one, ..] = skinned(&bytes, Some(1));
    assert_near(&zero, &bind, 1e-6, "frame 0");
    assert!(distance(one[11], bind[11]) > 0.1);
    assert_eq!(model.diagnostics().count(WarningKind::SpecLimit), 0);
}

#[test]
fn every_skin_kind_is_read_with_its_name_and_decoded() {
    let mut b = demo();
    let rgb888_mips = mdl7::SkinDef {
        typ: 0x0C,
        width: 8,
        height: 8,
        name: b"mipped".to_vec(),
        payload: vec![7; 3 * (64 + 16 + 4 + 1)],
    };
    let dds = mdl7::SkinDef {
        typ: 6,
        width: 12,
        height: 0,
        name: b"dds".to_vec(),
        payload: b"DDS 12 bytes".to_vec(),
    };
    // A material only: no texels, 17 floats.
    let material = mdl7::SkinDef {
        typ: 0x10,
        width: 0,
        height: 0,
        name: b"paint".to_vec(),
        payload: [0.5f32; 17].iter().flat_map(|v| v.to_le_bytes()).collect(),
    };
    b.groups[0].skins.extend([rgb888_mips, dds, material]);
    let bytes = b.write();
    let model = Mdl7::parse(&bytes).unwrap();
    let skins = model.skins();
    assert_eq!(skins.len(), 5);
    let names: Vec<&[u8]> = skins.iter().map(|s| s.name()).collect();
    assert_eq!(
        names,
        [&b"Skin1"[..], b"Skin2", b"mipped", b"dds", b"paint"]
    );
    assert_eq!(
        (skins[2].num_levels(), skins[2].level(3).unwrap().0),
        (4, 1)
    );
    assert_eq!(skins[3].dds(), Some(&b"DDS 12 bytes"[..]));
    assert_eq!(skins[4].material().map(|m| m.power.get()), Some(0.5));
    assert_eq!(skins[4].num_levels(), 0);
    let m = Model::from_bytes(&bytes).unwrap();
    // RGB565 red and the RGB888 grey decode to RGBA.
    let red = m.skins()[1]
        .decode_rgba(0, &skelmap::alias::skin::grey_palette())
        .unwrap();
    assert_eq!(red[..4], [255, 0, 0, 255]);
    let grey = m.skins()[2]
        .decode_rgba(0, &skelmap::alias::skin::grey_palette())
        .unwrap();
    assert_eq!((grey.len(), &grey[..4]), (256, &[7, 7, 7, 255][..]));
}
