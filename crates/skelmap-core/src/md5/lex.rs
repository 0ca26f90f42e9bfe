//! The tokens of Doom 3's model text, read in place: keywords and integers (runs of bytes up
//! to white space, a bracket, a quote or a comment; integers parsed by `lexical-core`), quoted
//! strings, the brackets `{ } ( )`, and floating-point numbers, parsed by `fast-float2`
//! straight from the text. White space is any byte up to `0x20` (so CRLF line ends and tabs
//! are white space), and `//` and `/* */` comments stand wherever white space may.
//!
//! Positions are byte offsets; an error turns its offset into a line and column only when it
//! is made, so reading pays nothing for them.
//!
//! The readers the validators call once a token (`skip`, `accept`, `bracket`, `integer`)
//! are always inlined into their loops, which opens a mesh faster than calling them
//! (`peers`' `assimp-memory` rows of the MD5 meshes). `float` is left to the compiler, which
//! then inlines `fast-float2`'s parser into it: forced into its callers as well, the parser
//! became a call of its own and gave back half the gain.
//!
//! A numbered entry's head (`vert 12`, `tri 12`, `weight 12`, `frame 12`) is known before it
//! is read: its keyword and the index it must carry. Where the text prints it as writers do
//! (the keyword, one space or tab, the digits without a sign or leading zeros, then a byte
//! that ends a token), `Lexer::head` matches it with two word compares against a `Head`
//! that counts in decimal; any other spelling goes to the token readers, which accept or name
//! it as before. That spares a keyword's compare loop and an integer's parse on most lines of
//! a mesh.

use crate::error::{Error, Problem, Result};
use crate::format::Format;

/// A byte range of the text: a quoted string's contents, a name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Span {
    /// Offset of the first byte.
    pub start: u32,
    /// Length in bytes.
    pub len: u32,
}

impl Span {
    /// The bytes of `text` the span covers (empty when it is not inside `text`).
    #[must_use]
    pub fn of<'t>(&self, text: &'t [u8]) -> &'t [u8] {
        let start = self.start as usize;
        text.get(start..start + self.len as usize)
            .unwrap_or_default()
    }
}

/// `true` for a byte that ends a keyword or number.
#[inline]
const fn ends_token(b: u8) -> bool {
    b <= b' ' || matches!(b, b'{' | b'}' | b'(' | b')' | b'"')
}

/// [`ends_token`] as a table, which a token's bytes are scanned with.
static STOPS: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = ends_token(b as u8);
        b += 1;
    }
    table
};

/// `true` when a keyword or number token starting `rest` ends before byte `i`: at the end, at
/// a byte that ends tokens, or at a comment.
#[inline]
fn ends_word_at(rest: &[u8], i: usize) -> bool {
    match rest.get(i) {
        None => true,
        Some(&b'/') => matches!(rest.get(i + 1), Some(b'/' | b'*')),
        Some(&b) => STOPS[usize::from(b)],
    }
}

/// Line and column (both from 1; the column in bytes) of byte `offset` of `text`.
#[must_use]
pub fn line_column(text: &[u8], offset: u64) -> (u64, u64) {
    let end = usize::try_from(offset).map_or(text.len(), |o| o.min(text.len()));
    let before = text.get(..end).unwrap_or_default();
    let line = before.iter().filter(|&&b| b == b'\n').count() as u64 + 1;
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    (line, (end - line_start) as u64 + 1)
}

/// A reader of tokens over one text.
#[derive(Debug, Clone)]
pub(crate) struct Lexer<'t> {
    text: &'t [u8],
    pos: usize,
}

impl<'t> Lexer<'t> {
    /// A lexer at the start of `text`, past a UTF-8 byte-order mark.
    pub(crate) fn new(text: &'t [u8]) -> Self {
        let pos = if text.starts_with(b"\xEF\xBB\xBF") {
            3
        } else {
            0
        };
        Lexer { text, pos }
    }

