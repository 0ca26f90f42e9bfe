//! What writing Quake III's MD3 and RtCW's MDC share: the frame, tag and surface definitions
//! their builders lay out (an MDC's base frames are MD3's vertex records), the small field
//! encoders, and fitting an [`Asset`] into them ([`fit`]): surfaces split at an engine's
//! limits, positions at 1/64 unit in 16 bits, normals as latitude and longitude, frame
//! summaries, tags from the asset's tags and attachment joints.

use glam::Affine3A;
use zerocopy::byteorder::{F32, I32, LittleEndian};

use super::idp3::{MAX_QPATH, MD3_XYZ_SCALE, orthonormal};
use crate::asset::{Asset, FitError, FrameKeys, Mesh, PosedMesh, UpAxis};
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

/// `bytes` into a zeroed field of `N` bytes, cut to fit.
pub(crate) fn field<const N: usize>(bytes: &[u8]) -> [u8; N] {
    let mut out = [0u8; N];
    let n = bytes.len().min(N);
    out[..n].copy_from_slice(&bytes[..n]);
    out
}

pub(crate) fn le_i32(v: usize) -> I32<Le> {
    I32::new(i32::try_from(v).unwrap_or(i32::MAX))
}

pub(crate) fn floats<const N: usize>(v: [f32; N]) -> [F32<Le>; N] {
    v.map(F32::new)
}

/// The largest coordinate MD3 and MDC store: `i16::MAX` in units of 1/64.
const MAX_COORD: f32 = i16::MAX as f32 * MD3_XYZ_SCALE;
/// The smallest: `i16::MIN` in units of 1/64.
const MIN_COORD: f32 = i16::MIN as f32 * MD3_XYZ_SCALE;

/// The longest name a 64-byte field holds with its NUL, which the reader requires of
/// surface, shader and tag names (rules 4 and 8).
pub(crate) const MAX_NAME: usize = MAX_QPATH - 1;

/// The longest frame name a 16-byte field holds with its NUL.
pub(crate) const MAX_FRAME_NAME: usize = 15;

/// A coordinate in units of 1/64, rounded to the nearest; `None` outside `i16`.
pub(crate) fn quantise(c: f32) -> Option<i16> {
    let q = (c / MD3_XYZ_SCALE).round();
    (q >= f32::from(i16::MIN) && q <= f32::from(i16::MAX)).then_some(q as i16)
}

