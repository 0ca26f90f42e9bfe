//! Opening allocates O(meshes), not O(vertices) or O(frames): a counting global allocator
//! measures `Dpm::parse_with` and `Model::from_bytes` on models of very different sizes. (A separate
//! test binary, because the global allocator is process-wide; its tests run one at a time.)
#![allow(clippy::unwrap_used)]

use skelmap::Parse;
use std::alloc::System;

use skelmap::dpm::Dpm;
use skelmap::gamestudio;
use skelmap::gamestudio::write::MdlFrameDef;
use skelmap::ms3d;
use skelmap::quake;
use skelmap::quake::write::{FrameDef, FrameEntry};
use skelmap::synth::{TubeParams, tube};
use skelmap::{Diagnostics, Limits, Model, SkeletalMesh};
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};

// The counting allocator comes from `stats_alloc`, so that this test needs no `unsafe` of its
// own (unsafe code lives only where the project allows it).
#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// Held by each test, so that no other test allocates while one measures.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Allocations and bytes allocated while `f` runs (the caller holds [`ONE_AT_A_TIME`]), and
/// its result: the least of three runs. The lock keeps other tests out, not the harness: it
/// may still be allocating for the test before (a burst of 9 allocations once landed in a
/// measured open, failing CI; a Quake open once counted one allocation more), and such noise
/// only ever adds. The harness reports the test before as it ends, so measuring waits a
/// moment first.
fn measure<R>(f: impl Fn() -> R) -> (u64, u64, R) {
    std::thread::sleep(std::time::Duration::from_millis(20));
    let once = || {
        let region = Region::new(GLOBAL);
        let r = f();
        let change = region.change();
        (change.allocations as u64, change.bytes_allocated as u64, r)
    };
    let (mut allocs, mut bytes, mut r) = once();
    for _ in 0..2 {
        let (a, b, again) = once();
        if (a, b) < (allocs, bytes) {
            (allocs, bytes) = (a, b);
        }
        r = again;
    }
    (allocs, bytes, r)
}

fn model(rings_per_bone: u32) -> Vec<u8> {
    tube(&TubeParams {
        bones: 16,
        rings_per_bone,
        sides: 16,
        frames: 4,
        ..TubeParams::default()
    })
    .write()
    .unwrap()
}

/// Every vertex's first weight raised by 0.5, so every vertex triggers an influence-sum warning.
fn with_odd_sums(mut bytes: Vec<u8>) -> Vec<u8> {
    let m = Dpm::parse(&bytes).unwrap();
    let mut at = Vec::new();
    let mut verts = m.mesh(0).unwrap().vertices();
    loop {
        let offset = verts.offset();
        if verts.next().is_none() {
            break;
        }
        at.push(offset as usize + 4 + 12);
    }
    for a in at {
        let w = f32::from_be_bytes(bytes[a..a + 4].try_into().unwrap()) + 0.5;
        bytes[a..a + 4].copy_from_slice(&w.to_be_bytes());
    }
    bytes
}

#[test]
fn parse_allocation_does_not_grow_with_vertices() {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let small = model(1); // 17 rings × 16 = 272 vertices
    let large = model(400); // 6401 rings × 16 = 102 416 vertices

    for bytes in [&small, &large] {
        let (allocs, bytes_allocated, (result, diag)) = measure(|| {
            let mut diag = Diagnostics::new();
            let result =
                Dpm::parse_with(bytes, &Limits::default(), &mut diag).map(|m| m.num_vertices());
            (result, diag)
        });
        assert!(result.is_ok());
        assert!(diag.is_empty());
        assert_eq!(
            (allocs, bytes_allocated),
            (0, 0),
            "a clean file is opened without allocating"
        );
    }

    // Warnings on every vertex still cost one entry (one Vec slot and one detail string).
    let (small, large) = (with_odd_sums(small), with_odd_sums(large));
    let mut counts = Vec::new();
    for bytes in [&small, &large] {
        let (allocs, _, (result, diag)) = measure(|| {
            let mut diag = Diagnostics::new();
            let result = Dpm::parse_with(bytes, &Limits::default(), &mut diag).is_ok();
            (result, diag)
        });
        assert!(result);
        assert_eq!(diag.warnings().len(), 1);
        counts.push((allocs, diag.warnings()[0].count));
    }
    assert_eq!(
        counts[0].0, counts[1].0,
        "allocations independent of vertex count: {counts:?}"
    );
    assert!(counts[0].0 <= 3, "{counts:?}");
    assert_eq!((counts[0].1, counts[1].1), (272, 102_416));
}

