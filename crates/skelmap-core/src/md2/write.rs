//! Writing Quake II MD2 files: [`Builder`] for fixtures, fuzz seeds and conversions. The
//! builder writes exactly what it is given, counts included; the parser judges.

use zerocopy::byteorder::{F32, I16, I32, LittleEndian, U16};
use zerocopy::{FromZeros, IntoBytes};

use super::raw::{
    ALIAS_VERSION, DaliasFrame, Dmdl, Dstvert, Dtriangle, Dtrivertx, IDP2_MAGIC, MAX_FRAMES,
    MAX_SKINNAME, MAX_TRIANGLES, MAX_VERTS, SkinName,
};
use crate::alias::pack::{grid, nearest_normal, pack};
use crate::asset::{Asset, FitError, Fitted, UpAxis};

type Le = LittleEndian;

/// One frame to write: its name, scale and translate, and its packed vertices
/// `(x, y, z, normal index)`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FrameDef {
    /// Name, at most 16 bytes (longer names are cut).
    pub name: Vec<u8>,
    /// Multiplies the packed coordinates.
    pub scale: [f32; 3],
    /// Then added.
    pub translate: [f32; 3],
    /// Packed vertices.
    pub vertices: Vec<([u8; 3], u8)>,
}

/// One GL command to write: a strip or a fan of vertices `([s, t], vertex index)`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GlCommandDef {
    /// `true` for a fan (a negative count), `false` for a strip.
    pub fan: bool,
    /// The vertices.
    pub vertices: Vec<([f32; 2], i32)>,
}

impl GlCommandDef {
    /// `commands` as the words of a GL command list, the terminating 0 included.
    #[must_use]
    pub fn words(commands: &[GlCommandDef]) -> Vec<i32> {
        let mut words = Vec::new();
        for c in commands {
            let n = c.vertices.len() as i32;
            words.push(if c.fan { -n } else { n });
            for ([s, t], index) in &c.vertices {
                words.extend([s.to_bits() as i32, t.to_bits() as i32, *index]);
            }
        }
        words.push(0);
        words
    }
}

/// Builds an MD2.
#[derive(Debug, Clone, PartialEq)]
pub struct Builder {
    /// `IDP2`.
    pub ident: [u8; 4],
    /// 8.
    pub version: i32,
    /// `skinwidth`, `skinheight`.
    pub skin_size: [i32; 2],
    /// Skin names, each written into its 64-byte field (longer names are cut; a name of 64
    /// bytes fills it without a NUL).
    pub skins: Vec<Vec<u8>>,
    /// Texture coordinates `(s, t)`, in texels.
    pub st: Vec<[i16; 2]>,
    /// Triangles: vertex indices and texture coordinate indices.
    pub triangles: Vec<([u16; 3], [u16; 3])>,
    /// Frames; `num_xyz` is the first frame's vertex count.
    pub frames: Vec<FrameDef>,
    /// The GL command list as words, its terminating 0 included; `None` writes each
    /// triangle as a strip of three (its texture coordinates from `st`).
    pub gl_words: Option<Vec<i32>>,
    /// Bytes written after the last array (past `ofs_end`).
    pub trailing: Vec<u8>,
}

impl Default for Builder {
    fn default() -> Self {
        Builder {
            ident: *IDP2_MAGIC,
            version: ALIAS_VERSION,
            skin_size: [0; 2],
            skins: Vec::new(),
            st: Vec::new(),
            triangles: Vec::new(),
            frames: Vec::new(),
            gl_words: None,
            trailing: Vec::new(),
        }
    }
}

impl Builder {
    /// An MD2 with one skin named `models/test/skin.pcx` of 8 × 8 texels, one triangle at
    /// `(0, 0, 0)`, `(1, 0, 0)`, `(0, 1, 0)` and one frame named `base` (scale 1, translate
    /// 0).
    #[must_use]
    pub fn triangle() -> Builder {
        Builder {
            skin_size: [8, 8],
            skins: vec![b"models/test/skin.pcx".to_vec()],
            st: vec![[0, 0], [7, 0], [0, 7]],
            triangles: vec![([0, 1, 2], [0, 1, 2])],
            frames: vec![FrameDef {
                name: b"base".to_vec(),
                scale: [1.0; 3],
                translate: [0.0; 3],
                vertices: vec![([0, 0, 0], 5), ([1, 0, 0], 5), ([0, 1, 0], 5)],
            }],
            ..Builder::default()
        }
    }

