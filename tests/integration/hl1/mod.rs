//! Half-Life 1 MDL (`IDST` v10): one test per validation rule of `docs/formats/hl1.md`
//! (fixtures from `hl1::Builder`, exact errors and offsets), the run-length walk's bounds,
//! the truncation sweep, a reference whose poses and triangles the test computes from the
//! spec, the companions (the lower-case `t.mdl` included, and which files opening asks
//! for), the batch paths against the one-at-a-time accessors and the shared corpus against
//! assimp's oracle.

mod corpus;
mod reference;
mod rules;
mod view;

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