    /// The whole text.
    pub(crate) fn text(&self) -> &'t [u8] {
        self.text
    }

    /// The offset of the next byte not yet read.
    pub(crate) fn offset(&self) -> u64 {
        self.pos as u64
    }

    /// The offset of the next token (after white space and comments).
    pub(crate) fn next_offset(&mut self) -> Result<u64> {
        self.skip()?;
        Ok(self.offset())
    }

    /// Bytes left after the current position.
    pub(crate) fn remaining(&self) -> u64 {
        (self.text.len() - self.pos.min(self.text.len())) as u64
    }

    /// The error for `what` at byte `offset`, located by line and column.
    pub(crate) fn error(&self, what: &'static str, offset: u64, problem: Problem) -> Error {
        let (line, column) = line_column(self.text, offset);
        Error::Text {
            format: Format::Md5,
            what,
            line,
            column,
            offset,
            problem,
        }
    }

    /// Skips white space and comments; the position is then at a token or the end.
    ///
    /// # Errors
    ///
    /// [`Problem::UnterminatedComment`] for a `/*` never closed.
    #[inline(always)]
    pub(crate) fn skip(&mut self) -> Result<()> {
        loop {
            while self.text.get(self.pos).is_some_and(|&b| b <= b' ') {
                self.pos += 1;
            }
            if self.text.get(self.pos) != Some(&b'/') {
                return Ok(());
            }
            match self.text.get(self.pos + 1) {
                Some(b'/') => {
                    let rest = self.text.get(self.pos..).unwrap_or_default();
                    self.pos += rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
                }
                Some(b'*') => {
                    let body = self.text.get(self.pos + 2..).unwrap_or_default();
                    match body.windows(2).position(|w| w == b"*/") {
                        Some(end) => self.pos += 2 + end + 2,
                        None => {
                            let at = self.offset();
                            return Err(self.error("comment", at, Problem::UnterminatedComment));
                        }
                    }
                }
                _ => return Ok(()),
            }
        }
    }

    /// The next byte after white space and comments, not consumed (`None` at the end).
    pub(crate) fn peek(&mut self) -> Result<Option<u8>> {
        self.skip()?;
        Ok(self.text.get(self.pos).copied())
    }

    /// The next keyword or number token, its offset, without consuming it; `None` at a
    /// bracket, a quote or the end.
    pub(crate) fn peek_word(&mut self) -> Result<Option<(&'t [u8], u64)>> {
        self.skip()?;
        let start = self.pos;
        let rest = self.text.get(start..).unwrap_or_default();
        let mut len = 0;
        while !ends_word_at(rest, len) {
            len += 1;
        }
        Ok((len > 0).then(|| (rest.get(..len).unwrap_or_default(), start as u64)))
    }

    /// Consumes the keyword `keyword` (ASCII case ignored), returning its offset.
    ///
    /// # Errors
    ///
    /// [`Problem::Expected`] naming `expected` when the next token is anything else.
    pub(crate) fn keyword(
        &mut self,
        keyword: &'static str,
        what: &'static str,
        expected: &'static str,
    ) -> Result<u64> {
        match self.peek_word()? {
            Some((word, at)) if word.eq_ignore_ascii_case(keyword.as_bytes()) => {
                self.pos += word.len();
                Ok(at)
            }
            _ => Err(self.expected(what, expected)),
        }
    }

    /// Consumes `len` bytes of a token [`peek_word`](Lexer::peek_word) returned.
    pub(crate) fn consume(&mut self, len: usize) {
        self.pos += len;
    }

    /// `true`, consuming it, if the next token is the keyword `keyword` (ASCII case ignored).
    #[inline(always)]
    pub(crate) fn accept(&mut self, keyword: &'static str) -> Result<bool> {
        self.skip()?;
        let rest = self.text.get(self.pos..).unwrap_or_default();
        let len = keyword.len();
        let found = rest
            .get(..len)
            .is_some_and(|word| word.eq_ignore_ascii_case(keyword.as_bytes()))
            && ends_word_at(rest, len);
        if found {
            self.pos += len;
        }
        Ok(found)
    }

    /// Consumes the bracket `bracket`.
    ///
    /// # Errors
    ///
    /// [`Problem::Expected`] when the next token is anything else.
    #[inline(always)]
    pub(crate) fn bracket(&mut self, bracket: u8, what: &'static str) -> Result<()> {
        self.skip()?;
        if self.text.get(self.pos) == Some(&bracket) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.expected(what, bracket_name(bracket)))
        }
    }

    /// The error for a missing token: [`Problem::Expected`] at the next token (or the end).
    pub(crate) fn expected(&mut self, what: &'static str, expected: &'static str) -> Error {
        // Position on the offending token; a comment that cannot be skipped reports itself.
        if let Err(e) = self.skip() {
            return e;
        }
        self.error(what, self.offset(), Problem::Expected { expected })
    }

    /// Consumes a quoted string, returning its contents. Doom 3 reads strings without escape
    /// characters, so the contents end at the next quote, which must be on the same line.
    ///
    /// # Errors
    ///
    /// [`Problem::Expected`] without a quote; [`Problem::UnterminatedString`] without the
    /// closing one.
    pub(crate) fn string(&mut self, what: &'static str) -> Result<Span> {
        self.skip()?;
        let at = self.pos;
        if self.text.get(at) != Some(&b'"') {
            return Err(self.expected(what, "a quoted string"));
        }
        let body = self.text.get(at + 1..).unwrap_or_default();
        match body.iter().position(|&b| b == b'"' || b == b'\n') {
            Some(end) if body.get(end) == Some(&b'"') => {
                self.pos = at + 1 + end + 1;
                Ok(Span {
                    start: u32::try_from(at + 1).unwrap_or(u32::MAX),
                    len: u32::try_from(end).unwrap_or(0),
                })
            }
            _ => Err(self.error(what, at as u64, Problem::UnterminatedString)),
        }
    }

    /// Consumes an integer, returning it and its offset.
    ///
    /// # Errors
    ///
    /// [`Problem::Expected`] at a bracket, quote or the end; [`Problem::Number`] for a token
    /// that is not a whole number in `i64`.
    #[inline(always)]
    pub(crate) fn integer(&mut self, what: &'static str) -> Result<(i64, u64)> {
        self.skip()?;
        // Most integers are a few digits, maybe after a sign, then white space or a bracket:
        // read by `lexical-core` in the one pass that finds their end. Anything else (an
        // integer against a comment, a word that is not one) takes the token's way.
        let at = self.pos;
        let rest = self.text.get(at..).unwrap_or_default();
        // `lexical-core` reads a sign alone as 0: a digit must end what it read.
        if let Ok((value, len)) = lexical_core::parse_partial::<i64>(rest)
            && len
                .checked_sub(1)
                .and_then(|l| rest.get(l))
                .is_some_and(u8::is_ascii_digit)
            && rest.get(len).is_none_or(|&b| ends_token(b))
        {
            self.pos = at + len;
            return Ok((value, at as u64));
        }
        let Some((word, at)) = self.peek_word()? else {
            return Err(self.expected(what, "an integer"));
        };
        let whole = word.last().is_some_and(u8::is_ascii_digit);
        match lexical_core::parse::<i64>(word).ok().filter(|_| whole) {
            Some(v) => {
                self.pos += word.len();
                Ok((v, at))
            }
            None => Err(self.error(what, at, Problem::Number)),
        }
    }

    /// Consumes a finite floating-point number.
    ///
    /// # Errors
    ///
    /// [`Problem::Expected`] at a bracket, quote or the end; [`Problem::Number`] for a token
    /// that is not a number; [`Problem::NotFinite`] for infinities and NaN (and numbers past
    /// `f32`'s range).
    #[inline]
    pub(crate) fn float(&mut self, what: &'static str) -> Result<f32> {
        self.skip()?;
        let at = self.pos;
        let rest = self.text.get(at..).unwrap_or_default();
        match parse_f32(rest) {
            Some((value, len)) if rest.get(len).is_none_or(|&b| ends_token(b) || b == b'/') => {
                if !value.is_finite() {
                    return Err(self.error(what, at as u64, Problem::NotFinite));
                }
                self.pos = at + len;
                Ok(value)
            }
            _ => match rest.first() {
                None | Some(b'{' | b'}' | b'(' | b')' | b'"') => {
                    Err(self.expected(what, "a number"))
                }
                Some(_) => Err(self.error(what, at as u64, Problem::Number)),
            },
        }
    }

    /// Consumes `( a b c )` (or as many numbers as `N`), a vector as MD5 writes them.
    pub(crate) fn vector<const N: usize>(&mut self, what: &'static str) -> Result<[f32; N]> {
        self.bracket(b'(', what)?;
        let out = self.floats(what)?;
        self.bracket(b')', what)?;
        Ok(out)
    }

    /// Consumes `N` finite floats without brackets (the pre-release layout's vectors).
    ///
    /// # Errors
    ///
    /// As [`float`](Lexer::float).
    pub(crate) fn floats<const N: usize>(&mut self, what: &'static str) -> Result<[f32; N]> {
        let mut out = [0.0; N];
        for v in &mut out {
            *v = self.float(what)?;
        }
        Ok(out)
    }
}

