//! How Enemy Territory finds the skeleton an MDM is drawn with, which the mesh does not name.
//!
//! A character file under the game's base directory (`characters/**/*.char`) names the mesh
//! (`mesh "models/…/body.mdm"`) and its animation group (`animationGroup "animations/….anim"`).
//! The group lists animation files, `animgroup { animfile "<mdx>" { <clips> } … }`, each clip
//! `name first length looping fps move_speed transition reversed [priority]`, a block's clips
//! often `#include "<….aninc>"`d. The first animation file is the MDX the model opens with;
//! every animation file's frames follow one another on the model's timeline, and each block's
//! clips play its file's frames. The files are read as ET:Legacy's `bg_character.c` and
//! `bg_animgroup.c` read them (keywords in any case, `//` and `/* */` comments, quoted words);
//! `docs/formats/mdm.md` says what is kept.

use crate::error::{Error, Problem, Result};
use crate::format::Format;
use crate::pose::framegroups::FrameGroup;
use crate::resolver::Resolver;
use crate::source::Source;
use crate::text::{Commas, check_size, tokens};

/// The folder of character files, directly under the game's base directory.
pub(super) const CHARACTERS: &str = "characters";
/// Folders below `characters/` walked for character files (ET's are two deep:
/// `characters/temperate/axis/soldier.char`).
const MAX_DEPTH: usize = 4;
/// Names (files and folders) looked at in that walk, at most.
const MAX_NAMES: usize = 4096;
/// A character, group or included file: at most this many bytes and lines.
const MAX_BYTES: u64 = 1 << 20;
const MAX_LINES: u64 = 1 << 16;
/// `#include`s followed in a group, at most.
const MAX_INCLUDES: usize = 64;
/// Animation files read from a group, at most (ET's own bound is its 512 animations).
pub(super) const MAX_FILES: usize = 64;

/// A word of one of these files: a token, with `{` and `}` split off as ET's lexer splits
/// punctuation, and whether it was quoted.
#[derive(Debug, Clone, Copy)]
struct Word<'t> {
    text: &'t [u8],
    line: u64,
    offset: u64,
    quoted: bool,
}

/// The words of `text`, in order.
fn words(text: &[u8]) -> Vec<Word<'_>> {
    let mut out = Vec::new();
    for token in tokens(text, Commas::InToken) {
        let quoted = text.get(token.offset as usize) == Some(&b'"');
        if quoted {
            out.push(Word {
                text: token.text,
                line: token.line,
                offset: token.offset,
                quoted,
            });
            continue;
        }
        let mut start = 0;
        for (i, &b) in token.text.iter().enumerate() {
            if b == b'{' || b == b'}' {
                for (from, to) in [(start, i), (i, i + 1)] {
                    if to > from {
                        out.push(Word {
                            text: &token.text[from..to],
                            line: token.line,
                            offset: token.offset + from as u64,
                            quoted,
                        });
                    }
                }
                start = i + 1;
            }
        }
        if start < token.text.len() {
            out.push(Word {
                text: &token.text[start..],
                line: token.line,
                offset: token.offset + start as u64,
                quoted,
            });
        }
    }
    out
}

/// A path as ET compares them: ASCII case folded, `\` as `/`, no leading `./` or `/`.
fn folded(path: &[u8]) -> String {
    let path: Vec<u8> = path
        .iter()
        .map(|&b| {
            if b == b'\\' {
                b'/'
            } else {
                b.to_ascii_lowercase()
            }
        })
        .collect();
    let mut path = String::from_utf8_lossy(&path).into_owned();
    while let Some(rest) = path.strip_prefix("./").or_else(|| path.strip_prefix('/')) {
        path = rest.to_string();
    }
    path
}

/// A path named inside one of these files, `\` turned to `/`, as the resolver takes it.
fn vfs_path(word: &[u8]) -> String {
    String::from_utf8_lossy(word).replace('\\', "/")
}

