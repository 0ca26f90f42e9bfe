//! `skelmap_author::optimize`: exact counts on the synth tube and on hand-built assets, and on
//! every corpus model the same skinned (or morphed) positions in every frame, as sets, with a
//! cache miss ratio no worse than before.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::HashMap;
use std::path::PathBuf;

use skelmap_author::optimize::{CACHE_SIZE, Options, Report, optimize};
use skelmap_core::asset::{
    self, Asset, Clip, ClipKeys, Influences, Joint, JointKey, Mesh, MorphTarget, Skeleton, UNBOUND,
    UpAxis,
};
use skelmap_core::glam::{Affine3A, Quat, Vec3};
use skelmap_core::{Model, synth};

// ---------------------------------------------------------------------------------------------
// Building assets

fn tube_asset() -> Asset {
    let bytes = synth::tube(&synth::TubeParams::default()).write().unwrap();
    Model::from_bytes(&bytes)
        .unwrap()
        .to_asset(&asset::Options::default())
        .unwrap()
}

/// A joint at `x` along `+X` from its parent, unrotated.
fn joint(name: &str, parent: Option<usize>, x: f32) -> Joint {
    Joint {
        name: name.into(),
        parent,
        rotation: Quat::IDENTITY,
        translation: Vec3::new(x, 0.0, 0.0),
        scale: Vec3::ONE,
        world: Affine3A::IDENTITY,
    }
}

/// Fills in every joint's `world` from the local transforms (parents first in the list).
fn with_worlds(mut joints: Vec<Joint>) -> Vec<Joint> {
    for i in 0..joints.len() {
        let local = Affine3A::from_scale_rotation_translation(
            joints[i].scale,
            joints[i].rotation,
            joints[i].translation,
        );
        joints[i].world = match joints[i].parent {
            Some(p) => joints[p].world * local,
            None => local,
        };
    }
    joints
}

fn influences(lists: &[&[(u16, f32)]]) -> Influences {
    let mut out = Influences {
        starts: vec![0],
        weights: Vec::new(),
    };
    for list in lists {
        out.weights.extend_from_slice(list);
        out.starts.push(out.weights.len() as u32);
    }
    out
}

/// A skeletal asset of one mesh, with one clip of `frames` frames in which joint `j` of frame
/// `f` turns by `0.1 · (j + 1) · (f + 1)` radians about `Z`.
fn skeletal(joints: Vec<Joint>, mesh: Mesh, frames: usize) -> Asset {
    let joints = with_worlds(joints);
    let keys = (0..frames)
        .map(|f| {
            joints
                .iter()
                .enumerate()
                .map(|(j, joint)| JointKey {
                    rotation: Quat::from_rotation_z(0.1 * (j + 1) as f32 * (f + 1) as f32),
                    translation: joint.translation,
                    scale: joint.scale,
                })
                .collect()
        })
        .collect();
    Asset {
        format: "test",
        up: UpAxis::Z,
        front: [1.0, 0.0, 0.0],
        meshes: vec![mesh],
        materials: Vec::new(),
        images: Vec::new(),
        skeleton: Some(Skeleton {
            joints,
            attachments: Vec::new(),
        }),
        clips: vec![Clip {
            name: "turn".into(),
            first: 0,
            fps: 10.0,
            looped: true,
            keys: ClipKeys::Joints(keys),
        }],
        tags: Vec::new(),
        frame: None,
        at: None,
        given_pose: false,
        replaced_non_finite: 0,
        code_page: Default::default(),
    }
}

/// One triangle's three vertices, at distinct places, all bound to `bind`.
fn triangle_mesh(bind: &[(u16, f32)]) -> Mesh {
    Mesh {
        name: "tri".into(),
        positions: vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
        normals: vec![[0.0, 0.0, 1.0]; 3],
        triangles: vec![[0, 1, 2]],
        influences: influences(&[bind, bind, bind]),
        ..Mesh::default()
    }
}

fn names(asset: &Asset) -> Vec<&str> {
    let skeleton = asset.skeleton.as_ref().unwrap();
    skeleton.joints.iter().map(|j| j.name.as_str()).collect()
}

fn parents(asset: &Asset) -> Vec<Option<usize>> {
    let skeleton = asset.skeleton.as_ref().unwrap();
    skeleton.joints.iter().map(|j| j.parent).collect()
}

fn joint_keys(asset: &Asset) -> &Vec<Vec<JointKey>> {
    match &asset.clips[0].keys {
        ClipKeys::Joints(frames) => frames,
        ClipKeys::Morph(_) => panic!("a skeletal clip"),
    }
}

// ---------------------------------------------------------------------------------------------
// Skinning and comparing

/// Where every vertex of every mesh is in one frame.
type Frame = Vec<Vec<[f32; 3]>>;

