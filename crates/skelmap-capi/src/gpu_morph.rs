//! GPU vertex-animation buffers: a vertex-animated model's frames as the file packs them,
//! which a vertex shader unpacks and tweens (`skelmap_gpu_morph_new`, an explicit allocating
//! copy). For drawn vertex `v` (a `SkelmapGpuMorphVertex`: its record, its mesh, its texture
//! coordinate) between frames `a` and `b` at `t`, the shader computes
//!
//! ```text
//! pa = grid(a).scale · coords(a) + grid(a).offset      (likewise pb; grid(f) = grids[f · meshes + mesh])
//! position = pa + t · (pb − pa),  normal = normalise(na + t · (nb − na))
//! ```
//!
//! with a record's coordinates and normal decoded as its packing says (`SkelmapGpuMorphInfo`);
//! `skelmap_gpu_morph_vertex` is that arithmetic on the CPU, the reference a shader is held
//! to.

use skelmap_core::gpu;

use crate::boundary::{Fail, SkelmapStatus, status};
use crate::model::SkelmapModel;

/// A model's vertex-animation buffers. Opaque to C; created by `skelmap_gpu_morph_new`,
/// destroyed by `skelmap_gpu_morph_free`. It owns its data and is read-only once made.
#[derive(Debug)]
pub struct SkelmapGpuMorph {
    morph: gpu::MorphMesh,
}

/// `SkelmapGpuMorphInfo.packing`: 4 bytes a record, `x, y, z` unsigned, then the normal's
/// index into the table (MD2, Quake, GameStudio MDL).
pub const SKELMAP_GPU_MORPH_BYTES: u32 = 0;
/// `SkelmapGpuMorphInfo.packing`: 8 bytes a record, `x, y, z` as little-endian `uint16_t`,
/// the normal's index, a pad byte (GameStudio MDL5 with 16-bit frames).
pub const SKELMAP_GPU_MORPH_WORDS: u32 = 1;
/// `SkelmapGpuMorphInfo.packing`: 8 bytes a record, `x, y, z` as little-endian `int16_t`, the
/// longitude byte, the latitude byte (MD3); the table's row `i` is `(cos θ, sin θ, 0, 0)`,
/// `θ = i · 2π / 256`, and the normal `(cos lat · sin lng, sin lat · sin lng, cos lng)`.
pub const SKELMAP_GPU_MORPH_LAT_LONG: u32 = 2;

/// What `skelmap_gpu_morph_info` reports.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SkelmapGpuMorphInfo {
    /// `SKELMAP_GPU_MORPH_BYTES`, `…_WORDS` or `…_LAT_LONG`.
    pub packing: u32,
    /// Bytes a record (4 or 8).
    pub stride: u32,
    /// The model's meshes: grids a frame.
    pub meshes: u32,
    /// Frames.
    pub frames: u32,
    /// Records a frame (every model mesh's vertices, mesh after mesh).
    pub records_per_frame: u32,
    /// Drawn vertices.
    pub vertices: u32,
    /// Indices (3 per triangle).
    pub indices: u32,
}

/// Which buffer `skelmap_gpu_morph_buffer` gives.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SkelmapGpuMorphBuffer {
    /// Every frame's records, frame after frame (`stride` bytes each).
    Records = 0,
    /// Per frame, each mesh's grid: 4 floats of scale, 4 of offset (the 4th unused).
    Grids = 1,
    /// The normal table: 256 rows of 4 floats.
    Normals = 2,
    /// The drawn vertices: `uint32_t` record, `uint32_t` mesh, 2 floats of texture coordinate
    /// (`v` down the image).
    Vertices = 3,
    /// Triangle indices into the drawn vertices, `uint32_t`.
    Indices = 4,
}

/// Builds the vertex-animation buffers of a vertex-animated model (MD3, MD2, Quake,
/// GameStudio MDL) into `*out` (NULL on failure).
///
/// Returns `SKELMAP_STATUS_OK`, or `SKELMAP_STATUS_NULL_PARAMETER` (`model` or `out`),
/// `SKELMAP_STATUS_WRONG_KIND` (a skeletal model, a terrain, an MD3 of tags only) or
/// `SKELMAP_STATUS_LIMIT` (more vertices than 32-bit indices address).
///
/// # Safety
///
/// `model` is NULL or a live model; `out` is NULL or valid for writing one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_gpu_morph_new(
    model: Option<&SkelmapModel>,
    out: Option<&mut *mut SkelmapGpuMorph>,
) -> SkelmapStatus {
    status(|| {
        let out = out.ok_or(Fail::null("out"))?;
        *out = std::ptr::null_mut();
        let morph = model.ok_or(Fail::null("model"))?.model.gpu_morph()?;
        *out = Box::into_raw(Box::new(SkelmapGpuMorph { morph }));
        Ok(())
    })
}

/// Frees vertex-animation buffers. NULL is allowed and does nothing. Returns nothing; it
/// cannot fail.
///
/// # Safety
///
/// `morph` is NULL or a pointer from `skelmap_gpu_morph_new` not freed before; the pointers
/// `skelmap_gpu_morph_buffer` gave for it are dangling afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_gpu_morph_free(morph: *mut SkelmapGpuMorph) {
    if !morph.is_null() {
        let _ = status(|| {
            // SAFETY: the pointer came from Box::into_raw in skelmap_gpu_morph_new, freed once.
            drop(unsafe { Box::from_raw(morph) });
            Ok(())
        });
    }
}

