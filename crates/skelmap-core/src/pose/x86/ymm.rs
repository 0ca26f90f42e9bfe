//! The 256-bit shuffles the AVX2 passes share: records of 8 floats to rows of 8 lanes and
//! back, and a 4×4 transpose within each 128-bit half.

use core::arch::x86_64::{
    __m256, _mm256_castpd_ps, _mm256_castps_pd, _mm256_permute2f128_ps, _mm256_shuffle_ps,
    _mm256_unpackhi_pd, _mm256_unpackhi_ps, _mm256_unpacklo_pd, _mm256_unpacklo_ps,
};

/// The 4×4 transpose of each 128-bit half of four vectors: lane `j` of output `r` (in
/// either half) is lane `r` of input `j` (in that half).
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn transpose_halves(v: [__m256; 4]) -> [__m256; 4] {
    let (t0, t1) = (
        _mm256_unpacklo_ps(v[0], v[1]),
        _mm256_unpackhi_ps(v[0], v[1]),
    );
    let (t2, t3) = (
        _mm256_unpacklo_ps(v[2], v[3]),
        _mm256_unpackhi_ps(v[2], v[3]),
    );
    let [t0, t1, t2, t3] = [t0, t1, t2, t3].map(|t| _mm256_castps_pd(t));
    [
        _mm256_castpd_ps(_mm256_unpacklo_pd(t0, t2)),
        _mm256_castpd_ps(_mm256_unpackhi_pd(t0, t2)),
        _mm256_castpd_ps(_mm256_unpacklo_pd(t1, t3)),
        _mm256_castpd_ps(_mm256_unpackhi_pd(t1, t3)),
    ]
}

/// The 8×8 transpose: lane `j` of output `r` is lane `r` of input `j` (rows to records, or
/// records to rows).
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn transpose8(v: [__m256; 8]) -> [__m256; 8] {
    let (t0, t1) = (
        _mm256_unpacklo_ps(v[0], v[1]),
        _mm256_unpackhi_ps(v[0], v[1]),
    );
    let (t2, t3) = (
        _mm256_unpacklo_ps(v[2], v[3]),
        _mm256_unpackhi_ps(v[2], v[3]),
    );
    let (t4, t5) = (
        _mm256_unpacklo_ps(v[4], v[5]),
        _mm256_unpackhi_ps(v[4], v[5]),
    );
    let (t6, t7) = (
        _mm256_unpacklo_ps(v[6], v[7]),
        _mm256_unpackhi_ps(v[6], v[7]),
    );
    // `front[k]`: inputs 0–3 at lanes k and k + 4; `back[k]`: inputs 4–7.
    let front = [
        _mm256_shuffle_ps::<0x44>(t0, t2),
        _mm256_shuffle_ps::<0xEE>(t0, t2),
        _mm256_shuffle_ps::<0x44>(t1, t3),
        _mm256_shuffle_ps::<0xEE>(t1, t3),
    ];
    let back = [
        _mm256_shuffle_ps::<0x44>(t4, t6),
        _mm256_shuffle_ps::<0xEE>(t4, t6),
        _mm256_shuffle_ps::<0x44>(t5, t7),
        _mm256_shuffle_ps::<0xEE>(t5, t7),
    ];
    core::array::from_fn(|r| {
        let (f, b) = (front[r % 4], back[r % 4]);
        if r < 4 {
            _mm256_permute2f128_ps::<0x20>(f, b)
        } else {
            _mm256_permute2f128_ps::<0x31>(f, b)
        }
    })
}
