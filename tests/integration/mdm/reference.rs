//! Bones, vertices, normals and tags against Enemy Territory, written out here from
//! ET:Legacy's sources (not by calling skelmap's placement): `R_CalcBone` and `InglesToAxis` /
//! `LocalIngleVector` in `src/renderer/tr_animation_mdm.c` (a bone's rotation from pitch, yaw
//! and roll in 65536ths of a turn, applied as rows; its position the parent's plus
//! `parentDist` along the offset direction; a root at the frame's `parentOffset`; a torso bone
//! blending the torso frame's angles by its weight), `RB_MDM_SurfaceAnim` (`Σ weight · (M ·
//! offset + position)`, the normal turned by the first weight's bone) and `R_MDM_GetBoneTag`.
//!
//! The expected values come from the builder's fields in `f64`, not from the file as read.

use skelmap::Model;
use skelmap::Parse;
use skelmap::mdm::write::{Builder, Frame};
use skelmap::mdm::{Mdx, Pair};
use skelmap::model::Pose;
use skelmap::pose::Interpolation;
use skelmap::skin::{SimdLevel, SkinMatrices};
use skelmap::source::Source;
use skelmap::{Limits, mdm::Mdm};

type V3 = [f64; 3];

/// A bone as ET holds it: the rows `axis` (forward, left, up) and the position.
#[derive(Clone, Copy)]
struct EtBone {
    axis: [V3; 3],
    position: V3,
}

fn deg(short: i16) -> f64 {
    f64::from(short) * 360.0 / 65536.0
}

/// `AnglesToAxis` of pitch, yaw, roll in degrees: forward, left (minus right), up.
fn angles_to_axis([pitch, yaw, roll]: [f64; 3]) -> [V3; 3] {
    let (sp, cp) = pitch.to_radians().sin_cos();
    let (sy, cy) = yaw.to_radians().sin_cos();
    let (sr, cr) = roll.to_radians().sin_cos();
    [
        [cp * cy, cp * sy, -sp],
        [sr * sp * cy + cr * -sy, sr * sp * sy + cr * cy, sr * cp],
        [cr * sp * cy + -sr * -sy, cr * sp * sy + -sr * cy, cr * cp],
    ]
}

/// `LocalIngleVector`: the forward of pitch and yaw.
fn ingle_vector(pitch: f64, yaw: f64) -> V3 {
    let (sp, cp) = pitch.to_radians().sin_cos();
    let (sy, cy) = yaw.to_radians().sin_cos();
    [cp * cy, cp * sy, -sp]
}

/// `R_CalcBone` for every bone, legs at `legs`, torso at `torso`, in bone order (parents
/// first).
fn et_bones(b: &Builder, legs: &Frame, torso: &Frame) -> Vec<EtBone> {
    let mut out: Vec<EtBone> = Vec::new();
    for (i, info) in b.bones.iter().enumerate() {
        let w = f64::from(info.torso_weight);
        let l = legs.bones[i];
        let t = torso.bones[i];
        let full = info.torso_weight == 1.0;
        let is_torso = info.torso_weight != 0.0;
        let mut angles = [deg(l.angles[0]), deg(l.angles[1]), deg(l.angles[2])];
        if full {
            angles = [deg(t.angles[0]), deg(t.angles[1]), deg(t.angles[2])];
        } else if is_torso {
            for (j, a) in angles.iter_mut().enumerate() {
                let mut diff = deg(t.angles[j]) - *a;
                if diff.abs() > 180.0 {
                    // AngleNormalize180 of the difference.
                    diff = diff.rem_euclid(360.0);
                    if diff > 180.0 {
                        diff -= 360.0;
                    }
                }
                *a += w * diff;
            }
        }
        let axis = angles_to_axis(angles);
        let position = if info.parent < 0 {
            legs.parent_offset.map(f64::from)
        } else {
            let parent = out[info.parent as usize].position;
            let dl = ingle_vector(deg(l.ofs_angles[0]), deg(l.ofs_angles[1]));
            let dt = ingle_vector(deg(t.ofs_angles[0]), deg(t.ofs_angles[1]));
            let d = if full {
                dt
            } else if is_torso {
                let v: V3 = core::array::from_fn(|k| dl[k] * (1.0 - w) + dt[k] * w);
                let len = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
                v.map(|x| x / len)
            } else {
                dl
            };
            let dist = f64::from(info.parent_dist);
            core::array::from_fn(|k| parent[k] + dist * d[k])
        };
        out.push(EtBone { axis, position });
    }
    out
}

