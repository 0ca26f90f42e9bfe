//! The checked reader: every byte a format module touches is reached through it.
//!
//! Offsets and counts from files are `u64` here and every size is computed with checked
//! arithmetic, so no format module does raw offset arithmetic of its own and no overflow can
//! turn into an out-of-bounds slice. On-disk structs are zerocopy `Unaligned` types, so any
//! offset is acceptable and the only failure is "does not fit", reported as
//! [`Error::Truncated`] with the format, the structure, the offset and the sizes.

use core::ops::Range;

use zerocopy::{FromBytes, Immutable, KnownLayout, Unaligned};

use crate::error::{Error, Problem, Result};
use crate::format::Format;

/// Types a [`Reader`] can overlay on bytes: plain old data with alignment 1.
pub(crate) trait Raw: FromBytes + KnownLayout + Immutable + Unaligned {}
impl<T: FromBytes + KnownLayout + Immutable + Unaligned> Raw for T {}

/// A bounds-checked view of `data` that reports failures for `format`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Reader<'data> {
    data: &'data [u8],
    format: Format,
}

impl<'data> Reader<'data> {
    /// A reader over `data` whose errors name `format`.
    pub(crate) fn new(data: &'data [u8], format: Format) -> Self {
        Reader { data, format }
    }

    /// The format errors are reported for.
    pub(crate) fn format(&self) -> Format {
        self.format
    }

    /// Length of the data in bytes.
    pub(crate) fn len(&self) -> u64 {
        self.data.len() as u64
    }

    /// The byte range `offset .. offset + len` if it lies inside the data.
    #[inline]
    fn range(&self, offset: u64, len: u64) -> Option<Range<usize>> {
        let end = offset.checked_add(len)?;
        if end > self.len() {
            return None;
        }
        // Both fit in usize because they are at most data.len().
        Some(offset as usize..end as usize)
    }

    /// The error for `need` bytes at `offset` that are not all there.
    #[cold]
    pub(crate) fn truncated(&self, what: &'static str, offset: u64, need: u64) -> Error {
        Error::Truncated {
            format: self.format,
            what,
            offset,
            need,
            have: self.len().saturating_sub(offset),
        }
    }

    /// Exactly the `len` bytes that follow a header of `header` bytes and end the data:
    /// [`Error::Truncated`] when fewer remain, [`Error::Invalid`] when more do.
    pub(crate) fn bytes_after_header(
        &self,
        what: &'static str,
        header: u64,
        len: u64,
    ) -> Result<&'data [u8]> {
        let bytes = self
            .get_bytes(header, len)
            .ok_or_else(|| self.truncated(what, header, len))?;
        let end = header.saturating_add(len);
        if end < self.len() {
            return Err(Error::Invalid {
                format: self.format,
                what,
                offset: end,
                problem: Problem::TrailingBytes {
                    extra: self.len() - end,
                },
            });
        }
        Ok(bytes)
    }

    /// `len` raw bytes at `offset`, or `None` (for accessors over validated data).
    #[inline]
    pub(crate) fn get_bytes(&self, offset: u64, len: u64) -> Option<&'data [u8]> {
        self.range(offset, len).and_then(|r| self.data.get(r))
    }

    /// One `T` at `offset`.
    #[inline]
    pub(crate) fn ref_at<T: Raw>(&self, what: &'static str, offset: u64) -> Result<&'data T> {
        self.get_ref(offset)
            .ok_or_else(|| self.truncated(what, offset, size_of::<T>() as u64))
    }

    /// One `T` at `offset`, or `None`.
    #[inline]
    pub(crate) fn get_ref<T: Raw>(&self, offset: u64) -> Option<&'data T> {
        let bytes = self.get_bytes(offset, size_of::<T>() as u64)?;
        T::ref_from_bytes(bytes).ok()
    }

    /// `count` consecutive `T`s at `offset`.
    #[inline]
    pub(crate) fn slice_at<T: Raw>(
        &self,
        what: &'static str,
        offset: u64,
        count: u64,
    ) -> Result<&'data [T]> {
        self.get_slice(offset, count).ok_or_else(|| {
            self.truncated(what, offset, count.saturating_mul(size_of::<T>() as u64))
        })
    }

    /// `count` consecutive `T`s at `offset`, or `None`.
    #[inline]
    pub(crate) fn get_slice<T: Raw>(&self, offset: u64, count: u64) -> Option<&'data [T]> {
        slice_in(self.data, offset, count)
    }

    /// The bytes the reader reads.
    pub(crate) fn bytes(&self) -> &'data [u8] {
        self.data
    }

    /// A sequential cursor starting at `offset`.
    pub(crate) fn walk(&self, offset: u64) -> Walk<'data> {
        let rest = usize::try_from(offset)
            .ok()
            .and_then(|o| self.data.get(o..))
            .unwrap_or_default();
        Walk {
            reader: *self,
            rest,
            beyond: offset.saturating_sub(self.len()),
        }
    }
}

/// `count` consecutive `T`s at `offset` of `data`, or `None` where they do not fit: the read
/// of validated arrays, which reports nothing (and so names no format).
#[inline]
pub(crate) fn slice_in<T: Raw>(data: &[u8], offset: u64, count: u64) -> Option<&[T]> {
    let len = count.checked_mul(size_of::<T>() as u64)?;
    let start = usize::try_from(offset).ok()?;
    let end = usize::try_from(offset.checked_add(len)?).ok()?;
    let count = usize::try_from(count).ok()?;
    <[T]>::ref_from_bytes_with_elems(data.get(start..end)?, count).ok()
}

