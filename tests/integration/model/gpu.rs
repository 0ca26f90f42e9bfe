//! `Model::gpu_mesh` and `Model::gpu_error`: the GPU buffers of every skeletal corpus model
//! and of synthetic models of every skeletal format, at every influence count and
//! precision: exact weight sums, exact counts, and the shader reference
//! (`gpu::Mesh::skin_vertex`) held to the model's own kernels (`Model::deform`) within the
//! error `gpu_error` reports.

use std::collections::HashMap;
use std::path::PathBuf;

use skelmap::glam::Vec3A;
use skelmap::gpu::{self, Error, Influences, Precision};
use skelmap::model::Pose;
use skelmap::model::convert::{self, SkinningError};
use skelmap::pose::Interpolation;
use skelmap::{Limits, Model, Parse, iqm, ms3d, synth};

use crate::support::{corpus_files, corpus_next_files, tube_skm};

/// The four choices `skelmap info` reports, in its order.
const CHOICES: [(&str, Influences, Precision); 4] = [
    ("top4_unorm8", Influences::Four, Precision::Unorm8),
    ("top4_unorm16", Influences::Four, Precision::Unorm16),
    ("top8_unorm8", Influences::Eight, Precision::Unorm8),
    ("top8_unorm16", Influences::Eight, Precision::Unorm16),
];

fn options(influences: Influences, precision: Precision) -> gpu::Options {
    gpu::Options {
        influences,
        precision,
        ..gpu::Options::default()
    }
}

/// The buffers' shape: one entry per vertex in every buffer, weights summing exactly to one,
/// indices inside the vertices and covered by the draws, one inverse bind per bone and one
/// for unbound vertices.
fn check_shape(model: &Model<'_>, mesh: &gpu::Mesh, sets: usize, one: u32, what: &str) {
    let n = mesh.positions.len();
    assert_eq!(
        (mesh.normals.len(), mesh.uvs.len(), mesh.sources.len()),
        (n, n, n),
        "{what}"
    );
    assert_eq!(mesh.skin.num_sets(), sets, "{what}");
    assert!(mesh.skin.joints.iter().all(|j| j.len() == n), "{what}");
    for v in 0..n {
        let sum: u32 = (0..4 * sets)
            .map(|k| mesh.skin.influence(v, k).unwrap().1)
            .sum();
        assert_eq!(sum, one, "{what}: vertex {v}");
        let [m, s] = mesh.sources[v];
        let source = model.mesh(m as usize).unwrap();
        assert!((s as usize) < source.num_vertices(), "{what}");
    }
    assert_eq!(mesh.indices.len() % 3, 0, "{what}");
    assert!(mesh.indices.iter().all(|&i| (i as usize) < n), "{what}");
    let drawn: u32 = mesh.draws.iter().map(|d| d.num_indices).sum();
    assert_eq!(drawn as usize, mesh.indices.len(), "{what}");
    assert_eq!(mesh.inverse_binds.len(), model.num_bones() + 1, "{what}");
}

/// At up to 24 frames spread over the model's, every vertex the shader reference skins lies
/// within `error.max` of where `Model::deform` puts it, and over those frames the largest
/// distance is no more than the one reported.
fn reference_within(model: &Model<'_>, mesh: &gpu::Mesh, error: &SkinningError, what: &str) {
    let frames = model.num_frames();
    let step = frames.div_ceil(24).max(1);
    let limit = error.max * error.size.max(f32::MIN_POSITIVE) * (1.0 + 1e-5) + 1e-7;
    let mut pose = Pose::default();
    let mut palette = Vec::new();
    let exact_of = |pose: &Pose| -> Vec<Vec<[f32; 3]>> {
        model
            .meshes()
            .map(|m| {
                let n = m.num_vertices();
                let (mut p, mut q) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
                model.deform(m.index(), pose, &mut p, &mut q).unwrap();
                p
            })
            .collect()
    };
    for f in (0..frames.max(1)).step_by(step) {
        if frames == 0 {
            model.pose_bind(&mut pose);
        } else {
            model
                .pose(f, f, 0.0, Interpolation::Nlerp, &mut pose)
                .unwrap();
        }
        let exact = exact_of(&pose);
        mesh.palette(&pose, &mut palette).unwrap();
        for (v, &[m, s]) in mesh.sources.iter().enumerate() {
            let want = Vec3A::from_array(exact[m as usize][s as usize]);
            let (got, _) = mesh.skin_vertex(v, &palette).unwrap();
            let d = want.distance(Vec3A::from_array(got));
            assert!(d <= limit, "{what}: frame {f} vertex {v}: {d} > {limit}");
        }
    }
}

