//! The SKM and SKP validation passes (`docs/formats/skm.md` § Validation), and the pairing of an SKM with its
//! skeleton and levels of detail.

use core::mem::offset_of;

use zerocopy::LittleEndian;

use super::raw::{
    self, SKM_MAX_LODS, SkmHeader, SkmMesh, SkpBone, SkpBonePose, SkpFrame, SkpHeader,
};
use super::view::{Pair, Skm, Skp};
use crate::diag::{Diagnostics, WarningKind};
use crate::error::{Error, Problem, Result};
use crate::floatbits::{Masks, flat, raw as raw_bits};
use crate::format::Format;
use crate::limits::Limits;
use crate::parse::Parse;
use crate::read::Reader;
use crate::resolver::Resolver;
use crate::rules::{self, Layout, MeshFields, MeshPass, end, record_offset};
use crate::view::open::{Companion, CompanionFile, Files, Given, Open};

const SKM: Format = Format::Skm;
const SKP: Format = Format::Skp;

/// How far a quaternion's squared length may stray from 1 before it is reported.
pub const QUAT_LENGTH_TOLERANCE: f32 = 0.01;

/// The header words an SKM and an SKP share, at the same offsets in both.
pub(crate) struct SharedHeader {
    /// `type_` (offset 4).
    type_: u32,
    /// `filesize` (offset 8).
    filesize: u32,
    /// `num_bones` (offset 12).
    num_bones: u32,
}

const _: () = {
    use core::mem::offset_of;
    use raw::{SkmHeader, SkpHeader};
    assert!(offset_of!(SkmHeader, type_) == offset_of!(SkpHeader, type_));
    assert!(offset_of!(SkmHeader, filesize) == offset_of!(SkpHeader, filesize));
    assert!(offset_of!(SkmHeader, num_bones) == offset_of!(SkpHeader, num_bones));
};

/// Checks what an SKM and an SKP header share: type 2, the declared file size (returning
/// `data` cut to it) and `1 ≤ num_bones ≤ limits.max_bones`.
pub(crate) fn check_shared_header<'data>(
    format: crate::format::Format,
    data: &'data [u8],
    words: SharedHeader,
    header_size: usize,
    limits: &crate::limits::Limits,
    diag: &mut crate::diag::Diagnostics,
) -> crate::error::Result<&'data [u8]> {
    use core::mem::offset_of;
    use raw::SkmHeader;
    let at = |f: usize| f as u64;
    crate::rules::check_type(
        format,
        at(offset_of!(SkmHeader, type_)),
        words.type_,
        raw::SKM_TYPE,
        "skelmap reads type 2",
    )?;
    let data = crate::rules::declared_size(
        format,
        data,
        words.filesize,
        at(offset_of!(SkmHeader, filesize)),
        header_size as u64,
        diag,
    )?;
    crate::rules::check_count(
        format,
        "header.num_bones",
        at(offset_of!(SkmHeader, num_bones)),
        words.num_bones,
        limits.max_bones,
    )?;
    Ok(data)
}

/// Validates `data` as an SKM under `limits`, recording non-fatal findings in `diag`.
impl<'data> Parse<'data> for Skm<'data> {
    const FORMAT: Format = SKM;

    fn parse_with(
        data: &'data [u8],
        limits: &Limits,
        diag: &mut Diagnostics,
    ) -> Result<Skm<'data>> {
        rules::begin(SKM, data, limits)?;
        if crate::format::looks_like_skp(data) {
            return Err(Error::WrongFormat {
                expected: Format::Skm,
                found: Format::Skp,
            });
        }
        let header: &SkmHeader = Reader::new(data, SKM).ref_at("header", 0)?;
        let at = |f: usize| f as u64;
        let words = SharedHeader {
            type_: header.type_.get(),
            filesize: header.filesize.get(),
            num_bones: header.num_bones.get(),
        };
        let data = check_shared_header(SKM, data, words, size_of::<SkmHeader>(), limits, diag)?;
        let num_bones = header.num_bones.get();
        let num_meshes = header.num_meshes.get();
        rules::check_count(
            SKM,
            "header.num_meshes",
            at(offset_of!(SkmHeader, num_meshes)),
            num_meshes,
            limits.max_meshes,
        )?;

        let reader = Reader::new(data, SKM);
        let ofs_meshes = u64::from(header.ofs_meshes.get());
        let meshes = reader.slice_at::<SkmMesh>("mesh table", ofs_meshes, num_meshes.into())?;
        let mut layout = Layout::new(SKM);
        layout.region("header", 0, size_of::<SkmHeader>() as u64);
        layout.region("mesh table", ofs_meshes, end(ofs_meshes, meshes));

        let mut pass = MeshPass {
            reader,
            limits,
            num_bones,
            total_influences: 0,
            layout,
            diag,
        };
        for (i, mesh) in meshes.iter().enumerate() {
            check_mesh(&mut pass, mesh, record_offset::<SkmMesh>(ofs_meshes, i))?;
        }
        pass.layout.report(reader.bytes(), pass.diag);
        Ok(Skm {
            data,
            header,
            meshes,
        })
    }
}

