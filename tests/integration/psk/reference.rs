//! A reference written from the spec, not from the reader: the test walks the chunks of the
//! builder's files itself, reads the records at the offsets `docs/formats/psk.md` § Layout
//! gives, poses the skeleton in Unreal's own axes by the spec's rules (bone 0's quaternion as
//! stored, the others' conjugated; a bone's world transform its parent's times its own),
//! skins each wedge's point by its normalised weights (`world(t) · world(ref)⁻¹`), and only
//! then mirrors the result into right-handed axes (`Y` negated). `Model::deform` and the
//! compact kernel must agree at the reference pose and at two animated frames.

use skelmap::Model;
use skelmap::glam::{Affine3A, Quat, Vec3A};
use skelmap::model::Pose;
use skelmap::pose::Interpolation;
use skelmap::skin::{SimdLevel, SkinMatrices};

use super::{Builder, pair_files};

/// The records of the chunk named `id`: `(record size, count, bytes)`.
fn chunk<'a>(file: &'a [u8], id: &str) -> Option<(usize, usize, &'a [u8])> {
    let mut at = 0usize;
    while at + 32 <= file.len() {
        let name = &file[at..at + 20];
        let end = name.iter().position(|&c| c == 0).unwrap_or(20);
        let size = i32::from_le_bytes(file[at + 24..at + 28].try_into().unwrap()) as usize;
        let count = i32::from_le_bytes(file[at + 28..at + 32].try_into().unwrap()) as usize;
        let data = &file[at + 32..at + 32 + size * count];
        if &name[..end] == id.as_bytes() {
            return Some((size, count, data));
        }
        at += 32 + size * count;
    }
    None
}

