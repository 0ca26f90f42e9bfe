//! Every Quake corpus file and the MDL2 bush against assimp's OBJ (the oracle), frame 0, corner
//! by corner.

use skelmap::model::Pose;
use skelmap::{Format, Model};

use crate::support::corpus_dir;

/// assimp's OBJ: positions, texture coordinates and faces `(v, vt)` per corner (1-based).
struct Obj {
    v: Vec<[f32; 3]>,
    vt: Vec<[f32; 2]>,
    faces: Vec<[(usize, usize); 3]>,
}

fn read_obj(bytes: &[u8]) -> Obj {
    let text = String::from_utf8_lossy(bytes);
    let mut obj = Obj {
        v: vec![],
        vt: vec![],
        faces: vec![],
    };
    for line in text.lines() {
        let mut words = line.split_whitespace();
        let floats = |w: std::str::SplitWhitespace<'_>| -> Vec<f32> {
            w.map(|x| x.parse().unwrap()).collect()
        };
        match words.next() {
            Some("v") => {
                let f = floats(words);
                obj.v.push([f[0], f[1], f[2]]);
            }
            Some("vt") => {
                let f = floats(words);
                obj.vt.push([f[0], f[1]]);
            }
            Some("f") => {
                let corner = |w: &str| {
                    let mut parts = w.split('/');
                    let v: usize = parts.next().unwrap().parse().unwrap();
                    let vt: usize = parts.next().unwrap().parse().unwrap();
                    (v - 1, vt - 1)
                };
                let c: Vec<_> = words.map(corner).collect();
                obj.faces.push([c[0], c[1], c[2]]);
            }
            _ => {}
        }
    }
    obj
}

/// Every Quake corpus file and the MDL2 bush open without findings, with the counts the walk
/// of their bytes gives, and frame 0 matches assimp corner by corner: positions as
/// `(x, z, −y)` within 1e-3, texture coordinates as `(u, 1 − v)` within 1e-5, both with
/// assimp's reversed winding (which the model's counter-clockwise triangles already are).
#[test]
fn every_quake_corpus_file_and_the_mdl2_bush_match_assimp_on_frame_0() {
    let Some(quake) = corpus_dir("mdl_quake") else {
        return;
    };
    let mdl = corpus_dir("mdl").unwrap();
    // file, format, skins, vertices, triangles, frames, frame entries.
    let expected = [
        (
            quake.join("bq_backpack.mdl"),
            Format::Quake,
            4,
            512,
            364,
            1,
            1,
        ),
        (quake.join("bq_invis.mdl"), Format::Quake, 1, 490, 324, 1, 1),
        (
            quake.join("bq_lavaball.mdl"),
            Format::Quake,
            1,
            654,
            496,
            3,
            3,
        ),
        (
            mdl.join("libgs_mdl2-bush.mdl"),
            Format::Mdl,
            1,
            73,
            132,
            1,
            1,
        ),
    ];
    for (path, format, skins, verts, tris, frames, entries) in expected {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let model = Model::open(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            model.diagnostics().is_empty(),
            "{name}: {:?}",
            model.diagnostics().warnings()
        );
        assert_eq!(model.format(), format, "{name}");
        let q = model
            .as_quake()
            .unwrap_or_else(|| panic!("{name}: not a Quake view"));
        assert_eq!(
            (
                q.skins().len(),
                q.num_vertices(),
                q.num_triangles(),
                q.frames().len(),
                q.frame_groups().len()
            ),
            (skins, verts, tris, frames, entries),
            "{name}"
        );
        let mesh = model.mesh(0).unwrap();
        let mut pose = Pose::default();
        model.pose_bind(&mut pose);
        let (mut p, mut n) = (vec![[0.0; 3]; verts], vec![[0.0; 3]; verts]);
        model.deform(0, &pose, &mut p, &mut n).unwrap();

        let oracle = corpus_dir("oracle").unwrap().join(format!("{name}.obj"));
        let obj = read_obj(&std::fs::read(oracle).unwrap());
        assert_eq!(obj.faces.len(), tris, "{name}");
        let (mut worst_p, mut worst_uv) = (0.0f32, 0.0f32);
        for (t, face) in obj.faces.iter().enumerate() {
            let tri = mesh.triangle(t).unwrap();
            let uvs = mesh.corner_texcoords(t).unwrap();
            for (k, &(v, vt)) in face.iter().enumerate() {
                let ours = p[tri[k] as usize];
                let ours = [ours[0], ours[2], -ours[1]];
                let theirs = obj.v[v];
                (0..3).for_each(|c| worst_p = worst_p.max((ours[c] - theirs[c]).abs()));
                let uv = [uvs[k][0], 1.0 - uvs[k][1]];
                (0..2).for_each(|c| worst_uv = worst_uv.max((uv[c] - obj.vt[vt][c]).abs()));
            }
        }
        assert!(worst_p <= 1e-3, "{name}: a position is {worst_p} off");
        assert!(
            worst_uv <= 1e-5,
            "{name}: a texture coordinate is {worst_uv} off"
        );
        println!("{name}: frame 0 within {worst_p:e} (positions), {worst_uv:e} (uv) of assimp");
    }
}
