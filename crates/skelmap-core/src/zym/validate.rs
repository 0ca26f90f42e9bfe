//! The ZYM validation pass: every rule of `docs/formats/zym.md` § Validation, in one linear
//! walk.
//!
//! Order of work (and of the checks, so that the first error is deterministic): the header
//! and its counts; each lump's bounds and length; bones; poses; scenes; bone counts and
//! vertices; texture coordinates; the render list; shaders; triangle zones. Nothing is
//! allocated but the run table (one entry per shader, capped by `Limits::max_meshes`) and
//! the [`Diagnostics`] entries.

use core::mem::offset_of;

use zerocopy::byteorder::{F32, I32};
use zerocopy::{BigEndian, FromBytes, IntoBytes};

use super::raw::{self, Header, Lump};
use super::view::{Run, Zym};
use crate::diag::{Diagnostics, WarningKind};
use crate::error::{Error, Problem, Result};
use crate::floatbits::{Masks, flat, raw as bits};
use crate::format::Format;
use crate::limits::Limits;
use crate::parse::Parse;
use crate::read::Reader;
use crate::rules::{self, Layout, record_offset};
use crate::scan;

const FORMAT: Format = Format::Zym;

/// Where a `zymlump_t` keeps its length.
const LENGTH_AT: u64 = offset_of!(Lump, length) as u64;

/// The most bones DarkPlaces can draw: it keeps bone indices in bytes.
const DARKPLACES_MAX_BONES: u32 = 256;

