//! Validation's scan of unsigned little-endian fields in records of a fixed stride (AVX-512F
//! and BW): every field of every record compared with its own maximum, as many whole records
//! a step as one register holds. GameStudio and Quake frames (normal indices), triangles
//! (vertex and texture indices) and texture coordinates.
//!
//! A step's lanes are the record's fields repeated record by record, so one table of maxima
//! (and one mask of the lanes that have a maximum) serves every step. Lanes past the step's
//! last whole record are masked off; the last step loads only the bytes left, and a lane
//! loaded as zero passes any maximum.

use core::arch::x86_64::{
    __m256i, __m512i, _mm256_max_epu8, _mm256_max_epu16, _mm256_max_epu32, _mm256_or_si256,
    _mm256_testz_si256, _mm256_xor_si256, _mm512_loadu_si512, _mm512_mask_cmpgt_epu8_mask,
    _mm512_mask_cmpgt_epu16_mask, _mm512_mask_cmpgt_epu32_mask, _mm512_maskz_loadu_epi8,
};

/// The scan of records of `stride` bytes whose fields are `W` bytes wide.
#[derive(Debug, Clone)]
pub(crate) struct FieldScan<const W: usize> {
    /// Each lane's maximum, little-endian: the record's fields, record after record; every
    /// bit set in the lanes without one (AVX2 compares every lane).
    max: [u8; 64],
    /// The lanes that have a maximum: whole records' fields whose maximum is below the
    /// field's largest value.
    checked: u64,
    /// The bytes of the records one step covers.
    step: usize,
}

impl<const W: usize> FieldScan<W> {
    /// The scan of records of `max.len() · W` bytes (1 to 64), field `k` at most `max[k]`
    /// (`u32::MAX`, or any value the field's width cannot exceed, leaves it unchecked); `None`
    /// when `W` is not 1, 2 or 4 or the stride is out of range. A constant where `max` is.
    ///
    /// Always inlined: built out of line, the table was written a byte at a time and then
    /// copied out of the call's frame sixteen bytes at a time, and those loads stalled on
    /// store forwarding (`perf annotate` puts the stall on the first instruction after such
    /// a load). Opening builds these scans from the model's counts, so the cost shows most on
    /// small files: the `open/mdl_libgs_mdl2-bush` row (a 20 kB MDL2) of
    /// `benches/open_validate.rs`.
    #[inline(always)]
    pub(crate) const fn new(max: &[u32]) -> Option<Self> {
        let stride = max.len() * W;
        if !matches!(W, 1 | 2 | 4) || stride == 0 || stride > 64 {
            return None;
        }
        let step = 64 / stride * stride;
        let largest = u32::MAX >> (32 - 8 * W);
        let mut scan = FieldScan {
            max: [u8::MAX; 64],
            checked: 0,
            step,
        };
        // Lane `lane` holds field `field` of its record (no division: a scan of triangle
        // corners is built on every open).
        let (mut lane, mut field) = (0, 0);
        while lane * W < step {
            let m = max[field];
            if m < largest {
                scan.checked |= 1 << lane;
                let mut b = 0;
                while b < W {
                    scan.max[lane * W + b] = (m >> (8 * b)) as u8;
                    b += 1;
                }
            }
            lane += 1;
            field = if field + 1 == max.len() { 0 } else { field + 1 };
        }
        Some(scan)
    }

    /// Whether any field of the records of `bytes` (whole records, as a slice of them gives;
    /// the fields of a partial one at the end are not all checked) is above its maximum;
    /// `None` when the CPU lacks AVX-512 (F and BW) and AVX2.
    pub(crate) fn try_any_above(&self, bytes: &[u8]) -> Option<bool> {
        if supported() {
            // SAFETY: the CPU was just found to support AVX-512F and BW, and `new` made `W`
            // 1, 2 or 4.
            Some(unsafe { self.any_above(bytes) })
        } else {
            self.try_any_above_avx2(bytes)
        }
    }

    /// [`FieldScan::try_any_above`] on AVX2, whatever else the CPU has; `None` without it.
    pub(crate) fn try_any_above_avx2(&self, bytes: &[u8]) -> Option<bool> {
        // SAFETY: the CPU was just found to support AVX2.
        super::avx2().then(|| unsafe { self.any_above_avx2(bytes) })
    }

