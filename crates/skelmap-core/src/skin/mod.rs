//! Every skinning kernel, blind to formats.
//!
//! The linear-blend kernels compute `pos = Σ M_b · (origin, influence)` and
//! `nrm = Σ R_b · normal` per vertex over pre-weighted records (a
//! [`SkeletalMesh`](crate::pose::SkeletalMesh)):
//!
//! - [`scalar`](fn@scalar): the obviously correct reference the others are tested against;
//! - [`stream`](fn@stream): straight over the mapped records in file order, no preparation (a
//!   32-byte record per 256-bit register, a one-influence vertex in a 512-bit one with
//!   AVX-512; big-endian records byte-swapped with one shuffle); [`Records`] holds a mesh's
//!   records of either byte order for it and the others;
//! - [`PreparedMesh`]: records regrouped once into 16-lane structure-of-arrays blocks
//!   bucketed by influence count, then skinned with AVX-512 or AVX2 (bones looked up with
//!   in-register permutes up to 128 / 16 bones, gathers above), in original or prepared
//!   vertex order, split over rayon threads when each thread gets at least
//!   [`PARALLEL_MIN_VERTICES`] (in runs of [`CHUNK_VERTICES`]-vertex chunks);
//!   [`batch`] skins many instances across threads;
//! - [`CompactMesh`]: each vertex's influences folded once into one bind-space vertex
//!   (quantised position and normal, narrow bones and weights: about a quarter of the
//!   prepared layout's bytes), skinned with `world · reference⁻¹`; vertices whose influences
//!   disagree stay on the exact path;
//! - [`dqs::skin_dqs`]: dual-quaternion blending relative to the frame-0 bind pose, the scalar
//!   reference; [`CompactMesh::skin_dqs`] blends the same way over the folded layout (AVX-512,
//!   portable below it).
//!
//! Meshes stored in their bind pose with up to
//! [`MAX_BIND_INFLUENCES`](crate::pose::MAX_BIND_INFLUENCES) weighted bones per vertex
//! ([`BindPoseMesh`](crate::pose::BindPoseMesh)) are skinned by [`bind_lbs`] or
//! [`bind_dqs`] with the per-bone `world(t) · world(bind)⁻¹` of
//! [`Palette::relative_to`](crate::pose::Palette::relative_to); [`bind_lbs`] blends a mesh that
//! gives its vertices as arrays of four byte weights (IQM) sixteen vertices a step at AVX-512.
//!
//! [`morph`] tweens vertex-animated frames (packed coordinates and a normal table).
//!
//! [`SimdLevel::detect`] picks the instruction set at run time; every kernel also takes an
//! explicit lower level. [`SkinMatrices`] is the palette in the layouts the kernels read.
//!
//! Each kernel family is a folder whose `mod.rs` holds its types, its portable code and its
//! dispatch, and whose `x86.rs` holds its `std::arch` code: `stream/`, `prepared/`,
//! `compact/` (with `fold.rs`, which builds the layout), `morph/`, `bind/`. What several kernels share
//! sits beside them: `x86.rs` (palette look-ups and interleaved stores), `blocks.rs`,
//! `output.rs` (where results go), `fork.rs` (threads), `matrices.rs`, `records.rs`.

mod bind;
pub(crate) mod blocks;
mod bounds;
pub(crate) mod compact;
pub mod dqs;
mod fork;
mod matrices;
pub mod morph;
pub(crate) mod output;
mod prepared;
mod records;
mod scalar;
mod stream;
#[cfg(target_arch = "x86_64")]
mod x86;

pub use crate::simd::SimdLevel;
pub(crate) use bind::move_rigid;
pub use bind::{WeightedRecords, bind_dqs, bind_lbs, bind_lbs_with_level, bind_positions};
pub use bounds::skinned_frame_bounds;
pub use compact::{CompactMesh, FOLD_TOLERANCE, NORMAL_TOLERANCE};
pub use fork::PARALLEL_MIN_VERTICES;
pub use matrices::SkinMatrices;
pub use output::{STREAM_MIN_BYTES, SkinnedVertex};
pub use prepared::{CHUNK_VERTICES, PreparedMesh, SkinJob, VertexOrder, batch};
pub use records::{Records, RecordsMesh};
pub use scalar::{SkinError, scalar};
pub use stream::{stream, stream_vertices};
