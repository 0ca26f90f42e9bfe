//! Shared helpers: the shared corpus, its MANIFEST, fixtures and byte patching. The DPM tube
//! (and its SKM conversion) is here; the fixtures of other formats that tests outside their
//! format's folder use are in one module a format.

pub mod gamestudio;
pub mod iqm;
pub mod mdl7;
pub mod ms3d;
pub mod oracle;
pub mod quake;
pub mod slmdl;

use skelmap::{Diagnostics, Error, Format, Limits, Parse, Problem};

use skelmap::core::dpm;
use skelmap::core::synth;

/// Where the shared corpus is, and skipping or failing without it: see `skelmap_testkit`.
pub use skelmap_testkit::{
    corpus_engines_path as corpus_engines_dir, corpus_files, corpus_next_files,
    corpus_next_path as corpus_next_dir, corpus_path as corpus_dir,
};

/// One row of a MANIFEST.md table: file name, size, sha256 and the header summary column.
#[derive(Debug, Clone)]
pub struct ManifestRow {
    pub file: String,
    pub size: u64,
    pub sha256: String,
    pub summary: String,
}

impl ManifestRow {
    /// The integer after `key ` in the summary (`"bones 63"` → 63).
    pub fn count(&self, key: &str) -> u64 {
        let needle = format!("{key} ");
        let at = self
            .summary
            .find(&needle)
            .unwrap_or_else(|| panic!("{}: no '{key}' in MANIFEST summary", self.file));
        let digits: String = self.summary[at + needle.len()..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        digits.parse().unwrap()
    }

    /// The text after `key ` up to the next `;` or `|`.
    pub fn field(&self, key: &str) -> Option<&str> {
        let needle = format!("{key} ");
        let at = self.summary.find(&needle)? + needle.len();
        let rest = &self.summary[at..];
        let end = rest.find([';', '|']).unwrap_or(rest.len());
        Some(rest[..end].trim())
    }
}

/// The rows of corpus/MANIFEST.md in the section of corpus folder `folder` (the section
/// heading ends with `` `folder/` ``): folders can share an extension (`mdl/`, `mdl_quake/`).
pub fn manifest(folder: &str) -> Vec<ManifestRow> {
    manifest_in(corpus_dir(""), folder)
}

/// [`manifest`] of corpus-next/MANIFEST.md (IQM, MDL7).
pub fn manifest_next(folder: &str) -> Vec<ManifestRow> {
    manifest_in(corpus_next_dir(""), folder)
}

/// [`manifest`] of corpus-engines/MANIFEST.md (MD3, MD2, MDC, MD5, Half-Life MDL).
pub fn manifest_engines(folder: &str) -> Vec<ManifestRow> {
    manifest_in(corpus_engines_dir(""), folder)
}

/// The rows of `dir`/MANIFEST.md in the section of `folder`.
fn manifest_in(dir: Option<std::path::PathBuf>, folder: &str) -> Vec<ManifestRow> {
    let Some(dir) = dir else {
        return Vec::new();
    };
    let text = std::fs::read_to_string(dir.join("MANIFEST.md")).unwrap();
    let heading = format!("`{folder}/`");
    let mut inside = false;
    let mut rows = Vec::new();
    for line in text.lines() {
        if line.starts_with("## ") {
            inside = line.trim_end().ends_with(&heading);
            continue;
        }
        if !inside || !line.starts_with("| `") {
            continue;
        }
        let cells: Vec<&str> = line.split(" | ").collect();
        let file = cells[0].trim_start_matches("| `").trim_end_matches('`');
        rows.push(ManifestRow {
            file: file.to_string(),
            size: cells[1].parse().unwrap(),
            sha256: cells[2].trim_matches('`').to_string(),
            summary: cells[6..].join(" | "),
        });
    }
    rows
}

/// The default procedural tube: 4 bones (the last an attachment), 1 mesh of 136 vertices and
/// 256 triangles, 9 frames (`bind`, `wave_1` … `wave_8`).
pub fn tube_builder() -> dpm::Builder {
    synth::tube(&synth::TubeParams::default())
}

/// The default tube, written, with the offsets of its structures.
pub fn tube() -> (Vec<u8>, dpm::Layout) {
    tube_builder().write_with_layout().unwrap()
}

pub fn put_u32(bytes: &mut [u8], at: u64, v: u32) {
    let at = at as usize;
    bytes[at..at + 4].copy_from_slice(&v.to_be_bytes());
}

pub fn put_i32(bytes: &mut [u8], at: u64, v: i32) {
    put_u32(bytes, at, v as u32);
}

pub fn put_f32(bytes: &mut [u8], at: u64, v: f32) {
    put_u32(bytes, at, v.to_bits());
}

pub fn get_u32(bytes: &[u8], at: u64) -> u32 {
    let at = at as usize;
    u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap())
}

/// Header field offsets (`docs/formats/dpm.md` § Layout).
pub mod hdr {
    pub const TYPE: u64 = 16;
    pub const FILESIZE: u64 = 20;
    pub const MINS: u64 = 24;
    pub const NUM_BONES: u64 = 56;
    pub const NUM_MESHS: u64 = 60;
    pub const NUM_FRAMES: u64 = 64;
    pub const OFS_BONES: u64 = 68;
    pub const OFS_MESHS: u64 = 72;
}

