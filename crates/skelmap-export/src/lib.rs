//! skelmap-export: glTF 2.0, Wavefront OBJ and PNG previews of skelmap models.
//!
//! Export is a copy by nature, so it goes through one explicit step: [`Model::scene`] builds
//! a format-neutral [`Scene`] (meshes posed at one frame, the skeleton, materials with
//! decoded skins, animations), and the writers consume it:
//!
//! - [`gltf::write_glb`] / [`gltf::to_gltf`]: glTF 2.0 ([details](gltf));
//! - [`obj::write_obj`]: one posed frame as OBJ;
//! - [`render::render`] and [`render::contact_sheet`], then [`render::encode_png`]: a
//!   z-buffered, flat-shaded orthographic preview.
//!
//! ```
//! use skelmap_core::{dpm::Dpm, synth};
//! use skelmap_export::{Model, SceneOptions, gltf};
//!
//! let bytes = synth::tube(&synth::TubeParams::default()).write()?;
//! let model = Model::Dpm(Dpm::parse(&bytes)?);
//! let scene = model.scene(&SceneOptions::default())?;
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

use skelmap_core::dpm::Dpm;
use skelmap_core::gamestudio::{Hmp, Mdl};
use skelmap_core::ms3d::Ms3d;
use skelmap_core::skin::SkinError;
use skelmap_core::skin::morph::MorphError;
use skelmap_core::skm::{SkmModel, Skp};
use skelmap_core::slmdl::SlMdl;
use skelmap_core::{AnyModel, Format};

pub use build::SceneOptions;
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
    /// An SKM needs its SKP skeleton before it can be exported.
    #[error("an SKM on its own has no skeleton: pair it with its SKP first (skm::resolve)")]
    UnpairedSkm,
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
    #[error("bad image size {width}x{height}")]
    ImageSize {
        /// Width asked for.
        width: u32,
        /// Height asked for.
        height: u32,
    },
    /// A skinning kernel rejected a mesh (impossible for a validated model).
    #[error(transparent)]
    Skin(#[from] SkinError),
    /// A morph rejected a frame (impossible for a validated model).
    #[error(transparent)]
    Morph(#[from] MorphError),
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

/// A model that can be exported: every [`AnyModel`] except a lone SKM, which is replaced
/// by the SKM paired with its skeleton.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Model<'data> {
    /// A DarkPlaces model.
    Dpm(Dpm<'data>),
    /// A Qfusion mesh paired with its skeleton.
    Skm(SkmModel<'data>),
    /// A Qfusion skeleton on its own (joints and animations, no mesh).
    Skp(Skp<'data>),
    /// A MilkShape 3D model.
    Ms3d(Ms3d<'data>),
    /// A GameStudio model.
    Mdl(Mdl<'data>),
    /// A GameStudio terrain.
    Hmp(Hmp<'data>),
    /// An SL mesh.
    SlMdl(SlMdl<'data>),
}

impl Model<'_> {
    /// The model's format.
    #[must_use]
    pub fn format(&self) -> Format {
        match self {
            Model::Dpm(_) => Format::Dpm,
            Model::Skm(_) => Format::Skm,
            Model::Skp(_) => Format::Skp,
            Model::Ms3d(_) => Format::Ms3d,
            Model::Mdl(_) => Format::Mdl,
            Model::Hmp(_) => Format::Hmp,
            Model::SlMdl(_) => Format::SlMdl,
        }
    }
}

impl<'data> TryFrom<AnyModel<'data>> for Model<'data> {
    type Error = Error;

    fn try_from(model: AnyModel<'data>) -> Result<Self> {
        Ok(match model {
            AnyModel::Dpm(m) => Model::Dpm(m),
            AnyModel::Skp(p) => Model::Skp(p),
            AnyModel::Ms3d(m) => Model::Ms3d(m),
            AnyModel::Mdl(m) => Model::Mdl(m),
            AnyModel::Hmp(h) => Model::Hmp(h),
            AnyModel::SlMdl(m) => Model::SlMdl(m),
            _ => return Err(Error::UnpairedSkm),
        })
    }
}

impl<'data> From<SkmModel<'data>> for Model<'data> {
    fn from(model: SkmModel<'data>) -> Self {
        Model::Skm(model)
    }
}
