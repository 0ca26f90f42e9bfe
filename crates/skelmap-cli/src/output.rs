//! Where a command writes. Before anything is written, each output is checked against the
//! files the command reads (the model and every companion it was opened with or could be)
//! and against the command's other outputs, after resolving links; then each is written to
//! a temporary file beside it and renamed into place. So no command replaces one of its own
//! inputs, and an interrupted run leaves the old file or the new one, never half of one.

use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};

use skelmap_core::Model;

use crate::load::Companions;

/// The files a command reads and the ones it has claimed to write, each list with an
/// [`Identities`] index, so that checking a path costs the same however many files there are.
#[derive(Debug, Default)]
pub struct Outputs {
    inputs: Vec<File>,
    input_index: Identities,
    outputs: Vec<PathBuf>,
    output_index: Identities,
    /// The outputs as given, for [`Outputs::write`].
    claimed: HashSet<PathBuf>,
}

/// A file the command reads: the path as the user gave it, and what it is to the command
/// (where it leads is in [`Outputs`]'s index of the inputs).
#[derive(Debug)]
struct File {
    given: PathBuf,
    role: &'static str,
}

impl Outputs {
    /// Nothing read, nothing claimed.
    pub fn new() -> Self {
        Outputs::default()
    }

    /// Records `path` as a file the command reads, `role` saying what it is ("the model").
    pub fn read(&mut self, path: &Path, role: &'static str) {
        self.read_as(path, Identity::of(path), role);
    }

    fn read_as(&mut self, path: &Path, identity: Identity, role: &'static str) {
        self.input_index.insert(identity, self.inputs.len());
        self.inputs.push(File {
            given: path.to_path_buf(),
            role,
        });
    }

    /// [`read`](Outputs::read) for a file found after the outputs were claimed (a texture):
    /// refused when it is one of them.
    ///
    /// # Errors
    ///
    /// One line, as [`claim`](Outputs::claim) gives; nothing has been written then.
    pub fn read_late(&mut self, path: &Path, role: &'static str) -> Result<(), String> {
        let identity = Identity::of(path);
        if let Some(given) = self.output_index.find(&identity).map(|i| &self.outputs[i]) {
            return Err(format!(
                "{} would overwrite {role} ({}), which this command reads; choose another \
                 output",
                given.display(),
                path.display()
            ));
        }
        self.read_as(path, identity, role);
        Ok(())
    }

    /// Records the model at `path` and the files it was opened with: its companions (found
    /// as `companions` says), and the sidecars that would be read the next time it is opened
    /// (an SKM's `.cfg`, a `.framegroups`), when they exist.
    pub fn read_model(&mut self, path: &Path, companions: &Companions, model: &Model<'_>) {
        self.read(path, "the model");
        let base = model
            .base()
            .map_or_else(|| companions.base(path), Path::to_path_buf);
        for (kind, companion) in model.companions() {
            let role = match kind {
                skelmap_core::model::Companion::Skeleton => "the model's skeleton",
                skelmap_core::model::Companion::LevelOfDetail => "a level of detail of the model",
                skelmap_core::model::Companion::Animation => "the model's animation",
                skelmap_core::model::Companion::FrameGroups => "the model's frame groups",
                skelmap_core::model::Companion::Skin => "the model's skin",
                skelmap_core::model::Companion::AnimationConfig => "the player's animation.cfg",
                skelmap_core::model::Companion::AnimationBeside => "an animation beside the model",
                skelmap_core::model::Companion::Scale => "an animation's scales",
                skelmap_core::model::Companion::Character => "the model's character file",
                skelmap_core::model::Companion::AnimationGroup => "the model's animation group",
                skelmap_core::model::Companion::ClipList => "the model's clip list",
                skelmap_core::model::Companion::AnimationFile => "an animation file of the model",
                _ => "a file the model was opened with",
            };
            self.read(&base.join(companion), role);
        }
        let mut sidecars = vec![(
            with_suffix(path, ".framegroups"),
            "the model's frame groups",
        )];
        if let Some(stem) = path.file_stem() {
            let mut cfg = stem.to_os_string();
            cfg.push(".cfg");
            sidecars.push((path.with_file_name(cfg), "the model's configuration"));
        }
        for (sidecar, role) in sidecars {
            if sidecar.is_file() {
                self.read(&sidecar, role);
            }
        }
    }

