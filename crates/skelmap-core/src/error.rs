//! The one error type every fallible operation returns.
//!
//! Every variant that comes from file contents names the [`Format`], the structure and field
//! (`what`, written `structure.field`, e.g. `"mesh.ofs_texcoords"`) and the byte offset of the
//! offending field or record, so that a malformed file can be located with a hex editor.
//! Denial-of-service limits have their own variant, [`Error::Limit`], distinct from
//! malformation ([`Error::Invalid`], [`Error::Truncated`]) and from features we do not read
//! ([`Error::Unsupported`]).
//!
//! Building an error never allocates on the validation path: what is wrong is a [`Problem`], a
//! fixed message with the numbers it concerns, so a fuzzer or a loader facing hostile files
//! pays nothing for the text until it is displayed.

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
    /// The first bytes are those of a kind of file skelmap does not read but game folders
    /// hold beside their models: a sprite named `.mdl`, a map, a texture or file archive
    /// ([`format::other_kind`](crate::format::other_kind)).
    #[error("not a model: the first bytes are those of {kind}")]
    NotAModel {
        /// What the file is, in words, with its magic.
        kind: &'static str,
    },
    /// A companion file (skeleton, LOD, config) could not be found or its path is refused.
    #[error("cannot resolve {path}: {reason}")]
    Resolve {
        /// The path as the model or config names it.
        path: String,
        /// Why it cannot be used.
        reason: &'static str,
    },
    /// A well-formed feature or version of the format that skelmap does not read.
    #[error("{format}: unsupported {what} {value} at offset {offset}; {supported}")]
    Unsupported {
        /// The format being read.
        format: Format,
        /// The field that selects the unsupported feature.
        what: &'static str,
        /// Byte offset of that field.
        offset: u64,
        /// The value found (for a magic, the version digit: 7 for `MDL7`).
        value: i64,
        /// What skelmap does read there.
        supported: &'static str,
    },
    /// A field holds a value the format does not allow (bad index, count, parent, NaN, ...).
    #[error("{format}: invalid {what} at offset {offset}: {problem}")]
    Invalid {
        /// The format being read.
        format: Format,
        /// The offending field (`structure.field`).
        what: &'static str,
        /// Byte offset of the offending field or record.
        offset: u64,
        /// What is wrong with it.
        problem: Problem,
    },
    /// Text (an MD5 file) that breaks its grammar or holds a value the format does not allow,
    /// located by line and column (both from 1; the column counts bytes, a tab as one) as
    /// well as by byte offset.
    #[error("{format}: invalid {what} at line {line}, column {column}: {problem}")]
    Text {
        /// The format being read.
        format: Format,
        /// The section and field (`mesh.numverts`, `joints.parent`).
        what: &'static str,
        /// The line, from 1.
        line: u64,
        /// The column, from 1, in bytes.
        column: u64,
        /// Byte offset of the offending token (or of the end of the text).
        offset: u64,
        /// What is wrong with it.
        problem: Problem,
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
    #[error("{format}: cannot write {what}: {value} does not fit, the field holds at most {max}")]
    Write {
        /// The format being written.
        format: Format,
        /// The field that cannot hold the value.
        what: &'static str,
        /// The value (a count, an offset, a name's length in bytes).
        value: u64,
        /// The largest value the field holds.
        max: u64,
    },
}