/// `M · v` with `M`'s rows the bone's axes.
fn turn(bone: &EtBone, v: [f32; 3]) -> V3 {
    let v = v.map(f64::from);
    bone.axis
        .map(|row| row[0] * v[0] + row[1] * v[1] + row[2] * v[2])
}

/// `RB_MDM_SurfaceAnim` for surface `s`: positions and normals.
fn et_surface(b: &Builder, s: usize, bones: &[EtBone]) -> (Vec<V3>, Vec<V3>) {
    let mut positions = Vec::new();
    let mut normals = Vec::new();
    for v in &b.surfaces[s].vertices {
        let mut p = [0.0; 3];
        for w in &v.weights {
            let bone = &bones[w.bone as usize];
            let m = turn(bone, w.offset);
            for k in 0..3 {
                p[k] += f64::from(w.weight) * (m[k] + bone.position[k]);
            }
        }
        positions.push(p);
        normals.push(turn(&bones[v.weights[0].bone as usize], v.normal));
    }
    (positions, normals)
}

fn close(got: &[f32], want: &[f64], tolerance: f64, what: &str) {
    assert_eq!(got.len(), want.len());
    for (i, (x, y)) in got.iter().zip(want).enumerate() {
        assert!(
            (f64::from(*x) - y).abs() <= tolerance * y.abs().max(1.0),
            "{what}[{i}]: {x} ≠ {y}"
        );
    }
}

fn model(b: &Builder) -> Model<'static> {
    let (mdm, mdx) = b.write();
    Model::from_mdm(
        Source::from_vec(mdm),
        Source::from_vec(mdx),
        &Limits::DEFAULT,
    )
    .unwrap()
}

/// The fixture with a third bone under the second, so that a grandchild's position walks two
/// distances, and a second tag on it.
pub fn three_bones() -> Builder {
    let mut b = Builder::triangle();
    b.bones.push(skelmap::mdm::write::Bone {
        name: "hand".into(),
        parent: 1,
        torso_weight: 1.0,
        parent_dist: 3.5,
        flags: 1,
    });
    let extra = [
        ([0, 0, 0], [0, 16384]),
        ([1000, -2000, 3000], [4000, 8000]),
        ([-9000, 12000, 300], [-20000, -6000]),
    ];
    for (f, (angles, ofs_angles)) in b.frames.iter_mut().zip(extra) {
        f.bones
            .push(skelmap::mdm::write::BoneFrame { angles, ofs_angles });
    }
    b.surfaces[0].vertices[2].weights[1].bone = 2;
    b.surfaces[0].bone_references.push(2);
    b.tags.push(skelmap::mdm::write::Tag {
        name: "tag_weapon".into(),
        axis: [[0.0, 1.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 0.0, 1.0]],
        bone: 2,
        offset: [1.0, -1.0, 0.25],
        bone_references: vec![0, 1, 2],
    });
    b
}

