//! An `.md5mesh`'s animations: the one given (`--animation`), or every `.md5anim` in its
//! folder, since games name them freely (`pistol.md5mesh` with `pistol-idle.md5anim`,
//! `rocket_launcher.md5mesh` with `idle.md5anim`). A found animation plays when it fits the
//! mesh's joints (names and parents, in order) and is otherwise left out with a warning (a
//! folder may hold a second mesh with another skeleton); a given one that does not fit is an
//! error. Each animation's `.md5scale` (the Quake II remaster's per-joint scales;
//! `docs/formats/md5.md`) is read with it.

use super::lex::{Lexer, line_column};
use super::raw::JointAnimInfo;
use super::scale;
use super::validate::{Kind, header};
use super::view::{Anim, MeshFile, Pair};
use crate::diag::{Diagnostics, WarningKind};
use crate::error::{Error, Problem, Result};
use crate::format::Format;
use crate::limits::Limits;
use crate::parse::Parse;
use crate::resolver::Resolver;
use crate::source::{Access, Source};
use crate::view::open::{Companion, CompanionFile, Files, Given, Open};

/// The most animations found beside one mesh that are opened.
pub const MAX_ANIMATIONS: usize = 1024;

/// `true` for a file name ending in `.md5anim` (any case).
fn is_anim(name: &str) -> bool {
    name.len() > 8
        && name
            .get(name.len() - 8..)
            .is_some_and(|e| e.eq_ignore_ascii_case(".md5anim"))
}

impl<'a> Open<'a> for Pair<'a> {
    const FRAME_GROUPS: bool = false;

    fn companions<'data, R: Resolver<'data> + ?Sized>(
        resolver: &R,
        path: &str,
        _: &[u8],
        given: Given<'data>,
    ) -> Result<Vec<CompanionFile<'data>>> {
        let mut found = Vec::new();
        if let Some((path, anim)) = given.animation {
            // A given animation is read from its own path, outside the resolver's root as
            // likely as inside, and so is its sidecar.
            let sidecar = scale::path_of(&path);
            let named = !path.is_empty();
            found.push((Companion::Animation, path, anim));
            if named && let Some(source) = Source::open_if_file(&sidecar, Access::Read)? {
                found.push((Companion::Scale, sidecar, source));
            }
            return Ok(found);
        }
        if is_anim(path) {
            let sidecar = scale::path_of(path);
            if let Some(source) = resolver.load(&sidecar)? {
                found.push((Companion::Scale, sidecar, source));
            }
            return Ok(found);
        }
        let (dir, _) = path.rsplit_once('/').unwrap_or(("", path));
        let names = resolver.list(dir)?;
        let listed: std::collections::HashSet<&str> = names.iter().map(String::as_str).collect();
        let full = |name: &str| {
            if dir.is_empty() {
                name.to_string()
            } else {
                format!("{dir}/{name}")
            }
        };
        let mut anims = 0;
        for name in names.iter().filter(|n| is_anim(n)) {
            if anims == MAX_ANIMATIONS {
                break;
            }
            let Some(source) = resolver.load(&full(name))? else {
                continue;
            };
            anims += 1;
            found.push((Companion::AnimationBeside, full(name), source));
            // Looked up in the listing rather than asked for as a file.
            let sidecar = scale::path_of(name);
            if listed.contains(sidecar.as_str())
                && let Some(source) = resolver.load(&full(&sidecar))?
            {
                found.push((Companion::Scale, full(&sidecar), source));
            }
        }
        Ok(found)
    }

    fn open(files: &'a Files<'_>, limits: &Limits, diag: &mut Diagnostics) -> Result<Self> {
        let text = files.main.bytes();
        crate::rules::check_file_size(Format::Md5, text, limits)?;
        if header(&mut Lexer::new(text))?.kind != Kind::Mesh {
            let mut anim = Anim::parse_with(text, limits, diag)?;
            read_scales(files, &files.path, &mut anim, limits, diag);
            return Ok(Pair::new(None, vec![(stem(&files.path).to_string(), anim)]));
        }
        let mesh = MeshFile::parse_with(text, limits, diag)?;
        let mut anims = Vec::new();
        let mut left_out = Vec::new();
        for (kind, path, source) in &files.companions {
            let given = match kind {
                Companion::Animation => true,
                Companion::AnimationBeside => false,
                _ => continue,
            };
            // Fitted to the mesh as soon as its hierarchy is read: another skeleton's
            // animation is left out without its frames read, and its findings with it.
            let text = source.bytes();
            let mut own = Diagnostics::new();
            let fitted = Anim::parse_checked(
                text,
                limits,
                &mut own,
                Some(&mesh),
                |hierarchy, joints_at| match Pair::hierarchy_fits(&mesh, hierarchy, text) {
                    Some(joint) => Err(misfit(&mesh, (hierarchy, joints_at), text, joint)),
                    None => Ok(()),
                },
            );
            let mut anim = match fitted {
                Ok(anim) => anim,
                Err(e) if given => return Err(e),
                Err(e) => {
                    // Its `.md5scale`, opened with it, goes with it.
                    files.leave_out(path);
                    files.leave_out(&scale::path_of(path));
                    left_out.push((path.as_str(), e));
                    continue;
                }
            };
            diag.absorb(&own);
            read_scales(files, path, &mut anim, limits, diag);
            anims.push((clip_name(stem(&files.path), stem(path)), anim));
        }
        ignored(diag, &left_out);
        Ok(Pair::new(Some(mesh), anims))
    }
}

