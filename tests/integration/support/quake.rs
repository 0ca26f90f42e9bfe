//! Quake MDL fixtures shared beyond the format's own tests (the fuzz seeds): one pose of the
//! triangle, and a model with a skin group and a frame group.

use skelmap::quake;
use skelmap::quake::write::{FrameDef, FrameEntry, SkinDef};

pub fn pose(name: &str, lift: u8) -> FrameDef {
    FrameDef {
        name: name.into(),
        vertices: vec![([0, 0, lift], 1), ([2, 0, lift], 2), ([0, 2, lift], 3)],
    }
}

/// A Quake MDL with a 2-image skin group and, after a single frame, a 3-pose frame group.
pub fn grouped() -> quake::Builder {
    quake::Builder {
        skins: vec![
            SkinDef::Single {
                code: 0,
                texels: vec![1; 64],
            },
            SkinDef::Group {
                intervals: vec![0.25, 0.5],
                images: vec![vec![2; 64], vec![3; 64]],
            },
        ],
        frames: vec![
            FrameEntry::Single(pose("stand1", 0)),
            FrameEntry::Group {
                intervals: vec![0.1, 0.2, 0.3],
                frames: vec![pose("fly1", 1), pose("fly2", 2), pose("fly3", 3)],
            },
        ],
        ..quake::Builder::triangle()
    }
}
