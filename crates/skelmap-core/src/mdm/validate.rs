//! The validation passes: an MDM's header, its chain of surfaces with their vertices,
//! weights, triangles, collapse maps and bone references, and its chain of tags; an MDX's
//! header, frames and bones; and the pair's cross-check, every bone the mesh names present in
//! the skeleton (`docs/formats/mdm.md` § Validation: MDM rules 1–9, MDX rules 1–6, pair rule
//! 1; the module docs list them).

use core::mem::offset_of;

use zerocopy::byteorder::{I32, LittleEndian};

use super::companion;
use super::raw::{
    MDM_MAX_SURFACES, MDM_MAX_TAGS, MDM_MAX_VERTS, MDM_VERSION, MDX_MAX_BONES, MDX_VERSION,
    MdmHeader, MdmSurface, MdmTag, MdmTriangle, MdxBoneInfo, MdxFrame, MdxHeader,
    SHADER_MAX_INDEXES,
};
use super::view::{BoneUse, Mdm, Mdx, MdxFile, Pair, Surface, SurfaceArrays, Tag, frame_stride};
use crate::alias::idp3;
use crate::diag::{Diagnostics, WarningKind};
use crate::error::{Error, Problem, Result};
use crate::format::Format;
use crate::limits::Limits;
use crate::md4;
use crate::name;
use crate::parse::Parse;
use crate::pose::framegroups::FrameGroup;
use crate::read::Reader;
use crate::resolver::Resolver;
use crate::rules::{self, check_finite as finite, record_offset};
use crate::source::Source;
use crate::view::SkinFile;
use crate::view::open::{Companion, CompanionFile, Files, Given, Open};
use crate::view::skin_file::{self, DEFAULT_SKIN};

type Le = LittleEndian;

/// Byte offset of a field at `field` in a structure at `base`.
fn at(base: u64, field: usize) -> u64 {
    base + field as u64
}

/// A count or offset field that must not be negative.
fn non_negative(format: Format, what: &'static str, offset: u64, value: &I32<Le>) -> Result<u32> {
    rules::non_negative(format, what, offset, value.get())
}

/// An offset of a header of `size` bytes that must point past it.
fn after_header(
    format: Format,
    what: &'static str,
    field: u64,
    ofs: u64,
    size: usize,
) -> Result<()> {
    let min = size as u64;
    if ofs < min {
        let problem = Problem::BelowMinimum { value: ofs, min };
        return Err(idp3::invalid(format, what, field, problem));
    }
    Ok(())
}

/// Rule 1 of both files: the one version ET reads.
fn version(format: Format, offset: u64, found: i32, expected: i32) -> Result<()> {
    if found != expected {
        return Err(Error::Unsupported {
            format,
            what: "header.version",
            offset,
            value: found.into(),
            supported: if format == Format::Mdm {
                "MDM files are version 3"
            } else {
                "MDX files are version 2"
            },
        });
    }
    Ok(())
}

// ---- MDM ----

const MDM: Format = Format::Mdm;

/// What the MDM walk carries from one structure to the next.
struct MdmWalk<'a, 'data> {
    reader: Reader<'data>,
    limits: &'a Limits,
    /// Weights of every surface so far (against `Limits::max_total_influences`).
    total_weights: u64,
    /// The end of the furthest structure so far.
    furthest: u64,
    /// The largest bone the file names, where it first names it.
    max_bone: Option<BoneUse>,
    /// The surfaces and tags so far, laid end to end.
    packed: rules::Packed,
}

/// A bone index the MDM names at `offset` (as `what`): not negative, and kept in `max_bone`
/// when it is the largest so far, for the pair's check against the MDX.
fn note_bone(
    max_bone: &mut Option<BoneUse>,
    what: &'static str,
    offset: u64,
    value: &I32<Le>,
) -> Result<()> {
    let bone = non_negative(MDM, what, offset, value)?;
    if max_bone.is_none_or(|m| bone > m.bone) {
        *max_bone = Some(BoneUse { bone, what, offset });
    }
    Ok(())
}

impl<'data> MdmWalk<'_, 'data> {
    /// A bone index the MDM names at `offset` (as `what`): not negative, and remembered
    /// when it is the largest so far, for the pair's check against the MDX.
    fn bone(&mut self, what: &'static str, offset: u64, value: &I32<Le>) -> Result<()> {
        note_bone(&mut self.max_bone, what, offset, value)
    }

    /// An array of `count` `i32` at `ofs` (read from `field`) from the structure at `base`.
    fn ints(
        &mut self,
        what: (&'static str, &'static str),
        (base, field, ofs): (u64, u64, &I32<Le>),
        count: u32,
    ) -> Result<(&'data [I32<Le>], u64)> {
        let start = base + u64::from(non_negative(MDM, what.0, field, ofs)?);
        let ints = self
            .reader
            .slice_at::<I32<Le>>(what.1, start, count.into())?;
        self.furthest = self.furthest.max(rules::end(start, ints));
        Ok((ints, start))
    }
}

