//! The morph kernel on SSE2: one vertex per 128-bit register.
//!
//! The packed `x, y, z` (and normal byte) of both frames are widened to `f32` lanes
//! `[x, y, z, _]`, blended and scaled in one register each; the normal comes from the
//! format's table of 16-byte rows, is blended and normalised (`sqrt` + division, not `rsqrt`,
//! so results match the scalar reference within 1e-6). Outputs are written as three floats
//! per vertex.
// Value-only SSE2 intrinsics are safe to call since Rust 1.87; the kernel keeps them in
// `unsafe` blocks next to the pointer loads they work on.
#![allow(unused_unsafe)]

use core::arch::x86_64::{
    __m128, __m128i, _mm_add_ps, _mm_cvtepi32_ps, _mm_div_ps, _mm_loadl_epi64, _mm_loadu_ps,
    _mm_mul_ps, _mm_set1_ps, _mm_setr_ps, _mm_setzero_si128, _mm_shuffle_ps, _mm_sqrt_ps,
    _mm_storeu_ps, _mm_sub_ps, _mm_unpacklo_epi8, _mm_unpacklo_epi16,
};

use crate::skin::morph::Unpack;

/// A packed record the SSE2 kernel can widen: its coordinates as `[x, y, z, n]` in 32-bit lanes.
pub(crate) trait Widen: Copy {
    fn widen(&self) -> __m128i;
    fn normal(&self) -> u8;
}

impl Widen for [u8; 8] {
    #[inline(always)]
    fn widen(&self) -> __m128i {
        // SAFETY: `self` is 8 readable bytes and `_mm_loadl_epi64` reads exactly 8 bytes with
        // no alignment requirement; SSE2 is part of the x86-64 baseline.
        unsafe {
            let raw = _mm_loadl_epi64(self.as_ptr().cast::<__m128i>());
            _mm_unpacklo_epi16(raw, _mm_setzero_si128())
        }
    }
    #[inline(always)]
    fn normal(&self) -> u8 {
        self[6]
    }
}

impl Widen for [u8; 4] {
    #[inline(always)]
    fn widen(&self) -> __m128i {
        let word = u32::from_le_bytes(*self);
        // SAFETY: value-only SSE2 intrinsics (no memory access); SSE2 is baseline on x86-64.
        unsafe {
            let raw = core::arch::x86_64::_mm_cvtsi32_si128(word as i32);
            let zero = _mm_setzero_si128();
            _mm_unpacklo_epi16(_mm_unpacklo_epi8(raw, zero), zero)
        }
    }
    #[inline(always)]
    fn normal(&self) -> u8 {
        self[3]
    }
}

/// Tweens `fa` → `fb` at `t` into `positions`/`normals` (the caller checks the lengths), one
/// vertex per 128-bit register.
pub(crate) fn morph_sse2<A: Widen, B: Widen>(
    fa: &[A],
    fb: &[B],
    unpack: &Unpack<'_>,
    t: f32,
    positions: &mut [[f32; 3]],
    normals: &mut [[f32; 3]],
) {
    // SAFETY: value-only SSE2 intrinsics; SSE2 is baseline on x86-64.
    let (s, o, tt) = unsafe {
        (
            _mm_setr_ps(unpack.scale[0], unpack.scale[1], unpack.scale[2], 0.0),
            _mm_setr_ps(unpack.offset[0], unpack.offset[1], unpack.offset[2], 0.0),
            _mm_set1_ps(t),
        )
    };
    for (((a, b), pos), nrm) in fa
        .iter()
        .zip(fb)
        .zip(positions.iter_mut())
        .zip(normals.iter_mut())
    {
        let na = &unpack.normals.rows()[usize::from(a.normal())];
        let nb = &unpack.normals.rows()[usize::from(b.normal())];
        let mut p = [0.0f32; 4];
        let mut q = [0.0f32; 4];
        // SAFETY: the loads read the 16-byte rows `na`, `nb` and the stores write the 16-byte
        // locals `p`, `q` (unaligned forms); the rest is value-only SSE2, baseline on x86-64.
        unsafe {
            let xa = _mm_cvtepi32_ps(a.widen());
            let xb = _mm_cvtepi32_ps(b.widen());
            let blend = _mm_add_ps(xa, _mm_mul_ps(tt, _mm_sub_ps(xb, xa)));
            _mm_storeu_ps(p.as_mut_ptr(), _mm_add_ps(_mm_mul_ps(s, blend), o));
            let va = _mm_loadu_ps(na.as_ptr());
            let vb = _mm_loadu_ps(nb.as_ptr());
            let m = _mm_add_ps(va, _mm_mul_ps(tt, _mm_sub_ps(vb, va)));
            _mm_storeu_ps(
                q.as_mut_ptr(),
                _mm_div_ps(m, _mm_sqrt_ps(hsum3(_mm_mul_ps(m, m)))),
            );
        }
        *pos = [p[0], p[1], p[2]];
        *nrm = if q.iter().take(3).all(|c| c.is_finite()) {
            [q[0], q[1], q[2]]
        } else {
            [0.0, 0.0, 1.0]
        };
    }
}

/// `x + y + z` of `[x, y, z, _]`, broadcast to every lane.
#[inline(always)]
fn hsum3(v: __m128) -> __m128 {
    // SAFETY: value-only SSE2 shuffles and adds; SSE2 is baseline on x86-64.
    unsafe {
        let x = _mm_shuffle_ps::<0b00_00_00_00>(v, v);
        let y = _mm_shuffle_ps::<0b01_01_01_01>(v, v);
        let z = _mm_shuffle_ps::<0b10_10_10_10>(v, v);
        _mm_add_ps(_mm_add_ps(x, y), z)
    }
}