/// The character files under `characters/` (any case) of `resolver`'s root, in sorted walk
/// order, folders at most [`MAX_DEPTH`] deep and [`MAX_NAMES`] names looked at.
fn character_files<'data, R: Resolver<'data> + ?Sized>(resolver: &R) -> Result<Vec<String>> {
    let mut found = Vec::new();
    let mut seen = 0usize;
    let mut stack: Vec<(String, usize)> = resolver
        .folders("")?
        .into_iter()
        .filter(|f| f.eq_ignore_ascii_case(CHARACTERS))
        .map(|f| (f, 0))
        .collect();
    while let Some((dir, depth)) = stack.pop() {
        let files = resolver.list(&dir)?;
        seen += files.len();
        found.extend(
            files
                .into_iter()
                .filter(|f| {
                    f.rsplit_once('.')
                        .is_some_and(|(_, ext)| ext.eq_ignore_ascii_case("char"))
                })
                .map(|f| format!("{dir}/{f}")),
        );
        if depth < MAX_DEPTH {
            let folders = resolver.folders(&dir)?;
            seen += folders.len();
            // Reversed onto the stack, so that folders are walked in sorted order.
            stack.extend(
                folders
                    .into_iter()
                    .rev()
                    .map(|f| (format!("{dir}/{f}"), depth + 1)),
            );
        }
        if seen > MAX_NAMES {
            break;
        }
    }
    Ok(found)
}

/// The value of each of `keys` (matched in any case) in a character file's `characterDef`:
/// the word after the key.
fn character_values<'t, const N: usize>(text: &'t [u8], keys: [&str; N]) -> [Option<&'t [u8]>; N] {
    let words = words(text);
    let mut values = [None; N];
    for pair in words.windows(2) {
        if let Some(k) = keys
            .iter()
            .position(|k| !pair[0].quoted && pair[0].text.eq_ignore_ascii_case(k.as_bytes()))
        {
            values[k].get_or_insert(pair[1].text);
        }
    }
    values
}

/// A character file that names a mesh and its animation group.
#[derive(Debug)]
pub(super) struct Character<'data> {
    /// Its path and bytes.
    pub(super) path: String,
    pub(super) text: Source<'data>,
    /// The animation group's path.
    pub(super) group: String,
    /// The skin it names (`<mesh stem>_<skin>.skin`), if it names one.
    pub(super) skin: Option<String>,
}

/// The first character file (in walk order) whose `mesh` is `mesh` and that names an
/// animation group, with its `skin`; else the first whose `undressedCorpseModel` is `mesh`
/// (ET draws a character's undressed corpse with the character's animation group:
/// `CG_RegisterCharacter`), with its `undressedCorpseSkin`.
///
/// # Errors
///
/// The resolver's; a character file over the size bounds.
pub(super) fn find_character<'data, R: Resolver<'data> + ?Sized>(
    resolver: &R,
    mesh: &str,
) -> Result<Option<Character<'data>>> {
    const KEYS: [&str; 5] = [
        "mesh",
        "animationGroup",
        "skin",
        "undressedCorpseModel",
        "undressedCorpseSkin",
    ];
    let wanted = folded(mesh.as_bytes());
    let mut corpse = None;
    for path in character_files(resolver)? {
        let Some(text) = resolver.load(&path)? else {
            continue;
        };
        let bytes = text.bytes();
        check_size(bytes, Format::Mdm, "character file", MAX_BYTES, MAX_LINES)?;
        let [body, Some(group), skin, corpse_mesh, corpse_skin] = character_values(bytes, KEYS)
        else {
            continue;
        };
        let named = |m: Option<&[u8]>| m.is_some_and(|m| folded(m) == wanted);
        let own = named(body);
        let (group, skin) = if own {
            (vfs_path(group), skin.map(vfs_path))
        } else if corpse.is_none() && named(corpse_mesh) {
            (vfs_path(group), corpse_skin.map(vfs_path))
        } else {
            continue;
        };
        let found = Character {
            path,
            text,
            group,
            skin,
        };
        if own {
            return Ok(Some(found));
        }
        corpse = Some(found);
    }
    Ok(corpse)
}

