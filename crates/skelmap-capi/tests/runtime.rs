//! The animation runtime through the C ABI (`skelmap_local_pose_*`, `skelmap_blend`,
//! `skelmap_blender_add`, `skelmap_additive_difference`, `skelmap_crossfade`, the IK calls
//! and `skelmap_pose_from_local`, `skelmap_pose_from_local_subtree`, `skelmap_pose_turn_torso`)
//! gives exactly, bit for bit, what the Rust API gives for the same inputs
//! (`Model::sample_clip`, `pose::blend`, `LocalPose::set_bone` and the rest,
//! `TwoBoneIk`/`AimIk`, `Model::pose_local`, `Model::turn_torso`), and refuses what it documents with the
//! documented status. The calls themselves go through skelmap-testkit's safe handles
//! (`capi::runtime`).
#![allow(clippy::unwrap_used)]

use skelmap_capi::SkelmapStatus;
use skelmap_capi::local::{SkelmapAimIk, SkelmapTwoBoneIk};
use skelmap_capi::pose::SKELMAP_INTERPOLATION_SLERP;
use skelmap_core::Model;
use skelmap_core::glam::{Affine3A, Quat, Vec3, Vec3A};
use skelmap_core::model::Pose;
use skelmap_core::pose::blend::{self, Blender, Layer, Mask};
use skelmap_core::pose::framegroups::{self, FrameGroup};
use skelmap_core::pose::{AimIk, Interpolation, LocalPose, Palette, TwoBoneIk};
use skelmap_core::synth;
use skelmap_testkit::capi::runtime::{
    CBlender, CLayer, CLocal, CModel, CPose, CSampler, Rows, additive_difference, aim_ik_default,
    crossfade, null_sampler_statuses, two_bone_ik_default,
};

/// Three clips of a six-bone tube (bones 0 to 5, the last an attachment): `walk` (frames 1
/// to 8), `run` (9 to 16) and `shoot` (17 to 24).
const FRAMEGROUPS: &str = "1 8 10 1 // walk\n9 8 10 1 // run\n17 8 10 1 // shoot\n";

fn character() -> Vec<u8> {
    synth::tube(&synth::TubeParams {
        bones: 6,
        frames: 25,
        ..synth::TubeParams::default()
    })
    .write()
    .unwrap()
}

/// The model opened through C with its three clips, and the same in Rust.
struct Fixture<'a> {
    c: CModel<'a>,
    rust: Model<'a>,
    clips: Vec<FrameGroup>,
}

impl<'a> Fixture<'a> {
    fn new(bytes: &'a [u8]) -> Fixture<'a> {
        let mut c = CModel::open(bytes).unwrap();
        assert_eq!(c.set_framegroups(FRAMEGROUPS), SkelmapStatus::Ok);
        let rust = Model::from_bytes(bytes).unwrap();
        let frames = rust.num_frames() as u32;
        let clips = framegroups::parse(FRAMEGROUPS.as_bytes(), frames, rust.format()).unwrap();
        Fixture { c, rust, clips }
    }

    fn model(&self) -> Option<&CModel<'a>> {
        Some(&self.c)
    }

    /// `clip` sampled `seconds` in, looping, by Rust.
    fn sample(&self, clip: usize, seconds: f32) -> LocalPose {
        let mut local = LocalPose::default();
        let clip = &self.clips[clip];
        self.rust
            .sample_clip(clip, seconds, true, Interpolation::Nlerp, &mut local)
            .unwrap();
        local
    }

    fn bind(&self) -> LocalPose {
        let mut local = LocalPose::default();
        self.rust.bind_pose(&mut local);
        local
    }

    /// `clip` sampled `seconds` in through C.
    fn c_sample(&self, clip: u32, seconds: f32) -> CLocal {
        let local = CLocal::new();
        let s = local.sample_clip(self.model(), clip, seconds, true);
        assert_eq!(s, SkelmapStatus::Ok);
        local
    }
}

/// A row-major 3×4 matrix as C passes it.
fn rows(m: &Affine3A) -> Rows {
    let c = [
        m.matrix3.x_axis,
        m.matrix3.y_axis,
        m.matrix3.z_axis,
        m.translation,
    ];
    std::array::from_fn(|i| c[i % 4][i / 4])
}

fn affine(m: &Rows) -> Affine3A {
    let col = |c: usize| Vec3A::new(m[c], m[4 + c], m[8 + c]);
    Affine3A::from_cols(col(0), col(1), col(2), col(3))
}

/// Every bone's parent-relative matrix of a Rust local pose, as C writes them.
fn matrices(local: &LocalPose) -> Vec<Rows> {
    (0..local.bones.len())
        .map(|b| rows(&local.bone_matrix(b)))
        .collect()
}

#[test]
fn local_poses_sample_like_the_rust_api() {
    let bytes = character();
    let f = Fixture::new(&bytes);
    let c = CLocal::new();
    assert_eq!(c.bone_count(), 0);
    for (clip, seconds) in [(0, 0.0), (1, 0.37), (2, 1.9), (0, -0.25)] {
        assert_eq!(
            c.sample_clip(f.model(), clip, seconds, true),
            SkelmapStatus::Ok
        );
        assert_eq!(c.matrices(), matrices(&f.sample(clip as usize, seconds)));
    }
    assert_eq!(c.bind(f.model()), SkelmapStatus::Ok);
    assert_eq!(c.matrices(), matrices(&f.bind()));
    let s = c.sample(f.model(), 3, 7, 0.25, SKELMAP_INTERPOLATION_SLERP);
    assert_eq!(s, SkelmapStatus::Ok);
    let mut rust = LocalPose::default();
    f.rust.sample(3, 7, 0.25, Interpolation::Slerp, &mut rust);
    assert_eq!(c.matrices(), matrices(&rust));
    assert_eq!(c.bone_count(), 6);

    let copy = CLocal::new();
    assert_eq!(copy.copy_from(Some(&c)), SkelmapStatus::Ok);
    assert_eq!(copy.matrices(), c.matrices());
}

