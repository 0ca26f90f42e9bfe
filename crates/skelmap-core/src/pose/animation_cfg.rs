//! Quake III's `animation.cfg`: the clips of a player model split into `lower`, `upper` and
//! `head` parts, and the player's metadata (`sex`, `headoffset`, `footsteps`, `fixedlegs`,
//! `fixedtorso`). The rules are those of ioquake3's `cgame` (`docs/formats/md3.md`,
//! § animation.cfg):
//!
//! 1. The text is split into tokens as the game's parser splits it ([`text::tokens`]); lines
//!    do not matter, comments do not count.
//! 2. Option words come first, each with its values; the first token that starts with a
//!    digit begins the animations. Another word is ignored with the rest of its line: the
//!    options the Spearmint-derived games add (Turtle Arena's `boundingbox -15 -15 -24 15 15
//!    44`, `speed 320`) carry numbers, which ioquake3, skipping the word alone, would take
//!    for the first animation. Those games also give `fixedlegs` and `fixedtorso` a value on
//!    their line (`true`, `false`, `1`, `0`), which is read.
//! 3. Each animation is four numbers: first frame, frame count (negative: played backwards),
//!    looping frames (the last that many frames repeat; 0 does not loop), frames per second
//!    (0 means 1). They come in the game's fixed order ([`NAMES`]): 25 are required; the six
//!    Team Arena gestures after them are optional and, when absent, copy `TORSO_GESTURE`.
//! 4. **The legs offset.** The file numbers frames as one sequence: the `BOTH_` animations,
//!    then the `TORSO_` ones, then the `LEGS_` ones. `upper.md3` stores the first two groups,
//!    `lower.md3` the first and the last, so a legs animation's first frame is moved back by
//!    `skip = first(LEGS_WALKCR) − first(TORSO_GESTURE)`: the number of torso-only frames.
//!    The Team Arena gestures, read after the legs, are torso animations and are not moved.
//! 5. **Named animations** (Elite Force's single-player style, which Spearmint and Turtle
//!    Arena read): a word starting `BOTH_`, `TORSO_` or `LEGS_` (any case) followed on its
//!    line by a number names the animation its four numbers give, in any order and number,
//!    among the options. A file with one reads no list after them. The legs offset is the
//!    first `LEGS_` animation's first frame less the first `TORSO_` animation's, in the
//!    file's order (less −1 when no torso animation precedes it, as Spearmint keeps it,
//!    which moves the first legs animation before frame 0: an error). An animation named
//!    again replaces the first; at most [`MAX_NAMED`] are read.
//! 6. **Elite Force's looping frames.** Where no animation gives a positive count of looping
//!    frames and one gives −1, the file counts them as Elite Force does: −1 does not loop and
//!    0 loops every frame. Otherwise −1 reads as 0.
//! 7. **A non-segmented player** (Tremulous' aliens, Unreal Arena): the option word
//!    `nonsegmented` says the player is one model, `nonseg.md3`, and its animations follow in
//!    that game's order instead, each moving the whole model, with no legs offset. The list
//!    lost and gained entries between releases of the game, each reading exactly as many
//!    animations as its list has and ignoring what follows. So the file's complete
//!    animations are counted and named by the longest list they fill
//!    ([`NONSEGMENTED_RELEASES`]): a file made for a release reads as that release reads it.
//!
//! Parsing is bounded: at most [`MAX_BYTES`] bytes and [`MAX_LINES`] lines, and only the
//! animations of the game's lists, or [`MAX_NAMED`] named ones, are read.

use crate::error::{Error, Problem, Result};
use crate::format::Format;
use crate::pose::framegroups::FrameGroup;
use crate::text::{self, Commas, Token};

/// The longest `animation.cfg` read, in bytes (the game reads under 20 000).
pub const MAX_BYTES: u64 = 1 << 16;

/// The most lines an `animation.cfg` may have.
pub const MAX_LINES: u64 = 4096;

/// The animations in the order the file lists them (ioquake3's `animNumber_t`), the first
/// [`REQUIRED`] of which every file has.
pub const NAMES: [&str; 31] = [
    "BOTH_DEATH1",
    "BOTH_DEAD1",
    "BOTH_DEATH2",
    "BOTH_DEAD2",
    "BOTH_DEATH3",
    "BOTH_DEAD3",
    "TORSO_GESTURE",
    "TORSO_ATTACK",
    "TORSO_ATTACK2",
    "TORSO_DROP",
    "TORSO_RAISE",
    "TORSO_STAND",
    "TORSO_STAND2",
    "LEGS_WALKCR",
    "LEGS_WALK",
    "LEGS_RUN",
    "LEGS_BACK",
    "LEGS_SWIM",
    "LEGS_JUMP",
    "LEGS_LAND",
    "LEGS_JUMPB",
    "LEGS_LANDB",
    "LEGS_IDLE",
    "LEGS_IDLECR",
    "LEGS_TURN",
    "TORSO_GETFLAG",
    "TORSO_GUARDBASE",
    "TORSO_PATROL",
    "TORSO_FOLLOWME",
    "TORSO_AFFIRMATIVE",
    "TORSO_NEGATIVE",
];

