//! Vertices, tags and compressed frames against ioquake3, written out here from its sources
//! (not by calling skelmap's kernels): `RB_MDRSurfaceAnim` in `code/renderergl1/tr_animation.c`
//! (the bone blend `frontlerp · frame + backlerp · oldframe` entry by entry, then
//! `Σ weight · (M · offset + T)` and `Σ weight · (M · normal)` per vertex), `R_GetAnimTag` and
//! `R_LerpTag` in `code/renderergl1/tr_model.c` (a tag's axes are its bone matrix's columns,
//! blended linearly and each normalised), and `MC_UnCompress` (`tr_animation.c`, with
//! `tr_local.h`'s `MC_BITS_*` and `MC_SCALE_*`).
//!
//! The expected values come from the builder's matrices, not from the file as read.

use skelmap::Model;
use skelmap::Parse;
use skelmap::glam::Affine3A;
use skelmap::mdr::Mdr;
use skelmap::mdr::write::{Builder, FrameDef, Matrix, SurfaceDef, turn_z};
use skelmap::model::Pose;
use skelmap::pose::Interpolation;
use skelmap::skin::{SimdLevel, SkinMatrices};

use super::{animated, compressed};

/// ioquake3's bone blend: `oldframe` is `a`, `frame` is `b`, `backlerp = 1 − t`; no blend
/// when the frames are the same.
fn ioq3_bones(a: &[Matrix], b: &[Matrix], same: bool, t: f32) -> Vec<Matrix> {
    if same {
        return b.to_vec();
    }
    let (front, back) = (t, 1.0 - t);
    a.iter()
        .zip(b)
        .map(|(old, new)| {
            core::array::from_fn(|r| core::array::from_fn(|c| front * new[r][c] + back * old[r][c]))
        })
        .collect()
}

/// ioquake3's vertex loop over one surface with blended bones `bones`.
fn ioq3_surface(s: &SurfaceDef, bones: &[Matrix]) -> (Vec<[f32; 3]>, Vec<[f32; 3]>) {
    let dot = |row: &[f32; 4], v: [f32; 3]| row[0] * v[0] + row[1] * v[1] + row[2] * v[2];
    s.vertices
        .iter()
        .map(|v| {
            let (mut p, mut n) = ([0.0f32; 3], [0.0f32; 3]);
            for w in &v.weights {
                let bone = &bones[w.bone as usize];
                for r in 0..3 {
                    p[r] += w.weight * (dot(&bone[r], w.offset) + bone[r][3]);
                    n[r] += w.weight * dot(&bone[r], v.normal);
                }
            }
            (p, n)
        })
        .unzip()
}

/// ioquake3's `R_GetAnimTag`: axis `j` is column `j` of the bone's matrix, the origin its
/// translation column.
fn ioq3_tag(m: &Matrix) -> ([f32; 3], [[f32; 3]; 3]) {
    let axis = core::array::from_fn(|j| [m[0][j], m[1][j], m[2][j]]);
    ([m[0][3], m[1][3], m[2][3]], axis)
}

/// ioquake3's `R_LerpTag`: origins and axes blended (`backLerp = 1 − frac` on the start
/// frame), each axis normalised.
fn ioq3_lerp_tag(start: &Matrix, end: &Matrix, frac: f32) -> ([f32; 3], [[f32; 3]; 3]) {
    let ((so, sa), (eo, ea)) = (ioq3_tag(start), ioq3_tag(end));
    let lerp = |x: [f32; 3], y: [f32; 3]| -> [f32; 3] {
        core::array::from_fn(|i| x[i] * (1.0 - frac) + y[i] * frac)
    };
    let unit = |v: [f32; 3]| {
        let len = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
        v.map(|c| c / len)
    };
    (
        lerp(so, eo),
        core::array::from_fn(|j| unit(lerp(sa[j], ea[j]))),
    )
}