/// Every rule of `docs/formats/zym.md` § Validation (see the [module docs](super)).
///
/// ```
/// use skelmap_core::{zym::{self, Zym}, Diagnostics, Limits, Parse};
/// let bytes = zym::Builder::example().write()?;
/// let mut diag = Diagnostics::new();
/// let model = Zym::parse_with(&bytes, &Limits::default(), &mut diag)?;
/// assert!(diag.is_empty());
/// assert_eq!(model.num_bones(), 2);
/// # Ok::<(), skelmap_core::Error>(())
/// ```
impl<'data> Parse<'data> for Zym<'data> {
    const FORMAT: Format = FORMAT;

    fn parse_with(
        data: &'data [u8],
        limits: &Limits,
        diag: &mut Diagnostics,
    ) -> Result<Zym<'data>> {
        let (data, counts) = check_header(data, limits, diag)?;
        let reader = Reader::new(data, FORMAT);
        let header: &Header = reader.ref_at("header", 0)?;
        let mut layout = Layout::new(FORMAT);
        layout.region("header", 0, size_of::<Header>() as u64);
        let lumps = Lumps::find(reader, header, &mut layout)?;
        let Counts {
            verts,
            tris,
            shaders,
            bones: num_bones,
            scenes: num_scenes,
        } = counts;

        let exact = |lump: (u64, u64, usize), want: u64| -> Result<()> {
            let (_, length, index) = lump;
            if length == want {
                return Ok(());
            }
            Err(Error::Invalid {
                format: FORMAT,
                what: LUMPS[index].length,
                offset: LUMPS[index].at + LENGTH_AT,
                problem: Problem::Mismatch {
                    value: length,
                    expected: want,
                },
            })
        };
        let per = |size: usize, count: u32| size as u64 * u64::from(count);
        let render_len = per(4, shaders) + per(12, tris);
        exact(lumps.scenes, per(size_of::<raw::Scene>(), num_scenes))?;
        exact(lumps.bones, per(size_of::<raw::Bone>(), num_bones))?;
        exact(lumps.vertbonecounts, per(4, verts))?;
        exact(lumps.verts, per(size_of::<raw::Vertex>(), verts))?;
        exact(lumps.texcoords, per(8, verts))?;
        exact(lumps.render, render_len)?;
        exact(lumps.shaders, per(32, shaders))?;
        exact(lumps.trizone, per(1, tris))?;

        // Bones.
        let bones = reader.slice_at::<raw::Bone>("lump_bones", lumps.bones.0, num_bones.into())?;
        for (i, bone) in bones.iter().enumerate() {
            let at = record_offset::<raw::Bone>(lumps.bones.0, i);
            rules::check_parent(
                FORMAT,
                i,
                bone.parent.get(),
                at + offset_of!(raw::Bone, parent) as u64,
            )?;
            check_flags(
                diag,
                "bone.flags",
                at + offset_of!(raw::Bone, flags) as u64,
                i,
                bone.flags.get(),
            );
            rules::check_name(FORMAT, diag, "bone.name", at, &bone.name);
        }

        // Poses.
        let poses = check_poses(reader, lumps.poses, num_bones, limits, diag)?;
        let num_poses = poses.len() / num_bones as usize;

        // Scenes.
        let scenes =
            reader.slice_at::<raw::Scene>("lump_scenes", lumps.scenes.0, num_scenes.into())?;
        for (i, scene) in scenes.iter().enumerate() {
            let at = record_offset::<raw::Scene>(lumps.scenes.0, i);
            check_scene(diag, (i, scene, at), num_poses)?;
        }

        // Bone counts and vertices.
        let counts_at = lumps.vertbonecounts.0;
        let bonecounts =
            reader.slice_at::<I32<BigEndian>>("lump_vertbonecounts", counts_at, verts.into())?;
        // Every count is 1: one scan where there is one (`count - 1` at most 0).
        let ones = scan::any_word_fails(bonecounts.as_bytes(), true, (u32::MAX, 1, 0));
        let other = match ones {
            Some(false) => None,
            _ => bonecounts.iter().position(|c| c.get() != 1),
        };
        if let Some(k) = other {
            let value = bonecounts[k].get();
            let offset = counts_at + 4 * k as u64;
            let count = rules::non_negative(FORMAT, "vertbonecounts", offset, value)?;
            return Err(Error::Invalid {
                format: FORMAT,
                what: "vertbonecounts",
                offset,
                problem: Problem::Mismatch {
                    value: count.into(),
                    expected: 1,
                },
            });
        }
        let vertices = reader.slice_at::<raw::Vertex>("lump_verts", lumps.verts.0, verts.into())?;
        check_vertices(vertices, lumps.verts.0, num_bones)?;

        let texcoords = reader.slice_at::<[F32<BigEndian>; 2]>(
            "lump_texcoords",
            lumps.texcoords.0,
            verts.into(),
        )?;
        check_texcoords(diag, texcoords, lumps.texcoords.0);

        let render =
            reader.slice_at::<I32<BigEndian>>("lump_render", lumps.render.0, render_len / 4)?;
        let runs = walk_render(render, lumps.render.0, shaders, tris, verts)?;

        let shader_names =
            reader.slice_at::<[u8; 32]>("lump_shaders", lumps.shaders.0, shaders.into())?;
        for (i, name) in shader_names.iter().enumerate() {
            rules::check_name(
                FORMAT,
                diag,
                "shader.name",
                lumps.shaders.0 + 32 * i as u64,
                name,
            );
        }
        let trizone = reader.slice_at::<u8>("lump_trizone", lumps.trizone.0, tris.into())?;

        check_bounds(
            diag,
            "header.mins",
            offset_of!(Header, mins) as u64,
            [&header.mins, &header.maxs],
            header.radius.get(),
        );
        layout.report(reader.bytes(), diag);
        let model_scale = poses.first().map_or(1.0, |p| {
            let [x, y, z, _] = p.matrix[0].map(|v| v.get());
            (x * x + y * y + z * z).sqrt()
        });
        Ok(Zym {
            data,
            header,
            scenes,
            poses,
            bones,
            vertices,
            texcoords,
            render,
            shaders: shader_names,
            trizone,
            runs,
            num_poses,
            model_scale,
        })
    }
}

