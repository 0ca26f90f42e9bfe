//! A reference written from DarkPlaces' formula, not from skelmap's kernels: a vertex on bone
//! `b` with origin `o` is at `W_k[b] · o` at pose `k`, where `W_k[b]` is the product of the
//! 3×4 pose matrices from the root down to `b` (`Mod_ZYMOTICMODEL_Load` builds the base
//! mesh with pose 0; `Mod_Skeletal_AnimateVertices` moves it by `W_k · W_0⁻¹`). Compared with
//! `Model::deform` and the compact kernel at every pose, and the scenes as clips.

use skelmap::Model;
use skelmap::model::Pose;
use skelmap::pose::Interpolation;
use skelmap::skin::{SimdLevel, SkinMatrices};
use skelmap::zym::Builder;

type M = [[f32; 4]; 3];

/// `a · b` for row-major 3×4 matrices with an implied `0 0 0 1` row, written out.
fn concat(a: &M, b: &M) -> M {
    let mut out = [[0.0f32; 4]; 3];
    for r in 0..3 {
        for c in 0..4 {
            out[r][c] = a[r][0] * b[0][c] + a[r][1] * b[1][c] + a[r][2] * b[2][c];
        }
        out[r][3] += a[r][3];
    }
    out
}

fn apply(m: &M, o: [f32; 3]) -> [f32; 3] {
    [0, 1, 2].map(|r| m[r][0] * o[0] + m[r][1] * o[1] + m[r][2] * o[2] + m[r][3])
}

/// A three-bone chain with turns about different axes at each pose, so that every bone's
/// world matrix differs from its parent's.
fn chain() -> Builder {
    let mut b = Builder::example();
    b.bones.push(skelmap::zym::BoneDef {
        name: "tag_hand".into(),
        parent: Some(1),
        flags: 0,
    });
    let turn_x = |a: f32, t: [f32; 3]| -> M {
        let (s, c) = a.sin_cos();
        [[1.0, 0.0, 0.0, t[0]], [0.0, c, -s, t[1]], [0.0, s, c, t[2]]]
    };
    b.poses = (0..4)
        .map(|k| {
            let k = k as f32;
            vec![
                skelmap::zym::write::rotation_z(0.3 * k, [1.0, -2.0, 0.5 * k]),
                turn_x(0.25 * k, [0.0, 0.0, 10.0]),
                skelmap::zym::write::rotation_z(-0.5 * k, [3.0, 0.0, 6.0]),
            ]
        })
        .collect();
    b.vertices.push(skelmap::zym::VertexDef {
        bone: 2,
        origin: [1.0, 2.0, 3.0],
        texcoord: [0.0, 0.0],
    });
    b.shaders[1].triangles.push([4, 5, 6]);
    b.scenes[1].length = 3;
    b
}

fn world(b: &Builder, pose: usize, bone: usize) -> M {
    let local = b.poses[pose][bone];
    match b.bones[bone].parent {
        Some(p) => concat(&world(b, pose, p as usize), &local),
        None => local,
    }
}

#[test]
fn deform_and_compact_match_darkplaces_formula_at_every_pose() {
    let b = chain();
    let bytes = b.write().unwrap();
    let model = Model::from_bytes(&bytes).unwrap();
    assert!(model.diagnostics().is_empty());
    let n = b.vertices.len();
    assert_eq!(model.num_frames(), 4);
    let compact = model.compact().unwrap();
    let mut matrices = SkinMatrices::default();
    let mut pose = Pose::default();
    for k in 0..4 {
        let want: Vec<[f32; 3]> = b
            .vertices
            .iter()
            .map(|v| apply(&world(&b, k, v.bone as usize), v.origin))
            .collect();
        model
            .pose(k, k, 0.0, Interpolation::Nlerp, &mut pose)
            .unwrap();
        let (mut p, mut q) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
        model.deform(0, &pose, &mut p, &mut q).unwrap();
        let (mut cp, mut cq) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
        compact.matrices(&pose, &mut matrices).unwrap();
        compact
            .skin(0, &matrices, SimdLevel::detect(), &mut cp, &mut cq)
            .unwrap();
        for v in 0..n {
            for (got, what) in [(p[v], "deform"), (cp[v], "compact")] {
                let d = (0..3)
                    .map(|c| (got[c] - want[v][c]).abs())
                    .fold(0.0, f32::max);
                // The compact kernel folds each vertex into bind space once: a few ulps more.
                let tolerance = 1e-4 + 2e-5 * want[v].iter().fold(0.0f32, |m, c| m.max(c.abs()));
                assert!(
                    d < tolerance,
                    "pose {k}, vertex {v}, {what}: {got:?} against {:?}",
                    want[v]
                );
            }
        }
    }
}

#[test]
fn scenes_are_the_clips_with_their_names_rates_ranges_and_loop_flags() {
    let bytes = chain().write().unwrap();
    let model = Model::from_bytes(&bytes).unwrap();
    assert_eq!(
        crate::support::clips(&model),
        [("idle", 0, 1, 10.0, true), ("bend", 1, 3, 5.0, false)]
    );
}

#[test]
fn triangles_texcoords_submeshes_and_attachments_as_darkplaces_reads_them() {
    let b = chain();
    let bytes = b.write().unwrap();
    let zym = <skelmap::zym::Zym as skelmap::Parse>::parse(&bytes).unwrap();
    // Stored clockwise: the writer reversed the builder's counter-clockwise triangle.
    assert_eq!(zym.stored_triangle(0), Some([2, 1, 0]));
    assert_eq!(zym.triangle(0), Some([0, 1, 2]));
    assert_eq!(zym.triangle(3), Some([4, 5, 6]));
    // Stored `t` is 1 − t as drawn.
    let at = zym.header().lump_texcoords.start.get() as usize + 8 * 2 + 4;
    let stored_t = f32::from_be_bytes(bytes[at..at + 4].try_into().unwrap());
    assert_eq!((stored_t, zym.texcoord(2)), (0.0, Some([0.0, 1.0])));
    let model = Model::from_bytes(&bytes).unwrap();
    let mesh = model.mesh(0).unwrap();
    let groups: Vec<_> = mesh
        .submeshes()
        .map(|s| {
            (
                s.name().to_vec(),
                s.material(),
                s.triangle_indices().collect::<Vec<_>>(),
            )
        })
        .collect();
    assert_eq!(
        groups,
        [
            (b"models/body".to_vec(), Some(0), vec![0]),
            (b"models/head".to_vec(), Some(1), vec![1, 2, 3]),
        ]
    );
    assert_eq!(model.num_attachments(), 3);
    assert_eq!(model.attachment_index(b"tag_hand"), Some(2));
}
