//! Writing MD3 files (fixtures and fuzz seeds): [`Builder`] lays out what it is given in the
//! order id's tools write (header, frames, tags, surfaces; in each surface its header,
//! shaders, triangles, texture coordinates, vertices), counts and offsets computed, and says
//! where everything went ([`Layout`]) so that a test can break one field. It writes exactly
//! what it is given; the parser judges.

use zerocopy::byteorder::{F32, I16, I32, LittleEndian, U16};
use zerocopy::{FromZeros, IntoBytes};

use super::raw::{
    MAX_QPATH, MD3_MAGIC, MD3_VERSION, Md3Frame, Md3Header, Md3Shader, Md3St, Md3Surface, Md3Tag,
    Md3Triangle, Md3XyzNormal,
};

type Le = LittleEndian;

/// A frame's summary to write.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FrameDef {
    /// Name, at most 16 bytes (longer names are cut).
    pub name: Vec<u8>,
    /// Minimum and maximum corner.
    pub bounds: [[f32; 3]; 2],
    /// Centre of the bounding sphere.
    pub local_origin: [f32; 3],
    /// Radius of the bounding sphere.
    pub radius: f32,
}

/// A tag in one frame.
#[derive(Debug, Clone, PartialEq)]
pub struct TagDef {
    /// Name, at most 64 bytes (longer names are cut).
    pub name: Vec<u8>,
    /// Position.
    pub origin: [f32; 3],
    /// Axes (rows): forward, left, up.
    pub axis: [[f32; 3]; 3],
}

impl TagDef {
    /// A tag named `name` at `origin` with the identity axes.
    #[must_use]
    pub fn at(name: &str, origin: [f32; 3]) -> TagDef {
        TagDef {
            name: name.as_bytes().to_vec(),
            origin,
            axis: [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
        }
    }
}

/// A surface to write: its vertices are `frames[f]`, each `(xyz in 1/64 units, normal)`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SurfaceDef {
    /// Name, at most 64 bytes (longer names are cut).
    pub name: Vec<u8>,
    /// Shader names, each at most 64 bytes.
    pub shaders: Vec<Vec<u8>>,
    /// Triangles, as stored (clockwise seen from the front).
    pub triangles: Vec<[i32; 3]>,
    /// Texture coordinates, one per vertex; `num_verts` is their count.
    pub st: Vec<[f32; 2]>,
    /// Per frame, the vertices; `num_frames` is their count.
    pub frames: Vec<Vec<([i16; 3], u16)>>,
}

/// Builds an MD3.
#[derive(Debug, Clone, PartialEq)]
pub struct Builder {
    /// The model's name, at most 64 bytes.
    pub name: Vec<u8>,
    /// Version (15).
    pub version: i32,
    /// Frames; `num_frames` is their count.
    pub frames: Vec<FrameDef>,
    /// Per frame, its tags (every frame the same number; `num_tags` is frame 0's).
    pub tags: Vec<Vec<TagDef>>,
    /// Surfaces.
    pub surfaces: Vec<SurfaceDef>,
}

impl Default for Builder {
    fn default() -> Self {
        Builder {
            name: b"model".to_vec(),
            version: MD3_VERSION,
            frames: Vec::new(),
            tags: Vec::new(),
            surfaces: Vec::new(),
        }
    }
}

/// Where [`Builder::write_with_layout`] put each structure: file offsets.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Layout {
    /// The first frame.
    pub frames: u64,
    /// The first tag.
    pub tags: u64,
    /// Each surface's header.
    pub surfaces: Vec<u64>,
    /// The end of the file.
    pub end: u64,
}

/// `bytes` into a zeroed field of `N` bytes, cut to fit.
fn field<const N: usize>(bytes: &[u8]) -> [u8; N] {
    let mut out = [0u8; N];
    let n = bytes.len().min(N);
    out[..n].copy_from_slice(&bytes[..n]);
    out
}

fn le_i32(v: usize) -> I32<Le> {
    I32::new(i32::try_from(v).unwrap_or(i32::MAX))
}

fn floats<const N: usize>(v: [f32; N]) -> [F32<Le>; N] {
    v.map(F32::new)
}

