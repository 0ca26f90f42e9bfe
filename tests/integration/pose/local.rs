//! `pose::sample`'s blend and `Palette::build` against glam's arithmetic written out per bone,
//! bit for bit, at skeleton sizes that take every path: one pose at a time, four-lane blends,
//! 16-bone steps, partial steps of a few and of many, with and without scales; and the
//! formats that blend frames stored as poses (baked frames, MD5) without the generic copy.

use skelmap::Parse;
use skelmap::dpm::{self, BoneDef, Dpm, FrameDef, Influence, MeshDef};
use skelmap::glam::{Affine3A, Mat3, Quat, Vec3A, Vec4};
use skelmap::pose::{self, BakedFrames, Interpolation, LocalPose, Palette};

/// Skeleton sizes around every threshold: steps of 16, partial steps of fewer than four (left
/// to scalar code), the 12 from which sampling blends 16 at a time.
const SIZES: [usize; 18] = [
    1, 2, 3, 4, 5, 7, 8, 11, 12, 13, 15, 16, 17, 19, 20, 31, 33, 40,
];

/// A fixed pseudo-random sequence in −1..1 from `seed`.
fn sequence(seed: u32) -> impl FnMut() -> f32 {
    let mut state = seed.wrapping_mul(2_654_435_761).wrapping_add(7);
    move || {
        state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        (state >> 8) as f32 / (1u32 << 24) as f32 * 2.0 - 1.0
    }
}

/// A DPM of `bones` bones (each a root or the child of a pseudo-random earlier bone) and three
/// frames of pseudo-random rotations (both hemispheres) and translations within ±10.
fn model(bones: usize) -> Vec<u8> {
    let mut next = sequence(bones as u32);
    let mut b = dpm::Builder::default();
    for i in 0..bones {
        let parent = if i == 0 || next() < -0.6 {
            -1
        } else {
            ((next() * 0.5 + 0.5) * i as f32).min(i as f32 - 1.0) as i32
        };
        b.bones.push(BoneDef::new(format!("b{i}"), parent));
    }
    // One triangle on bone 0: a DPM has a mesh.
    b.meshes.push(MeshDef {
        shader: b"skin".to_vec(),
        vertices: (0..3)
            .map(|i| {
                vec![Influence::weighted(
                    0,
                    1.0,
                    [i as f32, 0.0, 0.0],
                    [0.0, 0.0, 1.0],
                )]
            })
            .collect(),
        texcoords: vec![[0.0, 0.0]; 3],
        triangles: vec![[0, 1, 2]],
        group_ids: vec![],
    });
    for f in 0..3 {
        let poses = (0..bones)
            .map(|_| {
                let q = Quat::from_xyzw(next(), next(), next(), next()).normalize();
                let m = Mat3::from_quat(q);
                let t = [next() * 10.0, next() * 10.0, next() * 10.0];
                core::array::from_fn(|r| {
                    let row = m.row(r);
                    [row.x, row.y, row.z, t[r]]
                })
            })
            .collect();
        b.frames.push(FrameDef::new(format!("f{f}"), poses));
    }
    b.write().unwrap()
}

/// One bone's nlerp as `pose::sample` documents it, in glam's operations.
fn nlerp(a: (Quat, Vec3A), b: (Quat, Vec3A), t: f32) -> (Quat, Vec3A) {
    let ((qa, ta), (qb, tb)) = (a, b);
    let qb = if qa.dot(qb) < 0.0 { -qb } else { qb };
    let q = Vec4::from(qa).lerp(Vec4::from(qb), t);
    let inverse = 1.0 / q.length_squared().sqrt();
    (Quat::from_vec4(q * inverse), ta.lerp(tb, t))
}

fn same_pose(x: (Quat, Vec3A), y: (Quat, Vec3A)) -> bool {
    x.0.to_array().map(f32::to_bits) == y.0.to_array().map(f32::to_bits)
        && x.1.to_array().map(f32::to_bits) == y.1.to_array().map(f32::to_bits)
}

