//! The validated GameStudio terrain view, [`Hmp`] (skins, height frames, the grid mesh), and
//! what it gives [`Model`](crate::Model).

use std::borrow::Cow;

use zerocopy::byteorder::{I32, LittleEndian};

use super::frames::{Cursor, FrameKind, HmpFrames, HmpKind, frame_head, frame_size};
use super::raw::{Hmp5Vertex, Hmp7Vertex, HmpHeader, TrivertxWord};
use crate::alias::anorms::NORMALS;
use crate::alias::skin::Skin;
use crate::error::Result;
use crate::format::Format;
use crate::name;
use crate::skin::SimdLevel;
use crate::skin::morph::{Keyframe, MorphError, NormalTable, normalise};
use crate::view::{DeformError, MeshView, TerrainGrid, TexcoordLayout, VertexAnimated};

/// The HMP version (from the magic).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HmpVersion {
    /// `HMP5`: normal indices into the 162-entry table.
    Hmp5,
    /// `HMP7`: normals as two `i8` components.
    Hmp7,
}

#[derive(Debug, Clone, Copy)]
pub(super) enum Heights<'data> {
    V5(&'data [Hmp5Vertex]),
    V7(&'data [Hmp7Vertex]),
}

/// One terrain frame.
#[derive(Debug, Clone, Copy)]
pub struct HmpFrame<'data> {
    pub(super) frame_type: i32,
    pub(super) name: &'data [u8],
    pub(super) heights: Heights<'data>,
}

impl<'data> HmpFrame<'data> {
    /// The frame type (2 in every known file).
    #[must_use]
    pub fn frame_type(&self) -> i32 {
        self.frame_type
    }

    /// The name bytes, up to the first NUL.
    #[must_use]
    pub fn name(&self) -> &'data [u8] {
        name::trim_nul(self.name)
    }

    /// The name as text (invalid UTF-8 replaced).
    #[must_use]
    pub fn name_lossy(&self) -> Cow<'data, str> {
        name::lossy(self.name())
    }

    /// The packed height of vertex `i`.
    #[must_use]
    pub fn raw_height(&self, i: usize) -> Option<u16> {
        match self.heights {
            Heights::V5(v) => v.get(i).map(|v| v.z.get()),
            Heights::V7(v) => v.get(i).map(|v| v.z.get()),
        }
    }

    /// The unit normal of vertex `i` (see the module docs for HMP7).
    #[must_use]
    pub fn normal(&self, i: usize) -> Option<[f32; 3]> {
        match self.heights {
            Heights::V5(v) => v
                .get(i)
                .and_then(|v| NORMALS.get(usize::from(v.normal)))
                .copied(),
            Heights::V7(v) => v.get(i).map(|v| {
                // The stored X points against +X of the grid as laid out here (see the module
                // docs), so it is negated.
                let (x, y) = (
                    -f32::from(v.normal_x) / 127.0,
                    f32::from(v.normal_y) / 127.0,
                );
                let z = (1.0 - x * x - y * y).max(0.0).sqrt();
                let len = (x * x + y * y + z * z).sqrt().max(f32::MIN_POSITIVE);
                [x / len, y / len, z / len]
            }),
        }
    }
}

impl FrameKind for HmpKind {
    type Frame<'data> = HmpFrame<'data>;
    type Params = (HmpVersion, u32);

    fn name<'data>(frame: &Self::Frame<'data>) -> &'data [u8] {
        frame.name()
    }

    /// Every HMP frame's: its type, two word-packed bounding-box records, its name and its
    /// vertices.
    fn size(_: &[u8], (version, numverts): Self::Params) -> Option<usize> {
        let vertex = match version {
            HmpVersion::Hmp5 => size_of::<Hmp5Vertex>(),
            HmpVersion::Hmp7 => size_of::<Hmp7Vertex>(),
        };
        frame_size(size_of::<TrivertxWord>(), vertex, numverts)
    }

    /// Reads the frame of `numverts` vertices at `walk`: its type, two bounding-box records,
    /// its name and its heights. Normal indices are left to validation.
    #[inline]
    fn read<'data>(
        Cursor(walk): Cursor<'_, 'data>,
        (version, numverts): Self::Params,
    ) -> Result<HmpFrame<'data>> {
        let frame_type = walk.read::<I32<LittleEndian>>("frame.type")?.get();
        // The bounding box is word-packed, as an MDL's type 2 frame.
        let (_, name) = frame_head::<TrivertxWord>(walk)?;
        let heights = match version {
            HmpVersion::Hmp5 => Heights::V5(walk.read_slice("frame.vertices", numverts.into())?),
            HmpVersion::Hmp7 => Heights::V7(walk.read_slice("frame.vertices", numverts.into())?),
        };
        Ok(HmpFrame {
            frame_type,
            name,
            heights,
        })
    }
}

