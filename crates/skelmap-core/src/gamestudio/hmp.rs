//! The validated HMP5/HMP7 terrain view (`FORMATS.md` §5) and its grid mesh.
//!
//! ## HMP7, derived from the bytes of the public files
//!
//! HMP7 shares the 84-byte header. Its skins are MDL7-style records (see [`skin`](super::skin):
//! only kind `0x1C` is proven). Each frame is `i32 type` (2), a word-packed bounding box
//! (2 × 8 bytes), a 16-byte name, then per vertex `u16 z, i8 normal_x, i8 normal_y` (4 bytes).
//! With these, both public HMP7 files are read from the first to the last byte: 84 + 36 +
//! 1089 · 4 = 4476 bytes for `terrain.hmp` (no skin), and for the other one a single
//! 512×512 `0x1C` skin of 12 + 786 432 + 258 048 (three mips) + 68 (material) bytes in
//! between. HMP7 stores only a normal's X and Y, as `i8`; skelmap reads the normal as
//! `(−x, y) / 127` with `z = √(1 − x² − y²)`. No document states this. It was measured on
//! `gex4_terrain.hmp` against the normals of its own height field (central differences) on
//! the grid as laid out below:
//! - read as `(−x, y)`: mean cosine 0.9995 over the 961 interior vertices, minimum 0.971;
//! - read as `(x, y)`: mean cosine 0.684, minimum −0.57.
//!
//! So either the stored X has the opposite sign convention, or GameStudio mirrors the grid in
//! X. Negating X keeps the documented layout and its triangle winding.
//!
//! ## The grid
//!
//! `numverts_x = fnumverts_x` (which must be integral), `numverts_y = numverts / numverts_x`;
//! vertex `iy · numverts_x + ix` lies at `x = ix · ftrisize_x`, `y = iy · ftrisize_y`,
//! `z = scale_z · h + offset_z`. The origin is vertex 0 (GameStudio does not document one).

use std::borrow::Cow;

use zerocopy::byteorder::{I32, LittleEndian};

use super::anorms::{NORMALS, NUM_NORMALS};
use super::raw::{Hmp5Vertex, Hmp7Vertex, HmpHeader, TrivertxWord};
use super::skin::{Skin, SkinLayout, read_skin};
use crate::diag::{Diagnostics, WarningKind};
use crate::error::{Error, Result};
use crate::format::Format;
use crate::limits::Limits;
use crate::name;
use crate::parse::Parse;
use crate::read::Reader;
use crate::rules;
use crate::skin::morph::{MorphError, normalise};

const FORMAT: Format = Format::Hmp;
type Le = LittleEndian;

/// The HMP version (from the magic).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HmpVersion {
    /// `HMP5`: normal indices into the 162-entry table.
    Hmp5,
    /// `HMP7`: normals as two `i8` components.
    Hmp7,
}

#[derive(Debug, Clone, Copy)]
enum Heights<'data> {
    V5(&'data [Hmp5Vertex]),
    V7(&'data [Hmp7Vertex]),
}

/// One terrain frame.
#[derive(Debug, Clone, Copy)]
pub struct HmpFrame<'data> {
    frame_type: i32,
    name: &'data [u8],
    heights: Heights<'data>,
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

/// A validated HMP5/HMP7 terrain. `Send`, `Sync`, `Clone` (a small index of skins and frames).
#[derive(Debug, Clone)]
pub struct Hmp<'data> {
    version: HmpVersion,
    header: &'data HmpHeader,
    grid: [u32; 2],
    skins: Vec<Skin<'data>>,
    frames: Vec<HmpFrame<'data>>,
}