impl Builder {
    /// A one-frame model: one surface `triangle` of three vertices at `(0,0,0)`, `(1,0,0)`,
    /// `(0,1,0)` (stored clockwise seen from +Z), normals up, shader `textures/triangle`,
    /// and one tag `tag_weapon` at `(0, 0, 1)`.
    #[must_use]
    pub fn triangle() -> Builder {
        Builder {
            frames: vec![FrameDef {
                name: b"frame0".to_vec(),
                bounds: [[0.0; 3], [1.0, 1.0, 0.0]],
                local_origin: [0.0; 3],
                radius: 1.0,
            }],
            tags: vec![vec![TagDef::at("tag_weapon", [0.0, 0.0, 1.0])]],
            surfaces: vec![SurfaceDef {
                name: b"triangle".to_vec(),
                shaders: vec![b"textures/triangle".to_vec()],
                triangles: vec![[0, 2, 1]],
                st: vec![[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]],
                frames: vec![vec![([0, 0, 0], 0), ([64, 0, 0], 0), ([0, 64, 0], 0)]],
            }],
            ..Builder::default()
        }
    }

    /// The file's bytes.
    #[must_use]
    pub fn write(&self) -> Vec<u8> {
        self.write_with_layout().0
    }

    /// The file's bytes and where each structure went.
    #[must_use]
    pub fn write_with_layout(&self) -> (Vec<u8>, Layout) {
        let mut out = vec![0u8; size_of::<Md3Header>()];
        let mut layout = Layout {
            frames: out.len() as u64,
            ..Layout::default()
        };
        for f in &self.frames {
            let frame = Md3Frame {
                bounds: f.bounds.map(floats),
                local_origin: floats(f.local_origin),
                radius: F32::new(f.radius),
                name: field(&f.name),
            };
            out.extend_from_slice(frame.as_bytes());
        }
        layout.tags = out.len() as u64;
        for tag in self.tags.iter().flatten() {
            let raw = Md3Tag {
                name: field::<MAX_QPATH>(&tag.name),
                origin: floats(tag.origin),
                axis: tag.axis.map(floats),
            };
            out.extend_from_slice(raw.as_bytes());
        }
        let surfaces_at = out.len();
        for s in &self.surfaces {
            layout.surfaces.push(out.len() as u64);
            out.extend_from_slice(&surface(s));
        }
        layout.end = out.len() as u64;
        let header = Md3Header {
            ident: *MD3_MAGIC,
            version: I32::new(self.version),
            name: field(&self.name),
            flags: I32::new(0),
            num_frames: le_i32(self.frames.len()),
            num_tags: le_i32(self.tags.first().map_or(0, Vec::len)),
            num_surfaces: le_i32(self.surfaces.len()),
            num_skins: I32::new(0),
            ofs_frames: le_i32(layout.frames as usize),
            ofs_tags: le_i32(layout.tags as usize),
            ofs_surfaces: le_i32(surfaces_at),
            ofs_end: le_i32(out.len()),
        };
        out[..size_of::<Md3Header>()].copy_from_slice(header.as_bytes());
        (out, layout)
    }
}

/// One surface's bytes: header, shaders, triangles, texture coordinates, vertices.
fn surface(s: &SurfaceDef) -> Vec<u8> {
    let mut body = Vec::new();
    let header_size = size_of::<Md3Surface>();
    let ofs_shaders = header_size;
    for name in &s.shaders {
        let shader = Md3Shader {
            name: field(name),
            shader_index: I32::new(0),
        };
        body.extend_from_slice(shader.as_bytes());
    }
    let ofs_triangles = header_size + body.len();
    for t in &s.triangles {
        body.extend_from_slice(
            Md3Triangle {
                indexes: t.map(I32::new),
            }
            .as_bytes(),
        );
    }
    let ofs_st = header_size + body.len();
    for st in &s.st {
        body.extend_from_slice(Md3St { st: floats(*st) }.as_bytes());
    }
    let ofs_xyz = header_size + body.len();
    for (xyz, normal) in s.frames.iter().flatten() {
        let v = Md3XyzNormal {
            xyz: xyz.map(I16::new),
            normal: U16::new(*normal),
        };
        body.extend_from_slice(v.as_bytes());
    }
    let mut header = Md3Surface::new_zeroed();
    header.ident = *MD3_MAGIC;
    header.name = field(&s.name);
    header.num_frames = le_i32(s.frames.len());
    header.num_shaders = le_i32(s.shaders.len());
    header.num_verts = le_i32(s.st.len());
    header.num_triangles = le_i32(s.triangles.len());
    header.ofs_triangles = le_i32(ofs_triangles);
    header.ofs_shaders = le_i32(ofs_shaders);
    header.ofs_st = le_i32(ofs_st);
    header.ofs_xyz_normals = le_i32(ofs_xyz);
    header.ofs_end = le_i32(header_size + body.len());
    let mut out = header.as_bytes().to_vec();
    out.extend_from_slice(&body);
    out
}