fn close(a: &[f32], b: &[f32], tolerance: f32, what: &str) {
    assert_eq!(a.len(), b.len());
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        assert!(
            (x - y).abs() <= tolerance * y.abs().max(1.0),
            "{what}[{i}]: {x} ≠ {y}"
        );
    }
}

/// Every mesh of `model` deformed by `pose`: the zero-copy path, the prepared kernel and the
/// compact kernel, each.
fn deformed(model: &Model<'_>, pose: &Pose) -> Vec<[Vec<[f32; 3]>; 3]> {
    let prepared = model.prepare().unwrap();
    let compact = model.compact().unwrap();
    let mut matrices = SkinMatrices::default();
    compact.matrices(pose, &mut matrices).unwrap();
    model
        .meshes()
        .map(|mesh| {
            let n = mesh.num_vertices();
            let mut out: [Vec<[f32; 3]>; 3] = Default::default();
            let mut normals = vec![[0.0f32; 3]; n];
            for o in &mut out {
                *o = vec![[0.0f32; 3]; n];
            }
            model
                .deform(mesh.index(), pose, &mut out[0], &mut normals)
                .unwrap();
            let mut scratch = vec![[0.0f32; 3]; n];
            prepared
                .skin(
                    mesh.index(),
                    pose,
                    SimdLevel::detect(),
                    skelmap::skin::VertexOrder::Original,
                    &mut out[1],
                    &mut scratch,
                )
                .unwrap();
            compact
                .skin_pose(
                    mesh.index(),
                    pose,
                    &matrices,
                    SimdLevel::detect(),
                    &mut out[2],
                    &mut scratch,
                )
                .unwrap();
            out
        })
        .collect()
}

/// At every frame `k`, each vertex, normal and tag is where ioquake3 puts it: the deform, the
/// prepared and the compact kernels, and the attachment API; plain and compressed frames
/// (the compressed ones against their decoded matrices).
#[test]
fn every_frame_places_vertices_normals_and_tags_as_ioquake3() {
    for b in [
        animated(),
        Builder {
            compressed: true,
            ..animated()
        },
    ] {
        let bytes = b.write();
        let model = Model::from_bytes(&bytes).unwrap();
        let mdr = Mdr::parse(&bytes).unwrap();
        let mut pose = Pose::default();
        for k in 0..b.frames.len() {
            let stored: Vec<Matrix> = if b.compressed {
                (0..b.num_bones)
                    .map(|i| skelmap::mdr::write::compress(&b.frames[k].bones[i]).matrix())
                    .collect()
            } else {
                b.frames[k].bones.clone()
            };
            let bones = ioq3_bones(&stored, &stored, true, 0.0);
            model
                .pose(k, k, 0.0, Interpolation::Nlerp, &mut pose)
                .unwrap();
            for (s, [direct, prepared, compact]) in b.lods[0].iter().zip(deformed(&model, &pose)) {
                let (p, n) = ioq3_surface(s, &bones);
                let tolerance = if b.compressed { 2e-4 } else { 2e-6 };
                for got in [&direct, &prepared, &compact] {
                    close(got.as_flattened(), p.as_flattened(), tolerance, "position");
                }
                let mut normals = vec![[0.0f32; 3]; n.len()];
                let mut positions = normals.clone();
                let mesh = b.lods[0].iter().position(|x| x == s).unwrap();
                model
                    .deform(mesh, &pose, &mut positions, &mut normals)
                    .unwrap();
                close(
                    normals.as_flattened(),
                    n.as_flattened(),
                    tolerance,
                    "normal",
                );
            }
            for (i, tag) in b.tags.iter().enumerate() {
                let (origin, axis) = ioq3_tag(&stored[tag.bone as usize]);
                let stored_tag = mdr.tag_pose(k, i).unwrap();
                assert_eq!((stored_tag.origin, stored_tag.axis), (origin, axis));
                let placed = model.attachment_transform(i, &pose).unwrap();
                let want = Affine3A::from_cols_array_2d(&[axis[0], axis[1], axis[2], origin]);
                close(
                    &placed.to_cols_array(),
                    &want.to_cols_array(),
                    if b.compressed { 2e-4 } else { 2e-6 },
                    "tag",
                );
            }
        }
    }
}

