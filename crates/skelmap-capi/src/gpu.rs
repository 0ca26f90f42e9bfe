//! GPU skinning buffers: what a vertex shader reads to skin a skeletal model, built once
//! (`skelmap_gpu_mesh_new`, an explicit allocating copy; opening a model never builds it),
//! and each frame's palette (`skelmap_gpu_mesh_palette`, `skelmap_gpu_mesh_dual_quaternions`).
//!
//! A shader skins vertex `v` as
//!
//! ```text
//! M = Σₖ weightₖ / one · palette[jointₖ]     (one = 255 for unorm8, 65535 for unorm16)
//! position = M · (bind position, 1),  normal = M · (bind normal, 0)
//! ```
//!
//! over every slot of every influence set (4 slots a set; a slot of weight 0 has joint 0),
//! with each palette entry 3 rows of 4 floats. `skelmap_model_gpu_error` says how far that
//! lies from `skelmap_model_skin` over every frame.

use skelmap_core::gpu::{self, Error};

use crate::boundary::{Fail, SkelmapStatus, status};
use crate::model::SkelmapModel;
use crate::pose::SkelmapPose;

/// A model's GPU skinning buffers. Opaque to C; created by `skelmap_gpu_mesh_new`,
/// destroyed by `skelmap_gpu_mesh_free`. It owns its data (the model may be freed first) and
/// is read-only once made, so several threads may use one at once.
#[derive(Debug)]
pub struct SkelmapGpuMesh {
    mesh: gpu::Mesh,
}

/// `SkelmapGpuOptions.influences`: 4 influences, or 8 where 4 would move a vertex farther
/// than `tolerance`.
pub const SKELMAP_GPU_INFLUENCES_WITHIN: u32 = 1;

/// What to build. All zero is the default: 4 influences, unorm8 weights, the narrowest
/// joint indices.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SkelmapGpuOptions {
    /// 4 (or 0, the default) or 8 influences per vertex (one or two sets), or
    /// `SKELMAP_GPU_INFLUENCES_WITHIN`: 4, or 8 where 4 would move some vertex in some frame
    /// farther than `tolerance` from where 8 put it (which walks every frame once).
    pub influences: u32,
    /// With `SKELMAP_GPU_INFLUENCES_WITHIN`: the distance allowed, as a fraction of the
    /// diagonal of the bind-pose bounds (finite, at least 0).
    pub tolerance: f32,
    /// 8 or 0 (unorm8 weights summing to 255), or 16 (unorm16 summing to 65535).
    pub weight_bits: u32,
    /// 0 (8 bits when every palette index fits, else 16), 8 or 16.
    pub joint_bits: u32,
}

/// What `skelmap_gpu_mesh_info` reports.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SkelmapGpuMeshInfo {
    /// Vertices: elements of every per-vertex buffer.
    pub vertices: u32,
    /// Indices (3 per triangle).
    pub indices: u32,
    /// Influence sets of 4 (1 or 2).
    pub sets: u32,
    /// Bits of a joint index (8 or 16).
    pub joint_bits: u32,
    /// Bits of a weight (8 or 16).
    pub weight_bits: u32,
    /// Palette entries: the bones, then one identity for vertices bound to no bone.
    pub palette_entries: u32,
}

/// Which buffer `skelmap_gpu_mesh_buffer` gives.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SkelmapGpuBuffer {
    /// Bind-pose positions, 3 floats a vertex.
    Positions = 0,
    /// Bind-pose unit normals, 3 floats a vertex.
    Normals = 1,
    /// Texture coordinates, 2 floats a vertex (v down the image; 0 where the model has none).
    Texcoords = 2,
    /// Triangle indices, `uint32_t`.
    Indices = 3,
    /// Joint indices of set 0, 4 a vertex (`uint8_t` or `uint16_t`, `joint_bits`).
    Joints0 = 4,
    /// Weights of set 0, 4 a vertex (`uint8_t` or `uint16_t`, `weight_bits`).
    Weights0 = 5,
    /// Joint indices of set 1 (only with 2 sets).
    Joints1 = 6,
    /// Weights of set 1 (only with 2 sets).
    Weights1 = 7,
    /// Inverse bind matrices, one per palette entry, 3 rows of 4 floats each.
    InverseBinds = 8,
    /// Per vertex, the model mesh and the vertex in it it was made from: 2 `uint32_t`.
    Sources = 9,
}

