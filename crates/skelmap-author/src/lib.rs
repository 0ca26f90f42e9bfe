//! skelmap-author: models coming in and made ready to save, on skelmap's format-neutral
//! [`Asset`](skelmap_core::asset::Asset).
//!
//! - [`gltf`]: glTF 2.0 (`.gltf` with its buffers and images, and `.glb`) read into an asset;
//! - [`optimize`]: what a saver should do before writing: unused bones, vertices and
//!   influences dropped, duplicate vertices merged, triangles and vertices ordered for the
//!   GPU's caches;
//! - [`texture`]: the texture files a model names, found beside it or in other folders as
//!   the engines look them up, and decoded into the asset.
//!
//! Each format's writer (`from_asset` in its `write.rs` in skelmap-core) then turns the asset
//! into a file.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod gltf;
pub mod optimize;
pub mod texture;
