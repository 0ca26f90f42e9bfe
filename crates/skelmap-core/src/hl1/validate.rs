//! The HL1 validation pass: every rule of `docs/formats/hl1.md` § Validation, in one linear
//! walk of a studio file (`IDST`), and the animation rule for a sequence-group file (`IDSQ`).
//!
//! Order of work (and of the checks, so that the first error is deterministic): the header and
//! its counts; bones; bone controllers; hit boxes; sequence groups; sequences with their events
//! and, for group 0, their animations; body parts, models, meshes and triangle commands;
//! textures and the skin table; attachments. Nothing is allocated but the table of the meshes
//! the model shows (one entry per mesh of each body part's first model, capped by
//! `Limits::max_meshes`) and the [`Diagnostics`] entries.

use core::mem::offset_of;

use zerocopy::byteorder::{F32, I16};
use zerocopy::{IntoBytes, LittleEndian};

use super::raw::{self, StudioHdr};
use super::view::{Hl1, MeshInfo};
use crate::diag::{Diagnostics, WarningKind};
use crate::error::{Error, Problem, Result};
use crate::format::Format;
use crate::limits::Limits;
use crate::parse::Parse;
use crate::read::Reader;
use crate::rules::{self, record_offset};
use crate::scan;

const FORMAT: Format = Format::Hl1;

/// Half-Life's `MAXSTUDIOBONES`: more is reported, not refused.
const ENGINE_MAX_BONES: u32 = 128;

/// The attachments the Half-Life SDK's client places (`cl_entity_t::attachment[4]`); its
/// `StudioCalcAttachments` exits the game on a model with more. Reported, not refused.
pub const ENGINE_MAX_ATTACHMENTS: u32 = 4;

/// The most blends a sequence has (`mstudioseqdesc_t` describes two blend axes; studiomdl
/// writes at most 16 blends).
pub const MAX_BLENDS: u32 = 16;

