//! The view's batch paths against its one-at-a-time accessors, bit for bit: the bind pose
//! walked over the triangle commands (`BindPoseMesh::copy_bind_pose`) against
//! `bind_vertex` (and the blends that read it: `BindPoseMesh::for_each_rigid_vertex`), a frame's poses resolved once (`PoseFrames::frame_poses_into`) against
//! `bone_pose`, and two frames decoded together (`frame_pair_poses_into`) against each
//! alone; and which companion files opening asks for.

use std::cell::RefCell;
use std::collections::HashMap;

use skelmap::Skeleton;
use skelmap::hl1::{BodyPartDef, Builder, Pair};

use super::apart;
use skelmap::pose::{BindPoseMesh, PoseFrames};
use skelmap::{Limits, Model, Parse, Resolver, Source};

/// Every corpus model (with its companions) and the example, each checked by `check`.
fn each_model(check: impl Fn(&str, &Pair<'_>)) {
    let bytes = Builder::example().write().unwrap();
    let model = Model::from_bytes(&bytes).unwrap();
    check("example", model.as_hl1().unwrap());
    // Two body parts' studio models, the first of three meshes: the walk keeps a model's
    // moved arrays between its meshes and moves the next model's.
    let mut b = Builder::example();
    let mut second = b.bodyparts[0].models[0].clone();
    let mesh = second.meshes[0].clone();
    b.bodyparts[0].models[0].meshes.push(mesh);
    for v in &mut second.vertices {
        v.position[0] += 7.0;
        v.bone = 1 - v.bone;
    }
    second.normals.reverse();
    b.bodyparts.push(BodyPartDef {
        name: "second".into(),
        models: vec![second],
    });
    let bytes = b.write().unwrap();
    let model = Model::from_bytes(&bytes).unwrap();
    let pair = model.as_hl1().unwrap();
    // Three meshes and two, a command of four vertices each.
    assert_eq!(BindPoseMesh::num_vertices(&pair), 20);
    check("two models", pair);
    if let Some(dir) = skelmap_testkit::corpus_engines_path("hl1") {
        for name in [
            "assimp_man.mdl",
            "assimp_chrome_sphere.mdl",
            "assimp_multiple_roots.mdl",
        ] {
            let model = Model::open(dir.join(name)).unwrap();
            check(name, model.as_hl1().unwrap());
        }
    }
}

#[test]
fn the_bind_pose_walk_gives_each_vertex_as_bind_vertex_does() {
    each_model(|name, pair| {
        let n = BindPoseMesh::num_vertices(&pair);
        assert!(n > 0, "{name}");
        let (mut p, mut q) = (vec![[f32::NAN; 3]; n], vec![[f32::NAN; 3]; n]);
        pair.copy_bind_pose(&mut p, &mut q);
        for v in 0..n {
            let one = pair.bind_vertex(v).unwrap();
            let bits = |a: [f32; 3]| a.map(f32::to_bits);
            assert_eq!(
                bits(p[v]),
                bits(one.position.to_array()),
                "{name} vertex {v}"
            );
            assert_eq!(bits(q[v]), bits(one.normal.to_array()), "{name} vertex {v}");
        }
        // A short output takes the first vertices only.
        let (mut p2, mut q2) = (vec![[0.0; 3]; 2], vec![[0.0; 3]; 3]);
        pair.copy_bind_pose(&mut p2, &mut q2);
        assert_eq!((&p2[..], &q2[..2]), (&p[..2], &q[..2]), "{name}");
        assert_eq!(q2[2], [0.0; 3], "{name}");
    });
}

/// A mesh as the blends read it without its rigid walk: one `bind_vertex` a vertex.
struct OneByOne<'p, 'a>(&'p Pair<'a>);

impl BindPoseMesh for OneByOne<'_, '_> {
    fn num_vertices(&self) -> usize {
        BindPoseMesh::num_vertices(&self.0)
    }

    fn bind_vertex(&self, i: usize) -> Option<skelmap::pose::BindVertex> {
        self.0.bind_vertex(i)
    }
}

#[test]
fn the_blends_read_the_rigid_walk_as_each_bind_vertex() {
    use skelmap::glam::{Affine3A, Quat, Vec3};
    use skelmap::skin::dqs::DualQuat;
    use skelmap::skin::{self, SimdLevel, SkinError};
    let bits =
        |a: &[[f32; 3]]| -> Vec<[u32; 3]> { a.iter().map(|v| v.map(f32::to_bits)).collect() };
    each_model(|name, pair| {
        let n = BindPoseMesh::num_vertices(&pair);
        let mut walked = Vec::new();
        assert!(pair.for_each_rigid_vertex(|v, bone, p, q| walked.push((v, bone, p, q))));
        assert_eq!(walked.len(), n, "{name}");
        for (k, &(v, bone, p, q)) in walked.iter().enumerate() {
            let one = pair.bind_vertex(v).unwrap();
            assert_eq!(v, k, "{name}");
            assert_eq!(one.influences[0], Some((bone, 1.0)), "{name} vertex {v}");
            assert!(
                one.influences[1..].iter().all(Option::is_none),
                "{name} vertex {v}"
            );
            assert_eq!(
                p.to_array().map(f32::to_bits),
                one.position.to_array().map(f32::to_bits)
            );
            assert_eq!(
                q.to_array().map(f32::to_bits),
                one.normal.to_array().map(f32::to_bits)
            );
        }
        // A different turn, scale and move for every bone, so that a vertex read with
        // another bone's delta would show.
        let deltas: Vec<Affine3A> = (0..pair.skeleton_bones().len())
            .map(|b| {
                let b = b as f32;
                Affine3A::from_scale_rotation_translation(
                    Vec3::new(1.0 + 0.1 * b, 0.9, 1.1),
                    Quat::from_euler(skelmap::glam::EulerRot::XYZ, 0.3 * b, -0.2, 0.1 + b),
                    Vec3::new(b, -2.0 * b, 0.5),
                )
            })
            .collect();
        let dual: Vec<DualQuat> = deltas.iter().map(DualQuat::from_affine).collect();
        let blank = || (vec![[f32::NAN; 3]; n], vec![[f32::NAN; 3]; n]);
        for level in [SimdLevel::Portable, SimdLevel::detect()] {
            let ((mut p, mut q), (mut p1, mut q1)) = (blank(), blank());
            skin::bind_lbs_with_level(&pair, &deltas, level, &mut p, &mut q).unwrap();
            skin::bind_lbs_with_level(&OneByOne(pair), &deltas, level, &mut p1, &mut q1).unwrap();
            assert_eq!(
                (bits(&p), bits(&q)),
                (bits(&p1), bits(&q1)),
                "{name} {level:?}"
            );
        }
        let ((mut p, mut q), (mut p1, mut q1)) = (blank(), blank());
        skin::bind_dqs(&pair, &dual, &mut p, &mut q).unwrap();
        skin::bind_dqs(&OneByOne(pair), &dual, &mut p1, &mut q1).unwrap();
        assert_eq!((bits(&p), bits(&q)), (bits(&p1), bits(&q1)), "{name} DQS");
        let ((mut p, _), (mut p1, _)) = (blank(), blank());
        skin::bind_positions(&pair, &deltas, &mut p).unwrap();
        skin::bind_positions(&OneByOne(pair), &deltas, &mut p1).unwrap();
        assert_eq!(bits(&p), bits(&p1), "{name} positions");
        // A palette short of a bone a vertex uses: the same error, after the same vertices.
        let used = walked.iter().map(|w| w.1).max().unwrap();
        let short = &deltas[..usize::from(used)];
        let ((mut p, mut q), (mut p1, mut q1)) = (blank(), blank());
        let e = skin::bind_lbs(&pair, short, &mut p, &mut q).unwrap_err();
        let e1 = skin::bind_lbs(&OneByOne(pair), short, &mut p1, &mut q1).unwrap_err();
        let want = SkinError::Palette {
            bone: u32::from(used),
            have: usize::from(used),
        };
        assert_eq!((&e, &e1), (&want, &want), "{name}");
        assert_eq!((bits(&p), bits(&q)), (bits(&p1), bits(&q1)), "{name} short");
        let e = skin::bind_dqs(&pair, &dual[..usize::from(used)], &mut p, &mut q).unwrap_err();
        assert_eq!(e, want, "{name} DQS");
    });
}

#[test]
fn a_frames_poses_are_each_bones_pose() {
    let check = |name: &str, pair: &Pair<'_>| {
        let bones = pair.skeleton_bones().len();
        assert!(pair.num_frames() > 1, "{name}");
        let mut out = Vec::new();
        for frame in 0..pair.num_frames() {
            out.clear();
            pair.frame_poses_into(frame, &mut out);
            assert_eq!(out.len(), bones, "{name} frame {frame}");
            for (bone, &(q, t)) in out.iter().enumerate() {
                let (q1, t1) = pair.bone_pose(frame, bone).unwrap();
                let bits = |q: skelmap::glam::Quat, t: skelmap::glam::Vec3A| {
                    (
                        q.to_array().map(f32::to_bits),
                        t.to_array().map(f32::to_bits),
                    )
                };
                assert_eq!(bits(q, t), bits(q1, t1), "{name} frame {frame} bone {bone}");
            }
        }
        out.clear();
        pair.frame_poses_into(pair.num_frames(), &mut out);
        assert!(out.is_empty(), "{name}: past the last frame");
        // Two frames decoded together (each channel walked once when they share a
        // sequence): the next frame, the same frame, the first frame and one past the end.
        let frames = pair.num_frames();
        let (mut a, mut b, mut one) = (Vec::new(), Vec::new(), Vec::new());
        for f in 0..frames {
            for g in [f + 1, f, 0, frames - 1 - f, frames] {
                a.clear();
                b.clear();
                pair.frame_pair_poses_into(f, g, &mut a, &mut b);
                for (frame, got) in [(f, &a), (g, &b)] {
                    one.clear();
                    pair.frame_poses_into(frame, &mut one);
                    let bits = |v: &[(skelmap::glam::Quat, skelmap::glam::Vec3A)]| {
                        v.iter()
                            .map(|(q, t)| {
                                (
                                    q.to_array().map(f32::to_bits),
                                    t.to_array().map(f32::to_bits),
                                )
                            })
                            .collect::<Vec<_>>()
                    };
                    assert_eq!(bits(got), bits(&one), "{name} frames {f} and {g}: {frame}");
                }
            }
        }
    };
    each_model(check);
    each_size(check);
    // A frame in a sequence group's file.
    let b = apart();
    let files: HashMap<String, Vec<u8>> = [
        ("man.mdl", b.write().unwrap()),
        ("manT.mdl", b.write_textures().unwrap()),
        ("man01.mdl", b.write_group(1).unwrap()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    let model = Model::resolve(&&files, "man.mdl", &Limits::default()).unwrap();
    assert_eq!(model.num_frames(), 1 + 4 + 3);
    check("apart", model.as_hl1().unwrap());
}

/// A run of frames decoded together (`frame_run_poses_into`), with and without controls, is
/// each frame decoded alone, bit for bit: as long as asked for at most, at least two frames
/// where its sequence has them, never past the sequence's last frame.
#[test]
fn a_run_of_frames_is_each_frame_alone() {
    use skelmap::hl1::Controls;
    let controls = Controls {
        values: [30.0, -20.0, 1.5, 0.0, 0.25],
    };
    let check = |name: &str, pair: &Pair<'_>| {
        let bones = pair.skeleton_bones().len();
        let frames = pair.num_frames();
        let controlled = pair.controlled(controls);
        let (mut run, mut one) = (Vec::new(), Vec::new());
        for first in 0..=frames {
            let (sequence, f) = pair.sequence_frame(first).unwrap_or((0, 0));
            let left = if first < frames {
                pair.model().sequences()[sequence].numframes.get() as usize - f as usize
            } else {
                0
            };
            for max in [0, 1, 2, 3, 5, 16, 100] {
                for with_controls in [false, true] {
                    run.clear();
                    let n = if with_controls {
                        controlled.frame_run_poses_into(first, max, &mut run)
                    } else {
                        pair.frame_run_poses_into(first, max, &mut run)
                    };
                    let at = format!("{name} from {first}, at most {max}, {with_controls}");
                    assert!(n <= max.min(left), "{at}: {n}");
                    assert!(n >= max.min(left).min(2), "{at}: {n}");
                    assert_eq!(run.len(), n * bones, "{at}");
                    for k in 0..n {
                        one.clear();
                        if with_controls {
                            controlled.frame_poses_into(first + k, &mut one);
                        } else {
                            pair.frame_poses_into(first + k, &mut one);
                        }
                        assert_eq!(
                            bits(&run[k * bones..(k + 1) * bones]),
                            bits(&one),
                            "{at}: frame {}",
                            first + k
                        );
                    }
                }
            }
        }
    };
    fn bits(v: &[(skelmap::glam::Quat, skelmap::glam::Vec3A)]) -> Vec<([u32; 4], [u32; 3])> {
        v.iter()
            .map(|(q, t)| {
                (
                    q.to_array().map(f32::to_bits),
                    t.to_array().map(f32::to_bits),
                )
            })
            .collect()
    }
    each_model(check);
    each_size(check);
}

/// Models of the example's bones repeated to 2, 5, 8, 9, 16, 17, 19, 40 and 44 bones (a
/// chain each after the first), every bone animated on some channel and still on others: the
/// sizes where a frame's decoding changes its layout (several frames to sixteen lanes, one,
/// more than sixteen bones, a last chunk of one, three, eight or twelve bones).
fn each_size(check: impl Fn(&str, &Pair<'_>)) {
    for bones in [2usize, 5, 8, 9, 16, 17, 19, 40, 44] {
        let bytes = super::chain(bones).write().unwrap();
        let model = Model::from_bytes(&bytes).unwrap();
        check(&format!("{bones} bones"), model.as_hl1().unwrap());
    }
}

#[test]
fn a_controlled_frames_poses_are_each_bones_pose() {
    use skelmap::hl1::Controls;
    let controls = Controls {
        values: [30.0, -20.0, 1.5, 0.0, 0.25],
    };
    let check = |name: &str, pair: &Pair<'_>| {
        let controlled = pair.controlled(controls);
        let bones = pair.skeleton_bones().len();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for f in 0..pair.num_frames() {
            let g = (f + 1) % pair.num_frames();
            a.clear();
            b.clear();
            controlled.frame_pair_poses_into(f, g, &mut a, &mut b);
            for (frame, got) in [(f, &a), (g, &b)] {
                assert_eq!(got.len(), bones, "{name}");
                for (bone, &(q, t)) in got.iter().enumerate() {
                    let (q1, t1) = controlled.bone_pose(frame, bone).unwrap();
                    let bits = |q: skelmap::glam::Quat, t: skelmap::glam::Vec3A| {
                        (
                            q.to_array().map(f32::to_bits),
                            t.to_array().map(f32::to_bits),
                        )
                    };
                    assert_eq!(bits(q, t), bits(q1, t1), "{name} frame {frame} bone {bone}");
                }
            }
        }
        // A model without controllers samples as it does without controls.
        if pair.model().controllers().is_empty() {
            let (mut plain, mut one) = (Vec::new(), Vec::new());
            pair.frame_poses_into(0, &mut plain);
            controlled.frame_poses_into(0, &mut one);
            assert_eq!(plain, one, "{name}");
        }
    };
    each_model(check);
    each_size(check);
}

/// `Model::sample_controlled` is the controlled pair's sample, bit for bit, and for a model
/// without controllers (a DPM, and any shared model without them) `Model::sample` itself;
/// `Model::controllers` lists what the file stores.
#[test]
fn the_model_samples_with_its_controllers_set() {
    use skelmap::hl1::{ControllerDef, Controls, raw::STUDIO_RLOOP, raw::STUDIO_YR};
    use skelmap::pose::{Interpolation, LocalPose};
    let controls = Controls {
        values: [30.0, -20.0, 1.5, 0.0, 0.25],
    };
    let mut b = Builder::example();
    b.controllers.push(ControllerDef {
        bone: 1,
        type_: STUDIO_YR | STUDIO_RLOOP,
        start: -45.0,
        end: 45.0,
        index: 0,
    });
    let example = b.write().unwrap();
    let tube = skelmap::synth::tube(&Default::default()).write().unwrap();
    let mut models = vec![("example".to_string(), Model::from_bytes(&example).unwrap())];
    if let Some(dir) = skelmap_testkit::corpus_engines_path("hl1") {
        for name in ["assimp_man.mdl", "assimp_chrome_sphere.mdl"] {
            models.push((name.to_string(), Model::open(dir.join(name)).unwrap()));
        }
    }
    models.push(("tube".to_string(), Model::from_bytes(&tube).unwrap()));
    let (mut got, mut want) = (LocalPose::default(), LocalPose::default());
    for (name, model) in &models {
        let stored = model.as_hl1().map_or(&[][..], |p| p.model().controllers());
        // The same records: the model's are the view's.
        let read = model.controllers();
        assert_eq!(read.len(), stored.len(), "{name}");
        assert!(
            read.is_empty() || read.as_ptr() == stored.as_ptr(),
            "{name}"
        );
        let frames = model.num_frames();
        for (a, b, t) in [(0, 1, 0.5), (frames - 1, 0, 0.25), (1, 1, 0.0)] {
            model.sample_controlled(a, b, t, Interpolation::Nlerp, &controls, &mut got);
            match model.as_hl1() {
                Some(pair) => skelmap::pose::sample(
                    &pair.controlled(controls),
                    a.min(frames - 1),
                    b.min(frames - 1),
                    t,
                    Interpolation::Nlerp,
                    &mut want,
                ),
                None => model.sample(a, b, t, Interpolation::Nlerp, &mut want),
            }
            assert_eq!(got, want, "{name} {a} {b} {t}");
            if model.controllers().is_empty() {
                model.sample(a, b, t, Interpolation::Nlerp, &mut want);
                assert_eq!(got, want, "{name}: no controllers, no change");
            }
        }
    }
    assert_eq!(models[0].1.controllers().len(), 1);
    // The example's controller turns bone 1: its pose differs from the plain sample's.
    models[0]
        .1
        .sample(0, 1, 0.5, Interpolation::Nlerp, &mut want);
    models[0]
        .1
        .sample_controlled(0, 1, 0.5, Interpolation::Nlerp, &controls, &mut got);
    assert_eq!(got.bones[0], want.bones[0]);
    assert_ne!(got.bones[1], want.bones[1]);
}

/// An in-memory resolver that records every path asked for.
struct Recording {
    files: HashMap<String, Vec<u8>>,
    asked: RefCell<Vec<String>>,
}

impl<'m> Resolver<'m> for &'m Recording {
    fn load(&self, path: &str) -> skelmap::Result<Option<Source<'m>>> {
        self.asked.borrow_mut().push(path.to_string());
        Ok(self.files.get(path).map(|b| Source::from_bytes(b)))
    }
}

