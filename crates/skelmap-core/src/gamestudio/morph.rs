//! Tweening MDL frames by index: the [`alias::tween`](crate::alias::tween) functions, which
//! every model of the alias family shares, over an [`Mdl`](super::Mdl).

pub use crate::alias::tween::{tween_scalar, tween_simd, tween_with_level};

pub use crate::skin::morph::simd_kernel_name;
