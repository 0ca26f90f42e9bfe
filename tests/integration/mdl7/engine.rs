//! MDL7 as GameStudio's engine draws it (issue 52): the five patterns of real files that
//! skelmap refused or drew frozen, each on a fixture from `mdl7::Builder` (patched where the
//! builder writes only valid records): normal indices past the table, a boneless file whose
//! vertices name bone 0, more than 256 bones, skeletal frames that also replace vertices, and
//! embedded DDS skins.

use skelmap::Model;
use skelmap::core::asset;
use skelmap::core::glam::Vec3A;
use skelmap::core::gpu;
use skelmap::core::mdl7::{self, BoneDef, Builder, FrameDef, GroupDef, Mdl7, Sizes, VertexDef};
use skelmap::core::model::convert::{self, Posed};
use skelmap::model::Pose;
use skelmap::pose::Interpolation;
use skelmap::skin::{SimdLevel, VertexOrder};
use skelmap::{Limits, Parse, Problem, WarningKind};

use super::quirks::{assert_kernels, skin_reference, skinned_between};
use super::{invalid, warnings, warnings_bytes};
use crate::support::mdl7::{layout, morphing};
use crate::support::{put_u16_le, put_u32_le};

// ---- 1. normal indices past the 162-entry table ----

#[test]
fn normal_index_past_the_table_reads_zero_with_one_warning() {
    let b = Builder {
        sizes: Sizes::SMALL,
        ..Builder::mixed()
    };
    let l = layout(&b);
    let mut bytes = b.write();
    // Main vertices 3 and 7 (178, as real files hold; 256, a high byte set), and the first
    // vertex of frame 1 (after frame 0's head and 3 transformations, and frame 1's head).
    let v3 = l.vertices[0] + 3 * 16 + 14;
    put_u16_le(&mut bytes, v3, 178);
    put_u16_le(&mut bytes, l.vertices[0] + 7 * 16 + 14, 256);
    let frame1_vertex = l.frames[0] + 24 + 3 * 68 + 24;
    put_u16_le(&mut bytes, frame1_vertex + 14, 162);
    let diag = warnings_bytes(&bytes);
    assert_eq!(diag.warnings().len(), 1, "{diag:?}");
    let w = diag.get(WarningKind::NormalIndex).unwrap();
    assert_eq!((w.what, w.offset, w.count), ("vertex.norm162index", v3, 3));
    assert!(w.detail.contains("normal index 178"), "{}", w.detail);
    // The normal is zero; every other one as stored.
    let view = Mdl7::parse(&bytes).unwrap();
    let group = &view.groups()[0];
    assert_eq!(group.normal(3), Some(Vec3A::ZERO));
    assert_eq!(group.normal(7), Some(Vec3A::ZERO));
    assert!((group.normal(2).unwrap().length() - 1.0).abs() < 1e-6);
    // The model opens and deforms; the zero normal stays zero through the bones.
    let model = Model::from_bytes(&bytes).unwrap();
    let n = model.mesh(0).unwrap().num_vertices();
    let (mut p, mut q) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
    let mut pose = Pose::default();
    model
        .pose(1, 1, 0.0, Interpolation::Nlerp, &mut pose)
        .unwrap();
    model.deform(0, &pose, &mut p, &mut q).unwrap();
    assert_eq!((q[3], q[7], q[2]), ([0.0; 3], [0.0; 3], q[2]));
    assert_eq!(q[2], pose_normal_of(&model, &pose, 2));
    // validate's words for it: the detail says how the normal is read.
    assert!(
        w.detail.ends_with("there are 162, and it is read as zero"),
        "{}",
        w.detail
    );
}

/// Vertex `v`'s deformed normal by `pose`.
fn pose_normal_of(model: &Model<'_>, pose: &Pose, v: usize) -> [f32; 3] {
    let n = model.mesh(0).unwrap().num_vertices();
    let (mut p, mut q) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
    model.deform(0, pose, &mut p, &mut q).unwrap();
    q[v]
}

// ---- 2. a boneless file whose vertices name bone 0 ----

