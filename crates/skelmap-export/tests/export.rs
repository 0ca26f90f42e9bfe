//! The exporters on synthetic and real models: glTF read back with the `gltf` crate and
//! evaluated (skinning and morphing by hand from what the file says) against the runtime's
//! own posed vertices; OBJ and PNG output; the error cases.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use skelmap_core::Parse;
use std::path::PathBuf;

use glam::{Mat4, Quat, Vec3};
use skelmap_core::asset::{self, Asset};
use skelmap_core::dpm::Dpm;
use skelmap_core::skm::convert;
use skelmap_core::{Diagnostics, Limits, Model, Source, synth};
use skelmap_export::gltf;
use skelmap_export::{Error, obj, render};

/// The files of corpus folder `sub`, or `None` (with a message) when absent (see
/// `skelmap_testkit`).
fn corpus(sub: &str) -> Option<Vec<PathBuf>> {
    skelmap_testkit::corpus_path(sub).map(|_| skelmap_testkit::corpus_files(sub))
}

fn tube_bytes() -> Vec<u8> {
    synth::tube(&synth::TubeParams::default()).write().unwrap()
}

fn glb(asset: &Asset, options: &gltf::Options) -> Vec<u8> {
    let mut out = Vec::new();
    gltf::write_glb(asset, options, &mut out).unwrap();
    out
}

fn at(model: &Model<'_>, frame: Option<usize>) -> Asset {
    model
        .to_asset(&asset::Options {
            frame,
            ..asset::Options::default()
        })
        .unwrap()
}

/// A glTF file as data: per mesh node its vertices evaluated at animation key `key` of
/// animation `animation` (or at rest with `None`).
struct Evaluated {
    meshes: Vec<Vec<Vec3>>,
}

/// Evaluates a GLB the way a viewer would: node TRS (overridden by the animation's key),
/// world matrices down the hierarchy, linear blend skinning with the inverse bind matrices
/// over every JOINTS_n/WEIGHTS_n set, morph weights from the animation.
fn evaluate(bytes: &[u8], animation: Option<(usize, usize)>) -> Evaluated {
    let doc = ::gltf::Gltf::from_slice(bytes).unwrap();
    let blob = doc.blob.clone().unwrap();
    let buffers = |_: ::gltf::Buffer<'_>| Some(blob.as_slice());
    let nodes: Vec<_> = doc.nodes().collect();
    let mut local: Vec<(Vec3, Quat, Vec3)> = nodes
        .iter()
        .map(|n| {
            let (t, r, s) = n.transform().decomposed();
            (Vec3::from(t), Quat::from_array(r), Vec3::from(s))
        })
        .collect();
    let mut weights: Vec<Option<Vec<f32>>> = nodes
        .iter()
        .map(|n| n.mesh().and_then(|m| m.weights().map(<[f32]>::to_vec)))
        .collect();
    if let Some((a, key)) = animation {
        let anim = doc.animations().nth(a).unwrap();
        for channel in anim.channels() {
            let node = channel.target().node().index();
            let reader = channel.reader(buffers);
            match reader.read_outputs().unwrap() {
                ::gltf::animation::util::ReadOutputs::Translations(t) => {
                    local[node].0 = Vec3::from(t.into_iter().nth(key).unwrap());
                }
                ::gltf::animation::util::ReadOutputs::Rotations(r) => {
                    local[node].1 = Quat::from_array(r.into_f32().nth(key).unwrap());
                }
                ::gltf::animation::util::ReadOutputs::Scales(v) => {
                    local[node].2 = Vec3::from(v.into_iter().nth(key).unwrap());
                }
                ::gltf::animation::util::ReadOutputs::MorphTargetWeights(w) => {
                    let all: Vec<f32> = w.into_f32().collect();
                    let n = all.len() / reader.read_inputs().unwrap().len();
                    weights[node] = Some(all[key * n..(key + 1) * n].to_vec());
                }
            }
        }
    }
    let mut parent = vec![None; nodes.len()];
    for n in &nodes {
        for c in n.children() {
            parent[c.index()] = Some(n.index());
        }
    }
    let world = |mut i: usize| {
        let mut m = Mat4::IDENTITY;
        loop {
            let (t, r, s) = local[i];
            m = Mat4::from_scale_rotation_translation(s, r, t) * m;
            match parent[i] {
                Some(p) => i = p,
                None => return m,
            }
        }
    };
    let mut meshes = Vec::new();
    for node in &nodes {
        let Some(mesh) = node.mesh() else { continue };
        let prim = mesh.primitives().next().unwrap();
        let reader = prim.reader(buffers);
        let mut positions: Vec<Vec3> = reader.read_positions().unwrap().map(Vec3::from).collect();
        if let Some(w) = &weights[node.index()] {
            for (target, &w) in reader.read_morph_targets().zip(w) {
                for (p, d) in positions.iter_mut().zip(target.0.unwrap()) {
                    *p += w * Vec3::from(d);
                }
            }
        }
        let out = match node.skin() {
            Some(skin) => {
                let ibm: Vec<Mat4> = skin
                    .reader(buffers)
                    .read_inverse_bind_matrices()
                    .unwrap()
                    .map(|m| Mat4::from_cols_array_2d(&m))
                    .collect();
                let joints: Vec<Mat4> = skin
                    .joints()
                    .zip(&ibm)
                    .map(|(j, ibm)| world(j.index()) * *ibm)
                    .collect();
                let mut skinned = vec![Vec3::ZERO; positions.len()];
                let mut set = 0;
                while let (Some(js), Some(ws)) = (reader.read_joints(set), reader.read_weights(set))
                {
                    for ((s, (j, w)), p) in skinned
                        .iter_mut()
                        .zip(js.into_u16().zip(ws.into_f32()))
                        .zip(&positions)
                    {
                        for k in 0..4 {
                            *s += w[k] * joints[usize::from(j[k])].transform_point3(*p);
                        }
                    }
                    set += 1;
                }
                skinned
            }
            None => {
                let m = world(node.index());
                positions.iter().map(|p| m.transform_point3(*p)).collect()
            }
        };
        meshes.push(out);
    }
    Evaluated { meshes }
}

