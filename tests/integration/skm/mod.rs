//! SKM and SKP: one test per validation rule of `docs/formats/skm.md`, and the skeleton and level of
//! detail resolution.

mod resolve;
mod rules;