/// The header's counts, each at least 1 and within its limit.
#[derive(Debug, Clone, Copy)]
struct Counts {
    verts: u32,
    tris: u32,
    shaders: u32,
    bones: u32,
    scenes: u32,
}

/// Checks what the header alone decides; returns the bytes the rest may read (all of `data`,
/// or the first `filesize` bytes) and the counts.
fn check_header<'data>(
    data: &'data [u8],
    limits: &Limits,
    diag: &mut Diagnostics,
) -> Result<(&'data [u8], Counts)> {
    rules::begin(FORMAT, data, limits)?;
    let header: &Header = Reader::new(data, FORMAT).ref_at("header", 0)?;
    let type_ = header.type_.get();
    if type_ != raw::ZYM_TYPE_SKELETAL_POSE as i32 {
        return Err(Error::Unsupported {
            format: FORMAT,
            what: "header.type",
            offset: offset_of!(Header, type_) as u64,
            value: type_.into(),
            supported: "skelmap reads type 1 (skeletal pose), the one DarkPlaces loads",
        });
    }
    let filesize_at = offset_of!(Header, filesize) as u64;
    let filesize = rules::non_negative(
        FORMAT,
        "header.filesize",
        filesize_at,
        header.filesize.get(),
    )?;
    let data = rules::declared_size(
        FORMAT,
        data,
        filesize,
        filesize_at,
        size_of::<Header>() as u64,
        diag,
    )?;
    let count = |what: &'static str, field: usize, value: &I32<BigEndian>, max: u32| {
        let at = field as u64;
        let value = rules::non_negative(FORMAT, what, at, value.get())?;
        rules::check_count(FORMAT, what, at, value, max).map(|()| value)
    };
    let counts = Counts {
        verts: count(
            "header.numverts",
            offset_of!(Header, numverts),
            &header.numverts,
            limits.max_vertices_per_mesh,
        )?,
        tris: count(
            "header.numtris",
            offset_of!(Header, numtris),
            &header.numtris,
            limits.max_triangles_per_mesh,
        )?,
        shaders: count(
            "header.numshaders",
            offset_of!(Header, numshaders),
            &header.numshaders,
            limits.max_meshes,
        )?,
        bones: count(
            "header.numbones",
            offset_of!(Header, numbones),
            &header.numbones,
            limits.max_bones,
        )?,
        scenes: count(
            "header.numscenes",
            offset_of!(Header, numscenes),
            &header.numscenes,
            limits.max_frames,
        )?,
    };
    rules::engine_limit(
        diag,
        (FORMAT, "DarkPlaces"),
        "header.numbones",
        offset_of!(Header, numbones) as u64,
        counts.bones,
        DARKPLACES_MAX_BONES,
    );
    Ok((data, counts))
}

/// A lump's labels and the offset of its `zymlump_t` in the header.
struct LumpLabels {
    name: &'static str,
    start: &'static str,
    length: &'static str,
    at: u64,
}

macro_rules! lump_labels {
    ($($field:ident),+ $(,)?) => {
        [$(LumpLabels {
            name: stringify!($field),
            start: concat!(stringify!($field), ".start"),
            length: concat!(stringify!($field), ".length"),
            at: offset_of!(Header, $field) as u64,
        }),+]
    };
}

/// The nine lumps in the header's (and skelmap's writer's) order.
const LUMPS: [LumpLabels; 9] = lump_labels!(
    lump_scenes,
    lump_poses,
    lump_bones,
    lump_vertbonecounts,
    lump_verts,
    lump_texcoords,
    lump_render,
    lump_shaders,
    lump_trizone,
);

/// Each lump's `(start, length, index into LUMPS)`, in bounds.
struct Lumps {
    scenes: (u64, u64, usize),
    poses: (u64, u64, usize),
    bones: (u64, u64, usize),
    vertbonecounts: (u64, u64, usize),
    verts: (u64, u64, usize),
    texcoords: (u64, u64, usize),
    render: (u64, u64, usize),
    shaders: (u64, u64, usize),
    trizone: (u64, u64, usize),
}