/// Layers with every kind of mask over the bind pose, with thresholds below and above the
/// total weight, then additive layers and crossfade weights.
#[test]
fn blends_are_the_rust_blends() {
    let bytes = character();
    let f = Fixture::new(&bytes);
    let rest = CLocal::new();
    assert_eq!(rest.bind(f.model()), SkelmapStatus::Ok);
    let (walk, run, shoot, out) = (
        f.c_sample(0, 0.3),
        f.c_sample(1, 0.3),
        f.c_sample(2, 0.3),
        CLocal::new(),
    );
    let legs = [1.0, 1.0, 0.75, 0.0, f32::NAN, 2.0];
    let mut blender = CBlender::new();
    let (r_rest, r_walk, r_run, r_shoot) = (
        f.bind(),
        f.sample(0, 0.3),
        f.sample(1, 0.3),
        f.sample(2, 0.3),
    );
    let upper = Mask::Range {
        first: 3,
        last: u32::MAX as usize,
    };
    for (fade, threshold) in [(0.25, 0.1), (0.0, 0.0), (0.9, 2.0)] {
        let c_layers = [
            walk.layer(1.0 - fade).weights(&legs),
            run.layer(fade).weights(&legs),
            shoot.layer(1.0).range(3, u32::MAX),
            run.layer(0.5),
        ];
        let s = blender.blend(&rest, &c_layers, threshold, &out);
        assert_eq!(s, SkelmapStatus::Ok);
        let layers = [
            Layer::new(&r_walk, 1.0 - fade).masked(Mask::Weights(&legs)),
            Layer::new(&r_run, fade).masked(Mask::Weights(&legs)),
            Layer::new(&r_shoot, 1.0).masked(upper),
            Layer::new(&r_run, 0.5),
        ];
        let mut expected = LocalPose::default();
        Blender::default().blend(&r_rest, &layers, threshold, &mut expected);
        assert_eq!(out.matrices(), matrices(&expected), "fade {fade}");
    }
    // No layers at all: the rest pose.
    assert_eq!(blender.blend(&rest, &[], 0.0, &out), SkelmapStatus::Ok);
    assert_eq!(out.matrices(), matrices(&r_rest));

    // Additive: the shoot clip's difference from its first frame, added at 0.6 on the upper
    // bones, then taken away at full weight on all.
    let (first, delta) = (f.c_sample(2, 0.0), CLocal::new());
    assert_eq!(
        additive_difference(&shoot, &first, &delta),
        SkelmapStatus::Ok
    );
    let mut r_delta = LocalPose::default();
    blend::additive_difference(&r_shoot, &f.sample(2, 0.0), &mut r_delta);
    assert_eq!(delta.matrices(), matrices(&r_delta));
    let mut r_walk_added = r_walk.clone();
    for (weight, range) in [(0.6, true), (-1.0, false)] {
        let (layer, mask) = if range {
            (delta.layer(weight).range(3, u32::MAX), upper)
        } else {
            (delta.layer(weight), Mask::All)
        };
        assert_eq!(blender.add(Some(&layer), &walk), SkelmapStatus::Ok);
        let layer = Layer::new(&r_delta, weight).masked(mask);
        Blender::default().add(&layer, &mut r_walk_added);
        assert_eq!(walk.matrices(), matrices(&r_walk_added), "weight {weight}");
    }

    for (time, duration) in [(0.0, 0.5), (0.2, 0.5), (0.7, 0.5), (1.0, 0.0)] {
        let (s, from, to) = crossfade(time, duration, true);
        assert_eq!(s, SkelmapStatus::Ok);
        assert_eq!((from, to), blend::crossfade(time, duration));
    }
}

/// `set_bone`, `mul_bone`, `mul_bones` and the model-space forms against `LocalPose`'s.
#[test]
fn procedural_bones_are_the_rust_ones() {
    let bytes = character();
    let f = Fixture::new(&bytes);
    let c = f.c_sample(1, 0.45);
    let mut rust = f.sample(1, 0.45);
    let turn =
        Affine3A::from_rotation_translation(Quat::from_rotation_y(0.4), Vec3::new(0.5, -1.0, 2.0));
    let scaled = Affine3A::from_scale_rotation_translation(
        Vec3::splat(1.5),
        Quat::from_rotation_x(-0.3),
        Vec3::Z,
    );
    let (turn_rows, scaled_rows) = (rows(&turn), rows(&scaled));
    let mut palette = Palette::default();
    let view = f.rust.view();
    assert_eq!(c.set_bone(2, Some(&turn_rows)), SkelmapStatus::Ok);
    rust.set_bone(2, turn).unwrap();
    assert_eq!(c.matrices(), matrices(&rust));
    assert_eq!(c.mul_bone(4, Some(&scaled_rows)), SkelmapStatus::Ok);
    rust.mul_bone(4, scaled).unwrap();
    assert_eq!(c.matrices(), matrices(&rust));
    assert_eq!(rust.scales.len(), 6, "a scale gives the pose scales");
    assert_eq!(c.mul_bones(1, 3, Some(&turn_rows)), SkelmapStatus::Ok);
    rust.mul_bones(1, 3, turn).unwrap();
    assert_eq!(c.matrices(), matrices(&rust));
    assert_eq!(
        c.mul_bones(4, u32::MAX, Some(&turn_rows)),
        SkelmapStatus::Ok
    );
    rust.mul_bones(4, usize::MAX, turn).unwrap();
    assert_eq!(c.matrices(), matrices(&rust));
    let s = c.set_bone_model(f.model(), 3, Some(&turn_rows));
    assert_eq!(s, SkelmapStatus::Ok);
    f.rust.palette(&rust, &mut palette);
    rust.set_bone_model(view, &palette, 3, turn).unwrap();
    assert_eq!(c.matrices(), matrices(&rust));
    let s = c.mul_bone_model(f.model(), 5, Some(&scaled_rows));
    assert_eq!(s, SkelmapStatus::Ok);
    f.rust.palette(&rust, &mut palette);
    rust.mul_bone_model(view, &palette, 5, scaled).unwrap();
    assert_eq!(c.matrices(), matrices(&rust));

    // The model-space transform set is where the bone is, once posed.
    let s = c.set_bone_model(f.model(), 3, Some(&turn_rows));
    assert_eq!(s, SkelmapStatus::Ok);
    let pose = CPose::new();
    assert_eq!(
        pose.from_local(true, f.model(), Some(&c)),
        SkelmapStatus::Ok
    );
    let (s, world) = pose.bone_world(3);
    assert_eq!(s, SkelmapStatus::Ok);
    assert!(affine(&world).abs_diff_eq(turn, 1e-5), "{world:?}");
}

