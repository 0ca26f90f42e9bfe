//! The SL `mdl` and `.anim` pair: one test per validation rule (fixtures from the writers),
//! strided attribute views, influences, easing and sampling, truncation and mutation.

mod anim;
mod mesh;
mod sweep;
