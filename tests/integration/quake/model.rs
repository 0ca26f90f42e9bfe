//! Quake models through `Model`: skin and frame groups as clips, the on-seam rule, the palette
//! and the morph kernel.

use skelmap::Parse;
use skelmap::model::{ClipOrigin, Pose, TexcoordLayout};
use skelmap::pose::Interpolation;
use skelmap::quake;
use skelmap::quake::write::{FrameDef, FrameEntry, SkinDef};
use skelmap::{Format, Model};

use crate::support::quake::{grouped, pose};

#[test]
fn groups_flatten_with_their_intervals_and_become_clips() {
    let bytes = grouped().write();
    assert_eq!(bytes.len(), 416 + 3 * 36);
    let m = quake::Mdl::parse(&bytes).unwrap();
    assert_eq!(m.skins().len(), 3);
    let g = m.skin_groups();
    assert_eq!((g.len(), g[1].first(), g[1].count()), (2, 1, 2));
    assert!(!g[0].is_group() && g[1].is_group());
    assert_eq!(g[1].intervals().collect::<Vec<_>>(), [0.25, 0.5]);
    assert_eq!(m.skins()[2].level(0).unwrap().2, &[3; 64][..]);
    let f: Vec<_> = m.frame_groups().collect();
    assert_eq!((f.len(), f[1].first(), f[1].count()), (2, 1, 3));
    assert_eq!(f[1].duration(), 0.3);
    let names: Vec<_> = m.frames().iter().map(|f| f.name_lossy()).collect();
    assert_eq!(names, ["stand1", "fly1", "fly2", "fly3"]);
    // With a group in the file, a pose is found by a walk over the entries: the same poses.
    let entries = |k: usize| {
        let pose = |i: usize| FrameDef {
            name: format!("p{k}_{i}").into_bytes(),
            vertices: vec![([0, 0, i as u8], 0); 3],
        };
        match k % 3 {
            0 => FrameEntry::Single(pose(0)),
            n => FrameEntry::Group {
                intervals: (1..=n + k % 2).map(|i| i as f32).collect(),
                frames: (0..n + k % 2).map(pose).collect(),
            },
        }
    };
    let long = quake::Builder {
        frames: (0..40).map(entries).collect(),
        ..quake::Builder::triangle()
    }
    .write();
    let long = quake::Mdl::parse(&long).unwrap();
    let in_order: Vec<_> = long
        .frames()
        .iter()
        .map(|f| f.header() as *const _)
        .collect();
    assert_eq!(in_order.len(), long.frames().len());
    for (i, &header) in in_order.iter().enumerate() {
        assert!(
            std::ptr::eq(long.frames().get(i).unwrap().header(), header),
            "pose {i}"
        );
        let mut walk = long.frames().iter();
        if let Some(skip) = i.checked_sub(3) {
            walk.nth(skip);
            assert_eq!(walk.len(), in_order.len() - skip - 1);
            let rest: Vec<_> = walk.map(|f| f.header() as *const _).collect();
            assert_eq!(rest, in_order[skip + 1..], "after pose {skip}");
        }
    }
    assert!(long.frames().get(in_order.len()).is_none());
    let by_index: Vec<_> = (0..5)
        .map_while(|i| m.frames().get(i))
        .map(|f| f.name_lossy())
        .collect();
    assert_eq!(by_index, names);
    assert_eq!(m.position(3, 0), Some([0.0, 0.0, 3.0]));

    let model = Model::from_bytes(&bytes).unwrap();
    assert_eq!(model.clip_origin(), ClipOrigin::FrameGroups);
    let clips: Vec<_> = model
        .clips()
        .iter()
        .map(|c| (c.name.as_str(), c.first, c.count, (c.fps * 1000.0).round()))
        .collect();
    assert_eq!(clips, [("stand", 0, 1, 10_000.0), ("fly", 1, 3, 10_000.0)]);
    assert_eq!(model.num_frames(), 4);
    assert_eq!(model.skins().len(), 3);
}

#[test]
fn a_group_and_the_singles_after_it_of_one_stem_are_two_clips_named_apart() {
    // openqw's v_axe.mdl: a group `knife0`…`knife25`, then single frames `knife26`….
    let single = |i: u8| FrameEntry::Single(pose(&format!("knife{i}"), i));
    let b = quake::Builder {
        frames: vec![
            FrameEntry::Group {
                intervals: vec![0.1, 0.2, 0.3],
                frames: (0..3).map(|i| pose(&format!("knife{i}"), i)).collect(),
            },
            single(3),
            single(4),
            // Another stem between two runs of one stem.
            FrameEntry::Single(pose("knife3_", 5)),
            single(6),
        ],
        ..quake::Builder::triangle()
    };
    let bytes = b.write();
    let model = Model::from_bytes(&bytes).unwrap();
    let clips: Vec<_> = (model.clips().iter())
        .map(|c| (c.name.as_str(), c.first, c.count))
        .collect();
    // The singles' stems: `knife` (frames 3, 4), `knife3` (5: `knife3_` less its `_`),
    // `knife` (6). The repeated `knife`s take `_2` and `_3`.
    assert_eq!(
        clips,
        [
            ("knife", 0, 3),
            ("knife_2", 3, 2),
            ("knife3", 5, 1),
            ("knife_3", 6, 1)
        ]
    );
    for c in model.clips() {
        assert_eq!(model.clip(&c.name), Some(c));
    }
}

