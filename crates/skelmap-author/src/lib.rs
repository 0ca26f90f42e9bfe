//! skelmap-author: models coming in and made ready to save, on skelmap's format-neutral
//! [`Asset`](skelmap_core::asset::Asset).
//!
//! - [`gltf`]: glTF 2.0 (`.gltf` with its buffers and images, and `.glb`) read into an asset;
//! - [`optimize`]: what a saver should do before writing: unused bones, vertices and
//!   influences dropped, duplicate vertices merged, triangles and vertices ordered for the
//!   GPU's caches;
//! - [`texture`]: the texture files a model names, found beside it or in other folders as
//!   the engines look them up, and decoded into the asset; and the skins a model embeds as
//!   DDS files (GameStudio's MDL7 and HMP7), which skelmap-core leaves to this crate's image
//!   decoder ([`texture::skin_image`], [`texture::decode_dds`]).
//!
//! `gltf` and `optimize` are behind the default features of the same names; without them the
//! crate is [`texture`] alone (the C ABI's dependency).
//!
//! Each format's writer (`from_asset` in its `write.rs` in skelmap-core) then turns the asset
//! into a file.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

#[cfg(feature = "gltf")]
pub mod gltf;
#[cfg(feature = "optimize")]
pub mod optimize;
pub mod texture;