fn asked(files: &[(&str, Vec<u8>)]) -> Vec<String> {
    let recording = Recording {
        files: files
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect(),
        asked: RefCell::new(Vec::new()),
    };
    Model::resolve(&&recording, "man.mdl", &Limits::default()).unwrap();
    recording.asked.into_inner()
}

#[test]
fn only_the_companions_the_header_uses_are_looked_for() {
    // Textures inside and one sequence group: nothing beside the model (no `.framegroups`
    // either: the sequences are the clips).
    let inside = Builder::example().write().unwrap();
    assert_eq!(asked(&[("man.mdl", inside)]), ["man.mdl"]);
    // Textures apart and two groups: the texture file (upper case found first) and group 1,
    // and no group 2.
    let b = apart();
    let (main, textures, group) = (
        b.write().unwrap(),
        b.write_textures().unwrap(),
        b.write_group(1).unwrap(),
    );
    assert_eq!(
        asked(&[
            ("man.mdl", main.clone()),
            ("manT.mdl", textures.clone()),
            ("man01.mdl", group.clone())
        ]),
        ["man.mdl", "manT.mdl", "man01.mdl"]
    );
    // The lower-case texture file after the upper case one is missed; a missing group
    // ends the search.
    assert_eq!(
        asked(&[("man.mdl", main), ("mant.mdl", textures)]),
        ["man.mdl", "manT.mdl", "mant.mdl", "man01.mdl",]
    );
}