/// Validates `data` as an MDM under `limits`, recording findings in `diag`: the header, the
/// surfaces in chain order, then the tags in chain order. The bones it names are checked
/// against an MDX by [`Pair::new`].
impl<'data> Parse<'data> for Mdm<'data> {
    const FORMAT: Format = MDM;

    fn parse_with(
        data: &'data [u8],
        limits: &Limits,
        diag: &mut Diagnostics,
    ) -> Result<Mdm<'data>> {
        rules::begin(MDM, data, limits)?;
        let reader = Reader::new(data, MDM);
        let header: &MdmHeader = reader.ref_at("header", 0)?;
        let field = |f: usize| at(0, f);
        version(
            MDM,
            field(offset_of!(MdmHeader, version)),
            header.version.get(),
            MDM_VERSION,
        )?;
        let end_at = field(offset_of!(MdmHeader, ofs_end));
        // Rule 2, checked first as ET copies `ofsEnd` bytes.
        let end = rules::declared_end_first(reader, end_at, header.ofs_end.get())?;
        rules::check_name(
            MDM,
            diag,
            "header.name",
            field(offset_of!(MdmHeader, name)),
            &header.name,
        );
        // Rule 3: the counts and the level-of-detail factors.
        finite(
            MDM,
            "header.lod_scale",
            field(offset_of!(MdmHeader, lod_scale)),
            core::slice::from_ref(&header.lod_scale),
        )?;
        finite(
            MDM,
            "header.lod_bias",
            field(offset_of!(MdmHeader, lod_bias)),
            core::slice::from_ref(&header.lod_bias),
        )?;
        let surfaces_at = field(offset_of!(MdmHeader, num_surfaces));
        let num_surfaces = non_negative(
            MDM,
            "header.num_surfaces",
            surfaces_at,
            &header.num_surfaces,
        )?;
        rules::check_limit(
            MDM,
            "header.num_surfaces",
            surfaces_at,
            num_surfaces,
            limits.max_meshes,
        )?;
        rules::engine_limit(
            diag,
            (MDM, "ET"),
            "header.num_surfaces",
            surfaces_at,
            num_surfaces,
            MDM_MAX_SURFACES,
        );
        let tags_at = field(offset_of!(MdmHeader, num_tags));
        let num_tags = non_negative(MDM, "header.num_tags", tags_at, &header.num_tags)?;
        rules::check_limit(MDM, "header.num_tags", tags_at, num_tags, limits.max_bones)?;
        rules::engine_limit(
            diag,
            (MDM, "ET"),
            "header.num_tags",
            tags_at,
            num_tags,
            MDM_MAX_TAGS,
        );
        let mut walk = MdmWalk {
            reader,
            limits,
            total_weights: 0,
            furthest: size_of::<MdmHeader>() as u64,
            max_bone: None,
            packed: rules::Packed::new(MDM, reader.len()),
        };
        // Rule 4: the surfaces' chain.
        let first_at = field(offset_of!(MdmHeader, ofs_surfaces));
        let mut base = u64::from(non_negative(
            MDM,
            "header.ofs_surfaces",
            first_at,
            &header.ofs_surfaces,
        )?);
        if num_surfaces > 0 {
            after_header(
                MDM,
                "header.ofs_surfaces",
                first_at,
                base,
                size_of::<MdmHeader>(),
            )?;
        }
        let mut surfaces = Vec::with_capacity(num_surfaces as usize);
        for _ in 0..num_surfaces {
            let (surface, next) = self::surface(&mut walk, base, diag)?;
            surfaces.push(surface);
            base += u64::from(next);
        }
        if surfaces.is_empty() {
            diag.warn(
                MDM,
                WarningKind::NoGroups,
                "header.num_surfaces",
                surfaces_at,
                || "no surface: a model of tags only".into(),
            );
        }
        // Rule 9: the tags' chain.
        let first_at = field(offset_of!(MdmHeader, ofs_tags));
        let mut base = u64::from(non_negative(
            MDM,
            "header.ofs_tags",
            first_at,
            &header.ofs_tags,
        )?);
        if num_tags > 0 {
            after_header(
                MDM,
                "header.ofs_tags",
                first_at,
                base,
                size_of::<MdmHeader>(),
            )?;
        }
        let mut tags = Vec::with_capacity(num_tags as usize);
        for _ in 0..num_tags {
            let (tag, next) = self::tag(&mut walk, base)?;
            tags.push(tag);
            base += u64::from(next);
        }
        let range = (end, reader.len(), walk.furthest);
        rules::check_declared_end(diag, MDM, ("header.ofs_end", end_at), range, "structure")?;
        Ok(Mdm {
            header,
            surfaces,
            tags,
            max_bone: walk.max_bone,
        })
    }
}