/// An animation group that names an MDX: the character file that led to it, the group's path
/// and text, and the files the MDX's block includes.
#[derive(Debug)]
pub(super) struct GroupNaming<'data> {
    pub(super) character: (String, Source<'data>),
    pub(super) group: (String, Source<'data>),
    pub(super) includes: Vec<String>,
}

/// The first animation group (in the walk order of the character files that name one) with
/// an animation file that is `mdx`, compared as ET compares paths. A group that is not one,
/// or over the size bounds, is passed over (it is another character's).
///
/// # Errors
///
/// The resolver's; a character file over the size bounds.
pub(super) fn find_group_naming<'data, R: Resolver<'data> + ?Sized>(
    resolver: &R,
    mdx: &str,
) -> Result<Option<GroupNaming<'data>>> {
    let mut tried: Vec<String> = Vec::new();
    for path in character_files(resolver)? {
        let Some(text) = resolver.load(&path)? else {
            continue;
        };
        check_size(
            text.bytes(),
            Format::Mdm,
            "character file",
            MAX_BYTES,
            MAX_LINES,
        )?;
        let [Some(group)] = character_values(text.bytes(), ["animationGroup"]) else {
            continue;
        };
        let group = vfs_path(group);
        if tried.contains(&folded(group.as_bytes())) {
            continue;
        }
        tried.push(folded(group.as_bytes()));
        let Some(group_text) = resolver.load(&group)? else {
            continue;
        };
        let Ok(read) = read_group(&group, group_text.bytes()) else {
            continue;
        };
        if let Some(block) = file_naming(&read, mdx) {
            let includes = block_includes(core::iter::once(block)).map(String::from);
            return Ok(Some(GroupNaming {
                character: (path, text),
                includes: includes.collect(),
                group: (group, group_text),
            }));
        }
    }
    Ok(None)
}

/// The animation file of `group` that is `mdx` (compared as ET compares paths), if any.
pub(super) fn file_naming<'g>(group: &'g Group, mdx: &str) -> Option<&'g AnimFile> {
    let wanted = folded(mdx.as_bytes());
    group.files().find(|f| folded(f.mdx.as_bytes()) == wanted)
}

/// The nearest folder above the file at `path` that holds a `characters/` folder (ET's base
/// directory, `etmain/` or a mod's), looking at most 16 folders up.
pub(super) fn base_dir(path: &std::path::Path) -> Option<std::path::PathBuf> {
    let path = std::path::absolute(path).ok()?;
    path.ancestors()
        .skip(1)
        .take(16)
        .find(|dir| dir.join(CHARACTERS).is_dir())
        .map(std::path::Path::to_path_buf)
}

/// One clip of an animation file's block, as written.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Clip {
    pub(super) name: String,
    pub(super) first: i64,
    pub(super) length: i64,
    pub(super) looping: i64,
    pub(super) fps: f32,
    /// The file and line it is written on, for warnings.
    pub(super) place: String,
}

/// What a block holds, in order: clips and included files.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Item {
    Clip(Clip),
    Include(String),
    /// An entry that is not a clip (fewer than four numbers after its name): the words'
    /// place and what it is.
    Bad(String),
}

/// An animation file of a group: its MDX and the items of its block.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct AnimFile {
    pub(super) mdx: String,
    pub(super) items: Vec<Item>,
}

/// An animation group: its first animation file (the skeleton), the others in order, and,
/// where reading stopped before the group's end, at which line and why (an entry that is not
/// `animfile <mdx> { … }`, or more than [`MAX_FILES`] files).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Group {
    pub(super) first: AnimFile,
    pub(super) more: Vec<AnimFile>,
    pub(super) stopped: Option<String>,
}

impl Group {
    /// Every animation file, in order.
    pub(super) fn files(&self) -> impl Iterator<Item = &AnimFile> {
        core::iter::once(&self.first).chain(&self.more)
    }
}

/// The error of a group file that does not say `animgroup { animfile "<mdx>" { … } }`.
fn expected(word: Option<&Word<'_>>, text: &[u8], expected: &'static str) -> Error {
    let offset = word.map_or(text.len() as u64, |w| w.offset);
    let before = text.get(..offset as usize).unwrap_or_default();
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    Error::Text {
        format: Format::Mdm,
        what: "animation group",
        line: before.iter().filter(|&&b| b == b'\n').count() as u64 + 1,
        column: (before.len() - line_start) as u64 + 1,
        offset,
        problem: Problem::Expected { expected },
    }
}