/// Every rule of `docs/formats/hl1.md` § Validation for a studio file (see the
/// [module docs](super)).
///
/// ```
/// use skelmap_core::{hl1::{self, Hl1}, Diagnostics, Limits, Parse};
/// let bytes = hl1::Builder::example().write()?;
/// let mut diag = Diagnostics::new();
/// let model = Hl1::parse_with(&bytes, &Limits::default(), &mut diag)?;
/// assert_eq!(model.num_bones(), 2);
/// # Ok::<(), skelmap_core::Error>(())
/// ```
impl<'data> Parse<'data> for Hl1<'data> {
    const FORMAT: Format = FORMAT;

    fn parse_with(
        data: &'data [u8],
        limits: &Limits,
        diag: &mut Diagnostics,
    ) -> Result<Hl1<'data>> {
        if data.starts_with(raw::HL1_SEQ_MAGIC) {
            return Err(Error::Unsupported {
                format: FORMAT,
                what: "header.id",
                offset: 0,
                value: 0,
                supported: "an IDSQ file is the sequence group of a model; open the model \
                            (`<stem>.mdl`) beside it",
            });
        }
        rules::begin(FORMAT, data, limits)?;
        let header: &StudioHdr = Reader::new(data, FORMAT).ref_at("header", 0)?;
        check_version(header.version.get(), offset_of!(StudioHdr, version) as u64)?;
        let length_at = offset_of!(StudioHdr, length) as u64;
        let length = rules::non_negative(FORMAT, "header.length", length_at, header.length.get())?;
        let data = rules::declared_size(
            FORMAT,
            data,
            length,
            length_at,
            size_of::<StudioHdr>() as u64,
            diag,
        )?;
        let reader = Reader::new(data, FORMAT);
        let field = |f: usize| f as u64;
        let count = |what: &'static str, at: usize, value: i32, max: u32| -> Result<u32> {
            let value = rules::non_negative(FORMAT, what, field(at), value)?;
            rules::check_limit(FORMAT, what, field(at), value, max)?;
            Ok(value)
        };
        let index = |what: &'static str, at: usize, value: i32| -> Result<u64> {
            rules::non_negative(FORMAT, what, field(at), value).map(u64::from)
        };
        let h = header;
        let numbones = count(
            "header.numbones",
            offset_of!(StudioHdr, numbones),
            h.numbones.get(),
            limits.max_bones,
        )?;
        rules::engine_limit(
            diag,
            (FORMAT, "Half-Life"),
            "header.numbones",
            field(offset_of!(StudioHdr, numbones)),
            numbones,
            ENGINE_MAX_BONES,
        );
        let numcontrollers = count(
            "header.numbonecontrollers",
            offset_of!(StudioHdr, numbonecontrollers),
            h.numbonecontrollers.get(),
            limits.max_bones,
        )?;
        let numhitboxes = count(
            "header.numhitboxes",
            offset_of!(StudioHdr, numhitboxes),
            h.numhitboxes.get(),
            limits.max_bones,
        )?;
        let numseq = count(
            "header.numseq",
            offset_of!(StudioHdr, numseq),
            h.numseq.get(),
            limits.max_frames,
        )?;
        let numseqgroups = count(
            "header.numseqgroups",
            offset_of!(StudioHdr, numseqgroups),
            h.numseqgroups.get(),
            limits.max_frames,
        )?;
        let numtextures = count(
            "header.numtextures",
            offset_of!(StudioHdr, numtextures),
            h.numtextures.get(),
            limits.max_skins,
        )?;
        let numskinref = count(
            "header.numskinref",
            offset_of!(StudioHdr, numskinref),
            h.numskinref.get(),
            limits.max_skins,
        )?;
        let numskinfamilies = count(
            "header.numskinfamilies",
            offset_of!(StudioHdr, numskinfamilies),
            h.numskinfamilies.get(),
            limits.max_skins,
        )?;
        let numbodyparts = count(
            "header.numbodyparts",
            offset_of!(StudioHdr, numbodyparts),
            h.numbodyparts.get(),
            limits.max_meshes,
        )?;
        let numattachments = count(
            "header.numattachments",
            offset_of!(StudioHdr, numattachments),
            h.numattachments.get(),
            limits.max_bones,
        )?;
        if numattachments > ENGINE_MAX_ATTACHMENTS {
            diag.warn(
                FORMAT,
                WarningKind::SpecLimit,
                "header.numattachments",
                field(offset_of!(StudioHdr, numattachments)),
                || {
                    format!(
                        "{numattachments} attachments: the Half-Life SDK's client places \
                         {ENGINE_MAX_ATTACHMENTS} and exits on a model with more"
                    )
                },
            );
        }

        // Bones.
        let bone_at = index(
            "header.boneindex",
            offset_of!(StudioHdr, boneindex),
            h.boneindex.get(),
        )?;
        let bones = reader.slice_at::<raw::Bone>("bones", bone_at, numbones.into())?;
        for (i, bone) in bones.iter().enumerate() {
            let at = record_offset::<raw::Bone>(bone_at, i);
            rules::check_parent(
                FORMAT,
                i,
                bone.parent.get(),
                at + offset_of!(raw::Bone, parent) as u64,
            )?;
            for (j, c) in bone.bonecontroller.iter().enumerate() {
                let c = c.get();
                if c < -1 || i64::from(c) >= i64::from(numcontrollers) {
                    return Err(Error::Invalid {
                        format: FORMAT,
                        what: "bone.bonecontroller",
                        offset: at + offset_of!(raw::Bone, bonecontroller) as u64 + 4 * j as u64,
                        problem: Problem::Index {
                            index: c.into(),
                            len: numcontrollers.into(),
                        },
                    });
                }
            }
            // Every channel a frame can decode (`value + v · scale`, `v` a 16-bit value) is
            // finite: a scale that overflows f32 at `v = ±32768` is refused at its offset.
            // The bound is finite only where the value and the scale are, so one pass over
            // the six channels proves all three rules; the searches name a fault.
            let reach = |(v, s): (&F32<LittleEndian>, &F32<LittleEndian>)| {
                (v.get().abs() + 32768.0 * s.get().abs()).is_finite()
            };
            let channels = || bone.value.iter().zip(&bone.scale);
            if !channels().fold(true, |all, pair| all & reach(pair)) {
                finite(
                    &bone.value,
                    at + offset_of!(raw::Bone, value) as u64,
                    "bone.value",
                )?;
                finite(
                    &bone.scale,
                    at + offset_of!(raw::Bone, scale) as u64,
                    "bone.scale",
                )?;
                let j = channels().position(|pair| !reach(pair)).unwrap_or_default();
                return Err(Error::Invalid {
                    format: FORMAT,
                    what: "bone.scale",
                    offset: at + offset_of!(raw::Bone, scale) as u64 + 4 * j as u64,
                    problem: Problem::NotFinite,
                });
            }
            rules::check_name(FORMAT, diag, "bone.name", at, &bone.name);
        }

        // Bone controllers.
        let controller_at = index(
            "header.bonecontrollerindex",
            offset_of!(StudioHdr, bonecontrollerindex),
            h.bonecontrollerindex.get(),
        )?;
        let controllers = reader.slice_at::<raw::BoneController>(
            "bonecontrollers",
            controller_at,
            numcontrollers.into(),
        )?;
        for (i, c) in controllers.iter().enumerate() {
            let at = record_offset::<raw::BoneController>(controller_at, i);
            check_bone(c.bone.get(), -1, numbones, at, "bonecontroller.bone")?;
            let range = [c.start, c.end];
            finite(
                &range,
                at + offset_of!(raw::BoneController, start) as u64,
                "bonecontroller.start",
            )?;
        }
        // A controlled channel stays finite at any setting: the adjustment reaches at most
        // the larger end, plus a turn's 360° where it wraps (in degrees, above its radians).
        for bone in bones {
            for (j, c) in bone.bonecontroller.iter().enumerate() {
                let Some(controller) = usize::try_from(c.get())
                    .ok()
                    .and_then(|c| controllers.get(c).map(|r| (c, r)))
                else {
                    continue;
                };
                let (c, r) = controller;
                let (value, scale) = (bone.value[j].get(), bone.scale[j].get());
                let most = r.start.get().abs().max(r.end.get().abs()) + 360.0;
                if !(value.abs() + 32768.0 * scale.abs() + most).is_finite() {
                    return Err(Error::Invalid {
                        format: FORMAT,
                        what: "bonecontroller.start",
                        offset: record_offset::<raw::BoneController>(controller_at, c)
                            + offset_of!(raw::BoneController, start) as u64,
                        problem: Problem::NotFinite,
                    });
                }
            }
        }

        // Hit boxes.
        let hitbox_at = index(
            "header.hitboxindex",
            offset_of!(StudioHdr, hitboxindex),
            h.hitboxindex.get(),
        )?;
        let hitboxes = reader.slice_at::<raw::BBox>("hitboxes", hitbox_at, numhitboxes.into())?;
        for (i, b) in hitboxes.iter().enumerate() {
            let at = record_offset::<raw::BBox>(hitbox_at, i);
            check_bone(b.bone.get(), 0, numbones, at, "hitbox.bone")?;
        }

        // Sequence groups.
        let group_at = index(
            "header.seqgroupindex",
            offset_of!(StudioHdr, seqgroupindex),
            h.seqgroupindex.get(),
        )?;
        let seqgroups =
            reader.slice_at::<raw::SeqGroup>("seqgroups", group_at, numseqgroups.into())?;

        // Sequences.
        let seq_at = index(
            "header.seqindex",
            offset_of!(StudioHdr, seqindex),
            h.seqindex.get(),
        )?;
        let sequences = reader.slice_at::<raw::SeqDesc>("sequences", seq_at, numseq.into())?;
        for (i, seq) in sequences.iter().enumerate() {
            let at = record_offset::<raw::SeqDesc>(seq_at, i);
            check_sequence(reader, seq, at, numseqgroups, limits)?;
            rules::check_name(FORMAT, diag, "seqdesc.label", at, &seq.label);
        }
        check_anims(reader, sequences, 0, numbones)?;

        // Body parts, models, meshes.
        let part_at = index(
            "header.bodypartindex",
            offset_of!(StudioHdr, bodypartindex),
            h.bodypartindex.get(),
        )?;
        let bodyparts =
            reader.slice_at::<raw::BodyPart>("bodyparts", part_at, numbodyparts.into())?;
        let mut meshes = Vec::new();
        let mut totals = (0u32, 0u32);
        let mut packed = rules::Packed::new(FORMAT, reader.len());
        for (p, part) in bodyparts.iter().enumerate() {
            let at = record_offset::<raw::BodyPart>(part_at, p);
            let nummodels = rules::non_negative(
                FORMAT,
                "bodypart.nummodels",
                at + offset_of!(raw::BodyPart, nummodels) as u64,
                part.nummodels.get(),
            )?;
            rules::check_count(
                FORMAT,
                "bodypart.nummodels",
                at + offset_of!(raw::BodyPart, nummodels) as u64,
                nummodels,
                limits.max_meshes,
            )?;
            let models_at = rules::non_negative(
                FORMAT,
                "bodypart.modelindex",
                at + offset_of!(raw::BodyPart, modelindex) as u64,
                part.modelindex.get(),
            )?;
            let models =
                reader.slice_at::<raw::Model>("models", models_at.into(), nummodels.into())?;
            for (m, model) in models.iter().enumerate() {
                let model_at = record_offset::<raw::Model>(models_at.into(), m);
                let shown = (m == 0).then_some((p, &mut meshes, &mut totals));
                let checked = (reader, &mut packed);
                check_model(checked, (model, model_at), numbones, limits, shown)?;
            }
        }

        // Textures and the skin table.
        let texture_at = index(
            "header.textureindex",
            offset_of!(StudioHdr, textureindex),
            h.textureindex.get(),
        )?;
        let textures =
            reader.slice_at::<raw::Texture>("textures", texture_at, numtextures.into())?;
        for (i, t) in textures.iter().enumerate() {
            check_texture(
                reader,
                t,
                record_offset::<raw::Texture>(texture_at, i),
                limits,
            )?;
        }
        let skin_at = index(
            "header.skinindex",
            offset_of!(StudioHdr, skinindex),
            h.skinindex.get(),
        )?;
        let skin_len = u64::from(numskinref) * u64::from(numskinfamilies);
        let skins = if numtextures > 0 {
            let skins = reader.slice_at::<I16<LittleEndian>>("skins", skin_at, skin_len)?;
            if let Some(k) = skins
                .iter()
                .position(|s| s.get() < 0 || s.get() as u32 >= numtextures)
            {
                return Err(Error::Invalid {
                    format: FORMAT,
                    what: "skin",
                    offset: skin_at + 2 * k as u64,
                    problem: Problem::Index {
                        index: skins[k].get().into(),
                        len: numtextures.into(),
                    },
                });
            }
            skins
        } else {
            &[]
        };

        // Attachments.
        let attachment_at = index(
            "header.attachmentindex",
            offset_of!(StudioHdr, attachmentindex),
            h.attachmentindex.get(),
        )?;
        let attachments = reader.slice_at::<raw::Attachment>(
            "attachments",
            attachment_at,
            numattachments.into(),
        )?;
        for (i, a) in attachments.iter().enumerate() {
            let at = record_offset::<raw::Attachment>(attachment_at, i);
            check_bone(
                a.bone.get(),
                0,
                numbones,
                at + offset_of!(raw::Attachment, bone) as u64,
                "attachment.bone",
            )?;
            finite(
                &a.org,
                at + offset_of!(raw::Attachment, org) as u64,
                "attachment.org",
            )?;
        }

        Ok(Hl1 {
            data,
            header,
            bones,
            controllers,
            hitboxes,
            seqgroups,
            sequences,
            bodyparts,
            textures,
            skins: if numskinref == 0 { &[] } else { skins },
            num_skinref: numskinref as usize,
            attachments,
            body: 0,
            meshes,
            num_vertices: totals.0 as usize,
            num_triangles: totals.1 as usize,
        })
    }
}