/// SKM's part of the pass: names and bone references around the shared arrays.
fn check_mesh(pass: &mut MeshPass<'_, '_>, mesh: &SkmMesh, at: u64) -> Result<()> {
    let field = |f: usize| at + f as u64;
    let num_refs = mesh.num_references.get();
    let refs_at = field(offset_of!(SkmMesh, num_references));
    rules::check_count(
        SKM,
        "mesh.num_references",
        refs_at,
        num_refs,
        pass.limits.max_bones,
    )?;
    rules::check_name(SKM, pass.diag, "mesh.shadername", at, &mesh.shadername);
    rules::check_name(
        SKM,
        pass.diag,
        "mesh.meshname",
        field(offset_of!(SkmMesh, meshname)),
        &mesh.meshname,
    );
    pass.shared_arrays::<LittleEndian>(MeshFields {
        num_verts: mesh.num_verts.get(),
        num_verts_at: field(offset_of!(SkmMesh, num_verts)),
        num_tris: mesh.num_tris.get(),
        num_tris_at: field(offset_of!(SkmMesh, num_tris)),
        ofs_verts: mesh.ofs_verts.get().into(),
        ofs_texcoords: mesh.ofs_texcoords.get().into(),
        ofs_indices: mesh.ofs_indices.get().into(),
    })?;
    let ofs_refs = mesh.ofs_references.get().into();
    rules::check_index_table::<LittleEndian>(
        pass.reader,
        "mesh.references",
        ofs_refs,
        num_refs.into(),
        pass.num_bones,
        &mut pass.layout,
    )
}

/// Validates `data` as an SKP under `limits`, recording non-fatal findings in `diag`.
impl<'data> Parse<'data> for Skp<'data> {
    const FORMAT: Format = SKP;

    fn parse_with(
        data: &'data [u8],
        limits: &Limits,
        diag: &mut Diagnostics,
    ) -> Result<Skp<'data>> {
        rules::begin(SKP, data, limits)?;
        if crate::format::looks_like_skm(data) {
            return Err(Error::WrongFormat {
                expected: Format::Skp,
                found: Format::Skm,
            });
        }
        let header: &SkpHeader = Reader::new(data, SKP).ref_at("header", 0)?;
        let at = |f: usize| f as u64;
        let words = SharedHeader {
            type_: header.type_.get(),
            filesize: header.filesize.get(),
            num_bones: header.num_bones.get(),
        };
        let data = check_shared_header(SKP, data, words, size_of::<SkpHeader>(), limits, diag)?;
        let num_bones = header.num_bones.get();
        let num_frames = header.num_frames.get();
        rules::check_count(
            SKP,
            "header.num_frames",
            at(offset_of!(SkpHeader, num_frames)),
            num_frames,
            limits.max_frames,
        )?;

        let reader = Reader::new(data, SKP);
        let ofs_bones = u64::from(header.ofs_bones.get());
        let ofs_frames = u64::from(header.ofs_frames.get());
        let bones = reader.slice_at::<SkpBone>("bone table", ofs_bones, num_bones.into())?;
        let frames = reader.slice_at::<SkpFrame>("frame table", ofs_frames, num_frames.into())?;
        let mut layout = Layout::new(SKP);
        layout.region("header", 0, size_of::<SkpHeader>() as u64);
        layout.region("bone table", ofs_bones, end(ofs_bones, bones));
        layout.region("frame table", ofs_frames, end(ofs_frames, frames));

        for (i, bone) in bones.iter().enumerate() {
            let at = record_offset::<SkpBone>(ofs_bones, i);
            let field = |f: usize| at + f as u64;
            rules::check_parent(
                SKP,
                i,
                bone.parent.get(),
                field(offset_of!(SkpBone, parent)),
            )?;
            rules::check_bone_flags(
                SKP,
                diag,
                i,
                bone.flags.get(),
                field(offset_of!(SkpBone, flags)),
            );
            rules::check_name(SKP, diag, "bone.name", at, &bone.name);
        }
        for (i, frame) in frames.iter().enumerate() {
            let at = record_offset::<SkpFrame>(ofs_frames, i);
            let ofs = u64::from(frame.ofs_bonepositions.get());
            let poses =
                reader.slice_at::<SkpBonePose>("frame.bonepositions", ofs, num_bones.into())?;
            layout.region("frame.bonepositions", ofs, end(ofs, poses));
            check_poses(poses, ofs, diag)?;
            rules::check_name(SKP, diag, "frame.name", at, &frame.name);
        }
        layout.report(reader.bytes(), diag);
        Ok(Skp {
            data,
            header,
            bones,
            frames,
        })
    }
}

