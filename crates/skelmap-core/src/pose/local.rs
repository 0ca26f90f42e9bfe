//! Local poses, their sampling from frames, and world-space palettes.

use glam::{Affine3A, Quat, Vec3A, Vec4};

use super::skeleton::NO_PARENT;
use super::{PoseFrames, Skeleton, lanes};

/// How two rotations are blended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Interpolation {
    /// Normalised linear blend along the shorter arc (fast; what engines use per frame).
    #[default]
    Nlerp,
    /// Spherical linear blend along the shorter arc (constant angular speed).
    Slerp,
}

/// One parent-relative rotation and translation per bone, and a scale per bone for formats
/// whose poses scale (IQM, MDR).
///
/// A `LocalPose` reused from one sample to the next also remembers, per bone, where sampling
/// stood in formats stored as sparse keys (MS3D): the next sample resumes from there instead of
/// searching, and each key's rotation is converted once rather than once per sample. What it
/// remembers is checked against the keys themselves, so reusing a pose across models stays
/// correct. Equality compares [`bones`](LocalPose::bones), [`scales`](LocalPose::scales) and
/// [`skin_scales`](LocalPose::skin_scales).
#[derive(Debug, Clone, Default)]
pub struct LocalPose {
    /// Per bone `(rotation, translation)`.
    pub bones: Vec<(Quat, Vec3A)>,
    /// Per bone, the scale applied before the rotation; empty when no bone scales (always but
    /// in IQM and MDR files that scale), which [`Palette::build`] then skips. A bone past its
    /// end has scale 1.
    pub scales: Vec<Vec3A>,
    /// Per bone, a uniform scale of the vertices the bone moves, about the bone, that its
    /// children do not inherit (MD5 with the Quake II remaster's `.md5scale`; 0 hides the
    /// vertices). Empty when the pose has none (every other format). [`Palette::build`]
    /// leaves it out of the world transforms; [`Palette::apply_skin_scales`] puts it into
    /// a palette used for skinning, as `Model::deform` does. A bone past its end has 1.
    pub skin_scales: Vec<f32>,
    /// Per bone, where the last sample of a keyed format stood.
    pub(crate) cursors: Vec<KeyCursor>,
    /// Scratch: the second frame's poses while sampling.
    pub(crate) frame_b: Vec<(Quat, Vec3A)>,
    /// Scratch: the second frame's scales while sampling.
    pub(crate) scales_b: Vec<Vec3A>,
}

impl PartialEq for LocalPose {
    fn eq(&self, other: &Self) -> bool {
        self.bones == other.bones
            && self.scales == other.scales
            && self.skin_scales == other.skin_scales
    }
}

/// Where sampling last stood in one bone's key tracks, and the keys it converted there.
///
/// Keys are kept already composed with the bone's rest transform, so that a sample between
/// two remembered keys only blends: `rest · blend(a, b) = blend(rest · a, rest · b)` for
/// both the rotation (left multiplication by a unit quaternion keeps angles between
/// rotations) and the position (an affine map keeps linear blends). The default cursor pairs a
/// zero rest transform with zero keys, which is correct as it stands.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct KeyCursor {
    /// The rotation key at or before the last sample time.
    pub(crate) rotation_key: u32,
    /// The position key at or before the last sample time.
    pub(crate) position_key: u32,
    /// The raw bits of the rest rotation and position the keys below were composed with.
    pub(crate) rest_bits: [u32; 6],
    /// The rest rotation converted from those bits.
    pub(crate) rest: Quat,
    /// The two rotation keys last blended: their raw bits, and `rest · key`.
    pub(crate) rotations: [Keyed<Quat>; 2],
    /// The two position keys last blended: their raw bits, and `rest position + rest · key`.
    pub(crate) positions: [Keyed<Vec3A>; 2],
}

/// A value derived from three stored values, with their raw bits.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Keyed<T> {
    pub(crate) bits: [u32; 3],
    pub(crate) value: T,
}

