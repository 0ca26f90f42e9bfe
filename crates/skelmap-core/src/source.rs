//! Where model bytes come from: a memory map, an owned buffer, or borrowed memory.
//!
//! This module holds one of the two places in skelmap-core that use `unsafe`: mapping a file.
//! Everything a view reads is then bounds-checked safe code over the `&[u8]` this returns.

use std::fs::File;
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
    #[allow(unsafe_code)]
    pub unsafe fn map(path: impl AsRef<Path>) -> Result<Source<'static>> {
        let path = path.as_ref();
        let io = |source| Error::Io {
            path: path.to_path_buf(),
            source,
        };
        let file = File::open(path).map_err(io)?;
        if file.metadata().map_err(io)?.len() == 0 {
            // mmap(2) refuses zero-length mappings; an empty file is simply no bytes.
            return Ok(Source::from_vec(Vec::new()));
        }
        // SAFETY: the mapping is read-only and private to this `Source`; the caller upholds the
        // documented contract that the file is not modified or truncated while it is mapped,
        // which is the only condition under which reading a `&[u8]` over it could be unsound.
        let map = unsafe { memmap2::Mmap::map(&file) }.map_err(io)?;
        Ok(Source {
            bytes: Bytes::Mapped(map),
        })
    }

    /// Reads the whole file at `path` into memory (safe; one copy of the file).
    pub fn read(path: impl AsRef<Path>) -> Result<Source<'static>> {
        let path = path.as_ref();
        let data = std::fs::read(path).map_err(|source| Error::Io {
            path: path.to_path_buf(),
            source,
        })?;
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