    /// The GL command list [`write`](Builder::write) writes: `gl_words`, or each triangle
    /// as a strip of three.
    #[must_use]
    pub fn gl_command_words(&self) -> Vec<i32> {
        if let Some(words) = &self.gl_words {
            return words.clone();
        }
        let (w, h) = (
            self.skin_size[0].max(1) as f32,
            self.skin_size[1].max(1) as f32,
        );
        let commands: Vec<GlCommandDef> = self
            .triangles
            .iter()
            .map(|(xyz, st)| GlCommandDef {
                fan: false,
                vertices: (0..3)
                    .map(|k| {
                        let [s, t] = self.st.get(usize::from(st[k])).copied().unwrap_or([0, 0]);
                        ([f32::from(s) / w, f32::from(t) / h], i32::from(xyz[k]))
                    })
                    .collect(),
            })
            .collect();
        GlCommandDef::words(&commands)
    }

    /// Writes the file: the header, then skins, texture coordinates, triangles, frames and
    /// GL commands, in Quake II's order.
    #[must_use]
    pub fn write(&self) -> Vec<u8> {
        let num_xyz = self.frames.first().map_or(0, |f| f.vertices.len());
        let framesize = size_of::<DaliasFrame>() + num_xyz * size_of::<Dtrivertx>();
        let words = self.gl_command_words();
        let mut h = Dmdl::new_zeroed();
        h.ident = self.ident;
        h.version = I32::new(self.version);
        h.skinwidth = I32::new(self.skin_size[0]);
        h.skinheight = I32::new(self.skin_size[1]);
        h.framesize = I32::new(framesize as i32);
        h.num_skins = I32::new(self.skins.len() as i32);
        h.num_xyz = I32::new(num_xyz as i32);
        h.num_st = I32::new(self.st.len() as i32);
        h.num_tris = I32::new(self.triangles.len() as i32);
        h.num_glcmds = I32::new(words.len() as i32);
        h.num_frames = I32::new(self.frames.len() as i32);
        let mut at = size_of::<Dmdl>();
        let mut place = |field: &mut I32<Le>, bytes: usize| {
            *field = I32::new(at as i32);
            at += bytes;
        };
        place(&mut h.ofs_skins, self.skins.len() * size_of::<SkinName>());
        place(&mut h.ofs_st, self.st.len() * size_of::<Dstvert>());
        place(
            &mut h.ofs_tris,
            self.triangles.len() * size_of::<Dtriangle>(),
        );
        place(&mut h.ofs_frames, self.frames.len() * framesize);
        place(&mut h.ofs_glcmds, words.len() * 4);
        h.ofs_end = I32::new(at as i32);
        let mut out = h.as_bytes().to_vec();
        for skin in &self.skins {
            let mut name = [0u8; MAX_SKINNAME];
            name.iter_mut().zip(skin).for_each(|(d, s)| *d = *s);
            out.extend_from_slice(&name);
        }
        for [s, t] in &self.st {
            out.extend_from_slice(I16::<Le>::new(*s).as_bytes());
            out.extend_from_slice(I16::<Le>::new(*t).as_bytes());
        }
        for (xyz, st) in &self.triangles {
            for v in xyz.iter().chain(st) {
                out.extend_from_slice(U16::<Le>::new(*v).as_bytes());
            }
        }
        for f in &self.frames {
            for v in f.scale.iter().chain(&f.translate) {
                out.extend_from_slice(F32::<Le>::new(*v).as_bytes());
            }
            let mut name = [0u8; 16];
            name.iter_mut().zip(&f.name).for_each(|(d, s)| *d = *s);
            out.extend_from_slice(&name);
            for (v, n) in &f.vertices {
                out.extend_from_slice(&[v[0], v[1], v[2], *n]);
            }
        }
        for w in &words {
            out.extend_from_slice(I32::<Le>::new(*w).as_bytes());
        }
        out.extend_from_slice(&self.trailing);
        out
    }
}

/// The largest index a triangle's `u16` fields hold, plus one: the vertices and texture
/// coordinates an MD2 can address.
const MAX_INDEXED: usize = 1 << 16;

