//! The C ABI of skelmap: open, inspect, sample and skin classic game models from C and C++.
//!
//! The header `include/skelmap.h` is generated from this crate by cbindgen and committed;
//! `tests/header.rs` fails when it is stale. Build with `cargo build -p skelmap-capi
//! --release` and link `target/release/libskelmap_capi.so` (or `.a` with the system
//! libraries `rustc --print native-static-libs` lists).
//!
//! - [`model`]: open from a file (mapped or read) or from caller memory, free, counts.
//! - [`skeleton`]: bones, frames and frame groups, by index and by name.
//! - [`pose`]: frames sampled into bone transforms.
//! - [`local`]: local poses (a skeleton's parent-relative transforms) sampled from clips,
//!   changed bone by bone and by two-bone and aim IK, and turned into a pose.
//! - [`blend`]: local poses blended in layers with bone masks, additive layers, crossfade
//!   weights.
//! - [`sampler`]: a sampling context that keeps the frames it decoded for the next samples.
//! - [`attach`]: attachment points (attachment bones, joints, tags) and where a pose puts
//!   them.
//! - [`player`]: a Quake III player, its parts (and a weapon) each on a tag of the one below.
//! - [`mesh`]: triangles, texture coordinates, skinning and tweening into caller buffers
//!   with a byte stride, and the terrain grid.
//! - [`material`]: materials and submeshes, what a renderer binds before drawing.
//! - [`skin`]: skins a model embeds or names: kind, size, pixels, external file names.
//! - [`compact`]: a skeletal model folded once for the fastest skinning kernel.
//! - [`gpu`]: GPU skinning buffers (bind-pose vertices, joint indices, quantised weights)
//!   and each frame's palette, with their measured error.
//! - [`gpu_morph`]: GPU vertex-animation buffers: frames as the file packs them, for a
//!   vertex shader to unpack and tween.
//! - [`still`]: a model of one frame deformed once, then copied every frame.
//! - [`boundary`]: status codes, the thread-local last error, version and SIMD level.
//!
//! This crate is one of the three places skelmap uses `unsafe` (with the file mapping and the
//! SIMD kernels of skelmap-core): every export takes raw pointers from C. Each `unsafe` block
//! states why it holds in a `// SAFETY:` comment, and every export runs its body behind a
//! panic boundary that turns a panic into `SKELMAP_STATUS_PANIC`.

#![allow(unsafe_code)]
#![deny(
    unsafe_op_in_unsafe_fn,
    clippy::undocumented_unsafe_blocks,
    missing_docs
)]

pub mod attach;
pub mod blend;
pub mod boundary;
pub mod compact;
pub mod gpu;
pub mod gpu_morph;
pub mod local;
pub mod material;
pub mod mesh;
pub mod model;
pub mod player;
pub mod pose;
pub mod sampler;
pub mod skeleton;
pub mod skin;
pub mod still;

pub use attach::SkelmapAttachment;
pub use blend::{SkelmapBlender, SkelmapLayer};
pub use boundary::SkelmapStatus;
pub use compact::{SkelmapCompact, SkelmapCompactInfo};
pub use gpu::{
    SkelmapGpuBuffer, SkelmapGpuError, SkelmapGpuMesh, SkelmapGpuMeshInfo, SkelmapGpuOptions,
};
pub use gpu_morph::{SkelmapGpuMorph, SkelmapGpuMorphBuffer, SkelmapGpuMorphInfo};
pub use local::{SkelmapAimIk, SkelmapLocalPose, SkelmapTwoBoneIk};
pub use material::{SkelmapMaterial, SkelmapSubmesh};
pub use mesh::{SkelmapMeshInfo, SkelmapTerrainGrid};
pub use model::{SkelmapCounts, SkelmapFormat, SkelmapModel};
pub use player::SkelmapPlayer;
pub use pose::SkelmapPose;
pub use sampler::SkelmapSampler;
pub use skeleton::{SkelmapBone, SkelmapFrameGroup};
pub use skin::{SkelmapPixelFormat, SkelmapSkinInfo};
pub use still::SkelmapStaticMesh;

// The header promises that a model and a compact model may be read from several threads at
// once and that a pose, a local pose and a blender may move between threads.
const _: () = {
    const fn thread_safe<T: Send + Sync>() {}
    thread_safe::<SkelmapModel>();
    thread_safe::<SkelmapPose>();
    thread_safe::<SkelmapLocalPose>();
    thread_safe::<SkelmapBlender>();
    thread_safe::<SkelmapCompact>();
    thread_safe::<SkelmapGpuMesh>();
};
