//! Writing MDC files (fixtures, fuzz seeds, benches and conversions): [`Builder`] lays out what it is given in
//! the order ET:Legacy's converter writes (header, frames, tag names, tags, surfaces; in each
//! surface its header, shaders, triangles, texture coordinates, base vertices, compressed
//! vertices, the two frame tables), counts and offsets computed, and says where everything
//! went ([`Layout`]) so that a test can break one field. It writes exactly what it is given;
//! the parser judges. [`SurfaceDef::compress`] makes a surface's base and compressed frames
//! from decoded ones, as the engines' converter does, and reports the largest error;
//! [`Builder::from_asset`] writes any model as an MDC.

use zerocopy::byteorder::{I16, I32, LittleEndian, U32};
use zerocopy::{FromZeros, IntoBytes};

use super::raw::{
    MAX_QPATH, MD3_XYZ_SCALE, MDC_DIST_SCALE, MDC_MAGIC, MDC_MAX_ERROR, MDC_MAX_OFS,
    MDC_MAX_TRIANGLES, MDC_MAX_VERTS, MDC_NORMALS, MDC_TAG_ANGLE_SCALE, MDC_VERSION, Md3Frame,
    Md3Shader, Md3St, Md3Triangle, Md3XyzNormal, MdcHeader, MdcSurface, MdcTag, MdcTagName,
    MdcXyzCompressed,
};
use super::view::compressed_offset;
pub use crate::alias::idp3_write::FrameDef;
use crate::alias::idp3_write::{
    axis_to_angles, cross, encode_normal, field, frame_summary, le_i32, put_frames,
    put_surface_records, put_vertices, quantise,
};
use crate::asset::{Asset, FitError, Fitted};
// ET:Legacy makes an MDC from an MD3: the MD3 writer lays the asset out, this one compresses it.
use crate::md3::write::{Fit, Target, fit};
use crate::skin::morph::lat_long_normal;

type Le = LittleEndian;

/// A tag in one frame, as stored: position in 1/64 units, angles in units of
/// [`MDC_TAG_ANGLE_SCALE`] degrees.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TagDef {
    /// Position, 1/64 unit.
    pub xyz: [i16; 3],
    /// Pitch, yaw, roll.
    pub angles: [i16; 3],
}

/// A surface to write, as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct SurfaceDef {
    /// The `ident` field (real files store 7).
    pub ident: i32,
    /// Name, at most 64 bytes (longer names are cut).
    pub name: Vec<u8>,
    /// Shader names, each at most 64 bytes.
    pub shaders: Vec<Vec<u8>>,
    /// Triangles, as stored (clockwise seen from the front).
    pub triangles: Vec<[i32; 3]>,
    /// Texture coordinates, one per vertex; `num_verts` is their count.
    pub st: Vec<[f32; 2]>,
    /// Base frames: per frame the vertices `(xyz in 1/64 units, lat/long normal)`.
    pub base_frames: Vec<Vec<([i16; 3], u16)>>,
    /// Compressed frames: per frame each vertex's `ofsVec`.
    pub comp_frames: Vec<Vec<u32>>,
    /// Per model frame, its base frame (`frameBaseFrames`).
    pub frame_base_frames: Vec<i16>,
    /// Per model frame, its compressed frame or −1 (`frameCompFrames`).
    pub frame_comp_frames: Vec<i16>,
}

impl Default for SurfaceDef {
    fn default() -> Self {
        SurfaceDef {
            ident: 7,
            name: Vec::new(),
            shaders: Vec::new(),
            triangles: Vec::new(),
            st: Vec::new(),
            base_frames: Vec::new(),
            comp_frames: Vec::new(),
            frame_base_frames: Vec::new(),
            frame_comp_frames: Vec::new(),
        }
    }
}

/// The index of the entry of [`MDC_NORMALS`] nearest `n`.
fn nearest_normal(n: [f32; 3]) -> u8 {
    let dot = |m: &[f32; 3]| m[0] * n[0] + m[1] * n[1] + m[2] * n[2];
    let mut best = (0u8, f32::NEG_INFINITY);
    for (i, m) in (0u8..=255).zip(MDC_NORMALS.iter()) {
        if dot(m) > best.1 {
            best = (i, dot(m));
        }
    }
    best.0
}

/// `p` in 1/64 units, rounded and clamped to `i16`.
fn fixed(p: [f32; 3]) -> [i16; 3] {
    p.map(|c| (c / MD3_XYZ_SCALE).round().clamp(-32768.0, 32767.0) as i16)
}