#[test]
fn boneless_vertices_naming_bone_0_are_read_with_one_warning() {
    let clean = morphing();
    let mut b = clean.clone();
    b.groups[0].vertices[1].vertindex = 0;
    b.groups[1].vertices[2].vertindex = 0;
    let l = layout(&b);
    let diag = warnings(&b);
    assert_eq!(diag.warnings().len(), 1, "{diag:?}");
    let w = diag.get(WarningKind::BoneWithoutSkeleton).unwrap();
    assert_eq!(
        (w.what, w.offset, w.count),
        ("vertex.vertindex", l.vertices[0] + 26 + 12, 2)
    );
    // The field means nothing without bones: every frame as without it.
    let (ours, theirs) = (b.write(), clean.write());
    let (model, reference) = (
        Model::from_bytes(&ours).unwrap(),
        Model::from_bytes(&theirs).unwrap(),
    );
    assert_eq!(model.num_frames(), 3);
    for f in 0..3 {
        assert_eq!(tweened(&model, f), tweened(&reference, f), "frame {f}");
    }
    // With bones, the same value past them is still an error.
    let mut skeletal = Builder::demo();
    skeletal.groups[0].vertices[1].vertindex = 3;
    let l = layout(&skeletal);
    let e = super::err(&skeletal);
    assert_eq!(
        invalid(&e),
        (
            "vertex.vertindex",
            l.vertices[0] + 26 + 12,
            Problem::Index { index: 3, len: 3 }
        )
    );
}

/// Frame `f` of `model`'s mesh 0, positions and normals.
fn tweened(model: &Model<'_>, f: usize) -> (Vec<[f32; 3]>, Vec<[f32; 3]>) {
    let n = model.mesh(0).unwrap().num_vertices();
    let (mut p, mut q) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
    let mut pose = Pose::default();
    model
        .pose(f, f, 0.0, Interpolation::Nlerp, &mut pose)
        .unwrap();
    model.deform(0, &pose, &mut p, &mut q).unwrap();
    (p, q)
}

// ---- 3. more than 256 bones ----

/// Level geometry as GameStudio exports it: `bones` root bones, one triangle each, rigidly
/// bound by `vertindex` (no deformer); frame 0 the bind pose, frame 1 moving every bone by +1
/// in X, its transformations listed in reverse bone order.
fn level(bones: u16) -> Builder {
    let mut group = GroupDef::default();
    for b in 0..bones {
        let x = f32::from(b);
        for at in [[x, 0.0, 0.0], [x + 0.5, 0.0, 0.0], [x, 0.5, 0.0]] {
            group.vertices.push(VertexDef {
                position: at,
                vertindex: b,
                normal: [0.0, 0.0, 1.0],
            });
        }
        group.triangles.push(mdl7::TriangleDef {
            v_index: [3 * b, 3 * b + 1, 3 * b + 2],
            st_index: [0xFFFF; 3],
            material: u32::MAX,
        });
    }
    let moved = |x: f32| {
        let mut m = [0.0f32; 16];
        (m[0], m[5], m[10], m[15], m[12]) = (1.0, 1.0, 1.0, 1.0, x);
        m
    };
    group.frames = [0.0, 1.0]
        .iter()
        .enumerate()
        .map(|(f, &x)| FrameDef {
            name: format!("frame {f}").into_bytes(),
            vertices: Vec::new(),
            transforms: (0..bones).rev().map(|b| (b, moved(x))).collect(),
        })
        .collect();
    Builder {
        bones: (0..bones)
            .map(|b| BoneDef {
                name: format!("piece {b}").into_bytes(),
                parent: 0xFFFF,
                position: [f32::from(b), 0.0, 0.0],
            })
            .collect(),
        groups: vec![group],
        ..Builder::default()
    }
}

#[test]
fn level_geometry_of_344_bones_opens_by_default_and_moves_on_every_path() {
    let bytes = level(344).write();
    assert_eq!(Limits::default().max_bones, 65_535);
    assert!(warnings_bytes(&bytes).is_empty());
    let model = Model::from_bytes(&bytes).unwrap();
    assert_eq!((model.num_bones(), model.num_frames()), (344, 2));
    let stored: Vec<[f32; 3]> = (0..344)
        .flat_map(|b| {
            let x = b as f32;
            [[x, 0.0, 0.0], [x + 0.5, 0.0, 0.0], [x, 0.5, 0.0]]
        })
        .collect();
    let moved: Vec<[f32; 3]> = stored.iter().map(|p| [p[0] + 1.0, p[1], p[2]]).collect();
    for (f, expected) in [(0, &stored), (1, &moved)] {
        // deform, prepare (u32 bones) and compact (u16 bones past 256).
        // (The compact kernel stores positions in 16-bit steps of the bounds: 1/65 535 of the
        // model's 344 units.)
        let kernels = skinned_between(&bytes, Some((f, f, 0.0)));
        assert_kernels(&kernels, expected, 2e-5, &format!("frame {f}"));
    }
    // GPU buffers: 16-bit joints; 8-bit ones refused by their width.
    let mesh = model.gpu_mesh(&gpu::Options::default()).unwrap();
    assert!(matches!(mesh.skin.joints[0], gpu::Joints::U16(_)));
    let narrow = gpu::Options {
        joints: gpu::JointWidth::U8,
        ..gpu::Options::default()
    };
    assert!(matches!(
        model.gpu_mesh(&narrow),
        Err(gpu::Error::JointWidth {
            entries: 345,
            bits: 8
        })
    ));
    // The asset keeps every joint (16-bit joint indices).
    let asset = convert::asset_of(&model).unwrap();
    assert_eq!(asset.skeleton.as_ref().unwrap().joints.len(), 344);
    let error = convert::skinning_error(Posed::Model(&model), Posed::Asset(&asset), 0);
    assert!(error.max < 1e-5, "{error}");
}