/// Two-bone IK on bones 2, 3 and 4 and aim IK on bone 5, against the Rust solvers on the
/// palette of the same pose; the chain's end then sits on its target (within 1e-4 of a
/// 100-unit tube).
#[test]
fn ik_is_the_rust_ik() {
    let bytes = character();
    let f = Fixture::new(&bytes);
    let c = f.c_sample(0, 0.2);
    let mut rust = f.sample(0, 0.2);
    let mut palette = Palette::default();
    f.rust.palette(&rust, &mut palette);
    let (s, m, e) = (palette.world[2], palette.world[3], palette.world[4]);
    let target = (s.translation + e.translation) * 0.5 + Vec3A::new(4.0, 3.0, 0.0);
    let two = TwoBoneIk {
        target,
        mid_axis: Vec3A::X,
        ..TwoBoneIk::default()
    };
    let (status, mut c_two) = two_bone_ik_default(true);
    assert_eq!(status, SkelmapStatus::Ok);
    assert_eq!(c_two, SkelmapTwoBoneIk::from(TwoBoneIk::default()));
    assert_eq!(
        (
            c_two.mid_axis,
            c_two.pole_vector,
            c_two.soften,
            c_two.weight
        ),
        ([0.0, 0.0, 1.0], [0.0, 1.0, 0.0], 1.0, 1.0)
    );
    c_two.target = target.to_array();
    c_two.mid_axis = [1.0, 0.0, 0.0];
    let (status, reached) = c.two_bone_ik(f.model(), Some(&c_two), [2, 3, 4]);
    assert_eq!(status, SkelmapStatus::Ok);
    let correction = two.solve(&s, &m, &e);
    correction.apply(&mut rust, 2, 3);
    assert_eq!(c.matrices(), matrices(&rust));
    assert!(reached && correction.reached);
    f.rust.palette(&rust, &mut palette);
    let end = palette.world[4].translation;
    assert!(end.abs_diff_eq(target, 1e-4), "{end} vs {target}");

    let aim = AimIk {
        target: Vec3A::new(-20.0, 10.0, 30.0),
        forward: Vec3A::Z,
        up: Vec3A::X,
        ..AimIk::default()
    };
    let (status, c_aim) = aim_ik_default(true);
    assert_eq!(status, SkelmapStatus::Ok);
    assert_eq!(c_aim, SkelmapAimIk::from(AimIk::default()));
    let (status, reached) = c.aim_ik(f.model(), Some(&SkelmapAimIk::from(aim)), 5);
    assert_eq!((status, reached), (SkelmapStatus::Ok, true));
    aim.solve(&palette.world[5]).apply(&mut rust, 5);
    assert_eq!(c.matrices(), matrices(&rust));
}

/// A procedurally changed pose posed through C skins, places bones and places the
/// attachment exactly as `Model::pose_local` and the Rust deformation do.
#[test]
fn a_pose_from_a_local_pose_skins_and_places_attachments() {
    let bytes = character();
    let f = Fixture::new(&bytes);
    let c = f.c_sample(2, 0.55);
    let turn = Affine3A::from_rotation_z(0.7);
    assert_eq!(c.mul_bone(1, Some(&rows(&turn))), SkelmapStatus::Ok);
    let mut rust_local = f.sample(2, 0.55);
    rust_local.mul_bone(1, turn).unwrap();
    let mut rust = Pose::default();
    f.rust.pose_local(&rust_local, &mut rust).unwrap();

    let pose = CPose::new();
    assert_eq!(
        pose.from_local(true, f.model(), Some(&c)),
        SkelmapStatus::Ok
    );
    for bone in 0..6 {
        let (s, world) = pose.bone_world(bone);
        assert_eq!(s, SkelmapStatus::Ok);
        assert_eq!(world, rows(&rust.palette().world[bone as usize]));
    }
    let (s, at) = pose.attachment_world(&f.c, 0);
    assert_eq!(s, SkelmapStatus::Ok);
    assert_eq!(at, rows(&f.rust.attachment_transform(0, &rust).unwrap()));
    let n = f.rust.mesh(0).unwrap().num_vertices();
    let (mut p, mut q) = (vec![[0.0f32; 3]; n], vec![[0.0f32; 3]; n]);
    assert_eq!(pose.skin(&f.c, 0, &mut p, Some(&mut q)), SkelmapStatus::Ok);
    let (mut rp, mut rq) = (vec![[0.0f32; 3]; n], vec![[0.0f32; 3]; n]);
    f.rust.deform(0, &rust, &mut rp, &mut rq).unwrap();
    assert_eq!((p, q), (rp, rq));
}