/// The default tube converted to SKM + SKP (4 bones, 1 mesh of 136 vertices, 9 frames).
pub fn tube_skm() -> (
    (Vec<u8>, skelmap::core::skm::write::MeshLayout),
    (Vec<u8>, skelmap::core::skm::write::SkeletonLayout),
) {
    let (dpm, _) = tube();
    let model = skelmap::dpm::Dpm::parse(&dpm).unwrap();
    let c = skelmap::skm::convert::from_dpm(&model, &mut skelmap::Diagnostics::new());
    (
        c.skm.write_with_layout().unwrap(),
        c.skp.write_with_layout().unwrap(),
    )
}

pub fn put_u16_le(bytes: &mut [u8], at: u64, v: u16) {
    let at = at as usize;
    bytes[at..at + 2].copy_from_slice(&v.to_le_bytes());
}

pub fn put_u32_le(bytes: &mut [u8], at: u64, v: u32) {
    let at = at as usize;
    bytes[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

pub fn put_f32_le(bytes: &mut [u8], at: u64, v: f32) {
    put_u32_le(bytes, at, v.to_bits());
}

/// The skinning levels this CPU runs (the others fall back and would only repeat a lower
/// level).
pub fn levels() -> Vec<skelmap::skin::SimdLevel> {
    skelmap::skin::SimdLevel::ALL
        .into_iter()
        .filter(|l| l.is_supported())
        .collect()
}

/// Positions and normals.
pub type Streams = (Vec<[f32; 3]>, Vec<[f32; 3]>);

/// `n` zero positions and normals.
pub fn zeros(n: usize) -> Streams {
    (vec![[0.0; 3]; n], vec![[0.0; 3]; n])
}

/// The error `T` gives `bytes` under `limits` (the test fails when it opens).
pub fn parse_error<'d, T: Parse<'d>>(bytes: &'d [u8], limits: &Limits) -> Error {
    T::parse_with(bytes, limits, &mut Diagnostics::new())
        .map(|_| ())
        .expect_err("broken file accepted")
}

/// The warnings of a file `T` opens (the test fails when it does not).
pub fn parse_warnings<'d, T: Parse<'d>>(bytes: &'d [u8]) -> Diagnostics {
    let mut diag = Diagnostics::new();
    T::parse_with(bytes, &Limits::default(), &mut diag).expect("file opens");
    diag
}

/// `(format, what, offset, problem)` of an [`Error::Invalid`].
pub fn invalid_parts(e: &Error) -> (Format, &'static str, u64, Problem) {
    match e {
        Error::Invalid {
            format,
            what,
            offset,
            problem,
        } => (*format, what, *offset, *problem),
        other => panic!("not an Invalid error: {other}"),
    }
}

/// `(what, offset, need, have)` of an [`Error::Truncated`] of `expected`'s.
pub fn truncated_parts(e: &Error, expected: Format) -> (&'static str, u64, u64, u64) {
    match e {
        Error::Truncated {
            format,
            what,
            offset,
            need,
            have,
        } => {
            assert_eq!(*format, expected);
            (what, *offset, *need, *have)
        }
        other => panic!("not a Truncated error: {other}"),
    }
}

/// `model`'s clips as `(name, first, count, fps, looped)`, in order.
pub fn clips<'m>(model: &'m skelmap::Model<'_>) -> Vec<(&'m str, u32, u32, f32, bool)> {
    (model.clips().iter())
        .map(|c| (c.name.as_str(), c.first, c.count, c.fps, c.looped))
        .collect()
}

/// `model`'s warnings as `(kind, detail)`, in order.
pub fn warnings<'m>(model: &'m skelmap::Model<'_>) -> Vec<(skelmap::WarningKind, &'m str)> {
    (model.diagnostics().warnings().iter())
        .map(|w| (w.kind, w.detail.as_str()))
        .collect()
}

/// Every vertex of mesh 0 of `model` deformed at frame `k` (the writers' tests: a converted
/// model against the asset it was made from).
pub fn frame_vertices(model: &skelmap::Model<'_>, k: usize) -> Vec<[f32; 3]> {
    let mut pose = skelmap::model::Pose::default();
    model
        .pose(k, k, 0.0, skelmap::pose::Interpolation::Nlerp, &mut pose)
        .unwrap();
    let n = model.mesh(0).unwrap().num_vertices();
    let (mut p, mut q) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
    model.deform(0, &pose, &mut p, &mut q).unwrap();
    p
}

/// How many of `asset`'s vertices have more than one influence (what a writer of one-bone
/// vertices cuts and says it cut).
pub fn blended_vertices(asset: &skelmap::asset::Asset) -> usize {
    (asset.meshes.iter())
        .map(|m| {
            (0..m.positions.len())
                .filter(|&v| m.influences.of(v).len() > 1)
                .count()
        })
        .sum()
}

/// The shared DPM, MS3D and IQM files: the skeletal models that assimp and every writer read.
pub fn skeletal_corpus_files() -> Vec<std::path::PathBuf> {
    let mut files = corpus_files("dpm");
    files.extend(corpus_files("ms3d"));
    files.extend(corpus_next_files("iqm"));
    files
}

/// The files a writer made as an in-memory folder, the main one at `m/out.<extension>`: the
/// table `Model::resolve` reads, and the main path.
pub fn written_folder(
    w: &skelmap::asset::Written,
    extension: &str,
) -> (std::collections::HashMap<String, Vec<u8>>, String) {
    let main = std::path::PathBuf::from(format!("m/out.{extension}"));
    let files = w
        .files
        .iter()
        .map(|f| {
            let path = f.place.clone().path(&main);
            (path.to_string_lossy().into_owned(), f.bytes.clone())
        })
        .collect();
    (files, main.to_string_lossy().into_owned())
}
