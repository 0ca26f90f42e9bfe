//! The PSK and PSA validation passes: every rule of `docs/formats/psk.md` § Validation, in one
//! linear walk each.
//!
//! Order of work (and of the checks, so that the first error is deterministic): the chunk
//! walk (each header whole, its sizes not negative, its records inside the file, a known
//! chunk's record size and count, no chunk twice, unknown chunks skipped with a warning);
//! then the chunks the file needs; then the records, in the order points, wedges, faces,
//! materials, bones, weights, extra texture coordinates, colours, normals (PSK) or bones,
//! sequences, keys, scale keys (PSA). Nothing is allocated but the [`Diagnostics`] entries
//! (the view counts faces per material on first use, one entry per material, capped by
//! `Limits::max_meshes`).
//!
//! Wedges, faces and weights are proven by scans of their records where the CPU has
//! them; the walks that name the first failure run only where a scan does not pass.

use core::mem::offset_of;

use zerocopy::byteorder::F32;
use zerocopy::{IntoBytes, LittleEndian};

use super::raw::{
    AnimInfoBinary, FNamedBoneBinary, VChunkHeader, VColor, VJointPos, VMaterial, VMeshUV, VNormal,
    VPoint, VQuatAnimKey, VRawBoneInfluence, VScaleAnimKey, VTriangle16, VTriangle32, VVertex,
};
use super::view::{Faces, MAX_EXTRA_UVS, Psa, Psk};
use crate::diag::{Diagnostics, WarningKind};
use crate::error::{Error, Problem, Result};
use crate::floatbits::{Masks, flat, raw as bits};
use crate::format::Format;
use crate::limits::Limits;
use crate::name;
use crate::parse::Parse;
use crate::read::Reader;
use crate::rules::{self, record_offset};
use crate::scan;

/// Where a chunk header keeps its record size.
const SIZE_AT: u64 = offset_of!(VChunkHeader, data_size) as u64;
/// Where a chunk header keeps its record count.
const COUNT_AT: u64 = offset_of!(VChunkHeader, data_count) as u64;

/// One chunk found by the walk: where its header is, where its records start, how many.
#[derive(Debug, Clone, Copy)]
struct Chunk {
    header: u64,
    data: u64,
    count: u32,
}

/// The chunks a PSK's walk knows, in the order exporters write them.
#[derive(Debug, Default)]
struct PskChunks {
    points: Option<Chunk>,
    wedges: Option<(Chunk, bool)>,
    faces: Option<(Chunk, bool)>,
    materials: Option<Chunk>,
    bones: Option<Chunk>,
    weights: Option<Chunk>,
    extra_uvs: [Option<Chunk>; MAX_EXTRA_UVS],
    colors: Option<Chunk>,
    normals: Option<Chunk>,
}

/// The chunks a PSA's walk knows.
#[derive(Debug, Default)]
struct PsaChunks {
    bones: Option<Chunk>,
    infos: Option<Chunk>,
    keys: Option<Chunk>,
    scales: Option<Chunk>,
}

/// The chunk walk shared by both files (rules 1 to 4): calls `known(id, header offset)` for
/// each chunk, which answers the record size and the limit on the count for a chunk it
/// stores (and stores it), or `None` for a chunk to skip.
fn walk(
    format: Format,
    reader: Reader<'_>,
    diag: &mut Diagnostics,
    mut known: impl FnMut(&[u8], Chunk) -> Result<Option<(usize, u32)>>,
) -> Result<()> {
    let mut at = 0u64;
    while at < reader.len() {
        let header: &VChunkHeader = reader.ref_at("chunk", at)?;
        let size = rules::non_negative(
            format,
            "chunk.data_size",
            at + SIZE_AT,
            header.data_size.get(),
        )?;
        let count = rules::non_negative(
            format,
            "chunk.data_count",
            at + COUNT_AT,
            header.data_count.get(),
        )?;
        let data = at + size_of::<VChunkHeader>() as u64;
        let len = u64::from(size) * u64::from(count);
        if reader.get_bytes(data, len).is_none() {
            return Err(reader.truncated("chunk data", data, len));
        }
        let id = name::trim_nul(&header.chunk_id);
        let chunk = Chunk {
            header: at,
            data,
            count,
        };
        match known(id, chunk)? {
            Some((record, max)) => {
                if count > 0 && size as usize != record {
                    return Err(Error::Invalid {
                        format,
                        what: "chunk.data_size",
                        offset: at + SIZE_AT,
                        problem: Problem::Mismatch {
                            value: size.into(),
                            expected: record as u64,
                        },
                    });
                }
                rules::check_limit(format, "chunk.data_count", at + COUNT_AT, count, max)?;
            }
            None => {
                if at > 0 {
                    diag.warn(
                        format,
                        WarningKind::SkippedChunk,
                        "chunk.chunk_id",
                        at,
                        || {
                            format!(
                                "{:?}: {count} records of {size} bytes skipped",
                                name::lossy(id)
                            )
                        },
                    );
                }
            }
        }
        at = data + len;
    }
    Ok(())
}

