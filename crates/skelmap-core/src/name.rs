//! Fixed-size name fields.
//!
//! Names in these formats are byte arrays that need not be NUL-terminated and need not be
//! UTF-8 (real files contain GBK and garbage). They are exposed as raw bytes trimmed at the
//! first NUL, with a lossy text helper for display; look-ups compare bytes exactly or
//! ASCII-case-insensitively, never through a text conversion.

use std::borrow::Cow;

/// `field` up to (not including) its first NUL byte, or all of it if it has none.
#[inline]
#[must_use]
pub fn trim_nul(field: &[u8]) -> &[u8] {
    match field.iter().position(|&b| b == 0) {
        Some(end) => field.get(..end).unwrap_or(field),
        None => field,
    }
}

/// `true` if the field contains a NUL terminator.
#[inline]
#[must_use]
pub(crate) fn is_terminated(field: &[u8]) -> bool {
    // Branch-free over the short fixed-size field (cheaper than a memchr call per name).
    field.iter().fold(false, |found, &b| found | (b == 0))
}

/// The name as text: as it is when it is UTF-8; else decoded as GBK when every byte decodes
/// (the code page of Chinese Windows, which MilkShape and GameStudio files written there
/// use); else with each byte that is not UTF-8 written as `\xNN`. Nothing is replaced by
/// U+FFFD, so two different names never read the same.
///
/// ```
/// use skelmap_core::name::lossy;
///
/// assert_eq!(lossy(b"head"), "head");
/// assert_eq!(lossy(&[0xCE, 0xDA, 0xB9, 0xEA]), "\u{4e4c}\u{9f9f}"); // GBK: "tortoise"
/// assert_eq!(lossy(&[b'a', 0xFF, b'b']), "a\\xFFb");
/// ```
#[must_use]
pub fn lossy(name: &[u8]) -> Cow<'_, str> {
    if let Some(text) = decoded(name) {
        return text;
    }
    let mut out = String::with_capacity(name.len() + 8);
    for chunk in name.utf8_chunks() {
        out.push_str(chunk.valid());
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02X}"));
        }
    }
    Cow::Owned(out)
}

/// The most characters of a name a message quotes whole.
const SHOWN_CHARS: usize = 200;

/// `name` as a message quotes it: whole up to 200 characters, else its first 200 and `…`, so
/// that a name of a megabyte (a glTF's names are untrusted) makes a line, not a page.
///
/// ```
/// use skelmap_core::name::shown;
///
/// assert_eq!(shown("head"), "head");
/// assert_eq!(shown(&"a".repeat(1000)), format!("{}…", "a".repeat(200)));
/// ```
#[must_use]
pub fn shown(name: &str) -> Cow<'_, str> {
    match name.char_indices().nth(SHOWN_CHARS) {
        Some((end, _)) => Cow::Owned(format!("{}…", name.get(..end).unwrap_or_default())),
        None => Cow::Borrowed(name),
    }
}

/// The name as text when it is UTF-8 or GBK (see [`lossy`]), else `None`.
#[must_use]
pub fn decoded(name: &[u8]) -> Option<Cow<'_, str>> {
    match std::str::from_utf8(name) {
        Ok(text) => Some(Cow::Borrowed(text)),
        Err(_) => encoding_rs::GBK
            .decode_without_bom_handling_and_without_replacement(name)
            .map(|text| Cow::Owned(text.into_owned())),
    }
}

/// The character encoding a file's names are in, so that a writer can store them as the
/// file stored them.
///
/// Names are bytes; [`Model::to_asset`](crate::model::Model::to_asset) decodes them to text
/// with the model's code page ([`CodePage::of`] its names) and records it as
/// [`Asset::code_page`](crate::asset::Asset::code_page); the writers encode the asset's names
/// with it, so a model saved on Chinese Windows keeps the GBK bytes its texture files and
/// names are found by, and a name that fits a fixed field in GBK is not refused for being
/// longer in UTF-8.
///
/// ```
/// use skelmap_core::name::CodePage;
///
/// let tortoise: &[u8] = &[0xCE, 0xDA, 0xB9, 0xEA]; // GBK
/// let page = CodePage::of([&b"Bip01"[..], tortoise]);
/// assert_eq!(page, CodePage::Gbk);
/// assert_eq!(page.decode(tortoise), "\u{4e4c}\u{9f9f}");
/// assert_eq!(&*page.encode("\u{4e4c}\u{9f9f}"), tortoise);
/// assert_eq!(&*CodePage::Utf8.encode("\u{4e4c}\u{9f9f}"), "\u{4e4c}\u{9f9f}".as_bytes());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CodePage {
    /// UTF-8 (and ASCII): the names are stored as their text's bytes.
    #[default]
    Utf8,
    /// GBK, the code page of Chinese Windows (936), which MilkShape, GameStudio and Half-Life
    /// models saved there use.
    Gbk,
}