/// How far the GPU buffers' skinning lies from the model's own, over every frame.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SkelmapGpuError {
    /// Largest distance of a vertex, as a fraction of `size`.
    pub max: f32,
    /// Root mean square distance, as a fraction of `size`.
    pub rms: f32,
    /// The diagonal of the bind-pose bounds.
    pub size: f32,
    /// Frames compared (1 for a model without frames: the bind pose).
    pub frames: u32,
}

impl From<Error> for Fail {
    fn from(e: Error) -> Fail {
        let status = match &e {
            Error::NotSkeletal
            | Error::NotVertexAnimated
            | Error::VertexFrames
            | Error::PoseBones { .. }
            | Error::Scale { .. } => SkelmapStatus::WrongKind,
            Error::Tolerance(_) => SkelmapStatus::InvalidArgument,
            Error::JointWidth { .. } | Error::TooManyVertices { .. } | Error::Joint { .. } => {
                SkelmapStatus::Limit
            }
            // Asset, Deform, and whatever a later version adds: impossible for a validated
            // model.
            _ => SkelmapStatus::Malformed,
        };
        Fail::new(status, e.to_string())
    }
}

/// The Rust options of `options` (NULL: the defaults).
fn options_of(options: Option<&SkelmapGpuOptions>) -> Result<gpu::Options, Fail> {
    let o = options.copied().unwrap_or_default();
    let influences = match o.influences {
        0 | 4 => gpu::Influences::Four,
        8 => gpu::Influences::Eight,
        SKELMAP_GPU_INFLUENCES_WITHIN => gpu::Influences::Within(o.tolerance),
        n => {
            return Err(Fail::invalid(format!(
                "influences {n} is not 0, 4, 8 or SKELMAP_GPU_INFLUENCES_WITHIN (1)"
            )));
        }
    };
    let precision = match o.weight_bits {
        0 | 8 => gpu::Precision::Unorm8,
        16 => gpu::Precision::Unorm16,
        n => return Err(Fail::invalid(format!("weight_bits {n} is not 0, 8 or 16"))),
    };
    let joints = match o.joint_bits {
        0 => gpu::JointWidth::Auto,
        8 => gpu::JointWidth::U8,
        16 => gpu::JointWidth::U16,
        n => return Err(Fail::invalid(format!("joint_bits {n} is not 0, 8 or 16"))),
    };
    Ok(gpu::Options {
        influences,
        precision,
        joints,
    })
}

/// Builds the GPU skinning buffers of a skeletal model (any format with bones and a mesh)
/// into `*out` (NULL on failure), as `options` asks (NULL: the defaults).
///
/// Returns `SKELMAP_STATUS_OK`, or:
/// - `SKELMAP_STATUS_NULL_PARAMETER`: `model` or `out`;
/// - `SKELMAP_STATUS_INVALID_ARGUMENT`: an option outside its values, a tolerance that is not
///   finite or below 0;
/// - `SKELMAP_STATUS_WRONG_KIND`: a model without bones, or vertex-animated;
/// - `SKELMAP_STATUS_LIMIT`: 8-bit joint indices asked of more than 255 bones, or more
///   vertices than 32-bit indices address.
///
/// # Safety
///
/// `model` is NULL or a live model; `options` is NULL or valid for one read; `out` is NULL
/// or valid for writing one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_gpu_mesh_new(
    model: Option<&SkelmapModel>,
    options: Option<&SkelmapGpuOptions>,
    out: Option<&mut *mut SkelmapGpuMesh>,
) -> SkelmapStatus {
    status(|| {
        let out = out.ok_or(Fail::null("out"))?;
        *out = std::ptr::null_mut();
        let model = model.ok_or(Fail::null("model"))?;
        let mesh = model.model.gpu_mesh(&options_of(options)?)?;
        *out = Box::into_raw(Box::new(SkelmapGpuMesh { mesh }));
        Ok(())
    })
}