/// Every frame of `asset`: the meshes as they are (the bind), then every skeletal clip frame
/// skinned by linear blending, and every morph target added to the meshes.
fn frames(asset: &Asset) -> Vec<Frame> {
    let mut out = vec![asset.meshes.iter().map(|m| m.positions.clone()).collect()];
    if let Some(skeleton) = &asset.skeleton {
        for clip in &asset.clips {
            if let ClipKeys::Joints(keys) = &clip.keys {
                for frame in keys {
                    out.push(skin(asset, skeleton, frame));
                }
            }
        }
    }
    let targets = asset.meshes.iter().map(|m| m.targets.len()).max();
    for k in 0..targets.unwrap_or(0) {
        out.push(
            asset
                .meshes
                .iter()
                .map(|m| match m.targets.get(k) {
                    Some(t) => m
                        .positions
                        .iter()
                        .zip(&t.positions)
                        .map(|(p, d)| [p[0] + d[0], p[1] + d[1], p[2] + d[2]])
                        .collect(),
                    None => m.positions.clone(),
                })
                .collect(),
        );
    }
    out
}

/// Linear blend skinning: `v' = Σ w · world_j · inverse(joint.world) · v`, with `world_j`
/// built from the frame's keys down the hierarchy; an unbound influence leaves `v` as it is.
fn skin(asset: &Asset, skeleton: &Skeleton, keys: &[JointKey]) -> Frame {
    let n = skeleton.joints.len();
    let mut world: Vec<Option<Affine3A>> = vec![None; n];
    fn solve(
        j: usize,
        skeleton: &Skeleton,
        keys: &[JointKey],
        world: &mut Vec<Option<Affine3A>>,
    ) -> Affine3A {
        if let Some(w) = world[j] {
            return w;
        }
        let joint = &skeleton.joints[j];
        let key = keys[j];
        let local =
            Affine3A::from_scale_rotation_translation(key.scale, key.rotation, key.translation);
        let w = match joint.parent {
            Some(p) => solve(p, skeleton, keys, world) * local,
            None => local,
        };
        world[j] = Some(w);
        w
    }
    assert_eq!(keys.len(), n, "one key per joint");
    let palette: Vec<Affine3A> = (0..n)
        .map(|j| solve(j, skeleton, keys, &mut world) * skeleton.joints[j].world.inverse())
        .collect();
    asset
        .meshes
        .iter()
        .map(|m| {
            (0..m.positions.len())
                .map(|v| {
                    let p = Vec3::from(m.positions[v]);
                    if m.influences.is_empty() {
                        return p.into();
                    }
                    let mut out = Vec3::ZERO;
                    for &(j, w) in m.influences.of(v) {
                        out += w * if j == UNBOUND {
                            p
                        } else {
                            palette[usize::from(j)].transform_point3(p)
                        };
                    }
                    out.into()
                })
                .collect()
        })
        .collect()
}

/// The bits of a vertex's position, normal and texture coordinate.
type Corner = [u32; 8];

fn corner(m: &Mesh, v: usize) -> Corner {
    let p = m.positions[v];
    let n = m.normals.get(v).copied().unwrap_or_default();
    let t = m.uvs.as_ref().map_or([0.0; 2], |u| u[v]);
    [p[0], p[1], p[2], n[0], n[1], n[2], t[0], t[1]].map(f32::to_bits)
}

/// The triangles as corner triples, each turned to start at its smallest corner, sorted.
fn triangle_set(m: &Mesh) -> Vec<[Corner; 3]> {
    let mut out: Vec<[Corner; 3]> = m
        .triangles
        .iter()
        .map(|t| {
            let c = t.map(|i| corner(m, i as usize));
            let k = (0..3).min_by_key(|&k| c[k]).unwrap();
            [c[k], c[(k + 1) % 3], c[(k + 2) % 3]]
        })
        .collect();
    out.sort_unstable();
    out
}

/// The length of the box around every vertex of every frame, at least 1e-3.
fn size(frames: &[Frame]) -> f32 {
    let mut lo = Vec3::splat(f32::INFINITY);
    let mut hi = Vec3::splat(f32::NEG_INFINITY);
    for p in frames.iter().flatten().flatten() {
        lo = lo.min(Vec3::from(*p));
        hi = hi.max(Vec3::from(*p));
    }
    (hi - lo).length().max(1e-3)
}

