//! Opening whatever a buffer holds, by its magic bytes ([`Format::sniff`]).

use crate::diag::Diagnostics;
use crate::dpm::Dpm;
use crate::error::Result;
use crate::format::Format;
use crate::gamestudio::{Hmp, Mdl};
use crate::limits::Limits;
use crate::ms3d::Ms3d;
use crate::skm::{Skm, Skp};
use crate::slmdl::SlMdl;

/// A validated view of any supported format.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum AnyModel<'data> {
    /// A DarkPlaces model.
    Dpm(Dpm<'data>),
    /// A Qfusion mesh file on its own (not yet paired with its skeleton).
    Skm(Skm<'data>),
    /// A Qfusion skeleton file.
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

impl AnyModel<'_> {
    /// The format of the model.
    #[must_use]
    pub fn format(&self) -> Format {
        match self {
            AnyModel::Dpm(_) => Format::Dpm,
            AnyModel::Skm(_) => Format::Skm,
            AnyModel::Skp(_) => Format::Skp,
            AnyModel::Ms3d(_) => Format::Ms3d,
            AnyModel::Mdl(_) => Format::Mdl,
            AnyModel::Hmp(_) => Format::Hmp,
            AnyModel::SlMdl(_) => Format::SlMdl,
        }
    }
}

/// Sniffs `data` and validates it as the format found, with default limits.
///
/// Returns `Ok(None)` when no format matches.
///
/// ```
/// let bytes = skelmap_core::synth::tube(&skelmap_core::synth::TubeParams::default())
///     .write()?;
/// let model = skelmap_core::open_any(&bytes)?.expect("a DPM");
/// assert_eq!(model.format(), skelmap_core::Format::Dpm);
/// # Ok::<(), skelmap_core::Error>(())
/// ```
pub fn open_any(data: &[u8]) -> Result<Option<AnyModel<'_>>> {
    open_any_with(data, &Limits::DEFAULT, &mut Diagnostics::new())
}

/// [`open_any`] with explicit limits, recording non-fatal findings in `diag`.
pub fn open_any_with<'data>(
    data: &'data [u8],
    limits: &Limits,
    diag: &mut Diagnostics,
) -> Result<Option<AnyModel<'data>>> {
    match Format::sniff(data) {
        Some(Format::Dpm) => Dpm::parse_with(data, limits, diag).map(|m| Some(AnyModel::Dpm(m))),
        Some(Format::Skm) => Skm::parse_with(data, limits, diag).map(|m| Some(AnyModel::Skm(m))),
        Some(Format::Skp) => Skp::parse_with(data, limits, diag).map(|m| Some(AnyModel::Skp(m))),
        Some(Format::Ms3d) => Ms3d::parse_with(data, limits, diag).map(|m| Some(AnyModel::Ms3d(m))),
        Some(Format::Mdl) => Mdl::parse_with(data, limits, diag).map(|m| Some(AnyModel::Mdl(m))),
        Some(Format::Hmp) => Hmp::parse_with(data, limits, diag).map(|m| Some(AnyModel::Hmp(m))),
        Some(Format::SlMdl) => {
            SlMdl::parse_with(data, limits, diag).map(|m| Some(AnyModel::SlMdl(m)))
        }
        // `.anim` has no magic, so sniffing never finds it.
        Some(Format::SlAnim) | None => Ok(None),
    }
}
