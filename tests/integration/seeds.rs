//! The fuzz seeds in fuzz/seeds/<target>/ are written by the project's writers and replayed
//! here on stable, so every seed and every committed crash regression runs on each `cargo test`.
//!
//! `SKELMAP_BLESS=1 cargo test --test integration seeds` rewrites the generated seeds.

use skelmap::Parse;
use std::path::{Path, PathBuf};

use skelmap::dpm::{Dpm, MeshDef};
use skelmap::synth::{TubeParams, tube};

use crate::support::{gamestudio, ms3d, quake, slmdl};

fn seeds_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds")
}

/// The generated seeds: (target, file name, bytes).
fn generated() -> Vec<(&'static str, &'static str, Vec<u8>)> {
    let small = tube(&TubeParams::default()).write().unwrap();
    let tiny = tube(&TubeParams {
        bones: 1,
        rings_per_bone: 1,
        sides: 3,
        frames: 1,
        ..TubeParams::default()
    })
    .write()
    .unwrap();
    let long = tube(&TubeParams {
        bones: 12,
        rings_per_bone: 1,
        sides: 4,
        frames: 3,
        ..TubeParams::default()
    })
    .write()
    .unwrap();
    let mut two = tube(&TubeParams {
        bones: 3,
        rings_per_bone: 1,
        sides: 5,
        frames: 2,
        ..TubeParams::default()
    });
    let second = MeshDef {
        shader: b"second".to_vec(),
        ..two.meshes[0].clone()
    };
    two.meshes.push(second);
    let two = two.write().unwrap();
    let convert = |dpm: &[u8]| {
        let c = skelmap::skm::convert::from_dpm(
            &Dpm::parse(dpm).unwrap(),
            &mut skelmap::Diagnostics::new(),
        );
        (c.skm.write().unwrap(), c.skp.write().unwrap())
    };
    let (skm_small, skp_small) = convert(&small);
    let (skm_two, skp_two) = convert(&two);
    let pair = |skm: &[u8], skp: &[u8]| {
        let mut v = (skm.len() as u16).to_le_bytes().to_vec();
        v.extend_from_slice(skm);
        v.extend_from_slice(skp);
        v
    };
    let mut out = vec![
        ("skm", "tube.skm", skm_small.clone()),
        ("skm", "two_meshes.skm", skm_two.clone()),
        ("skp", "tube.skp", skp_small.clone()),
        ("skp", "two_meshes.skp", skp_two.clone()),
        ("skm_pair", "tube.pair", pair(&skm_small, &skp_small)),
        ("skm_pair", "two_meshes.pair", pair(&skm_two, &skp_two)),
        ("probe_any", "tube.skm", skm_small.clone()),
        ("probe_any", "tube.skp", skp_small.clone()),
    ];
    let arm = ms3d::arm_with_tail().write().unwrap();
    let plain = ms3d::arm().write().unwrap();
    out.push(("ms3d", "arm.ms3d", plain.clone()));
    out.push(("ms3d", "arm_tail.ms3d", arm.clone()));
    out.push(("probe_any", "arm_tail.ms3d", arm));
    out.push(("exercise_dpm", "tube.dpm", small.clone()));
    out.push(("exercise_dpm", "two_meshes.dpm", two.clone()));
    out.push(("exercise_skm", "tube.pair", pair(&skm_small, &skp_small)));
    // `structured` inputs are arbitrary-encoded specs: one per format and a few corruptions.
    for (i, spec) in [
        [0u8, 3, 2, 2, 0, 0, 0, 0, 0, 0],
        [1, 2, 1, 1, 7, 0, 0xFF, 0xFF, 0xFF, 0xFF],
        [2, 4, 3, 3, 1, 0, 0, 0, 0, 0],
        [3, 1, 5, 2, 3, 0, 0xA2, 0, 0, 0],
        [4, 5, 6, 1, 2, 0, 0, 0, 0x80, 0x7F],
    ]
    .iter()
    .enumerate()
    {
        out.push((
            "structured",
            ["dpm.spec", "skm.spec", "skp.spec", "mdl.spec", "ms3d.spec"][i],
            spec.to_vec(),
        ));
    }
    out.push(("mdl", "quad.mdl", gamestudio::quad().write()));
    out.push(("hmp", "field.hmp", gamestudio::field().write()));
    let quake_triangle = skelmap::quake::Builder::triangle().write();
    let mdl2_triangle = skelmap::quake::Builder::mdl2_triangle().write();
    out.push(("quake", "triangle.mdl", quake_triangle.clone()));
    out.push(("quake", "grouped.mdl", quake::grouped().write()));
    out.push(("mdl2", "triangle.mdl", mdl2_triangle.clone()));
    out.push(("probe_any", "quake.mdl", quake_triangle));
    out.push(("probe_any", "mdl2.mdl", mdl2_triangle));
    out.push(("probe_any", "quad.mdl", gamestudio::quad().write()));
    let iqm_demo = crate::support::iqm::demo();
    let iqm_anim = crate::support::iqm::animation_only();
    let iqm_extended = skelmap::iqm::Builder {
        extensions: vec![(b"FTE_MESH".to_vec(), vec![0; 56])],
        adjacency: vec![[u32::MAX; 3]; 4],
        colors: vec![[255, 128, 0, 255]; 8],
        tangents: vec![[1.0, 0.0, 0.0, 1.0]; 8],
        comment: b"skelmap".to_vec(),
        misalign: 1,
        ..crate::support::iqm::demo()
    };
    out.push(("iqm", "demo.iqm", iqm_demo.write().unwrap()));
    out.push(("iqm", "animation.iqm", iqm_anim.write().unwrap()));
    out.push(("iqm", "extended.iqm", iqm_extended.write().unwrap()));
    out.push(("probe_any", "demo.iqm", iqm_demo.write().unwrap()));
    out.extend(iqm_pair_seeds());
    // Embedded DDS skins also for every target that reads any model (the C ABI decodes them).
    out.extend(md3_seeds());
    out.extend(md2_seeds());
    out.extend(mdc_seeds());
    out.extend(md5_seeds());
    out.extend(zym_seeds());
    out.extend(mdr_seeds());
    out.extend(hl1_seeds());
    out.extend(mdm_seeds());
    out.extend(psk_seeds());
    let mdl7 = mdl7_seeds();
    let dds = mdl7.iter().filter(|(name, _)| *name == "dds.mdl");
    out.extend(dds.map(|(_, bytes)| ("probe_any", "mdl7_dds.mdl", bytes.clone())));
    out.extend(mdl7.into_iter().map(|(name, bytes)| ("mdl7", name, bytes)));
    out.push((
        "probe_any",
        "mdl7.mdl",
        skelmap::mdl7::Builder::demo().write(),
    ));
    out.push((
        "probe_any",
        "mdl7_mixed.mdl",
        skelmap::mdl7::Builder::mixed().write(),
    ));
    out.push(("slmdl", "tri.mdl", slmdl::tri().write()));
    out.push(("slanim", "walk.anim", slmdl::walk().write()));
    out.push(("probe_any", "tri.mdl", slmdl::tri().write()));
    for target in ["dpm", "probe_any"] {
        out.push((target, "tube.dpm", small.clone()));
        out.push((target, "tiny.dpm", tiny.clone()));
        out.push((target, "chain12.dpm", long.clone()));
        out.push((target, "two_meshes.dpm", two.clone()));
    }
    // The C ABI, export and write targets read any model: every probe_any seed, and the
    // terrain.
    let any: Vec<_> = out
        .iter()
        .filter(|(target, ..)| *target == "probe_any")
        .flat_map(|(_, name, bytes)| {
            ["capi", "export", "write"].map(|target| (target, *name, bytes.clone()))
        })
        .collect();
    out.extend(any);
    for target in ["capi", "export", "write"] {
        out.push((target, "field.hmp", gamestudio::field().write()));
    }
    out
}

