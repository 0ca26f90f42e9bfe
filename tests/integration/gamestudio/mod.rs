//! GameStudio MDL3/4/5 and HMP5/7: the corpus against MANIFEST.md and the assimp oracle, one
//! test per validation rule of `docs/formats/{mdl,hmp}.md` (fixtures from the builders), skin
//! decoding, the morph kernels and terrain meshes.

mod corpus;
mod hmp_rules;
mod mdl_rules;
mod morph;
mod skins;
mod sweep;

use skelmap::Parse;
use skelmap::gamestudio::{Hmp, Mdl};
use skelmap::{Error, Format};

fn mdl_err(b: &[u8]) -> Error {
    let e = Mdl::parse(b).map(|_| ()).expect_err("broken MDL accepted");
    assert_eq!(e.format(), Some(Format::Mdl), "{e}");
    e
}

fn hmp_err(b: &[u8]) -> Error {
    let e = Hmp::parse(b).map(|_| ()).expect_err("broken HMP accepted");
    assert_eq!(e.format(), Some(Format::Hmp), "{e}");
    e
}

fn put_i32(b: &mut [u8], at: usize, v: i32) {
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}
