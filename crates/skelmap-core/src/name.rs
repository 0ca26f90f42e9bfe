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
    fn position_is_exact_or_ascii_case_insensitive() {
        let names: [&[u8]; 3] = [b"Root", b"spine", b"root"];
        assert_eq!(position(names.iter().copied(), b"root", false), Some(2));
        assert_eq!(position(names.iter().copied(), b"ROOT", true), Some(0));
        assert_eq!(position(names.iter().copied(), b"tail", true), None);
    }
}
