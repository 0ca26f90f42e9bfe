//! Which influences a vertex keeps when a buffer or a format holds fewer than it has: the one
//! choice every consumer that cuts influences makes ([`gpu::Skin`](crate::gpu::Skin) through
//! [`gpu::Mesh`](crate::gpu::Mesh), the glTF writer, and the IQM, MS3D, SL and MDL7 writers).
//!
//! A vertex with more influences than `keep` keeps the subset of `keep` whose largest error
//! over every frame is smallest: for each frame the vertex's bind position is skinned with
//! every influence (what the source draws) and with the subset, its weights scaled to sum to
//! 1, and the error is the distance between the two. Ties (equal largest errors) go to the
//! subset that comes first when subsets are listed from the heaviest, so a vertex whose
//! weights tie at the cut keeps the tied joint that moves it least, and where no frame tells
//! the subsets apart it keeps the heaviest.
//!
//! The kept weights are the source's, scaled to sum to 1, not re-fitted: a least-squares
//! refit over the frames lowers the mean error of a subset but not reliably its largest (the
//! quantity chosen by), it would make the weights depend on which clips a model happens to
//! carry, and it would move a vertex at the bind pose, which scaled weights never do (every
//! skinning transform is the identity there).
//!
//! The heaviest `keep` (largest weight first, ties to the lower joint index), as before this
//! choice existed, are kept:
//! - with fewer than two frames: one pose gives nothing to generalise from, and the bind pose
//!   alone cannot tell subsets apart;
//! - for a vertex with more than [`MAX_CANDIDATES`] subsets of `keep`;
//! - when frames × joints exceed [`MAX_MATRICES`] (the transforms are held in memory).
//!
//! [`Cut::notes`] says which applied, in words a writer reports as a loss.

use glam::{Affine3A, Vec3A};
use rayon::prelude::*;

use super::{Asset, Influences, UNBOUND};

/// The most subsets of `keep` influences tried for one vertex: 495 is every subset of 4 of
/// 12 influences (or of 8 of 12); a vertex with more falls back to its heaviest.
pub const MAX_CANDIDATES: usize = 512;

/// The most skinning transforms (frames × joints) the choice holds; past it every vertex
/// keeps its heaviest.
pub const MAX_MATRICES: usize = 1 << 20;

/// Per frame, per joint, the transform that takes a bind-pose point to where the frame puts
/// it (`world · bind⁻¹`): what [`Influences::cut`] judges subsets over.
#[derive(Debug, Clone, Default)]
pub struct SkinFrames {
    joints: usize,
    frames: usize,
    /// Frame-major; empty when over [`MAX_MATRICES`].
    matrices: Vec<Affine3A>,
}

impl SkinFrames {
    /// The transforms of the frames `frame(f, out)` gives (the world transforms of frame `f`,
    /// one per joint of `binds`; `None` past the last), relative to `binds`. A joint a frame
    /// lacks keeps its bind pose.
    pub fn new(
        binds: &[Affine3A],
        mut frame: impl FnMut(usize, &mut Vec<Affine3A>) -> Option<()>,
    ) -> SkinFrames {
        let inverse: Vec<Affine3A> = binds.iter().map(Affine3A::inverse).collect();
        let mut out = SkinFrames {
            joints: binds.len(),
            ..SkinFrames::default()
        };
        let mut world = Vec::new();
        while frame(out.frames, &mut world).is_some() {
            out.frames += 1;
            if out.frames.saturating_mul(out.joints) <= MAX_MATRICES {
                out.matrices.extend(
                    inverse
                        .iter()
                        .enumerate()
                        .map(|(j, inv)| world.get(j).map_or(Affine3A::IDENTITY, |w| *w * *inv)),
                );
            } else {
                out.matrices = Vec::new();
            }
        }
        out
    }

    /// The transforms of every joint frame of `asset` (its clips, in
    /// [`Asset::num_frames`]'s numbering); none for an asset without a skeleton or with
    /// vertex animation.
    #[must_use]
    pub fn of_asset(asset: &Asset) -> SkinFrames {
        let (Some(skeleton), Some(frames)) = (&asset.skeleton, asset.joint_frames()) else {
            return SkinFrames::default();
        };
        let binds: Vec<Affine3A> = skeleton.joints.iter().map(|j| j.world).collect();
        SkinFrames::new(&binds, |f, out| {
            *out = skeleton.world(frames.get(f)?);
            Some(())
        })
    }

    /// Frames.
    #[must_use]
    pub fn num_frames(&self) -> usize {
        self.frames
    }

    /// The transforms of frame `f`, one per joint; `None` past the last frame or when over
    /// [`MAX_MATRICES`].
    #[must_use]
    pub fn frame(&self, f: usize) -> Option<&[Affine3A]> {
        let at = f.checked_mul(self.joints)?;
        self.matrices.get(at..at.checked_add(self.joints)?)
    }