/// The `ofsVec` of an offset `d` (each axis within ±127 steps of 0.05) and a normal.
fn pack_offset(d: [f32; 3], normal: u8) -> Option<u32> {
    let mut bytes = [0u8; 4];
    for k in 0..3 {
        let step = (d[k] / MDC_DIST_SCALE).round() + MDC_MAX_OFS;
        if !(0.0..=255.0).contains(&step) {
            return None;
        }
        bytes[k] = step as u8;
    }
    bytes[3] = normal;
    Some(u32::from_le_bytes(bytes))
}

/// The distance between two points.
fn distance(a: [f32; 3], b: [f32; 3]) -> f32 {
    let d = [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
    (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt()
}

impl SurfaceDef {
    /// Base and compressed frames for `frames` (per frame, each vertex's position and unit
    /// normal), as ET:Legacy's converter makes them: a frame is stored as offsets from the last
    /// base frame when every vertex's offset fits (±127 steps of 0.05 units) and decodes
    /// within `max_error` units, else it becomes a new base frame (frame 0 always is). Returns
    /// the surface (name, shaders, triangles and texture coordinates empty) and the largest
    /// distance between a given and a decoded position.
    #[must_use]
    pub fn compress(frames: &[Vec<([f32; 3], [f32; 3])>], max_error: f32) -> (SurfaceDef, f32) {
        let mut s = SurfaceDef::default();
        let mut worst = 0.0f32;
        let mut last_base: Option<&Vec<([i16; 3], u16)>> = None;
        for frame in frames {
            let compressed = last_base.and_then(|base| {
                let mut out = Vec::with_capacity(frame.len());
                let mut err = 0.0f32;
                for ((p, n), (b, _)) in frame.iter().zip(base) {
                    let origin = b.map(|c| f32::from(c) * MD3_XYZ_SCALE);
                    let d = [p[0] - origin[0], p[1] - origin[1], p[2] - origin[2]];
                    let packed = pack_offset(d, nearest_normal(*n))?;
                    let o = compressed_offset(packed);
                    let decoded = [origin[0] + o[0], origin[1] + o[1], origin[2] + o[2]];
                    err = err.max(distance(decoded, *p));
                    out.push(packed);
                }
                (err <= max_error).then_some((out, err))
            });
            match compressed {
                Some((comp, err)) => {
                    worst = worst.max(err);
                    s.frame_base_frames
                        .push(i16::try_from(s.base_frames.len() - 1).unwrap_or(i16::MAX));
                    s.frame_comp_frames
                        .push(i16::try_from(s.comp_frames.len()).unwrap_or(i16::MAX));
                    s.comp_frames.push(comp);
                }
                None => {
                    let base: Vec<_> = frame
                        .iter()
                        .map(|(p, n)| (fixed(*p), encode_normal(*n)))
                        .collect();
                    for ((p, _), (b, _)) in frame.iter().zip(&base) {
                        worst = worst.max(distance(b.map(|c| f32::from(c) * MD3_XYZ_SCALE), *p));
                    }
                    s.frame_base_frames
                        .push(i16::try_from(s.base_frames.len()).unwrap_or(i16::MAX));
                    s.frame_comp_frames.push(-1);
                    s.base_frames.push(base);
                }
            }
            last_base = s.base_frames.last();
        }
        (s, worst)
    }
}

/// Builds an MDC.
#[derive(Debug, Clone, PartialEq)]
pub struct Builder {
    /// The model's name, at most 64 bytes.
    pub name: Vec<u8>,
    /// Version (2).
    pub version: i32,
    /// Frames; `num_frames` is their count.
    pub frames: Vec<FrameDef>,
    /// Tag names; `num_tags` is their count.
    pub tag_names: Vec<Vec<u8>>,
    /// Per frame, its tags (each as many as there are names).
    pub tags: Vec<Vec<TagDef>>,
    /// Surfaces.
    pub surfaces: Vec<SurfaceDef>,
}

impl Default for Builder {
    fn default() -> Self {
        Builder {
            name: b"model".to_vec(),
            version: MDC_VERSION,
            frames: Vec::new(),
            tag_names: Vec::new(),
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
    /// The first tag name.
    pub tag_names: u64,
    /// The first tag.
    pub tags: u64,
    /// Each surface's header.
    pub surfaces: Vec<u64>,
    /// The end of the file.
    pub end: u64,
}

impl Builder {
    /// A two-frame model: one surface `triangle` of three vertices at `(0,0,0)`, `(1,0,0)`,
    /// `(0,1,0)` (stored clockwise seen from +Z), normals up, shader `textures/triangle`;
    /// frame 0 is base frame 0, frame 1 adds a compressed frame moving every vertex
    /// `+0.05` along X with normal 0 (`+X`); one tag `tag_weapon` at `(0, 0, 1)` in both
    /// frames, turned 90° of yaw in frame 1.
    #[must_use]
    pub fn triangle() -> Builder {
        let frame = |name: &[u8], dx: f32| FrameDef {
            name: name.to_vec(),
            bounds: [[dx, 0.0, 0.0], [1.0 + dx, 1.0, 0.0]],
            local_origin: [0.0; 3],
            radius: 1.1,
        };
        let step = u32::from_le_bytes([128, 127, 127, 0]);
        Builder {
            frames: vec![frame(b"frame0", 0.0), frame(b"frame1", 0.05)],
            tag_names: vec![b"tag_weapon".to_vec()],
            tags: vec![
                vec![TagDef {
                    xyz: [0, 0, 64],
                    angles: [0; 3],
                }],
                vec![TagDef {
                    xyz: [0, 0, 64],
                    angles: [0, 8175, 0],
                }],
            ],
            surfaces: vec![SurfaceDef {
                name: b"triangle".to_vec(),
                shaders: vec![b"textures/triangle".to_vec()],
                triangles: vec![[0, 2, 1]],
                st: vec![[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]],
                base_frames: vec![vec![([0, 0, 0], 0), ([64, 0, 0], 0), ([0, 64, 0], 0)]],
                comp_frames: vec![vec![step; 3]],
                frame_base_frames: vec![0, 0],
                frame_comp_frames: vec![-1, 0],
                ..SurfaceDef::default()
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
        let mut out = vec![0u8; size_of::<MdcHeader>()];
        let mut layout = Layout {
            frames: out.len() as u64,
            ..Layout::default()
        };
        put_frames(&mut out, &self.frames);
        layout.tag_names = out.len() as u64;
        for name in &self.tag_names {
            let raw = MdcTagName {
                name: field::<MAX_QPATH>(name),
            };
            out.extend_from_slice(raw.as_bytes());
        }
        layout.tags = out.len() as u64;
        for tag in self.tags.iter().flatten() {
            let raw = MdcTag {
                xyz: tag.xyz.map(I16::new),
                angles: tag.angles.map(I16::new),
            };
            out.extend_from_slice(raw.as_bytes());
        }
        let surfaces_at = out.len();
        for s in &self.surfaces {
            layout.surfaces.push(out.len() as u64);
            out.extend_from_slice(&surface(s));
        }
        layout.end = out.len() as u64;
        let header = MdcHeader {
            ident: *MDC_MAGIC,
            version: I32::new(self.version),
            name: field(&self.name),
            flags: I32::new(0),
            num_frames: le_i32(self.frames.len()),
            num_tags: le_i32(self.tag_names.len()),
            num_surfaces: le_i32(self.surfaces.len()),
            num_skins: I32::new(0),
            ofs_frames: le_i32(layout.frames as usize),
            ofs_tag_names: le_i32(layout.tag_names as usize),
            ofs_tags: le_i32(layout.tags as usize),
            ofs_surfaces: le_i32(surfaces_at),
            ofs_end: le_i32(out.len()),
        };
        out[..size_of::<MdcHeader>()].copy_from_slice(header.as_bytes());
        (out, layout)
    }
}

/// One surface's bytes: header, shaders, triangles, texture coordinates, base vertices,
/// compressed vertices, the frame tables.
fn surface(s: &SurfaceDef) -> Vec<u8> {
    let mut body = Vec::new();
    let header_size = size_of::<MdcSurface>();
    let [ofs_shaders, ofs_triangles, ofs_st] =
        put_surface_records(&mut body, header_size, &s.shaders, &s.triangles, &s.st);
    let ofs_xyz = header_size + body.len();
    put_vertices(&mut body, s.base_frames.iter().flatten());
    let ofs_comp = header_size + body.len();
    for ofs_vec in s.comp_frames.iter().flatten() {
        let v = MdcXyzCompressed {
            ofs_vec: U32::new(*ofs_vec),
        };
        body.extend_from_slice(v.as_bytes());
    }
    let ofs_base_table = header_size + body.len();
    for f in &s.frame_base_frames {
        body.extend_from_slice(I16::<Le>::new(*f).as_bytes());
    }
    let ofs_comp_table = header_size + body.len();
    for f in &s.frame_comp_frames {
        body.extend_from_slice(I16::<Le>::new(*f).as_bytes());
    }
    let mut header = MdcSurface::new_zeroed();
    header.ident = I32::new(s.ident);
    header.name = field(&s.name);
    header.num_comp_frames = le_i32(s.comp_frames.len());
    header.num_base_frames = le_i32(s.base_frames.len());
    header.num_shaders = le_i32(s.shaders.len());
    header.num_verts = le_i32(s.st.len());
    header.num_triangles = le_i32(s.triangles.len());
    header.ofs_triangles = le_i32(ofs_triangles);
    header.ofs_shaders = le_i32(ofs_shaders);
    header.ofs_st = le_i32(ofs_st);
    header.ofs_xyz_normals = le_i32(ofs_xyz);
    header.ofs_xyz_compressed = le_i32(ofs_comp);
    header.ofs_frame_base_frames = le_i32(ofs_base_table);
    header.ofs_frame_comp_frames = le_i32(ofs_comp_table);
    header.ofs_end = le_i32(header_size + body.len());
    let mut out = header.as_bytes().to_vec();
    out.extend_from_slice(&body);
    out
}

impl SurfaceDef {
    /// Vertex `v` of model frame `frame` as the engines decode it: the base vertex's
    /// `xyz / 64`, plus the compressed frame's offset where the frame has one; `None` where a
    /// table or frame is missing.
    #[must_use]
    pub fn position(&self, frame: usize, v: usize) -> Option<[f32; 3]> {
        let base = usize::try_from(*self.frame_base_frames.get(frame)?).ok()?;
        let p = self
            .base_frames
            .get(base)?
            .get(v)?
            .0
            .map(|c| f32::from(c) * MD3_XYZ_SCALE);
        let comp = self.frame_comp_frames.get(frame).copied().unwrap_or(-1);
        match usize::try_from(comp)
            .ok()
            .and_then(|c| self.comp_frames.get(c))
        {
            Some(offsets) => {
                let d = compressed_offset(*offsets.get(v)?);
                Some([p[0] + d[0], p[1] + d[1], p[2] + d[2]])
            }
            None => Some(p),
        }
    }
}

/// The engine MDC surfaces are split for: ET:Legacy's 10 000 vertices and 20 000 triangles.
const ET_LEGACY: Target = Target {
    format: "MDC",
    engine: "ET:Legacy",
    max_verts: MDC_MAX_VERTS,
    max_tris: MDC_MAX_TRIANGLES,
};

/// The most frames an MDC holds: its frame tables are `i16`.
const MAX_FRAMES: usize = i16::MAX as usize + 1;

/// A tag angle in degrees as stored: units of `360 / 32700` degrees, turned into ±180°.
fn angle_units(degrees: f64) -> i16 {
    let turned = (degrees + 180.0).rem_euclid(360.0) - 180.0;
    (turned / MDC_TAG_ANGLE_SCALE).round() as i16
}

impl Builder {
    /// `asset` as an MDC, what Return to Castle Wolfenstein, Enemy Territory and ET:Legacy
    /// read: laid out as [`md3::Builder::from_asset`](crate::md3::Builder::from_asset) lays
    /// out an MD3 (a surface per mesh, split past ET:Legacy's 10 000 vertices or 20 000
    /// triangles; positions at 1/64 unit, normals as latitude and longitude; the asset's tags
    /// and attachment joints as tags), then compressed as ET:Legacy's converter compresses:
    /// frame 0 and every frame that cannot be stored within [`MDC_MAX_ERROR`] of a base frame
    /// are base frames, the others byte offsets from the last base frame
    /// ([`SurfaceDef::compress`]). Frame summaries are computed from the decoded vertices;
    /// tags are stored as a position at 1/64 unit and three angles (a mirrored tag keeps its
    /// forward and left axes and turns its up axis, with a note).
    ///
    /// ```
    /// use skelmap_core::{Model, mdc, model::convert};
    /// let bytes = skelmap_core::synth::tube(&Default::default()).write()?;
    /// let asset = convert::asset_of(&Model::from_bytes(&bytes)?)?;
    /// let fitted = mdc::Builder::from_asset(&asset, true)?; // without `bake`: refused
    /// let bytes = fitted.builder.write();
    /// let model = Model::from_bytes(&bytes)?;
    /// assert_eq!((model.num_frames(), model.num_tags(), model.num_meshes()), (9, 1, 1));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`md3::Builder::from_asset`](crate::md3::Builder::from_asset), and for more than
    /// 32 768 frames (the frame tables are `i16`) or a file past 2 GiB.
    pub fn from_asset(asset: &Asset, bake: bool) -> Result<Fitted<Builder>, FitError> {
        let Fit {
            frames,
            tags,
            surfaces,
            mut losses,
        } = fit(asset, bake, ET_LEGACY)?;
        if frames.len() > MAX_FRAMES {
            return Err(FitError::new(
                "MDC",
                format!("{} frames", frames.len()),
                format!("its frame tables are 16-bit: at most {MAX_FRAMES} frames"),
                "convert fewer clips with `--clip`",
            ));
        }
        let surfaces: Vec<SurfaceDef> = surfaces
            .into_iter()
            .map(|s| {
                let decoded: Vec<Vec<([f32; 3], [f32; 3])>> = s
                    .frames
                    .iter()
                    .map(|f| {
                        f.iter()
                            .map(|(xyz, n)| {
                                (
                                    xyz.map(|c| f32::from(c) * MD3_XYZ_SCALE),
                                    lat_long_normal(*n),
                                )
                            })
                            .collect()
                    })
                    .collect();
                let (compressed, _) = SurfaceDef::compress(&decoded, MDC_MAX_ERROR);
                SurfaceDef {
                    name: s.name,
                    shaders: s.shaders,
                    triangles: s.triangles,
                    st: s.st,
                    ..compressed
                }
            })
            .collect();
        let frames: Vec<FrameDef> = frames
            .into_iter()
            .enumerate()
            .map(|(f, def)| {
                let points = surfaces
                    .iter()
                    .flat_map(move |s| (0..s.st.len()).filter_map(move |v| s.position(f, v)));
                frame_summary(def.name, points)
            })
            .collect();
        let tag_names: Vec<Vec<u8>> = tags.first().map_or(Vec::new(), |row| {
            row.iter().map(|t| t.name.clone()).collect()
        });
        let (mut mirrored, mut outside) = (false, false);
        let tags: Vec<Vec<TagDef>> = tags
            .iter()
            .map(|row| {
                row.iter()
                    .map(|t| {
                        let [f, l, u] = t.axis.map(|r| r.map(f64::from));
                        let c = cross(f, l);
                        mirrored |= c[0] * u[0] + c[1] * u[1] + c[2] * u[2] < 0.0;
                        let xyz = t.origin.map(|c| {
                            quantise(c).unwrap_or_else(|| {
                                outside = true;
                                if c < 0.0 { i16::MIN } else { i16::MAX }
                            })
                        });
                        TagDef {
                            xyz,
                            angles: axis_to_angles(&t.axis).map(angle_units),
                        }
                    })
                    .collect()
            })
            .collect();
        if mirrored {
            losses.push(
                "a tag's axes are mirrored, which MDC's angles cannot store: its up axis was \
                 turned over"
                    .into(),
            );
        }
        if outside {
            losses.push(
                "a tag lies past the ±512 units MDC stores at 1/64 unit: moved to the edge".into(),
            );
        }
        let b = Builder {
            frames,
            tag_names,
            tags,
            surfaces,
            ..Builder::default()
        };
        check_size(&b)?;
        Ok(Fitted { builder: b, losses })
    }
}

/// Refuses a file whose 32-bit offsets would overflow: past 2 GiB.
fn check_size(b: &Builder) -> Result<(), FitError> {
    let frames = b.frames.len() as u64;
    let tags = b.tag_names.len() as u64;
    let mut bytes = size_of::<MdcHeader>() as u64
        + frames * size_of::<Md3Frame>() as u64
        + tags * (size_of::<MdcTagName>() as u64 + frames * size_of::<MdcTag>() as u64);
    for s in &b.surfaces {
        let verts = s.st.len() as u64;
        bytes += (size_of::<MdcSurface>() + size_of::<Md3Shader>()) as u64
            + s.triangles.len() as u64 * size_of::<Md3Triangle>() as u64
            + verts * size_of::<Md3St>() as u64
            + verts * s.base_frames.len() as u64 * size_of::<Md3XyzNormal>() as u64
            + verts * s.comp_frames.len() as u64 * size_of::<MdcXyzCompressed>() as u64
            + frames * 4;
    }
    if bytes > i32::MAX as u64 {
        return Err(FitError::new(
            "MDC",
            format!("{bytes} bytes"),
            "its offsets are 32-bit: at most 2 GiB",
            "convert fewer clips with `--clip`, or split the model",
        ));
    }
    Ok(())
}

impl crate::asset::Writer for Builder {
    const FORMAT: crate::format::Format = crate::format::Format::Mdc;
    const STORES_IMAGES: bool = false;

    fn write_asset(
        asset: &Asset,
        options: &crate::asset::WriteOptions,
    ) -> Result<crate::asset::Written, crate::asset::WriteError> {
        let Fitted { builder, losses } = Builder::from_asset(asset, options.bake)?;
        Ok(crate::asset::Written::one(Self::FORMAT, builder.write()).with_notes(losses))
    }
}
