//! The Half-Life writer (`hl1::Builder::from_asset`, through the write dispatch): a model
//! written again moves every triangle corner as the asset made of it at every frame, with
//! its sequences, texture coordinates and textures, and stores each vertex once; a DPM of blended vertices keeps its
//! one-bone vertices and says what it cut; a clip too long for one sequence plays as
//! consecutive ones; images beyond a palette, transparent texels and what does not fit.

use skelmap::asset::{Asset, WriteOptions, Written};
use skelmap::glam::{Quat, Vec3A};
use skelmap::hl1::{self, BoneDef, Builder, SequenceDef};
use skelmap::model::Pose;
use skelmap::model::convert::{self, Posed};
use skelmap::pose::Interpolation;
use skelmap::{Format, Model, Parse};

use crate::support::frame_vertices;

fn written(asset: &Asset) -> Written {
    skelmap::model::write(Format::Hl1, asset, &WriteOptions::default()).unwrap()
}

/// The asset's triangle corners at frame `k` (or its bind pose), mesh after mesh, in the
/// order the written model's vertices come: a triangle's command is written reversed, so
/// its vertex `i` is the triangle's corner `2 − i`.
fn corners(asset: &Asset, k: Option<usize>) -> Vec<[f32; 3]> {
    let posed = asset.posed(k).unwrap();
    (asset.meshes.iter().zip(&posed))
        .flat_map(|(mesh, p)| {
            (mesh.triangles.iter()).flat_map(|t| [2, 1, 0].map(|c| p.positions[t[c] as usize]))
        })
        .collect()
}

fn close(a: [f32; 3], b: [f32; 3], size: f32) -> bool {
    (0..3).all(|c| (a[c] - b[c]).abs() <= 1e-4 * size)
}

#[test]
fn a_half_life_model_written_again_moves_as_the_original_with_its_sequences() {
    let bytes = Builder::example().write().unwrap();
    let source = Model::from_bytes(&bytes).unwrap();
    let asset = source.to_asset(&Default::default()).unwrap();
    let out = written(&asset);
    assert_eq!(out.files.len(), 1);
    // One-bone vertices, no scale, images of 16 colours, normals stored: nothing lost.
    assert_eq!(out.notes, Vec::<String>::new());
    let again = Model::from_bytes(&out.files[0].bytes).unwrap();
    assert_eq!(again.format(), Format::Hl1);
    assert!(again.diagnostics().is_empty(), "{:?}", again.diagnostics());
    assert_eq!(again.num_bones(), 2);
    // Each stored vertex and normal once per bone and value, as the source stores them,
    // though the asset repeats them at every corner of the triangle commands.
    let stored = |m: &Model<'_>| {
        let studio = m.as_hl1().unwrap().model().model(0, 0).unwrap();
        (studio.numverts.get(), studio.numnorms.get())
    };
    assert!(asset.num_vertices() > stored(&source).0 as usize);
    assert_eq!(stored(&again), stored(&source));
    // The attachment, a leaf joint of the asset, is an attachment of its bone again.
    assert_eq!((again.num_tags(), again.tag_bone(0)), (1, Some(1)));
    assert_eq!(again.tag_offset(0), source.tag_offset(0));
    let clips = |m: &Model<'_>| {
        (m.clips().iter())
            .map(|c| (c.name.clone(), c.first, c.count, c.fps, c.looped))
            .collect::<Vec<_>>()
    };
    assert_eq!(clips(&again), clips(&source));
    for k in 0..source.num_frames() {
        let (want, got) = (corners(&asset, Some(k)), frame_vertices(&again, k));
        assert_eq!(want.len(), got.len());
        for (v, (w, g)) in want.iter().zip(&got).enumerate() {
            assert!(
                close(*g, *w, 20.0),
                "frame {k}, vertex {v}: {g:?} against {w:?}"
            );
        }
    }
    // The textures come back texel for texel, the coordinates as they were (texels of
    // the same sizes).
    let back = again.to_asset(&Default::default()).unwrap();
    assert_eq!(back.images.len(), asset.images.len());
    for (a, b) in back.images.iter().zip(&asset.images) {
        assert_eq!((a.width, a.height, &a.rgba), (b.width, b.height, &b.rgba));
    }
    let uvs = |a: &Asset| -> Vec<[f32; 2]> {
        (a.meshes.iter())
            .flat_map(|m| {
                let uvs = m.uvs.clone().unwrap();
                (m.triangles.iter()).flat_map(move |t| t.map(|c| uvs[c as usize]))
            })
            .collect()
    };
    assert_eq!(uvs(&back), uvs(&asset));
    // Over every frame, as `convert` measures it.
    // Over every frame, as `convert` measures it: the channels stored again in steps of
    // their largest move over 32,767 (the source's own steps were coarser).
    let error = convert::skinning_error(Posed::Model(&source), Posed::Model(&again), 0);
    assert!(error.max < 5e-5, "{error}");
}