    /// Whether the transforms are held (frames × joints within [`MAX_MATRICES`]).
    fn held(&self) -> bool {
        self.frames.saturating_mul(self.joints) <= MAX_MATRICES
    }
}

/// Influences cut to at most `keep` a vertex by [`Influences::cut`], with what was done.
#[derive(Debug, Clone, Default)]
pub struct Cut {
    /// Every vertex's kept influences, largest first, scaled to sum to 1.
    pub influences: Influences,
    /// Influences kept at most.
    pub keep: usize,
    /// Frames the choice was judged over.
    pub frames: usize,
    /// Vertices that had more than `keep`.
    pub over: usize,
    /// Of those, the vertices that keep other than their heaviest.
    pub changed: usize,
    /// Of those, the vertices that keep their heaviest because they have more than
    /// [`MAX_CANDIDATES`] subsets.
    pub capped: usize,
    /// Why every vertex kept its heaviest, if the choice did not run.
    pub heaviest: Option<Heaviest>,
}

/// Why [`Influences::cut`] kept every vertex's heaviest influences.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Heaviest {
    /// Fewer than two frames.
    Frames,
    /// Frames × joints over [`MAX_MATRICES`].
    Budget,
}

impl Cut {
    /// Adds the counts of `other` (another mesh cut over the same frames) to these, for one
    /// note over every mesh.
    pub fn add(&mut self, other: &Cut) {
        self.keep = other.keep;
        self.frames = other.frames;
        self.heaviest = other.heaviest;
        self.over += other.over;
        self.changed += other.changed;
        self.capped += other.capped;
    }

    /// What the cut did, in words (nothing when no vertex had more than `keep`).
    #[must_use]
    pub fn notes(&self, what: &str) -> Vec<String> {
        let (over, keep, frames) = (self.over, self.keep, self.frames);
        if over == 0 {
            return Vec::new();
        }
        let mut notes = vec![match self.heaviest {
            Some(Heaviest::Frames) => format!(
                "{over} {what} had more than {keep} influences; their {keep} heaviest were \
                 kept ({frames} frames: no motion to choose by)"
            ),
            Some(Heaviest::Budget) => format!(
                "{over} {what} had more than {keep} influences; their {keep} heaviest were \
                 kept ({frames} frames of every joint exceed the {MAX_MATRICES} transforms \
                 the choice by error holds)"
            ),
            None => format!(
                "{over} {what} had more than {keep} influences; the {keep} whose largest error \
                 over {frames} frames is smallest were kept ({} differ from the {keep} \
                 heaviest)",
                self.changed
            ),
        }];
        if self.capped > 0 {
            notes.push(format!(
                "{} {what} have more than {MAX_CANDIDATES} subsets of {keep} influences to \
                 try; their {keep} heaviest were kept",
                self.capped
            ));
        }
        notes
    }
}

impl Influences {
    /// Every vertex's influences cut to at most `keep` (see [the module](self)): where a
    /// vertex has more, the subset whose largest error over `frames` is smallest, its weights
    /// scaled to sum to 1; `positions` are the vertices' bind positions. An influence on
    /// [`UNBOUND`] or a joint past the frames' stays at the bind pose.
    ///
    /// ```
    /// use glam::{Affine3A, Vec3};
    /// use skelmap_core::asset::{Influences, cut::SkinFrames};
    /// // Three joints at the bind pose; in frame 1 joint 2 moves far, joint 1 a little.
    /// let binds = [Affine3A::IDENTITY; 3];
    /// let frames = SkinFrames::new(&binds, |f, out| {
    ///     let far = Affine3A::from_translation(Vec3::X * 10.0 * f as f32);
    ///     let near = Affine3A::from_translation(Vec3::X * f as f32);
    ///     *out = vec![Affine3A::IDENTITY, near, far];
    ///     (f < 2).then_some(())
    /// });
    /// let mut influences = Influences::default();
    /// influences.push([(0, 0.4), (1, 0.35), (2, 0.25)].into_iter(), 0);
    /// // Keeping two: the heaviest pair (0, 1) misses joint 2's pull of 2.5 units; the pair
    /// // (0, 2) comes closer in frame 1.
    /// let cut = influences.cut(&[[0.0; 3]], 2, &frames);
    /// let kept: Vec<u16> = cut.influences.of(0).iter().map(|i| i.0).collect();
    /// assert_eq!(kept, [0, 2]);
    /// assert_eq!((cut.over, cut.changed), (1, 1));
    /// ```
    #[must_use]
    pub fn cut(&self, positions: &[[f32; 3]], keep: usize, frames: &SkinFrames) -> Cut {
        let vertices = self.starts.len().saturating_sub(1);
        let heaviest = if frames.num_frames() < 2 {
            Some(Heaviest::Frames)
        } else if !frames.held() {
            Some(Heaviest::Budget)
        } else {
            None
        };
        let chosen: Vec<(Vec<(u16, f32)>, Choice)> = (0..vertices)
            .into_par_iter()
            .map(|v| {
                let (top, over) = self.top(v, keep);
                if !over {
                    return (top, Choice::Within);
                }
                if heaviest.is_some() {
                    return (top, Choice::Heaviest);
                }
                let p = positions.get(v).copied().unwrap_or_default();
                choose(self.of(v), Vec3A::from_array(p), keep, frames)
                    .map_or((top, Choice::Capped), |(list, changed)| {
                        (list, Choice::ByError { changed })
                    })
            })
            .collect();
        let mut cut = Cut {
            keep,
            frames: frames.num_frames(),
            heaviest,
            ..Cut::default()
        };
        for (list, choice) in chosen {
            match choice {
                Choice::Within => {}
                Choice::Heaviest => cut.over += 1,
                Choice::Capped => {
                    cut.over += 1;
                    cut.capped += 1;
                }
                Choice::ByError { changed } => {
                    cut.over += 1;
                    cut.changed += usize::from(changed);
                }
            }
            cut.influences.push_exact(&list);
        }
        cut
    }
}

