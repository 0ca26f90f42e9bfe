//! The MDL7 validation pass: every rule of `docs/formats/mdl7.md` § Validation, in one linear
//! walk from the header to the last deformer.
//!
//! Order of work (and of the checks, so that the first error is deterministic):
//! 1. header: magic, record sizes, counts and their limits;
//! 2. bones: parents before children, finite positions;
//! 3. each group: head, skins, texture coordinates, triangles, vertices, frames;
//! 4. the deformers after the last group: type, group, bones, vertices, weights, sizes;
//! 5. the entity and editor lumps after the main data, as the header sizes them (bytes past
//!    them, or lumps cut short, as a diagnostic).
//!
//! Every count is checked against the bytes left before anything is read or reserved by it.
//! Allocations: one record per group, skin and submesh, and the [`Diagnostics`] entries.

use core::mem::offset_of;

use zerocopy::{FromBytes, IntoBytes};

use super::raw::{
    BONE_SIZES, BONETRANS_SIZE, BonePrefix, BoneTransform, COLORVALUE_SIZE, DEFORMER_BONES,
    Deformer, DeformerElement, DeformerWeight, FRAME_SIZE, Frame as FrameHead, Group as Head,
    Header, MATERIAL_SIZE, NONE16, SKIN_SIZE, SKINPOINT_SIZE, TRIANGLE_SIZES, TexCoord,
    TrianglePrefix, VERTEX_SIZES, VertexPrefix,
};
use super::view::{Frames, Group, Mdl7, Part, Table, Weights};
use crate::alias::skin::{SkinLayout, read_skin};
use crate::diag::{Diagnostics, WarningKind};
use crate::error::{Error, Problem, Result};
use crate::floatbits::{Masks, raw};
use crate::format::Format;
use crate::limits::Limits;
use crate::parse::Parse;
use crate::pose::rotation::count_non_rotations_of;
use crate::read::{Reader, Walk};
use crate::rules;
use crate::scan::{self, Fields};

use zerocopy::LittleEndian as Le;

const FORMAT: Format = Format::Mdl7;

/// Bytes of the header.
const HEADER_SIZE: u64 = size_of::<Header>() as u64;

/// A triangle material that names no skin.
const NO_MATERIAL: u32 = u32::MAX;

/// Every rule of `docs/formats/mdl7.md` § Validation, in the order its section gives.
///
/// ```
/// use skelmap_core::{mdl7::Mdl7, mdl7::Builder, Diagnostics, Limits, Parse};
/// let bytes = Builder::demo().write();
/// let mut diag = Diagnostics::new();
/// let model = Mdl7::parse_with(&bytes, &Limits::default(), &mut diag)?;
/// assert!(diag.is_empty());
/// assert_eq!((model.bones().len(), model.num_frames()), (3, 4));
/// # Ok::<(), skelmap_core::Error>(())
/// ```
impl<'data> Parse<'data> for Mdl7<'data> {
    const FORMAT: Format = FORMAT;

    fn parse_with(
        data: &'data [u8],
        limits: &Limits,
        diag: &mut Diagnostics,
    ) -> Result<Mdl7<'data>> {
        rules::begin(FORMAT, data, limits)?;
        let reader = Reader::new(data, FORMAT);
        let header = reader.ref_at::<Header>("header", 0)?;
        let sizes = check_header(header, limits, diag)?;
        let mut walk = reader.walk(HEADER_SIZE);
        let bones = read_bones(&mut walk, header, sizes.bone, diag)?;
        let num_bones = bones.len();
        let groups_num = header.groups_num.get();
        fits(&walk, "group", groups_num.into(), size_of::<Head>())?;
        let mut view = Mdl7 {
            data,
            header,
            bones,
            groups: Vec::with_capacity(groups_num as usize),
            skins: Vec::new(),
            parts: Vec::new(),
            num_vertices: 0,
            num_triangles: 0,
            vertex_frames: false,
            main_end: 0,
        };
        for index in 0..groups_num as usize {
            let group = read_group(&mut walk, &mut view, index, sizes, limits, diag)?;
            view.groups.push(group);
        }
        if groups_num == 0 {
            diag.warn(
                FORMAT,
                WarningKind::NoGroups,
                "header.groups_num",
                offset_of!(Header, groups_num) as u64,
                || "the model has no groups".to_string(),
            );
        }
        let deformers: u64 = view
            .groups
            .iter()
            .map(|g| u64::from(g.head.deformers))
            .sum();
        let mut influences = 0u64;
        for _ in 0..deformers {
            read_deformer(&mut walk, &mut view, num_bones, limits, &mut influences)?;
        }
        let end = walk.offset();
        let declared = u64::from(header.data_size.get());
        if declared != end {
            diag.warn(
                FORMAT,
                WarningKind::FileSize,
                "header.data_size",
                offset_of!(Header, data_size) as u64,
                || format!("the main data ends at {end}, the header says {declared}"),
            );
        }
        view.main_end = usize::try_from(end).unwrap_or(usize::MAX);
        // The entity and editor lumps follow the main data: bytes they declare are part of
        // the file; bytes past them, or lumps cut short, are said.
        let after = (data.len() as u64).saturating_sub(end);
        let lumps = u64::from(header.entlump_size.get()) + u64::from(header.medlump_size.get());
        if after > lumps {
            diag.warn(
                FORMAT,
                WarningKind::TrailingBytes,
                "lumps",
                end + lumps,
                || {
                    format!(
                        "{} bytes after the main data and the entity and editor lumps ({lumps} \
                     bytes), ignored",
                        after - lumps
                    )
                },
            );
        } else if after < lumps {
            let (ent, med) = (header.entlump_size.get(), header.medlump_size.get());
            diag.warn(
                FORMAT,
                WarningKind::FileSize,
                "header.entlump_size",
                offset_of!(Header, entlump_size) as u64,
                || {
                    format!(
                        "the entity and editor lumps declare {ent} + {med} bytes; the file \
                         holds {after} after the main data"
                    )
                },
            );
        }
        Ok(view)
    }
}

