//! Writing Quake MDL (`IDPO`) and GameStudio MDL2 files (conversions through
//! `Builder::from_asset`, fixtures and fuzz seeds). The builder writes exactly what it is
//! given, counts included; the parser judges.

use std::collections::HashMap;

use zerocopy::byteorder::{F32, I32, LittleEndian};
use zerocopy::{FromZeros, IntoBytes};

use super::raw::{
    ALIAS_GROUP, ALIAS_SINGLE, ALIAS_SKIN_GROUP, ALIAS_VERSION, IDPO_MAGIC, MDL2_MAGIC, MdlHeader,
};

use super::palette::PALETTE;
use crate::alias::pack::{grid, nearest_normal, pack};
use crate::asset::{Asset, FitError, Fitted, UpAxis};

type Le = LittleEndian;

/// A skin entry to write.
#[derive(Debug, Clone, PartialEq)]
pub enum SkinDef {
    /// One image: the type code (0 for Quake; 0, 2 or 3 for MDL2) and its texel bytes.
    Single {
        /// Type code.
        code: i32,
        /// Texel bytes.
        texels: Vec<u8>,
    },
    /// A Quake skin group: intervals and images (their counts written as the intervals').
    Group {
        /// Intervals, seconds.
        intervals: Vec<f32>,
        /// Each image's texel bytes.
        images: Vec<Vec<u8>>,
    },
}

/// One pose to write: a name and packed vertices `(x, y, z, normal index)`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FrameDef {
    /// Name, at most 16 bytes (longer names are cut).
    pub name: Vec<u8>,
    /// Packed vertices.
    pub vertices: Vec<([u8; 3], u8)>,
}

/// A frame entry to write.
#[derive(Debug, Clone, PartialEq)]
pub enum FrameEntry {
    /// A single frame (type 0).
    Single(FrameDef),
    /// A frame group (type 1): intervals (their count is written as the group's) and poses.
    Group {
        /// Intervals, seconds.
        intervals: Vec<f32>,
        /// The poses.
        frames: Vec<FrameDef>,
    },
}

/// Builds a Quake MDL or an MDL2.
#[derive(Debug, Clone, PartialEq)]
pub struct Builder {
    /// `IDPO` or `MDL2`.
    pub ident: [u8; 4],
    /// 6 for Quake, 0 in MDL2 files.
    pub version: i32,
    /// Vertex scale.
    pub scale: [f32; 3],
    /// Vertex origin.
    pub origin: [f32; 3],
    /// `skinwidth`, `skinheight`.
    pub skin_size: [i32; 2],
    /// Skins.
    pub skins: Vec<SkinDef>,
    /// Texture vertices `(onseam, s, t)`; `numverts` is their count.
    pub stverts: Vec<[i32; 3]>,
    /// Triangles `(facesfront, vertex indices)`.
    pub triangles: Vec<(i32, [i32; 3])>,
    /// Frames.
    pub frames: Vec<FrameEntry>,
    /// Bytes written after the last frame.
    pub trailing: Vec<u8>,
}

impl Default for Builder {
    fn default() -> Self {
        Builder {
            ident: *IDPO_MAGIC,
            version: ALIAS_VERSION,
            scale: [1.0; 3],
            origin: [0.0; 3],
            skin_size: [0; 2],
            skins: Vec::new(),
            stverts: Vec::new(),
            triangles: Vec::new(),
            frames: Vec::new(),
            trailing: Vec::new(),
        }
    }
}

impl Builder {
    /// A Quake MDL with one 8 × 8 skin (texel `i` holds `i`), one front-facing triangle at
    /// `(0, 0, 0)`, `(1, 0, 0)`, `(0, 1, 0)` and one frame named `base`.
    #[must_use]
    pub fn triangle() -> Builder {
        Builder {
            skin_size: [8, 8],
            skins: vec![SkinDef::Single {
                code: 0,
                texels: (0..64).collect(),
            }],
            stverts: vec![[0, 0, 0], [0, 7, 0], [0, 0, 7]],
            triangles: vec![(1, [0, 1, 2])],
            frames: vec![FrameEntry::Single(FrameDef {
                name: b"base".to_vec(),
                vertices: vec![([0, 0, 0], 0), ([1, 0, 0], 0), ([0, 1, 0], 0)],
            })],
            ..Builder::default()
        }
    }

    /// [`Builder::triangle`] as a GameStudio MDL2: version 0 and an RGB565 skin.
    #[must_use]
    pub fn mdl2_triangle() -> Builder {
        Builder {
            ident: *MDL2_MAGIC,
            version: 0,
            skins: vec![SkinDef::Single {
                code: 2,
                texels: (0..128).collect(),
            }],
            ..Builder::triangle()
        }
    }