/// Rule 1: version 10, the one Half-Life writes.
fn check_version(version: i32, at: u64) -> Result<()> {
    if version == raw::STUDIO_VERSION {
        return Ok(());
    }
    Err(Error::Unsupported {
        format: FORMAT,
        what: "header.version",
        offset: at,
        value: version.into(),
        supported: "skelmap reads version 10, Half-Life's",
    })
}

/// Values at `at` that must be finite.
fn finite(values: &[F32<LittleEndian>], at: u64, what: &'static str) -> Result<()> {
    // A flat scan proves the values; the search only names the first failure.
    if !scan::any_non_finite(values) {
        return Ok(());
    }
    match values.iter().position(|v| !v.get().is_finite()) {
        None => Ok(()),
        Some(k) => Err(Error::Invalid {
            format: FORMAT,
            what,
            offset: at + 4 * k as u64,
            problem: Problem::NotFinite,
        }),
    }
}

/// A bone index in `min..numbones` (`min` −1 where −1 means none).
fn check_bone(bone: i32, min: i32, numbones: u32, at: u64, what: &'static str) -> Result<()> {
    if bone >= min && i64::from(bone) < i64::from(numbones) {
        return Ok(());
    }
    Err(Error::Invalid {
        format: FORMAT,
        what,
        offset: at,
        problem: Problem::Index {
            index: bone.into(),
            len: numbones.into(),
        },
    })
}