/// A terrain grid as a mesh (an explicit copy): positions, normals, UVs over `0..=1` and two
/// counter-clockwise triangles per cell.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TerrainMesh {
    /// Vertices per row and rows.
    pub grid: [u32; 2],
    /// Positions, row-major.
    pub positions: Vec<[f32; 3]>,
    /// Unit normals.
    pub normals: Vec<[f32; 3]>,
    /// `(ix / (nx − 1), iy / (ny − 1))`.
    pub uvs: Vec<[f32; 2]>,
    /// Triangles.
    pub triangles: Vec<[u32; 3]>,
}

/// A validated HMP5/HMP7 terrain. `Send`, `Sync`, `Clone` (a small index of skins; frames are
/// found in the file on each access).
#[derive(Debug, Clone)]
pub struct Hmp<'data> {
    pub(super) version: HmpVersion,
    pub(super) header: &'data HmpHeader,
    pub(super) grid: [u32; 2],
    pub(super) skins: Vec<Skin<'data>>,
    pub(super) frames: HmpFrames<'data>,
}

impl<'data> Hmp<'data> {
    /// The version.
    #[must_use]
    pub fn version(&self) -> HmpVersion {
        self.version
    }

    /// The raw header.
    #[must_use]
    pub fn header(&self) -> &'data HmpHeader {
        self.header
    }

    /// Vertices per row and number of rows.
    #[must_use]
    pub fn grid(&self) -> [u32; 2] {
        self.grid
    }

    /// The skins (textures).
    #[must_use]
    pub fn skins(&self) -> &[Skin<'data>] {
        &self.skins
    }

    /// The frames (each found in O(1)).
    #[must_use]
    pub fn frames(&self) -> HmpFrames<'data> {
        self.frames
    }

    /// The height of packed value `h`: `scale_z · h + offset_z`.
    #[must_use]
    pub fn height(&self, h: u16) -> f32 {
        self.header.scale[2].get() * f32::from(h) + self.header.offset[2].get()
    }

    /// The spacing of grid vertices along X and Y (`ftrisize_x`, `ftrisize_y`).
    #[must_use]
    pub fn cell_size(&self) -> [f32; 2] {
        [self.header.ftrisize_x.get(), self.header.ftrisize_y.get()]
    }

    /// Tweens frames `a` and `b` at `t` (0 = `a`, 1 = `b`) into `positions` and `normals`, row
    /// major, reusing the caller's storage: the terrain's morph, as
    /// [`tween_scalar`](super::morph::tween_scalar) is an MDL's. Positions lie where
    /// [`Hmp::mesh`] puts them, heights blended linearly; normals are the two frames' normals
    /// blended and renormalised.
    ///
    /// ```
    /// use skelmap_core::Parse;
    /// use skelmap_core::gamestudio::{Hmp, write::HmpBuilder};
    /// let bytes = HmpBuilder {
    ///     row: 2.0,                                  // a 2 × 2 grid
    ///     frames: vec![vec![(10, [0, 0]); 4],        // every height 10...
    ///                  vec![(30, [0, 0]); 4]],       // ...then 30
    ///     ..HmpBuilder::default()                    // HMP7, z = 1·h + 0, 1-unit cells
    /// }
    /// .write();
    /// let hmp = Hmp::parse(&bytes)?;
    /// let (mut p, mut n) = (vec![[0.0; 3]; 4], vec![[0.0; 3]; 4]);
    /// hmp.tween(0, 1, 0.25, &mut p, &mut n)?;
    /// assert_eq!(p, [[0.0, 0.0, 15.0], [1.0, 0.0, 15.0], [0.0, 1.0, 15.0], [1.0, 1.0, 15.0]]);
    /// assert_eq!(n[0], [0.0, 0.0, 1.0]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`MorphError`] for a missing frame or an output shorter than the grid.
    pub fn tween(
        &self,
        a: usize,
        b: usize,
        t: f32,
        positions: &mut [[f32; 3]],
        normals: &mut [[f32; 3]],
    ) -> Result<(), MorphError> {
        let fa = self.frames.get(a).ok_or(MorphError::NoFrame(a))?;
        let fb = self.frames.get(b).ok_or(MorphError::NoFrame(b))?;
        let [nx, ny] = self.grid;
        let need = (nx * ny) as usize;
        let have = positions.len().min(normals.len());
        if have < need {
            return Err(MorphError::Output { need, have });
        }
        let [dx, dy] = self.cell_size();
        for (i, (p, n)) in positions
            .iter_mut()
            .zip(normals.iter_mut())
            .take(need)
            .enumerate()
        {
            let (ix, iy) = (i as u32 % nx, i as u32 / nx);
            let (za, zb) = (
                self.height(fa.raw_height(i).unwrap_or(0)),
                self.height(fb.raw_height(i).unwrap_or(0)),
            );
            *p = [ix as f32 * dx, iy as f32 * dy, za + t * (zb - za)];
            let (na, nb) = (
                fa.normal(i).unwrap_or([0.0, 0.0, 1.0]),
                fb.normal(i).unwrap_or([0.0, 0.0, 1.0]),
            );
            *n = normalise(core::array::from_fn(|k| na[k] + t * (nb[k] - na[k])));
        }
        Ok(())
    }

    /// Vertices of the grid: columns × rows.
    #[must_use]
    pub fn num_vertices(&self) -> usize {
        let [nx, ny] = self.grid;
        nx as usize * ny as usize
    }

    /// Triangles of the grid: two per cell.
    #[must_use]
    pub fn num_triangles(&self) -> usize {
        let [nx, ny] = self.grid;
        2 * (nx as usize - 1) * (ny as usize - 1)
    }

    /// Triangle `i` of the grid: cell `i / 2` (row-major), counter-clockwise seen from
    /// above; `None` out of range.
    #[must_use]
    pub fn triangle(&self, i: usize) -> Option<[u32; 3]> {
        if i >= self.num_triangles() {
            return None;
        }
        let nx = self.grid[0];
        let cell = (i / 2) as u32;
        let (ix, iy) = (cell % (nx - 1), cell / (nx - 1));
        let at = |x: u32, y: u32| y * nx + x;
        let (a, b, c, d) = (
            at(ix, iy),
            at(ix + 1, iy),
            at(ix, iy + 1),
            at(ix + 1, iy + 1),
        );
        Some(if i.is_multiple_of(2) {
            [a, b, d]
        } else {
            [a, d, c]
        })
    }

    /// The texture coordinate of vertex `i`: `(column / (columns − 1), row / (rows − 1))`.
    #[must_use]
    pub fn texcoord(&self, i: usize) -> Option<[f32; 2]> {
        let [nx, ny] = self.grid;
        (i < self.num_vertices()).then(|| {
            let (ix, iy) = (i as u32 % nx, i as u32 / nx);
            [ix as f32 / (nx - 1) as f32, iy as f32 / (ny - 1) as f32]
        })
    }

    /// Frame `frame` as a mesh (see the module docs for the grid's placement). `None` for a
    /// frame that does not exist.
    #[must_use]
    pub fn mesh(&self, frame: usize) -> Option<TerrainMesh> {
        let f = self.frames.get(frame)?;
        let [nx, ny] = self.grid;
        let [dx, dy] = self.cell_size();
        let n = (nx * ny) as usize;
        let mut mesh = TerrainMesh {
            grid: self.grid,
            ..TerrainMesh::default()
        };
        mesh.positions.reserve(n);
        for i in 0..n {
            let (ix, iy) = (i as u32 % nx, i as u32 / nx);
            let z = self.height(f.raw_height(i)?);
            mesh.positions.push([ix as f32 * dx, iy as f32 * dy, z]);
            mesh.normals.push(f.normal(i)?);
            mesh.uvs.push(self.texcoord(i)?);
        }
        mesh.triangles = (0..self.num_triangles())
            .filter_map(|t| self.triangle(t))
            .collect();
        Some(mesh)
    }
}