/// At frame 0 and two other frames, every vertex, normal and tag is where ET puts it: the
/// deform, prepared and compact kernels, and the attachment API.
#[test]
fn every_frame_places_vertices_normals_and_tags_as_et() {
    for b in [Builder::triangle(), three_bones()] {
        let model = model(&b);
        let prepared = model.prepare().unwrap();
        let compact = model.compact().unwrap();
        let mut pose = Pose::default();
        let mut matrices = SkinMatrices::default();
        for k in 0..b.frames.len() {
            let bones = et_bones(&b, &b.frames[k], &b.frames[k]);
            model
                .pose(k, k, 0.0, Interpolation::Nlerp, &mut pose)
                .unwrap();
            compact.matrices(&pose, &mut matrices).unwrap();
            let (p, n) = et_surface(&b, 0, &bones);
            let count = p.len();
            let mut positions = vec![[0.0f32; 3]; count];
            let mut normals = vec![[0.0f32; 3]; count];
            model
                .deform(0, &pose, &mut positions, &mut normals)
                .unwrap();
            close(positions.as_flattened(), p.as_flattened(), 1e-5, "position");
            close(normals.as_flattened(), n.as_flattened(), 1e-5, "normal");
            let mut scratch = vec![[0.0f32; 3]; count];
            prepared
                .skin(
                    0,
                    &pose,
                    SimdLevel::detect(),
                    skelmap::skin::VertexOrder::Original,
                    &mut positions,
                    &mut scratch,
                )
                .unwrap();
            close(positions.as_flattened(), p.as_flattened(), 1e-5, "prepared");
            compact
                .skin_pose(
                    0,
                    &pose,
                    &matrices,
                    SimdLevel::detect(),
                    &mut positions,
                    &mut scratch,
                )
                .unwrap();
            close(positions.as_flattened(), p.as_flattened(), 1e-4, "compact");
            for (i, tag) in b.tags.iter().enumerate() {
                let bone = &bones[tag.bone as usize];
                let m = turn(bone, tag.offset);
                let origin: V3 = core::array::from_fn(|c| m[c] + bone.position[c]);
                let axis = tag.axis.map(|a| turn(bone, a));
                // Flagged bones come first among the attachments.
                let index = model.attachment_index(tag.name.as_bytes()).unwrap();
                assert_eq!(model.tag_bone(i), Some(tag.bone as usize));
                let placed = model.attachment_transform(index, &pose).unwrap();
                let want: Vec<f64> = axis.iter().flatten().chain(&origin).copied().collect();
                close(&placed.to_cols_array(), &want, 1e-5, "tag");
            }
        }
    }
}

/// With a different torso frame, each bone is placed by `R_CalcBone`'s blend: legs bones from
/// the legs frame, full-torso bones from the torso frame, the half-torso bone in between.
#[test]
fn a_torso_frame_blends_bones_by_their_torso_weight() {
    let b = three_bones();
    let (_, mdx) = b.write();
    let mdx = Mdx::parse(&mdx).unwrap();
    for (legs, torso) in [(0, 2), (2, 1), (1, 0), (1, 1)] {
        let bones = et_bones(&b, &b.frames[legs], &b.frames[torso]);
        for (i, want) in bones.iter().enumerate() {
            let got = mdx.bone_transform(legs, torso, i).unwrap();
            // glam's columns are the transposed rows ET applies.
            let rows: Vec<f64> = want.axis.iter().flatten().copied().collect();
            let cols = got.matrix3.transpose().to_cols_array();
            close(&cols, &rows, 1e-5, "rotation");
            close(
                &got.translation.to_array(),
                &want.position,
                1e-5,
                "position",
            );
        }
    }
}

/// The pair's tags at a frame, from the view: as the model's attachments.
#[test]
fn tag_poses_of_the_view_match_et() {
    let b = three_bones();
    let (mdm, mdx) = b.write();
    let pair = Pair::new(Mdm::parse(&mdm).unwrap(), Mdx::parse(&mdx).unwrap()).unwrap();
    for k in 0..3 {
        let bones = et_bones(&b, &b.frames[k], &b.frames[k]);
        for (i, tag) in b.tags.iter().enumerate() {
            let bone = &bones[tag.bone as usize];
            let m = turn(bone, tag.offset);
            let origin: V3 = core::array::from_fn(|c| m[c] + bone.position[c]);
            let got = pair.tag_pose(k, i).unwrap();
            close(&got.origin, &origin, 1e-5, "origin");
            let want: Vec<f64> = tag.axis.iter().flat_map(|a| turn(bone, *a)).collect();
            close(got.axis.as_flattened(), &want, 1e-5, "axis");
        }
    }
}

