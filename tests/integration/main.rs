//! Integration tests of the public API, compiled as one test binary.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

/// The fuzz harness's deep walk of a validated view, shared with the fuzz targets.
#[path = "../../fuzz/src/exercise.rs"]
mod exercise;

/// The fuzz harness's near-valid file builder (the `structured` target), replayed by the seeds.
#[path = "../../fuzz/src/structured.rs"]
mod structured;

mod anim;
mod bindpose;
mod boundaries;
mod compact;
mod dpm_accessors;
mod dpm_corpus;
mod dpm_rules;
mod dpm_warnings;
mod gamestudio;
mod kernels;
mod model;
mod ms3d;
mod one_influence;
mod probe;
mod quake;
mod robustness;
mod seeds;
mod skm_resolve;
mod skm_rules;
mod slmdl;
