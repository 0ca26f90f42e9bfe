//! An MD2 through `Model`: its mesh, materials and clips, the per-frame tween (exact at the
//! frames, the same bits at every SIMD level), and the writer's round trip.

use skelmap::md2::{Builder, Md2};
use skelmap::model::{Pose, TexcoordLayout};
use skelmap::pose::Interpolation;
use skelmap::skin::SimdLevel;
use skelmap::{Format, Model, Parse, asset};

use super::{RING, animated};

#[test]
fn the_mesh_has_per_corner_texcoords_reversed_triangles_and_named_skins() {
    let bytes = animated().write();
    let model = Model::from_bytes(&bytes).unwrap();
    assert_eq!(model.format(), Format::Md2);
    assert!(model.as_md2().is_some());
    assert_eq!(
        (model.num_meshes(), model.num_frames(), model.num_bones()),
        (1, 3, 0)
    );
    let mesh = model.mesh(0).unwrap();
    assert_eq!(mesh.num_vertices(), RING);
    assert_eq!(mesh.num_triangles(), RING - 2);
    assert_eq!(mesh.texcoord_layout(), TexcoordLayout::PerCorner);
    // Stored [0, 5, 6] (clockwise), given counter-clockwise, each corner's own coordinate.
    assert_eq!(mesh.triangle(4), Some([6, 5, 0]));
    let st = |i: usize| [(i * 6) as f32 / 256.0, (i % 7 * 30) as f32 / 256.0];
    assert_eq!(mesh.corner_texcoords(4), Some([st(6), st(5), st(0)]));
    assert_eq!(model.num_materials(), 2);
    let material = model.material(1).unwrap();
    assert_eq!(
        (material.name, material.texture, material.skin),
        (
            &b"models/test/walker2.pcx"[..],
            &b"models/test/walker2.pcx"[..],
            None
        )
    );
    assert!(model.skins().is_empty());
    let clips: Vec<_> = model
        .clips()
        .iter()
        .map(|c| (c.name.as_str(), c.first, c.count))
        .collect();
    assert_eq!(clips, [("walk", 0, 3)]);
    crate::exercise::model(&model);
}

#[test]
fn a_tween_is_each_frame_on_its_own_grid_blended_exactly() {
    let bytes = animated().write();
    let md2 = Md2::parse(&bytes).unwrap();
    let frames = md2.frames();
    let n = RING;
    let (mut p, mut q) = (vec![[0.0f32; 3]; n], vec![[0.0f32; 3]; n]);
    for level in SimdLevel::ALL {
        // At t = 0 and t = 1, the frames' own positions, bit for bit.
        for (a, b, t, at) in [
            (0, 1, 0.0, 0),
            (0, 1, 1.0, 1),
            (2, 1, 0.0, 2),
            (1, 2, 1.0, 2),
        ] {
            md2.tween_with_level(level, a, b, t, &mut p, &mut q)
                .unwrap();
            let frame = frames.get(at).unwrap();
            for (v, pv) in p.iter().enumerate() {
                assert_eq!(
                    pv.map(f32::to_bits),
                    frame.position(v).unwrap().map(f32::to_bits),
                    "{level:?} {a}→{b} at {t}, vertex {v}"
                );
            }
        }
        // Between: (1 − t) · pa + t · pb, to the bit, at every level.
        let t = 0.3f32;
        md2.tween_with_level(level, 0, 2, t, &mut p, &mut q)
            .unwrap();
        let (fa, fb) = (frames.get(0).unwrap(), frames.get(2).unwrap());
        for v in 0..n {
            let (pa, pb) = (fa.position(v).unwrap(), fb.position(v).unwrap());
            let expected: [f32; 3] = core::array::from_fn(|k| pa[k] * (1.0 - t) + pb[k] * t);
            assert_eq!(
                p[v].map(f32::to_bits),
                expected.map(f32::to_bits),
                "{level:?} vertex {v}"
            );
            let len = q[v].iter().map(|c| c * c).sum::<f32>().sqrt();
            assert!((len - 1.0).abs() < 1e-5);
        }
    }
}

#[test]
fn model_deform_tweens_and_frame_names_make_clips() {
    let bytes = animated().write();
    let model = Model::from_bytes(&bytes).unwrap();
    let md2 = model.as_md2().unwrap();
    let mut pose = Pose::default();
    model
        .pose(1, 2, 0.25, Interpolation::Nlerp, &mut pose)
        .unwrap();
    let (mut p, mut q) = (vec![[0.0; 3]; RING], vec![[0.0; 3]; RING]);
    model.deform(0, &pose, &mut p, &mut q).unwrap();
    let (mut r, mut s) = (vec![[0.0; 3]; RING], vec![[0.0; 3]; RING]);
    md2.tween_with_level(SimdLevel::detect(), 1, 2, 0.25, &mut r, &mut s)
        .unwrap();
    assert_eq!(p, r);
    assert_eq!(q, s);
    let names: Vec<_> = (0..3)
        .map(|f| model.frame_name(f).unwrap().to_vec())
        .collect();
    assert_eq!(
        names,
        [b"walk01".to_vec(), b"walk02".to_vec(), b"walk03".to_vec()]
    );
}