/// Asserts that `after` draws what `before` drew: the same triangles (as sets of corners),
/// and every optimised vertex at the place of a source vertex with the same corner bits in
/// every frame, within 1e-5 of the model's size. Returns that size.
fn assert_same_geometry(label: &str, before: &Asset, after: &Asset) -> f32 {
    assert_eq!(before.meshes.len(), after.meshes.len(), "{label}: meshes");
    let (fb, fa) = (frames(before), frames(after));
    assert_eq!(fb.len(), fa.len(), "{label}: frames");
    let tolerance = 1e-5 * size(&fb);
    for (m, (mb, ma)) in before.meshes.iter().zip(&after.meshes).enumerate() {
        assert_eq!(
            triangle_set(mb),
            triangle_set(ma),
            "{label}: mesh {m}'s triangles"
        );
        let mut sources: HashMap<Corner, Vec<usize>> = HashMap::new();
        let referenced: std::collections::HashSet<u32> =
            mb.triangles.iter().flatten().copied().collect();
        for v in 0..mb.positions.len() {
            if referenced.contains(&(v as u32)) {
                sources.entry(corner(mb, v)).or_default().push(v);
            }
        }
        // Merging needs every attribute equal, the corner only three of them.
        assert!(
            sources.len() <= ma.positions.len() && ma.positions.len() <= referenced.len(),
            "{label}: mesh {m} has {} vertices for {} corners of {} referenced vertices",
            ma.positions.len(),
            sources.len(),
            referenced.len()
        );
        let mut candidates: Vec<Vec<usize>> = (0..ma.positions.len())
            .map(|v| {
                sources
                    .get(&corner(ma, v))
                    .cloned()
                    .unwrap_or_else(|| panic!("{label}: mesh {m} vertex {v} has no source"))
            })
            .collect();
        for (f, (xb, xa)) in fb.iter().zip(&fa).enumerate() {
            for (v, list) in candidates.iter_mut().enumerate() {
                let p = Vec3::from(xa[m][v]);
                list.retain(|&s| Vec3::from(xb[m][s]).distance(p) <= tolerance);
                assert!(
                    !list.is_empty(),
                    "{label}: mesh {m} vertex {v} moved in frame {f}: {:?}",
                    xa[m][v]
                );
            }
        }
    }
    tolerance
}

// ---------------------------------------------------------------------------------------------
// The synth tube

#[test]
fn tube_exact_counts() {
    let before = tube_asset();
    let mut after = before.clone();
    let report = optimize(&mut after, &Options::default());
    let (b, a) = (report.before, report.after);
    assert_eq!((b.bones, a.bones), (4, 4));
    assert_eq!((b.vertices, a.vertices), (136, 136));
    assert_eq!((b.triangles, a.triangles), (256, 256));
    assert_eq!((b.influences, a.influences), (304, 304));
    assert_eq!((b.max_influences, a.max_influences), (3, 3));
    assert!(a.acmr <= b.acmr, "{report}");
    assert!(report.dropped_bones.is_empty() && report.unknown_keep.is_empty());
    assert_eq!(
        (
            report.dropped_influences,
            report.unreferenced_vertices,
            report.merged_vertices
        ),
        (0, 0, 0)
    );
    assert_eq!(report.meshes.len(), 1);
    assert_eq!(report.meshes[0].before.bones, 4);
    assert_same_geometry("tube", &before, &after);
}

#[test]
fn tube_without_reorder_or_merge_keeps_the_order() {
    let before = tube_asset();
    let mut after = before.clone();
    let options = Options {
        merge: false,
        reorder: false,
        ..Options::default()
    };
    let report = optimize(&mut after, &options);
    assert_eq!(report.before, report.after);
    assert_eq!(before.meshes[0].triangles, after.meshes[0].triangles);
    assert_eq!(before.meshes[0].positions, after.meshes[0].positions);
}

#[test]
fn display_is_a_compact_table() {
    let mut built = tube_asset();
    let options = Options {
        keep: vec!["nope".into()],
        ..Options::default()
    };
    let text = optimize(&mut built, &options).to_string();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 9, "{text}");
    assert!(lines[0].contains("before") && lines[0].contains("after"));
    assert!(lines[1].starts_with("bones") && lines[1].ends_with('4'));
    assert!(lines[6].starts_with(&format!("ACMR ({CACHE_SIZE})")));
    assert_eq!(lines[8], "unknown keep: nope");
}

// ---------------------------------------------------------------------------------------------
// Bones

#[test]
fn unused_leaf_bone_dropped() {
    let joints = vec![
        joint("root", None, 0.0),
        joint("arm", Some(0), 1.0),
        joint("hand", Some(1), 1.0),
    ];
    let before = skeletal(joints, triangle_mesh(&[(1, 1.0)]), 3);
    let mut after = before.clone();
    let report = optimize(&mut after, &Options::default());
    assert_eq!(report.dropped_bones, ["hand"]);
    assert_eq!((report.before.bones, report.after.bones), (3, 2));
    assert_eq!(names(&after), ["root", "arm"]);
    assert_eq!(parents(&after), [None, Some(0)]);
    // Keys of the kept joints, in order; world transforms untouched.
    let (kb, ka) = (joint_keys(&before), joint_keys(&after));
    assert_eq!(ka.len(), 3);
    for (fb, fa) in kb.iter().zip(ka) {
        assert_eq!(fa.as_slice(), &fb[..2]);
    }
    let sb = before.skeleton.as_ref().unwrap();
    let sa = after.skeleton.as_ref().unwrap();
    assert_eq!(sa.joints[1].world, sb.joints[1].world);
    assert_eq!(after.meshes[0].influences.of(0), &[(1, 1.0)]);
    assert_same_geometry("leaf", &before, &after);
}