/// `iqm_pair` inputs (a `u16` model length, the model IQM, an animation-only IQM): a small
/// `synth::iqm_character` with its animation, whose joints are listed in another order (so
/// the sample places each block's poses), and the demo with the animation-only test file.
fn iqm_pair_seeds() -> Vec<(&'static str, &'static str, Vec<u8>)> {
    let pair = |model: &[u8], animation: &[u8]| {
        let mut v = u16::try_from(model.len()).unwrap().to_le_bytes().to_vec();
        v.extend_from_slice(model);
        v.extend_from_slice(animation);
        v
    };
    let character = skelmap::synth::iqm_character(&skelmap::synth::CharacterParams {
        sides: 3,
        frames: 3,
        scaled_joints: 2,
    });
    let (model, animation) = (
        character.model.write().unwrap(),
        character.animation.write().unwrap(),
    );
    let demo = crate::support::iqm::demo().write().unwrap();
    let animation_only = crate::support::iqm::animation_only().write().unwrap();
    vec![
        ("iqm_pair", "character.pair", pair(&model, &animation)),
        ("iqm_pair", "demo.pair", pair(&demo, &animation_only)),
    ]
}

/// The `md3` seeds: the builder's triangle, a model of two surfaces and three frames with
/// tags, and a model of tags only; the triangle named `.mdl` for `probe_any`.
fn md3_seeds() -> Vec<(&'static str, &'static str, Vec<u8>)> {
    let triangle = skelmap::md3::Builder::triangle().write();
    vec![
        ("md3", "triangle.md3", triangle.clone()),
        ("md3", "animated.md3", crate::md3::animated().write()),
        ("md3", "tags_only.md3", crate::md3::tags_only().write()),
        ("probe_any", "md3_named.mdl", triangle),
    ]
}

