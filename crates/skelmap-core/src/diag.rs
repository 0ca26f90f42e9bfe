//! Non-fatal findings made while validating a file.
//!
//! A file can be valid (every offset, count and index proven in range) and still be odd:
//! influence weights that do not sum to one, bounds that contradict each other, bytes after the
//! last structure. Such findings are recorded as [`Warning`]s instead of failing the open.
//!
//! Recording is bounded: each [`WarningKind`] is stored once, with the location of its first
//! occurrence and a count of all occurrences, so a file with a million odd vertices costs one
//! entry, not a million.

use std::fmt;

use crate::format::Format;

/// What kind of oddity a [`Warning`] reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum WarningKind {
    /// The file's declared size differs from the data length (the smaller one is used).
    FileSize,
    /// Bytes after the last structure the header references.
    TrailingBytes,
    /// Structures are not in the order the reference writer produces, or overlap.
    LayoutOrder,
    /// A vertex's influence weights do not sum to 1 (within 0.01).
    InfluenceSum,
    /// A bone pose has a rotation row of length zero (not invertible).
    ZeroRotationRow,
    /// Bounds in a header or frame are inconsistent (`mins > maxs`, negative radius, NaN).
    Bounds,
    /// Bone flags other than the ones the format defines are set.
    UnknownFlags,
    /// A fixed-size name field has no NUL terminator (its full width is the name).
    UnterminatedName,
    /// A texture coordinate is NaN or infinite.
    NonFiniteTexcoord,
    /// A rotation quaternion's length is far from 1 (it is normalised when evaluated).
    QuatNotUnit,
    /// A rotation matrix is not orthonormal (scale or shear baked into a bone's pose or a
    /// tag's axes).
    NonOrthonormal,
    /// A level-of-detail file's meshes differ in count or names from its base model.
    LodMismatch,
    /// A count or value beyond what the format's specification allows (engines tolerate it).
    SpecLimit,
    /// The model has no groups or surfaces (meshes) to draw; some loaders reject it.
    NoGroups,
    /// Keyframe times that do not increase.
    KeyOrder,
    /// An optional section with an unknown sub-version; it and what follows are ignored.
    UnknownSubVersion,
    /// A triangle names a group that does not exist (loaders use the groups' lists instead).
    TriangleGroup,
    /// A companion file that only adds information (a `.framegroups` sidecar, an MD5
    /// animation beside its mesh, a Half-Life texture or sequence-group file) is missing,
    /// malformed or does not fit the model, and was left out; the detail names the file and
    /// why.
    CompanionIgnored,
    /// A section does not start at the alignment the specification asks for (it is read
    /// unaligned).
    Unaligned,
    /// A vertex has no weight on any bone; the detail says where it is put.
    ZeroWeights,
    /// An animation's frame rate is not positive; the detail gives the rate used instead.
    FrameRate,
    /// A vertex's normal-table index is past the table (the 162 normals of MDL7 and MD2); that
    /// normal is read as zero (MDL7) or as the table's first (MD2, DarkPlaces' rule).
    NormalIndex,
    /// A vertex names a bone in a model without bones; the field is ignored.
    BoneWithoutSkeleton,
    /// A frame lists the vertices it replaces out of order or one twice; the last listing of
    /// a vertex wins.
    FrameVertexOrder,
    /// An animation a companion file lists (a player's `animation.cfg`) runs past the model's
    /// frames; it is left out of the clips (the game plays frame 0 instead).
    ClipOutsideFrames,
    /// A chunk this reader does not read (an unknown name, or morph targets) was skipped;
    /// the detail names it.
    SkippedChunk,
    /// A joint names a parent no joint has; it is read as a root.
    UnknownParent,
}