/// An MS3D of `n` vertices (a fan of `n − 2` triangles) bound to two joints.
fn ms3d_model(n: u16) -> Vec<u8> {
    let vertices = (0..n)
        .map(|i| ([f32::from(i), f32::from(i % 7), 0.0], i8::from(i % 2 == 1)))
        .collect();
    let triangles = (2..n)
        .map(|i| ms3d::write::triangle([0, i - 1, i], [0.0, 0.0, 1.0], [[0.0; 2]; 3], 0))
        .collect();
    ms3d::Builder {
        vertices,
        triangles,
        groups: vec![ms3d::GroupDef {
            name: b"fan".to_vec(),
            triangles: (0..n - 2).collect(),
            material: -1,
        }],
        joints: vec![
            ms3d::JointDef {
                name: b"root".to_vec(),
                ..ms3d::JointDef::default()
            },
            ms3d::JointDef {
                name: b"tip".to_vec(),
                parent: b"root".to_vec(),
                rotation_keys: vec![(0.0, [0.0; 3]), (1.0, [0.0, 0.0, 1.0])],
                ..ms3d::JointDef::default()
            },
        ],
        ..ms3d::Builder::default()
    }
    .write()
    .unwrap()
}

#[test]
fn model_open_allocation_does_not_grow_with_vertices() {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let cases = [
        ("DPM", model(1), model(400)),
        ("MS3D", ms3d_model(300), ms3d_model(60_000)),
        ("ZYM", zym_model(3, 2), zym_model(3000, 200)),
        ("HL1", hl1_model(4, 1), hl1_model(2000, 200)),
        ("PSK", psk_model(3), psk_model(3000)),
    ];
    for (name, small, large) in cases {
        let counts = open_counts(name, [&small, &large], |_| ());
        assert!(counts[0].0 <= 8, "{name}: {counts:?}");
    }
}

/// The HL1 example with its strip made `n` vertices long and its `turn` sequence `frames`
/// frames of changing values: opening it allocates its mesh, sequence and skin tables,
/// whatever `n` and `frames`.
fn hl1_model(n: i16, frames: i16) -> Vec<u8> {
    use skelmap::hl1::{Builder, TrivertDef};
    let mut b = Builder::example();
    let strip = &mut b.bodyparts[0].models[0].meshes[0].commands[0].vertices;
    *strip = (0..n)
        .map(|i| TrivertDef {
            vertex: i % 5,
            normal: 0,
            s: i % 4,
            t: 0,
        })
        .collect();
    b.sequences[1].frames = (0..frames)
        .map(|k| vec![[k, 0, 0, 0, 0, k % 7], [0, 0, 0, 0, 0, k]])
        .collect();
    b.write().unwrap()
}

/// A ZYM of two shaders, `n` vertices on two bones in a fan of `n - 2` triangles, and `poses`
/// poses: opening it allocates its run table (one entry per shader), whatever `n` and
/// `poses`.
fn zym_model(n: u32, poses: usize) -> Vec<u8> {
    use skelmap::zym::{Builder, ShaderDef, VertexDef};
    let mut b = Builder::example();
    b.vertices = (0..n)
        .map(|i| VertexDef {
            bone: i % 2,
            origin: [i as f32, (i * 7 % 13) as f32, 1.0],
            texcoord: [0.0, 0.0],
        })
        .collect();
    let fan: Vec<[u32; 3]> = (1..n - 1).map(|i| [0, i, i + 1]).collect();
    let (a, c) = fan.split_at(fan.len() / 2);
    b.shaders = vec![
        ShaderDef {
            name: "a".into(),
            triangles: a.to_vec(),
        },
        ShaderDef {
            name: "b".into(),
            triangles: c.to_vec(),
        },
    ];
    b.poses = (0..poses).map(|k| b.poses[k % 3].clone()).collect();
    b.scenes[1].length = 1;
    b.write().unwrap()
}