/// The number at the start of `text`, correctly rounded to `f32`, and its length: what
/// `fast_float2::parse_partial::<f32>` gives, faster on the ten decimals exporters print,
/// which have more digits than `f32`'s exact fast path takes but not more than `f64`'s.
/// The number is read to `f64`, then rounded to `f32`. Rounding twice lands on another `f32`
/// than rounding once only where the `f64` is exactly halfway between two `f32`s: a halfway
/// point is itself an `f64`, so it cannot lie strictly between the number and its nearest
/// `f64`. A halfway `f64`, and one outside `f32`'s normal range other than zero (where the
/// halfway bits lie elsewhere), is read again, straight to `f32`.
#[inline]
fn parse_f32(text: &[u8]) -> Option<(f32, usize)> {
    let (wide, len) = fast_float2::parse_partial::<f64, _>(text).ok()?;
    // The 29 bits below an `f32` significand's 24, set to exactly one half.
    let halfway = wide.to_bits() & 0x1fff_ffff == 0x1000_0000;
    let normal = (f64::from(f32::MIN_POSITIVE)..=f64::from(f32::MAX)).contains(&wide.abs());
    if wide == 0.0 || (normal && !halfway) {
        return Some((wide as f32, len));
    }
    fast_float2::parse_partial::<f32, _>(text).ok()
}

