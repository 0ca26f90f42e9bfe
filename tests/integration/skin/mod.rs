//! The skinning kernels (`skelmap::skin`): the stream and prepared kernels against the scalar
//! reference, the compact kernel (linear and dual quaternions), and large meshes split over
//! threads or streamed. This module holds the fixtures the kernel tests share: comparisons of
//! skinned streams, the tube's compact case, and DPMs of two or many bones.

mod bind;
mod compact;
mod compact_dqs;
mod kernels;
mod threads;

use skelmap::Parse;
use skelmap::dpm::{self, BoneDef, Dpm, FrameDef, Influence, MeshDef};
use skelmap::model::Pose;
use skelmap::pose::{self, Interpolation, LocalPose, Palette};
use skelmap::skin::{self, CompactMesh, SkinMatrices};
use skelmap::synth::{TubeParams, tube};
use skelmap::{Limits, Model, SkeletalMesh, Source};

use crate::support::{Streams, levels, zeros};

/// The diagonal of `points`' bounds.
fn size(points: &[[f32; 3]]) -> f32 {
    let mut lo = [f32::INFINITY; 3];
    let mut hi = [f32::NEG_INFINITY; 3];
    for p in points {
        for a in 0..3 {
            lo[a] = lo[a].min(p[a]);
            hi[a] = hi[a].max(p[a]);
        }
    }
    (0..3).map(|a| (hi[a] - lo[a]).powi(2)).sum::<f32>().sqrt()
}

fn distance(a: [f32; 3], b: [f32; 3]) -> f32 {
    (0..3).map(|i| (a[i] - b[i]).powi(2)).sum::<f32>().sqrt()
}

fn unit(n: [f32; 3]) -> [f32; 3] {
    let l = distance(n, [0.0; 3]);
    n.map(|v| v / l)
}

/// Worst position difference as a fraction of the exact mesh's size (at least 1: the random
/// models' meshes may be a single point), and worst difference of the unit normals (where the
/// exact normal is not degenerate; both zero where it is zero).
fn compare(exact: &Streams, got: &Streams) -> (f32, f32) {
    let size = size(&exact.0).max(1.0);
    let position = exact
        .0
        .iter()
        .zip(&got.0)
        .map(|(&a, &b)| distance(a, b) / size)
        .fold(0.0, f32::max);
    let normal = exact
        .1
        .iter()
        .zip(&got.1)
        .map(|(&a, &b)| {
            if a == [0.0; 3] {
                distance(b, [0.0; 3])
            } else if distance(a, [0.0; 3]) > 0.25 {
                distance(unit(a), unit(b))
            } else {
                0.0
            }
        })
        .fold(0.0, f32::max);
    (position, normal)
}

fn tube_dpm(params: &TubeParams) -> Vec<u8> {
    tube(params).write().unwrap()
}

/// The tube's compact mesh with the matrices and the scalar reference of one mid-animation
/// pose.
fn tube_case(bytes: &[u8]) -> (CompactMesh, SkinMatrices, Streams) {
    let m = Dpm::parse(bytes).unwrap();
    let mesh = m.mesh(0).unwrap();
    let (mut pose, mut reference, mut palette) =
        (LocalPose::default(), Palette::default(), Palette::default());
    pose::sample(&m, 0, 0, 0.0, Interpolation::Nlerp, &mut pose);
    reference.build(&m, &pose);
    let compact = CompactMesh::new(&mesh, &reference.world).unwrap();
    pose::sample(&m, 1, 2, 0.3, Interpolation::Nlerp, &mut pose);
    palette.build(&m, &pose);
    let mut matrices = SkinMatrices::default();
    compact.matrices(&palette, &mut matrices);
    let mut exact = zeros(mesh.num_vertices());
    skin::scalar(&mesh, &palette, &mut exact.0, &mut exact.1).unwrap();
    (compact, matrices, exact)
}