/// The record sizes the header declares, each one of those real files use.
#[derive(Debug, Clone, Copy)]
struct Sizes {
    bone: usize,
    triangle: usize,
    vertex: usize,
    frame_vertex: usize,
}

/// Checks the header: version, every record size, the counts against the limits.
fn check_header(header: &Header, limits: &Limits, diag: &mut Diagnostics) -> Result<Sizes> {
    if header.version.get() != 0 {
        diag.warn(
            FORMAT,
            WarningKind::SpecLimit,
            "header.version",
            offset_of!(Header, version) as u64,
            || format!("version {} (every known file has 0)", header.version.get()),
        );
    }
    for &(what, offset, allowed, supported) in &RECORD_SIZES {
        let value = zerocopy::IntoBytes::as_bytes(header)
            .get(offset..offset + 2)
            .map_or(0, |b| u16::from_le_bytes([b[0], b[1]]));
        if !allowed.contains(&value) {
            return Err(Error::Unsupported {
                format: FORMAT,
                what,
                offset: offset as u64,
                value: value.into(),
                supported,
            });
        }
    }
    // Bones are named by 16-bit indices, 0xFFFF meaning none.
    let bones = header.bones_num.get();
    if bones > u32::from(NONE16) {
        let problem = Problem::AboveMaximum {
            value: bones.into(),
            max: NONE16.into(),
        };
        let offset = offset_of!(Header, bones_num) as u64;
        return Err(invalid("header.bones_num", offset, problem));
    }
    limit(
        "header.bones_num",
        offset_of!(Header, bones_num),
        bones.into(),
        limits.max_bones.into(),
    )?;
    limit(
        "header.groups_num",
        offset_of!(Header, groups_num) as u64,
        header.groups_num.get().into(),
        limits.max_meshes.into(),
    )?;
    Ok(Sizes {
        bone: header.bone_stc_size.get().into(),
        triangle: header.triangle_stc_size.get().into(),
        vertex: header.mainvertex_stc_size.get().into(),
        frame_vertex: header.framevertex_stc_size.get().into(),
    })
}

/// The header's record sizes (rule 3), in header order: the field, where it is, the sizes
/// real files use, and what the error says is read.
const RECORD_SIZES: [(&str, usize, &[u16], &str); 10] = [
    (
        "header.bone_stc_size",
        offset_of!(Header, bone_stc_size),
        &BONE_SIZES,
        "bones of 16, 36 or 48 bytes",
    ),
    (
        "header.skin_stc_size",
        offset_of!(Header, skin_stc_size),
        &[SKIN_SIZE],
        "skin heads of 28 bytes",
    ),
    (
        "header.colorvalue_stc_size",
        offset_of!(Header, colorvalue_stc_size),
        &[COLORVALUE_SIZE],
        "colour values of 16 bytes",
    ),
    (
        "header.material_stc_size",
        offset_of!(Header, material_stc_size),
        &[MATERIAL_SIZE],
        "materials of 68 bytes",
    ),
    (
        "header.skinpoint_stc_size",
        offset_of!(Header, skinpoint_stc_size),
        &[SKINPOINT_SIZE],
        "texture coordinates of 8 bytes",
    ),
    (
        "header.triangle_stc_size",
        offset_of!(Header, triangle_stc_size),
        &TRIANGLE_SIZES,
        "triangles of 12, 16 or 26 bytes",
    ),
    (
        "header.mainvertex_stc_size",
        offset_of!(Header, mainvertex_stc_size),
        &VERTEX_SIZES,
        "vertices of 16 or 26 bytes",
    ),
    (
        "header.framevertex_stc_size",
        offset_of!(Header, framevertex_stc_size),
        &VERTEX_SIZES,
        "frame vertices of 16 or 26 bytes",
    ),
    (
        "header.bonetrans_stc_size",
        offset_of!(Header, bonetrans_stc_size),
        &[BONETRANS_SIZE],
        "bone transformations of 68 bytes",
    ),
    (
        "header.frame_stc_size",
        offset_of!(Header, frame_stc_size),
        &[FRAME_SIZE],
        "frame heads of 24 bytes",
    ),
];

/// [`Error::Limit`] for a `value` over `max`.
fn limit(what: &'static str, offset: impl TryInto<u64>, value: u64, max: u64) -> Result<()> {
    if value > max {
        return Err(Error::Limit {
            format: FORMAT,
            what,
            offset: offset.try_into().unwrap_or(0),
            value,
            max,
        });
    }
    Ok(())
}

/// [`Error::Truncated`] unless `count` records of `size` bytes fit in what `walk` has left,
/// checked before anything is reserved for them.
fn fits(walk: &Walk<'_>, what: &'static str, count: u64, size: usize) -> Result<()> {
    let need = count.saturating_mul(size as u64);
    if need > walk.rest().len() as u64 {
        return Err(Error::Truncated {
            format: FORMAT,
            what,
            offset: walk.offset(),
            need,
            have: walk.rest().len() as u64,
        });
    }
    Ok(())
}

/// An [`Error::Invalid`].
fn invalid(what: &'static str, offset: u64, problem: Problem) -> Error {
    Error::Invalid {
        format: FORMAT,
        what,
        offset,
        problem,
    }
}

/// [`Problem::Index`] unless `index < len`.
fn in_range(what: &'static str, offset: u64, index: u64, len: u64) -> Result<()> {
    if index >= len {
        let problem = Problem::Index {
            index: index as i64,
            len,
        };
        return Err(invalid(what, offset, problem));
    }
    Ok(())
}

/// The position of the first non-finite value among `values`, little-endian floats.
fn first_non_finite(values: &[zerocopy::byteorder::F32<Le>]) -> Option<usize> {
    let masks = Masks::of::<Le>();
    values.iter().position(|&v| masks.non_finite(raw(v)))
}