impl Lumps {
    fn find(reader: Reader<'_>, header: &Header, layout: &mut Layout) -> Result<Lumps> {
        let all: [&Lump; 9] = [
            &header.lump_scenes,
            &header.lump_poses,
            &header.lump_bones,
            &header.lump_vertbonecounts,
            &header.lump_verts,
            &header.lump_texcoords,
            &header.lump_render,
            &header.lump_shaders,
            &header.lump_trizone,
        ];
        let mut found = [(0u64, 0u64, 0usize); 9];
        for (i, (lump, labels)) in all.iter().zip(&LUMPS).enumerate() {
            let start = rules::non_negative(FORMAT, labels.start, labels.at, lump.start.get())?;
            let length = rules::non_negative(
                FORMAT,
                labels.length,
                labels.at + LENGTH_AT,
                lump.length.get(),
            )?;
            let (start, length) = (u64::from(start), u64::from(length));
            reader.slice_at::<u8>(labels.name, start, length)?;
            layout.region(labels.name, start, start + length);
            found[i] = (start, length, i);
        }
        let [
            scenes,
            poses,
            bones,
            vertbonecounts,
            verts,
            texcoords,
            render,
            shaders,
            trizone,
        ] = found;
        Ok(Lumps {
            scenes,
            poses,
            bones,
            vertbonecounts,
            verts,
            texcoords,
            render,
            shaders,
            trizone,
        })
    }
}

/// The whole poses of the pose lump, every value finite (rule 6).
fn check_poses<'data>(
    reader: Reader<'data>,
    (start, length, index): (u64, u64, usize),
    num_bones: u32,
    limits: &Limits,
    diag: &mut Diagnostics,
) -> Result<&'data [raw::Pose]> {
    let block = size_of::<raw::Pose>() as u64 * u64::from(num_bones);
    let num_poses = length / block;
    let length_at = LUMPS[index].at + LENGTH_AT;
    if num_poses == 0 {
        return Err(Error::Invalid {
            format: FORMAT,
            what: "lump_poses.length",
            offset: length_at,
            problem: Problem::BelowMinimum {
                value: length,
                min: block,
            },
        });
    }
    if num_poses > u64::from(limits.max_frames) {
        return Err(Error::Limit {
            format: FORMAT,
            what: "poses",
            offset: length_at,
            value: num_poses,
            max: limits.max_frames.into(),
        });
    }
    let extra = length - num_poses * block;
    if extra > 0 {
        diag.warn(
            FORMAT,
            WarningKind::TrailingBytes,
            "lump_poses.length",
            length_at,
            || format!("{extra} bytes after the last whole pose are ignored"),
        );
    }
    let poses =
        reader.slice_at::<raw::Pose>("lump_poses", start, num_poses * u64::from(num_bones))?;
    let values = flat::<BigEndian, _>(poses);
    if crate::scan::any_non_finite(values) {
        let masks = Masks::of::<BigEndian>();
        let k = values
            .iter()
            .position(|v| masks.non_finite(bits(*v)))
            .unwrap_or(0);
        return Err(Error::Invalid {
            format: FORMAT,
            what: "pose.matrix",
            offset: start + 4 * k as u64,
            problem: Problem::NotFinite,
        });
    }
    Ok(poses)
}