/// What happened to one vertex.
enum Choice {
    /// It had at most `keep`.
    Within,
    /// Its heaviest, by [`Cut::heaviest`].
    Heaviest,
    /// Its heaviest: too many subsets.
    Capped,
    /// Chosen by error; `changed` when not its heaviest.
    ByError { changed: bool },
}

/// `C(n, k)`, saturating.
fn subsets(n: usize, k: usize) -> usize {
    (0..k.min(n)).fold(1usize, |c, i| c.saturating_mul(n - i) / (i + 1))
}

/// The subset of `keep` of `list` (more than `keep`, weights summing to 1) whose largest
/// error over `frames` at bind position `p` is smallest, largest weight first and scaled to
/// sum to 1, and whether it differs from the heaviest; `None` past [`MAX_CANDIDATES`].
fn choose(
    list: &[(u16, f32)],
    p: Vec3A,
    keep: usize,
    frames: &SkinFrames,
) -> Option<(Vec<(u16, f32)>, bool)> {
    let mut sorted = list.to_vec();
    sorted.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let n = sorted.len();
    if subsets(n, keep) > MAX_CANDIDATES {
        return None;
    }
    let count = frames.num_frames();
    // Per frame, where each influence puts the vertex, and where all of them do.
    let mut moved = Vec::with_capacity(count * n);
    let mut full = Vec::with_capacity(count);
    for f in 0..count {
        let matrices = frames.frame(f).unwrap_or_default();
        let mut sum = Vec3A::ZERO;
        for &(joint, weight) in &sorted {
            let q = match matrices.get(usize::from(joint)) {
                Some(m) if joint != UNBOUND => m.transform_point3a(p),
                _ => p,
            };
            moved.push(q);
            sum += weight * q;
        }
        full.push(sum);
    }
    // The largest error of `subset` over the frames, starting at `first`; `None` as soon as
    // it reaches `bound`. Also the frame where it is largest.
    let error = |subset: &[usize], first: usize, bound: f32| -> Option<(f32, usize)> {
        let total: f32 = subset.iter().map(|&i| sorted[i].1).sum();
        let scale = 1.0 / total;
        let (mut worst, mut at) = (0.0f32, first);
        for k in 0..count {
            let f = (first + k) % count;
            let row = &moved[f * n..f * n + n];
            let got = subset
                .iter()
                .fold(Vec3A::ZERO, |s, &i| s + sorted[i].1 * row[i])
                * scale;
            let d = got.distance(full[f]);
            if d >= bound {
                return None;
            }
            if d > worst {
                (worst, at) = (d, f);
            }
        }
        Some((worst, at))
    };
    let mut subset: Vec<usize> = (0..keep).collect();
    let (mut best_error, mut worst_frame) = error(&subset, 0, f32::INFINITY)?;
    let mut best = subset.clone();
    // Every other subset, in lexicographic order from the heaviest; one that reaches the best
    // error in any frame is dropped there (its worst frame is tried first).
    while next_subset(&mut subset, n) {
        if let Some((e, at)) = error(&subset, worst_frame, best_error) {
            best_error = e;
            worst_frame = at;
            best.clone_from(&subset);
        }
    }
    let changed = best.iter().enumerate().any(|(k, &i)| k != i);
    let total: f32 = best.iter().map(|&i| sorted[i].1).sum();
    Some((
        best.iter()
            .map(|&i| (sorted[i].0, sorted[i].1 / total))
            .collect(),
        changed,
    ))
}

/// Advances `subset` (ascending indices below `n`) to the next in lexicographic order;
/// `false` after the last.
fn next_subset(subset: &mut [usize], n: usize) -> bool {
    let k = subset.len();
    for i in (0..k).rev() {
        if subset[i] < n - k + i {
            subset[i] += 1;
            for j in i + 1..k {
                subset[j] = subset[j - 1] + 1;
            }
            return true;
        }
    }
    false
}
