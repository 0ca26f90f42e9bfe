//! Where model bytes come from: a memory map, an owned buffer, or borrowed memory.
//!
//! This module holds one of the two places in skelmap-core that use `unsafe`: mapping a file.
//! Everything a view reads is then bounds-checked safe code over the `&[u8]` this returns.
//!
//! Mapping is sound only while nobody modifies the file, which only the caller can promise.
//! [`Source::map`] takes that promise as its `# Safety` contract; code that opens several files
//! on the caller's behalf (a model's companions) takes it once, as a [`MapPromise`], and maps
//! each file through [`Source::open`] with [`Access::Map`].
#![allow(unsafe_code)]

use std::fs::File;
use std::io::{ErrorKind, Read};
use std::path::Path;

use crate::error::{Error, Result};

#[derive(Debug)]
enum Bytes<'data> {
    Mapped(memmap2::Mmap),
    Owned(Vec<u8>),
    Borrowed(&'data [u8]),
}

/// The bytes of one model file.
///
/// Views ([`Dpm`](crate::dpm::Dpm) and the rest) borrow from [`Source::bytes`]; the source
/// must outlive them, which the borrow checker enforces.
///
/// ```
/// use skelmap_core::Parse;
/// use skelmap_core::{Source, dpm::Dpm, synth};
/// let path = std::env::temp_dir().join("skelmap-source-doctest.dpm");
/// std::fs::write(&path, synth::tube(&synth::TubeParams::default()).write()?).unwrap();
///
/// let source = Source::read(&path)?;          // safe: an owned copy
/// let model = Dpm::parse(source.bytes())?;
/// assert_eq!(model.num_meshes(), 1);
/// # std::fs::remove_file(&path).unwrap();
/// # Ok::<(), skelmap_core::Error>(())
/// ```
#[derive(Debug)]
pub struct Source<'data> {
    bytes: Bytes<'data>,
}

