//! Meshes: counts, triangles and texture coordinates, skinning (or tweening) into caller
//! buffers with a byte stride, and the terrain grid.

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
    /// Triangles: `skelmap_mesh_triangles` writes three indices per triangle.
    pub triangles: u32,
}

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
struct Strided<T, const N: usize> {
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
    unsafe fn new(
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
    fn write(&self, values: &[[T; N]], name: &str) -> Result<(), Fail> {
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

/// Mesh `index` of the model, or the out-of-range failure.
fn mesh(model: &SkelmapModel, index: u32) -> Result<Mesh<'_>, Fail> {
    model
        .model
        .mesh(index as usize)
        .ok_or_else(|| Fail::out_of_range("mesh", index, model.model.num_meshes() as u64))
}

/// Vertex and triangle counts of mesh `index`.
fn info(model: &SkelmapModel, index: u32) -> Result<SkelmapMeshInfo, Fail> {
    let m = mesh(model, index)?;
    Ok(SkelmapMeshInfo {
        vertices: m.num_verts() as u32,
        triangles: m.num_tris() as u32,
    })
}

/// Fills `*out` with mesh `mesh`'s vertex and triangle counts. A DPM or SKM has
/// `SkelmapCounts.meshes` meshes; an MS3D (all groups together), MDL or HMP has one.
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

/// Writes mesh `mesh`'s triangles into `out` as three vertex indices each (`capacity` is in
/// triangles), each index below the mesh's vertex count. A terrain has two triangles per
/// grid cell, counter-clockwise seen from above.
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
/// apart (0 = 8, tightly packed), for `capacity` vertices. DPM, SKM and SL store one per
/// vertex; a terrain gets `(column / (columns − 1), row / (rows − 1))`. MS3D and MDL store
/// them per triangle corner, which this per-vertex layout cannot express, and an SL layout may
/// have none: `SKELMAP_STATUS_WRONG_KIND`.
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
    status(|| {
        let model = model.ok_or(Fail::null("model"))?;
        // SAFETY: forwarded from this function's contract.
        let out = unsafe { Strided::<f32, 2>::new(out, stride, capacity, "out") }?
            .ok_or(Fail::null("out"))?;
        let m = self::mesh(model, mesh)?;
        match m.texcoord_layout() {
            TexcoordLayout::PerVertex => {}
            TexcoordLayout::PerCorner => {
                return Err(Fail::wrong_kind(format!(
                    "{:?} stores texture coordinates per triangle corner, not per vertex",
                    model.format()
                )));
            }
            TexcoordLayout::None => {
                return Err(Fail::wrong_kind("the mesh has no texture coordinates"));
            }
        }
        let uvs: Vec<[f32; 2]> = (0..m.num_verts())
            .map(|v| m.vertex_texcoord(v).unwrap_or_default())
            .collect();
        out.write(&uvs, "out")
    })
}

/// Deforms mesh `mesh` by `pose` and writes each vertex's position and normal into the
/// caller's buffers, `position_stride` and `normal_stride` bytes apart (0 = 12, tightly
/// packed; an interleaved vertex buffer passes its vertex size and the normal's address),
/// for up to `capacity` vertices (`SKELMAP_STATUS_BUFFER_TOO_SMALL` below the mesh's vertex
/// count). Either buffer may be NULL when not wanted, not both.
///
/// - DPM, SKM: linear blend skinning of the file's pre-weighted records with the fastest
///   kernel this CPU runs (see `skelmap_simd_level`), by a pose sampled from a model with at
///   least the bones the mesh uses.
/// - MS3D, SL: the stored bind-pose vertices moved by their joints' weighted transforms;
///   MS3D stores normals per triangle corner, so for it `normals` must be NULL
///   (`SKELMAP_STATUS_WRONG_KIND` otherwise).
/// - MDL, HMP: the morph: the pose's two frames tweened (positions blended, normals blended
///   and renormalised).
///
/// A pose sampled from another kind of model gives `SKELMAP_STATUS_WRONG_KIND`; an unsampled
/// pose `SKELMAP_STATUS_INVALID_ARGUMENT`. On failure the buffers may be partly written.
///
/// # Safety
///
/// `model` is NULL or a live model; `pose` is NULL or a live pose no other thread uses during
/// the call; each buffer is NULL or valid for writes of `(capacity − 1) · stride + 12` bytes
/// (no alignment required). The two buffers may interleave but must not overlap element for
/// element.
#[allow(clippy::too_many_arguments)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_model_skin(
    model: Option<&SkelmapModel>,
    pose: Option<&mut SkelmapPose>,
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
        let (pos_out, nrm_out) = unsafe {
            (
                Strided::<f32, 3>::new(positions, position_stride, capacity, "positions")?,
                Strided::<f32, 3>::new(normals, normal_stride, capacity, "normals")?,
            )
        };
        if pos_out.is_none() && nrm_out.is_none() {
            return Err(Fail::null("positions and normals"));
        }
        if capacity < n {
            return Err(Fail::too_small("the output", n as u64, capacity as u64));
        }
        if nrm_out.is_some() && model.model.as_ms3d().is_some() {
            return Err(Fail::wrong_kind(
                "MS3D stores normals per triangle corner: pass NULL for normals",
            ));
        }
        pose.positions.resize(n, [0.0; 3]);
        pose.normals.resize(n, [0.0; 3]);
        model.model.deform(
            mesh as usize,
            &pose.pose,
            &mut pose.positions,
            &mut pose.normals,
        )?;
        if let Some(out) = pos_out {
            out.write(&pose.positions, "positions")?;
        }
        if let Some(out) = nrm_out {
            out.write(&pose.normals, "normals")?;
        }
        Ok(())
    })
}

/// Fills `*out` with a terrain's grid: vertex `column + row · columns` of the mesh lies at
/// `(column · cell_x, row · cell_y, height)`. `SKELMAP_STATUS_WRONG_KIND` for a model that is
/// not an HMP.
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

/// Writes frame `frame`'s heights (`scale_z · packed + offset_z`), row-major, into `out`
/// (`capacity` floats, at least `columns · rows`). `SKELMAP_STATUS_WRONG_KIND` for a model
/// that is not an HMP.
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
