//! Every corpus MDL and HMP against MANIFEST.md and assimp's OBJ (the oracle); HMP7 normals
//! against the height field.

use skelmap::Parse;
use skelmap::gamestudio::morph::tween_scalar;
use skelmap::gamestudio::{Hmp, Mdl};
use skelmap::{Diagnostics, Error, Limits};

use crate::support::{corpus_dir, manifest};

/// The positions (`v` lines) of assimp's OBJ of corpus file `file`.
fn oracle_positions(dir: &std::path::Path, file: &str) -> Vec<[f32; 3]> {
    let obj = std::fs::read(dir.join("../oracle").join(format!("{file}.obj"))).unwrap();
    obj.split(|&b| b == b'\n')
        .filter(|l| l.starts_with(b"v "))
        .map(|l| {
            let v: Vec<f32> = String::from_utf8_lossy(l)
                .split_whitespace()
                .skip(1)
                .map(|x| x.parse().unwrap())
                .collect();
            [v[0], v[1], v[2]]
        })
        .collect()
}

/// The largest distance (per coordinate) from a point of either set to the nearest point of
/// the other: 0 when the sets are equal, whatever their order and duplicates.
fn farthest_nearest(a: &[[f32; 3]], b: &[[f32; 3]]) -> f32 {
    let distance =
        |p: &[f32; 3], q: &[f32; 3]| (0..3).map(|k| (p[k] - q[k]).abs()).fold(0.0, f32::max);
    let nearest = |p: &[f32; 3], set: &[[f32; 3]]| {
        set.iter().map(|q| distance(p, q)).fold(f32::MAX, f32::min)
    };
    a.iter()
        .map(|p| nearest(p, b))
        .chain(b.iter().map(|q| nearest(q, a)))
        .fold(0.0, f32::max)
}

#[test]
fn every_corpus_mdl_matches_the_manifest_and_frame0_the_oracle() {
    let Some(dir) = corpus_dir("mdl") else { return };
    let rows = manifest("mdl");
    assert_eq!(rows.len(), 6);
    for row in &rows {
        let bytes = std::fs::read(dir.join(&row.file)).unwrap();
        let name = &row.file;
        if row.summary.contains("unsupported frame type 30") {
            let e = Mdl::parse(&bytes).map(|_| ()).unwrap_err();
            assert!(
                matches!(
                    &e,
                    Error::Unsupported {
                        what: "header.ident",
                        value: 2,
                        ..
                    }
                ),
                "{name}: {e}"
            );
            continue;
        }
        let mut diag = Diagnostics::new();
        let m = Mdl::parse_with(&bytes, &Limits::default(), &mut diag)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(diag.is_empty(), "{name}: {:?}", diag.warnings());
        let skins: Vec<String> = m
            .skins()
            .iter()
            .map(|s| format!("({}, {}, {})", s.type_code(), s.width(), s.height()))
            .collect();
        assert_eq!(
            row.field("skins").unwrap(),
            format!("{} [{}]", skins.len(), skins.join(", ")),
            "{name} skins"
        );
        assert_eq!(m.num_vertices() as u64, row.count("verts"), "{name}");
        assert_eq!(m.triangles().len() as u64, row.count("tris"), "{name}");
        assert_eq!(m.frames().len() as u64, row.count("frames"), "{name}");
        assert_eq!(
            m.skin_vertices().len() as u64,
            row.count("skinverts"),
            "{name}"
        );
        let kind = if m.frames().get(0).unwrap().frame_type() == 0 {
            "'0'"
        } else {
            "'2'"
        };
        assert!(
            row.summary
                .contains(&format!("{{{kind}: {}}}", m.frames().len())),
            "{name} frame types"
        );

        // assimp's OBJ: frame 0, axes (x, y, z) → (x, z, −y), duplicate positions merged;
        // every position of either side lies within 1e-3 of one of the other.
        let oracle = oracle_positions(&dir, &row.file);
        let n = m.num_vertices() as usize;
        let (mut p, mut nrm) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
        tween_scalar(&m, 0, 0, 0.0, &mut p, &mut nrm).unwrap();
        let used: std::collections::BTreeSet<u16> =
            m.triangles().flat_map(|(xyz, _)| xyz).collect();
        let ours: Vec<[f32; 3]> = used
            .iter()
            .map(|&i| {
                let v = p[usize::from(i)];
                [v[0], v[2], -v[1]]
            })
            .collect();
        let worst = farthest_nearest(&ours, &oracle);
        assert!(
            worst <= 1e-3,
            "{name}: a frame-0 position is {worst} from the oracle"
        );
        println!("{name}: frame 0 within {worst:e} of assimp");
    }
}