/// `m` with its first three columns multiplied by `scale`: a scale along the bone's axes.
fn scaled(m: Matrix, scale: [f32; 3]) -> Matrix {
    m.map(|row| {
        [
            row[0] * scale[0],
            row[1] * scale[1],
            row[2] * scale[2],
            row[3],
        ]
    })
}

/// ioquake3 applies a bone's whole matrix to each offset: frames whose bones scale along
/// their axes, unevenly, or mirror place every vertex where its matrix puts it, in plain
/// frames and in compressed ones (whose rotation words hold entries up to 1, so the scales
/// there shrink). Pure turns, even compressed, read as unscaled.
#[test]
fn frames_that_scale_or_mirror_bones_place_vertices_as_ioquake3() {
    for compressed in [false, true] {
        let mut b = Builder {
            compressed,
            ..animated()
        };
        let unscaled = b.write();
        assert!(!Mdr::parse(&unscaled).unwrap().has_scale(), "{compressed}");
        let factors: [[f32; 3]; 3] = if compressed {
            [[0.5, 0.75, 0.9], [-1.0, 1.0, 1.0], [0.8, 0.8, 0.8]]
        } else {
            [[1.5, 0.5, 2.0], [-1.0, 1.0, 1.0], [0.25, 3.0, 1.0]]
        };
        for frame in &mut b.frames[1..] {
            for (bone, factor) in frame.bones.iter_mut().zip(factors) {
                *bone = scaled(*bone, factor);
            }
        }
        let bytes = b.write();
        let model = Model::from_bytes(&bytes).unwrap();
        assert!(Mdr::parse(&bytes).unwrap().has_scale());
        let mut pose = Pose::default();
        for k in 0..b.frames.len() {
            let stored: Vec<Matrix> = b.frames[k]
                .bones
                .iter()
                .map(|m| {
                    if compressed {
                        skelmap::mdr::write::compress(m).matrix()
                    } else {
                        *m
                    }
                })
                .collect();
            model
                .pose(k, k, 0.0, Interpolation::Nlerp, &mut pose)
                .unwrap();
            let tolerance = if compressed { 2e-4 } else { 2e-6 };
            for (s, got) in b.lods[0].iter().zip(deformed(&model, &pose)) {
                let (p, _) = ioq3_surface(s, &stored);
                for g in &got {
                    close(g.as_flattened(), p.as_flattened(), tolerance, "position");
                }
            }
        }
    }
}

/// A bone flattened along one axis (a column of zeros, as a game hides a part) keeps its
/// turn, and its vertices land where ioquake3's matrix puts them, flat.
#[test]
fn a_bone_flattened_along_an_axis_keeps_its_turn() {
    use skelmap::pose::PoseFrames;
    let mut b = animated();
    for axis in 0..3 {
        let mut factor = [1.0f32; 3];
        factor[axis] = 0.0;
        b.frames[axis + 1].bones[2] = scaled(b.frames[axis + 1].bones[2], factor);
    }
    let bytes = b.write();
    let model = Model::from_bytes(&bytes).unwrap();
    let mdr = Mdr::parse(&bytes).unwrap();
    let mut pose = Pose::default();
    for k in 1..4 {
        let (q, _) = mdr.bone_pose(k, 2).unwrap();
        let want = skelmap::glam::Quat::from_rotation_z((45.0 * k as f32).to_radians());
        assert!(q.dot(want).abs() > 1.0 - 1e-6, "frame {k}: {q} ≠ {want}");
        model
            .pose(k, k, 0.0, Interpolation::Nlerp, &mut pose)
            .unwrap();
        for (s, got) in b.lods[0].iter().zip(deformed(&model, &pose)) {
            let (p, _) = ioq3_surface(s, &b.frames[k].bones);
            for g in &got {
                close(g.as_flattened(), p.as_flattened(), 2e-6, "position");
            }
        }
    }
}

