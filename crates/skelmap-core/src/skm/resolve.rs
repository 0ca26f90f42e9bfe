//! Finding an SKM's companions the way the engines do (`docs/formats/skm.md` § Companion files), and pairing them.
//!
//! For a model `dir/name.skm`:
//! 1. the skeleton is named by the first `import` token (case-insensitive) of `dir/name.cfg`,
//!    its extension replaced by `.skp`; without a `.cfg`, or without an `import` in it, it is
//!    `dir/name.skp`;
//! 2. levels of detail are `dir/name_1.skm` … `dir/name_4.skm`, probed in order until one is
//!    missing or does not start with `SKM1`; they share the base model's skeleton.
//!
//! Every file is reached through a [`Resolver`], so parsing never does I/O of its own and an
//! embedder can serve files from a pak, an archive or memory. Paths are game-VFS paths: `/`
//! separated and relative. Absolute paths and `..` components are refused ([`check_path`]),
//! including an `import` path read from a `.cfg`.

use super::raw::{SKM_MAGIC, SKM_MAX_LODS};
use super::{Pair, Skm, Skp};
use crate::diag::Diagnostics;
use crate::error::{Error, Result};
use crate::limits::Limits;
use crate::parse::Parse;
use crate::resolver::{Resolver, check_path, strip_extension};
use crate::source::Source;
use crate::text::{self, Commas};

/// The skeleton path a `.cfg` names: the token after the first `import` (case-insensitive) on
/// the same line, its extension replaced by `.skp`. `None` when there is no `import`.
///
/// Tokens are separated by white space; `"…"` quotes a token; `//` comments run to the end
/// of the line and `/* … */` comments to their end.
///
/// ```
/// use skelmap_core::skm::resolve::skeleton_from_cfg;
/// let cfg = b"// player\nIMPORT \"models/players/base/base.skm\" // shared skeleton\n";
/// assert_eq!(skeleton_from_cfg(cfg, "p.cfg")?.as_deref(), Some("models/players/base/base.skp"));
/// # Ok::<(), skelmap_core::Error>(())
/// ```
///
/// # Errors
///
/// [`Error::Resolve`] when `import` has no path after it on its line, or the path is not UTF-8;
/// its `path` is `cfg_path:line`, the line of the `import`.
pub fn skeleton_from_cfg(cfg: &[u8], cfg_path: &str) -> Result<Option<String>> {
    let tokens: Vec<_> = text::tokens(cfg, Commas::InToken).collect();
    let Some(k) = tokens
        .iter()
        .position(|t| t.text.eq_ignore_ascii_case(b"import"))
    else {
        return Ok(None);
    };
    let line = tokens.get(k).map_or(0, |t| t.line);
    // The `.cfg` and the line of its `import`, as editors and compilers name a place.
    let fail = |reason| Error::Resolve {
        path: format!("{cfg_path}:{line}"),
        reason,
    };
    let path = match tokens.get(k + 1) {
        Some(t) if t.line == line => t.text,
        _ => return Err(fail("'import' without a skeleton path on its line")),
    };
    let path = std::str::from_utf8(path).map_err(|_| fail("the import path is not UTF-8"))?;
    Ok(Some(format!("{}.skp", strip_extension(path))))
}