/// Allocations and bytes allocated by `Model::from_bytes` of a `[small, large]` pair of clean
/// models, each opened model shown to `check`; equal for the two (the caller holds
/// [`ONE_AT_A_TIME`]).
fn open_counts(name: &str, pair: [&[u8]; 2], check: impl Fn(&Model<'_>)) -> [(u64, u64); 2] {
    let counts = pair.map(|bytes| {
        let (allocs, bytes_allocated, model) = measure(|| Model::from_bytes(bytes));
        let model = model.unwrap();
        assert!(model.diagnostics().is_empty(), "{name}");
        check(&model);
        (allocs, bytes_allocated)
    });
    eprintln!(
        "{name}: (allocations, bytes) small {:?}, large {:?}",
        counts[0], counts[1]
    );
    assert_eq!(
        counts[0], counts[1],
        "{name}: allocations and bytes, small vs large"
    );
    counts
}

/// An MDL5 triangle with `n` frames of 3 word-packed vertices, every `mix`-th of them
/// byte-packed instead (`mix` 0: none).
fn mdl_frames(n: u16, mix: u16) -> Vec<u8> {
    let frame = |k: u16| MdlFrameDef {
        frame_type: if mix > 0 && k % mix == 1 { 0 } else { 2 },
        name: format!("pose{k}").into_bytes(),
        vertices: vec![([0, 0, k % 200], 0), ([9, 0, 0], 1), ([0, 9, 0], 2)],
    };
    gamestudio::MdlBuilder {
        version: 5,
        scale: [1.0; 3],
        triangles: vec![([0, 1, 2], [0, 0, 0])],
        skin_vertices: vec![[0, 0]],
        frames: (0..n).map(frame).collect(),
        ..gamestudio::MdlBuilder::default()
    }
    .write()
}

/// A 2 × 2 HMP terrain (`version` 5 or 7) with `n` frames.
fn hmp_frames(version: u8, n: u16) -> Vec<u8> {
    gamestudio::HmpBuilder {
        version,
        frames: (0..n).map(|k| vec![(k, [0, 0]); 4]).collect(),
        ..gamestudio::HmpBuilder::default()
    }
    .write()
}

/// A Quake triangle with `n` poses: single frames, or (`grouped`) one single then groups of
/// up to 5.
fn quake_frames(n: u16, grouped: bool) -> Vec<u8> {
    let pose = |k: u16| FrameDef {
        name: format!("pose{k}").into_bytes(),
        vertices: vec![([0, 0, (k % 200) as u8], 0), ([9, 0, 0], 1), ([0, 9, 0], 2)],
    };
    let frames = if grouped {
        let mut frames = vec![FrameEntry::Single(pose(0))];
        let mut k = 1;
        while k < n {
            let count = (n - k).min(5);
            frames.push(FrameEntry::Group {
                intervals: (1..=count).map(|i| 0.1 * f32::from(i)).collect(),
                frames: (k..k + count).map(pose).collect(),
            });
            k += count;
        }
        frames
    } else {
        (0..n).map(|k| FrameEntry::Single(pose(k))).collect()
    };
    quake::Builder {
        frames,
        ..quake::Builder::triangle()
    }
    .write()
}

#[test]
fn model_open_allocation_does_not_grow_with_frames() {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let cases = [
        ("MDL", mdl_frames(2, 0), mdl_frames(2000, 0)),
        (
            "MDL, byte and word frames",
            mdl_frames(2, 2),
            mdl_frames(2000, 7),
        ),
        ("HMP5", hmp_frames(5, 2), hmp_frames(5, 2000)),
        ("HMP7", hmp_frames(7, 2), hmp_frames(7, 2000)),
        ("Quake", quake_frames(2, false), quake_frames(2000, false)),
        (
            "Quake, frame groups",
            quake_frames(2, true),
            quake_frames(2000, true),
        ),
    ];
    for (name, small, large) in cases {
        open_counts(name, [&small, &large], |model| {
            assert!([2, 2000].contains(&model.num_frames()), "{name}");
        });
    }
}

/// The MDR builder's triangle with `vertices` vertices in its surface and `frames` frames,
/// plain or `compressed`.
fn mdr_model(vertices: usize, frames: usize, compressed: bool) -> Vec<u8> {
    let mut b = skelmap::mdr::Builder::triangle();
    let surface = &mut b.lods[0][0];
    let last = surface.vertices[2].clone();
    surface.vertices.resize(vertices, last);
    let frame = b.frames[1].clone();
    b.frames.resize(frames, frame);
    b.compressed = compressed;
    b.write()
}

/// Opening an MDR copies nothing: the same allocations whatever its vertex and frame counts
/// (below ioquake3's 1000 vertices a surface, past which it warns),
/// plain or compressed; a surface's records are made on its first deform, once.
#[test]
fn mdr_open_allocation_does_not_grow_and_records_wait_for_skinning() {
    use skelmap::model::Pose;
    use skelmap::pose::Interpolation;
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    for compressed in [false, true] {
        let (small, large) = (mdr_model(3, 2, compressed), mdr_model(990, 900, compressed));
        let counts = open_counts("MDR", [&small, &large], |model| {
            assert!([2, 900].contains(&model.num_frames()));
        });
        assert!(counts[0].0 <= 8, "{counts:?}");
    }
    let bytes = mdr_model(5000, 2, false);
    let model = Model::from_bytes(&bytes).unwrap();
    let mut pose = Pose::default();
    model
        .pose(0, 1, 0.5, Interpolation::Nlerp, &mut pose)
        .unwrap();
    let (mut p, mut n) = (vec![[0.0f32; 3]; 5000], vec![[0.0f32; 3]; 5000]);
    let region = Region::new(GLOBAL);
    model.deform(0, &pose, &mut p, &mut n).unwrap();
    let first = region.change();
    // 5000 one-weight vertices: a count and a 32-byte record each, and an offset each.
    assert!(first.bytes_allocated >= 5000 * (36 + 4), "{first:?}");
    let region = Region::new(GLOBAL);
    model.deform(0, &pose, &mut p, &mut n).unwrap();
    let warm = region.change();
    assert_eq!(
        (warm.allocations, warm.bytes_allocated),
        (0, 0),
        "a warm deform allocates nothing"
    );
}

/// The synthetic IQM character (80 joints) with `sides` vertices a ring and `frames` frames.
fn iqm_character(sides: u32, frames: u32) -> Vec<u8> {
    use skelmap::synth::{CharacterParams, iqm_character};
    let params = CharacterParams {
        sides,
        frames,
        ..CharacterParams::default()
    };
    iqm_character(&params).model.write().unwrap()
}

/// Opening an IQM resolves no channel layout: the binding (`iqm::Pair::layout`, O(joints))
/// is made on the second sample of a model playing its own frames (the first walks the
/// poses), so the open of a character allocates the same whatever its vertex and frame
/// counts, the first sample allocates only the pose (once per buffer), and the second the
/// layout.
#[test]
fn iqm_open_allocation_does_not_grow_and_the_layout_waits_for_sampling() {
    use skelmap::pose::{Interpolation, LocalPose};
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let (small, large) = (iqm_character(3, 2), iqm_character(400, 300));
    open_counts("IQM", [&small, &large], |model| {
        assert!([2, 300].contains(&model.num_frames()));
    });
    let model = Model::from_bytes(&small).unwrap();
    let pose = std::cell::RefCell::new(LocalPose::default());
    let sample = |a, b| model.sample(a, b, 0.5, Interpolation::Nlerp, &mut pose.borrow_mut());
    let region = Region::new(GLOBAL);
    sample(0, 1);
    let first = region.change();
    // The pose's rotations and translations, and its scales: 80 joints each, no layout.
    assert_eq!(
        (first.allocations, first.reallocations),
        (2, 0),
        "{first:?}"
    );
    assert!(first.bytes_allocated < 4096, "{first:?}");
    let region = Region::new(GLOBAL);
    sample(1, 0);
    let second = region.change();
    // The layout: five blocks of 16 joints, about 3.2 KB each.
    assert!(second.bytes_allocated >= 5 * 3200, "{second:?}");
    let (warm, bytes, ()) = measure(|| sample(0, 1));
    assert_eq!((warm, bytes), (0, 0), "a warm sample allocates nothing");
}

/// The buffers one character's frame reuses: two sampled clips (as `LocalPose`s, or as
/// `SoaPose`s where the frame blends that layout), their blend, the palette, the compact
/// skin's matrices and outputs.
#[derive(Default)]
struct Frame {
    soa: bool,
    rest: skelmap::pose::LocalPose,
    walk: skelmap::pose::LocalPose,
    run: skelmap::pose::LocalPose,
    rest_soa: skelmap::pose::SoaPose,
    walk_soa: skelmap::pose::SoaPose,
    run_soa: skelmap::pose::SoaPose,
    blended: skelmap::pose::LocalPose,
    blender: skelmap::pose::blend::Blender,
    palette: skelmap::pose::Palette,
    matrices: skelmap::skin::SkinMatrices,
    positions: Vec<[f32; 3]>,
    normals: Vec<[f32; 3]>,
}

/// One frame at time `t`: two clips sampled, blended with the second masked to the bones
/// from `chain[0]` on, the palette built, a two-bone IK on `chain` applied and its sub-tree
/// rebuilt, then the first mesh skinned with the compact kernel.
fn frame(
    model: &Dpm<'_>,
    compact: &skelmap::skin::CompactMesh,
    chain: [usize; 3],
    t: f32,
    f: &mut Frame,
) {
    use skelmap::pose::blend::{Layer, Mask};
    use skelmap::pose::{Interpolation, Root, TwoBoneIk, sample, sample_soa};
    let last = model.num_frames() - 1;
    let (a, b) = (1 % last.max(1), last);
    let mask = Mask::Range {
        first: chain[0],
        last: usize::MAX,
    };
    if f.soa {
        sample_soa(model, 0, 0, 0.0, Interpolation::Nlerp, &mut f.rest_soa);
        sample_soa(model, a, a + 1, t, Interpolation::Nlerp, &mut f.walk_soa);
        sample_soa(
            model,
            b - 1,
            b,
            1.0 - t,
            Interpolation::Nlerp,
            &mut f.run_soa,
        );
        let layers = [
            Layer::new(&f.walk_soa, 1.0),
            Layer::new(&f.run_soa, 0.5).masked(mask),
        ];
        f.blender
            .blend_soa(&f.rest_soa, &layers, 0.1, &mut f.blended);
    } else {
        sample(model, 0, 0, 0.0, Interpolation::Nlerp, &mut f.rest);
        sample(model, a, a + 1, t, Interpolation::Nlerp, &mut f.walk);
        sample(model, b - 1, b, 1.0 - t, Interpolation::Nlerp, &mut f.run);
        let layers = [
            Layer::new(&f.walk, 1.0),
            Layer::new(&f.run, 0.5).masked(mask),
        ];
        f.blender.blend(&f.rest, &layers, 0.1, &mut f.blended);
    }
    f.palette.build(model, &f.blended);
    let [s, m, e] = chain.map(|bone| f.palette.world[bone]);
    let ik = TwoBoneIk {
        target: (s.translation + e.translation) * 0.5 + skelmap::glam::Vec3A::splat(0.01),
        mid_axis: skelmap::glam::Vec3A::X,
        ..TwoBoneIk::default()
    };
    ik.solve(&s, &m, &e)
        .apply(&mut f.blended, chain[0], chain[1]);
    f.palette
        .build_from(model, &f.blended, chain[0], Root::Rebuilt);
    compact.matrices(&f.palette, &mut f.matrices);
    let n = compact.num_vertices();
    f.positions.resize(n, [0.0; 3]);
    f.normals.resize(n, [0.0; 3]);
    compact
        .skin(
            &f.matrices,
            skelmap::skin::SimdLevel::detect(),
            skelmap::skin::VertexOrder::Original,
            &mut f.positions,
            &mut f.normals,
        )
        .unwrap();
}

/// Three bones, each the parent of the next: the deepest bone, its parent and grandparent.
fn deepest_chain(model: &Dpm<'_>) -> [usize; 3] {
    use skelmap::pose::Skeleton;
    let parent = |bone: usize| model.bone(bone).and_then(|b| b.parent());
    (0..model.skeleton_bones().len())
        .rev()
        .find_map(|end| {
            let mid = parent(end)?;
            Some([parent(mid)?, mid, end])
        })
        .unwrap()
}

/// A frame of sample 2 clips + blend with a mask + one two-bone IK + compact skin allocates
/// nothing once its buffers have grown, and neither does the prepared kernel skinning it on
/// one thread: on the synthetic tube always, and on the corpus golem (63 bones) when the
/// shared corpus is present.
#[test]
fn a_character_frame_allocates_nothing_after_warm_up() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let tube_bytes = model(4);
    let golem = std::fs::read("../shared/corpus/dpm/xon_monsters_golem.dpm").ok();
    if golem.is_none() && std::env::var_os("SKELMAP_REQUIRE_CORPUS").is_some() {
        panic!("SKELMAP_REQUIRE_CORPUS=1 but the golem is missing");
    }
    for bytes in std::iter::once(&tube_bytes).chain(golem.as_ref()) {
        let model = Dpm::parse(bytes).unwrap();
        let mesh = model.mesh(0).unwrap();
        let mut reference = skelmap::pose::LocalPose::default();
        skelmap::pose::sample(
            &model,
            0,
            0,
            0.0,
            skelmap::pose::Interpolation::Nlerp,
            &mut reference,
        );
        let mut bind = skelmap::pose::Palette::default();
        bind.build(&model, &reference);
        let compact = skelmap::skin::CompactMesh::new(&mesh, &bind.world).unwrap();
        let chain = deepest_chain(&model);
        for soa in [true, false] {
            let mut f = Frame {
                soa,
                ..Frame::default()
            };
            frame(&model, &compact, chain, 0.25, &mut f);
            let fresh = || Frame {
                soa,
                ..Frame::default()
            };
            let (allocations, _, ()) =
                measure(|| frame(&model, &compact, chain, 0.75, &mut fresh()));
            assert!(allocations > 0, "a fresh frame grows its buffers");
            let f = std::cell::RefCell::new(f);
            let (allocations, bytes_allocated, ()) =
                measure(|| frame(&model, &compact, chain, 0.75, &mut f.borrow_mut()));
            assert_eq!(
                (allocations, bytes_allocated),
                (0, 0),
                "{} bones, SoA layers {soa}",
                chain[2] + 1
            );
        }
        let mut f = Frame::default();
        frame(&model, &compact, chain, 0.25, &mut f);
        let f = std::cell::RefCell::new(f);
        // The prepared kernel on the same frame's matrices, in both vertex orders, on the
        // calling thread.
        let prepared = skelmap::skin::PreparedMesh::new(&mesh);
        let mut matrices = skelmap::skin::SkinMatrices::default();
        matrices.update(&f.borrow().palette);
        let skin = |order| {
            let mut f = f.borrow_mut();
            let Frame {
                positions, normals, ..
            } = &mut *f;
            prepared
                .skin(
                    &matrices,
                    skelmap::skin::SimdLevel::detect(),
                    order,
                    positions,
                    normals,
                )
                .unwrap();
        };
        for order in [
            skelmap::skin::VertexOrder::Original,
            skelmap::skin::VertexOrder::Prepared,
        ] {
            skin(order);
            let (allocations, bytes_allocated, ()) = measure(|| skin(order));
            assert_eq!((allocations, bytes_allocated), (0, 0), "{order:?}");
        }
    }
}

