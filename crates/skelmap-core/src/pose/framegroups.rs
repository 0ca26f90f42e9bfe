//! Named animations: frame ranges from frame names, or from DarkPlaces' `.framegroups` file.
//!
//! Frame names such as `walk_1`, `walk_2`, `walk_3` group into `walk` (a trailing `_N` or
//! trailing digits are stripped; consecutive frames with the same stem form one group), and
//! Quake II's `pain101` … `pain104`, `pain201` … into `pain1`, `pain2` …. The
//! `.framegroups` sidecar lists one group per line, as DarkPlaces reads it: `first count
//! [fps [loop [name]]]` (fps 20 and looping when left out; `loop` an integer, 0 for no),
//! further words ignored; words are split by white space, a quoted word is one; `//` comments
//! run to the end of the line and `/* */` comments may span lines. A line ends at `\n`,
//! `\r\n` or a lone `\r` (files saved with the Mac's line endings), as in DarkPlaces. Where the fifth word
//! gives no name, the line's `//` comment does (Xonotic's files name their groups so), else
//! the group is `group N`. Lines without words are skipped.

use crate::error::{Error, Problem, Result};
use crate::format::Format;

/// A named range of frames.
#[derive(Debug, Clone, PartialEq)]
pub struct FrameGroup {
    /// Name (from the frames' stem, or the `.framegroups` comment; `group N` otherwise).
    pub name: String,
    /// First frame.
    pub first: u32,
    /// Number of frames.
    pub count: u32,
    /// Frames per second.
    pub fps: f32,
    /// Whether the animation loops.
    pub looped: bool,
}

/// `name`'s stem: the name without trailing digits and the `_` or space before them
/// (`walk_1`, MED's `walk 1`), taken from the name as text (a GB18030 character's four bytes
/// may end in a digit's); and, where its digits follow the stem directly (`pain101`, not
/// `walk_1`), those digits.
fn stem_and_number(name: &str) -> (&str, Option<&str>) {
    let head = name.trim_end_matches(|c: char| c.is_ascii_digit());
    let digits = name.get(head.len()..).unwrap_or_default();
    match head.strip_suffix(['_', ' ']) {
        Some(stem) => (stem, None),
        None => (head, (!digits.is_empty()).then_some(digits)),
    }
}

/// The numbers of one stem's frames read as Quake II numbers its players' animations: a
/// variant, then two digits counting from `01` (`pain101` … `pain104`, `pain201` …), every
/// number of one length.
struct Variants {
    /// Digits of every number.
    len: usize,
    /// Each variant in turn, and its frames.
    runs: Vec<(String, u32)>,
    /// The last frame's count (its last two digits).
    last: u32,
}

impl Variants {
    /// `number` as a variant and a count: `None` for fewer than three digits.
    fn split(number: &str) -> Option<(&str, u32)> {
        let (variant, count) = number.split_at_checked(number.len().checked_sub(2)?)?;
        (!variant.is_empty()).then_some((variant, count.parse().ok()?))
    }

    /// The pattern of a group whose first frame has `number`, if it fits.
    fn start(number: Option<&str>) -> Option<Variants> {
        let number = number?;
        let (variant, count) = Self::split(number)?;
        (count == 1).then(|| Variants {
            len: number.len(),
            runs: vec![(variant.to_string(), 1)],
            last: 1,
        })
    }

    /// Takes the group's next frame, numbered `number`; `false` when it does not fit.
    fn push(&mut self, number: Option<&str>) -> bool {
        let split = number.filter(|n| n.len() == self.len).and_then(Self::split);
        let Some((variant, count)) = split else {
            return false;
        };
        match self.runs.last_mut() {
            Some((v, frames)) if v == variant && count == self.last + 1 => *frames += 1,
            Some((v, _)) if v == variant => return false,
            _ if count == 1 => self.runs.push((variant.to_string(), 1)),
            _ => return false,
        }
        self.last = count;
        true
    }
}

/// Splits the last of `groups` into its variants (`pain` into `pain1`, `pain2` …) when
/// `variants`, its frames' pattern, holds more than one.
fn split_variants(groups: &mut Vec<FrameGroup>, variants: Option<Variants>) {
    let Some(runs) = variants.map(|v| v.runs).filter(|runs| runs.len() > 1) else {
        return;
    };
    let Some(group) = groups.pop() else {
        return;
    };
    let mut first = group.first;
    for (variant, count) in runs {
        groups.push(FrameGroup {
            name: format!("{}{variant}", group.name),
            first,
            count,
            ..group.clone()
        });
        first += count;
    }
}

