//! Models attached to one another at their attachment points, posed together: a Quake III
//! player (`lower.md3` carrying `upper.md3` on its `tag_torso`, which carries `head.md3` on
//! its `tag_head` and a weapon on its `tag_weapon`), a rider on a mount, a weapon in a hand.
//!
//! An [`Assembly`] is a tree of [`Part`]s: a root, and parts each placed on an attachment of
//! a part before it. Each part keeps its own pose, so a player's legs and torso play
//! different clips; [`Assembly::place`] gives every part's transform into the root's
//! space, each the product of its ancestors' attachment transforms in their poses.

use std::collections::HashSet;
use std::path::Path;

use glam::Affine3A;

use super::{Model, OpenOptions};
use crate::error::{Error, Result};
use crate::limits::Limits;
use crate::resolver::Resolver;
use crate::view::{DeformError, Pose};

/// A part of [`PLAYER`]: its name, its file, and the parent part and tag it is attached at.
pub type PlayerPart = (&'static str, &'static str, Option<(usize, &'static str)>);

/// The parts of a Quake III player, their files and where each is attached: `lower.md3`
/// the root, `upper.md3` on its `tag_torso`, `head.md3` on the torso's `tag_head`
/// (`docs/formats/md3.md`, § The player).
pub const PLAYER: [PlayerPart; 3] = [
    ("lower", "lower.md3", None),
    ("upper", "upper.md3", Some((0, "tag_torso"))),
    ("head", "head.md3", Some((1, "tag_head"))),
];

/// One model of an [`Assembly`].
#[derive(Debug)]
pub struct Part<'data> {
    /// Its name in the assembly (`lower`, `upper`, `head`, `weapon`).
    pub name: String,
    /// The model.
    pub model: Model<'data>,
    /// Where it is attached: the parent part's index and the index of the parent's
    /// attachment ([`Model::attachments`]); `None` for the root.
    pub parent: Option<(usize, usize)>,
}

/// Why a part could not be attached.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AttachError {
    /// The parent part does not exist.
    #[error("part {parent} does not exist: the assembly has {parts}")]
    NoPart {
        /// The parent asked for.
        parent: usize,
        /// Parts the assembly has.
        parts: usize,
    },
    /// The parent has no attachment of that name.
    #[error("part {parent:?} has no attachment {attachment:?}")]
    NoAttachment {
        /// The parent's name.
        parent: String,
        /// The attachment asked for.
        attachment: String,
    },
}

/// Models attached to one another: a tree of [`Part`]s, a root and parts each placed on an
/// attachment of a part before it, each posed by its own [`Pose`] ([`Assembly::place`]).
///
/// ```
/// use skelmap_core::Model;
/// use skelmap_core::md3::{Builder, write::TagDef};
/// use skelmap_core::model::{Assembly, Pose};
/// use skelmap_core::pose::Interpolation;
///
/// let mut legs = Builder::triangle();
/// legs.tags = vec![vec![TagDef::at("tag_torso", [0.0, 0.0, 24.0])]];
/// let mut torso = Builder::triangle();
/// torso.tags = vec![vec![TagDef::at("tag_head", [0.0, 0.0, 16.0])]];
/// let (legs, torso, head) = (legs.write(), torso.write(), Builder::triangle().write());
/// let mut player = Assembly::new("lower", Model::from_bytes(&legs)?);
/// let upper = player.attach("upper", Model::from_bytes(&torso)?, 0, b"tag_torso")?;
/// player.attach("head", Model::from_bytes(&head)?, upper, b"tag_head")?;
///
/// let mut poses = vec![Pose::default(); 3];
/// for (part, pose) in player.parts().iter().zip(&mut poses) {
///     part.model.pose(0, 0, 0.0, Interpolation::Nlerp, pose)?;
/// }
/// let mut placed = Vec::new();
/// player.place(&poses, &mut placed)?;
/// assert_eq!(placed[2].translation.to_array(), [0.0, 0.0, 40.0]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct Assembly<'data> {
    parts: Vec<Part<'data>>,
}