#[test]
fn unused_middle_bone_dropped_and_influences_renumbered() {
    let joints = vec![
        joint("root", None, 0.0),
        joint("spare", Some(0), 2.0),
        joint("arm", Some(0), 1.0),
        joint("hand", Some(2), 1.0),
    ];
    let before = skeletal(joints, triangle_mesh(&[(3, 0.5), (0, 0.5)]), 2);
    let mut after = before.clone();
    let report = optimize(&mut after, &Options::default());
    assert_eq!(report.dropped_bones, ["spare"]);
    assert_eq!(names(&after), ["root", "arm", "hand"]);
    assert_eq!(parents(&after), [None, Some(0), Some(1)]);
    assert_eq!(after.meshes[0].influences.of(2), &[(2, 0.5), (0, 0.5)]);
    for (fb, fa) in joint_keys(&before).iter().zip(joint_keys(&after)) {
        assert_eq!(fa.as_slice(), &[fb[0], fb[2], fb[3]]);
    }
    assert_same_geometry("middle", &before, &after);
}

#[test]
fn unused_bone_kept_by_keep() {
    let joints = vec![
        joint("root", None, 0.0),
        joint("arm", Some(0), 1.0),
        joint("grip", Some(1), 1.0),
        joint("Grip2", Some(1), 1.0),
        joint("TAG_Flash", Some(1), 1.0),
    ];
    let before = skeletal(joints, triangle_mesh(&[(1, 1.0)]), 2);
    let mut after = before.clone();
    let options = Options {
        keep: vec!["grip".into(), "grip2".into(), "absent".into()],
        ..Options::default()
    };
    let report = optimize(&mut after, &options);
    // Exact, case-sensitive names: `Grip2` is not `grip2`. A `tag_…` joint is kept whatever
    // its case, without asking.
    assert_eq!(names(&after), ["root", "arm", "grip", "TAG_Flash"]);
    assert_eq!(report.dropped_bones, ["Grip2"]);
    assert_eq!(report.unknown_keep, ["grip2", "absent"]);
    assert_same_geometry("keep", &before, &after);
}

#[test]
fn attachment_kept_and_renumbered() {
    let joints = vec![
        joint("root", None, 0.0),
        joint("spare", Some(0), 1.0),
        joint("arm", Some(0), 1.0),
        joint("muzzle", Some(2), 1.0),
    ];
    let mut before = skeletal(joints, triangle_mesh(&[(2, 1.0)]), 2);
    before.skeleton.as_mut().unwrap().attachments = vec![3];
    let mut after = before.clone();
    let report = optimize(&mut after, &Options::default());
    assert_eq!(report.dropped_bones, ["spare"]);
    assert_eq!(names(&after), ["root", "arm", "muzzle"]);
    assert_eq!(after.skeleton.as_ref().unwrap().attachments, [2]);
    assert_same_geometry("attachment", &before, &after);
}

#[test]
fn ancestor_of_kept_bone_kept() {
    // `tag` is kept by name, `mid` (unused) because it is `tag`'s parent, `root` as both's.
    let joints = vec![
        joint("root", None, 0.0),
        joint("mid", Some(0), 1.0),
        joint("tag", Some(1), 1.0),
        joint("leg", Some(0), 1.0),
        joint("foot", Some(3), 1.0),
    ];
    let before = skeletal(joints, triangle_mesh(&[(3, 1.0)]), 2);
    let mut after = before.clone();
    let options = Options {
        keep: vec!["tag".into()],
        ..Options::default()
    };
    let report = optimize(&mut after, &options);
    assert_eq!(names(&after), ["root", "mid", "tag", "leg"]);
    assert_eq!(parents(&after), [None, Some(0), Some(1), Some(0)]);
    assert_eq!(report.dropped_bones, ["foot"]);
    assert_eq!(after.meshes[0].influences.of(0), &[(3, 1.0)]);
    assert_same_geometry("ancestor", &before, &after);
}

#[test]
fn parent_listed_after_child_moves_before_it() {
    // A hand-built skeleton whose `arm` (1) names `root` (2) as parent.
    let mut joints = vec![
        joint("spare", None, 0.0),
        joint("arm", None, 1.0),
        joint("root", None, 0.0),
    ];
    joints[1].parent = Some(2);
    let mut before = skeletal(Vec::new(), triangle_mesh(&[(1, 1.0)]), 0);
    // Worlds by hand: `root` at the origin, `arm` one unit along X.
    joints[1].world = Affine3A::from_translation(Vec3::X);
    before.skeleton.as_mut().unwrap().joints = joints;
    let mut after = before.clone();
    let report = optimize(&mut after, &Options::default());
    assert_eq!(report.dropped_bones, ["spare"]);
    assert_eq!(names(&after), ["root", "arm"]);
    assert_eq!(parents(&after), [None, Some(0)]);
    assert_eq!(after.meshes[0].influences.of(0), &[(1, 1.0)]);
}