/// Rule 5: a sequence's frames, rate, blends, group and events.
fn check_sequence(
    reader: Reader<'_>,
    seq: &raw::SeqDesc,
    at: u64,
    numseqgroups: u32,
    limits: &Limits,
) -> Result<()> {
    let f = |field: usize| at + field as u64;
    let numframes = rules::non_negative(
        FORMAT,
        "seqdesc.numframes",
        f(offset_of!(raw::SeqDesc, numframes)),
        seq.numframes.get(),
    )?;
    rules::check_count(
        FORMAT,
        "seqdesc.numframes",
        f(offset_of!(raw::SeqDesc, numframes)),
        numframes,
        limits.max_frames,
    )?;
    let fps = seq.fps.get();
    if !fps.is_finite() {
        return Err(Error::Invalid {
            format: FORMAT,
            what: "seqdesc.fps",
            offset: f(offset_of!(raw::SeqDesc, fps)),
            problem: Problem::NotFinite,
        });
    }
    if fps < 0.0 {
        return Err(Error::Invalid {
            format: FORMAT,
            what: "seqdesc.fps",
            offset: f(offset_of!(raw::SeqDesc, fps)),
            problem: Problem::Negative { value: fps as i64 },
        });
    }
    let numblends = rules::non_negative(
        FORMAT,
        "seqdesc.numblends",
        f(offset_of!(raw::SeqDesc, numblends)),
        seq.numblends.get(),
    )?;
    rules::check_count(
        FORMAT,
        "seqdesc.numblends",
        f(offset_of!(raw::SeqDesc, numblends)),
        numblends,
        MAX_BLENDS,
    )?;
    let group = seq.seqgroup.get();
    if group < 0 || group as u32 >= numseqgroups {
        return Err(Error::Invalid {
            format: FORMAT,
            what: "seqdesc.seqgroup",
            offset: f(offset_of!(raw::SeqDesc, seqgroup)),
            problem: Problem::Index {
                index: group.into(),
                len: numseqgroups.into(),
            },
        });
    }
    rules::non_negative(
        FORMAT,
        "seqdesc.animindex",
        f(offset_of!(raw::SeqDesc, animindex)),
        seq.animindex.get(),
    )?;
    let numevents = rules::non_negative(
        FORMAT,
        "seqdesc.numevents",
        f(offset_of!(raw::SeqDesc, numevents)),
        seq.numevents.get(),
    )?;
    let eventindex = rules::non_negative(
        FORMAT,
        "seqdesc.eventindex",
        f(offset_of!(raw::SeqDesc, eventindex)),
        seq.eventindex.get(),
    )?;
    reader.slice_at::<raw::Event>("events", eventindex.into(), numevents.into())?;
    Ok(())
}

/// Rule 6 for every sequence of sequence group `group` in `reader` (the main file for group
/// 0, the group's `IDSQ` file otherwise): their channels' runs proven by one scan, each
/// sequence walked by [`walk_anims`] where the scan does not pass (to name the fault) or
/// cannot run.
pub(crate) fn check_anims(
    reader: Reader<'_>,
    sequences: &[raw::SeqDesc],
    group: u32,
    numbones: u32,
) -> Result<()> {
    let ours = || {
        sequences
            .iter()
            .filter(move |seq| u32::try_from(seq.seqgroup.get()) == Ok(group))
    };
    let chains = |seq: &raw::SeqDesc| {
        // Validated by `check_sequence`: each is at least 0.
        let records = u64::from(numbones) * seq.numblends.get().max(0) as u64;
        Some(scan::AnimChains {
            base: usize::try_from(seq.animindex.get()).ok()?,
            records: usize::try_from(records).ok()?,
            frames: u32::try_from(seq.numframes.get()).ok()?,
        })
    };
    if ours().all(|seq| chains(seq).is_some())
        && scan::hl1_anim_runs(reader.bytes(), ours().filter_map(chains)) == Some(true)
    {
        return Ok(());
    }
    ours().try_for_each(|seq| walk_anims(reader, seq, numbones))
}