#[test]
fn a_dpm_of_blended_vertices_keeps_its_one_bone_vertices_and_says_what_it_cut() {
    let bytes = skelmap::synth::tube(&Default::default()).write().unwrap();
    let source = Model::from_bytes(&bytes).unwrap();
    let asset = convert::asset_of(&source).unwrap();
    let blended = crate::support::blended_vertices(&asset);
    assert!(blended > 0);
    let out = written(&asset);
    let lines = [
        format!("{blended} vertices had more than one influence"),
        "materials have no image; a 256×256 texture".to_string(),
    ];
    for line in &lines {
        assert!(
            out.notes.iter().any(|n| n.contains(line.as_str())),
            "{:?}",
            out.notes
        );
    }
    let hl1 = Model::from_bytes(&out.files[0].bytes).unwrap();
    assert_eq!(
        (hl1.num_frames(), hl1.clips().len()),
        (source.num_frames(), asset.clips.len())
    );
    // A corner whose vertex has one influence moves exactly as the source's.
    let single: Vec<bool> = (asset.meshes.iter())
        .flat_map(|m| {
            (m.triangles.iter())
                .flat_map(|t| [2, 1, 0].map(|c| m.influences.of(t[c] as usize).len() == 1))
        })
        .collect();
    assert!(single.iter().any(|&s| s));
    for k in 0..source.num_frames() {
        let (want, got) = (corners(&asset, Some(k)), frame_vertices(&hl1, k));
        assert_eq!(want.len(), got.len());
        for v in (0..got.len()).filter(|&v| single[v]) {
            assert!(
                close(got[v], want[v], 10.0),
                "frame {k}, vertex {v}: {:?} against {:?}",
                got[v],
                want[v]
            );
        }
    }
}

/// `bones` bones in a chain and one sequence of `frames` frames in which every channel of
/// every bone changes every frame: 12 bytes of record and about `12 · frames` of values a
/// bone.
fn restless(bones: usize, frames: usize) -> Builder {
    let mut b = Builder::example();
    b.bones = (0..bones)
        .map(|i| BoneDef {
            name: format!("b{i}"),
            parent: i as i32 - 1,
            value: [1.0, 0.0, 0.0, 0.0, 0.0, 0.1],
            scale: [0.01; 6],
        })
        .collect();
    b.sequences = vec![SequenceDef {
        label: "restless".into(),
        fps: 20.0,
        looping: true,
        group: 0,
        frames: (0..frames)
            .map(|f| {
                (0..bones)
                    .map(|i| std::array::from_fn(|c| ((f * 7 + i * 3 + c) % 400) as i16 - 200))
                    .collect()
            })
            .collect(),
    }];
    b
}

/// A DPM tube of 120 bones over 300 frames: clips whose animation values lie past the 65,535
/// bytes a Half-Life sequence's offsets reach.
fn long_clip_tube() -> Vec<u8> {
    let params = skelmap::synth::TubeParams {
        bones: 120,
        frames: 300,
        rings_per_bone: 1,
        sides: 3,
        ..Default::default()
    };
    skelmap::synth::tube(&params).write().unwrap()
}