/// The files of one SKM model, found through a [`Resolver`] by [`resolve`].
#[derive(Debug)]
pub struct Files<'data> {
    /// The mesh file's path and bytes.
    pub skm: (String, Source<'data>),
    /// The skeleton file's path and bytes.
    pub skp: (String, Source<'data>),
    /// The levels of detail found (`_1` … `_4`), in order.
    pub lods: Vec<(String, Source<'data>)>,
}

/// Finds the model at `skm_path`, its skeleton and its levels of detail (see the module docs).
///
/// ```
/// use skelmap_core::Parse;
/// use std::collections::HashMap;
/// use skelmap_core::skm::{convert, resolve};
/// use skelmap_core::{Diagnostics, dpm::Dpm, synth};
/// let dpm = synth::tube(&synth::TubeParams::default()).write()?;
/// let c = convert::from_dpm(&Dpm::parse(&dpm)?, &mut Diagnostics::new());
/// let mut files = HashMap::new();
/// files.insert("models/tube/tube.skm".to_string(), c.skm.write()?);
/// files.insert("models/shared/rig.skp".to_string(), c.skp.write()?);
/// files.insert("models/tube/tube.cfg".to_string(), b"import models/shared/rig.skm".to_vec());
///
/// let found = resolve::resolve(&&files, "models/tube/tube.skm")?;
/// assert_eq!(found.skp.0, "models/shared/rig.skp");
/// let model = found.open()?;
/// assert_eq!(model.skp().num_frames(), 9);
/// # Ok::<(), skelmap_core::Error>(())
/// ```
///
/// # Errors
///
/// [`Error::Resolve`] when the model or its skeleton is missing or a path is refused;
/// errors of the resolver itself.
pub fn resolve<'data, R: Resolver<'data> + ?Sized>(
    resolver: &R,
    skm_path: &str,
) -> Result<Files<'data>> {
    check_path(skm_path)?;
    let skm = resolver
        .load(skm_path)?
        .ok_or_else(|| missing(skm_path, "model not found"))?;
    let (skp, lods) = companions(resolver, skm_path)?;
    Ok(Files {
        skm: (skm_path.to_string(), skm),
        skp,
        lods,
    })
}

/// The skeleton and the levels of detail of the model at `skm_path` (see [`resolve`]), as
/// `(path, bytes)`.
///
/// # Errors
///
/// As [`resolve`].
pub fn companions<'data, R: Resolver<'data> + ?Sized>(
    resolver: &R,
    skm_path: &str,
) -> Result<Companions<'data>> {
    Ok((
        skeleton(resolver, skm_path)?,
        levels_of_detail(resolver, skm_path)?,
    ))
}

/// The skeleton of the model at `skm_path`, as `(path, bytes)`: the one its `.cfg` imports,
/// else the `.skp` of the same name.
///
/// # Errors
///
/// [`Error::Resolve`] when the skeleton is missing or its path is refused, or the `.cfg` is
/// malformed; errors of the resolver itself.
pub fn skeleton<'data, R: Resolver<'data> + ?Sized>(
    resolver: &R,
    skm_path: &str,
) -> Result<(String, Source<'data>)> {
    let base = strip_extension(skm_path);
    let cfg_path = format!("{base}.cfg");
    let named = match resolver.load(&cfg_path)? {
        Some(cfg) => skeleton_from_cfg(cfg.bytes(), &cfg_path)?,
        None => None,
    };
    let skp_path = named.unwrap_or_else(|| format!("{base}.skp"));
    check_path(&skp_path)?;
    let skp = resolver
        .load(&skp_path)?
        .ok_or_else(|| missing(&skp_path, "skeleton not found"))?;
    Ok((skp_path, skp))
}

/// The levels of detail of the model at `skm_path`, as `(path, bytes)`: `name_1.skm`,
/// `name_2.skm` … while they exist and are SKM files, at most [`SKM_MAX_LODS`].
///
/// # Errors
///
/// Errors of the resolver itself.
pub fn levels_of_detail<'data, R: Resolver<'data> + ?Sized>(
    resolver: &R,
    skm_path: &str,
) -> Result<Vec<(String, Source<'data>)>> {
    let base = strip_extension(skm_path);
    let ext = skm_path.get(base.len()..).unwrap_or_default();
    let mut lods = Vec::new();
    for n in 1..=SKM_MAX_LODS {
        let path = format!("{base}_{n}{ext}");
        match resolver.load(&path)? {
            Some(lod) if lod.bytes().starts_with(SKM_MAGIC) => lods.push((path, lod)),
            _ => break,
        }
    }
    Ok(lods)
}