#[test]
fn seam_vertices_of_back_facing_triangles_move_half_a_skin() {
    let b = quake::Builder {
        stverts: vec![[0x20, 0, 0], [0, 4, 0], [1, 0, 4]],
        triangles: vec![(1, [0, 1, 2]), (0, [0, 1, 2])],
        ..quake::Builder::triangle()
    };
    let bytes = b.write();
    let m = quake::Mdl::parse(&bytes).unwrap();
    let px = |s: f32, t: f32| [(s + 0.5) / 8.0, (t + 0.5) / 8.0];
    assert_eq!(
        m.corner_texcoords(0),
        Some([px(0.0, 0.0), px(4.0, 0.0), px(0.0, 4.0)])
    );
    // Back-facing: the two seam vertices (onseam 0x20 and 1) shift by 8 / 2 texels.
    assert_eq!(
        m.corner_texcoords(1),
        Some([px(4.0, 0.0), px(4.0, 0.0), px(4.0, 4.0)])
    );
    // The model gives triangles (and their corners) counter-clockwise: reversed.
    let model = Model::from_bytes(&bytes).unwrap();
    let mesh = model.mesh(0).unwrap();
    assert_eq!(mesh.texcoord_layout(), TexcoordLayout::PerCorner);
    assert_eq!(mesh.triangle(0), Some([2, 1, 0]));
    assert_eq!(
        mesh.corner_texcoords(1),
        Some([px(4.0, 4.0), px(4.0, 0.0), px(4.0, 0.0)])
    );
}

#[test]
fn skins_decode_through_the_quake_palette() {
    let bytes = quake::Builder::triangle().write();
    let model = Model::from_bytes(&bytes).unwrap();
    assert_eq!(model.skin_palette(), quake::PALETTE);
    let rgba = model.skin_rgba(0).unwrap();
    assert_eq!(rgba.len(), 8 * 8 * 4);
    for (i, px) in rgba.chunks_exact(4).enumerate() {
        let [r, g, b] = quake::PALETTE[i];
        assert_eq!(px, [r, g, b, 255], "texel {i}");
    }
    // MDL2 8-bit skins have no palette in the file: the grey ramp.
    let b = quake::Builder {
        skins: vec![SkinDef::Single {
            code: 0,
            texels: (0..64).collect(),
        }],
        ..quake::Builder::mdl2_triangle()
    };
    let bytes = b.write();
    let model = Model::from_bytes(&bytes).unwrap();
    assert_eq!(model.format(), Format::Mdl);
    assert_eq!(&model.skin_rgba(0).unwrap()[4 * 9..4 * 10], [9, 9, 9, 255]);
}

#[test]
fn frames_deform_through_the_morph_kernel_scalar_and_simd_alike() {
    let bytes = grouped().write();
    let model = Model::from_bytes(&bytes).unwrap();
    let mut pose = Pose::default();
    model
        .pose(1, 3, 0.5, Interpolation::Nlerp, &mut pose)
        .unwrap();
    let (mut p, mut n) = (vec![[0.0; 3]; 3], vec![[0.0; 3]; 3]);
    model.deform(0, &pose, &mut p, &mut n).unwrap();
    assert_eq!(p, [[0.0, 0.0, 2.0], [2.0, 0.0, 2.0], [0.0, 2.0, 2.0]]);
    let q = model.as_quake().expect("a Quake view");
    for (a, b, t) in [(0, 3, 0.25), (2, 1, 0.75)] {
        let (mut ps, mut ns) = (vec![[0.0; 3]; 3], vec![[0.0; 3]; 3]);
        let (mut pv, mut nv) = (vec![[0.0; 3]; 3], vec![[0.0; 3]; 3]);
        quake::morph::tween_scalar(q, a, b, t, &mut ps, &mut ns).unwrap();
        quake::morph::tween_simd(q, a, b, t, &mut pv, &mut nv).unwrap();
        for (x, y) in ps.iter().chain(&ns).zip(pv.iter().chain(&nv)) {
            assert!((0..3).all(|k| (x[k] - y[k]).abs() <= 1e-6), "{x:?} {y:?}");
        }
    }
}

/// Review findings on frame groups: an interval so small that `count / duration` overflows
/// used to give an infinite clip rate (which no time can sample and `info --json` printed as
/// `null`); groups whose frames have no names used to lose their clips with the names.
#[test]
fn frame_groups_keep_a_finite_rate_and_need_no_names() {
    let unnamed = |lift| FrameDef {
        name: Vec::new(),
        ..pose("", lift)
    };
    let bytes = quake::Builder {
        frames: vec![
            FrameEntry::Single(unnamed(0)),
            FrameEntry::Group {
                intervals: vec![1e-40, 2e-40],
                frames: vec![unnamed(1), unnamed(2)],
            },
        ],
        ..quake::Builder::triangle()
    }
    .write();
    let model = Model::from_bytes(&bytes).unwrap();
    assert_eq!(model.clip_origin(), ClipOrigin::FrameGroups);
    let clips: Vec<_> = model
        .clips()
        .iter()
        .map(|c| (c.first, c.count, c.fps))
        .collect();
    assert_eq!(clips, [(1, 2, skelmap::model::NAMED_CLIP_FPS)]);
    let mut p = Pose::default();
    let clip = model.clips()[0].clone();
    model
        .pose_clip(&clip, 1e30, true, Interpolation::Nlerp, &mut p)
        .unwrap();
}

