//! GameStudio skins decode to RGBA8 in the right channel order; the corpus skins as PNGs.

use skelmap::Parse;
use skelmap::gamestudio::Mdl;
use skelmap::gamestudio::skin::grey_palette;
use skelmap::gamestudio::write::SkinDef;

use crate::support::corpus_dir;
use crate::support::gamestudio::quad;

#[test]
fn skin_decoding_channel_order() {
    // One texel per format: red.
    let cases: [(i32, Vec<u8>); 5] = [
        (0, vec![200]),
        (2, 0xF800u16.to_le_bytes().to_vec()),
        (3, 0xFF00u16.to_le_bytes().to_vec()),
        (4, vec![0, 0, 255]),
        (5, vec![0, 0, 255, 128]),
    ];
    for (code, texel) in cases {
        let mut q = quad();
        let data: Vec<u8> = texel
            .iter()
            .copied()
            .cycle()
            .take(texel.len() * 64)
            .collect();
        q.skins[0] = SkinDef {
            code,
            width: 8,
            height: 8,
            data,
        };
        let bytes = q.write();
        let m = Mdl::parse(&bytes).unwrap();
        let rgba = m.skins()[0].decode_rgba(0, &grey_palette()).unwrap();
        let want: [u8; 4] = match code {
            0 => [200, 200, 200, 255],
            5 => [255, 0, 0, 128],
            _ => [255, 0, 0, 255],
        };
        assert_eq!(&rgba[..4], want, "type {code}");
        assert_eq!(rgba.len(), 8 * 8 * 4);
    }
}

/// Writes every corpus skin as a PNG under target/skelmap-skins for looking at (the channel
/// order of RGB888 and RGB565 was checked that way: the earth's oceans are blue).
#[test]
fn corpus_skins_decode_to_png() {
    let Some(dir) = corpus_dir("mdl") else { return };
    let out = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/skelmap-skins");
    std::fs::create_dir_all(&out).unwrap();
    for name in [
        "assimp_minigun_mdl3.mdl",
        "gex4_skeleton.mdl",
        "libgs_mdl4-golem.mdl",
        "libgs_mdl5-earth.mdl",
    ] {
        let bytes = std::fs::read(dir.join(name)).unwrap();
        let m = Mdl::parse(&bytes).unwrap();
        for (i, skin) in m.skins().iter().enumerate() {
            let rgba = skin.decode_rgba(0, &grey_palette()).unwrap();
            assert_eq!(
                rgba.len() as u64,
                4 * u64::from(skin.width()) * u64::from(skin.height())
            );
            let file = std::fs::File::create(out.join(format!("{name}.{i}.png"))).unwrap();
            let mut enc =
                png::Encoder::new(std::io::BufWriter::new(file), skin.width(), skin.height());
            enc.set_color(png::ColorType::Rgba);
            enc.set_depth(png::BitDepth::Eight);
            enc.write_header().unwrap().write_image_data(&rgba).unwrap();
        }
    }
}