/// Rules 4–8 for the surface whose header is at `base`. Returns it and its `ofs_end`.
fn surface<'data>(
    walk: &mut MdmWalk<'_, 'data>,
    base: u64,
    diag: &mut Diagnostics,
) -> Result<(Surface<'data>, u32)> {
    let reader = walk.reader;
    let header: &'data MdmSurface = reader.ref_at("surface", base)?;
    walk.furthest = walk.furthest.max(base + size_of::<MdmSurface>() as u64);
    let field = |f: usize| at(base, f);
    let end = non_negative(
        MDM,
        "surface.ofs_end",
        field(offset_of!(MdmSurface, ofs_end)),
        &header.ofs_end,
    )?;
    rules::check_name(
        MDM,
        diag,
        "surface.name",
        field(offset_of!(MdmSurface, name)),
        &header.name,
    );
    // A shader path cut to its 64 bytes, as for MD3: the whole field is the name.
    rules::check_name(
        MDM,
        diag,
        "surface.shader",
        field(offset_of!(MdmSurface, shader)),
        &header.shader,
    );
    // Rule 5: the counts.
    let verts_at = field(offset_of!(MdmSurface, num_verts));
    let verts = non_negative(MDM, "surface.num_verts", verts_at, &header.num_verts)?;
    rules::check_limit(
        MDM,
        "surface.num_verts",
        verts_at,
        verts,
        walk.limits.max_vertices_per_mesh,
    )?;
    let triangles_at = field(offset_of!(MdmSurface, num_triangles));
    let num_triangles = non_negative(
        MDM,
        "surface.num_triangles",
        triangles_at,
        &header.num_triangles,
    )?;
    rules::check_limit(
        MDM,
        "surface.num_triangles",
        triangles_at,
        num_triangles,
        walk.limits.max_triangles_per_mesh,
    )?;
    let refs_at = field(offset_of!(MdmSurface, num_bone_references));
    let num_refs = non_negative(
        MDM,
        "surface.num_bone_references",
        refs_at,
        &header.num_bone_references,
    )?;
    rules::check_limit(
        MDM,
        "surface.num_bone_references",
        refs_at,
        num_refs,
        walk.limits.max_bones,
    )?;
    rules::engine_limit(
        diag,
        (MDM, "ET"),
        "surface.num_verts",
        verts_at,
        verts,
        MDM_MAX_VERTS,
    );
    rules::engine_limit(
        diag,
        (MDM, "ET"),
        "surface.num_triangles",
        triangles_at,
        num_triangles,
        SHADER_MAX_INDEXES / 3,
    );
    // Rule 6: the vertices and their weights.
    let verts_field = field(offset_of!(MdmSurface, ofs_verts));
    let verts_start = base
        + u64::from(non_negative(
            MDM,
            "surface.ofs_verts",
            verts_field,
            &header.ofs_verts,
        )?);
    let max_bone = &mut walk.max_bone;
    let verts_end = md4::validate::vertices(
        (reader, walk.limits),
        &mut walk.total_weights,
        (verts_start, verts),
        diag,
        // Any index not negative passes; the pair checks the largest against the MDX.
        (i32::MAX.cast_unsigned() + 1, |what, offset, value| {
            note_bone(max_bone, what, offset, value)
        }),
    )?;
    walk.furthest = walk.furthest.max(verts_end);
    // Rule 7: the triangles.
    let tri_field = field(offset_of!(MdmSurface, ofs_triangles));
    let tri_start = base
        + u64::from(non_negative(
            MDM,
            "surface.ofs_triangles",
            tri_field,
            &header.ofs_triangles,
        )?);
    let triangles = reader.slice_at::<MdmTriangle>("triangles", tri_start, num_triangles.into())?;
    idp3::check_triangles(MDM, triangles, tri_start, verts)?;
    walk.furthest = walk.furthest.max(rules::end(tri_start, triangles));
    // Rule 8: the collapse map, each entry a vertex of the surface.
    let (collapse_map, map_start) = walk.ints(
        ("surface.ofs_collapse_map", "collapse map"),
        (
            base,
            field(offset_of!(MdmSurface, ofs_collapse_map)),
            &header.ofs_collapse_map,
        ),
        verts,
    )?;
    let scanned = crate::scan::le_words_below(zerocopy::IntoBytes::as_bytes(collapse_map), verts);
    for (i, entry) in collapse_map.iter().enumerate() {
        if scanned || u32::try_from(entry.get()).is_ok_and(|v| v < verts) {
            continue;
        }
        let problem = Problem::Index {
            index: entry.get().into(),
            len: verts.into(),
        };
        return Err(idp3::invalid(
            MDM,
            "collapse_map",
            record_offset::<I32<Le>>(map_start, i),
            problem,
        ));
    }
    // Rule 8: the bone references, each not negative (against the MDX: the pair's rule).
    let (bone_references, refs_start) = walk.ints(
        ("surface.ofs_bone_references", "bone references"),
        (
            base,
            field(offset_of!(MdmSurface, ofs_bone_references)),
            &header.ofs_bone_references,
        ),
        num_refs,
    )?;
    for (i, bone) in bone_references.iter().enumerate() {
        walk.bone(
            "surface.bone_references",
            record_offset::<I32<Le>>(refs_start, i),
            bone,
        )?;
    }
    let tables = size_of_val(triangles) + size_of_val(collapse_map) + size_of_val(bone_references);
    let bytes = size_of::<MdmSurface>() as u64 + (verts_end - verts_start) + tables as u64;
    walk.packed.add("surface", base, bytes)?;
    let vertices = reader
        .get_bytes(verts_start, verts_end - verts_start)
        .unwrap_or_default();
    let arrays = SurfaceArrays {
        collapse_map,
        bone_references,
    };
    Ok((
        Surface::new((header, base), (vertices, verts), triangles, arrays),
        end,
    ))
}