/// Stores `chunk` in `slot`, or the error of rule 4 when the slot is taken.
fn store(format: Format, slot: &mut Option<Chunk>, chunk: Chunk) -> Result<()> {
    if let Some(first) = slot {
        return Err(repeated(format, first.header, chunk.header));
    }
    *slot = Some(chunk);
    Ok(())
}

fn repeated(format: Format, first: u64, at: u64) -> Error {
    Error::Invalid {
        format,
        what: "chunk.chunk_id",
        offset: at,
        problem: Problem::RepeatedChunk { first },
    }
}

/// Rule 5: the chunk the file needs, or the error located at the file's end.
fn need<T>(format: Format, chunk: Option<T>, name: &'static str, end: u64) -> Result<T> {
    chunk.ok_or(Error::Invalid {
        format,
        what: "chunk.chunk_id",
        offset: end,
        problem: Problem::MissingChunk { chunk: name },
    })
}

/// The records of `chunk`.
fn records<'data, T: crate::read::Raw>(
    reader: Reader<'data>,
    what: &'static str,
    chunk: Chunk,
) -> Result<&'data [T]> {
    reader.slice_at::<T>(what, chunk.data, chunk.count.into())
}

/// The error for `count` records in a chunk that must hold `expected` (rule 6).
fn count_mismatch(format: Format, chunk: Chunk, expected: usize) -> Result<()> {
    if chunk.count as usize == expected {
        return Ok(());
    }
    Err(Error::Invalid {
        format,
        what: "chunk.data_count",
        offset: chunk.header + COUNT_AT,
        problem: Problem::Mismatch {
            value: chunk.count.into(),
            expected: expected as u64,
        },
    })
}

/// The first value of `values` (little-endian floats starting at byte `start`) that is NaN
/// or infinite, as the error naming `what`.
fn finite(
    format: Format,
    what: &'static str,
    start: u64,
    values: &[F32<LittleEndian>],
) -> Result<()> {
    let masks = Masks::of::<LittleEndian>();
    if !crate::scan::any_non_finite(values) {
        return Ok(());
    }
    let k = values
        .iter()
        .position(|v| masks.non_finite(bits(*v)))
        .unwrap_or(0);
    Err(Error::Invalid {
        format,
        what,
        offset: start + 4 * k as u64,
        problem: Problem::NotFinite,
    })
}

/// Rule 11 for one bone's rotation: finite (checked with the rest of the record) and not of
/// length zero; a length far from 1 is warned about.
fn check_rotation(
    format: Format,
    diag: &mut Diagnostics,
    what: &'static str,
    at: u64,
    q: &[F32<LittleEndian>; 4],
) -> Result<()> {
    let length2: f32 = q.iter().map(|c| c.get() * c.get()).sum();
    if length2 == 0.0 || !length2.is_finite() {
        return Err(Error::Invalid {
            format,
            what,
            offset: at,
            problem: Problem::Empty,
        });
    }
    if (length2.sqrt() - 1.0).abs() > 0.01 {
        diag.warn(format, WarningKind::QuatNotUnit, what, at, || {
            format!("length {}", length2.sqrt())
        });
    }
    Ok(())
}