impl<T: Copy> Keyed<T> {
    /// An entry no stored key matches: its bits are a NaN, and validation admits finite
    /// values only. What a cursor's keys become when the rest transform they were composed
    /// with changes.
    pub(crate) fn forgotten(value: T) -> Self {
        Keyed {
            bits: [u32::MAX; 3],
            value,
        }
    }

    /// The value derived from the key whose stored values have the raw `bits`, if it is one
    /// of `memo`.
    ///
    /// Bits, not values: the caller loads them from the file straight into integer registers.
    /// Comparing values stored as floats and reloaded as integers stalled on store forwarding.
    #[inline]
    pub(crate) fn remembered(memo: &[Keyed<T>], bits: [u32; 3]) -> Option<T> {
        memo.iter().find(|k| k.bits == bits).map(|k| k.value)
    }
}

/// Blends frames `a` and `b` of `source` at `t` (0 = `a`, 1 = `b`) into `out`, reusing its
/// allocation: rotations along the shorter arc by `interpolation`, translations and scales
/// linearly, skin scales frame `b`'s. Frames out of range are clamped to the last frame.
pub fn sample<'data, S: PoseFrames<'data>>(
    source: &S,
    a: usize,
    b: usize,
    t: f32,
    interpolation: Interpolation,
    out: &mut LocalPose,
) {
    let last = source.num_frames().saturating_sub(1);
    let (a, b) = (a.min(last), b.min(last));
    let bones = source.skeleton_bones().len();
    if sample_fused(source, (a, b, t), interpolation, bones, out) {
        return;
    }
    out.bones.clear();
    out.frame_b.clear();
    source.frame_pair_poses_into(a, b, &mut out.bones, &mut out.frame_b);
    out.bones.resize(bones, (Quat::IDENTITY, Vec3A::ZERO));
    // A bone missing from frame `b` keeps its pose from `a`.
    blend_in_place(&mut out.bones, &out.frame_b, t, interpolation);
}

/// For a format whose frames are stored as poses (baked frames, MD5's decoded frames): its
/// [`PoseFrames::nlerp_frames_into`], frame `a` blended towards frame `b` into `out` by
/// [`sample`]'s own blend, bit for bit what `sample` makes of the two frames, but without
/// copying either frame first: each pose is read from `a` and `b` and written once (frame
/// `a`'s poses past the end of `b` copied as they are).
pub(crate) fn nlerp_frames(
    a: &[(Quat, Vec3A)],
    b: &[(Quat, Vec3A)],
    t: f32,
    out: &mut Vec<(Quat, Vec3A)>,
) {
    if out.len() != a.len() {
        out.clear();
        out.resize(a.len(), (Quat::IDENTITY, Vec3A::ZERO));
    }
    // Whole steps, then the few poses left, each read from `a` and written to `out`.
    let done = lanes::nlerp_into(a, b, t, out);
    let (rest, from) = (&mut out[done..], &a[done..]);
    let b = b.get(done..).unwrap_or_default();
    let read = |i: usize, slot| from.get(i).copied().unwrap_or(slot);
    blend_rest(rest, read, b, t, Interpolation::Nlerp);
    // Past `b`, frame `a`'s poses as they are.
    if let (Some(rest), Some(from)) = (rest.get_mut(b.len()..), from.get(b.len()..)) {
        rest.copy_from_slice(from);
    }
}

/// [`sample`]'s blend: each pose of `a` blended towards `b`'s at `t` in place, up to the
/// shorter of the two (the rest of `a` unchanged); rotations along the shorter arc by
/// `interpolation`, translations linearly. Nlerp runs 16 poses a step with AVX-512 where the
/// CPU has it and the skeleton is large enough to pay, four at a time otherwise (one square
/// root and one division for four), bit for bit alike.
#[inline]
pub(crate) fn blend_in_place(
    a: &mut [(Quat, Vec3A)],
    b: &[(Quat, Vec3A)],
    t: f32,
    interpolation: Interpolation,
) {
    let paired = a.len().min(b.len());
    let (a, b) = (&mut a[..paired], &b[..paired]);
    let done = match interpolation {
        Interpolation::Nlerp => lanes::nlerp_in_place(a, b, t),
        Interpolation::Slerp => 0,
    };
    blend_rest(&mut a[done..], |_, slot| slot, &b[done..], t, interpolation);
}