/// The largest distance between the evaluated glTF and the runtime's posed asset (turned
/// into glTF axes), relative to the model's size.
fn deviation(evaluated: &Evaluated, asset: &Asset) -> f32 {
    let turn = asset.up.to_y_up();
    let (lo, hi) = asset.bounds().unwrap();
    let size = (Vec3::from(hi) - Vec3::from(lo)).length().max(1e-6);
    let mut worst = 0.0f32;
    assert_eq!(evaluated.meshes.len(), asset.meshes.len());
    for (e, m) in evaluated.meshes.iter().zip(&asset.meshes) {
        assert_eq!(e.len(), m.positions.len());
        for (p, q) in e.iter().zip(&m.positions) {
            worst = worst.max((*p - turn * Vec3::from(*q)).length());
        }
    }
    worst / size
}

#[test]
fn glb_of_the_tube_reads_back_with_its_counts() {
    let bytes = tube_bytes();
    let model = Model::from_bytes(&bytes).unwrap();
    let asset = at(&model, None);
    let glb = glb(&asset, &gltf::Options::default());
    let doc = ::gltf::Gltf::from_slice(&glb).unwrap();
    // 4 bones + skelmap_root + 1 mesh node.
    assert_eq!(doc.nodes().count(), 6);
    assert_eq!(doc.meshes().count(), 1);
    let skin = doc.skins().next().unwrap();
    assert_eq!(skin.joints().count(), 5);
    assert_eq!(skin.skeleton().unwrap().name(), Some(gltf::ROOT_NODE));
    // Frame groups "bind" (1 frame) and "wave" (8 frames).
    let names: Vec<_> = doc
        .animations()
        .map(|a| a.name().unwrap().to_string())
        .collect();
    assert_eq!(names, ["bind", "wave"]);
    // A translation and a rotation channel per bone.
    assert!(doc.animations().all(|a| a.channels().count() == 8));
    let prim = doc.meshes().next().unwrap().primitives().next().unwrap();
    let count = |s| prim.get(&s).unwrap().count();
    assert_eq!(count(::gltf::Semantic::Positions), 136);
    assert_eq!(count(::gltf::Semantic::Normals), 136);
    assert_eq!(count(::gltf::Semantic::TexCoords(0)), 136);
    assert_eq!(count(::gltf::Semantic::Joints(0)), 136);
    assert!(prim.get(&::gltf::Semantic::Joints(1)).is_none());
    assert_eq!(prim.indices().unwrap().count(), 256 * 3);
}

#[test]
fn gltf_evaluated_at_every_key_matches_the_runtime_pose_of_the_tube() {
    let bytes = tube_bytes();
    let model = Model::from_bytes(&bytes).unwrap();
    let asset = at(&model, None);
    let all = glb(
        &asset,
        &gltf::Options {
            all_influences: true,
            ..gltf::Options::default()
        },
    );
    // The tube has up to 3 influences per vertex, so the top 4 are all of them.
    assert_eq!(glb(&asset, &gltf::Options::default()), all);
    assert!(deviation(&evaluate(&all, None), &asset) < 1e-5);
    for (a, clip) in asset.clips.iter().enumerate() {
        for key in 0..clip.len() {
            let frame = clip.first as usize + key;
            let d = deviation(&evaluate(&all, Some((a, key))), &at(&model, Some(frame)));
            assert!(d < 1e-5, "frame {frame}: {d}");
        }
    }
}

#[test]
fn skm_conversion_exports_like_the_dpm() {
    let bytes = tube_bytes();
    let c = convert::from_dpm(&Dpm::parse(&bytes).unwrap(), &mut Diagnostics::new());
    let (skm, skp) = (c.skm.write().unwrap(), c.skp.write().unwrap());
    let paired = Model::from_skm(
        Source::from_bytes(&skm),
        Source::from_bytes(&skp),
        &Limits::DEFAULT,
    )
    .unwrap();
    let a = at(&Model::from_bytes(&bytes).unwrap(), Some(5));
    let b = at(&paired, Some(5));
    assert_eq!(a.meshes[0].triangles, b.meshes[0].triangles);
    for (p, q) in a.meshes[0].positions.iter().zip(&b.meshes[0].positions) {
        assert!((Vec3::from(*p) - Vec3::from(*q)).length() < 1e-4);
    }
    assert_eq!(a.meshes[0].influences, b.meshes[0].influences);
}

#[test]
fn corpus_dpm_gltf_reproduces_the_runtime_pose() {
    let Some(files) = corpus("dpm") else { return };
    for path in files {
        let bytes = std::fs::read(&path).unwrap();
        let model = Model::from_bytes(&bytes).unwrap();
        let asset = at(&model, None);
        let all = glb(
            &asset,
            &gltf::Options {
                all_influences: true,
                ..gltf::Options::default()
            },
        );
        // The bind pose is the exported positions themselves.
        assert!(deviation(&evaluate(&all, None), &asset) < 1e-5);
        // Every animation's middle key against the runtime's frame.
        let mut worst = 0.0f32;
        for (a, clip) in asset.clips.iter().enumerate() {
            let key = clip.len() / 2;
            let d = deviation(
                &evaluate(&all, Some((a, key))),
                &at(&model, Some(clip.first as usize + key)),
            );
            worst = worst.max(d);
        }
        eprintln!(
            "{}: worst deviation {worst:e} of the model size",
            path.display()
        );
        assert!(worst < 1e-3, "{}: {worst}", path.display());
    }
}

#[test]
fn corpus_mdl_and_hmp_morph_targets_reproduce_every_frame() {
    let Some(mdl) = corpus("mdl") else { return };
    let hmp = corpus("hmp").unwrap_or_default();
    for path in mdl.iter().chain(&hmp) {
        let bytes = std::fs::read(path).unwrap();
        let Ok(model) = Model::from_bytes(&bytes) else {
            continue; // MDL2 is refused by design.
        };
        let asset = at(&model, None);
        let file = glb(&asset, &gltf::Options::default());
        assert!(deviation(&evaluate(&file, None), &asset) < 1e-5);
        for (a, clip) in asset.clips.iter().enumerate() {
            for key in [0, clip.len() - 1] {
                let frame = clip.first as usize + key;
                let d = deviation(&evaluate(&file, Some((a, key))), &at(&model, Some(frame)));
                assert!(d < 1e-5, "{} frame {frame}: {d}", path.display());
            }
        }
    }
}