/// Animations every file lists (through `LEGS_TURN`).
pub const REQUIRED: usize = 25;

/// The most named animations a file may give (rule 5).
pub const MAX_NAMED: usize = 512;

/// The animations of a non-segmented player, in the order its file lists them: the longest
/// of the game's lists (`nonSegPlayerAnimNumber_t` up to `MAX_NONSEG_PLAYER_ANIMATIONS`).
/// Other releases leave some out ([`NONSEGMENTED_RELEASES`]).
pub const NONSEGMENTED: [&str; 27] = [
    "NSPA_STAND",
    "NSPA_GESTURE",
    "NSPA_WALK",
    "NSPA_RUN",
    "NSPA_RUNBACK",
    "NSPA_CHARGE",
    "NSPA_RUNLEFT",
    "NSPA_WALKLEFT",
    "NSPA_RUNRIGHT",
    "NSPA_WALKRIGHT",
    "NSPA_SWIM",
    "NSPA_JUMP",
    "NSPA_LAND",
    "NSPA_JUMPBACK",
    "NSPA_LANDBACK",
    "NSPA_TURN",
    "NSPA_ATTACK1",
    "NSPA_ATTACK2",
    "NSPA_ATTACK3",
    "NSPA_PAIN1",
    "NSPA_PAIN2",
    "NSPA_DEATH1",
    "NSPA_DEAD1",
    "NSPA_DEATH2",
    "NSPA_DEAD2",
    "NSPA_DEATH3",
    "NSPA_DEAD3",
];

/// The game's releases' lists of non-segmented animations, longest first, each as what it
/// leaves out of [`NONSEGMENTED`]: all 27; 26 without the charge; 24 without the dead
/// poses. A file's count of complete animations picks the longest list it fills.
pub const NONSEGMENTED_RELEASES: [&[&str]; 3] = [
    &[],
    &["NSPA_CHARGE"],
    &["NSPA_DEAD1", "NSPA_DEAD2", "NSPA_DEAD3"],
];

/// The names of the release that leaves out `omitted` ([`NONSEGMENTED_RELEASES`]), in order.
pub fn nonsegmented_names(omitted: &[&str]) -> impl Iterator<Item = &'static str> + Clone {
    NONSEGMENTED
        .into_iter()
        .filter(move |name| !omitted.contains(name))
}

const TORSO_GESTURE: usize = 6;
const LEGS_WALKCR: usize = 13;

/// Which part of a player an animation moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Body {
    /// Both legs and torso (`BOTH_`: the deaths), stored in `lower.md3` and `upper.md3`;
    /// also every animation of a non-segmented player, and the part `nonseg.md3` is.
    Both,
    /// The torso (`TORSO_`), stored in `upper.md3`.
    Torso,
    /// The legs (`LEGS_`), stored in `lower.md3`.
    Legs,
}

impl Body {
    /// The part an animation's name says.
    fn of(name: &str) -> Body {
        let starts = |prefix: &str| {
            name.get(..prefix.len())
                .is_some_and(|p| p.eq_ignore_ascii_case(prefix))
        };
        if starts("BOTH_") || starts("NSPA_") {
            Body::Both
        } else if starts("LEGS_") {
            Body::Legs
        } else {
            Body::Torso
        }
    }

    /// Whether a model of part `self` (`Legs` for `lower.md3`, `Torso` for `upper.md3`)
    /// stores the frames of an animation of part `of`.
    #[must_use]
    pub fn plays(self, of: Body) -> bool {
        of == Body::Both || of == self
    }
}

/// The player's voice set (`sex`): `f…` female, `n…` neuter, anything else male.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Sex {
    /// The default.
    #[default]
    Male,
    /// `sex f`.
    Female,
    /// `sex n`.
    Neuter,
}

/// The sound of the player's steps (`footsteps`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Footsteps {
    /// `default` or `normal`, and the default.
    #[default]
    Normal,
    /// `boot`.
    Boot,
    /// `flesh`.
    Flesh,
    /// `mech`.
    Mech,
    /// `energy`.
    Energy,
}

/// One animation of the file.
#[derive(Debug, Clone, PartialEq)]
pub struct Animation {
    /// Its name in the game's list ([`NAMES`], [`NONSEGMENTED`]), or as the file writes it
    /// (rule 5).
    pub name: String,
    /// The part of the body it moves.
    pub body: Body,
    /// Its first frame in the part's model: the file's number, less the torso-only frames for
    /// a legs animation (rule 4).
    pub first: u32,
    /// The frame number as the file writes it.
    pub stored_first: i64,
    /// Frames (at least 0; the file's sign is [`reversed`](Animation::reversed)).
    pub count: u32,
    /// `true` when the file gives a negative count: the game plays the frames backwards.
    pub reversed: bool,
    /// How many of the last frames repeat (0: the animation holds its last frame), as rule
    /// 6 reads the file's.
    pub looping: u32,
    /// The looping frames as the file writes them (−1 in Elite Force's count, rule 6).
    pub stored_looping: i32,
    /// Frames per second (a stored 0 reads as 1).
    pub fps: f32,
    /// The line its first frame is on (0 for a Team Arena gesture copied from
    /// `TORSO_GESTURE`).
    pub line: u64,
}