/// [`blend_in_place`]'s poses past its steps, four at a time: pose `i` of `out` set to
/// `from(i, out[i])` blended towards `b`'s, up to the shorter of `out` and `b`; the rest of
/// `out` unchanged. `from` gives the pose blended from: `out`'s own, or another frame's.
fn blend_rest(
    out: &mut [(Quat, Vec3A)],
    from: impl Fn(usize, (Quat, Vec3A)) -> (Quat, Vec3A),
    b: &[(Quat, Vec3A)],
    t: f32,
    interpolation: Interpolation,
) {
    let mut poses_b = b.iter().copied();
    for (c, chunk) in out.chunks_mut(LANES).enumerate() {
        let mut blended = [Vec4::W; LANES];
        let mut filled = 0;
        for (k, slot) in chunk.iter_mut().enumerate() {
            let Some((qb, tb)) = poses_b.next() else {
                break;
            };
            let (qa, ta) = from(c * LANES + k, *slot);
            // q and −q are the same rotation: blend towards the nearer one.
            let qb = if qa.dot(qb) < 0.0 { -qb } else { qb };
            match interpolation {
                Interpolation::Nlerp => blended[k] = Vec4::from(qa).lerp(Vec4::from(qb), t),
                Interpolation::Slerp => slot.0 = qa.slerp(qb, t),
            }
            slot.1 = ta.lerp(tb, t);
            filled = k + 1;
        }
        if interpolation == Interpolation::Nlerp {
            for (slot, q) in chunk.iter_mut().zip(normalize_lanes(blended)).take(filled) {
                slot.0 = Quat::from_vec4(q);
            }
        }
    }
}

/// [`sample`]'s passes that need no frame of poses, frames `a` and `b` in range: frame `b`'s
/// skin scales, a format's own blend of both frames (with their scales, or without), and
/// `true` when it did; else `false`, with `out.scales` and `out.skin_scales` filled and
/// `out.bones` left for the blend of two frames.
pub(crate) fn sample_fused<'data, S: PoseFrames<'data>>(
    source: &S,
    (a, b, t): (usize, usize, f32),
    interpolation: Interpolation,
    bones: usize,
    out: &mut LocalPose,
) -> bool {
    out.skin_scales.clear();
    if source.has_skin_scale() {
        // Not blended: frame `b`'s, as the Quake II remaster takes them.
        source.frame_skin_scales_into(b, &mut out.skin_scales);
    }
    if interpolation == Interpolation::Nlerp
        && source.has_scale()
        && source.nlerp_frames_scaled_into(a, b, t, &mut out.bones, &mut out.scales)
    {
        out.bones.resize(bones, (Quat::IDENTITY, Vec3A::ZERO));
        return true;
    }
    sample_scales(source, a, b, t, out);
    if interpolation == Interpolation::Nlerp && source.nlerp_frames_into(a, b, t, &mut out.bones) {
        out.bones.resize(bones, (Quat::IDENTITY, Vec3A::ZERO));
        return true;
    }
    false
}

/// The scales of frames `a` and `b` blended linearly at `t` into `out.scales`, or `scales`
/// emptied for a source without scale.
fn sample_scales<'data, S: PoseFrames<'data>>(
    source: &S,
    a: usize,
    b: usize,
    t: f32,
    out: &mut LocalPose,
) {
    out.scales.clear();
    if !source.has_scale() {
        return;
    }
    source.frame_scales_into(a, &mut out.scales);
    out.scales_b.clear();
    source.frame_scales_into(b, &mut out.scales_b);
    for (s, sb) in out.scales.iter_mut().zip(&out.scales_b) {
        *s = s.lerp(*sb, t);
    }
}

