//! What Quake III's MD3 and Return to Castle Wolfenstein's MDC (its compressed descendant)
//! share: the frame, shader, triangle, texture-coordinate and vertex records (ioquake3's
//! `md3Frame_t`, `md3Shader_t`, `md3Triangle_t`, `md3St_t`, `md3XyzNormal_t`, which ET:Legacy's
//! `mdcSurface_t` reuses), and placing a tag between two frames ([`TagPose::blend`], which
//! MDR's and MDM's tags use too, over [`blend_tag`]), and the validation steps both walk the same way (names, triangles, a
//! surface's arrays, frame summaries against the vertices). Each format's `raw.rs` re-exports the records under its own name.

use core::mem::offset_of;

use glam::{Affine3A, Vec3};
use zerocopy::byteorder::{F32, I16, I32, LittleEndian, U16};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

use crate::diag::{Diagnostics, WarningKind};
use crate::error::{Error, Problem, Result};
use crate::format::Format;
use crate::name;
use crate::rules::record_offset;

type Le = LittleEndian;

/// The length of a path or name field (`MAX_QPATH`).
pub const MAX_QPATH: usize = 64;
/// Positions are stored in units of 1/64 (`MD3_XYZ_SCALE`).
pub const MD3_XYZ_SCALE: f32 = 1.0 / 64.0;

/// A frame's summary (`md3Frame_t`), 56 bytes: its bounds, centre and radius, and its name.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct Md3Frame {
    /// The box holding the frame's vertices: minimum, then maximum.
    pub bounds: [[F32<Le>; 3]; 2],
    /// The centre of the sphere [`radius`](Md3Frame::radius) measures from.
    pub local_origin: [F32<Le>; 3],
    /// The radius of a sphere around `localOrigin` holding the frame's vertices.
    pub radius: F32<Le>,
    /// Name, NUL-padded.
    pub name: [u8; 16],
}

/// A shader a surface names (`md3Shader_t`), 68 bytes.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct Md3Shader {
    /// Shader (or texture) path, NUL-padded.
    pub name: [u8; MAX_QPATH],
    /// The engine's own index, filled at load time (ignored).
    pub shader_index: I32<Le>,
}

/// A triangle (`md3Triangle_t`), 12 bytes.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct Md3Triangle {
    /// Vertex indices, clockwise seen from the front (Quake's winding).
    pub indexes: [I32<Le>; 3],
}

/// A vertex's texture coordinate (`md3St_t`), 8 bytes: `v` down the image.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct Md3St {
    /// `(s, t)`.
    pub st: [F32<Le>; 2],
}

/// A vertex in one frame (`md3XyzNormal_t`), 8 bytes.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct Md3XyzNormal {
    /// Position in units of 1/64 ([`MD3_XYZ_SCALE`]).
    pub xyz: [I16<Le>; 3],
    /// Normal: latitude in the high byte, longitude in the low byte, each `byte · 2π / 256`
    /// radians.
    pub normal: U16<Le>,
}

const _: () = assert!(size_of::<Md3Frame>() == 56);
const _: () = assert!(size_of::<Md3Shader>() == 68);
const _: () = assert!(size_of::<Md3Triangle>() == 12);
const _: () = assert!(size_of::<Md3St>() == 8);
const _: () = assert!(size_of::<Md3XyzNormal>() == 8);

/// A tag placed between two frames (`md3::Md3::tag_at`, `mdc::Mdc::tag_at`): its name, origin and orthonormal axes
/// (rows: forward, left, up).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TagPose<'data> {
    /// The tag's name (frame `a`'s).
    pub name: &'data [u8],
    /// The blended origin.
    pub origin: [f32; 3],
    /// The blended axes, orthonormal.
    pub axis: [[f32; 3]; 3],
}