/// Regression (the `hl1` fuzz target's first crash): a default pose whose translations chain
/// past `f32` (each one finite, as validation proves) opens, gives non-finite bind positions
/// for the vertices of the bone past the range and finite ones for the others, and goes
/// through every accessor and the format-neutral walk without a panic. The harness had
/// asserted every bind position finite, which only holds where the stored values are far from
/// `f32`'s range (`exercise::hl1_near_f32_limit`).
#[test]
fn a_default_pose_past_f32_gives_non_finite_bind_positions_only() {
    let bytes = super::bind_overflow();
    let model = skelmap::Model::from_bytes(&bytes).unwrap();
    let pair = model.as_hl1().unwrap();
    assert!(crate::exercise::hl1_near_f32_limit(pair.model()));
    let mut per_bone = [0usize; 2];
    pair.for_each_bind_vertex(|_, bone, p, _| {
        if bone == 1 {
            assert!(!p.is_finite(), "{p}");
        } else {
            assert!(p.is_finite(), "{p}");
        }
        per_bone[usize::from(bone)] += 1;
    });
    assert_eq!(per_bone, [3, 5]);
    crate::exercise::hl1(pair.model());
    crate::exercise::model(&model);
    // The example itself is far from the limit.
    let example = super::example();
    let example = skelmap::hl1::Hl1::parse(&example).unwrap();
    assert!(!crate::exercise::hl1_near_f32_limit(&example));
}