/// A parsed `animation.cfg` (see the [module docs](self)).
///
/// ```
/// use skelmap_core::pose::animation_cfg::{AnimationCfg, Body, Sex};
/// let mut text = String::from("sex f\nheadoffset 0 0 -2\n");
/// // 6 deaths of 10 frames, 7 torso clips of 10, 12 legs clips of 10, numbered in one run.
/// for i in 0..25 {
///     text += &format!("{} 10 10 15\n", i * 10);
/// }
/// let cfg = AnimationCfg::parse(text.as_bytes(), skelmap_core::Format::Md3)?;
/// assert_eq!((cfg.sex, cfg.head_offset), (Sex::Female, [0.0, 0.0, -2.0]));
/// let walkcr = &cfg.animations[13];
/// // The 70 torso-only frames are not in lower.md3: LEGS_WALKCR starts at 130 − 70.
/// assert_eq!((walkcr.name.as_str(), walkcr.stored_first, walkcr.first), ("LEGS_WALKCR", 130, 60));
/// let legs = cfg.clips(Body::Legs, 190);
/// assert_eq!(legs.len(), 6 + 12);
/// # Ok::<(), skelmap_core::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct AnimationCfg {
    /// `sex`.
    pub sex: Sex,
    /// `headoffset x y z` (zero by default).
    pub head_offset: [f32; 3],
    /// `footsteps`.
    pub footsteps: Footsteps,
    /// `fixedlegs`: the legs do not turn with the torso.
    pub fixed_legs: bool,
    /// `fixedtorso`: the torso does not pitch.
    pub fixed_torso: bool,
    /// The animations, in the order of [`NAMES`]: 25 to 31 of them.
    pub animations: Vec<Animation>,
    /// The torso-only frames the legs animations were moved back by (rule 4; rule 5 for
    /// named animations).
    pub legs_offset: i64,
    /// `nonsegmented`: the player is one model, `nonseg.md3`, and [`animations`] are its
    /// list ([`NONSEGMENTED_RELEASES`], rule 7), each of [`Body::Both`].
    ///
    /// [`animations`]: AnimationCfg::animations
    pub nonsegmented: bool,
}

/// The value of `fixedlegs` or `fixedtorso` (token `option`): on, unless the next token on
/// its line, which Spearmint's games add and is then taken, is `false` or `0` (`true` and `1`
/// are also taken).
fn switch<'t>(
    tokens: &mut core::iter::Peekable<impl Iterator<Item = Token<'t>>>,
    option: &Token<'_>,
) -> bool {
    let value = |t: &Token<'_>| match t.text.to_ascii_lowercase().as_slice() {
        b"true" | b"1" => Some(true),
        b"false" | b"0" => Some(false),
        _ => None,
    };
    tokens
        .next_if(|t| t.line == option.line && value(t).is_some())
        .and_then(|t| value(&t))
        .unwrap_or(true)
}

/// Whether `word` (lower case) names an animation, as the named dialect's lines start.
fn named(word: &[u8]) -> bool {
    [&b"both_"[..], b"torso_", b"legs_"]
        .iter()
        .any(|p| word.starts_with(p))
}

