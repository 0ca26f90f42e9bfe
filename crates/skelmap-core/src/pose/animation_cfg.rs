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
//!    for the first animation.
//! 3. Each animation is four numbers: first frame, frame count (negative: played backwards),
//!    looping frames (the last that many frames repeat; 0 does not loop), frames per second
//!    (0 means 1). They come in the game's fixed order ([`NAMES`]): 25 are required; the six
//!    Team Arena gestures after them are optional and, when absent, copy `TORSO_GESTURE`.
//! 4. **The legs offset.** The file numbers frames as one sequence: the `BOTH_` animations,
//!    then the `TORSO_` ones, then the `LEGS_` ones. `upper.md3` stores the first two groups,
//!    `lower.md3` the first and the last, so a legs animation's first frame is moved back by
//!    `skip = first(LEGS_WALKCR) − first(TORSO_GESTURE)`: the number of torso-only frames.
//!    The Team Arena gestures, read after the legs, are torso animations and are not moved.
//!
//! 5. **A non-segmented player** (Tremulous' aliens, Unreal Arena): the option word
//!    `nonsegmented` says the player is one model, `nonseg.md3`, and its animations follow in
//!    that game's order instead, each moving the whole model, with no legs offset. The list
//!    lost and gained entries between releases of the game, each reading exactly as many
//!    animations as its list has and ignoring what follows. So the file's complete
//!    animations are counted and named by the longest list ([`NONSEGMENTED`]) they fill:
//!    a file made for a release reads as that release reads it.
//!
//! Parsing is bounded: at most [`MAX_BYTES`] bytes and [`MAX_LINES`] lines, and only the
//! animations of the longest list are read.

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

/// The animations of a non-segmented player, in the order its file lists them: the lists
/// of the game's releases (`nonSegPlayerAnimNumber_t` up to `MAX_NONSEG_PLAYER_ANIMATIONS`),
/// longest first. A file's count of complete animations picks the longest list it fills.
pub const NONSEGMENTED: [&[&str]; 3] = [
    // With the charge and a dead pose after each death.
    &[
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
    ],
    // Without the charge.
    &[
        "NSPA_STAND",
        "NSPA_GESTURE",
        "NSPA_WALK",
        "NSPA_RUN",
        "NSPA_RUNBACK",
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
    ],
    // With the charge, without the dead poses.
    &[
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
        "NSPA_DEATH2",
        "NSPA_DEATH3",
    ],
];

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
        if name.starts_with("BOTH_") || name.starts_with("NSPA_") {
            Body::Both
        } else if name.starts_with("LEGS_") {
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
    /// Its name in the game's list ([`NAMES`]).
    pub name: &'static str,
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
    /// How many of the last frames repeat (0: the animation holds its last frame).
    pub looping: u32,
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
/// assert_eq!((walkcr.name, walkcr.stored_first, walkcr.first), ("LEGS_WALKCR", 130, 60));
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
    /// The torso-only frames the legs animations were moved back by (rule 4).
    pub legs_offset: i64,
    /// `nonsegmented`: the player is one model, `nonseg.md3`, and [`animations`] are its
    /// list ([`NONSEGMENTED`], rule 5), each of [`Body::Both`].
    ///
    /// [`animations`]: AnimationCfg::animations
    pub nonsegmented: bool,
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
    /// [`Error::Limit`] past [`MAX_BYTES`] or [`MAX_LINES`] (`what` `"animation.cfg"`);
    /// [`Error::Unsupported`] (`what` `"animation.cfg line"`, the value the line) for an
    /// animation named on its line (`BOTH_DEATH1 0 16 0 20`, Turtle Arena's dialect);
    /// [`Error::Invalid`] (`what` `"animation.cfg line"`, the offset of the token) with
    /// [`Problem::Field`] for a number that does not read (a first frame that is negative or
    /// not a whole number, a rate that is negative or not finite, a frame of the legs offset
    /// past the torso's), or [`Problem::Entries`] when the text ends before the 25 required
    /// animations (before the 24 of the shortest list, for a non-segmented player).
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
                b"fixedlegs" => cfg.fixed_legs = true,
                b"fixedtorso" => cfg.fixed_torso = true,
                b"nonsegmented" => cfg.nonsegmented = true,
                // The named dialect: `BOTH_DEATH1 0 16 0 20`, an animation a line.
                _ if named(&word)
                    && tokens.peek().is_some_and(|n| {
                        n.line == t.line && n.text.first().is_some_and(u8::is_ascii_digit)
                    }) =>
                {
                    return Err(Error::Unsupported {
                        format,
                        what: "animation.cfg line",
                        offset: t.offset,
                        value: t.line as i64,
                        supported: "animations are read as four numbers each, in ioquake3's \
                                    order; Turtle Arena's named animations are not",
                    });
                }
                // Rule 2: another option, with its values.
                _ => while tokens.next_if(|n| n.line == t.line).is_some() {},
            }
        }
        if cfg.nonsegmented {
            cfg.animations = nonsegmented(&mut tokens, text, format)?;
            return Ok(cfg);
        }
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
                    copy.name = name;
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
            let animation =
                Animation::read(name, [first, count, looping, fps], format, |stored| {
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
        Ok(cfg)
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
        name: &'static str,
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
        let looping = field::<i32>(&looping, 3, format, |_| true)?;
        let fps: f32 = field(&fps, 4, format, |v: &f32| v.is_finite())?;
        if fps < 0.0 {
            return Err(bad(4));
        }
        Ok(Animation {
            name,
            body: Body::of(name),
            first: first_frame,
            stored_first,
            count: u32::try_from(count.unsigned_abs()).map_err(|_| bad(2))?,
            reversed: count < 0,
            looping: u32::try_from(looping).map_err(|_| bad(3))?,
            fps: if fps == 0.0 { 1.0 } else { fps },
            line: first.line,
        })
    }

    /// Whether its frames lie within a model of `num_frames` frames.
    fn fits(&self, num_frames: usize) -> bool {
        self.first as usize + self.count as usize <= num_frames
    }
}