/// Reads the bones: parents before children (`0xFFFF` for a root), finite positions.
fn read_bones<'data>(
    walk: &mut Walk<'data>,
    header: &Header,
    size: usize,
    diag: &mut Diagnostics,
) -> Result<Table<'data, BonePrefix>> {
    let count = u64::from(header.bones_num.get());
    let start = walk.offset();
    let bytes = walk.read_slice::<u8>("bones", count.saturating_mul(size as u64))?;
    let bones = Table::<BonePrefix>::new(bytes, size, count as usize);
    for i in 0..bones.len() {
        let (Some(bone), Some(record)) = (bones.get(i), bones.record(i)) else {
            continue;
        };
        let at = start + (i * size) as u64;
        let parent = bone.parent_index.get();
        let parent = if parent == NONE16 {
            -1
        } else {
            i32::from(parent)
        };
        rules::check_parent(FORMAT, i, parent, at).map_err(|_| {
            invalid(
                "bone.parent_index",
                at,
                Problem::Parent {
                    bone: i as u64,
                    parent: parent.into(),
                },
            )
        })?;
        if let Some(k) = first_non_finite(&[bone.x, bone.y, bone.z]) {
            let offset = at + offset_of!(BonePrefix, x) as u64 + 4 * k as u64;
            return Err(invalid("bone.position", offset, Problem::NotFinite));
        }
        if let Some(name) = record
            .get(size_of::<BonePrefix>()..)
            .filter(|n| !n.is_empty())
        {
            let offset = at + size_of::<BonePrefix>() as u64;
            rules::check_name(FORMAT, diag, "bone.name", offset, name);
        }
    }
    Ok(bones)
}

/// Reads group `index` and its skins (appended to `view.skins`) and submeshes.
fn read_group<'data>(
    walk: &mut Walk<'data>,
    view: &mut Mdl7<'data>,
    index: usize,
    sizes: Sizes,
    limits: &Limits,
    diag: &mut Diagnostics,
) -> Result<Group<'data>> {
    let at = walk.offset();
    let head = walk.read::<Head>("group")?;
    if head.typ != 1 {
        return Err(Error::Unsupported {
            format: FORMAT,
            what: "group.typ",
            offset: at,
            value: head.typ.into(),
            supported: "groups of type 1 (triangle meshes)",
        });
    }
    let place = GroupAt { head, at, index };
    let first_skin = read_skins(walk, view, place, limits)?;
    let texcoords = read_texcoords(walk, head, diag)?;
    let triangles = read_triangles(walk, view, place, first_skin, sizes, limits, diag)?;
    let vertices = read_vertices(walk, view, place, sizes, diag)?;
    let (frames, frames_at) = read_frames(walk, view, place, sizes, limits, diag)?;
    let group = Group {
        head,
        skins: first_skin..view.skins.len(),
        texcoords,
        triangles,
        vertices,
        frames,
        weights: None,
        first_vertex: view.num_vertices,
        first_triangle: view.num_triangles,
        frames_at,
    };
    view.num_vertices += head.numverts.get() as usize;
    view.num_triangles += head.numtris.get() as usize;
    Ok(group)
}

/// The group being read: its head, where the head is, and its index.
#[derive(Clone, Copy)]
struct GroupAt<'data> {
    head: &'data Head,
    at: u64,
    index: usize,
}

impl GroupAt<'_> {
    /// The offset of the head's field at `offset` in it.
    fn field(&self, offset: usize) -> u64 {
        self.at + offset as u64
    }
}

/// The group's skins (rule 10), appended to the model's: the index of its first.
fn read_skins<'data>(
    walk: &mut Walk<'data>,
    view: &mut Mdl7<'data>,
    group: GroupAt<'_>,
    limits: &Limits,
) -> Result<usize> {
    let head = group.head;
    let numskins = head.numskins.get();
    limit(
        "group.numskins",
        group.field(offset_of!(Head, numskins)),
        numskins.into(),
        limits.max_skins.into(),
    )?;
    fits(walk, "skin", numskins.into(), usize::from(SKIN_SIZE))?;
    let first_skin = view.skins.len();
    view.skins.reserve(numskins as usize);
    for s in 0..numskins {
        let layout = SkinLayout::Mdl7 {
            index: s,
            count: numskins,
        };
        let mut skin = read_skin(walk, layout, FORMAT, limits)?;
        // `first_skin` is below the skins' total, which the limit and the bytes bound.
        skin.offset_reference(first_skin as u32);
        view.skins.push(skin);
    }
    Ok(first_skin)
}

/// The group's texture coordinates (rule 11), a NaN or infinity among them warned about.
fn read_texcoords<'data>(
    walk: &mut Walk<'data>,
    head: &Head,
    diag: &mut Diagnostics,
) -> Result<&'data [TexCoord]> {
    let st_at = walk.offset();
    let num_stpts = head.num_stpts.get();
    let texcoords = walk.read_slice::<TexCoord>("group.texcoords", num_stpts.into())?;
    let flat =
        <[zerocopy::byteorder::F32<Le>]>::ref_from_bytes(zerocopy::IntoBytes::as_bytes(texcoords))
            .unwrap_or_default();
    // The scan first; the search for the first only when it finds one.
    if let Some(k) = scan::any_non_finite(flat)
        .then(|| first_non_finite(flat))
        .flatten()
    {
        let bad = flat.iter().filter(|&&v| !v.get().is_finite()).count() as u64;
        diag.warn_n(
            FORMAT,
            WarningKind::NonFiniteTexcoord,
            "group.texcoords",
            st_at + 4 * k as u64,
            bad,
            || format!("texture coordinate {} is NaN or infinite", k / 2),
        );
    }
    Ok(texcoords)
}

