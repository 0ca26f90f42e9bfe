//! GameStudio fixtures shared beyond the format's own tests (the model tests and the fuzz
//! seeds): a two-triangle MDL5 quad and a 3×2 HMP7 field.

use skelmap::gamestudio;
use skelmap::gamestudio::write::{MdlFrameDef, SkinDef};

/// A two-triangle MDL5 quad: one 8×8 RGB565 skin with mips, 4 UVs, two word frames.
pub fn quad() -> gamestudio::MdlBuilder {
    let frame = |name: &[u8], lift: u16| MdlFrameDef {
        frame_type: 2,
        name: name.to_vec(),
        vertices: vec![
            ([0, 0, lift], 5),
            ([10, 0, lift], 5),
            ([0, 10, lift], 5),
            ([10, 10, lift], 5),
        ],
    };
    gamestudio::MdlBuilder {
        version: 5,
        scale: [0.5, 0.5, 0.25],
        offset: [-2.5, -2.5, 1.0],
        skins: vec![SkinDef {
            code: 2 + 8,
            width: 8,
            height: 8,
            data: vec![0xF8; 2 * (64 + 16 + 4 + 1)],
        }],
        skin_vertices: vec![[0, 0], [8, 0], [0, 8], [8, 8]],
        triangles: vec![([0, 1, 3], [0, 1, 3]), ([0, 3, 2], [0, 3, 2])],
        frames: vec![frame(b"stand", 0), frame(b"jump", 40)],
        ..gamestudio::MdlBuilder::default()
    }
}

/// A 3×2 HMP7 terrain without skins.
pub fn field() -> gamestudio::HmpBuilder {
    gamestudio::HmpBuilder {
        version: 7,
        height_scale: [0.5, -1.0],
        spacing: [4.0, 2.0],
        row: 3.0,
        skins: vec![],
        frames: vec![(0..6).map(|i| (i * 10, [0, 0])).collect()],
    }
}
