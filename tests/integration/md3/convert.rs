//! Every format skelmap reads converted into an MD3 (`--bake` where skeletal), its error
//! measured over every frame: MD3 adds at most the rounding of each coordinate to 1/64 unit,
//! so no vertex moves more than `√3 / 128` units from where the source draws it (plus float
//! rounding). ioquake3's limits hold in what is written (surfaces split at 4096 vertices and
//! 8192 triangles), or the writer's notes say which is passed.

use skelmap::asset::{Asset, WriteOptions};
use skelmap::md3::Md3;
use skelmap::md3::raw::{
    MD3_MAX_FRAMES, MD3_MAX_SURFACES, MD3_MAX_TAGS, MD3_MAX_TRIANGLES, MD3_MAX_VERTS,
};
use skelmap::model::convert::{self, Posed, SkinningError};
use skelmap::{Format, Model, Parse};

use crate::support::{corpus_engines_dir, corpus_files, corpus_next_files};

/// The farthest 1/64-unit rounding moves a point: half a step on each axis.
const ROUNDING: f32 = 1.732_050_8 / 128.0;

/// `asset` as an MD3, baked: the bytes and the notes.
fn md3_of(asset: &Asset) -> (Vec<u8>, Vec<String>) {
    let w = skelmap::model::write(Format::Md3, asset, &WriteOptions::bake(true)).unwrap();
    (w.files.into_iter().next().unwrap().bytes, w.notes)
}

/// Holds `bytes` to ioquake3's limits: a surface never past them, and the counts that can
/// be past them only with a note saying so.
fn check_limits(name: &str, bytes: &[u8], notes: &[String]) {
    let md3 = Md3::parse(bytes).unwrap();
    for s in md3.surfaces() {
        assert!(s.num_vertices() <= MD3_MAX_VERTS as usize, "{name}");
        assert!(s.num_triangles() <= MD3_MAX_TRIANGLES as usize, "{name}");
    }
    let counts = [
        (md3.num_frames(), MD3_MAX_FRAMES, "frames"),
        (md3.num_tags(), MD3_MAX_TAGS, "tags"),
        (md3.surfaces().len(), MD3_MAX_SURFACES, "surfaces"),
    ];
    for (count, max, what) in counts {
        let noted = notes
            .iter()
            .any(|n| n.starts_with(&format!("{count} {what}: past ioquake3's")));
        assert_eq!(
            count > max as usize,
            noted,
            "{name}: {count} {what}; {notes:?}"
        );
    }
}

/// Asserts the error is within the rounding, in units.
fn check_error(name: &str, error: &SkinningError) {
    let units = error.max * error.size;
    assert!(units <= ROUNDING + 1e-5 * error.size, "{name}: {error}");
}

#[test]
fn one_model_of_every_format_converts_within_the_rounding() {
    // The tube written as every format skelmap writes (baked where it has no joints), the
    // HMP field and an MD3 with tags: each read as its format, then converted to an MD3.
    let bytes = skelmap::synth::tube(&Default::default()).write().unwrap();
    let tube = convert::asset_of(&Model::from_bytes(&bytes).unwrap()).unwrap();
    let mut sources: Vec<(String, std::collections::HashMap<String, Vec<u8>>, String)> = Vec::new();
    for format in Format::ALL.iter().copied().filter(|f| f.writable()) {
        let written = skelmap::model::write(format, &tube, &WriteOptions::bake(true)).unwrap();
        let main = format!("m.{}", format.extension());
        let table = written
            .files
            .into_iter()
            .map(|f| {
                let path = f.place.path(std::path::Path::new(&main));
                (path.to_string_lossy().into_owned(), f.bytes)
            })
            .collect();
        sources.push((format!("{format:?}"), table, main));
    }
    let one = |name: &str, bytes: Vec<u8>| {
        let main = format!("m.{name}");
        (name.to_string(), [(main.clone(), bytes)].into(), main)
    };
    sources.push(one("hmp", crate::support::gamestudio::field().write()));
    sources.push(one("md3", super::animated().write()));
    let mut formats = Vec::new();
    for (name, table, main) in &sources {
        let source = Model::resolve(&table, main, &skelmap::Limits::DEFAULT).unwrap();
        formats.push(source.format());
        let (bytes, notes) = md3_of(&convert::asset_of(&source).unwrap());
        check_limits(name, &bytes, &notes);
        let md3 = Model::from_bytes(&bytes).unwrap();
        assert_eq!(md3.num_frames(), source.num_frames().max(1), "{name}");
        let error = convert::skinning_error(Posed::Model(&source), Posed::Model(&md3), 0);
        check_error(name, &error);
    }
    // Each source read as the format it was written as, and the HMP.
    let writable = Format::ALL.iter().copied().filter(|f| f.writable());
    for format in writable.chain([Format::Hmp]) {
        assert!(formats.contains(&format), "{format:?} in {formats:?}");
    }
}

