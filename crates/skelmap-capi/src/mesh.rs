//! Meshes: counts, triangles and texture coordinates, skinning (or tweening) into caller
//! buffers with a byte stride, and the terrain grid.

use std::cell::RefCell;

use skelmap_core::model::{Mesh, TexcoordLayout};

use crate::boundary::{Fail, SkelmapStatus, status};
use crate::model::SkelmapModel;
use crate::pose::SkelmapPose;

/// One mesh's counts, filled by `skelmap_mesh_info`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SkelmapMeshInfo {
    /// Vertices: the elements `skelmap_model_skin` writes.
    pub vertices: u32,
    /// Triangles: the elements `skelmap_mesh_triangles` writes (three indices each).
    /// `3 · triangles` corners: the elements of the corner streams
    /// (`skelmap_mesh_corner_texcoords`, `skelmap_model_skin_corners`).
    pub triangles: u32,
    /// Submeshes (`skelmap_submesh`): an MS3D's or MDL7's groups, an IQM's meshes, a PSK's
    /// materials, a ZYM's shaders, a Half-Life model's studio meshes; 1 elsewhere.
    pub submeshes: u32,
    /// Where the texture coordinates are stored: `SKELMAP_TEXCOORDS_PER_VERTEX` (read with
    /// `skelmap_mesh_texcoords`), `SKELMAP_TEXCOORDS_PER_CORNER` (MS3D, MDL7, GameStudio
    /// MDL, Quake, MD2: read with
    /// `skelmap_mesh_corner_texcoords`, which works for every layout) or
    /// `SKELMAP_TEXCOORDS_NONE`.
    pub texcoords: u32,
    /// 1 when the format stores normals per triangle corner (MS3D), so that
    /// `skelmap_model_skin_corners` keeps hard edges that per-vertex normals smooth over.
    pub corner_normals: u32,
}

/// `SkelmapMeshInfo.texcoords`: the mesh has no texture coordinates.
pub const SKELMAP_TEXCOORDS_NONE: u32 = 0;
/// `SkelmapMeshInfo.texcoords`: one per vertex (DPM, SKM, IQM, MD5, PSK, ZYM, Half-Life, MD3,
/// MDC, MDR, MDM, HMP, SL).
pub const SKELMAP_TEXCOORDS_PER_VERTEX: u32 = 1;
/// `SkelmapMeshInfo.texcoords`: one per triangle corner (MS3D, MDL7, GameStudio MDL, Quake,
/// MD2).
pub const SKELMAP_TEXCOORDS_PER_CORNER: u32 = 2;

/// A terrain's grid, filled by `skelmap_terrain_grid`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SkelmapTerrainGrid {
    /// Vertices per row (along X).
    pub columns: u32,
    /// Rows (along Y).
    pub rows: u32,
    /// Spacing of vertices along X.
    pub cell_x: f32,
    /// Spacing of vertices along Y.
    pub cell_y: f32,
}

/// A caller's output array: `capacity` elements of `N` `T`s, `stride` bytes apart.
pub(crate) struct Strided<T, const N: usize> {
    ptr: *mut T,
    stride: usize,
    capacity: usize,
}

impl<T: Copy, const N: usize> Strided<T, N> {
    /// Checks the shape of an output array; `None` for NULL (not wanted).
    ///
    /// # Safety
    ///
    /// `ptr` is NULL or valid for writes of `(capacity − 1) · stride + N · size_of::<T>()`
    /// bytes (no alignment required), with `stride` 0 meaning tightly packed.
    pub(crate) unsafe fn new(
        ptr: *mut T,
        stride: usize,
        capacity: usize,
        name: &str,
    ) -> Result<Option<Self>, Fail> {
        let element = N * size_of::<T>();
        let stride = if stride == 0 { element } else { stride };
        if stride < element {
            return Err(Fail::invalid(format!(
                "{name} stride {stride} is smaller than an element ({element} bytes)"
            )));
        }
        let span = capacity
            .checked_sub(1)
            .and_then(|last| last.checked_mul(stride))
            .and_then(|b| b.checked_add(element));
        if span.is_some_and(|b| b > isize::MAX as usize) || (capacity > 0 && span.is_none()) {
            return Err(Fail::invalid(format!(
                "{name}: {capacity} elements {stride} bytes apart overflow the address space"
            )));
        }
        Ok((!ptr.is_null()).then_some(Strided {
            ptr,
            stride,
            capacity,
        }))
    }