/// Rule 8 for the scene at `at`; its flags, name and bounds warned.
fn check_scene(
    diag: &mut Diagnostics,
    (index, scene, at): (usize, &raw::Scene, u64),
    num_poses: usize,
) -> Result<()> {
    let field = |f: usize| at + f as u64;
    let start_at = field(offset_of!(raw::Scene, start));
    let length_at = field(offset_of!(raw::Scene, length));
    let first = rules::non_negative(FORMAT, "scene.start", start_at, scene.start.get())?;
    let length = rules::non_negative(FORMAT, "scene.length", length_at, scene.length.get())?;
    if first as usize >= num_poses {
        return Err(Error::Invalid {
            format: FORMAT,
            what: "scene.start",
            offset: start_at,
            problem: Problem::Index {
                index: first.into(),
                len: num_poses as u64,
            },
        });
    }
    let last = u64::from(first) + u64::from(length);
    if last > num_poses as u64 {
        return Err(Error::Invalid {
            format: FORMAT,
            what: "scene.length",
            offset: length_at,
            problem: Problem::AboveMaximum {
                value: length.into(),
                max: num_poses as u64 - u64::from(first),
            },
        });
    }
    let rate_at = field(offset_of!(raw::Scene, framerate));
    let rate = scene.framerate.get();
    if !rate.is_finite() {
        return Err(Error::Invalid {
            format: FORMAT,
            what: "scene.framerate",
            offset: rate_at,
            problem: Problem::NotFinite,
        });
    }
    if rate < 0.0 {
        return Err(Error::Invalid {
            format: FORMAT,
            what: "scene.framerate",
            offset: rate_at,
            problem: Problem::Negative { value: rate as i64 },
        });
    }
    check_flags(
        diag,
        "scene.flags",
        field(offset_of!(raw::Scene, flags)),
        index,
        scene.flags.get(),
    );
    rules::check_name(FORMAT, diag, "scene.name", at, &scene.name);
    check_bounds(
        diag,
        "scene.mins",
        field(offset_of!(raw::Scene, mins)),
        [&scene.mins, &scene.maxs],
        scene.radius.get(),
    );
    Ok(())
}

/// Rule 10: every `bonenum` names a bone, every origin is finite.
fn check_vertices(vertices: &[raw::Vertex], start: u64, num_bones: u32) -> Result<()> {
    // One scan of every word (the bone number below the count, the origin finite) proves a
    // valid table; without it, two flat passes do (the float pass reads the bone numbers too:
    // a valid one, far below 0x7F80_0000, is a finite float). The walk below finds the first
    // failure. (A view that cannot be made proves nothing: the walk runs.)
    let bytes = vertices.as_bytes();
    let tests = [
        scan::below(num_bones),
        scan::FINITE,
        scan::FINITE,
        scan::FINITE,
    ];
    let valid = scan::any_record_word_fails(bytes, true, &tests).map_or_else(
        || {
            let words = <[F32<BigEndian>]>::ref_from_bytes(bytes);
            let bones_fail = vertices
                .iter()
                .fold(false, |acc, v| acc | (v.bonenum.get() as u32 >= num_bones));
            !bones_fail && words.is_ok_and(|w| !scan::any_non_finite(w))
        },
        |fails| !fails,
    );
    if valid {
        return Ok(());
    }
    let masks = Masks::of::<BigEndian>();
    for (i, v) in vertices.iter().enumerate() {
        let at = record_offset::<raw::Vertex>(start, i);
        let bone = v.bonenum.get();
        if bone < 0 || bone as u32 >= num_bones {
            return Err(Error::Invalid {
                format: FORMAT,
                what: "vertex.bonenum",
                offset: at,
                problem: Problem::Index {
                    index: bone.into(),
                    len: num_bones.into(),
                },
            });
        }
        if let Some(k) = v.origin.iter().position(|c| masks.non_finite(bits(*c))) {
            return Err(Error::Invalid {
                format: FORMAT,
                what: "vertex.origin",
                offset: at + offset_of!(raw::Vertex, origin) as u64 + 4 * k as u64,
                problem: Problem::NotFinite,
            });
        }
    }
    Ok(())
}

