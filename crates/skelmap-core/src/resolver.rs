//! Serving the files a model refers to (skeletons, levels of detail, animations, texture and
//! sequence-group files, skins, `.cfg`, `.char`, `.anim` and `.framegroups` files: the
//! companions [`Model::open`](crate::Model::open) finds), so that parsing never
//! does I/O of its own.
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

    /// The names of the folders directly in directory `dir` (as [`list`](Resolver::list)
    /// takes it), sorted: for a format whose companions are named in files found by walking
    /// a folder (Enemy Territory's `characters/**/*.char`, which name an MDM's skeleton).
    /// None by default.
    ///
    /// # Errors
    ///
    /// As [`list`](Resolver::list).
    fn folders(&self, dir: &str) -> Result<Vec<String>> {
        let _ = dir;
        Ok(Vec::new())
    }
}

/// The names of the folders the keys of an in-memory table have directly in `dir`, sorted and
/// each once.
fn folder_keys<'k>(keys: impl Iterator<Item = &'k String>, dir: &str) -> Vec<String> {
    let dir = dir.trim_end_matches('/');
    let mut names: Vec<String> = keys
        .filter_map(|key| {
            let rest = match dir {
                "" => key.as_str(),
                dir => key.strip_prefix(dir)?.strip_prefix('/')?,
            };
            rest.split_once('/').map(|(folder, _)| folder.to_string())
        })
        .collect();
    names.sort();
    names.dedup();
    names
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
        self.names(dir, |kind| kind.is_file())
    }

    // Symbolic links are neither files nor folders here: a walk over folders cannot loop.
    fn folders(&self, dir: &str) -> Result<Vec<String>> {
        self.names(dir, |kind| kind.is_dir())
    }
}