impl CodePage {
    /// The code page of a file whose names are `names`: GBK when one of them is not UTF-8
    /// and is GBK, else UTF-8 (names that are neither do not decide it).
    #[must_use]
    pub fn of<'a>(names: impl IntoIterator<Item = &'a [u8]>) -> CodePage {
        let gbk = names.into_iter().any(|name| {
            !name.is_ascii()
                && std::str::from_utf8(name).is_err()
                && encoding_rs::GBK
                    .decode_without_bom_handling_and_without_replacement(name)
                    .is_some()
        });
        if gbk { CodePage::Gbk } else { CodePage::Utf8 }
    }

    /// `name` as text: decoded in this code page when it is valid there, else as [`lossy`]
    /// gives it. [`encode`](Self::encode) gives the bytes back for every name valid here,
    /// GB18030's four-byte sequences (which the GBK decoder accepts) among them.
    #[must_use]
    pub fn decode(self, name: &[u8]) -> Cow<'_, str> {
        self.decoded(name).unwrap_or_else(|| lossy(name))
    }

    /// `name` as text when it is valid in this code page, or else UTF-8 or GBK ([`decoded`]);
    /// `None` when it is none of them.
    #[must_use]
    pub fn decoded(self, name: &[u8]) -> Option<Cow<'_, str>> {
        match self {
            CodePage::Gbk if !name.is_ascii() => encoding_rs::GBK
                .decode_without_bom_handling_and_without_replacement(name)
                .map(|text| Cow::Owned(text.into_owned()))
                .or_else(|| decoded(name)),
            _ => decoded(name),
        }
    }

    /// `text` as this code page's bytes (never a substitute character). In GBK, a character
    /// GBK lacks is written as its four-byte GB18030 sequence, which [`decode`](Self::decode)
    /// reads back as the same character (Windows' code page 936 shows such a character as
    /// garbage, as it would its UTF-8 bytes); the one character GB18030 cannot encode either,
    /// U+E5E5, makes the whole name UTF-8.
    #[must_use]
    pub fn encode(self, text: &str) -> Cow<'_, [u8]> {
        match self {
            CodePage::Gbk if !text.is_ascii() => {
                let (bytes, _, unmappable) = encoding_rs::GBK.encode(text);
                if !unmappable {
                    return bytes;
                }
                let mut out = Vec::with_capacity(text.len() + 4);
                for c in text.chars() {
                    if !push_gbk(c, &mut out) {
                        return Cow::Borrowed(text.as_bytes());
                    }
                }
                Cow::Owned(out)
            }
            _ => Cow::Borrowed(text.as_bytes()),
        }
    }

    /// [`encode`](Self::encode) of the longest start of `text` (whole characters) that is
    /// at most `max` bytes so encoded. One pass over `text`, however long (a glTF node's
    /// name is untrusted).
    #[must_use]
    pub fn encode_within(self, text: &str, max: usize) -> Vec<u8> {
        // The encoded length of each start: its UTF-8 length, or in GBK the sum of its
        // characters' sizes until one neither GBK nor GB18030 has makes it UTF-8 (`encode`
        // is per character either way).
        let (mut end, mut gbk_len, mut utf8_only) = (0, 0, self == CodePage::Utf8);
        let mut scratch = Vec::with_capacity(4);
        for (at, c) in text.char_indices() {
            let next = at + c.len_utf8();
            if !utf8_only {
                scratch.clear();
                utf8_only = !push_gbk(c, &mut scratch);
                gbk_len += scratch.len();
            }
            if (if utf8_only { next } else { gbk_len }) <= max {
                end = next;
            }
        }
        self.encode(text.get(..end).unwrap_or_default())
            .into_owned()
    }

    /// The code page's name, as users know it (`"UTF-8"`, `"GBK"`).
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            CodePage::Utf8 => "UTF-8",
            CodePage::Gbk => "GBK",
        }
    }
}

