//! Quake III's `.skin` files: which shader each surface of a model draws with
//! (`head_default.skin` beside `head.md3`), read as ioquake3's renderer reads them
//! (`docs/formats/md3.md`, § Skin files):
//!
//! 1. Tokens are separated by white space and commas, with `//` and `/* */` comments and
//!    `"…"` quotes ([`crate::text::tokens`]); they pair up as surface, shader.
//! 2. A surface name containing `tag_` names a tag, which has no shader: it is skipped, and
//!    the token after it starts the next pair.
//! 3. Surface names compare without regard to ASCII case (the game lowers them).
//! 4. The game keeps [`MAX_SURFACES`] pairs; the rest are ignored.
//!
//! Parsing is bounded by [`MAX_BYTES`], [`MAX_LINES`] and [`MAX_SURFACES`], and borrows
//! every name from the text.

use crate::error::{Error, Problem, Result};
use crate::format::Format;
use crate::resolver::{Resolver, check_path, strip_extension};
use crate::source::Source;
use crate::text::{self, Commas};

/// The skin a model opens with unless another is asked for.
pub const DEFAULT_SKIN: &str = "default";

/// Where skin `name` of the model at `path` is: `<stem>_<name>.skin` beside it, as Quake III
/// and Enemy Territory name a model's skins.
#[must_use]
pub fn skin_path(path: &str, name: &str) -> String {
    format!("{}_{name}.skin", strip_extension(path))
}

/// The skin file of the model at VFS `path`: skin `asked` (which must exist), else skin
/// `fallback` (which may be missing), as `(path, bytes)`.
///
/// # Errors
///
/// [`Error::Resolve`] when `asked` names a folder or leads out of the root, or no such skin
/// lies beside the model; the resolver's errors.
pub(crate) fn find<'data, R: Resolver<'data> + ?Sized>(
    resolver: &R,
    path: &str,
    asked: Option<&str>,
    fallback: &str,
) -> Result<Option<(String, Source<'data>)>> {
    let skin = skin_path(path, asked.unwrap_or(fallback));
    // The name asked for is the caller's: it may not lead out of the root.
    check_path(&skin)?;
    if asked.is_some_and(|n| n.contains(['/', '\\'])) {
        return Err(Error::Resolve {
            path: skin,
            reason: "a skin name names no folder",
        });
    }
    match resolver.load(&skin)? {
        Some(text) => Ok(Some((skin, text))),
        None if asked.is_some() => Err(Error::Resolve {
            path: skin,
            reason: "no such skin beside the model",
        }),
        None => Ok(None),
    }
}

/// The longest `.skin` file read, in bytes.
pub const MAX_BYTES: u64 = 1 << 16;

/// The most lines a `.skin` file may have.
pub const MAX_LINES: u64 = 4096;

/// The most surface–shader pairs kept (ioquake3's `MAX_SKIN_SURFACES`).
pub const MAX_SURFACES: usize = 256;

/// The longest surface or shader name, in bytes (`MAX_QPATH` less its NUL).
pub const MAX_NAME: usize = 63;

/// A parsed `.skin` file: a shader per surface name (see the [module docs](self)).
///
/// ```
/// use skelmap_core::model::SkinFile;
/// let text = b"tag_head,\nh_head,models/players/sarge/head.tga\nh_Visor,models/visor\n";
/// let skin = SkinFile::parse(text, skelmap_core::Format::Md3)?;
/// assert_eq!(skin.len(), 2);
/// assert_eq!(skin.shader(b"H_VISOR"), Some(&b"models/visor"[..]));
/// assert_eq!(skin.shader(b"tag_head"), None);
/// # Ok::<(), skelmap_core::Error>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SkinFile<'data> {
    pairs: Vec<(&'data [u8], &'data [u8])>,
    ignored: usize,
}

impl<'data> SkinFile<'data> {
    /// Parses `text`, a `.skin` file beside a model of `format` (the format errors name).
    ///
    /// # Errors
    ///
    /// [`Error::Limit`] past [`MAX_BYTES`] or [`MAX_LINES`] (`what` `".skin"`);
    /// [`Error::Invalid`] (`what` `".skin line"`, at the name's offset) with
    /// [`Problem::NameLength`] for a surface or shader name past [`MAX_NAME`] bytes.
    pub fn parse(text: &'data [u8], format: Format) -> Result<SkinFile<'data>> {
        text::check_size(text, format, ".skin", MAX_BYTES, MAX_LINES)?;
        let mut skin = SkinFile::default();
        let mut tokens = text::tokens(text, Commas::Separate);
        while let Some(surface) = tokens.next() {
            if surface.text.windows(4).any(|w| w == b"tag_") {
                continue;
            }
            let shader = tokens.next();
            for t in core::iter::once(surface).chain(shader) {
                if t.text.len() > MAX_NAME {
                    return Err(Error::Invalid {
                        format,
                        what: ".skin line",
                        offset: t.offset,
                        problem: Problem::NameLength {
                            line: t.line,
                            len: t.text.len() as u64,
                            max: MAX_NAME as u64,
                        },
                    });
                }
            }
            if skin.pairs.len() < MAX_SURFACES {
                skin.pairs
                    .push((surface.text, shader.map_or(&[][..], |t| t.text)));
            } else {
                skin.ignored += 1;
            }
        }
        Ok(skin)
    }

    /// The shader surface `surface` draws with (the first pair naming it, ASCII case
    /// ignored), or `None` when the file names no such surface.
    #[must_use]
    pub fn shader(&self, surface: &[u8]) -> Option<&'data [u8]> {
        self.pairs
            .iter()
            .find(|(s, _)| s.eq_ignore_ascii_case(surface))
            .map(|&(_, shader)| shader)
    }

    /// The surface–shader pairs kept, in file order.
    pub fn pairs(&self) -> impl ExactSizeIterator<Item = (&'data [u8], &'data [u8])> + '_ {
        self.pairs.iter().copied()
    }

    /// Number of pairs kept.
    #[must_use]
    pub fn len(&self) -> usize {
        self.pairs.len()
    }

    /// `true` when the file names no surface.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// Pairs past [`MAX_SURFACES`], ignored as the game ignores them.
    #[must_use]
    pub fn ignored(&self) -> usize {
        self.ignored
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_tags_and_limits() -> Result<()> {
        let text = b"// sarge\ntag_torso,\ntag_weapon,\nu_torso , models/u.tga\n\"l legs\",x\nlone";
        let skin = SkinFile::parse(text, Format::Md3)?;
        let pairs: Vec<_> = skin.pairs().collect();
        let expected: [(&[u8], &[u8]); 3] = [
            (b"u_torso", b"models/u.tga"),
            (b"l legs", b"x"),
            (b"lone", b""),
        ];
        assert_eq!(pairs, expected);
        let long = format!("s,{}\n", "x".repeat(64));
        let e = SkinFile::parse(long.as_bytes(), Format::Md3).err();
        assert!(
            matches!(
                e,
                Some(Error::Invalid {
                    what: ".skin line",
                    offset: 2,
                    problem: Problem::NameLength {
                        line: 1,
                        len: 64,
                        max: 63
                    },
                    ..
                })
            ),
            "{e:?}"
        );
        let many: String = (0..300).map(|i| format!("s{i},t\n")).collect();
        let skin = SkinFile::parse(many.as_bytes(), Format::Md3)?;
        assert_eq!((skin.len(), skin.ignored()), (256, 44));
        Ok(())
    }
}