#[test]
fn every_corpus_hmp_matches_the_manifest_and_the_oracle_grid() {
    let Some(dir) = corpus_dir("hmp") else { return };
    for row in manifest("hmp") {
        let bytes = std::fs::read(dir.join(&row.file)).unwrap();
        let mut diag = Diagnostics::new();
        let h = Hmp::parse_with(&bytes, &Limits::default(), &mut diag).unwrap();
        assert!(diag.is_empty(), "{}: {:?}", row.file, diag.warnings());
        let [nx, ny] = h.grid();
        assert_eq!(row.field("grid").unwrap(), format!("{nx} x {ny}"));
        assert_eq!(u64::from(nx * ny), row.count("num_verts"));
        assert_eq!(h.skins().len() as u64, row.count("skins"));
        assert_eq!(h.frames().len() as u64, row.count("frames"));
        // assimp: one quad face per cell, spanning 0..(n − 1) · spacing in X and Y.
        let info = std::fs::read_to_string(
            dir.join("../oracle")
                .join(format!("{}.info_raw.txt", row.file)),
        )
        .unwrap();
        let faces: u32 = info
            .lines()
            .find_map(|l| l.strip_prefix("Faces:"))
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        assert_eq!(faces, (nx - 1) * (ny - 1));
        let mesh = h.mesh(0).unwrap();
        let max_x = mesh.positions.iter().map(|p| p[0]).fold(0.0, f32::max);
        assert!(
            info.contains(&format!("Maximum point      ({max_x:.6} ")),
            "{}: x extent {max_x}",
            row.file
        );
        assert_eq!(mesh.triangles.len() as u32, 2 * faces);

        // assimp's OBJ, frame 0: X and Y as ours; its Z ignores the header's height scale and
        // offset (`docs/formats/hmp.md` § Quirks and decisions: `((h / 65535) − 0.5) · ftrisize_x · 8`), so our packed
        // heights are put through that formula to prove the same values at the same places.
        let oracle = oracle_positions(&dir, &row.file);
        let frame = h.frames().get(0).unwrap();
        let [dx, _] = h.cell_size();
        let ours: Vec<[f32; 3]> = mesh
            .positions
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let raw = f32::from(frame.raw_height(i).unwrap());
                [p[0], p[1], (raw / 65535.0 - 0.5) * dx * 8.0]
            })
            .collect();
        let worst = farthest_nearest(&ours, &oracle);
        assert!(
            worst <= 1e-3,
            "{}: a frame-0 vertex is {worst} from assimp's",
            row.file
        );
        println!(
            "{}: frame 0 within {worst:e} of assimp (its height formula)",
            row.file
        );
    }
}

/// The HMP7 normals (stored as two `i8` components) agree with the normals of the terrain's own
/// height field: the reading documented in `gamestudio/terrain.rs`.
#[test]
fn hmp7_normals_match_the_height_field() {
    let Some(dir) = corpus_dir("hmp") else { return };
    let bytes = std::fs::read(dir.join("gex4_terrain.hmp")).unwrap();
    let h = Hmp::parse(&bytes).unwrap();
    let mesh = h.mesh(0).unwrap();
    let [nx, ny] = h.grid().map(|v| v as usize);
    let (mut sum, mut count, mut worst) = (0.0f64, 0, 1.0f64);
    for iy in 1..ny - 1 {
        for ix in 1..nx - 1 {
            let i = iy * nx + ix;
            let p = &mesh.positions;
            let dzdx = f64::from(p[i + 1][2] - p[i - 1][2]) / f64::from(p[i + 1][0] - p[i - 1][0]);
            let dzdy =
                f64::from(p[i + nx][2] - p[i - nx][2]) / f64::from(p[i + nx][1] - p[i - nx][1]);
            let len = (dzdx * dzdx + dzdy * dzdy + 1.0).sqrt();
            let n = mesh.normals[i].map(f64::from);
            let cos = (-dzdx * n[0] - dzdy * n[1] + n[2]) / len;
            sum += cos;
            count += 1;
            worst = worst.min(cos);
        }
    }
    let mean = sum / f64::from(count);
    assert!(
        mean > 0.999 && worst > 0.95,
        "mean cosine {mean}, worst {worst}"
    );
}