/// Warns about texture coordinates that are NaN or infinite.
fn check_texcoords(diag: &mut Diagnostics, texcoords: &[[F32<BigEndian>; 2]], start: u64) {
    if !scan::any_non_finite(texcoords.as_flattened()) {
        return;
    }
    let masks = Masks::of::<BigEndian>();
    let bad =
        |st: &[F32<BigEndian>; 2]| masks.non_finite(bits(st[0])) | masks.non_finite(bits(st[1]));
    if let Some(first) = texcoords.iter().position(bad) {
        let count = texcoords.iter().filter(|st| bad(st)).count() as u64;
        diag.warn_n(
            FORMAT,
            WarningKind::NonFiniteTexcoord,
            "mesh.texcoords",
            start + 8 * first as u64,
            count,
            || format!("texture coordinate of vertex {first} is NaN or infinite"),
        );
    }
}

/// Rule 11: the render list's runs, one per shader, ending exactly at its end, every index a
/// vertex. Returns each run's first triangle and count.
fn walk_render(
    render: &[I32<BigEndian>],
    start: u64,
    shaders: u32,
    tris: u32,
    verts: u32,
) -> Result<Vec<Run>> {
    let mut runs = Vec::with_capacity(shaders as usize);
    let mut next = 0usize;
    let mut first_triangle = 0u32;
    let mut count_at = start;
    for _ in 0..shaders {
        let at = start + 4 * next as u64;
        count_at = at;
        let count = render.get(next).map_or(0, |c| c.get());
        let count = rules::non_negative(FORMAT, "render.count", at, count)?;
        let ends = u64::from(first_triangle) + u64::from(count);
        if ends > u64::from(tris) {
            return Err(Error::Invalid {
                format: FORMAT,
                what: "render.count",
                offset: at,
                problem: Problem::Mismatch {
                    value: ends,
                    expected: tris.into(),
                },
            });
        }
        let indices = render
            .get(next + 1..next + 1 + 3 * count as usize)
            .unwrap_or_default();
        // A negative index is at least `verts` as a `u32`: one scan proves the run.
        let fails =
            scan::any_word_fails(indices.as_bytes(), true, scan::below(verts)).unwrap_or(true);
        let first_bad = || {
            indices
                .iter()
                .position(|i| i.get() < 0 || i.get() as u32 >= verts)
        };
        if let Some(k) = fails.then(first_bad).flatten() {
            return Err(Error::Invalid {
                format: FORMAT,
                what: "render.indices",
                offset: at + 4 + 4 * k as u64,
                problem: Problem::Index {
                    index: indices[k].get().into(),
                    len: verts.into(),
                },
            });
        }
        runs.push(Run {
            first_triangle,
            num_triangles: count,
        });
        first_triangle += count;
        next += 1 + 3 * count as usize;
    }
    if first_triangle != tris {
        return Err(Error::Invalid {
            format: FORMAT,
            what: "render.count",
            offset: count_at,
            problem: Problem::Mismatch {
                value: first_triangle.into(),
                expected: tris.into(),
            },
        });
    }
    Ok(runs)
}

/// Warns about flag bits other than bit 0, the one a bone and a scene define.
fn check_flags(diag: &mut Diagnostics, what: &'static str, at: u64, index: usize, flags: i32) {
    if flags & !1 != 0 {
        diag.warn(FORMAT, WarningKind::UnknownFlags, what, at, || {
            format!("record {index} has flags {flags:#x}; only bit 0 is defined")
        });
    }
}

/// Warns when a box is inverted or a radius is negative or NaN (engines recompute bounds).
fn check_bounds(
    diag: &mut Diagnostics,
    what: &'static str,
    at: u64,
    [mins, maxs]: [&[F32<BigEndian>; 3]; 2],
    radius: f32,
) {
    let boxed = (0..3).all(|k| mins[k].get() <= maxs[k].get());
    if !(boxed && radius >= 0.0 && radius.is_finite()) {
        diag.warn(FORMAT, WarningKind::Bounds, what, at, || {
            let (lo, hi) = (mins.map(|v| v.get()), maxs.map(|v| v.get()));
            format!("mins {lo:?}, maxs {hi:?}, radius {radius}")
        });
    }
}