/// Rule 9 for the tag at `base`: inside the file, name terminated, axes and offset finite,
/// bone and bone references not negative and inside the file. Returns it and its `ofs_end`.
fn tag<'data>(walk: &mut MdmWalk<'_, 'data>, base: u64) -> Result<(Tag<'data>, u32)> {
    let raw: &'data MdmTag = walk.reader.ref_at("tag", base)?;
    walk.furthest = walk.furthest.max(base + size_of::<MdmTag>() as u64);
    let field = |f: usize| at(base, f);
    let end = non_negative(
        MDM,
        "tag.ofs_end",
        field(offset_of!(MdmTag, ofs_end)),
        &raw.ofs_end,
    )?;
    idp3::terminated(MDM, "tag.name", field(offset_of!(MdmTag, name)), &raw.name)?;
    finite(
        MDM,
        "tag.axis",
        field(offset_of!(MdmTag, axis)),
        raw.axis.as_flattened(),
    )?;
    finite(
        MDM,
        "tag.offset",
        field(offset_of!(MdmTag, offset)),
        &raw.offset,
    )?;
    walk.bone(
        "tag.bone_index",
        field(offset_of!(MdmTag, bone_index)),
        &raw.bone_index,
    )?;
    let refs_at = field(offset_of!(MdmTag, num_bone_references));
    let num_refs = non_negative(
        MDM,
        "tag.num_bone_references",
        refs_at,
        &raw.num_bone_references,
    )?;
    rules::check_limit(
        MDM,
        "tag.num_bone_references",
        refs_at,
        num_refs,
        walk.limits.max_bones,
    )?;
    let (bone_references, refs_start) = walk.ints(
        ("tag.ofs_bone_references", "tag bone references"),
        (
            base,
            field(offset_of!(MdmTag, ofs_bone_references)),
            &raw.ofs_bone_references,
        ),
        num_refs,
    )?;
    for (i, bone) in bone_references.iter().enumerate() {
        walk.bone(
            "tag.bone_references",
            record_offset::<I32<Le>>(refs_start, i),
            bone,
        )?;
    }
    let bytes = size_of::<MdmTag>() + size_of_val(bone_references);
    walk.packed.add("tag", base, bytes as u64)?;
    Ok((
        Tag {
            raw,
            offset: base,
            bone_references,
        },
        end,
    ))
}

// ---- MDX ----

const MDX: Format = Format::Mdx;