/// The items of a clip block from word `at` of `words` (of the file at `path`) to its `}` or
/// the end; the index after them.
fn block_items(words: &[Word<'_>], mut at: usize, path: &str) -> (Vec<Item>, usize) {
    let number = |w: &Word<'_>| -> Option<f64> {
        let n: f64 = std::str::from_utf8(w.text).ok()?.parse().ok()?;
        (!w.quoted && n.is_finite()).then_some(n)
    };
    let mut items = Vec::new();
    while let Some(word) = words.get(at) {
        at += 1;
        if !word.quoted && word.text == b"}" {
            break;
        }
        let place = format!("{path}, line {}", word.line);
        if !word.quoted && word.text.eq_ignore_ascii_case(b"#include") {
            match words.get(at) {
                Some(file) => {
                    items.push(Item::Include(vfs_path(file.text)));
                    at += 1;
                }
                None => items.push(Item::Bad(format!("{place}: #include names no file"))),
            }
            continue;
        }
        let mut numbers = Vec::new();
        while let Some(n) = words.get(at).and_then(number) {
            numbers.push(n);
            at += 1;
        }
        let name = crate::name::lossy(word.text).to_ascii_lowercase();
        match numbers[..] {
            // Whole numbers where ET reads integers; the rate is read to its hundredths, 0
            // as 1 frame a second.
            [first, length, looping, fps, ..] => items.push(Item::Clip(Clip {
                name,
                first: first as i64,
                length: length as i64,
                looping: looping as i64,
                fps: if (fps * 100.0) as i64 == 0 {
                    1.0
                } else {
                    fps as f32
                },
                place,
            })),
            _ => items.push(Item::Bad(format!(
                "{place}: {name} has {} numbers; first frame, length, looping and rate \
                 expected",
                numbers.len()
            ))),
        }
    }
    (items, at)
}

/// Reads the group file at `path`: its animation files and their blocks.
///
/// # Errors
///
/// [`Error::Text`] (`animation group`) where the file does not start `animgroup {
/// animfile <mdx> {`; [`Error::Limit`] over the size bounds. A later entry that is not an
/// animation file ends the reading (the files before it are kept): [`Group::stopped`].
pub(super) fn read_group(path: &str, text: &[u8]) -> Result<Group> {
    check_size(text, Format::Mdm, "animation group", MAX_BYTES, MAX_LINES)?;
    let words = words(text);
    let is = |at: usize, what: &str| {
        words
            .get(at)
            .is_some_and(|w| !w.quoted && w.text.eq_ignore_ascii_case(what.as_bytes()))
    };
    let name = |at: usize| {
        words
            .get(at)
            .filter(|w| w.quoted || (w.text != b"{" && w.text != b"}"))
    };
    for (at, what) in [(0, "animgroup"), (1, "{"), (2, "animfile")] {
        if !is(at, what) {
            return Err(expected(words.get(at), text, what));
        }
    }
    let mdx = name(3).ok_or_else(|| expected(words.get(3), text, "the animation file's name"))?;
    if !is(4, "{") {
        return Err(expected(words.get(4), text, "{"));
    }
    let (items, mut at) = block_items(&words, 5, path);
    let first = AnimFile {
        mdx: vfs_path(mdx.text),
        items,
    };
    let (mut more, mut stopped) = (Vec::new(), None);
    // ET reads `animfile <mdx> { … }` entries up to the group's `}`.
    while let Some(word) = words.get(at) {
        if !word.quoted && word.text == b"}" {
            break;
        }
        let line = word.line;
        let entry = is(at, "animfile") && is(at + 2, "{");
        let (Some(mdx), true) = (name(at + 1).filter(|_| entry), more.len() + 1 < MAX_FILES) else {
            stopped = Some(if entry {
                format!("line {line}: more than {MAX_FILES} animation files; the rest are not read")
            } else {
                format!(
                    "line {line}: `{}` where an animfile or the group's end belongs; the rest is \
                     not read",
                    String::from_utf8_lossy(word.text)
                )
            });
            break;
        };
        let (items, next) = block_items(&words, at + 3, path);
        more.push(AnimFile {
            mdx: vfs_path(mdx.text),
            items,
        });
        at = next;
    }
    Ok(Group {
        first,
        more,
        stopped,
    })
}