/// `R_CalcBoneLerp` for every bone with the legs and the torso at the same frames.
fn et_lerp_bones(b: &Builder, old: &Frame, new: &Frame, backlerp: f32) -> Vec<EtBone> {
    et_split_bones(b, (old, new, backlerp), (old, new, backlerp))
}

/// `R_CalcBoneLerp` (the `YD_INGLES` path ET:Legacy builds) for every bone: the legs from
/// `legs.0` to `legs.1` with `backlerp` `legs.2`, the torso likewise. Rotation angles are
/// lerped in 16-bit integers, truncated as C converts; a partial torso bone adds its weight
/// times the wrapped difference to the torso's, truncated again. Offset directions are
/// `SLerp_Normal`ed, a partial bone's pulled by its weight towards the new torso frame's
/// (both ends of that lerp read from it).
fn et_split_bones(
    b: &Builder,
    legs: (&Frame, &Frame, f32),
    torso: (&Frame, &Frame, f32),
) -> Vec<EtBone> {
    let wrap = |d: i32| {
        let d = d & 65535;
        if d > 32767 { d - 65536 } else { d }
    };
    let ingles = |o: &[i16; 3], n: &[i16; 3], backlerp: f32| -> [i32; 3] {
        core::array::from_fn(|j| {
            let diff = wrap(i32::from(n[j]) - i32::from(o[j]));
            (f32::from(n[j]) - backlerp * diff as f32) as i32
        })
    };
    let normal = |v: V3| {
        let len = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
        v.map(|x| x / len)
    };
    let slerp_normal = |from: V3, to: V3, t: f32| {
        let (t, ft) = (f64::from(t), 1.0 - f64::from(t));
        normal(core::array::from_fn(|k| from[k] * ft + to[k] * t))
    };
    let dir = |f: &Frame, i: usize| {
        let a = f.bones[i].ofs_angles;
        ingle_vector(deg(a[0]), deg(a[1]))
    };
    let (lo, ln, backlerp) = legs;
    let (to, tn, torso_backlerp) = torso;
    let (frontlerp, torso_frontlerp) = (1.0 - backlerp, 1.0 - torso_backlerp);
    let mut out: Vec<EtBone> = Vec::new();
    for (i, info) in b.bones.iter().enumerate() {
        let w = info.torso_weight;
        let (full, is_torso) = (w == 1.0, w != 0.0);
        let upper = ingles(&to.bones[i].angles, &tn.bones[i].angles, torso_backlerp);
        let mut angles = ingles(&lo.bones[i].angles, &ln.bones[i].angles, backlerp);
        if full {
            angles = upper;
        } else if is_torso {
            for j in 0..3 {
                let diff = wrap(upper[j] - angles[j]);
                angles[j] = (angles[j] as f32 + w * diff as f32) as i32;
            }
        }
        let axis = angles_to_axis(angles.map(|a| f64::from(a) * 360.0 / 65536.0));
        let position = if info.parent < 0 {
            core::array::from_fn(|k| {
                f64::from(frontlerp * ln.parent_offset[k] + backlerp * lo.parent_offset[k])
            })
        } else {
            let parent = out[info.parent as usize].position;
            let mut d = if full {
                slerp_normal(dir(to, i), dir(tn, i), torso_frontlerp)
            } else {
                slerp_normal(dir(lo, i), dir(ln, i), frontlerp)
            };
            if is_torso && !full {
                let v2 = slerp_normal(dir(tn, i), dir(tn, i), torso_frontlerp);
                d = slerp_normal(d, v2, w);
            }
            let dist = f64::from(info.parent_dist);
            core::array::from_fn(|k| parent[k] + dist * d[k])
        };
        out.push(EtBone { axis, position });
    }
    out
}