    /// Writes the file.
    #[must_use]
    pub fn write(&self) -> Vec<u8> {
        let mut h = MdlHeader::new_zeroed();
        h.ident = self.ident;
        h.version = I32::new(self.version);
        h.scale = self.scale.map(F32::new);
        h.scale_origin = self.origin.map(F32::new);
        h.numskins = I32::new(self.skins.len() as i32);
        h.skinwidth = I32::new(self.skin_size[0]);
        h.skinheight = I32::new(self.skin_size[1]);
        h.numverts = I32::new(self.stverts.len() as i32);
        h.numtris = I32::new(self.triangles.len() as i32);
        h.numframes = I32::new(self.frames.len() as i32);
        let mut out = h.as_bytes().to_vec();
        let int = |out: &mut Vec<u8>, v: i32| out.extend_from_slice(I32::<Le>::new(v).as_bytes());
        let floats = |out: &mut Vec<u8>, v: &[f32]| {
            v.iter()
                .for_each(|&x| out.extend_from_slice(F32::<Le>::new(x).as_bytes()));
        };
        for skin in &self.skins {
            match skin {
                SkinDef::Single { code, texels } => {
                    int(&mut out, *code);
                    out.extend_from_slice(texels);
                }
                SkinDef::Group { intervals, images } => {
                    int(&mut out, ALIAS_SKIN_GROUP);
                    int(&mut out, intervals.len() as i32);
                    floats(&mut out, intervals);
                    images.iter().for_each(|i| out.extend_from_slice(i));
                }
            }
        }
        for st in &self.stverts {
            st.iter().for_each(|&v| int(&mut out, v));
        }
        for (facesfront, v) in &self.triangles {
            int(&mut out, *facesfront);
            v.iter().for_each(|&i| int(&mut out, i));
        }
        for entry in &self.frames {
            match entry {
                FrameEntry::Single(f) => {
                    int(&mut out, ALIAS_SINGLE);
                    put_frame(&mut out, f);
                }
                FrameEntry::Group { intervals, frames } => {
                    int(&mut out, ALIAS_GROUP);
                    int(&mut out, intervals.len() as i32);
                    let [min, max] = bbox(frames.iter().flat_map(|f| &f.vertices));
                    out.extend_from_slice(&[min[0], min[1], min[2], 0, max[0], max[1], max[2], 0]);
                    floats(&mut out, intervals);
                    frames.iter().for_each(|f| put_frame(&mut out, f));
                }
            }
        }
        out.extend_from_slice(&self.trailing);
        out
    }
}

/// The packed bounding box `[min, max]` of `vertices` (zeros when there are none).
fn bbox<'a>(vertices: impl Iterator<Item = &'a ([u8; 3], u8)>) -> [[u8; 3]; 2] {
    let mut found = None::<[[u8; 3]; 2]>;
    for (v, _) in vertices {
        let [min, max] = found.get_or_insert([*v, *v]);
        for k in 0..3 {
            min[k] = min[k].min(v[k]);
            max[k] = max[k].max(v[k]);
        }
    }
    found.unwrap_or_default()
}

/// A `daliasframe_t` (bounding box, name) and the vertices.
fn put_frame(out: &mut Vec<u8>, f: &FrameDef) {
    let [min, max] = bbox(f.vertices.iter());
    out.extend_from_slice(&[min[0], min[1], min[2], 0, max[0], max[1], max[2], 0]);
    let mut name = [0u8; 16];
    name.iter_mut().zip(&f.name).for_each(|(d, s)| *d = *s);
    out.extend_from_slice(&name);
    for (v, n) in &f.vertices {
        out.extend_from_slice(&[v[0], v[1], v[2], *n]);
    }
}

/// Vertices, triangles and frames GLQuake loads; later engines (DarkPlaces, FTE, Quakespasm)
/// take more, so going past them is a loss noted, not an error.
pub const GLQUAKE_LIMITS: (usize, usize, usize) = (1024, 2048, 256);

