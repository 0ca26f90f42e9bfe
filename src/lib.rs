//! skelmap: zero-copy, validated views of classic game model files, and the kernels that
//! animate them.
//!
//! This facade re-exports [`skelmap_core`] (as [`core`] and at the top level) and, with the
//! `export` feature, `skelmap_export` as `export`.
//! See the README for the support table and the safety contract.
//!
//! ```
//! use skelmap::Parse;
//! use skelmap::{dpm::Dpm, synth};
//!
//! let bytes = synth::tube(&synth::TubeParams::default()).write()?;
//! let model = Dpm::parse(&bytes)?;
//! println!("{} bones, {} frames", model.num_bones(), model.num_frames());
//! # Ok::<(), skelmap::Error>(())
//! ```

#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub use skelmap_core as core;
pub use skelmap_core::*;

/// glTF 2.0, OBJ and PNG export ([`skelmap_export`]), with the `export` feature.
#[cfg(feature = "export")]
pub use skelmap_export as export;

/// The README's examples, compiled and run as doctests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