/// Frees GPU buffers. NULL is allowed and does nothing. Returns nothing; it cannot fail.
///
/// # Safety
///
/// `mesh` is NULL or a pointer from `skelmap_gpu_mesh_new` not freed before; the pointers
/// `skelmap_gpu_mesh_buffer` gave for it are dangling afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_gpu_mesh_free(mesh: *mut SkelmapGpuMesh) {
    if !mesh.is_null() {
        let _ = status(|| {
            // SAFETY: the pointer came from Box::into_raw in skelmap_gpu_mesh_new, freed once.
            drop(unsafe { Box::from_raw(mesh) });
            Ok(())
        });
    }
}

/// Fills `*out` with the buffers' counts and widths.
///
/// Returns `SKELMAP_STATUS_OK`, or `SKELMAP_STATUS_NULL_PARAMETER` (`mesh` or `out`).
///
/// # Safety
///
/// `mesh` is NULL or live GPU buffers; `out` is NULL or valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_gpu_mesh_info(
    mesh: Option<&SkelmapGpuMesh>,
    out: Option<&mut SkelmapGpuMeshInfo>,
) -> SkelmapStatus {
    status(|| {
        let mesh = &mesh.ok_or(Fail::null("mesh"))?.mesh;
        let out = out.ok_or(Fail::null("out"))?;
        let bits = |narrow: bool| if narrow { 8 } else { 16 };
        let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        *out = SkelmapGpuMeshInfo {
            vertices: count(mesh.positions.len()),
            indices: count(mesh.indices.len()),
            sets: count(mesh.skin.num_sets()),
            joint_bits: bits(matches!(mesh.skin.joints.first(), Some(gpu::Joints::U8(_)))),
            weight_bits: bits(matches!(
                mesh.skin.weights.first(),
                Some(gpu::Weights::Unorm8(_))
            )),
            palette_entries: count(mesh.inverse_binds.len()),
        };
        Ok(())
    })
}

/// Sets `*data` to the start of buffer `which` (a `SkelmapGpuBuffer`) and `*bytes` to its length in bytes, ready to
/// upload: the pointer stays valid, and the bytes unchanged, until `skelmap_gpu_mesh_free`.
/// An empty buffer gives a non-NULL pointer and 0 bytes.
///
/// Returns `SKELMAP_STATUS_OK`, or `SKELMAP_STATUS_NULL_PARAMETER` (`mesh`, `data` or
/// `bytes`), `SKELMAP_STATUS_INVALID_ARGUMENT` (an unknown `which`) or
/// `SKELMAP_STATUS_OUT_OF_RANGE` (set 1 of buffers with one set). On failure `*data` is NULL
/// and `*bytes` 0.
///
/// # Safety
///
/// `mesh` is NULL or live GPU buffers; `data` and `bytes` are NULL or valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_gpu_mesh_buffer(
    mesh: Option<&SkelmapGpuMesh>,
    which: u32,
    data: Option<&mut *const u8>,
    bytes: Option<&mut usize>,
) -> SkelmapStatus {
    status(|| {
        let data = data.ok_or(Fail::null("data"))?;
        let bytes = bytes.ok_or(Fail::null("bytes"))?;
        *data = std::ptr::null();
        *bytes = 0;
        let mesh = &mesh.ok_or(Fail::null("mesh"))?.mesh;
        let buffer = match which {
            0 => gpu::Buffer::Positions,
            1 => gpu::Buffer::Normals,
            2 => gpu::Buffer::Uvs,
            3 => gpu::Buffer::Indices,
            4 => gpu::Buffer::Joints(0),
            5 => gpu::Buffer::Weights(0),
            6 => gpu::Buffer::Joints(1),
            7 => gpu::Buffer::Weights(1),
            8 => gpu::Buffer::InverseBinds,
            9 => gpu::Buffer::Sources,
            n => {
                return Err(Fail::invalid(format!(
                    "buffer {n} is not a SkelmapGpuBuffer"
                )));
            }
        };
        let slice = mesh
            .bytes(buffer)
            .ok_or_else(|| Fail::out_of_range("influence set", 1, mesh.skin.num_sets() as u64))?;
        *data = slice.as_ptr();
        *bytes = slice.len();
        Ok(())
    })
}

