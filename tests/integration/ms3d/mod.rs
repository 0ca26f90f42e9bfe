//! MS3D: the corpus against MANIFEST.md and the assimp oracle, one test per validation rule of
//! `docs/formats/ms3d.md` (fixtures from `ms3d::Builder`), the optional tail, weights and animation.

mod animation;
mod corpus;
mod rules;
mod sweep;

use skelmap::Parse;
use skelmap::ms3d::{self, Ms3d};
use skelmap::{Diagnostics, Error, Format, Limits};

fn err(b: &ms3d::Builder) -> Error {
    let bytes = b.write().unwrap();
    let e = Ms3d::parse(&bytes)
        .map(|_| ())
        .expect_err("broken MS3D accepted");
    assert_eq!(e.format(), Some(Format::Ms3d), "{e}");
    e
}

fn warnings(b: &ms3d::Builder) -> Diagnostics {
    let mut diag = Diagnostics::new();
    Ms3d::parse_with(&b.write().unwrap(), &Limits::default(), &mut diag)
        .expect("a warning must not reject the file");
    diag
}
