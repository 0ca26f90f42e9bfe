//! Named animations: frame ranges from frame names, or from DarkPlaces' `.framegroups` file.
//!
//! Frame names such as `walk_1`, `walk_2`, `walk_3` group into `walk` (a trailing `_N` or
//! trailing digits are stripped; consecutive frames with the same stem form one group). The
//! `.framegroups` sidecar lists one group per line: `first count fps loop`, where `loop` is
//! `0` or `1`, optionally followed by `// name`; blank lines and lines starting with `//` are
//! skipped.

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

/// `name` without trailing digits and the `_` or space before them (`walk_1`, MED's `walk 1`).
fn stem(name: &[u8]) -> &[u8] {
    let digits = name.iter().rev().take_while(|b| b.is_ascii_digit()).count();
    let head = name.get(..name.len() - digits).unwrap_or(name);
    match head {
        [rest @ .., b'_' | b' '] => rest,
        _ => head,
    }
}

/// Groups consecutive frames whose names share a stem, each at `fps`, looping.
///
/// ```
/// use skelmap_core::pose::framegroups::groups_from_names;
/// let names: [&[u8]; 5] = [b"bind", b"walk_1", b"walk_2", b"run1", b"run2"];
/// let groups = groups_from_names(names.into_iter(), 10.0);
/// let summary: Vec<(&str, u32, u32)> = groups.iter().map(|g| (g.name.as_str(), g.first, g.count)).collect();
/// assert_eq!(summary, [("bind", 0, 1), ("walk", 1, 2), ("run", 3, 2)]);
/// ```
#[must_use]
pub fn groups_from_names<'a>(names: impl Iterator<Item = &'a [u8]>, fps: f32) -> Vec<FrameGroup> {
    let mut groups: Vec<FrameGroup> = Vec::new();
    for (i, name) in names.enumerate() {
        let s = stem(name);
        match groups.last_mut() {
            Some(g) if g.name.as_bytes() == s => g.count += 1,
            _ => groups.push(FrameGroup {
                name: String::from_utf8_lossy(s).into_owned(),
                first: i as u32,
                count: 1,
                fps,
                looped: true,
            }),
        }
    }
    groups
}

/// Parses a `.framegroups` file for a model of `format` with `num_frames` frames, checking
/// every group lies within them.
///
/// # Errors
///
/// [`Error::Invalid`] (of `format`, `what` `"framegroups line"`) naming the line (as its byte
/// offset in `text`) for a malformed line, a zero count, a non-positive or non-finite rate, or
/// a range past the model's frames.
pub fn parse(text: &[u8], num_frames: u32, format: Format) -> Result<Vec<FrameGroup>> {
    let mut groups = Vec::new();
    let mut offset = 0u64;
    for (n, raw_line) in text.split(|&b| b == b'\n').enumerate() {
        let line_at = offset;
        offset += raw_line.len() as u64 + 1;
        let line = String::from_utf8_lossy(raw_line);
        let (fields, name) = match line.split_once("//") {
            Some((f, c)) => (f, Some(c.trim())),
            None => (line.as_ref(), None),
        };
        let words: Vec<&str> = fields.split_whitespace().collect();
        if words.is_empty() {
            continue;
        }
        let line = n as u64 + 1;
        let bad = |problem| Error::Invalid {
            format,
            what: "framegroups line",
            offset: line_at,
            problem,
        };
        let field = |field| bad(Problem::Field { line, field });
        // `first count fps loop`.
        let [first, count, fps, looped] = words.as_slice() else {
            return Err(bad(Problem::Fields {
                line,
                fields: words.len() as u64,
                expected: 4,
            }));
        };
        let first: u32 = first.parse().map_err(|_| field(1))?;
        let count: u32 = count.parse().ok().filter(|&c| c > 0).ok_or(field(2))?;
        let fps: f32 = fps
            .parse()
            .ok()
            .filter(|f: &f32| f.is_finite() && *f > 0.0)
            .ok_or(field(3))?;
        let looped = match *looped {
            "0" => false,
            "1" => true,
            _ => return Err(field(4)),
        };
        let last = u64::from(first) + u64::from(count) - 1;
        if last >= u64::from(num_frames) {
            return Err(bad(Problem::Index {
                index: last as i64,
                len: num_frames.into(),
            }));
        }
        let name = name
            .filter(|n| !n.is_empty())
            .map_or_else(|| format!("group {}", groups.len()), str::to_string);
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
        assert!(parse(b"0 1 10\n", 5, Format::Dpm).is_err(), "three fields");
        assert!(parse(b"0 1 10 2\n", 5, Format::Dpm).is_err(), "loop flag 2");
        assert!(parse(b"0 0 10 1\n", 5, Format::Dpm).is_err(), "no frames");
        assert!(
            parse(b"0 1 -3 1\n", 5, Format::Dpm).is_err(),
            "negative rate"
        );
    }

    #[test]
    fn stems_strip_digits_and_underscore() {
        assert_eq!(stem(b"idle_12"), b"idle");
        assert_eq!(stem(b"run3"), b"run");
        assert_eq!(stem(b"walk 39"), b"walk");
        assert_eq!(stem(b"end_"), b"end");
        assert_eq!(stem(b"bind"), b"bind");
        assert_eq!(stem(b"42"), b"");
    }
}