/// Between frames, every vertex and tag is where ET's lerp puts it (not where a blend of
/// the frames' poses would), through `Model::pose` and a sampler; at a frame, the frame.
#[test]
fn between_frames_bones_follow_ets_lerp() {
    let b = three_bones();
    let model = model(&b);
    let mut pose = Pose::default();
    let mut sampler = model.sampler();
    let mut far = 0.0_f64;
    for (a, c) in [(0, 1), (1, 2), (2, 0), (2, 1)] {
        for t in [0.0_f32, 0.25, 0.5, 0.85, 1.0] {
            let bones = et_lerp_bones(&b, &b.frames[a], &b.frames[c], 1.0 - t);
            model
                .pose(a, c, t, Interpolation::Nlerp, &mut pose)
                .unwrap();
            let (p, _) = et_surface(&b, 0, &bones);
            let mut positions = vec![[0.0f32; 3]; p.len()];
            let mut normals = positions.clone();
            model
                .deform(0, &pose, &mut positions, &mut normals)
                .unwrap();
            let what = format!("frames {a} → {c} at {t}");
            close(positions.as_flattened(), p.as_flattened(), 1e-5, &what);
            for (i, tag) in b.tags.iter().enumerate() {
                let bone = &bones[tag.bone as usize];
                let m = turn(bone, tag.offset);
                let origin: V3 = core::array::from_fn(|k| m[k] + bone.position[k]);
                let index = model.attachment_index(tag.name.as_bytes()).unwrap();
                let placed = model.attachment_transform(index, &pose).unwrap();
                close(&placed.translation.to_array(), &origin, 1e-5, &what);
                assert_eq!(model.tag_bone(i), Some(tag.bone as usize));
            }
            let mut local = skelmap::pose::LocalPose::default();
            sampler.sample(a, c, t, Interpolation::Nlerp, &mut local);
            assert_eq!(&local, pose.local(), "{what}: sampler");
            // How far a blend of the two frames' poses would have put the vertices.
            let mut blended = skelmap::pose::LocalPose::default();
            model.sample(a, a, 0.0, Interpolation::Nlerp, &mut blended);
            let mut to = skelmap::pose::LocalPose::default();
            model.sample(c, c, 0.0, Interpolation::Nlerp, &mut to);
            for (x, y) in blended.bones.iter_mut().zip(&to.bones) {
                let q = if x.0.dot(y.0) < 0.0 { -y.0 } else { y.0 };
                *x = (x.0.lerp(q, t).normalize(), x.1.lerp(y.1, t));
            }
            let mut other = Pose::default();
            model.pose_local(&blended, &mut other).unwrap();
            model
                .deform(0, &other, &mut positions, &mut normals)
                .unwrap();
            for (g, w) in positions.iter().zip(&p) {
                for k in 0..3 {
                    far = far.max((f64::from(g[k]) - w[k]).abs());
                }
            }
        }
    }
    // The fixture's turns are large enough that the rules differ visibly.
    assert!(
        far > 1e-2,
        "a blend of poses lands within {far} of ET's lerp"
    );
}

/// ET's torso turn, once every bone is placed (`R_CalcBones`, with
/// `Matrix4FromScaledAxisPlusTranslation` and `Matrix4MultiplyInto3x3AndTranslation`): each
/// bone of positive torso weight `w` gets `M = w · A + (1 − w) · I`, `A` the transpose of the
/// entity's `torsoAxis` rows, its rows `M · R` and its position `M · (t − p) + p`, `p` the
/// torso parent's position before the turn.
fn et_turned(b: &Builder, bones: &[EtBone], torso_axis: [V3; 3]) -> Vec<EtBone> {
    let a: [V3; 3] = core::array::from_fn(|i| core::array::from_fn(|j| torso_axis[j][i]));
    let pivot = bones[b.torso_parent as usize].position;
    let turned = |bone: &EtBone, w: f64| {
        let m: [V3; 3] = core::array::from_fn(|i| {
            core::array::from_fn(|j| w * a[i][j] + if i == j { 1.0 - w } else { 0.0 })
        });
        let axis = core::array::from_fn(|i| {
            core::array::from_fn(|j| (0..3).map(|k| m[i][k] * bone.axis[k][j]).sum())
        });
        let t: V3 = core::array::from_fn(|k| bone.position[k] - pivot[k]);
        let position =
            core::array::from_fn(|i| m[i][0] * t[0] + m[i][1] * t[1] + m[i][2] * t[2] + pivot[i]);
        EtBone { axis, position }
    };
    bones
        .iter()
        .zip(&b.bones)
        .map(|(bone, info)| match f64::from(info.torso_weight) {
            w if w > 0.0 => turned(bone, w),
            _ => *bone,
        })
        .collect()
}