/// Builds, checks and measures every choice for `model`; returns the four errors.
fn every_choice(model: &Model<'_>, what: &str) -> Vec<SkinningError> {
    let all: Vec<gpu::Options> = CHOICES.iter().map(|&(_, i, p)| options(i, p)).collect();
    let errors = model.gpu_errors(&all).unwrap();
    for ((name, influences, precision), error) in CHOICES.iter().zip(&errors) {
        let what = format!("{what} {name}");
        let mesh = model.gpu_mesh(&options(*influences, *precision)).unwrap();
        let sets = if *influences == Influences::Four {
            1
        } else {
            2
        };
        check_shape(model, &mesh, sets, precision.one(), &what);
        assert_eq!(error.vertices, mesh.positions.len(), "{what}");
        assert_eq!(error.frames, model.num_frames().max(1), "{what}");
        assert!(error.rms <= error.max, "{what}: {error}");
        reference_within(model, &mesh, error, &what);
    }
    errors
}

fn skeletal_corpus() -> Vec<PathBuf> {
    let mut files = crate::support::skeletal_corpus_files();
    files.extend(corpus_next_files("mdl7"));
    files
}

#[test]
fn every_skeletal_corpus_model_has_exact_buffers_within_the_reported_error() {
    let mut measured = 0;
    for path in skeletal_corpus() {
        let model = Model::open(&path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if model.num_bones() == 0 {
            assert_eq!(
                model.gpu_mesh(&gpu::Options::default()),
                Err(Error::NotSkeletal),
                "{name}"
            );
            continue;
        }
        let errors = every_choice(&model, &name);
        eprintln!(
            "{name}: {}",
            errors
                .iter()
                .map(|e| format!("{:.2e}/{:.2e}", e.max, e.rms))
                .collect::<Vec<_>>()
                .join("  ")
        );
        // Formats that store bind-pose vertices with at most 4 influences: the buffers lose
        // only the weights' rounding.
        if model.as_dpm().is_none() {
            assert!(errors[3].max < 1e-3, "{name}: {errors:?}");
        }
        measured += 1;
    }
    if !skeletal_corpus().is_empty() {
        assert_eq!(measured, 17);
    }
}

#[test]
fn vertex_animated_models_have_no_gpu_skin() {
    for path in corpus_files("mdl")
        .into_iter()
        .chain(corpus_files("mdl_quake"))
    {
        let model = Model::open(&path).unwrap();
        assert_eq!(
            model.gpu_mesh(&gpu::Options::default()),
            Err(Error::NotSkeletal),
            "{}",
            path.display()
        );
        assert_eq!(
            model.gpu_error(&gpu::Options::default()),
            Err(Error::NotSkeletal)
        );
    }
}

/// Synthetic models of every skeletal format: the tube as DPM, as SKM + SKP, through an
/// asset as IQM and MS3D, and the SL twist.
#[test]
fn synthetic_models_of_every_skeletal_format_skin_like_their_kernels() {
    let dpm = synth::tube(&Default::default()).write().unwrap();
    let tube = Model::from_bytes(&dpm).unwrap();
    let asset = convert::asset_of(&tube).unwrap();
    let iqm = iqm::Builder::from_asset(&asset)
        .unwrap()
        .builder
        .write()
        .unwrap();
    let ms3d = ms3d::Builder::from_asset(&asset)
        .unwrap()
        .builder
        .write()
        .unwrap();
    let ((skm, _), (skp, _)) = tube_skm();
    let (sl, anim) = synth::sl_twist(4, 8, 120.0);
    let (sl, anim) = (sl.write(), anim.write());
    fn pair<'a>(a: (&str, &'a [u8]), b: (&str, &'a [u8])) -> Model<'a> {
        let files: HashMap<String, &[u8]> = [(a.0.to_string(), a.1), (b.0.to_string(), b.1)].into();
        Model::resolve(&files, a.0, &Limits::DEFAULT).unwrap()
    }
    let models = [
        ("DPM", Model::from_bytes(&dpm).unwrap()),
        ("IQM", Model::from_bytes(&iqm).unwrap()),
        ("MS3D", Model::from_bytes(&ms3d).unwrap()),
        ("SKM", pair(("t.skm", &skm), ("t.skp", &skp))),
        ("SL", pair(("twist.mdl", &sl), ("twist.anim", &anim))),
    ];
    for (what, model) in &models {
        let errors = every_choice(model, what);
        eprintln!("{what}: {errors:?}");
        // One or two influences a vertex, agreeing on the bind pose: only rounding is lost.
        assert!(errors[0].max < 5e-3, "{what}: {errors:?}");
        assert!(errors[3].max < 1e-4, "{what}: {errors:?}");
    }
}

#[test]
fn within_picks_by_the_model_frames() {
    let Some(path) = corpus_files("dpm")
        .into_iter()
        .find(|p| p.ends_with("xon_monsters_nanomage_lod2.dpm"))
    else {
        return;
    };
    let model = Model::open(path).unwrap();
    let sets = |t| {
        model
            .gpu_mesh(&options(Influences::Within(t), Precision::Unorm16))
            .unwrap()
            .skin
            .num_sets()
    };
    // Up to 11 influences a vertex: 4 moves some vertex, 8 is chosen at no tolerance.
    assert_eq!((sets(0.0), sets(1.0)), (2, 1));
    assert_eq!(
        model.gpu_mesh(&options(Influences::Within(-1.0), Precision::Unorm8)),
        Err(Error::Tolerance(-1.0))
    );
}

/// The vertex-animation buffers of every vertex-animated corpus model (MD3, MD2, Quake,
/// GameStudio MDL) and of the MD3 and MD2 fixtures: the file's records copied as they are,
/// a grid per frame and mesh, every drawn vertex naming a record, and the shader reference
/// (`MorphMesh::tween_vertex`) on every frame and halfway between frames within 1e-5 of
/// the size of `Model::deform`. Skeletal models, and an MD3 of tags only, have none.
#[test]
fn vertex_animated_models_hand_their_packed_frames_to_a_shader() {
    let mut files: Vec<PathBuf> = corpus_files("mdl");
    files.extend(corpus_files("mdl_quake"));
    for sub in ["md3", "md2"] {
        if let Some(dir) = crate::support::corpus_engines_dir(sub) {
            files.extend(std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()));
        }
    }
    files.sort();
    let mut models: Vec<(String, Vec<u8>)> = files
        .iter()
        .map(|p| (p.display().to_string(), std::fs::read(p).unwrap()))
        .collect();
    models.push(("md3 fixture".into(), crate::md3::animated().write()));
    models.push(("md2 fixture".into(), crate::md2::animated().write()));
    for (name, bytes) in &models {
        let model = Model::from_bytes(bytes).unwrap();
        if model.num_meshes() == 0 {
            // An MD3 of tags only has no frames of vertices to hand over.
            assert_eq!(model.gpu_morph(), Err(Error::NotVertexAnimated), "{name}");
            continue;
        }
        let morph = model.gpu_morph().unwrap();
        let (frames, meshes) = (model.num_frames(), model.num_meshes());
        assert_eq!((morph.frames, morph.meshes), (frames, meshes), "{name}");
        assert_eq!(morph.grids.len(), frames * meshes, "{name}");
        assert_eq!(morph.records_per_frame, model.num_vertices(), "{name}");
        assert_eq!(
            morph.records.len(),
            frames * model.num_vertices() * morph.packing.stride(),
            "{name}"
        );
        assert_eq!(morph.normals.len(), 256);
        assert!(
            morph
                .vertices
                .iter()
                .all(|v| (v.record as usize) < morph.records_per_frame),
            "{name}"
        );
        let drawn: u32 = morph.draws.iter().map(|d| d.num_indices).sum();
        assert_eq!(drawn as usize, morph.indices.len(), "{name}");
        assert_eq!(morph.indices.len(), 3 * model.num_triangles(), "{name}");
        let error = model.gpu_morph_error().unwrap();
        assert_eq!(error.frames, 2 * frames - 1, "{name}");
        assert_eq!(error.vertices, morph.vertices.len(), "{name}");
        assert!(error.max < 1e-5, "{name}: {error}");
        eprintln!("{name}: {:?}, {error}", morph.packing);
    }
    let dpm = synth::tube(&Default::default()).write().unwrap();
    let tube = Model::from_bytes(&dpm).unwrap();
    assert_eq!(tube.gpu_morph(), Err(Error::NotVertexAnimated));
}