impl WarningKind {
    /// What is wrong, in plain words and lowercase, with what the reader does about it where
    /// that matters; the detail of each occurrence follows it in messages.
    #[must_use]
    pub fn describe(self) -> &'static str {
        match self {
            WarningKind::FileSize => "the file size the header gives is not the file's length",
            WarningKind::TrailingBytes => "bytes after the end of the model, ignored",
            WarningKind::LayoutOrder => {
                "parts of the file are out of the usual order or overlap; read anyway"
            }
            WarningKind::InfluenceSum => "a vertex's bone weights do not add up to 1",
            WarningKind::ZeroRotationRow => {
                "a bone's rotation has a zero-length row, which flattens what it moves"
            }
            WarningKind::Bounds => "the stored bounds disagree with the model",
            WarningKind::UnknownFlags => "flags the format does not define are set, ignored",
            WarningKind::UnterminatedName => "a name fills its whole field with no ending NUL byte",
            WarningKind::NonFiniteTexcoord => "a texture coordinate is not a finite number",
            WarningKind::QuatNotUnit => {
                "a rotation quaternion is not of length 1; normalised when read"
            }
            WarningKind::NonOrthonormal => {
                "a rotation (a bone's matrix, a tag's axes) also scales or skews"
            }
            WarningKind::LodMismatch => "a level of detail does not match its base model",
            WarningKind::SpecLimit => {
                "goes past what the format's specification allows (some engines refuse it)"
            }
            WarningKind::NoGroups => "the model has no mesh to draw (no group or surface)",
            WarningKind::KeyOrder => "animation key times do not increase",
            WarningKind::UnknownSubVersion => {
                "an optional section has a sub-version this reader does not know, ignored"
            }
            WarningKind::TriangleGroup => "a triangle names a group that does not exist",
            WarningKind::CompanionIgnored => {
                "a companion file is missing, malformed or does not fit the model, and was left out"
            }
            WarningKind::Unaligned => {
                "a section is not aligned as the specification asks; read anyway"
            }
            WarningKind::ZeroWeights => "a vertex has no bone weights",
            WarningKind::FrameRate => "an animation's frame rate is not positive",
            WarningKind::NormalIndex => {
                "a vertex's normal index is past the normal table; the detail says how that \
                 normal is read"
            }
            WarningKind::BoneWithoutSkeleton => {
                "a vertex names a bone, but the model has no bones; the bone is ignored"
            }
            WarningKind::FrameVertexOrder => {
                "a frame lists its replaced vertices out of order or twice; the last listing wins"
            }
            WarningKind::ClipOutsideFrames => {
                "an animation runs past the model's frames and is left out of its clips"
            }
            WarningKind::SkippedChunk => "a chunk this reader does not read was skipped",
            WarningKind::UnknownParent => "a joint names a parent no joint has; it is a root",
        }
    }
}

impl fmt::Display for WarningKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.describe())
    }
}

/// One kind of finding: where it first occurred and how often it occurred.
#[derive(Debug, Clone, PartialEq)]
pub struct Warning {
    /// The format being read.
    pub format: Format,
    /// What kind of finding.
    pub kind: WarningKind,
    /// The structure/field of the first occurrence (`structure.field`).
    pub what: &'static str,
    /// Byte offset of the first occurrence.
    pub offset: u64,
    /// Details of the first occurrence.
    pub detail: String,
    /// How many times this kind occurred in the file.
    pub count: u64,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} ({} at offset {}: {})",
            self.format, self.kind, self.what, self.offset, self.detail
        )?;
        if self.count > 1 {
            write!(f, ", {} occurrences", self.count)?;
        }
        Ok(())
    }
}

/// The findings of one validation pass, one entry per [`WarningKind`].
///
/// ```
/// use skelmap_core::{Diagnostics, WarningKind};
/// let diag = Diagnostics::new();
/// assert!(diag.is_empty());
/// assert_eq!(diag.count(WarningKind::TrailingBytes), 0);
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Diagnostics {
    warnings: Vec<Warning>,
}

impl Diagnostics {
    /// An empty set of findings.
    #[must_use]
    pub fn new() -> Self {
        Diagnostics::default()
    }