#[test]
fn iqm_gltf_reproduces_the_runtime_pose_with_scale() {
    let demo = skelmap_core::iqm::Builder::demo().write().unwrap();
    let mut files = vec![("demo.iqm".to_string(), demo)];
    for path in skelmap_testkit::corpus_next_files("iqm") {
        files.push((path.display().to_string(), std::fs::read(&path).unwrap()));
    }
    let mut scaled = 0;
    for (name, bytes) in files {
        let model = Model::from_bytes(&bytes).unwrap();
        if model.num_meshes() == 0 {
            continue;
        }
        let asset = at(&model, None);
        let file = glb(&asset, &gltf::Options::default());
        assert!(deviation(&evaluate(&file, None), &asset) < 1e-5, "{name}");
        for (a, clip) in asset.clips.iter().enumerate() {
            for key in [0, clip.len() / 2, clip.len() - 1] {
                let posed = at(&model, Some(clip.first as usize + key));
                scaled += usize::from(posed.skeleton.as_ref().is_some_and(|s| {
                    s.joints
                        .iter()
                        .any(|j| (j.scale - Vec3::ONE).length() > 1e-3)
                }));
                let d = deviation(&evaluate(&file, Some((a, key))), &posed);
                assert!(d < 1e-5, "{name} clip {a} key {key}: {d}");
            }
        }
    }
    assert!(scaled > 0, "some key scales a joint");
}

#[test]
fn corpus_ms3d_gltf_reproduces_the_runtime_pose() {
    let Some(files) = corpus("ms3d") else { return };
    for path in files {
        let bytes = std::fs::read(&path).unwrap();
        let model = Model::from_bytes(&bytes).unwrap();
        let asset = at(&model, None);
        let file = glb(&asset, &gltf::Options::default());
        assert!(deviation(&evaluate(&file, None), &asset) < 1e-5);
        for (a, clip) in asset.clips.iter().enumerate() {
            let key = clip.len() / 2;
            let d = deviation(
                &evaluate(&file, Some((a, key))),
                &at(&model, Some(clip.first as usize + key)),
            );
            assert!(d < 1e-3, "{}: {d}", path.display());
        }
    }
}

#[test]
fn top_four_influences_are_renormalised() {
    let Some(files) = corpus("dpm") else { return };
    // The nanomage (one mesh) has vertices with up to 11 influences.
    let path = files
        .iter()
        .find(|p| p.ends_with("xon_monsters_nanomage_lod2.dpm"))
        .unwrap();
    let bytes = std::fs::read(path).unwrap();
    let asset = at(&Model::from_bytes(&bytes).unwrap(), None);
    let most = asset
        .meshes
        .iter()
        .map(|m| m.influences.max_per_vertex())
        .max()
        .unwrap();
    let top4 = glb(&asset, &gltf::Options::default());
    let all = glb(
        &asset,
        &gltf::Options {
            all_influences: true,
            ..gltf::Options::default()
        },
    );
    let sets = |bytes: &[u8]| {
        let doc = ::gltf::Gltf::from_slice(bytes).unwrap();
        let prim = doc.meshes().next().unwrap().primitives().next().unwrap();
        (0..8)
            .take_while(|&s| prim.get(&::gltf::Semantic::Weights(s)).is_some())
            .count()
    };
    assert_eq!(sets(&top4), 1);
    assert_eq!((most, sets(&all)), (11, 3));
    // The four kept are chosen by their largest error over the 551 frames, as the IQM, MS3D
    // and SL writers choose them, and the notes say so; with every influence, nothing is cut.
    assert_eq!(
        gltf::influence_notes(&asset, &gltf::Options::default()),
        [
            "412 vertices had more than 4 influences; the 4 whose largest error over 551 frames \
          is smallest were kept (118 differ from the 4 heaviest)"
        ]
    );
    let every = gltf::Options {
        all_influences: true,
        ..gltf::Options::default()
    };
    assert!(gltf::influence_notes(&asset, &every).is_empty());
    let doc = ::gltf::Gltf::from_slice(&top4).unwrap();
    let blob = doc.blob.clone().unwrap();
    let prim = doc.meshes().next().unwrap().primitives().next().unwrap();
    let reader = prim.reader(|_| Some(blob.as_slice()));
    for w in reader.read_weights(0).unwrap().into_f32() {
        assert!((w.iter().sum::<f32>() - 1.0).abs() < 1e-5);
        assert!(w.windows(2).all(|p| p[0] >= p[1]), "largest first: {w:?}");
    }
    // unorm16, as gpu::Skin quantises them: exactly 65535 a vertex.
    match reader.read_weights(0).unwrap() {
        ::gltf::mesh::util::ReadWeights::U16(weights) => {
            for w in weights {
                assert_eq!(w.iter().map(|&x| u32::from(x)).sum::<u32>(), 65535);
            }
        }
        _ => panic!("weights are not unorm16"),
    }
}

#[test]
fn gltf_text_refers_to_its_bin() {
    let bytes = tube_bytes();
    let asset = at(&Model::from_bytes(&bytes).unwrap(), None);
    let (json, bin) = gltf::to_gltf(&asset, &gltf::Options::default(), "tube.bin").unwrap();
    let doc = ::gltf::Gltf::from_slice(&json).unwrap();
    let buffer = doc.buffers().next().unwrap();
    assert_eq!(buffer.length(), bin.len());
    assert!(matches!(
        buffer.source(),
        ::gltf::buffer::Source::Uri("tube.bin")
    ));
}