fn same_affine(x: &Affine3A, y: &Affine3A) -> bool {
    x.to_cols_array().map(f32::to_bits) == y.to_cols_array().map(f32::to_bits)
}

#[test]
fn sampling_blends_every_bone_as_its_nlerp_at_every_size() {
    for bones in SIZES {
        let bytes = model(bones);
        let file = Dpm::parse(&bytes).unwrap();
        let baked = BakedFrames::new(&file).unwrap();
        let (mut from_baked, mut from_file) = (LocalPose::default(), LocalPose::default());
        for (a, b, t) in [(0, 1, 0.5), (1, 2, 0.25), (2, 0, 0.9), (1, 1, 0.3)] {
            pose::sample(&baked, a, b, t, Interpolation::Nlerp, &mut from_baked);
            // DPM's own pass, which converts and blends the file's matrices.
            pose::sample(&file, a, b, t, Interpolation::Nlerp, &mut from_file);
            assert_eq!(from_baked.bones.len(), bones);
            let (fa, fb) = (baked.frame(a).unwrap(), baked.frame(b).unwrap());
            for (i, &got) in from_baked.bones.iter().enumerate() {
                let want = nlerp(fa[i], fb[i], t);
                assert!(
                    same_pose(got, want),
                    "{bones} bones, bone {i}: {got:?} {want:?}"
                );
                assert!(
                    same_pose(from_file.bones[i], want),
                    "{bones} bones, bone {i}, file"
                );
            }
        }
    }
}

#[test]
fn palettes_are_glams_products_at_every_size_with_and_without_scales() {
    let mut palette = Palette::default();
    for bones in SIZES {
        let bytes = model(bones);
        let file = Dpm::parse(&bytes).unwrap();
        let parents: Vec<Option<usize>> = file.bones().map(|b| b.parent()).collect();
        let mut pose = LocalPose::default();
        pose::sample(&file, 0, 1, 0.4, Interpolation::Nlerp, &mut pose);
        let mut next = sequence(1000 + bones as u32);
        // No scales; a scale for every bone; scales for the first few only (scale 1 after).
        for scaled in [0, bones, bones / 2 + 1] {
            pose.scales = (0..scaled)
                .map(|_| Vec3A::new(next(), next(), next()) * 2.0)
                .collect();
            palette.build(&file, &pose);
            let mut want: Vec<Affine3A> = Vec::with_capacity(bones);
            for (i, &(q, t)) in pose.bones.iter().enumerate() {
                let local = match pose.scales.get(i) {
                    Some(&s) => Affine3A::from_scale_rotation_translation(s.into(), q, t.into()),
                    None => Affine3A::from_rotation_translation(q, t.into()),
                };
                want.push(parents[i].map_or(local, |p| want[p] * local));
            }
            assert_eq!(palette.world.len(), bones);
            for (i, (got, want)) in palette.world.iter().zip(&want).enumerate() {
                assert!(
                    same_affine(got, want),
                    "{bones} bones, {scaled} scaled, bone {i}"
                );
            }
        }
        // A pose shorter than the skeleton: the bones past it are at the identity locally.
        pose.scales.clear();
        pose.bones.truncate(bones / 2);
        palette.build(&file, &pose);
        for (i, world) in palette.world.iter().enumerate().skip(bones / 2) {
            let parent = parents[i].map_or(Affine3A::IDENTITY, |p| palette.world[p]);
            // Equal, not bit for bit: a product by the identity turns −0 into +0.
            assert_eq!(*world, parent, "{bones} bones, short pose, bone {i}");
        }
    }
}

