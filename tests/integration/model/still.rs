//! The one-frame path (`model/still.rs`): on a model of one frame, `Model::deform`,
//! `Prepared::skin` and `Compact::skin` copy what their kernels gave for that frame, bit for
//! bit, and skin any other pose; `Model::static_mesh` and `Model::static_clip` bake it.

use skelmap::Model;
use skelmap::gamestudio::HmpBuilder;
use skelmap::model::{DeformError, Pose, StaticMesh};
use skelmap::pose::Interpolation;
use skelmap::pose::framegroups::FrameGroup;
use skelmap::skin::morph::MorphError;
use skelmap::skin::{SimdLevel, SkinError, SkinMatrices, VertexOrder};
use skelmap::synth::{TubeParams, tube};

use crate::support::corpus_files;

type Vertices = (Vec<[f32; 3]>, Vec<[f32; 3]>);

/// Bits of positions and normals, so that `-0.0` and `0.0` differ.
fn bits((p, n): &Vertices) -> Vec<u32> {
    p.iter().chain(n).flatten().map(|v| v.to_bits()).collect()
}

fn buffers(n: usize) -> Vertices {
    (vec![[f32::NAN; 3]; n], vec![[f32::NAN; 3]; n])
}

fn one_frame_tube() -> Vec<u8> {
    let params = TubeParams {
        frames: 1,
        ..TubeParams::default()
    };
    tube(&params).write().unwrap()
}

fn frame_zero(model: &Model<'_>) -> Pose {
    let mut pose = Pose::default();
    model
        .pose(0, 0, 0.0, Interpolation::Nlerp, &mut pose)
        .unwrap();
    pose
}

/// Checks, on a skeletal model of one frame, that every copy path gives its kernel's result
/// for frame 0 bit for bit, twice (the first deform bakes, the second copies), and that
/// `static_mesh` holds the deformed vertices. Returns the meshes checked.
fn copies_are_the_kernels(model: &Model<'_>, name: &str) -> usize {
    assert_eq!(model.num_frames(), 1, "{name}");
    let pose = frame_zero(model);
    let level = SimdLevel::detect();
    let baked: StaticMesh = model.static_mesh().unwrap();
    let prepared = model.prepare().unwrap();
    let compact = model.compact().unwrap();
    let mut matrices = SkinMatrices::default();
    compact.matrices(&pose, &mut matrices).unwrap();
    assert_eq!(baked.num_meshes(), model.num_meshes(), "{name}");
    for m in 0..model.num_meshes() {
        let n = model.mesh(m).unwrap().num_vertices();
        // The stream kernel over the file's records, as `deform` runs it.
        let mut stream = buffers(n);
        let records = model.records(m).unwrap();
        records
            .skin_stream(pose.matrices(), level, &mut stream.0, &mut stream.1)
            .unwrap();
        for _ in 0..2 {
            let mut out = buffers(n);
            model.deform(m, &pose, &mut out.0, &mut out.1).unwrap();
            assert_eq!(bits(&out), bits(&stream), "{name} mesh {m}: deform");
        }
        let stored = (
            baked.positions(m).unwrap().to_vec(),
            baked.normals(m).unwrap().to_vec(),
        );
        assert_eq!(bits(&stored), bits(&stream), "{name} mesh {m}: static_mesh");

        let mut kernel = buffers(n);
        let mesh = prepared.mesh(m).unwrap();
        let order = VertexOrder::Original;
        mesh.skin(pose.matrices(), level, order, &mut kernel.0, &mut kernel.1)
            .unwrap();
        for order in [VertexOrder::Original, VertexOrder::Prepared] {
            let mut want = buffers(n);
            mesh.skin(pose.matrices(), level, order, &mut want.0, &mut want.1)
                .unwrap();
            let mut out = buffers(n);
            prepared
                .skin(m, &pose, level, order, &mut out.0, &mut out.1)
                .unwrap();
            assert_eq!(
                bits(&out),
                bits(&want),
                "{name} mesh {m}: prepared {order:?}"
            );
        }

        let mut want = buffers(n);
        let mesh = compact.mesh(m).unwrap();
        mesh.skin(
            &matrices,
            level,
            VertexOrder::Original,
            &mut want.0,
            &mut want.1,
        )
        .unwrap();
        let mut out = buffers(n);
        compact
            .skin(m, &matrices, level, &mut out.0, &mut out.1)
            .unwrap();
        assert_eq!(bits(&out), bits(&want), "{name} mesh {m}: compact");
    }
    model.num_meshes()
}

