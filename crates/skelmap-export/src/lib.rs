//! skelmap-export: glTF 2.0, Wavefront OBJ and PNG previews of skelmap models.
//!
//! Export is a copy by nature, so it goes through one explicit step:
//! [`Model::to_asset`](skelmap_core::Model::to_asset) builds a format-neutral
//! [`Asset`](skelmap_core::asset::Asset) (meshes posed at one frame, the skeleton, materials
//! with decoded skins, animations), and the writers consume it, whichever reader made it:
//!
//! - [`gltf::write_glb`] / [`gltf::to_gltf`]: glTF 2.0 ([details](gltf));
//! - [`obj::write`]: one posed frame as OBJ, with [`obj::write_with`] and
//!   [`obj::write_mtl`] its materials as a `.mtl`;
//! - [`render::render`] and [`render::contact_sheet`], then [`render::encode_png`]: a
//!   z-buffered, flat-shaded orthographic preview.
//!
//! ```
//! use skelmap_core::{Model, asset, synth};
//! use skelmap_export::gltf;
//!
//! let bytes = synth::tube(&synth::TubeParams::default()).write()?;
//! let model = Model::from_bytes(&bytes)?;
//! let asset = model.to_asset(&asset::Options::default())?;
//! assert_eq!((asset.num_vertices(), asset.clips.len()), (136, 2));
//!
//! let mut glb = Vec::new();
//! gltf::write_glb(&asset, &gltf::Options::default(), &mut glb)?;
//! assert_eq!(&glb[..4], b"glTF");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod gltf;
pub mod obj;
pub mod render;

use skelmap_core::asset;

/// What can go wrong while exporting.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Building the asset failed (a frame the model lacks, too many joints or keys).
    #[error(transparent)]
    Asset(#[from] asset::Error),
    /// A part of an assembly could not be posed in a frame it plays.
    #[error(transparent)]
    Deform(#[from] skelmap_core::view::DeformError),
    /// The writer needs triangles and the asset has none (an SKP skeleton, for instance).
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