/// An MD2 written from its own asset has the same frames within half a step of each frame's
/// grid, the same triangles and texture coordinates, and names its skin.
#[test]
fn the_writer_round_trips_an_md2() {
    let bytes = animated().write();
    let model = Model::from_bytes(&bytes).unwrap();
    let asset = model.to_asset(&asset::Options::default()).unwrap();
    let written = skelmap::model::write(Format::Md2, &asset, &Default::default()).unwrap();
    let again = Md2::parse(&written.files[0].bytes).unwrap();
    assert_eq!(again.frames().len(), 3);
    assert_eq!(again.num_triangles(), RING - 2);
    assert_eq!(
        again.skin_names().next(),
        Some(&b"models/test/walker.pcx"[..])
    );
    assert!(!written.notes.is_empty(), "two materials: one note");
    let reread = Model::from_bytes(&written.files[0].bytes).unwrap();
    assert_eq!(reread.clips()[0].name, "walk");
    let source = Md2::parse(&bytes).unwrap();
    for f in 0..3 {
        let frame = again.frames().get(f).unwrap();
        let step = frame.scale();
        // The asset unwelds per-corner texture coordinates: compare as sets of points.
        let ours: Vec<[f32; 3]> = (0..again.num_vertices())
            .map(|v| frame.position(v).unwrap())
            .collect();
        let theirs = source.frames().get(f).unwrap();
        for v in 0..RING {
            let p = theirs.position(v).unwrap();
            assert!(
                ours.iter()
                    .any(|q| (0..3).all(|k| (q[k] - p[k]).abs() <= step[k] * 0.5 + 1e-4)),
                "frame {f} vertex {v} lost"
            );
        }
    }
    // Skeletal input asks for --bake.
    let tube = skelmap::synth::tube(&Default::default()).write().unwrap();
    let skeletal = Model::from_bytes(&tube)
        .unwrap()
        .to_asset(&asset::Options::default())
        .unwrap();
    let refused = Builder::from_asset(&skeletal, false).unwrap_err();
    assert_eq!(refused.what, "skeletal animation");
    let baked = Builder::from_asset(&skeletal, true)
        .unwrap()
        .builder
        .write();
    let baked = Model::from_bytes(&baked).unwrap();
    assert_eq!((baked.num_frames(), baked.format()), (9, Format::Md2));
}

/// An MD2 written back as MD2 keeps each frame's vertices where they were, within float
/// rounding: its points lie on the grid the file packed them on, and the writer packs on
/// that grid again rather than on one spread over their extent (which moved Quake II
/// models that pack all three axes by the longest one's step by up to half a step).
#[test]
fn the_writer_keeps_the_grid_the_frames_were_packed_on() {
    let bytes = animated().write();
    let model = Model::from_bytes(&bytes).unwrap();
    let asset = model.to_asset(&asset::Options::default()).unwrap();
    let written = skelmap::model::write(Format::Md2, &asset, &Default::default()).unwrap();
    let again = Md2::parse(&written.files[0].bytes).unwrap();
    let source = Md2::parse(&bytes).unwrap();
    for f in 0..3 {
        let (ours, theirs) = (
            again.frames().get(f).unwrap(),
            source.frames().get(f).unwrap(),
        );
        for k in 0..3 {
            let (a, b) = (ours.scale()[k], theirs.scale()[k]);
            // The coarsest grid holding the points: the file's step or a whole multiple.
            let ratio = a / b;
            assert!(
                (ratio - ratio.round()).abs() < 1e-4,
                "frame {f} axis {k}: {a} {b}"
            );
        }
        let points: Vec<[f32; 3]> = (0..again.num_vertices())
            .map(|v| ours.position(v).unwrap())
            .collect();
        for v in 0..RING {
            let p = theirs.position(v).unwrap();
            assert!(
                points
                    .iter()
                    .any(|q| (0..3).all(|k| (q[k] - p[k]).abs() <= 1e-5 * p[k].abs().max(1.0))),
                "frame {f} vertex {v} moved"
            );
        }
    }
}

