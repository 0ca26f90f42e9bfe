//! Opening a model: from a path (read or mapped), from bytes, or through a [`Resolver`], with
//! the companion files each format needs.
//!
//! Companions are found the way the engines find them, always through the resolver (so a
//! model never makes skelmap read outside the resolver's root):
//!
//! - an SKM's skeleton (named by `name.cfg`'s `import`, else `name.skp`) and its levels of
//!   detail `name_1.skm` … `name_4.skm` ([`skm::resolve`](crate::skm::resolve));
//! - an SL mesh's animation, `name.anim`, when it exists;
//! - an MD3's levels of detail `name_1.md3`, `name_2.md3`, its skin `name_default.skin` (or
//!   the one [`OpenOptions::skin`] names), and for a player's `lower.md3` or `upper.md3` the
//!   `animation.cfg` beside it ([`md3::companion`](crate::md3::companion));
//! - an MD5 mesh's `.md5anim` files beside it (each with its `.md5scale`), played when they
//!   fit its joints;
//! - a Half-Life model's texture file (`nameT.mdl` or `namet.mdl`) and sequence groups
//!   (`name01.mdl` …);
//! - a PSK's PSA of the same name;
//! - an MDM's MDX of the same name, else the one Enemy Territory finds through the
//!   character file (`.char`) and animation group (`.anim`, `.aninc`) that name the mesh,
//!   with their clips and skin;
//! - for every format but Half-Life, MD5 and MDM/MDX (whose clips are their own),
//!   DarkPlaces' `.framegroups` sidecar (`model.dpm.framegroups`), when it exists, which
//!   then gives the model's clips. A malformed sidecar is ignored with a
//!   [`WarningKind::CompanionIgnored`] naming it, and the model keeps its own clips.

use std::path::{Component, Path, PathBuf};
use std::sync::OnceLock;

use super::any::with_view;
use super::{Cell, ClipOrigin, Companion, Model, View};
use crate::diag::{Diagnostics, WarningKind};
use crate::error::{Error, Result};
use crate::format::Format;
use crate::limits::Limits;
use crate::pose::framegroups;
use crate::quake::raw::MDL2_MAGIC;
use crate::resolver::{FsResolver, Resolver, check_path};
use crate::source::{Access, MapPromise, Source};
use crate::view::ModelView;
use crate::view::open::{CompanionFile, Files, Given};

/// What [`Model::open_with`] needs besides the path.
#[derive(Debug, Clone, Default)]
pub struct OpenOptions {
    /// Denial-of-service bounds applied to every file.
    pub limits: Limits,
    /// The game's base directory: paths named inside files (an SKM's `.cfg` `import`, an ET
    /// character file's) are relative to it, and no companion is read from outside it.
    /// `None`: the one the format finds above the file (an MDM's: the nearest folder holding
    /// `characters/`), else the model's own directory ([`Model::base`] says which). The
    /// model's path may be relative; it must lie inside the root.
    pub root: Option<PathBuf>,
    /// Read the files into memory, or map them.
    pub access: Access,
    /// A mesh's skeleton, this file (any path, not looked up under the root) instead of the
    /// one found by name: an SKM's `.skp` (else the one its `.cfg` imports or its own name
    /// gives), an MDM's `.mdx` (else the one of its stem, else the one its character file's
    /// animation group names). Ignored for the other formats.
    pub skeleton: Option<PathBuf>,
    /// An animation to play on the model, this file (any path, not looked up under the
    /// root): for an IQM an animation-only IQM whose bones are matched to the model's joints,
    /// for an MD5 mesh an `.md5anim` (instead of those beside it; one that does not fit the
    /// joints is an error), for a PSK a `.psa` (instead of the one of its stem). Ignored for
    /// the other formats.
    pub animation: Option<PathBuf>,
    /// The skin to open an MD3 or an MDM with: `red` opens `name_red.skin` beside `name.md3`
    /// (which must exist). `None`: for an MDM the skin of a character file naming it, else
    /// `name_default.skin`, when there is one. Ignored for the other
    /// formats.
    pub skin: Option<String>,
    /// The body value to open a Half-Life model with (an entity's `body`): each body part
    /// shows its model `(body / base) % nummodels` ([`hl1::Hl1::body_model`]). `None`: 0,
    /// every part's first model. Ignored for the other formats.
    ///
    /// [`hl1::Hl1::body_model`]: crate::hl1::Hl1::body_model
    pub body: Option<u32>,
}