/// Rule 6 for one sequence, a channel at a time: `numblends × numbones` records in bounds,
/// and every channel's run-length values covering `numframes` frames, each run with
/// `1 ≤ valid ≤ total`, its values in bounds. The walk takes at most `numframes` steps a
/// channel.
fn walk_anims(reader: Reader<'_>, seq: &raw::SeqDesc, numbones: u32) -> Result<()> {
    // Validated by `check_sequence`.
    let numframes = seq.numframes.get().max(0) as u64;
    let numblends = seq.numblends.get().max(0) as u64;
    let base = seq.animindex.get().max(0) as u64;
    let records = numblends * u64::from(numbones);
    let anims = reader.slice_at::<raw::Anim>("anims", base, records)?;
    for (r, anim) in anims.iter().enumerate() {
        let record_at = record_offset::<raw::Anim>(base, r);
        for offset in &anim.offset {
            let offset = u64::from(offset.get());
            if offset == 0 {
                continue;
            }
            let mut at = record_at + offset;
            let mut covered = 0u64;
            let data = reader.bytes();
            while covered < numframes {
                // One test for the usual run (`1 ..= total` values, in the file); any other
                // goes to `anim_run`, which names the fault.
                let run = usize::try_from(at)
                    .ok()
                    .and_then(|a| data.get(a..a.checked_add(2)?));
                let (total, end) = match run {
                    Some(&[valid, total])
                        if valid.wrapping_sub(1) < total
                            && at + 2 * (u64::from(valid) + 1) <= reader.len() =>
                    {
                        (u64::from(total), at + 2 * (u64::from(valid) + 1))
                    }
                    _ => anim_run(reader, at)?,
                };
                covered += total;
                at = end;
            }
        }
    }
    Ok(())
}

/// The run of animation values at `at` (rule 6): its header whole, `1 ..= total` values, all
/// in the file. Returns its `total` and where the next run starts.
fn anim_run(reader: Reader<'_>, at: u64) -> Result<(u64, u64)> {
    let run: &[u8; 2] = reader.ref_at("animvalue", at)?;
    let (valid, total) = (u64::from(run[0]), u64::from(run[1]));
    if total == 0 {
        return Err(Error::Invalid {
            format: FORMAT,
            what: "animvalue.total",
            offset: at + 1,
            problem: Problem::Empty,
        });
    }
    if valid == 0 {
        return Err(Error::Invalid {
            format: FORMAT,
            what: "animvalue.valid",
            offset: at,
            problem: Problem::Empty,
        });
    }
    if valid > total {
        return Err(Error::Invalid {
            format: FORMAT,
            what: "animvalue.valid",
            offset: at,
            problem: Problem::AboveMaximum {
                value: valid,
                max: total,
            },
        });
    }
    reader.slice_at::<raw::AnimValue>("animvalue", at + 2, valid)?;
    Ok((total, at + 2 * (valid + 1)))
}

