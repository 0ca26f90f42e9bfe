//! Integration tests of the public API, compiled as one test binary.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

mod dpm_accessors;
mod dpm_corpus;
mod dpm_rules;
mod dpm_warnings;
mod probe;
mod robustness;
mod seeds;