/// One mesh, the grid, tweened between height frames; a material per skin.
impl<'data> VertexAnimated<'data> for Hmp<'data> {
    type Mesh<'a>
        = &'a Hmp<'data>
    where
        Self: 'a;
    type Frames<'a>
        = HmpFrames<'a>
    where
        Self: 'a;

    fn format(&self) -> Format {
        Format::Hmp
    }

    fn the_mesh(&self) -> &Hmp<'data> {
        self
    }

    fn frame_list(&self) -> HmpFrames<'_> {
        self.frames
    }

    fn skins(&self) -> &[Skin<'_>] {
        &self.skins
    }

    fn terrain(&self) -> Option<TerrainGrid> {
        let [columns, rows] = self.grid;
        Some(TerrainGrid {
            columns,
            rows,
            cell: self.cell_size(),
        })
    }

    /// One version: the grid's tween has no SIMD kernel.
    fn tween(
        &self,
        a: usize,
        b: usize,
        t: f32,
        _: SimdLevel,
        positions: &mut [[f32; 3]],
        normals: &mut [[f32; 3]],
    ) -> Result<(), DeformError> {
        Ok(Hmp::tween(self, a, b, t, positions, normals)?)
    }

    /// `None`: a terrain's frames are heights on a grid, not packed vertices.
    fn keyframe(&self, _: usize) -> Option<(Keyframe<'_>, &'static NormalTable)> {
        None
    }
}

/// The grid: a texture coordinate per vertex, two triangles per cell.
impl<'a, 'data: 'a> MeshView<'a> for &'a Hmp<'data> {
    fn num_vertices(&self) -> usize {
        Hmp::num_vertices(self)
    }

    fn num_triangles(&self) -> usize {
        Hmp::num_triangles(self)
    }

    fn triangle(&self, i: usize) -> Option<[u32; 3]> {
        Hmp::triangle(self, i)
    }

    fn texcoord_layout(&self) -> TexcoordLayout {
        TexcoordLayout::PerVertex
    }

    fn vertex_texcoord(&self, v: usize) -> Option<[f32; 2]> {
        self.texcoord(v)
    }

    fn material(&self, _: usize) -> Option<usize> {
        (!self.skins.is_empty()).then_some(0)
    }
}