impl<'data> Assembly<'data> {
    /// An assembly of one part, its root.
    #[must_use]
    pub fn new(name: &str, model: Model<'data>) -> Assembly<'data> {
        Assembly {
            parts: vec![Part {
                name: name.to_string(),
                model,
                parent: None,
            }],
        }
    }

    /// Attaches `model` as part `name` at `parent`'s first attachment named `attachment`, and
    /// returns its index.
    ///
    /// # Errors
    ///
    /// [`AttachError::NoPart`] for a parent past the parts, [`AttachError::NoAttachment`] when
    /// the parent has no such attachment.
    pub fn attach(
        &mut self,
        name: &str,
        model: Model<'data>,
        parent: usize,
        attachment: &[u8],
    ) -> Result<usize, AttachError> {
        let parts = self.parts.len();
        let host = self
            .parts
            .get(parent)
            .ok_or(AttachError::NoPart { parent, parts })?;
        let at =
            host.model
                .attachment_index(attachment)
                .ok_or_else(|| AttachError::NoAttachment {
                    parent: host.name.clone(),
                    attachment: crate::name::lossy(attachment).into_owned(),
                })?;
        self.parts.push(Part {
            name: name.to_string(),
            model,
            parent: Some((parent, at)),
        });
        Ok(parts)
    }

    /// The parts, the root first and every parent before its children.
    #[must_use]
    pub fn parts(&self) -> &[Part<'data>] {
        &self.parts
    }

    /// The index of the part named `name`.
    #[must_use]
    pub fn part_index(&self, name: &str) -> Option<usize> {
        self.parts.iter().position(|p| p.name == name)
    }

    /// Every part's transform into the root's space, given each part's pose (`poses[i]` of
    /// part `i`, sampled from its own model), into `out` (one per part; the root's is the
    /// identity): [`place_parts`] of the parts.
    ///
    /// # Errors
    ///
    /// As [`place_parts`].
    pub fn place(&self, poses: &[Pose], out: &mut Vec<Affine3A>) -> Result<(), DeformError> {
        place_parts(&self.parts, |i| poses.get(i), out)
    }

    /// The parts, taken out of the assembly (to keep each model elsewhere, as the C ABI's
    /// player does, and still [`place_parts`] them).
    #[must_use]
    pub fn into_parts(self) -> Vec<Part<'data>> {
        self.parts
    }
}

/// What [`place_parts`] needs of a part: its model and where it is attached.
pub trait Attached<'data> {
    /// The part's model.
    fn model(&self) -> &Model<'data>;
    /// The parent part's index and the index of the parent's attachment it hangs on;
    /// `None` for the root.
    fn parent(&self) -> Option<(usize, usize)>;
}

impl<'data> Attached<'data> for Part<'data> {
    fn model(&self) -> &Model<'data> {
        &self.model
    }

    fn parent(&self) -> Option<(usize, usize)> {
        self.parent
    }
}

/// Every part's transform into the root's space, given each part's pose (`pose(i)` of part
/// `i`, sampled from its own model), into `out` (one per part; the root's is the identity).
/// A part's transform is its parent's times the parent's attachment in the parent's pose
/// ([`Model::attachment_transform`]). Parents come before their children; a part whose
/// parent does not is refused. `out` is cleared and refilled, so a caller that reuses it
/// allocates nothing once it has the capacity.
///
/// # Errors
///
/// [`DeformError::NoMesh`] when `pose` gives no pose for some part (its `mesh` the first
/// such part) or a parent does not come before its child (its `mesh` the parent); the errors
/// of [`Model::attachment_transform`] for a parent's pose that cannot place the attachment.
pub fn place_parts<'data, 'p>(
    parts: &[impl Attached<'data>],
    pose: impl Fn(usize) -> Option<&'p Pose>,
    out: &mut Vec<Affine3A>,
) -> Result<(), DeformError> {
    out.clear();
    let meshes = parts.len();
    if let Some(mesh) = (0..meshes).find(|&i| pose(i).is_none()) {
        return Err(DeformError::NoMesh { mesh, meshes });
    }
    for part in parts {
        let placed = match part.parent() {
            None => Affine3A::IDENTITY,
            Some((parent, attachment)) => {
                let (Some(host), Some(pose), Some(&base)) =
                    (parts.get(parent), pose(parent), out.get(parent))
                else {
                    return Err(DeformError::NoMesh {
                        mesh: parent,
                        meshes: out.len(),
                    });
                };
                base * host.model().attachment_transform(attachment, pose)?
            }
        };
        out.push(placed);
    }
    Ok(())
}

/// Clips of an [`Assembly`]'s parts played together, as one animation of the whole: a
/// player's legs running while its torso stands ([`Assembly::clip_sets`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClipSet {
    /// Its name: the names of the clips it plays, in part order, joined by `+`
    /// (`legs_run+torso_stand`; `both_death1` when the parts play clips of one name).
    pub name: String,
    /// Per part, the index in its model's [`Model::clips`] of the clip it plays, or `None`
    /// for a part that plays none (it stays in its first frame).
    pub clips: Vec<Option<usize>>,
}