/// The MDM builder's pair with `vertices` vertices in its surface and `frames` frames.
fn mdm_pair(vertices: usize, frames: usize) -> (Vec<u8>, Vec<u8>) {
    let mut b = skelmap::mdm::Builder::triangle();
    let surface = &mut b.surfaces[0];
    let last = surface.vertices[2].clone();
    surface.vertices.resize(vertices, last);
    surface.collapse_map.resize(vertices, 0);
    let frame = b.frames[1].clone();
    b.frames.resize(frames, frame);
    b.write()
}

/// Opening an MDM with its MDX copies nothing: the same allocations whatever the vertex and
/// frame counts; an MDX alone likewise.
#[test]
fn mdm_open_allocation_does_not_grow() {
    use skelmap::source::Source;
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let pairs = [mdm_pair(3, 3), mdm_pair(5000, 900)];
    let counts = pairs.clone().map(|(mdm, mdx)| {
        let (allocs, bytes, model) = measure(|| {
            Model::from_mdm(
                Source::from_bytes(&mdm),
                Source::from_bytes(&mdx),
                &Limits::DEFAULT,
            )
        });
        let model = model.unwrap();
        assert!([3, 900].contains(&model.num_frames()));
        (allocs, bytes)
    });
    eprintln!(
        "MDM: (allocations, bytes) small {:?}, large {:?}",
        counts[0], counts[1]
    );
    assert_eq!(counts[0], counts[1], "MDM: small vs large");
    let mdx = pairs.map(|(_, mdx)| mdx);
    open_counts("MDX", [&mdx[0], &mdx[1]], |model| {
        assert!([3, 900].contains(&model.num_frames()));
    });
}

