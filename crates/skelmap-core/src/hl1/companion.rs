//! A Half-Life model's companions (`docs/formats/hl1.md`, § Companion files), found beside
//! `dir/name.mdl`:
//!
//! 1. its texture file, `dir/nameT.mdl`, or `dir/namet.mdl` (many shipped models use lower
//!    case), an `IDST` file; looked for only when the model has no textures of its own;
//! 2. its sequence groups, `dir/name01.mdl`, `dir/name02.mdl` …, each an `IDSQ` file, up to
//!    the first missing one; looked for only up to the groups the model declares.
//!
//! A name missing as spelled is looked for in any case in its folder (where the resolver
//! lists folders), as Windows and Xash3D find it: a mod ships `Hgrunt03.mdl` beside
//! `hgrunt.mdl`.
//!
//! A companion that does not validate costs only what it would give: the model opens without
//! its textures or without that group's sequences, with a
//! [`WarningKind::CompanionIgnored`] naming the file. So does one not found: a texture file
//! the model needs (it has no textures of its own, and meshes), or a declared group.

use zerocopy::FromBytes;

use super::raw::{HL1_MAGIC, HL1_SEQ_MAGIC, StudioHdr};
use super::validate::check_group;
use super::view::{Hl1, Pair};
use crate::diag::{Diagnostics, WarningKind};
use crate::error::Result;
use crate::format::Format;
use crate::limits::Limits;
use crate::parse::Parse;
use crate::resolver::{Resolver, load_any_case, strip_extension};
use crate::view::open::{Companion, CompanionFile, Files, Given, Open};

/// The most sequence-group files looked for (Half-Life's `MAXSTUDIOGROUPS` is 16).
pub const MAX_GROUP_FILES: usize = 15;

/// Where rule 1 of § Companion files looks for the texture file of the model at `path`,
/// upper case first.
#[must_use]
pub fn texture_paths(path: &str) -> [String; 2] {
    let base = strip_extension(path);
    let ext = path.get(base.len()..).unwrap_or_default();
    [format!("{base}T{ext}"), format!("{base}t{ext}")]
}

/// Where sequence group `g` (1 and up) of the model at `path` is.
#[must_use]
pub fn group_path(path: &str, g: usize) -> String {
    let base = strip_extension(path);
    let ext = path.get(base.len()..).unwrap_or_default();
    format!("{base}{g:02}{ext}")
}

/// The model whose sequence group the file at `path` is by its name, and the group's number:
/// `dir/name01.mdl` … `dir/name15.mdl` belong to `dir/name.mdl` as groups 1 to 15 (the
/// inverse of [`group_path`]). `None` for any other name; the name alone does not make a
/// file a group (its magic, `IDSQ`, does).
///
/// ```
/// use skelmap_core::hl1::{group_model, group_path};
/// assert_eq!(group_model("models/scientist02.mdl"), Some(("models/scientist.mdl".to_string(), 2)));
/// assert_eq!(group_model(&group_path("a/b.MDL", 15)), Some(("a/b.MDL".to_string(), 15)));
/// assert_eq!(group_model("models/scientist.mdl"), None); // no digits
/// assert_eq!(group_model("models/w_9mm00.mdl"), None); // group 0 is the model itself
/// assert_eq!(group_model("models/01.mdl"), None); // no model name before them
/// ```
#[must_use]
pub fn group_model(path: &str) -> Option<(String, usize)> {
    let base = strip_extension(path);
    let ext = path.get(base.len()..).unwrap_or_default();
    let (stem, digits) = base.split_at_checked(base.len().checked_sub(2)?)?;
    let name_start = stem.rfind(['/', '\\']).map_or(0, |i| i + 1);
    if stem.len() == name_start || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let g: usize = digits.parse().ok()?;
    (1..=MAX_GROUP_FILES)
        .contains(&g)
        .then(|| (format!("{stem}{ext}"), g))
}