/// Between frames whose rotations are the same, ioquake3's entry-by-entry blend and
/// skelmap's quaternion blend agree: each bone only moves.
#[test]
fn between_frames_that_only_move_bones_vertices_follow_ioquake3() {
    let mut b = animated();
    b.frames = vec![
        FrameDef {
            name: b"a".to_vec(),
            bones: vec![
                turn_z(30.0, [0.0, 0.0, 0.0]),
                turn_z(-45.0, [1.0, 2.0, 3.0]),
                turn_z(90.0, [-1.0, 0.0, 2.0]),
            ],
        },
        FrameDef {
            name: b"b".to_vec(),
            bones: vec![
                turn_z(30.0, [4.0, -2.0, 1.0]),
                turn_z(-45.0, [0.0, 0.0, 0.0]),
                turn_z(90.0, [3.0, 3.0, -3.0]),
            ],
        },
    ];
    let bytes = b.write();
    let model = Model::from_bytes(&bytes).unwrap();
    let mut pose = Pose::default();
    for t in [0.25f32, 0.5, 0.8] {
        let bones = ioq3_bones(&b.frames[0].bones, &b.frames[1].bones, false, t);
        model
            .pose(0, 1, t, Interpolation::Nlerp, &mut pose)
            .unwrap();
        for (s, got) in b.lods[0].iter().zip(deformed(&model, &pose)) {
            let (p, _) = ioq3_surface(s, &bones);
            for g in &got {
                close(g.as_flattened(), p.as_flattened(), 4e-6, "position");
            }
        }
        for (i, tag) in b.tags.iter().enumerate() {
            let bone = tag.bone as usize;
            let (origin, axis) =
                ioq3_lerp_tag(&b.frames[0].bones[bone], &b.frames[1].bones[bone], t);
            let placed = model.attachment_transform(i, &pose).unwrap();
            let want = Affine3A::from_cols_array_2d(&[axis[0], axis[1], axis[2], origin]);
            close(&placed.to_cols_array(), &want.to_cols_array(), 4e-6, "tag");
        }
    }
}

/// Between frames whose rotations differ, ioquake3 shrinks a turning bone by `cos(θ/2)` half
/// way (its entries are blended, not its rotation); skelmap keeps it rigid. Half way between
/// turns about one axis, ioquake3's normalised tag axes are the rigid midpoint exactly, so
/// tags agree; vertices differ from ioquake3's by exactly the shrink of each offset's part
/// across the axis, which this test computes and checks (docs/formats/mdr.md § Quirks).
#[test]
fn between_frames_that_turn_bones_tags_agree_and_vertices_stay_rigid() {
    let b = animated();
    let bytes = b.write();
    let model = Model::from_bytes(&bytes).unwrap();
    let mut pose = Pose::default();
    let (fa, fb) = (1, 3);
    model
        .pose(fa, fb, 0.5, Interpolation::Nlerp, &mut pose)
        .unwrap();
    let (a, bb) = (&b.frames[fa].bones, &b.frames[fb].bones);
    for (i, tag) in b.tags.iter().enumerate() {
        let bone = tag.bone as usize;
        let (origin, axis) = ioq3_lerp_tag(&a[bone], &bb[bone], 0.5);
        let placed = model.attachment_transform(i, &pose).unwrap();
        let want = Affine3A::from_cols_array_2d(&[axis[0], axis[1], axis[2], origin]);
        close(&placed.to_cols_array(), &want.to_cols_array(), 4e-6, "tag");
    }
    // The rigid half-way bone: ioquake3's blended matrix with its turning (X, Y) block
    // divided by the shrink, cos(θ/2) for the turn θ between the frames (all about +Z).
    let shrink = |m: &Matrix, n: &Matrix| {
        let angle = |m: &Matrix| m[1][0].atan2(m[0][0]);
        (0.5 * (angle(n) - angle(m))).cos()
    };
    let blended = ioq3_bones(a, bb, false, 0.5);
    let rigid: Vec<Matrix> = blended
        .iter()
        .zip(a.iter().zip(bb))
        .map(|(m, (x, y))| {
            let k = shrink(x, y);
            let mut r = *m;
            for row in r.iter_mut().take(2) {
                row[0] /= k;
                row[1] /= k;
            }
            r
        })
        .collect();
    for (s, got) in b.lods[0].iter().zip(deformed(&model, &pose)) {
        let (engine, _) = ioq3_surface(s, &blended);
        let (kept, _) = ioq3_surface(s, &rigid);
        for g in &got {
            close(
                g.as_flattened(),
                kept.as_flattened(),
                4e-6,
                "rigid position",
            );
        }
        // And ioquake3's own differs where a weighted bone turns, by the shrink only.
        let moved = engine
            .iter()
            .zip(&kept)
            .any(|(e, k)| (0..3).any(|c| (e[c] - k[c]).abs() > 1e-3));
        assert!(moved || s.name == b"triangle", "surface {:?}", s.name);
    }
}