impl Model<'static> {
    /// Opens the model at `path` and its companions, reading them into memory.
    ///
    /// ```
    /// let path = std::env::temp_dir().join("skelmap-model-open-doctest.dpm");
    /// std::fs::write(&path, skelmap_core::synth::tube(&Default::default()).write()?)?;
    /// let model = skelmap_core::Model::open(&path)?;
    /// assert_eq!(model.format(), skelmap_core::Format::Dpm);
    /// # std::fs::remove_file(&path)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::Io`] when a file cannot be read, [`Error::Resolve`] for a missing companion (an
    /// SKM's skeleton, an MDM's MDX), [`Error::UnknownFormat`] ([`Error::NotAModel`] for a
    /// sprite, map or archive), and any validation error.
    pub fn open(path: impl AsRef<Path>) -> Result<Model<'static>> {
        Model::open_with(path, &OpenOptions::default())
    }

    /// Opens the model at `path` and its companions by memory-mapping them: no copy. The
    /// caller makes the [`MapPromise`] once (its docs show how) and passes it on.
    ///
    /// ```no_run
    /// use skelmap_core::{Error, Model, source::MapPromise};
    /// fn load(promise: MapPromise) -> Result<Model<'static>, Error> {
    ///     Model::map("models/zombie.dpm", promise)
    /// }
    /// ```
    ///
    /// # Errors
    ///
    /// As [`Model::open`].
    pub fn map(path: impl AsRef<Path>, promise: MapPromise) -> Result<Model<'static>> {
        let options = OpenOptions {
            access: Access::Map(promise),
            ..OpenOptions::default()
        };
        Model::open_with(path, &options)
    }

    /// Opens the model at `path` with `options`.
    ///
    /// # Errors
    ///
    /// As [`Model::open`]; [`Error::Resolve`] when `path` is not inside `options.root`.
    pub fn open_with(path: impl AsRef<Path>, options: &OpenOptions) -> Result<Model<'static>> {
        let path = path.as_ref();
        // A path outside the root given is refused before anything is read.
        let given_root = match &options.root {
            Some(root) => Some(split_root(path, Some(root))?),
            None => None,
        };
        // The model itself is opened directly, so that a missing file is an I/O error naming it.
        let main = Source::open(path, options.access)?;
        let (root, relative) = match given_root {
            Some(split) => split,
            // Without a root, a format may find the game's base directory above the file.
            None => {
                let extension = path.extension().and_then(|e| e.to_str());
                let found = Format::detect(main.bytes(), extension)
                    .and_then(|format| View::base_dir(format, path));
                split_root(path, found.as_deref())?
            }
        };
        let resolver = FsResolver::new(root).with_access(options.access);
        let given = |path: &Option<PathBuf>| -> Result<Option<(String, Source<'static>)>> {
            match path {
                Some(p) => Ok(Some((
                    p.display().to_string(),
                    Source::open(p, options.access)?,
                ))),
                None => Ok(None),
            }
        };
        let given = Given {
            skeleton: given(&options.skeleton)?,
            animation: given(&options.animation)?,
            skin: options.skin.clone(),
            body: options.body,
        };
        let mut model = Model::with_companions(&resolver, &relative, main, given, &options.limits)?;
        model.base = Some(resolver.root().to_path_buf());
        Ok(model)
    }

    /// Validates bytes the model takes ownership of (no companions: see
    /// [`Model::from_source`]).
    ///
    /// # Errors
    ///
    /// As [`Model::from_source`].
    pub fn from_vec(bytes: Vec<u8>) -> Result<Model<'static>> {
        Model::from_source(Source::from_vec(bytes), None, &Limits::DEFAULT)
    }
}

