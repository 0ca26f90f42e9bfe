//! The write dispatch: an [`Asset`] written as any writable [`Format`], through the builder
//! the format table (`format_table!` in `format.rs`) names in its `writer` column and that
//! builder's [`Writer`] impl. Converters (the CLI's `convert`, the conversion tests) call
//! [`write`] and keep no list of formats of their own.

use std::collections::HashMap;
use std::path::Path;

use crate::asset::{Asset, WriteError, WriteOptions, Writer, Written};
use crate::format::Format;
use crate::limits::Limits;

/// Makes [`write`] and [`stores_images`] from the rows of the format table.
macro_rules! writers {
    ($(
        $(#[$format_doc:meta])*
        $variant:ident {
            name: $name:literal, extensions: [$($ext:literal),+],
            magic: $magic:expr, magic_text: $magic_text:literal, c_value: $c_value:literal,
            folder: $folder:literal, docs: $docs:literal, fuzz: $fuzz:literal,
            writer: [$($($writer:ident)::+)?],
            view: $($view:ident)::+, $accessor:ident, $doc:literal $(,)?
        }
    )+) => {
        /// `asset` as the files of `format`, with what the format could not keep.
        ///
        /// ```
        /// use skelmap_core::{Format, Model, asset::{Place, WriteOptions}, model};
        /// let bytes = skelmap_core::synth::tube(&Default::default()).write()?;
        /// let asset = Model::from_bytes(&bytes)?.to_asset(&Default::default())?;
        /// let written = model::write(Format::Skm, &asset, &WriteOptions::default())?;
        /// // An SKM and its SKP.
        /// assert_eq!(written.files.len(), 2);
        /// assert_eq!(written.files[1].place, Place::Extension("skp"));
        /// assert!(model::write(Format::Hmp, &asset, &WriteOptions::default()).is_err());
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        ///
        /// Before any writer runs, an asset whose numbers a writer's arithmetic could
        /// overflow is refused ([`Asset::refuse_out_of_range`]); after, the files are opened
        /// again as a caller would save them (the main file as `out.<extension>`, the others
        /// in their [`Place`](crate::asset::Place)s), so that no file skelmap cannot read is
        /// handed out.
        ///
        /// # Errors
        ///
        /// [`WriteError::NotWritable`] for a format skelmap does not write
        /// ([`Format::writable`]); [`WriteError::Fit`] for numbers out of range, or for an
        /// asset of nothing (no vertex, joint, tag or clip); the writer's
        /// [`WriteError`]; [`WriteError::Unreadable`] when what it wrote does not open.
        pub fn write(
            format: Format,
            asset: &Asset,
            options: &WriteOptions,
        ) -> Result<Written, WriteError> {
            if !format.writable() {
                return Err(WriteError::NotWritable(format));
            }
            asset.refuse_out_of_range(format.name())?;
            asset.refuse_empty(format.name())?;
            let written = dispatch(format, asset, options)?;
            reopen(&written).map_err(|error| WriteError::Unreadable { format, error })?;
            Ok(written)
        }

        /// The writer of `format`'s row.
        fn dispatch(
            format: Format,
            asset: &Asset,
            options: &WriteOptions,
        ) -> Result<Written, WriteError> {
            match format {
                $($( Format::$variant => <crate::$($writer)::+ as Writer>::write_asset(asset, options), )?)+
                #[allow(unreachable_patterns)]
                _ => Err(WriteError::NotWritable(format)),
            }
        }

        /// Whether `format`'s files hold images, so that a converter should decode the
        /// textures an asset names before writing it ([`Writer::STORES_IMAGES`]).
        #[must_use]
        pub fn stores_images(format: Format) -> bool {
            match format {
                $($( Format::$variant => <crate::$($writer)::+ as Writer>::STORES_IMAGES, )?)+
                #[allow(unreachable_patterns)]
                _ => false,
            }
        }

        #[cfg(test)]
        mod tests {
            use super::*;

            /// Each writer writes the format of its row, and a format is writable exactly
            /// when its row names a writer.
            #[test]
            fn every_writer_writes_its_own_row() {
                $($( assert_eq!(<crate::$($writer)::+ as Writer>::FORMAT, Format::$variant); )?)+
                let rows_with_writers: &[Format] = &[$($(
                    { let _ = stringify!($($writer)::+); Format::$variant },
                )?)+];
                let writable: Vec<Format> =
                    Format::ALL.iter().copied().filter(|f| f.writable()).collect();
                assert_eq!(writable, rows_with_writers);
            }
        }
    };
}

crate::format::format_table!(writers);

/// Opens `written` as saved beside each other: the main file as `out.<extension>`, the others
/// in their places, with no limit but the format's own (a writer may write past
/// [`Limits::DEFAULT`], which a caller can raise).
fn reopen(written: &Written) -> Result<(), crate::error::Error> {
    let extension = written
        .format
        .extensions()
        .first()
        .copied()
        .unwrap_or("bin");
    let main = format!("out.{extension}");
    let files: HashMap<String, &[u8]> = (written.files.iter())
        .map(|f| {
            let path = f.place.clone().path(Path::new(&main));
            (path.to_string_lossy().into_owned(), f.bytes.as_slice())
        })
        .collect();
    let open = Limits {
        max_bones: u32::MAX,
        max_meshes: u32::MAX,
        max_frames: u32::MAX,
        max_vertices_per_mesh: u32::MAX,
        max_triangles_per_mesh: u32::MAX,
        max_influences_per_vertex: u32::MAX,
        max_total_influences: u64::MAX,
        max_file_size: u64::MAX,
        max_skins: u32::MAX,
        max_skin_dimension: u32::MAX,
    };
    super::Model::resolve(&files, &main, &open).map(drop)
}
