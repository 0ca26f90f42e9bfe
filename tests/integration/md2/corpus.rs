//! Every shared MD2 (`corpus-engines/md2`) against its MANIFEST row and assimp: exact counts,
//! skin size and clips; frame 0 equal to assimp's OBJ as sets of points; several frames equal
//! to what assimp 5.2.5 loads with `AI_CONFIG_IMPORT_MD2_KEYFRAME`; the winding agreeing
//! with the stored normals; every SIMD level's tween equal to the scalar one to the bit.

use skelmap::md2::Md2;
use skelmap::model::Pose;
use skelmap::pose::Interpolation;
use skelmap::skin::SimdLevel;
use skelmap::{Diagnostics, Format, Limits, Model, Parse};

use crate::support::oracle::{
    assert_same_points, assimp_frame, assimp_keyframe_tool, oracle_points,
};
use crate::support::{corpus_engines_dir, manifest_engines};

#[test]
fn every_shared_md2_matches_the_manifest() {
    let Some(dir) = corpus_engines_dir("md2") else {
        return;
    };
    let rows = manifest_engines("md2");
    assert_eq!(rows.len(), 2);
    for row in &rows {
        let name = &row.file;
        let bytes = std::fs::read(dir.join(name)).unwrap();
        assert_eq!(bytes.len() as u64, row.size, "{name}");
        let mut diag = Diagnostics::new();
        let m = Md2::parse_with(&bytes, &Limits::default(), &mut diag)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(diag.is_empty(), "{name}: {:?}", diag.warnings());
        let h = m.header();
        assert_eq!(m.frames().len() as u64, row.count("frames"), "{name}");
        assert_eq!(m.num_vertices() as u64, row.count("verts"), "{name}");
        assert_eq!(m.st().len() as u64, row.count("st"), "{name}");
        assert_eq!(m.num_triangles() as u64, row.count("tris"), "{name}");
        assert_eq!(m.skin_names().len() as u64, row.count("skins"), "{name}");
        assert_eq!(h.num_glcmds.get() as u64, row.count("glcmds"), "{name}");
        let (w, hgt) = m.skin_size();
        assert_eq!(
            row.field("skin"),
            Some(format!("{w}x{hgt}").as_str()),
            "{name}"
        );
        // Clips from frame names, as the MANIFEST's frame groups.
        let model = Model::from_bytes(&bytes).unwrap();
        assert_eq!(model.format(), Format::Md2);
        let groups = row.field("frame groups").unwrap();
        let clips: Vec<&str> = model.clips().iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            format!("{} [{}]", clips.len(), clips.join(", ")),
            groups,
            "{name}"
        );
        let drawn: usize = m.gl_commands().map(|c| c.vertices.len() - 2).sum();
        assert_eq!(
            drawn,
            m.num_triangles(),
            "{name}: the GL commands draw every triangle"
        );
        crate::exercise::model(&model);
    }
}

/// Frame `f`'s positions through `Model::deform`, at the triangles' corners (assimp keeps
/// only the vertices triangles use).
fn frame_positions(model: &Model<'_>, f: usize) -> Vec<[f32; 3]> {
    let mut pose = Pose::default();
    model
        .pose(f, f, 0.0, Interpolation::Nlerp, &mut pose)
        .unwrap();
    let mesh = model.mesh(0).unwrap();
    let n = mesh.num_vertices();
    let (mut p, mut q) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
    model.deform(0, &pose, &mut p, &mut q).unwrap();
    (0..mesh.num_triangles())
        .flat_map(|t| mesh.triangle(t).unwrap())
        .map(|v| p[v as usize])
        .collect()
}

/// Frame 0 of every shared MD2 equals assimp's OBJ as sets of points, within
/// 1e-3 of the model's size, assimp's axes being `(x, z, −y)` (its root node's turn).
#[test]
fn every_shared_md2_matches_assimp_on_frame_0() {
    let Some(dir) = corpus_engines_dir("md2") else {
        return;
    };
    let oracle = corpus_engines_dir("oracle").unwrap();
    let mut compared = 0;
    for row in manifest_engines("md2") {
        let name = &row.file;
        let obj = std::fs::read_to_string(oracle.join(format!("{name}.obj"))).unwrap();
        let theirs = oracle_points(&obj);
        let model = Model::open(dir.join(name)).unwrap();
        let ours: Vec<_> = frame_positions(&model, 0)
            .iter()
            .map(|v| [v[0], v[2], -v[1]])
            .collect();
        assert_same_points(&ours, &theirs, name);
        compared += 1;
    }
    assert_eq!(compared, 2);
}