/// An IK correction posed through C from its chain's start only gives the world transforms
/// and skin of posing the whole corrected pose, in C and in Rust; bones above the start keep
/// the transforms the pose held, whatever the local pose says of them now.
#[test]
fn a_subtree_rebuild_is_the_whole_pose_below_the_bone() {
    let bytes = character();
    let f = Fixture::new(&bytes);
    let c = f.c_sample(1, 0.4);
    let pose = CPose::new();
    assert_eq!(
        pose.from_local(true, f.model(), Some(&c)),
        SkelmapStatus::Ok
    );
    let turn = Affine3A::from_rotation_y(0.5);
    assert_eq!(c.mul_bone(3, Some(&rows(&turn))), SkelmapStatus::Ok);
    assert_eq!(
        pose.from_local_subtree(true, f.model(), Some(&c), 3),
        SkelmapStatus::Ok
    );
    let mut rust_local = f.sample(1, 0.4);
    rust_local.mul_bone(3, turn).unwrap();
    let mut whole = Pose::default();
    f.rust.pose_local(&rust_local, &mut whole).unwrap();
    for bone in 0..6 {
        let (s, world) = pose.bone_world(bone);
        assert_eq!(s, SkelmapStatus::Ok);
        assert_eq!(
            world,
            rows(&whole.palette().world[bone as usize]),
            "bone {bone}"
        );
    }
    let n = f.rust.mesh(0).unwrap().num_vertices();
    let (mut p, mut q) = (vec![[0.0f32; 3]; n], vec![[0.0f32; 3]; n]);
    assert_eq!(pose.skin(&f.c, 0, &mut p, Some(&mut q)), SkelmapStatus::Ok);
    let (mut rp, mut rq) = (vec![[0.0f32; 3]; n], vec![[0.0f32; 3]; n]);
    f.rust.deform(0, &whole, &mut rp, &mut rq).unwrap();
    assert_eq!((p, q), (rp, rq));

    // A change above the bone is not rebuilt: bone 1 keeps its world transform.
    let (_, before) = pose.bone_world(1);
    assert_eq!(c.mul_bone(1, Some(&rows(&turn))), SkelmapStatus::Ok);
    assert_eq!(
        pose.from_local_subtree(true, f.model(), Some(&c), 4),
        SkelmapStatus::Ok
    );
    assert_eq!(pose.bone_world(1).1, before);

    // Refusals, the pose unchanged by each.
    let (_, kept) = pose.bone_world(5);
    for (status, call) in [
        (
            SkelmapStatus::NullParameter,
            pose.from_local_subtree(false, f.model(), Some(&c), 0),
        ),
        (
            SkelmapStatus::NullParameter,
            pose.from_local_subtree(true, None, Some(&c), 0),
        ),
        (
            SkelmapStatus::NullParameter,
            pose.from_local_subtree(true, f.model(), None, 0),
        ),
        (
            SkelmapStatus::OutOfRange,
            pose.from_local_subtree(true, f.model(), Some(&c), 6),
        ),
        (
            SkelmapStatus::WrongKind,
            pose.from_local_subtree(true, f.model(), Some(&CLocal::new()), 0),
        ),
        (
            SkelmapStatus::InvalidArgument,
            CPose::new().from_local_subtree(true, f.model(), Some(&c), 0),
        ),
    ] {
        assert_eq!(call, status);
    }
    assert_eq!(pose.bone_world(5).1, kept);
}