/// Rules 7 to 9 for one model: its vertices and normals with their bones, its meshes and
/// their triangle commands. `shown` (a body part's first model) records each mesh in the
/// table the model's one mesh is made of.
fn check_model(
    (reader, packed): (Reader<'_>, &mut rules::Packed),
    (model, at): (&raw::Model, u64),
    numbones: u32,
    limits: &Limits,
    shown: Option<(usize, &mut Vec<MeshInfo>, &mut (u32, u32))>,
) -> Result<()> {
    let f = |field: usize| at + field as u64;
    let nn = |what, field: usize, value: i32| rules::non_negative(FORMAT, what, f(field), value);
    let numverts = nn(
        "model.numverts",
        offset_of!(raw::Model, numverts),
        model.numverts.get(),
    )?;
    rules::check_limit(
        FORMAT,
        "model.numverts",
        f(offset_of!(raw::Model, numverts)),
        numverts,
        limits.max_vertices_per_mesh,
    )?;
    let numnorms = nn(
        "model.numnorms",
        offset_of!(raw::Model, numnorms),
        model.numnorms.get(),
    )?;
    rules::check_limit(
        FORMAT,
        "model.numnorms",
        f(offset_of!(raw::Model, numnorms)),
        numnorms,
        limits.max_vertices_per_mesh,
    )?;
    let nummesh = nn(
        "model.nummesh",
        offset_of!(raw::Model, nummesh),
        model.nummesh.get(),
    )?;
    rules::check_limit(
        FORMAT,
        "model.nummesh",
        f(offset_of!(raw::Model, nummesh)),
        nummesh,
        limits.max_meshes,
    )?;
    let vertinfo_at = nn(
        "model.vertinfoindex",
        offset_of!(raw::Model, vertinfoindex),
        model.vertinfoindex.get(),
    )?;
    let vert_at = nn(
        "model.vertindex",
        offset_of!(raw::Model, vertindex),
        model.vertindex.get(),
    )?;
    let norminfo_at = nn(
        "model.norminfoindex",
        offset_of!(raw::Model, norminfoindex),
        model.norminfoindex.get(),
    )?;
    let norm_at = nn(
        "model.normindex",
        offset_of!(raw::Model, normindex),
        model.normindex.get(),
    )?;
    let mesh_at = nn(
        "model.meshindex",
        offset_of!(raw::Model, meshindex),
        model.meshindex.get(),
    )?;

    let vertbones = reader.slice_at::<u8>("vertinfo", vertinfo_at.into(), numverts.into())?;
    check_byte_bones(vertbones, vertinfo_at.into(), numbones, "vertinfo")?;
    let verts =
        reader.slice_at::<[F32<LittleEndian>; 3]>("verts", vert_at.into(), numverts.into())?;
    finite(verts.as_flattened(), vert_at.into(), "vert")?;
    let normbones = reader.slice_at::<u8>("norminfo", norminfo_at.into(), numnorms.into())?;
    check_byte_bones(normbones, norminfo_at.into(), numbones, "norminfo")?;
    let norms =
        reader.slice_at::<[F32<LittleEndian>; 3]>("norms", norm_at.into(), numnorms.into())?;
    finite(norms.as_flattened(), norm_at.into(), "norm")?;

    let meshes = reader.slice_at::<raw::Mesh>("meshes", mesh_at.into(), nummesh.into())?;
    // Rule 9: the models, each with its arrays and triangle commands, laid end to end fit in
    // the file, so a model two body parts (or a body part twice) point at is paid for.
    let bytes = size_of::<raw::Model>()
        + vertbones.len()
        + normbones.len()
        + size_of_val(verts)
        + size_of_val(norms)
        + size_of_val(meshes);
    packed.add("model", at, bytes as u64)?;
    let mut shown = shown;
    for (k, mesh) in meshes.iter().enumerate() {
        let m_at = record_offset::<raw::Mesh>(mesh_at.into(), k);
        let tri_at = rules::non_negative(
            FORMAT,
            "mesh.triindex",
            m_at + offset_of!(raw::Mesh, triindex) as u64,
            mesh.triindex.get(),
        )?;
        let (vertices, triangles) =
            walk_tricmds(reader, tri_at.into(), numverts, numnorms, limits)?;
        // Each command: its count and its triverts (3 or more, two fewer triangles); then the
        // 0 that ends them.
        let commands = (u64::from(vertices) - u64::from(triangles)) / 2;
        let tricmds = 2 * (commands + 1) + size_of::<raw::Trivert>() as u64 * u64::from(vertices);
        packed.add("tricmds", tri_at.into(), tricmds)?;
        if let Some((part, table, totals)) = shown.as_mut() {
            let (first_vertex, first_triangle) = **totals;
            let v = u64::from(first_vertex) + u64::from(vertices);
            let t = u64::from(first_triangle) + u64::from(triangles);
            if v > u64::from(limits.max_vertices_per_mesh)
                || t > u64::from(limits.max_triangles_per_mesh)
            {
                return Err(Error::Limit {
                    format: FORMAT,
                    what: "tricmds",
                    offset: tri_at.into(),
                    value: v.max(t),
                    max: limits
                        .max_vertices_per_mesh
                        .min(limits.max_triangles_per_mesh)
                        .into(),
                });
            }
            if table.len() >= limits.max_meshes as usize {
                return Err(Error::Limit {
                    format: FORMAT,
                    what: "meshes",
                    offset: m_at,
                    value: table.len() as u64 + 1,
                    max: limits.max_meshes.into(),
                });
            }
            table.push(MeshInfo {
                bodypart: *part as u32,
                model_at: at as u32,
                mesh_at: m_at as u32,
                tricmds_at: tri_at,
                first_vertex,
                num_vertices: vertices,
                first_triangle,
                num_triangles: triangles,
                skinref: mesh.skinref.get(),
            });
            **totals = (v as u32, t as u32);
        }
    }
    Ok(())
}

/// Bone bytes (of vertices or normals) naming bones.
fn check_byte_bones(bones: &[u8], at: u64, numbones: u32, what: &'static str) -> Result<()> {
    // A scan (or a branch-free pass) proves the table; the search only names the first
    // failure.
    let scanned = numbones
        .checked_sub(1)
        .and_then(|last| scan::Fields::<1>::new(&[last]))
        .and_then(|s| s.any_above(bones));
    let fails = scanned.unwrap_or_else(|| {
        bones
            .iter()
            .fold(false, |bad, &b| bad | (u32::from(b) >= numbones))
    });
    if !fails {
        return Ok(());
    }
    match bones.iter().position(|&b| u32::from(b) >= numbones) {
        None => Ok(()),
        Some(k) => Err(Error::Invalid {
            format: FORMAT,
            what,
            offset: at + k as u64,
            problem: Problem::Index {
                index: bones[k].into(),
                len: numbones.into(),
            },
        }),
    }
}

/// Rule 9: a mesh's triangle commands, from `at` to their terminating 0: each command's
/// count at least 3 vertices either way (a strip when positive, a fan when negative), every
/// vertex naming a model vertex and normal. Returns the vertices and triangles. The walk
/// ends at the end of the data, each step consuming at least 2 bytes.
pub(crate) fn walk_tricmds(
    reader: Reader<'_>,
    mut at: u64,
    numverts: u32,
    numnorms: u32,
    limits: &Limits,
) -> Result<(u32, u32)> {
    // The largest index of `n` items, as the scans take it: 16-bit, a negative one above any
    // maximum (at most `i16::MAX`).
    let last = |n: u32| n.checked_sub(1).map(|m| m.min(i16::MAX as u32));
    // A mesh whose every command passes is proven by one walk of its commands with their
    // triverts' indices scanned; only where that walk stops does this one name the fault.
    let proven = match (last(numverts), last(numnorms), usize::try_from(at)) {
        (Some(v), Some(n), Ok(at)) => scan::hl1_tricmds(
            reader.bytes(),
            at,
            [v as u16, n as u16],
            limits.max_vertices_per_mesh.into(),
        ),
        _ => None,
    };
    if let Some(walked) = proven {
        // At most `max_vertices_per_mesh` vertices, and at least 3 a command.
        let triangles = walked.vertices - 2 * walked.commands;
        return Ok((walked.vertices as u32, triangles as u32));
    }
    let (mut vertices, mut triangles) = (0u64, 0u64);
    // A scan of a command's triverts (for commands long enough to pay for it).
    let scan = match (last(numverts), last(numnorms)) {
        (Some(v), Some(n)) => scan::Fields::<2>::new(&[v, n, u32::MAX, u32::MAX]),
        _ => None,
    };
    loop {
        let count: &I16<LittleEndian> = reader.ref_at("tricmd", at)?;
        let n = i32::from(count.get()).unsigned_abs();
        if n == 0 {
            break;
        }
        if n < 3 {
            return Err(Error::Invalid {
                format: FORMAT,
                what: "tricmd.count",
                offset: at,
                problem: Problem::BelowMinimum {
                    value: n.into(),
                    min: 3,
                },
            });
        }
        let triverts = reader.slice_at::<raw::Trivert>("tricmd", at + 2, n.into())?;
        // Sign-extended to a `u32`, a negative index is above any count (at most
        // `i32::MAX`): a branch-free pass proves the command, and the walk only names the
        // first failure.
        let out_of_range = |tv: &raw::Trivert| {
            (i32::from(tv.vertindex.get()) as u32 >= numverts)
                | (i32::from(tv.normindex.get()) as u32 >= numnorms)
        };
        let scanned = scan.as_ref().and_then(|s| s.any_above(triverts.as_bytes()));
        let fails = scanned.unwrap_or_else(|| {
            triverts
                .iter()
                .fold(false, |bad, tv| bad | out_of_range(tv))
        });
        for (k, tv) in triverts.iter().enumerate().filter(|_| fails) {
            let tv_at = at + 2 + 8 * k as u64;
            let v = tv.vertindex.get();
            if v < 0 || v as u32 >= numverts {
                return Err(Error::Invalid {
                    format: FORMAT,
                    what: "trivert.vertindex",
                    offset: tv_at,
                    problem: Problem::Index {
                        index: v.into(),
                        len: numverts.into(),
                    },
                });
            }
            let nrm = tv.normindex.get();
            if nrm < 0 || nrm as u32 >= numnorms {
                return Err(Error::Invalid {
                    format: FORMAT,
                    what: "trivert.normindex",
                    offset: tv_at + 2,
                    problem: Problem::Index {
                        index: nrm.into(),
                        len: numnorms.into(),
                    },
                });
            }
        }
        vertices += u64::from(n);
        triangles += u64::from(n - 2);
        if vertices > u64::from(limits.max_vertices_per_mesh) {
            return Err(Error::Limit {
                format: FORMAT,
                what: "tricmd vertices",
                offset: at,
                value: vertices,
                max: limits.max_vertices_per_mesh.into(),
            });
        }
        at += 2 + 8 * u64::from(n);
    }
    Ok((vertices as u32, triangles as u32))
}

/// Rule 10: a texture's size and its pixels and palette in bounds.
fn check_texture(reader: Reader<'_>, t: &raw::Texture, at: u64, limits: &Limits) -> Result<()> {
    let f = |field: usize| at + field as u64;
    for (what, field, value) in [
        (
            "texture.width",
            offset_of!(raw::Texture, width),
            t.width.get(),
        ),
        (
            "texture.height",
            offset_of!(raw::Texture, height),
            t.height.get(),
        ),
    ] {
        let v = rules::non_negative(FORMAT, what, f(field), value)?;
        rules::check_count(FORMAT, what, f(field), v, limits.max_skin_dimension)?;
    }
    let index = rules::non_negative(
        FORMAT,
        "texture.index",
        f(offset_of!(raw::Texture, index)),
        t.index.get(),
    )?;
    let pixels = u64::from(t.width.get() as u32) * u64::from(t.height.get() as u32);
    reader.slice_at::<u8>("texture pixels", index.into(), pixels + raw::PALETTE_BYTES)?;
    Ok(())
}

impl<'data> Hl1<'data> {
    /// The model body part `part` shows for the body value `body` (an entity's `body`), as
    /// the engine picks it: `(body / base) % nummodels`. A part whose `base` is not positive
    /// (the engine would divide by it) shows its first model; `None` for no such part.
    ///
    /// ```
    /// use skelmap_core::{hl1::{Builder, Hl1}, Parse};
    /// let bytes = Builder::example().write()?;
    /// let model = Hl1::parse(&bytes)?;
    /// assert_eq!(model.body_model(0, 0), Some(0));
    /// assert_eq!(model.body_model(0, 7), Some(0)); // the example's part has one model
    /// assert_eq!(model.body_model(9, 0), None);
    /// # Ok::<(), skelmap_core::Error>(())
    /// ```
    #[must_use]
    pub fn body_model(&self, part: usize, body: u32) -> Option<usize> {
        let p = self.bodyparts.get(part)?;
        let models = u32::try_from(p.nummodels.get()).ok()?.max(1);
        let base = u32::try_from(p.base.get()).ok().filter(|&b| b > 0);
        Some(base.map_or(0, |base| body / base % models) as usize)
    }

    /// This model showing body value `body` ([`body_model`](Hl1::body_model) of each part)
    /// instead of body 0 (every part's first model), as an entity whose `body` is `body`
    /// shows it: the same file, its mesh made of the chosen models' studio meshes. Every model
    /// was validated at open; the new mesh's totals are held to `limits` as body 0's were.
    ///
    /// ```
    /// use skelmap_core::{hl1::{Builder, Hl1}, Limits, Parse};
    /// let mut b = Builder::example();
    /// let mut second = b.bodyparts[0].models[0].clone();
    /// second.meshes.truncate(1);
    /// b.bodyparts[0].models.push(second); // base 1: body 1 shows it
    /// let bytes = b.write()?;
    /// let model = Hl1::parse(&bytes)?;
    /// let one = model.with_body(1, &Limits::default())?;
    /// assert_eq!(one.meshes().len(), 1);
    /// assert_eq!(model.with_body(2, &Limits::default())?.meshes(), model.meshes());
    /// # Ok::<(), skelmap_core::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::Limit`] where the chosen models' vertices, triangles or meshes together pass
    /// `limits`.
    pub fn with_body(&self, body: u32, limits: &Limits) -> Result<Hl1<'data>> {
        let reader = Reader::new(self.data, FORMAT);
        let numbones = self.bones.len() as u32;
        let mut meshes = Vec::new();
        let mut totals = (0u32, 0u32);
        // A subset of the models open laid end to end: it fits.
        let mut packed = rules::Packed::new(FORMAT, reader.len());
        for (p, part) in self.bodyparts.iter().enumerate() {
            let m = self.body_model(p, body).unwrap_or(0);
            // Validated at open: the part's models are in bounds, `m` one of them.
            let Some(model) = self.model(p, m) else {
                continue;
            };
            let model_at = record_offset::<raw::Model>(part.modelindex.get() as u64, m);
            let shown = Some((p, &mut meshes, &mut totals));
            let checked = (reader, &mut packed);
            check_model(checked, (model, model_at), numbones, limits, shown)?;
        }
        Ok(Hl1 {
            body,
            meshes,
            num_vertices: totals.0 as usize,
            num_triangles: totals.1 as usize,
            ..self.clone()
        })
    }

    /// Validates `data` as this model's sequence group `group` (its `IDSQ` file, `1 ..`), as
    /// opening the model with its companions does: the group's header, then rule 6 for every
    /// sequence the model keeps in the group. Its findings go to `diag`. A group the model
    /// does not declare has no sequence to check: only its header is.
    ///
    /// ```
    /// use skelmap_core::{hl1::{Builder, Hl1}, Diagnostics, Limits, Parse};
    /// let mut b = Builder::example();
    /// b.groups.push("far".into());
    /// b.sequences[0].group = 1; // its animations in `<stem>01.mdl`
    /// let model = b.write()?;
    /// let model = Hl1::parse(&model)?;
    /// let (group, limits) = (b.write_group(1)?, Limits::default());
    /// model.check_group(&group, 1, &limits, &mut Diagnostics::new())?;
    /// // Cut short, the group's runs leave its bytes.
    /// let cut = &group[..group.len() - 2];
    /// assert!(model.check_group(cut, 1, &limits, &mut Diagnostics::new()).is_err());
    /// # Ok::<(), skelmap_core::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::BadMagic`] for a file that is not `IDSQ`; the errors of its header (rules 1
    /// and 2) and of rule 6, each at its offset in `data`.
    pub fn check_group(
        &self,
        data: &[u8],
        group: usize,
        limits: &Limits,
        diag: &mut Diagnostics,
    ) -> Result<()> {
        // A number past `u32` is no group of the model: its header alone is checked.
        let group = u32::try_from(group).unwrap_or(u32::MAX);
        check_group(data, self, group, limits, diag).map(|_| ())
    }
}