impl AnimationCfg {
    /// Parses `text`, an `animation.cfg` beside a model of `format` (the format errors name).
    ///
    /// # Errors
    ///
    /// [`Error::Limit`] past [`MAX_BYTES`] or [`MAX_LINES`] (`what` `"animation.cfg"`) or
    /// [`MAX_NAMED`] named animations (`"animation.cfg animations"`); [`Error::Invalid`]
    /// (`what` `"animation.cfg line"`, the offset of the token) with [`Problem::Field`] for a
    /// number that does not read (a first frame that is negative or not a whole number,
    /// looping frames below −1, a rate that is negative or not finite, a frame of the legs
    /// offset past the torso's) or a named animation's that the text ends before, or
    /// [`Problem::Entries`] when the text ends before the 25 required animations (before the
    /// 24 of the shortest list, for a non-segmented player).
    pub fn parse(text: &[u8], format: Format) -> Result<AnimationCfg> {
        text::check_size(text, format, "animation.cfg", MAX_BYTES, MAX_LINES)?;
        let mut tokens = text::tokens(text, Commas::InToken).peekable();
        let mut cfg = AnimationCfg {
            sex: Sex::Male,
            head_offset: [0.0; 3],
            footsteps: Footsteps::Normal,
            fixed_legs: false,
            fixed_torso: false,
            animations: Vec::with_capacity(NAMES.len()),
            legs_offset: 0,
            nonsegmented: false,
        };
        let mut named_dialect = Named::default();
        // Rule 2: options until a token that starts with a digit.
        while let Some(t) = tokens.next_if(|t| !t.text.first().is_some_and(u8::is_ascii_digit)) {
            let word = t.text.to_ascii_lowercase();
            match word.as_slice() {
                b"footsteps" => {
                    if let Some(v) = tokens.next() {
                        cfg.footsteps = match v.text.to_ascii_lowercase().as_slice() {
                            b"boot" => Footsteps::Boot,
                            b"flesh" => Footsteps::Flesh,
                            b"mech" => Footsteps::Mech,
                            b"energy" => Footsteps::Energy,
                            _ => Footsteps::Normal,
                        };
                    }
                }
                b"headoffset" => {
                    for k in 0..3 {
                        let Some(v) = tokens.next() else { break };
                        cfg.head_offset[k] =
                            field(&v, k as u64 + 1, format, |v: &f32| v.is_finite())?;
                    }
                }
                b"sex" => {
                    if let Some(v) = tokens.next() {
                        cfg.sex = match v.text.first().map(u8::to_ascii_lowercase) {
                            Some(b'f') => Sex::Female,
                            Some(b'n') => Sex::Neuter,
                            _ => Sex::Male,
                        };
                    }
                }
                b"fixedlegs" => cfg.fixed_legs = switch(&mut tokens, &t),
                b"fixedtorso" => cfg.fixed_torso = switch(&mut tokens, &t),
                b"nonsegmented" => cfg.nonsegmented = true,
                // Rule 5: a named animation, `BOTH_DEATH1 0 16 0 20`.
                _ if named(&word)
                    && tokens.peek().is_some_and(|n| {
                        n.line == t.line && n.text.first().is_some_and(u8::is_ascii_digit)
                    }) =>
                {
                    let fields = [tokens.next(), tokens.next(), tokens.next(), tokens.next()];
                    let animation = named_dialect.read(t, fields, text, format)?;
                    let known = &mut cfg.animations;
                    match known
                        .iter()
                        .position(|a| a.name.eq_ignore_ascii_case(&animation.name))
                    {
                        Some(same) => known[same] = animation,
                        None if known.len() < MAX_NAMED => known.push(animation),
                        None => {
                            return Err(Error::Limit {
                                format,
                                what: "animation.cfg animations",
                                offset: t.offset,
                                value: MAX_NAMED as u64 + 1,
                                max: MAX_NAMED as u64,
                            });
                        }
                    }
                }
                // Rule 2: another option, with its values.
                _ => while tokens.next_if(|n| n.line == t.line).is_some() {},
            }
        }
        if !cfg.animations.is_empty() {
            // Rule 5: named animations, and no list after them.
            cfg.legs_offset = named_dialect.legs_skip.unwrap_or(0);
        } else if cfg.nonsegmented {
            cfg.animations = nonsegmented(&mut tokens, text, format)?;
        } else {
            cfg.read_list(&mut tokens, text, format)?;
        }
        elite_force_loops(&mut cfg.animations);
        Ok(cfg)
    }

    /// Rules 3 and 4: the animations of [`NAMES`], four numbers each, in the game's order.
    fn read_list<'t>(
        &mut self,
        tokens: &mut impl Iterator<Item = Token<'t>>,
        text: &[u8],
        format: Format,
    ) -> Result<()> {
        let cfg = self;
        // Rule 3: four numbers an animation, in the game's order.
        let mut last_line = 1;
        for (i, name) in NAMES.iter().enumerate() {
            let mut fields = [None; 4];
            for slot in &mut fields {
                *slot = tokens.next();
                if slot.is_none() {
                    break;
                }
            }
            let [Some(first), Some(count), Some(looping), Some(fps)] = fields else {
                if i >= REQUIRED && fields[0].is_none() {
                    // Rule 3: a missing Team Arena gesture copies TORSO_GESTURE.
                    let mut copy = cfg.animations[TORSO_GESTURE].clone();
                    copy.name = (*name).to_string();
                    copy.reversed = false;
                    copy.line = 0;
                    cfg.animations.push(copy);
                    continue;
                }
                let line = fields.iter().flatten().last().map_or(last_line, |t| t.line);
                return Err(Error::Invalid {
                    format,
                    what: "animation.cfg line",
                    offset: fields
                        .iter()
                        .flatten()
                        .last()
                        .map_or(text.len() as u64, |t| t.offset),
                    problem: Problem::Entries {
                        line,
                        found: i as u64,
                        expected: REQUIRED as u64,
                    },
                });
            };
            last_line = fps.line;
            let gesture = cfg.animations.get(TORSO_GESTURE).map_or(0, |a| a.first);
            let legs_offset = &mut cfg.legs_offset;
            let fields = [first, count, looping, fps];
            let animation = Animation::read((*name).to_string(), fields, format, |stored| {
                // Rule 4: the legs animations are moved back by the torso-only frames.
                if i == LEGS_WALKCR {
                    *legs_offset = stored - i64::from(gesture);
                }
                if (LEGS_WALKCR..REQUIRED).contains(&i) {
                    stored - *legs_offset
                } else {
                    stored
                }
            })?;
            cfg.animations.push(animation);
        }
        Ok(())
    }

    /// The clips a model of `part` plays (`Body::Legs` for `lower.md3`, `Body::Torso` for
    /// `upper.md3`): the `BOTH_` animations and those of its part, named in lower case
    /// (`legs_walk`), looping when their looping frames are not 0, and only those within
    /// `num_frames` frames with at least one frame (the game clamps the others to frame 0).
    #[must_use]
    pub fn clips(&self, part: Body, num_frames: usize) -> Vec<FrameGroup> {
        self.animations
            .iter()
            .filter(|a| part.plays(a.body))
            .filter(|a| a.count > 0 && a.fits(num_frames))
            .map(|a| FrameGroup {
                name: a.name.to_ascii_lowercase(),
                first: a.first,
                count: a.count,
                fps: a.fps,
                looped: a.looping > 0,
            })
            .collect()
    }

    /// The animations `part` plays that run past `num_frames` frames: those
    /// [`AnimationCfg::clips`] leaves out (animations of no frames are not counted).
    pub fn outside(&self, part: Body, num_frames: usize) -> impl Iterator<Item = &Animation> {
        self.animations
            .iter()
            .filter(move |a| part.plays(a.body) && a.count > 0 && !a.fits(num_frames))
    }
}