impl Builder {
    /// `asset` as an MD2 (`+Z` up; a `+Y`-up asset is turned): every mesh in one, each
    /// vertex with its own texture coordinate, every frame (each morph target shown, or with
    /// `bake`, each skeletal frame skinned) packed in bytes on its own grid (MD2 stores a
    /// scale and translate per frame, so each frame keeps the full 8 bits over its own
    /// extent), normals as the nearest of the 162, frames named after their clip (`walk_1`
    /// …, 15 bytes at most). The first material names the one skin: its texture file, else
    /// its name; the skin size is its image's, else 256 × 256. Each triangle is written as a
    /// GL strip of three.
    ///
    /// ```
    /// use skelmap_core::{Model, asset, md2, synth};
    /// let bytes = synth::tube(&Default::default()).write()?;
    /// let asset = Model::from_bytes(&bytes)?.to_asset(&asset::Options::default())?;
    /// assert!(md2::Builder::from_asset(&asset, false).is_err()); // skeletal: bake it
    /// let written = md2::Builder::from_asset(&asset, true)?.builder.write();
    /// let model = Model::from_bytes(&written)?;
    /// assert_eq!((model.num_frames(), model.num_bones()), (9, 0));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`FitError`] for skeletal animation without `bake`, or more vertices than a
    /// triangle's 16-bit indices reach.
    pub fn from_asset(asset: &Asset, bake: bool) -> Result<Fitted<Builder>, FitError> {
        let asset = asset.with_up(UpAxis::Z);
        let (asset, dropped) = asset.drawable("MD2")?;
        asset.refuse_unbaked("MD2", bake)?;
        let vertices: usize = asset.meshes.iter().map(|m| m.positions.len()).sum();
        if vertices > MAX_INDEXED {
            return Err(FitError::new(
                "MD2",
                format!("{vertices} vertices"),
                "a triangle indexes at most 65536 with its 16-bit fields",
                "split the model or reduce it",
            ));
        }
        let mut losses = Vec::new();
        losses.extend(dropped);
        losses.extend(asset.frame_name_note(crate::asset::MAX_BAKED_NAME, "MD2"));
        let (skin_size, skin) = skin_of(&asset, &mut losses);
        let (w, h) = (skin_size[0] as f32, skin_size[1] as f32);
        let mut b = Builder {
            skin_size,
            skins: skin.into_iter().collect(),
            ..Builder::default()
        };
        for mesh in &asset.meshes {
            let first = b.st.len();
            for v in 0..mesh.positions.len() {
                let [u, t] = mesh.uv(v);
                let texel = |c: f32, size: f32| (c * size).round().clamp(-32768.0, 32767.0) as i16;
                b.st.push([texel(u, w), texel(t, h)]);
            }
            b.triangles.extend(mesh.triangles.iter().map(|t| {
                let i = t.map(|i| (first + i as usize) as u16);
                (i, i)
            }));
        }
        b.frames = asset
            .baked()
            .iter()
            .map(|(name, f)| {
                let (scale, translate) = grid(f.positions.iter(), 255);
                FrameDef {
                    name: name.clone(),
                    scale,
                    translate,
                    vertices: f
                        .positions
                        .iter()
                        .zip(&f.normals)
                        .map(|(p, n)| {
                            let packed = pack(*p, (scale, translate), 255).map(|c| c as u8);
                            (packed, nearest_normal(*n))
                        })
                        .collect(),
                }
            })
            .collect();
        let (verts, tris, frames) = (b.st.len(), b.triangles.len(), b.frames.len());
        if verts > MAX_VERTS as usize
            || tris > MAX_TRIANGLES as usize
            || frames > MAX_FRAMES as usize
        {
            losses.push(format!(
                "{verts} vertices, {tris} triangles and {frames} frames: past Quake II's \
                 {MAX_VERTS}, {MAX_TRIANGLES} and {MAX_FRAMES} (DarkPlaces and FTE load more)"
            ));
        }
        Ok(Fitted { builder: b, losses })
    }
}

/// The skin size (the first material's image's, else 256 × 256) and the one skin name (the
/// first material's texture file, else its name; none without a material), cut to 63 bytes.
fn skin_of(asset: &Asset, losses: &mut Vec<String>) -> ([i32; 2], Option<Vec<u8>>) {
    if asset.materials.len() > 1 {
        losses.push(format!(
            "{} materials: an MD2 draws the whole model with one skin (the first's)",
            asset.materials.len()
        ));
    }
    let Some(material) = asset.materials.first() else {
        return ([256, 256], None);
    };
    let size = material
        .image
        .and_then(|i| asset.images.get(i))
        .filter(|i| (1..=32767).contains(&i.width) && (1..=32767).contains(&i.height))
        .map_or([256, 256], |i| [i.width as i32, i.height as i32]);
    let name = material
        .texture
        .as_deref()
        .or(material.external.as_deref())
        .filter(|n| !n.is_empty())
        .unwrap_or(material.name.as_str());
    let mut bytes = asset.name_bytes(name);
    if bytes.len() >= MAX_SKINNAME {
        losses.push(format!(
            "the skin name {:?} is {} bytes: cut to the {} an MD2 holds",
            crate::name::shown(name),
            bytes.len(),
            MAX_SKINNAME - 1
        ));
        bytes = asset.name_bytes_within(name, MAX_SKINNAME - 1);
    }
    (size, (!bytes.is_empty()).then_some(bytes))
}

impl crate::asset::Writer for Builder {
    const FORMAT: crate::format::Format = crate::format::Format::Md2;
    const STORES_IMAGES: bool = false;

    fn write_asset(
        asset: &Asset,
        options: &crate::asset::WriteOptions,
    ) -> Result<crate::asset::Written, crate::asset::WriteError> {
        let Fitted { builder, losses } = Builder::from_asset(asset, options.bake)?;
        Ok(crate::asset::Written::one(Self::FORMAT, builder.write()).with_notes(losses))
    }
}