/// Validates `data` as an MDX under `limits`, recording findings in `diag`: the header, the
/// frames, the bones, the torso parent.
impl<'data> Parse<'data> for Mdx<'data> {
    const FORMAT: Format = MDX;

    fn parse_with(
        data: &'data [u8],
        limits: &Limits,
        diag: &mut Diagnostics,
    ) -> Result<Mdx<'data>> {
        rules::begin(MDX, data, limits)?;
        let reader = Reader::new(data, MDX);
        let header: &MdxHeader = reader.ref_at("header", 0)?;
        let field = |f: usize| at(0, f);
        version(
            MDX,
            field(offset_of!(MdxHeader, version)),
            header.version.get(),
            MDX_VERSION,
        )?;
        let end_at = field(offset_of!(MdxHeader, ofs_end));
        // Rule 2, as the MDM's.
        let end = rules::declared_end_first(reader, end_at, header.ofs_end.get())?;
        rules::check_name(
            MDX,
            diag,
            "header.name",
            field(offset_of!(MdxHeader, name)),
            &header.name,
        );
        // Rule 3: the counts.
        let frames_at = field(offset_of!(MdxHeader, num_frames));
        let num_frames = non_negative(MDX, "header.num_frames", frames_at, &header.num_frames)?;
        rules::check_count(
            MDX,
            "header.num_frames",
            frames_at,
            num_frames,
            limits.max_frames,
        )?;
        let bones_at = field(offset_of!(MdxHeader, num_bones));
        let num_bones = non_negative(MDX, "header.num_bones", bones_at, &header.num_bones)?;
        rules::check_count(
            MDX,
            "header.num_bones",
            bones_at,
            num_bones,
            limits.max_bones,
        )?;
        rules::engine_limit(
            diag,
            (MDX, "ET"),
            "header.num_bones",
            bones_at,
            num_bones,
            MDX_MAX_BONES,
        );
        // Rule 4: the frames.
        let ofs_at = field(offset_of!(MdxHeader, ofs_frames));
        let start = u64::from(non_negative(
            MDX,
            "header.ofs_frames",
            ofs_at,
            &header.ofs_frames,
        )?);
        after_header(
            MDX,
            "header.ofs_frames",
            ofs_at,
            start,
            size_of::<MdxHeader>(),
        )?;
        let stride = frame_stride(num_bones as usize) as u64;
        let bytes = u64::from(num_frames) * stride;
        let Some(frames) = reader.get_bytes(start, bytes) else {
            return Err(reader.truncated("frames", start, bytes));
        };
        for f in 0..u64::from(num_frames) {
            let base = start + f * stride;
            let frame: &MdxFrame = reader.ref_at("frame", base)?;
            let field = |x: usize| at(base, x);
            finite(
                MDX,
                "frame.bounds",
                field(offset_of!(MdxFrame, bounds)),
                frame.bounds.as_flattened(),
            )?;
            finite(
                MDX,
                "frame.local_origin",
                field(offset_of!(MdxFrame, local_origin)),
                &frame.local_origin,
            )?;
            finite(
                MDX,
                "frame.radius",
                field(offset_of!(MdxFrame, radius)),
                core::slice::from_ref(&frame.radius),
            )?;
            finite(
                MDX,
                "frame.parent_offset",
                field(offset_of!(MdxFrame, parent_offset)),
                &frame.parent_offset,
            )?;
        }
        // Rule 5: the bones.
        let ofs_at = field(offset_of!(MdxHeader, ofs_bones));
        let bones_start = u64::from(non_negative(
            MDX,
            "header.ofs_bones",
            ofs_at,
            &header.ofs_bones,
        )?);
        after_header(
            MDX,
            "header.ofs_bones",
            ofs_at,
            bones_start,
            size_of::<MdxHeader>(),
        )?;
        let bones = reader.slice_at::<MdxBoneInfo>("bones", bones_start, num_bones.into())?;
        for (i, bone) in bones.iter().enumerate() {
            let base = record_offset::<MdxBoneInfo>(bones_start, i);
            let field = |x: usize| at(base, x);
            idp3::terminated(
                MDX,
                "bone.name",
                field(offset_of!(MdxBoneInfo, name)),
                &bone.name,
            )?;
            rules::check_parent(
                MDX,
                i,
                bone.parent.get(),
                field(offset_of!(MdxBoneInfo, parent)),
            )?;
            finite(
                MDX,
                "bone.torso_weight",
                field(offset_of!(MdxBoneInfo, torso_weight)),
                core::slice::from_ref(&bone.torso_weight),
            )?;
            finite(
                MDX,
                "bone.parent_dist",
                field(offset_of!(MdxBoneInfo, parent_dist)),
                core::slice::from_ref(&bone.parent_dist),
            )?;
        }
        // Rule 6: the torso parent, a bone or -1.
        let torso_at = field(offset_of!(MdxHeader, torso_parent));
        let torso = header.torso_parent.get();
        if torso < -1 || i64::from(torso) >= i64::from(num_bones) {
            let problem = Problem::Index {
                index: torso.into(),
                len: num_bones.into(),
            };
            return Err(idp3::invalid(MDX, "header.torso_parent", torso_at, problem));
        }
        let furthest = (start + bytes).max(rules::end(bones_start, bones));
        let range = (end, reader.len(), furthest);
        rules::check_declared_end(diag, MDX, ("header.ofs_end", end_at), range, "structure")?;
        Ok(Mdx {
            header,
            frames,
            num_frames: num_frames as usize,
            bones,
            joined: None,
        })
    }
}

// ---- the pair ----

impl<'data> Pair<'data> {
    /// Pairs a validated mesh with a validated skeleton: pair rule 1, every bone the mesh
    /// names (weights, surfaces' and tags' bone references, tags) is one of the skeleton's.
    ///
    /// # Errors
    ///
    /// [`Error::Invalid`] naming the MDM, the field and offset of the largest bone index it
    /// names (the first place it names it) and [`Problem::Index`] with the MDX's bone count.
    pub fn new(mdm: Mdm<'data>, mdx: Mdx<'data>) -> Result<Pair<'data>> {
        if let Some(used) = mdm.max_bone
            && used.bone as usize >= mdx.num_bones()
        {
            let problem = Problem::Index {
                index: used.bone.into(),
                len: mdx.num_bones() as u64,
            };
            return Err(idp3::invalid(MDM, used.what, used.offset, problem));
        }
        Ok(Pair {
            mdm,
            mdx,
            more: Vec::new(),
            clips: None,
            skin: None,
        })
    }
}

/// The path of the MDX beside the MDM at `path`: the same stem, `.mdx`.
pub(super) fn skeleton_path(path: &str) -> String {
    let stem = path
        .rsplit_once('.')
        .filter(|(_, ext)| !ext.contains('/'))
        .map_or(path, |(stem, _)| stem);
    format!("{stem}.mdx")
}