/// The group's triangles (rules 12 and 13) and the submeshes they make, one per skin used.
fn read_triangles<'data>(
    walk: &mut Walk<'data>,
    view: &mut Mdl7<'data>,
    group: GroupAt<'_>,
    first_skin: usize,
    sizes: Sizes,
    limits: &Limits,
    diag: &mut Diagnostics,
) -> Result<Table<'data, TrianglePrefix>> {
    let (head, index) = (group.head, group.index);
    let (numskins, num_stpts) = (head.numskins.get(), head.num_stpts.get());
    let numtris = head.numtris.get();
    let numverts = head.numverts.get();
    limit(
        "group.numtris",
        group.field(offset_of!(Head, numtris)),
        (view.num_triangles as u64).saturating_add(numtris.into()),
        limits.max_triangles_per_mesh.into(),
    )?;
    limit(
        "group.numverts",
        group.field(offset_of!(Head, numverts)),
        (view.num_vertices as u64).saturating_add(numverts.into()),
        limits.max_vertices_per_mesh.into(),
    )?;
    let tri_at = walk.offset();
    let bytes = walk.read_slice::<u8>(
        "group.triangles",
        u64::from(numtris) * sizes.triangle as u64,
    )?;
    let triangles = Table::<TrianglePrefix>::new(bytes, sizes.triangle, numtris as usize);
    let checks = TriangleChecks {
        numverts,
        num_stpts,
        numskins,
    };
    let pass = triangles_pass(bytes, sizes.triangle, checks);
    if !pass {
        check_triangles(&triangles, tri_at, checks)?;
    }
    if sizes.triangle >= MATERIAL_TRIANGLE && (numskins > 1 || (numskins == 1 && !pass)) {
        count_materials(&triangles, tri_at, view, index, first_skin, numskins, diag);
    } else if numtris > 0 {
        view.parts.push(Part {
            group: index,
            skin: (numskins > 0).then_some(first_skin),
            select: None,
            count: numtris as usize,
        });
    }
    Ok(triangles)
}

/// The group's main vertices (rule 14), normal indices past the table and bones in a file
/// without bones warned about.
fn read_vertices<'data>(
    walk: &mut Walk<'data>,
    view: &Mdl7<'data>,
    group: GroupAt<'_>,
    sizes: Sizes,
    diag: &mut Diagnostics,
) -> Result<Table<'data, VertexPrefix>> {
    let (numverts, index) = (group.head.numverts.get(), group.index);
    let vert_at = walk.offset();
    let bytes =
        walk.read_slice::<u8>("group.vertices", u64::from(numverts) * sizes.vertex as u64)?;
    let vertices = Table::<VertexPrefix>::new(bytes, sizes.vertex, numverts as usize);
    let num_bones = view.bones.len() as u64;
    if !vertices_pass(bytes, sizes.vertex, num_bones as u32) {
        let (mut normals, mut stray) = (Stray::default(), Stray::default());
        for v in 0..vertices.len() {
            let rec_at = vert_at + (v * sizes.vertex) as u64;
            if let Some(index) = check_vertex(&vertices, v, rec_at, "vertex")? {
                normals.note(rec_at + NORMAL_AT as u64, index.into(), v);
            }
            if let Some(vertex) = vertices.get(v) {
                let bone = vertex.vertindex.get();
                let offset = rec_at + offset_of!(VertexPrefix, vertindex) as u64;
                // Without bones the field means nothing: counted, then ignored.
                if bone != NONE16 && num_bones == 0 {
                    stray.note(offset, bone.into(), v);
                } else if bone != NONE16 {
                    in_range("vertex.vertindex", offset, bone.into(), num_bones)?;
                }
            }
        }
        normals.warn(
            diag,
            WarningKind::NormalIndex,
            "vertex.norm162index",
            |i, v| {
                format!(
                    "vertex {v} of group {index} has normal index {i}; there are 162, and it \
                     is read as zero"
                )
            },
        );
        stray.warn(
            diag,
            WarningKind::BoneWithoutSkeleton,
            "vertex.vertindex",
            |b, v| format!("vertex {v} of group {index} names bone {b}; the model has no bones"),
        );
    }
    Ok(vertices)
}

/// The group's frames (rule 15): their walk, and where they begin.
fn read_frames<'data>(
    walk: &mut Walk<'data>,
    view: &mut Mdl7<'data>,
    group: GroupAt<'_>,
    sizes: Sizes,
    limits: &Limits,
    diag: &mut Diagnostics,
) -> Result<(Frames<'data>, u64)> {
    let (head, index) = (group.head, group.index);
    let numverts = head.numverts.get();
    let num_bones = view.bones.len() as u64;
    let numframes = head.numframes.get();
    limit(
        "group.numframes",
        group.field(offset_of!(Head, numframes)),
        numframes.into(),
        limits.max_frames.into(),
    )?;
    fits(walk, "frame", numframes.into(), size_of::<FrameHead>())?;
    let frames_at = walk.offset();
    let frames_bytes = walk.rest();
    let mut uniform: Option<Option<usize>> = None;
    let mut ordered = true;
    for f in 0..numframes {
        let (size, in_order, replaces) =
            read_frame(walk, f, index, sizes, numverts, num_bones, diag)?;
        ordered &= in_order;
        view.vertex_frames |= replaces;
        uniform = Some(match uniform {
            None => Some(size),
            Some(Some(s)) if s == size => Some(s),
            _ => None,
        });
    }
    let frames_len = (walk.offset() - frames_at) as usize;
    let frames = Frames {
        bytes: frames_bytes.get(..frames_len).unwrap_or_default(),
        count: numframes as usize,
        vertex_size: sizes.frame_vertex,
        uniform: uniform.flatten(),
        ordered,
    };
    Ok((frames, frames_at))
}

