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

/// The name as text, with invalid UTF-8 replaced by U+FFFD.
#[inline]
#[must_use]
pub fn lossy(name: &[u8]) -> Cow<'_, str> {
    String::from_utf8_lossy(name)
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
    fn lossy_replaces_invalid_utf8() {
        assert_eq!(lossy(b"ok"), "ok");
        assert_eq!(lossy(&[0xC4, 0xE3]), "\u{FFFD}\u{FFFD}");
    }

    #[test]
    fn position_is_exact_or_ascii_case_insensitive() {
        let names: [&[u8]; 3] = [b"Root", b"spine", b"root"];
        assert_eq!(position(names.iter().copied(), b"root", false), Some(2));
        assert_eq!(position(names.iter().copied(), b"ROOT", true), Some(0));
        assert_eq!(position(names.iter().copied(), b"tail", true), None);
    }
}