/// An MD3's records are its frame's bytes, read back exactly: 1/64 unit a coordinate, the
/// normal from latitude and longitude; an MD2 vertex is its frame's grid.
#[test]
fn morph_buffers_keep_the_records_and_grids_of_the_file() {
    let bytes = crate::md3::animated().write();
    let model = Model::from_bytes(&bytes).unwrap();
    let morph = model.gpu_morph().unwrap();
    assert_eq!(morph.packing, gpu::Packing::LatLong);
    let md3 = skelmap::md3::Md3::parse(&bytes).unwrap();
    let body = &md3.surfaces()[0];
    let stride = morph.records_per_frame * 8;
    let frame1: Vec<u8> = body
        .frame_vertices(1)
        .unwrap()
        .iter()
        .flat_map(|v| {
            let r = v.xyz.map(|c| c.get().to_le_bytes());
            [r[0], r[1], r[2], v.normal.get().to_le_bytes()].concat()
        })
        .collect();
    assert_eq!(
        &morph.records[stride..stride + 8 * body.num_vertices()],
        frame1
    );
    assert_eq!(
        morph.grids[0].scale,
        [1.0 / 64.0, 1.0 / 64.0, 1.0 / 64.0, 0.0]
    );
    let bytes = crate::md2::animated().write();
    let model = Model::from_bytes(&bytes).unwrap();
    let morph = model.gpu_morph().unwrap();
    let md2 = skelmap::md2::Md2::parse(&bytes).unwrap();
    for f in 0..model.num_frames() {
        let frame = md2.frames().get(f).unwrap();
        let [x, y, z] = frame.scale();
        assert_eq!(morph.grids[f].scale, [x, y, z, 0.0]);
    }
}

