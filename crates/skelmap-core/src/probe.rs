//! Recognising a format from its first bytes, and opening whatever a buffer holds.
//!
//! Detection is by magic bytes only, never by file name: a renamed file is still recognised,
//! and a file named `.dpm` that is something else is reported as unknown.

use core::fmt;

use crate::diag::Diagnostics;
use crate::dpm::Dpm;
use crate::error::Result;
use crate::gamestudio::{Hmp, Mdl};
use crate::limits::Limits;
use crate::ms3d::Ms3d;
use crate::skm::{Skm, Skp};
use crate::slmdl::SlMdl;

/// The file formats skelmap knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Format {
    /// DarkPlaces skeletal model (`DARKPLACESMODEL\0`, type 2, big-endian).
    Dpm,
    /// Qfusion/Warsow skeletal mesh (`SKM1`, type 2, little-endian).
    Skm,
    /// Qfusion/Warsow skeleton and animation (`SKM1` as well; told apart by header layout).
    Skp,
    /// MilkShape 3D model (`MS3D000000`, version 3 or 4, little-endian).
    Ms3d,
    /// 3D GameStudio model (`MDL3`, `MDL4`, `MDL5`; `MDL2` and `MDL7` are refused).
    Mdl,
    /// 3D GameStudio terrain (`HMP5`, `HMP7`; `HMP4` is refused).
    Hmp,
    /// The "SL" engine's mesh (`mdl\0`: interleaved vertices with a declared layout).
    SlMdl,
    /// The "SL" engine's `.anim` (no magic: opened explicitly, never sniffed).
    SlAnim,
}

impl Format {
    /// Every format, in probe order.
    pub const ALL: &'static [Format] = &[
        Format::Dpm,
        Format::Skm,
        Format::Skp,
        Format::Ms3d,
        Format::Mdl,
        Format::Hmp,
        Format::SlMdl,
        Format::SlAnim,
    ];

    /// Recognises the format of `data` from its magic bytes.
    ///
    /// ```
    /// use skelmap_core::Format;
    /// assert_eq!(Format::sniff(b"DARKPLACESMODEL\0\0\0\0\x02"), Some(Format::Dpm));
    /// assert_eq!(Format::sniff(b"not a model"), None);
    /// ```
    #[must_use]
    pub fn sniff(data: &[u8]) -> Option<Format> {
        let format = Format::ALL
            .iter()
            .copied()
            .find(|f| !f.magic().is_empty() && data.starts_with(f.magic()))?;
        // SKM and SKP share their magic; the header layout tells them apart.
        if format == Format::Skm && crate::skm::looks_like_skp(data) {
            return Some(Format::Skp);
        }
        Some(format)
    }

    /// The magic bytes a file of this format starts with: empty for `.anim`, which has none;
    /// for MDL and HMP the prefix every version shares (`MDL`, `HMP`), so that the versions
    /// skelmap does not read are still recognised and refused by name.
    #[must_use]
    pub fn magic(self) -> &'static [u8] {
        match self {
            Format::Dpm => crate::dpm::raw::DPM_MAGIC,
            Format::Skm | Format::Skp => crate::skm::raw::SKM_MAGIC,
            Format::Ms3d => crate::ms3d::raw::MS3D_MAGIC,
            Format::Mdl => b"MDL",
            Format::Hmp => b"HMP",
            Format::SlMdl => crate::slmdl::SLMDL_MAGIC,
            Format::SlAnim => &[],
        }
    }

    /// The short upper-case name used in messages (`"DPM"`).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Format::Dpm => "DPM",
            Format::Skm => "SKM",
            Format::Skp => "SKP",
            Format::Ms3d => "MS3D",
            Format::Mdl => "MDL",
            Format::Hmp => "HMP",
            Format::SlMdl => "SL mdl",
            Format::SlAnim => "SL anim",
        }
    }

    /// The usual file extension, without the dot.
    #[must_use]
    pub fn extension(self) -> &'static str {
        match self {
            Format::Dpm => "dpm",
            Format::Skm => "skm",
            Format::Skp => "skp",
            Format::Ms3d => "ms3d",
            Format::Mdl => "mdl",
            Format::Hmp => "hmp",
            Format::SlMdl => "mdl",
            Format::SlAnim => "anim",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

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

/// The error for data whose magic matches no known format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("unrecognised file: the first bytes match no supported format")]
pub struct UnknownFormat;

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