/// Checks vertex record `v` of `table` at `at`: a finite position and (26 bytes) a finite
/// normal. `what` is `vertex` or `frame_vertex`. Returns the normal-table index of a 16-byte
/// record when it is past the table (the reader takes a zero normal, and the caller warns).
fn check_vertex(
    table: &Table<'_, VertexPrefix>,
    v: usize,
    at: u64,
    what: &'static str,
) -> Result<Option<u16>> {
    let (Some(vertex), Some(record)) = (table.get(v), table.record(v)) else {
        return Ok(None);
    };
    let name =
        |field: &'static str, frame: &'static str| if what == "vertex" { field } else { frame };
    if let Some(k) = first_non_finite(&[vertex.x, vertex.y, vertex.z]) {
        let what = name("vertex.position", "frame_vertex.position");
        return Err(invalid(what, at + 4 * k as u64, Problem::NotFinite));
    }
    if record.len() >= FLOAT_NORMAL_VERTEX {
        let normal = <[zerocopy::byteorder::F32<Le>; 3]>::ref_from_bytes(
            &record[NORMAL_AT..FLOAT_NORMAL_VERTEX],
        );
        if let Some(k) = normal.ok().and_then(|n| first_non_finite(n)) {
            let what = name("vertex.norm", "frame_vertex.norm");
            let offset = at + (NORMAL_AT + 4 * k) as u64;
            return Err(invalid(what, offset, Problem::NotFinite));
        }
    } else if let Some(&[lo, hi]) = record.get(NORMAL_AT..NORMAL_AT + 2)
        && u16::from_le_bytes([lo, hi]) >= NORMAL_TABLE
    {
        return Ok(Some(u16::from_le_bytes([lo, hi])));
    }
    Ok(None)
}

/// Entries of the normal table a 16-byte vertex record's `norm162index` indexes.
const NORMAL_TABLE: u16 = 162;

/// Where a vertex record's normal begins: right after the prefix every size shares. MDL7
/// declares its vertex size in the header (16 or 26 bytes) and the two sizes store different
/// fields there (a `u16` `norm162index` or three floats), so no one raw struct has the field;
/// the walk reads it at this offset within the size the file declares.
const NORMAL_AT: usize = size_of::<VertexPrefix>();

/// The size of a vertex record with a float normal (26 bytes): the prefix and three floats.
const FLOAT_NORMAL_VERTEX: usize = NORMAL_AT + 3 * size_of::<f32>();

/// Where a triangle record's first material is (16- and 26-byte records; a 12-byte record
/// ends before it): the 26-byte [`Triangle`](super::raw::Triangle)'s first skin set's
/// material, which the 16-byte record shares.
const MATERIAL_AT: usize =
    offset_of!(super::raw::Triangle, skinsets) + offset_of!(super::raw::SkinSet, material);

/// The smallest triangle record that carries a material (16 bytes).
const MATERIAL_TRIANGLE: usize = MATERIAL_AT + size_of::<u32>();

const _: () = assert!(MATERIAL_AT == size_of::<TrianglePrefix>());
const _: () = assert!(FLOAT_NORMAL_VERTEX == VERTEX_SIZES[1] as usize);
const _: () = assert!(MATERIAL_TRIANGLE == TRIANGLE_SIZES[1] as usize);

/// Records that a tolerated finding counts: how many, and the first's offset, value and
/// record.
#[derive(Debug, Default)]
struct Stray {
    count: u64,
    first: Option<(u64, u64, usize)>,
}

impl Stray {
    fn note(&mut self, offset: u64, value: u64, record: usize) {
        self.count += 1;
        self.first.get_or_insert((offset, value, record));
    }

    /// One [`Diagnostics`] entry (or more occurrences of one) for what was noted.
    fn warn(
        &self,
        diag: &mut Diagnostics,
        kind: WarningKind,
        what: &'static str,
        detail: impl FnOnce(u64, usize) -> String,
    ) {
        if let Some((offset, value, record)) = self.first {
            diag.warn_n(FORMAT, kind, what, offset, self.count, || {
                detail(value, record)
            });
        }
    }
}

/// Reads frame `f` of group `group`: replaced vertices in range and finite (out of order or
/// repeated, and normal indices past the table, warned); bone transformations naming bones
/// and finite. Returns the frame's size, whether its vertices are in strictly increasing
/// order, and whether it replaces any.
#[allow(clippy::too_many_arguments)]
fn read_frame(
    walk: &mut Walk<'_>,
    f: u32,
    group: usize,
    sizes: Sizes,
    numverts: u32,
    num_bones: u64,
    diag: &mut Diagnostics,
) -> Result<(usize, bool, bool)> {
    let at = walk.offset();
    let head = walk.read::<FrameHead>("frame")?;
    rules::check_name(FORMAT, diag, "frame.frame_name", at, &head.frame_name);
    let count = head.vertices_count.get();
    let vert_at = walk.offset();
    let bytes = walk.read_slice::<u8>(
        "frame.vertices",
        u64::from(count) * sizes.frame_vertex as u64,
    )?;
    let vertices = Table::<VertexPrefix>::new(bytes, sizes.frame_vertex, count as usize);
    let mut previous: Option<u16> = None;
    let pass = frame_vertices_pass(bytes, sizes.frame_vertex, numverts);
    let (mut normals, mut order) = (Stray::default(), Stray::default());
    for v in (0..vertices.len()).filter(|_| !pass) {
        let rec_at = vert_at + (v * sizes.frame_vertex) as u64;
        if let Some(index) = check_vertex(&vertices, v, rec_at, "frame_vertex")? {
            normals.note(rec_at + NORMAL_AT as u64, index.into(), v);
        }
        let Some(vertex) = vertices.get(v) else {
            continue;
        };
        let target = vertex.vertindex.get();
        let offset = rec_at + offset_of!(VertexPrefix, vertindex) as u64;
        in_range(
            "frame_vertex.vertindex",
            offset,
            target.into(),
            numverts.into(),
        )?;
        if let Some(p) = previous
            && target <= p
        {
            order.note(offset, target.into(), v);
        }
        previous = Some(target);
    }
    normals.warn(
        diag,
        WarningKind::NormalIndex,
        "frame_vertex.norm162index",
        |i, v| {
            format!(
                "vertex {v} of frame {f} of group {group} has normal index {i}; there are 162, \
                 and it is read as zero"
            )
        },
    );
    order.warn(
        diag,
        WarningKind::FrameVertexOrder,
        "frame_vertex.vertindex",
        |t, v| {
            format!("frame {f} of group {group} lists vertex {t} at {v}, not after the one before")
        },
    );
    let matrices = head.transmatrix_count.get();
    let trans_at = walk.offset();
    let transforms = walk.read_slice::<BoneTransform>("frame.transforms", matrices.into())?;
    if !transforms_pass(transforms, num_bones) {
        for (k, t) in transforms.iter().enumerate() {
            let rec_at = trans_at + (k * size_of::<BoneTransform>()) as u64;
            let offset = rec_at + offset_of!(BoneTransform, bone_index) as u64;
            let bone = t.bone_index.get().into();
            in_range("bone_transform.bone_index", offset, bone, num_bones)?;
            if let Some(i) = first_non_finite(&t.m) {
                let offset = rec_at + (offset_of!(BoneTransform, m) + 4 * i) as u64;
                return Err(invalid("bone_transform.m", offset, Problem::NotFinite));
            }
        }
    }
    if group > 0 && matrices > 0 {
        diag.warn(
            FORMAT,
            WarningKind::SpecLimit,
            "frame.transmatrix_count",
            at + offset_of!(FrameHead, transmatrix_count) as u64,
            || format!("group {group} stores bone transformations; group 0's are used"),
        );
    }
    Ok(((walk.offset() - at) as usize, order.count == 0, count > 0))
}