    /// Writes `values` to elements `0..values.len()`.
    pub(crate) fn write(&self, values: &[[T; N]], name: &str) -> Result<(), Fail> {
        if values.len() > self.capacity {
            return Err(Fail::too_small(
                name,
                values.len() as u64,
                self.capacity as u64,
            ));
        }
        for (i, v) in values.iter().enumerate() {
            // SAFETY: `i < capacity`: the bytes lie in the span `new` checked and the caller
            // promised writable; unaligned, so any address and stride works. `values` is
            // Rust memory and cannot overlap the caller's buffer.
            unsafe {
                self.ptr
                    .cast::<u8>()
                    .add(i * self.stride)
                    .cast::<[T; N]>()
                    .write_unaligned(*v);
            }
        }
        Ok(())
    }
}

/// Positions and normals, one each per vertex.
type Vertices = (Vec<[f32; 3]>, Vec<[f32; 3]>);

thread_local! {
    /// The kernels' outputs before the strided copy into the caller's buffers: per thread, so
    /// that a pose stays read-only and one pose can skin on several threads at once.
    static SCRATCH: RefCell<Vertices> = const { RefCell::new((Vec::new(), Vec::new())) };
}

/// Mesh `index` of the model, or the out-of-range failure.
pub(crate) fn mesh(model: &SkelmapModel, index: u32) -> Result<Mesh<'_>, Fail> {
    model
        .model
        .mesh(index as usize)
        .ok_or_else(|| Fail::out_of_range("mesh", index, model.model.num_meshes() as u64))
}

/// Vertex and triangle counts of mesh `index`.
fn info(model: &SkelmapModel, index: u32) -> Result<SkelmapMeshInfo, Fail> {
    let m = mesh(model, index)?;
    Ok(SkelmapMeshInfo {
        vertices: m.num_vertices() as u32,
        triangles: m.num_triangles() as u32,
        submeshes: m.submeshes().len() as u32,
        texcoords: match m.texcoord_layout() {
            TexcoordLayout::PerVertex => SKELMAP_TEXCOORDS_PER_VERTEX,
            TexcoordLayout::PerCorner => SKELMAP_TEXCOORDS_PER_CORNER,
            _ => SKELMAP_TEXCOORDS_NONE,
        },
        corner_normals: u32::from(m.has_corner_normals()),
    })
}

/// Fills `*out` with mesh `mesh`'s counts and layouts. A DPM or SKM has
/// `SkelmapCounts.meshes` meshes; an MS3D (all groups together), MDL, HMP or Quake model
/// has one.
///
/// Returns `SKELMAP_STATUS_OK`, `SKELMAP_STATUS_NULL_PARAMETER` (`model` or `out`), or
/// `SKELMAP_STATUS_OUT_OF_RANGE`.
///
/// # Safety
///
/// `model` is NULL or a live model; `out` is NULL or valid for writing a `SkelmapMeshInfo`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_mesh_info(
    model: Option<&SkelmapModel>,
    mesh: u32,
    out: Option<&mut SkelmapMeshInfo>,
) -> SkelmapStatus {
    status(|| {
        let i = info(model.ok_or(Fail::null("model"))?, mesh)?;
        *out.ok_or(Fail::null("out"))? = i;
        Ok(())
    })
}

/// Writes mesh `mesh`'s triangles into `out` as three vertex indices each, for `capacity`
/// elements (triangles), each index below the mesh's vertex count. Triangles are
/// counter-clockwise seen from the front (Quake's clockwise ones reversed); a terrain has two
/// per grid cell, counter-clockwise seen from above.
///
/// Returns `SKELMAP_STATUS_OK`, `SKELMAP_STATUS_NULL_PARAMETER` (`model` or `out`),
/// `SKELMAP_STATUS_OUT_OF_RANGE` (mesh), or `SKELMAP_STATUS_BUFFER_TOO_SMALL`.
///
/// # Safety
///
/// `model` is NULL or a live model; `out` is NULL or valid for writes of `3 · capacity`
/// `uint32_t`s.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_mesh_triangles(
    model: Option<&SkelmapModel>,
    mesh: u32,
    out: *mut u32,
    capacity: usize,
) -> SkelmapStatus {
    status(|| {
        let model = model.ok_or(Fail::null("model"))?;
        // SAFETY: forwarded from this function's contract (tightly packed).
        let out = unsafe { Strided::<u32, 3>::new(out, 0, capacity, "out") }?;
        let out = out.ok_or(Fail::null("out"))?;
        let triangles: Vec<[u32; 3]> = self::mesh(model, mesh)?.triangles().collect();
        out.write(&triangles, "out")
    })
}

