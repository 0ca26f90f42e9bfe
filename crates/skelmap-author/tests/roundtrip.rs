//! Round trips through glTF: every corpus skeletal model goes out to glTF (every influence
//! kept), comes back through the importer, and is written into its own format and into every
//! other skeletal format; each frame of what those files draw is compared with the source as
//! sets of points.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use skelmap_core::asset::{Asset, FitError};
use skelmap_core::model::convert::{self, Posed};
use skelmap_core::{Limits, Model, dpm, iqm, ms3d, skm, slmdl};
use skelmap_export::gltf::{self, write_glb};

/// The skeletal formats, with the error a round trip may cost there beyond what the writer
/// names as lost: float rounding, or bytes for weights (IQM, MS3D).
const FORMATS: [(&str, f32); 5] = [
    ("dpm", 1e-4),
    ("skm", 1e-4),
    ("iqm", 5e-4),
    ("ms3d", 5e-4),
    ("sl", 1e-4),
];

/// Files by the names the resolver finds, the main one, the frame offset (SL starts with the
/// bind pose) and what the writer said it lost.
type Written = (HashMap<String, Vec<u8>>, String, usize, Vec<String>);

/// `asset` written as `format`.
fn write(asset: &Asset, format: &str) -> Result<Written, FitError> {
    let mut files = HashMap::new();
    let (losses, offset) = match format {
        "dpm" => {
            let f = dpm::Builder::from_asset(asset)?;
            files.insert("m.dpm".to_string(), f.builder.write().unwrap());
            (f.losses, 0)
        }
        "iqm" => {
            let f = iqm::Builder::from_asset(asset)?;
            files.insert("m.iqm".to_string(), f.builder.write().unwrap());
            (f.losses, 0)
        }
        "ms3d" => {
            let f = ms3d::Builder::from_asset(asset)?;
            files.insert("m.ms3d".to_string(), f.builder.write().unwrap());
            (f.losses, 0)
        }
        "skm" => {
            let f = skm::write::Builder::from_asset(asset)?;
            files.insert("m.skm".to_string(), f.builder.skm.write().unwrap());
            files.insert("m.skp".to_string(), f.builder.skp.write().unwrap());
            (f.losses, 0)
        }
        _ => {
            let f = slmdl::write::Builder::from_asset(asset)?;
            files.insert("m.mdl".to_string(), f.builder.mesh.write());
            if let Some(anim) = &f.builder.animation {
                files.insert("m.anim".to_string(), anim.write());
            }
            (f.losses, usize::from(asset.skeleton.is_some()))
        }
    };
    let main = if format == "sl" {
        "m.mdl".into()
    } else {
        format!("m.{format}")
    };
    Ok((files, main, offset, losses))
}

/// Every skeletal corpus model with meshes, as an asset cut to its first clips (at most 48
/// frames), with its path.
fn corpus() -> Vec<(PathBuf, Asset)> {
    let mut files = skelmap_testkit::corpus_files("dpm");
    files.extend(skelmap_testkit::corpus_files("ms3d"));
    files.extend(skelmap_testkit::corpus_next_files("iqm"));
    files.extend(skelmap_testkit::corpus_next_files("mdl7"));
    files
        .into_iter()
        .filter_map(|path| {
            let model = Model::open(&path).unwrap();
            if model.num_bones() == 0 || model.num_meshes() == 0 {
                return None;
            }
            let mut asset = convert::asset_of(&model).unwrap();
            let mut frames = 0;
            asset.retain_clips(|c| {
                frames += c.len();
                frames - c.len() < 48
            });
            Some((path, asset))
        })
        .collect()
}

fn name(path: &Path) -> String {
    path.file_name().unwrap().to_string_lossy().into_owned()
}

/// `back` (an asset read from glTF) into every skeletal format, each compared with `source`.
fn into_every_format(label: &str, source: &Asset, back: &Asset, rows: &mut Vec<String>) {
    for (format, bound) in FORMATS {
        let (files, main, offset, losses) =
            write(back, format).unwrap_or_else(|e| panic!("{label} → {format}: {e}"));
        let model = Model::resolve(&&files, &main, &Limits::DEFAULT).unwrap();
        let error = convert::skinning_error(Posed::Asset(source), Posed::Model(&model), offset);
        rows.push(format!(
            "{label} → glTF → {format}: {error}; {}",
            losses.join("; ")
        ));
        let lossy = losses
            .iter()
            .any(|l| l.contains("influences") || l.contains("scale"));
        if !lossy {
            assert!(error.max <= bound, "{label} → glTF → {format}: {error}");
        }
    }
}

/// `source` out to glTF with every influence, back through the importer, and into every
/// skeletal format: a row per format.
fn round_trip(path: &Path, source: &Asset) -> Vec<String> {
    let mut glb = Vec::new();
    let options = gltf::Options {
        all_influences: true,
        ..gltf::Options::default()
    };
    write_glb(source, &options, &mut glb).unwrap();
    let back = skelmap_author::gltf::from_slice(&glb, None, &Default::default())
        .unwrap_or_else(|e| panic!("{}: {e}", name(path)));
    let joints = |a: &Asset| a.skeleton.as_ref().map_or(0, |s| s.joints.len());
    assert_eq!(joints(&back), joints(source), "{}", name(path));
    assert_eq!(back.num_frames(), source.num_frames(), "{}", name(path));
    let mut rows = Vec::new();
    into_every_format(&name(path), source, &back, &mut rows);
    rows
}

#[test]
fn every_corpus_skeletal_model_comes_back_from_gltf_into_every_format() {
    let corpus = corpus();
    // The models on every core: each is independent, and one at a time this test was the
    // slowest of its crate.
    let rows: Vec<String> = corpus
        .par_iter()
        .flat_map_iter(|(path, source)| round_trip(path, source))
        .collect();
    eprintln!("{}", rows.join("\n"));
    assert_eq!(rows.len(), corpus.len() * FORMATS.len());
}