/// The clip names a part falls back to while another part plays (Quake III's idle legs and
/// torso, as the game's `cgame` plays them).
const IDLE_CLIPS: [&str; 2] = ["legs_idle", "torso_stand"];

impl Assembly<'_> {
    /// Every set of clips worth playing together, one per clip name of some part: each part
    /// with a clip of that name plays it; every other part with clips plays its idle clip
    /// (`legs_idle` or `torso_stand` when it has one, else its first). A part of one frame
    /// plays nothing. Sets that play the same clips are kept once. For a Quake III player: `both_death1` on legs and torso,
    /// `legs_run+torso_stand`, `legs_idle+torso_attack`, …
    #[must_use]
    pub fn clip_sets(&self) -> Vec<ClipSet> {
        let mut sets: Vec<ClipSet> = Vec::new();
        let mut seen: HashSet<Vec<Option<usize>>> = HashSet::new();
        for part in self.parts.iter().filter(|p| p.model.num_frames() > 1) {
            for clip in part.model.clips() {
                let set = self.clip_set_of(&[clip.name.as_str()]);
                if seen.insert(set.clips.clone()) {
                    sets.push(set);
                }
            }
        }
        sets
    }

    /// The set in which each part plays the first of `names` it has a clip of, and the
    /// other parts of more than one frame their idle clip (as in [`Assembly::clip_sets`]); `None` when
    /// some name is no part's clip.
    #[must_use]
    pub fn clip_set(&self, names: &[&str]) -> Option<ClipSet> {
        let known = |name: &&str| self.parts.iter().any(|p| p.model.clip(name).is_some());
        names.iter().all(known).then(|| self.clip_set_of(names))
    }

    /// The set of `names` (see [`Assembly::clip_set`]), each part's clips found by name
    /// ([`Model::clip_index`]).
    fn clip_set_of(&self, names: &[&str]) -> ClipSet {
        let mut clips = Vec::with_capacity(self.parts.len());
        let mut played: Vec<&str> = Vec::new();
        for part in &self.parts {
            // A part of one frame has nothing to play.
            let own = if part.model.num_frames() > 1 {
                part.model.clips()
            } else {
                &[]
            };
            let find = |wanted: &[&str]| {
                let found = |name: &&str| part.model.clip_index(name).filter(|_| !own.is_empty());
                wanted.iter().find_map(found)
            };
            let index = find(names)
                .or_else(|| find(&IDLE_CLIPS))
                .or((!own.is_empty()).then_some(0));
            if let Some(clip) = index.and_then(|i| own.get(i))
                && !played.contains(&clip.name.as_str())
            {
                played.push(&clip.name);
            }
            clips.push(index);
        }
        ClipSet {
            name: played.join("+"),
            clips,
        }
    }
}

impl Assembly<'static> {
    /// Opens the Quake III player in the folder `path` (or whose `lower.md3` `path` is):
    /// [`PLAYER`]'s parts, each opened with `options` (so with its skin, `--skin` style,
    /// and, for the legs and torso, the clips of the `animation.cfg` beside them, else of
    /// their frame names), and `weapon`, when given, on the torso's `tag_weapon` (opened with
    /// its own default skin).
    ///
    /// # Errors
    ///
    /// A part's error from [`Model::open_with`] (a missing part is an [`Error::Io`]);
    /// [`Error::Resolve`] naming the parent's file when a parent lacks the tag its child is
    /// attached at.
    pub fn open_player(
        path: impl AsRef<Path>,
        weapon: Option<&Path>,
        options: &OpenOptions,
    ) -> Result<Assembly<'static>> {
        let path = path.as_ref();
        let dir = if path.is_dir() {
            path
        } else {
            path.parent().unwrap_or(Path::new(""))
        };
        let [lower, upper, head] = PLAYER.map(|(_, file, _)| {
            let at = dir.join(file);
            Model::open_with(&at, options).map(|m| (m, at.display().to_string()))
        });
        let weapon = weapon
            .map(|w| {
                // A weapon has its own skins, not the player's.
                let own = OpenOptions {
                    skin: None,
                    ..options.clone()
                };
                Model::open_with(w, &own).map(|m| (m, w.display().to_string()))
            })
            .transpose()?;
        player_of([lower?, upper?, head?], weapon)
    }
}