/// glTF binds a texture only where a primitive has `TEXCOORD_0`: a mesh without texture
/// coordinates gets a copy of its material without the texture (the Khronos validator found
/// an MDL7 whose texture file was given to a mesh with none).
#[test]
fn a_mesh_without_texture_coordinates_gets_its_material_untextured() {
    let bytes = tube_bytes();
    let mut asset = at(&Model::from_bytes(&bytes).unwrap(), None);
    asset.images.push(asset::Image {
        width: 1,
        height: 1,
        rgba: vec![255, 0, 0, 255],
        jpeg: None,
    });
    asset.materials[0].image = Some(0);
    let mut bare = asset.meshes[0].clone();
    bare.uvs = None;
    asset.meshes.push(bare.clone());
    asset.meshes.push(bare);
    let (json, _) = gltf::to_gltf(&asset, &gltf::Options::default(), "t.bin").unwrap();
    let doc = ::gltf::Gltf::from_slice(&json).unwrap();
    let materials: Vec<_> = doc
        .meshes()
        .map(|m| m.primitives().next().unwrap().material().index())
        .collect();
    assert_eq!(materials, [Some(0), Some(1), Some(1)]);
    let textured: Vec<bool> = doc
        .materials()
        .map(|m| m.pbr_metallic_roughness().base_color_texture().is_some())
        .collect();
    assert_eq!(textured, [true, false]);
    assert_eq!(doc.materials().nth(1).unwrap().name(), Some("tube"));
}

/// The default camera faces the asset's front: a model facing `−Z` (as MilkShape's do) is seen
/// as one facing `+X` (Quake's lineage) turned 90° is, and one facing `+Z` (an IQM, turned to
/// `+Y` up) as one turned −90°.
#[test]
fn the_default_camera_faces_the_asset_s_front() {
    let bytes = tube_bytes();
    let mut asset = at(&Model::from_bytes(&bytes).unwrap(), None);
    assert_eq!(asset.front, [1.0, 0.0, 0.0]);
    asset.set_up(asset::UpAxis::Y);
    assert_eq!(asset.front, [1.0, 0.0, 0.0]);
    // Three times as wide along x as along z, so that a quarter turn shows.
    for p in asset.meshes.iter_mut().flat_map(|m| m.positions.iter_mut()) {
        p[0] *= 3.0;
    }
    let draw = |front: [f32; 3], yaw: f32| {
        let mut a = asset.clone();
        a.front = front;
        let view = render::View {
            yaw,
            ..render::View::default()
        };
        render::render_with(&a, 48, 48, &view).unwrap().rgba
    };
    let (x, neg_z, z) = ([1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 0.0, 1.0]);
    assert_eq!(draw(neg_z, 0.0), draw(x, 90.0));
    assert_eq!(draw(z, 0.0), draw(x, -90.0));
    assert!(draw(neg_z, 0.0) != draw(x, 0.0));
}

/// Each format's conventions give its asset's front: MilkShape's `−Z` (`+Y` up), an IQM's
/// `−Y` (`+Z` up, Blender's front), and `+X` for the Quake lineage.
#[test]
fn an_asset_faces_its_format_s_front() {
    let iqm = skelmap_core::iqm::Builder::demo().write().unwrap();
    let iqm = at(&Model::from_bytes(&iqm).unwrap(), None);
    assert_eq!((iqm.up, iqm.front), (asset::UpAxis::Z, [0.0, -1.0, 0.0]));
    let ms3d = skelmap_core::ms3d::Builder::default().write().unwrap();
    let ms3d = at(&Model::from_bytes(&ms3d).unwrap(), None);
    assert_eq!((ms3d.up, ms3d.front), (asset::UpAxis::Y, [0.0, 0.0, -1.0]));
    let dpm = at(&Model::from_bytes(&tube_bytes()).unwrap(), None);
    assert_eq!((dpm.up, dpm.front), (asset::UpAxis::Z, [1.0, 0.0, 0.0]));
    // Turned to +Y up, an IQM faces +Z, as glTF models do.
    assert_eq!(iqm.with_up(asset::UpAxis::Y).front, [0.0, 0.0, 1.0]);
}