/// A clip split into sequences whose name fills the 31 bytes a label holds, in GBK with
/// characters GBK lacks (four bytes each in GB18030, three in UTF-8): each sequence's label is
/// the name cut to leave room for its number in the bytes the file stores. Cut by its UTF-8
/// length before, the labels were 33 bytes and the writer failed.
#[test]
fn split_sequences_are_labelled_within_the_field_in_the_names_code_page() {
    use skelmap::name::CodePage;
    let bytes = long_clip_tube();
    let source = Model::from_bytes(&bytes).unwrap();
    let mut asset = convert::asset_of(&source).unwrap();
    asset.code_page = CodePage::Gbk;
    let head = "\u{3400}".repeat(7);
    for (k, clip) in asset.clips.iter_mut().enumerate() {
        clip.name = format!("{head}a{k:02}");
    }
    assert_eq!(asset.name_bytes(&asset.clips[0].name).len(), 31);
    let out = written(&asset);
    let again = Model::from_bytes(&out.files[0].bytes).unwrap();
    // A clip that fits one sequence keeps its name; the parts of one that does not are the
    // name cut to 29 bytes (seven characters of four and the `a`) and `_1`, `_2` … (28 bytes
    // before `_10`).
    let mut parts = 0;
    let mut sequences = again.clips().iter().peekable();
    for clip in &asset.clips {
        if sequences.next_if(|s| s.name == clip.name).is_some() {
            continue;
        }
        let mut i = 0;
        let label = |i: usize| match i + 1 {
            n @ ..10 => format!("{head}a_{n}"),
            n => format!("{head}_{n}"),
        };
        while let Some(s) = sequences.next_if(|s| s.name == label(i)) {
            assert!(asset.name_bytes(&s.name).len() <= 31, "{}", s.name);
            i += 1;
        }
        assert!(i > 1, "{}", clip.name);
        parts += i;
    }
    assert!(sequences.next().is_none());
    assert!(parts > 0);
}

#[test]
fn a_clip_too_long_for_one_sequence_plays_as_consecutive_ones_that_fit() {
    // 64 bones of 120 frames: about 93 KB of values, past the 65,535 bytes an offset reaches.
    assert!(matches!(
        restless(64, 120).write(),
        Err(skelmap::Error::Write {
            what: "mstudioanim_t.offset",
            max: 65_535,
            ..
        })
    ));
    let bytes = long_clip_tube();
    let source = Model::from_bytes(&bytes).unwrap();
    let asset = convert::asset_of(&source).unwrap();
    let out = written(&asset);
    let again = Model::from_bytes(&out.files[0].bytes).unwrap();
    assert_eq!(again.num_frames(), source.num_frames());
    let split: Vec<&String> = out
        .notes
        .iter()
        .filter(|n| n.contains("sequences, '"))
        .collect();
    assert!(!split.is_empty(), "{:?}", out.notes);
    // Each clip is its sequences `name_1` … in turn, their frames adding up to the clip's.
    let mut sequences = again.clips().iter().peekable();
    for clip in &asset.clips {
        let mut frames = 0;
        while let Some(s) = sequences
            .next_if(|s| s.name == clip.name || s.name.starts_with(&format!("{}_", clip.name)))
        {
            frames += s.count;
        }
        assert_eq!(frames as usize, clip.len(), "{}", clip.name);
    }
    assert!(sequences.next().is_none());
    // Every bone as the source poses it relative to its parent, at every frame: within a
    // step of each channel (a turn of at most half a circle over 32,767 steps; translations
    // that do not move are stored exactly). Down a chain of 120 bones the steps add up.
    each_frame(&source, &again, |k, a, b| {
        for (bone, (x, y)) in a.iter().zip(b).enumerate() {
            // A quaternion's difference is about half the angle between the rotations.
            let apart = (x.0 - y.0).length().min((x.0 + y.0).length());
            let turned = apart <= std::f32::consts::PI / 32_767.0;
            let placed = x.1.abs_diff_eq(y.1, 1e-4);
            assert!(
                turned && placed,
                "frame {k}, bone {bone}: {x:?} against {y:?}"
            );
        }
    });
}

/// `f(k, a, b)` for every frame `k` of `source`: the bones' parent-relative poses of
/// `source` and of `again` at that frame.
fn each_frame(
    source: &Model<'_>,
    again: &Model<'_>,
    mut f: impl FnMut(usize, &[(Quat, Vec3A)], &[(Quat, Vec3A)]),
) {
    let (mut a, mut b) = (Pose::default(), Pose::default());
    for k in 0..source.num_frames() {
        source
            .pose(k, k, 0.0, Interpolation::Nlerp, &mut a)
            .unwrap();
        again.pose(k, k, 0.0, Interpolation::Nlerp, &mut b).unwrap();
        f(k, &a.local().bones, &b.local().bones);
    }
}

