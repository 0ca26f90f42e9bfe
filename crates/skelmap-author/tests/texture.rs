//! `skelmap_author::texture`: which names are tried, in which folders, in which order, and
//! what a report says.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

use skelmap_author::texture::{self, Error, names};
use skelmap_core::asset::{Asset, Image, Material, UpAxis};
use tempfile::TempDir;

/// A 1 × 1 uncompressed true-colour TGA of `bgr`.
fn tga(bgr: [u8; 3]) -> Vec<u8> {
    let mut bytes = vec![0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 24, 0];
    bytes.extend_from_slice(&bgr);
    bytes
}

/// A fresh folder for one test, removed with its files when the returned value drops (also
/// when the test panics).
fn fresh(name: &str) -> TempDir {
    tempfile::Builder::new()
        .prefix(&format!("skelmap-texture-{name}-"))
        .tempdir()
        .unwrap()
}

fn asset(materials: Vec<Material>) -> Asset {
    Asset {
        format: "DPM",
        up: UpAxis::Z,
        front: [1.0, 0.0, 0.0],
        meshes: Vec::new(),
        materials,
        images: Vec::new(),
        skeleton: None,
        clips: Vec::new(),
        tags: Vec::new(),
        frame: None,
        at: None,
        given_pose: false,
        replaced_non_finite: 0,
        code_page: Default::default(),
    }
}

fn shader(name: &str) -> Material {
    Material {
        name: name.into(),
        ..Material::default()
    }
}