/// Rule 10 for the bones of `REFSKELT` or `BONENAMES`: bone 0 is the root (parent 0 or −1),
/// every other bone's parent an earlier bone.
fn check_bone_parent(format: Format, index: usize, bone: &FNamedBoneBinary, at: u64) -> Result<()> {
    let parent = bone.parent_index.get();
    let ok = if index == 0 {
        parent == 0 || parent == -1
    } else {
        parent >= 0 && (parent as usize) < index
    };
    if ok {
        return Ok(());
    }
    Err(Error::Invalid {
        format,
        what: "bone.parent_index",
        offset: at + offset_of!(FNamedBoneBinary, parent_index) as u64,
        problem: Problem::Parent {
            bone: index as u64,
            parent: parent.into(),
        },
    })
}

/// Every rule of `docs/formats/psk.md` § Validation for a PSK (see the [module docs](super)).
///
/// ```
/// use skelmap_core::{psk::{self, Psk}, Diagnostics, Limits, Parse};
/// let bytes = psk::Builder::example().write_psk()?;
/// let mut diag = Diagnostics::new();
/// let mesh = Psk::parse_with(&bytes, &Limits::default(), &mut diag)?;
/// assert!(diag.is_empty());
/// assert_eq!(mesh.num_bones(), 2);
/// # Ok::<(), skelmap_core::Error>(())
/// ```
impl<'data> Parse<'data> for Psk<'data> {
    const FORMAT: Format = Format::Psk;

    fn parse_with(
        data: &'data [u8],
        limits: &Limits,
        diag: &mut Diagnostics,
    ) -> Result<Psk<'data>> {
        const FORMAT: Format = Format::Psk;
        rules::begin(FORMAT, data, limits)?;
        let reader = Reader::new(data, FORMAT);
        let mut c = PskChunks::default();
        let verts = limits.max_vertices_per_mesh;
        let weights_max = u32::try_from(limits.max_total_influences).unwrap_or(u32::MAX);
        walk(FORMAT, reader, diag, |id, chunk| {
            let known = match id {
                b"PNTS0000" => {
                    store(FORMAT, &mut c.points, chunk)?;
                    (size_of::<VPoint>(), verts)
                }
                b"VTXW0000" | b"VTXW3200" => {
                    if let Some((first, _)) = c.wedges {
                        return Err(repeated(FORMAT, first.header, chunk.header));
                    }
                    c.wedges = Some((chunk, id == b"VTXW3200"));
                    (size_of::<VVertex>(), verts)
                }
                b"FACE0000" | b"FACE3200" => {
                    if let Some((first, _)) = c.faces {
                        return Err(repeated(FORMAT, first.header, chunk.header));
                    }
                    let wide = id == b"FACE3200";
                    c.faces = Some((chunk, wide));
                    let size = if wide {
                        size_of::<VTriangle32>()
                    } else {
                        size_of::<VTriangle16>()
                    };
                    (size, limits.max_triangles_per_mesh)
                }
                b"MATT0000" => {
                    store(FORMAT, &mut c.materials, chunk)?;
                    (size_of::<VMaterial>(), limits.max_meshes)
                }
                b"REFSKELT" | b"REFSKEL0" => {
                    store(FORMAT, &mut c.bones, chunk)?;
                    (size_of::<FNamedBoneBinary>(), limits.max_bones)
                }
                b"RAWWEIGHTS" | b"RAWW0000" => {
                    store(FORMAT, &mut c.weights, chunk)?;
                    (size_of::<VRawBoneInfluence>(), weights_max)
                }
                b"VERTEXCOLOR" => {
                    store(FORMAT, &mut c.colors, chunk)?;
                    (size_of::<VColor>(), verts)
                }
                b"VTXNORMS" => {
                    store(FORMAT, &mut c.normals, chunk)?;
                    (size_of::<VNormal>(), verts)
                }
                [b'E', b'X', b'T', b'R', b'A', b'U', b'V', b'S', digit]
                    if (b'0'..b'0' + MAX_EXTRA_UVS as u8).contains(digit) =>
                {
                    store(FORMAT, &mut c.extra_uvs[usize::from(digit - b'0')], chunk)?;
                    (size_of::<VMeshUV>(), verts)
                }
                _ => return Ok(None),
            };
            Ok(Some(known))
        })?;

        let end = reader.len();
        let points_chunk = need(FORMAT, c.points, "PNTS0000", end)?;
        let (wedges_chunk, wide_wedges) = need(FORMAT, c.wedges, "VTXW0000", end)?;
        let (faces_chunk, wide_faces) = need(FORMAT, c.faces, "FACE0000", end)?;
        let materials_chunk = need(FORMAT, c.materials, "MATT0000", end)?;
        let bones_chunk = need(FORMAT, c.bones, "REFSKELT", end)?;

        // Points (rule 7).
        let points = records::<VPoint>(reader, "PNTS0000", points_chunk)?;
        finite(
            FORMAT,
            "point.point",
            points_chunk.data,
            flat::<LittleEndian, _>(points),
        )?;

        // Wedges (rule 8).
        let wedges = records::<VVertex>(reader, "VTXW0000", wedges_chunk)?;
        let mask = if wide_wedges { u32::MAX } else { 0xFFFF };
        if !wedges_pass(wedges, mask, points.len()) {
            check_wedges(diag, wedges, (wedges_chunk.data, mask), points.len())?;
        }

        // Faces (rule 9) and materials.
        let materials = records::<VMaterial>(reader, "MATT0000", materials_chunk)?;
        let faces = if wide_faces {
            let faces = records::<VTriangle32>(reader, "FACE3200", faces_chunk)?;
            let layout = (4, offset_of!(VTriangle32, mat_index));
            if !faces_pass(faces, layout, wedges.len(), materials.len()) {
                for (i, f) in faces.iter().enumerate() {
                    let at = record_offset::<VTriangle32>(faces_chunk.data, i);
                    let w = f.wedge_index.map(|w| u64::from(w.get()));
                    check_face(at, w, f.mat_index, (wedges.len(), materials.len()))?;
                }
            }
            Faces::Wide(faces)
        } else {
            let faces = records::<VTriangle16>(reader, "FACE0000", faces_chunk)?;
            let layout = (2, offset_of!(VTriangle16, mat_index));
            if !faces_pass(faces, layout, wedges.len(), materials.len()) {
                for (i, f) in faces.iter().enumerate() {
                    let at = record_offset::<VTriangle16>(faces_chunk.data, i);
                    let w = f.wedge_index.map(|w| u64::from(w.get()));
                    check_face(at, w, f.mat_index, (wedges.len(), materials.len()))?;
                }
            }
            Faces::Narrow(faces)
        };
        for (i, m) in materials.iter().enumerate() {
            let at = record_offset::<VMaterial>(materials_chunk.data, i);
            rules::check_name(FORMAT, diag, "material.material_name", at, &m.material_name);
        }

        // Bones (rules 10, 11).
        let bones = check_bones(FORMAT, reader, diag, bones_chunk, true)?;

        // Weights (rule 12).
        let weights_at = c.weights.map_or(points_chunk.header, |chunk| chunk.header);
        let weights = match c.weights {
            Some(chunk) => {
                let weights = records::<VRawBoneInfluence>(reader, "RAWWEIGHTS", chunk)?;
                check_weights(weights, chunk.data, points.len(), bones.len())?;
                weights
            }
            None => &[],
        };

        // Per-wedge and per-point extras (rule 6).
        let mut extra_uvs: [&[VMeshUV]; MAX_EXTRA_UVS] = [&[]; MAX_EXTRA_UVS];
        for (slot, chunk) in extra_uvs.iter_mut().zip(c.extra_uvs) {
            if let Some(chunk) = chunk {
                count_mismatch(FORMAT, chunk, wedges.len())?;
                *slot = records::<VMeshUV>(reader, "EXTRAUVS", chunk)?;
            }
        }
        let colors = match c.colors {
            Some(chunk) => {
                count_mismatch(FORMAT, chunk, wedges.len())?;
                records::<VColor>(reader, "VERTEXCOLOR", chunk)?
            }
            None => &[],
        };
        let normals = match c.normals {
            Some(chunk) => {
                count_mismatch(FORMAT, chunk, points.len())?;
                let normals = records::<VNormal>(reader, "VTXNORMS", chunk)?;
                finite(
                    FORMAT,
                    "normal.normal",
                    chunk.data,
                    flat::<LittleEndian, _>(normals),
                )?;
                normals
            }
            None => &[],
        };

        Ok(Psk {
            data,
            points,
            wedges,
            wide_wedges,
            faces,
            materials,
            faces_per_material: std::sync::OnceLock::new(),
            bones,
            weights,
            extras: Box::new(super::view::Extras {
                extra_uvs,
                colors,
                normals,
                weights_at,
            }),
            influences: std::sync::OnceLock::new(),
        })
    }
}