/// The `mdr` seeds: the builder's triangle with plain and with compressed frames, a model of
/// two levels of detail, and the triangle for `probe_any`.
fn mdr_seeds() -> Vec<(&'static str, &'static str, Vec<u8>)> {
    let triangle = skelmap::mdr::Builder::triangle().write();
    vec![
        ("mdr", "triangle.mdr", triangle.clone()),
        ("mdr", "compressed.mdr", crate::mdr::compressed().write()),
        ("mdr", "lods.mdr", crate::mdr::lods().write()),
        ("probe_any", "triangle.mdr", triangle),
    ]
}

/// The `hl1` seeds: the builder's example (a strip, a fan, multi-run channels, two
/// textures), its texture file, the default pose past `f32` (`hl1::bind_overflow`), and the
/// example for `probe_any`.
fn hl1_seeds() -> Vec<(&'static str, &'static str, Vec<u8>)> {
    let b = skelmap::hl1::Builder::example();
    let example = b.write().unwrap();
    vec![
        ("hl1", "example.mdl", example.clone()),
        ("hl1", "textures.mdl", b.write_textures().unwrap()),
        (
            "hl1",
            "regress-bind-overflow.mdl",
            crate::hl1::bind_overflow(),
        ),
        ("probe_any", "hl1_example.mdl", example),
    ]
}

