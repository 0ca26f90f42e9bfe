//! The one dispatch point: the list of formats a [`Model`](super::Model) can hold.
//!
//! [`formats!`] turns the format table (`format_table!` in `format.rs`, a row a format) into
//! the [`View`] enum, the enums of each format's mesh and frame-name walk, the `Model::as_*`
//! accessors, and the two macros the rest of `model/` uses: `with_view!(view, v => body)` runs
//! `body` with `v` bound to the view of whichever format, `with_mesh!(mesh, m => body)`
//! likewise for a mesh. `body` is generic code over the [`ModelView`] and [`MeshView`] traits,
//! compiled once per format. Opening dispatches here too: `View::open` validates a format's
//! files through its view's [`Open`] and `View::companions` finds what it needs beside them.

use crate::pose::{Bone, Skeleton};
use crate::view::open::{CompanionFile, Files, Given, Open};
use crate::view::{MeshView, ModelView};

/// Declares [`View`], `MeshKind` and `FrameNamesKind` over the listed formats, and the
/// `with_view!` and `with_mesh!` macros that dispatch on them. `$d` is a `$` token, which the
/// inner macros need for their own variables.
macro_rules! formats {
    ($d:tt $(
        $(#[$format_doc:meta])*
        $variant:ident {
            name: $name:literal, extensions: [$($ext:literal),+],
            magic: $magic:expr, magic_text: $magic_text:literal, c_value: $c_value:literal,
            folder: $folder:literal, docs: $docs:literal, fuzz: $fuzz:literal,
            writer: [$($($writer:ident)::+)?],
            view: $($view:ident)::+, $accessor:ident, $doc:literal $(,)?
        }
    )+) => {
        /// The validated view of each format, as a [`Model`](super::Model) holds it.
        #[derive(Debug, Clone)]
        #[non_exhaustive]
        pub enum View<'data> {
            $( #[doc = $doc] $variant(crate::$($view)::+<'data>), )+
        }

        impl<'data> super::Model<'data> {
            $(
                #[doc = concat!("The ", $name, " view, if this model holds one: ", $doc)]
                #[must_use]
                pub fn $accessor(&self) -> Option<&crate::$($view)::+<'_>> {
                    match self.view() {
                        View::$variant(v) => Some(v),
                        #[allow(unreachable_patterns)]
                        _ => None,
                    }
                }
            )+
        }

        /// One mesh of whichever format.
        #[derive(Debug, Clone, Copy)]
        pub(super) enum MeshKind<'a> {
            $( $variant(<crate::$($view)::+<'a> as ModelView<'a>>::Mesh<'a>), )+
        }

        /// The frame-name walk of whichever format.
        #[derive(Debug, Clone)]
        pub(super) enum FrameNamesKind<'a> {
            $( $variant(<crate::$($view)::+<'a> as ModelView<'a>>::FrameNames<'a>), )+
        }

        /// Runs `$body` with `$v` bound to the view in `$view` (a `&View`).
        macro_rules! with_view {
            ($d value:expr, $d v:ident => $d body:expr) => {
                match $d value {
                    $( crate::model::View::$variant($d v) => $d body, )+
                }
            };
        }

        /// Runs `$body` with `$m` bound to the mesh in `$mesh` (a `MeshKind`).
        macro_rules! with_mesh {
            ($d value:expr, $d m:ident => $d body:expr) => {
                match $d value {
                    $( crate::model::any::MeshKind::$variant($d m) => $d body, )+
                }
            };
        }

        impl<'a> View<'a> {
            /// Validates `files` as `format`'s view ([`Open::open`]).
            pub(super) fn open(
                format: crate::format::Format,
                files: &'a Files<'_>,
                limits: &crate::limits::Limits,
                diag: &mut crate::diag::Diagnostics,
            ) -> crate::error::Result<View<'a>> {
                Ok(match format {
                    $( crate::format::Format::$variant => View::$variant(
                        <crate::$($view)::+<'a> as Open<'a>>::open(files, limits, diag)?,
                    ), )+
                })
            }

            /// The companions `format`'s view looks for beside the file at `path`
            /// ([`Open::companions`]).
            pub(super) fn companions<'data, R: crate::resolver::Resolver<'data> + ?Sized>(
                format: crate::format::Format,
                resolver: &R,
                path: &str,
                main: &[u8],
                given: Given<'data>,
            ) -> crate::error::Result<Vec<CompanionFile<'data>>> {
                match format {
                    $( crate::format::Format::$variant => {
                        <crate::$($view)::+<'static> as Open<'static>>::companions(
                            resolver, path, main, given,
                        )
                    } )+
                }
            }

            /// Whether a `.framegroups` file is looked for beside a `format` file
            /// ([`Open::FRAME_GROUPS`]).
            pub(super) fn frame_groups(format: crate::format::Format) -> bool {
                match format {
                    $( crate::format::Format::$variant => {
                        <crate::$($view)::+<'static> as Open<'static>>::FRAME_GROUPS
                    } )+
                }
            }

            /// The game's base directory `format`'s view finds for a file at `path`
            /// ([`Open::base_dir`]).
            pub(super) fn base_dir(
                format: crate::format::Format,
                path: &std::path::Path,
            ) -> Option<std::path::PathBuf> {
                match format {
                    $( crate::format::Format::$variant => {
                        <crate::$($view)::+<'static> as Open<'static>>::base_dir(path)
                    } )+
                }
            }

            /// Mesh `index` of whichever format.
            pub(super) fn mesh_kind(&self, index: usize) -> Option<MeshKind<'_>> {
                match self {
                    $( View::$variant(v) => ModelView::mesh(v, index).map(MeshKind::$variant), )+
                }
            }

            /// The frame-name walk of whichever format.
            pub(super) fn frame_names_kind(&self) -> FrameNamesKind<'_> {
                match self {
                    $( View::$variant(v) => FrameNamesKind::$variant(ModelView::frame_names(v)), )+
                }
            }
        }

        impl<'a> Iterator for FrameNamesKind<'a> {
            type Item = &'a [u8];

            fn next(&mut self) -> Option<&'a [u8]> {
                match self {
                    $( FrameNamesKind::$variant(walk) => walk.next(), )+
                }
            }

            fn size_hint(&self) -> (usize, Option<usize>) {
                match self {
                    $( FrameNamesKind::$variant(walk) => walk.size_hint(), )+
                }
            }
        }
    };
}

