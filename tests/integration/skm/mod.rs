//! SKM and SKP: one test per validation rule of FORMATS.md §3.5, and the skeleton and level of
//! detail resolution.

mod resolve;
mod rules;