/// Writes mesh `mesh`'s texture coordinates (`s`, `t` per vertex) into `out`, `stride` bytes
/// apart (0 = 8, tightly packed), for `capacity` elements (vertices). Most formats store one
/// per vertex (`SKELMAP_TEXCOORDS_PER_VERTEX`); a terrain gets
/// `(column / (columns − 1), row / (rows − 1))`. MS3D, MDL7, GameStudio MDL, Quake and MD2
/// store them per triangle corner (`SKELMAP_TEXCOORDS_PER_CORNER`), which a per-vertex array
/// cannot express: read those with `skelmap_mesh_corner_texcoords`.
///
/// Returns `SKELMAP_STATUS_OK`, `SKELMAP_STATUS_NULL_PARAMETER` (`model` or `out`),
/// `SKELMAP_STATUS_OUT_OF_RANGE` (mesh), `SKELMAP_STATUS_INVALID_ARGUMENT` (stride or span),
/// `SKELMAP_STATUS_BUFFER_TOO_SMALL`, or `SKELMAP_STATUS_WRONG_KIND` (per-corner or no
/// texture coordinates).
///
/// # Safety
///
/// `model` is NULL or a live model; `out` is NULL or valid for writes of
/// `(capacity − 1) · stride + 8` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_mesh_texcoords(
    model: Option<&SkelmapModel>,
    mesh: u32,
    out: *mut f32,
    stride: usize,
    capacity: usize,
) -> SkelmapStatus {
    // SAFETY: forwarded from this function's contract.
    status(|| unsafe {
        write_texcoords(model, mesh, (out, stride, capacity), |model, m| {
            if m.texcoord_layout() == TexcoordLayout::PerCorner {
                return Err(Fail::wrong_kind(format!(
                    "{:?} stores texture coordinates per triangle corner, not per vertex",
                    model.format()
                )));
            }
            Ok((0..m.num_vertices())
                .map(|v| m.vertex_texcoord(v).unwrap_or_default())
                .collect())
        })
    })
}

/// Writes mesh `mesh`'s vertex colours (RGBA bytes per vertex) into `out`, `stride` bytes
/// apart (0 = 4, tightly packed), for `capacity` elements (vertices). An IQM with a colour
/// array (float colours come scaled by 255) and a PSK with a `VERTEXCOLOR` chunk store them;
/// other meshes have none.
///
/// Returns `SKELMAP_STATUS_OK`, `SKELMAP_STATUS_NULL_PARAMETER` (`model` or `out`),
/// `SKELMAP_STATUS_OUT_OF_RANGE` (mesh), `SKELMAP_STATUS_INVALID_ARGUMENT` (stride or span),
/// `SKELMAP_STATUS_BUFFER_TOO_SMALL`, or `SKELMAP_STATUS_WRONG_KIND` (no colours).
///
/// # Safety
///
/// `model` is NULL or a live model; `out` is NULL or valid for writes of
/// `(capacity − 1) · stride + 4` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_mesh_colors(
    model: Option<&SkelmapModel>,
    mesh: u32,
    out: *mut u8,
    stride: usize,
    capacity: usize,
) -> SkelmapStatus {
    // SAFETY: forwarded from this function's contract.
    status(|| unsafe {
        write_per_vertex(
            model,
            mesh,
            (out, stride, capacity),
            "vertex colours",
            |m, v| m.vertex_color(v),
        )
    })
}

/// Writes mesh `mesh`'s tangents in the bind pose (`x`, `y`, `z` and the bitangent's sign
/// `w`, per vertex) into `out`, `stride` bytes apart (0 = 16, tightly packed), for `capacity`
/// elements (vertices). An IQM with a tangent array stores them; other meshes have none.
///
/// Returns `SKELMAP_STATUS_OK`, `SKELMAP_STATUS_NULL_PARAMETER` (`model` or `out`),
/// `SKELMAP_STATUS_OUT_OF_RANGE` (mesh), `SKELMAP_STATUS_INVALID_ARGUMENT` (stride or span),
/// `SKELMAP_STATUS_BUFFER_TOO_SMALL`, or `SKELMAP_STATUS_WRONG_KIND` (no tangents).
///
/// # Safety
///
/// `model` is NULL or a live model; `out` is NULL or valid for writes of
/// `(capacity − 1) · stride + 16` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_mesh_tangents(
    model: Option<&SkelmapModel>,
    mesh: u32,
    out: *mut f32,
    stride: usize,
    capacity: usize,
) -> SkelmapStatus {
    // SAFETY: forwarded from this function's contract.
    status(|| unsafe {
        write_per_vertex(model, mesh, (out, stride, capacity), "tangents", |m, v| {
            m.vertex_tangent(v)
        })
    })
}