/// A bone turned a quarter circle in pitch, as 3ds Max's Biped turns its pelvis, keeps its
/// rotation at every frame: near a pitch of ±90° roll and yaw are found in double precision,
/// where single precision lost up to about 10⁻² radians (0.67 of a weapon model's size on its
/// magazine, thrown 1,500 units away in a reload).
#[test]
fn a_bone_turned_a_quarter_circle_in_pitch_keeps_its_rotation() {
    let mut b = Builder::example();
    let half_pi = std::f32::consts::FRAC_PI_2;
    b.bones[0].value = [0.0, 0.0, 0.0, -half_pi, -half_pi, 0.3];
    b.bones[0].scale = [0.01, 0.01, 0.01, 2e-5, 2e-5, 2e-5];
    let bones = b.bones.len();
    b.sequences = vec![SequenceDef {
        label: "sway".into(),
        fps: 20.0,
        looping: true,
        group: 0,
        // Roll, pitch and yaw sway by up to 0.04 radians about the quarter turn.
        frames: (0..40)
            .map(|f| {
                let sway = |k: usize| ((f * 37 + k * 11) % 4001) as i16 - 2000;
                (0..bones)
                    .map(|i| match i {
                        0 => [0, 0, 0, sway(1), sway(2), sway(3)],
                        _ => [0; 6],
                    })
                    .collect()
            })
            .collect(),
    }];
    let bytes = b.write().unwrap();
    let source = Model::from_bytes(&bytes).unwrap();
    let asset = source.to_asset(&Default::default()).unwrap();
    let out = written(&asset);
    let again = Model::from_bytes(&out.files[0].bytes).unwrap();
    each_frame(&source, &again, |k, a, b| {
        let (x, y) = (a[0].0, b[0].0);
        let angle = x.angle_between(y);
        assert!(
            angle < 1e-5,
            "frame {k}: {x:?} against {y:?}, {angle} apart"
        );
    });
    let error = convert::skinning_error(Posed::Model(&source), Posed::Model(&again), 0);
    assert!(error.max < 1e-5, "{error}");
}

/// An asset of one square whose material has `image`.
fn square(image: skelmap::asset::Image) -> Asset {
    let bytes = skelmap::synth::tube(&Default::default()).write().unwrap();
    let mut asset = convert::asset_of(&Model::from_bytes(&bytes).unwrap()).unwrap();
    asset.images = vec![image];
    asset.materials = vec![skelmap::asset::Material {
        image: Some(0),
        ..asset.materials.first().cloned().unwrap_or_default()
    }];
    asset.meshes.truncate(1);
    asset.meshes[0].material = Some(0);
    asset
}

#[test]
fn images_keep_their_colours_up_to_a_palette_and_transparent_texels_become_index_255() {
    let texture = |asset: &Asset| {
        let out = written(asset);
        let hl1 = hl1::Hl1::parse(&out.files[0].bytes).unwrap();
        let flags = hl1.textures()[0].flags.get();
        let model = Model::from_bytes(&out.files[0].bytes).unwrap();
        let skin = model.skins()[0];
        let (_, _, pixels) = skin.level(0).unwrap();
        (out.notes, flags, *skin.palette().unwrap(), pixels.to_vec())
    };
    // 300 greys, the first texel transparent: more than a palette holds.
    let (w, h) = (20u32, 15u32);
    let rgba: Vec<u8> = (0..w * h)
        .flat_map(|i| {
            let v = (i * 255 / 299) as u8;
            [v, v / 2, 255 - v, if i == 0 { 0 } else { 255 }]
        })
        .collect();
    let image = skelmap::asset::Image {
        width: w,
        height: h,
        rgba,
        jpeg: None,
    };
    let (notes, flags, palette, pixels) = texture(&square(image.clone()));
    assert!(
        notes
            .iter()
            .any(|n| n.starts_with("1 images have more colours")),
        "{notes:?}"
    );
    assert_eq!(flags, hl1::raw::STUDIO_NF_MASKED as i32);
    assert_eq!((pixels[0], palette[255]), (255, [0, 0, 255]));
    // Texel 299 is (255, 127, 0): red 7, green 3, blue 0 of the fixed palette.
    let red7_green3_blue0 = (7 << 5) | (3 << 2);
    assert_eq!(pixels[299], red7_green3_blue0);
    assert_eq!(palette[usize::from(red7_green3_blue0)], [255, 109, 0]);
    // The same texels in 4 colours, opaque: each kept exactly.
    let rgba: Vec<u8> = (0..w * h)
        .flat_map(|i| [(i % 4) as u8 * 60, 1, 2, 255])
        .collect();
    let (notes, flags, palette, pixels) = texture(&square(skelmap::asset::Image { rgba, ..image }));
    assert!(notes.iter().all(|n| !n.contains("colours")), "{notes:?}");
    assert_eq!(flags, 0);
    assert_eq!(
        &palette[..4],
        &[[0, 1, 2], [60, 1, 2], [120, 1, 2], [180, 1, 2]]
    );
    assert_eq!(&pixels[..6], &[0, 1, 2, 3, 0, 1]);
}

