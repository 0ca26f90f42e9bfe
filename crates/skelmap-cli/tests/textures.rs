//! Texture files a model names: looked up beside it and in `--textures` folders, decoded,
//! carried into glTF and OBJ and drawn by `render`, and protected as inputs.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::path::Path;

use skelmap_core::Model;
use skelmap_core::synth::{TubeParams, tube};
use support::{glb_json, pixels, skelmap, stderr, stdout, temp_dir, write_tube};

/// Writes a `size × size` PNG of one colour.
fn write_png(path: &Path, size: u32, rgb: [u8; 3]) {
    let mut bytes = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut bytes, size, size);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder.write_header().unwrap();
        writer
            .write_image_data(&rgb.repeat((size * size) as usize))
            .unwrap();
    }
    std::fs::write(path, bytes).unwrap();
}

/// Writes a `size × size` 24-bit BMP of one colour.
fn write_bmp(path: &Path, size: u32, rgb: [u8; 3]) {
    let row = (3 * size).div_ceil(4) * 4;
    let data = row * size;
    let mut bytes = Vec::new();
    bytes.extend_from_slice(b"BM");
    bytes.extend_from_slice(&(54 + data).to_le_bytes());
    bytes.extend_from_slice(&[0; 4]);
    bytes.extend_from_slice(&54u32.to_le_bytes());
    bytes.extend_from_slice(&40u32.to_le_bytes());
    bytes.extend_from_slice(&size.to_le_bytes());
    bytes.extend_from_slice(&size.to_le_bytes());
    bytes.extend_from_slice(&1u16.to_le_bytes());
    bytes.extend_from_slice(&24u16.to_le_bytes());
    bytes.extend_from_slice(&[0; 4]);
    bytes.extend_from_slice(&data.to_le_bytes());
    bytes.extend_from_slice(&[0; 16]);
    for _ in 0..size {
        let mut line: Vec<u8> = [rgb[2], rgb[1], rgb[0]].repeat(size as usize);
        line.resize(row as usize, 0);
        bytes.extend_from_slice(&line);
    }
    std::fs::write(path, bytes).unwrap();
}