/// A DPM whose vertex 0, at the origin, weighs 0.4, 0.3 and three bit-identical 0.1 on
/// bones 0 to 4, all bound at the identity; vertices 1 and 2 hang on bone 0 alone. With
/// `swing`, frame 1 moves bone 4 (the last of the three tied at the cut) 10 units along X.
/// By weight, ties to the lower bone, the four kept are 0 to 3, which miss bone 4's pull of
/// 1 unit; keeping 0, 1, 2 and 4 misses a ninth of it (bones 2 and 3 swap in a tie the
/// first listed wins). Golem's worst vertex has this shape.
pub(super) fn tied_at_the_cut(swing: bool) -> Vec<u8> {
    use skelmap::dpm::{self, BoneDef, FrameDef, Influence, MeshDef};
    let weights: [f32; 5] = [0.4, 0.3, 0.1, 0.1, 0.1];
    let mut b = dpm::Builder {
        bones: (0..5).map(|j| BoneDef::new(format!("b{j}"), -1)).collect(),
        ..dpm::Builder::default()
    };
    let up = [0.0, 0.0, 1.0];
    let vertex0 = weights
        .iter()
        .enumerate()
        .map(|(j, &w)| Influence::weighted(j as u32, w, [0.0; 3], up))
        .collect();
    b.meshes.push(MeshDef {
        shader: b"tied".to_vec(),
        vertices: vec![
            vertex0,
            vec![Influence::weighted(0, 1.0, [1.0, 0.0, 0.0], up)],
            vec![Influence::weighted(0, 1.0, [0.0, 1.0, 0.0], up)],
        ],
        texcoords: vec![[0.0; 2]; 3],
        triangles: vec![[0, 1, 2]],
        group_ids: vec![0],
    });
    b.frames
        .push(FrameDef::new("bind", vec![dpm::write::IDENTITY; 5]));
    if swing {
        let mut poses = vec![dpm::write::IDENTITY; 5];
        poses[4][0][3] = 10.0;
        b.frames.push(FrameDef::new("swing", poses));
    }
    b.write().unwrap()
}