#[test]
fn no_vertex_uses_any_bone() {
    // Every vertex unbound: the whole skeleton goes, but for the attachment and its parent.
    let joints = vec![
        joint("root", None, 0.0),
        joint("a", Some(0), 1.0),
        joint("b", Some(0), 1.0),
    ];
    let mut before = skeletal(joints, triangle_mesh(&[(UNBOUND, 1.0)]), 1);
    before.skeleton.as_mut().unwrap().attachments = vec![2];
    let mut after = before.clone();
    let report = optimize(&mut after, &Options::default());
    assert_eq!(names(&after), ["root", "b"]);
    assert_eq!(after.skeleton.as_ref().unwrap().attachments, [1]);
    assert_eq!(report.dropped_bones, ["a"]);
    assert_eq!(after.meshes[0].influences.of(1), &[(UNBOUND, 1.0)]);
    assert_eq!(joint_keys(&after)[0].len(), 2);
}

// ---------------------------------------------------------------------------------------------
// Influences

fn four_vertex_mesh(lists: &[&[(u16, f32)]; 4]) -> Mesh {
    Mesh {
        name: "quad".into(),
        positions: vec![
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [1.0, 1.0, 0.0],
            [0.0, 1.0, 0.0],
        ],
        normals: vec![[0.0, 0.0, 1.0]; 4],
        triangles: vec![[0, 1, 2], [0, 2, 3]],
        influences: influences(lists),
        ..Mesh::default()
    }
}

#[test]
fn zero_weight_influences_dropped() {
    let joints = vec![joint("root", None, 0.0), joint("arm", Some(0), 1.0)];
    let mesh = four_vertex_mesh(&[
        &[(0, 1.0), (1, 0.0)],
        &[(1, 0.0), (0, 0.0), (1, 0.75), (0, 0.25)],
        &[(0, 0.5), (1, 0.5)],
        &[(0, 0.0), (1, 1.0)],
    ]);
    let before = skeletal(joints, mesh, 2);
    let mut after = before.clone();
    let options = Options {
        merge: false,
        reorder: false,
        ..Options::default()
    };
    let report = optimize(&mut after, &options);
    assert_eq!(report.dropped_influences, 4);
    assert_eq!((report.before.influences, report.after.influences), (10, 6));
    assert_eq!(
        (report.before.max_influences, report.after.max_influences),
        (4, 2)
    );
    let inf = &after.meshes[0].influences;
    assert_eq!(inf.starts, [0, 1, 3, 5, 6]);
    // Only zero weights went: the others keep their bits.
    assert_eq!(inf.of(1), &[(1, 0.75), (0, 0.25)]);
    assert_eq!(inf.of(3), &[(1, 1.0)]);
    assert_same_geometry("zero weights", &before, &after);
}

#[test]
fn min_weight_drops_and_renormalises() {
    let joints = vec![
        joint("root", None, 0.0),
        joint("arm", Some(0), 1.0),
        joint("hand", Some(1), 1.0),
    ];
    let mesh = four_vertex_mesh(&[
        &[(0, 0.6), (1, 0.3), (2, 0.1)],
        &[(0, 0.05), (1, 0.1)],
        &[(1, 1.0)],
        &[(1, 0.5), (0, 0.5)],
    ]);
    let mut built = skeletal(joints, mesh, 1);
    let options = Options {
        min_weight: 0.1,
        reorder: false,
        ..Options::default()
    };
    let report = optimize(&mut built, &options);
    let inf = &built.meshes[0].influences;
    // Vertex 0 loses `hand` (0.1, at the threshold) and is scaled back to a sum of 1.
    let v0 = inf.of(0);
    assert_eq!(v0.len(), 2);
    assert!((v0[0].1 - 0.6 / 0.9).abs() < 1e-6 && (v0[1].1 - 0.3 / 0.9).abs() < 1e-6);
    // Vertex 1 has nothing above it: its strongest influence stays, alone.
    assert_eq!(inf.of(1), &[(1, 1.0)]);
    assert_eq!(report.dropped_influences, 2);
    // Nothing uses `hand` any more.
    assert_eq!(report.dropped_bones, ["hand"]);
}

// ---------------------------------------------------------------------------------------------
// Vertices