/// The first, a middle and the last frame of every shared MD2 equal what assimp loads with
/// its keyframe option, as sets of points (assimp's mesh vertices are the file's axes; its
/// root node turns them), and frame 0 from the tool equals the OBJ oracle.
#[test]
fn several_frames_match_assimp_with_its_keyframe_option() {
    let Some(dir) = corpus_engines_dir("md2") else {
        return;
    };
    let Some(tool) = assimp_keyframe_tool("AI_CONFIG_IMPORT_MD2_KEYFRAME") else {
        return;
    };
    let mut compared = 0;
    for row in manifest_engines("md2") {
        let path = dir.join(&row.file);
        let model = Model::open(&path).unwrap();
        let frames = model.num_frames();
        for f in [0, frames / 2, frames - 1] {
            let theirs = assimp_frame(&tool, &path, f);
            let ours = frame_positions(&model, f);
            assert_same_points(&ours, &theirs, &format!("{} frame {f}", row.file));
            compared += 1;
        }
    }
    assert_eq!(compared, 6);
}

/// The meshes' counter-clockwise triangles face the way the stored normals point.
#[test]
fn the_winding_agrees_with_the_stored_normals() {
    let Some(dir) = corpus_engines_dir("md2") else {
        return;
    };
    for row in manifest_engines("md2") {
        let model = Model::open(dir.join(&row.file)).unwrap();
        let mut pose = Pose::default();
        model
            .pose(0, 0, 0.0, Interpolation::Nlerp, &mut pose)
            .unwrap();
        let mesh = model.mesh(0).unwrap();
        let n = mesh.num_vertices();
        let (mut p, mut q) = (vec![[0.0f32; 3]; n], vec![[0.0f32; 3]; n]);
        model.deform(0, &pose, &mut p, &mut q).unwrap();
        let (mut agree, total) = (0, mesh.num_triangles());
        for t in 0..total {
            let [a, b, c] = mesh.triangle(t).unwrap().map(|i| i as usize);
            let (u, v) = (
                [0, 1, 2].map(|k| p[b][k] - p[a][k]),
                [0, 1, 2].map(|k| p[c][k] - p[a][k]),
            );
            let face = [
                u[1] * v[2] - u[2] * v[1],
                u[2] * v[0] - u[0] * v[2],
                u[0] * v[1] - u[1] * v[0],
            ];
            let dot: f32 = (0..3)
                .map(|k| face[k] * (q[a][k] + q[b][k] + q[c][k]))
                .sum();
            agree += usize::from(dot > 0.0);
        }
        assert_eq!(agree, total, "{}", row.file);
    }
}

/// On every frame pair of every shared MD2, every SIMD level's tween equals the scalar
/// reference to the bit.
#[test]
fn simd_tweens_equal_the_scalar_reference_on_every_shared_frame() {
    let Some(dir) = corpus_engines_dir("md2") else {
        return;
    };
    for row in manifest_engines("md2") {
        let bytes = std::fs::read(dir.join(&row.file)).unwrap();
        let m = Md2::parse(&bytes).unwrap();
        let (frames, n) = (m.frames().len(), m.num_vertices());
        let (mut p0, mut n0) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
        let (mut p1, mut n1) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
        for a in 0..frames {
            let b = (a + 1) % frames;
            m.tween_with_level(SimdLevel::Portable, a, b, 0.375, &mut p0, &mut n0)
                .unwrap();
            for level in SimdLevel::ALL {
                m.tween_with_level(level, a, b, 0.375, &mut p1, &mut n1)
                    .unwrap();
                let bits =
                    |v: &[[f32; 3]]| v.iter().flatten().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&p0), bits(&p1), "{} {level:?}", row.file);
                assert_eq!(bits(&n0), bits(&n1), "{} {level:?}", row.file);
            }
        }
    }
}