impl Source<'static> {
    /// Memory-maps the file at `path` read-only.
    ///
    /// Opening costs no copy: pages are read on first access by the views.
    ///
    /// # Safety
    ///
    /// The file must not be modified or truncated, by this or any other process, while the
    /// returned `Source` (or any view borrowed from it) is alive. A mapped file that changes
    /// underneath is undefined behaviour: bytes that validation proved in range can change after
    /// the fact, and a truncated file raises `SIGBUS` on access. Use [`Source::read`] when that
    /// cannot be guaranteed (files on network shares, files other programs write).
    pub unsafe fn map(path: impl AsRef<Path>) -> Result<Source<'static>> {
        let path = path.as_ref();
        let io = |source| Error::Io {
            path: path.to_path_buf(),
            source,
        };
        let file = File::open(path).map_err(io)?;
        let len = file.metadata().map_err(io)?.len();
        // SAFETY: the caller's contract is this function's.
        unsafe { Source::map_file(&file, len, path) }
    }

    /// Maps `file`, `len` bytes long, found at `path` (for errors).
    ///
    /// # Safety
    ///
    /// As [`Source::map`].
    unsafe fn map_file(file: &File, len: u64, path: &Path) -> Result<Source<'static>> {
        if len == 0 {
            // mmap(2) refuses zero-length mappings; an empty file is simply no bytes.
            return Ok(Source::from_vec(Vec::new()));
        }
        // SAFETY: the mapping is read-only and private to this `Source`; the caller upholds the
        // documented contract that the file is not modified or truncated while it is mapped,
        // which is the only condition under which reading a `&[u8]` over it could be unsound.
        let map = unsafe { memmap2::Mmap::map(file) }.map_err(|source| Error::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Ok(Source {
            bytes: Bytes::Mapped(map),
        })
    }

    /// Maps (with [`Access::Map`]) or reads (with [`Access::Read`]) the file at `path`.
    ///
    /// ```
    /// use skelmap_core::source::{Access, Source};
    /// let path = std::env::temp_dir().join("skelmap-source-open-doctest.bin");
    /// std::fs::write(&path, b"MS3D000000").unwrap();
    /// let source = Source::open(&path, Access::Read)?;
    /// assert!(!source.is_mapped());
    /// assert_eq!(source.bytes(), b"MS3D000000");
    /// # std::fs::remove_file(&path).unwrap();
    /// # Ok::<(), skelmap_core::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::Io`] naming the path when it cannot be opened, read or mapped.
    pub fn open(path: impl AsRef<Path>, access: Access) -> Result<Source<'static>> {
        match access {
            Access::Read => Source::read(path),
            // SAFETY: the promise's contract is `Source::map`'s: whoever made it guarantees
            // that the files opened with it are not modified or truncated while mapped.
            Access::Map(_promise) => unsafe { Source::map(path) },
        }
    }

    /// Reads the whole file at `path` into memory (safe; one copy of the file).
    pub fn read(path: impl AsRef<Path>) -> Result<Source<'static>> {
        let path = path.as_ref();
        let io = |source| Error::Io {
            path: path.to_path_buf(),
            source,
        };
        let mut file = File::open(path).map_err(io)?;
        let metadata = file.metadata().map_err(io)?;
        if !metadata.is_file() || metadata.len() == 0 {
            // A pipe, a device or a file whose size the metadata does not give (`/proc`):
            // read until the end, however long.
            let mut data = Vec::new();
            file.read_to_end(&mut data).map_err(io)?;
            return Ok(Source::from_vec(data));
        }
        Source::read_file(&mut file, metadata.len(), path)
    }

    /// [`Source::open`] when `path` names a regular file; `None` when nothing is there or it
    /// is something else (a directory). The one `open(2)` answers both, so a file that is
    /// there costs no separate lookup.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] naming the path when it exists but cannot be opened, read or mapped.
    pub fn open_if_file(path: impl AsRef<Path>, access: Access) -> Result<Option<Source<'static>>> {
        let path = path.as_ref();
        let io = |source| Error::Io {
            path: path.to_path_buf(),
            source,
        };
        let mut file = match File::open(path) {
            Ok(file) => file,
            Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => {
                return Ok(None);
            }
            Err(e) => return Err(io(e)),
        };
        let metadata = file.metadata().map_err(io)?;
        if !metadata.is_file() {
            return Ok(None);
        }
        match access {
            Access::Read => Source::read_file(&mut file, metadata.len(), path).map(Some),
            Access::Map(_promise) => {
                // SAFETY: the promise's contract is `Source::map`'s: whoever made it
                // guarantees that the files opened with it are not modified or truncated
                // while mapped.
                let mapped = unsafe { Source::map_file(&file, metadata.len(), path) };
                mapped.map(Some)
            }
        }
    }

    /// The first `len` bytes of the regular file `file` (its length when opened), found at
    /// `path` (for errors): one read of the size the metadata gave, no probing past it. A
    /// file that grows meanwhile is read as it was; one that shrinks is an I/O error.
    fn read_file(file: &mut File, len: u64, path: &Path) -> Result<Source<'static>> {
        let io = |source| Error::Io {
            path: path.to_path_buf(),
            source,
        };
        let len = usize::try_from(len).map_err(|_| io(ErrorKind::OutOfMemory.into()))?;
        let mut data = Vec::new();
        data.try_reserve_exact(len)
            .map_err(|_| io(ErrorKind::OutOfMemory.into()))?;
        data.resize(len, 0);
        file.read_exact(&mut data).map_err(io)?;
        Ok(Source::from_vec(data))
    }

    /// Takes ownership of bytes already in memory.
    #[must_use]
    pub fn from_vec(data: Vec<u8>) -> Source<'static> {
        Source {
            bytes: Bytes::Owned(data),
        }
    }
}

impl<'data> Source<'data> {
    /// Borrows bytes owned by the caller.
    #[must_use]
    pub fn from_bytes(data: &'data [u8]) -> Source<'data> {
        Source {
            bytes: Bytes::Borrowed(data),
        }
    }

    /// The file contents.
    #[must_use]
    pub fn bytes(&self) -> &[u8] {
        match &self.bytes {
            Bytes::Mapped(map) => map,
            Bytes::Owned(v) => v,
            Bytes::Borrowed(b) => b,
        }
    }

    /// `true` if the bytes are a memory map of a file.
    #[must_use]
    pub fn is_mapped(&self) -> bool {
        matches!(self.bytes, Bytes::Mapped(_))
    }
}

impl AsRef<[u8]> for Source<'_> {
    fn as_ref(&self) -> &[u8] {
        self.bytes()
    }
}