/// Deforms mesh `mesh` by `pose` and writes each vertex's position and normal into the
/// caller's buffers, `position_stride` and `normal_stride` bytes apart (0 = 12, tightly
/// packed; an interleaved vertex buffer passes its vertex size and the normal's address),
/// for up to `capacity` vertices (`SKELMAP_STATUS_BUFFER_TOO_SMALL` below the mesh's vertex
/// count). Either buffer may be NULL when not wanted, not both.
///
/// - DPM, SKM (and MD5, MDR and MDM through their decoded records): linear blend skinning of
///   the pre-weighted records with the fastest kernel this CPU runs (see
///   `skelmap_simd_level`), by a pose sampled from a model with at least the bones the mesh
///   uses.
/// - IQM, PSK, ZYM, Half-Life, MDL7, MS3D, SL: the stored bind-pose vertices moved by their
///   joints' weighted transforms.
///   MS3D stores normals per triangle corner: a vertex's normal here is the normalised sum of
///   its deformed corner normals (smooth); `skelmap_model_skin_corners` keeps hard edges.
/// - Quake MDL, GameStudio MDL and HMP, MD2, MD3, MDC: the morph: the pose's two frames
///   tweened (positions blended, normals blended and renormalised).
///
/// `capacity` counts elements (vertices). The pose is only read: one pose may skin several
/// meshes or models on several threads at once.
///
/// Returns `SKELMAP_STATUS_OK`, or:
/// - `SKELMAP_STATUS_NULL_PARAMETER`: `model` or `pose` is NULL, or both buffers are;
/// - `SKELMAP_STATUS_OUT_OF_RANGE`: `mesh` ≥ `SkelmapCounts.meshes`, or a pose of frames
///   sampled from a model with more frames than this one;
/// - `SKELMAP_STATUS_INVALID_ARGUMENT`: a stride below 12 bytes or a span that overflows, or
///   an unsampled pose;
/// - `SKELMAP_STATUS_BUFFER_TOO_SMALL`: `capacity` below the mesh's vertices;
/// - `SKELMAP_STATUS_WRONG_KIND`: a pose sampled from another kind of model (bones for a
///   vertex-animated one or frames for a skeletal one), or a pose with fewer bones than the
///   mesh uses.
///
/// On failure the buffers may be partly written.
///
/// # Safety
///
/// `model` is NULL or a live model; `pose` is NULL or a live pose no other thread modifies
/// during the call (reading it from several threads is fine); each buffer is NULL or valid for writes of `(capacity − 1) · stride + 12` bytes
/// (no alignment required). The two buffers may interleave but must not overlap element for
/// element.
#[allow(clippy::too_many_arguments)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_model_skin(
    model: Option<&SkelmapModel>,
    pose: Option<&SkelmapPose>,
    mesh: u32,
    positions: *mut f32,
    position_stride: usize,
    normals: *mut f32,
    normal_stride: usize,
    capacity: usize,
) -> SkelmapStatus {
    status(|| {
        let model = model.ok_or(Fail::null("model"))?;
        let pose = pose.ok_or(Fail::null("pose"))?;
        let n = info(model, mesh)?.vertices as usize;
        // SAFETY: forwarded from this function's contract.
        let outputs = unsafe {
            deform_outputs(
                [(positions, position_stride), (normals, normal_stride)],
                capacity,
                n,
            )
        }?;
        let want_normals = outputs[1].is_some();
        write_deformed(outputs, n, |positions, normals| {
            model
                .model
                .deform(mesh as usize, &pose.pose, positions, normals)?;
            if want_normals {
                smooth_corner_normals(model, mesh, &pose.pose, normals)?;
            }
            Ok(())
        })
    })
}

