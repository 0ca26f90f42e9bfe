//! The `Model` API on MD5: the fixture's bind pose, frames, clips, attachments and normals
//! against values worked out by hand (`super::MESH`), every kernel agreeing, an animation
//! opened alone, and layouts that decode the same (CRLF and tabs, comments everywhere).

use skelmap::glam::Vec3A;
use skelmap::md5::MeshFile;
use skelmap::model::Pose;
use skelmap::pose::Interpolation;
use skelmap::skin::{SkinMatrices, VertexOrder};
use skelmap::{Format, Model, Parse};

use super::{ANIM, BIND, FRAME_1, MESH, files, open_pair};

/// Every mesh's positions at frame `f` (the bind pose when the model has no frames), through
/// `Model::deform`, then through `prepare` and `compact`, which must agree.
fn positions(model: &Model<'_>, f: Option<usize>) -> Vec<[f32; 3]> {
    let mut pose = Pose::default();
    match f {
        Some(f) => model
            .pose(f, f, 0.0, Interpolation::Nlerp, &mut pose)
            .unwrap(),
        None => model.pose_bind(&mut pose),
    }
    let n = model.mesh(0).unwrap().num_vertices();
    let (mut p, mut q) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
    model.deform(0, &pose, &mut p, &mut q).unwrap();
    let prepared = model.prepare().unwrap();
    let (mut pp, mut pq) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
    prepared
        .skin(
            0,
            &pose,
            skelmap::skin::SimdLevel::detect(),
            VertexOrder::Original,
            &mut pp,
            &mut pq,
        )
        .unwrap();
    let compact = model.compact().unwrap();
    let mut matrices = SkinMatrices::default();
    let (mut cp, mut cq) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
    compact.matrices(&pose, &mut matrices).unwrap();
    compact
        .skin(
            0,
            &matrices,
            skelmap::skin::SimdLevel::detect(),
            &mut cp,
            &mut cq,
        )
        .unwrap();
    for v in 0..n {
        for other in [pp[v], cp[v]] {
            assert!(
                Vec3A::from(other).distance(Vec3A::from(p[v])) < 1e-5,
                "vertex {v}"
            );
        }
    }
    p
}

fn assert_close(got: &[[f32; 3]], want: &[[f32; 3]]) {
    assert_eq!(got.len(), want.len());
    for (v, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            Vec3A::from(*g).distance(Vec3A::from(*w)) < 1e-6,
            "vertex {v}: {g:?} against {w:?}"
        );
    }
}

#[test]
fn the_bind_pose_places_every_vertex_where_its_weights_say() {
    let file = MeshFile::parse(MESH.as_bytes()).unwrap();
    let mesh = file.mesh(0).unwrap();
    let stored: Vec<[f32; 3]> = (0..4).map(|v| mesh.position(v).unwrap()).collect();
    assert_close(&stored, &BIND);
    let model = Model::from_bytes(MESH.as_bytes()).unwrap();
    assert_eq!(
        (model.format(), model.num_bones(), model.num_frames()),
        (Format::Md5, 3, 1)
    );
    assert_close(&positions(&model, None), &BIND);
    // Without animations its one frame is the bind pose.
    assert_close(&positions(&model, Some(0)), &BIND);
    assert_eq!(model.frame_names().collect::<Vec<_>>(), [b"bind"]);
    assert!(model.clips().is_empty());
}

/// Both triangles of the fixture face `(−1, −1, 0)` (clockwise front faces, as Doom 3 winds
/// them), so every vertex's normal is `(−√½, −√½, 0)`, in the bind pose and in frame 1,
/// where the arm is unturned and the mesh moves.
#[test]
fn normals_are_derived_from_the_triangles() {
    let file = MeshFile::parse(MESH.as_bytes()).unwrap();
    let h = -core::f32::consts::FRAC_1_SQRT_2;
    for n in file.mesh(0).unwrap().normals() {
        assert_close(&[n.map(|c| c.get())], &[[h, h, 0.0]]);
    }
}