/// Reads one deformer block: bone weights of a group, each bone and vertex in range, each
/// weight finite and not negative, its declared size the bytes it covers.
fn read_deformer<'data>(
    walk: &mut Walk<'data>,
    view: &mut Mdl7<'data>,
    num_bones: usize,
    limits: &Limits,
    influences: &mut u64,
) -> Result<()> {
    let at = walk.offset();
    let head = walk.read::<Deformer>("deformer")?;
    if head.deformer_typ != DEFORMER_BONES {
        return Err(Error::Unsupported {
            format: FORMAT,
            what: "deformer.deformer_typ",
            offset: at + offset_of!(Deformer, deformer_typ) as u64,
            value: head.deformer_typ.into(),
            supported: "deformers of type 0 (bone weights)",
        });
    }
    let group_at = at + offset_of!(Deformer, group_index) as u64;
    let g = head.group_index.get();
    in_range(
        "deformer.group_index",
        group_at,
        g.into(),
        view.groups.len() as u64,
    )?;
    let Some(group) = view.groups.get_mut(g as usize) else {
        return Ok(());
    };
    if group.weights.is_some() {
        return Err(Error::Unsupported {
            format: FORMAT,
            what: "deformer.group_index",
            offset: group_at,
            value: g.into(),
            supported: "one bone deformer per group",
        });
    }
    let numverts = group.vertices.len() as u64;
    let elements = head.elements.get();
    fits(
        walk,
        "deformer_element",
        elements.into(),
        size_of::<DeformerElement>(),
    )?;
    let start = walk.rest();
    let elements_at = walk.offset();
    for _ in 0..elements {
        let el_at = walk.offset();
        let element = walk.read::<DeformerElement>("deformer_element")?;
        in_range(
            "deformer_element.element_index",
            el_at,
            element.element_index.get().into(),
            num_bones as u64,
        )?;
        let n = element.weights.get();
        *influences = influences.saturating_add(n.into());
        limit(
            "deformer_element.weights",
            el_at + offset_of!(DeformerElement, weights) as u64,
            *influences,
            limits.max_total_influences,
        )?;
        let w_at = walk.offset();
        let weights = walk.read_slice::<DeformerWeight>("deformer_weight", n.into())?;
        let pass = weights_pass(weights, numverts);
        for (k, w) in weights.iter().enumerate().filter(|_| !pass) {
            let rec_at = w_at + (k * size_of::<DeformerWeight>()) as u64;
            let weight_at = rec_at + offset_of!(DeformerWeight, weight) as u64;
            in_range(
                "deformer_weight.index",
                rec_at,
                w.index.get().into(),
                numverts,
            )?;
            let weight = w.weight.get();
            if !weight.is_finite() {
                return Err(invalid(
                    "deformer_weight.weight",
                    weight_at,
                    Problem::NotFinite,
                ));
            }
            if weight < 0.0 {
                let problem = Problem::NotPositive {
                    value: weight.into(),
                };
                return Err(invalid("deformer_weight.weight", weight_at, problem));
            }
        }
    }
    let covered = walk.offset() - at;
    let declared = head.deformerdata_size.get();
    if u64::from(declared) != covered {
        let problem = Problem::Mismatch {
            value: declared.into(),
            expected: covered,
        };
        let offset = at + offset_of!(Deformer, deformerdata_size) as u64;
        return Err(invalid("deformer.deformerdata_size", offset, problem));
    }
    let len = (walk.offset() - elements_at) as usize;
    group.weights = Some(Weights {
        bytes: start.get(..len).unwrap_or_default(),
        count: elements as usize,
    });
    Ok(())
}

/// What a group's triangles must hold: vertex indices below `numverts`, first-set texture
/// coordinate indices below `num_stpts` or `0xFFFF` (when there are texture coordinates).
#[derive(Debug, Clone, Copy)]
struct TriangleChecks {
    numverts: u32,
    num_stpts: u32,
    numskins: u32,
}

/// `true` when every triangle passes [`TriangleChecks`] and (16- and 26-byte records) names
/// one of the group's skins; `false` may also mean that the scan cannot tell (a `0xFFFF`
/// texture coordinate, a triangle without a skin): [`check_triangles`] then decides. The
/// second texture coordinate set is not read, so not checked.
fn triangles_pass(bytes: &[u8], stride: usize, c: TriangleChecks) -> bool {
    let Some(xyz) = c.numverts.checked_sub(1) else {
        return bytes.is_empty();
    };
    let st = c.num_stpts.checked_sub(1).unwrap_or(u32::MAX);
    let mut max = [u32::MAX; 13];
    max[..3].fill(xyz);
    max[3..6].fill(st);
    if stride >= MATERIAL_TRIANGLE && c.numskins > 0 {
        // The material, a `u32` read as two halves: below the skin count.
        max[MATERIAL_AT / 2] = c.numskins - 1;
        max[MATERIAL_AT / 2 + 1] = 0;
    }
    let fields = max.get(..stride / 2).and_then(Fields::<2>::new);
    if let Some(pass) = fields.and_then(|f| f.any_above(bytes)) {
        return !pass;
    }
    let (nv, ns) = (c.numverts, c.num_stpts);
    let mut bad = false;
    for r in bytes.chunks_exact(stride) {
        let w = |k: usize| u32::from(u16::from_le_bytes([r[2 * k], r[2 * k + 1]]));
        bad |= (w(0) >= nv) | (w(1) >= nv) | (w(2) >= nv);
        if ns > 0 {
            let off = |s: u32| (s >= ns) & (s != u32::from(NONE16));
            bad |= off(w(3)) | off(w(4)) | off(w(5));
        }
        if stride >= MATERIAL_TRIANGLE && c.numskins > 0 {
            bad |= word(r, MATERIAL_AT) >= c.numskins;
        }
    }
    !bad
}