/// One bone's nlerp as [`sample`] computes it, bit for bit: `b` turned towards `a`, both
/// blended at `t`, the rotation normalised by the reciprocal of its length.
pub(crate) fn nlerp_pose(a: (Quat, Vec3A), b: (Quat, Vec3A), t: f32) -> (Quat, Vec3A) {
    let ((qa, ta), (qb, tb)) = (a, b);
    let qb = if qa.dot(qb) < 0.0 { -qb } else { qb };
    let q = Vec4::from(qa).lerp(Vec4::from(qb), t);
    let inverse = 1.0 / q.length_squared().sqrt();
    (Quat::from_vec4(q * inverse), ta.lerp(tb, t))
}

/// Quaternions normalised together: four lengths, one vector square root and one vector
/// division, rather than one of each per quaternion.
const LANES: usize = 4;

/// Normalises `LANES` non-zero vectors at once (see [`LANES`]).
#[inline]
fn normalize_lanes(v: [Vec4; LANES]) -> [Vec4; LANES] {
    let lengths = Vec4::new(
        v[0].length_squared(),
        v[1].length_squared(),
        v[2].length_squared(),
        v[3].length_squared(),
    )
    .sqrt();
    let inverse = Vec4::ONE / lengths;
    [
        v[0] * inverse.x,
        v[1] * inverse.y,
        v[2] * inverse.z,
        v[3] * inverse.w,
    ]
}

/// Whether [`Palette::build_from`] rebuilds the bone it starts from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Root {
    /// The bone is rebuilt from its local pose, then its descendants.
    Rebuilt,
    /// The bone keeps the world transform the palette holds (one the caller set, an aim
    /// computed in model space); only its descendants are rebuilt.
    Kept,
}

/// The bones found to descend from one bone (itself included), as bits on the stack for the
/// `WORDS × 64` bones from `from` on, which covers every skeleton with 16-bit bone indices. A
/// bone further on is tested with [`descends`] instead.
struct Subtree {
    from: usize,
    bits: [u64; Subtree::WORDS],
}

impl Subtree {
    const WORDS: usize = 1024;

    fn new(from: usize) -> Self {
        Subtree {
            from,
            bits: [0; Subtree::WORDS],
        }
    }

    fn slot(&self, bone: usize) -> Option<(usize, u64)> {
        let offset = bone.checked_sub(self.from)?;
        let word = offset / 64;
        (word < Self::WORDS).then(|| (word, 1 << (offset % 64)))
    }

    fn insert(&mut self, bone: usize) {
        if let Some((word, bit)) = self.slot(bone) {
            self.bits[word] |= bit;
        }
    }

    /// Whether `bone` was inserted; `None` past the bits (the caller walks up instead), and
    /// `false` before the first bone counted.
    fn contains(&self, bone: usize) -> Option<bool> {
        if bone < self.from {
            return Some(false);
        }
        self.slot(bone)
            .map(|(word, bit)| self.bits[word] & bit != 0)
    }
}

/// Whether `bone` is `ancestor` or descends from it, by walking up the parents of a skeleton
/// whose parents precede their children: each step lowers the index, so the walk ends.
fn descends<'data>(skeleton: &impl Skeleton<'data>, mut bone: usize, ancestor: usize) -> bool {
    while bone > ancestor {
        match skeleton.bone(bone).and_then(|b| b.parent()) {
            Some(parent) if parent < bone => bone = parent,
            _ => return false,
        }
    }
    bone == ancestor
}

/// `world[child] = world[parent] * world[child]` for each link in turn (a link out of range
/// skipped), with AVX where [`lanes::concatenate`] takes it.
fn concatenate(world: &mut [Affine3A], links: impl Iterator<Item = (usize, usize)> + Clone) {
    if lanes::concatenate(world, links.clone()) {
        return;
    }
    for (j, p) in links {
        if let Some(parent) = world.get(p).copied()
            && let Some(slot) = world.get_mut(j)
        {
            *slot = parent * *slot;
        }
    }
}

