//! GPU buffers for vertex animation: [`MorphMesh`].

use bytemuck::{Pod, Zeroable};

use super::Draw;
use crate::skin::morph::{Keyframe, NormalTable, PackedFrame};

/// How a frame's records are packed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Packing {
    /// 4 bytes a vertex: `x, y, z` unsigned, then the normal's index (MD2, Quake, MDL3–5).
    Bytes,
    /// 8 bytes a vertex: `x, y, z` as little-endian `u16`, the normal's index, a pad byte
    /// (GameStudio MDL5 with 16-bit frames).
    Words,
    /// 8 bytes a vertex: `x, y, z` as little-endian `i16`, then the longitude byte and the
    /// latitude byte (MD3).
    LatLong,
}

impl Packing {
    /// Bytes a record.
    #[must_use]
    pub fn stride(self) -> usize {
        match self {
            Packing::Bytes => 4,
            Packing::Words | Packing::LatLong => 8,
        }
    }

    pub(crate) fn of(frame: &PackedFrame<'_>) -> Packing {
        match frame {
            PackedFrame::Bytes(_) => Packing::Bytes,
            PackedFrame::Words(_) => Packing::Words,
            PackedFrame::LatLong(_) => Packing::LatLong,
        }
    }
}

/// What unpacks one mesh's frame: `position = scale · coords + offset` (`w` unused; a
/// `vec4` pair, as a uniform or storage buffer lays it out).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default, Pod, Zeroable)]
pub struct Grid {
    /// Per-axis scale.
    pub scale: [f32; 4],
    /// Per-axis offset.
    pub offset: [f32; 4],
}

/// A drawn vertex: the record it reads in every frame, the mesh whose grid unpacks it, and
/// its texture coordinate (`v` down the image).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default, Pod, Zeroable)]
pub struct MorphVertex {
    /// Index of its record within a frame (the model's meshes' vertices, mesh after mesh).
    pub record: u32,
    /// Its model mesh: the grid of frame `f` is `grids[f · meshes + mesh]`.
    pub mesh: u32,
    /// Texture coordinate.
    pub uv: [f32; 2],
}

/// GPU buffers for vertex animation: the frames as the file packs them, which a vertex shader
/// unpacks and tweens ([`MorphMesh`], built by [`Model::gpu_morph`](crate::Model::gpu_morph)).
///
/// The records are the file's own bytes, copied once: an MD3 frame keeps its signed 16-bit
/// coordinates (1/64 unit) and latitude/longitude normal bytes (8 bytes a vertex), an MD2 or
/// Quake frame its bytes and normal index (4 bytes a vertex) with the frame's grid, a
/// GameStudio MDL its bytes or words. Per frame and mesh a [`Grid`] unpacks the coordinates,
/// and one table of 256 rows gives the normals. Per drawn vertex a [`MorphVertex`] names its
/// record and mesh and carries its texture coordinate (vertices on a texture seam are drawn
/// twice from one record). To draw frames `a` and `b` tweened at `t`, the shader computes
///
/// ```text
/// pa = grid(a).scale · coords(a) + grid(a).offset      (likewise pb)
/// position = pa + t · (pb − pa)
/// normal = normalise(na + t · (nb − na))
/// ```
///
/// with the normal of a record `table[index]` (bytes and words), or for latitude `φ` (the
/// high byte) and longitude `λ` (the low byte) `(cos φ · sin λ, sin φ · sin λ, cos λ)` with
/// `table[i] = (cos θᵢ, sin θᵢ, 0, 0)`, `θᵢ = i · 2π / 256`. [`MorphMesh::tween_vertex`] is
/// that arithmetic on the CPU, the reference a shader is held to, and
/// [`Model::gpu_morph_error`](crate::Model::gpu_morph_error) measures it against
/// [`Model::deform`](crate::Model::deform).
#[derive(Debug, Clone, PartialEq)]
pub struct MorphMesh {
    /// How the records are packed.
    pub packing: Packing,
    /// The model's meshes (grids a frame).
    pub meshes: usize,
    /// Records a frame: every model mesh's vertices.
    pub records_per_frame: usize,
    /// Frames.
    pub frames: usize,
    /// Every frame's records, frame after frame, [`Packing::stride`] bytes each.
    pub records: Vec<u8>,
    /// Per frame, each mesh's [`Grid`].
    pub grids: Vec<Grid>,
    /// The 256 rows of the normal table (bytes and words: unit normals; latitude/longitude:
    /// `(cos θ, sin θ, 0, 0)`).
    pub normals: Vec<[f32; 4]>,
    /// The drawn vertices.
    pub vertices: Vec<MorphVertex>,
    /// Triangles, 3 indices each, into [`MorphMesh::vertices`].
    pub indices: Vec<u32>,
    /// The draw ranges, one per submesh.
    pub draws: Vec<Draw>,
}

/// One of a [`MorphMesh`]'s buffers, as bytes ([`MorphMesh::bytes`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MorphBuffer {
    /// [`MorphMesh::records`].
    Records,
    /// [`MorphMesh::grids`].
    Grids,
    /// [`MorphMesh::normals`].
    Normals,
    /// [`MorphMesh::vertices`].
    Vertices,
    /// [`MorphMesh::indices`].
    Indices,
}

