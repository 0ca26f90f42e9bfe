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
//! Parsing is bounded: at most [`MAX_BYTES`] bytes and [`MAX_LINES`] lines, and only the
//! first [`NAMES`]`.len()` animations are read.

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

const TORSO_GESTURE: usize = 6;
const LEGS_WALKCR: usize = 13;

/// Which part of a player an animation moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Body {
    /// Both legs and torso (`BOTH_`: the deaths), stored in `lower.md3` and `upper.md3`.
    Both,
    /// The torso (`TORSO_`), stored in `upper.md3`.
    Torso,
    /// The legs (`LEGS_`), stored in `lower.md3`.
    Legs,
}

impl Body {
    /// The part an animation's name says.
    fn of(name: &str) -> Body {
        if name.starts_with("BOTH_") {
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
    /// animations.
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
            let stored_first = i64::from(field::<i32>(&first, 1, format, |_| true)?);
            if i == LEGS_WALKCR {
                cfg.legs_offset = stored_first - i64::from(cfg.animations[TORSO_GESTURE].first);
            }
            let body = Body::of(name);
            let moved = if (LEGS_WALKCR..REQUIRED).contains(&i) {
                stored_first - cfg.legs_offset
            } else {
                stored_first
            };
            let bad = |field| Error::Invalid {
                format,
                what: "animation.cfg line",
                offset: first.offset,
                problem: Problem::Field {
                    line: first.line,
                    field,
                },
            };
            let first_frame = u32::try_from(moved).map_err(|_| bad(1))?;
            let count = i64::from(field::<i32>(&count, 2, format, |_| true)?);
            let looping = field::<i32>(&looping, 3, format, |_| true)?;
            let fps: f32 = field(&fps, 4, format, |v: &f32| v.is_finite())?;
            if fps < 0.0 {
                return Err(bad(4));
            }
            cfg.animations.push(Animation {
                name,
                body,
                first: first_frame,
                stored_first,
                count: u32::try_from(count.unsigned_abs()).map_err(|_| bad(2))?,
                reversed: count < 0,
                looping: u32::try_from(looping).map_err(|_| bad(3))?,
                fps: if fps == 0.0 { 1.0 } else { fps },
                line: first.line,
            });
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
    /// Whether its frames lie within a model of `num_frames` frames.
    fn fits(&self, num_frames: usize) -> bool {
        self.first as usize + self.count as usize <= num_frames
    }
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