#[test]
fn unreferenced_vertex_dropped() {
    let joints = vec![joint("root", None, 0.0), joint("arm", Some(0), 1.0)];
    let mut mesh = four_vertex_mesh(&[&[(0, 1.0)], &[(1, 1.0)], &[(0, 1.0)], &[(1, 1.0)]]);
    mesh.triangles = vec![[0, 1, 3]];
    mesh.uvs = Some(vec![[0.0, 0.0], [0.1, 0.1], [0.2, 0.2], [0.3, 0.3]]);
    mesh.colors = Some(vec![[0; 4], [1; 4], [2; 4], [3; 4]]);
    mesh.targets = vec![MorphTarget {
        name: "t".into(),
        positions: vec![[0.0; 3], [1.0; 3], [2.0; 3], [3.0; 3]],
        normals: vec![[0.0; 3]; 4],
    }];
    let before = skeletal(joints, mesh, 2);
    let mut after = before.clone();
    let options = Options {
        reorder: false,
        ..Options::default()
    };
    let report = optimize(&mut after, &options);
    assert_eq!(report.unreferenced_vertices, 1);
    assert_eq!((report.before.vertices, report.after.vertices), (4, 3));
    let m = &after.meshes[0];
    assert_eq!(m.triangles, [[0, 1, 2]]);
    assert_eq!(
        m.positions,
        [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    );
    assert_eq!(
        m.uvs.as_deref(),
        Some(&[[0.0, 0.0], [0.1, 0.1], [0.3, 0.3]][..])
    );
    assert_eq!(m.colors.as_deref(), Some(&[[0; 4], [1; 4], [3; 4]][..]));
    assert_eq!(m.targets[0].positions, [[0.0; 3], [1.0; 3], [3.0; 3]]);
    assert_eq!(m.influences.starts, [0, 1, 2, 3]);
    assert_eq!(m.influences.of(2), &[(1, 1.0)]);
    assert_same_geometry("unreferenced", &before, &after);
}

#[test]
fn duplicates_merged_with_exact_counts() {
    // Two triangles with their own corners: 6 vertices. Corners 3 and 4 repeat 0 and 2 bit
    // for bit; corner 5 repeats 1's position but not its morph displacement, and one more
    // vertex repeats 1 but for a -0.0 normal: neither of those two may merge.
    let joints = vec![joint("root", None, 0.0), joint("arm", Some(0), 1.0)];
    let p = [
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [1.0, 1.0, 0.0],
        [0.0, 0.0, 0.0],
        [1.0, 1.0, 0.0],
        [1.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
    ];
    let bind: &[(u16, f32)] = &[(0, 0.5), (1, 0.5)];
    let mut mesh = Mesh {
        name: "dups".into(),
        positions: p.to_vec(),
        normals: vec![[0.0, 0.0, 1.0]; 7],
        uvs: Some(vec![[0.5, 0.5]; 7]),
        triangles: vec![[0, 1, 2], [3, 4, 5], [6, 4, 3]],
        influences: influences(&[bind; 7]),
        targets: vec![MorphTarget {
            name: "t".into(),
            positions: vec![[0.0; 3]; 7],
            normals: vec![[0.0; 3]; 7],
        }],
        ..Mesh::default()
    };
    mesh.targets[0].positions[5] = [0.0, 0.0, 1.0];
    mesh.normals[6] = [-0.0, 0.0, 1.0];
    let before = skeletal(joints, mesh, 2);
    let mut after = before.clone();
    let report = optimize(&mut after, &Options::default());
    assert_eq!(report.merged_vertices, 2);
    assert_eq!((report.before.vertices, report.after.vertices), (7, 5));
    assert_eq!(
        (report.before.influences, report.after.influences),
        (14, 10)
    );
    assert_eq!(after.meshes[0].triangles.len(), 3);
    assert_same_geometry("duplicates", &before, &after);
    // Without merging, nothing merges.
    let mut unmerged = before.clone();
    let options = Options {
        merge: false,
        ..Options::default()
    };
    assert_eq!(optimize(&mut unmerged, &options).after.vertices, 7);
}

#[test]
fn inconsistent_mesh_left_alone() {
    let joints = vec![joint("root", None, 0.0), joint("arm", Some(0), 1.0)];
    let mut mesh = triangle_mesh(&[(1, 1.0), (0, 0.0)]);
    mesh.triangles.push([0, 1, 7]);
    let mut built = skeletal(joints, mesh.clone(), 1);
    let report = optimize(&mut built, &Options::default());
    assert_eq!(report.skipped_meshes, ["tri"]);
    assert!(report.meshes[0].skipped);
    // Its vertices are untouched; its joint numbers would follow a renumbering.
    assert_eq!(built.meshes[0].triangles, mesh.triangles);
    assert_eq!(built.meshes[0].influences, mesh.influences);
    assert_eq!(names(&built), ["root", "arm"]);
}

#[test]
fn asset_without_skinned_mesh_keeps_every_bone() {
    // An animation-only asset: a skeleton and clips, no mesh.
    let joints = vec![joint("root", None, 0.0), joint("arm", Some(0), 1.0)];
    let mut built = skeletal(joints, Mesh::default(), 2);
    built.meshes.clear();
    let report = optimize(&mut built, &Options::default());
    assert_eq!((report.before.bones, report.after.bones), (2, 2));
    assert!(report.dropped_bones.is_empty());
    assert_eq!(joint_keys(&built)[1].len(), 2);
    // And an unskinned mesh beside a skeleton.
    let mut mesh = triangle_mesh(&[]);
    mesh.influences = Influences::default();
    let joints = vec![joint("root", None, 0.0), joint("arm", Some(0), 1.0)];
    let mut built = skeletal(joints, mesh, 1);
    assert_eq!(optimize(&mut built, &Options::default()).after.bones, 2);
}

#[test]
fn malformed_assets_do_not_panic() {
    let joints = vec![joint("a", None, 0.0), joint("b", Some(0), 1.0)];
    let base = skeletal(joints, triangle_mesh(&[(1, 1.0)]), 2);
    let mut cases: Vec<Asset> = Vec::new();
    // Arrays of another length than the positions.
    let mut x = base.clone();
    x.meshes[0].normals.pop();
    cases.push(x);
    let mut x = base.clone();
    x.meshes[0].uvs = Some(vec![[0.0; 2]; 5]);
    cases.push(x);
    // Influence offsets out of order, or past the weights.
    let mut x = base.clone();
    x.meshes[0].influences.starts = vec![0, 2, 1, 3];
    cases.push(x);
    let mut x = base.clone();
    x.meshes[0].influences.starts = vec![0, 1, 2, 9];
    cases.push(x);
    // A joint the skeleton lacks, a parent cycle, an attachment out of range, keys missing.
    let mut x = base.clone();
    x.meshes[0].influences.weights[0].0 = 40;
    let skeleton = x.skeleton.as_mut().unwrap();
    skeleton.joints[0].parent = Some(1);
    skeleton.attachments = vec![7];
    if let ClipKeys::Joints(frames) = &mut x.clips[0].keys {
        frames[0].clear();
    }
    cases.push(x);
    for (i, mut x) in cases.into_iter().enumerate() {
        let options = Options {
            keep: vec!["a".into()],
            min_weight: f32::NAN,
            ..Options::default()
        };
        let report = optimize(&mut x, &options);
        assert_eq!(report.after.triangles, 1, "case {i}");
        if i < 4 {
            assert_eq!(report.skipped_meshes, ["tri"], "case {i}");
        }
    }
}

#[test]
fn empty_asset() {
    let mut built = skeletal(Vec::new(), Mesh::default(), 0);
    built.meshes.clear();
    let report = optimize(&mut built, &Options::default());
    assert_eq!(report.before, report.after);
    assert_eq!(report.after.acmr, 0.0);
}

// ---------------------------------------------------------------------------------------------
// The corpus

fn skeletal_corpus() -> Vec<PathBuf> {
    let mut files = skelmap_testkit::corpus_files("dpm");
    files.extend(skelmap_testkit::corpus_files("ms3d"));
    files.extend(skelmap_testkit::corpus_next_files("iqm"));
    files.extend(skelmap_testkit::corpus_next_files("mdl7"));
    files
}

fn vertex_corpus() -> Vec<PathBuf> {
    let mut files = skelmap_testkit::corpus_files("mdl");
    files.extend(skelmap_testkit::corpus_files("hmp"));
    files.extend(skelmap_testkit::corpus_files("mdl_quake"));
    files
}

fn load(path: &PathBuf) -> (String, Asset) {
    let bytes = std::fs::read(path).unwrap();
    let model = Model::from_bytes(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let built = model
        .to_asset(&asset::Options::default())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    (name, built)
}

fn check_corpus_model(path: &PathBuf) -> Report {
    let (name, before) = load(path);
    let mut after = before.clone();
    let report = optimize(&mut after, &Options::default());
    assert!(report.skipped_meshes.is_empty(), "{name}: {report}");
    assert!(
        report.after.acmr <= report.before.acmr,
        "{name}: ACMR worse\n{report}"
    );
    for m in &report.meshes {
        assert!(
            m.after.acmr <= m.before.acmr,
            "{name}: mesh {} ACMR worse",
            m.name
        );
    }
    assert_eq!(report.before.triangles, report.after.triangles, "{name}");
    if before.meshes.iter().all(|m| m.influences.is_empty()) {
        assert!(report.dropped_bones.is_empty(), "{name}: no skinned mesh");
    }
    assert_same_geometry(&name, &before, &after);
    // Optimising again finds nothing more to drop or merge.
    let again = optimize(&mut after, &Options::default());
    assert_eq!(again.before.vertices, again.after.vertices, "{name}");
    assert_eq!(again.before.bones, again.after.bones, "{name}");
    report
}

#[test]
fn skeletal_corpus_same_in_every_frame() {
    let files = skeletal_corpus();
    for path in &files {
        check_corpus_model(path);
    }
    if skelmap_testkit::corpus_required() {
        assert_eq!(files.len(), 24);
    }
}

#[test]
fn animation_only_corpus_iqm_keeps_its_skeleton() {
    let Some(path) = skelmap_testkit::corpus_next_path("iqm/raylib_guyanim.iqm") else {
        return;
    };
    let (_, mut built) = load(&path);
    assert!(built.meshes.is_empty() && !built.clips.is_empty());
    let report = optimize(&mut built, &Options::default());
    assert_eq!((report.before.bones, report.after.bones), (14, 14));
}

/// Xonotic's raptor has no vertex on its tags (the engine finds the HUD, the viewport and the
/// gun mounts by name) and flags none as an attachment: a saver keeps them with `keep`.
#[test]
fn raptor_tags_kept_by_name() {
    let Some(path) = skelmap_testkit::corpus_path("dpm/xon_vehicles_raptor.dpm") else {
        return;
    };
    let (_, before) = load(&path);
    let tags = [
        "tag_hud",
        "tag_viewport",
        "gunmount_left",
        "gunmount_right",
        "bombmount_left",
        "bombmount_right",
        "engtrail_left",
        "engtrail_right",
        "engine_left",
        "engine_right",
    ];
    let mut after = before.clone();
    let options = Options {
        keep: tags.iter().map(|&t| t.to_string()).collect(),
        ..Options::default()
    };
    let report = optimize(&mut after, &options);
    assert_eq!((report.before.bones, report.after.bones), (18, 17));
    assert_eq!(report.dropped_bones, ["object01"]);
    let kept = names(&after);
    assert!(tags.iter().all(|t| kept.contains(t)));
    assert_same_geometry("raptor", &before, &after);
}

#[test]
fn vertex_animated_corpus_same_in_every_frame() {
    let files = vertex_corpus();
    for path in &files {
        let report = check_corpus_model(path);
        assert_eq!((report.before.bones, report.after.bones), (0, 0));
    }
    if skelmap_testkit::corpus_required() {
        assert_eq!(files.len(), 11);
    }
}

/// The table of the final report: `cargo test -p skelmap-author --test optimize corpus_table
/// -- --nocapture`.
#[test]
fn corpus_table() {
    let mut files = skeletal_corpus();
    files.extend(vertex_corpus());
    println!(
        "{:<44} {:>11} {:>13} {:>13} {:>15} {:>15} {:>6} {:>6} {:>6} {:>6} {:>6}",
        "model",
        "bones",
        "influences",
        "vertices",
        "ACMR",
        "ATVR",
        "meshes",
        "file 0",
        "zero",
        "unref",
        "merged"
    );
    for path in &files {
        let (name, mut built) = load(path);
        // Zero weights in the file (to_asset's `Influences::push` drops them already).
        let bytes = std::fs::read(path).unwrap();
        let model = Model::from_bytes(&bytes).unwrap();
        let mut zero = 0usize;
        for mesh in model.meshes() {
            mesh.for_each_influence(|_, _, w| zero += usize::from(w == 0.0));
        }
        let r = optimize(&mut built, &Options::default());
        let (b, a) = (r.before, r.after);
        println!(
            "{name:<44} {:>4} → {:<4} {:>5} → {:<5} {:>5} → {:<5} {:>6.3} → {:<6.3} {:>6.3} → {:<6.3} {:>6} {:>6} {:>6} {:>6} {:>6}",
            b.bones,
            a.bones,
            b.influences,
            a.influences,
            b.vertices,
            a.vertices,
            b.acmr,
            a.acmr,
            b.atvr,
            a.atvr,
            r.meshes.len(),
            zero,
            r.dropped_influences,
            r.unreferenced_vertices,
            r.merged_vertices
        );
        if !r.dropped_bones.is_empty() {
            println!("    dropped: {}", r.dropped_bones.join(" "));
        }
    }
}

/// A chain of twenty thousand joints each listed before its parent (a hand-built asset):
/// every parent is moved before its child, each joint walked once (not the chain above it
/// from every joint, nor a search of the chain at every step), and the mesh keeps its joint.
#[test]
fn a_long_chain_of_parents_listed_after_their_children_is_put_in_order() {
    const JOINTS: usize = 20_000;
    let joints: Vec<Joint> = (0..JOINTS)
        .map(|i| joint(&format!("j{i}"), (i + 1 < JOINTS).then_some(i + 1), 0.0))
        .collect();
    let mut asset = skeletal(joints, triangle_mesh(&[(0, 1.0)]), 1);
    optimize(&mut asset, &Options::default());
    let names = names(&asset);
    assert_eq!(names.len(), JOINTS);
    assert_eq!((names[0], names[JOINTS - 1]), ("j19999", "j0"));
    let parents = parents(&asset);
    assert_eq!(parents[0], None);
    assert!((1..JOINTS).all(|k| parents[k] == Some(k - 1)));
    assert_eq!(
        asset.meshes[0].influences.of(0),
        &[((JOINTS - 1) as u16, 1.0)]
    );
}
