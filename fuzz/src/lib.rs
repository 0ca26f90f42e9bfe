//! Shared harness for the skelmap fuzz targets: each target opens its input and, when it
//! validates, walks everything the view exposes, asserting what validation promises.

pub mod exercise;

use skelmap_core::{dpm::Dpm, open_any};

/// The `dpm` target: DPM validation without the probe, then the deep walk.
pub fn dpm(data: &[u8]) {
    if let Ok(model) = Dpm::parse(data) {
        exercise::dpm(&model);
    }
}

/// The `probe_any` target: sniff, open whatever the bytes are, then the deep walk.
pub fn probe_any(data: &[u8]) {
    if let Ok(Some(model)) = open_any(data) {
        exercise::any(&model);
    }
}