/// Appends `c` in GBK, as GBK's one or two bytes where it has the character (the euro sign
/// is GBK's 0x80, GB18030's A2 E3), else as its four-byte GB18030 sequence; `false`, with
/// nothing appended, for U+E5E5, which neither encodes.
fn push_gbk(c: char, out: &mut Vec<u8>) -> bool {
    let mut utf8 = [0u8; 4];
    let one = c.encode_utf8(&mut utf8);
    let (gbk, _, unmappable) = encoding_rs::GBK.encode(one);
    if !unmappable {
        out.extend_from_slice(&gbk);
        return true;
    }
    let (wide, _, unmappable) = encoding_rs::GB18030.encode(one);
    if !unmappable {
        out.extend_from_slice(&wide);
    }
    !unmappable
}

/// Names handed out without repeats: a name is taken once, and a stem already taken gets
/// the first number from 2 on that is free (`idle`, `idle_2`, …). Each stem's numbers are
/// tried once over the whole run, so naming many things alike (a file's thousands of frames
/// or clips of one name, which are untrusted) costs their count, not its square.
#[derive(Debug, Default)]
pub(crate) struct Unique {
    /// The names taken, as compared (ASCII lower case when `fold`).
    taken: std::collections::HashSet<String>,
    /// Per stem (as compared), the last number tried.
    tried: std::collections::HashMap<String, u64>,
    /// Between a stem and its number.
    separator: &'static str,
    /// Whether names equal but for ASCII case are the same name.
    fold: bool,
}

impl Unique {
    /// Nothing taken yet; numbers after `separator`, names compared exactly or (`fold`)
    /// ignoring ASCII case.
    pub(crate) fn new(separator: &'static str, fold: bool) -> Unique {
        Unique {
            separator,
            fold,
            ..Unique::default()
        }
    }

    fn key(&self, name: &str) -> String {
        if self.fold {
            name.to_ascii_lowercase()
        } else {
            name.to_string()
        }
    }

    /// Takes `name` as it is; `false` when it was taken already.
    pub(crate) fn take(&mut self, name: &str) -> bool {
        let key = self.key(name);
        self.taken.insert(key)
    }

    /// `stem` when it is free, else `stem`, the separator and the first number from 2 on
    /// that makes a free name; taken from now on.
    pub(crate) fn free(&mut self, stem: &str) -> String {
        let key = self.key(stem);
        if self.taken.insert(key.clone()) {
            return stem.to_string();
        }
        let mut n = self.tried.get(&key).copied().unwrap_or(1);
        loop {
            n += 1;
            let name = format!("{stem}{}{n}", self.separator);
            if self.taken.insert(self.key(&name)) {
                self.tried.insert(key, n);
                return name;
            }
        }
    }
}

