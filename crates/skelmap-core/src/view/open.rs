//! Opening a view from the files a model is made of: which companions a format looks for
//! beside the file opened ([`Open::companions`]), and how it validates them together
//! ([`Open::open`]). A view of one file (every [`Parse`] view) opens by parsing it; a view
//! with companions (a `Pair`) implements [`Open`] in its folder. The model's one dispatch over
//! the format table calls these, so opening names no format.

use std::sync::atomic::{AtomicBool, Ordering};

use crate::diag::Diagnostics;
use crate::error::Result;
use crate::limits::Limits;
use crate::parse::Parse;
use crate::resolver::Resolver;
use crate::source::Source;

/// What a file beside the model is to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Companion {
    /// A skeleton the mesh needs: an SKM's (`.skp`, named by its `.cfg` or its own name), an
    /// MDM's MDX.
    Skeleton,
    /// A level of detail: an SKM's (`name_1.skm` … `name_4.skm`), an MD3's (`name_1.md3`,
    /// `name_2.md3`).
    LevelOfDetail,
    /// The animation a model plays: an SL mesh's (`name.anim`), or one given to play (an
    /// animation-only IQM on an IQM, an `.md5anim` on an MD5 mesh, a PSA on a PSK).
    Animation,
    /// DarkPlaces' `.framegroups` sidecar (`model.dpm.framegroups`).
    FrameGroups,
    /// A Quake III or Enemy Territory `.skin` file naming the shader of each surface
    /// (`head_default.skin`, `body_s.skin`).
    Skin,
    /// A Quake III player's `animation.cfg`, beside its `lower.md3` and `upper.md3`.
    AnimationConfig,
    /// An animation found beside the model rather than given: each `.md5anim` in an
    /// `.md5mesh`'s folder (found by its kind, not its name), a PSK's `.psa` of the same
    /// name; played when it fits the model and otherwise left out with a warning.
    AnimationBeside,
    /// A Half-Life model's texture file (`<stem>T.mdl` or `<stem>t.mdl`), read when the
    /// model has no textures of its own.
    Textures,
    /// A Half-Life model's sequence-group file (`<stem>01.mdl` …, `IDSQ`), in group order.
    SequenceGroup,
    /// The Quake II remaster's `.md5scale` beside an `.md5anim` (`<anim stem>.md5scale`): the
    /// animation's per-joint scales.
    Scale,
    /// An Enemy Territory character file (`characters/**/*.char`) naming an MDM and the
    /// animation group its skeleton is found through.
    Character,
    /// An Enemy Territory animation group (`.anim`) or a file of clips it includes
    /// (`.aninc`): an MDM's skeleton and clips.
    AnimationGroup,
    /// The clips of an Enemy Territory MDX: the `.aninc` file of its stem beside it, the block
    /// ET's animation groups include for it.
    ClipList,
    /// An Enemy Territory animation group's animation file after its first (which is the
    /// MDM's [`Skeleton`](Companion::Skeleton)): an MDX of more frames on the same bones,
    /// played after the skeleton's.
    AnimationFile,
}

impl Companion {
    /// A stable identifier for what the file is to the model, in snake case (the name `info
    /// --json` gives it).
    ///
    /// ```
    /// use skelmap_core::model::Companion;
    /// assert_eq!(Companion::SequenceGroup.name(), "sequence_group");
    /// ```
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Companion::Skeleton => "skeleton",
            Companion::LevelOfDetail => "level_of_detail",
            Companion::Animation => "animation",
            Companion::FrameGroups => "frame_groups",
            Companion::Skin => "skin",
            Companion::AnimationConfig => "animation_config",
            Companion::AnimationBeside => "animation_beside",
            Companion::Textures => "textures",
            Companion::SequenceGroup => "sequence_group",
            Companion::Scale => "scale",
            Companion::Character => "character",
            Companion::AnimationGroup => "animation_group",
            Companion::ClipList => "clip_list",
            Companion::AnimationFile => "animation_file",
        }
    }
}

/// A companion: what it is, its path, its bytes.
pub(crate) type CompanionFile<'data> = (Companion, String, Source<'data>);