/// A non-segmented player's animations (rule 5): the complete ones of four numbers that
/// follow, up to the longest list's count, named by the longest list of
/// [`NONSEGMENTED`] they fill.
fn nonsegmented<'t>(
    tokens: &mut impl Iterator<Item = Token<'t>>,
    text: &[u8],
    format: Format,
) -> Result<Vec<Animation>> {
    let longest = NONSEGMENTED.iter().map(|l| l.len()).max().unwrap_or(0);
    let mut lines = Vec::with_capacity(longest);
    while lines.len() < longest {
        let (Some(a), Some(b), Some(c), Some(d)) =
            (tokens.next(), tokens.next(), tokens.next(), tokens.next())
        else {
            break;
        };
        lines.push([a, b, c, d]);
    }
    let shortest = NONSEGMENTED.iter().map(|l| l.len()).min().unwrap_or(0);
    let Some(names) = NONSEGMENTED
        .iter()
        .filter(|l| l.len() <= lines.len())
        .max_by_key(|l| l.len())
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
    names
        .iter()
        .zip(lines)
        .map(|(name, fields)| Animation::read(name, fields, format, |stored| stored))
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
            (turn.name, turn.first, turn.stored_first, turn.line),
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
        // Turtle Arena's named animations: refused at the first, by line.
        let text = "sex m\nBOTH_DEATH1 \t0\t16\t0\t20\nBOTH_DEAD1 15 1 0 20\n";
        assert!(matches!(
            AnimationCfg::parse(text.as_bytes(), Format::Md3),
            Err(Error::Unsupported {
                what: "animation.cfg line",
                offset: 6,
                value: 2,
                ..
            })
        ));
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
        for (n, list, charge) in [(27, 0, Some(5)), (26, 1, None), (24, 2, Some(5))] {
            let cfg = parse(n)?;
            assert!(cfg.nonsegmented);
            assert_eq!((cfg.sex, cfg.footsteps), (Sex::Female, Footsteps::Flesh));
            let names: Vec<_> = cfg.animations.iter().map(|a| a.name).collect();
            assert_eq!(names, NONSEGMENTED[list]);
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
