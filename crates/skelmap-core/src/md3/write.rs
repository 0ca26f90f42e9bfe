//! Writing MD3 files (fixtures, fuzz seeds and conversions): [`Builder`] lays out what it is given in the
//! order id's tools write (header, frames, tags, surfaces; in each surface its header,
//! shaders, triangles, texture coordinates, vertices), counts and offsets computed, and says
//! where everything went ([`Layout`]) so that a test can break one field. It writes exactly
//! what it is given; the parser judges.

use zerocopy::byteorder::{F32, I16, I32, LittleEndian, U16};
use zerocopy::{FromZeros, IntoBytes};

use glam::Affine3A;

use super::raw::{
    MAX_QPATH, MD3_MAGIC, MD3_MAX_FRAMES, MD3_MAX_SURFACES, MD3_MAX_TAGS, MD3_MAX_TRIANGLES,
    MD3_MAX_VERTS, MD3_VERSION, MD3_XYZ_SCALE, Md3Frame, Md3Header, Md3Shader, Md3St, Md3Surface,
    Md3Tag, Md3Triangle, Md3XyzNormal,
};
use crate::alias::idp3::orthonormal;
use crate::asset::{Asset, FitError, Fitted, FrameKeys, Mesh, PosedMesh, UpAxis};
use crate::skin::morph::lat_long_normal;

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

/// The largest coordinate an MD3 stores: `i16::MAX` in units of 1/64.
const MAX_COORD: f32 = i16::MAX as f32 * MD3_XYZ_SCALE;
/// The smallest: `i16::MIN` in units of 1/64.
const MIN_COORD: f32 = i16::MIN as f32 * MD3_XYZ_SCALE;

/// The longest name a 64-byte field holds with its NUL, which the reader requires of
/// surface, shader and tag names (rules 4 and 8).
const MAX_NAME: usize = MAX_QPATH - 1;

/// The longest frame name a 16-byte field holds with its NUL.
const MAX_FRAME_NAME: usize = 15;

/// A coordinate in units of 1/64, rounded to the nearest; `None` outside `i16`.
fn quantise(c: f32) -> Option<i16> {
    let q = (c / MD3_XYZ_SCALE).round();
    (q >= f32::from(i16::MIN) && q <= f32::from(i16::MAX)).then_some(q as i16)
}

