//! The one contract every writable format keeps: an [`Asset`] in, the bytes of each file out,
//! with what the format could not keep.
//!
//! Each writable format's `write.rs` implements [`Writer`] on its builder; the format table
//! (`format_table!` in `format.rs`) names that builder in its `writer` column, and
//! [`model::write`](fn@crate::model::write) dispatches to it by [`Format`]. A converter (the
//! CLI's `convert`, the conversion tests) then needs no list of its own.

use std::path::{Path, PathBuf};

use super::{Asset, FitError};
use crate::format::Format;

/// What a writer may be asked beyond the asset.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct WriteOptions {
    /// Store a skeletal asset's frames as vertex frames, every frame's skinned vertices (for
    /// the formats without joints: Quake MDL, GameStudio MDL5). Without it they refuse a
    /// skeletal asset with advice to ask for it.
    pub bake: bool,
}

impl WriteOptions {
    /// Options with [`bake`](WriteOptions::bake) set as given.
    #[must_use]
    pub fn bake(bake: bool) -> Self {
        WriteOptions { bake }
    }
}

/// Where a written file goes, relative to the path the caller writes the model to: the way
/// [`Model::resolve`](crate::Model::resolve) finds companions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// The path itself.
    Main,
    /// The path with this extension instead of its own (`model.skp` beside `model.skm`).
    Extension(&'static str),
    /// The path's file name with this appended (`model.dpm.framegroups`).
    Suffix(&'static str),
    /// The path's stem with this appended, in its folder (`model-walk.md5anim` beside
    /// `model.md5mesh`): a name the asset chooses, such as a clip's.
    StemSuffix(String),
}

impl Place {
    /// The path of a file in this place beside a model written to `main`.
    ///
    /// ```
    /// use std::path::Path;
    /// use skelmap_core::asset::Place;
    /// let main = Path::new("out/golem.dpm");
    /// assert_eq!(Place::Main.path(main), main);
    /// assert_eq!(Place::Extension("skp").path(main), Path::new("out/golem.skp"));
    /// assert_eq!(Place::Suffix(".framegroups").path(main), Path::new("out/golem.dpm.framegroups"));
    /// let walk = Place::StemSuffix("-walk.md5anim".into());
    /// assert_eq!(walk.path(main), Path::new("out/golem-walk.md5anim"));
    /// ```
    #[must_use]
    pub fn path(self, main: &Path) -> PathBuf {
        match self {
            Place::Main => main.to_path_buf(),
            Place::Extension(extension) => main.with_extension(extension),
            Place::Suffix(suffix) => {
                let mut name = main.file_name().unwrap_or_default().to_os_string();
                name.push(suffix);
                main.with_file_name(name)
            }
            Place::StemSuffix(suffix) => {
                let mut name = main.file_stem().unwrap_or_default().to_os_string();
                name.push(suffix);
                main.with_file_name(name)
            }
        }
    }
}

/// One file a writer made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WrittenFile {
    /// Where it goes beside the main output.
    pub place: Place,
    /// Its bytes.
    pub bytes: Vec<u8>,
}

/// What a writer made of an asset: its files, the main one first, and what it could not keep.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    /// The format written.
    pub format: Format,
    /// The files, the main one first (a model with companions writes several: an SKM and its
    /// SKP, an SL mesh and its `.anim`, a DPM and its `.framegroups`).
    pub files: Vec<WrittenFile>,
    /// What was lost or changed on the way, one sentence each (see
    /// [`Fitted::losses`](super::Fitted::losses)).
    pub notes: Vec<String>,
    /// The frame of the written model that holds the asset's first frame: 1 where the format
    /// stores the bind pose as a frame of its own before the clips (an SL animation's
    /// keyframe 0), else 0.
    pub first_frame: usize,
}

impl Written {
    /// Files of `format` with no notes, the asset's first frame at frame 0.
    #[must_use]
    pub fn new(format: Format, files: Vec<WrittenFile>) -> Self {
        Written {
            format,
            files,
            notes: Vec::new(),
            first_frame: 0,
        }
    }

    /// The main file alone.
    #[must_use]
    pub fn one(format: Format, bytes: Vec<u8>) -> Self {
        Written::new(
            format,
            vec![WrittenFile {
                place: Place::Main,
                bytes,
            }],
        )
    }

    /// With `notes` as its notes.
    #[must_use]
    pub fn with_notes(mut self, notes: Vec<String>) -> Self {
        self.notes = notes;
        self
    }
}

/// Why an asset was not written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WriteError {
    /// The asset does not fit the format; nothing was written.
    #[error(transparent)]
    Fit(#[from] FitError),
    /// The builder could not lay the file out (a count past a field's range).
    #[error(transparent)]
    Layout(#[from] crate::error::Error),
    /// skelmap does not write this format.
    #[error("skelmap does not write {0} files")]
    NotWritable(Format),
    /// The files written do not open again (a writer's defect: every limit it cannot hold
    /// should be a [`Fit`](WriteError::Fit)); nothing is handed out.
    #[error("the {format} files written do not open again, so none is given: {error}")]
    Unreadable {
        /// The format written.
        format: Format,
        /// Why they do not open.
        error: crate::error::Error,
    },
}

/// A format's writer: its builder made from an asset, written out.
///
/// Every writable format implements it on its builder and names that builder in the format
/// table's `writer` column; [`model::write`](fn@crate::model::write) calls it by format.
pub trait Writer {
    /// The format this writer writes.
    const FORMAT: Format;

    /// Whether the files hold images (decoded skins), so that a converter should find and
    /// decode the textures an asset names before it writes; formats that store texture names
    /// do not need them.
    const STORES_IMAGES: bool = false;

    /// `asset` as the files of this format.
    ///
    /// # Errors
    ///
    /// [`WriteError::Fit`] when the asset exceeds one of the format's limits (checked before
    /// anything is laid out), [`WriteError::Layout`] when the builder cannot lay it out.
    fn write_asset(asset: &Asset, options: &WriteOptions) -> Result<Written, WriteError>;
}

/// The text of a `.framegroups` file for `asset`'s clips, one line a clip laid end to end:
/// first frame, frame count, rate, loop flag, and the name as a comment.
///
/// ```
/// use skelmap_core::{Model, asset::framegroups_text};
/// let bytes = skelmap_core::synth::tube(&Default::default()).write()?;
/// let asset = Model::from_bytes(&bytes)?.to_asset(&Default::default())?;
/// let text = framegroups_text(&asset);
/// assert_eq!(text.lines().count(), asset.clips.len());
/// assert!(text.starts_with("0 "));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn framegroups_text(asset: &Asset) -> String {
    let mut first = 0usize;
    asset
        .clips
        .iter()
        .map(|c| {
            let line = format!(
                "{} {} {} {} // {}\n",
                first,
                c.len(),
                c.fps,
                u8::from(c.looped),
                c.name
            );
            first += c.len();
            line
        })
        .collect()
}