    /// Claims `path` as one of the command's outputs.
    ///
    /// # Errors
    ///
    /// One line when `path` is one of the files read or an output claimed before it; nothing
    /// has been written then.
    pub fn claim(&mut self, path: &Path) -> Result<(), String> {
        let identity = Identity::of(path);
        let also = |given: &Path| {
            if given == path {
                String::new()
            } else {
                format!(" ({})", given.display())
            }
        };
        if let Some(input) = self.input_index.find(&identity).map(|i| &self.inputs[i]) {
            return Err(format!(
                "{} would overwrite {}{}, which this command reads; choose another output",
                path.display(),
                input.role,
                also(&input.given)
            ));
        }
        if let Some(given) = self.output_index.find(&identity).map(|i| &self.outputs[i]) {
            return Err(format!(
                "{} would overwrite another output of this command{}; choose another output",
                path.display(),
                also(given)
            ));
        }
        self.output_index.insert(identity, self.outputs.len());
        self.outputs.push(path.to_path_buf());
        self.claimed.insert(path.to_path_buf());
        Ok(())
    }

    /// Writes `bytes` to `path`, an output claimed before (see [`Outputs::claim`]), through a
    /// temporary file beside it that is renamed into place; creates its folder.
    ///
    /// # Errors
    ///
    /// One line: the I/O error, or that `path` was never claimed (a command's mistake, so
    /// nothing is written).
    pub fn write(&self, path: &Path, bytes: &[u8]) -> Result<(), String> {
        if !self.claimed.contains(path) {
            return Err(format!(
                "cannot write {}: not one of this command's checked outputs",
                path.display()
            ));
        }
        write_file(path, bytes)
    }
}

/// `path` with `suffix` appended to its file name (`a.dpm` → `a.dpm.framegroups`).
fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_os_string();
    name.push(suffix);
    PathBuf::from(name)
}

/// Where a path leads: its canonical form (links resolved) for the part that exists, the
/// rest appended with `.` and `..` worked out; and, for an existing file on Unix, its device
/// and inode, so that hard links compare equal.
#[derive(Debug)]
struct Identity {
    path: PathBuf,
    #[cfg(unix)]
    inode: Option<(u64, u64)>,
}

impl Identity {
    fn of(path: &Path) -> Identity {
        Identity {
            path: resolve(path),
            #[cfg(unix)]
            inode: std::fs::metadata(path).ok().map(|m| {
                use std::os::unix::fs::MetadataExt;
                (m.dev(), m.ino())
            }),
        }
    }

    /// Whether `self` and `other` are one file: the same device and inode where both exist,
    /// else the same resolved path.
    #[cfg(test)]
    fn same(&self, other: &Identity) -> bool {
        #[cfg(unix)]
        if let (Some(a), Some(b)) = (self.inode, other.inode) {
            return a == b;
        }
        self.path == other.path
    }
}

/// The identities of a list of files, by position in the list: [`Identities::find`] gives
/// the first position whose file is the one asked for (the same device and inode where both
/// have one, else the same resolved path; `Identity::same` in the tests states it as a scan).
#[derive(Debug, Default)]
struct Identities {
    /// The first position of each resolved path.
    by_path: HashMap<PathBuf, usize>,
    /// The first position of each device and inode.
    #[cfg(unix)]
    by_inode: HashMap<(u64, u64), usize>,
    /// The first position of each resolved path among the files without an inode (that did
    /// not exist when recorded).
    #[cfg(unix)]
    by_path_without_inode: HashMap<PathBuf, usize>,
}

