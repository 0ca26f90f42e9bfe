//! Every DPM in ../shared/corpus/dpm opens and agrees with corpus/MANIFEST.md: size, sha256,
//! bone/root/mesh/frame/vertex/triangle counts, the largest influence count, the range of
//! per-vertex influence sums, shader names, zero-weight entries and duplicate bone names.

use sha2::{Digest, Sha256};
use skelmap::Parse;
use skelmap::{Diagnostics, Limits, SkeletalMesh, Skeleton, Source, dpm::Dpm};

use crate::support::{corpus_dir, manifest};

#[test]
fn every_corpus_dpm_matches_the_manifest() {
    let Some(dir) = corpus_dir("dpm") else { return };
    let rows = manifest("dpm");
    let on_disk = std::fs::read_dir(&dir).unwrap().count();
    assert_eq!(
        rows.len(),
        on_disk,
        "MANIFEST rows vs files in {}",
        dir.display()
    );
    assert_eq!(rows.len(), 10);

    for row in &rows {
        let path = dir.join(&row.file);
        let source = Source::read(&path).unwrap();
        let bytes = source.bytes();
        assert_eq!(bytes.len() as u64, row.size, "{}", row.file);
        assert_eq!(
            format!("{:x}", Sha256::digest(bytes)),
            row.sha256,
            "{}",
            row.file
        );

        let mut diag = Diagnostics::new();
        let m = Dpm::parse_with(bytes, &Limits::default(), &mut diag)
            .unwrap_or_else(|e| panic!("{}: {e}", row.file));
        assert!(diag.is_empty(), "{}: {:?}", row.file, diag.warnings());
        assert_eq!(
            u64::from(m.header().filesize.get()),
            row.size,
            "filesize field == size"
        );

        let name = &row.file;
        assert_eq!(m.num_bones() as u64, row.count("bones"), "{name} bones");
        assert_eq!(
            m.roots().count() as u64,
            row.count("(roots"),
            "{name} roots"
        );
        assert_eq!(m.num_meshes() as u64, row.count("meshes"), "{name} meshes");
        assert_eq!(m.num_frames() as u64, row.count("frames"), "{name} frames");
        assert_eq!(m.num_vertices() as u64, row.count("verts"), "{name} verts");
        assert_eq!(m.num_triangles() as u64, row.count("tris"), "{name} tris");
        assert!(
            m.bones().all(|b| b.flags() == 0),
            "{name}: all bone flags are 0"
        );

        let (mut max_weights, mut zero, mut lo, mut hi) = (0usize, 0u64, f32::MAX, f32::MIN);
        for mesh in m.meshes() {
            for records in mesh.vertices() {
                max_weights = max_weights.max(records.len());
                zero += records.iter().filter(|r| r.influence() == 0.0).count() as u64;
                let sum: f32 = records.iter().map(|r| r.influence()).sum();
                lo = lo.min(sum);
                hi = hi.max(sum);
            }
            assert_eq!(mesh.texcoords().len(), mesh.num_vertices());
            assert!(
                mesh.triangles()
                    .flatten()
                    .all(|i| (i as usize) < mesh.num_vertices())
            );
        }
        assert_eq!(
            max_weights as u64,
            row.count("weights/vert"),
            "{name} max weights/vert"
        );

        let range = row.field("influence-sum").unwrap();
        let (want_lo, want_hi) = range.split_once("..").unwrap();
        let (want_lo, want_hi): (f32, f32) = (want_lo.parse().unwrap(), want_hi.parse().unwrap());
        assert!(
            (lo - want_lo).abs() <= 2e-6 && (hi - want_hi).abs() <= 2e-6,
            "{name}: sums {lo}..{hi} vs {range}"
        );

        let shaders: Vec<String> = m
            .meshes()
            .map(|x| x.shader_name_lossy().into_owned())
            .collect();
        assert_eq!(
            shaders.join(", "),
            row.field("shaders:").unwrap(),
            "{name} shaders"
        );

        if let Some(notes) = row.field("NOTES:")
            && notes.contains("influence exactly 0.0")
        {
            let want: u64 = notes.split_whitespace().next().unwrap().parse().unwrap();
            assert_eq!(zero, want, "{name} zero-influence entries");
        }
        let mut names: Vec<&[u8]> = m.bones().map(|b| b.name()).collect();
        names.sort();
        let duplicates = names.windows(2).any(|w| w[0] == w[1]);
        assert_eq!(
            duplicates,
            row.summary.contains("duplicate bone names"),
            "{name} duplicate names"
        );
    }
}