/// Every pose value finite (error); quaternions of non-unit length (warning).
fn check_poses(poses: &[SkpBonePose], ofs: u64, diag: &mut Diagnostics) -> Result<()> {
    let masks = Masks::of::<LittleEndian>();
    if crate::scan::any_non_finite(flat::<LittleEndian, _>(poses)) {
        let values = poses.iter().flat_map(|p| p.quat.iter().chain(&p.origin));
        let k = values
            .clone()
            .position(|v| masks.non_finite(raw_bits(*v)))
            .unwrap_or(0);
        let (b, k) = (k / 7, k % 7);
        // The quaternion's four floats, then the origin's three: the value's own offset.
        let what = if k < 4 {
            "bonepose.quat"
        } else {
            "bonepose.origin"
        };
        const _: () = assert!(offset_of!(SkpBonePose, origin) == 16);
        return Err(Error::Invalid {
            format: SKP,
            what,
            offset: record_offset::<SkpBonePose>(ofs, b) + 4 * k as u64,
            problem: Problem::NotFinite,
        });
    }
    let off_unit = |p: &SkpBonePose| {
        let len2: f32 = p.quat().iter().map(|v| v * v).sum();
        (len2 - 1.0).abs() > QUAT_LENGTH_TOLERANCE
    };
    // The scan, where there is one, counts them and finds the first in whole steps of
    // sixteen poses; the scalar passes take the rest (all of them without the scan).
    let bytes = zerocopy::IntoBytes::as_bytes(poses);
    let (scanned, mut count, first) =
        crate::scan::skp_quats_off_unit(bytes, QUAT_LENGTH_TOLERANCE).unwrap_or((0, 0, usize::MAX));
    let rest = poses.get(scanned..).unwrap_or_default();
    count += rest.iter().filter(|p| off_unit(p)).count() as u64;
    if count > 0 {
        let b = match first {
            usize::MAX => scanned + rest.iter().position(off_unit).unwrap_or(0),
            first => first,
        };
        let q = poses.get(b).map(SkpBonePose::quat).unwrap_or_default();
        diag.warn_n(
            SKP,
            WarningKind::QuatNotUnit,
            "bonepose.quat",
            record_offset::<SkpBonePose>(ofs, b),
            count,
            || {
                let len = q.iter().map(|v| v * v).sum::<f32>().sqrt();
                format!("bone {b}: quaternion {q:?} has length {len}")
            },
        );
    }
    Ok(())
}

