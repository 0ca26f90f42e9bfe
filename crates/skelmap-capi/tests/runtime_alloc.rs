//! A character's frame through the C ABI allocates nothing once its objects have grown to
//! the skeleton: three clips sampled into local poses, a walk → run crossfade under a torso
//! layer on a bone range (per-bone weights and a range mask), an additive layer, a two-bone
//! IK, the pose built from the result, the attachment placed and the mesh skinned. One test
//! in its own binary, so that nothing else allocates while it counts.
#![allow(clippy::unwrap_used)]

use std::alloc::System;

use skelmap_capi::SkelmapStatus;
use skelmap_core::synth;
use skelmap_testkit::capi::runtime::{
    CBlender, CLocal, CModel, CPose, additive_difference, crossfade, two_bone_ik_default,
};
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};

// The counting allocator comes from `stats_alloc`, so that this test needs no `unsafe` of its
// own.
#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// What one character keeps from frame to frame.
struct Character {
    rest: CLocal,
    walk: CLocal,
    run: CLocal,
    shoot: CLocal,
    shoot_start: CLocal,
    recoil: CLocal,
    blended: CLocal,
    blender: CBlender,
    pose: CPose,
    positions: Vec<[f32; 3]>,
}

/// One frame `t` seconds in; every status must be OK.
fn frame(model: &CModel<'_>, c: &mut Character, t: f32) {
    let m = Some(model);
    let legs = [1.0f32, 1.0, 1.0, 0.0, 0.0, 0.0];
    let (s0, from, to) = crossfade(t, 0.5, true);
    let (s1, mut ik) = two_bone_ik_default(true);
    ik.target = [3.0, 2.0, 20.0];
    ik.mid_axis = [1.0, 0.0, 0.0];
    let sampled = [
        s0,
        s1,
        c.walk.sample_clip(m, 0, t, true),
        c.run.sample_clip(m, 1, t, true),
        c.shoot.sample_clip(m, 2, t, true),
        additive_difference(&c.shoot, &c.shoot_start, &c.recoil),
    ];
    let layers = [
        c.walk.layer(from).weights(&legs),
        c.run.layer(to).weights(&legs),
        c.shoot.layer(1.0).range(3, 5),
    ];
    let posed = [
        c.blender.blend(&c.rest, &layers, 0.1, &c.blended),
        c.blender.add(Some(&c.recoil.layer(0.5)), &c.blended),
        c.blended.two_bone_ik(m, Some(&ik), [1, 2, 3]).0,
        c.pose.from_local(true, m, Some(&c.blended)),
        c.pose.attachment_world(model, 0).0,
        c.pose.skin(model, 0, &mut c.positions, None),
    ];
    let ok = sampled
        .iter()
        .chain(&posed)
        .all(|&s| s == SkelmapStatus::Ok);
    assert!(ok, "{sampled:?} {posed:?}");
}

#[test]
fn a_character_frame_through_c_allocates_nothing_after_warm_up() {
    let bytes = synth::tube(&synth::TubeParams {
        bones: 6,
        frames: 25,
        ..synth::TubeParams::default()
    })
    .write()
    .unwrap();
    let mut model = CModel::open(&bytes).unwrap();
    let groups = "1 8 10 1 // walk\n9 8 10 1 // run\n17 8 10 1 // shoot\n";
    assert_eq!(model.set_framegroups(groups), SkelmapStatus::Ok);
    let vertices = skelmap_core::Model::from_bytes(&bytes)
        .unwrap()
        .mesh(0)
        .unwrap()
        .num_vertices();
    let mut c = Character {
        rest: CLocal::new(),
        walk: CLocal::new(),
        run: CLocal::new(),
        shoot: CLocal::new(),
        shoot_start: CLocal::new(),
        recoil: CLocal::new(),
        blended: CLocal::new(),
        blender: CBlender::new(),
        pose: CPose::new(),
        positions: vec![[0.0; 3]; vertices],
    };
    assert_eq!(c.rest.bind(Some(&model)), SkelmapStatus::Ok);
    let s = c.shoot_start.sample_clip(Some(&model), 2, 0.0, true);
    assert_eq!(s, SkelmapStatus::Ok);
    let region = Region::new(GLOBAL);
    frame(&model, &mut c, 0.1);
    let warm_up = region.change();
    assert!(warm_up.allocations > 0, "the first frame grows the buffers");
    for t in [0.2, 0.35, 0.6, 1.3] {
        let region = Region::new(GLOBAL);
        frame(&model, &mut c, t);
        let change = region.change();
        assert_eq!(
            (change.allocations, change.reallocations),
            (0, 0),
            "frame at {t} s"
        );
    }
    println!("warm-up frame: {} allocations", warm_up.allocations);
}
