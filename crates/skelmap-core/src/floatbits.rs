//! Float checks on raw file bits, without byte-swapping.
//!
//! Validation must look at every float of a file, and converting each from the file's byte
//! order first would cost more than the check. Instead the IEEE-754 masks are converted once
//! into the file's byte order (as native `u32`s) and applied to the bytes as they lie, which
//! also lets the compiler vectorise the loops. Correct on hosts of either endianness.

use zerocopy::byteorder::{ByteOrder, F32, U32};
use zerocopy::{FromBytes, Immutable, IntoBytes};

/// Whether `O` is big-endian (the scans that take a byte order as a flag).
#[inline(always)]
pub(crate) fn big_endian<O: ByteOrder>() -> bool {
    U32::<O>::new(1).to_bytes() == [0, 0, 0, 1]
}

/// The masks for floats stored in byte order `O`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Masks {
    /// All exponent bits: a float is NaN or infinite iff they are all set.
    exponent: u32,
    /// All but the sign bit: a float is ±0 iff they are all clear.
    magnitude: u32,
}

impl Masks {
    #[inline(always)]
    pub(crate) fn of<O: ByteOrder>() -> Masks {
        let in_file_order = |v: u32| u32::from_ne_bytes(U32::<O>::new(v).to_bytes());
        Masks {
            exponent: in_file_order(0x7F80_0000),
            magnitude: in_file_order(0x7FFF_FFFF),
        }
    }

    /// `true` if the raw bits are a NaN or an infinity.
    #[inline(always)]
    pub(crate) fn non_finite(self, bits: u32) -> bool {
        bits & self.exponent == self.exponent
    }

    /// `true` if the raw bits are +0 or −0.
    #[inline(always)]
    pub(crate) fn zero(self, bits: u32) -> bool {
        bits & self.magnitude == 0
    }

    /// `true` if any of `values` is NaN or infinite.
    ///
    /// One flat, branch-free pass over contiguous values: the loop the compiler vectorises best.
    #[inline]
    pub(crate) fn any_non_finite<O: ByteOrder>(self, values: &[F32<O>]) -> bool {
        values
            .iter()
            .fold(0u32, |acc, v| acc | u32::from(self.non_finite(raw(*v))))
            != 0
    }
}

/// The floats of any all-`F32<O>` record (poses, texture coordinates) as one flat slice.
#[inline]
pub(crate) fn flat<O: ByteOrder, T: IntoBytes + Immutable>(records: &[T]) -> &[F32<O>] {
    // Every such record is a whole number of 4-byte floats with alignment 1, so this cannot
    // fail; an empty slice would only make the check vacuous, never unsound.
    <[F32<O>]>::ref_from_bytes(records.as_bytes()).unwrap_or_default()
}

/// The stored bytes of a float, as a native `u32` (no byte swap).
#[inline(always)]
pub(crate) fn raw<O: ByteOrder>(v: F32<O>) -> u32 {
    u32::from_ne_bytes(v.to_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use zerocopy::{BigEndian, LittleEndian};

    fn classify<O: ByteOrder>(v: f32) -> (bool, bool) {
        let m = Masks::of::<O>();
        let bits = raw(F32::<O>::new(v));
        (m.non_finite(bits), m.zero(bits))
    }

    #[test]
    fn masks_agree_with_std_in_both_byte_orders() {
        let values = [
            0.0,
            -0.0,
            1.0,
            -1.5,
            f32::MIN_POSITIVE,
            1e-45,
            f32::MAX,
            f32::MIN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            -f32::NAN,
            f32::from_bits(0x7F80_0001),
            f32::from_bits(0xFFFF_FFFF),
        ];
        for v in values {
            let want = (!v.is_finite(), v == 0.0);
            assert_eq!(classify::<BigEndian>(v), want, "{v:?} big-endian");
            assert_eq!(classify::<LittleEndian>(v), want, "{v:?} little-endian");
        }
    }
}