/// A DPM of two bones (the second turned by `angle` about z and moved in frame 0) and the
/// vertices given as `(bone, weight, origin in the bone's space)` influences.
fn two_bone_model(vertices: &[Vec<(u32, f32, [f32; 3])>]) -> Vec<u8> {
    let mut b = dpm::Builder::default();
    b.bones.push(BoneDef::new("root", -1));
    b.bones.push(BoneDef::new("arm", 0));
    let mut mesh = MeshDef::default();
    for v in vertices {
        mesh.vertices.push(
            v.iter()
                .map(|&(bone, w, at)| Influence::weighted(bone, w, at, [0.0, 0.0, 1.0]))
                .collect(),
        );
        mesh.texcoords.push([0.0, 0.0]);
    }
    mesh.triangles.push([0, 0, 0]);
    mesh.group_ids.push(0);
    b.meshes.push(mesh);
    let identity = [
        [1.0, 0.0, 0.0, 0.0],
        [0.0, 1.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0],
    ];
    let moved = [
        [1.0, 0.0, 0.0, 2.0],
        [0.0, 1.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0],
    ];
    let (s, c) = 0.7f32.sin_cos();
    let turned = [[c, -s, 0.0, 2.0], [s, c, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0]];
    b.frames.push(FrameDef::new("bind", vec![identity, moved]));
    b.frames.push(FrameDef::new("bent", vec![identity, turned]));
    b.write().unwrap()
}

fn skin_both(bytes: &[u8]) -> (CompactMesh, Streams, Vec<Streams>) {
    // Up to 300 bones (past the default limit of 256), for bones stored as `u16`.
    let limits = Limits {
        max_bones: 300,
        ..Limits::DEFAULT
    };
    let model = Model::from_source(Source::from_bytes(bytes), None, &limits).unwrap();
    let compact = model.compact().unwrap();
    let mut pose = Pose::default();
    model
        .pose(1, 1, 0.0, Interpolation::Nlerp, &mut pose)
        .unwrap();
    let n = model.mesh(0).unwrap().num_vertices();
    let mut exact = zeros(n);
    model.deform(0, &pose, &mut exact.0, &mut exact.1).unwrap();
    let mut matrices = SkinMatrices::default();
    compact.matrices(&pose, &mut matrices).unwrap();
    let got = levels()
        .into_iter()
        .map(|level| {
            let mut got = zeros(n);
            compact
                .skin(0, &matrices, level, &mut got.0, &mut got.1)
                .unwrap();
            got
        })
        .collect();
    (compact.mesh(0).unwrap().clone(), exact, got)
}

/// A vertex: its `(bone, weight)` influences and its point.
type Folding = (Vec<(u32, f32)>, [f32; 3]);

/// A DPM of `bones` bones (each parented to the one before), frame 0 all identity (the
/// reference pose) and frame 1 each bone turned and moved; every influence of a vertex names
/// the vertex's point, so every vertex folds.
fn many_bone_model(bones: u32, vertices: &[Folding]) -> Vec<u8> {
    let vertices: Vec<_> = vertices
        .iter()
        .map(|(influences, at)| {
            let total: f32 = influences.iter().map(|i| i.1).sum();
            influences
                .iter()
                .map(|&(bone, w)| (bone, w / total, *at))
                .collect()
        })
        .collect();
    many_bone_records(bones, &vertices)
}

/// [`many_bone_model`]'s skeleton and frames, with vertices given as `(bone, weight, origin
/// in the bone's space)` influences (bones taken modulo `bones`).
fn many_bone_records(bones: u32, vertices: &[Vec<(u32, f32, [f32; 3])>]) -> Vec<u8> {
    let mut b = dpm::Builder::default();
    for j in 0..bones {
        b.bones.push(BoneDef::new(format!("b{j}"), j as i32 - 1));
    }
    let mut mesh = MeshDef::default();
    for influences in vertices {
        mesh.vertices.push(
            influences
                .iter()
                .map(|&(bone, w, at)| Influence::weighted(bone % bones, w, at, [0.0, 0.6, 0.8]))
                .collect(),
        );
        mesh.texcoords.push([0.0, 0.0]);
    }
    mesh.triangles.push([0, 0, 0]);
    mesh.group_ids.push(0);
    b.meshes.push(mesh);
    let identity = [
        [1.0, 0.0, 0.0, 0.0],
        [0.0, 1.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0],
    ];
    b.frames
        .push(FrameDef::new("reference", vec![identity; bones as usize]));
    let turned = (0..bones)
        .map(|j| {
            let (s, c) = (0.05 * j as f32).sin_cos();
            [[c, -s, 0.0, 0.1], [s, c, 0.0, 0.0], [0.0, 0.0, 1.0, 0.02]]
        })
        .collect();
    b.frames.push(FrameDef::new("turned", turned));
    b.write().unwrap()
}