#[test]
fn bones_past_16_bit_indices_are_invalid_not_a_limit() {
    let mut bytes = level(2).write();
    put_u32_le(&mut bytes, 8, 65_536);
    let e = super::err_bytes(&bytes);
    assert_eq!(
        invalid(&e),
        (
            "header.bones_num",
            8,
            Problem::AboveMaximum {
                value: 65_536,
                max: 65_535
            }
        )
    );
}

// ---- 4. skeletal frames that also replace vertices ----

/// The bind-space positions of frame `f` of `b`'s group 0 by the rule: the stored vertices,
/// each replaced by the frame's last listing of it.
fn replaced(b: &Builder, f: usize) -> Vec<[f32; 3]> {
    let g = &b.groups[0];
    let mut out: Vec<[f32; 3]> = g.vertices.iter().map(|v| v.position).collect();
    for v in &g.frames[f].vertices {
        out[usize::from(v.vertindex)] = v.position;
    }
    out
}

fn lerp(a: &[[f32; 3]], b: &[[f32; 3]], t: f32) -> Vec<[f32; 3]> {
    a.iter()
        .zip(b)
        .map(|(p, q)| core::array::from_fn(|k| p[k] + t * (q[k] - p[k])))
        .collect()
}

#[test]
fn mixed_frames_replace_then_skin_on_deform_prepare_and_compact() {
    let b = Builder::mixed();
    let bytes = b.write();
    // Read without a word: the replacements are data, not an oddity.
    assert!(warnings_bytes(&bytes).is_empty());
    let model = Model::from_bytes(&bytes).unwrap();
    assert!(model.frames_replace_vertices());
    assert_eq!(model.num_frames(), 6);
    // Each frame: replaced, then skinned by its matrices (frames 4 and 5 carry none: the
    // bones keep their bind pose and the replacements show as they are).
    for f in 0..6 {
        let expected = skin_reference(&b, &b.groups[0].frames[f].transforms, &replaced(&b, f));
        let kernels = skinned_between(&bytes, Some((f, f, 0.0)));
        assert_kernels(&kernels, &expected, 1e-5, &format!("frame {f}"));
    }
    // The unbound vertex 12 takes its replaced positions: frame 1's and frame 4's.
    let [deform, ..] = skinned_between(&bytes, Some((1, 1, 0.0)));
    assert_eq!(deform[12], [0.2, 0.0, 3.0]);
    // Frames 4 and 5 have the same (bind) bones: their tween is the tween of their
    // replacements, skinned.
    let t = 0.25;
    let blended = lerp(&replaced(&b, 4), &replaced(&b, 5), t);
    let expected = skin_reference(&b, &[], &blended);
    let kernels = skinned_between(&bytes, Some((4, 5, t)));
    assert_kernels(&kernels, &expected, 1e-5, "frames 4 → 5 at 0.25");
    // Between frames whose bones differ, the pose's bind-space vertices are the blend of
    // the replaced positions, and it names the vertices either frame replaces.
    let mut pose = Pose::default();
    model
        .pose(1, 2, 0.5, Interpolation::Nlerp, &mut pose)
        .unwrap();
    let vertices = pose.frame_vertices();
    assert_eq!(vertices.replaced(), &[1, 2, 5, 9, 12]);
    let blended = lerp(&replaced(&b, 1), &replaced(&b, 2), 0.5);
    for (v, (a, e)) in vertices.positions().iter().zip(&blended).enumerate() {
        assert!(super::quirks::distance(*a, *e) < 1e-6, "vertex {v}");
    }
    // The bind pose replaces nothing: the stored mesh.
    model.pose_bind(&mut pose);
    assert!(pose.frame_vertices().is_empty());
    // The prepared kernel's own vertex order holds the replaced vertices where it puts them.
    let prepared = model.prepare().unwrap();
    model
        .pose(1, 1, 0.0, Interpolation::Nlerp, &mut pose)
        .unwrap();
    let n = 13;
    let (mut p, mut q) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
    prepared
        .skin(
            0,
            &pose,
            SimdLevel::detect(),
            VertexOrder::Prepared,
            &mut p,
            &mut q,
        )
        .unwrap();
    let order = prepared.mesh(0).unwrap().prepared_order();
    for (at, &v) in order.iter().enumerate() {
        assert!(
            super::quirks::distance(p[at], deform[v as usize]) < 1e-5,
            "vertex {v}"
        );
    }
}