impl Builder {
    /// `asset` as a Quake MDL (`+Z` up; a `+Y`-up asset is turned): every mesh in one, each
    /// vertex with its own texture vertex, every frame (each morph target shown, or with
    /// `bake`, each skeletal frame skinned) packed in bytes on one grid around all frames,
    /// normals as the nearest of the 162, frames named after their clip (`walk_1` …, 15
    /// bytes at most). The first material with an image becomes the skin, its colours
    /// matched to the nearest of Quake's palette (fullbrights left out); without one, an
    /// 8 × 8 skin of the material's colour.
    ///
    /// ```
    /// use skelmap_core::{Model, asset, quake, synth};
    /// let bytes = synth::tube(&Default::default()).write()?;
    /// let asset = Model::from_bytes(&bytes)?.to_asset(&asset::Options::default())?;
    /// assert!(quake::Builder::from_asset(&asset, false).is_err()); // skeletal: bake it
    /// let mdl = quake::Builder::from_asset(&asset, true)?.builder.write();
    /// let model = Model::from_bytes(&mdl)?;
    /// assert_eq!((model.num_frames(), model.num_bones()), (9, 0));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`FitError`] for skeletal animation without `bake`.
    pub fn from_asset(asset: &Asset, bake: bool) -> Result<Fitted<Builder>, FitError> {
        let asset = asset.with_up(UpAxis::Z);
        let (asset, dropped) = asset.drawable("Quake MDL")?;
        asset.refuse_unbaked("Quake MDL", bake)?;
        let mut losses = Vec::new();
        losses.extend(dropped);
        losses.extend(asset.frame_name_note(crate::asset::MAX_BAKED_NAME, "Quake MDL"));
        let frames = asset.baked();
        let grid = grid(frames.iter().flat_map(|(_, f)| f.positions.iter()), 255);
        let (skin_size, skin) = skin_of(&asset, &mut losses);
        let mut b = Builder {
            scale: grid.0,
            origin: grid.1,
            skin_size,
            skins: vec![skin],
            ..Builder::default()
        };
        let (w, h) = (skin_size[0] as f32, skin_size[1] as f32);
        for mesh in &asset.meshes {
            let first = b.stverts.len() as i32;
            for v in 0..mesh.positions.len() {
                let uv = mesh.uv(v);
                let s = (uv[0] * w - 0.5).round().clamp(0.0, w) as i32;
                let t = (uv[1] * h - 0.5).round().clamp(0.0, h) as i32;
                b.stverts.push([0, s, t]);
            }
            b.triangles.extend(
                mesh.triangles
                    .iter()
                    .map(|t| (1, t.map(|i| first + i as i32))),
            );
        }
        b.frames = frames
            .iter()
            .map(|(name, f)| {
                FrameEntry::Single(FrameDef {
                    name: name.clone(),
                    vertices: f
                        .positions
                        .iter()
                        .zip(&f.normals)
                        .map(|(p, n)| (pack(*p, grid, 255).map(|c| c as u8), nearest_normal(*n)))
                        .collect(),
                })
            })
            .collect();
        let (verts, tris, count) = GLQUAKE_LIMITS;
        if b.stverts.len() > verts || b.triangles.len() > tris || b.frames.len() > count {
            losses.push(format!(
                "{} vertices, {} triangles and {} frames: past GLQuake's {verts}, {tris} and \
                 {count} (DarkPlaces, FTE and Quakespasm load more)",
                b.stverts.len(),
                b.triangles.len(),
                b.frames.len()
            ));
        }
        Ok(Fitted { builder: b, losses })
    }
}

/// The skin of the first material with an image, in Quake's palette; else an 8 × 8 skin of
/// the first material's colour (grey without one).
fn skin_of(asset: &Asset, losses: &mut Vec<String>) -> ([i32; 2], SkinDef) {
    let image = asset
        .materials
        .iter()
        .find_map(|m| m.image.and_then(|i| asset.images.get(i)))
        .filter(|i| {
            i.width > 0 && i.height > 0 && i.rgba.len() == 4 * (i.width * i.height) as usize
        });
    if asset.materials.len() > 1 {
        losses.push(format!(
            "{} materials: Quake MDL has one skin for the whole model",
            asset.materials.len()
        ));
    }
    let mut cache: HashMap<[u8; 3], u8> = HashMap::new();
    let mut index = |rgb: [u8; 3]| *cache.entry(rgb).or_insert_with(|| nearest_colour(rgb));
    match image {
        Some(image) => {
            if image.width % 4 != 0 {
                losses.push(format!(
                    "the skin is {} texels wide, not a multiple of 4: software Quake refuses it",
                    image.width
                ));
            }
            let texels = image
                .rgba
                .chunks_exact(4)
                .map(|c| index([c[0], c[1], c[2]]))
                .collect();
            (
                [image.width as i32, image.height as i32],
                SkinDef::Single { code: 0, texels },
            )
        }
        None => {
            let colour = asset.materials.first().map_or([0.5; 4], |m| m.base_color);
            let rgb = [0, 1, 2].map(|k| (colour[k].clamp(0.0, 1.0) * 255.0).round() as u8);
            (
                [8, 8],
                SkinDef::Single {
                    code: 0,
                    texels: vec![index(rgb); 64],
                },
            )
        }
    }
}

/// The palette entry nearest to `rgb` (squared distance), of the 224 that are not
/// fullbright.
fn nearest_colour(rgb: [u8; 3]) -> u8 {
    let distance = |p: &[u8; 3]| -> i32 {
        (0..3)
            .map(|k| (i32::from(p[k]) - i32::from(rgb[k])).pow(2))
            .sum()
    };
    PALETTE
        .iter()
        .take(224)
        .enumerate()
        .min_by_key(|(_, p)| distance(p))
        .map_or(0, |(i, _)| i as u8)
}

impl crate::asset::Writer for Builder {
    const FORMAT: crate::format::Format = crate::format::Format::Quake;
    const STORES_IMAGES: bool = true;

    fn write_asset(
        asset: &Asset,
        options: &crate::asset::WriteOptions,
    ) -> Result<crate::asset::Written, crate::asset::WriteError> {
        let Fitted { builder, losses } = Builder::from_asset(asset, options.bake)?;
        Ok(crate::asset::Written::one(Self::FORMAT, builder.write()).with_notes(losses))
    }
}