/// The documented refusals: NULLs, ranges, kinds, aliasing and non-finite inputs.
#[test]
fn runtime_calls_return_the_documented_statuses() {
    use SkelmapStatus::*;
    let bytes = character();
    let f = Fixture::new(&bytes);
    let quake_bytes = skelmap_core::quake::Builder::triangle().write();
    let quake = CModel::open(&quake_bytes).unwrap();
    let quake = Some(&quake);
    let model = f.model();
    let (c, other, out, pose) = (CLocal::new(), CLocal::new(), CLocal::new(), CPose::new());
    let identity = rows(&Affine3A::IDENTITY);
    let mut nan = identity;
    nan[3] = f32::NAN;
    let ik = SkelmapTwoBoneIk::from(TwoBoneIk::default());
    let bad_ik = SkelmapTwoBoneIk {
        target: [f32::INFINITY, 0.0, 0.0],
        ..ik
    };
    let aim = SkelmapAimIk::from(AimIk::default());
    let mut blender = CBlender::new();
    let id = Some(&identity);
    let mut statuses = vec![
        c.sample_clip(None, 0, 0.0, true),
        c.sample_clip(model, 3, 0.0, true),
        c.sample_clip(model, 0, f32::NAN, true),
        c.sample_clip(quake, 0, 0.0, true),
        c.sample(model, 0, 25, 0.5, 0),
        c.sample(model, 0, 1, 0.5, 2),
        c.sample(model, 0, 1, f32::INFINITY, 0),
        c.bind(quake),
        c.bone(0, true).0,
    ];
    // From here on `c` holds the walk.
    statuses.push(c.sample_clip(model, 0, 0.1, true));
    statuses.extend([
        c.bone(6, true).0,
        c.bone(0, false).0,
        c.copy_from(Some(&c)),
        c.copy_from(None),
        c.set_bone(6, id),
        c.set_bone(0, Some(&nan)),
        c.set_bone(0, None),
        c.mul_bone(6, id),
        c.mul_bones(3, 2, id),
        c.mul_bones(6, 9, id),
        c.set_bone_model(model, 6, id),
        other.set_bone_model(model, 0, id),
        c.mul_bone_model(None, 0, id),
        c.two_bone_ik(model, Some(&ik), [0, 1, 6]).0,
        c.two_bone_ik(model, Some(&bad_ik), [0, 1, 2]).0,
        c.two_bone_ik(model, None, [0, 1, 2]).0,
        other.two_bone_ik(model, Some(&ik), [0, 1, 2]).0,
        c.aim_ik(model, Some(&aim), 6).0,
        pose.from_local(true, quake, Some(&c)),
        pose.from_local(true, model, Some(&other)),
        pose.from_local(false, model, Some(&c)),
        blender.blend(&c, &[c.layer(1.0)], 0.0, &c),
        blender.blend(&c, &[out.layer(1.0)], 0.0, &out),
        blender.blend(&other, &[c.layer(1.0)], 0.0, &out),
        blender.blend(&c, &[other.layer(1.0)], 0.0, &out),
        blender.blend(&c, &[CLayer::null()], 0.0, &out),
        blender.blend_with(true, &c, None, 1, 0.0, &out),
        blender.blend(&c, &[c.layer(1.0)], -1.0, &out),
        blender.blend(&c, &[c.layer(1.0).mask(3)], 0.0, &out),
        blender.blend(&c, &[c.layer(1.0).range(2, 1)], 0.0, &out),
        blender.blend(&c, &[c.layer(1.0).null_weights(2)], 0.0, &out),
        blender.blend(&c, &[c.layer(f32::NAN)], 0.0, &out),
        blender.blend_with(false, &c, Some(&[c.layer(1.0)]), 0, 0.0, &out),
        blender.blend(&c, &[c.layer(1.0).null_weights(0)], 0.0, &out),
        blender.add(Some(&out.layer(1.0)), &out),
        blender.add(Some(&other.layer(1.0)), &out),
        blender.add(None, &out),
        additive_difference(&c, &out, &out),
        additive_difference(&other, &other, &out),
        additive_difference(&c, &other, &out),
        crossfade(0.0, -1.0, true).0,
        crossfade(f32::NAN, 1.0, true).0,
        crossfade(0.0, 1.0, false).0,
        two_bone_ik_default(false).0,
        aim_ik_default(false).0,
    ]);
    assert_eq!(
        statuses,
        [
            NullParameter,   // sample_clip of NULL
            OutOfRange,      // clip 3 of 3
            InvalidArgument, // NaN seconds
            WrongKind,       // a Quake model has no bones
            OutOfRange,      // frame 25 of 25
            InvalidArgument, // interpolation 2
            InvalidArgument, // infinite t
            WrongKind,       // bind of a Quake model
            OutOfRange,      // bone 0 of an empty pose
            Ok,              // the walk
            OutOfRange,      // bone 6 of 6
            NullParameter,   // into NULL
            InvalidArgument, // copy onto itself
            NullParameter,   // copy from NULL
            OutOfRange,      // set bone 6
            InvalidArgument, // a NaN matrix
            NullParameter,   // a NULL matrix
            OutOfRange,      // mul bone 6
            InvalidArgument, // range 3..=2
            OutOfRange,      // range from 6
            OutOfRange,      // model-space bone 6
            WrongKind,       // an empty pose on a six-bone model
            NullParameter,   // NULL model
            OutOfRange,      // IK end bone 6
            InvalidArgument, // infinite target
            NullParameter,   // NULL request
            WrongKind,       // IK on an empty pose
            OutOfRange,      // aim at bone 6
            WrongKind,       // pose a Quake model
            WrongKind,       // an empty local pose
            NullParameter,   // into NULL
            InvalidArgument, // out is rest
            InvalidArgument, // out is a layer
            InvalidArgument, // an empty rest pose
            WrongKind,       // an empty layer over six bones
            NullParameter,   // a layer of no pose
            NullParameter,   // NULL layers
            InvalidArgument, // negative threshold
            InvalidArgument, // mask 3
            InvalidArgument, // range 2..=1
            NullParameter,   // NULL weights
            InvalidArgument, // NaN weight
            NullParameter,   // NULL blender
            Ok,              // no weights: no bone played, the rest pose
            InvalidArgument, // add a pose onto itself
            WrongKind,       // an empty additive layer
            NullParameter,   // NULL layer
            InvalidArgument, // difference into its reference
            InvalidArgument, // difference of an empty pose
            WrongKind,       // difference from an empty reference
            InvalidArgument, // negative duration
            InvalidArgument, // NaN time
            NullParameter,   // NULL from
            NullParameter,   // IK defaults into NULL
            NullParameter,   // aim defaults into NULL
        ]
    );
}