fn f32_at(b: &[u8], at: usize) -> f32 {
    f32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

fn i32_at(b: &[u8], at: usize) -> i32 {
    i32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

/// A quaternion as a file stores it (`X, Y, Z, W` at `at`), as the rotation it means in
/// Unreal's axes: bone 0's as stored, the others' conjugated.
fn unreal_rotation(b: &[u8], at: usize, root: bool) -> Quat {
    let q = Quat::from_xyzw(
        f32_at(b, at),
        f32_at(b, at + 4),
        f32_at(b, at + 8),
        f32_at(b, at + 12),
    )
    .normalize();
    if root { q } else { q.conjugate() }
}

fn vec3(b: &[u8], at: usize) -> Vec3A {
    Vec3A::new(f32_at(b, at), f32_at(b, at + 4), f32_at(b, at + 8))
}

/// World transforms (Unreal's axes) of bones given their local poses and parents.
fn worlds(locals: &[(Quat, Vec3A)], parents: &[i32]) -> Vec<Affine3A> {
    let mut out: Vec<Affine3A> = Vec::new();
    for (i, &(q, t)) in locals.iter().enumerate() {
        let local = Affine3A::from_rotation_translation(q, t.into());
        out.push(if i == 0 {
            local
        } else {
            out[parents[i] as usize] * local
        });
    }
    out
}

/// The skinned, mirrored position of every wedge of `psk` when the bones take `locals`.
fn reference(psk: &[u8], locals: Option<&[(Quat, Vec3A)]>) -> Vec<[f32; 3]> {
    let (_, num_bones, bones) = chunk(psk, "REFSKELT").unwrap();
    let rest: Vec<(Quat, Vec3A)> = (0..num_bones)
        .map(|i| {
            let at = 120 * i + 76;
            (unreal_rotation(bones, at, i == 0), vec3(bones, at + 16))
        })
        .collect();
    let parents: Vec<i32> = (0..num_bones)
        .map(|i| i32_at(bones, 120 * i + 72))
        .collect();
    let reference = worlds(&rest, &parents);
    let posed = worlds(locals.unwrap_or(&rest), &parents);
    let (_, _, points) = chunk(psk, "PNTS0000").unwrap();
    let (_, num_wedges, wedges) = chunk(psk, "VTXW0000").unwrap();
    let (_, num_weights, weights) = chunk(psk, "RAWWEIGHTS").unwrap();
    (0..num_wedges)
        .map(|w| {
            let point = (u32::from_le_bytes(wedges[16 * w..16 * w + 4].try_into().unwrap())
                & 0xFFFF) as usize;
            let p = vec3(points, 12 * point);
            let mine: Vec<(usize, f32)> = (0..num_weights)
                .filter(|&k| i32_at(weights, 12 * k + 4) as usize == point)
                .map(|k| {
                    (
                        i32_at(weights, 12 * k + 8) as usize,
                        f32_at(weights, 12 * k),
                    )
                })
                .collect();
            let total: f32 = mine.iter().map(|m| m.1).sum();
            let mut out = Vec3A::ZERO;
            for (bone, weight) in mine {
                let m = posed[bone] * reference[bone].inverse();
                out += m.transform_point3a(p) * (weight / total);
            }
            [out.x, -out.y, out.z]
        })
        .collect()
}

/// The keys of frame `frame` of `psa`, as local poses in Unreal's axes.
fn keys(psa: &[u8], frame: usize) -> Vec<(Quat, Vec3A)> {
    let (_, num_bones, _) = chunk(psa, "BONENAMES").unwrap();
    let (_, _, keys) = chunk(psa, "ANIMKEYS").unwrap();
    (0..num_bones)
        .map(|b| {
            let at = 32 * (frame * num_bones + b);
            (unreal_rotation(keys, at + 12, b == 0), vec3(keys, at))
        })
        .collect()
}

fn deformed(model: &Model<'_>, frame: usize) -> Vec<[f32; 3]> {
    let mut pose = Pose::default();
    model
        .pose(frame, frame, 0.0, Interpolation::Nlerp, &mut pose)
        .unwrap();
    let n = model.mesh(0).unwrap().num_vertices();
    let (mut p, mut q) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
    model.deform(0, &pose, &mut p, &mut q).unwrap();
    p
}

fn assert_close(got: &[[f32; 3]], want: &[[f32; 3]], what: &str) {
    assert_eq!(got.len(), want.len());
    for (v, (g, w)) in got.iter().zip(want).enumerate() {
        for c in 0..3 {
            assert!(
                (g[c] - w[c]).abs() <= 1e-5 * (1.0 + w[c].abs()),
                "{what}: vertex {v} is {g:?}, the spec gives {w:?}"
            );
        }
    }
}

#[test]
fn the_reference_pose_is_the_stored_points_mirrored() {
    let psk = Builder::example().write_psk().unwrap();
    let model = Model::from_bytes(&psk).unwrap();
    assert_eq!(model.num_frames(), 1);
    let want = reference(&psk, None);
    assert_close(&deformed(&model, 0), &want, "reference pose");
    // The stored point 2 is (0, −1, 2): mirrored, (0, 1, 2), bit for bit.
    assert_eq!(want[2], [0.0, 1.0, 2.0]);
    assert_eq!(deformed(&model, 0)[2], [0.0, 1.0, 2.0]);
}

#[test]
fn two_animated_frames_move_as_the_spec_says() {
    let files = pair_files();
    let model = Model::resolve(&&files, "models/soldier.psk", &skelmap::Limits::default()).unwrap();
    assert_eq!(model.num_frames(), 3);
    let (psk, psa) = (&files["models/soldier.psk"], &files["models/soldier.psa"]);
    let compact = model.compact().unwrap();
    for frame in [1, 2] {
        let want = reference(psk, Some(&keys(psa, frame)));
        assert_close(&deformed(&model, frame), &want, "Model::deform");
        let mut pose = Pose::default();
        model
            .pose(frame, frame, 0.0, Interpolation::Nlerp, &mut pose)
            .unwrap();
        let n = want.len();
        let (mut p, mut q) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
        let mut matrices = SkinMatrices::default();
        compact.matrices(&pose, &mut matrices).unwrap();
        compact
            .skin(0, &matrices, SimdLevel::detect(), &mut p, &mut q)
            .unwrap();
        assert_close(&p, &want, "compact");
    }
    // Frame 2 lifts the root by 0.5 and turns the arm 1 radian more about Z: the bottom
    // points follow the root alone.
    let at2 = deformed(&model, 2);
    assert_close(&at2[..2], &[[0.0, -1.0, 0.5], [0.0, 1.0, 0.5]], "bottom");
}