impl Identities {
    /// Records `identity` at `position`, the list's length before it was added.
    fn insert(&mut self, identity: Identity, position: usize) {
        #[cfg(unix)]
        match identity.inode {
            Some(inode) => {
                self.by_inode.entry(inode).or_insert(position);
            }
            None => {
                self.by_path_without_inode
                    .entry(identity.path.clone())
                    .or_insert(position);
            }
        }
        self.by_path.entry(identity.path).or_insert(position);
    }

    /// The first position whose identity is the same as `identity`: where both have an
    /// inode, one with `identity`'s; else one with its resolved path.
    fn find(&self, identity: &Identity) -> Option<usize> {
        #[cfg(unix)]
        if let Some(inode) = identity.inode {
            let by_inode = self.by_inode.get(&inode);
            let by_path = self.by_path_without_inode.get(&identity.path);
            return by_inode.into_iter().chain(by_path).min().copied();
        }
        self.by_path.get(&identity.path).copied()
    }
}

/// `path` made absolute, with links resolved in the part of it that exists.
fn resolve(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut existing = absolute.as_path();
    let mut rest = Vec::new();
    loop {
        if let Ok(canonical) = std::fs::canonicalize(existing) {
            let mut resolved = canonical;
            for part in rest.iter().rev() {
                match part {
                    Component::ParentDir => {
                        resolved.pop();
                    }
                    Component::Normal(name) => resolved.push(name),
                    _ => {}
                }
            }
            return resolved;
        }
        match (existing.parent(), existing.components().next_back()) {
            (Some(parent), Some(last)) => {
                rest.push(last);
                existing = parent;
            }
            _ => return absolute,
        }
    }
}

