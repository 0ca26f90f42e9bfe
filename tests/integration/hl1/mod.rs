//! Half-Life 1 MDL (`IDST` v10): one test per validation rule of `docs/formats/hl1.md`
//! (fixtures from `hl1::Builder`, exact errors and offsets), the run-length walk's bounds,
//! the truncation sweep, a reference whose poses and triangles the test computes from the
//! spec, the companions (the lower-case `t.mdl` included, and which files opening asks
//! for), the batch paths against the one-at-a-time accessors, the shared corpus against
//! assimp's oracle, and the writer (`Builder::from_asset`).

mod corpus;
mod reference;
mod rules;
mod view;
mod write;

use skelmap::hl1::{Builder, Hl1, SequenceDef};
use skelmap::{Error, Format, Limits, Problem};

fn err(bytes: &[u8]) -> Error {
    crate::support::parse_error::<Hl1>(bytes, &Limits::default())
}

/// `(format, what, offset, problem)` of an [`Error::Invalid`].
fn invalid(e: &Error) -> (Format, &'static str, u64, Problem) {
    crate::support::invalid_parts(e)
}

fn put_i32(b: &mut [u8], at: usize, v: i32) {
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

fn get_i32(b: &[u8], at: usize) -> i32 {
    i32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

/// The example written.
fn example() -> Vec<u8> {
    Builder::example().write().unwrap()
}

/// The example with both bones translated by −3e38 along x: each translation is finite, and
/// validation proves every channel finite, but bone 1's place in the default pose (−6e38)
/// is past `f32`, so its vertices' bind positions are not finite. A fixture for the `hl1`
/// fuzz target's first crash (2026-12-03), which took a translation of −1.7e38 and vertices
/// near it; the seed `regress-bind-overflow.mdl` is this file.
pub fn bind_overflow() -> Vec<u8> {
    let mut b = Builder::example();
    for bone in &mut b.bones {
        bone.value[0] = -3e38;
    }
    b.write().unwrap()
}

/// The example with its textures in a texture file and a third sequence, `far`, in
/// sequence group 1.
fn apart() -> Builder {
    let mut b = Builder::example();
    b.textures_apart = true;
    b.groups = vec!["extra".into()];
    b.sequences.push(SequenceDef {
        label: "far".into(),
        fps: 5.0,
        looping: true,
        group: 1,
        frames: vec![vec![[2, 0, 0, 0, 0, 0], [0; 6]]; 3],
    });
    b
}

/// The example with `bones` bones (at least 2; a chain from bone 1 on, the example's arm
/// first) in three sequences of 21, 3 and 1 frames: channel `j` of bone `i` animated where
/// `(i + j) % 3 != 0`, still otherwise; a controller turning bone 1 and one moving the last.
pub(crate) fn chain(bones: usize) -> Builder {
    use skelmap::hl1::{BoneDef, ControllerDef, raw};
    let mut b = Builder::example();
    let arm = b.bones[1].clone();
    b.bones.truncate(1);
    for i in 1..bones {
        b.bones.push(BoneDef {
            name: format!("bone{i}"),
            parent: i as i32 - 1,
            value: arm.value.map(|v| v + i as f32 * 0.125),
            ..arm.clone()
        });
    }
    let frame = |f: usize| -> Vec<[i16; 6]> {
        (0..bones)
            .map(|i| {
                std::array::from_fn(|j| {
                    if (i + j) % 3 == 0 {
                        0
                    } else {
                        // Runs of equal values and of changing ones both.
                        ((f / 2 * 7 + i * 3 + j) % 50) as i16 - 25
                    }
                })
            })
            .collect()
    };
    b.sequences = [("long", 21), ("short", 3), ("one", 1)]
        .into_iter()
        .map(|(label, n)| SequenceDef {
            label: label.into(),
            fps: 10.0,
            looping: true,
            group: 0,
            frames: (0..n).map(frame).collect(),
        })
        .collect();
    b.controllers = vec![
        ControllerDef {
            bone: 1,
            type_: raw::STUDIO_ZR,
            start: -90.0,
            end: 90.0,
            index: 0,
        },
        ControllerDef {
            bone: bones as i32 - 1,
            type_: raw::STUDIO_X,
            start: -2.0,
            end: 2.0,
            index: 2,
        },
    ];
    b
}