/// Groups consecutive frames whose names share a stem, each at `fps`, looping. Names are
/// read as text by [`name::lossy`](crate::name::lossy) (a name saved on Chinese Windows is
/// GBK), so a group's name is its frames' stem as the model's other names read. Frames
/// numbered as Quake II's players are (a variant, then two digits from `01`: `pain101` …
/// `pain104`, `pain201` …, every number of one length) make a group a variant (`pain1`,
/// `pain2`), where Quake II's game plays each as an animation of its own.
///
/// ```
/// use skelmap_core::pose::framegroups::groups_from_names;
/// let names: [&[u8]; 8] = [
///     b"bind", b"walk_1", b"walk_2", b"run1", b"run2", b"pain101", b"pain102", b"pain201",
/// ];
/// let groups = groups_from_names(names.into_iter(), 10.0);
/// let summary: Vec<(&str, u32, u32)> = groups.iter().map(|g| (g.name.as_str(), g.first, g.count)).collect();
/// assert_eq!(
///     summary,
///     [("bind", 0, 1), ("walk", 1, 2), ("run", 3, 2), ("pain1", 5, 2), ("pain2", 7, 1)]
/// );
/// ```
#[must_use]
pub fn groups_from_names<'a>(names: impl Iterator<Item = &'a [u8]>, fps: f32) -> Vec<FrameGroup> {
    let mut groups: Vec<FrameGroup> = Vec::new();
    // The pattern of the last group's numbers, while they fit it.
    let mut variants: Option<Variants> = None;
    for (i, name) in names.enumerate() {
        let text = crate::name::lossy(name);
        let (s, number) = stem_and_number(&text);
        match groups.last_mut() {
            Some(g) if g.name == s => {
                g.count += 1;
                if variants.as_mut().is_some_and(|v| !v.push(number)) {
                    variants = None;
                }
            }
            _ => {
                split_variants(&mut groups, variants.take());
                groups.push(FrameGroup {
                    name: s.to_string(),
                    first: i as u32,
                    count: 1,
                    fps,
                    looped: true,
                });
                variants = Variants::start(number);
            }
        }
    }
    split_variants(&mut groups, variants);
    groups
}

/// Gives every group its own name, so that each can be asked for by name: a group whose name
/// an earlier group has gets the name with the smallest `_N` (from 2) no group has, as
/// writers name a clip's repeats (`dead01`, `dead01_2`, `dead01_3`). Names already unique are
/// kept. A look-up a group, however many share a name (a file's frames are untrusted).
///
/// ```
/// use skelmap_core::pose::framegroups::{groups_from_names, unique_names};
/// // A Quake model's group `knife0`…`knife2`, then single frames `knife3`, `knife4`.
/// let names: [&[u8]; 5] = [b"knife0", b"knife1", b"knife2", b"knife3", b"knife4"];
/// let mut groups = groups_from_names(names[..3].iter().copied(), 10.0);
/// groups.extend(groups_from_names(names[3..].iter().copied(), 10.0));
/// unique_names(&mut groups);
/// let names: Vec<&str> = groups.iter().map(|g| g.name.as_str()).collect();
/// assert_eq!(names, ["knife", "knife_2"]);
/// ```
pub fn unique_names(groups: &mut [FrameGroup]) {
    let mut taken = crate::name::Unique::new("_", false);
    let mut repeated = Vec::new();
    for (i, g) in groups.iter().enumerate() {
        if !taken.take(&g.name) {
            repeated.push(i);
        }
    }
    // `taken` holds every name kept, so a new name never meets a later group's own.
    for i in repeated {
        if let Some(g) = groups.get_mut(i) {
            g.name = taken.free(&g.name);
        }
    }
}

/// The rate of a group whose line gives none, as DarkPlaces plays it.
pub const DEFAULT_FPS: f32 = 20.0;

/// The words of one line of a `.framegroups` file (a `/* */` comment across lines joins
/// them), its comment, its number (from 1) and where it starts.
struct Line<'t> {
    number: u64,
    offset: u64,
    words: Vec<&'t [u8]>,
    comment: Option<&'t [u8]>,
}