#[test]
fn what_half_life_cannot_hold_is_refused_before_anything_is_written() {
    let bytes = skelmap::synth::tube(&Default::default()).write().unwrap();
    let asset = convert::asset_of(&Model::from_bytes(&bytes).unwrap()).unwrap();
    let refused = |asset: &Asset| Builder::from_asset(asset).unwrap_err().to_string();
    // 129 bones.
    let mut many = asset.clone();
    let skeleton = many.skeleton.as_mut().unwrap();
    let last = skeleton.joints.last().unwrap().clone();
    while skeleton.joints.len() < 129 {
        skeleton.joints.push(last.clone());
    }
    assert_eq!(
        refused(&many),
        "Half-Life MDL cannot hold 129 bones: at most 128 bones; merge or remove bones in the \
         source model"
    );
    // A parent after its bone.
    let mut late = asset.clone();
    late.skeleton.as_mut().unwrap().joints[0].parent = Some(2);
    assert!(
        refused(&late).contains("after its parent"),
        "{}",
        refused(&late)
    );
    // A bone name of 32 bytes.
    let mut long = asset;
    long.skeleton.as_mut().unwrap().joints[1].name = "b".repeat(32);
    assert!(
        refused(&long).contains("at most 31 bytes"),
        "{}",
        refused(&long)
    );
}

#[test]
fn every_corpus_model_converts_or_is_refused_in_words() {
    use crate::support::{corpus_engines_dir, corpus_files, corpus_next_files};
    let mut files = Vec::new();
    for sub in ["dpm", "mdl", "ms3d"] {
        files.extend(corpus_files(sub));
    }
    files.extend(corpus_next_files("iqm"));
    files.extend(corpus_next_files("mdl7"));
    for sub in ["hl1", "md5"] {
        if let Some(dir) = corpus_engines_dir(sub) {
            files.extend(std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()));
        }
    }
    for path in files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let Ok(source) = Model::open(&path) else {
            continue; // a companion alone
        };
        // The first clips, at most 48 frames, to keep the test quick.
        let mut asset = convert::asset_of(&source).unwrap();
        let mut frames = 0;
        asset.retain_clips(|c| {
            frames += c.len();
            frames - c.len() < 48
        });
        match skelmap::model::write(Format::Hl1, &asset, &WriteOptions::default()) {
            Ok(out) => {
                let again = Model::from_bytes(&out.files[0].bytes).unwrap();
                assert_eq!(again.num_frames(), asset.num_frames().max(1), "{name}");
                // Attachments that sit still on their bones are attachments, not bones.
                let (bones, points) = asset.split_bone_tags(false);
                assert_eq!(
                    again.num_bones(),
                    bones.skeleton_or_root().joints.len(),
                    "{name}"
                );
                if source.format() == Format::Hl1 {
                    assert_eq!(points.len(), source.num_tags(), "{name}");
                    assert_eq!(again.num_tags(), source.num_tags(), "{name}");
                }
            }
            // Only what the format cannot hold (vertex animation: GameStudio's MDLs).
            Err(e) => assert!(e.to_string().contains("cannot hold"), "{name}: {e}"),
        }
    }
}

/// The stored vertices and normals of each body part's first model, and its triangles.
fn parts(bytes: &[u8]) -> Vec<(String, usize, usize, usize)> {
    let model = Model::from_bytes(bytes).unwrap();
    let hl1 = model.as_hl1().unwrap().model();
    (0..hl1.bodyparts().len())
        .map(|p| {
            let part = &hl1.bodyparts()[p];
            let studio = hl1.model(p, 0).unwrap();
            let triangles = (hl1.model_meshes(studio).iter())
                .map(|m| m.numtris.get() as usize)
                .sum();
            (
                skelmap::name::lossy(skelmap::name::trim_nul(&part.name)).into_owned(),
                studio.numverts.get() as usize,
                studio.numnorms.get() as usize,
                triangles,
            )
        })
        .collect()
}