fn write(path: &Path, bytes: &[u8]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn shader_names_try_darkplaces_extensions_and_stored_names_their_path_then_file_name() {
    assert_eq!(
        names(&shader("Default OBJ")),
        ["Default OBJ.tga", "Default OBJ.png", "Default OBJ.jpg"]
    );
    assert_eq!(
        names(&shader("skin.PNG")),
        ["skin.PNG", "skin.tga", "skin.png", "skin.jpg"]
    );
    let stored = Material {
        texture: Some("C:\\work\\tex\\wood.bmp".into()),
        ..Material::default()
    };
    assert_eq!(names(&stored), ["C:/work/tex/wood.bmp", "wood.bmp"]);
    let with_image = Material {
        image: Some(0),
        ..shader("x")
    };
    assert!(names(&with_image).is_empty());
    // An empty shader (`shader ""`, as MD5 exporters write it) or a folder alone names no file.
    assert!(names(&shader("")).is_empty());
    assert!(names(&shader("models/")).is_empty());
}

#[test]
fn the_model_s_folder_comes_first_then_each_folder_in_order() {
    let dir = fresh("order");
    let dir = dir.path();
    write(&dir.join("m/golem.png"), &[0; 4]); // beside the model, but not an image
    write(&dir.join("a/golem.tga"), &tga([0, 0, 255]));
    write(&dir.join("b/golem.tga"), &tga([255, 0, 0]));
    let mut a = asset(vec![shader("golem")]);
    a.materials[0].external = Some("golem".into());
    let report = texture::attach(
        &mut a,
        &dir.join("m/golem.dpm"),
        &[dir.join("a"), dir.join("b")],
    );
    // `golem.tga` is tried before `golem.png`, in every folder before the next folder: the
    // model's own folder has only the PNG name, which it tries (and fails to decode).
    assert!(report.found.is_empty());
    assert_eq!(report.failed.len(), 1);
    assert!(
        matches!(&report.failed[0], (0, Error::Decode { path, .. }) if path.ends_with("m/golem.png"))
    );
    assert_eq!(a.materials[0].external, None, "no URI left to dangle");

    std::fs::remove_file(dir.join("m/golem.png")).unwrap();
    let mut a = asset(vec![shader("GOLEM"), shader("golem")]);
    let report = texture::attach(
        &mut a,
        &dir.join("m/golem.dpm"),
        &[dir.join("a"), dir.join("b")],
    );
    assert_eq!(
        report.found,
        [
            texture::Found {
                material: 0,
                path: dir.join("a/golem.tga")
            },
            texture::Found {
                material: 1,
                path: dir.join("a/golem.tga")
            }
        ]
    );
    // One file, decoded once, shared.
    assert_eq!(
        a.images,
        [Image {
            width: 1,
            height: 1,
            rgba: vec![255, 0, 0, 255],
            jpeg: None,
        }]
    );
    assert_eq!(
        (a.materials[0].image, a.materials[1].image),
        (Some(0), Some(0))
    );
    assert_eq!(report.inputs().count(), 2);
}

#[test]
fn a_texture_nowhere_is_reported_with_every_name_and_folder_tried() {
    let dir = fresh("missing");
    let dir = dir.path();
    let mut a = asset(vec![Material {
        texture: Some(".\\skins\\hero.jpg".into()),
        external: Some("skins/hero.jpg".into()),
        ..Material::default()
    }]);
    let report = texture::attach(&mut a, &dir.join("hero.ms3d"), &[dir.join("extra")]);
    assert_eq!(
        report.missing,
        [texture::Missing {
            material: 0,
            names: vec!["skins/hero.jpg".into(), "hero.jpg".into()],
            folders: vec![dir.to_path_buf(), dir.join("extra")],
        }]
    );
    assert_eq!(a.materials[0].external, None);
    assert_eq!(a.materials[0].image, None);
    // The stored name stays, for writers that store names.
    assert_eq!(
        a.materials[0].texture.as_deref(),
        Some(".\\skins\\hero.jpg")
    );
}

#[test]
fn names_that_climb_out_of_a_folder_are_not_followed() {
    let dir = fresh("climb");
    let dir = dir.path();
    write(&dir.join("secret.tga"), &tga([1, 2, 3]));
    let mut a = asset(vec![Material {
        texture: Some("../secret.tga".into()),
        ..Material::default()
    }]);
    let report = texture::attach(&mut a, &dir.join("m/x.ms3d"), &[]);
    assert!(report.found.is_empty());
    // The file name alone is still tried in the model's folder.
    assert_eq!(report.missing[0].names, ["../secret.tga", "secret.tga"]);
}

#[test]
fn read_refuses_what_is_not_an_image() {
    let dir = fresh("read");
    let dir = dir.path();
    write(&dir.join("x.jpg"), b"not a jpeg");
    assert!(matches!(
        texture::read(&dir.join("x.jpg")),
        Err(Error::Decode { .. })
    ));
    assert!(matches!(
        texture::read(&dir.join("none.png")),
        Err(Error::Io { .. })
    ));
    write(&dir.join("x.dat"), &[1, 2, 3, 4]);
    let err = texture::read(&dir.join("x.dat")).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{}: not a PNG, JPEG, BMP, TGA or PCX image",
            dir.join("x.dat").display()
        )
    );
    // A PCX header cut short is a decode error, not a panic.
    write(&dir.join("x.pcx"), &[10, 5, 1, 8]);
    assert!(matches!(
        texture::read(&dir.join("x.pcx")),
        Err(Error::Decode { .. })
    ));
}

/// A PCX file as Quake II's skins are: version 5, run-length encoded, 8 bits a pixel in one
/// plane, `width × height` pixels (`pixel(x, y)` each, a run of one), the 256-colour palette
/// after a `0x0C` (colour `i` = `palette(i)`).
fn pcx(width: u16, height: u16, pixel: impl Fn(u16, u16) -> u8) -> Vec<u8> {
    let mut bytes = vec![0x0A, 5, 1, 8];
    for v in [0, 0, width - 1, height - 1, 72, 72] {
        bytes.extend_from_slice(&v.to_le_bytes());
    }
    bytes.extend([0; 48]);
    bytes.extend([0, 1]); // reserved, one plane
    bytes.extend_from_slice(&width.next_multiple_of(2).to_le_bytes()); // bytes a line
    bytes.extend_from_slice(&1u16.to_le_bytes()); // a colour palette
    bytes.resize(128, 0);
    for y in 0..height {
        for x in 0..width.next_multiple_of(2) {
            bytes.extend([0xC1, if x < width { pixel(x, y) } else { 0 }]);
        }
    }
    bytes.push(0x0C);
    bytes.extend((0..=255u8).flat_map(palette));
    bytes
}