/// The head of the next entry of a numbered section (`vert 12`, `tri 12`, `weight 12`): its
/// keyword and the index it must carry, as writers print them, so that
/// [`Lexer::head`] matches a head with two word compares instead of reading its tokens.
#[derive(Debug, Clone)]
pub(crate) struct Head {
    /// The keyword.
    name: &'static str,
    /// The keyword's bytes in lower case, the first in the lowest byte.
    keyword: u64,
    /// Bytes of the keyword (at most 7; 0 disables the match).
    keyword_len: usize,
    /// The index's decimal digits, the first in the lowest byte.
    digits: u64,
    /// Digits of the index (at most 8; 0 disables the match).
    digits_len: usize,
    /// The index.
    index: usize,
}

impl Head {
    /// The head of entry 0 of the section whose entries start with `keyword`.
    pub(crate) fn new(keyword: &'static str) -> Head {
        let bytes = keyword.as_bytes();
        let letters = bytes.len() < 8 && bytes.iter().all(u8::is_ascii_alphabetic);
        let mut word = [0u8; 8];
        for (w, b) in word.iter_mut().zip(bytes) {
            *w = b.to_ascii_lowercase();
        }
        let mut head = Head {
            name: keyword,
            keyword: u64::from_le_bytes(word),
            keyword_len: if letters { bytes.len() } else { 0 },
            digits: 0,
            digits_len: 0,
            index: 0,
        };
        head.set(0);
        head
    }