impl<'data> Model<'data> {
    /// Validates bytes the caller owns, with the default limits (no companions: see
    /// [`Model::from_source`]).
    ///
    /// # Errors
    ///
    /// As [`Model::from_source`].
    pub fn from_bytes(bytes: &'data [u8]) -> Result<Model<'data>> {
        Model::from_source(Source::from_bytes(bytes), None, &Limits::DEFAULT)
    }

    /// Validates one file without companions: recognised by its magic, or by `extension`
    /// (without the dot) for the SL `.anim`, which has none. An SL mesh is opened without
    /// its animation (a static mesh).
    ///
    /// # Errors
    ///
    /// [`Error::UnknownFormat`] ([`Error::NotAModel`] for a sprite, map or archive);
    /// [`Error::Resolve`] for an SKM or an MDM, which need their skeletons
    /// ([`Model::from_skm`], [`Model::from_mdm`] or [`Model::resolve`]); any validation error.
    pub fn from_source(
        source: Source<'data>,
        extension: Option<&str>,
        limits: &Limits,
    ) -> Result<Model<'data>> {
        let format = Format::detect(source.bytes(), extension)
            .ok_or_else(|| Error::unrecognised(source.bytes()))?;
        if format == Format::Skm {
            return Err(Error::Resolve {
                path: String::new(),
                reason: "an SKM mesh needs its SKP skeleton: open it with Model::from_skm or \
                         through a resolver",
            });
        }
        if format == Format::Mdm {
            return Err(Error::Resolve {
                path: String::new(),
                reason: "an MDM mesh needs its MDX skeleton: open it with Model::from_mdm or \
                         through a resolver",
            });
        }
        Model::build(format, (String::new(), source, Vec::new()), None, limits)
    }