#[test]
fn frames_replace_vertices_where_a_grouped_compact_layout_puts_them() {
    // 32 bones in a chain and 256 vertices, vertex `i` on bone `i % 32`: every block of
    // sixteen in file order binds sixteen bones, so the compact layout groups the vertices by
    // bone. Frame 1 replaces vertices 5, 37 and 200.
    let bones = (0..32u16)
        .map(|b| BoneDef {
            name: format!("b{b}").into_bytes(),
            parent: if b == 0 { mdl7::raw::NONE16 } else { b - 1 },
            position: [0.0, 0.0, 1.0],
        })
        .collect();
    let vertex = |i: u16| VertexDef {
        position: [
            f32::from(i % 7) * 0.1,
            f32::from(i % 5) * 0.2,
            f32::from(i % 32),
        ],
        vertindex: i % 32,
        normal: [0.0, 0.0, 1.0],
    };
    let frame = |f: u16, replaced: &[u16]| FrameDef {
        name: format!("frame {f}").into_bytes(),
        vertices: (replaced.iter())
            .map(|&v| VertexDef {
                vertindex: v,
                position: [0.5, 0.25, f32::from(v % 32) + 0.1],
                ..vertex(v)
            })
            .collect(),
        transforms: (0..32u16)
            .map(|b| {
                (
                    b,
                    mdl7::write::turn_about([0.0, 0.0, f32::from(b)], 3.0 * f32::from(f)),
                )
            })
            .collect(),
    };
    let b = Builder {
        bones,
        groups: vec![GroupDef {
            max_weights: 1,
            texcoords: vec![[0.0; 2]],
            triangles: (0..85u16)
                .map(|t| mdl7::TriangleDef {
                    v_index: [3 * t, 3 * t + 1, 3 * t + 2],
                    st_index: [0; 3],
                    material: 0,
                })
                .collect(),
            vertices: (0..256).map(vertex).collect(),
            frames: vec![frame(0, &[]), frame(1, &[5, 37, 200])],
            ..GroupDef::default()
        }],
        ..Builder::demo()
    };
    let bytes = b.write();
    let model = Model::from_bytes(&bytes).unwrap();
    assert!(model.frames_replace_vertices());
    let order = model.compact().unwrap().mesh(0).unwrap().prepared_order();
    assert!(
        !order.iter().copied().eq(0..256),
        "the layout kept file order"
    );
    // `skinned_between` checks the compact kernel's own order against file order, bit for
    // bit; here also against the rule.
    for (f, g, t) in [(1, 1, 0.0), (0, 1, 0.5)] {
        let kernels = skinned_between(&bytes, Some((f, g, t)));
        assert_kernels(&kernels, &kernels[0], 1e-5, &format!("frames {f} → {g}"));
    }
    let expected = skin_reference(&b, &b.groups[0].frames[1].transforms, &replaced(&b, 1));
    let kernels = skinned_between(&bytes, Some((1, 1, 0.0)));
    assert_kernels(&kernels, &expected, 1e-5, "frame 1");
}

#[test]
fn mixed_frames_go_to_gltf_as_morph_targets_and_refuse_one_set_of_gpu_buffers() {
    let bytes = Builder::mixed().write();
    let model = Model::from_bytes(&bytes).unwrap();
    assert!(matches!(
        model.gpu_mesh(&gpu::Options::default()),
        Err(gpu::Error::VertexFrames)
    ));
    // Baked: every frame a morph target (replaced, then skinned), the clips playing them,
    // the skeleton kept; posed, the asset is every frame the model deforms to.
    let asset = convert::asset_of(&model).unwrap();
    assert!(asset.skeleton.is_some());
    assert!(asset.meshes.iter().all(|m| m.targets.len() == 6));
    assert!(
        asset
            .clips
            .iter()
            .all(|c| matches!(c.keys, asset::ClipKeys::Morph(_)))
    );
    let error = convert::skinning_error(Posed::Model(&model), Posed::Asset(&asset), 0);
    assert_eq!(error.frames, 6);
    assert!(error.max < 1e-5, "{error}");
}