/// Validates a sequence-group file (`IDSQ`): its header, then the animations of every
/// sequence of `main` in group `group`. Returns the bytes the animations are read from.
pub(crate) fn check_group<'g>(
    data: &'g [u8],
    main: &Hl1<'_>,
    group: u32,
    limits: &Limits,
    diag: &mut Diagnostics,
) -> Result<&'g [u8]> {
    rules::check_file_size(FORMAT, data, limits)?;
    rules::check_magic(FORMAT, data, raw::HL1_SEQ_MAGIC, "\"IDSQ\"")?;
    let header: &raw::StudioSeqHdr = Reader::new(data, FORMAT).ref_at("seqheader", 0)?;
    check_version(
        header.version.get(),
        offset_of!(raw::StudioSeqHdr, version) as u64,
    )?;
    let length_at = offset_of!(raw::StudioSeqHdr, length) as u64;
    let length = rules::non_negative(FORMAT, "seqheader.length", length_at, header.length.get())?;
    let data = rules::declared_size(
        FORMAT,
        data,
        length,
        length_at,
        size_of::<raw::StudioSeqHdr>() as u64,
        diag,
    )?;
    let reader = Reader::new(data, FORMAT);
    check_anims(reader, main.sequences, group, main.bones.len() as u32)?;
    Ok(data)
}
