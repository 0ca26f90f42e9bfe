//! Validation's scan of unsigned little-endian fields at any byte offset of fixed-stride
//! records (AVX-512F, BW and VBMI): PSK's faces, whose 32-bit wedge indices lie at offsets
//! that are not multiples of four in every record but the first of a register (the records
//! are 18 bytes, packed).
//!
//! A step loads 64 bytes from the first byte of its records and moves each field's bytes into
//! the low bytes of a 32-bit lane with one byte permutation, which clears the lane's other
//! bytes; the lanes are then compared with their maxima at once. A step holds as many whole
//! records as fit both the 64 bytes and the sixteen lanes.

use core::arch::x86_64::{
    __m512i, _mm512_loadu_si512, _mm512_mask_cmpgt_epu32_mask, _mm512_maskz_loadu_epi8,
    _mm512_maskz_permutexvar_epi8,
};

/// A field of a record: its byte offset, its width in bytes (1 to 4) and its maximum.
pub(crate) type Field = (usize, usize, u32);

/// The scan of records of a fixed stride whose fields lie anywhere in them.
#[derive(Debug, Clone)]
pub(crate) struct PackedScan {
    /// Per byte of the permuted register, the loaded byte it takes.
    index: [u8; 64],
    /// The permuted bytes that take a field's byte (the others are cleared).
    keep: u64,
    /// Each lane's maximum.
    max: [u32; 16],
    /// The lanes holding a field of a step's records.
    lanes: u16,
    /// Records a step.
    records: usize,
    /// Bytes of a record.
    stride: usize,
}

impl PackedScan {
    /// The scan of records of `stride` bytes (1 to 64) with `fields` (each inside the record,
    /// 1 to 4 bytes wide, at most sixteen); `None` for other shapes and when the CPU lacks
    /// AVX-512F, BW or VBMI.
    pub(crate) fn new(stride: usize, fields: &[Field]) -> Option<PackedScan> {
        let shaped = (1..=64).contains(&stride)
            && (1..=16).contains(&fields.len())
            && fields
                .iter()
                .all(|&(at, width, _)| (1..=4).contains(&width) && at + width <= stride);
        if !shaped || !supported() {
            return None;
        }
        let records = (64 / stride).min(16 / fields.len());
        let mut scan = PackedScan {
            index: [0; 64],
            keep: 0,
            max: [0; 16],
            lanes: 0,
            records,
            stride,
        };
        for r in 0..records {
            for (f, &(at, width, max)) in fields.iter().enumerate() {
                let lane = r * fields.len() + f;
                scan.max[lane] = max;
                scan.lanes |= 1 << lane;
                for b in 0..width {
                    // Below 64: the record ends within the step's 64 bytes.
                    scan.index[4 * lane + b] = (r * stride + at + b) as u8;
                    scan.keep |= 1 << (4 * lane + b);
                }
            }
        }
        Some(scan)
    }

    /// Whether any field of the whole records of `bytes` is above its maximum (the fields of a
    /// partial record at the end are not checked).
    pub(crate) fn any_above(&self, bytes: &[u8]) -> bool {
        // SAFETY: `new` found the CPU to support AVX-512F, BW and VBMI.
        unsafe { self.any_above_vbmi(bytes) }
    }

    /// One register a step, the failing lanes of every step folded into one answer.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX-512F, BW and VBMI.
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
    unsafe fn any_above_vbmi(&self, bytes: &[u8]) -> bool {
        // SAFETY: each table is 64 bytes, and an unaligned load reads exactly those.
        let (index, max) = unsafe {
            (
                _mm512_loadu_si512(self.index.as_ptr().cast()),
                _mm512_loadu_si512(self.max.as_ptr().cast()),
            )
        };
        let above = |v: __m512i, lanes: u16| {
            let fields = _mm512_maskz_permutexvar_epi8(self.keep, index, v);
            _mm512_mask_cmpgt_epu32_mask(lanes, fields, max)
        };
        let step = self.records * self.stride;
        let len = bytes.len();
        let at = |offset: usize| bytes.as_ptr().wrapping_add(offset).cast::<__m512i>();
        let (mut above_max, mut offset) =
            super::strided_registers(bytes, step, |v| above(v, self.lanes).into());
        // Fewer than 64 bytes are left: a step at a time, each over the whole records left.
        let per_record = self.lanes.count_ones() as usize / self.records;
        while offset < len {
            let rest = len - offset;
            let whole = (rest / self.stride).min(self.records);
            let lanes = self.lanes & ((1u32 << (whole * per_record)) - 1) as u16;
            // SAFETY: the enabled bytes are `offset..len` (fewer than 64), within `bytes`, and
            // a masked load reads no other memory.
            let v = unsafe { _mm512_maskz_loadu_epi8((1u64 << rest) - 1, at(offset).cast()) };
            above_max |= u64::from(above(v, lanes));
            offset += step;
        }
        above_max != 0
    }
}