/// Index of the first name equal to `wanted`, comparing bytes exactly or ignoring ASCII case.
pub(crate) fn position<'a>(
    names: impl Iterator<Item = &'a [u8]>,
    wanted: &[u8],
    ignore_ascii_case: bool,
) -> Option<usize> {
    let mut names = names;
    if ignore_ascii_case {
        names.position(|n| n.eq_ignore_ascii_case(wanted))
    } else {
        names.position(|n| n == wanted)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trims_at_first_nul_only() {
        assert_eq!(trim_nul(b"abc\0def\0"), b"abc");
        assert_eq!(trim_nul(b"full"), b"full");
        assert_eq!(trim_nul(b"\0"), b"");
        assert!(is_terminated(b"a\0"));
        assert!(!is_terminated(b"ab"));
    }

    #[test]
    fn lossy_decodes_gbk_and_escapes_the_rest() {
        assert_eq!(lossy(b"ok"), "ok");
        // GBK for "you" (你): not UTF-8, a GBK pair.
        assert_eq!(lossy(&[0xC4, 0xE3]), "\u{4F60}");
        assert_eq!(decoded(&[0xC4, 0xE3]).as_deref(), Some("\u{4F60}"));
        // A lead byte with no trail byte is neither.
        assert_eq!(lossy(&[b'x', 0xC4]), "x\\xC4");
        assert_eq!(decoded(&[b'x', 0xC4]), None);
        assert_eq!(lossy(&[0xFF, b'y']), "\\xFFy");
    }

    #[test]
    fn a_code_page_gives_back_the_bytes_it_decoded() {
        let gbk: &[u8] = &[0xC4, 0xE3, b'_', 0xBA, 0xC3]; // 你_好
        assert_eq!(CodePage::of([&b"root"[..], gbk]), CodePage::Gbk);
        assert_eq!(
            CodePage::of([&b"root"[..], "\u{4F60}".as_bytes()]),
            CodePage::Utf8
        );
        // A name that is neither does not make a file GBK.
        assert_eq!(CodePage::of([&[b'x', 0xC4][..]]), CodePage::Utf8);
        let text = CodePage::Gbk.decode(gbk);
        assert_eq!(text, "\u{4F60}_\u{597D}");
        assert_eq!(&*CodePage::Gbk.encode(&text), gbk);
        // Bytes that are UTF-8 by chance (C3 A9: "é") are GBK in a GBK file, and come back.
        let by_chance: &[u8] = &[0xC3, 0xA9];
        assert_eq!(CodePage::Utf8.decode(by_chance), "\u{E9}");
        assert_eq!(
            &*CodePage::Gbk.encode(&CodePage::Gbk.decode(by_chance)),
            by_chance
        );
        // A character GBK lacks is written as its four GB18030 bytes, not replaced, and
        // reads back; the characters around it keep their GBK pairs (the euro sign its 0x80).
        let mixed = "\u{4F60}\u{1F600}\u{20AC}";
        let bytes = CodePage::Gbk.encode(mixed);
        assert_eq!(&*bytes, [0xC4, 0xE3, 0x94, 0x39, 0xFC, 0x36, 0x80]);
        assert_eq!(CodePage::Gbk.decode(&bytes), mixed);
        assert_eq!(CodePage::Gbk.decode(&[0x81, 0x30, 0x81, 0x30]), "\u{80}");
        assert_eq!(&*CodePage::Gbk.encode("\u{80}"), [0x81, 0x30, 0x81, 0x30]);
        // U+E5E5, which GB18030 cannot encode either, leaves the name in UTF-8.
        let lone = "\u{4F60}\u{E5E5}";
        assert_eq!(&*CodePage::Gbk.encode(lone), lone.as_bytes());
        // Cut between characters, counting the bytes as stored.
        assert_eq!(
            CodePage::Gbk.encode_within("\u{4F60}\u{597D}", 3),
            [0xC4, 0xE3]
        );
        assert_eq!(
            CodePage::Utf8.encode_within("\u{4F60}\u{597D}", 5),
            "\u{4F60}".as_bytes()
        );
        assert_eq!(CodePage::Utf8.encode_within("\u{4F60}", 2), b"");
        // A four-byte character counts four; a name made UTF-8 by U+E5E5 counts its UTF-8.
        assert_eq!(
            CodePage::Gbk.encode_within("\u{4F60}\u{1F600}\u{597D}", 7),
            [0xC4, 0xE3, 0x94, 0x39, 0xFC, 0x36]
        );
        assert_eq!(
            CodePage::Gbk.encode_within("\u{4F60}\u{E5E5}\u{597D}", 8),
            "\u{4F60}\u{E5E5}".as_bytes()
        );
        // A long name is cut in one pass (a megabyte of text cut to 31 bytes).
        let long = "\u{4F60}".repeat(1 << 18);
        assert_eq!(CodePage::Gbk.encode_within(&long, 31).len(), 30);
        assert_eq!(CodePage::Utf8.encode_within(&long, 31).len(), 30);
        // Invalid in both: escaped, as `lossy` does.
        assert_eq!(CodePage::Gbk.decode(&[b'x', 0xC4]), "x\\xC4");
        assert_eq!(CodePage::Gbk.decoded(&[b'x', 0xC4]), None);
        assert_eq!(
            CodePage::Gbk.decoded(by_chance),
            Some(CodePage::Gbk.decode(by_chance))
        );
        assert_eq!(CodePage::Utf8.decoded(by_chance).as_deref(), Some("\u{E9}"));
    }

    #[test]
    fn unique_names_take_the_first_number_free() {
        let mut names = Unique::new("_", true);
        assert!(names.take("idle_3"));
        assert!(!names.take("IDLE_3"));
        let got: Vec<String> = ["idle", "Idle", "idle", "idle", "walk"]
            .iter()
            .map(|n| names.free(n))
            .collect();
        assert_eq!(got, ["idle", "Idle_2", "idle_4", "idle_5", "walk"]);
        let mut exact = Unique::new("", false);
        assert_eq!(exact.free("a"), "a");
        assert_eq!(exact.free("A"), "A");
        assert_eq!(exact.free("a"), "a2");
        // Thousands of one name cost a look-up each.
        let mut many = Unique::new("_", false);
        let last = (0..100_000).map(|_| many.free("frame")).last();
        assert_eq!(last.as_deref(), Some("frame_100000"));
    }

    #[test]
    fn position_is_exact_or_ascii_case_insensitive() {
        let names: [&[u8]; 3] = [b"Root", b"spine", b"root"];
        assert_eq!(position(names.iter().copied(), b"root", false), Some(2));
        assert_eq!(position(names.iter().copied(), b"ROOT", true), Some(0));
        assert_eq!(position(names.iter().copied(), b"tail", true), None);
    }
}
