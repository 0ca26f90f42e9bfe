//! The bind-pose linear blend on x86-64 (AVX-512F), for meshes whose influences are four byte
//! weights a vertex ([`FourInfluences`]) and palettes of at most 128 bones: sixteen vertices a
//! step, each bone's twelve entries picked out of registers by permutes ([`Lookup`]). A larger
//! palette is left to the portable loop: gathering the entries instead is slower than it.
//!
//! Each lane computes what the portable loop computes for its vertex, operation for operation
//! (the weight `byte / 255` by a division, each transform as glam evaluates it, multiplications
//! and additions apart, never fused; the sum divided by the total), so the results are the same
//! bits. Only divisions whose results are known are left out: those of a slot no vertex of the
//! block uses, and those by totals that are all exactly 1. A block naming a bone the palette
//! lacks is left to the portable loop, which reports it.
//!
//! The same look-up moves values stored in one bone's space each (Half-Life's vertices and
//! normals) by that bone's transform, sixteen a step: [`try_rigid_avx512`].
#![allow(unsafe_code)]

use core::arch::x86_64::{
    __m512, __m512i, __mmask16, _CMP_GT_OQ, _mm_loadu_si128, _mm512_add_ps, _mm512_and_si512,
    _mm512_cmp_ps_mask, _mm512_cmpeq_epi32_mask, _mm512_cmpeq_ps_mask, _mm512_cmpge_epu32_mask,
    _mm512_cmpneq_epi32_mask, _mm512_cvtepi32_ps, _mm512_cvtepu8_epi32, _mm512_div_ps,
    _mm512_loadu_si512, _mm512_mask_add_ps, _mm512_mask_blend_ps, _mm512_mul_ps, _mm512_set1_epi32,
    _mm512_set1_ps, _mm512_setzero_ps, _mm512_setzero_si512, _mm512_srli_epi32,
};

use glam::Affine3A;
use zerocopy::byteorder::{F32, LittleEndian};

use crate::pose::FourInfluences;
use crate::skin::blocks::LANES;
use crate::skin::x86::{Lookup, load_deinterleaved, store_interleaved};

/// The most bones the kernel picks by permutes: a larger palette is blended by the portable
/// loop.
const MAX_BONES: usize = 128;

/// Runs [`lbs_four_avx512`] if the CPU supports AVX-512F (`None` otherwise).
pub(super) fn try_lbs_four_avx512(
    arrays: FourInfluences<'_>,
    deltas: &[Affine3A],
    positions: &mut [[f32; 3]],
    normals: Option<&mut [[f32; 3]]>,
) -> Option<usize> {
    if is_x86_feature_detected!("avx512f") {
        // SAFETY: the CPU was just found to support AVX-512F, the only feature
        // `lbs_four_avx512` enables and its only precondition.
        Some(unsafe { lbs_four_avx512(arrays, deltas, positions, normals) })
    } else {
        None
    }
}

/// Blends the whole blocks of sixteen vertices from the start, as far as `positions` and
/// `normals` (when given) hold them and up to the first block naming a bone `deltas` lacks;
/// returns how many vertices it wrote.
#[target_feature(enable = "avx512f")]
fn lbs_four_avx512(
    arrays: FourInfluences<'_>,
    deltas: &[Affine3A],
    positions: &mut [[f32; 3]],
    normals: Option<&mut [[f32; 3]]>,
) -> usize {
    let bones = deltas.len();
    if bones == 0 || bones > MAX_BONES {
        return 0;
    }
    match (bones.next_multiple_of(LANES).next_power_of_two(), normals) {
        (16, Some(n)) => blocks::<0, true, 16>(arrays, &palette(deltas), bones, positions, n),
        (16, None) => blocks::<0, false, 16>(arrays, &palette(deltas), bones, positions, &mut []),
        (32, Some(n)) => blocks::<1, true, 32>(arrays, &palette(deltas), bones, positions, n),
        (32, None) => blocks::<1, false, 32>(arrays, &palette(deltas), bones, positions, &mut []),
        (64, Some(n)) => blocks::<2, true, 64>(arrays, &palette(deltas), bones, positions, n),
        (64, None) => blocks::<2, false, 64>(arrays, &palette(deltas), bones, positions, &mut []),
        (_, Some(n)) => blocks::<4, true, 128>(arrays, &palette(deltas), bones, positions, n),
        (_, None) => blocks::<4, false, 128>(arrays, &palette(deltas), bones, positions, &mut []),
    }
}

/// Runs [`rigid_avx512`] if the CPU supports AVX-512F (0, nothing written, otherwise).
pub(super) fn try_rigid_avx512(
    values: &[[F32<LittleEndian>; 3]],
    bones: &[u8],
    world: &[Affine3A],
    points: bool,
    out: &mut [[f32; 3]],
) -> usize {
    if is_x86_feature_detected!("avx512f") {
        // SAFETY: the CPU was just found to support AVX-512F, the only feature
        // `rigid_avx512` enables and its only precondition.
        unsafe { rigid_avx512(values, bones, world, points, out) }
    } else {
        0
    }
}