/// A DPM's shader name `tube` is looked for as `tube.tga`, `tube.png`, `tube.jpg`, beside
/// the model and then in each `--textures` folder, in any ASCII case. Not found: one warning
/// that says what was searched, and no image or URI in the glTF. Found: embedded, drawn by
/// `render`, and never an output.
#[test]
fn a_shader_s_texture_is_found_beside_the_model_or_in_a_textures_folder() {
    let dir = temp_dir("textures-shader");
    let dir = dir.path();
    let dpm = write_tube(dir);
    let tex = dir.join("tex");
    std::fs::create_dir_all(&tex).unwrap();
    write_png(&tex.join("TUBE.png"), 4, [0, 220, 0]);
    let dpm = dpm.to_str().unwrap();

    let a = dir.join("a.glb");
    let out = skelmap(&["export", dpm, "-o", a.to_str().unwrap()]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        stderr(&out),
        format!(
            "warning: texture not found: material 0 names \"tube\"; looked for tube.tga, \
             tube.png, tube.jpg in {} (add a folder with --textures DIR)\n",
            dir.display()
        )
    );
    let json = glb_json(&a);
    assert!(json.get("images").is_none(), "{json}");

    let b = dir.join("b.glb");
    let tex_arg = tex.to_str().unwrap();
    let out = skelmap(&[
        "export",
        dpm,
        "--textures",
        "/nonexistent-folder",
        "--textures",
        tex_arg,
        "-o",
        b.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(stderr(&out), "");
    let json = glb_json(&b);
    let images = json["images"].as_array().unwrap();
    assert_eq!(images.len(), 1);
    assert_eq!(images[0]["mimeType"], "image/png");
    assert!(images[0].get("uri").is_none());
    assert_eq!(
        json["materials"][0]["pbrMetallicRoughness"]["baseColorTexture"]["index"],
        0
    );

    // `render` draws the green texture; without it the tube is grey.
    let grey = dir.join("grey.png");
    let green = dir.join("green.png");
    for (png, with) in [(&grey, false), (&green, true)] {
        let mut args = vec!["render", dpm, "-o", png.to_str().unwrap()];
        if with {
            args.extend(["--textures", tex_arg]);
        }
        let out = skelmap(&args);
        assert!(out.status.success(), "{out:?}");
    }
    let greenish = |rgba: &[u8]| {
        rgba.chunks(4)
            .filter(|p| {
                i32::from(p[1]) > i32::from(p[0]) + 60 && i32::from(p[1]) > i32::from(p[2]) + 60
            })
            .count()
    };
    assert_eq!(greenish(&pixels(&grey).1), 0);
    assert!(greenish(&pixels(&green).1) > 1000);

    // The texture is an input: no output may replace it.
    let before = std::fs::read(tex.join("TUBE.png")).unwrap();
    let out = skelmap(&[
        "render",
        dpm,
        "--textures",
        tex_arg,
        "-o",
        tex.join("TUBE.png").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("which this command reads; choose another output"),
        "{}",
        stderr(&out)
    );
    assert!(
        stderr(&out).contains("a texture of the model"),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read(tex.join("TUBE.png")).unwrap(), before);
}

/// An MS3D names its texture by a Windows path relative to the model (`.\skins\Tube.BMP`):
/// found there in any case, else by its file name in a `--textures` folder; a BMP becomes a
/// PNG in the glTF and beside an OBJ, and a conversion keeps the name.
#[test]
fn an_ms3d_texture_is_found_by_its_stored_path_then_by_its_file_name() {
    let dir = temp_dir("textures-ms3d");
    let dir = dir.path();
    let bytes = tube(&TubeParams::default()).write().unwrap();
    let mut asset = Model::from_bytes(&bytes)
        .unwrap()
        .to_asset(&Default::default())
        .unwrap();
    asset.materials[0].texture = Some(".\\skins\\Tube.BMP".into());
    let ms3d = skelmap_core::ms3d::Builder::from_asset(&asset)
        .unwrap()
        .builder
        .write()
        .unwrap();
    let model = dir.join("m/tube.ms3d");
    std::fs::create_dir_all(dir.join("m/skins")).unwrap();
    std::fs::write(&model, &ms3d).unwrap();
    write_bmp(&dir.join("m/skins/tube.bmp"), 2, [200, 0, 0]);

    let out = skelmap(&["info", model.to_str().unwrap()]);
    assert!(
        stdout(&out).contains("texture \"skins/Tube.BMP\""),
        "{}",
        stdout(&out)
    );

    let glb = dir.join("out/a.glb");
    let out = skelmap(&[
        "export",
        model.to_str().unwrap(),
        "-o",
        glb.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(stderr(&out), "");
    let json = glb_json(&glb);
    assert_eq!(json["images"][0]["mimeType"], "image/png");

    // Elsewhere, the model finds its texture by file name in a `--textures` folder.
    let lone = dir.join("lone.ms3d");
    std::fs::write(&lone, &ms3d).unwrap();
    let obj = dir.join("out/lone.obj");
    let skins = dir.join("m/skins");
    let out = skelmap(&[
        "export",
        lone.to_str().unwrap(),
        "--textures",
        skins.to_str().unwrap(),
        "-o",
        obj.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(stderr(&out), "");
    let mtl = std::fs::read_to_string(dir.join("out/lone.mtl")).unwrap();
    assert!(mtl.ends_with("map_Kd lone_0.png\n"), "{mtl}");
    let png = std::fs::read(dir.join("out/lone_0.png")).unwrap();
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"));

    // Without it: the warning names both names tried, and the glTF holds no URI.
    let out = skelmap(&[
        "export",
        lone.to_str().unwrap(),
        "-o",
        dir.join("out/lone.gltf").to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{out:?}");
    assert!(
        stderr(&out).contains("looked for skins/Tube.BMP, Tube.BMP in"),
        "{}",
        stderr(&out)
    );
    let text = std::fs::read_to_string(dir.join("out/lone.gltf")).unwrap();
    assert!(!text.contains("Tube.BMP"), "{text}");

    // A conversion keeps the name the file stores.
    let copy = dir.join("out/copy.ms3d");
    let out = skelmap(&["convert", model.to_str().unwrap(), copy.to_str().unwrap()]);
    assert!(out.status.success(), "{out:?}");
    let out = skelmap(&["info", copy.to_str().unwrap()]);
    assert!(
        stdout(&out).contains("texture \"skins/Tube.BMP\""),
        "{}",
        stdout(&out)
    );
}

/// The tortoise's names are GBK: they read as Chinese, not as replacement characters, and
/// the textures are looked for by those names.
#[test]
fn gbk_names_are_decoded_and_looked_up() {
    let Some(path) = skelmap_testkit::corpus_path("ms3d/ms3drender_tortoise.ms3d") else {
        return;
    };
    let out = skelmap(&["info", path.to_str().unwrap()]);
    let text = stdout(&out);
    assert!(
        text.contains("materials: 龟壳: texture \".\\\\龟壳.tga\"; 海龟身体和龟壳: texture \".\\\\龟身.tga\"; 海龟指甲: texture \".\\\\龟身b.tga\""),
        "{text}"
    );
    assert!(!text.contains('\u{FFFD}'), "{text}");
    let dir = temp_dir("textures-gbk");
    let dir = dir.path();
    let out = skelmap(&[
        "export",
        path.to_str().unwrap(),
        "-o",
        dir.join("t.glb").to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{out:?}");
    let warnings = stderr(&out);
    assert_eq!(warnings.lines().count(), 3, "{warnings}");
    assert!(warnings.contains("looked for 龟壳.tga in"), "{warnings}");
}

/// An Enemy Territory mesh opened from its game folder (found above it through
/// `characters/`): its character's skin names the surface's texture by a path from the game
/// folder, which is searched after the model's own folder.
#[test]
fn a_texture_named_from_the_game_folder_is_found_there() {
    let dir = temp_dir("textures-game-folder");
    let dir = dir.path();
    let etmain = dir.join("etmain");
    let (mdm, mdx) = skelmap_core::mdm::Builder::triangle().write();
    let files: [(&str, &[u8]); 5] = [
        ("models/soldier/body.mdm", &mdm),
        ("animations/body.mdx", &mdx),
        (
            "characters/soldier.char",
            b"characterDef { mesh \"models/soldier/body.mdm\" \
              animationGroup \"animations/g.anim\" skin \"s\" }",
        ),
        (
            "animations/g.anim",
            b"animgroup { animfile \"animations/body.mdx\" { } }",
        ),
        (
            "models/soldier/body_s.skin",
            b"body, models/soldier/skins/body_s.tga\n",
        ),
    ];
    support::write_files(&etmain, &files);
    std::fs::create_dir_all(etmain.join("models/soldier/skins")).unwrap();
    write_png(
        &etmain.join("models/soldier/skins/body_s.png"),
        2,
        [200, 0, 0],
    );
    let out_path = dir.join("soldier.glb");
    let mesh = etmain.join("models/soldier/body.mdm");
    let out = skelmap(&[
        "export",
        mesh.to_str().unwrap(),
        "-o",
        out_path.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(stderr(&out), "");
    let json = glb_json(&out_path);
    assert_eq!(json["images"].as_array().map(Vec::len), Some(1), "{json}");
    assert_eq!(
        json["materials"][0]["name"],
        "models/soldier/skins/body_s.tga"
    );
}