    /// Validates an SKM mesh and its SKP skeleton and pairs them (their bone counts must
    /// match).
    ///
    /// # Errors
    ///
    /// Any validation or pairing error.
    pub fn from_skm(
        skm: Source<'data>,
        skp: Source<'data>,
        limits: &Limits,
    ) -> Result<Model<'data>> {
        let companions = vec![(Companion::Skeleton, String::new(), skp)];
        Model::build(Format::Skm, (String::new(), skm, companions), None, limits)
    }

    /// Validates an Enemy Territory MDM mesh and its MDX skeleton and pairs them (every bone
    /// the mesh names must be one of the skeleton's: [`mdm::Pair::new`](crate::mdm::Pair::new)).
    ///
    /// ```
    /// use skelmap_core::{Limits, Model, source::Source};
    /// let (mdm, mdx) = skelmap_core::mdm::Builder::triangle().write();
    /// let model = Model::from_mdm(Source::from_vec(mdm), Source::from_vec(mdx), &Limits::DEFAULT)?;
    /// assert_eq!((model.num_bones(), model.num_frames(), model.num_meshes()), (2, 3, 1));
    /// # Ok::<(), skelmap_core::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// Any validation or pairing error.
    pub fn from_mdm(
        mdm: Source<'data>,
        mdx: Source<'data>,
        limits: &Limits,
    ) -> Result<Model<'data>> {
        let companions = vec![(Companion::Skeleton, String::new(), mdx)];
        Model::build(Format::Mdm, (String::new(), mdm, companions), None, limits)
    }

    /// Opens the model at VFS `path` and its companions through `resolver` (see the module
    /// docs).
    ///
    /// ```
    /// use skelmap_core::Parse;
    /// use std::collections::HashMap;
    /// use skelmap_core::skm::convert;
    /// use skelmap_core::{Diagnostics, Limits, Model, dpm::Dpm, synth};
    /// let dpm = synth::tube(&synth::TubeParams::default()).write()?;
    /// let c = convert::from_dpm(&Dpm::parse(&dpm)?, &mut Diagnostics::new());
    /// let mut files = HashMap::new();
    /// files.insert("models/tube.skm".to_string(), c.skm.write()?);
    /// files.insert("models/tube.skp".to_string(), c.skp.write()?);
    /// let model = Model::resolve(&&files, "models/tube.skm", &Limits::DEFAULT)?;
    /// assert_eq!((model.num_bones(), model.num_frames()), (4, 9));
    /// # Ok::<(), skelmap_core::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::Resolve`] when the model or a companion it needs is missing or a path is
    /// refused; [`Error::UnknownFormat`] or [`Error::NotAModel`]; errors of the resolver; any
    /// validation error.
    pub fn resolve<R: Resolver<'data> + ?Sized>(
        resolver: &R,
        path: &str,
        limits: &Limits,
    ) -> Result<Model<'data>> {
        check_path(path)?;
        let main = resolver.load(path)?.ok_or_else(|| Error::Resolve {
            path: path.to_string(),
            reason: "model not found",
        })?;
        Model::with_companions(resolver, path, main, Given::default(), limits)
    }

    /// Validates `main`, found at VFS `path`, and the companions `resolver` serves for it;
    /// `given.skeleton` is an SKM's skeleton instead of the one it names, `given.animation`
    /// an animation-only IQM for an IQM.
    fn with_companions<R: Resolver<'data> + ?Sized>(
        resolver: &R,
        path: &str,
        main: Source<'data>,
        given: Given<'data>,
        limits: &Limits,
    ) -> Result<Model<'data>> {
        let extension = Path::new(path).extension().and_then(|e| e.to_str());
        let format = Format::detect(main.bytes(), extension)
            .ok_or_else(|| Error::unrecognised(main.bytes()))?;
        let body = given.body;
        let mut companions = View::companions(format, resolver, path, main.bytes(), given)?;
        if View::frame_groups(format) {
            let sidecar = format!("{path}.framegroups");
            if let Some(text) = resolver.load(&sidecar)? {
                companions.push((Companion::FrameGroups, sidecar, text));
            }
        }
        Model::build(format, (path.to_string(), main, companions), body, limits)
    }

    /// Validates an IQM and an animation-only IQM and plays the animation on the model (see
    /// [`iqm::Pair::new`](crate::iqm::Pair::new)).
    ///
    /// # Errors
    ///
    /// Any validation error; [`Error::Invalid`] when the animation has no poses or none of
    /// its bones matches a joint.
    pub fn from_iqm(
        model: Source<'data>,
        animation: Source<'data>,
        limits: &Limits,
    ) -> Result<Model<'data>> {
        let companions = vec![(Companion::Animation, String::new(), animation)];
        Model::build(
            Format::Iqm,
            (String::new(), model, companions),
            None,
            limits,
        )
    }

    /// Validates `main` (found at `path`) as `format` and its companions, and pairs them; a
    /// Half-Life model showing `body`.
    fn build(
        format: Format,
        (path, main, companions): (String, Source<'data>, Vec<CompanionFile<'data>>),
        body: Option<u32>,
        limits: &Limits,
    ) -> Result<Model<'data>> {
        let files = Files::new(path, main, companions, body);
        let mut diag = Diagnostics::new();
        // MDL2 has Quake's layout, not MDL3's: the Quake view reads it (and says MDL).
        let reader = match format {
            Format::Mdl if files.main.bytes().starts_with(MDL2_MAGIC) => Format::Quake,
            format => format,
        };
        let cell = Cell::try_new(files, |files| View::open(reader, files, limits, &mut diag))?;
        let clip_origin = with_view!(cell.borrow_dependent(), v => v.clip_origin());
        let mut model = Model {
            cell,
            validated: diag.warnings().len(),
            found: diag,
            diagnostics: OnceLock::new(),
            clips: OnceLock::new(),
            clips_by_name: OnceLock::new(),
            clip_origin,
            code_page: OnceLock::new(),
            attachment_bones: OnceLock::new(),
            stored_pose: Default::default(),
            bind: OnceLock::new(),
            bind_inverse: OnceLock::new(),
            still: OnceLock::new(),
            base: None,
        };
        let sidecar = model
            .cell
            .borrow_owner()
            .companions
            .iter()
            .find(|(kind, _, _)| *kind == Companion::FrameGroups)
            .map(|(_, path, text)| {
                let groups =
                    framegroups::parse(text.bytes(), model.num_frames() as u32, model.format());
                // Where a broken line is, as an editor counts: from 1.
                let line = groups
                    .as_ref()
                    .err()
                    .and_then(Error::offset)
                    .map_or(1, |at| {
                        let before = text.bytes().get(..at as usize).unwrap_or_default();
                        framegroups::line_breaks(before) + 1
                    });
                (path.clone(), line, groups)
            });
        match sidecar {
            Some((_, _, Ok(groups))) => {
                let mut groups = groups;
                framegroups::unique_names(&mut groups);
                model.clips = OnceLock::from(groups);
                model.clip_origin = ClipOrigin::FrameGroupsFile;
            }
            // The sidecar only names and times clips: a broken one costs its clips, not the
            // model, as in DarkPlaces.
            Some((path, line, Err(e))) => {
                model.cell.borrow_owner().leave_out(&path);
                let format = model.format();
                let offset = e.offset().unwrap_or(0);
                let problem = match &e {
                    Error::Invalid { problem, .. } => problem.to_string(),
                    other => other.to_string(),
                };
                model.found.warn(
                    format,
                    WarningKind::CompanionIgnored,
                    "framegroups line",
                    offset,
                    || {
                        // Some problems name their line already.
                        let place = if problem.starts_with("line ") {
                            String::new()
                        } else {
                            format!(", line {line}")
                        };
                        format!("{path}{place}: {problem}; the model's own clips are used")
                    },
                );
            }
            None => {}
        }
        Ok(model)
    }
}