/// Moves the whole blocks of sixteen values from the start, as far as `bones` and `out` hold
/// them and up to the first block naming a bone `world` lacks; returns how many it wrote.
#[target_feature(enable = "avx512f")]
fn rigid_avx512(
    values: &[[F32<LittleEndian>; 3]],
    bones: &[u8],
    world: &[Affine3A],
    points: bool,
    out: &mut [[f32; 3]],
) -> usize {
    let arrays = (values, bones);
    match world.len() {
        0 => 0,
        1..=16 => rigid_blocks::<0, 16>(arrays, &palette(world), world.len(), points, out),
        17..=32 => rigid_blocks::<1, 32>(arrays, &palette(world), world.len(), points, out),
        33..=64 => rigid_blocks::<2, 64>(arrays, &palette(world), world.len(), points, out),
        65..=MAX_BONES => rigid_blocks::<4, 128>(arrays, &palette(world), world.len(), points, out),
        _ => 0,
    }
}

/// [`rigid_avx512`] with the look-up `MODE` that suits the palette's `rows`: each lane moved
/// as glam moves one value, `((x · v.x + y · v.y) + z · v.z)`, plus `t` for a point.
#[target_feature(enable = "avx512f")]
fn rigid_blocks<const MODE: u8, const PADDED: usize>(
    (values, bones): (&[[F32<LittleEndian>; 3]], &[u8]),
    rows: &[[f32; PADDED]; 12],
    count: usize,
    points: bool,
    out: &mut [[f32; 3]],
) -> usize {
    let Some(look) = Lookup::<MODE>::new(rows.as_flattened(), PADDED) else {
        return 0;
    };
    let n = values.len().min(bones.len()).min(out.len());
    let whole = n - n % LANES;
    let last = _mm512_set1_epi32(count as i32);
    let blocks = values[..whole].as_chunks::<LANES>().0.iter();
    let blocks = blocks.zip(bones[..whole].as_chunks::<LANES>().0);
    for (block, ((values, bones), out)) in blocks
        .zip(out[..whole].as_chunks_mut::<LANES>().0)
        .enumerate()
    {
        // SAFETY: 16 bytes, the width of one unaligned load.
        let idx = _mm512_cvtepu8_epi32(unsafe { _mm_loadu_si128(bones.as_ptr().cast()) });
        if _mm512_cmpge_epu32_mask(idx, last) != 0 {
            return block * LANES;
        }
        let v = load_deinterleaved(values);
        let (bone, upper) = look.index(idx);
        let m = |e: usize| look.entry(e, bone, upper);
        let [x, y, z] = [0, 1, 2].map(|c| {
            let moved = _mm512_add_ps(
                _mm512_add_ps(_mm512_mul_ps(m(c), v[0]), _mm512_mul_ps(m(3 + c), v[1])),
                _mm512_mul_ps(m(6 + c), v[2]),
            );
            if points {
                _mm512_add_ps(moved, m(9 + c))
            } else {
                moved
            }
        });
        store_interleaved(x, y, z, out);
    }
    whole
}

/// `deltas` (at most `PADDED`) as twelve rows of `PADDED` floats: row `3 · axis + c` holds
/// component `c` of axis `axis` (x, y, z, translation) of each bone, zero past the last.
fn palette<const PADDED: usize>(deltas: &[Affine3A]) -> [[f32; PADDED]; 12] {
    let mut rows = [[0.0f32; PADDED]; 12];
    for (bone, m) in deltas.iter().enumerate().take(PADDED) {
        let axes = [
            m.matrix3.x_axis,
            m.matrix3.y_axis,
            m.matrix3.z_axis,
            m.translation,
        ];
        for (axis, v) in axes.iter().enumerate() {
            for (c, value) in v.to_array().into_iter().enumerate() {
                rows[3 * axis + c][bone] = value;
            }
        }
    }
    rows
}