/// The items of an included file at `path`: clips only; an `#include` in it is not followed.
pub(super) fn read_included(path: &str, text: &[u8]) -> Result<Vec<Item>> {
    check_size(text, Format::Mdm, "included clips", MAX_BYTES, MAX_LINES)?;
    let (items, _) = block_items(&words(text), 0, path);
    Ok(items
        .into_iter()
        .map(|item| match item {
            Item::Include(file) => Item::Bad(format!(
                "{path}: #include {file} inside an \
                                                      included file is not followed"
            )),
            item => item,
        })
        .collect())
}

/// Where the clips of the MDX at `path` are when no group names them: the `.aninc` file of
/// its stem beside it.
pub(super) fn clip_list_path(path: &str) -> String {
    format!("{}.aninc", crate::resolver::strip_extension(path))
}

/// The files the group's blocks include, in order, at most [`MAX_INCLUDES`].
pub(super) fn includes(group: &Group) -> impl Iterator<Item = &str> {
    block_includes(group.files())
}

/// The files `blocks` include, in order, at most [`MAX_INCLUDES`].
pub(super) fn block_includes<'g>(
    blocks: impl Iterator<Item = &'g AnimFile>,
) -> impl Iterator<Item = &'g str> {
    blocks
        .flat_map(|file| &file.items)
        .filter_map(|item| match item {
            Item::Include(file) => Some(file.as_str()),
            _ => None,
        })
        .take(MAX_INCLUDES)
}