/// The `mdm` and `mdx` seeds: the builder's pair (as the `mdm` target splits its input: a
/// `u16` MDM length, the MDM, the MDX) and the pair with a third bone and tag; the MDX alone
/// for `mdx` and `probe_any`.
fn mdm_seeds() -> Vec<(&'static str, &'static str, Vec<u8>)> {
    let pair = |b: &skelmap::mdm::Builder| {
        let (mdm, mdx) = b.write();
        let mut out = (mdm.len() as u16).to_le_bytes().to_vec();
        out.extend_from_slice(&mdm);
        out.extend_from_slice(&mdx);
        out
    };
    let triangle = skelmap::mdm::Builder::triangle();
    let three = crate::mdm::three_bones();
    vec![
        ("mdm", "triangle.pair", pair(&triangle)),
        ("mdm", "three_bones.pair", pair(&three)),
        (
            "mdm",
            "et_character.txt",
            b"characterDef { mesh \"m/body.mdm\" animationGroup \"a/group.anim\" }\0\
              animgroup { animfile \"a/body.mdx\" { #include \"a/body.aninc\" \
              wave 1 2 2 15 0 0 0 } animfile \"a/more.mdx\" { fire 0 2 0 10 0 0 0 } \
              animfile \"a/other.mdx\" { } animfile \"b.mdx\" { } }\0\
              idle 0 3 3 20 0 0 0 1\nnone 2 0 0 0 0 0 0\n/* x */ far 2 9 0 12.5 0 0 0\n"
                .to_vec(),
        ),
        ("mdx", "triangle.mdx", triangle.write_mdx()),
        ("mdx", "three_bones.mdx", three.write_mdx()),
        ("probe_any", "triangle.mdx", triangle.write_mdx()),
    ]
}

/// The `md2` seeds: the builder's triangle, a model of three frames each on its own grid
/// with a strip and a fan, and the triangle for `probe_any`.
fn md2_seeds() -> Vec<(&'static str, &'static str, Vec<u8>)> {
    let triangle = skelmap::md2::Builder::triangle().write();
    vec![
        ("md2", "triangle.md2", triangle.clone()),
        ("md2", "animated.md2", crate::md2::animated().write()),
        ("probe_any", "triangle.md2", triangle),
    ]
}

/// The `mdc` seeds: the builder's triangle (a base and a compressed frame), a model of two
/// surfaces and six frames with tags, a model of tags only, and the triangle for `probe_any`.
fn mdc_seeds() -> Vec<(&'static str, &'static str, Vec<u8>)> {
    let triangle = skelmap::mdc::Builder::triangle().write();
    vec![
        ("mdc", "triangle.mdc", triangle.clone()),
        ("mdc", "animated.mdc", crate::mdc::animated().write()),
        ("mdc", "tags_only.mdc", crate::mdc::tags_only().write()),
        ("probe_any", "triangle.mdc", triangle),
    ]
}

/// The `zym` seeds: the builder's example, a model of one bone, vertex and triangle, and
/// the example for `probe_any`.
fn zym_seeds() -> Vec<(&'static str, &'static str, Vec<u8>)> {
    let example = skelmap::zym::Builder::example().write().unwrap();
    let single = crate::zym::single().write().unwrap();
    vec![
        ("zym", "example.zym", example.clone()),
        ("zym", "single.zym", single),
        ("probe_any", "example.zym", example),
    ]
}

/// The `psk` and `psa` seeds: the builder's example (PSK, and PSKX with every optional
/// chunk), its PSA, and both for `probe_any`.
fn psk_seeds() -> Vec<(&'static str, &'static str, Vec<u8>)> {
    let example = skelmap::psk::Builder::example();
    let psk = example.write_psk().unwrap();
    let psa = example.write_psa().unwrap();
    let mut wide = example;
    wide.wide = true;
    wide.normals = vec![[0.0, 0.0, 1.0]; 4];
    wide.colors = vec![[255, 128, 0, 255]; 4];
    wide.extra_uvs = vec![vec![[0.5, 0.5]; 4]];
    vec![
        ("psk", "example.psk", psk.clone()),
        ("psk", "wide.pskx", wide.write_psk().unwrap()),
        ("psa", "example.psa", psa.clone()),
        ("probe_any", "example.psk", psk),
        ("probe_any", "example.psa", psa),
    ]
}