    /// [`FieldScan::try_any_above`] of several tables at once, in one call (a model's frames:
    /// the per-call costs, paid per frame, were most of a scan of short frames).
    pub(crate) fn try_any_above_each<'a>(
        &self,
        tables: impl Iterator<Item = &'a [u8]>,
    ) -> Option<bool> {
        if supported() {
            // SAFETY: as in `try_any_above`.
            Some(unsafe { self.any_above_each(tables) })
        } else {
            // SAFETY: as in `try_any_above_avx2`.
            super::avx2().then(|| unsafe { self.any_above_each_avx2(tables) })
        }
    }

    /// # Safety
    ///
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    unsafe fn any_above_each_avx2<'a>(&self, tables: impl Iterator<Item = &'a [u8]>) -> bool {
        tables.fold(false, |any, table| {
            // SAFETY: the caller's promise is `any_above_avx2`'s.
            any | unsafe { self.any_above_avx2(table) }
        })
    }

    /// [`FieldScan::any_above`] in two 32-byte halves a step: a lane is above its maximum
    /// where the unsigned maximum of the two is not the maximum itself. The lanes without a
    /// maximum have every bit set, and the zeros after the end of the last partial step
    /// pass any maximum.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX2.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn any_above_avx2(&self, bytes: &[u8]) -> bool {
        let max = super::halves(&self.max);
        let above = |v: __m256i, max: __m256i| {
            let top = match W {
                1 => _mm256_max_epu8(v, max),
                2 => _mm256_max_epu16(v, max),
                _ => _mm256_max_epu32(v, max),
            };
            _mm256_xor_si256(top, max)
        };
        let test = |[a, b]: [__m256i; 2]| _mm256_or_si256(above(a, max[0]), above(b, max[1]));
        let (mut any, offset) = super::strided_halves(bytes, self.step, test);
        // Fewer than 64 bytes are left: at most one step's records.
        if let Some(rest) = bytes.get(offset..).filter(|rest| !rest.is_empty()) {
            any = _mm256_or_si256(any, test(super::halves(&super::padded(rest))));
        }
        _mm256_testz_si256(any, any) == 0
    }

    /// # Safety
    ///
    /// As [`FieldScan::any_above`].
    #[target_feature(enable = "avx512f,avx512bw")]
    unsafe fn any_above_each<'a>(&self, tables: impl Iterator<Item = &'a [u8]>) -> bool {
        // SAFETY: the caller's promise is `any_above`'s.
        tables.fold(false, |any, table| any | unsafe { self.any_above(table) })
    }

    /// One register a step, the failing lanes of every step folded into one answer.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX-512F and BW, and `W` must be 1, 2 or 4.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    unsafe fn any_above(&self, bytes: &[u8]) -> bool {
        // SAFETY: `max` is 64 bytes, and an unaligned load reads exactly those.
        let max = unsafe { _mm512_loadu_si512(self.max.as_ptr().cast()) };
        let above = |v: __m512i, lanes: u64| -> u64 {
            match W {
                1 => _mm512_mask_cmpgt_epu8_mask(lanes, v, max),
                2 => _mm512_mask_cmpgt_epu16_mask(lanes as u32, v, max).into(),
                _ => _mm512_mask_cmpgt_epu32_mask(lanes as u16, v, max).into(),
            }
        };
        let (step, checked) = (self.step, self.checked);
        let len = bytes.len();
        let at = |offset: usize| bytes.as_ptr().wrapping_add(offset).cast::<__m512i>();
        let (mut above_max, offset) = super::strided_registers(bytes, step, |v| above(v, checked));
        // Fewer than 64 bytes are left: at most one step's records.
        let rest = len.saturating_sub(offset);
        if rest > 0 {
            // SAFETY: the enabled bytes are `offset..len` (fewer than 64), within `bytes`, and
            // a masked load reads no other memory; the others load as zero, which passes any
            // maximum.
            let v = unsafe { _mm512_maskz_loadu_epi8((1u64 << rest) - 1, at(offset).cast()) };
            above_max |= above(v, checked);
        }
        above_max != 0
    }
}

fn supported() -> bool {
    is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512bw")
}