/// Through C on every skeletal format at hand, as Rust: the first and last clip sampled,
/// blended with the last on the upper half of the bones, posed; every bone's world
/// transform and the first mesh skinned are the Rust API's, bit for bit (MS3D's normals
/// aside: C gives smooth ones where `Model::deform` gives none). The synthetic IQM
/// character scales four of its 80 joints; with the corpora, every DPM and MS3D (keyed, in
/// seconds) and the IQM and MDL7 files.
#[test]
fn blended_poses_through_c_are_the_rust_ones_for_every_skeletal_format() {
    let humanoid = synth::iqm_character(&synth::CharacterParams {
        sides: 5,
        frames: 12,
        ..synth::CharacterParams::default()
    });
    let mut inputs = vec![
        ("tube".to_string(), character()),
        ("IQM character".to_string(), humanoid.model.write().unwrap()),
        (
            "MDL7 demo".to_string(),
            skelmap_core::mdl7::Builder::demo().write(),
        ),
    ];
    let files = ["dpm", "ms3d"]
        .into_iter()
        .flat_map(skelmap_testkit::corpus_files)
        .chain(
            ["iqm", "mdl7"]
                .into_iter()
                .flat_map(skelmap_testkit::corpus_next_files),
        );
    for path in files {
        inputs.push((path.display().to_string(), std::fs::read(&path).unwrap()));
    }
    let mut compared = 0;
    for (name, bytes) in &inputs {
        let rust = Model::from_bytes(bytes).unwrap();
        let (clips, bones) = (rust.clips(), rust.num_bones());
        if bones == 0 || clips.is_empty() || rust.num_meshes() == 0 {
            continue;
        }
        let c = CModel::open(bytes).unwrap();
        let last = clips.len() - 1;
        let (a, b, rest, out) = (CLocal::new(), CLocal::new(), CLocal::new(), CLocal::new());
        assert_eq!(
            a.sample_clip(Some(&c), 0, 0.25, true),
            SkelmapStatus::Ok,
            "{name}"
        );
        let s = b.sample_clip(Some(&c), last as u32, 0.5, true);
        assert_eq!(s, SkelmapStatus::Ok, "{name}");
        assert_eq!(rest.bind(Some(&c)), SkelmapStatus::Ok, "{name}");
        let upper = (bones / 2) as u32;
        let layers = [a.layer(0.6), b.layer(0.8).range(upper, u32::MAX)];
        let mut blender = CBlender::new();
        let s = blender.blend(&rest, &layers, 0.5, &out);
        assert_eq!(s, SkelmapStatus::Ok, "{name}");
        let pose = CPose::new();
        let s = pose.from_local(true, Some(&c), Some(&out));
        assert_eq!(s, SkelmapStatus::Ok, "{name}");

        let sample = |clip: usize, seconds| {
            let mut local = LocalPose::default();
            rust.sample_clip(
                &clips[clip],
                seconds,
                true,
                Interpolation::Nlerp,
                &mut local,
            )
            .unwrap();
            local
        };
        let (ra, rb) = (sample(0, 0.25), sample(last, 0.5));
        let mut r_rest = LocalPose::default();
        rust.bind_pose(&mut r_rest);
        let layers = [
            Layer::new(&ra, 0.6),
            Layer::new(&rb, 0.8).masked(Mask::Range {
                first: bones / 2,
                last: u32::MAX as usize,
            }),
        ];
        let mut blended = LocalPose::default();
        Blender::default().blend(&r_rest, &layers, 0.5, &mut blended);
        assert_eq!(out.matrices(), matrices(&blended), "{name}");
        let mut r_pose = Pose::default();
        rust.pose_local(&blended, &mut r_pose).unwrap();
        for (bone, world) in r_pose.palette().world.iter().enumerate() {
            assert_eq!(
                pose.bone_world(bone as u32),
                (SkelmapStatus::Ok, rows(world)),
                "{name}"
            );
        }
        let n = rust.mesh(0).unwrap().num_vertices();
        let (mut p, mut q) = (vec![[0.0f32; 3]; n], vec![[0.0f32; 3]; n]);
        assert_eq!(
            pose.skin(&c, 0, &mut p, Some(&mut q)),
            SkelmapStatus::Ok,
            "{name}"
        );
        let (mut rp, mut rq) = (vec![[0.0f32; 3]; n], vec![[0.0f32; 3]; n]);
        rust.deform(0, &r_pose, &mut rp, &mut rq).unwrap();
        assert!(p == rp, "{name}: skinned to other positions");
        // MS3D stores normals per triangle corner: C sums them per vertex (documented at
        // `skelmap_model_skin`), `Model::deform` leaves the vertex normals at zero.
        if rust.format() != skelmap_core::Format::Ms3d {
            assert!(q == rq, "{name}: skinned to other normals");
        }
        compared += 1;
    }
    assert!(compared >= 2, "only {compared} models compared");
    println!("{compared} models compared");
}

/// Bone controllers through C: counted, read as stored, and set for sampling exactly as
/// `Model::sample_controlled` sets them; a model without them samples as without controls.
#[test]
fn controlled_sampling_is_the_rust_one() {
    use skelmap_capi::local::SkelmapControls;
    use skelmap_core::hl1::{Builder, ControllerDef, Controls, raw::STUDIO_RLOOP, raw::STUDIO_ZR};
    let mut b = Builder::example();
    b.controllers.push(ControllerDef {
        bone: 1,
        type_: STUDIO_ZR | STUDIO_RLOOP,
        start: -90.0,
        end: 90.0,
        index: 2,
    });
    let hl1 = b.write().unwrap();
    let tube = character();
    let values = [0.0, 0.0, 400.0, 0.0, 3.0];
    for (bytes, controllers) in [(&hl1, 1u32), (&tube, 0)] {
        let c = CModel::open(bytes).unwrap();
        let rust = Model::from_bytes(bytes).unwrap();
        let (s, counts) = c.counts();
        assert_eq!(s, SkelmapStatus::Ok);
        assert_eq!(counts.controllers, controllers);
        for (i, stored) in rust.controllers().iter().enumerate() {
            let (s, read) = c.controller(i as u32, true);
            assert_eq!(s, SkelmapStatus::Ok);
            assert_eq!(
                (
                    read.bone, read.type_, read.start, read.end, read.rest, read.index
                ),
                (
                    stored.bone.get(),
                    stored.type_.get() as u32,
                    stored.start.get(),
                    stored.end.get(),
                    stored.rest.get(),
                    stored.index.get(),
                )
            );
        }
        assert_eq!(c.controller(controllers, true).0, SkelmapStatus::OutOfRange);
        if controllers > 0 {
            assert_eq!(c.controller(0, false).0, SkelmapStatus::NullParameter);
        }
        let local = CLocal::new();
        let controls = SkelmapControls { values };
        let frame = (0, 1, 0.5, 0);
        assert_eq!(
            local.sample_controlled(Some(&c), frame, Some(&controls)),
            SkelmapStatus::Ok
        );
        let mut want = LocalPose::default();
        rust.sample_controlled(
            0,
            1,
            0.5,
            Interpolation::Nlerp,
            &Controls { values },
            &mut want,
        );
        assert_eq!(local.matrices(), matrices(&want));
        let mut plain = LocalPose::default();
        rust.sample(0, 1, 0.5, Interpolation::Nlerp, &mut plain);
        // The HL1 controller turns bone 1 (400° wrapped to 40°); the tube has none.
        assert_eq!(matrices(&want) == matrices(&plain), controllers == 0);
        // Refusals leave the pose as it was.
        let nan = SkelmapControls {
            values: [0.0, f32::NAN, 0.0, 0.0, 0.0],
        };
        let refused = [
            (
                local.sample_controlled(Some(&c), frame, Some(&nan)),
                SkelmapStatus::InvalidArgument,
            ),
            (
                local.sample_controlled(Some(&c), frame, None),
                SkelmapStatus::NullParameter,
            ),
            (
                local.sample_controlled(None, frame, Some(&controls)),
                SkelmapStatus::NullParameter,
            ),
            (
                local.sample_controlled(Some(&c), (0, 10_000, 0.5, 0), Some(&controls)),
                SkelmapStatus::OutOfRange,
            ),
        ];
        for (got, want) in refused {
            assert_eq!(got, want);
        }
        assert_eq!(local.matrices(), matrices(&want));
    }
}

