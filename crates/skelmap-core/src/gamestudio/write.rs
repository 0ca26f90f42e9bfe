//! Writing GameStudio MDL3/4/5 and HMP5/7 files (MDL5 conversions through
//! `MdlBuilder::from_asset`, fixtures and fuzz seeds). The builders write exactly what they
//! are given; the parsers judge.

use zerocopy::FromZeros;
use zerocopy::IntoBytes;
use zerocopy::byteorder::{F32, I32, LittleEndian, U16};

use super::raw::{HmpHeader, MdlHeader};
use crate::alias::pack::{grid, nearest_normal, pack};
use crate::asset::{Asset, FitError, Fitted, UpAxis};

type Le = LittleEndian;

/// A skin to write: the type code, width and height, and the texel bytes of each level (or
/// the DDS bytes) concatenated, plus trailing bytes (an HMP7 material).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SkinDef {
    /// Type code.
    pub code: i32,
    /// Width (MDL5/HMP; for DDS the byte length).
    pub width: i32,
    /// Height (MDL5/HMP).
    pub height: i32,
    /// Texels of every level, or the DDS file, and anything that follows them.
    pub data: Vec<u8>,
}

/// A frame to write: type (0 byte, 2 word), name, packed vertices `(x, y, z, normal index)`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MdlFrameDef {
    /// 0 or 2.
    pub frame_type: i32,
    /// Name, at most 16 bytes (longer names are cut).
    pub name: Vec<u8>,
    /// Packed coordinates (bytes are written as `u8` for type 0) and normal index.
    pub vertices: Vec<([u16; 3], u8)>,
}

/// Builds an MDL3, MDL4 or MDL5 file.
#[derive(Debug, Clone, PartialEq)]
pub struct MdlBuilder {
    /// 3, 4 or 5.
    pub version: u8,
    /// Vertex scale.
    pub scale: [f32; 3],
    /// Vertex offset.
    pub offset: [f32; 3],
    /// Skin size for MDL3/4 (MDL5 skins carry their own).
    pub skin_size: [i32; 2],
    /// Skins.
    pub skins: Vec<SkinDef>,
    /// Skin vertices `(u, v)` in texels.
    pub skin_vertices: Vec<[i16; 2]>,
    /// Triangles `(vertex indices, skin vertex indices)`.
    pub triangles: Vec<([u16; 3], [u16; 3])>,
    /// Frames; the vertex count written is the first frame's.
    pub frames: Vec<MdlFrameDef>,
}

impl Default for MdlBuilder {
    fn default() -> Self {
        MdlBuilder {
            version: 5,
            scale: [1.0; 3],
            offset: [0.0; 3],
            skin_size: [0; 2],
            skins: Vec::new(),
            skin_vertices: Vec::new(),
            triangles: Vec::new(),
            frames: Vec::new(),
        }
    }
}

fn name16(name: &[u8]) -> [u8; 16] {
    let mut field = [0u8; 16];
    for (d, s) in field.iter_mut().zip(name) {
        *d = *s;
    }
    field
}

