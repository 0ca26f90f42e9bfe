//! skelmap-export: glTF 2.0, Wavefront OBJ and PNG previews of skelmap models.
//!
//! Export is a copy by nature, so it goes through one explicit step: [`scene()`] builds a
//! format-neutral [`Scene`] from any [`Model`](skelmap_core::Model) (meshes posed at one frame, the skeleton, materials with
//! decoded skins, animations), and the writers consume it:
//!
//! - [`gltf::write_glb`] / [`gltf::to_gltf`]: glTF 2.0 ([details](gltf));
//! - [`obj::write_obj`]: one posed frame as OBJ, with [`obj::write_obj_with`] and
//!   [`obj::write_mtl`] its materials as a `.mtl`;
//! - [`render::render`] and [`render::contact_sheet`], then [`render::encode_png`]: a
//!   z-buffered, flat-shaded orthographic preview.
//!
//! ```
//! use skelmap_core::{Model, synth};
//! use skelmap_export::{SceneOptions, gltf};
//!
//! let bytes = synth::tube(&synth::TubeParams::default()).write()?;
//! let model = Model::from_bytes(&bytes)?;
//! let scene = skelmap_export::scene(&model, &SceneOptions::default())?;
//! assert_eq!((scene.num_vertices(), scene.clips.len()), (136, 2));
//!
//! let mut glb = Vec::new();
//! gltf::write_glb(&scene, &gltf::GltfOptions::default(), &mut glb)?;
//! assert_eq!(&glb[..4], b"glTF");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod build;
pub mod gltf;
pub mod obj;
pub mod render;
pub mod scene;

use skelmap_core::model::DeformError;

pub use build::{ClipTime, SceneOptions, scene};
pub use scene::Scene;

/// What can go wrong while exporting.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The requested frame does not exist.
    #[error("frame {frame} is out of range: the model has {frames} frames")]
    FrameOutOfRange {
        /// The frame asked for.
        frame: usize,
        /// How many the model has.
        frames: usize,
    },
    /// More joints than 16-bit joint indices can address.
    #[error("{joints} joints do not fit 16-bit glTF joint indices")]
    TooManyJoints {
        /// The number of joints.
        joints: usize,
    },
    /// The writer needs triangles and the scene has none (an SKP skeleton, for instance).
    #[error("the {format} model has no triangles to {what}")]
    NoGeometry {
        /// The format's name.
        format: &'static str,
        /// What was attempted.
        what: &'static str,
    },
    /// The output would exceed a size its container can describe, or an export limit.
    #[error("{what} is too large: {size} {unit}")]
    TooLarge {
        /// What overflowed.
        what: &'static str,
        /// Its size.
        size: u64,
        /// What `size` counts (`bytes`, `keys`).
        unit: &'static str,
    },
    /// A render size of zero or beyond [`render::MAX_PIXELS`].
    #[error(
        "an image of {width} × {height} pixels cannot be drawn: it must be at least 1 × 1 and \
         at most 16777216 pixels (4096 × 4096)"
    )]
    ImageSize {
        /// Width asked for.
        width: u32,
        /// Height asked for.
        height: u32,
    },
    /// A skinning or morph kernel rejected a mesh (impossible for a validated model).
    #[error(transparent)]
    Deform(#[from] DeformError),
    /// Encoding JSON or PNG failed.
    #[error("encoding {what} failed: {message}")]
    Encode {
        /// What was being encoded.
        what: &'static str,
        /// The encoder's message.
        message: String,
    },
    /// Writing the output failed.
    #[error("write failed: {0}")]
    Io(#[from] std::io::Error),
}

/// The result of an export.
pub type Result<T> = core::result::Result<T, Error>;