/// A torso axis as a game sets it: pitch, yaw and roll turned into ET's rows (forward, left,
/// up), and the same as the matrix skelmap takes (those rows as its columns).
fn torso_axis(angles: [f64; 3]) -> ([V3; 3], skelmap::glam::Mat3) {
    let rows = angles_to_axis(angles);
    let col = |r: V3| skelmap::glam::Vec3::from_array(r.map(|x| x as f32));
    let matrix = skelmap::glam::Mat3::from_cols(col(rows[0]), col(rows[1]), col(rows[2]));
    (rows, matrix)
}

/// With the entity's torso turned, the torso bones (half and whole weight) turn about the
/// torso parent as ET turns them, with legs and torso at any frames; the legs bone stays.
#[test]
fn a_torso_axis_turns_torso_bones_about_the_torso_parent_as_et() {
    let b = three_bones();
    let (_, mdx) = b.write();
    let mdx = Mdx::parse(&mdx).unwrap();
    for angles in [[10.0, 35.0, -20.0], [0.0, -90.0, 0.0], [45.0, 170.0, 60.0]] {
        let (rows, axis) = torso_axis(angles);
        for (legs, torso) in [(0, 0), (1, 1), (2, 1), (0, 2)] {
            let want = et_turned(&b, &et_bones(&b, &b.frames[legs], &b.frames[torso]), rows);
            let mut world: Vec<_> = (0..b.bones.len())
                .map(|i| mdx.bone_transform(legs, torso, i).unwrap())
                .collect();
            let placed = world.clone();
            mdx.turn_torso(&mut world, axis);
            assert_eq!(world[0], placed[0], "the legs bone");
            for (got, want) in world.iter().zip(&want) {
                let rows: Vec<f64> = want.axis.iter().flatten().copied().collect();
                close(
                    &got.matrix3.transpose().to_cols_array(),
                    &rows,
                    1e-5,
                    "rotation",
                );
                close(
                    &got.translation.to_array(),
                    &want.position,
                    1e-5,
                    "position",
                );
            }
            assert!(
                !world[1].matrix3.abs_diff_eq(placed[1].matrix3, 1e-2),
                "{angles:?}: the half-torso bone did not turn"
            );
        }
    }
}