/// Rule 9 for the face at `at`: each wedge in range, the material a material of the file.
fn check_face(
    at: u64,
    wedges: [u64; 3],
    material: u8,
    (num_wedges, num_materials): (usize, usize),
) -> Result<()> {
    const FORMAT: Format = Format::Psk;
    if let Some(k) = wedges.iter().position(|&w| w >= num_wedges as u64) {
        return Err(Error::Invalid {
            format: FORMAT,
            what: "face.wedge_index",
            offset: at,
            problem: Problem::Index {
                index: wedges[k] as i64,
                len: num_wedges as u64,
            },
        });
    }
    if usize::from(material) >= num_materials {
        return Err(Error::Invalid {
            format: FORMAT,
            what: "face.mat_index",
            offset: at,
            problem: Problem::Index {
                index: material.into(),
                len: num_materials as u64,
            },
        });
    }
    Ok(())
}

/// Whether one scan proves every face of `table` (rule 9), records of `T` with three wedge
/// indices `width` bytes wide from their start and the material byte at `material_at`: each
/// wedge below `num_wedges`, the material below `num_materials`. `false` when a face fails,
/// and where there is no scan: the walk then checks them.
fn faces_pass<T: IntoBytes + zerocopy::Immutable>(
    table: &[T],
    (width, material_at): (usize, usize),
    num_wedges: usize,
    num_materials: usize,
) -> bool {
    let last = |n: usize| n.checked_sub(1).map(|m| m.min(u32::MAX as usize) as u32);
    let (Some(wedge), Some(material)) = (last(num_wedges), last(num_materials)) else {
        return table.is_empty();
    };
    let fields = [
        (0, width, wedge),
        (width, width, wedge),
        (2 * width, width, wedge),
        (material_at, 1, material),
    ];
    scan::Packed::new(size_of::<T>(), &fields).is_some_and(|s| !s.any_above(table.as_bytes()))
}