/// The files a model is made of: the one opened, then its companions.
#[derive(Debug)]
pub(crate) struct Files<'data> {
    pub(crate) path: String,
    pub(crate) main: Source<'data>,
    pub(crate) companions: Vec<CompanionFile<'data>>,
    /// The body value a Half-Life model shows ([`OpenOptions::body`](crate::model::OpenOptions::body)).
    pub(crate) body: Option<u32>,
    /// Per companion, whether opening left it out ([`Files::leave_out`]). Set through a shared
    /// reference: the view borrows the files while it is made.
    left_out: Vec<AtomicBool>,
}

impl<'data> Files<'data> {
    /// The files of a model, none of its companions left out yet.
    pub(crate) fn new(
        path: String,
        main: Source<'data>,
        companions: Vec<CompanionFile<'data>>,
        body: Option<u32>,
    ) -> Files<'data> {
        let left_out = companions.iter().map(|_| AtomicBool::new(false)).collect();
        Files {
            path,
            main,
            companions,
            body,
            left_out,
        }
    }

    /// Records that the companion at `path` was opened but left out (each caller also warns
    /// with a [`WarningKind::CompanionIgnored`](crate::WarningKind::CompanionIgnored) saying
    /// why): [`Model::left_out`](crate::Model::left_out) lists it.
    pub(crate) fn leave_out(&self, path: &str) {
        for ((_, p, _), flag) in self.companions.iter().zip(&self.left_out) {
            if p == path {
                flag.store(true, Ordering::Relaxed);
            }
        }
    }

    /// Whether companion `index` was left out.
    pub(crate) fn is_left_out(&self, index: usize) -> bool {
        self.left_out
            .get(index)
            .is_some_and(|flag| flag.load(Ordering::Relaxed))
    }

    /// The companions of one kind, in the order they were found.
    pub(crate) fn companion(&self, kind: Companion) -> impl Iterator<Item = &Source<'data>> {
        self.companions
            .iter()
            .filter(move |(k, _, _)| *k == kind)
            .map(|(_, _, source)| source)
    }
}

/// Companion files given by path rather than found by name (an SKM's skeleton, the
/// animation-only IQM an IQM plays), and companions chosen by name (an MD3's skin).
#[derive(Debug, Default)]
pub(crate) struct Given<'data> {
    pub(crate) skeleton: Option<(String, Source<'data>)>,
    pub(crate) animation: Option<(String, Source<'data>)>,
    pub(crate) skin: Option<String>,
    pub(crate) body: Option<u32>,
}

/// A view opened from a model's files.
pub(crate) trait Open<'a>: Sized {
    /// Whether a DarkPlaces `.framegroups` file beside the model is looked for to name and
    /// time its clips: yes by default, as DarkPlaces and FTE do for the formats whose frames
    /// carry no clips; no for a format that names its own clips in its files or companions
    /// (Half-Life sequences, MD5 animations, ET's animation groups), which no engine reads a
    /// sidecar for and whose opening then skips the look-up.
    const FRAME_GROUPS: bool = true;

    /// The companions of the file at `path` (a VFS path `resolver` serves) whose bytes are
    /// `main` (not yet validated: a format may read its header to know which companions it
    /// uses), `given` first where it holds them; none by default.
    fn companions<'data, R: Resolver<'data> + ?Sized>(
        resolver: &R,
        path: &str,
        main: &[u8],
        given: Given<'data>,
    ) -> Result<Vec<CompanionFile<'data>>> {
        let _ = (resolver, path, main, given);
        Ok(Vec::new())
    }

    /// The game's base directory of a file at `path` on disk opened without one given, for a
    /// format whose companions are named from there (an MDM's character files, under
    /// `characters/`); `None`, the file's own directory, by default.
    fn base_dir(path: &std::path::Path) -> Option<std::path::PathBuf> {
        let _ = path;
        None
    }

    /// Validates `files` (the main file, then its companions) into the view.
    fn open(files: &'a Files<'_>, limits: &Limits, diag: &mut Diagnostics) -> Result<Self>;
}

/// A view of one file: parsed, and no companions.
impl<'a, T: Parse<'a>> Open<'a> for T {
    fn open(files: &'a Files<'_>, limits: &Limits, diag: &mut Diagnostics) -> Result<Self> {
        T::parse_with(files.main.bytes(), limits, diag)
    }
}