/// The resolver root for a model at `path` and the model's VFS path under it: `root`
/// (default: the model's directory), both taken as absolute paths with `.` components
/// dropped, so that a relative path and a relative root work together.
fn split_root(path: &Path, root: Option<&Path>) -> Result<(PathBuf, String)> {
    let not_utf8 = || Error::Resolve {
        path: path.display().to_string(),
        reason: "the path is not UTF-8",
    };
    let Some(root) = root else {
        let dir = path.parent().unwrap_or(Path::new("")).to_path_buf();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .ok_or_else(not_utf8)?;
        return Ok((dir, name.to_string()));
    };
    let outside = || Error::Resolve {
        path: path.display().to_string(),
        reason: "the path is not inside the root",
    };
    let absolute = |p: &Path| -> Result<PathBuf> {
        let p = std::path::absolute(p).map_err(|source| Error::Io {
            path: p.to_path_buf(),
            source,
        })?;
        Ok(p.components().filter(|c| *c != Component::CurDir).collect())
    };
    let relative = match absolute(path)?.strip_prefix(absolute(root)?) {
        Ok(relative) => relative.to_path_buf(),
        // Symbolic links can hide that one lies inside the other.
        Err(_) => {
            let canonical = |p: &Path| std::fs::canonicalize(p).ok();
            match (canonical(path), canonical(root)) {
                (Some(p), Some(r)) => p.strip_prefix(r).map_err(|_| outside())?.to_path_buf(),
                _ => return Err(outside()),
            }
        }
    };
    let parts: Option<Vec<&str>> = relative
        .components()
        .map(|c| match c {
            Component::Normal(part) => part.to_str(),
            _ => None,
        })
        .collect();
    let parts = parts.ok_or_else(not_utf8)?;
    if parts.is_empty() {
        return Err(outside());
    }
    Ok((root.to_path_buf(), parts.join("/")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_relative_path_and_a_relative_root_work_together() {
        let (root, rel) = split_root(Path::new("models/z.skm"), Some(Path::new(".")))
            .ok()
            .unzip();
        assert_eq!(root, Some(PathBuf::from(".")));
        assert_eq!(rel.as_deref(), Some("models/z.skm"));
        let (_, rel) = split_root(Path::new("./a/b/c.dpm"), Some(Path::new("a")))
            .ok()
            .unzip();
        assert_eq!(rel.as_deref(), Some("b/c.dpm"));
        assert!(matches!(
            split_root(Path::new("elsewhere/x.skm"), Some(Path::new("models"))),
            Err(Error::Resolve { .. })
        ));
        let (dir, name) = split_root(Path::new("dir/x.dpm"), None).ok().unzip();
        assert_eq!(
            (dir, name.as_deref()),
            (Some(PathBuf::from("dir")), Some("x.dpm"))
        );
    }
}