/// Runs `deform` on this thread's scratch buffers of `n` positions and normals, then copies
/// them into the `outputs` that are wanted.
pub(crate) fn write_deformed(
    [pos_out, nrm_out]: [Option<Strided<f32, 3>>; 2],
    n: usize,
    deform: impl FnOnce(&mut [[f32; 3]], &mut [[f32; 3]]) -> Result<(), Fail>,
) -> Result<(), Fail> {
    SCRATCH.with(|scratch| {
        let (positions, normals) = &mut *scratch.borrow_mut();
        positions.resize(n, [0.0; 3]);
        normals.resize(n, [0.0; 3]);
        deform(positions, normals)?;
        if let Some(out) = pos_out {
            out.write(positions, "positions")?;
        }
        if let Some(out) = nrm_out {
            out.write(normals, "normals")?;
        }
        Ok(())
    })
}

/// Writes the texture coordinates `uvs` gives for mesh `mesh` (which has some) into the
/// caller's `(out, stride, capacity)`.
///
/// # Safety
///
/// `out` is NULL or valid for writes of `(capacity − 1) · stride + 8` bytes.
unsafe fn write_texcoords(
    model: Option<&SkelmapModel>,
    mesh: u32,
    (out, stride, capacity): (*mut f32, usize, usize),
    uvs: impl FnOnce(&SkelmapModel, &Mesh<'_>) -> Result<Vec<[f32; 2]>, Fail>,
) -> Result<(), Fail> {
    let model = model.ok_or(Fail::null("model"))?;
    // SAFETY: forwarded from this function's contract.
    let out = unsafe { Strided::<f32, 2>::new(out, stride, capacity, "out") }?
        .ok_or(Fail::null("out"))?;
    let m = self::mesh(model, mesh)?;
    if m.texcoord_layout() == TexcoordLayout::None {
        return Err(Fail::wrong_kind("the mesh has no texture coordinates"));
    }
    out.write(&uvs(model, &m)?, "out")
}

/// Writes `get(mesh, v)` for every vertex of mesh `mesh` into a strided output; a mesh for
/// which any vertex has none has no `what` (`SKELMAP_STATUS_WRONG_KIND`).
///
/// # Safety
///
/// `out` is NULL or valid for writes of `(capacity − 1) · stride + N · size_of::<T>()` bytes.
unsafe fn write_per_vertex<T: Copy, const N: usize>(
    model: Option<&SkelmapModel>,
    mesh: u32,
    (out, stride, capacity): (*mut T, usize, usize),
    what: &str,
    get: impl Fn(&Mesh<'_>, usize) -> Option<[T; N]>,
) -> Result<(), Fail> {
    let model = model.ok_or(Fail::null("model"))?;
    // SAFETY: forwarded from this function's contract.
    let out =
        unsafe { Strided::<T, N>::new(out, stride, capacity, "out") }?.ok_or(Fail::null("out"))?;
    let m = self::mesh(model, mesh)?;
    let values: Option<Vec<[T; N]>> = (0..m.num_vertices()).map(|v| get(&m, v)).collect();
    match values {
        Some(values) if !values.is_empty() => out.write(&values, "out"),
        _ => Err(Fail::wrong_kind(format!("the mesh has no {what}"))),
    }
}

/// The position and normal outputs of a deforming call, checked: each a legal array of
/// `capacity` elements or NULL (not both), and `capacity` at least `need`.
///
/// # Safety
///
/// Each pointer is NULL or valid for writes of `(capacity − 1) · stride + 12` bytes.
pub(crate) unsafe fn deform_outputs(
    [(positions, position_stride), (normals, normal_stride)]: [(*mut f32, usize); 2],
    capacity: usize,
    need: usize,
) -> Result<[Option<Strided<f32, 3>>; 2], Fail> {
    // SAFETY: forwarded from this function's contract.
    let (pos_out, nrm_out) = unsafe {
        (
            Strided::<f32, 3>::new(positions, position_stride, capacity, "positions")?,
            Strided::<f32, 3>::new(normals, normal_stride, capacity, "normals")?,
        )
    };
    if pos_out.is_none() && nrm_out.is_none() {
        return Err(Fail::null("positions and normals"));
    }
    if capacity < need {
        return Err(Fail::too_small("the output", need as u64, capacity as u64));
    }
    Ok([pos_out, nrm_out])
}

/// For a mesh that stores normals per triangle corner (MS3D), each vertex's normal: the
/// normalised sum of its deformed corner normals (a vertex no triangle uses keeps 0).
pub(crate) fn smooth_corner_normals(
    model: &SkelmapModel,
    mesh: u32,
    pose: &skelmap_core::model::Pose,
    normals: &mut [[f32; 3]],
) -> Result<(), Fail> {
    let m = self::mesh(model, mesh)?;
    if !m.has_corner_normals() {
        return Ok(());
    }
    let mut corners = vec![[0.0f32; 3]; 3 * m.num_triangles()];
    model
        .model
        .deform_corner_normals(mesh as usize, pose, &mut corners)?;
    normals.iter_mut().for_each(|n| *n = [0.0; 3]);
    for (tri, c) in m.triangles().zip(corners.chunks_exact(3)) {
        for (&v, n) in tri.iter().zip(c) {
            if let Some(sum) = normals.get_mut(v as usize) {
                (0..3).for_each(|k| sum[k] += n[k]);
            }
        }
    }
    for n in normals.iter_mut() {
        let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
        if len > 0.0 {
            *n = n.map(|c| c / len);
        }
    }
    Ok(())
}

/// Writes the texture coordinates of every triangle corner of mesh `mesh` into `out`,
/// `stride` bytes apart (0 = 8, tightly packed): corner `k` of triangle `t` is element
/// `3t + k`, in `skelmap_mesh_triangles` order, for `capacity` elements (corners), at least
/// `3 · SkelmapMeshInfo.triangles`. It works for every layout: per-vertex coordinates are
/// repeated at each corner. With `skelmap_model_skin_corners` this gives an unindexed
/// vertex stream (three vertices per triangle) for formats that store coordinates per
/// corner (MS3D, MDL7, GameStudio MDL, Quake, MD2). `v` points down the image, as the texels
/// are stored.
///
/// Returns `SKELMAP_STATUS_OK`, `SKELMAP_STATUS_NULL_PARAMETER` (`model` or `out`),
/// `SKELMAP_STATUS_OUT_OF_RANGE` (mesh), `SKELMAP_STATUS_INVALID_ARGUMENT` (a stride below 8
/// bytes, or a span that overflows), `SKELMAP_STATUS_BUFFER_TOO_SMALL`, or
/// `SKELMAP_STATUS_WRONG_KIND` for a mesh without texture coordinates
/// (`SKELMAP_TEXCOORDS_NONE`).
///
/// # Safety
///
/// `model` is NULL or a live model; `out` is NULL or valid for writes of
/// `(capacity − 1) · stride + 8` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_mesh_corner_texcoords(
    model: Option<&SkelmapModel>,
    mesh: u32,
    out: *mut f32,
    stride: usize,
    capacity: usize,
) -> SkelmapStatus {
    // SAFETY: forwarded from this function's contract.
    status(|| unsafe {
        write_texcoords(model, mesh, (out, stride, capacity), |_, m| {
            Ok((0..m.num_triangles())
                .flat_map(|t| m.corner_texcoords(t).unwrap_or_default())
                .collect())
        })
    })
}

/// Deforms mesh `mesh` by `pose` like `skelmap_model_skin` and writes an unindexed stream:
/// the position and normal of every triangle corner (corner `k` of triangle `t` is element
/// `3t + k`), `position_stride` and `normal_stride` bytes apart (0 = 12), for `capacity`
/// elements (corners), at least `3 · SkelmapMeshInfo.triangles`. Normals are the format's
/// own per corner where it stores them so (MS3D: hard edges kept), the vertex's elsewhere.
/// Either buffer may be NULL, not both.
///
/// Returns as `skelmap_model_skin` does (`SKELMAP_STATUS_OK`, `_NULL_PARAMETER`,
/// `_OUT_OF_RANGE`, `_INVALID_ARGUMENT`, `_BUFFER_TOO_SMALL`, `_WRONG_KIND`).
///
/// # Safety
///
/// As `skelmap_model_skin`, with `capacity` counting corners.
#[allow(clippy::too_many_arguments)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_model_skin_corners(
    model: Option<&SkelmapModel>,
    pose: Option<&SkelmapPose>,
    mesh: u32,
    positions: *mut f32,
    position_stride: usize,
    normals: *mut f32,
    normal_stride: usize,
    capacity: usize,
) -> SkelmapStatus {
    status(|| {
        let model = model.ok_or(Fail::null("model"))?;
        let pose = pose.ok_or(Fail::null("pose"))?;
        let m = self::mesh(model, mesh)?;
        let corners = 3 * m.num_triangles();
        // SAFETY: forwarded from this function's contract.
        let [pos_out, nrm_out] = unsafe {
            deform_outputs(
                [(positions, position_stride), (normals, normal_stride)],
                capacity,
                corners,
            )
        }?;
        let expand = |values: &[[f32; 3]]| -> Vec<[f32; 3]> {
            m.triangles()
                .flatten()
                .map(|v| values.get(v as usize).copied().unwrap_or_default())
                .collect()
        };
        SCRATCH.with(|scratch| {
            let (p, q) = &mut *scratch.borrow_mut();
            p.resize(m.num_vertices(), [0.0; 3]);
            q.resize(m.num_vertices(), [0.0; 3]);
            model.model.deform(mesh as usize, &pose.pose, p, q)?;
            if let Some(out) = pos_out {
                out.write(&expand(p), "positions")?;
            }
            match nrm_out {
                // The format's own corner normals (MS3D): deformed per corner.
                Some(out) if m.has_corner_normals() => {
                    let mut corner_normals = vec![[0.0f32; 3]; corners];
                    model.model.deform_corner_normals(
                        mesh as usize,
                        &pose.pose,
                        &mut corner_normals,
                    )?;
                    out.write(&corner_normals, "normals")
                }
                // Elsewhere each corner takes its vertex's normal, already deformed.
                Some(out) => out.write(&expand(q), "normals"),
                None => Ok(()),
            }
        })
    })
}