/// A model of more vertices than the GoldSrc renderer draws of one model (2,048,
/// `MAXSTUDIOVERTS`) is written as several body parts of one model each, which body 0 shows
/// together, every corner where one model would put it: two meshes that fit apart each
/// whole in a part of its own; one mesh of more, split between triangles.
#[test]
fn more_vertices_than_the_engine_draws_of_a_model_become_more_body_parts() {
    let tube = |rings_per_bone| {
        let params = skelmap::synth::TubeParams {
            rings_per_bone,
            ..Default::default()
        };
        let bytes = skelmap::synth::tube(&params).write().unwrap();
        convert::asset_of(&Model::from_bytes(&bytes).unwrap()).unwrap()
    };
    // 4 · 37 + 1 rings of 8 vertices: 1,192 vertices a mesh, 2,384 in two.
    let mut two = tube(37);
    assert_eq!((two.meshes.len(), two.num_vertices()), (1, 1192));
    let mut second = two.meshes[0].clone();
    for p in &mut second.positions {
        p[0] += 100.0;
    }
    two.meshes.push(second);
    // 4 · 80 + 1 rings: 2,568 vertices in one mesh. Its first 255 bands of 16 triangles
    // use 256 rings (2,048 vertices); the other 65 bands the last of those rings again and
    // 65 more (528).
    let big = tube(80);
    assert_eq!(big.num_vertices(), 2568);
    for (asset, want) in [
        (
            &two,
            vec![("body", 1192, 2 * 1184), ("body2", 1192, 2 * 1184)],
        ),
        (&big, vec![("body", 2048, 4080), ("body2", 528, 1040)]),
    ] {
        let out = written(asset);
        let got = parts(&out.files[0].bytes);
        let shape: Vec<(&str, usize, usize)> = (got.iter())
            .map(|(n, v, _, t)| (n.as_str(), *v, *t))
            .collect();
        assert_eq!(shape, want);
        assert!(got.iter().all(|&(_, _, normals, _)| normals <= 2048));
        assert!(
            out.notes.iter().any(|n| n.starts_with(
                "the meshes are written as 2 body parts of one model each, each within the \
                 2048 vertices"
            )),
            "{:?}",
            out.notes
        );
        assert!(!out.notes.iter().any(|n| n.contains("in one model")));
        // assimp 5.2.5 draws every part: every triangle.
        if let Some(assimp) = crate::support::oracle::assimp() {
            let dir = tempfile::Builder::new()
                .prefix("skelmap-hl1-parts-")
                .tempdir()
                .unwrap();
            let (mdl, obj) = (dir.path().join("parts.mdl"), dir.path().join("parts.obj"));
            std::fs::write(&mdl, &out.files[0].bytes).unwrap();
            let run = (std::process::Command::new(&assimp).arg("export"))
                .args([&mdl, &obj])
                .output()
                .unwrap();
            assert!(run.status.success(), "assimp: {run:?}");
            let text = std::fs::read_to_string(&obj).unwrap();
            let faces = text.lines().filter(|l| l.starts_with("f ")).count();
            let triangles: usize = asset.meshes.iter().map(|m| m.triangles.len()).sum();
            assert_eq!(faces, triangles);
        }
        // Every corner of a one-influence vertex, at every frame, where the asset has it.
        let again = Model::from_bytes(&out.files[0].bytes).unwrap();
        let single: Vec<bool> = (asset.meshes.iter())
            .flat_map(|m| {
                (m.triangles.iter())
                    .flat_map(|t| [2, 1, 0].map(|c| m.influences.of(t[c] as usize).len() == 1))
            })
            .collect();
        for k in [0, again.num_frames() - 1] {
            let (want, got) = (corners(asset, Some(k)), frame_vertices(&again, k));
            assert_eq!(want.len(), got.len());
            for v in (0..got.len()).filter(|&v| single[v]) {
                assert!(close(got[v], want[v], 100.0), "frame {k}, corner {v}");
            }
        }
    }
    let mut copies = tube(37);
    copies.meshes = vec![copies.meshes[0].clone(); 30];
    assert_eq!(copies.num_vertices(), 35_760);
    let out = written(&copies);
    let got = parts(&out.files[0].bytes);
    assert_eq!(got, [("body".to_string(), 1192, 80, 30 * 2368)]);
    assert!(!out.notes.iter().any(|n| n.contains("body parts")));
}

