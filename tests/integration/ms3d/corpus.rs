//! Every corpus MS3D against MANIFEST.md and assimp's OBJ (the oracle); group names that are
//! not UTF-8.

use skelmap::Parse;
use skelmap::ms3d::Ms3d;
use skelmap::{Diagnostics, Limits};

use crate::support::{corpus_dir, manifest};

#[test]
fn every_corpus_ms3d_matches_the_manifest_and_the_oracle() {
    let Some(dir) = corpus_dir("ms3d") else {
        return;
    };
    let rows = manifest("ms3d");
    assert_eq!(rows.len(), 5);
    for row in &rows {
        let bytes = std::fs::read(dir.join(&row.file)).unwrap();
        let mut diag = Diagnostics::new();
        let m = Ms3d::parse_with(&bytes, &Limits::default(), &mut diag)
            .unwrap_or_else(|e| panic!("{}: {e}", row.file));
        assert!(diag.is_empty(), "{}: {:?}", row.file, diag.warnings());
        let name = &row.file;
        assert_eq!(
            row.summary.split(';').next().map(str::trim),
            Some(format!("v{}", m.version()).as_str())
        );
        assert_eq!(m.vertices().len() as u64, row.count("verts"), "{name}");
        assert_eq!(m.triangles().len() as u64, row.count("tris"), "{name}");
        assert_eq!(m.groups().len() as u64, row.count("groups"), "{name}");
        assert_eq!(m.materials().len() as u64, row.count("materials"), "{name}");
        assert_eq!(m.joints().len() as u64, row.count("joints"), "{name}");
        let keys: usize = m
            .joints()
            .iter()
            .map(|j| j.rotation_keys().len() + j.position_keys().len())
            .sum();
        assert_eq!(keys as u64, row.count("keyframes"), "{name}");
        assert_eq!(m.total_frames() as u64, row.count("total_frames"), "{name}");
        assert_eq!(m.animation_fps() as u64, row.count("fps"), "{name}");
        // Tail variants as the MANIFEST lists them.
        let ext = row.field("1.8 ext:").unwrap_or("");
        assert_eq!(m.has_comments(), ext.contains("comments sub 1"), "{name}");
        let vsub = m.vertex_extra().map(|v| v.sub_version());
        assert_eq!(
            vsub.map(|s| format!("vertex-extra sub {s}"))
                .is_some_and(|s| ext.contains(&s)),
            vsub.is_some(),
            "{name}"
        );
        assert_eq!(
            m.joint_extra().is_some(),
            ext.contains("joint-extra sub 1"),
            "{name}"
        );
        assert_eq!(
            m.model_extra().is_some(),
            ext.contains("model-extra sub 1"),
            "{name}"
        );

        // The assimp oracle's OBJ lists the distinct stored positions (no axis change for MS3D).
        let obj = std::fs::read(dir.join("../oracle").join(format!("{}.obj", row.file))).unwrap();
        let round = |v: [f32; 3]| v.map(|c| (c * 1000.0).round() as i64);
        let mut oracle: Vec<[i64; 3]> = obj
            .split(|&b| b == b'\n')
            .filter(|l| l.starts_with(b"v "))
            .map(|l| {
                let text = String::from_utf8_lossy(l);
                let v: Vec<f32> = text
                    .split_whitespace()
                    .skip(1)
                    .map(|x| x.parse().unwrap())
                    .collect();
                round([v[0], v[1], v[2]])
            })
            .collect();
        let mut ours: Vec<[i64; 3]> = (0..m.vertices().len())
            .map(|i| round(m.position(i).unwrap()))
            .collect();
        oracle.sort_unstable();
        oracle.dedup();
        ours.sort_unstable();
        ours.dedup();
        assert_eq!(
            ours, oracle,
            "{name}: distinct positions differ from the oracle"
        );
    }
}

#[test]
fn non_utf8_group_names_are_kept_as_bytes() {
    let Some(dir) = corpus_dir("ms3d") else {
        return;
    };
    let bytes = std::fs::read(dir.join("ms3drender_tortoise.ms3d")).unwrap();
    let m = Ms3d::parse(&bytes).unwrap();
    let odd = m
        .groups()
        .iter()
        .filter(|g| std::str::from_utf8(g.name()).is_err())
        .count();
    assert!(odd > 0, "tortoise has GBK-encoded group names");
    assert!(m.groups().iter().all(|g| !g.name_lossy().is_empty()));
    // Its code page is GBK, and written back as MS3D every material keeps its bytes.
    let model = skelmap::Model::from_bytes(&bytes).unwrap();
    assert_eq!(model.code_page(), skelmap::name::CodePage::Gbk);
    let asset = model.to_asset(&skelmap::asset::Options::default()).unwrap();
    let fitted = skelmap::ms3d::Builder::from_asset(&asset).unwrap();
    let written = fitted.builder.write().unwrap();
    let again = Ms3d::parse(&written).unwrap();
    let names = |m: &Ms3d<'_>| -> Vec<Vec<u8>> {
        (m.materials().iter())
            .map(|x| skelmap::name::trim_nul(&x.name).to_vec())
            .collect()
    };
    assert_eq!(names(&again), names(&m));
}
