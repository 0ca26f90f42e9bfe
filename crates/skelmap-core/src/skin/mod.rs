//! Every skinning kernel, blind to formats.
//!
//! The linear-blend kernels compute `pos = Σ M_b · (origin, influence)` and
//! `nrm = Σ R_b · normal` per vertex over pre-weighted records (a
//! [`SkeletalMesh`](crate::pose::SkeletalMesh)):
//!
//! - [`skin_scalar`]: the obviously correct reference the others are tested against;
//! - [`skin_stream`]: straight over the mapped records in file order, no preparation (one
//!   32-byte record per AVX2 register, a big-endian file byte-swapped with one shuffle);
//! - [`PreparedMesh`]: records regrouped once into 16-lane structure-of-arrays blocks
//!   bucketed by influence count, then skinned with AVX-512 or AVX2 (bones looked up with
//!   in-register permutes up to 64 / 16 bones, gathers above), in original or prepared
//!   vertex order, split over rayon threads when each thread gets at least
//!   [`PARALLEL_MIN_VERTICES`] (in runs of [`CHUNK_VERTICES`]-vertex chunks);
//!   [`skin_batch`] skins many instances across threads;
//! - [`CompactMesh`]: each vertex's influences folded once into one bind-space vertex
//!   (quantised position and normal, narrow bones and weights: about a quarter of the
//!   prepared layout's bytes), skinned with `world · reference⁻¹`; vertices whose influences
//!   disagree stay on the exact path;
//! - [`dqs::skin_dqs`]: dual-quaternion blending relative to the frame-0 bind pose, the scalar
//!   reference; [`CompactMesh::skin_dqs`] blends the same way over the folded layout (AVX-512,
//!   portable below it).
//!
//! Meshes stored in their bind pose with up to four weighted bones per vertex
//! ([`BindPoseMesh`](crate::pose::BindPoseMesh)) are skinned by [`skin_bind_lbs`] or
//! [`skin_bind_dqs`] with the per-bone `world(t) · world(bind)⁻¹` of
//! [`Palette::relative_to`](crate::pose::Palette::relative_to).
//!
//! [`morph`] tweens vertex-animated frames (packed coordinates and a normal table).
//!
//! [`SimdLevel::detect`] picks the instruction set at run time; every kernel also takes an
//! explicit lower level. [`SkinMatrices`] is the palette in the layouts the kernels read. All
//! `std::arch` code lives in the private `x86` module.

mod bind;
pub(crate) mod blocks;
mod bounds;
pub(crate) mod compact;
pub mod dqs;
mod fork;
mod level;
mod matrices;
pub mod morph;
pub(crate) mod output;
mod prepared;
mod roofline;
mod scalar;
pub(crate) mod scan;
mod stream;
#[cfg(target_arch = "x86_64")]
mod x86;

pub use bind::{RecordsMesh, WeightedRecords, skin_bind_dqs, skin_bind_lbs, skin_bind_positions};
pub use bounds::skinned_frame_bounds;
pub use compact::{CompactMesh, FOLD_TOLERANCE, NORMAL_TOLERANCE};
pub use fork::PARALLEL_MIN_VERTICES;
pub use level::SimdLevel;
pub use matrices::SkinMatrices;
pub use output::{STREAM_MIN_BYTES, SkinnedVertex};
pub use prepared::{CHUNK_VERTICES, PreparedMesh, SkinJob, VertexOrder, skin_batch};
pub use roofline::read_pass;
pub use scalar::{SkinError, skin_scalar};
pub use stream::{skin_stream, skin_stream_vertices};

/// Samples the first `count` lanes of `keys` with nlerp as the scalar sampler does, bit for
/// bit (`rest · key` per rotation key, blended along the shorter arc and normalised;
/// `rest position + rest · key` per position key, blended linearly; the rest transform
/// alone where a joint has no keys), and appends their poses to `out`; 16 lanes a step with
/// AVX-512 where the CPU has it. `None`, with nothing appended, where it does not, or where
/// an angle lies beyond the polynomial's range (the scalar sampler's then).
pub(crate) fn keyed_nlerp(
    keys: &crate::pose::euler::KeyLanes,
    count: usize,
    out: &mut Vec<(glam::Quat, glam::Vec3A)>,
) -> Option<()> {
    #[cfg(target_arch = "x86_64")]
    {
        x86::euler::try_keyed_nlerp(keys, count, out)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (keys, count, out);
        None
    }
}

/// Blends the leading poses of two DPM frames (`a` and `b`, big-endian 3×4 matrices) at `t`
/// as `pose::sample`'s nlerp does and appends them to `out`, 16 at a time with AVX-512 where
/// the CPU has it (a last partial step too, unless it is only a few; both frames in one step
/// when they hold 2 to 8 poses); returns how many it blended (the caller blends the rest one
/// at a time).
pub(crate) fn be_poses_nlerp(
    a: &[u8],
    b: &[u8],
    t: f32,
    out: &mut Vec<(glam::Quat, glam::Vec3A)>,
) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        x86::pose::try_be_poses_nlerp(a, b, t, out)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (a, b, t, out);
        0
    }
}

/// Appends the leading poses of `bytes` (DPM's big-endian 3×4 matrices, 48 bytes each) to
/// `out` as unit quaternions and translations, 16 at a time with AVX-512 where the CPU has it
/// (a last partial step too, unless it is only a few); returns how many it converted (the
/// caller converts the rest one at a time).
pub(crate) fn be_poses(bytes: &[u8], out: &mut Vec<(glam::Quat, glam::Vec3A)>) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        x86::pose::try_be_poses(bytes, out)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (bytes, out);
        0
    }
}