crate::format::format_table!(formats $);

pub(super) use {with_mesh, with_view};

impl ExactSizeIterator for FrameNamesKind<'_> {}

/// Every format's skeleton (empty for formats without bones).
impl<'data> Skeleton<'data> for View<'data> {
    fn skeleton_bones(&self) -> impl ExactSizeIterator<Item = Bone<'data>> + Clone {
        (0..self.num_bones()).map(move |i| self.bone(i).unwrap_or(Bone::new(&[], -1, 0)))
    }

    fn hierarchy_order(&self) -> Option<&[u16]> {
        with_view!(self, v => v.hierarchy_order())
    }

    fn parent_table(&self) -> Option<&[u16]> {
        with_view!(self, v => v.parent_table())
    }

    fn bone(&self, index: usize) -> Option<Bone<'data>> {
        with_view!(self, v => Skeleton::bone(v, index))
    }
}

impl View<'_> {
    /// Number of bones.
    #[must_use]
    pub fn num_bones(&self) -> usize {
        with_view!(self, v => v.skeleton_bones().len())
    }
}

impl<'a> MeshKind<'a> {
    /// Group `i` of a grouped mesh, for [`Mesh::submeshes`](super::Mesh::submeshes).
    pub(super) fn group(&self, i: usize) -> Option<crate::view::Submesh<'a>> {
        with_mesh!(self, m => MeshView::group(m, i))
    }
}