/// Whether one scan proves every wedge: the point index (its low 16 bits, or all 32 with
/// `mask`) below `num_points` (rule 8) and the texture coordinate finite (else a warning).
/// `false` when one fails, and where there is no scan: [`check_wedges`] then walks them.
fn wedges_pass(wedges: &[VVertex], mask: u32, num_points: usize) -> bool {
    let (keep, low, span) = scan::below(num_points.min(u32::MAX as usize) as u32);
    let tests = [
        (keep & mask, low, span),
        scan::FINITE,
        scan::FINITE,
        scan::ANY,
    ];
    scan::any_record_word_fails(wedges.as_bytes(), false, &tests) == Some(false)
}

/// Rule 8 for every wedge, the first failure named; warns of texture coordinates that are
/// NaN or infinite.
fn check_wedges(
    diag: &mut Diagnostics,
    wedges: &[VVertex],
    (start, mask): (u64, u32),
    num_points: usize,
) -> Result<()> {
    const FORMAT: Format = Format::Psk;
    if let Some(k) = wedges
        .iter()
        .position(|w| (w.point_index.get() & mask) as usize >= num_points)
    {
        return Err(Error::Invalid {
            format: FORMAT,
            what: "wedge.point_index",
            offset: record_offset::<VVertex>(start, k),
            problem: Problem::Index {
                index: (wedges[k].point_index.get() & mask).into(),
                len: num_points as u64,
            },
        });
    }
    let bad_uv = |w: &VVertex| !(w.u.get().is_finite() && w.v.get().is_finite());
    if let Some(first) = wedges.iter().position(bad_uv) {
        let count = wedges.iter().filter(|w| bad_uv(w)).count() as u64;
        diag.warn_n(
            FORMAT,
            WarningKind::NonFiniteTexcoord,
            "wedge.u",
            record_offset::<VVertex>(start, first) + 4,
            count,
            || format!("texture coordinate of wedge {first} is NaN or infinite"),
        );
    }

    Ok(())
}