/// Through the model: after `Model::turn_torso`, the deformed vertices, their normals and the
/// tags are where ET puts them with the torso turned; the identity turns nothing; an
/// unsampled pose is refused; another format's pose is left as it is.
#[test]
fn a_turned_torso_moves_vertices_normals_and_tags_as_et() {
    let b = three_bones();
    let model = model(&b);
    let (rows, axis) = torso_axis([-15.0, 50.0, 5.0]);
    let mut pose = Pose::default();
    assert!(matches!(
        model.turn_torso(axis, &mut pose),
        Err(skelmap::model::DeformError::NotSampled)
    ));
    for k in 0..b.frames.len() {
        let bones = et_turned(&b, &et_bones(&b, &b.frames[k], &b.frames[k]), rows);
        model
            .pose(k, k, 0.0, Interpolation::Nlerp, &mut pose)
            .unwrap();
        let before = pose.palette().world.clone();
        model
            .turn_torso(skelmap::glam::Mat3::IDENTITY, &mut pose)
            .unwrap();
        for (got, was) in pose.palette().world.iter().zip(&before) {
            assert!(got.abs_diff_eq(*was, 1e-6), "the identity turned a bone");
        }
        model
            .pose(k, k, 0.0, Interpolation::Nlerp, &mut pose)
            .unwrap();
        model.turn_torso(axis, &mut pose).unwrap();
        assert_placed_as_et(&model, &b, &pose, &bones, &format!("frame {k} turned"));
    }
    let bytes = skelmap::synth::tube(&Default::default()).write().unwrap();
    let other = Model::from_bytes(&bytes).unwrap();
    other
        .pose(1, 1, 0.0, Interpolation::Nlerp, &mut pose)
        .unwrap();
    let before = pose.palette().world.clone();
    other.turn_torso(axis, &mut pose).unwrap();
    assert_eq!(pose.palette().world, before);
}

/// Surface 0's vertices and normals deformed by `pose`, and every tag placed by it, are where
/// ET puts them with its bones at `bones`.
fn assert_placed_as_et(model: &Model<'_>, b: &Builder, pose: &Pose, bones: &[EtBone], what: &str) {
    let (p, n) = et_surface(b, 0, bones);
    let mut positions = vec![[0.0f32; 3]; p.len()];
    let mut normals = vec![[0.0f32; 3]; p.len()];
    model.deform(0, pose, &mut positions, &mut normals).unwrap();
    close(positions.as_flattened(), p.as_flattened(), 1e-5, what);
    close(normals.as_flattened(), n.as_flattened(), 1e-5, what);
    for tag in &b.tags {
        let bone = &bones[tag.bone as usize];
        let m = turn(bone, tag.offset);
        let origin: V3 = core::array::from_fn(|c| m[c] + bone.position[c]);
        let axis = tag.axis.map(|a| turn(bone, a));
        let index = model.attachment_index(tag.name.as_bytes()).unwrap();
        let placed = model.attachment_transform(index, pose).unwrap();
        let want: Vec<f64> = axis.iter().flatten().chain(&origin).copied().collect();
        close(&placed.to_cols_array(), &want, 1e-5, what);
    }
}

/// Legs and torso at their own frame pairs (ET's `oldframe`, `frame`, `backlerp` and
/// `oldTorsoFrame`, `torsoFrame`, `torsoBacklerp`), through `Model::pose_legs_torso`:
/// vertices, normals and tags where ET's `R_CalcBoneLerp` puts them, or `R_CalcBone` where
/// neither pair lerps (one frame twice, or `t = 1`); the torso's pair turned afterwards as
/// ET turns it; the same pair twice is `Model::pose`.
#[test]
fn legs_and_torso_at_their_own_frames_place_vertices_and_tags_as_et() {
    let b = three_bones();
    let model = model(&b);
    let (rows, axis) = torso_axis([10.0, -35.0, 20.0]);
    let (mut pose, mut plain) = (Pose::default(), Pose::default());
    let backlerp = |(a, c, t): (usize, usize, f32)| if a == c { 0.0 } else { 1.0 - t };
    let pairs = [
        (0, 1, 0.25),
        (2, 0, 0.5),
        (1, 1, 0.7),
        (2, 1, 1.0),
        (1, 2, 0.0),
    ];
    for legs in pairs {
        for torso in pairs {
            let (lb, tb) = (backlerp(legs), backlerp(torso));
            let frame = |i: usize| &b.frames[i];
            let bones = if lb == 0.0 && tb == 0.0 {
                et_bones(&b, frame(legs.1), frame(torso.1))
            } else {
                et_split_bones(
                    &b,
                    (frame(legs.0), frame(legs.1), lb),
                    (frame(torso.0), frame(torso.1), tb),
                )
            };
            model.pose_legs_torso(legs, torso, &mut pose).unwrap();
            let what = format!("legs {legs:?}, torso {torso:?}");
            assert_placed_as_et(&model, &b, &pose, &bones, &what);
            model.turn_torso(axis, &mut pose).unwrap();
            let turned = et_turned(&b, &bones, rows);
            assert_placed_as_et(&model, &b, &pose, &turned, &format!("{what} turned"));
            if legs == torso {
                let (a, c, t) = legs;
                model
                    .pose(a, c, t, Interpolation::Nlerp, &mut plain)
                    .unwrap();
                model.pose_legs_torso(legs, torso, &mut pose).unwrap();
                assert_eq!(pose.local(), plain.local(), "{what}");
            }
        }
    }
}

