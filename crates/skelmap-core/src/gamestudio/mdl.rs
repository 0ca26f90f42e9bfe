//! The validated MDL3/MDL4/MDL5 view (`FORMATS.md` §4.5) and its accessors.

use std::borrow::Cow;

use zerocopy::byteorder::{I32, LittleEndian};

use super::anorms::NUM_NORMALS;
use super::raw::{MdlHeader, SkinVertex, Triangle, TrivertxByte, TrivertxWord};
use super::skin::{Skin, SkinLayout, read_skin};
use crate::diag::{Diagnostics, WarningKind};
use crate::error::{Error, Result};
use crate::floatbits::{Masks, flat};
use crate::format::Format;
use crate::limits::Limits;
use crate::name;
use crate::parse::Parse;
use crate::read::Reader;
use crate::rules;

const FORMAT: Format = Format::Mdl;
type Le = LittleEndian;

/// The MDL version (from the magic).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum MdlVersion {
    /// `MDL3` (A4): byte-packed frames, skins sized by the header.
    Mdl3,
    /// `MDL4` (A5): word-packed frames allowed, skins sized by the header.
    Mdl4,
    /// `MDL5` (A5+): skins carry their size, mips and more pixel formats.
    Mdl5,
}

/// One frame's packed vertices.
#[derive(Debug, Clone, Copy)]
pub enum PackedVertices<'data> {
    /// Type 0: `u8` coordinates.
    Byte(&'data [TrivertxByte]),
    /// Type 2: `u16` coordinates.
    Word(&'data [TrivertxWord]),
}

impl PackedVertices<'_> {
    /// Number of vertices.
    #[must_use]
    pub fn len(&self) -> usize {
        match self {
            PackedVertices::Byte(v) => v.len(),
            PackedVertices::Word(v) => v.len(),
        }
    }

    /// `true` if there are none.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Vertex `i`: packed coordinates and normal index.
    #[must_use]
    pub fn get(&self, i: usize) -> Option<([u16; 3], u8)> {
        match self {
            PackedVertices::Byte(v) => v.get(i).map(|t| (t.v.map(u16::from), t.normal)),
            PackedVertices::Word(v) => v.get(i).map(|t| (t.v.map(|c| c.get()), t.normal)),
        }
    }
}

/// One animation frame.
#[derive(Debug, Clone, Copy)]
pub struct MdlFrame<'data> {
    frame_type: i32,
    bbox: [([u16; 3], u8); 2],
    name: &'data [u8],
    vertices: PackedVertices<'data>,
}

impl<'data> MdlFrame<'data> {
    /// The frame type: 0 byte-packed, 2 word-packed.
    #[must_use]
    pub fn frame_type(&self) -> i32 {
        self.frame_type
    }

    /// The packed bounding box `(min, max)` (same packing as the vertices).
    #[must_use]
    pub fn bbox(&self) -> [([u16; 3], u8); 2] {
        self.bbox
    }

    /// The name bytes, up to the first NUL (16-byte field; real files hold garbage here).
    #[must_use]
    pub fn name(&self) -> &'data [u8] {
        name::trim_nul(self.name)
    }

    /// The name as text (invalid UTF-8 replaced).
    #[must_use]
    pub fn name_lossy(&self) -> Cow<'data, str> {
        name::lossy(self.name())
    }

    /// The packed vertices (each normal index < 162).
    #[must_use]
    pub fn vertices(&self) -> PackedVertices<'data> {
        self.vertices
    }
}

/// A validated GameStudio MDL3/4/5 model. `Send`, `Sync`, `Clone` (it owns a small index of
/// its skins and frames, built once at open).
#[derive(Debug, Clone)]
pub struct Mdl<'data> {
    version: MdlVersion,
    header: &'data MdlHeader,
    skins: Vec<Skin<'data>>,
    skin_vertices: &'data [SkinVertex],
    triangles: &'data [Triangle],
    frames: Vec<MdlFrame<'data>>,
}