impl<'data> Assembly<'data> {
    /// [`Assembly::open_player`] through a [`Resolver`] (a game's virtual file system, a
    /// package held in memory): the parts are `folder/lower.md3`, `folder/upper.md3` and
    /// `folder/head.md3`, each opened by [`Model::resolve`] (with its default skin and, for
    /// the legs and torso, the `folder/animation.cfg` the resolver serves), and `weapon`, a
    /// path the resolver serves, on the torso's `tag_weapon`.
    ///
    /// ```
    /// use std::collections::HashMap;
    /// use skelmap_core::model::Assembly;
    /// use skelmap_core::{Limits, synth};
    ///
    /// let files: HashMap<String, Vec<u8>> = synth::player(2)
    ///     .files
    ///     .into_iter()
    ///     .map(|(name, bytes)| (format!("models/players/synth/{name}"), bytes))
    ///     .collect();
    /// let player = Assembly::resolve_player(&&files, "models/players/synth", None, &Limits::DEFAULT)?;
    /// assert_eq!(player.parts().len(), 3);
    /// assert_eq!(player.parts()[0].model.clips().len(), 18);
    /// # Ok::<(), skelmap_core::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// A part's error from [`Model::resolve`] (a missing part is an [`Error::Resolve`]);
    /// [`Error::Resolve`] naming the parent's path when a parent lacks the tag its child is
    /// attached at.
    pub fn resolve_player<R: Resolver<'data> + ?Sized>(
        resolver: &R,
        folder: &str,
        weapon: Option<&str>,
        limits: &Limits,
    ) -> Result<Assembly<'data>> {
        let folder = folder.trim_end_matches('/');
        let [lower, upper, head] = PLAYER.map(|(_, file, _)| {
            let at = if folder.is_empty() {
                file.to_string()
            } else {
                format!("{folder}/{file}")
            };
            Model::resolve(resolver, &at, limits).map(|m| (m, at))
        });
        let weapon = weapon
            .map(|w| Model::resolve(resolver, w, limits).map(|m| (m, w.to_string())))
            .transpose()?;
        player_of([lower?, upper?, head?], weapon)
    }
}

/// The player of [`PLAYER`]'s parts, each with the path it was opened from, and a weapon on
/// the torso's `tag_weapon`; an error names the parent's path and the tag it lacks.
fn player_of<'data>(
    parts: [(Model<'data>, String); 3],
    weapon: Option<(Model<'data>, String)>,
) -> Result<Assembly<'data>> {
    let mut player: Option<Assembly<'data>> = None;
    let mut paths = Vec::with_capacity(4);
    let weapon = weapon.map(|w| ("weapon", w, Some((1, "tag_weapon"))));
    let parts = PLAYER
        .into_iter()
        .zip(parts)
        .map(|((name, _, parent), part)| (name, part, parent))
        .chain(weapon);
    for (name, (model, path), parent) in parts {
        match (&mut player, parent) {
            (Some(player), Some((parent, tag))) => {
                player
                    .attach(name, model, parent, tag.as_bytes())
                    .map_err(|_| Error::Resolve {
                        path: paths
                            .get(parent)
                            .map_or_else(String::new, |p| format!("{p}: {tag}")),
                        reason: "the part to attach to has no such tag",
                    })?;
            }
            _ => player = Some(Assembly::new(name, model)),
        }
        paths.push(path);
    }
    player.ok_or(Error::Resolve {
        path: String::new(),
        reason: "no player parts",
    })
}
