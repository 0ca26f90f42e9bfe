//! DPM: one test per validation rule and per tolerated oddity of `docs/formats/dpm.md`, accessor
//! round trips, the corpus against MANIFEST.md, and meshes of one influence a vertex (with
//! their SKM conversion, which stores the same records little-endian).

mod accessors;
mod corpus;
mod one_influence;
mod rules;
mod warnings;