#[test]
fn obj_has_one_line_per_vertex_and_face() {
    let bytes = tube_bytes();
    let asset = at(&Model::from_bytes(&bytes).unwrap(), Some(4));
    let mut out = Vec::new();
    obj::write(&asset, &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    let count = |prefix: &str| text.lines().filter(|l| l.starts_with(prefix)).count();
    assert_eq!((count("v "), count("vt "), count("vn ")), (136, 136, 136));
    assert_eq!(count("f "), 256);
    assert!(text.contains("# frame 4"));
    // The first vertex is the posed one, printed exactly.
    let p = asset.meshes[0].positions[0];
    assert!(text.contains(&format!("v {} {} {}\n", p[0], p[1], p[2])));
}

/// A triangle drawn over itself 200 times across a 4096 × 4096 image: about three billion
/// pixel tests, counted before any is made, and refused by name; the same triangle once is
/// drawn.
#[test]
fn a_preview_of_triangles_drawn_over_themselves_is_refused_before_drawing() {
    let mut asset = morph_asset(&[0], 0);
    asset.clips.clear();
    asset.meshes[0].triangles = vec![[0, 1, 2]; 200];
    let err = render::render(&asset, 4096, 4096).unwrap_err();
    assert!(
        matches!(err, Error::TooLarge { unit: "pixels", size, .. } if size > render::MAX_PIXEL_TESTS),
        "{err}"
    );
    asset.meshes[0].triangles.truncate(1);
    let image = render::render(&asset, 64, 64).unwrap();
    assert!(image.rgba.chunks(4).any(|p| p != render::BACKGROUND));
}

#[test]
fn render_draws_the_model_inside_the_frame_and_a_sheet_has_its_cells() {
    let bytes = tube_bytes();
    let model = Model::from_bytes(&bytes).unwrap();
    let image = render::render(&at(&model, None), 96, 64).unwrap();
    assert_eq!(
        (image.width, image.height, image.rgba.len()),
        (96, 64, 96 * 64 * 4)
    );
    let drawn = |img: &skelmap_core::asset::Image, x0: u32, x1: u32| {
        (0..img.height)
            .flat_map(|y| (x0..x1).map(move |x| (x, y)))
            .filter(|&(x, y)| {
                let i = 4 * (y * img.width + x) as usize;
                img.rgba[i..i + 4] != render::BACKGROUND
            })
            .count()
    };
    assert!(drawn(&image, 0, 96) > 100);
    // The border (outside the 90 % fit) stays background.
    let border = (0..96).all(|x| {
        let i = 4 * x as usize;
        image.rgba[i..i + 4] == render::BACKGROUND
    });
    assert!(border);
    let assets: Vec<Asset> = (0..3).map(|f| at(&model, Some(f))).collect();
    let sheet = render::contact_sheet(&assets, 2, 40, 30).unwrap();
    assert_eq!((sheet.width, sheet.height), (80, 60));
    let png = render::encode_png(sheet.width, sheet.height, &sheet.rgba).unwrap();
    let decoder = png::Decoder::new(std::io::Cursor::new(png));
    let info = decoder.read_info().unwrap().info().clone();
    assert_eq!((info.width, info.height), (80, 60));
}

#[test]
fn errors_name_what_went_wrong() {
    let bytes = tube_bytes();
    let model = Model::from_bytes(&bytes).unwrap();
    let err = &model
        .to_asset(&asset::Options {
            frame: Some(9),
            ..asset::Options::default()
        })
        .unwrap_err();
    assert!(matches!(
        err,
        asset::Error::FrameOutOfRange {
            frame: 9,
            frames: 9
        }
    ));
    assert_eq!(
        err.to_string(),
        "frame 9 is out of range: the model has 9 frames"
    );
    // An SKP has joints and animations but nothing to draw.
    let c = convert::from_dpm(&Dpm::parse(&bytes).unwrap(), &mut Diagnostics::new());
    let skp = c.skp.write().unwrap();
    let skp_model = Model::from_bytes(&skp).unwrap();
    let asset = at(&skp_model, None);
    assert!(matches!(
        render::render(&asset, 8, 8),
        Err(Error::NoGeometry { format: "SKP", .. })
    ));
    assert!(matches!(
        obj::write(&asset, Vec::new()),
        Err(Error::NoGeometry { .. })
    ));
    // ... but still exports as glTF: nodes and animations, no skin.
    let doc = ::gltf::Gltf::from_slice(&glb(&asset, &gltf::Options::default())).unwrap();
    assert_eq!((doc.skins().count(), doc.animations().count()), (0, 2));
    // A lone SKM is no model: it needs its skeleton.
    let skm = c.skm.write().unwrap();
    assert!(matches!(
        Model::from_bytes(&skm),
        Err(skelmap_core::Error::Resolve { .. })
    ));
    assert!(matches!(
        render::render(&at(&model, None), 0, 8),
        Err(Error::ImageSize { width: 0, .. })
    ));
}

/// Regression (found by the byte-flip sweep in `robustness.rs`, on an SKP): finite but huge
/// pose values pass validation, overflow to infinity and NaN when the bones are chained and
/// skinned, and reached the glTF JSON as `null` (serde's rendering of NaN), which made the
/// file unreadable. Non-finite numbers are now replaced and counted.
#[test]
fn overflowing_poses_used_to_write_null_into_the_gltf_json() {
    let bytes = tube_bytes();
    let mut c = convert::from_dpm(&Dpm::parse(&bytes).unwrap(), &mut Diagnostics::new());
    // Frame 0: bones 1 and 2 each 3e38 along x; their chain sums past f32::MAX.
    c.skp.frames[0].poses[1].1[0] = 3.0e38;
    c.skp.frames[0].poses[2].1[0] = 3.0e38;
    let (skm, skp) = (c.skm.write().unwrap(), c.skp.write().unwrap());
    let model = Model::from_skm(
        Source::from_bytes(&skm),
        Source::from_bytes(&skp),
        &Limits::DEFAULT,
    )
    .unwrap();
    let asset = at(&model, None);
    assert!(asset.replaced_non_finite > 0);
    let file = glb(&asset, &gltf::Options::default());
    let doc = ::gltf::Gltf::from_slice(&file).unwrap();
    assert_eq!(doc.nodes().count(), 6);
    assert!(!String::from_utf8_lossy(&file).contains("null"));
}

/// Regression (fuzz target `export`, seed `crash-export-asset-without-nodes.ms3d`): an MS3D
/// with neither triangles nor joints was written with a glTF asset listing no nodes, which
/// the spec allows but the `gltf` crate refuses to read ("missing field `nodes`"). Such a
/// file now gets no asset at all.
#[test]
fn a_model_with_nothing_to_show_used_to_get_an_unreadable_empty_scene() {
    let bytes = skelmap_core::ms3d::Builder::default().write().unwrap(); // nothing at all
    let model = Model::from_bytes(&bytes).unwrap();
    let asset = at(&model, None);
    assert_eq!((asset.num_triangles(), asset.skeleton.is_none()), (0, true));
    let doc = ::gltf::Gltf::from_slice(&glb(&asset, &gltf::Options::default())).unwrap();
    assert_eq!((doc.scenes().count(), doc.nodes().count()), (0, 0));
}

/// Found by the `export` fuzz target: a Quake model whose vertices lie at x = −f32::MAX (a
/// finite, valid position). Turning +Z up to +Y up with the quaternion's arithmetic squared
/// that coordinate, so the GLB got −inf and NaN positions and `min`/`max` that JSON cannot
/// hold. The turn is now an exact permutation of the axes.
#[test]
fn a_huge_coordinate_used_to_turn_into_nan_in_the_glb() {
    let seed = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz/seeds/export/crash-export-huge-coordinate-turned-up.mdl");
    let bytes = std::fs::read(seed).unwrap();
    let model = Model::from_bytes(&bytes).unwrap();
    let asset = at(&model, Some(0));
    assert_eq!(asset.up, asset::UpAxis::Z);
    let doc = ::gltf::Gltf::from_slice(&glb(&asset, &gltf::Options::default())).unwrap();
    let accessor = doc.meshes().next().unwrap().primitives().next().unwrap();
    let position = accessor.get(&::gltf::Semantic::Positions).unwrap();
    let to_f32 = |v: ::gltf::json::Value| -> Vec<f32> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap() as f32)
            .collect()
    };
    let (min, max) = (
        to_f32(position.min().unwrap()),
        to_f32(position.max().unwrap()),
    );
    // The model's (x, y, z) becomes (x, z, −y), each coordinate moved, not rounded.
    let points = &asset.meshes[0].positions;
    for k in 0..3 {
        let turned = |p: &[f32; 3]| [p[0], p[2], -p[1]][k];
        let lo = points.iter().map(turned).fold(f32::INFINITY, f32::min);
        let hi = points.iter().map(turned).fold(f32::NEG_INFINITY, f32::max);
        assert_eq!((min[k], max[k]), (lo, hi), "axis {k}");
    }
    assert_eq!(min[0], -f32::MAX);
    let mut turned = asset.clone();
    turned.set_up(asset::UpAxis::Y);
    for (p, q) in points.iter().zip(&turned.meshes[0].positions) {
        assert_eq!(q.map(f32::to_bits), [p[0], p[2], -p[1]].map(f32::to_bits));
    }
}