/// Reads the `.md5scale` of the animation at `path` into `anim`, if one came with it. One
/// larger than the limits allow a file is left out with a warning, as a malformed one is.
fn read_scales(
    files: &Files<'_>,
    path: &str,
    anim: &mut Anim<'_>,
    limits: &Limits,
    diag: &mut Diagnostics,
) {
    let sidecar = scale::path_of(path);
    let found = files
        .companions
        .iter()
        .find(|(kind, p, _)| *kind == Companion::Scale && *p == sidecar);
    if let Some((_, _, source)) = found {
        let text = source.bytes();
        let applied = match crate::rules::check_file_size(Format::Md5, text, limits) {
            Ok(()) => scale::apply(anim, &sidecar, text, diag),
            Err(e) => {
                diag.warn(
                    Format::Md5,
                    WarningKind::CompanionIgnored,
                    "scale",
                    0,
                    || format!("{sidecar}: {e}; the animation plays without its scales"),
                );
                false
            }
        };
        if !applied {
            files.leave_out(&sidecar);
        }
    }
}

/// Records the animations beside the mesh that were left out, each file with its error, in
/// one warning (a kind keeps one detail, and a folder may hold a dozen animations of another
/// skeleton), located where the first one's error is.
fn ignored(diag: &mut Diagnostics, left_out: &[(&str, Error)]) {
    let offset = left_out.first().and_then(|(_, e)| e.offset()).unwrap_or(0);
    diag.warn_n(
        Format::Md5,
        WarningKind::CompanionIgnored,
        "animation",
        offset,
        left_out.len() as u64,
        || {
            let each: Vec<String> = left_out
                .iter()
                .map(|(path, e)| format!("{path}: {e}"))
                .collect();
            format!("{}; not played on this mesh", each.join("; "))
        },
    );
}

/// The error for an animation (its `hierarchy`, read from `text`, whose `numJoints` is at
/// `joints_at`) that stops fitting the mesh at joint `joint`, located in the animation's
/// text: at its `numJoints` where the counts differ, else at the joint's name.
fn misfit(
    mesh: &MeshFile<'_>,
    (hierarchy, joints_at): (&[JointAnimInfo], u64),
    text: &[u8],
    joint: usize,
) -> Error {
    let (what, problem, offset) = match hierarchy.get(joint) {
        Some(h) if hierarchy.len() == mesh.joints.len() => (
            "hierarchy.name",
            Problem::JointMismatch {
                joint: joint as u64,
            },
            u64::from(h.name.start),
        ),
        _ => (
            "header.numJoints",
            Problem::Mismatch {
                value: hierarchy.len() as u64,
                expected: mesh.num_joints() as u64,
            },
            joints_at,
        ),
    };
    let (line, column) = line_column(text, offset);
    Error::Text {
        format: Format::Md5,
        what,
        line,
        column,
        offset,
        problem,
    }
}

/// A file's name without its folders and extension.
fn stem(path: &str) -> &str {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    name.rsplit_once('.').map_or(name, |(s, _)| s)
}

/// The clip an animation beside mesh `mesh` plays: its stem, without the mesh's stem and a
/// `-` or `_` after it (`pistol-idle` beside `pistol` is `idle`; `idle` stays `idle`).
fn clip_name(mesh: &str, anim: &str) -> String {
    let short = anim
        .strip_prefix(mesh)
        .and_then(|rest| rest.strip_prefix(['-', '_']))
        .filter(|rest| !rest.is_empty());
    short.unwrap_or(anim).to_string()
}