impl MdlBuilder {
    /// Writes the file.
    #[must_use]
    pub fn write(&self) -> Vec<u8> {
        let mut h = MdlHeader::new_zeroed();
        h.ident = *b"MDL0";
        h.ident[3] = b'0' + self.version;
        h.scale = self.scale.map(F32::new);
        h.scale_origin = self.offset.map(F32::new);
        h.numskins = I32::new(self.skins.len() as i32);
        if self.version < 5 {
            h.skinwidth = I32::new(self.skin_size[0]);
            h.skinheight = I32::new(self.skin_size[1]);
        }
        let numverts = self.frames.first().map_or(0, |f| f.vertices.len());
        h.numverts = I32::new(numverts as i32);
        h.numtris = I32::new(self.triangles.len() as i32);
        h.numframes = I32::new(self.frames.len() as i32);
        h.synctype = I32::new(self.skin_vertices.len() as i32);
        let mut out = h.as_bytes().to_vec();
        for skin in &self.skins {
            out.extend_from_slice(I32::<Le>::new(skin.code).as_bytes());
            if self.version >= 5 {
                out.extend_from_slice(I32::<Le>::new(skin.width).as_bytes());
                out.extend_from_slice(I32::<Le>::new(skin.height).as_bytes());
            }
            out.extend_from_slice(&skin.data);
        }
        for uv in &self.skin_vertices {
            out.extend_from_slice(uv.map(zerocopy::byteorder::I16::<Le>::new).as_bytes());
        }
        for (xyz, uv) in &self.triangles {
            out.extend_from_slice(xyz.map(U16::<Le>::new).as_bytes());
            out.extend_from_slice(uv.map(U16::<Le>::new).as_bytes());
        }
        for f in &self.frames {
            out.extend_from_slice(I32::<Le>::new(f.frame_type).as_bytes());
            let put = |out: &mut Vec<u8>, (v, n): ([u16; 3], u8)| {
                if f.frame_type == 0 {
                    out.extend_from_slice(&[v[0] as u8, v[1] as u8, v[2] as u8, n]);
                } else {
                    out.extend_from_slice(v.map(U16::<Le>::new).as_bytes());
                    out.extend_from_slice(&[n, 0]);
                }
            };
            let min = f.vertices.iter().fold([u16::MAX; 3], |m, (v, _)| {
                core::array::from_fn(|k| m[k].min(v[k]))
            });
            let max = f.vertices.iter().fold([0u16; 3], |m, (v, _)| {
                core::array::from_fn(|k| m[k].max(v[k]))
            });
            put(&mut out, (min, 0));
            put(&mut out, (max, 0));
            out.extend_from_slice(&name16(&f.name));
            for &v in &f.vertices {
                put(&mut out, v);
            }
        }
        out
    }
}

/// Builds an HMP5 or HMP7 terrain.
#[derive(Debug, Clone, PartialEq)]
pub struct HmpBuilder {
    /// 5 or 7.
    pub version: u8,
    /// Height scale and offset: `z = scale · h + offset`.
    pub height_scale: [f32; 2],
    /// Grid spacing along X and Y.
    pub spacing: [f32; 2],
    /// Vertices per row (written as a float).
    pub row: f32,
    /// Skins.
    pub skins: Vec<SkinDef>,
    /// Frames: packed height and normal bytes (HMP5: index and 0; HMP7: x, y as `i8`).
    pub frames: Vec<Vec<(u16, [u8; 2])>>,
}

impl Default for HmpBuilder {
    fn default() -> Self {
        HmpBuilder {
            version: 7,
            height_scale: [1.0, 0.0],
            spacing: [1.0; 2],
            row: 2.0,
            skins: Vec::new(),
            frames: Vec::new(),
        }
    }
}

impl HmpBuilder {
    /// Writes the file.
    #[must_use]
    pub fn write(&self) -> Vec<u8> {
        let mut h = HmpHeader::new_zeroed();
        h.ident = *b"HMP0";
        h.ident[3] = b'0' + self.version;
        h.scale[2] = F32::new(self.height_scale[0]);
        h.offset[2] = F32::new(self.height_scale[1]);
        h.ftrisize_x = F32::new(self.spacing[0]);
        h.ftrisize_y = F32::new(self.spacing[1]);
        h.fnumverts_x = F32::new(self.row);
        h.numskins = I32::new(self.skins.len() as i32);
        h.numverts = I32::new(self.frames.first().map_or(0, Vec::len) as i32);
        h.numframes = I32::new(self.frames.len() as i32);
        let mut out = h.as_bytes().to_vec();
        for skin in &self.skins {
            for v in [skin.code, skin.width, skin.height] {
                out.extend_from_slice(I32::<Le>::new(v).as_bytes());
            }
            out.extend_from_slice(&skin.data);
        }
        for frame in &self.frames {
            out.extend_from_slice(I32::<Le>::new(2).as_bytes());
            out.extend_from_slice(&[0u8; 16]);
            out.extend_from_slice(&name16(b"frame"));
            for &(z, n) in frame {
                out.extend_from_slice(U16::<Le>::new(z).as_bytes());
                out.extend_from_slice(&n);
            }
        }
        out
    }
}