#[test]
fn a_one_frame_tube_copies_what_each_kernel_gives() {
    let bytes = one_frame_tube();
    let model = Model::from_bytes(&bytes).unwrap();
    assert_eq!(copies_are_the_kernels(&model, "tube"), 1);
}

#[test]
fn every_one_frame_corpus_dpm_copies_what_each_kernel_gives() {
    let mut one_frame = Vec::new();
    for path in corpus_files("dpm") {
        let bytes = std::fs::read(&path).unwrap();
        let model = Model::from_bytes(&bytes).unwrap();
        if model.num_frames() == 1 {
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            copies_are_the_kernels(&model, &name);
            one_frame.push(name);
        }
    }
    if !corpus_files("dpm").is_empty() {
        assert_eq!(
            one_frame,
            ["xon_onslaught_reactor", "xon_vehicles_wakizashi_cockpit"]
        );
    }
}

#[test]
fn another_pose_on_a_one_frame_model_is_skinned_not_copied() {
    let bytes = one_frame_tube();
    let model = Model::from_bytes(&bytes).unwrap();
    // The same skeleton, animated: frames 1 and 2 of the nine-frame tube.
    let animated = tube(&TubeParams::default()).write().unwrap();
    let animated = Model::from_bytes(&animated).unwrap();
    let mut pose = Pose::default();
    animated
        .pose(1, 2, 0.5, Interpolation::Nlerp, &mut pose)
        .unwrap();
    let n = model.mesh(0).unwrap().num_vertices();
    let level = SimdLevel::detect();
    let mut want = buffers(n);
    let records = model.records(0).unwrap();
    records
        .skin_stream(pose.matrices(), level, &mut want.0, &mut want.1)
        .unwrap();
    let baked = model.static_mesh().unwrap();
    assert_ne!(
        want.0,
        baked.positions(0).unwrap(),
        "the pose moves the tube"
    );
    let mut out = buffers(n);
    model.deform(0, &pose, &mut out.0, &mut out.1).unwrap();
    assert_eq!(bits(&out), bits(&want));

    let prepared = model.prepare().unwrap();
    let mut out = buffers(n);
    let order = VertexOrder::Original;
    prepared
        .skin(0, &pose, level, order, &mut out.0, &mut out.1)
        .unwrap();
    let mut kernel = buffers(n);
    prepared
        .mesh(0)
        .unwrap()
        .skin(pose.matrices(), level, order, &mut kernel.0, &mut kernel.1)
        .unwrap();
    assert_eq!(bits(&out), bits(&kernel));

    // Frame 0 at another level runs that level's kernel.
    let pose = frame_zero(&model);
    let mut portable = buffers(n);
    records
        .skin_stream(
            pose.matrices(),
            SimdLevel::Portable,
            &mut portable.0,
            &mut portable.1,
        )
        .unwrap();
    let mut out = buffers(n);
    model
        .deform_with_level(0, &pose, SimdLevel::Portable, &mut out.0, &mut out.1)
        .unwrap();
    assert_eq!(bits(&out), bits(&portable));
}