/// The four influences (joint, weight) of the GPU vertex made from source vertex 0.
fn first_vertex_influences(mesh: &gpu::Mesh) -> Vec<(u16, u32)> {
    let v = mesh.sources.iter().position(|s| *s == [0, 0]).unwrap();
    (0..4).map(|k| mesh.skin.influence(v, k).unwrap()).collect()
}

/// `tied_at_the_cut`: the buffers keep bones 0, 1, 2 and 4, and `gpu_error` is exactly what
/// their rounded weights miss of bone 4's pull, a ninth of the unit the heaviest four miss,
/// over the bind diagonal (√2); the note says one vertex differs from its heaviest four.
#[test]
fn gpu_buffers_keep_the_tied_bone_that_moves() {
    let bytes = tied_at_the_cut(true);
    let model = Model::from_bytes(&bytes).unwrap();
    for precision in [Precision::Unorm8, Precision::Unorm16] {
        let what = format!("{precision:?}");
        let choice = options(Influences::Four, precision);
        let mesh = model.gpu_mesh(&choice).unwrap();
        let kept = first_vertex_influences(&mesh);
        assert_eq!(
            kept.iter().map(|k| k.0).collect::<Vec<_>>(),
            [0, 1, 2, 4],
            "{what}"
        );
        assert_eq!(
            mesh.notes,
            [
                "1 vertices had more than 4 influences; the 4 whose largest error over 2 frames \
              is smallest were kept (1 differ from the 4 heaviest)"
            ],
            "{what}"
        );
        // Bone 4 carries a ninth of the kept weight, rounded: the vertex lands at 10 times
        // that, where the file puts it at 1.
        let one = precision.one() as f32;
        let missed = (10.0 * kept[3].1 as f32 / one - 1.0).abs();
        assert!((missed - 1.0 / 9.0).abs() < 5.0 / one, "{what}: {missed}");
        let error = model.gpu_error(&choice).unwrap();
        assert_eq!(error.size, 2f32.sqrt(), "{what}");
        assert!(
            (error.max * error.size - missed).abs() < 1e-6,
            "{what}: {error} against {missed}"
        );
        // The heaviest four would have missed bone 4's whole pull: 1 unit.
        assert!(error.max * error.size < 0.15, "{what}: {error}");
    }
}

/// The same vertex in a model of one frame: nothing moves to choose by, so the buffers keep
/// the heaviest four (bones 0 to 3, the tie to the lower bones), and the note says why.
#[test]
fn gpu_buffers_of_one_frame_keep_the_heaviest() {
    let bytes = tied_at_the_cut(false);
    let model = Model::from_bytes(&bytes).unwrap();
    let mesh = model
        .gpu_mesh(&options(Influences::Four, Precision::Unorm16))
        .unwrap();
    let kept = first_vertex_influences(&mesh);
    assert_eq!(kept.iter().map(|k| k.0).collect::<Vec<_>>(), [0, 1, 2, 3]);
    assert_eq!(
        mesh.notes,
        [
            "1 vertices had more than 4 influences; their 4 heaviest were kept (1 frames: no \
          motion to choose by)"
        ]
    );
}