impl<'data> Pair<'data> {
    /// Pairs validated files, discarding warnings.
    ///
    /// # Errors
    ///
    /// As [`Pair::new_with`].
    pub fn new(skm: Skm<'data>, skp: Skp<'data>, lods: &[Skm<'data>]) -> Result<Self> {
        Pair::new_with(skm, skp, lods, &mut Diagnostics::new())
    }

    /// Pairs validated files: the SKM's bone count must equal the SKP's, and every level of
    /// detail's the SKM's; levels whose meshes differ in count or (suffix-stripped) names from
    /// the base are reported in `diag`.
    ///
    /// # Errors
    ///
    /// [`Error::Invalid`] on a bone-count mismatch (naming the SKM's `header.num_bones`),
    /// [`Error::Limit`] for more than four levels of detail.
    pub fn new_with(
        skm: Skm<'data>,
        skp: Skp<'data>,
        lods: &[Skm<'data>],
        diag: &mut Diagnostics,
    ) -> Result<Self> {
        const NUM_BONES_AT: u64 = offset_of!(raw::SkmHeader, num_bones) as u64;
        if skm.num_bones() != skp.num_bones() {
            return Err(Error::Invalid {
                format: Format::Skm,
                what: "header.num_bones",
                offset: NUM_BONES_AT,
                problem: Problem::Mismatch {
                    value: skm.num_bones() as u64,
                    expected: skp.num_bones() as u64,
                },
            });
        }
        if lods.len() > SKM_MAX_LODS {
            return Err(Error::Limit {
                format: Format::Skm,
                what: "levels of detail",
                offset: 0,
                value: lods.len() as u64,
                max: SKM_MAX_LODS as u64,
            });
        }
        let mut slots = [None; SKM_MAX_LODS];
        for (n, (lod, slot)) in lods.iter().zip(&mut slots).enumerate() {
            if lod.num_bones() != skm.num_bones() {
                return Err(Error::Invalid {
                    format: Format::Skm,
                    what: "header.num_bones",
                    offset: NUM_BONES_AT,
                    problem: Problem::LevelOfDetail {
                        lod: n as u64 + 1,
                        bones: lod.num_bones() as u64,
                        expected: skm.num_bones() as u64,
                    },
                });
            }
            let same_meshes = lod.num_meshes() == skm.num_meshes()
                && lod
                    .meshes()
                    .zip(skm.meshes())
                    .all(|(a, b)| a.base_name() == b.base_name());
            if !same_meshes {
                diag.warn(
                    Format::Skm,
                    WarningKind::LodMismatch,
                    "mesh table",
                    0,
                    || {
                        format!(
                            "level of detail {} has other meshes than its base model",
                            n + 1
                        )
                    },
                );
            }
            *slot = Some(*lod);
        }
        Ok(Pair {
            skm,
            skp,
            lods: slots,
        })
    }
}

/// An SKM opens with its skeleton (given, or found as [`resolve::skeleton`] finds it) and
/// its levels of detail.
///
/// [`resolve::skeleton`]: super::resolve::skeleton
impl<'a> Open<'a> for Pair<'a> {
    fn companions<'data, R: Resolver<'data> + ?Sized>(
        resolver: &R,
        path: &str,
        _: &[u8],
        given: Given<'data>,
    ) -> Result<Vec<CompanionFile<'data>>> {
        let (skp_path, skp) = match given.skeleton {
            Some(given) => given,
            None => super::resolve::skeleton(resolver, path)?,
        };
        let mut companions = vec![(Companion::Skeleton, skp_path, skp)];
        for (lod_path, lod) in super::resolve::levels_of_detail(resolver, path)? {
            companions.push((Companion::LevelOfDetail, lod_path, lod));
        }
        Ok(companions)
    }

    fn open(files: &'a Files<'_>, limits: &Limits, diag: &mut Diagnostics) -> Result<Self> {
        let skm = Skm::parse_with(files.main.bytes(), limits, diag)?;
        let skp = files
            .companion(Companion::Skeleton)
            .next()
            .ok_or_else(|| Error::Resolve {
                path: String::new(),
                reason: "an SKM mesh needs its SKP skeleton",
            })?;
        let skp = Skp::parse_with(skp.bytes(), limits, diag)?;
        let mut lods = Vec::new();
        for lod in files.companion(Companion::LevelOfDetail) {
            lods.push(Skm::parse_with(lod.bytes(), limits, diag)?);
        }
        Pair::new_with(skm, skp, &lods, diag)
    }
}