/// A cursor that reads consecutive structures (variable-length records, packed formats).
///
/// It holds the bytes not yet read, so each read is one length comparison; the offset is
/// derived from what remains only when it is asked for (error reports, iterators).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Walk<'data> {
    reader: Reader<'data>,
    rest: &'data [u8],
    /// How far past the end of the data the walk started (0 for every in-range start).
    beyond: u64,
}

impl<'data> Walk<'data> {
    /// The offset of the next read.
    #[inline]
    pub(crate) fn offset(&self) -> u64 {
        self.reader.len() - self.rest.len() as u64 + self.beyond
    }

    /// Reads one `T` and advances past it.
    #[inline]
    pub(crate) fn read<T: Raw>(&mut self, what: &'static str) -> Result<&'data T> {
        match self.next::<T>() {
            Some(value) => Ok(value),
            None => Err(self
                .reader
                .truncated(what, self.offset(), size_of::<T>() as u64)),
        }
    }

    /// Reads `count` consecutive `T`s and advances past them.
    #[inline]
    pub(crate) fn read_slice<T: Raw>(
        &mut self,
        what: &'static str,
        count: u64,
    ) -> Result<&'data [T]> {
        match self.next_slice::<T>(count) {
            Some(values) => Ok(values),
            None => Err(self.reader.truncated(
                what,
                self.offset(),
                count.saturating_mul(size_of::<T>() as u64),
            )),
        }
    }

    /// The bytes not yet read (none when the walk started past the end).
    #[inline]
    pub(crate) fn rest(&self) -> &'data [u8] {
        if self.beyond > 0 { &[] } else { self.rest }
    }

    /// Advances past the first `n` bytes of [`rest`](Self::rest) (all of them, if fewer).
    #[inline]
    pub(crate) fn skip(&mut self, n: usize) {
        self.rest = self.rest.get(n..).unwrap_or_default();
    }

    /// Reads one `T` and advances past it, or `None` (for walks over validated data).
    #[inline]
    pub(crate) fn next<T: Raw>(&mut self) -> Option<&'data T> {
        if self.beyond > 0 {
            return None;
        }
        let (value, rest) = T::ref_from_prefix(self.rest).ok()?;
        self.rest = rest;
        Some(value)
    }

    /// Reads `count` consecutive `T`s, or `None` (for walks over validated data).
    #[inline]
    pub(crate) fn next_slice<T: Raw>(&mut self, count: u64) -> Option<&'data [T]> {
        if self.beyond > 0 {
            return None;
        }
        let count = usize::try_from(count).ok()?;
        let (values, rest) = <[T]>::ref_from_prefix_with_elems(self.rest, count).ok()?;
        self.rest = rest;
        Some(values)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use zerocopy::byteorder::{BigEndian, U32};

    const DATA: [u8; 10] = [0, 0, 0, 7, 0, 0, 0, 9, 0xAA, 0xBB];

    fn reader() -> Reader<'static> {
        Reader::new(&DATA, Format::Dpm)
    }

    #[test]
    fn ref_at_reads_and_rejects_past_end() {
        let r = reader();
        assert_eq!(
            r.ref_at::<U32<BigEndian>>("t.a", 4).map(|v| v.get()).ok(),
            Some(9)
        );
        let err = r.ref_at::<U32<BigEndian>>("t.b", 8).unwrap_err();
        assert!(matches!(
            err,
            Error::Truncated {
                what: "t.b",
                offset: 8,
                need: 4,
                have: 2,
                ..
            }
        ));
    }

    #[test]
    fn offset_past_end_reports_zero_available() {
        let err = reader().ref_at::<U32<BigEndian>>("t", 1 << 40).unwrap_err();
        assert!(matches!(
            err,
            Error::Truncated {
                offset: 1099511627776,
                have: 0,
                ..
            }
        ));
    }

    #[test]
    fn slice_at_checks_count_times_size_without_overflow() {
        let r = reader();
        assert_eq!(
            r.slice_at::<U32<BigEndian>>("t", 0, 2).map(<[_]>::len).ok(),
            Some(2)
        );
        let err = r.slice_at::<U32<BigEndian>>("t", 0, u64::MAX).unwrap_err();
        assert!(matches!(err, Error::Truncated { need: u64::MAX, .. }));
        let err = r.slice_at::<U32<BigEndian>>("t", u64::MAX, 1).unwrap_err();
        assert!(matches!(err, Error::Truncated { have: 0, .. }));
        assert!(r.get_slice::<U32<BigEndian>>(2, 3).is_none());
    }

    #[test]
    fn walk_started_past_the_end_reports_its_offset() {
        let mut w = reader().walk(14);
        assert_eq!(w.offset(), 14);
        let err = w.read::<u8>("x").unwrap_err();
        assert!(matches!(
            err,
            Error::Truncated {
                offset: 14,
                need: 1,
                have: 0,
                ..
            }
        ));
        let mut w = reader().walk(u64::MAX);
        assert!(
            w.read_slice::<u8>("x", 0).is_err(),
            "offset itself is out of range"
        );
    }

    #[test]
    fn walk_advances_and_stops_at_end() {
        let mut w = reader().walk(0);
        assert_eq!(w.read::<U32<BigEndian>>("a").map(|v| v.get()).ok(), Some(7));
        let b = w.read_slice::<U32<BigEndian>>("b", 1).ok();
        assert_eq!(b.and_then(|b| b.first()).map(|v| v.get()), Some(9));
        assert_eq!(w.offset(), 8);
        assert!(w.read::<U32<BigEndian>>("c").is_err());
        assert_eq!(w.offset(), 8, "a failed read does not advance");
        assert_eq!(w.next_slice::<u8>(2), Some(&[0xAA, 0xBB][..]));
        assert!(w.next::<u8>().is_none());
    }
}