/// The latitude and longitude bytes (latitude high, longitude low, as [`Md3XyzNormal`]
/// stores them) whose decoded normal ([`lat_long_normal`]) is nearest in direction to `n`:
/// the angles rounded, then their neighbours tried, a candidate that decodes to `n` exactly
/// taken at once, so that a normal read from an MD3 gets bytes that decode to it again (at a
/// pole, where every latitude decodes alike, latitude 0). A normal without length is `+Z`.
///
/// ```
/// use skelmap_core::md3::write::encode_normal;
/// use skelmap_core::skin::morph::lat_long_normal;
/// assert_eq!(encode_normal([0.0, 0.0, 1.0]), 0);
/// assert_eq!(encode_normal([1.0, 0.0, 0.0]), 64); // longitude a quarter turn
/// for code in [0x1234u16, 0x4020, 0xff7f] {
///     assert_eq!(lat_long_normal(encode_normal(lat_long_normal(code))), lat_long_normal(code));
/// }
/// ```
#[must_use]
pub fn encode_normal(n: [f32; 3]) -> u16 {
    let wide = n.map(f64::from);
    let length = |v: [f64; 3]| (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    let len = length(wide);
    if !(len > 0.0 && len.is_finite()) {
        return 0;
    }
    let u = wide.map(|c| c / len);
    let per_radian = 256.0 / core::f64::consts::TAU;
    let longitude = (u[2].clamp(-1.0, 1.0).acos() * per_radian).round() as i32;
    let latitude = (u[1].atan2(u[0]) * per_radian).round() as i32;
    let mut best = (f64::INFINITY, 0u16);
    for lng in [longitude, longitude - 1, longitude + 1] {
        if !(0..=128).contains(&lng) {
            continue;
        }
        // At a pole every latitude decodes the same normal: latitude 0 stands for them.
        let lats = if lng == 0 || lng == 128 {
            [0; 3]
        } else {
            [latitude, latitude - 1, latitude + 1]
        };
        for lat in lats {
            let code = ((lat.rem_euclid(256) as u16) << 8) | lng as u16;
            let decoded = lat_long_normal(code);
            if decoded == n {
                return code;
            }
            // Distances in f64 between directions: neighbours near a pole differ by less
            // than an f32 dot product resolves.
            let d = decoded.map(f64::from);
            let dl = length(d).max(f64::MIN_POSITIVE);
            let distance: f64 = (0..3).map(|k| (d[k] / dl - u[k]).powi(2)).sum();
            if distance < best.0 {
                best = (distance, code);
            }
        }
    }
    best.1
}

/// `name` cut at a character boundary to at most `max` bytes, with a note of what was cut
/// (`kind` says what it names).
fn cut_name(name: &str, max: usize, kind: &str, losses: &mut Vec<String>) -> Vec<u8> {
    if name.len() <= max {
        return name.as_bytes().to_vec();
    }
    let mut end = max;
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    losses.push(format!(
        "the {kind} name {name:?} is {} bytes: cut to {end}, as an MD3's {}-byte field holds \
         it with its NUL",
        name.len(),
        max + 1
    ));
    name.as_bytes()[..end].to_vec()
}

/// One surface to write from an asset mesh: the mesh's vertices it takes (each once, in
/// order) and its triangles over them, in the asset's winding.
struct Piece {
    vertices: Vec<u32>,
    triangles: Vec<[u32; 3]>,
}

/// `mesh` as surfaces ioquake3 loads: the mesh as it is when it fits 4096 vertices and 8192
/// triangles; else its triangles in order, a new surface begun whenever the next triangle
/// would take one past either limit, shared vertices copied into each surface that uses
/// them (triangles naming a vertex the mesh lacks are left out).
fn pieces(mesh: &Mesh) -> Vec<Piece> {
    let n = mesh.positions.len();
    let (max_verts, max_tris) = (MD3_MAX_VERTS as usize, MD3_MAX_TRIANGLES as usize);
    if n <= max_verts && mesh.triangles.len() <= max_tris {
        return vec![Piece {
            vertices: (0..n as u32).collect(),
            triangles: mesh.triangles.clone(),
        }];
    }
    let mut out = Vec::new();
    let mut slot = vec![u32::MAX; n];
    let mut piece = Piece {
        vertices: Vec::new(),
        triangles: Vec::new(),
    };
    for t in &mesh.triangles {
        if t.iter().any(|&v| v as usize >= n) {
            continue;
        }
        let new = t.iter().filter(|&&v| slot[v as usize] == u32::MAX).count();
        if piece.vertices.len() + new > max_verts || piece.triangles.len() == max_tris {
            for &v in &piece.vertices {
                slot[v as usize] = u32::MAX;
            }
            out.push(core::mem::replace(
                &mut piece,
                Piece {
                    vertices: Vec::new(),
                    triangles: Vec::new(),
                },
            ));
        }
        let mut face = [0u32; 3];
        for (k, &v) in t.iter().enumerate() {
            if slot[v as usize] == u32::MAX {
                slot[v as usize] = piece.vertices.len() as u32;
                piece.vertices.push(v);
            }
            face[k] = slot[v as usize];
        }
        piece.triangles.push(face);
    }
    if !piece.triangles.is_empty() {
        out.push(piece);
    }
    out
}

/// Frame `frame`'s bounds, local origin (the centre of the bounds) and radius (the farthest
/// vertex from that centre), from the positions as stored.
fn frame_def(name: Vec<u8>, surfaces: &[SurfaceDef], frame: usize) -> FrameDef {
    let points = surfaces
        .iter()
        .filter_map(|s| s.frames.get(frame))
        .flatten()
        .map(|(xyz, _)| xyz.map(|c| f32::from(c) * MD3_XYZ_SCALE));
    let Some((lo, hi)) = points
        .clone()
        .fold(None, |acc: Option<([f32; 3], [f32; 3])>, p| {
            let (lo, hi) = acc.unwrap_or((p, p));
            Some((
                core::array::from_fn(|k| lo[k].min(p[k])),
                core::array::from_fn(|k| hi[k].max(p[k])),
            ))
        })
    else {
        return FrameDef {
            name,
            ..FrameDef::default()
        };
    };
    let origin: [f32; 3] = core::array::from_fn(|k| (lo[k] + hi[k]) * 0.5);
    let radius = points
        .map(|p| {
            let d: [f32; 3] = core::array::from_fn(|k| p[k] - origin[k]);
            (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt()
        })
        .fold(0.0f32, f32::max);
    FrameDef {
        name,
        bounds: [lo, hi],
        local_origin: origin,
        radius,
    }
}

/// A tag from a transform whose linear part's columns are its forward, left and up axes:
/// the axes as rows, made orthonormal where `orthonormalise` asks (a joint's world
/// transform, which may scale).
fn tag_def(name: &[u8], m: Affine3A, orthonormalise: bool) -> TagDef {
    let rows = [m.matrix3.x_axis, m.matrix3.y_axis, m.matrix3.z_axis].map(|c| c.to_array());
    TagDef {
        name: name.to_vec(),
        origin: m.translation.to_array(),
        axis: if orthonormalise {
            orthonormal(rows)
        } else {
            rows
        },
    }
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
        let asset = asset.with_up(UpAxis::Z);
        asset.refuse_unbaked("MD3", bake)?;
        let mut losses = Vec::new();
        let frames = asset.baked();
        check_extent(&frames)?;
        let mut surfaces = Vec::new();
        let mut first = 0usize;
        for (index, mesh) in asset.meshes.iter().enumerate() {
            let name = asset.mesh_name(index);
            let shader = asset.material_name(mesh);
            let shader = cut_name(&shader, MAX_NAME, "shader", &mut losses);
            let parts = pieces(mesh);
            let split = parts.len() > 1;
            if split {
                losses.push(format!(
                    "mesh {name:?} ({} vertices, {} triangles) is past ioquake3's {} vertices \
                     or {} triangles a surface: written as {} surfaces",
                    mesh.positions.len(),
                    mesh.triangles.len(),
                    MD3_MAX_VERTS,
                    MD3_MAX_TRIANGLES,
                    parts.len()
                ));
            }
            for (k, piece) in parts.iter().enumerate() {
                let suffix = if k > 0 {
                    format!("_{}", k + 1)
                } else {
                    String::new()
                };
                let mut name_bytes =
                    cut_name(&name, MAX_NAME - suffix.len(), "surface", &mut losses);
                name_bytes.extend_from_slice(suffix.as_bytes());
                surfaces.push(surface_def(
                    name_bytes,
                    shader.clone(),
                    mesh,
                    piece,
                    &frames,
                    first,
                ));
            }
            first += mesh.positions.len();
        }
        let limits = crate::Limits::DEFAULT;
        if surfaces.len() > limits.max_meshes as usize || frames.len() > limits.max_frames as usize
        {
            return Err(FitError::new(
                "MD3",
                format!("{} surfaces and {} frames", surfaces.len(), frames.len()),
                format!(
                    "skelmap reads at most {} surfaces and {} frames",
                    limits.max_meshes, limits.max_frames
                ),
                "merge meshes with `skelmap optimize`, or convert fewer clips with `--clip`",
            ));
        }
        let tags = tags_of(&asset, frames.len(), &mut losses);
        check_size(&surfaces, frames.len(), tags.first().map_or(0, Vec::len))?;
        let frame_defs = frames
            .iter()
            .enumerate()
            .map(|(f, (name, _))| {
                let name = cut_name(name, MAX_FRAME_NAME, "frame", &mut losses);
                frame_def(name, &surfaces, f)
            })
            .collect();
        let b = Builder {
            frames: frame_defs,
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

/// Refuses a frame with a coordinate that 16 bits of 1/64 unit cannot hold, naming the
/// largest and its frame.
fn check_extent(frames: &[(String, PosedMesh)]) -> Result<(), FitError> {
    let mut worst: Option<(f32, usize, &str)> = None;
    for (name, frame) in frames {
        for (k, &c) in frame.positions.iter().flatten().enumerate() {
            let past = !(MIN_COORD..=MAX_COORD).contains(&c) || quantise(c).is_none();
            if past && worst.is_none_or(|(w, _, _)| c.abs().total_cmp(&w.abs()).is_gt()) {
                worst = Some((c, k % 3, name));
            }
        }
    }
    match worst {
        None => Ok(()),
        Some((c, axis, frame)) => Err(FitError::new(
            "MD3",
            format!(
                "a vertex at {c} units on {} (frame '{frame}')",
                ["X", "Y", "Z"][axis]
            ),
            format!(
                "it stores positions in 1/64 unit in 16 bits, {MIN_COORD} to {MAX_COORD} \
                 units, with no scale"
            ),
            "scale the model down or move it to the origin in the source, or convert to MD2 \
             or MDL5, which store a scale",
        )),
    }
}

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

/// The surface of `piece` of `mesh`, whose vertices start at `first` in each baked frame.
fn surface_def(
    name: Vec<u8>,
    shader: Vec<u8>,
    mesh: &Mesh,
    piece: &Piece,
    frames: &[(String, PosedMesh)],
    first: usize,
) -> SurfaceDef {
    SurfaceDef {
        name,
        shaders: vec![shader],
        // MD3 winds clockwise seen from the front; the asset counter-clockwise.
        triangles: piece
            .triangles
            .iter()
            .map(|t| [t[2] as i32, t[1] as i32, t[0] as i32])
            .collect(),
        st: piece
            .vertices
            .iter()
            .map(|&v| mesh.uv(v as usize))
            .collect(),
        frames: frames
            .iter()
            .map(|(_, f)| {
                piece
                    .vertices
                    .iter()
                    .map(|&v| {
                        let at = first + v as usize;
                        let p = f.positions.get(at).copied().unwrap_or_default();
                        let n = f.normals.get(at).copied().unwrap_or_default();
                        (p.map(|c| quantise(c).unwrap_or(0)), encode_normal(n))
                    })
                    .collect()
            })
            .collect(),
    }
}

/// Every frame's tags: the asset's own, then the skeleton's attachment joints and joints
/// named `tag_…` (see [`Builder::from_asset`]), `frames` of them (one, at the asset's pose,
/// when the asset has no frames).
fn tags_of(asset: &Asset, frames: usize, losses: &mut Vec<String>) -> Vec<Vec<TagDef>> {
    let joints: Vec<usize> = asset.skeleton.as_ref().map_or(Vec::new(), |s| {
        (0..s.joints.len())
            .filter(|j| s.attachments.contains(j) || s.joints[*j].name.starts_with("tag_"))
            .collect()
    });
    let mut names: Vec<Vec<u8>> = Vec::new();
    for tag in &asset.tags {
        names.push(cut_name(&tag.name, MAX_NAME, "tag", losses));
    }
    if let Some(s) = &asset.skeleton {
        for &j in &joints {
            names.push(cut_name(&s.joints[j].name, MAX_NAME, "tag", losses));
        }
    }
    if names.is_empty() {
        return Vec::new();
    }
    let mut scaled = false;
    let mut joint_tags = |world: &[Affine3A], out: &mut Vec<TagDef>| {
        for (k, &j) in joints.iter().enumerate() {
            let m = world.get(j).copied().unwrap_or_default();
            let def = tag_def(&names[asset.tags.len() + k], m, true);
            let kept = tag_def(&[], m, false);
            scaled |= def
                .axis
                .iter()
                .flatten()
                .zip(kept.axis.iter().flatten())
                .any(|(a, b)| (a - b).abs() > 1e-4);
            out.push(def);
        }
    };
    let mut out = Vec::with_capacity(frames);
    for f in 0..frames {
        let mut row: Vec<TagDef> = Vec::with_capacity(names.len());
        let key = if asset.num_frames() > 0 {
            asset.frame(f).map(|(_, keys)| keys)
        } else {
            None
        };
        let target = match key {
            Some(FrameKeys::Morph(t)) => Some(t as usize),
            _ => None,
        };
        for (tag, name) in asset.tags.iter().zip(&names) {
            let m = target.map_or(tag.pose, |t| tag.at_target(t));
            row.push(tag_def(name, m, false));
        }
        if let Some(s) = &asset.skeleton {
            let world = match key {
                Some(FrameKeys::Joints(keys)) => s.world(keys),
                _ => s.joints.iter().map(|j| j.world).collect(),
            };
            joint_tags(&world, &mut row);
        }
        out.push(row);
    }
    if scaled {
        losses.push(
            "an attachment joint scales or shears: its tag's axes were made orthonormal, as \
             MD3 tags are"
                .into(),
        );
    }
    out
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
