//! Writing MD3 files (fixtures, fuzz seeds and conversions): [`Builder`] lays out what it is given in the
//! order id's tools write (header, frames, tags, surfaces; in each surface its header,
//! shaders, triangles, texture coordinates, vertices), counts and offsets computed, and says
//! where everything went ([`Layout`]) so that a test can break one field. It writes exactly
//! what it is given; the parser judges.

use zerocopy::byteorder::{F32, I16, I32, U16};
use zerocopy::{FromZeros, IntoBytes};

use super::raw::{
    MAX_QPATH, MD3_MAGIC, MD3_MAX_FRAMES, MD3_MAX_SURFACES, MD3_MAX_TAGS, MD3_MAX_TRIANGLES,
    MD3_MAX_VERTS, MD3_VERSION, Md3Frame, Md3Header, Md3Shader, Md3St, Md3Surface, Md3Tag,
    Md3Triangle, Md3XyzNormal,
};
use crate::alias::idp3_write::{Fit, Target, field, fit, floats, le_i32};
pub use crate::alias::idp3_write::{FrameDef, SurfaceDef, TagDef, encode_normal};
use crate::asset::{Asset, FitError, Fitted};

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

impl Builder {
    /// `asset` as an MD3 (`+Z` up; a `+Y`-up asset is turned), what Quake III and every
    /// engine after it reads:
    ///
    /// - a surface per mesh, named as the mesh, with one shader: the mesh's texture file,
    ///   else its material's name ([`Asset::material_name`]); a mesh past ioquake3's 4096
    ///   vertices or 8192 triangles a surface is split into several (`name`, `name_2`, …),
    ///   vertices shared across a cut copied into each side, since ioquake3 refuses such a
    ///   surface and nothing is lost by drawing it in pieces;
    /// - every frame (each morph target shown, or with `bake`, each skeletal frame skinned),
    ///   its positions rounded to 1/64 unit in 16 bits and its normals to the nearest
    ///   latitude and longitude bytes ([`encode_normal`]); frame names as
    ///   [`Asset::baked`] makes them; each frame's bounds, its centre as the local origin,
    ///   and the radius around it computed from the stored positions;
    /// - tags: the asset's own ([`Asset::tags`], an MD3's, copied bit for bit), then the
    ///   skeleton's attachment joints ([`Skeleton::attachments`](crate::asset::Skeleton::attachments))
    ///   and joints named `tag_…`, each frame's world transform with its axes made
    ///   orthonormal.
    ///
    /// Names are cut to what their fields hold with a NUL (63 bytes, 15 for frames), with a
    /// note; past ioquake3's 1024 frames, 16 tags or 32 surfaces is a note too (DarkPlaces
    /// and FTE load more).
    ///
    /// ```
    /// use skelmap_core::{Model, md3, model::convert};
    /// // The tube's last joint is an attachment: a tag of the baked model.
    /// let bytes = skelmap_core::synth::tube(&Default::default()).write()?;
    /// let asset = convert::asset_of(&Model::from_bytes(&bytes)?)?;
    /// let fitted = md3::Builder::from_asset(&asset, true)?; // without `bake`: refused
    /// assert!(fitted.losses.is_empty());
    /// let bytes = fitted.builder.write();
    /// let md3 = Model::from_bytes(&bytes)?;
    /// assert_eq!((md3.num_frames(), md3.num_tags(), md3.num_bones()), (9, 1, 0));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`FitError`] for skeletal animation without `bake`, a position past the ±512 units
    /// 16 bits of 1/64 reach (MD3 has no scale), more surfaces or frames than skelmap reads
    /// ([`Limits::DEFAULT`](crate::Limits::DEFAULT)), or a file past 2 GiB.
    pub fn from_asset(asset: &Asset, bake: bool) -> Result<Fitted<Builder>, FitError> {
        let Fit {
            frames,
            tags,
            surfaces,
            mut losses,
        } = fit(asset, bake, IOQUAKE3)?;
        check_size(&surfaces, frames.len(), tags.first().map_or(0, Vec::len))?;
        let b = Builder {
            frames,
            tags,
            surfaces,
            ..Builder::default()
        };
        let counts = [
            (b.frames.len(), MD3_MAX_FRAMES, "frames"),
            (b.tags.first().map_or(0, Vec::len), MD3_MAX_TAGS, "tags"),
            (b.surfaces.len(), MD3_MAX_SURFACES, "surfaces"),
        ];
        for (count, max, what) in counts {
            if count > max as usize {
                losses.push(format!(
                    "{count} {what}: past ioquake3's {max} (DarkPlaces and FTE load more)"
                ));
            }
        }
        Ok(Fitted { builder: b, losses })
    }
}

/// The engine MD3 surfaces are split for: ioquake3's 4096 vertices and 8192 triangles.
const IOQUAKE3: Target = Target {
    format: "MD3",
    engine: "ioquake3",
    max_verts: MD3_MAX_VERTS,
    max_tris: MD3_MAX_TRIANGLES,
};

/// Refuses a file whose 32-bit offsets would overflow: past 2 GiB.
fn check_size(surfaces: &[SurfaceDef], frames: usize, tags: usize) -> Result<(), FitError> {
    let frames = frames as u64;
    let mut bytes = size_of::<Md3Header>() as u64
        + frames * size_of::<Md3Frame>() as u64
        + frames * tags as u64 * size_of::<Md3Tag>() as u64;
    for s in surfaces {
        bytes += (size_of::<Md3Surface>() + size_of::<Md3Shader>()) as u64
            + s.triangles.len() as u64 * size_of::<Md3Triangle>() as u64
            + s.st.len() as u64 * (size_of::<Md3St>() as u64 + frames * 8);
    }
    if bytes > i32::MAX as u64 {
        return Err(FitError::new(
            "MD3",
            format!("{bytes} bytes"),
            "its offsets are 32-bit: at most 2 GiB",
            "convert fewer clips with `--clip`, or split the model",
        ));
    }
    Ok(())
}

impl crate::asset::Writer for Builder {
    const FORMAT: crate::format::Format = crate::format::Format::Md3;
    const STORES_IMAGES: bool = false;

    fn write_asset(
        asset: &Asset,
        options: &crate::asset::WriteOptions,
    ) -> Result<crate::asset::Written, crate::asset::WriteError> {
        let Fitted { builder, losses } = Builder::from_asset(asset, options.bake)?;
        Ok(crate::asset::Written::one(Self::FORMAT, builder.write()).with_notes(losses))
    }
}
