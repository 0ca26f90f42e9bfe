//! The instruction-set level the skinning kernels run at, detected once at run time.

use std::sync::OnceLock;

/// An instruction-set level of the SIMD kernels.
///
/// [`SimdLevel::detect`] picks the best one the CPU supports; any lower level can be requested
/// explicitly (tests compare every level against the scalar reference, benches compare them
/// in one run). Requesting a level the CPU lacks runs the best supported one instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SimdLevel {
    /// Plain Rust (whatever the compiler's baseline gives: SSE2 on x86-64, NEON on AArch64).
    Portable,
    /// x86-64 AVX2 with FMA: 8 lanes, `vpermps` look-ups for palettes up to 16 bones.
    Avx2,
    /// x86-64 AVX-512F: 16 lanes, `vpermps`/`vpermt2ps` look-ups for palettes up to 32 bones.
    Avx512,
}

impl SimdLevel {
    /// Every level, lowest first.
    pub const ALL: [SimdLevel; 3] = [SimdLevel::Portable, SimdLevel::Avx2, SimdLevel::Avx512];

    /// The best level this CPU supports (detected on first use, then cached).
    ///
    /// ```
    /// use skelmap_core::skin::SimdLevel;
    /// let level = SimdLevel::detect();
    /// assert!(level.is_supported());
    /// println!("skinning with {}", level.name());
    /// ```
    #[must_use]
    pub fn detect() -> SimdLevel {
        static LEVEL: OnceLock<SimdLevel> = OnceLock::new();
        *LEVEL.get_or_init(|| {
            SimdLevel::ALL
                .into_iter()
                .rev()
                .find(|l| l.is_supported())
                .unwrap_or(SimdLevel::Portable)
        })
    }

    /// Whether this CPU can run the level.
    #[must_use]
    pub fn is_supported(self) -> bool {
        match self {
            SimdLevel::Portable => true,
            #[cfg(target_arch = "x86_64")]
            SimdLevel::Avx2 => {
                std::arch::is_x86_feature_detected!("avx2")
                    && std::arch::is_x86_feature_detected!("fma")
            }
            #[cfg(target_arch = "x86_64")]
            SimdLevel::Avx512 => {
                std::arch::is_x86_feature_detected!("avx512f") && SimdLevel::Avx2.is_supported()
            }
            #[cfg(not(target_arch = "x86_64"))]
            _ => false,
        }
    }

    /// `self` if supported, else the best supported level below it.
    #[must_use]
    pub fn or_supported(self) -> SimdLevel {
        if self.is_supported() {
            self
        } else {
            SimdLevel::detect().min(self)
        }
    }

    /// A short name for reports (`portable`, `avx2`, `avx512`).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            SimdLevel::Portable => "portable",
            SimdLevel::Avx2 => "avx2",
            SimdLevel::Avx512 => "avx512",
        }
    }
}

impl std::fmt::Display for SimdLevel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