#[test]
fn a_copy_refuses_what_the_kernels_refuse() {
    let bytes = one_frame_tube();
    let model = Model::from_bytes(&bytes).unwrap();
    let pose = frame_zero(&model);
    let n = model.mesh(0).unwrap().num_vertices();
    let (mut p, mut q) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n - 1]);
    for _ in 0..2 {
        assert_eq!(
            model.deform(0, &pose, &mut p, &mut q),
            Err(DeformError::Skin(SkinError::Output {
                need: n,
                have: n - 1
            }))
        );
    }
    assert_eq!(
        model.deform(1, &pose, &mut p, &mut q),
        Err(DeformError::NoMesh { mesh: 1, meshes: 1 })
    );
    let baked = model.static_mesh().unwrap();
    assert_eq!(
        baked.copy(0, &mut p, &mut q),
        Err(DeformError::Skin(SkinError::Output {
            need: n,
            have: n - 1
        }))
    );
    assert_eq!(
        baked.copy(1, &mut p, &mut q),
        Err(DeformError::NoMesh { mesh: 1, meshes: 1 })
    );
    // Longer outputs keep what lies past the mesh.
    let (mut p, mut q) = (vec![[7.0; 3]; n + 1], vec![[7.0; 3]; n + 1]);
    baked.copy(0, &mut p, &mut q).unwrap();
    assert_eq!((p[n], q[n]), ([7.0; 3], [7.0; 3]));
    assert_eq!(&p[..n], baked.positions(0).unwrap());
}

#[test]
fn a_one_frame_terrain_copies_its_tween_and_refuses_as_the_morph() {
    let terrain = HmpBuilder {
        row: 3.0,
        frames: vec![(0..6).map(|i| (i * 10, [0, 0])).collect()],
        ..HmpBuilder::default()
    }
    .write();
    let model = Model::from_bytes(&terrain).unwrap();
    let n = model.mesh(0).unwrap().num_vertices();
    let pose = frame_zero(&model);
    let mut first = buffers(n);
    model
        .deform_with_level(0, &pose, SimdLevel::Portable, &mut first.0, &mut first.1)
        .unwrap();
    for _ in 0..2 {
        let mut out = buffers(n);
        model.deform(0, &pose, &mut out.0, &mut out.1).unwrap();
        let stored = model.static_mesh().unwrap();
        let stored = (
            stored.positions(0).unwrap().to_vec(),
            stored.normals(0).unwrap().to_vec(),
        );
        assert_eq!(bits(&out), bits(&stored));
        assert_eq!(out.0, first.0);
    }
    let (mut p, mut q) = (vec![[0.0; 3]; n - 1], vec![[0.0; 3]; n]);
    assert!(matches!(
        model.deform(0, &pose, &mut p, &mut q),
        Err(DeformError::Morph(MorphError::Output { .. }))
    ));
}

#[test]
fn only_one_frame_is_static() {
    let bytes = tube(&TubeParams::default()).write().unwrap();
    let model = Model::from_bytes(&bytes).unwrap();
    assert_eq!(
        model.static_mesh(),
        Err(DeformError::NotStatic { frames: 9 })
    );
    let clip = |first, count| FrameGroup {
        name: "clip".into(),
        first,
        count,
        fps: 10.0,
        looped: false,
    };
    assert_eq!(
        model.static_clip(&clip(0, 2)),
        Err(DeformError::NotStatic { frames: 2 })
    );
    assert!(matches!(
        model.static_clip(&clip(9, 1)),
        Err(DeformError::Clip { first: 9, .. })
    ));
    // A clip of one frame is that frame, as deform gives it.
    let held = model.static_clip(&clip(4, 1)).unwrap();
    let mut pose = Pose::default();
    model
        .pose(4, 4, 0.0, Interpolation::Nlerp, &mut pose)
        .unwrap();
    let n = model.mesh(0).unwrap().num_vertices();
    let mut out = buffers(n);
    model.deform(0, &pose, &mut out.0, &mut out.1).unwrap();
    assert_eq!(out.0, held.positions(0).unwrap());
    assert_eq!(out.1, held.normals(0).unwrap());
}