/// The MDX the MDM at `path` opens with (the one given, the one of its stem beside it, or the
/// one its character file's animation group names, with the group and the files it
/// includes), the character file that names the mesh, if one does, and the skin it names.
fn skeleton_files<'data, R: Resolver<'data> + ?Sized>(
    resolver: &R,
    path: &str,
    given: Option<(String, Source<'data>)>,
) -> Result<(Vec<CompanionFile<'data>>, Option<String>)> {
    let character = companion::find_character(resolver, path)?;
    let mut files = Vec::new();
    let skin = character.as_ref().and_then(|c| c.skin.clone());
    let mdx_path = skeleton_path(path);
    if let Some((mdx_path, mdx)) = given {
        files.push((Companion::Skeleton, mdx_path, mdx));
    } else if let Some(mdx) = resolver.load(&mdx_path)? {
        let list = companion::clip_list_path(&mdx_path);
        files.push((Companion::Skeleton, mdx_path, mdx));
        files.extend(
            resolver
                .load(&list)?
                .map(|t| (Companion::ClipList, list, t)),
        );
    } else if let Some(character) = &character {
        files.extend(group_files(resolver, character)?);
    } else {
        return Err(Error::Resolve {
            path: mdx_path,
            reason: "an MDM mesh needs its MDX skeleton (the .mdx of its stem beside it, one \
                     given, or the first animfile of the animation group a character file \
                     under the game's characters/ folder names for it)",
        });
    }
    if let Some(character) = character {
        // After the skeleton: `open` takes the first of that kind.
        files.insert(1, (Companion::Character, character.path, character.text));
    }
    Ok((files, skin))
}

/// The MDX `character`'s animation group names first, then the group's other animation
/// files that exist (the others are reported at open), then the files the group's blocks
/// include, then the group.
fn group_files<'data, R: Resolver<'data> + ?Sized>(
    resolver: &R,
    character: &companion::Character<'data>,
) -> Result<Vec<CompanionFile<'data>>> {
    let group_path = &character.group;
    let group_text = resolver.load(group_path)?.ok_or_else(|| Error::Resolve {
        path: group_path.clone(),
        reason: "the animation group a character file names for the MDM is missing",
    })?;
    let group = companion::read_group(group_path, group_text.bytes())?;
    let first = &group.first;
    let mdx = resolver.load(&first.mdx)?.ok_or_else(|| Error::Resolve {
        path: format!(
            "{} (the first animfile of {group_path}, the animation group {} gives the mesh)",
            first.mdx, character.path
        ),
        reason: "the MDX skeleton is missing",
    })?;
    let mut files = vec![(Companion::Skeleton, first.mdx.clone(), mdx)];
    for file in &group.more {
        if let Some(mdx) = resolver.load(&file.mdx)? {
            files.push((Companion::AnimationFile, file.mdx.clone(), mdx));
        }
    }
    for include in companion::includes(&group) {
        if let Some(text) = resolver.load(include)? {
            files.push((Companion::AnimationGroup, include.to_string(), text));
        }
    }
    // The group last of its kind: `open` finds it there.
    files.push((Companion::AnimationGroup, group_path.clone(), group_text));
    Ok(files)
}

/// An MDM opens with its MDX: the one given ([`OpenOptions::skeleton`]), else the `.mdx` of the
/// same stem beside it, else the one Enemy Territory draws it with: the first animation file
/// of the animation group that a character file under `characters/` gives the mesh (the
/// group and the files it includes then name the model's clips). Its skin is
/// `<stem>_<name>.skin` beside it, `name` the one asked for ([`OpenOptions::skin`], which must
/// exist), else the `skin` of a character file naming the mesh, else `default`.
///
/// [`OpenOptions::skeleton`]: crate::model::OpenOptions::skeleton
/// [`OpenOptions::skin`]: crate::model::OpenOptions::skin
impl<'a> Open<'a> for Pair<'a> {
    const FRAME_GROUPS: bool = false;

    fn companions<'data, R: Resolver<'data> + ?Sized>(
        resolver: &R,
        path: &str,
        _: &[u8],
        given: Given<'data>,
    ) -> Result<Vec<CompanionFile<'data>>> {
        let (mut files, character_skin) = skeleton_files(resolver, path, given.skeleton)?;
        let fallback = character_skin.as_deref().unwrap_or(DEFAULT_SKIN);
        if let Some((skin, text)) =
            skin_file::find(resolver, path, given.skin.as_deref(), fallback)?
        {
            files.push((Companion::Skin, skin, text));
        }
        Ok(files)
    }

    /// The nearest folder above the mesh that holds a `characters/` folder (ET's base
    /// directory, `etmain/` or a mod's), looking at most 16 folders up.
    fn base_dir(path: &std::path::Path) -> Option<std::path::PathBuf> {
        companion::base_dir(path)
    }

    fn open(files: &'a Files<'_>, limits: &Limits, diag: &mut Diagnostics) -> Result<Self> {
        let mdm = Mdm::parse_with(files.main.bytes(), limits, diag)?;
        let mdx = files
            .companion(Companion::Skeleton)
            .next()
            .ok_or_else(|| Error::Resolve {
                path: String::new(),
                reason: "an MDM mesh needs its MDX skeleton",
            })?;
        let mdx = Mdx::parse_with(mdx.bytes(), limits, diag)?;
        let mut pair = Pair::new(mdm, mdx)?;
        if !group_animations(files, &mut pair, limits, diag)? {
            pair.clips = listed_clips(files, pair.mdx.num_frames, diag);
        }
        for (path, text) in files
            .companions
            .iter()
            .filter(|(kind, _, _)| *kind == Companion::Skin)
            .map(|(_, path, text)| (path, text))
        {
            // A skin that does not parse costs only its shaders, as an MD3's.
            match SkinFile::parse(text.bytes(), Format::Mdm) {
                Ok(skin) => pair.skin = Some(skin),
                Err(e) => {
                    files.leave_out(path);
                    diag.warn(
                        Format::Mdm,
                        WarningKind::CompanionIgnored,
                        ".skin",
                        e.offset().unwrap_or(0),
                        || format!("{path}: {e}; ignored"),
                    );
                }
            }
        }
        Ok(pair)
    }
}