/// The `md5` seeds: the hand-worked fixture's mesh and animation as the target takes them
/// (mesh, NUL, animation), with an `.md5scale` (a second NUL, the sidecar), the mesh alone,
/// the animation alone, and the mesh in the pre-release layout with the animation.
fn md5_seeds() -> Vec<(&'static str, &'static str, Vec<u8>)> {
    use crate::md5::{ANIM, MESH, PRE_RELEASE};
    let pair = [MESH.as_bytes(), b"\0", ANIM.as_bytes()].concat();
    let scale = br#"{ "arm": { "1": 0.5, "scale_positions": true }, "hand": { "0": 0 } }"#;
    let scaled = [&pair[..], b"\0", scale].concat();
    vec![
        ("md5", "pair.md5", pair),
        ("md5", "scaled.md5", scaled),
        ("md5", "mesh.md5mesh", MESH.as_bytes().to_vec()),
        ("md5", "anim.md5anim", [b"\0", ANIM.as_bytes()].concat()),
        (
            "md5",
            "pre_release.md5",
            [PRE_RELEASE.as_bytes(), b"\0", ANIM.as_bytes()].concat(),
        ),
        ("probe_any", "fixture.md5mesh", MESH.as_bytes().to_vec()),
    ]
}

/// The `mdl7` seeds: the writer's demo at each record size, a model animated by its vertices,
/// two groups, trailing lumps, an embedded RGB565 skin, skeletal frames that also replace
/// vertices (at both vertex sizes), and embedded DDS skins (one DXT1 block; types `0x16` and
/// `0x6`).
fn mdl7_seeds() -> Vec<(&'static str, Vec<u8>)> {
    use skelmap::mdl7::{Builder, FrameDef, GroupDef, Sizes, SkinDef, VertexDef, raw::NONE16};
    let demo = Builder::demo;
    let sized = |sizes: Sizes| Builder { sizes, ..demo() }.write();
    // No bones: each frame replaces the top ring (vertices 8..12, in increasing order),
    // lifting it and sliding it along X.
    let mut group = demo().groups.remove(0);
    for v in &mut group.vertices {
        v.vertindex = NONE16;
    }
    let top: Vec<VertexDef> = group.vertices[8..12].to_vec();
    group.frames = (0..3u16)
        .map(|f| FrameDef {
            name: format!("lift {f}").into_bytes(),
            vertices: top
                .iter()
                .zip(8u16..)
                .map(|(v, i)| VertexDef {
                    position: [
                        v.position[0] + 0.1 * f32::from(f),
                        v.position[1],
                        v.position[2] + 0.5 * f32::from(f),
                    ],
                    vertindex: i,
                    ..*v
                })
                .collect(),
            transforms: Vec::new(),
        })
        .collect();
    group.weights = None;
    group.max_weights = 0;
    let morph = Builder {
        groups: vec![group],
        ..Builder::default()
    };
    // A second group: the demo's rings again with an external skin and a reference to it
    // (skin 0 of its group), weighted as the first; every triangle of both groups takes its
    // group's first skin.
    let mut two = demo();
    for t in &mut two.groups[0].triangles {
        t.material = 0;
    }
    let reference = SkinDef {
        typ: 1,
        width: 0,
        height: 0,
        name: b"again".to_vec(),
        payload: Vec::new(),
    };
    let second = GroupDef {
        name: b"second".to_vec(),
        skins: vec![SkinDef::external(b"second.tga"), reference],
        frames: Vec::new(),
        ..two.groups[0].clone()
    };
    two.groups.push(second);
    let trailing = Builder {
        trailing: b"ENTLUMP\0 editor data after the main data".to_vec(),
        ..demo()
    };
    let mut rgb565 = demo();
    rgb565.groups[0].skins = vec![SkinDef::rgb565(4, 4, 0x07E0)];
    for t in &mut rgb565.groups[0].triangles {
        t.material = 0;
    }
    let file = skelmap_testkit::dxt1_4x4(0xF800, 0x001F, [[0, 1, 0, 1]; 4]);
    let mut dds = demo();
    dds.groups[0].skins = vec![SkinDef::dds(&file, true), SkinDef::dds(&file, false)];
    vec![
        ("demo.mdl", demo().write()),
        ("small.mdl", sized(Sizes::SMALL)),
        (
            "bones16.mdl",
            sized(Sizes {
                bone: 16,
                ..Sizes::PLAYER
            }),
        ),
        (
            "bones48.mdl",
            sized(Sizes {
                bone: 48,
                ..Sizes::PLAYER
            }),
        ),
        ("morph.mdl", morph.write()),
        (
            "morph_small.mdl",
            Builder {
                sizes: Sizes::SMALL,
                ..morph
            }
            .write(),
        ),
        ("two_groups.mdl", two.write()),
        ("trailing.mdl", trailing.write()),
        ("rgb565.mdl", rgb565.write()),
        ("mixed.mdl", Builder::mixed().write()),
        (
            "mixed_small.mdl",
            Builder {
                sizes: Sizes::SMALL,
                ..Builder::mixed()
            }
            .write(),
        ),
        ("dds.mdl", dds.write()),
    ]
}