impl Animation {
    /// Animation `name` from its line's four numbers (rule 3), its first frame in the model
    /// what `place` makes of the file's.
    fn read(
        name: String,
        [first, count, looping, fps]: [Token<'_>; 4],
        format: Format,
        place: impl FnOnce(i64) -> i64,
    ) -> Result<Animation> {
        let stored_first = i64::from(field::<i32>(&first, 1, format, |_| true)?);
        let bad = |field| Error::Invalid {
            format,
            what: "animation.cfg line",
            offset: first.offset,
            problem: Problem::Field {
                line: first.line,
                field,
            },
        };
        let first_frame = u32::try_from(place(stored_first)).map_err(|_| bad(1))?;
        let count = i64::from(field::<i32>(&count, 2, format, |_| true)?);
        let looping = field::<i32>(&looping, 3, format, |v| *v >= -1)?;
        let fps: f32 = field(&fps, 4, format, |v: &f32| v.is_finite())?;
        if fps < 0.0 {
            return Err(bad(4));
        }
        Ok(Animation {
            body: Body::of(&name),
            name,
            first: first_frame,
            stored_first,
            count: u32::try_from(count.unsigned_abs()).map_err(|_| bad(2))?,
            reversed: count < 0,
            looping: looping.max(0).unsigned_abs(),
            stored_looping: looping,
            fps: if fps == 0.0 { 1.0 } else { fps },
            line: first.line,
        })
    }

    /// Whether its frames lie within a model of `num_frames` frames.
    fn fits(&self, num_frames: usize) -> bool {
        self.first as usize + self.count as usize <= num_frames
    }
}

/// Where the named animations of rule 5 have got to: the first torso animation's frame
/// and the legs offset, each set by the first of its kind in the file.
#[derive(Default)]
struct Named {
    first_torso: Option<i64>,
    legs_skip: Option<i64>,
}

impl Named {
    /// The animation `name` names with `fields`, the four tokens after it (`None` past the
    /// text's end), its first frame moved by the legs offset for a legs animation.
    fn read(
        &mut self,
        name: Token<'_>,
        fields: [Option<Token<'_>>; 4],
        text: &[u8],
        format: Format,
    ) -> Result<Animation> {
        let [Some(first), Some(count), Some(looping), Some(fps)] = fields else {
            let given = fields.iter().flatten().count();
            let last = fields.iter().flatten().last().unwrap_or(&name);
            return Err(Error::Invalid {
                format,
                what: "animation.cfg line",
                offset: text.len() as u64,
                problem: Problem::Field {
                    line: last.line,
                    field: given as u64 + 1,
                },
            });
        };
        let name = String::from_utf8_lossy(name.text).into_owned();
        let body = Body::of(&name);
        Animation::read(
            name,
            [first, count, looping, fps],
            format,
            |stored| match body {
                Body::Torso => {
                    self.first_torso.get_or_insert(stored);
                    stored
                }
                Body::Legs => {
                    let torso = self.first_torso.unwrap_or(-1);
                    stored - *self.legs_skip.get_or_insert(stored - torso)
                }
                Body::Both => stored,
            },
        )
    }
}

/// Rule 6: where no animation loops a positive count of frames and one gives −1, Elite
/// Force's count: 0 loops every frame (−1, not looping, already reads as 0).
fn elite_force_loops(animations: &mut [Animation]) {
    let elite_force = animations.iter().any(|a| a.stored_looping == -1)
        && animations.iter().all(|a| a.stored_looping <= 0);
    if elite_force {
        for a in animations.iter_mut().filter(|a| a.stored_looping == 0) {
            a.looping = a.count;
        }
    }
}

/// A non-segmented player's animations (rule 7): the complete ones of four numbers that
/// follow, up to the longest list's count, named by the longest list of
/// [`NONSEGMENTED_RELEASES`] they fill.
fn nonsegmented<'t>(
    tokens: &mut impl Iterator<Item = Token<'t>>,
    text: &[u8],
    format: Format,
) -> Result<Vec<Animation>> {
    let count = |omitted: &[&str]| NONSEGMENTED.len() - omitted.len();
    let longest = NONSEGMENTED.len();
    let mut lines = Vec::with_capacity(longest);
    while lines.len() < longest {
        let (Some(a), Some(b), Some(c), Some(d)) =
            (tokens.next(), tokens.next(), tokens.next(), tokens.next())
        else {
            break;
        };
        lines.push([a, b, c, d]);
    }
    let shortest = NONSEGMENTED_RELEASES
        .iter()
        .map(|o| count(o))
        .min()
        .unwrap_or(0);
    let Some(omitted) = NONSEGMENTED_RELEASES
        .iter()
        .filter(|o| count(o) <= lines.len())
        .max_by_key(|o| count(o))
    else {
        return Err(Error::Invalid {
            format,
            what: "animation.cfg line",
            offset: lines.last().map_or(text.len() as u64, |l| l[3].offset),
            problem: Problem::Entries {
                line: lines.last().map_or(1, |l| l[3].line),
                found: lines.len() as u64,
                expected: shortest as u64,
            },
        });
    };
    nonsegmented_names(omitted)
        .zip(lines)
        .map(|(name, fields)| Animation::read(name.to_string(), fields, format, |s| s))
        .collect()
}

/// Token `t` (field `field` of its line) as a `T` that `keep` accepts (a whole number, as
/// the game's `atoi` reads a well-formed one; a finite float), or the error naming its line
/// and field.
fn field<T: core::str::FromStr>(
    t: &Token<'_>,
    field: u64,
    format: Format,
    keep: impl FnOnce(&T) -> bool,
) -> Result<T> {
    std::str::from_utf8(t.text)
        .ok()
        .and_then(|s| s.parse::<T>().ok())
        .filter(keep)
        .ok_or(Error::Invalid {
            format,
            what: "animation.cfg line",
            offset: t.offset,
            problem: Problem::Field {
                line: t.line,
                field,
            },
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The 25 required animations, `frames` each, numbered in one run from 0.
    fn run(frames: u32) -> String {
        (0..25)
            .map(|i| {
                format!(
                    "{} {frames} {frames} 20 // {}\n",
                    i * frames,
                    NAMES[i as usize]
                )
            })
            .collect()
    }

    #[test]
    fn options_then_animations_with_the_legs_offset() -> crate::error::Result<()> {
        let text = format!(
            "// q3\nfootsteps boot\nsex n\nfixedlegs\nunknown\n{}",
            run(5)
        );
        let cfg = AnimationCfg::parse(text.as_bytes(), Format::Md3)?;
        assert_eq!(
            (cfg.footsteps, cfg.sex, cfg.fixed_legs, cfg.fixed_torso),
            (Footsteps::Boot, Sex::Neuter, true, false)
        );
        assert_eq!(cfg.legs_offset, 35);
        assert_eq!(cfg.animations.len(), 31);
        let turn = &cfg.animations[24];
        assert_eq!(
            (turn.name.as_str(), turn.first, turn.stored_first, turn.line),
            ("LEGS_TURN", 85, 120, 30)
        );
        // The gestures copy TORSO_GESTURE.
        assert_eq!(cfg.animations[30].first, 30);
        assert_eq!(cfg.animations[30].line, 0);
        let torso: Vec<_> = cfg.clips(Body::Torso, 65).iter().map(|g| g.first).collect();
        assert_eq!(torso.len(), 6 + 7 + 6);
        assert_eq!(torso[..8], [0, 5, 10, 15, 20, 25, 30, 35]);
        Ok(())
    }

    /// Turtle Arena's players (`casey/animation.cfg`): Spearmint's options with numbers
    /// before the frames, each on its own line, and a comment after a value.
    #[test]
    fn another_option_is_ignored_with_the_rest_of_its_line() -> crate::error::Result<()> {
        let text = format!(
            "sex m\nfootsteps normal\ndefault_weapon wp_bat\nboundingbox -15 -15 -24 15 15 44\n\
             speed 320\nacceleration 10\nprefcolor1 2 // green\nability strength\n\n{}",
            run(5)
        );
        let cfg = AnimationCfg::parse(text.as_bytes(), Format::Md3)?;
        assert_eq!(cfg.animations.len(), 31);
        assert_eq!((cfg.animations[0].first, cfg.animations[0].line), (0, 10));
        assert_eq!(cfg.legs_offset, 35);
        // An animation's name followed by an empty quoted word is another option.
        let text = format!("legs_x \"\" 7\n{}", run(5));
        assert_eq!(
            AnimationCfg::parse(text.as_bytes(), Format::Md3)?.animations[1].first,
            5
        );
        // A line of its own after an option word still holds the frames.
        let text = format!("unknown words here\n{}", run(5));
        assert_eq!(
            AnimationCfg::parse(text.as_bytes(), Format::Md3)?.animations[1].first,
            5
        );
        Ok(())
    }

    /// Tremulous' and Unreal Arena's non-segmented players: `nonsegmented`, then one list of
    /// animations for the whole model, named by the longest list the file fills.
    #[test]
    fn a_non_segmented_player_reads_the_list_it_fills() -> crate::error::Result<()> {
        let lines = |n: usize| -> String {
            (0..n)
                .map(|i| format!("{} {} {} 15 // line {i}\n", i * 2, 2, i % 2))
                .collect()
        };
        let parse = |n: usize| {
            let text = format!("sex f\nnonsegmented\nfootsteps flesh\n{}", lines(n));
            AnimationCfg::parse(text.as_bytes(), Format::Md3)
        };
        for (n, release, charge) in [(27, 0, Some(5)), (26, 1, None), (24, 2, Some(5))] {
            let cfg = parse(n)?;
            assert!(cfg.nonsegmented);
            assert_eq!((cfg.sex, cfg.footsteps), (Sex::Female, Footsteps::Flesh));
            let names: Vec<_> = cfg.animations.iter().map(|a| a.name.as_str()).collect();
            let release: Vec<_> = nonsegmented_names(NONSEGMENTED_RELEASES[release]).collect();
            assert_eq!((names.len(), &names), (n, &release));
            assert_eq!(names.contains(&"NSPA_DEAD2"), n != 24);
            assert_eq!(
                names.iter().position(|&n| n == "NSPA_CHARGE"),
                charge,
                "{n}"
            );
            // No legs offset: every animation where the file puts it, moving the whole model.
            assert_eq!(cfg.legs_offset, 0);
            assert!(cfg.animations.iter().all(|a| a.body == Body::Both));
            let last = &cfg.animations[n - 1];
            assert_eq!(
                (last.first, last.stored_first, last.count, last.line),
                (2 * (n as u32 - 1), 2 * (n as i64 - 1), 2, n as u64 + 3)
            );
            // The model's clips: all of them, named in lower case.
            let clips = cfg.clips(Body::Both, 2 * n);
            assert_eq!(clips.len(), n);
            assert_eq!(
                (clips[0].name.as_str(), clips[0].looped),
                ("nspa_stand", false)
            );
            assert!(clips[1].looped);
        }
        // 25 complete animations and a broken one: the 24 of the release that reads 24.
        let cfg = parse(25)?;
        assert_eq!(cfg.animations.len(), 24);
        let text = format!("nonsegmented\n{}1 2", lines(25));
        assert_eq!(
            AnimationCfg::parse(text.as_bytes(), Format::Md3)?
                .animations
                .len(),
            24
        );
        // Past the longest list, the rest is not read.
        assert_eq!(parse(40)?.animations.len(), 27);
        // Fewer than the shortest list: no release reads it.
        let e = parse(23).err();
        assert!(
            matches!(
                e,
                Some(Error::Invalid {
                    what: "animation.cfg line",
                    problem: Problem::Entries {
                        line: 26,
                        found: 23,
                        expected: 24
                    },
                    ..
                })
            ),
            "{e:?}"
        );
        // A bad number names its line and field, as in a segmented file.
        let text = format!(
            "nonsegmented\n{}",
            lines(27).replace("4 2 0 15", "4 2 0 -15")
        );
        assert!(matches!(
            AnimationCfg::parse(text.as_bytes(), Format::Md3),
            Err(Error::Invalid {
                problem: Problem::Field { line: 4, field: 4 },
                ..
            })
        ));
        Ok(())
    }

    /// Turtle Arena's players (`raph/animation.cfg`), Elite Force's single-player style:
    /// each animation named on its line, in an order and number of the file's own, the
    /// options around them.
    #[test]
    fn named_animations_take_their_names_and_the_legs_offset_in_file_order()
    -> crate::error::Result<()> {
        let text = "sex m\nsoundpath raph\nspeed 320\n\
                    BOTH_DEATH1\t0\t16\t0\t20\n\
                    BOTH_LADDER_UP 16 4 4 30\n\
                    TORSO_GESTURE 20 10 0 20\n\
                    TORSO_ATTACK_GUN 30 6 0 15\n\
                    legs_walkcr 61 16 16 10 // lower case, the legs 25 torso frames on\n\
                    LEGS_WALK 77 -12 12 0\n\
                    fixedlegs false\nfixedtorso 1\n\
                    TORSO_GETFLAG 36 10 0 15\n\
                    TORSO_ATTACK_GUN 40 5 0 15 // again: replaces the first\n\
                    12 1 0 20 // a list after named animations is not read\n";
        let cfg = AnimationCfg::parse(text.as_bytes(), Format::Md3)?;
        assert!(!cfg.fixed_legs && cfg.fixed_torso && !cfg.nonsegmented);
        assert_eq!(cfg.legs_offset, 41);
        let read: Vec<_> = cfg
            .animations
            .iter()
            .map(|a| (a.name.as_str(), a.body, a.first, a.count, a.looping, a.line))
            .collect();
        assert_eq!(
            read,
            [
                ("BOTH_DEATH1", Body::Both, 0, 16, 0, 4),
                ("BOTH_LADDER_UP", Body::Both, 16, 4, 4, 5),
                ("TORSO_GESTURE", Body::Torso, 20, 10, 0, 6),
                ("TORSO_ATTACK_GUN", Body::Torso, 40, 5, 0, 13),
                ("legs_walkcr", Body::Legs, 20, 16, 16, 8),
                ("LEGS_WALK", Body::Legs, 36, 12, 12, 9),
                ("TORSO_GETFLAG", Body::Torso, 36, 10, 0, 12),
            ]
        );
        assert!(cfg.animations[5].reversed && cfg.animations[5].fps == 1.0);
        let legs: Vec<_> = cfg
            .clips(Body::Legs, 52)
            .into_iter()
            .map(|c| c.name)
            .collect();
        assert_eq!(
            legs,
            ["both_death1", "both_ladder_up", "legs_walkcr", "legs_walk"]
        );
        // A legs animation before any torso one: the offset from −1, as Spearmint keeps it,
        // which moves the first legs animation to frame −1.
        let e = AnimationCfg::parse(b"LEGS_IDLE 5 2 2 10\nLEGS_RUN 9 2 2 10\n", Format::Md3);
        assert!(matches!(
            e,
            Err(Error::Invalid {
                offset: 10,
                problem: Problem::Field { line: 1, field: 1 },
                ..
            })
        ));
        // A named animation the text ends in: the field missing, on its line.
        let e = AnimationCfg::parse(b"sex f\nBOTH_DEAD1 3 1", Format::Md3).err();
        assert!(
            matches!(
                e,
                Some(Error::Invalid {
                    offset: 20,
                    problem: Problem::Field { line: 2, field: 3 },
                    ..
                })
            ),
            "{e:?}"
        );
        // At most MAX_NAMED distinct names.
        let many: String = (0..=MAX_NAMED)
            .map(|i| format!("TORSO_{i} 0 1 0 10\n"))
            .collect();
        assert!(matches!(
            AnimationCfg::parse(many.as_bytes(), Format::Md3),
            Err(Error::Limit {
                what: "animation.cfg animations",
                value: 513,
                max: 512,
                ..
            })
        ));
        Ok(())
    }

    /// Elite Force's looping frames (−1 does not loop, 0 loops them all) where no animation
    /// gives a positive count; otherwise −1 reads as 0, and less is an error.
    #[test]
    fn elite_force_looping_frames_read_as_elite_force_counts_them() -> crate::error::Result<()> {
        let ef = run(5).replace("5 5 20", "5 0 20");
        let ef = ef.replacen("5 0 20", "5 -1 20", 1);
        let cfg = AnimationCfg::parse(ef.as_bytes(), Format::Md3)?;
        let loops: Vec<_> = cfg.animations.iter().map(|a| a.looping).take(3).collect();
        assert_eq!(loops, [0, 5, 5]);
        assert_eq!(cfg.animations[0].stored_looping, -1);
        assert_eq!(
            (cfg.animations[1].looping, cfg.animations[1].stored_looping),
            (5, 0)
        );
        // A positive count elsewhere: Quake III's count, −1 as 0.
        let q3 = ef.replacen("5 0 20", "5 3 20", 1);
        let cfg = AnimationCfg::parse(q3.as_bytes(), Format::Md3)?;
        let loops: Vec<_> = cfg.animations.iter().map(|a| a.looping).take(3).collect();
        assert_eq!(loops, [0, 3, 0]);
        let bad = run(5).replacen("5 5 20", "5 -2 20", 1);
        assert!(matches!(
            AnimationCfg::parse(bad.as_bytes(), Format::Md3),
            Err(Error::Invalid {
                problem: Problem::Field { line: 1, field: 3 },
                ..
            })
        ));
        Ok(())
    }

    #[test]
    fn errors_name_the_line() {
        let short = format!("sex m\n{}", &run(5)[..]).replace("120 5 5 20", "");
        let e = AnimationCfg::parse(short.as_bytes(), Format::Md3).err();
        assert!(
            matches!(
                e,
                Some(Error::Invalid {
                    what: "animation.cfg line",
                    problem: Problem::Entries {
                        found: 24,
                        expected: 25,
                        ..
                    },
                    ..
                })
            ),
            "{e:?}"
        );
        let bad = run(5).replace("15 5 5 20", "15 5 5 fast");
        let e = AnimationCfg::parse(bad.as_bytes(), Format::Md3).err();
        assert!(
            matches!(
                e,
                Some(Error::Invalid {
                    problem: Problem::Field { line: 4, field: 4 },
                    ..
                })
            ),
            "{e:?}"
        );
        let long = vec![b'\n'; MAX_LINES as usize];
        assert!(matches!(
            AnimationCfg::parse(&long, Format::Md3),
            Err(Error::Limit {
                what: "animation.cfg",
                ..
            })
        ));
    }
}