#[test]
fn an_animation_past_the_key_budget_is_refused() {
    // 2,049 frames of one triangle in one group ("f_1", "f_2" …): every key holds one weight
    // per frame, 2,049² = 4,198,401 keys, just past MAX_CLIP_KEYS (4,194,304).
    let frames = 2049u32;
    let mdl = skelmap_core::gamestudio::MdlBuilder {
        skin_size: [8, 8],
        skin_vertices: vec![[0, 0], [8, 0], [0, 8]],
        triangles: vec![([0, 1, 2], [0, 1, 2])],
        frames: (0..frames)
            .map(|f| skelmap_core::gamestudio::write::MdlFrameDef {
                frame_type: 0,
                name: format!("f_{f}").into_bytes(),
                vertices: vec![
                    ([0, 0, 0], 0),
                    ([9, 0, 0], 0),
                    ([0, 9, (f % 200) as u16], 0),
                ],
            })
            .collect(),
        ..Default::default()
    }
    .write();
    let model = Model::from_bytes(&mdl).unwrap();
    assert_eq!(asset::MAX_CLIP_KEYS, 4_194_304);
    let err = model.to_asset(&asset::Options::default()).unwrap_err();
    assert!(
        matches!(err, asset::Error::TooManyKeys { keys: 4_198_401 }),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "the animation (frames × joints or morph targets) is too large: 4198401 keys"
    );
    // Without animations there are no morph targets and nothing to refuse.
    let asset = at_options(&model, true);
    assert!(asset.meshes[0].targets.is_empty() && asset.clips.is_empty());
}

fn at_options(model: &Model<'_>, no_animations: bool) -> Asset {
    model
        .to_asset(&asset::Options {
            no_animations,
            ..asset::Options::default()
        })
        .unwrap()
}

/// An HMP7 skin that names an external texture becomes an image URI relative to the model
/// (skelmap never reads the file); a reference to it is followed; names that would leave the
/// model's folder, or are not UTF-8, are left out.
#[test]
fn external_skin_names_become_relative_image_uris() {
    use skelmap_core::gamestudio;
    use skelmap_core::gamestudio::write::SkinDef;
    let hmp = |skins: Vec<SkinDef>| {
        gamestudio::HmpBuilder {
            row: 2.0,
            skins,
            frames: vec![vec![(10, [0, 0]); 4]],
            ..gamestudio::HmpBuilder::default()
        }
        .write()
    };
    let named = |name: &[u8]| {
        let mut data = name.to_vec();
        data.push(0);
        SkinDef {
            code: 7,
            width: data.len() as i32,
            height: 1,
            data,
        }
    };
    let uri_of = |bytes: &[u8]| {
        let model = Model::from_bytes(bytes).unwrap();
        let asset = model.to_asset(&asset::Options::default()).unwrap();
        let (json, _) = gltf::to_gltf(&asset, &gltf::Options::default(), "x.bin").unwrap();
        let doc: serde_json::Value = serde_json::from_slice(&json).unwrap();
        (
            asset.materials[0].external.clone(),
            doc["images"][0]["uri"].as_str().map(str::to_owned),
        )
    };
    let reference = SkinDef {
        code: 1,
        width: 1,
        height: 0,
        data: Vec::new(),
    };
    assert_eq!(
        uri_of(&hmp(vec![named(b"tex\\rock 1.tga")])),
        (
            Some("tex/rock%201.tga".into()),
            Some("tex/rock%201.tga".into())
        )
    );
    assert_eq!(
        uri_of(&hmp(vec![reference, named(b"grass.bmp")]))
            .1
            .as_deref(),
        Some("grass.bmp"),
        "skin 0 refers to skin 1"
    );
    for bad in [
        &b"../secret.tga"[..],
        b"/etc/x.tga",
        b"C:\\x.tga",
        b"\xff.tga",
    ] {
        assert_eq!(uri_of(&hmp(vec![named(bad)])), (None, None), "{bad:?}");
    }
    // A GBK name (你.tga) is decoded, then written as UTF-8 in the URI.
    assert_eq!(
        uri_of(&hmp(vec![named(b"\xc4\xe3.tga")])),
        (Some("%E4%BD%A0.tga".into()), Some("%E4%BD%A0.tga".into()))
    );
}

/// An MDL7's groups draw with several skins at once: each submesh keeps its own skin's
/// material (named as the skin is), an external name as a URI, embedded texels as an image.
#[test]
fn an_mdl7_keeps_a_material_for_each_skin_its_triangles_use() {
    let bytes = skelmap_core::mdl7::Builder::demo().write();
    let model = Model::from_bytes(&bytes).unwrap();
    let built = at(&model, None);
    let names: Vec<&str> = built.materials.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["Skin1", "Skin2"]);
    assert_eq!(built.materials[0].external.as_deref(), Some("demo.tga"));
    assert_eq!(built.materials[0].image, None);
    let image = &built.images[built.materials[1].image.unwrap()];
    assert_eq!((image.width, image.height), (8, 8));
    assert_eq!(image.rgba[..4], [255, 0, 0, 255], "RGB565 0xF800 is red");
    let used: Vec<Option<usize>> = built.meshes.iter().map(|m| m.material).collect();
    assert_eq!(used, [Some(0), Some(1)]);
}

