//! Serving the files a model refers to (an SKM's skeleton, levels of detail and `.cfg`, an SL
//! mesh's animation, a `.framegroups` sidecar), so that parsing never does I/O of its own.
//!
//! Paths are game-VFS paths: `/`-separated and relative to the resolver's root. Absolute
//! paths and `..` components are refused ([`check_path`]), including paths read from inside
//! files, so a model can never make skelmap read outside the root it was given.

use std::collections::HashMap;
use std::path::PathBuf;

use crate::error::{Error, Result};
use crate::source::{Access, Source};

/// Serves files by VFS path. `'data` is how long the bytes it hands out live: `'static` for
/// files it reads or maps, the map's lifetime for an in-memory table.
pub trait Resolver<'data> {
    /// The bytes of the file at `path` (relative, `/`-separated; already checked by
    /// [`check_path`]), or `Ok(None)` when there is no such file.
    ///
    /// # Errors
    ///
    /// When the file exists but cannot be read.
    fn load(&self, path: &str) -> Result<Option<Source<'data>>>;

    /// The names (not paths) of the files directly in directory `dir` (a VFS path as
    /// [`load`](Resolver::load) takes, `""` for the root), sorted: for a format that finds
    /// its companions by kind rather than by name (the `.md5anim` files beside an
    /// `.md5mesh`). None by default, so a resolver that cannot list opens such a model
    /// without them.
    ///
    /// # Errors
    ///
    /// When the directory exists but cannot be read, or `dir` is refused by [`check_path`].
    fn list(&self, dir: &str) -> Result<Vec<String>> {
        let _ = dir;
        Ok(Vec::new())
    }
}

/// The names of the keys of an in-memory table that lie directly in `dir`, sorted.
fn list_keys<'k>(keys: impl Iterator<Item = &'k String>, dir: &str) -> Vec<String> {
    let mut names: Vec<String> = keys
        .filter_map(|key| {
            let (parent, name) = key.rsplit_once('/').unwrap_or(("", key));
            (parent == dir.trim_end_matches('/')).then(|| name.to_string())
        })
        .collect();
    names.sort();
    names
}

/// Checks a directory path for [`Resolver::list`]: the root (`""`) or a path [`check_path`]
/// accepts.
fn check_dir(dir: &str) -> Result<()> {
    if dir.is_empty() {
        Ok(())
    } else {
        check_path(dir)
    }
}

/// Refuses paths that could leave the resolver's root: absolute paths (`/x`, `\x`, `C:x`),
/// parent components (`..`), NUL bytes, and empty paths.
///
/// # Errors
///
/// [`Error::Resolve`] naming the path and what is wrong with it.
pub fn check_path(path: &str) -> Result<()> {
    let refuse = |reason| {
        Err(Error::Resolve {
            path: path.to_string(),
            reason,
        })
    };
    if path.is_empty() {
        return refuse("empty path");
    }
    if path.starts_with(['/', '\\']) || path.as_bytes().get(1) == Some(&b':') {
        return refuse("absolute paths are not allowed");
    }
    if path.split(['/', '\\']).any(|c| c == "..") {
        return refuse("'..' components are not allowed");
    }
    if path.contains('\0') {
        return refuse("NUL in path");
    }
    Ok(())
}

/// A [`Resolver`] over a directory of the file system (the game's base directory), reading
/// or mapping each file it serves.
#[derive(Debug, Clone)]
pub struct FsResolver {
    root: PathBuf,
    access: Access,
}

impl FsResolver {
    /// A resolver serving paths relative to `root`, reading each file into memory.
    #[must_use]
    pub fn new(root: impl Into<PathBuf>) -> Self {
        FsResolver {
            root: root.into(),
            access: Access::Read,
        }
    }

    /// The same resolver bringing files into memory by `access` (mapping them needs the
    /// caller's [`MapPromise`](crate::source::MapPromise)).
    #[must_use]
    pub fn with_access(self, access: Access) -> Self {
        FsResolver { access, ..self }
    }

    /// The directory paths are relative to.
    #[must_use]
    pub fn root(&self) -> &std::path::Path {
        &self.root
    }
}

impl Resolver<'static> for FsResolver {
    fn load(&self, path: &str) -> Result<Option<Source<'static>>> {
        check_path(path)?;
        Source::open_if_file(self.root.join(path), self.access)
    }

    fn list(&self, dir: &str) -> Result<Vec<String>> {
        check_dir(dir)?;
        let full = self.root.join(dir);
        let entries = match std::fs::read_dir(&full) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(source) => return Err(Error::Io { path: full, source }),
        };
        let mut names: Vec<String> = entries
            .filter_map(|entry| {
                let entry = entry.ok()?;
                entry.file_type().ok()?.is_file().then_some(())?;
                entry.file_name().into_string().ok()
            })
            .collect();
        names.sort();
        Ok(names)
    }
}

/// An in-memory resolver: paths to file contents, served without copying.
impl<'m> Resolver<'m> for &'m HashMap<String, Vec<u8>> {
    fn load(&self, path: &str) -> Result<Option<Source<'m>>> {
        check_path(path)?;
        Ok(self.get(path).map(|bytes| Source::from_bytes(bytes)))
    }

    fn list(&self, dir: &str) -> Result<Vec<String>> {
        check_dir(dir)?;
        Ok(list_keys(self.keys(), dir))
    }
}

/// An in-memory resolver over borrowed buffers.
impl<'m> Resolver<'m> for HashMap<String, &'m [u8]> {
    fn load(&self, path: &str) -> Result<Option<Source<'m>>> {
        check_path(path)?;
        Ok(self.get(path).map(|bytes| Source::from_bytes(bytes)))
    }

    fn list(&self, dir: &str) -> Result<Vec<String>> {
        check_dir(dir)?;
        Ok(list_keys(self.keys(), dir))
    }
}

/// `path` without the extension of its last component.
pub(crate) fn strip_extension(path: &str) -> &str {
    let name_start = path.rfind(['/', '\\']).map_or(0, |i| i + 1);
    match path.get(name_start..).and_then(|name| name.rfind('.')) {
        Some(dot) if dot > 0 => path.get(..name_start + dot).unwrap_or(path),
        _ => path,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_that_escape_the_root_are_refused() {
        for bad in [
            "/etc/passwd",
            "\\\\server\\x",
            "C:/x.skp",
            "a/../../x.skp",
            "..",
            "",
            "a\0b",
        ] {
            assert!(
                matches!(check_path(bad), Err(Error::Resolve { .. })),
                "{bad:?}"
            );
        }
        for good in ["a.skp", "models/x/y.skp", "a..b.skp", "./a.skp"] {
            assert!(check_path(good).is_ok(), "{good:?}");
        }
    }

    #[test]
    fn extension_stripping_looks_at_the_last_component_only() {
        assert_eq!(strip_extension("a/b.c/d"), "a/b.c/d");
        assert_eq!(strip_extension("a/b.c/d.skm"), "a/b.c/d");
        assert_eq!(strip_extension("x.y.skm"), "x.y");
        assert_eq!(strip_extension(".hidden"), ".hidden");
    }
}