/// Writes the palette of `pose` into `out`: per palette entry 3 rows of 4 floats (12 floats),
/// `world(pose) · inverse bind` for each bone, then the identity.
///
/// Returns `SKELMAP_STATUS_OK`, or `SKELMAP_STATUS_NULL_PARAMETER` (`mesh`, `pose` or `out`),
/// `SKELMAP_STATUS_BUFFER_TOO_SMALL` (`capacity`, in entries, below `palette_entries`) or
/// `SKELMAP_STATUS_WRONG_KIND` (a pose with fewer bones than the mesh has: unsampled, or of
/// a vertex-animated model).
///
/// # Safety
///
/// `mesh` is NULL or live GPU buffers; `pose` is NULL or a live pose no other thread modifies
/// during the call; `out` is NULL or valid for writes of `12 · capacity` floats.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_gpu_mesh_palette(
    mesh: Option<&SkelmapGpuMesh>,
    pose: Option<&SkelmapPose>,
    out: *mut f32,
    capacity: u32,
) -> SkelmapStatus {
    status(|| {
        let mesh = &mesh.ok_or(Fail::null("mesh"))?.mesh;
        let pose = &pose.ok_or(Fail::null("pose"))?.pose;
        if out.is_null() {
            return Err(Fail::null("out"));
        }
        let mut palette = Vec::new();
        mesh.palette(pose, &mut palette)?;
        write_floats(
            palette.as_flattened().as_flattened(),
            palette.len(),
            out,
            capacity,
        )
    })
}

/// Writes the palette of `pose` as unit dual quaternions into `out`: per palette entry 8
/// floats, the real part then the dual part, each `x, y, z, w`.
///
/// Returns as `skelmap_gpu_mesh_palette`, and `SKELMAP_STATUS_WRONG_KIND` for a pose that
/// scales a bone (an IQM's or MDR's), which dual quaternions cannot hold.
///
/// # Safety
///
/// As `skelmap_gpu_mesh_palette`, with `out` valid for writes of `8 · capacity` floats.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_gpu_mesh_dual_quaternions(
    mesh: Option<&SkelmapGpuMesh>,
    pose: Option<&SkelmapPose>,
    out: *mut f32,
    capacity: u32,
) -> SkelmapStatus {
    status(|| {
        let mesh = &mesh.ok_or(Fail::null("mesh"))?.mesh;
        let pose = &pose.ok_or(Fail::null("pose"))?.pose;
        if out.is_null() {
            return Err(Fail::null("out"));
        }
        let mut palette = Vec::new();
        mesh.dual_quaternions(pose, &mut palette)?;
        write_floats(
            palette.as_flattened().as_flattened(),
            palette.len(),
            out,
            capacity,
        )
    })
}

/// Copies `floats` (`entries` palette entries) to `out`, which holds `capacity` entries.
fn write_floats(floats: &[f32], entries: usize, out: *mut f32, capacity: u32) -> Result<(), Fail> {
    if (capacity as usize) < entries {
        return Err(Fail::too_small(
            "the palette buffer",
            entries as u64,
            u64::from(capacity),
        ));
    }
    // SAFETY: the caller promised `out` valid for writes of `capacity` entries of this many
    // floats each, and `floats` holds `entries` ≤ `capacity` of them; Rust memory does not
    // overlap the caller's buffer.
    unsafe { std::ptr::copy_nonoverlapping(floats.as_ptr(), out, floats.len()) };
    Ok(())
}

/// Measures buffers built as `options` asks (NULL: the defaults) against
/// `skelmap_model_skin` over every frame of the model, into `*out`.
///
/// Returns as `skelmap_gpu_mesh_new`; `out` NULL is `SKELMAP_STATUS_NULL_PARAMETER`.
///
/// # Safety
///
/// `model` is NULL or a live model; `options` is NULL or valid for one read; `out` is NULL
/// or valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_model_gpu_error(
    model: Option<&SkelmapModel>,
    options: Option<&SkelmapGpuOptions>,
    out: Option<&mut SkelmapGpuError>,
) -> SkelmapStatus {
    status(|| {
        let out = out.ok_or(Fail::null("out"))?;
        let model = model.ok_or(Fail::null("model"))?;
        let e = model.model.gpu_error(&options_of(options)?)?;
        *out = SkelmapGpuError {
            max: e.max,
            rms: e.rms,
            size: e.size,
            frames: u32::try_from(e.frames).unwrap_or(u32::MAX),
        };
        Ok(())
    })
}