/// Rules 10 and 11 for the bones of `chunk`: parents, finite transforms (`BonePos` read only
/// for a PSK's reference skeleton), rotations of non-zero length. At least one bone.
fn check_bones<'data>(
    format: Format,
    reader: Reader<'data>,
    diag: &mut Diagnostics,
    chunk: Chunk,
    rest_pose: bool,
) -> Result<&'data [FNamedBoneBinary]> {
    if chunk.count == 0 {
        return Err(Error::Invalid {
            format,
            what: "chunk.data_count",
            offset: chunk.header + COUNT_AT,
            problem: Problem::Empty,
        });
    }
    let bones = records::<FNamedBoneBinary>(reader, "bones", chunk)?;
    for (i, bone) in bones.iter().enumerate() {
        let at = record_offset::<FNamedBoneBinary>(chunk.data, i);
        check_bone_parent(format, i, bone, at)?;
        rules::check_name(format, diag, "bone.name", at, &bone.name);
        if rest_pose {
            let pos = at + offset_of!(FNamedBoneBinary, bone_pos) as u64;
            let p = &bone.bone_pos;
            finite(format, "bone.bone_pos.orientation", pos, &p.orientation)?;
            finite(
                format,
                "bone.bone_pos.position",
                pos + offset_of!(VJointPos, position) as u64,
                &p.position,
            )?;
            check_rotation(
                format,
                diag,
                "bone.bone_pos.orientation",
                pos,
                &p.orientation,
            )?;
        }
    }
    Ok(bones)
}

/// Rule 12: each weight finite and not negative, naming a point and a bone.
fn check_weights(
    weights: &[VRawBoneInfluence],
    start: u64,
    num_points: usize,
    num_bones: usize,
) -> Result<()> {
    const FORMAT: Format = Format::Psk;
    // One scan of the records' three words proves the table: a weight's bits at most the
    // largest finite float (finite and not negative; -0.0 goes to the walk, which keeps it),
    // each index at most its last (a negative one is above, as a `u32`). The walk only names
    // the first failure.
    let last = |n: usize| n.checked_sub(1).map(|m| m.min(i32::MAX as usize) as u32);
    if let (Some(points), Some(bones)) = (last(num_points), last(num_bones))
        && let Some(scan) = scan::Fields::<4>::new(&[0x7F7F_FFFF, points, bones])
        && scan.any_above(weights.as_bytes()) == Some(false)
    {
        return Ok(());
    }
    for (i, w) in weights.iter().enumerate() {
        let at = record_offset::<VRawBoneInfluence>(start, i);
        let weight = w.weight.get();
        if !weight.is_finite() {
            return Err(Error::Invalid {
                format: FORMAT,
                what: "weight.weight",
                offset: at,
                problem: Problem::NotFinite,
            });
        }
        if weight < 0.0 {
            return Err(Error::Invalid {
                format: FORMAT,
                what: "weight.weight",
                offset: at,
                problem: Problem::Weight {
                    value: weight.into(),
                },
            });
        }
        let point = w.point_index.get();
        if point < 0 || point as usize >= num_points {
            return Err(Error::Invalid {
                format: FORMAT,
                what: "weight.point_index",
                offset: at + offset_of!(VRawBoneInfluence, point_index) as u64,
                problem: Problem::Index {
                    index: point.into(),
                    len: num_points as u64,
                },
            });
        }
        let bone = w.bone_index.get();
        if bone < 0 || bone as usize >= num_bones {
            return Err(Error::Invalid {
                format: FORMAT,
                what: "weight.bone_index",
                offset: at + offset_of!(VRawBoneInfluence, bone_index) as u64,
                problem: Problem::Index {
                    index: bone.into(),
                    len: num_bones as u64,
                },
            });
        }
    }
    Ok(())
}