/// Validates `data` under `limits`, recording findings in `diag`.
impl<'data> Parse<'data> for Mdl<'data> {
    const FORMAT: Format = FORMAT;

    fn parse_with(
        data: &'data [u8],
        limits: &Limits,
        diag: &mut Diagnostics,
    ) -> Result<Mdl<'data>> {
        rules::begin(FORMAT, data, limits)?;
        let version = match data.get(..4) {
            Some(b"MDL3") => MdlVersion::Mdl3,
            Some(b"MDL4") => MdlVersion::Mdl4,
            Some(b"MDL5") => MdlVersion::Mdl5,
            Some(m @ (b"MDL2" | b"MDL7")) => {
                let v = char::from(m[3]);
                return Err(Error::Unsupported {
                    format: FORMAT,
                    what: "header.ident",
                    offset: 0,
                    detail: format!(
                        "MDL{v} is a different layout; skelmap reads MDL3, MDL4 and MDL5"
                    ),
                });
            }
            Some(_) => {
                return Err(Error::BadMagic {
                    format: FORMAT,
                    expected: "\"MDL3\", \"MDL4\" or \"MDL5\"",
                });
            }
            // Shorter than a magic: a prefix of "MDL" is a truncated header, reported below.
            None if data.iter().zip(b"MDL").all(|(a, b)| a == b) => MdlVersion::Mdl3,
            None => {
                return Err(Error::BadMagic {
                    format: FORMAT,
                    expected: "\"MDL3\", \"MDL4\" or \"MDL5\"",
                });
            }
        };
        let reader = Reader::new(data, FORMAT);
        let header: &MdlHeader = reader.ref_at("header", 0)?;
        let invalid = |what, offset, detail: String| Error::Invalid {
            format: FORMAT,
            what,
            offset,
            detail,
        };
        let masks = Masks::of::<Le>();
        if masks.any_non_finite(flat::<Le, _>(core::slice::from_ref(&[
            header.scale,
            header.offset,
        ]))) {
            return Err(invalid(
                "header.scale",
                8,
                "scale or offset is NaN or infinite".into(),
            ));
        }
        let count = |v: &I32<Le>, what: &'static str, offset: u64| -> Result<u32> {
            u32::try_from(v.get())
                .map_err(|_| invalid(what, offset, format!("negative count {}", v.get())))
        };
        let numskins = count(&header.numskins, "header.numskins", 48)?;
        let numverts = count(&header.numverts, "header.numverts", 60)?;
        let numtris = count(&header.numtris, "header.numtris", 64)?;
        let numframes = count(&header.numframes, "header.numframes", 68)?;
        let numskinverts = count(&header.numskinverts, "header.numskinverts", 72)?;
        rules::check_count(
            FORMAT,
            "header.numverts",
            60,
            numverts,
            limits.max_vertices_per_mesh.min(65_536),
            "model has no vertices",
        )?;
        rules::check_count(
            FORMAT,
            "header.numtris",
            64,
            numtris,
            limits.max_triangles_per_mesh,
            "model has no triangles",
        )?;
        rules::check_count(
            FORMAT,
            "header.numframes",
            68,
            numframes,
            limits.max_frames,
            "model has no frames",
        )?;
        if numskins > limits.max_skins {
            return Err(Error::Limit {
                format: FORMAT,
                what: "header.numskins",
                offset: 48,
                value: numskins.into(),
                max: limits.max_skins.into(),
            });
        }
        if numskinverts > 65_536 {
            return Err(invalid(
                "header.numskinverts",
                72,
                format!("{numskinverts} skin vertices; 16-bit indices reach 65536"),
            ));
        }

        let layout = if version == MdlVersion::Mdl5 {
            SkinLayout::Mdl5
        } else {
            let dims = (header.skinwidth.get(), header.skinheight.get());
            match (u32::try_from(dims.0), u32::try_from(dims.1)) {
                (Ok(width), Ok(height)) if numskins == 0 || (width > 0 && height > 0) => {
                    SkinLayout::Sized { width, height }
                }
                _ => {
                    return Err(invalid(
                        "header.skinwidth",
                        52,
                        format!("skins of {}×{} texels", dims.0, dims.1),
                    ));
                }
            }
        };
        let mut walk = reader.walk(size_of::<MdlHeader>() as u64);
        let mut skins = Vec::with_capacity(numskins as usize);
        for _ in 0..numskins {
            skins.push(read_skin(&mut walk, layout, FORMAT, limits)?);
        }
        if let SkinLayout::Sized { width, .. } = layout
            && numskins > 0
            && width % 4 != 0
        {
            diag.warn(
                FORMAT,
                WarningKind::SpecLimit,
                "header.skinwidth",
                52,
                || format!("skin width {width} is not a multiple of 4"),
            );
        }
        let skin_vertices = walk.read_slice::<SkinVertex>("skin vertices", numskinverts.into())?;
        let triangles_at = walk.offset();
        let triangles = walk.read_slice::<Triangle>("triangles", numtris.into())?;
        for (i, t) in triangles.iter().enumerate() {
            let at = triangles_at + 12 * i as u64;
            if let Some(k) = t
                .index_xyz
                .iter()
                .position(|v| u32::from(v.get()) >= numverts)
            {
                return Err(invalid(
                    "triangle.index_xyz",
                    at + 2 * k as u64,
                    format!(
                        "triangle {i}: vertex {} of {numverts}",
                        t.index_xyz[k].get()
                    ),
                ));
            }
            // Without skin vertices the UV indices mean nothing and are ignored.
            if numskinverts > 0
                && let Some(k) = t
                    .index_uv
                    .iter()
                    .position(|v| u32::from(v.get()) >= numskinverts)
            {
                return Err(invalid(
                    "triangle.index_uv",
                    at + 6 + 2 * k as u64,
                    format!(
                        "triangle {i}: skin vertex {} of {numskinverts}",
                        t.index_uv[k].get()
                    ),
                ));
            }
        }
        let (width, height) = skins.first().map_or((0, 0), |s| (s.width(), s.height()));
        if width > 0
            && skin_vertices.iter().any(|uv| {
                !(0..=width as i32).contains(&i32::from(uv.u.get()))
                    || !(0..=height as i32).contains(&i32::from(uv.v.get()))
            })
        {
            diag.warn(
                FORMAT,
                WarningKind::SpecLimit,
                "skin vertices",
                size_of::<MdlHeader>() as u64,
                || "skin vertices outside the first skin".into(),
            );
        }

        let mut frames = Vec::with_capacity(numframes as usize);
        for f in 0..numframes {
            let at = walk.offset();
            let frame_type = walk.read::<I32<Le>>("frame.type")?.get();
            let frame = match frame_type {
                0 => {
                    let bbox = walk.read_slice::<TrivertxByte>("frame.bbox", 2)?;
                    let name = walk.read_slice::<u8>("frame.name", 16)?;
                    let vertices =
                        walk.read_slice::<TrivertxByte>("frame.vertices", numverts.into())?;
                    check_normals(
                        vertices.iter().map(|v| v.normal),
                        at + 4 + 8 + 16,
                        [4, 3],
                        f,
                    )?;
                    let b = |i: usize| {
                        bbox.get(i)
                            .map_or(([0; 3], 0), |t| (t.v.map(u16::from), t.normal))
                    };
                    MdlFrame {
                        frame_type,
                        bbox: [b(0), b(1)],
                        name,
                        vertices: PackedVertices::Byte(vertices),
                    }
                }
                2 => {
                    let bbox = walk.read_slice::<TrivertxWord>("frame.bbox", 2)?;
                    let name = walk.read_slice::<u8>("frame.name", 16)?;
                    let vertices =
                        walk.read_slice::<TrivertxWord>("frame.vertices", numverts.into())?;
                    check_normals(
                        vertices.iter().map(|v| v.normal),
                        at + 4 + 16 + 16,
                        [8, 6],
                        f,
                    )?;
                    let b = |i: usize| {
                        bbox.get(i)
                            .map_or(([0; 3], 0), |t| (t.v.map(|c| c.get()), t.normal))
                    };
                    MdlFrame {
                        frame_type,
                        bbox: [b(0), b(1)],
                        name,
                        vertices: PackedVertices::Word(vertices),
                    }
                }
                t => {
                    return Err(Error::Unsupported {
                        format: FORMAT,
                        what: "frame.type",
                        offset: at,
                        detail: format!(
                            "frame {f} has type {t}; 0 (byte) and 2 (word) are defined"
                        ),
                    });
                }
            };
            frames.push(frame);
        }
        let end = walk.offset();
        if end < reader.len() {
            let extra = reader.len() - end;
            diag.warn(FORMAT, WarningKind::TrailingBytes, "file", end, || {
                format!("{extra} bytes after the last frame")
            });
        }
        Ok(Mdl {
            version,
            header,
            skins,
            skin_vertices,
            triangles,
            frames,
        })
    }
}