/// Fills `*out` with the buffers' packing and counts.
///
/// Returns `SKELMAP_STATUS_OK`, or `SKELMAP_STATUS_NULL_PARAMETER` (`morph` or `out`).
///
/// # Safety
///
/// `morph` is NULL or live buffers; `out` is NULL or valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_gpu_morph_info(
    morph: Option<&SkelmapGpuMorph>,
    out: Option<&mut SkelmapGpuMorphInfo>,
) -> SkelmapStatus {
    status(|| {
        let m = &morph.ok_or(Fail::null("morph"))?.morph;
        let out = out.ok_or(Fail::null("out"))?;
        let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        *out = SkelmapGpuMorphInfo {
            packing: match m.packing {
                gpu::Packing::Bytes => SKELMAP_GPU_MORPH_BYTES,
                gpu::Packing::Words => SKELMAP_GPU_MORPH_WORDS,
                gpu::Packing::LatLong => SKELMAP_GPU_MORPH_LAT_LONG,
            },
            stride: count(m.packing.stride()),
            meshes: count(m.meshes),
            frames: count(m.frames),
            records_per_frame: count(m.records_per_frame),
            vertices: count(m.vertices.len()),
            indices: count(m.indices.len()),
        };
        Ok(())
    })
}

/// Sets `*data` to the start of buffer `which` (a `SkelmapGpuMorphBuffer`) and `*bytes` to
/// its length in bytes, ready to upload: valid and unchanged until `skelmap_gpu_morph_free`.
/// An empty buffer gives a non-NULL pointer and 0 bytes.
///
/// Returns `SKELMAP_STATUS_OK`, or `SKELMAP_STATUS_NULL_PARAMETER` (`morph`, `data` or
/// `bytes`) or `SKELMAP_STATUS_INVALID_ARGUMENT` (an unknown `which`). On failure `*data` is
/// NULL and `*bytes` 0.
///
/// # Safety
///
/// `morph` is NULL or live buffers; `data` and `bytes` are NULL or valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_gpu_morph_buffer(
    morph: Option<&SkelmapGpuMorph>,
    which: u32,
    data: Option<&mut *const u8>,
    bytes: Option<&mut usize>,
) -> SkelmapStatus {
    status(|| {
        let data = data.ok_or(Fail::null("data"))?;
        let bytes = bytes.ok_or(Fail::null("bytes"))?;
        *data = std::ptr::null();
        *bytes = 0;
        let m = &morph.ok_or(Fail::null("morph"))?.morph;
        let which = match which {
            0 => gpu::MorphBuffer::Records,
            1 => gpu::MorphBuffer::Grids,
            2 => gpu::MorphBuffer::Normals,
            3 => gpu::MorphBuffer::Vertices,
            4 => gpu::MorphBuffer::Indices,
            n => {
                return Err(Fail::invalid(format!(
                    "buffer {n} is not a SkelmapGpuMorphBuffer"
                )));
            }
        };
        let slice = m.bytes(which);
        *data = slice.as_ptr();
        *bytes = slice.len();
        Ok(())
    })
}

/// Writes drawn vertex `vertex` of frames `a` and `b` tweened at `t` as the shader computes
/// it into `out`: its position, then its unit normal (6 floats).
///
/// Returns `SKELMAP_STATUS_OK`, or `SKELMAP_STATUS_NULL_PARAMETER` (`morph` or `out`),
/// `SKELMAP_STATUS_OUT_OF_RANGE` (a vertex or frame past the buffers') or
/// `SKELMAP_STATUS_INVALID_ARGUMENT` (`t` not finite).
///
/// # Safety
///
/// `morph` is NULL or live buffers; `out` is NULL or valid for writing 6 floats.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_gpu_morph_vertex(
    morph: Option<&SkelmapGpuMorph>,
    vertex: u32,
    a: u32,
    b: u32,
    t: f32,
    out: *mut f32,
) -> SkelmapStatus {
    status(|| {
        let m = &morph.ok_or(Fail::null("morph"))?.morph;
        if out.is_null() {
            return Err(Fail::null("out"));
        }
        if !t.is_finite() {
            return Err(Fail::invalid(format!("t = {t} is not finite")));
        }
        if let Some(&frame) = [a, b].iter().find(|&&f| f as usize >= m.frames) {
            return Err(Fail::out_of_range("frame", frame, m.frames as u64));
        }
        let (p, n) = m
            .tween_vertex(vertex as usize, a as usize, b as usize, t)
            .ok_or_else(|| Fail::out_of_range("vertex", vertex, m.vertices.len() as u64))?;
        // SAFETY: non-NULL and writable for 6 floats by this function's contract.
        let out = unsafe { std::slice::from_raw_parts_mut(out, 6) };
        out.copy_from_slice(&[p[0], p[1], p[2], n[0], n[1], n[2]]);
        Ok(())
    })
}