/// A compressed bone's twelve words decode as `MC_UnCompress` does: `(word − 32768) / 64` for
/// the translation, `(word − 32768) / 32766` for the rotation row by row. Checked on the
/// bytes of the file at the builder's offsets, for hand-picked words, and for the builder's
/// rounding (each value within half a step of the matrix it was given).
#[test]
fn compressed_frames_decode_as_mc_uncompress() {
    let b = compressed();
    let (bytes, layout) = b.write_with_layout();
    let mdr = Mdr::parse(&bytes).unwrap();
    assert!(mdr.is_compressed());
    assert_eq!(
        i32::from_le_bytes(bytes[80..84].try_into().unwrap()),
        -(layout.frames as i32)
    );
    let stride = 40 + 24 * b.num_bones;
    for (f, frame) in b.frames.iter().enumerate() {
        for bone in 0..b.num_bones {
            let at = layout.frames as usize + f * stride + 40 + 24 * bone;
            let word = |i: usize| {
                f32::from(u16::from_le_bytes([
                    bytes[at + 2 * i],
                    bytes[at + 2 * i + 1],
                ]))
            };
            let decoded = mdr.frame(f).unwrap().matrix(bone).unwrap();
            for (r, (row, given)) in decoded.iter().zip(&frame.bones[bone]).enumerate() {
                let t = (word(r) - 32768.0) * (1.0 / 64.0);
                assert_eq!(row[3], t);
                assert!((t - given[3]).abs() <= 0.5 / 64.0);
                for c in 0..3 {
                    let v = (word(3 + 3 * r + c) - 32768.0) * (1.0 / 32766.0);
                    assert_eq!(row[c], v);
                    assert!((v - given[c]).abs() <= 0.5 / 32766.0);
                }
            }
        }
    }
    // Frame 1, bone 1: turned 90° about +Z and moved by (1, 2, 3): the words are exact.
    let at = layout.frames as usize + stride + 40 + 24;
    let words: Vec<u16> = (0..12)
        .map(|i| u16::from_le_bytes([bytes[at + 2 * i], bytes[at + 2 * i + 1]]))
        .collect();
    assert_eq!(
        words,
        [
            32768 + 64,
            32768 + 128,
            32768 + 192, // 1, 2, 3 at 1/64
            32768,
            32768 - 32766,
            32768, // cos 90°, −sin 90°, 0 (cos rounds to 0)
            32768 + 32766,
            32768,
            32768, // sin 90°, cos 90°, 0
            32768,
            32768,
            32768 + 32766, // 0, 0, 1
        ]
    );
    assert_eq!(
        mdr.frame(1).unwrap().matrix(1).unwrap(),
        [
            [0.0, -1.0, 0.0, 1.0],
            [1.0, 0.0, 0.0, 2.0],
            [0.0, 0.0, 1.0, 3.0]
        ]
    );
    // No names in compressed frames.
    assert_eq!(mdr.frame(0).unwrap().name(), b"");
}