/// A file of many entries, one of them a group: every pose is found through the model by a
/// look-up in a table of where each starts, made once, not by a walk over the entries before
/// it; the poses are those the walk finds.
#[test]
fn every_pose_of_many_entries_with_a_group_is_looked_up() {
    let singles = 20_000;
    let mut frames: Vec<FrameEntry> = (0..singles)
        .map(|i| FrameEntry::Single(pose(&format!("s{i}"), (i % 200) as u8)))
        .collect();
    frames.push(FrameEntry::Group {
        intervals: vec![0.1, 0.2],
        frames: vec![pose("g1", 7), pose("g2", 8)],
    });
    let bytes = quake::Builder {
        frames,
        ..grouped()
    }
    .write();
    let model = Model::from_bytes(&bytes).unwrap();
    assert_eq!(model.num_frames(), singles + 2);
    let walked: Vec<Vec<u8>> = model.frame_names().map(<[u8]>::to_vec).collect();
    for (i, name) in walked.iter().enumerate() {
        assert_eq!(model.frame_name(i), Some(&name[..]), "frame {i}");
    }
    assert_eq!(model.frame_name(singles + 1), Some(&b"g2"[..]));
    // Deforming a pose reads its vertices from the table's offset.
    let mut pose = Pose::default();
    let (mut p, mut n) = (vec![[0.0; 3]; 3], vec![[0.0; 3]; 3]);
    for (frame, lift) in [(0, 0u8), (199, 199), (singles + 1, 8)] {
        model
            .pose(frame, frame, 0.0, Interpolation::Nlerp, &mut pose)
            .unwrap();
        model.deform(0, &pose, &mut p, &mut n).unwrap();
        let mdl = quake::Mdl::parse(&bytes).unwrap();
        let z = mdl.scale()[2] * f32::from(lift) + mdl.origin()[2];
        assert_eq!(p[0][2], z, "frame {frame}");
    }
}

/// A Quake MDL written back as a Quake MDL keeps its vertices within float rounding: they lie
/// on the model's grid (here one step on all three axes, z reaching step 254 and x 36, as
/// modelgen-era tools pack), which the writer keeps rather than spreading each axis over
/// 255 steps of its extent.
#[test]
fn the_writer_keeps_the_grid_the_frames_were_packed_on() {
    let vertices = |lift: u8| {
        vec![
            ([0, 0, lift], 0),
            ([36, 5, 254], 0),
            ([7, 36, 120 + lift], 0),
            ([13, 2, 6], 0),
        ]
    };
    let b = quake::Builder {
        scale: [0.662_745_1; 3],
        origin: [-12.0, -12.0, 0.0],
        stverts: vec![[0, 0, 0], [0, 7, 0], [0, 0, 7], [0, 7, 7]],
        triangles: vec![(1, [0, 1, 2]), (1, [1, 3, 2])],
        frames: (0..3)
            .map(|f| {
                FrameEntry::Single(FrameDef {
                    name: format!("bob{}", f + 1).into_bytes(),
                    vertices: vertices(f),
                })
            })
            .collect(),
        ..quake::Builder::triangle()
    };
    let bytes = b.write();
    let model = Model::from_bytes(&bytes).unwrap();
    let asset = model.to_asset(&Default::default()).unwrap();
    let written = skelmap::model::write(Format::Quake, &asset, &Default::default()).unwrap();
    let again = Model::from_bytes(&written.files[0].bytes).unwrap();
    let source = quake::Mdl::parse(&bytes).unwrap();
    let back = again.as_quake().unwrap();
    for k in 0..3 {
        assert!(
            (back.scale()[k] - source.scale()[k]).abs() < 1e-6,
            "axis {k}"
        );
    }
    // The asset splits vertices by texture coordinates: compared as sets of points.
    let frame = |model: &Model<'_>, f: usize| {
        let n = model.mesh(0).unwrap().num_vertices();
        let (mut p, mut normals) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
        let mut pose = Pose::default();
        model
            .pose(f, f, 0.0, Interpolation::Nlerp, &mut pose)
            .unwrap();
        model.deform(0, &pose, &mut p, &mut normals).unwrap();
        p
    };
    for f in 0..3 {
        let ours = frame(&again, f);
        for p in frame(&model, f) {
            assert!(
                ours.iter()
                    .any(|q| (0..3).all(|k| (q[k] - p[k]).abs() <= 1e-5)),
                "frame {f}: {p:?} moved"
            );
        }
    }
}
