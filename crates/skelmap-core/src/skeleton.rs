//! Bones as every skeletal format stores them: a fixed-size name, a parent index and flags.

use std::borrow::Cow;

use crate::name;

/// `flags` bit 0 in DPM and SKP: the bone is an attachment point (a tag for weapons, hats...).
pub const BONE_FLAG_ATTACHMENT: u32 = 1;

/// One bone of a skeleton (DPM or SKP), validated: its parent precedes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bone<'data> {
    name_field: &'data [u8],
    parent: i32,
    flags: u32,
}

impl<'data> Bone<'data> {
    pub(crate) fn new(name_field: &'data [u8], parent: i32, flags: u32) -> Self {
        Bone {
            name_field,
            parent,
            flags,
        }
    }

    /// The name bytes, up to the first NUL.
    #[must_use]
    pub fn name(&self) -> &'data [u8] {
        name::trim_nul(self.name_field)
    }

    /// The name as text (invalid UTF-8 replaced).
    #[must_use]
    pub fn name_lossy(&self) -> Cow<'data, str> {
        name::lossy(self.name())
    }

    /// The parent bone index, `None` for a root. Always smaller than this bone's index.
    #[must_use]
    pub fn parent(&self) -> Option<usize> {
        usize::try_from(self.parent).ok()
    }

    /// The raw flags.
    #[must_use]
    pub fn flags(&self) -> u32 {
        self.flags
    }

    /// `true` if the bone is flagged as an attachment point.
    #[must_use]
    pub fn is_attachment(&self) -> bool {
        self.flags & BONE_FLAG_ATTACHMENT != 0
    }
}