impl MdlBuilder {
    /// `asset` as a GameStudio MDL5 (`+Z` up; a `+Y`-up asset is turned): every mesh in one,
    /// each vertex with its own skin vertex, every frame (each morph target shown, or with
    /// `bake`, each skeletal frame skinned) packed in 16-bit words (frame type 2) on one grid
    /// around all frames, normals as the nearest of the 162, frames named after their clip
    /// (15 bytes at most). Each material's image becomes a 32-bit skin (ARGB8888); MDL5
    /// draws one skin at a time, the first.
    ///
    /// ```
    /// use skelmap_core::{Model, asset, gamestudio, synth};
    /// let bytes = synth::tube(&Default::default()).write()?;
    /// let asset = Model::from_bytes(&bytes)?.to_asset(&asset::Options::default())?;
    /// let mdl = gamestudio::MdlBuilder::from_asset(&asset, true)?.builder.write();
    /// let model = Model::from_bytes(&mdl)?;
    /// assert_eq!((model.format().name(), model.num_frames()), ("MDL", 9));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`FitError`] for skeletal animation without `bake`, or more than 65,535 vertices.
    pub fn from_asset(asset: &Asset, bake: bool) -> Result<Fitted<MdlBuilder>, FitError> {
        let asset = asset.with_up(UpAxis::Z);
        let (asset, dropped) = asset.drawable("MDL5")?;
        if asset.skeleton.is_some() && asset.num_frames() > 0 && !bake {
            return Err(FitError::new(
                "MDL5",
                "skeletal animation",
                "it stores each frame's vertices, not joints",
                "bake every frame's skinned vertices with `--bake`, or convert to MDL7's \
                 skeletal form with GameStudio's MED",
            ));
        }
        let vertices = asset.num_vertices();
        if vertices > usize::from(u16::MAX) {
            return Err(FitError::new(
                "MDL5",
                format!("{vertices} vertices"),
                "its triangles index vertices in 16 bits: at most 65,535",
                "merge duplicate vertices with `skelmap optimize`, or split the model",
            ));
        }
        let mut losses = Vec::new();
        losses.extend(dropped);
        losses.extend(asset.frame_name_note(crate::asset::MAX_BAKED_NAME, "MDL"));
        let skins: Vec<SkinDef> = asset
            .materials
            .iter()
            .filter_map(|m| asset.images.get(m.image?))
            .filter(|i| i.rgba.len() == 4 * (i.width as usize) * (i.height as usize))
            .map(|i| SkinDef {
                code: 5,
                width: i.width as i32,
                height: i.height as i32,
                data: i
                    .rgba
                    .chunks_exact(4)
                    .flat_map(|c| [c[2], c[1], c[0], c[3]])
                    .collect(),
            })
            .collect();
        if skins.len() > 1 {
            losses.push(format!(
                "{} skins: MDL5 draws one at a time, the first, over the whole model",
                skins.len()
            ));
        }
        let (w, h) = skins
            .first()
            .map_or((1.0, 1.0), |s| (s.width as f32, s.height as f32));
        let frames = asset.baked();
        let grid = grid(
            frames.iter().flat_map(|(_, f)| f.positions.iter()),
            u16::MAX,
        );
        let mut b = MdlBuilder {
            scale: grid.0,
            offset: grid.1,
            skins,
            ..MdlBuilder::default()
        };
        for mesh in &asset.meshes {
            let first = b.skin_vertices.len() as u16;
            b.skin_vertices.extend((0..mesh.positions.len()).map(|v| {
                let uv = mesh.uv(v);
                [(uv[0] * w).round() as i16, (uv[1] * h).round() as i16]
            }));
            b.triangles.extend(mesh.triangles.iter().map(|t| {
                let t = t.map(|i| first + i as u16);
                (t, t)
            }));
        }
        b.frames = frames
            .into_iter()
            .map(|(name, f)| MdlFrameDef {
                frame_type: 2,
                name,
                vertices: f
                    .positions
                    .iter()
                    .zip(&f.normals)
                    .map(|(p, n)| (pack(*p, grid, u16::MAX), nearest_normal(*n)))
                    .collect(),
            })
            .collect();
        Ok(Fitted { builder: b, losses })
    }
}

impl crate::asset::Writer for MdlBuilder {
    const FORMAT: crate::format::Format = crate::format::Format::Mdl;
    const STORES_IMAGES: bool = true;

    /// An MDL5.
    fn write_asset(
        asset: &Asset,
        options: &crate::asset::WriteOptions,
    ) -> Result<crate::asset::Written, crate::asset::WriteError> {
        let Fitted { builder, losses } = MdlBuilder::from_asset(asset, options.bake)?;
        Ok(crate::asset::Written::one(Self::FORMAT, builder.write()).with_notes(losses))
    }
}
