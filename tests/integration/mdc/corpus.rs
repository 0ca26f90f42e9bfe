//! The shared MDC (`corpus-engines/mdc`) against its MANIFEST row and assimp: exact counts;
//! frame 0 equal to assimp's OBJ as sets of points; several frames equal to what assimp 5.2.5
//! loads with `AI_CONFIG_IMPORT_MDC_KEYFRAME`, read with assimp's own (different) decoding;
//! every tween equal to the per-vertex decode.

use skelmap::mdc::Mdc;
use skelmap::model::Pose;
use skelmap::pose::Interpolation;
use skelmap::skin::SimdLevel;
use skelmap::{Diagnostics, Format, Limits, Model, Parse, WarningKind};

use crate::support::oracle::{assert_same_points, assimp_frame, keyframe_tool, obj_points};
use crate::support::{corpus_engines_dir, manifest_engines};

#[test]
fn the_shared_mdc_matches_the_manifest() {
    let Some(dir) = corpus_engines_dir("mdc") else {
        return;
    };
    let rows = manifest_engines("mdc");
    assert_eq!(rows.len(), 1);
    for row in &rows {
        let name = &row.file;
        let bytes = std::fs::read(dir.join(name)).unwrap();
        assert_eq!(bytes.len() as u64, row.size, "{name}");
        let mut diag = Diagnostics::new();
        let m = Mdc::parse_with(&bytes, &Limits::default(), &mut diag)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(diag.is_empty(), "{name}: {:?}", diag.warnings());
        assert_eq!(m.num_frames() as u64, row.count("frames"), "{name}");
        assert_eq!(m.num_tags() as u64, row.count("tags"), "{name}");
        assert_eq!(m.surfaces().len() as u64, row.count("surfaces"), "{name}");
        let verts: usize = m.surfaces().iter().map(|s| s.num_vertices()).sum();
        let tris: usize = m.surfaces().iter().map(|s| s.num_triangles()).sum();
        assert_eq!(verts as u64, row.count("verts"), "{name}");
        assert_eq!(tris as u64, row.count("tris"), "{name}");
        for s in m.surfaces() {
            assert_eq!(s.num_base_frames() as u64, row.count("base"), "{name}");
            assert_eq!(
                s.num_comp_frames() as u64,
                row.count("compressed"),
                "{name}"
            );
            assert_eq!(
                i64::from(s.header().ident.get()),
                row.count("surface ident") as i64
            );
        }
        let model = Model::from_bytes(&bytes).unwrap();
        assert_eq!(model.format(), Format::Mdc);
        // The Blender exporter measured every frame's radius from the centre of its box, not
        // from its origin (0, 0, 0): a vertex lies 141.98 units out, past the radius 128.87.
        let diag = model.diagnostics();
        let bounds = diag.get(WarningKind::Bounds).unwrap();
        assert_eq!(
            (bounds.what, bounds.offset, bounds.count),
            ("frame.radius", 148, 250)
        );
        assert_eq!(diag.warnings().len(), 1, "{name}");
        crate::exercise::model(&model);
    }
}

/// Every surface's frame `f` through `Model::deform`, at the triangles' corners (assimp
/// unwelds them).
fn frame_corners(model: &Model<'_>, f: usize) -> Vec<[f32; 3]> {
    let mut pose = Pose::default();
    model
        .pose(f, f, 0.0, Interpolation::Nlerp, &mut pose)
        .unwrap();
    let mut out = Vec::new();
    for mesh in model.meshes() {
        let n = mesh.num_vertices();
        let (mut p, mut q) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
        model.deform(mesh.index(), &pose, &mut p, &mut q).unwrap();
        out.extend(
            (0..mesh.num_triangles())
                .flat_map(|t| mesh.triangle(t).unwrap())
                .map(|v| p[v as usize]),
        );
    }
    out
}

/// Frame 0 (a base frame) equals assimp's OBJ as sets of points within 1e-3 of the size,
/// assimp's axes being `(x, z, −y)`, after assimp's addition of the frame's `localOrigin`.
#[test]
fn the_shared_mdc_matches_assimp_on_frame_0() {
    let Some(dir) = corpus_engines_dir("mdc") else {
        return;
    };
    let oracle = corpus_engines_dir("oracle").unwrap();
    for row in manifest_engines("mdc") {
        let name = &row.file;
        let obj = std::fs::read_to_string(oracle.join(format!("{name}.obj"))).unwrap();
        let theirs = obj_points(&obj);
        let bytes = std::fs::read(dir.join(name)).unwrap();
        let origin = Mdc::parse(&bytes).unwrap().frame(0).unwrap().local_origin;
        let o = origin.map(|v| v.get());
        let model = Model::from_bytes(&bytes).unwrap();
        let ours: Vec<_> = frame_corners(&model, 0)
            .iter()
            .map(|v| [v[0] + o[0], v[2] + o[2], -(v[1] + o[1])])
            .collect();
        assert_same_points(&ours, &theirs, name);
    }
}

