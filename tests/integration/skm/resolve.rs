//! Skeleton resolution, levels of detail, round trips and the conversion of every corpus DPM.

use skelmap::Parse;
use std::collections::HashMap;

use skelmap::FsResolver;
use skelmap::dpm::Dpm;
use skelmap::skm;
use skelmap::skm::convert::{from_dpm, pose_to_matrix};
use skelmap::skm::resolve::resolve;
use skelmap::skm::{Skm, Skp};
use skelmap::{Diagnostics, Error, Format, Limits, Problem, SkeletalMesh, Skeleton, WarningKind};

use crate::support::{corpus_files, tube, tube_skm};

fn files(entries: &[(&str, &[u8])]) -> HashMap<String, Vec<u8>> {
    entries
        .iter()
        .map(|(p, b)| (p.to_string(), b.to_vec()))
        .collect()
}

#[test]
fn skeleton_beside_the_model_without_cfg() {
    let ((skm, _), (skp, _)) = tube_skm();
    let fs = files(&[("m/tube.skm", &skm), ("m/tube.skp", &skp)]);
    let found = resolve(&&fs, "m/tube.skm").unwrap();
    assert_eq!(found.skp.0, "m/tube.skp");
    assert!(found.lods.is_empty());
    let model = found.open().unwrap();
    assert_eq!(model.bone_index(b"seg3"), Some(3));
}

#[test]
fn cfg_import_names_a_shared_skeleton() {
    let ((skm, _), (skp, _)) = tube_skm();
    let cfg = b"// skeleton shared by all players\nImport \"players/base/rig.skm\"\n";
    let fs = files(&[
        ("m/tube.skm", &skm),
        ("m/tube.cfg", cfg),
        ("players/base/rig.skp", &skp),
    ]);
    assert_eq!(
        resolve(&&fs, "m/tube.skm").unwrap().skp.0,
        "players/base/rig.skp"
    );
}

#[test]
fn missing_skeleton_is_a_resolve_error() {
    let ((skm, _), _) = tube_skm();
    let fs = files(&[("m/tube.skm", &skm)]);
    let e = resolve(&&fs, "m/tube.skm").unwrap_err();
    assert!(
        matches!(&e, Error::Resolve { path, reason: "skeleton not found" } if path == "m/tube.skp"),
        "{e}"
    );
    let e = resolve(&&fs, "m/none.skm").unwrap_err();
    assert!(
        matches!(&e, Error::Resolve { path, .. } if path == "m/none.skm"),
        "{e}"
    );
}

#[test]
fn cfg_import_escaping_the_root_is_refused() {
    let ((skm, _), _) = tube_skm();
    for import in [
        "import ../../etc/passwd",
        "import /abs/rig.skm",
        "import C:/rig.skm",
    ] {
        let fs = files(&[("m/tube.skm", &skm), ("m/tube.cfg", import.as_bytes())]);
        let e = resolve(&&fs, "m/tube.skm").unwrap_err();
        assert!(matches!(e, Error::Resolve { .. }), "{import}: {e}");
    }
}

#[test]
fn filesystem_resolver_refuses_escapes_and_reads_files() {
    let dir = tempfile::Builder::new()
        .prefix("skelmap-fs-resolver-")
        .tempdir()
        .unwrap();
    let dir = dir.path();
    std::fs::create_dir_all(dir.join("m")).unwrap();
    let ((skm, _), (skp, _)) = tube_skm();
    std::fs::write(dir.join("m/tube.skm"), &skm).unwrap();
    std::fs::write(dir.join("m/tube.skp"), &skp).unwrap();
    let fs = FsResolver::new(dir);
    assert_eq!(
        resolve(&fs, "m/tube.skm")
            .unwrap()
            .open()
            .unwrap()
            .skp()
            .num_frames(),
        9
    );
    assert!(matches!(
        resolve(&fs, "../m/tube.skm"),
        Err(Error::Resolve { .. })
    ));
}

/// A LOD of the tube: the same skeleton, its one mesh renamed `tube_N`.
fn lod(n: u32, num_bones: u32) -> Vec<u8> {
    let (dpm, _) = tube();
    let mut c = from_dpm(&Dpm::parse(&dpm).unwrap(), &mut Diagnostics::new()).skm;
    c.meshes[0].name = format!("tube_{n}").into_bytes();
    c.num_bones = num_bones;
    c.write().unwrap()
}

