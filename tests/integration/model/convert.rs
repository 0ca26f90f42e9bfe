//! Conversions through `Model` (`model::convert`): every corpus DPM and MS3D to IQM, every
//! shared IQM to DPM and to SKM + SKP and back to IQM, each reopened with its counts and clips
//! and its skinning error measured over every frame; the IQM weight cut; and, where assimp is
//! installed, every written IQM's static geometry against assimp's.

use skelmap::glam::Vec3;
use skelmap::model::convert::{self, SkinningError};
use skelmap::{Limits, Source};
use skelmap::{Model, Parse};

use crate::support::{corpus_files, corpus_next_files};

/// Counts and clips of `a` and `b` agree.
fn same_shape(a: &Model<'_>, b: &Model<'_>, name: &str) {
    assert_eq!(a.num_bones(), b.num_bones(), "{name}: bones");
    assert_eq!(a.num_frames(), b.num_frames(), "{name}: frames");
    assert_eq!(a.num_triangles(), b.num_triangles(), "{name}: triangles");
    let clips = |m: &Model<'_>| {
        m.clips()
            .iter()
            .map(|c| (c.first, c.count, c.fps))
            .collect::<Vec<_>>()
    };
    assert_eq!(clips(a), clips(b), "{name}: clips");
}

/// `source` to IQM, reopened: its shape and its skinning error.
fn through_iqm(source: &Model<'_>, name: &str) -> (SkinningError, usize) {
    let converted = convert::to_iqm(source).unwrap();
    let bytes = converted.builder.write().unwrap();
    let model = Model::from_bytes(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(
        model.diagnostics().is_empty(),
        "{name}: {:?}",
        model.diagnostics()
    );
    same_shape(source, &model, name);
    let error = convert::skinning_error(source, &model, &converted.origin).unwrap();
    (error, converted.reduced_vertices)
}

#[test]
fn every_corpus_dpm_and_ms3d_converts_to_iqm() {
    let mut files = corpus_files("dpm");
    files.extend(corpus_files("ms3d"));
    for path in files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = std::fs::read(&path).unwrap();
        let source = Model::from_bytes(&bytes).unwrap();
        let (error, reduced) = through_iqm(&source, &name);
        eprintln!("{name} → IQM: {error}; {reduced} vertices cut to four influences");
        // Where no influence was cut, what is left is IQM's 16-bit channels and 8-bit
        // weights; cutting influences costs what the file's fifth ones weighed.
        let bound = if reduced == 0 { 5e-5 } else { 5e-2 };
        assert!(error.max <= bound, "{name}: {error}");
        assert!(error.rms <= 2e-3, "{name}: {error}");
    }
}

#[test]
fn every_shared_iqm_converts_to_dpm_and_skm_and_back() {
    for path in corpus_next_files("iqm") {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = std::fs::read(&path).unwrap();
        let source = Model::from_bytes(&bytes).unwrap();
        if source.num_meshes() == 0 {
            // guyanim: an animation on its own has nothing to convert.
            assert!(convert::to_dpm(&source).is_err());
            continue;
        }
        let (back, _) = through_iqm(&source, &name);
        assert!(back.max <= 1e-5, "{name} → IQM: {back}");

        let dpm = convert::to_dpm(&source).unwrap();
        let dpm_bytes = dpm.builder.write().unwrap();
        let written = Model::from_bytes(&dpm_bytes).unwrap();
        assert_eq!(written.num_bones(), source.num_bones().max(1), "{name}");
        assert_eq!(written.num_triangles(), source.num_triangles(), "{name}");
        let error = convert::skinning_error(&source, &written, &dpm.origin).unwrap();
        eprintln!("{name} → DPM: {error}; {} frames scale", dpm.scaled_frames);
        // DPM poses are read without scale: only frames that scale may differ.
        if dpm.scaled_frames == 0 {
            assert!(error.max <= 1e-5, "{name} → DPM: {error}");
        } else {
            assert_eq!((name.as_str(), dpm.scaled_frames), ("raylib_guy.iqm", 59));
        }

        let parsed = skelmap::dpm::Dpm::parse(&dpm_bytes).unwrap();
        let skm = skelmap::skm::convert::from_dpm(&parsed, &mut skelmap::Diagnostics::new());
        let (skm, skp) = (skm.skm.write().unwrap(), skm.skp.write().unwrap());
        let pair = Model::from_skm(
            Source::from_bytes(&skm),
            Source::from_bytes(&skp),
            &Limits::DEFAULT,
        )
        .unwrap();
        let error = convert::skinning_error(&source, &pair, &dpm.origin).unwrap();
        if dpm.scaled_frames == 0 {
            assert!(error.max <= 1e-5, "{name} → SKM: {error}");
        }
    }
}