/// The test palette's colour `i`.
fn palette(i: u8) -> [u8; 3] {
    [i, 255 - i, i / 2]
}

/// Quake II's skins are PCX files beside the MD2 (`models/monsters/soldier/skin.pcx`): each
/// pixel its palette colour, opaque; one too large is refused before its pixels are read,
/// and every cut of a file is a decode error rather than a panic.
#[test]
fn a_quake_ii_pcx_skin_decodes_through_its_palette() {
    let dir = fresh("pcx");
    let dir = dir.path();
    let bytes = pcx(3, 2, |x, y| (x * 40 + y * 100) as u8);
    write(&dir.join("skin.pcx"), &bytes);
    let image = texture::read(&dir.join("skin.pcx")).unwrap();
    assert_eq!((image.width, image.height, image.jpeg), (3, 2, None));
    let texel = |x: u16, y: u16| {
        let at = (usize::from(y) * 3 + usize::from(x)) * 4;
        image.rgba[at..at + 4].to_vec()
    };
    for (x, y) in [(0, 0), (2, 0), (1, 1), (2, 1)] {
        let [r, g, b] = palette((x * 40 + y * 100) as u8);
        assert_eq!(texel(x, y), [r, g, b, 255], "({x}, {y})");
    }
    // Told by its header whatever its name.
    write(&dir.join("skin.dat"), &bytes);
    assert_eq!(
        texture::read(&dir.join("skin.dat")).unwrap().rgba,
        image.rgba
    );
    // Wider than `MAX_SIDE`: refused from the header.
    let mut wide = bytes.clone();
    wide[8..10].copy_from_slice(&(texture::MAX_SIDE as u16).to_le_bytes());
    write(&dir.join("wide.pcx"), &wide);
    assert!(matches!(
        texture::read(&dir.join("wide.pcx")),
        Err(Error::Decode { .. })
    ));
    for cut in 0..bytes.len() {
        write(&dir.join("cut.pcx"), &bytes[..cut]);
        assert!(
            matches!(
                texture::read(&dir.join("cut.pcx")),
                Err(Error::Decode { .. })
            ),
            "cut at {cut}"
        );
    }
    // Any header byte changed (planes and bits a pixel among them: every layout the
    // decoder accepts) decodes or is refused, never panics.
    for at in 0..128 {
        for value in [0, 1, 2, 3, 4, 8, 0x7F, 0xFF] {
            let mut changed = bytes.clone();
            changed[at] = value;
            write(&dir.join("changed.pcx"), &changed);
            let _ = texture::read(&dir.join("changed.pcx"));
        }
    }
}

