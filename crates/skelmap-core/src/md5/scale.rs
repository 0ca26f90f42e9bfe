//! The Quake II remaster's `.md5scale`: a JSON sidecar beside an `.md5anim`
//! (`<anim stem>.md5scale`) that scales, per joint and frame, the vertices a joint moves
//! without passing the scale to its children, as q2pro reads it (`docs/formats/md5.md`).
//!
//! Its top level is an object whose keys are joint names; each value is an object whose keys
//! are frame numbers (decimal) with a number each, the joint's scale in that frame (1 where
//! unlisted), and optionally `"scale_positions": true`, which scales the joint's own animated
//! position by the same factor before its parent places it (so its children follow).
//!
//! The sidecar only adds to the animation, so what the engine skips is skipped here with a
//! warning ([`WarningKind::CompanionIgnored`]) rather than refused: a file that is not such an
//! object (the whole file), a joint the animation lacks, a frame past its frames, a value
//! that is not a finite number (that entry).

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};

use super::view::Anim;
use crate::diag::{Diagnostics, WarningKind};
use crate::format::Format;

/// The sidecar of the animation at `anim_path`: its extension replaced by `.md5scale`, as
/// the engine names it.
pub(crate) fn path_of(anim_path: &str) -> String {
    format!("{}.md5scale", crate::resolver::strip_extension(anim_path))
}

/// Reads the sidecar `text` (at `path`, for messages) into `anim`: its skin scales, and the
/// positions of joints marked `scale_positions` scaled in its frames. The JSON is walked as
/// it is parsed, never held as a tree, so memory stays the animation's scales whatever the
/// file holds. `false` when the sidecar does not parse and is left out whole (warned of).
pub(crate) fn apply(anim: &mut Anim<'_>, path: &str, text: &[u8], diag: &mut Diagnostics) -> bool {
    let joints = anim.num_joints();
    let mut names = HashMap::with_capacity(joints);
    for i in 0..joints {
        if let Some(name) = anim.joint_name(i) {
            // The engine takes the first joint of a name.
            names.entry(name).or_insert(i);
        }
    }
    let mut read = Read {
        names,
        joints,
        frames: anim.num_frames(),
        // As many as the frames' poses, which validation bounded.
        scales: vec![1.0_f32; anim.poses.len()],
        positions: vec![false; joints],
        skipped: (0, String::new()),
    };
    let mut parser = serde_json::Deserializer::from_slice(text);
    let parsed = parser
        .deserialize_map(&mut read)
        .and_then(|()| parser.end());
    if let Err(e) = parsed {
        let offset = offset_of(text, e.line(), e.column());
        ignored(diag, path, offset, &e.to_string());
        return false;
    }
    let (count, first) = read.skipped;
    diag.warn_n(
        Format::Md5,
        WarningKind::CompanionIgnored,
        "scale",
        0,
        count,
        || format!("{path}: {first}; the entry is skipped"),
    );
    anim.set_skin_scales(read.scales, &read.positions);
    true
}

/// The sidecar's contents as its entries are parsed.
struct Read<'n> {
    names: HashMap<&'n [u8], usize>,
    joints: usize,
    frames: usize,
    /// Per frame and joint.
    scales: Vec<f32>,
    /// Per joint, `scale_positions`.
    positions: Vec<bool>,
    /// How many entries were skipped, and why the first was.
    skipped: (u64, String),
}

impl Read<'_> {
    fn skip(&mut self, why: impl FnOnce() -> String) {
        if self.skipped.0 == 0 {
            self.skipped.1 = why();
        }
        self.skipped.0 += 1;
    }
}

/// The top level: an object of joints.
impl<'de> Visitor<'de> for &mut Read<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object of joint names")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(name) = map.next_key::<Cow<'de, str>>()? {
            match self.names.get(name.as_bytes()).copied() {
                Some(joint) => map.next_value_seed(Joint {
                    read: &mut *self,
                    joint,
                    name: &name,
                })?,
                None => {
                    map.next_value::<IgnoredAny>()?;
                    self.skip(|| format!("no joint \"{name}\" in the animation"));
                }
            }
        }
        Ok(())
    }
}

/// One joint's object of frames (and `scale_positions`).
struct Joint<'r, 'n, 'k> {
    read: &'r mut Read<'n>,
    joint: usize,
    name: &'k str,
}

impl<'de> DeserializeSeed<'de> for Joint<'_, '_, '_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Joint<'_, '_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "an object of frames for joint \"{}\"", self.name)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let (read, joint, name) = (self.read, self.joint, self.name);
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            let value = map.next_value::<Scalar>()?;
            if key == "scale_positions" {
                match value {
                    Scalar::Bool(on) => read.positions[joint] = on,
                    _ => read.skip(|| format!("\"{name}\".scale_positions is not a boolean")),
                }
                continue;
            }
            let Some(frame) = key.parse::<usize>().ok().filter(|&f| f < read.frames) else {
                read.skip(|| format!("\"{name}\": no frame \"{key}\" in the animation"));
                continue;
            };
            match value {
                Scalar::Number(v) if (v as f32).is_finite() => {
                    read.scales[frame * read.joints + joint] = v as f32;
                }
                _ => read.skip(|| format!("\"{name}\".\"{key}\" is not a finite number")),
            }
        }
        Ok(())
    }
}

/// A frame's value: a number, a boolean, or anything else (skipped whole).
enum Scalar {
    Number(f64),
    Bool(bool),
    Other,
}

impl<'de> de::Deserialize<'de> for Scalar {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Scalar, D::Error> {
        deserializer.deserialize_any(ScalarVisitor)
    }
}

struct ScalarVisitor;

impl<'de> Visitor<'de> for ScalarVisitor {
    type Value = Scalar;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a number or a boolean")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Scalar, E> {
        Ok(Scalar::Bool(v))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Scalar, E> {
        Ok(Scalar::Number(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Scalar, E> {
        Ok(Scalar::Number(v as f64))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Scalar, E> {
        Ok(Scalar::Number(v as f64))
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<Scalar, E> {
        Ok(Scalar::Other)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Scalar, E> {
        Ok(Scalar::Other)
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Scalar, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Scalar::Other)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Scalar, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Scalar::Other)
    }
}

/// The byte offset of 1-based `line` and `column` in `text` (the end where they run past it).
fn offset_of(text: &[u8], line: usize, column: usize) -> u64 {
    let mut start = 0;
    for _ in 1..line {
        match text[start..].iter().position(|&b| b == b'\n') {
            Some(i) => start += i + 1,
            None => return text.len() as u64,
        }
    }
    (start + column.saturating_sub(1)).min(text.len()) as u64
}

/// Records a sidecar left out whole.
fn ignored(diag: &mut Diagnostics, path: &str, offset: u64, why: &str) {
    diag.warn(
        Format::Md5,
        WarningKind::CompanionIgnored,
        "scale",
        offset,
        || format!("{path}: {why}; the animation plays without its scales"),
    );
}