fn supported() -> bool {
    is_x86_feature_detected!("avx512f")
        && is_x86_feature_detected!("avx512bw")
        && is_x86_feature_detected!("avx512vbmi")
}

#[cfg(test)]
mod tests {
    use super::{Field, PackedScan};

    /// Whether any field of the whole records of `bytes` is above its maximum, one at a time.
    fn any_above_scalar(bytes: &[u8], stride: usize, fields: &[Field]) -> bool {
        bytes.chunks_exact(stride).any(|record| {
            fields.iter().any(|&(at, width, max)| {
                let field = &record[at..at + width];
                let v = field
                    .iter()
                    .rev()
                    .fold(0u32, |v, &b| (v << 8) | u32::from(b));
                v > max
            })
        })
    }

    #[test]
    fn the_packed_scan_answers_as_the_scalar_walk_at_every_record_and_length() {
        // PSK's 32-bit faces and 16-bit faces, and a record of many narrow fields.
        let shapes: [(usize, Vec<Field>); 3] = [
            (
                18,
                vec![(0, 4, 99_999), (4, 4, 99_999), (8, 4, 99_999), (12, 1, 3)],
            ),
            (12, vec![(0, 2, 700), (2, 2, 700), (4, 2, 700), (6, 1, 0)]),
            (
                7,
                vec![(0, 1, 9), (1, 3, 0x12_3456), (4, 2, u32::MAX), (6, 1, 200)],
            ),
        ];
        for (stride, fields) in shapes {
            let Some(scan) = PackedScan::new(stride, &fields) else {
                return;
            };
            for records in 0..40 {
                let mut clean = vec![0u8; records * stride];
                for (r, record) in clean.chunks_exact_mut(stride).enumerate() {
                    for &(at, width, max) in &fields {
                        // A value at or just below the maximum.
                        let v = max.saturating_sub((r % 3) as u32);
                        record[at..at + width].copy_from_slice(&v.to_le_bytes()[..width]);
                    }
                }
                assert!(!scan.any_above(&clean), "{stride}: {records} records");
                // A partial record at the end is not looked at.
                let mut tail = clean.clone();
                tail.extend(std::iter::repeat_n(0xFF, stride - 1));
                assert!(!scan.any_above(&tail));
                for r in 0..records {
                    for &(at, width, max) in &fields {
                        let Some(v) = max.checked_add(1) else {
                            continue;
                        };
                        if width < 4 && v >> (8 * width) != 0 {
                            continue;
                        }
                        let mut b = clean.clone();
                        let at = r * stride + at;
                        b[at..at + width].copy_from_slice(&v.to_le_bytes()[..width]);
                        let want = any_above_scalar(&b, stride, &fields);
                        assert!(want);
                        assert_eq!(scan.any_above(&b), want, "{stride}: record {r}, byte {at}");
                    }
                }
            }
        }
        // Shapes the scan does not take.
        assert!(PackedScan::new(0, &[(0, 1, 0)]).is_none());
        assert!(PackedScan::new(65, &[(0, 1, 0)]).is_none());
        assert!(PackedScan::new(8, &[(6, 4, 0)]).is_none());
        assert!(PackedScan::new(8, &[(0, 5, 0)]).is_none());
        assert!(PackedScan::new(8, &[]).is_none());
    }
}