/// The first triangle that breaks [`TriangleChecks`], as its error.
fn check_triangles(
    triangles: &Table<'_, TrianglePrefix>,
    at: u64,
    c: TriangleChecks,
) -> Result<()> {
    for (t, tri) in triangles.iter().enumerate() {
        let rec_at = at + (t * triangles.stride()) as u64;
        for (k, v) in tri.v_index.iter().enumerate() {
            let offset = rec_at + (offset_of!(TrianglePrefix, v_index) + 2 * k) as u64;
            in_range(
                "triangle.v_index",
                offset,
                v.get().into(),
                c.numverts.into(),
            )?;
        }
        if c.num_stpts == 0 {
            continue;
        }
        for (k, s) in tri.st_index.iter().enumerate() {
            if s.get() != NONE16 {
                let offset = rec_at + offset_of!(TrianglePrefix, st_index) as u64 + 2 * k as u64;
                in_range(
                    "triangle.st_index",
                    offset,
                    s.get().into(),
                    c.num_stpts.into(),
                )?;
            }
        }
    }
    Ok(())
}

/// Counts a group's triangles by material into its submeshes (one per skin used, one for
/// triangles without a skin), warning about a material that names no skin.
fn count_materials(
    triangles: &Table<'_, TrianglePrefix>,
    at: u64,
    view: &mut Mdl7<'_>,
    group: usize,
    first_skin: usize,
    numskins: u32,
    diag: &mut Diagnostics,
) {
    let first_part = view.parts.len();
    view.parts.extend((0..=numskins as usize).map(|k| Part {
        group,
        skin: (k < numskins as usize).then_some(first_skin + k),
        select: Some(if k < numskins as usize {
            k as u32
        } else {
            NO_MATERIAL
        }),
        count: 0,
    }));
    let stride = triangles.stride();
    let skins = numskins as usize;
    // Per skin, then without one, then naming no skin of the group.
    let mut counts = vec![0usize; skins + 2];
    for r in triangles.bytes().chunks_exact(stride) {
        let m = word(r, MATERIAL_AT);
        let k = if m < numskins {
            m as usize
        } else {
            skins + usize::from(m != NO_MATERIAL)
        };
        if let Some(c) = counts.get_mut(k) {
            *c += 1;
        }
    }
    if counts[skins + 1] > 0 {
        let bad =
            |r: &[u8]| word(r, MATERIAL_AT) >= numskins && word(r, MATERIAL_AT) != NO_MATERIAL;
        let chunks = triangles.bytes().chunks_exact(stride);
        if let Some((t, r)) = chunks.enumerate().find(|(_, r)| bad(r)) {
            let (m, offset) = (word(r, MATERIAL_AT), at + (t * stride + MATERIAL_AT) as u64);
            diag.warn_n(
                FORMAT,
                WarningKind::SpecLimit,
                "triangle.material",
                offset,
                counts[skins + 1] as u64,
                || format!("triangle {t} names material {m}; the group has {numskins} skins"),
            );
        }
    }
    for (part, count) in view.parts[first_part..].iter_mut().zip(&counts) {
        part.count = *count;
    }
    if let Some(none) = view.parts.last_mut() {
        none.count += counts[skins + 1];
    }
    // Parts without triangles go (earlier groups' parts all have some); a group all of one
    // material is one range.
    view.parts.retain(|p| p.count > 0);
    if view.parts.len() == first_part + 1 {
        view.parts[first_part].select = None;
    }
}

/// A NaN or an infinity, from its bits.
#[inline(always)]
fn non_finite(bits: u32) -> bool {
    bits & 0x7F80_0000 == 0x7F80_0000
}

/// The `u32` at `at` of a record.
#[inline(always)]
fn word(r: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([r[at], r[at + 1], r[at + 2], r[at + 3]])
}

/// The position's and the bone's offsets in a vertex record of either size.
const X: usize = offset_of!(VertexPrefix, x);
const Y: usize = offset_of!(VertexPrefix, y);
const Z: usize = offset_of!(VertexPrefix, z);
const VERTINDEX: usize = offset_of!(VertexPrefix, vertindex);

/// `true` when every vertex record (16 or 26 bytes) has a finite position and normal (or a
/// normal index below 162) and a `vertindex` below `bones` or `0xFFFF`: one branch-free pass,
/// so that the per-record checks that name a failure (or count a tolerated finding) run only
/// where one is.
fn vertices_pass(bytes: &[u8], stride: usize, bones: u32) -> bool {
    let mut bad = false;
    for r in bytes.chunks_exact(stride) {
        bad |= non_finite(word(r, X)) | non_finite(word(r, Y)) | non_finite(word(r, Z));
        let bone = u32::from(u16::from_le_bytes([r[VERTINDEX], r[VERTINDEX + 1]]));
        bad |= (bone >= bones) & (bone != u32::from(NONE16));
        bad |= if stride >= FLOAT_NORMAL_VERTEX {
            non_finite(word(r, NORMAL_AT))
                | non_finite(word(r, NORMAL_AT + 4))
                | non_finite(word(r, NORMAL_AT + 8))
        } else {
            u16::from_le_bytes([r[NORMAL_AT], r[NORMAL_AT + 1]]) >= NORMAL_TABLE
        };
    }
    !bad
}