/// What is wrong with a field an [`Error::Invalid`] names: a fixed message and the numbers it
/// concerns (the error's `offset` says where).
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Problem {
    /// A float is NaN or infinite.
    #[error("a value is NaN or infinite")]
    NotFinite,
    /// A count or size that must be at least 1 is 0 (a model without vertices, an animation
    /// without keyframes).
    #[error("is 0")]
    Empty,
    /// A code (an easing, a type) the format does not define.
    #[error("unknown code {code}")]
    UnknownCode {
        /// The code.
        code: i64,
    },
    /// A signed count, offset or size is negative.
    #[error("{value} is negative")]
    Negative {
        /// The value.
        value: i64,
    },
    /// A size or spacing that must be above 0 is not.
    #[error("{value} is not positive")]
    NotPositive {
        /// The value.
        value: f64,
    },
    /// An index names an entry past the end of its table.
    #[error("index {index} is out of range: there are {len}")]
    Index {
        /// The index.
        index: i64,
        /// Entries in the table.
        len: u64,
    },
    /// A bone's parent is neither -1 (a root) nor an earlier bone, so poses cannot be built in
    /// one forward pass.
    #[error("bone {bone} has parent {parent}; it must be -1 or an earlier bone")]
    Parent {
        /// The bone.
        bone: u64,
        /// Its parent.
        parent: i64,
    },
    /// A bone (joint) names itself as its parent.
    #[error("joint {bone} is its own parent")]
    OwnParent {
        /// The bone.
        bone: u64,
    },
    /// Following parents from a bone comes back to it.
    #[error("joint {bone} is part of a parent cycle")]
    ParentCycle {
        /// A bone on the cycle.
        bone: u64,
    },
    /// Two bones (joints) have the same name, so names cannot identify them.
    #[error("joint {bone} repeats the name of joint {first}")]
    DuplicateName {
        /// The later bone.
        bone: u64,
        /// The first bone with the name.
        first: u64,
    },
    /// A value must equal one another field (or the format) fixes.
    #[error("is {value} but must be {expected}")]
    Mismatch {
        /// The value found.
        value: u64,
        /// The value required.
        expected: u64,
    },
    /// A level of detail is weighted to a different number of bones than its base model.
    #[error("level of detail {lod} is weighted to {bones} bones, its base model to {expected}")]
    LevelOfDetail {
        /// The level, from 1.
        lod: u64,
        /// Bones the level is weighted to.
        bones: u64,
        /// Bones the base model is weighted to.
        expected: u64,
    },
    /// A value is below the smallest the format allows.
    #[error("{value} is below the minimum of {min}")]
    BelowMinimum {
        /// The value found.
        value: u64,
        /// The minimum.
        min: u64,
    },
    /// A value is above the largest the format (not a configured limit) allows.
    #[error("{value} is above the maximum of {max}")]
    AboveMaximum {
        /// The value found.
        value: u64,
        /// The maximum.
        max: u64,
    },
    /// A float that must hold a whole number does not.
    #[error("{value} is not a whole number")]
    NotWhole {
        /// The value.
        value: f64,
    },
    /// A time is earlier than the one before it.
    #[error("{value} comes before the previous {previous}")]
    Decreasing {
        /// The value.
        value: f64,
        /// The value before it.
        previous: f64,
    },
    /// The vertex count does not make whole rows of the grid's width.
    #[error("{value} vertices do not make at least 2 rows of {row}")]
    Rows {
        /// Vertices.
        value: u64,
        /// Vertices per row.
        row: u64,
    },
    /// A skin with mip levels whose pixel format or size cannot have them.
    #[error("mip levels need a 16-, 24- or 32-bit format and sides divisible by 8")]
    Mips,
    /// A name field without the NUL that must end it.
    #[error("the {len}-byte name has no NUL terminator")]
    Unterminated {
        /// The field's length in bytes.
        len: u64,
    },
    /// Blend weights outside `0..=1` or summing to more than 1.
    #[error("blend weights must each be in 0..=1 and sum to at most 1")]
    Weights,
    /// An attribute's size is not one its kind allows.
    #[error("{size} bytes is not a size the attribute's type allows")]
    AttributeSize {
        /// The size in bytes.
        size: u64,
    },
    /// One blend weight outside `0..=1` (an IQM's float weights).
    #[error("weight {value} is outside 0..=1")]
    Weight {
        /// The weight.
        value: f64,
    },
    /// An IQM pose whose parent differs from its joint's.
    #[error("pose {pose} has parent {parent} but its joint has parent {joint}")]
    PoseParent {
        /// The pose (and joint) index.
        pose: u64,
        /// The pose's parent (negative for a root).
        parent: i64,
        /// The joint's parent.
        joint: i64,
    },
    /// An animation none of whose bones matches a joint of the model it is played on, by
    /// name or (for unnamed bones) by count and parents.
    #[error(
        "none of the animation's {bones} bones matches one of the model's {joints} joints, by \
         name or by count and parents"
    )]
    Skeleton {
        /// The animation's bones.
        bones: u64,
        /// The model's joints.
        joints: u64,
    },
    /// A vertex has no bone influence.
    #[error("vertex has no bone influences")]
    NoInfluences,
    /// Bytes follow the last structure the header accounts for.
    #[error("{extra} bytes after the declared data")]
    TrailingBytes {
        /// Bytes left over.
        extra: u64,
    },
    /// A chain of structures, each found `ofs_end` after the one before, takes more bytes laid
    /// end to end than the file holds: it visits the same bytes again (an `ofs_end` of 0), so
    /// its count is not paid for by the file.
    #[error(
        "the structures take {bytes} bytes laid end to end, more than the file's {file}: \
         the chain visits the same bytes again"
    )]
    Revisited {
        /// The bytes of the structures so far, laid end to end.
        bytes: u64,
        /// The file's length.
        file: u64,
    },
    /// A line of a text file does not have the fields it needs.
    #[error("line {line} has {fields} fields; {expected} expected")]
    Fields {
        /// The line, from 1.
        line: u64,
        /// Fields found.
        fields: u64,
        /// Fields required.
        expected: u64,
    },
    /// A field of a text line does not hold a value it may: not a number of the right kind,
    /// or out of its range.
    #[error("line {line}, field {field} is not valid")]
    Field {
        /// The line, from 1.
        line: u64,
        /// The field, from 1.
        field: u64,
    },
    /// A command of a list of commands (an MD2's GL strips and fans) has more vertices than
    /// the list has words left for.
    #[error("the command needs {need} words; {left} are left in the list")]
    CommandOverrun {
        /// Words the command's vertices take.
        need: u64,
        /// Words left in the list after its count.
        left: u64,
    },
    /// A list of commands ends without the 0 that must end it.
    #[error("the {words}-word command list ends without its terminating 0")]
    NoTerminator {
        /// Words in the list.
        words: u64,
    },
    /// A text file ends before all the entries it must list (an `animation.cfg` of fewer
    /// animations than the game reads).
    #[error("the text ends at line {line} after {found} entries; {expected} needed")]
    Entries {
        /// The last line, from 1.
        line: u64,
        /// Entries found.
        found: u64,
        /// Entries required.
        expected: u64,
    },
    /// A text file holds something else (or nothing more) where its grammar needs a token.
    #[error("expected {expected}")]
    Expected {
        /// What the grammar needs there.
        expected: &'static str,
    },
    /// A quoted string of a text file has no closing quote on its line.
    #[error("the quoted string has no closing quote on its line")]
    UnterminatedString,
    /// A `/*` comment of a text file is never closed.
    #[error("the comment is never closed")]
    UnterminatedComment,
    /// A token of a text file that must be a number (of the field's kind) is not one.
    #[error("is not a number of the kind the field holds")]
    Number,
    /// A section of a text file lists fewer entries than its count declares.
    #[error("declares {declared} entries, but {found} follow")]
    FewerThanDeclared {
        /// The count the text declares.
        declared: u64,
        /// Entries found.
        found: u64,
    },
    /// A section of a text file lists more entries than its count declares.
    #[error("declares {declared} entries, but more follow")]
    MoreThanDeclared {
        /// The count the text declares.
        declared: u64,
    },
    /// A joint of an animation differs from the model's joint of that index (its name or its
    /// parent).
    #[error("joint {joint} differs from the model's joint {joint} in name or parent")]
    JointMismatch {
        /// The joint.
        joint: u64,
    },
    /// A name in a text file is longer than the game keeps.
    #[error("line {line} names {len} bytes; at most {max}")]
    NameLength {
        /// The line, from 1.
        line: u64,
        /// The name's length in bytes.
        len: u64,
        /// The longest the game keeps.
        max: u64,
    },
    /// A chunk the file needs is not in it (PSK, PSA).
    #[error("the file has no {chunk} chunk")]
    MissingChunk {
        /// The chunk's name.
        chunk: &'static str,
    },
    /// A chunk appears a second time (PSK, PSA).
    #[error("repeats the chunk at offset {first}")]
    RepeatedChunk {
        /// Offset of the first one.
        first: u64,
    },
}