#[test]
fn every_corpus_model_converts_within_the_rounding() {
    let mut files = Vec::new();
    for sub in ["dpm", "mdl", "hmp", "ms3d", "mdl_quake"] {
        files.extend(corpus_files(sub));
    }
    files.extend(corpus_next_files("iqm"));
    files.extend(corpus_next_files("mdl7"));
    for sub in ["md2", "md3"] {
        if let Some(dir) = corpus_engines_dir(sub) {
            files.extend(std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()));
        }
    }
    let mut rows = Vec::new();
    for path in files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let source = Model::open(&path).unwrap();
        if source.num_meshes() == 0 && source.num_tags() == 0 {
            continue; // an animation on its own
        }
        // The first clips, at most 48 frames, to keep the test quick.
        let mut asset = convert::asset_of(&source).unwrap();
        let mut frames = 0;
        asset.retain_clips(|c| {
            frames += c.len();
            frames - c.len() < 48
        });
        let (bytes, notes) = md3_of(&asset);
        check_limits(&name, &bytes, &notes);
        let md3 = Model::from_bytes(&bytes).unwrap();
        let error = convert::skinning_error(Posed::Asset(&asset), Posed::Model(&md3), 0);
        check_error(&name, &error);
        // An MD3's tags come back where they were, every frame.
        if let (Some(tags), Format::Md3) =
            (convert::attachment_error(&source, &md3, 0), source.format())
        {
            assert_eq!(
                (tags.kept, tags.origin, tags.angle),
                (tags.source, 0.0, 0.0),
                "{name}"
            );
        }
        rows.push(format!("{name}: {error}"));
    }
    eprintln!("{}", rows.join("\n"));
}

/// tinygltf's `singleBlendshapeCube_sparse.glb`, 0.0173 units across, came out of MD3's
/// 1/64-unit grid half its size off, with no word. Where the rounding moves a vertex by more
/// than 1e-3 of the size, the notes now say so; the tube (about 65 units) gets none.
#[test]
fn a_model_smaller_than_the_grid_can_keep_is_told_so() {
    let bytes = skelmap::synth::tube(&Default::default()).write().unwrap();
    let mut asset = convert::asset_of(&Model::from_bytes(&bytes).unwrap()).unwrap();
    let noted = |notes: &[String]| {
        notes
            .iter()
            .any(|n| n.starts_with("MD3 stores positions at 1/64 unit: a vertex moves up to 0.0"))
    };
    let (_, notes) = md3_of(&asset);
    assert!(!noted(&notes), "{notes:?}");
    for mesh in &mut asset.meshes {
        for p in &mut mesh.positions {
            *p = p.map(|c| c / 100.0);
        }
    }
    asset.skeleton = None;
    asset.clips.clear();
    let (_, notes) = md3_of(&asset);
    assert!(noted(&notes), "{notes:?}");
}