/// How many lines `text` ends: its `\n`s and its `\r`s not followed by `\n` (a `\r\n` is
/// one), as DarkPlaces' tokeniser counts them.
pub(crate) fn line_breaks(text: &[u8]) -> usize {
    let lone_returns = text
        .iter()
        .zip(text.iter().skip(1).chain([&0]))
        .filter(|&(&a, &b)| a == b'\r' && b != b'\n')
        .count();
    text.iter().filter(|&&c| c == b'\n').count() + lone_returns
}

/// Splits `text` into the lines that hold words, as DarkPlaces' tokeniser does (see the
/// module docs). Bounded by the text: each step moves on by at least a byte.
fn lines(text: &[u8]) -> Vec<Line<'_>> {
    let find = |from: usize, what: &[u8]| {
        text.get(from..)
            .and_then(|rest| rest.windows(what.len()).position(|w| w == what))
            .map_or(text.len(), |p| from + p)
    };
    let newlines = |a: usize, b: usize| line_breaks(text.get(a..b).unwrap_or_default()) as u64;
    let mut out = Vec::new();
    let (mut number, mut i) = (1u64, 0usize);
    let new_line = |number, at: usize| Line {
        number,
        offset: at as u64,
        words: Vec::new(),
        comment: None,
    };
    let mut line = new_line(number, 0);
    while let Some(&c) = text.get(i) {
        let next = text.get(i + 1).copied();
        // A line ends at `\n`, at `\r\n` and at a lone `\r` (the Mac's line ending, which
        // DarkPlaces' tokeniser reads as `\n`).
        if c == b'\n' || (c == b'\r' && next != Some(b'\n')) {
            number += 1;
            i += 1;
            let done = std::mem::replace(&mut line, new_line(number, i));
            if !done.words.is_empty() {
                out.push(done);
            }
        } else if c <= b' ' {
            i += 1;
        } else if c == b'/' && next == Some(b'/') {
            // The first line break of either kind: one scan up to it, not two to the end.
            let rest = text.get(i..).unwrap_or_default();
            let end =
                i + (rest.iter().position(|&b| b == b'\n' || b == b'\r')).unwrap_or(rest.len());
            line.comment = text.get(i + 2..end);
            i = end;
        } else if c == b'/' && next == Some(b'*') {
            let end = (find(i + 2, b"*/") + 2).min(text.len());
            number += newlines(i, end);
            i = end;
        } else if c == b'"' {
            let end = find(i + 1, b"\"");
            line.words.extend(text.get(i + 1..end));
            number += newlines(i, end);
            i = (end + 1).min(text.len());
        } else {
            let len = text
                .get(i..)
                .unwrap_or_default()
                .iter()
                .zip(text.get(i + 1..).unwrap_or_default().iter().chain([&b' ']))
                .take_while(|&(&a, &b)| a > b' ' && !(a == b'/' && (b == b'/' || b == b'*')))
                .count()
                .max(1);
            line.words.extend(text.get(i..i + len));
            i += len;
        }
    }
    if !line.words.is_empty() {
        out.push(line);
    }
    out
}