/// `bytes` laid out again with its five arrays in `order` (indices into skins, texture
/// coordinates, triangles, frames, GL commands) after the header, offsets rewritten; with
/// `gl` false the GL command list is left out (`num_glcmds` 0).
fn relaid(bytes: &[u8], order: [usize; 5], gl: bool) -> Vec<u8> {
    let word = |i: usize| i32::from_le_bytes(bytes[4 * i..4 * i + 4].try_into().unwrap());
    let framesize = word(4) as usize;
    // (count field, offset field, record size) of skins, st, tris, frames, glcmds.
    let arrays = [
        (5, 11, 64),
        (7, 12, 4),
        (8, 13, 12),
        (10, 14, framesize),
        (9, 15, 4),
    ];
    let mut out = bytes[..68].to_vec();
    for &k in &order {
        let (count, ofs, size) = arrays[k];
        let n = if k == 4 && !gl {
            0
        } else {
            word(count) as usize
        };
        let start = word(ofs) as usize;
        let at = out.len() as i32;
        out[4 * ofs..4 * ofs + 4].copy_from_slice(&at.to_le_bytes());
        out[4 * count..4 * count + 4].copy_from_slice(&(n as i32).to_le_bytes());
        out.extend_from_slice(&bytes[start..start + n * size]);
    }
    let end = out.len() as i32;
    out[64..68].copy_from_slice(&end.to_le_bytes());
    out
}

/// MD2 files of one game come from several exporters (the held-out set has them): id's
/// order (skins, texture coordinates, triangles, frames, GL commands), exporters that write
/// the GL commands before the frames or the frames first, and exporters that write no GL
/// commands at all (a warning: Quake II draws from them). Every layout opens to the same
/// mesh, materials and frames.
#[test]
fn md2_files_from_several_exporters_open_alike() {
    let bytes = animated().write();
    let reference = Model::from_bytes(&bytes).unwrap();
    let frames = |model: &Model<'_>| -> Vec<Vec<[f32; 3]>> {
        let mut pose = Pose::default();
        (0..model.num_frames())
            .map(|f| {
                model
                    .pose(f, f, 0.0, Interpolation::Nlerp, &mut pose)
                    .unwrap();
                let (mut p, mut q) = (vec![[0.0; 3]; RING], vec![[0.0; 3]; RING]);
                model.deform(0, &pose, &mut p, &mut q).unwrap();
                p
            })
            .collect()
    };
    let want = frames(&reference);
    let layouts = [
        ([0, 1, 2, 3, 4], true),
        ([0, 1, 2, 4, 3], true),
        ([3, 0, 2, 1, 4], true),
        ([4, 3, 2, 1, 0], true),
        ([0, 1, 2, 3, 4], false),
    ];
    for (order, gl) in layouts {
        let other = relaid(&bytes, order, gl);
        let model = Model::from_bytes(&other).unwrap_or_else(|e| panic!("{order:?}: {e}"));
        assert_eq!(frames(&model), want, "{order:?}");
        let mesh = (reference.mesh(0).unwrap(), model.mesh(0).unwrap());
        for t in 0..mesh.0.num_triangles() {
            assert_eq!(mesh.0.triangle(t), mesh.1.triangle(t));
            assert_eq!(mesh.0.corner_texcoords(t), mesh.1.corner_texcoords(t));
        }
        assert_eq!(model.material(1).unwrap().name, b"models/test/walker2.pcx");
        let warnings: Vec<_> = model
            .diagnostics()
            .warnings()
            .iter()
            .map(|w| (w.kind, w.what))
            .collect();
        let expected: &[_] = if gl {
            &[]
        } else {
            &[(skelmap::WarningKind::SpecLimit, "header.num_glcmds")]
        };
        assert_eq!(warnings, expected, "{order:?}");
        crate::exercise::model(&model);
    }
}

/// A Quake II player's frame names (`pain101` … `pain104`, `pain201` …): each numbered
/// variant is a clip of its own, as the game plays it, and an MD2 written from the model
/// keeps them (its frames named `pain1_1` …).
#[test]
fn quake2_player_variants_are_clips_and_survive_a_rewrite() {
    let mut b = animated();
    let frame = b.frames[0].clone();
    let names = [
        "stand01", "stand02", "pain101", "pain102", "pain201", "pain301", "pain302",
    ];
    b.frames = names
        .iter()
        .map(|name| skelmap::md2::write::FrameDef {
            name: name.as_bytes().to_vec(),
            ..frame.clone()
        })
        .collect();
    let bytes = b.write();
    let model = Model::from_bytes(&bytes).unwrap();
    let clips = |model: &Model<'_>| -> Vec<(String, u32, u32)> {
        (model.clips().iter())
            .map(|c| (c.name.clone(), c.first, c.count))
            .collect()
    };
    let want: Vec<(String, u32, u32)> = [
        ("stand", 0, 2),
        ("pain1", 2, 2),
        ("pain2", 4, 1),
        ("pain3", 5, 2),
    ]
    .iter()
    .map(|&(n, f, c)| (n.to_string(), f, c))
    .collect();
    assert_eq!(clips(&model), want);
    let asset = model.to_asset(&asset::Options::default()).unwrap();
    let written = skelmap::model::write(Format::Md2, &asset, &Default::default()).unwrap();
    let reread = Model::from_bytes(&written.files[0].bytes).unwrap();
    assert_eq!(clips(&reread), want);
    assert_eq!(reread.frame_name(2), Some(&b"pain1_1"[..]));
}