/// [`lbs_four_avx512`] with the look-up `MODE` that suits the palette's `rows`, with or without
/// `NORMALS`.
#[target_feature(enable = "avx512f")]
fn blocks<const MODE: u8, const NORMALS: bool, const PADDED: usize>(
    arrays: FourInfluences<'_>,
    rows: &[[f32; PADDED]; 12],
    bones: usize,
    positions: &mut [[f32; 3]],
    normals: &mut [[f32; 3]],
) -> usize {
    let Some(look) = Lookup::<MODE>::new(rows.as_flattened(), PADDED) else {
        return 0;
    };
    let mut n = arrays.positions.len().min(positions.len());
    if NORMALS {
        n = n.min(normals.len());
    }
    let whole = n - n % LANES;
    let mut done = 0;
    let (stored, indexes, weights) = (
        arrays.positions[..whole].as_chunks::<LANES>().0,
        arrays.indexes.as_chunks::<LANES>().0,
        arrays.weights.as_chunks::<LANES>().0,
    );
    let stored_normals = arrays.normals.map(|a| a.as_chunks::<LANES>().0);
    let last = _mm512_set1_epi32(bones as i32);
    let byte = _mm512_set1_epi32(0xff);
    let (one, max) = (_mm512_set1_ps(1.0), _mm512_set1_ps(255.0));
    for (block, ((stored, indexes), weights)) in stored.iter().zip(indexes).zip(weights).enumerate()
    {
        // SAFETY: 16 `[u8; 4]` are 64 bytes, the width of one unaligned load.
        let (idx, wts) = unsafe {
            (
                _mm512_loadu_si512(indexes.as_ptr().cast()),
                _mm512_loadu_si512(weights.as_ptr().cast()),
            )
        };
        // A vertex whose four weights are zero is bound wholly to its first index.
        let unweighted = _mm512_cmpeq_epi32_mask(wts, _mm512_setzero_si512());
        let slot = |k: u32, v: __m512i| _mm512_and_si512(shifted(v, k), byte);
        let mut slots = [(_mm512_setzero_si512(), _mm512_setzero_ps(), 0 as __mmask16); 4];
        let mut missing = 0;
        for (k, entry) in slots.iter_mut().enumerate() {
            let (bone, w) = (slot(k as u32, idx), slot(k as u32, wts));
            let mut active = _mm512_cmpneq_epi32_mask(w, _mm512_setzero_si512());
            // A slot no vertex of the block uses is skipped below: its division spared.
            let mut weight = if active == 0 {
                _mm512_setzero_ps()
            } else {
                _mm512_div_ps(_mm512_cvtepi32_ps(w), max)
            };
            if k == 0 {
                active |= unweighted;
                weight = _mm512_mask_blend_ps(unweighted, weight, one);
            }
            missing |= active & _mm512_cmpge_epu32_mask(bone, last);
            *entry = (bone, weight, active);
        }
        if missing != 0 {
            return block * LANES;
        }
        let p = load_deinterleaved(stored);
        let q = match stored_normals {
            Some(all) if NORMALS => all.get(block).map(|n| load_deinterleaved(n)),
            _ => None,
        }
        .unwrap_or([_mm512_setzero_ps(); 3]);
        let (mut sp, mut sn, mut total) = (
            [_mm512_setzero_ps(); 3],
            [_mm512_setzero_ps(); 3],
            _mm512_setzero_ps(),
        );
        for (bone, weight, active) in slots {
            if active == 0 {
                continue;
            }
            let (bone, upper) = look.index(bone);
            let m = |e: usize| look.entry(e, bone, upper);
            for c in 0..3 {
                // glam: ((x · p.x + y · p.y) + z · p.z) + t, and the same without `t`.
                let (x, y, z) = (m(c), m(3 + c), m(6 + c));
                let point = _mm512_add_ps(
                    _mm512_add_ps(
                        _mm512_add_ps(_mm512_mul_ps(x, p[0]), _mm512_mul_ps(y, p[1])),
                        _mm512_mul_ps(z, p[2]),
                    ),
                    m(9 + c),
                );
                sp[c] = _mm512_mask_add_ps(sp[c], active, sp[c], _mm512_mul_ps(weight, point));
                if NORMALS {
                    let vector = _mm512_add_ps(
                        _mm512_add_ps(_mm512_mul_ps(x, q[0]), _mm512_mul_ps(y, q[1])),
                        _mm512_mul_ps(z, q[2]),
                    );
                    sn[c] = _mm512_mask_add_ps(sn[c], active, sn[c], _mm512_mul_ps(weight, vector));
                }
            }
            total = _mm512_mask_add_ps(total, active, total, weight);
        }
        // The blend over its total where the vertex has weight, else the vertex as stored.
        // Where every total is exactly 1 (most blocks: byte weights that sum to 255 mostly
        // give a total of exactly 1), the division would return the sums as they are.
        let weighted = _mm512_cmp_ps_mask::<_CMP_GT_OQ>(total, _mm512_setzero_ps());
        let whole_sums = _mm512_cmpeq_ps_mask(total, one) == u16::MAX;
        let finish = |sum: [__m512; 3], stored: [__m512; 3]| {
            if whole_sums {
                return sum;
            }
            [0, 1, 2]
                .map(|c| _mm512_mask_blend_ps(weighted, stored[c], _mm512_div_ps(sum[c], total)))
        };
        let at = block * LANES;
        let [x, y, z] = finish(sp, p);
        if let Some(out) = positions[at..].first_chunk_mut::<LANES>() {
            store_interleaved(x, y, z, out);
        }
        if NORMALS {
            let [x, y, z] = finish(sn, q);
            if let Some(out) = normals[at..].first_chunk_mut::<LANES>() {
                store_interleaved(x, y, z, out);
            }
        }
        done = at + LANES;
    }
    done
}

/// Each 32-bit lane of `v` shifted right by `8 · k` bits (`k` < 4).
#[inline]
#[target_feature(enable = "avx512f")]
fn shifted(v: __m512i, k: u32) -> __m512i {
    match k {
        0 => v,
        1 => _mm512_srli_epi32::<8>(v),
        2 => _mm512_srli_epi32::<16>(v),
        _ => _mm512_srli_epi32::<24>(v),
    }
}