/// A Quake III player as one scene: each part under its parent's tag node, an animation per
/// set of clips; evaluated at every key of `legs_run+torso_attack` as a viewer would, each
/// part's vertices are where the runtime puts them (its frame, placed by the assembly),
/// turned into glTF's axes.
#[test]
fn a_player_is_one_scene_with_parts_on_tags_and_clip_sets_animated() {
    use skelmap_core::model::{Assembly, OpenOptions, Pose};
    use skelmap_core::pose::Interpolation;
    let dir = tempfile::Builder::new()
        .prefix("skelmap-export-player-")
        .tempdir()
        .unwrap();
    let dir = dir.path();
    synth::player(2).write_to(dir).unwrap();
    let weapon = dir.join("weapon.md3");
    std::fs::write(&weapon, skelmap_core::md3::Builder::triangle().write()).unwrap();
    let player = Assembly::open_player(dir, Some(&weapon), &OpenOptions::default()).unwrap();
    let assets: Vec<Asset> = player
        .parts()
        .iter()
        .map(|p| p.model.to_asset(&asset::Options::default()).unwrap())
        .collect();
    let sets = vec![player.clip_set(&["legs_run", "torso_attack"]).unwrap()];
    let mut bytes = Vec::new();
    gltf::write_assembly_glb(&player, &assets, &sets, &mut bytes).unwrap();

    let doc = ::gltf::Gltf::from_slice(&bytes).unwrap();
    let scene = doc.default_scene().unwrap();
    let roots: Vec<_> = scene
        .nodes()
        .map(|n| n.name().unwrap().to_string())
        .collect();
    assert_eq!(roots, ["lower"]);
    // A part's node holds its mesh nodes, then its tags.
    let children = |name: &str| -> Vec<String> {
        let node = doc.nodes().find(|n| n.name() == Some(name)).unwrap();
        node.children()
            .map(|c| match c.mesh() {
                Some(_) => "mesh".to_string(),
                None => c.name().unwrap().to_string(),
            })
            .collect()
    };
    assert_eq!(children("lower"), ["mesh", "tag_torso"]);
    assert_eq!(
        children("upper"),
        ["mesh", "tag_head", "tag_weapon", "tag_torso"]
    );
    let tag_of = |parent: &str, tag: &str| {
        let node = doc.nodes().find(|n| n.name() == Some(parent)).unwrap();
        let tag = node.children().find(|c| c.name() == Some(tag)).unwrap();
        tag.children()
            .map(|c| c.name().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(tag_of("lower", "tag_torso"), ["upper"]);
    assert_eq!(tag_of("upper", "tag_head"), ["head"]);
    assert_eq!(tag_of("upper", "tag_weapon"), ["weapon"]);
    let animation = doc.animations().next().unwrap();
    assert_eq!(animation.name(), Some("legs_run+torso_attack"));
    // Legs: their mesh's weights and tag_torso's translation and rotation; torso: its mesh's
    // weights and its three tags; the head and the weapon play nothing.
    assert_eq!(animation.channels().count(), 3 + 7);

    let clip_frames = |part: usize, set: usize| -> Vec<usize> {
        let clip = &player.parts()[part].model.clips()[sets[set].clips[part].unwrap()];
        (clip.first..clip.first + clip.count)
            .map(|f| f as usize)
            .collect()
    };
    let (legs, torso) = (clip_frames(0, 0), clip_frames(1, 0));
    assert_eq!((legs.len(), torso.len()), (2, 2));
    for key in 0..2 {
        let evaluated = evaluate(&bytes, Some((0, key)));
        let frames = [legs[key], torso[key], 0, 0];
        let mut poses = vec![Pose::default(); 4];
        for ((part, pose), &f) in player.parts().iter().zip(&mut poses).zip(&frames) {
            part.model
                .pose(f, f, 0.0, Interpolation::Nlerp, pose)
                .unwrap();
        }
        let mut placed = Vec::new();
        player.place(&poses, &mut placed).unwrap();
        let turn = skelmap_core::asset::UpAxis::Z.to_y_up();
        let mut expected = Vec::new();
        for ((part, &f), at) in player.parts().iter().zip(&frames).zip(&placed) {
            let options = asset::Options {
                frame: Some(f),
                ..asset::Options::default()
            };
            for mesh in part.model.to_asset(&options).unwrap().meshes {
                let points: Vec<Vec3> = mesh
                    .positions
                    .iter()
                    .map(|p| turn * at.transform_point3(Vec3::from(*p)))
                    .collect();
                expected.push(points);
            }
        }
        assert_eq!(evaluated.meshes.len(), expected.len());
        for (e, x) in evaluated.meshes.iter().zip(&expected) {
            for (p, q) in e.iter().zip(x) {
                assert!((*p - *q).length() < 1e-4, "key {key}: {p} against {q}");
            }
        }
    }
}

/// An asset of one triangle mesh per entry of `targets` (with that many morph targets) and
/// one clip of `frames` morph frames, frame `k` showing target `k`: what the glTF importer
/// makes of sampled morph weights, where every sampled frame becomes a target.
fn morph_asset(targets: &[usize], frames: u32) -> Asset {
    let triangle = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
    let meshes = targets
        .iter()
        .enumerate()
        .map(|(m, &count)| asset::Mesh {
            name: format!("mesh {m}"),
            positions: triangle.to_vec(),
            normals: vec![[0.0, 0.0, 1.0]; 3],
            triangles: vec![[0, 1, 2]],
            targets: (0..count)
                .map(|t| asset::MorphTarget {
                    name: format!("t{t}"),
                    positions: vec![[0.0, 0.0, t as f32]; 3],
                    normals: vec![[0.0; 3]; 3],
                })
                .collect(),
            ..asset::Mesh::default()
        })
        .collect();
    Asset {
        format: "glTF",
        up: asset::UpAxis::Y,
        front: [0.0, 0.0, 1.0],
        meshes,
        materials: Vec::new(),
        images: Vec::new(),
        skeleton: None,
        clips: vec![asset::Clip {
            name: "morph".into(),
            first: 0,
            fps: 10.0,
            looped: true,
            keys: asset::ClipKeys::Morph((0..frames).collect()),
        }],
        tags: Vec::new(),
        frame: None,
        at: None,
        given_pose: false,
        replaced_non_finite: 0,
        code_page: Default::default(),
    }
}

/// Morph weights are one per frame and target: 20,000 frames of 20,000 targets would be
/// 400 million weights (1.6 GB) for a file of a few kilobytes. They are counted against
/// `MAX_CLIP_KEYS` before anything is built, and refused by name.
#[test]
fn morph_weights_past_the_key_budget_are_refused_before_anything_is_built() {
    let asset = morph_asset(&[20_000], 20_000);
    assert_eq!(gltf::morph_keys(&asset), 400_000_000);
    let err = gltf::document(&asset, &gltf::Options::default(), None).unwrap_err();
    assert!(
        matches!(
            err,
            Error::TooLarge {
                what: "the morph animation (frames × morph targets)",
                size: 400_000_000,
                unit: "keys",
            }
        ),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "the morph animation (frames × morph targets) is too large: 400000000 keys"
    );
    // Without the animations there is nothing to refuse.
    let options = gltf::Options {
        no_animations: true,
        ..gltf::Options::default()
    };
    let (root, _) = gltf::document(&asset, &options, None).unwrap();
    assert!(root.animations.is_empty());
    // Meshes of different target counts each add theirs: 2,048 frames × (2,048 + 1) is one
    // frame's worth of weights past the budget, which 2,048 × 2,048 fills exactly.
    assert_eq!(asset::MAX_CLIP_KEYS, 2048 * 2048);
    let err = gltf::document(
        &morph_asset(&[2048, 1], 2048),
        &gltf::Options::default(),
        None,
    );
    assert!(
        matches!(
            err,
            Err(Error::TooLarge {
                size: 4_196_352,
                ..
            })
        ),
        "{err:?}"
    );
}

/// Meshes with as many targets key the same one-hot weights, and share one output accessor:
/// the budget counts each distinct count once, as the asset's own does (every frame a
/// target, whatever the number of meshes).
#[test]
fn meshes_with_as_many_targets_share_their_morph_weights() {
    let asset = morph_asset(&[3, 3, 2], 4);
    assert_eq!(gltf::morph_keys(&asset), 4 * (3 + 2));
    let bytes = glb(&asset, &gltf::Options::default());
    let doc = ::gltf::Gltf::from_slice(&bytes).unwrap();
    let blob = doc.blob.clone().unwrap();
    let animation = doc.animations().next().unwrap();
    let outputs: Vec<usize> = animation
        .channels()
        .map(|c| c.sampler().output().index())
        .collect();
    assert_eq!(outputs.len(), 3);
    assert_eq!(outputs[0], outputs[1]);
    assert_ne!(outputs[0], outputs[2]);
    // Key `f` shows target `f` alone; a frame past the targets shows none.
    for channel in animation.channels() {
        let targets = channel
            .target()
            .node()
            .mesh()
            .unwrap()
            .primitives()
            .next()
            .unwrap();
        let count = targets.morph_targets().count();
        let reader = channel.reader(|_| Some(blob.as_slice()));
        let Some(::gltf::animation::util::ReadOutputs::MorphTargetWeights(weights)) =
            reader.read_outputs()
        else {
            panic!("not morph weights");
        };
        let weights: Vec<f32> = weights.into_f32().collect();
        let expected: Vec<f32> = (0..4)
            .flat_map(|f| (0..count).map(move |k| f32::from(u8::from(k == f))))
            .collect();
        assert_eq!(weights, expected, "{count} targets");
    }
    // At the budget exactly, the shared weights are written once.
    let asset = morph_asset(&[2048, 2048], 2048);
    assert_eq!(gltf::morph_keys(&asset), asset::MAX_CLIP_KEYS);
    let (root, bin) = gltf::document(&asset, &gltf::Options::default(), None).unwrap();
    let animation = &root.animations[0];
    assert_eq!(animation.samplers[0].output, animation.samplers[1].output);
    assert!(bin.len() < 2 * 2048 * 2048 * 4);
}

/// A Quake III player's clip sets: each set keys, per part that plays a clip, its frames ×
/// (its morph targets + its attachments). 4,000 sets of the legs and torso running 64
/// frames each would be half a billion keys; they are refused before anything is built,
/// while one such set is written.
#[test]
fn clip_sets_past_the_key_budget_are_refused_before_anything_is_built() {
    use skelmap_core::model::{Assembly, OpenOptions};
    let dir = tempfile::Builder::new()
        .prefix("skelmap-export-sets-")
        .tempdir()
        .unwrap();
    synth::player(64).write_to(dir.path()).unwrap();
    let player = Assembly::open_player(dir.path(), None, &OpenOptions::default()).unwrap();
    let assets: Vec<Asset> = player
        .parts()
        .iter()
        .map(|p| p.model.to_asset(&asset::Options::default()).unwrap())
        .collect();
    let set = player.clip_set(&["legs_run", "torso_attack"]).unwrap();
    let mut per_set = 0u64;
    for ((part, asset), clip) in player.parts().iter().zip(&assets).zip(&set.clips) {
        let Some(clip) = clip.map(|c| &part.model.clips()[c]) else {
            continue;
        };
        let channels = asset.meshes[0].targets.len() + part.model.num_attachments();
        per_set += u64::from(clip.count) * channels as u64;
    }
    // Legs: 64 frames × (1,152 targets + tag_torso); torso: 64 × (832 + 3 tags).
    assert_eq!(per_set, 64 * (1152 + 1) + 64 * (832 + 3));
    let mut one = Vec::new();
    gltf::write_assembly_glb(&player, &assets, std::slice::from_ref(&set), &mut one).unwrap();
    let sets = vec![set; 4000];
    let err = gltf::assembly_document(&player, &assets, &sets, None).unwrap_err();
    let expected = 4000 * per_set;
    assert!(
        matches!(
            err,
            Error::TooLarge {
                what: "the assembly's animation (frames × morph targets and attachments)",
                size,
                unit: "keys",
            } if size == expected
        ),
        "{err:?}"
    );
}