    /// The keyword.
    pub(crate) fn keyword(&self) -> &'static str {
        self.name
    }

    /// The index the next entry must carry.
    pub(crate) fn index(&self) -> usize {
        self.index
    }

    /// Moves on to the next entry's index.
    #[inline(always)]
    pub(crate) fn advance(&mut self) {
        let last = self.digits_len.wrapping_sub(1);
        let shift = 8 * last;
        if last < 8 && (self.digits >> shift) & 0xff < u64::from(b'9') {
            self.digits += 1 << shift;
            self.index += 1;
        } else {
            self.set(self.index + 1);
        }
    }

    /// Sets the index to `index`, its digits written out (none past eight: no match then).
    fn set(&mut self, index: usize) {
        self.index = index;
        let (mut digits, mut len, mut rest) = (0u64, 0usize, index);
        loop {
            digits = (digits << 8) | (b'0' + (rest % 10) as u8) as u64;
            len += 1;
            rest /= 10;
            if rest == 0 || len > 8 {
                break;
            }
        }
        (self.digits, self.digits_len) = if len <= 8 { (digits, len) } else { (0, 0) };
    }
}

impl Lexer<'_> {
    /// Consumes the head `head` names, `true`, when the text holds it as writers print it:
    /// its keyword (ASCII case ignored), one space or tab, the index's digits, then a byte
    /// that ends a token. Anything else (other white space, a comment, leading zeros, a
    /// sign, another index, the end of the text near) is left, only the white space and
    /// comments before it skipped, for the token readers to accept or name (`false`); what
    /// this accepts, they accept the same.
    ///
    /// # Errors
    ///
    /// [`Problem::UnterminatedComment`] for a `/*` never closed before the head.
    #[inline(always)]
    pub(crate) fn head(&mut self, head: &Head) -> Result<bool> {
        self.skip()?;
        let (k, d) = (head.keyword_len, head.digits_len);
        let rest = self.text.get(self.pos..).unwrap_or_default();
        let (Some(first), Some(index)) = (
            rest.first_chunk::<8>(),
            rest.get(k + 1..).and_then(<[u8]>::first_chunk::<8>),
        ) else {
            return Ok(false);
        };
        // A keyword of letters matches its upper and lower case with bit 5 set in each byte.
        let keyword_mask = u64::MAX >> (64 - 8 * k.clamp(1, 7));
        let digits_mask = u64::MAX >> (64 - 8 * d.clamp(1, 8));
        let word = u64::from_le_bytes(*first);
        let found = k > 0
            && d > 0
            && (word | 0x2020_2020_2020_2020) & keyword_mask == head.keyword
            && matches!(rest.get(k), Some(b' ' | b'\t'))
            && u64::from_le_bytes(*index) & digits_mask == head.digits
            && rest.get(k + 1 + d).is_some_and(|&b| ends_token(b));
        if found {
            self.pos += k + 1 + d;
        }
        Ok(found)
    }
}