/// A sampler made through C samples as `skelmap_local_pose_sample` does (and, with controls
/// set, as `skelmap_local_pose_sample_controlled`), bit for bit, playing forward, backward
/// and jumping, and refuses what it documents, leaving the pose unchanged.
#[test]
fn a_sampler_samples_as_local_poses_do() {
    use skelmap_capi::local::SkelmapControls;
    use skelmap_core::hl1::{Builder, ControllerDef, raw::STUDIO_ZR};
    let mut b = Builder::example();
    b.controllers.push(ControllerDef {
        bone: 1,
        type_: STUDIO_ZR,
        start: -90.0,
        end: 90.0,
        index: 0,
    });
    let hl1 = b.write().unwrap();
    let tube = character();
    let controls = SkelmapControls {
        values: [35.0, 0.0, 0.0, 0.0, 0.0],
    };
    for bytes in [&hl1, &tube] {
        let c = CModel::open(bytes).unwrap();
        let frames = c.counts().1.frames;
        let mut sampler = CSampler::new(Some(&c)).unwrap();
        let (kept, fresh) = (CLocal::new(), CLocal::new());
        let mut calls: Vec<_> = (0..frames - 1).map(|f| (f, f + 1, 0.25, f % 2)).collect();
        calls.extend([(2, 1, 0.5, 0), (frames - 1, 0, 0.75, 1), (1, 1, 0.0, 0)]);
        for set in [false, true] {
            if set {
                assert_eq!(sampler.set_controls(Some(&controls)), SkelmapStatus::Ok);
                // Keeping no more than one sample needs: the same poses.
                assert_eq!(sampler.set_budget(0), SkelmapStatus::Ok);
            }
            for &call in &calls {
                assert_eq!(sampler.sample(Some(&kept), call), SkelmapStatus::Ok);
                let s = if set {
                    fresh.sample_controlled(Some(&c), call, Some(&controls))
                } else {
                    fresh.sample(Some(&c), call.0, call.1, call.2, call.3)
                };
                assert_eq!(s, SkelmapStatus::Ok);
                assert_eq!(kept.matrices(), fresh.matrices(), "{call:?} {set}");
            }
        }
        // Refusals, the pose unchanged.
        let before = kept.matrices();
        let bad = SkelmapControls {
            values: [0.0, 0.0, f32::INFINITY, 0.0, 0.0],
        };
        assert_eq!(
            [
                sampler.sample(None, (0, 1, 0.5, 0)),
                sampler.sample(Some(&kept), (0, frames, 0.5, 0)),
                sampler.sample(Some(&kept), (0, 1, f32::NAN, 0)),
                sampler.sample(Some(&kept), (0, 1, 0.5, 7)),
                sampler.set_controls(None),
                sampler.set_controls(Some(&bad)),
            ],
            [
                SkelmapStatus::NullParameter,
                SkelmapStatus::OutOfRange,
                SkelmapStatus::InvalidArgument,
                SkelmapStatus::InvalidArgument,
                SkelmapStatus::NullParameter,
                SkelmapStatus::InvalidArgument,
            ]
        );
        assert_eq!(kept.matrices(), before);
        // The refused settings changed nothing: still sampled with `controls`.
        assert_eq!(
            sampler.sample(Some(&kept), (0, 1, 0.5, 0)),
            SkelmapStatus::Ok
        );
        fresh.sample_controlled(Some(&c), (0, 1, 0.5, 0), Some(&controls));
        assert_eq!(kept.matrices(), fresh.matrices());
        assert_eq!(
            null_sampler_statuses(&kept),
            [SkelmapStatus::NullParameter; 3]
        );
    }
    assert_eq!(
        CSampler::new(None).unwrap_err(),
        SkelmapStatus::NullParameter
    );
}