#[test]
fn committed_seeds_match_the_writers() {
    let bless = std::env::var_os("SKELMAP_BLESS").is_some();
    for (target, name, bytes) in generated() {
        let path = seeds_dir().join(target).join(name);
        if bless {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &bytes).unwrap();
        }
        let committed = std::fs::read(&path).unwrap_or_else(|e| {
            panic!(
                "{}: {e}; run with SKELMAP_BLESS=1 to write it",
                path.display()
            )
        });
        assert!(
            committed == bytes,
            "{} differs from the writer's output; rerun with SKELMAP_BLESS=1",
            path.display()
        );
        // A seed is a valid file: a model, or a lone SKM (which needs its skeleton to be one),
        // or a pair of SKM and SKP, or an MD5 mesh and animation either side of a NUL.
        let md5_half = |b: &[u8]| b.is_empty() || skelmap::Model::from_bytes(b).is_ok();
        let md5_scale = |b: &[u8]| serde_json::from_slice::<serde_json::Value>(b).is_ok();
        let md5_parts = |b: &[u8]| {
            let mut parts = b.splitn(3, |&c| c == 0);
            parts.by_ref().take(2).all(md5_half) && parts.all(md5_scale)
        };
        let valid = (target == "structured" && structured_model(&bytes).is_some())
            || (target == "md5" && md5_parts(&bytes))
            || skelmap::Model::from_bytes(&bytes).is_ok()
            || skelmap::skm::Skm::parse(&bytes).is_ok()
            || skelmap::slmdl::Animation::parse(&bytes).is_ok()
            || target.contains("skm")
            || (target == "mdm"
                && (mdm_pair_opens(&bytes) || crate::exercise::et_character(&bytes)))
            || (target == "iqm_pair" && replay_iqm_pair(&bytes));
        assert!(valid, "seed {target}/{name} must be valid");
    }
}

