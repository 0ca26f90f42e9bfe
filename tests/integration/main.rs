//! Integration tests of the public API, compiled as one test binary.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

/// The fuzz harness's deep walk of a validated view, shared with the fuzz targets.
#[path = "../../fuzz/src/exercise.rs"]
mod exercise;

/// The fuzz harness's near-valid file builder (the `structured` target), replayed by the seeds.
#[path = "../../fuzz/src/structured.rs"]
mod structured;

// One folder a format, as in skelmap-core.
mod dpm;
mod gamestudio;
mod ms3d;
mod quake;
mod skm;
mod slmdl;

// What several formats share: animation, the kernels, `Model`, recognition.
mod model;
mod pose;
mod probe;
mod skin;

// Malformed input, the fuzz seeds, and the house rules.
mod boundaries;
mod robustness;
mod seeds;