/// A sampler made through C plays clips as `skelmap_local_pose_sample_clip` does, bit for
/// bit, at 60 ticks a second, looped and held, before and far past the clip; it refuses a
/// clip past the model's and a time that is not finite, the pose unchanged.
#[test]
fn a_sampler_plays_clips_as_local_poses_do() {
    let hl1 = skelmap_core::hl1::Builder::example().write().unwrap();
    let tube = character();
    let f = Fixture::new(&tube);
    for c in [&CModel::open(&hl1).unwrap(), &f.c] {
        let clips = c.counts().1.frame_groups;
        assert!(clips >= 2);
        let mut sampler = CSampler::new(Some(c)).unwrap();
        let (kept, fresh) = (CLocal::new(), CLocal::new());
        for clip in 0..clips {
            for looped in [true, false] {
                let times = (0..120).map(|tick| tick as f32 / 60.0);
                for seconds in times.chain([-0.25, 1e4]) {
                    let call = (clip, seconds, looped);
                    assert_eq!(sampler.sample_clip(Some(&kept), call), SkelmapStatus::Ok);
                    let s = fresh.sample_clip(Some(c), clip, seconds, looped);
                    assert_eq!(s, SkelmapStatus::Ok);
                    assert_eq!(kept.matrices(), fresh.matrices(), "{call:?}");
                }
            }
        }
        let before = kept.matrices();
        assert_eq!(
            [
                sampler.sample_clip(None, (0, 0.0, true)),
                sampler.sample_clip(Some(&kept), (clips, 0.0, true)),
                sampler.sample_clip(Some(&kept), (0, f32::INFINITY, true)),
            ],
            [
                SkelmapStatus::NullParameter,
                SkelmapStatus::OutOfRange,
                SkelmapStatus::InvalidArgument,
            ]
        );
        assert_eq!(kept.matrices(), before);
    }
}

/// An Enemy Territory skeleton's torso turned through C is the Rust turn, bit for bit; a
/// NULL axis, a NaN in it and an unsampled pose are refused with their documented statuses.
#[test]
fn a_turned_torso_is_the_rust_one() {
    let (_, bytes) = skelmap_core::mdm::write::Builder::triangle().write();
    let c = CModel::open(&bytes).unwrap();
    let rust = Model::from_bytes(&bytes).unwrap();
    let axis = skelmap_core::glam::Mat3::from_rotation_z(0.8)
        * skelmap_core::glam::Mat3::from_rotation_y(-0.3);
    let floats = axis.to_cols_array();
    let pose = CPose::new();
    assert_eq!(
        pose.turn_torso(true, Some(&c), Some(&floats)),
        SkelmapStatus::InvalidArgument
    );
    let local = CLocal::new();
    assert_eq!(local.sample(Some(&c), 1, 2, 0.25, 0), SkelmapStatus::Ok);
    assert_eq!(
        pose.from_local(true, Some(&c), Some(&local)),
        SkelmapStatus::Ok
    );
    assert_eq!(
        pose.turn_torso(true, Some(&c), None),
        SkelmapStatus::NullParameter
    );
    assert_eq!(
        pose.turn_torso(false, Some(&c), Some(&floats)),
        SkelmapStatus::NullParameter
    );
    assert_eq!(
        pose.turn_torso(true, None, Some(&floats)),
        SkelmapStatus::NullParameter
    );
    let mut nan = floats;
    nan[4] = f32::NAN;
    assert_eq!(
        pose.turn_torso(true, Some(&c), Some(&nan)),
        SkelmapStatus::InvalidArgument
    );
    assert_eq!(
        pose.turn_torso(true, Some(&c), Some(&floats)),
        SkelmapStatus::Ok
    );

    let mut rust_local = LocalPose::default();
    rust.sample(1, 2, 0.25, Interpolation::Nlerp, &mut rust_local);
    let (mut placed, mut turned) = (Pose::default(), Pose::default());
    rust.pose_local(&rust_local, &mut placed).unwrap();
    rust.pose_local(&rust_local, &mut turned).unwrap();
    rust.turn_torso(axis, &mut turned).unwrap();
    assert_ne!(turned.palette().world[1], placed.palette().world[1]);
    for bone in 0..2 {
        let (s, world) = pose.bone_world(bone);
        assert_eq!(s, SkelmapStatus::Ok);
        assert_eq!(world, rows(&turned.palette().world[bone as usize]));
    }
}

/// An Enemy Territory character sampled through C with its legs and torso at their own
/// frames is the Rust pose, bit for bit; NULLs, a frame past the model's and a NaN blend
/// factor are refused with their documented statuses, leaving the pose unsampled.
#[test]
fn legs_and_torso_at_their_own_frames_are_the_rust_pose() {
    let (_, bytes) = skelmap_core::mdm::write::Builder::triangle().write();
    let c = CModel::open(&bytes).unwrap();
    let rust = Model::from_bytes(&bytes).unwrap();
    let (legs, torso) = ((0, 1, 0.25), (2, 1, 0.5));
    let pose = CPose::new();
    assert_eq!(
        pose.sample_legs_torso(false, Some(&c), legs, torso),
        SkelmapStatus::NullParameter
    );
    assert_eq!(
        pose.sample_legs_torso(true, None, legs, torso),
        SkelmapStatus::NullParameter
    );
    assert_eq!(
        pose.sample_legs_torso(true, Some(&c), legs, (2, 3, 0.5)),
        SkelmapStatus::OutOfRange
    );
    assert_eq!(
        pose.sample_legs_torso(true, Some(&c), (0, 1, f32::NAN), torso),
        SkelmapStatus::InvalidArgument
    );
    // Unsampled: the pose holds no bone.
    assert_eq!(pose.bone_world(0).0, SkelmapStatus::OutOfRange);
    assert_eq!(
        pose.sample_legs_torso(true, Some(&c), legs, torso),
        SkelmapStatus::Ok
    );
    let mut split = Pose::default();
    let as_usize = |(a, b, t): (u32, u32, f32)| (a as usize, b as usize, t);
    rust.pose_legs_torso(as_usize(legs), as_usize(torso), &mut split)
        .unwrap();
    for bone in 0..2 {
        let (s, world) = pose.bone_world(bone);
        assert_eq!(s, SkelmapStatus::Ok);
        assert_eq!(world, rows(&split.palette().world[bone as usize]));
    }
}