/// An MDX opens with the `.aninc` file of its stem beside it, when there is one, for its
/// clips; else with the block of the first animation group (a character file under the game's
/// `characters/` names it) whose animation file it is, as ET plays it.
impl<'a> Open<'a> for MdxFile<'a> {
    const FRAME_GROUPS: bool = false;

    fn companions<'data, R: Resolver<'data> + ?Sized>(
        resolver: &R,
        path: &str,
        _: &[u8],
        _: Given<'data>,
    ) -> Result<Vec<CompanionFile<'data>>> {
        let list = companion::clip_list_path(path);
        if let Some(text) = resolver.load(&list)? {
            return Ok(vec![(Companion::ClipList, list, text)]);
        }
        let Some(found) = companion::find_group_naming(resolver, path)? else {
            return Ok(Vec::new());
        };
        let (group_path, group_text) = found.group;
        let mut files = vec![(Companion::Character, found.character.0, found.character.1)];
        // The files the block of this MDX includes, then the group, last of its kind.
        for include in found.includes {
            if let Some(text) = resolver.load(&include)? {
                files.push((Companion::AnimationGroup, include, text));
            }
        }
        files.push((Companion::AnimationGroup, group_path, group_text));
        Ok(files)
    }

    /// The nearest folder above the MDX that holds a `characters/` folder, as for an MDM.
    fn base_dir(path: &std::path::Path) -> Option<std::path::PathBuf> {
        companion::base_dir(path)
    }

    fn open(files: &'a Files<'_>, limits: &Limits, diag: &mut Diagnostics) -> Result<Self> {
        let mdx = Mdx::parse_with(files.main.bytes(), limits, diag)?;
        let clips = listed_clips(files, mdx.num_frames, diag)
            .or_else(|| naming_group_clips(files, mdx.num_frames, diag));
        Ok(MdxFile { mdx, clips })
    }
}

/// The clips of the block of the animation group an MDX opened alone was found in (the last
/// [`Companion::AnimationGroup`] of `files`, the others the files the block includes),
/// checked against its `num_frames`; `None` without such a group. A clip that is not one, or
/// runs past the frames, is left out with a warning.
fn naming_group_clips(
    files: &Files<'_>,
    num_frames: usize,
    diag: &mut Diagnostics,
) -> Option<Vec<FrameGroup>> {
    let (_, group_path, group_text) = files
        .companions
        .iter()
        .rfind(|(kind, _, _)| *kind == Companion::AnimationGroup)?;
    let group = companion::read_group(group_path, group_text.bytes()).ok()?;
    let block = companion::file_naming(&group, &files.path)?;
    Some(companion::clips(
        &block.items,
        &|wanted| included(files, wanted),
        (num_frames, Some(&block.mdx)),
        &mut |why| {
            diag.warn(
                Format::Mdx,
                WarningKind::ClipOutsideFrames,
                "animation group",
                0,
                || why,
            );
        },
    ))
}

/// The items of the included file `wanted` among `files`' animation-group companions, if
/// it was read and is one.
fn included(files: &Files<'_>, wanted: &str) -> Option<Vec<companion::Item>> {
    files
        .companions
        .iter()
        .find(|(kind, path, _)| *kind == Companion::AnimationGroup && path == wanted)
        .and_then(|(_, path, text)| companion::read_included(path, text.bytes()).ok())
}

/// The clips of the `.aninc` file opened with an MDX ([`Companion::ClipList`]), checked
/// against its `num_frames`; `None` without one. A file over the size bounds costs its clips
/// (a [`WarningKind::CompanionIgnored`]); a clip that is not one, or runs past the frames, is
/// left out with a warning.
fn listed_clips(
    files: &Files<'_>,
    num_frames: usize,
    diag: &mut Diagnostics,
) -> Option<Vec<FrameGroup>> {
    let (_, path, text) = files
        .companions
        .iter()
        .find(|(kind, _, _)| *kind == Companion::ClipList)?;
    let items = match companion::read_included(path, text.bytes()) {
        Ok(items) => items,
        Err(e) => {
            files.leave_out(path);
            diag.warn(
                Format::Mdx,
                WarningKind::CompanionIgnored,
                "clip list",
                e.offset().unwrap_or(0),
                || format!("{path}: {e}; ignored"),
            );
            return None;
        }
    };
    Some(companion::clips(
        &items,
        &|_| None,
        (num_frames, None),
        &mut |why| {
            diag.warn(
                Format::Mdx,
                WarningKind::ClipOutsideFrames,
                "clip list",
                0,
                || why,
            );
        },
    ))
}