/// The latitude and longitude bytes (latitude high, longitude low, as `md3XyzNormal_t`
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
/// (`kind` says what it names, `format` the file's format).
pub(crate) fn cut_name(
    name: &str,
    max: usize,
    (format, kind): (&str, &str),
    losses: &mut Vec<String>,
) -> Vec<u8> {
    if name.len() <= max {
        return name.as_bytes().to_vec();
    }
    let mut end = max;
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    losses.push(format!(
        "the {kind} name {name:?} is {} bytes: cut to {end}, as an {format}'s {}-byte field \
         holds it with its NUL",
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

/// `mesh` as surfaces an engine loads: the mesh as it is when it fits `max_verts` vertices
/// and `max_tris` triangles; else its triangles in order, a new surface begun whenever the next triangle
/// would take one past either limit, shared vertices copied into each surface that uses
/// them (triangles naming a vertex the mesh lacks are left out).
fn pieces(mesh: &Mesh, max_verts: usize, max_tris: usize) -> Vec<Piece> {
    let n = mesh.positions.len();
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

/// Frame `frame`'s summary from the positions `surfaces` store ([`frame_summary`]).
pub(crate) fn frame_def(name: Vec<u8>, surfaces: &[SurfaceDef], frame: usize) -> FrameDef {
    let points = surfaces
        .iter()
        .filter_map(|s| s.frames.get(frame))
        .flatten()
        .map(|(xyz, _)| xyz.map(|c| f32::from(c) * MD3_XYZ_SCALE));
    frame_summary(name, points)
}

/// A frame's bounds, local origin (the centre of the bounds) and radius (the farthest of
/// `points` from that centre); zeros for a frame without points.
pub(crate) fn frame_summary(
    name: Vec<u8>,
    points: impl Iterator<Item = [f32; 3]> + Clone,
) -> FrameDef {
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

/// Refuses a frame with a coordinate that 16 bits of 1/64 unit cannot hold, naming the
/// largest and its frame.
fn check_extent(frames: &[(String, PosedMesh)], format: &'static str) -> Result<(), FitError> {
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
            format,
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
/// named `tag_…` (see [`fit`]), `frames` of them (one, at the asset's pose,
/// when the asset has no frames).
fn tags_of(
    asset: &Asset,
    frames: usize,
    format: &'static str,
    losses: &mut Vec<String>,
) -> Vec<Vec<TagDef>> {
    let joints: Vec<usize> = asset.skeleton.as_ref().map_or(Vec::new(), |s| {
        (0..s.joints.len())
            .filter(|j| s.attachments.contains(j) || s.joints[*j].name.starts_with("tag_"))
            .collect()
    });
    let mut names: Vec<Vec<u8>> = Vec::new();
    for tag in &asset.tags {
        names.push(cut_name(&tag.name, MAX_NAME, (format, "tag"), losses));
    }
    if let Some(s) = &asset.skeleton {
        for &j in &joints {
            names.push(cut_name(
                &s.joints[j].name,
                MAX_NAME,
                (format, "tag"),
                losses,
            ));
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
        losses.push(format!(
            "an attachment joint scales or shears: its tag's axes were made orthonormal, \
                 as {format} tags are"
        ));
    }
    out
}

/// The format and engine an asset is fitted for ([`fit`]): the format's short name (for
/// errors and notes), the engine whose limits split surfaces, and those limits.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Target {
    pub format: &'static str,
    pub engine: &'static str,
    pub max_verts: u32,
    pub max_tris: u32,
}

/// An asset fitted into MD3's records ([`fit`]), and what could not be kept.
pub(crate) struct Fit {
    pub frames: Vec<FrameDef>,
    pub tags: Vec<Vec<TagDef>>,
    pub surfaces: Vec<SurfaceDef>,
    pub losses: Vec<String>,
}

/// `asset` (`+Z` up; a `+Y`-up asset is turned) as MD3's records: a surface per mesh
/// (split where `target`'s engine refuses it, vertices shared across a cut copied), every
/// frame's positions at 1/64 unit and normals as latitude and longitude, frame summaries
/// from the stored positions, and tags ([`tags_of`]); names cut to their fields.
///
/// # Errors
///
/// [`FitError`] for skeletal animation without `bake`, a position past the ±512 units 16
/// bits of 1/64 reach, or more surfaces or frames than skelmap reads.
pub(crate) fn fit(asset: &Asset, bake: bool, target: Target) -> Result<Fit, FitError> {
    let format = target.format;
    let asset = asset.with_up(UpAxis::Z);
    asset.refuse_unbaked(format, bake)?;
    let mut losses = Vec::new();
    let frames = asset.baked();
    check_extent(&frames, format)?;
    let mut surfaces = Vec::new();
    let mut first = 0usize;
    for (index, mesh) in asset.meshes.iter().enumerate() {
        let name = asset.mesh_name(index);
        let shader = asset.material_name(mesh);
        let shader = cut_name(&shader, MAX_NAME, (format, "shader"), &mut losses);
        let parts = pieces(mesh, target.max_verts as usize, target.max_tris as usize);
        if parts.len() > 1 {
            losses.push(format!(
                "mesh {name:?} ({} vertices, {} triangles) is past {}'s {} vertices or {} \
                 triangles a surface: written as {} surfaces",
                mesh.positions.len(),
                mesh.triangles.len(),
                target.engine,
                target.max_verts,
                target.max_tris,
                parts.len()
            ));
        }
        for (k, piece) in parts.iter().enumerate() {
            let suffix = if k > 0 {
                format!("_{}", k + 1)
            } else {
                String::new()
            };
            let max = MAX_NAME - suffix.len();
            let mut name_bytes = cut_name(&name, max, (format, "surface"), &mut losses);
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
    if surfaces.len() > limits.max_meshes as usize || frames.len() > limits.max_frames as usize {
        return Err(FitError::new(
            format,
            format!("{} surfaces and {} frames", surfaces.len(), frames.len()),
            format!(
                "skelmap reads at most {} surfaces and {} frames",
                limits.max_meshes, limits.max_frames
            ),
            "merge meshes with `skelmap optimize`, or convert fewer clips with `--clip`",
        ));
    }
    let tags = tags_of(&asset, frames.len(), format, &mut losses);
    let frame_defs = frames
        .iter()
        .enumerate()
        .map(|(f, (name, _))| {
            let name = cut_name(name, MAX_FRAME_NAME, (format, "frame"), &mut losses);
            frame_def(name, &surfaces, f)
        })
        .collect();
    Ok(Fit {
        frames: frame_defs,
        tags,
        surfaces,
        losses,
    })
}
