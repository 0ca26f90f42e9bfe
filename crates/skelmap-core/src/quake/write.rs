//! Writing Quake MDL (`IDPO`) and GameStudio MDL2 files (fixtures and fuzz seeds). The
//! builder writes exactly what it is given, counts included; the parser judges.

use zerocopy::byteorder::{F32, I32, LittleEndian};
use zerocopy::{FromZeros, IntoBytes};

use super::raw::{
    ALIAS_GROUP, ALIAS_SINGLE, ALIAS_SKIN_GROUP, ALIAS_VERSION, IDPO_MAGIC, MDL2_MAGIC, MdlHeader,
};

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