/// How [`Source::open`] brings a file into memory.
#[derive(Debug, Clone, Copy, Default)]
pub enum Access {
    /// Read the file into an owned buffer: one copy, and later changes to the file cannot
    /// affect the bytes.
    #[default]
    Read,
    /// Memory-map the file: no copy, pages read on first access. Needs the caller's
    /// [`MapPromise`].
    Map(MapPromise),
}

/// A caller's promise that the files it maps are not modified while mapped: the one unsafe
/// step of mapping, taken once and then passed to safe code that opens files (a model's
/// skeleton, levels of detail and animations) on the caller's behalf.
///
/// ```no_run
/// use skelmap_core::source::{Access, MapPromise, Source};
/// // SAFETY: nothing modifies the game's files while it runs.
/// let promise = unsafe { MapPromise::new() };
/// let source = Source::open("models/zombie.dpm", Access::Map(promise))?;
/// # Ok::<(), skelmap_core::Error>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct MapPromise(());

impl MapPromise {
    /// Makes the promise.
    ///
    /// # Safety
    ///
    /// Every file mapped with this promise must not be modified or truncated, by this or any
    /// other process, while its [`Source`] (or anything borrowed from it) is alive: the
    /// contract of [`Source::map`], for each file opened with the promise.
    #[must_use]
    pub const unsafe fn new() -> MapPromise {
        MapPromise(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Outcome = core::result::Result<(), Box<dyn std::error::Error>>;

    #[test]
    fn mapping_an_empty_file_gives_no_bytes() -> Outcome {
        let file = tempfile::Builder::new()
            .prefix("skelmap-empty-")
            .suffix(".dpm")
            .tempfile()?;
        let path = file.path();
        std::fs::write(path, b"")?;
        // SAFETY: the file is private to this test and not modified while mapped.
        let source = Source::open(path, Access::Map(unsafe { MapPromise::new() }))?;
        assert!(source.bytes().is_empty());
        file.close()?;
        Ok(())
    }

    #[test]
    fn open_if_file_finds_only_regular_files() -> Outcome {
        let temp = tempfile::Builder::new()
            .prefix("skelmap-if-file-")
            .tempdir()?;
        let dir = temp.path();
        std::fs::create_dir_all(dir.join("sub"))?;
        std::fs::write(dir.join("a.bin"), b"abc")?;
        // SAFETY: the files are private to this test and not modified while mapped.
        let promise = unsafe { MapPromise::new() };
        for access in [Access::Read, Access::Map(promise)] {
            let found = Source::open_if_file(dir.join("a.bin"), access)?;
            assert_eq!(found.as_ref().map(Source::bytes), Some(&b"abc"[..]));
            assert!(Source::open_if_file(dir.join("missing.bin"), access)?.is_none());
            assert!(Source::open_if_file(dir.join("sub"), access)?.is_none());
            // A path through a file is no file either.
            assert!(Source::open_if_file(dir.join("a.bin/b"), access)?.is_none());
        }
        // A file whose metadata gives no size is read to its end.
        if cfg!(target_os = "linux") {
            assert!(!Source::read("/proc/self/status")?.bytes().is_empty());
        }
        temp.close()?;
        Ok(())
    }

    #[test]
    fn memory_mapped_and_read_sources_give_the_same_bytes_and_view() -> Outcome {
        use crate::dpm::Dpm;
        use crate::parse::Parse;
        let bytes = crate::synth::tube(&crate::synth::TubeParams::default()).write()?;
        let file = tempfile::Builder::new()
            .prefix("skelmap-map-")
            .suffix(".dpm")
            .tempfile()?;
        let path = file.path();
        std::fs::write(path, &bytes)?;
        // SAFETY: the file is private to this test and not modified while mapped.
        let mapped = unsafe { Source::map(path) }?;
        let read = Source::read(path)?;
        assert!(mapped.is_mapped() && !read.is_mapped());
        assert_eq!((mapped.bytes(), read.bytes()), (&bytes[..], &bytes[..]));
        let (a, b) = (Dpm::parse(mapped.bytes())?, Dpm::parse(read.bytes())?);
        let pose = |m: &Dpm<'_>| m.frame(5).map(|f| f.pose(2));
        assert!(pose(&a).is_some());
        assert_eq!(pose(&a), pose(&b));
        drop(mapped);
        file.close()?;
        Ok(())
    }
}
