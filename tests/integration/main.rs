//! Integration tests of the public API, compiled as one test binary.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

// The fuzz harness, shared with the fuzz targets through skelmap-testkit: the deep walk of a
// validated view (`crate::exercise`), and the near-valid file builder of the `structured`
// target, replayed by the seeds (`crate::structured`).
use skelmap_testkit::{exercise, structured};

// One folder a format, as in skelmap-core.
mod dpm;
mod gamestudio;
mod hl1;
mod iqm;
mod md2;
mod md3;
mod md5;
mod mdc;
mod mdl7;
mod mdm;
mod mdr;
mod ms3d;
mod psk;
mod quake;
mod skm;
mod slmdl;
mod zym;

// What several formats share: animation, the kernels, `Model`, recognition.
mod asset;
mod gpu;
mod model;
mod pose;
mod probe;
mod skin;

// Malformed input, the fuzz seeds, and the house rules.
mod boundaries;
mod formats;
mod robustness;
mod seeds;