    /// Records one occurrence. The details are built only for the first occurrence of a kind.
    pub(crate) fn warn(
        &mut self,
        format: Format,
        kind: WarningKind,
        what: &'static str,
        offset: u64,
        detail: impl FnOnce() -> String,
    ) {
        self.warn_n(format, kind, what, offset, 1, detail);
    }

    /// Records `count` occurrences at once (the first one located at `offset`).
    pub(crate) fn warn_n(
        &mut self,
        format: Format,
        kind: WarningKind,
        what: &'static str,
        offset: u64,
        count: u64,
        detail: impl FnOnce() -> String,
    ) {
        if count == 0 {
            return;
        }
        if let Some(w) = self.warnings.iter_mut().find(|w| w.kind == kind) {
            w.count = w.count.saturating_add(count);
            return;
        }
        self.warnings.push(Warning {
            format,
            kind,
            what,
            offset,
            detail: detail(),
            count,
        });
    }

    /// These findings with those `check` makes inserted after the first `at` (as if `check`
    /// had run between them): a kind already seen adds to its entry.
    pub(crate) fn with_inserted(&self, at: usize, check: impl FnOnce(&mut Diagnostics)) -> Self {
        let (before, after) = self.warnings.split_at(at.min(self.warnings.len()));
        let mut out = Diagnostics {
            warnings: before.to_vec(),
        };
        check(&mut out);
        out.add_all(after);
        out
    }

    /// Adds `other`'s findings to these, as if the pass that found them had recorded them
    /// here: a kind already seen adds to its entry. Where a companion file is read into
    /// findings of its own, they join the model's only if the file is kept.
    pub(crate) fn absorb(&mut self, other: &Diagnostics) {
        self.add_all(&other.warnings);
    }

    fn add_all(&mut self, warnings: &[Warning]) {
        for w in warnings {
            self.warn_n(w.format, w.kind, w.what, w.offset, w.count, || {
                w.detail.clone()
            });
        }
    }

    /// The findings, one per kind, in the order they were first seen.
    #[must_use]
    pub fn warnings(&self) -> &[Warning] {
        &self.warnings
    }

    /// The finding of one kind, if it occurred.
    #[must_use]
    pub fn get(&self, kind: WarningKind) -> Option<&Warning> {
        self.warnings.iter().find(|w| w.kind == kind)
    }

    /// How many times `kind` occurred.
    #[must_use]
    pub fn count(&self, kind: WarningKind) -> u64 {
        self.get(kind).map_or(0, |w| w.count)
    }

    /// `true` when nothing odd was found.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.warnings.is_empty()
    }

    /// Forgets all findings (keeps the allocation for reuse).
    pub fn clear(&mut self) {
        self.warnings.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn warn(d: &mut Diagnostics, kind: WarningKind, count: u64) {
        d.warn_n(Format::Dpm, kind, "what", 4, count, || format!("{kind:?}"));
    }

    #[test]
    fn inserted_findings_land_between_and_merge_by_kind() {
        let mut found = Diagnostics::new();
        warn(&mut found, WarningKind::TrailingBytes, 1);
        warn(&mut found, WarningKind::CompanionIgnored, 2);
        warn(&mut found, WarningKind::Bounds, 3);
        let out = found.with_inserted(1, |d| {
            warn(d, WarningKind::NonOrthonormal, 5);
            warn(d, WarningKind::Bounds, 1);
        });
        let entries: Vec<_> = out.warnings().iter().map(|w| (w.kind, w.count)).collect();
        assert_eq!(
            entries,
            [
                (WarningKind::TrailingBytes, 1),
                (WarningKind::NonOrthonormal, 5),
                (WarningKind::Bounds, 4),
                (WarningKind::CompanionIgnored, 2),
            ]
        );
        assert_eq!(found.with_inserted(9, |_| {}), found);
    }
}