impl MorphMesh {
    /// Empty buffers for records packed as `packing` with `table`'s normals.
    pub(crate) fn new(packing: Packing, table: &NormalTable) -> MorphMesh {
        MorphMesh {
            packing,
            meshes: 0,
            records_per_frame: 0,
            frames: 0,
            records: Vec::new(),
            grids: Vec::new(),
            normals: table.rows().to_vec(),
            vertices: Vec::new(),
            indices: Vec::new(),
            draws: Vec::new(),
        }
    }

    /// Appends a frame's keyframe of one mesh: its records' bytes and its grid; `None` when
    /// it is packed differently from the others.
    pub(crate) fn push_keyframe(&mut self, keyframe: &Keyframe<'_>) -> Option<()> {
        if Packing::of(&keyframe.frame) != self.packing {
            return None;
        }
        let bytes: &[u8] = match keyframe.frame {
            PackedFrame::Bytes(r) => r.as_flattened(),
            PackedFrame::Words(r) => r.as_flattened(),
            PackedFrame::LatLong(r) => zerocopy::IntoBytes::as_bytes(r),
        };
        self.records.extend_from_slice(bytes);
        let [x, y, z] = keyframe.scale;
        let [a, b, c] = keyframe.offset;
        self.grids.push(Grid {
            scale: [x, y, z, 0.0],
            offset: [a, b, c, 0.0],
        });
        Some(())
    }

    /// The bytes of buffer `which`, ready for a `queue.write_buffer`.
    #[must_use]
    pub fn bytes(&self, which: MorphBuffer) -> &[u8] {
        match which {
            MorphBuffer::Records => &self.records,
            MorphBuffer::Grids => bytemuck::cast_slice(&self.grids),
            MorphBuffer::Normals => bytemuck::cast_slice(&self.normals),
            MorphBuffer::Vertices => bytemuck::cast_slice(&self.vertices),
            MorphBuffer::Indices => bytemuck::cast_slice(&self.indices),
        }
    }

    /// Record `record` of frame `frame`: its coordinates as stored and its unit normal.
    fn decode(&self, frame: usize, record: usize) -> Option<([f32; 3], [f32; 3])> {
        let stride = self.packing.stride();
        let at = (frame * self.records_per_frame + record) * stride;
        let r = self.records.get(at..at + stride)?;
        let row = |i: u8| self.normals.get(usize::from(i)).copied();
        Some(match self.packing {
            Packing::Bytes => {
                let n = row(r[3])?;
                ([r[0], r[1], r[2]].map(f32::from), [n[0], n[1], n[2]])
            }
            Packing::Words => {
                let w = |k: usize| f32::from(u16::from_le_bytes([r[k], r[k + 1]]));
                let n = row(r[6])?;
                ([w(0), w(2), w(4)], [n[0], n[1], n[2]])
            }
            Packing::LatLong => {
                let w = |k: usize| f32::from(i16::from_le_bytes([r[k], r[k + 1]]));
                let (lat, lng) = (row(r[7])?, row(r[6])?);
                (
                    [w(0), w(2), w(4)],
                    [lat[0] * lng[1], lat[1] * lng[1], lng[0]],
                )
            }
        })
    }

    /// Drawn vertex `v` of frames `a` and `b` tweened at `t`, as the shader computes it (see
    /// [`MorphMesh`]): its position and unit normal (a normal that cancels out is
    /// left at zero length). `None` for a vertex or frame out of range.
    ///
    /// ```
    /// use skelmap_core::{Model, md3};
    /// let bytes = md3::Builder::triangle().write();
    /// let model = Model::from_bytes(&bytes)?;
    /// let morph = model.gpu_morph()?;
    /// assert_eq!((morph.vertices.len(), morph.frames, morph.records.len()), (3, 1, 24));
    /// let (position, normal) = morph.tween_vertex(1, 0, 0, 0.0).unwrap();
    /// assert_eq!(position, [1.0, 0.0, 0.0]);
    /// assert!((normal[2] - 1.0).abs() < 1e-6);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn tween_vertex(
        &self,
        v: usize,
        a: usize,
        b: usize,
        t: f32,
    ) -> Option<([f32; 3], [f32; 3])> {
        let vertex = self.vertices.get(v)?;
        let (record, mesh) = (vertex.record as usize, vertex.mesh as usize);
        let unpack = |f: usize| -> Option<([f32; 3], [f32; 3])> {
            if f >= self.frames {
                return None;
            }
            let grid = self.grids.get(f * self.meshes + mesh)?;
            let (c, n) = self.decode(f, record)?;
            Some((
                core::array::from_fn(|k| grid.scale[k] * c[k] + grid.offset[k]),
                n,
            ))
        };
        let ((pa, na), (pb, nb)) = (unpack(a)?, unpack(b)?);
        let position = core::array::from_fn(|k| pa[k] + t * (pb[k] - pa[k]));
        let n: [f32; 3] = core::array::from_fn(|k| na[k] + t * (nb[k] - na[k]));
        let length = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
        let normal = if length > 0.0 {
            n.map(|x| x / length)
        } else {
            n
        };
        Some((position, normal))
    }
}
