//! The one error type every fallible operation returns.
//!
//! Every variant that comes from file contents names the [`Format`], the structure and field
//! (`what`, written `structure.field`, e.g. `"mesh.ofs_texcoords"`) and the byte offset of the
//! offending field or record, so that a malformed file can be located with a hex editor.
//! Denial-of-service limits have their own variant, [`Error::Limit`], distinct from
//! malformation ([`Error::Invalid`], [`Error::Truncated`]) and from features we do not read
//! ([`Error::Unsupported`]).

use std::path::PathBuf;

use crate::format::Format;

/// Result alias used throughout skelmap.
pub type Result<T, E = Error> = core::result::Result<T, E>;

/// Everything that can go wrong while opening, validating or writing a model.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A structure extends past the end of the data (or past the size the file declares).
    #[error("{format}: truncated {what} at offset {offset}: need {need} bytes, have {have}")]
    Truncated {
        /// The format being read.
        format: Format,
        /// The structure or field that does not fit (`structure.field`).
        what: &'static str,
        /// Byte offset where the structure starts.
        offset: u64,
        /// Bytes the structure needs from `offset` (saturated at `u64::MAX` on overflow).
        need: u64,
        /// Bytes available from `offset` (0 when `offset` itself is past the end).
        have: u64,
    },
    /// The file does not start with the magic bytes of the format it was opened as.
    #[error("{format}: bad magic at offset 0: expected {expected}")]
    BadMagic {
        /// The format the caller asked for.
        format: Format,
        /// The expected magic, printable.
        expected: &'static str,
    },
    /// The magic matches but the header layout is that of a sibling format (an SKP skeleton
    /// opened as an SKM mesh file, or the reverse: both start with `SKM1`).
    #[error("{expected}: the header layout is that of an {found} file, not an {expected} file")]
    WrongFormat {
        /// The format the caller asked for.
        expected: Format,
        /// The format the header layout shows.
        found: Format,
    },
    /// The first bytes match no format skelmap knows (and the file name gives no hint).
    #[error("unrecognised file: the first bytes match no supported format")]
    UnknownFormat,
    /// A companion file (skeleton, LOD, config) could not be found or its path is refused.
    #[error("cannot resolve {path}: {detail}")]
    Resolve {
        /// The path as the model or config names it.
        path: String,
        /// Why it cannot be used.
        detail: String,
    },
    /// A well-formed feature or version of the format that skelmap does not read.
    #[error("{format}: unsupported {what} at offset {offset}: {detail}")]
    Unsupported {
        /// The format being read.
        format: Format,
        /// The field that selects the unsupported feature.
        what: &'static str,
        /// Byte offset of that field.
        offset: u64,
        /// What was found.
        detail: String,
    },
    /// A field holds a value the format does not allow (bad index, count, parent, NaN, ...).
    #[error("{format}: invalid {what} at offset {offset}: {detail}")]
    Invalid {
        /// The format being read.
        format: Format,
        /// The offending field (`structure.field`).
        what: &'static str,
        /// Byte offset of the offending field or record.
        offset: u64,
        /// What is wrong with it.
        detail: String,
    },
    /// A count exceeds a configured [`Limits`](crate::Limits) bound (denial-of-service guard).
    #[error("{format}: {what} at offset {offset} is {value}, over the limit of {max}")]
    Limit {
        /// The format being read.
        format: Format,
        /// The limited quantity (`structure.field` or a derived total).
        what: &'static str,
        /// Byte offset of the field (or of the record that pushed a total over).
        offset: u64,
        /// The value found.
        value: u64,
        /// The configured maximum.
        max: u64,
    },
    /// Reading or mapping a file failed.
    #[error("cannot read {path}: {source}", path = path.display())]
    Io {
        /// The file concerned.
        path: PathBuf,
        /// The operating-system error.
        #[source]
        source: std::io::Error,
    },
    /// Writing a model failed because a value does not fit the on-disk field.
    #[error("{format}: cannot write {what}: {detail}")]
    Write {
        /// The format being written.
        format: Format,
        /// The field that cannot hold the value.
        what: &'static str,
        /// Why.
        detail: String,
    },
}

impl Error {
    /// The format the error concerns, if it comes from file contents.
    #[must_use]
    pub fn format(&self) -> Option<Format> {
        match self {
            Error::Truncated { format, .. }
            | Error::BadMagic { format, .. }
            | Error::Unsupported { format, .. }
            | Error::Invalid { format, .. }
            | Error::Limit { format, .. }
            | Error::Write { format, .. } => Some(*format),
            Error::WrongFormat { expected, .. } => Some(*expected),
            Error::Io { .. } | Error::Resolve { .. } | Error::UnknownFormat => None,
        }
    }

    /// The byte offset the error points at, if it comes from file contents.
    #[must_use]
    pub fn offset(&self) -> Option<u64> {
        match self {
            Error::Truncated { offset, .. }
            | Error::Unsupported { offset, .. }
            | Error::Invalid { offset, .. }
            | Error::Limit { offset, .. } => Some(*offset),
            Error::BadMagic { .. } | Error::WrongFormat { .. } => Some(0),
            Error::Io { .. }
            | Error::Write { .. }
            | Error::Resolve { .. }
            | Error::UnknownFormat => None,
        }
    }

    /// The structure/field the error names (`structure.field`), if any.
    #[must_use]
    pub fn what(&self) -> Option<&'static str> {
        match self {
            Error::Truncated { what, .. }
            | Error::Unsupported { what, .. }
            | Error::Invalid { what, .. }
            | Error::Limit { what, .. }
            | Error::Write { what, .. } => Some(what),
            Error::BadMagic { .. } => Some("header.id"),
            Error::WrongFormat { .. } => Some("header"),
            Error::Io { .. } | Error::Resolve { .. } | Error::UnknownFormat => None,
        }
    }

    /// `true` for [`Error::Limit`]: the file may be fine but exceeds configured bounds.
    #[must_use]
    pub fn is_limit(&self) -> bool {
        matches!(self, Error::Limit { .. })
    }
}
