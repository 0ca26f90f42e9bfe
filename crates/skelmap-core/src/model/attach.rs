//! Attachment points of any format: where a weapon, a head or a light is held. Bones flagged as
//! attachments (DPM, SKM, SKP, MDX), every joint of a format without such a flag (IQM, MS3D,
//! MD5, PSK, PSA, ZYM), tags stored with the frames (MD3, MDC) and tags placed by a bone (MDR,
//! MDM, Half-Life's attachments), behind one list and one transform.

use glam::Affine3A;

use super::Model;
use super::any::with_view;
use crate::view::{DeformError, ModelView, Pose};

/// An attachment point of a [`Model`] ([`Model::attachments`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Attachment<'a> {
    /// The name, as the file stores it (up to its NUL).
    pub name: &'a [u8],
    /// What the point is in the file.
    pub kind: AttachmentKind,
}

impl Attachment<'_> {
    /// The name as text ([`name::lossy`](crate::name::lossy)).
    #[must_use]
    pub fn name_lossy(&self) -> std::borrow::Cow<'_, str> {
        crate::name::lossy(self.name)
    }
}

/// What an [`Attachment`] is in its file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AttachmentKind {
    /// Bone `0` of the skeleton: its world transform in a pose places what is attached.
    Bone(usize),
    /// Tag `0`: a point with axes stored in every frame, blended between two (MD3, MDC), or
    /// one on a named bone, placed by the bone's world transform in a pose (MDR), times the
    /// offset from the bone the tag holds (MDM, Half-Life).
    Tag(usize),
}