impl<'a> Open<'a> for Pair<'a> {
    const FRAME_GROUPS: bool = false;

    fn companions<'data, R: Resolver<'data> + ?Sized>(
        resolver: &R,
        path: &str,
        main: &[u8],
        _given: Given<'data>,
    ) -> Result<Vec<CompanionFile<'data>>> {
        let mut found = Vec::new();
        // Only what the header says the model uses is looked for: a file system lookup
        // costs a system call, found or not.
        let Ok((header, _)) = StudioHdr::ref_from_prefix(main) else {
            return Ok(found);
        };
        if header.numtextures.get() == 0 {
            let [upper, lower] = texture_paths(path);
            // Both spellings exactly first; then any case, as a file system without case
            // finds them.
            let exact = match resolver.load(&upper)? {
                Some(bytes) => Some((upper, bytes)),
                None => resolver.load(&lower)?.map(|bytes| (lower.clone(), bytes)),
            };
            let texture = match exact {
                Some(found) => Some(found),
                None => load_any_case(resolver, &lower)?,
            };
            if let Some((candidate, bytes)) = texture
                && bytes.bytes().starts_with(HL1_MAGIC)
            {
                found.push((Companion::Textures, candidate, bytes));
            }
        }
        let groups = usize::try_from(header.numseqgroups.get()).unwrap_or(0);
        for g in 1..groups.min(MAX_GROUP_FILES + 1) {
            match load_any_case(resolver, &group_path(path, g))? {
                Some((candidate, bytes)) if bytes.bytes().starts_with(HL1_SEQ_MAGIC) => {
                    found.push((Companion::SequenceGroup, candidate, bytes));
                }
                _ => break,
            }
        }
        Ok(found)
    }

    fn open(files: &'a Files<'_>, limits: &Limits, diag: &mut Diagnostics) -> Result<Self> {
        let main = Hl1::parse_with(files.main.bytes(), limits, diag)?;
        let main = match files.body {
            Some(body) if body != 0 => main.with_body(body, limits)?,
            _ => main,
        };
        let mut textures = None;
        let mut texture_file = false;
        let mut groups = Vec::new();
        let mut next_group = 1usize;
        for (kind, path, source) in &files.companions {
            match kind {
                Companion::Textures if main.textures.is_empty() => {
                    texture_file = true;
                    match Hl1::parse_with(source.bytes(), limits, diag) {
                        Ok(t) => textures = Some(t),
                        Err(e) => {
                            ignored((files, diag), path, e.offset().unwrap_or(0), &e.to_string())
                        }
                    }
                }
                Companion::SequenceGroup if next_group < main.seqgroups.len() => {
                    let g = next_group;
                    next_group += 1;
                    match check_group(source.bytes(), &main, g as u32, limits, diag) {
                        Ok(bytes) => groups.push(Some(bytes)),
                        Err(e) => {
                            ignored((files, diag), path, e.offset().unwrap_or(0), &e.to_string());
                            groups.push(None);
                        }
                    }
                }
                _ => {}
            }
        }
        // Companions not at hand cost what they would give, and are said in one warning (a
        // kind keeps one detail): meshes whose textures are in a file not found (or not an
        // `IDST` file) are drawn untextured, their coordinates in texels (one found and
        // refused has said so already); groups from the first one not at hand on have no
        // file, and their sequences no frames. Opened from bytes alone, none is at hand.
        let mut missing = Vec::new();
        if main.textures.is_empty() && !texture_file && !main.meshes.is_empty() {
            let file = if files.path.is_empty() {
                "the texture file".to_string()
            } else {
                texture_paths(&files.path).join(" or ")
            };
            missing.push(format!(
                "{file} not found: the model has no textures of its own, so its meshes have \
                 none and their texture coordinates stay in texels"
            ));
        }
        let wanted = main.seqgroups.len();
        if next_group < wanted {
            let sequences = main
                .sequences
                .iter()
                .filter(|s| usize::try_from(s.seqgroup.get()).is_ok_and(|g| g >= next_group))
                .count();
            let file = if files.path.is_empty() {
                format!("the file of sequence group {next_group}")
            } else {
                group_path(&files.path, next_group)
            };
            let range = if next_group + 1 == wanted {
                format!("group {next_group}")
            } else {
                format!("groups {next_group} to {}", wanted - 1)
            };
            // Past Half-Life's 16 groups, a file is not looked for at all.
            let why = if next_group > MAX_GROUP_FILES {
                "not looked for (at most 15 sequence-group files are)"
            } else {
                "not found"
            };
            missing.push(format!(
                "{file} {why}: sequence {range} left out, with its {sequences} sequences"
            ));
        }
        diag.warn_n(
            Format::Hl1,
            WarningKind::CompanionIgnored,
            "companion",
            0,
            missing.len() as u64,
            || missing.join("; "),
        );
        Ok(Pair::new(main, textures, groups))
    }
}

/// Records a companion that was left out.
fn ignored((files, diag): (&Files<'_>, &mut Diagnostics), path: &str, offset: u64, why: &str) {
    files.leave_out(path);
    diag.warn(
        Format::Hl1,
        WarningKind::CompanionIgnored,
        "companion",
        offset,
        || format!("{path}: {why}; left out"),
    );
}