impl Error {
    /// The error for `data` that no format recognises: [`Error::NotAModel`] where its first
    /// bytes name another kind of game file, else [`Error::UnknownFormat`].
    pub(crate) fn unrecognised(data: &[u8]) -> Error {
        crate::format::other_kind(data)
            .map_or(Error::UnknownFormat, |kind| Error::NotAModel { kind })
    }

    /// The format the error concerns, if it comes from file contents.
    #[must_use]
    pub fn format(&self) -> Option<Format> {
        match self {
            Error::Truncated { format, .. }
            | Error::BadMagic { format, .. }
            | Error::Unsupported { format, .. }
            | Error::Invalid { format, .. }
            | Error::Text { format, .. }
            | Error::Limit { format, .. }
            | Error::Write { format, .. } => Some(*format),
            Error::WrongFormat { expected, .. } => Some(*expected),
            Error::Io { .. }
            | Error::Resolve { .. }
            | Error::UnknownFormat
            | Error::NotAModel { .. } => None,
        }
    }

    /// The byte offset the error points at, if it comes from file contents.
    #[must_use]
    pub fn offset(&self) -> Option<u64> {
        match self {
            Error::Truncated { offset, .. }
            | Error::Unsupported { offset, .. }
            | Error::Invalid { offset, .. }
            | Error::Text { offset, .. }
            | Error::Limit { offset, .. } => Some(*offset),
            Error::BadMagic { .. } | Error::WrongFormat { .. } => Some(0),
            Error::Io { .. }
            | Error::Write { .. }
            | Error::Resolve { .. }
            | Error::UnknownFormat
            | Error::NotAModel { .. } => None,
        }
    }

    /// The structure/field the error names (`structure.field`), if any.
    #[must_use]
    pub fn what(&self) -> Option<&'static str> {
        match self {
            Error::Truncated { what, .. }
            | Error::Unsupported { what, .. }
            | Error::Invalid { what, .. }
            | Error::Text { what, .. }
            | Error::Limit { what, .. }
            | Error::Write { what, .. } => Some(what),
            Error::BadMagic { .. } => Some("header.id"),
            Error::WrongFormat { .. } => Some("header"),
            Error::Io { .. }
            | Error::Resolve { .. }
            | Error::UnknownFormat
            | Error::NotAModel { .. } => None,
        }
    }

    /// `true` for [`Error::Limit`]: the file may be fine but exceeds configured bounds.
    #[must_use]
    pub fn is_limit(&self) -> bool {
        matches!(self, Error::Limit { .. })
    }
}