/// Every rule of `docs/formats/psk.md` § Validation for a PSA.
///
/// ```
/// use skelmap_core::{psk::{self, Psa}, Diagnostics, Limits, Parse};
/// let bytes = psk::Builder::example().write_psa()?;
/// let anim = Psa::parse(&bytes)?;
/// assert_eq!(anim.num_bones(), 2);
/// assert_eq!(anim.num_frames(), 3);
/// # Ok::<(), skelmap_core::Error>(())
/// ```
impl<'data> Parse<'data> for Psa<'data> {
    const FORMAT: Format = Format::Psa;

    fn parse_with(
        data: &'data [u8],
        limits: &Limits,
        diag: &mut Diagnostics,
    ) -> Result<Psa<'data>> {
        const FORMAT: Format = Format::Psa;
        rules::begin(FORMAT, data, limits)?;
        let reader = Reader::new(data, FORMAT);
        let mut c = PsaChunks::default();
        let keys_max =
            u32::try_from(u64::from(limits.max_frames).saturating_mul(u64::from(limits.max_bones)))
                .unwrap_or(u32::MAX);
        walk(FORMAT, reader, diag, |id, chunk| {
            let known = match id {
                b"BONENAMES" => {
                    store(FORMAT, &mut c.bones, chunk)?;
                    (size_of::<FNamedBoneBinary>(), limits.max_bones)
                }
                b"ANIMINFO" => {
                    store(FORMAT, &mut c.infos, chunk)?;
                    (size_of::<AnimInfoBinary>(), limits.max_frames)
                }
                b"ANIMKEYS" => {
                    store(FORMAT, &mut c.keys, chunk)?;
                    (size_of::<VQuatAnimKey>(), keys_max)
                }
                b"SCALEKEYS" => {
                    store(FORMAT, &mut c.scales, chunk)?;
                    (size_of::<VScaleAnimKey>(), keys_max)
                }
                _ => return Ok(None),
            };
            Ok(Some(known))
        })?;
        let end = reader.len();
        let bones_chunk = need(FORMAT, c.bones, "BONENAMES", end)?;
        let infos_chunk = need(FORMAT, c.infos, "ANIMINFO", end)?;
        let keys_chunk = need(FORMAT, c.keys, "ANIMKEYS", end)?;

        let bones = check_bones(FORMAT, reader, diag, bones_chunk, false)?;
        let num_bones = bones.len() as u64;

        // Keys (rule 14): whole frames, finite, rotations of non-zero length.
        let num_keys = u64::from(keys_chunk.count);
        if num_keys % num_bones != 0 {
            return Err(Error::Invalid {
                format: FORMAT,
                what: "chunk.data_count",
                offset: keys_chunk.header + COUNT_AT,
                problem: Problem::Mismatch {
                    value: num_keys,
                    expected: num_keys / num_bones * num_bones,
                },
            });
        }
        let num_frames = num_keys / num_bones;
        if num_frames > u64::from(limits.max_frames) {
            return Err(Error::Limit {
                format: FORMAT,
                what: "frames",
                offset: keys_chunk.header + COUNT_AT,
                value: num_frames,
                max: limits.max_frames.into(),
            });
        }
        let keys = records::<VQuatAnimKey>(reader, "ANIMKEYS", keys_chunk)?;
        finite(
            FORMAT,
            "key",
            keys_chunk.data,
            flat::<LittleEndian, _>(keys),
        )?;
        for (i, key) in keys.iter().enumerate() {
            let at = record_offset::<VQuatAnimKey>(keys_chunk.data, i);
            check_rotation(
                FORMAT,
                diag,
                "key.orientation",
                at + offset_of!(VQuatAnimKey, orientation) as u64,
                &key.orientation,
            )?;
        }

        // Sequences (rule 13).
        let infos = records::<AnimInfoBinary>(reader, "ANIMINFO", infos_chunk)?;
        let back_to_back = firsts_are_counts(infos);
        if back_to_back {
            let at = infos_chunk.data + offset_of!(AnimInfoBinary, first_raw_frame) as u64;
            diag.warn(
                FORMAT,
                WarningKind::SpecLimit,
                "info.first_raw_frame",
                at,
                || {
                    "the first sequence starts at its own frame count, as CUE4Parse wrote \
                     every sequence's start before its fix of issue 103: the sequences are \
                     read back to back from frame 0, as the Blender importer reads them"
                        .to_string()
                },
            );
        }
        let mut next = 0u64;
        for (i, info) in infos.iter().enumerate() {
            let at = record_offset::<AnimInfoBinary>(infos_chunk.data, i);
            let first = back_to_back.then_some(next);
            check_info(diag, (info, first), at, num_bones, num_frames)?;
            next += u64::from(info.num_raw_frames.get() as u32);
        }

        // Scale keys (rule 15).
        let scales = match c.scales {
            Some(chunk) if chunk.count > 0 => {
                count_mismatch(FORMAT, chunk, keys.len())?;
                let scales = records::<VScaleAnimKey>(reader, "SCALEKEYS", chunk)?;
                finite(FORMAT, "scale", chunk.data, flat::<LittleEndian, _>(scales))?;
                scales
            }
            _ => &[],
        };
        Ok(Psa {
            data,
            bones,
            infos,
            keys,
            scales,
            bones_at: bones_chunk.header,
            num_frames: num_frames as usize,
            back_to_back,
        })
    }
}