/// Validates `data` under `limits`, recording findings in `diag`.
impl<'data> Parse<'data> for Hmp<'data> {
    const FORMAT: Format = FORMAT;

    fn parse_with(
        data: &'data [u8],
        limits: &Limits,
        diag: &mut Diagnostics,
    ) -> Result<Hmp<'data>> {
        rules::begin(FORMAT, data, limits)?;
        let version = match data.get(..4) {
            Some(b"HMP5") => HmpVersion::Hmp5,
            Some(b"HMP7") => HmpVersion::Hmp7,
            Some(b"HMP4") => {
                return Err(Error::Unsupported {
                    format: FORMAT,
                    what: "header.ident",
                    offset: 0,
                    detail: "HMP4's layout is undocumented and no sample proves it; skelmap reads HMP5 and HMP7".into(),
                });
            }
            Some(_) => {
                return Err(Error::BadMagic {
                    format: FORMAT,
                    expected: "\"HMP5\" or \"HMP7\"",
                });
            }
            None if data.iter().zip(b"HMP").all(|(a, b)| a == b) => HmpVersion::Hmp5,
            None => {
                return Err(Error::BadMagic {
                    format: FORMAT,
                    expected: "\"HMP5\" or \"HMP7\"",
                });
            }
        };
        let reader = Reader::new(data, FORMAT);
        let header: &HmpHeader = reader.ref_at("header", 0)?;
        let invalid = |what, offset, detail: String| Error::Invalid {
            format: FORMAT,
            what,
            offset,
            detail,
        };
        let floats = [
            ("header.scale", 16u64, header.scale[2].get()),
            ("header.offset", 28, header.offset[2].get()),
            ("header.ftrisize_x", 36, header.ftrisize_x.get()),
            ("header.ftrisize_y", 40, header.ftrisize_y.get()),
            ("header.fnumverts_x", 44, header.fnumverts_x.get()),
        ];
        for (what, at, v) in floats {
            if !v.is_finite() {
                return Err(invalid(what, at, format!("{v} is not finite")));
            }
        }
        for (what, at, v) in floats.get(2..4).unwrap_or_default() {
            if *v <= 0.0 {
                return Err(invalid(
                    what,
                    *at,
                    format!("grid spacing {v} must be positive"),
                ));
            }
        }
        let fnx = header.fnumverts_x.get();
        if fnx < 2.0 || fnx.fract() != 0.0 || fnx > limits.max_vertices_per_mesh as f32 {
            return Err(invalid(
                "header.fnumverts_x",
                44,
                format!("{fnx} vertices per row: must be a whole number of at least 2"),
            ));
        }
        let nx = fnx as u32;
        let numverts = u32::try_from(header.numverts.get()).map_err(|_| {
            invalid(
                "header.numverts",
                60,
                format!("negative count {}", header.numverts.get()),
            )
        })?;
        rules::check_count(
            FORMAT,
            "header.numverts",
            60,
            numverts,
            limits.max_vertices_per_mesh,
            "terrain has no vertices",
        )?;
        if numverts % nx != 0 || numverts / nx < 2 {
            return Err(invalid(
                "header.numverts",
                60,
                format!("{numverts} vertices do not make rows of {nx} (at least 2 rows)"),
            ));
        }
        let ny = numverts / nx;
        let numskins = u32::try_from(header.numskins.get()).map_err(|_| {
            invalid(
                "header.numskins",
                48,
                format!("negative count {}", header.numskins.get()),
            )
        })?;
        if numskins > limits.max_skins {
            return Err(Error::Limit {
                format: FORMAT,
                what: "header.numskins",
                offset: 48,
                value: numskins.into(),
                max: limits.max_skins.into(),
            });
        }
        let numframes = u32::try_from(header.numframes.get()).unwrap_or(0);
        rules::check_count(
            FORMAT,
            "header.numframes",
            68,
            numframes,
            limits.max_frames,
            "terrain has no frames",
        )?;

        let layout = match version {
            HmpVersion::Hmp5 => SkinLayout::Mdl5,
            HmpVersion::Hmp7 => SkinLayout::Hmp7,
        };
        let mut walk = reader.walk(size_of::<HmpHeader>() as u64);
        let mut skins = Vec::with_capacity(numskins as usize);
        for _ in 0..numskins {
            skins.push(read_skin(&mut walk, layout, FORMAT, limits)?);
        }
        let mut frames = Vec::with_capacity(numframes as usize);
        for f in 0..numframes {
            let at = walk.offset();
            let frame_type = walk.read::<I32<Le>>("frame.type")?.get();
            walk.read_slice::<TrivertxWord>("frame.bbox", 2)?;
            let name = walk.read_slice::<u8>("frame.name", 16)?;
            if frame_type != 2 {
                diag.warn(FORMAT, WarningKind::SpecLimit, "frame.type", at, || {
                    format!("frame {f} has type {frame_type}; 2 is usual")
                });
            }
            let vertices_at = walk.offset();
            let heights = match version {
                HmpVersion::Hmp5 => {
                    let v = walk.read_slice::<Hmp5Vertex>("frame.vertices", numverts.into())?;
                    if let Some(i) = v.iter().position(|v| usize::from(v.normal) >= NUM_NORMALS) {
                        return Err(invalid(
                            "frame.vertices",
                            vertices_at + 4 * i as u64 + 2,
                            format!("frame {f}, vertex {i}: normal index {}", v[i].normal),
                        ));
                    }
                    Heights::V5(v)
                }
                HmpVersion::Hmp7 => {
                    Heights::V7(walk.read_slice::<Hmp7Vertex>("frame.vertices", numverts.into())?)
                }
            };
            frames.push(HmpFrame {
                frame_type,
                name,
                heights,
            });
        }
        let end = walk.offset();
        if end < reader.len() {
            let extra = reader.len() - end;
            diag.warn(FORMAT, WarningKind::TrailingBytes, "file", end, || {
                format!("{extra} bytes after the last frame")
            });
        }
        Ok(Hmp {
            version,
            header,
            grid: [nx, ny],
            skins,
            frames,
        })
    }
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

    /// The frames.
    #[must_use]
    pub fn frames(&self) -> &[HmpFrame<'data>] {
        &self.frames
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
    pub fn num_verts(&self) -> usize {
        let [nx, ny] = self.grid;
        nx as usize * ny as usize
    }

    /// Triangles of the grid: two per cell.
    #[must_use]
    pub fn num_tris(&self) -> usize {
        let [nx, ny] = self.grid;
        2 * (nx as usize - 1) * (ny as usize - 1)
    }

    /// Triangle `i` of the grid: cell `i / 2` (row-major), counter-clockwise seen from
    /// above; `None` out of range.
    #[must_use]
    pub fn triangle(&self, i: usize) -> Option<[u32; 3]> {
        if i >= self.num_tris() {
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
        (i < self.num_verts()).then(|| {
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
        mesh.triangles = (0..self.num_tris())
            .filter_map(|t| self.triangle(t))
            .collect();
        Some(mesh)
    }
}