/// `true` when every frame vertex passes [`vertices_pass`]'s float and normal checks and
/// replaces a main vertex, in strictly increasing order.
fn frame_vertices_pass(bytes: &[u8], stride: usize, numverts: u32) -> bool {
    let mut bad = false;
    let mut previous = -1i64;
    for r in bytes.chunks_exact(stride) {
        bad |= non_finite(word(r, X)) | non_finite(word(r, Y)) | non_finite(word(r, Z));
        let target = u16::from_le_bytes([r[VERTINDEX], r[VERTINDEX + 1]]);
        bad |= (u32::from(target) >= numverts) | (i64::from(target) <= previous);
        previous = i64::from(target);
        bad |= if stride >= FLOAT_NORMAL_VERTEX {
            non_finite(word(r, NORMAL_AT))
                | non_finite(word(r, NORMAL_AT + 4))
                | non_finite(word(r, NORMAL_AT + 8))
        } else {
            u16::from_le_bytes([r[NORMAL_AT], r[NORMAL_AT + 1]]) >= NORMAL_TABLE
        };
    }
    !bad
}

/// `true` when every bone transformation names a bone and holds finite values: the word scan
/// of [`scan::any_non_finite`] over whole records (a record's last word, its bone index and
/// padding, is never NaN for a bone index below 256 and zero padding) and one pass over the
/// bone indices.
fn transforms_pass(transforms: &[BoneTransform], bones: u64) -> bool {
    let bytes = zerocopy::IntoBytes::as_bytes(transforms);
    let words = <[zerocopy::byteorder::F32<Le>]>::ref_from_bytes(bytes).unwrap_or_default();
    let indices = transforms.iter().fold(false, |bad, t| {
        bad | (u64::from(t.bone_index.get()) >= bones)
    });
    !indices && !scan::any_non_finite(words)
}

/// `true` when every weight names a vertex below `numverts` and is finite and not negative.
fn weights_pass(weights: &[DeformerWeight], numverts: u64) -> bool {
    let bad = weights.iter().fold(false, |bad, w| {
        let bits = w.weight.get().to_bits();
        // Negative: the sign bit with anything else (−0 is allowed).
        bad | (u64::from(w.index.get()) >= numverts) | non_finite(bits) | (bits > 0x8000_0000)
    });
    !bad
}

impl Mdl7<'_> {
    /// Reports, as one [`WarningKind::NonOrthonormal`] entry counting them, the bone
    /// transformations of every group's frames whose rotation part scales or shears
    /// ([`is_rotation`](crate::pose::is_rotation)); the rotation sampling takes from such a
    /// matrix is its own.
    ///
    /// Validation ([`Parse`]) proves the file safe to read and leaves this out: it is a
    /// judgement on the animation, and it reads every transformation of every frame.
    /// [`Model::diagnostics`](crate::Model::diagnostics) runs it when first called.
    ///
    /// ```
    /// use skelmap_core::{mdl7::Mdl7, Diagnostics, Parse, WarningKind};
    /// # let bytes = skelmap_core::mdl7::Builder::default().write();
    /// let mut diag = Diagnostics::new();
    /// Mdl7::parse(&bytes)?.check_rotations(&mut diag);
    /// assert_eq!(diag.count(WarningKind::NonOrthonormal), 0);
    /// # Ok::<(), skelmap_core::Error>(())
    /// ```
    pub fn check_rotations(&self, diag: &mut Diagnostics) {
        for group in &self.groups {
            check_rotations(&group.frames, group.frames_at, diag);
        }
    }
}

/// Warns about bone transformations that scale or shear, testing every frame's at once, 16 at
/// a time ([`count_non_rotations_of`]).
fn check_rotations(frames: &Frames<'_>, at: u64, diag: &mut Diagnostics) {
    let rows = |t: &BoneTransform| {
        let m = |k: usize| t.m[k].get();
        [
            [m(0), m(1), m(2), 0.0],
            [m(4), m(5), m(6), 0.0],
            [m(8), m(9), m(10), 0.0],
        ]
    };
    // A record whose rotation part repeats the same record of the frame before was tested
    // there (most bones of a walk hold still from frame to frame): the first pass skips it.
    let repeats = |p: &BoneTransform, t: &BoneTransform| p.as_bytes()[..44] == t.as_bytes()[..44];
    let pairs = frames
        .iter()
        .scan(&[][..], |previous: &mut &[BoneTransform], f| {
            let before = *previous;
            *previous = f.transforms();
            Some((before, f.transforms()))
        });
    let changed = pairs.flat_map(|(before, now)| {
        let fresh =
            move |(k, t): &(usize, &BoneTransform)| before.get(*k).is_none_or(|p| !repeats(p, t));
        now.iter().enumerate().filter(fresh).map(|(_, t)| rows(t))
    });
    if count_non_rotations_of(changed).0 == 0 {
        return;
    }
    // Some do not: every record again, to count them and find the first.
    let all = frames.iter().flat_map(|f| f.transforms().iter().map(rows));
    let (skewed, first) = count_non_rotations_of(all);
    let Some(first) = first else {
        return;
    };
    // Find the frame and record of the first, and where it lies.
    let mut offset = at;
    let mut left = first;
    for (f, frame) in frames.iter().enumerate() {
        let head = size_of::<FrameHead>() + frame.vertices().bytes().len();
        let n = frame.transforms().len();
        if left < n {
            let bone = frame
                .transforms()
                .get(left)
                .map_or(0, |t| t.bone_index.get());
            let offset = offset + (head + left * size_of::<BoneTransform>()) as u64;
            diag.warn_n(
                FORMAT,
                WarningKind::NonOrthonormal,
                "bone_transform.m",
                offset,
                skewed,
                || format!("frame {f} scales or shears bone {bone}; its rotation is taken from the matrix"),
            );
            return;
        }
        left -= n;
        offset += (head + size_of_val(frame.transforms())) as u64;
    }
}
