//! The one entry point every format's view shares: [`Parse`].

use crate::diag::Diagnostics;
use crate::error::Result;
use crate::format::Format;
use crate::limits::Limits;

/// A format's validated view, made from bytes by one linear pass. Implemented by every
/// format's view (each format folder's `validate.rs`: [`Dpm`](crate::dpm::Dpm),
/// [`Iqm`](crate::iqm::Iqm), [`md5::MeshFile`](crate::md5::MeshFile),
/// [`Hl1`](crate::hl1::Hl1), [`Md3`](crate::md3::Md3), [`Psk`](crate::psk::Psk) and the
/// others); [`Model`](crate::Model) opens any of them with the files it finds beside it.
///
/// ```
/// use skelmap_core::{Diagnostics, Limits, Parse, dpm::Dpm, synth};
/// let bytes = synth::tube(&synth::TubeParams::default()).write()?;
/// let model = Dpm::parse(&bytes)?; // default limits, warnings discarded
/// let mut diag = Diagnostics::new();
/// let same = Dpm::parse_with(&bytes, &Limits { max_bones: 8, ..Limits::DEFAULT }, &mut diag)?;
/// assert_eq!(model.num_bones(), same.num_bones());
/// # Ok::<(), skelmap_core::Error>(())
/// ```
pub trait Parse<'data>: Sized {
    /// The format the view reads.
    const FORMAT: Format;

    /// Validates `data` under `limits`, recording non-fatal findings in `diag`. Every
    /// implementation starts with the checks all formats share
    /// ([`Limits::max_file_size`], the magic).
    ///
    /// # Errors
    ///
    /// Any violation of the format's rules, as a typed [`Error`](crate::Error) naming the
    /// structure, field and byte offset; [`Error::Limit`](crate::Error::Limit) when a count
    /// exceeds `limits`.
    fn parse_with(data: &'data [u8], limits: &Limits, diag: &mut Diagnostics) -> Result<Self>;

    /// Validates `data` with [`Limits::DEFAULT`], discarding warnings.
    ///
    /// # Errors
    ///
    /// As [`Parse::parse_with`].
    fn parse(data: &'data [u8]) -> Result<Self> {
        Self::parse_with(data, &Limits::DEFAULT, &mut Diagnostics::new())
    }
}
