//! An MD3's companions, found as ioquake3 finds them (`docs/formats/md3.md`, § Companion
//! files), and the [`Pair`] they open into. For a model `dir/name.md3`:
//!
//! 1. levels of detail are `dir/name_1.md3` and `dir/name_2.md3` (the engine's three levels);
//!    each that exists and starts with `IDP3` is one, in order. One that does not validate is
//!    ignored with a [`WarningKind::CompanionIgnored`], as the engine stops at it;
//! 2. the skin is `dir/name_<skin>.skin`, `<skin>` being the name asked for
//!    ([`OpenOptions::skin`](crate::model::OpenOptions::skin)) or `default`. A skin asked for
//!    by name must exist; the default one may be missing. It then names the shader of every
//!    surface it lists;
//! 3. a player's legs (`lower.md3`) and torso (`upper.md3`) read `dir/animation.cfg`, when
//!    there is one, for their clips (the legs' or the torso's, with the deaths both play);
//!    so does a non-segmented player's one model (`nonseg.md3`, Tremulous), whose file says
//!    `nonsegmented`. A file of the other kind than the model is ignored with a
//!    [`WarningKind::CompanionIgnored`], as the game would load the other models.
//!
//! A `.skin` or `animation.cfg` that does not parse costs only what it would give: the model
//! opens with a [`WarningKind::CompanionIgnored`] naming the file, line and problem.

use super::raw::MD3_MAGIC;
use super::view::{Md3, Pair};
use crate::diag::{Diagnostics, WarningKind};
use crate::error::{Error, Result};
use crate::format::Format;
use crate::limits::Limits;
use crate::parse::Parse;
use crate::pose::animation_cfg::{AnimationCfg, Body};
use crate::resolver::{Resolver, strip_extension};
use crate::view::open::{Companion, CompanionFile, Files, Given, Open};
use crate::view::skin_file::{self, SkinFile};
pub use crate::view::skin_file::{DEFAULT_SKIN, skin_path};

/// Levels of detail past the model itself (ioquake3's `MD3_MAX_LODS` is 3).
pub const MAX_LODS: usize = 2;

/// The file name of a player's animations, beside its parts.
pub const ANIMATION_CFG: &str = "animation.cfg";

/// The player part a model at `path` is, by its file name: `lower` the legs, `upper` the
/// torso, `nonseg` the whole of a non-segmented player ([`Body::Both`]; ASCII case ignored);
/// `None` for any other model, `head` included.
#[must_use]
pub fn part_of(path: &str) -> Option<Body> {
    let stem = strip_extension(path);
    let name = stem.rsplit(['/', '\\']).next().unwrap_or(stem);
    if name.eq_ignore_ascii_case("lower") {
        Some(Body::Legs)
    } else if name.eq_ignore_ascii_case("upper") {
        Some(Body::Torso)
    } else if name.eq_ignore_ascii_case("nonseg") {
        Some(Body::Both)
    } else {
        None
    }
}

/// The directory part of `path`, with its trailing `/` (empty for a bare name).
fn directory(path: &str) -> &str {
    path.rfind(['/', '\\'])
        .and_then(|i| path.get(..=i))
        .unwrap_or_default()
}

/// An MD3 opens with its levels of detail, its skin and, for a player's legs or torso, the
/// player's `animation.cfg` (see the [module docs](self)).
impl<'a> Open<'a> for Pair<'a> {
    fn companions<'data, R: Resolver<'data> + ?Sized>(
        resolver: &R,
        path: &str,
        _: &[u8],
        given: Given<'data>,
    ) -> Result<Vec<CompanionFile<'data>>> {
        let mut companions = Vec::new();
        let base = strip_extension(path);
        let ext = path.get(base.len()..).unwrap_or_default();
        for n in 1..=MAX_LODS {
            let lod = format!("{base}_{n}{ext}");
            if let Some(bytes) = resolver.load(&lod)?
                && bytes.bytes().starts_with(MD3_MAGIC)
            {
                companions.push((Companion::LevelOfDetail, lod, bytes));
            }
        }
        if let Some((skin, text)) =
            skin_file::find(resolver, path, given.skin.as_deref(), DEFAULT_SKIN)?
        {
            companions.push((Companion::Skin, skin, text));
        }
        if part_of(path).is_some() {
            let cfg = format!("{}{ANIMATION_CFG}", directory(path));
            if let Some(text) = resolver.load(&cfg)? {
                companions.push((Companion::AnimationConfig, cfg, text));
            }
        }
        Ok(companions)
    }

    fn open(files: &'a Files<'_>, limits: &Limits, diag: &mut Diagnostics) -> Result<Self> {
        let md3 = Md3::parse_with(files.main.bytes(), limits, diag)?;
        let mut pair = Pair {
            md3,
            lods: Vec::new(),
            skin: None,
            animation: None,
        };
        for (kind, path, source) in &files.companions {
            // The offset is in the companion: its path leads the detail.
            let ignored = |diag: &mut Diagnostics, what: &'static str, e: &Error| {
                files.leave_out(path);
                diag.warn(
                    Format::Md3,
                    WarningKind::CompanionIgnored,
                    what,
                    e.offset().unwrap_or(0),
                    || format!("{path}: {e}; ignored"),
                );
            };
            match kind {
                Companion::LevelOfDetail => match Md3::parse_with(source.bytes(), limits, diag) {
                    Ok(lod) => pair.lods.push(lod),
                    Err(e) => ignored(diag, "level of detail", &e),
                },
                Companion::Skin => match SkinFile::parse(source.bytes(), Format::Md3) {
                    Ok(skin) => pair.skin = Some(skin),
                    Err(e) => ignored(diag, ".skin", &e),
                },
                Companion::AnimationConfig => {
                    let Some(part) = part_of(&files.path) else {
                        continue;
                    };
                    match AnimationCfg::parse(source.bytes(), Format::Md3) {
                        Ok(cfg) if cfg.nonsegmented == (part == Body::Both) => {
                            pair.animation = Some((cfg, part));
                        }
                        Ok(cfg) => {
                            files.leave_out(path);
                            diag.warn(
                                Format::Md3,
                                WarningKind::CompanionIgnored,
                                "animation.cfg",
                                0,
                                || {
                                    let whose = if cfg.nonsegmented {
                                        "a non-segmented player's (it says `nonsegmented`), for \
                                     nonseg.md3"
                                    } else {
                                        "a segmented player's (it does not say `nonsegmented`), \
                                     for lower.md3 and upper.md3"
                                    };
                                    format!("{path}: {whose}; ignored")
                                },
                            );
                        }
                        Err(e) => ignored(diag, "animation.cfg", &e),
                    }
                }
                _ => {}
            }
        }
        Ok(pair)
    }
}