#[test]
fn a_frame_listing_a_vertex_twice_takes_the_last_with_one_warning() {
    let mut b = Builder::mixed();
    // Frame 1 lists vertex 5 again after vertex 12, moved elsewhere.
    let again = VertexDef {
        position: [0.5, 0.5, 1.5],
        ..b.groups[0].frames[1].vertices[1]
    };
    b.groups[0].frames[1].vertices.push(again);
    let l = layout(&b);
    let diag = warnings(&b);
    assert_eq!(diag.warnings().len(), 1, "{diag:?}");
    let w = diag.get(WarningKind::FrameVertexOrder).unwrap();
    // Frame 1: after frame 0 (24 bytes, 3 transformations) and its own head; the fifth
    // record's `vertindex`.
    let fifth = l.frames[0] + 24 + 3 * 68 + 24 + 4 * 26 + 12;
    assert_eq!(
        (w.what, w.offset, w.count),
        ("frame_vertex.vertindex", fifth, 1)
    );
    let bytes = b.write();
    let expected = skin_reference(&b, &b.groups[0].frames[1].transforms, &replaced(&b, 1));
    assert_eq!(replaced(&b, 1)[5], [0.5, 0.5, 1.5]);
    let kernels = skinned_between(&bytes, Some((1, 1, 0.0)));
    assert_kernels(&kernels, &expected, 1e-5, "frame 1, vertex 5 twice");
    // Tweened towards that frame, the last listing is the target.
    let blended = lerp(&replaced(&b, 4), &replaced(&b, 1), 0.5);
    let model = Model::from_bytes(&bytes).unwrap();
    let mut pose = Pose::default();
    model
        .pose(4, 1, 0.5, Interpolation::Nlerp, &mut pose)
        .unwrap();
    assert_eq!(pose.frame_vertices().positions()[5], blended[5]);
}

// ---- 5. embedded DDS skins ----

/// Red and blue as RGB565, and the texels of [`dds_skinned`]'s block (0: red, 1: blue).
const RED: u16 = 0xF800;
const BLUE: u16 = 0x001F;
const TEXELS: [[u8; 4]; 4] = [[0, 0, 0, 0], [1, 1, 1, 1], [0, 1, 0, 1], [1, 0, 1, 0]];

/// The demo with two embedded DDS skins of one DXT1 block: type `0x16` (with a material, as
/// character files store them) and `0x6`; every triangle draws with the first.
fn dds_skinned() -> Builder {
    let file = skelmap_testkit::dxt1_4x4(RED, BLUE, TEXELS);
    let mut b = Builder::demo();
    b.groups[0].skins = vec![
        mdl7::SkinDef::dds(&file, true),
        mdl7::SkinDef::dds(&file, false),
    ];
    for t in &mut b.groups[0].triangles {
        t.material = 0;
    }
    b
}

#[test]
fn embedded_dds_skins_decode_to_their_block_colours() {
    let b = dds_skinned();
    let bytes = b.write();
    assert!(warnings_bytes(&bytes).is_empty());
    let model = Model::from_bytes(&bytes).unwrap();
    let expected: Vec<u8> = TEXELS
        .iter()
        .flatten()
        .flat_map(|&i| {
            if i == 0 {
                [255, 0, 0, 255]
            } else {
                [0, 0, 255, 255]
            }
        })
        .collect();
    for skin in 0..2 {
        let s = model.skin(skin).unwrap();
        assert_eq!(s.type_code(), [0x16, 0x6][skin]);
        assert_eq!(s.dds().map(<[u8]>::len), Some(128 + 8));
        // skelmap-core holds no image codec: the file, not texels.
        assert_eq!(model.skin_rgba(skin), None);
        let image = skelmap_author::texture::skin_image(&model, skin).unwrap();
        assert_eq!((image.width, image.height), (4, 4));
        assert_eq!(image.rgba, expected, "skin {skin}");
    }
    // The asset embeds the first (the one the triangles draw with), decoded by the tools'
    // decoder; without one it has no image.
    let with = model
        .to_asset(&asset::Options {
            dds: Some(skelmap_author::texture::decode_dds),
            ..asset::Options::default()
        })
        .unwrap();
    assert_eq!(with.images.len(), 1);
    assert_eq!(with.images[0].rgba, expected);
    assert_eq!(with.materials[0].image, Some(0));
    let without = model.to_asset(&asset::Options::default()).unwrap();
    assert!(without.images.is_empty());
    // A DDS file that does not decode is no image, never a failure.
    assert!(skelmap_author::texture::decode_dds(b"DDS not really").is_none());
}
