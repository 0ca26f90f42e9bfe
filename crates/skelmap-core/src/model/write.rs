//! The write dispatch: an [`Asset`] written as any writable [`Format`], through the builder
//! the format table (`format_table!` in `format.rs`) names in its `writer` column and that
//! builder's [`Writer`] impl. Converters (the CLI's `convert`, the conversion tests) call
//! [`write`] and keep no list of formats of their own.

use crate::asset::{Asset, WriteError, WriteOptions, Writer, Written};
use crate::format::Format;

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
        /// # Errors
        ///
        /// [`WriteError::NotWritable`] for a format skelmap does not write
        /// ([`Format::writable`]); else the writer's [`WriteError`].
        pub fn write(
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
