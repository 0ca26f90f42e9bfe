//! Bones as every skeletal format stores them: a fixed-size name, a parent index and flags.

use std::borrow::Cow;

use crate::name;

/// `flags` bit 0 in DPM, SKP and MDX (`BONEFLAG_TAG`): the bone is an attachment point (a tag
/// for weapons, hats...).
pub const BONE_FLAG_ATTACHMENT: u32 = 1;

/// One bone of a skeleton, validated: its parent exists and the hierarchy has no cycle. In
/// DPM and SKP files the parent also precedes the bone; MS3D files list joints in any order
/// ([`Skeleton::hierarchy_order`]).
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

    /// The parent bone index, `None` for a root. Smaller than this bone's index unless the
    /// skeleton's [`Skeleton::hierarchy_order`] is `Some`.
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

/// A root's entry in a [`Skeleton::parent_table`].
pub const NO_PARENT: u16 = u16::MAX;

/// The [`Skeleton::parent_table`] of `bones`, for a skeleton that keeps one: a parent that
/// does not fit below [`NO_PARENT`] (which validation's bone limits rule out) is a root's.
pub(crate) fn parent_table<'data>(bones: impl Iterator<Item = Bone<'data>>) -> Vec<u16> {
    let parent = |b: Bone<'_>| b.parent().and_then(|p| u16::try_from(p).ok());
    bones.map(|b| parent(b).unwrap_or(NO_PARENT)).collect()
}

/// What every skeleton offers: its bones and the look-ups built on them. Implemented by every
/// skeletal view (the table of [`pose`](crate::pose) names them; an
/// [`slmdl::Animation`](crate::slmdl::Animation) has unnamed, unparented bones), by
/// [`BakedFrames`](crate::pose::BakedFrames), and with no bones by the vertex-animated views.
///
/// ```
/// use skelmap_core::Parse;
/// use skelmap_core::{Skeleton, dpm::Dpm, synth};
/// let bytes = synth::tube(&synth::TubeParams::default()).write()?;
/// let model = Dpm::parse(&bytes)?;
/// assert_eq!(model.bone_index(b"seg2"), Some(2));
/// assert_eq!(model.bone_index_ignore_ascii_case(b"SEG2"), Some(2));
/// assert_eq!(model.attachments().map(|(i, _)| i).collect::<Vec<_>>(), [3]);
/// # Ok::<(), skelmap_core::Error>(())
/// ```
pub trait Skeleton<'data> {
    /// The bones in file order.
    fn skeleton_bones(&self) -> impl ExactSizeIterator<Item = Bone<'data>> + Clone;

    /// Bone indices ordered so that every parent comes before its children, when file order
    /// is not such an order; `None` (the default) when every parent precedes its children in
    /// the file, as validation proves for DPM and SKP. MS3D returns its computed order.
    fn hierarchy_order(&self) -> Option<&[u16]> {
        None
    }

    /// Every bone's parent in file order, [`NO_PARENT`] for a root, when the skeleton keeps
    /// them in one table: [`Palette::build`](super::Palette::build) then walks the table
    /// instead of decoding each bone from the file on every build. `None` (the default) where
    /// the skeleton keeps no such table. It must agree with [`bone`](Skeleton::bone)'s
    /// parents. It pays where a bone costs more to decode than a table entry to read (an IQM
    /// joint, an MD5 joint of the decoded text); a skeleton whose bones are a slice of fixed
    /// records (DPM, Half-Life) is walked as fast without one (the `ozz-pose` rows of
    /// `benches/peers.rs`).
    ///
    /// ```
    /// use skelmap_core::Parse;
    /// use skelmap_core::iqm::{self, Iqm};
    /// use skelmap_core::pose::{NO_PARENT, Skeleton};
    /// let bytes = iqm::Builder::demo().write()?;
    /// let pair = iqm::Pair::single(Iqm::parse(&bytes)?);
    /// let table = pair.parent_table().ok_or("an IQM pair keeps one")?;
    /// for (bone, &parent) in pair.skeleton_bones().zip(table) {
    ///     assert_eq!(bone.parent(), (parent != NO_PARENT).then_some(usize::from(parent)));
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    fn parent_table(&self) -> Option<&[u16]> {
        None
    }

    /// Bone `index`, or `None` out of range. The default walks
    /// [`skeleton_bones`](Skeleton::skeleton_bones); skeletons that hold their bones in a
    /// slice look it up directly.
    fn bone(&self, index: usize) -> Option<Bone<'data>> {
        self.skeleton_bones().nth(index)
    }

    /// Index of the first bone named exactly `name` (bytes, without NUL).
    ///
    /// Real files repeat names; the first match wins.
    fn bone_index(&self, name: &[u8]) -> Option<usize> {
        name::position(self.skeleton_bones().map(|b| b.name()), name, false)
    }

    /// Index of the first bone whose name equals `name` ignoring ASCII case.
    fn bone_index_ignore_ascii_case(&self, name: &[u8]) -> Option<usize> {
        name::position(self.skeleton_bones().map(|b| b.name()), name, true)
    }

    /// The bones flagged as attachment points, with their indices.
    fn attachments(&self) -> impl Iterator<Item = (usize, Bone<'data>)> + Clone {
        self.skeleton_bones()
            .enumerate()
            .filter(|(_, b)| b.is_attachment())
    }

    /// The root bones (no parent), with their indices.
    fn roots(&self) -> impl Iterator<Item = (usize, Bone<'data>)> + Clone {
        self.skeleton_bones()
            .enumerate()
            .filter(|(_, b)| b.parent().is_none())
    }
}