/// The companion warning of `man.mdl` opened from `files`: what, offset, count and detail.
fn companion_warning(files: &HashMap<String, Vec<u8>>) -> Option<(&'static str, u64, u64, String)> {
    let model = Model::resolve(&files, "man.mdl", &Limits::default()).unwrap();
    let w = model
        .diagnostics()
        .get(skelmap::WarningKind::CompanionIgnored)?;
    Some((w.what, w.offset, w.count, w.detail.clone()))
}

/// A model without textures of its own whose texture file is not at hand draws its meshes
/// untextured, their coordinates in texels, and says so, naming both spellings looked for
/// (real files: HaloGS's `agrunt.mdl` without `agruntT.mdl`, on which assimp gives up). A
/// file of that name that is no studio model is not the texture file; one that is, but is
/// refused, is named with its error instead; a model with its textures has nothing to say.
#[test]
fn a_missing_texture_file_is_a_warning_naming_both_spellings() {
    let b = apart();
    let mut files: HashMap<String, Vec<u8>> = [
        ("man.mdl".to_string(), b.write().unwrap()),
        ("man01.mdl".to_string(), b.write_group(1).unwrap()),
    ]
    .into_iter()
    .collect();
    let missing = "manT.mdl or mant.mdl not found: the model has no textures of its own, so \
                   its meshes have none and their texture coordinates stay in texels";
    let expected = Some(("companion", 0, 1, missing.to_string()));
    assert_eq!(companion_warning(&files), expected);
    let model = Model::resolve(&&files, "man.mdl", &Limits::default()).unwrap();
    assert_eq!(model.skins().len(), 0);
    assert_eq!(model.mesh(0).unwrap().vertex_texcoord(3), Some([4.0, 4.0]));
    drop(model);
    files.insert("manT.mdl".to_string(), b"IDSQ not textures".to_vec());
    assert_eq!(companion_warning(&files), expected);
    let mut refused = b.write_textures().unwrap();
    refused.truncate(300);
    files.insert("manT.mdl".to_string(), refused);
    let (_, _, count, detail) = companion_warning(&files).unwrap();
    assert!(count == 1 && detail.starts_with("manT.mdl: "), "{detail}");
    // Opened and refused: the one companion left out (the group file is played).
    let model = Model::resolve(&&files, "man.mdl", &Limits::default()).unwrap();
    assert_eq!(
        model.left_out().collect::<Vec<_>>(),
        [(skelmap::model::Companion::Textures, "manT.mdl")]
    );
    assert_eq!(model.companions().count(), 2);
    drop(model);
    files.insert("manT.mdl".to_string(), b.write_textures().unwrap());
    assert_eq!(companion_warning(&files), None);
    let whole = super::example();
    let model = Model::from_bytes(&whole).unwrap();
    assert!(!model.skins().is_empty());
    assert!(model.diagnostics().is_empty(), "{:?}", model.diagnostics());
}