/// `Model::pose_legs_torso` refuses a frame past the model's and a `t` that is not finite in
/// either pair, leaving the pose unsampled; a model without torso weights (a DPM) follows
/// its legs' pair.
#[test]
fn legs_and_torso_refuse_missing_frames_and_other_formats_follow_the_legs() {
    use skelmap::model::DeformError;
    let model = model(&three_bones());
    let mut pose = Pose::default();
    model
        .pose_legs_torso((0, 1, 0.5), (1, 2, 0.5), &mut pose)
        .unwrap();
    assert_eq!(
        model.pose_legs_torso((0, 1, 0.5), (1, 3, 0.5), &mut pose),
        Err(DeformError::NoFrame {
            frame: 3,
            frames: 3
        })
    );
    assert!(!pose.is_sampled());
    assert_eq!(
        model.pose_legs_torso((5, 1, 0.5), (1, 2, 0.5), &mut pose),
        Err(DeformError::NoFrame {
            frame: 5,
            frames: 3
        })
    );
    assert!(matches!(
        model.pose_legs_torso((0, 1, 0.5), (1, 2, f32::NAN), &mut pose),
        Err(DeformError::Blend(t)) if t.is_nan()
    ));
    let bytes = skelmap::synth::tube(&Default::default()).write().unwrap();
    let other = Model::from_bytes(&bytes).unwrap();
    let mut legs = Pose::default();
    other
        .pose_legs_torso((1, 2, 0.25), (3, 0, 0.5), &mut pose)
        .unwrap();
    other
        .pose(1, 2, 0.25, Interpolation::Nlerp, &mut legs)
        .unwrap();
    assert_eq!(pose.palette().world, legs.palette().world);
    let frames = other.num_frames();
    assert_eq!(
        other.pose_legs_torso((1, 2, 0.25), (frames, 0, 0.5), &mut pose),
        Err(DeformError::NoFrame {
            frame: frames,
            frames
        })
    );
}

/// A skeleton whose header names no torso parent turns its torso bones about the origin (ET
/// keeps whatever `torsoParentOffset` it last set, which no file decides).
#[test]
fn without_a_torso_parent_the_torso_turns_about_the_origin() {
    let mut b = three_bones();
    b.torso_parent = -1;
    let (_, bytes) = b.write();
    let mdx = Mdx::parse(&bytes).unwrap();
    assert_eq!(mdx.torso_parent(), None);
    let (_, axis) = torso_axis([5.0, -40.0, 12.0]);
    let mut world: Vec<_> = (0..3)
        .map(|i| mdx.bone_transform(2, 2, i).unwrap())
        .collect();
    let placed = world.clone();
    mdx.turn_torso(&mut world, axis);
    for (bone, weight) in [(0, 0.0_f32), (1, 0.5), (2, 1.0)] {
        let m = skelmap::glam::Mat3A::from(
            axis * weight + skelmap::glam::Mat3::IDENTITY * (1.0 - weight),
        );
        let want = m * placed[bone].translation;
        assert!(
            world[bone].translation.abs_diff_eq(want, 1e-5),
            "bone {bone}: {} against {want}",
            world[bone].translation
        );
        assert!(
            world[bone]
                .matrix3
                .abs_diff_eq(m * placed[bone].matrix3, 1e-6)
        );
    }
}