/// A grid of 7 × 7 points, one joint, each vertex one weight at its position, whose middle
/// column is a texture seam (each point there is two vertices, the second written far from
/// the first) and whose corner is three; two triangles have no area. Each vertex's normal is,
/// bit for bit, what the rule gives, worked out here by a search of all pairs: the unit
/// normals of the triangles at it added up, each vertex at a shared position taking the sum
/// of all of them (from zero, in vertex order), then normalised (`+Z` for a zero sum).
#[test]
fn vertices_at_one_position_share_their_normal() {
    const SIDE: usize = 7;
    let point = |x: usize, y: usize| {
        // Exact in binary, with a fold down the middle and negative heights.
        let h = (x * y % 5) as f32 * 0.25 - 0.5 - (x == SIDE / 2) as u8 as f32 * 0.75;
        [x as f32 * 0.5, y as f32 * 0.25, h]
    };
    // Grid vertices first (the seam's left copy among them), then the seam's right copies
    // and two more copies of corner (0, 0).
    let mut points: Vec<[f32; 3]> = (0..SIDE * SIDE)
        .map(|i| point(i % SIDE, i / SIDE))
        .collect();
    let seam: Vec<usize> = (0..SIDE).map(|y| points.len() + y).collect();
    points.extend((0..SIDE).map(|y| point(SIDE / 2, y)));
    let corner = [0, points.len(), points.len() + 1];
    points.extend([point(0, 0); 2]);
    let vertex = |x: usize, y: usize, right_of_seam: bool| match () {
        () if x == SIDE / 2 && right_of_seam => seam[y],
        () if (x, y) == (0, 0) => corner[y % 3],
        () => y * SIDE + x,
    };
    let mut tris = Vec::new();
    for y in 0..SIDE - 1 {
        for x in 0..SIDE - 1 {
            let right = x >= SIDE / 2;
            let [a, b, c, d] =
                [(x, y), (x + 1, y), (x + 1, y + 1), (x, y + 1)].map(|(x, y)| vertex(x, y, right));
            tris.extend([[a, b, c], [a, c, d]]);
        }
    }
    // The corner's other copies in triangles of their own, one of them without area.
    tris.extend([[corner[1], 1, SIDE], [corner[2], corner[2], 1]]);
    tris.push([0, 0, 0]);
    let mut text = String::from(
        "MD5Version 10\ncommandline \"\"\nnumJoints 1\nnumMeshes 1\n\
         joints {\n\"root\" -1 ( 0 0 0 ) ( 0 0 0 )\n}\nmesh {\nshader \"s\"\n",
    );
    text += &format!("numverts {}\n", points.len());
    for v in 0..points.len() {
        text += &format!("vert {v} ( 0 0 ) {v} 1\n");
    }
    text += &format!("numtris {}\n", tris.len());
    for (t, [a, b, c]) in tris.iter().enumerate() {
        text += &format!("tri {t} {a} {b} {c}\n");
    }
    text += &format!("numweights {}\n", points.len());
    for (w, [x, y, z]) in points.iter().enumerate() {
        text += &format!("weight {w} 0 1 ( {x} {y} {z} )\n");
    }
    text += "}\n";

    let file = MeshFile::parse(text.as_bytes()).unwrap();
    let mesh = file.mesh(0).unwrap();
    let stored: Vec<Vec3A> = mesh
        .positions()
        .iter()
        .map(|p| Vec3A::from(p.map(|c| c.get())))
        .collect();
    assert_eq!(
        stored,
        points.iter().map(|&p| Vec3A::from(p)).collect::<Vec<_>>()
    );
    // Each triangle's unit normal, its corners in the order the block keeps them (the file's
    // in reverse: counter-clockwise).
    let mut sums = vec![Vec3A::ZERO; points.len()];
    for &[c, b, a] in &tris {
        let (pa, pb, pc) = (stored[a], stored[b], stored[c]);
        if let Some(n) = (pb - pa).cross(pc - pa).try_normalize() {
            for v in [a, b, c] {
                sums[v] += n;
            }
        }
    }
    let bits = |p: Vec3A| p.to_array().map(f32::to_bits);
    let want: Vec<[u32; 3]> = (0..points.len())
        .map(|v| {
            let shared: Vec<usize> = (0..points.len())
                .filter(|&u| bits(stored[u]) == bits(stored[v]))
                .collect();
            let sum = if shared.len() > 1 {
                shared.iter().fold(Vec3A::ZERO, |t, &u| t + sums[u])
            } else {
                sums[v]
            };
            bits(sum.try_normalize().unwrap_or(Vec3A::Z))
        })
        .collect();
    let got: Vec<[u32; 3]> = mesh
        .normals()
        .iter()
        .map(|n| n.map(|c| c.get().to_bits()))
        .collect();
    assert_eq!(got, want);
    // The seam is smooth: both copies of each point there have one normal.
    for (y, &right) in seam.iter().enumerate() {
        assert_eq!(got[y * SIDE + SIDE / 2], got[right], "seam row {y}");
    }
    assert!(corner.iter().all(|&v| got[v] == got[0]));
}

#[test]
fn frames_pose_the_mesh_as_worked_out_by_hand() {
    let files = files(MESH, ANIM);
    let model = open_pair(&files, "m/fixture.md5mesh").unwrap();
    assert_eq!(model.num_frames(), 2);
    assert_close(&positions(&model, Some(0)), &BIND);
    assert_close(&positions(&model, Some(1)), &FRAME_1);
    let clips = model.clips();
    assert_eq!(clips.len(), 1);
    let c = &clips[0];
    assert_eq!(
        (c.name.as_str(), c.first, c.count, c.fps, c.looped),
        ("idle", 0, 2, 24.0, true)
    );
    // Halfway, the hand's translation is halfway: (1.5, 0, ·) along an arm turned 45°.
    let mut pose = Pose::default();
    model
        .pose(0, 1, 0.5, Interpolation::Nlerp, &mut pose)
        .unwrap();
    let (_, t) = pose.local().bones[2];
    assert!((t.x - 1.5).abs() < 1e-6 && t.y.abs() < 1e-6);
}