/// Some Quake II skins (quake2vr's `models/items/jet/skin.pcx` and four more) end in their
/// 768-byte palette without the `0x0C` byte that marks it; Quake II's `LoadPCX` takes the
/// last 768 bytes whatever precedes them, and so do we. A file cut one byte short, whose
/// last 768 bytes start with the mark, stays an error, as does one whose pixels run into
/// the last 768 bytes.
#[test]
fn a_pcx_palette_without_its_mark_is_read_as_quake_ii_reads_it() {
    let dir = fresh("pcx-unmarked");
    let dir = dir.path();
    let marked = pcx(3, 2, |x, y| (x * 40 + y * 100) as u8);
    let mark = marked.len() - 769;
    assert_eq!(marked[mark], 0x0C);
    let unmarked = [&marked[..mark], &marked[mark + 1..]].concat();
    write(&dir.join("marked.pcx"), &marked);
    write(&dir.join("unmarked.pcx"), &unmarked);
    let want = texture::read(&dir.join("marked.pcx")).unwrap();
    let got = texture::read(&dir.join("unmarked.pcx")).unwrap();
    assert_eq!((got.width, got.height), (3, 2));
    assert_eq!(got.rgba, want.rgba);
    // Cut one byte short: the mark is the first of the last 768 bytes.
    write(&dir.join("short.pcx"), &marked[..marked.len() - 1]);
    assert!(matches!(
        texture::read(&dir.join("short.pcx")),
        Err(Error::Decode { .. })
    ));
    // Pixels that reach into the last 768 bytes: no palette follows them.
    write(&dir.join("less.pcx"), &unmarked[..unmarked.len() - 2]);
    assert!(matches!(
        texture::read(&dir.join("less.pcx")),
        Err(Error::Decode { .. })
    ));
}

/// A texture a GBK model names (`皮肤.tga`, text once read) is found where its file is named
/// in GBK bytes, as a Chinese Windows archive unpacked on Linux leaves it.
#[cfg(unix)]
#[test]
fn a_texture_file_named_in_gbk_is_found_by_its_text() {
    use std::os::unix::ffi::OsStrExt;
    let dir = fresh("gbk-name");
    let dir = dir.path();
    let tga = [
        0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 24, 0, 0, 0, 255,
    ];
    let gbk = std::ffi::OsStr::from_bytes(&[0xC6, 0xA4, 0xB7, 0xF4, b'.', b't', b'g', b'a']);
    write(&dir.join(gbk), &tga);
    let material = Material {
        texture: Some("\u{76ae}\u{80a4}.tga".into()),
        ..Material::default()
    };
    let mut built = asset(vec![material]);
    let report = texture::attach(&mut built, &dir.join("model.ms3d"), &[]);
    assert_eq!(report.found.len(), 1, "{:?}", report.missing);
    assert_eq!(report.found[0].path, dir.join(gbk));
    assert_eq!(built.images[0].rgba, [255, 0, 0, 255]);
}

/// A JPEG keeps its bytes, and glTF embeds them as they are (`image/jpeg`) rather than a PNG
/// of the decoded texels.
#[test]
fn a_jpeg_is_embedded_in_gltf_as_it_is() {
    let dir = fresh("jpeg");
    let dir = dir.path();
    let mut jpeg = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut jpeg, 90)
        .encode(&[200u8; 8 * 8 * 3], 8, 8, image::ExtendedColorType::Rgb8)
        .unwrap();
    write(&dir.join("hero.jpg"), &jpeg);
    let bytes = skelmap_core::synth::tube(&Default::default())
        .write()
        .unwrap();
    let model = skelmap_core::Model::from_bytes(&bytes).unwrap();
    let mut a = model.to_asset(&Default::default()).unwrap();
    a.materials[0].name = "hero".into();
    let report = texture::attach(&mut a, &dir.join("hero.dpm"), &[]);
    assert_eq!(report.found.len(), 1);
    assert_eq!(a.images[0].jpeg.as_deref(), Some(&jpeg[..]));
    assert_eq!((a.images[0].width, a.images[0].height), (8, 8));
    let (json, bin) = skelmap_export::gltf::to_gltf(&a, &Default::default(), "b.bin").unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&json).unwrap();
    assert_eq!(doc["images"][0]["mimeType"], "image/jpeg");
    let view = &doc["bufferViews"][doc["images"][0]["bufferView"].as_u64().unwrap() as usize];
    let start = view["byteOffset"].as_u64().unwrap_or(0) as usize;
    let end = start + view["byteLength"].as_u64().unwrap() as usize;
    assert_eq!(&bin[start..end], &jpeg[..]);
}