/// `true` for the sequence table CUE4Parse wrote before its fix of issue 103: every
/// `FirstRawFrame` the sequence's own frame count. Told, as the Blender importer
/// (io_scene_psk_psa) tells it, by the first sequence (here: one of at least a frame, so that
/// a first sequence of no frames at frame 0 stays as stored).
pub(crate) fn firsts_are_counts(infos: &[AnimInfoBinary]) -> bool {
    infos.first().is_some_and(|s| {
        s.num_raw_frames.get() > 0 && s.first_raw_frame.get() == s.num_raw_frames.get()
    })
}

/// Rule 13 for the sequence at `at`; `start` its first frame where the stored one is not
/// ([`firsts_are_counts`]).
fn check_info(
    diag: &mut Diagnostics,
    (info, start): (&AnimInfoBinary, Option<u64>),
    at: u64,
    num_bones: u64,
    num_frames: u64,
) -> Result<()> {
    const FORMAT: Format = Format::Psa;
    let field = |f: usize| at + f as u64;
    let total_at = field(offset_of!(AnimInfoBinary, total_bones));
    let total = info.total_bones.get();
    if i64::from(total) != num_bones as i64 {
        return Err(Error::Invalid {
            format: FORMAT,
            what: "info.total_bones",
            offset: total_at,
            problem: Problem::Mismatch {
                value: u64::from(total as u32),
                expected: num_bones,
            },
        });
    }
    let first_at = field(offset_of!(AnimInfoBinary, first_raw_frame));
    let count_at = field(offset_of!(AnimInfoBinary, num_raw_frames));
    let first = rules::non_negative(
        FORMAT,
        "info.first_raw_frame",
        first_at,
        info.first_raw_frame.get(),
    )?;
    let count = rules::non_negative(
        FORMAT,
        "info.num_raw_frames",
        count_at,
        info.num_raw_frames.get(),
    )?;
    let first = start.unwrap_or(first.into());
    if first + u64::from(count) > num_frames {
        return Err(Error::Invalid {
            format: FORMAT,
            what: "info.num_raw_frames",
            offset: count_at,
            problem: Problem::AboveMaximum {
                value: count.into(),
                max: num_frames.saturating_sub(first),
            },
        });
    }
    let rate_at = field(offset_of!(AnimInfoBinary, anim_rate));
    let rate = info.anim_rate.get();
    if !rate.is_finite() {
        return Err(Error::Invalid {
            format: FORMAT,
            what: "info.anim_rate",
            offset: rate_at,
            problem: Problem::NotFinite,
        });
    }
    if rate <= 0.0 {
        diag.warn(
            FORMAT,
            WarningKind::FrameRate,
            "info.anim_rate",
            rate_at,
            || {
                format!(
                    "rate {rate}; played at {} frames a second",
                    super::view::DEFAULT_RATE
                )
            },
        );
    }
    rules::check_name(FORMAT, diag, "info.name", at, &info.name);
    Ok(())
}