impl<'data> Model<'data> {
    /// The attachment points, bones first (in skeleton order) then tags (in file order):
    ///
    /// - DPM, SKM, SKP and MDX (and an MDM through its MDX): the bones flagged as attachments
    ///   ([`Bone::is_attachment`](crate::pose::Bone::is_attachment));
    /// - IQM, MS3D, MD5, PSK (and PSA) and ZYM, which have no such flag: every joint;
    /// - MD3 and MDC: their tags (`tag_weapon`, `tag_head`, …), named as in the first frame;
    /// - MDR, MDM and Half-Life: their tags (Half-Life's attachments), each placed by the
    ///   bone it names (with the offset from it an MDM tag or a Half-Life attachment holds);
    /// - every other format: none.
    ///
    /// ```
    /// use skelmap_core::Model;
    /// use skelmap_core::model::{AttachmentKind, Pose};
    /// use skelmap_core::md3::{Builder, write::TagDef};
    /// use skelmap_core::pose::Interpolation;
    ///
    /// let mut b = Builder::triangle();
    /// b.tags = vec![vec![TagDef::at("tag_weapon", [2.0, 0.0, 1.0])]];
    /// let bytes = b.write();
    /// let model = Model::from_bytes(&bytes)?;
    /// let tags: Vec<_> = model.attachments().collect();
    /// assert_eq!((tags[0].name, tags[0].kind), (&b"tag_weapon"[..], AttachmentKind::Tag(0)));
    /// let mut pose = Pose::default();
    /// model.pose(0, 0, 0.0, Interpolation::Nlerp, &mut pose)?;
    /// let at = model.attachment_transform(0, &pose)?;
    /// assert_eq!(at.translation.to_array(), [2.0, 0.0, 1.0]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn attachments(&self) -> impl Iterator<Item = Attachment<'_>> + Clone + '_ {
        let every = self.every_bone_attaches();
        let bones = self
            .bones()
            .enumerate()
            .filter(move |(_, b)| every || b.is_attachment())
            .map(|(i, b)| Attachment {
                name: b.name(),
                kind: AttachmentKind::Bone(i),
            });
        let tags = (0..self.num_tags()).map(move |i| self.tag_attachment(i));
        bones.chain(tags)
    }

    /// Number of [`attachments`](Model::attachments): the bones that attach (counted, without
    /// reading their names) and the tags.
    #[must_use]
    pub fn num_attachments(&self) -> usize {
        self.num_bone_attachments() + self.num_tags()
    }

    /// Attachment `index`, or `None` out of range, found directly: a tag by its index, a bone
    /// by its own where every bone attaches, else in the table of flagged bones (DPM, SKM,
    /// SKP, MDX) one pass over the flags makes on first use.
    #[must_use]
    pub fn attachment(&self, index: usize) -> Option<Attachment<'_>> {
        let bones = self.num_bone_attachments();
        let Some(tag) = index.checked_sub(bones) else {
            let i = if self.every_bone_attaches() {
                index
            } else {
                *self.flagged_bones().get(index)? as usize
            };
            let b = self.bone(i)?;
            return Some(Attachment {
                name: b.name(),
                kind: AttachmentKind::Bone(i),
            });
        };
        (tag < self.num_tags()).then(|| self.tag_attachment(tag))
    }

    /// The bones flagged as attachments, in order (for formats where not every bone is one).
    fn flagged_bones(&self) -> &[u32] {
        self.attachment_bones.get_or_init(|| {
            let flagged = self.bones().enumerate().filter(|(_, b)| b.is_attachment());
            flagged.map(|(i, _)| i as u32).collect()
        })
    }

    /// Whether every bone is an attachment (formats without the flag).
    fn every_bone_attaches(&self) -> bool {
        with_view!(self.view(), v => ModelView::every_bone_attaches(v))
    }

    /// How many bones are attachments: the first entries of [`attachments`](Model::attachments).
    pub(super) fn num_bone_attachments(&self) -> usize {
        if self.every_bone_attaches() {
            self.num_bones()
        } else {
            self.flagged_bones().len()
        }
    }

    /// Tag `index` (in range) as an attachment.
    fn tag_attachment(&self, index: usize) -> Attachment<'_> {
        Attachment {
            name: with_view!(self.view(), v => ModelView::tag_name(v, index)).unwrap_or_default(),
            kind: AttachmentKind::Tag(index),
        }
    }

    /// The index of the first attachment named exactly `name` (bytes, without NUL).
    #[must_use]
    pub fn attachment_index(&self, name: &[u8]) -> Option<usize> {
        self.attachments().position(|a| a.name == name)
    }

    /// Number of tags (MD3's attachment points stored beside the frames; 0 for every other
    /// format).
    #[must_use]
    pub fn num_tags(&self) -> usize {
        with_view!(self.view(), v => ModelView::num_tags(v))
    }

    /// The bone tag `index` names (an MDR's tags), `None` for a tag stored with the frames
    /// (MD3, MDC) and out of range.
    #[must_use]
    pub fn tag_bone(&self, index: usize) -> Option<usize> {
        with_view!(self.view(), v => ModelView::tag_bone(v, index))
    }

    /// Where tag `index` sits in the space of the bone it names ([`tag_bone`](Model::tag_bone)),
    /// so that a pose places it by that bone's world transform times this: an MDM tag's axes
    /// and offset, a Half-Life attachment's origin; the identity for an MDR's tag (its bone
    /// itself), for a tag stored with the frames and out of range.
    ///
    /// ```
    /// use skelmap_core::Model;
    /// // A Half-Life model whose one attachment sits at (1, 2, 3) in bone 1's space.
    /// let bytes = skelmap_core::hl1::Builder::example().write()?;
    /// let model = Model::from_bytes(&bytes)?;
    /// assert_eq!(model.tag_bone(0), Some(1));
    /// assert_eq!(model.tag_offset(0).translation.to_array(), [1.0, 2.0, 3.0]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn tag_offset(&self, index: usize) -> Affine3A {
        if self.tag_bone(index).is_none() {
            return Affine3A::IDENTITY;
        }
        with_view!(self.view(), v => ModelView::tag_offset(v, index))
    }

    /// Tag `index` as frame `frame` stores it (MD3): the columns of the linear part are its
    /// forward, left and up axes as stored, bit for bit, the translation its origin. `None`
    /// for a tag or frame out of range, and for every format without tags. What a writer
    /// copies; to place a model between frames use
    /// [`attachment_transform`](Model::attachment_transform).
    ///
    /// ```
    /// use skelmap_core::Model;
    /// let bytes = skelmap_core::md3::Builder::triangle().write();
    /// let model = Model::from_bytes(&bytes)?;
    /// let tag = model.tag(0, 0).ok_or("tag_weapon")?;
    /// assert_eq!(tag.translation.to_array(), [0.0, 0.0, 1.0]);
    /// assert!(model.tag(1, 0).is_none() && model.tag(0, 1).is_none());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn tag(&self, frame: usize, index: usize) -> Option<Affine3A> {
        with_view!(self.view(), v => ModelView::tag(v, frame, index))
    }

    /// Where attachment `index` is in `pose`, in model space: a bone's world transform (for an
    /// MDR's tag, the world transform of the bone it names), or a tag blended between the
    /// pose's two frames (origins linearly, axes then made orthonormal,
    /// as [`md3::Md3::tag_at`](crate::md3::Md3::tag_at)). A model attached there is placed
    /// by this transform: its linear part's columns are the point's forward, left and up axes.
    ///
    /// # Errors
    ///
    /// [`DeformError::NoAttachment`] for an index past the attachments,
    /// [`DeformError::NotSampled`] for a pose never sampled, [`DeformError::WrongPose`] for a
    /// pose of another kind of model (bones for a model with tags, or frames for one with
    /// bones).
    pub fn attachment_transform(&self, index: usize, pose: &Pose) -> Result<Affine3A, DeformError> {
        let attachment = self
            .attachment(index)
            .ok_or_else(|| DeformError::NoAttachment {
                attachment: index,
                attachments: self.num_attachments(),
            })?;
        if !pose.is_sampled() {
            return Err(DeformError::NotSampled);
        }
        let wrong = |found| DeformError::WrongPose {
            found,
            format: self.format(),
        };
        match attachment.kind {
            AttachmentKind::Bone(bone) => pose.palette().bone_world(bone).ok_or(wrong("frames")),
            AttachmentKind::Tag(tag) => {
                if let Some(bone) = self.tag_bone(tag) {
                    let offset = self.tag_offset(tag);
                    let world = pose.palette().bone_world(bone).ok_or(wrong("frames"))?;
                    return Ok(world * offset);
                }
                let (a, b, t) = pose.frames().ok_or(wrong("bones"))?;
                let at = with_view!(self.view(), v => ModelView::tag_at(v, a, b, t, tag));
                // The pose's frames were checked against this model's when it was sampled;
                // a pose sampled from a model with more frames is another model's.
                at.ok_or(DeformError::NoFrame {
                    frame: a.max(b),
                    frames: self.num_frames(),
                })
            }
        }
    }
}