/// Frame `f` as assimp 5.2.5 decodes it, from our view's records: the base vertex plus, for
/// a compressed frame, `(byte − 127) · 4/64` an axis (the engines use 0.05) and the frame's
/// `localOrigin` twice (the engines add none); for a base frame, `localOrigin` once.
fn assimp_decoding(m: &Mdc<'_>, f: usize) -> Vec<[f32; 3]> {
    let o = m.frame(f).unwrap().local_origin.map(|v| v.get());
    let mut out = Vec::new();
    for s in m.surfaces() {
        let base = s.base_vertices(s.base_frame(f).unwrap()).unwrap();
        let comp = s.comp_frame(f).filter(|_| f > 0);
        for t in 0..s.num_triangles() {
            for v in s.triangle(t).unwrap() {
                let b = base[v as usize].xyz.map(|c| f32::from(c.get()));
                let p = match comp {
                    Some(c) => {
                        let bytes = s.comp_vertices(c).unwrap()[v as usize]
                            .ofs_vec
                            .get()
                            .to_le_bytes();
                        core::array::from_fn(|k| {
                            let d = (f32::from(bytes[k]) - 127.0) * 4.0;
                            2.0 * o[k] + (b[k] + d) / 64.0
                        })
                    }
                    None => core::array::from_fn(|k| b[k] / 64.0 + o[k]),
                };
                out.push(p);
            }
        }
    }
    out
}

/// The first, a middle and the last frame equal what assimp loads with its keyframe option
/// as sets of points, once assimp's decoding is applied to our records (which shows the
/// base and compressed frames we pick are assimp's); the engines' decoding, which skelmap
/// implements, differs from assimp's in the compressed step (0.05, not 1/16) and the origin.
#[test]
fn several_frames_match_assimp_with_its_keyframe_option() {
    let Some(dir) = corpus_engines_dir("mdc") else {
        return;
    };
    let Some(tool) = keyframe_tool("AI_CONFIG_IMPORT_MDC_KEYFRAME") else {
        return;
    };
    let mut compared = 0;
    for row in manifest_engines("mdc") {
        let path = dir.join(&row.file);
        let bytes = std::fs::read(&path).unwrap();
        let m = Mdc::parse(&bytes).unwrap();
        let frames = m.num_frames();
        for f in [0, 1, frames / 2, frames - 1] {
            let theirs = assimp_frame(&tool, &path, f);
            let ours = assimp_decoding(&m, f);
            assert_eq!(ours.len(), theirs.len());
            assert_same_points(&ours, &theirs, &format!("{} frame {f}", row.file));
            compared += 1;
        }
    }
    assert_eq!(compared, 4);
}

/// Every tween (at every SIMD level, between a base and a compressed frame, two compressed
/// frames, the last and the first) equals the per-vertex decode blended.
#[test]
fn tweens_equal_the_decoded_frames_blended() {
    let Some(dir) = corpus_engines_dir("mdc") else {
        return;
    };
    for row in manifest_engines("mdc") {
        let bytes = std::fs::read(dir.join(&row.file)).unwrap();
        let m = Mdc::parse(&bytes).unwrap();
        let last = m.num_frames() - 1;
        for (mesh, s) in m.surfaces().iter().enumerate() {
            let n = s.num_vertices();
            let (mut p, mut q) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
            for (a, b) in [(0, 0), (0, 1), (1, 2), (last, 0), (120, 121)] {
                for level in SimdLevel::ALL {
                    m.tween_with_level(level, mesh, a, b, 0.25, &mut p, &mut q)
                        .unwrap();
                    for v in 0..n {
                        let (pa, pb) = (s.position(a, v).unwrap(), s.position(b, v).unwrap());
                        for k in 0..3 {
                            let want = pa[k] + 0.25 * (pb[k] - pa[k]);
                            assert!((p[v][k] - want).abs() <= 1e-5 * want.abs().max(1.0));
                        }
                        let len = q[v].iter().map(|c| c * c).sum::<f32>().sqrt();
                        assert!((len - 1.0).abs() < 1e-5, "{}", row.file);
                    }
                }
            }
        }
    }
}

/// The shared MDC's compressed frames add nothing to its base frame, so the test above
/// cannot tell offsets apart. The animated fixture's frames 1, 2, 4 and 5 add real offsets
/// (frames 1 and 2 from base frame 0, which assimp indexes correctly): assimp's keyframes of
/// those equal assimp's decoding of our records, and frame 0 (a base frame) as well.
#[test]
fn compressed_frames_with_offsets_match_assimp_with_its_keyframe_option() {
    let Some(tool) = keyframe_tool("AI_CONFIG_IMPORT_MDC_KEYFRAME") else {
        return;
    };
    let dir = tempfile::Builder::new()
        .prefix("skelmap-mdc-keyframes-")
        .tempdir()
        .unwrap();
    let dir = dir.path();
    let path = dir.join("animated.mdc");
    let bytes = super::animated().write();
    std::fs::write(&path, &bytes).unwrap();
    let m = Mdc::parse(&bytes).unwrap();
    for f in [0, 1, 2] {
        if f > 0 {
            let s = &m.surfaces()[0];
            assert_eq!(
                (s.base_frame(f), s.comp_frame(f).is_some()),
                (Some(0), true)
            );
        }
        let theirs = assimp_frame(&tool, &path, f);
        let ours = assimp_decoding(&m, f);
        assert_eq!(ours.len(), theirs.len());
        assert_same_points(&ours, &theirs, &format!("animated frame {f}"));
    }
}