/// A name led by 200,000 `./` (or `.\`, as `\` reads as `/`) is the name after them; each
/// leading `./` is stepped over, not copied away.
#[test]
fn a_long_run_of_leading_dot_slashes_is_dropped() {
    let mut stored = "./.\\".repeat(100_000);
    stored.push_str("skins\\x.png");
    let stored = Material {
        texture: Some(stored),
        ..Material::default()
    };
    assert_eq!(names(&stored), ["skins/x.png", "x.png"]);
    let mut shader_name = "./".repeat(200_000);
    shader_name.push_str("skin");
    assert_eq!(
        names(&shader(&shader_name)),
        ["skin.tga", "skin.png", "skin.jpg"]
    );
    // A `.` alone, or `./` inside a name, is kept.
    assert_eq!(
        names(&shader("./.x/./y")),
        [
            ".x/./y.tga",
            ".x/./y.png",
            ".x/./y.jpg",
            "y.tga",
            "y.png",
            "y.jpg"
        ]
    );
}

/// 6,000 materials over a folder of 3,000 textures named in upper case, each named by two
/// materials in lower case, and 1,000 materials whose textures are nowhere: every one is
/// matched in any case against the folder's listing, read once, and each file is decoded
/// once. An entry that matches but is a folder is passed over.
#[test]
fn many_materials_match_a_large_folder_read_once() {
    let dir = fresh("many");
    let dir = dir.path();
    let files = 3000usize;
    for i in 0..files {
        write(&dir.join(format!("SKIN_{i}.TGA")), &tga([i as u8, 0, 0]));
    }
    // Matches `skin_0.tga` in any case, exactly even, but is no file.
    std::fs::create_dir(dir.join("skin_0.tga")).unwrap();
    let mut materials: Vec<Material> = (0..2 * files)
        .map(|k| shader(&format!("skin_{}", k % files)))
        .collect();
    materials.extend((0..1000).map(|k| shader(&format!("absent_{k}"))));
    let mut a = asset(materials);
    let report = texture::attach(&mut a, &dir.join("model.dpm"), &[]);
    assert_eq!(report.found.len(), 2 * files);
    assert!(report.failed.is_empty());
    for (k, found) in report.found.iter().enumerate() {
        assert_eq!(found.material, k);
        assert_eq!(found.path, dir.join(format!("SKIN_{}.TGA", k % files)));
    }
    assert_eq!(a.images.len(), files);
    for k in 0..2 * files {
        let image = a.materials[k].image.unwrap();
        assert_eq!(a.materials[(k + files) % (2 * files)].image, Some(image));
        assert_eq!(a.images[image].rgba, [0, 0, (k % files) as u8, 255]);
    }
    assert_eq!(report.missing.len(), 1000);
    let missing = &report.missing[999];
    assert_eq!(missing.material, 2 * files + 999);
    assert_eq!(
        missing.names,
        ["absent_999.tga", "absent_999.png", "absent_999.jpg"]
    );
    assert_eq!(missing.folders, [dir.to_path_buf()]);
}

/// A file that fails to decode is read once: every material naming it reports the same
/// failure.
#[test]
fn materials_naming_one_broken_file_share_its_failure() {
    let dir = fresh("broken");
    let dir = dir.path();
    write(&dir.join("bad.tga"), &[0xFF; 64]);
    let mut a = asset((0..3).map(|_| shader("bad")).collect());
    let report = texture::attach(&mut a, &dir.join("model.dpm"), &[]);
    assert!(report.found.is_empty());
    let failed: Vec<(usize, String)> = (report.failed.iter())
        .map(|(m, e)| (*m, e.to_string()))
        .collect();
    assert_eq!(failed.len(), 3);
    assert!(
        failed
            .iter()
            .enumerate()
            .all(|(k, (m, e))| *m == k && *e == failed[0].1)
    );
    assert!(
        failed[0]
            .1
            .starts_with(&dir.join("bad.tga").display().to_string())
    );
}