/// A sequence group whose file is not at hand leaves its sequences without frames, and says
/// so: one warning naming the first missing file and how many sequences it costs (real files:
/// a `scientist.mdl` whose folder lacks `scientist08.mdl`). Opened from bytes, no group file
/// is at hand.
#[test]
fn a_missing_sequence_group_is_a_warning_naming_its_file() {
    use skelmap::WarningKind;
    let b = apart();
    let (main, textures) = (b.write().unwrap(), b.write_textures().unwrap());
    let files: HashMap<String, Vec<u8>> = [
        ("man.mdl".to_string(), main.clone()),
        ("manT.mdl".to_string(), textures),
    ]
    .into_iter()
    .collect();
    let model = Model::resolve(&&files, "man.mdl", &Limits::default()).unwrap();
    let warning = model
        .diagnostics()
        .get(WarningKind::CompanionIgnored)
        .unwrap();
    assert_eq!(
        (warning.what, warning.offset, warning.count),
        ("companion", 0, 1)
    );
    assert_eq!(
        warning.detail,
        "man01.mdl not found: sequence group 1 left out, with its 1 sequences"
    );
    let clips: Vec<&str> = model.clips().iter().map(|c| c.name.as_str()).collect();
    assert!(!clips.contains(&"far"), "{clips:?}");
    // Opened from bytes, neither the texture file nor the group's is at hand: one warning
    // says both.
    let model = Model::from_bytes(&main).unwrap();
    let warning = model
        .diagnostics()
        .get(WarningKind::CompanionIgnored)
        .unwrap();
    assert_eq!(
        (warning.detail.as_str(), warning.count),
        (
            "the texture file not found: the model has no textures of its own, so its meshes \
             have none and their texture coordinates stay in texels; the file of sequence \
             group 1 not found: sequence group 1 left out, with its 1 sequences",
            2
        )
    );
    // With the group at hand, nothing is said.
    let mut files = files.clone();
    files.insert("man01.mdl".to_string(), b.write_group(1).unwrap());
    let model = Model::resolve(&&files, "man.mdl", &Limits::default()).unwrap();
    assert!(
        model
            .diagnostics()
            .get(WarningKind::CompanionIgnored)
            .is_none()
    );
    assert!(model.clips().iter().any(|c| c.name == "far"));
    // Groups past the 15 files looked for are not asked for at all, and the warning says so.
    let mut b = apart();
    b.groups = (1..=16).map(|g| format!("group{g}")).collect();
    b.sequences.last_mut().unwrap().group = 16;
    let mut files: HashMap<String, Vec<u8>> = (1..=15)
        .map(|g| (format!("man{g:02}.mdl"), b.write_group(g).unwrap()))
        .collect();
    files.insert("man.mdl".to_string(), b.write().unwrap());
    files.insert("manT.mdl".to_string(), b.write_textures().unwrap());
    let model = Model::resolve(&&files, "man.mdl", &Limits::default()).unwrap();
    assert_eq!(
        model
            .diagnostics()
            .get(WarningKind::CompanionIgnored)
            .map(|w| w.detail.as_str()),
        Some(
            "man16.mdl not looked for (at most 15 sequence-group files are): sequence group \
             16 left out, with its 1 sequences"
        )
    );
}