impl<'data> TagPose<'data> {
    /// This pose blended toward `to` at `t` (0 = this, 1 = `to`) as [`blend_tag`] blends
    /// them: the origins linearly, the axes row by row and then made orthonormal; the name
    /// this one's. Every format's `tag_at` places a tag between two frames this way.
    ///
    /// ```
    /// use skelmap_core::md3::TagPose;
    /// let axis = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    /// let a = TagPose { name: b"tag_head", origin: [0.0, 0.0, 0.0], axis };
    /// let b = TagPose { name: b"tag_head", origin: [2.0, 4.0, 0.0], axis };
    /// let half = a.blend(&b, 0.5);
    /// assert_eq!((half.name, half.origin, half.axis), (&b"tag_head"[..], [1.0, 2.0, 0.0], axis));
    /// ```
    #[must_use]
    pub fn blend(&self, to: &TagPose<'_>, t: f32) -> TagPose<'data> {
        let (origin, axis) = blend_tag((self.origin, self.axis), (to.origin, to.axis), t);
        TagPose {
            name: self.name,
            origin,
            axis,
        }
    }

    /// The tag as a transform of the attached model into this one: its axes (forward, left,
    /// up) are the columns of the linear part, its origin the translation, so a point `p` of
    /// the attached model lands at `origin + p.x·forward + p.y·left + p.z·up`, as Quake III
    /// places a model on a tag.
    #[must_use]
    pub fn transform(&self) -> Affine3A {
        let [x, y, z] = self.axis.map(Vec3::from);
        Affine3A::from_cols(x.into(), y.into(), z.into(), Vec3::from(self.origin).into())
    }
}

/// `rows` made orthonormal by Gram–Schmidt from the first: the first normalised, the second
/// made perpendicular to it and normalised, the third their cross product turned to the side
/// the stored third row points (identity rows stand in for degenerate ones).
pub fn orthonormal(rows: [[f32; 3]; 3]) -> [[f32; 3]; 3] {
    let dot = |a: [f32; 3], b: [f32; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    let unit = |v: [f32; 3], fallback: [f32; 3]| {
        let len = dot(v, v).sqrt();
        if len > 1e-12 && len.is_finite() {
            v.map(|c| c / len)
        } else {
            fallback
        }
    };
    let cross = |a: [f32; 3], b: [f32; 3]| {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    };
    let x = unit(rows[0], [1.0, 0.0, 0.0]);
    let d = dot(rows[1], x);
    let mut y = unit(core::array::from_fn(|k| rows[1][k] - d * x[k]), [0.0; 3]);
    if y == [0.0; 3] {
        // Any direction perpendicular to `x`.
        let other = if x[0].abs() < 0.9 {
            [1.0, 0.0, 0.0]
        } else {
            [0.0, 1.0, 0.0]
        };
        y = unit(cross(cross(x, other), x), [0.0, 1.0, 0.0]);
    }
    let z = cross(x, y);
    let z = if dot(z, rows[2]) < 0.0 {
        z.map(|c| -c)
    } else {
        z
    };
    [x, y, z]
}

/// A tag's origin and axes (rows) blended between two frames at `t` (0 = `a`, 1 = `b`): the
/// origins linearly, the axes row by row and then made orthonormal again ([`orthonormal`]),
/// so a mirrored tag stays mirrored.
#[must_use]
pub fn blend_tag(
    a: ([f32; 3], [[f32; 3]; 3]),
    b: ([f32; 3], [[f32; 3]; 3]),
    t: f32,
) -> ([f32; 3], [[f32; 3]; 3]) {
    let lerp = |x: [f32; 3], y: [f32; 3]| -> [f32; 3] {
        core::array::from_fn(|k| x[k] + t * (y[k] - x[k]))
    };
    let rows: [[f32; 3]; 3] = core::array::from_fn(|r| lerp(a.1[r], b.1[r]));
    (lerp(a.0, b.0), orthonormal(rows))
}

/// An `Invalid` error of `format`.
pub(crate) fn invalid(format: Format, what: &'static str, offset: u64, problem: Problem) -> Error {
    Error::Invalid {
        format,
        what,
        offset,
        problem,
    }
}

/// A name field an engine looks up as a C string (a surface or tag name): it must end
/// inside its field.
pub(crate) fn terminated(
    format: Format,
    what: &'static str,
    offset: u64,
    field: &[u8],
) -> Result<()> {
    if name::is_terminated(field) {
        return Ok(());
    }
    let len = field.len() as u64;
    Err(invalid(format, what, offset, Problem::Unterminated { len }))
}

/// An offset of the file header that must not point into the header (`min` bytes long).
pub(crate) fn after_header(
    format: Format,
    what: &'static str,
    field: u64,
    ofs: u32,
    min: u64,
) -> Result<()> {
    if u64::from(ofs) < min {
        let problem = Problem::BelowMinimum {
            value: ofs.into(),
            min,
        };
        return Err(invalid(format, what, field, problem));
    }
    Ok(())
}

/// Every triangle corner (the triangles start at file offset `first`) indexes one of `verts`
/// vertices: a word scan of the table where the CPU has one, and the walk that names the
/// first corner out of range where it fails.
pub(crate) fn check_triangles(
    format: Format,
    triangles: &[Md3Triangle],
    first: u64,
    verts: u32,
) -> Result<()> {
    if crate::scan::le_words_below(zerocopy::IntoBytes::as_bytes(triangles), verts) {
        return Ok(());
    }
    let ok = |v: &I32<Le>| u32::try_from(v.get()).is_ok_and(|v| v < verts);
    for (i, t) in triangles.iter().enumerate() {
        if let Some(k) = (0..3).find(|&k| !ok(&t.indexes[k])) {
            let offset = record_offset::<Md3Triangle>(first, i)
                + (offset_of!(Md3Triangle, indexes) + 4 * k) as u64;
            let problem = Problem::Index {
                index: t.indexes[k].get().into(),
                len: verts.into(),
            };
            return Err(invalid(format, "triangle.indexes", offset, problem));
        }
    }
    Ok(())
}

/// One array of a surface, for [`check_arrays`]: its offset field's name and file offset, and
/// the array's start (from the surface header) and length in bytes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Array {
    pub what: &'static str,
    pub field: u64,
    pub start: u64,
    pub bytes: u64,
}

/// A surface's arrays: in offset order, every array with bytes starts after the header
/// (`header_size` bytes) and after the one before it, and all of them end by the surface's
/// `ofs_end` (`end`: its name, file offset and value).
pub(crate) fn check_arrays(
    format: Format,
    header_size: u64,
    arrays: &mut [Array],
    end: (&'static str, u64, u32),
) -> Result<()> {
    arrays.sort_unstable_by_key(|a| (a.start, a.start + a.bytes));
    let mut previous_end = header_size;
    for a in arrays.iter().filter(|a| a.bytes > 0) {
        if a.start < previous_end {
            let problem = Problem::BelowMinimum {
                value: a.start,
                min: previous_end,
            };
            return Err(invalid(format, a.what, a.field, problem));
        }
        previous_end = a.start + a.bytes;
    }
    let (what, field, value) = end;
    if u64::from(value) < previous_end {
        let problem = Problem::BelowMinimum {
            value: value.into(),
            min: previous_end,
        };
        return Err(invalid(format, what, field, problem));
    }
    Ok(())
}

/// `true` if the rows of `axis` are orthonormal within 1e-3 (exporters write 6 digits).
#[must_use]
pub fn is_rotation(axis: &[[f32; 3]; 3]) -> bool {
    let dot = |a: [f32; 3], b: [f32; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    let [x, y, z] = *axis;
    [dot(x, x) - 1.0, dot(y, y) - 1.0, dot(z, z) - 1.0]
        .iter()
        .chain(&[dot(x, y), dot(y, z), dot(z, x)])
        .all(|e| e.abs() < 1e-3)
}

/// The frames' stored bounds, radii and origins (`frames`, the first at file offset
/// `ofs_frames`) against their vertices (`positions(f, visit)` calls `visit` with every
/// position of frame `f`): a [`WarningKind::Bounds`] where a vertex lies outside a frame's box
/// or sphere (by more than half a unit of 1/64), or where a value is not finite.
pub(crate) fn check_frame_bounds(
    format: Format,
    frames: &[Md3Frame],
    ofs_frames: u64,
    positions: impl Fn(usize, &mut dyn FnMut([f32; 3])),
    diag: &mut Diagnostics,
) {
    let tolerance = 0.5 / 64.0 + 1e-4;
    for (f, frame) in frames.iter().enumerate() {
        let offset = record_offset::<Md3Frame>(ofs_frames, f);
        let floats = frame
            .bounds
            .as_flattened()
            .iter()
            .chain(&frame.local_origin)
            .chain(core::iter::once(&frame.radius));
        if floats.clone().any(|v| !v.get().is_finite()) {
            diag.warn(format, WarningKind::Bounds, "frame.bounds", offset, || {
                format!("frame {f}'s bounds, origin or radius are not finite")
            });
            continue;
        }
        let [lo, hi] = frame.bounds.map(|b| b.map(|v| v.get()));
        let origin = frame.local_origin.map(|v| v.get());
        let radius = frame.radius.get();
        let mut outside_box = false;
        let mut farthest = 0.0f32;
        positions(f, &mut |p| {
            outside_box |= (0..3).any(|k| p[k] < lo[k] - tolerance || p[k] > hi[k] + tolerance);
            let d = [p[0] - origin[0], p[1] - origin[1], p[2] - origin[2]];
            farthest = farthest.max((d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt());
        });
        if outside_box {
            diag.warn(format, WarningKind::Bounds, "frame.bounds", offset, || {
                format!("frame {f} has vertices outside its bounds")
            });
        }
        if farthest > radius + tolerance * 2.0 {
            let at = offset + offset_of!(Md3Frame, radius) as u64;
            diag.warn(format, WarningKind::Bounds, "frame.radius", at, || {
                format!(
                    "frame {f} has a vertex {farthest} from its origin, past its radius {radius}"
                )
            });
        }
    }
}

/// What a surface header leads to ([`walk_surfaces`]): a surface and its length, an empty
/// surface (no vertices, no triangles) and its length, or an empty surface with `ofs_end` 0,
/// which repeats to the end of the chain.
pub(crate) enum Step<S> {
    Next(S, u32),
    Empty(u32),
    Repeat,
}

/// The chain of `count` surfaces from file offset `first`, each next one the length
/// `surface(offset, diag)` returns after the one before: the empty ones skipped with a
/// warning, an all-zero header standing for itself and every surface still counted (as the
/// engines read them: the chain stops), each a header of `header_size` bytes. Returns the
/// surfaces and the end of the last.
pub(crate) fn walk_surfaces<S>(
    format: Format,
    (first, count, header_size): (u64, u32, u64),
    diag: &mut Diagnostics,
    mut surface: impl FnMut(u64, &mut Diagnostics) -> Result<Step<S>>,
) -> Result<(Vec<S>, u64)> {
    let mut surfaces = Vec::with_capacity(count as usize);
    let (mut offset, mut end) = (first, 0);
    for index in 0..count {
        let step = match surface(offset, diag)? {
            Step::Next(surface, length) => {
                surfaces.push(surface);
                length
            }
            Step::Empty(length) => {
                diag.warn(format, WarningKind::LayoutOrder, "surface", offset, || {
                    format!("surface {index} has no vertices and no triangles; skipped")
                });
                length
            }
            Step::Repeat => {
                let left = count - index;
                diag.warn_n(
                    format,
                    WarningKind::LayoutOrder,
                    "surface",
                    offset,
                    left.into(),
                    || {
                        format!(
                            "surface {index} is empty with ofs_end 0: it and the {} after it are \
                             read as empty surfaces",
                            left - 1
                        )
                    },
                );
                end = end.max(offset + header_size);
                break;
            }
        };
        offset += u64::from(step);
        end = end.max(offset);
    }
    Ok((surfaces, end))
}