#[test]
fn every_seed_and_regression_replays_without_panic() {
    let mut replayed = 0;
    for target in std::fs::read_dir(seeds_dir()).unwrap() {
        let target = target.unwrap().path();
        for file in std::fs::read_dir(&target).unwrap() {
            let bytes = std::fs::read(file.unwrap().path()).unwrap();
            if let Ok(model) = skelmap::Model::from_bytes(&bytes) {
                crate::exercise::model(&model);
            }
            match target.file_name().and_then(|n| n.to_str()) {
                Some("dpm") => {
                    if let Ok(m) = Dpm::parse(&bytes) {
                        crate::exercise::dpm(&m);
                    }
                }
                Some("skm") => {
                    if let Ok(m) = skelmap::skm::Skm::parse(&bytes) {
                        crate::exercise::skm(&m);
                    }
                }
                Some("skp") => {
                    if let Ok(m) = skelmap::skm::Skp::parse(&bytes) {
                        crate::exercise::skp(&m);
                    }
                }
                Some("skm_pair") | Some("exercise_skm") => replay_pair(&bytes),
                Some("exercise_dpm") => {
                    if let Ok(m) = Dpm::parse(&bytes) {
                        crate::exercise::skin_every_mesh(&m, m.meshes());
                    }
                }
                Some("structured") => {
                    if let Some(bytes) = structured_model(&bytes)
                        && let Ok(model) = skelmap::Model::from_bytes(&bytes)
                    {
                        crate::exercise::model(&model);
                    }
                }
                Some("mdl") => {
                    if let Ok(m) = skelmap::gamestudio::Mdl::parse(&bytes) {
                        crate::exercise::mdl(&m);
                    }
                }
                Some("hmp") => {
                    if let Ok(h) = skelmap::gamestudio::Hmp::parse(&bytes) {
                        crate::exercise::hmp(&h);
                    }
                }
                Some("quake") | Some("mdl2") => {
                    if let Ok(m) = skelmap::quake::Mdl::parse(&bytes) {
                        crate::exercise::quake(&m);
                    }
                }
                Some("slmdl") => {
                    if let Ok(m) = skelmap::slmdl::Mesh::parse(&bytes) {
                        crate::exercise::slmdl(&m);
                    }
                }
                Some("slanim") => {
                    if let Ok(a) = skelmap::slmdl::Animation::parse(&bytes) {
                        crate::exercise::slanim(&a);
                    }
                }
                Some("ms3d") => {
                    if let Ok(m) = skelmap::ms3d::Ms3d::parse(&bytes) {
                        crate::exercise::ms3d(&m);
                    }
                }
                Some("mdl7") => {
                    if let Ok(m) = skelmap::mdl7::Mdl7::parse(&bytes) {
                        crate::exercise::mdl7(&m);
                        let model = skelmap::Model::from_bytes(&bytes).unwrap();
                        crate::exercise::model(&model);
                    }
                }
                Some("md2") => {
                    if let Ok(m) = skelmap::md2::Md2::parse(&bytes) {
                        crate::exercise::md2(&m);
                        let model = skelmap::Model::from_bytes(&bytes).unwrap();
                        crate::exercise::model(&model);
                    }
                }
                Some("mdc") => {
                    if let Ok(m) = skelmap::mdc::Mdc::parse(&bytes) {
                        crate::exercise::mdc(&m);
                        let model = skelmap::Model::from_bytes(&bytes).unwrap();
                        crate::exercise::model(&model);
                    }
                }
                Some("mdr") => {
                    if let Ok(m) = skelmap::mdr::Mdr::parse(&bytes) {
                        crate::exercise::mdr(&m);
                        let model = skelmap::Model::from_bytes(&bytes).unwrap();
                        crate::exercise::model(&model);
                    }
                }
                Some("mdm") => replay_mdm(&bytes),
                Some("write") => skelmap_testkit::write::write(&bytes),
                Some("mdx") => {
                    if let Ok(m) = skelmap::mdm::Mdx::parse(&bytes) {
                        crate::exercise::mdx(&m);
                        let model = skelmap::Model::from_bytes(&bytes).unwrap();
                        crate::exercise::model(&model);
                    }
                }
                Some("md3") => {
                    if let Ok(m) = skelmap::md3::Md3::parse(&bytes) {
                        crate::exercise::md3(&m);
                        let model = skelmap::Model::from_bytes(&bytes).unwrap();
                        crate::exercise::model(&model);
                    }
                }
                Some("iqm_pair") => {
                    replay_iqm_pair(&bytes);
                }
                Some("iqm") => {
                    if let Ok(m) = skelmap::iqm::Iqm::parse(&bytes) {
                        crate::exercise::iqm(&m);
                        let model = skelmap::Model::from_bytes(&bytes).unwrap();
                        crate::exercise::model(&model);
                    }
                }
                Some("hl1") => {
                    if let Ok(m) = skelmap::hl1::Hl1::parse(&bytes) {
                        crate::exercise::hl1(&m);
                        let model = skelmap::Model::from_bytes(&bytes).unwrap();
                        crate::exercise::model(&model);
                    }
                }
                _ => {}
            }
            replayed += 1;
        }
    }
    assert!(replayed >= 8, "only {replayed} seeds found");
}

