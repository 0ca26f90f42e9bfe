//! skelmap-core: validated zero-copy views over classic game model files.
//!
//! A model file is memory-mapped (or read, or borrowed) as a [`Source`], recognised by its
//! magic bytes ([`Format::sniff`]), and validated **once**, in one linear pass, into a view
//! such as [`dpm::Dpm`]. The view borrows the bytes: opening allocates nothing proportional to
//! the vertices, and every accessor afterwards is infallible because validation has proven
//! every offset, count and index in range.
//!
//! ```
//! use skelmap_core::Parse;
//! use skelmap_core::{dpm::Dpm, synth, Diagnostics, Limits, SkeletalMesh};
//!
//! // Any &[u8] works: a memory map, a Vec, an embedded asset.
//! let bytes = synth::tube(&synth::TubeParams::default()).write()?;
//! let mut diag = Diagnostics::new();
//! let model = Dpm::parse_with(&bytes, &Limits::default(), &mut diag)?;
//! assert_eq!((model.num_bones(), model.num_frames()), (4, 9));
//! for mesh in model.meshes() {
//!     for influences in mesh.vertices() {
//!         let weight: f32 = influences.iter().map(|i| i.influence()).sum();
//!         assert!((weight - 1.0).abs() < 1e-5);
//!     }
//! }
//! # Ok::<(), skelmap_core::Error>(())
//! ```
//!
//! ## Safety contract
//!
//! - **Untrusted input never panics**, never reads out of bounds, never allocates from an
//!   unchecked count and never loops without a bound. A malformed file gives a typed
//!   [`Error`] naming the format, the structure and field, and the byte offset; exceeding a
//!   [`Limits`] bound gives [`Error::Limit`].
//! - **One function asks its caller for a promise**: [`Source::map`] (see its `# Safety`
//!   section): a mapped file that changes while mapped is undefined behaviour, and only the
//!   caller can rule that out. [`Source::read`] and [`Source::from_bytes`] are the checked
//!   alternatives. Besides it, only the `std::arch` SIMD modules (each `x86` module beside
//!   the portable code it speeds up: AVX2 and AVX-512 intrinsics behind run-time feature
//!   checks, each block justified) opt out of the compiler's checks.
//! - **Zero-copy**: opening allocates at most O(meshes): a small index of MS3D groups and
//!   joints and of GameStudio and Quake skins (each count capped by [`Limits`], 256 by
//!   default), the model's file list and one [`Diagnostics`] entry per kind of finding; never
//!   anything per vertex, triangle or frame. Copies are explicit, named operations.
//!
//! ## Formats
//!
//! | format | module | open + validate | write |
//! |---|---|---|---|
//! | DarkPlaces DPM | [`dpm`] | yes | [`dpm::Builder`] |
//! | Qfusion SKM + SKP | [`skm`] | yes (pairing, `.cfg` skeleton resolution, LODs) | [`skm::SkmBuilder`], [`skm::SkpBuilder`], [`skm::convert`] |
//! | GameStudio MDL3/4/5, HMP5/7 | [`gamestudio`] | yes (skins decoded to RGBA8; [`gamestudio::morph`]; terrain meshes) | [`gamestudio::MdlBuilder`], [`gamestudio::HmpBuilder`] |
//! | Quake MDL (`IDPO`), GameStudio MDL2 | [`quake`] | yes (skin and frame groups; [`quake::PALETTE`]; frames through the morph kernel) | [`quake::Builder`] |
//! | Quake III MD3 (`IDP3`) | [`md3`] | yes (surfaces, frames, tags; frames through the morph kernel) | [`md3::Builder`] (fixtures) |
//! | MilkShape MS3D | [`ms3d`] | yes (1.8 tail; animation in [`ms3d::anim`]) | [`ms3d::Builder`] |
//! | SL mdl / .anim | [`slmdl`] | yes (strided attributes; easing and sampling; skinned by [`skin::bind_dqs`]) | [`slmdl::MeshBuilder`], [`slmdl::AnimationBuilder`] |

#![deny(missing_docs)]
// Unsafe code lives in `source` (the memory map) and the `x86` modules (`std::arch` code), each
// allowing it at its top. `tests/integration/boundaries.rs` fails if any other file allows it.
#![deny(unsafe_code)]

pub mod alias;
pub mod asset;
pub mod bonevert;
mod diag;
pub mod dpm;
mod error;
mod floatbits;
pub mod format;
pub mod gamestudio;
pub mod gpu;
pub mod hl1;
pub mod iqm;
mod limits;
pub mod md2;
pub mod md3;
pub mod md4;
pub mod md5;
pub mod mdc;
pub mod mdl7;
pub mod mdm;
pub mod mdr;
pub mod model;
pub mod ms3d;
pub mod name;
mod parse;
pub mod pose;
pub mod psk;
pub mod quake;
mod read;
pub mod resolver;
mod rules;
pub mod scan;
mod simd;
pub mod skin;
pub mod skm;
pub mod slmdl;
pub mod source;
#[cfg(feature = "synth")]
pub mod synth;
pub mod text;
pub mod view;
pub mod write;
pub mod zym;

/// The maths crate whose types the animation APIs return (`Quat`, `Vec3`, `Affine3A`).
pub use glam;

pub use diag::{Diagnostics, Warning, WarningKind};
pub use error::{Error, Problem, Result};
pub use format::{Format, UnknownFormat};
pub use limits::Limits;
pub use model::Model;
pub use parse::Parse;
pub use pose::{Bone, MeshGeometry, SkeletalMesh, Skeleton};
pub use resolver::{FsResolver, Resolver};
pub use source::Source;
