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
//! - **Zero-copy**: opening allocates at most O(meshes): small indexes whose counts
//!   [`Limits`] caps (MS3D groups and joints, GameStudio and Quake skins, a ZYM's run of
//!   triangles per shader, a PSK's face count per material, Half-Life's mesh, sequence and
//!   skin tables), the model's file list and one [`Diagnostics`] entry per kind of finding;
//!   never anything per vertex, triangle or frame of a binary format. MD5, a text format,
//!   decodes once, at open, into one block sized by its checked counts. Copies are explicit,
//!   named operations (`prepare`, `compact`, `BakedFrames`, `to_asset`), and tables a format
//!   needs only to animate or skin are made on first use (ARCHITECTURE.md, Invariants).
//!
//! ## Formats
//!
//! [`Model`] opens every format below from a path, a memory map or bytes, with the files the
//! format finds beside it ([`Format`] recognises a file by its first bytes), and gives the
//! same calls for all of them: bones, frames and clips, [`Model::pose`], [`Model::deform`],
//! [`Model::prepare`] and [`Model::compact`] for the SIMD kernels, [`Model::to_asset`] for a
//! format-neutral copy. [`model::write`] turns an [`asset::Asset`] into any format marked
//! written. Each module also offers its view on its own and a builder.
//!
//! | format | module | view | builder |
//! |---|---|---|---|
//! | DarkPlaces DPM | [`dpm`] | [`dpm::Dpm`] | [`dpm::Builder`] |
//! | Qfusion SKM + SKP | [`skm`] | [`skm::Pair`], [`skm::Skm`], [`skm::Skp`] | [`skm::SkmBuilder`], [`skm::SkpBuilder`] |
//! | DarkPlaces ZYM | [`zym`] | [`zym::Zym`] | [`zym::Builder`] |
//! | Inter-Quake IQM | [`iqm`] | [`iqm::Pair`], [`iqm::Iqm`] | [`iqm::Builder`] |
//! | Doom 3 MD5 (text) | [`md5`] | [`md5::Pair`] | [`md5::Builder`] |
//! | Half-Life 1 MDL | [`hl1`] | [`hl1::Pair`], [`hl1::Hl1`] | [`hl1::Builder`] |
//! | ioquake3 MDR | [`mdr`] | [`mdr::Mdr`] | [`mdr::Builder`] |
//! | Enemy Territory MDM + MDX | [`mdm`] | [`mdm::Pair`], [`mdm::Mdm`], [`mdm::Mdx`] | [`mdm::Builder`] |
//! | Unreal PSK + PSA | [`psk`] | [`psk::Pair`], [`psk::Psk`], [`psk::Psa`] | [`psk::Builder`] |
//! | GameStudio MDL7 | [`mdl7`] | [`mdl7::Mdl7`] | [`mdl7::Builder`] |
//! | MilkShape MS3D | [`ms3d`] | [`ms3d::Ms3d`] | [`ms3d::Builder`] |
//! | SL mdl + .anim | [`slmdl`] | [`slmdl::Pair`] | [`slmdl::MeshBuilder`], [`slmdl::AnimationBuilder`] |
//! | Quake III MD3 | [`md3`] | [`md3::Pair`], [`md3::Md3`] | [`md3::Builder`] |
//! | Quake II MD2 | [`md2`] | [`md2::Md2`] | [`md2::Builder`] |
//! | RtCW MDC | [`mdc`] | [`mdc::Mdc`] | [`mdc::Builder`] |
//! | Quake MDL (`IDPO`), GameStudio MDL2 | [`quake`] | [`quake::Mdl`] | [`quake::Builder`] |
//! | GameStudio MDL3/4/5, HMP5/7 | [`gamestudio`] | [`gamestudio::Mdl`], [`gamestudio::Hmp`] | [`gamestudio::MdlBuilder`], [`gamestudio::HmpBuilder`] |
//!
//! HMP terrains, SKP and MDX skeletons, PSA and SL animations and animation-only IQMs open but
//! are not written. Beside the formats: [`pose`] (sampling, palettes, blending, IK),
//! [`skin`] (the kernels), [`gpu`] (GPU skinning buffers with their measured error) and
//! [`scan`] (the SIMD passes validation runs).

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