impl<'data> Mdl<'data> {
    /// The version.
    #[must_use]
    pub fn version(&self) -> MdlVersion {
        self.version
    }

    /// The raw header.
    #[must_use]
    pub fn header(&self) -> &'data MdlHeader {
        self.header
    }

    /// Vertex scale: position = scale · packed + offset.
    #[must_use]
    pub fn scale(&self) -> [f32; 3] {
        self.header.scale.map(|v| v.get())
    }

    /// Vertex offset.
    #[must_use]
    pub fn offset(&self) -> [f32; 3] {
        self.header.offset.map(|v| v.get())
    }

    /// Vertices per frame.
    #[must_use]
    pub fn num_verts(&self) -> usize {
        self.header.numverts.get() as usize
    }

    /// The skins.
    #[must_use]
    pub fn skins(&self) -> &[Skin<'data>] {
        &self.skins
    }

    /// The skin vertices, raw texel units `(u, v)` (may lie outside the skin).
    pub fn skin_vertices(&self) -> impl ExactSizeIterator<Item = [i16; 2]> + Clone + 'data {
        self.skin_vertices.iter().map(|s| [s.u.get(), s.v.get()])
    }

    /// Skin vertex `i` as a UV in `0..=1` over a `width × height` skin: `(u / width, v / height)`
    /// with `v` pointing down the image, as the texels are stored (no half-texel shift, no
    /// flip: the loaders disagree, so this helper does the plain division).
    #[must_use]
    pub fn normalised_uv(&self, i: usize, width: u32, height: u32) -> Option<[f32; 2]> {
        let s = self.skin_vertices.get(i)?;
        Some([
            f32::from(s.u.get()) / width.max(1) as f32,
            f32::from(s.v.get()) / height.max(1) as f32,
        ])
    }

    /// The triangles: `(3D vertex indices, skin vertex indices)`, as stored.
    pub fn triangles(&self) -> impl ExactSizeIterator<Item = ([u16; 3], [u16; 3])> + Clone + 'data {
        self.triangles
            .iter()
            .map(|t| (t.index_xyz.map(|v| v.get()), t.index_uv.map(|v| v.get())))
    }

    /// Triangle `i`: `(3D vertex indices, skin vertex indices)`, or `None` out of range.
    #[must_use]
    pub fn triangle(&self, i: usize) -> Option<([u16; 3], [u16; 3])> {
        self.triangles
            .get(i)
            .map(|t| (t.index_xyz.map(|v| v.get()), t.index_uv.map(|v| v.get())))
    }

    /// The texel size skin vertices are measured against: the first skin's, else the
    /// header's (`(1, 1)` when neither is positive).
    #[must_use]
    pub fn skin_size(&self) -> (u32, u32) {
        match self.skins.first() {
            Some(s) => (s.width(), s.height()),
            None => (
                u32::try_from(self.header.skinwidth.get()).unwrap_or(1),
                u32::try_from(self.header.skinheight.get()).unwrap_or(1),
            ),
        }
    }

    /// The frames.
    #[must_use]
    pub fn frames(&self) -> &[MdlFrame<'data>] {
        &self.frames
    }
}

/// Every normal index below 162; `[stride, normal_at]` locate each vertex's normal byte.
fn check_normals(
    normals: impl Iterator<Item = u8>,
    first_at: u64,
    [stride, normal_at]: [u64; 2],
    frame: u32,
) -> Result<()> {
    for (i, n) in normals.enumerate() {
        if usize::from(n) >= NUM_NORMALS {
            return Err(Error::Invalid {
                format: FORMAT,
                what: "frame.vertices",
                offset: first_at + stride * i as u64 + normal_at,
                detail: format!(
                    "frame {frame}, vertex {i}: normal index {n}; the table has {NUM_NORMALS}"
                ),
            });
        }
    }
    Ok(())
}