/// Parses a `.framegroups` file for a model of `format` with `num_frames` frames, checking
/// every group lies within them.
///
/// ```
/// use skelmap_core::{Format, pose::framegroups};
/// let text = b"/*\nGenerated for the golem\n*/\n0 1 10 0 // bind\n1 30 // walk\n31 20 15 1 \"run\"\n";
/// let groups = framegroups::parse(text, 51, Format::Dpm)?;
/// let summary: Vec<(&str, u32, u32, f32, bool)> =
///     groups.iter().map(|g| (g.name.as_str(), g.first, g.count, g.fps, g.looped)).collect();
/// assert_eq!(summary, [("bind", 0, 1, 10.0, false), ("walk", 1, 30, 20.0, true), ("run", 31, 20, 15.0, true)]);
/// # Ok::<(), skelmap_core::Error>(())
/// ```
///
/// # Errors
///
/// [`Error::Invalid`] (of `format`, `what` `"framegroups line"`) naming the line (as its byte
/// offset in `text`) for a line of one word, a first frame, count, rate or loop flag that is
/// not a number (or a count of 0, a rate not positive), or a range past the model's frames.
pub fn parse(text: &[u8], num_frames: u32, format: Format) -> Result<Vec<FrameGroup>> {
    let mut groups = Vec::new();
    for line in lines(text) {
        let number = line.number;
        let bad = |problem| Error::Invalid {
            format,
            what: "framegroups line",
            offset: line.offset,
            problem,
        };
        let field = |field| {
            bad(Problem::Field {
                line: number,
                field,
            })
        };
        let word = |k: usize| {
            line.words
                .get(k)
                .map(|w| crate::name::lossy(w).into_owned())
        };
        let (Some(first), Some(count)) = (word(0), word(1)) else {
            return Err(bad(Problem::Fields {
                line: number,
                fields: line.words.len() as u64,
                expected: 2,
            }));
        };
        let first: u32 = first.parse().map_err(|_| field(1))?;
        let count: u32 = count.parse().ok().filter(|&c| c > 0).ok_or(field(2))?;
        let fps = match word(2) {
            None => DEFAULT_FPS,
            Some(fps) => fps
                .parse()
                .ok()
                .filter(|f: &f32| f.is_finite() && *f > 0.0)
                .ok_or(field(3))?,
        };
        let looped = match word(3) {
            None => true,
            Some(flag) => flag.parse::<i64>().map_err(|_| field(4))? != 0,
        };
        let last = u64::from(first) + u64::from(count) - 1;
        if last >= u64::from(num_frames) {
            return Err(bad(Problem::Index {
                index: last as i64,
                len: num_frames.into(),
            }));
        }
        let comment = line
            .comment
            .map(|c| crate::name::lossy(c).trim().to_string());
        let name = word(4)
            .or(comment)
            .filter(|n| !n.is_empty())
            .unwrap_or_else(|| format!("group {}", groups.len()));
        groups.push(FrameGroup {
            name,
            first,
            count,
            fps,
            looped,
        });
    }
    Ok(groups)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn framegroups_lines_comments_and_errors() {
        let text = b"// golem\n0 1 10 0 // bind\n1 30 15 1 // walk\n\n31 20 20 1\n";
        let groups = parse(text, 51, Format::Dpm).ok();
        let summary: Option<Vec<(String, u32, u32, bool)>> = groups.map(|g| {
            g.into_iter()
                .map(|g| (g.name, g.first, g.count, g.looped))
                .collect()
        });
        assert_eq!(
            summary,
            Some(vec![
                ("bind".to_string(), 0, 1, false),
                ("walk".to_string(), 1, 30, true),
                ("group 2".to_string(), 31, 20, true),
            ])
        );
        let past = parse(b"0 1 10 0\n40 20 10 1\n", 51, Format::Dpm);
        assert!(matches!(
            past,
            Err(Error::Invalid {
                what: "framegroups line",
                offset: 9,
                ..
            })
        ));
        assert!(parse(b"0\n", 5, Format::Dpm).is_err(), "one field");
        assert!(parse(b"0 1 10 x\n", 5, Format::Dpm).is_err(), "loop flag x");
        assert!(parse(b"0 0 10 1\n", 5, Format::Dpm).is_err(), "no frames");
        assert!(
            parse(b"0 1 -3 1\n", 5, Format::Dpm).is_err(),
            "negative rate"
        );
    }

    /// DarkPlaces' tokens: a block comment over lines (Xonotic's files open with one), a
    /// quoted name, the rate and loop flag left out, words past the fifth ignored; errors
    /// name the line a group starts on.
    #[test]
    fn framegroups_are_read_as_darkplaces_tokenises_them() {
        let text =
            b"/*\nGenerated framegroups file for wyvern\n*/\n\n1 101 30 1 // wyvern idle\r\n\
                     102 /* over\nlines */ 20 15 0 \"fly fast\" extra\n120 5\n";
        let groups = parse(text, 130, Format::Dpm).ok();
        type Row = (String, u32, u32, f32, bool);
        let summary: Option<Vec<Row>> = groups.map(|g| {
            g.into_iter()
                .map(|g| (g.name, g.first, g.count, g.fps, g.looped))
                .collect()
        });
        assert_eq!(
            summary,
            Some(vec![
                ("wyvern idle".to_string(), 1, 101, 30.0, true),
                ("fly fast".to_string(), 102, 20, 15.0, false),
                ("group 2".to_string(), 120, 5, DEFAULT_FPS, true),
            ])
        );
        let bad = b"/* two\nlines */\n0 1 x\n";
        match parse(bad, 5, Format::Dpm) {
            Err(Error::Invalid {
                offset,
                problem: Problem::Field { line, field },
                ..
            }) => assert_eq!((offset, line, field), (16, 3, 3)),
            other => panic!("{other:?}"),
        }
        let named = parse(b"0 2 10 1 \"walk\" // not this\n", 5, Format::Dpm).ok();
        assert_eq!(named.map(|g| g[0].name.clone()), Some("walk".to_string()));
        // A comment never closed runs to the end, taking the next line with it.
        let open = parse(b"0 2 /* never closed\n1 1 1 1", 5, Format::Dpm).ok();
        assert_eq!(open.map(|g| (g.len(), g[0].count)), Some((1, 2)));
    }

    /// Files saved with the Mac's line endings (8 of the 17 `.framegroups` files of
    /// MarioSMB/xonotic-quake1.pk3dir, `demon.mdl.framegroups` among them) end each line with
    /// a lone `\r`: a line each, its `//` comment ending there, as DarkPlaces reads them;
    /// the three endings mixed in one file; errors name the line as they count.
    #[test]
    fn a_lone_carriage_return_ends_a_line() {
        let text = b"1 12 10 1 // demon stand\r14 7 10 1 // demon walk\r22 5 10 1 // demon run";
        let groups = parse(text, 60, Format::Quake).ok();
        let summary: Option<Vec<(String, u32, u32)>> =
            groups.map(|g| g.into_iter().map(|g| (g.name, g.first, g.count)).collect());
        assert_eq!(
            summary,
            Some(vec![
                ("demon stand".to_string(), 1, 12),
                ("demon walk".to_string(), 14, 7),
                ("demon run".to_string(), 22, 5),
            ])
        );
        let mixed = b"0 1 // a\r\n1 1 // b\r2 1 // c\n\r3 1 // d\r\r4 1 x\r";
        match parse(mixed, 10, Format::Quake) {
            Err(Error::Invalid {
                problem: Problem::Field { line, field },
                offset,
                ..
            }) => assert_eq!((line, field, offset), (7, 3, 39)),
            other => panic!("{other:?}"),
        }
        let groups = parse(&mixed[..39], 10, Format::Quake).ok();
        let names: Option<Vec<String>> = groups.map(|g| g.into_iter().map(|g| g.name).collect());
        assert_eq!(names, Some(["a", "b", "c", "d"].map(String::from).to_vec()));
        assert_eq!(line_breaks(b"a\r\nb\rc\n\rd\r\r"), 6);
        assert_eq!(line_breaks(b"\r"), 1);
        assert_eq!(line_breaks(b""), 0);
    }

    /// A file of many commented lines, all ending in `\n`: each comment ends at its own
    /// line's end, found without looking at the rest of the file.
    #[test]
    fn many_commented_lines_are_read_a_line_at_a_time() {
        let lines: u32 = 100_000;
        let text: String = (0..lines)
            .map(|i| format!("{i} 1 10 0 // clip{i}\n"))
            .collect();
        let groups = parse(text.as_bytes(), lines, Format::Dpm).ok();
        let summary = groups.map(|g| (g.len(), g.last().map(|g| (g.name.clone(), g.first))));
        let last = Some(("clip99999".to_string(), 99_999));
        assert_eq!(summary, Some((lines as usize, last)));
    }

    #[test]
    fn stems_strip_digits_and_underscore() {
        assert_eq!(stem_and_number("idle_12"), ("idle", None));
        assert_eq!(stem_and_number("run3"), ("run", Some("3")));
        assert_eq!(stem_and_number("walk 39"), ("walk", None));
        assert_eq!(stem_and_number("end_"), ("end", None));
        assert_eq!(stem_and_number("bind"), ("bind", None));
        assert_eq!(stem_and_number("42"), ("", Some("42")));
        assert_eq!(stem_and_number("pain101"), ("pain", Some("101")));
    }

    /// Quake II's player frames: the numbered variants of `pain` and `death` are groups of
    /// their own, as the game plays them; numbers that do not count from `01` in every
    /// variant, or differ in length, keep one group.
    #[test]
    fn quake2_variants_are_groups_of_their_own() {
        let summary = |names: &[String]| -> Vec<(String, u32, u32)> {
            groups_from_names(names.iter().map(|n| n.as_bytes()), 10.0)
                .into_iter()
                .map(|g| (g.name, g.first, g.count))
                .collect()
        };
        let frames = |stem: &str, numbers: std::ops::RangeInclusive<u32>, width: usize| {
            numbers
                .map(|n| format!("{stem}{n:0width$}"))
                .collect::<Vec<_>>()
        };
        let mut names: Vec<String> = frames("stand", 1..=40, 2);
        names.extend(frames("run", 1..=6, 1));
        names.extend(frames("pain1", 1..=4, 2));
        names.extend(frames("pain2", 1..=4, 2));
        names.extend(frames("pain3", 1..=4, 2));
        names.extend(frames("death1", 1..=6, 2));
        names.extend(frames("death2", 1..=6, 2));
        names.extend(frames("death3", 1..=8, 2));
        let want = [
            ("stand", 0, 40),
            ("run", 40, 6),
            ("pain1", 46, 4),
            ("pain2", 50, 4),
            ("pain3", 54, 4),
            ("death1", 58, 6),
            ("death2", 64, 6),
            ("death3", 70, 8),
        ];
        let want: Vec<(String, u32, u32)> = want
            .iter()
            .map(|&(n, f, c)| (n.to_string(), f, c))
            .collect();
        assert_eq!(summary(&names), want);

        // One clip of 120 frames numbered from 001: `idle100` counts on, it starts no variant.
        let idle: Vec<String> = frames("idle", 1..=120, 3);
        assert_eq!(summary(&idle), [("idle".to_string(), 0, 120)]);
        // A variant that does not start at 01, a count that skips, numbers of two lengths,
        // and a separator before the number: one group each.
        for names in [
            ["x101", "x102", "x202"],
            ["x101", "x103", "x201"],
            ["x101", "x102", "x1201"],
            ["x_101", "x_102", "x_201"],
        ] {
            let names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
            assert_eq!(summary(&names), [("x".to_string(), 0, 3)], "{names:?}");
        }
        // A single variant is the stem's group.
        let one: Vec<String> = frames("jump1", 1..=6, 2);
        assert_eq!(summary(&one), [("jump".to_string(), 0, 6)]);
    }

    /// Frame names saved on Chinese Windows (GBK), one ending in a GB18030 four-byte
    /// character whose last byte is a digit's, and one that is neither UTF-8 nor GBK: each
    /// group named by its frames' stem as text, the frames of one stem in one group.
    #[test]
    fn gbk_frame_names_group_by_their_stem_as_text() {
        let walk = [0xD7, 0xDF]; // 走
        let turtle = [0xCE, 0xDA, 0xB9, 0xEA]; // 乌龟
        let smile = [0x94, 0x39, 0xFC, 0x36]; // U+1F600 in GB18030
        let with = |head: &[u8], tail: &[u8]| [head, tail].concat();
        let names: Vec<Vec<u8>> = vec![
            with(&walk, b"1"),
            with(&walk, b"_2"),
            with(&turtle, b"01"),
            with(&turtle, b"02"),
            with(&turtle, b"03"),
            smile.to_vec(),
            with(&smile, b"1"),
            vec![b'a', 0xFF, b'7'],
            vec![b'a', 0xFF, b'8'],
        ];
        let groups = groups_from_names(names.iter().map(Vec::as_slice), 10.0);
        let summary: Vec<(&str, u32, u32)> = groups
            .iter()
            .map(|g| (g.name.as_str(), g.first, g.count))
            .collect();
        assert_eq!(
            summary,
            [
                ("\u{8d70}", 0, 2),
                ("\u{4e4c}\u{9f9f}", 2, 3),
                ("\u{1f600}", 5, 2),
                ("a\\xFF", 7, 2),
            ]
        );
    }

    /// A `.framegroups` file's names (fifth word or comment) read as the frames' names are.
    #[test]
    fn sidecar_names_are_read_as_text() {
        let text = b"0 2 10 1 \xD7\xDF\n2 1 // \xCE\xDA\xB9\xEA\n";
        let names: Vec<String> = parse(text, 3, Format::Dpm)
            .unwrap()
            .into_iter()
            .map(|g| g.name)
            .collect();
        assert_eq!(names, ["\u{8d70}", "\u{4e4c}\u{9f9f}"]);
    }
}