/// `model`'s bind pose is its kept bind palette, bit for bit, and deforms every mesh into
/// `stored`, its vertices as the file stores them, bit for bit (a copy, not the blend); the
/// prepared kernel's blend by the same pose
/// lands within `tolerance` of them, and frame `frame` (another pose) is blended.
fn bind_pose_is_the_stored_mesh(
    model: &Model<'_>,
    stored: &[Vertices],
    tolerance: f32,
    frame: usize,
) {
    let mut pose = Pose::default();
    model.pose_bind(&mut pose);
    let world_bits = |p: &skelmap::pose::Palette| -> Vec<u32> {
        let cols = p.world.iter().flat_map(|m| m.to_cols_array());
        cols.map(f32::to_bits).collect()
    };
    assert_eq!(world_bits(pose.palette()), world_bits(model.bind_palette()));
    let prepared = model.prepare().unwrap();
    for (m, want) in stored.iter().enumerate() {
        let mut got = buffers(want.0.len());
        model.deform(m, &pose, &mut got.0, &mut got.1).unwrap();
        assert_eq!(bits(&got), bits(want), "mesh {m}");
        let mut blended = buffers(want.0.len());
        prepared
            .skin(
                m,
                &pose,
                SimdLevel::detect(),
                VertexOrder::Original,
                &mut blended.0,
                &mut blended.1,
            )
            .unwrap();
        let far = blended.0.iter().flatten().zip(want.0.iter().flatten());
        let d = far.map(|(a, b)| (a - b).abs()).fold(0.0f32, f32::max);
        assert!(
            d <= tolerance,
            "mesh {m}: the blend strays {d} from the stored mesh"
        );
        let mut other = Pose::default();
        model
            .pose(frame, frame, 0.0, Interpolation::Nlerp, &mut other)
            .unwrap();
        model.deform(m, &other, &mut got.0, &mut got.1).unwrap();
        assert_ne!(
            bits(&got),
            bits(want),
            "mesh {m}: frame {frame} is another pose"
        );
    }
}

#[test]
fn an_iqm_in_its_bind_pose_is_its_stored_mesh() {
    use skelmap::synth::{CharacterParams, iqm_character};
    let b = iqm_character(&CharacterParams::default()).model;
    let bytes = b.write().unwrap();
    let model = Model::from_bytes(&bytes).unwrap();
    bind_pose_is_the_stored_mesh(&model, &[(b.positions, b.normals)], 1e-4, 0);
}

#[test]
fn an_mdl7_in_its_bind_pose_is_its_stored_mesh() {
    let bytes = crate::support::mdl7::demo().write();
    let model = Model::from_bytes(&bytes).unwrap();
    // The stored vertices, as the bind-pose mesh reads them.
    let mesh = model.as_mdl7().unwrap().bind_mesh();
    let n = skelmap::pose::BindPoseMesh::num_vertices(&mesh);
    let stored: Vertices = (0..n)
        .map(|i| {
            let v = skelmap::pose::BindPoseMesh::bind_vertex(&mesh, i).unwrap();
            (v.position.to_array(), v.normal.to_array())
        })
        .unzip();
    bind_pose_is_the_stored_mesh(&model, &[stored], 1e-4, model.num_frames() - 1);
}

/// A bind-posed model remembers, by the pose's stamp, that a pose is its stored one: the same
/// `Pose` written again (another frame, the bind pose again) is checked again.
#[test]
fn a_pose_written_again_is_checked_again_for_the_stored_pose() {
    let bytes = skelmap::iqm::Builder::demo().write().unwrap();
    let model = Model::from_bytes(&bytes).unwrap();
    let n = model.mesh(0).unwrap().num_vertices();
    let deformed = |pose: &Pose| {
        let mut out = buffers(n);
        model.deform(0, pose, &mut out.0, &mut out.1).unwrap();
        bits(&out)
    };
    let mut pose = Pose::default();
    model.pose_bind(&mut pose);
    let bind = deformed(&pose);
    assert_eq!(deformed(&pose), bind);
    model
        .pose(3, 3, 0.0, Interpolation::Nlerp, &mut pose)
        .unwrap();
    let three = deformed(&pose);
    assert_ne!(three, bind);
    let mut fresh = Pose::default();
    model
        .pose(3, 3, 0.0, Interpolation::Nlerp, &mut fresh)
        .unwrap();
    assert_eq!(deformed(&fresh), three);
    model.pose_bind(&mut pose);
    assert_eq!(deformed(&pose), bind);
    // A clone holds what its original holds, and is known by the same stamp.
    let copy = pose.clone();
    assert_eq!(deformed(&copy), bind);
}