/// An SKM's skeleton and levels of detail, each as `(path, bytes)`.
pub type Companions<'data> = ((String, Source<'data>), Vec<(String, Source<'data>)>);

fn missing(path: &str, reason: &'static str) -> Error {
    Error::Resolve {
        path: path.to_string(),
        reason,
    }
}

impl Files<'_> {
    /// Validates every file with the default limits and pairs them.
    ///
    /// # Errors
    ///
    /// The first validation or pairing error.
    pub fn open(&self) -> Result<Pair<'_>> {
        self.open_with(&Limits::DEFAULT, &mut Diagnostics::new())
    }

    /// Validates every file under `limits` and pairs them, recording findings in `diag`.
    ///
    /// # Errors
    ///
    /// The first validation or pairing error.
    pub fn open_with(&self, limits: &Limits, diag: &mut Diagnostics) -> Result<Pair<'_>> {
        let skm = Skm::parse_with(self.skm.1.bytes(), limits, diag)?;
        let skp = Skp::parse_with(self.skp.1.bytes(), limits, diag)?;
        let mut lods = Vec::with_capacity(self.lods.len());
        for (_, lod) in &self.lods {
            lods.push(Skm::parse_with(lod.bytes(), limits, diag)?);
        }
        Pair::new_with(skm, skp, &lods, diag)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn cfg(text: &str) -> Result<Option<String>> {
        skeleton_from_cfg(text.as_bytes(), "m.cfg")
    }

    /// The skeleton a `.cfg` names, `None` for none or for an error.
    fn skeleton(text: &str) -> Option<String> {
        cfg(text).ok().flatten()
    }

    #[test]
    fn cfg_import_forms() {
        assert_eq!(skeleton("import a/b.skm").as_deref(), Some("a/b.skp"));
        assert_eq!(skeleton("ImPoRt a/b").as_deref(), Some("a/b.skp"));
        assert_eq!(
            skeleton("import \"dir with space/x.y.skm\"").as_deref(),
            Some("dir with space/x.y.skp")
        );
        assert_eq!(
            skeleton("// import a.skm\nimport b.skm").as_deref(),
            Some("b.skp")
        );
        assert_eq!(
            skeleton("/* import a.skm\n */ import c.skm").as_deref(),
            Some("c.skp")
        );
        assert_eq!(
            skeleton("scale 2\nimport d.skm // note").as_deref(),
            Some("d.skp")
        );
        assert_eq!(
            skeleton("import e.skm\nimport f.skm").as_deref(),
            Some("e.skp"),
            "first wins"
        );
        assert_eq!(skeleton(""), None);
        assert_eq!(skeleton("importer x.skm"), None, "whole tokens only");
        // A comment may follow a token with no space in between.
        assert_eq!(
            skeleton("import a/b.skm// note").as_deref(),
            Some("a/b.skp")
        );
        assert_eq!(
            skeleton("import a/b.skm/* note */").as_deref(),
            Some("a/b.skp")
        );
    }

    #[test]
    fn cfg_import_without_path_on_its_line() {
        let e = cfg("import\nmodels/x.skm").err();
        assert!(
            matches!(&e, Some(Error::Resolve { path, reason }) if path == "m.cfg:1" && *reason == "'import' without a skeleton path on its line"),
            "{e:?}"
        );
        assert!(cfg("import // nothing").is_err());
        // The error names the line of the `import`.
        let e = cfg("// a player\n\n  import /* none */\nmodels/x.skm").err();
        assert!(
            matches!(&e, Some(Error::Resolve { path, .. }) if path == "m.cfg:3"),
            "{e:?}"
        );
    }

    #[test]
    fn cfg_import_path_must_be_utf8() {
        let e = skeleton_from_cfg(b"import \xff\xfe.skm", "m.cfg");
        assert!(matches!(e, Err(Error::Resolve { .. })));
    }
}