/// The clips of `items` (an included file's expanded by `included`, which gives its items
/// or `None` when it was not read) that lie in `0..num_frames`, as frame groups: a clip
/// loops when it names frames to loop. A clip of no frames (ET's files list placeholders)
/// is no clip; what else is left out is reported to `left_out` (where, and why, naming the
/// animation file `mdx` the frames are of, when given).
pub(super) fn clips(
    items: &[Item],
    included: &dyn Fn(&str) -> Option<Vec<Item>>,
    (num_frames, mdx): (usize, Option<&str>),
    left_out: &mut dyn FnMut(String),
) -> Vec<FrameGroup> {
    let frames = match mdx {
        Some(mdx) => format!("{mdx}, which has {num_frames} frames"),
        None => format!("a skeleton of {num_frames} frames"),
    };
    let mut groups = Vec::new();
    let mut take = |clip: &Clip, left_out: &mut dyn FnMut(String)| {
        let end = clip.first.checked_add(clip.length);
        match (u32::try_from(clip.first), u32::try_from(clip.length), end) {
            // A placeholder ET lists and never plays: no clip, and nothing wrong.
            (_, Ok(0), _) => {}
            (Ok(first), Ok(count), Some(end)) if end <= num_frames as i64 => {
                groups.push(FrameGroup {
                    name: clip.name.clone(),
                    first,
                    count,
                    fps: clip.fps,
                    looped: clip.looping != 0,
                });
            }
            _ => left_out(format!(
                "{}: {} plays frames {}..{} of {frames}; left out",
                clip.place,
                clip.name,
                clip.first,
                end.map_or_else(|| "?".to_string(), |e| e.to_string())
            )),
        }
    };
    let mut followed = 0;
    for item in items {
        match item {
            Item::Clip(clip) => take(clip, left_out),
            Item::Include(file) => match (followed < MAX_INCLUDES)
                .then(|| {
                    followed += 1;
                    included(file)
                })
                .flatten()
            {
                Some(inner) => {
                    for item in &inner {
                        match item {
                            Item::Clip(clip) => take(clip, left_out),
                            Item::Bad(why) => left_out(why.clone()),
                            Item::Include(_) => {}
                        }
                    }
                }
                None => left_out(format!("{file}: not read; its clips are left out")),
            },
            Item::Bad(why) => left_out(why.clone()),
        }
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn words_split_braces_off_unquoted_tokens() {
        let found: Vec<&[u8]> = words(b"animgroup{ \"a{b\" x}")
            .iter()
            .map(|w| w.text)
            .collect();
        assert_eq!(found, [&b"animgroup"[..], b"{", b"a{b", b"x", b"}"]);
    }

    #[test]
    fn a_character_is_found_by_its_mesh_in_any_case() -> Result<()> {
        let mut files = HashMap::new();
        files.insert(
            "characters/temperate/axis/medic.char".to_string(),
            b"characterDef {\n MESH \"Models\\Players\\medic\\body.mdm\"\n \
              animationgroup \"animations/human_base.anim\" Skin \"red\" }"
                .to_vec(),
        );
        files.insert(
            "characters/temperate/axis/soldier.char".to_string(),
            b"characterDef { mesh \"models/players/soldier/body.mdm\" }".to_vec(),
        );
        let found = find_character(&&files, "models/players/medic/body.mdm")?
            .map(|c| (c.path, c.group, c.skin));
        assert_eq!(
            found,
            Some((
                "characters/temperate/axis/medic.char".to_string(),
                "animations/human_base.anim".to_string(),
                Some("red".to_string())
            ))
        );
        // Named, but with no animation group: not the skeleton's source.
        assert!(find_character(&&files, "models/players/soldier/body.mdm")?.is_none());
        Ok(())
    }

    /// `naked.mdm` of ET's characters: no `.char` names it as its `mesh`, every one as its
    /// `undressedCorpseModel`, drawn with the character's animation group and the skin its
    /// `undressedCorpseSkin` names.
    #[test]
    fn an_undressed_corpse_is_found_by_the_character_that_names_it() -> Result<()> {
        let mut files = HashMap::new();
        for (class, skin) in [("engineer", "allied_engineer"), ("medic", "allied_medic")] {
            files.insert(
                format!("characters/temperate/allied/{class}.char"),
                format!(
                    "characterDef {{\n mesh \"models/players/{class}/body.mdm\"\n \
                     animationgroup \"animations/human_base.anim\"\n skin \"{class}\"\n \
                     undressedCorpseModel \"models/players/common/naked.mdm\"\n \
                     undressedCorpseSkin \"{skin}\"\n}}"
                )
                .into_bytes(),
            );
        }
        let found = |files: &HashMap<String, Vec<u8>>, mesh| {
            find_character(&files, mesh).map(|c| c.map(|c| (c.path, c.group, c.skin)))
        };
        let group = "animations/human_base.anim".to_string();
        assert_eq!(
            found(&files, "models/players/common/naked.mdm")?,
            Some((
                "characters/temperate/allied/engineer.char".to_string(),
                group.clone(),
                Some("allied_engineer".to_string())
            ))
        );
        // A character whose own mesh it is comes first, wherever it is in the walk.
        files.insert(
            "characters/zz/naked.char".to_string(),
            b"characterDef { mesh \"models/players/common/naked.mdm\" \
              animationGroup \"animations/human_base.anim\" }"
                .to_vec(),
        );
        assert_eq!(
            found(&files, "models/players/common/naked.mdm")?,
            Some(("characters/zz/naked.char".to_string(), group, None))
        );
        Ok(())
    }

    #[test]
    fn a_group_gives_its_files_and_the_clips_of_their_blocks() -> Result<()> {
        let text =
            b"animgroup\n{\n animfile \"anims/body.mdx\"\n {\n  #include \"anims/body.aninc\"\n  \
                     wave 10 5 5 15.5 0 0 0 1\n  broken 1 2\n }\n animfile \"anims/other.mdx\" { \
                     #include \"anims/other.aninc\" }\n}\n";
        let group = read_group("g.anim", text)?;
        let files: Vec<_> = group.files().map(|f| f.mdx.as_str()).collect();
        assert_eq!(files, ["anims/body.mdx", "anims/other.mdx"]);
        assert_eq!(group.stopped, None);
        assert_eq!(
            includes(&group).collect::<Vec<_>>(),
            ["anims/body.aninc", "anims/other.aninc"]
        );
        let included = |file: &str| {
            (file == "anims/body.aninc").then(|| {
                read_included(
                    file,
                    b"// deaths\nDEATH 0 4 0 20 0 0 0\nlong 8 9 0 0 0 0 0\nnone 3 0 0 20 0 0 0\n",
                )
                .unwrap_or_default()
            })
        };
        let mut left_out = Vec::new();
        let groups = clips(&group.first.items, &included, (16, None), &mut |why| {
            left_out.push(why)
        });
        let summary: Vec<_> = groups
            .iter()
            .map(|g| (g.name.as_str(), g.first, g.count, g.fps, g.looped))
            .collect();
        assert_eq!(
            summary,
            [("death", 0, 4, 20.0, false), ("wave", 10, 5, 15.5, true)]
        );
        assert_eq!(
            left_out,
            [
                "anims/body.aninc, line 3: long plays frames 8..17 of a skeleton of 16 \
                 frames; left out",
                "g.anim, line 7: broken has 2 numbers; first frame, length, looping and rate \
                 expected"
            ]
        );
        // A group's clip past its file's frames names the file.
        let other = &group.more[0];
        let wave = [Item::Clip(Clip {
            name: "wave".into(),
            first: 1,
            length: 2,
            looping: 0,
            fps: 20.0,
            place: "g.anim, line 9".into(),
        })];
        left_out.clear();
        let none = clips(&wave, &included, (2, Some(&other.mdx)), &mut |why| {
            left_out.push(why)
        });
        assert!(none.is_empty());
        assert_eq!(
            left_out,
            [
                "g.anim, line 9: wave plays frames 1..3 of anims/other.mdx, which has 2 frames; left out"
            ]
        );
        Ok(())
    }

    /// An entry after the first file that is not `animfile <mdx> { … }` ends the reading, and
    /// so does the file past [`MAX_FILES`]; the files before are kept.
    #[test]
    fn a_group_s_reading_stops_at_an_entry_that_is_not_an_animation_file() -> Result<()> {
        let text = b"animgroup {\n animfile a.mdx { }\n animfile b.mdx { x 0 1 0 20 }\n \
                     animation c.mdx { }\n animfile d.mdx { }\n}";
        let group = read_group("g.anim", text)?;
        let files: Vec<_> = group.files().map(|f| f.mdx.as_str()).collect();
        assert_eq!(files, ["a.mdx", "b.mdx"]);
        assert_eq!(
            group.stopped.as_deref(),
            Some(
                "line 4: `animation` where an animfile or the group's end belongs; the rest is \
                 not read"
            )
        );
        // An animfile of no block is not one either.
        let group = read_group("g.anim", b"animgroup { animfile a.mdx { } animfile b.mdx }")?;
        assert_eq!(group.more.len(), 0);
        assert!(group.stopped.is_some_and(|s| s.contains("`animfile`")));
        let mut text = b"animgroup {\n".to_vec();
        for k in 0..=MAX_FILES {
            text.extend(format!("animfile f{k}.mdx {{ }}\n").bytes());
        }
        let group = read_group("g.anim", &text)?;
        assert_eq!(group.files().count(), MAX_FILES);
        assert_eq!(
            group.stopped,
            Some(format!(
                "line {}: more than {MAX_FILES} animation files; the rest are not read",
                MAX_FILES + 2
            ))
        );
        Ok(())
    }

    #[test]
    fn a_group_that_is_not_one_names_where() {
        let err = read_group("g.anim", b"animgroup\n{\n  mdx \"x\"").err();
        assert!(matches!(
            err,
            Some(Error::Text {
                line: 3,
                column: 3,
                offset: 14,
                problem: Problem::Expected {
                    expected: "animfile"
                },
                ..
            })
        ));
        let err = read_group("g.anim", b"animgroup {").err();
        assert!(matches!(err, Some(Error::Text { offset: 11, .. })));
    }
}
