//! The tokens of the small text files the Quake lineage keeps beside its models (an SKM's
//! `.cfg`, Quake III's `animation.cfg` and `.skin` files), split as the engines' parsers
//! split them: white space (and, for `.skin` files, commas) separates tokens, `"…"` quotes
//! one, `//` comments run to the end of the line and `/* … */` comments to their end. Each
//! token keeps its line and byte offset, for errors that point into the file.

use crate::error::{Error, Result};
use crate::format::Format;

/// Refuses a text file of more than `max_bytes` bytes or `max_lines` lines, as
/// [`Error::Limit`] of `format` naming `what` (the file's kind): the bound every parse of these
/// files starts with.
///
/// # Errors
///
/// [`Error::Limit`] (offset 0) with the bytes or lines found.
pub fn check_size(
    text: &[u8],
    format: Format,
    what: &'static str,
    max_bytes: u64,
    max_lines: u64,
) -> Result<()> {
    let limit = |value: u64, max: u64| Error::Limit {
        format,
        what,
        offset: 0,
        value,
        max,
    };
    if text.len() as u64 > max_bytes {
        return Err(limit(text.len() as u64, max_bytes));
    }
    let lines = text.iter().filter(|&&b| b == b'\n').count() as u64 + 1;
    if lines > max_lines {
        return Err(limit(lines, max_lines));
    }
    Ok(())
}

/// One token of a text file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token<'a> {
    /// The token's bytes (inside the quotes, for a quoted one).
    pub text: &'a [u8],
    /// Its line, from 1.
    pub line: u64,
    /// The byte offset where it starts (its opening quote, for a quoted one).
    pub offset: u64,
}

/// Whether a comma separates tokens, as in Quake III's `.skin` files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Commas {
    /// A comma is part of a token (`.cfg` files).
    InToken,
    /// A comma ends a token and is not one (`.skin` files: `surface,shader`).
    Separate,
}

/// The tokens of `text`, in order. Each step reads forward only, so the walk is bounded by
/// the text's length; an unterminated quote or comment runs to the end of the text (a quote to
/// the end of its line), as in the engines.
///
/// ```
/// use skelmap_core::text::{Commas, tokens};
/// let text = b"// player\nh_head,models/head.tga /* old */\n\"two words\"";
/// let found: Vec<(&[u8], u64)> = tokens(text, Commas::Separate).map(|t| (t.text, t.line)).collect();
/// let expected: [(&[u8], u64); 3] = [(b"h_head", 2), (b"models/head.tga", 2), (b"two words", 3)];
/// assert_eq!(found, expected);
/// ```
pub fn tokens(text: &[u8], commas: Commas) -> impl Iterator<Item = Token<'_>> + Clone + '_ {
    Tokens {
        text,
        at: 0,
        line: 1,
        commas,
    }
}

#[derive(Debug, Clone)]
struct Tokens<'a> {
    text: &'a [u8],
    at: usize,
    line: u64,
    commas: Commas,
}

impl<'a> Tokens<'a> {
    fn peek(&self, i: usize) -> Option<u8> {
        self.text.get(i).copied()
    }

    fn separates(&self, c: u8) -> bool {
        c.is_ascii_whitespace() || (c == b',' && self.commas == Commas::Separate)
    }

    fn token(&self, start: usize, end: usize, offset: usize) -> Token<'a> {
        Token {
            text: self.text.get(start..end).unwrap_or_default(),
            line: self.line,
            offset: offset as u64,
        }
    }
}

impl<'a> Iterator for Tokens<'a> {
    type Item = Token<'a>;

    fn next(&mut self) -> Option<Token<'a>> {
        while let Some(c) = self.peek(self.at) {
            match c {
                b'\n' => {
                    self.line += 1;
                    self.at += 1;
                }
                c if self.separates(c) => self.at += 1,
                b'/' if self.peek(self.at + 1) == Some(b'/') => {
                    while self.peek(self.at).is_some_and(|c| c != b'\n') {
                        self.at += 1;
                    }
                }
                b'/' if self.peek(self.at + 1) == Some(b'*') => {
                    self.at += 2;
                    while let Some(c) = self.peek(self.at) {
                        if c == b'*' && self.peek(self.at + 1) == Some(b'/') {
                            self.at += 2;
                            break;
                        }
                        self.line += u64::from(c == b'\n');
                        self.at += 1;
                    }
                }
                b'"' => {
                    let open = self.at;
                    let start = open + 1;
                    self.at = start;
                    while self.peek(self.at).is_some_and(|c| c != b'"' && c != b'\n') {
                        self.at += 1;
                    }
                    let token = self.token(start, self.at, open);
                    self.at += usize::from(self.peek(self.at) == Some(b'"'));
                    return Some(token);
                }
                _ => {
                    // A token runs to a separator, a quote, or a comment that starts inside it.
                    let start = self.at;
                    while let Some(here) = self
                        .peek(self.at)
                        .filter(|&h| !self.separates(h) && h != b'"')
                    {
                        if here == b'/'
                            && matches!(self.peek(self.at + 1), Some(b'/' | b'*'))
                            && self.at > start
                        {
                            break;
                        }
                        self.at += 1;
                    }
                    return Some(self.token(start, self.at, start));
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_quotes_and_lines() {
        let text = b"a/* x\ny */b // c\n\"q w\" d,e\n\"open";
        let found: Vec<(&[u8], u64, u64)> = tokens(text, Commas::InToken)
            .map(|t| (t.text, t.line, t.offset))
            .collect();
        let expected: [(&[u8], u64, u64); 5] = [
            (b"a", 1, 0),
            (b"b", 2, 10),
            (b"q w", 3, 17),
            (b"d,e", 3, 23),
            (b"open", 4, 27),
        ];
        assert_eq!(found, expected);
        let split: Vec<&[u8]> = tokens(b"s,t ,u", Commas::Separate)
            .map(|t| t.text)
            .collect();
        assert_eq!(split, [&b"s"[..], b"t", b"u"]);
    }
}