/// A PSK of two materials and `n` wedges on as many points, weighted to two bones, in a fan of
/// `n - 2` faces: opening it allocates its face count per material, whatever `n` (each
/// point's weights are gathered on the first skinning, not at open).
fn psk_model(n: u32) -> Vec<u8> {
    use skelmap::psk::Builder;
    use skelmap::psk::write::{FaceDef, WedgeDef, WeightDef};
    let mut b = Builder::example();
    b.points = (0..n)
        .map(|i| [i as f32, (i * 7 % 13) as f32, 1.0])
        .collect();
    b.wedges = (0..n)
        .map(|i| WedgeDef {
            point: i,
            texcoord: [0.0, 0.0],
            material: (i % 2) as u8,
        })
        .collect();
    b.faces = (1..n - 1)
        .map(|i| FaceDef {
            wedges: [0, i, i + 1],
            material: (i % 2) as u8,
            smoothing: 1,
        })
        .collect();
    b.weights = (0..n)
        .map(|i| WeightDef {
            point: i,
            bone: i % 2,
            weight: 1.0,
        })
        .collect();
    b.write_psk().unwrap()
}

/// An `.md5mesh` of `n` vertices in a strip (two weights each on two joints): `n - 2`
/// triangles.
fn md5_mesh(n: usize) -> String {
    use skelmap::md5::write::{Builder, JointDef, VertexDef, WeightDef};
    let mut b = Builder::triangle();
    b.joints.push(JointDef {
        name: "tip".into(),
        parent: Some(0),
        position: skelmap::glam::Vec3::new(0.0, 5.0, 0.0),
        orientation: skelmap::glam::Quat::IDENTITY,
    });
    let mesh = &mut b.meshes[0];
    mesh.vertices = (0..n)
        .map(|i| {
            let (x, y) = ((i / 2) as f32, (i % 2) as f32);
            let weight = |joint, bias| WeightDef {
                joint,
                bias,
                position: skelmap::glam::Vec3::new(x, y, 0.25),
            };
            VertexDef {
                st: [x / n as f32, y],
                weights: vec![weight(0, 0.75), weight(1, 0.25)],
            }
        })
        .collect();
    mesh.triangles = (0..n as u32 - 2).map(|i| [i, i + 1, i + 2]).collect();
    b.mesh_text()
}

/// An `.md5mesh` decodes into its block moving it once at most, small mesh or large: the block
/// has room for the text's size from the start (a real mesh's arrays fit in it; this strip of
/// two weights a vertex, with numbers shorter than exporters print, needs more once), where
/// growing it from empty moved it at each section.
#[test]
fn md5_mesh_block_moves_once_at_most() {
    use skelmap::md5::MeshFile;
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    for n in [3, 4000] {
        let text = md5_mesh(n);
        let reallocations = || {
            std::thread::sleep(std::time::Duration::from_millis(20));
            let region = Region::new(GLOBAL);
            let file = MeshFile::parse(text.as_bytes()).unwrap();
            let change = region.change();
            assert_eq!(file.mesh(0).unwrap().num_verts(), n);
            change.reallocations
        };
        let least = (0..3).map(|_| reallocations()).min().unwrap_or(usize::MAX);
        eprintln!("MD5 mesh of {n} vertices: {least} reallocations");
        assert!(least <= 1, "{n} vertices: {least} reallocations");
    }
}