#[test]
fn every_joint_is_an_attachment() {
    let files = files(MESH, ANIM);
    let model = open_pair(&files, "m/fixture.md5mesh").unwrap();
    assert_eq!(model.num_attachments(), 3);
    let hand = model.attachment_index(b"hand").unwrap();
    let mut pose = Pose::default();
    model
        .pose(1, 1, 0.0, Interpolation::Nlerp, &mut pose)
        .unwrap();
    let at = model.attachment_transform(hand, &pose).unwrap();
    assert!(at.translation.distance(Vec3A::new(2.0, 0.0, 2.0)) < 1e-6);
}

/// The pair keeps a parent table (made by the first palette) that agrees with its bones, for
/// a mesh with its animation and for an animation alone, and a palette built over the pair is
/// the one built over its baked frames, bit for bit.
#[test]
fn the_parent_table_agrees_with_the_bones_and_the_palette() {
    use skelmap::pose::{self, BakedFrames, LocalPose, NO_PARENT, Palette, Skeleton};
    let files = files(MESH, ANIM);
    for path in ["m/fixture.md5mesh", "m/fixture-idle.md5anim"] {
        let model = open_pair(&files, path).unwrap();
        let pair = model.as_md5().unwrap();
        let table = pair.parent_table().unwrap();
        let parents: Vec<Option<usize>> = pair.skeleton_bones().map(|b| b.parent()).collect();
        let from_table: Vec<Option<usize>> = table
            .iter()
            .map(|&p| (p != NO_PARENT).then_some(usize::from(p)))
            .collect();
        assert_eq!((from_table, table.len()), (parents, 3), "{path}");
        let baked = BakedFrames::new(pair).unwrap();
        let mut local = LocalPose::default();
        pose::sample(pair, 0, 1, 0.5, Interpolation::Nlerp, &mut local);
        let (mut over_pair, mut over_baked) = (Palette::default(), Palette::default());
        over_pair.build(pair, &local);
        over_baked.build(&baked, &local);
        let bits = |p: &Palette| -> Vec<u32> {
            p.world
                .iter()
                .flat_map(|m| m.to_cols_array())
                .map(f32::to_bits)
                .collect()
        };
        assert_eq!(bits(&over_pair), bits(&over_baked), "{path}");
    }
}

/// An `.md5anim` opened alone is its skeleton (the base frame as bind pose) and its frames.
#[test]
fn an_animation_alone_is_a_skeleton_with_frames() {
    let files = files(MESH, ANIM);
    let model = open_pair(&files, "m/fixture-idle.md5anim").unwrap();
    assert_eq!(
        (model.num_bones(), model.num_meshes(), model.num_frames()),
        (3, 0, 2)
    );
    let mut bind = skelmap::pose::LocalPose::default();
    model.bind_pose(&mut bind);
    assert!(bind.bones[2].1.distance(Vec3A::X) < 1e-6);
    let model = Model::from_bytes(ANIM.as_bytes()).unwrap();
    assert_eq!(model.num_frames(), 2);
}

/// CRLF line ends, tabs for spaces, and a comment wherever white space may stand: the same
/// model.
#[test]
fn crlf_tabs_and_comments_everywhere_decode_the_same() {
    let plain = MeshFile::parse(MESH.as_bytes()).unwrap();
    let crlf = MESH.replace('\n', "\r\n").replace(' ', "\t");
    let commented: String = MESH
        .split(' ')
        .collect::<Vec<_>>()
        .join(" /* c */ ")
        .replace('\n', " // note\n");
    for text in [crlf, commented, format!("// leading\n/* block */{MESH}")] {
        let other = MeshFile::parse(text.as_bytes()).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(other.joints().len(), plain.joints().len());
        for (a, b) in other.joints().iter().zip(plain.joints()) {
            assert_eq!(
                (a.parent, a.position, a.orientation),
                (b.parent, b.position, b.orientation)
            );
        }
        let (a, b) = (other.mesh(0).unwrap(), plain.mesh(0).unwrap());
        assert_eq!(a.shader_name(), b.shader_name());
        let bytes = |m: skelmap::md5::Mesh<'_>| {
            let l = m.layout();
            (
                l.num_verts,
                l.num_tris,
                l.num_weights,
                m.positions()
                    .iter()
                    .flatten()
                    .map(|c| c.get().to_bits())
                    .collect::<Vec<_>>(),
            )
        };
        assert_eq!(bytes(a), bytes(b));
        assert_eq!(
            Model::from_bytes(text.as_bytes()).unwrap().format(),
            Format::Md5
        );
    }
}

/// Opening decodes once: the mesh file's block holds exactly the arrays its counts need.
#[test]
fn the_decoded_block_is_sized_by_the_counts() {
    let file = MeshFile::parse(MESH.as_bytes()).unwrap();
    // 4 vertices: texcoords 8, ranges 8, positions 12, normals 12, record counts 4 bytes
    // each; 2 triangles of 12; 5 weights of 20; 5 records of 32.
    assert_eq!(
        file.decoded_bytes(),
        4 * (8 + 8 + 12 + 12 + 4) + 2 * 12 + 5 * 20 + 5 * 32
    );
}