/// The animation group an MDM was found through (the last [`Companion::AnimationGroup`] of
/// `files`, the others the files it includes): its other animation files joined to `pair`'s
/// skeleton where they [fit](fits) it, and the clips of every joined file's block, each on
/// its file's frames; `false` without a group. A file that is missing, malformed, of another
/// skeleton or past the frame limit is left out with its clips, and where the group could not
/// be read to its end the rest is (one [`WarningKind::CompanionIgnored`] names them all); a
/// clip that is not one, or runs past its file's frames, is left out with a warning.
fn group_animations<'a>(
    files: &'a Files<'_>,
    pair: &mut Pair<'a>,
    limits: &Limits,
    diag: &mut Diagnostics,
) -> Result<bool> {
    let mut groups = files
        .companions
        .iter()
        .filter(|(kind, _, _)| *kind == Companion::AnimationGroup);
    let Some((_, group_path, group_text)) = groups.next_back() else {
        return Ok(false);
    };
    let group = companion::read_group(group_path, group_text.bytes())?;
    // The files `group_files` found, in the group's order.
    let mut found = files
        .companions
        .iter()
        .filter(|(kind, _, _)| *kind == Companion::AnimationFile)
        .peekable();
    let (mut blocks, mut more, mut left_out) = (vec![&group.first], Vec::new(), Vec::new());
    let mut frames = pair.mdx.num_frames as u64;
    for file in &group.more {
        let Some((_, _, bytes)) = found.next_if(|(_, path, _)| *path == file.mdx) else {
            left_out.push(format!("{} is missing", file.mdx));
            continue;
        };
        let mdx = match Mdx::parse_with(bytes.bytes(), limits, diag) {
            Ok(mdx) => mdx,
            Err(e) => {
                left_out.push(format!("{} does not open ({e})", file.mdx));
                continue;
            }
        };
        if let Err(why) = fits(&pair.mdx, &mdx) {
            left_out.push(format!("{} {why}", file.mdx));
            continue;
        }
        frames += mdx.num_frames as u64;
        if frames > u64::from(limits.max_frames) {
            left_out.push(format!(
                "{} would take the frames past the limit of {}, and the files after it are \
                 not read",
                file.mdx, limits.max_frames
            ));
            break;
        }
        blocks.push(file);
        more.push(mdx);
    }
    // The animation files opened but not joined (malformed, of another skeleton, past the
    // frame limit or after it) are left out with their clips.
    for (kind, path, _) in &files.companions {
        if *kind == Companion::AnimationFile && !blocks.iter().any(|b| b.mdx == *path) {
            files.leave_out(path);
        }
    }
    // One warning for the group: a diagnostic keeps the first detail of each kind.
    let mut detail = Vec::new();
    if !left_out.is_empty() {
        detail.push(format!(
            "animation files left out with their clips: {}",
            left_out.join("; ")
        ));
    }
    detail.extend(group.stopped.clone());
    if !detail.is_empty() {
        diag.warn(
            Format::Mdm,
            WarningKind::CompanionIgnored,
            "animation group",
            0,
            || format!("{group_path}: {}", detail.join("; ")),
        );
    }
    Mdx::join(&mut pair.mdx, &mut more);
    pair.more = more;
    let included = |wanted: &str| included(files, wanted);
    let mut clips = Vec::new();
    for (block, mdx) in blocks.into_iter().zip(pair.animation_files()) {
        let own = mdx.own_frames();
        // Within `limits.max_frames`, a `u32`.
        let start = own.start as u32;
        let frames = (own.len(), Some(block.mdx.as_str()));
        let found = companion::clips(&block.items, &included, frames, &mut |why| {
            diag.warn(
                Format::Mdm,
                WarningKind::ClipOutsideFrames,
                "animation group",
                0,
                || why,
            );
        });
        clips.extend(found.into_iter().map(|clip| FrameGroup {
            first: clip.first + start,
            ..clip
        }));
    }
    pair.clips = Some(clips);
    Ok(true)
}

/// Whether `other`, an animation file of a group after `skeleton`'s, has its bones: as many,
/// each of the same name, parent and torso weight, about the same torso parent; otherwise
/// what differs. A bone's distance from its parent may differ: each file's frames are placed
/// with its own ([`Pair::animation_file`]).
fn fits(skeleton: &Mdx<'_>, other: &Mdx<'_>) -> core::result::Result<(), String> {
    if other.num_bones() != skeleton.num_bones() {
        return Err(format!(
            "has {} bones where the skeleton has {}",
            other.num_bones(),
            skeleton.num_bones()
        ));
    }
    if other.torso_parent() != skeleton.torso_parent() {
        return Err("turns the torso about another bone than the skeleton".to_string());
    }
    for (k, (a, b)) in skeleton.bones.iter().zip(other.bones).enumerate() {
        let what = if name::trim_nul(&a.name) != name::trim_nul(&b.name) {
            "name"
        } else if a.parent.get() != b.parent.get() {
            "parent"
        } else if a.torso_weight.get().to_bits() != b.torso_weight.get().to_bits() {
            "torso weight"
        } else {
            continue;
        };
        return Err(format!(
            "gives bone {k} ({}) another {what} than the skeleton",
            String::from_utf8_lossy(name::trim_nul(&a.name))
        ));
    }
    Ok(())
}