impl FsResolver {
    /// The sorted names of the entries of directory `dir` whose kind passes `keep`; none when
    /// it does not exist.
    fn names(&self, dir: &str, keep: fn(std::fs::FileType) -> bool) -> Result<Vec<String>> {
        check_dir(dir)?;
        let full = self.root.join(dir);
        // A model opened by its bare file name has the empty root: the working directory,
        // which `read_dir` needs spelt out.
        let listed = if full.as_os_str().is_empty() {
            std::path::Path::new(".")
        } else {
            &full
        };
        let entries = match std::fs::read_dir(listed) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(source) => return Err(Error::Io { path: full, source }),
        };
        let mut names: Vec<String> = entries
            .filter_map(|entry| {
                let entry = entry.ok()?;
                keep(entry.file_type().ok()?).then_some(())?;
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

    fn folders(&self, dir: &str) -> Result<Vec<String>> {
        check_dir(dir)?;
        Ok(folder_keys(self.keys(), dir))
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

    fn folders(&self, dir: &str) -> Result<Vec<String>> {
        check_dir(dir)?;
        Ok(folder_keys(self.keys(), dir))
    }
}

/// The file at `path`, or where there is none, the file [`other_case`] finds: the path found
/// and its bytes. Listing the folder costs a call only when the exact name is missing.
///
/// # Errors
///
/// As [`Resolver::load`] and [`Resolver::list`].
pub(crate) fn load_any_case<'data, R: Resolver<'data> + ?Sized>(
    resolver: &R,
    path: &str,
) -> Result<Option<(String, Source<'data>)>> {
    if let Some(bytes) = resolver.load(path)? {
        return Ok(Some((path.to_string(), bytes)));
    }
    let Some(found) = other_case(resolver, path)? else {
        return Ok(None);
    };
    Ok(resolver.load(&found)?.map(|bytes| (found, bytes)))
}

/// The first file of `path`'s folder (in [`list`](Resolver::list)'s order) whose name equals
/// `path`'s name in any ASCII case but is not that name, as a path with the folder: the file
/// the engines that look files up without case would open where `path` is missing
/// (Windows' file system; Xash3D's own). `None` where there is none.
///
/// ```
/// use std::collections::HashMap;
/// use skelmap_core::resolver::other_case;
/// let files: HashMap<String, &[u8]> = HashMap::from([("models/HGRUNT.mdl".into(), &b"x"[..])]);
/// assert_eq!(other_case(&files, "models/hgrunt.mdl")?.as_deref(), Some("models/HGRUNT.mdl"));
/// assert_eq!(other_case(&files, "models/HGRUNT.mdl")?, None);
/// # Ok::<(), skelmap_core::Error>(())
/// ```
///
/// # Errors
///
/// As [`Resolver::list`].
pub fn other_case<'data, R: Resolver<'data> + ?Sized>(
    resolver: &R,
    path: &str,
) -> Result<Option<String>> {
    let (dir, name) = path.rsplit_once('/').unwrap_or(("", path));
    let found = resolver
        .list(dir)?
        .into_iter()
        .find(|f| f.eq_ignore_ascii_case(name) && f != name);
    Ok(found.map(|found| {
        if dir.is_empty() {
            found
        } else {
            format!("{dir}/{found}")
        }
    }))
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
    fn a_name_missing_as_spelled_is_found_in_any_case() -> Result<()> {
        let table: HashMap<String, &[u8]> = [
            ("m/Hgrunt03.mdl", &b"upper"[..]),
            ("m/hgrunt03.MDL", b"mixed"),
            ("m/man01.mdl", b"exact"),
            ("m/MAN01.mdl", b"other"),
            ("top.mdl", b"root"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        let found = |path: &str| -> Result<Option<(String, Vec<u8>)>> {
            Ok(load_any_case(&table, path)?.map(|(p, b)| (p, b.bytes().to_vec())))
        };
        // The exact name first; else the first of the folder's names in sorted order.
        assert_eq!(
            found("m/man01.mdl")?,
            Some(("m/man01.mdl".into(), b"exact".to_vec()))
        );
        assert_eq!(
            found("m/hgrunt03.mdl")?,
            Some(("m/Hgrunt03.mdl".into(), b"upper".to_vec()))
        );
        assert_eq!(
            found("TOP.MDL")?,
            Some(("top.mdl".into(), b"root".to_vec()))
        );
        assert_eq!(found("m/hgrunt04.mdl")?, None);
        assert_eq!(found("n/top.mdl")?, None);
        Ok(())
    }

    #[test]
    fn folders_are_listed_apart_from_files_each_once()
    -> std::result::Result<(), Box<dyn std::error::Error>> {
        let mut table = HashMap::new();
        for key in [
            "a.txt",
            "c/x.char",
            "c/t/y.char",
            "c/t/z.char",
            "c/s/w/v.char",
            "b/q",
        ] {
            table.insert(key.to_string(), Vec::new());
        }
        let table = &table;
        assert_eq!(table.folders("")?, ["b", "c"]);
        assert_eq!(table.folders("c")?, ["s", "t"]);
        assert_eq!(table.list("c")?, ["x.char"]);
        assert!(table.folders("c/t")?.is_empty());
        assert!(table.folders("../c").is_err());
        let temp = tempfile::Builder::new()
            .prefix("skelmap-folders-")
            .tempdir()?;
        let dir = temp.path();
        std::fs::create_dir_all(dir.join("c/t"))?;
        std::fs::write(dir.join("c/x.char"), b"")?;
        let fs = FsResolver::new(dir);
        assert_eq!(
            (fs.folders("c")?, fs.list("c")?),
            (vec!["t".to_string()], vec!["x.char".to_string()])
        );
        assert!(fs.folders("missing")?.is_empty());
        temp.close()?;
        // The empty root is the working directory (the package's, under `cargo test`).
        assert!(
            FsResolver::new("")
                .list("")?
                .contains(&"Cargo.toml".to_string())
        );
        Ok(())
    }

    #[test]
    fn extension_stripping_looks_at_the_last_component_only() {
        assert_eq!(strip_extension("a/b.c/d"), "a/b.c/d");
        assert_eq!(strip_extension("a/b.c/d.skm"), "a/b.c/d");
        assert_eq!(strip_extension("x.y.skm"), "x.y");
        assert_eq!(strip_extension(".hidden"), ".hidden");
    }
}
