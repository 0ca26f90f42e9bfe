//! What writing Quake III's MD3 and RtCW's MDC share below the asset: the frame, tag and
//! surface definitions their builders lay out (an MDC's base frames are MD3's vertex
//! records), the field encoders (positions at 1/64 unit in 16 bits, normals as latitude and
//! longitude, names cut to their fields), frame summaries and tags from transforms. Fitting
//! an asset into them is `md3::write`'s, which the MDC writer calls.

use glam::Affine3A;
use zerocopy::IntoBytes;
use zerocopy::byteorder::{F32, I16, I32, LittleEndian, U16};

use super::idp3::{
    MAX_QPATH, MD3_XYZ_SCALE, Md3Frame, Md3Shader, Md3St, Md3Triangle, Md3XyzNormal, orthonormal,
};
use crate::name::CodePage;
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

/// Appends every frame summary of `frames` to `out`, as `md3Frame_t` records.
pub(crate) fn put_frames(out: &mut Vec<u8>, frames: &[FrameDef]) {
    for f in frames {
        let frame = Md3Frame {
            bounds: f.bounds.map(floats),
            local_origin: floats(f.local_origin),
            radius: F32::new(f.radius),
            name: field(&f.name),
        };
        out.extend_from_slice(frame.as_bytes());
    }
}

/// Appends a surface's shaders, triangles and texture coordinates to `body` (what follows a
/// surface header of `header_size` bytes, in the order the engines' tools write them);
/// returns their offsets from the surface header.
pub(crate) fn put_surface_records(
    body: &mut Vec<u8>,
    header_size: usize,
    shaders: &[Vec<u8>],
    triangles: &[[i32; 3]],
    st: &[[f32; 2]],
) -> [usize; 3] {
    let ofs_shaders = header_size + body.len();
    for name in shaders {
        let shader = Md3Shader {
            name: field(name),
            shader_index: I32::new(0),
        };
        body.extend_from_slice(shader.as_bytes());
    }
    let ofs_triangles = header_size + body.len();
    for t in triangles {
        let triangle = Md3Triangle {
            indexes: t.map(I32::new),
        };
        body.extend_from_slice(triangle.as_bytes());
    }
    let ofs_st = header_size + body.len();
    for st in st {
        body.extend_from_slice(Md3St { st: floats(*st) }.as_bytes());
    }
    [ofs_shaders, ofs_triangles, ofs_st]
}

/// Appends `vertices` (`(xyz in 1/64 units, lat/long normal)`) to `body` as
/// `md3XyzNormal_t` records.
pub(crate) fn put_vertices<'a>(
    body: &mut Vec<u8>,
    vertices: impl Iterator<Item = &'a ([i16; 3], u16)>,
) {
    for (xyz, normal) in vertices {
        let v = Md3XyzNormal {
            xyz: xyz.map(I16::new),
            normal: U16::new(*normal),
        };
        body.extend_from_slice(v.as_bytes());
    }
}

/// The largest coordinate MD3 and MDC store: `i16::MAX` in units of 1/64.
pub(crate) const MAX_COORD: f32 = i16::MAX as f32 * MD3_XYZ_SCALE;
/// The smallest: `i16::MIN` in units of 1/64.
pub(crate) const MIN_COORD: f32 = i16::MIN as f32 * MD3_XYZ_SCALE;

/// The longest name a 64-byte field holds with its NUL, which the reader requires of
/// surface, shader and tag names (rules 4 and 8).
pub(crate) const MAX_NAME: usize = MAX_QPATH - 1;

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

/// `a × b`.
pub(crate) fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// Pitch, yaw and roll in degrees whose axes (Quake III's `AnglesToAxis`, see
/// `mdc::Tag::axis`: an MDC tag's, and an MDX bone's rows) are `axis` (rows forward, left,
/// up) for a rotation; the up axis is taken as forward × left, so that a mirrored tag keeps
/// its forward and left axes. Where the forward axis is vertical, yaw is 0 and roll carries
/// the turn.
pub(crate) fn axis_to_angles(axis: &[[f32; 3]; 3]) -> [f64; 3] {
    let [f, l, _] = axis.map(|r| r.map(f64::from));
    let u = cross(f, l);
    let flat = f[0].hypot(f[1]);
    // An arctangent rather than the arcsine of `-f[2]`, which loses the angle near ±90°.
    let pitch = (-f[2]).atan2(flat);
    let (yaw, roll) = if flat > 1e-6 {
        (f[1].atan2(f[0]), l[2].atan2(u[2]))
    } else {
        (0.0, (-u[1]).atan2(l[1]))
    };
    [pitch, yaw, roll].map(f64::to_degrees)
}

/// `name` in `code_page`, cut at a character boundary to at most `max` bytes, with a note
/// of what was cut (`kind` says what it names, `format` the file's format).
pub(crate) fn cut_name(
    (name, code_page): (&str, CodePage),
    max: usize,
    (format, kind): (&str, &str),
    losses: &mut Vec<String>,
) -> Vec<u8> {
    let whole = code_page.encode(name);
    if whole.len() <= max {
        return whole.into_owned();
    }
    let cut = code_page.encode_within(name, max);
    losses.push(format!(
        "the {kind} name {:?} is {} bytes: cut to {}, as an {format}'s {}-byte field \
         holds it with its NUL",
        crate::name::shown(name),
        whole.len(),
        cut.len(),
        max + 1
    ));
    cut
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
pub(crate) fn tag_def(name: &[u8], m: Affine3A, orthonormalise: bool) -> TagDef {
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