/// The two files of a pair input: a little-endian `u16` length, the first file's bytes, then
/// the second's (as the fuzz crate's `split_pair` reads them).
fn split_pair(bytes: &[u8]) -> Option<(&[u8], &[u8])> {
    let (len, rest) = bytes.split_first_chunk::<2>()?;
    Some(rest.split_at(usize::from(u16::from_le_bytes(*len)).min(rest.len())))
}

/// The `skm_pair` input: a little-endian `u16` SKM length, the SKM, then the SKP.
fn replay_pair(bytes: &[u8]) {
    let Some((skm, skp)) = split_pair(bytes) else {
        return;
    };
    if let (Ok(skm), Ok(skp)) = (skelmap::skm::Skm::parse(skm), skelmap::skm::Skp::parse(skp))
        && let Ok(model) = skelmap::skm::Pair::new(skm, skp, &[skm])
    {
        crate::exercise::skm_model(&model);
        crate::exercise::skin_every_mesh(&model, model.skm().meshes());
    }
}

/// The `iqm_pair` input, as the fuzz target reads it: a little-endian `u16` model length, the
/// model IQM, the animation-only IQM; the animation bound to the model and the model walked.
/// Whether the pair opened as a model.
fn replay_iqm_pair(bytes: &[u8]) -> bool {
    let source = skelmap::source::Source::from_bytes;
    split_pair(bytes)
        .and_then(|(model, animation)| {
            let limits = &skelmap::Limits::DEFAULT;
            skelmap::Model::from_iqm(source(model), source(animation), limits).ok()
        })
        .inspect(|model| crate::exercise::model(model))
        .is_some()
}

/// The file a `structured` seed describes (see `skelmap_testkit::structured`).
fn structured_model(spec: &[u8]) -> Option<Vec<u8>> {
    let mut u = arbitrary::Unstructured::new(spec);
    let spec = <crate::structured::Spec as arbitrary::Arbitrary>::arbitrary(&mut u).ok()?;
    crate::structured::build(&spec)
}

/// The `mdm` input: a little-endian `u16` MDM length, the MDM, then the MDX; and, as the
/// fuzz target reads it too, three texts an MDM's skeleton is found through.
fn replay_mdm(bytes: &[u8]) {
    crate::exercise::et_character(bytes);
    let Some((mdm, mdx)) = split_pair(bytes) else {
        return;
    };
    if let Ok(mesh) = skelmap::mdm::Mdm::parse(mdm) {
        crate::exercise::mdm(&mesh);
        if let Ok(skeleton) = skelmap::mdm::Mdx::parse(mdx)
            && let Ok(pair) = skelmap::mdm::Pair::new(mesh, skeleton)
        {
            crate::exercise::mdm_pair(&pair);
            // As the fuzz target: the pair as a model too.
            let (mdm, mdx) = (
                skelmap::source::Source::from_bytes(mdm),
                skelmap::source::Source::from_bytes(mdx),
            );
            let model = skelmap::Model::from_mdm(mdm, mdx, &skelmap::Limits::DEFAULT).unwrap();
            crate::exercise::model(&model);
        }
    }
}

/// Whether an `mdm` input (a `u16` MDM length, the MDM, the MDX) opens as a model.
fn mdm_pair_opens(bytes: &[u8]) -> bool {
    let Some((mdm, mdx)) = split_pair(bytes) else {
        return false;
    };
    let (mdm, mdx) = (
        skelmap::source::Source::from_bytes(mdm),
        skelmap::source::Source::from_bytes(mdx),
    );
    skelmap::Model::from_mdm(mdm, mdx, &skelmap::Limits::DEFAULT).is_ok()
}