/// Writes `bytes` to `path`, creating its folder, through a temporary file beside it that is
/// renamed into place: an interrupted run leaves the old file or the new one, never half of
/// one. The error is one line.
fn write_file(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let fail = |e: std::io::Error| format!("cannot write {}: {e}", path.display());
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    if let Some(file) = dir.ancestors().find(|a| a.is_file()) {
        return Err(format!(
            "cannot write {}: {} is a file, not a folder",
            path.display(),
            file.display()
        ));
    }
    std::fs::create_dir_all(dir).map_err(fail)?;
    let name = path
        .file_name()
        .ok_or_else(|| format!("cannot write {}: not a file name", path.display()))?;
    let mut temporary = OsString::from(".");
    temporary.push(name);
    temporary.push(format!(".skelmap-{}.tmp", std::process::id()));
    let temporary = dir.join(temporary);
    let written =
        std::fs::write(&temporary, bytes).and_then(|()| std::fs::rename(&temporary, path));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&temporary);
        return Err(fail(e));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// A fresh folder for one test, removed with its files when the returned value drops (also
    /// when the test panics).
    fn temp_dir(name: &str) -> tempfile::TempDir {
        tempfile::Builder::new()
            .prefix(&format!("skelmap-output-{name}-"))
            .tempdir()
            .unwrap()
    }

    #[test]
    fn an_input_reached_by_another_path_is_refused() {
        let dir = temp_dir("paths");
        let dir = dir.path();
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        std::fs::write(dir.join("m.dpm"), b"x").unwrap();
        let mut outputs = Outputs::new();
        outputs.read(&dir.join("m.dpm"), "the model");
        let message = outputs.claim(&dir.join("sub/../m.dpm")).unwrap_err();
        assert_eq!(
            message,
            format!(
                "{} would overwrite the model ({}), which this command reads; choose another \
                 output",
                dir.join("sub/../m.dpm").display(),
                dir.join("m.dpm").display()
            )
        );
        assert!(outputs.claim(&dir.join("sub/m.glb")).is_ok());
        assert!(outputs.claim(&dir.join("new/../sub/m.glb")).is_err());
    }

    #[cfg(unix)]
    #[test]
    fn links_to_an_input_are_refused() {
        let dir = temp_dir("links");
        let dir = dir.path();
        std::fs::write(dir.join("m.obj"), b"x").unwrap();
        std::os::unix::fs::symlink(dir.join("m.obj"), dir.join("soft.obj")).unwrap();
        std::fs::hard_link(dir.join("m.obj"), dir.join("hard.obj")).unwrap();
        let mut outputs = Outputs::new();
        outputs.read(&dir.join("m.obj"), "the model");
        assert!(outputs.claim(&dir.join("soft.obj")).is_err());
        assert!(outputs.claim(&dir.join("hard.obj")).is_err());
    }

    /// Files that exist (one of them also by a hard link and a symbolic link) and files that
    /// do not, recorded in turn: the index finds, for each, the first recorded one that
    /// [`Identity::same`] says it is.
    #[test]
    fn the_index_finds_the_first_file_a_scan_would() {
        let dir = temp_dir("index");
        let dir = dir.path();
        for name in ["a", "b"] {
            std::fs::write(dir.join(name), b"x").unwrap();
        }
        let mut paths = vec![
            dir.join("missing"),
            dir.join("a"),
            dir.join("b"),
            dir.join("sub/../a"),
            dir.join("missing/../b"),
            dir.join("c"),
        ];
        #[cfg(unix)]
        {
            std::fs::hard_link(dir.join("a"), dir.join("hard")).unwrap();
            std::os::unix::fs::symlink(dir.join("b"), dir.join("soft")).unwrap();
            paths.extend([dir.join("hard"), dir.join("soft")]);
        }
        let mut index = Identities::default();
        let mut recorded = Vec::new();
        for (position, path) in paths.iter().enumerate() {
            index.insert(Identity::of(path), position);
            recorded.push(Identity::of(path));
        }
        // `c` comes to exist after it was recorded without an inode.
        std::fs::write(dir.join("c"), b"x").unwrap();
        for path in paths.iter().chain([&dir.join("c"), &dir.join("other")]) {
            let asked = Identity::of(path);
            let scanned = recorded.iter().position(|r| r.same(&asked));
            assert_eq!(index.find(&asked), scanned, "{}", path.display());
        }
    }

    /// Thousands of outputs: each is checked against every one claimed before it, and only
    /// those claimed can be written.
    #[test]
    fn many_outputs_are_each_checked_against_all_the_others() {
        let dir = temp_dir("many");
        let dir = dir.path();
        std::fs::write(dir.join("m.dpm"), b"x").unwrap();
        let mut outputs = Outputs::new();
        outputs.read(&dir.join("m.dpm"), "the model");
        let clip = |i: usize| dir.join(format!("out/clip{i}.md5anim"));
        for i in 0..5_000 {
            outputs.claim(&clip(i)).unwrap();
        }
        assert_eq!(
            outputs.claim(&dir.join("out/../out/clip4321.md5anim")),
            Err(format!(
                "{} would overwrite another output of this command ({}); choose another output",
                dir.join("out/../out/clip4321.md5anim").display(),
                clip(4321).display()
            ))
        );
        assert!(outputs.claim(&dir.join("m.dpm")).is_err());
        assert_eq!(
            outputs.read_late(&clip(17), "a texture"),
            Err(format!(
                "{} would overwrite a texture ({}), which this command reads; choose another \
                 output",
                clip(17).display(),
                clip(17).display()
            ))
        );
        outputs.write(&clip(4999), b"last").unwrap();
        assert_eq!(std::fs::read(clip(4999)).unwrap(), b"last");
        assert_eq!(
            outputs.write(&dir.join("out/clip5000.md5anim"), b"x"),
            Err(format!(
                "cannot write {}: not one of this command's checked outputs",
                dir.join("out/clip5000.md5anim").display()
            ))
        );
    }

    #[test]
    fn write_file_replaces_the_whole_file_and_leaves_no_temporary() {
        let dir = temp_dir("write");
        let dir = dir.path();
        let path = dir.join("a/b.bin");
        write_file(&path, b"first, and longer").unwrap();
        write_file(&path, b"second").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"second");
        assert_eq!(std::fs::read_dir(dir.join("a")).unwrap().count(), 1);
    }
}