/// How an error names a bracket it expected.
fn bracket_name(bracket: u8) -> &'static str {
    match bracket {
        b'{' => "'{'",
        b'}' => "'}'",
        b'(' => "'('",
        _ => "')'",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_column_count_from_one() {
        let text = b"ab\r\n\tcd\nx";
        assert_eq!(line_column(text, 0), (1, 1));
        assert_eq!(line_column(text, 5), (2, 2));
        assert_eq!(line_column(text, 8), (3, 1));
        assert_eq!(line_column(text, 99), (3, 2));
    }

    #[test]
    fn tokens_split_at_brackets_and_comments() -> Result<()> {
        let mut lex = Lexer::new(b"\xEF\xBB\xBF// c\nvert/*x*/0(1.5e1 -2)\"a b\"7//e");
        lex.keyword("vert", "v", "vert")?;
        assert_eq!(lex.integer("v")?.0, 0);
        assert_eq!(lex.vector::<2>("v")?, [15.0, -2.0]);
        let s = lex.string("s")?;
        assert_eq!(s.of(lex.text()), b"a b");
        assert_eq!(lex.integer("i")?, (7, 33));
        assert_eq!(lex.peek()?, None);
        Ok(())
    }

    /// `parse_f32` gives what `fast_float2` gives reading to `f32` directly: on the numbers
    /// where reading to `f64` and rounding lands elsewhere (an `f32`'s shortest text that
    /// reads to a halfway `f64`), outside the normal range, and on exporters' ten decimals.
    #[test]
    fn floats_round_once_to_f32() {
        let direct = |text: &str| fast_float2::parse_partial::<f32, _>(text.as_bytes()).ok();
        // 0x15ae43fd's shortest text reads to the `f64` halfway between it and the next `f32`.
        let halfway = "0.00000000000000000000000007038531";
        let wide = fast_float2::parse::<f64, _>(halfway).map(|w| w as f32);
        assert_eq!(wide.map(f32::to_bits), Ok(0x15ae_43fe));
        assert_eq!(
            parse_f32(halfway.as_bytes()).map(|(v, _)| v.to_bits()),
            Some(0x15ae_43fd)
        );
        let mut texts: Vec<String> = [
            halfway,
            "7.038531e-26",
            "0",
            "-0.0000000000",
            "1.0000000000",
            "-1.0712560415",
            "0.4146470129",
            "1e-40",
            "-1.4e-45",
            "1e-46",
            "3.4028235e38",
            "3.4028236e38",
            "1e39",
            "-1e39",
            "inf",
            "nan",
            "1.5e1x",
            "-",
            ".5",
            "5.",
            "1e",
            "0x10",
        ]
        .map(String::from)
        .to_vec();
        // Exporters' ten decimals over a spread of values.
        texts.extend((0..5000u32).map(|i| format!("{:.10}", f64::from(i) * 0.7919 - 1980.0)));
        for text in &texts {
            let read = parse_f32(text.as_bytes()).map(|(v, len)| (v.to_bits(), len));
            let expected = direct(text).map(|(v, len)| (v.to_bits(), len));
            assert_eq!(read, expected, "{text}");
        }
    }

    #[test]
    fn integers_read_as_i64_from_str_reads_their_token() {
        let words = [
            "0",
            "7",
            "-0",
            "-12",
            "+5",
            "-",
            "+",
            "007",
            "12a",
            "12/3",
            "1.5",
            "--1",
            "+-1",
            "-+1",
            "++1",
            "0x10",
            "1e5",
            "1_0",
            "١",
            "123456789012345678",
            "-123456789012345678",
            "1234567890123456789",
            "9223372036854775807",
            "9223372036854775808",
            "-9223372036854775808",
            "-9223372036854775809",
            "99999999999999999999",
        ];
        for word in words {
            for after in ["", " x", "(", ")", "\"", "//c", "/*c*/", "\r\n"] {
                let text = format!("{word}{after}");
                let mut lex = Lexer::new(text.as_bytes());
                let read = lex.integer("i").map(|(v, at)| (v, at, lex.offset()));
                let expected = word.parse::<i64>();
                match (read, expected) {
                    (Ok((v, at, end)), Ok(e)) => {
                        assert_eq!((v, at, end), (e, 0, word.len() as u64), "{text:?}");
                    }
                    (
                        Err(Error::Text {
                            problem, offset, ..
                        }),
                        Err(_),
                    ) => {
                        assert_eq!((problem, offset), (Problem::Number, 0), "{text:?}");
                    }
                    (read, expected) => panic!("{text:?}: {read:?} against {expected:?}"),
                }
            }
        }
    }

    #[test]
    fn a_head_is_matched_only_as_writers_print_it() -> Result<()> {
        let pad = "                ";
        for (text, matched) in [
            ("vert 7 (", true),
            ("\r\n\tVeRt\t7\n", true),
            ("/* c */ vert 7)", true),
            ("vert 7//c", false),
            ("vert  7 ", false),
            ("vert 07 ", false),
            ("vert +7 ", false),
            ("vert 8 ", false),
            ("vert 70 ", false),
            ("vert 7x ", false),
            ("verts 7 ", false),
            ("vertx7 ", false),
            ("\"vert\" 7 ", false),
        ] {
            let mut head = Head::new("vert");
            for _ in 0..7 {
                head.advance();
            }
            let padded = format!("{text}{pad}");
            let mut lex = Lexer::new(padded.as_bytes());
            let start = lex.next_offset()?;
            assert_eq!(lex.head(&head)?, matched, "{text:?}");
            let end = if matched { start + 6 } else { start };
            assert_eq!(lex.offset(), end, "{text:?}");
        }
        // Too near the end to compare words: left to the token readers.
        assert!(!Lexer::new(b"vert 7 ").head(&Head::new("vert"))?);
        Ok(())
    }

    #[test]
    fn a_head_counts_its_index_in_decimal() -> Result<()> {
        let mut head = Head::new("tri");
        for i in 0..100_200usize {
            assert_eq!(head.index(), i);
            if i % 997 == 0 || i.to_string().ends_with('9') || i.to_string().ends_with('0') {
                let text = format!("tri {i} 1 2 3                ");
                let mut lex = Lexer::new(text.as_bytes());
                assert!(lex.head(&head)?, "{i}");
                assert_eq!(lex.integer("x")?.0, 1);
            }
            head.advance();
        }
        // Eight digits are matched; nine are left to the token readers.
        let mut head = Head::new("tri");
        head.set(99_999_999);
        assert!(Lexer::new(b"tri 99999999 1 2 3      ").head(&head)?);
        head.advance();
        assert_eq!(head.index(), 100_000_000);
        assert!(!Lexer::new(b"tri 100000000 1 2 3     ").head(&head)?);
        // A keyword of other bytes than letters is never matched.
        assert!(!Lexer::new(b"tr1 0 1 2 3             ").head(&Head::new("tr1"))?);
        Ok(())
    }

    #[test]
    fn a_keyword_is_accepted_only_as_a_whole_token() -> Result<()> {
        for (text, accepted) in [
            ("vert 0", true),
            ("VERT(", true),
            ("vert//c", true),
            ("vert/*c*/", true),
            ("vert", true),
            ("  \tvert\r\n", true),
            ("vertx", false),
            ("vert/x", false),
            ("ver", false),
            ("\"vert\"", false),
        ] {
            let mut lex = Lexer::new(text.as_bytes());
            let start = lex.next_offset()?;
            assert_eq!(lex.accept("vert")?, accepted, "{text:?}");
            let end = if accepted { start + 4 } else { start };
            assert_eq!(lex.offset(), end, "{text:?}");
        }
        Ok(())
    }

    #[test]
    fn malformed_tokens_are_located() {
        let problem =
            |text: &[u8], f: fn(&mut Lexer<'_>) -> Result<()>| match f(&mut Lexer::new(text)) {
                Err(Error::Text {
                    line,
                    column,
                    problem,
                    ..
                }) => (line, column, problem),
                other => panic!("{other:?}"),
            };
        assert_eq!(
            problem(b"\n  \"abc\n\"", |l| l.string("s").map(drop)),
            (2, 3, Problem::UnterminatedString)
        );
        assert_eq!(
            problem(b"x /* never", |l| l.skip().and_then(|()| {
                l.pos += 1;
                l.skip()
            })),
            (1, 3, Problem::UnterminatedComment)
        );
        assert_eq!(
            problem(b"1.#QNAN", |l| l.float("f").map(drop)),
            (1, 1, Problem::Number)
        );
        assert_eq!(
            problem(b" inf", |l| l.float("f").map(drop)),
            (1, 2, Problem::NotFinite)
        );
        assert_eq!(
            problem(b"1e39", |l| l.float("f").map(drop)),
            (1, 1, Problem::NotFinite)
        );
        assert_eq!(
            problem(b"99999999999999999999", |l| l.integer("i").map(drop)),
            (1, 1, Problem::Number)
        );
        assert_eq!(
            problem(b"  ", |l| l.integer("i").map(drop)),
            (
                1,
                3,
                Problem::Expected {
                    expected: "an integer"
                }
            )
        );
    }
}