/// Fills `*out` with a terrain's grid: vertex `column + row · columns` of the mesh lies at
/// `(column · cell_x, row · cell_y, height)`.
///
/// Returns `SKELMAP_STATUS_OK`, `SKELMAP_STATUS_NULL_PARAMETER` (`model` or `out`), or
/// `SKELMAP_STATUS_WRONG_KIND` for a model that is not an HMP.
///
/// # Safety
///
/// `model` is NULL or a live model; `out` is NULL or valid for writing a
/// `SkelmapTerrainGrid`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_terrain_grid(
    model: Option<&SkelmapModel>,
    out: Option<&mut SkelmapTerrainGrid>,
) -> SkelmapStatus {
    status(|| {
        let model = model.ok_or(Fail::null("model"))?;
        let grid = model
            .model
            .terrain()
            .ok_or_else(|| Fail::wrong_kind(format!("{:?} is not a terrain", model.format())))?;
        *out.ok_or(Fail::null("out"))? = SkelmapTerrainGrid {
            columns: grid.columns,
            rows: grid.rows,
            cell_x: grid.cell[0],
            cell_y: grid.cell[1],
        };
        Ok(())
    })
}

/// Writes frame `frame`'s heights (`scale_z · packed + offset_z`), row-major, into `out`:
/// `capacity` elements (heights, one float each), at least `columns · rows`.
///
/// Returns `SKELMAP_STATUS_OK`, `SKELMAP_STATUS_NULL_PARAMETER` (`model` or `out`),
/// `SKELMAP_STATUS_OUT_OF_RANGE` (frame), `SKELMAP_STATUS_BUFFER_TOO_SMALL`, or
/// `SKELMAP_STATUS_WRONG_KIND` for a model that is not an HMP.
///
/// # Safety
///
/// `model` is NULL or a live model; `out` is NULL or valid for writes of `capacity` floats.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_terrain_heights(
    model: Option<&SkelmapModel>,
    frame: u32,
    out: *mut f32,
    capacity: usize,
) -> SkelmapStatus {
    status(|| {
        let model = model.ok_or(Fail::null("model"))?;
        let h = model
            .model
            .as_hmp()
            .ok_or_else(|| Fail::wrong_kind(format!("{:?} is not a terrain", model.format())))?;
        let f = h
            .frames()
            .get(frame as usize)
            .ok_or_else(|| Fail::out_of_range("frame", frame, h.frames().len() as u64))?;
        // SAFETY: forwarded from this function's contract (tightly packed).
        let out = unsafe { Strided::<f32, 1>::new(out, 0, capacity, "out") }?;
        let out = out.ok_or(Fail::null("out"))?;
        let [nx, ny] = h.grid();
        let heights: Vec<[f32; 1]> = (0..(nx * ny) as usize)
            .map(|i| [h.height(f.raw_height(i).unwrap_or(0))])
            .collect();
        out.write(&heights, "out")
    })
}