/// World transforms of every bone, built from a local pose in one forward pass.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Palette {
    /// Per bone, its transform to model space.
    pub world: Vec<Affine3A>,
}

impl Palette {
    /// Concatenates `pose` down the hierarchy of `skeleton`, reusing the palette's
    /// allocation: one forward pass in file order when parents precede children (DPM, SKP,
    /// SL), otherwise in the skeleton's [`hierarchy_order`](Skeleton::hierarchy_order)
    /// (MS3D); each bone's parent read from the skeleton's
    /// [`parent_table`](Skeleton::parent_table) where it keeps one (IQM), else
    /// from its bones. It allocates only when the palette grows.
    pub fn build<'data>(&mut self, skeleton: &impl Skeleton<'data>, pose: &LocalPose) {
        let bones = skeleton.skeleton_bones();
        self.local_matrices(pose, bones.len());
        let world = self.world.as_mut_slice();
        // Without a hierarchy order, each bone's parent is final before the bone: a parent
        // numbered at or after its child (which validation refuses) leaves the child a root,
        // as no world transform for it exists yet.
        let order = skeleton.hierarchy_order();
        if let Some(parents) = skeleton.parent_table() {
            let parent = |j: usize| {
                let p = *parents.get(j)?;
                (p != NO_PARENT).then_some((j, usize::from(p)))
            };
            match order {
                None => concatenate(
                    world,
                    (0..parents.len()).filter_map(|i| parent(i).filter(|&(_, p)| p < i)),
                ),
                Some(order) => {
                    concatenate(world, order.iter().filter_map(|&j| parent(usize::from(j))))
                }
            }
            return;
        }
        match order {
            None => concatenate(
                world,
                bones
                    .enumerate()
                    .filter_map(|(i, bone)| Some((i, bone.parent().filter(|&p| p < i)?))),
            ),
            Some(order) => concatenate(
                world,
                order.iter().filter_map(|&j| {
                    let j = usize::from(j);
                    Some((j, skeleton.bone(j)?.parent()?))
                }),
            ),
        }
    }

    /// Every bone's [`LocalPose::bone_matrix`] into `world`, resized to `bones` (a bone past
    /// the pose the identity), 16 bones a step where the CPU allows and the skeleton is large
    /// enough to pay: the concatenation then runs in place without a call per bone.
    fn local_matrices(&mut self, pose: &LocalPose, bones: usize) {
        let posed = &pose.bones[..bones.min(pose.bones.len())];
        let scales = pose.scales.iter().map(Some).chain(std::iter::repeat(None));
        let local = |(&(q, t), s): (&(Quat, Vec3A), Option<&Vec3A>)| match s {
            Some(&s) => Affine3A::from_scale_rotation_translation(s.into(), q, t.into()),
            None => Affine3A::from_rotation_translation(q, t.into()),
        };
        if posed.len() >= lanes::MIN_LOCAL_MATRICES {
            // Every entry is written below: a palette of the right length (the last build's)
            // is only overwritten.
            if self.world.len() != posed.len() {
                self.world.clear();
                self.world.reserve(bones);
                self.world.resize(posed.len(), Affine3A::IDENTITY);
            }
            let done = lanes::local_matrices(posed, &pose.scales, &mut self.world);
            // Sliced, not skipped: `skip` on the zipped iterators walked them to `done`.
            let scales = pose.scales.get(done..).unwrap_or_default();
            let scales = scales.iter().map(Some).chain(std::iter::repeat(None));
            let rest = posed[done..].iter().zip(scales);
            for (slot, pose) in self.world[done..].iter_mut().zip(rest) {
                *slot = local(pose);
            }
        } else {
            self.world.clear();
            self.world.reserve(bones);
            self.world.extend(posed.iter().zip(scales).map(local));
        }
        self.world.resize(bones, Affine3A::IDENTITY);
    }

    /// Rebuilds the world transforms of bone `from`'s descendants from `pose`, and of `from`
    /// itself when `root` is [`Root::Rebuilt`], leaving every other bone as it was (ozz's
    /// `LocalToModelJob` with `from`, and `from_excluded` for [`Root::Kept`]). The palette
    /// must already hold a transform for every bone (a [`build`](Palette::build) of this
    /// skeleton); `from` out of range, or a palette shorter than the skeleton, changes
    /// nothing. It never allocates.
    ///
    /// What it relies on: every bone's parent is rebuilt before the bone. In file order that
    /// holds because validated DPM, SKP and SL skeletons list parents before children
    /// ([`Bone::parent`](super::Bone::parent)); MS3D is walked in its
    /// [`hierarchy_order`](Skeleton::hierarchy_order) instead.
    ///
    /// ```
    /// use glam::{Quat, Vec3, Vec3A};
    /// use skelmap_core::Parse;
    /// use skelmap_core::pose::{Palette, Root, sample, Interpolation, LocalPose};
    /// use skelmap_core::{dpm::Dpm, synth};
    /// let bytes = synth::tube(&synth::TubeParams::default()).write()?;
    /// let model = Dpm::parse(&bytes)?;
    /// let mut pose = LocalPose::default();
    /// sample(&model, 0, 0, 0.0, Interpolation::Nlerp, &mut pose);
    /// let mut palette = Palette::default();
    /// palette.build(&model, &pose);
    /// // Turn bone 1 and rebuild it and what hangs from it only.
    /// pose.bones[1].0 = Quat::from_rotation_z(0.5) * pose.bones[1].0;
    /// palette.build_from(&model, &pose, 1, Root::Rebuilt);
    /// let mut full = Palette::default();
    /// full.build(&model, &pose);
    /// assert_eq!(palette, full);
    /// # Ok::<(), skelmap_core::Error>(())
    /// ```
    pub fn build_from<'data>(
        &mut self,
        skeleton: &impl Skeleton<'data>,
        pose: &LocalPose,
        from: usize,
        root: Root,
    ) {
        self.build_between(skeleton, pose, from, usize::MAX, root);
    }

    /// [`build_from`](Palette::build_from) stopping after bone `to`: bones of `from`'s
    /// sub-tree numbered above `to` keep their transforms (ozz's `LocalToModelJob` with both
    /// `from` and `to`; a caller that changed bones up to `to` only rebuilds no more). A `to`
    /// below `from` changes nothing. It never allocates.
    ///
    /// ```
    /// use glam::Quat;
    /// use skelmap_core::Parse;
    /// use skelmap_core::pose::{Palette, Root, sample, Interpolation, LocalPose};
    /// use skelmap_core::{dpm::Dpm, synth};
    /// let bytes = synth::tube(&synth::TubeParams::default()).write()?; // bones 0–3, a chain
    /// let model = Dpm::parse(&bytes)?;
    /// let mut pose = LocalPose::default();
    /// sample(&model, 0, 0, 0.0, Interpolation::Nlerp, &mut pose);
    /// let mut palette = Palette::default();
    /// palette.build(&model, &pose);
    /// let before = palette.clone();
    /// pose.bones[1].0 = Quat::from_rotation_z(0.5) * pose.bones[1].0;
    /// palette.build_between(&model, &pose, 1, 2, Root::Rebuilt);
    /// let mut full = Palette::default();
    /// full.build(&model, &pose);
    /// assert_eq!(palette.world[..3], full.world[..3]); // bones 1 and 2 rebuilt
    /// assert_eq!(palette.world[3], before.world[3]); // bone 3, past `to`, as it was
    /// # Ok::<(), skelmap_core::Error>(())
    /// ```
    pub fn build_between<'data>(
        &mut self,
        skeleton: &impl Skeleton<'data>,
        pose: &LocalPose,
        from: usize,
        to: usize,
        root: Root,
    ) {
        let bones = skeleton.skeleton_bones().len();
        if from >= bones || to < from || self.world.len() < bones {
            return;
        }
        let order = skeleton.hierarchy_order();
        // In hierarchy order a descendant may have a smaller index: count bits from bone 0
        // (the order's indices are 16-bit, so they all fit).
        let mut subtree = Subtree::new(if order.is_some() { 0 } else { from });
        let mut visit = |world: &mut [Affine3A], bone: usize, parent: Option<usize>| {
            let member = bone == from
                || parent.is_some_and(|p| {
                    subtree
                        .contains(p)
                        .unwrap_or_else(|| descends(skeleton, p, from))
                });
            if !member {
                return;
            }
            subtree.insert(bone);
            if (bone == from && root == Root::Kept) || bone > to {
                return;
            }
            let local = pose.bone_matrix(bone);
            world[bone] = match parent.and_then(|p| world.get(p)) {
                Some(parent) => *parent * local,
                None => local,
            };
        };
        match order {
            None => {
                // Parents precede children: nothing before `from` descends from it, and
                // nothing after `to` is rebuilt.
                for (bone, b) in skeleton
                    .skeleton_bones()
                    .enumerate()
                    .skip(from)
                    .take((to - from).saturating_add(1))
                {
                    visit(&mut self.world, bone, b.parent());
                }
            }
            Some(order) => {
                for &bone in order {
                    let bone = usize::from(bone);
                    let parent = skeleton.bone(bone).and_then(|b| b.parent());
                    visit(&mut self.world, bone, parent);
                }
            }
        }
    }

    /// Per bone `self · bind⁻¹`: the transform that moves a vertex stored in the pose of
    /// `bind` (an MS3D rest pose, an SL first keyframe) to this pose, written into `out`
    /// (cleared first). Bones missing from either palette are left out.
    pub fn relative_to(&self, bind: &Palette, out: &mut Vec<Affine3A>) {
        self.relative_by(bind.world.iter().map(Affine3A::inverse), out);
    }

    /// [`relative_to`](Palette::relative_to) given the bind transforms' inverses (which a
    /// `Model` computes once): per bone `self · inverse`, into `out` (cleared first).
    pub(crate) fn relative_by(
        &self,
        inverse: impl Iterator<Item = Affine3A>,
        out: &mut Vec<Affine3A>,
    ) {
        out.clear();
        out.extend(self.world.iter().zip(inverse).map(|(now, inv)| *now * inv));
    }

    /// The world transform of `bone` (for attachments), or `None` out of range.
    #[must_use]
    pub fn bone_world(&self, bone: usize) -> Option<Affine3A> {
        self.world.get(bone).copied()
    }

    /// Scales each bone's transform by its skin scale ([`LocalPose::skin_scales`]; a bone
    /// past the end keeps its transform): `world · scale`, so the bone's vertices are scaled
    /// about it while it stays where it is. For a palette that skins, after the hierarchy is
    /// concatenated: the children of a bone built from a scaled palette would inherit the
    /// scale.
    ///
    /// ```
    /// use glam::{Affine3A, Vec3};
    /// use skelmap_core::pose::Palette;
    /// let mut palette = Palette { world: vec![Affine3A::from_translation(Vec3::X); 2] };
    /// palette.apply_skin_scales(&[0.5]);
    /// assert_eq!(palette.world[0].transform_point3(Vec3::Y), Vec3::new(1.0, 0.5, 0.0));
    /// assert_eq!(palette.world[1].transform_point3(Vec3::Y), Vec3::new(1.0, 1.0, 0.0));
    /// ```
    pub fn apply_skin_scales(&mut self, skin_scales: &[f32]) {
        for (world, &s) in self.world.iter_mut().zip(skin_scales) {
            if s != 1.0 {
                world.matrix3 *= s;
            }
        }
    }
}