#[test]
fn lods_are_found_in_order_until_one_is_missing() {
    let ((skm, _), (skp, _)) = tube_skm();
    let (l1, l2, l4) = (lod(1, 4), lod(2, 4), lod(4, 4));
    let fs = files(&[
        ("t.skm", &skm),
        ("t.skp", &skp),
        ("t_1.skm", &l1),
        ("t_2.skm", &l2),
        ("t_4.skm", &l4),
    ]);
    let found = resolve(&&fs, "t.skm").unwrap();
    let names: Vec<&str> = found.lods.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(
        names,
        ["t_1.skm", "t_2.skm"],
        "probing stops at the missing t_3"
    );
    let mut diag = Diagnostics::new();
    let model = found.open_with(&Limits::default(), &mut diag).unwrap();
    assert_eq!(model.lods().count(), 2);
    assert!(
        diag.is_empty(),
        "`tube_1` strips to the base mesh name: {:?}",
        diag.warnings()
    );
}

#[test]
fn lod_with_another_bone_count_is_an_error() {
    let ((skm, _), (skp, _)) = tube_skm();
    let bad = lod(1, 5);
    let fs = files(&[("t.skm", &skm), ("t.skp", &skp), ("t_1.skm", &bad)]);
    let e = resolve(&&fs, "t.skm").unwrap().open().unwrap_err();
    assert!(
        matches!(
            &e,
            Error::Invalid {
                what: "header.num_bones",
                problem: Problem::LevelOfDetail {
                    lod: 1,
                    bones: 5,
                    ..
                },
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn lod_with_other_meshes_is_a_warning() {
    let ((skm, _), (skp, _)) = tube_skm();
    let (dpm, _) = tube();
    let mut c = from_dpm(&Dpm::parse(&dpm).unwrap(), &mut Diagnostics::new()).skm;
    c.meshes[0].name = b"other_1".to_vec();
    let other = c.write().unwrap();
    let fs = files(&[("t.skm", &skm), ("t.skp", &skp), ("t_1.skm", &other)]);
    let mut diag = Diagnostics::new();
    resolve(&&fs, "t.skm")
        .unwrap()
        .open_with(&Limits::default(), &mut diag)
        .unwrap();
    assert_eq!(diag.count(WarningKind::LodMismatch), 1);
}

#[test]
fn a_non_skm_file_ends_lod_probing() {
    let ((skm, _), (skp, _)) = tube_skm();
    let fs = files(&[("t.skm", &skm), ("t.skp", &skp), ("t_1.skm", b"not an skm")]);
    assert!(resolve(&&fs, "t.skm").unwrap().lods.is_empty());
}

#[test]
fn writer_parser_round_trip() {
    let b = skm::SkmBuilder {
        num_bones: 2,
        meshes: vec![skelmap::skm::MeshDef {
            shader: b"s".to_vec(),
            name: b"body".to_vec(),
            vertices: vec![
                vec![skelmap::write::Influence::weighted(
                    1,
                    1.0,
                    [1.0, 2.0, 3.0],
                    [0.0, 0.0, 1.0],
                )],
                vec![
                    skelmap::write::Influence::weighted(0, 0.25, [4.0, 0.0, 0.0], [1.0, 0.0, 0.0]),
                    skelmap::write::Influence::weighted(1, 0.75, [4.0, 0.0, 0.0], [1.0, 0.0, 0.0]),
                ],
                vec![skelmap::write::Influence::weighted(
                    0,
                    1.0,
                    [0.0, 5.0, 0.0],
                    [0.0, 1.0, 0.0],
                )],
            ],
            texcoords: vec![[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]],
            triangles: vec![[0, 1, 2]],
            references: vec![0, 1],
        }],
    };
    let bytes = b.write().unwrap();
    // 24 header + 156 mesh + (36 + 68 + 36) vertices + 24 texcoords + 12 indices + 8 references
    assert_eq!(bytes.len(), 24 + 156 + 140 + 24 + 12 + 8);
    let m = Skm::parse(&bytes).unwrap();
    let mesh = m.mesh(0).unwrap();
    assert_eq!(
        (mesh.mesh_name(), mesh.shader_name()),
        (&b"body"[..], &b"s"[..])
    );
    let weights: Vec<Vec<(u32, f32)>> = mesh
        .vertices()
        .map(|v| v.iter().map(|r| (r.bonenum(), r.influence())).collect())
        .collect();
    assert_eq!(
        weights,
        vec![vec![(1, 1.0)], vec![(0, 0.25), (1, 0.75)], vec![(0, 1.0)]]
    );
    assert_eq!(
        mesh.vertices().nth(1).unwrap()[1].origin(),
        [3.0, 0.0, 0.0],
        "pre-weighted"
    );
    assert_eq!(
        mesh.texcoords().collect::<Vec<_>>(),
        [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]
    );
    assert_eq!(mesh.triangles().collect::<Vec<_>>(), [[0, 1, 2]]);
    assert_eq!(mesh.references().collect::<Vec<_>>(), [0, 1]);
}

/// Every corpus DPM converts; the SKM + SKP pair opens with the same counts and names, and
/// every frame's quaternion + origin rebuilds the DPM matrix within 1e-5.
#[test]
fn every_corpus_dpm_converts_and_rebuilds_its_poses() {
    let paths = corpus_files("dpm");
    for path in &paths {
        let bytes = std::fs::read(path).unwrap();
        let dpm = Dpm::parse(&bytes).unwrap();
        let mut diag = Diagnostics::new();
        let c = from_dpm(&dpm, &mut diag);
        assert_eq!(
            diag.count(WarningKind::NonOrthonormal),
            0,
            "{}",
            path.display()
        );
        let (skm_bytes, skp_bytes) = (c.skm.write().unwrap(), c.skp.write().unwrap());
        assert_eq!(Format::sniff(&skm_bytes), Some(Format::Skm));
        assert_eq!(Format::sniff(&skp_bytes), Some(Format::Skp));
        let mut diag = Diagnostics::new();
        let skm = Skm::parse_with(&skm_bytes, &Limits::default(), &mut diag).unwrap();
        let skp = Skp::parse_with(&skp_bytes, &Limits::default(), &mut diag).unwrap();
        assert!(diag.is_empty(), "{}: {:?}", path.display(), diag.warnings());
        let model = skelmap::skm::Pair::new(skm, skp, &[]).unwrap();

        assert_eq!(
            (skm.num_meshes(), skm.num_vertices(), skm.num_triangles()),
            (dpm.num_meshes(), dpm.num_vertices(), dpm.num_triangles())
        );
        assert_eq!(
            (skp.num_bones(), skp.num_frames()),
            (dpm.num_bones(), dpm.num_frames())
        );
        assert!(
            dpm.bones()
                .zip(model.skp().bones())
                .all(|(a, b)| a == b || (a.name() == b.name() && a.parent() == b.parent()))
        );
        for (a, b) in dpm.meshes().zip(skm.meshes()) {
            assert!(
                a.vertices()
                    .zip(b.vertices())
                    .all(|(x, y)| x.len() == y.len()
                        && x.iter().zip(y).all(|(r, s)| (
                            r.origin(),
                            r.influence(),
                            r.normal(),
                            r.bonenum()
                        ) == (
                            s.origin(),
                            s.influence(),
                            s.normal(),
                            s.bonenum()
                        )))
            );
            assert!(a.triangles().eq(b.triangles()));
        }
        let mut worst = 0.0f32;
        for (fd, fs) in dpm.frames().zip(skp.frames()) {
            assert_eq!(fd.name(), fs.name());
            for (pd, ps) in fd.poses().iter().zip(fs.poses()) {
                let rebuilt = pose_to_matrix(ps.quat(), ps.origin());
                for (rd, rr) in pd.matrix().iter().zip(&rebuilt) {
                    for (x, y) in rd.iter().zip(rr) {
                        worst = worst.max((x - y).abs() / x.abs().max(1.0));
                    }
                }
            }
        }
        assert!(worst <= 1e-5, "{}: pose error {worst}", path.display());
    }
}