/// Half-Life models written from the corpus open in assimp 5.2.5 with our bind-pose
/// vertices: the same points (assimp welds equal corners), in its `+Y`-up axes.
#[test]
fn written_models_open_in_assimp_with_the_same_bind_pose() {
    let Some(assimp) = crate::support::oracle::assimp() else {
        return;
    };
    let dir = tempfile::Builder::new()
        .prefix("skelmap-hl1-write-")
        .tempdir()
        .unwrap();
    let dir = dir.path();
    let files = crate::support::skeletal_corpus_files();
    let mut checked = 0;
    for path in files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let source = Model::open(&path).unwrap();
        if source.num_meshes() == 0 {
            continue;
        }
        // The bind pose is what assimp shows: one frame is enough.
        let mut asset = convert::asset_of(&source).unwrap();
        asset.retain_clips(|_| false);
        let out = written(&asset);
        let (mdl, obj) = (
            dir.join(format!("{name}.mdl")),
            dir.join(format!("{name}.obj")),
        );
        std::fs::write(&mdl, &out.files[0].bytes).unwrap();
        let run = std::process::Command::new(&assimp)
            .arg("export")
            .args([&mdl, &obj])
            .output()
            .unwrap();
        assert!(run.status.success(), "{name}: assimp: {run:?}");
        // assimp's `(x, y, z)` is skelmap's `(−y, z, −x)`.
        let theirs: Vec<[f32; 3]> = crate::support::oracle::obj_points(&String::from_utf8_lossy(
            &std::fs::read(&obj).unwrap(),
        ))
        .into_iter()
        .map(|[x, y, z]| [-z, -x, y])
        .collect();
        let model = Model::from_bytes(&out.files[0].bytes).unwrap();
        let mut pose = Pose::default();
        model.pose_bind(&mut pose);
        let n = model.mesh(0).unwrap().num_vertices();
        let (mut ours, mut normals) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
        model.deform(0, &pose, &mut ours, &mut normals).unwrap();
        let extent = ours.iter().flatten().fold(0.0f32, |m, v| m.max(v.abs()));
        let near = |p: &[f32; 3], set: &[[f32; 3]]| {
            set.iter()
                .any(|q| (0..3).all(|c| (p[c] - q[c]).abs() <= 1e-5 * extent))
        };
        assert!(
            ours.iter().all(|p| near(p, &theirs)),
            "{name}: a vertex assimp lacks"
        );
        assert!(
            theirs.iter().all(|p| near(p, &ours)),
            "{name}: an assimp vertex we lack"
        );
        checked += 1;
    }
    eprintln!("{checked} written Half-Life models: assimp's bind pose equals ours");
}

/// The Half-Life SDK's client exits on a model of more than four attachments: the writer
/// keeps the first four and names the others in a note.
#[test]
fn attachments_past_four_are_left_out_and_named() {
    let mut builder = Builder::example();
    let first = builder.attachments[0].clone();
    builder.attachments = (0..6)
        .map(|i| hl1::AttachmentDef {
            name: format!("point_{i}"),
            org: [i as f32, 0.0, 0.0],
            ..first.clone()
        })
        .collect();
    let bytes = builder.write().unwrap();
    let asset = convert::asset_of(&Model::from_bytes(&bytes).unwrap()).unwrap();
    let out = written(&asset);
    let again = hl1::Hl1::parse(&out.files[0].bytes).unwrap();
    assert_eq!(again.header().numattachments.get(), 4);
    let model = Model::from_bytes(&out.files[0].bytes).unwrap();
    let names: Vec<&[u8]> = model.attachments().map(|a| a.name).collect();
    assert_eq!(names, [&b"point_0"[..], b"point_1", b"point_2", b"point_3"]);
    assert!(
        out.notes.iter().any(|n| n.starts_with(
            "2 attachments past the 4 the Half-Life SDK's client places (it exits on a model \
             with more) left out: 'point_4', 'point_5'"
        )),
        "{:?}",
        out.notes
    );
}