#[test]
fn influences_are_cut_as_the_iqm_compiler_cuts_them() {
    use skelmap::dpm::write::IDENTITY;
    use skelmap::dpm::{Builder, FrameDef, MeshDef};
    use skelmap::write::{BoneDef, Influence};
    // Vertex 0 has five influences, the last of 1/2000: it is dropped, the other four
    // normalised, rounded to bytes (0.5 + w · 255) and adjusted to total 255.
    let weights = [0.4, 0.3, 0.2, 0.0995, 0.0005];
    let five: Vec<Influence> = weights
        .iter()
        .enumerate()
        .map(|(b, &w)| Influence::weighted(b as u32, w, [0.0, 0.0, 1.0], [0.0, 0.0, 1.0]))
        .collect();
    let one = |bone: u32, p: [f32; 3]| vec![Influence::weighted(bone, 1.0, p, [0.0, 0.0, 1.0])];
    let dpm = Builder {
        bones: (0..5).map(|i| BoneDef::new(format!("b{i}"), -1)).collect(),
        meshes: vec![MeshDef {
            shader: b"skin".to_vec(),
            vertices: vec![five, one(1, [1.0, 0.0, 0.0]), one(2, [0.0, 1.0, 0.0])],
            texcoords: vec![[0.0; 2]; 3],
            triangles: vec![[0, 1, 2]],
            group_ids: vec![0],
        }],
        frames: vec![FrameDef::new("still", vec![IDENTITY; 5])],
        bounds: None,
    }
    .write()
    .unwrap();
    let model = Model::from_bytes(&dpm).unwrap();
    let converted = convert::to_iqm(&model).unwrap();
    assert_eq!(converted.reduced_vertices, 1);
    let b = &converted.builder;
    let v = b
        .positions
        .iter()
        .position(|p| *p == [0.0, 0.0, 1.0])
        .unwrap();
    assert_eq!(b.blend_indexes[v], [0, 1, 2, 3]);
    assert_eq!(b.blend_weights[v], [102, 77, 51, 25]);
    assert_eq!(
        b.blend_weights
            .iter()
            .filter(|w| **w == [255, 0, 0, 0])
            .count(),
        2
    );
}

/// The `assimp` command, if installed (the `assimp-utils` package); CI requires it.
fn assimp() -> Option<std::path::PathBuf> {
    let found = std::process::Command::new("assimp")
        .arg("version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        assert!(
            std::env::var_os("SKELMAP_REQUIRE_ASSIMP").is_none(),
            "assimp is not installed and SKELMAP_REQUIRE_ASSIMP is set"
        );
        eprintln!("SKIPPED: the assimp command is not installed");
        return None;
    }
    Some("assimp".into())
}

#[test]
fn written_iqms_open_in_assimp_with_the_same_static_geometry() {
    let Some(assimp) = assimp() else { return };
    let dir = std::env::temp_dir().join(format!("skelmap-convert-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut files = corpus_files("dpm");
    files.extend(corpus_files("ms3d"));
    files.extend(corpus_next_files("iqm"));
    let mut checked = 0;
    for path in files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = std::fs::read(&path).unwrap();
        let source = Model::from_bytes(&bytes).unwrap();
        let Ok(converted) = convert::to_iqm(&source) else {
            continue;
        };
        let written = converted.builder.write().unwrap();
        let iqm = dir.join(format!("{name}.iqm"));
        let obj = dir.join(format!("{name}.obj"));
        std::fs::write(&iqm, &written).unwrap();
        let out = std::process::Command::new(&assimp)
            .arg("export")
            .arg(&iqm)
            .arg(&obj)
            .output()
            .unwrap();
        assert!(out.status.success(), "{name}: assimp: {out:?}");
        let text = String::from_utf8_lossy(&std::fs::read(&obj).unwrap()).into_owned();
        // assimp turns IQM's Z-up into Y-up: (x, y, z) → (x, z, −y).
        let theirs: Vec<Vec3> = text
            .lines()
            .filter(|l| l.starts_with("v "))
            .map(|l| {
                let v: Vec<f32> = l
                    .split_whitespace()
                    .skip(1)
                    .map(|x| x.parse().unwrap())
                    .collect();
                Vec3::new(v[0], -v[2], v[1])
            })
            .collect();
        let model = Model::from_bytes(&written).unwrap();
        let iqm_view = model.as_iqm().unwrap().mesh();
        let ours: Vec<Vec3> = (0..iqm_view.num_vertices())
            .filter_map(|v| iqm_view.position(v))
            .map(Vec3::from_array)
            .collect();
        let (lo, hi) = ours.iter().fold(
            (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)),
            |(lo, hi), p| (lo.min(*p), hi.max(*p)),
        );
        let tolerance = 1e-4 * (hi - lo).length();
        let key = |p: &Vec3| (*p / tolerance.max(1e-12)).round().as_ivec3().to_array();
        let mut a: Vec<_> = ours.iter().map(key).collect();
        let mut b: Vec<_> = theirs.iter().map(key).collect();
        for set in [&mut a, &mut b] {
            set.sort_unstable();
            set.dedup();
        }
        let near = |p: &Vec3, set: &[Vec3]| set.iter().any(|q| (*p - *q).length() <= tolerance);
        if a != b {
            assert!(
                ours.iter().all(|p| near(p, &theirs)),
                "{name}: a vertex assimp lacks"
            );
            assert!(
                theirs.iter().all(|p| near(p, &ours)),
                "{name}: an assimp vertex we lack"
            );
        }
        checked += 1;
    }
    eprintln!("{checked} written IQMs: assimp's static geometry equals ours");
    let _ = std::fs::remove_dir_all(&dir);
}