/// Formats whose frames are stored as poses blend them without the generic path's copy of
/// frame `b` (`PoseFrames::nlerp_frames_into`): MD5's decoded frames give what each bone's
/// nlerp of `frame_poses_into` gives, bit for bit, within an animation and across two.
#[test]
fn decoded_md5_frames_sample_as_each_bones_nlerp() {
    use skelmap::Model;
    use skelmap::pose::PoseFrames;
    let Some(dir) = skelmap_testkit::corpus_engines_path("md5") else {
        return;
    };
    let mut meshes: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md5mesh"))
        .collect();
    meshes.sort();
    assert!(!meshes.is_empty());
    let mut got = LocalPose::default();
    for path in meshes {
        let model = Model::open(&path).unwrap();
        let m = model.as_md5().unwrap();
        let frames = m.num_frames();
        let (mut fa, mut fb) = (Vec::new(), Vec::new());
        for (a, b, t) in [
            (0, 1, 0.5),
            (frames - 1, 0, 0.3),
            (frames / 2, frames / 2 + 1, 0.8),
        ] {
            let (a, b) = (a.min(frames - 1), b.min(frames - 1));
            pose::sample(m, a, b, t, Interpolation::Nlerp, &mut got);
            fa.clear();
            fb.clear();
            m.frame_poses_into(a, &mut fa);
            m.frame_poses_into(b, &mut fb);
            assert_eq!(got.bones.len(), fa.len(), "{path:?}");
            for (i, (&x, (&pa, &pb))) in got.bones.iter().zip(fa.iter().zip(&fb)).enumerate() {
                assert!(
                    same_pose(x, nlerp(pa, pb, t)),
                    "{path:?} frames {a} {b} bone {i}"
                );
            }
        }
    }
}

/// A DPM's bones behind a skeleton that may give a hierarchy order and a parent table, for
/// `Palette::build`'s walks by each.
struct Walked<'a, 'data> {
    file: &'a Dpm<'data>,
    order: Option<Vec<u16>>,
    table: Option<Vec<u16>>,
}

impl<'data> skelmap::Skeleton<'data> for Walked<'_, 'data> {
    fn skeleton_bones(&self) -> impl ExactSizeIterator<Item = skelmap::pose::Bone<'data>> + Clone {
        self.file.skeleton_bones()
    }

    fn hierarchy_order(&self) -> Option<&[u16]> {
        self.order.as_deref()
    }

    fn parent_table(&self) -> Option<&[u16]> {
        self.table.as_deref()
    }
}

/// `Palette::build` through a skeleton's parent table gives what the walk of its bones gives,
/// bit for bit, in file order and in a hierarchy order (parents by depth, not by index), at
/// every size.
#[test]
fn palettes_through_a_parent_table_are_those_of_the_bones() {
    use skelmap::Skeleton;
    use skelmap::pose::NO_PARENT;
    for bones in SIZES {
        let bytes = model(bones);
        let file = Dpm::parse(&bytes).unwrap();
        let parents: Vec<Option<usize>> = file.bones().map(|b| b.parent()).collect();
        let table: Vec<u16> = parents
            .iter()
            .map(|p| p.map_or(NO_PARENT, |p| p as u16))
            .collect();
        // Breadth first: every parent before its children, not in index order.
        let mut depth = vec![0usize; bones];
        for i in 0..bones {
            depth[i] = parents[i].map_or(0, |p| depth[p] + 1);
        }
        let mut by_depth: Vec<u16> = (0..bones as u16).collect();
        by_depth.sort_by_key(|&i| (depth[usize::from(i)], std::cmp::Reverse(i)));
        let mut pose = LocalPose::default();
        pose::sample(&file, 0, 1, 0.4, Interpolation::Nlerp, &mut pose);
        let mut want = Palette::default();
        want.build(&file, &pose);
        for order in [None, Some(by_depth)] {
            let bare = Walked {
                file: &file,
                order: order.clone(),
                table: None,
            };
            let tabled = Walked {
                file: &file,
                order,
                table: Some(table.clone()),
            };
            let (mut walked, mut got) = (Palette::default(), Palette::default());
            walked.build(&bare, &pose);
            got.build(&tabled, &pose);
            let ordered = tabled.hierarchy_order().is_some();
            for i in 0..bones {
                assert!(
                    same_affine(&got.world[i], &walked.world[i])
                        && same_affine(&got.world[i], &want.world[i]),
                    "{bones} bones, hierarchy order {ordered}, bone {i}"
                );
            }
        }
    }
}
